/* bench_accuracy: the accuracy table of issue 36. For each float accumulator (native, wide,
   compensated, exact sums) and for stats, the measured error on the data sets against a
   reference computed here in long double (x86-64: a 64-bit mantissa; sums compensated, stats two-pass
   about the long double mean), next to the bound the README states:
   - sums: native D u S with D <= n (shown: n u S, u the accumulator's unit roundoff, S = sum |x|);
     wide the same with the double's u plus the rounding to double; compensated 2 u |sum| + n u^2 S;
     exact half an ulp of the result (u |sum|);
   - stats (mean, var): ten times the error of a two-pass algorithm in the same precision (the mean
     from a blocked pairwise sum, then the blocked pairwise sum of (x - mean)^2: the shape of the
     library's own trees), which is printed beside it, and at least 64 u (a two-pass error that happens
     to be near 0 on one data set); 64-bit integer stats: 1e-12 relative.
   Errors are relative: |got - ref| / |ref| (sums: / |ref| too, the bound likewise), the mean's against
   |mean| + the standard deviation (for data far from 0 the relative error; for data around 0 the error
   against their spread).

   Usage: bench_accuracy [cpu] [opencl] [vulkan] [--quick]  (none named: every backend compiled in)
   Build: see bench/results/accuracy-README.md, or `make accuracy`. Prints one line per measurement
   (tab-separated, a header first) and a last line "worst error/bound ratio R (ok|OVER)". */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#ifdef BENCH_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifdef BENCH_VULKAN
#define PCLREDUCE_VULKAN
#endif
#include "../pclreduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng = 0x36u;
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; } /* [0, 1) */
static double normal(void) {
    double a = unit(), b = unit();
    if (a < 1e-300) a = 1e-300;
    return sqrt(-2.0 * log(a)) * cos(6.283185307179586 * b);
}

enum { D_UNIFORM, D_NORMAL, D_MIXED, D_SHIFTED, D_TIMESTAMP };
typedef struct dataset {
    const char *name;
    pclr_type type;
    int kind;
    double center, half; /* D_SHIFTED: center + U(-half, half) */
    uint64_t n;
} dataset;

/* ---- the reference: long double, a compensated sum, the two-pass moments about its mean */
static long double ld_at(pclr_type t, const void *p, uint64_t i) {
    switch (t) {
    case PCLR_FLOAT: return ((const float *)p)[i];
    case PCLR_DOUBLE: return ((const double *)p)[i];
    case PCLR_INT64: return (long double)((const int64_t *)p)[i];
    default: return (long double)((const uint64_t *)p)[i];
    }
}
static long double ref_sum(pclr_type t, const void *p, uint64_t n, long double *abs_sum) {
    long double s = 0, c = 0, a = 0;
    uint64_t i;
    for (i = 0; i < n; ++i) {
        const long double x = ld_at(t, p, i), u = s + x;
        c += fabsl(s) >= fabsl(x) ? (s - u) + x : (x - u) + s;
        s = u;
        a += fabsl(x);
    }
    if (abs_sum) *abs_sum = a;
    return s + c;
}
/* sum of (x - m)^k (k = 1, 2) in long double, pairwise: its rounding stays near 2^-64 log2 n */
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
    const long double m = ref_sum(t, p, n, NULL) / (long double)n;
    const long double d1 = ref_dev(t, p, 0, n, m, 1), m2 = ref_dev(t, p, 0, n, m, 2);
    *mean = m + d1 / (long double)n;
    *var = (m2 - d1 * (d1 / (long double)n)) / (long double)n;
}

/* ---- the two-pass baseline in float or double: blocked (256, sequential) pairwise sums */
#define BLOCK 256u
#define SPLIT(n) (((n) / 2 + BLOCK - 1) / BLOCK * BLOCK)
static float sum_f(const float *x, uint64_t n, float mean, int sq) {
    if (n <= BLOCK) {
        float a = 0;
        uint64_t i;
        for (i = 0; i < n; ++i) {
            const float d = x[i] - mean;
            a = a + (sq ? d * d : x[i]);
        }
        return a;
    }
    return sum_f(x, SPLIT(n), mean, sq) + sum_f(x + SPLIT(n), n - SPLIT(n), mean, sq);
}
static double sum_d(pclr_type t, const void *p, uint64_t n, double mean, int sq) {
    if (n <= BLOCK) {
        double a = 0;
        uint64_t i;
        for (i = 0; i < n; ++i) {
            const double x = t == PCLR_FLOAT ? (double)((const float *)p)[i] : ((const double *)p)[i], d = x - mean;
            a = a + (sq ? d * d : x);
        }
        return a;
    }
    {
        const uint64_t h = SPLIT(n);
        const size_t es = t == PCLR_FLOAT ? 4 : 8;
        return sum_d(t, p, h, mean, sq) + sum_d(t, (const char *)p + h * es, n - h, mean, sq);
    }
}
/* two-pass mean and var in float (wp = 0) or double (wp = 1) */
static void two_pass(pclr_type t, const void *p, uint64_t n, int wp, double *mean, double *var) {
    if (!wp && t == PCLR_FLOAT) {
        const float m = sum_f((const float *)p, n, 0, 0) / (float)n;
        *mean = m;
        *var = (double)(sum_f((const float *)p, n, m, 1) / (float)n);
    } else {
        const double m = sum_d(t, p, n, 0, 0) / (double)n;
        *mean = m;
        *var = sum_d(t, p, n, m, 1) / (double)n;
    }
}

static void fill(const dataset *d, void *p) {
    uint64_t i;
    for (i = 0; i < d->n; ++i) {
        double v = 0;
        switch (d->kind) {
        case D_UNIFORM: v = 2 * unit() - 1; break;
        case D_NORMAL: v = normal(); break;
        case D_MIXED: v = (rnd() & 1 ? -1 : 1) * pow(10.0, -6 + 12 * unit()); break;
        case D_SHIFTED: v = d->center + d->half * (2 * unit() - 1); break;
        default: break;
        }
        if (d->type == PCLR_FLOAT) ((float *)p)[i] = (float)v;
        else if (d->type == PCLR_DOUBLE) ((double *)p)[i] = v;
        else if (d->type == PCLR_INT64) ((int64_t *)p)[i] = (int64_t)1700000000000000000ll + (int64_t)(rnd() % 1001);
        else ((uint64_t *)p)[i] = 1700000000000000000ull + rnd() % 1001;
    }
}

static double g_worst;
static int g_over;
static void row(const char *backend, const dataset *d, const char *what, double err, double bound, double two_pass_err) {
    const double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
    char tp[32] = "-";
    if (two_pass_err >= 0) snprintf(tp, sizeof tp, "%.2e", two_pass_err);
    printf("%s\t%s\t%s\t%llu\t%s\t%.2e\t%.2e\t%s\t%s\n", backend, pclr_type_name(d->type), d->name, (unsigned long long)d->n, what, err,
           bound, tp, err <= bound ? "ok" : "OVER");
    if (ratio > g_worst) g_worst = ratio;
    if (!(err <= bound)) g_over = 1;
}
static double rel(double got, long double ref) {
    if (ref == 0) return fabs(got);
    return (double)(fabsl((long double)got - ref) / fabsl(ref));
}
/* the mean's error against |mean| + the standard deviation: relative where the mean is far from 0 against
   the spread, against the spread where it is near 0 (where a relative error would measure only the mean's
   distance from 0) */
static double rel_mean(double got, long double mean, long double var) { return (double)(fabsl((long double)got - mean) / (fabsl(mean) + sqrtl(var))); }

static void measure(pclr_context *ctx, const char *bname, const dataset *d, void *host, pclr_buffer *buf) {
    static const pclr_accumulate accs[] = {PCLR_NATIVE, PCLR_WIDE, PCLR_COMPENSATED, PCLR_EXACT};
    static const char *const acc_names[] = {"native", "wide", "compensated", "exact"};
    const int is_f = d->type == PCLR_FLOAT || d->type == PCLR_DOUBLE;
    const size_t es = pclr_type_size(d->type);
    long double rs, rabs, rmean, rvar;
    pclr_input in;
    unsigned k;
    memset(&in, 0, sizeof in);
    in.x = buf;
    in.n = d->n;
    if (pclr_buffer_write(ctx, buf, 0, host, (size_t)d->n * es) != PCLR_OK) { printf("%s\twrite failed\n", bname); return; }
    rs = ref_sum(d->type, host, d->n, &rabs);
    ref_stats(d->type, host, d->n, &rmean, &rvar);
    for (k = 0; k < 4; ++k) {
        pclr_config c;
        pclr_stats_result st;
        pclr_scalar sum;
        char what[48];
        const int wide = d->type == PCLR_DOUBLE || accs[k] == PCLR_WIDE;
        const double u = wide ? ldexp(1.0, -53) : ldexp(1.0, -24), n = (double)d->n, S = (double)rabs, A = fabs((double)rs);
        if (!is_f && (accs[k] != PCLR_NATIVE)) continue;
        if (d->type == PCLR_DOUBLE && accs[k] == PCLR_WIDE) continue; /* (the same as native) */
        memset(&c, 0, sizeof c);
        c.type = d->type;
        c.accumulate = accs[k];
        if (is_f && d->kind != D_SHIFTED) { /* sums: every accumulator */
            double bound, got;
            c.op = PCLR_SUM;
            if (pclr_reduce(ctx, &c, &in, &sum, pclr_result_size(&c)) != PCLR_OK) { printf("%s\tsum failed: %s\n", bname, pclr_last_error(ctx)); continue; }
            got = pclr_sum_type(d->type, accs[k]) == PCLR_FLOAT ? (double)sum.f32 : sum.f64;
            if (accs[k] == PCLR_NATIVE) bound = n * u * S;
            else if (accs[k] == PCLR_WIDE) bound = n * u * S + u * A;
            else if (accs[k] == PCLR_COMPENSATED) bound = 2 * u * A + n * u * u * S;
            else bound = u * A;
            snprintf(what, sizeof what, "sum %s", acc_names[k]);
            row(bname, d, what, rel(got, rs), A > 0 ? bound / A : bound, -1);
        }
        if (accs[k] == PCLR_EXACT) continue;
        c.op = PCLR_STATS;
        if (pclr_reduce(ctx, &c, &in, &st, sizeof st) != PCLR_OK) { printf("%s\tstats failed: %s\n", bname, pclr_last_error(ctx)); continue; }
        if (!is_f) {
            snprintf(what, sizeof what, "stats mean");
            row(bname, d, what, rel_mean(st.mean, rmean, rvar), 1e-12, -1);
            snprintf(what, sizeof what, "stats var");
            row(bname, d, what, rel(st.var, rvar), 1e-12, -1);
            uint64_t bm, bv;
            memcpy(&bm, &st.mean, 8);
            memcpy(&bv, &st.var, 8);
            printf("#\t%s\t%s %s bits: mean %016llx var %016llx (%.17g, %.17g)\n", bname, pclr_type_name(d->type), d->name,
                   (unsigned long long)bm, (unsigned long long)bv, st.mean, st.var);
        } else {
            double tm, tv, em, ev;
            two_pass(d->type, host, d->n, wide, &tm, &tv);
            em = rel_mean(tm, rmean, rvar);
            ev = rel(tv, rvar);
            /* ten times the two-pass's error, at least 64 u (a two-pass error near 0 on one data set) */
            snprintf(what, sizeof what, "stats %s mean", acc_names[k]);
            row(bname, d, what, rel_mean(st.mean, rmean, rvar), 10 * em > 64 * u ? 10 * em : 64 * u, em);
            snprintf(what, sizeof what, "stats %s var", acc_names[k]);
            row(bname, d, what, rel(st.var, rvar), 10 * ev > 64 * u ? 10 * ev : 64 * u, ev);
        }
    }
}

int main(int argc, char **argv) {
    static const struct { const char *name; pclr_backend b; } all[] = {{"cpu", PCLR_CPU}, {"opencl", PCLR_OPENCL}, {"vulkan", PCLR_VULKAN}};
    dataset sets[64];
    int nsets = 0, want[3] = {0, 0, 0}, named = 0, quick = 0, i, k, t;
    size_t biggest = 0;
    void *host;
    char names[64][48];
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) { quick = 1; continue; }
        for (k = 0; k < 3; ++k)
            if (!strcmp(argv[i], all[k].name)) { want[k] = named = 1; break; }
        if (k == 3) { fprintf(stderr, "usage: %s [cpu] [opencl] [vulkan] [--quick]\n", argv[0]); return 2; }
    }
    for (t = 0; t < 2; ++t) {
        const pclr_type ty = t ? PCLR_DOUBLE : PCLR_FLOAT;
        const uint64_t big = quick ? 100000 : 1000000;
        int j;
#define ADD(NAME, KIND, C, H, N) do { dataset *s_ = &sets[nsets]; snprintf(names[nsets], sizeof names[0], "%s", NAME); s_->name = names[nsets]; \
        s_->type = ty; s_->kind = KIND; s_->center = C; s_->half = H; s_->n = N; ++nsets; } while (0)
        ADD("U(-1,1)", D_UNIFORM, 0, 0, big);
        ADD("normal", D_NORMAL, 0, 0, big);
        ADD("mixed 1e-6..1e6", D_MIXED, 0, 0, big);
        if (!t) { ADD("1e6+-0.1", D_SHIFTED, 1e6, 0.1, 1000); ADD("1e6+-0.1", D_SHIFTED, 1e6, 0.1, big); }
        else {
            ADD("1e12+-1e-2", D_SHIFTED, 1e12, 1e-2, 1000); ADD("1e12+-1e-2", D_SHIFTED, 1e12, 1e-2, big);
            ADD("-7e7+-1e-6", D_SHIFTED, -7e7, 1e-6, 1000); ADD("-7e7+-1e-6", D_SHIFTED, -7e7, 1e-6, big);
        }
        for (j = 0; j <= 7; ++j) {
            char nm[32];
            snprintf(nm, sizeof nm, "10^%d+-0.5", j);
            ADD(nm, D_SHIFTED, pow(10.0, j), 0.5, 1000);
            ADD(nm, D_SHIFTED, pow(10.0, j), 0.5, big);
        }
#undef ADD
    }
    for (t = 0; t < 2; ++t) {
        dataset *s = &sets[nsets++];
        s->name = "1.7e18+0..1000";
        s->type = t ? PCLR_UINT64 : PCLR_INT64;
        s->kind = D_TIMESTAMP;
        s->n = 100000;
    }
    for (i = 0; i < nsets; ++i)
        if (sets[i].n * pclr_type_size(sets[i].type) > biggest) biggest = (size_t)sets[i].n * pclr_type_size(sets[i].type);
    host = malloc(biggest);
    if (!host) return 1;
    printf("backend\ttype\tdata\tn\tquantity\terror\tbound\ttwo-pass\tok\n");
    for (k = 0; k < 3; ++k) {
        pclr_desc d;
        pclr_context *ctx = NULL;
        pclr_buffer *buf = NULL;
        char why[1024] = "";
        if (named && !want[k]) continue;
        memset(&d, 0, sizeof d);
        d.backends[0] = all[k].b;
        d.error = why;
        d.error_cap = sizeof why;
        if (pclr_create(&d, &ctx) != PCLR_OK) { printf("# %s: no context: %s\n", all[k].name, why); continue; }
        printf("# %s: %s\n", all[k].name, pclr_device_name(ctx));
        if (pclr_buffer_create(ctx, biggest, &buf) != PCLR_OK) { printf("# %s: no buffer\n", all[k].name); pclr_destroy(ctx); continue; }
        for (i = 0; i < nsets; ++i) {
            g_rng = 0x36u + (uint64_t)i; /* the same data on every backend */
            fill(&sets[i], host);
            measure(ctx, all[k].name, &sets[i], host, buf);
        }
        pclr_buffer_destroy(ctx, buf);
        pclr_destroy(ctx);
    }
    free(host);
    printf("worst error/bound ratio %.3g (%s)\n", g_worst, g_over ? "OVER" : "ok");
    return 0;
}
