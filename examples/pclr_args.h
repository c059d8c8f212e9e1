/* Shared command-line parsing of the tuning flags (pclreduce-gen, pclreduce-run, bench). */
#ifndef PCLR_ARGS_H
#define PCLR_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

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
   used (2, or 1 for --clamp and --weighted), 0 if argv[i] is not a knob flag, -1 after printing an error. */
static inline int pclr_args_parse_knob(int argc, char **argv, int i, pclr_config *cfg, FILE *err, const char *prog) {
    const char *flag = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    long long v = 0;
    pclr_result r = PCLR_OK;
    int *knob = NULL;
    if (strcmp(flag, "--clamp") == 0 || strcmp(flag, "--weighted") == 0) { /* a histogram's (no value) */
        *(flag[2] == 'c' ? &cfg->clamp : &cfg->weighted) = 1;
        return 1;
    }
    if (strcmp(flag, "--bins") == 0) { /* a histogram's: 1 .. PCLR_HISTOGRAM_MAX_BINS */
        if (!val || pclr_args_int(val, 1, PCLR_HISTOGRAM_MAX_BINS, &v) != 0) {
            fprintf(err, "%s: --bins needs an integer from 1 to %d\n", prog, PCLR_HISTOGRAM_MAX_BINS);
            return -1;
        }
        cfg->bins = (uint32_t)v;
        return 2;
    }
    if (strcmp(flag, "--type") == 0) r = pclr_parse_type(val, &cfg->type);
    else if (strcmp(flag, "--op") == 0) r = pclr_parse_op(val, &cfg->op);
    else if (strcmp(flag, "--stride") == 0) r = pclr_parse_stride(val, &cfg->stride);
    else if (strcmp(flag, "--variant") == 0) r = pclr_parse_variant(val, &cfg->variant);
    else if (strcmp(flag, "--finish") == 0) r = pclr_parse_finish(val, &cfg->finish);
    else if (strcmp(flag, "--accumulate") == 0) r = pclr_parse_accumulate(val, &cfg->accumulate);
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

/* A map's flags: --map EXPR, --param [TYPE:]NAME=VALUE (repeatable; TYPE
   int, uint, long, ulong, float or double, else int for an integer VALUE that
   fits an int, long for a larger one, float otherwise; integers beyond 2^53
   are refused: values pass as doubles), --components 2|4 and --type2 T (y's element type).
   --reduce TEXT: a reduction of the user's (op custom, cfg.reduce; README "Your own
   reductions"), whose lift takes --param, --components and --type2 as a map does;
   pclr_args_finish_map then sets the op. */
typedef struct pclr_args_map {
    char params[PCLR_MAP_MAX_PARAMS * 48]; /* the declaration the --param flags make */
    double values[PCLR_MAP_MAX_PARAMS];    /* their values, in order */
    int count;
} pclr_args_map;

/* Like pclr_args_parse_knob, for the map's flags. */
static inline int pclr_args_parse_map(int argc, char **argv, int i, pclr_config *cfg, pclr_args_map *m, FILE *err, const char *prog) {
    const char *flag = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(flag, "--map") && strcmp(flag, "--reduce") && strcmp(flag, "--param") && strcmp(flag, "--components") && strcmp(flag, "--type2"))
        return 0;
    if (!val) {
        fprintf(err, "%s: %s needs a value\n", prog, flag);
        return -1;
    }
    if (!strcmp(flag, "--map")) {
        cfg->map = val;
    } else if (!strcmp(flag, "--reduce")) {
        cfg->reduce = val;
    } else if (!strcmp(flag, "--type2")) {
        if (pclr_parse_type(val, &cfg->y_type) != PCLR_OK) { fprintf(err, "%s: unknown value '%s' for --type2\n", prog, val); return -1; }
    } else if (!strcmp(flag, "--components")) {
        if (strcmp(val, "1") && strcmp(val, "2") && strcmp(val, "4")) { fprintf(err, "%s: --components must be 1, 2 or 4\n", prog); return -1; }
        cfg->components = atoi(val);
    } else { /* --param [TYPE:]NAME=VALUE */
        const char *eq = strchr(val, '='), *colon = strchr(val, ':'), *name = colon && colon < eq ? colon + 1 : val;
        char type[16] = "", *end = NULL;
        size_t len = m->params[0] ? strlen(m->params) : 0;
        double v;
        long long iv;
        int is_int;
        if (!eq || eq == name || m->count == PCLR_MAP_MAX_PARAMS) {
            fprintf(err, "%s: --param needs [TYPE:]NAME=VALUE (at most %d)\n", prog, PCLR_MAP_MAX_PARAMS);
            return -1;
        }
        errno = 0;
        v = strtod(eq + 1, &end);
        if (!eq[1] || *end) { fprintf(err, "%s: --param %s: the value is not a number\n", prog, val); return -1; }
        if (errno == ERANGE && (v > 1 || v < -1)) { /* (an underflow is a subnormal or 0: kept) */
            fprintf(err, "%s: --param %s: the value is beyond a double's range\n", prog, val);
            return -1;
        }
        is_int = pclr_args_int(eq + 1, INT64_MIN, INT64_MAX, &iv) == 0;
        if (is_int && (v >= 9223372036854775808.0 || (long long)v != iv)) { /* values travel as doubles */
            fprintf(err, "%s: --param %s: an integer beyond 2^53 does not pass exactly (parameter values are doubles)\n", prog, val);
            return -1;
        }
        if (colon && colon < eq) snprintf(type, sizeof type, "%.*s", (int)(colon - val), val);
        else snprintf(type, sizeof type, "%s", !is_int ? "float" : iv >= INT32_MIN && iv <= INT32_MAX ? "int" : "long"); /* as C types a literal */
        if (len + strlen(type) + (size_t)(eq - name) + 4 > sizeof m->params) { fprintf(err, "%s: --param: too long\n", prog); return -1; }
        snprintf(m->params + len, sizeof m->params - len, "%s%s %.*s", len ? ", " : "", type, (int)(eq - name), name);
        m->values[m->count++] = v;
        cfg->params = m->params;
    }
    return 2;
}

/* After the flags: --reduce makes the op custom (an explicit --op other than custom with it, --op
   custom without it, and --map with it are refused). 0, or -1 after printing why. */
static inline int pclr_args_finish_map(pclr_config *cfg, FILE *err, const char *prog) {
    const int has_reduce = cfg->reduce && cfg->reduce[0];
    if (cfg->reduce && !has_reduce) {
        fprintf(err, "%s: --reduce needs a description (state ...; lift ...; merge ...; result ...)\n", prog);
        return -1;
    }
    if (has_reduce && cfg->op != PCLR_OP_DEFAULT && cfg->op != PCLR_CUSTOM) {
        fprintf(err, "%s: --reduce describes a reduction of op custom: leave --op out (or give --op custom), not --op %s\n", prog,
                pclr_op_name(cfg->op));
        return -1;
    }
    if (has_reduce && cfg->map) {
        fprintf(err, "%s: --map and --reduce do not go together: write the map's expression in the description's lift\n", prog);
        return -1;
    }
    if (!has_reduce && cfg->op == PCLR_CUSTOM) {
        fprintf(err, "%s: --op custom reduces as --reduce TEXT describes: give --reduce\n", prog);
        return -1;
    }
    if (has_reduce) cfg->op = PCLR_CUSTOM;
    return 0;
}

/* The whole of a file a tool was given, malloc'd, its size in *len; "-" reads standard input to
   its end. Every file a tool reads comes through here. Only a regular file is read: a FIFO would
   block forever, /dev/zero never ends, a directory has nothing to read; the file is opened first
   (non-blocking, so a FIFO cannot block) and checked as opened. A file that does not hold the
   size it states (/proc and /sys files say 0 or 4096 and hold other sizes) is refused too. NULL
   after printing "prog: what 'path': why" on stderr. */
static inline unsigned char *pclr_args_read_file(const char *path, const char *what, const char *prog, size_t *len) {
    const int std_in = strcmp(path, "-") == 0;
    size_t cap = (size_t)1 << 16;
    unsigned char *p = NULL, *grown;
    int failed = 0;
#ifndef _WIN32
    struct stat st;
    const int fd = std_in ? 0 : open(path, O_RDONLY | O_NONBLOCK);
    long got;
    *len = 0;
    if (fd < 0) { fprintf(stderr, "%s: cannot open %s '%s': %s\n", prog, what, path, strerror(errno)); return NULL; }
    if (!std_in && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        fprintf(stderr, "%s: %s '%s' is not a regular file (a FIFO, device or directory%s)\n", prog, what, path,
                strncmp(what, "--input", 7) == 0 ? "; use - for a stream" : "");
        close(fd);
        return NULL;
    }
    for (p = (unsigned char *)malloc(cap); p && !failed;) {
        got = (long)read(fd, p + *len, cap - *len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { failed = got < 0; break; }
        if ((*len += (size_t)got) < cap) continue;
        grown = cap <= SIZE_MAX / 2 ? (unsigned char *)realloc(p, cap *= 2) : NULL;
        if (!grown) free(p);
        p = grown;
    }
    if (!std_in) close(fd);
    if (p && !failed && !std_in && (uint64_t)*len != (uint64_t)st.st_size) {
        fprintf(stderr, "%s: %s '%s' held %llu bytes where its size says %llu (a /proc or /sys file, or one being written)\n", prog,
                what, path, (unsigned long long)*len, (unsigned long long)st.st_size);
        free(p);
        return NULL;
    }
#else
    FILE *f = std_in ? stdin : fopen(path, "rb");
    size_t got;
    *len = 0;
    if (!f) { fprintf(stderr, "%s: cannot open %s '%s': %s\n", prog, what, path, strerror(errno)); return NULL; }
    for (p = (unsigned char *)malloc(cap); p;) {
        got = fread(p + *len, 1, cap - *len, f);
        if ((*len += got) < cap) break;
        grown = cap <= SIZE_MAX / 2 ? (unsigned char *)realloc(p, cap *= 2) : NULL;
        if (!grown) free(p);
        p = grown;
    }
    failed = ferror(f) != 0;
    if (!std_in) fclose(f);
#endif
    if (!p || failed) {
        fprintf(stderr, "%s: cannot read %s '%s'%s\n", prog, what, path, p ? "" : ": out of memory");
        free(p);
        return NULL;
    }
    return p;
}

/* Flushes and closes standard output at the end of a tool: 0, or 1 after
   saying why on stderr (a full disk, a closed pipe): a result that never
   reached its reader is a failure, not exit status 0. */
static inline int pclr_args_close_stdout(const char *prog) {
    int bad = fflush(stdout) != 0;
    bad |= ferror(stdout) != 0;
    bad |= fclose(stdout) != 0;
    if (bad) fprintf(stderr, "%s: cannot write the output: %s\n", prog, strerror(errno));
    return bad;
}

/* IEEE binary16 <-> float on the host (half elements are uint16_t bits):
   exact one way, round to nearest even the other (overflow to inf, NaN kept). */
static inline float pclr_args_half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13); /* inf, NaN */
    else if (e != 0) bits = sign | ((e + 112u) << 23) | (m << 13);
    else if (m == 0) bits = sign; /* +-0 */
    else {                        /* subnormal: m * 2^-24 is exact in float */
        f = (float)m * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    memcpy(&f, &bits, sizeof f);
    return f;
}
static inline uint16_t pclr_args_float_to_half(float f) {
    uint32_t x, sign, e, m;
    memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    e = (x >> 23) & 0xffu;
    m = x & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0)); /* inf, NaN (quiet) */
    if (e > 142) return (uint16_t)(sign | 0x7c00u);                                  /* >= 2^16: inf */
    if (e >= 113) {                                                                    /* normal half */
        uint32_t h = ((e - 112) << 10) | (m >> 13), rest = m & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h; /* may carry into the exponent (inf) */
        return (uint16_t)(sign | h);
    }
    if (e < 102) return (uint16_t)sign; /* below half the smallest subnormal: +-0 */
    {                                    /* subnormal half: m' = (1.m) * 2^(e - 127 + 24) */
        uint32_t full = m | 0x800000u, shift = 126 - e, h = full >> shift, rest = full & ((1u << shift) - 1),
                 halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (h & 1))) ++h;
        return (uint16_t)(sign | h);
    }
}

/* Deterministic random data for a seed (the tools and the demo agree on it):
   integers: the full range of their width; float/double: uniform in [-1, 1);
   half: a float uniform in [-1, 1) rounded to half (finite halves). */
static inline void pclr_args_fill_random(pclr_type type, void *data, uint64_t n, uint64_t seed) {
    uint64_t i, st = seed * 0x9e3779b97f4a7c15ull + 1;
    for (i = 0; i < n; ++i) {
        uint64_t z = (st += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        switch (type) {
        case PCLR_UINT: case PCLR_INT: ((uint32_t *)data)[i] = (uint32_t)z; break;
        case PCLR_UINT8: case PCLR_INT8: ((uint8_t *)data)[i] = (uint8_t)z; break;
        case PCLR_UINT16: case PCLR_INT16: ((uint16_t *)data)[i] = (uint16_t)z; break;
        case PCLR_UINT64: case PCLR_INT64: ((uint64_t *)data)[i] = z; break;
        case PCLR_HALF: ((uint16_t *)data)[i] = pclr_args_float_to_half((float)((double)(z >> 40) / 8388608.0 - 1.0)); break;
        case PCLR_DOUBLE: ((double *)data)[i] = (double)(z >> 11) / 4503599627370496.0 - 1.0; break;
        default: ((float *)data)[i] = (float)((double)(z >> 40) / 8388608.0 - 1.0); break;
        }
    }
}

/* 1 when got is the reduction of data: integers and min/max bit for bit against
   the CPU reference; float sums within the error bound of a tree sum,
   2 eps log2(n + 2) sum |x|, of a sum in double precision. */
static inline int pclr_args_matches(pclr_type t, pclr_op op, const void *got, const void *data, uint64_t n) {
    unsigned char ref[64];
    pclr_config c;
    double sum = 0, abs_sum = 0, g, levels = 1;
    uint64_t i;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.op = op;
    pclr_cpu_reduce(t, op, data, n, ref);
    if (op == PCLR_PROD && (t == PCLR_FLOAT || t == PCLR_DOUBLE)) return 1; /* (rounding differs by tree: not checked here) */
    if (op != PCLR_SUM || t == PCLR_UINT || t == PCLR_INT) return memcmp(got, ref, pclr_result_size(&c)) == 0;
    for (i = 0; i < n; ++i) {
        double x = t == PCLR_FLOAT ? (double)((const float *)data)[i] : ((const double *)data)[i];
        sum += x;
        abs_sum += x < 0 ? -x : x;
    }
    for (i = n + 2; i > 1; i /= 2) ++levels;
    g = t == PCLR_FLOAT ? (double)*(const float *)got : *(const double *)got;
    return (g > sum ? g - sum : sum - g) <= 2 * (t == PCLR_FLOAT ? 1.2e-7 : 2.3e-16) * levels * (abs_sum + 1);
}

/* Formats one value as the tools print it: integers in decimal, float
   %.9g, double %.17g (enough digits to read the exact value back). `type` is
   the C type the value is stored as (pclr_value_type / pclr_sum_type of a
   result; PCLR_HALF: binary16 bits, printed as their float value). */
static inline void pclr_args_format_value(pclr_type type, const void *v, char *buf, size_t cap) {
    switch (type) {
    case PCLR_UINT: snprintf(buf, cap, "%u", (unsigned)*(const uint32_t *)v); break;
    case PCLR_INT: snprintf(buf, cap, "%d", (int)*(const int32_t *)v); break;
    case PCLR_UINT8: snprintf(buf, cap, "%u", (unsigned)*(const uint8_t *)v); break;
    case PCLR_INT8: snprintf(buf, cap, "%d", (int)*(const int8_t *)v); break;
    case PCLR_UINT16: snprintf(buf, cap, "%u", (unsigned)*(const uint16_t *)v); break;
    case PCLR_INT16: snprintf(buf, cap, "%d", (int)*(const int16_t *)v); break;
    case PCLR_UINT64: snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)v); break;
    case PCLR_INT64: snprintf(buf, cap, "%lld", (long long)*(const int64_t *)v); break;
    case PCLR_HALF: snprintf(buf, cap, "%.9g", (double)pclr_args_half_to_float(*(const uint16_t *)v)); break;
    case PCLR_DOUBLE: snprintf(buf, cap, "%.17g", *(const double *)v); break;
    default: snprintf(buf, cap, "%.9g", (double)*(const float *)v); break;
    }
}

/* Formats what pclr_reduce wrote for cfg (pclr_result_size bytes), as the
   tools print it after "result: ": sum, min, max, count: VALUE; argmin,
   argmax: "VALUE at INDEX"; minmax: "min=A max=B"; stats: "count=N sum=S
   min=A max=B mean=M var=V" (mean and var %.9g for half and float elements,
   %.17g otherwise); prod, and, or, xor, any, all: VALUE; argminmax:
   "min=A at I max=B at J"; custom: the values of its result expressions, one
   space apart, each in its own type ("V1 V2 ..."). */
static inline void pclr_args_format_result(const pclr_config *cfg, const void *result, char *buf, size_t cap) {
    const pclr_type et = pclr_reduced_type(cfg); /* a map's values */
    const pclr_type vt = pclr_value_type(et), st = pclr_sum_type(et, cfg->accumulate);
    const int float_moments = et == PCLR_FLOAT || et == PCLR_HALF;
    char a[64], b[64], c[64];
    switch (cfg->op) {
    case PCLR_MIN: case PCLR_MAX: pclr_args_format_value(vt, result, buf, cap); break;
    case PCLR_COUNT: pclr_args_format_value(PCLR_UINT64, result, buf, cap); break;
    case PCLR_ANY: case PCLR_ALL: pclr_args_format_value(PCLR_UINT, result, buf, cap); break;
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: pclr_args_format_value(et, result, buf, cap); break;
    case PCLR_PROD: pclr_args_format_value(cfg->accumulate == PCLR_WIDE ? pclr_sum_type(et, PCLR_WIDE) : vt, result, buf, cap); break;
    case PCLR_HISTOGRAM: { /* the header and the first and last bins (pclreduce-run prints them) */
        pclr_histogram_result h;
        memcpy(&h, result, sizeof h);
        snprintf(buf, cap, "bins=%llu underflow=%llu overflow=%llu nan=%llu first=%llu last=%llu", (unsigned long long)h.bins,
                 (unsigned long long)h.underflow, (unsigned long long)h.overflow, (unsigned long long)h.nan,
                 (unsigned long long)pclr_histogram_count(result, 0), (unsigned long long)pclr_histogram_count(result, h.bins - 1));
        break;
    }
    case PCLR_CUSTOM: {
        const pclr_custom_result *r = (const pclr_custom_result *)result;
        size_t len = 0;
        int k;
        if (cap) buf[0] = '\0';
        for (k = 0; k < r->values && k < PCLR_CUSTOM_MAX && len < cap; ++k) {
            pclr_args_format_value(r->type[k], &r->value[k], a, sizeof a);
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? " " : "", a);
        }
        break;
    }
    case PCLR_ARGMINMAX: {
        const pclr_argminmax_result *r = (const pclr_argminmax_result *)result;
        pclr_args_format_value(vt, &r->min.value, a, sizeof a);
        pclr_args_format_value(vt, &r->max.value, b, sizeof b);
        snprintf(buf, cap, "min=%s at %llu max=%s at %llu", a, (unsigned long long)r->min.index, b, (unsigned long long)r->max.index);
        break;
    }
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        const pclr_arg_result *r = (const pclr_arg_result *)result;
        pclr_args_format_value(vt, &r->value, a, sizeof a);
        snprintf(buf, cap, "%s at %llu", a, (unsigned long long)r->index);
        break;
    }
    case PCLR_MINMAX: {
        const pclr_minmax_result *r = (const pclr_minmax_result *)result;
        pclr_args_format_value(vt, &r->min, a, sizeof a);
        pclr_args_format_value(vt, &r->max, b, sizeof b);
        snprintf(buf, cap, "min=%s max=%s", a, b);
        break;
    }
    case PCLR_STATS: {
        const pclr_stats_result *r = (const pclr_stats_result *)result;
        pclr_args_format_value(st, &r->sum, a, sizeof a);
        pclr_args_format_value(vt, &r->min, b, sizeof b);
        pclr_args_format_value(vt, &r->max, c, sizeof c);
        snprintf(buf, cap, float_moments ? "count=%llu sum=%s min=%s max=%s mean=%.9g var=%.9g" : "count=%llu sum=%s min=%s max=%s mean=%.17g var=%.17g",
                 (unsigned long long)r->count, a, b, c, r->mean, r->var);
        break;
    }
    default: pclr_args_format_value(st, result, buf, cap); break; /* sum (and the default op) */
    }
}

/* The tools' shaderc (pclreduce-run, pclreduce-tune, demo, auto_exposure):
   where $PCLR_SHADERC_LIBRARY is unset, libshaderc_shared.so beside the
   executable if that file is there (`make` builds build/libshaderc_shared.so
   where the system's libshaderc does not load: Debian 12's leaves glslang's
   symbols undefined), for desc.shaderc_library; else NULL: the library's own
   search ($PCLR_SHADERC_LIBRARY, libshaderc.so.1, ...). The tools look there,
   not the library: a program that embeds pclreduce decides its own paths.
   Linux only (/proc/self/exe; readlink needs _POSIX_C_SOURCE >= 200112L, which
   the tools define: elsewhere, or without it, NULL). */
static inline const char *pclr_args_shaderc_beside(void) {
#if defined(__linux__) && defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
    static const char name[] = "libshaderc_shared.so";
    static char path[4096];
    const char *env = getenv("PCLR_SHADERC_LIBRARY");
    char *slash;
    ssize_t n;
    if (env && *env) return NULL;
    n = readlink("/proc/self/exe", path, sizeof path - sizeof name);
    if (n <= 0 || (size_t)n >= sizeof path - sizeof name) return NULL;
    path[n] = '\0';
    if (!(slash = strrchr(path, '/'))) return NULL;
    memcpy(slash + 1, name, sizeof name);
    return access(path, R_OK) == 0 ? path : NULL;
#else
    return NULL;
#endif
}

#endif
