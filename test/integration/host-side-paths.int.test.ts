/**
 * Host-side code never follows a symbolic link out of the tree it reads or copies (issue 11, item 4). Each case
 * is a hostile repository written here and built for real in the rootfs sandbox; the secret is a marker file
 * in a host folder the test made, which a build can only name by the text of a symbolic link (the sandbox
 * cannot see host paths) — host-side code that follows such a link copies the marker out.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runBuild } from '../../src/core/run-build.js';
import { sandboxSettingsFrom, type BuildSettings } from '../../src/core/settings.js';
import type { BuildResult } from '../../src/report/result.js';
import { hostMountsUnder } from '../helpers/sandbox.js';

const top = mkdtempSync(path.join(tmpdir(), 'bb-int-hostpaths-'));
const secretDir = mkdtempSync(path.join(tmpdir(), 'bb-secret-'));
const MARKER = `bb-marker-${randomBytes(8).toString('hex')}`;

afterAll(() => {
  expect(hostMountsUnder(sandboxSettingsFrom(process.env, 'rootfs', undefined).workRoot)).toEqual([]);
  execFileSync('rm', ['-rf', top, secretDir]);
});

function repo(name: string, files: Record<string, string>): string {
  const root = path.join(top, 'repos', name);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  return root;
}

function settings(source: string, overrides: Partial<BuildSettings> = {}): BuildSettings {
  return {
    source,
    outDir: path.join(top, 'out', path.basename(source)),
    strategy: 'rules',
    maxTurns: 3,
    timeoutMs: 8 * 60_000,
    turnTimeoutMs: 4 * 60_000,
    expect: [],
    json: false,
    keep: false,
    sandbox: sandboxSettingsFrom(process.env, 'rootfs', undefined),
    ...overrides,
  };
}

/** Every file under `dir` (links not followed) whose bytes contain `needle`, relative to `dir`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = path.join(abs, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && readFileSync(child).includes(needle)) hits.push(path.relative(dir, child));
      else if (entry.isSymbolicLink()) hits.push(`${path.relative(dir, child)} (a symbolic link)`);
    }
  };
  walk(dir);
  return hits;
}

function readResult(outDir: string): BuildResult {
  return JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8')) as BuildResult;
}

/** A program that, when probed with --version or --help, replaces its own folder by a link to `target`. */
const SWAPPING_TOOL = (target: string): string => `#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "--help") == 0)) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 0;
    self[n] = 0;
    char *dir = dirname(self);
    char moved[4200];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    rename(dir, moved);
    symlink(${JSON.stringify(target)}, dir);
    puts("tool 1.0");
    return 0;
  }
  puts("hello");
  return 0;
}
`;

describe('host-side code and symbolic links (rootfs sandbox, real builds)', () => {
  it('a binary that swaps its folder for a link when probed: artifacts/ holds the real binary, never the host file', async () => {
    const host = path.join(secretDir, 'probe');
    mkdirSync(host);
    // the name the copy would look up through the swapped folder
    writeFileSync(path.join(host, 'tool'), `${MARKER}\n`);
    const source = repo('probe-swap', {
      'tool.c': SWAPPING_TOOL(host),
      Makefile: 'all: bin/tool\n\nbin/tool: tool.c\n\tmkdir -p bin\n\t$(CC) -O0 -o bin/tool tool.c\n',
    });
    const s = settings(source, { expect: ['tool'] });
    const result = await runBuild(s);
    expect(result.status).toBe('success');
    // The probe rode on the build's own command: the swap happened before the tree was judged, so the binary
    // is judged and copied where the swap moved it, and the link bin → this machine's folder is never followed.
    const tool = result.artifacts.find((a) => path.basename(a.path) === 'tool');
    expect(tool?.path).toBe('bin.moved/tool');
    expect(tool?.copiedTo).toBe('artifacts/bin.moved/tool');
    // the copy is the ELF the build made, a regular file
    const copy = path.join(s.outDir, 'artifacts', 'bin.moved', 'tool');
    expect(lstatSync(copy).isFile()).toBe(true);
    expect(readFileSync(copy).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    // the probes did run (and did swap the folder, twice: in the turn's command, then on its own after the
    // copy, as the program had moved): the attack was live
    expect(result.verification?.checks.some((c) => c.name === 'probe run bin.moved/tool')).toBe(true);
    expect(filesContaining(s.outDir, MARKER)).toEqual([]);
  }, 600_000);

  it('the same binary probed during the build (a spec asks for run probes): the copy is refused with a note', async () => {
    const host = path.join(secretDir, 'probe-in-loop');
    mkdirSync(host);
    writeFileSync(path.join(host, 'tool'), `${MARKER}\n`);
    const source = repo('probe-swap-spec', {
      'tool.c': SWAPPING_TOOL(host),
      Makefile: 'all: bin/tool\n\nbin/tool: tool.c\n\tmkdir -p bin\n\t$(CC) -O0 -o bin/tool tool.c\n',
    });
    const spec = path.join(top, 'probe-spec.yml');
    writeFileSync(spec, 'name: probes-only\nprobes: { run: true }\n');
    const s = settings(source, { expect: ['tool'], spec });
    const result = await runBuild(s);
    const tool = result.artifacts.find((a) => a.path === 'bin/tool');
    expect(tool?.copiedTo).toBeUndefined();
    expect(tool?.copyError).toMatch(/folder bin on its path is a symbolic link/);
    expect(readFileSync(path.join(s.outDir, 'RUNBOOK.md'), 'utf8')).toMatch(
      /Not copied to `artifacts\/`: `bin\/tool`/,
    );
    expect(filesContaining(s.outDir, MARKER)).toEqual([]);
  }, 600_000);

  it('a build that replaces a committed source folder by a link: no patch holds the host file', async () => {
    const host = path.join(secretDir, 'patch');
    mkdirSync(host);
    writeFileSync(path.join(host, 'shadow'), `root:${MARKER}:19000:0:99999:7:::\n`);
    const source = repo('patch-swap', {
      'etc/shadow': 'placeholder\n',
      'hello.c': 'int main(void) { return 0; }\n',
      Makefile: `all: hello\n\nhello: hello.c\n\trm -rf etc && ln -s ${host} etc\n\t$(CC) -o hello hello.c\n`,
    });
    const s = settings(source, { expect: ['hello'] });
    const result = await runBuild(s);
    expect(result.status).toBe('success');
    expect(filesContaining(s.outDir, MARKER)).toEqual([]);
    // the changed path is told, not turned into a patch
    expect(result.patches ?? []).toEqual([]);
    const events = readFileSync(path.join(s.outDir, 'trajectory.jsonl'), 'utf8');
    expect(events).not.toContain(MARKER);
  }, 600_000);

  it('a committed CMakeLists.txt linked to a host file: its names reach neither result.json nor the RUNBOOK', async () => {
    const leaked = `leaked_name_${randomBytes(4).toString('hex')}`;
    const hostFile = path.join(secretDir, 'CMakeLists.txt');
    writeFileSync(
      hostFile,
      `cmake_minimum_required(VERSION 3.10)\nproject(${leaked} C)\nadd_executable(${leaked} main.c)\n`,
    );
    const source = repo('cmake-link', {
      'main.c': 'int main(void) { return 0; }\n',
      Makefile: 'all: hello\n\nhello: main.c\n\t$(CC) -o hello main.c\n',
    });
    symlinkSync(hostFile, path.join(source, 'CMakeLists.txt'));
    const s = settings(source);
    const result = await runBuild(s);
    expect(JSON.stringify(result)).not.toContain(leaked);
    expect(readFileSync(path.join(s.outDir, 'RUNBOOK.md'), 'utf8')).not.toContain(leaked);
    expect(filesContaining(s.outDir, leaked)).toEqual([]);
  }, 600_000);

  it('a committed .buildbench link to a host folder: the probes and the replay write nothing through it', async () => {
    const host = path.join(secretDir, 'scratch-target');
    mkdirSync(host);
    const source = repo('scratch-link', {
      'hello.c': 'int main(void) { return 0; }\n',
      Makefile: 'all: hello\n\nhello: hello.c\n\t$(CC) -o hello hello.c\n',
    });
    symlinkSync(host, path.join(source, '.buildbench'));
    // A replay in a new sandbox, which would place build.sh under .buildbench/replay (through the link).
    const s = settings(source, { expect: ['hello'], replay: 'always' });
    const result = await runBuild(s);
    expect(result.status).toBe('success');
    expect(readdirSync(host)).toEqual([]);
    const probe = result.verification?.checks.find((c) => c.name === 'probe run hello');
    expect(probe).toMatchObject({ passed: false, required: false });
    expect(probe?.detail).toMatch(/symbolic link/);
    expect(result.recipe?.verified).toBe(false);
    expect(result.recipe?.replay.reason).toMatch(/symbolic link|link/);
  }, 600_000);

  it('binaries named with a newline or with bytes that are not UTF-8 are listed and copied', async () => {
    const source = repo('odd-names', {
      'hello.c': 'int main(void) { return 0; }\n',
      Makefile:
        'all:\n\t$(CC) -o hello hello.c\n\t$(CC) -o "$$(printf \'new\\nline\')" hello.c\n\t$(CC) -o "$$(printf \'caf\\351\')" hello.c\n',
    });
    const s = settings(source, { expect: ['hello'] });
    const result = await runBuild(s);
    expect(result.status).toBe('success');
    const listed = [...result.artifacts, ...(result.excludedArtifacts ?? [])];
    // listed escaped (no newline reaches a terminal line or a Markdown table), with the real bytes
    const newline = listed.find((a) => a.path === 'new\\x0aline');
    expect(newline).toMatchObject({
      kind: 'executable',
      copiedTo: 'artifacts/new\\x0aline',
      pathBase64: Buffer.from('new\nline').toString('base64'),
    });
    const latin1 = listed.find((a) => a.path === 'caf\\xe9');
    expect(latin1).toMatchObject({
      kind: 'executable',
      pathBase64: Buffer.from('caf\xe9', 'latin1').toString('base64'),
    });
    expect(readResult(s.outDir).artifacts).toEqual(result.artifacts);
    // the copies carry the real names
    const names = readdirSync(Buffer.from(path.join(s.outDir, 'artifacts')), { encoding: 'buffer' });
    expect(names.map((n) => n.toString('latin1')).sort()).toEqual(['caf\xe9', 'hello', 'new\nline']);
  }, 600_000);
});
