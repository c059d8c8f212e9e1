/* pclreduce-run: reduces real data with a chosen backend.

   pclreduce-run [--backend auto|cpu|opencl|cuda|vulkan] [--platform N] [--device N]
                 --type T --op O [--accumulate A] (--input FILE|- | --n N [--seed S])
                 [--wave N] [--group N] [--unroll N] [--vector N] [--stride S]
                 [--variant V] [--finish F] [--groups-per-unit N] [-v]
   pclreduce-run --list      the OpenCL platforms and devices, CUDA devices and Vulkan
                             devices (the --platform/--device indices of each backend)

   --backend auto (the default) takes CUDA, else OpenCL, else the CPU: the
   generic context (pclr_create); vulkan (pclreduce_vk.h) only when asked for:
   --device N is the N-th Vulkan device of --list (default: the best one),
   shaderc is $PCLR_SHADERC_LIBRARY, else libshaderc_shared.so beside this
   executable (`make` builds one where the system's does not load: Debian
   12), else the library's search (libshaderc.so.1, ...); the loader is
   $PCLR_VULKAN_LIBRARY, else libvulkan.so.1. Knobs left out come from the tuning file or
   the device's defaults; -v prints the configuration that runs and where
   each knob came from (flag, tuned, default).
   Types: uint8 int8 uint16 int16 uint int uint64 int64 half float double
   (also uint32 int32 float16 float32 float64); ops: sum min max argmin argmax
   minmax stats count prod and or xor any all argminmax (custom: --reduce); --accumulate
   native|wide|compensated (sums and stats; prod: native or wide) or exact
   (half, float and double sums: correctly rounded).
   --input is a raw little-endian array of the element type (half: 2-byte
   IEEE binary16), a regular file or - for standard input (read to its end);
   FIFOs, devices, directories and files that do not hold their size (/proc)
   are refused. --n N generates N random elements from --seed (integers:
   their full range; half, float, double: uniform in [-1, 1)). The last line
   printed is "result: VALUE" (integers in decimal, float and half values
   %.9g, double %.17g); argmin/argmax "result: VALUE at INDEX", minmax
   "result: min=A max=B", stats "result: count=N sum=S min=A max=B mean=M
   var=V" (mean and var %.9g for half and float, %.17g otherwise),
   argminmax "result: min=A at I max=B at J"; any and all print 0 or 1.
   A map (docs/maps.md) reduces f(x, y, i) instead of x:
   --map EXPR, --param [TYPE:]NAME=VALUE (repeatable), --components 2|4 (the
   elements of --input are pixels of that many scalars), and a second input y
   of the same length: --input2 FILE, or with --n generated from --seed + 1;
   its type is --type2 (default: --type). An invalid map exits with 2.
   A reduction of one's own (README "Your own reductions"): --reduce TEXT
   ("state m: float = -inf, s: float = 0; lift m = x, s = 1; merge m =
   max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m); result m +
   log(s)") is op custom (--op may be left out, or be custom); its lift reads
   x, y, i and the parameters as a map does (--param, --components, --input2,
   --type2 as above; no --map with it). It prints "result: V1 V2 ..." (its
   result expressions' values, one space apart, each in its type: integers
   in decimal, float %.9g, double %.17g); an invalid description prints
   pclr_map_check's sentence (the line and column, or the counterexample of
   a merge whose identity is not neutral) and exits with 2.
   Rows, columns and segments (docs/layouts.md): --rows
   R --cols C [--pitch P] [--axis row|col] reduces each row (row, the
   default) or each column of the R x C matrix whose rows start P elements
   apart (the input holds at least (R - 1) P + C elements); --segments FILE
   (raw little-endian uint64 offsets, K + 1 of them) reduces K segments.
   The summary is "results: K", then "result[0]: ..." and "result[K-1]: ..."
   in the formats above. --output FILE writes the result (all K results of a
   layout), raw little-endian (each pclr_result_size bytes: the C structs for
   argmin/argmax, minmax, stats).
   Errors: a message on stderr and a non-zero exit status (also when the
   output cannot be written: a full disk). */
#define _POSIX_C_SOURCE 200809L /* readlink (pclr_args_shaderc_beside) */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#ifndef PCLR_RUN_NO_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifndef PCLR_RUN_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#ifndef PCLR_RUN_NO_VULKAN
#define PCLREDUCE_VULKAN /* needs vulkan/vulkan.h to compile; the loader and shaderc load at run time */
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_args {
    const char *backend, *input, *input2, *segments, *output;
    uint64_t *offsets;  /* --segments: K + 1 */
    int platform, device, verbose;
    long long n, seed;
    double lo, hi;      /* --range: a histogram's */
    int range;
    pclr_config cfg;
    pclr_args_map map;
} run_args;

static void usage(FILE *f) {
    fprintf(f,
            "usage: pclreduce-run [--backend auto|cpu|opencl|cuda|vulkan] [--platform N] [--device N]\n"
            "                     --type uint8|int8|uint16|int16|uint|int|uint64|int64|half|float|double\n"
            "                     --op sum|min|max|argmin|argmax|minmax|stats|count|\n"
            "                          prod|and|or|xor|any|all|argminmax|custom  (custom: with --reduce)\n"
            "                     [--accumulate native|wide|compensated|exact] (--input FILE|- | --n N [--seed S]) [-v]\n"
            "                     [--wave N] [--group N] [--unroll N] [--vector N] [--stride global|local|simd]\n"
            "                     [--variant naive|sequential|unrolled|shuffle|collective]\n"
            "                     [--finish last_group|atomic|partials] [--groups-per-unit N]\n"
            "                     [--map EXPR [--param [TYPE:]NAME=VALUE]... [--components 2|4]\n"
            "                      [--input2 FILE] [--type2 TYPE]]\n"
            "                     [--reduce 'state F: TYPE = IDENTITY, ...; lift F = EXPR, ...; merge F = EXPR, ...;\n"
            "                                result EXPR, ...'  (op custom; --param, --components, --input2, --type2 as\n"
            "                                for --map; prints \"result: V1 V2 ...\")]\n"
            "                     [--rows R --cols C [--pitch P] [--axis row|col] | --segments FILE] [--output FILE]\n"
            "                     [--op histogram --bins B --range LO,HI [--clamp] [--weighted --input2 W --type2 float]]\n"
            "                                (prints \"results: B\", the out-of-range counts, the first and last bins, and\n"
            "                                weighted their sums of W; --output: the B counts as uint64, then weighted the\n"
            "                                B + 3 sums (bins, underflow, overflow, nan) as double)\n"
            "       pclreduce-run --list   OpenCL, CUDA and Vulkan devices (--platform/--device indices)\n");
}

/* 0 on success, 2 on a usage error (message printed), -1 after --help. */
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
        if (strcmp(f, "-h") == 0 || strcmp(f, "--help") == 0) { usage(stdout); return -1; }
        if (strcmp(f, "--backend") == 0 || strcmp(f, "--input") == 0 || strcmp(f, "--input2") == 0) {
            if (!v) { fprintf(stderr, "pclreduce-run: %s needs a value\n", f); return 2; }
            if (f[2] == 'b') a->backend = v; else if (f[7] == '2') a->input2 = v; else a->input = v;
            ++i;
            continue;
        }
        if (strcmp(f, "--segments") == 0 || strcmp(f, "--output") == 0 || strcmp(f, "--axis") == 0) {
            if (!v) { fprintf(stderr, "pclreduce-run: %s needs a value\n", f); return 2; }
            if (f[2] == 's') a->segments = v;
            else if (f[2] == 'o') a->output = v;
            else if (strcmp(v, "row") == 0 || strcmp(v, "col") == 0) a->cfg.layout = v[0] == 'r' ? PCLR_LAYOUT_ROWS : PCLR_LAYOUT_COLUMNS;
            else { fprintf(stderr, "pclreduce-run: --axis must be row or col\n"); return 2; }
            ++i;
            continue;
        }
        if (strcmp(f, "--range") == 0) { /* LO,HI */
            char *end = NULL;
            if (v) a->lo = strtod(v, &end);
            if (!v || end == v || *end != ',' || (a->hi = strtod(end + 1, &end), *end != '\0')) {
                fprintf(stderr, "pclreduce-run: --range needs LO,HI (two numbers)\n");
                return 2;
            }
            a->range = 1;
            ++i;
            continue;
        }
        if (strcmp(f, "--rows") == 0 || strcmp(f, "--cols") == 0 || strcmp(f, "--pitch") == 0) {
            if (pclr_args_int(v, 0, (long long)1 << 62, &x) != 0) { fprintf(stderr, "pclreduce-run: %s needs an integer from 0 to 2^62\n", f); return 2; }
            if (f[2] == 'r') a->cfg.rows = (uint64_t)x; else if (f[2] == 'c') a->cfg.cols = (uint64_t)x; else a->cfg.pitch = (uint64_t)x;
            if (!a->cfg.layout) a->cfg.layout = PCLR_LAYOUT_ROWS;
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
        if (used == 0) used = pclr_args_parse_map(argc, argv, i, &a->cfg, &a->map, stderr, "pclreduce-run");
        if (used < 0) return 2;
        if (used == 0) { fprintf(stderr, "pclreduce-run: unknown argument '%s'\n", f); usage(stderr); return 2; }
        i += used - 1;
    }
    if (pclr_args_finish_map(&a->cfg, stderr, "pclreduce-run") < 0) return 2; /* --reduce: op custom */
    if (a->segments && a->cfg.layout) { fprintf(stderr, "pclreduce-run: give --rows/--cols or --segments, not both\n"); return 2; }
    if (a->cfg.layout && (!a->cfg.rows && !a->cfg.cols)) { fprintf(stderr, "pclreduce-run: --axis and --pitch go with --rows and --cols\n"); return 2; }
    if (a->segments) a->cfg.layout = PCLR_LAYOUT_SEGMENTS;
    if (!a->backend) a->backend = "auto";
    if (pclr_parse_backend(a->backend, &a->cfg.backend) != PCLR_OK) {
        fprintf(stderr, "pclreduce-run: --backend must be auto, cpu, opencl, cuda or vulkan\n");
        return 2;
    }
    if (a->cfg.type == PCLR_TYPE_DEFAULT || a->cfg.op == PCLR_OP_DEFAULT) {
        fprintf(stderr, "pclreduce-run: --type and --op (or --reduce) are required\n");
        return 2;
    }
    if ((a->cfg.op == PCLR_HISTOGRAM) != (a->range != 0)) {
        fprintf(stderr, "pclreduce-run: %s\n", a->range ? "--range goes with --op histogram" : "--op histogram needs --range LO,HI (and --bins B)");
        return 2;
    }
    if ((a->input != NULL) == (a->n >= 0)) {
        fprintf(stderr, "pclreduce-run: give exactly one of --input FILE and --n N\n");
        return 2;
    }
    if (a->input2 && ((!a->cfg.map && !a->cfg.reduce && !a->cfg.weighted) || !a->input)) {
        fprintf(stderr, "pclreduce-run: --input2 goes with --map (or --reduce, or --weighted) and --input\n");
        return 2;
    }
    if ((a->cfg.map || a->cfg.reduce) && !a->cfg.y_type) { /* y's type is --type when there is a y: --input2, or a map that reads y */
        pclr_config with_y = a->cfg;
        with_y.y_type = a->cfg.type;
        if (a->input2 || (pclr_map_check(&a->cfg, NULL, 0) != PCLR_OK && pclr_map_check(&with_y, NULL, 0) == PCLR_OK))
            a->cfg.y_type = a->cfg.type;
    }
    if (a->cfg.y_type && a->input && !a->input2) {
        fprintf(stderr, "pclreduce-run: the map reads y: give --input2 FILE\n");
        return 2;
    }
    return 0;
}

/* Loads a file (--input, --input2; "-": standard input) or generates --n random elements of type;
   *n: whole elements of `comps` scalars. Returns NULL after printing why. */
static void *load_data(const run_args *a, const char *input, pclr_type type, uint64_t seed, uint64_t *n) {
    const size_t comps = (a->cfg.map || a->cfg.reduce) && a->cfg.components > 1 ? (size_t)a->cfg.components : 1,
                 ts = pclr_type_size(type) * comps;
    size_t len = 0;
    void *data;
    if (input) {
        unsigned char *bytes = pclr_args_read_file(input, input == a->input ? "--input" : "--input2", "pclreduce-run", &len);
        if (!bytes) return NULL;
        if (len % ts) fprintf(stderr, "pclreduce-run: warning: %lu trailing bytes ignored\n", (unsigned long)(len % ts));
        *n = (uint64_t)(len / ts);
        return bytes;
    }
    *n = (uint64_t)a->n;
    if (*n > SIZE_MAX / ts) { fprintf(stderr, "pclreduce-run: --n too large for this machine\n"); return NULL; }
    data = malloc(*n ? (size_t)*n * ts : 1);
    if (!data) { fprintf(stderr, "pclreduce-run: out of memory for %llu elements\n", (unsigned long long)*n); return NULL; }
    pclr_args_fill_random(type, data, *n * comps, seed);
    return data;
}

static int fail(const char *what, pclr_result r, const char *detail) {
    fprintf(stderr, "pclreduce-run: %s: %s%s%s\n", what, pclr_result_string(r), detail && *detail ? ": " : "",
            detail ? detail : "");
    return 1;
}

/* --list: each backend's devices under its own heading; 0 when it has one, else 1 after a line saying why. */
#ifdef PCLREDUCE_OPENCL
static int list_opencl(void) {
    cl_platform_id plats[16];
    cl_uint np = 0, p;
    pclr_cl_api cl; /* loaded at run time: the tool does not link libOpenCL */
    char why[512];
    printf("OpenCL (--backend opencl --platform N --device N):\n");
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

#ifdef PCLREDUCE_CUDA
static int list_cuda(void) {
    pclr_cuda_api cu;
    char why[512], name[256];
    int count = 0, i;
    printf("CUDA (--backend cuda --device N):\n");
    if (pclr_cuda_load_api(NULL, &cu, why, sizeof why) != PCLR_OK) {
        printf("no CUDA: %s\n", why);
        return 1;
    }
    if (cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        printf("no CUDA device (the driver loaded, cuInit or cuDeviceGetCount found none)\n");
        return 1;
    }
    for (i = 0; i < count; ++i) {
        CUdevice dev;
        int major = 0, minor = 0;
        if (cu.DeviceGet(&dev, i) != CUDA_SUCCESS || cu.DeviceGetName(name, (int)sizeof name, dev) != CUDA_SUCCESS) continue;
        cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        printf("  device %d: %s (compute capability %d.%d)\n", i, name, major, minor);
    }
    return 0;
}
#endif

#ifdef PCLREDUCE_VULKAN
static int list_vulkan(void) {
    char text[8192], *line, *next;
    int count = 0;
    printf("Vulkan (--backend vulkan --device N):\n");
    if (pclr_vk_list_devices(NULL, text, sizeof text, NULL, &count) != PCLR_OK || count == 0) {
        printf("no Vulkan: %s", text[0] ? text : "no device\n");
        return 1;
    }
    for (line = text; *line; line = next) { /* "k: name (...)" -> "  device k: name (...)" */
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        printf("  device %.*s", (int)(next - line), line);
    }
    return 0;
}
#endif

/* -v: every knob that runs and where it came from: the command line (flag),
   the tuning file's entry for n's size class (tuned) or the device (default), or
   a reduction whose merge does not commute (order: stride local, variant naive). */
static void print_knobs(const pclr_context *ctx, const pclr_config *given, const pclr_config *run, uint64_t n) {
    static const char *const names[] = {"wave", "group", "unroll", "vector", "groups-per-unit"};
    const int asked[] = {given->wave_width, given->group_size, given->unroll, given->vector_width, given->groups_per_unit};
    const int used[] = {run->wave_width, run->group_size, run->unroll, run->vector_width, run->groups_per_unit};
    const char *unset = pclr_tuned_entry(ctx, given, n) ? "tuned" : "default";
    const int ordered = run->op == PCLR_CUSTOM && run->variant == PCLR_VARIANT_NAIVE && run->stride != PCLR_STRIDE_GLOBAL;
    const char *kept = ordered ? "order" : unset; /* (stride and variant: what the order asked of them) */
    size_t i;
    if (pclr_get_backend(ctx) == PCLR_CPU) {
        printf("knobs: none (the CPU reference runs no kernel)\n");
        return;
    }
    if (given->layout == PCLR_LAYOUT_ONE)
        printf("knobs (flag: the command line, tuned: the tuning file's entry for n <= 2^%u, default: the device's%s):\n",
               (unsigned)pclr_size_class(n), ordered ? ", order: the merge does not commute, elements merge in order" : "");
    else
        printf("knobs (flag: the command line, tuned: the tuning file's entry for %s shapes of <= 2^%u elements, default: the device's):\n",
               pclr_shape_name(pclr_shape_class(given, n)), (unsigned)pclr_size_class(pclr_layout_elements(given, n)));
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) printf("  %-16s %-11d %s\n", names[i], used[i], asked[i] ? "flag" : unset);
    if (given->layout != PCLR_LAYOUT_ONE) /* 0: the planner's choice by shape */
        printf("  %-16s %-11d %s\n", "lanes", run->lanes, given->lanes ? "flag" : run->lanes ? unset : "planner");
    printf("  %-16s %-11s %s\n", "stride", pclr_stride_name(run->stride),
           given->stride == run->stride || (given->stride && !ordered) ? "flag" : kept);
    printf("  %-16s %-11s %s\n", "variant", pclr_variant_name(run->variant),
           given->variant == run->variant || (given->variant && !ordered) ? "flag" : kept);
    printf("  %-16s %-11s %s\n", "finish", pclr_finish_name(run->finish), given->finish ? "flag" : unset);
    printf("  %-16s %-11s %s\n", "accumulate", pclr_accumulate_name(run->accumulate), given->accumulate ? "flag" : "default");
}

/* The reduction on the generic context: the chosen backend (or auto); the results (result_bytes
   of room: one, or one per row, column or segment) into result. */
static int run(const run_args *a, const void *data, const void *data2, uint64_t n, void *result, size_t result_bytes) {
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL, *buf2 = NULL, *ob = NULL;
    pclr_config cfg = a->cfg;
    pclr_input in = PCLR_ZERO;
    char why[1024] = "", text[4096];
    const size_t comps = (cfg.map || cfg.reduce) && cfg.components > 1 ? (size_t)cfg.components : 1;
    size_t bytes = (size_t)n * pclr_type_size(cfg.type) * comps, bytes2 = (size_t)n * pclr_type_size(cfg.y_type) * comps;
    pclr_result r;
    desc.backends[0] = cfg.backend; /* 0: auto */
    desc.device = a->device + 1;     /* -1 (not given) becomes 0: the best device */
    desc.platform = a->platform + 1;
    desc.shaderc_library = pclr_args_shaderc_beside(); /* NULL: $PCLR_SHADERC_LIBRARY, libshaderc.so.1, ... */
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
            print_knobs(ctx, &cfg, &run_cfg, n);
        }
    }
    /* x, the map's y (--input2 or generated), the map's parameters, and for --segments the K + 1
       offsets in device memory; one reduce for one array and for every layout alike */
    if ((r = pclr_buffer_create(ctx, bytes, &buf)) == PCLR_OK && (r = pclr_buffer_write(ctx, buf, 0, data, bytes)) == PCLR_OK &&
        (!data2 || ((r = pclr_buffer_create(ctx, bytes2, &buf2)) == PCLR_OK && (r = pclr_buffer_write(ctx, buf2, 0, data2, bytes2)) == PCLR_OK)) &&
        (!a->offsets || ((r = pclr_buffer_create(ctx, (size_t)(cfg.rows + 1) * 8, &ob)) == PCLR_OK &&
                         (r = pclr_buffer_write(ctx, ob, 0, a->offsets, (size_t)(cfg.rows + 1) * 8)) == PCLR_OK)))
    {
        in.x = buf;
        in.y = buf2;
        in.params = a->map.values;
        in.offsets = ob;
        in.n = n; /* segments: the elements they may reach; rows and columns: not read */
        in.lo = a->lo;
        in.hi = a->hi;
        r = pclr_reduce(ctx, &cfg, &in, result, result_bytes);
    }
    if (r != PCLR_OK) {
        fail("reduce", r, pclr_last_error(ctx));
        if (r == PCLR_ERR_BUILD_FAILED) fprintf(stderr, "build log:\n%s\n", pclr_build_log(ctx));
    }
    pclr_buffer_destroy(ctx, ob);
    pclr_buffer_destroy(ctx, buf);
    pclr_buffer_destroy(ctx, buf2);
    pclr_destroy(ctx);
    return r == PCLR_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    run_args a;
    uint64_t n = 0, n2 = 0;
    void *data, *data2 = NULL, *result;
    uint64_t count; /* results: 1, or the layout's rows, columns or segments */
    size_t rs;      /* bytes of one */
    int rc;
    const char *why = NULL;
    pclr_result r;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) { /* exit 0 when any backend has a device */
        int found = 0;
#ifdef PCLREDUCE_OPENCL
        found |= list_opencl() == 0;
#else
        printf("OpenCL: built without it\n");
#endif
#ifdef PCLREDUCE_CUDA
        found |= list_cuda() == 0;
#else
        printf("CUDA: built without it (no cuda.h)\n");
#endif
#ifdef PCLREDUCE_VULKAN
        found |= list_vulkan() == 0;
#else
        printf("Vulkan: built without it (no vulkan/vulkan.h)\n");
#endif
        return pclr_args_close_stdout("pclreduce-run") ? 1 : found ? 0 : 1;
    }
    if ((rc = parse(argc, argv, &a)) < 0) return pclr_args_close_stdout("pclreduce-run"); /* --help */
    if (rc != 0) return rc;
    {
        pclr_config check = a.cfg;
        check.backend = PCLR_BACKEND_AUTO; /* knobs only: the backend is checked by the context */
        if ((r = pclr_config_resolve(&check, &check, &why)) != PCLR_OK) {
            char where[1024]; /* (a reduction's counterexample: states of up to 8 fields) */
            if (r == PCLR_ERR_INVALID_MAP && pclr_map_check(&check, where, sizeof where) != PCLR_OK) why = where;
            if (check.op == PCLR_CUSTOM && why == where) fprintf(stderr, "pclreduce-run: %s\n", why); /* the description's sentence, as it is */
            else fprintf(stderr, "pclreduce-run: %s (%s)\n", why, pclr_result_string(r));
            return 2;
        }
    }
    if (a.segments) { /* K + 1 raw uint64 offsets */
        size_t len = 0;
        unsigned char *bytes = pclr_args_read_file(a.segments, "--segments", "pclreduce-run", &len);
        if (!bytes) return 1;
        if (len < 8 || len % 8) {
            fprintf(stderr, "pclreduce-run: --segments '%s' must hold K + 1 >= 1 little-endian uint64 offsets\n", a.segments);
            free(bytes);
            return 1;
        }
        a.offsets = (uint64_t *)(void *)bytes;
        a.cfg.rows = len / 8 - 1;
    }
    count = pclr_layout_results(&a.cfg);
    if (!(rs = pclr_result_size(&a.cfg)) || count > SIZE_MAX / rs || !(result = calloc(count ? (size_t)count : 1, rs))) {
        fprintf(stderr, "pclreduce-run: no room for %llu results of %lu bytes\n", (unsigned long long)count, (unsigned long)rs);
        return 1;
    }
    if (!(data = load_data(&a, a.input, a.cfg.type, (uint64_t)a.seed, &n))) { free(result); return 1; }
    if (a.cfg.y_type && !(data2 = load_data(&a, a.input2, a.cfg.y_type, (uint64_t)a.seed + 1, &n2))) { free(data); free(result); return 1; }
    if (data2 && n2 != n) {
        fprintf(stderr, "pclreduce-run: --input2 holds %llu elements, --input %llu\n", (unsigned long long)n2, (unsigned long long)n);
        free(data); free(data2); free(result);
        return 1;
    }
    printf("%llu elements of %s, op %s", (unsigned long long)n, pclr_type_name(a.cfg.type), pclr_op_name(a.cfg.op));
    if (a.cfg.accumulate != PCLR_ACCUMULATE_DEFAULT) printf(", accumulate %s", pclr_accumulate_name(a.cfg.accumulate));
    if (a.cfg.map) printf(", map %s", a.cfg.map);
    if (a.cfg.reduce) { /* the description on one line: its line breaks as "; " */
        const char *p;
        printf(", reduce ");
        for (p = a.cfg.reduce; *p; ++p) {
            if (*p == '\n') printf("%s", p[1] ? "; " : "");
            else if (*p != '\r') putchar(*p);
        }
    }
    printf("\n");
    rc = run(&a, data, data2, n, result, (count ? (size_t)count : 1) * rs);
    free(data);
    free(data2);
    free(a.offsets);
    if (rc == 0 && a.cfg.op == PCLR_HISTOGRAM) { /* the bins' counts, and what fell outside them */
        pclr_histogram_result h;
        memcpy(&h, result, sizeof h);
        printf("results: %llu\nunderflow: %llu overflow: %llu nan: %llu\n", (unsigned long long)h.bins, (unsigned long long)h.underflow,
               (unsigned long long)h.overflow, (unsigned long long)h.nan);
        printf("range: [%.17g, %.17g)\nresult[0]: %llu\nresult[%llu]: %llu\n", h.lo, h.hi, (unsigned long long)pclr_histogram_count(result, 0),
               (unsigned long long)(h.bins - 1), (unsigned long long)pclr_histogram_count(result, h.bins - 1));
        printf("median: %.9g\n", pclr_histogram_quantile(result, 0.5));
        if (h.weighted)
            printf("sum[0]: %.17g\nsum[%llu]: %.17g\nsums: underflow: %.17g overflow: %.17g nan: %.17g\n", pclr_histogram_sum(result, 0),
                   (unsigned long long)(h.bins - 1), pclr_histogram_sum(result, h.bins - 1), pclr_histogram_sum(result, h.bins),
                   pclr_histogram_sum(result, h.bins + 1), pclr_histogram_sum(result, h.bins + 2));
    } else if (rc == 0 && a.cfg.layout == PCLR_LAYOUT_ONE) {
        char v[512]; /* (op custom: up to 8 values) */
        pclr_args_format_result(&a.cfg, result, v, sizeof v);
        printf("result: %s\n", v);
    } else if (rc == 0) {
        char v[512];
        printf("results: %llu\n", (unsigned long long)count);
        if (count > 0) {
            pclr_args_format_result(&a.cfg, result, v, sizeof v);
            printf("result[0]: %s\n", v);
            pclr_args_format_result(&a.cfg, (const char *)result + (count - 1) * rs, v, sizeof v);
            printf("result[%llu]: %s\n", (unsigned long long)(count - 1), v);
        }
    }
    if (rc == 0 && a.output) { /* every result, as the library wrote them (a histogram: its counts) */
        FILE *f = fopen(a.output, "wb");
        int bad = !f;
        if (f && a.cfg.op == PCLR_HISTOGRAM) {
            const size_t words = a.cfg.bins + (a.cfg.weighted ? a.cfg.bins + 3 : 0); /* the counts, then the sums */
            bad = fwrite((const char *)result + sizeof(pclr_histogram_result), 8, words, f) != words;
            bad |= fclose(f) != 0;
        } else if (f) {
            bad = fwrite(result, rs, (size_t)count, f) != (size_t)count;
            bad |= fclose(f) != 0; /* closed whether the write failed or not */
        }
        if (bad) {
            fprintf(stderr, "pclreduce-run: cannot write --output '%s'\n", a.output);
            rc = 1;
        }
    }
    free(result);
    return pclr_args_close_stdout("pclreduce-run") ? 1 : rc;
}
