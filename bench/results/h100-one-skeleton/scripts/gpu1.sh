#!/usr/bin/env bash
# GPU correctness run (device tool): build, then the suites in parallel, logs under $OUT.
set -u
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
O=${OUT:-build/gpu}; mkdir -p "$O"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$O/env.log" 2>&1
export XDG_CACHE_HOME=$PWD/build/xdg; unset PCLR_TUNE_FILE
t0=$SECONDS
make -s all >"$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
INC=-I/usr/local/cuda/include; W="-std=c99 -Wall -Wextra -Wpedantic -Werror"
B=build/tests
gcc $W -O2 $INC -o $B/test_cuda tests/test_cuda.c -ldl -lm &
gcc $W -O1 $INC -DPCLR_TEST_CUDA -o $B/test_generic tests/test_generic.c -ldl -lm &
gcc $W -O2 $INC -DPCLR_TEST_ALL_BACKENDS -o $B/test_contract tests/test_contract.c -ldl -lm &
gcc $W -O1 -o $B/test_vulkan tests/test_vulkan.c -ldl -lm &
gcc $W -O2 -o $B/test_opencl tests/test_opencl.c -lOpenCL -lm &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_layout tests/test_layout.c -ldl -lm &
gcc $W -O1 $INC -o $B/test_failures tests/test_failures.c -lOpenCL -ldl -lm &
gcc $W -O2 -pthread $INC -DPCLR_TEST_CUDA -o $B/test_threads tests/test_threads.c -lOpenCL -ldl -lm &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_map tests/test_map.c -ldl -lm &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_vocab tests/test_vocab.c -ldl -lm &
gcc $W -O2 $INC -DPCLR_TEST_CUDA -o $B/test_exact tests/test_exact.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_exact_vk tests/test_exact.c -ldl -lm &
gcc $W -O2 -DPCLR_TEST_VULKAN -o $B/test_layout_vk tests/test_layout.c -ldl -lm &
wait
echo "built in $((SECONDS - t0)) s"; ls $B
run() { local name=$1; shift; ( timeout 420 "$@" >"$O/$name.log" 2>&1; echo "rc=$?" >>"$O/$name.log" ) & }
run cuda $B/test_cuda
run generic $B/test_generic
run contract $B/test_contract cpu cuda opencl vulkan
run vulkan env PCLR_TEST_QUICK=1 $B/test_vulkan
run opencl-nv env PCLR_TEST_QUICK=1 $B/test_opencl
run layout env PCLR_TEST_QUICK=1 $B/test_layout
run failures $B/test_failures
run threads $B/test_threads --cuda
run map $B/test_map --backend cuda --device-only
run vocab $B/test_vocab --backend cuda
run exact $B/test_exact --backend cuda
run exact-vk $B/test_exact_vk --backend vulkan
run layout-vk env PCLR_TEST_BACKEND=vulkan PCLR_TEST_QUICK=1 $B/test_layout_vk
run demo ./build/demo
wait
echo "all done in $((SECONDS - t0)) s"
for f in "$O"/*.log; do printf '%-14s %s %s\n' "$(basename $f .log)" "$(grep -Eo '[0-9]+ passed, [0-9]+ failed' $f | tail -1)" "$(grep -m1 '^rc=' $f)"; done
for f in "$O"/*.log; do grep -H -m6 -E '^FAIL|error' "$f"; done | head -60
