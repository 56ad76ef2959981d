// The import graph of src/, read with the TypeScript compiler's own pre-processor (no type check, so it is
// fast and sees `import type` and re-exports too). Used by test/unit/architecture.test.ts.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string; // a path relative to the src root, e.g. 'agent/loop.ts'
  to: string;
  line: number;
}

function listTs(dir: string, root: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listTs(full, root, out);
    else if (entry.isFile() && entry.name.endsWith('.ts')) out.push(path.relative(root, full));
  }
  return out;
}

/** Every relative import between files under `srcRoot`, with the line it is on. */
export function importGraph(srcRoot: string): { files: string[]; edges: ImportEdge[] } {
  const files = listTs(srcRoot, srcRoot, []).sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(srcRoot, file), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.normalize(path.join(path.dirname(file), ref.fileName)).replace(/\.js$/, '.ts');
      const to = known.has(target) ? target : known.has(`${target}/index.ts`) ? `${target}/index.ts` : target;
      const line = text.slice(0, ref.pos).split('\n').length;
      edges.push({ from: file, to, line });
    }
  }
  return { files, edges };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function fileCycles(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        if (!next.has(w)) continue;
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (next.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return out;
}
