/**
 * Rust: Cargo.toml (a package, a workspace and its members), Cargo.lock, rust-toolchain(.toml). Declared
 * dependencies come from `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]` and their
 * `[target.<cfg>.…]` forms, with `workspace = true` resolved through `[workspace.dependencies]` and renames
 * (`package = "…"`) read as the crate's real name; path dependencies are the repository's own crates and
 * left out. The runtime is `rust-version`, else the toolchain file's channel, else what the edition implies.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { manifestsNamed, readManifest } from './manifest-files.js';
import { readTomlManifest, tomlGet, tomlString, tomlTable, type TomlTable } from './toml.js';

/** The oldest rustc that knows each edition (The Rust Edition Guide). */
const EDITION_RUSTC: Readonly<Record<string, string>> = {
  '2015': '1.0',
  '2018': '1.31',
  '2021': '1.56',
  '2024': '1.85',
};

/** Cargo.lock `version = N` and the oldest cargo that reads it (cargo's lockfile format history). */
const LOCK_CARGO: Readonly<Record<string, string>> = { '3': '1.53', '4': '1.78' };

const DEP_SECTIONS: readonly { key: string; dev: boolean }[] = [
  { key: 'dependencies', dev: false },
  { key: 'build-dependencies', dev: false },
  { key: 'dev-dependencies', dev: true },
];

export const rustDetector: EcosystemDetector = {
  kind: 'rust',
  async detect(root, files) {
    const cargoTomls = manifestsNamed(files, 'Cargo.toml');
    if (cargoTomls.length === 0) return undefined;
    const info: EcosystemInfo = { kind: 'rust', manifests: [...cargoTomls], dependencies: [], notes: [] };
    const parsed = new Map<string, TomlTable>();
    for (const manifest of cargoTomls) {
      const table = await readTomlManifest(root, manifest, info.notes);
      if (table) parsed.set(manifest, table);
    }
    const workspaceDeps = workspaceDependencies(parsed);
    const seen = new Set<string>();
    for (const [manifest, table] of parsed) {
      for (const dep of declaredDependencies(manifest, table, workspaceDeps)) {
        const key = `${dep.name}|${dep.constraint ?? ''}|${dep.dev ? 1 : 0}`;
        if (!seen.has(key)) {
          seen.add(key);
          info.dependencies.push(dep);
        }
      }
    }
    const rootToml = parsed.get(cargoTomls[0] as string);
    if (rootToml && tomlTable(rootToml.workspace)) {
      const members = tomlGet(rootToml, 'workspace', 'members');
      info.notes.push(
        `a Cargo workspace${Array.isArray(members) ? ` (members: ${members.map(String).join(', ')})` : ''}`,
      );
    }
    await addLockAndToolchain(root, files, info);
    info.runtime ??= runtimeFromManifests(parsed);
    return info;
  },
};

function workspaceDependencies(parsed: ReadonlyMap<string, TomlTable>): Map<string, string | TomlTable> {
  const out = new Map<string, string | TomlTable>();
  for (const table of parsed.values()) {
    const deps = tomlTable(tomlGet(table, 'workspace', 'dependencies'));
    for (const [name, value] of Object.entries(deps ?? {})) {
      if (typeof value === 'string' || tomlTable(value)) out.set(name, value as string | TomlTable);
    }
  }
  return out;
}

/** Every dependency table of one manifest: the top-level sections and each `[target.<cfg>]`'s. */
function dependencyTables(table: TomlTable): { deps: TomlTable; dev: boolean }[] {
  const scopes: TomlTable[] = [
    table,
    ...Object.values(tomlTable(table.target) ?? {}).flatMap((t): TomlTable[] => {
      const scope = tomlTable(t);
      return scope ? [scope] : [];
    }),
  ];
  return scopes.flatMap((scope) =>
    DEP_SECTIONS.flatMap(({ key, dev }) => {
      const deps = tomlTable(scope[key]);
      return deps ? [{ deps, dev }] : [];
    }),
  );
}

function declaredDependencies(
  manifest: string,
  table: TomlTable,
  workspaceDeps: ReadonlyMap<string, string | TomlTable>,
): DeclaredDependency[] {
  const out: DeclaredDependency[] = [];
  for (const { deps, dev } of dependencyTables(table)) {
    for (const [key, raw] of Object.entries(deps)) {
      let spec = typeof raw === 'string' ? raw : tomlTable(raw);
      if (spec === undefined) continue;
      if (typeof spec !== 'string' && spec.workspace === true) {
        const inherited = workspaceDeps.get(key);
        spec = typeof inherited === 'string' ? inherited : { ...inherited, ...spec };
      }
      if (typeof spec !== 'string' && spec.path !== undefined) continue;
      const version = typeof spec === 'string' ? spec : tomlString(spec.version);
      const dep: DeclaredDependency = {
        name: (typeof spec === 'string' ? undefined : tomlString(spec.package)) ?? key,
        manifest,
      };
      if (version) dep.constraint = version;
      else if (typeof spec !== 'string' && spec.git !== undefined)
        dep.constraint = `git ${tomlString(spec.git) ?? ''}`.trim();
      if (typeof spec !== 'string' && spec.optional === true) dep.optional = true;
      if (dev) dep.dev = true;
      out.push(dep);
    }
  }
  return out;
}

async function addLockAndToolchain(
  root: string,
  files: readonly string[],
  info: EcosystemInfo,
): Promise<void> {
  const lock = manifestsNamed(files, 'Cargo.lock')[0];
  if (lock) {
    info.manifests.push(lock);
    const text = (await readManifest(root, lock, 4096)) ?? '';
    const version = /^version\s*=\s*(\d+)/m.exec(text)?.[1];
    const needs = version ? LOCK_CARGO[version] : undefined;
    info.notes.push(
      `${lock} pins exact versions${version ? ` (lockfile format ${version}${needs ? `, read by cargo ≥ ${needs}` : ''})` : ''}`,
    );
  } else
    info.notes.push(
      'no Cargo.lock: versions are resolved at build time (the lock the build writes is recorded)',
    );
  const toolchain = manifestsNamed(files, 'rust-toolchain.toml', 'rust-toolchain')[0];
  if (!toolchain) return;
  info.manifests.push(toolchain);
  const channel = toolchain.endsWith('.toml')
    ? tomlString(tomlGet(await readTomlManifest(root, toolchain, info.notes), 'toolchain', 'channel'))
    : ((await readManifest(root, toolchain, 4096)) ?? '').trim().split('\n')[0];
  if (channel)
    info.runtime = { name: 'rust', version: channel, why: `${toolchain} asks for the ${channel} toolchain` };
}

function runtimeFromManifests(parsed: ReadonlyMap<string, TomlTable>): EcosystemInfo['runtime'] {
  let edition: string | undefined;
  for (const [manifest, table] of parsed) {
    const rustVersion =
      tomlString(tomlGet(table, 'package', 'rust-version')) ??
      tomlString(tomlGet(table, 'workspace', 'package', 'rust-version'));
    if (rustVersion)
      return { name: 'rust', version: rustVersion, why: `rust-version = "${rustVersion}" in ${manifest}` };
    const e =
      tomlString(tomlGet(table, 'package', 'edition')) ??
      tomlString(tomlGet(table, 'workspace', 'package', 'edition'));
    if (e && (!edition || e > edition)) edition = e;
  }
  const min = edition ? EDITION_RUSTC[edition] : undefined;
  return min
    ? { name: 'rust', version: `>=${min}`, why: `edition ${edition} needs rustc ${min} or newer` }
    : { name: 'rust', why: 'Cargo.toml' };
}
