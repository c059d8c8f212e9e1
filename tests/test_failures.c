/* Failure injection and bad input.

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
   4. OpenCL call failures: a wrapped pclr_cl_api (desc.opencl_api) makes the k-th
      OpenCL call fail with a resource error, for every k until a scenario
      (create, prepare, blocking reduce, async reduce, destroy) no longer
      reaches k, for a few configurations and both create paths. The step
      that met the failure returns PCLR_ERR_OUT_OF_MEMORY with a sentence,
      every other step succeeds, the context still reduces correctly once
      calls succeed again, and every OpenCL object the backend created or
      retained is released by destroy (reference counts kept per handle).
   5. The same for every NVRTC call (pclr_cuda_compile_check, here) and every
      CUDA driver call of a whole context's life (on a GPU: tests/gpu.sh),
      through wrapped pclr_nvrtc_api / pclr_cuda_api tables.

   Build: gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -I/usr/local/cuda/include
          tests/test_failures.c -ldl -lm
   (OpenCL is called through a loaded table; define PCLR_FAILURES_NO_CUDA to
   leave the CUDA part out). */
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
#include <dirent.h>
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
           pclr_parse_backend("cuda", NULL) == PCLR_ERR_NULL_POINTER &&
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
static pclr_cl_api g_real; /* the loaded OpenCL entry points: the test's own calls */
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
    char why[512];
    if (pclr_cl_load_api(NULL, &g_real, why, sizeof why) != PCLR_OK) {
        printf("%s\n", why);
        return 0;
    }
    if (g_real.GetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0) return 0;
    if (g_real.GetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &g_dev, &nd) != CL_SUCCESS || nd == 0) return 0;
    g_clctx = g_real.CreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 0;
    g_queue = g_real.CreateCommandQueue(g_clctx, g_dev, 0, &err);
    if (err != CL_SUCCESS) return 0;
    for (i = 0; i < N_ELEMS + OFFSET; ++i) {
        g_host_u[i] = (uint32_t)pclr_test_rand(&seed);
        g_host_f[i] = (float)((int)(i % 97) - 48) * 0.25f;
    }
    g_buf_u = g_real.CreateBuffer(g_clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof g_host_u, g_host_u, &err);
    if (err != CL_SUCCESS) return 0;
    g_buf_f = g_real.CreateBuffer(g_clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof g_host_f, g_host_f, &err);
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

    res = g_real.CreateBuffer(g_clctx, CL_MEM_READ_WRITE, 2 * sizeof(uint32_t), NULL, &err);
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
        g_real.Finish(g_queue);
        {
            uint32_t got[2] = {0, 0};
            g_real.EnqueueReadBuffer(g_queue, res, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
            CHECK(got[1] == g_want_u, "reduce_async(out_offset 1) wrote %u, want %u", (unsigned)got[1],
                  (unsigned)g_want_u);
        }
        g_real.ReleaseMemObject(res);
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
        c.backend = PCLR_CUDA;
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

/* ------------------------------------------------- OpenCL call failures */
/* The wrapped table: every call counts, and the fail_at-th fails with a
   resource error (CL_OUT_OF_RESOURCES, or NULL with CL_OUT_OF_HOST_MEMORY in
   *errcode_ret). Releases are neither counted nor failed: releasing a valid
   object has no failure a caller could act on. Per handle, creates and
   retains add one and releases take one away. The state is the test's (file
   statics); the library only sees a table through desc.api. */
static struct {
    long calls, fail_at, failures;
    const char *failed;     /* the entry point that failed */
    const void *binary_prog; /* the last program made from a binary (the disk cache's) */
} g_inj;
#define MAX_HANDLES 4096
static struct { const void *h; long refs; const char *what; } g_refs[MAX_HANDLES];
static size_t g_nrefs;

static void ref(const void *h, long delta, const char *what) {
    size_t i;
    if (!h) return;
    for (i = 0; i < g_nrefs; ++i)
        if (g_refs[i].h == h) {
            g_refs[i].refs += delta;
            if (delta > 0) g_refs[i].what = what;
            return;
        }
    if (g_nrefs < MAX_HANDLES) {
        g_refs[g_nrefs].h = h;
        g_refs[g_nrefs].refs = delta;
        g_refs[g_nrefs].what = what;
        ++g_nrefs;
    }
}
/* 1 if this call is the one that fails. */
static int inject(const char *name) {
    if (++g_inj.calls != g_inj.fail_at) return 0;
    ++g_inj.failures;
    g_inj.failed = name;
    return 1;
}

#define W_INT(name, params, args)                                     \
    static cl_int CL_API_CALL w_##name params {                       \
        if (inject("cl" #name)) return CL_OUT_OF_RESOURCES;           \
        return g_real.name args;                                      \
    }
#define W_CREATE(type, name, params, args, err)                       \
    static type CL_API_CALL w_##name params {                         \
        type obj_;                                                    \
        if (inject("cl" #name)) {                                     \
            if (err) *(err) = CL_OUT_OF_HOST_MEMORY;                  \
            return NULL;                                              \
        }                                                             \
        obj_ = g_real.name args;                                      \
        ref(obj_, 1, "cl" #name);                                     \
        return obj_;                                                  \
    }
#define W_RETAIN(type, name)                                          \
    static cl_int CL_API_CALL w_Retain##name(type h) {                \
        cl_int e_;                                                    \
        if (inject("clRetain" #name)) return CL_OUT_OF_RESOURCES;     \
        if ((e_ = g_real.Retain##name(h)) == CL_SUCCESS) ref(h, 1, "clRetain" #name); \
        return e_;                                                    \
    }                                                                 \
    static cl_int CL_API_CALL w_Release##name(type h) {               \
        cl_int e_ = g_real.Release##name(h);                          \
        if (e_ == CL_SUCCESS) ref(h, -1, "clRelease" #name);          \
        return e_;                                                    \
    }
/* enqueues: the event they hand back is a new object */
#define W_ENQ(name, params, args)                                     \
    static cl_int CL_API_CALL w_##name params {                       \
        cl_int e_;                                                    \
        if (inject("cl" #name)) return CL_OUT_OF_RESOURCES;           \
        e_ = g_real.name args;                                        \
        if (e_ == CL_SUCCESS && ev) ref(*ev, 1, "cl" #name);          \
        return e_;                                                    \
    }

W_INT(GetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np), (n, p, np))
W_INT(GetPlatformInfo, (cl_platform_id p, cl_platform_info w, size_t s, void *v, size_t *r), (p, w, s, v, r))
W_INT(GetDeviceIDs, (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd), (p, t, n, d, nd))
/* NVIDIA's CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV (0x4000) is optional: its failure only loses the number */
static cl_int CL_API_CALL w_GetDeviceInfo(cl_device_id d, cl_device_info w, size_t s, void *v, size_t *r) {
    if (inject(w == 0x4000 ? "clGetDeviceInfo (optional)" : "clGetDeviceInfo")) return CL_OUT_OF_RESOURCES;
    return g_real.GetDeviceInfo(d, w, s, v, r);
}
W_INT(GetContextInfo, (cl_context c, cl_context_info w, size_t s, void *v, size_t *r), (c, w, s, v, r))
W_INT(GetCommandQueueInfo, (cl_command_queue q, cl_command_queue_info w, size_t s, void *v, size_t *r), (q, w, s, v, r))
W_INT(Flush, (cl_command_queue q), (q))
W_INT(Finish, (cl_command_queue q), (q))
W_INT(GetMemObjectInfo, (cl_mem m, cl_mem_info w, size_t s, void *v, size_t *r), (m, w, s, v, r))
/* names a failed build of a binary "clBuildProgram (binary)": the disk cache's */
static cl_int CL_API_CALL w_BuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                                         void (CL_CALLBACK *f)(cl_program, void *), void *u) {
    if (inject("clBuildProgram")) {
        if (p == g_inj.binary_prog) g_inj.failed = "clBuildProgram (binary)";
        return CL_OUT_OF_RESOURCES;
    }
    return g_real.BuildProgram(p, n, d, o, f, u);
}
W_INT(GetProgramInfo, (cl_program p, cl_program_info w, size_t s, void *v, size_t *r), (p, w, s, v, r))
W_INT(GetProgramBuildInfo, (cl_program p, cl_device_id d, cl_program_build_info w, size_t s, void *v, size_t *r),
      (p, d, w, s, v, r))
W_INT(GetKernelWorkGroupInfo, (cl_kernel k, cl_device_id d, cl_kernel_work_group_info w, size_t s, void *v, size_t *r),
      (k, d, w, s, v, r))
W_INT(SetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v))
W_INT(WaitForEvents, (cl_uint n, const cl_event *e), (n, e))
W_INT(GetEventInfo, (cl_event e, cl_event_info w, size_t s, void *v, size_t *r), (e, w, s, v, r))
W_INT(GetEventProfilingInfo, (cl_event e, cl_profiling_info w, size_t s, void *v, size_t *r), (e, w, s, v, r))
W_CREATE(cl_context, CreateContext, (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                     void (CL_CALLBACK *f)(const char *, const void *, size_t, void *), void *u,
                                     cl_int *err), (p, n, d, f, u, err), err)
W_CREATE(cl_command_queue, CreateCommandQueue, (cl_context c, cl_device_id d, cl_command_queue_properties p,
                                                cl_int *err), (c, d, p, err), err)
W_CREATE(cl_mem, CreateBuffer, (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *err), (c, f, s, h, err), err)
W_CREATE(cl_program, CreateProgramWithSource, (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *err),
         (c, n, s, l, err), err)
static cl_program CL_API_CALL w_CreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                                        const size_t *l, const unsigned char **b, cl_int *st,
                                                        cl_int *err) {
    cl_program p;
    if (inject("clCreateProgramWithBinary")) {
        if (err) *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    p = g_real.CreateProgramWithBinary(c, n, d, l, b, st, err);
    ref(p, 1, "clCreateProgramWithBinary");
    g_inj.binary_prog = p;
    return p;
}
W_CREATE(cl_kernel, CreateKernel, (cl_program p, const char *name, cl_int *err), (p, name, err), err)
W_RETAIN(cl_device_id, Device)
W_RETAIN(cl_context, Context)
W_RETAIN(cl_command_queue, CommandQueue)
W_RETAIN(cl_mem, MemObject)
W_RETAIN(cl_program, Program)
W_RETAIN(cl_kernel, Kernel)
W_RETAIN(cl_event, Event)
W_ENQ(EnqueueReadBuffer, (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p, cl_uint n,
                          const cl_event *w, cl_event *ev), (q, m, b, o, s, p, n, w, ev))
W_ENQ(EnqueueWriteBuffer, (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, const void *p, cl_uint n,
                           const cl_event *w, cl_event *ev), (q, m, b, o, s, p, n, w, ev))
W_ENQ(EnqueueCopyBuffer, (cl_command_queue q, cl_mem a, cl_mem b, size_t oa, size_t ob, size_t s, cl_uint n,
                          const cl_event *w, cl_event *ev), (q, a, b, oa, ob, s, n, w, ev))
W_ENQ(EnqueueFillBuffer, (cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o, size_t s, cl_uint n,
                          const cl_event *w, cl_event *ev), (q, m, p, ps, o, s, n, w, ev))
W_ENQ(EnqueueNDRangeKernel, (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
                             const size_t *l, cl_uint n, const cl_event *w, cl_event *ev), (q, k, d, o, g, l, n, w, ev))

static pclr_cl_api wrapped_api(void) {
    pclr_cl_api a;
    memset(&a, 0, sizeof a);
#define W_SET(name) a.name = w_##name;
    W_SET(GetPlatformIDs) W_SET(GetPlatformInfo) W_SET(GetDeviceIDs) W_SET(GetDeviceInfo) W_SET(RetainDevice)
    W_SET(ReleaseDevice) W_SET(CreateContext) W_SET(GetContextInfo) W_SET(RetainContext) W_SET(ReleaseContext)
    W_SET(CreateCommandQueue) W_SET(GetCommandQueueInfo) W_SET(RetainCommandQueue) W_SET(ReleaseCommandQueue)
    W_SET(Flush) W_SET(Finish) W_SET(CreateBuffer) W_SET(GetMemObjectInfo) W_SET(RetainMemObject)
    W_SET(ReleaseMemObject) W_SET(EnqueueReadBuffer) W_SET(EnqueueWriteBuffer) W_SET(EnqueueCopyBuffer)
    W_SET(EnqueueFillBuffer) W_SET(CreateProgramWithSource) W_SET(CreateProgramWithBinary) W_SET(BuildProgram)
    W_SET(GetProgramInfo) W_SET(GetProgramBuildInfo) W_SET(RetainProgram) W_SET(ReleaseProgram) W_SET(CreateKernel)
    W_SET(GetKernelWorkGroupInfo) W_SET(SetKernelArg) W_SET(RetainKernel) W_SET(ReleaseKernel)
    W_SET(EnqueueNDRangeKernel) W_SET(WaitForEvents) W_SET(GetEventInfo) W_SET(GetEventProfilingInfo)
    W_SET(RetainEvent) W_SET(ReleaseEvent)
#undef W_SET
    return a;
}

/* Every handle's count back at zero; names the first one that is not. */
static int refs_balanced(long k, const char *name) {
    size_t i;
    for (i = 0; i < g_nrefs; ++i)
        if (g_refs[i].refs != 0)
            return CHECK(0, "%s k=%ld: an object last touched by %s has %ld references left", name, k, g_refs[i].what,
                         g_refs[i].refs);
    return 1;
}

typedef struct inj_case {
    const char *name;
    pclr_type type;
    pclr_op op;
    pclr_finish finish;
    int via_default; /* pclr_cl_create_default_desc (its own context and queue) instead of pclr_cl_create */
    int many_groups; /* groups of 32, one element per load: 1000 elements take many groups (two passes for partials) */
    const char *cache_dir; /* the disk cache of program binaries; NULL: off */
} inj_case;

/* The disk cache is an optimisation: a binary it cannot load or read out
   means a build from source, and the call goes on. */
static int cache_call(const char *failed) {
    return strcmp(failed, "clCreateProgramWithBinary") == 0 || strcmp(failed, "clBuildProgram (binary)") == 0 ||
           strcmp(failed, "clGetProgramInfo") == 0;
}

/* The step that just ran: it failed (PCLR_ERR_OUT_OF_MEMORY, with a
   sentence) exactly when the injected failure happened inside it, unless
   the failure was the disk cache's or an optional query's. */
static int inj_step(const inj_case *ic, long k, const char *step, long failures_before, pclr_result r,
                    const char *error) {
    int hit = g_inj.failures != failures_before;
    if (hit && ((ic->cache_dir && cache_call(g_inj.failed)) || strcmp(g_inj.failed, "clGetDeviceInfo (optional)") == 0)) {
        CHECK(r == PCLR_OK, "%s k=%ld %s: the optional %s failed, the call returned %s (%s)", ic->name, k, step,
              g_inj.failed, pclr_result_string(r), error ? error : "");
    } else if (hit) {
        CHECK(r == PCLR_ERR_OUT_OF_MEMORY, "%s k=%ld %s: %s failed, the call returned %s", ic->name, k, step,
              g_inj.failed, pclr_result_string(r));
        CHECK(error && error[0], "%s k=%ld %s: %s failed, no sentence", ic->name, k, step, g_inj.failed);
    } else {
        CHECK(r == PCLR_OK, "%s k=%ld %s: %s without an injected failure (%s)", ic->name, k, step,
              pclr_result_string(r), error ? error : "");
    }
    return r == PCLR_OK;
}

/* One reduction each way, checked against want: blocking, then async into
   element 1 of out. */
static void inj_reduce(pclr_cl_context *ctx, const inj_case *ic, long k, const pclr_config *cfg, cl_mem in, cl_mem out,
                       const void *want, const char *when) {
    const pclr_cl_api *w = pclr_cl_get_api(ctx);
    unsigned char got[8];
    char step[96];
    cl_event done = (cl_event)&got;
    long f = g_inj.failures;
    pclr_result r = pclr_cl_reduce(ctx, cfg, in, OFFSET, N_ELEMS, got);
    snprintf(step, sizeof step, "blocking reduce %s", when);
    if (inj_step(ic, k, step, f, r, pclr_cl_last_error(ctx)))
        CHECK(memcmp(got, want, 4) == 0, "%s k=%ld %s: blocking result differs from pclr_cpu_reduce", ic->name, k, when);
    f = g_inj.failures;
    r = pclr_cl_reduce_async(ctx, cfg, in, OFFSET, N_ELEMS, out, 1, 0, NULL, &done);
    snprintf(step, sizeof step, "async reduce %s", when);
    if (inj_step(ic, k, step, f, r, pclr_cl_last_error(ctx))) {
        memset(got, 0, sizeof got);
        if (CHECK(done != NULL, "%s k=%ld %s: async gave no event", ic->name, k, when)) {
            g_real.WaitForEvents(1, &done);
            w->ReleaseEvent(done); /* through the table: the event's count goes back to zero */
        }
        g_real.EnqueueReadBuffer(pclr_cl_get_queue(ctx), out, CL_TRUE, 4, 4, got, 0, NULL, NULL);
        CHECK(memcmp(got, want, 4) == 0, "%s k=%ld %s: async result differs from pclr_cpu_reduce", ic->name, k, when);
    } else {
        CHECK(done == NULL, "%s k=%ld %s: a failed async call left *done set", ic->name, k, when);
    }
}

/* The scenario with the k-th OpenCL call failing (k = 0: none). Returns the
   number of calls it made before failures stopped. */
static long inj_scenario(const inj_case *ic, long k) {
    pclr_cl_api api = wrapped_api();
    pclr_cl_desc desc;
    pclr_cl_context *ctx = NULL;
    pclr_config cfg;
    pclr_result r;
    cl_mem in = g_buf_u, out = NULL, own = NULL;
    cl_int err;
    char error[512] = "";
    unsigned char want[8];
    long total, f;
    memset(&g_inj, 0, sizeof g_inj);
    g_inj.fail_at = k;
    g_nrefs = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.type = ic->type;
    cfg.op = ic->op;
    cfg.finish = ic->finish;
    if (ic->many_groups) {
        cfg.group_size = 32;
        cfg.unroll = 1;
        cfg.vector_width = 1;
    }
    if (ic->type == PCLR_FLOAT) in = g_buf_f; /* int: the uint data, read as int */
    pclr_cpu_reduce(ic->type, ic->op,
                    ic->type == PCLR_FLOAT ? (const void *)(g_host_f + OFFSET) : (const void *)(g_host_u + OFFSET),
                    N_ELEMS, want);
    memset(&desc, 0, sizeof desc);
    desc.opencl_api = &api;
    desc.error = error;
    desc.error_cap = sizeof error;
    /* the same calls on every run: no tuning file; the disk cache only where the case asks */
    desc.no_tune_file = 1;
    desc.no_disk_cache = ic->cache_dir == NULL;
    desc.cache_dir = ic->cache_dir;
    if (!ic->via_default) {
        desc.context = g_clctx;
        desc.queue = g_queue;
    }
    r = ic->via_default ? pclr_cl_create_default_desc(&desc, -1, -1, &ctx) : pclr_cl_create(&desc, &ctx);
    if (!inj_step(ic, k, "create", 0, r, error)) {
        CHECK(ctx == NULL, "%s k=%ld: a failed create handed back a context", ic->name, k);
        refs_balanced(k, ic->name);
        return g_inj.calls;
    }
    if (ic->via_default) {
        /* its own cl_context: the input goes there (made with the real table, not counted) */
        own = g_real.CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  ic->type == PCLR_FLOAT ? sizeof g_host_f : sizeof g_host_u,
                                  ic->type == PCLR_FLOAT ? (void *)g_host_f : (void *)g_host_u, &err);
        CHECK(err == CL_SUCCESS, "input buffer in the context's own cl_context");
        in = own;
    }
    out = g_real.CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_WRITE, 8, NULL, &err);
    CHECK(err == CL_SUCCESS, "output buffer");
    f = g_inj.failures;
    r = pclr_cl_prepare(ctx, &cfg);
    inj_step(ic, k, "prepare", f, r, pclr_cl_last_error(ctx));
    inj_reduce(ctx, ic, k, &cfg, in, out, want, "with failures");
    total = g_inj.calls;
    /* calls succeed again: the same context must reduce correctly */
    g_inj.fail_at = 0;
    inj_reduce(ctx, ic, k, &cfg, in, out, want, "after the failure");
    pclr_cl_destroy(ctx);
    refs_balanced(k, ic->name);
    g_real.ReleaseMemObject(out);
    if (own) g_real.ReleaseMemObject(own);
    return total;
}

/* Removes the test's cache directory (flat: <hash>.bin files). */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void cl_call_failures(void) {
    static char cache[64];
    inj_case cases[] = {
        {"float sum last_group", PCLR_FLOAT, PCLR_SUM, PCLR_FINISH_LAST_GROUP, 0, 1, NULL},
        {"uint max atomic", PCLR_UINT, PCLR_MAX, PCLR_FINISH_ATOMIC, 0, 1, NULL},
        {"int min partials", PCLR_INT, PCLR_MIN, PCLR_FINISH_PARTIALS, 0, 1, NULL},
        {"float sum defaults (create_default_desc)", PCLR_FLOAT, PCLR_SUM, PCLR_FINISH_DEFAULT, 1, 0, NULL},
        {"uint sum, disk cache on", PCLR_UINT, PCLR_SUM, PCLR_FINISH_DEFAULT, 0, 0, NULL},
    };
    size_t c;
    snprintf(cache, sizeof cache, "%s", "/tmp/pclr_failures.XXXXXX");
    if (mkdtemp(cache)) {
        cases[4].cache_dir = cache;
        inj_scenario(&cases[4], 0); /* fills the cache: the runs below load the binary */
    } else {
        SKIP("no temporary directory: the disk cache case does not run");
    }
    for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        long total, k;
        int fails = pclr_test_failed;
        if (c == 4 && !cases[4].cache_dir) continue;
        total = inj_scenario(&cases[c], 0);
        CHECK(total > 10, "%s: the scenario makes %ld OpenCL calls (expected dozens)", cases[c].name, total);
        if (cases[c].cache_dir) CHECK(g_inj.binary_prog != NULL, "%s: the program came from the disk cache", cases[c].name);
        for (k = 1; k <= total + 5; ++k) {
            inj_scenario(&cases[c], k);
            if (g_inj.failures == 0) break; /* the scenario no longer reaches k */
        }
        CHECK(k == total + 1, "%s: failures stopped at k=%ld, the scenario makes %ld calls", cases[c].name, k, total);
        printf("opencl %s: %ld OpenCL calls, each failed in turn (%s)\n", cases[c].name, total,
               pclr_test_failed == fails ? "all clean" : "FAILURES above");
    }
    if (cases[4].cache_dir) remove_dir(cache);
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
            char why[512];
            memset(&cnt, 0, sizeof cnt);
            cnt.fail_at = k;
            memset(&desc, 0, sizeof desc);
            desc.cuda_library = paths[p];
            desc.allocator = counting_allocator(&cnt);
            desc.error = why;
            desc.error_cap = sizeof why;
            r = pclr_cuda_create(&desc, &ctx);
            if (k == 0) total = cnt.calls;
            if (r == PCLR_OK) {
                /* a GPU is there: fine, as long as it balances */
                CHECK(ctx && pclr_cuda_get_features(ctx), "cuda k=%ld create OK without features", k);
            } else {
                CHECK(ctx == NULL, "cuda path %d k=%ld: a failed create hands back a context", p, k);
                CHECK(why[0] != '\0', "cuda path %d k=%ld: %s with an empty desc.error", p, k, pclr_result_string(r));
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
    /* a failed create hands back no context, and says why in desc.error */
    desc.error = buf;
    desc.error_cap = sizeof buf;
    r = pclr_cuda_create(&desc, &ctx);
    if (r == PCLR_OK) {
        SKIP("a CUDA device is present: the failed create is not exercised");
        pclr_cuda_destroy(ctx);
        return;
    }
    CHECK(ctx == NULL && buf[0] != '\0', "cuda_create failure: no context, a sentence (%s)", buf);
    CHECK(strcmp(pclr_cuda_last_error(NULL), "no context (NULL)") == 0, "cuda_last_error(NULL) is the contract's sentence");
}

/* ---------------------------------------------- CUDA driver and NVRTC call failures
   Wrapped tables (desc.cuda_api, desc.nvrtc_api) make the k-th call fail, for
   every k until a scenario no longer reaches k: NVRTC through
   pclr_cuda_compile_check (runs here, with the real NVRTC), the driver through
   a whole context scenario (needs a GPU). The step that met the failure returns
   an error with a sentence, unless the failed call is one the backend may do
   without (a query with a fallback); every module, allocation and primary
   context taken is given back; a context still reduces once calls succeed.
   Release calls are counted but never failed: nothing can be done about them. */
static pclr_nvrtc_api g_nv;
static pclr_cuda_api g_cu;
static long g_calls, g_fail_at, g_live;  /* calls so far, the one to fail, resources held */
static const char *g_failed;             /* the call that failed, or NULL */
static int g_reached;                    /* the k-th call happened (a release, which never fails, counts) */

/* A release reached as the k-th call: counted, never failed. */
static void cu_count(void) { g_reached |= ++g_calls == g_fail_at; }

static int cu_inject(const char *name) {
    if (++g_calls != g_fail_at) return 0;
    g_reached = 1;
    g_failed = name;
    return 1;
}

#define NW(name, params, args) \
    static nvrtcResult nw_##name params { return cu_inject(#name) ? NVRTC_ERROR_OUT_OF_MEMORY : g_nv.name args; }
NW(Version, (int *a, int *b), (a, b))
NW(CompileProgram, (nvrtcProgram p, int n, const char *const *o), (p, n, o))
NW(GetProgramLogSize, (nvrtcProgram p, size_t *s), (p, s))
NW(GetProgramLog, (nvrtcProgram p, char *s), (p, s))
NW(GetPTXSize, (nvrtcProgram p, size_t *s), (p, s))
NW(GetPTX, (nvrtcProgram p, char *s), (p, s))
NW(GetCUBINSize, (nvrtcProgram p, size_t *s), (p, s))
NW(GetCUBIN, (nvrtcProgram p, char *s), (p, s))
NW(GetNumSupportedArchs, (int *n), (n))
NW(GetSupportedArchs, (int *a), (a))
static const char *nw_GetErrorString(nvrtcResult r) { return g_nv.GetErrorString(r); }
static nvrtcResult nw_CreateProgram(nvrtcProgram *p, const char *s, const char *n, int h, const char *const *hs,
                                    const char *const *hn) {
    nvrtcResult r = cu_inject("CreateProgram") ? NVRTC_ERROR_OUT_OF_MEMORY : g_nv.CreateProgram(p, s, n, h, hs, hn);
    g_live += r == NVRTC_SUCCESS;
    return r;
}
static nvrtcResult nw_DestroyProgram(nvrtcProgram *p) {
    cu_count();
    --g_live;
    return g_nv.DestroyProgram(p);
}

/* A failure of one of these may cost a message or a fallback, never the call. */
static int optional_call(const char *name) {
    static const char *const names[] = {"GetProgramLogSize", "GetProgramLog", "Version", "GetNumSupportedArchs",
                                        "GetSupportedArchs", "DriverGetVersion", "DeviceGetAttribute", "CtxGetCurrent",
                                        "MemGetAddressRange", "MemHostAlloc", "MemHostGetDevicePointer", "FuncGetAttribute",
                                        "GetErrorName", "GetErrorString"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

/* One step met (or did not meet) the injected failure: the right outcome. */
static void injected_step(const char *what, long k, long before, pclr_result r, const char *sentence) {
    int met = g_failed && g_calls >= g_fail_at && before < g_fail_at;
    if (met && r == PCLR_OK)
        CHECK(optional_call(g_failed), "%s k=%ld: %s failed, the call returned ok", what, k, g_failed);
    else if (met)
        CHECK(sentence && sentence[0] && (r == PCLR_ERR_OUT_OF_MEMORY || r == PCLR_ERR_BUILD_FAILED || r == PCLR_ERR_BACKEND ||
                                          r == PCLR_ERR_NO_DEVICE || r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_UNSUPPORTED_BY_DEVICE),
              "%s k=%ld: %s failed: %s with sentence \"%s\"", what, k, g_failed, pclr_result_string(r), sentence ? sentence : "");
    else
        CHECK(r == PCLR_OK, "%s k=%ld: no failure met, yet %s (%s)", what, k, pclr_result_string(r), sentence ? sentence : "");
}

static pclr_nvrtc_api wrapped_nvrtc(void) {
    pclr_nvrtc_api a;
#define NW_SET(ret, name, params, sym) a.name = nw_##name;
    PCLR_NVRTC_ENTRY_POINTS(NW_SET)
    PCLR_NVRTC_OPTIONAL_ENTRY_POINTS(NW_SET)
#undef NW_SET
    return a;
}

static void nvrtc_call_failures(void) {
    char why[256], log[4096];
    pclr_nvrtc_api api;
    pclr_cuda_desc desc;
    pclr_config c = cfg_f();
    long k, total = 1;
    if (pclr_nvrtc_load_api(NULL, &g_nv, why, sizeof why) != PCLR_OK) {
        SKIP("no NVRTC: %s", why);
        return;
    }
    api = wrapped_nvrtc();
    memset(&desc, 0, sizeof desc);
    desc.nvrtc_api = &api;
    for (k = 1; k <= total; ++k) {
        pclr_result r;
        g_calls = g_live = g_reached = 0;
        g_fail_at = k;
        g_failed = NULL;
        log[0] = '\0';
        r = pclr_cuda_compile_check(&c, &desc, 90, 1, log, sizeof log);
        if (!g_reached) break; /* the scenario no longer reaches k */
        if (g_calls + 1 > total) total = g_calls + 1;
        injected_step("nvrtc compile_check", k, 0, r, log);
        CHECK(g_live == 0, "nvrtc k=%ld (%s): %ld programs left", k, g_failed, g_live);
        g_fail_at = 0;
        CHECK(pclr_cuda_compile_check(&c, &desc, 90, 1, log, sizeof log) == PCLR_OK, "nvrtc k=%ld: compiles again", k);
    }
    printf("nvrtc: %ld calls per compile, each failed in turn\n", k - 1);
}

#define CW(name, params, args) \
    static CUresult CUDAAPI cw_##name params { return cu_inject(#name) ? CUDA_ERROR_OUT_OF_MEMORY : g_cu.name args; }
/* taking a resource: counted when it succeeds */
#define CW_TAKE(name, params, args) \
    static CUresult CUDAAPI cw_##name params {                                               \
        CUresult r = cu_inject(#name) ? CUDA_ERROR_OUT_OF_MEMORY : g_cu.name args;               \
        g_live += r == CUDA_SUCCESS;                                                          \
        return r;                                                                             \
    }
/* giving one back: counted, never failed */
#define CW_GIVE(name, params, args) \
    static CUresult CUDAAPI cw_##name params {                                               \
        cu_count();                                                                           \
        --g_live;                                                                             \
        return g_cu.name args;                                                                \
    }
CW(Init, (unsigned int f), (f))
CW(DriverGetVersion, (int *v), (v))
CW(GetErrorName, (CUresult e, const char **s), (e, s))
CW(GetErrorString, (CUresult e, const char **s), (e, s))
CW(DeviceGetCount, (int *n), (n))
CW(DeviceGet, (CUdevice *d, int i), (d, i))
CW(DeviceGetName, (char *s, int n, CUdevice d), (s, n, d))
CW(DeviceGetAttribute, (int *v, CUdevice_attribute a, CUdevice d), (v, a, d))
CW_TAKE(DevicePrimaryCtxRetain, (CUcontext *c, CUdevice d), (c, d))
CW_GIVE(DevicePrimaryCtxRelease, (CUdevice d), (d))
CW(CtxGetCurrent, (CUcontext *c), (c))
CW(CtxPushCurrent, (CUcontext c), (c))
static CUresult CUDAAPI cw_CtxPopCurrent(CUcontext *c) { cu_count(); return g_cu.CtxPopCurrent(c); }
CW(CtxGetDevice, (CUdevice *d), (d))
CW(CtxSynchronize, (void), ())
CW_TAKE(ModuleLoadData, (CUmodule *m, const void *p), (m, p))
CW_GIVE(ModuleUnload, (CUmodule m), (m))
CW(ModuleGetFunction, (CUfunction *f, CUmodule m, const char *n), (f, m, n))
CW(FuncGetAttribute, (int *v, CUfunction_attribute a, CUfunction f), (v, a, f))
CW_TAKE(MemAlloc, (CUdeviceptr *p, size_t n), (p, n))
CW_GIVE(MemFree, (CUdeviceptr p), (p))
CW_TAKE(MemHostAlloc, (void **p, size_t n, unsigned int f), (p, n, f))
CW_GIVE(MemFreeHost, (void *p), (p))
CW(MemHostGetDevicePointer, (CUdeviceptr *d, void *p, unsigned int f), (d, p, f))
CW(MemcpyHtoD, (CUdeviceptr d, const void *s, size_t n), (d, s, n))
CW(MemcpyDtoH, (void *d, CUdeviceptr s, size_t n), (d, s, n))
CW(MemGetAddressRange, (CUdeviceptr *b, size_t *n, CUdeviceptr p), (b, n, p))
CW(LaunchKernel, (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                  unsigned int bz, unsigned int sh, CUstream s, void **a, void **e), (f, gx, gy, gz, bx, by, bz, sh, s, a, e))
static CUresult CUDAAPI cw_LaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **a, void **e) {
    return cu_inject("LaunchKernelEx") ? CUDA_ERROR_OUT_OF_MEMORY : g_cu.LaunchKernelEx(c, f, a, e);
}
CW(StreamSynchronize, (CUstream s), (s))
CW_TAKE(EventCreate, (CUevent *e, unsigned int f), (e, f))
CW(EventRecord, (CUevent e, CUstream s), (e, s))
CW(EventSynchronize, (CUevent e), (e))
CW(EventElapsedTime, (float *ms, CUevent a, CUevent b), (ms, a, b))
CW_GIVE(EventDestroy, (CUevent e), (e))

/* The driver scenario: create, prepare, blocking and async reduces, memory, destroy. */
static void driver_scenario(const pclr_cuda_api *api, long k) {
    pclr_cuda_context *ctx = NULL;
    pclr_cuda_desc desc;
    pclr_config f = cfg_f(), u = cfg_u();
    CUdeviceptr buf = 0, out = 0;
    char why[512] = "";
    float fv = 0;
    uint32_t uv = 0;
    long before;
    pclr_result r;
    memset(&desc, 0, sizeof desc);
    desc.cuda_api = api;
    desc.no_disk_cache = 1;
    desc.no_tune_file = 1;
    desc.error = why;
    desc.error_cap = sizeof why;
    r = pclr_cuda_create(&desc, &ctx);
    injected_step("driver create", k, 0, r, why);
    if (r != PCLR_OK) {
        CHECK(ctx == NULL, "driver k=%ld: a failed create hands back no context", k);
        return;
    }
#define DSTEP(what, call)                                          \
    do {                                                           \
        before = g_calls;                                          \
        r = (call);                                                \
        injected_step(what, k, before, r, pclr_cuda_last_error(ctx)); \
    } while (0)
    DSTEP("driver prepare", pclr_cuda_prepare(ctx, &f));
    DSTEP("driver alloc", pclr_cuda_alloc(ctx, sizeof g_host_f, &buf));
    if (r == PCLR_OK) DSTEP("driver copy", pclr_cuda_copy_to_device(ctx, buf, g_host_f, sizeof g_host_f));
    if (r == PCLR_OK) {
        DSTEP("driver reduce", pclr_cuda_reduce(ctx, &f, buf, OFFSET, N_ELEMS, NULL, &fv));
        if (r == PCLR_OK) CHECK(fv == g_want_f, "driver k=%ld: float max %g, want %g", k, (double)fv, (double)g_want_f);
    }
    DSTEP("driver alloc out", pclr_cuda_alloc(ctx, 64, &out));
    if (r == PCLR_OK && buf) {
        DSTEP("driver copy u", pclr_cuda_copy_to_device(ctx, buf, g_host_u, sizeof g_host_u));
        if (r == PCLR_OK) DSTEP("driver reduce_async", pclr_cuda_reduce_async(ctx, &u, buf, OFFSET, N_ELEMS, out, NULL));
        if (r == PCLR_OK) DSTEP("driver read back", pclr_cuda_copy_to_host(ctx, &uv, out, 4));
        if (r == PCLR_OK) CHECK(uv == g_want_u, "driver k=%ld: uint sum %u, want %u", k, (unsigned)uv, (unsigned)g_want_u);
    }
#undef DSTEP
    /* once calls succeed again, the same context works */
    g_fail_at = 0;
    if (buf && pclr_cuda_copy_to_device(ctx, buf, g_host_f, sizeof g_host_f) == PCLR_OK)
        CHECK(pclr_cuda_reduce(ctx, &f, buf, OFFSET, N_ELEMS, NULL, &fv) == PCLR_OK && fv == g_want_f,
              "driver k=%ld (%s failed): the context reduces afterwards (%s)", k, g_failed ? g_failed : "nothing",
              pclr_cuda_last_error(ctx));
    pclr_cuda_free(ctx, buf);
    pclr_cuda_free(ctx, out);
    pclr_cuda_destroy(ctx);
}

static void driver_call_failures(void) {
    char why[256];
    pclr_cuda_api api;
    pclr_cuda_context *probe = NULL;
    long k, total = 1;
    if (pclr_cuda_create(NULL, &probe) != PCLR_OK) {
        SKIP("no CUDA device: the driver call failures run on a GPU machine");
        return;
    }
    pclr_cuda_destroy(probe);
    if (!CHECK(pclr_cuda_load_api(NULL, &g_cu, why, sizeof why) == PCLR_OK, "the driver table loads: %s", why)) return;
    memset(&api, 0, sizeof api);
#define CW_SET(ret, name, params, sym) api.name = cw_##name;
    PCLR_CUDA_ENTRY_POINTS(CW_SET)
#undef CW_SET
    if (g_cu.LaunchKernelEx) api.LaunchKernelEx = cw_LaunchKernelEx; /* optional: sm_90 launches through it */
    for (k = 1; k <= total; ++k) {
        g_calls = g_live = g_reached = 0;
        g_fail_at = k;
        g_failed = NULL;
        driver_scenario(&api, k);
        CHECK(g_live == 0, "driver k=%ld (%s failed): %ld modules, allocations or contexts left", k,
              g_failed ? g_failed : "nothing", g_live);
        if (!g_reached) break; /* the scenario no longer reaches k */
        if (g_calls + 1 > total) total = g_calls + 1;
    }
    printf("cuda driver: %ld calls per scenario, each failed in turn\n", k - 1);
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
    CHECK(pclr_parse_backend(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_dialect(NULL)");
    CHECK(pclr_parse_stride(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_stride(NULL)");
    CHECK(pclr_parse_variant(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_variant(NULL)");
    CHECK(pclr_parse_finish(NULL, NULL) == PCLR_ERR_NULL_POINTER, "parse_finish(NULL)");
    CHECK(pclr_parse_type("default", (pclr_type *)&iv) == PCLR_ERR_INVALID_ENUM, "parse_type(\"default\")");
    CHECK(pclr_parse_type("", (pclr_type *)&iv) == PCLR_ERR_INVALID_ENUM, "parse_type(\"\")");
    CHECK(strcmp(pclr_result_string((pclr_result)-1), "unknown result code") == 0, "result_string(-1)");
    CHECK(strcmp(pclr_result_string(PCLR_RESULT_COUNT_), "unknown result code") == 0, "result_string(COUNT)");
    CHECK(strcmp(pclr_type_name((pclr_type)99), "invalid") == 0, "type_name(99)");
    CHECK(strcmp(pclr_op_name((pclr_op)-1), "invalid") == 0, "op_name(-1)");
    CHECK(strcmp(pclr_backend_name(PCLR_BACKEND_COUNT_), "invalid") == 0, "backend_name(count)");
    CHECK(strcmp(pclr_stride_name(PCLR_STRIDE_COUNT_), "invalid") == 0, "stride_name(count)");
    CHECK(strcmp(pclr_variant_name((pclr_variant)6), "invalid") == 0, "variant_name(6)");
    CHECK(strcmp(pclr_finish_name((pclr_finish)4), "invalid") == 0, "finish_name(4)");
    CHECK(pclr_type_size(PCLR_TYPE_COUNT_) == 0, "type_size(count)");
}

/* A device that lacks something, and a compiler that fails, through a
   doctored table over the real one: the device hides cl_khr_fp64, and with
   g_break_source set every program gets a line the compiler rejects (a real
   build failure on the real compiler, with its real log). */
static int g_break_source;
static cl_int CL_API_CALL d_GetDeviceInfo(cl_device_id d, cl_device_info w, size_t s, void *v, size_t *r) {
    cl_int e = g_real.GetDeviceInfo(d, w, s, v, r);
    if (e == CL_SUCCESS && w == CL_DEVICE_DOUBLE_FP_CONFIG && v) memset(v, 0, s);
    if (e == CL_SUCCESS && w == CL_DEVICE_EXTENSIONS && v) {
        char *ext = strstr((char *)v, "cl_khr_fp64");
        if (ext) memset(ext, ' ', strlen("cl_khr_fp64"));
    }
    return e;
}
static cl_program CL_API_CALL d_CreateProgramWithSource(cl_context c, cl_uint n, const char **src, const size_t *len,
                                                        cl_int *err) {
    static const char broken[] = "#error pclreduce test: an injected compile error\n";
    const char *parts[2];
    if (!g_break_source || n != 1 || len) return g_real.CreateProgramWithSource(c, n, src, len, err);
    parts[0] = broken;
    parts[1] = src[0];
    return g_real.CreateProgramWithSource(c, 2, parts, NULL, err);
}
static void cl_doctored_device(void) {
    pclr_cl_api api = g_real;
    pclr_cl_desc desc;
    pclr_cl_context *ctx = NULL;
    pclr_config c;
    pclr_result r;
    uint32_t v = 0;
    double dv = 0;
    api.GetDeviceInfo = d_GetDeviceInfo;
    api.CreateProgramWithSource = d_CreateProgramWithSource;
    memset(&desc, 0, sizeof desc);
    desc.context = g_clctx;
    desc.queue = g_queue;
    desc.opencl_api = &api;
    desc.no_disk_cache = 1; /* a cached binary would skip the broken source */
    desc.no_tune_file = 1;
    if (!CHECK(pclr_cl_create(&desc, &ctx) == PCLR_OK, "create on the doctored table")) return;
    CHECK(!pclr_cl_get_features(ctx)->fp64, "the doctored device reports no fp64");
    memset(&c, 0, sizeof c);
    c.type = PCLR_DOUBLE;
    r = pclr_cl_reduce(ctx, &c, g_buf_f, 0, 16, &dv);
    CHECK(r == PCLR_ERR_NO_FP64 && strstr(pclr_cl_last_error(ctx), "fp64"), "double without fp64: %s (%s)",
          pclr_result_string(r), pclr_cl_last_error(ctx));
    g_break_source = 1;
    c.type = PCLR_UINT;
    c.op = PCLR_MAX;
    r = pclr_cl_reduce(ctx, &c, g_buf_u, OFFSET, N_ELEMS, &v);
    CHECK(r == PCLR_ERR_BUILD_FAILED && strstr(pclr_cl_build_log(ctx), "injected compile error") &&
              strstr(pclr_cl_last_error(ctx), "pclr_cl_build_log"),
          "compile failure: %s, the log is kept (%.200s)", pclr_result_string(r), pclr_cl_build_log(ctx));
    g_break_source = 0;
    c.op = PCLR_SUM;
    r = pclr_cl_reduce(ctx, &c, g_buf_u, OFFSET, N_ELEMS, &v);
    CHECK(r == PCLR_OK && v == g_want_u, "after the failed build the context still reduces (%s)", pclr_result_string(r));
    pclr_cl_destroy(ctx);
}

int main(void) {
    int cl_ok;
    core_bad_inputs();
    if ((cl_ok = cl_setup()) != 0) {
        cl_bad_inputs();
        cl_failure_injection();
        cl_call_failures();
        cl_doctored_device();
        g_real.ReleaseMemObject(g_buf_u);
        g_real.ReleaseMemObject(g_buf_f);
        g_real.ReleaseCommandQueue(g_queue);
        g_real.ReleaseContext(g_clctx);
    } else {
        SKIP("no OpenCL platform/device: the OpenCL failure injection did not run");
    }
#ifndef PCLR_FAILURES_NO_CUDA
    cuda_bad_inputs();
    cuda_failure_injection();
    nvrtc_call_failures();
    if (cl_ok) driver_call_failures(); /* uses the OpenCL part's host data */
#endif
    return pclr_test_summary("test_failures");
}
