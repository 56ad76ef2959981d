#!/usr/bin/env bash
# re2 (google/re2), README: apt install libabsl-dev, make
set -euo pipefail
apt-get install -y --no-install-recommends libabsl-dev
make -j"$(nproc)"
