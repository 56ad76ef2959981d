/**
 * `src/knowledge/` owns what the engine knows about build failures, in two jobs: `diagnose/` reads a build
 * log against the signature catalog (`verifiers/signatures.yaml`) and names the root cause as a `Finding`;
 * `repair/` maps a finding to general repairs (rules by family, their tables in `verifiers/repairs.yaml`) and
 * resolves missing files to Debian/Ubuntu packages from the sandbox's own index. This file wires the repair
 * knowledge and its read-only sandbox services for the composition root. It imports only `base/`, `recipe/`
 * and `repo/` types, and the `Sandbox` interface.
 */
import type { Sandbox } from '../sandbox/types.js';
import type { RepairKnowledge, StrategyServices } from './repair/repair.js';
import { RuleKnowledge } from './repair/rules/index.js';
import { resolvePackages, sandboxRunner } from './repair/packages.js';
import type { Resolution } from './repair/needs.js';

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
    findHeaders: (header) => findHeaders(sandbox, header),
    knownPackages: (names) => knownPackages(sandbox, names),
  };
}

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]*[a-z0-9+]$/;

/**
 * Those of `names` the sandbox's package index has (`apt-cache show`), in the order given; the index is
 * fetched first when the sandbox has none yet. Names that are not package names are never passed to the shell.
 */
export async function knownPackages(
  sandbox: Pick<Sandbox, 'exec'>,
  names: readonly string[],
): Promise<string[]> {
  const valid = [...new Set(names)].filter((n) => PACKAGE_NAME.test(n)).slice(0, 200);
  if (valid.length === 0) return [];
  const script = [
    'export DEBIAN_FRONTEND=noninteractive',
    "[ -n \"$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' || true)\" ] || apt-get update -q >/dev/null 2>&1 || true",
    `for p in ${valid.join(' ')}; do apt-cache show "$p" >/dev/null 2>&1 && echo "known:$p"; done; true`,
  ].join('\n');
  const result = await sandbox.exec(script, { timeoutMs: 180_000 });
  const known = new Set(
    result.output
      .split('\n')
      .map((line) => /^known:(\S+)$/.exec(line.trim())?.[1])
      .filter((n): n is string => n !== undefined),
  );
  return valid.filter((n) => known.has(n));
}

/** A header name that is safe in a `find -path` pattern: no globs, no `..`, relative. */
const HEADER_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*(?:\/[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)*$/;

/** Installed copies of `header` anywhere under the system include directories, read-only. */
export async function findHeaders(sandbox: Pick<Sandbox, 'exec'>, header: string): Promise<string[]> {
  if (!HEADER_NAME.test(header)) return [];
  const script = `find /usr/include /usr/local/include -path '*/${header}' \\( -type f -o -type l \\) 2>/dev/null | head -n 50`;
  const result = await sandbox.exec(script, { timeoutMs: 60_000 });
  return result.output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('/') && line.endsWith(`/${header}`));
}
