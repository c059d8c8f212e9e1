/* Shared command-line parsing of the tuning flags (pclreduce-gen, pclreduce-run, bench). */
#ifndef PCLR_ARGS_H
#define PCLR_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a decimal integer in [lo, hi]; 0 on success. */
static inline int pclr_args_int(const char *s, long long lo, long long hi, long long *out) {
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
static inline int pclr_args_parse_knob(int argc, char **argv, int i, pclr_config *cfg, FILE *err, const char *prog) {
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

/* Deterministic random data for a seed (the tools and the demo agree on it):
   uint/int: the full 32-bit range; float/double: uniform in [-1, 1). */
static inline void pclr_args_fill_random(pclr_type type, void *data, uint64_t n, uint64_t seed) {
    uint64_t i, st = seed * 0x9e3779b97f4a7c15ull + 1;
    for (i = 0; i < n; ++i) {
        uint64_t z = (st += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        switch (type) {
        case PCLR_UINT: case PCLR_INT: ((uint32_t *)data)[i] = (uint32_t)z; break;
        case PCLR_DOUBLE: ((double *)data)[i] = (double)(z >> 11) / 4503599627370496.0 - 1.0; break;
        default: ((float *)data)[i] = (float)((double)(z >> 40) / 8388608.0 - 1.0); break;
        }
    }
}

/* 1 when got is the reduction of data: integers and min/max bit for bit against
   the CPU reference; float sums within the error bound of a tree sum,
   2 eps log2(n + 2) sum |x|, of a sum in double precision. */
static inline int pclr_args_matches(pclr_type t, pclr_op op, const void *got, const void *data, uint64_t n) {
    unsigned char ref[8];
    double sum = 0, abs_sum = 0, g, levels = 1;
    uint64_t i;
    pclr_cpu_reduce(t, op, data, n, ref);
    if (op != PCLR_SUM || t == PCLR_UINT || t == PCLR_INT) return memcmp(got, ref, pclr_type_size(t)) == 0;
    for (i = 0; i < n; ++i) {
        double x = t == PCLR_FLOAT ? (double)((const float *)data)[i] : ((const double *)data)[i];
        sum += x;
        abs_sum += x < 0 ? -x : x;
    }
    for (i = n + 2; i > 1; i /= 2) ++levels;
    g = t == PCLR_FLOAT ? (double)*(const float *)got : *(const double *)got;
    return (g > sum ? g - sum : sum - g) <= 2 * (t == PCLR_FLOAT ? 1.2e-7 : 2.3e-16) * levels * (abs_sum + 1);
}

/* Formats one element as the tools print it: integers in decimal, float
   %.9g, double %.17g (enough digits to read the exact value back). */
static inline void pclr_args_format_value(pclr_type type, const void *v, char *buf, size_t cap) {
    switch (type) {
    case PCLR_UINT: snprintf(buf, cap, "%u", (unsigned)*(const uint32_t *)v); break;
    case PCLR_INT: snprintf(buf, cap, "%d", (int)*(const int32_t *)v); break;
    case PCLR_DOUBLE: snprintf(buf, cap, "%.17g", *(const double *)v); break;
    default: snprintf(buf, cap, "%.9g", (double)*(const float *)v); break;
    }
}

#endif
