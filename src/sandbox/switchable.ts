/**
 * One handle on a run's sandbox whose sandbox can be replaced by a fresh one between commands (a repair
 * turn run in a fresh sandbox from the untouched repository, core/stages/fresh-turn.ts). Everything that
 * holds the handle (the loop, the strategy's package look-ups, the final checks, the cleanup) reaches the
 * current sandbox; the egress record covers every sandbox the handle held, as the run's record must.
 */
import type { EgressHost, EgressRecord } from './isolation.js';
import type { Sandbox } from './types.js';

export interface SwitchableSandbox {
  /** The handle: every property and method is the current sandbox's. */
  readonly sandbox: Sandbox;
  /** The current sandbox itself (its own egress record, not the handle's merged one). */
  readonly current: Sandbox;
  /**
   * Makes `next` the current sandbox and returns the one it replaces (the caller disposes it). `egress`: the
   * replaced one's record, read before it was disposed (default: read now).
   */
  replace(next: Sandbox, egress?: EgressRecord): Sandbox;
}

/** The hosts of several egress records, each host once (its ports and how it was seen merged). */
export function mergeEgress(records: readonly EgressRecord[]): EgressRecord | undefined {
  if (records.length === 0) return undefined;
  const hosts = new Map<string, EgressHost>();
  for (const record of records) {
    for (const h of record.hosts) {
      const seen = hosts.get(h.host);
      hosts.set(
        h.host,
        seen
          ? {
              ...seen,
              ports: [...new Set([...seen.ports, ...h.ports])].sort((a, b) => a - b),
              seenBy: [...new Set([...seen.seenBy, ...h.seenBy])].sort(),
              ...(seen.connections !== undefined || h.connections !== undefined
                ? { connections: (seen.connections ?? 0) + (h.connections ?? 0) }
                : {}),
              ...((seen.refused ?? h.refused) ? { refused: seen.refused ?? h.refused } : {}),
            }
          : { ...h },
      );
    }
  }
  return {
    method: records.every((r) => r.method === 'proxy+logs') ? 'proxy+logs' : 'logs',
    hosts: [...hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0)),
    notes: [...new Set(records.flatMap((r) => r.notes))],
  };
}

export function switchableSandbox(initial: Sandbox): SwitchableSandbox {
  let current = initial;
  /** The egress records of the sandboxes replaced so far (read before they are disposed). */
  const retired: EgressRecord[] = [];
  const egress = (): EgressRecord | undefined =>
    mergeEgress([...retired, ...(current.egress ? [current.egress()] : [])]);
  const sandbox = new Proxy(initial, {
    get(_target, property) {
      if (property === 'egress') return current.egress || retired.length > 0 ? egress : undefined;
      const value: unknown = Reflect.get(current, property, current);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
    set(_target, property, value) {
      return Reflect.set(current, property, value, current);
    },
    has(_target, property) {
      return Reflect.has(current, property);
    },
  });
  return {
    sandbox,
    get current(): Sandbox {
      return current;
    },
    replace(next: Sandbox, record?: EgressRecord): Sandbox {
      const old = current;
      const kept = record ?? old.egress?.();
      if (kept) retired.push(kept);
      current = next;
      return old;
    },
  };
}
