#!/usr/bin/env bash
# One GPU per MPI rank (examples/mpi_reduce.c), checked and timed:
#  1. every type x op (and the wide/compensated sums and stats) with 1 and 2
#     ranks on the same --n/--seed data; each run checks itself against the
#     CPU reference (--check), and its result must equal
#     pclreduce-run --backend cpu on the same data, bit for bit where the
#     order of operations cannot matter (integers, min/max/arg/minmax, count);
#     float sums within --check's rounding bound (depth x u x sum|x|), stats'
#     mean and variance within a relative 1e-9 (moments in double) or 1e-3
#     (in float), their printed reference equal to pclreduce-run's;
#  2. the throughput of a float sum of 2^31 elements (8 GiB) with the data
#     already on the devices: mpi_reduce --time K with 1 and 2 ranks (the
#     slowest rank's median of K reduces between barriers), and their ratio.
#     On a node with 2 GPUs the ranks take one each (node rank % devices).
#
# bash examples/mpi_gpu.sh [--ranks "1 2"] [--n N] [--seed S] [--cases "T:O[:A[:N]] ..."]
#                          [--bench-n N] [--repeat K] [--no-check] [--no-bench] [--verbose] [-- mpi_reduce flags]
# --verbose: a line per passing run (its result) as well.
# Flags after -- go to every mpi_reduce run (e.g. --backend opencl). Closing
# line "N passed, N failed"; exit 1 on any failure. make mpi-gpu runs it.
set -u
cd "$(dirname "$0")/.."
ranks_list="1 2" n=1000003 seed=7 bench_n=$((1 << 31)) repeat=20 do_check=1 do_bench=1 verbose=0 cases="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks_list=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --bench-n) bench_n=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --no-check) do_check=0; shift ;;
    --no-bench) do_bench=0; shift ;;
    --verbose) verbose=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "mpi_gpu.sh: unknown argument $1"; exit 2 ;;
  esac
done
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: mpicc/mpirun not found (apt-get install openmpi-bin libopenmpi-dev): MPI example not run"
  exit 0
fi
make -s build/mpi_reduce build/pclreduce-run || { echo "FAIL: build"; echo "0 passed, 1 failed"; exit 1; }
B=build/mpi_gpu
mkdir -p "$B"

# OpenMPI in a container: root needs consent, ranks may exceed the cores, and
# the shared-memory transport cannot use ptrace-based single copy. Its name is
# vader up to OpenMPI 4, sm from 5.
mpi_flags=()
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  btl=sm
  ompi_info 2>/dev/null | grep -q "MCA btl: vader" && btl=vader
  export "OMPI_MCA_btl_${btl}_single_copy_mechanism=none"
  mpi_flags+=(--oversubscribe --mca btl "self,$btl")
  [ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
fi
echo "mpirun: $(mpirun --version 2>&1 | head -1)"

if [ -z "$cases" ]; then
  for type in uint8 int8 uint16 int16 uint int uint64 int64 half float double; do
    for op in sum min max argmin argmax minmax stats count; do cases+=" $type:$op"; done
    cases+=" $type:sum:wide $type:stats:wide"
    case $type in half|float|double) cases+=" $type:sum:compensated $type:stats:compensated" ;; esac
  done
fi

passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

if [ "$do_check" = 1 ]; then
  k=0
  for c in $cases; do
    IFS=: read -r type op acc cn <<<"$c"
    acc=${acc:-native} cn=${cn:-$n}
    k=$((k + 1))
    s=$((seed + k))
    args=(--type "$type" --op "$op" --accumulate "$acc" --n "$cn" --seed "$s")
    cpu=$(build/pclreduce-run --backend cpu "${args[@]}" | sed -n 's/^result: //p')
    inexact=0
    { [ "$op" = stats ] || { [ "$op" = sum ] && case $type in half|float|double) true ;; *) false ;; esac; }; } && inexact=1
    for r in $ranks_list; do
      what="$type $op $acc n=$cn seed=$s ranks=$r"
      log="$B/${type}_${op}_${acc}_${cn}_$r.log"
      timeout 300 mpirun -np "$r" "${mpi_flags[@]}" build/mpi_reduce "${args[@]}" --check "${extra[@]}" >"$log" 2>&1
      rc=$?
      got=$(sed -n 's/^result: //p' "$log" | tail -1)
      ref=$(sed -n 's/^check: .*; reference \([^;)]*\).*/\1/p' "$log" | tail -1)
      if [ $rc -ne 0 ] || ! grep -q '^check: ok' "$log"; then
        fail "$what: exit $rc: $(grep -E '^check|mpi_reduce|rror' "$log" | head -3)"
      elif [ -z "$cpu" ] || [ "$ref" != "$cpu" ]; then
        fail "$what: reference '$ref' but pclreduce-run --backend cpu says '$cpu' (different data?)"
      elif [ "$got" != "$cpu" ] && [ $inexact = 0 ]; then
        fail "$what: result '$got', pclreduce-run --backend cpu '$cpu'"
      else
        pass
        [ "$verbose" = 1 ] && echo "ok: $what: $got"
        # the device each rank took, once per rank count
        [ "$k" = 1 ] && grep '^rank ' "$log"
      fi
    done
  done
  echo "checked: $passed runs ($(echo $cases | wc -w) cases x ranks $ranks_list), $failed failed"
fi

if [ "$do_bench" = 1 ]; then
  declare -A gbs
  for r in $ranks_list; do
    log="$B/bench_float_sum_${bench_n}_$r.log"
    timeout 300 mpirun -np "$r" "${mpi_flags[@]}" build/mpi_reduce --type float --op sum --n "$bench_n" --seed 1 \
      --time "$repeat" "${extra[@]}" >"$log" 2>&1
    rc=$?
    grep -E '^(rank|time|result)' "$log"
    g=$(sed -n 's/^time: .*median per rank (slowest rank) [0-9.]* ms, \([0-9.]*\) GB\/s.*/\1/p' "$log")
    if [ $rc -ne 0 ] || [ -z "$g" ]; then
      fail "bench float sum n=$bench_n ranks=$r: exit $rc: $(tail -3 "$log")"
    else
      pass
      gbs[$r]=$g
      echo "bench: float sum n=$bench_n ($((bench_n * 4)) bytes), $r rank(s): $g GB/s"
    fi
  done
  if [ -n "${gbs[1]:-}" ] && [ -n "${gbs[2]:-}" ]; then
    echo "bench: 2 ranks / 1 rank = $(awk -v a="${gbs[2]}" -v b="${gbs[1]}" 'BEGIN { printf "%.3f", a / b }')" \
         "(issue 20 asks >= 1.9 with one GPU per rank)"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
