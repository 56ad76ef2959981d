/**
 * Rules first, then the model: the RulesStrategy's recipes and repairs run as long as they have something to
 * try (and within their share of the turns); when they would finish without success, the model takes over
 * with the rules' attempts in its history and a note on why the rules stopped (`prompts/handoff-*.md`).
 */
import type { Action, Strategy, TurnContext } from '../types.js';
import type { LlmUsage } from '../../llm/budget.js';
import { NO_KNOWLEDGE, type RepairKnowledge, type StrategyServices } from '../../knowledge/repair/repair.js';
import { RulesStrategy } from './rules.js';
import { LlmStrategy, type LlmStrategyOptions } from './llm.js';

export interface HybridOptions {
  /** Turns the rules may use before the model takes over (default: half of the run's turns, rounded up). */
  rulesTurns?: number;
}

export class HybridStrategy implements Strategy {
  readonly name = 'hybrid';
  private phase: 'rules' | 'model' = 'rules';
  /** The turn the model took over, if it did. */
  handoffTurn: number | undefined;

  constructor(
    private readonly rules: Strategy,
    private readonly model: LlmStrategy,
    private readonly options: HybridOptions = {},
  ) {}

  /** The rules strategy built from the same knowledge and services as `rules`, and an LLM strategy. */
  static create(
    knowledge: RepairKnowledge = NO_KNOWLEDGE,
    services: StrategyServices,
    llm: LlmStrategyOptions,
    options: HybridOptions = {},
  ): HybridStrategy {
    return new HybridStrategy(new RulesStrategy(knowledge, services), new LlmStrategy(llm), options);
  }

  async next(context: TurnContext): Promise<Action> {
    if (this.phase === 'rules') {
      const share = this.options.rulesTurns ?? Math.ceil(context.maxTurns / 2);
      if (context.turn < share) {
        const action = await this.rules.next(context);
        if (action.kind === 'run' || action.claim === 'success') return action;
        if (context.turn === 0) this.model.addPromptNote('handoff-nothing-to-try', { reason: action.reason });
        else
          this.model.addPromptNote('handoff-rules-stopped', {
            lastTurn: context.turn,
            reason: action.reason,
          });
      } else {
        this.model.addPromptNote('handoff-turns-used', { turns: share });
      }
      this.phase = 'model';
      this.handoffTurn = context.turn;
    }
    return this.model.next(context);
  }

  usage(): LlmUsage {
    return this.model.usage();
  }
}
