#!/usr/bin/env bash
# the_silver_searcher (ggreer/the_silver_searcher), README: apt-get install the dependencies, ./build.sh
set -euo pipefail
apt-get install -y --no-install-recommends automake pkg-config libpcre3-dev zlib1g-dev liblzma-dev
./build.sh
