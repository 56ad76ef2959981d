#!/usr/bin/env bash
# lua (lua/lua), its makefile: make
set -euo pipefail
make -j"$(nproc)"
