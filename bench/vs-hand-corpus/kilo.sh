#!/usr/bin/env bash
# kilo (antirez/kilo), README: make
set -euo pipefail
make
