#!/usr/bin/env bash
# nnn (jarun/nnn), its wiki: make with ncurses and readline
set -euo pipefail
apt-get install -y --no-install-recommends pkg-config libncurses-dev libreadline-dev
make -j"$(nproc)"
