/** Expected targets from Cargo.toml: the package binary, [[bin]] entries, src/bin/*, cdylib/staticlib libs. */

import { joinRel } from '../paths.js';
import { makeTarget, type InferredTarget } from './common.js';

interface TomlTable {
  header: string;
  line: number;
  values: Map<string, string>;
}

/** A minimal TOML reader: table headers and `key = value` lines (values kept as raw text). */
export function parseTomlTables(text: string): TomlTable[] {
  const tables: TomlTable[] = [{ header: '', line: 1, values: new Map() }];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const lineNo = i + 1;
    const line = raw
      .replace(/\s+#.*$/, '')
      .replace(/^#.*$/, '')
      .trim();
    if (line === '') continue;
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      tables.push({
        header: line.startsWith('[[') ? `[[${header[1]}]]` : (header[1] ?? ''),
        line: lineNo,
        values: new Map(),
      });
      continue;
    }
    const kv = /^("?[A-Za-z0-9_.-]+"?)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    let value = kv[2] ?? '';
    // Multi-line arrays: read until the closing bracket.
    if (value.startsWith('[') && !value.includes(']')) {
      while (i + 1 < lines.length && !value.includes(']')) {
        const next = lines[++i] ?? '';
        value += ` ${next.replace(/#.*$/, '').trim()}`;
      }
    }
    tables[tables.length - 1]?.values.set((kv[1] ?? '').replace(/"/g, ''), value.trim());
  }
  return tables;
}

function tomlString(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^"([^"]*)"$|^'([^']*)'$/
    .exec(value)
    ?.slice(1)
    .find((s) => s !== undefined);
}

function tomlStrings(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [...value.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '');
}

/**
 * Targets of one Cargo.toml. `files` are all repository files, used to find src/main.rs and src/bin/*.rs
 * (Cargo's automatic binaries).
 */
export function cargoTargets(text: string, file: string, files: ReadonlySet<string>): InferredTarget[] {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  const tables = parseTomlTables(text);
  const pkg = tables.find((t) => t.header === 'package');
  const out: InferredTarget[] = [];
  if (!pkg) return out;
  const name = tomlString(pkg.values.get('name'));
  if (name === undefined) return out;
  const autobins = pkg.values.get('autobins') !== 'false';
  const bins = tables.filter((t) => t.header === '[[bin]]');
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
  for (const b of bins) {
    const binName = tomlString(b.values.get('name'));
    if (binName !== undefined) bin(binName, b.line, 0.85);
  }
  if (autobins) {
    if (files.has(joinRel(dir, 'src/main.rs'))) bin(name, pkg.line, 0.85);
    const binDir = joinRel(dir, 'src/bin');
    for (const f of files) {
      if (!f.startsWith(`${binDir}/`)) continue;
      const rest = f.slice(binDir.length + 1);
      const m = /^([^/]+)\.rs$/.exec(rest) ?? /^([^/]+)\/main\.rs$/.exec(rest);
      if (m) bin(m[1] ?? '', pkg.line, 0.8);
    }
  }
  const lib = tables.find((t) => t.header === 'lib');
  if (lib) {
    const libName = (tomlString(lib.values.get('name')) ?? name).replace(/-/g, '_');
    const types = tomlStrings(lib.values.get('crate-type') ?? lib.values.get('crate_type'));
    if (types.includes('cdylib') || types.includes('dylib'))
      out.push(
        makeTarget('cargo', {
          name: `lib${libName}.so`,
          kind: 'shared_library',
          file,
          line: lib.line,
          confidence: 0.85,
        }),
      );
    if (types.includes('staticlib'))
      out.push(
        makeTarget('cargo', {
          name: `lib${libName}.a`,
          kind: 'static_library',
          file,
          line: lib.line,
          confidence: 0.85,
        }),
      );
  }
  return out;
}
