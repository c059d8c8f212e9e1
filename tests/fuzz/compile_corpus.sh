#!/usr/bin/env bash
# Every VALID configuration in the generator corpus compiles: fuzz_generator
# dumps each corpus input's source (PCLR_FUZZ_DUMP=dir: .cl/.cu, .opts, .cfg),
# then tests/fuzz/cl_build builds the OpenCL ones with clBuildProgram
# (platform 0 device 0: PoCL here) and the CUDA ones with NVRTC through
# pclr_cuda_compile_check (when cuda.h is there). Closing line
# "cl_build: N passed, N failed".
#   tests/fuzz/compile_corpus.sh [corpus dir]   (default tests/fuzz/corpus/generator)
set -eu
cd "$(dirname "$0")/../.."
CORPUS=${1:-tests/fuzz/corpus/generator}
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
mkdir -p build
FUZZ_CC=${FUZZ_CC:-clang}
# the harness binary (the fuzzing build when there; a plain -fsanitize=fuzzer one otherwise)
if [ ! -x build/fuzz_generator ]; then
  $FUZZ_CC -g -O1 -fsanitize=fuzzer,address,undefined -I. -o build/fuzz_generator tests/fuzz/fuzz_generator.c
fi
CUDA_FLAGS=""
[ -f "$CUDA_PATH/include/cuda.h" ] && CUDA_FLAGS="-DPCLR_FUZZ_CUDA -I$CUDA_PATH/include"
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O1 -I. $CUDA_FLAGS -o build/cl_build tests/fuzz/cl_build.c -lOpenCL -ldl -lm
DUMP=$(mktemp -d)
trap 'rm -rf "$DUMP"' EXIT
# libFuzzer runs each file argument once; duplicates of one config land on one name
find "$CORPUS" -type f -print0 | PCLR_FUZZ_DUMP=$DUMP xargs -0 -r ./build/fuzz_generator >"$DUMP.log" 2>&1 || {
  tail -20 "$DUMP.log"; rm -f "$DUMP.log"; echo "cl_build: 0 passed, 1 failed"; exit 1; }
rm -f "$DUMP.log"
n=$(find "$DUMP" -name '*.cfg' | wc -l)
echo "corpus $CORPUS: $(find "$CORPUS" -type f | wc -l) inputs, $n distinct valid configurations"
[ "$n" -gt 0 ] || { echo "cl_build: 0 passed, 1 failed"; exit 1; }
find "$DUMP" -name '*.cfg' -print0 | sort -z | xargs -0 ./build/cl_build
