/* Does a kernel's ticket atomic or membar.gl make the next read slow on NVIDIA OpenCL? kernel + clFinish vs
   kernel + read into pinned + clFinish, per kernel mode (bits: 1 membar.gl, 2 a ticket, 4 partials; mode 8:
   pclreduce's finish shape, the ticket's result broadcast through __local memory and a barrier, then the
   last group folds the partials), at GROUPS groups of 256 (default 264). Median of 300, us.
   Build: gcc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/cl_atomics bench/latency/cl_atomics.c -lOpenCL;
   run: build/cl_atomics [GROUPS] (NVIDIA OpenCL on platform 1; results: bench/results/h100-nvidia-opencl/
   read_after_kernel.log, modes 0-7 at 264 groups, and read_after_finish_shapes.log, modes 6-9 at 32 and 264
   groups from a copy of this program whose mode 9 repeated mode 8).
   With a second argument, a list of microseconds (build/cl_atomics 264 0,2,5,10,20,40), only modes 0 and 8
   run, once per value, with group 0 spinning that long on %globaltimer first, and a third way is timed: wait
   for the kernel's event on the host, then the read (read_after_spin.log). A third argument (any) adds four
   other ways to bring the result to the host: mapping the result buffer, the kernel writing a
   CL_MEM_ALLOC_HOST_PTR buffer that is then mapped, the read on a second queue waiting on the kernel's
   event, and a clFlush between kernel and read (result_paths.log). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static const char *src =
"__kernel void k(__global const float *in, uint n, __global float *out, __global uint *ticket, uint mode, __global float *partials,\n"
"                ulong spin_ns) {\n"
"  if (spin_ns && get_global_id(0) == 0) { ulong t0, t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
"    do asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); while (t - t0 < spin_ns); }\n"
"  float s = 0; for (uint i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];\n"
"  __local uint is_last;\n"
"  if (mode & 8) {\n"
"    if (get_local_id(0) == 0) { partials[get_group_id(0)] = s; asm volatile(\"membar.gl;\"); is_last = atomic_inc(ticket) == get_num_groups(0) - 1; }\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    if (is_last) { float a = 0; for (uint j = get_local_id(0); j < get_num_groups(0); j += get_local_size(0)) a += partials[j];\n"
"      if (get_local_id(0) == 0) { out[0] = a; ticket[0] = 0; } }\n"
"    return; }\n"
"  if (get_local_id(0) != 0) return;\n"
"  if (mode & 4) partials[get_group_id(0)] = s;\n"
"  if (mode & 1) asm volatile(\"membar.gl;\");\n"
"  if (mode & 2) { if (atomic_inc(ticket) == get_num_groups(0) - 1) { out[0] = s; ticket[0] = 0; } }\n"
"  else if (get_group_id(0) == 0) out[0] = s; }\n";
int main(int argc, char **argv) {
    cl_platform_id pl[4]; cl_uint np; cl_device_id dev; cl_int err;
    clGetPlatformIDs(4, pl, &np);
    clGetDeviceIDs(pl[1], CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) { char log[4096]; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 4096, log, NULL); printf("%s\n", log); return 1; }
    cl_kernel k = clCreateKernel(p, "k", &err);
    const unsigned n = 1u << 18;
    float *h = malloc(n * 4); for (unsigned i = 0; i < n; ++i) h[i] = 1;
    unsigned zero = 0;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem ticket = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &zero, &err);
    cl_mem partials = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    cl_mem hostbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    static const char *ways[] = {"kernel + finish", "kernel + read pinned + finish", "kernel, wait event, read, finish",
                                 "kernel + map result + finish", "kernel into host-ptr buffer + map", "read on queue 2 after event",
                                 "kernel + flush + read + finish"};
    float *pp = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    clSetKernelArg(k, 0, sizeof in, &in); clSetKernelArg(k, 1, 4, &n); clSetKernelArg(k, 2, sizeof out, &out);
    clSetKernelArg(k, 3, sizeof ticket, &ticket); clSetKernelArg(k, 5, sizeof partials, &partials);
    size_t g = (argc > 1 ? (size_t)atoi(argv[1]) : 264) * 256, l = 256;
    const char *spins = argc > 2 ? argv[2] : "0";
    for (unsigned mode = 0; mode <= 8; mode += argc > 2 ? 8 : 1)
    for (const char *sp = spins; *sp; sp += strcspn(sp, ",") + (sp[strcspn(sp, ",")] == ',')) {
        cl_ulong spin_ns = (cl_ulong)(atof(sp) * 1000);
        clSetKernelArg(k, 4, 4, &mode);
        clSetKernelArg(k, 6, sizeof spin_ns, &spin_ns);
        if (argc > 2) printf("-- spin %.1f us\n", spin_ns / 1000.0);
        for (int way = 0; way < (argc > 3 ? 7 : argc > 2 ? 3 : 2); ++way) {
            double t[300];
            float got = 0;
            clSetKernelArg(k, 2, sizeof out, way == 4 ? &hostbuf : &out);
            for (int it = -30; it < 300; ++it) {
                double t0 = now();
                cl_event done;
                const int event = way == 2 || way == 5; /* an event costs 1.5-2 us */
                clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, event ? &done : NULL);
                if (way == 2) clWaitForEvents(1, &done);
                if (way == 6) clFlush(q);
                if (way == 1 || way == 2 || way == 6) clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pp, 0, NULL, NULL);
                if (way == 5) {
                    clEnqueueReadBuffer(q2, out, CL_FALSE, 0, 4, pp, 1, &done, NULL);
                    clFlush(q);
                    clFinish(q2);
                }
                if (way == 3 || way == 4) {
                    float *m = clEnqueueMapBuffer(q, way == 4 ? hostbuf : out, CL_FALSE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err);
                    clFinish(q);
                    got = m[0];
                    clEnqueueUnmapMemObject(q, way == 4 ? hostbuf : out, m, 0, NULL, NULL);
                } else {
                    clFinish(q);
                    got = pp[0];
                }
                if (event) clReleaseEvent(done);
                if (it >= 0) t[it] = now() - t0;
            }
            clFinish(q);
            qsort(t, 300, sizeof t[0], cmp);
            printf("mode %u (%s%s%s%s) %-34s median %6.2f us p10 %6.2f p90 %6.2f (got %g)\n", mode, mode & 8 ? "finish shape" : "",
                   mode & 4 ? "partials " : "", mode & 1 ? "membar.gl " : "",
                   mode & 2 ? "ticket" : "", ways[way], t[150], t[30], t[270], got);
        }
    }
    return 0;
}
