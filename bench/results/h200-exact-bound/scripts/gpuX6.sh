#!/usr/bin/env bash
# Final: the suites that issue 32's note cites (contract on cpu/cuda/opencl/vulkan, vulkan, layouts on Vulkan),
# exact sums on three backends, and the exact-sum A/B (this tree vs 23599a1) twice, alternating.
set -u
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/gX6}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; B=build/tests; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"; INC=-I/usr/local/cuda/include
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/gpu.txt" 2>&1; git log --oneline -1 >> "$O/gpu.txt" 2>/dev/null
[ -x .gl/baseline/build/bench_cuda ] || ( cd .gl/baseline && mkdir -p build && $NV -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl ) > "$O/b5.log" 2>&1 &
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl > "$O/b4.log" 2>&1 &
( cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o && cc -O2 -fopenmp -I. bench/bench_cl.c build/omp_anchor.o -o build/bench_cl -ldl -lm -lOpenCL ) > "$O/cl_new.log" 2>&1 &
( cd .gl/baseline && mkdir -p build && cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o && cc -O2 -fopenmp -I. bench/bench_cl.c build/omp_anchor.o -o build/bench_cl -ldl -lm -lOpenCL ) > "$O/cl_old.log" 2>&1 &
gcc $W -O2 $INC -DPCLR_TEST_ALL_BACKENDS -o $B/test_contract tests/test_contract.c -ldl -lm &
gcc $W -O1 -o $B/test_vulkan tests/test_vulkan.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_layout_vk tests/test_layout.c -ldl -lm &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_exact tests/test_exact.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_exact_vk tests/test_exact.c -ldl -lm &
wait; echo "built at $((SECONDS - t0)) s"
run() { local name=$1; shift; ( timeout 240 "$@" > "$O/$name.log" 2>&1; echo "rc=$?" >> "$O/$name.log" ) & }
run contract $B/test_contract cpu cuda opencl vulkan
run vulkan env PCLR_TEST_QUICK=1 $B/test_vulkan
run layout-vk env PCLR_TEST_BACKEND=vulkan PCLR_TEST_QUICK=1 $B/test_layout_vk
run exact-cuda $B/test_exact --backend cuda
run exact-vk $B/test_exact_vk --backend vulkan
run exact-clnv $B/test_exact --backend opencl
wait
for f in contract vulkan layout-vk exact-cuda exact-vk exact-clnv; do echo "$f $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/$f.log | tail -1) $(grep -m1 '^rc=' $O/$f.log)"; grep -m4 FAIL $O/$f.log; done
echo "tests at $((SECONDS - t0)) s"
for r in 1 2; do for d in uniform normal grid; do for v in new old; do
  bin=build/bench_cuda; [ $v = old ] && bin=.gl/baseline/build/bench_cuda
  timeout 60 $bin --exact --types float --target-ms 10 --data $d --out "$O/r$r-cuda-$v-$d" > "$O/r$r-cuda-$v-$d.log" 2>&1 || echo "cuda $r $v $d failed"
done; done; done
for v in new old; do bin=build/bench_cuda; [ $v = old ] && bin=.gl/baseline/build/bench_cuda
  timeout 60 $bin --exact --types double --target-ms 10 --data uniform --out "$O/cuda-$v-double" > "$O/cuda-$v-double.log" 2>&1; done
plat=$(build/bench_cl --list 2>/dev/null | awk '/NVIDIA/ {print $1; exit}' | tr -dc '0-9')
for v in new old; do bin=build/bench_cl; [ $v = old ] && bin=.gl/baseline/build/bench_cl
  timeout 50 $bin --platform "$plat" --device 0 --exact --types float --target-ms 10 --data uniform --out "$O/cl-$v-uniform" > "$O/cl-$v-uniform.log" 2>&1; done
python3 - "$O" <<'PY' | tee "$O/summary.md"
import csv, glob, sys, re
o = sys.argv[1]
rows = {}
for f in sorted(glob.glob(o + "/*/exact_*.csv")):
    run = f.split('/')[-2]
    r = list(csv.DictReader(open(f)))
    nat = {x["n"]: x for x in r if x["accumulate"] == "native" and x["impl"].startswith("pclr")}
    for x in r:
        if x["accumulate"] == "exact" and x["impl"].startswith("pclr") and x["n"] in nat:
            rows.setdefault(run, []).append((x["type"], x["log2n"], float(x["kernel_us"]), float(nat[x["n"]]["kernel_us"])))
print("| run | type | n | exact us | native us | exact / native |")
print("| --- | --- | --- | --- | --- | --- |")
for run in sorted(rows):
    for t, lg, e, n in rows[run]:
        print(f"| {run} | {t} | 2^{lg} | {e:.2f} | {n:.2f} | {e/n:.3f} |")
PY
tar czf "$O/all.tgz" -C "$O" --exclude=all.tgz . 2>/dev/null
echo "done at $((SECONDS - t0)) s"
