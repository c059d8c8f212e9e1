/* The compile-time feature switches (README "Leaving features out"): built
   with any of -DPCLREDUCE_NO_MAP, -DPCLREDUCE_NO_EXACT, -DPCLREDUCE_NO_LAYOUTS,
   -DPCLREDUCE_NO_FILES (tests/run.sh: each alone, then all four). A feature
   compiled out is refused with PCLR_ERR_UNSUPPORTED_COMBINATION and a sentence
   naming its switch, by pclr_config_resolve, the CPU reference, the public
   functions that stay for link compatibility and a context (the CPU's, and
   with --opencl OpenCL's where there is a device: PoCL in CI); a feature
   compiled in still works; an ordinary float sum works either way.
   -DPCLR_TEST_ALL_BACKENDS compiles the CUDA and Vulkan backends in as well
   (tests/run.sh compiles every combination of the four so, with and without
   PCLREDUCE_MACRO_FORM, whose kernels this then also checks). */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_ALL_BACKENDS
#define PCLREDUCE_CUDA
#define PCLREDUCE_VULKAN
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <string.h>

#ifdef PCLREDUCE_MACRO_FORM
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic ignored "-Woverlength-strings" /* the macro form's literal: see pclreduce.h */
#endif
static const char *const g_macro_forms[2] = {PCLR_SOURCE_CL(float, sum, 32, 4), PCLR_SOURCE_CUDA(uint, max, 32, 8)};
#endif

static int has(const char *text, const char *word) { return text && strstr(text, word) != NULL; }

/* A config refused or accepted by pclr_config_resolve, as the switch says. */
static void check_resolve(const pclr_config *cfg, int out, const char *name, const char *what) {
    pclr_config r;
    const char *why = NULL;
    pclr_result res = pclr_config_resolve(cfg, &r, &why);
    if (out)
        CHECK(res == PCLR_ERR_UNSUPPORTED_COMBINATION && has(why, name), "%s: resolve gave %s (%s), expected the %s refusal", what,
              pclr_result_string(res), why ? why : "", name);
    else
        CHECK(res == PCLR_OK, "%s: resolve gave %s (%s)", what, pclr_result_string(res), why ? why : "");
}

/* A reduce through ctx refused (code and last_error) or run, as the switch says. */
static void check_reduce(pclr_context *ctx, pclr_result res, int out, const char *name, const char *what) {
    if (out)
        CHECK(res == PCLR_ERR_UNSUPPORTED_COMBINATION && has(pclr_last_error(ctx), name), "%s on %s: %s (%s), expected the %s refusal",
              what, pclr_backend_name(pclr_get_backend(ctx)), pclr_result_string(res), pclr_last_error(ctx), name);
    else
        CHECK(res == PCLR_OK, "%s on %s: %s (%s)", what, pclr_backend_name(pclr_get_backend(ctx)), pclr_result_string(res),
              pclr_last_error(ctx));
}

#ifdef PCLREDUCE_NO_MAP
#define OUT_MAP 1
#else
#define OUT_MAP 0
#endif
#ifdef PCLREDUCE_NO_EXACT
#define OUT_EXACT 1
#else
#define OUT_EXACT 0
#endif
#ifdef PCLREDUCE_NO_LAYOUTS
#define OUT_LAYOUTS 1
#else
#define OUT_LAYOUTS 0
#endif
#ifdef PCLREDUCE_NO_FILES
#define OUT_FILES 1
#else
#define OUT_FILES 0
#endif

#define N 1000

/* The core's functions, no context. */
static void check_core(const float *x) {
    pclr_config cfg;
    float sum = 0, expect = (float)(N * (N - 1) / 2);
    char why[256] = "";
    size_t need = 0;
    pclr_result r;

    memset(&cfg, 0, sizeof cfg);
    check_resolve(&cfg, 0, "", "a float sum");
    CHECK(pclr_cpu_reduce_config(&cfg, x, N, &sum) == PCLR_OK && sum == expect, "CPU float sum: %g, expected %g", sum, expect);
    CHECK(pclr_kernel_source(&cfg, NULL, 0, &need) == PCLR_OK && need > 1000, "the float sum's kernel source (%zu bytes)", need);

    /* maps */
    memset(&cfg, 0, sizeof cfg);
    cfg.map = "x * 2.0f";
    check_resolve(&cfg, OUT_MAP, "PCLREDUCE_NO_MAP", "a map");
    r = pclr_map_check(&cfg, why, sizeof why);
    CHECK(OUT_MAP ? r == PCLR_ERR_UNSUPPORTED_COMBINATION && has(why, "PCLREDUCE_NO_MAP") : r == PCLR_OK, "pclr_map_check: %s (%s)",
          pclr_result_string(r), why);
    r = pclr_map_source(&cfg, "opencl", NULL, 0, &need);
    CHECK(OUT_MAP ? r == PCLR_ERR_UNSUPPORTED_COMBINATION : r == PCLR_OK, "pclr_map_source: %s", pclr_result_string(r));
    r = pclr_cpu_reduce_map(&cfg, x, NULL, N, NULL, &sum);
    CHECK(OUT_MAP ? r == PCLR_ERR_UNSUPPORTED_COMBINATION : r == PCLR_OK && sum == 2 * expect, "pclr_cpu_reduce_map: %s (%g)",
          pclr_result_string(r), sum);
    memset(&cfg, 0, sizeof cfg); /* a map's field without the map */
    cfg.y_type = PCLR_FLOAT;
    r = pclr_config_resolve(&cfg, &cfg, NULL);
    CHECK(r == (OUT_MAP ? PCLR_ERR_UNSUPPORTED_COMBINATION : PCLR_ERR_INVALID_MAP), "y_type without a map: %s", pclr_result_string(r));

    /* exact sums */
    memset(&cfg, 0, sizeof cfg);
    cfg.accumulate = PCLR_EXACT;
    check_resolve(&cfg, OUT_EXACT, "PCLREDUCE_NO_EXACT", "an exact sum");
    r = pclr_cpu_reduce_config(&cfg, x, N, &sum);
    CHECK(OUT_EXACT ? r == PCLR_ERR_UNSUPPORTED_COMBINATION : r == PCLR_OK && sum == expect, "CPU exact sum: %s (%g)",
          pclr_result_string(r), sum);
    cfg.op = PCLR_MAX; /* only sums accumulate: the accumulator is ignored */
    check_resolve(&cfg, 0, "", "max with accumulate = exact");

    /* layouts */
    memset(&cfg, 0, sizeof cfg);
    cfg.layout = PCLR_LAYOUT_ROWS;
    cfg.rows = 10;
    cfg.cols = N / 10;
    check_resolve(&cfg, OUT_LAYOUTS, "PCLREDUCE_NO_LAYOUTS", "rows");
    {
        float rows[10];
        pclr_device_facts dev = {8, 1024};
        pclr_launch plan;
        pclr_config k = cfg;
        k.group_size = 256; /* plan_layout takes a config with its knobs set */
        k.unroll = 4;
        k.wave_width = 32;
        k.groups_per_unit = 8;
        r = pclr_cpu_reduce_layout(&cfg, x, NULL, NULL, N, NULL, rows);
        CHECK(OUT_LAYOUTS ? r == PCLR_ERR_UNSUPPORTED_COMBINATION : r == PCLR_OK && rows[1] == 100 * 100 + 4950,
              "pclr_cpu_reduce_layout: %s", pclr_result_string(r));
        r = pclr_plan_layout(&k, &dev, N, &plan);
        CHECK(OUT_LAYOUTS ? r == PCLR_ERR_UNSUPPORTED_COMBINATION : r == PCLR_OK, "pclr_plan_layout: %s", pclr_result_string(r));
        memset(&cfg, 0, sizeof cfg); /* one array still goes through pclr_cpu_reduce_layout */
        r = pclr_cpu_reduce_layout(&cfg, x, NULL, NULL, N, NULL, rows);
        CHECK(r == PCLR_OK && rows[0] == expect, "pclr_cpu_reduce_layout of one array: %s (%g)", pclr_result_string(r), rows[0]);
    }

    /* files */
    {
        pclr_tune_entry *entries = NULL;
        size_t count = 7;
        void *data = NULL;
        size_t size = 0;
        const char *w = NULL;
        char dir[512];
        const size_t dlen = pclr_cache_default_dir(dir, sizeof dir);
        CHECK(OUT_FILES ? dlen == 0 && dir[0] == '\0' : 1, "pclr_cache_default_dir: %zu (%s)", dlen, dir);
        CHECK(OUT_FILES ? pclr_tune_default_path(dir, sizeof dir) == 0 : 1, "pclr_tune_default_path: %s", dir);
        if (OUT_FILES) { /* (with files, tests/test_cache.c has these) */
            r = pclr_cache_store("/nonexistent/pclreduce", "id", 2, "x", 1);
            CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION, "pclr_cache_store: %s", pclr_result_string(r));
            CHECK(pclr_cache_load("/nonexistent/pclreduce", "id", 2, NULL, &data, &size, &w) == 0 && !data && has(w, "PCLREDUCE_NO_FILES"),
                  "pclr_cache_load: %s", w ? w : "");
            r = pclr_tune_load("/nonexistent/tuning.txt", PCLR_OPENCL, "d", "v", NULL, &entries, &count);
            CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && !entries && count == 0, "pclr_tune_load: %s", pclr_result_string(r));
            r = pclr_tune_save_ex("/nonexistent/tuning.txt", NULL, 0, &w);
            CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && has(w, "PCLREDUCE_NO_FILES"), "pclr_tune_save_ex: %s (%s)",
                  pclr_result_string(r), w ? w : "");
            CHECK(pclr_tune_save("/nonexistent/tuning.txt", NULL, 0) == PCLR_ERR_UNSUPPORTED_COMBINATION, "pclr_tune_save");
        }
    }
}

/* One context: a float sum, then each feature refused or run. */
static void check_context(pclr_context *ctx, const float *x) {
    pclr_buffer *buf = NULL;
    pclr_config cfg;
    float sum = 0, rows[10], expect = (float)(N * (N - 1) / 2);
    char text[2048];
    pclr_result r;
    if (!CHECK(pclr_buffer_create(ctx, N * sizeof(float), &buf) == PCLR_OK && pclr_buffer_write(ctx, buf, 0, x, N * sizeof(float)) == PCLR_OK,
               "buffer on %s: %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_last_error(ctx)))
        return;
    memset(&cfg, 0, sizeof cfg);
    r = reduce_one(ctx, &cfg, buf, 0, N, &sum);
    CHECK(r == PCLR_OK && sum == expect, "float sum on %s: %s (%g, expected %g; %s)", pclr_backend_name(pclr_get_backend(ctx)),
          pclr_result_string(r), sum, expect, pclr_last_error(ctx));

    cfg.map = "x * 2.0f";
    check_reduce(ctx, reduce_one(ctx, &cfg, buf, 0, N, &sum), OUT_MAP, "PCLREDUCE_NO_MAP", "a map");
    memset(&cfg, 0, sizeof cfg);
    cfg.accumulate = PCLR_EXACT;
    check_reduce(ctx, pclr_prepare(ctx, &cfg), OUT_EXACT, "PCLREDUCE_NO_EXACT", "an exact sum");
    memset(&cfg, 0, sizeof cfg);
    cfg.layout = PCLR_LAYOUT_ROWS;
    cfg.rows = 10;
    cfg.cols = N / 10;
    check_reduce(ctx, pclr_reduce_batched(ctx, &cfg, buf, 0, NULL, 0, NULL, NULL, N, rows), OUT_LAYOUTS, "PCLREDUCE_NO_LAYOUTS", "rows");

    pclr_describe(ctx, text, sizeof text);
    if (pclr_get_backend(ctx) != PCLR_CPU) /* (the CPU context has no files either way) */
        CHECK(OUT_FILES ? has(text, "PCLREDUCE_NO_FILES") : has(text, "disk cache: "), "describe on %s:\n%s",
              pclr_backend_name(pclr_get_backend(ctx)), text);
    memset(&cfg, 0, sizeof cfg); /* still usable after the refusals */
    r = reduce_one(ctx, &cfg, buf, 0, N, &sum);
    CHECK(r == PCLR_OK && sum == expect, "float sum again on %s: %s", pclr_backend_name(pclr_get_backend(ctx)), pclr_result_string(r));
    pclr_buffer_destroy(ctx, buf);
}

int main(int argc, char **argv) {
    static float x[N];
    pclr_desc d;
    pclr_context *ctx = NULL;
    char err[512] = "";
    int i;
    (void)pclr_test_rand; /* (the harness's; no random data here) */
    for (i = 0; i < N; ++i) x[i] = (float)i;
    printf("switches:%s%s%s%s\n", OUT_MAP ? " NO_MAP" : "", OUT_EXACT ? " NO_EXACT" : "", OUT_LAYOUTS ? " NO_LAYOUTS" : "",
           OUT_FILES ? " NO_FILES" : "");
    check_core(x);
#ifdef PCLREDUCE_MACRO_FORM
    CHECK(has(g_macro_forms[0], "kernel (macro form): type=float op=sum backend=opencl") && has(g_macro_forms[1], "backend=cuda"),
          "the macro form's kernels");
#endif

    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_CPU;
    if (CHECK(pclr_create(&d, &ctx) == PCLR_OK, "CPU context")) check_context(ctx, x);
    pclr_destroy(ctx);
    ctx = NULL;

    if (argc > 1 && !strcmp(argv[1], "--opencl")) {
        memset(&d, 0, sizeof d);
        d.backends[0] = PCLR_OPENCL;
        d.error = err;
        d.error_cap = sizeof err;
        if (pclr_create(&d, &ctx) == PCLR_OK) check_context(ctx, x);
        else SKIP("no OpenCL device (%s)", err);
        pclr_destroy(ctx);
    }
    return pclr_test_summary("switches");
}
