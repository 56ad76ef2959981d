import type { Strategy } from '../types.js';
import type { StrategyChoice } from '../../core/settings.js';
import type { RepairKnowledge, StrategyServices } from '../../knowledge/repair.js';
import { BaselineStrategy } from './baseline.js';
import { RulesStrategy } from './rules.js';

export function createStrategy(
  choice: StrategyChoice,
  deps: { knowledge: RepairKnowledge; services: StrategyServices },
): Strategy {
  switch (choice) {
    case 'baseline':
      return new BaselineStrategy();
    case 'rules':
      return new RulesStrategy(deps.knowledge, deps.services);
  }
}
