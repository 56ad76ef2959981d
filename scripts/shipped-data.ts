// After `tsc`: writes each YAML data file buildbench reads at run time as JSON under lib/data/ with the SHA-256
// of its text (src/base/shipped-yaml.ts reads it when the hash matches). Usage: tsx scripts/shipped-data.ts [outDir]
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'lib', 'data'));
const sources = [
  ...readdirSync(path.join(root, 'verifiers'))
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => path.join(root, 'verifiers', name)),
  path.join(root, 'src', 'recipe', 'catalog.yaml'),
];
mkdirSync(outDir, { recursive: true });
for (const file of sources) {
  const text = readFileSync(file, 'utf8');
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  const target = path.join(outDir, `${path.basename(file)}.json`);
  writeFileSync(`${target}.tmp`, JSON.stringify({ sha256, value: parse(text) as unknown }));
  renameSync(`${target}.tmp`, target);
}
console.log(`shipped data: ${sources.length} YAML files as JSON in ${path.relative(root, outDir) || '.'}`);
