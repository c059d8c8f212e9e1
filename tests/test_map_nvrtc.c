/* test_map_nvrtc: every map of tests/test_map.c's table compiles as a CUDA
   kernel through NVRTC without a device (pclr_cuda_compile_check, compute_90
   PTX): each row with one op (rotating: every op meets every kind of row) and
   one accumulator, every op and accumulator with PCLR_TEST_FULL=1, every
   fourth row with PCLR_TEST_QUICK=1; the dot
   product under a few knob settings; the deepest chains pclr_map_check takes.
   Configurations pclr_config_resolve refuses are counted, not compiled.
   Skips (exit 0) without NVRTC. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"
#include "pclr_test.h"

#define PCLR_MAP_TABLE_ONLY
#include "test_map.c"

#include <dlfcn.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* pclr_cuda_compile_check loads and unloads NVRTC on every call; a reference keeps it mapped */
static void pin_nvrtc(void) {
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    const char *env = getenv("PCLR_NVRTC_LIBRARY");
    size_t i;
    if (env && *env && dlopen(env, RTLD_NOW | RTLD_LOCAL)) return;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return;
}

static long g_refused, g_compiled;

/* the accumulator a row's op gets outside PCLR_TEST_FULL: native, wide, compensated in turn (sums and stats) */
static pclr_accumulate one_acc(const map_row *r, pclr_op op, int k) {
    pclr_accumulate a = (pclr_accumulate)(PCLR_NATIVE + (k / 8) % 3);
    if (op != PCLR_SUM && op != PCLR_STATS) return PCLR_NATIVE;
    if (a == PCLR_COMPENSATED && r->want != PCLR_FLOAT && r->want != PCLR_DOUBLE) a = PCLR_WIDE;
    return a;
}

static void compile(const pclr_config *c0, const char *what) {
    pclr_config c = *c0;
    const char *why = NULL;
    char log[4096], desc[1600];
    pclr_result r;
    c.backend = PCLR_CUDA;
    pclr_config_describe(&c, desc, sizeof desc);
    if ((r = pclr_config_resolve(&c, &c, &why)) != PCLR_OK) {
        if (++g_refused <= 12) printf("refused by pclr_config_resolve: %s: %s\n", desc, why);
        return;
    }
    r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
    ++g_compiled;
    CHECK(r == PCLR_OK, "NVRTC compute_90: %s%s: %s: %s\n%.3000s", what, desc, pclr_result_string(r), log);
}

static const pclr_op ops[] = {PCLR_SUM, PCLR_MIN, PCLR_MAX, PCLR_ARGMIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT};

int main(void) {
    const char *env;
    const int quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    const int full = (env = getenv("PCLR_TEST_FULL")) && *env && *env != '0';
    pclr_config c;
    char log[1024];
    int k;
    size_t o;
    double t0 = now_s();
    (void)pclr_test_rand;
    pin_nvrtc();
    memset(&c, 0, sizeof c);
    if (pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log) == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): compile checks skipped", log);
        return pclr_test_summary("test_map_nvrtc");
    }
    for (k = 0; k < NROWS; ++k) {
        const map_row *r = &g_rows[k];
        for (o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
            pclr_accumulate acc;
            const int rotating = o == (size_t)(k + k / 8) % (sizeof ops / sizeof ops[0]); /* each row one op, every op on every 8 rows */
            if (!full && (!rotating || (quick && k % 4))) continue;
            for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; acc = (pclr_accumulate)(acc + 1)) {
                if (acc != PCLR_NATIVE && ops[o] != PCLR_SUM && ops[o] != PCLR_STATS) continue;
                if (acc == PCLR_COMPENSATED && r->want != PCLR_FLOAT && r->want != PCLR_DOUBLE) continue;
                if (!full && acc != one_acc(r, ops[o], k)) continue;
                c = row_config(r, ops[o], acc);
                compile(&c, "");
            }
        }
    }
    {   /* the dot product under other knobs (vector widths: x and y loaded together) */
        static const struct { int vector, unroll, group; pclr_variant variant; pclr_finish finish; } knobs[] = {
            {1, 1, 64, PCLR_VARIANT_SEQUENTIAL, PCLR_FINISH_DEFAULT}, {2, 8, 1024, PCLR_VARIANT_UNROLLED, PCLR_FINISH_DEFAULT},
            {4, 16, 128, PCLR_VARIANT_NAIVE, PCLR_FINISH_DEFAULT},   {0, 0, 0, PCLR_VARIANT_SHUFFLE, PCLR_FINISH_DEFAULT},
            {0, 0, 0, PCLR_VARIANT_DEFAULT, PCLR_FINISH_ATOMIC}};
        static const int rows[] = {0, 2, 3, 21}; /* x*y of float, int, uint8 x float; x / y of int */
        size_t j, q;
        for (j = 0; j < sizeof rows / sizeof rows[0]; ++j)
            for (q = 0; q < sizeof knobs / sizeof knobs[0]; ++q) {
                if (quick && q) continue;
                c = row_config(&g_rows[rows[j]], PCLR_SUM, PCLR_NATIVE);
                c.vector_width = knobs[q].vector;
                c.unroll = knobs[q].unroll;
                c.group_size = knobs[q].group;
                c.variant = knobs[q].variant;
                c.finish = knobs[q].finish;
                compile(&c, "knobs: ");
            }
    }
    {   /* the deepest chains the check takes */
        static const char *const steps[][2] = {{"x", "+1"}, {"-x", "*-x"}, {"x", "%7+x"}};
        char m[PCLR_MAP_MAX_LENGTH + 16];
        size_t j;
        for (j = 0; j < sizeof steps / sizeof steps[0]; ++j) {
            size_t len = strlen(steps[j][0]), ok = 0;
            memset(&c, 0, sizeof c);
            c.type = PCLR_INT;
            c.map = m;
            memcpy(m, steps[j][0], len + 1);
            while (pclr_map_check(&c, NULL, 0) == PCLR_OK && len + strlen(steps[j][1]) < PCLR_MAP_MAX_LENGTH) {
                ok = len;
                memcpy(m + len, steps[j][1], strlen(steps[j][1]) + 1);
                len += strlen(steps[j][1]);
            }
            m[ok] = '\0';
            if (ok) compile(&c, "the deepest chain: ");
        }
    }
    printf("test_map_nvrtc: %ld kernels compiled, %ld configurations refused by pclr_config_resolve, %.1fs\n", g_compiled, g_refused,
           now_s() - t0);
    return pclr_test_summary("test_map_nvrtc");
}
