/* pclreduce-gen: prints the kernel source (or its compiler options) for one
   configuration: OpenCL C (--backend opencl), CUDA C (cuda) or the Vulkan
   backend's GLSL 4.50 compute shader (vulkan; glsl is the same). --lang is
   the old name of --backend and takes the same values. For vulkan/glsl with
   --map and no --op: the map's GLSL function alone. --reduce TEXT: the kernel
   of a reduction of one's own (op custom; README "Your own reductions"), with
   --param, --components and --type2 as for --map; an invalid description
   prints pclr_map_check's sentence.
   Exit status 2 with a message on stderr for bad arguments. */
#define PCLREDUCE_IMPLEMENTATION
#include "../pclreduce.h"
#include "../examples/pclr_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: pclreduce-gen --backend opencl|cuda|vulkan   (--lang: the same; glsl = vulkan)\n"
            "                     --type uint8|int8|uint16|int16|uint|int|uint64|int64|half|float|double\n"
            "                     --op sum|min|max|argmin|argmax|minmax|stats|count|\n"
            "                          prod|and|or|xor|any|all|argminmax|custom  (custom: with --reduce)\n"
            "                     [--accumulate native|wide|compensated|exact]\n"
            "                     [--wave N] [--group N] [--unroll N] [--vector N] [--stride global|local|simd]\n"
            "                     [--variant naive|sequential|unrolled|shuffle|collective]\n"
            "                     [--finish last_group|atomic|partials] [--groups-per-unit N] [--options]\n"
            "                     [--map EXPR [--param [TYPE:]NAME=VALUE]... [--components 2|4] [--type2 TYPE]]\n"
            "                     [--reduce 'state F: TYPE = IDENTITY, ...; lift F = EXPR, ...; merge F = EXPR, ...;\n"
            "                                result EXPR, ...'  (op custom: --op may be left out; --param, --components\n"
            "                                and --type2 as for --map)]\n"
            "                     [--rows R --cols C [--pitch P] [--axis row|col] | --segments FILE]\n"
            "       pclreduce-gen --backend vulkan --type T --map EXPR ...   (no --op) the map's GLSL function alone\n"
            "  vulkan (glsl): the GLSL 4.50 compute shader pclreduce_vk.h compiles to SPIR-V (glslc -fshader-stage=comp\n"
            "  --target-env=vulkan1.1 takes it as is); its build options are none (--options prints an empty line)\n"
            "  --rows/--cols/--pitch/--axis/--segments as pclreduce-run takes them: the layout program the planner picks for\n"
            "  that shape (on a device of one compute unit; FILE holds K + 1 little-endian uint64 offsets)\n");
}

int main(int argc, char **argv) {
    pclr_config cfg = PCLR_ZERO;
    pclr_args_map map;
    int want_options = 0, segments = 0, i;
    char *text;
    size_t size = 0;
    pclr_result r;
    const char *why = NULL;
    memset(&map, 0, sizeof map);
    for (i = 1; i < argc; ++i) {
        int used;
        if (strcmp(argv[i], "--options") == 0) { want_options = 1; continue; }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) { usage(stdout); return pclr_args_close_stdout("pclreduce-gen"); }
        if (strcmp(argv[i], "--backend") == 0 || strcmp(argv[i], "--lang") == 0) { /* --lang: the old name, the same values */
            if (i + 1 < argc && strcmp(argv[i + 1], "glsl") == 0) cfg.backend = PCLR_VULKAN; /* the language of the vulkan backend */
            else if (i + 1 >= argc || pclr_parse_backend(argv[i + 1], &cfg.backend) != PCLR_OK ||
                     (cfg.backend != PCLR_OPENCL && cfg.backend != PCLR_CUDA && cfg.backend != PCLR_VULKAN)) {
                fprintf(stderr, "pclreduce-gen: %s needs opencl, cuda or vulkan (glsl)\n", argv[i]);
                return 2;
            }
            ++i;
            continue;
        }
        if (strcmp(argv[i], "--rows") == 0 || strcmp(argv[i], "--cols") == 0 || strcmp(argv[i], "--pitch") == 0) {
            long long x;
            if (i + 1 >= argc || pclr_args_int(argv[i + 1], 0, (long long)1 << 62, &x) != 0) {
                fprintf(stderr, "pclreduce-gen: %s needs an integer from 0 to 2^62\n", argv[i]);
                return 2;
            }
            if (argv[i][2] == 'r') cfg.rows = (uint64_t)x; else if (argv[i][2] == 'c') cfg.cols = (uint64_t)x; else cfg.pitch = (uint64_t)x;
            if (!cfg.layout) cfg.layout = PCLR_LAYOUT_ROWS;
            ++i;
            continue;
        }
        if (strcmp(argv[i], "--axis") == 0) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "row") != 0 && strcmp(argv[i + 1], "col") != 0)) {
                fprintf(stderr, "pclreduce-gen: --axis must be row or col\n");
                return 2;
            }
            cfg.layout = argv[++i][0] == 'r' ? PCLR_LAYOUT_ROWS : PCLR_LAYOUT_COLUMNS;
            continue;
        }
        if (strcmp(argv[i], "--segments") == 0) { /* the offsets give the count and the average length the planner reads */
            size_t len = 0;
            unsigned char *bytes = i + 1 < argc ? pclr_args_read_file(argv[i + 1], "--segments", "pclreduce-gen", &len) : NULL;
            uint64_t last = 0;
            int b;
            if (i + 1 >= argc) fprintf(stderr, "pclreduce-gen: --segments needs a file\n");
            if (!bytes) return 2;
            if (len < 8 || len % 8) {
                fprintf(stderr, "pclreduce-gen: --segments '%s' must hold K + 1 >= 1 little-endian uint64 offsets\n", argv[i + 1]);
                free(bytes);
                return 2;
            }
            for (b = 7; b >= 0; --b) last = last << 8 | bytes[len - 8 + (size_t)b];
            free(bytes);
            segments = 1;
            cfg.rows = len / 8 - 1;
            cfg.cols = cfg.rows ? last / cfg.rows : 0;
            ++i;
            continue;
        }
        used = pclr_args_parse_knob(argc, argv, i, &cfg, stderr, "pclreduce-gen");
        if (used == 0) used = pclr_args_parse_map(argc, argv, i, &cfg, &map, stderr, "pclreduce-gen");
        if (used < 0) return 2;
        if (used == 0) {
            fprintf(stderr, "pclreduce-gen: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        i += used - 1;
    }
    if (segments && cfg.layout) {
        fprintf(stderr, "pclreduce-gen: give --rows/--cols or --segments, not both\n");
        return 2;
    }
    if (cfg.layout && !cfg.rows && !cfg.cols) {
        fprintf(stderr, "pclreduce-gen: --axis and --pitch go with --rows and --cols\n");
        return 2;
    }
    if (segments) cfg.layout = PCLR_LAYOUT_SEGMENTS;
    if (pclr_args_finish_map(&cfg, stderr, "pclreduce-gen") < 0) return 2; /* --reduce: op custom */
    if (cfg.backend == PCLR_VULKAN && cfg.op == PCLR_OP_DEFAULT && cfg.map && !want_options) { /* the map's GLSL function alone */
        char where[256];
        if (cfg.type == PCLR_TYPE_DEFAULT) {
            fprintf(stderr, "pclreduce-gen: --type is required\n");
            return 2;
        }
        if ((r = pclr_map_check(&cfg, where, sizeof where)) != PCLR_OK) {
            fprintf(stderr, "pclreduce-gen: %s\n", where);
            return 2;
        }
        if ((r = pclr_map_source(&cfg, "glsl", NULL, 0, &size)) != PCLR_OK || !(text = (char *)malloc(size))) {
            fprintf(stderr, "pclreduce-gen: %s\n", pclr_result_string(r != PCLR_OK ? r : PCLR_ERR_OUT_OF_MEMORY));
            return 1;
        }
        r = pclr_map_source(&cfg, "glsl", text, size, NULL);
        if (r == PCLR_OK) fputs(text, stdout);
        free(text);
        return r == PCLR_OK ? pclr_args_close_stdout("pclreduce-gen") : 1;
    }
    if (cfg.backend == PCLR_BACKEND_DEFAULT || cfg.type == PCLR_TYPE_DEFAULT || cfg.op == PCLR_OP_DEFAULT) {
        fprintf(stderr, "pclreduce-gen: --backend, --type and --op (or --reduce) are required\n");
        usage(stderr);
        return 2;
    }
    if ((r = pclr_config_resolve(&cfg, &cfg, &why)) != PCLR_OK) {
        char where[1024]; /* (a reduction's counterexample: states of up to 8 fields) */
        if (r == PCLR_ERR_INVALID_MAP && pclr_map_check(&cfg, where, sizeof where) != PCLR_OK) why = where;
        if (cfg.op == PCLR_CUSTOM && why == where) fprintf(stderr, "pclreduce-gen: %s\n", why); /* the description's sentence, as it is */
        else fprintf(stderr, "pclreduce-gen: %s (%s)\n", why, pclr_result_string(r));
        return 2;
    }
    r = want_options ? pclr_kernel_options(&cfg, NULL, 0, &size) : pclr_kernel_source(&cfg, NULL, 0, &size);
    if (r != PCLR_OK || !(text = (char *)malloc(size))) {
        fprintf(stderr, "pclreduce-gen: %s\n", pclr_result_string(r != PCLR_OK ? r : PCLR_ERR_OUT_OF_MEMORY));
        return 1;
    }
    r = want_options ? pclr_kernel_options(&cfg, text, size, NULL) : pclr_kernel_source(&cfg, text, size, NULL);
    if (r == PCLR_OK) {
        fputs(text, stdout);
        if (want_options) fputc('\n', stdout);
    }
    free(text);
    return r == PCLR_OK ? pclr_args_close_stdout("pclreduce-gen") : 1;
}
