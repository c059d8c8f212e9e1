/* libFuzzer harness: bytes -> argv words (split on whitespace and NUL, at
   most 64) -> the tools' knob and map parsers pclr_args_parse_knob and
   pclr_args_parse_map (examples/pclr_args.h: --param's values and types too, --reduce and
   pclr_args_finish_map), --lang through pclr_parse_backend, every word
   through the pclr_parse_* functions and pclr_args_int. Never crashes; the
   parser only returns -1, 0 or 2; every field stays in range (enums inside
   their tables, knobs 0 or 1..2^20); a parsed config then goes through
   resolve / describe / the source size query as pclreduce-gen does. */
#define PCLREDUCE_IMPLEMENTATION
#include "pclreduce.h"
#include "examples/pclr_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                     \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "fuzz_cli: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

#define MAXW 64
static FILE *g_null;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    g_null = fopen("/dev/null", "w");
    return 0;
}

static int space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

static void check_ranges(const pclr_config *c) {
    REQUIRE((int)c->type >= 0 && c->type < PCLR_TYPE_COUNT_);
    REQUIRE((int)c->op >= 0 && c->op < PCLR_OP_COUNT_);
    REQUIRE((int)c->backend >= 0 && c->backend < PCLR_BACKEND_COUNT_);
    REQUIRE((int)c->stride >= 0 && c->stride < PCLR_STRIDE_COUNT_);
    REQUIRE((int)c->variant >= 0 && c->variant < PCLR_VARIANT_COUNT_);
    REQUIRE((int)c->finish >= 0 && c->finish < PCLR_FINISH_COUNT_);
    REQUIRE(c->wave_width >= 0 && c->wave_width <= (1 << 20));
    REQUIRE(c->group_size >= 0 && c->group_size <= (1 << 20));
    REQUIRE(c->unroll >= 0 && c->unroll <= (1 << 20));
    REQUIRE(c->vector_width >= 0 && c->vector_width <= (1 << 20));
    REQUIRE(c->groups_per_unit >= 0 && c->groups_per_unit <= (1 << 20));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text, *argv[MAXW + 2];
    int argc = 0, i;
    size_t k = 0;
    pclr_config cfg;
    pclr_args_map map; /* --param builds its declaration here; cfg.params points into it */
    FILE *err = g_null ? g_null : stderr;
    if (size > 4096) return 0;
    text = (char *)malloc(size + 1);
    REQUIRE(text);
    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = (char *)"fuzz_cli";
    while (k < size && argc < MAXW + 1) {
        while (k < size && space(text[k])) text[k++] = '\0';
        if (k >= size) break;
        argv[argc++] = text + k;
        while (k < size && !space(text[k])) ++k;
        if (k < size) text[k++] = '\0';
    }
    argv[argc] = NULL;

    memset(&cfg, 0, sizeof cfg);
    memset(&map, 0, sizeof map);
    for (i = 1; i < argc; ++i) {
        int used;
        long long v = 12345;
        pclr_type t, t2;
        pclr_op o;
        pclr_backend d;
        pclr_stride s;
        pclr_variant va;
        pclr_finish f;
        /* every word through the table parsers and the integer parser */
        /* a type's name, or one of its aliases (int32, float16, ...): its name parses back to it */
        if (pclr_parse_type(argv[i], &t) == PCLR_OK)
            REQUIRE(t > 0 && t < PCLR_TYPE_COUNT_ && pclr_parse_type(pclr_type_name(t), &t2) == PCLR_OK && t2 == t);
        if (pclr_parse_op(argv[i], &o) == PCLR_OK) REQUIRE(o > 0 && o < PCLR_OP_COUNT_ && strcmp(pclr_op_name(o), argv[i]) == 0);
        if (pclr_parse_backend(argv[i], &d) == PCLR_OK) REQUIRE((int)d >= 0 && d < PCLR_BACKEND_COUNT_);
        if (pclr_parse_stride(argv[i], &s) == PCLR_OK) REQUIRE(s > 0 && s < PCLR_STRIDE_COUNT_);
        if (pclr_parse_variant(argv[i], &va) == PCLR_OK) REQUIRE(va > 0 && va < PCLR_VARIANT_COUNT_);
        if (pclr_parse_finish(argv[i], &f) == PCLR_OK) REQUIRE(f > 0 && f < PCLR_FINISH_COUNT_);
        if (pclr_args_int(argv[i], -5, 1 << 20, &v) == 0) REQUIRE(v >= -5 && v <= (1 << 20));
        else REQUIRE(v == 12345);

        if (strcmp(argv[i], "--lang") == 0) {
            if (i + 1 < argc && pclr_parse_backend(argv[i + 1], &cfg.backend) == PCLR_OK) ++i;
            continue;
        }
        used = pclr_args_parse_knob(argc, argv, i, &cfg, err, "fuzz_cli");
        if (used == 0) { /* the map's flags: --map, --param [TYPE:]NAME=VALUE, --components, --type2 */
            used = pclr_args_parse_map(argc, argv, i, &cfg, &map, err, "fuzz_cli");
            REQUIRE(map.count >= 0 && map.count <= PCLR_MAP_MAX_PARAMS && memchr(map.params, 0, sizeof map.params) != NULL);
        }
        REQUIRE(used >= -1 && used <= 2); /* 1: a flag without a value (--clamp, --weighted) */
        if (used == 1) REQUIRE(cfg.clamp == 1 || cfg.weighted == 1);
        if (used == 2) {
            REQUIRE(i + 1 < argc);
            i += 1;
        }
        check_ranges(&cfg);
    }
    if (pclr_args_finish_map(&cfg, err, "fuzz_cli") < 0) { /* --reduce: op custom (or refused, as the tools refuse it) */
        REQUIRE(cfg.op != PCLR_CUSTOM || !cfg.reduce || !cfg.reduce[0] || cfg.map);
        free(text);
        return 0;
    }
    REQUIRE(!cfg.reduce || !cfg.reduce[0] || cfg.op == PCLR_CUSTOM);
    check_ranges(&cfg);
    {
        /* as pclreduce-gen goes on */
        pclr_config res;
        const char *why = NULL;
        size_t need = 0;
        char d[8192]; /* the knobs' text plus a map (at most the input's bytes) and its --param declarations */
        pclr_result r = pclr_config_resolve(&cfg, &res, &why);
        REQUIRE((r == PCLR_OK) == (why == NULL));
        REQUIRE(pclr_config_describe(&cfg, d, sizeof d) < sizeof d);
        REQUIRE(pclr_kernel_source(&cfg, NULL, 0, &need) == r);
        REQUIRE((r == PCLR_OK) == (need > 0));
    }
    free(text);
    return 0;
}
