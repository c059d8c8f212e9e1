/* pclreduce's blocking and async float sum on NVIDIA OpenCL and CUDA at a few sizes: median of 300 calls, us.
   Build: gcc -std=c99 -O2 -I/usr/local/cuda/include -o build/pclr_latency bench/latency/pclr_latency.c -ldl -lm
   (NVIDIA OpenCL on platform 1; results: bench/results/h100-nvidia-opencl/blocking_read.log). */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#define PCLREDUCE_CUDA
#include "../../pclreduce.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(void) {
    pclr_cl_context *cl = NULL; pclr_cuda_context *cu = NULL;
    const unsigned long long most = 1ull << 26;
    float *h = calloc(most, 4), r = 0; double t[300];
    cl_int err; cl_mem x; CUdeviceptr dx; pclr_config c; int lg, way, i;
    memset(&c, 0, sizeof c);
    for (i = 0; i < (int)most; ++i) h[i] = 1.0f;
    if (pclr_cl_create_default(1, 0, &cl) != PCLR_OK || pclr_cuda_create(NULL, &cu) != PCLR_OK) { printf("no contexts\n"); return 1; }
    x = pclr_cl_get_api(cl)->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, most * 4, h, &err);
    pclr_cuda_alloc(cu, most * 4, &dx); pclr_cuda_copy_to_device(cu, dx, h, most * 4);
    CUdeviceptr dout; pclr_cuda_alloc(cu, 64, &dout);
    cl_mem clout = pclr_cl_get_api(cl)->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem pin = pclr_cl_get_api(cl)->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    float *pp = pclr_cl_get_api(cl)->EnqueueMapBuffer(pclr_cl_get_queue(cl), pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    printf("%-8s %-40s %9s %9s %9s\n", "n", "call", "median", "p10", "p90");
    for (lg = 12; lg <= 26; lg += 2) {
        const uint64_t n = 1ull << lg;
        for (way = 0; way < 7; ++way) {
            for (i = -30; i < 300; ++i) {
                double t0 = now();
                if (way == 0) pclr_cl_reduce(cl, &c, x, 0, n, &r);
                else if (way == 1) { pclr_cl_reduce_async(cl, &c, x, 0, n, clout, 0, 0, NULL, NULL); pclr_cl_get_api(cl)->Finish(pclr_cl_get_queue(cl)); }
                else if (way == 2) pclr_cuda_reduce(cu, &c, dx, 0, n, NULL, &r);
                else if (way == 4) { const pclr_cl_api *a = pclr_cl_get_api(cl); pclr_cl_reduce_async(cl, &c, x, 0, n, clout, 0, 0, NULL, NULL);
                    a->EnqueueReadBuffer(pclr_cl_get_queue(cl), clout, CL_FALSE, 0, 4, pp, 0, NULL, NULL); a->Finish(pclr_cl_get_queue(cl)); r = pp[0]; }
                else if (way == 5) { const pclr_cl_api *a = pclr_cl_get_api(cl); pclr_cl_reduce_async(cl, &c, x, 0, n, clout, 0, 0, NULL, NULL);
                    a->EnqueueReadBuffer(pclr_cl_get_queue(cl), clout, CL_TRUE, 0, 4, &r, 0, NULL, NULL); }
                else if (way == 6) { const pclr_cl_api *a = pclr_cl_get_api(cl); pclr_cl_reduce_async(cl, &c, x, 0, n, clout, 0, 0, NULL, NULL);
                    a->Finish(pclr_cl_get_queue(cl)); a->EnqueueReadBuffer(pclr_cl_get_queue(cl), clout, CL_FALSE, 0, 4, pp, 0, NULL, NULL); a->Finish(pclr_cl_get_queue(cl)); r = pp[0]; }
                else { pclr_cuda_reduce_async(cu, &c, dx, 0, n, dout, NULL); pclr_cuda_copy_to_host(cu, &r, dout, 4); }
                if (i >= 0) t[i] = now() - t0;
            }
            qsort(t, 300, sizeof t[0], cmp);
            static const char *names[] = {"opencl blocking pclr_cl_reduce", "opencl async + clFinish", "cuda blocking pclr_cuda_reduce", "cuda async + copy_to_host",
                "opencl async + read to pinned + clFinish", "opencl async + blocking read", "opencl async + clFinish + read + clFinish"};
            printf("2^%-6d %-40s %9.2f %9.2f %9.2f  (%g)\n", lg, names[way], t[150], t[30], t[270], r);
        }
    }
    return 0;
}
