#!/usr/bin/env bash
# zstd (facebook/zstd), README: make
set -euo pipefail
make -j"$(nproc)"
