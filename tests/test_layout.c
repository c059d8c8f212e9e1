/* Rows, columns and segments (pclr_config.layout): validation, the planner's
   strategies, the CPU reference against a direct loop, and every backend
   that works here (PoCL in CI; CUDA with -DPCLR_TEST_CUDA; Vulkan, lavapipe in CI, with
   -DPCLR_TEST_VULKAN) against the CPU
   reference: shapes 0 x n, n x 0, 1 x n, n x 1, 3 x 5 with pitch 8, primes,
   short rows by the hundred thousand, long shared rows, empty segments, one
   segment of everything, refused offsets; every op on float and int, sums
   and argmax on every width, each strategy forced through the lanes knob,
   maps with y and parameters. Float data are multiples of 1/4, so that
   sums are exact in any order and compared bit for bit.
   --nvrtc-only: compiles the CUDA variants with NVRTC (no device needed).
   The tuner on one rows shape (GPUs: and one of columns), its entry applied
   to that class only. PCLR_TEST_QUICK=1: fewer shapes, rows tuned only;
   PCLR_TEST_NO_TUNE=1: no tuning. PCLR_TEST_SEED. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#include "../pclreduce_cuda.h"
#endif
#ifdef PCLR_TEST_VULKAN
#define PCLREDUCE_VULKAN
#include "../pclreduce_vk.h"
#endif
#include "../pclreduce.h"
#include "../examples/pclr_args.h"
#include "pclr_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int quick = 0;

/* Values that every order sums exactly: multiples of 1/4 in [-8, 8]; integers: random bits. */
static void fill(pclr_type t, void *data, uint64_t n, uint64_t seed) {
    uint64_t i, st = seed;
    pclr_args_fill_random(t, data, n, seed);
    for (i = 0; i < n; ++i) {
        const float v = (float)((int)(pclr_test_rand(&st) % 65) - 32) / 4.0f;
        if (t == PCLR_FLOAT) ((float *)data)[i] = v;
        else if (t == PCLR_DOUBLE) ((double *)data)[i] = v;
        else if (t == PCLR_HALF) ((uint16_t *)data)[i] = pclr_args_float_to_half(v);
    }
}

/* Floats for a product: +-1, and +-2 or +-0.5 once in 4096, so that every partial product is a power of
   two well inside the range and the product is the same in any order (the backends multiply in trees). */
static void fill_prod(float *data, uint64_t n, uint64_t seed) {
    uint64_t i, st = seed;
    for (i = 0; i < n; ++i) {
        const uint64_t r = pclr_test_rand(&st);
        const float m = r % 4096 == 0 ? 2.0f : r % 4096 == 1 ? 0.5f : 1.0f;
        data[i] = (r >> 20) & 1 ? -m : m;
    }
}

/* got (from a backend) against ref (the CPU reference): bit for bit, except stats' moments. */
static int same_result(const pclr_config *c, const void *got, const void *ref) {
    if (c->op == PCLR_STATS) {
        const pclr_stats_result *g = (const pclr_stats_result *)got, *r = (const pclr_stats_result *)ref;
        const double rel = 1e-4 + 4e-8 * (double)r->count; /* float moments: n eps for a lane's run */
        const double tol = rel * (fabs(r->var) + 1);
        if (g->count != r->count || memcmp(&g->sum, &r->sum, 8) || memcmp(&g->min, &r->min, 8) || memcmp(&g->max, &r->max, 8)) return 0;
        if (r->count == 0) return g->mean != g->mean && g->var != g->var;
        return fabs(g->mean - r->mean) <= rel * (fabs(r->mean) + 1) && fabs(g->var - r->var) <= tol;
    }
    return memcmp(got, ref, pclr_result_size(c)) == 0;
}

/* ---------------------------------------------------------------- core */
static void core_checks(void) {
    pclr_config c, r;
    const char *why = NULL;
    pclr_device_facts dev = {132, 1024};
    pclr_launch l;
    memset(&l, 0, sizeof l);
    memset(&c, 0, sizeof c);
    c.layout = PCLR_LAYOUT_ROWS;
    c.rows = 3; c.cols = 5; c.pitch = 4;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_SIZE_OVERFLOW && why, "a pitch below cols is refused: %s", why ? why : "");
    c.pitch = 8;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_OK && r.vector_width == 1 && r.pitch == 8, "3 x 5, pitch 8 resolves");
    c.pitch = 0;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_OK && r.pitch == 5, "pitch 0 means cols");
    c.accumulate = PCLR_EXACT;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "exact sums in a layout are refused: %s", why ? why : "");
    c.accumulate = PCLR_NATIVE;
    c.lanes = 3;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_INVALID_KNOB, "lanes 3 is refused");
    c.lanes = 0;
    c.vector_width = 4;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "a layout with vector width 4 is refused");
    c.vector_width = 0;
    c.rows = 3; c.pitch = UINT64_MAX / 2;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_SIZE_OVERFLOW, "rows x pitch past 64 bits is refused");
    memset(&c, 0, sizeof c);
    c.rows = 5;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION, "rows without a layout are refused");
    c.layout = (pclr_layout)9;
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_ERR_INVALID_ENUM, "an unknown layout is refused");
    {
        pclr_layout lay;
        CHECK(pclr_parse_layout("columns", &lay) == PCLR_OK && lay == PCLR_LAYOUT_COLUMNS && !strcmp(pclr_layout_name(PCLR_LAYOUT_SEGMENTS), "segments"),
              "layout names parse and print");
    }
    /* the planner's strategies by shape (CUDA defaults: group 256, wave 32) */
    memset(&c, 0, sizeof c);
    c.backend = PCLR_CUDA;
    c.variant = PCLR_VARIANT_SHUFFLE;
    c.layout = PCLR_LAYOUT_ROWS;
    c.rows = (uint64_t)1 << 27; c.cols = 2;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 1 && l.split == 1, "2-element rows: staged, a work-item per row");
    c.cols = 32;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 2, "32-element rows: staged, two work-items per row");
    c.cols = 2; c.pitch = 100;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 2, "2-element rows 100 apart: teams of 2 reading memory");
    c.pitch = 0;
    c.rows = 1 << 20; c.cols = 1000;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 32, "1000-element rows: a wave each (%d)", l.lanes);
    c.rows = 2; c.cols = (uint64_t)1 << 27;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 256 && l.split > 100, "two huge rows: groups share each (split %llu)",
          (unsigned long long)l.split);
    c.layout = PCLR_LAYOUT_COLUMNS;
    c.rows = (uint64_t)1 << 27; c.cols = 2;
    pclr_config_resolve(&c, &r, NULL);
    CHECK(pclr_plan_layout(&r, &dev, 0, &l) == PCLR_OK && l.lanes == 128 && l.split > 1, "2 columns: 128 lanes down each, split %llu",
          (unsigned long long)l.split);
    {   /* every strategy has a kernel in both dialects */
        static const pclr_layout lays[] = {PCLR_LAYOUT_ROWS, PCLR_LAYOUT_COLUMNS, PCLR_LAYOUT_SEGMENTS};
        static const int lanes[] = {1, 2, 32, 64, 256};
        size_t a, b, need = 0;
        int d;
        for (d = 0; d < 2; ++d)
            for (a = 0; a < 3; ++a)
                for (b = 0; b < 5; ++b) {
                    memset(&c, 0, sizeof c);
                    c.backend = d ? PCLR_CUDA : PCLR_OPENCL;
                    c.layout = lays[a];
                    c.lanes = lanes[b];
                    c.op = PCLR_STATS;
                    CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_OK && need > 1000, "%s %s lanes %d: a kernel",
                          pclr_backend_name(c.backend), pclr_layout_name(c.layout), c.lanes);
                }
    }
}

/* The CPU reference against a direct loop: integer sums of rows, columns and segments. */
static void reference_checks(void) {
    uint32_t x[8 * 3], got[8];
    uint64_t off[5] = {2, 2, 7, 7, 20};
    pclr_config c;
    int i, j;
    for (i = 0; i < 24; ++i) x[i] = (uint32_t)(i * 7 + 1);
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT;
    c.layout = PCLR_LAYOUT_ROWS;
    c.rows = 3; c.cols = 5; c.pitch = 8;
    CHECK(pclr_cpu_reduce_layout(&c, x, NULL, NULL, 0, NULL, got) == PCLR_OK, "rows reference runs");
    for (i = 0; i < 3; ++i) {
        uint32_t s = 0;
        for (j = 0; j < 5; ++j) s += x[i * 8 + j];
        CHECK(got[i] == s, "row %d: %u == %u", i, got[i], s);
    }
    c.layout = PCLR_LAYOUT_COLUMNS;
    CHECK(pclr_cpu_reduce_layout(&c, x, NULL, NULL, 0, NULL, got) == PCLR_OK, "columns reference runs");
    for (j = 0; j < 5; ++j) CHECK(got[j] == x[j] + x[8 + j] + x[16 + j], "column %d", j);
    c.layout = PCLR_LAYOUT_SEGMENTS;
    c.rows = 4; c.cols = c.pitch = 0;
    CHECK(pclr_cpu_reduce_layout(&c, x, NULL, off, 24, NULL, got) == PCLR_OK, "segments reference runs");
    CHECK(got[0] == 0 && got[2] == 0 && got[1] == x[2] + x[3] + x[4] + x[5] + x[6], "empty and short segments");
    off[3] = 9; off[2] = 10;
    CHECK(pclr_cpu_reduce_layout(&c, x, NULL, off, 24, NULL, got) == PCLR_ERR_SIZE_OVERFLOW, "decreasing offsets are refused");
    off[2] = 7; off[4] = 25;
    CHECK(pclr_cpu_reduce_layout(&c, x, NULL, off, 24, NULL, got) == PCLR_ERR_SIZE_OVERFLOW, "an offset past n is refused");
}

/* ---------------------------------------------------------------- NVRTC */
#ifdef PCLR_TEST_CUDA
static void nvrtc_checks(void) {
    static const pclr_layout lays[] = {PCLR_LAYOUT_ROWS, PCLR_LAYOUT_COLUMNS, PCLR_LAYOUT_SEGMENTS};
    static const int lanes[] = {1, 4, 32, 256};
    static const pclr_op ops[] = {PCLR_SUM, PCLR_MIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT};
    static const pclr_type types[] = {PCLR_FLOAT, PCLR_INT, PCLR_HALF, PCLR_DOUBLE, PCLR_UINT8, PCLR_INT64};
    char log[4096];
    size_t a, b, o;
    for (a = 0; a < 3; ++a)
        for (b = 0; b < 4; ++b)
            for (o = 0; o < 6; ++o) {
                pclr_config c;
                pclr_result r;
                memset(&c, 0, sizeof c);
                c.backend = PCLR_CUDA;
                c.layout = lays[a];
                c.lanes = lanes[b];
                c.op = ops[o];
                c.type = types[(a + b + o) % 6];
                if (o == 0 && b == 1) { c.map = "x * y + t"; c.params = "float t"; c.y_type = PCLR_FLOAT; c.type = PCLR_FLOAT; }
                if (o == 0 && b == 2) c.accumulate = PCLR_COMPENSATED, c.type = PCLR_FLOAT;
                r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
                if (r == PCLR_ERR_NO_DRIVER) { SKIP("no NVRTC: %s", log); return; }
                CHECK(r == PCLR_OK, "NVRTC: %s lanes %d %s %s: %s", pclr_layout_name(c.layout), c.lanes, pclr_type_name(c.type),
                      pclr_op_name(c.op), log);
                if (c.layout == PCLR_LAYOUT_ROWS && c.lanes < 256 && !c.y_type) { /* short rows through local memory */
                    c.rows = 1000; c.cols = 3; c.pitch = 4;
                    r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
                    CHECK(r == PCLR_OK, "NVRTC: staged rows lanes %d %s %s: %s", c.lanes, pclr_type_name(c.type), pclr_op_name(c.op), log);
                }
                if (c.layout == PCLR_LAYOUT_COLUMNS && c.lanes == 1 && !c.y_type) { /* a few-rows program (rows: 1, 2, 4, 8) */
                    c.rows = (uint64_t)1 << (o % 4);
                    r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
                    CHECK(r == PCLR_OK, "NVRTC: columns of %llu rows %s %s: %s", (unsigned long long)c.rows, pclr_type_name(c.type),
                          pclr_op_name(c.op), log);
                }
            }
}
#endif

/* ---------------------------------------------------------------- backends */
typedef struct shape { pclr_layout layout; uint64_t rows, cols, pitch; } shape;

/* One reduce against the reference; host holds x (and y after most elements). */
static void run_one(pclr_context *ctx, const pclr_config *c, const pclr_buffer *xb, const pclr_buffer *yb, const pclr_buffer *ob,
                    const unsigned char *host, const unsigned char *yhost, const uint64_t *offsets, uint64_t n, const double *params,
                    const char *what) {
    const uint64_t k = pclr_layout_results(c);
    const size_t rs = pclr_result_size(c);
    unsigned char *got = (unsigned char *)malloc((size_t)(k + 1) * rs), *ref = (unsigned char *)malloc((size_t)(k + 1) * rs);
    pclr_result r, rr;
    uint64_t i, bad = 0;
    if (!got || !ref) { CHECK(0, "out of memory"); free(got); free(ref); return; }
    r = pclr_reduce_batched(ctx, c, xb, 0, yb, 0, params, ob, n, got);
    rr = pclr_cpu_reduce_layout(c, host, yhost, offsets, n, params, ref);
    if (r == PCLR_ERR_NO_FP64) { free(got); free(ref); return; }
    if (CHECK(r == PCLR_OK && rr == PCLR_OK, "%s: %s %s %s rows %llu cols %llu pitch %llu lanes %d: %s / %s (%s)", what,
              pclr_layout_name(c->layout), pclr_type_name(c->type), pclr_op_name(c->op), (unsigned long long)c->rows,
              (unsigned long long)c->cols, (unsigned long long)c->pitch, c->lanes, pclr_result_string(r), pclr_result_string(rr),
              pclr_last_error(ctx))) {
        for (i = 0; i < k; ++i)
            if (!same_result(c, got + i * rs, ref + i * rs) && bad++ < 3) {
                char a[200], b[200];
                pclr_args_format_result(c, got + i * rs, a, sizeof a);
                pclr_args_format_result(c, ref + i * rs, b, sizeof b);
                CHECK(0, "%s: %s %s %s %llux%llu (pitch %llu) lanes %d: result %llu is %s, not %s", what, pclr_layout_name(c->layout),
                      pclr_type_name(c->type), pclr_op_name(c->op), (unsigned long long)c->rows, (unsigned long long)c->cols,
                      (unsigned long long)c->pitch, c->lanes, (unsigned long long)i, a, b);
            }
        CHECK(bad == 0, "%s: %s %s %s %llu results agree", what, pclr_layout_name(c->layout), pclr_type_name(c->type), pclr_op_name(c->op),
              (unsigned long long)k);
    }
    free(got);
    free(ref);
}

/* The one shape a quick run gives type t, op o (and the extras: o >= 100). */
static size_t quick_shape(uint64_t seed, size_t t, int o, size_t nshapes) {
    uint64_t st = seed * 1000003u + t * 131u + (uint64_t)o;
    return (size_t)(pclr_test_rand(&st) % nshapes);
}

static void backend_checks(pclr_context *ctx, uint64_t seed) {
    static const pclr_type types[] = {PCLR_FLOAT, PCLR_INT, PCLR_UINT8, PCLR_INT16, PCLR_UINT64, PCLR_HALF, PCLR_DOUBLE};
    const shape shapes[] = {
        {PCLR_LAYOUT_ROWS, 0, 7, 0},     {PCLR_LAYOUT_ROWS, 7, 0, 0},       {PCLR_LAYOUT_ROWS, 1, 1000, 0},
        {PCLR_LAYOUT_ROWS, 1000, 1, 0},  {PCLR_LAYOUT_ROWS, 3, 5, 8},       {PCLR_LAYOUT_ROWS, 101, 37, 41},
        {PCLR_LAYOUT_ROWS, 4099, 3, 0},  {PCLR_LAYOUT_ROWS, 2, 300007, 0},  {PCLR_LAYOUT_ROWS, 257, 1031, 1031},
        {PCLR_LAYOUT_ROWS, 20011, 33, 34}, {PCLR_LAYOUT_ROWS, 10007, 64, 64},
        {PCLR_LAYOUT_COLUMNS, 0, 7, 0},  {PCLR_LAYOUT_COLUMNS, 7, 0, 0},    {PCLR_LAYOUT_COLUMNS, 1, 1000, 0},
        {PCLR_LAYOUT_COLUMNS, 1000, 1, 0}, {PCLR_LAYOUT_COLUMNS, 3, 5, 8},  {PCLR_LAYOUT_COLUMNS, 101, 37, 41},
        {PCLR_LAYOUT_COLUMNS, 300007, 2, 0}, {PCLR_LAYOUT_COLUMNS, 1031, 257, 263},
        {PCLR_LAYOUT_COLUMNS, 7, 30011, 30013}, {PCLR_LAYOUT_COLUMNS, 8, 4099, 0}, {PCLR_LAYOUT_COLUMNS, 9, 1001, 0},
        {PCLR_LAYOUT_SEGMENTS, 0, 0, 0}, {PCLR_LAYOUT_SEGMENTS, 1, 0, 0},   {PCLR_LAYOUT_SEGMENTS, 997, 0, 0},
        {PCLR_LAYOUT_SEGMENTS, 3, 0, 0}};
    const size_t nshapes = sizeof shapes / sizeof shapes[0];
    const uint64_t most = 700000;
    unsigned char *host = (unsigned char *)malloc((size_t)most * 8), *yhost = (unsigned char *)malloc((size_t)most * 4);
    uint64_t *offsets = (uint64_t *)malloc(1001 * 8);
    pclr_buffer *xb = NULL, *yb = NULL, *ob = NULL;
    const char *what = pclr_backend_name(pclr_get_backend(ctx));
    size_t s, t;
    int o, lanes;
    if (!CHECK(host && yhost && offsets && pclr_buffer_create(ctx, (size_t)most * 8, &xb) == PCLR_OK &&
               pclr_buffer_create(ctx, (size_t)most * 4, &yb) == PCLR_OK && pclr_buffer_create(ctx, 1001 * 8, &ob) == PCLR_OK,
               "%s buffers", what))
        goto done;
    fill(PCLR_FLOAT, yhost, most, seed + 99);
    pclr_buffer_write(ctx, yb, 0, yhost, (size_t)most * 4);
    for (t = 0; t < sizeof types / sizeof types[0]; ++t) {
        const pclr_type type = types[t];
        fill(type, host, most, seed + t);
        if (!CHECK(pclr_buffer_write(ctx, xb, 0, host, (size_t)most * pclr_type_size(type)) == PCLR_OK, "upload")) continue;
        printf("%s: %s\n", what, pclr_type_name(type));
        for (s = 0; s < nshapes; ++s) {
            pclr_config c;
            uint64_t n = most;
            memset(&c, 0, sizeof c);
            c.type = type;
            c.layout = shapes[s].layout;
            c.rows = shapes[s].rows;
            c.cols = shapes[s].cols;
            c.pitch = shapes[s].pitch;
            if (c.layout == PCLR_LAYOUT_SEGMENTS) { /* random lengths with empty ones; K = 1: everything; K = 3: long ones */
                uint64_t st = seed + s, k, at = 5;
                offsets[0] = at;
                for (k = 0; k < c.rows; ++k) {
                    const uint64_t len = c.rows == 1 ? most - 5 : c.rows == 3 ? 200000 + pclr_test_rand(&st) % 1000
                                       : (pclr_test_rand(&st) % 4 == 0 ? 0 : pclr_test_rand(&st) % 300);
                    offsets[k + 1] = at += len;
                }
                n = most;
                pclr_buffer_write(ctx, ob, 0, offsets, (size_t)(c.rows + 1) * 8);
            }
            for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) {
                if ((type != PCLR_FLOAT && type != PCLR_INT) && o != PCLR_SUM && o != PCLR_ARGMAX) continue;
                if (type == PCLR_FLOAT && (o == PCLR_AND || o == PCLR_OR || o == PCLR_XOR)) continue; /* (integers only: refused) */
                /* CI (PoCL compiles every kernel, seconds each): float sums on every shape, every other
                   type/op pair on one shape drawn from the seed (a different one each run) */
                if (quick && !(t == 0 && o == PCLR_SUM) && quick_shape(seed, t, o, nshapes) != s) continue;
                c.op = (pclr_op)o;
                if (c.op == PCLR_PROD && type == PCLR_FLOAT) { /* (products of the sums' data depend on the order) */
                    fill_prod((float *)host, most, seed + 77);
                    pclr_buffer_write(ctx, xb, 0, host, (size_t)most * 4);
                }
                run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                if (c.op == PCLR_PROD && type == PCLR_FLOAT) {
                    fill(type, host, most, seed + t);
                    pclr_buffer_write(ctx, xb, 0, host, (size_t)most * 4);
                }
            }
            if (type == PCLR_FLOAT && (quick ? quick_shape(seed, t, 100, nshapes) == s : s % 2 == 0)) { /* a map with y and a parameter; wide and compensated sums */
                const double t4 = 0.25;
                c.op = PCLR_SUM;
                c.map = "x * y + t";
                c.params = "float t";
                c.y_type = PCLR_FLOAT;
                run_one(ctx, &c, xb, yb, ob, host, yhost, offsets, n, &t4, what);
                c.op = PCLR_ARGMIN;
                run_one(ctx, &c, xb, yb, ob, host, yhost, offsets, n, &t4, what);
                c.map = c.params = NULL;
                c.y_type = PCLR_TYPE_DEFAULT;
                c.op = PCLR_SUM;
                c.accumulate = PCLR_COMPENSATED;
                run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                c.op = PCLR_STATS;
                c.accumulate = PCLR_WIDE;
                run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                c.accumulate = PCLR_NATIVE;
            }
            if (c.layout != PCLR_LAYOUT_SEGMENTS && (t == 0 || !quick || quick_shape(seed, t, 102, nshapes) == s)) {
                /* global stride, what GPUs get (on PoCL too): short rows go through local memory,
                   columns of a few rows take four tiles per work-item */
                c.stride = PCLR_STRIDE_GLOBAL;
                c.op = t == 0 ? PCLR_SUM : t % 2 ? PCLR_ARGMAX : PCLR_MINMAX;
                run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                if (t == 0 && (!quick || quick_shape(seed, t, 103, nshapes) == s)) {
                    c.op = PCLR_STATS;
                    run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                    c.op = PCLR_MAX;
                    c.map = "x * x - 1";
                    run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                    c.map = NULL;
                }
                c.stride = PCLR_STRIDE_DEFAULT;
            }
            if ((type == PCLR_FLOAT || type == PCLR_INT) && (!quick || quick_shape(seed, t, 101, nshapes) == s)) /* every strategy, forced */
                /* (lavapipe ends a shader's loops after 65535 iterations, Mesa's LP_MAX_TGSI_LOOP_ITERATIONS: a work-item
                   per row of 300007 elements stops at 4 x 65535 of them; Vulkan starts at 4 lanes) */
                for (lanes = quick ? 8 : pclr_get_backend(ctx) == PCLR_VULKAN ? 4 : 1; lanes <= 64; lanes *= (quick ? 8 : 4)) {
                    c.lanes = lanes;
                    c.group_size = 64; /* lanes 64: a group per row, shared rows split */
                    c.op = type == PCLR_FLOAT ? PCLR_SUM : PCLR_ARGMIN;
                    run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                    c.op = PCLR_STATS;
                    if (lanes == 8 || lanes == 64) run_one(ctx, &c, xb, NULL, ob, host, NULL, offsets, n, NULL, what);
                    c.lanes = 0;
                    c.group_size = 0;
                }
        }
    }
    {   /* refused offsets: decreasing, past n (checked on the device); async states */
        pclr_config c;
        float res[4];
        memset(&c, 0, sizeof c);
        c.layout = PCLR_LAYOUT_SEGMENTS;
        c.rows = 3;
        offsets[0] = 0; offsets[1] = 10; offsets[2] = 5; offsets[3] = 20;
        pclr_buffer_write(ctx, ob, 0, offsets, 32);
        CHECK(pclr_reduce_batched(ctx, &c, xb, 0, NULL, 0, NULL, ob, most, res) == PCLR_ERR_SIZE_OVERFLOW, "%s: decreasing offsets: %s", what,
              pclr_last_error(ctx));
        offsets[2] = 15; offsets[3] = most + 1;
        pclr_buffer_write(ctx, ob, 0, offsets, 32);
        CHECK(pclr_reduce_batched(ctx, &c, xb, 0, NULL, 0, NULL, ob, most, res) == PCLR_ERR_SIZE_OVERFLOW, "%s: an offset past n: %s", what,
              pclr_last_error(ctx));
        offsets[3] = 20;
        pclr_buffer_write(ctx, ob, 0, offsets, 32);
        CHECK(pclr_reduce_batched(ctx, &c, xb, 0, NULL, 0, NULL, ob, most, res) == PCLR_OK, "%s: the same offsets, corrected: %s", what,
              pclr_last_error(ctx));
        fill(PCLR_FLOAT, host, 64, seed);
        pclr_buffer_write(ctx, xb, 0, host, 64 * 4);
        c.layout = PCLR_LAYOUT_ROWS;
        c.rows = 4; c.cols = 3; c.pitch = 16;
        if (pclr_get_backend(ctx) != PCLR_VULKAN && /* (Vulkan's records into the program's command buffer: test_vulkan.c) */
            CHECK(pclr_reduce_batched_async(ctx, &c, xb, 0, NULL, 0, NULL, NULL, 0, ob) == PCLR_OK &&
                  pclr_buffer_read(ctx, ob, 0, res, sizeof res) == PCLR_OK, "%s: async rows: %s", what, pclr_last_error(ctx))) {
            int i;
            for (i = 0; i < 4; ++i)
                CHECK(res[i] == ((float *)host)[16 * i] + ((float *)host)[16 * i + 1] + ((float *)host)[16 * i + 2], "%s: async row %d", what, i);
        }
        c.rows = 400000; /* 6.4 M elements: past the buffer */
        CHECK(pclr_reduce_batched(ctx, &c, xb, 0, NULL, 0, NULL, NULL, 0, res) == PCLR_ERR_SIZE_OVERFLOW, "%s: rows past the buffer: %s", what,
              pclr_last_error(ctx));
    }
done:
    pclr_buffer_destroy(ctx, xb);
    pclr_buffer_destroy(ctx, yb);
    pclr_buffer_destroy(ctx, ob);
    free(host);
    free(yhost);
    free(offsets);
}

/* The tuner keyed by shape (issue 16): one rows shape (and on GPUs a columns one) tuned through the
   engine; its entry serves every shape of its class and size, and nothing else; reduces with it agree. */
static void tune_checks(pclr_context *ctx, uint64_t seed) {
    const char *what = pclr_backend_name(pclr_get_backend(ctx));
    const uint64_t rows = 3001, cols = 24, most = 400000;
    unsigned char *host = (unsigned char *)malloc((size_t)most * 4);
    pclr_buffer *xb = NULL;
    pclr_tune_entry found[PCLR_TUNE_CLASSES];
    pclr_tune_options opt;
    const pclr_tune_entry *hit;
    pclr_config c, one, before, after;
    size_t count = 0, k;
    int ok;
    if (!CHECK(host && pclr_buffer_create(ctx, (size_t)most * 4, &xb) == PCLR_OK, "%s tune: buffers", what)) goto done;
    fill(PCLR_FLOAT, host, most, seed + 7);
    pclr_buffer_write(ctx, xb, 0, host, (size_t)most * 4);
    memset(&one, 0, sizeof one);
    one.type = PCLR_FLOAT;
    CHECK(pclr_resolve(ctx, &one, rows * cols, &before) == PCLR_OK, "%s tune: one array resolves", what);
    for (k = 0; k < 2; ++k) {
        const pclr_layout layout = k ? PCLR_LAYOUT_COLUMNS : PCLR_LAYOUT_ROWS;
        if (k && quick) break; /* PoCL: each candidate is a build */
        memset(&opt, 0, sizeof opt);
        opt.layout = layout;
        opt.rows = k ? cols : rows;
        opt.cols = k ? rows : cols;
        if (!CHECK(pclr_tune(ctx, PCLR_FLOAT, PCLR_SUM, &opt, found, PCLR_TUNE_CLASSES, &count) == PCLR_OK && count == 1,
                   "%s tune %s: one entry (%zu): %s", what, pclr_layout_name(layout), count, pclr_last_error(ctx)))
            continue;
        {
            char line[1024];
            pclr_tune_format(&found[0], line, sizeof line);
            printf("%s tuned: %s", what, line);
        }
        CHECK(found[0].shape == (k ? PCLR_SHAPE_COLS_WIDE : PCLR_SHAPE_ROWS_SHORT) && found[0].size_class == 20 && found[0].gbps > 0 &&
              found[0].cfg.layout == layout && found[0].cfg.rows == 0 && found[0].type == PCLR_FLOAT && found[0].op == PCLR_SUM,
              "%s tune %s: entry %s:%u, %.1f GB/s (default %.1f)", what, pclr_layout_name(layout), pclr_shape_name(found[0].shape),
              (unsigned)found[0].size_class, found[0].gbps, found[0].default_gbps);
        /* another shape of the class and size: the entry's knobs; results agree */
        memset(&c, 0, sizeof c);
        c.type = PCLR_FLOAT;
        c.layout = layout;
        c.rows = k ? 31 : 2503;
        c.cols = k ? 2503 : 31;
        c.pitch = c.cols + 2;
        hit = pclr_tuned_entry(ctx, &c, 0);
        ok = pclr_resolve(ctx, &c, 0, &after) == PCLR_OK;
        CHECK(hit && hit->shape == found[0].shape && ok && after.group_size == found[0].cfg.group_size && after.unroll == found[0].cfg.unroll &&
              after.lanes == found[0].cfg.lanes && after.groups_per_unit == found[0].cfg.groups_per_unit && after.rows == c.rows,
              "%s tune %s: a %llux%llu layout runs the tuned knobs (group %d unroll %d lanes %d)", what, pclr_layout_name(layout),
              (unsigned long long)c.rows, (unsigned long long)c.cols, after.group_size, after.unroll, after.lanes);
        run_one(ctx, &c, xb, NULL, NULL, host, NULL, NULL, 0, NULL, "tuned");
        c.rows = k ? cols : rows;
        c.cols = k ? rows : cols;
        c.pitch = 0;
        run_one(ctx, &c, xb, NULL, NULL, host, NULL, NULL, 0, NULL, "tuned shape");
        c.cols = k ? 40 : 100; /* another class */
        CHECK(pclr_tuned_entry(ctx, &c, 0) == NULL, "%s tune %s: a %s shape takes no entry", what, pclr_layout_name(layout),
              pclr_shape_name(pclr_shape_class(&c, 0)));
    }
    CHECK(pclr_tuned_entry(ctx, &one, rows * cols) == NULL && pclr_resolve(ctx, &one, rows * cols, &after) == PCLR_OK &&
          memcmp(&before, &after, sizeof before) == 0, "%s tune: one array of as many elements keeps its knobs", what);
    memset(&opt, 0, sizeof opt);
    opt.layout = PCLR_LAYOUT_SEGMENTS;
    opt.rows = opt.cols = 10;
    CHECK(pclr_tune(ctx, PCLR_FLOAT, PCLR_SUM, &opt, found, PCLR_TUNE_CLASSES, &count) == PCLR_ERR_INVALID_ENUM && count == 0 &&
          strstr(pclr_last_error(ctx), "rows or columns"), "%s tune: segments refused: %s", what, pclr_last_error(ctx));
    opt.layout = PCLR_LAYOUT_ROWS;
    opt.rows = 0;
    CHECK(pclr_tune(ctx, PCLR_FLOAT, PCLR_SUM, &opt, found, PCLR_TUNE_CLASSES, &count) == PCLR_ERR_INVALID_KNOB && count == 0,
          "%s tune: 0 rows refused: %s", what, pclr_last_error(ctx));
done:
    pclr_buffer_destroy(ctx, xb);
    free(host);
}

int main(int argc, char **argv) {
    uint64_t seed = getenv("PCLR_TEST_SEED") ? strtoull(getenv("PCLR_TEST_SEED"), NULL, 0) : (uint64_t)time(NULL);
    const int nvrtc_only = argc > 1 && !strcmp(argv[1], "--nvrtc-only");
#ifdef PCLR_TEST_VULKAN
    static const pclr_backend backends[] = {PCLR_OPENCL, PCLR_CUDA, PCLR_CPU, PCLR_VULKAN};
#else
    static const pclr_backend backends[] = {PCLR_OPENCL, PCLR_CUDA, PCLR_CPU};
#endif
    size_t b;
    quick = getenv("PCLR_TEST_QUICK") != NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a hang or crash on a device still shows how far it got */
    printf("seed %llu (PCLR_TEST_SEED reproduces)%s\n", (unsigned long long)seed, quick ? ", quick" : "");
    core_checks();
    reference_checks();
#ifdef PCLR_TEST_CUDA
    nvrtc_checks();
#endif
    for (b = 0; !nvrtc_only && b < sizeof backends / sizeof backends[0]; ++b) {
        const char *only = getenv("PCLR_TEST_BACKEND"); /* one backend (a GPU machine's runs) */
        pclr_desc d;
        pclr_context *ctx = NULL;
        char err[512] = "";
        if (only && strcmp(only, pclr_backend_name(backends[b]))) continue;
        memset(&d, 0, sizeof d);
        d.backends[0] = backends[b];
        d.error = err;
        d.error_cap = sizeof err;
        if (pclr_create(&d, &ctx) != PCLR_OK) { SKIP("%s: %s", pclr_backend_name(backends[b]), err); continue; }
        printf("%s: %s\n", pclr_backend_name(backends[b]), pclr_device_name(ctx));
        backend_checks(ctx, seed);
        if (backends[b] != PCLR_CPU && !getenv("PCLR_TEST_NO_TUNE")) tune_checks(ctx, seed);
        pclr_destroy(ctx);
    }
    return pclr_test_summary("layout");
}
