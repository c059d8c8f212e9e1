#!/usr/bin/env bash
# The MPI example (examples/mpi_reduce.c) on 2 ranks (PoCL here): every
# type/op pair at an odd size, a tiny one (a rank gets 1 element) and n=1 (a
# rank gets none: its identity must not change the result). Each run checks
# itself (--check); its result must equal pclreduce-run --backend cpu on the
# same --n/--seed, bit for bit where the order of operations cannot matter
# (integers, min/max), else its printed reference must (same data) and the
# result be within --check's rounding bound. Closing line "N passed, N failed".
# PCLR_TEST_QUICK=1 uses 100003 for the odd size.
set -u
cd "$(dirname "$0")/.."
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: mpicc/mpirun not found (apt-get install openmpi-bin libopenmpi-dev): MPI example not tested"
  exit 0
fi
make -s build/mpi_reduce build/pclreduce-run || { echo "FAIL: build"; echo "0 passed, 1 failed"; exit 1; }
B=build/tests
mkdir -p "$B"

# OpenMPI in a container: root needs consent, 2 ranks may exceed the cores, and
# the shared-memory transport cannot use ptrace-based single copy. Its name is
# vader up to OpenMPI 4, sm from 5.
mpi=(mpirun -np 2)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  btl=sm
  ompi_info 2>/dev/null | grep -q "MCA btl: vader" && btl=vader
  export "OMPI_MCA_btl_${btl}_single_copy_mechanism=none"
  mpi+=(--oversubscribe --mca btl "self,$btl")
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
fi

passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

sizes="1000003 3 1"
[ -n "${PCLR_TEST_QUICK:-}" ] && sizes="100003 3 1"
seed=11
for type in uint int float double; do
  for op in sum min max; do
    for n in $sizes; do
      seed=$((seed + 1))
      what="$type $op n=$n seed=$seed"
      log="$B/mpi_${type}_${op}_$n.log"
      timeout 300 "${mpi[@]}" build/mpi_reduce --type "$type" --op "$op" --n "$n" --seed "$seed" --check >"$log" 2>&1
      rc=$?
      got=$(grep '^result: ' "$log" | tail -1 | cut -d' ' -f2)
      ref=$(grep -o 'reference [^,)]*' "$log" | tail -1 | cut -d' ' -f2)
      cpu=$(build/pclreduce-run --backend cpu --type "$type" --op "$op" --n "$n" --seed "$seed" | grep '^result: ' | cut -d' ' -f2)
      if [ $rc -ne 0 ] || ! grep -q '^check: ok' "$log"; then
        fail "$what: exit $rc: $(grep -E '^check|mpi_reduce' "$log" | head -3)"
      elif [ -z "$cpu" ] || [ "$ref" != "$cpu" ]; then
        fail "$what: reference $ref but pclreduce-run --backend cpu says '$cpu' (different data?)"
      elif [ "$got" != "$cpu" ] && ! { [ "$op" = sum ] && { [ "$type" = float ] || [ "$type" = double ]; }; }; then
        fail "$what: result $got, pclreduce-run --backend cpu $cpu"
      else
        pass
      fi
    done
  done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
