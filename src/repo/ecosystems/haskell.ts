/**
 * Haskell: *.cabal (`build-depends` of every component; test-suite and benchmark components are dev), the
 * GHC the package says it is tested with (`tested-with: GHC == 9.2.8`), stack.yaml's resolver (a Stackage
 * snapshot pins every version and a GHC), and hpack's package.yaml (its `dependencies` lists). Base
 * libraries that come with GHC (`base`, `containers`, …) are declared like any other and kept.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { lineRef, manifestsNamed, manifestsWhere, readManifest } from './manifest-files.js';

export const haskellDetector: EcosystemDetector = {
  kind: 'haskell',
  async detect(root, files) {
    const cabals = manifestsWhere(files, (base) => base.endsWith('.cabal'));
    const stack = manifestsNamed(files, 'stack.yaml')[0];
    const hpack = manifestsNamed(files, 'package.yaml')[0];
    if (cabals.length === 0 && !stack && !(hpack && files.some((f) => f.endsWith('.hs')))) return undefined;
    const info: EcosystemInfo = { kind: 'haskell', manifests: [...cabals], dependencies: [], notes: [] };
    for (const manifest of cabals) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      info.dependencies.push(...cabalDependencies(manifest, text));
      const ghc = /^tested-with:\s*.*?GHC\s*==\s*([\d.]+)/im.exec(text)?.[1];
      if (ghc && !info.runtime)
        info.runtime = { name: 'ghc', version: ghc, why: `tested-with GHC == ${ghc} in ${manifest}` };
    }
    if (hpack && cabals.length === 0) {
      info.manifests.push(hpack);
      const text = (await readManifest(root, hpack)) ?? '';
      for (const m of text.matchAll(/^\s*-\s*([A-Za-z][\w-]*)\s*([<>=^][^\n#]*)?$/gm)) {
        const dep: DeclaredDependency = { name: m[1] as string, manifest: lineRef(hpack, text, m.index) };
        if (m[2]?.trim()) dep.constraint = m[2].trim();
        info.dependencies.push(dep);
      }
      info.notes.push(`${hpack} is hpack's format: hpack (or stack) writes the .cabal file from it`);
    }
    if (stack) {
      info.manifests.push(stack);
      const text = (await readManifest(root, stack)) ?? '';
      const resolver = /^(?:resolver|snapshot):\s*(\S+)/m.exec(text)?.[1];
      if (resolver)
        info.notes.push(
          `${stack} pins the Stackage snapshot ${resolver} (its GHC and every package version)`,
        );
    }
    const seen = new Set<string>();
    info.dependencies = info.dependencies.filter(
      (d) => !seen.has(`${d.name}|${d.dev ? 1 : 0}`) && Boolean(seen.add(`${d.name}|${d.dev ? 1 : 0}`)),
    );
    return info;
  },
};

/** `build-depends:` fields (continued on more-indented lines) of every component, test suites as dev. */
export function cabalDependencies(manifest: string, text: string): DeclaredDependency[] {
  const out: DeclaredDependency[] = [];
  const lines = text.split('\n');
  let dev = false;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const here = offset;
    offset += line.length + 1;
    if (/^(test-suite|benchmark)\b/i.test(line)) dev = true;
    else if (/^(library|executable|foreign-library|common)\b/i.test(line)) dev = false;
    const m = /^(\s*)build-depends\s*:(.*)$/i.exec(line);
    if (!m) continue;
    const indent = (m[1] as string).length;
    let body = m[2] as string;
    while (i + 1 < lines.length) {
      const next = lines[i + 1] as string;
      if (next.trim() === '' || next.trim().startsWith('--')) {
        i++;
        offset += next.length + 1;
        continue;
      }
      if ((/^\s*/.exec(next)?.[0].length ?? 0) <= indent) break;
      body += `,${next}`;
      i++;
      offset += next.length + 1;
    }
    for (const part of body.split(',')) {
      const d = /^\s*([A-Za-z][\w-]*)(?::[\w{},\s-]+)?\s*(.*?)\s*$/.exec(part.replace(/--.*$/, ''));
      if (!d) continue;
      const dep: DeclaredDependency = { name: d[1] as string, manifest: lineRef(manifest, text, here) };
      if (d[2]) dep.constraint = d[2];
      if (dev) dep.dev = true;
      out.push(dep);
    }
  }
  return out;
}
