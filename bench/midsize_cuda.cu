/* Mid-size study (float sum, H100): where the time of one pipelined reduce
   goes between 2^10 and 2^22 elements, and what each way of finishing costs.
   Every variant is timed in the same process on the same rotated buffers as
   the read kernel (the floor), per call, over batches of back-to-back calls:
     read         the read-only kernel (bench/read_limit.cuh), plain launch
     read-pdl     the same kernel launched with programmatic dependent launch
     pclr         pclreduce's async reduce, defaults (and knob variants)
     pclr-graph   the same calls captured once into a CUDA graph and replayed
     lg-*         hand-written single-pass kernels with the last-group finish:
                  fence + relaxed ticket (pclreduce's) or one acq_rel ticket,
                  each plain and with programmatic dependent launch
     cl1-*        one thread-block cluster, partials through distributed
                  shared memory (no global atomics, no fences)
     clN-*        many clusters: DSMEM inside a cluster, last-group ticket
                  between the clusters' partials
     cub          cub::DeviceReduce::Sum
   Each hand kernel's result is checked against the exact sum (the data are
   small integers, so every float sum here is exact).
   build: nvcc -O3 -std=c++17 -arch=sm_90 -I. -o build/midsize_cuda bench/midsize_cuda.cu -lcuda -ldl */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <algorithm>
#include <chrono>
#include <vector>
#include "read_limit.cuh"

namespace cg = cooperative_groups;

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}
template <int B> __device__ __forceinline__ float block_sum(float v, float *lds) {
    v = warp_sum(v);
    __syncthreads();
    if (threadIdx.x % 32 == 0) lds[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) v = warp_sum(threadIdx.x < B / 32 ? lds[threadIdx.x] : 0.f);
    return v;
}
template <int U> __device__ __forceinline__ float load_sum(const float4 *in, unsigned long long nvec, unsigned long long i,
                                                          unsigned long long stride) {
    float acc = 0.f;
    for (; i + (U - 1) * stride < nvec; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = __ldg(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; ++k) acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < nvec; i += stride) {
        float4 v = __ldg(in + i);
        acc += (v.x + v.y) + (v.z + v.w);
    }
    return acc;
}

__global__ void read_pdl_kernel(const float4 *__restrict__ in4, unsigned long long nvec, float *outf, float *, unsigned *) {
    pdl_wait();
    pdl_trigger();
    read_limit_body((const uint4 *)in4, nvec, (unsigned *)outf); /* the read limit's loads, after the wait */
}

/* MODE bit 0: acq_rel ticket (else fence + relaxed atomicAdd); bit 1: PDL wait/trigger at the start;
   bit 2: PDL wait only before the partial (loads overlap the previous kernel: unsafe in general). */
template <int B, int U, int MODE>
__global__ void __launch_bounds__(B) lg_kernel(const float4 *__restrict__ in, unsigned long long nvec, float *out, float *partials,
                                               unsigned *counter) {
    __shared__ float lds[32];
    __shared__ unsigned is_last;
    if (MODE & 2) { pdl_wait(); pdl_trigger(); }
    const unsigned long long stride = (unsigned long long)gridDim.x * B;
    float acc = load_sum<U>(in, nvec, (unsigned long long)blockIdx.x * B + threadIdx.x, stride);
    acc = block_sum<B>(acc, lds);
    if (MODE & 4) { pdl_wait(); pdl_trigger(); }
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = acc;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        unsigned t;
        if (MODE & 1) {
            asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], 1;" : "=r"(t) : "l"(counter) : "memory");
        } else {
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            t = atomicAdd(counter, 1u);
            if (t == gridDim.x - 1) asm volatile("fence.acq_rel.gpu;" ::: "memory");
        }
        is_last = t == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    const volatile float *vp = partials;
    acc = 0.f;
    for (unsigned j = threadIdx.x; j < gridDim.x; j += B) acc += vp[j];
    acc = block_sum<B>(acc, lds);
    if (threadIdx.x == 0) {
        *out = acc;
        *counter = 0;
    }
}

/* The polling finish: every block takes its ticket at the start, while its loads are in flight;
   the block with the last ticket (all others have started, so none waits on it) folds. Each
   block publishes its sum with its flag in one 64-bit store (MODE bit 4: the sum, then a
   separate flag with st.release, as states wider than 32 bits would need); the folder's threads
   poll one slot each until the flag is there, reset it, and fold in block order. The chain after
   the last block's sum is one store and one poll, against store, acq_rel ticket, barrier and loads.
   MODE bit 1: PDL; bit 3 marks these kernels in hands[] (f_hand passes them the zeroed slots). */
template <int B, int U, int MODE>
__global__ void __launch_bounds__(B) lg_poll_kernel(const float4 *__restrict__ in, unsigned long long nvec, float *out, float *partials,
                                                    unsigned *counter) {
    __shared__ float lds[32];
    __shared__ unsigned is_last;
    unsigned long long *slots = (unsigned long long *)partials;
    unsigned *flags = (unsigned *)(slots + gridDim.x);
    if (MODE & 2) { pdl_wait(); pdl_trigger(); }
    if (threadIdx.x == 0 && gridDim.x > 1) is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    const unsigned long long stride = (unsigned long long)gridDim.x * B;
    float acc = load_sum<U>(in, nvec, (unsigned long long)blockIdx.x * B + threadIdx.x, stride);
    acc = block_sum<B>(acc, lds); /* its barriers also publish is_last */
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = acc;
        return;
    }
    if (threadIdx.x == 0) {
        if (MODE & 16) {
            partials[blockIdx.x] = acc;
            asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flags + blockIdx.x), "r"(1u) : "memory");
        } else {
            asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(slots + blockIdx.x), "l"((1ull << 32) | __float_as_uint(acc)) : "memory");
        }
    }
    if (!is_last) return;
    acc = 0.f;
    for (unsigned j = threadIdx.x; j < gridDim.x; j += B) {
        unsigned long long v;
        if (MODE & 16) {
            unsigned f;
            do asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(f) : "l"(flags + j) : "memory");
            while (!f);
            flags[j] = 0;
            v = __float_as_uint(((volatile float *)partials)[j]);
        } else {
            do asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(slots + j) : "memory");
            while (!(v >> 32));
            slots[j] = 0;
        }
        acc += __uint_as_float((unsigned)v);
    }
    acc = block_sum<B>(acc, lds);
    if (threadIdx.x == 0) {
        *out = acc;
        *counter = 0;
    }
}

/* Clusters: each block's sum goes into the cluster leader's shared memory (DSMEM); the
   leader folds them in rank order. One cluster: that is the result. Many: the leaders
   finish with the last-group ticket over the clusters' partials. MODE bit 1: PDL. */
template <int B, int U, int MODE>
__global__ void __launch_bounds__(B) cl_kernel(const float4 *__restrict__ in, unsigned long long nvec, float *out, float *partials,
                                               unsigned *counter) {
    __shared__ float lds[32];
    __shared__ float cluster_sums[16];
    __shared__ unsigned is_last;
    cg::cluster_group cluster = cg::this_cluster();
    if (MODE & 2) { pdl_wait(); pdl_trigger(); }
    const unsigned long long stride = (unsigned long long)gridDim.x * B;
    float acc = load_sum<U>(in, nvec, (unsigned long long)blockIdx.x * B + threadIdx.x, stride);
    acc = block_sum<B>(acc, lds);
    const unsigned rank = cluster.block_rank(), csize = cluster.num_blocks();
    if (threadIdx.x == 0) *cluster.map_shared_rank(&cluster_sums[rank], 0) = acc;
    cluster.sync();
    if (rank != 0) return;
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (unsigned r = 0; r < csize; ++r) s += cluster_sums[r];
        acc = s;
    }
    const unsigned clusters = gridDim.x / csize, cid = blockIdx.x / csize;
    if (clusters == 1) {
        if (threadIdx.x == 0) *out = acc;
        return;
    }
    if (threadIdx.x == 0) {
        partials[cid] = acc;
        unsigned t;
        asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], 1;" : "=r"(t) : "l"(counter) : "memory");
        is_last = t == clusters - 1;
    }
    __syncthreads();
    if (!is_last) return;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    const volatile float *vp = partials;
    acc = 0.f;
    for (unsigned j = threadIdx.x; j < clusters; j += B) acc += vp[j];
    acc = block_sum<B>(acc, lds);
    if (threadIdx.x == 0) {
        *out = acc;
        *counter = 0;
    }
}

struct ctx_t {
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    char *pool;
    size_t pool_bytes;
    float *out, *partials, *slots; /* slots: the polling finish's, zero between calls */
    unsigned *counter, *read_out;
    void *cub_temp;
    size_t cub_temp_bytes;
    int sms;
    pclr_cuda_context *pc;
    std::vector<double> host_sums; /* per slice */
};

template <typename K>
static cudaError_t launch_ex(K kernel, unsigned grid, unsigned block, unsigned cluster, int pdl, cudaStream_t s,
                             const float4 *in, unsigned long long nvec, float *out, float *partials, unsigned *counter) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[2];
    int na = 0;
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.stream = s;
    if (pdl) {
        at[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[na].val.programmaticStreamSerializationAllowed = 1;
        ++na;
    }
    if (cluster) {
        at[na].id = cudaLaunchAttributeClusterDimension;
        at[na].val.clusterDim.x = cluster;
        at[na].val.clusterDim.y = 1;
        at[na].val.clusterDim.z = 1;
        ++na;
    }
    cfg.attrs = at;
    cfg.numAttrs = na;
    return cudaLaunchKernelEx(&cfg, kernel, in, nvec, out, partials, counter);
}

typedef int (*launch_fn)(ctx_t *c, const char *in, uint64_t n, void *arg);

static double per_call_us(ctx_t *c, launch_fn f, void *arg, uint64_t n, int batch, int reps) {
    const size_t bytes = n * 4;
    const int slices = (int)std::max<size_t>(1, std::min<size_t>(c->pool_bytes / bytes, 65536));
    std::vector<double> t;
    int s = 0;
    for (int r = 0; r < reps + 1; ++r) {
        float ms = 0;
        CK(cudaEventRecord(c->e0, c->stream));
        for (int i = 0; i < batch; ++i) {
            if (f(c, c->pool + (size_t)s * bytes, n, arg)) return -1;
            s = (s + 1) % slices;
        }
        CK(cudaEventRecord(c->e1, c->stream));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        if (r) t.push_back(1e3 * ms / batch);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* the graph: `batch` calls captured once, replayed `reps` times */
static double graph_per_call_us(ctx_t *c, launch_fn f, void *arg, uint64_t n, int batch, int reps) {
    const size_t bytes = n * 4;
    const int slices = (int)std::max<size_t>(1, std::min<size_t>(c->pool_bytes / bytes, 65536));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    std::vector<double> t;
    CK(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < batch; ++i)
        if (f(c, c->pool + (size_t)(i % slices) * bytes, n, arg)) {
            cudaStreamEndCapture(c->stream, &g);
            return -1;
        }
    if (cudaStreamEndCapture(c->stream, &g) != cudaSuccess || cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) {
        fprintf(stderr, "graph capture failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    for (int r = 0; r < reps + 1; ++r) {
        float ms = 0;
        CK(cudaEventRecord(c->e0, c->stream));
        CK(cudaGraphLaunch(ge, c->stream));
        CK(cudaEventRecord(c->e1, c->stream));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        if (r) t.push_back(1e3 * ms / batch);
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static int f_read(ctx_t *c, const char *in, uint64_t n, void *arg) {
    unsigned long long nvec = n / 4, blocks = (nvec + 1023) / 1024, cap = (unsigned long long)c->sms * 8;
    unsigned grid = (unsigned)std::max(1ull, std::min(blocks, cap));
    if (arg) return launch_ex(read_pdl_kernel, grid, 256, 0, 1, c->stream, (const float4 *)in, nvec, (float *)c->read_out, 0, 0) != cudaSuccess;
    read_limit_kernel<<<grid, 256, 0, c->stream>>>((const uint4 *)in, nvec, c->read_out);
    return cudaGetLastError() != cudaSuccess;
}
static int f_cub(ctx_t *c, const char *in, uint64_t n, void *) {
    return cub::DeviceReduce::Sum(c->cub_temp, c->cub_temp_bytes, (const float *)in, c->out, (int)n, c->stream) != cudaSuccess;
}
static int f_pclr(ctx_t *c, const char *in, uint64_t n, void *arg) {
    return pclr_cuda_reduce_async(c->pc, (const pclr_config *)arg, (CUdeviceptr)(uintptr_t)in, 0, n, (CUdeviceptr)(uintptr_t)c->out,
                                  (CUstream)c->stream) != PCLR_OK;
}

struct hand {
    const char *name;
    int kind; /* 0 last group, 1 one cluster, 2 many clusters */
    int block, unroll, mode, cluster;
    void (*kernel)(const float4 *, unsigned long long, float *, float *, unsigned *);
    unsigned long long max_n; /* 0: any */
};
static int f_hand(ctx_t *c, const char *in, uint64_t n, void *arg) {
    const hand *h = (const hand *)arg;
    unsigned long long nvec = n / 4, per = (unsigned long long)h->block * h->unroll, want = (nvec + per - 1) / per;
    unsigned long long cap = (unsigned long long)c->sms * (2048 / h->block);
    unsigned grid;
    if (h->kind == 1) grid = h->cluster;
    else {
        grid = (unsigned)std::max(1ull, std::min(want, cap));
        if (h->kind == 2) grid = (grid + h->cluster - 1) / h->cluster * h->cluster;
    }
    return launch_ex(h->kernel, grid, h->block, h->kind ? h->cluster : 0, (h->mode & 6) != 0, c->stream, (const float4 *)in, nvec, c->out,
                     h->mode & 8 ? c->slots : c->partials, c->counter) != cudaSuccess;
}

#define LG(B, U, M) lg_kernel<B, U, M>
#define CL(B, U, M) cl_kernel<B, U, M>
#define LP(B, U, M) lg_poll_kernel<B, U, M>
static hand hands[] = {
    {"lg256-fence", 0, 256, 8, 0, 0, LG(256, 8, 0), 0},
    {"lg256-acqrel", 0, 256, 8, 1, 0, LG(256, 8, 1), 0},
    {"lg256-fence-pdl", 0, 256, 8, 2, 0, LG(256, 8, 2), 0},
    {"lg256-acqrel-pdl", 0, 256, 8, 3, 0, LG(256, 8, 3), 0},
    {"lg256-acqrel-pdl-late(unsafe)", 0, 256, 8, 5, 0, LG(256, 8, 5), 0},
    {"lg256-poll", 0, 256, 8, 8, 0, LP(256, 8, 8), 0},
    {"lg256-poll-pdl", 0, 256, 8, 10, 0, LP(256, 8, 10), 0},
    {"lg256-u4-poll-pdl", 0, 256, 4, 10, 0, LP(256, 4, 10), 0},
    {"lg256-pollflag-pdl", 0, 256, 8, 26, 0, LP(256, 8, 26), 0},
    {"lg512-acqrel", 0, 512, 4, 1, 0, LG(512, 4, 1), 0},
    {"lg1024-acqrel", 0, 1024, 4, 1, 0, LG(1024, 4, 1), 0},
    {"lg1024-acqrel-pdl", 0, 1024, 4, 3, 0, LG(1024, 4, 3), 0},
    {"cl1x8-1024", 1, 1024, 4, 0, 8, CL(1024, 4, 0), 1ull << 20},
    {"cl1x16-1024", 1, 1024, 4, 0, 16, CL(1024, 4, 0), 1ull << 20},
    {"cl1x16-1024-pdl", 1, 1024, 4, 2, 16, CL(1024, 4, 2), 1ull << 20},
    {"clNx8-256", 2, 256, 8, 0, 8, CL(256, 8, 0), 0},
    {"clNx8-256-pdl", 2, 256, 8, 2, 8, CL(256, 8, 2), 0},
    {"clNx8-1024", 2, 1024, 4, 0, 8, CL(1024, 4, 0), 0},
};

int main(int argc, char **argv) {
    ctx_t c;
    int batch = 200, reps = 9, minlog = 10, maxlog = 22;
    if (argc > 1) maxlog = atoi(argv[1]);
    cudaDeviceProp prop;
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CK(cudaGetDeviceProperties(&prop, 0));
    c.sms = prop.multiProcessorCount;
    printf("# midsize_cuda on %s, %d SMs; per-call us, pipelined batches of %d, median of %d\n", prop.name, c.sms, batch, reps);
    CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    c.pool_bytes = (size_t)256 << 20;
    CK(cudaMalloc(&c.pool, c.pool_bytes));
    {   /* small integers 0..3: every float sum below 2^24 is exact */
        std::vector<float> h(c.pool_bytes / 4);
        for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u >> 13) & 3);
        CK(cudaMemcpy(c.pool, h.data(), c.pool_bytes, cudaMemcpyHostToDevice));
        c.host_sums.resize(1);
        double s = 0;
        for (size_t i = 0; i < ((size_t)1 << maxlog); ++i) s += h[i];
        (void)s;
        /* reference per size from slice 0 */
        static std::vector<float> keep;
        keep.swap(h);
    }
    CK(cudaMalloc(&c.out, 64));
    CK(cudaMalloc(&c.partials, 1 << 20));
    CK(cudaMalloc(&c.slots, 1 << 20));
    CK(cudaMemset(c.slots, 0, 1 << 20));
    CK(cudaMalloc(&c.counter, 64));
    CK(cudaMemset(c.counter, 0, 64));
    CK(cudaMalloc(&c.read_out, 64));
    c.cub_temp = NULL;
    c.cub_temp_bytes = 0;
    CK(cub::DeviceReduce::Sum(c.cub_temp, c.cub_temp_bytes, (const float *)c.pool, c.out, 1 << 28, c.stream));
    CK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes));
    for (auto &h : hands)
        if (h.kind) CK(cudaFuncSetAttribute(h.kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    pclr_cuda_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.device_number = 1; /* device 0, the one cudaSetDevice chose */
    desc.no_disk_cache = 1;
    if (pclr_cuda_create(&desc, &c.pc) != PCLR_OK) { fprintf(stderr, "pclr_cuda_create failed\n"); return 1; }

    /* the library's knob variants (all deterministic except the uint atomic row) */
    struct lib { const char *name; pclr_config cfg; } libs[12];
    int nl = 0;
    auto add = [&](const char *name, int group, int unroll, int gpu) {
        pclr_config k;
        memset(&k, 0, sizeof k);
        k.type = PCLR_FLOAT;
        k.op = PCLR_SUM;
        k.backend = PCLR_CUDA;
        k.group_size = group;
        k.unroll = unroll;
        k.groups_per_unit = gpu;
        libs[nl].name = name;
        libs[nl++].cfg = k;
    };
    add("pclr", 0, 0, 0);
    add("pclr-g512", 512, 0, 0);
    add("pclr-g1024", 1024, 0, 0);
    add("pclr-u4", 0, 4, 0);
    add("pclr-u16", 0, 16, 0);
    add("pclr-gpu1", 0, 0, 1);
    add("pclr-gpu2", 0, 0, 2);
    add("pclr-g1024-u16", 1024, 16, 0);
    for (int i = 0; i < nl; ++i) pclr_cuda_prepare(c.pc, &libs[i].cfg);

    printf("%-32s", "variant \\ log2 n");
    for (int l = minlog; l <= maxlog; l += 2) printf(" %7d", l);
    printf("\n");
    auto row = [&](const char *name, launch_fn f, void *arg, int graph, unsigned long long max_n) {
        printf("%-32s", name);
        for (int l = minlog; l <= maxlog; l += 2) {
            uint64_t n = (uint64_t)1 << l;
            if (max_n && n > max_n) { printf(" %7s", "-"); continue; }
            double us = graph ? graph_per_call_us(&c, f, arg, n, batch, reps) : per_call_us(&c, f, arg, n, batch, reps);
            /* check: one call on slice 0 */
            if (f != f_read) {
                float got = -1;
                std::vector<float> h(n);
                CK(cudaMemset(c.out, 0xff, 4));
                if (f(&c, c.pool, n, arg)) { printf(" %7s", "ERR"); continue; }
                CK(cudaMemcpyAsync(&got, c.out, 4, cudaMemcpyDeviceToHost, c.stream));
                CK(cudaStreamSynchronize(c.stream));
                CK(cudaMemcpy(h.data(), c.pool, n * 4, cudaMemcpyDeviceToHost));
                double s = 0;
                for (uint64_t i = 0; i < n; ++i) s += h[i];
                if ((double)got != s) { printf(" %6.2f!", us); fflush(stdout); continue; }
            }
            printf(" %7.2f", us);
            fflush(stdout);
        }
        printf("\n");
    };
    row("read", f_read, NULL, 0, 0);
    static int one = 1;
    row("read-pdl", f_read, &one, 0, 0);
    row("read-graph", f_read, NULL, 1, 0);
    row("cub", f_cub, NULL, 0, 0);
    for (int i = 0; i < nl; ++i) row(libs[i].name, f_pclr, &libs[i].cfg, 0, 0);
    row("pclr-graph", f_pclr, &libs[0].cfg, 1, 0);
    for (auto &h : hands) row(h.name, f_hand, &h, 0, h.max_n);
    {
        static hand h = hands[3];
        row("lg256-acqrel-pdl-graph", f_hand, &h, 1, 0);
    }
    row("read (again)", f_read, NULL, 0, 0);
    /* blocking: call -> result in host memory, host clock */
    printf("%-32s", "pclr blocking (host us)");
    for (int l = minlog; l <= maxlog; l += 2) {
        uint64_t n = (uint64_t)1 << l;
        std::vector<double> t;
        float res;
        for (int r = 0; r < 400; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            if (pclr_cuda_reduce(c.pc, &libs[0].cfg, (CUdeviceptr)(uintptr_t)(c.pool + (size_t)(r % 64) * n * 4 % c.pool_bytes), 0, n,
                                 (CUstream)c.stream, &res) != PCLR_OK) break;
            t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        printf(" %7.2f", t.empty() ? -1.0 : t[t.size() / 2]);
    }
    printf("\n");
    pclr_cuda_destroy(c.pc);
    return 0;
}
