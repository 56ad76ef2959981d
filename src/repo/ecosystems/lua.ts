/**
 * Lua: *.rockspec (LuaRocks): its `dependencies` list, where `lua >= 5.1` is the runtime and every other
 * entry a rock; `test_dependencies` are dev. A rockspec is Lua code, read here as text only.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { lineRef, manifestsWhere, readManifest } from './manifest-files.js';

export const luaDetector: EcosystemDetector = {
  kind: 'lua',
  async detect(root, files) {
    const rockspecs = manifestsWhere(files, (base) => base.endsWith('.rockspec'));
    if (rockspecs.length === 0) return undefined;
    const info: EcosystemInfo = { kind: 'lua', manifests: rockspecs, dependencies: [], notes: [] };
    for (const manifest of rockspecs) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      for (const [field, dev] of [
        ['dependencies', false],
        ['test_dependencies', true],
      ] as const) {
        const block = new RegExp(`(?:^|\\n)\\s*${field}\\s*=\\s*\\{([^}]*)\\}`).exec(text);
        if (!block) continue;
        for (const m of (block[1] as string).matchAll(/["']([^"']+)["']/g)) {
          const spec = /^\s*([\w.-]+)\s*(.*)$/.exec(m[1] as string);
          if (!spec) continue;
          const name = spec[1] as string;
          const constraint = (spec[2] as string).trim();
          if (name === 'lua') {
            info.runtime ??= {
              name: 'lua',
              version: constraint || undefined,
              why: `"${m[1]}" in ${manifest}`,
            };
            continue;
          }
          const dep: DeclaredDependency = {
            name,
            manifest: lineRef(manifest, text, block.index + (m.index ?? 0)),
          };
          if (constraint) dep.constraint = constraint;
          if (dev) dep.dev = true;
          info.dependencies.push(dep);
        }
      }
    }
    return info;
  },
};
