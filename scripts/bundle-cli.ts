// After `tsc`: joins the compiled command-line front door (lib/cli/index.js and what it imports, command by command)
// into a few files, because Node loads 70 small ES modules one by one and that costs a `diagnose` ~1 ms each (issue
// 32: under 150 ms beyond node). The bundle's entry replaces lib/cli/index.js; its chunks go to lib/cli/bundle/
// (emptied first). Each module keeps its own `import.meta.url` — rewritten to the URL its file has in lib/, which
// stays whole — so a data file found relative to a module, a `createRequire` and a worker's script resolve exactly
// as unbundled. Packages stay imports (node_modules is not bundled). A later `tsc` writes the plain entry back: the
// bundle only ever makes the same modules load faster. Usage: tsx scripts/bundle-cli.ts [libDir]
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = path.resolve(process.argv[2] ?? path.join(root, 'lib'));
const entry = path.join(lib, 'cli', 'index.js');
const chunks = path.join(lib, 'cli', 'bundle');
/** The entry's first line: marks lib/cli/index.js as the bundle (a second run needs tsc's entry back first). */
const BANNER =
  '// Bundled by scripts/bundle-cli.ts from the modules tsc wrote to lib/ (issue 32); tsc writes it back.';
/** Stands for the way from an output file's folder to lib/ until the output's place is known. */
const LIB = '__BUILDBENCH_LIB__/';

if (readFileSync(entry, 'utf8').startsWith(BANNER)) {
  console.error(
    `${path.relative(root, entry)} is already the bundle: run tsc first (npm run build does both)`,
  );
  process.exit(1);
}

/** Every module under lib/ says its own URL: where tsc put it, however the bundle joins it. */
const ownUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const relative = path.relative(lib, args.path).split(path.sep).join('/');
      if (relative.startsWith('..')) return undefined;
      const own = `new URL(${JSON.stringify(LIB + relative)}, import.meta.url).href`;
      return { contents: text.replace(/\bimport\.meta\.url\b/g, own), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: [entry],
  absWorkingDir: lib,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: path.join(lib, 'cli'),
  entryNames: '[name]',
  chunkNames: 'bundle/[name]-[hash]',
  keepNames: true,
  charset: 'utf8',
  legalComments: 'none',
  banner: { js: BANNER },
  write: false,
  logLevel: 'warning',
  plugins: [ownUrl],
});

rmSync(chunks, { recursive: true, force: true });
mkdirSync(chunks, { recursive: true });
const OWN = /new URL\("__BUILDBENCH_LIB__\/[^"]*", import\.meta\.url\)/g;
for (const file of result.outputFiles) {
  const toLib = path.relative(path.dirname(file.path), lib).split(path.sep).join('/');
  const text = file.text;
  // every import.meta.url left is one of the rewrites: no module reads the chunk's own URL
  const all = text.match(/\bimport\.meta\.url\b/g)?.length ?? 0;
  if ((text.match(OWN)?.length ?? 0) !== all) {
    console.error(`${path.relative(root, file.path)}: an import.meta.url was not rewritten`);
    process.exit(1);
  }
  writeFileSync(file.path, text.replaceAll(LIB, `${toLib}/`));
}
console.log(
  `cli bundle: ${result.outputFiles.length} files (lib/cli/index.js and lib/cli/bundle/) from ${path.relative(root, lib) || '.'}`,
);
