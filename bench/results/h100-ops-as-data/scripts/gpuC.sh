#!/usr/bin/env bash
# the vocabulary ops (the op table's kernels) on CUDA, baseline and current, alternating
cd "$(dirname "$0")/.."
O=${OUT:-build/gpuC}; mkdir -p "$O" build
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
for side in baseline current; do
  dir=$PWD; [ $side = baseline ] && dir=$PWD/.gl/baseline
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_${cap:-90} -I"$dir" "$dir/bench/bench_cuda.cu" -o build/bc_$side -ldl 2>/dev/null || exit 1
done
for r in 1 2; do for side in baseline current; do
  mkdir -p build/gc/$side.$r
  timeout 110 build/bc_$side --vocab --types ${TYPES:-uint8,half,float,int64} --ops ${OPS:-argmin,stats,minmax,count} --out build/gc/$side.$r > build/gc/$side.$r.log 2>&1; echo "$side $r rc=$?"
done; done
tar czf "$O/gc.tgz" build/gc; tail -5 build/gc/current.1.log
