/**
 * The bash helper library (`shell/bb-lib.sh`) as text for the renderers: read once, split into its
 * functions (each with the comment lines above it). Turn scripts inline all of it, build.sh only the
 * functions it calls, so both run the one copy that shellcheck checks.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../base/errors.js';

/**
 * The shipped library. Resolved against this module so that it works from `src/recipe/` (tsx, jest) and
 * from the compiled `lib/recipe/` alike: both are two levels below the repository root.
 */
export const SHELL_LIBRARY_URL = new URL('../../src/recipe/shell/bb-lib.sh', import.meta.url);

export interface ShellFunction {
  name: string;
  /** The comment lines above the definition and the definition itself, without a trailing newline. */
  text: string;
}

const START = /^([a-z_][a-z0-9_]*)\(\) \{$/;

/** Splits a library into its functions; anything outside a function but comments and blank lines is an error. */
export function parseShellLibrary(text: string, source: string): ShellFunction[] {
  const functions: ShellFunction[] = [];
  let comments: string[] = [];
  let current: { name: string; lines: string[] } | undefined;
  text.split('\n').forEach((line, index) => {
    if (current) {
      current.lines.push(line);
      if (line === '}') {
        functions.push({ name: current.name, text: current.lines.join('\n') });
        current = undefined;
      }
      return;
    }
    const start = START.exec(line);
    if (start) {
      current = { name: start[1]!, lines: [...comments, line] };
      comments = [];
    } else if (line.startsWith('#')) comments.push(line);
    else if (line.trim() === '') comments = [];
    else
      throw new ConfigError(
        `${source}:${index + 1}: only function definitions may run at the top level: ${line}`,
        'wrap the statement in a function that the renderer calls',
      );
  });
  if (current) throw new ConfigError(`${source}: function ${current.name} has no closing '}' line`);
  return functions;
}

let loaded: ShellFunction[] | undefined;

function library(): ShellFunction[] {
  if (!loaded) {
    let text: string;
    try {
      text = readFileSync(SHELL_LIBRARY_URL, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `cannot read the shell library ${SHELL_LIBRARY_URL.pathname}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    loaded = parseShellLibrary(text, SHELL_LIBRARY_URL.pathname);
  }
  return loaded;
}

/** Every function of the library, in file order (what a turn script inlines). */
export function shellLibrary(): string {
  return library()
    .map((f) => f.text)
    .join('\n');
}

/** One function of the library, with its comment (what build.sh inlines). */
export function shellFunction(name: string): string {
  const found = library().find((f) => f.name === name);
  if (!found) throw new ConfigError(`the shell library has no function ${name}`);
  return found.text;
}
