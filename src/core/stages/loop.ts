import path from 'node:path';

import { runAgentLoop, type LoopOutcome } from '../../agent/loop.js';
import { createKnowledge, createServices } from '../../knowledge/index.js';
import { analyzeLog, analyzeLogFile } from '../../knowledge/diagnose/log-parser.js';
import { retrieve } from './prepare.js';
import { say, type Opened, type Prepared, type RunState } from './state.js';
import { parseIdleTimeout } from '../settings.js';

/**
 * Stage 3: the strategy (the one given, else the one the settings name, made by `deps.createStrategy`) and
 * the agent loop, which owns every limit of the run (turns, wall clock, the model budget) and says why it
 * ended (`LoopEnd`); the status is decided later, from that and the final checks.
 */
export async function runLoop(
  state: RunState,
  { repo }: Prepared,
  { box, verifier }: Opened,
): Promise<LoopOutcome> {
  const { settings, options, session } = state;
  const strategy =
    options.strategy ??
    state.deps.createStrategy(settings.strategy, {
      knowledge: createKnowledge(),
      services: createServices(box),
      preinstall: settings.preinstall ?? true,
      session,
      loadInstructions: session ? () => retrieve(state, session.provider) : undefined,
      signal: options.signal,
    });
  say(state, 'build', `strategy ${strategy.name}`);
  const outcome = await runAgentLoop(
    {
      maxTurns: settings.maxTurns,
      repo,
      expected: state.expected,
      workdir: box.workdir,
      ...(settings.deploy ? { goal: settings.deploy } : {}),
    },
    {
      strategy,
      sandbox: box,
      analyze: (output, logPath) => (logPath ? analyzeLogFile(logPath) : Promise.resolve(analyzeLog(output))),
      verify: () => verifier.verify(),
      emit: (event) => state.events.emit(event),
    },
    {
      maxTurns: settings.maxTurns,
      deadline: state.deadline,
      turnTimeoutMs: settings.turnTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs ?? parseIdleTimeout(undefined, '--idle-timeout'),
      logDir: path.join(state.outDir, 'logs'),
      signal: options.signal,
      budget: session?.budget,
      now: state.deps.now,
    },
  );
  state.outcome = outcome;
  return outcome;
}
