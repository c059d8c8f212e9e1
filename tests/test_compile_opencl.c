/* Every generated OpenCL configuration compiles (clBuildProgram with the
   options pclr_kernel_options gives), and the macro form (PCLR_SOURCE_CL)
   builds and gives the same results as the generator's source. Raw OpenCL on
   purpose: this checks the core's text independently of pclreduce_cl.h.
   Device: PCLR_CL_PLATFORM / PCLR_CL_DEVICE (indices), default platform 0
   device 0. Knob combinations are sampled so every value of every knob meets
   every type/op pair; PCLR_TEST_FULL=1 compiles the whole cross product. */
#define CL_TARGET_OPENCL_VERSION 120
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_MACRO_FORM /* PCLR_SOURCE_CL / PCLR_SOURCE_CUDA */
#include "../pclreduce.h"
#include "pclr_test.h"

#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cl_context g_ctx;
static cl_device_id g_dev;
static cl_command_queue g_queue;
static int g_nvidia, g_cl20;

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v ? atoi(v) : dflt;
}

static int open_device(void) {
    cl_platform_id plats[16];
    cl_device_id devs[16];
    cl_uint np = 0, nd = 0;
    cl_int err;
    char name[256] = "", ver[128] = "";
    int pi = env_int("PCLR_CL_PLATFORM", 0), di = env_int("PCLR_CL_DEVICE", 0);
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || (cl_uint)pi >= np) return 0;
    if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS || (cl_uint)di >= nd) return 0;
    g_dev = devs[di];
    clGetPlatformInfo(plats[pi], CL_PLATFORM_NAME, sizeof name, name, NULL);
    g_nvidia = strstr(name, "NVIDIA") != NULL;
    clGetDeviceInfo(g_dev, CL_DEVICE_OPENCL_C_VERSION, sizeof ver, ver, NULL);
    g_cl20 = g_nvidia || strncmp(ver, "OpenCL C 2", 10) == 0 || strncmp(ver, "OpenCL C 3", 10) == 0;
    printf("device: %s / ", name);
    clGetDeviceInfo(g_dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("%s (%s)\n", name, ver);
    g_ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 0;
    g_queue = clCreateCommandQueue(g_ctx, g_dev, 0, &err);
    return err == CL_SUCCESS;
}

static int device_has_fp64(void) {
    char ext[4096] = "";
    clGetDeviceInfo(g_dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    return strstr(ext, "cl_khr_fp64") != NULL;
}

/* Builds `src`; on failure prints the log. Returns the program or NULL. */
static cl_program build(const char *src, const char *options) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(g_ctx, 1, &src, NULL, &err);
    if (err != CL_SUCCESS) return NULL;
    if (clBuildProgram(p, 1, &g_dev, options, NULL, NULL) != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("build log:\n%s\n", log);
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static int build_config(const pclr_config *cfg) {
    size_t size = 0;
    char *src, opts[256];
    cl_program p;
    if (pclr_kernel_source(cfg, NULL, 0, &size) != PCLR_OK || !(src = (char *)malloc(size))) return 0;
    pclr_kernel_source(cfg, src, size, NULL);
    pclr_kernel_options(cfg, opts, sizeof opts, NULL);
    p = build(src, opts);
    free(src);
    if (!p) return 0;
    clReleaseProgram(p);
    return 1;
}

static void test_compile_all(void) {
    static const int waves[] = {32, 64}, groups[] = {32, 64, 128, 256, 512, 1024},
                     unrolls[] = {1, 2, 4, 8, 16, 32, 64, 128}, vectors[] = {1, 2, 4};
    int full = env_int("PCLR_TEST_FULL", 0), fp64 = device_has_fp64(), t, o, v, f, k = 0, built = 0;
    size_t maxg = 0;
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxg, &maxg, NULL);
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t)
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
            for (v = PCLR_VARIANT_NAIVE; v < PCLR_VARIANT_COUNT_; ++v)
                for (f = PCLR_FINISH_LAST_GROUP; f < PCLR_FINISH_COUNT_; ++f) {
                    int reps = full ? 48 : 2, r;
                    if (v == PCLR_VARIANT_SHUFFLE && !g_nvidia) continue;    /* inline PTX */
                    if (v == PCLR_VARIANT_COLLECTIVE && !g_cl20) continue;   /* OpenCL 2.0 */
                    if (t == PCLR_DOUBLE && !fp64) continue;
                    if (f == PCLR_FINISH_ATOMIC && t != PCLR_UINT && t != PCLR_INT) continue;
                    for (r = 0; r < reps; ++r, ++k) {
                        pclr_config c;
                        memset(&c, 0, sizeof c);
                        c.backend = PCLR_OPENCL;
                        c.type = (pclr_type)t;
                        c.op = (pclr_op)o;
                        c.variant = (pclr_variant)v;
                        c.finish = (pclr_finish)f;
                        /* cycle the knobs with co-prime periods so every value meets every pair */
                        c.wave_width = v == PCLR_VARIANT_SHUFFLE ? 32 : waves[k % 2];
                        c.group_size = groups[(k / 2) % 6];
                        if ((size_t)c.group_size > maxg) c.group_size = (int)maxg;
                        c.unroll = unrolls[k % 8];
                        c.vector_width = vectors[k % 3];
                        c.stride = (k / 3) % 2 ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
                        if (!CHECK(build_config(&c), "build %s %s %s %s wave %d group %d unroll %d vector %d %s",
                                   pclr_type_name(c.type), pclr_op_name(c.op), pclr_variant_name(c.variant),
                                   pclr_finish_name(c.finish), c.wave_width, c.group_size, c.unroll, c.vector_width,
                                   pclr_stride_name(c.stride)))
                            continue;
                        ++built;
                    }
                }
    printf("compiled %d OpenCL configurations\n", built);
}

/* Runs the single kernel of `prog` over `in` with a grid from the planner for
   cfg (which must describe the same kernel), returns the result bytes. */
static int run_kernel(cl_program prog, const pclr_config *cfg, cl_mem in, uint64_t offset, uint64_t n, void *result) {
    pclr_device_facts facts;
    pclr_launch launch;
    cl_uint units = 1;
    size_t maxg = 0, global, local;
    cl_int err;
    cl_kernel k = clCreateKernel(prog, PCLR_KERNEL_NAME, &err);
    cl_mem out, partials, counter;
    cl_ulong off = offset, count = n;
    cl_uint zero = 0;
    size_t ts = pclr_type_size(cfg->type);
    unsigned char ident[8];
    int ok;
    if (err != CL_SUCCESS) return 0;
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxg, &maxg, NULL);
    facts.compute_units = units;
    facts.max_group_size = (uint32_t)maxg;
    if (pclr_plan(cfg, &facts, n, &launch) != PCLR_OK) { clReleaseKernel(k); return 0; }
    pclr_identity(cfg->type, cfg->op, ident);
    out = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE, ts, NULL, &err);
    partials = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8 * (size_t)launch.groups, NULL, &err);
    partials = partials ? partials : clCreateBuffer(g_ctx, CL_MEM_READ_WRITE, 8 * (size_t)launch.groups, NULL, &err);
    counter = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    clSetKernelArg(k, 0, sizeof in, &in);
    clSetKernelArg(k, 1, sizeof off, &off);
    clSetKernelArg(k, 2, sizeof count, &count);
    clSetKernelArg(k, 3, sizeof out, &out);
    clSetKernelArg(k, 4, sizeof partials, &partials);
    clSetKernelArg(k, 5, sizeof counter, &counter);
    local = launch.group_size;
    global = (size_t)launch.groups * local;
    ok = clEnqueueNDRangeKernel(g_queue, k, 1, NULL, &global, &local, 0, NULL, NULL) == CL_SUCCESS &&
         clEnqueueReadBuffer(g_queue, out, CL_TRUE, 0, ts, result, 0, NULL, NULL) == CL_SUCCESS;
    clReleaseMemObject(out);
    clReleaseMemObject(partials);
    clReleaseMemObject(counter);
    clReleaseKernel(k);
    return ok;
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings" /* the macro form's literal: see pclreduce.h */
#endif
static const struct { pclr_type type; pclr_op op; int unroll; const char *src; } g_macros[] = {
    {PCLR_UINT, PCLR_SUM, 8, PCLR_SOURCE_CL(uint, sum, 32, 8)},
    {PCLR_UINT, PCLR_MIN, 4, PCLR_SOURCE_CL(uint, min, 32, 4)},
    {PCLR_UINT, PCLR_MAX, 1, PCLR_SOURCE_CL(uint, max, 32, 1)},
    {PCLR_INT, PCLR_SUM, 16, PCLR_SOURCE_CL(int, sum, 32, 16)},
    {PCLR_INT, PCLR_MIN, 2, PCLR_SOURCE_CL(int, min, 64, 2)},
    {PCLR_INT, PCLR_MAX, 8, PCLR_SOURCE_CL(int, max, 32, 8)},
    {PCLR_FLOAT, PCLR_SUM, 8, PCLR_SOURCE_CL(float, sum, 32, 8)},
    {PCLR_FLOAT, PCLR_MIN, 4, PCLR_SOURCE_CL(float, min, 64, 4)},
    {PCLR_FLOAT, PCLR_MAX, 32, PCLR_SOURCE_CL(float, max, 32, 32)},
    {PCLR_DOUBLE, PCLR_SUM, 4, PCLR_SOURCE_CL(double, sum, 32, 4)},
    {PCLR_DOUBLE, PCLR_MIN, 8, PCLR_SOURCE_CL(double, min, 32, 8)},
    {PCLR_DOUBLE, PCLR_MAX, 2, PCLR_SOURCE_CL(double, max, 64, 2)},
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void test_macro_form(uint64_t seed) {
    const uint64_t n = 1000003, offset = 3;
    uint64_t st = seed, i;
    size_t m;
    int fp64 = device_has_fp64();
    unsigned char *host = (unsigned char *)malloc((size_t)(n + offset) * 8);
    if (!CHECK(host != NULL, "malloc")) return;
    for (m = 0; m < sizeof g_macros / sizeof g_macros[0]; ++m) {
        pclr_config c;
        size_t ts = pclr_type_size(g_macros[m].type), size = 0;
        unsigned char want[8], got_macro[8], got_gen[8];
        char *gen_src;
        cl_program pm, pg;
        cl_mem in;
        cl_int err;
        if (g_macros[m].type == PCLR_DOUBLE && !fp64) continue;
        for (i = 0; i < n + offset; ++i) {
            uint64_t r = pclr_test_rand(&st);
            if (g_macros[m].type == PCLR_FLOAT) { float x = (float)((double)(r >> 40) / 16777216.0 - 0.5); memcpy(host + i * 4, &x, 4); }
            else if (g_macros[m].type == PCLR_DOUBLE) { double x = (double)(r >> 11) / 9007199254740992.0 - 0.5; memcpy(host + i * 8, &x, 8); }
            else { uint32_t x = (uint32_t)r; memcpy(host + i * 4, &x, 4); }
        }
        memset(&c, 0, sizeof c);
        c.backend = PCLR_OPENCL;
        c.type = g_macros[m].type;
        c.op = g_macros[m].op;
        c.unroll = g_macros[m].unroll;
        /* the macro's wave width does not change an OpenCL tree kernel's results */
        pclr_config_resolve(&c, &c, NULL);
        pclr_kernel_source(&c, NULL, 0, &size);
        gen_src = (char *)malloc(size);
        if (!gen_src) continue;
        pclr_kernel_source(&c, gen_src, size, NULL);
        pm = build(g_macros[m].src, "");
        pg = build(gen_src, "");
        free(gen_src);
        in = clCreateBuffer(g_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)(n + offset) * ts, host, &err);
        pclr_cpu_reduce(c.type, c.op, host + offset * ts, n, want);
        if (CHECK(pm && pg && in, "macro %zu builds", m) && CHECK(run_kernel(pm, &c, in, offset, n, got_macro) &&
                                                                      run_kernel(pg, &c, in, offset, n, got_gen),
                                                                  "macro %zu runs", m)) {
            CHECK(memcmp(got_macro, got_gen, ts) == 0, "macro form %s %s equals the generator's result bit for bit",
                  pclr_type_name(c.type), pclr_op_name(c.op));
            if (c.op != PCLR_SUM || c.type == PCLR_UINT || c.type == PCLR_INT) {
                CHECK(memcmp(got_macro, want, ts) == 0, "macro form %s %s equals the CPU reference", pclr_type_name(c.type),
                      pclr_op_name(c.op));
            } else {
                double a, b;
                if (c.type == PCLR_FLOAT) { float fa, fb; memcpy(&fa, got_macro, 4); memcpy(&fb, want, 4); a = fa; b = fb; }
                else { memcpy(&a, got_macro, 8); memcpy(&b, want, 8); }
                CHECK(fabs(a - b) <= 1e-4 * sqrt((double)n), "macro form %s sum %g vs reference %g", pclr_type_name(c.type), a, b);
            }
        }
        if (pm) clReleaseProgram(pm);
        if (pg) clReleaseProgram(pg);
        if (in) clReleaseMemObject(in);
    }
    free(host);
}

int main(void) {
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("test_compile_opencl: seed %llu\n", (unsigned long long)seed);
    if (!open_device()) {
        CHECK(0, "no OpenCL device at PCLR_CL_PLATFORM/PCLR_CL_DEVICE (install pocl-opencl-icd)");
        return pclr_test_summary("test_compile_opencl");
    }
    test_compile_all();
    test_macro_form(seed);
    clReleaseCommandQueue(g_queue);
    clReleaseContext(g_ctx);
    return pclr_test_summary("test_compile_opencl");
}
