/* The Vulkan backend against the CPU reference: every type, op and
   accumulator (each variant in turn: subgroup, tree, interleaved tree; each
   finish that goes with the op) on odd sizes and offsets, NaN and signed
   zeros, maps (x, y, parameters, pixels), a reduce recorded into the test's
   own command buffer, the generic context (pclr_vk_buffer around a VkBuffer
   of the program's, pclr_reduce_async into the test's command buffer), the
   disk cache, and the failure
   paths (no loader; no shaderc: create fails saying why, Debian 12's
   libshaderc.so.1 named with its cause, desc.allow_no_compiler's cached
   pipelines only; a bad buffer range, a compile failure with its log). The data are multiples of 1/8 small enough that every float sum
   is exact in any order: sums compare bit for bit, stats' mean and variance
   within 1e-9 relative.
   Runs on whatever Vulkan device is first-best here (lavapipe on the CPU in
   CI); prints "skip: ..." and succeeds when there is none.
   PCLR_TEST_QUICK=1: fewer sizes. The data's seed is fresh each run (the
   time and the process id) and printed; PCLR_TEST_SEED=S reproduces a run. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_VULKAN
#include "../pclreduce.h"
#include "pclr_test.h"

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pclr_vk_context *g_ctx;
static const pclr_vk_features *g_feat;
static int g_quick;
static uint64_t g_seed; /* PCLR_TEST_SEED, else the time and the process id */

#define MAXN 70001u
#define PAD 8u
static unsigned char g_host[(MAXN + PAD) * 16]; /* the largest element: 4 floats */
static VkBuffer g_buf;
static const VkDeviceSize g_buf_size = sizeof g_host;

/* Random elements of t: multiples of 1/8 in [-4, 4) for floats, small or full-range integers. */
static void fill(pclr_type t, void *dst, uint64_t count, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < count; ++i) {
        const uint64_t r = pclr_test_rand(st);
        const double eighth = (double)((int)(r % 64) - 32) / 8.0;
        switch (t) {
        case PCLR_UINT8: ((uint8_t *)dst)[i] = (uint8_t)r; break;
        case PCLR_INT8: ((int8_t *)dst)[i] = (int8_t)(uint8_t)r; break;
        case PCLR_UINT16: ((uint16_t *)dst)[i] = (uint16_t)r; break;
        case PCLR_INT16: ((int16_t *)dst)[i] = (int16_t)(uint16_t)r; break;
        case PCLR_UINT: ((uint32_t *)dst)[i] = (uint32_t)r; break;
        case PCLR_INT: ((int32_t *)dst)[i] = (int32_t)(uint32_t)r; break;
        case PCLR_UINT64: ((uint64_t *)dst)[i] = r; break;
        case PCLR_INT64: ((int64_t *)dst)[i] = (int64_t)r; break;
        case PCLR_FLOAT: ((float *)dst)[i] = (float)eighth; break;
        case PCLR_DOUBLE: ((double *)dst)[i] = eighth; break;
        default: { /* half: the bits of the eighth (exact in binary16) */
            const float f = (float)eighth;
            uint32_t b;
            uint16_t h;
            memcpy(&b, &f, 4);
            if (f == 0.0f) h = (uint16_t)((b >> 16) & 0x8000u);
            else h = (uint16_t)(((b >> 16) & 0x8000u) | ((((b >> 23) & 0xffu) - 112u) << 10) | ((b >> 13) & 0x3ffu));
            ((uint16_t *)dst)[i] = h;
        }
        }
    }
}

/* A product's data for floats: +-1, now and then +-2 or +-1/2, so every order gives the same product, exactly. With
   fill's data a partial product overflows to infinity in one order and meets a zero first in another: NaN or 0. */
static void fill_prod(pclr_type t, void *dst, uint64_t count, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < count; ++i) {
        const uint64_t r = pclr_test_rand(st);
        const int e = r % 4096 == 0 ? 1 : r % 4096 == 1 ? -1 : 0, neg = (int)((r >> 20) & 1);
        const double v = (neg ? -1.0 : 1.0) * (e > 0 ? 2.0 : e < 0 ? 0.5 : 1.0);
        if (t == PCLR_FLOAT) ((float *)dst)[i] = (float)v;
        else if (t == PCLR_DOUBLE) ((double *)dst)[i] = v;
        else ((uint16_t *)dst)[i] = (uint16_t)((neg ? 0x8000u : 0u) | (uint16_t)((15 + e) << 10));
    }
}

static int same_float(pclr_type t, const void *a, const void *b) {
    if (t == PCLR_DOUBLE) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x != x && y != y) || memcmp(&x, &y, 8) == 0;
    } else {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x != x && y != y) || memcmp(&x, &y, 4) == 0;
    }
}
static double g_tol; /* stats' moments: 1e-9 relative in double, 1e-4 in float (their order differs from the reference's) */
static uint64_t g_n; /* the elements behind the results same_result compares */
/* scale: the data's size (a mean near 0 of values near 4 carries their rounding, not its own) */
static int near(double a, double b, double scale) {
    return (a != a && b != b) || a == b || fabs(a - b) <= g_tol * (fabs(a) + fabs(b) + scale);
}

/* |v| of a value of type t, as a double */
static double scalar_abs(pclr_type t, const pclr_scalar *v) {
    switch (t) {
    case PCLR_FLOAT: return fabs((double)v->f32);
    case PCLR_DOUBLE: return fabs(v->f64);
    case PCLR_UINT8: return v->u8;
    case PCLR_INT8: return fabs((double)v->i8);
    case PCLR_UINT16: return v->u16;
    case PCLR_INT16: return fabs((double)v->i16);
    case PCLR_UINT: return v->u32;
    case PCLR_INT: return fabs((double)v->i32);
    case PCLR_UINT64: return (double)v->u64;
    default: return fabs((double)v->i64);
    }
}

/* The result of cfg (resolved) compared with the CPU reference's. */
static int same_result(const pclr_config *c, const void *got, const void *want) {
    const pclr_type vt = pclr_value_type(pclr_reduced_type(c)), st = pclr_sum_type(pclr_reduced_type(c), c->accumulate);
    const int vf = vt == PCLR_FLOAT || vt == PCLR_DOUBLE, sf = st == PCLR_FLOAT || st == PCLR_DOUBLE;
    const size_t vs = pclr_type_size(vt);
    g_tol = vt == PCLR_DOUBLE || c->accumulate == PCLR_WIDE || !(vt == PCLR_FLOAT) ? 1e-9 : 1e-4;
    switch (c->op) {
    case PCLR_SUM: return sf ? same_float(st, got, want) : memcmp(got, want, pclr_type_size(st)) == 0;
    case PCLR_COUNT: return memcmp(got, want, 8) == 0;
    case PCLR_MIN: case PCLR_MAX: return vf ? same_float(vt, got, want) : memcmp(got, want, vs) == 0;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        const pclr_arg_result *g = (const pclr_arg_result *)got, *w = (const pclr_arg_result *)want;
        return g->index == w->index && (vf ? same_float(vt, &g->value, &w->value) : memcmp(&g->value, &w->value, vs) == 0);
    }
    case PCLR_MINMAX: {
        const pclr_minmax_result *g = (const pclr_minmax_result *)got, *w = (const pclr_minmax_result *)want;
        return vf ? same_float(vt, &g->min, &w->min) && same_float(vt, &g->max, &w->max)
                  : memcmp(&g->min, &w->min, vs) == 0 && memcmp(&g->max, &w->max, vs) == 0;
    }
    case PCLR_ARGMINMAX: {
        const pclr_argminmax_result *g = (const pclr_argminmax_result *)got, *w = (const pclr_argminmax_result *)want;
        return g->min.index == w->min.index && g->max.index == w->max.index &&
               (vf ? same_float(vt, &g->min.value, &w->min.value) && same_float(vt, &g->max.value, &w->max.value)
                   : memcmp(&g->min.value, &w->min.value, vs) == 0 && memcmp(&g->max.value, &w->max.value, vs) == 0);
    }
    case PCLR_PROD: { /* native: the value type; wide: the wide sum's. Floats: the backends multiply in trees, the
                         reference in order: each product rounds, so within 4 n eps; below 2^-100 (2^-1000) the
                         products pass through subnormals, which NVIDIA's Vulkan driver flushes to zero */
        const pclr_type pt = c->accumulate == PCLR_WIDE ? st : vt;
        double x, y;
        if (pt != PCLR_FLOAT && pt != PCLR_DOUBLE) return memcmp(got, want, pclr_type_size(pt)) == 0;
        if (same_float(pt, got, want)) return 1;
        if (pt == PCLR_DOUBLE) { memcpy(&x, got, 8); memcpy(&y, want, 8); }
        else { float f, g; memcpy(&f, got, 4); memcpy(&g, want, 4); x = f; y = g; }
        return fabs(x - y) <= 4.0 * (double)g_n * (pt == PCLR_DOUBLE ? 2.2e-16 : 1.2e-7) * fabs(y) + (pt == PCLR_DOUBLE ? 9.3e-302 : 7.9e-31);
    }
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: case PCLR_ANY: case PCLR_ALL: /* (exact: the element type, a 0/1 word) */
        return memcmp(got, want, pclr_result_size(c)) == 0;
    default: {
        const pclr_stats_result *g = (const pclr_stats_result *)got, *w = (const pclr_stats_result *)want;
        const int sums = sf ? same_float(st, &g->sum, &w->sum) : memcmp(&g->sum, &w->sum, pclr_type_size(st)) == 0;
        const int ends = vf ? same_float(vt, &g->min, &w->min) && same_float(vt, &g->max, &w->max)
                            : memcmp(&g->min, &w->min, vs) == 0 && memcmp(&g->max, &w->max, vs) == 0;
        const double big = scalar_abs(vt, &w->min) > scalar_abs(vt, &w->max) ? scalar_abs(vt, &w->min) : scalar_abs(vt, &w->max);
        return g->count == w->count && sums && ends && near(g->mean, w->mean, big) && near(g->var, w->var, big * big) &&
               near(g->sample_var, w->sample_var, big * big);
    }
    }
}

/* Reduces elements [offset, offset + n) of g_host (uploaded) with cfg and checks it. */
static int run_check(const pclr_config *cfg, uint64_t offset, uint64_t n, const char *what) {
    unsigned char got[128], want[128];
    char desc[512];
    pclr_config c;
    pclr_result r;
    const size_t es = pclr_type_size(cfg->type) * (cfg->map && cfg->components > 1 ? (size_t)cfg->components : 1);
    if ((r = pclr_vk_resolve(g_ctx, cfg, &c)) != PCLR_OK) return CHECK(0, "%s: resolve: %s", what, pclr_vk_last_error(g_ctx));
    pclr_config_describe(&c, desc, sizeof desc);
    memset(got, 0xa5, sizeof got);
    r = pclr_vk_reduce(g_ctx, cfg, g_buf, g_buf_size, offset, n, got);
    if (r != PCLR_OK)
        return CHECK(0, "%s n=%llu offset=%llu: %s (%s) [%s]\n%s", what, (unsigned long long)n, (unsigned long long)offset,
                     pclr_result_string(r), pclr_vk_last_error(g_ctx), desc, pclr_vk_build_log(g_ctx));
    if ((r = pclr_cpu_reduce_config(&c, g_host + offset * es, n, want)) != PCLR_OK) return CHECK(0, "%s: CPU reference: %s", what, pclr_result_string(r));
    g_n = n;
    if (!same_result(&c, got, want)) { /* both results' bytes: the field that differs shows */
        char hex[2][2 * 128 + 1];
        const size_t rs = pclr_result_size(&c) < 128 ? pclr_result_size(&c) : 128;
        size_t k, h;
        for (h = 0; h < 2; ++h)
            for (k = 0; k < rs; ++k) snprintf(hex[h] + 2 * k, 3, "%02x", (h ? want : got)[k]);
        return CHECK(0, "%s n=%llu offset=%llu: differs from the CPU reference [%s]\n  got  %s\n  want %s", what, (unsigned long long)n,
                     (unsigned long long)offset, desc, hex[0], hex[1]);
    }
    return CHECK(1, "%s n=%llu offset=%llu", what, (unsigned long long)n, (unsigned long long)offset);
}

static int upload(pclr_type t, uint64_t seed, int for_prod) {
    uint64_t st = seed;
    if (for_prod && pclr__is_float(t)) fill_prod(t, g_host, MAXN + PAD, &st);
    else fill(t, g_host, MAXN + PAD, &st);
    return CHECK(pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, (MAXN + PAD) * pclr_type_size(t)) == PCLR_OK, "upload %s: %s",
                 pclr_type_name(t), pclr_vk_last_error(g_ctx));
}

static int type_ok(pclr_type t) { return (t != PCLR_DOUBLE || g_feat->float64); }

/* Every type x op x accumulator, the variants and finishes in turn, odd sizes and offsets. */
static void test_matrix(void) {
    static const uint64_t sizes[] = {0, 1, 2, 3, 31, 257, 1000, 4099, 65537, MAXN};
    static const uint64_t offsets[] = {0, 1, 3, 5, 2};
    static const pclr_variant variants[] = {PCLR_VARIANT_DEFAULT, PCLR_VARIANT_UNROLLED, PCLR_VARIANT_NAIVE};
    int t, o, a, k = 0, s;
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t) {
        if (!type_ok((pclr_type)t)) { SKIP("%s: no shaderFloat64", pclr_type_name((pclr_type)t)); continue; }
        upload((pclr_type)t, g_seed + (uint64_t)t, 0);
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) {
            if (pclr__is_float((pclr_type)t) && (o == PCLR_PROD || o == PCLR_PROD + 1)) upload((pclr_type)t, g_seed + (uint64_t)t, o == PCLR_PROD);
            for (a = PCLR_NATIVE; a <= PCLR_COMPENSATED; ++a) {
                pclr_config c, r;
                char what[160];
                const int isf = t == PCLR_FLOAT || t == PCLR_DOUBLE || t == PCLR_HALF;
                if (a != PCLR_NATIVE && o != PCLR_SUM && o != PCLR_STATS) continue;
                if (a == PCLR_COMPENSATED && !isf) continue;
                if (a == PCLR_WIDE && isf && !g_feat->float64) continue;
                if (isf && (o == PCLR_AND || o == PCLR_OR || o == PCLR_XOR)) continue; /* (integers only: refused) */
                memset(&c, 0, sizeof c);
                c.type = (pclr_type)t;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                c.variant = variants[k++ % 3];
                if (pclr_vk_resolve(g_ctx, &c, &r) != PCLR_OK) {
                    CHECK(0, "%s %s %s: %s", pclr_type_name(c.type), pclr_op_name(c.op), pclr_accumulate_name(c.accumulate), pclr_vk_last_error(g_ctx));
                    continue;
                }
                for (s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
                    const uint64_t n = sizes[s], off = offsets[(s + k) % 5];
                    if (g_quick && s % 2 && n > 1000) continue;
                    snprintf(what, sizeof what, "%s %s %s %s", pclr_type_name(c.type), pclr_op_name(c.op), pclr_accumulate_name(c.accumulate),
                             pclr_variant_name(r.variant));
                    run_check(&c, off, n, what);
                }
                /* the other finishes where the op has them */
                if (pclr__state_is_element(&r)) {
                    c.finish = PCLR_FINISH_PARTIALS;
                    snprintf(what, sizeof what, "%s %s partials", pclr_type_name(c.type), pclr_op_name(c.op));
                    run_check(&c, 3, 65537, what);
                    run_check(&c, 0, 5, what);
                }
                if ((t == PCLR_UINT || t == PCLR_INT) && o <= PCLR_MAX && a == PCLR_NATIVE) {
                    c.finish = PCLR_FINISH_ATOMIC;
                    snprintf(what, sizeof what, "%s %s atomic", pclr_type_name(c.type), pclr_op_name(c.op));
                    run_check(&c, 1, 65537, what);
                    run_check(&c, 1, 65537, what); /* the running value went back to the identity */
                }
            }
        }
    }
}

/* NaN and signed zeros in min, max, argmin, argmax, minmax (NumPy's rules, as the CPU reference). */
static void test_nan(void) {
    static const pclr_type types[] = {PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
    int i, o, v;
    for (i = 0; i < 3; ++i) {
        const pclr_type t = types[i];
        const size_t es = pclr_type_size(t);
        if (!type_ok(t)) continue;
        for (v = 0; v < 2; ++v) {
            uint64_t st = g_seed ^ 0x7a7a;
            fill(t, g_host, 5000, &st);
            /* a NaN at 1234 and 4000, -0 and +0 at 10 and 11 */
            if (t == PCLR_FLOAT) { const float nan = NAN, nz = -0.0f, pz = 0.0f; memcpy(g_host + 1234 * es, &nan, 4); memcpy(g_host + 4000 * es, &nan, 4); memcpy(g_host + 10 * es, &nz, 4); memcpy(g_host + 11 * es, &pz, 4); }
            else if (t == PCLR_DOUBLE) { const double nan = NAN, nz = -0.0, pz = 0.0; memcpy(g_host + 1234 * es, &nan, 8); memcpy(g_host + 4000 * es, &nan, 8); memcpy(g_host + 10 * es, &nz, 8); memcpy(g_host + 11 * es, &pz, 8); }
            else { const uint16_t nan = 0x7e00, nz = 0x8000, pz = 0; memcpy(g_host + 1234 * es, &nan, 2); memcpy(g_host + 4000 * es, &nan, 2); memcpy(g_host + 10 * es, &nz, 2); memcpy(g_host + 11 * es, &pz, 2); }
            if (v == 1) { /* no NaN: signed zeros and ties */
                memset(g_host + 1234 * es, 0, es);
                memset(g_host + 4000 * es, 0, es);
            }
            pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, 5000 * es);
            for (o = PCLR_MIN; o <= PCLR_STATS; ++o) {
                pclr_config c;
                char what[96];
                memset(&c, 0, sizeof c);
                c.type = t;
                c.op = (pclr_op)o;
                snprintf(what, sizeof what, "NaN %s %s (case %d)", pclr_type_name(t), pclr_op_name(c.op), v);
                run_check(&c, 0, 5000, what);
                run_check(&c, 5, 3000, what); /* the first NaN only */
                run_check(&c, 1235, 2000, what); /* none */
            }
        }
    }
}

/* Maps: x alone, with y, with parameters, pixels of 4 components. */
static void test_maps(void) {
    VkBuffer y;
    static unsigned char yh[(5001 + PAD) * 8];
    uint64_t st = g_seed ^ 0x3a3a;
    double params[2] = {2.0, 0.5};
    struct { pclr_type x, y; pclr_op op; int comps; const char *map, *params; } rows[] = {
        {PCLR_FLOAT, 0, PCLR_SUM, 1, "x * x", NULL},
        {PCLR_FLOAT, PCLR_FLOAT, PCLR_SUM, 1, "x * y", NULL},
        {PCLR_INT, PCLR_INT64, PCLR_ARGMIN, 1, "x - y", NULL},
        {PCLR_FLOAT, 0, PCLR_MAX, 1, "x * k + t", "float k, float t"},
        {PCLR_HALF, 0, PCLR_STATS, 1, "abs(x)", NULL},
        {PCLR_FLOAT, 0, PCLR_SUM, 4, "0.25 * x.x + 0.5 * x.y + 0.25 * x.z", NULL},
        {PCLR_UINT8, 0, PCLR_COUNT, 4, "x.x > x.y", NULL},
        {PCLR_DOUBLE, PCLR_FLOAT, PCLR_MINMAX, 1, "x * y + k", "double k"},
    };
    size_t i;
    if (!CHECK(pclr_vk_buffer_create(g_ctx, sizeof yh, &y) == PCLR_OK, "y buffer: %s", pclr_vk_last_error(g_ctx))) return;
    for (i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        pclr_config c, rc;
        unsigned char got[128], want[128];
        const size_t xs = pclr_type_size(rows[i].x) * (size_t)rows[i].comps, ys = rows[i].y ? pclr_type_size(rows[i].y) : 0;
        const uint64_t n = 4999, off = 2;
        pclr_result r;
        if (!type_ok(rows[i].x) || !type_ok(rows[i].y ? rows[i].y : PCLR_FLOAT)) continue;
        fill(rows[i].x, g_host, (n + PAD) * (uint64_t)rows[i].comps, &st);
        if (ys) fill(rows[i].y, yh, n + PAD, &st);
        pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, (n + PAD) * xs);
        if (ys) pclr_vk_buffer_write(g_ctx, y, 0, yh, (n + PAD) * ys);
        memset(&c, 0, sizeof c);
        c.type = rows[i].x;
        c.y_type = rows[i].y;
        c.op = rows[i].op;
        c.components = rows[i].comps;
        c.map = rows[i].map;
        c.params = rows[i].params;
        if (!CHECK(pclr_vk_resolve(g_ctx, &c, &rc) == PCLR_OK, "map %s: %s", rows[i].map, pclr_vk_last_error(g_ctx))) continue;
        r = pclr_vk_reduce_map(g_ctx, &c, g_buf, g_buf_size, off, y, ys ? sizeof yh : 0, off, n, params, got);
        if (!CHECK(r == PCLR_OK, "map %s: %s (%s)\n%s", rows[i].map, pclr_result_string(r), pclr_vk_last_error(g_ctx), pclr_vk_build_log(g_ctx))) continue;
        pclr_cpu_reduce_map(&rc, g_host + off * xs, ys ? yh + off * ys : NULL, n, params, want);
        if (!CHECK(same_result(&rc, got, want), "map %s (%s %s): differs from the CPU reference", rows[i].map, pclr_type_name(c.type), pclr_op_name(c.op)) && c.op == PCLR_ARGMIN)
            printf("  got %lld at %llu, want %lld at %llu\n", (long long)((pclr_arg_result *)got)->value.i64, (unsigned long long)((pclr_arg_result *)got)->index,
                   (long long)((pclr_arg_result *)want)->value.i64, (unsigned long long)((pclr_arg_result *)want)->index);
    }
    /* a map with y whose loads do not line up with x's: one element per load (the engine's rule), not wrong */
    {
        pclr_config c;
        unsigned char got[64], one[64];
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.y_type = PCLR_FLOAT;
        c.map = "x * y";
        memset(got, 0xa5, sizeof got);
        memset(one, 0x5a, sizeof one);
        CHECK(pclr_vk_reduce_map(g_ctx, &c, g_buf, g_buf_size, 1, y, sizeof yh, 2, 100, NULL, got) == PCLR_OK,
              "y out of line with x's loads: %s", pclr_vk_last_error(g_ctx));
        c.vector_width = 1;
        CHECK(pclr_vk_reduce_map(g_ctx, &c, g_buf, g_buf_size, 1, y, sizeof yh, 2, 100, NULL, one) == PCLR_OK && !memcmp(got, one, 4),
              "the same with vector 1, bit for bit: %s", pclr_vk_last_error(g_ctx));
    }
    pclr_vk_buffer_destroy(g_ctx, y);
}

/* A map's + - * / round as in C on Vulkan too: no fused a * b + c, no
   algebraic rewrites, inf, NaN and -0 kept (precise in the GLSL, literal
   zeros the driver cannot fold, SignedZeroInfNanPreserve in the SPIR-V).
   The C values come from volatile operands (no folding by the C compiler).
   Where the device lacks shaderSignedZeroInfNanPreserveFloat32/64 the
   probes over inf, NaN and -0 are its documented exception (skipped). fma
   may round twice on Vulkan (its precision is OpFMul's then OpFAdd's):
   either result passes. */
static void test_map_arithmetic(void) {
    enum { SUB_SELF, MUL_ZERO, ADD_ZERO, ONE_ROUND, MUL_DIV, FMA_ERR, ZERO_MUL, DIV_SELF, ZERO_SUB, MUL_NZERO, PROBES };
    static const char *const maps[2][PROBES] = {
        {"x - x", "x * 0.0f", "x + 0.0f", "(x + 1.0f) - 1.0f", "x * 3.0f / 3.0f", "fma(x, x, -(x*x))", "0.0f * x", "x / x", "0.0f - x", "x * -0.0f"},
        {"x - x", "x * 0.0", "x + 0.0", "(x + 1.0) - 1.0", "x * 3.0 / 3.0", "fma(x, x, -(x*x))", "0.0 * x", "x / x", "0.0 - x", "x * -0.0"}};
    int d, k;
    for (d = 0; d < 2; ++d) {
        const pclr_type t = d ? PCLR_DOUBLE : PCLR_FLOAT;
        const int keeps = d ? g_feat->preserve64 : g_feat->preserve32;
        volatile double one = 1.0, three = 3.0, zero = 0.0, nzero = -0.0, inf = INFINITY;
        double x[PROBES], want[PROBES], twice = 0.0;
        if (!type_ok(t)) { SKIP("map arithmetic in double: no shaderFloat64"); continue; }
        x[SUB_SELF] = x[MUL_ZERO] = x[DIV_SELF] = x[MUL_NZERO] = inf;
        x[ADD_ZERO] = nzero;
        x[ONE_ROUND] = d ? 1e-17 : 1e-8;
        x[MUL_DIV] = d ? DBL_MAX : FLT_MAX;
        x[FMA_ERR] = 1.1;
        x[ZERO_MUL] = -inf;
        x[ZERO_SUB] = zero;
        if (!d) { /* in float: every operation rounds to float */
            volatile float v[PROBES], sq;
            for (k = 0; k < PROBES; ++k) v[k] = (float)x[k];
            sq = v[FMA_ERR] * v[FMA_ERR];
            want[SUB_SELF] = v[SUB_SELF] - v[SUB_SELF];
            want[MUL_ZERO] = v[MUL_ZERO] * (float)zero;
            want[ADD_ZERO] = v[ADD_ZERO] + (float)zero;
            want[ONE_ROUND] = (float)(v[ONE_ROUND] + (float)one) - (float)one;
            want[MUL_DIV] = (float)(v[MUL_DIV] * (float)three) / (float)three;
            want[FMA_ERR] = fmaf(v[FMA_ERR], v[FMA_ERR], -sq);
            twice = (float)(sq - sq);
            want[ZERO_MUL] = (float)zero * v[ZERO_MUL];
            want[DIV_SELF] = v[DIV_SELF] / v[DIV_SELF];
            want[ZERO_SUB] = (float)zero - v[ZERO_SUB];
            want[MUL_NZERO] = v[MUL_NZERO] * (float)nzero;
            for (k = 0; k < PROBES; ++k) x[k] = v[k];
        } else {
            volatile double v[PROBES], sq;
            for (k = 0; k < PROBES; ++k) v[k] = x[k];
            sq = v[FMA_ERR] * v[FMA_ERR];
            want[SUB_SELF] = v[SUB_SELF] - v[SUB_SELF];
            want[MUL_ZERO] = v[MUL_ZERO] * zero;
            want[ADD_ZERO] = v[ADD_ZERO] + zero;
            want[ONE_ROUND] = (v[ONE_ROUND] + one) - one;
            want[MUL_DIV] = v[MUL_DIV] * three / three;
            want[FMA_ERR] = fma(v[FMA_ERR], v[FMA_ERR], -sq);
            twice = sq - sq;
            want[ZERO_MUL] = zero * v[ZERO_MUL];
            want[DIV_SELF] = v[DIV_SELF] / v[DIV_SELF];
            want[ZERO_SUB] = zero - v[ZERO_SUB];
            want[MUL_NZERO] = v[MUL_NZERO] * nzero;
        }
        for (k = 0; k < PROBES; ++k) {
            const size_t es = pclr_type_size(t);
            const int special = k != ONE_ROUND && k != FMA_ERR; /* inf, NaN or -0 on the way */
            unsigned char got[16], w[8], w2[8];
            pclr_config c;
            pclr_result r;
            uint64_t i;
            if (special && !keeps) { SKIP("%s %s: the device does not keep inf, NaN and -0 (its documented exception)", pclr_type_name(t), maps[d][k]); continue; }
            for (i = 0; i < 16; ++i) { /* 16 copies: the kernel's head, whole loads and tail */
                const float f = (float)x[k];
                if (d) memcpy(g_host + i * es, &x[k], es);
                else memcpy(g_host + i * es, &f, es);
            }
            pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, 16 * es);
            memset(&c, 0, sizeof c);
            c.type = t;
            c.op = PCLR_MAX;
            c.map = maps[d][k];
            r = pclr_vk_reduce_map(g_ctx, &c, g_buf, g_buf_size, 1, VK_NULL_HANDLE, 0, 0, 13, NULL, got);
            if (!CHECK(r == PCLR_OK, "map %s (%s): %s (%s)", c.map, pclr_type_name(t), pclr_result_string(r), pclr_vk_last_error(g_ctx))) continue;
            if (d) { memcpy(w, &want[k], 8); memcpy(w2, &twice, 8); }
            else { const float f = (float)want[k], f2 = (float)twice; memcpy(w, &f, 4); memcpy(w2, &f2, 4); }
            {
                double g = 0.0;
                float gf;
                if (d) memcpy(&g, got, 8);
                else { memcpy(&gf, got, 4); g = gf; }
                CHECK(same_float(t, got, w) || (k == FMA_ERR && same_float(t, got, w2)), "map %s over %g (%s): %g, C gives %g", c.map, x[k],
                      pclr_type_name(t), g, want[k]);
            }
        }
    }
}

/* SignedZeroInfNanPreserve goes into a kernel's SPIR-V exactly where the
   device keeps inf, NaN and -0 (a doctored feature stands for a device
   without); a module that has the mode already stays as it is. */
static void test_preserve_mode(void) {
    pclr_vk_features *f = (pclr_vk_features *)g_feat; /* the test's own context: doctored, then restored */
    const int keep32 = f->preserve32, keep64 = f->preserve64;
    int d, k;
    if (pclr__vk_shaderc(g_ctx) != PCLR_OK) { SKIP("preserve mode: no shaderc (%s)", pclr_vk_last_error(g_ctx)); return; }
    for (d = 0; d < 2; ++d) {
        pclr_config c;
        char src[1 << 16];
        uint32_t *words = NULL, *out = NULL, *again = NULL;
        size_t size = 0, out_size = 0, again_size = 0;
        if (d && !g_feat->float64) continue;
        memset(&c, 0, sizeof c);
        c.backend = PCLR_VULKAN;
        c.type = d ? PCLR_DOUBLE : PCLR_FLOAT;
        c.op = PCLR_SUM;
        c.map = "x - x";
        if (!CHECK(pclr_kernel_source(&c, src, sizeof src, NULL) == PCLR_OK, "preserve mode: source") ||
            !CHECK(pclr__vk_compile(&g_ctx->e, &g_ctx->sc, &g_ctx->shaderc, &g_ctx->compiler, src, &words, &size) == PCLR_OK,
                   "preserve mode: compile: %s", pclr_vk_last_error(g_ctx)))
            continue;
        for (k = 0; k < 4; ++k) { /* the features: (32, 64) = (1, 1), (0, 1), (1, 0), (0, 0) */
            size_t i, n;
            int cap = 0, ext = 0, m32 = 0, m64 = 0;
            f->preserve32 = !(k & 1);
            f->preserve64 = !(k & 2) && d;
            if (!CHECK(pclr__vk_preserve(g_ctx, words, size, &out, &out_size) == PCLR_OK, "preserve mode: %s", pclr_vk_last_error(g_ctx))) break;
            if (!f->preserve32 && !f->preserve64) { CHECK(out == NULL, "preserve mode %s, no feature: unchanged", pclr_type_name(c.type)); continue; }
            if (!CHECK(out != NULL, "preserve mode %s (%d, %d): not added", pclr_type_name(c.type), f->preserve32, f->preserve64)) continue;
            n = out_size / 4;
            for (i = 5; i < n && (out[i] >> 16); i += out[i] >> 16) {
                const uint32_t op = out[i] & 0xffffu;
                if (op == 17 && out[i + 1] == 4466) cap = 1;
                if (op == 10 && !memcmp(&out[i + 1], "SPV_KHR_float_controls", 23)) ext = 1;
                if (op == 16 && out[i + 2] == 4461) { m32 |= out[i + 3] == 32; m64 |= out[i + 3] == 64; }
            }
            CHECK(cap && ext && m32 == f->preserve32 && m64 == f->preserve64 && out_size > size && out[0] == 0x07230203u,
                  "preserve mode %s, features (%d, %d): capability %d, extension %d, modes 32 %d, 64 %d", pclr_type_name(c.type), f->preserve32,
                  f->preserve64, cap, ext, m32, m64);
            if (k == 0) { /* once there: left alone */
                CHECK(pclr__vk_preserve(g_ctx, out, out_size, &again, &again_size) == PCLR_OK && again == NULL, "preserve mode: added twice");
                pclr__free(&g_ctx->e, again);
            }
            pclr__free(&g_ctx->e, out);
            out = NULL;
        }
        f->preserve32 = keep32;
        f->preserve64 = keep64;
        pclr__free(&g_ctx->e, words);
    }
}

/* ---- GLSL's double math and fmod against C's libm, one element at a time (n = 1 reduces of max
   at offsets of one buffer: one pipeline a map). exp, exp2, log, log2, pow, sin, cos within
   MATH_ULPS of glibc (inf, NaN and zeros exactly); % bit for bit as fmod / fmodf. sin and cos may
   instead be within 2^-100 of glibc: glibc 2.36's own cos(0x1.6ac5b262ca1ffp+849), a result near
   2^-61, is 8 ulp from the correctly rounded one (mpmath), which the GLSL gives. */
#define MATH_ULPS 4
#define MATH_N 3000 /* inputs a function (PCLR_TEST_QUICK: 1000): the special values, then random ones */
static double g_mx[MATH_N], g_my[MATH_N];

static double bits_double(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
/* uniform in [lo, hi) */
static double uniform(uint64_t *st, double lo, double hi) { return lo + (hi - lo) * (double)(pclr_test_rand(st) >> 11) / 9007199254740992.0; }
/* random bits, the exponent's ends (zeros, subnormals, inf, NaN) often */
static uint64_t some_bits(uint64_t *st) {
    const uint64_t r = pclr_test_rand(st);
    switch (pclr_test_rand(st) % 8) {
    case 0: return r & 0x800fffffffffffffull; /* subnormal or zero */
    case 1: return r | 0x7ff0000000000000ull; /* NaN or inf */
    case 2: return r & 0x8000000000000000ull; /* +-0 */
    default: return r;
    }
}
/* ulps between two finite doubles (their order as integers) */
static double ulps_apart(double a, double b) {
    int64_t i, j;
    memcpy(&i, &a, 8);
    memcpy(&j, &b, 8);
    if (i < 0) i = INT64_MIN - i;
    if (j < 0) j = INT64_MIN - j;
    return i > j ? (double)((uint64_t)i - (uint64_t)j) : (double)((uint64_t)j - (uint64_t)i);
}

static double c_exp(double x) { return exp(x); }
static double c_exp2(double x) { return exp2(x); }
static double c_log(double x) { return log(x); }
static double c_log2(double x) { return log2(x); }
static double c_sin(double x) { return sin(x); }
static double c_cos(double x) { return cos(x); }
static double c_pow(double x, double y) { return pow(x, y); }
static double c_fmod(double x, double y) { return fmod(x, y); }

/* Maps inputs g_mx (and g_my) with `map` on the device, n = 1 at each offset; compares with ref1(x) or ref2(x, y). */
static void check_math(const char *map, pclr_type t, VkBuffer ybuf, int count, double (*ref1)(double), double (*ref2)(double, double)) {
    const size_t es = pclr_type_size(t);
    const int exact = ref2 == c_fmod, trig = ref1 == c_sin || ref1 == c_cos;
    double worst = 0, worst_x = 0;
    int k, fails = 0, near_glibc = 0;
    pclr_config c;
    for (k = 0; k < count; ++k) { /* the inputs, in t */
        if (t == PCLR_FLOAT) { const float fx = (float)g_mx[k], fy = (float)g_my[k]; memcpy(g_host + k * es, &fx, 4); memcpy(g_host + (MATH_N + k) * es, &fy, 4); }
        else { memcpy(g_host + k * es, &g_mx[k], 8); memcpy(g_host + (MATH_N + k) * es, &g_my[k], 8); }
    }
    pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, (size_t)count * es);
    if (ref2) pclr_vk_buffer_write(g_ctx, ybuf, 0, g_host + MATH_N * es, (size_t)count * es);
    memset(&c, 0, sizeof c);
    c.type = t;
    c.y_type = ref2 ? t : (pclr_type)0;
    c.op = PCLR_MAX;
    c.map = map;
    for (k = 0; k < count; ++k) {
        double x, y = 0, want, got, u;
        unsigned char out[16];
        const pclr_result r = pclr_vk_reduce_map(g_ctx, &c, g_buf, g_buf_size, (uint64_t)k, ref2 ? ybuf : VK_NULL_HANDLE, ref2 ? g_buf_size : 0,
                                                 (uint64_t)k, 1, NULL, out);
        if (!CHECK(r == PCLR_OK, "%s: %s (%s)\n%s", map, pclr_result_string(r), pclr_vk_last_error(g_ctx), pclr_vk_build_log(g_ctx))) return;
        if (t == PCLR_FLOAT) { /* float: fmodf */
            float fx, fy, fg, fw;
            memcpy(&fx, g_host + k * es, 4);
            memcpy(&fy, g_host + (MATH_N + k) * es, 4);
            memcpy(&fg, out, 4);
            fw = fmodf(fx, fy);
            x = fx, y = fy, got = fg, want = fw;
            u = (fg != fg && fw != fw) || memcmp(&fg, &fw, 4) == 0 ? 0 : 1e300;
        } else {
            memcpy(&got, out, 8);
            x = g_mx[k], y = g_my[k];
            want = ref2 ? ref2(x, y) : ref1(x);
            if (got != got || want != want) u = got != got && want != want ? 0 : 1e300;
            else if (!isfinite(want) || want == 0 || !isfinite(got) || got == 0 || exact) u = memcmp(&got, &want, 8) == 0 ? 0 : 1e300; /* exactly */
            else u = ulps_apart(got, want);
            if (trig && u > MATH_ULPS && fabs(got - want) <= 0x1p-100) u = 0, ++near_glibc;
        }
        if (u > worst) worst = u, worst_x = x;
        if (u > (exact || t == PCLR_FLOAT ? 0 : MATH_ULPS) && fails++ < 5) {
            char ys[64] = "";
            if (ref2) snprintf(ys, sizeof ys, ", y = %.17g (%a)", y, y);
            CHECK(0, "%s at x = %.17g (%a)%s: got %.17g (%a), C %.17g (%a) [seed %llu]", map, x, x, ys, got, got, want, want, (unsigned long long)g_seed);
        }
    }
    CHECK(fails == 0, "%s: %d of %d inputs off", map, fails, count);
    if (worst < 1e300) printf("  %-9s %-6s %d inputs: at most %.0f ulp from C's (x = %.17g)%s\n", map, pclr_type_name(t), count, worst, worst_x,
                              near_glibc ? ", some within 2^-100 instead" : "");
}

/* Special values first (the issue's: exp(89), log(1e300), exp(-745), DBL_MAX % 3.3, 1e10f % 3.3f), then random ones. */
static void test_double_math(void) {
    static const double sp[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, -2.5, 3.0, 89.0, 1e300, -745.0, -745.1332191019411, -745.14,
                                -708.5, 709.782712893384, 709.7827128933841, 710.0, 1024.0, -1074.0, -1074.5, -1075.0, 1e-310, -1e-310, 4.9406564584124654e-324,
                                2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e22, 1e9, 1e15, 6381956970095103.0 * 0x1p797,
                                1.0000000000000002, 0.99999999999999989, 1e-20, 3.141592653589793, 1.5707963267948966, 0x1.6ac5b262ca1ffp+849};
    const int nsp = (int)(sizeof sp / sizeof sp[0]);
    static const struct { const char *map; double (*ref)(double); int kind; } fns[] = {
        {"exp(x)", c_exp, 0}, {"exp2(x)", c_exp2, 1}, {"log(x)", c_log, 2}, {"log2(x)", c_log2, 2}, {"sin(x)", c_sin, 3}, {"cos(x)", c_cos, 3}};
    uint64_t st = g_seed ^ 0x6d61;
    int f, k, n = g_quick ? 1000 : MATH_N;
    VkBuffer y;
    if (!type_ok(PCLR_DOUBLE)) { SKIP("double math: no shaderFloat64"); return; }
    if (!CHECK(pclr_vk_buffer_create(g_ctx, (size_t)g_buf_size, &y) == PCLR_OK, "y buffer: %s", pclr_vk_last_error(g_ctx))) return;
    for (f = 0; f < (int)(sizeof fns / sizeof fns[0]); ++f) {
        for (k = 0; k < n; ++k) {
            const int kind = fns[f].kind;
            double x;
            if (k < nsp) x = sp[k];
            else if (k % 4 == 0) x = uniform(&st, -1, 1);
            else if (kind == 0) x = uniform(&st, -750, 712); /* exp: the whole range, subnormal results too */
            else if (kind == 1) x = uniform(&st, -1080, 1030);
            else if (kind == 2) x = k % 4 == 1 ? 1 + uniform(&st, -1, 1) * ldexp(1, -(int)(pclr_test_rand(&st) % 53)) : bits_double(pclr_test_rand(&st) >> 1);
            else x = k % 4 == 1 ? uniform(&st, -1e9, 1e9) : bits_double(pclr_test_rand(&st) & 0xffefffffffffffffull); /* any finite: Payne-Hanek too */
            g_mx[k] = x;
            g_my[k] = 0;
        }
        check_math(fns[f].map, PCLR_DOUBLE, y, n, fns[f].ref, NULL);
    }
    /* pow: every pair of special values, then x > 0 with results over the whole range, negative x with integer y */
    for (k = 0; k < n; ++k) {
        double x, yv;
        if (k < 20 * 20) x = sp[k / 20], yv = sp[k % 20];
        else if (k % 3 == 0) x = -uniform(&st, 0, 10), yv = floor(uniform(&st, -300, 300));
        else x = bits_double((pclr_test_rand(&st) >> 2) | 0x1000000000000000ull), yv = uniform(&st, -745, 709) / log(x);
        g_mx[k] = x;
        g_my[k] = yv;
    }
    check_math("pow(x, y)", PCLR_DOUBLE, y, n, NULL, c_pow);
    /* fmod, bit for bit: the issue's, then random bits (all exponents, |y| near |x| or far) */
    for (k = 0; k < n; ++k) {
        double x, yv;
        if (k == 0) x = 1.7976931348623157e308, yv = 3.3;
        else if (k == 1) x = 1e10, yv = 3.3; /* 1e10f % 3.3f in float */
        else if (k < 20 * 20) x = sp[k / 20], yv = sp[k % 20];
        else {
            uint64_t bx = some_bits(&st), by = some_bits(&st);
            if (k % 4 == 0) by = (bx & 0xfff0000000000000ull) - ((pclr_test_rand(&st) % 60) << 52) + (pclr_test_rand(&st) & 0xfffffffffffffull);
            x = bits_double(bx), yv = bits_double(by);
        }
        g_mx[k] = x;
        g_my[k] = yv;
    }
    check_math("x % y", PCLR_DOUBLE, y, n, NULL, c_fmod);
    for (k = 402; k < n; ++k) { /* float: random float bits */
        uint64_t bx = some_bits(&st), by = some_bits(&st);
        float fx, fy;
        uint32_t ux = (uint32_t)(bx >> 32), uy = (uint32_t)(by >> 32);
        if (k % 4 == 0) uy = (ux & 0xff800000u) - ((uint32_t)(pclr_test_rand(&st) % 20) << 23) + (uint32_t)(pclr_test_rand(&st) & 0x7fffffu);
        memcpy(&fx, &ux, 4);
        memcpy(&fy, &uy, 4);
        g_mx[k] = fx;
        g_my[k] = fy;
    }
    check_math("x % y", PCLR_FLOAT, y, n, NULL, c_fmod);
    pclr_vk_buffer_destroy(g_ctx, y);
}

/* The engine's way: record into its own command buffer, submit, read the state back, finalize. */
static void test_record(void) {
    const pclr_vk_api *vk = pclr_vk_get_api(g_ctx);
    VkDevice dev = pclr_vk_get_device(g_ctx);
    VkCommandPoolCreateInfo pi;
    VkCommandBufferAllocateInfo ai;
    VkCommandBufferBeginInfo bi;
    VkSubmitInfo si;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkQueue queue;
    VkBuffer out;
    VkMemoryBarrier mb;
    unsigned char state[256], got[128], want[128];
    pclr_config c, rc;
    uint64_t st = g_seed ^ 0x1234;
    int k;
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = g_feat->queue_family;
    if (!CHECK(vk->CreateCommandPool(dev, &pi, NULL, &pool) == VK_SUCCESS, "vkCreateCommandPool")) return;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    vk->AllocateCommandBuffers(dev, &ai, &cmd);
    vk->GetDeviceQueue(dev, g_feat->queue_family, 0, &queue);
    pclr_vk_buffer_create(g_ctx, 4096, &out);
    fill(PCLR_FLOAT, g_host, 50000, &st);
    pclr_vk_buffer_write(g_ctx, g_buf, 0, g_host, 50000 * 4);
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    vk->BeginCommandBuffer(cmd, &bi);
    /* three reduces in one command buffer: they share the context's scratch */
    for (k = 0; k < 3; ++k) {
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.op = k == 0 ? PCLR_SUM : k == 1 ? PCLR_STATS : PCLR_ARGMAX;
        CHECK(pclr_vk_record(g_ctx, cmd, &c, g_buf, g_buf_size, (uint64_t)k, 49000, out, 8 + 128 * (VkDeviceSize)k) == PCLR_OK,
              "record %d: %s", k, pclr_vk_last_error(g_ctx));
    }
    { /* n = 0 of a map with y at offsets off the vector width: the identity, nothing read (was refused as misaligned) */
        pclr_config m;
        memset(&m, 0, sizeof m);
        m.type = PCLR_FLOAT;
        m.y_type = PCLR_FLOAT;
        m.map = "x * y";
        CHECK(pclr_vk_record_map(g_ctx, cmd, &m, g_buf, g_buf_size, 1, g_buf, g_buf_size, 2, 0, NULL, out, 4) == PCLR_OK,
              "record n = 0 of a map with y: %s", pclr_vk_last_error(g_ctx));
        memset(state, 0xa5, 4);
        pclr_vk_buffer_write(g_ctx, out, 4, state, 4);
    }
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vk->CmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vk->EndCommandBuffer(cmd);
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    CHECK(vk->QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS, "vkQueueSubmit");
    vk->DeviceWaitIdle(dev);
    for (k = 0; k < 3; ++k) {
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.op = k == 0 ? PCLR_SUM : k == 1 ? PCLR_STATS : PCLR_ARGMAX;
        pclr_vk_resolve(g_ctx, &c, &rc);
        pclr_vk_buffer_read(g_ctx, out, 8 + 128 * (size_t)k, state, pclr_state_size(&c));
        CHECK(pclr_finalize(&c, state, got) == PCLR_OK, "finalize");
        pclr_cpu_reduce_config(&rc, g_host + 4 * (size_t)k, 49000, want);
        CHECK(same_result(&rc, got, want), "recorded %s: differs from the CPU reference", pclr_op_name(c.op));
    }
    pclr_vk_buffer_read(g_ctx, out, 4, state, 4);
    CHECK(!memcmp(state, "\0\0\0\0", 4), "recorded n = 0: the sum's identity (%02x%02x%02x%02x)", state[0], state[1], state[2], state[3]);
    CHECK(pclr_vk_record(g_ctx, cmd, &c, g_buf, g_buf_size, 0, 10, out, 6) == PCLR_ERR_MISALIGNED, "out_offset 6 is refused");
    CHECK(pclr_vk_record(g_ctx, VK_NULL_HANDLE, &c, g_buf, g_buf_size, 0, 10, out, 8) == PCLR_ERR_NULL_POINTER, "no command buffer");
    pclr_vk_buffer_destroy(g_ctx, out);
    vk->DestroyCommandPool(dev, pool, NULL);
}

/* A compiler callback: shaderc on the kernel with one line broken, so that the log is a real compiler's. */
static pclr_shaderc_api g_sc;
static void *g_sc_result;
static int broken_compile(void *user, const char *src, size_t len, const uint32_t **code, size_t *bytes, const char **log) {
    static char text[1 << 17];
    void *compiler = g_sc.CompilerInitialize(), *opts = g_sc.OptionsInitialize();
    char *m;
    (void)user;
    *code = NULL;
    *bytes = 0;
    if (len >= sizeof text) len = sizeof text - 1;
    memcpy(text, src, len);
    text[len] = '\0';
    if ((m = strstr(text, "void main()")) != NULL) memcpy(m, "void main(!", 11);
    g_sc.OptionsSetTargetEnv(opts, 0, (1u << 22) | (1u << 12));
    g_sc_result = g_sc.CompileIntoSpv(compiler, text, len, 2, "broken.comp", "main", opts);
    g_sc.OptionsRelease(opts);
    g_sc.CompilerRelease(compiler);
    *log = g_sc.ResultGetErrorMessage(g_sc_result);
    if (g_sc.ResultGetCompilationStatus(g_sc_result) != 0) return 1;
    *code = (const uint32_t *)(const void *)g_sc.ResultGetBytes(g_sc_result);
    *bytes = g_sc.ResultGetLength(g_sc_result);
    return 0;
}
static void broken_release(void *user) {
    (void)user;
    if (g_sc_result) g_sc.ResultRelease(g_sc_result);
    g_sc_result = NULL;
}

static void rm_rf(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) SKIP("could not remove %s", dir);
}
static pclr_result create_with(const char *shaderc, int allow, const char *cache_dir, char *err, size_t cap, pclr_vk_context **ctx) {
    pclr_vk_desc d;
    memset(&d, 0, sizeof d);
    d.shaderc_library = shaderc;
    d.allow_no_compiler = allow;
    d.cache_dir = cache_dir;
    d.no_disk_cache = !cache_dir;
    d.no_tune_file = 1;
    d.error = err;
    d.error_cap = cap;
    err[0] = '\0';
    return pclr_vk_create(&d, ctx);
}
/* Debian 12's libshaderc.so.1 (glslang and SPIRV-Tools left undefined): the cause and what to do. Before any
   context loads a shaderc (a loadable one built around it, PCLR_SHADERC_LIBRARY, loads that file too). */
static void test_debian_shaderc(void) {
    static const char *const debian = "/usr/lib/x86_64-linux-gnu/libshaderc.so.1";
    pclr_vk_context *ctx = NULL;
    char err[1024], text[4096];
    pclr_result r;
    void *h;
    if (create_with("/nonexistent/libshaderc.so.1", 1, NULL, err, sizeof err, &ctx) != PCLR_OK) {
        SKIP("Debian 12's case: no Vulkan device here (%s)", err);
        return;
    }
    pclr_vk_destroy(ctx);
    ctx = NULL;
    h = dlopen(debian, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        SKIP("Debian 12's case: %s loads here", debian);
    } else if (!strstr(dlerror(), "undefined symbol")) {
        SKIP("Debian 12's case: no %s with undefined symbols here", debian);
    } else {
        const char *env = getenv("PCLR_SHADERC_LIBRARY");
        char saved[1024];
        r = create_with(debian, 0, NULL, err, sizeof err, &ctx);
        CHECK(r == PCLR_ERR_NO_DRIVER && !ctx && strstr(err, debian) && strstr(err, "undefined symbol") && strstr(err, "glslang") &&
                  strstr(err, "build/libshaderc_shared.so") && strstr(err, "PCLR_SHADERC_LIBRARY") && strstr(err, "desc.compiler"),
              "Debian 12's libshaderc.so.1 by path: %s", err);
        pclr_vk_destroy(ctx);
        ctx = NULL;
        /* found by its name (no path, no PCLR_SHADERC_LIBRARY) */
        saved[0] = '\0';
        if (env) snprintf(saved, sizeof saved, "%s", env);
        unsetenv("PCLR_SHADERC_LIBRARY");
        r = create_with(NULL, 0, NULL, err, sizeof err, &ctx);
        if (r == PCLR_OK) SKIP("Debian 12's case by name: another shaderc loads (%s)", pclr_vk_describe(ctx, text, sizeof text) ? text : "");
        else CHECK(r == PCLR_ERR_NO_DRIVER && strstr(err, "libshaderc.so.1 is here but does not load (") && strstr(err, "undefined symbol") &&
                       strstr(err, "glslang") && strstr(err, "build/libshaderc_shared.so"), "Debian 12's libshaderc.so.1 by name: %s", err);
        pclr_vk_destroy(ctx);
        ctx = NULL;
        if (env) setenv("PCLR_SHADERC_LIBRARY", saved, 1);
    }
}

/* A Vulkan context whose shaderc does not load: create fails with a sentence that names shaderc and the cause
   (dlerror's text; Debian 12's libshaderc.so.1 with glslang's symbols undefined, and what to do), unless
   desc.allow_no_compiler: then the disk cache's pipelines run and the first compile fails with that sentence. */
static void test_no_shaderc(void) {
    pclr_vk_context *ctx = NULL;
    pclr_desc gd;
    pclr_context *gen = NULL;
    pclr_config c, other;
    char err[1024], text[4096], dir[] = "/tmp/pclr_vk_nosccXXXXXX", notso[sizeof dir + 16];
    pclr_result r;
    FILE *f;
    memset(&c, 0, sizeof c);
    other = c;
    other.type = PCLR_INT;
    other.op = PCLR_MIN;
    CHECK(strstr(pclr_result_string(PCLR_ERR_NO_DRIVER), "shaderc") != NULL, "PCLR_ERR_NO_DRIVER's string names shaderc: %s",
          pclr_result_string(PCLR_ERR_NO_DRIVER));
    /* a device without shaderc (allow_no_compiler): is there a Vulkan device at all? */
    r = create_with("/nonexistent/libshaderc.so.1", 1, NULL, err, sizeof err, &ctx);
    if (r != PCLR_OK) { SKIP("no shaderc tests: no Vulkan device here (%s)", err); return; }
    pclr_vk_describe(ctx, text, sizeof text);
    CHECK(strstr(text, "compiler: none: shaderc did not load") != NULL, "describe says there is no compiler:\n%s", text);
    r = pclr_vk_prepare(ctx, &c);
    CHECK(r == PCLR_ERR_NO_DRIVER && strstr(pclr_vk_last_error(ctx), "no shaderc library: /nonexistent/libshaderc.so.1 (from desc.shaderc_library)"),
          "allow_no_compiler: the first compile says why: %s (%s)", pclr_result_string(r), pclr_vk_last_error(ctx));
    r = pclr_vk_prepare(ctx, &c);
    CHECK(r == PCLR_ERR_NO_DRIVER && strstr(pclr_vk_last_error(ctx), "shaderc"), "and again: %s", pclr_vk_last_error(ctx));
    pclr_vk_destroy(ctx);
    ctx = NULL;
    /* no allow_no_compiler: create fails, naming the library */
    r = create_with("/nonexistent/libshaderc.so.1", 0, NULL, err, sizeof err, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && !ctx && strstr(err, "no shaderc library: /nonexistent/libshaderc.so.1 (from desc.shaderc_library) could not be loaded"),
          "no shaderc: create fails: %s (%s)", pclr_result_string(r), err);
    pclr_vk_destroy(ctx);
    ctx = NULL;
    /* the generic context: vulkan passed over, shaderc named */
    memset(&gd, 0, sizeof gd);
    gd.backends[0] = PCLR_VULKAN;
    gd.shaderc_library = "/nonexistent/libshaderc.so.1";
    gd.no_disk_cache = gd.no_tune_file = 1;
    gd.error = err;
    gd.error_cap = sizeof err;
    r = pclr_create(&gd, &gen);
    CHECK(r == PCLR_ERR_NO_DEVICE && !gen && strstr(err, "vulkan: no shaderc library: /nonexistent/libshaderc.so.1"), "generic, vulkan only: %s (%s)",
          pclr_result_string(r), err);
    pclr_destroy(gen);
    gen = NULL;
    gd.backends[1] = PCLR_CPU;
    if (CHECK(pclr_create(&gd, &gen) == PCLR_OK && pclr_get_backend(gen) == PCLR_CPU, "generic, vulkan then cpu: %s", err)) {
        pclr_describe(gen, text, sizeof text);
        CHECK(strstr(text, "(passed over: vulkan: no shaderc library: /nonexistent/libshaderc.so.1") != NULL, "passed over names shaderc:\n%s", text);
    }
    pclr_destroy(gen);
    gen = NULL;
    /* a file that is not a shared object: dlerror's text in the sentence */
    if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
    snprintf(notso, sizeof notso, "%s/not_elf.so", dir);
    if ((f = fopen(notso, "w")) != NULL) { fputs("not a shared object\n", f); fclose(f); }
    r = create_with(notso, 0, NULL, err, sizeof err, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && !ctx && strstr(err, "could not be loaded: ") && strstr(strstr(err, "could not be loaded: "), notso) &&
              !strstr(err, "Debian"), "a file that is not a shared object: %s", err);
    pclr_vk_destroy(ctx);
    ctx = NULL;
    /* cached pipelines only: a disk cache that a context with shaderc filled */
    if (!g_ctx) { SKIP("cached pipelines without shaderc: no shaderc here to fill the cache"); rm_rf(dir); return; }
    if (CHECK(create_with(NULL, 0, dir, err, sizeof err, &ctx) == PCLR_OK, "a context with shaderc and a cache: %s", err)) {
        CHECK(pclr_vk_prepare(ctx, &c) == PCLR_OK, "the cache filled: %s", pclr_vk_last_error(ctx));
        pclr_vk_destroy(ctx);
        ctx = NULL;
    }
    r = create_with("/nonexistent/libshaderc.so.1", 0, dir, err, sizeof err, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && !ctx, "a full cache without allow_no_compiler still fails at create: %s", pclr_result_string(r));
    pclr_vk_destroy(ctx);
    ctx = NULL;
    if (CHECK(create_with("/nonexistent/libshaderc.so.1", 1, dir, err, sizeof err, &ctx) == PCLR_OK, "allow_no_compiler with a cache: %s", err)) {
        r = pclr_vk_prepare(ctx, &c);
        CHECK(r == PCLR_OK, "the cached pipeline builds without shaderc: %s (%s)", pclr_result_string(r), pclr_vk_last_error(ctx));
        r = pclr_vk_prepare(ctx, &other);
        CHECK(r == PCLR_ERR_NO_DRIVER && strstr(pclr_vk_last_error(ctx), "no shaderc library"), "an uncached one says why: %s (%s)",
              pclr_result_string(r), pclr_vk_last_error(ctx));
        pclr_vk_destroy(ctx);
    }
    rm_rf(dir);
}

static void test_failures(void) {
    pclr_vk_desc d;
    pclr_vk_context *ctx = NULL;
    pclr_config c;
    char err[512], why[512];
    unsigned char got[64];
    pclr_result r;
    memset(&c, 0, sizeof c);
    /* no loader */
    memset(&d, 0, sizeof d);
    d.vulkan_library = "/nonexistent/libvulkan.so.1";
    d.error = err;
    d.error_cap = sizeof err;
    r = pclr_vk_create(&d, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && !ctx && strstr(err, "/nonexistent/libvulkan.so.1"), "a loader that does not load: %s (%s)", pclr_result_string(r), err);
    test_no_shaderc();
    if (!g_ctx) return; /* no device or no shaderc: the rest needs both */
    /* a compile failure with the compiler's log */
    if (pclr_shaderc_load_api(NULL, &g_sc, why, sizeof why) == PCLR_OK) {
        memset(&d, 0, sizeof d);
        d.no_disk_cache = 1;
        d.no_tune_file = 1;
        d.compiler.compile = broken_compile;
        d.compiler.release = broken_release;
        if (CHECK(pclr_vk_create(&d, &ctx) == PCLR_OK, "context with a compiler callback")) {
            r = pclr_vk_reduce(ctx, &c, g_buf, g_buf_size, 0, 10, got);
            CHECK(r == PCLR_ERR_BUILD_FAILED && strstr(pclr_vk_build_log(ctx), "error"), "a kernel that does not compile: %s, log \"%s\"",
                  pclr_result_string(r), pclr_vk_build_log(ctx));
            r = pclr_vk_reduce(ctx, &c, g_buf, g_buf_size, 0, 10, got);
            CHECK(r == PCLR_ERR_BUILD_FAILED, "and again: %s", pclr_result_string(r));
            pclr_vk_destroy(ctx);
        }
    } else {
        SKIP("compile failure: %s", why);
    }
    /* bad buffer ranges and arguments */
    CHECK(pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, g_buf_size / 4 - 5, 6, got) == PCLR_ERR_SIZE_OVERFLOW &&
              strstr(pclr_vk_last_error(g_ctx), "past its end"), "one element past the end: %s", pclr_vk_last_error(g_ctx));
    CHECK(pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, UINT64_MAX - 2, 6, got) == PCLR_ERR_SIZE_OVERFLOW, "offset + n overflow");
    CHECK(pclr_vk_reduce(g_ctx, &c, VK_NULL_HANDLE, 0, 0, 5, got) == PCLR_ERR_NULL_POINTER, "no buffer with n = 5");
    CHECK(pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, 0, 5, NULL) == PCLR_ERR_NULL_POINTER, "no result pointer");
    CHECK(pclr_vk_reduce(g_ctx, NULL, g_buf, g_buf_size, 0, 5, got) == PCLR_ERR_NULL_POINTER, "no config");
    {
        float zero = -1.0f;
        CHECK(pclr_vk_reduce(g_ctx, &c, VK_NULL_HANDLE, 0, 0, 0, &zero) == PCLR_OK && zero == 0.0f, "n = 0 without a buffer: the identity");
    }
    c.accumulate = PCLR_EXACT; /* (tests/test_exact.c runs them; here: the shuffle variant is refused) */
    c.variant = PCLR_VARIANT_SHUFFLE;
    r = pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, 0, 5, got);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strstr(pclr_vk_last_error(g_ctx), "shuffle"), "exact sums' shuffle variant: %s",
          pclr_vk_last_error(g_ctx));
    c.variant = PCLR_VARIANT_DEFAULT;
    c.accumulate = PCLR_NATIVE;
    c.backend = PCLR_CUDA;
    CHECK(pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, 0, 5, got) == PCLR_ERR_UNSUPPORTED_COMBINATION, "a cuda kernel on Vulkan");
    c.backend = PCLR_BACKEND_AUTO;
    c.type = PCLR_UINT8;
    c.vector_width = 1;
    r = pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, 0, 5, got);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strstr(pclr_vk_last_error(g_ctx), "4, 8 or 16 bytes"), "1-byte loads: %s", pclr_vk_last_error(g_ctx));
    /* NULL contexts */
    CHECK(pclr_vk_reduce(NULL, &c, g_buf, g_buf_size, 0, 5, got) == PCLR_ERR_INVALID_CONTEXT, "NULL context");
    CHECK(!strcmp(pclr_vk_last_error(NULL), "no context (NULL)") && !strcmp(pclr_vk_build_log(NULL), ""), "NULL context's sentences");
    CHECK(pclr_vk_create(NULL, NULL) == PCLR_ERR_NULL_POINTER, "create without out");
    /* the context still works */
    memset(&c, 0, sizeof c);
    CHECK(pclr_vk_reduce(g_ctx, &c, g_buf, g_buf_size, 0, 5, got) == PCLR_OK, "usable after failures: %s", pclr_vk_last_error(g_ctx));
}

/* The generic context on Vulkan (listed: auto never picks it), its buffers, and the disk cache across contexts. */
/* The device numbering (pclr_vk_desc's rule): 0 = the best, k > 0 = device k - 1 as pclr_vk_list_devices
   numbers them, a zero desc the best like a NULL one; the deprecated device_index (0-based) still picks the
   same device where device_number is 0 and it is > 0; device_number wins over it. */
static pclr_result vk_open(int number, int index, char *name, size_t cap, char *err, size_t err_cap) {
    pclr_vk_desc d;
    pclr_vk_context *ctx = NULL;
    pclr_result r;
    memset(&d, 0, sizeof d);
    d.device_number = number;
    d.device_index = index;
    d.no_disk_cache = 1;
    d.no_tune_file = 1;
    d.error = err;
    d.error_cap = err_cap;
    err[0] = name[0] = '\0';
    if ((r = pclr_vk_create(&d, &ctx)) == PCLR_OK) snprintf(name, cap, "%s", pclr_vk_get_features(ctx)->device_name);
    pclr_vk_destroy(ctx);
    return r;
}

static void test_device_numbers(void) {
    char list[8192], line[300], name[256], err[512], best[256];
    const char *at;
    int count = 0, k;
    pclr_vk_context *ctx = NULL;
    pclr_result r;
    if (!CHECK(pclr_vk_list_devices(NULL, list, sizeof list, NULL, &count) == PCLR_OK && count > 0, "list devices (%d)", count)) return;
    CHECK(vk_open(0, 0, best, sizeof best, err, sizeof err) == PCLR_OK && !strcmp(best, g_feat->device_name),
          "a zero desc takes the best device: %s (%s)", best, err);
    if (CHECK(pclr_vk_create(NULL, &ctx) == PCLR_OK, "a NULL desc"))
        CHECK(!strcmp(pclr_vk_get_features(ctx)->device_name, best), "a NULL desc takes the same device: %s", pclr_vk_get_features(ctx)->device_name);
    pclr_vk_destroy(ctx);
    CHECK(vk_open(0, -1, name, sizeof name, err, sizeof err) == PCLR_OK && !strcmp(name, best), "device_index -1 (deprecated): the best: %s", name);
    for (k = 1, at = list; k <= count && at; ++k, at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL) {
        char want[64];
        snprintf(want, sizeof want, "%d: ", k - 1);
        snprintf(line, sizeof line, "%.*s", (int)(strchr(at, '\n') ? (size_t)(strchr(at, '\n') - at) : strlen(at)), at);
        r = vk_open(k, 0, name, sizeof name, err, sizeof err);
        CHECK(r == PCLR_OK && !strncmp(line, want, strlen(want)) && !strncmp(line + strlen(want), name, strlen(name)),
              "device_number %d is list line \"%s\": %s (%s)", k, line, name, err);
        if (k > 1) { /* the deprecated spelling of the same device */
            char old[256];
            r = vk_open(0, k - 1, old, sizeof old, err, sizeof err);
            CHECK(r == PCLR_OK && !strcmp(old, name), "device_index %d (deprecated) = device_number %d: %s / %s (%s)", k - 1, k, old, name, err);
        }
    }
    if (count == 1) printf("one Vulkan device: device_index > 0 has no device to pick here (its out-of-range case runs)\n");
    r = vk_open(0, count, name, sizeof name, err, sizeof err);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(err, "deprecated"), "device_index %d (deprecated) past the list: %s (%s)", count, pclr_result_string(r), err);
    r = vk_open(1, count, name, sizeof name, err, sizeof err);
    CHECK(r == PCLR_OK, "device_number wins over device_index: %s (%s)", pclr_result_string(r), err);
    snprintf(line, sizeof line, "no Vulkan device %d (device number %d; there are %d", count, count + 1, count);
    r = vk_open(count + 1, 0, name, sizeof name, err, sizeof err);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(err, line), "device_number %d past the list: %s (%s)", count + 1, pclr_result_string(r), err);
    r = vk_open(-1, 0, name, sizeof name, err, sizeof err);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(err, "is not a device"), "device_number -1: %s (%s)", pclr_result_string(r), err);
    { /* the generic context: pclr_desc.device, the same numbering */
        pclr_desc g;
        pclr_context *gc = NULL;
        memset(&g, 0, sizeof g);
        g.backends[0] = PCLR_VULKAN;
        g.no_disk_cache = g.no_tune_file = 1;
        g.device = 1;
        r = pclr_create(&g, &gc);
        vk_open(1, 0, name, sizeof name, err, sizeof err);
        CHECK(r == PCLR_OK && !strcmp(pclr_device_name(gc), name), "pclr_desc.device 1 = device_number 1: %s", pclr_device_name(gc));
        pclr_destroy(gc);
    }
}

static void test_generic_and_cache(void) {
    pclr_desc d;
    pclr_context *ctx;
    pclr_buffer *b;
    pclr_config c;
    pclr_input in;
    char dir[] = "/tmp/pclr_vk_cacheXXXXXX", text[4096];
    float data[1001], sum = 0.0f, want = 0.0f;
    int i, round;
    for (i = 0; i < 1001; ++i) { data[i] = (float)(i % 9) * 0.25f; if (i >= 1) want += data[i]; }
    if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
    for (round = 0; round < 2; ++round) {
        memset(&d, 0, sizeof d);
        d.backends[0] = PCLR_VULKAN;
        d.cache_dir = dir;
        d.no_tune_file = 1;
        if (!CHECK(pclr_create(&d, &ctx) == PCLR_OK && pclr_get_backend(ctx) == PCLR_VULKAN, "generic context on Vulkan")) return;
        CHECK(pclr_context_vk(ctx) != NULL, "pclr_context_vk");
        pclr_buffer_create(ctx, sizeof data, &b);
        CHECK(pclr_buffer_vk(ctx, b) != VK_NULL_HANDLE, "pclr_buffer_vk");
        pclr_buffer_write(ctx, b, 0, data, sizeof data);
        memset(&c, 0, sizeof c);
        memset(&in, 0, sizeof in);
        in.x = b;
        in.x_offset = 1;
        in.n = 1000;
        CHECK(pclr_reduce(ctx, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == want, "generic reduce: %g want %g (%s)", sum, want,
              pclr_last_error(ctx));
        {
            float back[4];
            CHECK(pclr_buffer_read(ctx, b, 4, back, sizeof back) == PCLR_OK && !memcmp(back, data + 1, sizeof back), "buffer read back");
        }
        pclr_describe(ctx, text, sizeof text);
        CHECK(strstr(text, round == 0 ? "(0 loaded, 1 stored)" : "(1 loaded, 0 stored)") != NULL, "disk cache round %d:\n%s", round, text);
        pclr_buffer_destroy(ctx, b);
        pclr_destroy(ctx);
    }
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) SKIP("could not remove %s", dir);
    }
}

/* Red team round 3: a size that rounds to 0 (SIZE_MAX + 15 wraps: it crashed in the driver) and a
   buffer of another context (a CPU buffer given to a Vulkan context crashed). */
static void test_sizes_and_owners(void) {
    VkBuffer b = VK_NULL_HANDLE;
    pclr_desc d;
    pclr_context *vk = NULL, *cpu = NULL;
    pclr_buffer *mine = NULL, *theirs = NULL, *huge = NULL;
    pclr_config c;
    pclr_input in;
    float data[64], sum = 0.0f;
    pclr_result r;
    int i;
    for (i = 0; i < 64; ++i) data[i] = (float)i;
    memset(&in, 0, sizeof in);
    in.n = 64;
    r = pclr_vk_buffer_create(g_ctx, SIZE_MAX, &b);
    CHECK(r == PCLR_ERR_OUT_OF_MEMORY && b == VK_NULL_HANDLE, "pclr_vk_buffer_create(SIZE_MAX): %s (%s)", pclr_result_string(r), pclr_vk_last_error(g_ctx));
    r = pclr_vk_buffer_create(g_ctx, SIZE_MAX - 8, &b);
    CHECK(r == PCLR_ERR_OUT_OF_MEMORY && b == VK_NULL_HANDLE, "pclr_vk_buffer_create(SIZE_MAX - 8): %s", pclr_result_string(r));
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_VULKAN;
    d.no_tune_file = 1;
    if (!CHECK(pclr_create(&d, &vk) == PCLR_OK, "generic Vulkan context")) return;
    d.backends[0] = PCLR_CPU;
    CHECK(pclr_create(&d, &cpu) == PCLR_OK, "generic CPU context");
    CHECK(pclr_buffer_create(vk, SIZE_MAX, &huge) == PCLR_ERR_OUT_OF_MEMORY && !huge, "generic Vulkan buffer of SIZE_MAX bytes: %s", pclr_last_error(vk));
    CHECK(pclr_buffer_create(vk, sizeof data, &mine) == PCLR_OK && pclr_buffer_write(vk, mine, 0, data, sizeof data) == PCLR_OK, "a Vulkan buffer");
    CHECK(pclr_buffer_create(cpu, sizeof data, &theirs) == PCLR_OK && pclr_buffer_write(cpu, theirs, 0, data, sizeof data) == PCLR_OK, "a CPU buffer");
    memset(&c, 0, sizeof c);
    in.x = theirs;
    r = pclr_reduce(vk, &c, &in, &sum, sizeof sum);
    CHECK(r == PCLR_ERR_INVALID_ARGUMENT && strstr(pclr_last_error(vk), "another context"), "a CPU buffer given to a Vulkan context: %s (%s)",
          pclr_result_string(r), pclr_last_error(vk));
    CHECK(pclr_buffer_vk(vk, theirs) == VK_NULL_HANDLE, "pclr_buffer_vk of a CPU buffer: none");
    in.x = mine;
    r = pclr_reduce(cpu, &c, &in, &sum, sizeof sum);
    CHECK(r == PCLR_ERR_INVALID_ARGUMENT, "a Vulkan buffer given to a CPU context: %s (%s)", pclr_result_string(r), pclr_last_error(cpu));
    CHECK(pclr_reduce(vk, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == 2016.0f, "the Vulkan context still reduces its own: %g", (double)sum);
    pclr_buffer_destroy(vk, mine);
    pclr_buffer_destroy(cpu, theirs);
    pclr_destroy(cpu);
    pclr_destroy(vk);
}

/* The generic context's own verbs on Vulkan: pclr_vk_buffer around a program's VkBuffer (one the context has
   no record of: made here with the backend's own helper, host-visible, filled directly), pclr_reduce on it,
   pclr_reduce_async recorded into the test's command buffer (sync.vulkan_commands) into a states buffer,
   each finish (the partials' two launches, the atomic one), and the refusals: no command buffer, a size
   Vulkan cannot tell, a program's buffer pclr_buffer_write cannot reach, another backend's context. */
/* The native objects (pclr_vk_get_native), and a second generic context on the first one's instance,
   device and queue (desc.vulkan: the program's own objects), which reduces in its own buffers. */
static void test_native_adopt(void) {
    enum { N = 1000 };
    uint32_t host[N], sum = 0, want = 0;
    pclr_desc d;
    pclr_vk_desc own;
    pclr_context *ctx = NULL, *mine = NULL;
    pclr_vk_native nat, got;
    pclr_buffer *buf = NULL;
    pclr_input in;
    pclr_config c;
    uint64_t st = g_seed ^ 0x77;
    int i;
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_VULKAN;
    d.no_disk_cache = d.no_tune_file = 1;
    if (!CHECK(pclr_create(&d, &ctx) == PCLR_OK, "generic Vulkan context")) return;
    CHECK(pclr_vk_get_native(ctx, &nat) == PCLR_OK && nat.instance && nat.physical_device && nat.device && nat.queue && nat.api &&
          nat.features, "pclr_vk_get_native: %s", pclr_last_error(ctx));
    CHECK(pclr_vk_get_native(NULL, &got) == PCLR_ERR_INVALID_CONTEXT, "pclr_vk_get_native(NULL)");
    memset(&own, 0, sizeof own);
    own.instance = nat.instance;
    own.physical_device = nat.physical_device;
    own.device = nat.device;
    own.queue_family = nat.queue_family;
    own.queue = nat.queue;
    d.vulkan = &own;
    if (CHECK(pclr_create(&d, &mine) == PCLR_OK, "pclr_create with desc.vulkan")) {
        CHECK(pclr_vk_get_native(mine, &got) == PCLR_OK && got.device == nat.device && got.queue == nat.queue, "the program's objects are used");
        for (i = 0; i < N; ++i) {
            host[i] = (uint32_t)(pclr_test_rand(&st) & 0xffffff);
            want += host[i];
        }
        memset(&c, 0, sizeof c);
        c.type = PCLR_UINT;
        memset(&in, 0, sizeof in);
        if (CHECK(pclr_buffer_create(mine, sizeof host, &buf) == PCLR_OK && pclr_buffer_write(mine, buf, 0, host, sizeof host) == PCLR_OK,
                  "a buffer of the adopting context")) {
            in.x = buf;
            in.n = N;
            CHECK(pclr_reduce(mine, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == want, "the adopting context reduces: %u, want %u", sum, want);
        }
        pclr_buffer_destroy(mine, buf);
        pclr_destroy(mine); /* (the objects are the first context's: they stay) */
        in.x = NULL;
        in.n = 0;
        CHECK(pclr_reduce(ctx, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == 0, "the first context still works");
    }
    pclr_destroy(ctx);
}

static void test_generic_async(void) {
    enum { N = 50000 };
    static float host[N];
    pclr_desc d;
    pclr_context *ctx = NULL, *cpu = NULL;
    pclr_vk_context *vc;
    const pclr_vk_api *vk;
    VkDevice dev;
    pclr__vk_mem foreign;
    pclr_buffer xb, sb, tmp, *made = NULL;
    pclr_input in;
    pclr_sync sync;
    pclr_config c, rc;
    VkCommandPoolCreateInfo pi;
    VkCommandBufferAllocateInfo ai;
    VkCommandBufferBeginInfo bi;
    VkSubmitInfo si;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkQueue queue;
    VkMemoryBarrier mb;
    unsigned char state[64], got[64], want[64];
    uint64_t st = g_seed ^ 0x5151;
    float sum = 0.0f;
    uint64_t at[8];
    pclr_result r;
    int k;
    static const struct { pclr_op op; pclr_finish finish; pclr_type type; } runs[] = {
        {PCLR_SUM, PCLR_FINISH_DEFAULT, PCLR_FLOAT}, {PCLR_STATS, PCLR_FINISH_DEFAULT, PCLR_FLOAT},
        {PCLR_SUM, PCLR_FINISH_PARTIALS, PCLR_FLOAT}, {PCLR_MAX, PCLR_FINISH_ATOMIC, PCLR_INT}, {PCLR_ARGMIN, PCLR_FINISH_DEFAULT, PCLR_FLOAT}};
    const int nruns = (int)(sizeof runs / sizeof runs[0]);
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_VULKAN;
    d.no_disk_cache = d.no_tune_file = 1;
    if (!CHECK(pclr_create(&d, &ctx) == PCLR_OK, "generic Vulkan context")) return;
    vc = pclr_context_vk(ctx);
    vk = pclr_vk_get_api(vc);
    dev = pclr_vk_get_device(vc);
    fill(PCLR_FLOAT, host, N, &st);
    /* a program's VkBuffer: host-visible memory the context keeps no record of */
    if (!CHECK(pclr__vk_mem_create(vc, sizeof host, 1, &foreign) == PCLR_OK && foreign.mapped, "a program's VkBuffer: %s", pclr_last_error(ctx))) {
        pclr_destroy(ctx);
        return;
    }
    memcpy(foreign.mapped, host, sizeof host);
    r = pclr_vk_buffer(ctx, foreign.buffer, 0, &xb);
    CHECK(r == PCLR_ERR_INVALID_ARGUMENT && strstr(pclr_last_error(ctx), "cannot tell"), "pclr_vk_buffer of bytes 0 on a program's VkBuffer: %s (%s)",
          pclr_result_string(r), pclr_last_error(ctx));
    r = pclr_vk_buffer(ctx, VK_NULL_HANDLE, 16, &xb);
    CHECK(r == PCLR_ERR_NULL_POINTER, "pclr_vk_buffer of VK_NULL_HANDLE: %s (%s)", pclr_result_string(r), pclr_last_error(ctx));
    CHECK(pclr_vk_buffer(NULL, foreign.buffer, 16, &xb) == PCLR_ERR_INVALID_CONTEXT, "pclr_vk_buffer of a NULL context");
    d.backends[0] = PCLR_CPU;
    if (pclr_create(&d, &cpu) == PCLR_OK) {
        r = pclr_vk_buffer(cpu, foreign.buffer, 16, &tmp);
        CHECK(r == PCLR_ERR_INVALID_ARGUMENT && strstr(pclr_last_error(cpu), "pclr_vk_buffer"), "pclr_vk_buffer on a CPU context: %s (%s)",
              pclr_result_string(r), pclr_last_error(cpu));
        pclr_destroy(cpu);
    }
    if (!CHECK(pclr_vk_buffer(ctx, foreign.buffer, sizeof host, &xb) == PCLR_OK && xb.bytes == sizeof host && xb.owner == ctx,
               "pclr_vk_buffer: %s", pclr_last_error(ctx)))
        goto done;
    CHECK(pclr_buffer_vk(ctx, &xb) == foreign.buffer, "pclr_buffer_vk of a wrapped VkBuffer is that VkBuffer");
    r = pclr_buffer_write(ctx, &xb, 0, host, 16);
    CHECK(r == PCLR_ERR_INVALID_ARGUMENT && strstr(pclr_last_error(ctx), "pclr_vk_buffer"), "pclr_buffer_write to a program's VkBuffer: %s (%s)",
          pclr_result_string(r), pclr_last_error(ctx));
    /* blocking on the program's buffer */
    memset(&c, 0, sizeof c);
    memset(&in, 0, sizeof in);
    in.x = &xb;
    in.x_offset = 3;
    in.n = N - 7;
    r = pclr_reduce(ctx, &c, &in, &sum, sizeof sum);
    pclr_resolve(ctx, &c, in.n, &rc);
    pclr_cpu_reduce_config(&rc, host + 3, in.n, want);
    CHECK(r == PCLR_OK && same_result(&rc, &sum, want), "pclr_reduce of a program's VkBuffer: %s (%s)", pclr_result_string(r), pclr_last_error(ctx));
    in.n = N;
    r = pclr_reduce(ctx, &c, &in, &sum, sizeof sum);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "past the end of a program's VkBuffer: %s (%s)", pclr_result_string(r), pclr_last_error(ctx));
    /* a buffer of pclr_buffer_create, wrapped again with bytes 0: its size */
    if (!CHECK(pclr_buffer_create(ctx, 1000, &made) == PCLR_OK, "pclr_buffer_create: %s", pclr_last_error(ctx))) goto done;
    CHECK(pclr_vk_buffer(ctx, pclr_buffer_vk(ctx, made), 0, &tmp) == PCLR_OK && tmp.bytes == 1000 && !tmp.made,
          "pclr_vk_buffer of bytes 0 on the context's own buffer: %llu bytes (%s)", (unsigned long long)tmp.bytes, pclr_last_error(ctx));
    /* asynchronous, into the test's command buffer */
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = pclr_vk_get_features(vc)->queue_family;
    if (!CHECK(vk->CreateCommandPool(dev, &pi, NULL, &pool) == VK_SUCCESS, "vkCreateCommandPool")) goto done;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    vk->AllocateCommandBuffers(dev, &ai, &cmd);
    vk->GetDeviceQueue(dev, pclr_vk_get_features(vc)->queue_family, 0, &queue);
    CHECK(pclr_vk_buffer(ctx, pclr_buffer_vk(ctx, made), 0, &sb) == PCLR_OK, "the states buffer: %s", pclr_last_error(ctx));
    memset(&sync, 0, sizeof sync);
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    vk->BeginCommandBuffer(cmd, &bi);
    memset(&c, 0, sizeof c);
    in.n = 100;
    r = pclr_reduce_async(ctx, &c, &in, &sb, 0, NULL);
    CHECK(r == PCLR_ERR_NULL_POINTER && strstr(pclr_last_error(ctx), "vulkan_commands"), "pclr_reduce_async without sync: %s (%s)",
          pclr_result_string(r), pclr_last_error(ctx));
    r = pclr_reduce_async(ctx, &c, &in, &sb, 0, &sync);
    CHECK(r == PCLR_ERR_NULL_POINTER && strstr(pclr_last_error(ctx), "vulkan_commands"), "pclr_reduce_async with no command buffer: %s (%s)",
          pclr_result_string(r), pclr_last_error(ctx));
    CHECK(pclr_reduce(ctx, &c, &in, &sum, sizeof sum) == PCLR_OK, "a blocking reduce after them: %s", pclr_last_error(ctx));
    sync.vulkan_commands = (void *)cmd;
    for (k = 0; k < nruns; ++k) { /* the states one after another: state k at states[2 k] (64-byte steps) */
        memset(&c, 0, sizeof c);
        c.type = runs[k].type;
        c.op = runs[k].op;
        c.finish = runs[k].finish;
        in.x_offset = (uint64_t)k;
        in.n = N - 8;
        at[k] = (64 * (uint64_t)k + pclr_state_size(&c) - 1) / pclr_state_size(&c); /* (an int max reads the floats' bits) */
        r = pclr_reduce_async(ctx, &c, &in, &sb, at[k], &sync);
        CHECK(r == PCLR_OK, "pclr_reduce_async %s %s %s: %s", pclr_type_name(c.type), pclr_op_name(c.op), pclr_finish_name(c.finish),
              pclr_last_error(ctx));
    }
    memset(&c, 0, sizeof c); /* rows, recorded: 4 rows of 10000 elements 12000 apart, their states at byte 800 */
    c.layout = PCLR_LAYOUT_ROWS;
    c.rows = 4; c.cols = 10000; c.pitch = 12000;
    in.x_offset = 0;
    in.n = 0;
    CHECK(pclr_reduce_async(ctx, &c, &in, &sb, 800 / 4, &sync) == PCLR_OK, "pclr_reduce_async of rows: %s", pclr_last_error(ctx));
    memset(&c, 0, sizeof c);
    in.n = 0;
    CHECK(pclr_reduce_async(ctx, &c, &in, &sb, 15 * 64 / 4, &sync) == PCLR_OK, "pclr_reduce_async of n = 0: %s", pclr_last_error(ctx));
    r = pclr_reduce_async(ctx, &c, &in, &sb, 1000 / 4, &sync);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "a state past the states buffer's end: %s (%s)", pclr_result_string(r), pclr_last_error(ctx));
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    vk->CmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                           NULL, 0, NULL);
    vk->EndCommandBuffer(cmd);
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    CHECK(vk->QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS, "vkQueueSubmit");
    vk->DeviceWaitIdle(dev);
    for (k = 0; k < nruns; ++k) {
        memset(&c, 0, sizeof c);
        c.type = runs[k].type;
        c.op = runs[k].op;
        c.finish = runs[k].finish;
        pclr_resolve(ctx, &c, N - 8, &rc);
        pclr_buffer_read(ctx, made, (size_t)at[k] * pclr_state_size(&c), state, pclr_state_size(&c));
        CHECK(pclr_finalize(&c, state, got) == PCLR_OK, "finalize");
        pclr_cpu_reduce_config(&rc, host + k, N - 8, want);
        CHECK(same_result(&rc, got, want), "pclr_reduce_async %s %s %s: differs from the CPU reference", pclr_type_name(c.type),
              pclr_op_name(c.op), pclr_finish_name(rc.finish));
    }
    pclr_buffer_read(ctx, made, 15 * 64, &sum, 4);
    CHECK(sum == 0.0f, "n = 0: the identity's state (%g)", (double)sum);
    {
        float rows_got[4], rows_want[4];
        memset(&c, 0, sizeof c);
        c.layout = PCLR_LAYOUT_ROWS;
        c.rows = 4; c.cols = 10000; c.pitch = 12000;
        pclr_buffer_read(ctx, made, 800, rows_got, sizeof rows_got);
        CHECK(pclr_cpu_reduce_layout(&c, host, NULL, NULL, 0, NULL, rows_want) == PCLR_OK && !memcmp(rows_got, rows_want, sizeof rows_got),
              "pclr_reduce_async of rows: %g %g %g %g, not %g %g %g %g", (double)rows_got[0], (double)rows_got[1], (double)rows_got[2],
              (double)rows_got[3], (double)rows_want[0], (double)rows_want[1], (double)rows_want[2], (double)rows_want[3]);
    }
    vk->DestroyCommandPool(dev, pool, NULL);
done:
    pclr_buffer_destroy(ctx, made);
    pclr__vk_mem_free(vc, &foreign);
    pclr_destroy(ctx);
}

static void test_tune(void) {
    pclr_tune_entry out[PCLR_TUNE_CLASSES];
    pclr_tune_options o;
    size_t count = 0;
    pclr_result r;
    memset(&o, 0, sizeof o);
    o.max_n = 1u << 12;
    r = pclr_vk_tune(g_ctx, PCLR_FLOAT, PCLR_SUM, &o, out, PCLR_TUNE_CLASSES, &count);
    if (r == PCLR_ERR_UNSUPPORTED_BY_DEVICE) { SKIP("tune: %s", pclr_vk_last_error(g_ctx)); return; }
    CHECK(r == PCLR_OK && count >= 1 && out[0].backend == PCLR_VULKAN && out[0].gbps > 0, "tune: %s, %lu entries", pclr_result_string(r),
          (unsigned long)count);
}

int main(void) {
    pclr_vk_desc d;
    char err[512];
    pclr_result r;
    g_quick = getenv("PCLR_TEST_QUICK") && atoi(getenv("PCLR_TEST_QUICK"));
    {
        const char *env = getenv("PCLR_TEST_SEED");
        g_seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    }
    printf("test_vulkan: seed %llu (PCLR_TEST_SEED=%llu reproduces it)\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    memset(&d, 0, sizeof d); /* device_number 0: the best device */
    d.no_tune_file = 1;
    d.no_disk_cache = 1;
    d.error = err;
    d.error_cap = sizeof err;
    test_debian_shaderc(); /* first: no shaderc loaded yet */
    if ((r = pclr_vk_create(&d, &g_ctx)) != PCLR_OK) {
        if (r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE || r == PCLR_ERR_UNSUPPORTED_BY_DEVICE) {
            SKIP("no Vulkan device or no shaderc here: %s", err);
            test_failures(); /* the paths that need none still run */
            return pclr_test_summary("test_vulkan");
        }
        CHECK(0, "pclr_vk_create: %s (%s)", pclr_result_string(r), err);
        return pclr_test_summary("test_vulkan");
    }
    g_feat = pclr_vk_get_features(g_ctx);
    printf("device: %s (subgroup %u, fp64 %d, inf/NaN/-0 kept: float %d, double %d)\n", g_feat->device_name, g_feat->subgroup_size,
           g_feat->float64, g_feat->preserve32, g_feat->preserve64);
    if (!CHECK(pclr_vk_buffer_create(g_ctx, (size_t)g_buf_size, &g_buf) == PCLR_OK, "buffer: %s", pclr_vk_last_error(g_ctx)))
        return pclr_test_summary("test_vulkan");
    if (!getenv("PCLR_TEST_SKIP_MATRIX")) test_matrix();
    if (!getenv("PCLR_TEST_SKIP_MATRIX")) test_nan();
    test_maps();
    test_map_arithmetic();
    test_preserve_mode();
    test_double_math();
    test_record();
    test_failures();
    test_device_numbers();
    test_generic_and_cache();
    test_sizes_and_owners();
    test_generic_async();
    test_native_adopt();
    if (!g_quick) test_tune();
    pclr_vk_buffer_destroy(g_ctx, g_buf);
    pclr_vk_destroy(g_ctx);
    return pclr_test_summary("test_vulkan");
}
