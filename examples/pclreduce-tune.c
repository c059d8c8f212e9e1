/* pclreduce-tune: measures the best knobs per size class on this machine's
   device and stores them in the tuning file that contexts load.

   pclreduce-tune --backend opencl|cuda|vulkan [--platform N] [--device N]
                  [--types uint,int,float,double] [--ops sum,min,max]
                  [--max-n N] [--file PATH] [--dry-run]
                  [--rows R --cols C [--axis row|col]]

   Default: every type and op, classes up to 2^26 elements, the file
   pclr_tune_default_path() names ($PCLR_TUNE_FILE, else
   $XDG_CACHE_HOME/pclreduce/tuning.txt). A progress bar goes to stderr when
   it is a terminal. Prints one line per type, op and class: the winner and
   its bandwidth next to the default's, measured in the same sweep.
   --platform N / --device N are pclreduce-run --list's numbers (0-based;
   default: every platform, the best device) for every backend. Vulkan is
   timed with timestamp queries; shaderc from $PCLR_SHADERC_LIBRARY, else
   libshaderc_shared.so beside this executable (`make` builds one where the
   system's does not load), else libshaderc.so.1. The device is a generic
   context of that one backend (pclr_create, desc.backends = {backend}: no
   other backend and no CPU fallback), swept by pclr_tune. With --rows and --cols it tunes that layout instead
   (reduced along each row, or each column with --axis col): one entry per
   type and op, for its shape class and the size class of R x C elements,
   which every layout of that class and size then uses (segments: rows of
   their length). */
#define _POSIX_C_SOURCE 200809L /* isatty, strtok_r, clock_gettime, readlink */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#ifndef PCLR_RUN_NO_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifndef PCLR_RUN_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#ifndef PCLR_RUN_NO_VULKAN
#define PCLREDUCE_VULKAN
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* isatty */

typedef struct tune_args {
    const char *backend, *file;
    int platform, device, dry_run;
    int types[PCLR_TYPE_COUNT_], ops[PCLR_OP_COUNT_]; /* 1 = tune it */
    long long max_n, rows, cols;
    pclr_layout layout;
} tune_args;

static void usage(FILE *f) {
    fprintf(f, "usage: pclreduce-tune --backend opencl|cuda|vulkan [--platform N] [--device N]\n"
               "                      [--types uint,int,float,double] [--ops sum,min,max]\n"
               "                      [--max-n N] [--file PATH] [--dry-run]\n"
               "                      [--rows R --cols C [--axis row|col]]\n");
}

/* "uint,float" -> flags[PCLR_UINT] = flags[PCLR_FLOAT] = 1. */
static int parse_list(const char *s, int *flags, int count, int is_type) {
    char buf[128], *tok, *save = NULL;
    memset(flags, 0, sizeof(int) * (size_t)count);
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        pclr_type t;
        pclr_op o;
        if (is_type ? pclr_parse_type(tok, &t) != PCLR_OK : pclr_parse_op(tok, &o) != PCLR_OK) return -1;
        flags[is_type ? (int)t : (int)o] = 1;
    }
    return 0;
}

static int parse(int argc, char **argv, tune_args *a) {
    int i, k;
    memset(a, 0, sizeof *a);
    a->platform = a->device = -1;
    for (k = 1; k < PCLR_TYPE_COUNT_; ++k) a->types[k] = 1;
    for (k = 1; k < PCLR_CUSTOM; ++k) a->ops[k] = 1;
    for (i = 1; i < argc; ++i) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long x;
        if (strcmp(f, "-h") == 0 || strcmp(f, "--help") == 0) { usage(stdout); return -1; }
        if (strcmp(f, "--dry-run") == 0) { a->dry_run = 1; continue; }
        if (!v) { fprintf(stderr, "pclreduce-tune: %s needs a value\n", f); return 2; }
        ++i;
        if (strcmp(f, "--backend") == 0) a->backend = v;
        else if (strcmp(f, "--file") == 0) a->file = v;
        else if (strcmp(f, "--types") == 0 && parse_list(v, a->types, PCLR_TYPE_COUNT_, 1) == 0) continue;
        else if (strcmp(f, "--ops") == 0 && parse_list(v, a->ops, PCLR_OP_COUNT_, 0) == 0) continue;
        else if ((strcmp(f, "--platform") == 0 || strcmp(f, "--device") == 0) && pclr_args_int(v, 0, 64, &x) == 0)
            *(f[2] == 'p' ? &a->platform : &a->device) = (int)x;
        else if (strcmp(f, "--max-n") == 0 && pclr_args_int(v, 1 << 12, 1ll << 34, &x) == 0) a->max_n = x;
        else if ((strcmp(f, "--rows") == 0 || strcmp(f, "--cols") == 0) && pclr_args_int(v, 1, 1ll << 34, &x) == 0)
            *(f[2] == 'r' ? &a->rows : &a->cols) = x;
        else if (strcmp(f, "--axis") == 0 && (strcmp(v, "row") == 0 || strcmp(v, "col") == 0))
            a->layout = v[0] == 'r' ? PCLR_LAYOUT_ROWS : PCLR_LAYOUT_COLUMNS;
        else { fprintf(stderr, "pclreduce-tune: bad argument %s %s\n", f, v); usage(stderr); return 2; }
    }
    if (!a->rows != !a->cols || (a->layout && !a->rows)) {
        fprintf(stderr, "pclreduce-tune: a layout needs both --rows and --cols (--axis goes with them)\n");
        return 2;
    }
    if (a->rows && a->rows > (1ll << 34) / a->cols) {
        fprintf(stderr, "pclreduce-tune: --rows x --cols is over 2^34 elements\n");
        return 2;
    }
    if (a->rows && !a->layout) a->layout = PCLR_LAYOUT_ROWS;
    if (!a->backend || (strcmp(a->backend, "opencl") != 0 && strcmp(a->backend, "cuda") != 0 && strcmp(a->backend, "vulkan") != 0)) {
        fprintf(stderr, "pclreduce-tune: --backend opencl|cuda|vulkan is required\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A bar on a terminal; nothing otherwise (logs stay clean). */
static void progress(void *user, double fraction, const char *what) {
    const int width = 30, filled = (int)(fraction * width + 0.5);
    (void)user;
    fprintf(stderr, "\r  [%.*s%*s] %3d%%  %-40s", filled, "##############################", width - filled, "",
            (int)(fraction * 100 + 0.5), what);
    if (fraction >= 1.0) fputc('\n', stderr);
    fflush(stderr);
}

int main(int argc, char **argv) {
    tune_args a;
    pclr_tune_entry found[PCLR_TUNE_CLASSES], *all = NULL;
    pclr_tune_options opt;
    size_t total = 0, count, i;
    char path[1024];
    int rc = 0, t, o;
    pclr_result r = PCLR_OK;
    const char *why = NULL;
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    char why_create[1024] = "";
    if ((rc = parse(argc, argv, &a)) < 0) return pclr_args_close_stdout("pclreduce-tune"); /* --help */
    if (rc != 0) return rc;
    memset(&opt, 0, sizeof opt);
    opt.max_n = (uint64_t)a.max_n;
    opt.layout = a.layout;
    opt.rows = (uint64_t)a.rows;
    opt.cols = (uint64_t)a.cols;
    opt.progress = isatty(2) ? progress : NULL;
    if (a.file) snprintf(path, sizeof path, "%s", a.file);
    else if (pclr_tune_default_path(path, sizeof path) == 0 || strlen(path) >= sizeof path - 1) {
        fprintf(stderr, "pclreduce-tune: no place for the tuning file (set --file, PCLR_TUNE_FILE or HOME)\n");
        return 1;
    }
    /* a file that is not a tuning file is refused before the sweep, not after it */
    if (!a.dry_run && pclr_tune_save_ex(path, NULL, 0, &why) != PCLR_OK) {
        fprintf(stderr, "pclreduce-tune: cannot write %s: %s\n", path, why);
        return 1;
    }
    /* one generic context of the one backend asked for (no fallback to another, nor to the CPU) */
    if (strcmp(a.backend, "vulkan") == 0) {
#ifndef PCLR_RUN_NO_VULKAN
        desc.backends[0] = PCLR_VULKAN;
        desc.shaderc_library = pclr_args_shaderc_beside(); /* NULL: $PCLR_SHADERC_LIBRARY, libshaderc.so.1, ... */
#else
        fprintf(stderr, "pclreduce-tune: built without the Vulkan backend (no vulkan/vulkan.h)\n");
        return 1;
#endif
    } else if (strcmp(a.backend, "cuda") == 0) {
#ifndef PCLR_RUN_NO_CUDA
        desc.backends[0] = PCLR_CUDA; /* (before 0.3.1 --device was ignored here: device 0) */
#else
        fprintf(stderr, "pclreduce-tune: built without the CUDA backend\n");
        return 1;
#endif
    } else {
#ifndef PCLR_RUN_NO_OPENCL
        desc.backends[0] = PCLR_OPENCL;
        desc.platform = a.platform + 1; /* 0-based flag; -1 (not given) becomes 0: every platform */
#else
        fprintf(stderr, "pclreduce-tune: built without the OpenCL backend\n");
        return 1;
#endif
    }
    desc.device = a.device + 1; /* --device is 0-based (--list's numbers); -1 (not given) becomes 0: the best */
    desc.error = why_create;
    desc.error_cap = sizeof why_create;
    if ((r = pclr_create(&desc, &ctx)) != PCLR_OK) {
        fprintf(stderr, "pclreduce-tune: %s\n", why_create[0] ? why_create : pclr_result_string(r));
        rc = 1;
    }
    all = (pclr_tune_entry *)calloc(PCLR_TYPE_COUNT_ * PCLR_OP_COUNT_ * PCLR_TUNE_CLASSES, sizeof *all);
    if (!all) { fprintf(stderr, "pclreduce-tune: out of memory\n"); rc = 1; }
    if (rc == 0) printf("%-6s %-4s %-6s %9s %9s  %s\n", "type", "op", "class", "GB/s", "default", "winner");
    if (rc == 0 && a.layout)
        printf("# %lld x %lld, reduced along each %s\n", a.rows, a.cols, a.layout == PCLR_LAYOUT_ROWS ? "row" : "column");
    for (t = 1; rc == 0 && t < PCLR_TYPE_COUNT_; ++t) {
        for (o = 1; rc == 0 && o < PCLR_CUSTOM; ++o) {
            const double start = now_s();
            if (!a.types[t] || !a.ops[o]) continue;
            r = pclr_tune(ctx, (pclr_type)t, (pclr_op)o, &opt, found, PCLR_TUNE_CLASSES, &count);
            if (r == PCLR_ERR_NO_FP64) {
                printf("%-6s %-4s skipped: the device has no fp64\n", pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o));
                continue;
            }
            if (r == PCLR_OK) { /* every candidate failed to build or run (no compiler: shaderc, NVRTC): nothing measured */
                int measured = 0;
                for (i = 0; i < count; ++i) measured |= found[i].gbps > 0;
                if (count && !measured) {
                    fprintf(stderr, "pclreduce-tune: %s %s: no configuration ran, so nothing is written\n", pclr_type_name((pclr_type)t),
                            pclr_op_name((pclr_op)o));
                    r = PCLR_ERR_BACKEND;
                }
            }
            if (r != PCLR_OK) {
                fprintf(stderr, "pclreduce-tune: %s\n", pclr_last_error(ctx));
                rc = 1;
                break;
            }
            for (i = 0; i < count; ++i) {
                char knobs[512], cls[32];
                snprintf(cls, sizeof cls, "%s%s2^%u", found[i].shape ? pclr_shape_name(found[i].shape) : "", found[i].shape ? ":" : "",
                         (unsigned)found[i].size_class);
                pclr_config_describe(&found[i].cfg, knobs, sizeof knobs);
                printf("%-6s %-4s %-6s %9.1f %9.1f  %s\n", pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o), cls, found[i].gbps,
                       found[i].default_gbps, knobs);
                all[total++] = found[i];
            }
            printf("# %s %s: sweep took %.1f s\n", pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o), now_s() - start);
            fflush(stdout);
        }
    }
    if (rc == 0 && total && !a.dry_run) {
        if ((r = pclr_tune_save_ex(path, all, total, &why)) != PCLR_OK) {
            fprintf(stderr, "pclreduce-tune: cannot write %s: %s\n", path, why);
            rc = 1;
        } else {
            printf("wrote %zu entries to %s\n", total, path);
        }
    }
    free(all);
    pclr_destroy(ctx);
    return pclr_args_close_stdout("pclreduce-tune") ? 1 : rc;
}
