/* Shared by bench_cuda.cu (compiled as C++ by nvcc) and bench_cl.c (C):
   options, test data, result checks, the adaptive repetition loop, the study
   plan, device slugs, and the table / CSV output. Include after pclreduce.h.

   Timing vocabulary (see /work/shared/ANCHORS.md):
     kernel     one call between two device timestamps, median of many
     pipelined  a batch of calls back to back between two timestamps, per call
     blocking   host clock around enqueue + result in host memory + sync */
#ifndef PCLR_BENCH_COMMON_H
#define PCLR_BENCH_COMMON_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The shared knob parser; its other helpers are unused here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../examples/pclr_args.h"
#pragma GCC diagnostic pop

#define BENCH_FN static __attribute__((unused))
#define BENCH_MAX_TUNED 8
#define BENCH_MAX_REPS 4000

/* ------------------------------------------------------------ options */
typedef struct bench_opts {
    int types[PCLR_TYPE_COUNT_];   /* 1 = selected */
    int ops[PCLR_OP_COUNT_];
    int min_log, max_log, step_log;
    int max_bytes_log;             /* caps n so n * size <= 2^this (double stops at 2^27) */
    int do_kernel, do_pipelined, do_blocking;
    int quick;
    double target_s;               /* wall time spent per timing kind per implementation and point */
    int min_reps;
    int batch;                     /* calls per pipelined sample */
    const char *out_dir;           /* NULL: bench/results/<slug> */
    int study, study_log;
    int platform, device;          /* OpenCL platform/device; CUDA device ordinal */
    int list, print_out, no_check, no_anchor;
    pclr_config tuned[BENCH_MAX_TUNED];
    int ntuned;
    /* --vocab: every type / op / accumulator against its anchor (see run_vocab) */
    int vocab;
    int accs[PCLR_ACCUMULATE_COUNT_]; /* 1 = selected (sums and stats) */
    /* --exact: the vocabulary run of float and double sums, native and exact (see run_vocab) */
    int exact;
    int data;                      /* BENCH_DATA_*: how floats, doubles and halves are drawn (--data) */
    int types_set, ops_set, accs_set, min_set, step_set, timings_set, target_set;
} bench_opts;

BENCH_FN void bench_usage(FILE *f, const char *prog, const char *extra) {
    fprintf(f,
            "usage: %s [options]\n"
            "  --types LIST        uint,int,float,double (default); with --vocab also\n"
            "                      uint8,int8,uint16,int16,uint64,int64,half (default there: all 11)\n"
            "  --ops LIST          sum,min,max (default); with --vocab also argmin,argmax,minmax,stats,count,\n"
            "                      prod,and,or,xor,any,all,argminmax\n"
            "  --vocab             the vocabulary run: every type/op/accumulator vs the read kernel and its\n"
            "                      anchor, n = 2^20, 2^24, 2^28 (8-byte types 2^27) unless --step-log is given;\n"
            "                      kernel + pipelined timings, 20 ms each, unless --timings/--target-ms say otherwise\n"
            "  --accumulate LIST   native,wide,compensated,exact (default all): sums and stats once per accumulator\n"
            "  --exact             the vocabulary run for exact sums: float and double sums (--types changes\n"
            "                      that), accumulate native and exact, each exact row against the native sum\n"
            "                      (CUDA: the native row against CUB's two-phase DeviceReduce::Sum); exact_<backend>.csv\n"
            "  --data D            float/double/half data: uniform (default: U(-1, 1), every mantissa bit random),\n"
            "                      normal (N(0, 1)), mixed (random signs, magnitudes log-uniform over 1e-6..1e6;\n"
            "                      halves 2^-14..2^15), grid (the data before issue 36: multiples of 2^-24 in [0, 1)\n"
            "                      for floats, of 2^-53 for doubles; kept for continuity with older results)\n"
            "  --min-log N         smallest n = 2^N (default 10)\n"
            "  --max-log N         largest n = 2^N (default 28; double stops at 1 GiB = 2^27)\n"
            "  --step-log N        n grows by 2^N (default 2)\n"
            "  --timings LIST      kernel,pipelined,blocking (default all)\n"
            "  --target-ms X       wall time per timing kind and point (default 50)\n"
            "  --quick             n step 2^4, up to 2^26, 10 ms per timing, 5 reps minimum\n"
            "  --out DIR           output folder (default bench/results/<device-slug>)\n"
            "  --print-out         print the default output folder and exit\n"
            "  --study             run the PCL-Reduction study instead of the sweep\n"
            "  --study-log N       study input size 2^N (default 26)\n"
            "  --no-check          skip the CPU reference check (not recommended)\n"
            "  --unroll/--group/--vector/--groups-per-unit/--wave N, --stride S, --variant V, --finish F\n"
            "                      add one tuned pclreduce configuration (all such flags together)\n"
            "  --tuned SPEC        add a tuned configuration, e.g. unroll=8,group=512 (repeatable)\n"
            "%s",
            prog, extra ? extra : "");
}

/* The data sets of floats, doubles and halves (--data); integers always use all their bits. */
enum { BENCH_DATA_UNIFORM, BENCH_DATA_NORMAL, BENCH_DATA_MIXED, BENCH_DATA_GRID, BENCH_DATA_COUNT_ };
static const char *const bench_data_names[BENCH_DATA_COUNT_] = {"uniform", "normal", "mixed", "grid"};
static const char *const bench_data_text[BENCH_DATA_COUNT_] = {
    "uniform: U(-1, 1), every mantissa bit random (halves: U(-1, 1) rounded to half)",
    "normal: N(0, 1), every mantissa bit random (halves: rounded to half)",
    "mixed: random signs, magnitudes log-uniform over 1e-6..1e6, every mantissa bit random (halves: 2^-14..2^15)",
    "grid: the data before issue 36, multiples of 2^-24 in [0, 1) (doubles: of 2^-53; halves: those floats rounded)"};
/* The data set of this run (one per process: the fills, the checks' scale and the output read it). */
static int bench_data_kind = BENCH_DATA_UNIFORM;
BENCH_FN const char *bench_data_name(void) { return bench_data_names[bench_data_kind]; }
BENCH_FN const char *bench_data_description(void) { return bench_data_text[bench_data_kind]; }

/* Parses a comma list of names with parse_fn into flags[]. */
BENCH_FN int bench_parse_list(const char *s, int *flags, int count, pclr_result (*parse_one)(const char *, int *)) {
    char buf[256], *tok, *save = NULL;
    int i;
    if (!s || strlen(s) >= sizeof buf) return -1;
    for (i = 0; i < count; ++i) flags[i] = 0;
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = 0;
        if (parse_one(tok, &v) != PCLR_OK) return -1;
        flags[v] = 1;
    }
    return 0;
}
static pclr_result bench__parse_type(const char *s, int *v) { pclr_type t = PCLR_TYPE_DEFAULT; pclr_result r = pclr_parse_type(s, &t); *v = (int)t; return r; }
static pclr_result bench__parse_op(const char *s, int *v) { pclr_op o = PCLR_OP_DEFAULT; pclr_result r = pclr_parse_op(s, &o); *v = (int)o; return r; }
static pclr_result bench__parse_acc(const char *s, int *v) { pclr_accumulate a = PCLR_ACCUMULATE_DEFAULT; pclr_result r = pclr_parse_accumulate(s, &a); *v = (int)a; return r; }

/* The types and ops the plain sweep (CUB Sum/Min/Max, the OpenMP loops) knows. */
BENCH_FN int bench_legacy_type(int t) { return t == PCLR_UINT || t == PCLR_INT || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
BENCH_FN int bench_legacy_op(int op) { return op == PCLR_SUM || op == PCLR_MIN || op == PCLR_MAX; }

/* "unroll=8,group=512,stride=local" -> knobs of cfg (through the shared knob parser). */
BENCH_FN int bench_parse_tuned(const char *spec, pclr_config *cfg, const char *prog) {
    char buf[256], *tok, *save = NULL;
    if (!spec || strlen(spec) >= sizeof buf) return -1;
    strcpy(buf, spec);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char flag[64], *eq = strchr(tok, '=');
        char *argv2[2];
        if (!eq || eq - tok > 40) { fprintf(stderr, "%s: bad --tuned item '%s' (want key=value)\n", prog, tok); return -1; }
        *eq = '\0';
        if (strcmp(tok, "type") == 0 || strcmp(tok, "op") == 0) { fprintf(stderr, "%s: --tuned sets knobs, not type/op\n", prog); return -1; }
        snprintf(flag, sizeof flag, "--%s", strcmp(tok, "gpu") == 0 ? "groups-per-unit" : tok);
        argv2[0] = flag;
        argv2[1] = eq + 1;
        switch (pclr_args_parse_knob(2, argv2, 0, cfg, stderr, prog)) {
        case 2: break;
        case 0: fprintf(stderr, "%s: unknown --tuned key '%s'\n", prog, tok); return -1;
        default: return -1; /* the knob parser said why */
        }
    }
    return 0;
}

/* Returns 0, or 2 after printing a message (caller exits with that status).
   Program-specific flags are left to `extra_flag` (returns argv entries used, 0 = unknown). */
BENCH_FN int bench_parse_args(int argc, char **argv, bench_opts *o, const char *prog, const char *extra_usage) {
    int i, knob_set = 0;
    pclr_config knobs;
    long long v;
    memset(o, 0, sizeof *o);
    memset(&knobs, 0, sizeof knobs);
    for (i = 1; i < PCLR_TYPE_COUNT_; ++i) o->types[i] = 1;
    for (i = 1; i < PCLR_OP_COUNT_; ++i) o->ops[i] = 1;
    for (i = 1; i < PCLR_ACCUMULATE_COUNT_; ++i) o->accs[i] = 1;
    o->min_log = 10; o->max_log = 28; o->step_log = 2; o->max_bytes_log = 30;
    o->do_kernel = o->do_pipelined = o->do_blocking = 1;
    o->target_s = 0.050; o->min_reps = 10; o->batch = 100;
    o->study_log = 26; o->platform = -1; o->device = -1;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int used;
#define BENCH_NEED_VAL() do { if (!val) { fprintf(stderr, "%s: %s needs a value\n", prog, a); return 2; } ++i; } while (0)
#define BENCH_INT(lo, hi, dst) do { BENCH_NEED_VAL(); if (pclr_args_int(val, lo, hi, &v)) { fprintf(stderr, "%s: %s needs an integer in %d..%d\n", prog, a, lo, hi); return 2; } (dst) = (int)v; } while (0)
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { bench_usage(stdout, prog, extra_usage); exit(0); }
        else if (strcmp(a, "--types") == 0) { BENCH_NEED_VAL(); o->types_set = 1; if (bench_parse_list(val, o->types, PCLR_TYPE_COUNT_, bench__parse_type)) { fprintf(stderr, "%s: bad --types '%s'\n", prog, val); return 2; } }
        else if (strcmp(a, "--ops") == 0) { BENCH_NEED_VAL(); o->ops_set = 1; if (bench_parse_list(val, o->ops, PCLR_OP_COUNT_, bench__parse_op)) { fprintf(stderr, "%s: bad --ops '%s'\n", prog, val); return 2; } }
        else if (strcmp(a, "--accumulate") == 0) { BENCH_NEED_VAL(); o->accs_set = 1; if (bench_parse_list(val, o->accs, PCLR_ACCUMULATE_COUNT_, bench__parse_acc)) { fprintf(stderr, "%s: bad --accumulate '%s'\n", prog, val); return 2; } }
        else if (strcmp(a, "--vocab") == 0) o->vocab = 1;
        else if (strcmp(a, "--data") == 0) {
            int k;
            BENCH_NEED_VAL();
            for (k = 0; k < BENCH_DATA_COUNT_ && strcmp(val, bench_data_names[k]) != 0; ++k) {}
            if (k == BENCH_DATA_COUNT_) { fprintf(stderr, "%s: --data is uniform, normal, mixed or grid, not '%s'\n", prog, val); return 2; }
            o->data = bench_data_kind = k;
        }
        else if (strcmp(a, "--exact") == 0) o->exact = o->vocab = 1;
        else if (strcmp(a, "--min-log") == 0) { BENCH_INT(0, 34, o->min_log); o->min_set = 1; }
        else if (strcmp(a, "--max-log") == 0) BENCH_INT(0, 34, o->max_log);
        else if (strcmp(a, "--step-log") == 0) { BENCH_INT(1, 10, o->step_log); o->step_set = 1; }
        else if (strcmp(a, "--max-bytes-log") == 0) BENCH_INT(12, 36, o->max_bytes_log);
        else if (strcmp(a, "--target-ms") == 0) { int ms = 0; BENCH_INT(1, 100000, ms); o->target_s = ms / 1000.0; o->target_set = 1; }
        else if (strcmp(a, "--min-reps") == 0) BENCH_INT(1, 1000, o->min_reps);
        else if (strcmp(a, "--batch") == 0) BENCH_INT(2, 1000, o->batch);
        else if (strcmp(a, "--study-log") == 0) BENCH_INT(10, 32, o->study_log);
        else if (strcmp(a, "--platform") == 0) BENCH_INT(0, 64, o->platform);
        else if (strcmp(a, "--device") == 0) BENCH_INT(0, 64, o->device);
        else if (strcmp(a, "--out") == 0) { BENCH_NEED_VAL(); o->out_dir = val; }
        else if (strcmp(a, "--quick") == 0) o->quick = 1;
        else if (strcmp(a, "--study") == 0) o->study = 1;
        else if (strcmp(a, "--list") == 0) o->list = 1;
        else if (strcmp(a, "--print-out") == 0) o->print_out = 1;
        else if (strcmp(a, "--no-check") == 0) o->no_check = 1;
        else if (strcmp(a, "--no-anchor") == 0) o->no_anchor = 1;
        else if (strcmp(a, "--timings") == 0) {
            char buf[128], *tok, *save = NULL;
            BENCH_NEED_VAL();
            if (strlen(val) >= sizeof buf) return 2;
            strcpy(buf, val);
            o->timings_set = 1;
            o->do_kernel = o->do_pipelined = o->do_blocking = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (strcmp(tok, "kernel") == 0) o->do_kernel = 1;
                else if (strcmp(tok, "pipelined") == 0) o->do_pipelined = 1;
                else if (strcmp(tok, "blocking") == 0) o->do_blocking = 1;
                else { fprintf(stderr, "%s: unknown timing '%s'\n", prog, tok); return 2; }
            }
        } else if (strcmp(a, "--tuned") == 0) {
            BENCH_NEED_VAL();
            if (o->ntuned >= BENCH_MAX_TUNED) { fprintf(stderr, "%s: at most %d tuned configurations\n", prog, BENCH_MAX_TUNED); return 2; }
            memset(&o->tuned[o->ntuned], 0, sizeof o->tuned[0]);
            if (bench_parse_tuned(val, &o->tuned[o->ntuned], prog)) return 2;
            ++o->ntuned;
        } else if (strcmp(a, "--type") == 0 || strcmp(a, "--op") == 0) {
            fprintf(stderr, "%s: use --types / --ops (lists) here\n", prog);
            return 2;
        } else if ((used = pclr_args_parse_knob(argc, argv, i, &knobs, stderr, prog)) != 0) {
            if (used < 0) return 2;
            knob_set = 1;
            i += used - 1;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            bench_usage(stderr, prog, extra_usage);
            return 2;
        }
#undef BENCH_NEED_VAL
#undef BENCH_INT
    }
    if (knob_set) {
        if (o->ntuned >= BENCH_MAX_TUNED) { fprintf(stderr, "%s: too many tuned configurations\n", prog); return 2; }
        o->tuned[o->ntuned++] = knobs;
    }
    for (i = 0; i < o->ntuned; ++i) { /* bad knobs stop here, not after a sweep of FAIL lines */
        pclr_config c;
        const char *why = NULL;
        if (pclr_config_resolve(&o->tuned[i], &c, &why) != PCLR_OK) {
            fprintf(stderr, "%s: tuned configuration %d: %s\n", prog, i + 1, why);
            return 2;
        }
    }
    if (!o->vocab) { /* the plain sweep: uint,int,float,double x sum,min,max */
        for (i = 1; i < PCLR_TYPE_COUNT_; ++i) {
            if (!o->types_set) o->types[i] = bench_legacy_type(i);
            else if (o->types[i] && !bench_legacy_type(i) && !o->study) {
                fprintf(stderr, "%s: --types %s is measured by --vocab (the sweep has uint, int, float, double)\n", prog, pclr_type_name((pclr_type)i));
                return 2;
            }
        }
        for (i = 1; i < PCLR_OP_COUNT_; ++i) {
            if (!o->ops_set) o->ops[i] = bench_legacy_op(i);
            else if (o->ops[i] && !bench_legacy_op(i) && !o->study) {
                fprintf(stderr, "%s: --ops %s is measured by --vocab (the sweep has sum, min, max)\n", prog, pclr_op_name((pclr_op)i));
                return 2;
            }
        }
    } else {
        for (i = 1; o->exact && i < PCLR_TYPE_COUNT_; ++i) if (!o->types_set) o->types[i] = i == PCLR_FLOAT || i == PCLR_DOUBLE;
        for (i = 1; o->exact && i < PCLR_OP_COUNT_; ++i) if (!o->ops_set) o->ops[i] = i == PCLR_SUM;
        for (i = 1; o->exact && i < PCLR_ACCUMULATE_COUNT_; ++i) if (!o->accs_set) o->accs[i] = i == PCLR_NATIVE || i == PCLR_EXACT;
        if (!o->min_set) o->min_log = 20;
        if (!o->step_set) o->step_log = 4;
        if (!o->timings_set) o->do_blocking = 0;
        if (!o->target_set) o->target_s = 0.020;
    }
    if (o->quick) {
        o->step_log = o->vocab && o->step_set ? o->step_log : 4;
        if (o->max_log > 26) o->max_log = 26;
        o->target_s = 0.010;
        o->min_reps = 5;
        o->batch = 50;
    }
    if (o->min_log > o->max_log) { fprintf(stderr, "%s: --min-log is above --max-log\n", prog); return 2; }
    return 0;
}

/* Sizes of the sweep for one type: 2^min..2^max by step, capped at 2^max_bytes_log
   bytes (the capped size is kept as the last point: double ends at 2^27). */
BENCH_FN int bench_sizes(const bench_opts *o, pclr_type t, uint64_t *out, int cap) {
    int k = 0, lg, cap_log = o->max_bytes_log - (pclr_type_size(t) == 8 ? 3 : 2);
    for (lg = o->min_log; lg <= o->max_log && k < cap; lg += o->step_log) {
        int use = lg < cap_log ? lg : cap_log;
        if (k > 0 && out[k - 1] >= (1ull << use)) break;
        out[k++] = 1ull << use;
        if (use < lg) break;
    }
    return k;
}

BENCH_FN int bench_log2(uint64_t n) {
    int l = 0;
    while ((1ull << (l + 1)) <= n && l < 63) ++l;
    return l;
}

/* ------------------------------------------------------------ time, stats */
BENCH_FN double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench__cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
BENCH_FN double bench_median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, bench__cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One sample in microseconds (< 0: failed, the callee kept a message). */
typedef double (*bench_sample_fn)(void *user);

/* Takes samples until `target_s` of wall time is spent and at least `min_reps`
   were taken (the adaptive part: fast calls get thousands of samples, a 1 GiB
   call gets the minimum). Returns the median, or -1 on a failed sample. */
BENCH_FN double bench_measure(bench_sample_fn fn, void *user, double target_s, int min_reps, int *reps_out) {
    static double samples[BENCH_MAX_REPS];
    double t0 = bench_now();
    int n = 0;
    while (n < BENCH_MAX_REPS && (n < min_reps || bench_now() - t0 < target_s)) {
        double s = fn(user);
        if (s < 0) { if (reps_out) *reps_out = n; return -1; }
        samples[n++] = s;
    }
    if (reps_out) *reps_out = n;
    return bench_median(samples, n);
}

/* Calls per pipelined sample: the batch from the options, fewer when one call
   is long (on a CPU device a 1 GiB call takes tens of ms). */
BENCH_FN int bench_batch_for(const bench_opts *o, double call_us) {
    double fit = o->target_s * 1e6 / 4.0 / (call_us > 0.1 ? call_us : 0.1);
    int b = o->batch;
    if (fit < b) b = (int)fit;
    return b < 2 ? 2 : b;
}

/* ------------------------------------------------------------ test data
   Deterministic in (seed, chunk, data set), so a serial fill, an OpenMP fill
   and bench_cuda's threads (one chunk at a time; threads first-touch their
   own pages) agree. Integers use all their bits (sums wrap). Floats, doubles
   and halves follow --data (bench_data_text): by default U(-1, 1) with every
   mantissa bit random (a double's 53 bits come from 63 random bits, so values
   down to 2^-10 keep all of them), as real data have; `grid` is the data of
   the results before issue 36 (multiples of 2^-24 in [0, 1): the exact sum
   never spills on them). splitmix64 and a few double operations an element
   (normal: Box-Muller; mixed: one exp): 2^28 of them in a second or two on
   16 threads. */
#define BENCH_FILL_CHUNK (1u << 20)

static uint64_t bench__splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* IEEE binary16 bits <-> float, round to nearest even (the host has no half type in C99). */
BENCH_FN uint16_t bench_float_to_half(float f) {
    uint32_t x, sign, mant;
    int exp;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int)((x >> 23) & 0xff) - 127 + 15;
    mant = x & 0x7fffffu;
    if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u)); /* inf, NaN */
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u);                                          /* overflow */
    if (exp <= 0) {                                                                             /* subnormal or 0 */
        uint32_t m, shift, half_bit, rest, r;
        if (exp < -10) return (uint16_t)sign;
        m = mant | 0x800000u;
        shift = (uint32_t)(14 - exp);
        r = m >> shift;
        half_bit = 1u << (shift - 1);
        rest = m & ((half_bit << 1) - 1);
        if (rest > half_bit || (rest == half_bit && (r & 1u))) ++r;
        return (uint16_t)(sign | r);
    }
    {
        uint32_t r = ((uint32_t)exp << 10) | (mant >> 13), rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) ++r; /* may carry into the exponent: correct */
        return (uint16_t)(sign | r);
    }
}

BENCH_FN float bench_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
    float f;
    if (exp == 0x1f) x = sign | 0x7f800000u | (mant << 13);
    else if (exp == 0) {
        f = (float)mant * (1.0f / 16777216.0f); /* mant x 2^-24 */
        return sign ? -f : f;
    } else x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    memcpy(&f, &x, 4);
    return f;
}

/* Two reals of the run's data set (not grid) from two random words; half: 1 for halves (mixed
   stays within their normal range). Every mantissa bit of a float or double is random. */
static void bench__real2(uint64_t a, uint64_t b, int half, double v[2]) {
    const double two53 = 1.0 / 9007199254740992.0;
    switch (bench_data_kind) {
    case BENCH_DATA_NORMAL: { /* Box-Muller, both of the pair: u1 in (0, 1] */
        const double r = sqrt(-2.0 * log(((double)(a >> 11) + 1.0) * two53)), th = 6.283185307179586 * (double)(b >> 11) * two53;
        v[0] = r * cos(th);
        v[1] = r * sin(th);
        break;
    }
    case BENCH_DATA_MIXED: { /* |x| = lo (hi / lo)^u, u from 53 bits (exp's result: every mantissa bit random); the sign from bit 0 */
        const double lo = half ? 6.103515625e-05 : 1e-6, span = half ? 20.101268236238415 : 27.631021115928547; /* ln(2^29), ln(1e12) */
        v[0] = (a & 1 ? -lo : lo) * exp(span * (double)(a >> 11) * two53);
        v[1] = (b & 1 ? -lo : lo) * exp(span * (double)(b >> 11) * two53);
        break;
    }
    default: /* U(-1, 1): a signed 64-bit word times 2^-63 */
        v[0] = (double)(int64_t)a * (1.0 / 9223372036854775808.0);
        v[1] = (double)(int64_t)b * (1.0 / 9223372036854775808.0);
        break;
    }
}

/* The data set's reals into x[begin, end) of t (half, float, double; not grid), two at a time. */
#define BENCH__FILL_REALS(T, conv)                                                            \
    do {                                                                                      \
        T *x_ = (T *)data;                                                                    \
        for (i = begin; i < end; i += 2) {                                                    \
            double v_[2];                                                                     \
            const uint64_t a_ = bench__splitmix(&s), b_ = bench__splitmix(&s);               \
            bench__real2(a_, b_, t == PCLR_HALF, v_);                                         \
            x_[i] = conv(v_[0]);                                                              \
            if (i + 1 < end) x_[i + 1] = conv(v_[1]);                                         \
        }                                                                                     \
    } while (0)
#define BENCH__TO_FLOAT(v) ((float)(v))
#define BENCH__TO_DOUBLE(v) (v)
#define BENCH__TO_HALF(v) bench_float_to_half((float)(v))

static void bench__fill_chunk(pclr_type t, void *data, uint64_t begin, uint64_t end, uint64_t seed) {
    /* (grid: the seeds of the results before issue 36, so that its data are the same bits) */
    uint64_t s = seed ^ (begin * 0x2545f4914f6cdd1dull) ^ (bench_data_kind == BENCH_DATA_GRID ? 0 : (uint64_t)(bench_data_kind + 1) << 56), i;
    switch (t) {
    case PCLR_UINT8: case PCLR_INT8: {
        uint8_t *x = (uint8_t *)data;
        for (i = begin; i < end; ++i) x[i] = (uint8_t)(bench__splitmix(&s) >> 56);
        break;
    }
    case PCLR_UINT16: case PCLR_INT16: {
        uint16_t *x = (uint16_t *)data;
        for (i = begin; i < end; ++i) x[i] = (uint16_t)(bench__splitmix(&s) >> 48);
        break;
    }
    case PCLR_UINT64: case PCLR_INT64: {
        uint64_t *x = (uint64_t *)data;
        for (i = begin; i < end; ++i) x[i] = bench__splitmix(&s);
        break;
    }
    case PCLR_HALF: { /* the data set's values rounded to half: finite (mixed stays within half's normal range) */
        uint16_t *x = (uint16_t *)data;
        if (bench_data_kind == BENCH_DATA_GRID) /* as before issue 36: floats of the grid rounded to half */
            for (i = begin; i < end; ++i) x[i] = bench_float_to_half((float)(bench__splitmix(&s) >> 40) * (1.0f / 16777216.0f));
        else BENCH__FILL_REALS(uint16_t, BENCH__TO_HALF);
        break;
    }
    case PCLR_UINT: case PCLR_INT: {
        uint32_t *x = (uint32_t *)data;
        for (i = begin; i < end; ++i) x[i] = (uint32_t)(bench__splitmix(&s) >> 32);
        break;
    }
    case PCLR_FLOAT: {
        float *x = (float *)data;
        if (bench_data_kind == BENCH_DATA_GRID) { /* as before issue 36: one word an element */
            for (i = begin; i < end; ++i) x[i] = (float)(bench__splitmix(&s) >> 40) * (1.0f / 16777216.0f);
            break;
        }
        BENCH__FILL_REALS(float, BENCH__TO_FLOAT);
        break;
    }
    default: {
        double *x = (double *)data;
        if (bench_data_kind == BENCH_DATA_GRID) {
            for (i = begin; i < end; ++i) x[i] = (double)(bench__splitmix(&s) >> 11) * (1.0 / 9007199254740992.0);
            break;
        }
        BENCH__FILL_REALS(double, BENCH__TO_DOUBLE);
        break;
    }
    }
}

BENCH_FN void bench_fill(pclr_type t, void *data, uint64_t count, uint64_t seed) {
    long long c, chunks = (long long)((count + BENCH_FILL_CHUNK - 1) / BENCH_FILL_CHUNK);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (c = 0; c < chunks; ++c) {
        uint64_t b = (uint64_t)c * BENCH_FILL_CHUNK, e = b + BENCH_FILL_CHUNK;
        bench__fill_chunk(t, data, b, e < count ? e : count, seed);
    }
}

/* ------------------------------------------------------------ checks */
BENCH_FN void bench_format_value(pclr_type t, const void *v, char *buf, size_t cap) {
    switch (t) {
    case PCLR_UINT: { uint32_t x; memcpy(&x, v, 4); snprintf(buf, cap, "%u", x); break; }
    case PCLR_INT: { int32_t x; memcpy(&x, v, 4); snprintf(buf, cap, "%d", x); break; }
    case PCLR_FLOAT: { float x; memcpy(&x, v, 4); snprintf(buf, cap, "%.9g", (double)x); break; }
    default: { double x; memcpy(&x, v, 8); snprintf(buf, cap, "%.17g", x); break; }
    }
}

/* The mean magnitude of the run's data set for elements of type t (E|x|: the sum of |x| over n
   elements is about n times this), for the checks' scale. */
BENCH_FN double bench_mean_abs(pclr_type t) {
    switch (bench_data_kind) {
    case BENCH_DATA_NORMAL: return 0.7978845608028654;               /* sqrt(2 / pi) */
    case BENCH_DATA_MIXED: return t == PCLR_HALF ? 1630.1 : 36191.0; /* (hi - lo) / ln(hi / lo) */
    default: return 0.5;
    }
}

/* The error a float sum of n elements in sum type st may have against the CPU reference beside the
   relative tolerance: both are trees (pairwise blocks; work-items, groups), each within about
   (log2 n + 1) u sum|x|. Data with both signs cancel, so |sum| can be far below sum|x| (U(-1, 1):
   ~sqrt(n) against n / 2), and a tolerance relative to the sum alone would fail correct trees. */
BENCH_FN double bench_sum_abs_tol(pclr_type st, pclr_type t, uint64_t n) {
    const double u = st == PCLR_FLOAT ? 5.960464477539063e-08 : st == PCLR_DOUBLE ? 1.1102230246251565e-16 : 0;
    return 2.0 * ((double)bench_log2(n ? n : 1) + 1.0) * u * (double)n * bench_mean_abs(t);
}

/* Exact for integers and min/max; for float sums, whose rounding depends on the summation tree,
   a relative tolerance plus the trees' error on the data set (bench_sum_abs_tol).
   Returns 1 when `got` is acceptable; otherwise fills `why`. */
BENCH_FN int bench_check(pclr_type t, pclr_op op, uint64_t n, const void *got, const void *ref, char *why, size_t cap) {
    char g[48], r[48];
    int ok;
    if (op == PCLR_SUM && (t == PCLR_FLOAT || t == PCLR_DOUBLE)) {
        double x, y, tol = t == PCLR_FLOAT ? 1e-4 : 1e-10;
        if (t == PCLR_FLOAT) { float a, b; memcpy(&a, got, 4); memcpy(&b, ref, 4); x = a; y = b; }
        else { memcpy(&x, got, 8); memcpy(&y, ref, 8); }
        ok = fabs(x - y) <= tol * fabs(y) + bench_sum_abs_tol(t, t, n) + 1e-30;
    } else {
        ok = memcmp(got, ref, pclr_type_size(t)) == 0;
    }
    if (!ok && why) {
        bench_format_value(t, got, g, sizeof g);
        bench_format_value(t, ref, r, sizeof r);
        snprintf(why, cap, "got %s, CPU reference %s", g, r);
    }
    return ok;
}

/* ------------------------------------------------------------ vocabulary checks
   Results of any (type, op, accumulate) as pclr_reduce writes them (see
   pclreduce.h "results"), compared with pclr_cpu_reduce_config's: exact for
   integers, min/max, arg*, minmax and count; relative for float sums (1e-4
   in float, 1e-10 in double) and for stats' mean and variances (1e-3 when
   the moments are kept in float, 1e-8 in double; the mean relative to
   |mean| + standard deviation, as integer data can have a mean near 0). */
BENCH_FN int bench_is_float_type(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }

/* The accumulator a config really uses (only sums and stats accumulate). */
BENCH_FN pclr_accumulate bench_acc_of(const pclr_config *c) {
    if (c->op != PCLR_SUM && c->op != PCLR_STATS) return PCLR_NATIVE;
    return c->accumulate ? c->accumulate : PCLR_NATIVE;
}

/* Whether (type, op, accumulate) is a pair the library has (compensated: floats only). */
BENCH_FN int bench_acc_valid(pclr_type t, pclr_op op, pclr_accumulate a) {
    if ((op == PCLR_AND || op == PCLR_OR || op == PCLR_XOR) && (t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE))
        return 0; /* (bitwise: integers only) */
    if (op != PCLR_SUM && op != PCLR_STATS) return a == PCLR_NATIVE;
    if (a == PCLR_EXACT && op != PCLR_SUM) return 0; /* stats accumulate wide or compensated */
    return pclr_sum_type(t, a) != PCLR_TYPE_DEFAULT;
}

BENCH_FN void bench_format_scalar(pclr_type t, const void *v, char *buf, size_t cap) {
    pclr_scalar x;
    memset(&x, 0, sizeof x);
    memcpy(&x, v, pclr_type_size(t) ? pclr_type_size(t) : 4);
    switch (t) {
    case PCLR_UINT8: snprintf(buf, cap, "%u", (unsigned)x.u8); break;
    case PCLR_INT8: snprintf(buf, cap, "%d", (int)x.i8); break;
    case PCLR_UINT16: snprintf(buf, cap, "%u", (unsigned)x.u16); break;
    case PCLR_INT16: snprintf(buf, cap, "%d", (int)x.i16); break;
    case PCLR_UINT: snprintf(buf, cap, "%u", x.u32); break;
    case PCLR_INT: snprintf(buf, cap, "%d", x.i32); break;
    case PCLR_UINT64: snprintf(buf, cap, "%llu", (unsigned long long)x.u64); break;
    case PCLR_INT64: snprintf(buf, cap, "%lld", (long long)x.i64); break;
    case PCLR_HALF: snprintf(buf, cap, "%.6g", (double)bench_half_to_float(x.u16)); break;
    case PCLR_FLOAT: snprintf(buf, cap, "%.9g", (double)x.f32); break;
    default: snprintf(buf, cap, "%.17g", x.f64); break;
    }
}

static double bench__scalar_double(pclr_type t, const void *v) {
    if (t == PCLR_FLOAT) { float f; memcpy(&f, v, 4); return f; }
    { double d; memcpy(&d, v, 8); return d; }
}

/* One scalar of type t: exact, or within tol relative plus abs_tol for float/double (tol > 0).
   On a mismatch appends "<what> got X, CPU reference Y" to why. */
BENCH_FN int bench_check_scalar_abs(pclr_type t, const void *got, const void *ref, double tol, double abs_tol, const char *what, char *why,
                                    size_t cap) {
    char g[48], r[48];
    int ok;
    if (tol > 0 && (t == PCLR_FLOAT || t == PCLR_DOUBLE)) {
        double x = bench__scalar_double(t, got), y = bench__scalar_double(t, ref);
        ok = fabs(x - y) <= tol * fabs(y) + abs_tol + 1e-30;
    } else {
        ok = memcmp(got, ref, pclr_type_size(t)) == 0;
    }
    if (!ok && why) {
        size_t l = strlen(why);
        bench_format_scalar(t, got, g, sizeof g);
        bench_format_scalar(t, ref, r, sizeof r);
        snprintf(why + l, cap - l, "%s%s got %s, CPU reference %s", l ? "; " : "", what, g, r);
    }
    return ok;
}
BENCH_FN int bench_check_scalar(pclr_type t, const void *got, const void *ref, double tol, const char *what, char *why, size_t cap) {
    return bench_check_scalar_abs(t, got, ref, tol, 0, what, why, cap);
}

BENCH_FN double bench_sum_tol(pclr_type sum_type) { return sum_type == PCLR_FLOAT ? 1e-4 : sum_type == PCLR_DOUBLE ? 1e-10 : 0; }

/* Stats' moments are in float for half and float unless the accumulator is wide. */
BENCH_FN double bench_moment_tol(const pclr_config *c) {
    return (c->type == PCLR_HALF || c->type == PCLR_FLOAT) && bench_acc_of(c) != PCLR_WIDE ? 1e-3 : 1e-8;
}

static int bench__check_double(double got, double ref, double tol, double scale, const char *what, char *why, size_t cap) {
    int ok = (isnan(got) && isnan(ref)) || fabs(got - ref) <= tol * scale + 1e-300;
    if (!ok && why) {
        size_t l = strlen(why);
        snprintf(why + l, cap - l, "%s%s got %.17g, CPU reference %.17g", l ? "; " : "", what, got, ref);
    }
    return ok;
}

/* A whole result of cfg over n elements (pclr_result_size bytes at got and ref). Returns 1 when acceptable. */
BENCH_FN int bench_check_result(const pclr_config *cfg, uint64_t n, const void *got, const void *ref, char *why, size_t cap) {
    pclr_type vt = pclr_value_type(cfg->type), st = pclr_sum_type(cfg->type, bench_acc_of(cfg));
    const double abs_tol = bench_is_float_type(cfg->type) ? bench_sum_abs_tol(st, cfg->type, n) : 0;
    int ok = 1;
    if (why && cap) why[0] = '\0';
    switch (cfg->op) {
    case PCLR_SUM: /* exact sums: the same bits */
        return bench_acc_of(cfg) == PCLR_EXACT ? bench_check_scalar(st, got, ref, 0, "sum", why, cap)
                                               : bench_check_scalar_abs(st, got, ref, bench_sum_tol(st), abs_tol, "sum", why, cap);
    case PCLR_MIN: case PCLR_MAX: return bench_check_scalar(vt, got, ref, 0, pclr_op_name(cfg->op), why, cap);
    case PCLR_COUNT: return bench_check_scalar(PCLR_UINT64, got, ref, 0, "count", why, cap);
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        ok &= bench_check_scalar(vt, &a.value, &b.value, 0, "value", why, cap);
        ok &= bench_check_scalar(PCLR_UINT64, &a.index, &b.index, 0, "index", why, cap);
        return ok;
    }
    case PCLR_MINMAX: {
        pclr_minmax_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        ok &= bench_check_scalar(vt, &a.min, &b.min, 0, "min", why, cap);
        ok &= bench_check_scalar(vt, &a.max, &b.max, 0, "max", why, cap);
        return ok;
    }
    case PCLR_STATS: {
        pclr_stats_result a, b;
        double tol = bench_moment_tol(cfg), sd;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        sd = b.var > 0 ? sqrt(b.var) : 0;
        ok &= bench_check_scalar(PCLR_UINT64, &a.count, &b.count, 0, "count", why, cap);
        ok &= bench_check_scalar_abs(st, &a.sum, &b.sum, bench_sum_tol(st), abs_tol, "sum", why, cap);
        ok &= bench_check_scalar(vt, &a.min, &b.min, 0, "min", why, cap);
        ok &= bench_check_scalar(vt, &a.max, &b.max, 0, "max", why, cap);
        ok &= bench__check_double(a.mean, b.mean, tol, fabs(b.mean) + sd, "mean", why, cap);
        ok &= bench__check_double(a.var, b.var, tol, fabs(b.var), "var", why, cap);
        ok &= bench__check_double(a.sample_var, b.sample_var, tol, fabs(b.sample_var), "sample_var", why, cap);
        return ok;
    }
    case PCLR_PROD: /* native: the value type; wide: the wide sum's (floats within the sum's tolerance) */
        return bench_check_scalar(bench_acc_of(cfg) == PCLR_WIDE ? st : vt, got, ref, bench_is_float_type(cfg->type) ? bench_sum_tol(st) : 0,
                                  "prod", why, cap);
    case PCLR_AND: case PCLR_OR: case PCLR_XOR: return bench_check_scalar(cfg->type, got, ref, 0, pclr_op_name(cfg->op), why, cap);
    case PCLR_ANY: case PCLR_ALL: return bench_check_scalar(PCLR_UINT, got, ref, 0, pclr_op_name(cfg->op), why, cap);
    case PCLR_ARGMINMAX: {
        pclr_argminmax_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        ok &= bench_check_scalar(vt, &a.min.value, &b.min.value, 0, "min", why, cap);
        ok &= bench_check_scalar(PCLR_UINT64, &a.min.index, &b.min.index, 0, "min index", why, cap);
        ok &= bench_check_scalar(vt, &a.max.value, &b.max.value, 0, "max", why, cap);
        ok &= bench_check_scalar(PCLR_UINT64, &a.max.index, &b.max.index, 0, "max index", why, cap);
        return ok;
    }
    default:
        if (why) snprintf(why, cap, "unknown op %d", (int)cfg->op);
        return 0;
    }
}

/* Sizes of the vocabulary run for one type: 2^min..2^max by step, and the
   largest size (capped at 2^max_bytes_log bytes) as the last point even when
   the step skips it (--max-log 26 with step 4: 2^20, 2^24, 2^26). */
BENCH_FN int bench_vocab_sizes(const bench_opts *o, pclr_type t, uint64_t *out, int cap) {
    int k = bench_sizes(o, t, out, cap), lg = o->max_log, cap_log = o->max_bytes_log;
    size_t sz = pclr_type_size(t);
    while (sz > 1) { --cap_log; sz >>= 1; }
    if (lg > cap_log) lg = cap_log;
    if (k < cap && lg >= o->min_log && (k == 0 || out[k - 1] < (1ull << lg))) out[k++] = 1ull << lg;
    return k;
}

/* ------------------------------------------------------------ names */
/* "pclr-u8-g512-local": the knobs a tuned configuration sets. */
BENCH_FN void bench_tuned_name(const pclr_config *c, char *buf, size_t cap) {
    size_t k;
    snprintf(buf, cap, "pclr");
#define BENCH_ADD(fmt, v) do { k = strlen(buf); snprintf(buf + k, cap - k, fmt, v); } while (0)
    if (c->unroll) BENCH_ADD("-u%d", c->unroll);
    if (c->group_size) BENCH_ADD("-g%d", c->group_size);
    if (c->vector_width) BENCH_ADD("-v%d", c->vector_width);
    if (c->groups_per_unit) BENCH_ADD("-k%d", c->groups_per_unit);
    if (c->wave_width) BENCH_ADD("-w%d", c->wave_width);
    if (c->stride) BENCH_ADD("-%s", pclr_stride_name(c->stride));
    if (c->variant) BENCH_ADD("-%s", pclr_variant_name(c->variant));
    if (c->finish) BENCH_ADD("-%s", pclr_finish_name(c->finish));
#undef BENCH_ADD
}

/* Lower-case [a-z0-9], other runs become one '-'. */
BENCH_FN void bench_slugify(const char *s, char *out, size_t cap) {
    size_t k = 0;
    int dash = 0;
    for (; *s && k + 2 < cap; ++s) {
        char ch = *s;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
            if (dash && k > 0) out[k++] = '-';
            out[k++] = ch;
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[k] = '\0';
}

/* "NVIDIA H100 80GB HBM3" -> "h100"; "NVIDIA GeForce RTX 4090" -> "rtx-4090":
   vendor words dropped, words kept up to the first one with a digit. */
BENCH_FN void bench_gpu_slug(const char *name, char *out, size_t cap) {
    char buf[256], *tok, *save = NULL;
    size_t k = 0;
    bench_slugify(name, buf, sizeof buf);
    out[0] = '\0';
    for (tok = strtok_r(buf, "-", &save); tok && k + 1 < cap; tok = strtok_r(NULL, "-", &save)) {
        if (!strcmp(tok, "nvidia") || !strcmp(tok, "geforce") || !strcmp(tok, "tesla") || !strcmp(tok, "amd") ||
            !strcmp(tok, "radeon") || !strcmp(tok, "intel") || !strcmp(tok, "r") || !strcmp(tok, "tm"))
            continue;
        k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? "-" : "", tok);
        if (strpbrk(tok, "0123456789")) break;
    }
    if (!out[0]) snprintf(out, cap, "gpu");
}

/* "AMD EPYC 7B13 64-Core Processor" with 16 units -> "amd-epyc-7b13-16c". */
BENCH_FN void bench_cpu_slug(unsigned units, char *out, size_t cap) {
    char line[512], model[256] = "", buf[256], *tok, *save = NULL;
    size_t k = 0;
    int words = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
                snprintf(model, sizeof model, "%s", strchr(line, ':') + 1);
                break;
            }
        fclose(f);
    }
    bench_slugify(model[0] ? model : "cpu", buf, sizeof buf);
    out[0] = '\0';
    for (tok = strtok_r(buf, "-", &save); tok && words < 4; tok = strtok_r(NULL, "-", &save)) {
        if (!strcmp(tok, "r") || !strcmp(tok, "tm") || !strcmp(tok, "cpu") || !strcmp(tok, "processor") ||
            !strcmp(tok, "core") || strstr(tok, "ghz"))
            continue;
        if (!strcmp(tok, "with")) break;
        if (strpbrk(tok, "0123456789") && tok[strspn(tok, "0123456789")] == '\0' && words >= 2) continue; /* "64" of "64-Core" */
        k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? "-" : "", tok);
        ++words;
    }
    snprintf(out + k, cap - k, "%s%uc", k ? "-" : "", units);
}

BENCH_FN int bench_mkdirs(const char *path) {
    char buf[1024];
    size_t i, n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    strcpy(buf, path);
    for (i = 1; i <= n; ++i)
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    return 0;
}

/* Opens DIR/NAME for writing (creating DIR). */
BENCH_FN FILE *bench_open_out(const char *dir, const char *name) {
    char path[1200];
    FILE *f;
    if (bench_mkdirs(dir) != 0) { fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno)); return NULL; }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* ------------------------------------------------------------ output */
typedef struct bench_row {
    const char *backend, *device;
    pclr_type type;
    pclr_op op;
    uint64_t n;
    char impl[64];
    double kernel_us, pipelined_us, blocking_us;  /* NAN: not measured */
    int kernel_reps, pipelined_reps, blocking_reps, batch, buffers;
    char status[160];                             /* "ok" or "FAIL: ..." */
    /* the vocabulary run's columns */
    pclr_accumulate acc;                          /* PCLR_ACCUMULATE_DEFAULT: the op has no accumulator */
    pclr_type sum_type;                           /* sums, stats and CUB's sums: the sum's type; else 0 */
    char anchor[48];                              /* what vs_anchor is against ("" = none) */
    double anchor_kernel_us, anchor_pipelined_us; /* that anchor's times at the same point */
    double read_kernel_us;                        /* the read kernel's time for the same bytes */
    /* the sweep's last columns */
    double efficiency;                            /* read kernel's pipelined time / this pipelined time (NAN: none) */
    double graph_us;                              /* per call, the batch replayed from a CUDA graph (NAN: not measured) */
    const char *data;                             /* the data set (--data): the CSVs' last column */
} bench_row;

BENCH_FN void bench_row_init(bench_row *r, const char *backend, const char *device, pclr_type t, pclr_op op, uint64_t n, const char *impl) {
    memset(r, 0, sizeof *r);
    r->backend = backend; r->device = device; r->type = t; r->op = op; r->n = n;
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    r->kernel_us = r->pipelined_us = r->blocking_us = NAN;
    r->anchor_kernel_us = r->anchor_pipelined_us = r->read_kernel_us = NAN;
    r->efficiency = r->graph_us = NAN;
    r->data = bench_data_name();
    snprintf(r->status, sizeof r->status, "ok");
}

BENCH_FN void bench_csv_header(FILE *f) {
    fprintf(f, "backend,device,type,op,n,log2n,bytes,impl,kernel_us,pipelined_us,blocking_us,gbps_kernel,gbps_pipelined,"
               "kernel_reps,pipelined_reps,pipelined_batch,blocking_reps,buffers,status,efficiency,graph_us,data\n");
    fflush(f);
}

static double bench__gbps(uint64_t bytes, double us) { return us > 0 ? (double)bytes / us / 1e3 : NAN; }

BENCH_FN void bench_csv_row(FILE *f, const bench_row *r) {
    uint64_t bytes = r->n * pclr_type_size(r->type);
    char status[160], *c;
    if (!f) return;
    snprintf(status, sizeof status, "%s", r->status);
    for (c = status; *c; ++c) if (*c == ',' || *c == '\n' || *c == '"') *c = ';';
    fprintf(f, "%s,%s,%s,%s,%llu,%d,%llu,%s,%.3f,%.3f,%.3f,%.2f,%.2f,%d,%d,%d,%d,%d,%s,%.3f,%.3f,%s\n", r->backend, r->device,
            pclr_type_name(r->type), pclr_op_name(r->op), (unsigned long long)r->n, bench_log2(r->n),
            (unsigned long long)bytes, r->impl, r->kernel_us, r->pipelined_us, r->blocking_us,
            bench__gbps(bytes, r->kernel_us), bench__gbps(bytes, r->pipelined_us), r->kernel_reps, r->pipelined_reps,
            r->batch, r->blocking_reps, r->buffers, status, r->efficiency, r->graph_us, r->data ? r->data : bench_data_name());
    fflush(f);
}

/* vocab_<backend>.csv: the sweep's columns, then accumulate (native/wide/compensated, "-" for ops
   without one), sum_type, anchor (what vs_anchor is against), its kernel and pipelined times,
   vs_anchor = anchor kernel time / kernel time, read_kernel_us and of_read = read kernel time /
   kernel time (the fraction of the streaming-read bandwidth reached). */
BENCH_FN void bench_vocab_csv_header(FILE *f) {
    fprintf(f, "backend,device,type,op,n,log2n,bytes,impl,kernel_us,pipelined_us,blocking_us,gbps_kernel,gbps_pipelined,"
               "kernel_reps,pipelined_reps,pipelined_batch,blocking_reps,buffers,status,accumulate,sum_type,anchor,"
               "anchor_kernel_us,anchor_pipelined_us,vs_anchor,read_kernel_us,of_read,data\n");
    fflush(f);
}

BENCH_FN void bench_vocab_csv_row(FILE *f, const bench_row *r) {
    uint64_t bytes = r->n * pclr_type_size(r->type);
    char status[160], *c;
    if (!f) return;
    snprintf(status, sizeof status, "%s", r->status);
    for (c = status; *c; ++c) if (*c == ',' || *c == '\n' || *c == '"') *c = ';';
    fprintf(f, "%s,%s,%s,%s,%llu,%d,%llu,%s,%.3f,%.3f,%.3f,%.2f,%.2f,%d,%d,%d,%d,%d,%s,%s,%s,%s,%.3f,%.3f,%.4f,%.3f,%.4f,%s\n",
            r->backend, r->device, pclr_type_name(r->type), pclr_op_name(r->op), (unsigned long long)r->n, bench_log2(r->n),
            (unsigned long long)bytes, r->impl, r->kernel_us, r->pipelined_us, r->blocking_us, bench__gbps(bytes, r->kernel_us),
            bench__gbps(bytes, r->pipelined_us), r->kernel_reps, r->pipelined_reps, r->batch, r->blocking_reps, r->buffers, status,
            r->acc ? pclr_accumulate_name(r->acc) : "-", r->sum_type ? pclr_type_name(r->sum_type) : "-",
            r->anchor[0] ? r->anchor : "-", r->anchor_kernel_us, r->anchor_pipelined_us, r->anchor_kernel_us / r->kernel_us,
            r->read_kernel_us, r->read_kernel_us / r->kernel_us, r->data ? r->data : bench_data_name());
    fflush(f);
}

BENCH_FN void bench_vocab_table_header(void) {
    printf("data: %s\n", bench_data_description());
    printf("%-6s %-6s %-6s %-5s %-22s %10s %10s %8s %6s   %s\n", "type", "op", "acc", "n", "impl", "kernel_us", "pipe_us", "GB/s",
           "%read", "anchor: anchor_time/time kernel pipe");
    fflush(stdout);
}

BENCH_FN void bench_vocab_table_row(const bench_row *r) {
    uint64_t bytes = r->n * pclr_type_size(r->type);
    const char *acc = r->acc ? pclr_accumulate_name(r->acc) : "-";
    if (strncmp(r->status, "ok", 2) != 0) {
        printf("FAIL %-6s %-6s %-6.6s 2^%-3d %-22s %s\n", pclr_type_name(r->type), pclr_op_name(r->op), acc, bench_log2(r->n), r->impl,
               r->status);
        fflush(stdout);
        return;
    }
    printf("%-6s %-6s %-6.6s 2^%-3d %-22s %10.2f %10.2f %8.1f %6.1f", pclr_type_name(r->type), pclr_op_name(r->op), acc,
           bench_log2(r->n), r->impl, r->kernel_us, r->pipelined_us, bench__gbps(bytes, r->kernel_us),
           100.0 * r->read_kernel_us / r->kernel_us);
    if (r->anchor[0]) printf("   %s: %.2f %.2f", r->anchor, r->anchor_kernel_us / r->kernel_us, r->anchor_pipelined_us / r->pipelined_us);
    printf("\n");
    fflush(stdout);
}

BENCH_FN void bench_table_header(const char *ref_name) {
    printf("data: %s\n", bench_data_description());
    printf("%-6s %-3s %-5s %-22s %10s %10s %10s %8s", "type", "op", "n", "impl", "kernel_us", "pipe_us", "block_us", "GB/s");
    if (ref_name) printf("   %s/impl: kernel pipe block", ref_name);
    printf("   eff = read kernel / impl, pipelined; graph = us per call replayed from a CUDA graph\n");
    fflush(stdout);
}

/* One table line; `ref` (may be NULL) gives ratios ref_time / impl_time: above 1 = faster than the reference. */
BENCH_FN void bench_table_row(const bench_row *r, const bench_row *ref) {
    uint64_t bytes = r->n * pclr_type_size(r->type);
    if (strncmp(r->status, "ok", 2) != 0) {
        printf("FAIL %-6s %-3s 2^%-3d %-22s %s\n", pclr_type_name(r->type), pclr_op_name(r->op), bench_log2(r->n), r->impl, r->status);
        fflush(stdout);
        return;
    }
    printf("%-6s %-3s 2^%-3d %-22s %10.2f %10.2f %10.2f %8.1f", pclr_type_name(r->type), pclr_op_name(r->op),
           bench_log2(r->n), r->impl, r->kernel_us, r->pipelined_us, r->blocking_us, bench__gbps(bytes, r->kernel_us));
    if (ref && ref != r && strncmp(ref->status, "ok", 2) == 0)
        printf("   %12.2f %5.2f %5.2f", ref->kernel_us / r->kernel_us, ref->pipelined_us / r->pipelined_us,
               ref->blocking_us / r->blocking_us);
    else if (ref)
        printf("   %12s %5s %5s", "", "", "");
    if (r->efficiency == r->efficiency) printf("   eff %5.2f", r->efficiency);
    if (r->graph_us == r->graph_us) printf("   graph %7.2f", r->graph_us);
    printf("\n");
    fflush(stdout);
}

/* ------------------------------------------------------------ the study
   The seed paper's experiments (PCL-Reduction, Figs 7-10) on today's devices,
   at one large n (uint sum by default):
     granularity  stride global vs local, unroll 1..128 (x = unroll x vector,
                  the paper's "times": elements in flight per work-item)
     ingroup      in-group variants naive / sequential / unrolled / shuffle /
                  collective, unroll 1..64, scalar loads and the largest grid
                  (64 groups per unit) so the in-group step weighs the most
     gso          "global-stride-only" (unroll 1, scalar loads) vs the full
                  kernel (default unroll and 16-byte loads) on the same grid,
                  grid from 1 to 64 groups per unit (x = elements per work-item) */
typedef struct bench_study_point {
    const char *study;
    char series[48];
    pclr_config cfg;
} bench_study_point;

#define BENCH_STUDY_MAX 128

BENCH_FN int bench_study_plan(pclr_type t, pclr_op op, pclr_backend d, int have_shuffle, int have_collective,
                              bench_study_point *out, int cap) {
    int k = 0, u, s, v, g;
    const pclr_variant variants[] = {PCLR_VARIANT_NAIVE, PCLR_VARIANT_SEQUENTIAL, PCLR_VARIANT_UNROLLED,
                                     PCLR_VARIANT_SHUFFLE, PCLR_VARIANT_COLLECTIVE};
    pclr_config base;
    memset(&base, 0, sizeof base);
    base.type = t; base.op = op; base.backend = d;
    for (s = PCLR_STRIDE_GLOBAL; s <= PCLR_STRIDE_LOCAL; ++s)
        for (u = 1; u <= 128 && k < cap; u *= 2) {
            out[k].study = "granularity";
            snprintf(out[k].series, sizeof out[k].series, "stride %s", pclr_stride_name((pclr_stride)s));
            out[k].cfg = base;
            out[k].cfg.stride = (pclr_stride)s;
            out[k].cfg.unroll = u;
            ++k;
        }
    for (v = 0; v < (int)(sizeof variants / sizeof variants[0]); ++v) {
        if (variants[v] == PCLR_VARIANT_SHUFFLE && !have_shuffle) continue;
        if (variants[v] == PCLR_VARIANT_COLLECTIVE && !have_collective) continue;
        for (u = 1; u <= 64 && k < cap; u *= 4) {
            out[k].study = "ingroup";
            snprintf(out[k].series, sizeof out[k].series, "%s", pclr_variant_name(variants[v]));
            out[k].cfg = base;
            out[k].cfg.variant = variants[v];
            out[k].cfg.unroll = u;
            out[k].cfg.vector_width = 1;
            out[k].cfg.groups_per_unit = 64;
            ++k;
        }
    }
    for (s = 0; s < 2; ++s)
        for (g = 1; g <= 64 && k < cap; g *= 2) {
            out[k].study = "gso";
            snprintf(out[k].series, sizeof out[k].series, "%s", s == 0 ? "global-stride-only" : "full kernel");
            out[k].cfg = base;
            out[k].cfg.stride = PCLR_STRIDE_GLOBAL;
            if (s == 0) { out[k].cfg.unroll = 1; out[k].cfg.vector_width = 1; }
            out[k].cfg.groups_per_unit = g;
            ++k;
        }
    return k;
}

BENCH_FN void bench_study_csv_header(FILE *f) {
    fprintf(f, "backend,device,study,series,type,op,n,stride,variant,unroll,vector,group,groups_per_unit,groups,"
               "granularity,elems_per_item,kernel_us,gbps,reps,status\n");
    fflush(f);
}

/* `resolved` is the resolved configuration, `groups` the planner's grid. */
BENCH_FN void bench_study_csv_row(FILE *f, const char *backend, const char *device, const bench_study_point *p,
                                  const pclr_config *resolved, uint64_t n, uint64_t groups, double kernel_us, int reps,
                                  const char *status) {
    char st[160], *c;
    uint64_t items = groups * (uint64_t)resolved->group_size;
    snprintf(st, sizeof st, "%s", status);
    for (c = st; *c; ++c) if (*c == ',' || *c == '\n' || *c == '"') *c = ';';
    fprintf(f, "%s,%s,%s,%s,%s,%s,%llu,%s,%s,%d,%d,%d,%d,%llu,%d,%.1f,%.3f,%.2f,%d,%s\n", backend, device, p->study,
            p->series, pclr_type_name(resolved->type), pclr_op_name(resolved->op), (unsigned long long)n,
            pclr_stride_name(resolved->stride), pclr_variant_name(resolved->variant), resolved->unroll,
            resolved->vector_width, resolved->group_size, resolved->groups_per_unit, (unsigned long long)groups,
            resolved->unroll * resolved->vector_width, items ? (double)n / (double)items : 0.0, kernel_us,
            bench__gbps(n * pclr_type_size(resolved->type), kernel_us), reps, st);
    fflush(f);
}

#endif
