/**
 * A finished run's recipe as `build.sh`: what a person (or CI) runs to build the repository again, with
 * one commented section per step purpose. Missing packages are installed only as root with apt-get;
 * the compiler wrappers come from the shell library (`shell/bb-lib.sh`), the same copy the turn scripts run.
 */
import { shq } from '../base/shell.js';
import { needsCompilerWrappers, type FinalRecipe, type StepPurpose } from './model.js';
import { shellFunction } from './shell-lib.js';

export interface RenderMeta {
  /** Repository name, for comments. */
  repo: string;
  /** buildbench version, for comments. */
  version: string;
}

export const PURPOSE_COMMENT: Record<StepPurpose, string> = {
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
    '  apt-get install -y -q --no-install-recommends "${missing[@]}" ||',
    '    { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }',
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
  if (needsCompilerWrappers(recipe.env))
    out.push(shellFunction('bb_compiler_wrappers'), 'bb_compiler_wrappers');
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

/**
 * `build.sh` as the script of one turn, byte for byte after a `cd` to the repository root: written when that
 * turn was the first script in a fresh sandbox from the untouched repository and the verifiers passed after
 * it, so that run is this file's replay (finalize/finalize.ts, `freshTurnReplay`). The positional parameters
 * are cleared, as the turn had none.
 */
export function renderTurnBuildSh(script: string, meta: RenderMeta, turn: number): string {
  return (
    [
      '#!/usr/bin/env bash',
      `# Builds ${meta.repo}. Written by buildbench ${meta.version}: the script of turn ${turn}, byte for byte as it ran`,
      '# in a fresh sandbox from the untouched repository, where the verifiers passed (that run is its replay).',
      '# RUNBOOK.md next to this file says why each package is needed and how the result was verified.',
      '#',
      '# Usage: bash build.sh [repository-root]   (default: the current directory)',
      '# Installing missing packages needs root and apt-get (Debian/Ubuntu); everything else runs as any user.',
      'cd "${1:-.}" || exit 1',
      'set --',
      script.endsWith('\n') ? script.slice(0, -1) : script,
    ].join('\n') + '\n'
  );
}
