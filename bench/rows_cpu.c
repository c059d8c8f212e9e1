/* rows_cpu: float row sums on an OpenCL CPU device (PoCL) against an OpenMP loop
   (omp_anchor_rows_f32) over the same host array: 2^26 floats as 2^20 rows x 64 (issue
   target: >= 0.7 x the loop's speed) and a few other shapes. Times: median of 11 calls; for
   pclreduce an async reduce into a device buffer, then a 4-byte read that waits for it. Every
   shape's results are checked against the loop's.
       cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o
       cc -O2 -fopenmp -I. bench/rows_cpu.c build/omp_anchor.o -o build/rows_cpu -ldl -lm
       build/rows_cpu [--platform K] [--lanes L] [--group G] [--unroll U] [--stride global|local]
       (K > 0: OpenCL platform K - 1; 0: the best device; the knobs study the CPU's strategy) */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "../pclreduce.h"
#include "bench_common.h" /* bench_now, bench_median */
#include "omp_anchor.h"

int main(int argc, char **argv) {
    static const int shapes[][2] = {{20, 6}, {22, 4}, {14, 12}, {6, 20}}; /* log2 rows, log2 cols */
    const uint64_t n = (uint64_t)1 << 26;
    float *x = (float *)malloc(n * 4), *want = (float *)malloc(((size_t)1 << 22) * 4), *got = (float *)malloc(((size_t)1 << 22) * 4);
    pclr_desc d;
    pclr_context *ctx = NULL;
    pclr_buffer *xb = NULL, *ob = NULL;
    char err[512] = "";
    int failures = 0, k0, knob_lanes = 0, knob_group = 0, knob_unroll = 0;
    pclr_stride knob_stride = PCLR_STRIDE_DEFAULT;
    size_t s;
    uint64_t i;
    if (!x || !want || !got) return 1;
    for (i = 0; i < n; ++i) x[i] = (float)((int)((i * 0x9e3779b97f4a7c15ull) >> 58) - 32) * 0.25f;
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_OPENCL;
    for (k0 = 1; k0 + 1 < argc; k0 += 2) { /* --platform K (k > 0: OpenCL platform K - 1); knobs to study: --lanes --group --unroll --stride */
        if (!strcmp(argv[k0], "--platform")) d.platform = atoi(argv[k0 + 1]);
        else if (!strcmp(argv[k0], "--lanes")) knob_lanes = atoi(argv[k0 + 1]);
        else if (!strcmp(argv[k0], "--group")) knob_group = atoi(argv[k0 + 1]);
        else if (!strcmp(argv[k0], "--unroll")) knob_unroll = atoi(argv[k0 + 1]);
        else if (!strcmp(argv[k0], "--stride")) knob_stride = !strcmp(argv[k0 + 1], "global") ? PCLR_STRIDE_GLOBAL : PCLR_STRIDE_LOCAL;
    }
    d.error = err;
    d.error_cap = sizeof err;
    if (pclr_create(&d, &ctx) != PCLR_OK) { fprintf(stderr, "rows_cpu: no OpenCL device: %s\n", err); return 1; }
    if (pclr_buffer_create(ctx, n * 4, &xb) != PCLR_OK || pclr_buffer_create(ctx, ((size_t)1 << 22) * 8, &ob) != PCLR_OK ||
        pclr_buffer_write(ctx, xb, 0, x, n * 4) != PCLR_OK) { fprintf(stderr, "rows_cpu: buffers: %s\n", pclr_last_error(ctx)); return 1; }
    printf("# rows_cpu on %s, OpenMP with %d threads: float row sums of 2^26 floats, median of 11 calls\n", pclr_device_name(ctx),
           omp_anchor_threads());
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const uint64_t rows = (uint64_t)1 << shapes[s][0], cols = (uint64_t)1 << shapes[s][1];
        double tp[11], to[11];
        pclr_config c;
        float one;
        int k, bad = 0;
        memset(&c, 0, sizeof c);
        c.layout = PCLR_LAYOUT_ROWS;
        c.rows = rows;
        c.cols = cols;
        c.lanes = knob_lanes;
        c.group_size = knob_group;
        c.unroll = knob_unroll;
        c.stride = knob_stride;
        for (k = -1; k < 11; ++k) { /* k = -1: warm-up (and the build); each side in its own loop */
            const double t0 = bench_now();
            if (pclr_reduce_batched_async(ctx, &c, xb, 0, NULL, 0, NULL, NULL, 0, ob) != PCLR_OK ||
                pclr_buffer_read(ctx, ob, 0, &one, 4) != PCLR_OK) { fprintf(stderr, "rows_cpu: %s\n", pclr_last_error(ctx)); return 1; }
            if (k >= 0) tp[k] = 1e6 * (bench_now() - t0);
        }
        for (k = -1; k < 11; ++k) {
            const double t0 = bench_now();
            omp_anchor_rows_f32(x, rows, cols, want);
            if (k >= 0) to[k] = 1e6 * (bench_now() - t0);
        }
        if (pclr_buffer_read(ctx, ob, 0, got, rows * 4) != PCLR_OK) return 1;
        for (i = 0; i < rows; ++i) bad += fabsf(got[i] - want[i]) > 1e-6f * (float)cols * 8.0f; /* orders differ past 2^24 quarters */
        failures += bad != 0;
        const double pu = bench_median(tp, 11), ou = bench_median(to, 11);
        printf("rows 2^%-2d x 2^%-2d: pclreduce %9.1f us (%6.1f GB/s)  OpenMP %9.1f us (%6.1f GB/s)  -> %.2f x the loop's speed%s\n",
               shapes[s][0], shapes[s][1], pu, n * 4 / pu / 1e3, ou, n * 4 / ou / 1e3, ou / pu,
               bad ? "  FAIL: results differ" : "");
    }
    pclr_buffer_destroy(ctx, xb);
    pclr_buffer_destroy(ctx, ob);
    pclr_destroy(ctx);
    free(x);
    free(want);
    free(got);
    printf("rows_cpu: %d failures\n", failures);
    return failures ? 1 : 0;
}
