/**
 * The programs a deploy's target command runs (issue 29's first generic move: "every program the target command,
 * and the scripts it calls, runs is present"): the target command is split into its simple commands by the shell
 * parser, and each repository script it runs (`./run.sh`, `bash scripts/exp.sh`; shell scripts only, read inside
 * the tree, bounded) is split the same way, one level down. What is left after shell builtins, the scripts' own
 * functions and paths is a program name, returned as a declaration the pre-install resolves like any other: a
 * program a package ships (`/usr/bin/bc`) and the sandbox lacks is installed before the first script, with the
 * line that runs it as the reason; one nothing ships, or one already installed, changes nothing.
 */
import path from 'node:path';

import { readFileUnder } from '../base/safe-fs.js';
import { splitScript } from '../trajectory/shell-split.js';
import type { BuildDeclaration } from '../repo/types.js';

/** How much of one script is read, and how many scripts at most. */
const MAX_SCRIPT_BYTES = 64 * 1024;
const MAX_SCRIPTS = 8;
/** At most this many programs are declared (a long script's tail adds nothing the repair loop cannot). */
const MAX_PROGRAMS = 24;

/** A program name worth a look-up: a plain word (no path, no expansion, no option). */
const PROGRAM = /^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}$/;
/** `NAME=value` before a command. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Builtins and keywords of bash and POSIX sh: run by the shell, never looked up in PATH. */
const BUILTINS = new Set(
  (
    '. : [ [[ alias bg bind break builtin caller case cd command compgen complete continue declare dirs ' +
    'disown echo enable eval exec exit export false fc fg for function getopts hash help history if jobs kill ' +
    'let local logout mapfile popd printf pushd pwd read readarray readonly return select set shift shopt ' +
    'source suspend test then time times trap true type typeset ulimit umask unalias unset until wait while'
  ).split(' '),
);
/** Words that run the command after them (`sudo make`, `env X=1 prog`, `timeout 60 prog`): the next word counts. */
const WRAPPERS = new Set(['sudo', 'env', 'nohup', 'exec', 'time', 'timeout', 'nice', 'stdbuf', 'xargs']);
/** Interpreters whose first operand is a script of the repository worth reading. */
const SHELLS = new Set(['sh', 'bash', 'dash']);

/** Options of the wrappers that take a value (`timeout -s INT`, `sudo -u user`, `nice -n 5`). */
const WRAPPER_VALUES: Record<string, readonly string[]> = {
  timeout: ['-s', '-k'],
  sudo: ['-u', '-g', '-C', '-D'],
  env: ['-u', '-C', '-S'],
  nice: ['-n'],
  stdbuf: ['-i', '-o', '-e'],
  xargs: ['-n', '-I', '-P', '-L', '-d', '-a', '-E', '-s'],
};

/** The words of one simple command, split on blanks, quotes dropped from whole-word quoting only. */
function words(command: string): string[] {
  return command
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/^(['"])(.*)\1$/, '$2'));
}

/**
 * The program a simple command runs and the script operand it hands a shell, if any: assignments and wrappers
 * (with their options, their values and a timeout's duration) are skipped.
 */
function runs(command: string): { program?: string; script?: string } {
  const ws = words(command);
  let i = 0;
  while (i < ws.length) {
    const w = ws[i]!;
    if (ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    if (WRAPPERS.has(w)) {
      const takesValue = WRAPPER_VALUES[w] ?? [];
      i++;
      while (i < ws.length) {
        const option = ws[i]!;
        if (takesValue.includes(option)) i += 2;
        else if (option.startsWith('-') || ASSIGNMENT.test(option) || (w === 'timeout' && /^\d/.test(option)))
          i++;
        else break;
      }
      continue;
    }
    break;
  }
  const program = ws[i];
  if (program === undefined) return {};
  if (SHELLS.has(program)) {
    const operand = ws.slice(i + 1).find((w) => !w.startsWith('-'));
    return { program, ...(operand ? { script: operand } : {}) };
  }
  return program.includes('/') ? { script: program } : { program };
}

/** A function definition's head: `name() {`, `function name {`, `function name() (`. */
const FUNCTION_HEAD =
  /^(\s*)(?:function\s+([A-Za-z_][\w.:-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w.:-]*)\s*\(\s*\))\s*(?=[{(])/gm;

/**
 * The text with each function definition's head removed, so its body reads as a group the splitter enters
 * (the splitter leaves function bodies out: defining one runs nothing, but calling it does), and the names.
 */
function openFunctions(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  const opened = text.replace(FUNCTION_HEAD, (_all, indent: string, a?: string, b?: string) => {
    names.push((a ?? b)!);
    return indent;
  });
  return { text: opened, names };
}

/** The texts of the command substitutions in a command (`$(…)`, backquotes), outermost first. */
function substitutions(command: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < command.length; i++) {
    if (command[i] === '`') {
      const end = command.indexOf('`', i + 1);
      if (end < 0) break;
      out.push(command.slice(i + 1, end));
      i = end;
    } else if (command[i] === '$' && command[i + 1] === '(' && command[i + 2] !== '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < command.length; j++) {
        if (command[j] === '(') depth++;
        else if (command[j] === ')' && --depth === 0) break;
      }
      if (j >= command.length) break;
      out.push(command.slice(i + 2, j));
      i = j;
    }
  }
  return out;
}

/** The simple commands of a text, those inside its functions and command substitutions included (bounded). */
async function simpleCommands(text: string, functions: Set<string>, depth = 0): Promise<string[]> {
  const opened = openFunctions(text);
  for (const name of opened.names) functions.add(name);
  const split = await splitScript(opened.text);
  for (const name of split.functions) functions.add(name);
  const out: string[] = [];
  for (const command of split.commands) {
    out.push(command);
    if (depth < 3)
      for (const inner of substitutions(command))
        out.push(...(await simpleCommands(inner, functions, depth + 1)));
  }
  return out;
}

/** Characters that end a command word in a line of shell. */
const WORD_EDGE = new Set([' ', '\t', ';', '|', '&', '(', ')', '`', '$', '{', '}']);

/** Whether `word` stands in `line` as a word of its own (for the line a program is named on). */
function hasWord(line: string, word: string): boolean {
  for (let at = line.indexOf(word); at >= 0; at = line.indexOf(word, at + 1)) {
    const before = at === 0 || WORD_EDGE.has(line[at - 1]!);
    const end = at + word.length;
    const after = end === line.length || WORD_EDGE.has(line[end]!);
    if (before && after) return true;
  }
  return false;
}

/** A repository file's text when it is a shell script inside the tree (no link out of it), else undefined. */
async function shellScript(root: string, rel: string): Promise<string | undefined> {
  if (rel.includes('$') || path.isAbsolute(rel)) return undefined;
  let text: string;
  try {
    text = (await readFileUnder(root, rel, { follow: 'inside', maxBytes: MAX_SCRIPT_BYTES })).toString(
      'utf8',
    );
  } catch {
    return undefined; // missing, a link out of the tree, not a regular file: nothing to read
  }
  if (text.includes('\0')) return undefined;
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  const interpreter = shebang ? path.basename(shebang[1]!) : undefined;
  const viaEnv = interpreter === 'env' ? shebang?.[2] : interpreter;
  if (viaEnv !== undefined ? SHELLS.has(viaEnv) : rel.endsWith('.sh')) return text;
  return undefined;
}

/** One simple command that a command line, or a repository script it runs, runs. */
export interface CommandRun {
  command: string;
  /** Where it stands: the start's own name (`the target command`) or the script's path in the repository. */
  source: string;
  /** Whether `source` is a script read from the tree (its line numbers mean something). */
  script: boolean;
  /** The text it was split from, for the line a word stands on. */
  lines: readonly string[];
  /** The functions that text defines (a call of one runs no program). */
  functions: ReadonlySet<string>;
}

/** A command line to read, with its name and the directory (relative to the root) it runs in. */
export interface CommandStart {
  text: string;
  source: string;
  dir: string;
}

/**
 * The simple commands each start runs, and those of the repository shell scripts a start runs (one level down;
 * `MAX_SCRIPTS` scripts at most, each read inside the tree and bounded). Never throws: a script that cannot be
 * read or parsed adds nothing. `wanted`, when given, says which scripts are worth parsing (a caller looking for
 * one command passes over a script that cannot contain it: a `configure` of thousands of lines costs the shell
 * parser a second).
 */
export async function commandsRun(
  root: string,
  starts: readonly CommandStart[],
  wanted: (script: string) => boolean = () => true,
): Promise<CommandRun[]> {
  const out: CommandRun[] = [];
  const queue = starts.map((s) => ({ ...s, script: false }));
  const read = new Set<string>();
  while (queue.length > 0) {
    const { text, source, dir, script: isScript } = queue.shift()!;
    const functions = new Set<string>();
    const lines = text.split('\n');
    for (const command of await simpleCommands(text, functions)) {
      out.push({ command, source, script: isScript, lines, functions });
      const { script } = runs(command);
      if (!script || isScript || read.size >= MAX_SCRIPTS) continue;
      const rel = path.posix.normalize(path.posix.join(dir, script));
      if (rel.startsWith('..') || read.has(rel)) continue;
      read.add(rel);
      const body = await shellScript(root, rel);
      if (body !== undefined && wanted(body))
        queue.push({ text: body, source: rel, dir: path.posix.dirname(rel), script: true });
    }
  }
  return out;
}

/** The 1-based line of `text`'s lines where `word` stands as a word, or undefined. */
function lineOfWord(lines: readonly string[], word: string): number | undefined {
  const at = lines.findIndex((l) => hasWord(l, word));
  return at >= 0 ? at + 1 : undefined;
}

/**
 * The programs the target `command` runs from `cwd` (relative to the repository `root`), and those of the
 * shell scripts of the repository it runs, as declarations of kind `command` (`source`: the target, or the
 * script and line). Never throws: a script that cannot be read or parsed adds nothing.
 */
export async function targetPrograms(root: string, command: string, cwd = ''): Promise<BuildDeclaration[]> {
  const found = new Map<string, BuildDeclaration>();
  for (const run of await commandsRun(root, [{ text: command, source: 'the target command', dir: cwd }])) {
    if (found.size >= MAX_PROGRAMS) break;
    const { program } = runs(run.command);
    if (!program || !PROGRAM.test(program) || BUILTINS.has(program) || run.functions.has(program)) continue;
    if (found.has(program)) continue;
    const line = run.script ? lineOfWord(run.lines, program) : undefined;
    found.set(program, {
      kind: 'command',
      name: program,
      required: true,
      source: line !== undefined ? `${run.source}:${line}` : run.source,
      text: run.command.slice(0, 160),
    });
  }
  return [...found.values()];
}

/** For tests: the parts of a command `targetPrograms` reads. */
export const targetCommandParts = runs;

/** The words of a simple command (quotes of whole words dropped). */
export const commandWords = words;

/** Exported for the tests of the bound. */
export const TARGET_PROGRAM_LIMITS = { MAX_SCRIPT_BYTES, MAX_SCRIPTS, MAX_PROGRAMS } as const;
