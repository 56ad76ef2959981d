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

const TEST_WORDS = new Set([
  'test',
  'tests',
  'testing',
  'testsuite',
  'unittest',
  'unittests',
  'unit_tests',
  'check',
  'checks',
  'bench',
  'benches',
  'benchmark',
  'benchmarks',
  'fuzz',
  'fuzzer',
  'fuzzers',
  'fuzzing',
  'perftest',
  'perftests',
]);
/** Words that mark a test directory but not a test program: `redis-check-aof` is a product. */
const DIR_ONLY_TEST_WORDS = new Set(['check', 'checks']);
/** Code under documentation directories is example code. */
const DOC_WORDS = new Set(['doc', 'docs', 'documentation']);
const EXAMPLE_WORDS = new Set([
  'example',
  'examples',
  'demo',
  'demos',
  'sample',
  'samples',
  'tutorial',
  'tutorials',
]);

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
    const lower = part.toLowerCase();
    if (TEST_WORDS.has(lower)) return 'test';
    if (EXAMPLE_WORDS.has(lower) || DOC_WORDS.has(lower)) return 'example';
  }
  return undefined;
}

/** 'test' or 'example' when a target name says so (`test_foo`, `fooTest`, `bench_x`, `demo`), else undefined. */
export function roleOfName(name: string): 'test' | 'example' | undefined {
  const words = wordsOf(name);
  if (
    words.some((w) => (TEST_WORDS.has(w) && !DIR_ONLY_TEST_WORDS.has(w)) || w === 'unittest' || w === 'gtest')
  )
    return 'test';
  if (words.some((w) => EXAMPLE_WORDS.has(w))) return 'example';
  return undefined;
}

/** The role a target gets from its name and the directory of the build file that defines it. */
export function roleOf(name: string, dir: string): ExpectedTarget['role'] {
  return roleOfName(name) ?? roleOfDir(dir) ?? 'main';
}
