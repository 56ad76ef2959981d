/**
 * The repair rules, assembled: each family file (packages, cmake, autotools, flags, glibc, gpu, kernel, layout, prose, python,
 * deploy-langs)
 * exports a `Rule[]` naming the signature ids it answers; this index joins them into one table by id (an id
 * claimed twice is an error) and applies it to a failure.
 */
import type { Repair, RepairInput, RepairKnowledge, StrategyServices } from '../repair.js';
import { defaultRepairTables, type RepairTables } from '../tables.js';
import { AUTOTOOLS_RULES } from './autotools.js';
import { CMAKE_RULES } from './cmake.js';
import { DEPLOY_LANG_RULES } from './deploy-langs.js';
import { CMAKE_FIND_RULES } from './cmake-find.js';
import { FLAG_RULES } from './flags.js';
import { GLIBC_RULES } from './glibc.js';
import { GPU_RULES } from './gpu.js';
import { genericRepairs } from './generic.js';
import { KERNEL_RULES } from './kernel.js';
import { LAYOUT_RULES } from './layout.js';
import { PARALLEL_RULES } from './parallel.js';
import { LEGACY_API_RULES } from './legacy-apis.js';
import { PACKAGE_RULES } from './packages.js';
import { PROSE_RULES } from './prose.js';
import { PYTHON_RULES } from './python.js';
import { RULE_LIMITS, type Rule, type RuleFn } from './rule.js';

/** Every rule, by family. */
export const RULES: readonly Rule[] = [
  ...PACKAGE_RULES,
  ...CMAKE_RULES,
  ...CMAKE_FIND_RULES,
  ...AUTOTOOLS_RULES,
  ...FLAG_RULES,
  ...GLIBC_RULES,
  ...GPU_RULES,
  ...LAYOUT_RULES,
  ...PARALLEL_RULES,
  ...PROSE_RULES,
  ...PYTHON_RULES,
  ...DEPLOY_LANG_RULES,
  ...KERNEL_RULES,
  ...LEGACY_API_RULES,
];

/** Signature id → its rule; throws when two rules claim one id. */
export function rulesById(rules: readonly Rule[]): ReadonlyMap<string, RuleFn> {
  const byId = new Map<string, RuleFn>();
  for (const rule of rules) {
    for (const id of rule.ids) {
      if (byId.has(id)) throw new Error(`two repair rules claim the signature id "${id}"`);
      byId.set(id, rule.propose);
    }
  }
  return byId;
}

const BY_ID = rulesById(RULES);

/** The embedded knowledge: one rule per signature id, applied to the root cause and then to other findings. */
export class RuleKnowledge implements RepairKnowledge {
  constructor(private readonly tables: RepairTables = defaultRepairTables()) {}

  get shippedSources(): RepairTables['shippedSources'] {
    return this.tables.shippedSources;
  }

  async propose(input: RepairInput, services: StrategyServices): Promise<Repair[]> {
    const out: Repair[] = [];
    const seen = new Set<string>();
    const context = { services, tables: this.tables };
    const ordered = [
      input.rootCause,
      ...input.findings.filter((f) => f !== input.rootCause && !f.followUp),
    ].slice(0, RULE_LIMITS.findingsTried);
    const add = (repairs: Repair[]): void => {
      for (const repair of repairs) {
        if (!seen.has(repair.key)) {
          seen.add(repair.key);
          out.push(repair);
        }
      }
    };
    for (const finding of ordered) {
      const rule = BY_ID.get(finding.id);
      if (!rule) continue;
      add(await rule(finding, input, context));
      if (out.length > 0 && finding === input.rootCause) break;
    }
    // The generic moves (rules/generic.ts) for the root cause come after its rule's plans: the strategy takes
    // the first plan it has not applied, so a move runs when the rules have none left.
    add(await genericRepairs(input.rootCause, input, context));
    return out;
  }
}

/** Signature ids the knowledge base has a rule for (tests check every one names a catalog signature). */
export function knownSignatureIds(): string[] {
  return [...BY_ID.keys()];
}
