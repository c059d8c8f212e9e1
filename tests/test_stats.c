/* test_stats: the accuracy of stats (issue 36), on every context this program can create: the CPU
   reference always; OpenCL (PoCL in CI), Vulkan (lavapipe) and CUDA where compiled in (PCLR_TEST_OPENCL,
   PCLR_TEST_VULKAN, PCLR_TEST_CUDA) and a device answers (else a "skip:" line). Each result is held against
   a reference written here, not against the library's CPU reference:
   1. 64-bit integers: nanosecond timestamps (1.7e18 + a random 0..1000, n = 10^5, int64 and uint64; also
      a negative base and spreads of 2^16 and 2^40): mean and variance within 1e-12 relative of the exact
      ones (sums of the differences in integers), and where n (max - min)^2 < 2^50 the same bits on every
      backend and knob set (the CPU context's bits are the others'; the group, vector width, variant and
      stride varied).
   2. floats: the data sets of the issue (1e6 +- 0.1 floats at n = 1000 and 200003; 1e12 +- 1e-2 and
      -7e7 +- 1e-6 doubles; 10^k +- 0.5 for k = 0..7 at both sizes, floats and doubles), mean and variance
      within ten times the error of a two-pass algorithm in the same precision (blocked pairwise sums, the
      library's tree shape), and at least 64 u (u the precision's unit roundoff: a two-pass error that
      happens to be near 0 on one data set does not make a bound below the rounding of a chain of a few
      hundred additions), the variance's 64 u times 1 + (h - mean)^2 / var for the farthest element h (the
      library's moments are taken about an element, which makes the sum of squares that rounds larger by up to
      that factor); float data accumulated wide: 10x the double two-pass or 2^-40 (sums of squares of
      values on the float grid round with a bias: bench/results/accuracy-pocl-amd-epyc-2c/README.md). The
      mean's error is taken against |mean| + the standard deviation, the variance's relative (a variance
      of 0: the result itself). The reference: long double (x86-64), pairwise two-pass moments.
   3. infinities and NaN: [1, 1, inf] gives mean inf, var and sample_var NaN; -inf: mean -inf; both signs:
      mean NaN; a NaN anywhere: NaN; in 3 elements and inside 1000 (through the devices' merges).
   Usage: test_stats [cpu] [opencl] [vulkan] [cuda]   (none named: every one compiled in)
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

#include <math.h>
#include <time.h>

static uint64_t g_seed, g_rng;
static double unit(void) { return (double)(pclr_test_rand(&g_rng) >> 11) / 9007199254740992.0; } /* [0, 1) */

/* the first context's timestamp bits, which every later context and knob set must give */
#define TS_CASES 4
static int g_have_bits[TS_CASES][2];
static uint64_t g_bits[TS_CASES][2][2];

/* ---- the reference: long double (x86-64: a 64-bit mantissa), pairwise */
static long double ld_at(pclr_type t, const void *p, uint64_t i) {
    return t == PCLR_FLOAT ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}
static long double ref_dev(pclr_type t, const void *p, uint64_t lo, uint64_t hi, long double m, int k) {
    if (hi - lo <= 16) {
        long double a = 0;
        uint64_t i;
        for (i = lo; i < hi; ++i) {
            const long double d = ld_at(t, p, i) - m;
            a += k == 1 ? d : d * d;
        }
        return a;
    }
    return ref_dev(t, p, lo, lo + (hi - lo) / 2, m, k) + ref_dev(t, p, lo + (hi - lo) / 2, hi, m, k);
}
static void ref_stats(pclr_type t, const void *p, uint64_t n, long double *mean, long double *var) {
    const long double m0 = ref_dev(t, p, 0, n, 0, 1) / (long double)n;
    const long double d1 = ref_dev(t, p, 0, n, m0, 1), m = m0 + d1 / (long double)n;
    const long double e1 = ref_dev(t, p, 0, n, m, 1), m2 = ref_dev(t, p, 0, n, m, 2);
    *mean = m + e1 / (long double)n;
    *var = (m2 - e1 * (e1 / (long double)n)) / (long double)n;
}

/* ---- the two-pass algorithm in float (wp 0) or double: blocks of 256 in order, blocks pairwise */
#define BLOCK 256u
#define SPLIT(n) (((n) / 2 + BLOCK - 1) / BLOCK * BLOCK)
static float tp_f(const float *x, uint64_t n, float mean, int sq) {
    if (n <= BLOCK) {
        float a = 0;
        uint64_t i;
        for (i = 0; i < n; ++i) {
            const float d = x[i] - mean;
            a = a + (sq ? d * d : x[i]);
        }
        return a;
    }
    return tp_f(x, SPLIT(n), mean, sq) + tp_f(x + SPLIT(n), n - SPLIT(n), mean, sq);
}
static double tp_d(pclr_type t, const void *p, uint64_t n, double mean, int sq) {
    if (n <= BLOCK) {
        double a = 0;
        uint64_t i;
        for (i = 0; i < n; ++i) {
            const double x = t == PCLR_FLOAT ? (double)((const float *)p)[i] : ((const double *)p)[i], d = x - mean;
            a = a + (sq ? d * d : x);
        }
        return a;
    }
    return tp_d(t, p, SPLIT(n), mean, sq) + tp_d(t, (const char *)p + SPLIT(n) * (t == PCLR_FLOAT ? 4 : 8), n - SPLIT(n), mean, sq);
}
static void two_pass(pclr_type t, const void *p, uint64_t n, int wp, double *mean, double *var) {
    if (!wp) {
        const float m = tp_f((const float *)p, n, 0, 0) / (float)n;
        *mean = m;
        *var = (double)(tp_f((const float *)p, n, m, 1) / (float)n);
    } else {
        const double m = tp_d(t, p, n, 0, 0) / (double)n;
        *mean = m;
        *var = tp_d(t, p, n, m, 1) / (double)n;
    }
}
/* errors: the mean's against |mean| + sd (the spread where the mean is near 0), the variance's relative */
static double err_mean(double got, long double m, long double v) { return (double)(fabsl((long double)got - m) / (fabsl(m) + sqrtl(v))); }
static double err_var(double got, long double v) { return v == 0 ? fabs(got) : (double)(fabsl((long double)got - v) / v); }

static pclr_result reduce_stats(pclr_context *ctx, pclr_buffer *buf, const void *host, size_t bytes, const pclr_config *c, uint64_t n,
                                pclr_stats_result *out) {
    pclr_input in;
    pclr_result r = pclr_buffer_write(ctx, buf, 0, host, bytes);
    if (r != PCLR_OK) return r;
    memset(&in, 0, sizeof in);
    in.x = buf;
    in.n = n;
    return pclr_reduce(ctx, c, &in, out, sizeof *out);
}

/* 1. 64-bit integer stats */
static void timestamps(pclr_context *ctx, pclr_buffer *buf) {
    /* exact: n (max - min)^2 < 2^50, where the library promises the same bits everywhere */
    static const struct { const char *name; int64_t base; uint64_t spread; int exact; } cases[TS_CASES] = {
        {"1.7e18 + 0..1000 ns", 1700000000000000000ll, 1001, 1}, {"-4.6e18 + 0..1000", -4600000000000000000ll, 1001, 1},
        {"1.7e18 + 0..2^16", 1700000000000000000ll, 1u << 16, 1}, {"1.7e18 + 0..2^40", 1700000000000000000ll, 1ull << 40, 0}};
    static const struct { int group, vector; pclr_variant variant; pclr_stride stride; } knobs[] = {
        {0, 0, PCLR_VARIANT_DEFAULT, PCLR_STRIDE_DEFAULT}, {64, 1, PCLR_VARIANT_UNROLLED, PCLR_STRIDE_LOCAL}, {128, 2, PCLR_VARIANT_NAIVE, PCLR_STRIDE_GLOBAL}};
    const uint64_t n = 100000;
    int64_t *x = (int64_t *)malloc(n * 8);
    int ci, u, k;
    if (!CHECK(x != NULL, "malloc")) return;
    for (ci = 0; ci < TS_CASES; ++ci)
        for (u = 0; u < 2; ++u) {
            uint64_t s1 = 0, i; /* exact: sum (x - base); sum (x - base)^2 in long double (exact below 2^64) */
            long double s2 = 0;
            long double mean, var, nn = (long double)n;
            g_rng = g_seed ^ (0x100u * (unsigned)ci + (unsigned)u);
            for (i = 0; i < n; ++i) {
                const uint64_t d = pclr_test_rand(&g_rng) % cases[ci].spread;
                x[i] = (int64_t)((uint64_t)cases[ci].base + d);
                s1 += d;
                s2 += (long double)d * (long double)d;
            }
            if (u && cases[ci].base < 0) continue; /* (uint64: the positive bases) */
            mean = (long double)(u ? (long double)(uint64_t)cases[ci].base : (long double)cases[ci].base) + (long double)s1 / nn;
            var = (s2 - (long double)s1 * ((long double)s1 / nn)) / nn;
            for (k = 0; k < (int)(sizeof knobs / sizeof knobs[0]); ++k) {
                pclr_config c;
                pclr_stats_result r;
                pclr_result e;
                uint64_t bm, bv;
                memset(&c, 0, sizeof c);
                c.type = u ? PCLR_UINT64 : PCLR_INT64;
                c.op = PCLR_STATS;
                c.group_size = knobs[k].group;
                c.vector_width = knobs[k].vector;
                c.variant = knobs[k].variant;
                c.stride = knobs[k].stride;
                if (pclr_get_backend(ctx) == PCLR_CPU && k) continue; /* (the CPU context has no knobs) */
                e = reduce_stats(ctx, buf, x, (size_t)n * 8, &c, n, &r);
                if (k && (e == PCLR_ERR_UNSUPPORTED_COMBINATION || e == PCLR_ERR_UNSUPPORTED_BY_DEVICE || e == PCLR_ERR_INVALID_KNOB)) {
                    SKIP("%s: %s stats %s, knob set %d refused here: %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(c.type),
                         cases[ci].name, k, pclr_last_error(ctx));
                    continue;
                }
                if (!CHECK(e == PCLR_OK, "%s: %s stats %s: %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(c.type), cases[ci].name,
                           pclr_last_error(ctx)))
                    continue;
                CHECK(fabsl((long double)r.mean - mean) <= 1e-12L * fabsl(mean) && fabsl((long double)r.var - var) <= 1e-12L * var,
                      "%s: %s stats of %s (knob set %d): mean %.17g var %.17g, exact %.17Lg %.17Lg", pclr_backend_name(pclr_get_backend(ctx)),
                      pclr_type_name(c.type), cases[ci].name, k, r.mean, r.var, mean, var);
                memcpy(&bm, &r.mean, 8);
                memcpy(&bv, &r.var, 8);
                if (!cases[ci].exact) {
                } else if (!g_have_bits[ci][u]) {
                    g_have_bits[ci][u] = 1;
                    g_bits[ci][u][0] = bm;
                    g_bits[ci][u][1] = bv;
                } else {
                    CHECK(bm == g_bits[ci][u][0] && bv == g_bits[ci][u][1],
                          "%s: %s stats of %s (knob set %d): bits %016llx %016llx, the first context's %016llx %016llx (not the same everywhere)",
                          pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(c.type), cases[ci].name, k, (unsigned long long)bm,
                          (unsigned long long)bv, (unsigned long long)g_bits[ci][u][0], (unsigned long long)g_bits[ci][u][1]);
                }
            }
        }
    free(x);
}

/* 2. float and double data sets against ten times the two-pass error */
static void float_sets(pclr_context *ctx, pclr_buffer *buf, int fp64) {
    static const pclr_accumulate accs[] = {PCLR_NATIVE, PCLR_WIDE, PCLR_COMPENSATED};
    const uint64_t sizes[2] = {1000, 200003};
    void *x = malloc((size_t)sizes[1] * 8);
    int t, si, set, a;
    if (!CHECK(x != NULL, "malloc")) return;
    for (t = 0; t < 2; ++t) {
        const pclr_type ty = t ? PCLR_DOUBLE : PCLR_FLOAT;
        if (t && !fp64) { SKIP("%s: no fp64: the double sets", pclr_backend_name(pclr_get_backend(ctx))); continue; }
        for (set = 0; set < 10; ++set)
            for (si = 0; si < 2; ++si) {
                const uint64_t n = sizes[si];
                double center, half, lo = HUGE_VAL, hi = -HUGE_VAL, amp;
                long double rm, rv;
                uint64_t i;
                if (set < 2 && t == 0 && set == 1) continue; /* (floats: one issue set) */
                if (set == 0) { center = t ? 1e12 : 1e6; half = t ? 1e-2 : 0.1; }
                else if (set == 1) { center = -7e7; half = 1e-6; }
                else { center = pow(10.0, set - 2); half = 0.5; }
                g_rng = g_seed ^ (0x1000u * (unsigned)t + 0x10u * (unsigned)set + (unsigned)si);
                for (i = 0; i < n; ++i) {
                    const double v = center + half * (2 * unit() - 1);
                    const double w = t ? v : (double)(float)v;
                    if (t) ((double *)x)[i] = v;
                    else ((float *)x)[i] = (float)v;
                    if (w < lo) lo = w;
                    if (w > hi) hi = w;
                }
                ref_stats(ty, x, n, &rm, &rv);
                /* the library sums (x - h)^2 about a shift h that is one of the elements, not the mean: the sum
                   and its rounding grow by up to 1 + (h - mean)^2 / var (4 on uniform data) */
                amp = rv > 0 ? 1 + (double)(fmaxl(hi - rm, rm - lo) * fmaxl(hi - rm, rm - lo) / rv) : 1;
                for (a = 0; a < 3; ++a) {
                    pclr_config c;
                    pclr_stats_result r;
                    pclr_result e;
                    const int wp = t || accs[a] == PCLR_WIDE;
                    const double u = wp ? ldexp(1.0, -53) : ldexp(1.0, -24);
                    double tm, tv, bm, bv;
                    if (t && accs[a] == PCLR_WIDE) continue; /* (the same as native) */
                    if (!t && accs[a] == PCLR_WIDE && !fp64) continue;
                    memset(&c, 0, sizeof c);
                    c.type = ty;
                    c.op = PCLR_STATS;
                    c.accumulate = accs[a];
                    e = reduce_stats(ctx, buf, x, (size_t)n * pclr_type_size(ty), &c, n, &r);
                    if (!CHECK(e == PCLR_OK, "%s: %s stats %s: %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(ty),
                               pclr_accumulate_name(accs[a]), pclr_last_error(ctx)))
                        continue;
                    two_pass(ty, x, n, wp, &tm, &tv);
                    bm = 10 * err_mean(tm, rm, rv);
                    bv = 10 * err_var(tv, rv);
                    if (bm < 64 * u) bm = 64 * u; /* (see the top) */
                    if (bv < 64 * u * amp) bv = 64 * u * amp;
                    if (!t && wp) { /* float data in double: see the top */
                        if (bm < ldexp(1.0, -40)) bm = ldexp(1.0, -40);
                        if (bv < ldexp(1.0, -40)) bv = ldexp(1.0, -40);
                    }
                    CHECK(err_mean(r.mean, rm, rv) <= bm && err_var(r.var, rv) <= bv,
                          "%s: %s stats %s of %.17g +- %g, n = %llu: mean error %.3g (bound %.3g), var error %.3g (bound %.3g; ten times the "
                          "two-pass's)", pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(ty), pclr_accumulate_name(accs[a]), center, half,
                          (unsigned long long)n, err_mean(r.mean, rm, rv), bm, err_var(r.var, rv), bv);
                }
            }
    }
    free(x);
}

/* 3. infinities and NaN: the same mean and variances everywhere */
static void infinities(pclr_context *ctx, pclr_buffer *buf, int fp64) {
    static const struct { const char *name; double v[3]; int want; } cases[] = { /* want: 1 +inf, -1 -inf, 0 NaN */
        {"[1, 1, inf]", {1, 1, 1e300 * 1e300}, 1}, {"[inf, 1, 1]", {1e300 * 1e300, 1, 1}, 1}, {"[1, -inf, 1]", {1, -1e300 * 1e300, 1}, -1},
        {"[inf, 1, -inf]", {1e300 * 1e300, 1, -1e300 * 1e300}, 0}, {"[1, NaN, inf]", {1, 0, 1e300 * 1e300}, 0}};
    const uint64_t big = 1000;
    double *x = (double *)malloc(big * 8);
    float *xf = (float *)malloc(big * 4);
    int ci, t, a, sz;
    if (!CHECK(x && xf, "malloc")) { free(x); free(xf); return; }
    for (ci = 0; ci < (int)(sizeof cases / sizeof cases[0]); ++ci)
        for (sz = 0; sz < 2; ++sz)
            for (t = 0; t < 2; ++t)
                for (a = 0; a < 3; ++a) {
                    static const pclr_accumulate accs[] = {PCLR_NATIVE, PCLR_WIDE, PCLR_COMPENSATED};
                    const uint64_t n = sz ? big : 3;
                    pclr_config c;
                    pclr_stats_result r;
                    pclr_result e;
                    uint64_t i, at[3];
                    int ok;
                    if ((t || accs[a] == PCLR_WIDE) && !fp64) continue;
                    if (t && accs[a] == PCLR_WIDE) continue;
                    at[0] = 0; at[1] = sz ? 517 : 1; at[2] = n - 1;
                    for (i = 0; i < n; ++i) x[i] = 1.0 + (double)(i % 7) * 0.25;
                    for (i = 0; i < 3; ++i) x[at[i]] = cases[ci].v[i];
                    if (strstr(cases[ci].name, "NaN")) x[at[1]] = nan("");
                    for (i = 0; i < n; ++i) xf[i] = (float)x[i];
                    memset(&c, 0, sizeof c);
                    c.type = t ? PCLR_DOUBLE : PCLR_FLOAT;
                    c.op = PCLR_STATS;
                    c.accumulate = accs[a];
                    e = reduce_stats(ctx, buf, t ? (const void *)x : (const void *)xf, (size_t)n * (t ? 8 : 4), &c, n, &r);
                    if (!CHECK(e == PCLR_OK, "%s: stats %s: %s", pclr_backend_name(pclr_get_backend(ctx)), cases[ci].name, pclr_last_error(ctx))) continue;
                    ok = r.var != r.var && r.sample_var != r.sample_var &&
                         (cases[ci].want == 0 ? r.mean != r.mean : r.mean == (cases[ci].want > 0 ? 1e300 * 1e300 : -1e300 * 1e300));
                    CHECK(ok, "%s: %s stats %s of %s (n = %llu): mean %g var %g sample_var %g; want mean %s, variances NaN",
                          pclr_backend_name(pclr_get_backend(ctx)), pclr_type_name(c.type), pclr_accumulate_name(accs[a]), cases[ci].name,
                          (unsigned long long)n, r.mean, r.var, r.sample_var, cases[ci].want > 0 ? "inf" : cases[ci].want < 0 ? "-inf" : "NaN");
                }
    free(x);
    free(xf);
}

static void try_backend(pclr_backend b) {
    pclr_desc d;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    pclr_config c;
    pclr_stats_result r;
    char why[1024] = "";
    int fp64;
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
    if (!CHECK(pclr_buffer_create(ctx, 200003 * 8, &buf) == PCLR_OK, "%s: a buffer", pclr_backend_name(b))) { pclr_destroy(ctx); return; }
    memset(&c, 0, sizeof c); /* fp64: does a double stats build here? */
    c.type = PCLR_DOUBLE;
    c.op = PCLR_STATS;
    {
        const double one = 1;
        fp64 = reduce_stats(ctx, buf, &one, 8, &c, 1, &r) == PCLR_OK;
    }
    timestamps(ctx, buf);
    float_sets(ctx, buf, fp64);
    infinities(ctx, buf, fp64);
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
}

int main(int argc, char **argv) {
    static const pclr_test_backend all[] = PCLR_TEST_BACKENDS;
    const char *env = getenv("PCLR_SEED");
    int want[4] = {0, 0, 0, 0}, named = 0, i, k;
    if (!env || !*env) env = getenv("PCLR_TEST_SEED");
    g_seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    for (i = 1; i < argc; ++i) {
        for (k = 0; k < 4; ++k)
            if (!strcmp(argv[i], all[k].name)) { want[k] = named = 1; break; }
        if (k == 4) { fprintf(stderr, "usage: %s [cpu] [opencl] [vulkan] [cuda]\n", argv[0]); return 2; }
    }
    printf("seed %llu (PCLR_SEED=%llu reproduces this run)\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    /* the CPU context first: its bits are the ones every other context must give */
    if (named && !want[0]) try_backend(PCLR_CPU);
    for (k = 0; k < 4; ++k) {
        if (named && !want[k]) continue;
        if (!all[k].compiled) {
            if (named) SKIP("%s: not compiled in (define PCLR_TEST_%s)", all[k].name, k == 1 ? "OPENCL" : k == 2 ? "VULKAN" : "CUDA");
            continue;
        }
        try_backend(all[k].b);
    }
    if (pclr_test_failed) printf("FAILED with seed %llu: PCLR_SEED=%llu reproduces it\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    return pclr_test_summary("stats");
}
