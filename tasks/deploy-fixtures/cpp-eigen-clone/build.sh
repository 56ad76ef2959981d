#!/bin/sh
# Builds the fitter against Eigen 3.4.0, fetched the way the authors did.
set -e
if [ ! -d third_party/eigen ]; then
  git clone --depth 1 --branch 3.4.0 https://gitlab.com/libeigen/eigen.git third_party/eigen
fi
g++ -O2 -std=c++14 -I third_party/eigen -o fit fit.cpp
