/* pclreduce's own OpenCL kernel (a file pclreduce-gen wrote) launched through the raw API, to split
   the blocking read's cost between the kernel and the library's launch path: kernel + clFinish and
   kernel + read into pinned memory + clFinish, without and with an event per launch. Median of 300, us.
   Build: gcc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/cl_raw_pclr bench/latency/cl_raw_pclr.c -lOpenCL
   Run:   build/pclreduce-gen --backend opencl --type float --op sum --group 256 --unroll 8 --vector 4
            --variant shuffle > k.cl; build/cl_raw_pclr k.cl [platform]   (NVIDIA: platform 1) */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    cl_platform_id pl[4]; cl_uint np; cl_device_id dev; cl_int err;
    static char src[1 << 20];
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    const char *s = src;
    size_t len;
    if (!f) { fprintf(stderr, "usage: cl_raw_pclr KERNEL.cl [platform]\n"); return 2; }
    len = fread(src, 1, sizeof src - 1, f); src[len] = 0; fclose(f);
    clGetPlatformIDs(4, pl, &np);
    clGetDeviceIDs(pl[argc > 2 ? atoi(argv[2]) : 1], CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
    if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) { char log[8192]; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); printf("%s\n", log); return 1; }
    cl_kernel k = clCreateKernel(p, "pclr_reduce", &err);
    const cl_ulong most = 1ull << 22, zero64 = 0;
    float *h = malloc(most * 4); for (cl_ulong i = 0; i < most; ++i) h[i] = 1;
    unsigned zero = 0;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, most * 4, h, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem partials = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cl_mem counter = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &zero, &err);
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    float *pp = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    clSetKernelArg(k, 0, sizeof in, &in); clSetKernelArg(k, 1, 8, &zero64); clSetKernelArg(k, 3, sizeof out, &out);
    clSetKernelArg(k, 4, sizeof partials, &partials); clSetKernelArg(k, 5, sizeof counter, &counter);
    for (int lg = 12; lg <= 22; lg += 2) {
        const cl_ulong n = 1ull << lg;
        size_t groups = (size_t)((n + 8191) / 8192), l = 256, g;
        if (groups > 528) groups = 528;
        g = groups * l;
        clSetKernelArg(k, 2, 8, &n);
        for (int way = 0; way < 4; ++way) {
            double t[300];
            for (int it = -30; it < 300; ++it) {
                cl_event ev = NULL;
                double t0 = now();
                clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, way >= 2 ? &ev : NULL);
                if (ev) clReleaseEvent(ev);
                if (way % 2) clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pp, 0, NULL, NULL);
                clFinish(q);
                if (it >= 0) t[it] = now() - t0;
            }
            qsort(t, 300, sizeof t[0], cmp);
            static const char *names[] = {"kernel + clFinish", "kernel + read pinned + clFinish", "kernel (event) + clFinish",
                                          "kernel (event) + read pinned + clFinish"};
            printf("2^%-3d %4zu groups  %-42s median %6.2f us  p10 %6.2f  p90 %6.2f  (got %g)\n", lg, groups, names[way], t[150], t[30], t[270],
                   way % 2 ? pp[0] : 0.0);
        }
    }
    return 0;
}
