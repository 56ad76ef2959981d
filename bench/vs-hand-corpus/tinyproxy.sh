#!/usr/bin/env bash
# tinyproxy (tinyproxy/tinyproxy), README: autogen.sh, configure, make
set -euo pipefail
./autogen.sh
./configure
make -j"$(nproc)"
