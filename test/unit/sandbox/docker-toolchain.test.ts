import { describe, expect, it } from '@jest/globals';

import {
  toolchainDockerfile,
  toolchainImageDir,
  toolchainImageTag,
  toolchainScripts,
} from '../../../src/sandbox/docker-toolchain.js';
import { BUILD_CACHE_SETUP_SCRIPT } from '../../../src/sandbox/build-cache.js';
import { TOOLCHAIN_PACKAGES } from '../../../src/sandbox/rootfs.js';

const BASE = `sha256:${'ab'.repeat(32)}`;
const OTHER_BASE = `sha256:${'cd'.repeat(32)}`;

describe('the docker toolchain image', () => {
  it('is tagged by the base image id and the hash of what runs on it', () => {
    const tag = toolchainImageTag(BASE, true);
    expect(tag).toMatch(/^buildbench-toolchain:abababababab-[0-9a-f]{10}$/);
    expect(toolchainImageTag(BASE, true)).toBe(tag);
    // Another base, or the build cache's setup left out, is another image.
    expect(toolchainImageTag(OTHER_BASE, true)).not.toBe(tag);
    expect(toolchainImageTag(OTHER_BASE, true)).toMatch(/^buildbench-toolchain:cdcdcdcdcdcd-/);
    expect(toolchainImageTag(BASE, false)).not.toBe(tag);
  });

  it('runs the rootfs toolchain script, then the build cache setup when a cache is used', () => {
    const { scripts } = toolchainScripts(true);
    expect(scripts).toHaveLength(2);
    for (const name of TOOLCHAIN_PACKAGES) expect(scripts[0]).toContain(name);
    expect(scripts[0]).toContain('apt-file update');
    expect(scripts[0]).toMatch(/^export DEBIAN_FRONTEND=noninteractive\n/);
    expect(scripts[1]).toBe(BUILD_CACHE_SETUP_SCRIPT);
    expect(toolchainScripts(false).scripts).toEqual([scripts[0]]);
  });

  it('renders a Dockerfile whose RUNs carry the scripts byte for byte and restores the base user', () => {
    const scripts = ['set -e\necho "a b" \'c\'\nprintf "%s\\n" x', 'echo second'];
    const text = toolchainDockerfile('buildbench-toolchain-base:abababababab', scripts, 'builder');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('FROM buildbench-toolchain-base:abababababab');
    expect(lines[1]).toBe('USER root');
    const runs = lines.filter((l) => l.startsWith('RUN '));
    expect(runs.map((l) => (JSON.parse(l.slice(4)) as string[])[2])).toEqual(scripts);
    expect(lines.at(-1)).toBe('USER builder');
    // A base that runs as root (or says nothing) gets no USER line at the end.
    expect(toolchainDockerfile('b:1', scripts, '').trimEnd().split('\n').at(-1)).toMatch(/^RUN /);
    expect(toolchainDockerfile('b:1', scripts, 'root').trimEnd().split('\n').at(-1)).toMatch(/^RUN /);
  });

  it('keeps the package lists of each image in a folder named by the image id', () => {
    expect(toolchainImageDir('/c', BASE)).toBe('/c/docker/abababababababab');
    expect(toolchainImageDir('/c', OTHER_BASE)).not.toBe(toolchainImageDir('/c', BASE));
  });
});
