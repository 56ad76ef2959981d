/**
 * The generic moves: what the engine tries when no rule for the root cause's signature has a plan (issue 31).
 * They key on the kind of failure, not on one signature id, and each is general:
 *
 * - `versioned-file-lookup`: a missing file (a header, a program) the per-kind look-up found no single package
 *   for is looked up by its path in the package index, in versioned places: a header in a versioned include
 *   folder (`/usr/include/lua5.4/lua.h`: the newest version's package, its folder on CPATH), a program shipped
 *   under a versioned name (`/usr/bin/aclocal-1.16`, `/usr/bin/lua5.4`, reached through alternatives).
 * - `configure-first`: a generated file is missing (`config.h`, a `Makefile`): a configure step was skipped, so
 *   the project's own bootstrap/configure (`configure`, `autogen.sh` or `autoreconf -fi` then `configure`,
 *   `bootstrap`, `config.sh`, `configure.sh`) runs before the recipe, whatever build system was guessed.
 * - `other-compiler`: an option the compiler does not know that the other common compiler does (a clang-only
 *   option under GCC, a GCC-only one under clang): the build runs with that compiler (`CC=clang`), recorded in
 *   the recipe.
 *
 * `GENERIC_MOVES` names the signature ids each move answers beyond the rules; the catalog marks those
 * `repair: {owner: generic}` (test/unit/knowledge/repair/generic-moves.test.ts checks both ways round).
 */
import { compareVersions } from './autotools.js';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { inDir, shq } from '../../../base/shell.js';
import type { Finding } from '../../diagnose/types.js';
import { escapeRegex } from '../../../base/escape-regex.js';
import type { Repair, RepairInput } from '../repair.js';
import { AUTORECONF_PACKAGES, cap, withFreshDir, type RuleContext } from './rule.js';

/** A generic move: the signature ids it owns (`repair: {owner: generic}`) and those it also tries after their rule. */
export interface GenericMove {
  readonly name: string;
  /** Signature ids this move owns: no rule claims them, the catalog says `owner: generic`. */
  readonly owns: readonly string[];
  /** Signature ids whose rule may have no plan, after which this move is tried. */
  readonly after: readonly string[];
  readonly propose: (finding: Finding, input: RepairInput, context: RuleContext) => Promise<Repair[]>;
}

const HEADER_IDS = ['missing-header', 'missing-header-clang', 'missing-header-localized'] as const;
const COMMAND_IDS = [
  'command-not-found',
  'command-not-found-sh',
  'command-not-found-make',
  'command-not-found-env',
  'autotools-missing',
  'autotools-missing-warning',
  'meson-program-not-found',
] as const;

/** A safe file name to look up: no path, no shell or regex surprises. */
const FILE_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,99}$/;
/** A version after a name: `5.4`, `-1.16`, `3.11`. */
const VERSION = /^-?(\d+(?:\.\d+)*)$/;
/** An include folder right under the system include directory (with the multiarch triplet or not). */
const INCLUDE_FOLDER = /^\/usr\/include\/(?:[a-z0-9_]+-linux-[a-z0-9_]+\/)?([^/]+)$/;
const BIN_DIR = /^\/(?:usr\/)?s?bin$/;

/** The version in `name` after `stem` (`lua5.4` after `lua` → `5.4`), compared case-insensitively; else undefined. */
function versionAfter(name: string, stem: string): string | undefined {
  if (!name.toLowerCase().startsWith(stem.toLowerCase())) return undefined;
  return VERSION.exec(name.slice(stem.length))?.[1];
}

/** A hit of the package index: the package and the full path it ships. */
export interface PathHit {
  pkg: string;
  path: string;
}

/**
 * The newest versioned place among `hits` for a missing `file` of `kind`: a header in `/usr/include/<stem><version>/`
 * (stem: the header's name without its extension), a program `<name><version>` in a bin directory. Several
 * packages at one version (or none versioned) give undefined.
 */
export function newestVersioned(
  kind: 'header' | 'command',
  file: string,
  hits: readonly PathHit[],
): { hit: PathHit; version: string; dir: string } | undefined {
  const found: { hit: PathHit; version: string; dir: string }[] = [];
  for (const hit of hits) {
    const dir = path.posix.dirname(hit.path);
    const base = path.posix.basename(hit.path);
    if (kind === 'header') {
      if (base !== file) continue;
      const folder = INCLUDE_FOLDER.exec(dir)?.[1];
      const version = folder ? versionAfter(folder, file.replace(/\.[^.]*$/, '')) : undefined;
      if (version) found.push({ hit, version, dir });
    } else {
      if (!BIN_DIR.test(dir)) continue;
      const version = versionAfter(base, file);
      if (version) found.push({ hit, version, dir });
    }
  }
  found.sort((a, b) => compareVersions(b.version, a.version) || a.hit.pkg.localeCompare(b.hit.pkg));
  const best = found[0];
  if (!best) return undefined;
  const tied = new Set(found.filter((f) => f.version === best.version).map((f) => f.hit.pkg));
  return tied.size === 1 ? best : undefined;
}

/** The look-up by path of a header or program the per-kind look-up found no single package for. */
async function versionedFileLookup(
  finding: Finding,
  _input: RepairInput,
  { services }: RuleContext,
): Promise<Repair[]> {
  const header = cap(finding, 'header');
  const command = cap(finding, 'command');
  const kind = header ? 'header' : 'command';
  const file = header ?? (command ? path.posix.basename(command) : undefined);
  if (!file || !FILE_NAME.test(file) || !services.searchPaths) return [];
  const name = escapeRegex(file);
  const tail = kind === 'header' ? name : `${name}-?[0-9][0-9.]*`;
  const best = newestVersioned(kind, file, await services.searchPaths([tail]));
  if (!best) return [];
  const pkg = best.hit.pkg;
  if (services.knownPackages && !(await services.knownPackages([pkg])).includes(pkg)) return [];
  if (kind === 'header') {
    return [
      {
        rule: 'versioned-file-lookup',
        key: `versioned:${pkg}|cpath:${best.dir}`,
        reason:
          `header ${file} is missing; the package index has it only in versioned include folders: the newest, ` +
          `${best.dir} (${pkg}), is installed and put on CPATH`,
        packages: [pkg],
        env: { CPATH: best.dir },
      },
    ];
  }
  const versioned = best.hit.path;
  return [
    {
      rule: 'versioned-file-lookup',
      key: `versioned:${pkg}|${versioned}`,
      reason:
        `command ${file} is not installed; the package index has it only under versioned names: the newest, ` +
        `${versioned} (${pkg}), is installed, and ${file} links to it when no alternative provides the name`,
      packages: [pkg],
      prelude: [
        `command -v ${shq(file)} >/dev/null 2>&1 || { mkdir -p /usr/local/bin && ln -sf ${shq(versioned)} /usr/local/bin/${shq(file)}; }`,
      ],
    },
  ];
}

/** Files a configure step writes when they are missing from the tree. */
const MAKEFILE_IDS = ['make-no-makefile'] as const;

/** The project's configure steps in `dir` of the tree, first the one that applies; undefined when it has none. */
export function configureStep(
  names: ReadonlySet<string>,
): { commands: string[]; packages: string[]; what: string } | undefined {
  const autogen = ['autogen.sh', 'bootstrap', 'bootstrap.sh', 'buildconf'].find((s) => names.has(s));
  if (names.has('configure')) return { commands: ['sh ./configure'], packages: [], what: 'configure' };
  if (names.has('configure.ac') || names.has('configure.in')) {
    return autogen
      ? {
          commands: [`NOCONFIGURE=1 sh ./${autogen}`, 'sh ./configure'],
          packages: [...AUTORECONF_PACKAGES],
          what: `${autogen}, then configure`,
        }
      : {
          commands: ['autoreconf -fi', 'sh ./configure'],
          packages: [...AUTORECONF_PACKAGES],
          what: 'autoreconf -fi, then configure',
        };
  }
  const script = [autogen, 'configure.sh', 'config.sh'].find((s) => s !== undefined && names.has(s));
  return script ? { commands: [`sh ./${script}`], packages: [], what: script } : undefined;
}

async function namesIn(root: string, dir: string): Promise<Set<string>> {
  try {
    return new Set(await readdir(path.join(root, dir)));
  } catch {
    return new Set();
  }
}

/**
 * A generated file is missing (`config.h`, a Makefile) and the recipe has no configure step: the project's
 * own configure runs first, in the recipe's directory (else the root), whatever build system was guessed.
 */
async function configureFirst(finding: Finding, input: RepairInput): Promise<Repair[]> {
  const { recipe, repo } = input;
  if (recipe.steps.some((s) => s.purpose === 'configure' || s.purpose === 'generate')) return [];
  const header = cap(finding, 'header');
  const missing = header ?? (MAKEFILE_IDS.includes(finding.id as never) ? 'Makefile' : undefined);
  if (!missing || !repo.root) return [];
  for (const dir of [...new Set([recipe.dir, ''])]) {
    const names = await namesIn(repo.root, dir);
    // The file is in the tree: it is not the configure step's to write.
    if (header && names.has(path.posix.basename(header))) return [];
    const step = configureStep(names);
    if (!step) continue;
    const where = dir === '' ? 'the root' : dir;
    return [
      {
        rule: 'configure-first',
        key: `configure-first:${dir}:${step.what}`,
        reason:
          `${finding.message}: a generated file, so the configure step was skipped; the project's own ` +
          `${step.what} runs first (in ${where})`,
        ...(step.packages.length > 0 ? { packages: step.packages } : {}),
        prelude: step.commands.map((c) => inDir(dir, c)),
      },
    ];
  }
  return [];
}

/** GCC says `unrecognized command-line option`; clang says `unknown argument` or `unknown warning option`. */
const CLANG_WORDING = /unknown argument|unknown warning option/;

/** An option the compiler does not know: the other common compiler, installed, builds from a fresh directory. */
function otherCompiler(finding: Finding, input: RepairInput): Promise<Repair[]> {
  const flag = cap(finding, 'flag') ?? 'an option';
  const clangSaid = CLANG_WORDING.test(finding.excerpt) || CLANG_WORDING.test(finding.message);
  if (input.fixes.env.CC) return Promise.resolve([]);
  const [cc, cxx, pkg, from] = clangSaid
    ? ['gcc', 'g++', 'gcc', 'clang']
    : ['clang', 'clang++', 'clang', 'the GCC toolchain'];
  const repair: Repair = {
    rule: 'other-compiler',
    key: `compiler:${cc}`,
    reason: `${from} does not know ${flag}; ${cc} does, so the build runs with CC=${cc} CXX=${cxx}`,
    packages: pkg === 'clang' ? ['clang'] : ['gcc', 'g++'],
    env: { CC: cc, CXX: cxx },
  };
  return Promise.resolve([withFreshDir(repair, input.recipe)]);
}

/** The generic moves, in the order they are tried. */
export const GENERIC_MOVES: readonly GenericMove[] = [
  // A missing file the tree's own configure step would write comes first: a package cannot provide it.
  { name: 'configure-first', owns: [...MAKEFILE_IDS], after: [...HEADER_IDS], propose: configureFirst },
  {
    name: 'versioned-file-lookup',
    owns: [],
    after: [...HEADER_IDS, ...COMMAND_IDS],
    propose: versionedFileLookup,
  },
  {
    name: 'other-compiler',
    owns: ['unknown-compiler-flag'],
    after: [],
    propose: (f, input) => otherCompiler(f, input),
  },
];

/** The generic moves for a finding: those that own its signature id or follow its rule. */
export function genericMovesFor(id: string): GenericMove[] {
  return GENERIC_MOVES.filter((m) => m.owns.includes(id) || m.after.includes(id));
}

/** The repairs of the generic moves for `finding` (none with offline services: they read the tree or the index). */
export async function genericRepairs(
  finding: Finding,
  input: RepairInput,
  context: RuleContext,
): Promise<Repair[]> {
  if (context.services.offline) return [];
  const out: Repair[] = [];
  for (const move of genericMovesFor(finding.id)) out.push(...(await move.propose(finding, input, context)));
  return out;
}
