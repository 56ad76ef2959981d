#!/usr/bin/env bash
# ninja (ninja-build/ninja), README: CMake
set -euo pipefail
cmake -Bbuild-cmake
cmake --build build-cmake -j"$(nproc)"
