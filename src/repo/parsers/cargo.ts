/** Expected targets from Cargo.toml: the package binary, [[bin]] entries, src/bin/*, cdylib/staticlib libs. */

import { readToml, tomlString, tomlTable, type TomlTable, type TomlValue } from '../ecosystems/toml.js';
import { joinRel } from '../paths.js';
import { makeTarget, type InferredTarget } from './common.js';

/**
 * The lines of the table headers `header` (`[package]`, `[[bin]]`) in `text`, in order: the parsed document
 * keeps no positions, and a target's source points at its table.
 */
function headerLines(text: string, header: string): number[] {
  const out: number[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.replace(/#.*$/, '').replace(/\s+/g, '') === header) out.push(i + 1);
  }
  return out;
}

function tomlStrings(value: TomlValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Targets of one Cargo.toml. `files` are all repository files, used to find src/main.rs and src/bin/*.rs
 * (Cargo's automatic binaries). A Cargo.toml that is not TOML names nothing; the rust detector
 * (ecosystems/rust.ts) reads the same file and says where it is wrong.
 */
export function cargoTargets(text: string, file: string, files: ReadonlySet<string>): InferredTarget[] {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  const { table: doc } = readToml(file, text);
  const out: InferredTarget[] = [];
  const pkg = tomlTable(doc, 'package');
  if (!doc || !pkg) return out;
  const name = tomlString(pkg.name);
  if (name === undefined) return out;
  const pkgLine = headerLines(text, '[package]')[0] ?? 1;
  const autobins = pkg.autobins !== false;
  const bins = Array.isArray(doc.bin) ? doc.bin.map((b) => tomlTable(b)) : [];
  const binLines = headerLines(text, '[[bin]]');
  const seen = new Set<string>();
  const bin = (binName: string, line: number, confidence: number): void => {
    if (seen.has(binName)) return;
    seen.add(binName);
    out.push(
      makeTarget('cargo', {
        name: binName,
        kind: 'executable',
        file,
        line,
        confidence,
        note: 'under target/<profile>/',
      }),
    );
  };
  for (const [i, b] of bins.entries()) {
    const binName = tomlString(b?.name);
    // Inline `bin = [{ … }]` has no header of its own: the package's line stands in.
    const line = binLines.length === bins.length ? (binLines[i] ?? pkgLine) : pkgLine;
    if (binName !== undefined) bin(binName, line, 0.85);
  }
  if (autobins) {
    if (files.has(joinRel(dir, 'src/main.rs'))) bin(name, pkgLine, 0.85);
    const binDir = joinRel(dir, 'src/bin');
    for (const f of files) {
      if (!f.startsWith(`${binDir}/`)) continue;
      const rest = f.slice(binDir.length + 1);
      const m = /^([^/]+)\.rs$/.exec(rest) ?? /^([^/]+)\/main\.rs$/.exec(rest);
      if (m) bin(m[1] ?? '', pkgLine, 0.8);
    }
  }
  const lib: TomlTable | undefined = tomlTable(doc, 'lib');
  if (lib) {
    const libLine = headerLines(text, '[lib]')[0] ?? pkgLine;
    const libName = (tomlString(lib.name) ?? name).replace(/-/g, '_');
    const types = tomlStrings(lib['crate-type'] ?? lib.crate_type);
    if (types.includes('cdylib') || types.includes('dylib'))
      out.push(
        makeTarget('cargo', {
          name: `lib${libName}.so`,
          kind: 'shared_library',
          file,
          line: libLine,
          confidence: 0.85,
        }),
      );
    if (types.includes('staticlib'))
      out.push(
        makeTarget('cargo', {
          name: `lib${libName}.a`,
          kind: 'static_library',
          file,
          line: libLine,
          confidence: 0.85,
        }),
      );
  }
  return out;
}
