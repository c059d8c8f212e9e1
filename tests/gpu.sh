#!/usr/bin/env bash
# Everything that needs the GPU machine, in one call (device tool):
#   bash tests/gpu.sh            build, CUDA suite, OpenCL suites and thread tests on every platform, demo
#   bash tests/gpu.sh --quick    the same, but CPU platforms (PoCL) get the quick suite and no compile-all
# Logs go to $OUT (or build/gpu) and a summary table is printed last.
set -u
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = --quick ] && quick=1
OUT=${OUT:-build/gpu}
mkdir -p "$OUT" build/tests
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
export XDG_CACHE_HOME="$PWD/build/gpu-xdg-cache" # a fresh disk cache and no tuning file
rm -rf "$XDG_CACHE_HOME"
unset PCLR_TUNE_FILE
WARN="-Wall -Wextra -Wpedantic -Werror"
INC="-I$CUDA_PATH/include"
summary=()
run() { # name, command...: runs, logs, records the closing count line
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-34s rc=%-3d %4ds  %s' "$name" $rc $((SECONDS - t0)) "$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$OUT/$name.log" | tail -1)")")
}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; gcc --version | head -1; nvcc --version | tail -2; } >"$OUT/env.log" 2>&1
make -s all CUDA_PATH="$CUDA_PATH" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
./build/pclreduce-run --list >>"$OUT/env.log" 2>&1
cat "$OUT/env.log"
gcc -std=c99 $WARN -O2 $INC -o build/tests/test_cuda tests/test_cuda.c -ldl -lm &&
gcc -std=c99 $WARN -O2 -o build/tests/test_opencl tests/test_opencl.c -lOpenCL -lm &&
gcc -std=c99 $WARN -O2 -o build/tests/test_compile_opencl tests/test_compile_opencl.c -lOpenCL -lm &&
gcc -std=c99 $WARN -O2 -pthread $INC -DPCLR_TEST_CUDA -o build/tests/test_threads tests/test_threads.c -lOpenCL -ldl -lm &&
gcc -std=c99 $WARN -O1 $INC -o build/tests/test_failures tests/test_failures.c -ldl -lm &&
gcc -std=c99 $WARN -O1 $INC -DPCLR_TEST_CUDA -o build/tests/test_generic tests/test_generic.c -ldl -lm &&
gcc -std=c99 $WARN -O2 $INC -DPCLR_TEST_CUDA -o build/tests/test_vocab tests/test_vocab.c -ldl -lm &&
gcc -std=c99 $WARN -O1 $INC -o build/tests/test_vocab_nvrtc tests/test_vocab_nvrtc.c -ldl -lm &&
gcc -std=c99 $WARN -O2 $INC -DPCLR_TEST_CUDA -o build/tests/test_map tests/test_map.c -ldl -lm &&
gcc -std=c99 $WARN -O2 $INC -DPCLR_TEST_CUDA -o build/tests/test_exact tests/test_exact.c -ldl -lm || exit 1

run cuda-suite ./build/tests/test_cuda
run failures-cuda ./build/tests/test_failures   # every CUDA driver call failed in turn
run generic-cuda ./build/tests/test_generic      # auto picks CUDA; every backend by itself
run run-auto ./build/pclreduce-run --type float --op sum --n 100000007 -v
run tune-cuda ./build/pclreduce-tune --backend cuda --types float --ops sum --max-n 16777216 --file "$OUT/tune-cuda.txt"
run threads-cuda ./build/tests/test_threads --cuda
# the issue 14 vocabulary against the CPU reference on the GPU; --big: argmax/argmin beyond index 2^32
# (uint8, 4 GiB; float, 16 GiB) where the device has the memory
run vocab-cuda ./build/tests/test_vocab --backend cuda --big
run vocab-nvrtc ./build/tests/test_vocab_nvrtc
# maps (the expression table, every op and accumulator) and exact sums against the CPU reference
run map-cuda ./build/tests/test_map --backend cuda --device-only
run exact-cuda ./build/tests/test_exact --backend cuda --big
nplat=$(./build/pclreduce-run --list | grep -c '^platform')
for p in $(seq 0 $((nplat - 1))); do
  pname=$(./build/pclreduce-run --list | grep "^platform $p:" | sed 's/^platform [0-9]*: //; s/[^A-Za-z0-9]/_/g' | cut -c1-20)
  run "threads-$p-$pname" env PCLR_CL_PLATFORM=$p PCLR_CL_DEVICE=0 ./build/tests/test_threads --opencl
  if [[ "$pname" == Portable* ]]; then
    run "vocab-cl-quick-$p-$pname" env PCLR_CL_PLATFORM=$p PCLR_TEST_QUICK=1 ./build/tests/test_vocab --backend opencl
  else
    run "vocab-cl-$p-$pname" env PCLR_CL_PLATFORM=$p ./build/tests/test_vocab --backend opencl --big
    run "map-cl-$p-$pname" ./build/tests/test_map --backend opencl --platform $p --device-only
    run "exact-cl-$p-$pname" ./build/tests/test_exact --backend opencl --platform $p
  fi
  if [ $quick = 1 ] && [[ "$pname" == Portable* ]]; then
    run "cl-suite-quick-$p-$pname" env PCLR_CL_PLATFORM=$p PCLR_CL_DEVICE=0 PCLR_TEST_QUICK=1 ./build/tests/test_opencl
    continue
  fi
  run "cl-compile-$p-$pname" env PCLR_CL_PLATFORM=$p ./build/tests/test_compile_opencl
  run "cl-suite-$p-$pname" env PCLR_CL_PLATFORM=$p PCLR_CL_DEVICE=0 PCLR_TEST_FULL=1 ./build/tests/test_opencl
done
run tools bash tests/test_tools.sh
run demo ./build/demo
echo
printf '%s\n' "${summary[@]}"
echo
tail -20 "$OUT/demo.log"
for f in "$OUT"/*.log; do grep -H -m5 -E '^FAIL' "$f"; done
