/**
 * The YAML data buildbench ships (verifiers/*.yaml, src/recipe/catalog.yaml) parsed fast: `npm run build`
 * writes each file's value as JSON beside the compiled code (`lib/data/<name>.json`, scripts/shipped-data.ts)
 * with the SHA-256 of the YAML text it came from; a reader whose text has that hash takes the JSON (a few
 * milliseconds) instead of parsing the YAML (140 ms for the signature catalog), and parses the YAML otherwise
 * — from the sources, in the Action's bundle, or when the YAML changed since the build. The JSON is written by
 * the build into the installed code's own folder, which no build or sandbox writes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The YAML parser, loaded on first use: with the build's JSON at hand a command never needs it, and loading the
 * package costs more than reading all the JSON (issue 32: a `diagnose` starts in under 150 ms beyond node). A
 * bundle, which has no JSON and cannot follow `createRequire`, hands the parser in once (`useYamlParser`).
 */
let yamlParse: ((text: string) => unknown) | undefined;

/** Sets the parser a bundle imported (src/action/index.ts): ncc keeps a static import, not a `createRequire`. */
export function useYamlParser(parse: (text: string) => unknown): void {
  yamlParse = parse;
}

/** YAML text parsed by the `yaml` package (a parse error is thrown as it throws it). */
export function parseYamlText(text: string): unknown {
  yamlParse ??= (createRequire(import.meta.url)('yaml') as { parse: (text: string) => unknown }).parse;
  return yamlParse(text);
}

/** Where the build writes the JSON: `lib/data/` beside `lib/base/`. */
export const SHIPPED_DATA_DIR = new URL('../data/', import.meta.url);

/** What scripts/shipped-data.ts writes for one YAML file. */
export interface ShippedDataFile {
  sha256: string;
  value: unknown;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The file name the JSON of `source` has under the data folder. */
export function shippedDataName(source: URL | string): string {
  const path = typeof source === 'string' ? source : source.pathname;
  return `${path.slice(path.lastIndexOf('/') + 1)}.json`;
}

/**
 * The value of a shipped YAML file's `text`: the build's JSON of it when its hash matches, else the YAML parsed
 * (a parse error is thrown as `parse` throws it).
 */
export function parseShippedYaml(
  text: string,
  source: URL | string,
  dataDir: URL = SHIPPED_DATA_DIR,
): unknown {
  try {
    const data = JSON.parse(
      readFileSync(new URL(shippedDataName(source), dataDir), 'utf8'),
    ) as Partial<ShippedDataFile>;
    if (data.sha256 === sha256Hex(text) && 'value' in data) return data.value;
  } catch {
    // no JSON (the sources, the bundle) or an unreadable one: the YAML decides
  }
  return parseYamlText(text);
}
