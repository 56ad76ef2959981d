/**
 * if()/elseif() conditions in three-valued logic: on, off, or unknown when the answer depends on the
 * machine, the user or something inspection cannot see.
 */

import { expandCMake, type Vars } from './expand.js';
import type { CMakeArg } from './lexer.js';

export type Tri = 'on' | 'off' | 'unknown';

const FALSE_CONSTANTS = new Set(['', '0', 'OFF', 'NO', 'FALSE', 'N', 'IGNORE', 'NOTFOUND']);
const TRUE_CONSTANTS = new Set(['ON', 'YES', 'TRUE', 'Y']);

/** The truth of a CMake constant (ON, NO, 0, x-NOTFOUND, …); undefined when `value` is not one. */
export function constantTruth(value: string): Tri | undefined {
  const upper = value.toUpperCase();
  if (TRUE_CONSTANTS.has(upper)) return 'on';
  if (FALSE_CONSTANTS.has(upper) || upper.endsWith('-NOTFOUND')) return 'off';
  if (/^-?\d+(?:\.\d+)?$/.test(value)) return Number(value) !== 0 ? 'on' : 'off';
  return undefined;
}

export function and(a: Tri, b: Tri): Tri {
  if (a === 'off' || b === 'off') return 'off';
  return a === 'on' && b === 'on' ? 'on' : 'unknown';
}
export function or(a: Tri, b: Tri): Tri {
  if (a === 'on' || b === 'on') return 'on';
  return a === 'off' && b === 'off' ? 'off' : 'unknown';
}
export function not(a: Tri): Tri {
  return a === 'on' ? 'off' : a === 'off' ? 'on' : 'unknown';
}

const BINARY_OPERATORS = new Set([
  'STREQUAL',
  'STRLESS',
  'STRGREATER',
  'STRLESS_EQUAL',
  'STRGREATER_EQUAL',
  'EQUAL',
  'LESS',
  'GREATER',
  'LESS_EQUAL',
  'GREATER_EQUAL',
  'MATCHES',
  'VERSION_EQUAL',
  'VERSION_LESS',
  'VERSION_GREATER',
  'VERSION_LESS_EQUAL',
  'VERSION_GREATER_EQUAL',
  'IN_LIST',
  'IS_NEWER_THAN',
  'PATH_EQUAL',
]);
const UNARY_OPERATORS = new Set([
  'EXISTS',
  'COMMAND',
  'POLICY',
  'TARGET',
  'TEST',
  'IS_DIRECTORY',
  'IS_SYMLINK',
  'IS_ABSOLUTE',
]);

export interface ConditionContext {
  /** Targets defined so far, for `if(TARGET name)`. */
  targets?: ReadonlySet<string>;
}

/**
 * Evaluates an if()/elseif() condition: on, off, or unknown when it depends on the machine, the user or
 * something inspection cannot see. Supports parentheses, NOT/AND/OR, DEFINED, TARGET, STREQUAL and EQUAL.
 */
export function evalCondition(args: readonly CMakeArg[], vars: Vars, context: ConditionContext = {}): Tri {
  if (args.length === 0) return 'off';
  const reader = new ConditionReader(args, vars, context);
  const value = reader.orExpr();
  // Anything left over means the condition was not understood.
  return reader.done() ? value : 'unknown';
}

const isWord = (a: CMakeArg | undefined, word: string): boolean =>
  a !== undefined && !a.quoted && a.value === word;

/** A recursive-descent reader over the arguments: OR binds loosest, then AND, then NOT, then a primary. */
class ConditionReader {
  private i = 0;

  constructor(
    private readonly args: readonly CMakeArg[],
    private readonly vars: Vars,
    private readonly context: ConditionContext,
  ) {}

  done(): boolean {
    return this.i >= this.args.length;
  }

  orExpr(): Tri {
    let value = this.andExpr();
    while (isWord(this.args[this.i], 'OR')) {
      this.i++;
      value = or(value, this.andExpr());
    }
    return value;
  }

  private andExpr(): Tri {
    let value = this.notExpr();
    while (isWord(this.args[this.i], 'AND')) {
      this.i++;
      value = and(value, this.notExpr());
    }
    return value;
  }

  private notExpr(): Tri {
    if (isWord(this.args[this.i], 'NOT')) {
      this.i++;
      return not(this.notExpr());
    }
    return this.primary();
  }

  private primary(): Tri {
    const a = this.args[this.i];
    if (a === undefined) return 'unknown';
    if (isWord(a, '(')) {
      this.i++;
      const value = this.orExpr();
      if (isWord(this.args[this.i], ')')) this.i++;
      return value;
    }
    if (isWord(a, 'DEFINED')) return this.defined(this.takeOperand());
    if (isWord(a, 'TARGET')) return this.target(this.takeOperand());
    if (!a.quoted && UNARY_OPERATORS.has(a.value)) {
      this.i += 2;
      return 'unknown';
    }
    const op = this.args[this.i + 1];
    if (op !== undefined && !op.quoted && BINARY_OPERATORS.has(op.value)) {
      const b = this.args[this.i + 2];
      this.i += 3;
      return b === undefined ? 'unknown' : this.binary(a, op.value, b);
    }
    this.i++;
    return this.truth(a);
  }

  /** The argument after a unary keyword, consuming both. */
  private takeOperand(): CMakeArg | undefined {
    const name = this.args[this.i + 1];
    this.i += 2;
    return name;
  }

  private defined(name: CMakeArg | undefined): Tri {
    if (name === undefined) return 'unknown';
    const { text, unresolved } = expandCMake(name.value, this.vars);
    if (unresolved || /^(?:ENV|CACHE)\{/.test(text)) return 'unknown';
    return this.vars.has(text) ? 'on' : 'off';
  }

  private target(name: CMakeArg | undefined): Tri {
    if (name === undefined) return 'unknown';
    const { text, unresolved } = expandCMake(name.value, this.vars);
    return !unresolved && this.context.targets?.has(text) ? 'on' : 'unknown';
  }

  /** STREQUAL and EQUAL are evaluated; every other comparison is unknown. */
  private binary(a: CMakeArg, op: string, b: CMakeArg): Tri {
    if (op !== 'STREQUAL' && op !== 'EQUAL') return 'unknown';
    const left = this.valueOf(a, true);
    const right = this.valueOf(b, false);
    if (left === undefined || right === undefined) return 'unknown';
    if (op === 'EQUAL') {
      const l = Number(left);
      const r = Number(right);
      return Number.isFinite(l) && Number.isFinite(r) ? (l === r ? 'on' : 'off') : 'unknown';
    }
    return left === right ? 'on' : 'off';
  }

  /** A bare argument: a constant, or a variable whose value is not false. */
  private truth(a: CMakeArg): Tri {
    const { text, unresolved } = expandCMake(a.value, this.vars);
    if (unresolved) return 'unknown';
    const constant = constantTruth(text);
    if (constant !== undefined) return constant;
    if (a.quoted) return 'unknown';
    const v = this.vars.get(text);
    if (v === undefined) return 'unknown';
    if (expandCMake(v, this.vars).unresolved) return 'unknown';
    return constantTruth(v) === 'off' ? 'off' : 'on';
  }

  /** The string an operand of STREQUAL/EQUAL stands for; undefined when it cannot be known. */
  private valueOf(a: CMakeArg, left: boolean): string | undefined {
    const { text, unresolved } = expandCMake(a.value, this.vars);
    if (unresolved) return undefined;
    if (a.quoted) return text;
    const v = this.vars.get(text);
    if (v !== undefined) {
      const e = expandCMake(v, this.vars);
      return e.unresolved ? undefined : e.text;
    }
    // An undefined name on the left is usually a variable set by a module or the toolchain.
    if (left && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) && !/^\d/.test(text)) return undefined;
    return text;
  }
}
