/* pclreduce_cl.h - OpenCL backend of pclreduce.

   Feature detection, build + cache of the generated programs, and reductions
   over cl_mem buffers, on any OpenCL 1.2+ ICD (NVIDIA, AMD, Intel, PoCL).

   Use (stb style), in exactly one C or C++ file:
       #define PCLREDUCE_IMPLEMENTATION
       #define PCLREDUCE_OPENCL
       #include "pclreduce.h"          (or include "pclreduce_cl.h" directly)
   Link with -ldl on Linux (nothing on Windows and macOS): the OpenCL library
   is loaded at run time with dlopen (LoadLibrary on Windows) into a table of
   entry points per context (pclr_cl_api), so a program built this way starts
   on a machine without OpenCL and reports PCLR_ERR_NO_DRIVER there. It calls
   OpenCL itself (buffers, events) through pclr_cl_get_api(ctx) or
   pclr_cl_load_api; linking -lOpenCL as well is harmless (one library).
   With PCLREDUCE_NO_RUNTIME_LINKING defined before the include, the table
   holds the directly linked functions instead: link with -lOpenCL (macOS:
   -framework OpenCL) and nothing is loaded at run time.

   Library, first found wins: desc.library_path, else $PCLR_OPENCL_LIBRARY,
   else libOpenCL.so.1, libOpenCL.so (Windows OpenCL.dll; macOS
   /System/Library/Frameworks/OpenCL.framework/OpenCL). An explicit path that
   fails to load is an error (no fall-back to the usual names). Each context
   loads it (the system loader counts references: one copy per process) or
   uses the caller's table as is (desc.api: engines that load OpenCL
   themselves, tests that inject failures). A loaded OpenCL library is never
   unloaded, as if linked: the ICD loader keeps the vendor drivers it opened,
   and unloading it would lose (leak) its list of them at every
   create/destroy cycle.

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

   Errors: every call returns a pclr_result. A failed pclr_cl_create /
   pclr_cl_create_default_desc hands back no context (*out is NULL); the
   sentence saying why goes to desc.error when the caller gives a buffer.
   Resource errors of OpenCL (out of host memory, out of resources) are never
   taken for a missing feature: they fail the call that met them, and the
   context stays usable.

   Options (define before including): CL_TARGET_OPENCL_VERSION (default 120);
   PCLREDUCE_NO_RUNTIME_LINKING (see above); everything pclreduce.h takes
   (PCLREDUCE_STATIC, ...).

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

/* The OpenCL entry points the backend calls, plus the few a program needs to
   make and fill buffers and wait on events; the names drop the "cl" prefix
   (api->CreateBuffer is clCreateBuffer). Every pointer is set in a loaded
   table; a caller's table (pclr_cl_desc.api) must set every one too. */
typedef struct pclr_cl_api {
    /* platforms, devices, contexts, queues */
    cl_int (CL_API_CALL *GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (CL_API_CALL *GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
    cl_int (CL_API_CALL *GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *RetainDevice)(cl_device_id);
    cl_int (CL_API_CALL *ReleaseDevice)(cl_device_id);
    cl_context (CL_API_CALL *CreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                                            void (CL_CALLBACK *)(const char *, const void *, size_t, void *),
                                            void *, cl_int *);
    cl_int (CL_API_CALL *GetContextInfo)(cl_context, cl_context_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *RetainContext)(cl_context);
    cl_int (CL_API_CALL *ReleaseContext)(cl_context);
    cl_command_queue (CL_API_CALL *CreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties,
                                                       cl_int *);
    cl_int (CL_API_CALL *GetCommandQueueInfo)(cl_command_queue, cl_command_queue_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *RetainCommandQueue)(cl_command_queue);
    cl_int (CL_API_CALL *ReleaseCommandQueue)(cl_command_queue);
    cl_int (CL_API_CALL *Flush)(cl_command_queue);
    cl_int (CL_API_CALL *Finish)(cl_command_queue);
    /* buffers */
    cl_mem (CL_API_CALL *CreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    cl_int (CL_API_CALL *GetMemObjectInfo)(cl_mem, cl_mem_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *RetainMemObject)(cl_mem);
    cl_int (CL_API_CALL *ReleaseMemObject)(cl_mem);
    cl_int (CL_API_CALL *EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                                            const cl_event *, cl_event *);
    cl_int (CL_API_CALL *EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                                             cl_uint, const cl_event *, cl_event *);
    cl_int (CL_API_CALL *EnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                                            const cl_event *, cl_event *);
    cl_int (CL_API_CALL *EnqueueFillBuffer)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint,
                                            const cl_event *, cl_event *);
    /* programs and kernels */
    cl_program (CL_API_CALL *CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    cl_program (CL_API_CALL *CreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id *, const size_t *,
                                                      const unsigned char **, cl_int *, cl_int *);
    cl_int (CL_API_CALL *BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *,
                                       void (CL_CALLBACK *)(cl_program, void *), void *);
    cl_int (CL_API_CALL *GetProgramInfo)(cl_program, cl_program_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *GetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void *,
                                              size_t *);
    cl_int (CL_API_CALL *RetainProgram)(cl_program);
    cl_int (CL_API_CALL *ReleaseProgram)(cl_program);
    cl_kernel (CL_API_CALL *CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (CL_API_CALL *GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *,
                                                 size_t *);
    cl_int (CL_API_CALL *SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (CL_API_CALL *RetainKernel)(cl_kernel);
    cl_int (CL_API_CALL *ReleaseKernel)(cl_kernel);
    cl_int (CL_API_CALL *EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                               const size_t *, cl_uint, const cl_event *, cl_event *);
    /* events */
    cl_int (CL_API_CALL *WaitForEvents)(cl_uint, const cl_event *);
    cl_int (CL_API_CALL *GetEventInfo)(cl_event, cl_event_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *GetEventProfilingInfo)(cl_event, cl_profiling_info, size_t, void *, size_t *);
    cl_int (CL_API_CALL *RetainEvent)(cl_event);
    cl_int (CL_API_CALL *ReleaseEvent)(cl_event);
} pclr_cl_api;

typedef struct pclr_cl_desc {
    cl_context context;         /* required by pclr_cl_create; NULL for pclr_cl_create_default_desc */
    cl_device_id device;        /* may be NULL: the queue's device */
    cl_command_queue queue;     /* required by pclr_cl_create; NULL for pclr_cl_create_default_desc */
    /* the three are the user's; retained by the context, released at destroy */
    pclr_allocator allocator;   /* zero = malloc/free */
    const char *library_path;   /* NULL = $PCLR_OPENCL_LIBRARY, else the usual names (see above) */
    const pclr_cl_api *api;     /* NULL = load the library; else this table, used as is (copied;
                                   library_path is then ignored) */
    char *error;                /* optional: a failed create writes why here (error_cap bytes) */
    size_t error_cap;
    const char *cache_dir;      /* program binaries on disk; NULL = pclr_cache_default_dir() */
    int no_disk_cache;          /* 1: build every program from source (no files read or written) */
    const char *tune_file;      /* NULL = pclr_tune_default_path(); its entries for this device apply */
    int no_tune_file;           /* 1: built-in defaults only */
} pclr_cl_desc;

typedef struct pclr_cl_features {
    char platform_name[128], device_name[256], vendor[128], driver_version[128];
    int opencl_c_major, opencl_c_minor;  /* CL_DEVICE_OPENCL_C_VERSION */
    int nvidia;          /* NVIDIA platform: inline PTX shfl.sync accepted (verified by a tiny test build) */
    int collectives;     /* a -cl-std=CL2.0 kernel using work_group_reduce_add/min/max builds */
    int khr_subgroups, intel_subgroups, int32_atomics, int64_atomics, fp64;
    int cpu;             /* CL_DEVICE_TYPE_CPU: defaults switch to local stride, groups of 128, unroll 32, 8 per unit */
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
/* The same with a desc for library_path, api, allocator and error (desc may
   be NULL; its context, device and queue must be NULL). */
PCLR_API pclr_result pclr_cl_create_default_desc(const pclr_cl_desc *desc, int platform_index, int device_index,
                                                 pclr_cl_context **out);
PCLR_API void pclr_cl_destroy(pclr_cl_context *ctx); /* NULL is fine */
/* The context's OpenCL entry points, for the program's own buffers and events
   (a copy may outlive the context; NULL for a NULL context). */
PCLR_API const pclr_cl_api *pclr_cl_get_api(const pclr_cl_context *ctx);
/* A table without a context (e.g. to list platforms): loads the library as
   pclr_cl_create does (path NULL = $PCLR_OPENCL_LIBRARY, else the usual
   names) into *api. PCLR_ERR_NO_DRIVER (library or an entry point missing)
   with a sentence in why (why_cap bytes; why may be NULL) and *api zeroed.
   With PCLREDUCE_NO_RUNTIME_LINKING: the linked functions. */
PCLR_API pclr_result pclr_cl_load_api(const char *path, pclr_cl_api *api, char *why, size_t why_cap);
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
/* Sweeps the knobs for type and op per size class on this device (see
   pclr_tune_sweep; opt may be NULL: classes up to 2^26), on inputs rotated
   over a buffer larger than the device's cache, timed by profiling events on
   a queue of the same context (pipelined: many calls back to back). The
   winners apply to this context at once (knobs a config leaves 0 come from
   them) and are written to out[] (device and driver filled in) for
   pclr_tune_save. Blocks until done. */
PCLR_API pclr_result pclr_cl_tune(pclr_cl_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count);
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
#ifndef PCLREDUCE_NO_RUNTIME_LINKING
#define PCLR__NEED_LOADER
#include "pclreduce.h" /* again: pclr__lib_open, _sym, _close, _error */
#endif

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
    pclr_cl_api cl;                 /* every OpenCL call goes through this table */
    char library[256];              /* where the table came from, for describe */
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
    char cache_dir[512];            /* the disk cache; "" = off */
    size_t disk_hits, disk_stores;
    pclr_tune_entry *tuned;         /* this device's entries of the tuning file (or of pclr_cl_tune) */
    size_t tuned_count;
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

/* Out of host memory or device resources: a passing condition, never taken
   for a missing feature or an unsupported query. */
static int pclr__cl_resource_error(cl_int err) {
    return err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

/* An OpenCL call failed: remember which, map the code to a result. */
static pclr_result pclr__cl_fail_call(pclr_cl_context *ctx, const char *call, cl_int err, const char *doing) {
    pclr_result r = PCLR_ERR_BACKEND;
    if (pclr__cl_resource_error(err))
        r = PCLR_ERR_OUT_OF_MEMORY;
    else if (err == CL_INVALID_WORK_GROUP_SIZE)
        r = PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    return pclr__cl_fail(ctx, r, "%s failed with %s (%d) while %s", call, pclr__cl_error_name(err), (int)err, doing);
}

/* A sentence into a caller's buffer (may be NULL); returns r. */
static pclr_result pclr__cl_say(char *buf, size_t cap, pclr_result r, const char *fmt, ...) PCLR__PRINTF(4, 5);
static pclr_result pclr__cl_say(char *buf, size_t cap, pclr_result r, const char *fmt, ...) {
    va_list ap;
    if (!buf || !cap) return r;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return r;
}

/* ------------------------------------------------------------ library loading */
/* Every entry point of pclr_cl_api, in its order. */
#define PCLR__CL_ENTRY_POINTS(X)                                                                                  \
    X(GetPlatformIDs) X(GetPlatformInfo) X(GetDeviceIDs) X(GetDeviceInfo) X(RetainDevice) X(ReleaseDevice)       \
    X(CreateContext) X(GetContextInfo) X(RetainContext) X(ReleaseContext) X(CreateCommandQueue)                  \
    X(GetCommandQueueInfo) X(RetainCommandQueue) X(ReleaseCommandQueue) X(Flush) X(Finish) X(CreateBuffer)       \
    X(GetMemObjectInfo) X(RetainMemObject) X(ReleaseMemObject) X(EnqueueReadBuffer) X(EnqueueWriteBuffer)        \
    X(EnqueueCopyBuffer) X(EnqueueFillBuffer) X(CreateProgramWithSource) X(CreateProgramWithBinary)              \
    X(BuildProgram) X(GetProgramInfo) X(GetProgramBuildInfo) X(RetainProgram) X(ReleaseProgram) X(CreateKernel)  \
    X(GetKernelWorkGroupInfo) X(SetKernelArg) X(RetainKernel) X(ReleaseKernel) X(EnqueueNDRangeKernel)           \
    X(WaitForEvents) X(GetEventInfo) X(GetEventProfilingInfo) X(RetainEvent) X(ReleaseEvent)

/* The first entry point a caller's table leaves NULL ("clName"), or NULL. */
static const char *pclr__cl_api_missing(const pclr_cl_api *api) {
#define PCLR__CL_CHECK(name) if (!api->name) return "cl" #name;
    PCLR__CL_ENTRY_POINTS(PCLR__CL_CHECK)
#undef PCLR__CL_CHECK
    return NULL;
}

#ifdef PCLREDUCE_NO_RUNTIME_LINKING
static pclr_result pclr__cl_load(const char *path, pclr_cl_api *api, char *name, size_t name_cap, char *why,
                                 size_t why_cap) {
    (void)path; /* nothing is loaded: the program links the OpenCL library */
    (void)why;
    (void)why_cap;
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* clCreateCommandQueue under OpenCL 2.0+ headers */
#endif
#define PCLR__CL_LINK(name) api->name = cl##name;
    PCLR__CL_ENTRY_POINTS(PCLR__CL_LINK)
#undef PCLR__CL_LINK
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
    pclr__cl_say(name, name_cap, PCLR_OK, "linked (PCLREDUCE_NO_RUNTIME_LINKING)");
    return PCLR_OK;
}
#else
/* Loads the OpenCL library (path, else $PCLR_OPENCL_LIBRARY, else the usual
   names) and every entry point. name gets the library's name; why a sentence
   on failure (PCLR_ERR_NO_DRIVER). Unloaded again only when it lacks an entry
   point (nothing of it ran then); see the header comment for why. */
static pclr_result pclr__cl_load(const char *path, pclr_cl_api *api, char *name, size_t name_cap, char *why,
                                 size_t why_cap) {
#if defined(_WIN32)
    static const char *const names[] = {"OpenCL.dll"};
    const char *tried = "OpenCL.dll";
#elif defined(__APPLE__)
    static const char *const names[] = {"/System/Library/Frameworks/OpenCL.framework/OpenCL"};
    const char *tried = "/System/Library/Frameworks/OpenCL.framework/OpenCL";
#else
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
    const char *tried = "libOpenCL.so.1, libOpenCL.so";
#endif
    const char *env = getenv("PCLR_OPENCL_LIBRARY"), *from = "desc.library_path";
    void *lib = NULL;
    size_t i;
    memset(api, 0, sizeof *api);
    if (!path || !*path) {
        path = (env && *env) ? env : NULL;
        from = "PCLR_OPENCL_LIBRARY";
    }
    if (path) {
        if (!(lib = pclr__lib_open(path)))
            return pclr__cl_say(why, why_cap, PCLR_ERR_NO_DRIVER, "no OpenCL library: %s (from %s) could not be loaded: %s",
                                path, from, pclr__lib_error());
        pclr__cl_say(name, name_cap, PCLR_OK, "%s", path);
    } else {
        for (i = 0; i < sizeof names / sizeof names[0] && !lib; ++i)
            if ((lib = pclr__lib_open(names[i])) != NULL) pclr__cl_say(name, name_cap, PCLR_OK, "%s", names[i]);
        if (!lib)
            return pclr__cl_say(why, why_cap, PCLR_ERR_NO_DRIVER,
                                "no OpenCL library (tried %s; install an ICD loader and a driver, e.g. "
                                "ocl-icd-libopencl1 and pocl-opencl-icd, or set PCLR_OPENCL_LIBRARY)", tried);
    }
#define PCLR__CL_SYM(entry)                                                                                   \
    if (!pclr__lib_sym(lib, "cl" #entry, &api->entry)) {                                                      \
        pclr__cl_say(why, why_cap, PCLR_ERR_NO_DRIVER, "the OpenCL library %s lacks cl" #entry                \
                     " (an OpenCL 1.2 ICD loader is needed)", name ? name : "");                              \
        pclr__lib_close(lib);                                                                              \
        memset(api, 0, sizeof *api);                                                                          \
        return PCLR_ERR_NO_DRIVER;                                                                            \
    }
    PCLR__CL_ENTRY_POINTS(PCLR__CL_SYM)
#undef PCLR__CL_SYM
    return PCLR_OK;
}
#endif

PCLR_API pclr_result pclr_cl_load_api(const char *path, pclr_cl_api *api, char *why, size_t why_cap) {
    char name[256];
    if (why && why_cap) why[0] = '\0';
    if (!api) return pclr__cl_say(why, why_cap, PCLR_ERR_NULL_POINTER, "pclr_cl_load_api: api is NULL");
    return pclr__cl_load(path, api, name, sizeof name, why, why_cap);
}

/* The table a desc asks for: its own (checked), or loaded. */
static pclr_result pclr__cl_table(const pclr_cl_desc *desc, pclr_cl_api *api, char *name, size_t name_cap) {
    if (desc->api) {
        const char *missing = pclr__cl_api_missing(desc->api);
        if (missing)
            return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER, "desc.api leaves %s NULL", missing);
        *api = *desc->api;
        pclr__cl_say(name, name_cap, PCLR_OK, "the caller's table (desc.api)");
        return PCLR_OK;
    }
    return pclr__cl_load(desc->library_path, api, name, name_cap, desc->error, desc->error_cap);
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

/* One device query while detecting. required: any failure fails create;
   otherwise only a resource error does, and a query the device does not
   answer leaves *dst zeroed (not reported). */
static pclr_result pclr__cl_query(pclr_cl_context *ctx, cl_device_info what, const char *what_name, int required,
                                  size_t size, void *dst) {
    char call[96];
    cl_int err = ctx->cl.GetDeviceInfo(ctx->device, what, size, dst, NULL);
    if (err == CL_SUCCESS) return PCLR_OK;
    memset(dst, 0, size);
    if (!required && !pclr__cl_resource_error(err)) return PCLR_OK;
    snprintf(call, sizeof call, "clGetDeviceInfo(%s)", what_name);
    return pclr__cl_fail_call(ctx, call, err, "detecting the device's features");
}
#define PCLR__CL_QUERY(what, required, size, dst) pclr__cl_query(ctx, what, #what, required, size, dst)

/* A device string ("" where the device does not report it; a longer one than
   511 bytes is not reported either). */
static pclr_result pclr__cl_device_string(pclr_cl_context *ctx, cl_device_info what, const char *what_name, char *dst,
                                          size_t cap) {
    char tmp[512];
    pclr_result r = pclr__cl_query(ctx, what, what_name, 0, sizeof tmp - 1, tmp);
    tmp[sizeof tmp - 1] = '\0';
    pclr__cl_copy(dst, cap, tmp);
    return r;
}
#define PCLR__CL_STRING(what, dst, cap) pclr__cl_device_string(ctx, what, #what, dst, cap)

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

/* Builds a probe program into *out, NULL if it does not build. Only a
   resource error fails (a probe that does not build means "no"). */
static pclr_result pclr__cl_probe_build(pclr_cl_context *ctx, const char *src, const char *options, cl_program *out) {
    cl_int err = CL_SUCCESS;
    cl_program p = ctx->cl.CreateProgramWithSource(ctx->context, 1, &src, NULL, &err);
    *out = NULL;
    if (err != CL_SUCCESS || !p)
        return pclr__cl_resource_error(err)
                   ? pclr__cl_fail_call(ctx, "clCreateProgramWithSource", err, "creating a feature probe")
                   : PCLR_OK;
    if ((err = ctx->cl.BuildProgram(p, 1, &ctx->device, options, NULL, NULL)) != CL_SUCCESS) {
        ctx->cl.ReleaseProgram(p);
        return pclr__cl_resource_error(err) ? pclr__cl_fail_call(ctx, "clBuildProgram", err, "building a feature probe")
                                            : PCLR_OK;
    }
    *out = p;
    return PCLR_OK;
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

/* Device queries and probe builds. Fails (with a sentence) on a resource
   error, a required query that fails, or no host memory. */
static pclr_result pclr__cl_detect(pclr_cl_context *ctx) {
    pclr_cl_features *f = &ctx->features;
    cl_platform_id plat = NULL;
    cl_uint units = 0;
    size_t maxg = 0, ext_size = 0;
    cl_device_fp_config dfp = 0;
    cl_device_type type = 0;
    cl_command_queue_properties qprops = 0;
    char version[256], *ext = NULL;
    int dev_major = 0, dev_minor = 0;
    cl_program p = NULL;
    cl_int err;
    pclr_result r;

    memset(f, 0, sizeof *f);
    if ((r = PCLR__CL_QUERY(CL_DEVICE_PLATFORM, 0, sizeof plat, &plat)) != PCLR_OK) return r;
    if (plat) {
        char tmp[256];
        tmp[0] = '\0';
        if ((err = ctx->cl.GetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof tmp - 1, tmp, NULL)) != CL_SUCCESS) {
            if (pclr__cl_resource_error(err))
                return pclr__cl_fail_call(ctx, "clGetPlatformInfo(CL_PLATFORM_NAME)", err, "detecting the device's features");
            tmp[0] = '\0';
        }
        tmp[sizeof tmp - 1] = '\0';
        pclr__cl_copy(f->platform_name, sizeof f->platform_name, tmp);
    }
    if ((r = PCLR__CL_STRING(CL_DEVICE_NAME, f->device_name, sizeof f->device_name)) != PCLR_OK ||
        (r = PCLR__CL_STRING(CL_DEVICE_VENDOR, f->vendor, sizeof f->vendor)) != PCLR_OK ||
        (r = PCLR__CL_STRING(CL_DRIVER_VERSION, f->driver_version, sizeof f->driver_version)) != PCLR_OK ||
        (r = PCLR__CL_STRING(CL_DEVICE_OPENCL_C_VERSION, version, sizeof version)) != PCLR_OK)
        return r;
    pclr__cl_parse_version(version, "OpenCL C ", &f->opencl_c_major, &f->opencl_c_minor);
    if ((r = PCLR__CL_STRING(CL_DEVICE_VERSION, version, sizeof version)) != PCLR_OK) return r;
    pclr__cl_parse_version(version, "OpenCL ", &dev_major, &dev_minor);

    /* the grid, the group limit, the CPU defaults and the queue's ordering
       decide correctness or usability: these must be answered */
    if ((r = PCLR__CL_QUERY(CL_DEVICE_MAX_COMPUTE_UNITS, 1, sizeof units, &units)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_MAX_WORK_GROUP_SIZE, 1, sizeof maxg, &maxg)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_TYPE, 1, sizeof type, &type)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_LOCAL_MEM_SIZE, 0, sizeof ctx->local_mem, &ctx->local_mem)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_DOUBLE_FP_CONFIG, 0, sizeof dfp, &dfp)) != PCLR_OK)
        return r;
    if ((err = ctx->cl.GetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL)) != CL_SUCCESS)
        return pclr__cl_fail_call(ctx, "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)", err, "detecting the queue's ordering");
    ctx->out_of_order = (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    if (!units) units = 1;
    if (!maxg) maxg = 1;
    f->compute_units = units;
    f->max_group_size = maxg > 0xffffffffu ? 0xffffffffu : (uint32_t)maxg;
    f->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    ctx->facts.compute_units = f->compute_units;
    ctx->facts.max_group_size = f->max_group_size;

    if ((err = ctx->cl.GetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size)) != CL_SUCCESS) {
        if (pclr__cl_resource_error(err))
            return pclr__cl_fail_call(ctx, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)", err, "detecting the device's features");
        ext_size = 0;
    }
    ext = (char *)pclr__cl_alloc(&ctx->allocator, ext_size + 1);
    if (!ext) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the device's extension list");
    ext[0] = '\0';
    if (ext_size && (err = ctx->cl.GetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL)) != CL_SUCCESS) {
        pclr__cl_free(&ctx->allocator, ext);
        if (pclr__cl_resource_error(err))
            return pclr__cl_fail_call(ctx, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)", err, "detecting the device's features");
        ext = NULL;
    }
    if (ext) {
        ext[ext_size] = '\0';
        f->khr_subgroups = pclr__cl_has_token(ext, "cl_khr_subgroups");
        f->intel_subgroups = pclr__cl_has_token(ext, "cl_intel_subgroups");
        f->int32_atomics = pclr__cl_has_token(ext, "cl_khr_global_int32_base_atomics");
        f->int64_atomics = pclr__cl_has_token(ext, "cl_khr_int64_base_atomics");
        f->fp64 = pclr__cl_has_token(ext, "cl_khr_fp64");
        pclr__cl_free(&ctx->allocator, ext);
    }
    f->int32_atomics = f->int32_atomics || dev_major > 1 || (dev_major == 1 && dev_minor >= 1); /* core since 1.1 */
    f->fp64 = f->fp64 || dfp != 0;

    /* Wave width: the preferred work-group size multiple of a trivial kernel. */
    ctx->raw_wave = 0;
    if ((r = pclr__cl_probe_build(ctx, pclr__cl_probe_wave_src, "", &p)) != PCLR_OK) return r;
    if (p) {
        cl_kernel k = ctx->cl.CreateKernel(p, "pclr_probe", &err);
        const char *call = "clCreateKernel";
        if (err == CL_SUCCESS && k) {
            call = "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)";
            if ((err = ctx->cl.GetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                                      sizeof ctx->raw_wave, &ctx->raw_wave, NULL)) != CL_SUCCESS)
                ctx->raw_wave = 0;
            ctx->cl.ReleaseKernel(k);
        }
        ctx->cl.ReleaseProgram(p);
        if (pclr__cl_resource_error(err)) return pclr__cl_fail_call(ctx, call, err, "measuring the wave width");
    }
    f->wave_width = ctx->raw_wave > 32 ? 64u : 32u;

    /* NVIDIA: inline PTX shuffles. */
    if (strstr(f->platform_name, "NVIDIA") || strstr(f->vendor, "NVIDIA")) {
        if ((r = pclr__cl_probe_build(ctx, pclr__cl_probe_ptx_src, "", &p)) != PCLR_OK) return r;
        if (p) {
            f->nvidia = 1;
            ctx->cl.ReleaseProgram(p);
        }
    }
    /* OpenCL 2.0 work-group collectives, as the generator uses them. Reported
       versions are not enough (OpenCL 3.0 makes them optional; NVIDIA reports
       1.2 but accepts them), so the build decides. */
    if (dev_major >= 2 || f->opencl_c_major >= 2 || f->nvidia) {
        if ((r = pclr__cl_probe_build(ctx, pclr__cl_probe_collective_src, "-cl-std=CL2.0", &p)) != PCLR_OK) return r;
        if (p) {
            f->collectives = 1;
            ctx->cl.ReleaseProgram(p);
        }
    }
    f->best_variant = f->nvidia ? PCLR_VARIANT_SHUFFLE
                                : f->collectives ? PCLR_VARIANT_COLLECTIVE : PCLR_VARIANT_UNROLLED;
    return PCLR_OK;
}

/* -------------------------------------------------------------- lifecycle */
/* pclr_cl_create on a table that is already there (desc's checked). */
/* The disk cache directory and this device's entries of the tuning file.
   Neither can fail the context: without them programs are built from source
   and the built-in defaults apply. */
static void pclr__cl_setup_files(pclr_cl_context *ctx, const pclr_cl_desc *d) {
    char path[1024];
    const char *file = d->tune_file;
    size_t need;
    if (!d->no_disk_cache) { /* a directory name that does not fit turns the disk cache off */
        need = d->cache_dir && *d->cache_dir ? strlen(d->cache_dir) : pclr_cache_default_dir(NULL, 0);
        if (need && need < sizeof ctx->cache_dir) {
            if (d->cache_dir && *d->cache_dir) pclr__cl_copy(ctx->cache_dir, sizeof ctx->cache_dir, d->cache_dir);
            else pclr_cache_default_dir(ctx->cache_dir, sizeof ctx->cache_dir);
        }
    }
    if (d->no_tune_file) return;
    if (!file || !*file) {
        need = pclr_tune_default_path(path, sizeof path);
        file = need && need < sizeof path ? path : NULL;
    }
    if (file && pclr_tune_load(file, PCLR_OPENCL, ctx->features.device_name, ctx->features.driver_version, &ctx->allocator,
                               &ctx->tuned, &ctx->tuned_count) != PCLR_OK) {
        ctx->tuned = NULL;
        ctx->tuned_count = 0;
    }
}

static pclr_result pclr__cl_create_on(const pclr_cl_desc *desc, const pclr_cl_api *api, const char *library,
                                      pclr_cl_context **out) {
    pclr_cl_context *ctx;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_int err;
    cl_uint zero = 0;
    unsigned char zeros[8];
    pclr_result r;
    if ((err = api->GetCommandQueueInfo(desc->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL)) != CL_SUCCESS ||
        (err = api->GetCommandQueueInfo(desc->queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL)) != CL_SUCCESS)
        return pclr__cl_say(desc->error, desc->error_cap,
                            pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_INVALID_CONTEXT,
                            "clGetCommandQueueInfo failed with %s (%d) on desc.queue", pclr__cl_error_name(err),
                            (int)err);
    if (qctx != desc->context || !qdev || (desc->device && desc->device != qdev))
        return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_INVALID_CONTEXT,
                            "desc.queue belongs to another cl_context or device than desc.context / desc.device");

    ctx = (pclr_cl_context *)pclr__cl_alloc(&desc->allocator, sizeof *ctx);
    if (!ctx) return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = desc->allocator;
    ctx->cl = *api;
    pclr__cl_copy(ctx->library, sizeof ctx->library, library);
    /* each handle is kept only once retained, so destroy releases exactly what was retained */
    if ((err = ctx->cl.RetainContext(desc->context)) != CL_SUCCESS) {
        r = pclr__cl_fail_call(ctx, "clRetainContext", err, "keeping desc.context");
        goto fail;
    }
    ctx->context = desc->context;
    if ((err = ctx->cl.RetainDevice(qdev)) != CL_SUCCESS) {
        r = pclr__cl_fail_call(ctx, "clRetainDevice", err, "keeping the queue's device");
        goto fail;
    }
    ctx->device = qdev;
    if ((err = ctx->cl.RetainCommandQueue(desc->queue)) != CL_SUCCESS) {
        r = pclr__cl_fail_call(ctx, "clRetainCommandQueue", err, "keeping desc.queue");
        goto fail;
    }
    ctx->queue = desc->queue;

    if ((r = pclr__cl_detect(ctx)) != PCLR_OK) goto fail;
    err = CL_SUCCESS;
    ctx->counter = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    if (err != CL_SUCCESS || !ctx->counter) {
        ctx->counter = NULL;
        r = pclr__cl_fail_call(ctx, "clCreateBuffer", err, "creating the counter");
        goto fail;
    }
    memset(zeros, 0, sizeof zeros);
    ctx->result = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zeros, zeros, &err);
    if (err != CL_SUCCESS || !ctx->result) {
        ctx->result = NULL;
        r = pclr__cl_fail_call(ctx, "clCreateBuffer", err, "creating the result cell");
        goto fail;
    }
    pclr__cl_setup_files(ctx, desc);
    /* probing leaves no error behind */
    ctx->last_error[0] = '\0';
    *out = ctx;
    return PCLR_OK;
fail:
    pclr__cl_say(desc->error, desc->error_cap, r, "%s", ctx->last_error);
    pclr_cl_destroy(ctx);
    return r;
}

/* The checks every create makes on desc and out. */
static pclr_result pclr__cl_check_desc(const pclr_cl_desc *desc, pclr_cl_context **out, const char *fn) {
    if (!out) return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER, "%s: out is NULL", fn);
    if ((desc->allocator.alloc == NULL) != (desc->allocator.free == NULL))
        return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER,
                            "%s: desc.allocator needs both alloc and free, or neither", fn);
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cl_create(const pclr_cl_desc *desc, pclr_cl_context **out) {
    pclr_cl_api api;
    char library[256];
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) return PCLR_ERR_NULL_POINTER;
    if (desc->error && desc->error_cap) desc->error[0] = '\0';
    if ((r = pclr__cl_check_desc(desc, out, "pclr_cl_create")) != PCLR_OK) return r;
    if (!desc->context || !desc->queue)
        return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER,
                            "pclr_cl_create: desc.context and desc.queue are required (pclr_cl_create_default_desc "
                            "makes its own)");
    if ((r = pclr__cl_table(desc, &api, library, sizeof library)) != PCLR_OK) return r;
    return pclr__cl_create_on(desc, &api, library, out);
}

/* A device's place in the default choice: GPU, accelerator, CPU, other; a
   device that is unavailable, has no compiler or cannot say ranks last. A
   resource error returns -1 (*err says which): the choice would be a guess. */
static int pclr__cl_type_rank(const pclr_cl_api *api, cl_device_id d, cl_int *err) {
    cl_device_type t = 0;
    cl_bool avail = CL_TRUE, compiler = CL_TRUE;
    if ((*err = api->GetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL)) != CL_SUCCESS)
        return pclr__cl_resource_error(*err) ? -1 : 9;
    if ((*err = api->GetDeviceInfo(d, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL)) != CL_SUCCESS) {
        if (pclr__cl_resource_error(*err)) return -1;
    } else if (!avail) {
        return 8;
    }
    if ((*err = api->GetDeviceInfo(d, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL)) != CL_SUCCESS) {
        if (pclr__cl_resource_error(*err)) return -1;
    } else if (!compiler) {
        return 7;
    }
    if (t & CL_DEVICE_TYPE_GPU) return 0;
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return 1;
    if (t & CL_DEVICE_TYPE_CPU) return 2;
    return 3;
}

/* Picks the device (see pclr_cl_create_default), makes a context and an
   in-order queue on it, and wraps them. */
static pclr_result pclr__cl_create_default_on(const pclr_cl_desc *desc, const pclr_cl_api *api, const char *library,
                                              int platform_index, int device_index, pclr_cl_context **out) {
    enum { MAXP = 32, MAXD = 64 };
    cl_platform_id plats[MAXP], best_plat = NULL;
    cl_device_id devs[MAXD], best_dev = NULL;
    cl_uint np = 0, pi, seen = 0;
    int best_rank = 100;
    cl_int err;
    cl_context context;
    cl_command_queue queue;
    cl_context_properties props[3];
    pclr_cl_desc own;
    pclr_result r;
    char *e = desc->error;
    size_t ecap = desc->error_cap;
    err = api->GetPlatformIDs(MAXP, plats, &np);
    /* -1001: CL_PLATFORM_NOT_FOUND_KHR, the ICD loader found no driver */
    if (err == -1001 || (err == CL_SUCCESS && np == 0))
        return pclr__cl_say(e, ecap, PCLR_ERR_NO_DRIVER,
                            "no OpenCL platform (%s found no driver: install an ICD such as pocl-opencl-icd)", library);
    if (err != CL_SUCCESS)
        return pclr__cl_say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DRIVER,
                            "clGetPlatformIDs failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    if (np > MAXP) np = MAXP;
    if (platform_index >= 0 && (cl_uint)platform_index >= np)
        return pclr__cl_say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL platform %d (there are %u)", platform_index,
                            (unsigned)np);
    for (pi = 0; pi < np; ++pi) {
        cl_uint nd = 0, di;
        if (platform_index >= 0 && pi != (cl_uint)platform_index) continue;
        if ((err = api->GetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, MAXD, devs, &nd)) != CL_SUCCESS) {
            /* a platform without devices is fine; anything else would shift the device indices */
            if (err != CL_DEVICE_NOT_FOUND)
                return pclr__cl_say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DEVICE,
                                    "clGetDeviceIDs failed with %s (%d) on platform %u", pclr__cl_error_name(err),
                                    (int)err, (unsigned)pi);
            nd = 0;
        }
        if (nd > MAXD) nd = MAXD;
        for (di = 0; di < nd; ++di, ++seen) {
            if (device_index >= 0) {
                if (seen == (cl_uint)device_index) { best_plat = plats[pi]; best_dev = devs[di]; }
            } else {
                int rank = pclr__cl_type_rank(api, devs[di], &err);
                if (rank < 0)
                    return pclr__cl_say(e, ecap, PCLR_ERR_OUT_OF_MEMORY,
                                        "clGetDeviceInfo failed with %s (%d) while ranking the devices",
                                        pclr__cl_error_name(err), (int)err);
                if (rank < best_rank) { best_rank = rank; best_plat = plats[pi]; best_dev = devs[di]; }
            }
        }
    }
    if (!best_dev) {
        if (device_index >= 0)
            return pclr__cl_say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL device %d (there are %u)", device_index,
                                (unsigned)seen);
        return pclr__cl_say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL device on %s", platform_index >= 0 ? "that platform"
                                                                                                          : "any platform");
    }
    props[0] = (cl_context_properties)CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)best_plat;
    props[2] = 0;
    err = CL_SUCCESS;
    context = api->CreateContext(props, 1, &best_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS || !context)
        return pclr__cl_say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DEVICE,
                            "clCreateContext failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    queue = api->CreateCommandQueue(context, best_dev, 0, &err);
    if (err != CL_SUCCESS || !queue) {
        api->ReleaseContext(context);
        return pclr__cl_say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                            "clCreateCommandQueue failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    }
    own = *desc;
    own.context = context;
    own.device = best_dev;
    own.queue = queue;
    r = pclr__cl_create_on(&own, api, library, out);
    /* the context retained what it keeps */
    api->ReleaseCommandQueue(queue);
    api->ReleaseContext(context);
    return r;
}

PCLR_API pclr_result pclr_cl_create_default_desc(const pclr_cl_desc *desc, int platform_index, int device_index,
                                                 pclr_cl_context **out) {
    pclr_cl_desc zero;
    pclr_cl_api api;
    char library[256];
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if (desc->error && desc->error_cap) desc->error[0] = '\0';
    if ((r = pclr__cl_check_desc(desc, out, "pclr_cl_create_default_desc")) != PCLR_OK) return r;
    if (desc->context || desc->queue || desc->device)
        return pclr__cl_say(desc->error, desc->error_cap, PCLR_ERR_INVALID_CONTEXT,
                            "pclr_cl_create_default_desc makes its own context and queue: leave desc.context, "
                            "desc.device and desc.queue NULL (or call pclr_cl_create)");
    if ((r = pclr__cl_table(desc, &api, library, sizeof library)) != PCLR_OK) return r;
    return pclr__cl_create_default_on(desc, &api, library, platform_index, device_index, out);
}

PCLR_API pclr_result pclr_cl_create_default(int platform_index, int device_index, pclr_cl_context **out) {
    return pclr_cl_create_default_desc(NULL, platform_index, device_index, out);
}

PCLR_API void pclr_cl_destroy(pclr_cl_context *ctx) {
    pclr_allocator a;
    size_t i;
    if (!ctx) return;
    for (i = 0; i < ctx->count; ++i) {
        ctx->cl.ReleaseKernel(ctx->entries[i].kernel);
        ctx->cl.ReleaseProgram(ctx->entries[i].program);
    }
    for (i = 0; i < PCLR__CL_SLOTS; ++i)
        if (ctx->slots[i]) ctx->cl.ReleaseMemObject(ctx->slots[i]);
    if (ctx->partials) ctx->cl.ReleaseMemObject(ctx->partials);
    if (ctx->result) ctx->cl.ReleaseMemObject(ctx->result);
    if (ctx->counter) ctx->cl.ReleaseMemObject(ctx->counter);
    if (ctx->last) ctx->cl.ReleaseEvent(ctx->last);
    if (ctx->queue) ctx->cl.ReleaseCommandQueue(ctx->queue);
    if (ctx->device) ctx->cl.ReleaseDevice(ctx->device);
    if (ctx->context) ctx->cl.ReleaseContext(ctx->context);
    a = ctx->allocator;
    pclr__cl_free(&a, ctx->entries);
    pclr__cl_free(&a, ctx->build_log);
    pclr__cl_free(&a, ctx->tuned);
    pclr__cl_free(&a, ctx);
}

PCLR_API const pclr_cl_api *pclr_cl_get_api(const pclr_cl_context *ctx) { return ctx ? &ctx->cl : NULL; }

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
    if (c.backend == PCLR_BACKEND_DEFAULT) c.backend = PCLR_OPENCL;
    if (c.variant == PCLR_VARIANT_DEFAULT) {
        c.variant = f->best_variant;
        /* explicit knobs the best variant cannot take pick the next best */
        if (c.variant == PCLR_VARIANT_SHUFFLE && c.wave_width != 0 && c.wave_width != 32)
            c.variant = f->collectives ? PCLR_VARIANT_COLLECTIVE : PCLR_VARIANT_UNROLLED;
    }
    if (c.wave_width == 0) c.wave_width = c.variant == PCLR_VARIANT_SHUFFLE ? 32 : (int)f->wave_width;
    /* A CPU runs a work-item's loop to the end before the next work-item: each
       must stream its own contiguous block (global stride is ~10x slower on
       PoCL); long unrolled runs keep the prefetchers busy (pclreduce-tune on a
       16-core Xeon: unroll 32, groups of 128, 8 per unit, 1.22x the old
       unroll 4 / groups of 64 at 2^26). */
    if (f->cpu && c.stride == PCLR_STRIDE_DEFAULT) c.stride = PCLR_STRIDE_LOCAL;
    if (f->cpu && c.group_size == 0) c.group_size = 128;
    if (f->cpu && c.unroll == 0) c.unroll = 32;
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
    if (c.backend != PCLR_OPENCL) {
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
    return a->type == b->type && a->op == b->op && a->backend == b->backend && a->wave_width == b->wave_width &&
           a->group_size == b->group_size && a->unroll == b->unroll && a->vector_width == b->vector_width &&
           a->stride == b->stride && a->variant == b->variant && a->finish == b->finish;
}

/* The bytes that define a program binary, for the disk cache: source,
   options, platform, device and driver. NULL when the disk cache is off or
   memory is short (then the program is built from source). */
static char *pclr__cl_identity(pclr_cl_context *ctx, const char *src, const char *opts, size_t *len) {
    const size_t cap = strlen(src) + strlen(opts) + 1024;
    size_t n = 0;
    char *id;
    if (!ctx->cache_dir[0] || !(id = (char *)pclr__cl_alloc(&ctx->allocator, cap))) return NULL;
    pclr__appendf(id, cap, &n, "%s\n%s\nopencl %s / %s / %s", src, opts, ctx->features.platform_name,
                  ctx->features.device_name, ctx->features.driver_version);
    *len = n;
    return id;
}

/* A program built from the disk cache's binary, or NULL (no file, or one the
   driver refuses: then the caller builds from source and stores anew). */
static cl_program pclr__cl_cached_program(pclr_cl_context *ctx, const char *src, const char *opts) {
    size_t ident_len = 0, size = 0;
    char *ident = pclr__cl_identity(ctx, src, opts, &ident_len);
    void *bin = NULL;
    cl_program prog = NULL;
    if (ident && pclr_cache_load(ctx->cache_dir, ident, ident_len, &ctx->allocator, &bin, &size, NULL)) {
        const unsigned char *cbin = (const unsigned char *)bin;
        cl_int status = CL_SUCCESS, err = CL_SUCCESS;
        prog = ctx->cl.CreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, &cbin, &status, &err);
        if (err != CL_SUCCESS || status != CL_SUCCESS || !prog ||
            ctx->cl.BuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS) {
            if (prog && err == CL_SUCCESS) ctx->cl.ReleaseProgram(prog);
            prog = NULL;
        } else {
            ++ctx->disk_hits;
        }
        pclr__cl_free(&ctx->allocator, bin);
    }
    pclr__cl_free(&ctx->allocator, ident);
    return prog;
}

/* Stores a built program's binary; a failure only costs the next process a build. */
static void pclr__cl_store_program(pclr_cl_context *ctx, const char *src, const char *opts, cl_program prog) {
    size_t ident_len = 0, size = 0;
    char *ident = pclr__cl_identity(ctx, src, opts, &ident_len);
    unsigned char *bin = NULL;
    if (ident && ctx->cl.GetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) == CL_SUCCESS && size &&
        (bin = (unsigned char *)pclr__cl_alloc(&ctx->allocator, size)) != NULL &&
        ctx->cl.GetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS &&
        pclr_cache_store(ctx->cache_dir, ident, ident_len, bin, size) == PCLR_OK)
        ++ctx->disk_stores;
    pclr__cl_free(&ctx->allocator, bin);
    pclr__cl_free(&ctx->allocator, ident);
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

    prog = pclr__cl_cached_program(ctx, src, opts);
    if (prog) goto built;
    csrc = src;
    prog = ctx->cl.CreateProgramWithSource(ctx->context, 1, &csrc, NULL, &err);
    if (err != CL_SUCCESS || !prog) {
        pclr__cl_free(&ctx->allocator, src);
        return pclr__cl_fail_call(ctx, "clCreateProgramWithSource", err, "creating the reduction program");
    }
    err = ctx->cl.BuildProgram(prog, 1, &ctx->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        char desc[512];
        pclr__cl_free(&ctx->allocator, ctx->build_log);
        ctx->build_log = NULL;
        if (ctx->cl.GetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) != CL_SUCCESS)
            log_size = 0;
        ctx->build_log = (char *)pclr__cl_alloc(&ctx->allocator, log_size + 1);
        if (ctx->build_log) {
            ctx->build_log[0] = '\0';
            if (log_size &&
                ctx->cl.GetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, ctx->build_log, NULL) !=
                    CL_SUCCESS)
                ctx->build_log[0] = '\0';
            ctx->build_log[log_size] = '\0';
        }
        ctx->cl.ReleaseProgram(prog);
        pclr__cl_free(&ctx->allocator, src);
        pclr_config_describe(&c, desc, sizeof desc);
        return pclr__cl_fail(ctx, err == CL_BUILD_PROGRAM_FAILURE ? PCLR_ERR_BUILD_FAILED
                                  : pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                             "clBuildProgram failed with %s (%d) for %s; see pclr_cl_build_log",
                             pclr__cl_error_name(err), (int)err, desc);
    }
    pclr__cl_store_program(ctx, src, opts, prog);
built:
    pclr__cl_free(&ctx->allocator, src);
    kern = ctx->cl.CreateKernel(prog, PCLR_KERNEL_NAME, &err);
    if (err != CL_SUCCESS || !kern) {
        ctx->cl.ReleaseProgram(prog);
        return pclr__cl_fail_call(ctx, "clCreateKernel", err, "creating the reduction kernel");
    }
    if ((err = ctx->cl.GetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL)) !=
        CL_SUCCESS) {
        if (pclr__cl_resource_error(err)) {
            ctx->cl.ReleaseKernel(kern);
            ctx->cl.ReleaseProgram(prog);
            return pclr__cl_fail_call(ctx, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", err,
                                      "asking the reduction kernel's group limit");
        }
        kmax = ctx->features.max_group_size;
    }
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
static pclr_result pclr__cl_track(pclr_cl_context *ctx, cl_event ev, int want, cl_event *out) {
    if (ctx->out_of_order && ev) {
        cl_int err = want ? ctx->cl.RetainEvent(ev) : CL_SUCCESS;
        if (ctx->last) ctx->cl.ReleaseEvent(ctx->last);
        ctx->last = ev; /* the context's reference: the next command waits on it */
        if (err != CL_SUCCESS)
            return pclr__cl_fail_call(ctx, "clRetainEvent", err,
                                      "handing out the event of the enqueued reduction (it still runs; the context "
                                      "orders its next command after it)");
    }
    if (want) *out = ev;
    else if (!ctx->out_of_order && ev) ctx->cl.ReleaseEvent(ev);
    return PCLR_OK;
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
    if ((err = ctx->cl.SetKernelArg(k, 0, sizeof in, &in)) != CL_SUCCESS ||
        (err = ctx->cl.SetKernelArg(k, 1, sizeof off, &off)) != CL_SUCCESS ||
        (err = ctx->cl.SetKernelArg(k, 2, sizeof count, &count)) != CL_SUCCESS ||
        (err = ctx->cl.SetKernelArg(k, 3, sizeof out, &out)) != CL_SUCCESS ||
        (err = ctx->cl.SetKernelArg(k, 4, sizeof partials, &partials)) != CL_SUCCESS ||
        (err = ctx->cl.SetKernelArg(k, 5, sizeof ctx->counter, &ctx->counter)) != CL_SUCCESS)
        return pclr__cl_fail_call(ctx, "clSetKernelArg", err, "setting the kernel's arguments");
    if ((r = pclr__cl_waits_make(ctx, nw, w, &ws)) != PCLR_OK) return r;
    err = ctx->cl.EnqueueNDRangeKernel(ctx->queue, e->kernel, 1, NULL, &global, &local, ws.count, ws.list,
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
    return pclr__cl_track(ctx, ev, want, done);
}

static pclr_result pclr__cl_mem_size(pclr_cl_context *ctx, cl_mem m, const char *which, uint64_t *size) {
    size_t s = 0;
    cl_int err = ctx->cl.GetMemObjectInfo(m, CL_MEM_SIZE, sizeof s, &s, NULL);
    if (err != CL_SUCCESS)
        return pclr__cl_fail(ctx, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                             "clGetMemObjectInfo(CL_MEM_SIZE) failed with %s (%d) on the %s buffer",
                             pclr__cl_error_name(err), (int)err, which);
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
                ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, ident, &err);
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
            cl_mem m = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)want, NULL, &err);
            if (err != CL_SUCCESS || !m) return pclr__cl_fail_call(ctx, "clCreateBuffer", err, "creating the partials");
            if (ctx->partials) ctx->cl.ReleaseMemObject(ctx->partials); /* pending commands keep it alive */
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
    uint64_t size = 0, ts;
    cl_mem partials = NULL, dst;
    int want = done != NULL;
    if (done) *done = NULL;
    if (!cfg) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    if (!out) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "output buffer is NULL");
    if (!in && n > 0) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "input buffer is NULL");
    if (nw > 0 && !w) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "num_wait > 0 but the wait list is NULL");
    if (ctx->tuned_count && pclr_tune_apply(ctx->tuned, ctx->tuned_count, cfg, n, &c)) cfg = &c;
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
        err = ctx->cl.EnqueueCopyBuffer(ctx->queue, ctx->result, out, 0, (size_t)(out_offset * ts), (size_t)ts, ws.count,
                                  ws.list, (want || ctx->out_of_order) ? &ev : NULL);
        pclr__cl_free(&ctx->allocator, ws.owned);
        if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueCopyBuffer", err, "copying the result");
        if ((r = pclr__cl_track(ctx, ev, want, done)) != PCLR_OK) return r;
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
    err = ctx->cl.EnqueueReadBuffer(ctx->queue, ctx->result, CL_TRUE, 0, ts, result, ws.count, ws.list, NULL);
    pclr__cl_free(&ctx->allocator, ws.owned);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueReadBuffer", err, "reading the result");
    return PCLR_OK;
}

/* ---------------------------------------------------------------- describe */
typedef struct pclr__cl_text { char *buf; size_t cap, len; } pclr__cl_text;

/* ------------------------------------------------------------ tuner */
typedef struct pclr__cl_tuning {
    pclr_cl_context *ctx;
    cl_mem pool, out;
    uint64_t pool_elems, turn;
} pclr__cl_tuning;

/* Nanoseconds from the start of `first` to the end of `last` (profiling queue). */
static double pclr__cl_span(pclr_cl_context *ctx, cl_event first, cl_event last) {
    cl_ulong start = 0, end = 0;
    if (ctx->cl.GetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
        ctx->cl.GetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS || end <= start)
        return -1.0;
    return (double)(end - start);
}

/* Seconds per call of cfg on n elements, pipelined (calls back to back on a
   profiling queue), the median of three batches; each call reads the next
   slice of the pool so that inputs come from memory, not the cache. */
static double pclr__cl_tune_measure(void *user, const pclr_config *cfg, uint64_t n) {
    pclr__cl_tuning *t = (pclr__cl_tuning *)user;
    pclr_cl_context *ctx = t->ctx;
    const uint64_t span = (n + 63) / 64 * 64, slots = t->pool_elems / span ? t->pool_elems / span : 1;
    double secs[3];
    int calls = 1, batch, i;
    if (pclr_cl_prepare(ctx, cfg) != PCLR_OK) return -1.0; /* this device cannot run it */
    for (batch = -1; batch < 3; ++batch) { /* batch -1: warm-up, and sizes the batches to ~2 ms */
        cl_event first = NULL, last = NULL;
        double ns = -1.0;
        for (i = 0; i < calls; ++i) {
            cl_event ev = NULL;
            if (pclr_cl_reduce_async(ctx, cfg, t->pool, (t->turn++ % slots) * span, n, t->out, 0, 0, NULL, &ev) != PCLR_OK)
                break;
            if (!first) first = ev;
            else if (last) ctx->cl.ReleaseEvent(last);
            if (ev != first) last = ev;
        }
        if (i == calls && ctx->cl.Finish(ctx->queue) == CL_SUCCESS) ns = pclr__cl_span(ctx, first, last ? last : first);
        if (first) ctx->cl.ReleaseEvent(first);
        if (last) ctx->cl.ReleaseEvent(last);
        if (ns <= 0) return -1.0;
        if (batch < 0) calls = pclr__tune_batch_calls(ns * 1e-9);
        else secs[batch] = ns * 1e-9 / calls;
    }
    return pclr__tune_median3(secs);
}

/* Fills the pool with the tuners' pattern. */
static pclr_result pclr__cl_tune_fill(pclr_cl_context *ctx, cl_mem pool, uint64_t bytes, pclr_type type) {
    const size_t chunk = (size_t)1 << 20;
    uint64_t done;
    cl_int err = CL_SUCCESS;
    char *host = (char *)pclr__cl_alloc(&ctx->allocator, chunk);
    if (!host) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the tuning input");
    pclr__tune_pattern(type, host, chunk);
    for (done = 0; done < bytes && err == CL_SUCCESS; done += chunk)
        err = ctx->cl.EnqueueWriteBuffer(ctx->queue, pool, CL_TRUE, (size_t)done,
                                         (size_t)(bytes - done < chunk ? bytes - done : chunk), host, 0, NULL, NULL);
    pclr__cl_free(&ctx->allocator, host);
    return err == CL_SUCCESS ? PCLR_OK : pclr__cl_fail_call(ctx, "clEnqueueWriteBuffer", err, "filling the tuning input");
}

PCLR_API pclr_result pclr_cl_tune(pclr_cl_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count) {
    pclr__cl_tuning t;
    pclr_tune_options o;
    pclr_config start;
    pclr_result r;
    cl_command_queue user_queue, timing = NULL;
    cl_event user_last;
    cl_ulong cache = 0;
    cl_int err = CL_SUCCESS;
    uint64_t es, pool_bytes;
    size_t i;
    int user_ooo;
    if (count) *count = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!out || !count) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_tune: %s is NULL", out ? "count" : "out");
    memset(&start, 0, sizeof start);
    start.type = type;
    start.op = op;
    if ((int)type <= 0 || (int)op <= 0) return pclr__cl_fail(ctx, PCLR_ERR_INVALID_ENUM, "pclr_cl_tune: type and op must be set");
    if ((r = pclr_cl_resolve(ctx, &start, &start)) != PCLR_OK) return r;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (!o.max_n) o.max_n = (uint64_t)1 << 26;
    es = pclr_type_size(type);
    if (o.max_n > ((uint64_t)1 << 40) / es)
        return pclr__cl_fail(ctx, PCLR_ERR_SIZE_OVERFLOW, "pclr_cl_tune: max_n %llu is too large", (unsigned long long)o.max_n);
    /* at least 4 x the device's cache so that small inputs rotate through memory */
    ctx->cl.GetDeviceInfo(ctx->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    pool_bytes = o.max_n * es > 4 * (uint64_t)cache ? o.max_n * es : 4 * (uint64_t)cache;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    t.pool_elems = pool_bytes / es;
    /* The sweep runs on a profiling queue of the same context and device,
       swapped in for its duration (the context's queue is drained first). */
    if ((err = ctx->cl.Finish(ctx->queue)) != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clFinish", err, "draining the queue");
    timing = ctx->cl.CreateCommandQueue(ctx->context, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS || !timing)
        return pclr__cl_fail_call(ctx, "clCreateCommandQueue", err, "creating the tuner's profiling queue");
    user_queue = ctx->queue;
    user_ooo = ctx->out_of_order;
    user_last = ctx->last;
    ctx->queue = timing;
    ctx->out_of_order = 0;
    ctx->last = NULL;
    t.pool = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)pool_bytes, NULL, &err);
    if (err != CL_SUCCESS || !t.pool) {
        t.pool = NULL;
        r = pclr__cl_fail_call(ctx, "clCreateBuffer", err, "allocating the tuning input");
    } else if (!(t.out = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE, 8, NULL, &err)) || err != CL_SUCCESS) {
        t.out = NULL;
        r = pclr__cl_fail_call(ctx, "clCreateBuffer", err, "allocating the tuning result");
    } else if ((r = pclr__cl_tune_fill(ctx, t.pool, pool_bytes, type)) == PCLR_OK) {
        r = pclr_tune_sweep(&start, &o, pclr__cl_tune_measure, &t, out, cap, count);
    }
    ctx->cl.Finish(timing);
    if (t.out) ctx->cl.ReleaseMemObject(t.out);
    if (t.pool) ctx->cl.ReleaseMemObject(t.pool);
    if (ctx->last) ctx->cl.ReleaseEvent(ctx->last);
    ctx->queue = user_queue;
    ctx->out_of_order = user_ooo;
    ctx->last = user_last;
    ctx->cl.ReleaseCommandQueue(timing);
    if (r != PCLR_OK) {
        *count = 0;
        if (r == PCLR_ERR_BUFFER_TOO_SMALL)
            return pclr__cl_fail(ctx, r, "pclr_cl_tune: out needs room for %d entries", PCLR_TUNE_CLASSES);
        return r;
    }
    for (i = 0; i < *count; ++i) {
        pclr__cl_copy(out[i].device, sizeof out[i].device, ctx->features.device_name);
        pclr__cl_copy(out[i].driver, sizeof out[i].driver, ctx->features.driver_version);
    }
    if ((r = pclr__tune_add(&ctx->allocator, &ctx->tuned, &ctx->tuned_count, out, *count)) != PCLR_OK)
        return pclr__cl_fail(ctx, r, "pclr_cl_tune: out of host memory for the tuned entries");
    return PCLR_OK;
}

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
        pclr__appendf(t.buf, t.cap, &t.len, "OpenCL library: %s\n", ctx->library);
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
        pclr__appendf(t.buf, t.cap, &t.len, "disk cache: %s (%lu loaded, %lu stored)\n",
                      ctx->cache_dir[0] ? ctx->cache_dir : "off", (unsigned long)ctx->disk_hits,
                      (unsigned long)ctx->disk_stores);
        pclr__appendf(t.buf, t.cap, &t.len, "tuned: %lu entries for this device\n", (unsigned long)ctx->tuned_count);
    }
    if (buf && cap > 0) buf[t.len < cap ? t.len : cap - 1] = '\0';
    return t.len;
}

#ifdef __cplusplus
}
#endif

#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_CL_IMPLEMENTED */
