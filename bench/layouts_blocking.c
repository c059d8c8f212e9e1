/* layouts_blocking: what a blocking layout costs against the asynchronous form plus one copy of
   its states, through the generic verbs on any backend (issue 31's target: at most 1.2x).
   For each shape (rows, columns, segments; 2^26 float elements, 256 MiB: 5x the H100's L2) and op:
     blocking  pclr_reduce into host results (launch, wait, copy the states, finalize)
     async+copy  pclr_reduce_async into a states buffer, then pclr_buffer_read of the states
   median of 11 calls each after 2 warm-up calls; the data are U(-1, 1) floats with every mantissa
   bit used. --csv FILE also writes one line per point there.
       cc -O2 -I/usr/local/cuda/include -o build/layouts_blocking bench/layouts_blocking.c -ldl -lm
       build/layouts_blocking [--backend cuda|opencl|vulkan|cpu] [--log2n 26] [--csv FILE] */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_BENCH_NO_CUDA /* (-DPCLR_BENCH_NO_CUDA where the CUDA headers are missing) */
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 11

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct shape { const char *name; pclr_layout layout; uint64_t rows, cols; } shape;

int main(int argc, char **argv) {
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_buffer *x = NULL, *offsets = NULL, *states = NULL;
    const char *csv_path = NULL;
    FILE *csv = NULL;
    int log2n = 26, i, failures = 0;
    uint64_t n, k, seed = 0x9e3779b97f4a7c15ull, *offs;
    float *host;
    unsigned char *results;
    char why[512];
    static const pclr_op ops[] = {PCLR_SUM, PCLR_ARGMAX, PCLR_STATS};
    size_t si, oi;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (pclr_parse_backend(argv[++i], &desc.backends[0]) != PCLR_OK) { fprintf(stderr, "unknown backend %s\n", argv[i]); return 2; }
        } else if (!strcmp(argv[i], "--log2n") && i + 1 < argc) {
            log2n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else {
            fprintf(stderr, "usage: layouts_blocking [--backend cuda|opencl|vulkan|cpu] [--log2n 26] [--csv FILE]\n");
            return 2;
        }
    }
    if (log2n < 12 || log2n > 30) { fprintf(stderr, "--log2n: 12..30\n"); return 2; }
    n = (uint64_t)1 << log2n;
    desc.error = why;
    desc.error_cap = sizeof why;
    if (pclr_create(&desc, &ctx) != PCLR_OK) { fprintf(stderr, "layouts_blocking: %s\n", why); return 1; }
    {
        const shape shapes[] = {
            {"rows", PCLR_LAYOUT_ROWS, n / 4, 4},           {"rows", PCLR_LAYOUT_ROWS, n / 64, 64},
            {"rows", PCLR_LAYOUT_ROWS, n / 4096, 4096},     {"columns", PCLR_LAYOUT_COLUMNS, 4, n / 4},
            {"columns", PCLR_LAYOUT_COLUMNS, 1024, n / 1024}, {"segments", PCLR_LAYOUT_SEGMENTS, n / 64, 64},
        };
        const uint64_t most = n / 4 + 1; /* results of the largest shape (and the segments' offsets) */
        host = (float *)malloc((size_t)n * sizeof *host);
        offs = (uint64_t *)malloc((size_t)(n / 64 + 1) * 8);
        results = (unsigned char *)malloc((size_t)most * sizeof(pclr_stats_result));
        if (!host || !offs || !results) { fprintf(stderr, "out of memory\n"); return 1; }
        for (k = 0; k < n; ++k) { /* U(-1, 1) with all 24 bits: a random 24-bit integer scaled, a random sign */
            seed += 0x9e3779b97f4a7c15ull;
            host[k] = (float)((int64_t)(seed >> 39) - (1 << 24)) * (1.0f / 16777216.0f);
        }
        for (k = 0; k <= n / 64; ++k) offs[k] = k * 64;
        if (pclr_buffer_create(ctx, (size_t)n * 4, &x) != PCLR_OK || pclr_buffer_write(ctx, x, 0, host, (size_t)n * 4) != PCLR_OK ||
            pclr_buffer_create(ctx, (size_t)(n / 64 + 1) * 8, &offsets) != PCLR_OK ||
            pclr_buffer_write(ctx, offsets, 0, offs, (size_t)(n / 64 + 1) * 8) != PCLR_OK ||
            pclr_buffer_create(ctx, (size_t)most * 64, &states) != PCLR_OK) {
            fprintf(stderr, "layouts_blocking: buffers: %s\n", pclr_last_error(ctx));
            return 1;
        }
        printf("layouts_blocking: %s on %s, 2^%d floats\n", pclr_backend_name(pclr_get_backend(ctx)), pclr_device_name(ctx), log2n);
        printf("%-9s %10s %7s %-7s %12s %12s %12s %8s\n", "layout", "rows", "cols", "op", "blocking_ms", "async_ms", "async+copy", "ratio");
        if (csv_path && !(csv = fopen(csv_path, "w"))) { perror(csv_path); return 1; }
        if (csv) fprintf(csv, "backend,layout,rows,cols,op,results,state_bytes,blocking_ms,async_ms,async_copy_ms,ratio\n");
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; ++si)
            for (oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi) {
                pclr_config c = PCLR_ZERO;
                pclr_input in = PCLR_ZERO;
                double tb[REPS], ta[REPS], tc[REPS], t0;
                uint64_t count;
                size_t rs, ss;
                pclr_result r = PCLR_OK;
                int rep;
                c.op = ops[oi];
                c.layout = shapes[si].layout;
                c.rows = shapes[si].rows;
                c.cols = shapes[si].layout == PCLR_LAYOUT_SEGMENTS ? 0 : shapes[si].cols;
                in.x = x;
                in.n = n;
                if (c.layout == PCLR_LAYOUT_SEGMENTS) in.offsets = offsets;
                count = pclr_layout_results(&c);
                rs = pclr_result_size(&c);
                ss = pclr_state_size(&c);
                for (rep = -2; rep < REPS && r == PCLR_OK; ++rep) {
                    t0 = now_s();
                    r = pclr_reduce(ctx, &c, &in, results, (size_t)(count * rs));
                    if (rep >= 0) tb[rep] = now_s() - t0;
                    if (r != PCLR_OK) break;
                    t0 = now_s();
                    r = pclr_reduce_async(ctx, &c, &in, states, 0, NULL);
                    if (r == PCLR_OK && pclr_get_backend(ctx) != PCLR_CPU) r = pclr_buffer_read(ctx, states, 0, results, 1); /* waits */
                    if (rep >= 0) ta[rep] = now_s() - t0;
                    if (r != PCLR_OK) break;
                    t0 = now_s();
                    r = pclr_reduce_async(ctx, &c, &in, states, 0, NULL);
                    if (r == PCLR_OK) r = pclr_buffer_read(ctx, states, 0, results, (size_t)(count * (pclr_get_backend(ctx) == PCLR_CPU ? rs : ss)));
                    if (rep >= 0) tc[rep] = now_s() - t0;
                }
                if (r != PCLR_OK) {
                    printf("%-9s %10llu %7llu %-7s failed: %s\n", shapes[si].name, (unsigned long long)shapes[si].rows,
                           (unsigned long long)shapes[si].cols, pclr_op_name(c.op), pclr_last_error(ctx));
                    ++failures;
                    continue;
                }
                qsort(tb, REPS, sizeof tb[0], cmp_double);
                qsort(ta, REPS, sizeof ta[0], cmp_double);
                qsort(tc, REPS, sizeof tc[0], cmp_double);
                printf("%-9s %10llu %7llu %-7s %12.3f %12.3f %12.3f %8.2f\n", shapes[si].name, (unsigned long long)shapes[si].rows,
                       (unsigned long long)shapes[si].cols, pclr_op_name(c.op), 1e3 * tb[REPS / 2], 1e3 * ta[REPS / 2], 1e3 * tc[REPS / 2],
                       tb[REPS / 2] / tc[REPS / 2]);
                if (csv) fprintf(csv, "%s,%s,%llu,%llu,%s,%llu,%lu,%.4f,%.4f,%.4f,%.3f\n", pclr_backend_name(pclr_get_backend(ctx)), shapes[si].name,
                        (unsigned long long)shapes[si].rows, (unsigned long long)shapes[si].cols, pclr_op_name(c.op),
                        (unsigned long long)count, (unsigned long)ss, 1e3 * tb[REPS / 2], 1e3 * ta[REPS / 2], 1e3 * tc[REPS / 2],
                        tb[REPS / 2] / tc[REPS / 2]);
            }
    }
    if (csv) fclose(csv);
    pclr_buffer_destroy(ctx, x);
    pclr_buffer_destroy(ctx, offsets);
    pclr_buffer_destroy(ctx, states);
    pclr_destroy(ctx);
    free(host);
    free(offs);
    free(results);
    return failures ? 1 : 0;
}
