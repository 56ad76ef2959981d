/**
 * Expected targets from hand-written Makefiles: link lines (`$(CC) … -o name`), archive lines
 * (`ar rcs libfoo.a`), rules whose target is a library, and TARGET/BIN/PROG-style variables.
 */

import {
  collapseUnresolved,
  collectVariables,
  expandMake,
  logicalLines,
  parseAssignment,
  type MakeLine,
} from './automake.js';
import { dedupeTargets, isPlainName, makeTarget, plainBase, type InferredTarget } from './common.js';
import type { TargetKind } from '../types.js';

/** Variables whose value names what the Makefile builds. */
export const TARGET_VARIABLES = new Set([
  'TARGET',
  'TARGETS',
  'TARGET_EXEC',
  'BIN',
  'BINS',
  'BINARY',
  'BINARIES',
  'PROG',
  'PROGS',
  'PROGRAM',
  'PROGRAMS',
  'EXEC',
  'EXECS',
  'EXE',
  'EXES',
  'EXECUTABLE',
  'EXECUTABLES',
  'NAME',
  'APP',
  'OUT',
  'OUTPUT',
  'LIB',
  'LIBS_TARGET',
  'LIBRARY',
  'STATIC_LIB',
  'SHARED_LIB',
  'STATICLIB',
  'SHAREDLIB',
]);

/** Variables that name a target only when a rule or the default goal uses them. */
const WEAK_VARIABLES = new Set(['NAME', 'APP', 'OUT', 'OUTPUT']);

/** Goals that are actions, never produced files. */
const ACTION_GOALS = new Set([
  'all',
  'clean',
  'distclean',
  'mrproper',
  'install',
  'uninstall',
  'test',
  'tests',
  'check',
  'run',
  'debug',
  'release',
  'help',
  'default',
  'depend',
  'dep',
  'deps',
  'format',
  'lint',
  'docs',
  'doc',
  'dist',
  'package',
  'build',
  'rebuild',
  'bin',
  'lib',
  'obj',
  'objs',
]);

const COMPILER =
  /(?:^|[\s;&|()@-])(?:@(?:CC|CXX|LD|CCLD|CXXLD)@|\$[({](?:CC|CXX|LD|LINK|LINK\.[a-z]+|FC|F77|NVCC|HIPCC|MPICC|MPICXX|CCLD|CXXLD|COMPILER|COMPILE)[)}]|(?:\S*\/)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icc|icpc|icx|nvcc|mpicc|mpicxx|gfortran|ld)(?:-\d+)?)(?=\s)/;
const OUTPUT_FLAG = /(?:^|\s)-o\s*(\S+)/;
const ARCHIVE =
  /(?:^|[\s;&|()@-])(?:\$[({]AR[)}]|(?:\S*\/)?(?:ar|gcc-ar|llvm-ar))\s+(?:-?[crsuvqTD]+|\$[({]ARFLAGS[)}])\s+(\S+)/;

interface Rule {
  targets: string[];
  prereqs: string[];
  recipe: MakeLine[];
  line: number;
}

function parseRules(lines: readonly MakeLine[], vars: ReadonlyMap<string, string>): Rule[] {
  const rules: Rule[] = [];
  let current: Rule | undefined;
  for (const line of lines) {
    if (line.recipe) {
      current?.recipe.push(line);
      continue;
    }
    if (parseAssignment(line)) {
      current = undefined;
      continue;
    }
    const trimmed = line.text.trim();
    if (/^-?(?:include|sinclude|define|endef|export|unexport|vpath|override)\b/.test(trimmed)) {
      current = undefined;
      continue;
    }
    // `targets : prereqs` or `targets :: prereqs`, not `:=`; a `; recipe` tail belongs to the recipe.
    const m = /^([^:=]+?)\s*::?(?!=)\s*(.*)$/.exec(trimmed);
    if (!m) {
      current = undefined;
      continue;
    }
    const [prereqText = '', inline] = (m[2] ?? '').split(/;(.*)/s);
    // `target: VAR = value` sets a target-specific variable; it names no prerequisites.
    const targetVariable = /^(?:override\s+|export\s+)?[A-Za-z_][\w.-]*\s*(?::{1,3}=|\?=|\+=|!=|=)/.test(
      prereqText.trim(),
    );
    const split = (s: string): string[] =>
      collapseUnresolved(expandMake(s, vars))
        .split(/\s+/)
        .filter((w) => w !== '');
    current = {
      targets: split(m[1] ?? ''),
      prereqs: targetVariable ? [] : split(prereqText.replace(/\|/g, ' ')),
      recipe: [],
      line: line.line,
    };
    if (inline !== undefined && inline.trim() !== '')
      current.recipe.push({
        text: `\t${inline}`,
        line: line.line,
        conditional: line.conditional,
        recipe: true,
      });
    rules.push(current);
  }
  return rules;
}

/** A produced file name from one word of a Makefile, or undefined for objects, patterns, actions and unknowns. */
function producedName(word: string): string | undefined {
  if (word === '' || /[%*?]/.test(word) || /\$[<^*?+|]/.test(word)) return undefined;
  // Versioned shared objects: `libfoo.so.$(VERSION)` is matched by its base name.
  // A trailing unresolved variable (`prog$(PROG_SUFFIX)`, `$(EXEEXT)`) is a suffix that is empty on Linux.
  const name = plainBase(word.replace(/(?:\$\(_\))+$/, ''))
    .replace(/\.exe$/i, '')
    .replace(/(\.so)\..*$/, '$1');
  if (!isPlainName(name)) return undefined;
  if (
    /\.(?:o|obj|lo|d|gch|pch|c|cc|cpp|cxx|h|hpp|s|S|dll|dylib|lib|la|txt|md|in|mk|sh|py|pdf|html|tar|gz|zip|tgz)$/i.test(
      name,
    )
  )
    return undefined;
  if (ACTION_GOALS.has(name.toLowerCase())) return undefined;
  return name;
}

/**
 * A name with a part make computes when it runs (`$(PROG)-$(VERSION)-$(ARCH)` with `ARCH := $(shell
 * uname -m)`): the unresolved part shown as `$(?)`. Undefined for a name with no such part, or with only a
 * trailing suffix variable (`prog$(EXEEXT)`, empty on Linux).
 */
function computedName(word: string): string | undefined {
  const at = word.indexOf('$(_)');
  if (at < 0 || /[%*?]/.test(word) || /\$[<^*?+|@]/.test(word)) return undefined;
  const trailing = /^[^$]*[A-Za-z0-9](?:\$\(_\))+$/.test(word);
  if (trailing) return undefined;
  const name = plainBase(word).split('$(_)').join('$(?)');
  return name.replace(/\$\(\?\)/g, '').length >= 2 ? name : undefined;
}

const COMPUTED_NOTE =
  'part of the name is computed when make runs ($(shell …) or an unset variable) and could not be expanded';

function kindOf(name: string, recipeLine: string): TargetKind {
  if (/\.a$/.test(name)) return 'static_library';
  if (/\.so(?:\.\d+)*$/.test(name) || /(?:^|\s)-shared\b/.test(recipeLine)) return 'shared_library';
  return 'executable';
}

/** `libfoo.so.1.2` → `libfoo.so` (the verifier matches versioned names by their base). */
function baseSharedName(name: string): string {
  return name.replace(/(\.so)(?:\.\d+)+$/, '$1');
}

/** Files a Makefile includes (`include`, `-include`, `sinclude`), as written; names with variables are left out. */
export function makefileIncludes(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^[ \t]*-?s?include[ \t]+([^\n#]+)/gm))
    for (const word of (m[1] ?? '').trim().split(/\s+/))
      if (word !== '' && !word.includes('$')) out.push(word);
  return out;
}

/**
 * Directories a Makefile runs make in: `$(MAKE) -C dir`, `cd dir && $(MAKE)`, and loops over SUBDIRS-like
 * variables. Relative to the Makefile's directory, as written after variable expansion.
 */
export function makeSubdirs(text: string, included: readonly string[] = []): string[] {
  const lines = logicalLines(text);
  const vars = collectVariables([...included.flatMap((t) => logicalLines(t)), ...lines]);
  const out = new Set<string>();
  const MAKE = String.raw`(?:\$[({]MAKE[)}]|\bmake\b)`;
  for (const line of lines) {
    if (!line.recipe) continue;
    const cmd = collapseUnresolved(expandMake(line.text, vars).replace(/\$[({]MAKE[)}]/g, 'make'));
    if (!new RegExp(MAKE).test(cmd)) continue;
    // `cd modules && $(MAKE) clean` cleans; it does not build that directory.
    if (new RegExp(String.raw`${MAKE}[^;&|]*\b(?:clean|distclean|mrproper|uninstall|install)\b`).test(cmd))
      continue;
    for (const m of cmd.matchAll(new RegExp(String.raw`${MAKE}[^;&|]*?(?:-C\s*|--directory=)(\S+)`, 'g')))
      out.add(m[1] ?? '');
    for (const m of cmd.matchAll(
      new RegExp(String.raw`\bcd\s+(\S+)\s*(?:&&|;)\s*(?:\S+=\S+\s+)*${MAKE}`, 'g'),
    ))
      out.add(m[1] ?? '');
    // for d in $(SUBDIRS); do $(MAKE) -C $$d; done
    if (/\$\$\{?\w+/.test(cmd))
      for (const [name, value] of vars)
        if (/DIRS?$/.test(name))
          for (const w of collapseUnresolved(expandMake(value, vars)).split(/\s+/)) out.add(w);
  }
  return [...out].filter((d) => d !== '' && !d.includes('$') && !d.startsWith('/') && !d.startsWith('-'));
}

/** What `make` with no goal builds, and what the test goals need. */
interface Goals {
  prereqsOf: Map<string, string[]>;
  /** The first ordinary rule: the default goal. */
  firstGoal: Rule | undefined;
  /** The default goal and what it depends on (a few levels). */
  defaults: Set<string>;
  /** What `make test` / `tests` / `check` needs. */
  testGoals: Set<string>;
}

function goalsOf(rules: readonly Rule[]): Goals {
  const prereqsOf = new Map<string, string[]>();
  for (const rule of rules)
    for (const t of rule.targets) prereqsOf.set(t, [...(prereqsOf.get(t) ?? []), ...rule.prereqs]);
  const firstGoal = rules.find((r) =>
    r.targets.some((t) => !t.startsWith('.') && !t.includes('%') && !t.includes('$')),
  );
  const reachable = (start: readonly string[]): Set<string> => {
    const seen = new Set<string>();
    let frontier = [...start];
    for (let level = 0; level < 10 && frontier.length > 0; level++) {
      const next: string[] = [];
      for (const t of frontier) {
        if (seen.has(t)) continue;
        seen.add(t);
        next.push(...(prereqsOf.get(t) ?? []));
      }
      frontier = next;
    }
    return seen;
  };
  return {
    prereqsOf,
    firstGoal,
    defaults: reachable(firstGoal ? firstGoal.targets.filter((t) => !t.startsWith('.')) : []),
    testGoals: reachable(['test', 'tests', 'check'].filter((t) => prereqsOf.has(t))),
  };
}

/** Whether `word` (or a path ending in it) is built by the default goal. */
function inDefault(goals: Goals, word: string): boolean {
  return goals.defaults.has(word) || [...goals.defaults].some((d) => plainBase(d) === word);
}

/** Records a produced file as a target: (word, kind, line, recipe, confidence in / outside the default goal). */
type AddTarget = (
  word: string,
  kind: TargetKind | undefined,
  line: number,
  recipeLine: string,
  confidenceInDefault: number,
  confidenceElse: number,
) => void;

function targetAdder(
  file: string,
  phony: ReadonlySet<string>,
  goals: Goals,
  out: InferredTarget[],
): AddTarget {
  return (word, kind, line, recipeLine, confidenceInDefault, confidenceElse) => {
    const computed = computedName(word);
    const name = computed ?? producedName(word);
    if (name === undefined || phony.has(word) || phony.has(name)) return;
    const isDefault = inDefault(goals, word) || inDefault(goals, name);
    const k = kind ?? kindOf(name, recipeLine);
    const onlyForTests = !isDefault && (goals.testGoals.has(word) || goals.testGoals.has(name));
    out.push(
      makeTarget('make', {
        name: k === 'shared_library' ? baseSharedName(name) : name,
        kind: k,
        file,
        line,
        confidence: Math.min(isDefault ? confidenceInDefault : confidenceElse, computed ? 0.3 : 1),
        ...(onlyForTests ? { role: 'test' as const } : {}),
        ...(computed
          ? {
              note: COMPUTED_NOTE,
              // a product of the default goal whose name is not known: the expectation is uncertain
              ...(isDefault ? { uncertain: `${name}: ${COMPUTED_NOTE}` } : {}),
            }
          : isDefault
            ? {}
            : { note: 'not reached from the default goal' }),
      }),
    );
  };
}

/** Archive and link lines in recipes, and rules whose target is a library. */
function fromRecipes(rules: readonly Rule[], vars: ReadonlyMap<string, string>, add: AddTarget): void {
  for (const rule of rules) {
    for (const recipe of rule.recipe) {
      const cmd = expandMake(recipe.text, vars);
      const archive = ARCHIVE.exec(cmd);
      if (archive) {
        const words = archive[1] === '$@' ? rule.targets : [archive[1] ?? ''];
        for (const w of words) if (/\.a$/.test(w)) add(w, 'static_library', recipe.line, cmd, 0.8, 0.5);
        continue;
      }
      if (
        !(COMPILER.test(recipe.text) || COMPILER.test(cmd)) ||
        /(?:^|\s)-c(?:\s|$)/.test(cmd) ||
        /(?:^|\s)-E(?:\s|$)/.test(cmd)
      )
        continue;
      const out1 = OUTPUT_FLAG.exec(cmd)?.[1];
      if (out1 === undefined) continue;
      // `-o $@`, or `-o $@$(EXT)` where an unresolved suffix variable is empty on Linux.
      const self = /^\$(?:@|\(@\))((?:\$[({][^)}]*[)}])*)(.*)$/.exec(out1);
      const words = self ? rule.targets.map((t) => `${t}${self[2] ?? ''}`) : [out1];
      for (const w of words) add(w, undefined, recipe.line, cmd, 0.8, 0.5);
    }
    // `libfoo.a: $(OBJS)` with an unrecognised recipe still names a library.
    for (const t of rule.targets)
      if (/\.(?:a|so(?:\.\d+)*)$/.test(t) && !t.includes('%')) add(t, undefined, rule.line, '', 0.7, 0.45);
  }
}

/** Files the default goal needs that have a recipe of their own (programs copied or made by scripts). */
function fromDefaultGoal(
  rules: readonly Rule[],
  goals: Goals,
  phony: ReadonlySet<string>,
  add: AddTarget,
): void {
  const withRecipe = new Map<string, Rule>();
  for (const rule of rules) if (rule.recipe.length > 0) for (const t of rule.targets) withRecipe.set(t, rule);
  for (const goal of goals.firstGoal ? goals.firstGoal.targets : []) {
    for (const prereq of [goal, ...(goals.prereqsOf.get(goal) ?? [])]) {
      const rule = withRecipe.get(prereq);
      if (rule && !phony.has(prereq)) add(prereq, undefined, rule.line, '', 0.6, 0.6);
    }
  }
}

/** TARGET/BIN/PROG-style variables; weak ones (NAME, OUT, …) only when a rule or the default goal uses them. */
function fromVariables(
  lines: readonly MakeLine[],
  vars: ReadonlyMap<string, string>,
  rules: readonly Rule[],
  goals: Goals,
  add: AddTarget,
): void {
  for (const line of lines) {
    const a = parseAssignment(line);
    if (!a || !TARGET_VARIABLES.has(a.name) || a.op === '+=' || a.op === '!=') continue;
    const value = expandMake(vars.get(a.name) ?? a.value, vars);
    if (value === '' || value.includes('$(') || value.includes('${') || /[=,"'`]/.test(value)) continue;
    const words = value.split(/\s+/);
    if (words.length > 20 || words.some((w) => w.startsWith('-'))) continue;
    const referenced =
      rules.some((r) => r.targets.some((t) => words.includes(t))) || words.some((w) => inDefault(goals, w));
    if (WEAK_VARIABLES.has(a.name) && !referenced) continue;
    for (const w of words) {
      if (a.name.includes('LIB') && !/\.(?:a|so(?:\.\d+)*)$/.test(w)) continue;
      add(w, undefined, a.line, '', referenced ? 0.75 : 0.45, referenced ? 0.55 : 0.4);
    }
  }
}

/**
 * Targets of one hand-written Makefile (`file` is its repository-relative path). `included` holds the
 * text of files it includes: their variables are read (rules are not).
 */
export function makefileTargets(
  text: string,
  file: string,
  included: readonly string[] = [],
): InferredTarget[] {
  const lines = logicalLines(text);
  const vars = collectVariables([...included.flatMap((t) => logicalLines(t)), ...lines]);
  const rules = parseRules(lines, vars);
  const phony = new Set(rules.filter((r) => r.targets.includes('.PHONY')).flatMap((r) => r.prereqs));
  const goals = goalsOf(rules);
  const out: InferredTarget[] = [];
  const add = targetAdder(file, phony, goals, out);
  fromRecipes(rules, vars, add);
  fromDefaultGoal(rules, goals, phony, add);
  fromVariables(lines, vars, rules, goals, add);
  const helpers = buildHelpers(rules, vars);
  for (const t of out) {
    if (helpers.has(t.name)) {
      t.role = 'excluded';
      t.confidence = Math.min(t.confidence, 0.3);
      t.note =
        'a recipe runs it during the build (it generates a file another rule needs): a build helper, not a product';
    }
  }
  return dedupeTargets(out);
}

/**
 * Programs this Makefile builds and then runs in a recipe of a rule that makes a file (`crctable.h:
 * mktable` / `./mktable > crctable.h`): generators, not the products. Read by splitting words.
 */
function buildHelpers(rules: readonly Rule[], vars: ReadonlyMap<string, string>): Set<string> {
  const built = new Set(rules.flatMap((r) => r.targets).map((t) => plainBase(t)));
  const helpers = new Set<string>();
  for (const rule of rules) {
    if (rule.targets.every((t) => t.startsWith('.') || ACTION_GOALS.has(t.toLowerCase()))) continue;
    for (const recipe of rule.recipe) {
      const cmd = expandMake(recipe.text, vars);
      for (const part of cmd.split(/&&|\|\||;|\|/)) {
        const first =
          part
            .trim()
            .replace(/^[@+-]+/, '')
            .trim()
            .split(/\s+/)[0] ?? '';
        if (!first.includes('/') || first.includes('$')) continue;
        const name = plainBase(first);
        if (built.has(name) && !rule.targets.some((t) => plainBase(t) === name)) helpers.add(name);
      }
    }
  }
  return helpers;
}
