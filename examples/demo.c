/* The demo (make demo): reduces a few hundred MB of random data for every
   type/op pair on the best device found (CUDA, else the best OpenCL device,
   PoCL's CPU device on a machine without a GPU), checks each result against
   the CPU reference and prints a table with throughput.
   PCLR_DEMO_MB sets the data size (default 256). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_DEMO_NO_CUDA
#define PCLREDUCE_CUDA
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

int main(void) {
    const char *mb_env = getenv("PCLR_DEMO_MB");
    size_t bytes = (size_t)(mb_env ? atoi(mb_env) : 256) << 20;
    pclr_desc desc;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    char why[1024] = "";
    void *data = malloc(bytes ? bytes : 1);
    int t, o, failures = 0;
    if (!data) { fprintf(stderr, "demo: out of memory\n"); return 1; }
    memset(&desc, 0, sizeof desc); /* auto: CUDA, else OpenCL (GPU first), else the CPU */
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
            pclr_config cfg;
            unsigned char result[8];
            double times[REPS], t0;
            int k, ok;
            memset(&cfg, 0, sizeof cfg);
            cfg.type = (pclr_type)t;
            cfg.op = (pclr_op)o;
            r = pclr_reduce(ctx, &cfg, buf, 0, n, result); /* builds the kernel once */
            if (r == PCLR_ERR_NO_FP64) {
                printf("%-7s %-4s %12s  skipped: the device has no fp64\n", pclr_type_name(cfg.type), pclr_op_name(cfg.op), "");
                continue;
            }
            for (k = 0; k < REPS && r == PCLR_OK; ++k) {
                t0 = now_s();
                r = pclr_reduce(ctx, &cfg, buf, 0, n, result);
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
    printf("\n%s: every result checked against the CPU reference (times: blocking call, median of %d)\n",
           failures ? "FAILED" : "all correct", REPS);
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    free(data);
    return failures ? 1 : 0;
}
