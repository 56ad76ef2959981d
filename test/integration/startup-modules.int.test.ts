/**
 * Lazy loading (issue 32): a command loads only what it uses. Each command runs as a child process under a
 * module hook (HOOKS below: it prints every package resolved under node_modules), from the
 * sources through tsx, so the test needs no build. `--version` loads no package at all; no command without a
 * model, a chart or the App loads the model SDKs, the chart libraries, Probot or the Actions toolkit — and a
 * model-less build of a tiny repository in the rootfs sandbox loads none of them either. A diagnosis of a C build's
 * log loads none of the deploy setups (HOOKS also print the sources under src/ each command loads).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { rootfsUnavailableReason } from '../helpers/sandbox.js';

const run = promisify(execFile);
/**
 * Module hooks printing `buildbench:loaded <package>` on stderr for each package resolved under node_modules, and
 * `buildbench:source <path>` for each module of the sources (`src/…`).
 */
const HOOKS = `
const seen = new Set();
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
  if (match && !seen.has(match[1])) {
    seen.add(match[1]);
    process.stderr.write('buildbench:loaded ' + match[1] + '\\n');
  }
  const source = /\\/(src\\/[^?#]+)$/.exec(result.url);
  if (!match && source && !seen.has(source[1])) {
    seen.add(source[1]);
    process.stderr.write('buildbench:source ' + source[1] + '\\n');
  }
  return result;
}`;
const dataUrl = (code: string): string => `data:text/javascript,${encodeURIComponent(code)}`;
/** `--import` this: registers HOOKS. */
const REGISTER = dataUrl(
  `import { register } from 'node:module'; register(${JSON.stringify(dataUrl(HOOKS))});`,
);
const CLI = path.resolve('src/cli/index.ts');
const tmp = mkdtempSync(path.join(tmpdir(), 'bb-startup-modules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Packages no command needs unless it talks to a model, draws a chart, serves the App or runs in Actions. */
const HEAVY = [
  'openai',
  '@anthropic-ai/sdk',
  'vega',
  'vega-lite',
  'probot',
  '@actions/core',
  '@actions/github',
  '@actions/cache',
  '@octokit/core',
  '@azure/storage-blob',
];

/** The packages and the source modules `buildbench <args>` loads (its exit status does not matter here). */
async function modulesLoadedBy(
  args: string[],
  timeout = 60_000,
): Promise<{ packages: string[]; sources: string[] }> {
  let stderr = '';
  try {
    ({ stderr } = await run(process.execPath, ['--import', 'tsx', '--import', REGISTER, CLI, ...args], {
      timeout,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    }));
  } catch (error) {
    const e = error as { stderr?: string; killed?: boolean };
    if (e.killed || e.stderr === undefined) throw error;
    stderr = e.stderr;
  }
  const loaded = [...stderr.matchAll(/^buildbench:loaded (\S+)$/gm)].map((m) => m[1]!);
  const sources = [...stderr.matchAll(/^buildbench:source (\S+)$/gm)].map((m) => m[1]!);
  // tsx itself (the loader running the sources) is not the command's
  const packages = loaded.filter(
    (p) => p !== 'tsx' && !p.startsWith('@esbuild') && p !== 'esbuild' && p !== 'get-tsconfig',
  );
  return { packages, sources };
}

/** The packages `buildbench <args>` loads. */
async function packagesLoadedBy(args: string[], timeout = 60_000): Promise<string[]> {
  return (await modulesLoadedBy(args, timeout)).packages;
}

describe('what each command loads', () => {
  it('--version loads no package at all', async () => {
    expect(await packagesLoadedBy(['--version'])).toEqual([]);
  }, 90_000);

  it('build --help loads no package at all', async () => {
    expect(await packagesLoadedBy(['build', '--help'])).toEqual([]);
  }, 90_000);

  it('a diagnose of a short log loads none of the heavy packages', async () => {
    const log = path.join(tmp, 'failed.log');
    writeFileSync(
      log,
      'main.c:3:10: fatal error: zlib.h: No such file or directory\ncompilation terminated.\n',
    );
    const { packages: loaded, sources } = await modulesLoadedBy(['diagnose', log]);
    expect(loaded).toContain('re2js'); // the hooks saw the diagnosis run
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
    // the repair rules are asked for the fix, but the deploy setups (their index, the alternatives, the Python setup
    // and its table) and the GPU check are imported only by a deploy run's repair
    expect(sources).toContain('src/knowledge/repair/rules/index.ts');
    const deployOnly = [
      'src/deploy/recipes/index.ts',
      'src/deploy/alternatives.ts',
      'src/deploy/recipes/python.ts',
      'src/repo/ecosystems/python-table.ts',
      'src/deploy/gpu.ts',
      'src/verify/gpu.ts',
    ];
    expect(sources.filter((s) => deployOnly.includes(s))).toEqual([]);
  }, 90_000);

  it('a model-less build loads neither a model SDK, nor a chart library, nor the App or Actions packages', async () => {
    const unavailable = await rootfsUnavailableReason();
    if (unavailable) {
      if (process.env.BUILDBENCH_REQUIRE_ROOTFS === '1') throw new Error(unavailable);
      console.warn(`skipped: the rootfs sandbox cannot run here (${unavailable})`);
      return;
    }
    const out = path.join(tmp, 'hello-out');
    const loaded = await packagesLoadedBy(
      ['build', path.resolve('examples/hello'), '--sandbox', 'rootfs', '--out', out, '--max-turns', '2'],
      600_000,
    );
    expect(loaded).toContain('execa'); // the build ran commands
    const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')) as { status: string };
    expect(result.status).toBe('success');
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
  }, 660_000);
});
