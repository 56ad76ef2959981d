/**
 * JavaScript (Node): `package.json` (dependencies, devDependencies, optionalDependencies, `engines.node`)
 * and its lock file (package-lock.json / npm-shrinkwrap.json for `npm ci`, yarn.lock, pnpm-lock.yaml).
 * Only the root package.json counts: deeper ones are examples, workspaces or vendored tools (noted).
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import { readManifest } from './manifest-files.js';

export const JS_LOCK_FILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
] as const;

type Deps = Record<string, unknown>;

function depsOf(value: unknown): [string, string | undefined][] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Deps).map(([name, v]) => [name, typeof v === 'string' ? v : undefined]);
}

/** Structurally an `EcosystemDetector` (index.ts), which lists it; not imported from there to keep files acyclic. */
export const javascriptDetector = {
  kind: 'javascript' as const,
  async detect(root: string, files: readonly string[]): Promise<EcosystemInfo | undefined> {
    if (!files.includes('package.json')) return undefined;
    const info: EcosystemInfo = {
      kind: 'javascript',
      manifests: ['package.json'],
      dependencies: [],
      notes: [],
    };
    const text = await readManifest(root, 'package.json');
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text ?? '') as Record<string, unknown>;
    } catch {
      info.notes.push('package.json is not valid JSON');
      return info;
    }
    const sections: [string, Partial<DeclaredDependency>][] = [
      ['dependencies', {}],
      ['optionalDependencies', { optional: true }],
      ['devDependencies', { dev: true }],
    ];
    for (const [section, extra] of sections) {
      for (const [name, version] of depsOf(doc[section])) {
        if (info.dependencies.some((d) => d.name === name)) continue;
        info.dependencies.push({
          name,
          ...(version && version !== '*' ? { constraint: version } : {}),
          manifest: `package.json (${section})`,
          ...extra,
        });
      }
    }
    const engines = doc.engines as { node?: unknown } | undefined;
    info.runtime =
      typeof engines?.node === 'string'
        ? { name: 'node', version: engines.node, why: `package.json engines.node is ${engines.node}` }
        : { name: 'node', why: "no engines.node; Debian's nodejs" };
    const lock = JS_LOCK_FILES.find((f) => files.includes(f));
    if (lock) info.manifests.push(lock);
    if (lock && lock !== 'package-lock.json' && lock !== 'npm-shrinkwrap.json') {
      info.notes.push(
        `${lock} is not npm's lock file; npm resolves from package.json (versions may differ from the lock)`,
      );
    }
    if (doc.workspaces) info.notes.push('package.json declares workspaces');
    const nested = files.filter((f) => f.endsWith('/package.json') && !f.includes('node_modules/')).length;
    if (nested > 0) info.notes.push(`${nested} package.json file(s) below the root are not set up`);
    const scripts = doc.scripts as Record<string, unknown> | undefined;
    if (files.includes('binding.gyp'))
      info.notes.push('binding.gyp: a native addon that npm builds on install');
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
      if (typeof scripts?.[hook] === 'string')
        info.notes.push(
          `package.json runs a ${hook} script on install: ${String(scripts[hook]).slice(0, 80)}`,
        );
    }
    return info;
  },
};
