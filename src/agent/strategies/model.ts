/**
 * The model-driven strategies on top of a model session (`llm/session.ts`): `createLlmStrategy` builds the
 * `llm` or `hybrid` strategy.
 */
import type { ModelSession } from '../../llm/session.js';
import type { RepairKnowledge, StrategyServices } from '../../knowledge/repair/repair.js';
import { HybridStrategy, type HybridOptions } from './hybrid.js';
import { LlmStrategy, type LlmStrategyOptions } from './llm.js';

/** The model-driven strategies: what `createStrategy` returns for `llm` and `hybrid`. */
export type ModelStrategy = LlmStrategy | HybridStrategy;

export interface CreateLlmStrategyDeps {
  session: ModelSession;
  /** For `hybrid`: the same knowledge and services as the rules strategy. */
  knowledge: RepairKnowledge;
  services: StrategyServices;
  /** Retrieved instructions (`retrieveInstructions(...).instructions`); default: offline retrieval. */
  instructions?: string;
  /** Retrieval deferred to the first model turn (hybrid spends no tokens when the rules succeed). */
  loadInstructions?: LlmStrategyOptions['loadInstructions'];
  signal?: AbortSignal;
  /** Everything else of LlmStrategyOptions (prompt budget, build type, install prefix, re-asks, hooks). */
  llm?: Omit<LlmStrategyOptions, 'session' | 'instructions' | 'signal'>;
  hybrid?: HybridOptions;
}

export function createLlmStrategy(kind: 'llm' | 'hybrid', deps: CreateLlmStrategyDeps): ModelStrategy {
  const options: LlmStrategyOptions = {
    ...deps.llm,
    session: deps.session,
    instructions: deps.instructions,
    loadInstructions: deps.loadInstructions,
    signal: deps.signal,
  };
  return kind === 'llm'
    ? new LlmStrategy(options)
    : HybridStrategy.create(deps.knowledge, deps.services, options, deps.hybrid);
}
