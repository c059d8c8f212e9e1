/* Where one OpenCL reduce's time goes (host clock, per call, median of
   batches): the blocking call, the async enqueue alone, and each phase the
   library's call is made of, measured one by one on the same queue, so a
   slow phase shows against CUDA's (bench/midsize_cuda.cu prints CUDA's
   blocking call at the same sizes).
   build: gcc -std=c99 -O2 -I. -o build/percall_cl bench/percall_cl.c -lOpenCL -lm
   usage: build/percall_cl [platform substring, default NVIDIA] */
#define _POSIX_C_SOURCE 199309L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "../pclreduce.h"
#include "../pclreduce_cl.h"
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#define REPS 9
#define FAIL(what) do { fprintf(stderr, "percall_cl: %s failed (line %d)\n", what, __LINE__); exit(1); } while (0)

static const char *read_src =
    "__kernel void readk(__global const uint4 *in, ulong nvec, __global uint *out) {\n"
    "    ulong stride = get_global_size(0), i = get_global_id(0); uint acc = 0;\n"
    "    for (; i < nvec; i += stride) { uint4 a = in[i]; acc += a.x ^ a.y ^ a.z ^ a.w; }\n"
    "    if (acc == 0x9e3779b9u) *out = acc;\n}\n"
    "__kernel void write1(__global float *out, float v) { if (get_global_id(0) == 0) out[0] = v; }\n";

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : "NVIDIA";
    cl_platform_id plats[8];
    cl_uint np = 0, p;
    int pi = -1;
    pclr_cl_context *pc = NULL;
    pclr_cl_desc desc;
    cl_context cx;
    cl_command_queue q;
    cl_int err;
    cl_mem pool, out, pinned_buf, hostw;
    cl_program prog;
    cl_kernel readk, write1;
    float *pinned, *hostw_ptr;
    size_t pool_bytes = (size_t)256 << 20;
    pclr_config cfg;
    int logs[] = {10, 12, 14, 16, 18, 20, 22, 24, 26}, li;
    clGetPlatformIDs(8, plats, &np);
    for (p = 0; p < np; ++p) {
        char name[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, want)) { pi = (int)p; printf("# platform %u: %s\n", p, name); break; }
    }
    if (pi < 0) { printf("# no platform matching %s\n", want); return 0; }
    memset(&desc, 0, sizeof desc);
    desc.platform_number = pi + 1; /* platform pi, its first device */
    desc.device_number = 1;
    if (pclr_cl_create_default_desc(&desc, -1, -1, &pc) != PCLR_OK) FAIL("pclr_cl_create_default_desc");
    cx = pclr_cl_get_cl_context(pc);
    q = pclr_cl_get_queue(pc);
    printf("# device %s, driver %s\n", pclr_cl_get_features(pc)->device_name, pclr_cl_get_features(pc)->driver_version);
    pool = clCreateBuffer(cx, CL_MEM_READ_WRITE, pool_bytes, NULL, &err);
    if (err) FAIL("pool");
    {
        float *h = (float *)malloc(pool_bytes);
        size_t i;
        for (i = 0; i < pool_bytes / 4; ++i) h[i] = (float)((i * 2654435761u >> 13) & 3);
        if (clEnqueueWriteBuffer(q, pool, CL_TRUE, 0, pool_bytes, h, 0, NULL, NULL)) FAIL("write");
        free(h);
    }
    out = clCreateBuffer(cx, CL_MEM_READ_WRITE, 64, NULL, &err);
    pinned_buf = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    pinned = (float *)clEnqueueMapBuffer(q, pinned_buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    if (err) FAIL("map pinned");
    hostw = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    hostw_ptr = (float *)clEnqueueMapBuffer(q, hostw, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    if (err) FAIL("map hostw");
    prog = clCreateProgramWithSource(cx, 1, &read_src, NULL, &err);
    {
        cl_device_id dev;
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
        if (clBuildProgram(prog, 1, &dev, "", NULL, NULL)) FAIL("build");
    }
    readk = clCreateKernel(prog, "readk", &err);
    write1 = clCreateKernel(prog, "write1", &err);
    memset(&cfg, 0, sizeof cfg);
    cfg.type = PCLR_FLOAT;
    cfg.op = PCLR_SUM;
    if (pclr_cl_prepare(pc, &cfg) != PCLR_OK) FAIL("prepare");

    printf("%-44s", "phase (us per call) \\ log2 n");
    for (li = 0; li < (int)(sizeof logs / sizeof logs[0]); ++li) printf(" %7d", logs[li]);
    printf("\n");
    /* Each row: for each size, REPS batches of `batch` calls, median per call. */
#define ROW(NAME, BODY)                                                                                   \
    do {                                                                                                  \
        printf("%-44s", NAME);                                                                            \
        for (li = 0; li < (int)(sizeof logs / sizeof logs[0]); ++li) {                                    \
            const uint64_t n = (uint64_t)1 << logs[li];                                                   \
            const size_t bytes = (size_t)n * 4;                                                           \
            const int slices = (int)(pool_bytes / bytes > 4096 ? 4096 : pool_bytes / bytes);              \
            const int batch = n >= ((uint64_t)1 << 24) ? 20 : 200;                                        \
            double t[REPS + 1];                                                                           \
            int r, i, s = 0;                                                                              \
            (void)slices;                                                                                 \
            for (r = 0; r <= REPS; ++r) {                                                                 \
                double t0;                                                                                \
                clFinish(q);                                                                              \
                t0 = now();                                                                               \
                for (i = 0; i < batch; ++i) {                                                             \
                    BODY;                                                                                 \
                    s = (s + 1) % slices;                                                                 \
                }                                                                                         \
                t[r] = 1e6 * (now() - t0) / batch;                                                        \
            }                                                                                             \
            qsort(t + 1, REPS, sizeof t[0], cmp);                                                         \
            printf(" %7.2f", t[1 + REPS / 2]);                                                            \
            fflush(stdout);                                                                               \
        }                                                                                                 \
        printf("\n");                                                                                     \
    } while (0)
    {
        float res;
        cl_ulong nvec;
        size_t g, l = 256;
        cl_event ev;
        ROW("pclr_cl_reduce (blocking)", if (pclr_cl_reduce(pc, &cfg, pool, (uint64_t)s * n, n, &res)) FAIL("reduce"));
        ROW("pclr_cl_reduce_async + clFinish", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clFinish(q));
        ROW("async + blocking read (pageable)", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &res, 0, NULL, NULL));
        ROW("async + read to pinned + clFinish", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pinned, 0, NULL, NULL); clFinish(q));
        ROW("async + blocking read to pinned", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, pinned, 0, NULL, NULL));
        ROW("async + read pageable, event, wait", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, &res, 0, NULL, &ev); clWaitForEvents(1, &ev); clReleaseEvent(ev));
        ROW("async + read pinned, event, wait", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pinned, 0, NULL, &ev); clWaitForEvents(1, &ev); clReleaseEvent(ev));
        ROW("async, enqueue only (host, no wait)", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async"));
        ROW("read kernel + clFinish", nvec = n / 4; g = (size_t)(nvec < 132 * 8 * 256 ? (nvec + 255) / 256 * 256 : 132 * 8 * 256);
            clSetKernelArg(readk, 0, sizeof pool, &pool); /* slice 0 each time: the launch's cost */
            clSetKernelArg(readk, 1, sizeof nvec, &nvec); clSetKernelArg(readk, 2, sizeof out, &out);
            clEnqueueNDRangeKernel(q, readk, 1, NULL, &g, &l, 0, NULL, NULL); clFinish(q));
        ROW("read kernel, enqueue only (host)", nvec = n / 4; g = (size_t)(nvec < 132 * 8 * 256 ? (nvec + 255) / 256 * 256 : 132 * 8 * 256);
            clSetKernelArg(readk, 0, sizeof pool, &pool);
            clSetKernelArg(readk, 1, sizeof nvec, &nvec); clSetKernelArg(readk, 2, sizeof out, &out);
            clEnqueueNDRangeKernel(q, readk, 1, NULL, &g, &l, 0, NULL, NULL));
        ROW("pclr async pipelined (batch, 1 finish)", if (pclr_cl_reduce_async(pc, &cfg, pool, (uint64_t)s * n, n, out, 0, 0, NULL, NULL)) FAIL("async");
            if (i == batch - 1) clFinish(q));
        ROW("read kernel pipelined (batch, 1 finish)", nvec = n / 4; g = (size_t)(nvec < 132 * 8 * 256 ? (nvec + 255) / 256 * 256 : 132 * 8 * 256);
            clSetKernelArg(readk, 0, sizeof pool, &pool);
            clSetKernelArg(readk, 1, sizeof nvec, &nvec); clSetKernelArg(readk, 2, sizeof out, &out);
            clEnqueueNDRangeKernel(q, readk, 1, NULL, &g, &l, 0, NULL, NULL); if (i == batch - 1) clFinish(q));
        ROW("6 x clSetKernelArg", clSetKernelArg(readk, 0, sizeof pool, &pool); clSetKernelArg(readk, 1, 8, &n);
            clSetKernelArg(readk, 2, sizeof out, &out); clSetKernelArg(readk, 0, sizeof pool, &pool); clSetKernelArg(readk, 1, 8, &n);
            clSetKernelArg(readk, 2, sizeof out, &out));
        ROW("3 x clGetMemObjectInfo", { size_t sz; cl_mem_flags fl; clGetMemObjectInfo(pool, CL_MEM_SIZE, sizeof sz, &sz, NULL);
            clGetMemObjectInfo(pool, CL_MEM_FLAGS, sizeof fl, &fl, NULL); clGetMemObjectInfo(out, CL_MEM_SIZE, sizeof sz, &sz, NULL); });
        ROW("clFinish (empty queue)", clFinish(q));
        ROW("blocking read 4 B pageable (idle)", clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &res, 0, NULL, NULL));
        ROW("read 4 B to pinned + clFinish (idle)", clEnqueueReadBuffer(q, out, CL_FALSE, 0, 4, pinned, 0, NULL, NULL); clFinish(q));
        ROW("tiny kernel + clFinish", g = 32; l = 32; { float v = 1; clSetKernelArg(write1, 0, sizeof out, &out); clSetKernelArg(write1, 1, 4, &v); }
            clEnqueueNDRangeKernel(q, write1, 1, NULL, &g, &l, 0, NULL, NULL); clFinish(q); l = 256);
        ROW("tiny kernel + event wait", g = 32; l = 32; { float v = 1; clSetKernelArg(write1, 0, sizeof out, &out); clSetKernelArg(write1, 1, 4, &v); }
            clEnqueueNDRangeKernel(q, write1, 1, NULL, &g, &l, 0, NULL, &ev); clWaitForEvents(1, &ev); clReleaseEvent(ev); l = 256);
        ROW("tiny kernel into ALLOC_HOST_PTR + finish", g = 32; l = 32; { float v = (float)i; clSetKernelArg(write1, 0, sizeof hostw, &hostw); clSetKernelArg(write1, 1, 4, &v); }
            clEnqueueNDRangeKernel(q, write1, 1, NULL, &g, &l, 0, NULL, NULL); clFinish(q); l = 256;
            if (*(volatile float *)hostw_ptr != (float)i && r == 0 && li == 0 && i < 2) printf("[host ptr stale: %g != %d] ", *hostw_ptr, i));
        ROW("pclr_cl_reduce (blocking, again)", if (pclr_cl_reduce(pc, &cfg, pool, (uint64_t)s * n, n, &res)) FAIL("reduce"));
    }
    clEnqueueUnmapMemObject(q, pinned_buf, pinned, 0, NULL, NULL);
    clEnqueueUnmapMemObject(q, hostw, hostw_ptr, 0, NULL, NULL);
    clFinish(q);
    clReleaseKernel(readk);
    clReleaseKernel(write1);
    clReleaseProgram(prog);
    clReleaseMemObject(pool);
    clReleaseMemObject(out);
    clReleaseMemObject(pinned_buf);
    clReleaseMemObject(hostw);
    pclr_cl_destroy(pc);
    return 0;
}
