import { describe, expect, it } from '@jest/globals';

import { COMMANDS, RUNS_WHEN_OFF } from '../../../src/repo/parsers/cmake/commands.js';
import { evalCondition } from '../../../src/repo/parsers/cmake/condition.js';
import { expandCMake } from '../../../src/repo/parsers/cmake/expand.js';
import { runCommands } from '../../../src/repo/parsers/cmake/interpreter.js';
import { parseCMake } from '../../../src/repo/parsers/cmake/lexer.js';
import { branchState, newBuild, openScope } from '../../../src/repo/parsers/cmake/scope.js';
import { cmakeTargets } from '../../../src/repo/parsers/cmake/targets.js';

function run(text: string, modules: ReadonlyMap<string, string> = new Map()) {
  const build = newBuild(modules);
  const scope = openScope(build, 'CMakeLists.txt', '');
  runCommands(scope, parseCMake(text));
  return { build, scope };
}

describe('cmake lexer', () => {
  it('reads quoted, bracket and unquoted arguments with their lines', () => {
    const commands = parseCMake('# c\nset(A "x;y" [==[b]]]==] -DX="a b" ${V}) #[[\n]] \nFoo ( )\nword\n');
    expect(commands).toEqual([
      {
        name: 'set',
        line: 2,
        args: [
          { value: 'A', quoted: false },
          { value: 'x;y', quoted: true },
          { value: 'b]]', quoted: true },
          { value: '-DX="a b"', quoted: false },
          { value: '${V}', quoted: false },
        ],
      },
      { name: 'foo', line: 4, args: [] },
    ]);
  });
});

describe('cmake conditions', () => {
  const vars = new Map([
    ['ON_VAR', 'ON'],
    ['OFF_VAR', 'OFF'],
  ]);
  const cond = (text: string): string => evalCondition(parseCMake(`if(${text})`)[0]!.args, vars);
  it('uses three-valued logic', () => {
    expect(cond('ON_VAR AND NOT OFF_VAR')).toBe('on');
    expect(cond('ON_VAR AND MISSING')).toBe('unknown');
    expect(cond('OFF_VAR AND MISSING')).toBe('off');
    expect(cond('(OFF_VAR OR ON_VAR) AND "a" STREQUAL "a"')).toBe('on');
    expect(cond('DEFINED ON_VAR')).toBe('on');
    expect(cond('EXISTS /x')).toBe('unknown');
    expect(cond('ON_VAR ON_VAR')).toBe('unknown');
  });
  it('expands variables and marks unknown ones', () => {
    expect(expandCMake('${A}-${B}', new Map([['A', '1']]))).toEqual({ text: '1-${B}', unresolved: true });
  });
});

describe('cmake interpreter', () => {
  it('keeps variables, the branch stack and the budget in the explicit scope', () => {
    const { build, scope } = run('set(X 1)\nif(WIN32)\nset(Y 2)\nendif()\nif(UNIX)\n');
    expect(scope.vars.get('X')).toBe('1');
    expect(scope.vars.has('Y')).toBe(false);
    expect(scope.stack).toHaveLength(1);
    expect(branchState(scope)).toBe('on');
    expect(build.budget).toBeLessThan(200_000);
  });

  it('runs functions in their own variables and macros in the caller’s', () => {
    const { scope } = run(
      'function(f a)\nset(IN_F ${a})\nset(OUT ${a} PARENT_SCOPE)\nendfunction()\n' +
        'macro(m a)\nset(IN_M ${a})\nendmacro()\nf(1)\nm(2)\n',
    );
    expect(scope.vars.has('IN_F')).toBe(false);
    expect(scope.vars.get('OUT')).toBe('1');
    expect(scope.vars.get('IN_M')).toBe('2');
  });

  it('ignores commands named like Object.prototype members', () => {
    expect(Object.hasOwn(COMMANDS, 'constructor')).toBe(false);
    const { scope } = run('constructor(x)\n__proto__(y)\ntoString()\nset(A 1)\n');
    expect(scope.vars.get('A')).toBe('1');
  });

  it('still records targets in branches that are off, as excluded', () => {
    expect(RUNS_WHEN_OFF.has('add_library')).toBe(true);
    const targets = cmakeTargets(
      new Map([['CMakeLists.txt', 'if(WIN32)\nadd_executable(win w.c)\nendif()\n']]),
    );
    expect(targets.map((t) => [t.name, t.role])).toEqual([['win', 'excluded']]);
  });

  it('runs include() of a repository module once per chain', () => {
    const modules = new Map([['cmake/Loop.cmake', 'list(APPEND SEEN x)\ninclude(Loop)\n']]);
    const { scope } = run('set(CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)\ninclude(Loop)\n', modules);
    expect(scope.vars.get('SEEN')).toBe('x');
  });
});
