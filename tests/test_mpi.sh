#!/usr/bin/env bash
# The MPI example (examples/mpi_reduce.c) on 2 ranks (PoCL here), through
# examples/mpi_gpu.sh's checks: 13 (type, op, accumulator) cases that cover
# all 11 types, all 8 ops and the native, wide and compensated sums (one
# kernel each: PoCL builds cost seconds), each at an odd size, a tiny one (a
# rank gets 1 element) and n=1 (a rank gets none: its identity must not
# change the result; argmin/argmax: its index -1). Each run checks itself
# against the CPU reference (--check) and its result must equal
# pclreduce-run --backend cpu on the same --n/--seed, bit for bit where the
# order cannot matter. Exact sums must be refused with a sentence.
# PCLR_TEST_FULL=1: every type x op pair at every size. PCLR_TEST_QUICK=1:
# 100003 for the odd size. Closing line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: mpicc/mpirun not found (apt-get install openmpi-bin libopenmpi-dev): MPI example not tested"
  exit 0
fi
types=(uint8 int8 uint16 int16 uint int uint64 int64 half float double)
ops=(sum min max argmin argmax minmax stats count)
sizes=(1000003 3 1)
[ -n "${PCLR_TEST_QUICK:-}" ] && sizes=(100003 3 1)
cases=""
if [ -n "${PCLR_TEST_FULL:-}" ]; then
  for t in "${types[@]}"; do for o in "${ops[@]}"; do for n in "${sizes[@]}"; do cases+=" $t:$o:native:$n"; done; done; done
else
  for c in uint8:sum:native int8:argmin:native uint16:minmax:native int16:stats:wide uint:count:native \
           int:sum:native uint64:argmax:native int64:min:native half:stats:native float:argmax:native \
           float:sum:compensated double:max:native double:stats:wide; do
    for n in "${sizes[@]}"; do cases+=" $c:$n"; done
  done
fi
passed=0 failed=0
out=$(bash examples/mpi_gpu.sh --ranks 2 --no-bench --seed 11 --cases "$cases" 2>&1)
echo "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
counts=$(echo "$out" | tail -1)
case $counts in
  *" passed, "*" failed") passed=${counts%% *}; f=${counts#*, }; failed=${f%% *} ;;
  *) failed=1 ;;
esac
# exact sums: refused before any device work, with the reason
make -s build/mpi_reduce >/dev/null 2>&1
mpi=(mpirun -np 2)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  btl=sm
  ompi_info 2>/dev/null | grep -q "MCA btl: vader" && btl=vader
  export "OMPI_MCA_btl_${btl}_single_copy_mechanism=none"
  mpi+=(--oversubscribe --mca btl "self,$btl")
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
fi
msg=$(timeout 60 "${mpi[@]}" build/mpi_reduce --type float --op sum --accumulate exact --n 100 2>&1)
if echo "$msg" | grep -q "exact sums cannot be combined across ranks"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: exact sum not refused: $(echo "$msg" | head -3)"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
