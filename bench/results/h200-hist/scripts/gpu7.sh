#!/usr/bin/env bash
# issue 34's table (H200): test_histogram on CUDA (with --big), NVIDIA's OpenCL and Vulkan; hist_cuda (vs CUB, the read
# kernel); the auto-exposure example by histogram on each GPU backend; PoCL's hist_cpu on the host's 16 cores (knobs).
set -u
cd "$(dirname "$0")/../../../.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/g7}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; B=build/tests; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"; INC=-I/usr/local/cuda/include
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/gpu.txt" 2>&1
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl > "$O/build.log" 2>&1 &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_histogram_cuda tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_OPENCL -o $B/test_histogram_opencl tests/test_histogram.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_histogram_vulkan tests/test_histogram.c -ldl -lm &
gcc $W -O2 $INC -o build/auto_exposure examples/auto_exposure.c -ldl -lm >> "$O/build.log" 2>&1 &
(cc -O3 -march=native -fopenmp -I. -c bench/hist_omp.c -o build/hist_omp.o && cc -std=c99 -O2 -fopenmp -I. bench/hist_cpu.c build/hist_omp.o -o build/hist_cpu -ldl -lm) >> "$O/build.log" 2>&1 &
wait
echo "built at $((SECONDS - t0)) s"
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > "$O/$name.log" 2>&1; echo "rc=$?" >> "$O/$name.log" ) ; }
run test-hist-cuda 150 $B/test_histogram_cuda --big cuda &
run test-hist-vk 150 $B/test_histogram_vulkan vulkan &
wait
run test-hist-clnv 150 $B/test_histogram_opencl opencl
echo "tests at $((SECONDS - t0)) s"
for f in test-hist-cuda test-hist-vk test-hist-clnv; do echo "$f $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/$f.log | tail -1) $(grep -m1 '^rc=' $O/$f.log)"; grep -m5 -E "FAIL|skip" $O/$f.log | cut -c1-300; done
timeout 150 build/hist_cuda "$O" > "$O/hist-cuda.log" 2>&1; cat "$O/hist-cuda.log"
echo "hist_cuda at $((SECONDS - t0)) s"
for b in cuda opencl vulkan; do for m in mean histogram; do echo "== auto_exposure --backend $b --metering $m"; timeout 60 build/auto_exposure --backend $b --metering $m 2>&1 | grep -iE "ms|us|exposure|fail|map|device" | head -6; done; done > "$O/auto-exposure.log" 2>&1
cat "$O/auto-exposure.log" | head -50
P=0; for p in 0 1 2 3; do timeout 30 build/hist_cpu --log 12 --reps 1 --platform $p 2>/dev/null | head -1 | grep -qiE "pthread|cpu|xeon|epyc" && { P=$p; break; }; done
{ for k in "" "--group 64" "--group 1024" "--unroll 8" "--vector 4"; do echo "== hist_cpu --log 26 $k"; timeout 100 build/hist_cpu --log 26 --reps 9 --platform $P $k; done
  echo "== hist_cpu --log 28"; timeout 100 build/hist_cpu --log 28 --reps 5 --platform $P; } > "$O/hist-cpu.log" 2>&1
cat "$O/hist-cpu.log"
echo "done at $((SECONDS - t0)) s"
