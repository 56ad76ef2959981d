/**
 * The documented commands as a recipe of their own: the shell blocks inspection found under the build and
 * install headings of the README/INSTALL/BUILDING files (`RepoInfo.documented`, src/repo/documented.ts), and
 * apart from them the CI's build steps, cleaned for a fresh Debian sandbox. The shell parser (`sh-syntax`,
 * through trajectory/shell-split) cuts each block into its commands; what is left of a block runs as one
 * step (so `cd build` carries to the `cmake ..` after it). Dropped, each with a note:
 * - `sudo` (the sandbox runs as root) — the prefix only;
 * - other systems' package managers (brew, yum/dnf, pacman, choco, port, zypper, apk, …);
 * - `apt-get install` lines: their packages are installed up front instead, only those the index knows;
 * - install-to-system steps (`make install`, `cmake --install`, `ninja install`, `ldconfig`), the test
 *   runs (`make check`, `ctest`), `git clone` of the project itself (with the `cd` into the clone) and
 *   the conditions of compound commands the parser flattened (`[ … ]`).
 * Sections for other systems (a "macOS" or "Windows" heading) are skipped.
 */
import type { BuildSystemKind, DocumentedBlock, RepoInfo } from '../repo/types.js';
import { splitScript } from '../trajectory/shell-split.js';
import { loadCatalog } from './catalog.js';
import type { Recipe, RecipeStep, ToolNeed } from './model.js';

/** A cleaned documented recipe with what the cleaning learned. */
export interface DocumentedRecipe {
  recipe: Recipe;
  /** Package names from the documentation's `apt-get install` lines (installed up front, if the index knows them). */
  packages: string[];
  /** What was dropped and why, for the RUNBOOK and the turn's reason. */
  notes: string[];
}

const OTHER_PACKAGE_MANAGERS = new Set([
  'brew',
  'yum',
  'dnf',
  'pacman',
  'yay',
  'choco',
  'port',
  'zypper',
  'apk',
  'emerge',
  'pkg',
  'pkg_add',
  'pkgin',
  'snap',
  'winget',
  'scoop',
  'vcpkg',
  'xbps-install',
  'nix-env',
  'conda',
  'pip',
  'pip3',
]);
const APT = new Set(['apt-get', 'apt', 'aptitude']);
const OTHER_SYSTEM_SECTION =
  /windows|mac ?os|os ?x\b|darwin|homebrew|\bbsd\b|freebsd|openbsd|msys|mingw|cygwin|visual studio|android|\bios\b|docker|fedora|centos|red ?hat|arch linux|alpine|gentoo|opensuse/i;
const BUILD_COMMAND =
  /^(?:cmake|make|gmake|\.\/configure|sh|bash|\.\/autogen\.sh|autoreconf|\.\/bootstrap|meson|ninja|qmake|qmake-qt5|scons|bazel|cargo|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|\.\/build\.sh)$/;
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]*[a-z0-9+]$/;

/** Words of a simple command (quotes removed from plain quoted words; good enough to classify it). */
function words(command: string): string[] {
  return command
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^(['"])(.*)\1$/, '$2'));
}

/** The command with `sudo` (and its options) removed, and its leading VAR=value assignments skipped for classifying. */
function withoutSudo(command: string): string {
  return command.replace(/^\s*sudo(?:\s+-[A-Za-z]+|\s+--\S+)*\s+/, '');
}

type Verdict = { keep: string } | { drop: string } | { packages: string[] };

/** How one command of a documented block is treated (see the file header). */
export function classifyCommand(raw: string): Verdict {
  const command = withoutSudo(raw).trim();
  if (command === '' || command.startsWith('#')) return { drop: 'comment' };
  if (command.includes('${{')) return { drop: `a CI expression: ${command}` };
  const all = words(command);
  let i = 0;
  while (i < all.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(all[i]!)) i++;
  const [first = '', ...args] = all.slice(i);
  const base = first.replace(/^.*\//, '');
  if (APT.has(base)) {
    const at = args.indexOf('install');
    if (at < 0) return { drop: `${base} ${args[0] ?? ''}: the sandbox's package index is used as it is` };
    const names = args.slice(at + 1).filter((a) => !a.startsWith('-') && PACKAGE_NAME.test(a));
    return { packages: names };
  }
  if (OTHER_PACKAGE_MANAGERS.has(base)) return { drop: `another system's package manager: ${command}` };
  if (base === '[' || base === '[[' || base === 'test' || base === 'then' || base === 'else')
    return { drop: `a condition: ${command}` };
  if (base === 'ldconfig' || base === 'checkinstall') return { drop: `installs into the system: ${command}` };
  if (
    /^(?:cp|install|ln|mv)$/.test(base) &&
    /^\/(?:usr|opt|etc|bin|sbin|lib)\b/.test(args[args.length - 1] ?? '')
  )
    return { drop: `installs into the system: ${command}` };
  if (/^(?:make|gmake|ninja)$/.test(base) && args.some((a) => /^install(?:-\S+)?$/.test(a)))
    return { drop: `installs into the system: ${command}` };
  if (base === 'cmake' && args.includes('--install')) return { drop: `installs into the system: ${command}` };
  if (base === 'cmake' && args.includes('--build') && args.some((a) => a === 'install'))
    return { drop: `installs into the system: ${command}` };
  if (base === 'meson' && args[0] === 'install') return { drop: `installs into the system: ${command}` };
  if (base === 'ctest' || (base === 'meson' && args[0] === 'test'))
    return { drop: `runs the tests, not part of the build: ${command}` };
  if (/^(?:make|gmake|ninja)$/.test(base) && args.some((a) => /^(?:check|test|tests|distcheck)$/.test(a)))
    return { drop: `runs the tests, not part of the build: ${command}` };
  if (base === 'git' && args[0] === 'clone')
    return { drop: `the repository is already checked out: ${command}` };
  if (base === 'cd' && /^(?:~|\$HOME|\/)/.test(args[0] ?? ''))
    return { drop: `leaves the checkout: ${command}` };
  return { keep: command };
}

/** The directory `git clone URL [dir]` makes, so that the `cd` into it can be dropped too. */
function cloneDir(command: string): string | undefined {
  const args = words(withoutSudo(command)).filter((a) => !a.startsWith('-'));
  if (args[0] !== 'git' || args[1] !== 'clone') return undefined;
  const target =
    args[3] ??
    args[2]
      ?.replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .replace(/^.*[/:]/, '');
  return target;
}

/** Cleans one block into the commands to run, the apt packages it names and notes on what was dropped. */
export async function cleanBlock(
  text: string,
): Promise<{ commands: string[]; packages: string[]; notes: string[] }> {
  const split = await splitScript(text);
  const commands: string[] = [];
  const packages: string[] = [];
  const notes: string[] = [];
  let cloned: string | undefined;
  for (const command of split.commands) {
    const verdict = classifyCommand(command);
    if ('packages' in verdict) packages.push(...verdict.packages);
    else if ('drop' in verdict) {
      if (verdict.drop !== 'comment') notes.push(`dropped (${verdict.drop})`);
      cloned = cloneDir(command) ?? cloned;
    } else {
      const cd = /^cd\s+(\S+)$/.exec(verdict.keep)?.[1];
      if (cloned !== undefined && cd !== undefined && cd.replace(/\/+$/, '') === cloned) {
        notes.push(`dropped (the cd into the clone: ${verdict.keep})`);
        cloned = undefined;
        continue;
      }
      commands.push(verdict.keep);
    }
  }
  return { commands, packages, notes };
}

/** Does one of the commands run a build tool? */
function builds(commands: readonly string[]): boolean {
  return commands.some((c) => {
    const all = words(c);
    const first = all.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '';
    return BUILD_COMMAND.test(first);
  });
}

/** The catalog tools of the build systems the commands use (cc and make always). */
function toolsFor(commands: readonly string[]): ToolNeed[] {
  const catalog = loadCatalog();
  const kinds: BuildSystemKind[] = ['make'];
  const text = commands.join('\n');
  if (/(?:^|\s)cmake\s/m.test(text)) kinds.push('cmake');
  if (/autoreconf|autogen\.sh|\.\/bootstrap/.test(text)) kinds.push('autotools');
  if (/(?:^|\s)(?:meson|ninja)\s/m.test(text)) kinds.push('meson');
  if (/(?:^|\s)qmake/m.test(text)) kinds.push('qmake');
  if (/(?:^|\s)scons\b/m.test(text)) kinds.push('scons');
  const seen = new Set<string>();
  const tools: ToolNeed[] = [];
  for (const kind of kinds) {
    for (const t of catalog.entries.get(kind)?.tools ?? []) {
      if (!seen.has(t.command)) {
        seen.add(t.command);
        tools.push({ ...t });
      }
    }
  }
  return tools;
}

/** Groups blocks by section (docs) or keeps one per step (CI), skipping other systems' sections. */
function groups(blocks: readonly DocumentedBlock[]): DocumentedBlock[][] {
  const out: DocumentedBlock[][] = [];
  for (const block of blocks) {
    if (OTHER_SYSTEM_SECTION.test(block.section)) continue;
    const last = out[out.length - 1];
    const sameFile = (a: string, b: string): boolean => a.split(':')[0] === b.split(':')[0];
    if (
      last &&
      block.from === 'docs' &&
      last[0]!.section === block.section &&
      sameFile(last[0]!.source, block.source)
    )
      last.push(block);
    else out.push([block]);
  }
  return out;
}

/** One recipe from blocks of one origin, or undefined when nothing left builds. */
async function recipeOf(
  blocks: readonly DocumentedBlock[],
  origin: 'docs' | 'ci',
  extraPackages: readonly string[],
): Promise<DocumentedRecipe | undefined> {
  const steps: RecipeStep[] = [];
  const packages: string[] = [...extraPackages];
  const notes: string[] = [];
  const sources: string[] = [];
  const all: string[] = [];
  for (const group of groups(blocks)) {
    const commands: string[] = [];
    for (const block of group) {
      const cleaned = await cleanBlock(block.text);
      commands.push(...cleaned.commands);
      packages.push(...cleaned.packages);
      notes.push(...cleaned.notes.map((n) => `${block.source}: ${n}`));
      if (cleaned.commands.length > 0 || cleaned.packages.length > 0) sources.push(block.source);
    }
    if (commands.length === 0) continue;
    all.push(...commands);
    steps.push({ purpose: 'build', command: commands.join(' && ') });
  }
  if (!builds(all)) return undefined;
  const uniquePackages = [...new Set(packages)];
  const what = origin === 'docs' ? 'the documented commands' : "the CI's build steps";
  return {
    recipe: {
      id: `documented:${origin}`,
      system: 'documented',
      label: origin === 'docs' ? 'documented commands' : 'CI build steps',
      evidence: `${what} (${[...new Set(sources)].slice(0, 4).join(', ')})`,
      dir: '',
      tools: toolsFor(all),
      steps,
    },
    packages: uniquePackages,
    notes,
  };
}

/**
 * The documented recipes of a repository, best first: the docs' commands, then the CI's build steps (when
 * they differ). Package names come from `apt-get install` lines and from the prose (`requires libfoo-dev`).
 */
export async function documentedRecipes(repo: Pick<RepoInfo, 'documented'>): Promise<DocumentedRecipe[]> {
  const documented = repo.documented;
  if (!documented) return [];
  const prose = documented.prosePackages.map((p) => p.name);
  const out: DocumentedRecipe[] = [];
  const docs = await recipeOf(
    documented.blocks.filter((b) => b.from === 'docs'),
    'docs',
    prose,
  );
  if (docs) out.push(docs);
  const ci = await recipeOf(
    documented.blocks.filter((b) => b.from === 'ci'),
    'ci',
    [],
  );
  const same = (a: Recipe, b: Recipe): boolean =>
    JSON.stringify(a.steps.map((s) => s.command)) === JSON.stringify(b.steps.map((s) => s.command));
  if (ci && !(docs && same(docs.recipe, ci.recipe))) out.push(ci);
  return out;
}

/**
 * Every package name the documentation gives as a build dependency (the `apt-get install` lines of its docs,
 * skipping other systems' sections, and its prose), whether or not a block builds anything. CI files are
 * left out: they install for a whole test matrix (multilib, sanitizers, linters, other compilers), not for
 * a build; their packages come with the CI recipe when that one is tried.
 */
export async function documentedPackages(repo: Pick<RepoInfo, 'documented'>): Promise<string[]> {
  const names = new Set<string>();
  for (const block of repo.documented?.blocks ?? []) {
    if (block.from !== 'docs' || OTHER_SYSTEM_SECTION.test(block.section)) continue;
    // `apt-get install silversearcher-ag` under "## Installing": the project itself, prebuilt.
    if (block.installsProgram) continue;
    for (const name of (await cleanBlock(block.text)).packages) names.add(name);
  }
  for (const p of repo.documented?.prosePackages ?? []) names.add(p.name);
  return [...names];
}
