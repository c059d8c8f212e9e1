#!/usr/bin/env bash
# issue 34's sixth GPU run: the weighted histogram with the carry's loop apart (new) against the loop on the common
# path (old: .gl/old), by unroll.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p build
t0=$SECONDS
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl > /dev/null 2>&1 &
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 .gl/old/bench/hist_cuda.cu -o build/hist_cuda_old -ldl > /dev/null 2>&1 &
wait
echo "built at $((SECONDS - t0)) s"
h() { local b=$1; shift; timeout 60 $b "$@" /tmp 2>&1 | grep -E "^\| [uf]|rror" | cut -c1-90 | sed "s|^|$b $* : |"; }
for u in 8 2 1; do h build/hist_cuda --only weighted --log 24 --unroll $u; h build/hist_cuda_old --only weighted --log 24 --unroll $u; done
h build/hist_cuda --only weighted
echo "done at $((SECONDS - t0)) s"
