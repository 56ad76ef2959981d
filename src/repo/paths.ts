/** Small helpers over '/'-separated repository-relative paths. */

import type { ExpectedTarget } from './types.js';

export function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

export function baseOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? rel : rel.slice(i + 1);
}

/** 0 for a file at the root (or the root dir ''), 1 one level down, … */
export function depthOf(rel: string): number {
  if (rel === '') return 0;
  let n = 0;
  for (const ch of rel) if (ch === '/') n++;
  return n;
}

/** Joins a directory and a relative path, resolving `.` and `..`; never climbs above the root. */
export function joinRel(dir: string, rel: string): string {
  const parts = dir === '' ? [] : dir.split('/');
  for (const part of rel.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** Whether `rel` is `dir` or inside it ('' contains everything). */
export function isWithin(rel: string, dir: string): boolean {
  return dir === '' || rel === dir || rel.startsWith(`${dir}/`);
}

/** Proper ancestors of a directory, nearest first, ending with the root ''. */
export function ancestorsOf(dir: string): string[] {
  const out: string[] = [];
  let d = dir;
  while (d !== '') {
    d = dirOf(d);
    out.push(d);
  }
  return out;
}

/** Directory names that hold other projects' code, not this one's products. */
export const VENDORED_DIRS: ReadonlySet<string> = new Set([
  'third_party',
  'third-party',
  'thirdparty',
  '3rdparty',
  '3rd_party',
  '3rd-party',
  'vendor',
  'vendored',
  'external',
  'externals',
  'extern',
  'deps',
  'subprojects',
  'contrib',
]);

/** Whether a path is under a vendored-code directory (third_party, vendor, external, deps, …). */
export function isVendoredPath(rel: string): boolean {
  return rel.split('/').some((part) => VENDORED_DIRS.has(part.toLowerCase()));
}

/** Where a role word counts: in directory names, in target names, or both. */
type WordPlace = 'dir' | 'name' | 'both';

/**
 * The one table of words that mark test, benchmark, fuzzing and example areas. Inspection gives targets
 * their role from it (`roleOfDir`, `roleOfName`); scoring (verify/policy) sets aside binaries under every
 * directory it names, so a `fuzz/` binary is both a "test" target and excluded from the metrics.
 */
const ROLE_WORDS: ReadonlyArray<readonly ['test' | 'example', WordPlace, readonly string[]]> = [
  ['test', 'both', ['test', 'tests', 'testing', 'testsuite', 'unittest', 'unittests', 'unit_tests']],
  ['test', 'both', ['bench', 'benches', 'benchmark', 'benchmarks', 'perftest', 'perftests']],
  ['test', 'both', ['fuzz', 'fuzzer', 'fuzzers', 'fuzzing']],
  // A test directory but not a test program: `redis-check-aof` is a product.
  ['test', 'dir', ['check', 'checks']],
  // A test program, but a `gtest/` directory holds the framework itself.
  ['test', 'name', ['gtest']],
  ['example', 'both', ['example', 'examples', 'demo', 'demos', 'sample', 'samples', 'tutorial', 'tutorials']],
  // Code under documentation directories is example code.
  ['example', 'dir', ['doc', 'docs', 'documentation']],
];

const ROLE_OF_WORD: ReadonlyMap<string, { role: 'test' | 'example'; place: WordPlace }> = new Map(
  ROLE_WORDS.flatMap(([role, place, words]) => words.map((w) => [w, { role, place }] as const)),
);

function wordRole(word: string, place: 'dir' | 'name'): 'test' | 'example' | undefined {
  const entry = ROLE_OF_WORD.get(word);
  return entry !== undefined && (entry.place === 'both' || entry.place === place) ? entry.role : undefined;
}

/** 'test' or 'example' when one directory name (`Tests`, `fuzz`, `examples`, `docs`) marks such an area. */
export function roleOfDirName(name: string): 'test' | 'example' | undefined {
  return wordRole(name.toLowerCase(), 'dir');
}

/** Splits a name into lower-case words at `_`, `-`, `.`, `/`, digits and camelCase humps. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s_\-./0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** 'test' or 'example' when a directory path names a test/benchmark or example/demo area, else undefined. */
export function roleOfDir(dir: string): 'test' | 'example' | undefined {
  for (const part of dir.split('/')) {
    const role = roleOfDirName(part);
    if (role !== undefined) return role;
  }
  return undefined;
}

/** 'test' or 'example' when a target name says so (`test_foo`, `fooTest`, `bench_x`, `demo`), else undefined. */
export function roleOfName(name: string): 'test' | 'example' | undefined {
  const roles = wordsOf(name).map((w) => wordRole(w, 'name'));
  if (roles.includes('test')) return 'test';
  return roles.includes('example') ? 'example' : undefined;
}

/** The role a target gets from its name and the directory of the build file that defines it. */
export function roleOf(name: string, dir: string): ExpectedTarget['role'] {
  return roleOfName(name) ?? roleOfDir(dir) ?? 'main';
}
