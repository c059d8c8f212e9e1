/* The CUDA benchmarks' timing: CK (a runtime call that must succeed, else exit) and time_us, the median
   per-call microseconds of `calls` back-to-back calls of f on stream s between two events, over 15 batches
   after 3 warm-up calls (which also build the kernels). */
#ifndef PCLR_BENCH_CUDA_TIMING_CUH
#define PCLR_BENCH_CUDA_TIMING_CUH
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                          \
    do {                                                                                               \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

template <typename F> static double time_us(cudaStream_t s, int calls, F f) {
    cudaEvent_t a, b;
    std::vector<double> t;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) f();
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < 15; ++r) {
        float ms = 0;
        CK(cudaEventRecord(a, s));
        for (int i = 0; i < calls; ++i) f();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(1000.0 * ms / calls);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return t[t.size() / 2];
}
#endif
