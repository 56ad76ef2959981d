/**
 * A recipe with its repair fixes as one self-contained turn script (`renderScript`), and the same script's
 * parts structured for finalize (`describeScript`): the two must agree step for step.
 */
import { shq } from '../base/shell.js';
import { needsCompilerWrappers, type Recipe, type RecipeFixes, type ScriptRecipe } from './model.js';
import { shellLibrary } from './shell-lib.js';

function configureArgsOf(fixes: RecipeFixes): string {
  return fixes.configureArgs.map(shq).join(' ');
}

function stepCommand(command: string, configureArgs: string): string {
  return command.replaceAll('@CONFIGURE_ARGS@', configureArgs).trimEnd();
}

/**
 * Renders a recipe with its fixes as one self-contained bash script run from the repository root: the
 * shell library, the start stamp, the tools, the packages, the compiler's version line, the prelude and
 * environment of the fixes, then each step in its own subshell.
 */
export function renderScript(recipe: Recipe, fixes: RecipeFixes): string {
  const out: string[] = ['set -eo pipefail', 'export DEBIAN_FRONTEND=noninteractive', shellLibrary()];
  out.push('bb_start_stamp', '');
  const tools = recipe.tools.map((t) => shq(`${t.command}=${t.pkg}`)).join(' ');
  out.push(`echo '### buildbench: tools'`, `bb_need_tools ${tools}`, 'bb_delete_on_error');
  if (fixes.packages.length > 0) {
    out.push(`echo '### buildbench: dependencies'`, `bb_apt_install ${fixes.packages.map(shq).join(' ')}`);
  }
  // The compiler, as build.sh reports it too: a turn that stands as its replay says which compiler it used.
  out.push('echo "### buildbench: compiler: $(cc --version 2>/dev/null | head -n 1 || true)"');
  for (const line of fixes.prelude) out.push(line);
  for (const [key, value] of Object.entries(fixes.env)) out.push(`export ${key}=${shq(value)}`);
  if (needsCompilerWrappers(fixes.env)) out.push('bb_compiler_wrappers');
  const configureArgs = configureArgsOf(fixes);
  out.push('BB_ROOT="$PWD"');
  for (const step of recipe.steps) {
    out.push(`echo '### buildbench: ${step.purpose}'`);
    out.push(`(${stepCommand(step.command, configureArgs)})`);
  }
  return out.join('\n') + '\n';
}

/**
 * The structured form of `renderScript(recipe, fixes)`, for finalize: prelude lines in `edits` (those of
 * repairs that edit source files) are separated from the rest, since the patch series replaces them.
 */
export function describeScript(recipe: Recipe, fixes: RecipeFixes, edits: ReadonlySet<string>): ScriptRecipe {
  const configureArgs = configureArgsOf(fixes);
  return {
    system: recipe.system,
    tools: recipe.tools.map((t) => ({ command: t.command, pkg: t.pkg })),
    packages: [...fixes.packages],
    prelude: fixes.prelude.filter((line) => !edits.has(line)),
    edits: fixes.prelude.filter((line) => edits.has(line)),
    env: { ...fixes.env },
    steps: recipe.steps.map((s) => ({ purpose: s.purpose, command: stepCommand(s.command, configureArgs) })),
  };
}
