/**
 * TOML manifests (Cargo.toml, pyproject.toml, Pipfile, Project.toml, fpm.toml, …) read by smol-toml, a
 * TOML 1.0 parser. A manifest comes from a repository nobody vetted, so `readToml` never throws: what it
 * cannot read is a note naming the file, the line and column, and what is wrong. Values come back as plain
 * data: dates as their text, an integer past 2^53 as the nearest number, tables as ordinary objects.
 */
import { parse, TomlError, type TomlTable as ParsedTable } from 'smol-toml';
import { MANIFEST_MAX_BYTES, readManifest } from './manifest-files.js';

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/** Arrays and tables nested deeper than this are refused (a manifest nests a few levels). */
export const TOML_MAX_DEPTH = 64;

/** The manifest's table, or a note saying why it could not be read. */
export type TomlRead = { table: TomlTable; note?: undefined } | { table?: undefined; note: string };

/** Reads `text`, the content of the manifest `rel`; never throws. */
export function readToml(rel: string, text: string): TomlRead {
  try {
    return { table: plain(parse(text, { maxDepth: TOML_MAX_DEPTH, integersAsBigInt: 'asNeeded' })) };
  } catch (error) {
    return { note: `${rel} could not be read as TOML (${problem(error)})` };
  }
}

/**
 * The manifest `rel` under `root` as TOML (read through the walk's rules, at most `maxBytes`); undefined when
 * it cannot be read or is not TOML, with the note saying why pushed to `notes` for the latter.
 */
export async function readTomlManifest(
  root: string,
  rel: string,
  notes: string[],
  maxBytes = MANIFEST_MAX_BYTES,
): Promise<TomlTable | undefined> {
  const text = await readManifest(root, rel, maxBytes);
  if (text === undefined) return undefined;
  const { table, note } = readToml(rel, text);
  if (note !== undefined) notes.push(note);
  return table;
}

/** What is wrong, in one short line (smol-toml's message also quotes the lines around, which can be long). */
function problem(error: unknown): string {
  if (error instanceof TomlError) {
    const what = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    return `line ${error.line}, column ${error.column}: ${what}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 200);
}

/**
 * The parsed document as plain data, in place and without recursion: dates become their text, big integers
 * numbers, and smol-toml's prototype-less tables ordinary objects (a key such as `__proto__` stays an own
 * property, as smol-toml defined it). smol-toml bounds inline nesting only; dotted keys and table headers
 * (`a.b.c…`) can nest without end, so the depth is bounded here too.
 */
function plain(root: ParsedTable): TomlTable {
  const pending: [object, number][] = [[root, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > TOML_MAX_DEPTH) throw new Error(`tables and arrays nested more than ${TOML_MAX_DEPTH} deep`);
    if (!Array.isArray(node)) Object.setPrototypeOf(node, Object.prototype);
    const values = node as Record<string, unknown>;
    for (const key of Object.keys(values)) {
      const value = values[key];
      if (typeof value === 'bigint') values[key] = Number(value);
      else if (value instanceof Date) values[key] = value.toISOString();
      else if (typeof value === 'object' && value !== null) pending.push([value, depth + 1]);
    }
  }
  return root as TomlTable;
}

/** The value at a path of keys under `value`, or undefined. */
export function tomlGet(value: TomlValue | undefined, ...path: string[]): TomlValue | undefined {
  let v = value;
  for (const part of path) {
    if (!isTable(v)) return undefined;
    v = Object.hasOwn(v, part) ? v[part] : undefined;
  }
  return v;
}

/** The table at a path under `value` (`value` itself without a path), or undefined when it is not a table. */
export function tomlTable(value: TomlValue | undefined, ...path: string[]): TomlTable | undefined {
  const v = tomlGet(value, ...path);
  return isTable(v) ? v : undefined;
}

/** A string value, or a number as text (`edition = 2021`); undefined otherwise. */
export function tomlString(value: TomlValue | undefined): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value);
}
