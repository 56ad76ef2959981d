import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { prepareBuildCache } from '../../../src/sandbox/build-cache.js';

describe('prepareBuildCache checks apt/ only when it changed', () => {
  it('leaves an unchanged apt/ alone and checks it again once it changes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bb-cache-check-'));
    const { layout } = await prepareBuildCache(root); // first use: a full check, recorded
    const before = await stat(layout.apt);
    // A file apt/ must not hold (not named by its hash), with the folder's mtime put back: as if unchanged.
    await writeFile(join(layout.apt, 'zlib1g_1.0_amd64.deb'), 'x');
    await utimes(layout.apt, before.atimeMs / 1000, before.mtimeMs / 1000);
    await prepareBuildCache(root);
    expect(await readdir(layout.apt)).toEqual(['zlib1g_1.0_amd64.deb']);
    // Once the folder's mtime moves, the next sandbox's preparation checks every file again.
    await utimes(layout.apt, new Date(), new Date(Date.now() + 5000));
    await prepareBuildCache(root);
    const names = await readdir(layout.apt);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^[0-9a-f]{64}\.deb$/);
  });
});
