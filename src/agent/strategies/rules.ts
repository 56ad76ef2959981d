import type { Action, Strategy, TurnContext, TurnRecord } from '../types.js';
import { candidateRecipes } from '../../recipe/catalog.js';
import { deployRecipes } from '../../deploy/recipes/index.js';
import { emptyFixes, type Recipe, type RecipeFixes } from '../../recipe/model.js';
import { describeScript, renderScript } from '../../recipe/render-turn.js';
import {
  applyRepair,
  NO_KNOWLEDGE,
  type Repair,
  type RepairKnowledge,
  type StrategyServices,
} from '../../knowledge/repair/repair.js';
import type { PreinstallPlan } from '../../knowledge/repair/declared.js';
import { preinstallFor } from './preinstall.js';

interface Attempt {
  recipe: Recipe;
  fixes: RecipeFixes;
  /** Repair keys already applied to this recipe. */
  applied: Set<string>;
  /** Prelude lines of repairs that edit source files (they carry `patches`). */
  edits: Set<string>;
}

/**
 * The embedded default, no model: a recipe per detected build system, tried in order of evidence; after a
 * failure the repair knowledge maps the root cause to a fix and the same recipe runs again with it; when
 * no fix applies, the next recipe is tried. Package fixes carry over to later recipes.
 */
export class RulesStrategy implements Strategy {
  readonly name = 'rules';
  private recipes: Recipe[] | undefined;
  private index = 0;
  private attempt: Attempt | undefined;
  /** Packages installed by earlier repairs, kept for every later recipe. */
  private carried: string[] = [];
  private readonly tried = new Set<string>();
  /** Submodule paths that came empty with the checkout. */
  private missingSubmodules: string[] = [];
  /** The declared dependencies installed before the first recipe (reported with the first turn). */
  private preinstall: PreinstallPlan | undefined;

  constructor(
    private readonly knowledge: RepairKnowledge = NO_KNOWLEDGE,
    private readonly services: StrategyServices = {},
    private readonly options: { preinstall?: boolean } = {},
  ) {}

  async next(context: TurnContext): Promise<Action> {
    if (this.recipes === undefined) {
      this.missingSubmodules = context.repo.submodules.filter((m) => !m.populated).map((m) => m.path);
      this.recipes = context.goal
        ? deployRecipes(context.repo, context.goal)
        : candidateRecipes(context.repo);
      if (this.recipes.length === 0) {
        return {
          kind: 'finish',
          claim: 'impossible',
          reason: noRecipeReason(context),
        };
      }
      if (this.options.preinstall !== false)
        this.preinstall = await preinstallFor(context.repo, this.services);
      this.carried = (this.preinstall?.packages ?? []).map((p) => p.package);
      return { ...this.start(0), ...(this.preinstall ? { preinstall: this.preinstall } : {}) };
    }
    const last: TurnRecord | undefined = context.history[context.history.length - 1];
    const observation = last?.observation;
    if (
      this.attempt &&
      observation?.rootCause &&
      observation.exec.exitCode !== 0 &&
      !observation.exec.timedOut
    ) {
      const repair = await this.pickRepair(
        context,
        observation.rootCause,
        observation.findings,
        observation.output,
      );
      if (repair) return this.retryWith(repair);
    }
    return this.advance(context);
  }

  private async pickRepair(
    context: TurnContext,
    rootCause: NonNullable<TurnRecord['observation']>['rootCause'] & object,
    findings: NonNullable<TurnRecord['observation']>['findings'],
    output: string,
  ): Promise<Repair | undefined> {
    const attempt = this.attempt;
    if (!attempt) return undefined;
    const proposals = await this.knowledge.propose(
      { rootCause, findings, recipe: attempt.recipe, fixes: attempt.fixes, repo: context.repo, output },
      this.services,
    );
    return proposals.find((p) => !attempt.applied.has(p.key));
  }

  private retryWith(repair: Repair): Action {
    const attempt = this.attempt!;
    attempt.applied.add(repair.key);
    attempt.fixes = applyRepair(attempt.fixes, repair);
    if (repair.packages) this.carried = [...new Set([...this.carried, ...repair.packages])];
    if (repair.recipe) attempt.recipe = repair.recipe;
    if (repair.patches && repair.patches.length > 0) {
      for (const line of repair.prelude ?? []) attempt.edits.add(line);
    }
    return {
      kind: 'run',
      script: renderScript(attempt.recipe, attempt.fixes),
      purpose: `${attempt.recipe.label} + ${repair.rule}`,
      reason: repair.reason,
      patches: repair.patches,
      recipe: describeScript(attempt.recipe, attempt.fixes, attempt.edits),
    };
  }

  private advance(context: TurnContext): Action {
    const recipes = this.recipes ?? [];
    for (let i = this.index + 1; i < recipes.length; i++) {
      if (!this.tried.has(recipes[i]!.id)) return this.start(i);
    }
    const last = context.history[context.history.length - 1]?.observation;
    const built = last?.verdict.metrics.completion ?? false;
    const cause = last?.rootCause?.message ?? (last?.exec.timedOut ? 'the build timed out' : undefined);
    const tried =
      recipes.length === 1 ? `the only recipe (${recipes[0]!.label})` : `all ${recipes.length} recipes`;
    const repaired =
      this.attempt && this.attempt.applied.size > 0 ? ` after ${this.attempt.applied.size} repair(s)` : '';
    const submodules =
      this.missingSubmodules.length > 0
        ? `; git submodules ${this.missingSubmodules.join(', ')} are not checked out and could not be fetched`
        : '';
    return {
      kind: 'finish',
      claim: built ? 'partial' : 'impossible',
      reason: built
        ? `${tried} ran${repaired}; binaries were built but not all expected ones (${last?.verdict.failures.join('; ') ?? ''})${submodules}`
        : cause
          ? `no known repair for the root cause "${cause}"${repaired ? ` (${repaired.trim()} applied)` : ''}, and ${tried} failed${submodules}`
          : `${tried} failed${repaired} without a recognised error${submodules}`,
    };
  }

  private start(index: number): Action {
    const recipe = this.recipes![index]!;
    this.index = index;
    this.tried.add(recipe.id);
    const fixes = emptyFixes();
    fixes.packages = [...this.carried];
    if (this.missingSubmodules.length > 0) {
      // Submodules that did not come with the checkout: fetch them first (a warning, not a failure, offline).
      fixes.packages = [...new Set([...fixes.packages, 'git', 'ca-certificates'])];
      fixes.prelude = [SUBMODULE_FETCH];
    }
    this.attempt = { recipe, fixes, applied: new Set(), edits: new Set() };
    return {
      kind: 'run',
      script: renderScript(recipe, fixes),
      purpose: recipe.label,
      reason: recipe.evidence,
      recipe: describeScript(recipe, fixes, this.attempt.edits),
    };
  }
}

/** Fetches submodules the checkout lacks; offline it warns and the build goes on without them. */
export const SUBMODULE_FETCH =
  "if [ -e .git ] && [ -f .gitmodules ]; then git config --global --add safe.directory '*'; " +
  "git submodule update --init --recursive --depth 1 || echo 'buildbench: warning: could not fetch the git submodules' >&2; fi";

function noRecipeReason(context: TurnContext): string {
  const systems = context.repo.buildSystems;
  if (systems.length > 0 && systems.every((s) => !s.linux)) {
    return `only non-Linux build systems were found (${systems.map((s) => `${s.kind}: ${s.file}`).join(', ')}) and no C/C++ file defines main()`;
  }
  return 'no build system was recognised (no CMakeLists.txt, configure, Makefile, meson.build, …) and no C/C++ file defines main()';
}
