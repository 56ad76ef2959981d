/**
 * Julia: `Project.toml` ([deps] names, [compat] bounds including `julia`) and `Manifest.toml` (the exact
 * versions resolved, and the Julia version that made it).
 */
import type { EcosystemInfo } from '../types.js';
import { readTomlManifest, tomlGet, tomlTable } from './toml.js';

/** Julia's standard library: shipped with Julia, never installed from a registry. */
const JULIA_STDLIB = new Set([
  'Base64',
  'CRC32c',
  'Dates',
  'DelimitedFiles',
  'Distributed',
  'FileWatching',
  'InteractiveUtils',
  'LazyArtifacts',
  'LibCURL',
  'LibGit2',
  'Libdl',
  'LinearAlgebra',
  'Logging',
  'Markdown',
  'Mmap',
  'Pkg',
  'Printf',
  'Profile',
  'REPL',
  'Random',
  'SHA',
  'Serialization',
  'SharedArrays',
  'Sockets',
  'SparseArrays',
  'Statistics',
  'SuiteSparse',
  'TOML',
  'Tar',
  'Test',
  'UUIDs',
  'Unicode',
  'Downloads',
  'ArgTools',
  'NetworkOptions',
]);

/** Structurally an `EcosystemDetector` (index.ts), which lists it; not imported from there to keep files acyclic. */
export const juliaDetector = {
  kind: 'julia' as const,
  async detect(root: string, files: readonly string[]): Promise<EcosystemInfo | undefined> {
    const project = ['JuliaProject.toml', 'Project.toml'].find((f) => files.includes(f));
    const manifest = ['JuliaManifest.toml', 'Manifest.toml'].find((f) => files.includes(f));
    const sources = files.filter((f) => f.endsWith('.jl')).length;
    if (!project && !manifest && sources === 0) return undefined;
    const info: EcosystemInfo = { kind: 'julia', manifests: [], dependencies: [], notes: [] };
    if (project) {
      const doc = await readTomlManifest(root, project, info.notes);
      if (doc) {
        info.manifests.push(project);
        const compat = tomlTable(doc, 'compat') ?? {};
        for (const name of Object.keys(tomlTable(doc, 'deps') ?? {})) {
          if (JULIA_STDLIB.has(name)) continue;
          const bound = compat[name];
          info.dependencies.push({
            name,
            ...(typeof bound === 'string' ? { constraint: bound } : {}),
            manifest: `${project} [deps]`,
          });
        }
        const julia = compat.julia;
        if (typeof julia === 'string')
          info.runtime = { name: 'julia', version: julia, why: `${project} [compat] julia = "${julia}"` };
      }
    }
    if (manifest) {
      const doc = await readTomlManifest(root, manifest, info.notes);
      if (doc) {
        info.manifests.push(manifest);
        const version = tomlGet(doc, 'julia_version');
        if (typeof version === 'string') {
          info.runtime ??= {
            name: 'julia',
            version: `==${version}`,
            why: `${manifest} was resolved by Julia ${version}`,
          };
          info.notes.push(`${manifest} pins exact versions (resolved by Julia ${version})`);
        }
      }
    }
    info.runtime ??= { name: 'julia', why: 'no Julia version pinned' };
    if (!project)
      info.notes.push(
        `${sources} Julia file(s) and no Project.toml: the packages the code uses are not declared`,
      );
    return info;
  },
};
