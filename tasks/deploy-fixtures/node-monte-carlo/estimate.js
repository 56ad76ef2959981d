// A tiny "paper" in JavaScript: estimate pi by sampling points in the unit square with a seeded generator.
// Usage: node estimate.js [samples]
'use strict';
const fs = require('fs');
const seedrandom = require('seedrandom');

const n = Number(process.argv[2] || 100000);
const rng = seedrandom('buildbench');
let inside = 0;
for (let i = 0; i < n; i++) {
  const x = rng();
  const y = rng();
  if (x * x + y * y <= 1) inside++;
}
const pi = (4 * inside) / n;
fs.writeFileSync('results.json', JSON.stringify({ n, pi, node: process.version }, null, 2));
console.log(`sampled ${n} points: pi=${pi.toFixed(4)}`);
