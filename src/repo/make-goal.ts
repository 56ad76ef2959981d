/**
 * What a plain Makefile's default goal runs, read without running make: the rules reachable from the first
 * target (or `.DEFAULT_GOAL`), their recipe lines with the Makefile's own variables expanded, and, for a target
 * with no recipe of its own, the link that make's built-in rule runs (`$(CC) $(LDFLAGS) … $(LDLIBS)`). From
 * these, the system needs the default build has: the `-l` libraries it links and the generator tools its
 * recipes call (bison for a grammar, protoc, gperf…). Anything under `ifeq`/`ifdef` is left out (an
 * option's, not the default build's), as are other targets (`docs:`, `install:`), `$(shell …)` and the
 * like: a guess costs a download, and the repair loop is there for what this misses.
 *
 * Not GNU make: no functions, no target-specific variables, no included files; simple `$(VAR)`/`${VAR}`
 * references are expanded (at most a few levels), pattern rules apply to a reachable prerequisite they
 * match. Linear in the Makefile's size.
 */

/** Libraries of the C library and the compiler (always there; never a package to install). */
const TOOLCHAIN_LIBRARIES = new Set([
  'c',
  'm',
  'pthread',
  'dl',
  'rt',
  'util',
  'crypt',
  'resolv',
  'stdc++',
  'gcc',
  'gcc_s',
  'atomic',
  'anl',
  'nsl',
  'mvec',
  'ssp',
  'gomp',
]);

/** Generator tools a recipe calls, and the Debian package that has each. */
export const MAKE_TOOLS: Readonly<Record<string, string>> = {
  bison: 'bison',
  yacc: 'bison',
  flex: 'flex',
  lex: 'flex',
  gperf: 'gperf',
  protoc: 'protobuf-compiler',
  swig: 'swig',
  xxd: 'xxd',
  re2c: 're2c',
  ragel: 'ragel',
  nasm: 'nasm',
  yasm: 'yasm',
  xsltproc: 'xsltproc',
  m4: 'm4',
};

/** One need of the default goal, with the Makefile line it came from (1-based) and that line as written. */
export interface MakeGoalNeed {
  kind: 'library' | 'tool';
  /** The library's name (`jansson` for `-ljansson`) or the tool's package (`bison`). */
  name: string;
  line: number;
  text: string;
}

interface Rule {
  targets: string[];
  prerequisites: string[];
  recipe: { text: string; line: number }[];
  line: number;
  text: string;
}

const ASSIGNMENT =
  /^(?:(?:export|override)\s+)*(\.?[A-Za-z_][A-Za-z0-9_.-]*)\s*(:::?=|::=|:=|\?=|\+=|!=|=)\s*(.*)$/;
const CONDITIONAL_OPEN = /^\s*(?:ifeq|ifneq|ifdef|ifndef)\b/;
const CONDITIONAL_CLOSE = /^\s*endif\b/;
const REFERENCE = /\$(?:\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\{([A-Za-z_][A-Za-z0-9_.-]*)\})/g;
const MAX_PATTERN_RULES = 200;
/** Variables make's built-in link rule reads (`%: %.o` and `%: %.c`). */
const BUILTIN_LINK = '$(LDFLAGS) $(LOADLIBES) $(LDLIBS)';

/** Logical lines: `\`-continuations joined (each keeps its first physical line's number), comments cut. */
function logicalLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const physical = text.split('\n');
  for (let i = 0; i < physical.length; i++) {
    const start = i;
    let line = physical[i]!.replace(/\r$/, '');
    while (line.endsWith('\\') && i + 1 < physical.length) {
      i++;
      line = `${line.slice(0, -1)} ${physical[i]!.replace(/\r$/, '').trimStart()}`;
    }
    const recipe = line.startsWith('\t');
    // A comment ends a make line (not in a recipe, where the shell sees it); `\#` is a literal.
    const cut = recipe ? line : line.replace(/(^|[^\\])#.*$/, '$1');
    out.push({ text: cut, line: start + 1 });
  }
  return out;
}

/** The rules and the unconditional variables of a Makefile. */
function parse(text: string): { rules: Rule[]; vars: Map<string, string>; defaultGoal?: string } {
  const rules: Rule[] = [];
  const vars = new Map<string, string>();
  let depth = 0;
  let current: Rule | undefined;
  for (const { text: line, line: number } of logicalLines(text)) {
    if (line.startsWith('\t')) {
      if (current && depth === 0) current.recipe.push({ text: line.slice(1), line: number });
      continue;
    }
    if (CONDITIONAL_OPEN.test(line)) {
      depth++;
      current = undefined;
      continue;
    }
    if (CONDITIONAL_CLOSE.test(line)) {
      depth = Math.max(0, depth - 1);
      current = undefined;
      continue;
    }
    if (line.trim() === '') continue;
    const assignment = ASSIGNMENT.exec(line);
    if (assignment) {
      current = undefined;
      if (depth > 0) continue;
      const [, name, op, value] = assignment;
      if (op === '!=') continue; // a shell command's output
      if (op === '+=') vars.set(name!, `${vars.get(name!) ?? ''} ${value!}`.trim());
      else if (op !== '?=' || !vars.has(name!)) vars.set(name!, value!.trim());
      continue;
    }
    const colon = /^([^:=]+?)\s*::?\s*(?!=)(.*)$/.exec(line);
    if (!colon || depth > 0 || /^\s*(?:include|-include|sinclude|define|endef|vpath)\b/.test(line)) {
      current = undefined;
      continue;
    }
    const [, targetText, rest] = colon;
    // `prog: CFLAGS += -g`: a target-specific variable, not a rule.
    if (ASSIGNMENT.test(rest!.trim())) {
      current = undefined;
      continue;
    }
    const [prereqText, inline] = splitInlineRecipe(rest!);
    current = {
      targets: targetText!.trim().split(/\s+/),
      prerequisites: prereqText.replace('|', ' ').trim().split(/\s+/).filter(Boolean),
      recipe: inline !== undefined ? [{ text: inline, line: number }] : [],
      line: number,
      text: line.trim(),
    };
    rules.push(current);
  }
  const defaultGoal = vars.get('.DEFAULT_GOAL');
  return { rules, vars, ...(defaultGoal ? { defaultGoal } : {}) };
}

/** `prereqs ; recipe` → the two parts (the recipe undefined when there is none on the rule line). */
function splitInlineRecipe(rest: string): [string, string | undefined] {
  const semi = rest.indexOf(';');
  return semi < 0 ? [rest, undefined] : [rest.slice(0, semi), rest.slice(semi + 1).trim()];
}

/** `$(VAR)` and `${VAR}` replaced by their values, a few levels deep; automatic and unknown ones left as they are. */
function expand(text: string, vars: ReadonlyMap<string, string>, depth = 0): string {
  if (depth > 4 || !text.includes('$')) return text;
  return text.replace(REFERENCE, (whole, a: string | undefined, b: string | undefined) => {
    const value = vars.get(a ?? b ?? '');
    return value === undefined ? whole : expand(value, vars, depth + 1);
  });
}

/** Does a pattern target (`%.tab.c`) match a name? */
function matchesPattern(pattern: string, name: string): boolean {
  const percent = pattern.indexOf('%');
  if (percent < 0) return false;
  const prefix = pattern.slice(0, percent);
  const suffix = pattern.slice(percent + 1);
  return name.length > prefix.length + suffix.length && name.startsWith(prefix) && name.endsWith(suffix);
}

/** The commands of one recipe line: `;`, `&&`, `||` and `|` split, make's `@-+` prefixes and `VAR=x` dropped. */
function commandsOf(line: string): string[][] {
  return line
    .replace(/^[@+-]+/, '')
    .split(/&&|\|\||;|\|/)
    .map((part) =>
      part
        .trim()
        .replace(/^[@+-]+/, '')
        .split(/\s+/)
        .filter(Boolean),
    )
    .map((words) => {
      let i = 0;
      while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
      return words.slice(i);
    })
    .filter((words) => words.length > 0);
}

/**
 * The needs of the default goal of a Makefile (see the file header): `-l` libraries outside the toolchain's
 * own and the generator tools of `MAKE_TOOLS`, each once, from the reachable recipes.
 */
export function makeGoalNeeds(text: string): MakeGoalNeed[] {
  const { rules, vars, defaultGoal } = parse(text);
  const explicit = new Map<string, Rule>();
  const patterns: Rule[] = [];
  for (const rule of rules) {
    for (const target of rule.targets) {
      // A real Makefile has a few pattern rules; a hostile one with thousands is read only so far.
      if (target.includes('%')) {
        if (patterns.length < MAX_PATTERN_RULES) patterns.push(rule);
      } else if (!explicit.has(target)) explicit.set(target, rule);
    }
  }
  const first = rules.flatMap((r) => r.targets).find((t) => !t.startsWith('.') && !t.includes('%'));
  const goal = defaultGoal?.trim() || first;
  if (goal === undefined) return [];

  const needs = new Map<string, MakeGoalNeed>();
  const add = (kind: MakeGoalNeed['kind'], name: string, line: number, lineText: string): void => {
    const key = `${kind}:${name}`;
    if (!needs.has(key)) needs.set(key, { kind, name, line, text: lineText.trim().slice(0, 160) });
  };
  const readCommands = (raw: string, line: number, lineText: string): void => {
    const expanded = expand(raw, vars);
    for (const words of commandsOf(expanded)) {
      const tool = MAKE_TOOLS[words[0]!.split('/').pop()!];
      if (tool) add('tool', tool, line, lineText);
    }
    for (const word of expanded.split(/\s+/)) {
      const lib = /^-l([A-Za-z0-9_+.-]+)$/.exec(word)?.[1];
      if (lib && !TOOLCHAIN_LIBRARIES.has(lib)) add('library', lib, line, lineText);
    }
  };

  const seen = new Set<string>();
  /** Each target to visit, with the rule that named it (for a program make links by its built-in rule). */
  const queue: { target: string; from?: Rule }[] = expand(goal, vars)
    .split(/\s+/)
    .filter(Boolean)
    .map((target) => ({ target }));
  const used = new Set<Rule>();
  while (queue.length > 0 && seen.size < 5000) {
    const { target, from } = queue.shift()!;
    if (seen.has(target) || target.includes('$')) continue;
    seen.add(target);
    const rule =
      explicit.get(target) ?? patterns.find((p) => p.targets.some((t) => matchesPattern(t, target)));
    if (!rule) {
      // A program with no rule (`all: hello`, hello.c beside it): make's built-in `%: %.c` links it.
      if (from && !/[./]/.test(target)) readCommands(BUILTIN_LINK, from.line, from.text);
      continue;
    }
    for (const p of rule.prerequisites) {
      for (const name of expand(p, vars).split(/\s+/)) {
        if (name.includes('%')) {
          // A pattern rule's prerequisite, for this target's stem.
          const pattern = rule.targets.find((t) => matchesPattern(t, target));
          if (!pattern) continue;
          const prefix = pattern.slice(0, pattern.indexOf('%'));
          const suffix = pattern.slice(pattern.indexOf('%') + 1);
          const stem = target.slice(prefix.length, target.length - suffix.length);
          queue.push({ target: name.replace('%', stem), from: rule });
        } else if (name) queue.push({ target: name, from: rule });
      }
    }
    if (used.has(rule)) continue;
    used.add(rule);
    if (rule.recipe.length === 0) {
      // No recipe: make's built-in rule links it (`hello: hello.o` → `$(CC) $(LDFLAGS) hello.o $(LDLIBS)`).
      if (rule.prerequisites.length > 0) readCommands(BUILTIN_LINK, rule.line, rule.text);
      continue;
    }
    for (const step of rule.recipe) readCommands(step.text, step.line, step.text);
  }
  return [...needs.values()];
}
