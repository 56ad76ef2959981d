import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { RESULT_SCHEMA, type BuildResult } from '../../src/report/result.js';
import type { BuildSettings } from '../../src/core/settings.js';

/** A BuildResult as the engine returns it; `overrides` replace top-level fields. */
export function fakeResult(overrides: Partial<BuildResult> = {}): BuildResult {
  return {
    schema: RESULT_SCHEMA,
    tool: { name: 'buildbench', version: '0.1.0' },
    repo: { name: 'hello', source: '/work/hello', commit: 'abc123' },
    status: 'success',
    reason: 'the verifiers passed after turn 1 (cmake)',
    metrics: { completion: true, strict: true, flexible: true },
    expected: { names: ['hello'], source: 'inferred', matched: ['hello'], missing: [], ignored: [] },
    artifacts: [{ path: 'build/hello', kind: 'executable', size: 16000 }],
    strategy: 'rules',
    sandbox: { kind: 'rootfs', image: 'debian:bookworm' },
    buildSystems: [{ kind: 'cmake', dir: '', file: 'CMakeLists.txt' }],
    turns: [
      {
        turn: 0,
        purpose: 'cmake',
        reason: 'CMakeLists.txt found',
        exitCode: 1,
        timedOut: false,
        durationMs: 2000,
        rootCause: {
          id: 'missing-header',
          category: 'missing-dependency',
          message: 'missing header zlib.h',
          line: 12,
        },
        newArtifacts: 0,
        log: 'logs/turn-00.log',
      },
      {
        turn: 1,
        purpose: 'cmake',
        reason: 'installed zlib1g-dev',
        exitCode: 0,
        timedOut: false,
        durationMs: 3000,
        newArtifacts: 1,
      },
    ],
    timings: {
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:05.000Z',
      totalMs: 5000,
      prepareMs: 100,
    },
    files: { trajectory: 'trajectory.jsonl', logs: 'logs/', artifacts: 'artifacts/' },
    recipe: {
      verified: true,
      mode: 'minimal',
      fallback: false,
      turn: 1,
      replay: {
        status: 'passed',
        reason: 'build.sh built 1 binary in a fresh sandbox',
        metrics: { completion: true, strict: true, flexible: true },
        durationMs: 3000,
      },
      baseImage: 'debian:bookworm',
      files: { buildSh: 'build.sh', dockerfile: 'Dockerfile', patches: ['patches/0001-fix-include.patch'] },
    },
    patches: [
      {
        file: 'patches/0001-fix-include.patch',
        paths: ['src/main.c'],
        subject: 'Include <stdint.h>',
        reason: 'fixed: unknown type name uint8_t (GCC 13)',
        turn: 1,
      },
    ],
    ...overrides,
  };
}

/** A failed result whose root cause points at `src/main.c:7`. */
export function failedResult(overrides: Partial<BuildResult> = {}): BuildResult {
  const base = fakeResult();
  return {
    ...base,
    status: 'failed',
    reason: 'missing header foo.h (no package provides it)',
    metrics: { completion: false, strict: false, flexible: false },
    expected: { ...base.expected, matched: [], missing: ['hello'] },
    artifacts: [],
    recipe: undefined,
    patches: undefined,
    rootCause: {
      id: 'missing-header',
      category: 'missing-dependency',
      message: 'missing header foo.h',
      line: 42,
      excerpt: '/workspace/src/main.c:7:10: fatal error: foo.h: No such file or directory',
      captures: { path: '/workspace/src/main.c', line: '7', column: '10', header: 'foo.h' },
      turn: 1,
    },
    ...overrides,
  };
}

/** Writes what the engine leaves in the output directory for `result` (RUNBOOK, recipe, patches). */
export async function writeOutDir(outDir: string, result: BuildResult, variant = ''): Promise<void> {
  await mkdir(path.join(outDir, 'patches'), { recursive: true });
  await mkdir(path.join(outDir, 'artifacts', 'build'), { recursive: true });
  await writeFile(path.join(outDir, 'result.json'), JSON.stringify(result, null, 2));
  await writeFile(path.join(outDir, 'RUNBOOK.md'), `# Runbook for ${result.repo.name}${variant}\n`);
  await writeFile(
    path.join(outDir, 'build.sh'),
    `#!/bin/bash\nset -e\ncmake -B build && cmake --build build${variant}\n`,
  );
  await writeFile(path.join(outDir, 'Dockerfile'), 'FROM debian:bookworm\nCOPY build.sh /\n');
  await writeFile(
    path.join(outDir, 'patches', '0001-fix-include.patch'),
    '--- a/src/main.c\n+++ b/src/main.c\n@@ -1 +1,2 @@\n+#include <stdint.h>\n',
  );
  await writeFile(path.join(outDir, 'artifacts', 'build', 'hello'), 'ELF');
}

/** An engine that writes the output directory and returns `result`, recording the settings it got. */
export function fakeEngine(result: BuildResult): {
  calls: BuildSettings[];
  engine: (settings: BuildSettings) => Promise<BuildResult>;
} {
  const calls: BuildSettings[] = [];
  return {
    calls,
    engine: async (settings) => {
      calls.push(settings);
      await writeOutDir(settings.outDir, result);
      return result;
    },
  };
}
