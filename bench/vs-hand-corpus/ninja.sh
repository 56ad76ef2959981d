#!/usr/bin/env bash
# ninja (ninja-build/ninja), README: CMake without the tests
set -euo pipefail
cmake -Bbuild-cmake -DBUILD_TESTING=OFF
cmake --build build-cmake -j"$(nproc)"
