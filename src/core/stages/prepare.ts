import { errorMessage } from '../../base/errors.js';
import { alternativesFacts } from '../../deploy/alternatives.js';
import { deployVisibleSpec } from '../../deploy/target.js';
import type { DeployGoal } from '../../deploy/types.js';
import type { LlmProvider } from '../../llm/types.js';
import { inspectRepo } from '../../repo/inspect.js';
import { retrieveInstructions } from '../../retrieval/index.js';
import { expectedFrom, type IgnoredName } from '../../verify/scoring.js';
import { prepareSpec, type Layer2Spec } from '../../verify/spec.js';
import type { Expected } from '../../verify/types.js';
import { gitHead, locateSource, repositoryIdentity } from '../source.js';
import { startSandbox } from './open-sandbox.js';
import { say, type Prepared, type RunState } from './state.js';

/**
 * Stage 1: the source (a local folder, or a clone), what its file tree and build files say, what the build
 * is expected to produce, and the spec (a hidden spec is validated now and loaded after the loop). Without a
 * model the documentation is ranked for build instructions now (free, recorded). A deploy run expects no
 * binaries: its visible spec is the target experiment (plus a visible spec the user gave), so the target's
 * verdict decides every turn; its task's verifier stays hidden until the loop has ended. The run's sandbox is
 * started as soon as the tree is on disk and its identity known: it is made while the tree is inspected
 * (`openSandbox` takes it).
 */
export async function prepare(state: RunState): Promise<Prepared> {
  const { settings, options } = state;
  // The spec first: a bad one is the user's to fix before anything is cloned or made.
  const spec = await prepareSpec(settings.spec);
  say(state, 'fetch', `resolving ${settings.source}`);
  const located = await locateSource(settings.source, options.signal);
  // Which repository it is (git queries, unless it was cloned from a URL) while the file tree is read: the
  // sandbox needs it for its build cache and starts as soon as it is known (a failure from here on leaves the
  // sandbox to the last stage, which discards one the run never took). Which commit it is is asked after it:
  // each query is a process start, and only the result needs the commit.
  const identity = repositoryIdentity(settings.source, located.dir);
  state.startedSandbox = startSandbox(state, located.dir, identity);
  const commit = identity.then(() => gitHead(located.dir));
  say(state, 'inspect', 'reading the file tree and build files');
  let info;
  try {
    info = await inspectRepo(located.dir);
  } finally {
    // Set whatever the inspection did: a temporary clone is removed when the run ends.
    const head = await commit;
    state.source = { ...located, ...(head !== undefined ? { commit: head } : {}), identity: await identity };
  }
  const source = state.source;
  state.repo = info;
  const goal = settings.deploy;
  const expected = goal ? noBinaries() : expectedFrom(settings, info);
  state.expected = expected;
  state.spec = goal ? deploySpec(goal, spec) : spec;
  if (goal) {
    const ecosystems = (info.ecosystems ?? []).map((e) => e.kind).join(', ');
    // With what the alternatives check reads back from the trajectory (the mirrors by name only).
    say(
      state,
      'inspect',
      `deploy target: ${goal.target.command}; ecosystems: ${ecosystems || 'none detected'}`,
      { deploy: alternativesFacts(goal, info) },
    );
  }
  const systems = info.buildSystems.map((b) => `${b.kind}${b.dir ? ` (${b.dir}/)` : ''}`).join(', ');
  state.events.emit({
    type: 'phase',
    phase: 'inspect',
    message:
      `build systems: ${systems || 'none'}; ` +
      `expected: ${expected.names.join(', ') || 'any new binary'} (${expected.source})` +
      (expected.uncertain?.length ? `; uncertain: ${expected.uncertain.join('; ')}` : ''),
    data: { buildSystems: info.buildSystems, expected, docs: info.docs.slice(0, 5) },
  });
  if (!state.session) await retrieve(state, undefined);
  return { source, repo: info };
}

/** What a deploy run expects of the artifact scan: nothing (the target's evidence decides). */
function noBinaries(): Expected & { ignored: IgnoredName[] } {
  return { names: [], source: 'none', ignored: [] };
}

/** A deploy run's spec: the target (visible) with the user's visible spec; a hidden one stays named only. */
function deploySpec(
  goal: DeployGoal,
  spec: { visible?: Layer2Spec; hiddenFile?: string },
): { visible: Layer2Spec; hiddenFile?: string } {
  return {
    visible: deployVisibleSpec(goal, spec.visible),
    ...(spec.hiddenFile !== undefined ? { hiddenFile: spec.hiddenFile } : {}),
  };
}

/**
 * Finds the build instructions in the documentation: ranked offline, or read by the model when `provider`
 * is given (with a model this runs when the strategy first needs them, so a hybrid run that the rules
 * finish spends no tokens). A failure is a warning; the instructions are then empty.
 */
export async function retrieve(state: RunState, provider: LlmProvider | undefined): Promise<string> {
  say(
    state,
    'retrieve',
    provider
      ? 'reading the build instructions with the model'
      : 'ranking the documentation for build instructions',
  );
  try {
    if (state.repo)
      state.retrieval = await retrieveInstructions(state.repo, { provider, signal: state.options.signal });
  } catch (error) {
    say(state, 'retrieve', `warning: retrieval failed: ${errorMessage(error)}`);
  }
  return state.retrieval?.instructions ?? '';
}
