/* Builds the sources fuzz_generator dumped (PCLR_FUZZ_DUMP=dir), for
   tests/fuzz/compile_corpus.sh:
     cl_build FILE.cfg...
   FILE.cfg holds a resolved config (11 ints, then the accumulator: 12). OpenCL dialect: FILE.cl is
   built with clBuildProgram (options from FILE.opts) on platform 0 device 0
   (PCLR_CL_PLATFORM / PCLR_CL_DEVICE to pick others); shuffle off NVIDIA,
   collective below OpenCL C 2.0 and double without fp64 are skipped as the
   device cannot run them. CUDA dialect: pclr_cuda_compile_check (NVRTC,
   compute_75) when built with -DPCLR_FUZZ_CUDA (-I<cuda>/include -ldl).
   Prints "cl_build: N passed, N failed" (N skipped); exit status 1 on any failure. */
#define CL_TARGET_OPENCL_VERSION 120
#define PCLREDUCE_IMPLEMENTATION
#ifdef PCLR_FUZZ_CUDA
#define PCLREDUCE_CUDA
#endif
#include "pclreduce.h"

#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context g_ctx;
static cl_device_id g_dev;
static int g_nvidia, g_cl20, g_fp64;

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static int open_device(void) {
    cl_platform_id plats[16];
    cl_device_id devs[16];
    cl_uint np = 0, nd = 0;
    cl_int err;
    char name[256] = "", ver[128] = "", ext[8192] = "";
    int pi = env_int("PCLR_CL_PLATFORM", 0), di = env_int("PCLR_CL_DEVICE", 0);
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || (cl_uint)pi >= np) return 0;
    if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS || (cl_uint)di >= nd) return 0;
    g_dev = devs[di];
    clGetPlatformInfo(plats[pi], CL_PLATFORM_NAME, sizeof name, name, NULL);
    g_nvidia = strstr(name, "NVIDIA") != NULL;
    clGetDeviceInfo(g_dev, CL_DEVICE_OPENCL_C_VERSION, sizeof ver, ver, NULL);
    g_cl20 = g_nvidia || strncmp(ver, "OpenCL C 2", 10) == 0 || strncmp(ver, "OpenCL C 3", 10) == 0;
    clGetDeviceInfo(g_dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    g_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    g_ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    return err == CL_SUCCESS;
}

/* The whole file, NUL-terminated, or NULL. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = (char *)malloc((size_t)n + 1))) {
        fclose(f);
        return NULL;
    }
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* path with its extension replaced */
static void sibling(const char *cfg_path, const char *ext, char *out, size_t cap) {
    size_t len = strlen(cfg_path);
    if (len >= 4 && strcmp(cfg_path + len - 4, ".cfg") == 0) len -= 4;
    snprintf(out, cap, "%.*s.%s", (int)len, cfg_path, ext);
}

static int build_cl(const char *src, const char *opts, const char *what) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(g_ctx, 1, &src, NULL, &err);
    if (err != CL_SUCCESS) return 0;
    err = clBuildProgram(p, 1, &g_dev, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        log[0] = '\0';
        clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("FAIL %s: clBuildProgram %d\n%s\n", what, (int)err, log);
    }
    clReleaseProgram(p);
    return err == CL_SUCCESS;
}

int main(int argc, char **argv) {
    int i, passed = 0, failed = 0, skipped = 0, have_cl = open_device();
    if (!have_cl) printf("skip: no OpenCL device: OpenCL sources not built\n");
    for (i = 1; i < argc; ++i) {
        pclr_config c;
        int v[12], got = 0;
        char path[4096], *text = slurp(argv[i]), *src, *opts;
        v[11] = 0;
        if (!text || (got = sscanf(text, "%d %d %d %d %d %d %d %d %d %d %d %d", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                                   &v[7], &v[8], &v[9], &v[10], &v[11])) < 11) {
            printf("FAIL %s: not a config file\n", argv[i]);
            free(text);
            ++failed;
            continue;
        }
        free(text);
        memset(&c, 0, sizeof c);
        c.type = (pclr_type)v[0]; c.op = (pclr_op)v[1]; c.backend = (pclr_backend)v[2];
        c.wave_width = v[3]; c.group_size = v[4]; c.unroll = v[5]; c.vector_width = v[6];
        c.stride = (pclr_stride)v[7]; c.variant = (pclr_variant)v[8]; c.finish = (pclr_finish)v[9];
        c.groups_per_unit = v[10];
        c.accumulate = (pclr_accumulate)v[11];
        if (pclr_config_resolve(&c, &c, NULL) != PCLR_OK) {
            printf("FAIL %s: the dumped config does not resolve\n", argv[i]);
            ++failed;
            continue;
        }
        if (c.backend == PCLR_CUDA) {
#ifdef PCLR_FUZZ_CUDA
            static char log[16384];
            pclr_result r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
            if (r == PCLR_ERR_NO_DRIVER) { printf("skip: %s: NVRTC not found\n", argv[i]); ++skipped; continue; }
            if (r == PCLR_OK) ++passed;
            else { printf("FAIL %s: NVRTC: %s\n%s\n", argv[i], pclr_result_string(r), log); ++failed; }
#else
            printf("skip: %s: CUDA dialect (built without PCLR_FUZZ_CUDA)\n", argv[i]);
            ++skipped;
#endif
            continue;
        }
        if (!have_cl || (c.variant == PCLR_VARIANT_SHUFFLE && !g_nvidia) ||
            (c.variant == PCLR_VARIANT_COLLECTIVE && !g_cl20) || (c.type == PCLR_DOUBLE && !g_fp64)) {
            printf("skip: %s: the OpenCL device cannot run %s %s\n", argv[i], pclr_variant_name(c.variant),
                   pclr_type_name(c.type));
            ++skipped;
            continue;
        }
        sibling(argv[i], "cl", path, sizeof path);
        src = slurp(path);
        sibling(argv[i], "opts", path, sizeof path);
        opts = slurp(path);
        if (!src || !opts) {
            printf("FAIL %s: source or options file missing\n", argv[i]);
            ++failed;
        } else if (build_cl(src, opts, argv[i])) {
            ++passed;
        } else {
            ++failed;
        }
        free(src);
        free(opts);
    }
    if (g_ctx) clReleaseContext(g_ctx);
    printf("cl_build: %d passed, %d failed (%d skipped)\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
