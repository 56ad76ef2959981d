/**
 * Token and dollar budgets for model calls, enforced by the harness: the session's metered provider
 * (session.ts) refuses to call the model once the budget is spent (or when the next prompt alone would
 * overrun it), so no strategy can spend past it by forgetting to check.
 */
import { BuildbenchError } from '../base/errors.js';
import { CHARS_PER_TOKEN, type CompletionRequest, type CompletionResult } from './types.js';

export interface BudgetLimits {
  /** Input plus output tokens over all calls. */
  maxTokens?: number;
  /** Dollars over all calls (only priced models count; see `unpricedCalls`). */
  maxCostUsd?: number;
}

/** Model usage for result.json. */
export interface LlmUsage {
  calls: number;
  /** Calls that raised an error after the client's retries (no usage reported). */
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  costUsd: number;
  /** Calls to a model with no entry in the price table: their cost is not in `costUsd`. */
  unpricedCalls: number;
  /** Why the budget stopped further calls, when it did. */
  exhausted?: string;
}

/** Thrown by a metered provider instead of calling the model. Strategies turn it into finish(partial). */
export class BudgetExceededError extends BuildbenchError {}

const fmtTokens = (n: number): string => n.toLocaleString('en-US');
const fmtDollars = (n: number): string => `$${n >= 1 ? n.toFixed(2) : n.toFixed(4)}`;

export class Budget {
  private calls = 0;
  private failed = 0;
  private input = 0;
  private output = 0;
  private cost = 0;
  private unpriced = 0;
  private stopped: string | undefined;

  constructor(readonly limits: BudgetLimits = {}) {}

  record(result: Pick<CompletionResult, 'usage' | 'costUsd' | 'priced'>): void {
    this.calls++;
    this.input += result.usage.inputTokens;
    this.output += result.usage.outputTokens;
    this.cost += result.costUsd;
    if (!result.priced) this.unpriced++;
  }

  recordFailure(): void {
    this.failed++;
  }

  /** Why no further call may be made, or undefined while there is budget left. */
  exhausted(): string | undefined {
    const { maxTokens, maxCostUsd } = this.limits;
    const tokens = this.input + this.output;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      return `token budget exhausted: ${fmtTokens(tokens)} of ${fmtTokens(maxTokens)} tokens used`;
    }
    if (maxCostUsd !== undefined && this.cost >= maxCostUsd) {
      return `cost budget exhausted: ${fmtDollars(this.cost)} of ${fmtDollars(maxCostUsd)} spent`;
    }
    return undefined;
  }

  /** Why a call with about `promptTokens` of input may not be made now, or undefined when it may. */
  refuse(promptTokens: number): string | undefined {
    const spent = this.exhausted();
    if (spent) return spent;
    const { maxTokens } = this.limits;
    const tokens = this.input + this.output;
    if (maxTokens !== undefined && tokens + promptTokens > maxTokens) {
      return `token budget exhausted: the next prompt (~${fmtTokens(promptTokens)} tokens) would pass the budget (${fmtTokens(tokens)} of ${fmtTokens(maxTokens)} used)`;
    }
    return undefined;
  }

  /** Marks the budget as what ended the model's part of the run. */
  stop(reason: string): void {
    this.stopped ??= reason;
  }

  usage(): LlmUsage {
    return {
      calls: this.calls,
      failedCalls: this.failed,
      inputTokens: this.input,
      outputTokens: this.output,
      totalTokens: this.input + this.output,
      costUsd: Math.round(this.cost * 1e6) / 1e6,
      unpricedCalls: this.unpriced,
      ...(this.stopped ? { exhausted: this.stopped } : {}),
    };
  }
}

/** Rough size of a request's prompt in tokens (system, messages and tool schemas). */
export function estimateRequestTokens(
  request: Pick<CompletionRequest, 'system' | 'messages' | 'tools'>,
): number {
  let chars = request.system.length + JSON.stringify(request.tools).length;
  for (const m of request.messages) {
    chars +=
      m.role === 'assistant'
        ? (m.content ?? '').length + JSON.stringify(m.toolCalls ?? []).length
        : m.content.length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
