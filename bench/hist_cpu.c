/* hist_cpu: histograms on the CPU (issue 34): pclreduce on OpenCL's CPU device (PoCL) against an OpenMP
   loop with per-thread bins over the same data, in one process.

   Cases (n elements, default 2^26): 256 bins of uint8 over [0, 256); 256 bins of float over [-1, 1) (random
   floats, every mantissa bit); the same with every value in one bin (the worst case for atomics); 65536
   bins of uint16 over [0, 65536); 256 bins of float weighted by floats (exact sums; the loop sums in double). The OpenMP loop (bench/hist_omp.c, -O3 -march=native -fopenmp) bins by
   the same rule (docs/histograms.md: floor((v - lo) * scale) in float or double, out-of-range values
   counted apart), each thread into its own bins over a static block, the bins summed after. Calls rotate
   over K >= 2 slices of the pool (K x bytes >= 96 MB), the two take turns in each repetition, the time is
   the median; each result is checked against the CPU reference on slice 0 (counts exact).
   Ratio: omp time / pocl time (>= 1: pclreduce faster).

   usage: hist_cpu [--log N] [--reps R] [--platform P] [--group G] [--unroll U] [--vector V] [--stride S]
   (the knobs: the device's defaults where left out) */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "pclreduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* bench/hist_omp.c: counts[bins + 3] (bins, underflow, overflow, nan) of n elements of type (uint8, uint16, float) */
void hist_omp(int type, const void *data, uint64_t n, double lo, double hi, uint32_t bins, uint64_t *counts);
void hist_omp_weighted(const float *x, const float *w, uint64_t n, double lo, double hi, uint32_t bins, uint64_t *counts, double *sums);
int hist_omp_threads(void);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

int main(int argc, char **argv) {
    static const struct { const char *name; pclr_type type; uint32_t bins; double lo, hi; int one_bin, weighted; } cases[] = {
        {"uint8, 256 bins", PCLR_UINT8, 256, 0, 256, 0, 0},
        {"float, 256 bins", PCLR_FLOAT, 256, -1, 1, 0, 0},
        {"float, 256 bins, one bin hit", PCLR_FLOAT, 256, -1, 1, 1, 0},
        {"uint16, 65536 bins", PCLR_UINT16, 65536, 0, 65536, 0, 0},
        {"float, 256 bins, weighted by floats", PCLR_FLOAT, 256, -1, 1, 0, 1}};
    int log2n = 26, reps = 9, platform = 0, group = 0, unroll = 0, vector = 0, i, c;
    pclr_stride stride = PCLR_STRIDE_DEFAULT;
    pclr_desc desc;
    pclr_context *ctx = NULL;
    char why[1024] = "";
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) log2n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--platform") && i + 1 < argc) platform = atoi(argv[++i]) + 1;
        else if (!strcmp(argv[i], "--group") && i + 1 < argc) group = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--unroll") && i + 1 < argc) unroll = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--vector") && i + 1 < argc) vector = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--stride") && i + 1 < argc && pclr_parse_stride(argv[i + 1], &stride) == PCLR_OK) ++i;
        else { fprintf(stderr, "usage: hist_cpu [--log N] [--reps R] [--platform P] [--group G] [--unroll U] [--vector V] [--stride S]\n"); return 2; }
    }
    if (reps < 1 || reps > 99 || log2n < 10 || log2n > 30) { fprintf(stderr, "hist_cpu: --reps 1..99, --log 10..30\n"); return 2; }
    memset(&desc, 0, sizeof desc);
    desc.backends[0] = PCLR_OPENCL;
    desc.platform = platform;
    desc.error = why;
    desc.error_cap = sizeof why;
    if (pclr_create(&desc, &ctx) != PCLR_OK) { fprintf(stderr, "hist_cpu: no OpenCL device: %s\n", why); return 1; }
    printf("hist_cpu: n = 2^%d, %d repetitions (median), pocl: %s, omp: %d threads\n", log2n, reps, pclr_device_name(ctx), hist_omp_threads());
    printf("| case | pocl ms | omp ms | pocl GB/s | omp GB/s | omp / pocl |\n| --- | --- | --- | --- | --- | --- |\n");
    for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c) {
        const uint64_t n = (uint64_t)1 << log2n;
        const size_t es = pclr_type_size(cases[c].type) * (cases[c].weighted ? 2 : 1), bytes = (size_t)n * es; /* (weighted: x, then y) */
        const int slices = (int)((96u << 20) / bytes + 2);
        unsigned char *pool = (unsigned char *)malloc(bytes * (size_t)slices);
        const size_t rs = sizeof(pclr_histogram_result) + 8 * (size_t)cases[c].bins + (cases[c].weighted ? 8 * ((size_t)cases[c].bins + 3) : 0);
        unsigned char *got = (unsigned char *)malloc(rs), *ref = (unsigned char *)malloc(rs);
        uint64_t *omp = (uint64_t *)malloc(8 * ((size_t)cases[c].bins + 3));
        double *omp_sums = (double *)malloc(8 * ((size_t)cases[c].bins + 3));
        double t[2][99];
        pclr_buffer *buf = NULL;
        pclr_config cfg;
        pclr_input in;
        size_t k;
        int r, s, ok = 1;
        if (!pool || !got || !ref || !omp || !omp_sums || pclr_buffer_create(ctx, bytes * (size_t)slices, &buf) != PCLR_OK) {
            fprintf(stderr, "hist_cpu: out of memory\n");
            return 1;
        }
        for (k = 0; k < bytes / pclr_type_size(cases[c].type) * (size_t)slices; ++k) {
            const uint64_t v = rnd();
            if (cases[c].type == PCLR_UINT8) pool[k] = (unsigned char)v;
            else if (cases[c].type == PCLR_UINT16) memcpy(pool + 2 * k, &v, 2);
            else {
                /* random sign, exponent in [-4, -1], every mantissa bit: in [-1, 1); one bin: all 0.5 + a little */
                uint32_t u = cases[c].one_bin ? 0x3f000000u | (uint32_t)(v & 0x3fffu) : (uint32_t)(v & 0x807fffffu) | (uint32_t)(123 + (v >> 40) % 4) << 23;
                memcpy(pool + 4 * k, &u, 4);
            }
        }
        pclr_buffer_write(ctx, buf, 0, pool, bytes * (size_t)slices);
        memset(&cfg, 0, sizeof cfg);
        cfg.type = cases[c].type;
        cfg.op = PCLR_HISTOGRAM;
        cfg.bins = cases[c].bins;
        cfg.group_size = group;
        cfg.unroll = unroll;
        cfg.vector_width = vector;
        cfg.stride = stride;
        cfg.weighted = cases[c].weighted;
        cfg.y_type = cases[c].weighted ? PCLR_FLOAT : PCLR_TYPE_DEFAULT;
        memset(&in, 0, sizeof in);
        in.x = buf;
        in.y = cases[c].weighted ? buf : NULL; /* y: the second half of a slice (x is its first half) */
        in.n = n;
        in.lo = cases[c].lo;
        in.hi = cases[c].hi;
        { /* the checks, on slice 0 */
            const double range[2] = {cases[c].lo, cases[c].hi};
            in.y_offset = n;
            if (pclr_reduce(ctx, &cfg, &in, got, rs) != PCLR_OK) { fprintf(stderr, "hist_cpu: %s\n", pclr_last_error(ctx)); return 1; }
            pclr_cpu_reduce_map(&cfg, pool, cases[c].weighted ? pool + 4 * n : NULL, n, range, ref);
            if (cases[c].weighted) hist_omp_weighted((const float *)(const void *)pool, (const float *)(const void *)(pool + 4 * n), n, cases[c].lo, cases[c].hi,
                                                     cases[c].bins, omp, omp_sums);
            else hist_omp(cases[c].type, pool, n, cases[c].lo, cases[c].hi, cases[c].bins, omp);
            ok = memcmp(got, ref, rs) == 0;
            for (k = 0; k < cases[c].bins; ++k) ok &= omp[k] == pclr_histogram_count(ref, k);
        }
        for (r = 0; r < reps; ++r)
            for (s = 0; s < 2; ++s) {
                const int slice = (r * 2 + s) % slices;
                double t0;
                in.x_offset = (uint64_t)slice * (cases[c].weighted ? 2 * n : n);
                in.y_offset = in.x_offset + n;
                t0 = now_s();
                if (s == 0) pclr_reduce(ctx, &cfg, &in, got, rs);
                else if (cases[c].weighted)
                    hist_omp_weighted((const float *)(const void *)(pool + (size_t)slice * bytes), (const float *)(const void *)(pool + (size_t)slice * bytes + 4 * n),
                                      n, cases[c].lo, cases[c].hi, cases[c].bins, omp, omp_sums);
                else hist_omp(cases[c].type, pool + (size_t)slice * bytes, n, cases[c].lo, cases[c].hi, cases[c].bins, omp);
                t[s][r] = now_s() - t0;
            }
        qsort(t[0], (size_t)reps, sizeof t[0][0], cmp_d);
        qsort(t[1], (size_t)reps, sizeof t[1][0], cmp_d);
        printf("| %s%s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", cases[c].name, ok ? "" : " (MISMATCH)", 1e3 * t[0][reps / 2], 1e3 * t[1][reps / 2],
               1e-9 * (double)bytes / t[0][reps / 2], 1e-9 * (double)bytes / t[1][reps / 2], t[1][reps / 2] / t[0][reps / 2]);
        fflush(stdout);
        pclr_buffer_destroy(ctx, buf);
        free(pool);
        free(got);
        free(ref);
        free(omp);
        free(omp_sums);
    }
    pclr_destroy(ctx);
    return 0;
}
