/* The demo (make demo): reduces a few hundred MB of random data for every
   type/op pair on the best device found (CUDA, else the best OpenCL device,
   PoCL's CPU device on a machine without a GPU), checks each result against
   the CPU reference and prints a table with throughput. Then the same
   table on the Vulkan device where there is one (pclreduce_vk.h: a GPU's
   Vulkan driver, or lavapipe on the CPU), the data capped at the device's
   maxStorageBufferRange; without a Vulkan loader, device or shaderc
   ($PCLR_SHADERC_LIBRARY, else libshaderc_shared.so beside the demo, which
   `make` builds where the system's does not load, else libshaderc.so.1) one
   line "vulkan: skipped: why" and the demo goes on.
   PCLR_DEMO_MB sets the data size (default 256). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, readlink */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_DEMO_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#ifndef PCLR_DEMO_NO_VULKAN
#define PCLREDUCE_VULKAN /* vulkan/vulkan.h at compile time; the loader and shaderc at run time */
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 7

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One device's table: every type (uint, int, float, double) x sum/min/max on `bytes` of random data,
   each result checked against the CPU reference. Returns the number of failures. */
static int run_table(pclr_context *ctx, void *data, size_t bytes) {
    pclr_buffer *buf = NULL;
    int t, o, failures = 0;
    printf("%-7s %-4s %12s  %-26s %-4s %10s %9s\n", "type", "op", "n", "result", "ok", "time(ms)", "GB/s");
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t) {
        size_t ts = pclr_type_size((pclr_type)t);
        uint64_t n = bytes / ts;
        pclr_result r;
        pclr_args_fill_random((pclr_type)t, data, n, 42 + (uint64_t)t);
        pclr_buffer_destroy(ctx, buf);
        buf = NULL;
        if ((r = pclr_buffer_create(ctx, (size_t)n * ts, &buf)) != PCLR_OK ||
            (r = pclr_buffer_write(ctx, buf, 0, data, (size_t)n * ts)) != PCLR_OK) {
            printf("%-7s upload failed: %s\n", pclr_type_name((pclr_type)t), pclr_result_string(r));
            ++failures;
            continue;
        }
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o) {
            pclr_config cfg = PCLR_ZERO;
            pclr_input in = PCLR_ZERO;
            unsigned char result[8];
            double times[REPS], t0;
            int k, ok;
            cfg.type = (pclr_type)t;
            cfg.op = (pclr_op)o;
            in.x = buf;
            in.n = n;
            r = pclr_reduce(ctx, &cfg, &in, result, sizeof result); /* builds the kernel once */
            if (r == PCLR_ERR_NO_FP64) {
                printf("%-7s %-4s %12s  skipped: the device has no fp64\n", pclr_type_name(cfg.type), pclr_op_name(cfg.op), "");
                continue;
            }
            for (k = 0; k < REPS && r == PCLR_OK; ++k) {
                t0 = now_s();
                r = pclr_reduce(ctx, &cfg, &in, result, sizeof result);
                times[k] = now_s() - t0;
            }
            if (r != PCLR_OK) {
                printf("%-7s %-4s failed: %s (%s)\n", pclr_type_name(cfg.type), pclr_op_name(cfg.op), pclr_result_string(r), pclr_last_error(ctx));
                ++failures;
                continue;
            }
            qsort(times, REPS, sizeof times[0], cmp_double);
            ok = pclr_args_matches(cfg.type, cfg.op, result, data, n);
            failures += !ok;
            printf("%-7s %-4s %12llu  ", pclr_type_name(cfg.type), pclr_op_name(cfg.op), (unsigned long long)n);
            {
                char v[64];
                pclr_args_format_value(cfg.type, result, v, sizeof v);
                printf("%-26s %-4s %10.3f %9.1f\n", v, ok ? "yes" : "NO", times[REPS / 2] * 1e3,
                       (double)n * (double)ts / times[REPS / 2] * 1e-9);
            }
        }
    }
    pclr_buffer_destroy(ctx, buf);
    return failures;
}

#ifndef PCLR_DEMO_NO_VULKAN
/* The Vulkan device's table, or one line "vulkan: skipped: why" (no loader, device or shaderc: not a failure). */
static int run_vulkan(void *data, size_t bytes) {
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_config probe = PCLR_ZERO; /* a compile needs shaderc (even where the disk cache holds some kernels): without it, skip */
    pclr_vk_desc vk = PCLR_ZERO;
    pclr_vk_native native = PCLR_ZERO; /* the context's device, entry points and features */
    const pclr_vk_features *f;
    char why[1024] = "";
    int failures;
    pclr_result r;
    desc.backends[0] = PCLR_VULKAN; /* the generic context takes Vulkan only where listed */
    desc.shaderc_library = pclr_args_shaderc_beside();
    desc.error = why;
    desc.error_cap = sizeof why;
    if (pclr_create(&desc, &ctx) != PCLR_OK) {
        printf("\nvulkan: skipped: %s\n", why);
        return 0;
    }
    probe.type = PCLR_UINT;
    probe.op = PCLR_SUM;
    vk.shaderc_library = desc.shaderc_library;
    if (pclr_vk_compile_check(&probe, &vk, why, sizeof why) == PCLR_ERR_NO_DRIVER) {
        printf("\nvulkan: skipped: %s\n", why);
        pclr_destroy(ctx);
        return 0;
    }
    r = pclr_prepare(ctx, &probe);
    f = pclr_vk_get_native(ctx, &native) == PCLR_OK ? native.features : NULL;
    if (f && f->max_storage_range && bytes > f->max_storage_range) bytes = (size_t)(f->max_storage_range & ~(uint64_t)15);
    printf("\nVulkan: %s, %zu MB per reduction%s\n\n", pclr_device_name(ctx), bytes >> 20,
           f && bytes == (size_t)(f->max_storage_range & ~(uint64_t)15) ? " (the device's maxStorageBufferRange)" : "");
    if (r != PCLR_OK) {
        printf("vulkan: uint sum does not build: %s (%s)\n", pclr_result_string(r), pclr_last_error(ctx));
        pclr_destroy(ctx);
        return 1;
    }
    failures = run_table(ctx, data, bytes);
    pclr_destroy(ctx);
    return failures;
}
#endif

int main(void) {
    const char *mb_env = getenv("PCLR_DEMO_MB");
    size_t bytes = (size_t)(mb_env ? atoi(mb_env) : 256) << 20;
    pclr_desc desc = PCLR_ZERO; /* auto: CUDA, else OpenCL (GPU first), else the CPU */
    pclr_context *ctx = NULL;
    char why[1024] = "";
    void *data = malloc(bytes ? bytes : 1);
    int failures = 0;
    if (!data) { fprintf(stderr, "demo: out of memory\n"); return 1; }
    desc.error = why;
    desc.error_cap = sizeof why;
    if (pclr_create(&desc, &ctx) != PCLR_OK || pclr_get_backend(ctx) == PCLR_CPU) {
        fprintf(stderr, "demo: no GPU or OpenCL device found%s%s\n", why[0] ? ": " : "", why);
        pclr_describe(ctx, why, sizeof why);
        fprintf(stderr, "%s", why);
        pclr_destroy(ctx);
        free(data);
        return 1;
    }
    printf("pclreduce %s demo on %s: %s, %zu MB per reduction\n\n", PCLREDUCE_VERSION, pclr_backend_name(pclr_get_backend(ctx)),
           pclr_device_name(ctx), bytes >> 20);
    failures += run_table(ctx, data, bytes);
    pclr_destroy(ctx);
#ifndef PCLR_DEMO_NO_VULKAN
    failures += run_vulkan(data, bytes);
#else
    printf("\nvulkan: skipped: built without vulkan/vulkan.h\n");
#endif
    printf("\n%s: every result checked against the CPU reference (times: blocking call, median of %d)\n",
           failures ? "FAILED" : "all correct", REPS);
    free(data);
    return failures ? 1 : 0;
}
