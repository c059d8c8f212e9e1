/* mpi_reduce: one reduction over several machines. Each MPI rank reduces its
   slice of a global array on its own device (examples/pclr_device.h: CUDA, else
   the best OpenCL device, else the CPU reference), then MPI_Allreduce combines
   the per-rank results.

   mpirun -np R build/mpi_reduce --type T --op O --n N [--seed S] [--check] [knobs]

   The data is pclreduce-run's --n/--seed array, so both print the same values.
   The last line rank 0 prints is "result: VALUE"; with --check, rank 0 first
   compares it with the CPU reference of the whole array ("check: ok").
   Device choice: pclr_device.h takes the first CUDA device / the best OpenCL
   device, so on a node with several GPUs give each rank its own one from the
   launcher, e.g. CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK (README.md). */
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

/* Float min/max as the kernels do it: a NaN on either side wins (MPI_MIN and
   MPI_MAX leave NaN handling to the implementation). */
static void nan_minmax(void *in, void *inout, int len, MPI_Datatype dt, int is_max) {
    int i;
    for (i = 0; i < len; ++i) {
        if (dt == MPI_FLOAT) {
            float a = ((float *)in)[i], b = ((float *)inout)[i];
            ((float *)inout)[i] = (a != a || (is_max ? a > b : a < b)) ? a : b;
        } else {
            double a = ((double *)in)[i], b = ((double *)inout)[i];
            ((double *)inout)[i] = (a != a || (is_max ? a > b : a < b)) ? a : b;
        }
    }
}
static void nan_min(void *in, void *inout, int *len, MPI_Datatype *dt) { nan_minmax(in, inout, *len, *dt, 0); }
static void nan_max(void *in, void *inout, int *len, MPI_Datatype *dt) { nan_minmax(in, inout, *len, *dt, 1); }

/* Combines every rank's `local` into `global` (on every rank). */
static int combine(pclr_type t, pclr_op o, const void *local, void *global) {
    MPI_Datatype dt = t == PCLR_FLOAT ? MPI_FLOAT : t == PCLR_DOUBLE ? MPI_DOUBLE : MPI_UINT32_T;
    MPI_Op op = o == PCLR_SUM ? MPI_SUM : o == PCLR_MIN ? MPI_MIN : MPI_MAX;
    int rc, custom = t != PCLR_UINT && t != PCLR_INT && o != PCLR_SUM;
    /* int sums stay MPI_UINT32_T: added as 32-bit patterns they wrap exactly
       like the kernels, where signed overflow in MPI_SUM on MPI_INT32_T would
       be up to the implementation. int min/max need the signed order. */
    if (t == PCLR_INT && o != PCLR_SUM) dt = MPI_INT32_T;
    if (custom) MPI_Op_create(o == PCLR_MIN ? nan_min : nan_max, 1, &op);
    rc = MPI_Allreduce(local, global, 1, dt, op, MPI_COMM_WORLD);
    if (custom) MPI_Op_free(&op);
    return rc;
}

/* Float sums: the ranks' device trees plus the MPI sum round differently from
   the one pairwise CPU reference; each is within depth * u * sum|x| of the
   exact sum (bounded as in tests/test_opencl.c), depth = the longest chain of
   roundings: per device thread at most slice/64 elements (groups have 64 or
   more threads), log-depth trees (< 64 each), the CPU's 256-element blocks,
   one addition per rank. */
static double sum_bound(pclr_type t, const void *x, uint64_t n, int ranks) {
    double u = t == PCLR_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53), sabs = 0, depth;
    uint64_t i;
    for (i = 0; i < n; ++i) sabs += fabs(t == PCLR_FLOAT ? (double)((const float *)x)[i] : ((const double *)x)[i]);
    depth = (double)(n / (uint64_t)ranks + 1) / 64.0 + 3 * 64.0 + 256.0 + ranks;
    return 1.1 * depth * u * sabs + 1e-30;
}

/* Rank 0 with --check: 1 when `got` matches the CPU reference of the whole array. */
static int check(const pclr_config *cfg, uint64_t n, uint64_t seed, int ranks, const void *got) {
    size_t ts = pclr_type_size(cfg->type);
    unsigned char want[8];
    char g[64], w[64], why[128] = "";
    void *all = malloc(n ? (size_t)n * ts : 1);
    int ok;
    if (!all) { printf("check: out of memory for the reference\n"); return 0; }
    pclr_args_fill_random(cfg->type, all, n, seed);
    pclr_cpu_reduce(cfg->type, cfg->op, all, n, want);
    if (cfg->op == PCLR_SUM && (cfg->type == PCLR_FLOAT || cfg->type == PCLR_DOUBLE)) {
        double a = cfg->type == PCLR_FLOAT ? *(const float *)got : *(const double *)got;
        double b = cfg->type == PCLR_FLOAT ? *(const float *)want : *(const double *)want;
        double bound = sum_bound(cfg->type, all, n, ranks);
        ok = fabs(a - b) <= bound;
        snprintf(why, sizeof why, ", |difference| %.3g, bound %.3g", fabs(a - b), bound);
    } else {
        ok = memcmp(got, want, ts) == 0; /* data from the seed has no NaN */
    }
    pclr_args_format_value(cfg->type, got, g, sizeof g);
    pclr_args_format_value(cfg->type, want, w, sizeof w);
    printf("check: %s (got %s, reference %s%s)\n", ok ? "ok" : "MISMATCH", g, w, why);
    free(all);
    return ok;
}

int main(int argc, char **argv) {
    pclr_config cfg, resolved;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    long long n = -1, seed = 1;
    uint64_t count, lo;
    unsigned char local[8], global[8];
    const char *why = "", *bad = "";
    void *slice;
    size_t ts;
    int i, rank, ranks, want_check = 0, ok = 1;
    pclr_result r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    memset(&cfg, 0, sizeof cfg);
    for (i = 1; i < argc; ++i) {
        int used = 0;
        if (strcmp(argv[i], "--check") == 0) { want_check = used = 1; }
        else if (strcmp(argv[i], "--n") == 0 || strcmp(argv[i], "--seed") == 0) {
            if (pclr_args_int(i + 1 < argc ? argv[i + 1] : NULL, 0, (long long)1 << 62, argv[i][2] == 'n' ? &n : &seed)) used = -1;
            else used = 2;
        } else used = pclr_args_parse_knob(argc, argv, i, &cfg, stderr, "mpi_reduce");
        if (used <= 0) { why = "bad or unknown argument:"; bad = argv[i]; break; }
        i += used - 1;
    }
    if (!*why && (n < 0 || !cfg.type || !cfg.op)) why = "--type, --op and --n are required";
    if (*why || pclr_config_resolve(&cfg, &resolved, &why) != PCLR_OK) {
        if (rank == 0)
            fprintf(stderr, "mpi_reduce: %s %s\nusage: mpirun -np R mpi_reduce --type uint|int|float|double"
                            " --op sum|min|max --n N [--seed S] [--check] [--group N ...]\n", why, bad);
        MPI_Finalize();
        return 2;
    }
    /* This rank's slice [lo, lo + count): n / ranks each, the first n % ranks one more. */
    count = (uint64_t)n / (uint64_t)ranks + ((uint64_t)rank < (uint64_t)n % (uint64_t)ranks);
    lo = (uint64_t)rank * ((uint64_t)n / (uint64_t)ranks) + (uint64_t)(rank < n % ranks ? rank : n % ranks);
    ts = pclr_type_size(cfg.type);
    if (!(slice = calloc(count ? (size_t)count : 1, ts))) MPI_Abort(MPI_COMM_WORLD, 1);
    /* The generator steps a counter from the seed, so seed + lo starts at element lo. */
    pclr_args_fill_random(cfg.type, slice, count, (uint64_t)seed + lo);
    /* CUDA, else OpenCL, else the CPU reference (the generic context) */
    if ((r = pclr_create(NULL, &ctx)) != PCLR_OK) {
        fprintf(stderr, "mpi_reduce: rank %d: no context: %s\n", rank, pclr_result_string(r));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("rank %d: %llu elements from %llu on %s: %s\n", rank, (unsigned long long)count, (unsigned long long)lo,
           pclr_backend_name(pclr_get_backend(ctx)), pclr_device_name(ctx));
    /* An empty slice still uploads one element and reduces 0: the device writes the identity. */
    if ((r = pclr_buffer_create(ctx, (count ? (size_t)count : 1) * ts, &buf)) == PCLR_OK &&
        (r = pclr_buffer_write(ctx, buf, 0, slice, (count ? (size_t)count : 1) * ts)) == PCLR_OK)
        r = pclr_reduce(ctx, &cfg, buf, 0, count, local);
    if (r != PCLR_OK) {
        fprintf(stderr, "mpi_reduce: rank %d: %s (%s)\n", rank, pclr_result_string(r), pclr_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    free(slice);
    if (combine(cfg.type, cfg.op, local, global) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD); /* the other ranks' lines first, so "result:" comes last */
    if (rank == 0) {
        char v[64];
        if (want_check) ok = check(&cfg, (uint64_t)n, (uint64_t)seed, ranks, global);
        pclr_args_format_value(cfg.type, global, v, sizeof v);
        printf("result: %s\n", v);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
