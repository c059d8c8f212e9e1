/* hist_probe: where a GPU histogram's time goes (issue 34), hand-written kernels over the same 2^28 elements:
   uint8 into 256 bins over [0, 256) (the float rule of docs/histograms.md, or tricks without conversions, or a
   table of each byte's bin, or the byte itself: the atomics' own limit; copies of the counts 1 or 16), and float
   weights into 256 bins (32-bit digits with carries as the library's kernel, or 64-bit words without carries).
   Per-call us, pipelined, median of 15 batches of 10.
       nvcc -O3 -std=c++17 -arch=sm_90 bench/hist_probe.cu -o build/hist_probe && build/hist_probe */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "cuda_timing.cuh"

enum { RULE = 0, TRICK = 1, TABLE = 2, IDENTITY = 3, NO_ATOMIC = 4, INTEGER = 5 };

template <int MODE, int C>
__global__ void __launch_bounds__(256) hist8(const uint4 *__restrict__ in, unsigned long long nvec, float lo, float hi, float scale, unsigned *out) {
    __shared__ unsigned h[259 * C];
    __shared__ unsigned lut[256];
    for (unsigned k = threadIdx.x; k < 259 * C; k += blockDim.x) h[k] = 0;
    if (MODE == TABLE)
        for (unsigned k = threadIdx.x; k < 256; k += blockDim.x) {
            const float f = (float)k;
            lut[k] = (f < lo ? 256u : f >= hi ? 257u : min((unsigned)((f - lo) * scale), 255u)) * C;
        }
    __syncthreads();
    const unsigned lane = threadIdx.x % C;
    unsigned acc = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
        const uint4 v = in[i];
        const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int q = 0; q < 16; ++q) {
            const unsigned b = (w[q / 4] >> (8 * (q % 4))) & 255u;
            unsigned k;
            if (MODE == RULE) {
                const float f = (float)b;
                k = f < lo ? 256u : f >= hi ? 257u : min((unsigned)((f - lo) * scale), 255u);
            } else if (MODE == TRICK) {
                const float f = __uint_as_float(0x4B000000u | b) - 8388608.0f;
                k = f < lo ? 256u : f >= hi ? 257u : min(__float_as_uint(__fadd_rz((f - lo) * scale, 8388608.0f)) & 0x7FFFFFu, 255u);
            } else if (MODE == INTEGER) { /* lo integral, scale 2^-s: (b - lo) >> s exactly; integer bounds */
                const int d = (int)b - (int)lo;
                k = d < 0 ? 256u : b >= (unsigned)hi ? 257u : min((unsigned)d >> 0, 255u);
            } else if (MODE == TABLE) k = lut[b];
            else k = b;
            if (MODE == NO_ATOMIC) acc += k;
            else if (MODE == TABLE) atomicAdd(&h[k + lane], 1u);
            else atomicAdd(&h[k * C + lane], 1u);
        }
    }
    if (acc == 0x9e3779b9u) out[0] = acc;
    __syncthreads();
    for (unsigned k = threadIdx.x; k < 259; k += blockDim.x) {
        unsigned m = 0;
        for (int j = 0; j < C; ++j) m += h[k * C + j];
        if (m) atomicAdd(out + k, m);
    }
}

/* weights: 256 bins of x in [-1, 1), each bin's exact sum of w in units of 2^-149 */
template <int WIDE>
__global__ void __launch_bounds__(256) weigh(const float4 *__restrict__ x, const float4 *__restrict__ y, unsigned long long nvec, unsigned *out) {
    __shared__ unsigned h[259];
    __shared__ unsigned long long w64[WIDE ? 259 * 10 : 1];
    __shared__ unsigned w32[WIDE ? 1 : 259 * 20];
    for (unsigned k = threadIdx.x; k < 259; k += blockDim.x) h[k] = 0;
    for (unsigned k = threadIdx.x; k < (WIDE ? 2590u : 1u); k += blockDim.x) w64[k] = 0;
    for (unsigned k = threadIdx.x; k < (WIDE ? 1u : 5180u); k += blockDim.x) w32[k] = 0;
    __syncthreads();
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
        const float4 a = x[i], c = y[i];
        const float xs[4] = {a.x, a.y, a.z, a.w}, ws[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const float f = xs[q];
            const unsigned k = f != f ? 258u : f < -1.0f ? 256u : f >= 1.0f ? 257u : min((unsigned)((f + 1.0f) * 128.0f), 255u);
            atomicAdd(&h[k], 1u);
            const unsigned b = __float_as_uint(ws[q]), e = (b >> 23) & 255u;
            if (e == 255u) continue;
            const unsigned m = e ? (b & 0x7FFFFFu) | 0x800000u : b & 0x7FFFFFu, p = e ? e - 1u : 0u, s = p & 31u, d = p >> 5;
            if (WIDE == 2) continue; /* counts only */
            if (WIDE) {
                const long long sign = (b >> 31) ? -1 : 1;
                atomicAdd(&w64[k * 10 + d], (unsigned long long)(sign * (long long)(m << s)));
                if (s > 8u) atomicAdd(&w64[k * 10 + d + 1], (unsigned long long)(sign * (long long)(m >> (32u - s))));
            } else {
                const unsigned at = (b >> 31) ? 2590u + k * 10 : k * 10;
                unsigned lo = m << s;
                if (atomicAdd(&w32[at + d], lo) + lo < lo)
                    for (unsigned j = d + 1; j < 10 && atomicAdd(&w32[at + j], 1u) == 0xFFFFFFFFu; ++j) {}
                if (s > 8u) {
                    const unsigned hi = m >> (32u - s);
                    if (atomicAdd(&w32[at + d + 1], hi) + hi < hi)
                        for (unsigned j = d + 2; j < 10 && atomicAdd(&w32[at + j], 1u) == 0xFFFFFFFFu; ++j) {}
                }
            }
        }
    }
    __syncthreads();
    for (unsigned k = threadIdx.x; k < 259; k += blockDim.x) {
        atomicAdd(out + k, h[k]);
        for (int j = 0; j < 10; ++j) atomicAdd(out + 259 + k, WIDE ? (unsigned)w64[k * 10 + j] : w32[k * 10 + j]);
    }
}

int main() {
    const size_t n = (size_t)1 << 28;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<unsigned> h(n / 4 * 2);
    unsigned long long r = 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < h.size(); ++k) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const float f = (float)((double)(r >> 40) * 0x1p-23 - 1.0);
        if (k < n / 4) h[k] = (unsigned)r; /* bytes */
        else memcpy(&h[k], &f, 4);
    }
    unsigned *d, *out;
    float *xf;
    CK(cudaMalloc(&d, n));
    CK(cudaMalloc(&xf, 8 * n));
    CK(cudaMalloc(&out, 4096));
    CK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
    std::vector<float> fl(2 * n);
    for (size_t k = 0; k < 2 * n; ++k) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        fl[k] = (float)((double)(r >> 40) * 0x1p-23 - 1.0);
    }
    CK(cudaMemcpy(xf, fl.data(), 8 * n, cudaMemcpyHostToDevice));
    const unsigned long long nvec = n / 16;
    const int grids[3] = {sms * 4, sms * 8, sms * 16};
    printf("# hist_probe: 2^28 uint8 into 256 bins (us per call; grid SMs x 4 / 8 / 16, 256 threads, 16-byte loads)\n");
#define ROW(name, M, C)                                                                                                            \
    do {                                                                                                                           \
        printf("%-28s", name);                                                                                                     \
        for (int g : grids) printf(" %8.1f", time_us(0, 10, [&] { hist8<M, C><<<g, 256>>>((const uint4 *)d, nvec, 0.0f, 256.0f, 1.0f, out); })); \
        printf("\n");                                                                                                              \
    } while (0)
    ROW("float rule, 1 copy", RULE, 1);
    ROW("float rule, 16 copies", RULE, 16);
    ROW("float rule, 32 copies", RULE, 32);
    ROW("tricks, 1 copy", TRICK, 1);
    ROW("tricks, 16 copies", TRICK, 16);
    ROW("integer rule, 1 copy", INTEGER, 1);
    ROW("integer rule, 16 copies", INTEGER, 16);
    ROW("table, 1 copy", TABLE, 1);
    ROW("table, 16 copies", TABLE, 16);
    ROW("identity, 1 copy", IDENTITY, 1);
    ROW("identity, 16 copies", IDENTITY, 16);
    ROW("no atomic (float rule)", NO_ATOMIC, 1);
    printf("# 2^28 floats weighted by 2^28 floats into 256 bins\n");
#define WROW(name, W)                                                                                                              \
    do {                                                                                                                           \
        printf("%-28s", name);                                                                                                     \
        for (int g : grids) printf(" %8.1f", time_us(0, 10, [&] { weigh<W><<<g, 256>>>((const float4 *)xf, (const float4 *)(xf + n), n / 4, out); })); \
        printf("\n");                                                                                                              \
    } while (0)
    WROW("counts only", 2);
    WROW("64-bit words, no carries", 1);
    WROW("32-bit digits, carries", 0);
    return 0;
}
