#!/usr/bin/env bash
# htop (htop-dev/htop), README: autogen, configure, make; ncursesw
set -euo pipefail
apt-get install -y --no-install-recommends libncurses-dev
./autogen.sh && ./configure && make -j"$(nproc)"
