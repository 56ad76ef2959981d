import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  buildContentsIndex,
  ContentsIndex,
  ensureContentsIndex,
  literalPrefix,
} from '../../../../src/knowledge/repair/contents-index.js';
import {
  buildLookupScript,
  queryFor,
  type NeedQuery,
  type PolicyEntry,
} from '../../../../src/knowledge/repair/package-index.js';
import {
  resolvePackages,
  shellRunner,
  type PackageIndexRunner,
} from '../../../../src/knowledge/repair/packages.js';
import type { Need } from '../../../../src/knowledge/repair/needs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bb-contents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small Contents file in the archive's format: path, spaces, section/package list. */
const CONTENTS = [
  'usr/include/zlib.h                                      libdevel/zlib1g-dev',
  'usr/include/Poco/zlib.h                                 libdevel/libpoco-dev',
  'usr/i686-w64-mingw32/include/zlib.h                     libdevel/libz-mingw-w64-dev',
  'usr/lib/x86_64-linux-gnu/pkgconfig/jansson.pc           libdevel/libjansson-dev',
  'usr/lib/x86_64-linux-gnu/pkgconfig/yaml-0.1.pc          libdevel/libyaml-dev',
  'usr/lib/x86_64-linux-gnu/libpng.so                      libdevel/libpng-dev',
  'usr/lib/python3/dist-packages/yaml/__init__.py          python/python3-yaml',
  'usr/lib/python3/dist-packages/other/yaml/__init__.py    python/python3-other',
  'usr/bin/xxd                                             editors/xxd,editors/vim-common',
  'usr/share/doc/zlib1g-dev/copyright                      libdevel/zlib1g-dev',
  'usr/share/aclocal/ax_pthread.m4                         devel/autoconf-archive',
].join('\n');

const haveLz4 = (() => {
  try {
    execFileSync('lz4', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function query(kind: Need['kind'], name: string): NeedQuery {
  const q = queryFor({ kind, name });
  if (!q) throw new Error(`no query for ${kind}:${name}`);
  return q;
}

async function builtIndex(): Promise<ContentsIndex> {
  const lists = path.join(dir, 'lists');
  mkdirSync(lists, { recursive: true });
  writeFileSync(path.join(lists, 'Contents-amd64'), `${CONTENTS}\n`);
  execFileSync('lz4', [
    '-q',
    '-f',
    path.join(lists, 'Contents-amd64'),
    path.join(lists, 'x_main_Contents-amd64.lz4'),
  ]);
  const index = await ensureContentsIndex(lists, path.join(dir, 'index.tsv'));
  if (!index) throw new Error('index not built');
  return index;
}

describe('literalPrefix', () => {
  it('keeps the literal start of a tail regex', () => {
    expect(literalPrefix('zlib\\.h')).toBe('zlib.h');
    expect(literalPrefix('yaml\\.[^/]*so')).toBe('yaml.');
    expect(literalPrefix('libfoo\\.(?:so|a)')).toBe('libfoo.');
    expect(literalPrefix('abc?')).toBe('ab');
    expect(literalPrefix('\\d+x')).toBe('');
  });
});

(haveLz4 ? describe : describe.skip)('ContentsIndex (needs lz4 on this machine)', () => {
  it('finds what apt-file finds for each need kind, and drops paths no need can place', async () => {
    const index = await builtIndex();
    const hits = (q: NeedQuery): string[] => index.search([q]).map((h) => `${h.pkg}:${h.path}`);
    expect(hits(query('header', 'zlib.h')).sort()).toEqual([
      'libpoco-dev:/usr/include/Poco/zlib.h',
      'libz-mingw-w64-dev:/usr/i686-w64-mingw32/include/zlib.h',
      'zlib1g-dev:/usr/include/zlib.h',
    ]);
    expect(hits(query('pkgconfig', 'yaml-0.1'))).toEqual([
      'libyaml-dev:/usr/lib/x86_64-linux-gnu/pkgconfig/yaml-0.1.pc',
    ]);
    expect(hits(query('library', 'png'))).toEqual(['libpng-dev:/usr/lib/x86_64-linux-gnu/libpng.so']);
    expect(hits(query('python-module', 'yaml')).sort()).toEqual([
      'python3-other:/usr/lib/python3/dist-packages/other/yaml/__init__.py',
      'python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py',
    ]);
    expect(hits(query('command', 'xxd'))).toEqual(['xxd:/usr/bin/xxd', 'vim-common:/usr/bin/xxd']);
    expect(hits(query('m4-macro', 'AX_PTHREAD'))).toEqual([
      'autoconf-archive:/usr/share/aclocal/ax_pthread.m4',
    ]);
    expect(hits(query('header', 'nosuch.h'))).toEqual([]);
    expect(index.covers(query('file', '/usr/share/doc/zlib1g-dev/copyright'))).toBe(false);
    expect(index.covers(query('file', '/usr/lib/x86_64-linux-gnu/libpng.so'))).toBe(true);
    index.close();
  });

  it('lets the resolver skip apt-file: the sandbox script only lists the hits and asks apt-cache', async () => {
    const index = await builtIndex();
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const fake = (name: string, body: string): void => {
      writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(path.join(bin, name), 0o755);
    };
    fake('apt-file', 'echo "apt-file must not run" >&2; exit 99');
    fake('apt-get', 'exit 0');
    fake(
      'apt-cache',
      'for p in "$@"; do [ "$p" = policy ] && continue; echo "$p:"; echo "  Installed: (none)"; echo "  Candidate: 1.0"; done',
    );
    const scripts: string[] = [];
    const host = shellRunner();
    const runner: PackageIndexRunner = {
      run: (script) => {
        scripts.push(script);
        return host.run(`export PATH=${bin}:$PATH\n${script}`);
      },
    };
    const [zlib, yaml] = await resolvePackages(
      [
        { kind: 'header', name: 'zlib.h' },
        { kind: 'pkgconfig', name: 'yaml-0.1' },
      ],
      runner,
      { index },
    );
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).not.toContain('apt-file search');
    expect(zlib).toMatchObject({ package: 'zlib1g-dev', via: 'apt-file' });
    expect(yaml).toMatchObject({ package: 'libyaml-dev' });
    index.close();
  });

  it("with apt's answer from the image's package state, runs nothing; without it, asks apt-cache", async () => {
    const index = await builtIndex();
    const needs: Need[] = [
      { kind: 'header', name: 'zlib.h' },
      { kind: 'pkgconfig', name: 'yaml-0.1' },
    ];
    const runs: string[] = [];
    const runner: PackageIndexRunner = {
      run: (script) => {
        runs.push(script);
        return Promise.resolve({ exitCode: 0, output: '' });
      },
    };
    const asked: string[][] = [];
    const policy = (names: readonly string[]): Map<string, PolicyEntry> => {
      asked.push([...names]);
      return new Map<string, PolicyEntry>([
        ['zlib1g-dev', { candidate: '1:1.2.13', installed: '1:1.2.13' }],
        ['libyaml-dev', { candidate: '0.2.5-1' }],
      ]);
    };
    const [zlib, yaml] = await resolvePackages(needs, runner, { index, policy });
    expect(runs).toHaveLength(0);
    expect(zlib).toMatchObject({ package: 'zlib1g-dev', via: 'apt-file', installed: true });
    expect(yaml).toMatchObject({ package: 'libyaml-dev', via: 'apt-file' });
    expect(yaml?.installed).toBeUndefined();
    // The names asked are the ones the script would ask apt-cache about (its `set --` line).
    const script = buildLookupScript(
      needs.map((n) => queryFor(n)!),
      [],
      undefined,
      index.search(needs.map((n) => queryFor(n)!)),
    );
    expect(script).toContain(`set -- ${asked[0]!.join(' ')}\n`);

    // No answer (the sandbox installed something since): the look-up runs in the sandbox as before.
    const again = await resolvePackages(needs, runner, { index, policy: () => undefined });
    expect(runs).toHaveLength(1);
    expect(runs[0]).not.toContain('apt-file search');
    expect(again[0]?.package).toBeUndefined(); // the runner answered nothing: apt-cache confirmed nothing
    index.close();
  });

  it('reports that it cannot build without Contents files', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    expect(await buildContentsIndex(empty, path.join(dir, 'none.tsv'))).toBe(false);
    expect(ContentsIndex.open(path.join(dir, 'none.tsv'))).toBeUndefined();
  });
});
