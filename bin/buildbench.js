#!/usr/bin/env node
// Entry for `npx buildbench` from a clone: runs the compiled CLI in lib/ (built by `npm ci` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../lib/cli/index.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write(
    'buildbench: the compiled CLI is missing (lib/cli/index.js); run `npm ci` or `npm run build` first\n',
  );
  process.exit(2);
}
await import(entry);
