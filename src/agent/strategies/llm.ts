/**
 * OSS-Build-Agent's Bash Command Generator as a strategy: each turn the model gets the retrieved
 * instructions, a compact repository summary, the goal and the distilled history, and answers with one tool
 * call — `run_script` (a whole bash script) or `finish` (SUCCESS / PARTIAL / IMPOSSIBLE with a reason). The
 * harness, not the model, decides success. Faults never crash the run: transient errors are the SDK
 * client's retries; a reply without a usable tool call is re-asked a few times; what is left ends the
 * model's part with a finish action; a spent budget or a failed provider marks it with a typed
 * `StrategyStop`, which the loop turns into its end (`limit: budget`, `provider_error`).
 */
import type { RepoInfo } from '../../repo/types.js';
import type { Action, Strategy, TurnContext } from '../types.js';
import { CancelledError, ProviderError, errorMessage } from '../../base/errors.js';
import { BudgetExceededError, estimateRequestTokens, type LlmUsage } from '../../llm/budget.js';
import type { ModelSession } from '../../llm/session.js';
import { scrub } from '../../llm/errors.js';
import { renderPrompt, type PromptVars, type RenderOptions } from '../../llm/prompts.js';
import { askForTool, type ParsedCall } from '../../llm/tool-call.js';
import { CHARS_PER_TOKEN, type CompletionResult, type ToolSpec } from '../../llm/types.js';
import { offlineInstructions } from '../../retrieval/retrieve.js';
import { DEPLOY_ENV_FILE } from '../../deploy/types.js';
import { buildTurnPrompt, topLevelTree } from './llm-prompt.js';

export const RUN_SCRIPT_TOOL: ToolSpec = {
  name: 'run_script',
  description:
    'Run one whole bash script in the sandbox, from the repository root, in a fresh shell. You then see its distilled outcome: exit status, the root cause from the log, what the verifiers still miss, and the end of the log.',
  parameters: {
    type: 'object',
    properties: {
      script: {
        type: 'string',
        description:
          'A complete bash script (start it with set -euo pipefail); absolute paths; no placeholders.',
      },
      purpose: {
        type: 'string',
        description: 'A short label for this step, e.g. "install zlib and build with cmake".',
      },
    },
    required: ['script', 'purpose'],
  },
};

export const FINISH_TOOL: ToolSpec = {
  name: 'finish',
  description:
    'End the build. SUCCESS: the expected binaries exist (the verifiers check; if they disagree the run goes on). PARTIAL: only some can be built here. IMPOSSIBLE: the project cannot be built on this Linux sandbox.',
  parameters: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['SUCCESS', 'PARTIAL', 'IMPOSSIBLE'] },
      reason: {
        type: 'string',
        description: 'The concrete reason, e.g. "iOS-only project" or "dependency libfoo is not available".',
      },
    },
    required: ['status', 'reason'],
  },
};

/** The finish tool of a deploy run: the claim is about the target experiment, judged by running its checks. */
export const FINISH_DEPLOY_TOOL: ToolSpec = {
  name: 'finish',
  description:
    'End the deployment. SUCCESS: the target experiment runs and leaves its evidence (the harness runs it and its checks; if they disagree the run goes on). PARTIAL: the environment is set up but the target does not fully run here. IMPOSSIBLE: it cannot be deployed in this sandbox.',
  parameters: FINISH_TOOL.parameters,
};

const MAX_SCRIPT_CHARS = 100_000;
const TOOLS = [RUN_SCRIPT_TOOL, FINISH_TOOL];
const DEPLOY_TOOLS = [RUN_SCRIPT_TOOL, FINISH_DEPLOY_TOOL];

/** The defaults of LlmStrategyOptions (see there), and the room kept in the prompt for a re-ask note. */
const DEFAULTS = { promptTokens: 8000, replyTokens: 4096, reasks: 2, reaskRoomChars: 600 } as const;

/** Why the model's part of the run ended without the verifiers passing. */
export type LlmStopCause = 'budget' | 'provider_error' | 'no_tool_call' | 'error';

export interface LlmStrategyOptions {
  /**
   * The run's model session: its provider is metered (every call checked against the run's budget and
   * counted, once), its secrets (the API key) never reach a prompt or a script: they are [REDACTED].
   */
  session: ModelSession;
  /** Retrieved build instructions; default: `loadInstructions`, else offline retrieval, on the first model turn. */
  instructions?: string;
  /** Fetches the instructions when the model is first needed (hybrid runs the rules first, at zero tokens). */
  loadInstructions?: (repo: RepoInfo) => Promise<string>;
  /** Prompt budget per turn in tokens (system + user + tool schemas, ~4 characters a token). Default 8000. */
  promptTokens?: number;
  /** Reply cap per call (default 4096 tokens). */
  maxTokens?: number;
  /** Re-asks per turn after a reply without a usable tool call (default 2). */
  maxReasks?: number;
  /** `debug`: -g -O0 and a debug build type; `release` (default): the project's default or release configuration. */
  buildType?: 'debug' | 'release';
  /** Where `make install` and friends go (default `<workdir>/_install`, inside the work tree). */
  installPrefix?: string;
  signal?: AbortSignal;
  prompts?: RenderOptions;
  /** Sees each model call of a turn: the prompt it was given and the reply (for recording and tests). */
  onModelCall?: (call: ModelCall) => void;
}

export interface ModelCall {
  turn: number;
  attempt: number;
  system: string;
  /** The user prompt as sent (with the correction, on a re-ask). */
  prompt: string;
  /** Estimated prompt tokens (system + prompt + tool schemas). */
  promptTokens: number;
  /** The compaction level the prompt needed (0: none). */
  level: number;
  reply: CompletionResult;
}

type Choice =
  | { tool: 'run'; script: string; purpose: string }
  | { tool: 'finish'; claim: 'success' | 'partial' | 'impossible'; reason: string };

function parseChoice(name: string, args: Record<string, unknown>): ParsedCall<Choice> {
  if (name === 'run_script') {
    const { script, purpose } = args;
    if (typeof script !== 'string' || script.trim() === '')
      return {
        ok: false,
        problem: 'run_script needs `script`: a non-empty string with the whole bash script',
      };
    if (script.length > MAX_SCRIPT_CHARS)
      return {
        ok: false,
        problem: `the script is longer than ${MAX_SCRIPT_CHARS} characters; write a shorter one`,
      };
    const label =
      typeof purpose === 'string' && purpose.trim() !== ''
        ? purpose.trim()
        : (firstComment(script) ?? 'model script');
    return { ok: true, value: { tool: 'run', script, purpose: label.replace(/\s+/g, ' ').slice(0, 120) } };
  }
  const { status, reason } = args;
  const claim = typeof status === 'string' ? status.trim().toLowerCase() : '';
  if (claim !== 'success' && claim !== 'partial' && claim !== 'impossible') {
    return { ok: false, problem: 'finish needs `status`: one of SUCCESS, PARTIAL, IMPOSSIBLE' };
  }
  if (typeof reason !== 'string' || reason.trim() === '')
    return { ok: false, problem: 'finish needs `reason`: a non-empty string' };
  return { ok: true, value: { tool: 'finish', claim, reason: reason.trim().slice(0, 2000) } };
}

function firstComment(script: string): string | undefined {
  const line = script.split('\n').find((l) => /^\s*#(?!!)\s*\S/.test(l));
  return line?.replace(/^\s*#\s*/, '').trim();
}

export class LlmStrategy implements Strategy {
  readonly name: string = 'llm';
  private instructions: string | undefined;
  private tree: string | undefined;
  private readonly notes: string[] = [];
  private stopped: { cause: LlmStopCause; reason: string } | undefined;

  constructor(private readonly options: LlmStrategyOptions) {
    this.instructions = options.instructions;
  }

  /** A note the model sees at the top of its history from now on (e.g. why the rules strategy stopped). */
  addNote(note: string): void {
    this.notes.push(note);
  }

  /** Adds the note rendered from `prompts/<name>.md` (the strategy's prompt files). */
  addPromptNote(name: string, vars: PromptVars): void {
    this.addNote(renderPrompt(name, vars, this.options.prompts).trimEnd());
  }

  /** Model usage so far, for result.json. */
  usage(): LlmUsage {
    return this.options.session.budget.usage();
  }

  async next(context: TurnContext): Promise<Action> {
    if (this.stopped) return this.finishAction(this.stopped.cause, this.stopped.reason);
    const spent = this.options.session.budget.exhausted();
    if (spent) return this.stop('budget', spent);

    if (this.instructions === undefined)
      this.instructions = this.options.loadInstructions
        ? await this.options.loadInstructions(context.repo)
        : (await offlineInstructions(context.repo)).instructions;
    this.tree ??= await topLevelTree(context.repo.root);

    const turn = this.turnPrompt(context, this.instructions, this.tree);
    let answer;
    try {
      answer = await askForTool(this.options.session.provider, {
        system: turn.system,
        prompt: turn.prompt,
        tools: turn.tools,
        maxTokens: this.options.maxTokens ?? DEFAULTS.replyTokens,
        maxReasks: this.options.maxReasks ?? DEFAULTS.reasks,
        parse: parseChoice,
        reask: (problem) => renderPrompt('reask', { problem }, this.options.prompts),
        signal: this.options.signal,
        onReply: (reply, attempt, request) =>
          this.options.onModelCall?.({
            turn: context.turn,
            attempt,
            system: turn.system,
            prompt: request.messages[0]?.role === 'user' ? request.messages[0].content : turn.prompt,
            promptTokens: estimateRequestTokens(request),
            level: turn.level,
            reply,
          }),
      });
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      if (error instanceof BudgetExceededError) return this.stop('budget', error.message);
      if (error instanceof ProviderError)
        return this.stop('provider_error', `the model provider failed: ${errorMessage(error)}`);
      return this.stop('error', `the model call failed: ${errorMessage(error)}`);
    }
    if (!answer.ok) {
      return this.stop(
        'no_tool_call',
        `the model gave no usable tool call in ${answer.attempts} attempts: ${answer.problem}`,
      );
    }
    return this.toAction(answer.value);
  }

  /**
   * The system prompt (`prompts/system.md` with the build rule of `prompts/build-rule-<type>.md`, or
   * `prompts/system-deploy.md` for a deploy run) and the turn's user prompt, compacted to fit the prompt
   * budget next to the system prompt, the tool schemas and room for a re-ask note; the secrets are scrubbed
   * from it.
   */
  private turnPrompt(
    context: TurnContext,
    instructions: string,
    tree: string,
  ): { system: string; prompt: string; level: number; tools: ToolSpec[] } {
    const prompts = this.options.prompts;
    const workdir = context.workdir;
    const tools = context.goal ? DEPLOY_TOOLS : TOOLS;
    const system = context.goal
      ? renderPrompt(
          'system-deploy',
          { workdir, envFile: `${workdir.replace(/\/+$/, '')}/${DEPLOY_ENV_FILE}` },
          prompts,
        )
      : this.buildSystemPrompt(workdir);
    const fixedChars = system.length + JSON.stringify(tools).length;
    const promptTokens = this.options.promptTokens ?? DEFAULTS.promptTokens;
    const budgetChars = promptTokens * CHARS_PER_TOKEN - fixedChars - DEFAULTS.reaskRoomChars;
    const built = buildTurnPrompt({ context, instructions, tree, notes: this.notes, prompts }, budgetChars);
    return {
      system,
      prompt: scrub(built.text, this.options.session.secrets),
      level: built.level,
      tools,
    };
  }

  private buildSystemPrompt(workdir: string): string {
    const prompts = this.options.prompts;
    const prefix = this.options.installPrefix ?? `${workdir.replace(/\/+$/, '')}/_install`;
    const rule = renderPrompt(`build-rule-${this.options.buildType ?? 'release'}`, {}, prompts);
    return renderPrompt('system', { workdir, prefix, buildRule: rule.trimEnd() }, prompts);
  }

  /** The model's tool call as an action, with the secrets scrubbed from what it wrote. */
  private toAction(choice: Choice): Action {
    const secrets = this.options.session.secrets;
    if (choice.tool === 'finish')
      return { kind: 'finish', claim: choice.claim, reason: scrub(choice.reason, secrets) };
    const purpose = scrub(choice.purpose, secrets);
    return { kind: 'run', script: scrub(choice.script, secrets), purpose, reason: `model: ${purpose}` };
  }

  private stop(cause: LlmStopCause, reason: string): Action {
    this.stopped = { cause, reason };
    if (cause === 'budget') this.options.session.budget.stop(reason);
    return this.finishAction(cause, reason);
  }

  /**
   * The finish action that ends the model's part: PARTIAL for a spent budget, else IMPOSSIBLE; a budget or
   * provider stop carries its typed `StrategyStop`, which the loop turns into its end.
   */
  private finishAction(cause: LlmStopCause, reason: string): Action {
    const claim = cause === 'budget' ? 'partial' : 'impossible';
    if (cause === 'budget' || cause === 'provider_error')
      return { kind: 'finish', claim, reason, stop: { cause, reason } };
    return { kind: 'finish', claim, reason };
  }
}
