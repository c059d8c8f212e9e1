/* Minimal test harness shared by the test programs: CHECK counts and reports,
   pclr_test_summary prints "N passed, N failed" and gives the exit status.
   tests/run.sh adds the programs' counts into the closing line of make test. */
#ifndef PCLR_TEST_H
#define PCLR_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pclr_test_passed = 0, pclr_test_failed = 0;

/* Records one check; prints failures always, passes only when verbose. */
static int pclr_test_check(int ok, const char *file, int line, const char *fmt, ...) {
    if (ok) {
        ++pclr_test_passed;
    } else {
        va_list ap;
        ++pclr_test_failed;
        fprintf(stdout, "FAIL %s:%d: ", file, line);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
    }
    return ok;
}
#define CHECK(cond, ...) pclr_test_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* "skip" lines are informational: a check that cannot run here (no GPU). */
#define SKIP(...) (fprintf(stdout, "skip: "), fprintf(stdout, __VA_ARGS__), fputc('\n', stdout), fflush(stdout))

static int pclr_test_summary(const char *name) {
    fprintf(stdout, "%s: %d passed, %d failed\n", name, pclr_test_passed, pclr_test_failed);
    return pclr_test_failed ? 1 : 0;
}

/* splitmix64: seeded random numbers for test data (seed printed by each test). */
static uint64_t pclr_test_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A counting allocator (pclr_allocator with user = &counting): a context
   allocates only through it and gives everything back. */
typedef struct pclr_test_counting { long live, calls; } pclr_test_counting;
static inline void *pclr_test_count_alloc(size_t size, void *user) {
    pclr_test_counting *c = (pclr_test_counting *)user;
    ++c->live;
    ++c->calls;
    return malloc(size);
}
static inline void pclr_test_count_free(void *p, void *user) {
    if (p) --((pclr_test_counting *)user)->live;
    free(p);
}

#ifdef PCLREDUCE_H
/* pclr_reduce of n elements of x from element offset into one result, in the shape the older
   tests were written in (the results' capacity: the config's result size, or the largest result
   when the config does not resolve: such a call fails before anything is written). */
static inline pclr_result reduce_one(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t offset, uint64_t n,
                                     void *result) {
    pclr_input in;
    const size_t size = cfg ? pclr_result_size(cfg) : 0;
    memset(&in, 0, sizeof in);
    in.x = x;
    in.x_offset = offset;
    in.n = n;
    return pclr_reduce(ctx, cfg, &in, result, size ? size : sizeof(pclr_stats_result));
}

/* The contexts a test on every backend tries, in order, and whether this build has each
   (PCLR_TEST_OPENCL, PCLR_TEST_VULKAN, PCLR_TEST_CUDA): static const pclr_test_backend all[] = PCLR_TEST_BACKENDS; */
typedef struct pclr_test_backend { const char *name; pclr_backend b; int compiled; } pclr_test_backend;
#ifdef PCLR_TEST_OPENCL
#define PCLR_TEST_HAS_OPENCL 1
#else
#define PCLR_TEST_HAS_OPENCL 0
#endif
#ifdef PCLR_TEST_VULKAN
#define PCLR_TEST_HAS_VULKAN 1
#else
#define PCLR_TEST_HAS_VULKAN 0
#endif
#ifdef PCLR_TEST_CUDA
#define PCLR_TEST_HAS_CUDA 1
#else
#define PCLR_TEST_HAS_CUDA 0
#endif
#define PCLR_TEST_BACKENDS \
    {{"cpu", PCLR_CPU, 1}, {"opencl", PCLR_OPENCL, PCLR_TEST_HAS_OPENCL}, {"vulkan", PCLR_VULKAN, PCLR_TEST_HAS_VULKAN}, {"cuda", PCLR_CUDA, PCLR_TEST_HAS_CUDA}}
#endif

#endif
