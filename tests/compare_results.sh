#!/usr/bin/env bash
# Results of this tree's kernels against an older tree's, bit for bit: builds both
# pclreduce-run tools and compares `result:` for every type/op on random data of
# odd sizes, per backend given (default: opencl; on a GPU machine: cuda opencl).
#   bash tests/compare_results.sh BASELINE_DIR [backend ...]
set -u
cd "$(dirname "$0")/.."
base=${1:?usage: tests/compare_results.sh BASELINE_DIR [backend ...]}; shift
backends=("${@:-opencl}")
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
inc="-I$CUDA_PATH/include"; [ -f "$CUDA_PATH/include/cuda.h" ] || inc="-DPCLR_RUN_NO_CUDA"
mkdir -p build/tests
cc -std=c99 -O2 $inc -o build/tests/run_old "$base/examples/pclreduce-run.c" -ldl -lm || exit 1
cc -std=c99 -O2 $inc -o build/tests/run_new examples/pclreduce-run.c -ldl -lm || exit 1
passed=0 failed=0
for b in "${backends[@]}"; do
  for t in uint int float double; do
    for o in sum min max; do
      for n in 1 1000 65537 1000003 16777259; do
        seed=$((n * 7 + ${#t}))
        old=$(XDG_CACHE_HOME=/tmp/pclr_cmp_old build/tests/run_old --backend "$b" --type $t --op $o --n $n --seed $seed 2>&1 | tail -1)
        new=$(XDG_CACHE_HOME=/tmp/pclr_cmp_new build/tests/run_new --backend "$b" --type $t --op $o --n $n --seed $seed 2>&1 | tail -1)
        if [ "$old" = "$new" ] && [[ "$new" == result:* ]]; then passed=$((passed + 1))
        else failed=$((failed + 1)); echo "FAIL $b $t $o n=$n: old '$old' new '$new'"; fi
      done
    done
  done
done
echo "compare_results: $passed passed, $failed failed"
[ "$failed" = 0 ]
