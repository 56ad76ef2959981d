/**
 * The App's configuration: `.github/buildbench.yml` in the repository, or in the organisation's `.github`
 * repository when the repository has none (Probot's `context.config` does that fallback, and `_extends`),
 * read from the default branch, validated with ajv. Absent → the defaults. A file with an error → an error
 * naming the field, which the caller says in one comment instead of going silent.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { Context } from 'probot';

import { unknownNameHint } from '../base/suggest.js';
import { BUILD_OPTIONS, KNOWN_COMMANDS, type BuildOptions } from './commands.js';

export const CONFIG_FILE = 'buildbench.yml';
export const CONFIG_PATH = `.github/${CONFIG_FILE}`;

export interface BotConfig {
  /** A workflow file under .github/workflows/ with a workflow_dispatch trigger. */
  workflow: string;
  /** The commands allowed in this repository. */
  commands: string[];
  /** The commenter's minimum permission for `build`. */
  permission: 'write' | 'maintain' | 'admin';
  defaults: { strategy?: string; model?: string; maxCost?: string; maxTurns?: number };
  /** Comment a diagnosis on pull requests whose CI fails. */
  diagnose: boolean;
  /** When the failure is not a build problem (a flaky download, failing tests, …), say so in one line. */
  notBuildNote: boolean;
  /** Open a pull request with the recipe after a verified build. */
  pullRequests: boolean;
  /** Build the code of a pull request from a fork when asked on it. */
  forks: boolean;
}

export const DEFAULT_CONFIG: Readonly<BotConfig> = Object.freeze({
  workflow: 'buildbench.yml',
  commands: ['build', 'help'],
  permission: 'write',
  defaults: {},
  diagnose: true,
  notBuildNote: false,
  pullRequests: true,
  forks: false,
});

/**
 * A checked configuration (with `notes`: one line per deprecated spelling the file used, said in the log and in
 * the bot's replies that echo the configuration), or the first error, naming its field.
 */
export type ConfigResult =
  { config: BotConfig; notes?: string[] } | { error: { field: string; message: string } };

/**
 * The file's keys are spelled like the Action's inputs (action.yml: `max-cost`, `max-turns`) and the command's
 * options (`--max-cost`); the camelCase spelling of earlier versions is still read, with a deprecation note.
 */
const DEPRECATED_TOP: Readonly<Record<string, string>> = { pullRequests: 'pull-requests' };
const DEPRECATED_DEFAULTS: Readonly<Record<string, string>> = { maxCost: 'max-cost', maxTurns: 'max-turns' };

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    workflow: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*\\.ya?ml$' },
    commands: { type: 'array', items: { enum: [...KNOWN_COMMANDS] }, uniqueItems: true },
    permission: { enum: ['write', 'maintain', 'admin'] },
    defaults: {
      type: 'object',
      additionalProperties: false,
      properties: {
        strategy: { type: 'string' },
        model: { type: 'string' },
        'max-cost': { type: ['string', 'number'] },
        'max-turns': { type: 'integer', minimum: 1 },
      },
    },
    diagnose: { type: 'boolean' },
    'not-build-note': { type: 'boolean' },
    'pull-requests': { type: 'boolean' },
    forks: { type: 'boolean' },
  },
} as const;

const TOP_KEYS = Object.keys(SCHEMA.properties);
const DEFAULTS_KEYS = Object.keys(SCHEMA.properties.defaults.properties);

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
const validate = ajv.compile(SCHEMA);

const EXPECTED: Record<string, string> = {
  workflow: 'a workflow file name in .github/workflows/, e.g. buildbench.yml',
  commands: `a list of commands from ${KNOWN_COMMANDS.join(', ')}`,
  permission: 'one of write, maintain, admin',
};

function describe(error: ErrorObject): { field: string; message: string } {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string }).additionalProperty);
    const allowed = path.length === 0 ? TOP_KEYS : DEFAULTS_KEYS;
    return { field: [...path, extra].join('.'), message: `unknown field${unknownNameHint(extra, allowed)}` };
  }
  const field = path.length === 0 ? '(the file)' : path.join('.');
  const top = path[0] ?? '';
  const hint = EXPECTED[top];
  const message =
    error.keyword === 'enum'
      ? `must be one of ${((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ')}`
      : path.length === 0 && error.keyword === 'type'
        ? `must be a mapping of fields (${TOP_KEYS.join(', ')})`
        : `${error.message ?? 'is not valid'}${hint && error.keyword === 'pattern' ? `; expected ${hint}` : ''}`;
  return { field, message };
}

/**
 * `object` with its deprecated keys renamed (the notes say which), or an error when a key is given in both
 * spellings. `prefix` is the field path of `object` (`defaults.`).
 */
function renameDeprecated(
  object: Record<string, unknown>,
  renames: Readonly<Record<string, string>>,
  prefix: string,
  notes: string[],
): { renamed: Record<string, unknown> } | { error: { field: string; message: string } } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const renamed = Object.hasOwn(renames, key) ? renames[key]! : undefined;
    if (renamed === undefined) {
      out[key] = value;
      continue;
    }
    if (Object.hasOwn(object, renamed))
      return {
        error: {
          field: `${prefix}${key}`,
          message: `is the old spelling of ${prefix}${renamed}, which is set too; keep only ${prefix}${renamed}`,
        },
      };
    out[renamed] = value;
    notes.push(
      `${CONFIG_PATH}: \`${prefix}${key}\` is deprecated; spell it \`${prefix}${renamed}\`, as the Action's input is spelled`,
    );
  }
  return { renamed: out };
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a parsed configuration object (from the YAML file) and fills in the defaults. */
export function checkBotConfig(raw: unknown): ConfigResult {
  if (raw === null || raw === undefined) return { config: structuredClone(DEFAULT_CONFIG) };
  const notes: string[] = [];
  let input: unknown = raw;
  if (isMapping(raw)) {
    const top = renameDeprecated(raw, DEPRECATED_TOP, '', notes);
    if ('error' in top) return top;
    input = top.renamed;
    const d = top.renamed.defaults;
    if (isMapping(d)) {
      const defaults = renameDeprecated(d, DEPRECATED_DEFAULTS, 'defaults.', notes);
      if ('error' in defaults) return defaults;
      input = { ...top.renamed, defaults: defaults.renamed };
    }
  }
  if (!validate(input)) {
    const first = validate.errors?.[0];
    return { error: first ? describe(first) : { field: '(the file)', message: 'is not valid' } };
  }
  const value = input as {
    workflow?: string;
    commands?: string[];
    permission?: BotConfig['permission'];
    defaults?: { strategy?: string; model?: string; 'max-cost'?: string | number; 'max-turns'?: number };
    diagnose?: boolean;
    'not-build-note'?: boolean;
    'pull-requests'?: boolean;
    forks?: boolean;
  };
  const defaults: BotConfig['defaults'] = {};
  const d = value.defaults ?? {};
  // The defaults are checked as the command's options are, so a default is never a value a command could not give.
  const asOptions: BuildOptions = {
    ...(d.strategy !== undefined ? { strategy: String(d.strategy) } : {}),
    ...(d.model !== undefined ? { model: String(d.model) } : {}),
    ...(d['max-cost'] !== undefined ? { 'max-cost': String(d['max-cost']) } : {}),
    ...(d['max-turns'] !== undefined ? { 'max-turns': String(d['max-turns']) } : {}),
  };
  for (const spec of BUILD_OPTIONS) {
    const v = asOptions[spec.name];
    if (v === undefined) continue;
    const problem = spec.check(v);
    if (problem)
      return {
        error: { field: `defaults.${spec.name}`, message: `'${v}' is not valid; ${problem}` },
      };
  }
  if (asOptions.strategy) defaults.strategy = asOptions.strategy;
  if (asOptions.model) defaults.model = asOptions.model;
  if (asOptions['max-cost']) defaults.maxCost = asOptions['max-cost'];
  if (asOptions['max-turns']) defaults.maxTurns = Number(asOptions['max-turns']);
  const config: BotConfig = {
    workflow: value.workflow ?? DEFAULT_CONFIG.workflow,
    commands: value.commands ?? [...DEFAULT_CONFIG.commands],
    permission: value.permission ?? DEFAULT_CONFIG.permission,
    defaults,
    diagnose: value.diagnose ?? DEFAULT_CONFIG.diagnose,
    notBuildNote: value['not-build-note'] ?? DEFAULT_CONFIG.notBuildNote,
    pullRequests: value['pull-requests'] ?? DEFAULT_CONFIG.pullRequests,
    forks: value.forks ?? DEFAULT_CONFIG.forks,
  };
  return notes.length > 0 ? { config, notes } : { config };
}

/** The cap on `.github/buildbench.yml`: a real one is a few hundred bytes. */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** A configuration file over MAX_CONFIG_BYTES; its body was not read past the cap. */
class ConfigTooLargeError extends Error {
  constructor(size: string) {
    super(`is ${size}, over the bot's cap of ${MAX_CONFIG_BYTES / 1024} KiB; it was not read`);
  }
}

/** The part of an Octokit whose requests can be wrapped (`before-after-hook`). */
export interface CappableOctokit {
  hook: {
    wrap: (
      name: 'request',
      wrapper: (
        request: (options: Record<string, unknown>) => Promise<{ headers: Record<string, unknown> }>,
        options: Record<string, unknown>,
      ) => Promise<unknown>,
    ) => void;
  };
}

const capped = new WeakSet<object>();
const TOO_LARGE = 'x-buildbench-too-large';

/**
 * A fetch that reads at most MAX_CONFIG_BYTES of a successful body: a larger declared length, or a body that
 * runs past the cap, is cancelled and answered by an empty response that carries the size in a header of
 * our own (an error thrown here would be a status-500 RequestError, which the retry plugin repeats).
 */
function cappedFetch(fetcher: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetcher(input, init);
    if (!response.ok || !response.body) return response;
    const refuse = (size: string): Response => {
      // Not awaited: a cancel can wait on the peer; the stream is dropped either way.
      void response.body?.cancel().catch(() => undefined);
      return new Response('', { status: 200, headers: { [TOO_LARGE]: size } });
    };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > MAX_CONFIG_BYTES) return refuse(`${declared} bytes`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done || !value) break;
      total += value.byteLength;
      if (total > MAX_CONFIG_BYTES) {
        void reader.cancel().catch(() => undefined);
        return refuse(`more than ${MAX_CONFIG_BYTES} bytes`);
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Makes the reads of `.github/buildbench.yml` through this Octokit bounded (once per Octokit): the file is
 * fetched with `cappedFetch`, and one over the cap is a ConfigTooLargeError before anything parses it.
 */
function capConfigReads(octokit: CappableOctokit): void {
  if (capped.has(octokit)) return;
  capped.add(octokit);
  octokit.hook.wrap('request', async (request, options) => {
    const path = typeof options.path === 'string' ? options.path : '';
    if (!String(options.url).endsWith('/contents/{path}') || !path.endsWith(CONFIG_FILE))
      return request(options);
    const given = options.request as { fetch?: typeof fetch } | undefined;
    // In place: before-after-hook hands the inner hooks this same object, not the one passed on.
    options.request = { ...given, fetch: cappedFetch(given?.fetch ?? globalThis.fetch) };
    const response = await request(options);
    const size = response.headers[TOO_LARGE];
    if (typeof size === 'string') throw new ConfigTooLargeError(size);
    return response;
  });
}

/**
 * Loads the configuration of the repository an event belongs to. A file that cannot be read or parsed
 * (invalid YAML, a directory) is an error on the field `(the file)` with the reason; API failures other than
 * 404 (which means: no file) are errors too, so a misconfigured repository never silently gets the defaults.
 * Through `context.octokit`, the file is read under MAX_CONFIG_BYTES (a stranger's repository can install
 * the App), refused before YAML parsing sees it.
 */
export async function loadBotConfig(
  context: Pick<Context, 'config'> & { octokit?: CappableOctokit; log?: { warn: (message: string) => void } },
): Promise<ConfigResult> {
  let raw: unknown;
  try {
    if (context.octokit) capConfigReads(context.octokit);
    raw = await context.config(CONFIG_FILE);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (error instanceof ConfigTooLargeError)
      return { error: { field: '(the file)', message: error.message } };
    const cause = (error as { cause?: { linePos?: { line: number; col: number }[] } } | undefined)?.cause;
    const at = cause?.linePos?.[0];
    const reason = /invalid YAML/.test(text)
      ? `is not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}`
      : /not an object/.test(text)
        ? 'must be a mapping of fields, not a single value'
        : /directory or a submodule/.test(text)
          ? 'is a directory or a submodule, not a file'
          : `could not be read (${text.replace(/^\[@probot\/octokit-plugin-config\]\s*/, '')})`;
    return { error: { field: '(the file)', message: reason } };
  }
  const result = checkBotConfig(raw);
  if ('notes' in result) for (const note of result.notes ?? []) context.log?.warn(note);
  return result;
}
