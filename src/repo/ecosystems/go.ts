/**
 * Go: go.mod (the module path, the `go` and `toolchain` directives, `require` lines and blocks, `replace`),
 * go.sum, go.work, and a vendor/ tree (vendor/modules.txt: the build then uses -mod=vendor and needs no
 * module download). Indirect requirements are kept, marked optional: the build needs them, the code does not
 * name them. The runtime is the `toolchain` directive, else the `go` directive (the minimum Go release).
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { lineRef, manifestsNamed, readManifest } from './manifest-files.js';

/** One requirement line: `path version [// indirect]`. */
const REQUIRE = /^\s*([^\s()]+)\s+(v[^\s]+)(\s*\/\/\s*indirect)?/;

export const goDetector: EcosystemDetector = {
  kind: 'go',
  async detect(root, files) {
    const mods = manifestsNamed(files, 'go.mod');
    if (mods.length === 0) return undefined;
    const info: EcosystemInfo = { kind: 'go', manifests: [...mods], dependencies: [], notes: [] };
    const own = new Set<string>();
    for (const manifest of mods) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      const parsed = parseGoMod(manifest, text);
      if (parsed.module) own.add(parsed.module);
      info.dependencies.push(...parsed.requires);
      info.notes.push(...parsed.notes);
      if (!info.runtime && (parsed.toolchain || parsed.go)) {
        info.runtime = parsed.toolchain
          ? {
              name: 'go',
              version: parsed.toolchain.replace(/^go/, ''),
              why: `toolchain ${parsed.toolchain} in ${manifest}`,
            }
          : {
              name: 'go',
              version: `>=${parsed.go}`,
              why: `go ${parsed.go} in ${manifest} (the oldest Go release it may build with)`,
            };
      }
    }
    // Modules of the same repository (a multi-module tree) are not downloads.
    info.dependencies = info.dependencies.filter((d) => !own.has(d.name));
    for (const extra of ['go.sum', 'go.work']) {
      const found = manifestsNamed(files, extra)[0];
      if (found) info.manifests.push(found);
    }
    if (files.includes('vendor/modules.txt')) {
      info.manifests.push('vendor/modules.txt');
      info.notes.push('vendor/ holds the dependencies: build with -mod=vendor (no module download needed)');
    }
    return info;
  },
};

export interface GoMod {
  module?: string;
  go?: string;
  toolchain?: string;
  requires: DeclaredDependency[];
  notes: string[];
}

/** Reads go.mod's directives (comments and blank lines ignored); never throws. */
export function parseGoMod(manifest: string, text: string): GoMod {
  const out: GoMod = { requires: [], notes: [] };
  let block: string | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const here = offset;
    offset += line.length + 1;
    const bare = line.replace(/\/\/(?!\s*indirect).*$/, '').trim();
    if (!bare) continue;
    if (block) {
      if (bare === ')') block = undefined;
      else directive(block, bare, here);
      continue;
    }
    const m = /^(\w+)\s*(.*)$/.exec(bare);
    if (!m) continue;
    const [, verb = '', rest = ''] = m;
    if (rest === '(') block = verb;
    else directive(verb, rest, here);
  }
  return out;

  function directive(verb: string, rest: string, at: number): void {
    if (verb === 'module') out.module = rest.replace(/^"|"$/g, '');
    else if (verb === 'go') out.go = rest;
    else if (verb === 'toolchain') out.toolchain = rest;
    else if (verb === 'require') {
      const r = REQUIRE.exec(rest);
      if (!r) return;
      const dep: DeclaredDependency = {
        name: r[1] as string,
        constraint: r[2],
        manifest: lineRef(manifest, text, at),
      };
      if (r[3]) dep.optional = true;
      out.requires.push(dep);
    } else if (verb === 'replace') out.notes.push(`${manifest}: replace ${rest.replace(/\s*\/\/.*$/, '')}`);
  }
}
