/**
 * Runs parsed commands over a `Scope`: if()/elseif()/else() on a branch stack, foreach() unrolled over
 * literal lists, function()/macro() recorded and run when called, include() of repository modules, and
 * everything else dispatched through the `COMMANDS` table. Every command counts against the build's budget.
 */

import { dirOf } from '../../paths.js';
import { and, evalCondition, or } from './condition.js';
import { type Command, COMMANDS, RUNS_WHEN_OFF } from './commands.js';
import { parseCMake, type CMakeArg, type CMakeCommand } from './lexer.js';
import {
  branchState,
  expand,
  expandAll,
  isWord,
  MAX_CALL_DEPTH,
  resolveModule,
  type Scope,
  sourcePath,
  type UserCommand,
} from './scope.js';

const BLOCKS = new Set(['function', 'macro', 'while', 'foreach']);

/** Runs `commands` in order until they end or the build's command budget runs out. */
export function runCommands(scope: Scope, commands: readonly CMakeCommand[]): void {
  for (let k = 0; k < commands.length; k++) {
    if (--scope.build.budget < 0) return;
    const cmd = commands[k] as CMakeCommand;
    const { name, args } = cmd;
    if (BLOCKS.has(name)) {
      const end = blockEnd(commands, k);
      runBlock(scope, cmd, commands.slice(k + 1, end));
      k = end;
    } else if (name === 'if' || name === 'elseif' || name === 'else' || name === 'endif') {
      branch(scope, name, args);
    } else {
      const user = scope.build.userCommands.get(name);
      if (user) callUser(scope, user, args);
      else if (branchState(scope) !== 'off' || RUNS_WHEN_OFF.has(name)) commandNamed(name)?.(cmd, scope);
    }
  }
}

/** The index of the `end<name>` closing the block that opens at `start` (or the end of the list). */
function blockEnd(commands: readonly CMakeCommand[], start: number): number {
  const name = commands[start]?.name;
  const end = `end${name}`;
  let depth = 1;
  let j = start + 1;
  for (; j < commands.length; j++) {
    const c = commands[j]?.name;
    if (c === name) depth++;
    else if (c === end && --depth === 0) break;
  }
  return j;
}

/** foreach() runs its body now; function() and macro() are recorded; while() bodies are skipped. */
function runBlock(scope: Scope, { name, args }: CMakeCommand, body: CMakeCommand[]): void {
  if (branchState(scope) === 'off') return;
  if (name === 'foreach') runForeach(scope, args, body);
  else if (name === 'function' || name === 'macro') {
    const [fnName, ...params] = expandAll(scope, args);
    if (fnName !== undefined)
      scope.build.userCommands.set(fnName.toLowerCase(), { params, body, macro: name === 'macro' });
  }
}

/** if() pushes a frame, elseif()/else() switch its branch, endif() pops it. */
function branch(scope: Scope, name: string, args: readonly CMakeArg[]): void {
  const { stack } = scope;
  const condition = (): ReturnType<typeof evalCondition> =>
    evalCondition(args, scope.vars, { targets: scope.build.targetNames });
  if (name === 'if') {
    const c = branchState(scope) === 'off' ? 'off' : condition();
    stack.push({ branch: c, taken: c });
  } else if (name === 'endif') {
    stack.pop();
  } else {
    const top = stack[stack.length - 1];
    if (!top) return;
    if (top.taken === 'on') {
      top.branch = 'off';
    } else {
      const c = name === 'else' ? 'on' : condition();
      top.branch = top.taken === 'off' ? c : and(c, 'unknown');
      top.taken = or(top.taken, c);
    }
  }
}

/** A function() runs in a copy of the caller's variables; a macro() in the caller's own. */
function callUser(scope: Scope, user: UserCommand, args: readonly CMakeArg[]): void {
  if (scope.callDepth >= MAX_CALL_DEPTH) return;
  const values = expandAll(scope, args);
  const bindings = new Map<string, string>();
  user.params.forEach((p, n) => bindings.set(p, values[n] ?? ''));
  bindings.set('ARGN', values.slice(user.params.length).join(';'));
  bindings.set('ARGV', values.join(';'));
  bindings.set('ARGC', String(values.length));
  values.forEach((v, n) => bindings.set(`ARGV${n}`, v));
  const depthBefore = scope.stack.length;
  scope.callDepth++;
  if (user.macro) {
    // A macro runs in the caller's scope; its parameters are replaced text, not variables.
    const saved = new Map([...bindings.keys()].map((key) => [key, scope.vars.get(key)]));
    for (const [key, value] of bindings) scope.vars.set(key, value);
    runCommands(scope, user.body);
    for (const [key, value] of saved) {
      if (value === undefined) scope.vars.delete(key);
      else scope.vars.set(key, value);
    }
  } else {
    const caller = scope.vars;
    scope.vars = new Map(caller);
    for (const [key, value] of bindings) scope.vars.set(key, value);
    scope.parents.push(caller);
    runCommands(scope, user.body);
    scope.parents.pop();
    scope.vars = caller;
  }
  scope.callDepth--;
  scope.stack.length = Math.min(scope.stack.length, depthBefore);
}

/** foreach(var a b c) and foreach(var IN LISTS … ITEMS …), at most 200 rounds; RANGE and ZIP_LISTS are not run. */
function runForeach(scope: Scope, args: readonly CMakeArg[], body: readonly CMakeCommand[]): void {
  const { vars } = scope;
  const loopVar = expand(scope, args[0]).text;
  let items: string[];
  const rest = args.slice(1);
  if (isWord(rest[0], 'RANGE') || (isWord(rest[0], 'IN') && isWord(rest[1], 'ZIP_LISTS'))) return;
  if (isWord(rest[0], 'IN')) {
    items = [];
    let mode = '';
    for (const a of rest.slice(1)) {
      if (isWord(a, 'LISTS', 'ITEMS')) {
        mode = a.value;
        continue;
      }
      if (mode === 'LISTS')
        items.push(...(vars.get(expand(scope, a).text) ?? '').split(';').filter((x) => x !== ''));
      else items.push(...expandAll(scope, [a]));
    }
  } else {
    items = expandAll(scope, rest);
  }
  const saved = vars.get(loopVar);
  for (const item of items.slice(0, 200)) {
    vars.set(loopVar, item);
    runCommands(scope, body);
  }
  if (saved === undefined) vars.delete(loopVar);
  else vars.set(loopVar, saved);
}

/** include(): CTest turns BUILD_TESTING on; a repository module is run here, once per include chain. */
const include: Command = ({ args }, scope) => {
  const { build, vars } = scope;
  const what = expand(scope, args[0]);
  if (/^CTest$/i.test(what.text) && !vars.has('BUILD_TESTING')) vars.set('BUILD_TESTING', 'ON');
  if (what.unresolved || branchState(scope) === 'off') return;
  const found = resolveModule(scope, what.text);
  if (found === undefined || build.including.has(found) || build.including.size >= MAX_CALL_DEPTH) return;
  let commands = build.parsedModules.get(found);
  if (!commands) build.parsedModules.set(found, (commands = parseCMake(build.modules.get(found) ?? '')));
  build.including.add(found);
  const savedListDir = vars.get('CMAKE_CURRENT_LIST_DIR');
  vars.set('CMAKE_CURRENT_LIST_DIR', sourcePath(dirOf(found)));
  const depthBefore = scope.stack.length;
  runCommands(scope, commands);
  scope.stack.length = Math.min(scope.stack.length, depthBefore);
  if (savedListDir !== undefined) vars.set('CMAKE_CURRENT_LIST_DIR', savedListDir);
  build.including.delete(found);
};

const TABLE: Readonly<Record<string, Command>> = { ...COMMANDS, include };

/** The handler for a command name; unknown names (and `constructor`, `__proto__`, …) have none. */
function commandNamed(name: string): Command | undefined {
  return Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
}
