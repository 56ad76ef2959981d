/** Shared by the build-file parsers: turning a produced name into an ExpectedTarget. */

import { baseOf, roleOfDir, roleOfName } from '../paths.js';
import type { ExpectedTarget, TargetKind } from '../types.js';

/** Which build files a target came from; used to prefer the build system that will be run. */
export type TargetFamily = 'cmake' | 'automake' | 'meson' | 'qmake' | 'make' | 'cargo';

export interface InferredTarget extends ExpectedTarget {
  family: TargetFamily;
}

export interface TargetInput {
  /** The produced file name. */
  name: string;
  kind: TargetKind;
  /** The build file, relative to the repository root. */
  file: string;
  line: number;
  confidence: number;
  /** Forces a role; otherwise it comes from the logical name, the file name and the directory. */
  role?: ExpectedTarget['role'];
  /** The target's name in the build file when it differs from the produced file name. */
  logicalName?: string;
  note?: string;
  /** Why the produced name cannot be known before the build runs (ExpectedTarget.uncertain). */
  uncertain?: string;
}

export function makeTarget(family: TargetFamily, input: TargetInput): InferredTarget {
  const dir = input.file.includes('/') ? input.file.slice(0, input.file.lastIndexOf('/')) : '';
  const role =
    input.role ??
    (input.logicalName !== undefined ? roleOfName(input.logicalName) : undefined) ??
    roleOfName(input.name) ??
    roleOfDir(dir) ??
    'main';
  const target: InferredTarget = {
    name: input.name,
    kind: input.kind,
    source: `${input.file}:${input.line}`,
    confidence: round2(Math.min(1, Math.max(0, input.confidence))),
    role,
    family,
  };
  if (input.note !== undefined) target.note = input.note;
  if (input.uncertain !== undefined) target.uncertain = input.uncertain;
  return target;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A plausible produced file name: no variables, spaces, wildcards or path separators left. */
export function isPlainName(name: string): boolean {
  return /^[A-Za-z0-9_+][A-Za-z0-9_.+-]*$/.test(name);
}

/** The last path component of a name (`bin/foo` → `foo`). */
export function plainBase(name: string): string {
  return baseOf(name.replace(/\/+$/, ''));
}

/** Line starts, for many offset → line lookups on one text. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const ROLE_ORDER: Record<ExpectedTarget['role'], number> = { main: 0, test: 1, example: 2, excluded: 3 };

/** One target per produced name (the most confident reading wins), main products first. */
export function dedupeTargets<T extends ExpectedTarget>(targets: readonly T[]): T[] {
  const best = new Map<string, { target: T; order: number }>();
  for (const [order, t] of targets.entries()) {
    const seen = best.get(t.name);
    if (!seen || t.confidence > seen.target.confidence)
      best.set(t.name, { target: t, order: seen?.order ?? order });
  }
  return [...best.values()]
    .sort(
      (a, b) =>
        ROLE_ORDER[a.target.role] - ROLE_ORDER[b.target.role] ||
        b.target.confidence - a.target.confidence ||
        a.order - b.order,
    )
    .map((e) => e.target);
}
