/* bench_map: map expressions on a CUDA GPU (issue 15's benchmark rows).
     1. dot product of two arrays (float 2^28, double 2^27: 2 GiB read): pclreduce's map "x * y"
        against the read-only kernel over both arrays' bytes and cuBLAS cublasSdot/cublasDdot
        (device pointer mode, no host sync per call);
     2. auto-exposure of a 3840x2160 RGBA float frame: one pclreduce launch (stats of the
        log-luminance map over the pixels) against the four-pass way (a luminance kernel that
        writes log-luminance, then min, max and sum reductions) and against the example's old
        way (log-luminance on the host, upload, three reductions).
   Times: per call, pipelined (a batch of back-to-back calls between two events), median of 15
   batches. Results are checked against the CPU reference.
       nvcc -O2 -o build/bench_map bench/bench_map.cu -lcublas -ldl    (run.sh --map builds it) */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "cuda_timing.cuh"

static int failures = 0;

#include "read_limit.cuh"

/* the four-pass way's first pass: log-luminance of each RGBA pixel into a float array */
__global__ void log_luminance_kernel(const float4 *__restrict__ rgba, unsigned long long n, float *out) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float4 p = rgba[i];
        const float l = 0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z;
        out[i] = logf(1e-4f + (l >= 0.0f ? fminf(l, 3.40282347e38f) : 0.0f));
    }
}

static void ok(int good, const char *what) {
    if (!good) { ++failures; printf("FAIL: %s\n", what); }
}

template <typename T> static void dot_row(pclr_cuda_context *pc, cublasHandle_t cb, cudaStream_t s, int log2n, FILE *csv) {
    const size_t n = (size_t)1 << log2n;
    const pclr_type t = sizeof(T) == 4 ? PCLR_FLOAT : PCLR_DOUBLE;
    std::vector<T> h(2 * n);
    T *buf, *res;
    unsigned *sink;
    for (size_t i = 0; i < 2 * n; ++i) h[i] = (T)((double)((i * 2654435761u) % 1000003) / 1000003.0 - 0.5);
    CK(cudaMalloc(&buf, 2 * n * sizeof(T)));
    CK(cudaMalloc(&res, 64));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMemcpy(buf, h.data(), 2 * n * sizeof(T), cudaMemcpyHostToDevice));
    const T *x = buf, *y = buf + n;
    pclr_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.type = t;
    cfg.op = PCLR_SUM;
    cfg.map = "x * y";
    cfg.y_type = t;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    double read_us = 1e30;
    for (int k = 1; k <= 16; k *= 2) { /* the read kernel at its best grid */
        const int blocks = sms * k;
        read_us = std::min(read_us, time_us(s, 10, [&] {
            read_limit_kernel<<<blocks, 256, 0, s>>>((const uint4 *)buf, 2 * n * sizeof(T) / 16, sink);
        }));
    }
    double pclr_us = time_us(s, 10, [&] {
        pclr_result r = pclr_cuda_reduce_map_async(pc, &cfg, (CUdeviceptr)x, 0, (CUdeviceptr)y, 0, n, NULL, (CUdeviceptr)res, s);
        if (r != PCLR_OK) { fprintf(stderr, "pclreduce: %s %s\n", pclr_result_string(r), pclr_cuda_last_error(pc)); exit(1); }
    });
    CK(cudaStreamSynchronize(s));
    T got_p = 0, got_c = 0;
    CK(cudaMemcpy(&got_p, res, sizeof(T), cudaMemcpyDeviceToHost));
    cublasSetStream(cb, s);
    cublasSetPointerMode(cb, CUBLAS_POINTER_MODE_DEVICE);
    double cublas_us = time_us(s, 10, [&] {
        cublasStatus_t st = sizeof(T) == 4 ? cublasSdot(cb, (int)n, (const float *)x, 1, (const float *)y, 1, (float *)res)
                                           : cublasDdot(cb, (int)n, (const double *)x, 1, (const double *)y, 1, (double *)res);
        if (st != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublas dot failed %d\n", (int)st); exit(1); }
    });
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&got_c, res, sizeof(T), cudaMemcpyDeviceToHost));
    double ref = 0, c = 0, abs_sum = 0; /* Neumaier in double: the reference's own error stays far below the tolerance */
    for (size_t i = 0; i < n; ++i) {
        const double v = (double)h[i] * (double)h[n + i], t = ref + v;
        c += fabs(ref) >= fabs(v) ? (ref - t) + v : (v - t) + ref;
        ref = t;
        abs_sum += fabs(v);
    }
    ref += c;
    const double tol = (sizeof(T) == 4 ? 1.2e-7 : 2.3e-16) * 64 * abs_sum;
    ok(fabs((double)got_p - ref) <= tol, sizeof(T) == 4 ? "pclreduce float dot differs from the reference" : "pclreduce double dot differs from the reference");
    const double gbps = 2.0 * n * sizeof(T) / pclr_us / 1e3;
    printf("dot %-6s 2^%d: pclreduce %8.1f us (%6.1f GB/s, %5.1f %% of the read kernel's %7.1f us)   cublas%sdot %8.1f us  -> %.3f x cuBLAS's time   "
           "result %.9g (cuBLAS %.9g, reference %.9g)\n",
           sizeof(T) == 4 ? "float" : "double", log2n, pclr_us, gbps, 100.0 * read_us / pclr_us, read_us, sizeof(T) == 4 ? "S" : "D",
           cublas_us, pclr_us / cublas_us, (double)got_p, (double)got_c, ref);
    fprintf(csv, "dot,%s,%zu,%.3f,%.3f,%.3f,%.4f,%.4f\n", sizeof(T) == 4 ? "float" : "double", n, pclr_us, read_us, cublas_us,
            read_us / pclr_us, pclr_us / cublas_us);
    CK(cudaFree(buf));
    CK(cudaFree(res));
    CK(cudaFree(sink));
}

static void exposure_row(pclr_cuda_context *pc, cudaStream_t s, FILE *csv) {
    const size_t w = 3840, hgt = 2160, n = w * hgt;
    std::vector<float> rgba(4 * n);
    for (size_t i = 0; i < n; ++i) { /* an HDR-like frame: values over 5 decades, a few negative and NaN pixels */
        const double u = (double)((i * 2654435761u) % 100003) / 100003.0;
        rgba[4 * i + 0] = (float)(0.01 * pow(1e5, u));
        rgba[4 * i + 1] = (float)(0.008 * pow(1e5, u));
        rgba[4 * i + 2] = (float)(0.006 * pow(1e5, u));
        rgba[4 * i + 3] = 1.0f;
        if (i % 100003 == 7) rgba[4 * i + 1] = -1.0f;
        if (i % 100019 == 5) rgba[4 * i + 0] = NAN;
    }
    float *frame, *loglum, *res;
    CK(cudaMalloc(&frame, 16 * n));
    CK(cudaMalloc(&loglum, 4 * n));
    CK(cudaMalloc(&res, 256));
    CK(cudaMemcpy(frame, rgba.data(), 16 * n, cudaMemcpyHostToDevice));
    pclr_config one;
    memset(&one, 0, sizeof one);
    one.type = PCLR_FLOAT;
    one.op = PCLR_STATS;
    one.components = 4;
    one.map = "log(1e-4f + ((0.2126f * x.r + 0.7152f * x.g + 0.0722f * x.b) >= 0.0f ? min(0.2126f * x.r + 0.7152f * x.g + 0.0722f * x.b, "
              "3.40282347e38f) : 0.0f))";
    pclr_config mn, mx, sm;
    memset(&mn, 0, sizeof mn);
    mn.type = PCLR_FLOAT;
    mx = sm = mn;
    mn.op = PCLR_MIN;
    mx.op = PCLR_MAX;
    sm.op = PCLR_SUM;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double one_us = time_us(s, 10, [&] {
        if (pclr_cuda_reduce_async(pc, &one, (CUdeviceptr)frame, 0, n, (CUdeviceptr)res, s) != PCLR_OK) { fprintf(stderr, "%s\n", pclr_cuda_last_error(pc)); exit(1); }
    });
    const double four_us = time_us(s, 10, [&] {
        log_luminance_kernel<<<sms * 8, 256, 0, s>>>((const float4 *)frame, n, loglum);
        pclr_cuda_reduce_async(pc, &mn, (CUdeviceptr)loglum, 0, n, (CUdeviceptr)(res + 16), s);
        pclr_cuda_reduce_async(pc, &mx, (CUdeviceptr)loglum, 0, n, (CUdeviceptr)(res + 17), s);
        pclr_cuda_reduce_async(pc, &sm, (CUdeviceptr)loglum, 0, n, (CUdeviceptr)(res + 18), s);
    });
    /* the example's old way: log-luminance on the host, upload, three blocking reductions */
    std::vector<double> host_t;
    std::vector<float> ll(n);
    float lo = 0, hi = 0, sum = 0;
    for (int r = 0; r < 5; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < n; ++i) {
            const float *p = &rgba[4 * i];
            float l = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
            if (!(l >= 0.0f)) l = 0.0f;
            if (l > 3.40282347e38f) l = 3.40282347e38f;
            ll[i] = (float)log(1e-4 + (double)l);
        }
        CK(cudaMemcpy(loglum, ll.data(), 4 * n, cudaMemcpyHostToDevice));
        pclr_cuda_reduce(pc, &mn, (CUdeviceptr)loglum, 0, n, s, &lo);
        pclr_cuda_reduce(pc, &mx, (CUdeviceptr)loglum, 0, n, s, &hi);
        pclr_cuda_reduce(pc, &sm, (CUdeviceptr)loglum, 0, n, s, &sum);
        host_t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(host_t.begin(), host_t.end());
    const double old_us = host_t[host_t.size() / 2];
    /* check the one launch against the CPU reference */
    pclr_stats_result got, ref;
    CK(cudaStreamSynchronize(s));
    ok(pclr_cuda_reduce(pc, &one, (CUdeviceptr)frame, 0, n, s, &got) == PCLR_OK, "one-launch reduce");
    ok(pclr_cpu_reduce_map(&one, rgba.data(), NULL, n, NULL, &ref) == PCLR_OK, "CPU reference");
    ok(got.count == n && fabs(got.mean - ref.mean) < 1e-4 * (1 + fabs(ref.mean)) && fabs(got.min.f32 - ref.min.f32) < 1e-5 &&
           fabs(got.max.f32 - ref.max.f32) < 1e-4,
       "auto-exposure stats differ from the CPU reference");
    printf("auto-exposure 3840x2160 RGBA float: one launch (stats of the log-luminance map) %8.1f us; four passes on the device "
           "(luminance kernel + min + max + sum) %8.1f us -> %.2f x; the old example (host luminance + upload + 3 reductions) %8.1f us "
           "-> %.1f x   mean %.6f min %.6f max %.6f (reference %.6f %.6f %.6f; old way min %.6f max %.6f mean %.6f)\n",
           one_us, four_us, four_us / one_us, old_us, old_us / one_us, got.mean, got.min.f32, got.max.f32, ref.mean, ref.min.f32,
           ref.max.f32, lo, hi, sum / n);
    fprintf(csv, "exposure,float4,%zu,%.3f,%.3f,%.3f,%.4f,%.4f\n", n, one_us, four_us, old_us, four_us / one_us, old_us / one_us);
    CK(cudaFree(frame));
    CK(cudaFree(loglum));
    CK(cudaFree(res));
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : ".";
    char path[1024];
    pclr_cuda_context *pc = NULL;
    pclr_cuda_desc desc;
    cublasHandle_t cb;
    cudaStream_t s;
    cudaDeviceProp prop;
    CK(cudaFree(0));
    CK(cudaGetDeviceProperties(&prop, 0));
    memset(&desc, 0, sizeof desc);
    desc.device_number = 1; /* device 0, the runtime's */
    if (pclr_cuda_create(&desc, &pc) != PCLR_OK) { fprintf(stderr, "bench_map: no pclreduce CUDA context\n"); return 1; }
    if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "bench_map: no cuBLAS\n"); return 1; }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    snprintf(path, sizeof path, "%s/map_cuda.csv", out);
    FILE *csv = fopen(path, "w");
    if (!csv) { fprintf(stderr, "bench_map: cannot write %s\n", path); return 1; }
    fprintf(csv, "row,type,n,pclr_us,anchor1_us,anchor2_us,ratio1,ratio2\n");
    printf("# bench_map on %s (%d SMs): per-call us, pipelined, median of 15 batches of 10\n", prop.name, prop.multiProcessorCount);
    dot_row<float>(pc, cb, s, 28, csv);
    dot_row<double>(pc, cb, s, 27, csv);
    exposure_row(pc, s, csv);
    fclose(csv);
    cublasDestroy(cb);
    pclr_cuda_destroy(pc);
    printf("bench_map: %d failures\n", failures);
    return failures ? 1 : 0;
}
