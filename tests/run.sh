#!/usr/bin/env bash
# The test suite (make test). Each step prints its own "name: N passed, N failed"
# line or counts as one check; the closing line adds them all up.
# PCLR_TEST_QUICK=1 shrinks the device suites. An argument (or PCLR_TEST_STEPS) is an extended
# regular expression: only the steps whose name matches run (make test-map: '^(map)(-|$)', the map
# suite and its sanitizer and NVRTC steps).
set -u
filter=${1:-${PCLR_TEST_STEPS:-}}
cd "$(dirname "$0")/.."
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
B=build/tests
mkdir -p "$B"
WARN="-Wall -Wextra -Wpedantic -Werror"
CUDA_INC=""
[ -f "$CUDA_PATH/include/cuda.h" ] && CUDA_INC="-I$CUDA_PATH/include"
passed=0 failed=0
# the disk cache and tuning file of every context the tests make: fresh, inside build/
export XDG_CACHE_HOME="$PWD/$B/xdg-cache"
rm -rf "$XDG_CACHE_HOME"
unset PCLR_TUNE_FILE

# Runs a command; adds its "N passed, N failed" lines, or counts it as one check.
step() {
  local name=$1; shift
  local log="$B/$name.log" t0=$SECONDS rc p f
  if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then return 0; fi
  "$@" >"$log" 2>&1; rc=$?
  p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | awk '{s+=$3} END {print s+0}')
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then
    if [ $rc -eq 0 ]; then p=1; else f=1; fi
  elif [ $rc -ne 0 ] && [ "$f" = 0 ]; then
    f=1 # crashed or exited non-zero after its checks
  fi
  passed=$((passed + p)); failed=$((failed + f))
  printf '%-28s %5d passed %3d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0))
  if [ "$f" != 0 ]; then grep -E '^(FAIL|skip)|error|Error|ERROR' "$log" | head -30; tail -5 "$log"; fi
  grep -E '^skip' "$log" | head -5
}

have() { command -v "$1" >/dev/null 2>&1; }

# 1. core unit tests, plain and under ASan/UBSan
step core-gcc        sh -c "gcc -std=c99 $WARN -O2 -o $B/test_core tests/test_core.c -lm && $B/test_core"
step core-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_core_asan tests/test_core.c -lm && $B/test_core_asan"
have valgrind && step core-valgrind sh -c "valgrind -q --error-exitcode=9 --leak-check=full $B/test_core"

# 1b. the kernel cache and the tuning file (core, POSIX: two processes x threads on one directory)
step cache-gcc        sh -c "gcc -std=c99 $WARN -O2 -pthread -o $B/test_cache tests/test_cache.c -lm && $B/test_cache"
step cache-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -pthread -o $B/test_cache_asan tests/test_cache.c -lm && $B/test_cache_asan"
have valgrind && step cache-valgrind sh -c "valgrind -q --error-exitcode=9 --leak-check=full $B/test_cache"

# 1b'. the golden kernels: pclreduce-gen's output for tests/kernels/list.txt, as committed (make kernels rewrites them:
#      a generator change shows up in review as a kernel diff)
step kernels sh -c "gcc -std=c99 $WARN -O1 -o $B/pclreduce-gen gen/pclreduce-gen.c -lm && rm -rf $B/kernels &&
  PCLR_GEN=$B/pclreduce-gen bash tests/kernels.sh $B/kernels && diff -ru -x list.txt -x segments.bin tests/kernels $B/kernels"

# 1b''. no generated kernel holds a definition that nothing in it reads (tests/kernel_dead_code.py): pclreduce-gen over a
#       seeded sample of backend x type x op x accumulate x variant x finish x vector x stride x maps x layouts (its seed
#       printed; PCLR_TEST_SEED reproduces it, PCLR_TEST_FULL=1 samples more), then the golden kernels of tests/kernels/
have python3 && step kernel-dead-code sh -c "gcc -std=c99 $WARN -O1 -o $B/pclreduce-gen gen/pclreduce-gen.c -lm &&
  PCLR_GEN=$B/pclreduce-gen python3 tests/kernel_dead_code.py --matrix"

# 1b''. the index of pclreduce.h: every section tag (">>gen") listed once and marking one section
have python3 && step index-tags python3 tests/index_tags.py

# 1c. the public API's size: at most 110 functions, deprecated ones apart; an old program (the 0.3 calls,
#     deprecated wrappers) and a new one (no deprecated call: PCLREDUCE_WARN_DEPRECATED under -Werror), run
step api-count bash tests/api_count.sh
API_CUDA=${CUDA_INC:+$CUDA_INC -DPCLR_TEST_CUDA}
step api-versions sh -c "gcc -std=c99 $WARN -O1 $API_CUDA -o $B/test_api_new tests/test_api_versions.c -ldl -lm && $B/test_api_new &&
  gcc -std=c99 $WARN -O1 $API_CUDA -DPCLR_OLD_PROGRAM -o $B/test_api_old tests/test_api_versions.c -ldl -lm && $B/test_api_old &&
  g++ -x c++ -std=c++11 $WARN $API_CUDA -fsyntax-only tests/test_api_versions.c &&
  clang++ -x c++ -std=c++11 $WARN $API_CUDA -DPCLR_OLD_PROGRAM -fsyntax-only tests/test_api_versions.c"

# 2. the three headers compile cleanly as C99 and C++11 with gcc and clang
if [ -n "$CUDA_INC" ]; then
  for cc in gcc clang; do
    step "headers-c99-$cc" sh -c "$cc -std=c99 $WARN $CUDA_INC -o $B/headers_$cc tests/compile_headers.c tests/compile_headers_use.c -lOpenCL -ldl -lm"
  done
  for cxx in g++ clang++; do
    step "headers-cxx11-$cxx" sh -c "$cxx -x c++ -std=c++11 $WARN $CUDA_INC -o $B/headers_$cxx tests/compile_headers.c tests/compile_headers_use.c -lOpenCL -ldl -lm"
  done
  step headers-static sh -c "gcc -std=c99 $WARN $CUDA_INC -DPCLREDUCE_STATIC -c -o $B/static.o tests/compile_headers.c"
else
  echo "skip: $CUDA_PATH/include/cuda.h not found: header compile tests of pclreduce_cuda.h skipped"
fi

# 2a. every C block of README.md and docs/*.md compiles as C99 and C++11 (gcc, clang; -Werror), and so do
#     the examples and tools (PCLR_ZERO: one zero-initialisation for both languages)
have python3 && step doc-blocks python3 tests/doc_blocks.py
examples_cxx() {
  local f cxx no="${CUDA_INC:--DPCLR_RUN_NO_CUDA -DPCLR_DEMO_NO_CUDA}"
  [ -f /usr/include/vulkan/vulkan.h ] || no="$no -DPCLR_RUN_NO_VULKAN -DPCLR_DEMO_NO_VULKAN"
  for f in examples/demo.c examples/maps.c examples/auto_exposure.c examples/pclreduce-run.c examples/pclreduce-tune.c gen/pclreduce-gen.c; do
    for cxx in g++ clang++; do $cxx -x c++ -std=c++11 $WARN $no -fsyntax-only "$f" || return 1; done
  done
}
step examples-cxx11 examples_cxx

# 2b. the core and the OpenCL backend need no cuda.h: C99 and C++11 without the CUDA include path
step headers-no-cuda-c99 sh -c "gcc -std=c99 $WARN -DPCLR_TEST_NO_CUDA -c -o $B/nocuda.o tests/compile_headers.c"
step headers-no-cuda-cxx11 sh -c "clang++ -x c++ -std=c++11 $WARN -DPCLR_TEST_NO_CUDA -c -o $B/nocuda_cxx.o tests/compile_headers.c"

# 2c. the compile-time feature switches (README "Leaving features out"): every combination of
#     PCLREDUCE_NO_MAP, _NO_EXACT, _NO_LAYOUTS and _NO_FILES compiles cleanly with every backend, as C99
#     (gcc -O0 -c: gcc reports unused static functions only when it compiles) and as C++11 with
#     PCLREDUCE_MACRO_FORM (clang++ -fsyntax-only); the runs are in lane a (switches-*)
switches_compile() {
  local sw=(MAP EXACT LAYOUTS FILES) k i d p=0 f=0 all="-DPCLR_TEST_ALL_BACKENDS $CUDA_INC"
  if [ -z "$CUDA_INC" ] || [ ! -f /usr/include/vulkan/vulkan.h ]; then
    all=""; echo "skip: cuda.h or vulkan/vulkan.h missing: the switch combinations compile with the OpenCL backend only"
  fi
  for k in $(seq 0 15); do
    d=""
    for i in 0 1 2 3; do [ $((k >> i & 1)) = 1 ] && d="$d -DPCLREDUCE_NO_${sw[$i]}"; done
    gcc -std=c99 $WARN -O0 $all $d -c -o "$B/switches_$k.o" tests/test_switches.c & # (the two at once)
    if clang++ -x c++ -std=c++11 $WARN $all $d -DPCLREDUCE_MACRO_FORM -fsyntax-only tests/test_switches.c; then p=$((p + 1))
    else f=$((f + 1)); echo "FAIL: clang++ C++11 with PCLREDUCE_MACRO_FORM${d:- (no switch)}"; fi
    if wait $!; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL: gcc C99${d:- (no switch)}"; fi
  done
  echo "switches-compile: $p passed, $f failed"
}
step switches-compile switches_compile

# The rest runs in two lanes at once (CI machines have 2 cores; most steps wait on one PoCL or
# compiler process). Each lane has its own cache directory (the disk-cache tests count hits) and
# adds up its own checks; the totals meet at the end. PCLR_TEST_LANES=1 runs them one after the other.
lane_a() {
  # 3. the command-line tools; make install used from an outside project (pkg-config, CMake)
  step tools bash tests/test_tools.sh
  step install bash tests/test_install.sh
  # programs built with -ldl -lm only load OpenCL/CUDA at run time; PCLREDUCE_NO_RUNTIME_LINKING links them
  step runtime-linking bash tests/test_runtime_linking.sh

  # 4. every generated OpenCL configuration builds on PoCL; the macro form matches the generator
  step compile-opencl sh -c "gcc -std=c99 $WARN -O1 -o $B/test_compile_opencl tests/test_compile_opencl.c -lOpenCL -ldl -lm && $B/test_compile_opencl"

  # 4b. each feature switch alone, then all four, linked (-O2: its warnings, maybe-uninitialized, come with the
  #     optimizer): refused with its sentence by resolve, the CPU reference, the kept public functions, the CPU
  #     context and OpenCL's (PoCL); a float sum still runs
  for sw in MAP EXACT LAYOUTS FILES "MAP EXACT LAYOUTS FILES"; do
    d=""; for x in $sw; do d="$d -DPCLREDUCE_NO_$x"; done
    name=switches-$(echo "$sw" | tr 'A-Z ' 'a-z-'); [ "$sw" = "MAP EXACT LAYOUTS FILES" ] && name=switches-all
    step "$name" sh -c "gcc -std=c99 $WARN -O2 $d -o $B/test_$name tests/test_switches.c -ldl -lm && $B/test_$name --opencl"
  done

  # 5. the OpenCL backend on PoCL (plain, then ASan/UBSan on a quick run)
  step opencl sh -c "gcc -std=c99 $WARN -O1 -o $B/test_opencl tests/test_opencl.c -lOpenCL -ldl -lm && $B/test_opencl"
  step opencl-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_opencl_asan tests/test_opencl.c -lOpenCL -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_QUICK=1 $B/test_opencl_asan"

  # 5. the generic context (pclr_create): backend choice, contract, buffers, every type/op on each backend;
  #    under ASan/UBSan with leak checking, and with the CUDA backend compiled in (no driver here)
  step generic-asan-lsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_generic tests/test_generic.c -ldl -lm && ASAN_OPTIONS=detect_leaks=1 $B/test_generic"
  if [ -n "$CUDA_INC" ]; then
    step generic-cuda sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_generic_cuda tests/test_generic.c -ldl -lm && $B/test_generic_cuda"
  fi

  # 5f. the Vulkan backend (pclreduce_vk.h): the GLSL kernel of every type x op x accumulator x variant x
  #     finish through glslc (a sample; PCLR_TEST_FULL=1: all), then test_vulkan on the Vulkan device here
  #     (lavapipe in CI; "skip: ..." without one): every type/op/accumulator against the CPU reference, odd
  #     sizes and offsets, NaN, maps, a reduce recorded into the test's command buffer, the generic context,
  #     the disk cache, the failure paths; plain and under ASan/UBSan (quick). tests/shaderc.sh finds a
  #     shaderc that loads (Debian 12's needs its static glslang linked in: build/libshaderc_shared.so, which
  #     `make` builds too); the tests get it through PCLR_SHADERC_LIBRARY.
  GLSL_QUICK=1 # the sample; PCLR_TEST_FULL=1 (make test-full): every variant
  [ "${PCLR_TEST_FULL:-0}" != 0 ] && GLSL_QUICK=0
  step glsl sh -c "gcc -std=c99 $WARN -O1 -o $B/test_glsl tests/test_glsl.c -lm && PCLR_TEST_QUICK=$GLSL_QUICK $B/test_glsl"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    for cc in "gcc -std=c99" "clang -std=c99" "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11"; do
      [ -n "$CUDA_INC" ] || break # (all four backends: cuda.h too)
      step "headers-all-${cc%% *}" sh -c "$cc $WARN $CUDA_INC -o $B/headers_all tests/compile_headers_vk.c -ldl -lm && $B/headers_all"
    done
    SHADERC=$(bash tests/shaderc.sh build)
    step vulkan sh -c "gcc -std=c99 $WARN -O1 -o $B/test_vulkan tests/test_vulkan.c -ldl -lm && PCLR_SHADERC_LIBRARY=$SHADERC PCLR_TEST_QUICK=1 $B/test_vulkan"
    step vulkan-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_vulkan_asan tests/test_vulkan.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_SHADERC_LIBRARY=$SHADERC PCLR_TEST_QUICK=1 PCLR_TEST_SKIP_MATRIX=1 $B/test_vulkan_asan"
    # exact sums on Vulkan (the exact kernel in GLSL's words): test_exact's cases and knob sets against the CPU reference
    step exact-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_exact_vulkan tests/test_exact.c -ldl -lm && PCLR_SHADERC_LIBRARY=$SHADERC $B/test_exact_vulkan --backend vulkan"
  else
    echo "skip: vulkan (no vulkan/vulkan.h: apt-get install libvulkan-dev)"
  fi

  # 5a. the OpenCL backend's disk cache (cold, warm, corrupt, foreign, two processes) and tuner
  step cl-cache sh -c "gcc -std=c99 $WARN -O1 -g -o $B/test_cl_cache tests/test_cl_cache.c -ldl -lm && $B/test_cl_cache"

  # 5b. threads: 8 threads, each its own context (own cl_context, shared cl_context, shared queues),
  #     reducing at once (the CUDA part skips without a GPU); then the OpenCL part under
  #     ThreadSanitizer (PoCL itself runs clean under it, no suppressions needed)
  step threads sh -c "gcc -std=c99 $WARN -O2 -pthread $CUDA_INC ${CUDA_INC:+-DPCLR_TEST_CUDA} -o $B/test_threads tests/test_threads.c -lOpenCL -ldl -lm && $B/test_threads"
  # (address randomization off where setarch allows it. About one CI run in fifteen had the ThreadSanitizer
  # runtime fail to map its shadow midway ("failed to allocate 0x1ef100031e000 bytes", errno 12), with address
  # randomization on and also off: that runtime failure, and only it, gets one more run, whose result counts)
  no_aslr=""
  setarch "$(uname -m)" -R true 2>/dev/null && no_aslr="setarch $(uname -m) -R"
  threads_tsan() {
    gcc -std=c99 $WARN -O1 -g -fsanitize=thread -pthread -o $B/test_threads_tsan tests/test_threads.c -lOpenCL -ldl -lm || return 1
    local out=$B/threads-tsan-first.out rc
    TSAN_OPTIONS=halt_on_error=1 PCLR_TEST_QUICK=1 $no_aslr $B/test_threads_tsan --opencl >"$out" 2>&1; rc=$?
    cat "$out"
    if [ $rc -ne 0 ] && grep -q 'ThreadSanitizer failed to allocate' "$out" && ! grep -q 'WARNING: ThreadSanitizer' "$out"; then
      echo "threads-tsan: the ThreadSanitizer runtime could not map its shadow (no race reported): one more run"
      TSAN_OPTIONS=halt_on_error=1 PCLR_TEST_QUICK=1 $no_aslr $B/test_threads_tsan --opencl
      return
    fi
    return $rc
  }
  step threads-tsan threads_tsan

  # 6. the CUDA backend: NVRTC compiles every configuration; no GPU here, so the
  #    device part skips and the no-driver path is checked
  if [ -n "$CUDA_INC" ]; then
    step cuda sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -o $B/test_cuda tests/test_cuda.c -ldl -lm && $B/test_cuda"
  fi

}

lane_b() {
  # 5c. the issue 14 vocabulary through the generic context on PoCL: every type x op x accumulator
  #     against the CPU reference, sampled knobs (PCLR_TEST_FULL=1: all of them), known answers;
  #     a quick run under ASan/UBSan; every CUDA kernel of it through NVRTC (compute_90 PTX)
  step vocab sh -c "gcc -std=c99 $WARN -O2 -o $B/test_vocab tests/test_vocab.c -ldl -lm && $B/test_vocab"
  # 5d. stride simd (issue 35: CPU devices' vector of accumulators) against its own reference: lanes folds of
  #     every type, half's converted loads bit for bit against stride local
  SIMD_QUICK=1 # a sample (PoCL builds each kernel for seconds); PCLR_TEST_FULL=1: all
  [ "${PCLR_TEST_FULL:-0}" != 0 ] && SIMD_QUICK=0
  step simd sh -c "gcc -std=c99 $WARN -O2 -o $B/test_simd tests/test_simd.c -ldl -lm && PCLR_TEST_QUICK=$SIMD_QUICK $B/test_simd"
  step vocab-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_vocab_asan tests/test_vocab.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_QUICK=1 $B/test_vocab_asan"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    VOCAB_SHADERC=$(bash tests/shaderc.sh build)
    step vocab-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_vocab_vulkan tests/test_vocab.c -ldl -lm && PCLR_SHADERC_LIBRARY=$VOCAB_SHADERC PCLR_TEST_QUICK=1 $B/test_vocab_vulkan --backend vulkan"
  fi
  if [ -n "$CUDA_INC" ]; then
    step vocab-nvrtc sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -o $B/test_vocab_nvrtc tests/test_vocab_nvrtc.c -ldl -lm && $B/test_vocab_nvrtc"
  fi

  # 5d. exact sums (accumulate = exact) on PoCL and in the CPU reference, bit for bit against Python's
  #     fractions (tests/exact_reference.py) on adversarial data; a quick run under ASan/UBSan; every
  #     knob set's CUDA kernel through NVRTC
  step exact sh -c "gcc -std=c99 $WARN -O2 -o $B/test_exact tests/test_exact.c -ldl -lm && $B/test_exact"
  step exact-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_exact_asan tests/test_exact.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_QUICK=1 $B/test_exact_asan"
  if [ -n "$CUDA_INC" ]; then
    step exact-nvrtc sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_exact_nvrtc tests/test_exact.c -ldl -lm && $B/test_exact_nvrtc --nvrtc-only"
  fi

  # 5e. map expressions (issue 15) through the generic context: a table of maps x types x ops against the
  #     CPU reference and each row's own C evaluation, every row on the CPU backend, a sample on PoCL
  #     (PCLR_TEST_FULL=1: all), parameters without rebuilds, y offsets, every refusal with its column, the
  #     GLSL functions through glslc where it is installed; a quick run under ASan/UBSan; the CUDA kernels
  #     of the table through NVRTC (compute_90 PTX)
  # (one seed for both: the sanitized run draws the same shapes and finds their kernels in the disk cache)
  layout_seed=${PCLR_TEST_SEED:-$(date +%s)}
  step layout sh -c "gcc -std=c99 $WARN -O2 -o $B/test_layout tests/test_layout.c -ldl -lm && PCLR_TEST_SEED=$layout_seed PCLR_TEST_QUICK=1 $B/test_layout"
  step layout-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_layout_asan tests/test_layout.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_SEED=$layout_seed PCLR_TEST_QUICK=1 PCLR_TEST_NO_TUNE=1 $B/test_layout_asan"
  if [ -f /usr/include/vulkan/vulkan.h ]; then # the same shapes on Vulkan (lavapipe here), the GLSL kernels of the same text
    LAYOUT_SHADERC=$(bash tests/shaderc.sh build)
    step layout-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_layout_vulkan tests/test_layout.c -ldl -lm && PCLR_SHADERC_LIBRARY=$LAYOUT_SHADERC PCLR_TEST_BACKEND=vulkan PCLR_TEST_SEED=$layout_seed PCLR_TEST_QUICK=1 $B/test_layout_vulkan"
  fi
  step map sh -c "gcc -std=c99 $WARN -O2 -o $B/test_map tests/test_map.c -ldl -lm && $B/test_map"
  step map-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_map_asan tests/test_map.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_QUICK=1 $B/test_map_asan"
  if [ -n "$CUDA_INC" ]; then
    step layout-nvrtc sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_layout_nvrtc tests/test_layout.c -ldl -lm && $B/test_layout_nvrtc --nvrtc-only"
    step map-nvrtc sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -o $B/test_map_nvrtc tests/test_map_nvrtc.c -ldl -lm && $B/test_map_nvrtc"
  fi

  # 5g. the verbs' contract (tests/test_contract.c): pclr_input, sized pclr_reduce (the result-size rule),
  #     pclr_reduce_async into a states buffer and pclr_finalize, pclr_result_size / pclr_state_size /
  #     pclr_layout_results, bad input, maps, layouts, every type x op against the CPU reference. One build per
  #     backend, so that one backend's state does not hide another's: the CPU context (plain, then ASan/UBSan with
  #     leak checking, then built by clang: NaN bits differ by compiler), OpenCL (PoCL), Vulkan (lavapipe; its async
  #     form needs the program's command buffer: test_vulkan.c's), CUDA (compiled in; "skip: ..." without a device).
  #     The file compiles cleanly as C99 (the runs) and C++11 with gcc and clang, CPU-only and with every backend.
  #     One seed for the runs (PCLR_SEED reproduces one); PCLR_TEST_FULL=1: every type x op x accumulator x size on
  #     the devices too.
  contract_seed=${PCLR_SEED:-${PCLR_TEST_SEED:-$(date +%s)}}
  contract_compile() { # $@: more compilers; g++ and clang++ as C++11 (gcc and clang as C99 are the runs' builds)
    local cc p=0 f=0
    for cc in "g++ -x c++ -std=c++11" "clang++ -x c++ -std=c++11" "$@"; do
      [ -n "$cc" ] || continue
      if $cc $WARN $CONTRACT_FLAGS -fsyntax-only tests/test_contract.c; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL: $cc $CONTRACT_FLAGS"; fi
    done
    echo "contract-compile: $p passed, $f failed"
  }
  step contract-compile sh -c "$(declare -f contract_compile); WARN='$WARN' CONTRACT_FLAGS='' contract_compile"
  CONTRACT_ALL="-DPCLR_TEST_OPENCL"
  [ -f /usr/include/vulkan/vulkan.h ] && CONTRACT_ALL="$CONTRACT_ALL -DPCLR_TEST_VULKAN"
  [ -n "$CUDA_INC" ] && CONTRACT_ALL="$CONTRACT_ALL -DPCLR_TEST_CUDA $CUDA_INC"
  step contract-compile-backends sh -c "$(declare -f contract_compile); WARN='$WARN' CONTRACT_FLAGS='$CONTRACT_ALL' contract_compile 'gcc -std=c99' 'clang -std=c99'"
  step contract-cpu sh -c "gcc -std=c99 $WARN -O2 -o $B/test_contract tests/test_contract.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_contract cpu"
  step contract-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o $B/test_contract_asan tests/test_contract.c -ldl -lm && ASAN_OPTIONS=detect_leaks=1 PCLR_SEED=$contract_seed $B/test_contract_asan cpu"
  step contract-cpu-clang sh -c "clang -std=c99 $WARN -O2 -o $B/test_contract_clang tests/test_contract.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_contract_clang cpu"
  step contract-opencl sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_OPENCL -o $B/test_contract_opencl tests/test_contract.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_contract_opencl opencl"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    CONTRACT_SHADERC=$(bash tests/shaderc.sh build)
    step contract-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_contract_vulkan tests/test_contract.c -ldl -lm && PCLR_SHADERC_LIBRARY=$CONTRACT_SHADERC PCLR_SEED=$contract_seed $B/test_contract_vulkan vulkan"
  else
    echo "skip: contract-vulkan (no vulkan/vulkan.h: apt-get install libvulkan-dev)"
  fi
  if [ -n "$CUDA_INC" ]; then
    step contract-cuda sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_contract_cuda tests/test_contract.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_contract_cuda cuda"
  fi

  # 5h. stats' accuracy (tests/test_stats.c, issue 36), against references written in the test: 64-bit integer
  #     timestamps within 1e-12 and the same bits on every backend and knob set; the issue's float and double data
  #     sets within ten times a two-pass algorithm's error; one rule for infinities. One build per backend, the
  #     CPU context first in each (its bits are the others'); the file compiles as C++11 with every backend.
  STATS_ALL="-DPCLR_TEST_OPENCL"
  [ -f /usr/include/vulkan/vulkan.h ] && STATS_ALL="$STATS_ALL -DPCLR_TEST_VULKAN"
  [ -n "$CUDA_INC" ] && STATS_ALL="$STATS_ALL -DPCLR_TEST_CUDA $CUDA_INC"
  step stats-compile sh -c "g++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_stats.c && clang++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_stats.c && clang -std=c99 $WARN $STATS_ALL -fsyntax-only tests/test_stats.c && echo 'stats-compile: 3 passed, 0 failed'"
  step stats-cpu sh -c "gcc -std=c99 $WARN -O2 -o $B/test_stats tests/test_stats.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_stats cpu"
  step stats-opencl sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_OPENCL -o $B/test_stats_opencl tests/test_stats.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_stats_opencl opencl"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    step stats-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_stats_vulkan tests/test_stats.c -ldl -lm && PCLR_SHADERC_LIBRARY=$CONTRACT_SHADERC PCLR_SEED=$contract_seed $B/test_stats_vulkan vulkan"
  fi
  if [ -n "$CUDA_INC" ]; then
    step stats-cuda sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_stats_cuda tests/test_stats.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_stats_cuda cuda"
  fi

  # 5h'. histograms (tests/test_histogram.c, issue 34) against references written in the test: every element type,
  #     bins 1 to 65536 (in local memory and not), clamp, n = 0 to 2^20 + 3 from odd offsets, edges, lo, hi, NaN,
  #     +-inf, maps, combine, async + finalize, quantiles, refusals. One build per backend; CUDA's kernels through
  #     NVRTC here (the launches on a GPU machine); the file compiles as C++11 with every backend.
  step histogram-compile sh -c "g++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_histogram.c && clang++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_histogram.c && clang -std=c99 $WARN $STATS_ALL -fsyntax-only tests/test_histogram.c && echo 'histogram-compile: 3 passed, 0 failed'"
  step histogram-cpu sh -c "gcc -std=c99 $WARN -O2 -o $B/test_histogram tests/test_histogram.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_histogram cpu"
  step histogram-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -o $B/test_histogram_asan tests/test_histogram.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_histogram_asan cpu"
  HIST_BIG=""; [ "${PCLR_TEST_FULL:-0}" != 0 ] && HIST_BIG=--big # (2^32 + 5 elements where a device holds them)
  step histogram-opencl sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_OPENCL -o $B/test_histogram_opencl tests/test_histogram.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_histogram_opencl $HIST_BIG opencl"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    step histogram-vulkan sh -c "gcc -std=c99 $WARN -O2 -DPCLR_TEST_VULKAN -o $B/test_histogram_vulkan tests/test_histogram.c -ldl -lm && PCLR_SHADERC_LIBRARY=$CONTRACT_SHADERC PCLR_SEED=$contract_seed $B/test_histogram_vulkan vulkan"
  fi
  if [ -n "$CUDA_INC" ]; then
    step histogram-nvrtc sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_histogram_cuda tests/test_histogram.c -ldl -lm && $B/test_histogram_cuda --nvrtc-only"
    step histogram-cuda sh -c "PCLR_SEED=$contract_seed $B/test_histogram_cuda $HIST_BIG cuda"
  fi

  # 5i. user-defined reductions (tests/test_reduce.c, issue 33: op custom, cfg.reduce) against references written in
  #     the test: the description's refusals with their sentences (line, column), five worked examples and
  #     descriptions equal to built-ins (each also against the built-in op) at sizes 0 to 2^20 + 3 from odd offsets,
  #     y, RGBA, 64-bit, bitwise, 8 fields and results, rows / columns / segments, pclr_combine, n = 0. One build per
  #     backend (the CPU reference functions and the CPU context in each; each context in a child process, so that
  #     a crash names its case); CPU + OpenCL under ASan/UBSan; every description's CUDA kernel through NVRTC.
  step reduce-compile sh -c "g++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_reduce.c && clang++ -x c++ -std=c++11 $WARN $STATS_ALL -fsyntax-only tests/test_reduce.c && clang -std=c99 $WARN $STATS_ALL -fsyntax-only tests/test_reduce.c && echo 'reduce-compile: 3 passed, 0 failed'"
  step reduce-cpu sh -c "gcc -std=c99 $WARN -O1 -o $B/test_reduce tests/test_reduce.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_reduce cpu"
  step reduce-opencl sh -c "gcc -std=c99 $WARN -O1 -DPCLR_TEST_OPENCL -o $B/test_reduce_opencl tests/test_reduce.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_reduce_opencl opencl"
  step reduce-asan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DPCLR_TEST_OPENCL -o $B/test_reduce_asan tests/test_reduce.c -ldl -lm && ASAN_OPTIONS=detect_leaks=0 PCLR_TEST_QUICK=1 PCLR_SEED=$contract_seed $B/test_reduce_asan cpu opencl"
  if [ -f /usr/include/vulkan/vulkan.h ]; then
    step reduce-vulkan sh -c "gcc -std=c99 $WARN -O1 -DPCLR_TEST_VULKAN -o $B/test_reduce_vulkan tests/test_reduce.c -ldl -lm && PCLR_SHADERC_LIBRARY=$CONTRACT_SHADERC PCLR_SEED=$contract_seed $B/test_reduce_vulkan vulkan"
  fi
  if [ -n "$CUDA_INC" ]; then
    step reduce-cuda sh -c "gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_reduce_cuda tests/test_reduce.c -ldl -lm && PCLR_SEED=$contract_seed $B/test_reduce_cuda cuda"
    # (reduce-cuda's build, where it is newer than the sources)
    step reduce-nvrtc sh -c "{ [ $B/test_reduce_cuda -nt tests/test_reduce.c ] && [ $B/test_reduce_cuda -nt pclreduce.h ] && [ $B/test_reduce_cuda -nt pclreduce_cuda.h ] ||
      gcc -std=c99 $WARN -O1 $CUDA_INC -DPCLR_TEST_CUDA -o $B/test_reduce_cuda tests/test_reduce.c -ldl -lm; } && $B/test_reduce_cuda --nvrtc-only"
  fi

  # 7. robustness: allocation failure injection and bad inputs (plain, ASan/UBSan); libFuzzer
  #    smoke runs and the corpus compile check where clang has libFuzzer
  FAIL_INC=${CUDA_INC:--DPCLR_FAILURES_NO_CUDA}
  step failures sh -c "gcc -std=c99 $WARN -O1 $FAIL_INC -o $B/test_failures tests/test_failures.c -lOpenCL -ldl -lm && $B/test_failures"
  step failures-asan-ubsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all $FAIL_INC -o $B/test_failures_asan tests/test_failures.c -lOpenCL -ldl -lm && ASAN_OPTIONS=detect_leaks=0 $B/test_failures_asan"
  # LeakSanitizer on: the core and OpenCL parts leak nothing, failure injection included (the CUDA part
  # is left out: NVRTC's own libstdc++ pool stays behind when the library is unloaded)
  step failures-lsan sh -c "gcc -std=c99 $WARN -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DPCLR_FAILURES_NO_CUDA -o $B/test_failures_lsan tests/test_failures.c -ldl -lm && ASAN_OPTIONS=detect_leaks=1 $B/test_failures_lsan"
  if have clang && echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' |
       clang -fsanitize=fuzzer -x c - -o "$B/fuzz_probe" >/dev/null 2>&1; then
    step fuzz-smoke make -s fuzz FUZZ_SECONDS=${PCLR_FUZZ_SECONDS:-5}
    step fuzz-compile-corpus bash tests/fuzz/compile_corpus.sh
  else
    echo "skip: clang libFuzzer not found: fuzz smoke runs skipped"
  fi

  # 8. the MPI example (examples/mpi_reduce.c) on 2 ranks on PoCL, where OpenMPI is installed
  if have mpicc && have mpirun; then
    step mpi bash tests/test_mpi.sh
  else
    echo "skip: mpicc/mpirun not found: MPI example not tested (apt-get install openmpi-bin libopenmpi-dev)"
  fi

}

run_lane() { # name: its steps with fresh counts and its own cache; its totals into $B/lane_<name>.sum
  passed=0 failed=0
  export XDG_CACHE_HOME="$PWD/$B/xdg-cache-$1"
  rm -rf "$XDG_CACHE_HOME"
  "lane_$1"
  echo "$passed $failed" >"$B/lane_$1.sum"
}
rm -f "$B"/lane_*.sum
if [ "${PCLR_TEST_LANES:-2}" = 1 ]; then
  (run_lane a); (run_lane b)
else
  (run_lane a) & (run_lane b); wait
fi
for l in a b; do
  if read -r p f <"$B/lane_$l.sum" 2>/dev/null; then passed=$((passed + p)); failed=$((failed + f));
  else failed=$((failed + 1)); echo "FAIL: lane $l ended without its totals"; fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
