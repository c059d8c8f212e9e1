/* libFuzzer harness for map expressions: bytes -> a config with a map
   (expression, parameters, element types, components, map_type, op,
   accumulator) -> pclr_map_check, pclr_config_resolve, pclr_map_source
   (opencl, cuda, glsl), pclr_kernel_source (OpenCL and CUDA),
   pclr_config_describe, pclr_reduced_type, pclr_result_size, and for
   accepted maps pclr_cpu_reduce_map on a few elements (fuzzed bits: NaN,
   infinities, INT_MIN, zeros) with fuzzed parameter values. UBSan must stay
   quiet: integer overflow, division by zero and float-to-int conversion
   are all defined by the language.
   Invariants (abort on violation):
     the check's sentence is NUL-terminated within its cap; on
     PCLR_ERR_INVALID_MAP it names "column N" (1 <= N <= the longer text's
     length + 1), or is one of the config sentences (components, map_type,
     map fields without a map);
     a refused map: resolve, both kernel sources, the three map sources and
     the CPU reference give the check's error, write nothing, and no byte
     of the map reaches a kernel buffer;
     an accepted map: resolve fails only for a reason that is not the map
     (a compensated integer sum); then kernel sources and map sources are
     generated (size query == strlen + 1), the map's text appears in the
     kernels only inside comments (checked on a copy with its spaces
     tripled and 3 spaces around it: the same map, and text no generator
     writes), the kernels nest
     fewer than 256 parentheses (clang's limit), the reduced type is one of
     int, uint, int64, uint64, float, double, and the CPU reference gives
     resolve's result with a result of pclr_result_size bytes.
   Input: 7 selector bytes (x type, y type, components, map_type, op,
   accumulator, flags: params NULL / why cap / element count), then the map
   up to the first NUL, the params up to the next NUL, then bytes for the
   parameter values and the elements (reused cyclically).

   A text that starts with a clause's word (state, lift, merge, result; after
   blanks and ';') is a reduction's description instead (cfg.reduce, op custom
   or now and then another op, a map, map_type or components to refuse; a
   layout; fuzz_reduce below): pclr_map_check, pclr_config_resolve,
   pclr_kernel_source for OpenCL, CUDA and Vulkan (GLSL),
   pclr_config_describe, pclr_cpu_reduce_map and pclr_combine. Invariants:
     the sentence is NUL-terminated within its cap; on PCLR_ERR_INVALID_MAP
     it is "reduce, line L, column C: ..." (L at most the text's lines, C at
     most its line's length + 1), a counterexample ("reduce: the identity is
     not neutral ...", "reduce: an integer merge must be associative ..."),
     a parameter's "map, column N: params: ..." or a config sentence;
     a refused description: resolve and the three kernels give the check's
     error and write nothing, the CPU reference too;
     an accepted one: each kernel is generated exactly when resolve takes its
     backend (size query == strlen + 1, nesting below 256), the description
     with its spaces tripled is accepted too and its text appears only inside
     comments; the CPU reference gives 1..8 values and fields of the six
     types, the same bytes twice, n = 0 gives the identity's results, and
     pclr_combine of a result with the identity's gives back its fields. */
#define PCLREDUCE_IMPLEMENTATION
#include "pclreduce.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                      \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "fuzz_map: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                    \
        }                                                                               \
    } while (0)

static const int t_type[] = {PCLR_FLOAT, PCLR_INT, PCLR_UINT, PCLR_DOUBLE, PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16,
                             PCLR_UINT64, PCLR_INT64, PCLR_HALF, 0, -1, 12};
static const int t_ytype[] = {0, 0, 0, PCLR_FLOAT, PCLR_INT, PCLR_UINT, PCLR_DOUBLE, PCLR_UINT8, PCLR_INT8, PCLR_UINT16,
                              PCLR_INT16, PCLR_UINT64, PCLR_INT64, PCLR_HALF, -2, 99};
static const int t_comps[] = {0, 1, 0, 2, 4, 3, -1, 0};
static const int t_maptype[] = {0, 0, 0, 0, PCLR_INT, PCLR_UINT, PCLR_INT64, PCLR_UINT64, PCLR_FLOAT, PCLR_DOUBLE, PCLR_HALF, PCLR_UINT8, 77};
static const int t_op[] = {PCLR_SUM, PCLR_MIN, PCLR_MAX, PCLR_ARGMIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT};
static const int t_acc[] = {PCLR_NATIVE, PCLR_WIDE, PCLR_COMPENSATED, 0};
static const double t_param[] = {0.0, 1.0, -1.0, 0.5, 2.75, -0.0, 1e300, -1e300, 2147483648.0, -2147483649.0, 4294967296.0,
                                 9.3e18, 1.9e19, -9.3e18, 3e38, 1e-40};
#define PICK(t, b) (t[(b) % (sizeof t / sizeof t[0])])

/* every occurrence of needle in text lies inside a comment that it does not end */
static int only_in_comments(const char *text, const char *needle) {
    const size_t nl = strlen(needle);
    const char *p = text, *hit, *q = text;
    int in = 0; /* 1: block comment, 2: line comment */
    if (!nl) return 1;
    while ((hit = strstr(p, needle)) != NULL) {
        const char *end;
        while (q < hit) { /* the comment state at hit (q only moves forward) */
            if (!in && q[0] == '/' && q[1] == '*') { in = 1; q += 2; continue; }
            if (!in && q[0] == '/' && q[1] == '/') { in = 2; q += 2; continue; }
            if (in == 1 && q[0] == '*' && q[1] == '/') { in = 0; q += 2; continue; }
            if (in == 2 && q[0] == '\n') in = 0;
            ++q;
        }
        if (q > hit || !in) return 0; /* a match starting inside a comment opener counts as outside */
        end = in == 1 ? strstr(hit, "*/") : strchr(hit, '\n');
        if (end && end < hit + nl) return 0;
        p = hit + 1;
    }
    return 1;
}

static int paren_depth(const char *s) {
    int d = 0, most = 0;
    for (; *s; ++s) {
        if (*s == '(') { if (++d > most) most = d; }
        else if (*s == ')') --d;
    }
    return most;
}

/* the config sentences that name no column */
static int config_sentence(const char *why) {
    return strstr(why, "components must") || strstr(why, "map_type must") || strstr(why, "belong to a map");
}

/* Kernel of cfg for backend b into a fresh buffer (NULL when refused: then checks nothing was written). */
static char *kernel(const pclr_config *cfg, pclr_backend b, pclr_result want, const char *map) {
    pclr_config c = *cfg;
    pclr_result r;
    size_t need = 12345;
    char *src, sentinel[64];
    c.backend = b;
    r = pclr_kernel_source(&c, NULL, 0, &need);
    REQUIRE(r == want);
    memset(sentinel, 'Q', sizeof sentinel - 1);
    sentinel[sizeof sentinel - 1] = '\0';
    if (r != PCLR_OK) {
        REQUIRE(need == 0);
        r = pclr_kernel_source(&c, sentinel, sizeof sentinel, &need);
        REQUIRE(r == want && need == 0);
        REQUIRE(sentinel[0] == 'Q' || sentinel[0] == '\0');
        REQUIRE(strspn(sentinel + 1, "Q") == sizeof sentinel - 2); /* nothing written: no byte of the map either */
        return NULL;
    }
    REQUIRE(need > 1);
    src = (char *)malloc(need);
    REQUIRE(src);
    REQUIRE(pclr_kernel_source(&c, src, need, NULL) == PCLR_OK && strlen(src) + 1 == need);
    REQUIRE(strncmp(src, "/* pclreduce", 12) == 0);
    REQUIRE(paren_depth(src) < 256);
    return src;
}

/* ---- a reduction's description (op custom) ---- */
static const pclr_type t_ftype[] = {PCLR_INT, PCLR_UINT, PCLR_INT64, PCLR_UINT64, PCLR_FLOAT, PCLR_DOUBLE};

static int is_ftype(pclr_type t) {
    size_t k;
    for (k = 0; k < sizeof t_ftype / sizeof t_ftype[0]; ++k)
        if (t == t_ftype[k]) return 1;
    return 0;
}

/* whether text starts with a clause's word (after blanks and ';') */
static int is_description(const uint8_t *p, size_t n) {
    static const char *const words[4] = {"state", "lift", "merge", "result"};
    size_t k = 0, w;
    while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r' || p[k] == '\n' || p[k] == ';')) ++k;
    for (w = 0; w < 4; ++w) {
        const size_t l = strlen(words[w]);
        if (n - k >= l && !memcmp(p + k, words[w], l)) return 1;
    }
    return 0;
}

/* the sentences of a refused description that name no line */
static int reduce_config_sentence(const char *why) {
    return strstr(why, "components must") || strstr(why, "map_type belongs") || strstr(why, "reduce describes a reduction of op custom") ||
           strstr(why, "op custom reduces as reduce describes") || strstr(why, "write the map's expression in lift") ||
           strncmp(why, "reduce: the identity is not neutral for merge: for s = {", 56) == 0 ||
           strncmp(why, "reduce: an integer merge must be associative: for p = {", 55) == 0;
}

static void fuzz_reduce(const uint8_t *data, size_t size) {
    static char text[PCLR_REDUCE_MAX_LENGTH + 64], spaced[3 * sizeof text + 8];
    static const pclr_layout layouts[8] = {PCLR_LAYOUT_ONE, PCLR_LAYOUT_ONE, PCLR_LAYOUT_ONE, PCLR_LAYOUT_ONE,
                                           PCLR_LAYOUT_ROWS, PCLR_LAYOUT_COLUMNS, PCLR_LAYOUT_SEGMENTS, PCLR_LAYOUT_ROWS};
    static const pclr_backend backends[3] = {PCLR_OPENCL, PCLR_CUDA, PCLR_VULKAN};
    pclr_config cfg, out;
    char params[256], why[600];
    const char *rwhy = NULL;
    const uint8_t *rest;
    size_t k, tl, pl = 0, nrest, caps[4] = {0, 1, 40, sizeof why};
    pclr_result rc, rr, rb[3];
    int has_params, flags, lines = 1, longest = 0, line = 0;
    char *src[3];
    memset(&cfg, 0, sizeof cfg);
    cfg.type = (pclr_type)PICK(t_type, data[0]);
    cfg.y_type = (pclr_type)PICK(t_ytype, data[1]);
    cfg.components = PICK(t_comps, data[2]);
    cfg.map_type = data[3] % 16 == 15 ? PCLR_FLOAT : PCLR_TYPE_DEFAULT; /* (refused: a map's) */
    cfg.layout = layouts[(data[3] >> 4) & 7];
    if (cfg.layout != PCLR_LAYOUT_ONE) {
        cfg.rows = 1 + (uint64_t)(data[4] >> 4) * 37;
        cfg.cols = 1 + (uint64_t)(data[5] >> 4) * 101;
    }
    cfg.op = data[4] % 16 == 15 ? (pclr_op)PICK(t_op, data[4] >> 4) : PCLR_CUSTOM;
    cfg.accumulate = (pclr_accumulate)PICK(t_acc, data[5]);
    if (data[5] % 32 == 31) cfg.map = "x"; /* (refused: write it in lift) */
    flags = data[6];
    data += 7;
    size -= 7;
    for (tl = 0; tl < size && data[tl] && tl < sizeof text - 1; ++tl) text[tl] = (char)data[tl];
    text[tl] = '\0';
    has_params = tl < size && !data[tl] && !(flags & 1);
    k = tl < size ? tl + 1 : size;
    if (has_params) {
        for (pl = 0; k + pl < size && data[k + pl] && pl < sizeof params - 1; ++pl) params[pl] = (char)data[k + pl];
        params[pl] = '\0';
        k += pl < size - k ? pl + 1 : pl;
    }
    rest = data + k;
    nrest = size - k;
    cfg.reduce = text;
    cfg.params = has_params ? params : NULL;
    for (k = 0; k < tl; ++k) { /* the lines and the longest one, for the sentences' places */
        if (text[k] == '\n') { ++lines; line = 0; }
        else if (++line > longest) longest = line;
    }

    /* the check: a NUL-terminated sentence within cap, with the line and column of a syntax error */
    {
        const size_t cap = caps[(flags >> 1) & 3];
        memset(why, 'Z', sizeof why);
        rc = pclr_map_check(&cfg, cap ? why : NULL, cap);
        REQUIRE(rc == PCLR_OK || rc == PCLR_ERR_INVALID_MAP || rc == PCLR_ERR_INVALID_ENUM);
        if (cap) REQUIRE(memchr(why, '\0', cap) != NULL);
        if (cap < sizeof why) REQUIRE(pclr_map_check(&cfg, why, sizeof why) == rc);
        if (rc == PCLR_OK) REQUIRE(why[0] == '\0');
        else REQUIRE(why[0] != '\0' && strlen(why) < sizeof why);
        if (rc == PCLR_ERR_INVALID_MAP && !reduce_config_sentence(why)) {
            long l = -1, c = -1;
            if (strncmp(why, "map, column ", 12) == 0) { /* the parameters' declaration */
                c = strtol(why + 12, NULL, 10);
                REQUIRE(has_params && strstr(why, "params: ") && c >= 1 && (size_t)c <= pl + 1);
            } else {
                REQUIRE(sscanf(why, "reduce, line %ld, column %ld: ", &l, &c) == 2);
                REQUIRE(l >= 1 && l <= lines && c >= 1 && c <= longest + 1);
            }
        }
    }
    rr = pclr_config_resolve(&cfg, &out, &rwhy);
    REQUIRE((rr == PCLR_OK) == (rwhy == NULL));
    if (rc != PCLR_OK) REQUIRE(rr == rc);
    else REQUIRE(rr != PCLR_ERR_INVALID_MAP && rr != PCLR_ERR_INVALID_ENUM);
    REQUIRE((pclr_result_size(&cfg) > 0) == (rr == PCLR_OK));

    /* the kernels: generated exactly when resolve takes the config for that backend */
    for (k = 0; k < 3; ++k) {
        pclr_config cb = cfg;
        cb.backend = backends[k];
        rb[k] = pclr_config_resolve(&cb, &out, NULL);
        if (rc != PCLR_OK) REQUIRE(rb[k] == rc);
        src[k] = kernel(&cfg, backends[k], rb[k], text);
    }
    if (rc == PCLR_OK && (src[0] || src[1] || src[2])) {
        /* the same description with its spaces tripled and three spaces before and after: accepted, and
           only inside comments (no generator writes a name or number between runs of 3 spaces) */
        size_t a = 3, b;
        memcpy(spaced, "   ", 3);
        for (b = 0; b < tl; ++b) {
            if (text[b] == ' ') { memcpy(spaced + a, "   ", 3); a += 3; }
            else spaced[a++] = text[b];
        }
        memcpy(spaced + a, "   ", 4);
        a += 3;
        if (a <= PCLR_REDUCE_MAX_LENGTH) {
            pclr_config cs = cfg;
            cs.reduce = spaced;
            REQUIRE(pclr_map_check(&cs, NULL, 0) == PCLR_OK);
            for (k = 0; k < 3; ++k) {
                char *sk;
                if (!src[k]) continue;
                sk = kernel(&cs, backends[k], PCLR_OK, spaced);
                REQUIRE(only_in_comments(sk, spaced));
                free(sk);
            }
        }
    }
    for (k = 0; k < 3; ++k) free(src[k]);

    /* describe: the description quoted, or "(not printable)" */
    {
        static char d[2 * sizeof text + 4096];
        const size_t n = pclr_config_describe(&cfg, d, sizeof d);
        REQUIRE(n > 0 && strlen(d) < sizeof d);
        if (cfg.op == PCLR_CUSTOM && !cfg.map && text[0] && n < sizeof d) REQUIRE(strstr(d, " reduce=\"") != NULL);
    }

    /* the CPU reference on a few elements, twice; n = 0; pclr_combine with the identity's result */
    {
        pclr_custom_result r1, r2, id, c;
        double pv[PCLR_MAP_MAX_PARAMS];
        unsigned char x[16 * 32], y[16 * 32];
        const uint64_t n = (uint64_t)(flags >> 3) % 17;
        pclr_result r;
        int j;
        for (k = 0; k < PCLR_MAP_MAX_PARAMS; ++k) {
            const uint8_t b = nrest ? rest[k % nrest] : 0;
            pv[k] = (b & 0x80) ? PICK(t_param, b) : (double)(int8_t)b * 0.25;
            if (b == 0x7f) pv[k] = NAN;
        }
        for (k = 0; k < sizeof x; ++k) {
            x[k] = nrest ? rest[(k + 3) % nrest] : (uint8_t)k;
            y[k] = nrest ? rest[(k * 7 + 1) % nrest] : (uint8_t)(k * 13);
        }
        memset(&r1, 0xa5, sizeof r1);
        memset(&r2, 0x5a, sizeof r2);
        r = pclr_cpu_reduce_map(&cfg, x, y, n, pv, &r1);
        if (rc != PCLR_OK) {
            REQUIRE(r == rc);
            return;
        }
        if (rr != PCLR_OK) return; /* (a layout or knob the CPU reference does not read) */
        REQUIRE(r == PCLR_OK);
        REQUIRE(pclr_cpu_reduce_map(&cfg, x, y, n, pv, &r2) == PCLR_OK);
        REQUIRE(r1.values >= 1 && r1.values <= PCLR_CUSTOM_MAX && r1.fields >= 1 && r1.fields <= PCLR_CUSTOM_MAX);
        for (j = 0; j < r1.values; ++j) REQUIRE(is_ftype(r1.type[j]));
        for (j = 0; j < r1.fields; ++j) REQUIRE(is_ftype(r1.state_type[j]));
        REQUIRE(r1.values == r2.values && r1.fields == r2.fields);
        REQUIRE(!memcmp(r1.field, r2.field, sizeof r1.field) && !memcmp(r1.value, r2.value, sizeof r1.value));
        REQUIRE(pclr_cpu_reduce_map(&cfg, NULL, NULL, 0, pv, &id) == PCLR_OK);
        REQUIRE(id.values == r1.values && id.fields == r1.fields);
        REQUIRE(pclr_combine(&cfg, &r1, &id, n, &c) == PCLR_OK);
        REQUIRE(c.fields == r1.fields && !memcmp(c.field, r1.field, sizeof c.field)); /* (a merge with the identity is the other state) */
        REQUIRE(pclr_combine(&cfg, &id, &r1, 0, &c) == PCLR_OK);
        REQUIRE(c.fields == r1.fields && !memcmp(c.field, r1.field, sizeof c.field));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pclr_config cfg, out;
    char map[1200], params[1200], why[300], *cl, *cu;
    const char *rwhy = NULL;
    const uint8_t *rest;
    size_t k, ml, pl = 0, nrest, caps[4] = {0, 1, 24, sizeof why};
    pclr_result rc, rr;
    int has_params, flags, has_map;
    if (size < 7) return 0;
    if (is_description(data + 7, size - 7)) {
        fuzz_reduce(data, size);
        return 0;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.type = (pclr_type)PICK(t_type, data[0]);
    cfg.y_type = (pclr_type)PICK(t_ytype, data[1]);
    cfg.components = PICK(t_comps, data[2]);
    cfg.map_type = (pclr_type)PICK(t_maptype, data[3]);
    cfg.op = (pclr_op)PICK(t_op, data[4]);
    cfg.accumulate = (pclr_accumulate)PICK(t_acc, data[5]);
    flags = data[6];
    data += 7;
    size -= 7;
    /* the map up to the first NUL, the params up to the next */
    for (ml = 0; ml < size && data[ml] && ml < sizeof map - 1; ++ml) map[ml] = (char)data[ml];
    map[ml] = '\0';
    has_params = ml < size && !data[ml] && !(flags & 1);
    k = ml < size ? ml + 1 : size;
    if (has_params) {
        for (pl = 0; k + pl < size && data[k + pl] && pl < sizeof params - 1; ++pl) params[pl] = (char)data[k + pl];
        params[pl] = '\0';
        k += pl < size - k ? pl + 1 : pl;
    }
    rest = data + k;
    nrest = size - k;
    cfg.map = map;
    cfg.params = has_params ? params : NULL;
    has_map = map[0] != '\0';

    /* the check: a NUL-terminated sentence within cap, with a column on a map error */
    {
        const size_t cap = caps[(flags >> 1) & 3];
        memset(why, 'Z', sizeof why);
        rc = pclr_map_check(&cfg, cap ? why : NULL, cap);
        REQUIRE(rc == PCLR_OK || rc == PCLR_ERR_INVALID_MAP || rc == PCLR_ERR_INVALID_ENUM);
        if (cap) REQUIRE(memchr(why, '\0', cap) != NULL);
        if (cap < sizeof why) REQUIRE(pclr_map_check(&cfg, why, sizeof why) == rc);
        if (rc == PCLR_OK) REQUIRE(why[0] == '\0');
        else REQUIRE(why[0] != '\0' && strlen(why) < sizeof why);
        if (rc == PCLR_ERR_INVALID_MAP && !config_sentence(why)) {
            const char *p = strstr(why, "column ");
            const long col = p ? strtol(p + 7, NULL, 10) : -1;
            REQUIRE(strncmp(why, "map, column ", 12) == 0);
            REQUIRE(col >= 1 && (size_t)col <= (ml > pl ? ml : pl) + 1);
        }
    }
    rr = pclr_config_resolve(&cfg, &out, &rwhy);
    REQUIRE((rr == PCLR_OK) == (rwhy == NULL));
    if (rc != PCLR_OK) {
        REQUIRE(rr == rc);
    } else {
        /* the map is fine: anything resolve still refuses is not the map's fault */
        REQUIRE(rr != PCLR_ERR_INVALID_MAP && rr != PCLR_ERR_INVALID_ENUM);
        if (rr != PCLR_OK) REQUIRE(rr == PCLR_ERR_UNSUPPORTED_COMBINATION && cfg.accumulate == PCLR_COMPENSATED);
    }
    REQUIRE((pclr_result_size(&cfg) > 0) == (rr == PCLR_OK));

    /* the three map sources */
    {
        static const char *const langs[3] = {"opencl", "cuda", "glsl"};
        for (k = 0; k < 3; ++k) {
            size_t need = 777;
            char small[16];
            const pclr_result r = pclr_map_source(&cfg, langs[k], NULL, 0, &need);
            if (rc != PCLR_OK || !has_map) {
                REQUIRE(r == (rc != PCLR_OK ? rc : PCLR_ERR_INVALID_MAP) && need == 0);
                memset(small, 'Q', sizeof small);
                REQUIRE(pclr_map_source(&cfg, langs[k], small, sizeof small, NULL) == r && small[0] == 'Q');
                continue;
            }
            REQUIRE(r == PCLR_OK && need > 1);
            {
                char *fn = (char *)malloc(need);
                REQUIRE(fn);
                REQUIRE(pclr_map_source(&cfg, langs[k], fn, need, NULL) == PCLR_OK && strlen(fn) + 1 == need);
                REQUIRE(strstr(fn, "pclr_map(") != NULL);
                free(fn);
            }
            memset(small, 'Q', sizeof small);
            REQUIRE(pclr_map_source(&cfg, langs[k], small, need < sizeof small ? need - 1 : sizeof small, NULL) == PCLR_ERR_BUFFER_TOO_SMALL);
            REQUIRE(small[0] == '\0');
        }
    }

    /* the kernels: generated exactly when resolve takes the config; the map's text only in comments */
    {
        pclr_config cb = cfg;
        pclr_result rcl, rcu;
        cb.backend = PCLR_OPENCL;
        rcl = pclr_config_resolve(&cb, &out, NULL);
        cb.backend = PCLR_CUDA;
        rcu = pclr_config_resolve(&cb, &out, NULL);
        REQUIRE(rcl == rr && rcu == rr);
        cl = kernel(&cfg, PCLR_OPENCL, rr, map);
        cu = kernel(&cfg, PCLR_CUDA, rr, map);
        if (cl && cu && has_map) {
            /* the same map with its spaces tripled and three spaces before and after: accepted too, and
               only inside comments (no generator writes a name or number between runs of 3 spaces) */
            char spaced[3 * sizeof map + 8];
            size_t a = 3, b;
            memcpy(spaced, "   ", 3);
            for (b = 0; b < ml; ++b) {
                if (map[b] == ' ') { memcpy(spaced + a, "   ", 3); a += 3; }
                else spaced[a++] = map[b];
            }
            memcpy(spaced + a, "   ", 4);
            a += 3;
            if (a <= PCLR_MAP_MAX_LENGTH) {
                pclr_config cs = cfg;
                char *scl, *scu;
                cs.map = spaced;
                REQUIRE(pclr_map_check(&cs, NULL, 0) == PCLR_OK);
                scl = kernel(&cs, PCLR_OPENCL, PCLR_OK, spaced);
                scu = kernel(&cs, PCLR_CUDA, PCLR_OK, spaced);
                REQUIRE(only_in_comments(scl, spaced) && only_in_comments(scu, spaced));
                free(scl);
                free(scu);
            }
        }
        free(cl);
        free(cu);
    }

    /* describe: the map quoted, or "(not printable)" */
    {
        char d[4096];
        const size_t n = pclr_config_describe(&cfg, d, sizeof d);
        REQUIRE(n > 0 && strlen(d) < sizeof d);
        if (has_map && n < sizeof d) REQUIRE(strstr(d, " map=\"") != NULL);
    }

    /* the CPU reference on a few elements */
    {
        const pclr_type rt = pclr_reduced_type(&cfg);
        union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result) + 16]; } res;
        double pv[PCLR_MAP_MAX_PARAMS];
        unsigned char x[16 * 32], y[16 * 32];
        const uint64_t n = (uint64_t)(flags >> 3) % 17;
        pclr_result r;
        if (rc == PCLR_OK && has_map)
            REQUIRE(rt == PCLR_INT || rt == PCLR_UINT || rt == PCLR_INT64 || rt == PCLR_UINT64 || rt == PCLR_FLOAT || rt == PCLR_DOUBLE);
        for (k = 0; k < PCLR_MAP_MAX_PARAMS; ++k) {
            const uint8_t b = nrest ? rest[k % nrest] : 0;
            pv[k] = (b & 0x80) ? PICK(t_param, b) : (double)(int8_t)b * 0.25;
            if (b == 0x7f) pv[k] = NAN;
            if (b == 0x7e) pv[k] = HUGE_VAL;
        }
        for (k = 0; k < sizeof x; ++k) {
            x[k] = nrest ? rest[(k + 3) % nrest] : (uint8_t)k;
            y[k] = nrest ? rest[(k * 7 + 1) % nrest] : (uint8_t)(k * 13);
        }
        memset(&res, 0xa5, sizeof res);
        r = pclr_cpu_reduce_map(&cfg, x, y, n, pv, &res);
        if (rc != PCLR_OK) {
            REQUIRE(r == rc);
        } else if (rr != PCLR_OK) {
            REQUIRE(r == rr);
        } else {
            const size_t rs = pclr_result_size(&cfg);
            REQUIRE(r == PCLR_OK);
            REQUIRE(rs > 0 && rs <= sizeof res.s && res.b[rs] == 0xa5);
            if (cfg.op == PCLR_COUNT) REQUIRE(res.s.count <= n); /* count's result: one uint64 */
            if (cfg.op == PCLR_ARGMIN || cfg.op == PCLR_ARGMAX) {
                const pclr_arg_result *a = (const pclr_arg_result *)res.b;
                REQUIRE(n ? a->index < n : a->index == UINT64_MAX);
            }
            if (cfg.op == PCLR_STATS) REQUIRE(res.s.count == n);
            if (has_params) { /* parameters NULL where the map declares some: refused, not read */
                int declared = 0;
                for (k = 0; k < pl; ++k) declared |= params[k] != ' ' && params[k] != '\t' && params[k] != ',';
                r = pclr_cpu_reduce_map(&cfg, x, y, n, NULL, &res);
                REQUIRE(declared ? r == PCLR_ERR_NULL_POINTER : r == PCLR_OK);
            }
        }
    }
    return 0;
}
