import type { Strategy } from '../types.js';
import type { RepoInfo } from '../../repo/types.js';
import type { ModelSession } from '../../llm/session.js';
import { ConfigError } from '../../base/errors.js';
import type { RepairKnowledge, StrategyServices } from '../../knowledge/repair/repair.js';
import { BaselineStrategy } from './baseline.js';
import { RulesStrategy } from './rules.js';
import { createLlmStrategy, type ModelStrategy } from './model.js';

/** The strategies a run can use (`--strategy`, input strategy). */
export const STRATEGY_CHOICES = ['rules', 'baseline', 'llm', 'hybrid'] as const;
export type StrategyChoice = (typeof STRATEGY_CHOICES)[number];

export interface StrategyDeps {
  knowledge: RepairKnowledge;
  services: StrategyServices;
  /** The model session, for `llm` and `hybrid`. */
  session?: ModelSession;
  /** Retrieved build instructions, for the model. */
  instructions?: string;
  /** Retrieval deferred to the first model turn. */
  loadInstructions?: (repo: RepoInfo) => Promise<string>;
  signal?: AbortSignal;
  /** The rules strategy installs declared dependencies before its first recipe (default true). */
  preinstall?: boolean;
}

/** Picks the strategy named in the settings. */
export function createStrategy(choice: StrategyChoice, deps: StrategyDeps): Strategy | ModelStrategy {
  switch (choice) {
    case 'baseline':
      return new BaselineStrategy();
    case 'rules':
      return new RulesStrategy(deps.knowledge, deps.services, { preinstall: deps.preinstall ?? true });
    case 'llm':
    case 'hybrid':
      if (!deps.session)
        throw new ConfigError(`--strategy ${choice} needs a model`, 'pass --model provider:model');
      return createLlmStrategy(choice, {
        session: deps.session,
        knowledge: deps.knowledge,
        services: deps.services,
        instructions: deps.instructions,
        loadInstructions: deps.loadInstructions,
        signal: deps.signal,
      });
  }
}
