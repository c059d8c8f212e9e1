/* bench_cpu: every type x op on the CPU against an OpenMP loop over the same data (issue 35).

   For each type (uint8 ... double) and op (sum native/wide, min, max, minmax, argmin,
   argmax, count, stats) at n elements (default 2^26), in one process:
     pocl   pclreduce on OpenCL's CPU device (PoCL): a generic context limited to OpenCL,
            blocking pclr_reduce, built-in defaults (no tuning file)
     omp    the OpenMP loop (bench/cpu_anchor.c, -O3 -march=native -fopenmp) on all cores
     ref    the CPU reference backend's work (pclr_cpu_reduce_config: what the CPU backend
            runs per launch), one thread
     omp1   the OpenMP loop on one thread
   Data: integers over their full range; half, float, double with random signs, exponents
   in [-4, 3] and every mantissa bit random (no NaN, no -0: the OpenMP loops need not
   know those rules). Calls rotate over K >= 2 slices of the pool, K x bytes >= 3 x 32 MB
   (this machine's L3), so no call reads what the last one left in the cache; the four
   implementations take turns within each repetition; the time is the median of the
   repetitions (host clock). Each result (pocl, omp, ref) is checked against the CPU
   reference on slice 0 (exact where the semantics fix the bits; float sums and stats
   within a tolerance).
   Ratios: pocl/omp = omp time / pocl time (>= 1: pclreduce faster), ref/omp1 likewise.
   Writes DIR/cpu.csv and DIR/cpu.md (the table); bench/plot_cpu.py draws DIR/cpu.png.

   usage: bench_cpu [--quick] [--log N] [--reps R] [--types a,b] [--ops a,b] [--out DIR]
                    [--no-pocl] [--no-ref] [--platform P]
     --quick     n = 2^22, 3 repetitions (a smoke run)
     --platform  OpenCL platform P only, as pclreduce-run --list numbers them (PoCL where a GPU's
                 platform would come first) */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "pclreduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cpu_anchor.h"

#define MAX_REPS 64
enum { I_POCL, I_OMP, I_REF, I_OMP1, I_COUNT };
static const char *const impl_name[I_COUNT] = {"pocl", "omp", "ref", "omp1"};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* n elements of t at p: see the header comment */
static void fill(pclr_type t, void *p, uint64_t n) {
    uint64_t i;
    switch (t) {
    case PCLR_HALF:
        for (i = 0; i < n; ++i) {
            const uint64_t r = rnd();
            ((uint16_t *)p)[i] = (uint16_t)(((r >> 63) << 15) | ((15 + (int)((r >> 40) & 7) - 4) << 10) | (r & 0x3ff));
        }
        break;
    case PCLR_FLOAT:
        for (i = 0; i < n; ++i) {
            const uint64_t r = rnd();
            const uint32_t b = (uint32_t)(((r >> 63) << 31) | ((uint64_t)(127 + (int)((r >> 40) & 7) - 4) << 23) | (r & 0x7fffff));
            memcpy((float *)p + i, &b, 4);
        }
        break;
    case PCLR_DOUBLE:
        for (i = 0; i < n; ++i) {
            const uint64_t r = rnd(), m = rnd() & 0xfffffffffffffull;
            const uint64_t b = ((r >> 63) << 63) | ((uint64_t)(1023 + (int)((r >> 40) & 7) - 4) << 52) | m;
            memcpy((double *)p + i, &b, 8);
        }
        break;
    default: {
        const size_t bytes = (size_t)n * pclr_type_size(t);
        size_t k;
        for (k = 0; k + 8 <= bytes; k += 8) {
            const uint64_t r = rnd();
            memcpy((char *)p + k, &r, 8);
        }
        for (; k < bytes; ++k) ((unsigned char *)p)[k] = (unsigned char)rnd();
    }
    }
}

static double as_double(pclr_type t, const pclr_scalar *s) {
    switch (t) {
    case PCLR_UINT8: return s->u8;
    case PCLR_INT8: return s->i8;
    case PCLR_UINT16: return s->u16;
    case PCLR_INT16: return s->i16;
    case PCLR_UINT: return s->u32;
    case PCLR_INT: return s->i32;
    case PCLR_UINT64: return (double)s->u64;
    case PCLR_INT64: return (double)s->i64;
    case PCLR_FLOAT: case PCLR_HALF: return s->f32;
    default: return s->f64;
    }
}
static int is_fp(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }

/* 1 when got matches ref for cfg (n elements): exact, but float sums and stats' moments within a tolerance */
static int matches(const pclr_config *c, uint64_t n, const void *got, const void *ref) {
    const pclr_type vt = pclr_value_type(c->type), st = pclr_sum_type(c->type, c->accumulate);
    const size_t vs = pclr_type_size(vt);
    const double sum_tol = (st == PCLR_FLOAT ? 1.2e-7 : 2.3e-16) * (double)n * 16 * 0.1;
    if (c->op == PCLR_SUM) {
        pclr_scalar a, b;
        memcpy(&a, got, pclr_type_size(st));
        memcpy(&b, ref, pclr_type_size(st));
        if (is_fp(st)) return fabs(as_double(st, &a) - as_double(st, &b)) <= sum_tol;
        return !memcmp(got, ref, pclr_type_size(st));
    }
    if (c->op == PCLR_MIN || c->op == PCLR_MAX) return !memcmp(got, ref, vs);
    if (c->op == PCLR_COUNT) return !memcmp(got, ref, 8);
    if (c->op == PCLR_ARGMIN || c->op == PCLR_ARGMAX) {
        pclr_arg_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        return a.index == b.index && !memcmp(&a.value, &b.value, vs);
    }
    if (c->op == PCLR_MINMAX) {
        pclr_minmax_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        return !memcmp(&a.min, &b.min, vs) && !memcmp(&a.max, &b.max, vs);
    }
    {
        pclr_stats_result a, b;
        const int fm = (c->type == PCLR_FLOAT || c->type == PCLR_HALF) && c->accumulate != PCLR_WIDE; /* moments in float */
        const double rel = fm ? 1e-3 : 1e-9;
        memcpy(&a, got, sizeof a);
        memcpy(&b, ref, sizeof b);
        if (a.count != b.count || memcmp(&a.min, &b.min, vs) || memcmp(&a.max, &b.max, vs)) return 0;
        if (is_fp(st) ? fabs(as_double(st, &a.sum) - as_double(st, &b.sum)) > sum_tol : memcmp(&a.sum, &b.sum, pclr_type_size(st))) return 0;
        if (fabs(a.var - b.var) > rel * fabs(b.var)) return 0;
        return fabs(a.mean - b.mean) <= rel * (fabs(b.mean) + sqrt(fabs(b.var)));
    }
}

typedef struct job { pclr_op op; pclr_accumulate acc; } job;

static int parse_list(const char *s, const char *name) {
    const char *p = s;
    const size_t len = strlen(name);
    while (p && *p) {
        if (!strncmp(p, name, len) && (p[len] == ',' || !p[len])) return 1;
        p = strchr(p, ',');
        if (p) ++p;
    }
    return 0;
}

int main(int argc, char **argv) {
    static const pclr_type types[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_HALF, PCLR_INT, PCLR_UINT, PCLR_INT64,
                                      PCLR_FLOAT, PCLR_DOUBLE};
    int log_n = 26, reps = 7, do_pocl = 1, do_ref = 1, k, status = 0;
    const char *tsel = NULL, *osel = NULL, *out = "bench/results/cpu";
    char path[512], err[512] = "";
    FILE *csv, *md;
    pclr_context *cl = NULL;
    pclr_desc d = PCLR_ZERO;
    const int cores = cpu_anchor_max_threads();
    for (k = 1; k < argc; ++k) {
        if (!strcmp(argv[k], "--quick")) { log_n = 22; reps = 3; }
        else if (!strcmp(argv[k], "--log") && k + 1 < argc) log_n = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--reps") && k + 1 < argc) reps = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--types") && k + 1 < argc) tsel = argv[++k];
        else if (!strcmp(argv[k], "--ops") && k + 1 < argc) osel = argv[++k];
        else if (!strcmp(argv[k], "--out") && k + 1 < argc) out = argv[++k];
        else if (!strcmp(argv[k], "--no-pocl")) do_pocl = 0;
        else if (!strcmp(argv[k], "--no-ref")) do_ref = 0;
        else if (!strcmp(argv[k], "--platform") && k + 1 < argc) d.platform = atoi(argv[++k]) + 1;
        else {
            fprintf(stderr, "usage: %s [--quick] [--log N] [--reps R] [--types a,b] [--ops a,b] [--out DIR] [--no-pocl] [--no-ref] [--platform P]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (log_n < 10 || log_n > 30) { fprintf(stderr, "--log: 10 to 30\n"); return 2; }
    if (do_pocl) {
        d.backends[0] = PCLR_OPENCL;
        d.no_tune_file = 1;
        d.error = err;
        d.error_cap = sizeof err;
        if (pclr_create(&d, &cl) != PCLR_OK) {
            fprintf(stderr, "bench_cpu: no OpenCL device (%s): pocl skipped\n", err);
            do_pocl = 0;
        }
    }
    mkdir(out, 0755);
    snprintf(path, sizeof path, "%s/cpu.csv", out);
    csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/cpu.md", out);
    md = fopen(path, "w");
    if (!csv || !md) { fprintf(stderr, "bench_cpu: cannot write under %s\n", out); return 1; }
    fprintf(csv, "type,op,accumulate,n,bytes,impl,threads,median_ms,gbps,reps,status\n");
    fprintf(md, "Device: %s; OpenMP anchor: %d threads (and 1); n = 2^%d; median of %d; GB/s of input bytes\n\n",
            cl ? pclr_device_name(cl) : "(no OpenCL)", cores, log_n, reps);
    fprintf(md, "| type | op | pocl GB/s | omp GB/s | pocl/omp | ref GB/s | omp1 GB/s | ref/omp1 | check |\n");
    fprintf(md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    printf("%-7s %-12s %9s %9s %8s %9s %9s %8s  %s\n", "type", "op", "pocl", "omp", "p/omp", "ref", "omp1", "r/omp1", "check");
    for (k = 0; k < (int)(sizeof types / sizeof types[0]); ++k) {
        const pclr_type t = types[k];
        const size_t es = pclr_type_size(t);
        const uint64_t n = (uint64_t)1 << log_n;
        const size_t bytes = (size_t)n * es;
        const int slices = (int)((3u * 32u << 20) / bytes + 1 > 2 ? (3u * 32u << 20) / bytes + 1 : 2);
        const int wide_ok = t != PCLR_DOUBLE && t != PCLR_INT64 && t != PCLR_UINT64;
        job jobs[16];
        int nj = 0, j, s;
        unsigned char *pool;
        pclr_buffer *buf[64];
        if (tsel && !parse_list(tsel, pclr_type_name(t))) continue;
        jobs[nj].op = PCLR_SUM; jobs[nj++].acc = PCLR_NATIVE;
        if (wide_ok) { jobs[nj].op = PCLR_SUM; jobs[nj++].acc = PCLR_WIDE; }
        jobs[nj].op = PCLR_MIN; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_MAX; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_MINMAX; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_ARGMIN; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_ARGMAX; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_COUNT; jobs[nj++].acc = PCLR_NATIVE;
        jobs[nj].op = PCLR_STATS; jobs[nj++].acc = PCLR_NATIVE;
        pool = (unsigned char *)malloc(bytes * (size_t)slices);
        if (!pool) { fprintf(stderr, "bench_cpu: out of memory\n"); return 1; }
        fill(t, pool, n * (uint64_t)slices);
        for (s = 0; s < slices; ++s) {
            buf[s] = NULL;
            if (do_pocl && (pclr_buffer_create(cl, bytes, &buf[s]) != PCLR_OK || pclr_buffer_write(cl, buf[s], 0, pool + (size_t)s * bytes, bytes) != PCLR_OK)) {
                fprintf(stderr, "bench_cpu: %s\n", pclr_last_error(cl));
                return 1;
            }
        }
        for (j = 0; j < nj; ++j) {
            pclr_config c = PCLR_ZERO;
            const char *opname = pclr_op_name(jobs[j].op);
            char label[48];
            unsigned char ref[128], got[I_COUNT][128];
            double tm[I_COUNT][MAX_REPS], med[I_COUNT];
            int ok[I_COUNT], r, i;
            size_t rs;
            c.type = t;
            c.op = jobs[j].op;
            c.accumulate = jobs[j].acc;
            c.backend = PCLR_CPU;
            if (osel && !parse_list(osel, opname)) continue;
            rs = pclr_result_size(&c);
            snprintf(label, sizeof label, "%s%s", opname,
                     jobs[j].op == PCLR_SUM ? (jobs[j].acc == PCLR_WIDE ? "-wide" : "-native") : "");
            memset(ref, 0, sizeof ref);
            memset(got, 0, sizeof got);
            if (pclr_cpu_reduce_config(&c, pool, n, ref) != PCLR_OK) { fprintf(stderr, "reference failed\n"); return 1; }
            c.backend = PCLR_BACKEND_AUTO;
            for (i = 0; i < I_COUNT; ++i) ok[i] = 1, med[i] = 0;
            /* warm-up and check on slice 0 (pocl compiles its kernel here) */
            if (do_pocl) {
                pclr_input in = PCLR_ZERO;
                in.x = buf[0];
                in.n = n;
                if (pclr_reduce(cl, &c, &in, got[I_POCL], rs) != PCLR_OK) {
                    fprintf(stderr, "pocl %s %s: %s\n", pclr_type_name(t), label, pclr_last_error(cl));
                    ok[I_POCL] = 0;
                } else ok[I_POCL] = matches(&c, n, got[I_POCL], ref);
            }
            cpu_anchor_set_threads(0);
            cpu_anchor_reduce(t, c.op, c.accumulate, pool, n, got[I_OMP]);
            ok[I_OMP] = matches(&c, n, got[I_OMP], ref);
            cpu_anchor_set_threads(1);
            cpu_anchor_reduce(t, c.op, c.accumulate, pool, n, got[I_OMP1]);
            ok[I_OMP1] = matches(&c, n, got[I_OMP1], ref);
            for (r = 0; r < reps; ++r) {
                const int sl = (r + 1) % slices;
                const void *x = pool + (size_t)sl * bytes;
                double t0;
                if (do_pocl && ok[I_POCL]) {
                    pclr_input in = PCLR_ZERO;
                    in.x = buf[sl];
                    in.n = n;
                    t0 = now_s();
                    pclr_reduce(cl, &c, &in, got[I_POCL], rs);
                    tm[I_POCL][r] = now_s() - t0;
                }
                cpu_anchor_set_threads(0);
                t0 = now_s();
                cpu_anchor_reduce(t, c.op, c.accumulate, x, n, got[I_OMP]);
                tm[I_OMP][r] = now_s() - t0;
                if (do_ref) {
                    c.backend = PCLR_CPU;
                    t0 = now_s();
                    pclr_cpu_reduce_config(&c, x, n, got[I_REF]);
                    tm[I_REF][r] = now_s() - t0;
                    c.backend = PCLR_BACKEND_AUTO;
                    cpu_anchor_set_threads(1);
                    t0 = now_s();
                    cpu_anchor_reduce(t, c.op, c.accumulate, x, n, got[I_OMP1]);
                    tm[I_OMP1][r] = now_s() - t0;
                }
            }
            for (i = 0; i < I_COUNT; ++i) {
                const int have = i == I_POCL ? do_pocl && ok[I_POCL] : i == I_OMP ? 1 : do_ref;
                if (!have) continue;
                med[i] = median(tm[i], reps);
                fprintf(csv, "%s,%s,%s,%llu,%llu,%s,%d,%.4f,%.3f,%d,%s\n", pclr_type_name(t), opname, pclr_accumulate_name(c.accumulate),
                        (unsigned long long)n, (unsigned long long)bytes, impl_name[i], i == I_OMP ? cores : i == I_POCL ? cores : 1,
                        med[i] * 1e3, (double)bytes / med[i] * 1e-9, reps, ok[i] ? "ok" : "FAIL");
            }
            fflush(csv);
            {
                char chk[64] = "ok";
                if (!ok[I_POCL] || !ok[I_OMP] || !ok[I_OMP1])
                    snprintf(chk, sizeof chk, "FAIL:%s%s%s", ok[I_POCL] ? "" : " pocl", ok[I_OMP] ? "" : " omp", ok[I_OMP1] ? "" : " omp1");
                if (chk[0] == 'F') status = 1;
#define GBS(i) (med[i] > 0 ? (double)bytes / med[i] * 1e-9 : 0.0)
#define RAT(a, b) (med[a] > 0 && med[b] > 0 ? med[b] / med[a] : 0.0)
                printf("%-7s %-12s %9.2f %9.2f %8.2f %9.2f %9.2f %8.2f  %s\n", pclr_type_name(t), label, GBS(I_POCL), GBS(I_OMP),
                       RAT(I_POCL, I_OMP), GBS(I_REF), GBS(I_OMP1), RAT(I_REF, I_OMP1), chk);
                fprintf(md, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", pclr_type_name(t), label, GBS(I_POCL), GBS(I_OMP),
                        RAT(I_POCL, I_OMP), GBS(I_REF), GBS(I_OMP1), RAT(I_REF, I_OMP1), chk);
                fflush(stdout);
            }
        }
        for (s = 0; s < slices; ++s) if (buf[s]) pclr_buffer_destroy(cl, buf[s]);
        free(pool);
    }
    fclose(csv);
    fclose(md);
    pclr_destroy(cl);
    return status;
}
