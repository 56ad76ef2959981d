/** Quoting for bash: the one place strings become shell words. */

/** A bash word for `text`: left bare when it has only safe characters, single-quoted otherwise. */
export function shq(text: string): string {
  return /^[A-Za-z0-9_./:=,+-]+$/.test(text) ? text : shellQuote(text);
}

/** `command` run in `dir` (relative to the current folder; '' is the folder itself). */
export function inDir(dir: string, command: string): string {
  return dir === '' ? command : `cd ${shq(dir)} && ${command}`;
}

/** `'…'` for bash, always quoted; safe for any string without NUL bytes. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
