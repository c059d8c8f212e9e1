/* pclreduce-gen: prints the kernel source (or its compiler options) for one
   configuration; with --map, the map's function alone in GLSL for --lang glsl.
   Exit status 2 with a message on stderr for bad arguments. */
#define PCLREDUCE_IMPLEMENTATION
#include "../pclreduce.h"
#include "../examples/pclr_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: pclreduce-gen --backend opencl|cuda\n"
            "                     --type uint8|int8|uint16|int16|uint|int|uint64|int64|half|float|double\n"
            "                     --op sum|min|max|argmin|argmax|minmax|stats|count\n"
            "                     [--accumulate native|wide|compensated|exact]\n"
            "                     [--wave N] [--group N] [--unroll N] [--vector N] [--stride global|local]\n"
            "                     [--variant naive|sequential|unrolled|shuffle|collective]\n"
            "                     [--finish last_group|atomic|partials] [--groups-per-unit N] [--options]\n"
            "                     [--map EXPR [--param [TYPE:]NAME=VALUE]... [--components 2|4] [--type2 TYPE]]\n"
            "       pclreduce-gen --lang glsl --type T --map EXPR ...   the map's GLSL function\n");
}

int main(int argc, char **argv) {
    pclr_config cfg;
    pclr_args_map map;
    int want_options = 0, glsl = 0, i;
    char *text;
    size_t size = 0;
    pclr_result r;
    const char *why = NULL;
    memset(&cfg, 0, sizeof cfg);
    memset(&map, 0, sizeof map);
    for (i = 1; i < argc; ++i) {
        int used;
        if (strcmp(argv[i], "--options") == 0) { want_options = 1; continue; }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) { usage(stdout); return 0; }
        if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc && strcmp(argv[i + 1], "glsl") == 0) {
            glsl = 1;
            ++i;
            continue;
        }
        if (strcmp(argv[i], "--backend") == 0 || strcmp(argv[i], "--lang") == 0) { /* --lang: the old name */
            if (i + 1 >= argc || pclr_parse_backend(argv[i + 1], &cfg.backend) != PCLR_OK ||
                (cfg.backend != PCLR_OPENCL && cfg.backend != PCLR_CUDA)) {
                fprintf(stderr, "pclreduce-gen: --backend needs opencl or cuda\n");
                return 2;
            }
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
    if (glsl) { /* the map alone: the Vulkan backend's language */
        char why[256];
        if (!cfg.map || (r = pclr_map_check(&cfg, why, sizeof why)) != PCLR_OK) {
            fprintf(stderr, "pclreduce-gen: %s\n", cfg.map ? why : "--lang glsl prints a map: give --map");
            return 2;
        }
        if ((r = pclr_map_source(&cfg, "glsl", NULL, 0, &size)) != PCLR_OK || !(text = (char *)malloc(size))) return 1;
        pclr_map_source(&cfg, "glsl", text, size, NULL);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    if (cfg.backend == PCLR_BACKEND_DEFAULT || cfg.type == PCLR_TYPE_DEFAULT || cfg.op == PCLR_OP_DEFAULT) {
        fprintf(stderr, "pclreduce-gen: --backend, --type and --op are required\n");
        usage(stderr);
        return 2;
    }
    if ((r = pclr_config_resolve(&cfg, &cfg, &why)) != PCLR_OK) {
        char where[256];
        if (r == PCLR_ERR_INVALID_MAP && pclr_map_check(&cfg, where, sizeof where) != PCLR_OK) why = where;
        fprintf(stderr, "pclreduce-gen: %s (%s)\n", why, pclr_result_string(r));
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
