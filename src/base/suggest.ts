/**
 * The hint after an unknown name in a file the user wrote (a task's field, a spec's key): the closest allowed
 * name when it is near enough to be a typo, else the list of allowed names.
 */

/** Edit distance between two strings (insertions, deletions, substitutions). */
export function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** ` (did you mean 'x'?)` for a near miss (case ignored), else ` (expected one of a, b, c)`. */
export function unknownNameHint(key: string, allowed: readonly string[]): string {
  const best = allowed
    .map((candidate) => ({ candidate, distance: levenshtein(key.toLowerCase(), candidate.toLowerCase()) }))
    .sort((x, y) => x.distance - y.distance)[0];
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3))
    ? ` (did you mean '${best.candidate}'?)`
    : ` (expected one of ${allowed.join(', ')})`;
}
