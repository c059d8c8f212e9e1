/* Concurrency: several threads, each with its own
   backend context, reducing at once; every result against pclr_cpu_reduce.
   A barrier releases all threads together, so contexts are created, programs
   built and kernels run concurrently, and contexts are destroyed concurrently.

   OpenCL scenarios, as pclreduce_cl.h ("Thread safety") promises them:
     own         each thread pclr_cl_create_default: its own cl_context + queue
     shared-ctx  one cl_context + device for all, each thread its own queue
     shared-q    one cl_context and one in-order queue for all
     shared-ooo  one out-of-order queue for all (where the device has them)
   CUDA scenarios (built with -DPCLR_TEST_CUDA, run where pclr_cuda_create
   finds a device): each thread its own pclr_cuda_context on device 0's
   primary context (so all share one CUcontext), on its own stream (the
   per-thread default stream CU_STREAM_PER_THREAD: the public API creates no
   streams, and this needs no libcuda call), then all on the legacy default
   stream 0.
   Per thread and scenario: every type/op at sizes 1, 1000, 65537, 1000003
   (small offsets), blocking and async, the finish cycled by thread index.

   Environment: PCLR_CL_PLATFORM / PCLR_CL_DEVICE (indices, as
   pclr_cl_create_default takes them; default the best device), PCLR_TEST_SEED
   (base seed; every thread's seed is printed), PCLR_TEST_THREADS (default 8),
   PCLR_TEST_QUICK=1 (sizes 1 and 65537 only: sanitizer builds),
   PCLR_TEST_ONLY=TEXT (only the scenarios whose name contains TEXT),
   PCLR_TEST_DISTINCT=1/0 (every thread its own configurations: default on
   PoCL 5.x, see run_opencl).
   Arguments: --opencl or --cuda runs only that part.
   Build: cc -std=c99 -pthread tests/test_threads.c -lOpenCL -ldl -lm, plus
   -DPCLR_TEST_CUDA -I$CUDA_PATH/include for the CUDA part (no -lcuda). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define PAD 8 /* room for the offsets */
static const uint64_t k_sizes[] = {1, 1000, 65537, 1000003};
#define NSIZES (sizeof k_sizes / sizeof k_sizes[0])
#define MAXN 1000003
static const pclr_type k_types[] = {PCLR_UINT, PCLR_INT, PCLR_FLOAT, PCLR_DOUBLE};
static const pclr_op k_ops[] = {PCLR_SUM, PCLR_MIN, PCLR_MAX};

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A reusable barrier from a mutex and a condition (pthread_barrier_t is
   optional in POSIX and missing on macOS). */
typedef struct barrier {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count, waiting, round;
} barrier;

static void barrier_wait(barrier *b) {
    int round;
    pthread_mutex_lock(&b->mutex);
    round = b->round;
    if (++b->waiting == b->count) {
        b->waiting = 0;
        ++b->round;
        pthread_cond_broadcast(&b->cond);
    } else {
        while (round == b->round) pthread_cond_wait(&b->cond, &b->mutex);
    }
    pthread_mutex_unlock(&b->mutex);
}

/* What every thread of one scenario sees; written by main before the threads start. */
typedef struct shared_env {
    const char *name;
    int scenario;         /* backend's scenario index */
    int quick;
    const char *only;     /* PCLR_TEST_ONLY */
    int distinct;         /* every thread its own configurations (PoCL 5, see run_opencl) */
    barrier start;
    int cl_platform, cl_device;
    cl_context cl_ctx;    /* shared scenarios */
    cl_device_id cl_dev;
    cl_command_queue cl_queue; /* shared-q / shared-ooo */
} shared_env;

/* One thread's counts: only that thread writes them; main reads after join. */
typedef struct worker {
    shared_env *env;
    int index;
    uint64_t seed;
    int passed, failed, reductions;
    double seconds;
} worker;

/* Records one check of a worker; a failure is one printf (whole line). */
static int wcheck(worker *w, int ok, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    if (ok) {
        ++w->passed;
        return 1;
    }
    ++w->failed;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL [%s thread %d seed %llu] %s\n", w->env->name, w->index, (unsigned long long)w->seed, msg);
    fflush(stdout);
    return 0;
}

/* ------------------------------------------------------------- test data */
static void fill(pclr_type t, void *dst, uint64_t count, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < count; ++i) {
        uint64_t r = pclr_test_rand(st);
        if (t == PCLR_FLOAT) ((float *)dst)[i] = (float)(((double)(r >> 40) - 8388608.0) / 8388608.0);
        else if (t == PCLR_DOUBLE) ((double *)dst)[i] = 2.0 * ((double)(r >> 11) / 9007199254740992.0) - 1.0;
        else ((uint32_t *)dst)[i] = (uint32_t)r; /* full 32-bit range; int reads the same bits */
    }
}

static double as_double(pclr_type t, const void *p) {
    if (t == PCLR_FLOAT) { float f; memcpy(&f, p, 4); return f; }
    if (t == PCLR_DOUBLE) { double d; memcpy(&d, p, 8); return d; }
    if (t == PCLR_INT) { int32_t i; memcpy(&i, p, 4); return i; }
    { uint32_t u; memcpy(&u, p, 4); return u; }
}

static unsigned log2u(uint64_t v) {
    unsigned l = 0;
    while (v > 1) { v >>= 1; ++l; }
    return l;
}

/* Bound on |device - cpu| for a float sum, as in test_opencl.c: both are
   trees of additions, each within depth * u * sum|x| of the exact sum. */
static double sum_bound(const pclr_config *resolved, const pclr_device_facts *facts, const void *x, uint64_t n) {
    pclr_launch plan;
    double sabs = 0, u = resolved->type == PCLR_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53), depth, group_depth;
    uint64_t i, threads;
    if (resolved->type == PCLR_FLOAT) for (i = 0; i < n; ++i) sabs += fabs((double)((const float *)x)[i]);
    else for (i = 0; i < n; ++i) sabs += fabs(((const double *)x)[i]);
    if (pclr_plan(resolved, facts, n, &plan) != PCLR_OK) plan.groups = 1, plan.group_size = 32;
    threads = plan.groups * plan.group_size;
    group_depth = resolved->variant == PCLR_VARIANT_COLLECTIVE ? (double)plan.group_size : (double)log2u(plan.group_size);
    depth = (double)(n / threads + 1) + 2.0 * group_depth + (double)(plan.groups / plan.group_size) + 16.0 /* device */
            + 256.0 + log2u(n) + 2.0;                                                                     /* cpu */
    return 1.1 * depth * u * sabs + 1e-30;
}

/* Device result against the CPU reference: float sums within the bound,
   everything else bit-exact. */
static void check_result(worker *w, const pclr_config *resolved, const pclr_device_facts *facts, const void *x,
                         uint64_t n, uint64_t offset, const void *got, const char *how) {
    unsigned char want[8];
    pclr_type t = resolved->type;
    pclr_cpu_reduce(t, resolved->op, x, n, want);
    if (resolved->op == PCLR_SUM && (t == PCLR_FLOAT || t == PCLR_DOUBLE)) {
        double g = as_double(t, got), v = as_double(t, want), b = sum_bound(resolved, facts, x, n);
        wcheck(w, fabs(g - v) <= b, "%s %s sum (finish %s) n=%llu offset=%llu: got %.17g want %.17g (bound %g)", how,
               pclr_type_name(t), pclr_finish_name(resolved->finish), (unsigned long long)n,
               (unsigned long long)offset, g, v, b);
    } else {
        wcheck(w, memcmp(got, want, pclr_type_size(t)) == 0,
               "%s %s %s (finish %s) n=%llu offset=%llu: got %.17g want %.17g", how, pclr_type_name(t),
               pclr_op_name(resolved->op), pclr_finish_name(resolved->finish), (unsigned long long)n,
               (unsigned long long)offset, as_double(t, got), as_double(t, want));
    }
}

/* Thread i's configuration for (type, op): the finish cycles with i;
   `distinct` also gives every thread its own unroll (so its own programs). */
static pclr_config make_cfg(int thread, int distinct, pclr_type t, pclr_op o) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.op = o;
    switch (thread % 3) {
    case 1: c.finish = (t == PCLR_UINT || t == PCLR_INT) ? PCLR_FINISH_ATOMIC : PCLR_FINISH_LAST_GROUP; break;
    case 2: c.finish = PCLR_FINISH_PARTIALS; break;
    default: break;
    }
    if (distinct) c.unroll = 1 << (thread % 8);
    return c;
}

static uint64_t pick_offset(int thread, size_t size_index) { return (uint64_t)((thread + 3 * (int)size_index) % 7); }

/* ---------------------------------------------------------------- OpenCL */
enum { CL_OWN, CL_SHARED_CTX, CL_SHARED_QUEUE, CL_SHARED_OOO, CL_SCENARIOS };
static const char *const k_cl_names[CL_SCENARIOS] = {"cl own", "cl shared-ctx", "cl shared-q", "cl shared-ooo"};

/* This thread's pclr context for the scenario. */
static pclr_result cl_make_context(worker *w, pclr_cl_context **ctx) {
    shared_env *e = w->env;
    pclr_cl_desc desc;
    pclr_result r;
    cl_int err = CL_SUCCESS;
    if (e->scenario == CL_OWN) return pclr_cl_create_default(e->cl_platform, e->cl_device, ctx);
    memset(&desc, 0, sizeof desc);
    desc.context = e->cl_ctx;
    desc.device = e->cl_dev;
    desc.queue = e->cl_queue;
    if (e->scenario == CL_SHARED_CTX) {
        desc.queue = clCreateCommandQueue(e->cl_ctx, e->cl_dev, 0, &err);
        if (err != CL_SUCCESS || !desc.queue) {
            wcheck(w, 0, "clCreateCommandQueue failed (%d)", (int)err);
            return PCLR_ERR_BACKEND;
        }
    }
    r = pclr_cl_create(&desc, ctx);
    if (e->scenario == CL_SHARED_CTX) clReleaseCommandQueue(desc.queue); /* the context retains it */
    return r;
}

static void *cl_worker(void *arg) {
    worker *w = (worker *)arg;
    shared_env *e = w->env;
    pclr_cl_context *ctx = NULL;
    const pclr_cl_features *feat;
    pclr_device_facts facts;
    cl_command_queue q;
    cl_mem in = NULL, out = NULL;
    unsigned char *host = (unsigned char *)malloc((size_t)(MAXN + PAD) * 8);
    size_t ti, oi, si;
    int k = 0;
    cl_int err = CL_SUCCESS;
    pclr_result r;
    double t0;

    barrier_wait(&e->start);
    t0 = now_s();
    r = cl_make_context(w, &ctx);
    if (!wcheck(w, r == PCLR_OK && host, "create: %s", pclr_result_string(r))) goto out;
    feat = pclr_cl_get_features(ctx);
    facts.compute_units = feat->compute_units;
    facts.max_group_size = feat->max_group_size;
    q = pclr_cl_get_queue(ctx);
    in = clCreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_WRITE, (size_t)(MAXN + PAD) * 8, NULL, &err);
    if (err == CL_SUCCESS) out = clCreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_WRITE, 4 * 8, NULL, &err);
    if (!wcheck(w, err == CL_SUCCESS, "clCreateBuffer failed (%d)", (int)err)) goto out;

    for (ti = 0; ti < sizeof k_types / sizeof k_types[0]; ++ti) {
        pclr_type t = k_types[ti];
        size_t ts = pclr_type_size(t);
        uint64_t st = w->seed * 31 + (uint64_t)t;
        if (t == PCLR_DOUBLE && !feat->fp64) continue;
        fill(t, host, MAXN + PAD, &st);
        err = clEnqueueWriteBuffer(q, in, CL_TRUE, 0, (size_t)(MAXN + PAD) * ts, host, 0, NULL, NULL);
        if (!wcheck(w, err == CL_SUCCESS, "clEnqueueWriteBuffer failed (%d)", (int)err)) goto out;
        for (oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; ++oi)
            for (si = 0; si < NSIZES; ++si, ++k) {
                pclr_config cfg = make_cfg(w->index, e->distinct, t, k_ops[oi]), res;
                uint64_t n = k_sizes[si], off = pick_offset(w->index, si), slot = (uint64_t)(k % 4);
                const void *x = host + off * ts;
                unsigned char got[8];
                cl_event done = NULL;
                if (e->quick && (si % 2)) continue;
                if (!wcheck(w, pclr_cl_resolve(ctx, &cfg, &res) == PCLR_OK, "resolve: %s", pclr_cl_last_error(ctx)))
                    continue;
                /* blocking */
                memset(got, 0xa5, sizeof got);
                ++w->reductions;
                r = pclr_cl_reduce(ctx, &cfg, in, off, n, got);
                if (wcheck(w, r == PCLR_OK, "pclr_cl_reduce %s %s n=%llu: %s (%s)", pclr_type_name(t),
                           pclr_op_name(cfg.op), (unsigned long long)n, pclr_result_string(r), pclr_cl_last_error(ctx)))
                    check_result(w, &res, &facts, x, n, off, got, "blocking");
                /* async into slot `slot` of `out`, then a blocking read after its event */
                memset(got, 0x5a, sizeof got);
                ++w->reductions;
                r = pclr_cl_reduce_async(ctx, &cfg, in, off, n, out, slot, 0, NULL, &done);
                if (!wcheck(w, r == PCLR_OK && done, "pclr_cl_reduce_async %s %s n=%llu: %s (%s)", pclr_type_name(t),
                            pclr_op_name(cfg.op), (unsigned long long)n, pclr_result_string(r),
                            pclr_cl_last_error(ctx)))
                    continue;
                err = clEnqueueReadBuffer(q, out, CL_TRUE, (size_t)(slot * ts), ts, got, 1, &done, NULL);
                clReleaseEvent(done);
                if (wcheck(w, err == CL_SUCCESS, "clEnqueueReadBuffer failed (%d)", (int)err))
                    check_result(w, &res, &facts, x, n, off, got, "async");
            }
    }
out:
    if (in) clReleaseMemObject(in);
    if (out) clReleaseMemObject(out);
    pclr_cl_destroy(ctx);
    free(host);
    w->seconds = now_s() - t0;
    return NULL;
}

static cl_uint cl_refcount_context(cl_context c) {
    cl_uint n = 0;
    clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}
static cl_uint cl_refcount_queue(cl_command_queue q) {
    cl_uint n = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

/* ------------------------------------------------------------------ CUDA */
#ifdef PCLR_TEST_CUDA
enum { CU_OWN_STREAM, CU_LEGACY_STREAM, CU_SCENARIOS };
static const char *const k_cu_names[CU_SCENARIOS] = {"cuda per-thread-stream", "cuda stream-0"};

static void *cuda_worker(void *arg) {
    worker *w = (worker *)arg;
    shared_env *e = w->env;
    pclr_cuda_context *ctx = NULL;
    const pclr_cuda_features *feat;
    pclr_device_facts facts;
    CUdeviceptr in = 0, out = 0;
    CUstream stream = e->scenario == CU_OWN_STREAM ? CU_STREAM_PER_THREAD : (CUstream)0;
    unsigned char *host = (unsigned char *)malloc((size_t)(MAXN + PAD) * 8);
    size_t ti, oi, si;
    int k = 0;
    pclr_result r;
    double t0;

    barrier_wait(&e->start);
    t0 = now_s();
    r = pclr_cuda_create(NULL, &ctx); /* device 0's primary context: shared by all threads */
    if (!wcheck(w, r == PCLR_OK && host, "create: %s: %s", pclr_result_string(r), pclr_cuda_last_error(ctx))) goto out;
    feat = pclr_cuda_get_features(ctx);
    facts.compute_units = feat->compute_units;
    facts.max_group_size = feat->max_group_size;
    r = pclr_cuda_alloc(ctx, (size_t)(MAXN + PAD) * 8, &in);
    if (r == PCLR_OK) r = pclr_cuda_alloc(ctx, 4 * 8, &out);
    if (!wcheck(w, r == PCLR_OK, "pclr_cuda_alloc: %s", pclr_cuda_last_error(ctx))) goto out;

    for (ti = 0; ti < sizeof k_types / sizeof k_types[0]; ++ti) {
        pclr_type t = k_types[ti];
        size_t ts = pclr_type_size(t);
        uint64_t st = w->seed * 31 + (uint64_t)t;
        fill(t, host, MAXN + PAD, &st);
        r = pclr_cuda_copy_to_device(ctx, in, host, (size_t)(MAXN + PAD) * ts);
        if (!wcheck(w, r == PCLR_OK, "pclr_cuda_copy_to_device: %s", pclr_cuda_last_error(ctx))) goto out;
        for (oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; ++oi)
            for (si = 0; si < NSIZES; ++si, ++k) {
                pclr_config cfg = make_cfg(w->index, e->distinct, t, k_ops[oi]), res;
                uint64_t n = k_sizes[si], off = pick_offset(w->index, si);
                CUdeviceptr slot = out + (CUdeviceptr)((k % 4) * ts);
                const void *x = host + off * ts;
                unsigned char got[8];
                if (e->quick && (si % 2)) continue;
                if (!wcheck(w, pclr_cuda_resolve(ctx, &cfg, &res) == PCLR_OK, "resolve: %s", pclr_cuda_last_error(ctx)))
                    continue;
                memset(got, 0xa5, sizeof got);
                ++w->reductions;
                r = pclr_cuda_reduce(ctx, &cfg, in, off, n, stream, got);
                if (wcheck(w, r == PCLR_OK, "pclr_cuda_reduce %s %s n=%llu: %s (%s)", pclr_type_name(t),
                           pclr_op_name(cfg.op), (unsigned long long)n, pclr_result_string(r), pclr_cuda_last_error(ctx)))
                    check_result(w, &res, &facts, x, n, off, got, "blocking");
                /* async on the stream; the copy (legacy default stream) waits for
                   the per-thread stream, which is a blocking stream */
                memset(got, 0x5a, sizeof got);
                ++w->reductions;
                r = pclr_cuda_reduce_async(ctx, &cfg, in, off, n, slot, stream);
                if (r == PCLR_OK) r = pclr_cuda_copy_to_host(ctx, got, slot, ts);
                if (wcheck(w, r == PCLR_OK, "pclr_cuda_reduce_async %s %s n=%llu: %s (%s)", pclr_type_name(t),
                           pclr_op_name(cfg.op), (unsigned long long)n, pclr_result_string(r), pclr_cuda_last_error(ctx)))
                    check_result(w, &res, &facts, x, n, off, got, "async");
            }
    }
out:
    if (ctx && in) pclr_cuda_free(ctx, in);
    if (ctx && out) pclr_cuda_free(ctx, out);
    pclr_cuda_destroy(ctx);
    free(host);
    w->seconds = now_s() - t0;
    return NULL;
}
#endif

/* ------------------------------------------------------------------ main */
/* Runs one scenario on `threads` threads; adds the workers' counts to the totals. */
static void run_scenario(shared_env *e, int threads, uint64_t seed, void *(*fn)(void *)) {
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int i, started = 0, per = -1, same = 1, total = 0, failed = 0;
    double t0 = now_s(), slowest = 0;
    memset(w, 0, sizeof w);
    pthread_mutex_init(&e->start.mutex, NULL);
    pthread_cond_init(&e->start.cond, NULL);
    e->start.count = threads;
    e->start.waiting = e->start.round = 0;
    printf("%s: %d threads, seeds", e->name, threads);
    for (i = 0; i < threads; ++i) {
        w[i].env = e;
        w[i].index = i;
        w[i].seed = seed + (uint64_t)i;
        printf(" %llu", (unsigned long long)w[i].seed);
    }
    printf("\n");
    fflush(stdout);
    for (i = 0; i < threads; ++i) {
        if (pthread_create(&tid[i], NULL, fn, &w[i]) != 0) break;
        ++started;
    }
    if (!CHECK(started == threads, "%s: pthread_create failed after %d threads", e->name, started)) {
        /* the barrier would never open: let the started ones through */
        pthread_mutex_lock(&e->start.mutex);
        e->start.count = started;
        if (started && e->start.waiting == started) {
            e->start.waiting = 0;
            ++e->start.round;
            pthread_cond_broadcast(&e->start.cond);
        }
        pthread_mutex_unlock(&e->start.mutex);
    }
    for (i = 0; i < started; ++i) pthread_join(tid[i], NULL);
    for (i = 0; i < started; ++i) {
        pclr_test_passed += w[i].passed;
        pclr_test_failed += w[i].failed;
        total += w[i].reductions;
        failed += w[i].failed;
        if (per < 0) per = w[i].reductions;
        else if (per != w[i].reductions) same = 0;
        if (w[i].seconds > slowest) slowest = w[i].seconds;
    }
    CHECK(same && per > 0, "%s: every thread ran all its reductions", e->name);
    printf("%s: %d threads x %d reductions = %d in %.2f s (slowest thread %.2f s), %d failed\n", e->name, started,
           per, total, now_s() - t0, slowest, failed);
    if (!same)
        for (i = 0; i < started; ++i) printf("  thread %d: %d reductions\n", i, w[i].reductions);
    fflush(stdout);
    pthread_cond_destroy(&e->start.cond);
    pthread_mutex_destroy(&e->start.mutex);
}

static void run_opencl(int threads, uint64_t seed, int quick) {
    shared_env e;
    pclr_cl_context *probe = NULL;
    cl_command_queue probe_q;
    cl_command_queue_properties qprops = 0;
    const pclr_cl_features *feat;
    struct timespec tick = {0, 10000000}; /* 10 ms */
    pclr_result r;
    int s, k;
    memset(&e, 0, sizeof e);
    e.quick = quick;
    e.only = getenv("PCLR_TEST_ONLY");
    e.cl_platform = env_int("PCLR_CL_PLATFORM", -1);
    e.cl_device = env_int("PCLR_CL_DEVICE", -1);
    r = pclr_cl_create_default(e.cl_platform, e.cl_device, &probe);
    if (!CHECK(r == PCLR_OK, "no OpenCL device at PCLR_CL_PLATFORM=%d PCLR_CL_DEVICE=%d: %s (install pocl-opencl-icd)",
               e.cl_platform, e.cl_device, pclr_result_string(r)))
        return;
    feat = pclr_cl_get_features(probe);
    if (feat) {
        printf("OpenCL device: %s (%s, driver %s)\n", feat->device_name, feat->platform_name, feat->driver_version);
        /* PoCL 5.0 aborts (pocl_release_dlhandle_cache: found->ref_count > 0)
           when one kernel binary runs with different grid sizes on several
           queues at once: its work-group function cache finds an entry by
           (hash, local size, grid width) but releases by (hash, local size),
           the wrong entry when two exist. Identical programs in several
           contexts share a hash, so there every thread gets its own. */
        e.distinct = strstr(feat->platform_name, "Portable Computing Language") && strncmp(feat->driver_version, "5.", 2) == 0;
        e.distinct = env_int("PCLR_TEST_DISTINCT", e.distinct);
        if (e.distinct)
            SKIP("identical programs on several queues at once: PoCL 5.0 aborts in its work-group function cache, so "
                 "every thread reduces with its own unroll (PCLR_TEST_DISTINCT=0 to try)");
    }
    /* the shared scenarios use the probe's cl_context and device, without the probe */
    e.cl_ctx = pclr_cl_get_cl_context(probe);
    probe_q = pclr_cl_get_queue(probe);
    clGetCommandQueueInfo(probe_q, CL_QUEUE_DEVICE, sizeof e.cl_dev, &e.cl_dev, NULL);
    clRetainContext(e.cl_ctx);
    pclr_cl_destroy(probe);
    clGetDeviceInfo(e.cl_dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL);

    for (s = 0; s < CL_SCENARIOS; ++s) {
        cl_uint ctx_refs, queue_refs = 0;
        cl_int err = CL_SUCCESS;
        e.scenario = s;
        e.name = k_cl_names[s];
        e.cl_queue = NULL;
        if (e.only && !strstr(e.name, e.only)) continue;
        if (s == CL_SHARED_OOO && !(qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
            SKIP("%s: the device has no out-of-order queues", e.name);
            continue;
        }
        if (s == CL_SHARED_QUEUE || s == CL_SHARED_OOO) {
            e.cl_queue = clCreateCommandQueue(e.cl_ctx, e.cl_dev, s == CL_SHARED_OOO ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0,
                                              &err);
            if (!CHECK(err == CL_SUCCESS && e.cl_queue, "%s: clCreateCommandQueue failed (%d)", e.name, (int)err)) continue;
            queue_refs = cl_refcount_queue(e.cl_queue);
        }
        ctx_refs = cl_refcount_context(e.cl_ctx);
        run_scenario(&e, threads, seed + 1000 * (uint64_t)s, cl_worker);
        /* Concurrent retains and releases balance: no count ends above where it
           started. Released events may hold the queue and context a little
           longer (PoCL frees them lazily, later still on a busy machine: the
           count taken before may include the last scenario's), so the counts
           get a few seconds to settle. */
        if (e.cl_queue) clFinish(e.cl_queue);
        for (k = 0; k < 500 && (cl_refcount_context(e.cl_ctx) > ctx_refs ||
                                (e.cl_queue && cl_refcount_queue(e.cl_queue) > queue_refs)); ++k)
            nanosleep(&tick, NULL);
        CHECK(cl_refcount_context(e.cl_ctx) <= ctx_refs, "%s: cl_context reference count back to %u (is %u)", e.name,
              (unsigned)ctx_refs, (unsigned)cl_refcount_context(e.cl_ctx));
        if (e.cl_queue) {
            CHECK(cl_refcount_queue(e.cl_queue) <= queue_refs, "%s: queue reference count back to %u (is %u)", e.name,
                  (unsigned)queue_refs, (unsigned)cl_refcount_queue(e.cl_queue));
            clReleaseCommandQueue(e.cl_queue);
        }
    }
    clReleaseContext(e.cl_ctx);
}

static void run_cuda(int threads, uint64_t seed, int quick) {
#ifdef PCLR_TEST_CUDA
    shared_env e;
    pclr_cuda_context *probe = NULL;
    pclr_cuda_desc desc;
    char why[512] = "";
    pclr_result r;
    const pclr_cuda_features *feat;
    int s;
    memset(&desc, 0, sizeof desc);
    desc.error = why;
    desc.error_cap = sizeof why;
    r = pclr_cuda_create(&desc, &probe);
    if (r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE) {
        SKIP("CUDA part: %s (%s)", pclr_result_string(r), why);
        return;
    }
    if (!CHECK(r == PCLR_OK, "CUDA create: %s: %s", pclr_result_string(r), why)) {
        pclr_cuda_destroy(probe);
        return;
    }
    feat = pclr_cuda_get_features(probe);
    if (feat) printf("CUDA device: %s\n", feat->device_name);
    pclr_cuda_destroy(probe);
    memset(&e, 0, sizeof e);
    e.quick = quick;
    e.only = getenv("PCLR_TEST_ONLY");
    for (s = 0; s < CU_SCENARIOS; ++s) {
        e.scenario = s;
        e.name = k_cu_names[s];
        if (e.only && !strstr(e.name, e.only)) continue;
        run_scenario(&e, threads, seed + 1000 * (uint64_t)(CL_SCENARIOS + s), cuda_worker);
    }
#else
    (void)threads;
    (void)seed;
    (void)quick;
    SKIP("CUDA part: built without -DPCLR_TEST_CUDA (no CUDA headers)");
#endif
}

/* Two threads on ONE context at once (the README says one thread at a time; a new user's test
   got ~40 % wrong results and no error): every call must either reduce right or say
   PCLR_ERR_BUSY and change nothing. Each thread sums its own buffer of the context (uint: exact). */
typedef struct sharer {
    pclr_context *ctx;
    pclr_buffer *buf;
    uint64_t n;
    uint32_t want;
    barrier *start;
    int iters, ok, busy, wrong, failed;
    pclr_result first_failure;
} sharer;

static void *share_worker(void *arg) {
    sharer *s = (sharer *)arg;
    pclr_config c;
    int i;
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT;
    c.op = PCLR_SUM;
    barrier_wait(s->start);
    for (i = 0; s->ok < s->iters && i < 1000 * s->iters; ++i) { /* until iters right (a refused call is tried again) */
        uint32_t got = 0;
        const pclr_result r = reduce_one(s->ctx, &c, s->buf, 0, s->n, &got);
        if (r == PCLR_ERR_BUSY) {
            const struct timespec pause = {0, 20000};
            ++s->busy;
            nanosleep(&pause, NULL);
        } else if (r != PCLR_OK) {
            if (!s->failed++) s->first_failure = r;
        } else if (got != s->want) {
            ++s->wrong;
        } else {
            ++s->ok;
        }
    }
    return NULL;
}

static void run_shared_context(pclr_backend backend, uint64_t seed, int quick) {
    pclr_desc d;
    pclr_context *ctx = NULL;
    sharer sh[2];
    pthread_t th[2];
    barrier start;
    char err[512];
    const uint64_t n = 65537;
    uint32_t *host = (uint32_t *)malloc(n * sizeof *host);
    uint64_t st = seed ^ 0x5ba4edull, i;
    int k, busy = 0;
    memset(&d, 0, sizeof d);
    d.backends[0] = backend;
    d.error = err;
    d.error_cap = sizeof err;
    d.no_tune_file = 1;
    if (!host || pclr_create(&d, &ctx) != PCLR_OK) {
        printf("skip: one context, two threads (%s): %s\n", pclr_backend_name(backend), host ? err : "no memory");
        free(host);
        return;
    }
    memset(&start, 0, sizeof start);
    pthread_mutex_init(&start.mutex, NULL);
    pthread_cond_init(&start.cond, NULL);
    start.count = 2;
    for (k = 0; k < 2; ++k) {
        memset(&sh[k], 0, sizeof sh[k]);
        sh[k].ctx = ctx;
        sh[k].n = n;
        sh[k].start = &start;
        sh[k].iters = quick ? 100 : 400;
        for (i = 0; i < n; ++i) { /* each thread's own data, so a result of the other's shows */
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            host[i] = (uint32_t)(st >> 40) + (uint32_t)k * 7u;
            sh[k].want += host[i];
        }
        CHECK(pclr_buffer_create(ctx, n * sizeof *host, &sh[k].buf) == PCLR_OK && pclr_buffer_write(ctx, sh[k].buf, 0, host, n * sizeof *host) == PCLR_OK,
              "shared context: buffer %d", k);
    }
    { /* built before the threads start, so that neither holds the context for a whole compile */
        pclr_config c;
        memset(&c, 0, sizeof c);
        c.type = PCLR_UINT;
        CHECK(pclr_prepare(ctx, &c) == PCLR_OK, "shared context: prepare (%s)", pclr_last_error(ctx));
    }
    for (k = 0; k < 2; ++k) pthread_create(&th[k], NULL, share_worker, &sh[k]);
    for (k = 0; k < 2; ++k) pthread_join(th[k], NULL);
    for (k = 0; k < 2; ++k) {
        CHECK(sh[k].wrong == 0 && sh[k].failed == 0, "one %s context, two threads: thread %d had %d wrong results, %d failures (first %s), %d right, %d busy",
              pclr_backend_name(pclr_get_backend(ctx)), k, sh[k].wrong, sh[k].failed, pclr_result_string(sh[k].first_failure), sh[k].ok, sh[k].busy);
        CHECK(sh[k].ok == sh[k].iters, "one context, two threads: thread %d reduced %d times right of %d (%d busy)", k, sh[k].ok, sh[k].iters, sh[k].busy);
        busy += sh[k].busy;
        pclr_buffer_destroy(ctx, sh[k].buf);
    }
    printf("one %s context, two threads: %d + %d right, %d calls refused as busy, 0 wrong expected (%d, %d)\n", pclr_backend_name(pclr_get_backend(ctx)),
           sh[0].ok, sh[1].ok, busy, sh[0].wrong, sh[1].wrong);
    { /* after the threads: the context works and its error text is the last failure's (BUSY wrote none) */
        uint32_t got = 0;
        pclr_config c;
        memset(&c, 0, sizeof c);
        c.type = PCLR_UINT;
        CHECK(pclr_buffer_create(ctx, n * sizeof *host, &sh[0].buf) == PCLR_OK && pclr_buffer_write(ctx, sh[0].buf, 0, host, n * sizeof *host) == PCLR_OK &&
                  reduce_one(ctx, &c, sh[0].buf, 0, n, &got) == PCLR_OK && got == sh[1].want,
              "the shared context works afterwards");
        pclr_buffer_destroy(ctx, sh[0].buf);
    }
    pthread_mutex_destroy(&start.mutex);
    pthread_cond_destroy(&start.cond);
    pclr_destroy(ctx);
    free(host);
}

int main(int argc, char **argv) {
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed = env && *env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    int threads = env_int("PCLR_TEST_THREADS", 8), quick = env_int("PCLR_TEST_QUICK", 0), i;
    int do_cl = 1, do_cuda = 1;
    double t0 = now_s();
    for (i = 1; i < argc; ++i) { /* --opencl / --cuda: only that part */
        if (strcmp(argv[i], "--opencl") == 0) do_cuda = 0;
        else if (strcmp(argv[i], "--cuda") == 0) do_cl = 0;
        else {
            fprintf(stderr, "usage: %s [--opencl | --cuda]\n", argv[0]);
            return 2;
        }
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    printf("test_threads: seed %llu, %d threads%s\n", (unsigned long long)seed, threads, quick ? " (quick)" : "");
    if (do_cl) run_opencl(threads, seed, quick);
    if (do_cuda) run_cuda(threads, seed, quick);
    if (do_cl) run_shared_context(PCLR_OPENCL, seed, quick);
#ifdef PCLR_TEST_CUDA
    if (do_cuda) run_shared_context(PCLR_CUDA, seed, quick);
#endif
    if (do_cl) run_shared_context(PCLR_CPU, seed, quick);
    printf("total %.2f s\n", now_s() - t0);
    return pclr_test_summary("test_threads");
}
