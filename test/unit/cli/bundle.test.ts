/**
 * The CLI's bundle (scripts/bundle-cli.ts, run by `npm run build` after tsc; issue 32): the same modules, joined
 * into a few files. Checked on a small compiled tree: a module reads its own `import.meta.url` (and finds files
 * relative to it) exactly as unbundled, whichever file the bundle puts it in; commands imported on demand stay
 * separate files; the output is the same bytes every time; old chunks go; a bundle is never bundled again.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const tmp = mkdtempSync(path.join(tmpdir(), 'bb-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A compiled tree in miniature: an entry, a module two folders away, a command loaded on demand. */
const TREE: Record<string, string> = {
  'cli/index.js': [
    "import { where } from '../base/where.js';",
    "const { command } = await import('./command.js');",
    'console.log(JSON.stringify({ entry: import.meta.url, where: where(), command }));',
  ].join('\n'),
  'base/where.js': [
    'export function where() {',
    "  return { self: import.meta.url, data: new URL('../data/table.json', import.meta.url).href };",
    '}',
  ].join('\n'),
  'cli/command.js': [
    "import { where } from '../base/where.js';",
    "export const command = { self: import.meta.url, data: new URL('../../verifiers/x.yaml', import.meta.url).href, where: where().self };",
  ].join('\n'),
};

function tree(name: string): string {
  const lib = path.join(tmp, name, 'lib');
  for (const [file, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(lib, file)), { recursive: true });
    writeFileSync(path.join(lib, file), `${text}\n`);
  }
  return lib;
}

const bundle = (lib: string): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-cli.ts', lib], { encoding: 'utf8' });
const runEntry = (lib: string): string =>
  execFileSync(process.execPath, [path.join(lib, 'cli/index.js')], { encoding: 'utf8' });

/** Every file under `dir`, by its path relative to it, with its text. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const full = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  return out;
}

describe('scripts/bundle-cli.ts', () => {
  it('joins the modules and each still sees its own URL; the output is the same every time', () => {
    const lib = tree('a');
    const unbundled = runEntry(lib);
    mkdirSync(path.join(lib, 'cli/bundle'), { recursive: true });
    writeFileSync(path.join(lib, 'cli/bundle/old-chunk.js'), 'export {};\n');

    expect(bundle(lib).status).toBe(0);
    expect(readFileSync(path.join(lib, 'cli/index.js'), 'utf8')).toMatch(
      /^\/\/ Bundled by scripts\/bundle-cli\.ts/,
    );
    expect(existsSync(path.join(lib, 'cli/bundle/old-chunk.js'))).toBe(false);
    // the command loaded on demand is a file of its own, not part of the entry
    expect(readdirSync(path.join(lib, 'cli/bundle')).some((f) => f.startsWith('command-'))).toBe(true);
    expect(runEntry(lib)).toBe(unbundled);
    expect(JSON.parse(unbundled)).toMatchObject({
      where: { self: expect.stringMatching(/\/lib\/base\/where\.js$/) },
    });

    const again = tree('b');
    expect(bundle(again).status).toBe(0);
    expect(files(path.join(again, 'cli'))).toEqual(files(path.join(lib, 'cli')));
  });

  it('refuses to bundle a bundle (tsc writes the plain entry back first)', () => {
    const lib = tree('c');
    expect(bundle(lib).status).toBe(0);
    const before = files(path.join(lib, 'cli'));
    const second = bundle(lib);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain('already the bundle');
    expect(files(path.join(lib, 'cli'))).toEqual(before);
  });
});
