/**
 * The floors of src/ (STYLE.md "Layout", docs/development.md "Architecture"), enforced: an import goes down a floor or
 * stays on its floor, never up; no two folders import each other, even through others; and no file cycle.
 * The floors are listed once, here. A new folder must be given a floor before its first import is allowed.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import path from 'node:path';

import { fileCycles, importGraph, type ImportEdge } from '../helpers/import-graph.js';

/** Folder of src/ → floor. Lower floors never import higher ones. */
const FLOORS: Readonly<Record<string, number>> = {
  // floor 0: errors, outcomes, the process runner, path safety, small helpers — imports nothing above.
  base: 0,
  // floor 1: the domains and the two outside worlds.
  repo: 1,
  retrieval: 1,
  recipe: 1,
  knowledge: 1,
  deploy: 1,
  verify: 1,
  trajectory: 1,
  llm: 1,
  sandbox: 1,
  github: 1,
  // floor 2: the loop and its strategies (knows only interfaces).
  agent: 2,
  // floor 3: after the loop — minimise, replay, patches; pure rendering of result + trajectory; many runs.
  finalize: 3,
  report: 3,
  bench: 3,
  // floor 4: composition roots only.
  core: 4,
  // floor 5: front doors.
  cli: 5,
  action: 5,
  bot: 5,
};

const SRC = path.resolve(import.meta.dirname, '../../src');
const folderOf = (file: string): string => file.split('/')[0] ?? file;

/** Upward edges: an import whose target folder sits on a higher floor than the importing one. */
function upwardImports(edges: readonly ImportEdge[], floors = FLOORS): string[] {
  return edges
    .filter((e) => {
      const from = floors[folderOf(e.from)];
      const to = floors[folderOf(e.to)];
      return from !== undefined && to !== undefined && to > from;
    })
    .map(
      (e) =>
        `src/${e.from}:${e.line} imports src/${e.to} (floor ${floors[folderOf(e.from)]} → ${floors[folderOf(e.to)]})`,
    );
}

/** Folder-level cycles (two folders that reach each other through their imports). */
function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const folders = [...new Set(edges.flatMap((e) => [folderOf(e.from), folderOf(e.to)]))].sort();
  const folderEdges = edges
    .filter((e) => folderOf(e.from) !== folderOf(e.to))
    .map((e) => ({ from: folderOf(e.from), to: folderOf(e.to), line: e.line }));
  return fileCycles(folders, folderEdges);
}

describe('architecture', () => {
  const { files, edges } = importGraph(SRC);

  it('gives every folder of src/ a floor', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((f) => FLOORS[f] === undefined)).toEqual([]);
    expect(files.filter((f) => !f.includes('/'))).toEqual([]);
  });

  it('resolves every relative import to a file of src/', () => {
    const known = new Set(files);
    expect(edges.filter((e) => !known.has(e.to)).map((e) => `src/${e.from}:${e.line} → ${e.to}`)).toEqual([]);
  });

  it('never imports from a higher floor', () => {
    expect(upwardImports(edges)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('has no cycle between files, type-only imports included', () => {
    expect(fileCycles(files, edges)).toEqual([]);
  });

  it('would catch a planted upward import, a folder cycle and a file cycle', () => {
    const planted: ImportEdge[] = [
      { from: 'base/errors.ts', to: 'core/run-build.ts', line: 1 },
      { from: 'repo/a.ts', to: 'verify/b.ts', line: 2 },
      { from: 'verify/b.ts', to: 'repo/a.ts', line: 3 },
    ];
    expect(upwardImports(planted)).toEqual([
      'src/base/errors.ts:1 imports src/core/run-build.ts (floor 0 → 4)',
    ]);
    expect(folderCycles(planted)).toEqual([['repo', 'verify']]);
    expect(fileCycles(['repo/a.ts', 'verify/b.ts'], planted)).toEqual([['repo/a.ts', 'verify/b.ts']]);
  });
});
