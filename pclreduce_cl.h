/* pclreduce_cl.h - OpenCL backend of pclreduce.

   Feature detection, build + cache of the generated programs, and reductions
   over cl_mem buffers, on any OpenCL 1.2+ ICD (NVIDIA, AMD, Intel, PoCL).

   Use (stb style), in exactly one C or C++ file:
       #define PCLREDUCE_IMPLEMENTATION
       #define PCLREDUCE_OPENCL
       #include "pclreduce.h"          (or include "pclreduce_cl.h" directly)
   Link with -lOpenCL (macOS: -framework OpenCL).

       pclr_cl_context *ctx;
       pclr_config cfg = {0};           zero = default: float sum, best variant
       float sum;
       pclr_cl_create_default(-1, -1, &ctx);
       cfg.type = PCLR_FLOAT; cfg.op = PCLR_SUM;
       pclr_cl_reduce(ctx, &cfg, buffer, 0, n, &sum);
       pclr_cl_destroy(ctx);

   What a context holds: the user's (or its own) cl_context, device and
   command queue (retained, released at destroy); the device's features; a
   cache of built programs (one per distinct configuration, built at first use
   or by pclr_cl_prepare); and scratch buffers the kernels need (a counter, the
   per-group partials, the running values of the atomic finish, a result cell).

   Thread safety: a context is NOT thread-safe. Every call on one context
   enqueues onto its one queue and touches its scratch buffers and cached
   cl_kernel objects, so calls on one context must come from one thread at a
   time (in that order they also execute on the device). Use one context per
   thread; different contexts are independent (they may share a cl_context
   and even a queue: each has its own scratch). Out-of-order queues work: the
   context chains its own commands with events.

   Options (define before including): CL_TARGET_OPENCL_VERSION (default 120);
   everything pclreduce.h takes (PCLREDUCE_STATIC, ...).

   License: MIT (see README.md). */
#ifndef PCLREDUCE_CL_H
#define PCLREDUCE_CL_H

#include "pclreduce.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue: we target 1.2 runtimes too */
#endif
#if defined(__APPLE__)
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pclr_cl_desc {
    cl_context context;         /* required */
    cl_device_id device;        /* may be NULL: the queue's device */
    cl_command_queue queue;     /* required; in-order or out-of-order */
    /* the three are the user's; retained by the context, released at destroy */
    pclr_allocator allocator;   /* zero = malloc/free */
} pclr_cl_desc;

typedef struct pclr_cl_features {
    char platform_name[128], device_name[256], vendor[128], driver_version[128];
    int opencl_c_major, opencl_c_minor;  /* CL_DEVICE_OPENCL_C_VERSION */
    int nvidia;          /* NVIDIA platform: inline PTX shfl.sync accepted (verified by a tiny test build) */
    int collectives;     /* a -cl-std=CL2.0 kernel using work_group_reduce_add/min/max builds */
    int khr_subgroups, intel_subgroups, int32_atomics, int64_atomics, fp64;
    int cpu;             /* CL_DEVICE_TYPE_CPU: defaults switch to local stride, groups of 64, 8 per unit */
    uint32_t compute_units, max_group_size, wave_width; /* wave: CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
                                                           of a test kernel, clamped to 32 or 64 */
    pclr_variant best_variant; /* SHUFFLE on NVIDIA, else COLLECTIVE if collectives, else UNROLLED */
} pclr_cl_features;

typedef struct pclr_cl_context pclr_cl_context;

/* Wraps the user's context, device and queue (retained). On error *out is NULL. */
PCLR_API pclr_result pclr_cl_create(const pclr_cl_desc *desc, pclr_cl_context **out);
/* Creates its own context + in-order queue. platform_index >= 0 picks a
   platform, device_index >= 0 a device within it (with platform_index -1: the
   device_index-th device over all platforms); -1 / -1 = the best device: a
   GPU first, then an accelerator, then a CPU. PCLR_ERR_NO_DRIVER without any
   platform, PCLR_ERR_NO_DEVICE for an index out of range or no device. */
PCLR_API pclr_result pclr_cl_create_default(int platform_index, int device_index, pclr_cl_context **out);
PCLR_API void pclr_cl_destroy(pclr_cl_context *ctx); /* NULL is fine */
PCLR_API const pclr_cl_features *pclr_cl_get_features(const pclr_cl_context *ctx);
PCLR_API cl_context pclr_cl_get_cl_context(const pclr_cl_context *ctx);
PCLR_API cl_command_queue pclr_cl_get_queue(const pclr_cl_context *ctx);
/* Sets dialect OpenCL, the device's best variant and wave width where cfg
   leaves them 0, resolves (pclr_config_resolve), and checks the device can run
   it: double without fp64 -> PCLR_ERR_NO_FP64; shuffle off NVIDIA, collective
   without OpenCL 2.0 collectives, group larger than the device allows ->
   PCLR_ERR_UNSUPPORTED_BY_DEVICE; dialect cuda -> PCLR_ERR_UNSUPPORTED_COMBINATION. */
PCLR_API pclr_result pclr_cl_resolve(pclr_cl_context *ctx, const pclr_config *cfg, pclr_config *out);
/* Builds (and caches) the program for cfg now instead of at first use. */
PCLR_API pclr_result pclr_cl_prepare(pclr_cl_context *ctx, const pclr_config *cfg);
/* Blocking: reduces n elements of `in` starting at element `offset`; the
   one-element result lands in *result. n = 0 gives the identity (in may then
   be NULL). The blocking read of the result is the only synchronisation. */
PCLR_API pclr_result pclr_cl_reduce(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                    uint64_t n, void *result);
/* Asynchronous: the result is written to element out_offset of `out`. The
   first command waits on the wait list; *done (if done is not NULL) gets an
   event for the last command, which the caller releases. A reduction is one
   kernel launch, except: finish=partials with more than one group (a second,
   one-group pass) and out_offset != 0 (a 1-element copy from a staging cell);
   profiling `done` then times only that last command. */
PCLR_API pclr_result pclr_cl_reduce_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                          uint64_t n, cl_mem out, uint64_t out_offset, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done);
/* Log of the last failed build ("" if none; never NULL). */
PCLR_API const char *pclr_cl_build_log(const pclr_cl_context *ctx);
/* A sentence about the last failed call on ctx, e.g. which OpenCL call failed
   with which cl_int code ("" if none; never NULL). */
PCLR_API const char *pclr_cl_last_error(const pclr_cl_context *ctx);
/* Multi-line text: the device's features and the path a default config takes.
   Writes at most cap bytes (NUL-terminated when cap > 0); returns the length
   the full text needs, without the NUL. */
PCLR_API size_t pclr_cl_describe(const pclr_cl_context *ctx, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* PCLREDUCE_CL_H */

/* ====================================================================== */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_CL_IMPLEMENTED)
#define PCLREDUCE_CL_IMPLEMENTED

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One built configuration. */
typedef struct pclr__cl_entry {
    pclr_config cfg;        /* resolved, groups_per_unit normalised (it only changes the grid) */
    uint64_t key;           /* pclr_hash64 of source, options and device */
    cl_program program;
    cl_kernel kernel;       /* stateful: its arguments are set at every launch */
    size_t max_group;       /* CL_KERNEL_WORK_GROUP_SIZE (advisory: NVIDIA under-reports it) */
} pclr__cl_entry;

#define PCLR__CL_SLOTS 6 /* (uint|int) x (sum|min|max) running values of the atomic finish */

struct pclr_cl_context {
    pclr_allocator allocator;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    int out_of_order;
    pclr_cl_features features;
    pclr_device_facts facts;
    size_t raw_wave;                /* the preferred multiple as reported */
    cl_ulong local_mem;
    cl_mem counter;                 /* one uint, 0 between launches (the kernels reset it) */
    cl_mem result;                  /* 8 bytes: blocking results, staging for out_offset != 0 */
    cl_mem partials;                /* per-group partials, grown on demand */
    size_t partials_bytes;
    cl_mem slots[PCLR__CL_SLOTS];   /* created on first use, identity between launches */
    cl_event last;                  /* out-of-order queue: this context's last command */
    pclr__cl_entry *entries;
    size_t count, cap;
    char *build_log;
    char last_error[512];
};

/* ------------------------------------------------------------ small helpers */
static void *pclr__cl_alloc(const pclr_allocator *a, size_t size) {
    return a->alloc ? a->alloc(size, a->user) : malloc(size);
}
static void pclr__cl_free(const pclr_allocator *a, void *p) {
    if (!p) return;
    if (a->free) a->free(p, a->user);
    else free(p);
}

static const char *pclr__cl_error_name(cl_int e) {
    switch (e) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -66: return "CL_INVALID_COMPILER_OPTIONS";
    case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an unknown OpenCL error";
    }
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static pclr_result pclr__cl_fail(pclr_cl_context *ctx, pclr_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    return r;
}

/* An OpenCL call failed: remember which, map the code to a result. */
static pclr_result pclr__cl_fail_call(pclr_cl_context *ctx, const char *call, cl_int err, const char *doing) {
    pclr_result r = PCLR_ERR_BACKEND;
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE)
        r = PCLR_ERR_OUT_OF_MEMORY;
    else if (err == CL_INVALID_WORK_GROUP_SIZE)
        r = PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    return pclr__cl_fail(ctx, r, "%s failed with %s (%d) while %s", call, pclr__cl_error_name(err), (int)err, doing);
}

/* Whole-token match in a space-separated extension list. */
static int pclr__cl_has_token(const char *list, const char *tok) {
    size_t n = strlen(tok);
    const char *p = list;
    while (p && (p = strstr(p, tok)) != NULL) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
        p += n;
    }
    return 0;
}

static void pclr__cl_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    /* drivers pad some strings with spaces */
    while (n > 0 && dst[n - 1] == ' ') dst[--n] = '\0';
}

static void pclr__cl_device_string(cl_device_id dev, cl_device_info what, char *dst, size_t cap) {
    char tmp[512];
    tmp[0] = '\0';
    if (clGetDeviceInfo(dev, what, sizeof tmp - 1, tmp, NULL) != CL_SUCCESS) tmp[0] = '\0';
    tmp[sizeof tmp - 1] = '\0';
    pclr__cl_copy(dst, cap, tmp);
}

/* "OpenCL C 1.2 ..." / "OpenCL 3.0 ..." -> major, minor after `prefix`. */
static void pclr__cl_parse_version(const char *s, const char *prefix, int *major, int *minor) {
    size_t n = strlen(prefix);
    *major = 0;
    *minor = 0;
    if (strncmp(s, prefix, n) != 0) return;
    s += n;
    while (*s >= '0' && *s <= '9') *major = *major * 10 + (*s++ - '0');
    if (*s == '.') {
        ++s;
        while (*s >= '0' && *s <= '9') *minor = *minor * 10 + (*s++ - '0');
    }
}

/* Builds a probe program; NULL if it does not build (no error is recorded). */
static cl_program pclr__cl_probe_build(pclr_cl_context *ctx, const char *src, const char *options) {
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx->context, 1, &src, NULL, &err);
    if (err != CL_SUCCESS || !p) return NULL;
    if (clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static const char pclr__cl_probe_wave_src[] =
    "__kernel void pclr_probe(__global uint *x) { x[get_global_id(0)] = (uint)get_local_id(0); }\n";
static const char pclr__cl_probe_ptx_src[] =
    "__kernel void pclr_probe(__global uint *x) {\n"
    "    uint v = x[get_local_id(0)], r;\n"
    "    asm volatile(\"shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(1u));\n"
    "    x[get_local_id(0)] = r;\n"
    "}\n";
static const char pclr__cl_probe_collective_src[] =
    "__kernel void pclr_probe(__global float *x, __global int *y) {\n"
    "    size_t i = get_global_id(0);\n"
    "    float v = x[i];\n"
    "    x[i] = work_group_reduce_add(v) + work_group_reduce_min(v) + work_group_reduce_max(v)\n"
    "         + (float)work_group_any(v != v);\n"
    "    y[i] = work_group_reduce_add(y[i]);\n"
    "}\n";

/* Device queries and probe builds. Returns PCLR_ERR_OUT_OF_MEMORY only. */
static pclr_result pclr__cl_detect(pclr_cl_context *ctx) {
    pclr_cl_features *f = &ctx->features;
    cl_platform_id plat = NULL;
    cl_uint units = 1;
    size_t maxg = 0, ext_size = 0;
    cl_device_fp_config dfp = 0;
    cl_command_queue_properties qprops = 0;
    char version[256], *ext = NULL;
    int dev_major = 0, dev_minor = 0;
    cl_program p;

    memset(f, 0, sizeof *f);
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) == CL_SUCCESS && plat) {
        char tmp[256];
        tmp[0] = '\0';
        if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof tmp - 1, tmp, NULL) != CL_SUCCESS) tmp[0] = '\0';
        tmp[sizeof tmp - 1] = '\0';
        pclr__cl_copy(f->platform_name, sizeof f->platform_name, tmp);
    }
    pclr__cl_device_string(ctx->device, CL_DEVICE_NAME, f->device_name, sizeof f->device_name);
    pclr__cl_device_string(ctx->device, CL_DEVICE_VENDOR, f->vendor, sizeof f->vendor);
    pclr__cl_device_string(ctx->device, CL_DRIVER_VERSION, f->driver_version, sizeof f->driver_version);
    pclr__cl_device_string(ctx->device, CL_DEVICE_OPENCL_C_VERSION, version, sizeof version);
    pclr__cl_parse_version(version, "OpenCL C ", &f->opencl_c_major, &f->opencl_c_minor);
    pclr__cl_device_string(ctx->device, CL_DEVICE_VERSION, version, sizeof version);
    pclr__cl_parse_version(version, "OpenCL ", &dev_major, &dev_minor);

    if (clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL) != CL_SUCCESS || !units)
        units = 1;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxg, &maxg, NULL) != CL_SUCCESS || !maxg)
        maxg = 1;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem, &ctx->local_mem, NULL) !=
        CL_SUCCESS)
        ctx->local_mem = 0;
    f->compute_units = units;
    f->max_group_size = maxg > 0xffffffffu ? 0xffffffffu : (uint32_t)maxg;
    ctx->facts.compute_units = f->compute_units;
    ctx->facts.max_group_size = f->max_group_size;

    if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) != CL_SUCCESS) ext_size = 0;
    ext = (char *)pclr__cl_alloc(&ctx->allocator, ext_size + 1);
    if (!ext) return PCLR_ERR_OUT_OF_MEMORY;
    ext[0] = '\0';
    if (ext_size && clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) != CL_SUCCESS) ext[0] = '\0';
    ext[ext_size] = '\0';
    f->khr_subgroups = pclr__cl_has_token(ext, "cl_khr_subgroups");
    f->intel_subgroups = pclr__cl_has_token(ext, "cl_intel_subgroups");
    f->int32_atomics = pclr__cl_has_token(ext, "cl_khr_global_int32_base_atomics") ||
                       dev_major > 1 || (dev_major == 1 && dev_minor >= 1); /* core since 1.1 */
    f->int64_atomics = pclr__cl_has_token(ext, "cl_khr_int64_base_atomics");
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, NULL) != CL_SUCCESS) dfp = 0;
    f->fp64 = pclr__cl_has_token(ext, "cl_khr_fp64") || dfp != 0;
    pclr__cl_free(&ctx->allocator, ext);
    {
        cl_device_type type = 0;
        f->cpu = clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
                 (type & CL_DEVICE_TYPE_CPU) != 0;
    }

    if (clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL) == CL_SUCCESS)
        ctx->out_of_order = (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;

    /* Wave width: the preferred work-group size multiple of a trivial kernel. */
    ctx->raw_wave = 0;
    if ((p = pclr__cl_probe_build(ctx, pclr__cl_probe_wave_src, "")) != NULL) {
        cl_int err = CL_SUCCESS;
        cl_kernel k = clCreateKernel(p, "pclr_probe", &err);
        if (err == CL_SUCCESS && k) {
            if (clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                         sizeof ctx->raw_wave, &ctx->raw_wave, NULL) != CL_SUCCESS)
                ctx->raw_wave = 0;
            clReleaseKernel(k);
        }
        clReleaseProgram(p);
    }
    f->wave_width = ctx->raw_wave > 32 ? 64u : 32u;

    /* NVIDIA: inline PTX shuffles. */
    if (strstr(f->platform_name, "NVIDIA") || strstr(f->vendor, "NVIDIA")) {
        if ((p = pclr__cl_probe_build(ctx, pclr__cl_probe_ptx_src, "")) != NULL) {
            f->nvidia = 1;
            clReleaseProgram(p);
        }
    }
    /* OpenCL 2.0 work-group collectives, as the generator uses them. Reported
       versions are not enough (OpenCL 3.0 makes them optional; NVIDIA reports
       1.2 but accepts them), so the build decides. */
    if (dev_major >= 2 || f->opencl_c_major >= 2 || f->nvidia) {
        if ((p = pclr__cl_probe_build(ctx, pclr__cl_probe_collective_src, "-cl-std=CL2.0")) != NULL) {
            f->collectives = 1;
            clReleaseProgram(p);
        }
    }
    f->best_variant = f->nvidia ? PCLR_VARIANT_SHUFFLE
                                : f->collectives ? PCLR_VARIANT_COLLECTIVE : PCLR_VARIANT_UNROLLED;
    return PCLR_OK;
}

/* -------------------------------------------------------------- lifecycle */
PCLR_API pclr_result pclr_cl_create(const pclr_cl_desc *desc, pclr_cl_context **out) {
    pclr_cl_context *ctx;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_int err = CL_SUCCESS;
    cl_uint zero = 0;
    unsigned char zeros[8];
    pclr_result r;
    if (out) *out = NULL;
    if (!desc || !out || !desc->context || !desc->queue) return PCLR_ERR_NULL_POINTER;
    if ((desc->allocator.alloc == NULL) != (desc->allocator.free == NULL)) return PCLR_ERR_NULL_POINTER;
    if (clGetCommandQueueInfo(desc->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(desc->queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL) != CL_SUCCESS)
        return PCLR_ERR_INVALID_CONTEXT;
    if (qctx != desc->context || !qdev || (desc->device && desc->device != qdev)) return PCLR_ERR_INVALID_CONTEXT;

    ctx = (pclr_cl_context *)pclr__cl_alloc(&desc->allocator, sizeof *ctx);
    if (!ctx) return PCLR_ERR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = desc->allocator;
    ctx->context = desc->context;
    ctx->device = qdev;
    ctx->queue = desc->queue;
    clRetainContext(ctx->context);
    clRetainDevice(ctx->device);
    clRetainCommandQueue(ctx->queue);

    if ((r = pclr__cl_detect(ctx)) != PCLR_OK) {
        pclr_cl_destroy(ctx);
        return r;
    }
    ctx->counter = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    if (err == CL_SUCCESS) {
        memset(zeros, 0, sizeof zeros);
        ctx->result = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zeros, zeros, &err);
    }
    if (err != CL_SUCCESS) {
        pclr_cl_destroy(ctx);
        return (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE)
                   ? PCLR_ERR_OUT_OF_MEMORY
                   : PCLR_ERR_BACKEND;
    }
    /* probing leaves no error behind */
    ctx->last_error[0] = '\0';
    *out = ctx;
    return PCLR_OK;
}

static int pclr__cl_type_rank(cl_device_id d) {
    cl_device_type t = 0;
    cl_bool avail = CL_TRUE, compiler = CL_TRUE;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL) != CL_SUCCESS) return 9;
    if (clGetDeviceInfo(d, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL) == CL_SUCCESS && !avail) return 8;
    if (clGetDeviceInfo(d, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL) == CL_SUCCESS && !compiler)
        return 7;
    if (t & CL_DEVICE_TYPE_GPU) return 0;
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return 1;
    if (t & CL_DEVICE_TYPE_CPU) return 2;
    return 3;
}

PCLR_API pclr_result pclr_cl_create_default(int platform_index, int device_index, pclr_cl_context **out) {
    enum { MAXP = 32, MAXD = 64 };
    cl_platform_id plats[MAXP], best_plat = NULL;
    cl_device_id devs[MAXD], best_dev = NULL;
    cl_uint np = 0, pi, seen = 0;
    int best_rank = 100;
    cl_int err;
    cl_context context;
    cl_command_queue queue;
    cl_context_properties props[3];
    pclr_cl_desc desc;
    pclr_result r;
    if (out) *out = NULL;
    if (!out) return PCLR_ERR_NULL_POINTER;
    err = clGetPlatformIDs(MAXP, plats, &np);
    if (err != CL_SUCCESS || np == 0) return PCLR_ERR_NO_DRIVER;
    if (np > MAXP) np = MAXP;
    if (platform_index >= 0 && (cl_uint)platform_index >= np) return PCLR_ERR_NO_DEVICE;
    for (pi = 0; pi < np; ++pi) {
        cl_uint nd = 0, di;
        if (platform_index >= 0 && pi != (cl_uint)platform_index) continue;
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, MAXD, devs, &nd) != CL_SUCCESS) nd = 0;
        if (nd > MAXD) nd = MAXD;
        for (di = 0; di < nd; ++di, ++seen) {
            if (device_index >= 0) {
                if (seen == (cl_uint)device_index) { best_plat = plats[pi]; best_dev = devs[di]; }
            } else {
                int rank = pclr__cl_type_rank(devs[di]);
                if (rank < best_rank) { best_rank = rank; best_plat = plats[pi]; best_dev = devs[di]; }
            }
        }
    }
    if (!best_dev) return PCLR_ERR_NO_DEVICE;
    props[0] = (cl_context_properties)CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)best_plat;
    props[2] = 0;
    context = clCreateContext(props, 1, &best_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS || !context) return err == CL_OUT_OF_HOST_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DEVICE;
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    queue = clCreateCommandQueue(context, best_dev, 0, &err);
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
    if (err != CL_SUCCESS || !queue) {
        clReleaseContext(context);
        return err == CL_OUT_OF_HOST_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND;
    }
    memset(&desc, 0, sizeof desc);
    desc.context = context;
    desc.device = best_dev;
    desc.queue = queue;
    r = pclr_cl_create(&desc, out);
    /* the context retained what it keeps */
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return r;
}

PCLR_API void pclr_cl_destroy(pclr_cl_context *ctx) {
    pclr_allocator a;
    size_t i;
    if (!ctx) return;
    for (i = 0; i < ctx->count; ++i) {
        clReleaseKernel(ctx->entries[i].kernel);
        clReleaseProgram(ctx->entries[i].program);
    }
    for (i = 0; i < PCLR__CL_SLOTS; ++i)
        if (ctx->slots[i]) clReleaseMemObject(ctx->slots[i]);
    if (ctx->partials) clReleaseMemObject(ctx->partials);
    if (ctx->result) clReleaseMemObject(ctx->result);
    if (ctx->counter) clReleaseMemObject(ctx->counter);
    if (ctx->last) clReleaseEvent(ctx->last);
    if (ctx->queue) clReleaseCommandQueue(ctx->queue);
    if (ctx->device) clReleaseDevice(ctx->device);
    if (ctx->context) clReleaseContext(ctx->context);
    a = ctx->allocator;
    pclr__cl_free(&a, ctx->entries);
    pclr__cl_free(&a, ctx->build_log);
    pclr__cl_free(&a, ctx);
}

PCLR_API const pclr_cl_features *pclr_cl_get_features(const pclr_cl_context *ctx) {
    return ctx ? &ctx->features : NULL;
}
PCLR_API cl_context pclr_cl_get_cl_context(const pclr_cl_context *ctx) { return ctx ? ctx->context : NULL; }
PCLR_API cl_command_queue pclr_cl_get_queue(const pclr_cl_context *ctx) { return ctx ? ctx->queue : NULL; }
PCLR_API const char *pclr_cl_build_log(const pclr_cl_context *ctx) {
    return ctx && ctx->build_log ? ctx->build_log : "";
}
PCLR_API const char *pclr_cl_last_error(const pclr_cl_context *ctx) { return ctx ? ctx->last_error : ""; }

/* ------------------------------------------------------------- resolution */
static pclr_result pclr__cl_resolve(const pclr_cl_context *ctx, const pclr_config *cfg, pclr_config *out,
                                    const char **why) {
    const pclr_cl_features *f = &ctx->features;
    pclr_config c = *cfg;
    pclr_result r;
    *why = NULL;
    if (c.dialect == PCLR_DIALECT_DEFAULT) c.dialect = PCLR_OPENCL;
    if (c.variant == PCLR_VARIANT_DEFAULT) {
        c.variant = f->best_variant;
        /* explicit knobs the best variant cannot take pick the next best */
        if (c.variant == PCLR_VARIANT_SHUFFLE && c.wave_width != 0 && c.wave_width != 32)
            c.variant = f->collectives ? PCLR_VARIANT_COLLECTIVE : PCLR_VARIANT_UNROLLED;
    }
    if (c.wave_width == 0) c.wave_width = c.variant == PCLR_VARIANT_SHUFFLE ? 32 : (int)f->wave_width;
    /* A CPU runs a work-item's loop to the end before the next work-item: each
       must stream its own contiguous block (global stride is ~10x slower on PoCL). */
    if (f->cpu && c.stride == PCLR_STRIDE_DEFAULT) c.stride = PCLR_STRIDE_LOCAL;
    if (f->cpu && c.group_size == 0) c.group_size = 64;
    if (f->cpu && c.groups_per_unit == 0) c.groups_per_unit = 8;
    /* NVIDIA GPUs: the CUDA backend's defaults (see pclreduce_cuda.h) */
    if (f->nvidia && c.unroll == 0) c.unroll = 8;
    if (f->nvidia && c.groups_per_unit == 0)
        c.groups_per_unit = c.group_size == 0 ? 4 : c.group_size < 1024 ? 1024 / c.group_size : 1;
    if (c.group_size == 0 && f->max_group_size < 256) {
        int g = 32;
        while ((uint32_t)g * 2 <= f->max_group_size && g < 1024) g *= 2;
        c.group_size = g;
    }
    if ((r = pclr_config_resolve(&c, &c, why)) != PCLR_OK) return r;
    if (c.dialect != PCLR_OPENCL) {
        *why = "the OpenCL backend runs only the opencl dialect";
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
    }
    if (c.type == PCLR_DOUBLE && !f->fp64) {
        *why = "the device has no fp64 (cl_khr_fp64)";
        return PCLR_ERR_NO_FP64;
    }
    if (c.variant == PCLR_VARIANT_SHUFFLE && !f->nvidia) {
        *why = "the shuffle variant needs NVIDIA's OpenCL (inline PTX shfl.sync)";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c.variant == PCLR_VARIANT_COLLECTIVE && !f->collectives) {
        *why = "the collective variant needs OpenCL 2.0 work_group_reduce_* functions, which this device does not build";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if ((uint32_t)c.group_size > f->max_group_size) {
        *why = "the group size is larger than CL_DEVICE_MAX_WORK_GROUP_SIZE";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (ctx->local_mem && (cl_ulong)c.group_size * pclr_type_size(c.type) + 64 > ctx->local_mem) {
        *why = "the group's local memory tree is larger than CL_DEVICE_LOCAL_MEM_SIZE";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c.finish != PCLR_FINISH_PARTIALS && !f->int32_atomics) {
        *why = "the last_group and atomic finishes need 32-bit global atomics";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    *out = c;
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cl_resolve(pclr_cl_context *ctx, const pclr_config *cfg, pclr_config *out) {
    const char *why = NULL;
    pclr_result r;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!cfg || !out) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_resolve: config pointer is NULL");
    r = pclr__cl_resolve(ctx, cfg, out, &why);
    if (r != PCLR_OK)
        pclr__cl_fail(ctx, r, "configuration not usable on %s: %s (%s)", ctx->features.device_name,
                      why ? why : "invalid", pclr_result_string(r));
    return r;
}

/* ------------------------------------------------------- program cache */
static int pclr__cl_same_config(const pclr_config *a, const pclr_config *b) {
    return a->type == b->type && a->op == b->op && a->dialect == b->dialect && a->wave_width == b->wave_width &&
           a->group_size == b->group_size && a->unroll == b->unroll && a->vector_width == b->vector_width &&
           a->stride == b->stride && a->variant == b->variant && a->finish == b->finish;
}

/* The cached entry for a resolved config, built on first use. */
static pclr_result pclr__cl_get(pclr_cl_context *ctx, const pclr_config *resolved, pclr__cl_entry **out) {
    pclr_config c = *resolved;
    size_t i, src_size = 0, opt_size = 0;
    char *src = NULL, *opts = NULL;
    uint64_t key;
    cl_int err = CL_SUCCESS;
    cl_program prog;
    cl_kernel kern;
    size_t kmax = 0;
    pclr_result r;
    const char *csrc;
    *out = NULL;
    c.groups_per_unit = 2048 / c.group_size; /* grid only: one program serves every value */
    for (i = 0; i < ctx->count; ++i)
        if (pclr__cl_same_config(&ctx->entries[i].cfg, &c)) { *out = &ctx->entries[i]; return PCLR_OK; }

    if ((r = pclr_kernel_source(&c, NULL, 0, &src_size)) != PCLR_OK ||
        (r = pclr_kernel_options(&c, NULL, 0, &opt_size)) != PCLR_OK)
        return pclr__cl_fail(ctx, r, "cannot generate the kernel: %s", pclr_result_string(r));
    src = (char *)pclr__cl_alloc(&ctx->allocator, src_size + opt_size);
    if (!src) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the kernel source");
    opts = src + src_size;
    if ((r = pclr_kernel_source(&c, src, src_size, NULL)) != PCLR_OK ||
        (r = pclr_kernel_options(&c, opts, opt_size, NULL)) != PCLR_OK) {
        pclr__cl_free(&ctx->allocator, src);
        return pclr__cl_fail(ctx, r, "cannot generate the kernel: %s", pclr_result_string(r));
    }
    key = pclr_hash64(src, src_size, PCLR_HASH_SEED);
    key = pclr_hash64(opts, opt_size, key);
    key = pclr_hash64(&ctx->device, sizeof ctx->device, key);
    for (i = 0; i < ctx->count; ++i)
        if (ctx->entries[i].key == key) { /* same text: cannot differ in anything the kernel sees */
            pclr__cl_free(&ctx->allocator, src);
            *out = &ctx->entries[i];
            return PCLR_OK;
        }
    if (ctx->count == ctx->cap) {
        size_t ncap = ctx->cap ? ctx->cap * 2 : 8;
        pclr__cl_entry *ne = (pclr__cl_entry *)pclr__cl_alloc(&ctx->allocator, ncap * sizeof *ne);
        if (!ne) {
            pclr__cl_free(&ctx->allocator, src);
            return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the program cache");
        }
        if (ctx->count) memcpy(ne, ctx->entries, ctx->count * sizeof *ne);
        pclr__cl_free(&ctx->allocator, ctx->entries);
        ctx->entries = ne;
        ctx->cap = ncap;
    }

    csrc = src;
    prog = clCreateProgramWithSource(ctx->context, 1, &csrc, NULL, &err);
    if (err != CL_SUCCESS || !prog) {
        pclr__cl_free(&ctx->allocator, src);
        return pclr__cl_fail_call(ctx, "clCreateProgramWithSource", err, "creating the reduction program");
    }
    err = clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        char desc[512];
        pclr__cl_free(&ctx->allocator, ctx->build_log);
        ctx->build_log = NULL;
        if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) != CL_SUCCESS)
            log_size = 0;
        ctx->build_log = (char *)pclr__cl_alloc(&ctx->allocator, log_size + 1);
        if (ctx->build_log) {
            ctx->build_log[0] = '\0';
            if (log_size &&
                clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, ctx->build_log, NULL) !=
                    CL_SUCCESS)
                ctx->build_log[0] = '\0';
            ctx->build_log[log_size] = '\0';
        }
        clReleaseProgram(prog);
        pclr__cl_free(&ctx->allocator, src);
        pclr_config_describe(&c, desc, sizeof desc);
        return pclr__cl_fail(ctx, err == CL_BUILD_PROGRAM_FAILURE ? PCLR_ERR_BUILD_FAILED : PCLR_ERR_BACKEND,
                             "clBuildProgram failed with %s (%d) for %s; see pclr_cl_build_log",
                             pclr__cl_error_name(err), (int)err, desc);
    }
    pclr__cl_free(&ctx->allocator, src);
    kern = clCreateKernel(prog, PCLR_KERNEL_NAME, &err);
    if (err != CL_SUCCESS || !kern) {
        clReleaseProgram(prog);
        return pclr__cl_fail_call(ctx, "clCreateKernel", err, "creating the reduction kernel");
    }
    if (clGetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) != CL_SUCCESS)
        kmax = ctx->features.max_group_size;
    ctx->entries[ctx->count].cfg = c;
    ctx->entries[ctx->count].key = key;
    ctx->entries[ctx->count].program = prog;
    ctx->entries[ctx->count].kernel = kern;
    ctx->entries[ctx->count].max_group = kmax;
    *out = &ctx->entries[ctx->count++];
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cl_prepare(pclr_cl_context *ctx, const pclr_config *cfg) {
    pclr_config c;
    pclr__cl_entry *e;
    pclr_result r;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!cfg) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_prepare: config pointer is NULL");
    if ((r = pclr_cl_resolve(ctx, cfg, &c)) != PCLR_OK) return r;
    return pclr__cl_get(ctx, &c, &e);
}

/* ---------------------------------------------------------------- launch */
/* The wait list of the next command: the caller's events (first command
   only) plus, on an out-of-order queue, this context's previous command. */
typedef struct pclr__cl_waits {
    const cl_event *list;
    cl_uint count;
    cl_event *owned;
} pclr__cl_waits;

static pclr_result pclr__cl_waits_make(pclr_cl_context *ctx, cl_uint nw, const cl_event *w, pclr__cl_waits *ws) {
    ws->owned = NULL;
    ws->list = nw ? w : NULL;
    ws->count = nw;
    if (!ctx->last) return PCLR_OK;
    if (nw == 0) {
        ws->list = &ctx->last;
        ws->count = 1;
        return PCLR_OK;
    }
    ws->owned = (cl_event *)pclr__cl_alloc(&ctx->allocator, (nw + 1) * sizeof(cl_event));
    if (!ws->owned) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a wait list");
    memcpy(ws->owned, w, nw * sizeof(cl_event));
    ws->owned[nw] = ctx->last;
    ws->list = ws->owned;
    ws->count = nw + 1;
    return PCLR_OK;
}

/* After a command: an out-of-order queue chains the next one on it; the
   event goes to the caller when asked for (want). */
static void pclr__cl_track(pclr_cl_context *ctx, cl_event ev, int want, cl_event *out) {
    if (ctx->out_of_order && ev) {
        if (want) clRetainEvent(ev);
        if (ctx->last) clReleaseEvent(ctx->last);
        ctx->last = ev;
    }
    if (want) *out = ev;
    else if (!ctx->out_of_order && ev) clReleaseEvent(ev);
}

static pclr_result pclr__cl_launch(pclr_cl_context *ctx, const pclr__cl_entry *e, cl_mem in, uint64_t offset, uint64_t n,
                                   cl_mem out, cl_mem partials, size_t groups, size_t group_size, cl_uint nw,
                                   const cl_event *w, int want, cl_event *done) {
    cl_ulong off = (cl_ulong)offset, count = (cl_ulong)n;
    size_t global = groups * group_size, local = group_size;
    cl_event ev = NULL;
    pclr__cl_waits ws;
    pclr_result r;
    cl_int err;
    cl_kernel k = e->kernel;
    if ((err = clSetKernelArg(k, 0, sizeof in, &in)) != CL_SUCCESS ||
        (err = clSetKernelArg(k, 1, sizeof off, &off)) != CL_SUCCESS ||
        (err = clSetKernelArg(k, 2, sizeof count, &count)) != CL_SUCCESS ||
        (err = clSetKernelArg(k, 3, sizeof out, &out)) != CL_SUCCESS ||
        (err = clSetKernelArg(k, 4, sizeof partials, &partials)) != CL_SUCCESS ||
        (err = clSetKernelArg(k, 5, sizeof ctx->counter, &ctx->counter)) != CL_SUCCESS)
        return pclr__cl_fail_call(ctx, "clSetKernelArg", err, "setting the kernel's arguments");
    if ((r = pclr__cl_waits_make(ctx, nw, w, &ws)) != PCLR_OK) return r;
    err = clEnqueueNDRangeKernel(ctx->queue, e->kernel, 1, NULL, &global, &local, ws.count, ws.list,
                                 (want || ctx->out_of_order) ? &ev : NULL);
    pclr__cl_free(&ctx->allocator, ws.owned);
    /* CL_KERNEL_WORK_GROUP_SIZE is not checked up front: NVIDIA reports 256
       for these kernels yet runs them in groups of 1024. The launch decides. */
    if ((err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) && group_size > e->max_group)
        return pclr__cl_fail(ctx, PCLR_ERR_UNSUPPORTED_BY_DEVICE,
                             "clEnqueueNDRangeKernel failed with %s (%d): group size %lu is above the kernel's "
                             "CL_KERNEL_WORK_GROUP_SIZE %lu on this device",
                             pclr__cl_error_name(err), (int)err, (unsigned long)group_size,
                             (unsigned long)e->max_group);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueNDRangeKernel", err, "launching the reduction");
    pclr__cl_track(ctx, ev, want, done);
    return PCLR_OK;
}

static pclr_result pclr__cl_mem_size(pclr_cl_context *ctx, cl_mem m, const char *which, uint64_t *size) {
    size_t s = 0;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof s, &s, NULL);
    if (err != CL_SUCCESS) {
        pclr__cl_fail(ctx, PCLR_ERR_BACKEND, "clGetMemObjectInfo(CL_MEM_SIZE) failed with %s (%d) on the %s buffer",
                      pclr__cl_error_name(err), (int)err, which);
        return PCLR_ERR_BACKEND;
    }
    *size = (uint64_t)s;
    return PCLR_OK;
}

static pclr_result pclr__cl_scratch(pclr_cl_context *ctx, const pclr_config *c, uint64_t groups, cl_mem *partials) {
    cl_int err = CL_SUCCESS;
    if (c->finish == PCLR_FINISH_ATOMIC) {
        int slot = (c->type == PCLR_INT ? 3 : 0) + ((int)c->op - (int)PCLR_SUM);
        if (!ctx->slots[slot]) {
            unsigned char ident[8];
            pclr_identity(c->type, c->op, ident);
            ctx->slots[slot] =
                clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, ident, &err);
            if (err != CL_SUCCESS) {
                ctx->slots[slot] = NULL;
                return pclr__cl_fail_call(ctx, "clCreateBuffer", err, "creating an atomic slot");
            }
        }
        *partials = ctx->slots[slot];
        return PCLR_OK;
    }
    {
        /* partials area: pclr_max_groups elements of up to 8 bytes */
        uint64_t want = pclr_max_groups(c, &ctx->facts);
        if (want < groups) want = groups;
        want *= 8;
        if (want > ctx->partials_bytes) {
            cl_mem m = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)want, NULL, &err);
            if (err != CL_SUCCESS || !m) return pclr__cl_fail_call(ctx, "clCreateBuffer", err, "creating the partials");
            if (ctx->partials) clReleaseMemObject(ctx->partials); /* pending commands keep it alive */
            ctx->partials = m;
            ctx->partials_bytes = (size_t)want;
        }
        *partials = ctx->partials;
    }
    return PCLR_OK;
}

/* The whole reduction, enqueued. `*type_size` gets the element size. */
static pclr_result pclr__cl_enqueue(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                    uint64_t n, cl_mem out, uint64_t out_offset, cl_uint nw, const cl_event *w,
                                    cl_event *done, size_t *type_size) {
    pclr_config c;
    pclr__cl_entry *e;
    pclr_launch plan;
    pclr_result r;
    uint64_t size, ts;
    cl_mem partials = NULL, dst;
    int want = done != NULL;
    if (done) *done = NULL;
    if (!cfg) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    if (!out) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "output buffer is NULL");
    if (!in && n > 0) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "input buffer is NULL");
    if (nw > 0 && !w) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "num_wait > 0 but the wait list is NULL");
    if ((r = pclr_cl_resolve(ctx, cfg, &c)) != PCLR_OK) return r;
    ts = pclr_type_size(c.type);
    *type_size = (size_t)ts;
    if (n > UINT64_MAX - offset || offset + n > UINT64_MAX / ts)
        return pclr__cl_fail(ctx, PCLR_ERR_SIZE_OVERFLOW, "offset + n overflows 64 bits");
    if (in) {
        if ((r = pclr__cl_mem_size(ctx, in, "input", &size)) != PCLR_OK) return r;
        if ((offset + n) * ts > size)
            return pclr__cl_fail(ctx, PCLR_ERR_SIZE_OVERFLOW,
                                 "elements [%llu, %llu) of %llu bytes each exceed the input buffer (%llu bytes)",
                                 (unsigned long long)offset, (unsigned long long)(offset + n),
                                 (unsigned long long)ts, (unsigned long long)size);
    } else {
        in = ctx->result; /* n = 0: never read */
        offset = 0;
    }
    if (out != ctx->result) {
        if ((r = pclr__cl_mem_size(ctx, out, "output", &size)) != PCLR_OK) return r;
        if (out_offset >= size / ts)
            return pclr__cl_fail(ctx, PCLR_ERR_SIZE_OVERFLOW, "output element %llu is past the output buffer (%llu bytes)",
                                 (unsigned long long)out_offset, (unsigned long long)size);
    }
    if ((r = pclr__cl_get(ctx, &c, &e)) != PCLR_OK) return r;
    if ((r = pclr_plan(&c, &ctx->facts, n, &plan)) != PCLR_OK)
        return pclr__cl_fail(ctx, r, "pclr_plan: %s", pclr_result_string(r));
    if ((r = pclr__cl_scratch(ctx, &c, plan.groups, &partials)) != PCLR_OK) return r;
    dst = out_offset == 0 ? out : ctx->result;

    if (c.finish == PCLR_FINISH_PARTIALS && plan.groups > 1) {
        /* pass 1: out[group] into the partials area; pass 2: one group folds them */
        r = pclr__cl_launch(ctx, e, in, offset, n, partials, partials, (size_t)plan.groups, plan.group_size,
                            nw, w, 0, NULL);
        if (r != PCLR_OK) return r;
        nw = 0;
        w = NULL;
        r = pclr__cl_launch(ctx, e, partials, 0, plan.groups, dst, partials, 1, plan.group_size, 0, NULL,
                            want && dst == out, done);
    } else {
        r = pclr__cl_launch(ctx, e, in, offset, n, dst, partials, (size_t)plan.groups, plan.group_size, nw, w,
                            want && dst == out, done);
    }
    if (r != PCLR_OK) return r;
    if (dst != out) {
        cl_event ev = NULL;
        pclr__cl_waits ws;
        cl_int err;
        if ((r = pclr__cl_waits_make(ctx, 0, NULL, &ws)) != PCLR_OK) return r;
        err = clEnqueueCopyBuffer(ctx->queue, ctx->result, out, 0, (size_t)(out_offset * ts), (size_t)ts, ws.count,
                                  ws.list, (want || ctx->out_of_order) ? &ev : NULL);
        pclr__cl_free(&ctx->allocator, ws.owned);
        if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueCopyBuffer", err, "copying the result");
        pclr__cl_track(ctx, ev, want, done);
    }
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cl_reduce_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                          uint64_t n, cl_mem out, uint64_t out_offset, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done) {
    size_t ts = 0;
    if (done) *done = NULL;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    return pclr__cl_enqueue(ctx, cfg, in, offset, n, out, out_offset, num_wait, wait, done, &ts);
}

PCLR_API pclr_result pclr_cl_reduce(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                    uint64_t n, void *result) {
    size_t ts = 0;
    pclr_result r;
    pclr__cl_waits ws;
    cl_int err;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!result) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "result pointer is NULL");
    if ((r = pclr__cl_enqueue(ctx, cfg, in, offset, n, ctx->result, 0, 0, NULL, NULL, &ts)) != PCLR_OK) return r;
    if ((r = pclr__cl_waits_make(ctx, 0, NULL, &ws)) != PCLR_OK) return r;
    err = clEnqueueReadBuffer(ctx->queue, ctx->result, CL_TRUE, 0, ts, result, ws.count, ws.list, NULL);
    pclr__cl_free(&ctx->allocator, ws.owned);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueReadBuffer", err, "reading the result");
    return PCLR_OK;
}

/* ---------------------------------------------------------------- describe */
typedef struct pclr__cl_text { char *buf; size_t cap, len; } pclr__cl_text;

PCLR_API size_t pclr_cl_describe(const pclr_cl_context *ctx, char *buf, size_t cap) {
    pclr__cl_text t;
    t.buf = buf;
    t.cap = cap;
    t.len = 0;
    if (!ctx) {
        pclr__appendf(t.buf, t.cap, &t.len, "(null context)\n");
    } else {
        const pclr_cl_features *f = &ctx->features;
        pclr_config zero, c;
        const char *why = NULL;
        char cfg_text[400];
        pclr__appendf(t.buf, t.cap, &t.len, "platform: %s\n", f->platform_name);
        pclr__appendf(t.buf, t.cap, &t.len, "device: %s (vendor %s, driver %s)\n", f->device_name, f->vendor, f->driver_version);
        pclr__appendf(t.buf, t.cap, &t.len, "OpenCL C: %d.%d\n", f->opencl_c_major, f->opencl_c_minor);
        pclr__appendf(t.buf, t.cap, &t.len, "compute units: %u, max group size: %u, local memory: %lu bytes\n",
                        (unsigned)f->compute_units, (unsigned)f->max_group_size, (unsigned long)ctx->local_mem);
        pclr__appendf(t.buf, t.cap, &t.len, "wave width: %u (preferred work-group multiple %lu)\n", (unsigned)f->wave_width,
                        (unsigned long)ctx->raw_wave);
        pclr__appendf(t.buf, t.cap, &t.len,
                        "features: nvidia_ptx=%s collectives=%s khr_subgroups=%s intel_subgroups=%s "
                        "int32_atomics=%s int64_atomics=%s fp64=%s cpu=%s\n",
                        f->nvidia ? "yes" : "no", f->collectives ? "yes" : "no", f->khr_subgroups ? "yes" : "no",
                        f->intel_subgroups ? "yes" : "no", f->int32_atomics ? "yes" : "no",
                        f->int64_atomics ? "yes" : "no", f->fp64 ? "yes" : "no", f->cpu ? "yes" : "no");
        pclr__appendf(t.buf, t.cap, &t.len, "queue: %s\n", ctx->out_of_order ? "out-of-order (commands chained by events)" : "in-order");
        pclr__appendf(t.buf, t.cap, &t.len, "best variant: %s\n", pclr_variant_name(f->best_variant));
        memset(&zero, 0, sizeof zero);
        if (pclr__cl_resolve(ctx, &zero, &c, &why) == PCLR_OK) {
            pclr_launch plan;
            pclr_config_describe(&c, cfg_text, sizeof cfg_text);
            pclr__appendf(t.buf, t.cap, &t.len, "default path: %s\n", cfg_text);
            if (pclr_plan(&c, &ctx->facts, (uint64_t)1 << 24, &plan) == PCLR_OK)
                pclr__appendf(t.buf, t.cap, &t.len, "grid for 2^24 elements: %llu groups x %u work-items (at most %llu groups)\n",
                                (unsigned long long)plan.groups, (unsigned)plan.group_size,
                                (unsigned long long)pclr_max_groups(&c, &ctx->facts));
        } else {
            pclr__appendf(t.buf, t.cap, &t.len, "default path: none (%s)\n", why ? why : "unsupported");
        }
        pclr__appendf(t.buf, t.cap, &t.len, "cached programs: %lu\n", (unsigned long)ctx->count);
    }
    if (buf && cap > 0) buf[t.len < cap ? t.len : cap - 1] = '\0';
    return t.len;
}

#ifdef __cplusplus
}
#endif

#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_CL_IMPLEMENTED */
