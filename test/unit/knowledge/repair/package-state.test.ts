/**
 * The image's package state answered on this machine (package-state.ts): the dump checked before it is kept,
 * made once per stack of layers and only in a sandbox whose packages are still the image's, and apt's answer
 * read back by binary search; the services answer from it while the sandbox has the image's packages.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
  checkedPackageState,
  ensurePackageState,
  PACKAGE_STATE_SCRIPT,
  PackageState,
  packageStateFile,
} from '../../../../src/knowledge/repair/package-state.js';
import { createServices, knownPackages, packageStatus } from '../../../../src/knowledge/index.js';
import type { ExecOptions, ExecResult } from '../../../../src/sandbox/types.js';
import { FakeSandbox } from '../../../fakes/fake-sandbox.js';

const root = mkdtempSync(path.join(tmpdir(), 'bb-package-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fake sandbox with package lists on "this machine" whose dump answers `dump` (written to the log, as exec does). */
class ListedSandbox extends FakeSandbox {
  asImageNow = true;
  constructor(
    readonly cacheDir: string,
    dump: (options: ExecOptions) => Partial<ExecResult> & { log?: string },
  ) {
    super((_script, _n, options) => {
      const { log, ...rest } = dump(options);
      if (log !== undefined && options.logPath) writeFileSync(options.logPath, log);
      return rest;
    });
  }
  get packageLists(): { listsDir: string; cacheDir: string; stack: string; asImage(): boolean } {
    return {
      listsDir: '/nonexistent',
      cacheDir: this.cacheDir,
      stack: 'abc123',
      asImage: () => this.asImageNow,
    };
  }
}

const DUMP = [
  'bash\t5.2.15-2\t5.2.15-2',
  'libc6-dev\t2.36-9\t2.36-9',
  'zlib1g-dev\t1:1.2.13\t(none)',
  '',
].join('\n');

describe('the dump, checked', () => {
  it('keeps sorted lines of a package and two versions with something installed', () => {
    expect(checkedPackageState(DUMP)).toBe(DUMP);
  });

  it('refuses a dump that is empty, unsorted, malformed, has nothing installed or nothing to install', () => {
    expect(checkedPackageState('bash\t(none)\t5.2\nzsh\t(none)\t5.9\n')).toBeUndefined(); // no lists
    expect(checkedPackageState('')).toBeUndefined();
    expect(checkedPackageState('zlib1g-dev\t1\t1\nbash\t1\t1\n')).toBeUndefined();
    expect(checkedPackageState('bash\t1\t1\nbuildbench sandbox setup: cannot mount\n')).toBeUndefined();
    expect(checkedPackageState('Bash\t1\t1\n')).toBeUndefined();
    expect(checkedPackageState('bash\t1\t(none)\nzsh\t1\t(none)\n')).toBeUndefined();
  });

  it('the script merges the candidates and the installed packages into one sorted line each (real awk and sort)', () => {
    const bin = mkdtempSync(path.join(root, 'bin-'));
    const fake = (name: string, body: string): void =>
      writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    fake(
      'apt-cache',
      'printf "Package: zlib1g-dev\\nVersion: 1:1.2.13\\nArchitecture: amd64\\n\\nPackage: bash\\nVersion: 5.2\\n\\nPackage: libc6-dev\\nVersion: 2.36-9\\n"',
    );
    fake(
      'dpkg-query',
      'printf "installed\\tlibc6-dev\\t2.36-9\\nconfig-files\\told-thing\\t1.0\\ninstalled\\tbash\\t5.1\\n"',
    );
    const out = execFileSync('bash', ['-c', `export PATH=${bin}:$PATH\n${PACKAGE_STATE_SCRIPT}`], {
      encoding: 'utf8',
    });
    expect(out).toBe('bash\t5.2\t5.1\nlibc6-dev\t2.36-9\t2.36-9\nzlib1g-dev\t1:1.2.13\t(none)\n');
    expect(checkedPackageState(out)).toBe(out);
  });
});

describe('ensurePackageState', () => {
  it('dumps once per stack of layers, offline, and keeps the checked file', async () => {
    const dir = mkdtempSync(path.join(root, 'layer-'));
    const options: ExecOptions[] = [];
    const box = new ListedSandbox(dir, (o) => {
      options.push(o);
      return { log: DUMP };
    });
    expect(await ensurePackageState(box)).toBe(true);
    const file = packageStateFile(box.packageLists);
    expect(readFileSync(file, 'utf8')).toBe(DUMP);
    expect(options[0]?.offline).toBe(true);
    expect(await ensurePackageState(box)).toBe(true);
    expect(box.scripts).toHaveLength(1); // there already: nothing runs
    expect(existsSync(options[0]!.logPath!)).toBe(false); // the dump's log is removed
  });

  it('never dumps from a sandbox whose packages are no longer the image’s', async () => {
    const box = new ListedSandbox(mkdtempSync(path.join(root, 'layer-')), () => ({ log: DUMP }));
    box.asImageNow = false;
    expect(await ensurePackageState(box)).toBe(false);
    expect(box.scripts).toHaveLength(0);
  });

  it('keeps nothing when the dump fails or does not check, and does nothing without lists here', async () => {
    const failing = new ListedSandbox(mkdtempSync(path.join(root, 'layer-')), () => ({
      exitCode: 100,
      log: DUMP,
    }));
    expect(await ensurePackageState(failing)).toBe(false);
    expect(existsSync(packageStateFile(failing.packageLists))).toBe(false);
    const garbled = new ListedSandbox(mkdtempSync(path.join(root, 'layer-')), () => ({
      log: 'E: no lists\n',
    }));
    expect(await ensurePackageState(garbled)).toBe(false);
    expect(existsSync(packageStateFile(garbled.packageLists))).toBe(false);
    const docker = new FakeSandbox(() => ({}));
    expect(await ensurePackageState(docker)).toBe(false);
    expect(docker.scripts).toHaveLength(0);
  });
});

describe('PackageState', () => {
  // Many packages, names that begin other names (libz, libz-dev), a file far larger than one read.
  const names = Array.from({ length: 20_000 }, (_, i) => `pkg${String(i).padStart(5, '0')}-dev`);
  names.push('libz', 'libz-dev', 'libz1');
  const lines = names
    .sort()
    .map((n) => `${n}\t1.${n.length}\t${n === 'libz1' || n.endsWith('7-dev') ? '1.0' : '(none)'}`);
  const file = path.join(root, 'state.tsv');
  writeFileSync(file, `${lines.join('\n')}\n`);

  it('answers as apt-cache policy would: installed and candidate versions, nothing for an unknown name', () => {
    const state = PackageState.open(file)!;
    const policy = state.policy([
      'libz',
      'libz-dev',
      'libz1',
      'pkg12347-dev',
      'pkg00000-dev',
      'nope',
      'BAD NAME',
    ]);
    expect(policy.get('libz')).toEqual({ candidate: '1.4' });
    expect(policy.get('libz-dev')).toEqual({ candidate: '1.8' });
    expect(policy.get('libz1')).toEqual({ candidate: '1.5', installed: '1.0' });
    expect(policy.get('pkg12347-dev')).toEqual({ candidate: '1.12', installed: '1.0' });
    expect(policy.get('pkg00000-dev')).toEqual({ candidate: '1.12' });
    expect(policy.has('nope')).toBe(false);
    expect(policy.has('BAD NAME')).toBe(false);
    state.close();
    expect(PackageState.open(path.join(root, 'missing.tsv'))).toBeUndefined();
  });
});

describe('the services answer from it while the sandbox has the image’s packages', () => {
  it('package status and known names without a command; with one once packages changed', async () => {
    const dir = mkdtempSync(path.join(root, 'layer-'));
    const box = new ListedSandbox(dir, (o) =>
      o.logPath ? { log: DUMP } : { output: 'zlib1g-dev 1:1.2.13 1:1.2.13\n' },
    );
    expect(await ensurePackageState(box)).toBe(true);
    const services = createServices(box);
    const ran = box.scripts.length;
    expect(await services.packageStatus!(['libc6-dev', 'zlib1g-dev', 'no-such-package'])).toEqual(
      new Map([
        ['libc6-dev', 'installed'],
        ['zlib1g-dev', 'available'],
      ]),
    );
    expect(await services.knownPackages!(['zlib1g-dev', 'no-such-package'])).toEqual(['zlib1g-dev']);
    expect(box.scripts).toHaveLength(ran);

    box.asImageNow = false; // a turn installed zlib1g-dev: apt inside says so
    expect(await services.packageStatus!(['zlib1g-dev'])).toEqual(new Map([['zlib1g-dev', 'installed']]));
    expect(box.scripts).toHaveLength(ran + 1);
    expect(box.scripts[ran]).toContain('apt-cache policy zlib1g-dev');
  });

  it('without an answer the functions ask apt inside, as before', async () => {
    const box = new FakeSandbox((script) => ({
      output: script.includes('apt-cache show') ? 'known:zlib1g-dev\n' : 'zlib1g-dev (none) 1:1.2.13\n',
    }));
    expect(await packageStatus(box, ['zlib1g-dev'], () => undefined)).toEqual(
      new Map([['zlib1g-dev', 'available']]),
    );
    expect(await knownPackages(box, ['zlib1g-dev'])).toEqual(['zlib1g-dev']);
    expect(box.scripts).toHaveLength(2);
  });
});
