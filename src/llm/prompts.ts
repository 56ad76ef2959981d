/**
 * Prompts are files (`prompts/<name>.md` at the repository root) rendered with strict variables: every
 * `{{name}}` in the file must be given, and every variable given must be used. Values are inserted as they
 * are, never scanned for further placeholders.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../base/errors.js';

/** `src/llm/` and the compiled `lib/llm/` are both two levels below the repository root. */
export const DEFAULT_PROMPTS_DIR = new URL('../../prompts', import.meta.url);

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const NAME = /^[a-z0-9][a-z0-9-]*$/;

export type PromptVars = Record<string, string | number>;

export interface RenderOptions {
  /** Directory holding the prompt files (default: the shipped `prompts/`). */
  dir?: URL | string;
}

const cache = new Map<string, string>();

function templateOf(name: string, dir: URL | string): string {
  if (!NAME.test(name))
    throw new ConfigError(
      `prompt '${name}': not a prompt name`,
      'expected lower-case letters, digits and dashes',
    );
  const base = typeof dir === 'string' ? dir.replace(/\/?$/, '/') : dir.href.replace(/\/?$/, '/');
  const location = typeof dir === 'string' ? `${base}${name}.md` : new URL(`${name}.md`, base);
  const key = String(location);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let text: string;
  try {
    text = readFileSync(location, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `prompt '${name}': cannot read ${key}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  cache.set(key, text);
  return text;
}

/** The variables a prompt file uses, in order of first use. */
export function promptVariables(name: string, options: RenderOptions = {}): string[] {
  const text = templateOf(name, options.dir ?? DEFAULT_PROMPTS_DIR);
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** Renders `prompts/<name>.md`; a variable the file uses but `vars` lacks, or one `vars` has but the file does not use, is an error. */
export function renderPrompt(name: string, vars: PromptVars, options: RenderOptions = {}): string {
  const text = templateOf(name, options.dir ?? DEFAULT_PROMPTS_DIR);
  return renderTemplate(text, vars, `prompt '${name}'`);
}

/** Strict rendering of a template string (see renderPrompt). */
export function renderTemplate(text: string, vars: PromptVars, label = 'template'): string {
  const used = new Set<string>();
  const missing = new Set<string>();
  const out = text.replace(PLACEHOLDER, (_match, key: string) => {
    if (!Object.hasOwn(vars, key)) {
      missing.add(key);
      return '';
    }
    used.add(key);
    return String(vars[key]);
  });
  if (missing.size > 0)
    throw new ConfigError(
      `${label}: variable${missing.size > 1 ? 's' : ''} ${[...missing].join(', ')} not given`,
    );
  const unused = Object.keys(vars).filter((k) => !used.has(k));
  if (unused.length > 0)
    throw new ConfigError(`${label}: unknown variable${unused.length > 1 ? 's' : ''} ${unused.join(', ')}`);
  return out;
}

const FENCE_OPEN = '<<<UNTRUSTED';
const FENCE_CLOSE = '<<<END UNTRUSTED>>>';

/**
 * Quotes repository text (README, docs, web pages, build logs) for a prompt: fenced and labelled as data, with
 * any fence markers inside it defused so the text cannot close its own quote.
 */
export function quoteUntrusted(label: string, text: string): string {
  const safeLabel = label.replace(/[\r\n>]/g, ' ').slice(0, 200);
  const body = text.replaceAll('<<<', '‹‹‹');
  return `${FENCE_OPEN} ${safeLabel}>>>\n${body}${body.endsWith('\n') ? '' : '\n'}${FENCE_CLOSE}`;
}
