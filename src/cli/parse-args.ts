/**
 * `util.parseArgs` with messages for people. Node reads `--timeout -5` as the option `--timeout` followed by
 * the option `-5` and answers "argument is ambiguous"; here a value that looks like a negative number is
 * given to the flag (so its own check says what was expected), an option where a value should be gets one line
 * naming the flag, and an unknown option gets the nearest known one (`--max-turn`: did you mean '--max-turns'?).
 * Light on purpose: every command parses its flags with it, and `diagnose` must start fast (issue 32).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

import { ConfigError, errorMessage } from '../base/errors.js';
import { unknownNameHint } from '../base/suggest.js';

/** ` (did you mean '--x'?)` for a near miss; nothing otherwise (the hint points at --help, which lists them all). */
function nearestOption(option: string, known: readonly string[]): string {
  const hint = unknownNameHint(option, known);
  return hint.startsWith(' (did you mean') ? hint : '';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** `-5`, `-0.5`, `-.5`, `-1h`: a value, not an option (no option of ours starts with a digit). */
const NEGATIVE_VALUE = /^-\.?\d/;

/**
 * Parses `args` strictly with `options` (positionals allowed). Errors are ConfigErrors whose message starts
 * with `prefix` (e.g. `verify: `) and whose hint is `hint`.
 */
export function parseCliArgs<T extends Options>(
  args: string[],
  options: T,
  { prefix = '', hint }: { prefix?: string; hint: string },
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  const fixed: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      fixed.push(...args.slice(i));
      break;
    }
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name === undefined || options[name]?.type !== 'string') {
      fixed.push(arg);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined) {
      throw new ConfigError(`${prefix}${arg}: missing value`, hint);
    }
    if (next.startsWith('-') && next !== '-' && !NEGATIVE_VALUE.test(next)) {
      throw new ConfigError(
        `${prefix}${arg}: expected a value, got '${next}', which reads as an option`,
        `to pass a value that starts with '-', write ${arg}=${next}`,
      );
    }
    fixed.push(`${arg}=${next}`);
    i++;
  }
  try {
    return parseArgs({ args: fixed, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = errorMessage(error).replace(/\. To specify a positional.*$/s, '');
    const unknown =
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? /'(--?[^'=]+)/.exec(message)
        : null;
    if (unknown) {
      const known = Object.keys(options).map((name) => (name.length === 1 ? `-${name}` : `--${name}`));
      throw new ConfigError(
        `${prefix}unknown option '${unknown[1]}'${nearestOption(unknown[1]!, known)}`,
        hint,
      );
    }
    throw new ConfigError(`${prefix}${message}`, hint);
  }
}
