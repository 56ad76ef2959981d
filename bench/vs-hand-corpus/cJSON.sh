#!/usr/bin/env bash
# cJSON (DaveGamble/cJSON), README: CMake
set -euo pipefail
mkdir build
cd build
cmake ..
make -j"$(nproc)"
