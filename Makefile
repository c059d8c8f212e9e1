# pclreduce: the headers need no build; this builds the tools, examples and tests.
#   make            build/pclreduce-gen, build/pclreduce-run, build/demo
#   make demo       the main job: reduce real data on the best device (installs PoCL if missing, as root)
#   make test       the whole test suite (tests/run.sh); closing line "N passed, N failed"
#   make bench      benchmarks against the anchors (bench/run.sh), results under bench/results/

CC        ?= cc
CUDA_PATH ?= /usr/local/cuda
CFLAGS    ?= -O2 -g
WARN       = -std=c99 -Wall -Wextra -Wpedantic -Werror
HEADERS    = pclreduce.h pclreduce_cl.h pclreduce_cuda.h examples/pclr_args.h
LIBS       = -lOpenCL -ldl -lm

# The CUDA backend needs cuda.h/nvrtc.h at compile time only (the driver and
# NVRTC are loaded at run time); without them the tools build OpenCL-only.
ifneq ($(wildcard $(CUDA_PATH)/include/cuda.h),)
CUDA_INC   = -I$(CUDA_PATH)/include
else
CUDA_INC   = -DPCLR_RUN_NO_CUDA -DPCLR_DEMO_NO_CUDA
endif

all: build/pclreduce-gen build/pclreduce-run build/demo

build:
	mkdir -p build

build/pclreduce-gen: gen/pclreduce-gen.c pclreduce.h examples/pclr_args.h | build
	$(CC) $(WARN) $(CFLAGS) -o $@ gen/pclreduce-gen.c

build/pclreduce-run: examples/pclreduce-run.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/pclreduce-run.c $(LIBS)

build/demo: examples/demo.c $(HEADERS) | build
	$(CC) $(WARN) $(CFLAGS) $(CUDA_INC) -o $@ examples/demo.c $(LIBS)

deps:
	bash .ci/deps.sh

demo: deps all
	./build/demo

test: deps all
	CUDA_PATH=$(CUDA_PATH) bash tests/run.sh

bench: all
	bash bench/run.sh

clean:
	rm -rf build

.PHONY: all deps demo test bench clean
