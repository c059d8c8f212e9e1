/* knobs_cpu: an A/B of pclreduce knob sets on an OpenCL device (written for PoCL: issue 35), in one
   process: the configurations take turns within each repetition over the same rotating slices (K x bytes
   >= 256 MiB, so no call reads what the last one left in the cache), blocking pclr_reduce, host clock,
   medians; every result is checked against the first configuration's (bytes; float sums: 1e-4 relative).
     build/knobs_cpu [--log N] [--reps R] [--type T] [--op O] [--accumulate A] KNOBS...
   KNOBS: "default" (the device's defaults) or comma-separated knob=value pairs as in the tuning file
   (stride=simd,vector=8,unroll=16,group=128,groups_per_unit=8). Ratios: the first set's time / each one's.
   cc -std=c99 -O2 -I. bench/knobs_cpu.c -o build/knobs_cpu -ldl -lm */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "pclreduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MOST 16
#define MAX_REPS 101

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "stride=simd,vector=8": the knobs into c; 0 when one is not understood */
static int parse_knobs(const char *s, pclr_config *c) {
    char buf[256], *tok, *save = NULL;
    if (!strcmp(s, "default")) return 1;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) return 0;
        *eq++ = '\0';
        if (!strcmp(tok, "stride")) { if (pclr_parse_stride(eq, &c->stride) != PCLR_OK) return 0; }
        else if (!strcmp(tok, "variant")) { if (pclr_parse_variant(eq, &c->variant) != PCLR_OK) return 0; }
        else if (!strcmp(tok, "vector")) c->vector_width = atoi(eq);
        else if (!strcmp(tok, "unroll")) c->unroll = atoi(eq);
        else if (!strcmp(tok, "group")) c->group_size = atoi(eq);
        else if (!strcmp(tok, "groups_per_unit")) c->groups_per_unit = atoi(eq);
        else return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    int log_n = 26, reps = 11, k, j, r, nk = 0;
    const char *knobs[MOST];
    pclr_config base, cfg[MOST];
    pclr_desc d;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    char why[256] = "";
    double t[MOST][MAX_REPS];
    unsigned char res[MOST][128], scratch[128]; /* (res: each set's result on slice 0) */
    uint64_t n, slices, i, x = 0x9e3779b97f4a7c15ull;
    size_t ts, bytes;
    unsigned char *host;
    memset(&base, 0, sizeof base);
    base.type = PCLR_FLOAT;
    base.op = PCLR_MIN;
    for (k = 1; k < argc; ++k) {
        if (!strcmp(argv[k], "--log") && k + 1 < argc) log_n = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--reps") && k + 1 < argc) reps = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--type") && k + 1 < argc) { if (pclr_parse_type(argv[++k], &base.type) != PCLR_OK) return 2; }
        else if (!strcmp(argv[k], "--op") && k + 1 < argc) { if (pclr_parse_op(argv[++k], &base.op) != PCLR_OK) return 2; }
        else if (!strcmp(argv[k], "--accumulate") && k + 1 < argc) { if (pclr_parse_accumulate(argv[++k], &base.accumulate) != PCLR_OK) return 2; }
        else if (argv[k][0] != '-' && nk < MOST) knobs[nk++] = argv[k];
        else { fprintf(stderr, "usage: knobs_cpu [--log N] [--reps R] [--type T] [--op O] [--accumulate A] KNOBS...\n"); return 2; }
    }
    if (!nk || reps < 1 || reps > MAX_REPS || log_n < 10 || log_n > 30) { fprintf(stderr, "knobs_cpu: name 1 to %d knob sets, reps 1..%d, log 10..30\n", MOST, MAX_REPS); return 2; }
    for (j = 0; j < nk; ++j) {
        cfg[j] = base;
        if (!parse_knobs(knobs[j], &cfg[j])) { fprintf(stderr, "knobs_cpu: cannot read '%s'\n", knobs[j]); return 2; }
    }
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_OPENCL;
    d.error = why;
    d.error_cap = sizeof why;
    if (pclr_create(&d, &ctx) != PCLR_OK) { fprintf(stderr, "knobs_cpu: %s\n", why); return 1; }
    n = (uint64_t)1 << log_n;
    ts = pclr_type_size(base.type);
    slices = ((uint64_t)256 << 20) / (n * ts) + 1;
    if (slices < 2) slices = 2;
    bytes = (size_t)(n * slices * ts);
    host = (unsigned char *)malloc(bytes);
    if (!host || pclr_buffer_create(ctx, bytes, &buf) != PCLR_OK) { fprintf(stderr, "knobs_cpu: no memory\n"); return 1; }
    for (i = 0; i < n * slices; ++i) { /* integers over their range; floats: random signs, exponents -4..3 */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        if (base.type == PCLR_FLOAT) { uint32_t b = (uint32_t)(((x >> 63) << 31) | ((uint64_t)(123 + ((x >> 40) & 7)) << 23) | (x & 0x7fffff)); memcpy(host + 4 * i, &b, 4); }
        else if (base.type == PCLR_DOUBLE) { uint64_t b = ((x >> 63) << 63) | ((uint64_t)(1019 + ((x >> 40) & 7)) << 52) | (x & 0xfffffffffffffull); memcpy(host + 8 * i, &b, 8); }
        else if (base.type == PCLR_HALF) { uint16_t b = (uint16_t)(((x >> 63) << 15) | ((11 + ((x >> 40) & 7)) << 10) | (x & 0x3ff)); memcpy(host + 2 * i, &b, 2); }
        else memcpy(host + ts * i, &x, ts);
    }
    if (pclr_buffer_write(ctx, buf, 0, host, bytes) != PCLR_OK) return 1;
    printf("device %s; %s %s%s%s; n = 2^%d; median of %d; GB/s of input bytes\n", pclr_device_name(ctx), pclr_type_name(base.type),
           pclr_op_name(base.op), base.accumulate ? " " : "", base.accumulate ? pclr_accumulate_name(base.accumulate) : "", log_n, reps);
    for (r = -1; r < reps; ++r)
        for (j = 0; j < nk; ++j) {
            pclr_input in;
            double t0;
            memset(&in, 0, sizeof in);
            in.x = buf;
            in.x_offset = r < 0 ? 0 : ((uint64_t)(r * nk + j) % slices) * n;
            in.n = n;
            t0 = now_s();
            if (pclr_reduce(ctx, &cfg[j], &in, r < 0 ? res[j] : scratch, sizeof scratch) != PCLR_OK) { fprintf(stderr, "knobs_cpu: %s: %s\n", knobs[j], pclr_last_error(ctx)); return 1; }
            if (r >= 0) t[j][r] = now_s() - t0;
        }
    for (j = 0; j < nk; ++j) {
        pclr_config rc;
        char desc[400] = "";
        const size_t rs = pclr_result_size(&cfg[j]);
        int same = !memcmp(res[j], res[0], rs);
        if (!same && base.op == PCLR_SUM && pclr__is_float(base.type)) {
            const double a = base.type == PCLR_DOUBLE || base.accumulate == PCLR_WIDE ? ((pclr_scalar *)res[j])->f64 : ((pclr_scalar *)res[j])->f32;
            const double b = base.type == PCLR_DOUBLE || base.accumulate == PCLR_WIDE ? ((pclr_scalar *)res[0])->f64 : ((pclr_scalar *)res[0])->f32;
            same = fabs(a - b) <= 1e-4 * fabs(b);
        }
        qsort(t[j], (size_t)reps, sizeof t[j][0], cmp_d);
        if (pclr_resolve(ctx, &cfg[j], n, &rc) == PCLR_OK) pclr_config_describe(&rc, desc, sizeof desc);
        printf("%-44s %8.3f ms %7.2f GB/s  x%.2f  %s\n   (%s)\n", knobs[j], 1e3 * t[j][reps / 2], (double)(n * ts) / t[j][reps / 2] / 1e9,
               t[0][reps / 2] / t[j][reps / 2], same ? "same result" : "RESULT DIFFERS", desc);
    }
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    free(host);
    return 0;
}
