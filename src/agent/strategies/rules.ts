import type { Action, Strategy, TurnContext, TurnRecord, UpFront } from '../types.js';
import type { RepoInfo } from '../../repo/types.js';
import { candidateRecipes } from '../../recipe/catalog.js';
import { deployRecipes } from '../../deploy/recipes/index.js';
import { alternativesNote } from '../../deploy/alternatives.js';
import { documentedPackages, documentedRecipes, type DocumentedRecipe } from '../../recipe/documented.js';
import { emptyFixes, type Recipe, type RecipeFixes } from '../../recipe/model.js';
import { describeScript, renderScript } from '../../recipe/render-turn.js';
import {
  applyRepair,
  NO_KNOWLEDGE,
  type Repair,
  type RepairKnowledge,
  type StrategyServices,
} from '../../knowledge/repair/repair.js';
import { submodulesThatMatter } from '../../knowledge/repair/submodules.js';
import { GENERIC_MOVES } from '../../knowledge/repair/rules/generic.js';
import type { PreinstallPlan } from '../../knowledge/repair/declared.js';
import { preinstallFor } from './preinstall.js';
import {
  documentedSwitchesOff,
  preemptiveMigrations,
  preemptiveRepairs,
  type PreemptiveRepair,
} from './preemptive.js';
import { shippedLibraryRepairs, shippedSourceRepairs } from './shipped-sources.js';

interface Attempt {
  recipe: Recipe;
  /** Why this recipe was chosen (turn 0: the evidence; later: the fallback it is). */
  why: string;
  fixes: RecipeFixes;
  /** Repair keys already applied to this recipe. */
  applied: Set<string>;
  /** Prelude lines of repairs that edit source files (they carry `patches`). */
  edits: Set<string>;
}

/** A recipe in the plan with why it comes where it does. */
interface Planned {
  recipe: Recipe;
  /**
   * `first`: the recipe of turn 0; `documented`: the documented commands; `other`: another build system;
   * `guess`: direct compilation after the documented commands of a repository without a build system.
   */
  role: 'first' | 'documented' | 'other' | 'guess';
  notes: string[];
  /** Why the first recipe is first, when the documentation decided it. */
  because?: string;
  /** The packages a documented recipe's own install lines name (a CI file's), installed when it runs. */
  packages?: string[];
}

/**
 * The embedded default, no model: a recipe per detected build system, tried in order of evidence (the one
 * the documentation uses first); after a failure the repair knowledge maps the root cause to a fix and the
 * same recipe runs again with it. When no fix applies it does not give up: it tries, in order, the
 * documented commands (README/INSTALL/BUILDING blocks, then the CI's steps, cleaned: recipe/documented.ts),
 * the other build systems present, and a serial (-j1) run of the first recipe that failed in its parallel
 * build step — each a turn whose reason says why it was chosen. Without any build system the documented
 * commands come first and direct compilation, the strategy's own guess, after them. Package fixes carry
 * over to later recipes; the packages the documentation names are installed up front (those the package
 * index knows); a CI file's install lines only with the CI's own steps.
 */
export class RulesStrategy implements Strategy {
  readonly name = 'rules';
  private recipes: Recipe[] | undefined;
  private plan: Planned[] = [];
  private index = 0;
  /** Packages the documentation names, installed up front in every recipe (only those the index knows). */
  private documentedPackages: string[] = [];
  /** The first attempt that failed in a parallel build step, for the serial retry; `done` once tried. */
  private serial: { attempt: Attempt; cause: string } | 'done' | undefined;
  private attempt: Attempt | undefined;
  /** Packages installed by earlier repairs, kept for every later recipe. */
  private carried: string[] = [];
  /** Variables every recipe gets from the start: the declared headers' include roots (CPATH). */
  private carriedEnv: Record<string, string> = {};
  private readonly tried = new Set<string>();
  /** Submodule paths that came empty with the checkout. */
  private missingSubmodules: string[] = [];
  /** The declared dependencies installed before the first recipe (reported with the first turn). */
  private preinstall: PreinstallPlan | undefined;
  /** Repairs whose failure the tree predicts, applied before every recipe's first script. */
  private preemptive: PreemptiveRepair[] = [];

  constructor(
    private readonly knowledge: RepairKnowledge = NO_KNOWLEDGE,
    private readonly services: StrategyServices = {},
    private readonly options: { preinstall?: boolean } = {},
  ) {}

  async next(context: TurnContext): Promise<Action> {
    if (this.recipes === undefined) {
      // A submodule used only under a test option that is off is neither fetched nor named as a cause.
      const missing = context.repo.submodules.filter((m) => !m.populated);
      const root = context.repo.buildSystems[0]?.dir ?? '';
      const mattering = await submodulesThatMatter(context.repo.root, root, missing);
      this.missingSubmodules = mattering.map((m) => m.path);
      const catalog = context.goal
        ? deployRecipes(context.repo, context.goal)
        : candidateRecipes(context.repo);
      const documented = context.goal ? [] : await documentedRecipes(context.repo);
      this.plan = planRecipes(catalog, documented, context.repo.buildSystemChoice);
      this.recipes = this.plan.map((p) => p.recipe);
      // One look-up for the docs' packages and the CI recipes' own: those the package index knows.
      const documentedNames = context.goal ? [] : await documentedPackages(context.repo);
      const ciNames = this.plan.flatMap((p) => p.packages ?? []);
      const known = new Set(await this.knownNames([...new Set([...documentedNames, ...ciNames])]));
      this.documentedPackages = documentedNames.filter((n) => known.has(n));
      for (const planned of this.plan) {
        if (planned.packages) planned.packages = planned.packages.filter((n) => known.has(n));
      }
      if (this.recipes.length === 0) {
        return {
          kind: 'finish',
          claim: 'impossible',
          reason: noRecipeReason(context),
        };
      }
      if (this.options.preinstall !== false) {
        this.preinstall = await preinstallFor(context.repo, this.services, context.goal);
        if (!context.goal)
          this.preemptive = [
            ...(await preemptiveRepairs(context.repo, this.plan[0]!.recipe, this.knowledge, this.services)),
            ...documentedSwitchesOff(context.repo, this.plan[0]!.recipe, context.expected.names),
          ];
        else if (context.repo.ecosystems?.some((e) => e.kind === 'python') && this.knowledge !== NO_KNOWLEDGE)
          this.preemptive = await preemptiveMigrations(context.repo);
        // A clone of a project the distribution ships gets its copy when the network is out of reach.
        this.preemptive.push(
          ...(await shippedSourceRepairs(
            context.repo,
            this.recipes,
            this.knowledge.shippedSources ?? [],
            context.goal,
          )),
          // A submodule the checkout lacks whose project the distribution ships: its package, up front.
          ...shippedLibraryRepairs(mattering, this.knowledge.shippedSources ?? []),
        );
      }
      this.carried = (this.preinstall?.packages ?? []).map((p) => p.package);
      const roots = (this.preinstall?.includeDirs ?? []).map((d) => d.dir);
      if (roots.length > 0) this.carriedEnv = { CPATH: roots.join(':') };
      return { ...this.start(0), ...(this.preinstall ? { preinstall: this.preinstall } : {}) };
    }
    const last: TurnRecord | undefined = context.history[context.history.length - 1];
    const observation = last?.observation;
    // A failed script, or one that exited 0 without the expected binaries (a build.sh without `set -e`
    // whose compiler failed): the log's root cause is repaired either way.
    if (
      this.attempt &&
      observation?.rootCause &&
      (observation.exec.exitCode !== 0 || !observation.verdict.passed) &&
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
    if (this.attempt && observation && observation.exec.exitCode !== 0 && this.serial === undefined) {
      const cause =
        observation.rootCause?.message ?? (observation.exec.timedOut ? 'a timeout' : 'an unrecognised error');
      if (mayBeParallelFailure(observation) && serialRecipe(this.attempt.recipe))
        this.serial = { attempt: this.attempt, cause };
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
      {
        rootCause,
        findings,
        recipe: attempt.recipe,
        fixes: attempt.fixes,
        repo: context.repo,
        output,
        ...(context.goal ? { goal: context.goal } : {}),
      },
      this.services,
    );
    // A repair that would only install packages every recipe already installs (the declared dependencies
    // installed up front, an earlier repair's) changes nothing: the script would fail the same way again.
    const changesNothing = (p: Repair): boolean =>
      (p.packages?.length ?? 0) > 0 &&
      p.packages!.every((pkg) => this.carried.includes(pkg)) &&
      !p.prelude?.length &&
      !p.env &&
      !p.configureArgs?.length &&
      !p.recipe &&
      !p.patches?.length;
    return proposals.find((p) => !attempt.applied.has(p.key) && !changesNothing(p));
  }

  private retryWith(repair: Repair): Action {
    const attempt = this.attempt!;
    attempt.applied.add(repair.key);
    attempt.fixes = applyRepair(attempt.fixes, repair);
    if (repair.packages) this.carried = [...new Set([...this.carried, ...repair.packages])];
    if (repair.recipe) {
      attempt.recipe = repair.recipe;
      // A recipe of the plan that a repair switched to (a deploy's offline setup) has run: when it fails with
      // nothing left to repair, the plan goes on after it instead of starting it again from scratch.
      if (this.recipes?.some((r) => r.id === repair.recipe!.id)) this.tried.add(repair.recipe.id);
    }
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
    const last = context.history[context.history.length - 1]?.observation;
    const previous = this.attempt?.recipe.label;
    const cause = last?.rootCause?.message ?? (last?.exec.timedOut ? 'the build timed out' : undefined);
    const failure = cause ? `no known repair for "${cause}"` : 'no recognised error to repair';
    for (let i = this.index + 1; i < recipes.length; i++) {
      if (!this.tried.has(recipes[i]!.id))
        return this.start(i, `${failure} after ${previous ?? 'the last recipe'}`);
    }
    if (this.serial !== undefined && this.serial !== 'done') {
      const { attempt, cause: serialCause } = this.serial;
      this.serial = 'done';
      return this.runSerial(attempt, serialCause, failure);
    }
    const built = last?.verdict.metrics.completion ?? false;
    // Nothing is left here: every recipe was started and the serial retry is done or does not apply, and the
    // last failure had no plan this attempt had not applied (next() asked the rules and the generic moves).
    const claim = finishClaim({
      built,
      plansLeft: 0,
      recipesLeft: recipes.filter((r) => !this.tried.has(r.id)).length,
      serialLeft: this.serial !== undefined && this.serial !== 'done',
    });
    if (claim === 'continue') throw new Error('the rules strategy finished with a step left');
    const tried =
      (recipes.length === 1 ? `the only recipe (${recipes[0]!.label})` : `all ${recipes.length} recipes`) +
      (this.serial === 'done' ? ' and a serial build' : '');
    const repaired =
      this.attempt && this.attempt.applied.size > 0 ? ` after ${this.attempt.applied.size} repair(s)` : '';
    const submodules =
      this.missingSubmodules.length > 0
        ? `; git submodules ${this.missingSubmodules.join(', ')} are not checked out and could not be fetched`
        : '';
    const legacy = legacyNote(last?.rootCause, this.attempt?.applied);
    // A deploy says which of its ecosystems' alternatives it tried and which it ruled out, and why.
    const alternatives = context.goal
      ? alternativesNote(context.goal, context.repo, context.history).note
      : '';
    return {
      kind: 'finish',
      claim,
      reason:
        (built && last?.verdict.passed && last.exec.exitCode !== 0
          ? `${tried} ran${repaired}; every expected binary was built, but the script exited ${last.exec.exitCode ?? 'without a status'} after them${cause ? ` (${cause})` : ''}: a build that did not run through is not a success${submodules}`
          : built
            ? `${tried} ran${repaired}; binaries were built but not all expected ones (${last?.verdict.failures.join('; ') ?? ''})${submodules}`
            : cause
              ? `no known repair for the root cause "${cause}"${repaired ? ` (${repaired.trim()} applied)` : ''}, and ${tried} failed${submodules}`
              : `${tried} failed${repaired} without a recognised error${submodules}`) +
        legacy +
        (alternatives ? `; ${alternatives}` : '') +
        (claim === 'impossible' ? `; ${whatWasTried(context.history)}` : ''),
    };
  }

  private start(index: number, failure?: string): Action {
    const planned = this.plan[index]!;
    const recipe = planned.recipe;
    this.index = index;
    this.tried.add(recipe.id);
    const fixes = emptyFixes();
    fixes.packages = [...this.carried];
    fixes.env = { ...this.carriedEnv };
    // The packages the documentation names (those the package index knows) are installed up front.
    fixes.packages = [...new Set([...this.documentedPackages, ...fixes.packages])];
    // A documented recipe's own packages (the CI's install lines) come with it.
    if (planned.packages?.length) fixes.packages = [...new Set([...fixes.packages, ...planned.packages])];
    if (this.missingSubmodules.length > 0) {
      // Submodules that did not come with the checkout: fetch them first (a warning, not a failure, offline).
      fixes.packages = [...new Set([...fixes.packages, 'git', 'ca-certificates'])];
      fixes.prelude.push(SUBMODULE_FETCH);
    }
    const packagesNote =
      failure === undefined && this.documentedPackages.length > 0
        ? `; installs up front the packages the documentation names: ${this.documentedPackages.join(' ')}`
        : '';
    const includeNote =
      failure === undefined && this.carriedEnv.CPATH
        ? `; puts the declared headers' include roots on CPATH: ${this.carriedEnv.CPATH}`
        : '';
    // Repairs the tree predicts (preemptive.ts): applied as a failed turn would have them applied, each said.
    let patched = fixes;
    const applied = new Set<string>();
    const edits = new Set<string>();
    // CMake's own switches (documentedSwitchesOff) only where CMake configures.
    const preemptive = this.preemptive.filter(
      ({ repair }) => !(repair.configureArgs?.length && recipe.system !== 'cmake'),
    );
    for (const { repair } of preemptive) {
      patched = applyRepair(patched, repair);
      applied.add(repair.key);
      // Only a source change's lines are edits (the patch series replaces them in build.sh).
      if (repair.patches?.length) for (const line of repair.prelude ?? []) edits.add(line);
    }
    const preemptiveNote = preemptive
      .map(
        ({ repair, evidence }) => `; before the first script, ${repair.rule}: ${repair.reason} (${evidence})`,
      )
      .join('');
    const why = whyPlanned(planned, failure) + packagesNote + includeNote + preemptiveNote;
    this.attempt = { recipe, why, fixes: patched, applied, edits };
    const patches = preemptive.flatMap(({ repair }) => repair.patches ?? []);
    const upFront: UpFront[] = [
      ...Object.entries(this.carriedEnv).map(([name, value]): UpFront => ({
        kind: 'env',
        what: `${name}=${value}`,
        why: "the declared headers' include roots, where their packages ship them",
      })),
      ...preemptive.flatMap(({ repair, evidence }) =>
        (repair.packages ?? []).map((pkg): UpFront => ({
          kind: 'package',
          what: pkg,
          why: `before the first script, ${repair.rule}: ${repair.reason} (${evidence})`,
        })),
      ),
    ];
    return {
      kind: 'run',
      script: renderScript(recipe, patched),
      purpose: recipe.label,
      reason: why,
      ...(patches.length > 0 ? { patches } : {}),
      ...(upFront.length > 0 ? { upFront } : {}),
      recipe: describeScript(recipe, patched, this.attempt.edits),
    };
  }

  /**
   * The names the sandbox's package index knows (apt-get lines, `requires libfoo-dev` prose); none without the
   * look-up service (an unknown name would fail the install).
   */
  private async knownNames(names: readonly string[]): Promise<string[]> {
    if (names.length === 0 || !this.services.knownPackages) return [];
    return this.services.knownPackages([...names]);
  }

  /** The failed attempt again, its parallel build steps run serially (`-j1`), with the fixes it had. */
  private runSerial(attempt: Attempt, cause: string, failure: string): Action {
    const recipe = serialRecipe(attempt.recipe)!;
    const why =
      `${failure}; ${attempt.recipe.label} had failed in its parallel build step (${cause}): ` +
      'retrying that step serially (-j1), in case the failure is a parallel-make race';
    this.attempt = {
      recipe,
      why,
      fixes: attempt.fixes,
      applied: new Set(attempt.applied),
      edits: new Set(attempt.edits),
    };
    return {
      kind: 'run',
      script: renderScript(recipe, attempt.fixes),
      purpose: recipe.label,
      reason: why,
      recipe: describeScript(recipe, attempt.fixes, this.attempt.edits),
    };
  }
}

/** What is left to try after a failed turn (the rules strategy's state when it would finish). */
export interface FinishState {
  /** The last turn built some of the expected binaries (a `partial` result, not `impossible`). */
  built: boolean;
  /** Plans for the last failure, of the repair rules and of the generic moves, that were not applied yet. */
  plansLeft: number;
  /** Recipes not started yet: the documented commands, the other build systems, the guess. */
  recipesLeft: number;
  /** The serial (-j1) retry of a recipe that failed in its parallel build step is still to come. */
  serialLeft: boolean;
}

/**
 * The one decision to stop: `continue` while a rule plan, a generic move, another recipe or the serial retry is
 * left; else `partial` when some binaries were built, and `impossible` only when nothing at all remains.
 */
export function finishClaim(state: FinishState): 'continue' | 'partial' | 'impossible' {
  if (state.plansLeft > 0 || state.recipesLeft > 0 || state.serialLeft) return 'continue';
  return state.built ? 'partial' : 'impossible';
}

/** For an `impossible` reason: each script the run tried (recipe, and the rule or generic move it added). */
export function whatWasTried(history: readonly TurnRecord[]): string {
  const runs = history
    .map((t) => (t.action.kind === 'run' ? t.action.purpose : undefined))
    .filter((p): p is string => p !== undefined);
  const list = runs.length > 0 ? `: ${runs.join('; ')}` : '';
  return `tried ${runs.length} script${runs.length === 1 ? '' : 's'}${list}; no repair rule, generic move (${GENERIC_MOVES.map((m) => m.name).join(', ')}) or other recipe is left`;
}

/** Fetches submodules the checkout lacks; offline it warns and the build goes on without them. */
export const SUBMODULE_FETCH =
  "if [ -e .git ] && [ -f .gitmodules ]; then git config --global --add safe.directory '*'; " +
  "git submodule update --init --recursive --depth 1 || echo 'buildbench: warning: could not fetch the git submodules' >&2; fi";

/**
 * The order recipes are tried in: the catalog's first (the build system the documentation uses when it
 * names one, else the best evidenced), then the documented commands, then the other build systems. Without a
 * build system the catalog's first is direct compilation, this tool's guess, while the documented commands are
 * how the authors build it (a README's `gcc … -lz` with the script that generates a header): those come first
 * and the guess after them.
 */
export function planRecipes(
  catalog: readonly Recipe[],
  documented: readonly DocumentedRecipe[],
  choice?: RepoInfo['buildSystemChoice'],
): Planned[] {
  const plan: Planned[] = [];
  const [first, ...others] = catalog;
  const guess = first?.system === 'direct' && documented.length > 0;
  if (first && !guess) {
    const chosen = choice && first.system === choice.kind && first.evidence.startsWith(choice.file);
    const because = chosen ? `the documentation uses ${choice.kind}: ${choice.why}` : undefined;
    plan.push({ recipe: first, role: 'first', notes: [], ...(because ? { because } : {}) });
  }
  documented.forEach((d, i) => {
    plan.push({
      recipe: d.recipe,
      role: 'documented',
      notes: d.notes,
      // The docs' packages are installed up front already (documentedPackages); the CI's come with its steps.
      ...(d.recipe.id === 'documented:ci' && d.packages.length > 0 ? { packages: [...d.packages] } : {}),
      ...(guess && i === 0
        ? { because: 'no build system was found, so the documentation’s own commands come first' }
        : {}),
    });
  });
  if (first && guess) plan.push({ recipe: first, role: 'guess', notes: [] });
  for (const recipe of others) plan.push({ recipe, role: 'other', notes: [] });
  return plan;
}

/** Why a planned recipe runs now, for the turn's reason. */
function whyPlanned(planned: Planned, failure: string | undefined): string {
  const { recipe, role, notes } = planned;
  const dropped =
    notes.length > 0
      ? ` (cleaned: ${notes.slice(0, 3).join('; ')}${notes.length > 3 ? `; ${notes.length - 3} more` : ''})`
      : '';
  if (role === 'first' || failure === undefined)
    return `${recipe.evidence}${planned.because ? `; ${planned.because}` : ''}${dropped}`;
  if (role === 'documented')
    return `${failure}; trying ${recipe.evidence} as a recipe of their own${dropped}`;
  if (role === 'guess') return `${failure}; trying ${recipe.label} (${recipe.evidence})`;
  // A deploy's setups are its ecosystems' alternatives (verifiers/deploy-alternatives.yaml), not build systems.
  if (recipe.system === 'deploy')
    return `${failure}; trying the next way to set it up, ${recipe.label}: ${recipe.evidence}`;
  return `${failure}; trying the other build system present: ${recipe.evidence}`;
}

/**
 * For a root cause that is a removed API (`legacy-*` signatures): that its migration is not mechanical and
 * is left to the model strategies, or that the mechanical one was applied and did not suffice.
 */
function legacyNote(
  rootCause: { id: string; message: string; hint?: string } | undefined,
  applied: ReadonlySet<string> | undefined,
): string {
  if (!rootCause?.id.startsWith('legacy-')) return '';
  const key = `legacy:${rootCause.id.slice('legacy-'.length)}`;
  if (applied?.has(key))
    return `; the code ${rootCause.message}: its documented migration was applied as a patch, and the build still fails there`;
  return `; the code ${rootCause.message}, and its documented migration is not mechanical, so the rules strategy does not patch it: it is left to the model strategies (--strategy llm or hybrid) — ${rootCause.hint ?? ''}`;
}

/** The turn's output ended inside a `build` step (the renderer's `### buildbench: build` markers). */
export function failedInBuildStep(output: string): boolean {
  const markers = [...output.matchAll(/^### buildbench: (\w+)$/gm)];
  return markers.length > 0 && markers[markers.length - 1]![1] === 'build';
}

/**
 * Whether a serial retry could help: the failure was in a build step, and either nothing recognisable
 * stopped it or make reported other jobs running beside the one that failed (`Waiting for unfinished
 * jobs`). A deterministic error of a one-job build (a missing dependency, a syntax error) is not retried.
 */
export function mayBeParallelFailure(
  observation: Pick<NonNullable<TurnRecord['observation']>, 'output' | 'rootCause'>,
): boolean {
  if (!failedInBuildStep(observation.output)) return false;
  return observation.rootCause === undefined || /Waiting for unfinished jobs/.test(observation.output);
}

const PARALLEL_FLAGS =
  /-j\s*(?:"\$\{BB_JOBS:-\$\(nproc\)\}"|\$\(nproc\)|"\$\(nproc\)"|\$\{?\w+\}?|\d+)|--parallel(?:\s+\d+)?/g;

/**
 * The recipe with its build steps' parallelism set to one job (`make -jN` / `cmake --build -j` → `-j1`,
 * `ninja` → `ninja -j1`), or undefined when its build steps are serial already.
 */
export function serialRecipe(recipe: Recipe): Recipe | undefined {
  let changed = false;
  const steps = recipe.steps.map((step) => {
    if (step.purpose !== 'build') return step;
    let command = step.command.replace(PARALLEL_FLAGS, () => {
      changed = true;
      return '-j1';
    });
    if (!/-j1\b/.test(command) && /(?:^|[\s;&(])ninja(?=\s)/.test(command)) {
      command = command.replace(/(^|[\s;&(])ninja(?=\s)/, '$1ninja -j1');
      changed = true;
    }
    return { ...step, command };
  });
  if (!changed) return undefined;
  return { ...recipe, id: `${recipe.id}:serial`, label: `${recipe.label}, serial`, steps };
}

function noRecipeReason(context: TurnContext): string {
  const systems = context.repo.buildSystems;
  if (systems.length > 0 && systems.every((s) => !s.linux)) {
    return `only non-Linux build systems were found (${systems.map((s) => `${s.kind}: ${s.file}`).join(', ')}) and no C/C++ file defines main()`;
  }
  return 'no build system was recognised (no CMakeLists.txt, configure, Makefile, meson.build, …) and no C/C++ file defines main()';
}
