/* bench_cuda: pclreduce's CUDA backend against CUB (cub::DeviceReduce, the
   toolkit's two-phase call) and the streaming-read limit, on the same data.

   Build: nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl
   Run:   build/bench_cuda [--quick] [--types uint,float] [--ops sum] [--tuned unroll=8] [--study]
          build/bench_cuda --vocab [--types uint8,half] [--ops argmin,stats] [--accumulate native,wide]
          build/bench_cuda --exact   (exact float/double sums vs the native sum and CUB's two-phase Sum)
          build/bench_cuda --custom [--cases sum,max,lse,lse1,first,fused,argmin] [--sizes 20,24,28] [--target-ms 10]
                     (user-defined reductions, op custom: see "the custom run" below)
   Writes bench_cuda.csv (or study_cuda.csv, vocab_cuda.csv, custom_cuda.csv) and device_cuda.txt to --out DIR
   (default bench/results/<gpu>-cuda); the table goes to stdout.

   The runtime (for CUB) and pclreduce (driver API) share the device's primary
   context (--device N, default 0): cudaFree(0) creates it, pclr_cuda_create
   with desc.device_number = N + 1 retains it.

   Inputs rotate over K slices of one pool so that K * bytes > 3 x L2 (and at
   least 256 MiB) and no
   call reads what the previous one left in L2 (at 2^24 floats a single buffer
   would sit in the 50 MB L2 and look 2x faster than DRAM allows). */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "pclreduce.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench_common.h"

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "bench_cuda: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

/* ------------------------------------------------------------ the read limit */
#include "read_limit.cuh"

/* ------------------------------------------------------------ CUB */
template <typename T>
static cudaError_t cub_call(pclr_op op, void *temp, size_t &temp_bytes, const void *in, void *out, int n, cudaStream_t s) {
    const T *x = (const T *)in;
    T *y = (T *)out;
    switch (op) {
    case PCLR_MIN: return cub::DeviceReduce::Min(temp, temp_bytes, x, y, n, s);
    case PCLR_MAX: return cub::DeviceReduce::Max(temp, temp_bytes, x, y, n, s);
    default: return cub::DeviceReduce::Sum(temp, temp_bytes, x, y, n, s);
    }
}

/* temp == NULL: only asks for temp_bytes (CUB's two-phase protocol). */
static cudaError_t cub_reduce(pclr_type t, pclr_op op, void *temp, size_t &temp_bytes, const void *in, void *out, int n,
                              cudaStream_t s) {
    switch (t) {
    case PCLR_UINT: return cub_call<unsigned>(op, temp, temp_bytes, in, out, n, s);
    case PCLR_INT: return cub_call<int>(op, temp, temp_bytes, in, out, n, s);
    case PCLR_FLOAT: return cub_call<float>(op, temp, temp_bytes, in, out, n, s);
    default: return cub_call<double>(op, temp, temp_bytes, in, out, n, s);
    }
}

/* ------------------------------------------------------------ CUB for the vocabulary run
   argmin/argmax: the DeviceReduce::ArgMin/ArgMax overload with separate value
   and int64 index outputs (value at out, index at out + 16);
   sum into a wider type S: DeviceReduce::TransformReduce with a cast to S
   (signed integers are summed in the unsigned type of S's width: the same
   bits as pclreduce's wrapping sums, without signed-overflow UB);
   sum+min+max: that sum (out), DeviceReduce::Min (out + 16) and Max
   (out + 32), one after the other on the stream: three passes. */
enum impl_kind { IMPL_CUB, IMPL_PCLR, IMPL_READ, IMPL_CUB_ARGMIN, IMPL_CUB_ARGMAX, IMPL_CUB_SUM, IMPL_CUB_SMM };

template <typename S> struct cast_to {
    template <typename T> __device__ S operator()(const T &x) const { return (S)x; }
    __device__ S operator()(const __half &x) const { return (S)__half2float(x); }
};

template <typename T, typename S>
static cudaError_t cub_sum_into(void *temp, size_t &bytes, const void *in, void *out, int n, cudaStream_t s) {
    return cub::DeviceReduce::TransformReduce(temp, bytes, (const T *)in, (S *)out, n, cuda::std::plus<S>(), cast_to<S>(), S(0), s);
}

/* The sum type S for pclreduce's sum type st (only the pairs pclreduce has are instantiated:
   integers sum into 32 or 64 bits, half and float into float or double, double into double). */
template <typename T> struct is_fp { static const bool value = false; };
template <> struct is_fp<__half> { static const bool value = true; };
template <> struct is_fp<float> { static const bool value = true; };
template <> struct is_fp<double> { static const bool value = true; };

template <typename T>
static cudaError_t cub_sum_as(pclr_type st, void *temp, size_t &bytes, const void *in, void *out, int n, cudaStream_t s) {
    if constexpr (std::is_same<T, double>::value) {
        if (st == PCLR_DOUBLE) return cub_sum_into<T, double>(temp, bytes, in, out, n, s);
    } else if constexpr (is_fp<T>::value) {
        if (st == PCLR_FLOAT) return cub_sum_into<T, float>(temp, bytes, in, out, n, s);
        if (st == PCLR_DOUBLE) return cub_sum_into<T, double>(temp, bytes, in, out, n, s);
    } else {
        if (st == PCLR_UINT || st == PCLR_INT) return cub_sum_into<T, uint32_t>(temp, bytes, in, out, n, s);
        if (st == PCLR_UINT64 || st == PCLR_INT64) return cub_sum_into<T, unsigned long long>(temp, bytes, in, out, n, s);
    }
    return cudaErrorInvalidValue;
}

/* temp == NULL: only the temp bytes (for sum+min+max the largest of the three). */
template <typename T>
static cudaError_t cub_vocab_t(impl_kind k, pclr_type st, void *temp, size_t &bytes, const void *in, char *out, uint64_t n,
                               cudaStream_t s) {
    const T *x = (const T *)in;
    switch (k) {
    case IMPL_CUB_ARGMIN: return cub::DeviceReduce::ArgMin(temp, bytes, x, (T *)out, (int64_t *)(out + 16), (int64_t)n, s);
    case IMPL_CUB_ARGMAX: return cub::DeviceReduce::ArgMax(temp, bytes, x, (T *)out, (int64_t *)(out + 16), (int64_t)n, s);
    case IMPL_CUB_SUM: return cub_sum_as<T>(st, temp, bytes, in, out, (int)n, s);
    case IMPL_CUB_SMM: {
        cudaError_t e;
        if (!temp) {
            size_t a = 0, b = 0, c = 0;
            if ((e = cub_sum_as<T>(st, NULL, a, in, out, (int)n, s)) != cudaSuccess ||
                (e = cub::DeviceReduce::Min(NULL, b, x, (T *)(out + 16), (int)n, s)) != cudaSuccess ||
                (e = cub::DeviceReduce::Max(NULL, c, x, (T *)(out + 32), (int)n, s)) != cudaSuccess)
                return e;
            bytes = std::max(a, std::max(b, c));
            return cudaSuccess;
        }
        if ((e = cub_sum_as<T>(st, temp, bytes, in, out, (int)n, s)) != cudaSuccess) return e;
        if ((e = cub::DeviceReduce::Min(temp, bytes, x, (T *)(out + 16), (int)n, s)) != cudaSuccess) return e;
        return cub::DeviceReduce::Max(temp, bytes, x, (T *)(out + 32), (int)n, s);
    }
    default: return cudaErrorInvalidValue;
    }
}

static cudaError_t cub_vocab(impl_kind k, pclr_type t, pclr_type st, void *temp, size_t bytes, const void *in, void *out, uint64_t n,
                             cudaStream_t s, size_t *need) {
    size_t &b = need ? *need : bytes;
    char *o = (char *)out;
    switch (t) {
    case PCLR_UINT8: return cub_vocab_t<uint8_t>(k, st, temp, b, in, o, n, s);
    case PCLR_INT8: return cub_vocab_t<int8_t>(k, st, temp, b, in, o, n, s);
    case PCLR_UINT16: return cub_vocab_t<uint16_t>(k, st, temp, b, in, o, n, s);
    case PCLR_INT16: return cub_vocab_t<int16_t>(k, st, temp, b, in, o, n, s);
    case PCLR_UINT: return cub_vocab_t<uint32_t>(k, st, temp, b, in, o, n, s);
    case PCLR_INT: return cub_vocab_t<int32_t>(k, st, temp, b, in, o, n, s);
    case PCLR_UINT64: return cub_vocab_t<unsigned long long>(k, st, temp, b, in, o, n, s);
    case PCLR_INT64: return cub_vocab_t<long long>(k, st, temp, b, in, o, n, s);
    case PCLR_HALF: return cub_vocab_t<__half>(k, st, temp, b, in, o, n, s);
    case PCLR_FLOAT: return cub_vocab_t<float>(k, st, temp, b, in, o, n, s);
    case PCLR_DOUBLE: return cub_vocab_t<double>(k, st, temp, b, in, o, n, s);
    default: return cudaErrorInvalidValue;
    }
}

static int is_cub_vocab(impl_kind k) { return k == IMPL_CUB_ARGMIN || k == IMPL_CUB_ARGMAX || k == IMPL_CUB_SUM || k == IMPL_CUB_SMM; }

/* ------------------------------------------------------------ state */

struct impl {
    impl_kind kind;
    char name[64];
    pclr_config cfg; /* IMPL_PCLR: knobs; type/op/dialect are set per point */
};

struct bench {
    bench_opts o;
    char device[256], out_dir[512];
    int sms;
    size_t l2_bytes;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    pclr_cuda_context *pc; /* NULL when the backend could not start (CUB still runs) */
    char *pool_dev;
    void *pool_host;
    size_t pool_bytes;
    void *out_dev, *res_pinned, *cub_temp;
    size_t cub_temp_bytes;
    unsigned *read_out;
    int failures;
    /* --custom (run_custom), its --cases (bits of custom_cases) and --sizes (log2 n; 0: none given) */
    int custom, nsizes, sizes_log[16];
    unsigned cases;
};

/* One (implementation, type, op, n) being measured. */
struct point {
    bench *b;
    const impl *im;
    pclr_config cfg; /* resolved-to-be: im->cfg with type/op/dialect */
    pclr_type type;
    pclr_op op;
    uint64_t n;
    size_t bytes;
    int buffers, next, batch;
    pclr_type sum_type; /* CUB's sums: their output type */
    char err[256];
};

static const char *point_in(point *p, int slice) { return p->b->pool_dev + (size_t)slice * p->bytes; }
static int next_slice(point *p) {
    int s = p->next;
    p->next = (p->next + 1) % p->buffers;
    return s;
}

static int cuda_fail(point *p, cudaError_t e, const char *what) {
    if (e == cudaSuccess) return 0;
    snprintf(p->err, sizeof p->err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}
static int pclr_fail(point *p, pclr_result r, const char *what) {
    if (r == PCLR_OK) return 0;
    snprintf(p->err, sizeof p->err, "%s: %s (%.120s)", what, pclr_result_string(r), p->b->pc ? pclr_cuda_last_error(p->b->pc) : "");
    return -1;
}

/* Enqueues one reduction of slice `s` whose result lands in out_dev (read_out for the limit). */
static int launch(point *p, int s) {
    bench *b = p->b;
    const void *in = point_in(p, s);
    switch (p->im->kind) {
    case IMPL_CUB:
        return cuda_fail(p, cub_reduce(p->type, p->op, b->cub_temp, b->cub_temp_bytes, in, b->out_dev, (int)p->n, b->stream), "cub");
    case IMPL_CUB_ARGMIN: case IMPL_CUB_ARGMAX: case IMPL_CUB_SUM: case IMPL_CUB_SMM:
        return cuda_fail(p, cub_vocab(p->im->kind, p->type, p->sum_type, b->cub_temp, b->cub_temp_bytes, in, b->out_dev, p->n, b->stream, NULL),
                         "cub");
    case IMPL_PCLR:
        return pclr_fail(p, pclr_cuda_reduce_async(b->pc, &p->cfg, (CUdeviceptr)(uintptr_t)in, 0, p->n,
                                                   (CUdeviceptr)(uintptr_t)b->out_dev, (CUstream)b->stream),
                         "pclr_cuda_reduce_async");
    default: {
        unsigned long long nvec = p->bytes / 16, blocks = (nvec + 1023) / 1024, cap = (unsigned long long)b->sms * 8;
        read_limit_kernel<<<(unsigned)std::max(1ull, std::min(blocks, cap)), 256, 0, b->stream>>>((const uint4 *)in, nvec, b->read_out);
        return cuda_fail(p, cudaGetLastError(), "read kernel");
    }
    }
}

/* Reduction of slice `s` with its result in host memory, as a user would do it:
   pclreduce's blocking call; CUB + async copy of the element to pinned memory + sync. */
static int blocking(point *p, int s, void *result) {
    bench *b = p->b;
    size_t esize = p->im->kind == IMPL_READ ? 4 : is_cub_vocab(p->im->kind) ? 64 : pclr_type_size(p->type);
    if (p->im->kind == IMPL_PCLR)
        return pclr_fail(p, pclr_cuda_reduce(b->pc, &p->cfg, (CUdeviceptr)(uintptr_t)point_in(p, s), 0, p->n, (CUstream)b->stream, result),
                         "pclr_cuda_reduce");
    if (launch(p, s)) return -1;
    if (cuda_fail(p, cudaMemcpyAsync(b->res_pinned, p->im->kind == IMPL_READ ? (void *)b->read_out : b->out_dev, esize,
                                     cudaMemcpyDeviceToHost, b->stream), "copy result") ||
        cuda_fail(p, cudaStreamSynchronize(b->stream), "sync"))
        return -1;
    memcpy(result, b->res_pinned, esize);
    return 0;
}

static double sample_kernel(void *u) {
    point *p = (point *)u;
    float ms = 0;
    if (cuda_fail(p, cudaEventRecord(p->b->e0, p->b->stream), "event") || launch(p, next_slice(p)) ||
        cuda_fail(p, cudaEventRecord(p->b->e1, p->b->stream), "event") || cuda_fail(p, cudaEventSynchronize(p->b->e1), "sync") ||
        cuda_fail(p, cudaEventElapsedTime(&ms, p->b->e0, p->b->e1), "elapsed"))
        return -1;
    return 1e3 * ms;
}

static double sample_pipelined(void *u) {
    point *p = (point *)u;
    float ms = 0;
    int i;
    if (cuda_fail(p, cudaEventRecord(p->b->e0, p->b->stream), "event")) return -1;
    for (i = 0; i < p->batch; ++i)
        if (launch(p, next_slice(p))) return -1;
    if (cuda_fail(p, cudaEventRecord(p->b->e1, p->b->stream), "event") || cuda_fail(p, cudaEventSynchronize(p->b->e1), "sync") ||
        cuda_fail(p, cudaEventElapsedTime(&ms, p->b->e0, p->b->e1), "elapsed"))
        return -1;
    return 1e3 * ms / p->batch;
}

/* The batch captured once into a CUDA graph, then replayed: per call. */
static double sample_graph(void *u) {
    point *p = (point *)u;
    bench *b = p->b;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    float ms = 0;
    int i, rep;
    double best = -1;
    if (cuda_fail(p, cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeGlobal), "begin capture")) return -1;
    for (i = 0; i < p->batch; ++i)
        if (launch(p, next_slice(p))) break;
    if (cuda_fail(p, cudaStreamEndCapture(b->stream, &g), "end capture") || p->err[0] ||
        cuda_fail(p, cudaGraphInstantiate(&ge, g, 0), "instantiate")) {
        if (g) cudaGraphDestroy(g);
        return -1;
    }
    for (rep = 0; rep < 3 && !p->err[0]; ++rep) { /* the first replay uploads the graph */
        if (cuda_fail(p, cudaEventRecord(b->e0, b->stream), "event") || cuda_fail(p, cudaGraphLaunch(ge, b->stream), "graph launch") ||
            cuda_fail(p, cudaEventRecord(b->e1, b->stream), "event") || cuda_fail(p, cudaEventSynchronize(b->e1), "sync") ||
            cuda_fail(p, cudaEventElapsedTime(&ms, b->e0, b->e1), "elapsed"))
            break;
        if (rep > 0 && (best < 0 || 1e3 * ms / p->batch < best)) best = 1e3 * ms / p->batch;
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    return p->err[0] ? -1 : best;
}

static double sample_blocking(void *u) {
    point *p = (point *)u;
    double t0 = bench_now(), result[16];
    if (blocking(p, next_slice(p), result)) return -1;
    return 1e6 * (bench_now() - t0);
}

/* Checks the blocking and the async path on slices 0 and K-1 against the CPU. */
static int check_point(point *p, const double refs[2], char *why, size_t cap) {
    bench *b = p->b;
    size_t esize = pclr_type_size(p->type);
    int k, slices[2] = {0, p->buffers - 1};
    for (k = 0; k < (p->buffers > 1 ? 2 : 1); ++k) {
        double got[2];
        memset(got, 0xa5, sizeof got);
        if (blocking(p, slices[k], got)) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (!bench_check(p->type, p->op, p->n, got, &refs[k], why, cap)) return 0;
        if (p->im->kind != IMPL_PCLR) continue; /* CUB's blocking path is its async call */
        memset(got, 0xa5, sizeof got);
        if (cuda_fail(p, cudaMemsetAsync(b->out_dev, 0xa5, 16, b->stream), "memset") || launch(p, slices[k]) ||
            cuda_fail(p, cudaMemcpyAsync(b->res_pinned, b->out_dev, esize, cudaMemcpyDeviceToHost, b->stream), "copy") ||
            cuda_fail(p, cudaStreamSynchronize(b->stream), "sync")) {
            snprintf(why, cap, "%.150s", p->err);
            return 0;
        }
        memcpy(got, b->res_pinned, esize);
        if (!bench_check(p->type, p->op, p->n, got, &refs[k], why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (async path)");
            return 0;
        }
    }
    return 1;
}

/* Measures the three timings of one point into `row`. */
static void measure(point *p, bench_row *row) {
    const bench_opts *o = &p->b->o;
    double est_us = -1;
    int i;
    row->buffers = p->buffers;
    for (i = 0; i < 3; ++i) /* warm-up: first-touch of scratch, clocks up */
        if (launch(p, next_slice(p))) break;
    if (!p->err[0]) cuda_fail(p, cudaStreamSynchronize(p->b->stream), "sync");
    if (!p->err[0] && o->do_kernel) {
        row->kernel_us = est_us = bench_measure(sample_kernel, p, o->target_s, o->min_reps, &row->kernel_reps);
    }
    if (!p->err[0] && o->do_pipelined) {
        if (est_us < 0) est_us = sample_kernel(p);
        p->batch = row->batch = bench_batch_for(o, est_us);
        row->pipelined_us = bench_measure(sample_pipelined, p, o->target_s, o->min_reps > 5 ? 5 : o->min_reps, &row->pipelined_reps);
        if (!p->err[0] && (p->im->kind == IMPL_PCLR || p->im->kind == IMPL_READ || p->im->kind == IMPL_CUB)) {
            int reps;
            row->graph_us = bench_measure(sample_graph, p, o->target_s / 2, 3, &reps);
            if (p->err[0]) { /* a graph that cannot be captured is reported, not fatal */
                fprintf(stderr, "bench_cuda: %s: no graph time: %s\n", row->impl, p->err);
                p->err[0] = '\0';
                row->graph_us = NAN;
                cudaGetLastError();
            }
        }
    }
    if (!p->err[0] && o->do_blocking) row->blocking_us = bench_measure(sample_blocking, p, o->target_s, o->min_reps, &row->blocking_reps);
    if (p->err[0]) {
        snprintf(row->status, sizeof row->status, "FAIL: %.150s", p->err);
        row->kernel_us = row->pipelined_us = row->blocking_us = NAN;
    }
}

/* ------------------------------------------------------------ set-up */
static void fill_pool(bench *b, pclr_type t) {
    uint64_t count = b->pool_bytes / pclr_type_size(t);
    uint64_t chunks = (count + BENCH_FILL_CHUNK - 1) / BENCH_FILL_CHUNK;
    unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < nt; ++w)
        threads.emplace_back([=] {
            for (uint64_t c = w; c < chunks; c += nt) {
                uint64_t e = (c + 1) * BENCH_FILL_CHUNK;
                bench__fill_chunk(t, b->pool_host, c * BENCH_FILL_CHUNK, e < count ? e : count, 0x5eed0000u + (uint64_t)t);
            }
        });
    for (auto &th : threads) th.join();
    CK(cudaMemcpy(b->pool_dev, b->pool_host, count * pclr_type_size(t), cudaMemcpyHostToDevice));
}

/* Slices so that they span more than 3 x L2 (at least 256 MiB), as many as fit. */
static size_t rotation_span(const bench *b) { return std::max<size_t>((size_t)256 << 20, 3 * b->l2_bytes); }
static int buffers_for(const bench *b, size_t bytes) {
    size_t span = rotation_span(b);
    size_t k = (span + bytes - 1) / bytes, fit = b->pool_bytes / bytes;
    return (int)std::max<size_t>(1, std::min(k, fit));
}

/* The vocabulary run's sizes for type t: --sizes (those that fit 2^max_bytes_log bytes), else bench_vocab_sizes. */
static int vocab_sizes(const bench *b, pclr_type t, uint64_t *out, int cap) {
    int k = 0;
    if (!b->nsizes) return bench_vocab_sizes(&b->o, t, out, cap);
    for (int i = 0; i < b->nsizes && k < cap; ++i)
        if (((uint64_t)pclr_type_size(t) << b->sizes_log[i]) <= (1ull << b->o.max_bytes_log)) out[k++] = 1ull << b->sizes_log[i];
    return k;
}

static void grow_cub_temp(bench *b, pclr_type t, pclr_op op, uint64_t n) {
    size_t need = 0;
    CK(cub_reduce(t, op, NULL, need, b->pool_dev, b->out_dev, (int)n, b->stream));
    if (need > b->cub_temp_bytes) {
        if (b->cub_temp) CK(cudaFree(b->cub_temp));
        CK(cudaMalloc(&b->cub_temp, need));
        b->cub_temp_bytes = need;
    }
}

static void write_device_file(bench *b) {
    FILE *f = bench_open_out(b->out_dir, "device_cuda.txt");
    int drv = 0, rt = 0;
    cudaDeviceProp prop;
    if (!f) return;
    CK(cudaGetDeviceProperties(&prop, b->o.device >= 0 ? b->o.device : 0));
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(f, "backend: cuda\ndevice: %s\ncompute capability: %d.%d\nSMs: %d\nL2: %zu bytes\nmemory: %zu MiB\n", prop.name,
            prop.major, prop.minor, prop.multiProcessorCount, (size_t)prop.l2CacheSize, (size_t)(prop.totalGlobalMem >> 20));
    fprintf(f, "CUDA driver: %d\nCUDA runtime (CUB): %d\nCUB: %d.%d.%d\n", drv, rt, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    fprintf(f, "pclreduce: %s\n", PCLREDUCE_VERSION);
    if (b->pc) {
        char text[4096];
        pclr_cuda_describe(b->pc, text, sizeof text);
        fprintf(f, "%s\n", text);
    }
    fclose(f);
}

/* Compiles one configuration outside the timings; prints the compile time. */
static pclr_result prepare(bench *b, const pclr_config *cfg, const char *name) {
    double t0 = bench_now();
    pclr_result r = pclr_cuda_prepare(b->pc, cfg);
    if (r == PCLR_OK)
        printf("# prepared %s %s %s in %.1f ms\n", name, pclr_type_name(cfg->type), pclr_op_name(cfg->op), 1e3 * (bench_now() - t0));
    else
        printf("# FAIL prepare %s %s %s: %s (%s)\n", name, pclr_type_name(cfg->type), pclr_op_name(cfg->op), pclr_result_string(r),
               pclr_cuda_last_error(b->pc));
    return r;
}

/* ------------------------------------------------------------ the sweep */
static void run_sweep(bench *b) {
    std::vector<impl> impls;
    impl im;
    bench_row read_cache[64];
    int have_read[64] = {0};
    FILE *csv = bench_open_out(b->out_dir, "bench_cuda.csv");
    if (!csv) exit(1);
    bench_csv_header(csv);

    /* the read kernel first: every later row's efficiency is against it */
    memset(&im, 0, sizeof im);
    im.kind = IMPL_READ; snprintf(im.name, sizeof im.name, "read-limit"); impls.push_back(im);
    memset(&im, 0, sizeof im);
    im.kind = IMPL_CUB; snprintf(im.name, sizeof im.name, "cub"); impls.push_back(im);
    if (b->pc) {
        im.kind = IMPL_PCLR; snprintf(im.name, sizeof im.name, "pclreduce"); impls.push_back(im);
        for (int i = 0; i < b->o.ntuned; ++i) {
            im.cfg = b->o.tuned[i];
            bench_tuned_name(&im.cfg, im.name, sizeof im.name);
            impls.push_back(im);
        }
    }

    printf("# %s, %d SMs, L2 %zu MB. Times in us per call (median); GB/s from the kernel time;\n"
           "# cub/impl = CUB time / this time (above 1: faster than CUB).\n",
           b->device, b->sms, b->l2_bytes >> 20);
    bench_table_header("cub");
    for (int ti = 1; ti < PCLR_TYPE_COUNT_; ++ti) {
        pclr_type t = (pclr_type)ti;
        uint64_t sizes[40];
        int nsizes;
        if (!b->o.types[t]) continue;
        nsizes = bench_sizes(&b->o, t, sizes, 40);
        fill_pool(b, t);
        for (int oi = 1; oi < PCLR_OP_COUNT_; ++oi) {
            pclr_op op = (pclr_op)oi;
            std::vector<int> usable(impls.size(), 1);
            if (!b->o.ops[op]) continue;
            for (size_t k = 0; k < impls.size(); ++k) {
                if (impls[k].kind != IMPL_PCLR) continue;
                pclr_config c = impls[k].cfg;
                c.type = t; c.op = op; c.backend = PCLR_CUDA;
                if (prepare(b, &c, impls[k].name) != PCLR_OK) { usable[k] = 0; ++b->failures; }
            }
            for (int si = 0; si < nsizes; ++si) {
                uint64_t n = sizes[si];
                size_t bytes = n * pclr_type_size(t);
                double refs[2]; /* room for one element of any type each */
                bench_row cub_row;
                double read_pipelined = NAN;
                point p;
                memset(&p, 0, sizeof p);
                p.b = b; p.type = t; p.op = op; p.n = n; p.bytes = bytes;
                p.buffers = buffers_for(b, bytes);
                pclr_cpu_reduce(t, op, b->pool_host, n, &refs[0]);
                pclr_cpu_reduce(t, op, (const char *)b->pool_host + (size_t)(p.buffers - 1) * bytes, n, &refs[1]);
                grow_cub_temp(b, t, op, n);
                bench_row_init(&cub_row, "cuda", b->device, t, op, n, "cub");
                snprintf(cub_row.status, sizeof cub_row.status, "FAIL: not run");
                for (size_t k = 0; k < impls.size(); ++k) {
                    bench_row row;
                    char why[200] = "";
                    int lg = bench_log2(bytes);
                    p.im = &impls[k];
                    p.err[0] = '\0';
                    p.next = 0;
                    p.cfg = impls[k].cfg;
                    p.cfg.type = t; p.cfg.op = op; p.cfg.backend = PCLR_CUDA;
                    bench_row_init(&row, "cuda", b->device, t, op, n, impls[k].name);
                    if (impls[k].kind == IMPL_READ && have_read[lg]) {
                        row = read_cache[lg]; /* the limit depends only on the bytes read */
                        row.type = t; row.op = op; row.n = n;
                    } else if (!usable[k]) {
                        snprintf(row.status, sizeof row.status, "FAIL: prepare failed");
                    } else if (impls[k].kind != IMPL_READ && !b->o.no_check && !check_point(&p, refs, why, sizeof why)) {
                        snprintf(row.status, sizeof row.status, "FAIL: %s", why);
                    } else {
                        measure(&p, &row);
                        if (impls[k].kind == IMPL_READ && strcmp(row.status, "ok") == 0) { read_cache[lg] = row; have_read[lg] = 1; }
                    }
                    if (strncmp(row.status, "ok", 2) != 0) ++b->failures;
                    if (impls[k].kind == IMPL_CUB) cub_row = row;
                    if (impls[k].kind == IMPL_READ) read_pipelined = row.pipelined_us;
                    row.efficiency = read_pipelined / row.pipelined_us;
                    bench_csv_row(csv, &row);
                    bench_table_row(&row, impls[k].kind == IMPL_READ ? NULL : &cub_row);
                }
            }
        }
    }
    fclose(csv);
}

/* ------------------------------------------------------------ the study */
static void run_study(bench *b) {
    bench_study_point plan[BENCH_STUDY_MAX];
    pclr_type t = PCLR_UINT;
    pclr_op op = PCLR_SUM;
    int i, count;
    uint64_t n = 1ull << b->o.study_log;
    double refs[2];
    FILE *csv;
    const pclr_cuda_features *ft;
    pclr_device_facts facts;
    if (!b->pc) { fprintf(stderr, "bench_cuda: the study needs the pclreduce CUDA backend\n"); exit(1); }
    for (i = PCLR_TYPE_COUNT_ - 1; i >= 1; --i) if (b->o.types[i]) t = (pclr_type)i; /* the first selected */
    for (i = PCLR_OP_COUNT_ - 1; i >= 1; --i) if (b->o.ops[i]) op = (pclr_op)i;
    while (n * pclr_type_size(t) > b->pool_bytes) n >>= 1;
    ft = pclr_cuda_get_features(b->pc);
    facts.compute_units = ft->compute_units;
    facts.max_group_size = ft->max_group_size;
    csv = bench_open_out(b->out_dir, "study_cuda.csv");
    if (!csv) exit(1);
    bench_study_csv_header(csv);
    fill_pool(b, t);
    count = bench_study_plan(t, op, PCLR_CUDA, 1, 0, plan, BENCH_STUDY_MAX);
    {
        size_t bytes = n * pclr_type_size(t);
        int k = buffers_for(b, bytes);
        pclr_cpu_reduce(t, op, b->pool_host, n, &refs[0]);
        pclr_cpu_reduce(t, op, (const char *)b->pool_host + (size_t)(k - 1) * bytes, n, &refs[1]);
    }
    printf("# study on %s: %s %s, n = 2^%d, kernel time (median)\n", b->device, pclr_type_name(t), pclr_op_name(op), bench_log2(n));
    printf("%-12s %-20s %-6s %-10s %6s %6s %6s %8s %10s %8s\n", "study", "series", "stride", "variant", "unroll", "vector", "gpu",
           "groups", "kernel_us", "GB/s");
    impl im;
    memset(&im, 0, sizeof im);
    im.kind = IMPL_PCLR;
    snprintf(im.name, sizeof im.name, "study");
    for (i = 0; i < count; ++i) {
        pclr_config res;
        pclr_launch plan_l;
        point p;
        bench_row row;
        char why[200] = "";
        memset(&p, 0, sizeof p);
        p.b = b; p.im = &im; p.type = t; p.op = op; p.n = n; p.bytes = n * pclr_type_size(t);
        p.buffers = buffers_for(b, p.bytes);
        p.cfg = plan[i].cfg;
        bench_row_init(&row, "cuda", b->device, t, op, n, "study");
        if (pclr_cuda_resolve(b->pc, &p.cfg, &res) != PCLR_OK) {
            printf("# skip %s/%s: %s\n", plan[i].study, plan[i].series, pclr_cuda_last_error(b->pc));
            continue;
        }
        plan_l.groups = 0;
        pclr_plan(&res, &facts, n, &plan_l);
        if (pclr_cuda_prepare(b->pc, &p.cfg) != PCLR_OK) {
            snprintf(row.status, sizeof row.status, "unsupported: %.140s", pclr_cuda_last_error(b->pc));
        } else if (!b->o.no_check && !check_point(&p, refs, why, sizeof why)) {
            snprintf(row.status, sizeof row.status, "FAIL: %s", why);
            ++b->failures;
        } else {
            bench_opts saved = b->o;
            b->o.do_pipelined = b->o.do_blocking = 0;
            b->o.do_kernel = 1;
            measure(&p, &row);
            b->o = saved;
        }
        bench_study_csv_row(csv, "cuda", b->device, &plan[i], &res, n, plan_l.groups, row.kernel_us, row.kernel_reps, row.status);
        printf("%-12s %-20s %-6s %-10s %6d %6d %6d %8llu %10.2f %8.1f %s\n", plan[i].study, plan[i].series, pclr_stride_name(res.stride),
               pclr_variant_name(res.variant), res.unroll, res.vector_width, res.groups_per_unit, (unsigned long long)plan_l.groups,
               row.kernel_us, (double)p.bytes / row.kernel_us / 1e3, strcmp(row.status, "ok") ? row.status : "");
        fflush(stdout);
    }
    fclose(csv);
}

/* ------------------------------------------------------------ the vocabulary run
   Every selected type x op x accumulator (sums and stats once per
   accumulator) at 2^20, 2^24, 2^28 (8-byte types 2^27) against the read
   kernel over the same bytes, and where there is one against CUB:
   argmin/argmax vs DeviceReduce::ArgMin/ArgMax, stats vs Sum + Min + Max
   (three passes), uint8 sums vs CUB summing into uint32 / uint64. */

/* CUB's raw output (64 bytes at out_dev) as the pclreduce result of p->cfg. */
static void cub_as_result(const point *p, const unsigned char *raw, const void *ref, void *got) {
    pclr_type vt = pclr_value_type(p->type);
    size_t ts = pclr_type_size(p->type), ss = pclr_type_size(p->sum_type);
    auto value = [&](const unsigned char *src, void *dst) {
        if (p->type == PCLR_HALF) {
            uint16_t h;
            float f;
            memcpy(&h, src, 2);
            f = bench_half_to_float(h);
            memcpy(dst, &f, 4);
        } else {
            memcpy(dst, src, ts);
        }
    };
    (void)vt;
    switch (p->im->kind) {
    case IMPL_CUB_ARGMIN: case IMPL_CUB_ARGMAX: {
        pclr_arg_result a;
        int64_t idx;
        memset(&a, 0, sizeof a);
        value(raw, &a.value);
        memcpy(&idx, raw + 16, 8);
        a.index = (uint64_t)idx;
        memcpy(got, &a, sizeof a);
        break;
    }
    case IMPL_CUB_SMM: { /* only sum, min, max are CUB's; the rest is the reference's */
        pclr_stats_result st;
        memcpy(&st, ref, sizeof st);
        memset(&st.sum, 0, sizeof st.sum);
        memset(&st.min, 0, sizeof st.min);
        memset(&st.max, 0, sizeof st.max);
        memcpy(&st.sum, raw, ss);
        value(raw + 16, &st.min);
        value(raw + 32, &st.max);
        memcpy(got, &st, sizeof st);
        break;
    }
    default: /* IMPL_CUB_SUM */
        memcpy(got, raw, ss);
        break;
    }
}

/* Blocking and (for pclreduce) async path on slices 0 and K-1 against refs[k]
   (pclr_cpu_reduce_config's results of p->cfg). The async path leaves the
   op's state in device memory: it is copied back and finalized. */
static int vocab_check_point(point *p, unsigned char refs[2][128], char *why, size_t cap) {
    bench *b = p->b;
    int k, slices[2] = {0, p->buffers - 1};
    size_t rsize = pclr_result_size(&p->cfg), ssize = pclr_state_size(&p->cfg);
    if (!rsize || rsize > 128 || ssize > 256) { snprintf(why, cap, "result %zu / state %zu bytes", rsize, ssize); return 0; }
    for (k = 0; k < (p->buffers > 1 ? 2 : 1); ++k) {
        unsigned char got[256], raw[256], state[256];
        memset(got, 0xa5, sizeof got);
        memset(raw, 0xa5, sizeof raw);
        if (blocking(p, slices[k], raw)) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (is_cub_vocab(p->im->kind)) cub_as_result(p, raw, refs[k], got);
        else memcpy(got, raw, rsize);
        if (!bench_check_result(&p->cfg, p->n, got, refs[k], why, cap)) return 0;
        if (p->im->kind != IMPL_PCLR) continue;
        memset(got, 0xa5, sizeof got);
        memset(state, 0xa5, sizeof state);
        if (cuda_fail(p, cudaMemsetAsync(b->out_dev, 0xa5, 256, b->stream), "memset") || launch(p, slices[k]) ||
            cuda_fail(p, cudaMemcpyAsync(b->res_pinned, b->out_dev, ssize, cudaMemcpyDeviceToHost, b->stream), "copy") ||
            cuda_fail(p, cudaStreamSynchronize(b->stream), "sync")) {
            snprintf(why, cap, "%.150s", p->err);
            return 0;
        }
        memcpy(state, b->res_pinned, ssize);
        if (pclr_fail(p, pclr_finalize(&p->cfg, state, got), "pclr_finalize")) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (!bench_check_result(&p->cfg, p->n, got, refs[k], why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (async path)");
            return 0;
        }
    }
    return 1;
}

struct vocab_cfg {
    pclr_config cfg;
    int usable;
    unsigned char ref[2][128]; /* CPU reference on slices 0 and K-1 */
};

/* The references of every configuration on both slices, in parallel (each one single-threaded). */
static void vocab_refs(bench *b, std::vector<vocab_cfg> &cfgs, uint64_t n, size_t bytes, int buffers) {
    std::vector<std::pair<size_t, int>> jobs;
    std::vector<std::thread> threads;
    unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::atomic<size_t> next(0);
    for (size_t i = 0; i < cfgs.size(); ++i)
        for (int k = 0; k < 2; ++k) jobs.push_back(std::make_pair(i, k));
    for (unsigned w = 0; w < nt; ++w)
        threads.emplace_back([&] {
            for (size_t j; (j = next++) < jobs.size();) {
                vocab_cfg &c = cfgs[jobs[j].first];
                int slice = jobs[j].second ? buffers - 1 : 0;
                memset(c.ref[jobs[j].second], 0, 128);
                if (pclr_cpu_reduce_config(&c.cfg, (const char *)b->pool_host + (size_t)slice * bytes, n, c.ref[jobs[j].second]) != PCLR_OK)
                    c.usable = 0;
            }
        });
    for (auto &th : threads) th.join();
}

static void grow_cub_temp_vocab(bench *b, impl_kind k, pclr_type t, pclr_type st, uint64_t n) {
    size_t need = 0;
    CK(cub_vocab(k, t, st, NULL, 0, b->pool_dev, b->out_dev, n, b->stream, &need));
    if (need > b->cub_temp_bytes) {
        if (b->cub_temp) CK(cudaFree(b->cub_temp));
        CK(cudaMalloc(&b->cub_temp, need));
        b->cub_temp_bytes = need;
    }
}

static void run_vocab(bench *b) {
    impl pclr_im, read_im, argmin_im, argmax_im, sum_im, smm_im, cub_im;
    bench_row read_cache[64];
    int have_read[64] = {0};
    FILE *csv = bench_open_out(b->out_dir, b->o.exact ? "exact_cuda.csv" : "vocab_cuda.csv");
    if (!csv) exit(1);
    bench_vocab_csv_header(csv);
    memset(&pclr_im, 0, sizeof pclr_im);
    read_im = argmin_im = argmax_im = sum_im = smm_im = cub_im = pclr_im;
    cub_im.kind = IMPL_CUB; snprintf(cub_im.name, sizeof cub_im.name, "cub-sum-2phase");
    pclr_im.kind = IMPL_PCLR; snprintf(pclr_im.name, sizeof pclr_im.name, "pclreduce");
    read_im.kind = IMPL_READ; snprintf(read_im.name, sizeof read_im.name, "read-limit");
    argmin_im.kind = IMPL_CUB_ARGMIN; snprintf(argmin_im.name, sizeof argmin_im.name, "cub-argmin");
    argmax_im.kind = IMPL_CUB_ARGMAX; snprintf(argmax_im.name, sizeof argmax_im.name, "cub-argmax");
    sum_im.kind = IMPL_CUB_SUM; snprintf(sum_im.name, sizeof sum_im.name, "cub-sum");
    smm_im.kind = IMPL_CUB_SMM; snprintf(smm_im.name, sizeof smm_im.name, "cub-sum+min+max");
    if (!b->pc) { fprintf(stderr, "bench_cuda: the vocabulary run needs the pclreduce CUDA backend\n"); ++b->failures; fclose(csv); return; }
    printf("# vocabulary on %s, %d SMs, L2 %zu MB. Times in us per call (median); GB/s from the kernel time;\n"
           "# %%read = read-kernel time / this time (same bytes); anchor_time/time above 1: faster than the anchor.\n",
           b->device, b->sms, b->l2_bytes >> 20);
    bench_vocab_table_header();
    for (int ti = 1; ti < PCLR_TYPE_COUNT_; ++ti) {
        pclr_type t = (pclr_type)ti;
        uint64_t sizes[40];
        int nsizes;
        std::vector<vocab_cfg> cfgs;
        if (!b->o.types[t]) continue;
        nsizes = vocab_sizes(b, t, sizes, 40);
        for (int oi = 1; oi < PCLR_CUSTOM; ++oi) {
            if (!b->o.ops[oi]) continue;
            for (int ai = 1; ai < PCLR_ACCUMULATE_COUNT_; ++ai) {
                pclr_op op = (pclr_op)oi;
                pclr_accumulate a = (pclr_accumulate)ai;
                vocab_cfg c;
                int sums = op == PCLR_SUM || op == PCLR_STATS;
                if (sums ? !b->o.accs[a] : a != PCLR_NATIVE) continue;
                if (!bench_acc_valid(t, op, a)) continue;
                memset(&c, 0, sizeof c);
                c.cfg.type = t; c.cfg.op = op; c.cfg.backend = PCLR_CUDA; c.cfg.accumulate = a;
                c.usable = prepare(b, &c.cfg, sums ? pclr_accumulate_name(a) : "pclreduce") == PCLR_OK;
                if (!c.usable) ++b->failures;
                cfgs.push_back(c);
            }
        }
        if (cfgs.empty()) continue;
        fill_pool(b, t);
        for (int si = 0; si < nsizes; ++si) {
            uint64_t n = sizes[si];
            size_t bytes = n * pclr_type_size(t);
            int buffers = buffers_for(b, bytes), lg = bench_log2(bytes);
            std::vector<std::pair<std::string, bench_row>> anchors; /* this (type, n)'s CUB rows */
            bench_row native_sum; /* --exact: the exact rows' anchor */
            point p;
            bench_row_init(&native_sum, "cuda", b->device, t, PCLR_SUM, n, "pclreduce-native");
            snprintf(native_sum.status, sizeof native_sum.status, "FAIL: not run");
            vocab_refs(b, cfgs, n, bytes, buffers);
            memset(&p, 0, sizeof p);
            p.b = b; p.type = t; p.n = n; p.bytes = bytes; p.buffers = buffers;
            if (!have_read[lg]) { /* the limit depends only on the bytes read */
                bench_row row;
                p.im = &read_im; p.op = PCLR_SUM; p.err[0] = '\0'; p.next = 0;
                bench_row_init(&row, "cuda", b->device, t, PCLR_SUM, n, read_im.name);
                measure(&p, &row);
                if (strcmp(row.status, "ok") == 0) { read_cache[lg] = row; have_read[lg] = 1; }
                else ++b->failures;
            }
            if (have_read[lg]) {
                bench_row row = read_cache[lg];
                row.type = t; row.op = PCLR_SUM; row.n = n; row.read_kernel_us = row.kernel_us;
                bench_vocab_csv_row(csv, &row);
                bench_vocab_table_row(&row);
            }
            for (size_t ci = 0; ci < cfgs.size(); ++ci) {
                vocab_cfg &c = cfgs[ci];
                pclr_accumulate acc = bench_acc_of(&c.cfg);
                int sums = c.cfg.op == PCLR_SUM || c.cfg.op == PCLR_STATS;
                const impl *anchor = NULL;
                pclr_type anchor_st = PCLR_TYPE_DEFAULT;
                bench_row row, arow;
                char why[300] = "";
                if (c.cfg.op == PCLR_ARGMIN) anchor = &argmin_im;
                else if (c.cfg.op == PCLR_ARGMAX) anchor = &argmax_im;
                else if (c.cfg.op == PCLR_STATS) anchor = &smm_im;
                else if (c.cfg.op == PCLR_SUM && t == PCLR_UINT8) anchor = &sum_im;
                else if (b->o.exact && c.cfg.op == PCLR_SUM && acc == PCLR_NATIVE && (t == PCLR_FLOAT || t == PCLR_DOUBLE)) anchor = &cub_im;
                if (anchor) anchor_st = pclr_sum_type(t, acc == PCLR_COMPENSATED ? PCLR_NATIVE : acc);
                p.cfg = c.cfg; p.op = c.cfg.op; p.sum_type = anchor_st;
                if (anchor) { /* measured once per (type, n, anchor, sum type) */
                    char key[96];
                    size_t ai;
                    snprintf(key, sizeof key, "%s/%s", anchor->name, is_cub_vocab(anchor->kind) && anchor->kind != IMPL_CUB_ARGMIN &&
                             anchor->kind != IMPL_CUB_ARGMAX ? pclr_type_name(anchor_st) : "-");
                    for (ai = 0; ai < anchors.size() && anchors[ai].first != key; ++ai) {}
                    if (ai == anchors.size()) {
                        bench_row_init(&arow, "cuda", b->device, t, c.cfg.op, n, anchor->name);
                        if (anchor->kind == IMPL_CUB_SUM || anchor->kind == IMPL_CUB_SMM) {
                            snprintf(arow.impl, sizeof arow.impl, "%.40s-%.20s", anchor->name, pclr_type_name(anchor_st));
                            arow.sum_type = anchor_st;
                            arow.acc = acc;
                        }
                        arow.read_kernel_us = have_read[lg] ? read_cache[lg].kernel_us : NAN;
                        p.im = anchor; p.err[0] = '\0'; p.next = 0;
                        if (anchor->kind == IMPL_CUB) grow_cub_temp(b, t, PCLR_SUM, n);
                        else grow_cub_temp_vocab(b, anchor->kind, t, anchor_st, n);
                        if (!c.usable) snprintf(arow.status, sizeof arow.status, "FAIL: no CPU reference");
                        else if (!b->o.no_check && !vocab_check_point(&p, c.ref, why, sizeof why))
                            snprintf(arow.status, sizeof arow.status, "FAIL: %.150s", why);
                        else measure(&p, &arow);
                        if (strncmp(arow.status, "ok", 2) != 0) ++b->failures;
                        bench_vocab_csv_row(csv, &arow);
                        bench_vocab_table_row(&arow);
                        anchors.push_back(std::make_pair(std::string(key), arow));
                    }
                    arow = anchors[ai].second;
                }
                bench_row_init(&row, "cuda", b->device, t, c.cfg.op, n, pclr_im.name);
                row.acc = sums ? acc : PCLR_ACCUMULATE_DEFAULT;
                row.sum_type = sums ? pclr_sum_type(t, acc) : PCLR_TYPE_DEFAULT;
                row.read_kernel_us = have_read[lg] ? read_cache[lg].kernel_us : NAN;
                if (anchor && strncmp(arow.status, "ok", 2) == 0) {
                    snprintf(row.anchor, sizeof row.anchor, "%.47s", arow.impl);
                    row.anchor_kernel_us = arow.kernel_us;
                    row.anchor_pipelined_us = arow.pipelined_us;
                }
                if (acc == PCLR_EXACT && c.cfg.op == PCLR_SUM && strncmp(native_sum.status, "ok", 2) == 0) {
                    snprintf(row.anchor, sizeof row.anchor, "%s", native_sum.impl); /* native time / exact time */
                    row.anchor_kernel_us = native_sum.kernel_us;
                    row.anchor_pipelined_us = native_sum.pipelined_us;
                }
                p.im = &pclr_im; p.err[0] = '\0'; p.next = 0;
                if (!c.usable) snprintf(row.status, sizeof row.status, "FAIL: prepare or CPU reference failed");
                else if (!b->o.no_check && !vocab_check_point(&p, c.ref, why, sizeof why)) snprintf(row.status, sizeof row.status, "FAIL: %.150s", why);
                else measure(&p, &row);
                if (strncmp(row.status, "ok", 2) != 0) ++b->failures;
                if (acc == PCLR_NATIVE && c.cfg.op == PCLR_SUM) {
                    native_sum.kernel_us = row.kernel_us;
                    native_sum.pipelined_us = row.pipelined_us;
                    snprintf(native_sum.status, sizeof native_sum.status, "%s", row.status);
                }
                bench_vocab_csv_row(csv, &row);
                bench_vocab_table_row(&row);
            }
        }
    }
    fclose(csv);
}

/* ------------------------------------------------------------ the custom run (issue 33)
   User-defined reductions (cfg.op = PCLR_CUSTOM, cfg.reduce = a description)
   at 2^20, 2^24, 2^28 (--sizes) against the read kernel over the same bytes
   and, where the description equals a built-in op, against that op:
     sum      float sum written by hand          vs PCLR_SUM float (native)
     max      float max written by hand          vs PCLR_MAX float
     argmin   int argmin, ties to the smaller index, vs PCLR_ARGMIN int
     lse      log-sum-exp of floats              (target: of_read >= 0.95 at 2^28)
     lse1     the same with one exp per merge (the README's form; same target)
     first    the first index of a float above 0.999 (a merge that does not commute:
              the ordered path; no target, its of_read is reported)
     fused    sum, sum of squares and max |x| of floats in one pass (same target)
   Targets of the pairs: custom time <= 1.02 x the built-in's at 2^24 and 2^28,
   and the same bits (the custom result's values against the built-in's result:
   with the bench's finite data; the language's max of floats may treat NaN
   unlike the built-in's). A pair is timed built-in, custom, custom, built-in
   (ABBA) and each time is the mean of its two medians, so that a drift of
   clocks between the two cancels. Each result, built-in and custom, blocking
   and async (state copied back and put through pclr_finalize), on the first and
   last slice, is checked against a host computation in double: exact for max,
   max |x| and argmin; sums (and the sum of squares) within 1e-4 relative plus
   the trees' error 2 (log2 n + 1) u sum|term|; log-sum-exp within 1e-4 relative
   plus 4 (log2 n + 1) u. A wrong result is a FAIL line and is not timed.
   The argmin's index field is called k: i is the lift's input (the element's
   index) and the language takes no field of that name. */
struct custom_case {
    const char *name, *desc;
    pclr_type type;
    pclr_op builtin; /* the built-in op the description equals (PCLR_OP_DEFAULT: none) */
    int values;      /* result expressions */
};
static const custom_case custom_cases[] = {
    {"sum", "state s: float = 0; lift s = x; merge s = a.s + b.s; result s", PCLR_FLOAT, PCLR_SUM, 1},
    {"max", "state m: float = -inf; lift m = x; merge m = max(a.m, b.m); result m", PCLR_FLOAT, PCLR_MAX, 1},
    {"lse",
     "state m: float = -inf, s: float = 0; lift m = x, s = 1; merge m = max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m); "
     "result m + log(s)",
     PCLR_FLOAT, PCLR_OP_DEFAULT, 1},
    {"lse1", /* the same with one exp per merge: the larger m's s plus the other's scaled */
     "state m: float = -inf, s: float = 0; lift m = x, s = 1; merge m = max(a.m, b.m), "
     "s = (a.m < b.m ? b.s : a.s) + (a.m < b.m ? a.s : b.s) * exp(-abs(a.m - b.m)); result m + log(s)",
     PCLR_FLOAT, PCLR_OP_DEFAULT, 1},
    {"first", /* a merge that does not commute: the ordered path (stride local, in-order folds) */
     "state k: ulong = ULONG_MAX; lift k = x > 0.999 ? i : ULONG_MAX; merge k = a.k != ULONG_MAX ? a.k : b.k; result k",
     PCLR_FLOAT, PCLR_OP_DEFAULT, 1},
    {"fused",
     "state s: float = 0, q: float = 0, m: float = 0; lift s = x, q = x * x, m = abs(x); merge s = a.s + b.s, q = a.q + b.q, "
     "m = max(a.m, b.m); result s, q, m",
     PCLR_FLOAT, PCLR_OP_DEFAULT, 3},
    {"argmin",
     "state v: int = INT_MAX, k: ulong = ULONG_MAX; lift v = x, k = i; merge v = min(a.v, b.v), "
     "k = a.v < b.v ? a.k : b.v < a.v ? b.k : min(a.k, b.k); result v, k",
     PCLR_INT, PCLR_ARGMIN, 2},
};
enum { CUSTOM_CASES = (int)(sizeof custom_cases / sizeof custom_cases[0]) };

/* The host's answers for one slice, in double (floats) or exactly (int). */
struct custom_ref {
    double sum, sum_abs, sumsq, lse;
    uint64_t first; /* the first index of an element above 0.999 (UINT64_MAX: none) */
    float max, maxabs;
    int32_t min;
    uint64_t min_index;
};

/* One pass over slice `slice` of n elements of t, in parallel over chunks. */
static custom_ref custom_host_ref(bench *b, pclr_type t, int slice, uint64_t n, size_t bytes) {
    const uint64_t chunk = (uint64_t)1 << 20, chunks = (n + chunk - 1) / chunk;
    const char *base = (const char *)b->pool_host + (size_t)slice * bytes;
    unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<custom_ref> part(chunks);
    std::vector<double> part_m(chunks); /* each chunk's max (the lse's shift) */
    std::vector<std::thread> threads;
    std::atomic<uint64_t> next(0);
    custom_ref r;
    for (unsigned w = 0; w < nt; ++w)
        threads.emplace_back([&] {
            for (uint64_t c; (c = next++) < chunks;) {
                uint64_t lo = c * chunk, hi = std::min(n, lo + chunk), j;
                custom_ref &q = part[c];
                memset(&q, 0, sizeof q);
                if (t == PCLR_INT) {
                    const int32_t *x = (const int32_t *)base;
                    q.min = INT32_MAX;
                    q.min_index = UINT64_MAX;
                    for (j = lo; j < hi; ++j)
                        if (x[j] < q.min || q.min_index == UINT64_MAX) { q.min = x[j]; q.min_index = j; }
                } else {
                    const float *x = (const float *)base;
                    double m = -INFINITY, s = 0;
                    q.max = -INFINITY;
                    q.first = UINT64_MAX;
                    for (j = lo; j < hi && q.first == UINT64_MAX; ++j)
                        if (x[j] > 0.999f) q.first = j;
                    for (j = lo; j < hi; ++j) {
                        const double v = x[j];
                        q.sum += v;
                        q.sum_abs += fabs(v);
                        q.sumsq += v * v;
                        q.max = std::max(q.max, x[j]);
                        q.maxabs = std::max(q.maxabs, fabsf(x[j]));
                        m = std::max(m, v);
                    }
                    for (j = lo; j < hi; ++j) s += exp((double)x[j] - m);
                    part_m[c] = m;
                    q.lse = s; /* (the chunk's sum of exp(x - m) until combined) */
                }
            }
        });
    for (auto &th : threads) th.join();
    memset(&r, 0, sizeof r);
    r.min = INT32_MAX;
    r.min_index = UINT64_MAX;
    r.max = -INFINITY;
    r.first = UINT64_MAX;
    {
        double m = -INFINITY, s = 0;
        for (uint64_t c = 0; c < chunks; ++c) {
            const custom_ref &q = part[c];
            if (t == PCLR_INT) {
                if (q.min < r.min || (q.min == r.min && q.min_index < r.min_index)) { r.min = q.min; r.min_index = q.min_index; }
                continue;
            }
            r.sum += q.sum; r.sum_abs += q.sum_abs; r.sumsq += q.sumsq;
            r.max = std::max(r.max, q.max); r.maxabs = std::max(r.maxabs, q.maxabs);
            r.first = std::min(r.first, q.first);
            m = std::max(m, part_m[c]);
        }
        for (uint64_t c = 0; t != PCLR_INT && c < chunks; ++c) s += part[c].lse * exp(part_m[c] - m);
        r.lse = m + log(s);
    }
    return r;
}

/* A built-in op's result (pclr_reduce's) as a custom result's values, for the comparisons. */
static void builtin_as_custom(pclr_op op, pclr_type t, const unsigned char *raw, pclr_custom_result *out) {
    memset(out, 0, sizeof *out);
    out->type[0] = t;
    out->values = 1;
    if (op == PCLR_ARGMIN || op == PCLR_ARGMAX) {
        pclr_arg_result a;
        memcpy(&a, raw, sizeof a);
        memcpy(&out->value[0], &a.value, sizeof a.value);
        out->value[1].u64 = a.index;
        out->type[1] = PCLR_UINT64;
        out->values = 2;
    } else {
        memcpy(&out->value[0], raw, pclr_type_size(t));
    }
}

/* The values of a custom result (or of a built-in's, through builtin_as_custom) against the host's. */
static int custom_check(const custom_case &cc, const pclr_custom_result &got, const custom_ref &ref, uint64_t n, char *why, size_t cap) {
    const double u = 5.960464477539063e-08, lg = (double)bench_log2(n ? n : 1) + 1.0;
    int ok = 1, k;
    static const pclr_type want[3][3] = {{PCLR_FLOAT}, {PCLR_FLOAT, PCLR_FLOAT, PCLR_FLOAT}, {PCLR_INT, PCLR_UINT64}};
    const pclr_type *w = cc.type == PCLR_INT ? want[2] : cc.values == 3 ? want[1] : want[0];
    why[0] = '\0';
    if (got.values != cc.values) { snprintf(why, cap, "%d results, not %d", got.values, cc.values); return 0; }
    if (!strcmp(cc.name, "first")) {
        if (got.type[0] != PCLR_UINT64) { snprintf(why, cap, "first: result type %d, not ulong", (int)got.type[0]); return 0; }
        return bench_check_scalar(PCLR_UINT64, &got.value[0].u64, &ref.first, 0, "first", why, cap);
    }
    for (k = 0; k < cc.values; ++k)
        if (got.type[k] != w[k]) {
            snprintf(why, cap, "result %d is %s, not %s", k, pclr_type_name(got.type[k]), pclr_type_name(w[k]));
            return 0;
        }
    if (cc.type == PCLR_INT) {
        ok &= bench_check_scalar(PCLR_INT, &got.value[0].i32, &ref.min, 0, "min", why, cap);
        ok &= bench_check_scalar(PCLR_UINT64, &got.value[1].u64, &ref.min_index, 0, "index", why, cap);
        return ok;
    }
    if (!strcmp(cc.name, "max")) return bench_check_scalar(PCLR_FLOAT, &got.value[0].f32, &ref.max, 0, "max", why, cap);
    if (!strcmp(cc.name, "lse") || !strcmp(cc.name, "lse1")) {
        const float r = (float)ref.lse;
        return bench_check_scalar_abs(PCLR_FLOAT, &got.value[0].f32, &r, 1e-4, 4 * lg * u, "lse", why, cap);
    }
    {
        const float s = (float)ref.sum;
        ok &= bench_check_scalar_abs(PCLR_FLOAT, &got.value[0].f32, &s, 1e-4, 2 * lg * u * ref.sum_abs, "sum", why, cap);
    }
    if (cc.values == 3) {
        const float q = (float)ref.sumsq;
        ok &= bench_check_scalar_abs(PCLR_FLOAT, &got.value[1].f32, &q, 1e-4, 2 * lg * u * ref.sumsq, "sum of squares", why, cap);
        ok &= bench_check_scalar(PCLR_FLOAT, &got.value[2].f32, &ref.maxabs, 0, "max |x|", why, cap);
    }
    return ok;
}

/* Whether two results' values are the same bits. */
static int custom_same_bits(const pclr_custom_result &a, const pclr_custom_result &b) {
    int k;
    if (a.values != b.values) return 0;
    for (k = 0; k < a.values; ++k)
        if (memcmp(&a.value[k], &b.value[k], pclr_type_size(a.type[k])) != 0) return 0;
    return 1;
}

/* Blocking and async path of p (pclreduce, custom or built-in) on slices 0 and K-1 against refs[k];
   got[k]: the blocking results (for the bits' comparison). */
static int custom_check_point(point *p, const custom_case &cc, const custom_ref refs[2], pclr_custom_result got[2], char *why, size_t cap) {
    bench *b = p->b;
    int k, slices[2] = {0, p->buffers - 1};
    const int custom = p->cfg.op == PCLR_CUSTOM;
    size_t rsize = pclr_result_size(&p->cfg), ssize = pclr_state_size(&p->cfg);
    if (!rsize || rsize > 256 || !ssize || ssize > 256) { snprintf(why, cap, "result %zu / state %zu bytes", rsize, ssize); return 0; }
    const int kmax = p->buffers > 1 ? 2 : 1;
    for (k = 0; k < kmax; ++k) {
        unsigned char raw[256], state[256];
        pclr_custom_result r;
        const int s = slices[k];
        memset(raw, 0xa5, sizeof raw);
        if (blocking(p, s, raw)) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (custom) memcpy(&got[k], raw, sizeof got[k]);
        else builtin_as_custom(p->cfg.op, p->type, raw, &got[k]);
        if (!custom_check(cc, got[k], refs[k], p->n, why, cap)) return 0;
        memset(raw, 0xa5, sizeof raw);
        memset(state, 0xa5, sizeof state);
        if (cuda_fail(p, cudaMemsetAsync(b->out_dev, 0xa5, 256, b->stream), "memset") || launch(p, s) ||
            cuda_fail(p, cudaMemcpyAsync(b->res_pinned, b->out_dev, ssize, cudaMemcpyDeviceToHost, b->stream), "copy") ||
            cuda_fail(p, cudaStreamSynchronize(b->stream), "sync")) {
            snprintf(why, cap, "%.150s", p->err);
            return 0;
        }
        memcpy(state, b->res_pinned, ssize);
        if (pclr_fail(p, pclr_finalize(&p->cfg, state, raw), "pclr_finalize")) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (custom) memcpy(&r, raw, sizeof r);
        else builtin_as_custom(p->cfg.op, p->type, raw, &r);
        if (!custom_check(cc, r, refs[k], p->n, why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (async path)");
            return 0;
        }
    }
    if (kmax == 1) got[1] = got[0];
    return 1;
}

/* custom_cuda.csv: the vocabulary CSV's columns (bench_vocab_csv_*), then desc (quoted), builtin_us
   (the equal built-in's kernel time; empty without one) and same_bits (yes / no / -). */
static void custom_csv_line(FILE *f, const bench_row *r, const char *desc, double builtin_us, const char *same_bits) {
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    if (!m) return;
    if (r) bench_vocab_csv_row(m, r);
    else bench_vocab_csv_header(m);
    fclose(m);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (!r) fprintf(f, "%s,desc,builtin_us,same_bits\n", line);
    else if (builtin_us == builtin_us) fprintf(f, "%s,\"%s\",%.3f,%s\n", line, desc, builtin_us, same_bits);
    else fprintf(f, "%s,\"%s\",,%s\n", line, desc, same_bits);
    fflush(f);
    free(line);
}

static void custom_table_header(void) {
    printf("data: %s\n", bench_data_description());
    printf("%-8s %-6s %-5s %-18s %10s %10s %8s %7s %10s %7s %5s\n", "case", "type", "n", "impl", "kernel_us", "pipe_us", "GB/s", "of_read",
           "builtin_us", "ratio", "bits");
    fflush(stdout);
}

/* ratio = this kernel time / the built-in's (the target: <= 1.02). */
static void custom_table_row(const char *name, const bench_row *r, double builtin_us, const char *same_bits) {
    const uint64_t bytes = r->n * pclr_type_size(r->type);
    if (strncmp(r->status, "ok", 2) != 0) {
        printf("FAIL %-8s %-6s 2^%-3d %-18s %s\n", name, pclr_type_name(r->type), bench_log2(r->n), r->impl, r->status);
    } else {
        printf("%-8s %-6s 2^%-3d %-18s %10.2f %10.2f %8.1f %7.3f", name, pclr_type_name(r->type), bench_log2(r->n), r->impl, r->kernel_us,
               r->pipelined_us, bench__gbps(bytes, r->kernel_us), r->read_kernel_us / r->kernel_us);
        if (builtin_us == builtin_us) printf(" %10.2f %7.3f %5s", builtin_us, r->kernel_us / builtin_us, same_bits);
        printf("\n");
    }
    fflush(stdout);
}

/* The mean of two measurements of one point (ABBA): times averaged, repetitions added. */
static void custom_mean(bench_row *r, const bench_row *s) {
    if (strncmp(r->status, "ok", 2) != 0) return;
    if (strncmp(s->status, "ok", 2) != 0) { snprintf(r->status, sizeof r->status, "%s", s->status); return; }
    r->kernel_us = 0.5 * (r->kernel_us + s->kernel_us);
    r->pipelined_us = 0.5 * (r->pipelined_us + s->pipelined_us);
    r->blocking_us = 0.5 * (r->blocking_us + s->blocking_us);
    r->kernel_reps += s->kernel_reps;
    r->pipelined_reps += s->pipelined_reps;
    r->blocking_reps += s->blocking_reps;
}

struct custom_target {
    char line[200];
    int met;
};

static void run_custom(bench *b) {
    impl pclr_im, read_im;
    bench_row read_cache[64];
    int have_read[64] = {0};
    std::vector<custom_target> targets;
    FILE *csv = bench_open_out(b->out_dir, "custom_cuda.csv");
    if (!csv) exit(1);
    custom_csv_line(csv, NULL, NULL, NAN, NULL);
    memset(&pclr_im, 0, sizeof pclr_im);
    read_im = pclr_im;
    pclr_im.kind = IMPL_PCLR; snprintf(pclr_im.name, sizeof pclr_im.name, "pclreduce");
    read_im.kind = IMPL_READ; snprintf(read_im.name, sizeof read_im.name, "read-limit");
    if (!b->pc) { fprintf(stderr, "bench_cuda: the custom run needs the pclreduce CUDA backend\n"); ++b->failures; fclose(csv); return; }
    printf("# custom reductions (op custom) on %s, %d SMs, L2 %zu MB. Times in us per call (median; a custom/built-in pair\n"
           "# timed built-in, custom, custom, built-in and averaged); of_read = read-kernel time / this time (same bytes);\n"
           "# ratio = this time / the equal built-in's time; bits: the custom result's values are the built-in's bits.\n",
           b->device, b->sms, b->l2_bytes >> 20);
    for (int c = 0; c < CUSTOM_CASES; ++c)
        if (b->cases >> c & 1) printf("# %-6s %s\n", custom_cases[c].name, custom_cases[c].desc);
    custom_table_header();
    for (int ti = 0; ti < 2; ++ti) {
        const pclr_type t = ti ? PCLR_INT : PCLR_FLOAT;
        pclr_config ccfg[CUSTOM_CASES], bcfg[CUSTOM_CASES];
        char cwhy[CUSTOM_CASES][128];
        int cok[CUSTOM_CASES], bok[CUSTOM_CASES], any = 0;
        for (int c = 0; c < CUSTOM_CASES; ++c) {
            const custom_case &cc = custom_cases[c];
            char name[64];
            cok[c] = bok[c] = 0;
            if (cc.type != t || !(b->cases >> c & 1)) continue;
            any = 1;
            memset(&ccfg[c], 0, sizeof ccfg[c]);
            ccfg[c].type = t; ccfg[c].op = PCLR_CUSTOM; ccfg[c].reduce = cc.desc; ccfg[c].backend = PCLR_CUDA;
            snprintf(name, sizeof name, "custom-%s", cc.name);
            cok[c] = prepare(b, &ccfg[c], name) == PCLR_OK;
            snprintf(cwhy[c], sizeof cwhy[c], "%.120s", cok[c] ? "" : pclr_cuda_last_error(b->pc));
            if (!cc.builtin) continue;
            memset(&bcfg[c], 0, sizeof bcfg[c]);
            bcfg[c].type = t; bcfg[c].op = cc.builtin; bcfg[c].backend = PCLR_CUDA;
            if (cc.builtin == PCLR_SUM) bcfg[c].accumulate = PCLR_NATIVE;
            bok[c] = prepare(b, &bcfg[c], "pclreduce") == PCLR_OK;
        }
        if (!any) continue;
        fill_pool(b, t);
        for (int si = 0; si < b->nsizes; ++si) {
            const uint64_t n = 1ull << b->sizes_log[si];
            const size_t bytes = n * pclr_type_size(t);
            const int buffers = buffers_for(b, bytes), lg = bench_log2(bytes);
            custom_ref refs[2];
            point p;
            if (bytes > b->pool_bytes) { printf("# skip 2^%d: larger than the pool\n", b->sizes_log[si]); continue; }
            refs[0] = custom_host_ref(b, t, 0, n, bytes);
            refs[1] = buffers > 1 ? custom_host_ref(b, t, buffers - 1, n, bytes) : refs[0];
            memset(&p, 0, sizeof p);
            p.b = b; p.type = t; p.n = n; p.bytes = bytes; p.buffers = buffers;
            if (!have_read[lg]) { /* the limit depends only on the bytes read */
                bench_row row;
                p.im = &read_im; p.op = PCLR_SUM; p.err[0] = '\0'; p.next = 0;
                bench_row_init(&row, "cuda", b->device, t, PCLR_SUM, n, read_im.name);
                measure(&p, &row);
                if (strcmp(row.status, "ok") == 0) { read_cache[lg] = row; have_read[lg] = 1; }
                else { ++b->failures; custom_table_row("read", &row, NAN, "-"); }
            }
            if (have_read[lg]) {
                bench_row row = read_cache[lg];
                row.type = t; row.op = PCLR_SUM; row.n = n; row.read_kernel_us = row.kernel_us;
                custom_csv_line(csv, &row, "-", NAN, "-");
                custom_table_row("read", &row, NAN, "-");
            }
            for (int c = 0; c < CUSTOM_CASES; ++c) {
                const custom_case &cc = custom_cases[c];
                bench_row crow, brow, again;
                pclr_custom_result cgot[2], bgot[2];
                char why[300] = "", cname[64];
                const char *bits = "-";
                int cchecked = 0, bchecked = 0;
                if (cc.type != t || !(b->cases >> c & 1)) continue;
                snprintf(cname, sizeof cname, "custom-%s", cc.name);
                bench_row_init(&crow, "cuda", b->device, t, PCLR_CUSTOM, n, cname);
                crow.read_kernel_us = have_read[lg] ? read_cache[lg].kernel_us : NAN;
                p.im = &pclr_im;
                /* the checks first: neither is timed when wrong */
                if (!cok[c]) {
                    snprintf(crow.status, sizeof crow.status, "FAIL: prepare failed: %s", cwhy[c]);
                } else {
                    p.cfg = ccfg[c]; p.op = PCLR_CUSTOM; p.err[0] = '\0'; p.next = 0;
                    if (!b->o.no_check && !custom_check_point(&p, cc, refs, cgot, why, sizeof why))
                        snprintf(crow.status, sizeof crow.status, "FAIL: %.150s", why);
                    else cchecked = !b->o.no_check;
                }
                if (cc.builtin) {
                    bench_row_init(&brow, "cuda", b->device, t, cc.builtin, n, pclr_im.name);
                    brow.read_kernel_us = crow.read_kernel_us;
                    if (cc.builtin == PCLR_SUM) { brow.acc = PCLR_NATIVE; brow.sum_type = pclr_sum_type(t, PCLR_NATIVE); }
                    if (!bok[c]) {
                        snprintf(brow.status, sizeof brow.status, "FAIL: prepare failed");
                    } else {
                        p.cfg = bcfg[c]; p.op = cc.builtin; p.err[0] = '\0'; p.next = 0;
                        if (!b->o.no_check && !custom_check_point(&p, cc, refs, bgot, why, sizeof why))
                            snprintf(brow.status, sizeof brow.status, "FAIL: %.150s", why);
                        else bchecked = !b->o.no_check;
                    }
                    if (cchecked && bchecked)
                        bits = custom_same_bits(cgot[0], bgot[0]) && (buffers < 2 || custom_same_bits(cgot[1], bgot[1])) ? "yes" : "no";
                }
                /* the timings: built-in, custom, custom, built-in */
                if (cc.builtin && strncmp(brow.status, "ok", 2) == 0) {
                    p.cfg = bcfg[c]; p.op = cc.builtin; p.err[0] = '\0'; p.next = 0;
                    measure(&p, &brow);
                }
                if (strncmp(crow.status, "ok", 2) == 0) {
                    p.cfg = ccfg[c]; p.op = PCLR_CUSTOM; p.err[0] = '\0'; p.next = 0;
                    measure(&p, &crow);
                    if (cc.builtin && strncmp(crow.status, "ok", 2) == 0) {
                        again = crow;
                        p.err[0] = '\0'; p.next = 0;
                        measure(&p, &again);
                        custom_mean(&crow, &again);
                    }
                }
                if (cc.builtin && strncmp(brow.status, "ok", 2) == 0) {
                    again = brow;
                    p.cfg = bcfg[c]; p.op = cc.builtin; p.err[0] = '\0'; p.next = 0;
                    measure(&p, &again);
                    custom_mean(&brow, &again);
                }
                if (cc.builtin) {
                    const double bus = strncmp(brow.status, "ok", 2) == 0 ? brow.kernel_us : NAN;
                    if (strncmp(brow.status, "ok", 2) != 0) ++b->failures;
                    custom_csv_line(csv, &brow, "-", NAN, "-");
                    custom_table_row(cc.name, &brow, NAN, "-");
                    if (bus == bus) {
                        snprintf(crow.anchor, sizeof crow.anchor, "pclreduce-%s", pclr_op_name(cc.builtin));
                        crow.anchor_kernel_us = brow.kernel_us;
                        crow.anchor_pipelined_us = brow.pipelined_us;
                    }
                    if (strncmp(crow.status, "ok", 2) != 0) ++b->failures;
                    custom_csv_line(csv, &crow, cc.desc, bus, bits);
                    custom_table_row(cc.name, &crow, bus, bits);
                    if (b->sizes_log[si] >= 24) {
                        custom_target tg;
                        const double ratio = crow.kernel_us / bus;
                        tg.met = ratio <= 1.02 && !strcmp(bits, "yes");
                        if (ratio != ratio) snprintf(tg.line, sizeof tg.line, "%-6s 2^%d: not measured (a FAIL above): MISSED", cc.name, b->sizes_log[si]);
                        else snprintf(tg.line, sizeof tg.line, "%-6s 2^%d: custom %.2f us, built-in %.2f us, ratio %.3f (<= 1.02), same bits %s: %s",
                                 cc.name, b->sizes_log[si], crow.kernel_us, bus, ratio, bits, tg.met ? "met" : "MISSED");
                        targets.push_back(tg);
                    }
                } else {
                    if (strncmp(crow.status, "ok", 2) != 0) ++b->failures;
                    custom_csv_line(csv, &crow, cc.desc, NAN, "-");
                    custom_table_row(cc.name, &crow, NAN, "-");
                    if (b->sizes_log[si] == 28 && strcmp(cc.name, "first") != 0) { /* (first: no target) */
                        custom_target tg;
                        const double of = crow.read_kernel_us / crow.kernel_us;
                        tg.met = of >= 0.95;
                        if (of != of) snprintf(tg.line, sizeof tg.line, "%-6s 2^%d: not measured (a FAIL above): MISSED", cc.name, b->sizes_log[si]);
                        else snprintf(tg.line, sizeof tg.line, "%-6s 2^%d: of_read %.3f (>= 0.95): %s", cc.name, b->sizes_log[si], of,
                                 tg.met ? "met" : "MISSED");
                        targets.push_back(tg);
                    }
                }
            }
        }
    }
    fclose(csv);
    if (!targets.empty()) {
        int met = 0;
        printf("# targets (issue 33)\n");
        for (auto &tg : targets) { printf("target %s\n", tg.line); met += tg.met; }
        printf("# %d of %zu targets met\n", met, targets.size());
    }
}

/* --custom, --cases and --sizes (this program's; the rest goes to bench_parse_args): 0, or 2 after a message. */
static int parse_cuda_args(int argc, char **argv, bench *b, std::vector<char *> &rest) {
    b->cases = (1u << CUSTOM_CASES) - 1;
    rest.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--custom")) { b->custom = 1; continue; }
        if (strcmp(a, "--sizes") && strcmp(a, "--cases")) { rest.push_back(argv[i]); continue; }
        if (!val || strlen(val) >= 256) { fprintf(stderr, "bench_cuda: %s needs a list\n", a); return 2; }
        char buf[256], *tok, *save = NULL;
        snprintf(buf, sizeof buf, "%s", val);
        ++i;
        if (!strcmp(a, "--cases")) {
            b->cases = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int c;
                for (c = 0; c < CUSTOM_CASES && strcmp(tok, custom_cases[c].name); ++c) {}
                if (c == CUSTOM_CASES) { fprintf(stderr, "bench_cuda: --cases: '%s' is not sum, max, lse, fused or argmin\n", tok); return 2; }
                b->cases |= 1u << c;
            }
            continue;
        }
        b->nsizes = 0;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            long long v = 0;
            if (!strncmp(tok, "2^", 2)) tok += 2;
            if (pclr_args_int(tok, 0, 34, &v) || b->nsizes == 16) {
                fprintf(stderr, "bench_cuda: --sizes takes up to 16 powers of two as their logs, 0..34 (20,24,28 or 2^20,2^24)\n");
                return 2;
            }
            b->sizes_log[b->nsizes++] = (int)v;
        }
    }
    if (!b->nsizes && b->custom) { b->sizes_log[0] = 20; b->sizes_log[1] = 24; b->sizes_log[2] = 28; b->nsizes = 3; }
    return 0;
}

int main(int argc, char **argv) {
    static bench b;
    cudaDeviceProp prop;
    char slug[128];
    pclr_cuda_desc desc;
    pclr_result r;
    std::vector<char *> rest;
    int dev, rc = parse_cuda_args(argc, argv, &b, rest);
    if (rc) return rc;
    rc = bench_parse_args((int)rest.size(), rest.data(), &b.o, "bench_cuda",
                          "  --device N          CUDA device ordinal (default 0)\n"
                          "  --custom            the custom run (issue 33): user-defined reductions (op custom) vs the\n"
                          "                      read kernel and, where a description equals a built-in op (float sum,\n"
                          "                      float max, int argmin), vs that op: time ratio and same bits; also\n"
                          "                      log-sum-exp and a fused sum / sum of squares / max |x| of floats;\n"
                          "                      kernel + pipelined timings, 20 ms each unless --timings/--target-ms;\n"
                          "                      custom_cuda.csv (the vocab columns + desc, builtin_us, same_bits)\n"
                          "  --cases LIST        with --custom: sum,max,lse,lse1,first,fused,argmin (default all)\n"
                          "  --sizes LIST        n as powers of two, 20,24,28 or 2^20,2^24 (--custom's default 20,24,28;\n"
                          "                      also replaces --vocab's sizes)\n");
    if (rc) return rc;
    if (b.custom) { /* the vocabulary run's timings */
        if (b.o.vocab || b.o.study) { fprintf(stderr, "bench_cuda: --custom is a run of its own (not with --vocab, --exact or --study)\n"); return 2; }
        if (!b.o.timings_set) b.o.do_blocking = 0;
        if (!b.o.target_set && !b.o.quick) b.o.target_s = 0.020;
    }
    dev = b.o.device >= 0 ? b.o.device : 0;
    CK(cudaSetDevice(dev));
    CK(cudaFree(0)); /* creates the primary context that pclreduce then shares */
    CK(cudaGetDeviceProperties(&prop, dev));
    snprintf(b.device, sizeof b.device, "%s", prop.name);
    for (char *c = b.device; *c; ++c) if (*c == ',') *c = ' '; /* CSV-safe */
    b.sms = prop.multiProcessorCount;
    b.l2_bytes = (size_t)prop.l2CacheSize;
    bench_gpu_slug(prop.name, slug, sizeof slug);
    snprintf(b.out_dir, sizeof b.out_dir, "%s", b.o.out_dir ? b.o.out_dir : "");
    if (!b.o.out_dir) snprintf(b.out_dir, sizeof b.out_dir, "bench/results/%s-cuda", slug);
    if (b.o.print_out) { printf("%s\n", b.out_dir); return 0; }

    memset(&desc, 0, sizeof desc);
    desc.device_number = dev + 1; /* the device cudaSetDevice made current above */
    if ((r = pclr_cuda_create(&desc, &b.pc)) != PCLR_OK) {
        /* a failed create still hands back a context that holds the reason */
        fprintf(stderr, "bench_cuda: pclr_cuda_create failed: %s (%s); measuring CUB and the read limit only\n",
                pclr_result_string(r), b.pc ? pclr_cuda_last_error(b.pc) : "");
        pclr_cuda_destroy(b.pc);
        b.pc = NULL;
        ++b.failures;
    } else {
        const pclr_cuda_features *ft = pclr_cuda_get_features(b.pc);
        printf("# pclreduce %s on %s (cc %d.%d, %u SMs), driver %d, NVRTC %d.%d\n", PCLREDUCE_VERSION, ft->device_name, ft->cc_major,
               ft->cc_minor, ft->compute_units, ft->driver_version, ft->nvrtc_major, ft->nvrtc_minor);
    }
    CK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&b.e0));
    CK(cudaEventCreate(&b.e1));
    /* One pool: the largest input (1 GiB by default), at least the rotation span. */
    {
        size_t largest = 0;
        for (int ti = 1; ti < PCLR_TYPE_COUNT_; ++ti) {
            uint64_t sizes[40];
            int k = b.o.vocab ? vocab_sizes(&b, (pclr_type)ti, sizes, 40) : bench_sizes(&b.o, (pclr_type)ti, sizes, 40);
            if (b.o.types[ti] && k > 0) largest = std::max<size_t>(largest, sizes[k - 1] * pclr_type_size((pclr_type)ti));
        }
        if (b.custom) { /* float and int: 4 bytes, up to 2^max_bytes_log */
            largest = 0;
            for (int i = 0; i < b.nsizes; ++i)
                if (((size_t)4 << b.sizes_log[i]) <= ((size_t)1 << b.o.max_bytes_log)) largest = std::max(largest, (size_t)4 << b.sizes_log[i]);
        }
        if (b.o.study) largest = (size_t)8 << b.o.study_log;
        b.pool_bytes = std::max<size_t>(rotation_span(&b), largest);
    }
    CK(cudaMalloc(&b.pool_dev, b.pool_bytes));
    CK(cudaMalloc(&b.out_dev, 256));
    CK(cudaMalloc(&b.read_out, 16));
    CK(cudaHostAlloc(&b.res_pinned, 256, cudaHostAllocDefault));
    b.pool_host = malloc(b.pool_bytes);
    if (!b.pool_host) { fprintf(stderr, "bench_cuda: out of host memory\n"); return 1; }
    if (bench_mkdirs(b.out_dir) != 0) { fprintf(stderr, "bench_cuda: cannot create %s\n", b.out_dir); return 1; }
    write_device_file(&b);

    if (b.custom) run_custom(&b);
    else if (b.o.study) run_study(&b);
    else if (b.o.vocab) run_vocab(&b);
    else run_sweep(&b);

    if (b.pc) pclr_cuda_destroy(b.pc);
    free(b.pool_host);
    cudaFree(b.pool_dev);
    cudaFree(b.out_dev);
    cudaFree(b.read_out);
    cudaFree(b.cub_temp);
    cudaFreeHost(b.res_pinned);
    printf("# results in %s (%d failure%s)\n", b.out_dir, b.failures, b.failures == 1 ? "" : "s");
    return b.failures ? 1 : 0;
}
