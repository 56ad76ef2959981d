/**
 * Runs the action as the runner would: INPUT_* variables, and GITHUB_OUTPUT, GITHUB_STATE,
 * GITHUB_STEP_SUMMARY and GITHUB_EVENT_PATH pointing at temp files, which the tests read back. Workflow
 * commands (`::error::`, `::add-mask::`) go to stdout; they are captured, not printed.
 */
import { jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ActionEnv {
  dir: string;
  workspace: string;
  runnerTemp: string;
  files: { output: string; state: string; summary: string; event: string };
  /** Everything written to stdout while the action ran. */
  stdout: string[];
  outputs(): Record<string, string>;
  state(): Record<string, string>;
  summary(): string;
  /** The `::error…::message` lines without annotations' properties (setFailed's and core.error's). */
  errors(): string[];
  commands(name: string): string[];
  restore(): void;
}

/** Parses a file written with `name<<delimiter` file commands. */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const [, name, delimiter] = m;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!);
    out[name!] = value.join('\n');
  }
  return out;
}

export function setUpActionEnv(
  options: {
    inputs?: Record<string, string>;
    event?: { name: string; payload: unknown };
    env?: Record<string, string>;
  } = {},
): ActionEnv {
  const saved = { ...process.env };
  const savedExitCode = process.exitCode;
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-action-'));
  const workspace = path.join(dir, 'workspace');
  const runnerTemp = path.join(dir, 'runner-temp');
  mkdirSync(workspace);
  mkdirSync(runnerTemp);
  const files = {
    output: path.join(dir, 'output'),
    state: path.join(dir, 'state'),
    summary: path.join(dir, 'summary.md'),
    event: path.join(dir, 'event.json'),
  };
  for (const f of [files.output, files.state, files.summary]) writeFileSync(f, '');
  writeFileSync(files.event, JSON.stringify(options.event?.payload ?? {}));

  for (const key of Object.keys(process.env)) {
    if (
      key.startsWith('INPUT_') ||
      key.startsWith('STATE_') ||
      key.startsWith('GITHUB_') ||
      key.startsWith('RUNNER_') ||
      // The surrounding job's cache service and proxies (a test that wants the fake one passes its env).
      /^(ACTIONS_|CACHE_|SEGMENT_DOWNLOAD_TIMEOUT_MINS$|(https?|all|no)_proxy$)/i.test(key)
    )
      delete process.env[key];
  }
  Object.assign(process.env, {
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: options.event?.name ?? 'push',
    GITHUB_REPOSITORY: 'octo/hello',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: 'b'.repeat(40),
    GITHUB_RUN_ID: '77',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runnerTemp,
    RUNNER_ENVIRONMENT: 'self-hosted',
    ...options.env,
  });
  for (const [name, value] of Object.entries(options.inputs ?? {})) {
    process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }

  const stdout: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  });
  const lines = (): string[] => stdout.join('').split('\n');
  return {
    dir,
    workspace,
    runnerTemp,
    files,
    stdout,
    outputs: () => parseFileCommands(readFileSync(files.output, 'utf8')),
    state: () => parseFileCommands(readFileSync(files.state, 'utf8')),
    summary: () => readFileSync(files.summary, 'utf8'),
    errors: () =>
      lines()
        .filter((l) => l.startsWith('::error'))
        .map((l) => l.replace(/^::error[^:]*::/, '')),
    commands: (name) => lines().filter((l) => l.startsWith(`::${name}`)),
    restore: () => {
      spy.mockRestore();
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      process.exitCode = savedExitCode;
    },
  };
}
