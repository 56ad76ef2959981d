import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { decodeEntities, htmlToText } from '../../../src/retrieval/html.js';
import {
  extractLinks,
  githubRepoPath,
  isNoiseLink,
  rankLinks,
  resolveLink,
} from '../../../src/retrieval/links.js';
import { buildSections, condense, splitSections } from '../../../src/retrieval/sections.js';

describe('htmlToText', () => {
  const page = readFileSync(new URL('../../fixtures/retrieval/pages/install.html', import.meta.url), 'utf8');

  it('keeps the main content as Markdown-ish text and drops scripts, styles and page chrome', () => {
    const text = htmlToText(page, 'http://docs.example.org/widget/install.html');
    expect(text).toContain('# Installing widget');
    expect(text).toContain('## From source');
    expect(text).toContain(
      'Widget builds with CMake & a C compiler. Packagers should pass `-DCMAKE_INSTALL_PREFIX=/usr`.',
    );
    expect(text).toContain(
      '```\ngit submodule update --init\ncmake -S . -B build && cmake --build build\n```',
    );
    expect(text).toContain('[advanced options](http://docs.example.org/docs/advanced.html)');
    expect(text).toContain('[FAQ](https://example.org/faq)');
    expect(text).toContain('- ncurses >= 6');
    expect(text).not.toMatch(/tracking|color: red|Blog|© 2024/);
    expect(text).not.toMatch(/<[a-z]/i);
  });

  it('decodes entities and never throws on broken markup', () => {
    expect(decodeEntities('a &amp;&lt;b&gt; &#39;c&#x27; &nbsp;&bogus;')).toBe("a &<b> 'c'  &bogus;");
    expect(() => htmlToText('<div><p>unclosed <a href="x">link<pre>code')).not.toThrow();
    expect(htmlToText('<p>one</p><p>two</p>')).toBe('one\n\ntwo\n');
  });
});

describe('links', () => {
  it('finds Markdown, reference, reStructuredText, HTML and bare links, resolved against the document', () => {
    const text = [
      'See [build guide](BUILDING.md#linux "Build") and ![logo](img/logo.png).',
      '[ref]: ../INSTALL.txt',
      'Read `the manual <https://widget.readthedocs.io/en/latest/build.html>`_.',
      '<a href="/docs/api.html">API</a> and https://example.org/notes.',
      '[![badge](https://img.shields.io/x.svg)](https://travis-ci.org/acme/widget)',
      '[mail](mailto:a@b.c) [top](#top) [tarball](https://example.org/widget-1.0.tar.gz)',
    ].join('\n');
    const links = extractLinks(text, { path: 'doc/README.md' });
    expect(links.map((l) => [l.kind, l.target])).toEqual([
      ['file', 'doc/BUILDING.md'],
      ['file', 'INSTALL.txt'],
      ['url', 'https://widget.readthedocs.io/en/latest/build.html'],
      ['file', 'docs/api.html'],
      ['url', 'https://example.org/notes'],
    ]);
    expect(links[0]).toMatchObject({ written: 'BUILDING.md#linux', text: 'build guide' });
  });

  it('resolves relative links of a page against its URL and refuses to leave the repository', () => {
    expect(
      extractLinks('[next](../build.html#deps)', { url: 'https://docs.example.org/a/b/index.html' }),
    ).toEqual([
      {
        written: '../build.html#deps',
        kind: 'url',
        target: 'https://docs.example.org/a/build.html',
        text: 'next',
      },
    ]);
    expect(resolveLink('../../etc/passwd', { path: 'README.md' })).toBeUndefined();
    expect(resolveLink('ftp://x/y', { path: 'README.md' })).toBeUndefined();
    expect(isNoiseLink('https://github.com/acme/widget/issues/12')).toBe(true);
    expect(isNoiseLink('https://github.com/acme/widget/wiki/Building')).toBe(false);
  });

  it('maps GitHub URLs of the same repository to checkout paths', () => {
    expect(githubRepoPath('https://github.com/acme/Widget/blob/main/docs/BUILD.md', 'widget')).toBe(
      'docs/BUILD.md',
    );
    expect(githubRepoPath('https://raw.githubusercontent.com/acme/widget/v1.0/INSTALL', 'widget')).toBe(
      'INSTALL',
    );
    expect(githubRepoPath('https://github.com/other/thing/blob/main/BUILD.md', 'widget')).toBeUndefined();
  });

  it('ranks documentation before build scripts and off-topic pages', () => {
    const ranked = rankLinks(
      extractLinks(
        '[a](CMakeLists.txt) [b](CONTRIBUTING.md) [c](docs/install.md) [d](https://widget.readthedocs.io/) [e](scripts/build.sh)',
        { path: 'README.md' },
      ),
    ).map((l) => l.target);
    expect(ranked.slice(0, 2)).toEqual(['docs/install.md', 'https://widget.readthedocs.io/']);
    expect(ranked.indexOf('CONTRIBUTING.md')).toBeGreaterThan(ranked.indexOf('scripts/build.sh'));
  });
});

describe('sections', () => {
  const doc = [
    '# widget',
    'A library.',
    '',
    'Features',
    '--------',
    '- fast',
    '',
    '## Building from source',
    '```sh',
    '# not a heading inside a fence',
    'cmake -B build && cmake --build build',
    '```',
    '',
    '## Windows',
    'Open widget.sln in Visual Studio.',
    '',
    '## License',
    'MIT',
  ].join('\n');

  it('splits by Markdown and underlined headings, not inside code fences', () => {
    expect(splitSections(doc).map((s) => s.heading)).toEqual([
      'widget',
      'Features',
      'Building from source',
      'Windows',
      'License',
    ]);
  });

  it('picks the build sections and condenses long documents around them', () => {
    const picked = buildSections(doc, 1000);
    expect(picked.headings).toEqual(['Building from source']);
    expect(picked.text).toContain('cmake -B build && cmake --build build');
    const long = 'intro '.repeat(3000) + '\n' + doc;
    const condensed = condense(long, 2000);
    expect(condensed.length).toBeLessThanOrEqual(2000);
    expect(condensed).toContain('cmake -B build && cmake --build build');
    expect(condense('short', 100)).toBe('short');
  });
});
