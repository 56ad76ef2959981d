import type { ScriptRecipe } from '../../../src/recipe/model.js';
import type { Finding } from '../../../src/knowledge/diagnose/types.js';
import type { ReportTurn } from '../../../src/finalize/turns.js';

export function finding(id: string, message: string, hint?: string): Finding {
  return {
    id,
    category: 'missing-dependency',
    message,
    captures: {},
    line: 3,
    excerpt: message,
    ...(hint ? { hint } : {}),
  };
}

export function scriptRecipe(overrides: Partial<ScriptRecipe> = {}): ScriptRecipe {
  return {
    tools: [
      { command: 'cc', pkg: 'build-essential' },
      { command: 'make', pkg: 'make' },
    ],
    packages: [],
    prelude: [],
    edits: [],
    env: {},
    steps: [{ purpose: 'build', command: 'make -j"${BB_JOBS:-$(nproc)}"' }],
    ...overrides,
  };
}

/** A turn as finalize and reports see it. */
export function turn(n: number, overrides: Partial<ReportTurn> = {}): ReportTurn {
  return {
    turn: n,
    purpose: 'make',
    reason: 'Makefile found',
    script: '#!/bin/sh\nmake\n',
    exitCode: 0,
    timedOut: false,
    durationMs: 1000,
    passed: false,
    artifacts: 0,
    failures: [],
    notes: [],
    ...overrides,
  };
}
