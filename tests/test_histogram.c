/* test_histogram: op = histogram (issue 34) on every context this program can create: the CPU
   reference always; OpenCL (PoCL in CI), Vulkan (lavapipe) and CUDA where compiled in (PCLR_TEST_OPENCL,
   PCLR_TEST_VULKAN, PCLR_TEST_CUDA) and a device answers (else a "skip:" line). Every count is held against
   a reference written here (the binning rule of docs/histograms.md, on the data set written here):
   1. every element type, bins 1, 7, 256, 4001 (counted in global memory, not local) and 65536, clamp on and
      off, stride global and local (a work-item's own bins, up to 1024), n = 0, 1, 7, 1031 and 100003 (and 2^20 + 3 for float), from element offsets 0 and 3 (the head of
      unaligned loads), on random values around the range, values exactly on bin edges, at lo and at hi,
      NaN and +-inf (float types), and ranges that the compute type rounds (lo = 0.1 for float values);
   2. maps: a float map with a parameter, a map of two inputs (x * y), an integer map of int16;
   3. combine: two halves' histograms added are the whole's; finalize of an asynchronous state (OpenCL,
      CPU); the quantiles and the mean between two quantiles on histograms of known shape;
   3'. layouts: a histogram per row (pitch > cols; short rows of a map x * y), per column (uint8, 256 bins), per
      segment (empty ones; an offset past n refused), 4000 bins per row of doubles;
   4. refusals: bins 0 and 65537, 4001 bins per row, an accumulator, lo >= hi, NaN or infinite lo, a range whose
      width overflows float, no params for a map that has some, results too small.
   5. CUDA builds (PCLR_TEST_CUDA), --nvrtc-only: every type's kernel and the maps' through NVRTC (compute_90),
      without a device (and nothing else).
   6. --big (make test-full): 2^32 + 5 uint8 elements, 2^32 + 1 of them in one bin: the launch's 64-bit counts
      (a low word's carry into the high one) where the device holds 4 GiB; skipped where it does not.
   Usage: test_histogram [--nvrtc-only] [--big] [cpu] [opencl] [vulkan] [cuda]   (none named: every one compiled in)
   Environment: PCLR_SEED (or PCLR_TEST_SEED) reproduces a run (the seed is printed). */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#ifdef PCLR_TEST_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifdef PCLR_TEST_VULKAN
#define PCLREDUCE_VULKAN
#endif
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <float.h>
#include <math.h>
#include <time.h>

static uint64_t g_seed, g_rng;
static double unit(void) { return (double)(pclr_test_rand(&g_rng) >> 11) / 9007199254740992.0; } /* [0, 1) */

/* ---- the reference: the rule of docs/histograms.md, written out here */
static double half_value(uint16_t h) {
    const int e = h >> 10 & 0x1f, m = h & 0x3ff;
    const double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h >> 15 ? -v : v;
}
static double value_at(pclr_type t, const void *x, uint64_t i) {
    switch (t) {
    case PCLR_UINT8: return ((const uint8_t *)x)[i];
    case PCLR_INT8: return ((const int8_t *)x)[i];
    case PCLR_UINT16: return ((const uint16_t *)x)[i];
    case PCLR_INT16: return ((const int16_t *)x)[i];
    case PCLR_UINT: return ((const uint32_t *)x)[i];
    case PCLR_INT: return ((const int32_t *)x)[i];
    case PCLR_UINT64: return (double)((const uint64_t *)x)[i];
    case PCLR_INT64: return (double)((const int64_t *)x)[i];
    case PCLR_HALF: return half_value(((const uint16_t *)x)[i]);
    case PCLR_FLOAT: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}
/* the entry of value v: 0..bins-1, bins (underflow), bins + 1 (overflow), bins + 2 (NaN); fl: binned in float */
static uint32_t ref_bin(int fl, double v, double lo, double hi, uint32_t bins, int clamp) {
    uint32_t k;
    if (v != v) return bins + 2;
    if (fl) {
        const float l = (float)lo, h = (float)hi, w = h - l, s = (float)((double)bins / (double)w);
        if ((float)v < l) return clamp ? 0 : bins;
        if ((float)v >= h) return clamp ? bins - 1 : bins + 1;
        k = (uint32_t)(((float)v - l) * s);
    } else {
        const double w = hi - lo, s = (double)bins / w;
        if (v < lo) return clamp ? 0 : bins;
        if (v >= hi) return clamp ? bins - 1 : bins + 1;
        k = (uint32_t)((v - lo) * s);
    }
    return k < bins ? k : bins - 1;
}
/* the result the reference gives: counts[bins + 3] (bins, underflow, overflow, nan) of values v[0..n) */
static void ref_hist(int fl, const double *v, uint64_t n, double lo, double hi, uint32_t bins, int clamp, uint64_t *counts) {
    uint64_t i;
    memset(counts, 0, ((size_t)bins + 3) * 8);
    for (i = 0; i < n; ++i) ++counts[ref_bin(fl, v[i], lo, hi, bins, clamp)];
}

/* A result against the reference's counts; says the first difference. */
static int same_counts(const void *result, const uint64_t *want, uint32_t bins, int fl, double lo, double hi, char *why, size_t cap) {
    pclr_histogram_result h;
    uint64_t k;
    memcpy(&h, result, sizeof h);
    if (h.bins != bins) { snprintf(why, cap, "bins %llu, want %u", (unsigned long long)h.bins, bins); return 0; }
    if (h.lo != (fl ? (double)(float)lo : lo) || h.hi != (fl ? (double)(float)hi : hi)) {
        snprintf(why, cap, "range [%.17g, %.17g), want [%.17g, %.17g)", h.lo, h.hi, lo, hi);
        return 0;
    }
    if (h.underflow != want[bins] || h.overflow != want[bins + 1] || h.nan != want[bins + 2]) {
        snprintf(why, cap, "underflow %llu overflow %llu nan %llu, want %llu %llu %llu", (unsigned long long)h.underflow,
                 (unsigned long long)h.overflow, (unsigned long long)h.nan, (unsigned long long)want[bins], (unsigned long long)want[bins + 1],
                 (unsigned long long)want[bins + 2]);
        return 0;
    }
    for (k = 0; k < bins; ++k)
        if (pclr_histogram_count(result, k) != want[k]) {
            snprintf(why, cap, "bin %llu: %llu, want %llu", (unsigned long long)k, (unsigned long long)pclr_histogram_count(result, k),
                     (unsigned long long)want[k]);
            return 0;
        }
    return 1;
}

/* ---- the data: random elements of type t around [lo, hi), some exactly on edges, at lo and hi, specials */
static void fill(pclr_type t, void *x, uint64_t n, double lo, double hi, uint32_t bins) {
    const size_t es = pclr_type_size(t);
    uint64_t i;
    for (i = 0; i < n; ++i) {
        const uint64_t r = pclr_test_rand(&g_rng);
        const int kind = (int)(r % 16);
        double v = lo + (hi - lo) * (1.2 * unit() - 0.1);
        unsigned char b[8];
        if (kind == 0) v = lo + (hi - lo) * (double)(pclr_test_rand(&g_rng) % (bins + 1)) / bins; /* an edge */
        if (kind == 1) v = lo;
        if (kind == 2) v = hi;
        switch (t) {
        case PCLR_UINT8: { const uint8_t u = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); memcpy(b, &u, 1); break; }
        case PCLR_INT8: { const int8_t u = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); memcpy(b, &u, 1); break; }
        case PCLR_UINT16: { const uint16_t u = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); memcpy(b, &u, 2); break; }
        case PCLR_INT16: { const int16_t u = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); memcpy(b, &u, 2); break; }
        case PCLR_UINT: { const uint32_t u = (uint32_t)(v < 0 ? 0 : v); memcpy(b, &u, 4); break; }
        case PCLR_INT: { const int32_t u = (int32_t)v; memcpy(b, &u, 4); break; }
        case PCLR_UINT64: { const uint64_t u = kind == 3 ? r : (uint64_t)(v < 0 ? 0 : v); memcpy(b, &u, 8); break; }
        case PCLR_INT64: { const int64_t u = kind == 3 ? (int64_t)r : (int64_t)v; memcpy(b, &u, 8); break; }
        case PCLR_HALF: { /* a random half: 1 in 16 any bit pattern (NaN, inf, subnormals) */
            uint16_t h = (uint16_t)r;
            if (kind != 3) { /* the half nearest below v, through its float */
                const float f = (float)v;
                uint32_t u;
                int e;
                memcpy(&u, &f, 4);
                e = (int)(u >> 23 & 0xff) - 127 + 15;
                h = (uint16_t)(u >> 16 & 0x8000);
                if (e >= 31) h |= 0x7c00;
                else if (e > 0) h |= (uint16_t)(e << 10 | (u >> 13 & 0x3ff));
            }
            memcpy(b, &h, 2);
            break;
        }
        case PCLR_FLOAT: {
            float f = (float)v;
            if (kind == 3) f = (r >> 8) % 3 == 0 ? NAN : (r >> 8) % 3 == 1 ? INFINITY : -INFINITY;
            memcpy(b, &f, 4);
            break;
        }
        default: {
            double d = v;
            if (kind == 3) d = (r >> 8) % 3 == 0 ? NAN : (r >> 8) % 3 == 1 ? INFINITY : -INFINITY;
            memcpy(b, &d, 8);
            break;
        }
        }
        memcpy((unsigned char *)x + i * es, b, es);
    }
}

static int g_fp64;

static pclr_result hist_reduce(pclr_context *ctx, pclr_buffer *bx, pclr_buffer *by, const pclr_config *c, const void *x, const void *y,
                               size_t xbytes, uint64_t off, uint64_t n, double lo, double hi, const double *params, void *result) {
    pclr_input in;
    pclr_result r;
    if ((r = pclr_buffer_write(ctx, bx, 0, x, xbytes)) != PCLR_OK) return r;
    if (y && (r = pclr_buffer_write(ctx, by, 0, y, xbytes)) != PCLR_OK) return r;
    memset(&in, 0, sizeof in);
    in.x = bx;
    in.x_offset = off;
    in.y = y ? by : NULL;
    in.y_offset = off;
    in.n = n;
    in.lo = lo;
    in.hi = hi;
    in.params = params;
    return pclr_reduce(ctx, c, &in, result, pclr_result_size(c));
}

/* 1. every type, bins, clamp, size, offset */
static void counts(pclr_context *ctx, pclr_buffer *bx, pclr_buffer *by) {
    static const pclr_type types[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT, PCLR_INT, PCLR_UINT64, PCLR_INT64,
                                      PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
    static const uint32_t bins_of[] = {1, 7, 256, 4001, 65536};
    static const uint64_t sizes[] = {0, 1, 7, 1031, 100003, (1u << 20) + 3};
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    const size_t most = ((size_t)1 << 20) + 8;
    unsigned char *x = (unsigned char *)malloc(most * 8);
    double *v = (double *)malloc(most * 8);
    uint64_t *want = (uint64_t *)malloc((PCLR_HISTOGRAM_MAX_BINS + 3) * 8);
    unsigned char *got = (unsigned char *)malloc(48 + (PCLR_HISTOGRAM_MAX_BINS + 3) * 8);
    size_t ti, bi, si;
    (void)by;
    if (!CHECK(x && v && want && got, "malloc")) goto done;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ++ti)
        for (bi = 0; bi < sizeof bins_of / sizeof bins_of[0]; ++bi) {
            const pclr_type t = types[ti];
            const uint32_t bins = bins_of[bi];
            const int fl = pclr_type_size(t) <= 2 || t == PCLR_FLOAT, clamp = (int)((ti + bi) % 2); /* (binned in float) */
            /* ranges: integers' natural one for 8/16-bit elements, else one the compute type rounds */
            const double lo = t == PCLR_UINT8 ? 0 : t == PCLR_INT8 ? -100.5 : fl ? 0.1 : t == PCLR_UINT64 ? 1e3 : -1234.25;
            const double hi = t == PCLR_UINT8 ? 256 : t == PCLR_INT8 ? 100 : fl ? 1000.3 : t == PCLR_UINT64 ? 9e15 : 98765.5;
            pclr_config c;
            if (bins == 65536 && ti % 4 != 0) continue; /* (the largest histograms: a sample of the types) */
            if (bins == 4001 && ti % 3 != 1) continue;
            /* a device's kernels: half of the (type, bins) pairs, which half by the seed (PoCL builds one in 2 s) */
            if (pclr_get_backend(ctx) != PCLR_CPU && (ti + bi + g_seed) % 2) continue;
            if (!fl && !g_fp64) { SKIP("%s: %s histogram: no fp64 (binned in double)", bn, pclr_type_name(t)); continue; }
            memset(&c, 0, sizeof c);
            c.type = t;
            c.op = PCLR_HISTOGRAM;
            c.bins = bins;
            c.clamp = clamp;
            /* both counting strategies on every backend: stride global (the group's bins in local memory, atomics) and
               local (a CPU's: each work-item's own bins up to 1024, then the group's) */
            c.stride = (ti + g_seed) % 2 ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                const uint64_t n = sizes[si], off = si % 2 ? 3 : 0;
                uint64_t i;
                char why[256];
                pclr_result r;
                if (n > 100003 && (t != PCLR_FLOAT || bins > 4001)) continue;
                g_rng = g_seed ^ (0x10000u * (unsigned)ti + 0x100u * (unsigned)bi + (unsigned)si);
                fill(t, x, n + off, lo, hi, bins);
                for (i = 0; i < n; ++i) v[i] = value_at(t, x, off + i);
                ref_hist(fl, v, n, lo, hi, bins, clamp, want);
                r = hist_reduce(ctx, bx, NULL, &c, x, NULL, (size_t)(n + off) * pclr_type_size(t), off, n, lo, hi, NULL, got);
                if (!CHECK(r == PCLR_OK, "%s: %s histogram of %llu, %u bins: %s", bn, pclr_type_name(t), (unsigned long long)n, bins,
                           pclr_last_error(ctx)))
                    continue;
                CHECK(same_counts(got, want, bins, fl, lo, hi, why, sizeof why), "%s: %s histogram of %llu from %llu, %u bins%s over [%g, %g): %s",
                      bn, pclr_type_name(t), (unsigned long long)n, (unsigned long long)off, bins, clamp ? " clamped" : "", lo, hi, why);
            }
        }
done:
    free(x);
    free(v);
    free(want);
    free(got);
}

/* 1'. 8- and 16-bit integers over ranges whose lo is an integer and scale a power of two, which the kernels bin by an
   integer shift (pclr_shift_bin), and a few that are not: every value of the type, each range's edges among them, against
   the reference's float rule (a device: a third of the ranges and the stride by the seed; PoCL builds each kernel in seconds) */
static void shift_ranges(pclr_context *ctx, pclr_buffer *bx) {
    static const struct { pclr_type t; double lo, hi; uint32_t bins; } r[] = {
        {PCLR_UINT8, 0, 256, 256},        {PCLR_UINT8, 0, 256, 64},       {PCLR_UINT8, 16, 80, 64},    {PCLR_UINT8, 100, 356, 1},
        {PCLR_UINT8, -8388608, 8388608, 1}, {PCLR_UINT8, 3, 259.5, 256},  {PCLR_UINT8, 0.5, 256.5, 256},
        {PCLR_INT8, -128, 128, 256},      {PCLR_INT8, -64, 64, 32},       {PCLR_INT8, -100, 28, 128},  {PCLR_INT8, -8388608, 8388608, 4096},
        {PCLR_UINT16, 0, 65536, 65536},   {PCLR_UINT16, 0, 65536, 256},   {PCLR_UINT16, 1000, 5096, 1024},
        {PCLR_UINT16, 0, 4294967296.0, 1}, {PCLR_INT16, -32768, 32768, 4096}, {PCLR_INT16, -3, 1021, 1024}, {PCLR_INT16, 8388609, 8388611, 2}};
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    const size_t most = 65536 * 2;
    unsigned char *x = (unsigned char *)malloc(most * 2);
    double *v = (double *)malloc(most * 8);
    uint64_t *want = (uint64_t *)malloc((PCLR_HISTOGRAM_MAX_BINS + 3) * 8);
    unsigned char *got = (unsigned char *)malloc(48 + (PCLR_HISTOGRAM_MAX_BINS + 3) * 8);
    size_t j;
    if (!CHECK(x && v && want && got, "malloc")) goto done;
    for (j = 0; j < sizeof r / sizeof r[0]; ++j) {
        const pclr_type t = r[j].t;
        const size_t es = pclr_type_size(t), values = es == 1 ? 256 : 65536, n = 2 * values; /* every value twice */
        uint64_t i;
        char why[256];
        pclr_config c;
        pclr_result res;
        if (pclr_get_backend(ctx) != PCLR_CPU && (j + g_seed) % 3) continue; /* (a device: a third of the ranges, by the seed) */
        memset(&c, 0, sizeof c);
        c.type = t;
        c.op = PCLR_HISTOGRAM;
        c.bins = r[j].bins;
        c.clamp = (int)((j + g_seed) % 2);
        c.stride = (j + g_seed / 2) % 2 ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
        for (i = 0; i < n; ++i) {
            const uint32_t u = (uint32_t)((i * 40503u) % values); /* (a permutation, so a run is not one value) */
            if (es == 1) x[i] = (unsigned char)u;
            else memcpy(x + 2 * i, &u, 2);
            v[i] = value_at(t, x, i);
        }
        ref_hist(1, v, n, r[j].lo, r[j].hi, r[j].bins, c.clamp, want);
        res = hist_reduce(ctx, bx, NULL, &c, x, NULL, n * es, 0, n, r[j].lo, r[j].hi, NULL, got);
        if (!CHECK(res == PCLR_OK, "%s: %s histogram over [%g, %g) in %u bins: %s", bn, pclr_type_name(t), r[j].lo, r[j].hi, r[j].bins, pclr_last_error(ctx)))
            continue;
        CHECK(same_counts(got, want, r[j].bins, 1, r[j].lo, r[j].hi, why, sizeof why), "%s: every %s over [%g, %g) in %u bins%s: %s", bn, pclr_type_name(t),
              r[j].lo, r[j].hi, r[j].bins, c.clamp ? " clamped" : "", why);
    }
done:
    free(x);
    free(v);
    free(want);
    free(got);
}

/* 2. maps; 3. combine and finalize */
static void maps(pclr_context *ctx, pclr_buffer *bx, pclr_buffer *by) {
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    const uint64_t n = 20011;
    float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);
    int16_t *s = (int16_t *)malloc(n * 2);
    double *v = (double *)malloc(n * 8);
    uint64_t *want = (uint64_t *)malloc((64 + 3) * 8);
    unsigned char *got = (unsigned char *)malloc(48 + 64 * 8), *half[2], *sum = (unsigned char *)malloc(48 + 64 * 8);
    const double t = 0.25, lo = -2, hi = 3;
    uint64_t i;
    char why[256];
    pclr_config c;
    half[0] = (unsigned char *)malloc(48 + 64 * 8);
    half[1] = (unsigned char *)malloc(48 + 64 * 8);
    if (!CHECK(x && y && s && v && want && got && half[0] && half[1] && sum, "malloc")) goto done;
    g_rng = g_seed ^ 0xabcdef;
    for (i = 0; i < n; ++i) {
        x[i] = (float)(8 * unit() - 4);
        y[i] = (float)(2 * unit() - 1);
        s[i] = (int16_t)(pclr_test_rand(&g_rng) % 2000) - 1000;
    }
    /* a float map with a parameter */
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;
    c.op = PCLR_HISTOGRAM;
    c.bins = 64;
    c.map = "x * 0.5 + t";
    c.params = "float t";
    for (i = 0; i < n; ++i) v[i] = (double)(x[i] * 0.5f + (float)t);
    ref_hist(1, v, n, lo, hi, 64, 0, want);
    if (CHECK(hist_reduce(ctx, bx, by, &c, x, NULL, n * 4, 0, n, lo, hi, &t, got) == PCLR_OK, "%s: map %s: %s", bn, c.map, pclr_last_error(ctx)))
        CHECK(same_counts(got, want, 64, 1, lo, hi, why, sizeof why), "%s: histogram of %s: %s", bn, c.map, why);
    { /* the CPU reference of the same (params: t, then lo and hi) */
        const double p[3] = {t, lo, hi};
        if (CHECK(pclr_cpu_reduce_map(&c, x, NULL, n, p, got) == PCLR_OK, "pclr_cpu_reduce_map"))
            CHECK(same_counts(got, want, 64, 1, lo, hi, why, sizeof why), "pclr_cpu_reduce_map: histogram of %s: %s", c.map, why);
    }
    /* without the parameters' values */
    {
        pclr_input in;
        memset(&in, 0, sizeof in);
        in.x = bx;
        in.n = n;
        in.lo = lo;
        in.hi = hi;
        CHECK(pclr_reduce(ctx, &c, &in, got, pclr_result_size(&c)) == PCLR_ERR_NULL_POINTER, "%s: a map's parameters missing: refused", bn);
        /* results too small */
        in.params = &t;
        CHECK(pclr_reduce(ctx, &c, &in, got, pclr_result_size(&c) - 8) == PCLR_ERR_BUFFER_TOO_SMALL, "%s: results too small: refused", bn);
    }
    /* combine: the halves' histograms add up to the whole's */
    if (CHECK(hist_reduce(ctx, bx, by, &c, x, NULL, n * 4, 0, n / 2, lo, hi, &t, half[0]) == PCLR_OK &&
                  hist_reduce(ctx, bx, by, &c, x, NULL, n * 4, n / 2, n - n / 2, lo, hi, &t, half[1]) == PCLR_OK,
              "%s: the halves: %s", bn, pclr_last_error(ctx)) &&
        CHECK(pclr_combine(&c, half[0], half[1], n / 2, sum) == PCLR_OK, "pclr_combine"))
        CHECK(same_counts(sum, want, 64, 1, lo, hi, why, sizeof why), "%s: the halves combined: %s", bn, why);
    {   /* other ranges do not combine */
        pclr_histogram_result h;
        memcpy(&h, half[1], sizeof h);
        h.hi = 4;
        memcpy(half[1], &h, sizeof h);
        CHECK(pclr_combine(&c, half[0], half[1], n / 2, sum) == PCLR_ERR_INVALID_ARGUMENT, "pclr_combine of other ranges: refused");
    }
    /* two inputs: x * y */
    c.map = "x * y";
    c.params = NULL;
    c.y_type = PCLR_FLOAT;
    for (i = 0; i < n; ++i) v[i] = (double)(x[i] * y[i]);
    ref_hist(1, v, n, lo, hi, 64, 1, want);
    c.clamp = 1;
    if (CHECK(hist_reduce(ctx, bx, by, &c, x, y, n * 4, 0, n, lo, hi, NULL, got) == PCLR_OK, "%s: map %s: %s", bn, c.map, pclr_last_error(ctx)))
        CHECK(same_counts(got, want, 64, 1, lo, hi, why, sizeof why), "%s: histogram of %s: %s", bn, c.map, why);
    /* an integer map of int16 (binned in double) */
    if (g_fp64) {
        memset(&c, 0, sizeof c);
        c.type = PCLR_INT16;
        c.op = PCLR_HISTOGRAM;
        c.bins = 64;
        c.map = "x * 3 - 7";
        for (i = 0; i < n; ++i) v[i] = (double)(s[i] * 3 - 7);
        ref_hist(0, v, n, -3000.5, 3000, 64, 0, want);
        if (CHECK(hist_reduce(ctx, bx, by, &c, s, NULL, n * 2, 0, n, -3000.5, 3000, NULL, got) == PCLR_OK, "%s: map %s: %s", bn, c.map,
                  pclr_last_error(ctx)))
            CHECK(same_counts(got, want, 64, 0, -3000.5, 3000, why, sizeof why), "%s: histogram of %s: %s", bn, c.map, why);
    }
    /* an asynchronous reduce's state, finalized (the backends whose async reduce needs no program's command buffer, and
       has states: the CPU context writes results) */
    if (pclr_get_backend(ctx) == PCLR_OPENCL || pclr_get_backend(ctx) == PCLR_CUDA) {
        pclr_buffer *states = NULL;
        pclr_input in;
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.op = PCLR_HISTOGRAM;
        c.bins = 64;
        memset(&in, 0, sizeof in);
        in.x = bx;
        in.n = n;
        in.lo = lo;
        in.hi = hi;
        for (i = 0; i < n; ++i) v[i] = x[i];
        ref_hist(1, v, n, lo, hi, 64, 0, want);
        if (CHECK(pclr_buffer_write(ctx, bx, 0, x, n * 4) == PCLR_OK && pclr_buffer_create(ctx, pclr_state_size(&c), &states) == PCLR_OK,
                  "%s: a states buffer", bn)) {
            if (CHECK(pclr_reduce_async(ctx, &c, &in, states, 0, NULL) == PCLR_OK, "%s: async: %s", bn, pclr_last_error(ctx)) &&
                CHECK(pclr_buffer_read(ctx, states, 0, got, pclr_state_size(&c)) == PCLR_OK, "%s: the state read", bn) &&
                CHECK(pclr_finalize(&c, got, got) == PCLR_OK, "pclr_finalize"))
                CHECK(same_counts(got, want, 64, 1, lo, hi, why, sizeof why), "%s: async histogram, finalized: %s", bn, why);
            pclr_buffer_destroy(ctx, states);
        }
    }
done:
    free(x);
    free(y);
    free(s);
    free(v);
    free(want);
    free(got);
    free(half[0]);
    free(half[1]);
    free(sum);
}

/* 3'. a histogram per row, column and segment (and a map of two inputs per row) */
static void layouts(pclr_context *ctx) {
    /* y: a map x * y of float y; 2: weighted by y too */
    static const struct { pclr_layout layout; pclr_type t; uint64_t rows, cols, pitch; uint32_t bins; double lo, hi; int y; } shapes[] = {
        {PCLR_LAYOUT_ROWS, PCLR_FLOAT, 37, 1001, 1003, 16, -0.75, 0.5, 0}, {PCLR_LAYOUT_ROWS, PCLR_FLOAT, 300, 5, 5, 7, -1, 1, 2},
        {PCLR_LAYOUT_COLUMNS, PCLR_UINT8, 513, 29, 31, 256, 0, 256, 0}, {PCLR_LAYOUT_SEGMENTS, PCLR_INT16, 20, 0, 0, 100, -20000, 20000, 0},
        {PCLR_LAYOUT_ROWS, PCLR_DOUBLE, 3, 70001, 70001, 4000, -0.5, 0.5, 0}, {PCLR_LAYOUT_COLUMNS, PCLR_FLOAT, 40, 900, 903, 5, -0.5, 0.5, 2},
        {PCLR_LAYOUT_SEGMENTS, PCLR_UINT16, 20, 0, 0, 65536, 0, 65536, 0}}; /* (65536 bins: counted in the results' states) */
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    size_t si;
    uint32_t k;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
        const pclr_type t = shapes[si].t;
        const int fl = t == PCLR_FLOAT || pclr_type_size(t) <= 2, seg = shapes[si].layout == PCLR_LAYOUT_SEGMENTS, colw = shapes[si].layout == PCLR_LAYOUT_COLUMNS;
        const uint32_t bins = shapes[si].bins;
        const uint64_t results = colw ? shapes[si].cols : shapes[si].rows;
        const uint64_t n = seg ? 30011 : (shapes[si].rows - 1) * shapes[si].pitch + shapes[si].cols, off = 3;
        const size_t es = pclr_type_size(t), rs = 48 + 8 * (size_t)bins + (shapes[si].y == 2 ? 8 * ((size_t)bins + 3) : 0);
        unsigned char *x = (unsigned char *)malloc((size_t)(n + off) * es), *got = (unsigned char *)malloc((size_t)results * rs);
        float *y = shapes[si].y ? (float *)malloc((size_t)(n + off) * 4) : NULL;
        double *v = (double *)malloc((size_t)n * 8);
        uint64_t *want = (uint64_t *)malloc(((size_t)bins + 3) * 8), offsets[21], r, i;
        long double wsum[16 + 3]; /* (weighted: at most 16 bins) */
        pclr_buffer *bx = NULL, *by = NULL, *bo = NULL;
        pclr_config c;
        pclr_input in;
        pclr_result e;
        char why[256];
        if (t == PCLR_DOUBLE && !g_fp64) { free(x); free(got); free(y); free(v); free(want); continue; }
        if (!CHECK(x && got && v && want && (!shapes[si].y || y), "malloc")) { free(x); free(got); free(y); free(v); free(want); return; }
        g_rng = g_seed ^ (0xfeed00u + (unsigned)si);
        fill(t, x, n + off, shapes[si].lo, shapes[si].hi, bins);
        if (y) for (i = 0; i < n + off; ++i) y[i] = (float)(2 * unit() - 1);
        offsets[0] = 0;
        for (r = 1; r <= 20; ++r) offsets[r] = r == 5 || r == 6 ? offsets[r - 1] : offsets[r - 1] + pclr_test_rand(&g_rng) % 1400; /* (5: empty; at most 26600 < n) */
        memset(&c, 0, sizeof c);
        c.type = t;
        c.op = PCLR_HISTOGRAM;
        c.bins = bins;
        c.layout = shapes[si].layout;
        c.rows = shapes[si].rows;
        c.cols = shapes[si].cols;
        c.pitch = shapes[si].pitch;
        c.clamp = (int)(si % 2);
        if (y) {
            c.map = "x * y";
            c.y_type = PCLR_FLOAT;
            c.weighted = shapes[si].y == 2;
        }
        if (!CHECK(pclr_result_size(&c) == rs, "%s: %s histogram's result size", bn, pclr_layout_name(c.layout))) {
            free(x); free(got); free(y); free(v); free(want);
            continue;
        }
        memset(&in, 0, sizeof in);
        in.lo = shapes[si].lo;
        in.hi = shapes[si].hi;
        in.n = n;
        in.x_offset = in.y_offset = off;
        if ((e = pclr_buffer_create(ctx, (size_t)(n + off) * es, &bx)) != PCLR_OK || (e = pclr_buffer_write(ctx, bx, 0, x, (size_t)(n + off) * es)) != PCLR_OK ||
            (y && ((e = pclr_buffer_create(ctx, (size_t)(n + off) * 4, &by)) != PCLR_OK || (e = pclr_buffer_write(ctx, by, 0, y, (size_t)(n + off) * 4)) != PCLR_OK)) ||
            (seg && ((e = pclr_buffer_create(ctx, sizeof offsets, &bo)) != PCLR_OK || (e = pclr_buffer_write(ctx, bo, 0, offsets, sizeof offsets)) != PCLR_OK))) {
            CHECK(0, "%s: buffers: %s", bn, pclr_last_error(ctx));
        } else {
            in.x = bx;
            in.y = by;
            in.offsets = bo;
            e = pclr_reduce(ctx, &c, &in, got, (size_t)results * rs);
            if (CHECK(e == PCLR_OK, "%s: %s histograms of %s: %s", bn, pclr_layout_name(c.layout), pclr_type_name(t), pclr_last_error(ctx)))
                for (r = 0; r < results; ++r) {
                    const uint64_t lo = seg ? offsets[r] : colw ? r : r * c.pitch;
                    const uint64_t len = seg ? offsets[r + 1] - offsets[r] : colw ? c.rows : c.cols, step = colw ? c.pitch : 1;
                    for (k = 0; k < bins + 3 && c.weighted; ++k) wsum[k] = 0;
                    for (i = 0; i < len; ++i) {
                        const uint64_t at = off + lo + i * step;
                        v[i] = y ? (double)(((const float *)x)[at] * y[at]) : value_at(t, x, at);
                        if (c.weighted) wsum[ref_bin(fl, v[i], in.lo, in.hi, bins, c.clamp)] += y[at]; /* (exact: 64-bit significands) */
                    }
                    ref_hist(fl, v, len, in.lo, in.hi, bins, c.clamp, want);
                    if (!CHECK(same_counts(got + r * rs, want, bins, fl, in.lo, in.hi, why, sizeof why), "%s: %s histogram %llu of %llu (%s, %u bins): %s",
                               bn, pclr_layout_name(c.layout), (unsigned long long)r, (unsigned long long)results, pclr_type_name(t), bins, why))
                        break;
                    for (k = 0; k < bins + 3 && c.weighted && LDBL_MANT_DIG >= 64; ++k)
                        if (!CHECK(pclr_histogram_sum(got + r * rs, k) == (double)wsum[k], "%s: %s histogram %llu: entry %u's weights sum to %.17g, want %.17g",
                                   bn, pclr_layout_name(c.layout), (unsigned long long)r, k, pclr_histogram_sum(got + r * rs, k), (double)wsum[k]))
                            break;
                }
            if (seg) { /* offsets past n: refused (checked on the device) */
                const uint64_t bad = n + 1;
                if (CHECK(pclr_buffer_write(ctx, bo, 20 * 8, &bad, 8) == PCLR_OK, "%s: offsets", bn))
                    CHECK(pclr_reduce(ctx, &c, &in, got, (size_t)results * rs) == PCLR_ERR_SIZE_OVERFLOW, "%s: a segment past n: refused", bn);
            }
        }
        if (bo) pclr_buffer_destroy(ctx, bo);
        if (by) pclr_buffer_destroy(ctx, by);
        if (bx) pclr_buffer_destroy(ctx, bx);
        free(x);
        free(got);
        free(y);
        free(v);
        free(want);
    }
}

/* 4. what is refused, and why */
static void refusals(pclr_context *ctx, pclr_buffer *bx) {
    static const struct { double lo, hi; } bad[] = {{1, 1}, {2, 1}, {NAN, 1}, {0, INFINITY}, {-3e38, 3e38}, {0, 1e300}};
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    unsigned char got[48 + 8 * 8];
    pclr_config c, o;
    pclr_input in;
    const char *why;
    size_t k;
    memset(&c, 0, sizeof c);
    c.op = PCLR_HISTOGRAM;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_ERR_INVALID_KNOB, "bins 0: refused");
    c.bins = PCLR_HISTOGRAM_MAX_BINS + 1;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_ERR_INVALID_KNOB, "bins 65537: refused");
    c.bins = 8;
    c.accumulate = PCLR_WIDE;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "a histogram with accumulate wide: refused");
    c.accumulate = PCLR_NATIVE;
    c.layout = PCLR_LAYOUT_ROWS;
    c.rows = c.cols = 4;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_OK, "a histogram per row of 8 bins resolves");
    c.bins = PCLR_HISTOGRAM_MAX_BINS;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_OK, "a histogram per row of 65536 bins resolves (counted in the state)");
    c.bins = 8;
    c.layout = PCLR_LAYOUT_ONE;
    c.rows = c.cols = 0;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_OK && pclr_result_size(&c) == 48 + 8 * 8, "a histogram resolves; its result: 112 bytes");
    c.op = PCLR_SUM;
    CHECK(pclr_config_resolve(&c, &o, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "bins on a sum: refused");
    c.op = PCLR_HISTOGRAM;
    memset(&in, 0, sizeof in);
    in.x = bx;
    in.n = 10;
    for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        in.lo = bad[k].lo;
        in.hi = bad[k].hi;
        CHECK(pclr_reduce(ctx, &c, &in, got, sizeof got) == PCLR_ERR_INVALID_ARGUMENT, "%s: range [%g, %g): refused", bn, in.lo, in.hi);
    }
}

/* 7. weights: each entry's sum of y, exact and rounded once to double. The reference adds in long double
   (64-bit significands where the test runs): weights k 2^E, |k| < 2^20, with E one of two exponents at
   most 26 apart, so that a sum of up to 2^17 of them is exact there (26 + 20 + 17 < 64) and its rounding
   to double is the one the library must give. */
static float weight_at(int lo_e, int spread) {
    const uint64_t r = pclr_test_rand(&g_rng);
    const int e = lo_e + (r & 1u ? spread : 0);
    const double k = (double)((r >> 8) & 0xFFFFFu) * (r & 2u ? -1.0 : 1.0);
    if ((r >> 40) % 97 == 0) return (r >> 50) & 1u ? -0.0f : 0.0f;
    return (float)ldexp(k, e); /* exact: at most 20 bits, an exponent floats hold (subnormals too) */
}
/* the weighted config of bins b, drawn k: clamp and stride by the seed (stride global at unroll 2: a CPU's default 32
   inlines 128 weighings, which PoCL builds for 20 s) */
static void weighted_config(pclr_config *c, uint32_t bins, size_t k) {
    memset(c, 0, sizeof *c);
    c->type = PCLR_FLOAT;
    c->y_type = PCLR_FLOAT;
    c->op = PCLR_HISTOGRAM;
    c->bins = bins;
    c->clamp = (int)((k + g_seed) % 2);
    c->weighted = 1;
    c->stride = (k + g_seed) % 2 ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
    c->unroll = c->stride == PCLR_STRIDE_GLOBAL ? 2 : 0;
}
static void weights(pclr_context *ctx, pclr_buffer *bx, pclr_buffer *by) {
#if LDBL_MANT_DIG >= 64
    static const uint32_t bins_of[] = {1, 64, 256};
    static const uint64_t sizes[] = {0, 1, 1031, 100003};
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    const uint64_t most = 100003 + 3;
    float *x = (float *)malloc(most * 4), *w = (float *)malloc(most * 4);
    long double *want = (long double *)malloc((256 + 3) * sizeof(long double));
    uint64_t *cnt = (uint64_t *)malloc((256 + 3) * 8);
    unsigned char *got = (unsigned char *)malloc(48 + (256 + 256 + 3) * 8);
    size_t bi, si;
    if (!CHECK(x && w && want && cnt && got, "malloc")) goto done;
    for (bi = 0; bi < sizeof bins_of / sizeof bins_of[0]; ++bi)
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const uint32_t bins = bins_of[bi];
            const uint64_t n = sizes[si], off = si % 2 ? 3 : 0;
            const double lo = -10.5, hi = 20.25;
            int lo_e, spread;
            uint64_t i, k;
            char why[256];
            pclr_config c;
            pclr_result r;
            if (bi == 1 && pclr_get_backend(ctx) != PCLR_CPU) continue; /* (a device: 1 and 256 bins, a kernel each; PoCL takes seconds) */
            weighted_config(&c, bins, bi);
            g_rng = g_seed ^ (0x7000000u + 0x100u * (unsigned)bi + (unsigned)si);
            lo_e = -149 + (int)(pclr_test_rand(&g_rng) % 208); /* -149 .. 58: subnormal to 2^104 */
            spread = (int)(pclr_test_rand(&g_rng) % 27);
            for (i = 0; i < n + off; ++i) {
                x[i] = (float)(lo - 3 + (hi - lo + 6) * unit());
                if (i % 101 == 7) x[i] = NAN;
                w[i] = weight_at(lo_e, spread);
            }
            memset(want, 0, (bins + 3) * sizeof *want);
            memset(cnt, 0, (bins + 3) * 8);
            for (i = 0; i < n; ++i) {
                const uint32_t b = ref_bin(1, x[off + i], lo, hi, bins, c.clamp);
                want[b] += w[off + i];
                ++cnt[b];
            }
            if (!CHECK(pclr_result_size(&c) == 48 + 8 * (size_t)bins + 8 * ((size_t)bins + 3), "%s: weighted result size", bn)) continue;
            r = hist_reduce(ctx, bx, by, &c, x, w, (size_t)(n + off) * 4, off, n, lo, hi, NULL, got);
            if (!CHECK(r == PCLR_OK, "%s: weighted histogram of %llu, %u bins: %s", bn, (unsigned long long)n, bins, pclr_last_error(ctx)))
                continue;
            CHECK(((const pclr_histogram_result *)(const void *)got)->weighted == 1, "%s: the result says weighted", bn);
            CHECK(same_counts(got, cnt, bins, 1, lo, hi, why, sizeof why), "%s: weighted histogram of %llu, %u bins: counts: %s", bn,
                  (unsigned long long)n, bins, why);
            if (n == 1031 && (pclr_get_backend(ctx) == PCLR_OPENCL || pclr_get_backend(ctx) == PCLR_CUDA)) {
                /* an asynchronous reduce's state (the sums' digits), finalized: the blocking reduce's result */
                pclr_buffer *states = NULL;
                unsigned char *st = (unsigned char *)malloc(pclr_state_size(&c));
                pclr_input in;
                memset(&in, 0, sizeof in);
                in.x = bx;
                in.y = by;
                in.x_offset = in.y_offset = off;
                in.n = n;
                in.lo = lo;
                in.hi = hi;
                if (CHECK(st && pclr_buffer_create(ctx, pclr_state_size(&c), &states) == PCLR_OK, "%s: a weighted states buffer", bn) &&
                    CHECK(pclr_reduce_async(ctx, &c, &in, states, 0, NULL) == PCLR_OK, "%s: weighted async: %s", bn, pclr_last_error(ctx)) &&
                    CHECK(pclr_buffer_read(ctx, states, 0, st, pclr_state_size(&c)) == PCLR_OK, "%s: the weighted state read", bn) &&
                    CHECK(pclr_finalize(&c, st, st) == PCLR_OK, "pclr_finalize of a weighted state"))
                    CHECK(memcmp(st, got, pclr_result_size(&c)) == 0, "%s: weighted async histogram, finalized in place: the blocking result", bn);
                if (states) pclr_buffer_destroy(ctx, states);
                free(st);
            }
            for (k = 0; k < bins + 3; ++k) {
                const double g = pclr_histogram_sum(got, k), e = (double)want[k];
                if (!CHECK(g == e && signbit(g) == signbit(e), "%s: weighted histogram of %llu, %u bins, weights 2^%d and 2^%d: entry %llu "
                           "sums to %.17g, want %.17g", bn, (unsigned long long)n, bins, lo_e, lo_e + spread, (unsigned long long)k, g, e))
                    break;
            }
        }
    { /* infinities and NaN in the weights: as IEEE adds them; a huge sum stays exact past FLT_MAX */
        static const float special[][3] = {{INFINITY, 1, 2}, {-INFINITY, 1, 2}, {INFINITY, -INFINITY, 1}, {NAN, 1, 2},
                                           {FLT_MAX, FLT_MAX, -FLT_MAX}, {1e-45f, -1e-45f, 1e-45f}, {3e38f, 3e38f, 3e38f}};
        const float xs[3] = {0.001f, 0.002f, 0.003f}; /* all in bin 0 of [0, 2) */
        size_t j;
        pclr_config c;
        weighted_config(&c, 256, 2); /* (the loop's kernel of 256 bins) */
        for (j = 0; j < sizeof special / sizeof special[0]; ++j) {
            const long double e = (long double)special[j][0] + special[j][1] + special[j][2];
            const double want_sum = (double)e;
            double g;
            if (!CHECK(hist_reduce(ctx, bx, by, &c, xs, special[j], sizeof xs, 0, 3, 0, 2, NULL, got) == PCLR_OK, "%s: weights %g %g %g: %s",
                       bn, special[j][0], special[j][1], special[j][2], pclr_last_error(ctx)))
                continue;
            g = pclr_histogram_sum(got, 0);
            CHECK(pclr_histogram_count(got, 0) == 3 && (g == want_sum || (g != g && want_sum != want_sum)) && pclr_histogram_sum(got, 1) == 0,
                  "%s: weights %g %g %g sum to %.17g, want %.17g", bn, special[j][0], special[j][1], special[j][2], g, want_sum);
        }
        c.bins = 257;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "a weighted histogram of 257 bins: refused");
        c.bins = 4;
        c.y_type = PCLR_DOUBLE;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "double weights: refused");
        c.y_type = PCLR_FLOAT;
        c.layout = PCLR_LAYOUT_ROWS;
        c.rows = c.cols = 4;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_OK, "weighted rows resolve (layouts(): their sums)");
        if (pclr_get_backend(ctx) == PCLR_OPENCL && (strstr(pclr_device_name(ctx), "pthread") || strstr(pclr_device_name(ctx), "cpu-"))) {
            /* PoCL: 1024 work-items of their own 256 weighted bins (23 KB each) crashed it; refused with a sentence */
            pclr_result r;
            weighted_config(&c, 256, 0);
            c.stride = PCLR_STRIDE_LOCAL;
            c.group_size = 1024;
            r = hist_reduce(ctx, bx, by, &c, xs, special[0], sizeof xs, 0, 3, 0, 2, NULL, got);
            CHECK(r == PCLR_ERR_UNSUPPORTED_BY_DEVICE && strstr(pclr_last_error(ctx), "4 MiB"), "%s: 1024 work-items of 256 weighted bins each: %s (%s)", bn,
                  pclr_result_string(r), pclr_last_error(ctx));
        }
    }
done:
    free(x);
    free(w);
    free(want);
    free(cnt);
    free(got);
#else
    (void)ctx;
    (void)bx;
    (void)by;
    SKIP("weights: the reference needs a long double of 64 bits");
#endif
}

/* 3. the quantiles of histograms of known shape */
static void quantiles(void) {
    unsigned char r[48 + 4 * 8];
    pclr_histogram_result h;
    uint64_t c[4] = {1, 1, 1, 1};
    memset(&h, 0, sizeof h);
    h.bins = 4;
    h.lo = 0;
    h.hi = 4;
    memcpy(r, &h, sizeof h);
    memcpy(r + 48, c, sizeof c);
    CHECK(pclr_histogram_quantile(r, 0.5) == 2 && pclr_histogram_quantile(r, 0.25) == 1 && pclr_histogram_quantile(r, 0) == 0 &&
          pclr_histogram_quantile(r, 1) == 4, "quantiles of an even histogram: %g %g %g %g", pclr_histogram_quantile(r, 0.5),
          pclr_histogram_quantile(r, 0.25), pclr_histogram_quantile(r, 0), pclr_histogram_quantile(r, 1));
    CHECK(pclr_histogram_mean_between(r, 0, 1) == 2 && pclr_histogram_mean_between(r, 0.25, 0.5) == 1.5,
          "means between quantiles of an even histogram: %g %g", pclr_histogram_mean_between(r, 0, 1), pclr_histogram_mean_between(r, 0.25, 0.5));
    c[0] = 0; c[1] = 10; c[2] = 0; c[3] = 30; /* a quarter of the mass in bin 1, the rest in bin 3 */
    memcpy(r + 48, c, sizeof c);
    CHECK(fabs(pclr_histogram_quantile(r, 0.125) - 1.5) < 1e-12 && fabs(pclr_histogram_quantile(r, 0.5) - (3 + 1.0 / 3)) < 1e-12,
          "quantiles of a two-bin histogram: %.17g %.17g", pclr_histogram_quantile(r, 0.125), pclr_histogram_quantile(r, 0.5));
    CHECK(fabs(pclr_histogram_mean_between(r, 0, 1) - (10 * 1.5 + 30 * 3.5) / 40) < 1e-12 &&
              fabs(pclr_histogram_mean_between(r, 0.1, 0.9) - (6 * 1.5 + 26 * 3.5) / 32) < 1e-12,
          "means between quantiles of a two-bin histogram: %.17g %.17g", pclr_histogram_mean_between(r, 0, 1),
          pclr_histogram_mean_between(r, 0.1, 0.9));
    c[1] = c[3] = 0;
    memcpy(r + 48, c, sizeof c);
    CHECK(pclr_histogram_quantile(r, 0.5) != pclr_histogram_quantile(r, 0.5) && pclr_histogram_quantile(NULL, 0.5) != pclr_histogram_quantile(NULL, 0.5),
          "an empty histogram's quantile is NaN");
    CHECK(pclr_histogram_count(r, 4) == 0 && pclr_histogram_count(NULL, 0) == 0, "counts past the bins are 0");
    { /* a weighted histogram's quantiles weigh each bin by its sum: counts 1 1 1 1, sums 0 3 0 1 (and 7 out of range) */
        unsigned char wr[48 + 4 * 8 + 7 * 8];
        const uint64_t ones[4] = {1, 1, 1, 1};
        double sums[7] = {0, 3, 0, 1, 7, 7, 7};
        h.weighted = 1;
        memcpy(wr, &h, sizeof h);
        memcpy(wr + 48, ones, sizeof ones);
        memcpy(wr + 48 + sizeof ones, sums, sizeof sums);
        CHECK(pclr_histogram_sum(wr, 1) == 3 && pclr_histogram_sum(wr, 6) == 7 && pclr_histogram_sum(wr, 7) == 0 && pclr_histogram_sum(r, 1) == 0,
              "pclr_histogram_sum reads the sums after the counts (0 past them, and for an unweighted result)");
        CHECK(pclr_histogram_quantile(wr, 0.5) == 1 + 2.0 / 3 && pclr_histogram_quantile(wr, 0.75) == 2 &&
                  fabs(pclr_histogram_mean_between(wr, 0, 1) - (3 * 1.5 + 1 * 3.5) / 4) < 1e-12,
              "weighted quantiles: %.17g %.17g, mean %.17g", pclr_histogram_quantile(wr, 0.5), pclr_histogram_quantile(wr, 0.75),
              pclr_histogram_mean_between(wr, 0, 1));
        h.bins = PCLR_HISTOGRAM_MAX_WEIGHTED_BINS + 1; /* no weighted result has that many: nothing is read past the header */
        memcpy(wr, &h, sizeof h);
        CHECK(pclr_histogram_sum(wr, 0) == 0, "a weighted header of 257 bins: no sums read");
        h.bins = 4;
        memcpy(wr, &h, sizeof h);
        sums[2] = -0.5;
        memcpy(wr + 48 + sizeof ones, sums, sizeof sums);
        CHECK(pclr_histogram_quantile(wr, 0.5) != pclr_histogram_quantile(wr, 0.5), "a negative bin sum: no quantiles (NaN)");
    }
}

#ifdef PCLR_TEST_CUDA
/* 5. every type's histogram kernel (bins in local memory and not, clamped and not) and the maps' through NVRTC */
static void nvrtc_compiles(void) {
    static const pclr_type types[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT, PCLR_INT, PCLR_UINT64, PCLR_INT64,
                                      PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
    static const struct { pclr_type x, y; const char *map, *params; } maps[] = {
        {PCLR_FLOAT, PCLR_TYPE_DEFAULT, "x * 0.5 + t", "float t"}, {PCLR_FLOAT, PCLR_FLOAT, "x * y", NULL},
        {PCLR_INT16, PCLR_TYPE_DEFAULT, "x * 3 - 7", NULL}, {PCLR_UINT8, PCLR_TYPE_DEFAULT, "log2(max(float(x), 1.0) / k)", "double k"}};
    char log[4096], desc[512];
    long compiled = 0;
    size_t t, k;
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.op = PCLR_HISTOGRAM;
    c.bins = 1;
    if (pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log) == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): the CUDA kernels are not compiled", log);
        return;
    }
    for (t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (k = 0; k < 3; ++k) {
            pclr_result r;
            memset(&c, 0, sizeof c);
            c.type = types[t];
            c.op = PCLR_HISTOGRAM;
            c.backend = PCLR_CUDA;
            c.bins = k == 0 ? 256 : k == 1 ? 4001 : 1;
            c.clamp = (int)(k == 2);
            c.vector_width = k == 2 ? 1 : 0;
            c.stride = k == 0 ? PCLR_STRIDE_DEFAULT : PCLR_STRIDE_LOCAL; /* (1: 4001 bins in global memory; 2: a work-item's own bins) */
            pclr_config_describe(&c, desc, sizeof desc);
            r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
            ++compiled;
            CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", desc, pclr_result_string(r), log);
        }
    for (k = 0; k < 3; ++k) { /* a histogram per row, column, segment */
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.type = k == 1 ? PCLR_UINT8 : PCLR_FLOAT;
        c.op = PCLR_HISTOGRAM;
        c.backend = PCLR_CUDA;
        c.bins = k == 2 ? PCLR_HISTOGRAM_MAX_BINS : 256; /* (segments: counted in their states) */
        c.layout = k == 0 ? PCLR_LAYOUT_ROWS : k == 1 ? PCLR_LAYOUT_COLUMNS : PCLR_LAYOUT_SEGMENTS;
        c.rows = 100;
        c.cols = k == 2 ? 0 : 1000;
        if (k == 0) { c.map = "x * y"; c.y_type = PCLR_FLOAT; }
        pclr_config_describe(&c, desc, sizeof desc);
        r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
        ++compiled;
        CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", desc, pclr_result_string(r), log);
    }
    for (k = 0; k < sizeof maps / sizeof maps[0]; ++k) {
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.type = maps[k].x;
        c.y_type = maps[k].y;
        c.op = PCLR_HISTOGRAM;
        c.backend = PCLR_CUDA;
        c.bins = 64;
        c.map = maps[k].map;
        c.params = maps[k].params;
        r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
        ++compiled;
        CHECK(r == PCLR_OK, "NVRTC compute_90: map %s: %s\n%.3000s", maps[k].map, pclr_result_string(r), log);
    }
    for (k = 0; k < 3; ++k) { /* weighted: a load of 4 with its head and tail (2: a work-item's own sums), one of 1 per column */
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.y_type = PCLR_FLOAT;
        c.op = PCLR_HISTOGRAM;
        c.backend = PCLR_CUDA;
        c.bins = k == 1 ? 1 : 256;
        c.weighted = 1;
        c.vector_width = k == 1 ? 1 : 0;
        c.map = k == 1 ? "x * y" : NULL;
        c.stride = k == 2 ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_DEFAULT;
        if (k == 1) { /* one per column */
            c.layout = PCLR_LAYOUT_COLUMNS;
            c.rows = 1000;
            c.cols = 37;
        }
        pclr_config_describe(&c, desc, sizeof desc);
        r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
        ++compiled;
        CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", desc, pclr_result_string(r), log);
    }
    printf("nvrtc: %ld histogram kernels compiled\n", compiled);
}
#endif

/* 6. more than 2^32 elements in one bin: 2^32 + 5 uint8, all 7 but 200 at four places */
static void big(pclr_context *ctx) {
    const uint64_t n = ((uint64_t)1 << 32) + 5;
    const char *bn = pclr_backend_name(pclr_get_backend(ctx));
    unsigned char *x = (unsigned char *)malloc((size_t)n), r[48 + 256 * 8];
    pclr_buffer *bx = NULL;
    pclr_config c;
    pclr_input in;
    pclr_result e;
    if (!x) { SKIP("%s: no 4 GiB of host memory for the big histogram", bn); return; }
    memset(x, 7, (size_t)n);
    x[0] = x[12345] = x[n / 2] = x[n - 1] = 200;
    if ((e = pclr_buffer_create(ctx, (size_t)n, &bx)) != PCLR_OK || (e = pclr_buffer_write(ctx, bx, 0, x, (size_t)n)) != PCLR_OK) {
        SKIP("%s: no 4 GiB buffer for the big histogram: %s", bn, pclr_last_error(ctx));
        if (bx) pclr_buffer_destroy(ctx, bx);
        free(x);
        return;
    }
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT8;
    c.op = PCLR_HISTOGRAM;
    c.bins = 256;
    memset(&in, 0, sizeof in);
    in.x = bx;
    in.n = n;
    in.hi = 256;
    if ((e = pclr_reduce(ctx, &c, &in, r, sizeof r)) != PCLR_OK) SKIP("%s: the big histogram: %s", bn, pclr_last_error(ctx));
    else CHECK(pclr_histogram_count(r, 7) == n - 4 && pclr_histogram_count(r, 200) == 4 && pclr_histogram_count(r, 8) == 0,
               "%s: 2^32 + 5 elements: bin 7 %llu (want %llu), bin 200 %llu (want 4)", bn, (unsigned long long)pclr_histogram_count(r, 7),
               (unsigned long long)(n - 4), (unsigned long long)pclr_histogram_count(r, 200));
    pclr_buffer_destroy(ctx, bx);
    free(x);
}

static int g_big;

static void try_backend(pclr_backend b) {
    pclr_desc d;
    pclr_context *ctx = NULL;
    pclr_buffer *bx = NULL, *by = NULL;
    char why[1024] = "";
    memset(&d, 0, sizeof d);
    d.backends[0] = b;
    d.error = why;
    d.error_cap = sizeof why;
    if (pclr_create(&d, &ctx) != PCLR_OK) {
        if (b == PCLR_CPU) CHECK(0, "the CPU context: %s", why);
        else SKIP("%s: no context here: %s", pclr_backend_name(b), why);
        return;
    }
    printf("%s: %s\n", pclr_backend_name(b), pclr_device_name(ctx));
    if (CHECK(pclr_buffer_create(ctx, ((size_t)1 << 20) * 8 + 64, &bx) == PCLR_OK && pclr_buffer_create(ctx, 100006 * 4, &by) == PCLR_OK,
              "%s: buffers", pclr_backend_name(b))) {
        pclr_config c;
        unsigned char r[48 + 8];
        const double one = 1;
        pclr_input in;
        memset(&c, 0, sizeof c); /* fp64: does a double histogram build here? */
        c.type = PCLR_DOUBLE;
        c.op = PCLR_HISTOGRAM;
        c.bins = 1;
        memset(&in, 0, sizeof in);
        in.x = bx;
        in.n = 1;
        in.hi = 2;
        g_fp64 = pclr_buffer_write(ctx, bx, 0, &one, 8) == PCLR_OK && pclr_reduce(ctx, &c, &in, r, sizeof r) == PCLR_OK;
        counts(ctx, bx, by);
        shift_ranges(ctx, bx);
        maps(ctx, bx, by);
        layouts(ctx);
        refusals(ctx, bx);
        weights(ctx, bx, by);
    }
    if (g_big && b != PCLR_CPU) { /* (the CPU context: the reference, a minute for 2^32 elements) */
        if (by) pclr_buffer_destroy(ctx, by);
        if (bx) pclr_buffer_destroy(ctx, bx);
        by = bx = NULL;
        big(ctx);
    }
    if (by) pclr_buffer_destroy(ctx, by);
    if (bx) pclr_buffer_destroy(ctx, bx);
    pclr_destroy(ctx);
}

int main(int argc, char **argv) {
    static const pclr_test_backend all[] = PCLR_TEST_BACKENDS;
    const char *env = getenv("PCLR_SEED");
    int want[4] = {0, 0, 0, 0}, named = 0, nvrtc_only = 0, i, k;
    if (!env || !*env) env = getenv("PCLR_TEST_SEED");
    g_seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--nvrtc-only")) { nvrtc_only = 1; continue; }
        if (!strcmp(argv[i], "--big")) { g_big = 1; continue; }
        for (k = 0; k < 4; ++k)
            if (!strcmp(argv[i], all[k].name)) { want[k] = named = 1; break; }
        if (k == 4) { fprintf(stderr, "usage: %s [--nvrtc-only] [--big] [cpu] [opencl] [vulkan] [cuda]\n", argv[0]); return 2; }
    }
    printf("seed %llu (PCLR_SEED=%llu reproduces this run)\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
#ifdef PCLR_TEST_CUDA
    if (nvrtc_only) {
        nvrtc_compiles();
        return pclr_test_summary("histogram");
    }
#else
    if (nvrtc_only) { SKIP("--nvrtc-only: not compiled with PCLR_TEST_CUDA"); return pclr_test_summary("histogram"); }
#endif
    quantiles();
    for (k = 0; k < 4; ++k) {
        if (named && !want[k]) continue;
        if (!all[k].compiled) {
            if (named) SKIP("%s: not compiled in (define PCLR_TEST_%s)", all[k].name, k == 1 ? "OPENCL" : k == 2 ? "VULKAN" : "CUDA");
            continue;
        }
        try_backend(all[k].b);
    }
    if (pclr_test_failed) printf("FAILED with seed %llu: PCLR_SEED=%llu reproduces it\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    return pclr_test_summary("histogram");
}
