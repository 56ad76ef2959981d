/**
 * scripts/import-build-bench.ts against the real BUILD-BENCH copy (../shared/data/build-bench): the counts
 * SOURCE.md gives, byte-identical re-runs, the committed tasks/build-bench equal to a fresh import, every
 * file loading with loadTasks, and a source whose hash differs refused. Skipped only where the data folder is
 * absent (a checkout without the shared data); set BUILDBENCH_REQUIRE_BUILD_BENCH=1 to make that an error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  checkSources,
  cleanLabels,
  DEFAULT_SOURCE,
  importBuildBench,
  parsePythonLiteral,
  parseTrajectoryCell,
  PINNED_SHA256,
  QuirkCounter,
  type ImportResult,
} from '../../../scripts/import-build-bench.js';
import { loadTasks } from '../../../src/bench/load.js';
import type { BuildTask } from '../../../src/bench/types.js';
import { artifactBaseName, normalizeExpected } from '../../../src/verify/scoring.js';

const HAVE_DATA = existsSync(path.join(DEFAULT_SOURCE, 'SOURCE.md'));
if (!HAVE_DATA && process.env.BUILDBENCH_REQUIRE_BUILD_BENCH === '1')
  throw new Error(`BUILD-BENCH data missing at ${DEFAULT_SOURCE}`);
const withData = HAVE_DATA ? describe : describe.skip;

/** Every file under a folder, relative path → bytes. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full), readFileSync(full, 'latin1'));
  }
  return out;
}

describe('cleaning rules (no data needed)', () => {
  it('renames, drops and keeps labels, keeping the original beside each change', () => {
    const counter = new QuirkCounter();
    const cleaned = cleanLabels(
      [
        'hello',
        'libgdal.so.37.3.12.0',
        'libmx-2.0.so.0.9905.0',
        '_sqlite3.cpython-310-x86_64-linux-gnu.so',
        'D8088EM.EXE',
        'zip.c.o',
        'makepatch.h.0',
        'nanobind-config.cmake',
        'LLM actually failed',
        'fw.hex',
        'bin',
        'libfoo.a',
      ],
      't',
      counter,
    );
    expect(cleaned.expected).toEqual([
      'hello',
      { name: 'libgdal.so', label: 'libgdal.so.37.3.12.0' },
      { name: 'libmx-2.0.so', label: 'libmx-2.0.so.0.9905.0' },
      { name: '_sqlite3.so', label: '_sqlite3.cpython-310-x86_64-linux-gnu.so' },
      { name: 'D8088EM', label: 'D8088EM.EXE' },
      'libfoo.a',
    ]);
    expect(cleaned.dropped.map((d) => d.label)).toEqual([
      'zip.c.o',
      'makepatch.h.0',
      'nanobind-config.cmake',
      'LLM actually failed',
      'fw.hex',
      'bin',
    ]);
    expect(cleaned.notes).toEqual(['BUILD-BENCH label (free text): LLM actually failed']);
    // Every rename gives the name the scorer reduces the label to, so matching is unchanged.
    for (const e of cleaned.expected) {
      if (typeof e !== 'string') expect(artifactBaseName(e.name)).toBe(artifactBaseName(e.label!));
    }
    // Every dropped label is one the scorer would set aside anyway (except the typo, which it cannot know).
    const setAside = normalizeExpected(cleaned.dropped.map((d) => d.label)).ignored.map((i) => i.name);
    expect(setAside).toEqual(cleaned.dropped.map((d) => d.label).filter((l) => l !== 'makepatch.h.0'));
  });

  it('splits trajectory cells on ", " and ",\\n", dropping empty pieces and keeping free text as notes', () => {
    const counter = new QuirkCounter();
    expect(
      parseTrajectoryCell(
        'https://github.com/a/b.git,\nhttps://x.org/doc?tab=readme-ov-file#build,  ',
        'a+b',
        counter,
      ),
    ).toEqual({
      urls: [
        { url: 'https://github.com/a/b', step: 1, label: 'https://github.com/a/b.git' },
        { url: 'https://x.org/doc#build', step: 2, label: 'https://x.org/doc?tab=readme-ov-file#build' },
      ],
      notes: [],
    });
    expect(parseTrajectoryCell('https://a.org/x (minimal instructions)', 't', counter)).toEqual({
      urls: [{ url: 'https://a.org/x', step: 1 }],
      notes: ['BUILD-BENCH trajectory note: (minimal instructions)'],
    });
    expect(
      parseTrajectoryCell('No build instructions but CMakeLists.txt available', 't', counter).urls,
    ).toEqual([]);
    expect(parseTrajectoryCell('None', 't', counter).notes).toHaveLength(1);
    const counts = counter.result();
    expect(counts['newline-separator']).toEqual({ lists: 1, names: 1 });
    expect(counts['trailing-separator']).toEqual({ lists: 1, names: 1 });
    expect(counts['double-space']).toEqual({ lists: 1, names: 1 });
    expect(counts['trajectory-free-text']).toEqual({ lists: 1, names: 2 });
  });

  it('reads the Python dict repr of the validation CSV, quotes and escapes included', () => {
    expect(parsePythonLiteral("{'trajectory': [{'step': 1, 'url': 'https://a'}], 'total_steps': 1}")).toEqual(
      {
        trajectory: [{ step: 1, url: 'https://a' }],
        total_steps: 1,
      },
    );
    expect(parsePythonLiteral(`['it\\'s', "say \\"hi\\"", None, True, -2.5]`)).toEqual([
      "it's",
      'say "hi"',
      null,
      true,
      -2.5,
    ]);
    expect(() => parsePythonLiteral("{'a': 1")).toThrow(/not a Python literal/);
  });
});

withData('the BUILD-BENCH import', () => {
  let out: string;
  let first: ImportResult;

  beforeAll(async () => {
    out = mkdtempSync(path.join(tmpdir(), 'bb-import-'));
    first = await importBuildBench({ out });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes 149 test and 70 validation tasks and IMPORT.md', () => {
    expect(first.files.filter((f) => f.startsWith('test/'))).toHaveLength(149);
    expect(first.files.filter((f) => f.startsWith('validation/'))).toHaveLength(70);
    expect(first.files).toContain('IMPORT.md');
    expect(first.files).toContain('test/OSGeo+gdal.yml');
    expect(first.files).toContain('validation/llama.cpp.yml');
  });

  it('counts every quirk as SOURCE.md does', () => {
    const c = first.counts;
    expect(c['object-file']).toEqual({ lists: 6, names: 12 });
    expect(c['object-file-typo']).toEqual({ lists: 1, names: 1 });
    expect(c['versioned-so']).toEqual({ lists: 7, names: 42 });
    expect(c['cmake-config']).toEqual({ lists: 1, names: 1 });
    expect(c['python-extension']).toEqual({ lists: 4, names: 4 });
    expect(c['windows-exe']).toEqual({ lists: 4, names: 4 });
    expect(c['free-text']).toEqual({ lists: 2, names: 2 });
    expect(c['static-library']).toEqual({ lists: 15, names: 26 });
    expect(c['not-elf']).toEqual({ lists: 2, names: 3 }); // pslab-firmware .hex and .map, the .apk
    expect(c['elf-image']).toEqual({ lists: 3, names: 3 });
    expect(c['a.out']).toEqual({ lists: 1, names: 1 });
    expect(c['directory']).toEqual({ lists: 1, names: 1 }); // file/file's `bin`
    expect(c['shared-name']).toEqual({ lists: 2, names: 2 }); // test_runner
    expect(c['not-compilable']).toEqual({ lists: 236, names: 236 });
    expect(c['compilable-no-but-labelled']).toEqual({ lists: 1, names: 1 }); // wjakob/nanobind
    expect(c['trajectory-none']).toEqual({ lists: 12, names: 12 });
    expect(c['git-suffix']!.lists).toBeGreaterThanOrEqual(1); // baldurk/renderdoc (and in the validation set)
    expect(c['validation-not-compilable']).toEqual({ lists: 5, names: 5 });
    expect(c['readme-instructions-yes']).toEqual({ lists: 28, names: 28 });
    expect(c['readme-instructions-no']).toEqual({ lists: 42, names: 42 });
    expect(c['joined-urls']).toEqual({ lists: 1, names: 1 }); // google/or-tools
    expect(c['validation-trailing-separator']).toEqual({ lists: 3, names: 3 }); // obs-studio, QtScrcpy, wrk
    expect(c['flat-json-disagree']).toEqual({ lists: 0, names: 0 });
    expect(c['moved-repository']).toEqual({ lists: 1, names: 1 }); // llama.cpp
    expect(c['overlaps-test-set']).toEqual({ lists: 1, names: 1 }); // alibaba/MNN
    const report = readFileSync(path.join(out, 'IMPORT.md'), 'utf8').replace(/ {2,}/g, ' ');
    for (const [file, sha] of Object.entries(PINNED_SHA256))
      expect(report).toContain(`| \`${file}\` | \`${sha}\` |`);
    expect(report).toMatch(/\| versioned-so \| 7 \| 42 \|/);
  });

  it('gives byte-identical files when run again', async () => {
    const before = tree(out);
    writeFileSync(path.join(out, 'test', 'stale+left-over.yml'), 'kind: build\n');
    const second = await importBuildBench({ out });
    expect(second).toEqual(first);
    expect(tree(out)).toEqual(before);
  });

  it('equals the committed tasks/build-bench', () => {
    expect(tree(path.resolve('tasks/build-bench'))).toEqual(tree(out));
  });

  it('writes files that all load, with the cleaned names and the originals beside them', async () => {
    const tasks = (await loadTasks([out], { root: out })) as BuildTask[];
    expect(tasks).toHaveLength(219);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const gdal = byId.get('OSGeo+gdal')!;
    expect(gdal).toMatchObject({
      suite: 'test',
      repository: { source: 'OSGeo/gdal', branch: 'master' },
      expected: [{ name: 'libgdal.so', label: 'libgdal.so.37.3.12.0' }],
    });
    expect(gdal.instructions.map((i) => i.step)).toEqual([1, 2, 3]);
    expect(byId.get('wjakob+nanobind')).toMatchObject({
      expected: [],
      dropped: [{ label: 'nanobind-config.cmake' }],
    });
    const llama = byId.get('llama.cpp')!;
    expect(llama).toMatchObject({
      suite: 'validation',
      repository: { source: 'ggerganov/llama.cpp' },
      expected: [],
    });
    expect(llama.notes.join('\n')).toMatch(/engine infers/);
    expect(byId.get('or-tools')!.instructions.filter((i) => i.step === 2)).toHaveLength(2);
  });

  it('refuses a source whose files differ from SOURCE.md’s hashes, writing nothing', async () => {
    const source = mkdtempSync(path.join(tmpdir(), 'bb-source-'));
    try {
      for (const file of [...Object.keys(PINNED_SHA256), 'SOURCE.md'])
        copyFileSync(path.join(DEFAULT_SOURCE, file), path.join(source, file));
      await expect(checkSources(source)).resolves.toHaveLength(6);
      writeFileSync(path.join(source, 'compilation_label.json'), '{}\n');
      const target = path.join(source, 'out');
      await expect(importBuildBench({ source, out: target })).rejects.toThrow(
        /compilation_label\.json: sha256 [0-9a-f]{64} differs from SOURCE\.md's 405881cf.*refusing to import/,
      );
      expect(existsSync(target)).toBe(false);
    } finally {
      rmSync(source, { recursive: true, force: true });
    }
  });
});
