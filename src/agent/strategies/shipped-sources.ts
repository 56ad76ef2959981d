/**
 * A build step that clones from the network, pointed at what the distribution ships when the network is out of
 * reach (issue 29's generic move). The commands a run will run — its recipes' steps, a deploy's target command,
 * and the repository shell scripts those run (deploy/target-programs.ts) — are read for `git clone URL`; a URL
 * whose project the distribution ships (`shipped_sources` in verifiers/repairs.yaml: googletest's sources,
 * Eigen's headers …) gets a line before the first script that asks the network first (`git ls-remote`, bounded)
 * and, only when the repository cannot be reached, builds a local repository from the package's files in the
 * upstream layout (tagged with the refs the scripts ask for) and points git at it (`url.<local>.insteadOf`, in
 * the sandbox's own git configuration). Every clone of that URL, wherever it runs (a script, a Makefile, CMake's
 * ExternalProject), then gets the distribution's copy, and the log says so in the words of the registry
 * fall-backs (`buildbench: the … is unreachable: falling back to …`). A build whose network works is not
 * changed: the probe answers and nothing is rewritten.
 */
import { shq } from '../../base/shell.js';
import { commandWords, commandsRun, type CommandStart } from '../../deploy/target-programs.js';
import type { DeployGoal } from '../../deploy/types.js';
import type { Repair } from '../../knowledge/repair/repair.js';
import type { ShippedSource } from '../../knowledge/repair/tables.js';
import type { Recipe } from '../../recipe/model.js';
import type { RepoInfo, Submodule } from '../../repo/types.js';
import type { PreemptiveRepair } from './preemptive.js';

/** A `git clone` a command runs. */
export interface GitClone {
  url: string;
  /** `-b REF` / `--branch REF`. */
  ref?: string;
  /** `build.sh:5`, or the start's name. */
  source: string;
  text: string;
}

/** An address git may be given that is safe to put in a shell line (quoted) and a git config key. */
const URL =
  /^(?:(?:https?|git|ssh):\/\/[\w.@:~+-]+(?:\/[\w.~+-]+)+|[\w.-]+@[\w.-]+:[\w.~+-]+(?:\/[\w.~+-]+)*)\/?$/;
/** A ref name a mirror can be tagged with (no option, no path tricks). */
const REF = /^[\w+][\w.+-]{0,99}$/;
/** A commit id (abbreviated or whole): a copy cannot have it, so it is not tagged. */
const COMMIT = /^[0-9a-f]{7,40}$/;
/** `git clone` options that take a value as the next word. */
const CLONE_VALUES = new Set([
  '-b',
  '--branch',
  '--depth',
  '-o',
  '--origin',
  '-c',
  '--config',
  '--reference',
  '--reference-if-able',
  '--filter',
  '-j',
  '--jobs',
  '--template',
  '--separate-git-dir',
  '-u',
  '--upload-pack',
  '--shallow-since',
  '--shallow-exclude',
  '--server-option',
]);
/** Options of `git` itself before its subcommand that take a value. */
const GIT_VALUES = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

/** The subcommand of a `git …` command's words and the words after it; undefined when it is not git. */
function gitSubcommand(ws: readonly string[]): { sub: string; rest: string[] } | undefined {
  const at = ws.findIndex((w) => !/^[A-Za-z_]\w*=/.test(w));
  if (ws[at] !== 'git') return undefined;
  let i = at + 1;
  while (i < ws.length && ws[i]!.startsWith('-')) i += GIT_VALUES.has(ws[i]!) ? 2 : 1;
  const sub = ws[i];
  return sub === undefined ? undefined : { sub, rest: ws.slice(i + 1) };
}

/** The `git clone` of one simple command, or undefined. */
export function gitCloneOf(command: string): { url: string; ref?: string } | undefined {
  const git = gitSubcommand(commandWords(command));
  if (git?.sub !== 'clone') return undefined;
  let ref: string | undefined;
  for (let i = 0; i < git.rest.length; i++) {
    const w = git.rest[i]!;
    if (w === '--') {
      const url = git.rest[i + 1];
      return url !== undefined && URL.test(url)
        ? { url, ...(ref && REF.test(ref) && !COMMIT.test(ref) ? { ref } : {}) }
        : undefined;
    }
    if (w.startsWith('--branch=')) ref = w.slice('--branch='.length);
    else if (CLONE_VALUES.has(w)) {
      if (w === '-b' || w === '--branch') ref = git.rest[i + 1];
      i++;
    } else if (!w.startsWith('-'))
      return URL.test(w)
        ? { url: w, ...(ref && REF.test(ref) && !COMMIT.test(ref) ? { ref } : {}) }
        : undefined;
  }
  return undefined;
}

/** The ref of a `git checkout REF` / `git switch --detach REF` (not a file list, not an option). */
export function gitCheckoutRef(command: string): string | undefined {
  const git = gitSubcommand(commandWords(command));
  if (git?.sub !== 'checkout' && git?.sub !== 'switch') return undefined;
  const operands = git.rest.filter((w) => !w.startsWith('-'));
  const ref = operands.length === 1 ? operands[0]! : undefined;
  return ref !== undefined && REF.test(ref) && !COMMIT.test(ref) ? ref : undefined;
}

/** `host/owner/name`, lower-cased, of a clone URL (no scheme, user, port or `.git`); undefined for others. */
export function repositoryKey(url: string): string | undefined {
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(url);
  const parts = scp
    ? [scp[1]!, ...scp[2]!.split('/')]
    : url
        .replace(/^[a-z]+:\/\//, '')
        .replace(/^[^@/]*@/, '')
        .split('/');
  const host = parts[0]?.replace(/:\d+$/, '');
  const rest = parts.slice(1).filter(Boolean);
  if (!host || rest.length !== 2) return undefined;
  return [host, rest[0], rest[1]!.replace(/\.git$/, '')].join('/').toLowerCase();
}

/**
 * The one line that rebuilds `entry`'s upstream tree from the package's files as a local repository (tagged
 * `refs`) and points git at it for `url`, only when `url` does not answer. Written for bash, in one line so the
 * Dockerfile can RUN it as it is.
 */
export function shippedSourceLine(url: string, entry: ShippedSource, refs: readonly string[]): string {
  const mirror = `"\${TMPDIR:-/tmp}/buildbench-shipped/${entry.name}"`;
  const copies = entry.tree.map(({ at, from }) =>
    at === '.'
      ? `cp -a ${shq(`${from}/.`)} "$m/"`
      : `mkdir -p "$m/"${shq(at.split('/').slice(0, -1).join('/') || '.')} && cp -a ${shq(from)} "$m/"${shq(at)}`,
  );
  const tags = refs.map((r) => `git -C "$m" tag -f ${shq(r)}`);
  const said =
    `buildbench: the ${entry.name} repository is unreachable: falling back to the distribution's ` +
    `${entry.package} (${url})`;
  return [
    `if ! GIT_TERMINAL_PROMPT=0 timeout 30 git ls-remote -q ${shq(url)} >/dev/null 2>&1; then`,
    `m=${mirror} && rm -rf "$m" && mkdir -p "$m" &&`,
    copies.join(' && '),
    `&& git -C "$m" init -q && git -C "$m" add -A &&`,
    `git -C "$m" -c user.name=buildbench -c user.email=buildbench@localhost commit -q -m ${shq(`${entry.package} as the distribution ships it`)}`,
    ...tags.map((t) => `&& ${t}`),
    `&& git config --global url."$m".insteadOf ${shq(url)} && echo ${shq(said)} >&2; fi`,
  ].join(' ');
}

/** The commands a run will run: each recipe's steps and a deploy's target command (and their scripts). */
function starts(recipes: readonly Recipe[], goal?: DeployGoal): CommandStart[] {
  const out: CommandStart[] = recipes.flatMap((r) =>
    r.steps.map((s) => ({ text: s.command, source: `the ${r.label} recipe`, dir: r.dir })),
  );
  if (goal) out.push({ text: goal.target.command, source: 'the target command', dir: goal.target.cwd ?? '' });
  return out;
}

/**
 * The repairs that point each `git clone` of a project the distribution ships at its copy when the network is
 * out of reach, with the line that clones as evidence; none when nothing clones such a project.
 */
export async function shippedSourceRepairs(
  repo: RepoInfo,
  recipes: readonly Recipe[],
  shipped: readonly ShippedSource[],
  goal?: DeployGoal,
): Promise<PreemptiveRepair[]> {
  if (shipped.length === 0) return [];
  // Only a script that says `clone` can clone: the others are not parsed.
  const runs = await commandsRun(repo.root, starts(recipes, goal), (script) => script.includes('clone'));
  const clones: GitClone[] = [];
  const checkouts: string[] = [];
  for (const run of runs) {
    const ref = gitCheckoutRef(run.command);
    if (ref) checkouts.push(ref);
    const clone = gitCloneOf(run.command);
    if (!clone) continue;
    const at = run.script ? run.lines.findIndex((l) => l.includes(clone.url)) : -1;
    const line = at >= 0 ? at + 1 : undefined;
    clones.push({ ...clone, source: line ? `${run.source}:${line}` : run.source, text: run.command });
  }
  const out: PreemptiveRepair[] = [];
  const seen = new Set<string>();
  for (const clone of clones) {
    const key = repositoryKey(clone.url);
    // Only an entry with the sources' layout can stand in for a clone.
    const entry = key ? shipped.find((e) => e.repositories.includes(key) && e.tree.length > 0) : undefined;
    if (!entry || seen.has(clone.url)) continue;
    seen.add(clone.url);
    // The refs the scripts ask for (a branch or tag to clone, a checkout after it), so they resolve in the copy.
    const refs = [...new Set([...(clone.ref ? [clone.ref] : []), ...checkouts])].slice(0, 8);
    const shippedFrom = entry.tree.map((t) => t.from).join(', ');
    out.push({
      repair: {
        rule: 'shipped-source',
        key: `shipped-source:${clone.url}`,
        reason:
          `the build clones ${clone.url}; when it is out of reach, the clone gets the distribution's ` +
          `${entry.package} (${shippedFrom}) in the repository's layout` +
          (refs.length > 0 ? `, tagged ${refs.join(', ')}` : '') +
          " — the distribution's version, not necessarily the one asked for",
        packages: ['git', 'ca-certificates', entry.package],
        prelude: [shippedSourceLine(clone.url, entry, refs)],
      } satisfies Repair,
      evidence: `${clone.source}: ${clone.text.slice(0, 160)}`,
    });
  }
  return out;
}

/**
 * A git submodule the checkout lacks whose project the distribution ships (`shipped_sources`, by the
 * submodule's address in .gitmodules): its package is installed before the first script. A build that looks for
 * the library on the system first (a `configure` check, a CMake `find_package` before its bundled copy) then
 * uses the distribution's instead of a vendored folder that is empty; a build that needs the folder still
 * fetches it (the submodule fetch runs first), and an extra -dev package changes nothing there.
 */
export function shippedLibraryRepairs(
  missing: readonly Submodule[],
  shipped: readonly ShippedSource[],
): PreemptiveRepair[] {
  const out: PreemptiveRepair[] = [];
  for (const sub of missing) {
    const key = repositoryKey(sub.url);
    const entry = key ? shipped.find((e) => e.repositories.includes(key)) : undefined;
    if (!entry || out.some((r) => r.repair.packages?.includes(entry.package))) continue;
    out.push({
      repair: {
        rule: 'shipped-library',
        key: `shipped-library:${entry.package}`,
        reason:
          `the git submodule ${sub.path} (${key}) is not checked out; the distribution's ${entry.package} ships ` +
          'that project, which a build that looks for it on the system uses instead of the empty folder',
        packages: [entry.package],
      } satisfies Repair,
      evidence: `.gitmodules: ${sub.path} = ${sub.url.slice(0, 160)}`,
    });
  }
  return out;
}
