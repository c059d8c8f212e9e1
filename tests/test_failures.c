/* Failure injection and bad input (issue #7, robustness).

   1. A counting allocator (pclr_allocator) fails the k-th host allocation of a
      whole OpenCL scenario (create on the test's own cl_context/queue,
      prepare, reduce, a second config, destroy), for every k from 1 to the
      number of allocations the scenario makes. Every call either succeeds or
      returns an error (PCLR_ERR_OUT_OF_MEMORY when the failed allocation was
      its own) with a non-empty pclr_cl_last_error; nothing leaks (the
      allocator counts live blocks); and a context that was created still
      reduces correctly once allocations succeed again.
   2. The same for pclr_cuda_create without a GPU (no driver: a clean error,
      no leak, for every k), with the usual library names and a bogus path.
   3. A table of bad inputs: NULL pointers to every public entry point, NULL
      contexts, n + offset overflow, offsets past the buffer, buffers too small.

   Build: gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -I/usr/local/cuda/include
          tests/test_failures.c -lOpenCL -ldl -lm
   (define PCLR_FAILURES_NO_CUDA to leave the CUDA part out). */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid: calls that may crash run in a child */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_FAILURES_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child process: 1 if it returned fn's expected answer (1),
   0 if it answered otherwise or crashed. Keeps the other checks running. */
static int in_child(int (*fn)(void)) {
    int status = 0;
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid < 0) return fn();
    if (pid == 0) _exit(fn() ? 0 : 1);
    if (waitpid(pid, &status, 0) != pid) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
static int parse_null_out(void) {
    return pclr_parse_type("uint", NULL) == PCLR_ERR_NULL_POINTER &&
           pclr_parse_op("sum", NULL) == PCLR_ERR_NULL_POINTER &&
           pclr_parse_dialect("cuda", NULL) == PCLR_ERR_NULL_POINTER &&
           pclr_parse_stride("local", NULL) == PCLR_ERR_NULL_POINTER &&
           pclr_parse_variant("naive", NULL) == PCLR_ERR_NULL_POINTER &&
           pclr_parse_finish("atomic", NULL) == PCLR_ERR_NULL_POINTER;
}

/* ------------------------------------------------------- counting allocator */
typedef struct counting {
    long calls;   /* allocations asked for */
    long fail_at; /* 1-based call that fails; 0 = none */
    long live;    /* blocks handed out and not yet freed */
    long failures;
} counting;

static void *count_alloc(size_t size, void *user) {
    counting *c = (counting *)user;
    ++c->calls;
    if (c->fail_at && c->calls == c->fail_at) {
        ++c->failures;
        return NULL;
    }
    {
        void *p = malloc(size ? size : 1);
        if (p) ++c->live;
        return p;
    }
}
static void count_free(void *p, void *user) {
    counting *c = (counting *)user;
    if (!p) return;
    --c->live;
    free(p);
}
static pclr_allocator counting_allocator(counting *c) {
    pclr_allocator a;
    a.alloc = count_alloc;
    a.free = count_free;
    a.user = c;
    return a;
}

/* ------------------------------------------------------------ OpenCL side */
#define N_ELEMS 1000
#define OFFSET 3
static cl_context g_clctx;
static cl_command_queue g_queue;
static cl_device_id g_dev;
static cl_mem g_buf_u, g_buf_f;
static uint32_t g_host_u[N_ELEMS + OFFSET];
static float g_host_f[N_ELEMS + OFFSET];
static uint32_t g_want_u;
static float g_want_f;

static int cl_setup(void) {
    cl_platform_id plat;
    cl_uint np = 0, nd = 0;
    cl_int err;
    size_t i;
    uint64_t seed = 7;
    if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0) return 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &g_dev, &nd) != CL_SUCCESS || nd == 0) return 0;
    g_clctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 0;
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    g_queue = clCreateCommandQueue(g_clctx, g_dev, 0, &err);
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
    if (err != CL_SUCCESS) return 0;
    for (i = 0; i < N_ELEMS + OFFSET; ++i) {
        g_host_u[i] = (uint32_t)pclr_test_rand(&seed);
        g_host_f[i] = (float)((int)(i % 97) - 48) * 0.25f;
    }
    g_buf_u = clCreateBuffer(g_clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof g_host_u, g_host_u, &err);
    if (err != CL_SUCCESS) return 0;
    g_buf_f = clCreateBuffer(g_clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof g_host_f, g_host_f, &err);
    if (err != CL_SUCCESS) return 0;
    pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, g_host_u + OFFSET, N_ELEMS, &g_want_u);
    pclr_cpu_reduce(PCLR_FLOAT, PCLR_MAX, g_host_f + OFFSET, N_ELEMS, &g_want_f);
    return 1;
}

static pclr_config cfg_u(void) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT;
    c.op = PCLR_SUM;
    return c;
}
static pclr_config cfg_f(void) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;
    c.op = PCLR_MAX;
    c.group_size = 128;
    c.finish = PCLR_FINISH_PARTIALS;
    return c;
}

/* One call's outcome: OK, or an error with a sentence; OUT_OF_MEMORY exactly
   when this call's own allocation was the one that failed. */
static void check_call(pclr_cl_context *ctx, counting *cnt, long calls_before, long fails_before, pclr_result r,
                       long k, const char *what) {
    int failed_here = cnt->failures != fails_before;
    (void)calls_before;
    if (r == PCLR_OK) return;
    CHECK(failed_here, "k=%ld %s: %s without an allocation failure", k, what, pclr_result_string(r));
    CHECK(r == PCLR_ERR_OUT_OF_MEMORY, "k=%ld %s: %s instead of out of memory", k, what, pclr_result_string(r));
    CHECK(pclr_cl_last_error(ctx)[0] != '\0', "k=%ld %s: failed (%s) with an empty pclr_cl_last_error", k, what,
          pclr_result_string(r));
}

#define STEP(what, call)                                                   \
    do {                                                                   \
        long cb_ = cnt.calls, fb_ = cnt.failures;                          \
        r = (call);                                                        \
        check_call(ctx, &cnt, cb_, fb_, r, k, what);                       \
    } while (0)

/* The whole scenario with the k-th allocation failing (k = 0: none).
   Returns the number of allocations it asked for. */
static long cl_scenario(long k) {
    counting cnt;
    pclr_cl_desc desc;
    pclr_cl_context *ctx = NULL;
    pclr_config cu = cfg_u(), cf = cfg_f();
    pclr_result r;
    uint32_t gu = 0;
    float gf = 0;
    long total;
    memset(&cnt, 0, sizeof cnt);
    cnt.fail_at = k;
    memset(&desc, 0, sizeof desc);
    desc.context = g_clctx;
    desc.queue = g_queue;
    desc.allocator = counting_allocator(&cnt);

    r = pclr_cl_create(&desc, &ctx);
    if (r != PCLR_OK) {
        CHECK(cnt.failures == 1, "k=%ld create: %s without an allocation failure", k, pclr_result_string(r));
        CHECK(r == PCLR_ERR_OUT_OF_MEMORY, "k=%ld create: %s instead of out of memory", k, pclr_result_string(r));
        CHECK(ctx == NULL, "k=%ld create failed but *out is not NULL", k);
        CHECK(cnt.live == 0, "k=%ld create failed and left %ld blocks", k, cnt.live);
        return cnt.calls;
    }
    CHECK(ctx != NULL, "k=%ld create OK but *out is NULL", k);
    STEP("prepare uint sum", pclr_cl_prepare(ctx, &cu));
    STEP("reduce uint sum", pclr_cl_reduce(ctx, &cu, g_buf_u, OFFSET, N_ELEMS, &gu));
    if (r == PCLR_OK) CHECK(gu == g_want_u, "k=%ld uint sum %u, want %u", k, (unsigned)gu, (unsigned)g_want_u);
    STEP("prepare float max", pclr_cl_prepare(ctx, &cf));
    STEP("reduce float max", pclr_cl_reduce(ctx, &cf, g_buf_f, OFFSET, N_ELEMS, &gf));
    if (r == PCLR_OK) CHECK(gf == g_want_f, "k=%ld float max %g, want %g", k, (double)gf, (double)g_want_f);
    STEP("reduce n=0", pclr_cl_reduce(ctx, &cu, NULL, 0, 0, &gu));
    if (r == PCLR_OK) CHECK(gu == 0, "k=%ld n=0 gives %u", k, (unsigned)gu);
    total = cnt.calls;

    /* allocations work again: the same context must still reduce correctly */
    cnt.fail_at = 0;
    gu = 0;
    gf = 0;
    r = pclr_cl_reduce(ctx, &cu, g_buf_u, OFFSET, N_ELEMS, &gu);
    CHECK(r == PCLR_OK && gu == g_want_u, "k=%ld after the failure: uint sum %s %u, want %u (%s)", k,
          pclr_result_string(r), (unsigned)gu, (unsigned)g_want_u, pclr_cl_last_error(ctx));
    r = pclr_cl_reduce(ctx, &cf, g_buf_f, OFFSET, N_ELEMS, &gf);
    CHECK(r == PCLR_OK && gf == g_want_f, "k=%ld after the failure: float max %s %g, want %g (%s)", k,
          pclr_result_string(r), (double)gf, (double)g_want_f, pclr_cl_last_error(ctx));
    pclr_cl_destroy(ctx);
    CHECK(cnt.live == 0, "k=%ld destroy left %ld blocks", k, cnt.live);
    if (k == 0) CHECK(cnt.failures == 0, "k=0 saw failures");
    return total;
}

static void cl_failure_injection(void) {
    long total = cl_scenario(0), k;
    CHECK(total >= 3, "the scenario makes %ld allocations (expected a few)", total);
    printf("opencl scenario: %ld allocations; failing each in turn\n", total);
    for (k = 1; k <= total + 1; ++k) cl_scenario(k);
}

/* Bad inputs to the OpenCL entry points. */
static void cl_bad_inputs(void) {
    pclr_cl_desc desc;
    pclr_cl_context *ctx = (pclr_cl_context *)&desc, *ok = NULL;
    pclr_config cu = cfg_u(), out;
    uint32_t v = 0;
    char buf[64];
    cl_int err;
    cl_mem res;
    cl_event ev = (cl_event)&desc;
    counting cnt;

    memset(&desc, 0, sizeof desc);
    CHECK(pclr_cl_create(NULL, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL, "cl_create(NULL desc)");
    desc.context = g_clctx;
    desc.queue = g_queue;
    CHECK(pclr_cl_create(&desc, NULL) == PCLR_ERR_NULL_POINTER, "cl_create(NULL out)");
    desc.context = NULL;
    CHECK(pclr_cl_create(&desc, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL, "cl_create(context NULL)");
    desc.context = g_clctx;
    desc.queue = NULL;
    CHECK(pclr_cl_create(&desc, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL, "cl_create(queue NULL)");
    desc.queue = g_queue;
    memset(&cnt, 0, sizeof cnt);
    desc.allocator = counting_allocator(&cnt);
    desc.allocator.free = NULL;
    CHECK(pclr_cl_create(&desc, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL && cnt.calls == 0,
          "cl_create(allocator with alloc but no free)");
    desc.allocator = counting_allocator(&cnt);
    desc.allocator.alloc = NULL;
    CHECK(pclr_cl_create(&desc, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL, "cl_create(allocator with free only)");
    CHECK(pclr_cl_create_default(-1, -1, NULL) == PCLR_ERR_NULL_POINTER, "cl_create_default(NULL out)");
    ctx = (pclr_cl_context *)&desc;
    CHECK(pclr_cl_create_default(999, -1, &ctx) == PCLR_ERR_NO_DEVICE && ctx == NULL, "cl_create_default(platform 999)");
    ctx = (pclr_cl_context *)&desc;
    CHECK(pclr_cl_create_default(-1, 9999, &ctx) == PCLR_ERR_NO_DEVICE && ctx == NULL, "cl_create_default(device 9999)");

    pclr_cl_destroy(NULL);
    CHECK(pclr_cl_get_features(NULL) == NULL, "get_features(NULL)");
    CHECK(pclr_cl_get_cl_context(NULL) == NULL, "get_cl_context(NULL)");
    CHECK(pclr_cl_get_queue(NULL) == NULL, "get_queue(NULL)");
    CHECK(pclr_cl_build_log(NULL) != NULL, "build_log(NULL) is never NULL");
    CHECK(pclr_cl_last_error(NULL) != NULL, "last_error(NULL) is never NULL");
    CHECK(pclr_cl_describe(NULL, buf, sizeof buf) > 0 && strlen(buf) < sizeof buf, "describe(NULL)");
    CHECK(pclr_cl_resolve(NULL, &cu, &out) == PCLR_ERR_INVALID_CONTEXT, "resolve(NULL ctx)");
    CHECK(pclr_cl_prepare(NULL, &cu) == PCLR_ERR_INVALID_CONTEXT, "prepare(NULL ctx)");
    CHECK(pclr_cl_reduce(NULL, &cu, g_buf_u, 0, 1, &v) == PCLR_ERR_INVALID_CONTEXT, "reduce(NULL ctx)");
    CHECK(pclr_cl_reduce_async(NULL, &cu, g_buf_u, 0, 1, g_buf_u, 0, 0, NULL, &ev) == PCLR_ERR_INVALID_CONTEXT &&
              ev == NULL,
          "reduce_async(NULL ctx) clears *done");

    memset(&desc, 0, sizeof desc);
    desc.context = g_clctx;
    desc.queue = g_queue;
    if (!CHECK(pclr_cl_create(&desc, &ok) == PCLR_OK && ok, "cl_create on the test's queue")) return;
    ctx = ok;
#define BAD(call, want, what)                                                                                \
    do {                                                                                                     \
        pclr_result r_ = (call);                                                                             \
        CHECK(r_ == (want), "%s: %s, want %s", what, pclr_result_string(r_), pclr_result_string(want));      \
        if (r_ != PCLR_OK) CHECK(pclr_cl_last_error(ctx)[0] != '\0', "%s: empty pclr_cl_last_error", what); \
    } while (0)
    BAD(pclr_cl_resolve(ctx, NULL, &out), PCLR_ERR_NULL_POINTER, "resolve(NULL cfg)");
    BAD(pclr_cl_resolve(ctx, &cu, NULL), PCLR_ERR_NULL_POINTER, "resolve(NULL out)");
    BAD(pclr_cl_prepare(ctx, NULL), PCLR_ERR_NULL_POINTER, "prepare(NULL cfg)");
    BAD(pclr_cl_reduce(ctx, NULL, g_buf_u, 0, 1, &v), PCLR_ERR_NULL_POINTER, "reduce(NULL cfg)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, 0, 1, NULL), PCLR_ERR_NULL_POINTER, "reduce(NULL result)");
    BAD(pclr_cl_reduce(ctx, &cu, NULL, 0, 1, &v), PCLR_ERR_NULL_POINTER, "reduce(NULL in, n=1)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, 1, UINT64_MAX, &v), PCLR_ERR_SIZE_OVERFLOW, "reduce(offset 1, n UINT64_MAX)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, UINT64_MAX, 1, &v), PCLR_ERR_SIZE_OVERFLOW, "reduce(offset UINT64_MAX, n 1)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, 0, UINT64_MAX, &v), PCLR_ERR_SIZE_OVERFLOW, "reduce(n UINT64_MAX)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, UINT64_MAX / 4, 0, &v), PCLR_ERR_SIZE_OVERFLOW, "reduce(offset*4 overflows)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, N_ELEMS + OFFSET + 1, 0, &v), PCLR_ERR_SIZE_OVERFLOW,
        "reduce(offset past the buffer, n 0)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, N_ELEMS + OFFSET, 1, &v), PCLR_ERR_SIZE_OVERFLOW,
        "reduce(offset at the end, n 1)");
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, OFFSET, N_ELEMS + 1, &v), PCLR_ERR_SIZE_OVERFLOW,
        "reduce(one element too many)");
    v = 1;
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, OFFSET, N_ELEMS, &v), PCLR_OK, "reduce(exactly to the end)");
    CHECK(v == g_want_u, "reduce(exactly to the end) = %u, want %u", (unsigned)v, (unsigned)g_want_u);
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, N_ELEMS + OFFSET, 0, &v), PCLR_OK, "reduce(offset at the end, n 0)");
    CHECK(v == 0, "reduce(n 0) gives the identity");

    res = clCreateBuffer(g_clctx, CL_MEM_READ_WRITE, 2 * sizeof(uint32_t), NULL, &err);
    if (CHECK(err == CL_SUCCESS, "clCreateBuffer(result)")) {
        ev = (cl_event)&desc;
        BAD(pclr_cl_reduce_async(ctx, NULL, g_buf_u, 0, 1, res, 0, 0, NULL, &ev), PCLR_ERR_NULL_POINTER,
            "reduce_async(NULL cfg)");
        CHECK(ev == NULL, "reduce_async(NULL cfg) clears *done");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, 0, 1, NULL, 0, 0, NULL, NULL), PCLR_ERR_NULL_POINTER,
            "reduce_async(NULL out)");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, 0, 1, res, 0, 2, NULL, NULL), PCLR_ERR_NULL_POINTER,
            "reduce_async(num_wait 2, NULL list)");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, 0, 1, res, 2, 0, NULL, NULL), PCLR_ERR_SIZE_OVERFLOW,
            "reduce_async(out_offset past the output)");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, 0, 1, res, UINT64_MAX, 0, NULL, NULL), PCLR_ERR_SIZE_OVERFLOW,
            "reduce_async(out_offset UINT64_MAX)");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, 1, UINT64_MAX, res, 0, 0, NULL, NULL), PCLR_ERR_SIZE_OVERFLOW,
            "reduce_async(offset + n overflows)");
        BAD(pclr_cl_reduce_async(ctx, &cu, g_buf_u, OFFSET, N_ELEMS, res, 1, 0, NULL, NULL), PCLR_OK,
            "reduce_async(out_offset 1)");
        clFinish(g_queue);
        {
            uint32_t got[2] = {0, 0};
            clEnqueueReadBuffer(g_queue, res, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
            CHECK(got[1] == g_want_u, "reduce_async(out_offset 1) wrote %u, want %u", (unsigned)got[1],
                  (unsigned)g_want_u);
        }
        clReleaseMemObject(res);
    }
    /* bad configurations through the backend */
    {
        pclr_config c = cu;
        c.type = (pclr_type)99;
        BAD(pclr_cl_reduce(ctx, &c, g_buf_u, 0, 1, &v), PCLR_ERR_INVALID_ENUM, "reduce(type 99)");
        c = cu;
        c.group_size = 100;
        BAD(pclr_cl_prepare(ctx, &c), PCLR_ERR_INVALID_KNOB, "prepare(group 100)");
        c = cu;
        c.dialect = PCLR_CUDA;
        BAD(pclr_cl_prepare(ctx, &c), PCLR_ERR_UNSUPPORTED_COMBINATION, "prepare(dialect cuda)");
        c = cu;
        c.type = PCLR_FLOAT;
        c.finish = PCLR_FINISH_ATOMIC;
        BAD(pclr_cl_prepare(ctx, &c), PCLR_ERR_UNSUPPORTED_COMBINATION, "prepare(float + atomic)");
    }
    /* the context still works after all of that */
    v = 0;
    BAD(pclr_cl_reduce(ctx, &cu, g_buf_u, OFFSET, N_ELEMS, &v), PCLR_OK, "reduce after the bad calls");
    CHECK(v == g_want_u, "reduce after the bad calls = %u", (unsigned)v);
#undef BAD
    pclr_cl_destroy(ok);
}

/* ------------------------------------------------------------- CUDA side */
#ifndef PCLR_FAILURES_NO_CUDA
static void cuda_failure_injection(void) {
    static const char *const paths[2] = {NULL, "/nonexistent/pclr/libcuda.so.1"};
    int p;
    for (p = 0; p < 2; ++p) {
        long total = 0, k;
        for (k = 0; k <= total + 1; ++k) {
            counting cnt;
            pclr_cuda_desc desc;
            pclr_cuda_context *ctx = NULL;
            pclr_result r;
            memset(&cnt, 0, sizeof cnt);
            cnt.fail_at = k;
            memset(&desc, 0, sizeof desc);
            desc.driver_path = paths[p];
            desc.allocator = counting_allocator(&cnt);
            r = pclr_cuda_create(&desc, &ctx);
            if (k == 0) total = cnt.calls;
            if (r == PCLR_OK) {
                /* a GPU is there: fine, as long as it balances */
                CHECK(ctx && pclr_cuda_get_features(ctx), "cuda k=%ld create OK without features", k);
            } else if (!ctx) {
                CHECK(cnt.failures == 1 && r == PCLR_ERR_OUT_OF_MEMORY,
                      "cuda path %d k=%ld: create failed (%s) without a context, not for its allocation", p, k,
                      pclr_result_string(r));
            } else {
                CHECK(pclr_cuda_last_error(ctx)[0] != '\0', "cuda path %d k=%ld: %s with an empty last_error", p, k,
                      pclr_result_string(r));
                CHECK(pclr_cuda_get_features(ctx) == NULL, "cuda path %d k=%ld: failed context has features", p, k);
                if (cnt.failures)
                    CHECK(r == PCLR_ERR_OUT_OF_MEMORY || r == PCLR_ERR_NO_DRIVER,
                          "cuda path %d k=%ld: %s after an allocation failure", p, k, pclr_result_string(r));
                else
                    CHECK(r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE,
                          "cuda path %d k=%ld: %s without a GPU (want no driver / no device)", p, k,
                          pclr_result_string(r));
                if (p == 1) CHECK(r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_OUT_OF_MEMORY,
                                  "cuda bogus driver path k=%ld: %s", k, pclr_result_string(r));
            }
            pclr_cuda_destroy(ctx);
            CHECK(cnt.live == 0, "cuda path %d k=%ld: %ld blocks left after destroy", p, k, cnt.live);
        }
        printf("cuda create (%s): %ld allocations; failing each in turn\n", paths[p] ? paths[p] : "usual names", total);
    }
}

static void cuda_bad_inputs(void) {
    pclr_cuda_context *ctx = NULL;
    pclr_cuda_desc desc;
    pclr_config cu = cfg_u(), out;
    CUdeviceptr d = 0;
    uint32_t v = 0;
    char buf[64];
    pclr_result r;
    CHECK(pclr_cuda_create(NULL, NULL) == PCLR_ERR_NULL_POINTER, "cuda_create(NULL, NULL)");
    memset(&desc, 0, sizeof desc);
    CHECK(pclr_cuda_create(&desc, NULL) == PCLR_ERR_NULL_POINTER, "cuda_create(desc, NULL)");
    pclr_cuda_destroy(NULL);
    CHECK(pclr_cuda_get_features(NULL) == NULL, "cuda_get_features(NULL)");
    CHECK(pclr_cuda_build_log(NULL) != NULL, "cuda_build_log(NULL)");
    CHECK(pclr_cuda_last_error(NULL) != NULL && pclr_cuda_last_error(NULL)[0], "cuda_last_error(NULL) says so");
    CHECK(pclr_cuda_describe(NULL, buf, sizeof buf) > 0 && strlen(buf) < sizeof buf, "cuda_describe(NULL)");
    CHECK(pclr_cuda_resolve(NULL, &cu, &out) == PCLR_ERR_INVALID_CONTEXT, "cuda_resolve(NULL ctx)");
    CHECK(pclr_cuda_prepare(NULL, &cu) == PCLR_ERR_INVALID_CONTEXT, "cuda_prepare(NULL ctx)");
    CHECK(pclr_cuda_reduce(NULL, &cu, 0, 0, 1, 0, &v) == PCLR_ERR_INVALID_CONTEXT, "cuda_reduce(NULL ctx)");
    CHECK(pclr_cuda_reduce_async(NULL, &cu, 0, 0, 1, 0, 0) == PCLR_ERR_INVALID_CONTEXT, "cuda_reduce_async(NULL ctx)");
    CHECK(pclr_cuda_alloc(NULL, 16, &d) != PCLR_OK, "cuda_alloc(NULL ctx)");
    CHECK(pclr_cuda_alloc(NULL, 16, NULL) != PCLR_OK, "cuda_alloc(NULL ctx, NULL out)");
    CHECK(pclr_cuda_free(NULL, (CUdeviceptr)16) != PCLR_OK, "cuda_free(NULL ctx, ptr)");
    CHECK(pclr_cuda_copy_to_device(NULL, 0, &v, 4) != PCLR_OK, "cuda_copy_to_device(NULL ctx)");
    CHECK(pclr_cuda_copy_to_host(NULL, &v, 0, 4) != PCLR_OK, "cuda_copy_to_host(NULL ctx)");
    CHECK(pclr_cuda_compile_check(NULL, NULL, 75, 0, buf, sizeof buf) == PCLR_ERR_NULL_POINTER,
          "cuda_compile_check(NULL cfg)");
    CHECK(pclr_cuda_compile_check(&cu, NULL, 5, 0, buf, sizeof buf) == PCLR_ERR_INVALID_KNOB && buf[0],
          "cuda_compile_check(arch 5)");
    CHECK(pclr_cuda_compile_check(&cu, NULL, 75, 0, NULL, 0) != PCLR_ERR_NULL_POINTER,
          "cuda_compile_check(NULL log) is allowed");
    /* a context that failed to create: every call is refused cleanly */
    r = pclr_cuda_create(NULL, &ctx);
    if (r == PCLR_OK) {
        SKIP("a CUDA device is present: the failed-context table is not exercised");
        pclr_cuda_destroy(ctx);
        return;
    }
    if (!CHECK(ctx != NULL, "cuda_create failure still gives a context")) return;
    CHECK(pclr_cuda_resolve(ctx, &cu, &out) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: resolve");
    CHECK(pclr_cuda_resolve(ctx, NULL, NULL) != PCLR_OK, "failed ctx: resolve(NULL, NULL)");
    CHECK(pclr_cuda_prepare(ctx, &cu) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: prepare");
    CHECK(pclr_cuda_prepare(ctx, NULL) != PCLR_OK, "failed ctx: prepare(NULL)");
    CHECK(pclr_cuda_reduce(ctx, &cu, 0, 0, 1, 0, &v) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: reduce");
    CHECK(pclr_cuda_reduce(ctx, NULL, 0, 1, UINT64_MAX, 0, NULL) != PCLR_OK, "failed ctx: reduce(NULLs, overflow)");
    CHECK(pclr_cuda_reduce_async(ctx, &cu, 0, 0, 1, 0, 0) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: reduce_async");
    CHECK(pclr_cuda_alloc(ctx, 16, &d) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: alloc");
    CHECK(pclr_cuda_free(ctx, (CUdeviceptr)16) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: free");
    CHECK(pclr_cuda_copy_to_device(ctx, (CUdeviceptr)16, &v, 4) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: copy_to_device");
    CHECK(pclr_cuda_copy_to_host(ctx, &v, (CUdeviceptr)16, 4) == PCLR_ERR_INVALID_CONTEXT, "failed ctx: copy_to_host");
    CHECK(pclr_cuda_last_error(ctx)[0] != '\0', "failed ctx: last_error says why");
    CHECK(pclr_cuda_describe(ctx, buf, sizeof buf) > 0 && strlen(buf) < sizeof buf, "failed ctx: describe");
    pclr_cuda_destroy(ctx);
}
#endif

/* ------------------------------------------------------------- core side */
static void core_bad_inputs(void) {
    pclr_config c, out;
    const char *why = NULL;
    char small[16], *big;
    size_t need = 0, need2 = 0, len;
    int iv = 0;
    uint32_t u = 0;
    memset(&c, 0, sizeof c);
    CHECK(pclr_config_resolve(NULL, &out, &why) == PCLR_ERR_NULL_POINTER && why && why[0], "resolve(NULL in)");
    CHECK(pclr_config_resolve(&c, NULL, NULL) == PCLR_ERR_NULL_POINTER, "resolve(NULL out, NULL why)");
    len = pclr_config_describe(NULL, small, sizeof small);
    CHECK(len > 0 && strlen(small) == (len < sizeof small ? len : sizeof small - 1), "describe(NULL cfg)");
    len = pclr_config_describe(&c, NULL, 0);
    CHECK(len > 0, "describe(cfg, NULL, 0) reports the length");
    small[0] = 'x';
    CHECK(pclr_config_describe(&c, small, 0) == len && small[0] == 'x', "describe(cap 0) writes nothing");
    CHECK(pclr_config_describe(&c, small, sizeof small) == len && strlen(small) == sizeof small - 1,
          "describe(small buffer) truncates with a NUL");
    CHECK(pclr_kernel_source(NULL, NULL, 0, &need) == PCLR_ERR_NULL_POINTER && need == 0, "kernel_source(NULL cfg)");
    CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == PCLR_OK, "kernel_source(size query, NULL size_needed)");
    CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_OK && need > 100, "kernel_source size query");
    memset(small, 'x', sizeof small);
    CHECK(pclr_kernel_source(&c, small, sizeof small, &need2) == PCLR_ERR_BUFFER_TOO_SMALL && need2 == need &&
              small[0] == '\0',
          "kernel_source(16-byte buffer): too small, size reported, buffer emptied");
    small[0] = 'x';
    CHECK(pclr_kernel_source(&c, small, 0, NULL) == PCLR_ERR_BUFFER_TOO_SMALL && small[0] == 'x',
          "kernel_source(cap 0) writes nothing");
    big = (char *)malloc(need);
    if (big) {
        memset(big, 'x', need);
        /* the text is cut at cap and then emptied: nothing lands past cap */
        CHECK(pclr_kernel_source(&c, big, need - 1, NULL) == PCLR_ERR_BUFFER_TOO_SMALL && big[0] == '\0' &&
                  big[need - 1] == 'x',
              "kernel_source(one byte short): too small, emptied, nothing written past cap");
        CHECK(pclr_kernel_source(&c, big, need, NULL) == PCLR_OK && strlen(big) + 1 == need,
              "kernel_source(exact buffer)");
        free(big);
    }
    c.type = (pclr_type)-1;
    CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_ERR_INVALID_ENUM && need == 0, "kernel_source(type -1)");
    c.type = PCLR_UINT;
    c.unroll = -4;
    CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_ERR_INVALID_KNOB, "kernel_source(unroll -4)");
    c.unroll = 0;
    CHECK(pclr_kernel_options(NULL, NULL, 0, &need) == PCLR_ERR_NULL_POINTER, "kernel_options(NULL cfg)");
    c.variant = PCLR_VARIANT_COLLECTIVE;
    CHECK(pclr_kernel_options(&c, NULL, 0, &need) == PCLR_OK && need == strlen("-cl-std=CL2.0") + 1,
          "kernel_options size query");
    CHECK(pclr_kernel_options(&c, small, 4, NULL) == PCLR_ERR_BUFFER_TOO_SMALL && small[0] == '\0',
          "kernel_options(too small)");
    c.variant = PCLR_VARIANT_DEFAULT;
    CHECK(pclr_max_groups(NULL, NULL) == 0, "max_groups(NULL)");
    {
        pclr_device_facts dev = {4, 1024};
        pclr_launch l;
        pclr_config_resolve(&c, &out, NULL);
        CHECK(pclr_plan(NULL, &dev, 10, &l) == PCLR_ERR_NULL_POINTER, "plan(NULL cfg)");
        CHECK(pclr_plan(&out, NULL, 10, &l) == PCLR_ERR_NULL_POINTER, "plan(NULL dev)");
        CHECK(pclr_plan(&out, &dev, 10, NULL) == PCLR_ERR_NULL_POINTER, "plan(NULL out)");
        CHECK(pclr_plan(&c, &dev, 10, &l) == PCLR_ERR_INVALID_KNOB, "plan(unresolved cfg)");
        CHECK(pclr_plan(&out, &dev, UINT64_MAX, &l) == PCLR_OK && l.groups >= 1 && l.groups <= 4u * 64u,
              "plan(n UINT64_MAX)");
    }
    CHECK(pclr_identity(PCLR_UINT, PCLR_SUM, NULL) == PCLR_ERR_NULL_POINTER, "identity(NULL)");
    CHECK(pclr_identity((pclr_type)77, PCLR_SUM, &u) == PCLR_ERR_INVALID_ENUM, "identity(type 77)");
    CHECK(pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, NULL, 5, &u) == PCLR_ERR_NULL_POINTER, "cpu_reduce(NULL data)");
    CHECK(pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, &u, 1, NULL) == PCLR_ERR_NULL_POINTER, "cpu_reduce(NULL result)");
    CHECK(pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, NULL, 0, &u) == PCLR_OK, "cpu_reduce(NULL data, n 0)");
    CHECK(pclr_cpu_reduce(PCLR_UINT, (pclr_op)-3, &u, 1, &u) == PCLR_ERR_INVALID_ENUM, "cpu_reduce(op -3)");
    CHECK(pclr_hash64(NULL, 0, PCLR_HASH_SEED) == PCLR_HASH_SEED, "hash64(NULL, 0)");
    CHECK(pclr_parse_type(NULL, (pclr_type *)&iv) == PCLR_ERR_NULL_POINTER, "parse_type(NULL)");
    CHECK(in_child(parse_null_out), "pclr_parse_*(valid name, out NULL) returns PCLR_ERR_NULL_POINTER (no crash)");
    CHECK(pclr_parse_op(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_op(NULL)");
    CHECK(pclr_parse_dialect(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_dialect(NULL)");
    CHECK(pclr_parse_stride(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_stride(NULL)");
    CHECK(pclr_parse_variant(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_variant(NULL)");
    CHECK(pclr_parse_finish(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_finish(NULL)");
    CHECK(pclr_parse_type("default", (pclr_type *)&iv) == PCLR_ERR_INVALID_ENUM, "parse_type(\"default\")");
    CHECK(pclr_parse_type("", (pclr_type *)&iv) == PCLR_ERR_INVALID_ENUM, "parse_type(\"\")");
    CHECK(strcmp(pclr_result_string((pclr_result)-1), "unknown result code") == 0, "result_string(-1)");
    CHECK(strcmp(pclr_result_string(PCLR_RESULT_COUNT_), "unknown result code") == 0, "result_string(COUNT)");
    CHECK(strcmp(pclr_type_name((pclr_type)99), "invalid") == 0, "type_name(99)");
    CHECK(strcmp(pclr_op_name((pclr_op)-1), "invalid") == 0, "op_name(-1)");
    CHECK(strcmp(pclr_dialect_name((pclr_dialect)3), "invalid") == 0, "dialect_name(3)");
    CHECK(strcmp(pclr_stride_name((pclr_stride)3), "invalid") == 0, "stride_name(3)");
    CHECK(strcmp(pclr_variant_name((pclr_variant)6), "invalid") == 0, "variant_name(6)");
    CHECK(strcmp(pclr_finish_name((pclr_finish)4), "invalid") == 0, "finish_name(4)");
    CHECK(pclr_type_size((pclr_type)5) == 0, "type_size(5)");
}

int main(void) {
    core_bad_inputs();
    if (cl_setup()) {
        cl_bad_inputs();
        cl_failure_injection();
        clReleaseMemObject(g_buf_u);
        clReleaseMemObject(g_buf_f);
        clReleaseCommandQueue(g_queue);
        clReleaseContext(g_clctx);
    } else {
        SKIP("no OpenCL platform/device: the OpenCL failure injection did not run");
    }
#ifndef PCLR_FAILURES_NO_CUDA
    cuda_bad_inputs();
    cuda_failure_injection();
#endif
    return pclr_test_summary("test_failures");
}
