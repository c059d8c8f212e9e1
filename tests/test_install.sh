#!/usr/bin/env bash
# make install into a temporary prefix, then build and run a tiny outside
# project three ways: cc + pkg-config, CMake find_package, CMake
# add_subdirectory of this repository. Closing line:
#   test_install: N passed, M failed
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pclr_install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX="$TMP/prefix"
passed=0 failed=0

ok()   { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ -f "$TMP/log" ] && sed 's/^/     | /' "$TMP/log" | tail -25; failed=$((failed + 1)); }
# run NAME CMD...: a step whose output goes to $TMP/log
run() { local name=$1; shift; if "$@" >"$TMP/log" 2>&1; then ok "$name"; return 0; else fail "$name"; return 1; fi; }

# ---- 1. install layout
if make -s -C "$ROOT" install PREFIX="$PREFIX" >"$TMP/log" 2>&1; then
    missing=""
    for f in include/pclreduce.h include/pclreduce_cl.h include/pclreduce_cuda.h include/pclreduce_vk.h bin/pclreduce-gen bin/pclreduce-run bin/pclreduce-tune \
             lib/pkgconfig/pclreduce.pc lib/cmake/pclreduce/pclreduceConfig.cmake \
             lib/cmake/pclreduce/pclreduceConfigVersion.cmake; do
        [ -e "$PREFIX/$f" ] || missing="$missing $f"
    done
    if [ -z "$missing" ] && "$PREFIX/bin/pclreduce-gen" --backend opencl --type uint --op sum >/dev/null 2>>"$TMP/log"; then
        ok "make install PREFIX=<tmp> (headers, tools, pclreduce.pc, CMake package)"
    else
        echo "missing:$missing" >>"$TMP/log"
        fail "make install PREFIX=<tmp> (headers, tools, pclreduce.pc, CMake package)"
    fi
else
    fail "make install PREFIX=<tmp>"
fi

# every tool the README tells users to run is installed and runs; the package files name all four backends
run "installed pclreduce-tune runs (--help)" "$PREFIX/bin/pclreduce-tune" --help
run "pclreduce.pc names the OpenCL, CUDA, Vulkan and CPU backends" \
    grep -q "OpenCL, CUDA, Vulkan and the CPU reference" "$PREFIX/lib/pkgconfig/pclreduce.pc"
run "the CMake package looks for the Vulkan headers" grep -q "vulkan/vulkan.h" "$PREFIX/lib/cmake/pclreduce/pclreduceConfig.cmake"

# ---- the outside project (knows nothing of the repository's location)
mkdir -p "$TMP/app"
cat >"$TMP/app/main.c" <<'C'
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "pclreduce.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    enum { N = 100003 };
    static cl_uint data[N];
    cl_uint sum = 0, expect = 0;
    pclr_cl_context *ctx = NULL;
    pclr_config cfg;
    pclr_result r;
    const pclr_cl_api *cl; /* OpenCL through the context's table: no -lOpenCL */
    cl_mem buf;
    cl_int err;
    int i;
    memset(&cfg, 0, sizeof cfg); /* zero = defaults */
    cfg.type = PCLR_UINT;
    cfg.op = PCLR_SUM;
    for (i = 0; i < N; ++i) {
        data[i] = (cl_uint)i * 2654435761u;
        expect += data[i];
    }
    if ((r = pclr_cl_create_default(-1, -1, &ctx)) != PCLR_OK) {
        fprintf(stderr, "create: %s (%s)\n", pclr_result_string(r), pclr_cl_last_error(ctx));
        pclr_cl_destroy(ctx);
        return 1;
    }
    cl = pclr_cl_get_api(ctx);
    buf = cl->CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "clCreateBuffer: %d\n", (int)err); return 1; }
    r = pclr_cl_reduce(ctx, &cfg, buf, 0, N, &sum);
    cl->ReleaseMemObject(buf);
    if (r != PCLR_OK) fprintf(stderr, "reduce: %s (%s)\n", pclr_result_string(r), pclr_cl_last_error(ctx));
    pclr_cl_destroy(ctx);
    if (r != PCLR_OK) return 1;
    printf("pclreduce %s: sum %u, expected %u\n", PCLREDUCE_VERSION, (unsigned)sum, (unsigned)expect);
    return sum == expect ? 0 : 1;
}
C

# ---- 2. cc + pkg-config
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if command -v pkg-config >/dev/null; then
    flags="$(pkg-config --cflags --libs pclreduce 2>/dev/null)"
    # shellcheck disable=SC2086
    run "cc + pkg-config: build ($flags)" \
        $CC -std=c99 -Wall -Wextra -Wpedantic -Werror -o "$TMP/app/app_pc" "$TMP/app/main.c" $flags &&
        run "cc + pkg-config: run" "$TMP/app/app_pc"
else
    echo "skip cc + pkg-config: no pkg-config"
fi

# ---- CMake projects
if command -v cmake >/dev/null; then
    mkdir -p "$TMP/fp" "$TMP/sub"
    cp "$TMP/app/main.c" "$TMP/fp/main.c"
    cp "$TMP/app/main.c" "$TMP/sub/main.c"
    minor=$(sed -n 's/^#define PCLREDUCE_VERSION_MINOR \([0-9]*\)$/\1/p' "$ROOT/pclreduce.h") # (0.x: the minor must match)
    cat >"$TMP/fp/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(pclr_find_package C)
find_package(pclreduce 0.$minor REQUIRED)
add_executable(app main.c)
target_link_libraries(app PRIVATE pclreduce::pclreduce)
CM
    cat >"$TMP/sub/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(pclr_add_subdirectory C)
add_subdirectory("${PCLREDUCE_DIR}" pclreduce)
add_executable(app main.c)
target_link_libraries(app PRIVATE pclreduce::pclreduce)
CM
    # ---- 3. find_package through CMAKE_PREFIX_PATH
    run "cmake find_package: configure + build" \
        sh -c "cmake -S '$TMP/fp' -B '$TMP/fp/b' -DCMAKE_PREFIX_PATH='$PREFIX' -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_C_FLAGS='-std=c99 -Wall -Wextra -Wpedantic -Werror' && cmake --build '$TMP/fp/b'" &&
        run "cmake find_package: run" "$TMP/fp/b/app"
    # ---- 4. add_subdirectory of the repository
    run "cmake add_subdirectory: configure + build" \
        sh -c "cmake -S '$TMP/sub' -B '$TMP/sub/b' -DPCLREDUCE_DIR='$ROOT' -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_C_FLAGS='-std=c99 -Wall -Wextra -Wpedantic -Werror' && cmake --build '$TMP/sub/b'" &&
        run "cmake add_subdirectory: run" "$TMP/sub/b/app"
else
    echo "skip CMake: no cmake"
fi

echo "test_install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
