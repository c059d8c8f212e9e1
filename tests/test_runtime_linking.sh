#!/usr/bin/env bash
# Runtime linking: tests/runtime_linking.c built with only -ldl -lm
# has no NEEDED entry for libOpenCL, libcuda or libnvrtc, reduces on OpenCL
# (PoCL here) through the loaded table, and reports a missing CUDA driver or
# OpenCL library cleanly; the same program also builds and runs with
# -DPCLREDUCE_NO_RUNTIME_LINKING -lOpenCL -lcuda -lnvrtc. Closing line:
#   test_runtime_linking: N passed, M failed   (the program's own checks included)
set -u
cd "$(dirname "$0")/.."
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
CC=${CC:-gcc}
WARN="-std=c99 -Wall -Wextra -Wpedantic -Werror"
T=build/tests/runtime_linking
mkdir -p "$T"
passed=0 failed=0

ok()   { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ -f "$T/log" ] && grep -Ev '[0-9]+ passed, [0-9]+ failed' "$T/log" | sed 's/^/     | /' | tail -25; failed=$((failed + 1)); }
# build NAME CMD...: one check
build() { local name=$1; shift; if "$@" >"$T/log" 2>&1; then ok "$name"; return 0; else fail "$name"; return 1; fi; }
# prog NAME CMD...: runs the test program; its "N passed, N failed" counts are
# added to ours (and not repeated, so tests/run.sh counts them once); a
# non-zero exit without failed checks counts as one failure
prog() {
    local name=$1 rc p f; shift
    "$@" >"$T/log" 2>&1; rc=$?
    p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$T/log" | tail -1 | awk '{print $1}')
    f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$T/log" | tail -1 | awk '{print $3}')
    p=${p:-0} f=${f:-0}
    [ "$rc" -ne 0 ] && [ "$f" = 0 ] && f=1
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" = 0 ]; then
        echo "ok   $name ($p checks)"
        grep -E '^(skip|cuda|driver not found)' "$T/log" | sed 's/^/     | /'
    else
        echo "FAIL $name ($f of $((p + f)) checks failed, exit $rc)"
        grep -Ev '[0-9]+ passed, [0-9]+ failed' "$T/log" | grep -E '^FAIL|rror' | head -20 | sed 's/^/     | /'
        grep -Ev '[0-9]+ passed, [0-9]+ failed' "$T/log" | tail -5 | sed 's/^/     | /'
    fi
}
# no_needed BINARY: no NEEDED entry names an OpenCL or CUDA library
no_needed() {
    readelf -d "$1" | grep NEEDED >"$T/needed"
    cat "$T/needed"
    ! grep -Eq 'libOpenCL|libcuda|libnvrtc' "$T/needed"
}

CUDA_FLAGS=-DPCLR_RL_NO_CUDA
if [ -f "$CUDA_PATH/include/cuda.h" ]; then
    CUDA_FLAGS="-I$CUDA_PATH/include"
else
    echo "skip: $CUDA_PATH/include/cuda.h not found: the CUDA part is left out"
fi

# ---- 1. only -ldl -lm: loaded at run time
if build "build with -ldl -lm only" $CC $WARN -O1 $CUDA_FLAGS -o "$T/rl" tests/runtime_linking.c -ldl -lm; then
    if no_needed "$T/rl" >"$T/log" 2>&1; then ok "no NEEDED libOpenCL/libcuda/libnvrtc"; else fail "no NEEDED libOpenCL/libcuda/libnvrtc"; fi
    prog "run: OpenCL through the loaded table, CUDA without a driver" "$T/rl"
    prog "PCLR_OPENCL_LIBRARY=/nonexistent/libOpenCL.so: no driver, named" \
        env PCLR_OPENCL_LIBRARY=/nonexistent/libOpenCL.so "$T/rl" no-library
fi

# ---- 2. PCLREDUCE_NO_RUNTIME_LINKING: linked directly, nothing loaded
LINK_CUDA=""
NRL_CUDA=$CUDA_FLAGS
if [ "$CUDA_FLAGS" != -DPCLR_RL_NO_CUDA ]; then
    LINK_CUDA="-L$CUDA_PATH/lib64 -L$CUDA_PATH/lib64/stubs -lcuda -lnvrtc"
fi
if build "build with -DPCLREDUCE_NO_RUNTIME_LINKING -lOpenCL ${LINK_CUDA:-(no CUDA)}" \
        $CC $WARN -O1 -DPCLREDUCE_NO_RUNTIME_LINKING $NRL_CUDA -o "$T/rl_linked" tests/runtime_linking.c \
        -lOpenCL $LINK_CUDA -lm; then
    if readelf -d "$T/rl_linked" | grep NEEDED | grep -q libOpenCL; then ok "linked: NEEDED libOpenCL"
    else fail "linked: NEEDED libOpenCL"; fi
    # Without a driver, libcuda.so.1 is missing and the program cannot start;
    # the toolkit's stub (libcuda.so, soname libcuda.so.1) stands in for it:
    # cuInit then fails with CUDA_ERROR_STUB_LIBRARY, which must read as "no driver".
    env_ld=""
    if [ -n "$LINK_CUDA" ] && ldd "$T/rl_linked" | grep -q 'libcuda.so.1 => not found'; then
        mkdir -p "$T/stub"
        ln -sf "$CUDA_PATH/lib64/stubs/libcuda.so" "$T/stub/libcuda.so.1"
        env_ld="LD_LIBRARY_PATH=$T/stub:$CUDA_PATH/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "     (no libcuda.so.1 here: running on the toolkit's stub libcuda)"
    fi
    prog "run linked: OpenCL through the linked functions, CUDA through the linked libcuda" env $env_ld "$T/rl_linked"
fi

echo "test_runtime_linking: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
