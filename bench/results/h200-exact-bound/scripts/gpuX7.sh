#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/gX7}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; B=build/tests; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"; INC=-I/usr/local/cuda/include
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl > "$O/b4.log" 2>&1 &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_exact tests/test_exact.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_exact_vk tests/test_exact.c -ldl -lm &
wait
run() { local name=$1; shift; ( timeout 70 "$@" > "$O/$name.log" 2>&1; echo "rc=$?" >> "$O/$name.log" ) & }
run exact-cuda $B/test_exact --backend cuda
run exact-vk $B/test_exact_vk --backend vulkan
run exact-clnv $B/test_exact --backend opencl
wait
echo "built+tests at $((SECONDS - t0)) s"
for f in exact-cuda exact-vk exact-clnv; do echo "$f $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/$f.log | tail -1) $(grep -m1 '^rc=' $O/$f.log)"; grep -m3 FAIL $O/$f.log | cut -c1-200; done
for d in uniform normal grid mixed; do
  timeout 40 build/bench_cuda --exact --types float --target-ms 10 --data $d --out "$O/cuda-$d" > "$O/cuda-$d.log" 2>&1 || echo "$d failed"
  grep -E "^float +sum +(native|exact)" "$O/cuda-$d.log" | awk -v d=$d '{print d, $3, $4, $6}'
done
echo "done at $((SECONDS - t0)) s"
