#!/usr/bin/env bash
# kakoune (mawww/kakoune), README: make
set -euo pipefail
make -j"$(nproc)"
