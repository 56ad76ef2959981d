/** The tree scan on names that are not UTF-8 or hold control characters, and on folders swapped for links. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { scanNewArtifacts, snapshotTree } from '../../../src/verify/artifacts.js';

const top = mkdtempSync(path.join(tmpdir(), 'bb-odd-names-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

const ELF = '/bin/true';

describe('scanNewArtifacts', () => {
  it('lists binaries whose names are not UTF-8 or hold a newline, escaped, with their bytes', async () => {
    const root = path.join(top, 'odd');
    const dir = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x64, 0xff])]);
    mkdirSync(dir, { recursive: true });
    copyFileSync(ELF, Buffer.concat([dir, Buffer.from('/tool')]));
    copyFileSync(ELF, path.join(root, 'new\nline'));
    copyFileSync(ELF, path.join(root, 'plain'));
    const found = await scanNewArtifacts(root, new Map());
    expect(
      found.map((a) => [a.path, a.pathBase64 && Buffer.from(a.pathBase64, 'base64').toString('latin1')]),
    ).toEqual([
      ['d\\xff/tool', 'd\xff/tool'],
      ['new\\x0aline', 'new\nline'],
      ['plain', undefined],
    ]);
  });

  it('never descends into a folder that is a link, inside or outside the tree', async () => {
    const root = path.join(top, 'links');
    const outside = path.join(top, 'outside');
    mkdirSync(outside, { recursive: true });
    copyFileSync(ELF, path.join(outside, 'host-binary'));
    mkdirSync(path.join(root, 'real'), { recursive: true });
    copyFileSync(ELF, path.join(root, 'real', 'tool'));
    symlinkSync(outside, path.join(root, 'out-link'));
    symlinkSync('real', path.join(root, 'in-link'));
    const snapshot = await snapshotTree(root);
    expect([...snapshot.keys()]).toEqual(['real/tool']);
  });
});
