#!/usr/bin/env bash
# issue 34's table, final (H200): test_histogram on Vulkan, CUDA and NVIDIA's OpenCL; hist_cuda (vs CUB, the read kernel)
# and uint8/uint16 with wider loads; PoCL's hist_cpu on the host's 16 cores (groups of 64 now).
set -u
cd "$(dirname "$0")/../../../.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/g8}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; B=build/tests; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"; INC=-I/usr/local/cuda/include
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl > "$O/build.log" 2>&1 &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_histogram_cuda tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_OPENCL -o $B/test_histogram_opencl tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_histogram_vulkan tests/test_histogram.c -ldl -lm &
(cc -O3 -march=native -fopenmp -I. -c bench/hist_omp.c -o build/hist_omp.o && cc -std=c99 -O2 -fopenmp -I. bench/hist_cpu.c build/hist_omp.o -o build/hist_cpu -ldl -lm) >> "$O/build.log" 2>&1 &
wait
echo "built at $((SECONDS - t0)) s"
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > "$O/$name.log" 2>&1; echo "rc=$?" >> "$O/$name.log" ) ; }
run test-hist-cuda 100 $B/test_histogram_cuda cuda &
run test-hist-vk 100 $B/test_histogram_vulkan vulkan &
run test-hist-clnv 100 $B/test_histogram_opencl opencl &
wait
echo "tests at $((SECONDS - t0)) s"
for f in test-hist-cuda test-hist-vk test-hist-clnv; do echo "$f $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/$f.log | tail -1) $(grep -m1 '^rc=' $O/$f.log)"; grep -m4 -E "FAIL|skip" $O/$f.log | cut -c1-250; done
timeout 120 build/hist_cuda "$O" 2>/dev/null > "$O/hist-cuda.log"; cat "$O/hist-cuda.log"
for k in "--only uint8 --vector 16" "--only uint8 --vector 8" "--only uint16 --vector 8"; do timeout 40 build/hist_cuda $k /tmp 2>/dev/null | grep "^| u" | cut -c1-80 | sed "s/^/$k /"; done
echo "hist_cuda at $((SECONDS - t0)) s"
P=0; for p in 0 1 2 3; do timeout 30 build/hist_cpu --log 12 --reps 1 --platform $p 2>/dev/null | head -1 | grep -qiE "pthread|cpu|xeon|epyc" && { P=$p; break; }; done
timeout 100 build/hist_cpu --log 26 --reps 9 --platform $P > "$O/hist-cpu.log" 2>&1; cat "$O/hist-cpu.log"
echo "done at $((SECONDS - t0)) s"
