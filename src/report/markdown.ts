/** Markdown and number helpers the RUNBOOK's sections share (runbook.ts, deploy-runbook.ts). */

/** Inline code that survives backticks in the text. */
export function code(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A table cell: one line, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** A fenced block that survives fences in the text. */
export function block(text: string, lang = ''): string[] {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${lang}`, text.replace(/\n+$/, ''), fence];
}

export const yes = (b: boolean): string => (b ? 'yes' : 'no');

export function seconds(ms: number | undefined): string {
  if (ms === undefined) return '—';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export function bytes(n: number): string {
  return `${n.toLocaleString('en-US')} bytes`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
