#!/usr/bin/env bash
# jq (jqlang/jq), README: autoreconf -i, configure, make (system oniguruma: no submodule in a snapshot)
set -euo pipefail
apt-get install -y --no-install-recommends libonig-dev bison flex
autoreconf -i
./configure --with-oniguruma=yes --disable-docs
make -j"$(nproc)"
