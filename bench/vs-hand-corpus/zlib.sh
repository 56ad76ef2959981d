#!/usr/bin/env bash
# zlib (madler/zlib), README: ./configure; make test
set -euo pipefail
./configure
make -j"$(nproc)"
