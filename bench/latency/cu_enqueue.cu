// Host cost of one enqueue: a library reduce (pclr_cuda_reduce_async: lookup, plan, cuLaunchKernelEx with the
// dependent-launch attribute) against a <<<>>> launch of the read kernel, with and without that attribute.
// Host clock around batches of 400 enqueues (the GPU is behind: each call is timed before it runs), median of 30.
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -I. -o build/cu_enqueue bench/latency/cu_enqueue.cu -ldl
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "pclreduce.h"
#include "bench/read_limit.cuh"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
int main() {
    const unsigned long long most = 1ull << 22;
    void *in, *out;
    cudaStream_t s;
    pclr_cuda_context *pc = NULL;
    cudaFree(0);
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&in, most * 4);
    cudaMemset(in, 0, most * 4);
    cudaMalloc(&out, 64);
    if (pclr_cuda_create(NULL, &pc) != PCLR_OK) { printf("no pclreduce context\n"); return 1; }
    pclr_config c;
    memset(&c, 0, sizeof c);
    printf("%-8s %-52s %10s %10s\n", "n", "enqueue", "host us", "p90");
    for (int lg = 10; lg <= 22; lg += 4) {
        const unsigned long long n = 1ull << lg;
        for (int way = 0; way < 3; ++way) {
            double t[30];
            for (int rep = -3; rep < 30; ++rep) {
                cudaStreamSynchronize(s);
                auto t0 = std::chrono::steady_clock::now();
                for (int i = 0; i < 400; ++i) {
                    if (way == 0) pclr_cuda_reduce_async(pc, &c, (CUdeviceptr)(uintptr_t)in, 0, n, (CUdeviceptr)(uintptr_t)out, (CUstream)s);
                    else if (way == 1) read_limit_kernel<<<264, 256, 0, s>>>((const uint4 *)in, n / 4, (unsigned *)out);
                    else {
                        cudaLaunchConfig_t lc = {};
                        cudaLaunchAttribute at[1];
                        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
                        at[0].val.programmaticStreamSerializationAllowed = 1;
                        lc.gridDim = 264; lc.blockDim = 256; lc.stream = s; lc.attrs = at; lc.numAttrs = 1;
                        cudaLaunchKernelEx(&lc, read_limit_kernel, (const uint4 *)in, n / 4, (unsigned *)out);
                    }
                }
                const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 400;
                if (rep >= 0) t[rep] = us;
            }
            std::sort(t, t + 30);
            static const char *names[] = {"pclr_cuda_reduce_async (float sum)", "read kernel <<<264, 256>>>",
                                          "read kernel, cudaLaunchKernelEx + PDL attribute"};
            printf("2^%-6d %-52s %10.3f %10.3f\n", lg, names[way], t[15], t[27]);
        }
    }
    cudaStreamSynchronize(s);
    pclr_cuda_destroy(pc);
    return 0;
}
