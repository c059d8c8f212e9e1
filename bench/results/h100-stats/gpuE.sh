#!/usr/bin/env bash
# Issue 36 on the H100: test_stats on every backend, the accuracy table (NVIDIA OpenCL, NVIDIA Vulkan, CPU),
# and CUDA stats speed before/after (bench_cuda --vocab, baseline tree and this one, alternating).
set -u
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
O=${OUT:-build/gE}; mkdir -p "$O"
INC=-I/usr/local/cuda/include; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"
gcc $W -O2 $INC -DPCLR_TEST_OPENCL -DPCLR_TEST_VULKAN -DPCLR_TEST_CUDA -o build/test_stats tests/test_stats.c -ldl -lm || exit 1
gcc $W -O2 -DBENCH_OPENCL -DBENCH_VULKAN -o build/bench_accuracy bench/bench_accuracy.c -ldl -lm || exit 1
for b in cpu cuda opencl vulkan; do
  timeout 150 build/test_stats $b > "$O/stats_$b.log" 2>&1; echo "stats $b rc=$? $(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$O/stats_$b.log" | tail -1)"
  grep -m5 FAIL "$O/stats_$b.log"
done
timeout 200 build/bench_accuracy > "$O/accuracy.txt" 2>&1; echo "accuracy rc=$?"
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
for side in baseline current; do
  dir=$PWD; [ $side = baseline ] && dir=$PWD/.gl/baseline
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_${cap:-90} -I"$dir" "$dir/bench/bench_cuda.cu" -o build/bc_$side -ldl 2>/dev/null || exit 1
done
for r in 1 2; do for side in baseline current; do
  timeout 100 build/bc_$side --vocab --types ${TYPES:-uint8,int16,int,int64,half,float,double} --ops stats --out build/gE_$side.$r > build/gE_$side.$r.log 2>&1
  echo "$side $r rc=$?"; cp build/gE_$side.$r/vocab_cuda.csv "$O/vocab_${side}_$r.csv" 2>/dev/null
done; done
python3 - "$O" <<'PY'
import sys, csv, glob, statistics
o = sys.argv[1]; rows = {}
for f in glob.glob(o + "/vocab_*.csv"):
    side = f.split("vocab_")[1].split("_")[0]
    for r in csv.DictReader(open(f)):
        if r["impl"].startswith("pclreduce") and r["status"] == "ok" and r["op"] == "stats":
            rows.setdefault((r["type"], r["accumulate"], int(r["log2n"])), {}).setdefault(side, []).append(float(r["kernel_us"]))
print("| type | accumulate | n | before us | after us | after/before |")
print("| --- | --- | --- | --- | --- | --- |")
for k in sorted(rows):
    v = rows[k]
    if "baseline" in v and "current" in v and k[2] >= 24:
        b = statistics.median(v["baseline"]); a = statistics.median(v["current"])
        print(f"| {k[0]} | {k[1]} | 2^{k[2]} | {b:.1f} | {a:.1f} | {a/b:.3f} |")
PY
