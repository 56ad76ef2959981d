#!/bin/sh
# Reads the size of one structure's object from each ABI's shared object (nm -S) and writes results.json.
# Usage: ./measure.sh NAME   (record, pair or sample)
set -e
name="${1:?usage: ./measure.sh NAME}"
size_of() {
  hex=$(nm -S --defined-only "$1" | awk -v n="$name" '$4 == n { print $2 }')
  [ -n "$hex" ] || { echo "no object $name in $1" >&2; exit 1; }
  printf '%d\n' "0x$hex"
}
ilp32=$(size_of liblayout32.so)
lp64=$(size_of liblayout64.so)
printf '{"name": "%s", "ilp32": %s, "lp64": %s}\n' "$name" "$ilp32" "$lp64" > results.json
echo "$name: ilp32=$ilp32 lp64=$lp64"
