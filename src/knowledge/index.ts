import type { Sandbox } from '../sandbox/types.js';
import type { RepairKnowledge, StrategyServices } from './repair.js';
import { RuleKnowledge } from './repair-rules.js';
import { resolvePackages, sandboxRunner, type Resolution } from './packages.js';

/** The repair knowledge base used by the rules strategy. */
export function createKnowledge(): RepairKnowledge {
  return new RuleKnowledge();
}

/** Read-only services backed by the sandbox: package look-ups in the sandbox's own package index. */
export function createServices(sandbox: Sandbox): StrategyServices {
  const cache = new Map<string, Resolution>();
  const runner = sandboxRunner(sandbox);
  return {
    resolvePackages: (needs) => resolvePackages(needs, runner, { cache }),
  };
}
