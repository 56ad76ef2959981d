/**
 * Parallel-make races (issue 12, class 6): under `make -jN` a target that uses a file another target makes,
 * without depending on it, runs too early (`cp: cannot stat 'release/x'`, `gcc: error: util.o: No such file
 * or directory`) while make prints `Waiting for unfinished jobs`. The step that failed is run again with
 * `-j1`; every other step keeps its parallel jobs.
 */
import type { Recipe } from '../../../recipe/model.js';
import type { Finding } from '../../diagnose/types.js';
import type { Repair, RepairInput } from '../repair.js';
import { cap, type Rule } from './rule.js';

/** The parallel-jobs flag the recipe catalog writes into build steps (see `src/recipe/catalog.ts`). */
export const JOBS_FLAG = '-j"${BB_JOBS:-$(nproc)}"';
/** What make prints when another job failed while parallel jobs were running. */
const WAITING = /\*\*\* Waiting for unfinished jobs/;
/** The step markers the rendered script prints (`### buildbench: build`). */
const STEP_MARKER = /^### buildbench: (\S+)\s*$/;

/** The purpose of the step whose output holds the finding's line: the last step marker before it. */
export function failedStepPurpose(
  output: string,
  finding: Pick<Finding, 'excerpt' | 'line'>,
): string | undefined {
  const lines = output.split('\n');
  const matched = finding.excerpt.split('\n').find((l) => l.trim() !== '' && !STEP_MARKER.test(l));
  let at = matched ? lines.findIndex((l) => l.includes(matched)) : -1;
  if (at < 0) at = Math.min(lines.length, finding.line) - 1;
  for (let i = at; i >= 0; i--) {
    const m = STEP_MARKER.exec(lines[i] ?? '');
    if (m) return m[1];
  }
  return undefined;
}

/** The recipe with `-j1` in place of the parallel-jobs flag in the step of that purpose, or undefined. */
export function serialStep(recipe: Recipe, purpose: string): Recipe | undefined {
  const index = recipe.steps.findIndex((s) => s.purpose === purpose && s.command.includes(JOBS_FLAG));
  if (index < 0) return undefined;
  const steps = recipe.steps.map((s, i) =>
    i === index ? { ...s, command: s.command.split(JOBS_FLAG).join('-j1') } : s,
  );
  return { ...recipe, steps };
}

/**
 * The serial retry for a missing file under parallel make, or nothing when the log shows no parallel make
 * (then the file is missing for another reason) or the step already runs serially.
 */
export function serialRetry(f: Finding, input: RepairInput): Repair[] {
  if (!WAITING.test(input.output)) return [];
  const purpose = failedStepPurpose(input.output, f);
  if (!purpose) return [];
  const recipe = serialStep(input.recipe, purpose);
  if (!recipe) return [];
  const file = cap(f, 'file') ?? cap(f, 'target') ?? 'a file';
  return [
    {
      rule: 'serial-make',
      key: `serial:${purpose}`,
      reason: `${f.message} while make ran parallel jobs ("Waiting for unfinished jobs"): ${file} is made by another target that the failing one does not depend on, a race under -jN; the ${purpose} step runs again with -j1 (only that step)`,
      recipe,
    },
  ];
}

export const PARALLEL_RULES: Rule[] = [
  {
    ids: ['build-output-missing', 'linker-input-missing'],
    needsTree: "only the recipe's step that failed is run again with -j1, so the recipe must be known",
    propose: serialRetry,
  },
];
