#!/usr/bin/env bash
# Command-line tests of build/pclreduce-gen, build/pclreduce-run and build/pclreduce-tune.
set -u
cd "$(dirname "$0")/.."
GEN=build/pclreduce-gen RUN=build/pclreduce-run T=build/tests/tools
mkdir -p "$T"
PCLR_KERNEL_NAME_RE='pclr_reduce *('
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
# PoCL builds take 4-12 s each: a plain run takes a different sample of the PoCL checks that
# repeat what test_opencl and test_vocab check on every type and op (PCLR_TEST_FULL=1: all of them)
seed=${PCLR_TEST_SEED:-$(date +%s)}
RANDOM=$seed
echo "test_tools: seed $seed (PCLR_TEST_SEED)"
sample() { [ "${PCLR_TEST_FULL:-0}" != 0 ] || [ $((RANDOM % $1)) = 0 ]; } # 1: full, or one run in $1
differ() { ! cmp -s <(grep -v 'accumulate=' "$1") <(grep -v 'accumulate=' "$2"); } # the kernel, not its header line

# pclreduce-gen: source, options, errors (exit 2 and a message naming the problem)
$GEN --backend opencl --type uint --op sum --unroll 8 >"$T/k.cl"; check "gen exit 0" [ $? = 0 ]
check "gen source names its config" grep -q "type=uint op=sum backend=opencl accumulate=native wave=32 group=256 unroll=8" "$T/k.cl"
check "gen options for collective" [ "$($GEN --backend opencl --type float --op max --variant collective --options)" = "-cl-std=CL2.0" ]
check "gen empty options line" [ "$($GEN --backend cuda --type float --op max --options | wc -c)" = 1 ]
check "gen --lang is an alias of --backend" cmp -s <($GEN --lang opencl --type uint --op sum --unroll 8) "$T/k.cl"
for args in "--backend opencl --type uint --op sum --wave 48" "--backend opencl --type uint --op sum --unroll 3" \
            "--backend opencl --type uint --op sum --group 2048" "--backend opencl --type quad --op sum" \
            "--backend opencl --type uint" "--backend metal --type uint --op sum" "--backend cuda --type uint --op sum --variant collective" \
            "--backend opencl --type float --op sum --finish atomic" "--backend opencl --type uint --op sum --bogus 1" \
            "--backend opencl --type uint --op sum --unroll" "--backend opencl --type float --op sum --accumulate kahan" \
            "--backend opencl --type int --op sum --accumulate compensated" "--backend opencl --type int --op stats --accumulate compensated" \
            "--backend opencl --type float --op sum --accumulate" "--backend opencl --type float --op median"; do
  $GEN $args >"$T/out" 2>"$T/err"; rc=$?
  check "gen '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "gen '$args' says why on stderr" test -s "$T/err"
  check "gen '$args' prints no source" test ! -s "$T/out"
done
grep -q "wave width must be 32 or 64" <($GEN --backend opencl --type uint --op sum --wave 48 2>&1); check "gen names the knob" [ $? = 0 ]

# the kernel sizes docs/kernels-and-tools.md states are the generator's (numbers in prose drift: they once said 136 and 128)
doc_ocl=$(grep -o "the default float sum is [0-9]* lines" docs/kernels-and-tools.md | grep -o "[0-9]*")
doc_cuda=$(grep -o "in OpenCL C and [0-9]* in CUDA C" docs/kernels-and-tools.md | grep -o "[0-9]*")
gen_ocl=$($GEN --backend opencl --type float --op sum | wc -l) gen_cuda=$($GEN --backend cuda --type float --op sum | wc -l)
check "docs: the default float sum is $doc_ocl lines of OpenCL C ($gen_ocl generated) and $doc_cuda of CUDA C ($gen_cuda)" \
  [ "$doc_ocl" = "$gen_ocl" ] && [ "$doc_cuda" = "$gen_cuda" ]

# pclreduce-gen: every type (and the NumPy spellings), every op, every accumulator (issue 14)
for t in uint8 int8 uint16 int16 uint int uint64 int64 half float double uint32 int32 float16 float32 float64; do
  for o in sum min max argmin argmax minmax stats count; do
    for b in opencl cuda; do
      $GEN --backend $b --type $t --op $o >"$T/k.src" 2>"$T/err"; rc=$?
      check "gen --backend $b --type $t --op $o exits 0 (got $rc: $(head -c 200 "$T/err"))" [ $rc = 0 ]
      check "gen --backend $b --type $t --op $o prints a kernel" grep -q "$PCLR_KERNEL_NAME_RE" "$T/k.src"
    done
  done
done
for b in opencl cuda; do
  for t in half float double; do
    $GEN --backend $b --type $t --op sum --accumulate native >"$T/native.src"
    $GEN --backend $b --type $t --op sum --accumulate wide >"$T/wide.src"; rc1=$?
    $GEN --backend $b --type $t --op stats --accumulate compensated >"$T/comp.src"; rc2=$?
    $GEN --backend $b --type $t --op sum --accumulate compensated >"$T/comp.src"; rc3=$?
    check "gen $b $t wide/compensated exit 0 ($rc1 $rc2 $rc3)" [ "$rc1$rc2$rc3" = 000 ]
    check "gen $b $t --accumulate compensated changes the kernel" differ "$T/native.src" "$T/comp.src"
    [ $t = double ] || check "gen $b $t --accumulate wide changes the kernel" differ "$T/native.src" "$T/wide.src"
  done
  $GEN --backend $b --type int8 --op sum --accumulate native >"$T/native.src"
  $GEN --backend $b --type int8 --op sum --accumulate wide >"$T/wide.src"
  check "gen $b int8 --accumulate wide changes the kernel" differ "$T/native.src" "$T/wide.src"
  $GEN --backend $b --type float --op sum --accumulate exact >"$T/exact.src"; rc1=$?
  check "gen $b float --accumulate exact prints the exact kernel ($rc1)" grep -q "accumulate exact" "$T/exact.src"
  $GEN --backend $b --type int --op sum --accumulate exact >"$T/exact.src" 2>"$T/err"; rc1=$?
  check "gen $b int --accumulate exact is refused with a reason ($rc1)" [ $rc1 = 2 ] && check "gen $b int exact says why" grep -q "exact" "$T/err"
done
check "gen usage names the accumulators" grep -q "accumulate native|wide|compensated" <($GEN --help)
check "gen usage names the new types and ops" grep -q "uint8.*half" <($GEN --help)
check "run usage names the accumulators and ops" grep -q "argmin|argmax|minmax|stats|count" <($RUN --help)

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
# --input - reads standard input to its end (a file or a pipe); /proc files (size 0, content there) are refused
check "run --input - from a file" [ "$($RUN --backend cpu --type uint --op sum --input - <"$T/u32.bin" | tail -1)" = "result: 500500" ]
check "run --input - from a pipe" [ "$(cat "$T/u32.bin" | $RUN --backend cpu --type uint --op sum --input - | tail -1)" = "result: 500500" ]
$RUN --backend cpu --type uint8 --op sum --input /proc/self/status >"$T/out" 2>"$T/err"; rc=$?
check "run --input /proc/self/status refused (rc $rc)" [ $rc = 1 ]
check "run --input /proc/... says why" grep -q "a /proc or /sys file" "$T/err"
# a result that cannot be written (a full disk) is a failure
$RUN --backend cpu --type uint --op sum --input "$T/u32.bin" >/dev/full 2>"$T/err"; rc=$?
check "run > /dev/full exits 1 (got $rc)" [ $rc = 1 ]
check "run > /dev/full says why" grep -q "cannot write the output" "$T/err"
$GEN --backend opencl --type uint --op sum >/dev/full 2>"$T/err"; rc=$?
check "gen > /dev/full exits 1 (got $rc)" [ $rc = 1 ]
check "gen > /dev/full says why" grep -q "cannot write the output" "$T/err"
$RUN --backend cpu --type uint --op sum --input "$T/missing.bin" >"$T/out" 2>"$T/err"; rc=$?
check "run missing input fails" [ $rc != 0 ]
check "run missing input says why" grep -q "cannot open" "$T/err"

# red team round 3 (issue 30): sizes that wrap, --segments and --input2 through the one file reader, --help on a
# full disk, --param values, --output without a layout
$RUN --backend cpu --type float --op argmin --n 0 --rows 1152921504606846977 --cols 0 >"$T/out" 2>"$T/err"; rc=$?
check "run: 2^60 + 1 rows of argmin results (wrapped to 16 bytes, a heap overflow) refused with exit 2 (got $rc)" [ $rc = 2 ]
check "run: ... says the results overflow" grep -q "results .*overflow" "$T/err"
$RUN --backend cpu --type double --op stats --n 0 --rows 4611686018427387904 --cols 0 >"$T/out" 2>"$T/err"; rc=$?
check "run: 2^62 rows of stats refused (got $rc)" [ $rc = 2 ]
check "run: 5 empty rows of argmin reduce (got $(tail -1 "$T/out"))" [ "$($RUN --backend cpu --type float --op argmin --n 0 --rows 5 --cols 0 | tail -1)" = "result[4]: inf at 18446744073709551615" ]
for seg in "$T/fifo" /dev/zero "$T"; do # --segments /dev/zero read until memory ran out; a FIFO blocked
  timeout 20 $RUN --backend cpu --type uint --op sum --input "$T/u32.bin" --segments "$seg" >"$T/out" 2>"$T/err"; rc=$?
  check "run --segments $seg is refused (rc $rc)" [ $rc = 1 ]
  check "run --segments $seg says it is not a regular file" grep -q "not a regular file" "$T/err"
done
timeout 20 $RUN --backend cpu --type float --op sum --map 'x * y' --input "$T/u32.bin" --input2 "$T/fifo" >"$T/out" 2>"$T/err"; rc=$?
check "run --input2 FIFO is refused (rc $rc)" [ $rc = 1 ]
timeout 20 $RUN --backend cpu --type uint --op sum --input "$T/u32.bin" --segments /proc/self/status >"$T/out" 2>"$T/err"; rc=$?
check "run --segments /proc/self/status refused (rc $rc)" [ $rc = 1 ] && check "... says why" grep -q "a /proc or /sys file" "$T/err"
for tool in "$RUN" "$GEN" build/pclreduce-tune; do
  $tool --help >/dev/full 2>"$T/err"; rc=$?
  check "$tool --help > /dev/full exits 1 (got $rc)" [ $rc = 1 ]
  check "$tool --help > /dev/full says why" grep -q "cannot write the output" "$T/err"
done
check "run --param t=1e-310 (a subnormal) is a number" [ "$($RUN --backend cpu --type double --op max --n 3 --map 't' --param double:t=1e-310 | tail -1)" = "result: 9.9999999999999694e-311" ]
$RUN --backend cpu --type double --op max --n 3 --map 't' --param t=1e999 >"$T/out" 2>"$T/err"; rc=$?
check "run --param t=1e999 refused (got $rc)" [ $rc = 2 ] && check "... as beyond a double's range" grep -q "range" "$T/err"
check "run --param t=2147483649 without a type is a long (was a float: 2147483648)" \
  [ "$($RUN --backend cpu --type int64 --op max --n 3 --map 't' --param t=2147483649 | tail -1)" = "result: 2147483649" ]
check "run --param t=-2147483649 without a type is a long" \
  [ "$($RUN --backend cpu --type int64 --op min --n 3 --map 't' --param t=-2147483649 | tail -1)" = "result: -2147483649" ]
$RUN --backend cpu --type int64 --op max --n 3 --map 't' --param long:t=9007199254740993 >"$T/out" 2>"$T/err"; rc=$?
check "run --param beyond 2^53 refused (got $rc)" [ $rc = 2 ] && check "... saying why" grep -q "2^53" "$T/err"
rm -f "$T/one.out"
$RUN --backend cpu --type uint --op sum --input "$T/u32.bin" --output "$T/one.out" >/dev/null
check "run --output without a layout writes the one result (was ignored)" [ "$(od -An -tu4 "$T/one.out" | tr -d ' ')" = 500500 ]

# every result line format (issue 14), on the CPU and on PoCL, from inputs written here
py() { python3 -c "import struct,sys; sys.stdout.buffer.write($1)" >"$2"; }
py "bytes([3, 200, 7, 200, 0])" "$T/u8.bin"
py "struct.pack('<3b', -128, -128, -128)" "$T/i8.bin"
py "struct.pack('<3h', 5, -32768, -32768)" "$T/i16.bin"
py "struct.pack('<2H', 65535, 7)" "$T/u16.bin"
py "struct.pack('<2Q', 2**64 - 1, 2)" "$T/u64.bin"
py "struct.pack('<2q', -2**63, 5)" "$T/i64.bin"
py "struct.pack('<2I', 2**32 - 1, 2)" "$T/u32big.bin"
py "struct.pack('<10i', *range(1, 11))" "$T/i32ten.bin"
py "struct.pack('<10f', *range(1, 11))" "$T/f32ten.bin"
py "struct.pack('<10d', *range(1, 11))" "$T/f64ten.bin"
py "struct.pack('<10e', *range(1, 11))" "$T/f16ten.bin"
py "struct.pack('<3e', 1.5, -2, 0.25)" "$T/f16.bin"
py "struct.pack('<4f', 1, float('nan'), 5, float('nan'))" "$T/f32nan.bin"
py "struct.pack('<5f', 0.0, -0.0, float('nan'), 1, 0)" "$T/f32count.bin"
py "struct.pack('<4f', 1, 1e8, 1, -1e8)" "$T/f32comp.bin"
py "struct.pack('<9f', *[1e8, 1, -1e8] * 3)" "$T/f32exact.bin"
py "struct.pack('<4d', 1, 2.0**-53, 1.7976931348623157e308, -1.7976931348623157e308)" "$T/f64exact.bin"
expect_line() { # backend, expected last line (extended regex, anchored), run arguments...
  local b=$1 want=$2 got; shift 2
  got=$($RUN --backend $b "$@" 2>"$T/err" | tail -1)
  check "run --backend $b $* prints '$want' (got '$got' $(head -c 300 "$T/err"))" grep -Eqx "$want" <<<"$got"
}
# (each line on the CPU; the ones marked "both" on PoCL as well: a PoCL build takes 4-12 s, so one
# per result format and accumulator)
expect_both() { expect_line cpu "$@"; if sample 3; then expect_line opencl "$@"; fi; }
expect_both "result: 200 at 1" --type uint8 --op argmax --input "$T/u8.bin"
expect_line cpu "result: 0 at 4" --type uint8 --op argmin --input "$T/u8.bin"
expect_line cpu "result: min=0 max=200" --type uint8 --op minmax --input "$T/u8.bin"
expect_line cpu "result: 4" --type uint8 --op count --input "$T/u8.bin"
expect_line cpu "result: 410" --type uint8 --op sum --input "$T/u8.bin"
expect_line cpu "result: -384" --type int8 --op sum --input "$T/i8.bin"
expect_line cpu "result: -384" --type int8 --op sum --accumulate wide --input "$T/i8.bin"
expect_line cpu "result: -32768 at 1" --type int16 --op argmin --input "$T/i16.bin"
expect_line cpu "result: 65535 at 0" --type uint16 --op argmax --input "$T/u16.bin"
expect_line cpu "result: 1" --type uint64 --op sum --input "$T/u64.bin"
expect_line cpu "result: 18446744073709551615" --type uint64 --op max --input "$T/u64.bin"
expect_line cpu "result: -9223372036854775808" --type int64 --op min --input "$T/i64.bin"
expect_both "result: min=-9223372036854775808 max=5" --type int64 --op minmax --input "$T/i64.bin"
expect_line cpu "result: 1" --type uint32 --op sum --input "$T/u32big.bin"
expect_both "result: 4294967297" --type uint --op sum --accumulate wide --input "$T/u32big.bin"
expect_line cpu "result: 4294967297" --type uint --op sum --accumulate native --accumulate wide --input "$T/u32big.bin"
expect_both "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type int --op stats --input "$T/i32ten.bin"
expect_line cpu "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type int32 --op stats --accumulate wide --input "$T/i32ten.bin"
expect_both "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type float --op stats --input "$T/f32ten.bin"
expect_line cpu "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type float32 --op stats --accumulate compensated --input "$T/f32ten.bin"
expect_line cpu "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type float64 --op stats --input "$T/f64ten.bin"
expect_line cpu "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type half --op stats --input "$T/f16ten.bin"
expect_line cpu "result: 10 at 9" --type float16 --op argmax --input "$T/f16ten.bin"
expect_both "result: -0.25" --type half --op sum --input "$T/f16.bin"
expect_line cpu "result: -0.25" --type half --op sum --accumulate wide --input "$T/f16.bin"
expect_line cpu "result: min=-2 max=1.5" --type half --op minmax --input "$T/f16.bin"
# signed zeros, one rule everywhere: min -0, max +0 when zeros of both signs tie
py "struct.pack('<3f', 0.0, -0.0, 0.0)" "$T/f32zeros.bin"
py "struct.pack('<3d', -0.0, 0.0, -0.0)" "$T/f64zeros.bin"
expect_both "result: -0" --type float --op min --input "$T/f32zeros.bin"
expect_both "result: 0" --type float --op max --input "$T/f32zeros.bin"
expect_both "result: min=-0 max=0" --type float --op minmax --input "$T/f32zeros.bin"
expect_line cpu "result: -0" --type double --op min --input "$T/f64zeros.bin"
expect_line cpu "result: 0" --type double --op max --input "$T/f64zeros.bin"
expect_both "result: -?nan at 1" --type float --op argmax --input "$T/f32nan.bin"
expect_line cpu "result: -?nan at 1" --type float --op argmin --input "$T/f32nan.bin"
expect_both "result: 2" --type float --op count --input "$T/f32count.bin"
expect_both "result: 2" --type float --op sum --accumulate compensated --input "$T/f32comp.bin"
expect_both "result: 3" --type float --op sum --accumulate exact --input "$T/f32exact.bin"
expect_line cpu "result: 1" --type double --op sum --accumulate exact --input "$T/f64exact.bin"
expect_line cpu "result: min=-2.25 max=1.0000000000000001e\\+300" --type double --op minmax --input "$T/f64.bin"
expect_line cpu "result: 1.0000000000000001e\\+300 at 2" --type double --op argmax --input "$T/f64.bin"
expect_line cpu "result: -2.25 at 1" --type double --op argmin --input "$T/f64.bin"
expect_line cpu "result: 0 at 18446744073709551615" --type uint8 --op argmax --n 0
expect_line cpu "result: count=0 sum=0 min=[^ ]+ max=[^ ]+ mean=-?nan var=-?nan" --type float --op stats --n 0
# --n/--seed for every type: deterministic, and the same on PoCL as on the CPU (exact where it must be)
for t in uint8 int8 uint16 int16 uint64 int64 half; do
  a=$($RUN --backend cpu --type $t --op argmax --n 100003 --seed 3 | tail -1)
  check "run $t argmax --n/--seed is deterministic" [ "$a" = "$($RUN --backend cpu --type $t --op argmax --n 100003 --seed 3 | tail -1)" ]
  check "run $t argmax line format ($a)" grep -Eqx "result: -?[0-9.e+-]+ at [0-9]+" <<<"$a"
  case $t in uint8) ops="argmin sum" ;; int16) ops=minmax ;; uint64) ops=count ;; int64) ops=argmax ;; half) ops="sum argmin" ;; *) ops="" ;; esac
  for o in $ops; do # on PoCL: one or two ops per type (builds are slow there), a third of them per run
    sample 3 || continue
    cpu=$($RUN --backend cpu --type $t --op $o --n 100003 --seed 3 | tail -1)
    cl=$($RUN --backend opencl --type $t --op $o --n 100003 --seed 3 2>"$T/err" | tail -1)
    if [ $t = half ] && [ $o = sum ]; then
      check "opencl half sum close to cpu ($cl vs $cpu)" python3 -c "import sys; a=float('${cl#result: }'); b=float('${cpu#result: }'); sys.exit(abs(a-b) > 1e-3*max(1,abs(b)))"
    else
      check "opencl $t $o equals cpu ($cl vs $cpu)" [ "$cl" = "$cpu" ]
    fi
  done
done
check "run prints the accumulator" grep -q "accumulate wide" <($RUN --backend cpu --type float --op sum --accumulate wide --n 10)
cpu=$($RUN --backend cpu --type float --op sum --accumulate exact --n 100003 --seed 5 | tail -1)
cl=$($RUN --backend opencl --type float --op sum --accumulate exact --n 100003 --seed 5 2>"$T/err" | tail -1)
check "opencl float exact sum equals the cpu's, bit for bit ($cl vs $cpu)" [ "$cl" = "$cpu" ]
for args in "--backend cpu --type float --op sum --n 5 --accumulate kahan" "--backend cpu --type int --op sum --n 5 --accumulate compensated" \
            "--backend cpu --type uint8 --op stats --n 5 --accumulate compensated" "--backend cpu --type float --op sum --n 5 --accumulate" \
            "--backend cpu --type float --op median --n 5" "--backend cpu --type float128 --op sum --n 5" \
            "--backend cpu --type int --op sum --n 5 --accumulate exact" "--backend cpu --type float --op stats --n 5 --accumulate exact"; do
  $RUN $args >"$T/out" 2>"$T/err"; rc=$?
  check "run '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "run '$args' says why" test -s "$T/err"
done

# the OpenCL backend agrees with the CPU (exact for integers and min/max)
for t in uint int float double; do
  for o in sum min max; do
    sample 4 || continue
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
check "run -v: a knob given is 'flag', the rest 'default' without a tuning file" \
  grep -q "^  unroll  *8  *flag$" <($RUN --backend opencl --type uint --op sum --n 1000 --unroll 8 -v 2>&1)
check "run -v: untouched knobs are 'default'" grep -Eq "^  group +[0-9]+ +default$" "$T/out"
$RUN --backend cuda --type uint --op sum --n 1000 >"$T/out" 2>"$T/err"; rc=$?
if nvidia-smi >/dev/null 2>&1; then
  check "cuda backend runs" [ $rc = 0 ]
else
  check "cuda without a driver fails cleanly (rc $rc)" [ $rc = 1 ]
  check "cuda without a driver says so" grep -Eqi "driver|device" "$T/err"
fi

# op histogram (issue 34): --bins B --range LO,HI [--clamp]; "results: B", the out-of-range counts, the first and last
# bins; --output writes the B counts as uint64, which python counts again here
python3 -c "
import struct, random
random.seed($seed)
v = [random.uniform(-1.5, 1.5) for _ in range(100003)] + [float('nan'), float('inf'), -1.0, 1.0]
open('$T/hist.bin', 'wb').write(struct.pack('<%df' % len(v), *v))
c = [0] * 20; under = over = nan = 0
for x in struct.unpack('<%df' % len(v), open('$T/hist.bin', 'rb').read()):
    if x != x: nan += 1
    elif x < -1: under += 1
    elif x >= 1: over += 1
    else: c[min(19, int((x + 1) * 10))] += 1
print(' '.join(map(str, c)), under, over, nan)" >"$T/hist.want"
for b in cpu opencl; do
  [ $b = opencl ] && ! sample 2 && continue
  $RUN --backend $b --type float --op histogram --bins 20 --range -1,1 --input "$T/hist.bin" --output "$T/hist.$b" >"$T/hist.out" 2>"$T/err"
  got="$(python3 -c "import struct; print(' '.join(map(str, struct.unpack('<20Q', open('$T/hist.$b', 'rb').read()))))" 2>/dev/null) \
$(sed -n 's/^underflow: \([0-9]*\) overflow: \([0-9]*\) nan: \([0-9]*\)$/\1 \2 \3/p' "$T/hist.out")"
  check "run --backend $b --op histogram: the counts python counts ($(head -c 300 "$T/err"))" [ "$got" = "$(cat "$T/hist.want")" ]
  check "run --backend $b --op histogram prints results: 20" grep -qx "results: 20" "$T/hist.out"
done
$RUN --backend cpu --type float --op histogram --bins 20 --n 10 >"$T/out" 2>"$T/err"; rc=$?
check "run --op histogram without --range exits 2 and says so" [ $rc = 2 ] && grep -q "needs --range" "$T/err"
$RUN --backend cpu --type float --op histogram --bins 20 --range 1,1 --n 10 >"$T/out" 2>"$T/err"; rc=$?
check "run --op histogram --range 1,1 fails and says why ($(cat "$T/err"))" [ $rc = 1 ] && grep -q "lo < hi" "$T/err"
check "gen --op histogram --bins 64 writes a kernel" grep -q "PCLR_BINS 64u" <($GEN --backend cuda --type float --op histogram --bins 64)
# --weighted --input2 W --type2 float: each bin's exact sum of W rounded once, against python's exact rational sums
python3 -c "
import struct, random
from fractions import Fraction
random.seed($seed + 1)
w = [random.choice([-1, 1]) * random.random() * 2.0 ** random.randint(-149, 100) for _ in range(30011)]
w = list(struct.unpack('<%df' % len(w), struct.pack('<%df' % len(w), *w)))
x = list(struct.unpack('<%df' % len(w), open('$T/hist.bin', 'rb').read()[:4 * len(w)]))
open('$T/w.bin', 'wb').write(struct.pack('<%df' % len(w), *w))
s = [Fraction(0)] * 23
for v, y in zip(x, w):
    k = 22 if v != v else 20 if v < -1 else 21 if v >= 1 else min(19, int((v + 1) * 10))
    s[k] += Fraction(y)
print(' '.join(repr(float(t)) for t in s))" >"$T/wsum.want"
head -c $((4 * 30011)) "$T/hist.bin" >"$T/hist30011.bin"
for b in cpu opencl; do
  [ $b = opencl ] && ! sample 2 && continue
  $RUN --backend $b --type float --op histogram --bins 20 --range -1,1 --weighted --input "$T/hist30011.bin" --input2 "$T/w.bin" --type2 float \
    --output "$T/wsum.$b" >"$T/hist.out" 2>"$T/err"
  got="$(python3 -c "import struct; print(' '.join(repr(v) for v in struct.unpack('<20Q23d', open('$T/wsum.$b', 'rb').read())[20:]))" 2>/dev/null)"
  check "run --backend $b --op histogram --weighted: python's exact sums ($(head -c 300 "$T/err"))" [ "$got" = "$(cat "$T/wsum.want")" ]
done

# op custom (issue 33): --reduce TEXT, a reduction of one's own; results "V1 V2 ..." in their types
LSE='state m: float = -inf, s: float = 0
lift  m = x, s = 1
merge m = max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m)
result m + log(s)'
FUSED='state s: long = 0, q: long = 0, n: ulong = 0; lift s = x, q = long(x) * x, n = 1; merge s = a.s + b.s, q = a.q + b.q, n = a.n + b.n; result s, q, n, double(s) / n'
FIRST='state k: ulong = ULONG_MAX; lift k = x > t ? i : ULONG_MAX; merge k = a.k != ULONG_MAX ? a.k : b.k; result k'
py "struct.pack('<7f', 3.5, -1, 88, 87.5, 0.25, -20, 88)" "$T/f32lse.bin"
want_lse0=$(python3 -c "import math,struct; x=struct.unpack('<7f', open('$T/f32lse.bin','rb').read()); m=max(x); print(repr(m + math.log(sum(math.exp(v - m) for v in x))))")
close_to() { python3 -c "import sys; a=float(sys.argv[1]); b=float(sys.argv[2]); sys.exit(not abs(a-b) <= float(sys.argv[3])*max(1,abs(b)))" "$@"; }
for b in cpu opencl; do
  got=$($RUN --backend $b --type float --reduce "$LSE" --input "$T/f32lse.bin" 2>"$T/err" | tail -1)
  check "run --backend $b --reduce log-sum-exp ($got, python $want_lse0 $(head -c 300 "$T/err"))" close_to "${got#result: }" "$want_lse0" 1e-6
done
check "run --reduce prints the description on its header line" grep -q "op custom, reduce state m: float = -inf, s: float = 0; lift  m = x, s = 1; merge" \
  <($RUN --backend cpu --type float --reduce "$LSE" --input "$T/f32lse.bin")
check "run --reduce --op custom is the same" [ "$($RUN --backend cpu --type float --op custom --reduce "$LSE" --input "$T/f32lse.bin" | tail -1)" = "$($RUN --backend cpu --type float --reduce "$LSE" --input "$T/f32lse.bin" | tail -1)" ]
expect_line cpu "result: -inf" --type float --reduce "$LSE" --n 0
# generated data (--n/--seed: pclr_args_fill_random's floats, rebuilt here) against log-sum-exp in double
want_lse=$(python3 -c "
import math, struct
M, g = 2**64 - 1, 0x9e3779b97f4a7c15
st, x = (3 * g + 1) & M, []
for _ in range(100003):
    st = (st + g) & M
    z = ((st ^ (st >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    z ^= z >> 31
    x.append(struct.unpack('<f', struct.pack('<f', (z >> 40) / 8388608.0 - 1.0))[0])
m = max(x)
print(repr(m + math.log(sum(math.exp(v - m) for v in x))))")
for b in cpu opencl; do
  got=$($RUN --backend $b --type float --reduce "$LSE" --n 100003 --seed 3 2>"$T/err" | tail -1)
  check "run --backend $b --reduce log-sum-exp of 100003 generated elements ($got, python $want_lse $(head -c 300 "$T/err"))" close_to "${got#result: }" "$want_lse" 1e-5
done
expect_both "result: 55 385 10 5.5" --type int --reduce "$FUSED" --input "$T/i32ten.bin"
expect_line cpu "result: 0 0 0 -?nan" --type int --reduce "$FUSED" --n 0
expect_line cpu "result: 4" --type float --reduce "$FIRST" --param float:t=4.5 --input "$T/f32ten.bin"
$RUN --backend opencl --type float --reduce "$FIRST" --param float:t=4.5 --input "$T/f32ten.bin" --stride global -v > "$T/v.txt" 2>&1
check "run -v names the knobs an order-keeping merge set (stride global asked: local, order)" grep -Eq "^  stride +local +order$" "$T/v.txt"
check "run -v: ... and the variant (naive, order)" grep -Eq "^  variant +naive +order$" "$T/v.txt"
expect_line cpu "result: 18446744073709551615" --type float --reduce "$FIRST" --param float:t=100 --input "$T/f32ten.bin"
expect_line cpu "result: 385" --type float --reduce 'state d: double = 0; lift d = double(x) * y; merge d = a.d + b.d; result d' \
  --input "$T/f32ten.bin" --input2 "$T/f32ten.bin"
expect_line cpu "result: 2.5 385" --type float --type2 int --reduce 'state d: double = 0; lift d = double(x) * y; merge d = a.d + b.d; result d / 154, d' \
  --input "$T/f32ten.bin" --input2 "$T/i32ten.bin"
expect_line cpu "result: 25 30" --type float --components 2 --reduce 'state r: float = 0, g: float = 0; lift r = x.r, g = x.g; merge r = a.r + b.r, g = a.g + b.g; result r, g' \
  --input "$T/f32ten.bin"
# merge's a is the earlier elements' state, b the later ones': order-sensitive merges (the first index above t, the last
# value and its index) on PoCL's global and local strides and on Vulkan, against the answer (1587, -0.919386625 at
# 1000002: python3 over the same generated floats), on data long enough for many work-items and groups
ORDER='state k: ulong = ULONG_MAX, v: float = 0, j: ulong = ULONG_MAX; lift k = x > t ? i : ULONG_MAX, v = x, j = i;
merge k = a.k != ULONG_MAX ? a.k : b.k, v = b.j != ULONG_MAX ? b.v : a.v, j = b.j != ULONG_MAX ? b.j : a.j; result k, v, j'
expect_line cpu "result: 1587 -0.919386625 1000002" --type float --reduce "$ORDER" --param float:t=0.999 --n 1000003 --seed 3
for s in global local; do # (local: half the runs; a PoCL build takes 4-12 s)
  [ $s = global ] || sample 2 || continue
  expect_line opencl "result: 1587 -0.919386625 1000002" --stride $s --type float --reduce "$ORDER" --param float:t=0.999 --n 1000003 --seed 3
done
# layouts: one line per row as for the other ops (the first and the last)
$RUN --backend cpu --type int --reduce "$FUSED" --input "$T/i32ten.bin" --rows 2 --cols 5 >"$T/out" 2>&1
check "run --reduce --rows 2 --cols 5: row 0 ($(tail -3 "$T/out" | tr '\n' '|'))" grep -qx "result\[0\]: 15 55 5 3" "$T/out"
check "run --reduce --rows 2 --cols 5: row 1" grep -qx "result\[1\]: 40 330 5 8" "$T/out"
$RUN --backend cpu --type int --reduce "$FUSED" --input "$T/i32ten.bin" --rows 2 --cols 5 --axis col >"$T/out" 2>&1
check "run --reduce --axis col: 5 results, column 4 is 5 + 10 ($(tail -1 "$T/out"))" grep -qx "result\[4\]: 15 125 2 7.5" "$T/out"
py "struct.pack('<4Q', 0, 3, 3, 10)" "$T/seg3.bin"
$RUN --backend cpu --type int --reduce "$FUSED" --input "$T/i32ten.bin" --segments "$T/seg3.bin" --output "$T/seg3.out" >"$T/out" 2>&1
check "run --reduce --segments: 3 results, the empty one's identity and the last ($(tail -2 "$T/out" | tr '\n' '|'))" \
  grep -qx "result\[2\]: 49 371 7 7" "$T/out"
check "run --reduce --output writes 3 pclr_custom_result (200 bytes each)" [ "$(wc -c <"$T/seg3.out")" = 600 ]
if sample 2; then
  expect_line opencl "result\[1\]: 40 330 5 8" --type int --reduce "$FUSED" --input "$T/i32ten.bin" --rows 2 --cols 5
fi
# refusals: exit 2 and the sentence (pclr_map_check's for a description)
$RUN --backend cpu --type float --reduce 'state m: float = 1; lift m = x; merge m = max(a.m, b.m); result m' --n 5 >"$T/out" 2>"$T/err"; rc=$?
check "run --reduce with an identity not neutral exits 2 (got $rc)" [ $rc = 2 ]
check "run --reduce ... prints the counterexample ($(cat "$T/err"))" \
  grep -Eqx "pclreduce-run: reduce: the identity is not neutral for merge: for s = \{m: [-0-9.e]+\}, merge\(identity, s\) = \{m: 1\}" "$T/err"
check "run --reduce ... prints no result" test ! -s "$T/out"
$RUN --backend cpu --type int --reduce 'state m: int = 0; lift m = x & 255; merge m = a.m == 0 ? b.m : b.m == 0 ? a.m : a.m * 2 + b.m; result m' --n 5 >"$T/out" 2>"$T/err"; rc=$?
check "run --reduce, an integer merge not associative: exit 2 (got $rc)" [ $rc = 2 ]
check "run --reduce ... says so with p, q, r ($(cat "$T/err"))" grep -q "^pclreduce-run: reduce: an integer merge must be associative: for p = {m: " "$T/err"
$RUN --backend cpu --type float --reduce 'state m: float = 0
lift m = x
merge m = a.m +* b.m
result m' --n 5 >"$T/out" 2>"$T/err"; rc=$?
check "run --reduce, a syntax error: exit 2 (got $rc)" [ $rc = 2 ]
check "run --reduce ... names its line and column ($(cat "$T/err"))" grep -q "^pclreduce-run: reduce, line 3, column [0-9]*: " "$T/err"
for args in "--op sum --reduce state" "--op argminmax --reduce state" "--op custom" "--map x --reduce state" "--reduce ''"; do
  eval "\$RUN --backend cpu --type float --n 5 $args" >"$T/out" 2>"$T/err"; rc=$?
  check "run $args exits 2 (got $rc)" [ $rc = 2 ]
  check "run $args says why ($(cat "$T/err"))" grep -Eq "op custom|--reduce" "$T/err"
done
check "run --op sum --reduce: the sentence" grep -q "reduce describes a reduction of op custom: leave --op out (or give --op custom), not --op sum" \
  <($RUN --backend cpu --type float --n 5 --reduce "$LSE" --op sum 2>&1)
check "run usage names --reduce" grep -q "\-\-reduce 'state" <($RUN --help)
check "gen usage names --reduce" grep -q "\-\-reduce 'state" <($GEN --help)
# pclreduce-gen --reduce: the kernel of the description, its merge and lift written out
for b in opencl cuda vulkan; do
  $GEN --backend $b --type float --reduce "$LSE" >"$T/k.src" 2>"$T/err"; rc=$?
  check "gen --backend $b --reduce exits 0 (got $rc: $(head -c 300 "$T/err"))" [ $rc = 0 ]
  check "gen --backend $b --reduce names op custom and the description" grep -q "op=custom .*reduce=\"state m: float = -inf" "$T/k.src"
  check "gen --backend $b --reduce writes the merge" grep -q "pclr_merge(" "$T/k.src"
  check "gen --backend $b --reduce writes the merge's exp(a.m - m)" grep -Eq "expf?\(\(?a\.f_m - [a-z_]+\.f_m\)?\)" "$T/k.src"
  check "gen --backend $b --reduce writes the lift (s = 1)" grep -q "f_s = " "$T/k.src"
done
check "gen --op custom --reduce is --reduce" cmp -s <($GEN --backend opencl --type float --op custom --reduce "$LSE") <($GEN --backend opencl --type float --reduce "$LSE")
$GEN --backend opencl --type float --op sum --reduce "$LSE" >"$T/out" 2>"$T/err"; rc=$?
check "gen --op sum --reduce exits 2 (got $rc)" [ $rc = 2 ] && check "gen --op sum --reduce says why" grep -q "op custom" "$T/err"
$GEN --backend cuda --type float --reduce 'state m: float = 1; lift m = x; merge m = max(a.m, b.m); result m' >"$T/out" 2>"$T/err"; rc=$?
check "gen --reduce, identity not neutral: exit 2 (got $rc)" [ $rc = 2 ]
check "gen --reduce ... prints the counterexample" grep -q "^pclreduce-gen: reduce: the identity is not neutral for merge" "$T/err"
check "gen --reduce ... prints no source" test ! -s "$T/out"

# pclreduce-tune: one class on PoCL into a fresh file, read back; usage errors exit 2
TUNE=build/pclreduce-tune
rm -f "$T/tuning.txt"
$TUNE --backend opencl --types uint --ops max --max-n 4096 --file "$T/tuning.txt" >"$T/out" 2>&1; rc=$?
check "tune exit 0 (got $rc)" [ $rc = 0 ]
check "tune prints the winner" grep -Eq "^uint +max +2\^12 .*type=uint op=max" "$T/out"
check "tune writes one line for the class" [ "$(grep -c '^opencl ".*" ".*" uint max 12 ' "$T/tuning.txt")" = 1 ]
# -v with that file: the knobs left out come from it ('tuned'), the ones given are 'flag'
PCLR_TUNE_FILE="$T/tuning.txt" $RUN --backend opencl --type uint --op max --n 1000 --unroll 8 -v >"$T/out" 2>&1
check "run -v: tuned knobs say 'tuned'" grep -Eq "^  group +[0-9]+ +tuned$" "$T/out"
check "run -v: a flag over a tuned knob says 'flag'" grep -q "^  unroll  *8  *flag$" "$T/out"
check "run -v: accumulate is never tuned" grep -q "^  accumulate  *native  *default$" "$T/out"
# a file that is not a tuning file (the issue's binary) is refused before the sweep, untouched, mode kept
cp "$(type -P true)" "$T/binary"; chmod 755 "$T/binary"
$TUNE --backend opencl --types uint --ops max --max-n 4096 --file "$T/binary" >"$T/out" 2>"$T/err"; rc=$?
check "tune --file over a binary exits 1 (got $rc)" [ $rc = 1 ]
check "tune --file over a binary says why" grep -q "not a tuning file" "$T/err"
check "tune leaves the binary as it was" cmp -s "$(type -P true)" "$T/binary"
check "tune keeps the binary's mode" [ "$(stat -c %a "$T/binary")" = 755 ]
# a layout: one entry for its shape class and size (half the runs: a PoCL sweep takes ~25 s), used by run -v
if sample 2; then
  $TUNE --backend opencl --types float --ops sum --rows 3000 --cols 40 --file "$T/tuning.txt" >"$T/out" 2>&1; rc=$?
  check "tune --rows --cols exit 0 (got $rc)" [ $rc = 0 ]
  check "tune --rows --cols prints the shape's winner" grep -Eq "^float +sum +rows_short:2\^20 .*layout=rows" "$T/out"
  check "tune --rows --cols writes one rows_short line" [ "$(grep -c '^opencl ".*" ".*" float sum rows_short:20 ' "$T/tuning.txt")" = 1 ]
  check "tune --rows --cols keeps the other entries" [ "$(grep -c '^opencl ".*" ".*" uint max 12 ' "$T/tuning.txt")" = 1 ]
  PCLR_TUNE_FILE="$T/tuning.txt" $RUN --backend opencl --type float --op sum --rows 2500 --cols 40 --n 100000 -v >"$T/out" 2>&1
  check "run -v: a layout of the class takes the entry" grep -Eq "^  group +[0-9]+ +tuned$" "$T/out"
  check "run -v: names the shape class" grep -q "entry for rows_short shapes of <= 2^20 elements" "$T/out"
  PCLR_TUNE_FILE="$T/tuning.txt" $RUN --backend opencl --type float --op sum --n 100000 -v >"$T/out" 2>&1
  check "run -v: one array does not take the shape's entry" grep -Eq "^  group +[0-9]+ +default$" "$T/out"
fi
for args in "" "--backend metal" "--backend opencl --types quad" "--backend opencl --max-n 12" \
            "--backend opencl --device 4294967296" "--backend opencl --device 4294967295" "--backend opencl --platform -1" \
            "--backend opencl --rows 5" "--backend opencl --cols 5" "--backend opencl --axis col" "--backend opencl --rows 5 --cols 5 --axis diagonal" \
            "--backend opencl --rows 1048576 --cols 1048576" "--backend opencl --rows 0 --cols 5"; do
  $TUNE $args >"$T/out" 2>"$T/err"; rc=$?
  check "tune '$args' exits 2 (got $rc)" [ $rc = 2 ]
  check "tune '$args' says why" test -s "$T/err"
done

# Vulkan (pclreduce_vk.h) through the tools: where a Vulkan device and a shaderc that loads are here (lavapipe in
# CI; tests/shaderc.sh finds one: on Debian 12 build/libshaderc_shared.so, which `make` builds and the tools load
# from beside themselves without PCLR_SHADERC_LIBRARY), else "skip: ..."
VK_SHADERC=${PCLR_SHADERC_LIBRARY:-$(bash tests/shaderc.sh build)}
$RUN --list >"$T/list" 2>&1
if grep -q "^Vulkan: built without" "$T/list"; then
  echo "skip: vulkan tools: built without vulkan/vulkan.h (apt-get install libvulkan-dev)"
elif ! grep -A8 "^Vulkan (" "$T/list" | grep -q "^  device 0: "; then
  echo "skip: vulkan tools: no Vulkan device here (apt-get install mesa-vulkan-drivers for lavapipe): $(grep -A1 '^Vulkan (' "$T/list" | tail -1)"
elif [ -z "$VK_SHADERC" ]; then
  echo "skip: vulkan tools: no shaderc that loads (tests/shaderc.sh; apt-get install libshaderc-dev glslang-dev spirv-tools)"
else
  if [ -z "${PCLR_SHADERC_LIBRARY:-}" ] && [ "$VK_SHADERC" = "$PWD/build/libshaderc_shared.so" ]; then
    $RUN --backend vulkan --type float --op sum --n 1000 -v >"$T/out" 2>&1; rc=$?
    check "run vulkan without PCLR_SHADERC_LIBRARY exits 0 (got $rc: $(tail -1 "$T/out"))" [ $rc = 0 ]
    check "run vulkan loads build/libshaderc_shared.so from beside itself" grep -q "compiler: $PWD/build/libshaderc_shared.so$" "$T/out"
  fi
  check "run --list shows the Vulkan device with its driver, subgroup size, int64/fp64" \
    grep -Eq "^  device 0: .*\(.*, Vulkan [0-9.]+, driver .*, subgroup [0-9]+, shaderInt64 (yes|no), shaderFloat64 (yes|no)\)$" "$T/list"
  check "run --list keeps the OpenCL and CUDA headings" grep -q "^OpenCL (" "$T/list"
  check "run usage names vulkan" grep -q "auto|cpu|opencl|cuda|vulkan" <($RUN --help)
  check "gen usage names vulkan" grep -q "opencl|cuda|vulkan" <($GEN --help)
  # pclreduce-gen: the whole GLSL kernel for every type and op; --lang glsl is the same; glslc takes it
  for t in uint8 int8 uint16 int16 uint int uint64 int64 half float double; do
    for o in sum min max argmin argmax minmax stats count; do
      $GEN --backend vulkan --type $t --op $o >"$T/k.comp" 2>"$T/err"; rc=$?
      check "gen --backend vulkan --type $t --op $o exits 0 (got $rc: $(head -c 200 "$T/err"))" [ $rc = 0 ]
      check "gen --backend vulkan --type $t --op $o prints a GLSL compute shader" grep -q "^#version 450" "$T/k.comp"
    done
  done
  $GEN --backend vulkan --type float --op stats --variant shuffle >"$T/k.comp"
  check "gen --lang glsl is --backend vulkan" cmp -s <($GEN --lang glsl --type float --op stats --variant shuffle) "$T/k.comp"
  check "gen --lang vulkan is --backend vulkan" cmp -s <($GEN --lang vulkan --type float --op stats --variant shuffle) "$T/k.comp"
  check "gen vulkan's line 1 names the config" grep -q "type=float op=stats backend=vulkan" "$T/k.comp"
  if command -v glslc >/dev/null 2>&1; then
    check "glslc compiles gen's vulkan kernel" glslc -fshader-stage=comp --target-env=vulkan1.1 "$T/k.comp" -o "$T/k.spv"
  fi
  check "gen --backend vulkan --map without --op prints the map's GLSL function" \
    grep -q "^float pclr_map(float x, uint64_t i)" <($GEN --backend vulkan --type float --map "x * x")
  check "gen --lang glsl --map: the same" cmp -s <($GEN --lang glsl --type float --map "x * x") <($GEN --backend vulkan --type float --map "x * x")
  $GEN --backend vulkan --type float --op sum --accumulate exact >"$T/exact.comp"; rc=$?
  check "gen vulkan exact prints the exact kernel in GLSL (rc $rc)" grep -q "accumulate exact" "$T/exact.comp"
  if command -v glslc >/dev/null 2>&1; then
    check "glslc compiles gen's vulkan exact kernel" glslc -fshader-stage=comp --target-env=vulkan1.1 "$T/exact.comp" -o "$T/exact.spv"
  fi
  $GEN --backend vulkan --type float --op sum --accumulate exact --variant shuffle >"$T/out" 2>"$T/err"; rc=$?
  check "gen vulkan exact shuffle is refused (rc $rc)" [ $rc = 2 ] && check "gen vulkan exact shuffle says why" grep -q "not shuffle" "$T/err"
  $GEN --backend vulkan --type float --map "x +" >"$T/out" 2>"$T/err"; rc=$?
  check "gen vulkan bad map exits 2 (rc $rc)" [ $rc = 2 ] && check "gen vulkan bad map says why" test -s "$T/err"
  # pclreduce-run --backend vulkan: every result format, the same lines as the CPU's
  expect_vk() { expect_line cpu "$@"; expect_line vulkan "$@"; }
  expect_vk "result: 200 at 1" --type uint8 --op argmax --input "$T/u8.bin"
  expect_vk "result: min=0 max=200" --type uint8 --op minmax --input "$T/u8.bin"
  expect_vk "result: -384" --type int8 --op sum --accumulate wide --input "$T/i8.bin"
  expect_vk "result: -32768 at 1" --type int16 --op argmin --input "$T/i16.bin"
  expect_vk "result: 18446744073709551615" --type uint64 --op max --input "$T/u64.bin"
  expect_vk "result: min=-9223372036854775808 max=5" --type int64 --op minmax --input "$T/i64.bin"
  expect_vk "result: 4294967297" --type uint --op sum --accumulate wide --input "$T/u32big.bin"
  expect_vk "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type int --op stats --input "$T/i32ten.bin"
  expect_vk "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type float --op stats --accumulate compensated --input "$T/f32ten.bin"
  expect_vk "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type double --op stats --input "$T/f64ten.bin"
  expect_vk "result: count=10 sum=55 min=1 max=10 mean=5.5 var=8.25" --type half --op stats --input "$T/f16ten.bin"
  expect_vk "result: -0.25" --type half --op sum --input "$T/f16.bin"
  expect_vk "result: min=-0 max=0" --type float --op minmax --input "$T/f32zeros.bin"
  expect_vk "result: -?nan at 1" --type float --op argmax --input "$T/f32nan.bin"
  expect_vk "result: 2" --type float --op count --input "$T/f32count.bin"
  expect_vk "result: 2" --type float --op sum --accumulate compensated --input "$T/f32comp.bin"
  expect_vk "result: 1.0000000000000001e\\+300 at 2" --type double --op argmax --input "$T/f64.bin"
  expect_vk "result: 0 at 18446744073709551615" --type uint8 --op argmax --n 0
  # op custom (--reduce) on Vulkan: exact integer fields, the first index, a layout's rows, log-sum-exp close
  expect_vk "result: 55 385 10 5.5" --type int --reduce "$FUSED" --input "$T/i32ten.bin"
  expect_vk "result: 4" --type float --reduce "$FIRST" --param float:t=4.5 --input "$T/f32ten.bin"
  expect_line vulkan "result: 1587 -0.919386625 1000002" --type float --reduce "$ORDER" --param float:t=0.999 --n 1000003 --seed 3
  py "struct.pack('<2000f', *[float(i % 1000) for i in range(2000)])" "$T/f32rows.bin"
  expect_vk "result\\[1\\]: 501 999 999" --type float --reduce "$ORDER" --param float:t=500.5 --input "$T/f32rows.bin" --rows 2 --cols 1000
  expect_vk "result\\[1\\]: 40 330 5 8" --type int --reduce "$FUSED" --input "$T/i32ten.bin" --rows 2 --cols 5
  vk=$($RUN --backend vulkan --type float --reduce "$LSE" --input "$T/f32lse.bin" 2>"$T/err" | tail -1)
  check "run --backend vulkan --reduce log-sum-exp ($vk, python $want_lse0 $(head -c 300 "$T/err"))" close_to "${vk#result: }" "$want_lse0" 1e-6
  # red team round 3 (issue 30): a map's arithmetic as C's on Vulkan (inf - inf, inf * 0, -0 + 0), double math in
  # double (exp(89) was inf, exp(-745) 0, log(1e300) inf), % as fmod (1e10f % 3.3f was -1024)
  py "struct.pack('<3f', float('inf'), 1, -0.0)" "$T/f32inf.bin"
  py "struct.pack('<1f', -0.0)" "$T/f32negzero.bin"
  py "struct.pack('<1f', 1e10)" "$T/f32big.bin"
  py "struct.pack('<1d', 89)" "$T/f64e89.bin"
  py "struct.pack('<1d', -745)" "$T/f64em745.bin"
  py "struct.pack('<1d', 1e300)" "$T/f64e300.bin"
  py "struct.pack('<1d', 1.7976931348623157e308)" "$T/f64max.bin"
  expect_vk "result: -?nan" --type float --op max --map "x - x" --input "$T/f32inf.bin"
  expect_vk "result: -?nan" --type float --op max --map "x * 0.0f" --input "$T/f32inf.bin"
  expect_vk "result: 0" --type float --op min --map "x + 0.0f" --input "$T/f32negzero.bin"
  expect_vk "result: 0.29611063" --type float --op max --map "x % 3.3f" --input "$T/f32big.bin"
  expect_vk "result: 0.19260834835162033" --type double --op max --map "x % 3.3" --input "$T/f64max.bin"
  expect_vk "result: 4.4896128191743455e\\+38" --type double --op max --map "exp(x)" --input "$T/f64e89.bin"
  expect_vk "result: 4.9406564584124654e-324" --type double --op max --map "exp(x)" --input "$T/f64em745.bin"
  expect_vk "result: 690.77552789821368" --type double --op max --map "log(x)" --input "$T/f64e300.bin"
  # --n/--seed: exactly the CPU's (integers, min/max, argmin/argmax), float sums close
  for args in "--type uint8 --op argmin" "--type int16 --op minmax" "--type uint64 --op count" "--type int64 --op argmax" \
              "--type half --op argmin" "--type uint --op sum" "--type int --op max" "--type float --op min" "--type double --op max" \
              "--type float --op sum --map x*x" "--type int --op sum --map x>0"; do
    cpu=$($RUN --backend cpu $args --n 100003 --seed 3 | tail -1)
    vk=$($RUN --backend vulkan $args --n 100003 --seed 3 2>"$T/err" | tail -1)
    case $args in
      *"float --op sum"*) check "vulkan $args close to cpu ($vk vs $cpu)" python3 -c "import sys; a=float('${vk#result: }'); b=float('${cpu#result: }'); sys.exit(abs(a-b) > 1e-4*max(1,abs(b)))" ;;
      *) check "vulkan $args equals cpu ($vk vs $cpu $(head -c 200 "$T/err"))" [ "$vk" = "$cpu" ] ;;
    esac
  done
  $RUN --backend vulkan --type uint --op sum --n 1000 -v >"$T/out" 2>&1
  check "run --backend vulkan names the backend" grep -q "^backend: vulkan (" "$T/out"
  check "run --backend vulkan -v shows the config that runs" grep -q "^config: .*backend=vulkan" "$T/out"
  check "run --backend vulkan --device 0 runs" [ "$($RUN --backend vulkan --device 0 --type uint --op sum --input "$T/u32.bin" 2>&1 | tail -1)" = "result: 500500" ]
  # refusals: the same sentences and exit codes as on the other backends
  expect_vk "result: 3" --type float --op sum --accumulate exact --input "$T/f32exact.bin"
  expect_vk "result: 1" --type double --op sum --accumulate exact --input "$T/f64exact.bin"
  cpu=$($RUN --backend cpu --type float --op sum --accumulate exact --n 100003 --seed 5 | tail -1)
  vk=$($RUN --backend vulkan --type float --op sum --accumulate exact --n 100003 --seed 5 2>"$T/err" | tail -1)
  check "run vulkan exact is the CPU's bits ($vk, cpu $cpu)" [ "$vk" = "$cpu" ]
  $RUN --backend vulkan --type float --op sum --accumulate exact --variant shuffle --n 10 >"$T/out" 2>"$T/err"; rc=$?
  check "run vulkan exact shuffle exits 1 (got $rc)" [ $rc = 1 ]
  check "run vulkan exact shuffle says why" grep -q "not shuffle" "$T/err"
  $RUN --backend vulkan --device 99 --type uint --op sum --n 10 >"$T/out" 2>"$T/err"; rc=$?
  check "run vulkan --device 99 exits 1 (got $rc)" [ $rc = 1 ]
  check "run vulkan --device 99 says why" grep -q "no Vulkan device 99" "$T/err"
  rm -rf "$T/xdg-cold" # (a cold disk cache, an absolute path: a cached kernel needs no compiler)
  XDG_CACHE_HOME=$PWD/$T/xdg-cold PCLR_SHADERC_LIBRARY=$T/missing.so $RUN --backend vulkan --type int --op min --n 10 >"$T/out" 2>"$T/err"; rc=$?
  check "run vulkan with PCLR_SHADERC_LIBRARY missing exits 1 (got $rc)" [ $rc = 1 ]
  check "run vulkan names the shaderc it could not load" grep -q "no shaderc library: $T/missing.so (from PCLR_SHADERC_LIBRARY)" "$T/err"
  PCLR_VULKAN_LIBRARY=$T/missing.so $RUN --backend vulkan --type int --op min --n 10 >"$T/out" 2>"$T/err"; rc=$?
  check "run vulkan with PCLR_VULKAN_LIBRARY missing exits 1 (got $rc)" [ $rc = 1 ]
  check "run vulkan names the loader it could not load" grep -q "no Vulkan loader: $T/missing.so" "$T/err"
  # pclreduce-tune --backend vulkan: one class into a fresh file
  rm -f "$T/tuning_vk.txt"
  $TUNE --backend vulkan --types uint --ops max --max-n 4096 --file "$T/tuning_vk.txt" >"$T/out" 2>&1; rc=$?
  check "tune --backend vulkan exit 0 (got $rc: $(tail -2 "$T/out"))" [ $rc = 0 ]
  check "tune --backend vulkan writes one vulkan line" [ "$(grep -c '^vulkan ".*" ".*" uint max 12 ' "$T/tuning_vk.txt")" = 1 ]
  rm -rf "$T/xdg-cold" "$T/tuning_vk2.txt"
  XDG_CACHE_HOME=$PWD/$T/xdg-cold PCLR_SHADERC_LIBRARY=$T/missing.so $TUNE --backend vulkan --types uint --ops min --max-n 4096 --file "$T/tuning_vk2.txt" >"$T/out" 2>"$T/err"; rc=$?
  check "tune vulkan without shaderc exits 1 (got $rc)" [ $rc = 1 ]
  check "tune vulkan without shaderc writes nothing" test ! -s "$T/tuning_vk2.txt"
  # the auto-exposure example on the Vulkan device: recorded into its own command buffer, checked against the CPU
  if [ -x build/auto_exposure ]; then
    build/auto_exposure --backend vulkan - "$T/ae.ppm" >"$T/out" 2>&1; rc=$?
    check "auto_exposure --backend vulkan exits 0 (got $rc: $(tail -2 "$T/out"))" [ $rc = 0 ]
    check "auto_exposure --backend vulkan runs on its own VkDevice" grep -q "on vulkan: .*the example's own VkDevice" "$T/out"
    check "auto_exposure --backend vulkan is checked against the CPU reference" grep -q "checked against the CPU reference" "$T/out"
    for b in vulkan cpu opencl; do # --metering histogram: 64 bins of log2-luminance, the mean between the 10th and 90th percentile
      build/auto_exposure --backend $b --metering histogram - "$T/ae.ppm" >"$T/out" 2>&1; rc=$?
      check "auto_exposure --backend $b --metering histogram exits 0 (got $rc: $(tail -2 "$T/out"))" [ $rc = 0 ]
      check "auto_exposure --backend $b --metering histogram meters between the percentiles" grep -q "^metered: *mean log2-luminance between them" "$T/out"
    done
  fi
  # the demo's Vulkan table (1 MB; its OpenCL kernels are in the disk cache from the runs above)
  if [ -x build/demo ]; then
    PCLR_DEMO_MB=1 timeout 120 build/demo >"$T/out" 2>&1; rc=$?
    check "demo exits 0 with a Vulkan table (got $rc: $(tail -2 "$T/out"))" [ $rc = 0 ]
    check "demo has the Vulkan table" grep -q "^Vulkan: " "$T/out"
    check "demo: every Vulkan row checked" [ "$(sed -n '/^Vulkan: /,$p' "$T/out" | grep -Ec ' yes +[0-9.]+ +[0-9.]+$')" = 12 ]
    PCLR_DEMO_MB=1 PCLR_VULKAN_LIBRARY=$T/missing.so timeout 120 build/demo >"$T/out" 2>&1; rc=$?
    check "demo without a Vulkan loader still exits 0 (got $rc)" [ $rc = 0 ]
    check "demo without a Vulkan loader says 'vulkan: skipped: why'" grep -q "^vulkan: skipped: .*no Vulkan loader" "$T/out"
    PCLR_DEMO_MB=1 PCLR_SHADERC_LIBRARY=$T/missing.so timeout 120 build/demo >"$T/out" 2>&1; rc=$?
    check "demo without shaderc still exits 0 (got $rc)" [ $rc = 0 ]
    check "demo without shaderc says 'vulkan: skipped: no shaderc library'" grep -q "^vulkan: skipped: .*no shaderc library: $T/missing.so" "$T/out"
  fi
fi

echo "test_tools: $passed passed, $failed failed"
[ $failed = 0 ]
