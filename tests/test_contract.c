/* test_contract: the contract of the verbs (pclr_input, pclr_reduce with sized results,
   pclr_reduce_async into a states buffer, pclr_finalize, pclr_result_size, pclr_state_size,
   pclr_layout_results), one suite, run_contract(ctx), on every context this program can create:
   the CPU reference always; OpenCL (PoCL in CI), Vulkan (lavapipe) and CUDA where they are compiled
   in (PCLR_TEST_OPENCL, PCLR_TEST_VULKAN, PCLR_TEST_CUDA, or PCLR_TEST_ALL_BACKENDS) and a device
   answers (else a "skip:" line).

   Every result is checked against the CPU reference run in the test on the same host data
   (pclr_cpu_reduce_config, pclr_cpu_reduce_map, pclr_cpu_reduce_layout):
   - the CPU context runs that reference itself, so there every result is the same bytes; and so
     that a fault inside the reference cannot pass unseen, the CPU run also checks the reference
     against a plain loop written here (min, max, argmin, argmax, minmax, count, integer sums) and
     each row, column or segment of pclr_cpu_reduce_layout against the reduce of its gathered
     elements;
   - on a device (docs/semantics.md): integers (sums wrap exactly), min, max, argmin/argmax (value
     and index), minmax, count and stats' count/min/max exactly (a NaN: NaN-ness only, its payload
     is not specified); exact sums bit for bit; other float sums within the tree-sum bound
     |got - ref| <= (n + 2) eps S + eps |ref| (S = sum |x|; eps: the sum type's unit roundoff),
     compensated 8 eps |ref| + 8 n eps^2 S; stats' mean and variances within rel (|ref| + M) and
     rel (|ref| + R (R + M)) (rel 1e-4 for half/float values, 1e-10 otherwise; M = max |x|,
     R = max x - min x), non-finite where the reference is.
   Sections: 1 semantics (every type x op, sampled accumulators, n = 0 is pclr_identity, x_offset
   != 0, ties, signed zeros, NaN, inf); 2 bad input (each failure: its code, nothing written, a
   sentence in pclr_last_error, then a good reduce still right); 3 maps (x and y at offsets that
   differ modulo 4, parameters, components = 4); 4 layouts (rows, columns with pitch > cols,
   segments with empty ones; bad offsets); 5 the result-size rule (exact size, one byte short:
   PCLR_ERR_BUFFER_TOO_SMALL, canary intact, the bytes needed named); 6 async (states at
   first_state 0 and > 0, read back, finalized, equal to the blocking result; a states buffer too
   small: an error, nothing written); 7 pclr_result_size / pclr_layout_results / pclr_state_size
   against what is written.

   Usage: test_contract [cpu] [opencl] [vulkan] [cuda] [--tolerant]   (no backend named: all)
   --tolerant: compare the CPU context as a device (checks the comparison itself).
   Environment: PCLR_SEED (or PCLR_TEST_SEED) reproduces a run (the seed is printed);
   PCLR_TEST_FULL=1 every type x op x accumulator x size, every layout shape and map op on every
   backend (the default samples these on devices: a quarter of the type x op pairs, seed-rotated,
   one other accumulator, half the shapes; each configuration is a kernel build, ~0.75 s on PoCL
   and ~0.15 s on lavapipe with a cold cache: ~50 configurations a device run);
   PCLR_SHADERC_LIBRARY for Vulkan (tests/shaderc.sh finds one). */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#if defined(PCLR_TEST_ALL_BACKENDS)
#define PCLR_TEST_OPENCL
#define PCLR_TEST_VULKAN
#define PCLR_TEST_CUDA
#endif
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

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ state */
#define MAXN (((uint64_t)1 << 20) + 1 + 16) /* elements of the big buffer: 2^20 + 1 at offsets up to 15 */
#define SPEC_N 4099u                      /* a special region's elements (+ 16 of room for offsets) */
#define SPEC_STRIDE 8192u                 /* region k starts at element k * SPEC_STRIDE */
#define GOOD_N 1001u                      /* the good reduce after each failure: 1001 floats at offset 3 */

static uint64_t g_seed;
static int g_full, g_tolerant;

typedef struct suite {
    pclr_context *ctx;
    pclr_backend backend;
    const char *name;
    int bitwise;           /* the CPU context: the reference itself, same bytes */
    uint64_t rng;
    pclr_buffer *big, *spec, *good; /* random data; ties and specials; the good reduce's floats */
    unsigned char *hbig, *hspec;
    float hgood[GOOD_N + 8];
    pclr_type big_type, spec_type; /* what the buffers hold now */
    pclr_context *other;   /* another context (CPU) and a buffer of it: foreign buffers */
    pclr_buffer *foreign;
    long refused;          /* configurations the device refuses (documented limits), skipped */
    char first_refusal[1600];
} suite;

static uint64_t rnd(suite *s) { return pclr_test_rand(&s->rng); }
static uint64_t rnd_below(suite *s, uint64_t k) { return k ? rnd(s) % k : 0; }

static int is_nan(double v) { return v != v; }
static int is_finite(double v) { return v - v == 0; }
static double fabs_(double v) { return v < 0 ? -v : v; }
static int is_float_type(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static size_t tsize(pclr_type t) { return pclr_type_size(t); }

/* the sizes, bands for sampling: small, medium, large */
static const uint64_t g_small[] = {1, 2, 3, 5, 7, 13, 31, 32, 33};
static const uint64_t g_medium[] = {127, 255, 256, 257, 1021, 1024, 1025, 4093, 4095, 4097};
static const uint64_t g_large[] = {65521, 65535, 65536, 65537, 262139, 1048573, 1048575, 1048576, 1048577};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ data
   kind 0: full-range integers, floats uniform in [-1, 1) (halves: random exponents 2^-10..1);
   kind 1: ties: integers in a small range, floats k/4 in [-2, 2] with +0 and -0;
   kind 2: kind 1 with extremes: integer min and max, a NaN and a +inf (floats);
   kind 3: zeros: +0 and -0 (floats), 0 and 1 (integers), the first 8 all -0 (0). */
static uint16_t half_of_quarter(int k) { /* k/4 for k in [-8, 8] as binary16 bits; 0 as +0 */
    static const uint16_t pos[] = {0x0000, 0x3400, 0x3800, 0x3a00, 0x3c00, 0x3d00, 0x3e00, 0x3f00, 0x4000};
    return (uint16_t)(k < 0 ? 0x8000u | pos[-k] : pos[k]);
}

static void put_int(pclr_type t, unsigned char *p, int64_t v) {
    switch (t) {
    case PCLR_UINT8: case PCLR_INT8: { uint8_t u = (uint8_t)v; memcpy(p, &u, 1); break; }
    case PCLR_UINT16: case PCLR_INT16: { uint16_t u = (uint16_t)v; memcpy(p, &u, 2); break; }
    case PCLR_UINT: case PCLR_INT: { uint32_t u = (uint32_t)v; memcpy(p, &u, 4); break; }
    default: { uint64_t u = (uint64_t)v; memcpy(p, &u, 8); break; }
    }
}

static void fill(suite *s, pclr_type t, unsigned char *dst, uint64_t n, int kind) {
    const size_t es = tsize(t);
    const int is_signed = t == PCLR_INT8 || t == PCLR_INT16 || t == PCLR_INT || t == PCLR_INT64;
    uint64_t i;
    for (i = 0; i < n; ++i) {
        const uint64_t z = rnd(s);
        unsigned char *p = dst + i * es;
        if (kind == 0) {
            if (t == PCLR_FLOAT) { float f = (float)((double)(z >> 40) / 8388608.0 - 1.0); memcpy(p, &f, 4); }
            else if (t == PCLR_DOUBLE) { double d = (double)(z >> 11) / 4503599627370496.0 - 1.0; memcpy(p, &d, 8); }
            else if (t == PCLR_HALF) { uint16_t h = (uint16_t)((z & 0x8000u) | ((5u + (uint16_t)((z >> 16) % 10u)) << 10) | ((z >> 32) & 0x3ffu)); memcpy(p, &h, 2); }
            else memcpy(p, &z, es); /* full width, little-endian low bytes */
        } else if (kind == 3) {
            const int neg = i < 8 || (z >> 7) % 2u;
            if (t == PCLR_HALF) { uint16_t h = neg ? 0x8000u : 0; memcpy(p, &h, 2); }
            else if (t == PCLR_FLOAT) { float f = neg ? -0.0f : 0.0f; memcpy(p, &f, 4); }
            else if (t == PCLR_DOUBLE) { double d = neg ? -0.0 : 0.0; memcpy(p, &d, 8); }
            else put_int(t, p, i < 8 ? 0 : (int64_t)((z >> 9) % 2u));
        } else {
            const int k = (int)(z % 17u) - 8; /* -8..8 */
            if (t == PCLR_FLOAT || t == PCLR_DOUBLE || t == PCLR_HALF) {
                const int negzero = k == 0 && (z >> 20) % 2u;
                if (t == PCLR_HALF) { uint16_t h = negzero ? 0x8000u : half_of_quarter(k); memcpy(p, &h, 2); }
                else if (t == PCLR_FLOAT) { float f = negzero ? -0.0f : (float)k / 4.0f; memcpy(p, &f, 4); }
                else { double d = negzero ? -0.0 : (double)k / 4.0; memcpy(p, &d, 8); }
            } else {
                put_int(t, p, is_signed ? (int64_t)(k % 4) : (int64_t)((k + 8) % 7));
            }
        }
    }
    if (kind == 2 && n >= 4096) { /* extremes where the windows read: one in the first 48, one anywhere, one in the second half */
        const uint64_t a = rnd_below(s, 48), b = rnd_below(s, 4096), c = 2048 + rnd_below(s, 2048);
        unsigned char *pa = dst + a * es, *pb = dst + b * es, *pc = dst + c * es;
        if (t == PCLR_HALF) { uint16_t nan = 0x7e00, inf = 0x7c00; memcpy(pa, &nan, 2); memcpy(pb, &inf, 2); memcpy(pc, &nan, 2); }
        else if (t == PCLR_FLOAT) {
            float nan = 0.0f, inf = 1e30f;
            nan = nan / nan;
            inf = inf * inf;
            memcpy(pa, &nan, 4); memcpy(pb, &inf, 4); memcpy(pc, &nan, 4);
        } else if (t == PCLR_DOUBLE) {
            double nan = 0.0, inf = 1e300;
            nan = nan / nan;
            inf = inf * inf;
            memcpy(pa, &nan, 8); memcpy(pb, &inf, 8); memcpy(pc, &nan, 8);
        } else { /* the smallest value twice (argmin's tie), the largest once */
            memset(pa, 0, es);
            memset(pb, 0xff, es);
            memset(pc, 0, es);
            if (is_signed) { pa[es - 1] = pc[es - 1] = 0x80; pb[es - 1] = 0x7f; }
        }
    }
}

/* (Re)loads the big buffer with kind-0 data of type t, the special buffer with kinds 1 and 2. */
static int load_type(suite *s, pclr_type t) {
    const size_t es = tsize(t);
    pclr_result r;
    if (s->big_type == t) return 1;
    fill(s, t, s->hbig, MAXN, 0);
    fill(s, t, s->hspec, SPEC_STRIDE, 1);
    fill(s, t, s->hspec + (size_t)SPEC_STRIDE * es, SPEC_STRIDE, 2);
    fill(s, t, s->hspec + (size_t)2 * SPEC_STRIDE * es, SPEC_STRIDE, 3);
    r = pclr_buffer_write(s->ctx, s->big, 0, s->hbig, (size_t)MAXN * es);
    if (r == PCLR_OK) r = pclr_buffer_write(s->ctx, s->spec, 0, s->hspec, (size_t)3 * SPEC_STRIDE * es);
    if (!CHECK(r == PCLR_OK, "%s: upload %s data: %s (%s)", s->name, pclr_type_name(t), pclr_result_string(r), pclr_last_error(s->ctx))) {
        s->big_type = s->spec_type = PCLR_TYPE_DEFAULT;
        return 0;
    }
    s->big_type = s->spec_type = t;
    return 1;
}

/* ------------------------------------------------------------------ comparison */
typedef struct scale {
    double S, M, R; /* sum |v|, max |v|, max v - min v of the values reduced */
    uint64_t n;     /* values reduced */
    int nan;        /* a NaN among them */
} scale;

static double eps_of(pclr_type t) { return t == PCLR_FLOAT ? 1.0 / 16777216.0 : 1.0 / 9007199254740992.0; }

static double scalar_f(pclr_type t, const pclr_scalar *v) { return t == PCLR_FLOAT ? (double)v->f32 : v->f64; }

/* a value of (value) type t, exactly; a NaN only as NaN */
static int value_eq(pclr_type t, const pclr_scalar *g, const pclr_scalar *r) {
    if (t == PCLR_FLOAT || t == PCLR_DOUBLE) {
        if (is_nan(scalar_f(t, r))) return is_nan(scalar_f(t, g));
    }
    return memcmp(g, r, tsize(t)) == 0;
}

/* a sum of type st accumulated with acc */
static int sum_eq(pclr_type st, pclr_accumulate acc, const pclr_scalar *g, const pclr_scalar *r, const scale *sc) {
    double gv, rv, eps, tol;
    if (st != PCLR_FLOAT && st != PCLR_DOUBLE) return memcmp(g, r, tsize(st)) == 0;
    gv = scalar_f(st, g);
    rv = scalar_f(st, r);
    if (is_nan(rv)) return is_nan(gv);
    if (acc == PCLR_EXACT) return memcmp(g, r, tsize(st)) == 0;
    if (!is_finite(rv)) return gv == rv;
    if (!is_finite(gv)) return 0;
    eps = eps_of(st);
    tol = acc == PCLR_COMPENSATED ? 8 * eps * fabs_(rv) + 8 * (double)sc->n * eps * eps * sc->S
                                  : ((double)sc->n + 2) * eps * sc->S + eps * fabs_(rv);
    return fabs_(gv - rv) <= tol;
}

/* a moment of stats: non-finite where the reference is (NaN where the data has one or n is too small) */
static int moment_eq(double g, double r, double tol, int must_nan) {
    if (must_nan) return is_nan(g) && is_nan(r);
    if (!is_finite(r)) return !is_finite(g);
    if (!is_finite(g)) return 0;
    return fabs_(g - r) <= tol;
}

static int result_eq(const suite *s, const pclr_config *cfg, const void *got, const void *ref, const scale *sc);
static int f64_same(double a, double b) { return is_nan(a) ? is_nan(b) : memcmp(&a, &b, 8) == 0; }

/* The same result, field by field: the same bytes, except that a NaN compares as NaN (which NaN
   is not specified: docs/semantics.md). The CPU context against the reference; async against
   blocking; n = 0 against pclr_identity. */
static int fields_same(const pclr_config *cfg, const void *got, const void *ref) {
    const pclr_type rt = pclr_reduced_type(cfg), vt = pclr_value_type(rt);
    const pclr_op op = cfg->op ? cfg->op : PCLR_SUM;
    const pclr_accumulate acc = op != PCLR_SUM && op != PCLR_STATS ? PCLR_NATIVE : cfg->accumulate ? cfg->accumulate : PCLR_NATIVE;
    const pclr_type st = pclr_sum_type(rt, acc);
    pclr_scalar g, r;
    memset(&g, 0, sizeof g);
    memset(&r, 0, sizeof r);
    switch (op) {
    case PCLR_SUM:
        memcpy(&g, got, tsize(st));
        memcpy(&r, ref, tsize(st));
        return value_eq(st, &g, &r);
    case PCLR_MIN: case PCLR_MAX:
        memcpy(&g, got, tsize(vt));
        memcpy(&r, ref, tsize(vt));
        return value_eq(vt, &g, &r);
    case PCLR_STATS: {
        pclr_stats_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        return a.count == b.count && value_eq(st, &a.sum, &b.sum) && value_eq(vt, &a.min, &b.min) && value_eq(vt, &a.max, &b.max) &&
               f64_same(a.mean, b.mean) && f64_same(a.var, b.var) && f64_same(a.sample_var, b.sample_var);
    }
    default: { /* count; argmin/argmax and minmax through their fields */
        suite exact;
        scale none;
        memset(&exact, 0, sizeof exact);
        memset(&none, 0, sizeof none);
        return op == PCLR_COUNT ? memcmp(got, ref, 8) == 0 : result_eq(&exact, cfg, got, ref, &none);
    }
    }
}

/* One result (pclr_result_size(cfg) bytes) against the reference's. */
static int result_eq(const suite *s, const pclr_config *cfg, const void *got, const void *ref, const scale *sc) {
    const pclr_type rt = pclr_reduced_type(cfg), vt = pclr_value_type(rt);
    const pclr_op op = cfg->op ? cfg->op : PCLR_SUM;
    const pclr_accumulate acc = op != PCLR_SUM && op != PCLR_STATS ? PCLR_NATIVE : cfg->accumulate ? cfg->accumulate : PCLR_NATIVE;
    const pclr_type st = pclr_sum_type(rt, acc);
    if (s->bitwise && !g_tolerant) return fields_same(cfg, got, ref);
    switch (op) {
    case PCLR_SUM: {
        pclr_scalar g, r;
        memset(&g, 0, sizeof g);
        memset(&r, 0, sizeof r);
        memcpy(&g, got, tsize(st));
        memcpy(&r, ref, tsize(st));
        return sum_eq(st, acc, &g, &r, sc);
    }
    case PCLR_MIN: case PCLR_MAX: {
        pclr_scalar g, r;
        memset(&g, 0, sizeof g);
        memset(&r, 0, sizeof r);
        memcpy(&g, got, tsize(vt));
        memcpy(&r, ref, tsize(vt));
        return value_eq(vt, &g, &r);
    }
    case PCLR_COUNT: return memcmp(got, ref, 8) == 0;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result g, r;
        memcpy(&g, got, sizeof g);
        memcpy(&r, ref, sizeof r);
        return g.index == r.index && value_eq(vt, &g.value, &r.value);
    }
    case PCLR_MINMAX: {
        pclr_minmax_result g, r;
        memcpy(&g, got, sizeof g);
        memcpy(&r, ref, sizeof r);
        return value_eq(vt, &g.min, &r.min) && value_eq(vt, &g.max, &r.max);
    }
    default: {
        pclr_stats_result g, r;
        const double rel = rt == PCLR_FLOAT || rt == PCLR_HALF ? 1e-4 : 1e-10;
        const double M = is_finite(sc->M) ? sc->M : 0, R = is_finite(sc->R) ? sc->R : 0;
        memcpy(&g, got, sizeof g);
        memcpy(&r, ref, sizeof r);
        return g.count == r.count && sum_eq(st, acc, &g.sum, &r.sum, sc) && value_eq(vt, &g.min, &r.min) && value_eq(vt, &g.max, &r.max) &&
               moment_eq(g.mean, r.mean, rel * (fabs_(r.mean) + M), sc->nan || r.count == 0) &&
               moment_eq(g.var, r.var, rel * (fabs_(r.var) + R * (R + M)), sc->nan || r.count == 0) &&
               moment_eq(g.sample_var, r.sample_var, rel * (fabs_(r.sample_var) + R * (R + M)), sc->nan || r.count < 2);
    }
    }
}

/* Exactly the same result (the async form against the blocking one on one device: the same kernel and
   plan, the same finalize; n = 0 against pclr_identity), a NaN as NaN. */
static int result_same(const pclr_config *cfg, const void *a, const void *b) { return pclr_result_size(cfg) > 0 && fields_same(cfg, a, b); }

/* What the reference reduces, in doubles, per result: sum |v|, min, max (a map of the values). */
static void scales_of(const pclr_config *cfg, const void *x, const void *y, const uint64_t *offsets, uint64_t n, const double *params,
                      uint64_t count, scale *out) {
    char expr[PCLR_MAP_MAX_LENGTH + 64];
    pclr_config a = *cfg;
    double *sums = (double *)malloc((size_t)(count ? count : 1) * sizeof(double));
    pclr_minmax_result *mm = (pclr_minmax_result *)malloc((size_t)(count ? count : 1) * sizeof *mm);
    uint64_t k;
    pclr_result r1, r2;
    a.vector_width = a.unroll = a.group_size = a.wave_width = a.groups_per_unit = a.lanes = 0;
    a.stride = PCLR_STRIDE_DEFAULT;
    a.variant = PCLR_VARIANT_DEFAULT;
    a.finish = PCLR_FINISH_DEFAULT;
    a.map_type = PCLR_TYPE_DEFAULT;
    a.accumulate = PCLR_NATIVE;
    a.op = PCLR_SUM;
    snprintf(expr, sizeof expr, "abs(double(%s))", cfg->map ? cfg->map : "x");
    a.map = expr;
    r1 = a.layout == PCLR_LAYOUT_ONE ? pclr_cpu_reduce_map(&a, x, y, n, params, sums) : pclr_cpu_reduce_layout(&a, x, y, offsets, n, params, sums);
    a.op = PCLR_MINMAX;
    snprintf(expr, sizeof expr, "double(%s)", cfg->map ? cfg->map : "x");
    r2 = a.layout == PCLR_LAYOUT_ONE ? pclr_cpu_reduce_map(&a, x, y, n, params, mm) : pclr_cpu_reduce_layout(&a, x, y, offsets, n, params, mm);
    CHECK(r1 == PCLR_OK && r2 == PCLR_OK, "the data's scale through the reference (map %s): %s, %s", expr, pclr_result_string(r1),
          pclr_result_string(r2));
    for (k = 0; k < count; ++k) {
        const double lo = mm[k].min.f64, hi = mm[k].max.f64;
        out[k].S = r1 == PCLR_OK ? sums[k] : 1e300;
        out[k].nan = r1 == PCLR_OK && is_nan(sums[k]);
        out[k].M = r2 == PCLR_OK ? (fabs_(lo) > fabs_(hi) ? fabs_(lo) : fabs_(hi)) : 1e300;
        out[k].R = r2 == PCLR_OK ? hi - lo : 1e300;
        out[k].n = cfg->layout == PCLR_LAYOUT_ONE ? n : cfg->layout == PCLR_LAYOUT_ROWS ? cfg->cols
                 : cfg->layout == PCLR_LAYOUT_COLUMNS ? cfg->rows : offsets[k + 1] - offsets[k];
    }
    free(sums);
    free(mm);
}

/* ------------------------------------------------------------------ descriptions */
static const char *acc_name(pclr_accumulate a) { return pclr_accumulate_name(a ? a : PCLR_NATIVE); }

static void describe_cfg(const pclr_config *c, char *buf, size_t cap) {
    static const char *layouts[] = {"one", "rows", "columns", "segments"};
    snprintf(buf, cap, "%s %s %s%s%s%s%s [%s rows=%llu cols=%llu pitch=%llu]", pclr_type_name(c->type ? c->type : PCLR_FLOAT),
             pclr_op_name(c->op ? c->op : PCLR_SUM), acc_name(c->accumulate), c->map ? " map \"" : "", c->map ? c->map : "",
             c->map ? "\"" : "", c->params ? c->params : "", (unsigned)c->layout < 4 ? layouts[c->layout] : "?",
             (unsigned long long)c->rows, (unsigned long long)c->cols, (unsigned long long)c->pitch);
}

/* A refusal the docs allow a device (skipped, counted): no fp64, a device limit, Vulkan's GLSL gaps. */
static int refused(suite *s, const pclr_config *cfg, pclr_result r) {
    char d[512];
    if (s->backend == PCLR_CPU) return 0;
    if (r != PCLR_ERR_NO_FP64 && r != PCLR_ERR_NO_INT64_ATOMICS && r != PCLR_ERR_UNSUPPORTED_BY_DEVICE &&
        !(r == PCLR_ERR_UNSUPPORTED_COMBINATION && s->backend == PCLR_VULKAN &&
          (cfg->accumulate == PCLR_EXACT || (cfg->layout == PCLR_LAYOUT_ONE && cfg->y_type && tsize(cfg->y_type) < 4))))
        return 0;
    if (!s->refused++) {
        describe_cfg(cfg, d, sizeof d);
        snprintf(s->first_refusal, sizeof s->first_refusal, "%s: %s", d, pclr_last_error(s->ctx));
    }
    return 1;
}

/* ------------------------------------------------------------------ one reduce, checked */
typedef struct job {
    pclr_config cfg;
    const pclr_buffer *x, *y, *offsets;
    const unsigned char *hx, *hy; /* host copies of x and y from their element 0 */
    const uint64_t *hoff;         /* host copy of the segment offsets */
    uint64_t x_offset, y_offset, n;
    const double *params;
    const char *what;
} job;

static size_t x_elem(const pclr_config *c) { return tsize(c->type ? c->type : PCLR_FLOAT) * (c->components > 1 ? (size_t)c->components : 1); }
static size_t y_elem(const pclr_config *c) { return c->y_type ? tsize(c->y_type) * (c->components > 1 ? (size_t)c->components : 1) : 0; }

static pclr_input input_of(const job *j) {
    pclr_input in;
    memset(&in, 0, sizeof in);
    in.x = j->x;
    in.x_offset = j->x_offset;
    in.y = j->y;
    in.y_offset = j->y_offset;
    in.params = j->params;
    in.offsets = j->offsets;
    in.n = j->n;
    return in;
}

/* The reference's results for j (count of them). */
static pclr_result reference(const job *j, void *ref) {
    const unsigned char *x = j->hx ? j->hx + j->x_offset * x_elem(&j->cfg) : NULL;
    const unsigned char *y = j->hy ? j->hy + j->y_offset * y_elem(&j->cfg) : NULL;
    if (j->cfg.layout != PCLR_LAYOUT_ONE) return pclr_cpu_reduce_layout(&j->cfg, x, y, j->hoff, j->n, j->params, ref);
    if (j->cfg.map) return pclr_cpu_reduce_map(&j->cfg, x, y, j->n, j->params, ref);
    return pclr_cpu_reduce_config(&j->cfg, x, j->n, ref);
}

/* ------------------------------------------------------------------ the reference, cross-checked
   The CPU context runs the reference itself, so a fault inside it would pass there unseen. Two checks
   written here, independent of it: a plain loop for what does not depend on order (min, max,
   argmin, argmax, minmax, count, integer sums: docs/semantics.md's rules), and each row, column or
   segment of pclr_cpu_reduce_layout against pclr_cpu_reduce_config / _map of the gathered elements. */
typedef struct num { int kind; double f; int64_t i; uint64_t u; } num; /* kind 0: unsigned, 1: signed, 2: floating */

static float half_to_float(uint16_t h) { /* exact */
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);
    else if (e != 0) bits = sign | ((e + 112u) << 23) | (m << 13);
    else if (m == 0) bits = sign;
    else {
        f = (float)m * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    memcpy(&f, &bits, sizeof f);
    return f;
}

static num num_at(pclr_type t, const unsigned char *p) {
    num v;
    memset(&v, 0, sizeof v);
    switch (t) {
    case PCLR_UINT8: v.u = p[0]; break;
    case PCLR_INT8: { int8_t x; memcpy(&x, p, 1); v.kind = 1; v.i = x; break; }
    case PCLR_UINT16: { uint16_t x; memcpy(&x, p, 2); v.u = x; break; }
    case PCLR_INT16: { int16_t x; memcpy(&x, p, 2); v.kind = 1; v.i = x; break; }
    case PCLR_UINT: { uint32_t x; memcpy(&x, p, 4); v.u = x; break; }
    case PCLR_INT: { int32_t x; memcpy(&x, p, 4); v.kind = 1; v.i = x; break; }
    case PCLR_UINT64: memcpy(&v.u, p, 8); break;
    case PCLR_INT64: memcpy(&v.i, p, 8); v.kind = 1; break;
    case PCLR_HALF: { uint16_t h; memcpy(&h, p, 2); v.kind = 2; v.f = half_to_float(h); break; }
    case PCLR_FLOAT: { float x; memcpy(&x, p, 4); v.kind = 2; v.f = x; break; }
    default: memcpy(&v.f, p, 8); v.kind = 2; break;
    }
    return v;
}
static int num_nan(const num *v) { return v->kind == 2 && is_nan(v->f); }
static int neg_bit(double d) { uint64_t b; memcpy(&b, &d, 8); return (int)(b >> 63); }
/* a < b; signed_zero: -0 orders before +0 (min, max), else they tie (argmin, argmax) */
static int num_less(const num *a, const num *b, int signed_zero) {
    if (a->kind == 0) return a->u < b->u;
    if (a->kind == 1) return a->i < b->i;
    return a->f < b->f || (signed_zero && a->f == 0 && b->f == 0 && neg_bit(a->f) && !neg_bit(b->f));
}
static void num_put(pclr_type t, const num *v, pclr_scalar *out) { /* as a value of pclr_value_type(t) */
    memset(out, 0, sizeof *out);
    switch (t) {
    case PCLR_UINT8: out->u8 = (uint8_t)v->u; break;
    case PCLR_INT8: out->i8 = (int8_t)v->i; break;
    case PCLR_UINT16: out->u16 = (uint16_t)v->u; break;
    case PCLR_INT16: out->i16 = (int16_t)v->i; break;
    case PCLR_UINT: out->u32 = (uint32_t)v->u; break;
    case PCLR_INT: out->i32 = (int32_t)v->i; break;
    case PCLR_UINT64: out->u64 = v->u; break;
    case PCLR_INT64: out->i64 = v->i; break;
    case PCLR_HALF: case PCLR_FLOAT: out->f32 = (float)v->f; break;
    default: out->f64 = v->f; break;
    }
}

/* The result of cfg (one array, no map) over n elements by a plain loop; 0 where order matters (float
   sums, stats). */
static int naive_result(const pclr_config *cfg, const unsigned char *x, uint64_t n, unsigned char *out) {
    const pclr_type t = cfg->type ? cfg->type : PCLR_FLOAT;
    const pclr_op op = cfg->op ? cfg->op : PCLR_SUM;
    const pclr_accumulate acc = cfg->accumulate ? cfg->accumulate : PCLR_NATIVE;
    const size_t es = tsize(t);
    num lo, hi, v;
    uint64_t i, ilo = 0, ihi = 0, count = 0, sum = 0;
    if (!n || cfg->map || (op == PCLR_SUM && (is_float_type(t) || acc == PCLR_COMPENSATED || acc == PCLR_EXACT)) || op == PCLR_STATS) return 0;
    lo = hi = num_at(t, x);
    for (i = 0; i < n; ++i) {
        v = num_at(t, x + i * es);
        count += v.kind == 2 ? v.f != 0 : v.kind == 1 ? v.i != 0 : v.u != 0; /* NaN counts, -0 does not */
        sum += v.kind == 1 ? (uint64_t)v.i : v.u;                           /* wraps; truncated below */
        if (i == 0) continue;
        if (op == PCLR_ARGMIN || op == PCLR_ARGMAX) { /* the first NaN; else strictly better; -0 ties +0 */
            if (num_nan(&lo)) continue;
            if (num_nan(&v) || (op == PCLR_ARGMIN ? num_less(&v, &lo, 0) : num_less(&lo, &v, 0))) { lo = v; ilo = i; }
        } else { /* min, max, minmax: NaN propagates; -0 below +0 */
            if (!num_nan(&lo) && (num_nan(&v) || num_less(&v, &lo, 1))) { lo = v; ilo = i; }
            if (!num_nan(&hi) && (num_nan(&v) || num_less(&hi, &v, 1))) { hi = v; ihi = i; }
        }
    }
    (void)ihi;
    switch (op) {
    case PCLR_SUM: {
        const pclr_type st = pclr_sum_type(t, acc);
        if (tsize(st) == 4) { const uint32_t s32 = (uint32_t)sum; memcpy(out, &s32, 4); }
        else memcpy(out, &sum, 8);
        return 1;
    }
    case PCLR_COUNT: memcpy(out, &count, 8); return 1;
    case PCLR_MIN: case PCLR_MAX: {
        pclr_scalar r;
        num_put(t, op == PCLR_MIN ? &lo : &hi, &r);
        memcpy(out, &r, tsize(pclr_value_type(t)));
        return 1;
    }
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result a;
        num_put(t, &lo, &a.value);
        a.index = ilo;
        memcpy(out, &a, sizeof a);
        return 1;
    }
    default: {
        pclr_minmax_result m;
        num_put(t, &lo, &m.min);
        num_put(t, &hi, &m.max);
        memcpy(out, &m, sizeof m);
        return 1;
    }
    }
}

/* The reference's results for j (ref: count of them) against the plain loop and the gathered rows. */
static void cross_check(const job *j, const unsigned char *ref) {
    const uint64_t count = pclr_layout_results(&j->cfg);
    const size_t rs = pclr_result_size(&j->cfg), xs = x_elem(&j->cfg), ys = y_elem(&j->cfg);
    const pclr_layout L = j->cfg.layout;
    const uint64_t pitch = j->cfg.pitch ? j->cfg.pitch : j->cfg.cols;
    const unsigned char *x = j->hx ? j->hx + j->x_offset * xs : NULL, *y = j->hy ? j->hy + j->y_offset * ys : NULL;
    pclr_config one = j->cfg;
    suite exact_values; /* result_eq's field rules without tolerances: NaN-ness for NaN, else the bytes */
    scale none;
    unsigned char mine[64];
    uint64_t k, e, bad_layout = 0, bad_loop = 0, naive_runs = 0;
    char d[512], first[256];
    if (!x) return;
    first[0] = '\0';
    memset(&exact_values, 0, sizeof exact_values);
    memset(&none, 0, sizeof none);
    one.layout = PCLR_LAYOUT_ONE;
    one.rows = one.cols = one.pitch = 0;
    one.lanes = 0;
    describe_cfg(&j->cfg, d, sizeof d);
    for (k = 0; k < count; ++k) {
        const uint64_t start = L == PCLR_LAYOUT_ROWS ? k * pitch : L == PCLR_LAYOUT_COLUMNS ? k : L == PCLR_LAYOUT_SEGMENTS ? j->hoff[k] : 0;
        const uint64_t step = L == PCLR_LAYOUT_COLUMNS ? pitch : 1;
        const uint64_t len = L == PCLR_LAYOUT_ROWS ? j->cfg.cols : L == PCLR_LAYOUT_COLUMNS ? j->cfg.rows
                           : L == PCLR_LAYOUT_SEGMENTS ? j->hoff[k + 1] - j->hoff[k] : j->n;
        const unsigned char *gx = x + start * xs, *gy = y ? y + start * ys : NULL;
        unsigned char *bx = NULL, *by = NULL;
        if (step != 1) { /* a column, gathered */
            bx = (unsigned char *)malloc((size_t)len * xs + 1);
            by = y ? (unsigned char *)malloc((size_t)len * ys + 1) : NULL;
            if (!bx || (y && !by)) { free(bx); free(by); CHECK(0, "out of memory"); return; }
            for (e = 0; e < len; ++e) {
                memcpy(bx + e * xs, x + (start + e * step) * xs, xs);
                if (y) memcpy(by + e * ys, y + (start + e * step) * ys, ys);
            }
            gx = bx;
            gy = by;
        }
        if (L != PCLR_LAYOUT_ONE) {
            const pclr_result r = one.map ? pclr_cpu_reduce_map(&one, gx, gy, len, j->params, mine) : pclr_cpu_reduce_config(&one, gx, len, mine);
            if ((r != PCLR_OK || memcmp(mine, ref + k * rs, rs) != 0) && !bad_layout++)
                snprintf(first, sizeof first, "result %llu (start %llu, step %llu, %llu elements)", (unsigned long long)k,
                         (unsigned long long)start, (unsigned long long)step, (unsigned long long)len);
        }
        if (naive_result(&one, gx, len, mine)) {
            ++naive_runs;
            if (!result_eq(&exact_values, &one, mine, ref + k * rs, &none) && !bad_loop++ && !bad_layout)
                snprintf(first, sizeof first, "result %llu (%llu elements)", (unsigned long long)k, (unsigned long long)len);
        }
        free(bx);
        free(by);
    }
    if (L != PCLR_LAYOUT_ONE)
        CHECK(!bad_layout, "pclr_cpu_reduce_layout %s: %llu of %llu results are not the reduce of their gathered elements; first: %s", d,
              (unsigned long long)bad_layout, (unsigned long long)count, first);
    if (naive_runs)
        CHECK(!bad_loop, "the reference %s: %llu of %llu results are not a plain loop's answer; first: %s", d, (unsigned long long)bad_loop,
              (unsigned long long)naive_runs, first);
}

/* Compares count results; reports the first that differs. */
static int compare_results(suite *s, const job *j, const unsigned char *got, const unsigned char *ref, uint64_t count, const char *form) {
    const size_t rs = pclr_result_size(&j->cfg);
    scale *sc = NULL;
    uint64_t k;
    int ok = 1;
    if ((!s->bitwise || g_tolerant) && (!j->cfg.op || j->cfg.op == PCLR_SUM || j->cfg.op == PCLR_STATS)) { /* (only they read it) */
        const unsigned char *x = j->hx ? j->hx + j->x_offset * x_elem(&j->cfg) : NULL;
        const unsigned char *y = j->hy ? j->hy + j->y_offset * y_elem(&j->cfg) : NULL;
        sc = (scale *)calloc((size_t)(count ? count : 1), sizeof *sc);
        if (!sc) return CHECK(0, "out of memory");
        scales_of(&j->cfg, x, y, j->hoff, j->n, j->params, count, sc);
    }
    for (k = 0; k < count && ok; ++k) {
        scale none;
        memset(&none, 0, sizeof none);
        ok = result_eq(s, &j->cfg, got + k * rs, ref + k * rs, sc ? &sc[k] : &none);
        if (!ok) {
            char d[512], g[256], r[256];
            size_t b;
            g[0] = r[0] = '\0';
            describe_cfg(&j->cfg, d, sizeof d);
            for (b = 0; b < rs && 3 * b + 3 < sizeof g; ++b) {
                snprintf(g + 3 * b, 4, "%02x ", got[k * rs + b]);
                snprintf(r + 3 * b, 4, "%02x ", ref[k * rs + b]);
            }
            CHECK(0, "%s: %s %s: %s, x_offset %llu, y_offset %llu, n %llu: result %llu of %llu differs from the reference\n  got %s\n  ref %s",
                  s->name, form, j->what, d, (unsigned long long)j->x_offset, (unsigned long long)j->y_offset, (unsigned long long)j->n,
                  (unsigned long long)k, (unsigned long long)count, g, r);
        }
    }
    if (ok) CHECK(1, "results match");
    free(sc);
    return ok;
}

#define CANARY 0xa5
static int canary_intact(const unsigned char *p, size_t bytes) {
    size_t i;
    for (i = 0; i < bytes; ++i) if (p[i] != CANARY) return 0;
    return 1;
}

/* The blocking reduce of j with results of exactly the size the verb says, against the reference;
   the bytes after the results stay as they were. Returns 1 when it ran (or was refused), and puts
   the results in *keep (malloc'd; NULL when refused) when keep is not NULL. */
static int run_job(suite *s, const job *j, unsigned char **keep) {
    const uint64_t count = pclr_layout_results(&j->cfg);
    const size_t rs = pclr_result_size(&j->cfg);
    const size_t bytes = (size_t)count * rs;
    unsigned char *got = (unsigned char *)malloc(bytes + 64), *ref = (unsigned char *)malloc(bytes + 1);
    const pclr_input in = input_of(j);
    char d[512];
    pclr_result r, rr;
    int ok = 0;
    if (keep) *keep = NULL;
    describe_cfg(&j->cfg, d, sizeof d);
    if (!CHECK(got && ref && rs > 0, "%s: %s: %s: pclr_result_size %u", s->name, j->what, d, (unsigned)rs)) goto done;
    memset(got, CANARY, bytes + 64);
    r = pclr_reduce(s->ctx, &j->cfg, &in, got, bytes);
    if (r != PCLR_OK && refused(s, &j->cfg, r)) { ok = 1; goto done; }
    rr = reference(j, ref);
    if (!CHECK(r == PCLR_OK && rr == PCLR_OK, "%s: pclr_reduce %s: %s, x_offset %llu, n %llu: %s (%s); reference: %s", s->name, j->what, d,
               (unsigned long long)j->x_offset, (unsigned long long)j->n, pclr_result_string(r), r ? pclr_last_error(s->ctx) : "",
               pclr_result_string(rr)))
        goto done;
    CHECK(canary_intact(got + bytes, 64), "%s: pclr_reduce %s: %s wrote past its %llu x %u result bytes", s->name, j->what, d,
          (unsigned long long)count, (unsigned)rs);
    if (s->backend == PCLR_CPU) cross_check(j, ref); /* (the reference is the same on every backend: once is enough) */
    ok = compare_results(s, j, got, ref, count, "pclr_reduce");
    if (keep && ok) { *keep = got; got = NULL; }
done:
    free(got);
    free(ref);
    return ok;
}

/* The bytes of a state (async) in this context: the result's on the CPU context, else the op's state. */
static size_t unit_of(const suite *s, const pclr_config *cfg) { return s->backend == PCLR_CPU ? pclr_result_size(cfg) : pclr_state_size(cfg); }

/* pclr_reduce_async of j into a states buffer (canary-filled) from first_state on; read back,
   finalized (the CPU context: the results themselves), equal to the blocking results `blocking`
   (same device: the same bits) and to the reference; the buffer's other bytes untouched. */
static void run_async(suite *s, const job *j, uint64_t first_state, const unsigned char *blocking, const char *what) {
    const uint64_t count = pclr_layout_results(&j->cfg);
    const size_t rs = pclr_result_size(&j->cfg), unit = unit_of(s, &j->cfg);
    const size_t head = (size_t)first_state * unit, body = (size_t)count * unit, total = head + body + 64;
    unsigned char *back = (unsigned char *)malloc(total), *res = (unsigned char *)malloc((size_t)count * rs + 1);
    unsigned char *ref = (unsigned char *)malloc((size_t)count * rs + 1);
    pclr_buffer *states = NULL;
    const pclr_input in = input_of(j);
    pclr_sync zero;
    char d[512];
    pclr_result r;
    uint64_t k;
    memset(&zero, 0, sizeof zero);
    describe_cfg(&j->cfg, d, sizeof d);
    if (s->backend == PCLR_VULKAN) goto done; /* (the caller says why) */
    if (!CHECK(back && res && ref && unit > 0, "%s: async %s: %s: unit %u", s->name, what, d, (unsigned)unit)) goto done;
    if (!CHECK(pclr_buffer_create(s->ctx, total, &states) == PCLR_OK, "%s: a states buffer of %u bytes", s->name, (unsigned)total)) goto done;
    memset(back, CANARY, total);
    if (!CHECK(pclr_buffer_write(s->ctx, states, 0, back, total) == PCLR_OK, "%s: canary into the states buffer", s->name)) goto done;
    r = pclr_reduce_async(s->ctx, &j->cfg, &in, states, first_state, first_state ? &zero : NULL);
    if (r != PCLR_OK && refused(s, &j->cfg, r)) goto done;
    if (!CHECK(r == PCLR_OK, "%s: pclr_reduce_async %s: %s, first_state %llu: %s (%s)", s->name, what, d, (unsigned long long)first_state,
               pclr_result_string(r), pclr_last_error(s->ctx)))
        goto done;
    if (!CHECK(pclr_buffer_read(s->ctx, states, 0, back, total) == PCLR_OK, "%s: read the states back: %s", s->name, pclr_last_error(s->ctx)))
        goto done;
    CHECK(canary_intact(back, head) && canary_intact(back + head + body, 64),
          "%s: pclr_reduce_async %s: %s, first_state %llu: wrote outside states [%llu, %llu) of %u bytes", s->name, what, d,
          (unsigned long long)first_state, (unsigned long long)first_state, (unsigned long long)(first_state + count), (unsigned)unit);
    for (k = 0; k < count; ++k) {
        if (s->backend == PCLR_CPU) memcpy(res + k * rs, back + head + k * unit, rs); /* the results themselves */
        else if (!CHECK(pclr_finalize(&j->cfg, back + head + k * unit, res + k * rs) == PCLR_OK, "%s: pclr_finalize %s", s->name, d)) goto done;
    }
    if (blocking) {
        for (k = 0; k < count; ++k)
            if (!result_same(&j->cfg, res + k * rs, blocking + k * rs)) break;
        CHECK(k == count, "%s: pclr_reduce_async %s: %s, first_state %llu: result %llu is not the blocking reduce's", s->name, what, d,
              (unsigned long long)first_state, (unsigned long long)k);
    }
    if (CHECK(reference(j, ref) == PCLR_OK, "reference of %s", d)) compare_results(s, j, res, ref, count, "pclr_reduce_async");
done:
    pclr_buffer_destroy(s->ctx, states);
    free(back);
    free(res);
    free(ref);
}

/* ------------------------------------------------------------------ 1. semantics */
/* Which type x op pairs a run covers: all of them on the CPU context and with PCLR_TEST_FULL, a
   seed-rotated quarter on a device (every type twice, every op twice or three times). */
static int pair_selected(const suite *s, int t, int o) {
    if (s->backend == PCLR_CPU || g_full) return 1;
    return (t * 3 + o + (int)(g_seed % 4u)) % 4 == 0 || (t == PCLR_FLOAT && o == PCLR_SUM);
}

static int acc_valid(pclr_type t, pclr_op o, pclr_accumulate a) {
    if (a == PCLR_NATIVE) return 1;
    if (o != PCLR_SUM && o != PCLR_STATS) return 0;
    if (a == PCLR_WIDE) return 1;
    if (a == PCLR_COMPENSATED) return is_float_type(t);
    return is_float_type(t) && o == PCLR_SUM; /* exact */
}

/* The identity through pclr_reduce at n = 0: pclr_identity's bytes (native), the reference's (others). */
static void check_identity(suite *s, const pclr_config *cfg) {
    const size_t rs = pclr_result_size(cfg);
    unsigned char got[128], id[128], ref[128];
    pclr_input in;
    pclr_result r;
    char d[512];
    int k;
    describe_cfg(cfg, d, sizeof d);
    for (k = 0; k < 3; ++k) { /* no buffer; a buffer at offset 0; at its very end */
        memset(&in, 0, sizeof in);
        in.x = k ? s->big : NULL;
        in.x_offset = k == 2 ? MAXN : k == 1 ? 0 : 5;
        memset(got, CANARY, sizeof got);
        r = pclr_reduce(s->ctx, cfg, &in, got, rs);
        if (r != PCLR_OK && refused(s, cfg, r)) return;
        if (!CHECK(r == PCLR_OK && canary_intact(got + rs, sizeof got - rs), "%s: n = 0 (%s, x_offset %llu): %s: %s (%s)", s->name,
                   k ? "a buffer" : "no buffer", (unsigned long long)in.x_offset, d, pclr_result_string(r), pclr_last_error(s->ctx)))
            continue;
        if (!cfg->accumulate || cfg->accumulate == PCLR_NATIVE) {
            CHECK(pclr_identity(cfg->type, cfg->op, id) == PCLR_OK, "pclr_identity %s", d);
            CHECK(result_same(cfg, got, id), "%s: n = 0 gives pclr_identity: %s", s->name, d);
        }
        CHECK(pclr_cpu_reduce_config(cfg, NULL, 0, ref) == PCLR_OK && result_same(cfg, got, ref), "%s: n = 0 is the reference's: %s", s->name, d);
        if ((cfg->op == PCLR_ARGMIN || cfg->op == PCLR_ARGMAX)) {
            pclr_arg_result a;
            memcpy(&a, got, sizeof a);
            CHECK(a.index == UINT64_MAX, "%s: n = 0 %s: index UINT64_MAX (got %llu)", s->name, d, (unsigned long long)a.index);
        }
    }
}

static uint64_t pick(suite *s, const uint64_t *sizes, size_t count) { return sizes[rnd_below(s, count)]; }

/* The ops this contract's references know: sum .. count. The ops of issue 33 (prod, and, or, xor, any, all,
   argminmax) are checked against their own reference in test_vocab (ops33) and in every layout by test_layout. */
#define CONTRACT_LAST_OP PCLR_COUNT

static void test_semantics(suite *s) {
    int t, o, a;
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
        const pclr_type type = (pclr_type)t;
        int any = 0;
        for (o = PCLR_SUM; o <= CONTRACT_LAST_OP; ++o) any |= pair_selected(s, t, o);
        if (!any || !load_type(s, type)) continue;
        for (o = PCLR_SUM; o <= CONTRACT_LAST_OP; ++o) {
            int accs[4], na = 0, i;
            if (!pair_selected(s, t, o)) continue;
            accs[na++] = PCLR_NATIVE;
            for (a = PCLR_WIDE; a < PCLR_ACCUMULATE_COUNT_; ++a)
                if (acc_valid(type, (pclr_op)o, (pclr_accumulate)a)) accs[na++] = a;
            if (s->backend != PCLR_CPU && !g_full && na > 2) { /* native and one other, drawn */
                accs[1] = accs[1 + rnd_below(s, (uint64_t)na - 1)];
                na = 2;
            }
            for (i = 0; i < na; ++i) {
                job j;
                uint64_t sizes[64];
                size_t ns = 0, k;
                memset(&j, 0, sizeof j);
                j.cfg.type = type;
                j.cfg.op = (pclr_op)o;
                j.cfg.accumulate = (pclr_accumulate)accs[i];
                check_identity(s, &j.cfg);
                if (g_full) {
                    for (k = 0; k < COUNT_OF(g_small); ++k) sizes[ns++] = g_small[k];
                    for (k = 0; k < COUNT_OF(g_medium); ++k) sizes[ns++] = g_medium[k];
                    for (k = 0; k < COUNT_OF(g_large); ++k) sizes[ns++] = g_large[k];
                } else {
                    sizes[ns++] = pick(s, g_small, COUNT_OF(g_small));
                    sizes[ns++] = pick(s, g_medium, COUNT_OF(g_medium));
                    sizes[ns++] = pick(s, g_large, COUNT_OF(g_large));
                    if (s->backend == PCLR_CPU) { /* cheap here: more of each band */
                        sizes[ns++] = pick(s, g_small, COUNT_OF(g_small));
                        sizes[ns++] = pick(s, g_medium, COUNT_OF(g_medium));
                        sizes[ns++] = pick(s, g_large, COUNT_OF(g_large));
                    }
                }
                j.x = s->big;
                j.hx = s->hbig;
                j.what = "random data";
                for (k = 0; k < ns; ++k) {
                    j.n = sizes[k];
                    j.x_offset = k == 0 ? 1 + rnd_below(s, 15) : rnd_below(s, 16); /* the first one never 0 */
                    run_job(s, &j, NULL);
                }
                /* ties and signed zeros; integer extremes, NaN and inf (the second region); only zeros, -0 first (the third) */
                j.x = s->spec;
                j.hx = s->hspec;
                for (k = 0; k < 4; ++k) { /* CPU: all four windows; devices: the first and one of the zeros' */
                    static const char *kinds[] = {"ties and signed zeros", "ties with extremes (NaN, inf)", "only zeros"};
                    const int all = s->backend == PCLR_CPU || g_full;
                    const uint64_t region = k == 0 ? rnd_below(s, 2) : k == 1 ? 1 : 2;
                    const int zeros_first = k == 2 || (!all && rnd_below(s, 2)); /* the window starts in the -0 run, or after it */
                    if (!all && (k == 1 || k == 3)) continue;
                    j.what = kinds[region];
                    j.n = region == 2 ? 1 + rnd_below(s, 20) : k == 0 ? 1 + rnd_below(s, 60) : SPEC_N;
                    j.x_offset = region * SPEC_STRIDE + (region != 2 ? rnd_below(s, 16) : zeros_first ? rnd_below(s, 4) : 8 + rnd_below(s, 8));
                    run_job(s, &j, NULL);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ 2. bad input */
/* A float sum of GOOD_N elements at offset 3: after every failure the context still gets it right. */
static void good_reduce(suite *s, const char *after) {
    job j;
    memset(&j, 0, sizeof j);
    j.x = s->good;
    j.hx = (const unsigned char *)s->hgood;
    j.x_offset = 3;
    j.n = GOOD_N;
    j.what = after;
    run_job(s, &j, NULL);
}

/* The failure r of a verb: its code, a sentence (containing `word` when not NULL), nothing written. */
static void expect_fail(suite *s, pclr_result r, pclr_result want, const char *word, const unsigned char *out, size_t out_bytes,
                        const char *what) {
    const char *e = pclr_last_error(s->ctx);
    CHECK(r == want, "%s: %s: %s (wanted %s; %s)", s->name, what, pclr_result_string(r), pclr_result_string(want), e);
    CHECK(e && e[0] && (!word || strstr(e, word)), "%s: %s: pclr_last_error says why%s%s%s (\"%s\")", s->name, what, word ? " and names \"" : "",
          word ? word : "", word ? "\"" : "", e ? e : "(null)");
    if (out) CHECK(canary_intact(out, out_bytes), "%s: %s: nothing written", s->name, what);
    good_reduce(s, what);
}

/* The states buffer still holds its canary. */
static int states_intact(suite *s, const pclr_buffer *states, size_t bytes) {
    unsigned char back[512];
    return bytes <= sizeof back && pclr_buffer_read(s->ctx, states, 0, back, bytes) == PCLR_OK && canary_intact(back, bytes);
}

static void test_bad_input(suite *s) {
    unsigned char out[256];
    pclr_buffer *small = NULL, *states = NULL, *offs = NULL;
    pclr_config c, m;
    pclr_input in;
    pclr_result r;
    const double params[2] = {0.5, 3};
    const uint64_t offsets[4] = {0, 2, 3, 4};
    size_t k;
    memset(&c, 0, sizeof c);
    memset(&in, 0, sizeof in);
    memset(out, CANARY, sizeof out);
    c.type = PCLR_FLOAT;
    in.x = s->good;
    in.n = 10;
    /* a NULL context: every verb, and last_error answers */
    CHECK(pclr_reduce(NULL, &c, &in, out, 4) == PCLR_ERR_INVALID_CONTEXT, "pclr_reduce(NULL context)");
    CHECK(pclr_reduce_async(NULL, &c, &in, s->big, 0, NULL) == PCLR_ERR_INVALID_CONTEXT, "pclr_reduce_async(NULL context)");
    CHECK(pclr_last_error(NULL) && pclr_last_error(NULL)[0], "pclr_last_error(NULL) says so");
    CHECK(canary_intact(out, sizeof out), "a NULL context writes nothing");
    if (!CHECK(pclr_buffer_create(s->ctx, 16, &small) == PCLR_OK && pclr_buffer_create(s->ctx, 256, &states) == PCLR_OK &&
               pclr_buffer_create(s->ctx, sizeof offsets, &offs) == PCLR_OK, "%s: small buffers", s->name))
        goto done;
    CHECK(pclr_buffer_write(s->ctx, offs, 0, offsets, sizeof offsets) == PCLR_OK && pclr_buffer_write(s->ctx, states, 0, out, 256) == PCLR_OK,
          "%s: fill the small buffers", s->name);
    /* NULL pointers */
    expect_fail(s, pclr_reduce(s->ctx, NULL, &in, out, 4), PCLR_ERR_NULL_POINTER, "cfg", out, sizeof out, "pclr_reduce: cfg NULL");
    expect_fail(s, pclr_reduce(s->ctx, &c, NULL, out, 4), PCLR_ERR_NULL_POINTER, "in", out, sizeof out, "pclr_reduce: in NULL");
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, NULL, 4), PCLR_ERR_NULL_POINTER, "results", NULL, 0, "pclr_reduce: results NULL");
    expect_fail(s, pclr_reduce_async(s->ctx, NULL, &in, states, 0, NULL), PCLR_ERR_NULL_POINTER, "cfg", NULL, 0, "pclr_reduce_async: cfg NULL");
    expect_fail(s, pclr_reduce_async(s->ctx, &c, NULL, states, 0, NULL), PCLR_ERR_NULL_POINTER, "in", NULL, 0, "pclr_reduce_async: in NULL");
    expect_fail(s, pclr_reduce_async(s->ctx, &c, &in, NULL, 0, NULL), PCLR_ERR_NULL_POINTER, "states", NULL, 0, "pclr_reduce_async: states NULL");
    CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
    in.x = NULL;
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_NULL_POINTER, "in.x", out, sizeof out, "pclr_reduce: in.x NULL with n = 10");
    expect_fail(s, pclr_reduce_async(s->ctx, &c, &in, states, 0, NULL), PCLR_ERR_NULL_POINTER, "in.x", NULL, 0,
                "pclr_reduce_async: in.x NULL with n = 10");
    /* past the end */
    in.x = small; /* 4 floats */
    in.n = 5;
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_SIZE_OVERFLOW, "in.x", out, sizeof out, "pclr_reduce: 5 floats in 16 bytes");
    in.n = 2;
    in.x_offset = 3;
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_SIZE_OVERFLOW, "in.x", out, sizeof out, "pclr_reduce: offset 3 + 2 floats in 16 bytes");
    in.x_offset = UINT64_MAX;
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_SIZE_OVERFLOW, "in.x", out, sizeof out, "pclr_reduce: offset + n wraps");
    in.x_offset = 5;
    in.n = 0;
    expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_SIZE_OVERFLOW, "in.x", out, sizeof out, "pclr_reduce: n = 0 at offset 5 of 4 floats");
    in.x_offset = 3;
    in.n = 2;
    expect_fail(s, pclr_reduce_async(s->ctx, &c, &in, states, 0, NULL), PCLR_ERR_SIZE_OVERFLOW, "in.x", NULL, 0,
                "pclr_reduce_async: offset 3 + 2 floats in 16 bytes");
    CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
    in.x_offset = 0;
    /* another context's buffers */
    if (s->foreign) {
        in.x = s->foreign;
        in.n = 2;
        expect_fail(s, pclr_reduce(s->ctx, &c, &in, out, 4), PCLR_ERR_INVALID_ARGUMENT, "another context", out, sizeof out,
                    "pclr_reduce: in.x of another context");
        expect_fail(s, pclr_reduce_async(s->ctx, &c, &in, states, 0, NULL), PCLR_ERR_INVALID_ARGUMENT, "another context", NULL, 0,
                    "pclr_reduce_async: in.x of another context");
        in.x = small;
        expect_fail(s, pclr_reduce_async(s->ctx, &c, &in, s->foreign, 0, NULL), PCLR_ERR_INVALID_ARGUMENT, "another context", NULL, 0,
                    "pclr_reduce_async: a states buffer of another context");
        m = c;
        m.map = "x * y";
        m.y_type = PCLR_FLOAT;
        in.y = s->foreign;
        expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, 4), PCLR_ERR_INVALID_ARGUMENT, "another context", out, sizeof out,
                    "pclr_reduce: in.y of another context");
        in.y = NULL;
        m = c;
        m.layout = PCLR_LAYOUT_SEGMENTS;
        m.rows = 3;
        in.offsets = s->foreign;
        in.n = 4;
        expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, 12), PCLR_ERR_INVALID_ARGUMENT, "another context", out, sizeof out,
                    "pclr_reduce: in.offsets of another context");
        in.offsets = NULL;
        CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
    }
    /* invalid enums */
    in.x = small;
    in.n = 4;
    for (k = 0; k < 14; ++k) {
        static const char *field[] = {"type", "op", "accumulate", "layout", "stride", "variant", "finish"};
        const int bad = k < 7 ? 99 : -1;
        m = c;
        switch (k % 7) {
        case 0: m.type = (pclr_type)(k < 7 ? (int)PCLR_TYPE_COUNT_ : bad); break;
        case 1: m.op = (pclr_op)(k < 7 ? (int)PCLR_OP_COUNT_ : bad); break;
        case 2: m.accumulate = (pclr_accumulate)(k < 7 ? (int)PCLR_ACCUMULATE_COUNT_ : bad); break;
        case 3: m.layout = (pclr_layout)(k < 7 ? (int)PCLR_LAYOUT_COUNT_ : bad); break;
        case 4: m.stride = (pclr_stride)(k < 7 ? (int)PCLR_STRIDE_COUNT_ : bad); break;
        case 5: m.variant = (pclr_variant)(k < 7 ? (int)PCLR_VARIANT_COUNT_ : bad); break;
        default: m.finish = (pclr_finish)(k < 7 ? (int)PCLR_FINISH_COUNT_ : bad); break;
        }
        {
            char what[128];
            snprintf(what, sizeof what, "pclr_reduce: cfg.%s = %d", field[k % 7], k < 7 ? 99 : -1);
            if (k < 7) snprintf(what, sizeof what, "pclr_reduce: cfg.%s one past its last value", field[k % 7]);
            expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, sizeof out), PCLR_ERR_INVALID_ENUM, field[k % 7], out, sizeof out, what);
            if (k < 3) /* pclreduce.h: "0 when its type, op, accumulator or map are invalid; the other fields are not looked at" */
                CHECK(pclr_result_size(&m) == 0, "%s: pclr_result_size is 0 for an invalid config (%s): %u", s->name, what + 13,
                      (unsigned)pclr_result_size(&m));
            if (k % 7 == 1) {
                expect_fail(s, pclr_reduce_async(s->ctx, &m, &in, states, 0, NULL), PCLR_ERR_INVALID_ENUM, "op", NULL, 0,
                            "pclr_reduce_async: an invalid op");
                CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
            }
        }
    }
    /* maps: parameters missing, y missing, invalid maps */
    m = c;
    m.map = "x * t + k";
    m.params = "float t, int k";
    in.params = NULL;
    expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, 4), PCLR_ERR_NULL_POINTER, "params", out, sizeof out, "pclr_reduce: a map's params missing");
    expect_fail(s, pclr_reduce_async(s->ctx, &m, &in, states, 0, NULL), PCLR_ERR_NULL_POINTER, "params", NULL, 0,
                "pclr_reduce_async: a map's params missing");
    in.params = params;
    {   /* with them: right (the same config) */
        job j;
        memset(&j, 0, sizeof j);
        j.cfg = m;
        j.x = s->good;
        j.hx = (const unsigned char *)s->hgood;
        j.n = 100;
        j.x_offset = 1;
        j.params = params;
        j.what = "the same map with its params";
        run_job(s, &j, NULL);
    }
    m = c;
    m.map = "x * y";
    m.y_type = PCLR_FLOAT;
    expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, 4), PCLR_ERR_NULL_POINTER, "in.y", out, sizeof out, "pclr_reduce: a map's y missing");
    {
        static const char *bad_maps[] = {"x +", "z * 2", "x; x", "sqrt(x, x)", "x * t", "010 + x"};
        static const char *bad_params[] = {NULL, NULL, NULL, NULL, "float", NULL};
        for (k = 0; k < COUNT_OF(bad_maps); ++k) {
            char what[128];
            m = c;
            m.map = bad_maps[k];
            m.params = bad_params[k];
            snprintf(what, sizeof what, "pclr_reduce: invalid map \"%s\"%s%s", bad_maps[k], bad_params[k] ? " params " : "",
                     bad_params[k] ? bad_params[k] : "");
            expect_fail(s, pclr_reduce(s->ctx, &m, &in, out, 4), PCLR_ERR_INVALID_MAP, NULL, out, sizeof out, what);
        }
        m = c;
        m.map = "x +";
        expect_fail(s, pclr_reduce_async(s->ctx, &m, &in, states, 0, NULL), PCLR_ERR_INVALID_MAP, NULL, NULL, 0,
                    "pclr_reduce_async: invalid map \"x +\"");
        CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
    }
    /* segments: no offsets buffer; one too short for K + 1; the async states overflow */
    m = c;
    m.layout = PCLR_LAYOUT_SEGMENTS;
    m.rows = 3;
    in.params = NULL;
    in.offsets = NULL;
    in.n = 4;
    r = pclr_reduce(s->ctx, &m, &in, out, 12);
    if (!refused(s, &m, r)) /* (a backend without layouts refuses the configuration first) */
        expect_fail(s, r, PCLR_ERR_NULL_POINTER, "offsets", out, sizeof out, "pclr_reduce: segments without offsets");
    m.rows = 4; /* 5 offsets in a buffer of 4 */
    in.offsets = offs;
    r = pclr_reduce(s->ctx, &m, &in, out, 16);
    if (!refused(s, &m, r))
        expect_fail(s, r, PCLR_ERR_SIZE_OVERFLOW, "in.offsets", out, sizeof out, "pclr_reduce: K + 1 offsets past the offsets buffer's end");
    in.offsets = NULL;
    m = c;
    in.x = small;
    in.n = 4;
    expect_fail(s, pclr_reduce_async(s->ctx, &m, &in, states, UINT64_MAX, NULL), PCLR_ERR_SIZE_OVERFLOW, NULL, NULL, 0,
                "pclr_reduce_async: first_state UINT64_MAX");
    CHECK(states_intact(s, states, 256), "%s: the failed async calls wrote nothing", s->name);
done:
    pclr_buffer_destroy(s->ctx, small);
    pclr_buffer_destroy(s->ctx, states);
    pclr_buffer_destroy(s->ctx, offs);
}

/* ------------------------------------------------------------------ 3. maps */
typedef struct map_case {
    pclr_type x, y;
    int components;
    const char *map, *params;
    double p[2], p2[2]; /* two sets of parameter values: no rebuild, both right */
    pclr_op ops[3];
    pclr_accumulate acc;
} map_case;

static void test_maps(suite *s) {
    static const map_case cases[] = {
        {PCLR_FLOAT, PCLR_INT16, 1, "x * y + t", "float t", {0.5, 0}, {-1.25, 0}, {PCLR_SUM, PCLR_ARGMAX, PCLR_STATS}, PCLR_NATIVE},
        {PCLR_INT, PCLR_DOUBLE, 1, "double(x) * y - k", "int k", {3, 0}, {-7, 0}, {PCLR_MIN, PCLR_ARGMIN, PCLR_SUM}, PCLR_NATIVE},
        {PCLR_UINT8, PCLR_TYPE_DEFAULT, 4, "0.25f * x.r + 0.5f * x.g + 0.25f * x.b", NULL, {0, 0}, {0, 0}, {PCLR_STATS, PCLR_ARGMAX, PCLR_SUM}, PCLR_WIDE},
        {PCLR_FLOAT, PCLR_FLOAT, 4, "x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w", NULL, {0, 0}, {0, 0}, {PCLR_SUM, PCLR_MAX, PCLR_MINMAX}, PCLR_NATIVE},
        {PCLR_UINT8, PCLR_TYPE_DEFAULT, 4, "x.a > k", "int k", {127, 0}, {200, 0}, {PCLR_COUNT, PCLR_SUM, PCLR_ARGMIN}, PCLR_NATIVE},
        {PCLR_INT64, PCLR_UINT, 1, "x - y * k", "long k", {3, 0}, {-5, 0}, {PCLR_SUM, PCLR_MAX, PCLR_STATS}, PCLR_NATIVE},
    };
    /* x and y offsets: equal, different modulo 4, x aligned and y not, and the other way */
    static const uint64_t offs[][2] = {{0, 0}, {3, 6}, {1, 1}, {0, 5}, {7, 2}, {4, 9}};
    size_t c, o;
    unsigned char *hx = (unsigned char *)malloc((size_t)70000 * 32), *hy = (unsigned char *)malloc((size_t)70000 * 32);
    pclr_buffer *bx = NULL, *by = NULL;
    if (!CHECK(hx && hy && pclr_buffer_create(s->ctx, (size_t)70000 * 32, &bx) == PCLR_OK &&
               pclr_buffer_create(s->ctx, (size_t)70000 * 32, &by) == PCLR_OK, "%s: map buffers", s->name))
        goto done;
    for (c = 0; c < COUNT_OF(cases); ++c) {
        const map_case *mc = &cases[c];
        job j;
        size_t xs, ys;
        memset(&j, 0, sizeof j);
        j.cfg.type = mc->x;
        j.cfg.y_type = mc->y;
        j.cfg.components = mc->components;
        j.cfg.map = mc->map;
        j.cfg.params = mc->params;
        xs = x_elem(&j.cfg);
        ys = y_elem(&j.cfg);
        fill(s, mc->x, hx, (uint64_t)70000 * (uint64_t)mc->components, c % 2 ? 1 : 0);
        if (mc->y) fill(s, mc->y, hy, (uint64_t)70000 * (uint64_t)mc->components, 0);
        if (!CHECK(pclr_buffer_write(s->ctx, bx, 0, hx, (size_t)70000 * xs) == PCLR_OK &&
                   (!mc->y || pclr_buffer_write(s->ctx, by, 0, hy, (size_t)70000 * ys) == PCLR_OK), "%s: upload map data", s->name))
            continue;
        j.x = bx;
        j.hx = hx;
        if (mc->y) { j.y = by; j.hy = hy; }
        for (o = 0; o < 3; ++o) {
            size_t q;
            if (s->backend != PCLR_CPU && !g_full && o != (c + (size_t)(g_seed % 3u)) % 3) continue; /* devices: one op per case */
            j.cfg.op = mc->ops[o];
            j.cfg.accumulate = mc->ops[o] == PCLR_SUM || mc->ops[o] == PCLR_STATS ? mc->acc : PCLR_NATIVE;
            for (q = 0; q < (s->backend == PCLR_CPU || g_full ? COUNT_OF(offs) : 3u); ++q) {
                const size_t pair = s->backend == PCLR_CPU || g_full ? q : (q == 0 ? 1 : rnd_below(s, COUNT_OF(offs))); /* {3, 6} always */
                static const uint64_t ns[] = {0, 1, 17, 4099, 65537};
                j.x_offset = offs[pair][0];
                j.y_offset = mc->y ? offs[pair][1] : 0;
                j.n = ns[(q + o + c) % COUNT_OF(ns)];
                j.params = mc->params ? (q % 2 ? mc->p2 : mc->p) : NULL;
                j.what = q % 2 ? "map, second parameter values" : "map";
                run_job(s, &j, NULL);
            }
        }
    }
done:
    pclr_buffer_destroy(s->ctx, bx);
    pclr_buffer_destroy(s->ctx, by);
    free(hx);
    free(hy);
}

/* ------------------------------------------------------------------ 4-6. layouts, sizes, async */
/* text has the decimal number v as a word of its own (no digit beside it) */
static int names_number(const char *text, uint64_t v) {
    char num[32];
    const char *p = text;
    size_t len;
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    len = strlen(num);
    while ((p = strstr(p, num)) != NULL) {
        if ((p == text || p[-1] < '0' || p[-1] > '9') && (p[len] < '0' || p[len] > '9')) return 1;
        ++p;
    }
    return 0;
}

/* The result-size rule for j: one byte short (and 0 bytes): PCLR_ERR_BUFFER_TOO_SMALL, nothing written,
   the bytes needed in the sentence; exact size is run_job's. */
static void check_too_small(suite *s, const job *j) {
    const uint64_t count = pclr_layout_results(&j->cfg);
    const size_t rs = pclr_result_size(&j->cfg), bytes = (size_t)count * rs;
    unsigned char *out = (unsigned char *)malloc(bytes + 64);
    const pclr_input in = input_of(j);
    char need[32], d[512], what[640];
    pclr_result r;
    int k;
    if (!out || !count) { free(out); return; }
    describe_cfg(&j->cfg, d, sizeof d);
    snprintf(need, sizeof need, "%llu", (unsigned long long)bytes);
    for (k = 0; k < 2; ++k) {
        memset(out, CANARY, bytes + 64);
        r = pclr_reduce(s->ctx, &j->cfg, &in, out, k ? 0 : bytes - 1);
        if (r != PCLR_ERR_BUFFER_TOO_SMALL && refused(s, &j->cfg, r)) break;
        snprintf(what, sizeof what, "pclr_reduce %s, results_bytes %llu of %s (needs %s)", d, (unsigned long long)(k ? 0 : bytes - 1),
                 j->what, need);
        CHECK(r == PCLR_ERR_BUFFER_TOO_SMALL, "%s: %s: %s (%s)", s->name, what, pclr_result_string(r), pclr_last_error(s->ctx));
        CHECK(canary_intact(out, bytes + 64), "%s: %s: nothing written", s->name, what);
        CHECK(names_number(pclr_last_error(s->ctx), (uint64_t)bytes), "%s: %s: the sentence names the %s bytes needed (\"%s\")", s->name,
              what, need, pclr_last_error(s->ctx));
    }
    good_reduce(s, "after PCLR_ERR_BUFFER_TOO_SMALL");
    free(out);
}

/* Section 7 for one config: pclr_layout_results, pclr_result_size and pclr_state_size as documented. */
static void check_sizes(suite *s, const pclr_config *cfg) {
    const pclr_type rt = pclr_reduced_type(cfg), vt = pclr_value_type(rt);
    const pclr_op op = cfg->op ? cfg->op : PCLR_SUM;
    const pclr_accumulate acc = op != PCLR_SUM && op != PCLR_STATS ? PCLR_NATIVE : cfg->accumulate ? cfg->accumulate : PCLR_NATIVE;
    const uint64_t want_count = cfg->layout == PCLR_LAYOUT_ONE ? 1 : cfg->layout == PCLR_LAYOUT_COLUMNS ? cfg->cols : cfg->rows;
    const size_t rs = pclr_result_size(cfg), ss = pclr_state_size(cfg);
    size_t want = 0;
    char d[512];
    describe_cfg(cfg, d, sizeof d);
    switch (op) {
    case PCLR_SUM: want = tsize(pclr_sum_type(rt, acc)); break;
    case PCLR_MIN: case PCLR_MAX: want = tsize(vt); break;
    case PCLR_COUNT: want = 8; break;
    case PCLR_ARGMIN: case PCLR_ARGMAX: want = sizeof(pclr_arg_result); break;
    case PCLR_MINMAX: want = sizeof(pclr_minmax_result); break;
    default: want = sizeof(pclr_stats_result); break;
    }
    CHECK(pclr_layout_results(cfg) == want_count, "%s: pclr_layout_results %s: %llu, wanted %llu", s->name, d,
          (unsigned long long)pclr_layout_results(cfg), (unsigned long long)want_count);
    CHECK(rs == want, "%s: pclr_result_size %s: %u, wanted %u", s->name, d, (unsigned)rs, (unsigned)want);
    CHECK(ss > 0 && (ss <= 8 || ss % 8 == 0), "%s: pclr_state_size %s: %u (a multi-field state is 8-byte aligned)", s->name, d, (unsigned)ss);
    if ((op == PCLR_SUM || op == PCLR_MIN || op == PCLR_MAX) && acc == PCLR_NATIVE &&
        (rt == PCLR_UINT || rt == PCLR_INT || rt == PCLR_UINT64 || rt == PCLR_INT64 || rt == PCLR_FLOAT || rt == PCLR_DOUBLE))
        CHECK(ss == rs, "%s: %s: the state is the result itself (pclr_state_size %u, pclr_result_size %u)", s->name, d, (unsigned)ss, (unsigned)rs);
}

typedef struct shape { pclr_layout layout; uint64_t rows, cols, pitch; } shape;

static void test_layouts(suite *s) {
    static const shape shapes[] = {
        {PCLR_LAYOUT_ROWS, 1, 1, 0},       {PCLR_LAYOUT_ROWS, 7, 33, 33},    {PCLR_LAYOUT_ROWS, 5, 100, 103},
        {PCLR_LAYOUT_ROWS, 300, 5, 8},     {PCLR_LAYOUT_ROWS, 3, 5000, 5003}, {PCLR_LAYOUT_ROWS, 257, 64, 0},
        {PCLR_LAYOUT_COLUMNS, 33, 7, 9},   {PCLR_LAYOUT_COLUMNS, 1000, 3, 3}, {PCLR_LAYOUT_COLUMNS, 5, 300, 301},
        {PCLR_LAYOUT_COLUMNS, 2, 1000, 1024}, {PCLR_LAYOUT_COLUMNS, 1, 1, 5},
        {PCLR_LAYOUT_SEGMENTS, 10, 0, 0},  {PCLR_LAYOUT_SEGMENTS, 1, 0, 0},   {PCLR_LAYOUT_SEGMENTS, 40, 0, 0},
    };
    static const pclr_op ops[] = {PCLR_SUM, PCLR_MIN, PCLR_ARGMAX, PCLR_STATS, PCLR_COUNT, PCLR_MINMAX, PCLR_ARGMIN, PCLR_MAX};
    static const pclr_type types[] = {PCLR_FLOAT, PCLR_INT, PCLR_DOUBLE, PCLR_UINT8, PCLR_HALF, PCLR_INT64};
    uint64_t offsets[64], n_seg = 0;
    pclr_buffer *boff = NULL;
    size_t sh, k;
    if (!CHECK(pclr_buffer_create(s->ctx, sizeof offsets, &boff) == PCLR_OK, "%s: offsets buffer", s->name)) return;
    for (sh = 0; sh < COUNT_OF(shapes); ++sh) {
        const shape *p = &shapes[sh];
        const size_t nops = s->backend == PCLR_CPU || g_full ? 4u : 1u; /* (a device builds a program per op and strategy) */
        const pclr_type type = types[(sh + (size_t)(g_seed % 3u)) % COUNT_OF(types)];
        job j;
        if (s->backend != PCLR_CPU && !g_full && (sh + (size_t)g_seed) % 2u && !(p->layout == PCLR_LAYOUT_SEGMENTS && p->rows == 10))
            continue; /* devices: half the shapes, seed-rotated (the 10 segments always: they carry the bad offsets) */
        if (!load_type(s, type)) continue;
        memset(&j, 0, sizeof j);
        j.cfg.type = type;
        j.cfg.layout = p->layout;
        j.cfg.rows = p->rows;
        j.cfg.cols = p->cols;
        j.cfg.pitch = p->pitch;
        j.x = s->big;
        j.hx = s->hbig;
        j.x_offset = 1 + rnd_below(s, 9);
        j.what = p->layout == PCLR_LAYOUT_SEGMENTS ? "segments" : p->layout == PCLR_LAYOUT_ROWS ? "rows" : "columns";
        if (p->layout == PCLR_LAYOUT_SEGMENTS) { /* random lengths, some empty (the first, the last, and more) */
            offsets[0] = 0;
            for (k = 0; k < p->rows; ++k) {
                const uint64_t len = k == 0 || k + 1 == p->rows || rnd_below(s, 4) == 0 ? 0 : rnd_below(s, k % 7 == 3 ? 5000 : 70);
                offsets[k + 1] = offsets[k] + len;
            }
            if (p->rows == 1) offsets[1] = 12345; /* one segment, not empty */
            n_seg = offsets[p->rows] + rnd_below(s, 5); /* elements the segments may reach */
            j.n = n_seg;
            if (!CHECK(pclr_buffer_write(s->ctx, boff, 0, offsets, (size_t)(p->rows + 1) * 8) == PCLR_OK, "%s: upload offsets", s->name)) continue;
            j.offsets = boff;
            j.hoff = offsets;
        }
        for (k = 0; k < nops; ++k) {
            unsigned char *blocking = NULL;
            j.cfg.op = ops[(sh * 3 + k + (size_t)(g_seed % 8u)) % COUNT_OF(ops)];
            j.cfg.accumulate = j.cfg.op == PCLR_SUM && k == 0 && s->backend == PCLR_CPU ? PCLR_WIDE : PCLR_NATIVE;
            check_sizes(s, &j.cfg);
            run_job(s, &j, &blocking);                                   /* 4, 7: exact size, nothing past it */
            if (k == 0) check_too_small(s, &j);                          /* 5 */
            if (k == 0 && blocking) { run_async(s, &j, 0, blocking, j.what); run_async(s, &j, 3, blocking, j.what); } /* 6 */
            free(blocking);
        }
        if (p->layout == PCLR_LAYOUT_SEGMENTS && p->rows >= 3) { /* bad offsets: decreasing, past n */
            uint64_t bad[64];
            unsigned char out[64 * 56 + 64];
            const pclr_input in = input_of(&j);
            pclr_result r;
            int b;
            j.cfg.op = PCLR_SUM;
            j.cfg.accumulate = PCLR_NATIVE;
            for (b = 0; b < 2; ++b) {
                memcpy(bad, offsets, sizeof bad);
                if (b == 0) { bad[2] = bad[1] + 50; bad[1] = bad[2] + 1; } /* segment 1 decreases */
                else bad[p->rows] = n_seg + 1;                               /* the last one ends past n */
                if (!CHECK(pclr_buffer_write(s->ctx, boff, 0, bad, (size_t)(p->rows + 1) * 8) == PCLR_OK, "%s: upload bad offsets", s->name)) break;
                memset(out, CANARY, sizeof out);
                r = pclr_reduce(s->ctx, &j.cfg, &in, out, (size_t)p->rows * pclr_result_size(&j.cfg));
                if (r != PCLR_OK && refused(s, &j.cfg, r)) break;
                CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "%s: pclr_reduce segments whose offsets %s: %s (%s)", s->name,
                      b ? "pass n" : "decrease", pclr_result_string(r), pclr_last_error(s->ctx));
                CHECK(pclr_last_error(s->ctx)[0] != 0, "%s: bad offsets: a sentence", s->name);
                if (s->backend == PCLR_CPU) /* the reference checks on the host: nothing written (a device may have written) */
                    CHECK(canary_intact(out, sizeof out), "%s: bad offsets (%s): nothing written", s->name, b ? "past n" : "decreasing");
                /* async: docs say invalid offsets give empty segments, unreported (a device): the identity there, the
                   others right; the CPU context checks its host offsets: PCLR_ERR_SIZE_OVERFLOW, nothing written */
                if (s->backend == PCLR_CPU) {
                    pclr_buffer *st = NULL;
                    unsigned char back[64 * 56];
                    const size_t unit = unit_of(s, &j.cfg);
                    if (CHECK(pclr_buffer_create(s->ctx, (size_t)p->rows * unit, &st) == PCLR_OK, "%s: states buffer", s->name)) {
                        memset(back, 0xa5, sizeof back);
                        pclr_buffer_write(s->ctx, st, 0, back, (size_t)p->rows * unit);
                        r = pclr_reduce_async(s->ctx, &j.cfg, &in, st, 0, NULL);
                        CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "%s: async segments whose offsets %s: %s (the CPU checks its host offsets)", s->name,
                              b ? "pass n" : "decrease", pclr_result_string(r));
                        memset(back, 0, sizeof back);
                        pclr_buffer_read(s->ctx, st, 0, back, (size_t)p->rows * unit);
                        CHECK(back[0] == 0xa5 && back[(size_t)p->rows * unit - 1] == 0xa5, "%s: async bad offsets: nothing written", s->name);
                        pclr_buffer_destroy(s->ctx, st);
                    }
                } else if (s->backend != PCLR_VULKAN) {
                    const size_t unit = unit_of(s, &j.cfg), rs = pclr_result_size(&j.cfg);
                    pclr_buffer *st = NULL;
                    unsigned char back[64 * 56], id[56], ref[64 * 56];
                    uint64_t q;
                    if (CHECK(pclr_buffer_create(s->ctx, (size_t)p->rows * unit, &st) == PCLR_OK, "%s: states buffer", s->name)) {
                        r = pclr_reduce_async(s->ctx, &j.cfg, &in, st, 0, NULL);
                        CHECK(r == PCLR_OK, "%s: pclr_reduce_async segments whose offsets %s: %s (%s) (docs: \"invalid segment offsets then give "
                              "empty segments, unreported\")", s->name, b ? "pass n" : "decrease", pclr_result_string(r), pclr_last_error(s->ctx));
                        if (r == PCLR_OK && pclr_buffer_read(s->ctx, st, 0, back, (size_t)p->rows * unit) == PCLR_OK) {
                            pclr_identity(j.cfg.type, PCLR_SUM, id);
                            for (q = 0; q < p->rows; ++q) {
                                unsigned char res[56];
                                const int is_bad = bad[q + 1] < bad[q] || bad[q + 1] > n_seg;
                                if (s->backend == PCLR_CPU) memcpy(res, back + q * unit, rs);
                                else pclr_finalize(&j.cfg, back + q * unit, res);
                                if (is_bad) {
                                    CHECK(result_same(&j.cfg, res, id), "%s: async bad segment %llu gives the identity", s->name, (unsigned long long)q);
                                } else { /* the reference of this segment alone */
                                    pclr_config one = j.cfg;
                                    one.layout = PCLR_LAYOUT_ONE;
                                    one.rows = one.cols = one.pitch = 0;
                                    pclr_cpu_reduce_config(&one, s->hbig + (j.x_offset + bad[q]) * tsize(j.cfg.type), bad[q + 1] - bad[q], ref);
                                    {
                                        job g1 = j;
                                        g1.cfg = one;
                                        g1.x_offset = j.x_offset + bad[q];
                                        g1.n = bad[q + 1] - bad[q];
                                        g1.hoff = NULL;
                                        g1.offsets = NULL;
                                        g1.what = "async segment next to a bad one";
                                        compare_results(s, &g1, res, ref, 1, "pclr_reduce_async");
                                    }
                                }
                            }
                        }
                    }
                    pclr_buffer_destroy(s->ctx, st);
                }
                good_reduce(s, "after bad segment offsets");
            }
            pclr_buffer_write(s->ctx, boff, 0, offsets, (size_t)(p->rows + 1) * 8);
        }
    }
    {   /* a map with y, parameters, per row; rows = 0 (no results: 0 bytes are enough) */
        job j;
        unsigned char *blocking = NULL, none[8];
        const double params[1] = {0.25};
        pclr_input in;
        pclr_result r;
        load_type(s, PCLR_FLOAT);
        memset(&j, 0, sizeof j);
        j.cfg.type = PCLR_FLOAT;
        j.cfg.y_type = PCLR_FLOAT;
        j.cfg.map = "x * y - t";
        j.cfg.params = "float t";
        j.cfg.op = PCLR_SUM;
        j.cfg.layout = PCLR_LAYOUT_ROWS;
        j.cfg.rows = 9;
        j.cfg.cols = 41;
        j.cfg.pitch = 45;
        j.x = j.y = s->big;
        j.hx = j.hy = s->hbig;
        j.x_offset = 3;
        j.y_offset = 1000;
        j.params = params;
        j.what = "rows of a map with y and a parameter";
        check_sizes(s, &j.cfg);
        run_job(s, &j, &blocking);
        check_too_small(s, &j);
        if (blocking) run_async(s, &j, 2, blocking, j.what);
        free(blocking);
        j.cfg.rows = 0;
        in = input_of(&j);
        memset(none, CANARY, sizeof none);
        r = pclr_reduce(s->ctx, &j.cfg, &in, none, 0);
        if (r == PCLR_OK || !refused(s, &j.cfg, r))
            CHECK(r == PCLR_OK && canary_intact(none, sizeof none), "%s: rows = 0: no results, 0 bytes are enough: %s (%s)", s->name,
                  pclr_result_string(r), pclr_last_error(s->ctx));
    }
    pclr_buffer_destroy(s->ctx, boff);
}

/* One array: sizes (5, 7), async (6) over ops, first_state 0 and > 0, n = 0, a states buffer too small. */
static void test_one_array_async(suite *s) {
    static const pclr_type types[] = {PCLR_FLOAT, PCLR_INT, PCLR_DOUBLE, PCLR_UINT8, PCLR_HALF, PCLR_UINT64, PCLR_INT16};
    static const pclr_op ops[] = {PCLR_SUM, PCLR_ARGMAX, PCLR_STATS, PCLR_MIN, PCLR_COUNT, PCLR_MINMAX, PCLR_MAX, PCLR_ARGMIN};
    size_t t, k;
    if (s->backend == PCLR_VULKAN)
        SKIP("%s: pclr_reduce_async records into the program's command buffer (sync.vulkan_commands): its states are test_vulkan.c's; "
             "here only its refusal without one", s->name);
    for (t = 0; t < COUNT_OF(types); ++t) {
        if (!load_type(s, types[t])) continue;
        for (k = 0; k < COUNT_OF(ops); ++k) {
            job j;
            unsigned char *blocking = NULL;
            const pclr_op op = ops[(k + t * 3 + (size_t)(g_seed % 8u)) % COUNT_OF(ops)];
            if (!pair_selected(s, (int)types[t], (int)op)) continue; /* devices: the programs section 1 built */
            memset(&j, 0, sizeof j);
            j.cfg.type = types[t];
            j.cfg.op = op;
            j.x = s->big;
            j.hx = s->hbig;
            j.x_offset = 1 + rnd_below(s, 15);
            j.n = k % 3 == 0 ? 0 : k % 3 == 1 ? pick(s, g_medium, COUNT_OF(g_medium)) : pick(s, g_large, COUNT_OF(g_large));
            j.what = "one array";
            check_sizes(s, &j.cfg);
            run_job(s, &j, &blocking);
            check_too_small(s, &j);
            if (blocking) {
                run_async(s, &j, 0, blocking, "one array");
                run_async(s, &j, 1 + rnd_below(s, 6), blocking, "one array");
                if (s->backend != PCLR_CPU &&
                    (j.cfg.op == PCLR_SUM || j.cfg.op == PCLR_MIN || j.cfg.op == PCLR_MAX) && types[t] != PCLR_HALF && types[t] != PCLR_UINT8 &&
                    types[t] != PCLR_INT16) {
                    /* the state is the result itself: the raw bytes, unfinalized */
                    pclr_buffer *st = NULL;
                    unsigned char raw[16];
                    const pclr_input in = input_of(&j);
                    if (pclr_buffer_create(s->ctx, 16, &st) == PCLR_OK && pclr_reduce_async(s->ctx, &j.cfg, &in, st, 0, NULL) == PCLR_OK &&
                        pclr_buffer_read(s->ctx, st, 0, raw, 16) == PCLR_OK)
                        CHECK(result_same(&j.cfg, raw, blocking), "%s: %s %s: the state's bytes are the result", s->name, pclr_type_name(types[t]),
                              pclr_op_name(j.cfg.op));
                    pclr_buffer_destroy(s->ctx, st);
                }
            }
            free(blocking);
        }
    }
    {   /* a states buffer too small by one state, and by one byte: an error, nothing written */
        pclr_config c;
        pclr_input in;
        pclr_buffer *st = NULL;
        unsigned char fillc[256];
        size_t unit;
        pclr_result r;
        int b;
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.op = PCLR_STATS;
        memset(&in, 0, sizeof in);
        in.x = s->good;
        in.n = 100;
        memset(fillc, CANARY, sizeof fillc);
        unit = unit_of(s, &c);
        if (!CHECK(unit * 3 <= sizeof fillc && pclr_buffer_create(s->ctx, unit * 3 - 1, &st) == PCLR_OK, "%s: a states buffer of 3 states less a byte",
                   s->name))
            return;
        for (b = 0; b < 3; ++b) {
            const uint64_t first = b == 0 ? 3 : b == 1 ? 2 : UINT64_MAX / 2;
            pclr_buffer_write(s->ctx, st, 0, fillc, unit * 3 - 1);
            r = pclr_reduce_async(s->ctx, &c, &in, st, first, NULL);
            if (s->backend == PCLR_VULKAN && r != PCLR_OK) { /* refused without a command buffer first: still an error */
                CHECK(pclr_last_error(s->ctx)[0] != 0, "%s: async without a command buffer: a sentence", s->name);
                continue;
            }
            CHECK(r == PCLR_ERR_SIZE_OVERFLOW || r == PCLR_ERR_BUFFER_TOO_SMALL,
                  "%s: pclr_reduce_async float stats into %u bytes from state %llu of %u bytes: %s (%s)", s->name, (unsigned)(unit * 3 - 1),
                  (unsigned long long)first, (unsigned)unit, pclr_result_string(r), pclr_last_error(s->ctx));
            CHECK(states_intact(s, st, unit * 3 - 1), "%s: a states buffer too small: nothing written (first_state %llu)", s->name,
                  (unsigned long long)first);
            CHECK(pclr_last_error(s->ctx)[0] != 0, "%s: a states buffer too small: a sentence", s->name);
            good_reduce(s, "after a states buffer too small");
        }
        if (s->backend == PCLR_VULKAN) { /* without sync.vulkan_commands: refused, and the context works on */
            job j;
            memset(&j, 0, sizeof j);
            j.x = s->good;
            j.n = 10;
            in = input_of(&j);
            r = pclr_reduce_async(s->ctx, &c, &in, st, 0, NULL);
            CHECK(r != PCLR_OK && pclr_last_error(s->ctx)[0], "%s: pclr_reduce_async without a command buffer is refused: %s (%s)", s->name,
                  pclr_result_string(r), pclr_last_error(s->ctx));
            CHECK(states_intact(s, st, unit * 3 - 1), "%s: refused: nothing written", s->name);
            good_reduce(s, "after an async call without a command buffer");
        }
        pclr_buffer_destroy(s->ctx, st);
    }
}

/* Section 7 over the whole matrix (no device work): every type x op x accumulator. */
static void test_size_functions(suite *s) {
    int t, o, a;
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = PCLR_SUM; o <= CONTRACT_LAST_OP; ++o)
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) {
                pclr_config c;
                memset(&c, 0, sizeof c);
                c.type = (pclr_type)t;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                if (!acc_valid(c.type, c.op, c.accumulate) && (o == PCLR_SUM || o == PCLR_STATS)) {
                    CHECK(pclr_result_size(&c) == 0 && pclr_state_size(&c) == 0, "%s: pclr_result_size/pclr_state_size 0 for %s %s %s (refused)",
                          s->name, pclr_type_name(c.type), pclr_op_name(c.op), acc_name(c.accumulate));
                    continue;
                }
                check_sizes(s, &c);
            }
    {
        pclr_config c;
        unsigned char st[64];
        memset(&c, 0, sizeof c);
        memset(st, 0, sizeof st);
        CHECK(pclr_finalize(&c, NULL, st) == PCLR_ERR_NULL_POINTER && pclr_finalize(&c, st, NULL) == PCLR_ERR_NULL_POINTER &&
              pclr_finalize(NULL, st, st + 8) == PCLR_ERR_NULL_POINTER, "pclr_finalize: NULL pointers");
        CHECK(pclr_result_size(NULL) == 0 && pclr_state_size(NULL) == 0 && pclr_layout_results(NULL) == 0, "the size functions of NULL are 0");
    }
    {   /* n = 0 stats: the NaN of mean/var/sample_var. The reference writes the positive quiet NaN (0x7ff8...: pclr__ref_finish_f64);
           pclr_identity, pclr_finalize and so pclr_reduce's n = 0 compute -(inf - inf), "sign cleared" in pclr__finalize_one, whose sign
           is the compiler's: the same bits under gcc, the sign set under clang (it folds inf - inf to +NaN, then negates it). The
           docs promise only NaN (the comparisons above take any NaN); this check holds the library to its own intent. */
        pclr_config c;
        pclr_stats_result id, ref, got;
        pclr_input in;
        uint64_t bi, br, bg;
        int t, bad = 0;
        memset(&c, 0, sizeof c);
        memset(&in, 0, sizeof in);
        c.op = PCLR_STATS;
        for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
            c.type = (pclr_type)t;
            if (pclr_identity(c.type, PCLR_STATS, &id) != PCLR_OK || pclr_cpu_reduce_config(&c, NULL, 0, &ref) != PCLR_OK ||
                memcmp(&id.mean, &ref.mean, 8) || memcmp(&id.var, &ref.var, 8) || memcmp(&id.sample_var, &ref.sample_var, 8))
                ++bad;
        }
        c.type = PCLR_FLOAT;
        pclr_identity(c.type, PCLR_STATS, &id);
        pclr_cpu_reduce_config(&c, NULL, 0, &ref);
        memcpy(&bi, &id.mean, 8);
        memcpy(&br, &ref.mean, 8);
        CHECK(!bad, "pclr_identity(t, stats) and pclr_cpu_reduce_config(n = 0) give different NaN bits for mean/var/sample_var (%d of 11 types; "
              "float mean: %016llx and %016llx)", bad, (unsigned long long)bi, (unsigned long long)br);
        memset(&got, 0, sizeof got);
        if (pclr_reduce(s->ctx, &c, &in, &got, sizeof got) == PCLR_OK) {
            memcpy(&bg, &got.mean, 8);
            CHECK(bg == br, "%s: pclr_reduce float stats n = 0: mean's NaN %016llx, the reference's %016llx", s->name, (unsigned long long)bg,
                  (unsigned long long)br);
        }
    }
}

/* ------------------------------------------------------------------ the suite */
static void run_contract(pclr_context *ctx) {
    suite *s = (suite *)calloc(1, sizeof(suite));
    pclr_desc d;
    const int failed0 = pclr_test_failed, passed0 = pclr_test_passed;
    const double t0 = now_s();
    size_t i;
    if (!CHECK(s != NULL, "out of memory")) return;
    s->ctx = ctx;
    s->backend = pclr_get_backend(ctx);
    s->name = pclr_backend_name(s->backend);
    s->bitwise = s->backend == PCLR_CPU;
    s->rng = g_seed ^ ((uint64_t)s->backend * 0x9e3779b97f4a7c15ull);
    s->hbig = (unsigned char *)malloc((size_t)MAXN * 8);
    s->hspec = (unsigned char *)malloc((size_t)3 * SPEC_STRIDE * 8);
    printf("%s: %s\n", s->name, pclr_device_name(ctx));
    fflush(stdout);
    if (!CHECK(s->hbig && s->hspec, "host memory") ||
        !CHECK(pclr_buffer_create(ctx, (size_t)MAXN * 8, &s->big) == PCLR_OK && pclr_buffer_create(ctx, (size_t)3 * SPEC_STRIDE * 8, &s->spec) == PCLR_OK &&
               pclr_buffer_create(ctx, sizeof s->hgood, &s->good) == PCLR_OK, "%s: buffers: %s", s->name, pclr_last_error(ctx)))
        goto done;
    for (i = 0; i < GOOD_N + 8; ++i) s->hgood[i] = (float)((double)(rnd(s) >> 40) / 8388608.0 - 1.0);
    CHECK(pclr_buffer_write(ctx, s->good, 0, s->hgood, sizeof s->hgood) == PCLR_OK, "%s: upload", s->name);
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_CPU;
    d.no_disk_cache = d.no_tune_file = 1;
    if (CHECK(pclr_create(&d, &s->other) == PCLR_OK && pclr_buffer_create(s->other, 64, &s->foreign) == PCLR_OK, "another (CPU) context and its buffer"))
        CHECK(pclr_buffer_write(s->other, s->foreign, 0, s->hgood, 64) == PCLR_OK, "fill the foreign buffer");
    {
        static const struct { const char *name; void (*fn)(suite *); } sections[] = {
            {"1 semantics", test_semantics}, {"2 bad input", test_bad_input}, {"3 maps", test_maps},
            {"4-6 layouts, sizes, async", test_layouts}, {"5-7 one array: sizes, async", test_one_array_async},
            {"7 size functions", test_size_functions},
        };
        for (i = 0; i < COUNT_OF(sections); ++i) {
            const double t1 = now_s();
            const int f1 = pclr_test_failed, p1 = pclr_test_passed;
            sections[i].fn(s);
            printf("%s: %-30s %6d passed %4d failed  (%.1f s)\n", s->name, sections[i].name, pclr_test_passed - p1, pclr_test_failed - f1,
                   now_s() - t1);
            fflush(stdout);
        }
    }
    if (s->refused) SKIP("%s: %ld configurations refused as the docs allow (first: %s)", s->name, s->refused, s->first_refusal);
done:
    /* (worded so that tests/run.sh counts only the closing "contract: N passed, N failed" line) */
    printf("%s: all sections: %d checks passed, %d failed, in %.1f s\n", s->name, pclr_test_passed - passed0, pclr_test_failed - failed0,
           now_s() - t0);
    pclr_buffer_destroy(ctx, s->big);
    pclr_buffer_destroy(ctx, s->spec);
    pclr_buffer_destroy(ctx, s->good);
    if (s->other) {
        pclr_buffer_destroy(s->other, s->foreign);
        pclr_destroy(s->other);
    }
    free(s->hbig);
    free(s->hspec);
    free(s);
}

/* Creates the context of one backend (device 0: the best) and runs the suite, or says why not. */
static void try_backend(pclr_backend b) {
    pclr_desc d;
    pclr_context *ctx = NULL;
    char why[1024];
    memset(&d, 0, sizeof d);
    d.backends[0] = b;
    d.error = why;
    d.error_cap = sizeof why;
    why[0] = '\0';
    if (pclr_create(&d, &ctx) != PCLR_OK) {
        if (b == PCLR_CPU) CHECK(0, "the CPU context: %s", why);
        else SKIP("%s: no context here: %s", pclr_backend_name(b), why);
        return;
    }
    CHECK(pclr_get_backend(ctx) == b, "pclr_create gave %s for %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_backend_name(b));
    run_contract(ctx);
    pclr_destroy(ctx);
}

int main(int argc, char **argv) {
    static const pclr_test_backend all[] = PCLR_TEST_BACKENDS;
    const char *env = getenv("PCLR_SEED");
    int want[4] = {0, 0, 0, 0}, named = 0, i, k;
    if (!env || !*env) env = getenv("PCLR_TEST_SEED");
    g_seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    g_full = getenv("PCLR_TEST_FULL") && atoi(getenv("PCLR_TEST_FULL")) != 0;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--tolerant")) { g_tolerant = 1; continue; }
        for (k = 0; k < 4; ++k)
            if (!strcmp(argv[i], all[k].name)) { want[k] = 1; named = 1; break; }
        if (k == 4) {
            fprintf(stderr, "usage: %s [cpu] [opencl] [vulkan] [cuda] [--tolerant]\n", argv[0]);
            return 2;
        }
    }
    printf("seed %llu (PCLR_SEED=%llu reproduces this run)%s%s\n", (unsigned long long)g_seed, (unsigned long long)g_seed,
           g_full ? ", full sweep" : "", g_tolerant ? ", CPU compared as a device" : "");
    for (k = 0; k < 4; ++k) {
        if (named && !want[k]) continue;
        if (!all[k].compiled) {
            if (named) SKIP("%s: not compiled in (define PCLR_TEST_%s)", all[k].name, k == 1 ? "OPENCL" : k == 2 ? "VULKAN" : "CUDA");
            continue;
        }
        try_backend(all[k].b);
    }
    if (pclr_test_failed) printf("FAILED with seed %llu: PCLR_SEED=%llu reproduces it\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    return pclr_test_summary("contract");
}
