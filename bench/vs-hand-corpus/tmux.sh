#!/usr/bin/env bash
# tmux (tmux/tmux), README: autogen.sh, configure, make; libevent, ncurses, bison
set -euo pipefail
apt-get install -y --no-install-recommends libevent-dev libncurses-dev bison
sh autogen.sh
./configure && make -j"$(nproc)"
