/**
 * The recipe: the successful trajectory minimised into what a person (or CI) runs to build the repository
 * again, rendered as `build.sh` and a `Dockerfile`.
 *
 * Every turn's script is self-contained (preamble + packages + prelude + env + steps, run from the
 * repository root), so the minimal recipe is the successful turn's script; earlier failed attempts are
 * superseded. What earlier turns left in the sandbox is kept: the union of the packages every turn installed
 * and of their preparation commands; their source edits are carried by the patch series. When the minimal
 * recipe fails its replay, the full sequence of scripts up to the successful one replaces it (`mode: 'full'`).
 */
import type { StepPurpose } from '../agent/types.js';
import { shq } from '../base/shell.js';
import { successfulTurn, type ReportTurn } from '../finalize/turns.js';

export interface RecipeStep {
  purpose: StepPurpose;
  command: string;
}

export interface FinalRecipe {
  mode: 'minimal' | 'full';
  /** The turn whose verifiers passed. */
  turn: number;
  /** Commands the build runs and the package providing each (installed only when the command is missing). */
  tools: { command: string; pkg: string }[];
  /** Packages installed up front (what the repairs added, from every turn). */
  packages: string[];
  /** Patch files, relative to the recipe folder (`patches/0001-….patch`), applied in order. */
  patches: string[];
  /** Preparation commands (after the patches, before the environment). */
  prelude: string[];
  env: Record<string, string>;
  /** generate / configure / build steps, in order. */
  steps: RecipeStep[];
  /** `full` mode: every script up to the successful one, in order. */
  scripts: { turn: number; purpose: string; script: string; exitCode?: number | null }[];
  /** What a reader should know about how the recipe was made. */
  notes: string[];
}

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+(?::[a-z0-9-]+)?$/;

/**
 * Packages a free-form script installs: arguments of `bb_apt_install …` and `apt-get install …` lines that
 * are literal package names (options and shell variables are skipped).
 */
export function packagesInScript(script: string): string[] {
  const found: string[] = [];
  for (const raw of script.split('\n')) {
    for (const clause of raw.split(/&&|\|\||;|\|/)) {
      const words = clause.trim().replace(/['"]/g, '').split(/\s+/);
      let start = -1;
      if (words[0] === 'bb_apt_install') start = 1;
      else {
        const apt = words.findIndex((w) => w === 'apt-get' || w === 'apt');
        const install = words.indexOf('install', apt + 1);
        if (apt >= 0 && install > apt) start = install + 1;
      }
      if (start < 0) continue;
      for (const word of words.slice(start)) {
        if (word.startsWith('-') || word.includes('$') || !PACKAGE_NAME.test(word)) continue;
        found.push(word);
      }
    }
  }
  return [...new Set(found)];
}

function unionInto<T>(into: T[], items: Iterable<T>, key: (item: T) => string = String): void {
  const seen = new Set(into.map(key));
  for (const item of items) {
    const k = key(item);
    if (!seen.has(k)) {
      seen.add(k);
      into.push(item);
    }
  }
}

/** The turns up to and including the successful one. */
function upToSuccess(turns: readonly ReportTurn[]): { final: ReportTurn; used: ReportTurn[] } | undefined {
  const final = successfulTurn(turns);
  if (!final) return undefined;
  return { final, used: turns.filter((t) => t.turn <= final.turn) };
}

function packagesOf(turn: ReportTurn): string[] {
  return turn.recipe ? turn.recipe.packages : packagesInScript(turn.script);
}

export interface MinimiseOptions {
  /** The patch series (relative paths), applied before the prelude. */
  patches?: string[];
  /**
   * Keep the prelude lines that edit sources (when no patch series could be collected, they are the only
   * record of the edits). Default: false — the patches replace them.
   */
  keepEdits?: boolean;
}

/**
 * The minimal recipe: the successful turn's steps and environment, with the packages and preparation
 * commands of every turn up to it. Undefined when no turn passed the verifiers.
 */
export function minimiseRecipe(
  turns: readonly ReportTurn[],
  options: MinimiseOptions = {},
): FinalRecipe | undefined {
  const span = upToSuccess(turns);
  if (!span) return undefined;
  const { final, used } = span;
  const notes: string[] = [];
  const tools: FinalRecipe['tools'] = [];
  const packages: string[] = [];
  const prelude: string[] = [];
  for (const turn of used) {
    unionInto(packages, packagesOf(turn));
    if (turn.recipe) {
      unionInto(tools, turn.recipe.tools, (t) => `${t.command}=${t.pkg}`);
      unionInto(
        prelude,
        options.keepEdits ? [...turn.recipe.prelude, ...turn.recipe.edits] : turn.recipe.prelude,
      );
    } else if (turn !== final) {
      notes.push(
        `turn ${turn.turn} (${turn.purpose}) was a free-form script; only the packages it installs are carried over`,
      );
    }
  }
  const superseded = used.length - 1;
  if (superseded > 0) {
    notes.push(
      `the ${superseded} earlier attempt${superseded === 1 ? ' is' : 's are'} superseded by turn ${final.turn}; ` +
        'their packages and preparation commands are kept' +
        (options.keepEdits ? '' : ', their source edits are in the patch series'),
    );
  }
  let steps: RecipeStep[];
  let env: Record<string, string> = {};
  if (final.recipe) {
    steps = final.recipe.steps.map((s) => ({ purpose: s.purpose, command: s.command }));
    env = { ...final.recipe.env };
  } else {
    steps = [{ purpose: 'build', command: final.script.trimEnd() }];
    notes.push(
      `turn ${final.turn} (${final.purpose}) was a free-form script; it is the build step as it ran`,
    );
  }
  return {
    mode: 'minimal',
    turn: final.turn,
    tools,
    packages,
    patches: [...(options.patches ?? [])],
    prelude,
    env,
    steps,
    scripts: [],
    notes,
  };
}

/** The fallback: every script up to the successful one, in order, as the run executed them. */
export function fullSequenceRecipe(turns: readonly ReportTurn[]): FinalRecipe | undefined {
  const span = upToSuccess(turns);
  if (!span) return undefined;
  const { final, used } = span;
  const tools: FinalRecipe['tools'] = [];
  const packages: string[] = [];
  for (const turn of used) {
    unionInto(packages, packagesOf(turn));
    if (turn.recipe) unionInto(tools, turn.recipe.tools, (t) => `${t.command}=${t.pkg}`);
  }
  return {
    mode: 'full',
    turn: final.turn,
    tools,
    packages,
    patches: [],
    prelude: [],
    env: {},
    steps: [],
    scripts: used.map((t) => ({ turn: t.turn, purpose: t.purpose, script: t.script, exitCode: t.exitCode })),
    notes: [
      `every script of turns ${used[0]!.turn}–${final.turn} runs in order, as in the original run; the scripts make their own source edits`,
    ],
  };
}

/** The packages the recipe installs, for a Dockerfile that starts from a bare image (tools included). */
export function allPackages(recipe: FinalRecipe): string[] {
  const out: string[] = [];
  unionInto(
    out,
    recipe.tools.flatMap((t) => t.pkg.split(/\s+/).filter(Boolean)),
  );
  unionInto(out, recipe.packages);
  if (recipe.patches.length > 0) unionInto(out, ['patch']);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// build.sh

export interface RenderMeta {
  /** Repository name, for comments. */
  repo: string;
  /** buildbench version, for comments. */
  version: string;
}

const PURPOSE_COMMENT: Record<StepPurpose, string> = {
  dependencies: 'dependencies: the tools the build runs and the packages the repairs added',
  patch: 'patch: source changes the build needs (each patch says which error it fixes)',
  generate: 'generate: create the build files the repository does not commit',
  configure: 'configure: choose options and write the build files',
  build: 'build: compile and link',
};

/** A heredoc delimiter that does not occur as a line of `text`. */
function delimiterFor(text: string, base: string): string {
  const lines = new Set(text.split('\n'));
  let name = base;
  for (let i = 1; lines.has(name); i++) name = `${base}_${i}`;
  return name;
}

/** A command as a build.sh line: one-liners in a subshell, longer scripts through `bash -c` verbatim. */
function commandLines(command: string, label: string): string[] {
  if (!command.includes('\n') && !command.trimEnd().endsWith('\\')) return [`(${command})`];
  const delim = delimiterFor(command, `BUILDBENCH_${label.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`);
  return [`bash -c "$(cat <<'${delim}'`, command.trimEnd(), delim, ')"'];
}

const WRAPPERS = `# Extra compiler flags reach every build system through wrappers first on PATH; they come after the
# build's own flags, so -Wno-error and -fcommon win.
BB_WRAPPER_DIR="\${BB_WRAPPER_DIR:-/opt/buildbench/bin}"
mkdir -p "$BB_WRAPPER_DIR"
for tool in cc gcc c++ g++; do
  real=$(PATH="\${PATH#"$BB_WRAPPER_DIR":}" command -v "$tool" || true)
  [ -n "$real" ] || continue
  # Behind a ccache link, call ccache with the compiler itself: ccache would find this wrapper on PATH.
  launcher=
  case "$real" in /usr/lib/ccache/*)
    launcher="$(command -v ccache) "
    real=$(p="\${PATH#"$BB_WRAPPER_DIR":}"; PATH="\${p//\\/usr\\/lib\\/ccache:/}" command -v "$tool" || true) ;;
  esac
  [ -n "$real" ] || continue
  case "$tool" in c++|g++) flags="\${BB_EXTRA_CXXFLAGS:-}";; *) flags="\${BB_EXTRA_CFLAGS:-}";; esac
  printf '#!/bin/sh\\nexec %s%s "$@" %s\\n' "$launcher" "$real" "$flags" > "$BB_WRAPPER_DIR/$tool"
  chmod +x "$BB_WRAPPER_DIR/$tool"
done
export PATH="$BB_WRAPPER_DIR:$PATH"`;

function needsWrappers(env: Record<string, string>): boolean {
  return Boolean(env.BB_EXTRA_CFLAGS || env.BB_EXTRA_CXXFLAGS);
}

function header(recipe: FinalRecipe, meta: RenderMeta): string[] {
  const how =
    recipe.mode === 'minimal'
      ? `the script of turn ${recipe.turn}, the one the verifiers passed, with what earlier turns installed`
      : `every script up to turn ${recipe.turn}, the one the verifiers passed, in order`;
  return [
    '#!/usr/bin/env bash',
    `# Builds ${meta.repo}. Written by buildbench ${meta.version}: ${how}.`,
    '# RUNBOOK.md next to this file says why each package and patch is needed and how the result was verified.',
    '#',
    '# Usage: bash build.sh [repository-root]   (default: the current directory)',
    '# Installing missing packages needs root and apt-get (Debian/Ubuntu); everything else runs as any user.',
    'set -euo pipefail',
    'RECIPE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    'cd "${1:-.}"',
    'export DEBIAN_FRONTEND=noninteractive',
  ];
}

function dependencyLines(recipe: FinalRecipe): string[] {
  const tools = [...recipe.tools];
  if (recipe.patches.length > 0 && !tools.some((t) => t.command === 'patch')) {
    tools.push({ command: 'patch', pkg: 'patch' });
  }
  if (tools.length === 0 && recipe.packages.length === 0) return [];
  const out = [
    '',
    `# --- ${PURPOSE_COMMENT.dependencies}`,
    'missing=()',
    'need_command() { command -v "$1" >/dev/null 2>&1 || missing+=("${@:2}"); }',
    'need_package() { dpkg-query -W -f=\'${Status}\' "$1" 2>/dev/null | grep -q \' installed$\' || missing+=("$1"); }',
  ];
  for (const t of tools)
    out.push(`need_command ${shq(t.command)} ${t.pkg.split(/\s+/).filter(Boolean).map(shq).join(' ')}`);
  for (const p of recipe.packages) out.push(`need_package ${shq(p)}`);
  out.push(
    'if [ "${#missing[@]}" -gt 0 ]; then',
    '  echo "### buildbench: installing ${missing[*]}"',
    '  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then',
    '    echo "build.sh: install these packages first: ${missing[*]}" >&2',
    '    exit 1',
    '  fi',
    '  apt-get update -q',
    '  apt-get install -y -q --no-install-recommends "${missing[@]}"',
    'fi',
  );
  return out;
}

function patchLines(recipe: FinalRecipe): string[] {
  if (recipe.patches.length === 0 && recipe.prelude.length === 0) return [];
  const out = ['', `# --- ${PURPOSE_COMMENT.patch}`];
  if (recipe.patches.length > 0) {
    out.push(
      `for p in ${recipe.patches.map(shq).join(' ')}; do`,
      '  if patch -p1 -R -s -f --dry-run < "$RECIPE_DIR/$p" >/dev/null 2>&1; then',
      '    echo "### buildbench: already applied: $p"',
      '  else',
      '    echo "### buildbench: applying $p"',
      '    patch -p1 -s -f < "$RECIPE_DIR/$p"',
      '  fi',
      'done',
    );
  }
  if (recipe.prelude.length > 0) {
    out.push('# preparation the repairs added');
    out.push(...recipe.prelude);
  }
  return out;
}

function envLines(recipe: FinalRecipe): string[] {
  const out = ['', '# --- environment: variables the steps read'];
  for (const [key, value] of Object.entries(recipe.env)) out.push(`export ${key}=${shq(value)}`);
  if (needsWrappers(recipe.env)) out.push(WRAPPERS);
  out.push('BB_ROOT="$PWD"');
  return out;
}

/** `build.sh` for a recipe: `#!/usr/bin/env bash`, `set -euo pipefail`, one commented step per purpose. */
export function renderBuildSh(recipe: FinalRecipe, meta: RenderMeta): string {
  const out = header(recipe, meta);
  out.push(...dependencyLines(recipe));
  out.push('echo "### buildbench: compiler: $(cc --version 2>/dev/null | head -n 1 || true)"');
  if (recipe.mode === 'minimal') {
    out.push(...patchLines(recipe));
    out.push(...envLines(recipe));
    let last: StepPurpose | undefined;
    recipe.steps.forEach((step, index) => {
      if (step.purpose !== last) out.push('', `# --- ${PURPOSE_COMMENT[step.purpose]}`);
      last = step.purpose;
      out.push(`echo '### buildbench: ${step.purpose}'`);
      out.push(...commandLines(step.command, `${step.purpose}_${index}`));
    });
  } else {
    for (const s of recipe.scripts) {
      const final = s.turn === recipe.turn;
      const failed = s.exitCode !== 0;
      out.push(
        '',
        `# --- turn ${s.turn}: ${s.purpose.replace(/\n/g, ' ')}` +
          (final
            ? ' (the verifiers passed after this one)'
            : failed
              ? ` (exit ${s.exitCode ?? 'none'} in the original run)`
              : ''),
      );
      out.push(`echo '### buildbench: turn ${s.turn}'`);
      const lines = commandLines(s.script, `turn_${s.turn}`);
      // An earlier attempt may fail as it did in the original run; what it leaves behind is what counts.
      const tolerate = `echo "### buildbench: turn ${s.turn} failed, as it may have in the original run; going on" >&2`;
      if (final) {
        out.push(...lines);
      } else if (lines.length === 1) {
        out.push(`${lines[0]!} || ${tolerate}`);
      } else {
        lines[0] = `if ! ${lines[0]!}`;
        lines[lines.length - 1] = `)"; then ${tolerate}; fi`;
        out.push(...lines);
      }
    }
  }
  out.push('', "echo '### buildbench: build.sh finished'");
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------------------
// Dockerfile

export interface DockerfileMeta extends RenderMeta {
  /** The image the sandbox ran on (`debian:bookworm` for the rootfs backend). */
  baseImage: string;
}

/** Docker expands `$VAR` in ENV values; a double-quoted value with `\`, `"` and `$` escaped is taken literally. */
function dockerEnvValue(value: string): string {
  return `"${value.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;
}

function dockerSafe(command: string): boolean {
  return !command.includes('\n') && !command.trimEnd().endsWith('\\');
}

/** Joins shell fragments into one RUN with Docker line continuations. */
function run(parts: string[]): string {
  return `RUN ${parts.join(' \\\n    ')}`;
}

/**
 * A Dockerfile that builds the repository the way the recipe does: FROM the sandbox's base image, apt-get
 * the packages, COPY the repository, apply patches/, RUN the steps. The build context is the repository
 * root with the recipe folder copied into it as `.buildbench/` (ARG RECIPE_DIR changes the name). Free-form
 * and full-sequence recipes RUN build.sh instead of separate steps.
 */
export function renderDockerfile(recipe: FinalRecipe, meta: DockerfileMeta): string {
  const packages = allPackages(recipe);
  const perStep =
    recipe.mode === 'minimal' &&
    recipe.steps.every((s) => dockerSafe(s.command)) &&
    recipe.prelude.every(dockerSafe) &&
    Object.values(recipe.env).every((v) => !v.includes('\n'));
  const out = [
    `# Builds ${meta.repo}. Written by buildbench ${meta.version} from the same recipe as build.sh (see RUNBOOK.md).`,
    '# Build context: the repository root, with the folder holding this file copied into it as .buildbench/:',
    '#   cp -r <this folder> <repo>/.buildbench && docker build -f <repo>/.buildbench/Dockerfile <repo>',
    `ARG BASE_IMAGE=${meta.baseImage}`,
    'FROM ${BASE_IMAGE}',
    'ARG RECIPE_DIR=.buildbench',
    'SHELL ["/bin/bash", "-o", "pipefail", "-c"]',
    'ENV DEBIAN_FRONTEND=noninteractive',
  ];
  if (packages.length > 0) {
    out.push(
      '',
      `# ${PURPOSE_COMMENT.dependencies} (only what the image lacks)`,
      run([
        'missing=""; for p in ' + packages.map(shq).join(' ') + '; do',
        'dpkg-query -W -f=\'${Status}\' "$p" 2>/dev/null | grep -q \' installed$\' || missing="$missing $p";',
        'done;',
        'if [ -n "$missing" ]; then',
        'apt-get update -q && apt-get install -y -q --no-install-recommends $missing && rm -rf /var/lib/apt/lists/*;',
        'fi',
      ]),
    );
  }
  out.push('', '# the repository, as it was checked out', 'WORKDIR /src', 'COPY . /src');
  if (!perStep) {
    out.push(
      '',
      recipe.mode === 'full'
        ? '# the scripts of the original run, in order (they make their own source edits)'
        : '# the recipe has multi-line steps: build.sh runs them (and applies the patches)',
      'RUN bash "$RECIPE_DIR/build.sh" /src',
    );
    return out.join('\n') + '\n';
  }
  if (recipe.patches.length > 0) {
    out.push(
      '',
      `# ${PURPOSE_COMMENT.patch}`,
      run([`for p in ${recipe.patches.map(shq).join(' ')}; do`, 'patch -p1 -f < "$RECIPE_DIR/$p";', 'done']),
    );
  }
  if (recipe.prelude.length > 0) {
    out.push('', '# preparation the repairs added');
    for (const line of recipe.prelude) out.push(`RUN ${line}`);
  }
  const env = Object.entries(recipe.env);
  out.push('', '# environment: variables the steps read', 'ENV BB_ROOT=/src');
  for (const [key, value] of env) out.push(`ENV ${key}=${dockerEnvValue(value)}`);
  if (needsWrappers(recipe.env)) {
    out.push(
      '# extra compiler flags reach every build system through wrappers first on PATH',
      run([
        'mkdir -p /opt/buildbench/bin && for tool in cc gcc c++ g++; do',
        'real=$(command -v "$tool" || true); [ -n "$real" ] || continue;',
        'case "$tool" in c++|g++) flags="${BB_EXTRA_CXXFLAGS:-}";; *) flags="${BB_EXTRA_CFLAGS:-}";; esac;',
        'printf \'#!/bin/sh\\nexec %s "$@" %s\\n\' "$real" "$flags" > "/opt/buildbench/bin/$tool";',
        'chmod +x "/opt/buildbench/bin/$tool";',
        'done',
      ]),
      'ENV PATH=/opt/buildbench/bin:$PATH',
    );
  }
  let last: StepPurpose | undefined;
  for (const step of recipe.steps) {
    if (step.purpose !== last) out.push('', `# ${PURPOSE_COMMENT[step.purpose]}`);
    last = step.purpose;
    out.push(`RUN ${step.command}`);
  }
  return out.join('\n') + '\n';
}
