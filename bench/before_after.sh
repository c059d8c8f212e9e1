#!/usr/bin/env bash
# The H100 part of `make bench` (CUDA and NVIDIA OpenCL sweeps, no study) for a
# baseline checkout and for this one, back to back in one call, then the ratio
# of pclreduce's times (this / baseline) per type, op and size: kernel,
# pipelined and blocking (bench/compare_runs.py).
#   bash bench/before_after.sh BASELINE_DIR [OUT_DIR] [--sweeps]
# BASELINE_DIR: an older tree, e.g. `git archive <commit> | tar -x -C .baseline`.
# --sweeps: only the two sweeps (bench_cuda and bench_cl on the NVIDIA platform,
# each built from its own tree), alternating baseline, current, ROUNDS times
# (default 2), so that one device call holds both (the full run.sh also runs the
# vocabulary, map and rows programs: too long for one call twice).
set -u
cd "$(dirname "$0")/.."
base=${1:?usage: bench/before_after.sh BASELINE_DIR [OUT_DIR] [--sweeps]}
out=${2:-build/before_after}
sweeps=0
[ "${3:-}" = --sweeps ] && sweeps=1
[ "${2:-}" = --sweeps ] && { sweeps=1; out=build/before_after; }
mkdir -p "$out"
if [ $sweeps = 1 ]; then
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
    PATH="$PATH:/usr/local/cuda/bin"
    for side in baseline current; do
        dir=$PWD
        [ "$side" = baseline ] && dir=$(cd "$base" && pwd)
        mkdir -p "$out/build-$side"
        nvcc -O3 -std=c++17 -arch="sm_${cap:-90}" -I"$dir" "$dir/bench/bench_cuda.cu" -o "$out/build-$side/bench_cuda" -ldl || exit 1
        cc -O3 -march=native -ffast-math -fopenmp -I"$dir" -c "$dir/bench/omp_anchor.c" -o "$out/build-$side/omp_anchor.o" &&
            cc -O2 -fopenmp -I"$dir" "$dir/bench/bench_cl.c" "$out/build-$side/omp_anchor.o" -o "$out/build-$side/bench_cl" -lOpenCL -lm || exit 1
    done
    nv=$("$out/build-current/bench_cl" --list 2>/dev/null | grep -i nvidia | head -n1)
    rounds=${ROUNDS:-2}
    for round in $(seq 1 "$rounds"); do
        for side in baseline current; do
            echo "== $side, round $round"
            mkdir -p "$out/$side.$round/h100-cuda" "$out/$side.$round/h100-nvidia-opencl"
            timeout 240 "$out/build-$side/bench_cuda" --out "$out/$side.$round/h100-cuda" >"$out/$side.$round/cuda.log" 2>&1
            if [ -n "$nv" ]; then
                read -r plat dev _ <<<"$nv"
                timeout 180 "$out/build-$side/bench_cl" --platform "$plat" --device "$dev" --out "$out/$side.$round/h100-nvidia-opencl" \
                    >"$out/$side.$round/opencl.log" 2>&1
            fi
        done
    done
    for round in $(seq 1 "$rounds"); do
        python3 bench/compare_runs.py "$out/baseline.$round" "$out/current.$round" >"$out/compare.$round.txt"
        echo "== round $round"
        sed -n '/^median/,$p' "$out/compare.$round.txt"
    done
    exit 0
fi
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
