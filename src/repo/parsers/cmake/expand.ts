/** `${VAR}` expansion over a variable map, the way CMake evaluates variable references. */

export type Vars = Map<string, string>;

/** Values longer than this are not tracked (self-appending lists can grow without bound). */
export const MAX_VALUE_LENGTH = 64 * 1024;

const UNRESOLVED_OPEN = '\u0001';
const UNRESOLVED_CLOSE = '\u0002';

/** Expands `${VAR}` (innermost first); unknown variables stay as written and mark the result unresolved. */
export function expandCMake(value: string, vars: Vars): { text: string; unresolved: boolean } {
  let text = value;
  let unresolved = /\$ENV\{|\$<|\$CACHE\{/.test(text);
  for (let round = 0; round < 20 && text.includes('${'); round++) {
    const next = text.replace(/\$\{([^${}]*)\}/g, (_m, name: string) => {
      const v = vars.get(name);
      if (v !== undefined) return v;
      unresolved = true;
      return `${UNRESOLVED_OPEN}${name}${UNRESOLVED_CLOSE}`;
    });
    if (next === text) break;
    if (next.length > MAX_VALUE_LENGTH) return { text: value, unresolved: true };
    text = next;
  }
  if (text.includes('${')) unresolved = true;
  text = text.replaceAll(UNRESOLVED_OPEN, '${').replaceAll(UNRESOLVED_CLOSE, '}');
  return { text, unresolved };
}
