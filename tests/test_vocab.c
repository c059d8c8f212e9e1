/* test_vocab: the vocabulary of issue 14 on a device, through the generic
   context (pclr_create), against the CPU reference pclr_cpu_reduce_config:
   every type x op x accumulator on random data with a fresh seed, odd sizes
   (0, 1, 2, 3, primes, 2^k +- 1, up to ~2^22) at element offsets 0, 1, 3, 7,
   and special data: NaN first / middle / last / everywhere, +-inf, +-0, ties,
   all equal, small integers; a sample of non-default knobs (vector, unroll,
   group, stride, variant, finish), the combinations pclr_config_resolve
   refuses counted and printed; known answers written by hand (independent of
   the reference: argmax of a known array, stats of 1..10, signed zeros, the
   first NaN, integer wrapping, compensated sums, n = 0 identities).

   How results compare (the reference and the device run different trees):
   - integers (sums too: they wrap exactly), min, max, argmin/argmax (value
     and index), minmax, count, stats' count/min/max: exactly (same bytes of
     the value's type; for a NaN only NaN-ness, any payload);
   - float sums, native and wide (eps = unit roundoff of the accumulator,
     2^-24 float, 2^-53 double; half accumulates in float):
        |got - ref| <= (n + 2) * eps_acc * sum|x| + eps_res * |ref|
     (a sequential or tree sum of n terms is within (n - 1) eps sum|x| of the
     exact sum, both of them are; eps_res: the rounding into the result type);
   - compensated sums (Neumaier: within 2 eps |S| + O(n eps^2) sum|x| of S):
        |got - ref| <= 4 eps |ref| + 4 n eps^2 sum|x|
   - stats' mean and var (and sample_var): relative tolerance rel = 1e-4 for
     half and float elements, 1e-10 otherwise, plus an absolute term from the
     data's spread: |got - ref| <= rel (|ref| + M) for the mean, rel (|ref| +
     R (R + M)) for the variances, M = max |x|, R = max x - min x (finite x);
   - non-finite data: a NaN result where the data has a NaN must be NaN on
     both sides; where the data has infinities a non-finite result must be
     non-finite on both sides (inf - inf orders differ: inf or NaN).

   Usage: test_vocab [--backend opencl|cuda|vulkan|cpu] [--platform N] [--device N] [--big] [-v]
   (vulkan: built with -DPCLR_TEST_VULKAN). PCLR_TEST_OPS33_ALL=1: every configuration of the ops of issue 33
   on PoCL too (otherwise a seeded sixth there).
   Environment: PCLR_TEST_SEED=S reproduces a run (the seed is printed);
   PCLR_TEST_QUICK=1 a smaller run; PCLR_TEST_FULL=1 the exhaustive one (all
   sizes and kinds for every knob set); PCLR_TEST_BACKEND, PCLR_CL_PLATFORM,
   PCLR_CL_DEVICE as the flags. --big (GPU machines): argmax/argmin/count/sum
   with the answer beyond index 2^32, where the device has the memory. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#ifdef PCLR_TEST_VULKAN /* --backend vulkan (lavapipe here; PCLR_SHADERC_LIBRARY as tests/run.sh sets it) */
#define PCLREDUCE_VULKAN
#endif
#include "../pclreduce.h"
#include "../examples/pclr_args.h"
#include "pclr_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ state */
static pclr_context *g_ctx;
static int g_quick, g_full, g_verbose, g_fails_printed;
static uint64_t g_seed;
static long g_runs, g_refused, g_refused_printed, g_no_fp64, g_device_refused, g_configs;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* pclr_reduce, timed: a call over 2 s (a kernel build, mostly) is printed, the first 30 of them */
static long g_slow;
static double g_reduce_s;
static pclr_result timed_reduce(pclr_context *ctx, const pclr_config *c, const pclr_buffer *buf, uint64_t off, uint64_t n, void *res) {
    const double t0 = now_s();
    const pclr_result r = reduce_one(ctx, c, buf, off, n, res);
    const double dt = now_s() - t0;
    g_reduce_s += dt;
    if (dt > 2.0 && ++g_slow <= 30) {
        char desc[512];
        pclr_config_describe(c, desc, sizeof desc);
        printf("slow: %.1fs for %s n=%llu\n", dt, desc, (unsigned long long)n);
        fflush(stdout);
    }
    return r;
}

/* One check; failures print (the first 80 in full), passes count. */
static void report(int ok, const char *fmt, ...) {
    if (ok) {
        ++pclr_test_passed;
        return;
    }
    ++pclr_test_failed;
    if (++g_fails_printed <= 80) {
        va_list ap;
        fputs("FAIL ", stdout);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
    } else if (g_fails_printed == 81) {
        puts("FAIL (further failures counted, not printed)");
    }
}

/* ------------------------------------------------------------------ elements */
static int is_float(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static int is_signed(pclr_type t) {
    return t == PCLR_INT8 || t == PCLR_INT16 || t == PCLR_INT || t == PCLR_INT64 || is_float(t);
}

/* element i of data as a double (64-bit integers rounded) */
static double get_d(pclr_type t, const void *p, uint64_t i) {
    switch (t) {
    case PCLR_UINT8: return ((const uint8_t *)p)[i];
    case PCLR_INT8: return ((const int8_t *)p)[i];
    case PCLR_UINT16: return ((const uint16_t *)p)[i];
    case PCLR_INT16: return ((const int16_t *)p)[i];
    case PCLR_UINT: return ((const uint32_t *)p)[i];
    case PCLR_INT: return ((const int32_t *)p)[i];
    case PCLR_UINT64: return (double)((const uint64_t *)p)[i];
    case PCLR_INT64: return (double)((const int64_t *)p)[i];
    case PCLR_HALF: return pclr_args_half_to_float(((const uint16_t *)p)[i]);
    case PCLR_FLOAT: return ((const float *)p)[i];
    case PCLR_DOUBLE: return ((const double *)p)[i];
    default: return 0;
    }
}

/* stores v (a value the type holds: small integers, or any float) as element i */
static void set_d(pclr_type t, void *p, uint64_t i, double v) {
    switch (t) {
    case PCLR_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case PCLR_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case PCLR_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case PCLR_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case PCLR_UINT: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case PCLR_INT: ((int32_t *)p)[i] = (int32_t)v; break;
    case PCLR_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case PCLR_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case PCLR_HALF: ((uint16_t *)p)[i] = pclr_args_float_to_half((float)v); break;
    case PCLR_FLOAT: ((float *)p)[i] = (float)v; break;
    case PCLR_DOUBLE: ((double *)p)[i] = v; break;
    default: break;
    }
}

/* the largest (hi) or smallest value of the type: +-inf for floats */
static void set_extreme(pclr_type t, void *p, uint64_t i, int hi) {
    switch (t) {
    case PCLR_UINT8: ((uint8_t *)p)[i] = hi ? UINT8_MAX : 0; break;
    case PCLR_INT8: ((int8_t *)p)[i] = hi ? INT8_MAX : INT8_MIN; break;
    case PCLR_UINT16: ((uint16_t *)p)[i] = hi ? UINT16_MAX : 0; break;
    case PCLR_INT16: ((int16_t *)p)[i] = hi ? INT16_MAX : INT16_MIN; break;
    case PCLR_UINT: ((uint32_t *)p)[i] = hi ? UINT32_MAX : 0; break;
    case PCLR_INT: ((int32_t *)p)[i] = hi ? INT32_MAX : INT32_MIN; break;
    case PCLR_UINT64: ((uint64_t *)p)[i] = hi ? UINT64_MAX : 0; break;
    case PCLR_INT64: ((int64_t *)p)[i] = hi ? INT64_MAX : INT64_MIN; break;
    default: set_d(t, p, i, hi ? HUGE_VAL : -HUGE_VAL); break;
    }
}

static void set_nan(pclr_type t, void *p, uint64_t i, int negative) {
    if (t == PCLR_HALF) ((uint16_t *)p)[i] = negative ? 0xfe00u : 0x7e00u;
    else if (t == PCLR_FLOAT) {
        uint32_t b = negative ? 0xffc00001u : 0x7fc00000u;
        memcpy((float *)p + i, &b, 4);
    } else if (t == PCLR_DOUBLE) {
        uint64_t b = negative ? 0xfff8000000000001ull : 0x7ff8000000000000ull;
        memcpy((double *)p + i, &b, 8);
    }
}

/* a scalar of type t (a result's value) as a double */
static double scalar_d(pclr_type t, const void *v) { return get_d(t, v, 0); }

/* the same value: equal bytes of the type, or both NaN */
static int same_value(pclr_type t, const void *a, const void *b) {
    if (is_float(t)) {
        double x = scalar_d(t, a), y = scalar_d(t, b);
        if (x != x || y != y) return x != x && y != y;
    }
    return memcmp(a, b, pclr_type_size(t)) == 0;
}

/* ------------------------------------------------------------------ data kinds */
enum kind {
    K_RANDOM,  /* pclr_args_fill_random: integers over their full range, floats in [-1, 1) */
    K_SMALL,   /* small integers (floats: multiples of 1/2): many ties, wrapping-free sums */
    K_WIDE,    /* floats over many binades (sums cancel) */
    K_NAN_FIRST, K_NAN_MID, K_NAN_LAST, K_NAN_ALL, /* floats only */
    K_INF,     /* +inf and -inf (integers: the type's largest and smallest) */
    K_POSINF,  /* one +inf (integers: the largest) */
    K_ZEROS,   /* +0 and -0 mixed */
    K_TIES,    /* values 2..9 with the minimum 1 and maximum 10 at many places */
    K_EQUAL,   /* all equal */
    K_COUNT_
};
static const char *const kind_names[K_COUNT_] = {"random", "small", "wide", "nan_first", "nan_mid", "nan_last", "nan_all",
                                                 "inf", "posinf", "zeros", "ties", "equal"};

static double rand_unit(uint64_t *st) { return (double)(pclr_test_rand(st) >> 11) / 9007199254740992.0; } /* [0, 1) */

/* Writes n elements of the kind at p; returns 0 when the kind does not apply to the type. */
static int fill_kind(pclr_type t, int kind, void *p, uint64_t n, uint64_t seed) {
    uint64_t st = seed, i;
    const int fl = is_float(t);
    if (!fl && (kind == K_WIDE || (kind >= K_NAN_FIRST && kind <= K_NAN_ALL))) return 0;
    if (kind == K_EQUAL) {
        pclr_args_fill_random(t, p, 1, seed);
        for (i = 1; i < n; ++i) memcpy((char *)p + i * pclr_type_size(t), p, pclr_type_size(t));
        return 1;
    }
    if (kind == K_SMALL) {
        for (i = 0; i < n; ++i) {
            int v = (int)(pclr_test_rand(&st) % 17);
            set_d(t, p, i, fl ? (v - 8) * 0.5 : is_signed(t) ? v - 8 : v);
        }
        return 1;
    }
    if (kind == K_WIDE) { /* x * 2^e, e in -20..20 (half: -8..8, its range is small) */
        const int span = t == PCLR_HALF ? 8 : 20;
        for (i = 0; i < n; ++i) {
            int e = (int)(pclr_test_rand(&st) % (uint64_t)(2 * span + 1)) - span;
            set_d(t, p, i, (2 * rand_unit(&st) - 1) * ldexp(1.0, e));
        }
        return 1;
    }
    if (kind == K_ZEROS) {
        for (i = 0; i < n; ++i) set_d(t, p, i, (pclr_test_rand(&st) & 1) ? -0.0 : 0.0);
        return 1;
    }
    if (kind == K_TIES) {
        for (i = 0; i < n; ++i) set_d(t, p, i, 2 + (double)(pclr_test_rand(&st) % 8));
        for (i = 0; i < n / 7 + 1; ++i) set_d(t, p, pclr_test_rand(&st) % n, 1);
        for (i = 0; i < n / 7 + 1; ++i) set_d(t, p, pclr_test_rand(&st) % n, 10);
        return 1;
    }
    pclr_args_fill_random(t, p, n, seed);
    if (n == 0) return 1;
    switch (kind) {
    case K_NAN_FIRST: set_nan(t, p, 0, 0); if (n > 2) set_nan(t, p, n - 1, 1); break;
    case K_NAN_MID: set_nan(t, p, n / 2, (int)(seed & 1)); if (n > 3) set_nan(t, p, n / 2 + 1 + (n - n / 2 - 1) / 2, 0); break;
    case K_NAN_LAST: set_nan(t, p, n - 1, 0); break;
    case K_NAN_ALL: for (i = 0; i < n; ++i) set_nan(t, p, i, (int)(i & 1)); break;
    case K_INF: set_extreme(t, p, pclr_test_rand(&st) % n, 1); set_extreme(t, p, pclr_test_rand(&st) % n, 0); break;
    case K_POSINF: set_extreme(t, p, pclr_test_rand(&st) % n, 1); break;
    default: break;
    }
    return 1;
}

/* What the comparison needs to know of the data. */
typedef struct data_info {
    double abs_sum, lo, hi, mag; /* over the finite elements */
    int has_nan, has_inf;
} data_info;

static void describe_data(pclr_type t, const void *p, uint64_t n, data_info *d) {
    uint64_t i;
    memset(d, 0, sizeof *d);
    d->lo = HUGE_VAL;
    d->hi = -HUGE_VAL;
    for (i = 0; i < n; ++i) {
        double x = get_d(t, p, i);
        if (x != x) { d->has_nan = 1; continue; }
        if (x == HUGE_VAL || x == -HUGE_VAL) { d->has_inf = 1; continue; }
        d->abs_sum += fabs(x);
        if (x < d->lo) d->lo = x;
        if (x > d->hi) d->hi = x;
    }
    if (d->lo > d->hi) d->lo = d->hi = 0;
    d->mag = fmax(fabs(d->lo), fabs(d->hi));
}

/* ------------------------------------------------------------------ comparison */
static double unit_roundoff(pclr_type t) { return t == PCLR_DOUBLE ? ldexp(1.0, -53) : ldexp(1.0, -24); }

/* A float sum: NaN-ness and infinities first, then the bounds in the header. */
static int close_sum(pclr_type st, pclr_accumulate acc, double g, double r, uint64_t n, const data_info *d) {
    const double eps_acc = acc == PCLR_WIDE ? ldexp(1.0, -53) : unit_roundoff(st), eps_res = unit_roundoff(st);
    double tol;
    if (d->has_nan) return g != g && r != r;
    if (d->has_inf || r != r || isinf(r) || g != g || isinf(g)) /* +inf - inf: NaN or inf, by order */
        return (g != g || isinf(g)) == (r != r || isinf(r)) && (r != r || g != g || g == r || d->has_inf);
    if (acc == PCLR_COMPENSATED) tol = 4 * eps_res * fabs(r) + 4 * (double)n * eps_acc * eps_acc * d->abs_sum;
    else tol = ((double)n + 2) * eps_acc * d->abs_sum + eps_res * fabs(r);
    tol += 1e-300; /* subnormal sums */
    return fabs(g - r) <= tol;
}

/* a mean or variance: got g, reference r, tolerance rel * (|r| + scale) */
static int close_moment(double g, double r, double rel, double scale, const data_info *d) {
    if (r != r || isinf(r) || g != g || isinf(g)) {
        if (d->has_nan && r != r) return g != g;
        if (d->has_inf) return (g != g || isinf(g)) == (r != r || isinf(r));
        return (g != g) == (r != r) && (r != r || g == r);
    }
    return fabs(g - r) <= rel * (fabs(r) + scale) + 1e-300;
}

/* Expected and got, as text, for failure lines. */
static void format_full(const pclr_config *c, const void *res, char *buf, size_t cap) {
    pclr_args_format_result(c, res, buf, cap);
    if (c->op == PCLR_STATS) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, " sample_var=%.17g", ((const pclr_stats_result *)res)->sample_var);
    }
}

/* 0 and a reason when got differs from ref beyond the rules in the header. */
static int compare(const pclr_config *c, const void *got, const void *ref, uint64_t n, const data_info *d, const char **why) {
    const pclr_type vt = pclr_value_type(c->type), st = pclr_sum_type(c->type, c->accumulate);
    const pclr_accumulate acc = c->accumulate ? c->accumulate : PCLR_NATIVE;
    *why = "value";
    switch (c->op) {
    case PCLR_SUM:
        if (!is_float(st)) return memcmp(got, ref, pclr_type_size(st)) == 0;
        return close_sum(st, acc, scalar_d(st, got), scalar_d(st, ref), n, d);
    case PCLR_MIN: case PCLR_MAX: return same_value(vt, got, ref);
    case PCLR_COUNT: return memcmp(got, ref, 8) == 0;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        const pclr_arg_result *g = (const pclr_arg_result *)got, *r = (const pclr_arg_result *)ref;
        if (g->index != r->index) { *why = "index"; return 0; }
        return same_value(vt, &g->value, &r->value);
    }
    case PCLR_MINMAX: {
        const pclr_minmax_result *g = (const pclr_minmax_result *)got, *r = (const pclr_minmax_result *)ref;
        if (!same_value(vt, &g->min, &r->min)) { *why = "min"; return 0; }
        *why = "max";
        return same_value(vt, &g->max, &r->max);
    }
    case PCLR_STATS: {
        const pclr_stats_result *g = (const pclr_stats_result *)got, *r = (const pclr_stats_result *)ref;
        const double rel = c->type == PCLR_HALF || c->type == PCLR_FLOAT ? 1e-4 : 1e-10, range = d->hi - d->lo;
        if (g->count != r->count || g->count != n) { *why = "count"; return 0; }
        if (!same_value(vt, &g->min, &r->min)) { *why = "min"; return 0; }
        if (!same_value(vt, &g->max, &r->max)) { *why = "max"; return 0; }
        *why = "sum";
        if (!is_float(st) ? memcmp(&g->sum, &r->sum, pclr_type_size(st)) != 0
                          : !close_sum(st, acc, scalar_d(st, &g->sum), scalar_d(st, &r->sum), n, d))
            return 0;
        if (!close_moment(g->mean, r->mean, rel, d->mag, d)) { *why = "mean"; return 0; }
        if (!close_moment(g->var, r->var, rel, range * (range + d->mag), d)) { *why = "var"; return 0; }
        *why = "sample_var";
        return close_moment(g->sample_var, r->sample_var, rel, range * (range + d->mag), d);
    }
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: return memcmp(got, ref, pclr_type_size(c->type)) == 0;
    case PCLR_ANY: case PCLR_ALL: return memcmp(got, ref, 4) == 0;
    case PCLR_PROD: {
        /* integers wrap: exactly; floats: each product rounds once, |got - ref| <= 2 (n + 2) eps |ref| (both trees),
           plus the smallest normal of the type (underflow); orders differ at inf x 0 and overflows, so a non-finite
           result on either side needs only NaN on both sides where the data has a NaN */
        const pclr_type pt = acc == PCLR_WIDE ? pclr_sum_type(c->type, PCLR_WIDE) : vt;
        double g, r;
        if (!is_float(pt)) return memcmp(got, ref, pclr_type_size(pt)) == 0;
        g = scalar_d(pt, got);
        r = scalar_d(pt, ref);
        if (d->has_nan) return g != g && r != r;
        if (g != g || r != r || isinf(g) || isinf(r)) return 1;
        return fabs(g - r) <= 2.0 * ((double)n + 2) * unit_roundoff(pt) * fabs(r) + (pt == PCLR_DOUBLE ? DBL_MIN : FLT_MIN) * ((double)n + 2);
    }
    case PCLR_ARGMINMAX: {
        const pclr_argminmax_result *g = (const pclr_argminmax_result *)got, *r = (const pclr_argminmax_result *)ref;
        if (g->min.index != r->min.index) { *why = "min index"; return 0; }
        if (g->max.index != r->max.index) { *why = "max index"; return 0; }
        if (!same_value(vt, &g->min.value, &r->min.value)) { *why = "min"; return 0; }
        *why = "max";
        return same_value(vt, &g->max.value, &r->max.value);
    }
    default: *why = "op"; return 0;
    }
}

/* ------------------------------------------------------------------ running one case */
typedef struct buffers {
    pclr_context *ctx;
    pclr_buffer *rnd, *scratch; /* random data of the type (uploaded once); special data per case */
    unsigned char *rnd_host, *host;
    uint64_t rnd_n, scratch_n;  /* elements each holds */
} buffers;

/* Reduces n elements at element offset off (of the random buffer, or of
   data just written to the scratch buffer) on the device and on the CPU. */
static void run_case(buffers *b, const pclr_config *c, int kind, uint64_t n, uint64_t off, uint64_t seed) {
    const size_t ts = pclr_type_size(c->type), rs = pclr_result_size(c);
    union { pclr_stats_result s; unsigned char bytes[sizeof(pclr_stats_result) + 32]; } got, ref;
    const unsigned char *data;
    const pclr_buffer *buf;
    data_info d;
    pclr_result r;
    const char *why = "";
    char desc[512], gtext[512], rtext[512];
    size_t i;
    if (kind == K_RANDOM) {
        if (n + off > b->rnd_n) return;
        data = b->rnd_host + off * ts;
        buf = b->rnd;
    } else {
        if (n + off > b->scratch_n) return;
        if (!fill_kind(c->type, kind, b->host + off * ts, n, seed)) return;
        data = b->host + off * ts;
        buf = b->scratch;
        if (n && pclr_buffer_write(b->ctx, b->scratch, off * ts, data, n * ts) != PCLR_OK) {
            report(0, "upload %llu elements: %s", (unsigned long long)n, pclr_last_error(b->ctx));
            return;
        }
    }
    memset(&got, 0xa5, sizeof got);
    memset(&ref, 0, sizeof ref);
    r = timed_reduce(b->ctx, c, buf, off, n, &got);
    ++g_runs;
    pclr_config_describe(c, desc, sizeof desc);
    if (r == PCLR_ERR_NO_FP64) { ++g_no_fp64; return; }
    if (r == PCLR_ERR_NO_INT64_ATOMICS || r == PCLR_ERR_UNSUPPORTED_BY_DEVICE) {
        if (++g_device_refused <= 5) printf("the device refuses %s: %s\n", desc, pclr_last_error(b->ctx));
        return;
    }
    if (pclr_cpu_reduce_config(c, data, n, &ref) != PCLR_OK) {
        report(0, "cpu reference refused %s n=%llu", desc, (unsigned long long)n);
        return;
    }
    if (r != PCLR_OK) {
        report(0, "%s n=%llu off=%llu kind=%s: %s (%s)", desc, (unsigned long long)n, (unsigned long long)off, kind_names[kind],
               pclr_result_string(r), pclr_last_error(b->ctx));
        if (r == PCLR_ERR_BUILD_FAILED && g_fails_printed < 5) printf("build log:\n%.3000s\n", pclr_build_log(b->ctx));
        return;
    }
    for (i = rs; i < sizeof got.bytes && i < rs + 16; ++i)
        if (got.bytes[i] != 0xa5) break;
    if (i < rs + 16) {
        report(0, "%s n=%llu: pclr_reduce wrote beyond pclr_result_size (%zu bytes)", desc, (unsigned long long)n, rs);
        return;
    }
    describe_data(c->type, data, n, &d);
    if (compare(c, &got, &ref, n, &d, &why)) {
        report(1, "");
        return;
    }
    format_full(c, &got, gtext, sizeof gtext);
    format_full(c, &ref, rtext, sizeof rtext);
    report(0, "%s n=%llu off=%llu kind=%s case-seed=%llu: %s differs: got %s, reference %s", desc, (unsigned long long)n,
           (unsigned long long)off, kind_names[kind], (unsigned long long)seed, why, gtext, rtext);
}

/* ------------------------------------------------------------------ the matrix */
static const uint64_t small_sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 1021, 1023, 1024, 1025,
                                       4093, 4095, 4097, 65521, 65535, 65537, 262147};
static const uint64_t big_sizes[] = {1048575, 1048577, 4194301};
static const uint64_t offsets[] = {0, 1, 3, 7};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define SCRATCH_N (65537 + 8)

/* Non-default knobs: each set names some; the rest stay at their defaults. */
typedef struct knob_set { const char *name; int vector, unroll, group; pclr_stride stride; pclr_variant variant; pclr_finish finish; } knob_set;
static const knob_set knob_sets[] = {
    {"vector 1", 1, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"unroll 1", 0, 1, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"group 64", 0, 0, 64, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"group 1024", 0, 0, 1024, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"stride local", 0, 0, 0, PCLR_STRIDE_LOCAL, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"variant sequential", 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_SEQUENTIAL, PCLR_FINISH_DEFAULT},
    {"variant unrolled", 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_UNROLLED, PCLR_FINISH_DEFAULT},
    {"finish partials", 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_PARTIALS},
    {"finish atomic", 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_ATOMIC},
    {"group 64 unroll 1 vector 1 stride local sequential", 1, 1, 64, PCLR_STRIDE_LOCAL, PCLR_VARIANT_SEQUENTIAL, PCLR_FINISH_DEFAULT},
    {"group 1024 unroll 8 vector 2 unrolled partials", 2, 8, 1024, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_UNROLLED, PCLR_FINISH_PARTIALS},
    {"group 128 variant naive", 0, 0, 128, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_NAIVE, PCLR_FINISH_DEFAULT},
};

/* 1 when the config resolves; otherwise counted (and the first few printed). */
static int resolves(const pclr_config *c) {
    pclr_config out = *c;
    const char *why = NULL;
    pclr_result r;
    out.backend = pclr_get_backend(g_ctx) == PCLR_CUDA || pclr_get_backend(g_ctx) == PCLR_VULKAN ? pclr_get_backend(g_ctx) : PCLR_OPENCL;
    r = pclr_config_resolve(&out, &out, &why);
    if (r == PCLR_OK) return 1;
    ++g_refused;
    if (g_verbose || ++g_refused_printed <= 8) {
        char desc[512];
        pclr_config_describe(c, desc, sizeof desc);
        printf("refused by pclr_config_resolve: %s: %s (%s)\n", desc, why ? why : "?", pclr_result_string(r));
    }
    return 0;
}

/* The cases of one configuration. light: fewer (accumulators that an op ignores, knob sets). */
static void run_config(buffers *b, const pclr_config *c, int light, uint64_t *st) {
    size_t s, k;
    int kind;
    ++g_configs;
    /* random data: the sizes at rotating offsets */
    for (s = 0; s < COUNT(small_sizes); ++s) {
        if (light && !g_full && small_sizes[s] % 4 != 1 && small_sizes[s] != 0) continue; /* 1, 5, 13, 33, 65, 257, 1021, 1025, 4093, 4097, 65521, 65537 */
        if (g_quick && small_sizes[s] > 65537) continue;
        run_case(b, c, K_RANDOM, small_sizes[s], offsets[(s + (size_t)(*st & 3)) % COUNT(offsets)], 0);
    }
    if (g_full) {
        for (s = 0; s < COUNT(big_sizes); ++s) run_case(b, c, K_RANDOM, big_sizes[s], offsets[s % COUNT(offsets)], 0);
    } else if (!light && !g_quick) {
        s = (size_t)(pclr_test_rand(st) % COUNT(big_sizes));
        run_case(b, c, K_RANDOM, big_sizes[s], offsets[pclr_test_rand(st) % COUNT(offsets)], 0);
    } else if (!light && (pclr_test_rand(st) & 3) == 0) {
        run_case(b, c, K_RANDOM, big_sizes[1], 1, 0);
    }
    /* special data */
    for (kind = K_SMALL; kind < K_COUNT_; ++kind) {
        static const uint64_t kind_sizes[] = {1, 2, 3, 257, 4097, 65537};
        if (light && !g_full && kind != K_NAN_MID && kind != K_TIES && kind != K_ZEROS && kind != K_WIDE) continue;
        for (k = 0; k < COUNT(kind_sizes); ++k) {
            const uint64_t n = kind_sizes[k];
            if (!g_full) { /* a sample: 1 and 3 always, one of the middle ones, 65537 unless quick */
                if (n == 2 || ((n == 257 || n == 4097) && (pclr_test_rand(st) & 1))) continue;
                if (n == 65537 && (g_quick || light)) continue;
            }
            run_case(b, c, kind, n, offsets[(k + (size_t)kind) % COUNT(offsets)], pclr_test_rand(st));
        }
    }
}

static int accumulates(pclr_op o) { return o == PCLR_SUM || o == PCLR_STATS || o == PCLR_PROD; }

/* Which (type, op, accumulator) triples run on the device. Every kernel is a
   build, and PoCL on a CPU takes 4-12 s per build (LLVM), so there the
   default run takes a seeded sample: every type once, every op at least
   once, every accumulator of sum and stats once (about 15 builds; other seeds,
   other triples); PCLR_TEST_QUICK=1 a prefix of it (8); GPUs, the CPU backend
   and PCLR_TEST_FULL=1 / PCLR_TEST_ALL=1 run every triple. */
static unsigned char g_selected[PCLR_TYPE_COUNT_][PCLR_OP_COUNT_][PCLR_ACCUMULATE_COUNT_];
static int g_sampled;

static int selected(pclr_type t, pclr_op o, pclr_accumulate a) {
    if (!accumulates(o)) a = PCLR_NATIVE;
    if (a == PCLR_ACCUMULATE_DEFAULT) a = PCLR_NATIVE;
    return g_selected[t][o][a];
}

static void select_triples(uint64_t seed, int all) {
    uint64_t st = seed ^ 0x5e1ec7ull;
    int t, o, a, k, picked = 0;
    pclr_type types[PCLR_TYPE_COUNT_ - 1];
    const int most = g_quick ? 8 : 64;
    memset(g_selected, 0, sizeof g_selected);
    g_sampled = !all;
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o)
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a)
                g_selected[t][o][a] = all && (a == PCLR_NATIVE || accumulates((pclr_op)o)) &&
                                      !(a == PCLR_COMPENSATED && !is_float((pclr_type)t));
    if (all) return;
    for (k = 0; k < PCLR_TYPE_COUNT_ - 1; ++k) types[k] = (pclr_type)(PCLR_UINT + k);
    for (k = PCLR_TYPE_COUNT_ - 2; k > 0; --k) { /* shuffle the types */
        const int j = (int)(pclr_test_rand(&st) % (uint64_t)(k + 1));
        const pclr_type x = types[k];
        types[k] = types[j];
        types[j] = x;
    }
    o = (int)(pclr_test_rand(&st) % 8);
    for (k = 0; k < PCLR_TYPE_COUNT_ - 1 && picked < most; ++k, ++picked) { /* type k gets op (o + k) mod 8 */
        const pclr_op op = (pclr_op)(PCLR_SUM + (o + k) % 8);
        a = accumulates(op) ? PCLR_NATIVE + (int)(pclr_test_rand(&st) % (is_float(types[k]) ? 3 : 2)) : PCLR_NATIVE;
        g_selected[types[k]][op][a] = 1;
    }
    /* every accumulator of sum and stats at least once, on a float type (exact: tests/test_exact.c) */
    for (o = PCLR_SUM; o <= PCLR_STATS && picked < most; o += PCLR_STATS - PCLR_SUM)
        for (a = PCLR_NATIVE; a < PCLR_EXACT && picked < most; ++a) {
            int have = 0;
            for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) have |= g_selected[t][o][a];
            if (!have) {
                static const pclr_type fl[] = {PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
                g_selected[fl[pclr_test_rand(&st) % 3]][o][a] = 1;
                ++picked;
            }
        }
    printf("sampled (type, op, accumulator):");
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o)
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a)
                if (g_selected[t][o][a]) printf(" %s/%s/%s", pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o), pclr_accumulate_name((pclr_accumulate)a));
    printf("\n");
}

static void matrix(pclr_context *ctx, uint64_t seed) {
    buffers b;
    const uint64_t most = (g_quick ? big_sizes[1] : big_sizes[COUNT(big_sizes) - 1]) + 8;
    uint64_t st = seed;
    int t, o, a, knob_runs = 0;
    const int knob_most = g_full ? 1 << 30 : !g_sampled ? 1 << 30 : g_quick ? 1 : 5;
    double t0 = now_s();
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.rnd_n = most;
    b.scratch_n = SCRATCH_N;
    b.rnd_host = (unsigned char *)malloc((size_t)most * 8);
    b.host = (unsigned char *)malloc((size_t)SCRATCH_N * 8);
    if (!b.rnd_host || !b.host || pclr_buffer_create(ctx, (size_t)most * 8, &b.rnd) != PCLR_OK ||
        pclr_buffer_create(ctx, (size_t)SCRATCH_N * 8, &b.scratch) != PCLR_OK) {
        report(0, "buffers of %llu elements: %s", (unsigned long long)most, pclr_last_error(ctx));
        goto done;
    }
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
        const pclr_type type = (pclr_type)t;
        const long before_pass = pclr_test_passed, before_fail = pclr_test_failed, before_cfg = g_configs;
        int any = 0;
        double t1 = now_s();
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) /* compensated integer sums are refused, and must be */
            if (accumulates((pclr_op)o) && !is_float(type)) {
                pclr_config c, out;
                const char *why = NULL;
                pclr_result r;
                memset(&c, 0, sizeof c);
                c.type = type;
                c.op = (pclr_op)o;
                c.accumulate = PCLR_COMPENSATED;
                r = pclr_config_resolve(&c, &out, &why);
                report(r == PCLR_ERR_UNSUPPORTED_COMBINATION, "%s %s compensated: resolve gives %s, want unsupported combination",
                       pclr_type_name(type), pclr_op_name(c.op), pclr_result_string(r));
                report(pclr_sum_type(type, PCLR_COMPENSATED) == PCLR_TYPE_DEFAULT, "pclr_sum_type(%s, compensated) is none",
                       pclr_type_name(type));
            }
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o)
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) any |= g_selected[t][o][a];
        if (!any) continue;
        pclr_args_fill_random(type, b.rnd_host, most, pclr_test_rand(&st));
        if (pclr_buffer_write(ctx, b.rnd, 0, b.rnd_host, (size_t)most * pclr_type_size(type)) != PCLR_OK) {
            report(0, "upload %s: %s", pclr_type_name(type), pclr_last_error(ctx));
            continue;
        }
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o)
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) {
                pclr_config c;
                if (!g_selected[t][o][a]) continue;
                memset(&c, 0, sizeof c);
                c.type = type;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                if (!resolves(&c)) continue;
                run_config(&b, &c, 0, &st);
                /* the accumulators an op ignores: the same kernel, a few cases (every triple mode only) */
                if (!g_sampled && !accumulates(c.op) && a == PCLR_NATIVE) {
                    int other;
                    for (other = PCLR_WIDE; other < PCLR_ACCUMULATE_COUNT_; ++other) {
                        c.accumulate = (pclr_accumulate)other;
                        if (resolves(&c)) run_config(&b, &c, 1, &st);
                    }
                }
            }
        /* knob sets: all of them in full mode; two per op on GPUs (one quick); a few in all on a sampled device */
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) {
            const int per_op = g_full ? (int)COUNT(knob_sets) : g_quick ? 1 : 2;
            int j;
            if (g_sampled) {
                for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_ && !g_selected[t][o][a]; ++a) {}
                if (a == PCLR_ACCUMULATE_COUNT_ || knob_runs >= knob_most) continue; /* knobs only on sampled triples */
            }
            for (j = 0; j < per_op && knob_runs < knob_most; ++j) {
                pclr_config c;
                const knob_set *ks = g_full ? &knob_sets[j] : &knob_sets[pclr_test_rand(&st) % COUNT(knob_sets)];
                memset(&c, 0, sizeof c);
                c.type = type;
                c.op = (pclr_op)o;
                c.accumulate = accumulates(c.op) ? (pclr_accumulate)(PCLR_NATIVE + (int)(pclr_test_rand(&st) % 3)) : PCLR_NATIVE;
                if (c.accumulate == PCLR_COMPENSATED && !is_float(type)) c.accumulate = PCLR_WIDE;
                c.vector_width = ks->vector;
                c.unroll = ks->unroll;
                c.group_size = ks->group;
                c.stride = ks->stride;
                c.variant = ks->variant;
                c.finish = ks->finish;
                if (g_full) {
                    for (a = PCLR_NATIVE; a < (accumulates(c.op) ? PCLR_ACCUMULATE_COUNT_ : PCLR_NATIVE + 1); ++a) {
                        c.accumulate = (pclr_accumulate)a;
                        if (a == PCLR_COMPENSATED && !is_float(type)) continue;
                        if (resolves(&c)) run_config(&b, &c, 0, &st);
                    }
                } else if (resolves(&c)) {
                    ++knob_runs;
                    run_config(&b, &c, 1, &st);
                }
            }
        }
        printf("%-7s %4ld configs %6ld passed %4ld failed  %.1fs\n", pclr_type_name(type), g_configs - before_cfg,
               pclr_test_passed - before_pass, pclr_test_failed - before_fail, now_s() - t1);
        fflush(stdout);
    }
    printf("matrix: %ld configs, %ld reductions, %ld refused by pclr_config_resolve, %ld without fp64, %ld refused by the device, "
           "%ld slow calls (> 2 s), %.1fs in pclr_reduce, %.1fs\n",
           g_configs, g_runs, g_refused, g_no_fp64, g_device_refused, g_slow, g_reduce_s, now_s() - t0);
done:
    pclr_buffer_destroy(ctx, b.rnd);
    pclr_buffer_destroy(ctx, b.scratch);
    free(b.rnd_host);
    free(b.host);
}

/* ------------------------------------------------------------------ known answers */
/* Reduces the n values of vals (as the type) on the device and the CPU; both must give what is expected. */
typedef struct expect {
    double v, v2;          /* sum/min/max/argmin/argmax value, minmax min (v) and max (v2); count */
    uint64_t index;
    int neg_zero;          /* v is -0 (and v2 for minmax: neg_zero2) */
    int neg_zero2;
    double mean, var, svar; /* stats; stats' sum in v, min in v2 ... see check_stats */
    double smin, smax;
} expect;

static int value_is(pclr_type t, const void *p, double want, int neg_zero) {
    double g = scalar_d(t, p);
    if (want != want) return g != g;
    if (g != want) return 0;
    if (want == 0 && is_float(t)) return (signbit(g) != 0) == (neg_zero != 0);
    return 1;
}
static int moment_is(double g, double want) {
    if (want != want) return g != g;
    return fabs(g - want) <= 1e-6 * fabs(want) + 1e-12;
}

/* 1 when the result res of c is e */
static int is_expected(const pclr_config *c, const void *res, uint64_t n, const expect *e) {
    const pclr_type vt = pclr_value_type(c->type), st = pclr_sum_type(c->type, c->accumulate);
    switch (c->op) {
    case PCLR_SUM: return value_is(st, res, e->v, e->neg_zero);
    case PCLR_MIN: case PCLR_MAX: return value_is(vt, res, e->v, e->neg_zero);
    case PCLR_COUNT: return *(const uint64_t *)res == (uint64_t)e->v;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        const pclr_arg_result *r = (const pclr_arg_result *)res;
        return r->index == e->index && value_is(vt, &r->value, e->v, e->neg_zero);
    }
    case PCLR_MINMAX: {
        const pclr_minmax_result *r = (const pclr_minmax_result *)res;
        return value_is(vt, &r->min, e->v, e->neg_zero) && value_is(vt, &r->max, e->v2, e->neg_zero2);
    }
    case PCLR_STATS: {
        const pclr_stats_result *r = (const pclr_stats_result *)res;
        return r->count == n && value_is(st, &r->sum, e->v, 0) && value_is(vt, &r->min, e->smin, 0) &&
               value_is(vt, &r->max, e->smax, 0) && moment_is(r->mean, e->mean) && moment_is(r->var, e->var) &&
               moment_is(r->sample_var, e->svar);
    }
    default: return 0;
    }
}

static pclr_buffer *g_kbuf;

/* Runs cfg on vals (doubles stored as the type) on the device and the CPU reference. */
static void known(const char *what, pclr_type t, pclr_op o, pclr_accumulate a, const double *vals, uint64_t n, const expect *e) {
    pclr_config c;
    unsigned char data[64 * 8];
    union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result) + 16]; } got, ref;
    uint64_t i;
    pclr_result r;
    char gtext[512], rtext[512];
    const int off = 3; /* an odd element offset into the buffer */
    memset(&c, 0, sizeof c);
    c.type = t;
    c.op = o;
    c.accumulate = a;
    memset(data, 0, sizeof data);
    for (i = 0; i < n; ++i) {
        if (vals[i] != vals[i]) set_nan(t, data, off + i, 0);
        else set_d(t, data, off + i, vals[i]);
    }
    memset(&got, 0xa5, sizeof got);
    memset(&ref, 0x5a, sizeof ref);
    if (pclr_cpu_reduce_config(&c, data + off * pclr_type_size(t), n, &ref) != PCLR_OK) {
        report(0, "known %s: %s %s %s: the cpu reference refuses", what, pclr_type_name(t), pclr_op_name(o), pclr_accumulate_name(a));
        return;
    }
    format_full(&c, &ref, rtext, sizeof rtext);
    report(is_expected(&c, &ref, n, e), "known %s: %s %s %s: the cpu reference gives %s", what, pclr_type_name(t), pclr_op_name(o),
           pclr_accumulate_name(a), rtext);
    if (!selected(t, o, a)) return; /* the device builds only the sampled kernels */
    if (pclr_buffer_write(g_ctx, g_kbuf, 0, data, sizeof data) != PCLR_OK) {
        report(0, "known: upload");
        return;
    }
    r = timed_reduce(g_ctx, &c, g_kbuf, off, n, &got);
    if (r == PCLR_ERR_NO_FP64) return;
    if (!CHECK(r == PCLR_OK, "known %s: %s %s %s: %s (%s)", what, pclr_type_name(t), pclr_op_name(o), pclr_accumulate_name(a),
               pclr_result_string(r), pclr_last_error(g_ctx)))
        return;
    format_full(&c, &got, gtext, sizeof gtext);
    report(is_expected(&c, &got, n, e), "known %s: %s %s %s: the device gives %s", what, pclr_type_name(t), pclr_op_name(o),
           pclr_accumulate_name(a), gtext);
}

static expect ex_val(double v, uint64_t index) { expect e; memset(&e, 0, sizeof e); e.v = v; e.index = index; return e; }

/* the identity of (type, op) written by hand */
static void known_empty(pclr_type t) {
    const double big = is_float(t) ? HUGE_VAL : 0;
    double lo = 0, hi = 0;
    expect e;
    int o;
    switch (t) { /* the int type's max and min (64-bit ones rounded: checked by bytes below) */
    case PCLR_UINT8: hi = UINT8_MAX; break;
    case PCLR_INT8: hi = INT8_MAX; lo = INT8_MIN; break;
    case PCLR_UINT16: hi = UINT16_MAX; break;
    case PCLR_INT16: hi = INT16_MAX; lo = INT16_MIN; break;
    case PCLR_UINT: hi = UINT32_MAX; break;
    case PCLR_INT: hi = INT32_MAX; lo = INT32_MIN; break;
    case PCLR_UINT64: hi = 18446744073709551615.0; break;
    case PCLR_INT64: hi = 9223372036854775807.0; lo = -9223372036854775808.0; break;
    default: hi = big; lo = -big; break;
    }
    for (o = PCLR_SUM; o <= PCLR_COUNT; ++o) { /* (the ops after count: ops33, its n = 0) */
        memset(&e, 0, sizeof e);
        switch (o) {
        case PCLR_SUM: case PCLR_COUNT: break;
        case PCLR_MIN: e.v = hi; break;
        case PCLR_MAX: e.v = lo; break;
        case PCLR_ARGMIN: e.v = hi; e.index = UINT64_MAX; break;
        case PCLR_ARGMAX: e.v = lo; e.index = UINT64_MAX; break;
        case PCLR_MINMAX: e.v = hi; e.v2 = lo; break;
        case PCLR_STATS: e.smin = hi; e.smax = lo; e.mean = e.var = e.svar = NAN; break;
        default: break;
        }
        known("n = 0", t, (pclr_op)o, PCLR_NATIVE, NULL, 0, &e);
    }
}

static void known_answers(void) {
    static const double a5[] = {3, 9, 1, 9, 1}, ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, zeros[] = {0.0, -0.0, 0.0, -0.0},
                        nzeros[] = {-0.0, 0.0}, nans[] = {1, NAN, -5, NAN, 7}, one_nan[] = {NAN}, cnt[] = {0, -0.0, NAN, 1, 0, 2},
                        comp_f[] = {1, 1e8, 1, -1e8}, comp_d[] = {1, 1e17, 1, -1e17}, halfmax[] = {65504, 65504, -0.0};
    int t, a;
    expect e;
    double t0 = now_s();
    long before = pclr_test_failed;
    if (pclr_buffer_create(g_ctx, 64 * 8, &g_kbuf) != PCLR_OK) {
        report(0, "known: buffer");
        return;
    }
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
        const pclr_type ty = (pclr_type)t;
        known_empty(ty);
        for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) {
            if ((a == PCLR_COMPENSATED || a == PCLR_EXACT) && !is_float(ty)) continue;
            e = ex_val(23, 0);
            known("3 9 1 9 1", ty, PCLR_SUM, (pclr_accumulate)a, a5, 5, &e);
            if (a == PCLR_EXACT) continue; /* sums only (tests/test_exact.c) */
            memset(&e, 0, sizeof e);
            e.v = 23; e.smin = 1; e.smax = 9; e.mean = 4.6; e.var = 13.44; e.svar = 16.8;
            known("3 9 1 9 1", ty, PCLR_STATS, (pclr_accumulate)a, a5, 5, &e);
            memset(&e, 0, sizeof e);
            e.v = 55; e.smin = 1; e.smax = 10; e.mean = 5.5; e.var = 8.25; e.svar = 55.0 / 6.0;
            known("1..10", ty, PCLR_STATS, (pclr_accumulate)a, ten, 10, &e);
            memset(&e, 0, sizeof e);
            e.v = 9; e.smin = 9; e.smax = 9; e.mean = 9; e.var = 0; e.svar = NAN;
            known("n = 1", ty, PCLR_STATS, (pclr_accumulate)a, a5 + 1, 1, &e); /* 9: the value at index 1 */
        }
        e = ex_val(9, 1); known("3 9 1 9 1", ty, PCLR_ARGMAX, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(1, 2); known("3 9 1 9 1", ty, PCLR_ARGMIN, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(1, 0); e.v2 = 9; known("3 9 1 9 1", ty, PCLR_MINMAX, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(5, 0); known("3 9 1 9 1", ty, PCLR_COUNT, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(1, 0); known("3 9 1 9 1", ty, PCLR_MIN, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(9, 0); known("3 9 1 9 1", ty, PCLR_MAX, PCLR_NATIVE, a5, 5, &e);
        e = ex_val(10, 9); known("1..10", ty, PCLR_ARGMAX, PCLR_NATIVE, ten, 10, &e);
        e = ex_val(1, 0); known("1..10", ty, PCLR_ARGMIN, PCLR_NATIVE, ten, 10, &e);
        if (is_float(ty)) {
            e = ex_val(0, 0); e.neg_zero = 1; known("+0 -0 +0 -0", ty, PCLR_MIN, PCLR_NATIVE, zeros, 4, &e);
            e = ex_val(0, 0); known("-0 +0", ty, PCLR_MAX, PCLR_NATIVE, nzeros, 2, &e);
            e = ex_val(0, 0); e.neg_zero = 1; known("-0 +0", ty, PCLR_MIN, PCLR_NATIVE, nzeros, 2, &e);
            e = ex_val(0, 0); e.neg_zero = 1; known("-0 +0", ty, PCLR_MINMAX, PCLR_NATIVE, nzeros, 2, &e);
            e = ex_val(0, 0); known("+0 -0 +0 -0", ty, PCLR_ARGMIN, PCLR_NATIVE, zeros, 4, &e);
            e = ex_val(0, 0); known("+0 -0 +0 -0", ty, PCLR_ARGMAX, PCLR_NATIVE, zeros, 4, &e);
            e = ex_val(0, 0); e.neg_zero = 1; known("-0 +0", ty, PCLR_ARGMAX, PCLR_NATIVE, nzeros, 2, &e);
            e = ex_val(0, 0); known("+0 -0 +0 -0", ty, PCLR_COUNT, PCLR_NATIVE, zeros, 4, &e);
            e = ex_val(3, 0); known("0 -0 NaN 1 0 2", ty, PCLR_COUNT, PCLR_NATIVE, cnt, 6, &e);
            e = ex_val(NAN, 1); known("1 NaN -5 NaN 7", ty, PCLR_ARGMIN, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 1); known("1 NaN -5 NaN 7", ty, PCLR_ARGMAX, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 0); known("1 NaN -5 NaN 7", ty, PCLR_MIN, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 0); known("1 NaN -5 NaN 7", ty, PCLR_MAX, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 0); e.v2 = NAN; known("1 NaN -5 NaN 7", ty, PCLR_MINMAX, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 0); known("1 NaN -5 NaN 7", ty, PCLR_SUM, PCLR_NATIVE, nans, 5, &e);
            memset(&e, 0, sizeof e);
            e.v = NAN; e.smin = NAN; e.smax = NAN; e.mean = e.var = e.svar = NAN;
            known("1 NaN -5 NaN 7", ty, PCLR_STATS, PCLR_NATIVE, nans, 5, &e);
            e = ex_val(NAN, 0); known("NaN", ty, PCLR_ARGMAX, PCLR_NATIVE, one_nan, 1, &e);
            e = ex_val(1, 0); known("NaN", ty, PCLR_COUNT, PCLR_NATIVE, one_nan, 1, &e);
            e = ex_val(2, 0);
            if (ty != PCLR_DOUBLE) known("1 1e8 1 -1e8", ty == PCLR_HALF ? PCLR_FLOAT : ty, PCLR_SUM, PCLR_COMPENSATED, comp_f, 4, &e);
            else known("1 1e17 1 -1e17", ty, PCLR_SUM, PCLR_COMPENSATED, comp_d, 4, &e);
            if (ty == PCLR_HALF) { /* half sums accumulate in float: no overflow at 65504 + 65504 */
                e = ex_val(131008, 0); known("65504 65504 -0", ty, PCLR_SUM, PCLR_NATIVE, halfmax, 3, &e);
                e = ex_val(65504, 0); known("65504 65504 -0", ty, PCLR_ARGMAX, PCLR_NATIVE, halfmax, 3, &e);
            }
        }
    }
    /* integer sums: 8/16-bit native in 32 bits; 32-bit and 64-bit wrap; wide in 64 bits */
    {
        static const double u8s[] = {255, 255, 255, 255, 255, 255, 255, 255}, i8s[] = {-128, -128, -128};
        e = ex_val(2040, 0); known("8 x 255", PCLR_UINT8, PCLR_SUM, PCLR_NATIVE, u8s, 8, &e);
        e = ex_val(-384, 0); known("3 x -128", PCLR_INT8, PCLR_SUM, PCLR_NATIVE, i8s, 3, &e);
        e = ex_val(-384, 0); known("3 x -128", PCLR_INT8, PCLR_SUM, PCLR_WIDE, i8s, 3, &e);
    }
    {
        static const double big_u[] = {4294967295.0, 2}, big_i[] = {2147483647.0, 1};
        e = ex_val(1, 0); known("2^32-1 + 2", PCLR_UINT, PCLR_SUM, PCLR_NATIVE, big_u, 2, &e);
        e = ex_val(4294967297.0, 0); known("2^32-1 + 2", PCLR_UINT, PCLR_SUM, PCLR_WIDE, big_u, 2, &e);
        e = ex_val(-2147483648.0, 0); known("2^31-1 + 1", PCLR_INT, PCLR_SUM, PCLR_NATIVE, big_i, 2, &e);
        e = ex_val(2147483648.0, 0); known("2^31-1 + 1", PCLR_INT, PCLR_SUM, PCLR_WIDE, big_i, 2, &e);
    }
    printf("known answers: %ld failed, %.1fs\n", pclr_test_failed - before, now_s() - t0);
    pclr_buffer_destroy(g_ctx, g_kbuf);
    g_kbuf = NULL;
}

/* 64-bit wrapping, checked by bytes (doubles cannot hold the values) */
static void known_wrap64(void) {
    uint64_t u[2] = {UINT64_MAX, 2}, want_u = 1;
    int64_t i[2] = {INT64_MAX, 1}, want_i = INT64_MIN;
    pclr_buffer *buf = NULL;
    pclr_config c;
    uint64_t got = 0, ref = 0;
    int k;
    if (pclr_buffer_create(g_ctx, 16, &buf) != PCLR_OK) return;
    for (k = 0; k < 2; ++k) {
        memset(&c, 0, sizeof c);
        c.type = k ? PCLR_INT64 : PCLR_UINT64;
        c.op = PCLR_SUM;
        c.accumulate = k ? PCLR_WIDE : PCLR_NATIVE;
        pclr_buffer_write(g_ctx, buf, 0, k ? (void *)i : (void *)u, 16);
        report(pclr_cpu_reduce_config(&c, k ? (void *)i : (void *)u, 2, &ref) == PCLR_OK &&
                   memcmp(&ref, k ? (void *)&want_i : (void *)&want_u, 8) == 0,
               "known: %s sum wraps on the cpu (got %llu)", pclr_type_name(c.type), (unsigned long long)ref);
        if (!selected(c.type, c.op, c.accumulate) || reduce_one(g_ctx, &c, buf, 0, 2, &got) == PCLR_ERR_NO_FP64) continue;
        report(memcmp(&got, k ? (void *)&want_i : (void *)&want_u, 8) == 0, "known: %s sum wraps on the device (got %llu)",
               pclr_type_name(c.type), (unsigned long long)got);
    }
    pclr_buffer_destroy(g_ctx, buf);
}

/* The API's own tables: result sizes, value and sum types, the names. */
static void api_tables(void) {
    int t, o, a;
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
        const pclr_type ty = (pclr_type)t, vt = pclr_value_type(ty);
        const pclr_type want_vt = ty == PCLR_HALF ? PCLR_FLOAT : ty;
        report(vt == want_vt, "pclr_value_type(%s) = %s", pclr_type_name(ty), pclr_type_name(vt));
        for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) {
            const pclr_type st = pclr_sum_type(ty, (pclr_accumulate)a);
            pclr_type want;
            const int narrow = ty == PCLR_UINT8 || ty == PCLR_UINT16 || ty == PCLR_INT8 || ty == PCLR_INT16;
            if (a == PCLR_NATIVE) want = narrow ? (is_signed(ty) ? PCLR_INT : PCLR_UINT) : want_vt;
            else if (a == PCLR_WIDE) want = is_float(ty) ? PCLR_DOUBLE : is_signed(ty) ? PCLR_INT64 : PCLR_UINT64;
            else want = !is_float(ty) ? PCLR_TYPE_DEFAULT : ty == PCLR_DOUBLE ? PCLR_DOUBLE : PCLR_FLOAT;
            report(st == want, "pclr_sum_type(%s, %s) = %s, want %s", pclr_type_name(ty), pclr_accumulate_name((pclr_accumulate)a),
                   pclr_type_name(st), pclr_type_name(want));
            for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) {
                pclr_config c;
                size_t want_size = 0, got;
                memset(&c, 0, sizeof c);
                c.type = ty;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                switch (o) {
                case PCLR_SUM: want_size = st == PCLR_TYPE_DEFAULT ? 0 : pclr_type_size(st); break;
                case PCLR_MIN: case PCLR_MAX: want_size = pclr_type_size(vt); break;
                case PCLR_COUNT: want_size = 8; break;
                case PCLR_ARGMIN: case PCLR_ARGMAX: want_size = sizeof(pclr_arg_result); break;
                case PCLR_MINMAX: want_size = sizeof(pclr_minmax_result); break;
                case PCLR_STATS: want_size = st == PCLR_TYPE_DEFAULT || a == PCLR_EXACT ? 0 : sizeof(pclr_stats_result); break;
                case PCLR_PROD: /* native: the element's value type; wide: the wide sum's */
                    want_size = a == PCLR_NATIVE ? pclr_type_size(vt) : a == PCLR_WIDE ? pclr_type_size(pclr_sum_type(ty, PCLR_WIDE)) : 0;
                    break;
                case PCLR_AND: case PCLR_OR: case PCLR_XOR: want_size = is_float(ty) ? 0 : pclr_type_size(ty); break;
                case PCLR_ANY: case PCLR_ALL: want_size = 4; break;
                case PCLR_ARGMINMAX: want_size = sizeof(pclr_argminmax_result); break;
                default: break;
                }
                got = pclr_result_size(&c);
                report(got == want_size, "pclr_result_size(%s %s %s) = %zu, want %zu", pclr_type_name(ty), pclr_op_name(c.op),
                       pclr_accumulate_name(c.accumulate), got, want_size);
            }
        }
    }
    {
        static const char *const names[] = {"uint8", "int8", "uint16", "int16", "uint64", "int64", "half", "uint32", "int32",
                                            "float32", "float64", "float16"};
        static const pclr_type want[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT64, PCLR_INT64, PCLR_HALF,
                                         PCLR_UINT, PCLR_INT, PCLR_FLOAT, PCLR_DOUBLE, PCLR_HALF};
        static const char *const ops[] = {"argmin", "argmax", "minmax", "stats", "count", "prod", "and", "or", "xor", "any", "all", "argminmax"};
        static const char *const accs[] = {"native", "wide", "compensated", "exact"};
        size_t k;
        for (k = 0; k < COUNT(names); ++k) {
            pclr_type ty = PCLR_TYPE_DEFAULT;
            report(pclr_parse_type(names[k], &ty) == PCLR_OK && ty == want[k], "pclr_parse_type(%s)", names[k]);
        }
        for (k = 0; k < COUNT(ops); ++k) {
            pclr_op op = PCLR_OP_DEFAULT;
            report(pclr_parse_op(ops[k], &op) == PCLR_OK && strcmp(pclr_op_name(op), ops[k]) == 0, "pclr_parse_op(%s)", ops[k]);
        }
        for (k = 0; k < COUNT(accs); ++k) {
            pclr_accumulate ac = PCLR_ACCUMULATE_DEFAULT;
            report(pclr_parse_accumulate(accs[k], &ac) == PCLR_OK && strcmp(pclr_accumulate_name(ac), accs[k]) == 0,
                   "pclr_parse_accumulate(%s)", accs[k]);
        }
        {
            pclr_accumulate ac = PCLR_ACCUMULATE_DEFAULT;
            report(pclr_parse_accumulate("kahan", &ac) == PCLR_ERR_INVALID_ENUM, "pclr_parse_accumulate(kahan) refused");
        }
    }
}

/* ------------------------------------------------------------------ beyond 2^32 (GPU) */
/* Fills elements [0, n) of buf with the value at one (of size ts) in chunks; 0 on failure. */
static int fill_device(pclr_buffer *buf, uint64_t n, const void *one, size_t ts) {
    const size_t chunk = (size_t)1 << 26;
    unsigned char *h = (unsigned char *)malloc(chunk);
    uint64_t done = 0;
    size_t i;
    if (!h) return 0;
    for (i = 0; i < chunk; i += ts) memcpy(h + i, one, ts);
    while (done < n * ts) {
        size_t k = n * ts - done < chunk ? (size_t)(n * ts - done) : chunk;
        if (pclr_buffer_write(g_ctx, buf, (size_t)done, h, k) != PCLR_OK) { free(h); return 0; }
        done += k;
    }
    free(h);
    return 1;
}

static void beyond_2_32(void) {
    const uint64_t n = (1ull << 32) + (1ull << 20), at = (1ull << 32) + 12345, tie = (1ull << 32) + 54321;
    pclr_buffer *buf = NULL;
    pclr_config c;
    pclr_arg_result ar;
    uint64_t cnt = 0;
    double t0 = now_s();
    pclr_result r;
    /* uint8: zeros, 7 at 2^32 + 12345 and again later */
    if (pclr_buffer_create(g_ctx, (size_t)n, &buf) != PCLR_OK) {
        SKIP("beyond 2^32: no buffer of %llu bytes (%s)", (unsigned long long)n, pclr_last_error(g_ctx));
        return;
    }
    {
        const uint8_t zero = 0, seven = 7;
        if (!CHECK(fill_device(buf, n, &zero, 1) && pclr_buffer_write(g_ctx, buf, (size_t)at, &seven, 1) == PCLR_OK &&
                       pclr_buffer_write(g_ctx, buf, (size_t)tie, &seven, 1) == PCLR_OK,
                   "beyond 2^32: fill %llu bytes", (unsigned long long)n))
            goto done8;
    }
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT8;
    c.op = PCLR_ARGMAX;
    memset(&ar, 0, sizeof ar);
    r = reduce_one(g_ctx, &c, buf, 0, n, &ar);
    CHECK(r == PCLR_OK && ar.index == at && ar.value.u8 == 7, "uint8 argmax over 2^32 + 2^20: %s, got %u at %llu, want 7 at %llu",
          pclr_result_string(r), (unsigned)ar.value.u8, (unsigned long long)ar.index, (unsigned long long)at);
    c.op = PCLR_ARGMIN; /* the first zero, and from an offset past 2^32 the first zero after it */
    r = reduce_one(g_ctx, &c, buf, at, n - at, &ar);
    CHECK(r == PCLR_OK && ar.index == 1 && ar.value.u8 == 0, "uint8 argmin from offset 2^32 + 12345: %s, got %u at %llu, want 0 at 1",
          pclr_result_string(r), (unsigned)ar.value.u8, (unsigned long long)ar.index);
    c.op = PCLR_COUNT;
    r = reduce_one(g_ctx, &c, buf, 0, n, &cnt);
    CHECK(r == PCLR_OK && cnt == 2, "uint8 count over 2^32 + 2^20: %s, got %llu, want 2", pclr_result_string(r), (unsigned long long)cnt);
    c.op = PCLR_SUM;
    cnt = 0;
    r = reduce_one(g_ctx, &c, buf, 0, n, &cnt);
    CHECK(r == PCLR_OK && (uint32_t)cnt == 14, "uint8 native sum over 2^32 + 2^20: %s, got %u, want 14", pclr_result_string(r), (unsigned)cnt);
done8:
    pclr_buffer_destroy(g_ctx, buf);
    buf = NULL;
    printf("beyond 2^32, uint8: %.1fs\n", now_s() - t0);
    /* float: ones, -2 at 2^32 + 777 and again later: 16 GiB */
    t0 = now_s();
    if (pclr_get_backend(g_ctx) == PCLR_CPU) {
        SKIP("beyond 2^32: the float part (16 GiB) is for devices");
        return;
    }
    if (pclr_buffer_create(g_ctx, (size_t)n * 4, &buf) != PCLR_OK) {
        SKIP("beyond 2^32: no float buffer of %llu bytes (%s)", (unsigned long long)n * 4, pclr_last_error(g_ctx));
        return;
    }
    {
        const float onef = 1.0f, m2 = -2.0f;
        const uint64_t fat = (1ull << 32) + 777;
        pclr_minmax_result mm;
        if (CHECK(fill_device(buf, n, &onef, 4) && pclr_buffer_write(g_ctx, buf, (size_t)fat * 4, &m2, 4) == PCLR_OK &&
                      pclr_buffer_write(g_ctx, buf, (size_t)(fat + 1000) * 4, &m2, 4) == PCLR_OK,
                  "beyond 2^32: fill %llu floats", (unsigned long long)n)) {
            memset(&c, 0, sizeof c);
            c.type = PCLR_FLOAT;
            c.op = PCLR_ARGMIN;
            r = reduce_one(g_ctx, &c, buf, 0, n, &ar);
            CHECK(r == PCLR_OK && ar.index == fat && ar.value.f32 == -2.0f, "float argmin over 2^32 + 2^20: %s, got %g at %llu, want -2 at %llu",
                  pclr_result_string(r), (double)ar.value.f32, (unsigned long long)ar.index, (unsigned long long)fat);
            c.op = PCLR_MINMAX;
            r = reduce_one(g_ctx, &c, buf, 0, n, &mm);
            CHECK(r == PCLR_OK && mm.min.f32 == -2.0f && mm.max.f32 == 1.0f, "float minmax over 2^32 + 2^20: %s", pclr_result_string(r));
        }
    }
    pclr_buffer_destroy(g_ctx, buf);
    printf("beyond 2^32, float: %.1fs\n", now_s() - t0);
}

/* ------------------------------------------------------------------ the ops of issue 33, against this file's reference
   prod, and, or, xor, any, all and argminmax of every type they take, computed here element by element (not by
   the library's CPU reference): integers as their 64-bit bits (products and bitwise ops mod 2^64, then wrapped into
   the result's width), float products in long double (compared within 2 (n + 2) eps |ref|), any/all by the
   nonzero test (NaN is nonzero, -0 is not), argminmax by a scan (ties: the first index; floats: the first NaN wins
   both). Data: fresh random values (float products: magnitudes 1 +- 2^-7 with random signs, no overflow), the
   type's extremes planted, NaN / inf / -0 planted for floats, all-zero / one-nonzero / one-zero arrays for
   any/all, many ties for argminmax; sizes 0, 1, 2, 3, primes and 2^k +- 1, at offsets 0, 1, 3, 7. */
static uint64_t get_bits(pclr_type t, const void *p, uint64_t i) { /* integers sign- or zero-extended */
    switch (t) {
    case PCLR_UINT8: return ((const uint8_t *)p)[i];
    case PCLR_INT8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case PCLR_UINT16: return ((const uint16_t *)p)[i];
    case PCLR_INT16: return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case PCLR_UINT: return ((const uint32_t *)p)[i];
    case PCLR_INT: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}
/* v's low bytes in a result of `bytes` bytes (little-endian hosts: the tests run on them) */
static void put_bits(uint64_t v, void *out, size_t bytes) {
    unsigned char b[8];
    size_t k;
    for (k = 0; k < 8; ++k) b[k] = (unsigned char)(v >> (8 * k));
    memcpy(out, b, bytes);
}
/* x < y in the type's order (integers signed or not; floats as values, NaN apart) */
static int less_el(pclr_type t, const void *p, uint64_t i, uint64_t j) {
    if (is_float(t)) return get_d(t, p, i) < get_d(t, p, j);
    if (is_signed(t)) return (int64_t)get_bits(t, p, i) < (int64_t)get_bits(t, p, j);
    return get_bits(t, p, i) < get_bits(t, p, j);
}
/* the value of element i as a result's scalar (half: float) */
static pclr_scalar scalar_of(pclr_type t, const void *p, uint64_t i) {
    pclr_scalar v;
    memset(&v, 0, sizeof v);
    if (t == PCLR_HALF || t == PCLR_FLOAT) v.f32 = (float)get_d(t, p, i);
    else if (t == PCLR_DOUBLE) v.f64 = get_d(t, p, i);
    else put_bits(get_bits(t, p, i), &v, pclr_type_size(t));
    return v;
}

/* The expected result of op over n elements at p (result_size bytes); prod of floats: *lp the long double product. */
static void ops33_reference(const pclr_config *c, const void *p, uint64_t n, void *out, long double *lp) {
    const pclr_type t = c->type;
    uint64_t i;
    memset(out, 0, sizeof(pclr_stats_result));
    switch (c->op) {
    case PCLR_PROD:
        if (is_float(t)) {
            long double q = 1;
            for (i = 0; i < n; ++i) q *= (long double)get_d(t, p, i);
            *lp = q;
            if (c->accumulate == PCLR_WIDE || t == PCLR_DOUBLE) { const double d = (double)q; memcpy(out, &d, 8); }
            else { const float f = (float)q; memcpy(out, &f, 4); }
        } else {
            uint64_t q = 1;
            for (i = 0; i < n; ++i) q *= get_bits(t, p, i);
            put_bits(q, out, c->accumulate == PCLR_WIDE ? 8 : pclr_type_size(t));
        }
        break;
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: {
        uint64_t b = c->op == PCLR_AND ? ~(uint64_t)0 : 0;
        for (i = 0; i < n; ++i) {
            const uint64_t x = get_bits(t, p, i);
            b = c->op == PCLR_AND ? b & x : c->op == PCLR_OR ? b | x : b ^ x;
        }
        put_bits(b, out, pclr_type_size(t));
        break;
    }
    case PCLR_ANY: case PCLR_ALL: {
        uint32_t f = c->op == PCLR_ALL;
        for (i = 0; i < n; ++i) {
            const int nz = is_float(t) ? get_d(t, p, i) != 0 : get_bits(t, p, i) != 0; /* (NaN != 0) */
            if (c->op == PCLR_ANY && nz) f = 1;
            if (c->op == PCLR_ALL && !nz) f = 0;
        }
        memcpy(out, &f, 4);
        break;
    }
    default: { /* argminmax */
        pclr_argminmax_result r;
        uint64_t lo = UINT64_MAX, hi = UINT64_MAX;
        const pclr_type vt = pclr_value_type(t);
        for (i = 0; i < n; ++i) {
            const int nan = is_float(t) && get_d(t, p, i) != get_d(t, p, i);
            if (nan) { /* the first NaN wins both */
                if (lo == UINT64_MAX || get_d(t, p, lo) == get_d(t, p, lo)) lo = i;
                if (hi == UINT64_MAX || get_d(t, p, hi) == get_d(t, p, hi)) hi = i;
                continue;
            }
            if (lo == UINT64_MAX || (!(is_float(t) && get_d(t, p, lo) != get_d(t, p, lo)) && less_el(t, p, i, lo))) lo = i;
            if (hi == UINT64_MAX || (!(is_float(t) && get_d(t, p, hi) != get_d(t, p, hi)) && less_el(t, p, hi, i))) hi = i;
        }
        memset(&r, 0, sizeof r);
        r.min.index = lo;
        r.max.index = hi;
        if (lo != UINT64_MAX) {
            r.min.value = scalar_of(t, p, lo);
            r.max.value = scalar_of(t, p, hi);
        } else if (is_float(t)) { /* the identities: +inf, -inf */
            if (vt == PCLR_FLOAT) { r.min.value.f32 = (float)HUGE_VAL; r.max.value.f32 = (float)-HUGE_VAL; }
            else { r.min.value.f64 = HUGE_VAL; r.max.value.f64 = -HUGE_VAL; }
        } else { /* the type's largest, smallest */
            const uint64_t big = pclr_type_size(t) == 8 ? (is_signed(t) ? (uint64_t)INT64_MAX : UINT64_MAX)
                                                        : (is_signed(t) ? ((uint64_t)1 << (8 * pclr_type_size(t) - 1)) - 1
                                                                        : ((uint64_t)1 << (8 * pclr_type_size(t))) - 1);
            put_bits(big, &r.min.value, pclr_type_size(t));
            put_bits(is_signed(t) ? ~big : 0, &r.max.value, pclr_type_size(t));
        }
        memcpy(out, &r, sizeof r);
        break;
    }
    }
}

/* data for op of kind k (0: random, 1..: the op's special arrays) into p; returns 0 past the last kind */
static int ops33_fill(pclr_type t, pclr_op op, int k, void *p, uint64_t n, uint64_t seed) {
    uint64_t st = seed, i;
    const int fl = is_float(t);
    if (k > 4) return 0;
    if (op == PCLR_PROD && fl && k <= 1) { /* near 1 with random signs: no overflow, every rounding counted */
        for (i = 0; i < n; ++i) set_d(t, p, i, ((pclr_test_rand(&st) & 1) ? -1 : 1) * (1 + (rand_unit(&st) - 0.5) * (t == PCLR_HALF ? 0.0078125 : 0.015625)));
        if (k == 1 && n) { /* a special planted: NaN, inf, -0 or +0 */
            const int what = (int)(pclr_test_rand(&st) % 4);
            const uint64_t at = pclr_test_rand(&st) % n;
            if (what == 0) set_nan(t, p, at, (int)(st & 1));
            else if (what == 1) set_extreme(t, p, at, (int)(st & 1));
            else set_d(t, p, at, what == 2 ? -0.0 : 0.0);
        }
        return 1;
    }
    if (op == PCLR_ANY || op == PCLR_ALL) { /* 0: random; 1: all zero (floats: -0 and +0); 2: one nonzero; 3: all nonzero; 4: one zero */
        for (i = 0; i < n; ++i) {
            if (k == 0) pclr_args_fill_random(t, (char *)p + i * pclr_type_size(t), 1, pclr_test_rand(&st));
            else if (k <= 2) set_d(t, p, i, fl && (pclr_test_rand(&st) & 1) ? -0.0 : 0.0);
            else if (fl && (pclr_test_rand(&st) % 5) == 0) set_nan(t, p, i, (int)(i & 1)); /* NaN is nonzero */
            else set_d(t, p, i, 1 + (double)(pclr_test_rand(&st) % 7));
        }
        if (k == 0 && n) for (i = 0; i < n; ++i) if (pclr_test_rand(&st) % 3) set_d(t, p, i, 0.0); /* zeros among them */
        if ((k == 2 || k == 4) && n) {
            const uint64_t at = k == 2 && (st & 1) ? n - 1 : pclr_test_rand(&st) % n;
            if (k == 2 && fl && (st & 2)) set_nan(t, p, at, 0);
            else set_d(t, p, at, k == 2 ? 3.0 : (fl && (st & 2) ? -0.0 : 0.0));
        }
        return 1;
    }
    if (op == PCLR_ARGMINMAX && k >= 1) { /* ties: few distinct values; 2: a NaN or two planted; 3: extremes; 4: all equal */
        for (i = 0; i < n; ++i) set_d(t, p, i, k == 4 ? 5.0 : (double)(pclr_test_rand(&st) % 5) - (is_signed(t) ? 2 : 0));
        if (k == 2 && fl && n) { set_nan(t, p, pclr_test_rand(&st) % n, 1); set_nan(t, p, pclr_test_rand(&st) % n, 0); }
        if (k == 3 && n) { set_extreme(t, p, pclr_test_rand(&st) % n, 1); set_extreme(t, p, pclr_test_rand(&st) % n, 0); }
        if (k == 2 && fl && n > 1) set_d(t, p, n - 1, -0.0);
        return k != 2 || fl;
    }
    if (k >= 2) return 0;
    pclr_args_fill_random(t, p, n, seed);
    if (k == 1 && n) { /* the type's extremes (and for prod of integers: -1, 0 apart) */
        set_extreme(t, p, pclr_test_rand(&st) % n, 1);
        set_extreme(t, p, pclr_test_rand(&st) % n, 0);
        if (op == PCLR_PROD && !fl) for (i = 0; i < n; ++i) if (get_bits(t, p, i) % 4 == 0) set_d(t, p, i, is_signed(t) ? -1 : 3);
    }
    if (k == 0 && op == PCLR_PROD && !fl) for (i = 0; i < n; ++i) if (get_bits(t, p, i) % 2 == 0) ((unsigned char *)p)[i * pclr_type_size(t)] |= 1; /* odd: a product that is not 0 */
    return 1;
}

/* got against the reference (float products: the tolerance above; *why names what differs) */
static int ops33_same(const pclr_config *c, const void *got, const void *want, long double lp, uint64_t n, const char **why) {
    const pclr_type t = c->type;
    *why = "value";
    if (c->op == PCLR_PROD && is_float(t)) {
        const int d = c->accumulate == PCLR_WIDE || t == PCLR_DOUBLE;
        const double g = d ? *(const double *)got : (double)*(const float *)got, r = (double)lp;
        if (r != r) return g != g;
        if (isinf(r) || g != g || isinf(g)) return g == r;
        if (r == 0) return g == 0 && signbit(g) == signbit(r);
        return fabs(g - r) <= 2.0 * ((double)n + 2) * unit_roundoff(d ? PCLR_DOUBLE : PCLR_FLOAT) * fabs(r);
    }
    if (c->op == PCLR_ARGMINMAX) {
        const pclr_argminmax_result *g = (const pclr_argminmax_result *)got, *r = (const pclr_argminmax_result *)want;
        const pclr_type vt = pclr_value_type(t);
        if (g->min.index != r->min.index) { *why = "min index"; return 0; }
        if (g->max.index != r->max.index) { *why = "max index"; return 0; }
        if (!same_value(vt, &g->min.value, &r->min.value)) { *why = "min value"; return 0; }
        *why = "max value";
        return same_value(vt, &g->max.value, &r->max.value);
    }
    return memcmp(got, want, pclr_result_size(c)) == 0;
}

static void ops33(void) {
    static const pclr_op ops[] = {PCLR_PROD, PCLR_AND, PCLR_OR, PCLR_XOR, PCLR_ANY, PCLR_ALL, PCLR_ARGMINMAX};
    static const uint64_t sizes[] = {0, 1, 2, 3, 7, 31, 127, 255, 256, 257, 1021, 1023, 1025, 4093, 4097, 65535, 65537, 262147};
    static const uint64_t offs[] = {0, 1, 3, 7};
    const uint64_t most = sizes[COUNT(sizes) - 1] + 8;
    const char *dev = pclr_device_name(g_ctx);
    const char *every = getenv("PCLR_TEST_OPS33_ALL"); /* 1: every configuration on PoCL too */
    const int slow = pclr_get_backend(g_ctx) == PCLR_OPENCL && !g_full && !(every && *every && *every != '0') &&
                     (strstr(dev, "pthread") || strstr(dev, "cpu") || strstr(dev, "EPYC"));
    unsigned char *host = (unsigned char *)malloc((size_t)most * 8);
    pclr_buffer *buf = NULL;
    uint64_t st = g_seed ^ 0x33ull;
    long configs = 0, cases = 0;
    int t, o, a;
    double t0 = now_s();
    if (!CHECK(host && pclr_buffer_create(g_ctx, (size_t)most * 8, &buf) == PCLR_OK, "ops33: buffers")) { free(host); return; }
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = 0; o < (int)COUNT(ops); ++o)
            for (a = PCLR_NATIVE; a <= (ops[o] == PCLR_PROD ? PCLR_WIDE : PCLR_NATIVE); ++a) {
                pclr_config c;
                const pclr_type ty = (pclr_type)t;
                int k;
                memset(&c, 0, sizeof c);
                c.type = ty;
                c.op = ops[o];
                c.accumulate = (pclr_accumulate)a;
                if (is_float(ty) && (c.op == PCLR_AND || c.op == PCLR_OR || c.op == PCLR_XOR)) { /* refused, clearly */
                    const char *why = NULL;
                    unsigned char res[8];
                    report(pclr_config_resolve(&c, &c, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION && why && strstr(why, "integer"),
                           "ops33: %s %s is refused (%s)", pclr_type_name(ty), pclr_op_name(c.op), why ? why : "accepted");
                    report(pclr_cpu_reduce(ty, c.op, host, 0, res) != PCLR_OK && pclr_result_size(&c) == 0, "ops33: cpu %s %s refused",
                           pclr_type_name(ty), pclr_op_name(c.op));
                    continue;
                }
                if (slow && (pclr_test_rand(&st) % 6) != 0) continue; /* PoCL: builds take seconds; a seeded sixth */
                ++configs;
                for (k = 0; k <= 4; ++k) {
                    size_t s;
                    const uint64_t seed = pclr_test_rand(&st);
                    if (!ops33_fill(ty, c.op, k, host, 1, seed)) continue;
                    for (s = 0; s < COUNT(sizes); ++s) {
                        const uint64_t n = sizes[s], off = offs[(s + (size_t)k) % COUNT(offs)];
                        const size_t es = pclr_type_size(ty);
                        unsigned char got[sizeof(pclr_stats_result)], want[sizeof(pclr_stats_result)];
                        long double lp = 1;
                        const char *why = "";
                        pclr_result r;
                        if ((g_quick || k > 0) && n > 65537) continue;
                        ops33_fill(ty, c.op, k, host + off * es, n, seed + s);
                        if (pclr_buffer_write(g_ctx, buf, 0, host, (size_t)((off + n) * es)) != PCLR_OK) { report(0, "ops33: upload"); continue; }
                        ops33_reference(&c, host + off * es, n, want, &lp);
                        memset(got, 0xa5, sizeof got);
                        r = reduce_one(g_ctx, &c, buf, off, n, got);
                        ++cases;
                        if (r != PCLR_OK) { report(0, "ops33: %s %s %s n=%llu: %s (%s)", pclr_type_name(ty), pclr_op_name(c.op),
                                                   pclr_accumulate_name(c.accumulate), (unsigned long long)n, pclr_result_string(r), pclr_last_error(g_ctx)); continue; }
                        if (!ops33_same(&c, got, want, lp, n, &why)) {
                            char gs[160], ws[160];
                            pclr_args_format_result(&c, got, gs, sizeof gs);
                            pclr_args_format_result(&c, want, ws, sizeof ws);
                            report(0, "ops33: %s %s %s data %d n=%llu offset %llu: %s: got %s, want %s", pclr_type_name(ty), pclr_op_name(c.op),
                                   pclr_accumulate_name(c.accumulate), k, (unsigned long long)n, (unsigned long long)off, why, gs, ws);
                        } else {
                            report(1, "");
                        }
                        /* the library's CPU reference agrees too */
                        if (pclr_cpu_reduce_config(&c, host + off * es, n, got) != PCLR_OK || !ops33_same(&c, got, want, lp, n, &why))
                            report(0, "ops33: pclr_cpu_reduce_config %s %s %s data %d n=%llu: %s", pclr_type_name(ty), pclr_op_name(c.op),
                                   pclr_accumulate_name(c.accumulate), k, (unsigned long long)n, why);
                    }
                }
            }
    {   /* prod's refused accumulators */
        pclr_config c;
        const char *why = NULL;
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.op = PCLR_PROD;
        c.accumulate = PCLR_COMPENSATED;
        report(pclr_config_resolve(&c, &c, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "ops33: float prod compensated is refused");
        c.accumulate = PCLR_EXACT;
        report(pclr_config_resolve(&c, &c, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "ops33: float prod exact is refused");
    }
    pclr_buffer_destroy(g_ctx, buf);
    free(host);
    printf("ops33 (prod, and, or, xor, any, all, argminmax against this file's reference): %ld configurations, %ld cases, %.1fs\n", configs,
           cases, now_s() - t0);
}

/* ------------------------------------------------------------------ main */
int main(int argc, char **argv) {
    const char *env_seed = getenv("PCLR_TEST_SEED"), *env;
    const char *backend_name = getenv("PCLR_TEST_BACKEND");
    int platform = -1, device = -1, big = 0, i;
    pclr_backend backend = PCLR_OPENCL;
    pclr_desc d;
    char why[2048];
    double t0 = now_s();
    g_quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    g_full = (env = getenv("PCLR_TEST_FULL")) && *env && *env != '0';
    if (g_full) g_quick = 0;
    if ((env = getenv("PCLR_CL_PLATFORM"))) platform = atoi(env);
    if ((env = getenv("PCLR_CL_DEVICE"))) device = atoi(env);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend_name = argv[++i];
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) platform = atoi(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = atoi(argv[++i]);
        else if (strcmp(argv[i], "--big") == 0) big = 1;
        else if (strcmp(argv[i], "-v") == 0) g_verbose = 1;
        else {
            fprintf(stderr, "usage: test_vocab [--backend opencl|cuda|vulkan|cpu] [--platform N] [--device N] [--big] [-v]\n");
            return 2;
        }
    }
    if (backend_name && (pclr_parse_backend(backend_name, &backend) != PCLR_OK || backend == PCLR_BACKEND_AUTO)) {
        fprintf(stderr, "test_vocab: backend must be opencl, cuda, vulkan or cpu\n");
        return 2;
    }
    g_seed = env_seed ? strtoull(env_seed, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    printf("test_vocab: seed %llu (PCLR_TEST_SEED=%llu reproduces), mode %s\n", (unsigned long long)g_seed,
           (unsigned long long)g_seed, g_full ? "full" : g_quick ? "quick" : "default");
    {
        uint64_t s = g_seed;
        g_seed = pclr_test_rand(&s); /* nearby seeds give unrelated data */
    }
    api_tables();
    memset(&d, 0, sizeof d);
    d.backends[0] = backend;
    d.platform = platform >= 0 ? platform + 1 : 0;
    d.device = device >= 0 ? device + 1 : 0;
    d.error = why;
    d.error_cap = sizeof why;
    if (!CHECK(pclr_create(&d, &g_ctx) == PCLR_OK, "create a %s context: %s", pclr_backend_name(backend), why))
        return pclr_test_summary("test_vocab");
    printf("backend %s, device %s\n", pclr_backend_name(pclr_get_backend(g_ctx)), pclr_device_name(g_ctx));
    {   /* every triple, or a sample where builds are slow (PoCL, any OpenCL CPU device) */
        const char *dev = pclr_device_name(g_ctx);
        const int cpu_cl = pclr_get_backend(g_ctx) == PCLR_OPENCL &&
                           (strstr(dev, "pthread") || strstr(dev, "cpu") || strstr(dev, "CPU") || strstr(dev, "Portable") ||
                            strstr(dev, "basic") || strstr(dev, "EPYC") || strstr(dev, "Xeon") || strstr(dev, "Intel(R) Core"));
        const int all = g_full || !cpu_cl || ((env = getenv("PCLR_TEST_ALL")) && *env && *env != '0');
        select_triples(g_seed, all);
    }
    fflush(stdout);
    known_answers();
    known_wrap64();
    ops33();
    if (big) beyond_2_32();
    matrix(g_ctx, g_seed);
    pclr_destroy(g_ctx);
    printf("test_vocab: %.1fs\n", now_s() - t0);
    return pclr_test_summary("test_vocab");
}
