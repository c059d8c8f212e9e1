/* Unit tests of the core (pclreduce.h): configuration, generator protocol,
   planner and CPU reference. No GPU or OpenCL needed. */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_MACRO_FORM /* PCLR_SOURCE_CL / PCLR_SOURCE_CUDA */
#include "../pclreduce.h"
#include "pclr_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *source_of(const pclr_config *cfg) {
    size_t size = 0;
    char *text;
    if (pclr_kernel_source(cfg, NULL, 0, &size) != PCLR_OK) return NULL;
    text = (char *)malloc(size);
    if (text && pclr_kernel_source(cfg, text, size, NULL) != PCLR_OK) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_resolve(void) {
    pclr_config c, r;
    const char *why = NULL;
    memset(&c, 0, sizeof c);
    CHECK(pclr_config_resolve(&c, &r, &why) == PCLR_OK, "zero config resolves");
    CHECK(r.type == PCLR_FLOAT && r.op == PCLR_SUM && r.backend == PCLR_OPENCL, "defaults: float sum opencl");
    CHECK(r.wave_width == 32 && r.group_size == 256 && r.unroll == 4 && r.vector_width == 4, "default knobs");
    CHECK(r.stride == PCLR_STRIDE_GLOBAL && r.variant == PCLR_VARIANT_UNROLLED && r.finish == PCLR_FINISH_LAST_GROUP, "default methods");
    CHECK(r.groups_per_unit == 8, "default groups per unit = 2048 / 256, got %d", r.groups_per_unit);
    c.type = PCLR_DOUBLE;
    c.backend = PCLR_CUDA;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_OK && r.vector_width == 2 && r.variant == PCLR_VARIANT_SHUFFLE,
          "double defaults to 16-byte loads (vector 2); CUDA to shuffles");
    CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_OK && c.vector_width == 2, "in place resolve");

    /* every bad value gets its own code and a sentence */
    {
        struct { int field; int value; pclr_result want; } bad[] = {
            {0, 48, PCLR_ERR_INVALID_KNOB},   {1, 2048, PCLR_ERR_INVALID_KNOB}, {1, 16, PCLR_ERR_INVALID_KNOB},
            {1, 96, PCLR_ERR_INVALID_KNOB},   {2, 3, PCLR_ERR_INVALID_KNOB},    {2, 256, PCLR_ERR_INVALID_KNOB},
            {3, 3, PCLR_ERR_INVALID_KNOB},    {3, 32, PCLR_ERR_INVALID_KNOB},    {4, 65, PCLR_ERR_INVALID_KNOB},
            {5, 99, PCLR_ERR_INVALID_ENUM},   {6, -1, PCLR_ERR_INVALID_ENUM},   {7, 7, PCLR_ERR_INVALID_ENUM},
            {8, 9, PCLR_ERR_INVALID_ENUM},    {9, 4, PCLR_ERR_INVALID_ENUM},    {10, 6, PCLR_ERR_INVALID_ENUM},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
            pclr_result got;
            memset(&c, 0, sizeof c);
            switch (bad[i].field) {
            case 0: c.wave_width = bad[i].value; break;
            case 1: c.group_size = bad[i].value; break;
            case 2: c.unroll = bad[i].value; break;
            case 3: c.vector_width = bad[i].value; break;
            case 4: c.groups_per_unit = bad[i].value; break;
            case 5: c.type = (pclr_type)bad[i].value; break;
            case 6: c.op = (pclr_op)bad[i].value; break;
            case 7: c.stride = (pclr_stride)bad[i].value; break;
            case 8: c.variant = (pclr_variant)bad[i].value; break;
            case 9: c.finish = (pclr_finish)bad[i].value; break;
            default: c.backend = (pclr_backend)bad[i].value; break;
            }
            why = NULL;
            got = pclr_config_resolve(&c, &r, &why);
            CHECK(got == bad[i].want && why && strlen(why) > 10, "bad value %d in field %d: got %d (%s)", bad[i].value,
                  bad[i].field, (int)got, why ? why : "no reason");
            CHECK(pclr_kernel_source(&c, NULL, 0, NULL) == bad[i].want, "generator refuses bad field %d", bad[i].field);
        }
    }
    /* combinations that do not go together */
    memset(&c, 0, sizeof c);
    c.variant = PCLR_VARIANT_SHUFFLE;
    c.wave_width = 64;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "shuffle with wave 64");
    memset(&c, 0, sizeof c);
    c.variant = PCLR_VARIANT_COLLECTIVE;
    c.backend = PCLR_CUDA;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "collective on CUDA");
    memset(&c, 0, sizeof c);
    c.finish = PCLR_FINISH_ATOMIC;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "atomic finish on float");
    c.type = PCLR_INT;
    CHECK(pclr_config_resolve(&c, &r, NULL) == PCLR_OK, "atomic finish on int");
    CHECK(pclr_config_resolve(NULL, &r, &why) == PCLR_ERR_NULL_POINTER && why, "NULL config");
    CHECK(pclr_config_resolve(&c, NULL, NULL) == PCLR_ERR_NULL_POINTER, "NULL out");
}

static void test_names(void) {
    int i;
    for (i = 1; i < PCLR_TYPE_COUNT_; ++i) {
        pclr_type t;
        CHECK(pclr_parse_type(pclr_type_name((pclr_type)i), &t) == PCLR_OK && (int)t == i, "type name round trip %d", i);
    }
    for (i = 1; i < PCLR_VARIANT_COUNT_; ++i) {
        pclr_variant v;
        CHECK(pclr_parse_variant(pclr_variant_name((pclr_variant)i), &v) == PCLR_OK && (int)v == i, "variant round trip %d", i);
    }
    for (i = 1; i < PCLR_FINISH_COUNT_; ++i) {
        pclr_finish f;
        CHECK(pclr_parse_finish(pclr_finish_name((pclr_finish)i), &f) == PCLR_OK && (int)f == i, "finish round trip %d", i);
    }
    {
        pclr_op o;
        pclr_backend d;
        pclr_stride s;
        CHECK(pclr_parse_op("max", &o) == PCLR_OK && o == PCLR_MAX, "parse op");
        CHECK(pclr_parse_backend("cuda", &d) == PCLR_OK && d == PCLR_CUDA, "parse dialect");
        CHECK(pclr_parse_stride("local", &s) == PCLR_OK && s == PCLR_STRIDE_LOCAL, "parse stride");
        CHECK(pclr_parse_op("default", &o) == PCLR_ERR_INVALID_ENUM, "'default' is not a name to parse");
        CHECK(pclr_parse_op("avg", &o) == PCLR_ERR_INVALID_ENUM, "unknown op");
        CHECK(pclr_parse_op(NULL, &o) == PCLR_ERR_NULL_POINTER, "NULL name");
    }
    for (i = 0; i < PCLR_RESULT_COUNT_; ++i)
        CHECK(strlen(pclr_result_string((pclr_result)i)) > 1, "result string %d", i);
    CHECK(strcmp(pclr_result_string((pclr_result)999), "unknown result code") == 0, "unknown result code");
    CHECK(strcmp(pclr_type_name((pclr_type)42), "invalid") == 0, "invalid type name");
    CHECK(pclr_type_size(PCLR_DOUBLE) == 8 && pclr_type_size(PCLR_UINT) == 4 && pclr_type_size(PCLR_UINT8) == 1 && pclr_type_size(PCLR_HALF) == 2 &&
          pclr_type_size(PCLR_INT64) == 8 && pclr_type_size(PCLR_TYPE_COUNT_) == 0, "sizes");
}

static void test_source_protocol(void) {
    pclr_config c;
    size_t size = 0, size2 = 0;
    char *text, small[16];
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT;
    c.op = PCLR_MAX;
    c.backend = PCLR_CUDA;
    c.unroll = 16;
    CHECK(pclr_kernel_source(&c, NULL, 0, &size) == PCLR_OK && size > 1000, "size query");
    text = (char *)malloc(size);
    CHECK(text != NULL, "malloc");
    if (!text) return;
    CHECK(pclr_kernel_source(&c, text, size, &size2) == PCLR_OK && size2 == size, "exact buffer");
    CHECK(strlen(text) + 1 == size, "size counts the NUL");
    CHECK(strncmp(text, "/* pclreduce ", 13) == 0, "starts with a comment");
    CHECK(strstr(text, "type=uint op=max backend=cuda") != NULL && strstr(text, "unroll=16") != NULL,
          "the comment names the configuration");
    CHECK(strstr(text, "#define PCLR_UNROLL 16\n") != NULL && strstr(text, "typedef uint pclr_t;\n") != NULL,
          "knobs become defines");
    CHECK(strstr(text, "__shfl_down_sync") != NULL && strstr(text, "__kernel") == NULL, "CUDA prelude only");
    CHECK(strstr(text, "#if PCLR_") == NULL && strstr(text, "asm volatile(\"shfl") == NULL && strstr(text, "work_group") == NULL &&
              strstr(text, "pclr_tree_rolled") == NULL && strstr(text, "atomicMax") == NULL,
          "only the chosen variant's and finish's pieces");
    CHECK(strstr(text, "volatile int") == NULL, "no volatile warp-synchronous idiom");
    CHECK(pclr_kernel_source(&c, small, sizeof small, &size2) == PCLR_ERR_BUFFER_TOO_SMALL && size2 == size && small[0] == 0,
          "too small buffer: error, size reported, empty string");
    CHECK(pclr_kernel_source(&c, text, size - 1, NULL) == PCLR_ERR_BUFFER_TOO_SMALL, "one byte short");
    CHECK(pclr_kernel_source(NULL, text, size, &size2) == PCLR_ERR_NULL_POINTER, "NULL config");
    free(text);

    c.backend = PCLR_OPENCL;
    c.variant = PCLR_VARIANT_COLLECTIVE;
    text = source_of(&c);
    CHECK(text && strstr(text, "__kernel") && strstr(text, "work_group_reduce_"), "OpenCL collective source");
    free(text);
    {
        char opts[64];
        CHECK(pclr_kernel_options(&c, opts, sizeof opts, &size) == PCLR_OK && strcmp(opts, "-cl-std=CL2.0") == 0,
              "collective needs -cl-std=CL2.0");
        c.variant = PCLR_VARIANT_UNROLLED;
        CHECK(pclr_kernel_options(&c, opts, sizeof opts, &size) == PCLR_OK && opts[0] == 0 && size == 1, "no options");
    }
    /* describe: counts past the end, always NUL-terminated */
    {
        char d[8];
        size_t n = pclr_config_describe(&c, d, sizeof d);
        CHECK(n > 40 && strlen(d) == 7, "describe truncates and reports the full length");
    }
}

/* A whole line of text equal to line[0, len). */
static int has_line(const char *text, const char *line, size_t len) {
    const char *at;
    for (at = strstr(text, "\n"); at; at = strstr(at + 1, "\n"))
        if (strncmp(at + 1, line, len) == 0 && at[1 + len] == '\n') return 1;
    return 0;
}

/* The macro form is the generator's text for the default knobs: every line the
   generator writes for the same type, op, wave and unroll is a line of the
   macro form, but those where the generator spells out what the macro form
   leaves to the kernel's preprocessor (knob values, type names, identity).
   (Its literal is longer than C99's 4095-character minimum: see pclreduce.h.) */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif
static const struct { pclr_backend backend; pclr_type type; pclr_op op; int wave, unroll; const char *src; } g_macros[] = {
    {PCLR_OPENCL, PCLR_UINT, PCLR_SUM, 32, 8, PCLR_SOURCE_CL(uint, sum, 32, 8)},
    {PCLR_OPENCL, PCLR_INT, PCLR_SUM, 64, 1, PCLR_SOURCE_CL(int, sum, 64, 1)},
    {PCLR_OPENCL, PCLR_FLOAT, PCLR_MAX, 32, 4, PCLR_SOURCE_CL(float, max, 32, 4)},
    {PCLR_OPENCL, PCLR_DOUBLE, PCLR_MIN, 64, 2, PCLR_SOURCE_CL(double, min, 64, 2)},
    {PCLR_CUDA, PCLR_UINT, PCLR_MAX, 32, 16, PCLR_SOURCE_CUDA(uint, max, 32, 16)},
    {PCLR_CUDA, PCLR_INT, PCLR_SUM, 32, 1, PCLR_SOURCE_CUDA(int, sum, 32, 1)},
    {PCLR_CUDA, PCLR_FLOAT, PCLR_MIN, 32, 4, PCLR_SOURCE_CUDA(float, min, 32, 4)},
    {PCLR_CUDA, PCLR_DOUBLE, PCLR_MIN, 32, 2, PCLR_SOURCE_CUDA(double, min, 32, 2)},
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void test_macro_form(void) {
    static const char *const spelled[] = {"#define PCLR_WAVE ", "#define PCLR_GROUP ", "#define PCLR_UNROLL ",
                                          "#define PCLR_VECTOR ", "typedef ", "struct __align__(", "#define PCLR_IDENTITY ",
                                          "/* ---- the operation: ", "    pclr_u64 head = "};
    size_t m, k;
    CHECK(strstr(g_macros[0].src, "#define PCLR_TYPE_uint 1\n#define PCLR_OP_sum 1\n#define PCLR_WAVE 32\n#define PCLR_UNROLL 8\n") != NULL,
          "macro form defines");
    CHECK(strstr(g_macros[0].src, "#ifndef PCLR_GROUP\n#define PCLR_GROUP 256\n#endif\n") != NULL &&
              strstr(g_macros[0].src, "#define PCLR_VECTOR (16 / PCLR_TSIZE)\n") != NULL,
          "macro form: knob defaults from PCLR__KNOBS");
    CHECK(strstr(g_macros[4].src, "backend=cuda") != NULL && strstr(g_macros[4].src, PCLR__TEXT_PRELUDE_CUDA) != NULL,
          "macro form: CUDA prelude");
    for (m = 0; m < sizeof g_macros / sizeof g_macros[0]; ++m) {
        pclr_config c;
        char *gen;
        const char *line, *end;
        int missing = 0, lines = 0;
        memset(&c, 0, sizeof c);
        c.backend = g_macros[m].backend;
        c.type = g_macros[m].type;
        c.op = g_macros[m].op;
        c.wave_width = g_macros[m].wave;
        c.unroll = g_macros[m].unroll;
        gen = source_of(&c);
        if (!CHECK(gen != NULL, "generator source for macro form %zu", m)) continue;
        line = strstr(gen, "*/\n") + 3; /* after the description */
        for (; *line; line = end + 1) {
            size_t len;
            end = strchr(line, '\n');
            len = (size_t)(end - line);
            for (k = 0; k < sizeof spelled / sizeof spelled[0]; ++k)
                if (strncmp(line, spelled[k], strlen(spelled[k])) == 0) break;
            if (k < sizeof spelled / sizeof spelled[0]) continue;
            ++lines;
            if (!has_line(g_macros[m].src, line, len) && missing++ == 0)
                CHECK(0, "macro form %zu lacks the generator's line '%.*s'", m, (int)len, line);
        }
        CHECK(missing == 0 && lines > 100, "macro form %zu holds the generator's %d lines (%d missing)", m, lines, missing);
        free(gen);
    }
}

static int count_lines(const char *s) {
    int n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

/* The generator writes one configuration's pieces only: the default kernels
   read in a minute, and no configuration carries the other dialect or the
   other variants. */
static void test_source_pieces(void) {
    static const pclr_backend backends[] = {PCLR_OPENCL, PCLR_CUDA};
    size_t b;
    int v, f, t, o;
    for (b = 0; b < 2; ++b) {
        pclr_config c;
        char *text;
        memset(&c, 0, sizeof c);
        c.backend = backends[b];
        text = source_of(&c);
        if (!CHECK(text != NULL, "default %s source", pclr_backend_name(c.backend))) continue;
        /* 165: the CUDA kernel's last-group finish publishes its states as flagged words; the one text's
           spellings (cursors, stores, lds as a parameter: PCLR__TEXT_WORDS) are 10 of them */
        CHECK(count_lines(text) <= 165, "default %s float sum kernel: %d lines (at most 165)", pclr_backend_name(c.backend),
              count_lines(text));
        CHECK(strncmp(text, "/* pclreduce " PCLREDUCE_VERSION " kernel: type=float op=sum backend=", 31) == 0,
              "line 1 describes the configuration");
        free(text);
        for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t)
            for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
                for (v = PCLR_VARIANT_NAIVE; v < PCLR_VARIANT_COUNT_; ++v)
                    for (f = PCLR_FINISH_LAST_GROUP; f < PCLR_FINISH_COUNT_; ++f) {
                        pclr_config k;
                        int cuda = c.backend == PCLR_CUDA, lines, words;
                        memset(&k, 0, sizeof k);
                        k.backend = c.backend;
                        k.type = (pclr_type)t;
                        k.op = (pclr_op)o;
                        k.variant = (pclr_variant)v;
                        k.finish = (pclr_finish)f;
                        if (pclr_config_resolve(&k, &k, NULL) != PCLR_OK) continue; /* e.g. atomic float */
                        text = source_of(&k);
                        if (!CHECK(text != NULL, "source")) continue;
                        words = cuda && f == PCLR_FINISH_LAST_GROUP; /* 4- and 8-byte states: flagged words */
                        lines = count_lines(text);
                        /* 200: CUDA kernels also carry the last-group finish's flagged words (a 16-byte
                           word's vector accesses for doubles) and the dependent-launch wait, and float
                           min/max their one-instruction sm_80 path beside the compare chain; the words
                           need no fence between groups */
                        if (lines > 200 || (strstr(text, "__kernel") != NULL) == cuda || (strstr(text, "__global__") != NULL) != cuda ||
                            (strstr(text, "work_group_reduce") != NULL) != (v == PCLR_VARIANT_COLLECTIVE) ||
                            (strstr(text, "pclr_wave_reduce") != NULL) != (v == PCLR_VARIANT_SHUFFLE) ||
                            (strstr(text, "is_last") != NULL) != (f == PCLR_FINISH_LAST_GROUP) ||
                            (strstr(text, "PCLR_DEVICE_FENCE") != NULL) != (f == PCLR_FINISH_ATOMIC || (f == PCLR_FINISH_LAST_GROUP && !words)) ||
                            (strstr(text, "pclr_collect4(") != NULL) != words ||
                            (strstr(text, "cl_khr_fp64") != NULL) != (t == PCLR_DOUBLE && !cuda) || strstr(text, "#if PCLR") != NULL)
                            CHECK(0, "pieces of %s %s %s %s %s (%d lines)", pclr_backend_name(k.backend), pclr_type_name(k.type),
                                  pclr_op_name(k.op), pclr_variant_name(k.variant), pclr_finish_name(k.finish), lines);
                        free(text);
                    }
    }
}

static void test_plan(void) {
    pclr_config c;
    pclr_device_facts dev;
    pclr_launch l;
    memset(&c, 0, sizeof c);
    pclr_config_resolve(&c, &c, NULL);
    dev.compute_units = 132;
    dev.max_group_size = 1024;
    CHECK(pclr_plan(&c, &dev, 0, &l) == PCLR_OK && l.groups == 1 && l.group_size == 256, "n = 0: one group");
    CHECK(pclr_plan(&c, &dev, 1, &l) == PCLR_OK && l.groups == 1, "n = 1: one group");
    CHECK(pclr_plan(&c, &dev, 4096, &l) == PCLR_OK && l.groups == 1, "one group's worth");
    CHECK(pclr_plan(&c, &dev, 4097, &l) == PCLR_OK && l.groups == 2, "never more groups than work: 2");
    CHECK(pclr_plan(&c, &dev, (uint64_t)1 << 40, &l) == PCLR_OK && l.groups == 132 * 8, "capped at units x k: %llu",
          (unsigned long long)l.groups);
    CHECK(pclr_max_groups(&c, &dev) == 132 * 8, "max groups");
    c.groups_per_unit = 4;
    CHECK(pclr_plan(&c, &dev, UINT64_MAX, &l) == PCLR_OK && l.groups == 132 * 4, "groups_per_unit honoured");
    c.group_size = 1024;
    dev.max_group_size = 512;
    CHECK(pclr_plan(&c, &dev, 100, &l) == PCLR_ERR_UNSUPPORTED_BY_DEVICE, "group larger than the device allows");
    CHECK(pclr_plan(NULL, &dev, 100, &l) == PCLR_ERR_NULL_POINTER, "NULL config");
}

/* Sequential reference in double / wrapping unsigned, to check pclr_cpu_reduce. */
static void test_cpu_reference(uint64_t seed) {
    static const uint64_t sizes[] = {0, 1, 2, 31, 255, 256, 257, 1000, 65537, 1000003};
    size_t si;
    uint64_t st = seed;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        uint64_t n = sizes[si], i;
        uint32_t *u = (uint32_t *)malloc((size_t)(n ? n : 1) * 4);
        float *f = (float *)malloc((size_t)(n ? n : 1) * 4);
        double *d = (double *)malloc((size_t)(n ? n : 1) * 8);
        uint32_t usum = 0, umin = 0xffffffffu, umax = 0, ru;
        int32_t imin = INT32_MAX, imax = INT32_MIN, ri;
        double fsum = 0, fabs_sum = 0, dsum = 0, rd;
        float fmin_ = INFINITY, fmax_ = -INFINITY, rf;
        if (!u || !f || !d) { CHECK(0, "malloc"); return; }
        for (i = 0; i < n; ++i) {
            uint64_t r = pclr_test_rand(&st);
            u[i] = (uint32_t)r;
            f[i] = (float)((double)(r >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
            d[i] = (double)(r >> 11) / 9007199254740992.0 - 0.25;
            usum += u[i];
            umin = u[i] < umin ? u[i] : umin;
            umax = u[i] > umax ? u[i] : umax;
            imin = (int32_t)u[i] < imin ? (int32_t)u[i] : imin;
            imax = (int32_t)u[i] > imax ? (int32_t)u[i] : imax;
            fsum += f[i];
            fabs_sum += fabs(f[i]);
            fmin_ = f[i] < fmin_ ? f[i] : fmin_;
            fmax_ = f[i] > fmax_ ? f[i] : fmax_;
            dsum += d[i];
        }
        pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, u, n, &ru);
        CHECK(ru == usum, "uint sum wraps, n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_INT, PCLR_SUM, u, n, &ri);
        CHECK((uint32_t)ri == usum, "int sum wraps like two's complement, n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_UINT, PCLR_MIN, u, n, &ru);
        CHECK(ru == umin, "uint min n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_UINT, PCLR_MAX, u, n, &ru);
        CHECK(ru == umax, "uint max n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_INT, PCLR_MIN, u, n, &ri);
        CHECK(ri == imin, "int min n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_INT, PCLR_MAX, u, n, &ri);
        CHECK(ri == imax, "int max n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_FLOAT, PCLR_SUM, f, n, &rf);
        CHECK(fabs(rf - fsum) <= 1e-6 * fabs_sum + 1e-30, "float sum n=%llu: %g vs %g", (unsigned long long)n, rf, fsum);
        pclr_cpu_reduce(PCLR_FLOAT, PCLR_MIN, f, n, &rf);
        CHECK(rf == fmin_, "float min n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_FLOAT, PCLR_MAX, f, n, &rf);
        CHECK(rf == fmax_, "float max n=%llu", (unsigned long long)n);
        pclr_cpu_reduce(PCLR_DOUBLE, PCLR_SUM, d, n, &rd);
        CHECK(fabs(rd - dsum) <= 1e-12 * (double)(n + 1), "double sum n=%llu", (unsigned long long)n);
        if (n > 2) {
            f[n / 2] = NAN;
            pclr_cpu_reduce(PCLR_FLOAT, PCLR_MIN, f, n, &rf);
            CHECK(rf != rf, "NaN propagates through min, n=%llu", (unsigned long long)n);
            pclr_cpu_reduce(PCLR_FLOAT, PCLR_MAX, f, n, &rf);
            CHECK(rf != rf, "NaN propagates through max, n=%llu", (unsigned long long)n);
        }
        free(u);
        free(f);
        free(d);
    }
    {
        uint32_t id;
        double dd;
        CHECK(pclr_identity(PCLR_UINT, PCLR_MIN, &id) == PCLR_OK && id == 0xffffffffu, "uint min identity");
        CHECK(pclr_identity(PCLR_DOUBLE, PCLR_MAX, &dd) == PCLR_OK && isinf(dd) && dd < 0, "double max identity");
        CHECK(pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, NULL, 5, &id) == PCLR_ERR_NULL_POINTER, "NULL data with n > 0");
        CHECK(pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, NULL, 0, &id) == PCLR_OK && id == 0, "NULL data with n = 0");
        CHECK(pclr_cpu_reduce((pclr_type)17, PCLR_SUM, &id, 1, &id) == PCLR_ERR_INVALID_ENUM, "bad type");
    }
    CHECK(pclr_hash64("abc", 3, PCLR_HASH_SEED) != pclr_hash64("abd", 3, PCLR_HASH_SEED), "hash differs");
    CHECK(pclr_hash64("", 0, PCLR_HASH_SEED) == PCLR_HASH_SEED, "empty hash is the seed");
}

/* ---- pclr_combine: the result of a's elements followed by b's equals the
   CPU reference of the concatenation (bit for bit where order cannot matter;
   float sums and stats' moments within a bound). */
#define COMBINE_MOST 1200
/* Element i of a variant: 0 random (floats in [-1, 1), some +-0), 1 few values
   (ties, -0 and +0), 2 as 0 with NaNs of distinct payloads and +-inf (no inf
   when no_inf: stats' moments of an infinity are NaN or inf by order). */
/* (near_one: half's random values in [0.5, 2) or zero, no infinity: a product of hundreds stays finite in every
   grouping, where one order's overflow to inf meeting another's zero would give NaN against 0) */
static void combine_fill(pclr_type t, int variant, int no_inf, int near_one, void *data, uint64_t n, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < n; ++i) {
        const uint64_t r = pclr_test_rand(st);
        const int pick = (int)(r >> 59), small = (int)(r >> 40) % 5 - 2; /* pick: 0..31 */
        const int nan_here = variant == 2 && pick < 2, inf_here = variant == 2 && !no_inf && !near_one && pick == 2;
        double v = variant == 1 ? (small == 0 && (r & 1) ? -0.0 : (double)small)
                                : pick == 3 ? ((r & 1) ? -0.0 : 0.0) : (double)(r >> 40) / (double)(1ull << 23) - 1.0;
        switch (t) {
        case PCLR_FLOAT: {
            float f = (float)v;
            uint32_t b = 0x7fc00000u | (uint32_t)(i & 0xffff), ib = (r & 1) ? 0xff800000u : 0x7f800000u;
            if (nan_here) memcpy(&f, &b, 4);
            else if (inf_here) memcpy(&f, &ib, 4);
            ((float *)data)[i] = f;
            break;
        }
        case PCLR_DOUBLE: {
            uint64_t b = 0x7ff8000000000000ull | (i & 0xffff), ib = (r & 1) ? 0xfff0000000000000ull : 0x7ff0000000000000ull;
            if (nan_here) memcpy(&v, &b, 8);
            else if (inf_here) memcpy(&v, &ib, 8);
            ((double *)data)[i] = v;
            break;
        }
        case PCLR_HALF: {
            static const uint16_t few[] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000};
            uint16_t h = (uint16_t)(r & 0xffff);
            if (((h >> 10) & 31) >= 29) h = (uint16_t)(h ^ 0x4000); /* finite, below 2^14 */
            if (near_one) h = (uint16_t)((h & 0x83ffu) | ((r >> 20) & 1 ? 0x3800u : 0x3c00u));
            if (variant == 1) h = small == 0 && (r & 1) ? 0x8000 : few[small + 2];
            else if (pick == 3) h = (r & 1) ? 0x8000 : 0;
            if (nan_here) h = (uint16_t)(0x7e00 | (i & 0x1ff));
            else if (inf_here) h = (r & 1) ? 0xfc00 : 0x7c00;
            ((uint16_t *)data)[i] = h;
            break;
        }
        default: {
            const size_t ts = pclr_type_size(t);
            uint64_t bits = variant == 1 ? (uint64_t)(int64_t)small : r;
            memcpy((unsigned char *)data + i * ts, &bits, ts); /* little-endian: the low bytes */
            break;
        }
        }
    }
}

static double combine_abs(pclr_type t, const void *data, uint64_t i) {
    if (t == PCLR_FLOAT) return fabs(((const float *)data)[i]);
    if (t == PCLR_DOUBLE) return fabs(((const double *)data)[i]);
    if (t == PCLR_HALF) {
        uint16_t h = ((const uint16_t *)data)[i];
        int e = (h >> 10) & 31;
        return e ? ldexp(1024 + (h & 0x3ff), e - 25) : ldexp(h & 0x3ff, -24);
    }
    return 0;
}

/* A float sum of type t: both NaN, the same infinity, or within bound. */
static int combine_sum_close(pclr_type t, const pclr_scalar *got, const pclr_scalar *want, double bound) {
    const double g = t == PCLR_FLOAT ? got->f32 : got->f64, w = t == PCLR_FLOAT ? want->f32 : want->f64;
    if (g != g || w != w) return g != g && w != w;
    if (isinf(g) || isinf(w)) return g == w;
    return fabs(g - w) <= bound;
}
static int combine_moment_close(double g, double w, double scale, double tol) {
    if (g != g || w != w) return g != g && w != w;
    return fabs(g - w) <= tol * (fabs(w) + scale) + 1e-300;
}

/* got and want, results of cfg c (resolved), of the n elements at data. */
static int is_float_type(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static int combine_same(const pclr_config *c, const void *got, const void *want, const void *data, uint64_t n) {
    const pclr_type vt = pclr_value_type(c->type), st = pclr_sum_type(c->type, c->accumulate);
    const size_t vs = pclr_type_size(vt), ss = pclr_type_size(st);
    const int float_sum = st == PCLR_FLOAT || st == PCLR_DOUBLE;
    double sabs = 0, bound;
    uint64_t i;
    for (i = 0; i < n; ++i) sabs += combine_abs(c->type, data, i);
    /* pairwise trees and the combines: well below (n + 8) roundings of sum|x| */
    bound = (double)(n + 8) * (st == PCLR_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53)) * sabs;
    switch (c->op) {
    case PCLR_SUM: {
        pclr_scalar g, w;
        memset(&g, 0, sizeof g);
        memset(&w, 0, sizeof w);
        memcpy(&g, got, ss);
        memcpy(&w, want, ss);
        return float_sum ? combine_sum_close(st, &g, &w, bound) : memcmp(&g, &w, ss) == 0;
    }
    case PCLR_MIN: case PCLR_MAX: return memcmp(got, want, vs) == 0;
    case PCLR_COUNT: return memcmp(got, want, 8) == 0;
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: case PCLR_ANY: case PCLR_ALL: return memcmp(got, want, pclr_result_size(c)) == 0;
    case PCLR_PROD: { /* integers wrap: exactly; floats: each product rounds once, (n + 8) roundings relative (or both tiny) */
        const size_t ps = pclr_result_size(c);
        double g = 0, w = 0;
        if (!is_float_type(c->type)) return memcmp(got, want, ps) == 0;
        if (ps == 4) { float gf, wf; memcpy(&gf, got, 4); memcpy(&wf, want, 4); g = gf; w = wf; }
        else { memcpy(&g, got, 8); memcpy(&w, want, 8); }
        if (g != g || w != w) return g != g && w != w;
        return g == w || fabs(g - w) <= (double)(n + 8) * (ps == 4 ? ldexp(1.0, -23) : ldexp(1.0, -52)) * fabs(w) + (ps == 4 ? 1e-37 : 1e-300);
    }
    case PCLR_ARGMINMAX: {
        pclr_argminmax_result g, w;
        memcpy(&g, got, sizeof g);
        memcpy(&w, want, sizeof w);
        return g.min.index == w.min.index && g.max.index == w.max.index && memcmp(&g.min.value, &w.min.value, vs) == 0 &&
               memcmp(&g.max.value, &w.max.value, vs) == 0;
    }
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result g, w;
        memcpy(&g, got, sizeof g);
        memcpy(&w, want, sizeof w);
        return g.index == w.index && memcmp(&g.value, &w.value, vs) == 0;
    }
    case PCLR_MINMAX: {
        pclr_minmax_result g, w;
        memcpy(&g, got, sizeof g);
        memcpy(&w, want, sizeof w);
        return memcmp(&g.min, &w.min, vs) == 0 && memcmp(&g.max, &w.max, vs) == 0;
    }
    default: {
        pclr_stats_result g, w;
        /* moments in float (half, float, native/compensated) round far more */
        const double tol = (c->type == PCLR_HALF || c->type == PCLR_FLOAT) && c->accumulate != PCLR_WIDE ? 1e-3 : 1e-9;
        memcpy(&g, got, sizeof g);
        memcpy(&w, want, sizeof w);
        if (g.count != w.count || memcmp(&g.min, &w.min, vs) != 0 || memcmp(&g.max, &w.max, vs) != 0) return 0;
        if (float_sum ? !combine_sum_close(st, &g.sum, &w.sum, bound) : memcmp(&g.sum, &w.sum, ss) != 0) return 0;
        return combine_moment_close(g.mean, w.mean, sqrt(fabs(w.var)) + 1e-6, tol) &&
               combine_moment_close(g.var, w.var, w.mean * w.mean + 1e-6, tol) &&
               combine_moment_close(g.sample_var, w.sample_var, w.mean * w.mean + 1e-6, tol);
    }
    }
}

static void test_combine(uint64_t seed) {
    static const pclr_type types[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT, PCLR_INT,
                                      PCLR_UINT64, PCLR_INT64, PCLR_HALF, PCLR_FLOAT, PCLR_DOUBLE};
    static const uint64_t sizes[] = {0, 1, 2, 7, 300, 1000};
    uint64_t st = seed ^ 0xc0b1u;
    unsigned char *data = (unsigned char *)malloc(COMBINE_MOST * 8);
    size_t ti;
    int op, acc, refused = 0, combined = 0;
    if (!data) { CHECK(0, "malloc"); return; }
    for (ti = 0; ti < sizeof types / sizeof types[0]; ++ti)
        for (op = PCLR_SUM; op < PCLR_CUSTOM; ++op)
            for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; ++acc) {
                pclr_config c;
                size_t si;
                int variant;
                memset(&c, 0, sizeof c);
                c.type = types[ti];
                c.op = (pclr_op)op;
                c.accumulate = (pclr_accumulate)acc;
                for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    for (variant = 0; variant < 3; ++variant) {
                        const uint64_t n = sizes[si];
                        /* part boundaries: two cuts (three parts, folded left to right) */
                        const uint64_t cut1 = n ? pclr_test_rand(&st) % (n + 1) : 0;
                        const uint64_t cut2 = cut1 + (n > cut1 ? pclr_test_rand(&st) % (n - cut1 + 1) : 0);
                        const uint64_t cuts[][2] = {{0, 0}, {0, n}, {n, n}, {n / 2, n / 2}, {cut1, cut2}, {1 < n ? 1 : n, n}};
                        unsigned char whole[sizeof(pclr_stats_result)], part[sizeof(pclr_stats_result)];
                        unsigned char acc_result[sizeof(pclr_stats_result)];
                        size_t k;
                        pclr_result rw;
                        combine_fill(c.type, variant, op == PCLR_STATS, op == PCLR_PROD, data, n, &st);
                        rw = pclr_cpu_reduce_config(&c, data, n, whole);
                        if (rw != PCLR_OK) {
                            /* a pair the reference refuses is refused here too */
                            if (si == 0 && variant == 0)
                                CHECK(pclr_combine(&c, whole, whole, 0, part) != PCLR_OK, "combine of refused %s %s %s",
                                      pclr_type_name(c.type), pclr_op_name(c.op), pclr_accumulate_name(c.accumulate));
                            continue;
                        }
                        if (acc == PCLR_EXACT && (op == PCLR_SUM || op == PCLR_STATS)) {
                            if (si == 0 && variant == 0) {
                                CHECK(pclr_combine(&c, whole, whole, 0, part) == PCLR_ERR_UNSUPPORTED_COMBINATION,
                                      "exact %s sums are refused", pclr_type_name(c.type));
                                ++refused;
                            }
                            continue;
                        }
                        for (k = 0; k < sizeof cuts / sizeof cuts[0]; ++k) {
                            const uint64_t lo[3] = {0, cuts[k][0], cuts[k][1]}, hi[3] = {cuts[k][0], cuts[k][1], n};
                            const size_t ts = pclr_type_size(c.type);
                            int p, ok = 1;
                            for (p = 0; p < 3 && ok; ++p) {
                                ok = pclr_cpu_reduce_config(&c, data + lo[p] * ts, hi[p] - lo[p], p ? part : acc_result) == PCLR_OK;
                                /* out may be a: the running result folds in place */
                                if (ok && p) ok = pclr_combine(&c, acc_result, part, lo[p], acc_result) == PCLR_OK;
                            }
                            ++combined;
                            CHECK(ok && combine_same(&c, acc_result, whole, data, n),
                                  "combine %s %s %s n=%llu variant %d parts at %llu, %llu", pclr_type_name(c.type),
                                  pclr_op_name(c.op), pclr_accumulate_name(c.accumulate), (unsigned long long)n, variant,
                                  (unsigned long long)cuts[k][0], (unsigned long long)cuts[k][1]);
                        }
                    }
            }
    CHECK(refused == 3, "exact sums of half, float, double refused (%d; exact stats the reference refuses)", refused);
    CHECK(combined > 10000, "combines checked: %d", combined);
    { /* a map's results combine as its type's; argument errors */
        pclr_config c;
        int32_t x[9] = {5, -7, 3, 9, -7, 0, 2, -7, 4};
        pclr_arg_result a, b, w, o;
        memset(&c, 0, sizeof c);
        memset(&o, 0, sizeof o);
        c.type = PCLR_INT;
        c.op = PCLR_ARGMIN;
        c.map = "x * x - 3 * x";
        CHECK(pclr_cpu_reduce_map(&c, x, NULL, 4, NULL, &a) == PCLR_OK && pclr_cpu_reduce_map(&c, x + 4, NULL, 5, NULL, &b) == PCLR_OK &&
                  pclr_cpu_reduce_map(&c, x, NULL, 9, NULL, &w) == PCLR_OK && pclr_combine(&c, &a, &b, 4, &o) == PCLR_OK &&
                  o.index == w.index && o.value.i32 == w.value.i32,
              "combine of a map's argmin: index %llu value %d", (unsigned long long)o.index, o.value.i32);
        c.map = NULL;
        b.index = UINT64_MAX - 3;
        a.index = 0;
        CHECK(pclr_combine(&c, &a, &b, 3, &o) == PCLR_ERR_SIZE_OVERFLOW, "an index past UINT64_MAX - 1");
        CHECK(pclr_combine(&c, NULL, &b, 0, &o) == PCLR_ERR_NULL_POINTER, "NULL a");
        CHECK(pclr_combine(&c, &a, &b, 0, NULL) == PCLR_ERR_NULL_POINTER, "NULL out");
        c.op = (pclr_op)99;
        CHECK(pclr_combine(&c, &a, &b, 0, &o) == PCLR_ERR_INVALID_ENUM, "bad op");
    }
    free(data);
}

/* A blocking layout finalizes all its states in one pass (pclr__finalize_states, with fast paths
   for the common ops): the same bytes as pclr_finalize state by state, for every type, op and
   accumulator, on random states (NaNs, infinities and subnormals included). */
static void test_finalize_states(uint64_t seed) {
    enum { K = 257 };
    static unsigned char states[K * 64], one[K * 80], many[K * 80 + 16];
    int t, o, a, bad = 0, pairs = 0;
    uint64_t k, st = seed ^ 0xf1a1;
    for (t = 1; t < PCLR_TYPE_COUNT_; ++t)
        for (o = 1; o < PCLR_CUSTOM; ++o)
            for (a = 1; a < PCLR_ACCUMULATE_COUNT_; ++a) {
                pclr_config c;
                pclr__layout l;
                pclr__finalizer f;
                size_t rs;
                memset(&c, 0, sizeof c);
                c.type = (pclr_type)t;
                c.op = (pclr_op)o;
                c.accumulate = (pclr_accumulate)a;
                if (pclr_config_resolve(&c, &c, NULL) != PCLR_OK) continue;
                pclr__layout_of(&c, &l);
                rs = pclr_result_size(&c);
                for (k = 0; k < K * l.size; k += 8) { /* random bits, now and then all-ones or zero words */
                    const uint64_t r = pclr_test_rand(&st), w = r % 17 == 0 ? ~0ull : r % 19 == 0 ? 0 : r;
                    memcpy(states + k, &w, 8);
                }
                memset(one, 0, sizeof one);
                memset(many, 0xa5, sizeof many);
                for (k = 0; k < K; ++k) pclr_finalize(&c, states + k * l.size, one + k * rs);
                pclr__finalizer_init(&f, &c, &l);
                pclr__finalize_states(&f, rs, states, K, many);
                ++pairs;
                if (memcmp(one, many, K * rs) != 0 || many[K * rs] != 0xa5)
                    bad += !CHECK(0, "finalize_states: %s %s %s differs from pclr_finalize state by state (or wrote past)",
                                  pclr_type_name(c.type), pclr_op_name(c.op), pclr_accumulate_name(c.accumulate));
            }
    CHECK(bad == 0 && pairs > 100, "finalize_states: %d type/op/accumulator pairs, the same bytes as pclr_finalize", pairs);
}

int main(void) {
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("test_core: seed %llu\n", (unsigned long long)seed);
    test_resolve();
    test_names();
    test_source_protocol();
    test_source_pieces();
    test_macro_form();
    test_plan();
    test_cpu_reference(seed);
    test_combine(seed);
    test_finalize_states(seed);
    return pclr_test_summary("test_core");
}
