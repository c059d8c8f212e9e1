#!/bin/bash
# Issue 36 item 3: the exact-sum table on honest data, on the H100, within ~4 minutes.
# Run from the repository root on the GPU machine:  bash bench/results/h100-exact-data/scripts/gpu_exact.sh
# Writes under $OUT (default ./out-exact): one folder per data set (exact_cuda.csv with a `data` column,
# exact.log), the NVIDIA OpenCL run on uniform and grid data, and summary.md (exact / native time ratios).
# Data sets (bench/bench_common.h): uniform U(-1,1), normal N(0,1), mixed (log-uniform 1e-6..1e6, both signs),
# all with every mantissa bit random; grid = the data of the old results (multiples of 2^-24 in [0,1)), labelled.
set -u
OUT=${OUT:-$PWD/out-exact}
mkdir -p "$OUT" build
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
start=$(date +%s)
echo "building bench_cuda ($(date))" | tee "$OUT/build.log"
$NVCC -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl >>"$OUT/build.log" 2>&1 || { echo "bench_cuda did not build"; tail -20 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
# 2^20, 2^24, 2^28 floats (doubles 2^27), kernel + pipelined, 20 ms each: ~25 s a data set after its fill
for d in uniform normal mixed grid; do
    echo "== cuda $d ($(( $(date +%s) - start )) s)"
    timeout 70 build/bench_cuda --exact --target-ms 15 --data "$d" --out "$OUT/cuda-$d" 2>&1 | tee "$OUT/cuda-$d.log" | grep -E "exact|FAIL|data:"
done
# NVIDIA OpenCL: the same table (uniform and grid), and group 1024 (lowered to the kernel's limit now)
if cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o 2>>"$OUT/build.log" &&
   cc -O2 -fopenmp -I. bench/bench_cl.c build/omp_anchor.o -o build/bench_cl -ldl -lm 2>>"$OUT/build.log"; then
    plat=$(build/bench_cl --list 2>/dev/null | awk '/NVIDIA/ {print $1; exit}' | tr -dc '0-9')
    for d in uniform grid; do
        [ -n "$plat" ] || { echo "no NVIDIA OpenCL platform"; break; }
        echo "== opencl $d ($(( $(date +%s) - start )) s)"
        timeout 50 build/bench_cl --platform "$plat" --device 0 --exact --target-ms 15 --data "$d" --out "$OUT/opencl-$d" 2>&1 | tee "$OUT/opencl-$d.log" | grep -E "exact|FAIL|data:"
    done
    [ -n "$plat" ] && timeout 40 build/bench_cl --platform "$plat" --device 0 --exact --data uniform --group 1024 --max-log 24 \
        --out "$OUT/opencl-group1024" 2>&1 | tee "$OUT/opencl-group1024.log" | grep -E "exact|FAIL"
else
    echo "bench_cl did not build (see build.log)"
fi
# summary: exact / native pclreduce time at each point (kernel; pipelined in brackets)
python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import csv, glob, os, sys
out = sys.argv[1]
print("| run | data | type | n | exact / native kernel (pipelined) | exact GB/s |")
print("| --- | --- | --- | --- | --- | --- |")
for f in sorted(glob.glob(os.path.join(out, "*", "exact_*.csv"))):
    rows = list(csv.DictReader(open(f)))
    nat = {(r["type"], r["n"], r.get("impl")): r for r in rows if r["accumulate"] == "native" and r["impl"].startswith("pclr")}
    for r in rows:
        if r["accumulate"] != "exact" or not r["impl"].startswith("pclr"): continue
        n = nat.get((r["type"], r["n"], r["impl"]))
        if not n or not r["status"].startswith("ok"):
            print(f"| {os.path.basename(os.path.dirname(f))} | {r.get('data','?')} | {r['type']} | 2^{r['log2n']} | {r['status']} | |"); continue
        k = float(r["kernel_us"]) / float(n["kernel_us"]); p = float(r["pipelined_us"]) / float(n["pipelined_us"])
        print(f"| {os.path.basename(os.path.dirname(f))} | {r.get('data','?')} | {r['type']} | 2^{r['log2n']} | {k:.3f} ({p:.3f}) | {float(r['gbps_kernel']):.0f} |")
PY
echo "done in $(( $(date +%s) - start )) s; results under $OUT"
