/* exact-sum probe: probe KIND LOG2N ACC [unroll vector group gpu] -> median kernel us of 50 launches (events), rotating 4 buffers */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "pclreduce.h"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <algorithm>
#include <vector>
static uint64_t sm(uint64_t *s) { uint64_t z = (*s += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
int main(int argc, char **argv) {
    const char *kind = argv[1]; int lg = atoi(argv[2]); const char *acc = argv[3];
    uint64_t n = 1ull << lg; size_t bytes = n * 4;
    int nb = bytes >= (512u << 20) ? 1 : 4;
    std::vector<float> h(n);
    uint64_t s = 42;
    for (uint64_t i = 0; i < n; ++i) {
        if (!strcmp(kind, "grid")) h[i] = (float)(sm(&s) >> 40) * (1.0f / 16777216.0f);
        else if (!strcmp(kind, "pos")) h[i] = (float)((double)(sm(&s) >> 11) * ldexp(1.0, -53));
        else h[i] = (float)(2 * ((double)(sm(&s) >> 11) * ldexp(1.0, -53)) - 1);
    }
    cudaFree(0);
    pclr_cuda_desc desc; memset(&desc, 0, sizeof desc); desc.device_number = 1;
    pclr_cuda_context *pc; if (pclr_cuda_create(&desc, &pc) != PCLR_OK) { printf("create failed\n"); return 1; }
    std::vector<float *> d(nb); for (int b = 0; b < nb; ++b) { cudaMalloc(&d[b], bytes); cudaMemcpy(d[b], h.data(), bytes, cudaMemcpyHostToDevice); }
    float *out; cudaMalloc(&out, 64);
    pclr_config c; memset(&c, 0, sizeof c); c.type = PCLR_FLOAT; c.op = PCLR_SUM; c.backend = PCLR_CUDA;
    pclr_parse_accumulate(acc, &c.accumulate);
    if (argc > 4) c.unroll = atoi(argv[4]);
    if (argc > 5) c.vector_width = atoi(argv[5]);
    if (argc > 6) c.group_size = atoi(argv[6]);
    if (argc > 7) c.groups_per_unit = atoi(argv[7]);
    pclr_config rc; if (pclr_cuda_resolve(pc, &c, &rc) != PCLR_OK) { printf("resolve: %s\n", pclr_cuda_last_error(pc)); return 1; }
    char dsc[512]; pclr_config_describe(&rc, dsc, sizeof dsc);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> t;
    for (int r = 0; r < 60; ++r) {
        cudaEventRecord(e0, 0);
        pclr_result pr = pclr_cuda_reduce_async(pc, &c, (CUdeviceptr)(uintptr_t)d[r % nb], 0, n, (CUdeviceptr)(uintptr_t)out, 0);
        cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        if (pr != PCLR_OK) { printf("reduce: %s\n", pclr_cuda_last_error(pc)); return 1; }
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 10) t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    float res; cudaMemcpy(&res, out, 4, cudaMemcpyDeviceToHost);
    printf("%-6s 2^%d %-6s %8.2f us  (%.1f GB/s) res %a | %s\n", kind, lg, acc, t[t.size() / 2], bytes / (t[t.size() / 2] * 1e3), res, dsc);
    return 0;
}
