#!/usr/bin/env bash
# inih (benhoyt/inih), README: meson
set -euo pipefail
meson setup build
ninja -C build
