#!/usr/bin/env bash
# Per-call host time before and after a change, on the GPU machine: bench/percall_ab.c built against
# an older tree's headers and against this tree's into one program that alternates the two (see its
# first comment), then per way and size the median of each, the difference in us and the ratio. Issue 31's bar: at most +0.1 us per call from 2^10 to 2^22, unchanged within noise above.
#   bash bench/percall_ab.sh BASELINE_DIR [OUT_DIR]
# BASELINE_DIR: an older tree, e.g. `git archive <commit> | tar -x -C .baseline`.
set -u
cd "$(dirname "$0")/.."
base=${1:?usage: bench/percall_ab.sh BASELINE_DIR [OUT_DIR]}
out=${2:-build/percall_ab}
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$out"
# the two sides (each tree's headers, every function static), the main that alternates them
cc -std=c99 -O2 -I"$(cd "$base" && pwd)" -I"$CUDA_PATH/include" -DPCLR_AB_SIDE=base -c bench/percall_ab.c -o "$out/side_base.o" &&
    cc -std=c99 -O2 -I"$PWD" -I"$CUDA_PATH/include" -DPCLR_AB_SIDE=cur -c bench/percall_ab.c -o "$out/side_cur.o" &&
    cc -std=c99 -O2 -DPCLR_AB_MAIN -c bench/percall_ab.c -o "$out/main.o" &&
    cc -o "$out/percall_ab" "$out/main.o" "$out/side_base.o" "$out/side_cur.o" -ldl -lm || exit 1
"$out/percall_ab" >"$out/compare.csv" || exit 1
cat "$out/compare.csv"
