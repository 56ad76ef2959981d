#!/usr/bin/env bash
# libuv (libuv/libuv), README: CMake
set -euo pipefail
cmake -B build
cmake --build build -j"$(nproc)"
