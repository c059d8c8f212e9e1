#!/usr/bin/env bash
# The H100 part of `make bench` (CUDA and NVIDIA OpenCL sweeps, no study) for a
# baseline checkout and for this one, back to back in one call, then the ratio
# of pclreduce's times (this / baseline) per type, op and size.
#   bash bench/before_after.sh BASELINE_DIR [OUT_DIR]
# BASELINE_DIR: an older tree, e.g. `git archive <commit> | tar -x -C .baseline`.
set -u
cd "$(dirname "$0")/.."
base=${1:?usage: bench/before_after.sh BASELINE_DIR [OUT_DIR]}
out=${2:-build/before_after}
mkdir -p "$out"
for side in baseline current; do
    dir=.
    [ "$side" = baseline ] && dir=$base
    echo "== $side ($dir)"
    (cd "$dir" && bash bench/run.sh --no-study --only h100) >"$out/$side.log" 2>&1
    tail -3 "$out/$side.log"
    rm -rf "${out:?}/$side" && mkdir -p "$out/$side"
    cp -r "$dir"/bench/results/h100-cuda "$dir"/bench/results/h100-nvidia-opencl "$out/$side/" 2>/dev/null
done
python3 bench/compare_runs.py "$out/baseline" "$out/current" | tee "$out/compare.txt"
