#!/usr/bin/env bash
# Command-line tests of build/pclreduce-gen, build/pclreduce-run and build/pclreduce-tune.
set -u
cd "$(dirname "$0")/.."
GEN=build/pclreduce-gen RUN=build/pclreduce-run T=build/tests/tools
mkdir -p "$T"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

# pclreduce-gen: source, options, errors (exit 2 and a message naming the problem)
$GEN --backend opencl --type uint --op sum --unroll 8 >"$T/k.cl"; check "gen exit 0" [ $? = 0 ]
check "gen source names its config" grep -q "type=uint op=sum backend=opencl wave=32 group=256 unroll=8" "$T/k.cl"
check "gen options for collective" [ "$($GEN --backend opencl --type float --op max --variant collective --options)" = "-cl-std=CL2.0" ]
check "gen empty options line" [ "$($GEN --backend cuda --type float --op max --options | wc -c)" = 1 ]
check "gen --lang is an alias of --backend" cmp -s <($GEN --lang opencl --type uint --op sum --unroll 8) "$T/k.cl"
for args in "--backend opencl --type uint --op sum --wave 48" "--backend opencl --type uint --op sum --unroll 3" \
            "--backend opencl --type uint --op sum --group 2048" "--backend opencl --type half --op sum" \
            "--backend opencl --type uint" "--backend metal --type uint --op sum" "--backend cuda --type uint --op sum --variant collective" \
            "--backend opencl --type float --op sum --finish atomic" "--backend opencl --type uint --op sum --bogus 1" \
            "--backend opencl --type uint --op sum --unroll"; do
  $GEN $args >"$T/out" 2>"$T/err"; rc=$?
  check "gen '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "gen '$args' says why on stderr" test -s "$T/err"
  check "gen '$args' prints no source" test ! -s "$T/out"
done
grep -q "wave width must be 32 or 64" <($GEN --backend opencl --type uint --op sum --wave 48 2>&1); check "gen names the knob" [ $? = 0 ]

# pclreduce-run on the CPU: --input of a known array, --n with a seed
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<1000I', *range(1, 1001)))" >"$T/u32.bin"
check "run --input uint sum" [ "$($RUN --backend cpu --type uint --op sum --input "$T/u32.bin" | tail -1)" = "result: 500500" ]
check "run --input uint max" [ "$($RUN --backend cpu --type uint --op max --input "$T/u32.bin" | tail -1)" = "result: 1000" ]
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<4d', 0.5, -2.25, 1e300, 7.0))" >"$T/f64.bin"
check "run --input double max %.17g" [ "$($RUN --backend cpu --type double --op max --input "$T/f64.bin" | tail -1)" = "result: 1.0000000000000001e+300" ]
check "run --input double min" [ "$($RUN --backend cpu --type double --op min --input "$T/f64.bin" | tail -1)" = "result: -2.25" ]
check "run n=0 sum is 0" [ "$($RUN --backend cpu --type int --op sum --n 0 | tail -1)" = "result: 0" ]
check "run same seed, same data" [ "$($RUN --backend cpu --type int --op sum --n 9999 --seed 5 | tail -1)" = "$($RUN --backend cpu --type int --op sum --n 9999 --seed 5 | tail -1)" ]
check "run other seed, other data" [ "$($RUN --backend cpu --type int --op sum --n 9999 --seed 5 | tail -1)" != "$($RUN --backend cpu --type int --op sum --n 9999 --seed 6 | tail -1)" ]
for args in "--backend gpu --type uint --op sum --n 5" "--backend cpu --type uint --op sum" "--backend cpu --op sum --n 5" \
            "--backend cpu --type uint --op sum --n 5 --input $T/u32.bin" "--backend cpu --type uint --op sum --n -3" \
            "--backend cpu --type uint --op sum --n 5 --unroll 3" "--backend cpu --type uint --op sum --n 5 --device 4294967296" \
            "--backend cpu --type uint --op sum --n 5 --platform 4294967295"; do
  $RUN $args >"$T/out" 2>"$T/err"; rc=$?
  check "run '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "run '$args' says why" test -s "$T/err"
done
rm -f "$T/fifo"; mkfifo "$T/fifo"
for input in "$T/fifo" /dev/zero "$T"; do # a FIFO blocked forever; /dev/zero and a directory "reduced" 0 elements
  timeout 20 $RUN --backend cpu --type uint --op sum --input "$input" >"$T/out" 2>"$T/err"; rc=$?
  check "run --input $input is refused (rc $rc)" [ $rc = 1 ]
  check "run --input $input says it is not a regular file" grep -q "not a regular file" "$T/err"
done
$RUN --backend cpu --type uint --op sum --input "$T/missing.bin" >"$T/out" 2>"$T/err"; rc=$?
check "run missing input fails" [ $rc != 0 ]
check "run missing input says why" grep -q "cannot open" "$T/err"

# the OpenCL backend agrees with the CPU (exact for integers and min/max)
for t in uint int float double; do
  for o in sum min max; do
    n=$((100003 + ${#t} * 7))
    cpu=$($RUN --backend cpu --type $t --op $o --n $n --seed 11 | tail -1)
    cl=$($RUN --backend opencl --type $t --op $o --n $n --seed 11 2>"$T/err" | tail -1)
    if [ "$o" = sum ] && { [ $t = float ] || [ $t = double ]; }; then
      check "opencl $t sum close to cpu ($cl vs $cpu)" python3 -c "import sys; a=float('${cl#result: }'); b=float('${cpu#result: }'); sys.exit(abs(a-b) > 1e-4*max(1,abs(b)))"
    else
      check "opencl $t $o equals cpu ($cl vs $cpu)" [ "$cl" = "$cpu" ]
    fi
  done
done
$RUN --backend opencl --type uint --op sum --n 1000 -v >"$T/out" 2>&1
check "run -v shows the chosen path" grep -q "variant=" "$T/out"
$RUN --backend cuda --type uint --op sum --n 1000 >"$T/out" 2>"$T/err"; rc=$?
if nvidia-smi >/dev/null 2>&1; then
  check "cuda backend runs" [ $rc = 0 ]
else
  check "cuda without a driver fails cleanly (rc $rc)" [ $rc = 1 ]
  check "cuda without a driver says so" grep -Eqi "driver|device" "$T/err"
fi

# pclreduce-tune: one class on PoCL into a fresh file, read back; usage errors exit 2
TUNE=build/pclreduce-tune
rm -f "$T/tuning.txt"
$TUNE --backend opencl --types uint --ops max --max-n 4096 --file "$T/tuning.txt" >"$T/out" 2>&1; rc=$?
check "tune exit 0 (got $rc)" [ $rc = 0 ]
check "tune prints the winner" grep -Eq "^uint +max +2\^12 .*type=uint op=max" "$T/out"
check "tune writes one line for the class" [ "$(grep -c '^opencl ".*" ".*" uint max 12 ' "$T/tuning.txt")" = 1 ]
for args in "" "--backend metal" "--backend opencl --types half" "--backend opencl --max-n 12"; do
  $TUNE $args >"$T/out" 2>"$T/err"; rc=$?
  check "tune '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "tune '$args' says why" test -s "$T/err"
done

echo "test_tools: $passed passed, $failed failed"
[ $failed = 0 ]
