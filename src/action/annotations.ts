/**
 * Annotations for root-cause findings. GitHub shows at most 10 error and 10 warning annotations per step,
 * so the run's root cause is an error and the earlier turns' distinct root causes are warnings, each list
 * capped. When a finding captured a source location that exists in the checkout, the annotation points at
 * it (file and line, relative to the workspace).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import type { BuildResult } from '../report/result.js';

export const MAX_ERROR_ANNOTATIONS = 10;
export const MAX_WARNING_ANNOTATIONS = 10;

export interface Annotation {
  level: 'error' | 'warning';
  title: string;
  message: string;
  file?: string;
  startLine?: number;
  startColumn?: number;
}

/** Sandboxes mount the repository here (docker and rootfs). */
const SANDBOX_WORKDIR = '/workspace/';

/**
 * A path from a compiler message as a path in the workspace: `/workspace/src/a.c`, `../src/a.c` (from a
 * build directory) and `src/a.c` all become `<repo>/src/a.c` when that file exists in the checkout.
 */
export function locateInCheckout(
  captured: string,
  sourceDir: string,
  sourceInWorkspace: string | undefined,
): string | undefined {
  if (sourceInWorkspace === undefined) return undefined;
  let rel = captured.trim();
  if (rel.startsWith(SANDBOX_WORKDIR)) rel = rel.slice(SANDBOX_WORKDIR.length);
  else if (path.posix.isAbsolute(rel)) return undefined;
  rel = path.posix.normalize(rel);
  while (rel.startsWith('../')) rel = rel.slice(3);
  if (rel.startsWith('./')) rel = rel.slice(2);
  if (!rel || rel === '.' || rel.startsWith('..')) return undefined;
  if (!existsSync(path.join(sourceDir, rel))) return undefined;
  return sourceInWorkspace ? `${sourceInWorkspace}/${rel}` : rel;
}

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

export function annotationsFor(
  result: BuildResult,
  location: { sourceDir: string; sourceInWorkspace?: string },
): Annotation[] {
  const errors: Annotation[] = [];
  const warnings: Annotation[] = [];
  const rc = result.status === 'success' ? undefined : result.rootCause;
  if (rc) {
    const captured = rc.captures.path ?? rc.captures.file;
    const file = captured
      ? locateInCheckout(captured, location.sourceDir, location.sourceInWorkspace)
      : undefined;
    const line = file ? positiveInt(rc.captures.line) : undefined;
    const column = line ? positiveInt(rc.captures.column) : undefined;
    errors.push({
      level: 'error',
      title: `buildbench: ${rc.category} (turn ${rc.turn})`,
      message: rc.message,
      ...(file ? { file } : {}),
      ...(line ? { startLine: line } : {}),
      ...(column ? { startColumn: column } : {}),
    });
  }
  const seen = new Set(rc ? [rc.message] : []);
  for (const turn of result.turns) {
    if (!turn.rootCause || seen.has(turn.rootCause.message)) continue;
    seen.add(turn.rootCause.message);
    warnings.push({
      level: 'warning',
      title: `buildbench: turn ${turn.turn} failed (${turn.rootCause.category})`,
      message: `${turn.rootCause.message}${result.status === 'success' ? ' — repaired in a later turn' : ''}`,
    });
  }
  return [...errors.slice(0, MAX_ERROR_ANNOTATIONS), ...warnings.slice(0, MAX_WARNING_ANNOTATIONS)];
}
