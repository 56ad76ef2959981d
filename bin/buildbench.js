#!/usr/bin/env node
// The `buildbench` command: runs the compiled CLI in lib/, found relative to this file (Node resolves the link
// a global install puts on PATH), so it works from any folder. The npm package ships lib/ (built by `prepack`);
// a clone builds it on `npm ci` (`prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../lib/cli/index.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write(
    'buildbench: the compiled CLI is missing (lib/cli/index.js): in a clone run `npm ci` or `npm run build`; an installed package is incomplete, reinstall it\n',
  );
  process.exit(2);
}
await import(entry);
