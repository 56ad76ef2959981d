/**
 * Which missing git submodules can matter to a build (issue 12, class 5). A submodule that the project's
 * CMakeLists.txt uses only inside `if(<test option>)` (`BUILD_TESTING`, `ENABLE_TESTING`, `FOO_BUILD_TESTS`,
 * …) while that option is off is not needed, so it is neither fetched first nor named as a cause.
 */
import path from 'node:path';
import { readFileUnder } from '../../base/safe-fs.js';
import type { Submodule } from '../../repo/types.js';

/** Options that switch tests on: `BUILD_TESTING`, `ENABLE_TESTING`, `FOO_BUILD_TESTS`, `WITH_TESTS`, … */
const TEST_OPTION = /^(?:\w+_)?(?:BUILD_|ENABLE_|WITH_)?(?:TESTS?|TESTING|UNIT_TESTS|GTEST|BENCHMARKS?)$/i;
const MAX_BYTES = 1024 * 1024;

/** The option's default when the file declares it with `option(NAME "…" ON|OFF)`; undefined when it does not. */
function optionDefault(text: string, name: string): boolean | undefined {
  const m = new RegExp(
    `\\boption\\s*\\(\\s*${name}\\s+(?:"[^"]*"|\\S+)\\s*(ON|OFF|TRUE|FALSE|YES|NO|1|0)?\\s*\\)`,
    'i',
  ).exec(text);
  if (!m) return undefined;
  return /^(ON|TRUE|YES|1)$/i.test(m[1] ?? 'OFF');
}

/** True when the test option is off by default: declared OFF, or BUILD_TESTING without `include(CTest)`. */
function isOff(text: string, name: string): boolean {
  const declared = optionDefault(text, name);
  if (declared !== undefined) return !declared;
  // CTest declares BUILD_TESTING ON; any other undeclared option is unset, i.e. off.
  return !(name === 'BUILD_TESTING' && /\binclude\s*\(\s*CTest\s*\)/i.test(text));
}

/**
 * For each line that mentions `sub`, the conditions of the `if()` blocks around it (innermost last). Only
 * plain `if(NAME)` conditions are kept as names; anything else is `*`.
 */
function conditionsAround(text: string, sub: string): string[][] {
  const stack: string[] = [];
  const uses: string[][] = [];
  for (const line of text.split('\n')) {
    const code = line.replace(/#.*/, '');
    const open = /^\s*if\s*\(\s*([^)]*?)\s*\)/i.exec(code);
    if (open) {
      stack.push(/^[A-Za-z_]\w*$/.test(open[1]!) ? open[1]! : '*');
      continue;
    }
    if (/^\s*endif\s*\(/i.test(code)) {
      stack.pop();
      continue;
    }
    if (code.includes(sub)) uses.push([...stack]);
  }
  return uses;
}

/** True when every use of the submodule in the text sits under a test option that is off. */
export function usedOnlyUnderTestsOff(text: string, submodulePath: string): boolean {
  const uses = conditionsAround(text, submodulePath);
  if (uses.length === 0) return false;
  return uses.every((conditions) => conditions.some((c) => TEST_OPTION.test(c) && isOff(text, c)));
}

/**
 * The submodules of `missing` that the build can need: all of them, except those the root CMakeLists.txt
 * (or the one in `dir`) uses only under a test option that is off. Without a CMakeLists.txt all are kept.
 */
export async function submodulesThatMatter(
  root: string,
  dir: string,
  missing: readonly Submodule[],
): Promise<Submodule[]> {
  const texts: string[] = [];
  for (const base of [...new Set([dir, ''])]) {
    const file = path.posix.join(base || '.', 'CMakeLists.txt').replace(/^\.\//, '');
    try {
      texts.push(
        (await readFileUnder(root, file, { follow: 'inside', maxBytes: MAX_BYTES })).toString('utf8'),
      );
    } catch {
      // no CMakeLists.txt there
    }
  }
  if (texts.length === 0) return [...missing];
  return missing.filter((s) => !texts.some((t) => usedOnlyUnderTestsOff(t, s.path)));
}
