#!/usr/bin/env bash
# redis (redis/redis), README: make
set -euo pipefail
make -j"$(nproc)"
