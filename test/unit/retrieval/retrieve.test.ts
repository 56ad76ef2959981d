import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { offlineInstructions, retrieveInstructions } from '../../../src/retrieval/retrieve.js';
import { inspectRepo } from '../../../src/repo/inspect.js';
import type { RepoInfo } from '../../../src/repo/types.js';
import { ProviderError } from '../../../src/base/errors.js';
import { ScriptedProvider, type ScriptedReply } from '../../fakes/scripted-provider.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/retrieval/', import.meta.url));

const report = (instructions: string, sufficient: boolean, links: string[] = []): ScriptedReply => ({
  tool: 'report_instructions',
  args: { instructions, sufficient, links },
});

let server: Server;
let site: string;
let dead: string;
const hits: string[] = [];
let repo: RepoInfo;

beforeAll(async () => {
  const page = readFileSync(path.join(FIXTURES, 'pages/install.html'), 'utf8');
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/install.html')
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else if (req.url === '/docs/advanced.txt')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Advanced: -DWIDGET_SIMD=ON\n');
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port where nothing listens: bind one, note it, close it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  dead = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  const dir = mkdtempSync(path.join(tmpdir(), 'bb-retrieval-'));
  const root = path.join(dir, 'widget');
  cpSync(path.join(FIXTURES, 'widget'), root, { recursive: true });
  const readme = path.join(root, 'README.md');
  writeFileSync(
    readme,
    readFileSync(readme, 'utf8').replaceAll('{{SERVER}}', site).replaceAll('{{DEAD}}', dead),
  );
  repo = await inspectRepo(root);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('offline retrieval', () => {
  it('takes the build sections of the ranked doc files and records what it read', async () => {
    expect(repo.docs.map((d) => d.path)).toEqual(expect.arrayContaining(['README.md', 'docs/BUILDING.md']));
    const result = await offlineInstructions(repo);
    expect(result.mode).toBe('offline');
    expect(result.instructions).toContain('cmake -S . -B build -DWIDGET_EXAMPLES=OFF');
    expect(result.instructions).toContain('apt-get install -y build-essential cmake libncurses-dev');
    expect(result.instructions).toContain('From README.md:\n## Building');
    expect(result.instructions).not.toContain('## License');
    expect(result.instructions).not.toContain('## Features');
    expect(result.sufficient).toBe(true);
    expect(result.sources.every((s) => s.kind === 'file' && s.round === 0 && s.ok)).toBe(true);
    expect(hits).toEqual([]); // no network offline
    const none = await retrieveInstructions(repo);
    expect(none.mode).toBe('offline');
  });
});

describe('LLM-assisted retrieval', () => {
  it('follows a repository file and a web page, records a failing URL and goes on, then refines', async () => {
    hits.length = 0;
    const provider = new ScriptedProvider([
      report('Needs a C compiler and CMake.', false, [
        'docs/BUILDING.md',
        `${site}/install.html`,
        `${dead}/install.html`,
      ]),
      report(
        'apt-get install -y build-essential cmake libncurses-dev\ncmake -S . -B build && cmake --build build',
        true,
      ),
    ]);
    const result = await retrieveInstructions(repo, { provider, pageTimeoutMs: 5000 });

    expect(result.mode).toBe('llm');
    expect(result.sufficient).toBe(true);
    expect(result.rounds).toBe(1);
    expect(result.instructions).toContain('cmake -S . -B build && cmake --build build');
    expect(result.sources).toEqual([
      { kind: 'file', path: 'README.md', round: 0, ok: true, chars: expect.any(Number) },
      { kind: 'file', path: 'docs/BUILDING.md', round: 1, ok: true, chars: expect.any(Number) },
      { kind: 'page', url: `${site}/install.html`, round: 1, ok: true, chars: expect.any(Number) },
      {
        kind: 'page',
        url: `${dead}/install.html`,
        round: 1,
        ok: false,
        error: expect.stringMatching(/^fetch failed: ECONNREFUSED/),
      },
    ]);
    expect(hits).toEqual(['/install.html']);

    const [start, refine] = provider.prompts;
    expect(provider.requests[0]!.system).toMatch(/Prefer documentation/);
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(['report_instructions']);
    expect(start).toContain('<<<UNTRUSTED README.md>>>');
    expect(start).toContain('## Building');
    expect(start).toContain('docs/BUILDING.md');
    const listed = start!.split('Links found in the README:')[1]!;
    expect(listed).toContain(`- ${site}/install.html — installation page`);
    expect(listed).not.toMatch(/badge|shields\.io|\/actions/);
    // The refine prompt quotes what was read: the doc file, the page as text (no HTML), and the failure.
    expect(refine).toContain('<<<UNTRUSTED docs/BUILDING.md>>>');
    expect(refine).toContain('libncurses-dev');
    expect(refine).toContain(`<<<UNTRUSTED ${site}/install.html>>>`);
    expect(refine).toContain('# Installing widget');
    expect(refine).toContain('cmake -S . -B build && cmake --build build');
    expect(refine).not.toContain('<script');
    expect(refine).not.toContain('tracking');
    expect(refine).toContain(`(${dead}/install.html: could not be read: fetch failed: ECONNREFUSED)`);
    expect(refine).toContain('<<<UNTRUSTED instructions so far>>>');
    expect(refine).toContain(`${site}/docs/advanced.html`);
  });

  it('never follows URLs that appear in no document read, nor paths outside the repository', async () => {
    hits.length = 0;
    const provider = new ScriptedProvider([
      report('partial', false, [
        'http://169.254.169.254/latest/meta-data',
        `${site}/secret`,
        '../../etc/passwd',
        'docs/platform.md',
      ]),
      report('done', true),
    ]);
    const result = await retrieveInstructions(repo, { provider });
    expect(result.skipped).toEqual([
      { link: 'http://169.254.169.254/latest/meta-data', reason: 'not a link found in the documents read' },
      { link: `${site}/secret`, reason: 'not a link found in the documents read' },
      { link: '../../etc/passwd', reason: 'not a repository path or http(s) URL' },
    ]);
    expect(hits).toEqual([]);
    // docs/platform.md was linked as a GitHub blob URL of this repository: read from the checkout.
    expect(result.sources.map((s) => s.path ?? s.url)).toEqual(['README.md', 'docs/platform.md']);
  });

  it('reads a GitHub URL of the same repository from the checkout', async () => {
    const provider = new ScriptedProvider([
      report('partial', false, ['https://github.com/acme/widget/blob/main/docs/platform.md']),
      report('done', true),
    ]);
    const result = await retrieveInstructions(repo, { provider });
    expect(result.sources[1]).toEqual({
      kind: 'file',
      path: 'docs/platform.md',
      round: 1,
      ok: true,
      chars: expect.any(Number),
      via: 'https://github.com/acme/widget/blob/main/docs/platform.md',
    });
  });

  it('stops after three rounds, at most three links a round, documents first', async () => {
    hits.length = 0;
    let call = 0;
    const provider = new ScriptedProvider(() => {
      call++;
      if (call === 1)
        return report('r0', false, [
          'CMakeLists.txt',
          'docs/BUILDING.md',
          `${site}/install.html`,
          `${dead}/install.html`,
        ]);
      if (call === 2) return report('r1', false, ['docs/platform.md', `${site}/docs/advanced.html`]);
      if (call === 3) return report('', false, ['src/widget.c', 'LICENSE']);
      return report('r3', false, ['README.md']);
    });
    const result = await retrieveInstructions(repo, { provider });
    expect(provider.requests).toHaveLength(4);
    expect(result.rounds).toBe(3);
    expect(result.sufficient).toBe(false);
    expect(result.instructions).toBe('r3');
    const round1 = result.sources.filter((s) => s.round === 1).map((s) => s.path ?? s.url);
    // Documents before build files: CMakeLists.txt is the one left out.
    expect(round1).toEqual(['docs/BUILDING.md', `${site}/install.html`, `${dead}/install.html`]);
    expect(result.skipped).toContainEqual({
      link: 'CMakeLists.txt',
      reason: 'more than 3 links in one round',
    });
    expect(result.sources.find((s) => s.url === `${site}/docs/advanced.html`)).toMatchObject({
      ok: false,
      error: 'HTTP 404',
    });
  });

  it('falls back to the offline instructions when the model fails, and says so', async () => {
    const provider = new ScriptedProvider([
      { throw: new ProviderError('anthropic API error 529: overloaded', 529, true) },
    ]);
    const result = await retrieveInstructions(repo, { provider });
    expect(result.mode).toBe('offline');
    expect(result.instructions).toContain('cmake -S . -B build');
    expect(result.notes[0]).toMatch(
      /the model call failed: anthropic API error 529: overloaded.*used the offline instructions/,
    );
  });

  it('re-asks once for a malformed report, then falls back', async () => {
    const provider = new ScriptedProvider([
      { tool: 'report_instructions', args: { instructions: 3 } },
      { text: 'no tool' },
    ]);
    const result = await retrieveInstructions(repo, { provider });
    expect(provider.requests).toHaveLength(2);
    expect(provider.prompts[1]).toContain('`instructions` must be a string');
    expect(result.mode).toBe('offline');
    expect(result.notes[0]).toMatch(/no usable report/);
  });
});
