/* mpi_reduce: one reduction over several processes, one GPU each. Each MPI
   rank reduces its slice of a global array on its own device, rank 0 gathers
   every rank's result and folds them in rank order with pclr_combine (the
   result of a's elements followed by b's), so the answer does not depend on
   the order messages arrive in.

   mpirun -np R build/mpi_reduce --type T --op O [--accumulate A] --n N [--seed S]
          [--backend cuda|opencl|cpu] [--platform P] [--device D] [--check]
          [--time K] [knobs]

   Every type (uint8 .. double, half) and op (sum, min, max, argmin, argmax,
   minmax, stats, count) with the native, wide and compensated accumulators.
   Exact sums are refused: each rank's exact sum is rounded once, and the sum
   of rounded sums is not the exact sum (pclr_combine says so).

   Device choice, with any launcher: the ranks on one node are numbered by an
   MPI-3 shared-memory split (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED); the
   node's local rank L takes device L % C of the backend, C its device count
   (pclr_device_count), through pclr_desc.device = L % C + 1. The backend is
   --backend, else the first of CUDA, OpenCL, CPU that has a device.
   --device D gives every rank device D instead; --platform P (OpenCL) counts
   and picks only platform P's devices. Each rank's line says what it took.

   The data is pclreduce-run's --n/--seed array, so both print the same
   values. The last line rank 0 prints is "result: ..." as pclreduce-run
   prints it; with --check, rank 0 first compares it with the CPU reference of
   the whole array ("check: ok"). --time K: the slice stays on the device and
   K more reduces run, each between barriers; rank 0 prints the median per
   rank (the slowest rank's) and the throughput of the whole array. */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_MPI_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESULT_MOST sizeof(pclr_stats_result) /* the largest result */
#define LINE 512                                /* one rank's line in rank 0's report */

/* Rank r's slice [lo, lo + count) of n: n / ranks each, the first n % ranks one more. */
static void slice_of(uint64_t n, int ranks, int r, uint64_t *lo, uint64_t *count) {
    const uint64_t each = n / (uint64_t)ranks, extra = n % (uint64_t)ranks, ur = (uint64_t)r;
    *count = each + (ur < extra);
    *lo = ur * each + (ur < extra ? ur : extra);
}

static double value_abs(pclr_type t, const void *x, uint64_t i) {
    switch (t) {
    case PCLR_HALF: return fabs((double)pclr_args_half_to_float(((const uint16_t *)x)[i]));
    case PCLR_FLOAT: return fabs((double)((const float *)x)[i]);
    case PCLR_DOUBLE: return fabs(((const double *)x)[i]);
    default: return 0;
    }
}

/* Float sums: the ranks' device trees plus the combines round differently from
   the one pairwise CPU reference; each is within depth * u * sum|x| of the
   exact sum (bounded as in tests/test_opencl.c), depth = the longest chain of
   roundings: per device thread at most slice/64 elements (groups have 64 or
   more threads), log-depth trees (< 64 each), the CPU's 256-element blocks,
   one addition per rank. u: of the sum type. */
static double sum_bound(pclr_type t, pclr_type sum_type, const void *x, uint64_t n, int ranks) {
    const double u = sum_type == PCLR_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53);
    double sabs = 0, depth;
    uint64_t i;
    for (i = 0; i < n; ++i) sabs += value_abs(t, x, i);
    depth = (double)(n / (uint64_t)ranks + 1) / 64.0 + 3 * 64.0 + 256.0 + ranks;
    return 1.1 * depth * u * sabs + 1e-30;
}

static int float_close(pclr_type st, const pclr_scalar *a, const pclr_scalar *b, double bound, double *diff) {
    const double x = st == PCLR_FLOAT ? (double)a->f32 : a->f64, y = st == PCLR_FLOAT ? (double)b->f32 : b->f64;
    *diff = fabs(x - y);
    return *diff <= bound;
}

/* Rank 0 with --check: 1 when `got` matches the CPU reference of the whole
   array: bit for bit where the order of operations cannot matter (integer
   sums, min/max/arg/minmax, counts; the seed's data has no NaN), float sums
   within sum_bound, stats' mean and variance within a relative 1e-9 (moments
   in double) or 1e-3 (in float: half and float without the wide accumulator). */
static int check(const pclr_config *cfg, uint64_t n, uint64_t seed, int ranks, const void *got) {
    const pclr_type t = cfg->type, vt = pclr_value_type(t), st = pclr_sum_type(t, cfg->accumulate);
    const size_t ts = pclr_type_size(t), vs = pclr_type_size(vt), ss = pclr_type_size(st);
    const int float_sum = st == PCLR_FLOAT || st == PCLR_DOUBLE;
    unsigned char want[RESULT_MOST];
    char g[256], w[256], why[160] = "";
    void *all = malloc(n ? (size_t)n * ts : 1);
    double bound = 0, diff = 0;
    int ok;
    if (!all) { printf("check: out of memory for the reference\n"); return 0; }
    pclr_args_fill_random(t, all, n, seed);
    if (pclr_cpu_reduce_config(cfg, all, n, want) != PCLR_OK) { printf("check: the CPU reference failed\n"); free(all); return 0; }
    if (float_sum && (cfg->op == PCLR_SUM || cfg->op == PCLR_STATS)) bound = sum_bound(t, st, all, n, ranks);
    switch (cfg->op) {
    case PCLR_SUM: {
        pclr_scalar a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        memcpy(&a, got, ss);
        memcpy(&b, want, ss);
        ok = float_sum ? float_close(st, &a, &b, bound, &diff) : memcmp(&a, &b, ss) == 0;
        if (float_sum) snprintf(why, sizeof why, "; |difference| %.3g, bound %.3g", diff, bound);
        break;
    }
    case PCLR_MIN: case PCLR_MAX: ok = memcmp(got, want, vs) == 0; break;
    case PCLR_COUNT: ok = memcmp(got, want, 8) == 0; break;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, want, sizeof b);
        ok = a.index == b.index && memcmp(&a.value, &b.value, vs) == 0;
        break;
    }
    case PCLR_MINMAX: {
        pclr_minmax_result a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, want, sizeof b);
        ok = memcmp(&a.min, &b.min, vs) == 0 && memcmp(&a.max, &b.max, vs) == 0;
        break;
    }
    default: { /* stats */
        pclr_stats_result a, b;
        const double tol = (t == PCLR_HALF || t == PCLR_FLOAT) && cfg->accumulate != PCLR_WIDE ? 1e-3 : 1e-9;
        double dmean, dvar;
        memcpy(&a, got, sizeof a);
        memcpy(&b, want, sizeof b);
        dmean = fabs(a.mean - b.mean);
        dvar = fabs(a.var - b.var);
        ok = a.count == b.count && memcmp(&a.min, &b.min, vs) == 0 && memcmp(&a.max, &b.max, vs) == 0 &&
             (float_sum ? float_close(st, &a.sum, &b.sum, bound, &diff) : memcmp(&a.sum, &b.sum, ss) == 0) &&
             (n == 0 ? a.mean != a.mean && a.var != a.var
                     : dmean <= tol * (fabs(b.mean) + sqrt(b.var)) + 1e-300 && dvar <= tol * (b.var + b.mean * b.mean) + 1e-300);
        snprintf(why, sizeof why, "; |mean difference| %.3g, |var difference| %.3g, relative bound %.0e", dmean, dvar, tol);
        if (float_sum) snprintf(why + strlen(why), sizeof why - strlen(why), ", sum |difference| %.3g, bound %.3g", diff, bound);
        break;
    }
    }
    pclr_args_format_result(cfg, got, g, sizeof g);
    pclr_args_format_result(cfg, want, w, sizeof w);
    printf("check: %s (got %s; reference %s%s)\n", ok ? "ok" : "MISMATCH", g, w, why);
    free(all);
    return ok;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(const char *why, const char *bad) {
    fprintf(stderr,
            "mpi_reduce: %s %s\n"
            "usage: mpirun -np R mpi_reduce --type T --op O [--accumulate native|wide|compensated] --n N [--seed S]\n"
            "       [--backend cuda|opencl|cpu] [--platform P] [--device D] [--check] [--time K] [--group N ...]\n"
            "  T: uint8 int8 uint16 int16 uint int uint64 int64 half float double\n"
            "  O: sum min max argmin argmax minmax stats count\n"
            "  rank L of a node takes device L %% (devices of the backend) unless --device D\n",
            why, bad);
}

int main(int argc, char **argv) {
    pclr_config cfg = PCLR_ZERO, resolved;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    pclr_input in = PCLR_ZERO;
    pclr_desc desc = PCLR_ZERO;
    pclr_backend order[3] = {PCLR_CUDA, PCLR_OPENCL, PCLR_CPU}, chosen = PCLR_BACKEND_AUTO;
    long long n = -1, seed = 1, device = -1, platform = -1, repeat = 0;
    uint64_t count, lo;
    unsigned char local[RESULT_MOST], id[RESULT_MOST], *all = NULL;
    char line[LINE], *lines = NULL, err[256], passed[3][300];
    const char *why = "", *bad = "";
    size_t ts, rs;
    int i, rank, ranks, local_rank, local_size, devices = 0, norder = 3, want_check = 0, ok = 1;
    MPI_Comm node;
    pclr_result r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* the ranks that share this node's memory: the launcher's placement, whatever launcher */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    for (i = 1; i < argc; ++i) {
        int used = 0;
        long long *num = NULL, most = (long long)1 << 62;
        if (strcmp(argv[i], "--check") == 0) { want_check = used = 1; }
        else if (strcmp(argv[i], "--n") == 0) num = &n;
        else if (strcmp(argv[i], "--seed") == 0) num = &seed;
        else if (strcmp(argv[i], "--device") == 0) { num = &device; most = 1 << 20; }
        else if (strcmp(argv[i], "--platform") == 0) { num = &platform; most = 1 << 20; }
        else if (strcmp(argv[i], "--time") == 0 || strcmp(argv[i], "--repeat") == 0) { num = &repeat; most = 1 << 20; }
        else if (strcmp(argv[i], "--backend") == 0) {
            used = i + 1 < argc && pclr_parse_backend(argv[i + 1], &chosen) == PCLR_OK && chosen != PCLR_BACKEND_AUTO ? 2 : -1;
            order[0] = chosen;
            norder = 1;
        } else used = pclr_args_parse_knob(argc, argv, i, &cfg, stderr, "mpi_reduce");
        if (num) used = pclr_args_int(i + 1 < argc ? argv[i + 1] : NULL, 0, most, num) ? -1 : 2;
        if (used <= 0) { why = "bad or unknown argument:"; bad = argv[i]; break; }
        i += used - 1;
    }
    if (!*why && (n < 0 || !cfg.type || !cfg.op)) why = "--type, --op and --n are required";
    if (!*why) {
        const char *wrong = NULL;
        if (pclr_config_resolve(&cfg, &resolved, &wrong) != PCLR_OK) why = wrong ? wrong : "invalid configuration";
    }
    if (!*why) { /* refused combinations (exact sums), before any device work */
        const pclr_result cr = pclr_cpu_reduce_config(&cfg, NULL, 0, id);
        if (cr != PCLR_OK) why = pclr_result_string(cr);
        else if (pclr_combine(&cfg, id, id, 0, local) == PCLR_ERR_UNSUPPORTED_COMBINATION)
            why = "exact sums cannot be combined across ranks: each rank's exact sum is rounded once, and a sum of "
                  "rounded sums is not the exact sum (use --accumulate wide or compensated)";
    }
    if (*why) {
        if (rank == 0) usage(why, bad);
        MPI_Comm_free(&node);
        MPI_Finalize();
        return 2;
    }
    slice_of((uint64_t)n, ranks, rank, &lo, &count);
    ts = pclr_type_size(cfg.type);
    rs = pclr_result_size(&cfg);

    /* the backend: the first of the order with a device; this rank's device in it */
    desc.error = err;
    desc.error_cap = sizeof err;
    desc.platform = platform >= 0 ? (int)platform + 1 : 0;
    for (i = 0; i < norder && devices == 0; ++i) {
        if (pclr_device_count(&desc, order[i], &devices) == PCLR_OK && devices > 0) chosen = order[i];
        else snprintf(passed[i], sizeof passed[i], "%s: %.250s", pclr_backend_name(order[i]), err);
    }
    if (!devices) {
        fprintf(stderr, "mpi_reduce: rank %d: no device (%s%s%s%s%s)\n", rank, passed[0], norder > 1 ? "; " : "",
                norder > 1 ? passed[1] : "", norder > 2 ? "; " : "", norder > 2 ? passed[2] : "");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    desc.backends[0] = chosen;
    desc.device = (int)(device >= 0 ? device : local_rank % devices) + 1;
    if ((r = pclr_create(&desc, &ctx)) != PCLR_OK) {
        fprintf(stderr, "mpi_reduce: rank %d: no context on %s device %d: %s (%s)\n", rank, pclr_backend_name(chosen),
                desc.device - 1, pclr_result_string(r), err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    snprintf(line, sizeof line, "rank %d (node rank %d of %d): %s device %d of %d (%.300s): %llu elements from %llu", rank,
             local_rank, local_size, pclr_backend_name(chosen), desc.device - 1, devices, pclr_device_name(ctx),
             (unsigned long long)count, (unsigned long long)lo);

    /* this rank's slice, uploaded once; an empty slice still uploads one element and reduces 0 (the identity) */
    {
        const size_t bytes = (count ? (size_t)count : 1) * ts;
        void *slice = calloc(1, bytes);
        if (!slice) MPI_Abort(MPI_COMM_WORLD, 1);
        /* the generator steps a counter from the seed, so seed + lo starts at element lo */
        pclr_args_fill_random(cfg.type, slice, count, (uint64_t)seed + lo);
        if ((r = pclr_buffer_create(ctx, bytes, &buf)) == PCLR_OK && (r = pclr_buffer_write(ctx, buf, 0, slice, bytes)) == PCLR_OK) {
            in.x = buf;
            in.n = count;
            r = pclr_reduce(ctx, &cfg, &in, local, rs);
        }
        free(slice);
    }
    if (r != PCLR_OK) {
        fprintf(stderr, "mpi_reduce: rank %d: %s (%s)\n", rank, pclr_result_string(r), pclr_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* every rank's result and line to rank 0, folded there in rank order */
    if (rank == 0 && (!(all = (unsigned char *)malloc(rs * (size_t)ranks)) || !(lines = (char *)malloc(LINE * (size_t)ranks))))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(local, (int)rs, MPI_BYTE, all, (int)rs, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gather(line, LINE, MPI_CHAR, lines, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char global[RESULT_MOST];
        char v[256];
        memcpy(global, all, rs);
        for (i = 0; i < ranks; ++i) printf("%s\n", lines + (size_t)i * LINE);
        for (i = 1; i < ranks; ++i) {
            uint64_t lo_i, count_i;
            slice_of((uint64_t)n, ranks, i, &lo_i, &count_i);
            if ((r = pclr_combine(&cfg, global, all + (size_t)i * rs, lo_i, global)) != PCLR_OK) {
                fprintf(stderr, "mpi_reduce: pclr_combine of rank %d: %s\n", i, pclr_result_string(r));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        if (want_check) ok = check(&cfg, (uint64_t)n, (uint64_t)seed, ranks, global);
        pclr_args_format_result(&cfg, global, v, sizeof v);
        if (!repeat) printf("result: %s\n", v);
        else memcpy(local, global, rs); /* printed after the timing */
    }

    /* --time K: K reduces of the resident slice, each between barriers */
    if (repeat > 0) {
        double *t = (double *)malloc(sizeof(double) * (size_t)repeat), median, slowest = 0, step = 0;
        long long k;
        if (!t) MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        for (k = 0; k < repeat && r == PCLR_OK; ++k) {
            unsigned char tmp[RESULT_MOST];
            double t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            r = pclr_reduce(ctx, &cfg, &in, tmp, sizeof tmp);
            t[k] = MPI_Wtime() - t0;
        }
        if (r != PCLR_OK) {
            fprintf(stderr, "mpi_reduce: rank %d: timed reduce: %s (%s)\n", rank, pclr_result_string(r), pclr_last_error(ctx));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        qsort(t, (size_t)repeat, sizeof *t, cmp_double);
        median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
        MPI_Reduce(&median, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        { /* one whole step: reduce, gather, fold (rank 0's clock), median of K */
            for (k = 0; k < repeat; ++k) {
                unsigned char mine[RESULT_MOST], g[RESULT_MOST];
                double t0;
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                if (pclr_reduce(ctx, &cfg, &in, mine, sizeof mine) != PCLR_OK) MPI_Abort(MPI_COMM_WORLD, 1);
                MPI_Gather(mine, (int)rs, MPI_BYTE, all, (int)rs, MPI_BYTE, 0, MPI_COMM_WORLD);
                if (rank == 0) {
                    memcpy(g, all, rs);
                    for (i = 1; i < ranks; ++i) {
                        uint64_t lo_i, count_i;
                        slice_of((uint64_t)n, ranks, i, &lo_i, &count_i);
                        pclr_combine(&cfg, g, all + (size_t)i * rs, lo_i, g);
                    }
                }
                t[k] = MPI_Wtime() - t0;
            }
            qsort(t, (size_t)repeat, sizeof *t, cmp_double);
            step = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
        }
        if (rank == 0) {
            const double bytes = (double)n * (double)ts;
            char v[256];
            printf("time: %d ranks, %lld reduces each: median per rank (slowest rank) %.4f ms, %.1f GB/s of %.0f bytes; "
                   "reduce + gather + combine %.4f ms, %.1f GB/s\n",
                   ranks, repeat, slowest * 1e3, bytes / slowest * 1e-9, bytes, step * 1e3, bytes / step * 1e-9);
            pclr_args_format_result(&cfg, local, v, sizeof v);
            printf("result: %s\n", v);
        }
        free(t);
    }
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    free(all);
    free(lines);
    MPI_Comm_free(&node);
    fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 1;
}
