/* Shared command-line parsing of the tuning flags (pclreduce-gen, pclreduce-run, bench). */
#ifndef PCLR_ARGS_H
#define PCLR_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a decimal integer in [lo, hi]; 0 on success. */
static int pclr_args_int(const char *s, long long lo, long long hi, long long *out) {
    char *end = NULL;
    long long v;
    if (!s || !*s) return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Tries argv[i] as one of the knob flags. Returns the number of argv entries
   used (2), 0 if argv[i] is not a knob flag, -1 after printing an error. */
static int pclr_args_parse_knob(int argc, char **argv, int i, pclr_config *cfg, FILE *err, const char *prog) {
    const char *flag = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    long long v = 0;
    pclr_result r = PCLR_OK;
    int *knob = NULL;
    if (strcmp(flag, "--type") == 0) r = pclr_parse_type(val, &cfg->type);
    else if (strcmp(flag, "--op") == 0) r = pclr_parse_op(val, &cfg->op);
    else if (strcmp(flag, "--stride") == 0) r = pclr_parse_stride(val, &cfg->stride);
    else if (strcmp(flag, "--variant") == 0) r = pclr_parse_variant(val, &cfg->variant);
    else if (strcmp(flag, "--finish") == 0) r = pclr_parse_finish(val, &cfg->finish);
    else if (strcmp(flag, "--wave") == 0) knob = &cfg->wave_width;
    else if (strcmp(flag, "--group") == 0) knob = &cfg->group_size;
    else if (strcmp(flag, "--unroll") == 0) knob = &cfg->unroll;
    else if (strcmp(flag, "--vector") == 0) knob = &cfg->vector_width;
    else if (strcmp(flag, "--groups-per-unit") == 0) knob = &cfg->groups_per_unit;
    else return 0;
    if (!val) {
        fprintf(err, "%s: %s needs a value\n", prog, flag);
        return -1;
    }
    if (knob) {
        if (pclr_args_int(val, 1, 1 << 20, &v) != 0) {
            fprintf(err, "%s: %s needs a positive integer, got '%s'\n", prog, flag, val);
            return -1;
        }
        *knob = (int)v;
    } else if (r != PCLR_OK) {
        fprintf(err, "%s: unknown value '%s' for %s\n", prog, val, flag);
        return -1;
    }
    return 2;
}

#endif
