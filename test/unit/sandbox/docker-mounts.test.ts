import { describe, expect, it } from '@jest/globals';

import { buildCacheMounts, repositoryCacheKey } from '../../../src/sandbox/build-cache.js';
import { DockerSandbox } from '../../../src/sandbox/docker.js';

describe('DockerSandbox.mounts', () => {
  it('mounts the workspace and, of the build cache, only the repository’s store, apt/ read-only and its own incoming folder', () => {
    const key = repositoryCacheKey('url:github.com/a/b');
    const box = new DockerSandbox(
      'b-1a2b3c4d',
      'img',
      '/work/b-1a2b3c4d',
      '/c',
      buildCacheMounts('/c', key, 'b-1a2b3c4d'),
    );
    expect(box.mounts()).toEqual([
      '/work/b-1a2b3c4d/workspace:/workspace',
      `/c/ccache/${key}:/var/cache/buildbench/ccache`,
      '/c/apt:/var/cache/buildbench/apt:ro',
      '/c/incoming/b-1a2b3c4d:/var/cache/buildbench/incoming',
    ]);
    expect(new DockerSandbox('b', 'img', '/work/b').mounts()).toEqual(['/work/b/workspace:/workspace']);
  });
});
