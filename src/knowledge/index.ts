import type { Sandbox } from '../sandbox/types.js';
import { NO_KNOWLEDGE, type RepairKnowledge, type StrategyServices } from './repair.js';

/** The repair knowledge base used by the rules strategy. */
export function createKnowledge(): RepairKnowledge {
  return NO_KNOWLEDGE;
}

/** Read-only services backed by the sandbox (package index look-ups). */
export function createServices(_sandbox: Sandbox): StrategyServices {
  return {};
}
