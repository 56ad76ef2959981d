#!/usr/bin/env bash
# libyaml (yaml/libyaml), ReadMe.md: ./bootstrap, ./configure, make
set -euo pipefail
./bootstrap
./configure
make -j"$(nproc)"
