// Duplicate records in a seeded corpus (a linear congruential generator, so every run sees the same records),
// found by their MD4 fingerprints: MD4 because the published fingerprints of the corpus are MD4 (fast, and
// what webpack 4 hashed with when this was written, for Node 10 to 16). Writes the number of distinct records
// and the corpus digest (the MD4 of the sorted distinct fingerprints) to results.json.
// Usage: node fingerprint.js [records]
'use strict';
const crypto = require('crypto');
const fs = require('fs');

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
const n = Number(process.argv[2] || 20000);
let state = 2024;
const next = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return Math.floor((state / 2147483648) * WORDS.length);
};
const fingerprint = (text) => crypto.createHash('md4').update(text).digest('hex');

const seen = new Map();
for (let i = 0; i < n; i++) {
  const record = [next(), next(), next(), next()].map((w) => WORDS[w]).join(' ');
  const f = fingerprint(record);
  seen.set(f, (seen.get(f) || 0) + 1);
}
const distinct = [...seen.keys()].sort();
const digest = fingerprint(distinct.join('\n'));
const duplicates = n - distinct.length;
fs.writeFileSync(
  'results.json',
  JSON.stringify({ n, distinct: distinct.length, duplicates, digest, node: process.version }, null, 2) + '\n',
);
console.log(`fingerprinted ${n} records: ${distinct.length} distinct, digest=${digest.slice(0, 12)}`);
