// Summary statistics of a seeded sensor series (a linear congruential generator, so every run sees the same
// numbers): the mean, the standard deviation and the median, written to results.json.
const ss = require('simple-statistics');
const fs = require('fs');

const n = Number(process.argv[2] || 10000);
let state = 12345;
const next = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};
const series = Array.from({ length: n }, () => 20 + 10 * next());
const result = {
  n,
  mean: ss.mean(series),
  sd: ss.standardDeviation(series),
  median: ss.median(series),
  node: process.version,
};
fs.writeFileSync('results.json', JSON.stringify(result, null, 2) + '\n');
console.log(`summarised ${n} readings: mean=${result.mean.toFixed(2)} sd=${result.sd.toFixed(2)}`);
