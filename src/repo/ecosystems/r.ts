/**
 * R: a package's `DESCRIPTION` (Depends, Imports, LinkingTo; Suggests as optional), `renv.lock` (exact
 * versions), and for a bare analysis script the packages its `library()`/`require()` calls load. The R
 * version a DESCRIPTION or lock file asks for is the runtime.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import { depthOf, readManifest } from './manifest-files.js';

/** Packages that come with R itself (never installed separately). */
export const R_BASE_PACKAGES: ReadonlySet<string> = new Set([
  'R',
  'base',
  'compiler',
  'datasets',
  'graphics',
  'grDevices',
  'grid',
  'methods',
  'parallel',
  'splines',
  'stats',
  'stats4',
  'tcltk',
  'tools',
  'utils',
]);

const SCRIPT_FILES = 40;
const SCRIPT_BYTES = 256 * 1024;

/** A Debian Control File (DESCRIPTION): field → value, continuation lines joined. */
export function parseDcf(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let key = '';
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z][\w.@-]*):\s*(.*)$/.exec(line);
    if (m) {
      key = m[1]!;
      fields.set(key, m[2]!.trim());
    } else if (/^\s+\S/.test(line) && key) fields.set(key, `${fields.get(key) ?? ''} ${line.trim()}`.trim());
  }
  return fields;
}

/** `pkg (>= 1.0), other` → name and constraint pairs. */
export function parseRDependencies(value: string): { name: string; constraint?: string }[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^([A-Za-z][\w.]*)\s*(?:\(\s*([^)]*?)\s*\))?/.exec(part);
      if (!m) return undefined;
      const constraint = m[2]?.replace(/\s+/g, '');
      return { name: m[1]!, ...(constraint ? { constraint } : {}) };
    })
    .filter((d): d is { name: string; constraint?: string } => d !== undefined);
}

/** Packages a script loads: `library(x)`, `require(x)`, `requireNamespace("x")`, `x::f`. */
export function scriptPackages(text: string): string[] {
  const names = new Set<string>();
  const code = text.replace(/#.*$/gm, '');
  for (const m of code.matchAll(/\b(?:library|require|requireNamespace)\s*\(\s*["']?([A-Za-z][\w.]*)["']?/g))
    names.add(m[1]!);
  for (const m of code.matchAll(/\b([A-Za-z][\w.]*):::?[A-Za-z_.]/g)) names.add(m[1]!);
  return [...names].filter((n) => !R_BASE_PACKAGES.has(n));
}

/** Structurally an `EcosystemDetector` (index.ts), which lists it; not imported from there to keep files acyclic. */
export const rDetector = {
  kind: 'r' as const,
  async detect(root: string, files: readonly string[]): Promise<EcosystemInfo | undefined> {
    const description = files.find((f) => f === 'DESCRIPTION');
    const lock = files.find((f) => f === 'renv.lock');
    const scripts = files.filter((f) => /\.(?:R|r|Rmd)$/.test(f) && depthOf(f) <= 3);
    if (!description && !lock && scripts.length === 0) return undefined;
    const info: EcosystemInfo = { kind: 'r', manifests: [], dependencies: [], notes: [] };
    const add = (dep: DeclaredDependency) => {
      if (R_BASE_PACKAGES.has(dep.name)) return;
      if (!info.dependencies.some((d) => d.name === dep.name)) info.dependencies.push(dep);
    };
    if (description) {
      const text = await readManifest(root, description);
      if (text !== undefined) {
        info.manifests.push(description);
        const fields = parseDcf(text);
        for (const field of ['Depends', 'Imports', 'LinkingTo', 'Suggests']) {
          for (const dep of parseRDependencies(fields.get(field) ?? '')) {
            if (dep.name === 'R') {
              if (dep.constraint)
                info.runtime = {
                  name: 'R',
                  version: dep.constraint,
                  why: `${description} Depends: R (${dep.constraint})`,
                };
              continue;
            }
            add({
              ...dep,
              manifest: `${description} (${field})`,
              ...(field === 'Suggests' ? { optional: true } : {}),
            });
          }
        }
      }
    }
    if (lock) {
      const text = await readManifest(root, lock);
      try {
        const doc = JSON.parse(text ?? '') as {
          R?: { Version?: string };
          Packages?: Record<string, { Package?: string; Version?: string }>;
        };
        info.manifests.push(lock);
        if (doc.R?.Version)
          info.runtime = {
            name: 'R',
            version: `==${doc.R.Version}`,
            why: `${lock} was made with R ${doc.R.Version}`,
          };
        for (const [name, pkg] of Object.entries(doc.Packages ?? {})) {
          add({
            name: pkg.Package ?? name,
            ...(pkg.Version ? { constraint: `==${pkg.Version}` } : {}),
            manifest: lock,
          });
        }
      } catch {
        info.notes.push(`${lock} is not valid JSON`);
      }
    }
    if (!description && !lock) {
      for (const file of scripts.slice(0, SCRIPT_FILES)) {
        const text = await readManifest(root, file, SCRIPT_BYTES);
        for (const name of scriptPackages(text ?? '')) add({ name, manifest: file });
      }
      info.notes.push(
        `no DESCRIPTION or renv.lock: the packages are those the R scripts load (${scripts.slice(0, 5).join(', ')})`,
      );
    }
    info.runtime ??= { name: 'R', why: "no R version pinned; Debian's r-base-core" };
    return info;
  },
};
