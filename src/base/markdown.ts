/**
 * A Markdown ATX heading (`## Build ##`): its level and title, read in time linear in the line. The pattern it
 * replaces, /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/, backtracks cubically on a line a stranger can write (`# a`, then
 * thousands of spaces, then thousands of `#`, then a letter: 30 s for 10,000 characters). Same reading: up to
 * three spaces, one to six `#`, at least one space, the title with its trailing spaces and closing `#`s (and
 * the spaces before them) dropped.
 */
export function markdownHeading(line: string): { level: number; title: string } | undefined {
  // Bounded repeats and one greedy run that nothing follows: no backtracking beyond a few characters.
  const open = /^\s{0,3}(#{1,6})\s+/.exec(line);
  if (!open) return undefined;
  let end = line.trimEnd().length;
  while (end > open[0].length && line[end - 1] === '#') end--;
  const title = line.slice(open[0].length, end).trimEnd();
  return { level: open[1]!.length, title };
}
