/* hist_cuda: histograms on a CUDA GPU (issue 34's table), in one process, on the same buffers:
   pclreduce's CUDA backend (generic context, pclr_reduce_async on the program's stream) against CUB
   DeviceHistogram::HistogramEven and the read kernel over the same bytes.

   Cases (n elements, default 2^28; every input is larger than the L2):
     uint8, 256 bins over [0, 256): random bytes;
     float, 256 bins over [-1, 1): uniform floats, every mantissa bit;
     a float map, 256 bins: abs(x) over [0, 1) (CUB: a transform iterator of the same map);
     float, one bin hit: every value in [0.5, 0.5 + 2^-9): the worst case for atomics;
     uint16, 65536 bins over [0, 65536);
     float weighted by floats, 256 bins (exact sums; CUB has no weights: the read kernel of both arrays);
     the auto-exposure of a 3840x2160 RGBA float frame: 64 bins of log2-luminance over [-10, 10), clamped:
       pclreduce's one launch against a luminance kernel that writes the clamped log2-luminance + CUB, and
       against CUB over a transform iterator of the pixels (one pass too).
   Times: per call, pipelined (a batch of back-to-back calls between two events), median of 15 batches.
   The read kernel at its best grid (SMs x 1..16). pclreduce's counts are checked bit for bit against the
   CPU reference; CUB's counts against the same (a float bin may differ at an edge: reported, not failed).
       nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl
       build/hist_cuda [--log N] [--only CASE_SUBSTRING] [--vector V] [--unroll U] [--group G] [--groups-per-unit K] [OUT_DIR]
   (writes OUT_DIR/hist_cuda.csv; the knobs: pclreduce's defaults where left out) */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <cuda_runtime.h>
#include "cuda_timing.cuh"

#include "read_limit.cuh"

static int failures = 0;

static double read_us(cudaStream_t s, const void *buf, size_t bytes, unsigned *sink) {
    int sms = 0;
    double best = 1e30;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int k = 1; k <= 16; k *= 2)
        best = std::min(best, time_us(s, 10, [&] { read_limit_kernel<<<sms * k, 256, 0, s>>>((const uint4 *)buf, bytes / 16, sink); }));
    return best;
}

struct abs_map {
    __host__ __device__ float operator()(float x) const { return fabsf(x); }
};
/* the engines' log2-luminance of an RGBA pixel, clamped into the range as clamp does (CUB drops out-of-range values) */
__host__ __device__ inline float log2_luminance(float4 p) {
    const float l = 0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z;
    const float v = log2f(1e-4f + (l >= 0.0f ? fminf(l, 3.40282347e38f) : 0.0f));
    return fminf(fmaxf(v, -10.0f), 9.99f);
}
struct luminance_map {
    __host__ __device__ float operator()(float4 p) const { return log2_luminance(p); }
};
__global__ void log2_luminance_kernel(const float4 *__restrict__ rgba, unsigned long long n, float *out) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = log2_luminance(rgba[i]);
}

struct hist_case {
    const char *name;
    pclr_type type;
    int bins;
    double lo, hi;
    const char *map;
    int components, weighted, clamp, one_bin;
};

/* pclreduce's async reduce on stream s into state (device memory): exits on an error */
static void reduce_async(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, const pclr_buffer *state, cudaStream_t s) {
    pclr_sync sync;
    memset(&sync, 0, sizeof sync);
    sync.cuda_stream = (void *)s;
    const pclr_result r = pclr_reduce_async(ctx, cfg, in, state, 0, &sync);
    if (r != PCLR_OK) { fprintf(stderr, "hist_cuda: pclreduce: %s: %s\n", pclr_result_string(r), pclr_last_error(ctx)); exit(1); }
}

/* CUB HistogramEven over `samples` (a pointer or an iterator) with temporary storage allocated outside the timings */
template <typename It, typename Level> struct cub_hist {
    void *temp = nullptr;
    size_t temp_bytes = 0;
    int *counts;
    It samples;
    int levels;
    Level lo, hi;
    long long n;
    cub_hist(It samples_, int bins, Level lo_, Level hi_, long long n_, int *counts_) : counts(counts_), samples(samples_), levels(bins + 1), lo(lo_), hi(hi_), n(n_) {
        CK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, counts, levels, lo, hi, n));
        CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 16)));
    }
    void run(cudaStream_t s) { CK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, counts, levels, lo, hi, n, s)); }
    ~cub_hist() { cudaFree(temp); }
};

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

int main(int argc, char **argv) {
    int log2n = 28, vector = 0, unroll = 0, group = 0, gpu = 0;
    const char *out = ".", *only = "", *weights = "uniform";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) log2n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--vector") && i + 1 < argc) vector = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--unroll") && i + 1 < argc) unroll = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--group") && i + 1 < argc) group = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--groups-per-unit") && i + 1 < argc) gpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--weights") && i + 1 < argc) weights = argv[++i]; /* uniform (over [-1, 1)), positive, one */
        else out = argv[i];
    }
    const uint64_t n = (uint64_t)1 << log2n;
    static const hist_case cases[] = {
        {"uint8, 256 bins", PCLR_UINT8, 256, 0, 256, NULL, 1, 0, 0, 0},
        {"float, 256 bins", PCLR_FLOAT, 256, -1, 1, NULL, 1, 0, 0, 0},
        {"float map abs(x), 256 bins", PCLR_FLOAT, 256, 0, 1, "abs(x)", 1, 0, 0, 0},
        {"float, one bin hit", PCLR_FLOAT, 256, -1, 1, NULL, 1, 0, 0, 1},
        {"uint16, 65536 bins", PCLR_UINT16, 65536, 0, 65536, NULL, 1, 0, 0, 0},
        {"float weighted by floats, 256 bins", PCLR_FLOAT, 256, -1, 1, NULL, 1, 1, 0, 0},
        {"auto-exposure 3840x2160 RGBA float, 64 bins", PCLR_FLOAT, 64, -10, 10, NULL, 4, 0, 1, 0}};
    CK(cudaFree(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    pclr_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.backends[0] = PCLR_CUDA;
    desc.device = 1; /* device 0, the runtime's (its primary context) */
    char why[1024] = "";
    desc.error = why;
    desc.error_cap = sizeof why;
    pclr_context *ctx = NULL;
    if (pclr_create(&desc, &ctx) != PCLR_OK) { fprintf(stderr, "hist_cuda: no pclreduce CUDA context: %s\n", why); return 1; }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    char path[1024];
    snprintf(path, sizeof path, "%s/hist_cuda.csv", out);
    FILE *csv = fopen(path, "w");
    if (!csv) { fprintf(stderr, "hist_cuda: cannot write %s\n", path); return 1; }
    fprintf(csv, "case,n,bytes,pclr_us,read_us,cub_us,cub_onepass_us,pclr_of_read,pclr_over_cub\n");
    printf("# hist_cuda on %s (%d SMs), n = 2^%d: per-call us, pipelined, median of 15 batches of 10\n", prop.name, prop.multiProcessorCount, log2n);
    printf("| case | pclreduce us | GB/s | read kernel us | %% of read | CUB us | pclreduce / CUB | CUB one pass us | pclreduce / CUB one pass | checks |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    unsigned *sink;
    int *cub_counts;
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&cub_counts, 4 * 65536));
    for (const hist_case &c : cases) {
        if (!strstr(c.name, only)) continue;
        const int frame = c.components == 4;
        const uint64_t elems = frame ? 3840ull * 2160ull : n; /* pixels for the frame */
        const size_t es = pclr_type_size(c.type) * (size_t)c.components;
        const size_t bytes = (size_t)elems * es * (c.weighted ? 2 : 1);
        std::vector<unsigned char> h(bytes);
        for (size_t k = 0; k < elems * (size_t)c.components * (c.weighted ? 2 : 1); ++k) {
            const uint64_t v = rnd();
            if (c.type == PCLR_UINT8) h[k] = (unsigned char)v;
            else if (c.type == PCLR_UINT16) memcpy(&h[2 * k], &v, 2);
            else {
                float f;
                if (frame) { /* an HDR-like frame: luminance over 5 decades, a few negative and NaN pixels */
                    const size_t px = k / 4, ch = k % 4;
                    const double u = (double)((px * 2654435761u) % 100003) / 100003.0;
                    f = ch == 3 ? 1.0f : (float)((0.01 - 0.002 * (double)ch) * pow(1e5, u));
                    if (px % 100003 == 7 && ch == 1) f = -1.0f;
                    if (px % 100019 == 5 && ch == 0) f = NAN;
                } else if (c.one_bin) {
                    const uint32_t u = 0x3f000000u | (uint32_t)(v & 0x3fffu);
                    memcpy(&f, &u, 4);
                } else f = (float)((double)(v >> 40) * 0x1p-23 - 1.0); /* uniform over [-1, 1), 24 bits */
                if (c.weighted && k >= elems && strcmp(weights, "uniform")) f = weights[0] == 'p' ? fabsf(f) : 1.0f;
                memcpy(&h[4 * k], &f, 4);
            }
        }
        void *buf;
        CK(cudaMalloc(&buf, bytes));
        CK(cudaMemcpy(buf, h.data(), bytes, cudaMemcpyHostToDevice));
        pclr_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.type = c.type;
        cfg.op = PCLR_HISTOGRAM;
        cfg.bins = (uint32_t)c.bins;
        cfg.components = frame ? 4 : 0;
        cfg.clamp = c.clamp;
        cfg.map = frame ? "log2(1e-4f + ((0.2126f * x.r + 0.7152f * x.g + 0.0722f * x.b) >= 0.0f ? min(0.2126f * x.r + 0.7152f * x.g + 0.0722f * x.b, 3.40282347e38f) : 0.0f))" : c.map;
        cfg.weighted = c.weighted;
        cfg.vector_width = vector;
        cfg.unroll = unroll;
        cfg.group_size = group;
        cfg.groups_per_unit = gpu;
        {
            pclr_config rc;
            if (pclr_resolve(ctx, &cfg, elems, &rc) == PCLR_OK)
                fprintf(stderr, "# %s: group %d unroll %d vector %d groups_per_unit %d stride %d\n", c.name, rc.group_size, rc.unroll, rc.vector_width,
                        rc.groups_per_unit, (int)rc.stride);
        }
        cfg.y_type = c.weighted ? PCLR_FLOAT : PCLR_TYPE_DEFAULT;
        pclr_buffer xb, stb;
        void *state;
        const size_t ss = pclr_state_size(&cfg), rs = pclr_result_size(&cfg);
        CK(cudaMalloc(&state, ss));
        if (pclr_cuda_buffer(ctx, (CUdeviceptr)buf, bytes, &xb) != PCLR_OK || pclr_cuda_buffer(ctx, (CUdeviceptr)state, ss, &stb) != PCLR_OK) {
            fprintf(stderr, "hist_cuda: pclr_cuda_buffer failed\n");
            return 1;
        }
        pclr_input in;
        memset(&in, 0, sizeof in);
        in.x = &xb;
        in.y = c.weighted ? &xb : NULL;
        in.y_offset = c.weighted ? elems : 0;
        in.n = elems;
        in.lo = c.lo;
        in.hi = c.hi;
        const double pclr_t = time_us(s, 10, [&] { reduce_async(ctx, &cfg, &in, &stb, s); });
        /* check: the last call's state against the CPU reference */
        std::vector<unsigned char> st(ss), got(rs), ref(rs);
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(st.data(), state, ss, cudaMemcpyDeviceToHost));
        const double range[2] = {c.lo, c.hi};
        int ok = pclr_finalize(&cfg, st.data(), got.data()) == PCLR_OK &&
                 pclr_cpu_reduce_map(&cfg, h.data(), c.weighted ? &h[4 * elems] : NULL, elems, range, ref.data()) == PCLR_OK;
        uint64_t differ = 0; /* frame: a map's log2 may differ in its last bit from the host's (docs/histograms.md) */
        for (int k = 0; ok && k < c.bins; ++k) {
            const uint64_t a = pclr_histogram_count(got.data(), (uint64_t)k), b = pclr_histogram_count(ref.data(), (uint64_t)k);
            differ += a > b ? a - b : b - a;
        }
        ok = ok && (frame ? differ <= elems / 100000 : memcmp(got.data(), ref.data(), rs) == 0);
        if (!ok) ++failures;
        const double read_t = read_us(s, buf, bytes, sink);
        double cub_t = 0, cub1_t = 0;
        uint64_t cub_differ = 0;
        std::vector<int> cc(c.bins);
        if (frame) { /* a luminance kernel + CUB, and CUB over a transform iterator (one pass) */
            float *lum;
            CK(cudaMalloc(&lum, 4 * elems));
            cub_hist<float *, float> two(lum, c.bins, -10.0f, 10.0f, (long long)elems, cub_counts);
            cub_t = time_us(s, 10, [&] {
                log2_luminance_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>((const float4 *)buf, elems, lum);
                two.run(s);
            });
            auto it = thrust::make_transform_iterator((const float4 *)buf, luminance_map());
            cub_hist<decltype(it), float> one(it, c.bins, -10.0f, 10.0f, (long long)elems, cub_counts);
            cub1_t = time_us(s, 10, [&] { one.run(s); });
            CK(cudaFree(lum));
        } else if (!c.weighted) {
            if (c.type == PCLR_UINT8) {
                cub_hist<const unsigned char *, int> h8((const unsigned char *)buf, c.bins, 0, 256, (long long)elems, cub_counts);
                cub_t = time_us(s, 10, [&] { h8.run(s); });
            } else if (c.type == PCLR_UINT16) {
                cub_hist<const unsigned short *, int> h16((const unsigned short *)buf, c.bins, 0, 65536, (long long)elems, cub_counts);
                cub_t = time_us(s, 10, [&] { h16.run(s); });
            } else if (c.map) {
                auto it = thrust::make_transform_iterator((const float *)buf, abs_map());
                cub_hist<decltype(it), float> hm(it, c.bins, (float)c.lo, (float)c.hi, (long long)elems, cub_counts);
                cub_t = time_us(s, 10, [&] { hm.run(s); });
            } else {
                cub_hist<const float *, float> hf((const float *)buf, c.bins, (float)c.lo, (float)c.hi, (long long)elems, cub_counts);
                cub_t = time_us(s, 10, [&] { hf.run(s); });
            }
        }
        if (cub_t > 0) {
            CK(cudaStreamSynchronize(s));
            CK(cudaMemcpy(cc.data(), cub_counts, 4 * (size_t)c.bins, cudaMemcpyDeviceToHost));
            for (int k = 0; k < c.bins; ++k) {
                const uint64_t a = (uint64_t)(unsigned)cc[k], b = pclr_histogram_count(ref.data(), (uint64_t)k);
                cub_differ += a > b ? a - b : b - a;
            }
        }
        char checks[160];
        snprintf(checks, sizeof checks, "pclreduce %s%s; CUB %llu counts off the reference", ok ? "exact" : "MISMATCH",
                 frame ? " (within the map's last bit)" : "", (unsigned long long)cub_differ);
        char cub_col[64] = "-", cub1_col[64] = "-";
        if (cub_t > 0) snprintf(cub_col, sizeof cub_col, "%.1f | %.3f", cub_t, pclr_t / cub_t);
        else snprintf(cub_col, sizeof cub_col, "- | -");
        if (cub1_t > 0) snprintf(cub1_col, sizeof cub1_col, "%.1f | %.3f", cub1_t, pclr_t / cub1_t);
        else snprintf(cub1_col, sizeof cub1_col, "- | -");
        printf("| %s | %.1f | %.0f | %.1f | %.1f | %s | %s | %s |\n", c.name, pclr_t, 1e-3 * (double)bytes / pclr_t, read_t, 100.0 * read_t / pclr_t,
               cub_col, cub1_col, checks);
        fprintf(csv, "%s,%llu,%zu,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f\n", c.name, (unsigned long long)elems, bytes, pclr_t, read_t, cub_t, cub1_t, read_t / pclr_t,
                cub_t > 0 ? pclr_t / cub_t : 0.0);
        fflush(stdout);
        CK(cudaFree(buf));
        CK(cudaFree(state));
    }
    fclose(csv);
    CK(cudaFree(sink));
    CK(cudaFree(cub_counts));
    pclr_destroy(ctx);
    printf("hist_cuda: %d failures\n", failures);
    return failures ? 1 : 0;
}
