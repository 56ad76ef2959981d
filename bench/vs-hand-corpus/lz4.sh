#!/usr/bin/env bash
# lz4 (lz4/lz4), README: make
set -euo pipefail
make -j"$(nproc)"
