/* Where a blocking OpenCL reduce's time goes on NVIDIA: one small kernel + getting 4 bytes back,
   waited for in different ways. Median of 200 calls, microseconds.
   Build: gcc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/cl_latency bench/latency/cl_latency.c -lOpenCL;
   build/cl_latency [platform index] (results: bench/results/h100-nvidia-opencl/sync_methods.log). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static const char *src =
"__kernel void k(__global const float *in, uint n, __global float *out) {\n"
"  float s = 0; for (uint i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];\n"
"  if (get_global_id(0) == 0) out[0] = s; }\n";
int main(int argc, char **argv) {
    cl_platform_id pl[4]; cl_uint np; cl_device_id dev; cl_int err;
    int pi = argc > 1 ? atoi(argv[1]) : 1;
    clGetPlatformIDs(4, pl, &np);
    clGetDeviceIDs(pl[pi], CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    char name[256]; clGetDeviceInfo(dev, CL_DEVICE_NAME, 256, name, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    clBuildProgram(p, 1, &dev, "", NULL, NULL);
    cl_kernel k = clCreateKernel(p, "k", &err);
    const unsigned n = 1u << 18;
    float *h = calloc(n, 4);
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    float *pp = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    cl_mem hostout = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, 64, NULL, &err);
    float *hp = clEnqueueMapBuffer(q, hostout, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    clSetKernelArg(k, 0, sizeof in, &in); clSetKernelArg(k, 1, 4, &n);
    size_t g = 132 * 512, l = 256;
    printf("device: %s, n = 2^18 floats, one kernel of %zu work-items\n", name, g);
    for (int way = 0; way < 8; ++way) {
        double t[200]; float got = 0;
        for (int it = -20; it < 200; ++it) {
            cl_event ev = NULL;
            double t0 = now();
            cl_mem o = way == 6 || way == 7 ? hostout : out;
            clSetKernelArg(k, 2, sizeof o, &o);
            clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, way == 4 || way == 6 ? &ev : NULL);
            switch (way) {
            case 0: clFinish(q); break;                                                        /* the floor: kernel + finish */
            case 1: clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &got, 0, NULL, NULL); break;    /* blocking read */
            case 2: clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pp, 0, NULL, NULL); clFinish(q); got = pp[0]; break; /* today */
            case 3: { cl_int st = 1; clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pp, 0, NULL, &ev); clFlush(q);
                      do clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL); while (st > CL_COMPLETE);
                      got = pp[0]; break; }                                                     /* read + spin on its event */
            case 4: { cl_int st = 1; clFlush(q);
                      do clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL); while (st > CL_COMPLETE);
                      break; }                                                                  /* kernel only, spin */
            case 5: clWaitForEvents(0, NULL); clFinish(q); break;
            case 6: { cl_int st = 1; clFlush(q);                                               /* kernel writes host memory, spin */
                      do clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL); while (st > CL_COMPLETE);
                      got = hp[0]; break; }
            case 7: clFinish(q); got = hp[0]; break;                                            /* kernel writes host memory, finish */
            }
            if (ev) clReleaseEvent(ev);
            if (it >= 0) t[it] = now() - t0;
        }
        qsort(t, 200, sizeof t[0], cmp);
        static const char *names[] = {"kernel + clFinish", "kernel + blocking read", "kernel + read to pinned + clFinish (today)",
            "kernel + read to pinned, spin on its event", "kernel, spin on its event", "kernel + clFinish (again)",
            "kernel writes ALLOC_HOST_PTR, spin on event", "kernel writes ALLOC_HOST_PTR, clFinish"};
        printf("%-48s median %7.2f us  p10 %7.2f  p90 %7.2f  (got %g)\n", names[way], t[100], t[20], t[180], got);
    }
    return 0;
}
