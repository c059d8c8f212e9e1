#!/usr/bin/env bash
# layouts on CUDA (bench_rows), baseline and current
cd "$(dirname "$0")/.."
O=${OUT:-build/gpuD}; mkdir -p "$O" build
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
for side in baseline current; do
  dir=$PWD; [ $side = baseline ] && dir=$PWD/.gl/baseline
  /usr/local/cuda/bin/nvcc -O2 -arch=sm_${cap:-90} -I"$dir" "$dir/bench/bench_rows.cu" -o build/br_$side -ldl 2>/dev/null || { echo "build $side failed"; exit 1; }
done
for side in baseline current; do
  mkdir -p build/gd/$side
  timeout 200 build/br_$side --no-cub build/gd/$side > build/gd/$side.log 2>&1; echo "$side rc=$?"
done
tar czf "$O/gd.tgz" build/gd; tail -5 build/gd/current.log
