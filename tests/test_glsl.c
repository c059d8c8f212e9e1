/* The GLSL dialect (backend vulkan) of every type x op x accumulator x
   variant x finish that goes together, and a few maps, compiled by glslc
   (GLSL 4.50 compute, Vulkan 1.1); exact sums (the kernel OpenCL and CUDA
   have, in GLSL's words) of half, float and double on every load width,
   variant and stride, and of maps; the layouts (rows, columns, segments: each
   strategy by its lanes, staged short rows, few-rows columns) x ops x types, with
   maps; plus the refusals a GLSL kernel has (the shuffle variant of exact sums,
   loads other than 4, 8 or 16 bytes, a layout's pixels over 16 bytes). Prints "skip: ..." and
   compiles nothing without glslc. PCLR_TEST_QUICK=1: the finishes and
   variants in turn instead of all. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define PCLREDUCE_IMPLEMENTATION
#include "../pclreduce.h"
#include "pclr_test.h"

#include <string.h>
#include <unistd.h>

static char g_dir[64] = "/tmp/pclr_glslXXXXXX";

static int compile(const pclr_config *c, const char *what) {
    char path[128], cmd[512], *src, desc[512];
    size_t need = 0;
    FILE *f;
    int rc;
    pclr_result r = pclr_kernel_source(c, NULL, 0, &need);
    pclr_config_describe(c, desc, sizeof desc);
    if (!CHECK(r == PCLR_OK, "%s: pclr_kernel_source: %s [%s]", what, pclr_result_string(r), desc)) return 0;
    if (!(src = (char *)malloc(need))) return CHECK(0, "out of memory");
    pclr_kernel_source(c, src, need, NULL);
    snprintf(path, sizeof path, "%s/k.comp", g_dir);
    if (!(f = fopen(path, "w"))) { free(src); return CHECK(0, "cannot write %s", path); }
    fputs(src, f);
    fclose(f);
    free(src);
    snprintf(cmd, sizeof cmd, "glslc -fshader-stage=compute --target-env=vulkan1.1 -o '%s/k.spv' '%s' > '%s/log' 2>&1", g_dir, path, g_dir);
    rc = system(cmd);
    if (rc != 0) {
        char log[2048] = "";
        size_t n;
        snprintf(path, sizeof path, "%s/log", g_dir);
        if ((f = fopen(path, "r"))) { n = fread(log, 1, sizeof log - 1, f); log[n] = '\0'; fclose(f); }
        return CHECK(0, "%s does not compile under glslc [%s]:\n%s", what, desc, log);
    }
    return CHECK(1, "%s", what);
}

int main(void) {
    static const pclr_variant variants[] = {PCLR_VARIANT_SHUFFLE, PCLR_VARIANT_UNROLLED, PCLR_VARIANT_SEQUENTIAL, PCLR_VARIANT_NAIVE};
    static const pclr_finish finishes[] = {PCLR_FINISH_LAST_GROUP, PCLR_FINISH_ATOMIC, PCLR_FINISH_PARTIALS};
    static const struct { pclr_type x, y; int comps; const char *map, *params; } maps[] = {
        {PCLR_FLOAT, 0, 1, "x * x", NULL}, {PCLR_HALF, PCLR_DOUBLE, 1, "x * y + t", "double t"},
        {PCLR_UINT8, 0, 4, "0.25 * x.x + 0.5 * x.y", NULL}, {PCLR_INT, PCLR_INT64, 1, "x - y > k ? 1 : 0", "long k"},
        {PCLR_UINT16, 0, 2, "min(x.x, x.y) % 7", NULL}, {PCLR_DOUBLE, 0, 1, "sqrt(abs(x)) + floor(x / 3.0)", NULL},
        /* the double math and fmod helpers, alone and together (each writes only what it calls) */
        {PCLR_DOUBLE, 0, 1, "exp(x)", NULL}, {PCLR_DOUBLE, 0, 1, "exp2(x) + log(x)", NULL}, {PCLR_DOUBLE, 0, 1, "log2(x) + sin(x)", NULL},
        {PCLR_DOUBLE, 0, 1, "cos(x) * pow(x, 2.5)", NULL}, {PCLR_FLOAT, 0, 1, "x % 3.3f", NULL},
        {PCLR_DOUBLE, PCLR_FLOAT, 1, "x % y + float(x) % y + exp(x) + exp2(x) + log(x) + log2(x) + pow(x, y) + sin(x) + cos(y)", NULL}};
    const int quick = getenv("PCLR_TEST_QUICK") && atoi(getenv("PCLR_TEST_QUICK"));
    int t, o, a, v, f, k = 0;
    size_t i;
    pclr_config c;
    (void)pclr_test_rand;
    if (system("glslc --version > /dev/null 2>&1") != 0) {
        SKIP("glslc is not installed (Debian: apt-get install glslc)");
        return pclr_test_summary("test_glsl");
    }
    if (!mkdtemp(g_dir)) return CHECK(0, "mkdtemp"), pclr_test_summary("test_glsl");
    for (t = PCLR_UINT; t < PCLR_TYPE_COUNT_; ++t)
        for (o = PCLR_SUM; o < PCLR_CUSTOM; ++o)
            for (a = PCLR_NATIVE; a <= PCLR_COMPENSATED; ++a)
                for (v = 0; v < 4; ++v)
                    for (f = 0; f < 3; ++f) {
                        pclr_config r;
                        char what[160];
                        memset(&c, 0, sizeof c);
                        c.backend = PCLR_VULKAN;
                        c.type = (pclr_type)t;
                        c.op = (pclr_op)o;
                        c.accumulate = (pclr_accumulate)a;
                        c.variant = variants[v];
                        c.finish = finishes[f];
                        if (pclr_config_resolve(&c, &r, NULL) != PCLR_OK) continue; /* knobs that do not go together */
                        if (quick && (k++ % 5) != 0) continue;
                        snprintf(what, sizeof what, "%s %s %s %s %s", pclr_type_name(c.type), pclr_op_name(c.op), pclr_accumulate_name(c.accumulate),
                                 pclr_variant_name(c.variant), pclr_finish_name(c.finish));
                        compile(&c, what);
                    }
    for (i = 0; i < sizeof maps / sizeof maps[0]; ++i)
        for (o = PCLR_SUM; o < PCLR_CUSTOM; o += 3) {
            memset(&c, 0, sizeof c);
            c.backend = PCLR_VULKAN;
            c.type = maps[i].x;
            c.y_type = maps[i].y;
            c.components = maps[i].comps;
            c.map = maps[i].map;
            c.params = maps[i].params;
            c.op = (pclr_op)o;
            if (pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION && (o == PCLR_AND || o == PCLR_OR || o == PCLR_XOR))
                continue; /* (a float map's bitwise op: refused, test_vocab checks) */
            compile(&c, maps[i].map);
        }
    /* exact sums: every element type, load width, tree variant, stride and unroll depth (quick: in turn), and maps */
    {
        static const pclr_type xt[] = {PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
        static const struct { pclr_type x, y; const char *map, *params; } xmaps[] = {
            {PCLR_FLOAT, PCLR_FLOAT, "double(x) * y", NULL}, {PCLR_FLOAT, 0, "x * s", "float s"},
            {PCLR_DOUBLE, PCLR_DOUBLE, "x - y", NULL}, {PCLR_HALF, PCLR_FLOAT, "x * y", NULL}};
        int w;
        for (t = 0; t < 3; ++t)
            for (w = 4; w <= 16; w *= 2)
                for (v = 1; v < 4; ++v)
                    for (f = 0; f < 2; ++f) {
                        char what[160];
                        memset(&c, 0, sizeof c);
                        c.backend = PCLR_VULKAN;
                        c.type = xt[t];
                        c.op = PCLR_SUM;
                        c.accumulate = PCLR_EXACT;
                        c.vector_width = w / (int)pclr_type_size(xt[t]);
                        c.variant = variants[v];
                        c.stride = f ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
                        c.unroll = 1 << ((t + v + f) % 4);
                        if (quick && (k++ % 3) != 0) continue;
                        snprintf(what, sizeof what, "%s sum exact vector %d %s %s unroll %d", pclr_type_name(c.type), c.vector_width,
                                 pclr_variant_name(c.variant), pclr_stride_name(c.stride), c.unroll);
                        compile(&c, what);
                    }
        for (i = 0; i < sizeof xmaps / sizeof xmaps[0]; ++i) {
            char what[160];
            memset(&c, 0, sizeof c);
            c.backend = PCLR_VULKAN;
            c.type = xmaps[i].x;
            c.y_type = xmaps[i].y;
            c.map = xmaps[i].map;
            c.params = xmaps[i].params;
            c.op = PCLR_SUM;
            c.accumulate = PCLR_EXACT;
            snprintf(what, sizeof what, "sum exact of the map %s", xmaps[i].map);
            compile(&c, what);
        }
    }
    {   /* the layouts: the C dialects' text over the GLSL words (pclr__glsl_words) */
        static const pclr_layout lays[] = {PCLR_LAYOUT_ROWS, PCLR_LAYOUT_COLUMNS, PCLR_LAYOUT_SEGMENTS};
        static const int lanes[] = {1, 4, 32, 256};
        static const pclr_op ops[] = {PCLR_SUM, PCLR_MIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT};
        static const pclr_type types[] = {PCLR_FLOAT, PCLR_INT, PCLR_HALF, PCLR_DOUBLE, PCLR_UINT8, PCLR_INT64, PCLR_INT16, PCLR_UINT64};
        size_t la, b, op;
        for (la = 0; la < 3; ++la)
            for (b = 0; b < 4; ++b)
                for (op = 0; op < 6; ++op) {
                    char what[160];
                    memset(&c, 0, sizeof c);
                    c.backend = PCLR_VULKAN;
                    c.layout = lays[la];
                    c.lanes = lanes[b];
                    c.op = ops[op];
                    c.type = types[(la + b + op) % 8];
                    if (op == 0 && b == 1) { c.map = "x * y + t"; c.params = "float t"; c.y_type = PCLR_FLOAT; c.type = PCLR_FLOAT; }
                    if (op == 0 && b == 2) c.accumulate = PCLR_COMPENSATED, c.type = PCLR_FLOAT;
                    if (op == 1 && b == 3) { c.map = "0.5 * x.x + x.y"; c.components = 2; c.type = PCLR_UINT8; }
                    if (op == 2 && b == 0) c.variant = PCLR_VARIANT_SHUFFLE; /* (teams: the local-memory tree) */
                    if (quick && (k++ % 3) != 0) continue;
                    snprintf(what, sizeof what, "%s lanes %d %s %s%s%s", pclr_layout_name(c.layout), c.lanes, pclr_type_name(c.type),
                             pclr_op_name(c.op), c.map ? " map " : "", c.map ? c.map : "");
                    compile(&c, what);
                    if (c.layout == PCLR_LAYOUT_ROWS && c.lanes < 256 && !c.y_type && c.components <= 1) { /* short rows through shared memory */
                        c.rows = 1000; c.cols = 3; c.pitch = 4;
                        c.stride = PCLR_STRIDE_GLOBAL;
                        snprintf(what, sizeof what, "staged rows lanes %d %s %s", c.lanes, pclr_type_name(c.type), pclr_op_name(c.op));
                        compile(&c, what);
                    }
                    if (c.layout == PCLR_LAYOUT_COLUMNS && c.lanes == 1 && !c.y_type) { /* a few-rows program (rows: 1, 2, 4, 8) */
                        c.rows = (uint64_t)1 << (op % 4);
                        snprintf(what, sizeof what, "columns of %d rows %s %s", (int)c.rows, pclr_type_name(c.type), pclr_op_name(c.op));
                        compile(&c, what);
                    }
                }
        memset(&c, 0, sizeof c);
        c.backend = PCLR_VULKAN;
        c.layout = PCLR_LAYOUT_ROWS;
        c.type = PCLR_DOUBLE;
        c.map = "x.x + x.w";
        c.components = 4;
        CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "a layout's 32-byte pixels are refused");
    }
    /* what GLSL kernels refuse */
    memset(&c, 0, sizeof c);
    c.backend = PCLR_VULKAN;
    c.accumulate = PCLR_EXACT;
    c.variant = PCLR_VARIANT_SHUFFLE;
    CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "the shuffle variant of exact sums is refused");
    c.variant = PCLR_VARIANT_DEFAULT;
    c.accumulate = PCLR_NATIVE;
    c.type = PCLR_UINT16;
    c.vector_width = 1;
    CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "2-byte loads are refused");
    c.type = PCLR_FLOAT;
    c.variant = PCLR_VARIANT_COLLECTIVE;
    CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "OpenCL collectives are refused");
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) SKIP("could not remove %s", g_dir);
    }
    return pclr_test_summary("test_glsl");
}
