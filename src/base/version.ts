/**
 * The product's version, from package.json (ncc relocates the file into dist/ for the action's bundle).
 * Floor 0, so that every floor can name the product: the GitHub client's User-Agent, the CLI's --version.
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = readVersion();

/** What buildbench calls itself in HTTP requests: `buildbench/<version>`. */
export const PRODUCT_USER_AGENT = `buildbench/${VERSION}`;
