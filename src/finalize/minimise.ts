/**
 * Minimisation: the successful trajectory reduced to the recipe a person (or CI) runs to build the
 * repository again (`FinalRecipe`, which `recipe/render-buildsh.ts` and `render-dockerfile.ts` render).
 *
 * Every turn's script is self-contained (shell library + packages + prelude + env + steps, run from the
 * repository root), so the minimal recipe is the successful turn's script; earlier failed attempts are
 * superseded. What earlier turns left in the sandbox is kept: the union of the packages every turn installed
 * and of their preparation commands; their source edits are carried by the patch series. When the minimal
 * recipe fails its replay, the full sequence of scripts up to the successful one replaces it (`mode: 'full'`).
 */
import type { FinalRecipe, RecipeStep } from '../recipe/model.js';
import { successfulTurn, type ReportTurn } from './turns.js';

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
