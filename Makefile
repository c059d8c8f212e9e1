# pclreduce: the headers need no build; this builds the tools, examples and tests.
#   make            build/pclreduce-gen, build/pclreduce-run, build/pclreduce-tune, build/demo, and
#                   build/libshaderc_shared.so where the system's shaderc does not load (Debian 12)
#   make demo       the main job: reduce real data on the best device (installs PoCL if missing, as root),
#                   then on the Vulkan device where there is one
#   make test       the whole test suite (tests/run.sh); closing line "N passed, N failed"
#   make bench      benchmarks against the anchors (bench/run.sh), results under bench/results/
#   make accuracy   the accuracy table (bench/bench_accuracy.c) on the CPU reference, OpenCL and Vulkan here
#   make kernels    the golden kernels under tests/kernels/, rewritten (CI fails where they differ from the generator's)

CC        ?= cc
CUDA_PATH ?= /usr/local/cuda
CFLAGS    ?= -O2 -g
WARN       = -std=c99 -Wall -Wextra -Wpedantic -Werror
HEADERS    = pclreduce.h pclreduce_cl.h pclreduce_cuda.h pclreduce_vk.h examples/pclr_args.h
# OpenCL, the CUDA driver and NVRTC are loaded at run time (dlopen): no -lOpenCL
# (programs built with -DPCLREDUCE_NO_RUNTIME_LINKING add -lOpenCL -lcuda -lnvrtc)
LIBS       = -ldl -lm

# The CUDA backend needs cuda.h/nvrtc.h at compile time only (the driver and
# NVRTC are loaded at run time); without them the tools build OpenCL-only.
ifneq ($(wildcard $(CUDA_PATH)/include/cuda.h),)
CUDA_INC   = -I$(CUDA_PATH)/include
else
CUDA_INC   = -DPCLR_RUN_NO_CUDA -DPCLR_DEMO_NO_CUDA
endif

# The Vulkan backend needs vulkan/vulkan.h at compile time only (the loader and
# shaderc are loaded at run time); without it the tools, demo and auto_exposure
# build without Vulkan (apt-get install libvulkan-dev).
PCLR_HASH := \#
ifneq ($(shell printf '$(PCLR_HASH)include <vulkan/vulkan.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes),yes)
CUDA_INC  += -DPCLR_RUN_NO_VULKAN -DPCLR_DEMO_NO_VULKAN
endif

all: build/pclreduce-gen build/pclreduce-run build/pclreduce-tune build/demo build/libshaderc_shared.so

build:
	mkdir -p build

build/pclreduce-gen: gen/pclreduce-gen.c pclreduce.h examples/pclr_args.h | build
	$(CC) $(WARN) $(CFLAGS) -o $@ gen/pclreduce-gen.c -lm

build/pclreduce-run: examples/pclreduce-run.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/pclreduce-run.c $(LIBS)

build/pclreduce-tune: examples/pclreduce-tune.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/pclreduce-tune.c $(LIBS)

build/demo: examples/demo.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/demo.c $(LIBS)

# A shaderc for the Vulkan backend where the system's does not load: Debian 12's libshaderc1 leaves glslang's and
# SPIRV-Tools' symbols undefined (they ship only as static libraries); tests/shaderc.sh links them around it. The
# tools, demo and auto_exposure load build/libshaderc_shared.so from beside themselves when PCLR_SHADERC_LIBRARY is
# unset (examples/pclr_args.h). Where the system's loads, or glslang-dev is missing, nothing is built (the recipe then
# runs each time: it only checks). The CMake build does not make it (set PCLR_SHADERC_LIBRARY there).
build/libshaderc_shared.so: tests/shaderc.sh | build
	@sc=$$(bash tests/shaderc.sh build); case "$$sc" in \
	  */build/libshaderc_shared.so) echo "shaderc: $$sc (Debian's libshaderc.so.1 with its static glslang linked in)" ;; \
	  "") echo "shaderc: none that loads (Vulkan needs one: apt-get install libshaderc-dev glslang-dev spirv-tools)" ;; \
	  *) ;; \
	esac; [ ! -f $@ ] || touch $@

# the golden kernels under tests/kernels/ (tests/kernels/list.txt), rewritten with pclreduce-gen; CI fails where they differ
kernels: build/pclreduce-gen
	bash tests/kernels.sh

deps:
	bash .ci/deps.sh

# shaderc for the demo's Vulkan table: $PCLR_SHADERC_LIBRARY, else build/libshaderc_shared.so (made by all where the
# system's does not load; the demo finds it beside itself), else libshaderc.so.1, else none (the demo prints
# "vulkan: skipped: ...")
# (deps first, then a fresh make: the Vulkan check above reads vulkan/vulkan.h as deps leaves it)
demo: deps
	$(MAKE) all
	./build/demo

test: deps
	$(MAKE) all
	CUDA_PATH=$(CUDA_PATH) bash tests/run.sh

# one suite and its variants (sanitizers, NVRTC), by the step names of tests/run.sh: make test-map,
# make test-vulkan, make test-core (PCLR_TEST_STEPS=REGEX bash tests/run.sh: any set of steps)
test-%: deps
	$(MAKE) all
	CUDA_PATH=$(CUDA_PATH) bash tests/run.sh '^($*)(-|$$)'

# every sampled matrix in full (the knob sweeps, the map table): slower than CI's make test
test-full: deps
	$(MAKE) all
	PCLR_TEST_FULL=1 CUDA_PATH=$(CUDA_PATH) bash tests/run.sh

bench: all
	bash bench/run.sh

# the accuracy table: each float accumulator and stats against long double references, next to the stated
# bounds (bench/results/accuracy-*/); the backends compiled in that have a device here
build/bench_accuracy: bench/bench_accuracy.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) -DBENCH_OPENCL $(if $(findstring PCLR_RUN_NO_VULKAN,$(CUDA_INC)),,-DBENCH_VULKAN) -o $@ $< $(LIBS)

accuracy: build/bench_accuracy build/libshaderc_shared.so
	PCLR_SHADERC_LIBRARY=$$(bash tests/shaderc.sh build) build/bench_accuracy

clean:
	rm -rf build

.PHONY: all deps demo test test-full bench accuracy clean kernels

# ---- embedding: make install, the auto-exposure example ---------------------
#   make install PREFIX=/opt/pclreduce   headers -> $(PREFIX)/include, tools (gen, run, tune) -> $(PREFIX)/bin,
#                                        pclreduce.pc and the CMake package -> $(PREFIX)/lib
#   build/auto_exposure [in.ppm|in.pfm] [out.ppm]   game-engine example (examples/auto_exposure.c)
PREFIX          ?= /usr/local
DESTDIR         ?=
PCLR_VERSION    := $(shell sed -n 's/^\#define PCLREDUCE_VERSION "\(.*\)"/\1/p' pclreduce.h)
PCLR_INSTALL_TO  = $(DESTDIR)$(PREFIX)
PCLR_SUBST       = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(PCLR_VERSION)|g'

all: build/auto_exposure build/maps

build/auto_exposure: examples/auto_exposure.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/auto_exposure.c $(LIBS)

build/maps: examples/maps.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/maps.c $(LIBS)

install: build/pclreduce-gen build/pclreduce-run build/pclreduce-tune
	install -d $(PCLR_INSTALL_TO)/include $(PCLR_INSTALL_TO)/bin \
	    $(PCLR_INSTALL_TO)/lib/pkgconfig $(PCLR_INSTALL_TO)/lib/cmake/pclreduce
	install -m 644 pclreduce.h pclreduce_cl.h pclreduce_cuda.h pclreduce_vk.h $(PCLR_INSTALL_TO)/include/
	install -m 755 build/pclreduce-gen build/pclreduce-run build/pclreduce-tune $(PCLR_INSTALL_TO)/bin/
	$(PCLR_SUBST) cmake/pclreduce.pc.in > $(PCLR_INSTALL_TO)/lib/pkgconfig/pclreduce.pc
	$(PCLR_SUBST) cmake/pclreduceConfig.cmake.in > $(PCLR_INSTALL_TO)/lib/cmake/pclreduce/pclreduceConfig.cmake
	$(PCLR_SUBST) cmake/pclreduceConfigVersion.cmake.in > $(PCLR_INSTALL_TO)/lib/cmake/pclreduce/pclreduceConfigVersion.cmake

uninstall:
	rm -f $(addprefix $(PCLR_INSTALL_TO)/include/,pclreduce.h pclreduce_cl.h pclreduce_cuda.h pclreduce_vk.h) \
	    $(addprefix $(PCLR_INSTALL_TO)/bin/,pclreduce-gen pclreduce-run pclreduce-tune) \
	    $(PCLR_INSTALL_TO)/lib/pkgconfig/pclreduce.pc \
	    $(addprefix $(PCLR_INSTALL_TO)/lib/cmake/pclreduce/,pclreduceConfig.cmake pclreduceConfigVersion.cmake)
	-rmdir $(PCLR_INSTALL_TO)/lib/cmake/pclreduce

test-install:
	bash tests/test_install.sh

.PHONY: install uninstall test-install

# --- robustness: failure injection test and libFuzzer harnesses --------------
#   make test-failures       tests/test_failures.c, plain and under ASan/UBSan
#   make fuzz                builds build/fuzz_generator, build/fuzz_cli, build/fuzz_tune (the tuning
#                            file), build/fuzz_cache (cache files) and build/fuzz_map (map expressions, and
#                            reductions' descriptions: op custom's cfg.reduce)
#                            with clang's libFuzzer and runs
#                            each for FUZZ_SECONDS (default 60) on tests/fuzz/corpus/*
#   make fuzz-compile-corpus every valid config of the generator corpus compiles (PoCL, NVRTC)
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS    = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.
FUZZ_CUDA_INC = $(if $(wildcard $(CUDA_PATH)/include/cuda.h),-I$(CUDA_PATH)/include,-DPCLR_FAILURES_NO_CUDA)

build/fuzz_generator: tests/fuzz/fuzz_generator.c pclreduce.h | build
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_generator.c -lm

build/fuzz_cli: tests/fuzz/fuzz_cli.c pclreduce.h examples/pclr_args.h | build
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_cli.c -lm

build/fuzz_tune: tests/fuzz/fuzz_tune.c pclreduce.h | build
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_tune.c

build/fuzz_cache: tests/fuzz/fuzz_cache.c pclreduce.h | build
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_cache.c

build/fuzz_map: tests/fuzz/fuzz_map.c pclreduce.h | build
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_map.c -lm

fuzz: build/fuzz_generator build/fuzz_cli build/fuzz_tune build/fuzz_cache build/fuzz_map
	mkdir -p build/fuzz_corpus/generator build/fuzz_corpus/cli build/fuzz_corpus/tune build/fuzz_corpus/cache build/fuzz_corpus/map
	./build/fuzz_generator -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz_corpus/generator tests/fuzz/corpus/generator
	./build/fuzz_cli -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz_corpus/cli tests/fuzz/corpus/cli
	./build/fuzz_tune -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz_corpus/tune tests/fuzz/corpus/tune
	./build/fuzz_cache -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz_corpus/cache tests/fuzz/corpus/cache
	./build/fuzz_map -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz_corpus/map tests/fuzz/corpus/map

fuzz-compile-corpus: build/fuzz_generator
	bash tests/fuzz/compile_corpus.sh

build/tests/test_failures: tests/test_failures.c tests/pclr_test.h $(HEADERS) | build
	mkdir -p build/tests
	gcc $(WARN) -O1 $(FUZZ_CUDA_INC) -o $@ tests/test_failures.c $(LIBS)

test-failures: build/tests/test_failures
	./build/tests/test_failures
	gcc $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all $(FUZZ_CUDA_INC) \
	    -o build/tests/test_failures_asan tests/test_failures.c $(LIBS)
	ASAN_OPTIONS=detect_leaks=0 ./build/tests/test_failures_asan

.PHONY: fuzz fuzz-compile-corpus test-failures

# --- several machines: MPI example, built where mpicc exists -----------------
#   build/mpi_reduce   mpirun -np R build/mpi_reduce --type T --op O --n N [--seed S] [--check]
#   make mpi-test      tests/test_mpi.sh: mpirun -np 2 on PoCL, 33 type/op pairs covering every type and op
#   make mpi-gpu       examples/mpi_gpu.sh: 1 and 2 ranks (one GPU each), every type/op checked, and
#                      the 2^31-float sum timed with 1 and 2 ranks (MPI_GPU_ARGS: its flags)
MPICC         ?= mpicc
MPI_CUDA_INC   = $(if $(wildcard $(CUDA_PATH)/include/cuda.h),-I$(CUDA_PATH)/include,-DPCLR_MPI_NO_CUDA)
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
all: build/mpi_reduce
endif

build/mpi_reduce: examples/mpi_reduce.c $(HEADERS) | build
	$(MPICC) $(WARN) $(CFLAGS) $(MPI_CUDA_INC) -o $@ examples/mpi_reduce.c $(LIBS)

mpi-test:
	bash tests/test_mpi.sh

mpi-gpu:
	bash examples/mpi_gpu.sh $(MPI_GPU_ARGS)

.PHONY: mpi-test mpi-gpu
