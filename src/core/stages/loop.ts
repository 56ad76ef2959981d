import path from 'node:path';

import { runAgentLoop, type LoopOutcome } from '../../agent/loop.js';
import { impossibleGate } from '../../deploy/alternatives.js';
import { createKnowledge, createServices } from '../../knowledge/index.js';
import { analyzeLog, analyzeLogFile } from '../../knowledge/diagnose/log-parser.js';
import { splitScriptSoon } from '../../trajectory/shell-split.js';
import { followExpectation } from './expectation.js';
import { freshTurns } from './fresh-turn.js';
import { retrieve } from './prepare.js';
import { say, type Opened, type Prepared, type RunState } from './state.js';
import { parseIdleTimeout } from '../settings.js';

/**
 * Stage 3: the strategy (the one given, else the one the settings name, made by `deps.createStrategy`) and
 * the agent loop, which owns every limit of the run (turns, wall clock, the model budget) and says why it
 * ended (`LoopEnd`); the status is decided later, from that and the final checks.
 */
export async function runLoop(state: RunState, { repo }: Prepared, opened: Opened): Promise<LoopOutcome> {
  const { box } = opened;
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
  const base = {
    maxTurns: settings.maxTurns,
    repo,
    expected: state.expected,
    workdir: box.workdir,
    ...(settings.deploy ? { goal: settings.deploy } : {}),
  };
  // A fallback to another build system is judged by what that system makes (expectation.ts): the verifier, the
  // strategy's next context and result.json get the expectation read for it.
  const expectation = followExpectation(state, repo, (expected, system) => {
    const was = state.expected.names.join(', ') || 'any new binary';
    state.expected = expected;
    base.expected = state.expected;
    opened.verifier.reexpect(state.expected);
    say(
      state,
      'build',
      `expectation read again for ${system}, the build system that ran: ${expected.names.join(', ')} (was ${was})`,
    );
  });
  const outcome = await runAgentLoop(
    base,
    {
      strategy,
      sandbox: box,
      analyze: (output, logPath) => (logPath ? analyzeLogFile(logPath) : Promise.resolve(analyzeLog(output))),
      // The current sandbox's verifier: a repair turn may get a fresh sandbox (fresh-turn.ts).
      verify: async () => {
        await expectation.current();
        return opened.verifier.verify();
      },
      emit: (event) => {
        if (event.type === 'turn_start') expectation.turnStarts(event.action);
        // While a turn's script runs this process only waits: the trajectory analysis's split of the script
        // is done then, a moment after the command started (not before it, which would delay it).
        if (event.type === 'turn_start' && event.action.kind === 'run') {
          const script = event.action.script;
          setTimeout(() => splitScriptSoon(script), 100).unref();
        }
        state.events.emit(event);
      },
      freshSandbox: freshTurns(state, opened),
      // A deploy claims `impossible` only after its ecosystems' alternatives were tried or ruled out: the first
      // such claim with rows open is refused, naming them (deploy/alternatives.ts).
      ...(settings.deploy ? { refuseClaim: impossibleGate(settings.deploy, repo) } : {}),
      // The advisory run probe rides on each build turn's command (a deploy run has none): when the last turn
      // exited 0 and started what the probe would, the final checks need no command of their own. The clock is
      // the real one: the probe looks for files the command changed, by their modification time.
      ...(settings.deploy
        ? {}
        : {
            epilogue: (timeoutMs: number) => {
              const now = Date.now();
              return opened.verifier.turnEpilogue(now, now + timeoutMs);
            },
          }),
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
