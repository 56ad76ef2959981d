import { describe, expect, it } from '@jest/globals';

import { labelledTarget, scoreRetrieval } from '../../../src/bench/retrieval-score.js';

describe('labelledTarget: a labelled instruction URL as a repository document', () => {
  it('maps blob, raw and tree URLs of the repository to paths, the bare repository to its README', () => {
    expect(labelledTarget('https://github.com/acme/alpha', 'alpha')).toEqual({ kind: 'readme' });
    expect(labelledTarget('https://github.com/Acme/Alpha.git', 'alpha')).toEqual({ kind: 'readme' });
    expect(labelledTarget('https://github.com/acme/alpha#readme', 'alpha')).toEqual({ kind: 'readme' });
    expect(labelledTarget('https://github.com/acme/alpha/tree/main', 'alpha')).toEqual({ kind: 'readme' });
    expect(labelledTarget('https://github.com/acme/alpha/blob/main/docs/BUILD.md', 'alpha')).toEqual({
      kind: 'file',
      path: 'docs/BUILD.md',
    });
    expect(
      labelledTarget('https://github.com/acme/alpha/blob/v1.2/doc/My%20Guide.md#linux', 'alpha'),
    ).toEqual({
      kind: 'file',
      path: 'doc/My Guide.md',
    });
    expect(labelledTarget('https://raw.githubusercontent.com/acme/alpha/main/INSTALL', 'alpha')).toEqual({
      kind: 'file',
      path: 'INSTALL',
    });
    expect(labelledTarget('https://github.com/acme/alpha/tree/main/doc/', 'alpha')).toEqual({
      kind: 'folder',
      path: 'doc',
    });
    // a local mirror's name, owner+name
    expect(labelledTarget('https://github.com/acme/alpha/blob/main/README.md', 'acme+alpha')).toEqual({
      kind: 'file',
      path: 'README.md',
    });
  });

  it('puts every other URL elsewhere, saying whether it is on GitHub', () => {
    expect(labelledTarget('https://example.org/install.html', 'alpha')).toEqual({
      kind: 'elsewhere',
      offGithub: true,
    });
    expect(labelledTarget('not a url', 'alpha')).toEqual({ kind: 'elsewhere', offGithub: true });
    expect(labelledTarget('https://github.com/other/zlib/blob/main/README', 'alpha')).toEqual({
      kind: 'elsewhere',
      offGithub: false,
    });
    expect(labelledTarget('https://github.com/acme/alpha/wiki/Building', 'alpha')).toEqual({
      kind: 'elsewhere',
      offGithub: false,
    });
    expect(labelledTarget('https://github.com/acme', 'alpha')).toEqual({
      kind: 'elsewhere',
      offGithub: false,
    });
  });
});

describe('scoreRetrieval', () => {
  const urls = [
    'https://github.com/acme/alpha',
    'https://github.com/acme/alpha/blob/main/docs/BUILD.md',
    'https://github.com/acme/alpha/tree/main/doc',
    'https://example.org/alpha/install.html',
    'https://example.org/alpha/install.html',
  ];

  it('counts the labelled documents read, once per URL, and the pages fetched elsewhere', () => {
    const score = scoreRetrieval(urls, 'alpha', [
      { kind: 'file', path: 'README.md', round: 0, ok: true },
      { kind: 'file', path: 'doc/unix.txt', round: 1, ok: true },
      { kind: 'page', url: 'https://example.org/alpha/install.html/', round: 1, ok: true },
    ]);
    expect(score).toEqual({
      labelled: 3,
      consulted: 2,
      elsewhere: 1,
      offGithub: 1,
      elsewhereConsulted: 1,
      missed: ['https://github.com/acme/alpha/blob/main/docs/BUILD.md'],
    });
  });

  it('a document that could not be read, or a source of another shape, does not count as read', () => {
    const score = scoreRetrieval(urls, 'alpha', [
      { kind: 'file', path: 'docs/BUILD.md', round: 1, ok: false, error: 'missing' },
      { kind: 'file', path: 'docs' },
      'README.md',
      null,
    ]);
    expect(score.consulted).toBe(0);
    expect(score.missed).toHaveLength(3);
  });
});
