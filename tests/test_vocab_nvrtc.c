/* test_vocab_nvrtc: every CUDA kernel of the issue 14 vocabulary compiles
   through NVRTC without a device (pclr_cuda_compile_check, compute_90 PTX):
   every type x op x accumulator with default knobs, and a few knob settings
   per type and op (all of them with PCLR_TEST_FULL=1). Combinations that
   pclr_config_resolve refuses are counted and printed, not compiled.
   PCLR_TEST_QUICK=1: the default knobs only. Skips (exit 0) without NVRTC. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_MACRO_FORM /* PCLR_SOURCE_CL / PCLR_SOURCE_CUDA */
#define PCLREDUCE_CUDA
#include "../pclreduce.h"
#include "pclr_test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* pclr_cuda_compile_check loads and unloads NVRTC on every call; holding a
   reference keeps the library mapped between calls (as test_cuda.c does). */
static void pin_nvrtc(void) {
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    const char *env = getenv("PCLR_NVRTC_LIBRARY");
    size_t i;
    if (env && *env && dlopen(env, RTLD_NOW | RTLD_LOCAL)) return;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return;
}

typedef struct knobs { const char *name; int vector, unroll, group, wave; pclr_stride stride; pclr_variant variant; pclr_finish finish; } knobs;
static const knobs sets[] = {
    {"vector 1 unroll 1", 1, 1, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_DEFAULT},
    {"group 64 sequential partials", 0, 0, 64, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_SEQUENTIAL, PCLR_FINISH_PARTIALS},
    {"group 1024 stride local unrolled", 0, 0, 1024, 0, PCLR_STRIDE_LOCAL, PCLR_VARIANT_UNROLLED, PCLR_FINISH_DEFAULT},
    {"finish atomic", 0, 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_FINISH_ATOMIC},
    {"naive unroll 16 vector 2", 2, 16, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_NAIVE, PCLR_FINISH_DEFAULT},
    {"wave 64 sequential group 128", 0, 0, 128, 64, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_SEQUENTIAL, PCLR_FINISH_DEFAULT},
};
#define NSETS (int)(sizeof sets / sizeof sets[0])

static long g_refused, g_compiled;

static void compile(const pclr_config *c0) {
    pclr_config c = *c0;
    const char *why = NULL;
    char log[4096], desc[512];
    pclr_result r;
    c.backend = PCLR_CUDA;
    pclr_config_describe(&c, desc, sizeof desc);
    if ((r = pclr_config_resolve(&c, &c, &why)) != PCLR_OK) {
        if (++g_refused <= 12) printf("refused by pclr_config_resolve: %s: %s\n", desc, why);
        return;
    }
    r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
    ++g_compiled;
    CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", desc, pclr_result_string(r), log);
}

/* The CUDA macro forms (the tests in test_core.c compare their lines only): each compiles
   through NVRTC, with the words of a 4-byte type (8 bytes) and of a double (16 bytes). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif
static const char *const g_macro_forms[] = {PCLR_SOURCE_CUDA(uint, max, 32, 16), PCLR_SOURCE_CUDA(int, sum, 32, 1),
                                            PCLR_SOURCE_CUDA(float, min, 32, 4), PCLR_SOURCE_CUDA(double, min, 32, 2)};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
static void compile_macro_forms(void) {
    pclr_nvrtc_api api;
    char why[512], log[4096];
    size_t m;
    if (!CHECK(pclr_nvrtc_load_api(NULL, &api, why, sizeof why) == PCLR_OK, "NVRTC tables: %s", why)) return;
    for (m = 0; m < sizeof g_macro_forms / sizeof g_macro_forms[0]; ++m) {
        static const char *const opts[] = {"--gpu-architecture=compute_90"};
        nvrtcProgram prog;
        nvrtcResult r = api.CreateProgram(&prog, g_macro_forms[m], "macro_form.cu", 0, NULL, NULL);
        size_t size = 0;
        log[0] = 0;
        if (!CHECK(r == NVRTC_SUCCESS, "macro form %zu: nvrtcCreateProgram %d", m, (int)r)) continue;
        r = api.CompileProgram(prog, 1, opts);
        if (api.GetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1 && size <= sizeof log) api.GetProgramLog(prog, log);
        CHECK(r == NVRTC_SUCCESS, "macro form %zu compiles (compute_90): %s\n%.3000s", m, api.GetErrorString(r), log);
        CHECK(strstr(g_macro_forms[m], "pclr_collect4(") != NULL, "macro form %zu carries the words finish", m);
        api.DestroyProgram(&prog);
        ++g_compiled;
    }
}

int main(void) {
    const char *env;
    const int quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    const int full = (env = getenv("PCLR_TEST_FULL")) && *env && *env != '0';
    pclr_config c;
    char log[1024];
    int t, o, a, k, turn = 0;
    double t0 = now_s();
    (void)pclr_test_rand; /* the harness's, unused here */
    pin_nvrtc();
    memset(&c, 0, sizeof c);
    if (pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log) == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): compile checks skipped", log);
        return pclr_test_summary("test_vocab_nvrtc");
    }
    compile_macro_forms();
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o) {
            const int sums = o == PCLR_SUM || o == PCLR_STATS || o == PCLR_PROD;
            for (a = PCLR_NATIVE; a < PCLR_ACCUMULATE_COUNT_; ++a) {
                if (!sums && a != PCLR_NATIVE) continue; /* resolve makes them native: the same kernel */
                if (a == PCLR_COMPENSATED && t != PCLR_HALF && t != PCLR_FLOAT && t != PCLR_DOUBLE) continue; /* refused (test_vocab checks) */
                if (o == PCLR_PROD && a > PCLR_WIDE) continue; /* a product is native or wide (refused: test_vocab checks) */
                memset(&c, 0, sizeof c);
                c.type = (pclr_type)t;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                compile(&c);
                if (quick) continue;
                for (k = 0; k < NSETS; ++k) {
                    if (!full && k != (turn % NSETS)) continue; /* a rotating sample: each set meets every type */
                    c.vector_width = sets[k].vector;
                    c.unroll = sets[k].unroll;
                    c.group_size = sets[k].group;
                    c.wave_width = sets[k].wave;
                    c.stride = sets[k].stride;
                    c.variant = sets[k].variant;
                    c.finish = sets[k].finish;
                    compile(&c);
                }
                ++turn;
            }
        }
    printf("test_vocab_nvrtc: %ld kernels compiled, %ld configurations refused by pclr_config_resolve, %.1fs\n", g_compiled, g_refused,
           now_s() - t0);
    return pclr_test_summary("test_vocab_nvrtc");
}
