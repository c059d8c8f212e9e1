#!/usr/bin/env bash
# Issue 30 on the GPU machine: Vulkan numerics on NVIDIA's driver, the round-3 tests on CUDA / NVIDIA OpenCL,
# and bench_vk before (a7aee83) / after in one call. Logs under $OUT.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$VK_DRIVER_FILES" ] || unset VK_DRIVER_FILES
export PCLR_SHADERC_LIBRARY=$PWD/.gl/libshaderc_shared.so
export XDG_CACHE_HOME=$PWD/build/gpu30-xdg; rm -rf "$XDG_CACHE_HOME"; unset PCLR_TUNE_FILE
CUDA=/usr/local/cuda; INC="-I$CUDA/include"; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"
mkdir -p build/tests "$OUT"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; vulkaninfo --summary 2>&1 | grep -E "deviceName|driverInfo|apiVersion" | head -6; } > $OUT/env.log 2>&1
make -s all CUDA_PATH=$CUDA > $OUT/build.log 2>&1 || { cat $OUT/build.log; exit 1; }
gcc $W -O1 -o build/tests/test_vulkan tests/test_vulkan.c -ldl -lm &&
gcc $W -O2 -pthread $INC -DPCLR_TEST_CUDA -o build/tests/test_threads tests/test_threads.c -lOpenCL -ldl -lm &&
gcc $W -O1 $INC -DPCLR_TEST_CUDA -o build/tests/test_generic tests/test_generic.c -ldl -lm &&
gcc $W -O2 -o build/tests/test_exact tests/test_exact.c -ldl -lm || exit 1
t() { local n=$1; shift; local t0=$SECONDS; timeout 420 "$@" > $OUT/$n.log 2>&1; echo "$n rc=$? $((SECONDS-t0))s $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $OUT/$n.log | tail -1)"; }
t vulkan-quick env PCLR_TEST_QUICK=1 build/tests/test_vulkan
grep -E "device:|ulp|FAIL" $OUT/vulkan-quick.log | head -30
t threads-cuda env PCLR_TEST_QUICK=1 PCLR_TEST_ONLY=none build/tests/test_threads --cuda
t threads-cl env PCLR_TEST_QUICK=1 PCLR_TEST_ONLY=none build/tests/test_threads --opencl
grep -E "one .* context, two threads|FAIL" $OUT/threads-*.log | head
t generic-cuda build/tests/test_generic
grep FAIL $OUT/generic-cuda.log | head
# the issue's probes through the tool on NVIDIA's Vulkan
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<3f', float('inf'), 1.0, -0.0))" > $OUT/inf.bin
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<2d', 89.0, 1e300))" > $OUT/d.bin
for m in 'x - x' 'x * 0.0f' 'x + 0.0f'; do echo "vulkan float max '$m' over inf,1,-0: $(build/pclreduce-run --backend vulkan --type float --op max --map "$m" --input $OUT/inf.bin 2>&1 | tail -1)"; done
for m in 'exp(x)' 'log(x)' 'x % 3.3'; do echo "vulkan double max '$m' over 89,1e300: $(build/pclreduce-run --backend vulkan --type double --op max --map "$m" --input $OUT/d.bin 2>&1 | tail -1)"; done
# bench_vk before / after, same call
gcc -std=c99 -O2 $INC -DPCLR_BENCH_CUDA devtmp/old/bench/bench_vk.c -o build/bench_vk_old -ldl -lm &&
gcc -std=c99 -O2 $INC -DPCLR_BENCH_CUDA bench/bench_vk.c -o build/bench_vk_new -ldl -lm || exit 1
for r in 1 2; do
  timeout 200 build/bench_vk_old --max-log2 26 > $OUT/bench_vk_old_$r.log 2>&1
  timeout 200 build/bench_vk_new --max-log2 26 > $OUT/bench_vk_new_$r.log 2>&1
done
paste -d'\n' <(grep "^| float\|^| uint\|^| double\|^| int" $OUT/bench_vk_old_1.log) <(grep "^| float\|^| uint\|^| double\|^| int" $OUT/bench_vk_new_1.log) | head -120
