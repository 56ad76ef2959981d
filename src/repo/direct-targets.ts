/**
 * What a repository without a build system makes: every documented compile line's output (`gcc -o a a.c`
 * in a README block), else every C/C++ file that defines `main()` (the programs direct compilation
 * builds, one per file, named after it). A program the documented steps run to generate a source before a
 * later compile (`./gen > table.h`) is a build helper, not a product. The text is a stranger's: it is split
 * into words, and the few patterns on them are linear-time (base/linear-regex).
 */
import path from 'node:path';

import { linearRegex } from '../base/linear-regex.js';
import type { DocumentedBlock, ExpectedTarget } from './types.js';

const VERSION = linearRegex('^\\d+(?:\\.\\d+)*$');
const ASSIGNMENT = linearRegex('^[A-Za-z_][A-Za-z0-9_]*=');
const NOT_A_PROGRAM = linearRegex('\\.(?:o|obj|a|i|s)$');
const SHARED_NAME = linearRegex('\\.so(?:\\.[0-9]+)*$');

const COMPILERS = new Set(['gcc', 'g++', 'cc', 'c++', 'clang', 'clang++', 'tcc']);

/** `gcc`, `/usr/bin/gcc-12`, `x86_64-linux-gnu-g++`, `clang++-15` → whether it names a C/C++ compiler. */
function isCompiler(word: string): boolean {
  let base = path.posix.basename(word);
  const dash = base.lastIndexOf('-');
  // A version suffix (gcc-12) or a target prefix (x86_64-linux-gnu-gcc).
  if (dash > 0 && VERSION.test(base.slice(dash + 1))) base = base.slice(0, dash);
  const prefixCut = base.lastIndexOf('-');
  if (prefixCut > 0 && COMPILERS.has(base.slice(prefixCut + 1))) base = base.slice(prefixCut + 1);
  return COMPILERS.has(base);
}

/** The simple commands of one documented line: `a && b; c | d` → [a…], [b…], [c…], [d…] (words). */
function commandsOf(line: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  for (const raw of line
    .trim()
    .split(' ')
    .flatMap((w) => w.split('\t'))) {
    if (raw === '' || raw === '\\') continue;
    if (raw.startsWith('#')) break;
    if (raw === '&&' || raw === '||' || raw === ';' || raw === '|') {
      if (words.length > 0) out.push(words);
      words = [];
      continue;
    }
    const trail = raw.endsWith(';') ? raw.slice(0, -1) : raw;
    if (trail !== '') words.push(trail);
    if (trail !== raw) {
      out.push(words);
      words = [];
    }
  }
  if (words.length > 0) out.push(words);
  // `sudo gcc …`, `env CC=… gcc …`: the command is the first word that is not a wrapper or an assignment.
  return out.map((w) => {
    let i = 0;
    while (i < w.length - 1 && (w[i] === 'sudo' || w[i] === 'env' || ASSIGNMENT.test(w[i]!))) i++;
    return w.slice(i);
  });
}

interface Compile {
  output: string;
  shared: boolean;
  order: number;
}

/** The output of one compiler command, or undefined for `-c`/`-E`/`-S` or a command with no `-o`. */
function compileOutput(words: readonly string[]): { output: string; shared: boolean } | undefined {
  if (words.length < 2 || !isCompiler(words[0]!)) return undefined;
  let output: string | undefined;
  let shared = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-c' || w === '-E' || w === '-S' || w === '-M' || w === '-MM') return undefined;
    if (w === '-shared') shared = true;
    if (w === '-o') output = words[i + 1];
    else if (w.startsWith('-o') && w.length > 2) output = w.slice(2);
  }
  if (output === undefined || output.includes('$') || output.startsWith('-') || output === '/dev/null')
    return undefined;
  const clean = unquote(output);
  if (clean === '' || NOT_A_PROGRAM.test(clean)) return undefined;
  return { output: clean, shared: shared || SHARED_NAME.test(clean) };
}

function unquote(word: string): string {
  let w = word;
  if (w.startsWith('"') || w.startsWith("'")) w = w.slice(1);
  if (w.endsWith('"') || w.endsWith("'")) w = w.slice(0, -1);
  return w;
}

/** Whether a command runs `program` (`./gen`, `build/gen`, `sh -c ./gen` is not looked into). */
function runs(words: readonly string[], program: string): boolean {
  const first = words[0];
  if (first === undefined) return false;
  const norm = (p: string): string => path.posix.normalize(p);
  return first.includes('/') && norm(first) === norm(program);
}

/**
 * The products of the documented compile lines (README/INSTALL blocks; CI steps only when the docs have
 * none), each once; a program that a later documented step runs before another compile is a build helper
 * and kept with role `excluded` and a note.
 */
export function documentedCompileTargets(blocks: readonly DocumentedBlock[]): ExpectedTarget[] {
  const docs = blocks.filter((b) => b.from === 'docs');
  const read = (from: readonly DocumentedBlock[]): ExpectedTarget[] => {
    const out = new Map<string, ExpectedTarget>();
    for (const block of from) {
      const compiles: Compile[] = [];
      const runsAt = new Map<string, number>();
      let order = 0;
      for (const line of block.text.split('\n')) {
        for (const words of commandsOf(line)) {
          order++;
          const hit = compileOutput(words);
          if (hit) compiles.push({ ...hit, order });
          for (const c of compiles)
            if (!runsAt.has(c.output) && runs(words, c.output)) runsAt.set(c.output, order);
        }
      }
      for (const c of compiles) {
        const name = path.posix.basename(c.output);
        if (out.has(name)) continue;
        const ranAt = runsAt.get(c.output);
        const helper = ranAt !== undefined && compiles.some((other) => other.order > ranAt);
        const target: ExpectedTarget = {
          name,
          kind: c.shared ? 'shared_library' : 'executable',
          source: block.source,
          confidence: helper ? 0.3 : 0.85,
          role: helper ? 'excluded' : 'main',
          note: helper
            ? 'a documented compile line builds it, and the documented steps run it before a later compile: a build helper'
            : 'a documented compile line builds it (no build system)',
        };
        out.set(name, target);
      }
    }
    return [...out.values()];
  };
  const fromDocs = read(docs);
  return fromDocs.length > 0 ? fromDocs : read(blocks.filter((b) => b.from === 'ci'));
}

/**
 * One program per C/C++ file defining `main()`, named as direct compilation names it (the file's stem;
 * recipe/direct.ts), for a repository whose documentation compiles nothing.
 */
export function mainSourceTargets(mainSources: readonly string[], limit = 20): ExpectedTarget[] {
  const seen = new Set<string>();
  const out: ExpectedTarget[] = [];
  for (const main of mainSources.slice(0, limit)) {
    const ext = path.posix.extname(main);
    let name = path.posix.basename(main, ext);
    const key = `${path.posix.dirname(main)}/${name}`;
    if (seen.has(key)) name = `${name}_${ext.slice(1)}`;
    seen.add(key);
    out.push({
      name,
      kind: 'executable',
      source: main,
      confidence: 0.75,
      role: 'main',
      note: 'no build system and no documented compile line: every file defining main() is a program',
    });
  }
  return out;
}
