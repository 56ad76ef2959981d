/**
 * The commands a comment can give the bot: `/buildbench <command> [options]` or `@buildbench <command>
 * [options]` at the start of a line. Lines inside fenced code blocks and quoted lines (`> …`, a reply
 * quoting an earlier command) are not commands. The first command line counts.
 *
 * Comment text is untrusted. It is parsed here into a closed set of options whose values are checked
 * against narrow patterns (they become workflow_dispatch inputs, and a workflow might put an input in a
 * shell script); nothing of it is ever executed or passed to a shell by the bot.
 */
import { STRATEGY_CHOICES } from '../agent/strategies/factory.js';
import { PROVIDER_NAMES } from '../llm/factory.js';
import { BUILD_DEFAULTS } from '../core/settings.js';

/** Every command the bot knows. The configuration's `commands` may allow fewer. */
export const KNOWN_COMMANDS = ['build', 'help'] as const;
export type CommandName = (typeof KNOWN_COMMANDS)[number];

/** The options of `build`, by their workflow input name (the Action's input names). */
export interface BuildOptions {
  strategy?: string;
  model?: string;
  'max-cost'?: string;
  'max-turns'?: string;
}

export type OptionName = keyof BuildOptions;

interface OptionSpec {
  name: OptionName;
  value: string;
  check: (value: string) => string | undefined;
}

const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]*(?::[A-Za-z0-9._/-]+)*$/;

export const BUILD_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'strategy',
    value: STRATEGY_CHOICES.join('|'),
    check: (v) =>
      (STRATEGY_CHOICES as readonly string[]).includes(v)
        ? undefined
        : `expected one of ${STRATEGY_CHOICES.join(', ')}`,
  },
  {
    name: 'model',
    value: '<provider>:<model>',
    check: (v) => {
      const colon = v.indexOf(':');
      const provider = colon > 0 ? v.slice(0, colon) : '';
      const model = colon > 0 ? v.slice(colon + 1) : '';
      if (
        !(PROVIDER_NAMES as readonly string[]).includes(provider) ||
        !MODEL_PATTERN.test(model) ||
        v.length > 200
      )
        return `expected <provider>:<model> with provider ${PROVIDER_NAMES.join(' or ')}, e.g. openai:gpt-4o-mini`;
      return undefined;
    },
  },
  {
    name: 'max-cost',
    value: '<dollars>',
    check: (v) =>
      /^\d{1,6}(\.\d{1,4})?$/.test(v) && Number(v) > 0
        ? undefined
        : 'expected a positive amount in US dollars, e.g. 2.50',
  },
  {
    name: 'max-turns',
    value: '<n>',
    check: (v) =>
      /^\d{1,4}$/.test(v) && Number(v) >= 1 && Number(v) <= BUILD_DEFAULTS.maxTurnsLimit
        ? undefined
        : `expected a whole number from 1 to ${BUILD_DEFAULTS.maxTurnsLimit}`,
  },
];

export type ParsedCommand =
  | { kind: 'build'; options: BuildOptions }
  | { kind: 'help' }
  /** A known command with bad options: `error` says which and what was expected. */
  | { kind: 'invalid'; command: CommandName; error: string }
  /** `/buildbench <something we do not know>`; `name` is untrusted text (neutralise it). */
  | { kind: 'unknown'; name: string };

const COMMAND_LINE = /^(?:\/buildbench|@buildbench)(?=\s|$)(.*)$/;

/** The first command line of a comment (without its prefix), or undefined when there is none. */
export function findCommandLine(body: string): string | undefined {
  let fence: string | undefined;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? '';
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined || line.startsWith('>')) continue;
    const m = COMMAND_LINE.exec(line);
    if (m) return (m[1] ?? '').trim();
  }
  return undefined;
}

/** Parses a comment. Undefined when it holds no command (the bot then does nothing at all). */
export function parseCommand(body: string): ParsedCommand | undefined {
  const line = findCommandLine(body);
  if (line === undefined) return undefined;
  const words = line.split(/\s+/).filter((w) => w !== '');
  const [name, ...args] = words;
  if (name === undefined || name === 'help' || name === '--help') {
    return args.length === 0 || name === undefined
      ? { kind: 'help' }
      : { kind: 'invalid', command: 'help', error: `help takes no arguments (got '${args[0]}')` };
  }
  if (name !== 'build') return { kind: 'unknown', name: name.slice(0, 60) };
  const parsed = parseBuildOptions(args);
  return 'error' in parsed
    ? { kind: 'invalid', command: 'build', error: parsed.error }
    : { kind: 'build', options: parsed.options };
}

/** `--strategy rules --model openai:x --max-cost 2 --max-turns 5` (also `--name=value`). */
export function parseBuildOptions(args: string[]): { options: BuildOptions } | { error: string } {
  const options: BuildOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) {
      return {
        error: `unexpected '${arg.slice(0, 60)}'; options are written --name value (${optionList()})`,
      };
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = BUILD_OPTIONS.find((o) => o.name === flag);
    if (!spec) return { error: `unknown option --${flag.slice(0, 40)}; the options are ${optionList()}` };
    if (options[spec.name] !== undefined) return { error: `option --${spec.name} is given twice` };
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '')
      return { error: `option --${spec.name} needs a value: --${spec.name} ${spec.value}` };
    const problem = spec.check(value);
    if (problem) return { error: `option --${spec.name}: '${value.slice(0, 60)}' is not valid; ${problem}` };
    options[spec.name] = value;
  }
  return { options };
}

function optionList(): string {
  return BUILD_OPTIONS.map((o) => `--${o.name} ${o.value}`).join(', ');
}

/** The help text (Markdown), listing the commands this repository allows and the build options. */
export function helpText(allowed: readonly string[], permission: string): string {
  const lines = ['**buildbench** commands (write them at the start of a line of a comment):', ''];
  if (allowed.includes('build')) {
    lines.push(
      '- `/buildbench build [options]` — build this repository (a pull request: its head) in the configured workflow; ' +
        'this bot keeps one status comment up to date.',
    );
    for (const o of BUILD_OPTIONS) lines.push(`  - \`--${o.name} ${o.value}\``);
  }
  lines.push(
    '- `/buildbench help` — this list.',
    '',
    '`@buildbench` works as well as `/buildbench`.' +
      (allowed.includes('build') ? ` Building needs ${permission} access to the repository.` : ''),
  );
  return lines.join('\n');
}
