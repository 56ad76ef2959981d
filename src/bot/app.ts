/**
 * The GitHub App: every event it listens to, and where each goes.
 *
 * - `issue_comment.created` → the commands (on-comment.ts). Edited and deleted comments are not routed at all.
 * - `workflow_run.completed` of the configured buildbench workflow (`.github/workflows/<config.workflow>`)
 *   → the dispatched run's completion (run-completed.ts: the recipe's pull request, the final sticky comment).
 * - `workflow_run.completed` of any other workflow with conclusion failure, when `config.diagnose`
 *   → the failed-CI diagnosis (ci-failure.ts, which finds the run's pull requests itself).
 * - `check_run.completed` with conclusion failure, when `config.diagnose` → the same, for checks that are not
 *   GitHub Actions runs (those arrive as workflow_run).
 *
 * Each delivery id acts once (deliveries.ts). The App never builds in its own process: it dispatches the
 * repository's workflow, which runs the Action.
 */
import type { ApplicationFunction, ApplicationFunctionOptions, Context, Probot } from 'probot';

import { loadBotConfig, type BotConfig, type ConfigResult } from './config.js';
import { MemoryDeliveryLog, type DeliveryLog } from './deliveries.js';
import { onCommentCreated } from './on-comment.js';
import { onCheckRunFailure, onCiFailure } from './ci-failure.js';
import { onBuildbenchRunCompleted } from './run-completed.js';

export type WorkflowRunContext = Context<'workflow_run.completed'>;
export type CheckRunContext = Context<'check_run.completed'>;

export interface BotDeps {
  /** Delivery ids already acted on (redelivery → nothing). One per app instance by default. */
  deliveries: DeliveryLog;
  loadConfig: (context: Pick<Context, 'config'>) => Promise<ConfigResult>;
  onCiFailure: (context: WorkflowRunContext, config: BotConfig) => Promise<unknown>;
  onCheckRunFailure: (context: CheckRunContext, config: BotConfig) => Promise<unknown>;
  onBuildbenchRunCompleted: (context: WorkflowRunContext, config: BotConfig) => Promise<unknown>;
}

/**
 * Registers the App's handlers. Usable as a Probot app function directly (`probot.load(buildbenchApp)`,
 * `run(buildbenchApp)`: Probot's own second argument, its ApplicationFunctionOptions, holds no BotDeps and
 * is ignored), or with dependencies (tests, another delivery store): `createBuildbenchApp(deps)`.
 */
export function buildbenchApp(app: Probot, deps?: Partial<BotDeps> | ApplicationFunctionOptions): void {
  const given = (deps ?? {}) as Partial<Record<keyof BotDeps, unknown>>;
  const fn = <T>(value: unknown, fallback: T): T => (typeof value === 'function' ? (value as T) : fallback);
  const deliveries = given.deliveries as DeliveryLog | undefined;
  const d: BotDeps = {
    deliveries: typeof deliveries?.claim === 'function' ? deliveries : new MemoryDeliveryLog(),
    loadConfig: fn(given.loadConfig, loadBotConfig),
    onCiFailure: fn<BotDeps['onCiFailure']>(given.onCiFailure, (context, config) =>
      onCiFailure(context, config),
    ),
    onCheckRunFailure: fn<BotDeps['onCheckRunFailure']>(given.onCheckRunFailure, (context, config) =>
      onCheckRunFailure(context, config),
    ),
    onBuildbenchRunCompleted: fn<BotDeps['onBuildbenchRunCompleted']>(
      given.onBuildbenchRunCompleted,
      (context, config) => onBuildbenchRunCompleted(context, config),
    ),
  };

  app.on('issue_comment.created', async (context) => {
    const outcome = await forgetOnError(d, context.id, () => onCommentCreated(context, d));
    context.log.info({ event: 'issue_comment.created', ...outcome }, `buildbench: ${outcome.action}`);
  });

  app.on('workflow_run.completed', async (context) => {
    if (!d.deliveries.claim(context.id)) return;
    await forgetOnError(d, context.id, async () => {
      const config = await configOrLog(context, d);
      if (!config) return;
      const run = context.payload.workflow_run;
      if (run.path === `.github/workflows/${config.workflow}`) {
        await d.onBuildbenchRunCompleted(context, config);
        return;
      }
      if (run.conclusion === 'failure' && config.diagnose) await d.onCiFailure(context, config);
    });
  });

  app.on('check_run.completed', async (context) => {
    if (context.payload.check_run.conclusion !== 'failure') return;
    if (!d.deliveries.claim(context.id)) return;
    await forgetOnError(d, context.id, async () => {
      const config = await configOrLog(context, d);
      if (config?.diagnose) await d.onCheckRunFailure(context, config);
    });
  });
}

/** Runs a handler; when it throws, the delivery's claim is given back (a redelivery may retry), then rethrown. */
async function forgetOnError<T>(d: BotDeps, id: string, handler: () => Promise<T>): Promise<T> {
  try {
    return await handler();
  } catch (error) {
    d.deliveries.forget(id);
    throw error;
  }
}

/** The app function with these dependencies (the rest default). */
export function createBuildbenchApp(deps: Partial<BotDeps>): ApplicationFunction {
  return (app) => buildbenchApp(app, deps);
}

/**
 * The configuration, or undefined after logging why not. Outside a command there is no comment that asked
 * for anything, so a broken file is logged here and said in a comment when someone next gives a command.
 */
async function configOrLog(context: Context, d: BotDeps): Promise<BotConfig | undefined> {
  const loaded = await d.loadConfig(context);
  if ('config' in loaded) return loaded.config;
  context.log.warn(
    { field: loaded.error.field },
    `buildbench: .github/buildbench.yml: ${loaded.error.field} ${loaded.error.message}`,
  );
  return undefined;
}
