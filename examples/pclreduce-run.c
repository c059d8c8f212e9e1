/* pclreduce-run: reduces real data with a chosen backend.

   pclreduce-run [--backend auto|cpu|opencl|cuda] [--platform N] [--device N]
                 --type T --op O [--accumulate A] (--input FILE | --n N [--seed S])
                 [--wave N] [--group N] [--unroll N] [--vector N] [--stride S]
                 [--variant V] [--finish F] [--groups-per-unit N] [-v]
   pclreduce-run --list      OpenCL platforms and devices (the --platform/--device indices)

   --backend auto (the default) takes CUDA, else OpenCL, else the CPU: the
   generic context (pclr_create). Knobs left out come from the tuning file or
   the device's defaults; -v prints the configuration that runs.
   Types: uint8 int8 uint16 int16 uint int uint64 int64 half float double
   (also uint32 int32 float16 float32 float64); ops: sum min max argmin argmax
   minmax stats count; --accumulate native|wide|compensated (sums and stats)
   or exact (half, float and double sums: correctly rounded).
   --input is a raw little-endian array of the element type (half: 2-byte
   IEEE binary16); --n N generates N random elements from --seed (integers:
   their full range; half, float, double: uniform in [-1, 1)). The last line
   printed is "result: VALUE" (integers in decimal, float and half values
   %.9g, double %.17g); argmin/argmax "result: VALUE at INDEX", minmax
   "result: min=A max=B", stats "result: count=N sum=S min=A max=B mean=M
   var=V" (mean and var %.9g for half and float, %.17g otherwise).
   Errors: a message on stderr and a non-zero exit status. */
#define PCLREDUCE_IMPLEMENTATION
#ifndef PCLR_RUN_NO_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifndef PCLR_RUN_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif

typedef struct run_args {
    const char *backend, *input;
    int platform, device, verbose;
    long long n, seed;
    pclr_config cfg;
} run_args;

static void usage(FILE *f) {
    fprintf(f,
            "usage: pclreduce-run [--backend auto|cpu|opencl|cuda] [--platform N] [--device N]\n"
            "                     --type uint8|int8|uint16|int16|uint|int|uint64|int64|half|float|double\n"
            "                     --op sum|min|max|argmin|argmax|minmax|stats|count\n"
            "                     [--accumulate native|wide|compensated|exact] (--input FILE | --n N [--seed S]) [-v]\n"
            "                     [--wave N] [--group N] [--unroll N] [--vector N] [--stride global|local]\n"
            "                     [--variant naive|sequential|unrolled|shuffle|collective]\n"
            "                     [--finish last_group|atomic|partials] [--groups-per-unit N]\n"
            "       pclreduce-run --list\n");
}

/* 0 on success, 2 on a usage error (message printed). */
static int parse(int argc, char **argv, run_args *a) {
    int i;
    memset(a, 0, sizeof *a);
    a->platform = a->device = -1;
    a->n = -1;
    a->seed = 1;
    for (i = 1; i < argc; ++i) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long x;
        int used;
        if (strcmp(f, "-v") == 0 || strcmp(f, "--verbose") == 0) { a->verbose = 1; continue; }
        if (strcmp(f, "-h") == 0 || strcmp(f, "--help") == 0) { usage(stdout); exit(0); }
        if (strcmp(f, "--backend") == 0 || strcmp(f, "--input") == 0) {
            if (!v) { fprintf(stderr, "pclreduce-run: %s needs a value\n", f); return 2; }
            if (f[2] == 'b') a->backend = v; else a->input = v;
            ++i;
            continue;
        }
        if (strcmp(f, "--platform") == 0 || strcmp(f, "--device") == 0 || strcmp(f, "--n") == 0 || strcmp(f, "--seed") == 0) {
            const long long most = f[2] == 'p' || f[2] == 'd' ? 1 << 16 : (long long)1 << 62; /* indices fit an int */
            if (pclr_args_int(v, 0, most, &x) != 0) {
                fprintf(stderr, "pclreduce-run: %s needs an integer from 0 to %lld\n", f, most);
                return 2;
            }
            if (f[2] == 'p') a->platform = (int)x;
            else if (f[2] == 'd') a->device = (int)x;
            else if (f[2] == 'n') a->n = x;
            else a->seed = x;
            ++i;
            continue;
        }
        used = pclr_args_parse_knob(argc, argv, i, &a->cfg, stderr, "pclreduce-run");
        if (used < 0) return 2;
        if (used == 0) { fprintf(stderr, "pclreduce-run: unknown argument '%s'\n", f); usage(stderr); return 2; }
        i += used - 1;
    }
    if (!a->backend) a->backend = "auto";
    if (pclr_parse_backend(a->backend, &a->cfg.backend) != PCLR_OK) {
        fprintf(stderr, "pclreduce-run: --backend must be auto, cpu, opencl or cuda\n");
        return 2;
    }
    if (a->cfg.type == PCLR_TYPE_DEFAULT || a->cfg.op == PCLR_OP_DEFAULT) {
        fprintf(stderr, "pclreduce-run: --type and --op are required\n");
        return 2;
    }
    if ((a->input != NULL) == (a->n >= 0)) {
        fprintf(stderr, "pclreduce-run: give exactly one of --input FILE and --n N\n");
        return 2;
    }
    return 0;
}

/* Loads --input or generates --n random elements; returns NULL after printing why. */
static void *load_data(const run_args *a, uint64_t *n) {
    size_t ts = pclr_type_size(a->cfg.type);
    void *data;
    if (a->input) {
        FILE *f;
        long size;
#ifndef _WIN32
        struct stat st; /* a FIFO would block forever; a directory or device has no size to read */
        if (stat(a->input, &st) == 0 && !S_ISREG(st.st_mode)) {
            fprintf(stderr, "pclreduce-run: '%s' is not a regular file (a FIFO, device or directory)\n", a->input);
            return NULL;
        }
#endif
        if (!(f = fopen(a->input, "rb"))) { fprintf(stderr, "pclreduce-run: cannot open '%s'\n", a->input); return NULL; }
        if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "pclreduce-run: cannot size '%s'\n", a->input);
            fclose(f);
            return NULL;
        }
        if ((size_t)size % ts) fprintf(stderr, "pclreduce-run: warning: %ld trailing bytes ignored\n", (long)((size_t)size % ts));
        *n = (uint64_t)size / ts;
        data = malloc(*n ? (size_t)*n * ts : 1);
        if (!data || fread(data, ts, (size_t)*n, f) != (size_t)*n) {
            fprintf(stderr, "pclreduce-run: cannot read '%s'\n", a->input);
            free(data);
            fclose(f);
            return NULL;
        }
        fclose(f);
        return data;
    }
    *n = (uint64_t)a->n;
    if (*n > SIZE_MAX / ts) { fprintf(stderr, "pclreduce-run: --n too large for this machine\n"); return NULL; }
    data = malloc(*n ? (size_t)*n * ts : 1);
    if (!data) { fprintf(stderr, "pclreduce-run: out of memory for %llu elements\n", (unsigned long long)*n); return NULL; }
    pclr_args_fill_random(a->cfg.type, data, *n, (uint64_t)a->seed);
    return data;
}

static int fail(const char *what, pclr_result r, const char *detail) {
    fprintf(stderr, "pclreduce-run: %s: %s%s%s\n", what, pclr_result_string(r), detail && *detail ? ": " : "",
            detail ? detail : "");
    return 1;
}

#ifdef PCLREDUCE_OPENCL
static int list_opencl(void) {
    cl_platform_id plats[16];
    cl_uint np = 0, p;
    pclr_cl_api cl; /* loaded at run time: the tool does not link libOpenCL */
    char why[512];
    if (pclr_cl_load_api(NULL, &cl, why, sizeof why) != PCLR_OK) {
        printf("no OpenCL: %s\n", why);
        return 1;
    }
    if (cl.GetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0) {
        printf("no OpenCL platform\n");
        return 1;
    }
    for (p = 0; p < np && p < 16; ++p) {
        cl_device_id devs[16];
        cl_uint nd = 0, d;
        char name[256] = "";
        cl.GetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        printf("platform %u: %s\n", p, name);
        if (cl.GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) continue;
        for (d = 0; d < nd && d < 16; ++d) {
            cl.GetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            printf("  device %u: %s\n", d, name);
        }
    }
    return 0;
}
#endif

/* The reduction on the generic context: the chosen backend (or auto). */
static int run(const run_args *a, const void *data, uint64_t n, void *result) {
    pclr_desc desc;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    pclr_config cfg = a->cfg;
    char why[1024] = "", text[4096];
    size_t bytes = (size_t)n * pclr_type_size(cfg.type);
    pclr_result r;
    memset(&desc, 0, sizeof desc);
    desc.backends[0] = cfg.backend; /* 0: auto */
    desc.device = a->device + 1;     /* -1 (not given) becomes 0: the best device */
    desc.platform = a->platform + 1;
    desc.error = why;
    desc.error_cap = sizeof why;
    cfg.backend = PCLR_BACKEND_AUTO; /* the context's own */
    if ((r = pclr_create(&desc, &ctx)) != PCLR_OK) return fail(pclr_backend_name(a->cfg.backend), r, why);
    printf("backend: %s (%s)\n", pclr_backend_name(pclr_get_backend(ctx)), pclr_device_name(ctx));
    if (a->verbose) {
        pclr_config run_cfg;
        pclr_describe(ctx, text, sizeof text);
        printf("%s", text);
        if (pclr_resolve(ctx, &cfg, n, &run_cfg) == PCLR_OK) {
            pclr_config_describe(&run_cfg, text, sizeof text);
            printf("config: %s\n", text);
        }
    }
    if ((r = pclr_buffer_create(ctx, bytes, &buf)) == PCLR_OK && (r = pclr_buffer_write(ctx, buf, 0, data, bytes)) == PCLR_OK)
        r = pclr_reduce(ctx, &cfg, buf, 0, n, result);
    if (r != PCLR_OK) {
        fail("reduce", r, pclr_last_error(ctx));
        if (r == PCLR_ERR_BUILD_FAILED) fprintf(stderr, "build log:\n%s\n", pclr_build_log(ctx));
    }
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    return r == PCLR_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    run_args a;
    uint64_t n = 0;
    void *data, *result;
    size_t result_size;
    int rc;
    const char *why = NULL;
    pclr_result r;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
#ifdef PCLREDUCE_OPENCL
        return list_opencl();
#else
        printf("built without OpenCL\n");
        return 1;
#endif
    }
    if ((rc = parse(argc, argv, &a)) != 0) return rc;
    {
        pclr_config check = a.cfg;
        check.backend = PCLR_BACKEND_AUTO; /* knobs only: the backend is checked by the context */
        if ((r = pclr_config_resolve(&check, &check, &why)) != PCLR_OK) {
            fprintf(stderr, "pclreduce-run: %s (%s)\n", why, pclr_result_string(r));
            return 2;
        }
    }
    result_size = pclr_result_size(&a.cfg);
    if (result_size == 0 || !(result = calloc(1, result_size))) {
        fprintf(stderr, "pclreduce-run: no result size for this configuration\n");
        return 1;
    }
    if (!(data = load_data(&a, &n))) { free(result); return 1; }
    printf("%llu elements of %s, op %s", (unsigned long long)n, pclr_type_name(a.cfg.type), pclr_op_name(a.cfg.op));
    if (a.cfg.accumulate != PCLR_ACCUMULATE_DEFAULT) printf(", accumulate %s", pclr_accumulate_name(a.cfg.accumulate));
    printf("\n");
    rc = run(&a, data, n, result);
    free(data);
    if (rc == 0) {
        char v[256];
        pclr_args_format_result(&a.cfg, result, v, sizeof v);
        printf("result: %s\n", v);
    }
    free(result);
    return rc;
}
