/**
 * Model prices are DATA (`src/llm/prices.yaml`, or a file of the same shape given by the user): dollars per
 * million input and output tokens, per provider and model-name prefix.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../base/errors.js';
import type { TokenUsage } from './types.js';

/**
 * The shipped table. Resolved against this module so that it works from `src/llm/` (tsx, jest) and from the
 * compiled `lib/llm/` alike: both are two levels below the repository root.
 */
export const DEFAULT_PRICES_URL = new URL('../../src/llm/prices.yaml', import.meta.url);

/** Dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
}

export class PriceTable {
  constructor(private readonly entries: Readonly<Record<string, Readonly<Record<string, Price>>>>) {}

  /** The price for `model` of `provider`: the longest entry that equals the name or prefixes it before a `-`. */
  lookup(provider: string, model: string): Price | undefined {
    const table = this.entries[provider];
    if (!table) return undefined;
    let best: { name: string; price: Price } | undefined;
    for (const [name, price] of Object.entries(table)) {
      if (model === name || model.startsWith(`${name}-`)) {
        if (!best || name.length > best.name.length) best = { name, price };
      }
    }
    return best?.price;
  }

  /** Cost of one call in dollars, or undefined when the model has no price. */
  cost(provider: string, model: string, usage: TokenUsage): number | undefined {
    const price = this.lookup(provider, model);
    if (!price) return undefined;
    return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
  }
}

/** Parses and validates a price file (`source` names it in errors). */
export function parsePriceTable(text: string, source: string): PriceTable {
  const fail = (message: string): never => {
    throw new ConfigError(
      `${source}: ${message}`,
      'expected YAML like `openai: { gpt-4o-mini: { input: 0.15, output: 0.6 } }` (dollars per million tokens)',
    );
  };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    fail(`not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    fail('the top level must map provider names to models');
  const entries: Record<string, Record<string, Price>> = {};
  for (const [provider, models] of Object.entries(doc as Record<string, unknown>)) {
    if (models === null || typeof models !== 'object' || Array.isArray(models))
      fail(`'${provider}' must map model names to prices`);
    entries[provider] = {};
    for (const [model, price] of Object.entries(models as Record<string, unknown>)) {
      const p = price as Record<string, unknown> | null;
      const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
      if (p === null || typeof p !== 'object' || !ok(p.input) || !ok(p.output)) {
        fail(`'${provider}.${model}' needs non-negative numbers 'input' and 'output'`);
      }
      entries[provider][model] = { input: p!.input as number, output: p!.output as number };
    }
  }
  return new PriceTable(entries);
}

let shipped: PriceTable | undefined;

/** Reads a price file; without an argument, the shipped table (read once). */
export function loadPriceTable(location?: string | URL): PriceTable {
  if (location === undefined && shipped) return shipped;
  const where = location ?? DEFAULT_PRICES_URL;
  const name = typeof where === 'string' ? where : where.pathname;
  let text: string;
  try {
    text = readFileSync(where, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the price table ${name}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const table = parsePriceTable(text, name);
  if (location === undefined) shipped = table;
  return table;
}
