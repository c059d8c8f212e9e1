#!/usr/bin/env bash
# issue 34's second GPU run (copies of the group's counts, no carry below 2^32, weights' signs apart): test_histogram on
# CUDA, NVIDIA's OpenCL and Vulkan; hist_cuda (vs CUB) and a knob study of uint8; bench_vk (issue 40's baseline).
set -u
cd "$(dirname "$0")/../../../.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/g1}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; B=build/tests; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"; INC=-I/usr/local/cuda/include
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$O/gpu.txt" 2>&1
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl > "$O/build_hist_cuda.log" 2>&1 &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_histogram_cuda tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_OPENCL -o $B/test_histogram_opencl tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_histogram_vulkan tests/test_histogram.c -ldl -lm &
cc -std=c99 -O2 -DPCLR_BENCH_CUDA $INC bench/bench_vk.c -o build/bench_vk -ldl -lm &
wait
echo "built at $((SECONDS - t0)) s"
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > "$O/$name.log" 2>&1; echo "rc=$?" >> "$O/$name.log" ) ; }
run test-hist-cuda 150 $B/test_histogram_cuda --big cuda &
run test-hist-vk 150 $B/test_histogram_vulkan vulkan &
wait
run test-hist-clnv 150 $B/test_histogram_opencl opencl
echo "tests at $((SECONDS - t0)) s"
for f in test-hist-cuda test-hist-vk test-hist-clnv; do echo "$f $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/$f.log | tail -1) $(grep -m1 '^rc=' $O/$f.log)"; grep -m5 FAIL $O/$f.log | cut -c1-300; done
run hist-cuda 150 build/hist_cuda "$O"
cat "$O/hist-cuda.log"
for k in "--unroll 8" "--unroll 16" "--group 512" "--group 1024 --unroll 8" "--vector 2 --unroll 16"; do
  timeout 60 build/hist_cuda --only uint8 $k /tmp | grep "^| uint8" | sed "s/^/$k /"; done
timeout 60 build/hist_cuda --only one --unroll 16 /tmp | grep "^| float" | sed "s/^/unroll 16 /"
echo "hist_cuda at $((SECONDS - t0)) s"
run bench-vk 150 build/bench_vk --max-log2 26
grep -E "^\| float|^\| double" "$O/bench-vk.log" | head -40
echo "bench_vk at $((SECONDS - t0)) s"
echo "done at $((SECONDS - t0)) s"
