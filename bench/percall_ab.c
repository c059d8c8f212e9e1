/* percall_ab: the host time of one float sum per call, blocking and pipelined, on CUDA and on
   NVIDIA OpenCL, through the backend verbs that every version since 0.3 has (so that the same file
   builds against an older tree's headers: bench/percall_ab.sh builds it twice and runs the two
   binaries in turn, to show what a change costs per call).
     cuda-blocking      pclr_cuda_reduce into host memory
     cuda-pipelined     64 pclr_cuda_reduce_async back to back, one stream sync: the time / 64
     opencl-blocking    pclr_cl_reduce
     opencl-pipelined   64 pclr_cl_reduce_async back to back, one clFinish: the time / 64
   n = 2^10 .. 2^28 floats; each call reads the next of several slices of a 1 GiB buffer (20x the
   H100's L2) so that inputs come from memory; median of 15 repetitions (blocking: of 15 x 16 calls).
   CSV on stdout: way,log2n,us_per_call.
       cc -O2 -I<headers> -I/usr/local/cuda/include -o percall_ab bench/percall_ab.c -ldl -lm
       percall_ab [OpenCL platform substring, default NVIDIA] */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#define PCLREDUCE_CUDA
#include "pclreduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 15
#define PIPE 64
#define POOL_FLOATS ((uint64_t)1 << 28)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}
static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : "NVIDIA";
    pclr_cuda_context *cu = NULL;
    pclr_cl_context *cl = NULL;
    pclr_config c;
    CUdeviceptr dx = 0, dout = 0;
    cl_mem x = NULL, out = NULL;
    const pclr_cl_api *a = NULL;
    float *h, r = 0;
    uint64_t i;
    int p, lg, way;
    cl_int err;
    memset(&c, 0, sizeof c);
    if (!(h = (float *)malloc((size_t)(POOL_FLOATS * 4)))) return 1;
    for (i = 0; i < POOL_FLOATS; ++i) h[i] = (float)(i % 7);
    if (pclr_cuda_create(NULL, &cu) != PCLR_OK || pclr_cuda_alloc(cu, (size_t)(POOL_FLOATS * 4), &dx) != PCLR_OK ||
        pclr_cuda_alloc(cu, 64, &dout) != PCLR_OK || pclr_cuda_copy_to_device(cu, dx, h, (size_t)(POOL_FLOATS * 4)) != PCLR_OK) {
        fprintf(stderr, "percall_ab: no CUDA context\n");
        return 1;
    }
    for (p = 0; p < 8 && !cl; ++p) { /* the first platform whose name has `want` */
        if (pclr_cl_create_default(p, 0, &cl) != PCLR_OK) break;
        if (!strstr(pclr_cl_get_features(cl)->platform_name, want)) {
            pclr_cl_destroy(cl);
            cl = NULL;
        }
    }
    if (!cl) fprintf(stderr, "percall_ab: no OpenCL platform with \"%s\": CUDA only\n", want);
    if (cl) {
        a = pclr_cl_get_api(cl);
        x = a->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)(POOL_FLOATS * 4), h, &err);
        out = a->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_WRITE, 64, NULL, &err);
        if (!x || !out) cl = NULL;
    }
    printf("way,log2n,us_per_call\n");
    for (lg = 10; lg <= 28; lg += 2) {
        const uint64_t n = (uint64_t)1 << lg, slots = POOL_FLOATS / n > 16 ? 16 : POOL_FLOATS / n;
        for (way = 0; way < 4; ++way) {
            double t[REPS];
            uint64_t turn = 0;
            int rep, k;
            if (way >= 2 && !cl) continue;
            for (rep = -2; rep < REPS; ++rep) {
                const int calls = way % 2 ? PIPE : 16;
                const double t0 = now_us();
                for (k = 0; k < calls; ++k) {
                    const uint64_t off = (turn++ % slots) * n;
                    if (way == 0) pclr_cuda_reduce(cu, &c, dx, off, n, NULL, &r);
                    else if (way == 1) pclr_cuda_reduce_async(cu, &c, dx, off, n, dout, NULL);
                    else if (way == 2) pclr_cl_reduce(cl, &c, x, off, n, &r);
                    else pclr_cl_reduce_async(cl, &c, x, off, n, out, 0, 0, NULL, NULL);
                }
                if (way == 1) pclr_cuda_copy_to_host(cu, &r, dout, 4); /* (waits for the stream) */
                if (way == 3) a->Finish(pclr_cl_get_queue(cl));
                if (rep >= 0) t[rep] = (now_us() - t0) / calls;
            }
            qsort(t, REPS, sizeof t[0], cmp);
            printf("%s,%d,%.3f\n", way == 0 ? "cuda-blocking" : way == 1 ? "cuda-pipelined" : way == 2 ? "opencl-blocking" : "opencl-pipelined",
                   lg, t[REPS / 2]);
        }
    }
    fflush(stdout);
    return 0;
}
