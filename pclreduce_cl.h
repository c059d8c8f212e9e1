/* pclreduce_cl.h - OpenCL backend of pclreduce: reductions over cl_mem on any
   OpenCL 1.2+ device (NVIDIA, AMD, Intel, PoCL on the CPU). Use: define
   PCLREDUCE_IMPLEMENTATION and PCLREDUCE_OPENCL in one file, include pclreduce.h.

   The OpenCL library is loaded at run time (dlopen; LoadLibrary on Windows)
   into a table per context (pclr_cl_api; programs call it for their own
   buffers: pclr_cl_get_api, pclr_cl_load_api), so programs link -ldl only;
   PCLREDUCE_NO_RUNTIME_LINKING takes the linked functions (-lOpenCL). First
   found wins: desc.opencl_api (used as is), desc.opencl_library,
   $PCLR_OPENCL_LIBRARY, libOpenCL.so.1, libOpenCL.so (OpenCL.dll; macOS the
   framework); an explicit path that fails is an error. A loaded library is
   never unloaded: the ICD loader would leak its driver list at every cycle.

   A context holds the caller's (or its own) cl_context, device and queue
   (retained), the device's features, the engine's programs and its scratch
   buffers. Errors, allocator, NULL contexts: the contract in pclreduce.h.
   Resource errors (out of host memory or resources) are never taken for a
   missing feature. Not thread-safe: one thread at a time per context;
   contexts may share a cl_context and a queue, in-order or out-of-order.
   Options: CL_TARGET_OPENCL_VERSION (default 120). License: MIT (the full text is at the end of this file). */
#ifndef PCLREDUCE_CL_H
#define PCLREDUCE_CL_H

#ifndef PCLREDUCE_OPENCL
#define PCLREDUCE_OPENCL /* the generic context can pick this backend */
#endif
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

PCLR_EXTERN_C_BEGIN

/* The OpenCL entry points the backend calls, plus the few a program needs to
   make and fill buffers and wait on events: X(return type, field, parameters,
   symbol); api->CreateBuffer is clCreateBuffer. A caller's table must set
   every one. */
#define PCLR_OPENCL_ENTRY_POINTS(X)                                                                                    \
    X(cl_int, GetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *), "clGetPlatformIDs")                              \
    X(cl_int, GetPlatformInfo, (cl_platform_id, cl_platform_info, size_t, void *, size_t *), "clGetPlatformInfo")      \
    X(cl_int, GetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *), "clGetDeviceIDs")    \
    X(cl_int, GetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *), "clGetDeviceInfo")              \
    X(cl_int, RetainDevice, (cl_device_id), "clRetainDevice")                                                          \
    X(cl_int, ReleaseDevice, (cl_device_id), "clReleaseDevice")                                                        \
    X(cl_context, CreateContext, (const cl_context_properties *, cl_uint, const cl_device_id *,                        \
      void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *,                                         \
      cl_int *), "clCreateContext")                                                                                    \
    X(cl_int, GetContextInfo, (cl_context, cl_context_info, size_t, void *, size_t *), "clGetContextInfo")             \
    X(cl_int, RetainContext, (cl_context), "clRetainContext")                                                          \
    X(cl_int, ReleaseContext, (cl_context), "clReleaseContext")                                                        \
    X(cl_command_queue, CreateCommandQueue, (cl_context, cl_device_id, cl_command_queue_properties, cl_int *),         \
      "clCreateCommandQueue")                                                                                          \
    X(cl_int, GetCommandQueueInfo, (cl_command_queue, cl_command_queue_info, size_t, void *, size_t *),                \
      "clGetCommandQueueInfo")                                                                                         \
    X(cl_int, RetainCommandQueue, (cl_command_queue), "clRetainCommandQueue")                                          \
    X(cl_int, ReleaseCommandQueue, (cl_command_queue), "clReleaseCommandQueue")                                        \
    X(cl_int, Flush, (cl_command_queue), "clFlush") X(cl_int, Finish, (cl_command_queue), "clFinish")                  \
    X(cl_mem, CreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *), "clCreateBuffer")                    \
    X(cl_int, GetMemObjectInfo, (cl_mem, cl_mem_info, size_t, void *, size_t *), "clGetMemObjectInfo")                 \
    X(cl_int, RetainMemObject, (cl_mem), "clRetainMemObject")                                                          \
    X(cl_int, ReleaseMemObject, (cl_mem), "clReleaseMemObject")                                                        \
    X(cl_int, EnqueueReadBuffer, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,                  \
      const cl_event *, cl_event *), "clEnqueueReadBuffer")                                                            \
    X(cl_int, EnqueueWriteBuffer, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,           \
      const cl_event *, cl_event *), "clEnqueueWriteBuffer")                                                           \
    X(cl_int, EnqueueCopyBuffer, (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,                   \
      const cl_event *, cl_event *), "clEnqueueCopyBuffer")                                                            \
    X(cl_int, EnqueueFillBuffer, (cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint,             \
      const cl_event *, cl_event *), "clEnqueueFillBuffer")                                                            \
    X(cl_program, CreateProgramWithSource, (cl_context, cl_uint, const char **, const size_t *, cl_int *),             \
      "clCreateProgramWithSource")                                                                                     \
    X(cl_program, CreateProgramWithBinary, (cl_context, cl_uint, const cl_device_id *, const size_t *,                 \
      const unsigned char **, cl_int *, cl_int *), "clCreateProgramWithBinary")                                        \
    X(cl_int, BuildProgram, (cl_program, cl_uint, const cl_device_id *, const char *,                                  \
      void(CL_CALLBACK *)(cl_program, void *), void *), "clBuildProgram")                                              \
    X(cl_int, GetProgramInfo, (cl_program, cl_program_info, size_t, void *, size_t *), "clGetProgramInfo")             \
    X(cl_int, GetProgramBuildInfo, (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *),        \
      "clGetProgramBuildInfo")                                                                                         \
    X(cl_int, RetainProgram, (cl_program), "clRetainProgram")                                                          \
    X(cl_int, ReleaseProgram, (cl_program), "clReleaseProgram")                                                        \
    X(cl_kernel, CreateKernel, (cl_program, const char *, cl_int *), "clCreateKernel")                                 \
    X(cl_int, GetKernelWorkGroupInfo, (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *,             \
      size_t *), "clGetKernelWorkGroupInfo")                                                                           \
    X(cl_int, SetKernelArg, (cl_kernel, cl_uint, size_t, const void *), "clSetKernelArg")                              \
    X(cl_int, RetainKernel, (cl_kernel), "clRetainKernel") X(cl_int, ReleaseKernel, (cl_kernel), "clReleaseKernel")    \
    X(cl_int, EnqueueNDRangeKernel, (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,             \
      const size_t *, cl_uint, const cl_event *, cl_event *), "clEnqueueNDRangeKernel")                                \
    X(cl_int, WaitForEvents, (cl_uint, const cl_event *), "clWaitForEvents")                                           \
    X(cl_int, GetEventInfo, (cl_event, cl_event_info, size_t, void *, size_t *), "clGetEventInfo")                     \
    X(cl_int, GetEventProfilingInfo, (cl_event, cl_profiling_info, size_t, void *, size_t *),                          \
      "clGetEventProfilingInfo")                                                                                       \
    X(cl_int, RetainEvent, (cl_event), "clRetainEvent") X(cl_int, ReleaseEvent, (cl_event), "clReleaseEvent")

/* Those a table may leave NULL (the blocking call then reads into the caller's stack memory). */
#define PCLR_OPENCL_OPTIONAL_ENTRY_POINTS(X)                                                                           \
    X(void *, EnqueueMapBuffer, (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,             \
      const cl_event *, cl_event *, cl_int *), "clEnqueueMapBuffer")                                                   \
    X(cl_int, EnqueueUnmapMemObject, (cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *),        \
      "clEnqueueUnmapMemObject")

#define PCLR__CL_FIELD(ret, name, params, sym) ret(CL_API_CALL *name) params;
typedef struct pclr_cl_api {
    PCLR_OPENCL_ENTRY_POINTS(PCLR__CL_FIELD)
    PCLR_OPENCL_OPTIONAL_ENTRY_POINTS(PCLR__CL_FIELD)
} pclr_cl_api;
#undef PCLR__CL_FIELD

/* Which device pclr_cl_create_default_desc takes (pclr_cl_create wraps the
   caller's context and ignores these). One rule, checked in this order:
   1. desc.platform_number or desc.device_number != 0: both come from the desc
      and the function's index arguments are ignored. platform_number 0 = every
      platform, k > 0 = only platform k - 1; device_number 0 = the best device
      (GPU, then accelerator, then CPU), k > 0 = device k - 1, counted over
      every platform in platform order or within platform_number's; a
      negative one is PCLR_ERR_NO_DEVICE;
   2. else the arguments (platform_index, device_index), the old spelling kept
      as it was: -1 = every platform / the best device, k >= 0 = index k.
   pclr_cl_create_default(p, d) is rule 2 with a zero desc. The numbering of
   rule 1 is pclr_desc.device / pclr_desc.platform's, the same in every backend. */
typedef struct pclr_cl_desc {
    cl_context context;          /* required by pclr_cl_create; NULL for pclr_cl_create_default_desc */
    cl_device_id device;         /* may be NULL: the queue's device */
    cl_command_queue queue;      /* required by pclr_cl_create; NULL for pclr_cl_create_default_desc */
    /* the three are the caller's; retained by the context, released at destroy */
    PCLR_DESC_COMMON             /* allocator, caches, tuning file, error: as in pclr_desc */
    const char *opencl_library;
    const pclr_cl_api *opencl_api;
    int platform_number;         /* pclr_cl_create_default_desc: 0 = every platform, k > 0 = platform k - 1 (see above) */
    int device_number;           /* pclr_cl_create_default_desc: 0 = the best device, k > 0 = device k - 1 (see above) */
} pclr_cl_desc;
typedef struct pclr_cl_features {
    char platform_name[128], device_name[256], vendor[128], driver_version[128];
    int opencl_c_major, opencl_c_minor;  /* CL_DEVICE_OPENCL_C_VERSION */
    int nvidia;          /* NVIDIA platform: inline PTX shfl.sync accepted (verified by a tiny test build) */
    int nvidia_major;    /* its compute capability's major (cl_nv_device_attribute_query), 0 unknown */
    int collectives;     /* a -cl-std=CL2.0 kernel using work_group_reduce_add/min/max builds */
    int khr_subgroups, intel_subgroups, int32_atomics, int64_atomics, fp64;
    int cpu;             /* CL_DEVICE_TYPE_CPU: defaults switch to local stride, groups of 128, unroll 32, 8 per unit */
    uint32_t compute_units, max_group_size, wave_width; /* wave: CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
                                                           of a test kernel, clamped to 32 or 64 */
    pclr_variant best_variant; /* SHUFFLE on NVIDIA, else COLLECTIVE if collectives, else UNROLLED */
} pclr_cl_features;

typedef struct pclr_cl_context pclr_cl_context;

/* What a generic OpenCL context runs on, for the program's own commands: its context, device and
   queue (the program may enqueue on the queue; pclr_reduce_async's events order the two), the
   entry points it loaded, what it found out about the device. */
typedef struct pclr_cl_native {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    const pclr_cl_api *api;
    const pclr_cl_features *features;
} pclr_cl_native;
/* PCLR_ERR_INVALID_CONTEXT for NULL, PCLR_ERR_INVALID_ARGUMENT for a context of another backend. */
PCLR_API pclr_result pclr_cl_get_native(const pclr_context *ctx, pclr_cl_native *out);

/* Deprecated (0.4; removed in 0.5), with what replaces them: the OpenCL context of its own
   (pclr_cl_create*: pclr_create with desc.backends = {PCLR_OPENCL}, the program's own objects in
   desc.opencl; pclr_cl_destroy, _resolve, _prepare, _tune, _build_log, _last_error, _describe: the
   generic pclr_* call; _get_api, _get_features, _get_cl_context, _get_queue: pclr_cl_get_native;
   pclr_context_cl: not needed). */

/* Wraps the user's context, device and queue (retained). On error *out is NULL. */
PCLR_DEPRECATED pclr_result pclr_cl_create(const pclr_cl_desc *desc, pclr_cl_context **out);
/* Creates its own context + in-order queue. The arguments are the old
   0-based spelling (kept; new code sets desc.platform_number /
   desc.device_number, see above): platform_index >= 0 picks a platform,
   device_index >= 0 a device within it (with platform_index -1: the
   device_index-th device over all platforms); -1 / -1 = the best device: a
   GPU first, then an accelerator, then a CPU. PCLR_ERR_NO_DRIVER without any
   platform, PCLR_ERR_NO_DEVICE for an index out of range or no device. */
PCLR_DEPRECATED pclr_result pclr_cl_create_default(int platform_index, int device_index, pclr_cl_context **out);
/* The same with a desc for the library, table, allocator, caches, error and
   the device (desc may be NULL; its context, device and queue must be NULL):
   a nonzero desc.platform_number or desc.device_number replaces both index
   arguments (pass -1, -1 with them). */
PCLR_DEPRECATED pclr_result pclr_cl_create_default_desc(const pclr_cl_desc *desc, int platform_index, int device_index,
                                                 pclr_cl_context **out);
PCLR_DEPRECATED void pclr_cl_destroy(pclr_cl_context *ctx); /* NULL is fine */
/* The context's OpenCL entry points, for the program's own buffers and events
   (a copy may outlive the context; NULL for a NULL context). */
PCLR_DEPRECATED const pclr_cl_api *pclr_cl_get_api(const pclr_cl_context *ctx);
/* A table without a context (e.g. to list platforms), loaded as create does
   (path NULL: $PCLR_OPENCL_LIBRARY, else the usual names); PCLR_ERR_NO_DRIVER
   with a sentence in why (may be NULL) and *api zeroed. */
PCLR_API pclr_result pclr_cl_load_api(const char *path, pclr_cl_api *api, char *why, size_t why_cap);
PCLR_DEPRECATED const pclr_cl_features *pclr_cl_get_features(const pclr_cl_context *ctx);
PCLR_DEPRECATED cl_context pclr_cl_get_cl_context(const pclr_cl_context *ctx);
PCLR_DEPRECATED cl_command_queue pclr_cl_get_queue(const pclr_cl_context *ctx);
/* Backend OpenCL where 0, the device's defaults (best variant, wave width;
   on CPUs local stride, groups of 128, unroll 32), pclr_config_resolve, then
   what the device can run: double without fp64 -> PCLR_ERR_NO_FP64; shuffle
   off NVIDIA, collective without OpenCL 2.0 collectives, group above the
   device's limit -> PCLR_ERR_UNSUPPORTED_BY_DEVICE; backend cuda ->
   PCLR_ERR_UNSUPPORTED_COMBINATION. */
PCLR_DEPRECATED pclr_result pclr_cl_resolve(pclr_cl_context *ctx, const pclr_config *cfg, pclr_config *out);
/* Builds (and caches) the program for cfg now instead of at first use. */
PCLR_DEPRECATED pclr_result pclr_cl_prepare(pclr_cl_context *ctx, const pclr_config *cfg);
/* Deprecated (0.4; removed in 0.5): the reduce verbs below are thin wrappers of the generic
   pclr_reduce / pclr_reduce_async (their cl_mems wrapped as pclr_cl_buffer wraps them; blocking
   results unsized, taken on trust).
   Blocking: reduces n elements of `in` starting at element `offset`; the
   one-element result lands in *result. n = 0 gives the identity (in may then
   be NULL). The blocking read of the result is the only synchronisation.
   A buffer made with CL_MEM_USE_HOST_PTR (or a sub-buffer of one) at a host
   address not aligned to the element size is PCLR_ERR_MISALIGNED. */
PCLR_DEPRECATED pclr_result pclr_cl_reduce(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                    uint64_t n, void *result);
/* Asynchronous: the result is written to element out_offset of `out`. The
   first command waits on the wait list; *done (if done is not NULL) gets an
   event for the last command, which the caller releases. A reduction is one
   kernel launch, except: finish=partials with more than one group (a second,
   one-group pass) and out_offset != 0 (a 1-element copy from a staging cell);
   profiling `done` then times only that last command. */
PCLR_DEPRECATED pclr_result pclr_cl_reduce_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset,
                                          uint64_t n, cl_mem out, uint64_t out_offset, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done);
/* With a map (pclr_config.map): its second input y (NULL when it has none)
   at element y_offset, and its parameters' values in their order (NULL when
   it has none); x as `in` above. The plain calls take maps without y or parameters. */
PCLR_DEPRECATED pclr_result pclr_cl_reduce_map(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                        uint64_t y_offset, uint64_t n, const double *params, void *result);
PCLR_DEPRECATED pclr_result pclr_cl_reduce_map_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                              uint64_t y_offset, uint64_t n, const double *params, cl_mem out, uint64_t out_offset,
                                              cl_uint num_wait, const cl_event *wait, cl_event *done);
/* A layout (cfg.layout; docs/layouts.md; the arguments
   as pclr_reduce_batched's): for SEGMENTS, `offsets` holds K + 1 uint64,
   checked on the device against n. Blocking: one result per row, column or
   segment into results (host memory). Async: one state per result into
   out, events as in pclr_cl_reduce_async. */
PCLR_DEPRECATED pclr_result pclr_cl_reduce_batched(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                            uint64_t y_offset, const double *params, cl_mem offsets, uint64_t n, void *results);
PCLR_DEPRECATED pclr_result pclr_cl_reduce_batched_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                                  uint64_t y_offset, const double *params, cl_mem offsets, uint64_t n, cl_mem out,
                                                  cl_uint num_wait, const cl_event *wait, cl_event *done);
/* The tuner (see pclr_tune), timed by profiling events on a queue of the same context. */
PCLR_DEPRECATED pclr_result pclr_cl_tune(pclr_cl_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count);
/* A program's cl_mem as a buffer of a generic OpenCL context, for pclr_input and pclr_reduce_async
   (no allocation: out is the caller's; its size and host address are asked of the driver once). */
PCLR_API pclr_result pclr_cl_buffer(pclr_context *ctx, cl_mem mem, pclr_buffer *out);
/* The generic context's OpenCL context and a buffer's cl_mem (NULL on another backend). */
PCLR_DEPRECATED pclr_cl_context *pclr_context_cl(const pclr_context *ctx);
PCLR_API cl_mem pclr_buffer_cl(const pclr_context *ctx, const pclr_buffer *buf);
/* The log of the last build ("" if none), the last failure's sentence (which
   OpenCL call failed with which code), and describe (device, features, the
   default path, caches): as the generic context's. */
PCLR_DEPRECATED const char *pclr_cl_build_log(const pclr_cl_context *ctx);
PCLR_DEPRECATED const char *pclr_cl_last_error(const pclr_cl_context *ctx);
PCLR_DEPRECATED size_t pclr_cl_describe(const pclr_cl_context *ctx, char *buf, size_t cap);

PCLR_EXTERN_C_END
#endif /* PCLREDUCE_CL_H */

/* ====================================================================== */
/* The implementation: the backend's slots of the engine (pclreduce.h). Its
   functions take C linkage from their declarations above. */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_CL_IMPLEMENTED)
#define PCLREDUCE_CL_IMPLEMENTED
PCLR__DEPRECATED_OK_BEGIN

#define PCLR__CL_SLOTS 6 /* (uint|int) x (sum|min|max): the atomic finish's running values */

struct pclr_cl_context {
    pclr__engine e;                 /* first: the engine's view of this context */
    pclr_cl_api cl;                 /* every OpenCL call goes through this table */
    char library[256];              /* where the table came from, for describe */
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    int out_of_order;
    pclr_cl_features features;
    size_t raw_wave;                /* the preferred multiple as reported */
    cl_ulong local_mem;
    cl_ulong max_alloc;             /* CL_DEVICE_MAX_MEM_ALLOC_SIZE (0: not answered) */
    cl_mem counter;                 /* one uint, 0 between launches (the kernels reset it) */
    cl_mem result;                  /* 8 bytes: blocking results, staging for out_offset != 0 */
    cl_mem pinned;                  /* 64 bytes of pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped for */
    void *pinned_ptr;               /* good: where blocking results land (NULL: no such memory) */
    cl_mem partials;                /* per-group partials, grown on demand */
    size_t partials_bytes;
    cl_mem slots[PCLR__CL_SLOTS];   /* created on first use, identity between launches */
    cl_mem zeroed;                  /* the exact sum's cells: created zero on first use, zero between launches */
    cl_mem hist;                    /* a histogram's counts (PCLR__HIST_SCRATCH_BYTES): the same */
    cl_mem lay_ctl;                 /* layouts: the segments' status word, then the tickets of shared rows (zero between launches) */
    cl_mem lay_states;              /* layouts, blocking: the states before they are read back (grown on demand) */
    size_t lay_states_bytes;
    cl_event last;                  /* out-of-order queue: this context's last command */
    cl_command_queue user_queue;    /* the tuner's: the caller's queue while a profiling one runs */
    cl_event user_last;
    int user_ooo;
};

/* A built program and its kernel (stateful: its arguments are set at every launch). */
typedef struct pclr__cl_program {
    cl_program program;
    cl_kernel kernel;
    size_t max_group;               /* CL_KERNEL_WORK_GROUP_SIZE (advisory: NVIDIA under-reports it) */
} pclr__cl_program;

#define pclr__cl_fail(ctx, ...) pclr__fail(&(ctx)->e, __VA_ARGS__)

static const char *pclr__cl_error_name(cl_int e) {
    static const struct { int code; const char *name; } names[] = {
        {0, "CL_SUCCESS"}, {-1, "CL_DEVICE_NOT_FOUND"}, {-2, "CL_DEVICE_NOT_AVAILABLE"}, {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"}, {-5, "CL_OUT_OF_RESOURCES"}, {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"}, {-8, "CL_MEM_COPY_OVERLAP"}, {-9, "CL_IMAGE_FORMAT_MISMATCH"},
        {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"}, {-11, "CL_BUILD_PROGRAM_FAILURE"}, {-12, "CL_MAP_FAILURE"},
        {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"}, {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
        {-15, "CL_COMPILE_PROGRAM_FAILURE"}, {-16, "CL_LINKER_NOT_AVAILABLE"}, {-17, "CL_LINK_PROGRAM_FAILURE"},
        {-30, "CL_INVALID_VALUE"}, {-31, "CL_INVALID_DEVICE_TYPE"}, {-32, "CL_INVALID_PLATFORM"}, {-33, "CL_INVALID_DEVICE"},
        {-34, "CL_INVALID_CONTEXT"}, {-35, "CL_INVALID_QUEUE_PROPERTIES"}, {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-37, "CL_INVALID_HOST_PTR"}, {-38, "CL_INVALID_MEM_OBJECT"}, {-42, "CL_INVALID_BINARY"},
        {-43, "CL_INVALID_BUILD_OPTIONS"}, {-44, "CL_INVALID_PROGRAM"}, {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"}, {-47, "CL_INVALID_KERNEL_DEFINITION"}, {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"}, {-50, "CL_INVALID_ARG_VALUE"}, {-51, "CL_INVALID_ARG_SIZE"},
        {-52, "CL_INVALID_KERNEL_ARGS"}, {-53, "CL_INVALID_WORK_DIMENSION"}, {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-55, "CL_INVALID_WORK_ITEM_SIZE"}, {-56, "CL_INVALID_GLOBAL_OFFSET"}, {-57, "CL_INVALID_EVENT_WAIT_LIST"},
        {-58, "CL_INVALID_EVENT"}, {-59, "CL_INVALID_OPERATION"}, {-61, "CL_INVALID_BUFFER_SIZE"},
        {-63, "CL_INVALID_GLOBAL_WORK_SIZE"}, {-64, "CL_INVALID_PROPERTY"}, {-66, "CL_INVALID_COMPILER_OPTIONS"},
        {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"}, {-1001, "CL_PLATFORM_NOT_FOUND_KHR"}};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (names[i].code == e) return names[i].name;
    return "an unknown OpenCL error";
}

/* Out of host memory or device resources: a passing condition, never taken
   for a missing feature or an unsupported query. */
static int pclr__cl_resource_error(cl_int err) {
    return err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

/* An OpenCL call failed: remember which, map the code to a result. */
static pclr_result pclr__cl_fail_call(pclr_cl_context *ctx, const char *call, cl_int err, const char *doing) {
    pclr_result r = pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY
                  : err == CL_INVALID_WORK_GROUP_SIZE ? PCLR_ERR_UNSUPPORTED_BY_DEVICE : PCLR_ERR_BACKEND;
    return pclr__cl_fail(ctx, r, "%s failed with %s (%d) while %s", call, pclr__cl_error_name(err), (int)err, doing);
}

/* ------------------------------------------------------------ library loading */
#define PCLR__CL_SYM(ret, name, params, sym) {sym, offsetof(pclr_cl_api, name), 0},
#define PCLR__CL_OPT(ret, name, params, sym) {sym, offsetof(pclr_cl_api, name), 1},
static const pclr__symbol pclr__cl_syms[] = {PCLR_OPENCL_ENTRY_POINTS(PCLR__CL_SYM) PCLR_OPENCL_OPTIONAL_ENTRY_POINTS(PCLR__CL_OPT)};
#undef PCLR__CL_SYM
#undef PCLR__CL_OPT

#ifdef PCLREDUCE_NO_RUNTIME_LINKING
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* clCreateCommandQueue under OpenCL 2.0+ headers */
#endif
static void pclr__cl_link(void *table) {
    pclr_cl_api *api = (pclr_cl_api *)table;
#define PCLR__CL_LINK(ret, field, params, sym) api->field = cl##field;
    PCLR_OPENCL_ENTRY_POINTS(PCLR__CL_LINK)
    PCLR_OPENCL_OPTIONAL_ENTRY_POINTS(PCLR__CL_LINK)
#undef PCLR__CL_LINK
}
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
#else
#define pclr__cl_link NULL
#endif

#if defined(_WIN32)
static const char *const pclr__cl_names[] = {"OpenCL.dll"};
#elif defined(__APPLE__)
static const char *const pclr__cl_names[] = {"/System/Library/Frameworks/OpenCL.framework/OpenCL"};
#else
static const char *const pclr__cl_names[] = {"libOpenCL.so.1", "libOpenCL.so"};
#endif
static const pclr__library pclr__cl_library = {
    "OpenCL library", "PCLR_OPENCL_LIBRARY", "desc.opencl_library", "desc.opencl_api",
    "install an ICD loader and a driver, e.g. ocl-icd-libopencl1 and pocl-opencl-icd, or set PCLR_OPENCL_LIBRARY",
    pclr__cl_names, sizeof pclr__cl_names / sizeof pclr__cl_names[0], pclr__cl_syms,
    sizeof pclr__cl_syms / sizeof pclr__cl_syms[0], pclr__cl_link, NULL};

/* The table a desc asks for (the OpenCL library stays loaded: see the top). */
static pclr_result pclr__cl_table(const pclr_cl_api *given, const char *path, pclr_cl_api *api, char *name, size_t name_cap,
                                  char *why, size_t why_cap) {
    void *lib;
    return pclr__library_open(&pclr__cl_library, given, path, pclr__cl_names, pclr__cl_library.count, api, sizeof *api, &lib,
                              name, name_cap, why, why_cap);
}

PCLR_API pclr_result pclr_cl_load_api(const char *path, pclr_cl_api *api, char *why, size_t why_cap) {
    return pclr__load_api(&pclr__cl_library, path, api, sizeof *api, why, why_cap);
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
    pclr__copy(dst, cap, tmp);
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
    cl_ulong cache = 0;
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
        pclr__copy(f->platform_name, sizeof f->platform_name, tmp);
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
        (r = PCLR__CL_QUERY(CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0, sizeof ctx->max_alloc, &ctx->max_alloc)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_DOUBLE_FP_CONFIG, 0, sizeof dfp, &dfp)) != PCLR_OK ||
        (r = PCLR__CL_QUERY(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, 0, sizeof cache, &cache)) != PCLR_OK)
        return r;
    ctx->e.cache_bytes = cache;
    if ((err = ctx->cl.GetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL)) != CL_SUCCESS)
        return pclr__cl_fail_call(ctx, "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)", err, "detecting the queue's ordering");
    ctx->out_of_order = (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    if (!units) units = 1;
    if (!maxg) maxg = 1;
    f->compute_units = units;
    f->max_group_size = maxg > 0xffffffffu ? 0xffffffffu : (uint32_t)maxg;
    f->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    ctx->e.facts.compute_units = f->compute_units;
    ctx->e.facts.max_group_size = f->max_group_size;

    if ((err = ctx->cl.GetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size)) != CL_SUCCESS) {
        if (pclr__cl_resource_error(err))
            return pclr__cl_fail_call(ctx, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)", err, "detecting the device's features");
        ext_size = 0;
    }
    ext = (char *)pclr__alloc(&ctx->e, ext_size + 1);
    if (!ext) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the device's extension list");
    ext[0] = '\0';
    if (ext_size && (err = ctx->cl.GetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL)) != CL_SUCCESS) {
        pclr__free(&ctx->e, ext);
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
        pclr__free(&ctx->e, ext);
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
            cl_uint major = 0; /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
            f->nvidia = 1;
            ctx->cl.ReleaseProgram(p);
            if (ctx->cl.GetDeviceInfo(ctx->device, 0x4000, sizeof major, &major, NULL) == CL_SUCCESS) f->nvidia_major = (int)major;
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
static void pclr__cl_ops(pclr__backend_ops *ops);

static pclr_result pclr__cl_create_on(const pclr_cl_desc *desc, const pclr_cl_api *api, const char *library,
                                      pclr_cl_context **out) {
    pclr_cl_context *ctx;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_int err;
    cl_uint zero = 0;
    unsigned char zeros[64]; /* the largest state */
    pclr_allocator a;
    pclr_result r;
    if ((err = api->GetCommandQueueInfo(desc->queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL)) != CL_SUCCESS ||
        (err = api->GetCommandQueueInfo(desc->queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL)) != CL_SUCCESS)
        return pclr__say(desc->error, desc->error_cap,
                            pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_INVALID_CONTEXT,
                            "clGetCommandQueueInfo failed with %s (%d) on desc.queue", pclr__cl_error_name(err),
                            (int)err);
    if (qctx != desc->context || !qdev || (desc->device && desc->device != qdev))
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_INVALID_CONTEXT,
                            "desc.queue belongs to another cl_context or device than desc.context / desc.device");

    pclr__allocator_of(&desc->allocator, &a); /* checked by every create */
    ctx = (pclr_cl_context *)a.alloc(sizeof *ctx, a.user);
    if (!ctx) return pclr__say(desc->error, desc->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    memset(ctx, 0, sizeof *ctx);
    pclr__engine_init(&ctx->e, pclr__cl_ops, &a);
    ctx->cl = *api;
    pclr__copy(ctx->library, sizeof ctx->library, library);
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
    /* pinned host memory for blocking results, mapped for good (the driver's DMA target; without
       it the read goes through a staging copy). Optional: without it results are read directly. */
    if (ctx->cl.EnqueueMapBuffer && ctx->cl.EnqueueUnmapMemObject) {
        ctx->pinned = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
        if (err != CL_SUCCESS) ctx->pinned = NULL;
        if (ctx->pinned) ctx->pinned_ptr = ctx->cl.EnqueueMapBuffer(ctx->queue, ctx->pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64, 0,
                                                                   NULL, NULL, &err);
        if (ctx->pinned && (err != CL_SUCCESS || !ctx->pinned_ptr)) {
            ctx->pinned_ptr = NULL;
            ctx->cl.ReleaseMemObject(ctx->pinned);
            ctx->pinned = NULL;
        }
        err = CL_SUCCESS;
    }
    /* the engine's view */
    pclr__copy(ctx->e.device, sizeof ctx->e.device, ctx->features.device_name);
    pclr__copy(ctx->e.driver, sizeof ctx->e.driver, ctx->features.driver_version);
    snprintf(ctx->e.build_id, sizeof ctx->e.build_id, "opencl %s / %s / %s", ctx->features.platform_name,
             ctx->features.device_name, ctx->features.driver_version);
    pclr__engine_files(&ctx->e, desc->cache_dir, desc->no_disk_cache, desc->tune_file, desc->no_tune_file);
    ctx->e.last_error[0] = '\0'; /* probing leaves no error behind */
    *out = ctx;
    return PCLR_OK;
fail:
    pclr__say(desc->error, desc->error_cap, r, "%s", ctx->e.last_error);
    pclr_cl_destroy(ctx);
    return r;
}



PCLR_API pclr_result pclr_cl_create(const pclr_cl_desc *desc, pclr_cl_context **out) {
    pclr_allocator a;
    pclr_cl_api api;
    char library[256];
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) return PCLR_ERR_NULL_POINTER;
    if ((r = pclr__create_check("pclr_cl_create", desc->error, desc->error_cap, out != NULL, &desc->allocator, &a)) != PCLR_OK)
        return r;
    if (!desc->context || !desc->queue)
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER,
                            "pclr_cl_create: desc.context and desc.queue are required (pclr_cl_create_default_desc "
                            "makes its own)");
    if ((r = pclr__cl_table(desc->opencl_api, desc->opencl_library, &api, library, sizeof library, desc->error, desc->error_cap)) != PCLR_OK)
        return r;
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

/* Walks the devices in the order pclr_cl_create_default numbers them
   (platform_index >= 0: that platform's only) and finds the device_index-th
   (>= 0) or the best one (-1); *seen: how many devices were walked. No device
   found is PCLR_OK with *best_dev NULL (the caller says why). */
static pclr_result pclr__cl_find_device(const pclr_cl_api *api, const char *library, int platform_index, int device_index,
                                        char *e, size_t ecap, cl_platform_id *best_plat_out, cl_device_id *best_dev_out,
                                        cl_uint *seen_out) {
    enum { MAXP = 32, MAXD = 64 };
    cl_platform_id plats[MAXP], best_plat = NULL;
    cl_device_id devs[MAXD], best_dev = NULL;
    cl_uint np = 0, pi, seen = 0;
    int best_rank = 100;
    cl_int err;
    *best_plat_out = NULL;
    *best_dev_out = NULL;
    *seen_out = 0;
    err = api->GetPlatformIDs(MAXP, plats, &np);
    /* -1001: CL_PLATFORM_NOT_FOUND_KHR, the ICD loader found no driver */
    if (err == -1001 || (err == CL_SUCCESS && np == 0))
        return pclr__say(e, ecap, PCLR_ERR_NO_DRIVER,
                            "no OpenCL platform (%s found no driver: install an ICD such as pocl-opencl-icd)", library);
    if (err != CL_SUCCESS)
        return pclr__say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DRIVER,
                            "clGetPlatformIDs failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    if (np > MAXP) np = MAXP;
    if (platform_index >= 0 && (cl_uint)platform_index >= np)
        return pclr__say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL platform %d (there are %u)", platform_index,
                            (unsigned)np);
    for (pi = 0; pi < np; ++pi) {
        cl_uint nd = 0, di;
        if (platform_index >= 0 && pi != (cl_uint)platform_index) continue;
        if ((err = api->GetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, MAXD, devs, &nd)) != CL_SUCCESS) {
            /* a platform without devices is fine; anything else would shift the device indices */
            if (err != CL_DEVICE_NOT_FOUND)
                return pclr__say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DEVICE,
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
                    return pclr__say(e, ecap, PCLR_ERR_OUT_OF_MEMORY,
                                        "clGetDeviceInfo failed with %s (%d) while ranking the devices",
                                        pclr__cl_error_name(err), (int)err);
                if (rank < best_rank) { best_rank = rank; best_plat = plats[pi]; best_dev = devs[di]; }
            }
        }
    }
    *best_plat_out = best_plat;
    *best_dev_out = best_dev;
    *seen_out = seen;
    return PCLR_OK;
}

/* Picks the device (see pclr_cl_create_default), makes a context and an
   in-order queue on it, and wraps them. */
static pclr_result pclr__cl_create_default_on(const pclr_cl_desc *desc, const pclr_cl_api *api, const char *library,
                                              int platform_index, int device_index, pclr_cl_context **out) {
    cl_platform_id best_plat;
    cl_device_id best_dev;
    cl_uint seen;
    cl_int err;
    cl_context context;
    cl_command_queue queue;
    cl_context_properties props[3];
    pclr_cl_desc own;
    pclr_result r;
    char *e = desc->error;
    size_t ecap = desc->error_cap;
    if ((r = pclr__cl_find_device(api, library, platform_index, device_index, e, ecap, &best_plat, &best_dev, &seen)) != PCLR_OK)
        return r;
    if (!best_dev) {
        if (device_index >= 0)
            return pclr__say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL device %d (there are %u)", device_index,
                                (unsigned)seen);
        return pclr__say(e, ecap, PCLR_ERR_NO_DEVICE, "no OpenCL device on %s", platform_index >= 0 ? "that platform"
                                                                                                          : "any platform");
    }
    props[0] = (cl_context_properties)CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)best_plat;
    props[2] = 0;
    err = CL_SUCCESS;
    context = api->CreateContext(props, 1, &best_dev, NULL, NULL, &err);
    if (err != CL_SUCCESS || !context)
        return pclr__say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_NO_DEVICE,
                            "clCreateContext failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    queue = api->CreateCommandQueue(context, best_dev, 0, &err);
    if (err != CL_SUCCESS || !queue) {
        api->ReleaseContext(context);
        return pclr__say(e, ecap, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
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
    pclr_allocator a;
    pclr_cl_api api;
    char library[256];
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if ((r = pclr__create_check("pclr_cl_create_default_desc", desc->error, desc->error_cap, out != NULL, &desc->allocator,
                                &a)) != PCLR_OK)
        return r;
    if (desc->context || desc->queue || desc->device)
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_INVALID_CONTEXT,
                            "pclr_cl_create_default_desc makes its own context and queue: leave desc.context, "
                            "desc.device and desc.queue NULL (or call pclr_cl_create)");
    /* the rule above pclr_cl_desc: nonzero desc numbers win over the (old, 0-based) index arguments */
    if (desc->platform_number || desc->device_number) {
        if (desc->platform_number < 0 || desc->device_number < 0)
            return pclr__say(desc->error, desc->error_cap, PCLR_ERR_NO_DEVICE,
                             "desc.platform_number %d / desc.device_number %d: 0 = every platform / the best device, "
                             "k > 0 = platform / device k - 1", desc->platform_number, desc->device_number);
        platform_index = desc->platform_number - 1; /* 0 becomes -1: every platform, the best device */
        device_index = desc->device_number - 1;
    }
    if ((r = pclr__cl_table(desc->opencl_api, desc->opencl_library, &api, library, sizeof library, desc->error, desc->error_cap)) != PCLR_OK)
        return r;
    return pclr__cl_create_default_on(desc, &api, library, platform_index, device_index, out);
}

PCLR_API pclr_result pclr_cl_create_default(int platform_index, int device_index, pclr_cl_context **out) {
    return pclr_cl_create_default_desc(NULL, platform_index, device_index, out);
}


PCLR_API void pclr_cl_destroy(pclr_cl_context *ctx) {
    pclr_allocator a;
    size_t i;
    if (!ctx) return;
    pclr__engine_free(&ctx->e);
    for (i = 0; i < PCLR__CL_SLOTS; ++i)
        if (ctx->slots[i]) ctx->cl.ReleaseMemObject(ctx->slots[i]);
    if (ctx->partials) ctx->cl.ReleaseMemObject(ctx->partials);
    if (ctx->zeroed) ctx->cl.ReleaseMemObject(ctx->zeroed);
    if (ctx->hist) ctx->cl.ReleaseMemObject(ctx->hist);
    if (ctx->lay_ctl) ctx->cl.ReleaseMemObject(ctx->lay_ctl);
    if (ctx->lay_states) ctx->cl.ReleaseMemObject(ctx->lay_states);
    if (ctx->pinned_ptr && ctx->cl.EnqueueUnmapMemObject(ctx->queue, ctx->pinned, ctx->pinned_ptr, 0, NULL, NULL) == CL_SUCCESS)
        ctx->cl.Finish(ctx->queue);
    if (ctx->pinned) ctx->cl.ReleaseMemObject(ctx->pinned);
    if (ctx->result) ctx->cl.ReleaseMemObject(ctx->result);
    if (ctx->counter) ctx->cl.ReleaseMemObject(ctx->counter);
    if (ctx->last) ctx->cl.ReleaseEvent(ctx->last);
    if (ctx->queue) ctx->cl.ReleaseCommandQueue(ctx->queue);
    if (ctx->device) ctx->cl.ReleaseDevice(ctx->device);
    if (ctx->context) ctx->cl.ReleaseContext(ctx->context);
    a = ctx->e.alloc;
    a.free(ctx, a.user);
}

PCLR_API const pclr_cl_api *pclr_cl_get_api(const pclr_cl_context *ctx) { return ctx ? &ctx->cl : NULL; }
PCLR_API const pclr_cl_features *pclr_cl_get_features(const pclr_cl_context *ctx) { return ctx ? &ctx->features : NULL; }
PCLR_API cl_context pclr_cl_get_cl_context(const pclr_cl_context *ctx) { return ctx ? ctx->context : NULL; }
PCLR_API cl_command_queue pclr_cl_get_queue(const pclr_cl_context *ctx) { return ctx ? ctx->queue : NULL; }
PCLR_API const char *pclr_cl_build_log(const pclr_cl_context *ctx) { return pclr__engine_log(ctx ? &ctx->e : NULL); }
PCLR_API const char *pclr_cl_last_error(const pclr_cl_context *ctx) { return pclr__engine_error(ctx ? &ctx->e : NULL); }

/* ------------------------------------------------------------- resolution */
/* The device's defaults for knobs cfg leaves 0. */
static void pclr__cl_defaults(const pclr__engine *e, pclr_config *c) {
    const pclr_cl_features *f = &((const pclr_cl_context *)e)->features;
    if (c->variant == PCLR_VARIANT_DEFAULT) {
        c->variant = f->best_variant;
        /* explicit knobs the best variant cannot take pick the next best */
        if (c->variant == PCLR_VARIANT_SHUFFLE && c->wave_width != 0 && c->wave_width != 32)
            c->variant = f->collectives ? PCLR_VARIANT_COLLECTIVE : PCLR_VARIANT_UNROLLED;
        if (c->variant == PCLR_VARIANT_COLLECTIVE && c->accumulate == PCLR_EXACT) c->variant = PCLR_VARIANT_UNROLLED;
    }
    if (c->wave_width == 0) c->wave_width = c->variant == PCLR_VARIANT_SHUFFLE ? 32 : (int)f->wave_width;
    /* A CPU runs a work-item's loop to the end before the next work-item: each
       must stream its own contiguous block (global stride is ~10x slower on
       PoCL); long unrolled runs keep the prefetchers busy (pclreduce-tune on a
       16-core Xeon: unroll 32, groups of 128, 8 per unit, 1.22x the old
       unroll 4 / groups of 64 at 2^26). */
    /* Ops with a lanes fold (pclr__lanes_fold: integer sums, min, max, count, stats) take stride simd: the loads fold
       into a vector of accumulators, which PoCL's compiler keeps in SIMD registers (a scalar accumulator left
       each load a scalar tree of merges), 32 bytes a load (AVX2/AVX-512; float and double min at 2^26 on 2
       EPYC cores: 6-7x the scalar accumulator's 16-byte loads, bench/results/cpu-amd-epyc-2c/simd); half's
       other ops take it too (pclr__half_vectors: a load converted at once) */
    if (f->cpu && c->stride == PCLR_STRIDE_DEFAULT) c->stride = pclr__lanes_fold(c) || pclr__half_vectors(c) ? PCLR_STRIDE_SIMD : PCLR_STRIDE_LOCAL;
    if (f->cpu && c->stride == PCLR_STRIDE_SIMD && c->vector_width == 0 && pclr__lanes_fold(c)) {
        const int bytes = (int)pclr__load_size(c);
        c->vector_width = bytes <= 0 ? 0 : bytes >= 32 ? 1 : 32 / bytes > 16 ? 16 : 32 / bytes; /* (0: a bad type, refused later) */
    }
    /* (histograms: groups of 64, whose work-items' own bins stay in the core's caches: on the 16-core Xeon at 2^26,
       0.52-0.74x an OpenMP loop at 128, 0.68-0.90x at 64; bench/results/h200-hist) */
    if (f->cpu && c->group_size == 0) c->group_size = c->op == PCLR_HISTOGRAM ? 64 : 128;
    /* exact sums: the lanes add as SIMD doubles, 32 bytes of doubles per vector (at 2^26 on
       PoCL about the CPU time of the native sum; 16-byte loads, unroll 4: 1.4x): 8 floats or 4
       doubles a load, fewer where x or a map's y are wider (a load is at most 32 bytes), one
       where elements are pixels of 2 or 4 components (one load each) */
    if (f->cpu && c->accumulate == PCLR_EXACT) {
        const int bytes = (int)pclr__load_size(c), most = bytes > 0 ? 32 / bytes : 1, lanes = c->type == PCLR_DOUBLE ? 4 : 8; /* (0: a bad type, refused later) */
        if (c->vector_width == 0) c->vector_width = pclr__has_map(c) && c->components > 1 ? 1 : most < lanes ? most : lanes;
        if (c->unroll == 0) c->unroll = c->type == PCLR_DOUBLE ? 4 : 8;
    }
    /* (ops that fold element by element, stats and compensated sums, unroll 4: at
       32 x the vector their kernel is thousands of lines that LLVM takes minutes on) */
    /* (layouts, unroll 4: their teams keep a row per unrolled step in flight, and at 32 PoCL ran
       2^20 rows x 64 at 14 GB/s against 32 GB/s, bench/rows_cpu.c on the 16-core Xeon) */
    if (f->cpu && c->unroll == 0) c->unroll = pclr__folds_each(c) || c->layout != PCLR_LAYOUT_ONE ? 4 : 32;
    if (f->cpu && c->groups_per_unit == 0) c->groups_per_unit = 8;
    /* NVIDIA GPUs: the CUDA backend's defaults (see pclreduce_cuda.h) */
    if (!f->cpu && c->unroll == 0) c->unroll = pclr__gpu_hist_unroll(c);
    if (f->nvidia && c->unroll == 0) c->unroll = c->layout != PCLR_LAYOUT_ONE ? 4 : 8;
    if (f->nvidia && c->groups_per_unit == 0)
        c->groups_per_unit = c->group_size == 0 ? 4 : c->group_size < 1024 ? 1024 / c->group_size : 1;
    if (c->group_size == 0 && f->max_group_size < 256) {
        int g = 32;
        while ((uint32_t)g * 2 <= f->max_group_size && g < 1024) g *= 2;
        c->group_size = g;
    }
}

/* What this device cannot run. */
static pclr_result pclr__cl_check(const pclr__engine *e, const pclr_config *c, const char **why) {
    const pclr_cl_context *ctx = (const pclr_cl_context *)e;
    const pclr_cl_features *f = &ctx->features;
    if (pclr__needs_fp64(c) && !f->fp64) {
        *why = c->type == PCLR_DOUBLE ? "the device has no fp64 (cl_khr_fp64)"
                                      : "this op or accumulator computes in double, and the device has no fp64 (cl_khr_fp64)";
        return PCLR_ERR_NO_FP64;
    }
    if (c->accumulate == PCLR_EXACT && !f->int64_atomics) {
        *why = "exact sums add 64-bit integer cells with atomics, and the device has no cl_khr_int64_base_atomics";
        return PCLR_ERR_NO_INT64_ATOMICS;
    }
    if (c->variant == PCLR_VARIANT_SHUFFLE && !f->nvidia) {
        *why = "the shuffle variant needs NVIDIA's OpenCL (inline PTX shfl.sync)";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c->variant == PCLR_VARIANT_COLLECTIVE && !f->collectives) {
        *why = "the collective variant needs OpenCL 2.0 work_group_reduce_* functions, which this device does not build";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (ctx->local_mem && (c->op == PCLR_HISTOGRAM ? pclr__hist_local_bytes(c)
                           : (cl_ulong)c->group_size * (c->accumulate == PCLR_EXACT ? 16 : pclr_state_size(c)) + 64 +
                             pclr__zeroed_scratch_bytes(c)) > ctx->local_mem) {
        *why = "the group's local memory tree is larger than CL_DEVICE_LOCAL_MEM_SIZE";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (f->cpu && c->op == PCLR_HISTOGRAM && pclr__hist_mine(c) && (size_t)c->group_size * pclr__hist_private_bytes(c) > PCLR__HIST_PRIVATE_GROUP_BYTES) {
        *why = "a histogram counted per work-item (stride local or simd) keeps each one's bins (and sums) in private memory, a group's "
               "at most 4 MiB on a CPU (PoCL keeps them on one stack): a smaller group_size, fewer bins, or stride global";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c->variant == PCLR_VARIANT_SEQUENTIAL && strstr(f->platform_name, "Portable Computing Language") &&
        pclr_state_size(c) > 8) {
        *why = "PoCL's compiler (LLVM) crashes on the sequential variant's two rolled trees over this op's state; take unrolled";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c->finish != PCLR_FINISH_PARTIALS && !f->int32_atomics) {
        *why = "the last_group and atomic finishes need 32-bit global atomics";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cl_resolve(pclr_cl_context *ctx, const pclr_config *cfg, pclr_config *out) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_resolve(&ctx->e, cfg, out));
}

PCLR_API pclr_result pclr_cl_prepare(pclr_cl_context *ctx, const pclr_config *cfg) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_prepare(&ctx->e, cfg));
}

/* ------------------------------------------------------------- programs */
/* The build log of prog (kept by the engine; empty when it cannot be read). */
static void pclr__cl_keep_log(pclr_cl_context *ctx, cl_program prog) {
    size_t size = 0;
    char *log;
    if (ctx->cl.GetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS) size = 0;
    if (!(log = (char *)pclr__alloc(&ctx->e, size + 1))) return;
    log[0] = '\0';
    if (size && ctx->cl.GetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) size = 0;
    log[size] = '\0';
    pclr__set_log(&ctx->e, log, strlen(log));
    pclr__free(&ctx->e, log);
}

static pclr_result pclr__cl_build(pclr__engine *e, const pclr_config *c, const char *src, const char *opts, const void *bin,
                                  size_t bin_size, void **program, void **keep, size_t *keep_size) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    pclr__cl_program *p;
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    cl_program prog;
    cl_kernel kern;
    size_t kmax = 0, size = 0;
    char text[400], more_opts[512];
    /* the kernel's inline PTX (pclr_keep) is for NVIDIA only; CPUs fold a shared row's partials in one
       work-item (PCLR__TEXT_ROW_FOLD says why) */
    if (ctx->features.nvidia || ctx->features.cpu) { /* (sm_80+: one-instruction float min/max, PCLR__SM80_CL) */
        if (snprintf(more_opts, sizeof more_opts, "%s -D %s", opts ? opts : "",
                     !ctx->features.nvidia ? "PCLR_FOLD_IN_ONE" : ctx->features.nvidia_major >= 8 ? "PCLR_NVIDIA_PTX -D PCLR_NVIDIA_SM80" : "PCLR_NVIDIA_PTX") >=
            (int)sizeof more_opts)
            return pclr__cl_fail(ctx, PCLR_ERR_BACKEND, "the build options are too long");
        opts = more_opts;
    }
    if (bin) { /* a binary the driver refuses is a miss: the engine builds from source */
        const unsigned char *b = (const unsigned char *)bin;
        prog = ctx->cl.CreateProgramWithBinary(ctx->context, 1, &ctx->device, &bin_size, &b, &status, &err);
        if (err != CL_SUCCESS || status != CL_SUCCESS || !prog) return PCLR_ERR_BUILD_FAILED;
        if (ctx->cl.BuildProgram(prog, 1, &ctx->device, opts, NULL, NULL) != CL_SUCCESS) {
            ctx->cl.ReleaseProgram(prog);
            return PCLR_ERR_BUILD_FAILED;
        }
    } else {
        prog = ctx->cl.CreateProgramWithSource(ctx->context, 1, &src, NULL, &err);
        if (err != CL_SUCCESS || !prog) return pclr__cl_fail_call(ctx, "clCreateProgramWithSource", err, "creating the reduction program");
        if ((err = ctx->cl.BuildProgram(prog, 1, &ctx->device, opts, NULL, NULL)) != CL_SUCCESS) {
            pclr__cl_keep_log(ctx, prog);
            ctx->cl.ReleaseProgram(prog);
            pclr_config_describe(c, text, sizeof text);
            return pclr__cl_fail(ctx, err == CL_BUILD_PROGRAM_FAILURE ? PCLR_ERR_BUILD_FAILED
                                      : pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                                 "clBuildProgram failed with %s (%d) for %s; see the build log (pclr_cl_build_log, pclr_build_log)", pclr__cl_error_name(err), (int)err, text);
        }
        /* the binary for the disk cache; none only costs the next process a build */
        if (keep && ctx->cl.GetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) == CL_SUCCESS && size &&
            (*keep = pclr__alloc(e, size)) != NULL) {
            if (ctx->cl.GetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof *keep, keep, NULL) == CL_SUCCESS) *keep_size = size;
            else { pclr__free(e, *keep); *keep = NULL; }
        }
    }
    kern = ctx->cl.CreateKernel(prog, PCLR_KERNEL_NAME, &err);
    if (err != CL_SUCCESS || !kern) {
        ctx->cl.ReleaseProgram(prog);
        return pclr__cl_fail_call(ctx, "clCreateKernel", err, "creating the reduction kernel");
    }
    if ((err = ctx->cl.GetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL)) != CL_SUCCESS) {
        if (pclr__cl_resource_error(err)) {
            ctx->cl.ReleaseKernel(kern);
            ctx->cl.ReleaseProgram(prog);
            return pclr__cl_fail_call(ctx, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", err, "asking the reduction kernel's group limit");
        }
        kmax = ctx->features.max_group_size;
    }
    if (!(p = (pclr__cl_program *)pclr__alloc(e, sizeof *p))) {
        ctx->cl.ReleaseKernel(kern);
        ctx->cl.ReleaseProgram(prog);
        return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a program");
    }
    p->program = prog;
    p->kernel = kern;
    p->max_group = kmax;
    *program = p;
    return PCLR_OK;
}

static void pclr__cl_release(pclr__engine *e, void *program) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    pclr__cl_program *p = (pclr__cl_program *)program;
    ctx->cl.ReleaseKernel(p->kernel);
    ctx->cl.ReleaseProgram(p->program);
    pclr__free(e, p);
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
    ws->owned = (cl_event *)pclr__alloc(&ctx->e, (nw + 1) * sizeof(cl_event));
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

static pclr_result pclr__cl_mem_size(pclr_cl_context *ctx, cl_mem m, uint64_t *size) {
    size_t s = 0;
    cl_int err = ctx->cl.GetMemObjectInfo(m, CL_MEM_SIZE, sizeof s, &s, NULL);
    if (err != CL_SUCCESS)
        return pclr__cl_fail(ctx, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                             "clGetMemObjectInfo(CL_MEM_SIZE) failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    *size = (uint64_t)s;
    return PCLR_OK;
}

/* Where a buffer's memory starts, as far as alignment goes (*addr): 0 for
   the driver's own memory (aligned far beyond any element), else the
   caller's host address (CL_MEM_USE_HOST_PTR; a sub-buffer: its parent's
   plus its origin, since drivers differ in what CL_MEM_HOST_PTR gives for one).
   A CPU device such as PoCL runs the kernel on that very memory, and its
   vector loads fault where it is not aligned: the engine refuses such a buffer. */
static pclr_result pclr__cl_host_address(pclr_cl_context *ctx, cl_mem m, uint64_t *addr) {
    cl_mem_flags flags = 0;
    cl_mem parent = NULL;
    void *host = NULL, *parent_host = NULL;
    size_t origin = 0;
    cl_int err = ctx->cl.GetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    *addr = 0;
    if (err != CL_SUCCESS)
        return pclr__cl_fail(ctx, pclr__cl_resource_error(err) ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BACKEND,
                             "clGetMemObjectInfo(CL_MEM_FLAGS) failed with %s (%d)", pclr__cl_error_name(err), (int)err);
    if (!(flags & CL_MEM_USE_HOST_PTR)) return PCLR_OK; /* the driver's own memory: aligned */
    if (ctx->cl.GetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && parent &&
        ctx->cl.GetMemObjectInfo(m, CL_MEM_OFFSET, sizeof origin, &origin, NULL) == CL_SUCCESS &&
        ctx->cl.GetMemObjectInfo(parent, CL_MEM_HOST_PTR, sizeof parent_host, &parent_host, NULL) == CL_SUCCESS && parent_host)
        host = (char *)parent_host + origin;
    else if (ctx->cl.GetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host, &host, NULL) != CL_SUCCESS)
        host = NULL;
    *addr = (uint64_t)(uintptr_t)host;
    return PCLR_OK;
}

/* slot: a program's cl_mem as a buffer (its size and host address asked of the driver) */
static pclr_result pclr__cl_wrap(pclr__engine *e, pclr__mem h, uint64_t bytes, pclr_buffer *out) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    pclr_result r;
    memset(out, 0, sizeof *out);
    out->handle = h;
    if (!h.ptr) return PCLR_OK; /* (a NULL buffer: the engine says so where one is needed) */
    if (!bytes && (r = pclr__cl_mem_size(ctx, (cl_mem)h.ptr, &bytes)) != PCLR_OK) return r;
    out->bytes = bytes;
    return pclr__cl_host_address(ctx, (cl_mem)h.ptr, &out->address);
}

/* A buffer of at least `bytes` in *mem (grown; pending commands keep the old one alive). */
static pclr_result pclr__cl_grow(pclr_cl_context *ctx, cl_mem *mem, size_t *have, uint64_t bytes, const char *what) {
    cl_int err = CL_SUCCESS;
    cl_mem m;
    if (bytes <= *have && *mem) return PCLR_OK;
    if (bytes > SIZE_MAX) return pclr__cl_fail(ctx, PCLR_ERR_SIZE_OVERFLOW, "%s: %llu bytes", what, (unsigned long long)bytes);
    m = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)(bytes ? bytes : 1), NULL, &err);
    if (err != CL_SUCCESS || !m) return pclr__cl_fail_call(ctx, "clCreateBuffer", err, what);
    if (*mem) ctx->cl.ReleaseMemObject(*mem);
    *mem = m;
    *have = (size_t)bytes;
    return PCLR_OK;
}

/* A buffer of `bytes` bytes, created once: zero, but for its first 4 bytes when init is not NULL (an atomic slot's identity). */
static pclr_result pclr__cl_made(pclr_cl_context *ctx, cl_mem *mem, size_t bytes, const void *init, const char *what) {
    cl_int err = CL_SUCCESS;
    unsigned char *host;
    if (*mem) return PCLR_OK;
    if (!(host = (unsigned char *)pclr__alloc(&ctx->e, bytes))) return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory");
    memset(host, 0, bytes);
    if (init) memcpy(host, init, 4);
    *mem = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    pclr__free(&ctx->e, host);
    if (err != CL_SUCCESS || !*mem) {
        *mem = NULL;
        return pclr__cl_fail_call(ctx, "clCreateBuffer", err, what);
    }
    return PCLR_OK;
}

/* slot: the passes' scratch (see pclr__scratch_kind) */
static pclr_result pclr__cl_scratch(pclr__engine *e, const pclr__entry *en, pclr__scratch_kind what, uint64_t bytes, pclr__mem *m) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    const pclr_config *c = &en->cfg;
    pclr_result r = PCLR_OK;
    cl_mem *mem = &ctx->partials;
    switch (what) {
    case PCLR__SCRATCH_FOLD:
        if (c->finish == PCLR_FINISH_ATOMIC) { /* the running value, the identity between launches */
            const int slot = pclr__atomic_slot(c);
            unsigned char ident[8];
            pclr_identity(slot < 3 ? PCLR_UINT : PCLR_INT, c->op, ident);
            mem = &ctx->slots[slot];
            r = pclr__cl_made(ctx, mem, 4, ident, "creating an atomic slot");
        } else if (c->op == PCLR_HISTOGRAM) { /* a histogram's counts, zero between launches */
            mem = &ctx->hist;
            r = pclr__cl_made(ctx, mem, PCLR__HIST_SCRATCH_BYTES, NULL, "creating a histogram's counts");
        } else if (pclr__zeroed_scratch_bytes(c)) { /* the exact sum's cells, zero between launches */
            mem = &ctx->zeroed;
            r = pclr__cl_made(ctx, mem, PCLR__EXACT_SCRATCH_BYTES, NULL, "creating the exact sum's cells");
        } else {
            r = pclr__cl_grow(ctx, mem, &ctx->partials_bytes, bytes, "creating the partials");
        }
        break;
    case PCLR__SCRATCH_PARTIALS: r = pclr__cl_grow(ctx, mem, &ctx->partials_bytes, bytes, "creating the partials"); break;
    case PCLR__SCRATCH_COUNTER: mem = &ctx->counter; break;
    case PCLR__SCRATCH_TICKETS: /* the status word and the tickets of shared rows: fewer than 4 x the groups (pclr__plan_layout) */
        mem = &ctx->lay_ctl;
        r = pclr__cl_made(ctx, mem, ((size_t)ctx->e.facts.compute_units * 256 + 64) * 4, NULL, "creating the layout tickets");
        break;
    case PCLR__SCRATCH_RESULT:
        if (bytes > 64) {
            mem = &ctx->lay_states;
            r = pclr__cl_grow(ctx, mem, &ctx->lay_states_bytes, bytes, "creating the states");
        } else {
            mem = &ctx->result;
        }
        break;
    }
    m->ptr = *mem;
    return r;
}

/* A kernel argument of `size` bytes at `at` (counted on). */
#define PCLR__CL_ARG(ctx, k, at, size, value) \
    if (err == CL_SUCCESS) err = (ctx)->cl.SetKernelArg((k), (at)++, (size), (value))

/* slot: one launch, then (out_index != 0) the states copied from staging to their place in out */
static pclr_result pclr__cl_launch(pclr__engine *e, const pclr__pass *p, const pclr_sync *sync) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    const pclr__cl_program *prog = (const pclr__cl_program *)p->en->program;
    const uint64_t ss = p->en->layout.size, states = p->out_count * ss;
    const int want = p->last && sync && sync->opencl_done, stage = p->out_index != 0;
    const cl_uint nw = p->first && sync ? (cl_uint)sync->opencl_wait_count : 0;
    const cl_event *w = nw ? (const cl_event *)sync->opencl_wait : NULL;
    cl_kernel k = prog->kernel;
    cl_mem x = (cl_mem)p->x.ptr, y = (cl_mem)p->y.ptr, offsets = (cl_mem)p->offsets.ptr, out = (cl_mem)p->out.ptr;
    cl_mem fold = (cl_mem)p->fold.ptr, counter = (cl_mem)p->counter.ptr;
    cl_ulong a[8];
    size_t global = (size_t)p->groups * p->group_size, local = p->group_size;
    cl_event ev = NULL;
    pclr__cl_waits ws;
    pclr_result r;
    cl_int err = CL_SUCCESS;
    cl_uint at = 0;
    int j;
    if (want) *(cl_event *)sync->opencl_done = NULL;
    if (nw && !w) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "sync.opencl_wait_count is %u and the wait list is NULL", (unsigned)nw);
    if (stage) { /* no pointer arithmetic on a cl_mem: the kernel writes from state 0 of a staging buffer */
        if (states > 64 && (r = pclr__cl_grow(ctx, &ctx->lay_states, &ctx->lay_states_bytes, states, "creating the states")) != PCLR_OK) return r;
        out = states > 64 ? ctx->lay_states : ctx->result;
    }
    a[0] = p->x_offset; a[1] = p->n; a[7] = p->y_offset;
    PCLR__CL_ARG(ctx, k, at, sizeof x, &x);
    PCLR__CL_ARG(ctx, k, at, 8, &a[0]);
    if (p->b) { /* a layout's: rows, cols, pitch, offsets, n, split */
        a[2] = p->b->shape.rows; a[3] = p->b->shape.cols; a[4] = p->b->shape.pitch; a[5] = p->b->plan.split;
        PCLR__CL_ARG(ctx, k, at, 8, &a[2]);
        PCLR__CL_ARG(ctx, k, at, 8, &a[3]);
        PCLR__CL_ARG(ctx, k, at, 8, &a[4]);
        PCLR__CL_ARG(ctx, k, at, sizeof offsets, &offsets);
        PCLR__CL_ARG(ctx, k, at, 8, &a[1]);
        PCLR__CL_ARG(ctx, k, at, 8, &a[5]);
    } else {
        PCLR__CL_ARG(ctx, k, at, 8, &a[1]);
    }
    PCLR__CL_ARG(ctx, k, at, sizeof out, &out);
    PCLR__CL_ARG(ctx, k, at, sizeof fold, &fold);
    PCLR__CL_ARG(ctx, k, at, sizeof counter, &counter);
    if (p->en->y_size) { /* a map's y, then its parameters */
        PCLR__CL_ARG(ctx, k, at, sizeof y, &y);
        PCLR__CL_ARG(ctx, k, at, 8, &a[7]);
    }
    for (j = 0; j < p->en->params; ++j) {
        uint64_t value;
        const size_t size = pclr__param_arg(p->en->param[j], p->params[j], &value);
        PCLR__CL_ARG(ctx, k, at, size, &value);
    }
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clSetKernelArg", err, "setting the kernel's arguments");
    if ((r = pclr__cl_waits_make(ctx, nw, w, &ws)) != PCLR_OK) return r;
    err = ctx->cl.EnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, ws.count, ws.list,
                                       ((want && !stage) || ctx->out_of_order) ? &ev : NULL);
    pclr__free(&ctx->e, ws.owned);
    /* CL_KERNEL_WORK_GROUP_SIZE is not checked up front: NVIDIA reports 256
       for these kernels yet runs them in groups of 1024. The launch decides. */
    if ((err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) && local > prog->max_group)
        return pclr__cl_fail(ctx, PCLR_ERR_UNSUPPORTED_BY_DEVICE,
                             "clEnqueueNDRangeKernel failed with %s (%d): group size %lu is above the kernel's "
                             "CL_KERNEL_WORK_GROUP_SIZE %lu on this device", pclr__cl_error_name(err), (int)err,
                             (unsigned long)local, (unsigned long)prog->max_group);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueNDRangeKernel", err, "launching the reduction");
    if ((r = pclr__cl_track(ctx, ev, want && !stage, want ? (cl_event *)sync->opencl_done : NULL)) != PCLR_OK || !stage) return r;
    ev = NULL;
    if ((r = pclr__cl_waits_make(ctx, 0, NULL, &ws)) != PCLR_OK) return r;
    err = ctx->cl.EnqueueCopyBuffer(ctx->queue, out, (cl_mem)p->out.ptr, 0, (size_t)(p->out_index * ss), (size_t)states, ws.count, ws.list,
                                    (want || ctx->out_of_order) ? &ev : NULL);
    pclr__free(&ctx->e, ws.owned);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueCopyBuffer", err, "copying the states to their place");
    return pclr__cl_track(ctx, ev, want, want ? (cl_event *)sync->opencl_done : NULL);
}
#undef PCLR__CL_ARG

/* slot: a blocking reduce's states to the host. The kernel goes to the device before the read is
   enqueued: on NVIDIA's OpenCL a read that has to wait for a running kernel completes ~7 us after
   it (a bare kernel flushed first: 22.5 -> 15.5 us, result_paths.log); through this call the kernel
   is mostly still running when the read comes, and the flush takes 0-2 us off (blocking_flush.log).
   A small read goes into pinned memory, then one clFinish: on NVIDIA ~4 us sooner than a blocking read. */
static pclr_result pclr__cl_complete(pclr__engine *e, const pclr_sync *sync, int ok, pclr__mem src, size_t bytes, void *host) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    const int pinned = ctx->pinned_ptr && bytes <= 64;
    pclr__cl_waits ws;
    pclr_result r;
    cl_int err;
    (void)sync;
    if (!ok || !host) return PCLR_OK;
    if ((err = ctx->cl.Flush(ctx->queue)) != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clFlush", err, "submitting the reduce");
    if ((r = pclr__cl_waits_make(ctx, 0, NULL, &ws)) != PCLR_OK) return r;
    err = ctx->cl.EnqueueReadBuffer(ctx->queue, (cl_mem)src.ptr, pinned ? CL_FALSE : CL_TRUE, 0, bytes, pinned ? ctx->pinned_ptr : host,
                                    ws.count, ws.list, NULL);
    pclr__free(&ctx->e, ws.owned);
    if (err != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clEnqueueReadBuffer", err, "reading the result");
    if (!pinned) return PCLR_OK;
    if ((err = ctx->cl.Finish(ctx->queue)) != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clFinish", err, "waiting for the result");
    memcpy(host, ctx->pinned_ptr, bytes);
    return PCLR_OK;
}

/* ------------------------------------------------------------ the deprecated verbs (0.4): thin wrappers */
/* A program's cl_mem as a buffer of the generic context that ctx serves (or of none). */
PCLR_API pclr_result pclr_cl_buffer(pclr_context *ctx, cl_mem mem, pclr_buffer *out) {
    pclr__mem h;
    h.ptr = mem;
    return pclr__buffer_wrap(ctx, PCLR_OPENCL, "pclr_cl_buffer", h, 0, out);
}

/* The reduce of the old verbs: their handles wrapped (sizes asked of the driver), then the engine's pipeline. */
static pclr_result pclr__cl_verb(pclr_cl_context *ctx, const char *fn, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                 uint64_t y_offset, const double *params, cl_mem offsets, uint64_t n, void *results, cl_mem out,
                                 uint64_t first_state, cl_uint nw, const cl_event *w, cl_event *done) {
    pclr_buffer bx, by, bo, bs;
    pclr_input in;
    pclr_sync sync;
    pclr__mem h;
    pclr_result r;
    memset(&sync, 0, sizeof sync);
    h.ptr = x;
    if ((r = pclr__cl_wrap(&ctx->e, h, 0, &bx)) != PCLR_OK) return r;
    h.ptr = y;
    if ((r = pclr__cl_wrap(&ctx->e, h, 0, &by)) != PCLR_OK) return r;
    h.ptr = offsets;
    if ((r = pclr__cl_wrap(&ctx->e, h, 0, &bo)) != PCLR_OK) return r;
    in = pclr__input_of(x ? &bx : NULL, x_offset, y ? &by : NULL, y_offset, params, offsets ? &bo : NULL, n);
    if (results) return pclr__engine_blocking(&ctx->e, fn, cfg, &in, results, SIZE_MAX, NULL);
    if (!out) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "%s: the output buffer is NULL", fn);
    h.ptr = out;
    if ((r = pclr__cl_wrap(&ctx->e, h, 0, &bs)) != PCLR_OK) return r;
    sync.opencl_wait_count = nw;
    sync.opencl_wait = (void *const *)w;
    sync.opencl_done = (void **)done;
    return pclr__engine_async(&ctx->e, fn, cfg, &in, &bs, first_state, &sync);
}

PCLR_API pclr_result pclr_cl_reduce(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset, uint64_t n, void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!result) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_reduce: result pointer is NULL");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce", cfg, in, offset, NULL, 0, NULL, NULL, n, result, NULL, 0, 0, NULL, NULL));
}
PCLR_API pclr_result pclr_cl_reduce_map(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                        uint64_t y_offset, uint64_t n, const double *params, void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!result) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_reduce_map: result pointer is NULL");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce_map", cfg, x, x_offset, y, y_offset, params, NULL, n, result, NULL, 0, 0,
                                               NULL, NULL));
}
PCLR_API pclr_result pclr_cl_reduce_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem in, uint64_t offset, uint64_t n, cl_mem out,
                                          uint64_t out_offset, cl_uint num_wait, const cl_event *wait, cl_event *done) {
    if (done) *done = NULL;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce_async", cfg, in, offset, NULL, 0, NULL, NULL, n, NULL, out, out_offset,
                                               num_wait, wait, done));
}
PCLR_API pclr_result pclr_cl_reduce_map_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                              uint64_t y_offset, uint64_t n, const double *params, cl_mem out, uint64_t out_offset,
                                              cl_uint num_wait, const cl_event *wait, cl_event *done) {
    if (done) *done = NULL;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce_map_async", cfg, x, x_offset, y, y_offset, params, NULL, n, NULL, out,
                                               out_offset, num_wait, wait, done));
}
PCLR_API pclr_result pclr_cl_reduce_batched(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                            uint64_t y_offset, const double *params, cl_mem offsets, uint64_t n, void *results) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!results) return pclr__cl_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_cl_reduce_batched: results pointer is NULL");
    if (cfg && cfg->layout == PCLR_LAYOUT_ONE)
        return pclr__cl_fail(ctx, PCLR_ERR_UNSUPPORTED_COMBINATION, "the batched reduce needs a layout (rows, columns or segments)");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce_batched", cfg, x, x_offset, y, y_offset, params, offsets, n, results, NULL,
                                               0, 0, NULL, NULL));
}
PCLR_API pclr_result pclr_cl_reduce_batched_async(pclr_cl_context *ctx, const pclr_config *cfg, cl_mem x, uint64_t x_offset, cl_mem y,
                                                  uint64_t y_offset, const double *params, cl_mem offsets, uint64_t n, cl_mem out,
                                                  cl_uint num_wait, const cl_event *wait, cl_event *done) {
    if (done) *done = NULL;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (cfg && cfg->layout == PCLR_LAYOUT_ONE)
        return pclr__cl_fail(ctx, PCLR_ERR_UNSUPPORTED_COMBINATION, "the batched reduce needs a layout (rows, columns or segments)");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cl_verb(ctx, "pclr_cl_reduce_batched_async", cfg, x, x_offset, y, y_offset, params, offsets, n, NULL, out,
                                               0, num_wait, wait, done));
}

/* ------------------------------------------------------------ memory: the engine's slots */
static pclr_result pclr__cl_alloc_mem(pclr__engine *e, size_t bytes, pclr__mem *m) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    cl_int err = CL_SUCCESS;
    m->ptr = NULL;
    if (!ctx->max_alloc || bytes <= ctx->max_alloc) m->ptr = ctx->cl.CreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    else err = CL_INVALID_BUFFER_SIZE; /* (NVIDIA's clCreateBuffer took SIZE_MAX bytes without an error) */
    if (err == CL_INVALID_BUFFER_SIZE)
        return pclr__cl_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "a buffer of %llu bytes is more than the device allocates at once (%llu bytes)",
                             (unsigned long long)bytes, (unsigned long long)ctx->max_alloc);
    if (err != CL_SUCCESS || !m->ptr) {
        m->ptr = NULL;
        return pclr__cl_fail_call(ctx, "clCreateBuffer", err, "allocating a buffer");
    }
    return PCLR_OK;
}
static void pclr__cl_free_mem(pclr__engine *e, pclr__mem m) {
    if (m.ptr) ((pclr_cl_context *)e)->cl.ReleaseMemObject((cl_mem)m.ptr);
}
/* Blocking copies, ordered after the context's last command. */
static pclr_result pclr__cl_copy_mem(pclr__engine *e, pclr__mem m, size_t offset, void *host, size_t bytes, int write) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    pclr__cl_waits ws;
    pclr_result r;
    cl_int err;
    if ((r = pclr__cl_waits_make(ctx, 0, NULL, &ws)) != PCLR_OK) return r;
    err = write ? ctx->cl.EnqueueWriteBuffer(ctx->queue, (cl_mem)m.ptr, CL_TRUE, offset, bytes, host, ws.count, ws.list, NULL)
                : ctx->cl.EnqueueReadBuffer(ctx->queue, (cl_mem)m.ptr, CL_TRUE, offset, bytes, host, ws.count, ws.list, NULL);
    pclr__free(e, ws.owned);
    return err == CL_SUCCESS ? PCLR_OK : pclr__cl_fail_call(ctx, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", err, "copying a buffer");
}
static pclr_result pclr__cl_write(pclr__engine *e, pclr__mem m, size_t offset, const void *src, size_t bytes) {
    return pclr__cl_copy_mem(e, m, offset, (void *)(uintptr_t)src, bytes, 1);
}
static pclr_result pclr__cl_read(pclr__engine *e, pclr__mem m, size_t offset, void *dst, size_t bytes) {
    return pclr__cl_copy_mem(e, m, offset, dst, bytes, 0);
}
/* ------------------------------------------------------------ tuner: profiling events on a queue swapped in */
static pclr_result pclr__cl_tune_begin(pclr__engine *e) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    cl_command_queue timing;
    cl_int err = CL_SUCCESS;
    if ((err = ctx->cl.Finish(ctx->queue)) != CL_SUCCESS) return pclr__cl_fail_call(ctx, "clFinish", err, "draining the queue");
    timing = ctx->cl.CreateCommandQueue(ctx->context, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS || !timing) return pclr__cl_fail_call(ctx, "clCreateCommandQueue", err, "creating the tuner's profiling queue");
    ctx->user_queue = ctx->queue;
    ctx->user_ooo = ctx->out_of_order;
    ctx->user_last = ctx->last;
    ctx->queue = timing;
    ctx->out_of_order = 0;
    ctx->last = NULL;
    return PCLR_OK;
}
static double pclr__cl_tune_time(pclr__engine *e, const pclr_config *c, const pclr_buffer *pool, const pclr_buffer *out, uint64_t n,
                                 const uint64_t *offsets, int calls) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    cl_event first = NULL, last = NULL;
    cl_ulong start = 0, end = 0;
    double secs = -1.0;
    pclr_buffer result;
    pclr_input in;
    pclr_sync sync;
    int i;
    memset(&result, 0, sizeof result);
    memset(&in, 0, sizeof in);
    memset(&sync, 0, sizeof sync);
    result.handle.ptr = ctx->result;
    result.bytes = 64;
    in.x = pool;
    in.n = n;
    for (i = 0; i < calls; ++i) { /* (inside pclr_cl_tune's call: the engine's pipeline, not the public verbs that claim the context) */
        cl_event ev = NULL;
        in.x_offset = offsets[i];
        sync.opencl_done = (void **)&ev;
        if (pclr__engine_async(e, "pclr_tune", c, &in, c->layout != PCLR_LAYOUT_ONE ? out : &result, 0, &sync) != PCLR_OK) break;
        if (!first) first = ev;
        else if (last) ctx->cl.ReleaseEvent(last);
        if (ev != first) last = ev;
    }
    if (i == calls && ctx->cl.Finish(ctx->queue) == CL_SUCCESS &&
        ctx->cl.GetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) == CL_SUCCESS &&
        ctx->cl.GetEventProfilingInfo(last ? last : first, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS && end > start)
        secs = (double)(end - start) * 1e-9;
    if (first) ctx->cl.ReleaseEvent(first);
    if (last) ctx->cl.ReleaseEvent(last);
    return secs;
}
static void pclr__cl_tune_end(pclr__engine *e) {
    pclr_cl_context *ctx = (pclr_cl_context *)e;
    ctx->cl.Finish(ctx->queue);
    ctx->cl.ReleaseCommandQueue(ctx->queue);
    if (ctx->last) ctx->cl.ReleaseEvent(ctx->last);
    ctx->queue = ctx->user_queue;
    ctx->out_of_order = ctx->user_ooo;
    ctx->last = ctx->user_last;
}

PCLR_API pclr_result pclr_cl_tune(pclr_cl_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count) {
    if (count) *count = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_tune(&ctx->e, type, op, opt, out, cap, count));
}

/* ------------------------------------------------------------ describe, the generic context */
static void pclr__cl_describe(const pclr__engine *e, char *buf, size_t cap, size_t *len) {
    const pclr_cl_context *ctx = (const pclr_cl_context *)e;
    const pclr_cl_features *f = &ctx->features;
    pclr__appendf(buf, cap, len, "OpenCL library: %s\n", ctx->library);
    pclr__appendf(buf, cap, len, "platform: %s\n", f->platform_name);
    pclr__appendf(buf, cap, len, "device: %s (vendor %s, driver %s)\n", f->device_name, f->vendor, f->driver_version);
    pclr__appendf(buf, cap, len, "OpenCL C: %d.%d\n", f->opencl_c_major, f->opencl_c_minor);
    pclr__appendf(buf, cap, len, "compute units: %u, max group size: %u, local memory: %lu bytes\n", (unsigned)f->compute_units,
                  (unsigned)f->max_group_size, (unsigned long)ctx->local_mem);
    pclr__appendf(buf, cap, len, "wave width: %u (preferred work-group multiple %lu)\n", (unsigned)f->wave_width,
                  (unsigned long)ctx->raw_wave);
    pclr__appendf(buf, cap, len, "features: nvidia_ptx=%s collectives=%s khr_subgroups=%s intel_subgroups=%s int32_atomics=%s "
                  "int64_atomics=%s fp64=%s cpu=%s\n", f->nvidia ? "yes" : "no", f->collectives ? "yes" : "no",
                  f->khr_subgroups ? "yes" : "no", f->intel_subgroups ? "yes" : "no", f->int32_atomics ? "yes" : "no",
                  f->int64_atomics ? "yes" : "no", f->fp64 ? "yes" : "no", f->cpu ? "yes" : "no");
    pclr__appendf(buf, cap, len, "queue: %s\n", ctx->out_of_order ? "out-of-order (commands chained by events)" : "in-order");
    pclr__appendf(buf, cap, len, "best variant: %s\n", pclr_variant_name(f->best_variant));
}

PCLR_API size_t pclr_cl_describe(const pclr_cl_context *ctx, char *buf, size_t cap) {
    return pclr__engine_describe(ctx ? &ctx->e : NULL, buf, cap);
}

static pclr_result pclr__cl_generic_create(const pclr_desc *d, pclr__engine **out) {
    pclr_cl_context *ctx = NULL;
    pclr_cl_desc c;
    pclr_result r;
    memset(&c, 0, sizeof c);
    PCLR__DESC_FROM(c, d);
    c.opencl_library = d->opencl_library;
    c.opencl_api = d->opencl_api;
    c.platform_number = d->platform; /* the same numbering: 0 = every platform / the best device, k = k - 1 */
    c.device_number = d->device;
    if (d->opencl && d->opencl->context) { /* the program's own objects */
        c.context = d->opencl->context;
        c.device = d->opencl->device;
        c.queue = d->opencl->queue;
        r = pclr_cl_create(&c, &ctx);
    } else {
        r = pclr_cl_create_default_desc(&c, -1, -1, &ctx);
    }
    *out = ctx ? &ctx->e : NULL;
    return r;
}
static void pclr__cl_generic_destroy(pclr__engine *e) { pclr_cl_destroy((pclr_cl_context *)e); }
static pclr_result pclr__cl_device_count(const pclr_desc *d, int *count) {
    pclr_cl_api api;
    char library[256];
    cl_platform_id plat;
    cl_device_id dev;
    cl_uint seen = 0;
    pclr_result r;
    if (d->platform < 0) /* as pclr_create: 0 = every platform, k > 0 = platform k - 1 */
        return pclr__say(d->error, d->error_cap, PCLR_ERR_NO_DEVICE, "platform number %d is not a platform: 0 = every platform, "
                         "k > 0 = platform k - 1", d->platform);
    if ((r = pclr__cl_table(d->opencl_api, d->opencl_library, &api, library, sizeof library, d->error, d->error_cap)) != PCLR_OK ||
        (r = pclr__cl_find_device(&api, library, d->platform > 0 ? d->platform - 1 : -1, -1, d->error, d->error_cap, &plat, &dev,
                                  &seen)) != PCLR_OK)
        return r;
    *count = (int)seen;
    return seen ? PCLR_OK
                : pclr__say(d->error, d->error_cap, PCLR_ERR_NO_DEVICE, "no OpenCL device on %s",
                            d->platform > 0 ? "that platform" : "any platform");
}

PCLR_API pclr_cl_context *pclr_context_cl(const pclr_context *ctx) {
    return ctx && ctx->backend == PCLR_OPENCL ? (pclr_cl_context *)ctx->engine : NULL;
}
PCLR_API pclr_result pclr_cl_get_native(const pclr_context *ctx, pclr_cl_native *out) {
    const pclr_cl_context *cl;
    const pclr_result r = pclr__native_of(ctx, PCLR_OPENCL, "pclr_cl_get_native", out, sizeof *out);
    if (r != PCLR_OK) return r;
    cl = (const pclr_cl_context *)ctx->engine;
    out->context = cl->context;
    out->device = cl->device;
    out->queue = cl->queue;
    out->api = &cl->cl;
    out->features = &cl->features;
    return PCLR_OK;
}

PCLR_API cl_mem pclr_buffer_cl(const pclr_context *ctx, const pclr_buffer *buf) {
    return ctx && buf && buf->owner == ctx && ctx->backend == PCLR_OPENCL ? (cl_mem)buf->handle.ptr : NULL;
}

/* The kernel's CL_KERNEL_WORK_GROUP_SIZE: the engine lowers an exact sum's group to it
   (NVIDIA builds the exact kernel for 256 work-items and refuses groups of 1024 at the launch). */
static uint32_t pclr__cl_group_limit(const pclr__engine *e, const void *program) {
    const pclr__cl_program *p = (const pclr__cl_program *)program;
    (void)e;
    return !p || !p->max_group ? 0 : p->max_group > 0xffffffffu ? 0xffffffffu : (uint32_t)p->max_group;
}

static void pclr__cl_ops(pclr__backend_ops *ops) {
    ops->backend = PCLR_OPENCL;
    ops->defaults = pclr__cl_defaults;
    ops->check = pclr__cl_check;
    ops->build = pclr__cl_build;
    ops->release = pclr__cl_release;
    ops->group_limit = pclr__cl_group_limit;
    ops->alloc = pclr__cl_alloc_mem;
    ops->free = pclr__cl_free_mem;
    ops->write = pclr__cl_write;
    ops->read = pclr__cl_read;
    ops->wrap = pclr__cl_wrap;
    ops->scratch = pclr__cl_scratch;
    ops->launch = pclr__cl_launch;
    ops->complete = pclr__cl_complete;
    ops->tune_begin = pclr__cl_tune_begin;
    ops->tune_time = pclr__cl_tune_time;
    ops->tune_end = pclr__cl_tune_end;
    ops->describe = pclr__cl_describe;
    ops->create = pclr__cl_generic_create;
    ops->destroy = pclr__cl_generic_destroy;
}

PCLR__DEPRECATED_OK_END
#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_CL_IMPLEMENTED */

/*
------------------------------------------------------------------------------
This software is available under the MIT License (also in LICENSE):

Copyright (c) 2026 the pclreduce authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
