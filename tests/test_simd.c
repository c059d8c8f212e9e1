/* test_simd: stride simd (issue 35: a vector of accumulators, one per lane of a load, on OpenCL; what
   CPU devices such as PoCL take by default) against a reference written here, on the first OpenCL device.

   - lanes folds (integer sums native and wide, min, max, minmax, argmin, argmax, count) of every element
     type: each result against this file's reference, exactly (the semantics fix the bits: integer sums
     wrap in the sum type, min and max order -0 before +0 and any NaN makes the result NaN, arg ops take
     the first index of the best value, -0 tied with +0, and the first NaN, counts count NaN and not -0;
     a NaN value is compared as NaN-ness);
   - stats (each lane its own moments): stride local's count, min, max and integer sum,
     every bit for integers where n (max - min)^2 < 2^50 (the moments are exact there), else the mean and
     variances within the roundings of n additions of the data's largest value;
   - half elements in the other ops (sum, minmax, argmin, argmax, each load converted at once):
     bit for bit the same result as stride local with the same knobs (the same order of operations);
   - the configuration without a stride takes simd where it applies, on a CPU device;
   sizes 0 to 65537 around the vector and unroll boundaries at element offsets 0, 1 and 3, data: random
   over the type's range, ties, +-0, +-inf, NaN (either sign) first, middle, last; the default knobs (random data), stride simd with unroll 4, and vector 2 unroll 2 group 64 (five types).
   Usage: test_simd [-v]. PCLR_TEST_SEED=S reproduces a run; PCLR_TEST_QUICK=1 a smaller one. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "../pclreduce.h"
#include "pclr_test.h"

#include <math.h>
#include <time.h>

#define MAX_N 65537
#define PAD 8

static pclr_context *g_ctx;
static pclr_buffer *g_buf;
static unsigned char g_host[(MAX_N + PAD) * 8];
static int g_verbose, g_quick;
static long g_runs;

static int is_float(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static int is_signed(pclr_type t) { return t == PCLR_INT8 || t == PCLR_INT16 || t == PCLR_INT || t == PCLR_INT64; }

static double half_to_double(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

/* element i of the host data as a double (floats), or its integer value (as int64 or uint64 bits) */
static double get_f(pclr_type t, size_t i) {
    float f;
    double d;
    uint16_t h;
    if (t == PCLR_HALF) { memcpy(&h, g_host + 2 * i, 2); return half_to_double(h); }
    if (t == PCLR_FLOAT) { memcpy(&f, g_host + 4 * i, 4); return f; }
    memcpy(&d, g_host + 8 * i, 8);
    return d;
}
static uint64_t get_i(pclr_type t, size_t i) { /* sign-extended for signed types */
    uint64_t u = 0;
    const size_t s = pclr_type_size(t);
    memcpy(&u, g_host + s * i, s); /* (little-endian) */
    if (is_signed(t) && s < 8 && (u >> (8 * s - 1) & 1)) u |= ~(uint64_t)0 << (8 * s);
    return u;
}
static int less_i(pclr_type t, uint64_t a, uint64_t b) { return is_signed(t) ? (int64_t)a < (int64_t)b : a < b; }
/* floats: a before b in min's order (-0 before +0); neither is NaN */
static int before_f(double a, double b) { return a < b || (a == b && signbit(a) && !signbit(b)); }

/* One random element of t at i, by kind: 0 random, 1 ties (few values), 2 zeros and infinities */
static void put(pclr_type t, size_t i, int kind, uint64_t *rng) {
    const uint64_t r = pclr_test_rand(rng);
    const size_t s = pclr_type_size(t);
    if (!is_float(t)) {
        static const uint64_t few[4] = {0, 1, 0x7f, 0x80};
        const uint64_t v = kind == 1 ? few[r % 4] * 0x0101010101010101ull : r;
        memcpy(g_host + s * i, &v, s);
        return;
    }
    {
        static const double zi[4] = {0.0, -0.0, INFINITY, -INFINITY};
        const double ties[4] = {1.5, -2.0, 0.0, -0.0};
        double v = kind == 2 ? zi[r % 4] : kind == 1 ? ties[r % 4] : ldexp((double)(r >> 40) / (double)(1 << 24), (int)(r % 13) - 6) * (r & 1 ? -1 : 1);
        if (t == PCLR_DOUBLE) memcpy(g_host + 8 * i, &v, 8);
        else if (t == PCLR_FLOAT) { float f = (float)v; memcpy(g_host + 4 * i, &f, 4); }
        else { /* half: round to 11 bits by hand, in range */
            uint16_t h;
            const double a = fabs(v);
            if (a == 0) h = 0;
            else if (isinf(a)) h = 0x7c00;
            else {
                int e;
                const double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
                h = e < -13 ? 0x3c00 : e > 15 ? 0x7bff : (uint16_t)(((e + 14) << 10) | ((int)(m * 2048) & 1023));
            }
            if (kind == 0 && (r >> 60) == 0) h = (uint16_t)((r >> 20) & 0x3ff); /* a sixteenth subnormal (or 0) */
            if (signbit(v)) h |= 0x8000;
            memcpy(g_host + 2 * i, &h, 2);
        }
    }
}
static void put_nan(pclr_type t, size_t i, int negative) {
    if (t == PCLR_HALF) { uint16_t h = (uint16_t)(negative ? 0xfe01 : 0x7e00); memcpy(g_host + 2 * i, &h, 2); }
    else if (t == PCLR_FLOAT) { float f = negative ? -NAN : NAN; memcpy(g_host + 4 * i, &f, 4); }
    else { double d = negative ? -NAN : NAN; memcpy(g_host + 8 * i, &d, 8); }
}

/* The best element of t over [off, off + n) for min (lo) or max: its index (n: none), NaN's first; arg
   ops (arg) tie -0 and +0, min and max order -0 first */
static size_t best_of(pclr_type t, size_t off, size_t n, int lo, int arg) {
    size_t i, best = n;
    for (i = 0; i < n; ++i) {
        if (is_float(t)) {
            const double x = get_f(t, off + i);
            if (x != x) return i; /* the first NaN */
            const double y = best == n ? 0 : get_f(t, off + best);
            if (best == n || (arg ? (lo ? x < y : x > y) : lo ? before_f(x, y) : before_f(y, x))) best = i;
        } else {
            const uint64_t x = get_i(t, off + i);
            if (best == n || (lo ? less_i(t, x, get_i(t, off + best)) : less_i(t, get_i(t, off + best), x))) best = i;
        }
    }
    return best;
}
/* the value of element i (i == n: the identity of lo's side) into a result scalar of the value type */
static void value_at(pclr_type t, size_t off, size_t i, size_t n, int lo, unsigned char *out) {
    const size_t s = pclr_type_size(t);
    memset(out, 0, 8);
    if (i == n) { /* the identity: the type's largest (lo) or smallest */
        if (is_float(t)) {
            const double v = lo ? INFINITY : -INFINITY;
            if (t == PCLR_DOUBLE) memcpy(out, &v, 8);
            else { float f = (float)v; memcpy(out, &f, 4); }
        } else {
            const uint64_t v = lo ? (is_signed(t) ? ~(uint64_t)0 >> (65 - 8 * s) : ~(uint64_t)0 >> (64 - 8 * s))
                                  : (is_signed(t) ? ~(uint64_t)0 << (8 * s - 1) : 0);
            memcpy(out, &v, s);
        }
    } else if (t == PCLR_HALF || t == PCLR_FLOAT) {
        const float f = (float)get_f(t, off + i);
        memcpy(out, &f, 4);
    } else {
        memcpy(out, g_host + s * (off + i), s);
    }
}

/* The reference of a lanes fold over [off, off + n): want (the result's bytes, zero-padded), and nan[k]
   set where the 8-byte field k must be NaN (any payload) */
static void reference(const pclr_config *c, size_t off, size_t n, unsigned char *want, int *nan) {
    const pclr_type t = c->type;
    size_t i, b;
    memset(want, 0, 128);
    nan[0] = nan[1] = 0;
    switch (c->op) {
    case PCLR_COUNT: {
        uint64_t k = 0;
        for (i = off; i < off + n; ++i) k += is_float(t) ? get_f(t, i) != 0.0 : get_i(t, i) != 0;
        memcpy(want, &k, 8);
        return;
    }
    case PCLR_SUM: { /* integers: wrap in the sum type */
        uint64_t sum = 0;
        for (i = off; i < off + n; ++i) sum += get_i(t, i);
        memcpy(want, &sum, pclr_type_size(pclr_sum_type(t, c->accumulate)));
        return;
    }
    case PCLR_MIN: case PCLR_MAX:
        b = best_of(t, off, n, c->op == PCLR_MIN, 0);
        value_at(t, off, b, n, c->op == PCLR_MIN, want);
        nan[0] = b < n && is_float(t) && get_f(t, off + b) != get_f(t, off + b);
        return;
    case PCLR_MINMAX:
        for (i = 0; i < 2; ++i) {
            b = best_of(t, off, n, !i, 0);
            value_at(t, off, b, n, !i, want + 8 * i);
            nan[i] = b < n && is_float(t) && get_f(t, off + b) != get_f(t, off + b);
        }
        return;
    default: { /* argmin, argmax: the value, then the index (none: 2^64 - 1) */
        const uint64_t none = ~(uint64_t)0;
        b = best_of(t, off, n, c->op == PCLR_ARGMIN, 1);
        value_at(t, off, b, n, c->op == PCLR_ARGMIN, want);
        nan[0] = b < n && is_float(t) && get_f(t, off + b) != get_f(t, off + b);
        if (b < n) { const uint64_t at = b; memcpy(want + 8, &at, 8); }
        else memcpy(want + 8, &none, 8);
        return;
    }
    }
}

static pclr_result run(const pclr_config *c, size_t off, size_t n, unsigned char *res) {
    pclr_input in;
    memset(&in, 0, sizeof in);
    in.x = g_buf;
    in.x_offset = off;
    in.n = n;
    memset(res, 0xa5, 128);
    ++g_runs;
    return pclr_reduce(g_ctx, c, &in, res, 128);
}

/* a pclr_value_type value as a double */
static double scalar_d(pclr_type t, const pclr_scalar *v) {
    switch (t) {
    case PCLR_FLOAT: return v->f32;
    case PCLR_DOUBLE: return v->f64;
    case PCLR_UINT8: return v->u8;
    case PCLR_INT8: return v->i8;
    case PCLR_UINT16: return v->u16;
    case PCLR_INT16: return v->i16;
    case PCLR_UINT: return v->u32;
    case PCLR_INT: return v->i32;
    case PCLR_UINT64: return (double)v->u64;
    default: return (double)v->i64;
    }
}

/* Equal results, but where both are NaN (a NaN's payload and sign are not fixed): 8-byte words, or a 4-byte float */
static int same(const unsigned char *a, const unsigned char *b, size_t size) {
    size_t k;
    for (k = 0; k < size; k += 8) {
        double x, y;
        float f, g;
        if (!memcmp(a + k, b + k, size - k < 8 ? size - k : 8)) continue;
        memcpy(&x, a + k, 8); memcpy(&y, b + k, 8);
        memcpy(&f, a + k, 4); memcpy(&g, b + k, 4);
        if (size - k >= 8 && x != x && y != y) continue;
        if (f != f && g != g && (size - k <= 4 || !memcmp(a + k + 4, b + k + 4, 4))) continue;
        return 0;
    }
    return 1;
}

/* the result of c over [off, off + n): each check as the header says */
static void check(const pclr_config *c, const char *knobs, const char *data, size_t off, size_t n) {
    unsigned char got[128], want[128];
    const size_t rs = pclr_result_size(c);
    pclr_result r = run(c, off, n, got);
    char what[200];
    snprintf(what, sizeof what, "%s %s%s%s %s, %s, n %zu at %zu", pclr_type_name(c->type), pclr_op_name(c->op),
             c->op == PCLR_SUM || c->op == PCLR_STATS ? " " : "", c->op == PCLR_SUM || c->op == PCLR_STATS ? pclr_accumulate_name(c->accumulate) : "",
             knobs, data, n, off);
    if (r == PCLR_ERR_NO_FP64) return; /* (a device without doubles) */
    if (!CHECK(r == PCLR_OK, "%s: %s (%s)", what, pclr_result_string(r), pclr_last_error(g_ctx))) return;
    if (pclr__lanes_fold(c) && c->op != PCLR_STATS) {
        int nan[2], f;
        const pclr_type vt = pclr_value_type(c->type);
        reference(c, off, n, want, nan);
        for (f = 0; f * 8 < (int)rs; ++f) {
            const size_t bytes = rs - 8 * (size_t)f < 8 ? rs - 8 * (size_t)f : 8;
            if (f < 2 && nan[f]) {
                pclr_scalar g;
                memcpy(&g, got + 8 * f, 8);
                CHECK(vt == PCLR_DOUBLE ? g.f64 != g.f64 : g.f32 != g.f32, "%s: field %d: NaN expected", what, f);
            } else {
                CHECK(!memcmp(got + 8 * f, want + 8 * f, bytes), "%s: field %d: the reference's bytes differ", what, f);
            }
        }
    } else if (c->op == PCLR_STATS) {
        /* stats in lanes: the moments of each lane, merged. Stride local's count, min and max, integer sums and, for
           integers where n (max - min)^2 < 2^50, every bit (the moments are exact there); else its mean and variances
           within the roundings of n additions of values up to the data's largest (the order differs) */
        pclr_config l = *c;
        pclr_stats_result g, w;
        const int fl = is_float(c->type), dbl = c->type == PCLR_DOUBLE || !fl;
        double scale, tol, lo, hi;
        l.stride = PCLR_STRIDE_LOCAL;
        if (!CHECK(run(&l, off, n, want) == PCLR_OK, "%s: stride local", what)) return;
        memcpy(&g, got, sizeof g);
        memcpy(&w, want, sizeof w);
        lo = scalar_d(pclr_value_type(c->type), &w.min);
        hi = scalar_d(pclr_value_type(c->type), &w.max);
        scale = fmax(fabs(lo), fabs(hi));
        if (!fl && (double)n * (hi - lo) * (hi - lo) < 1125899906842624.0) {
            CHECK(same(got, want, rs), "%s: stride local's bytes differ (exact integer moments)", what);
            return;
        }
        tol = 4.0 * (double)(n + 1) * (dbl ? 2.2e-16 : 1.2e-7) * scale;
        CHECK(g.count == w.count && same(got + 16, want + 16, 16) && (fl || !memcmp(&g.sum, &w.sum, 8)),
              "%s: count, min, max%s: stride local's bytes differ", what, fl ? "" : ", sum");
#define PCLR__NEAR(a, b, t) ((a) == (b) || ((a) != (a) && (b) != (b)) || fabs((a) - (b)) <= (t) || !(scale < 1e300))
        CHECK((!fl || PCLR__NEAR(dbl ? g.sum.f64 : (double)g.sum.f32, dbl ? w.sum.f64 : (double)w.sum.f32, tol)) && PCLR__NEAR(g.mean, w.mean, tol) &&
                  PCLR__NEAR(g.var, w.var, 4 * tol * scale) && PCLR__NEAR(g.sample_var, w.sample_var, 4 * tol * scale),
              "%s: mean %g var %g, stride local's %g %g (within %g)", what, g.mean, g.var, w.mean, w.var, tol);
#undef PCLR__NEAR
    } else { /* half in the other ops: the same bytes as stride local */
        pclr_config l = *c;
        l.stride = PCLR_STRIDE_LOCAL;
        if (!CHECK(run(&l, off, n, want) == PCLR_OK, "%s: stride local", what)) return;
        CHECK(same(got, want, rs), "%s: stride local's bytes differ", what);
    }
    if (g_verbose) printf("ok %s\n", what);
}

int main(int argc, char **argv) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 255, 257, 1000, 4097, 65537};
    static const size_t offsets[] = {0, 1, 3};
    static const char *const kinds[] = {"random", "ties", "zeros and infinities", "NaN first", "NaN middle", "NaN last"};
    pclr_desc d;
    char why[256] = "";
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed, rng;
    double t0 = 0;
    int ti, k;
    struct timespec ts;
    for (k = 1; k < argc; ++k) {
        if (!strcmp(argv[k], "-v")) g_verbose = 1;
        else { fprintf(stderr, "usage: test_simd [-v]\n"); return 2; }
    }
    g_quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    env = getenv("PCLR_TEST_SEED");
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    printf("test_simd: seed %llu (PCLR_TEST_SEED=%llu reproduces)%s\n", (unsigned long long)seed, (unsigned long long)seed, g_quick ? ", quick" : "");
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_OPENCL;
    d.error = why;
    d.error_cap = sizeof why;
    if (pclr_create(&d, &g_ctx) != PCLR_OK) {
        SKIP("test_simd: no OpenCL device (%s)", why);
        return pclr_test_summary("test_simd");
    }
    printf("device %s\n", pclr_device_name(g_ctx));
    if (!CHECK(pclr_buffer_create(g_ctx, sizeof g_host, &g_buf) == PCLR_OK, "buffer")) return pclr_test_summary("test_simd");
    { /* the knobs' check: CUDA and Vulkan refuse simd; a CPU device's default is simd for a lanes fold */
        pclr_config c;
        memset(&c, 0, sizeof c);
        c.op = PCLR_MIN;
        c.stride = PCLR_STRIDE_SIMD;
        c.backend = PCLR_CUDA;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "CUDA refuses stride simd");
        c.backend = PCLR_VULKAN;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "Vulkan refuses stride simd");
        CHECK(pclr_parse_stride("simd", &c.stride) == PCLR_OK && c.stride == PCLR_STRIDE_SIMD && !strcmp(pclr_stride_name(c.stride), "simd"), "the name simd");
    }
    { /* a CPU device (PoCL's names) takes simd and 32-byte loads where it applies, local elsewhere */
        const char *dev = pclr_device_name(g_ctx);
        if (strstr(dev, "pthread") || strstr(dev, "cpu") || strstr(dev, "CPU") || strstr(dev, "basic")) {
            static const pclr_type types[4] = {PCLR_UINT8, PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
            for (k = 0; k < 4; ++k) {
                pclr_config c, r;
                memset(&c, 0, sizeof c);
                c.type = types[k];
                c.op = PCLR_MAX;
                CHECK(pclr_resolve(g_ctx, &c, 1 << 20, &r) == PCLR_OK && r.stride == PCLR_STRIDE_SIMD &&
                          r.vector_width == (k == 0 ? 16 : 32 / (int)pclr_type_size(types[k])), "%s max: stride simd, 32-byte loads on a CPU device",
                      pclr_type_name(types[k]));
                c.op = PCLR_STATS;
                CHECK(pclr_resolve(g_ctx, &c, 1 << 20, &r) == PCLR_OK && r.stride == PCLR_STRIDE_SIMD &&
                          r.vector_width == (k == 0 ? 16 : 32 / (int)pclr_type_size(types[k])), "%s stats: stride simd, 32-byte loads on a CPU device",
                      pclr_type_name(types[k]));
            }
        }
    }
    for (ti = PCLR_UINT; ti < PCLR_TYPE_COUNT_; ++ti) {
        const pclr_type t = (pclr_type)ti;
        const size_t s = pclr_type_size(t);
        static const struct { pclr_op op; pclr_accumulate acc; } ops[] = {
            {PCLR_SUM, PCLR_NATIVE}, {PCLR_SUM, PCLR_WIDE}, {PCLR_MIN, PCLR_NATIVE}, {PCLR_MAX, PCLR_NATIVE}, {PCLR_COUNT, PCLR_NATIVE},
            {PCLR_MINMAX, PCLR_NATIVE}, {PCLR_ARGMIN, PCLR_NATIVE}, {PCLR_ARGMAX, PCLR_NATIVE}, {PCLR_STATS, PCLR_NATIVE}};
        int kind, o;
        const int nkinds = is_float(t) ? 6 : 2;
        rng = seed ^ (uint64_t)ti * 0x9e3779b97f4a7c15ull;
        for (kind = 0; kind < nkinds; ++kind) {
            size_t i, a, b;
            char data[64];
            for (i = 0; i < MAX_N + PAD; ++i) put(t, i, kind > 2 ? 0 : kind, &rng);
            if (kind >= 3) /* a NaN at each window's first, middle or last element, of either sign (windows: offsets x sizes) */
                for (a = 0; a < sizeof offsets / sizeof offsets[0]; ++a)
                    for (b = 0; b < sizeof sizes / sizeof sizes[0]; ++b)
                        if (sizes[b] && (sizes[b] > 300 || kind == 3))
                            put_nan(t, offsets[a] + (kind == 3 ? 0 : kind == 4 ? sizes[b] / 2 : sizes[b] - 1), (int)(pclr_test_rand(&rng) & 1));
            if (!CHECK(pclr_buffer_write(g_ctx, g_buf, 0, g_host, (MAX_N + PAD) * s) == PCLR_OK, "write")) return pclr_test_summary("test_simd");
            snprintf(data, sizeof data, "%s", kinds[kind]);
            for (o = 0; o < (int)(sizeof ops / sizeof ops[0]); ++o) {
                int knob;
                for (knob = 0; knob < 3; ++knob) {
                    pclr_config c;
                    size_t si, oi;
                    const char *knobs = knob == 0 ? "default knobs" : knob == 1 ? "stride simd unroll 4" : "stride simd vector 2 unroll 2 group 64";
                    memset(&c, 0, sizeof c);
                    c.type = t;
                    c.op = ops[o].op;
                    c.accumulate = ops[o].acc;
                    if (knob > 0) c.stride = PCLR_STRIDE_SIMD;
                    if (knob == 1) c.unroll = 4; /* (PoCL builds unroll 32 of 16 lanes for seconds: the default's run has it) */
                    if (knob == 2) { c.vector_width = 2; c.unroll = 2; c.group_size = 64; }
                    if (!pclr__lanes_fold(&c) && !pclr__half_vectors(&c)) continue; /* (simd is local there) */
                    if (knob == 0 && (g_quick || kind > 0 || !pclr__lanes_fold(&c))) continue; /* (the default: random data once) */
                    if ((knob == 2 || (g_quick && c.op == PCLR_STATS)) && t != PCLR_UINT8 && t != PCLR_INT16 && t != PCLR_HALF && t != PCLR_FLOAT &&
                        t != PCLR_INT64)
                        continue; /* (quick: stats' kernels take PoCL seconds to build; test_stats runs the others) */
                    for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                        for (oi = 0; oi < sizeof offsets / sizeof offsets[0]; ++oi) {
                            if (kind >= 3 && (sizes[si] == 0 || (kind > 3 && sizes[si] <= 300))) continue; /* (windows with a NaN) */
                            if (g_quick && oi == 1) continue;
                            check(&c, knobs, data, offsets[oi], sizes[si]);
                        }
                }
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        printf("%-7s done, %ld reductions so far, %.1fs\n", pclr_type_name(t), g_runs, (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - t0);
        fflush(stdout);
    }
    pclr_buffer_destroy(g_ctx, g_buf);
    pclr_destroy(g_ctx);
    return pclr_test_summary("test_simd");
}
