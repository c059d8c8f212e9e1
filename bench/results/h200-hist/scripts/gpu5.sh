#!/usr/bin/env bash
# issue 34's fifth GPU run: the weighted histogram's time against its groups per SM and its data.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p build
t0=$SECONDS
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl > /dev/null 2>&1
echo "built at $((SECONDS - t0)) s"
h() { timeout 60 build/hist_cuda "$@" /tmp 2>&1 | grep -E "^\| [uf]|^# [uf]|rror" | cut -c1-90 | sed "s/^/$* : /"; }
h --only weighted --log 24
h --only weighted --log 24 --groups-per-unit 1
h --only weighted --log 24 --groups-per-unit 2
h --only weighted --log 24 --weights positive
h --only weighted --log 24 --weights one
h --only weighted --log 24 --weights one --groups-per-unit 1
echo "done at $((SECONDS - t0)) s"
