#!/bin/sh
# Partial sums of the Basel series, sum_{k=1}^{n} 1/k^2, in arbitrary precision with bc; the limit is pi^2/6.
# Usage: ./series.sh N   (writes results.json and prints one line)
set -e
n="${1:?usage: ./series.sh N}"
sum=$(printf 'scale=12\ns=0\nfor (k=1; k<=%s; k++) s+=1/(k*k)\ns\n' "$n" | bc)
limit=$(printf 'scale=12\n4*a(1)*4*a(1)/6\n' | bc -l)
gap=$(printf 'scale=12\n%s-%s\n' "$limit" "$sum" | bc)
printf '{"n": %s, "sum": %s, "gap": %s}\n' "$n" "$sum" "$gap" | sed 's/: \./: 0./g' > results.json
echo "n=$n sum=$sum"
