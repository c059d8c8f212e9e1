/* pclreduce_cuda.h - CUDA backend of pclreduce: NVRTC compiles the generated
   kernels, the driver API runs them on CUdeviceptr. Use: define
   PCLREDUCE_IMPLEMENTATION and PCLREDUCE_CUDA in one file, include pclreduce.h.
   cuda.h and nvrtc.h are needed for their types only: the driver and NVRTC are
   loaded at run time into per-context tables (programs link -ldl only;
   PCLREDUCE_NO_RUNTIME_LINKING takes the linked functions: -lcuda -lnvrtc).

   First found wins. Driver: desc.cuda_api, desc.cuda_library,
   $PCLR_CUDA_LIBRARY, libcuda.so.1, libcuda.so (nvcuda.dll). NVRTC:
   desc.nvrtc_api, desc.nvrtc_library, $PCLR_NVRTC_LIBRARY, libnvrtc.so.13,
   .12, .11.2, libnvrtc.so, versions not newer than the driver first. An
   explicit path that fails is an error. The driver is never unloaded (it
   starts threads at cuInit); NVRTC is, by pclr_cuda_destroy.

   Errors, allocator, NULL contexts: the contract in pclreduce.h. Not
   thread-safe, and one context's launches share its scratch (the ticket
   counter, the atomic running values, the partials): async calls of one
   context on several streams must be ordered. Contexts may share a
   CUcontext; calls make theirs current for their duration.

   The engine in pclreduce.h runs every reduce (checks, plan, passes, finalize);
   this header gives it the device's slots: scratch, one launch, completion.
   Per call: a configuration is compiled and loaded once, then found by the
   bytes of the caller's config; a reduce is one launch (two for
   PCLR_FINISH_PARTIALS), no allocation; the blocking reduce writes the result
   into mapped pinned host memory. The input must be aligned to the element
   (PCLR_ERR_MISALIGNED) and the elements inside its buffer: pclr_cuda_buffer's
   bytes, else its allocation (cuMemGetAddressRange; PCLR_ERR_SIZE_OVERFLOW). License: MIT (the full text is at the end of this file). */
#ifndef PCLREDUCE_CUDA_H
#define PCLREDUCE_CUDA_H

#ifndef PCLREDUCE_CUDA
#define PCLREDUCE_CUDA /* the generic context can pick this backend */
#endif
#include "pclreduce.h"
/* The CUDA headers use anonymous unions (C11), so keep -Wpedantic quiet for them. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cuda.h>  /* types only: nothing is linked */
#include <nvrtc.h> /* types only: nothing is linked */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

PCLR_EXTERN_C_BEGIN

/* The driver entry points the backend calls: X(return type, field, parameters,
   symbol). api->MemAlloc is cuMemAlloc_v2. */
#define PCLR_CUDA_ENTRY_POINTS(X)                                                                                      \
    X(CUresult, Init, (unsigned int), "cuInit") X(CUresult, DriverGetVersion, (int *), "cuDriverGetVersion")           \
    X(CUresult, GetErrorName, (CUresult, const char **), "cuGetErrorName")                                             \
    X(CUresult, GetErrorString, (CUresult, const char **), "cuGetErrorString")                                         \
    X(CUresult, DeviceGetCount, (int *), "cuDeviceGetCount")                                                           \
    X(CUresult, DeviceGet, (CUdevice *, int), "cuDeviceGet")                                                           \
    X(CUresult, DeviceGetName, (char *, int, CUdevice), "cuDeviceGetName")                                             \
    X(CUresult, DeviceGetAttribute, (int *, CUdevice_attribute, CUdevice), "cuDeviceGetAttribute")                     \
    X(CUresult, DevicePrimaryCtxRetain, (CUcontext *, CUdevice), "cuDevicePrimaryCtxRetain")                           \
    X(CUresult, DevicePrimaryCtxRelease, (CUdevice), "cuDevicePrimaryCtxRelease_v2")                                   \
    X(CUresult, CtxGetCurrent, (CUcontext *), "cuCtxGetCurrent")                                                       \
    X(CUresult, CtxPushCurrent, (CUcontext), "cuCtxPushCurrent_v2")                                                    \
    X(CUresult, CtxPopCurrent, (CUcontext *), "cuCtxPopCurrent_v2")                                                    \
    X(CUresult, CtxGetDevice, (CUdevice *), "cuCtxGetDevice")                                                          \
    X(CUresult, CtxSynchronize, (void), "cuCtxSynchronize")                                                            \
    X(CUresult, ModuleLoadData, (CUmodule *, const void *), "cuModuleLoadData")                                        \
    X(CUresult, ModuleUnload, (CUmodule), "cuModuleUnload")                                                            \
    X(CUresult, ModuleGetFunction, (CUfunction *, CUmodule, const char *), "cuModuleGetFunction")                      \
    X(CUresult, FuncGetAttribute, (int *, CUfunction_attribute, CUfunction), "cuFuncGetAttribute")                     \
    X(CUresult, MemAlloc, (CUdeviceptr *, size_t), "cuMemAlloc_v2")                                                    \
    X(CUresult, MemFree, (CUdeviceptr), "cuMemFree_v2")                                                                \
    X(CUresult, MemHostAlloc, (void **, size_t, unsigned int), "cuMemHostAlloc")                                       \
    X(CUresult, MemFreeHost, (void *), "cuMemFreeHost")                                                                \
    X(CUresult, MemHostGetDevicePointer, (CUdeviceptr *, void *, unsigned int), "cuMemHostGetDevicePointer_v2")        \
    X(CUresult, MemcpyHtoD, (CUdeviceptr, const void *, size_t), "cuMemcpyHtoD_v2")                                    \
    X(CUresult, MemcpyDtoH, (void *, CUdeviceptr, size_t), "cuMemcpyDtoH_v2")                                          \
    X(CUresult, MemGetAddressRange, (CUdeviceptr *, size_t *, CUdeviceptr), "cuMemGetAddressRange_v2")                 \
    X(CUresult, LaunchKernel, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,       \
      unsigned int, unsigned int, CUstream, void **, void **), "cuLaunchKernel")                                       \
    X(CUresult, StreamSynchronize, (CUstream), "cuStreamSynchronize")                                                  \
    X(CUresult, EventCreate, (CUevent *, unsigned int), "cuEventCreate")                                               \
    X(CUresult, EventRecord, (CUevent, CUstream), "cuEventRecord")                                                     \
    X(CUresult, EventSynchronize, (CUevent), "cuEventSynchronize")                                                     \
    X(CUresult, EventElapsedTime, (float *, CUevent, CUevent), "cuEventElapsedTime")                                   \
    X(CUresult, EventDestroy, (CUevent), "cuEventDestroy_v2")

/* Those an older driver may lack (NULL there): cuLaunchKernelEx (CUDA 12.0) launches with
   programmatic dependent launch. */
#define PCLR_CUDA_OPTIONAL_ENTRY_POINTS(X)                                                                             \
    X(CUresult, LaunchKernelEx, (const CUlaunchConfig *, CUfunction, void **, void **), "cuLaunchKernelEx")            \
    X(CUresult, OccupancyMaxActiveBlocksPerMultiprocessor, (int *, CUfunction, int, size_t),                           \
      "cuOccupancyMaxActiveBlocksPerMultiprocessor")

/* NVRTC's, the same way; then those an older NVRTC may lack (NULL there). */
#define PCLR_NVRTC_ENTRY_POINTS(X)                                                                                     \
    X(nvrtcResult, Version, (int *, int *), "nvrtcVersion")                                                            \
    X(const char *, GetErrorString, (nvrtcResult), "nvrtcGetErrorString")                                              \
    X(nvrtcResult, CreateProgram, (nvrtcProgram *, const char *, const char *, int, const char *const *,               \
      const char *const *), "nvrtcCreateProgram")                                                                      \
    X(nvrtcResult, DestroyProgram, (nvrtcProgram *), "nvrtcDestroyProgram")                                            \
    X(nvrtcResult, CompileProgram, (nvrtcProgram, int, const char *const *), "nvrtcCompileProgram")                    \
    X(nvrtcResult, GetProgramLogSize, (nvrtcProgram, size_t *), "nvrtcGetProgramLogSize")                              \
    X(nvrtcResult, GetProgramLog, (nvrtcProgram, char *), "nvrtcGetProgramLog")                                        \
    X(nvrtcResult, GetPTXSize, (nvrtcProgram, size_t *), "nvrtcGetPTXSize")                                            \
    X(nvrtcResult, GetPTX, (nvrtcProgram, char *), "nvrtcGetPTX")
#define PCLR_NVRTC_OPTIONAL_ENTRY_POINTS(X)                                                                            \
    X(nvrtcResult, GetCUBINSize, (nvrtcProgram, size_t *), "nvrtcGetCUBINSize")                                        \
    X(nvrtcResult, GetCUBIN, (nvrtcProgram, char *), "nvrtcGetCUBIN")                                                  \
    X(nvrtcResult, GetNumSupportedArchs, (int *), "nvrtcGetNumSupportedArchs")                                         \
    X(nvrtcResult, GetSupportedArchs, (int *), "nvrtcGetSupportedArchs")

#define PCLR__CUDA_FIELD(ret, name, params, sym) ret(CUDAAPI *name) params;
#define PCLR__NVRTC_FIELD(ret, name, params, sym) ret (*name) params;
typedef struct pclr_cuda_api {
    PCLR_CUDA_ENTRY_POINTS(PCLR__CUDA_FIELD)
    PCLR_CUDA_OPTIONAL_ENTRY_POINTS(PCLR__CUDA_FIELD)
} pclr_cuda_api;
typedef struct pclr_nvrtc_api {
    PCLR_NVRTC_ENTRY_POINTS(PCLR__NVRTC_FIELD)
    PCLR_NVRTC_OPTIONAL_ENTRY_POINTS(PCLR__NVRTC_FIELD)
} pclr_nvrtc_api;
#undef PCLR__CUDA_FIELD
#undef PCLR__NVRTC_FIELD

/* Which device, when context is NULL (its primary context is used). One rule,
   checked in this order:
   1. device_number != 0 wins: k > 0 is device ordinal k - 1; k < 0 is PCLR_ERR_NO_DEVICE;
   2. else device_ordinal != 0 (deprecated since 0.3.1, honoured through 0.4):
      the old 0-based ordinal (> 0 that device, < 0 PCLR_ERR_NO_DEVICE);
   3. else (a zero desc) the best device: the most multiprocessors x clock
      rate, the lowest ordinal on ties (identical GPUs: device 0); a device in
      the prohibited compute mode is passed over unless there is no other.
   A context given in desc.context ignores both fields. The numbering is
   pclr_desc.device's and pclr_cl_desc.device_number's: 0 = best, k = device k - 1. */
typedef struct pclr_cuda_desc {
    int device_ordinal;          /* deprecated (0.3.1, kept through 0.4): 0-based; use device_number. Read only when device_number is 0 */
    CUcontext context;           /* the caller's context, or NULL (it must outlive the pclr context) */
    PCLR_DESC_COMMON             /* allocator, caches, tuning file, error: as in pclr_desc */
    const char *cuda_library, *nvrtc_library;
    const pclr_cuda_api *cuda_api;
    const pclr_nvrtc_api *nvrtc_api;
    int device_number;           /* 0: the best device; k > 0: device ordinal k - 1 (see above) */
} pclr_cuda_desc;

typedef struct pclr_cuda_features {
    char device_name[256];
    int cc_major, cc_minor;      /* compute capability */
    int driver_version;          /* cuDriverGetVersion: 1000 * major + 10 * minor */
    int nvrtc_major, nvrtc_minor;
    uint32_t compute_units;      /* multiprocessors */
    uint32_t max_group_size;     /* max threads per block */
    size_t l2_bytes;
} pclr_cuda_features;

typedef struct pclr_cuda_context pclr_cuda_context;

/* What a generic CUDA context runs on, for the program's own work: its CUcontext and device, the
   entry points it loaded (programs need not link libcuda or NVRTC), what it found out. */
typedef struct pclr_cuda_native {
    CUcontext context;
    CUdevice device;
    const pclr_cuda_api *api;
    const pclr_nvrtc_api *nvrtc;
    const pclr_cuda_features *features;
} pclr_cuda_native;
/* PCLR_ERR_INVALID_CONTEXT for NULL, PCLR_ERR_INVALID_ARGUMENT for a context of another backend. */
PCLR_API pclr_result pclr_cuda_get_native(const pclr_context *ctx, pclr_cuda_native *out);

/* Deprecated (0.4; removed in 0.5), with what replaces them: the CUDA context of its own
   (pclr_cuda_create: pclr_create with desc.backends = {PCLR_CUDA}, the program's CUcontext in
   desc.cuda; _destroy, _resolve, _prepare, _tune, _build_log, _last_error, _describe: the generic
   pclr_* call; _get_api, _get_features: pclr_cuda_get_native; _alloc, _free, _copy_to_device,
   _copy_to_host: pclr_buffer_create, _destroy, _write, _read, or the driver through
   pclr_cuda_get_native's api; pclr_context_cuda: not needed).
   desc may be NULL (the best device, the usual libraries, malloc). */
PCLR_DEPRECATED pclr_result pclr_cuda_create(const pclr_cuda_desc *desc, pclr_cuda_context **out);
PCLR_DEPRECATED void pclr_cuda_destroy(pclr_cuda_context *ctx);
PCLR_DEPRECATED const pclr_cuda_features *pclr_cuda_get_features(const pclr_cuda_context *ctx); /* NULL for NULL */
/* The context's entry points, for the program's own calls (NULL for NULL). */
PCLR_DEPRECATED const pclr_cuda_api *pclr_cuda_get_api(const pclr_cuda_context *ctx);
/* Tables without a context, loaded as create does (path NULL: the
   environment variable, else the usual names): PCLR_ERR_NO_DRIVER with a
   sentence in why. Tests wrap these to fail chosen calls. */
PCLR_API pclr_result pclr_cuda_load_api(const char *path, pclr_cuda_api *api, char *why, size_t why_cap);
PCLR_API pclr_result pclr_nvrtc_load_api(const char *path, pclr_nvrtc_api *api, char *why, size_t why_cap);
/* Backend CUDA where 0, the CUDA defaults (unroll 8, half occupancy),
   pclr_config_resolve, then the device's limits. */
PCLR_DEPRECATED pclr_result pclr_cuda_resolve(pclr_cuda_context *ctx, const pclr_config *cfg, pclr_config *out);
/* Compiles and loads cfg's kernel now (otherwise the first reduce does). */
PCLR_DEPRECATED pclr_result pclr_cuda_prepare(pclr_cuda_context *ctx, const pclr_config *cfg);
/* Deprecated (0.4; removed in 0.5): the verbs on raw CUdeviceptrs below, now thin wrappers of the
   engine's reduce: use pclr_reduce / pclr_reduce_async on a generic context (pclr_create), with
   pclr_cuda_buffer around the program's pointers and pclr_sync.cuda_stream for the stream. They
   ask the driver for each input's allocation (cuMemGetAddressRange: elements past its end are
   PCLR_ERR_SIZE_OVERFLOW), take the results' size on trust and do not bound an async `out`.
   Blocking: n elements of cfg's type from element `offset` of `in`, on
   `stream` (0: the legacy default stream), into *result (host memory). */
PCLR_DEPRECATED pclr_result pclr_cuda_reduce(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in, uint64_t offset,
                                      uint64_t n, CUstream stream, void *result);
/* Async: the result goes to device memory `out` (aligned to the element
   size), ordered on `stream`; nothing waits. */
PCLR_DEPRECATED pclr_result pclr_cuda_reduce_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in,
                                            uint64_t offset, uint64_t n, CUdeviceptr out, CUstream stream);
/* With a map (pclr_config.map): its second input y (0 when it has none) at
   element y_offset, and its parameters' values in their order (NULL when it
   has none); x as `in` above. The plain calls take maps without y or parameters. */
PCLR_DEPRECATED pclr_result pclr_cuda_reduce_map(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                          CUdeviceptr y, uint64_t y_offset, uint64_t n, const double *params, CUstream stream,
                                          void *result);
PCLR_DEPRECATED pclr_result pclr_cuda_reduce_map_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                                CUdeviceptr y, uint64_t y_offset, uint64_t n, const double *params, CUdeviceptr out,
                                                CUstream stream);
/* (Deprecated, as above.) A layout (cfg.layout; docs/layouts.md; the arguments
   as pclr_reduce_batched's): for SEGMENTS, `offsets` holds K + 1 uint64 in
   device memory, checked on the device against n. Blocking: one result per
   row, column or segment into results (host memory). Async: one state per
   result into out (device memory, aligned to the state's 8 bytes or its
   size), ordered on stream, nothing waited for. */
PCLR_DEPRECATED pclr_result pclr_cuda_reduce_batched(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                              CUdeviceptr y, uint64_t y_offset, const double *params, CUdeviceptr offsets, uint64_t n,
                                              CUstream stream, void *results);
PCLR_DEPRECATED pclr_result pclr_cuda_reduce_batched_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                                    CUdeviceptr y, uint64_t y_offset, const double *params, CUdeviceptr offsets,
                                                    uint64_t n, CUdeviceptr out, CUstream stream);
/* Device memory through the context's driver (programs need not link libcuda). */
PCLR_DEPRECATED pclr_result pclr_cuda_alloc(pclr_cuda_context *ctx, size_t bytes, CUdeviceptr *out);
PCLR_DEPRECATED pclr_result pclr_cuda_free(pclr_cuda_context *ctx, CUdeviceptr ptr);
PCLR_DEPRECATED pclr_result pclr_cuda_copy_to_device(pclr_cuda_context *ctx, CUdeviceptr dst, const void *src, size_t bytes);
PCLR_DEPRECATED pclr_result pclr_cuda_copy_to_host(pclr_cuda_context *ctx, void *dst, CUdeviceptr src, size_t bytes);
/* The tuner (see pclr_tune), timed with events; 5-11 s per type/op on an H100. */
PCLR_DEPRECATED pclr_result pclr_cuda_tune(pclr_cuda_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                    pclr_tune_entry *out, size_t cap, size_t *count);
PCLR_DEPRECATED const char *pclr_cuda_build_log(const pclr_cuda_context *ctx);
PCLR_DEPRECATED const char *pclr_cuda_last_error(const pclr_cuda_context *ctx);
PCLR_DEPRECATED size_t pclr_cuda_describe(const pclr_cuda_context *ctx, char *buf, size_t cap);
/* The generic context's CUDA context and a buffer's device pointer (NULL / 0 on another backend). */
PCLR_DEPRECATED pclr_cuda_context *pclr_context_cuda(const pclr_context *ctx);
PCLR_API CUdeviceptr pclr_buffer_cuda(const pclr_context *ctx, const pclr_buffer *buf);
/* The program's own device memory as a buffer of a generic CUDA context, for pclr_reduce and
   pclr_reduce_async (in.x, in.y, in.offsets, the states): `bytes` from ptr on, or with bytes 0 the
   rest of the driver's allocation holding ptr (cuMemGetAddressRange; where the driver cannot place
   the pointer, its size is unknown and unchecked). Allocates nothing: *out is a value the program
   keeps (on the stack); pclr_buffer_destroy is not needed. PCLR_ERR_INVALID_ARGUMENT on a context of
   another backend, PCLR_ERR_NULL_POINTER for ptr 0. */
PCLR_API pclr_result pclr_cuda_buffer(pclr_context *ctx, CUdeviceptr ptr, size_t bytes, pclr_buffer *out);
/* No device needed: compiles cfg's kernel (backend CUDA where 0) with the
   options the backend would use for compute capability `arch` (e.g. 75): to
   PTX, or to CUBIN with `cubin` nonzero. NVRTC comes from desc (NULL: the
   usual names; nvrtc_library, nvrtc_api and allocator are used). The log, or
   why there was no compile, goes to log/log_cap (may be NULL/0).
   PCLR_ERR_NO_DRIVER without NVRTC, PCLR_ERR_BUILD_FAILED on compile errors
   or an arch this NVRTC does not know. */
PCLR_API pclr_result pclr_cuda_compile_check(const pclr_config *cfg, const pclr_cuda_desc *desc, int arch, int cubin,
                                             char *log, size_t log_cap);

PCLR_EXTERN_C_END

#endif /* PCLREDUCE_CUDA_H */

/* ====================================================================== */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_CUDA_IMPLEMENTED)
#define PCLREDUCE_CUDA_IMPLEMENTED
PCLR__DEPRECATED_OK_BEGIN

/* Scratch: a small control allocation... */
#define PCLR__CUDA_CTL_COUNTER 0 /* uint: the last-group ticket counter, 0 between launches */
#define PCLR__CUDA_CTL_SLOTS 8   /* 6 x uint: the atomic finish's running values, (uint|int) x (sum|min|max) */
#define PCLR__CUDA_CTL_RESULT 64 /* 64 bytes (the largest state): the blocking result when mapped memory is unavailable */
#define PCLR__CUDA_CTL_ZEROED 128 /* the exact sum's cells (pclr__zeroed_scratch_bytes), zero between launches */
#define PCLR__CUDA_CTL_BYTES (PCLR__CUDA_CTL_ZEROED + PCLR__EXACT_SCRATCH_BYTES)

struct pclr_cuda_context {
    pclr__engine e;              /* first: the engine's view of this context */
    pclr_cuda_api cu;
    pclr_nvrtc_api rtc;
    void *rtc_lib;
    char cu_name[256], rtc_name[256];
    int rtc_major, rtc_minor;
    CUdevice device;
    int device_ordinal;          /* -1 for the caller's context */
    CUcontext cu_ctx;
    int owns_primary;
    pclr_cuda_features features;
    int regs_per_block;
    int cubin;                   /* 1: CUBIN for the exact arch; 0: PTX for target_arch (the driver JITs it) */
    int target_arch;
    char target_opt[64];
    CUdeviceptr ctl, partials;   /* ... and the per-group partials, grown on demand */
    size_t partials_bytes;
    CUdeviceptr words;           /* the last-group finish's 4- and 8-byte states, published as flagged words (zero between launches) */
    void *host_result;           /* mapped pinned, or NULL (then ctl's result cell and a copy) */
    CUdeviceptr host_result_dev;
    CUevent tune_start, tune_stop;
    int tune_pushed; /* the tuner made the context current (pclr_tune calls the engine directly) */
    int tune_held;   /* ... and marked it current (below) until tune_end */
    /* The CUcontext is current for the call in progress (a deprecated verb, the tuner, or a reduce
       from begin to complete): the slots it runs make no driver call to make it so. Set and read only
       inside calls that claimed the context (pclr__enter). */
    int current;
    int begun, begin_pushed;     /* begin made it current (complete undoes that); begin pushed it (complete pops) */
    CUdeviceptr lay_ctl;         /* layouts: the segments' status word, then the tickets of shared rows (zero between launches) */
    size_t lay_ctl_count;
    CUdeviceptr lay_states;      /* blocking reduces: states of more than 64 bytes before they are read back (grown on demand) */
    CUdeviceptr hist;            /* a histogram's counts (PCLR__HIST_SCRATCH_BYTES): zero on first need, and between launches */
    size_t lay_states_bytes;
};

/* dependent: launched with programmatic dependent launch (its text waits for the grid before it);
   resident: its groups that fit on one multiprocessor at once (0: unknown) */
typedef struct pclr__cuda_program { CUmodule module; CUfunction fn; int dependent, resident; } pclr__cuda_program;

/* ------------------------------------------------------------ library loading */
#define PCLR__CUDA_SYM(ret, name, params, sym) {sym, offsetof(pclr_cuda_api, name), 0},
#define PCLR__NVRTC_SYM(ret, name, params, sym) {sym, offsetof(pclr_nvrtc_api, name), 0},
#define PCLR__NVRTC_OPT(ret, name, params, sym) {sym, offsetof(pclr_nvrtc_api, name), 1},
#define PCLR__CUDA_OPT(ret, name, params, sym) {sym, offsetof(pclr_cuda_api, name), 1},
static const pclr__symbol pclr__cuda_syms[] = {PCLR_CUDA_ENTRY_POINTS(PCLR__CUDA_SYM) PCLR_CUDA_OPTIONAL_ENTRY_POINTS(PCLR__CUDA_OPT)};
#undef PCLR__CUDA_OPT
static const pclr__symbol pclr__nvrtc_syms[] = {PCLR_NVRTC_ENTRY_POINTS(PCLR__NVRTC_SYM) PCLR_NVRTC_OPTIONAL_ENTRY_POINTS(PCLR__NVRTC_OPT)};
#undef PCLR__CUDA_SYM
#undef PCLR__NVRTC_SYM
#undef PCLR__NVRTC_OPT

#ifdef PCLREDUCE_NO_RUNTIME_LINKING /* cuda.h maps the names to their _v2 versions */
#define PCLR__LINK(ret, field, params, sym) api->field = cu##field;
static void pclr__cuda_link(void *table) {
    pclr_cuda_api *api = (pclr_cuda_api *)table;
    PCLR_CUDA_ENTRY_POINTS(PCLR__LINK)
    PCLR_CUDA_OPTIONAL_ENTRY_POINTS(PCLR__LINK)
}
#undef PCLR__LINK
#define PCLR__LINK(ret, field, params, sym) api->field = nvrtc##field;
static void pclr__nvrtc_link(void *table) {
    pclr_nvrtc_api *api = (pclr_nvrtc_api *)table;
    PCLR_NVRTC_ENTRY_POINTS(PCLR__LINK)
    PCLR_NVRTC_OPTIONAL_ENTRY_POINTS(PCLR__LINK)
}
#undef PCLR__LINK
#else
#define pclr__cuda_link NULL
#define pclr__nvrtc_link NULL
#endif

#ifdef _WIN32
static const char *const pclr__cuda_names[] = {"nvcuda.dll"};
static const char *const pclr__nvrtc_names[] = {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll"};
static const int pclr__nvrtc_majors[] = {13, 12, 11};
#else
static const char *const pclr__cuda_names[] = {"libcuda.so.1", "libcuda.so"};
static const char *const pclr__nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
static const int pclr__nvrtc_majors[] = {13, 12, 11, 0};
#endif
static const pclr__library pclr__cuda_library = {
    "CUDA driver", "PCLR_CUDA_LIBRARY", "desc.cuda_library", "desc.cuda_api", "install the NVIDIA driver or set PCLR_CUDA_LIBRARY",
    pclr__cuda_names, sizeof pclr__cuda_names / sizeof pclr__cuda_names[0], pclr__cuda_syms,
    sizeof pclr__cuda_syms / sizeof pclr__cuda_syms[0], pclr__cuda_link, NULL};
static const pclr__library pclr__nvrtc_library = {
    "NVRTC", "PCLR_NVRTC_LIBRARY", "desc.nvrtc_library", "desc.nvrtc_api", "set PCLR_NVRTC_LIBRARY",
    pclr__nvrtc_names, sizeof pclr__nvrtc_names / sizeof pclr__nvrtc_names[0], pclr__nvrtc_syms,
    sizeof pclr__nvrtc_syms / sizeof pclr__nvrtc_syms[0], pclr__nvrtc_link, NULL};

/* The NVRTC table; driver_major > 0 tries the versions the driver can load
   first (a newer NVRTC's code may not load on an older driver). */
static pclr_result pclr__cuda_nvrtc(const pclr_nvrtc_api *given, const char *path, int driver_major, pclr_nvrtc_api *api,
                                    void **lib, char *name, size_t name_cap, char *why, size_t why_cap) {
    const char *names[sizeof pclr__nvrtc_names / sizeof pclr__nvrtc_names[0]];
    size_t i, n = 0;
    int pass;
    for (pass = 0; pass < 2; ++pass)
        for (i = 0; i < sizeof pclr__nvrtc_names / sizeof pclr__nvrtc_names[0]; ++i)
            if ((pass == 0) == (driver_major <= 0 || pclr__nvrtc_majors[i] == 0 || pclr__nvrtc_majors[i] <= driver_major))
                names[n++] = pclr__nvrtc_names[i];
    return pclr__library_open(&pclr__nvrtc_library, given, path, names, n, api, sizeof *api, lib, name, name_cap, why, why_cap);
}

PCLR_API pclr_result pclr_cuda_load_api(const char *path, pclr_cuda_api *api, char *why, size_t why_cap) {
    return pclr__load_api(&pclr__cuda_library, path, api, sizeof *api, why, why_cap);
}
PCLR_API pclr_result pclr_nvrtc_load_api(const char *path, pclr_nvrtc_api *api, char *why, size_t why_cap) {
    return pclr__load_api(&pclr__nvrtc_library, path, api, sizeof *api, why, why_cap);
}

/* ------------------------------------------------------------ errors, current context */
static pclr_result pclr__cuda_fail(pclr_cuda_context *ctx, CUresult r, const char *call) {
    const char *name = NULL, *str = NULL;
    if (ctx->cu.GetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA error";
    if (ctx->cu.GetErrorString(r, &str) != CUDA_SUCCESS || !str) str = "unknown error";
    return pclr__fail(&ctx->e, r == CUDA_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : r == CUDA_ERROR_NO_DEVICE ? PCLR_ERR_NO_DEVICE : PCLR_ERR_BACKEND,
                      "%s failed: %s (%s, code %d)", call, name, str, (int)r);
}

/* Makes the context's CUcontext current unless it already is; *pushed says whether to pop. */
static pclr_result pclr__cuda_enter(pclr_cuda_context *ctx, int *pushed) {
    CUcontext cur = NULL;
    CUresult r;
    *pushed = 0;
    if (ctx->cu.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx->cu_ctx) return PCLR_OK;
    if ((r = ctx->cu.CtxPushCurrent(ctx->cu_ctx)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuCtxPushCurrent");
    *pushed = 1;
    return PCLR_OK;
}

static void pclr__cuda_leave(pclr_cuda_context *ctx, int pushed) {
    CUcontext dummy = NULL;
    if (pushed) ctx->cu.CtxPopCurrent(&dummy);
}

/* pclr__cuda_enter, unless the call in progress has made the context current already (ctx->current:
   no driver call then). Only inside a call that claimed the context. */
static pclr_result pclr__cuda_use(pclr_cuda_context *ctx, int *pushed) {
    *pushed = 0;
    return ctx->current ? PCLR_OK : pclr__cuda_enter(ctx, pushed);
}

/* ------------------------------------------------------------ compiling */
/* NVIDIA GPUs (the H100 study, bench/results): 8 loads in flight per thread
   and half occupancy stream as fast as full occupancy, and halve the
   partials the last group folds. Layouts load one element at a time and
   their teams keep several rows in flight: 4 (bench_rows --unroll). */
static void pclr__cuda_defaults(const pclr__engine *e, pclr_config *c) {
    (void)e;
    if (c->unroll == 0) c->unroll = pclr__gpu_hist_unroll(c);
    if (c->unroll == 0) c->unroll = c->layout != PCLR_LAYOUT_ONE ? 4 : 8;
    if (c->groups_per_unit == 0) c->groups_per_unit = c->group_size == 0 ? 4 : c->group_size < 1024 ? 1024 / c->group_size : 1;
}

/* The target and, for large groups, a register cap so that a group always
   fits on a multiprocessor (besides the kernel's __launch_bounds__). */
static void pclr__cuda_append_options(const char *target, int regs_per_block, const pclr_config *c, char *buf, size_t cap,
                                      size_t *len) {
    int maxreg = regs_per_block / c->group_size;
    pclr__appendf(buf, cap, len, "%s%s", *len ? " " : "", target);
    if (maxreg < 255) pclr__appendf(buf, cap, len, " --maxrregcount=%d", maxreg < 16 ? 16 : maxreg);
}

static void pclr__cuda_options(const pclr__engine *e, const pclr_config *c, char *buf, size_t cap, size_t *len) {
    const pclr_cuda_context *ctx = (const pclr_cuda_context *)e;
    pclr__cuda_append_options(ctx->target_opt, ctx->regs_per_block, c, buf, cap, len);
}

/* Compiles src with NVRTC (options space-separated in opts) into *image (PTX
   or CUBIN, from e's allocator); the log goes to the engine. */
static pclr_result pclr__nvrtc_compile(pclr__engine *e, const pclr_nvrtc_api *rtc, const char *src, const char *opts,
                                       int cubin, char **image, size_t *image_size) {
    char store[512], *argv[16], *p = store;
    nvrtcProgram prog = NULL;
    nvrtcResult nr;
    size_t size = 0;
    int argc = 0;
    pclr_result r = PCLR_OK;
    *image = NULL;
    pclr__copy(store, sizeof store, opts);
    while (*p && argc < 16) { /* split the options on spaces */
        argv[argc++] = p;
        p += strcspn(p, " ");
        if (*p) *p++ = '\0';
    }
    if (cubin && (!rtc->GetCUBIN || !rtc->GetCUBINSize))
        return pclr__fail(e, PCLR_ERR_BUILD_FAILED, "this NVRTC cannot produce CUBIN (nvrtcGetCUBIN is missing)");
    if ((nr = rtc->CreateProgram(&prog, src, "pclreduce.cu", 0, NULL, NULL)) != NVRTC_SUCCESS)
        return pclr__fail(e, nr == NVRTC_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED,
                          "nvrtcCreateProgram failed: %s", rtc->GetErrorString(nr));
    nr = rtc->CompileProgram(prog, argc, (const char *const *)argv);
    if (rtc->GetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1 && (p = (char *)pclr__alloc(e, size)) != NULL) {
        if (rtc->GetProgramLog(prog, p) == NVRTC_SUCCESS) pclr__set_log(e, p, strlen(p));
        pclr__free(e, p);
    } else {
        pclr__set_log(e, "", 0);
    }
    if (nr != NVRTC_SUCCESS) {
        r = pclr__fail(e, nr == NVRTC_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED,
                       "nvrtcCompileProgram failed (%s) with options %s; see the build log (pclr_cuda_build_log, pclr_build_log)", rtc->GetErrorString(nr), opts);
    } else if ((nr = cubin ? rtc->GetCUBINSize(prog, &size) : rtc->GetPTXSize(prog, &size)) != NVRTC_SUCCESS || !size) {
        r = pclr__fail(e, PCLR_ERR_BUILD_FAILED, "%s failed: %s", cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize",
                       nr != NVRTC_SUCCESS ? rtc->GetErrorString(nr) : "empty output");
    } else if (!(*image = (char *)pclr__alloc(e, size))) {
        r = pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the %lu-byte compiled kernel", (unsigned long)size);
    } else if ((nr = cubin ? rtc->GetCUBIN(prog, *image) : rtc->GetPTX(prog, *image)) != NVRTC_SUCCESS) {
        r = pclr__fail(e, PCLR_ERR_BUILD_FAILED, "%s failed: %s", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", rtc->GetErrorString(nr));
        pclr__free(e, *image);
        *image = NULL;
    } else {
        *image_size = size;
    }
    rtc->DestroyProgram(&prog);
    return r;
}

static pclr_result pclr__cuda_load_module(pclr_cuda_context *ctx, const pclr_config *c, const char *src, const void *image,
                                          void **program) {
    pclr__cuda_program *p;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    CUresult r;
    int max_threads = 0, d = ctx->features.driver_version;
    if ((r = ctx->cu.ModuleLoadData(&mod, image)) != CUDA_SUCCESS) {
        pclr__cuda_fail(ctx, r, "cuModuleLoadData");
        return pclr__fail(&ctx->e, r == CUDA_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED,
                          "%s loading %s from NVRTC %d.%d into driver %d.%d%s", ctx->e.last_error, ctx->target_opt + 21,
                          ctx->rtc_major, ctx->rtc_minor, d / 1000, d % 1000 / 10,
                          ctx->rtc_major * 1000 > d ? "; NVRTC is newer than the driver: set PCLR_NVRTC_LIBRARY to the driver's version" : "");
    }
    if ((r = ctx->cu.ModuleGetFunction(&fn, mod, PCLR_KERNEL_NAME)) != CUDA_SUCCESS) {
        ctx->cu.ModuleUnload(mod);
        return pclr__cuda_fail(ctx, r, "cuModuleGetFunction");
    }
    if (ctx->cu.FuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) == CUDA_SUCCESS && max_threads < c->group_size) {
        ctx->cu.ModuleUnload(mod);
        return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE,
                          "the kernel for group size %d fits only %d threads per block on this device (registers)", c->group_size, max_threads);
    }
    if (!(p = (pclr__cuda_program *)pclr__alloc(&ctx->e, sizeof *p))) {
        ctx->cu.ModuleUnload(mod);
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a module");
    }
    p->module = mod;
    p->fn = fn;
    /* sm_90 and a driver with cuLaunchKernelEx; the kernel must wait for the previous grid itself */
    p->dependent = ctx->features.cc_major >= 9 && ctx->cu.LaunchKernelEx && src && strstr(src, PCLR__TEXT_GRID_DEPENDENCY) != NULL;
    if (!ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor ||
        ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&p->resident, fn, c->group_size, 0) != CUDA_SUCCESS)
        p->resident = 0;
    *program = p;
    return PCLR_OK;
}

static pclr_result pclr__cuda_build(pclr__engine *e, const pclr_config *c, const char *src, const char *opts, const void *bin,
                                    size_t bin_size, void **program, void **keep, size_t *keep_size) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    char *image = NULL;
    size_t size = 0;
    int pushed;
    pclr_result r;
    (void)bin_size;
    if ((r = pclr__cuda_use(ctx, &pushed)) != PCLR_OK) return r;
    if (bin) {
        r = pclr__cuda_load_module(ctx, c, src, bin, program);
    } else if ((r = pclr__nvrtc_compile(e, &ctx->rtc, src, opts, ctx->cubin, &image, &size)) == PCLR_OK) {
        r = pclr__cuda_load_module(ctx, c, src, image, program);
        if (r == PCLR_OK && keep) { *keep = image; *keep_size = size; image = NULL; }
        pclr__free(e, image);
    }
    pclr__cuda_leave(ctx, pushed);
    return r;
}

static void pclr__cuda_release(pclr__engine *e, void *program) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    ctx->cu.ModuleUnload(((pclr__cuda_program *)program)->module); /* destroy made the context current */
    pclr__free(e, program);
}

/* ------------------------------------------------------------ lifecycle */
static int pclr__cuda_attr(pclr_cuda_context *ctx, CUdevice_attribute a, int dflt) {
    int v = 0;
    return ctx->cu.DeviceGetAttribute(&v, a, ctx->device) == CUDA_SUCCESS ? v : dflt;
}

/* CUBIN for the device's exact arch when NVRTC knows it, else PTX for the
   newest arch NVRTC knows that the device can run (the driver JITs it). */
static pclr_result pclr__cuda_pick_target(pclr_cuda_context *ctx) {
    const int dev_arch = ctx->features.cc_major * 10 + ctx->features.cc_minor;
    int best = dev_arch, oldest = 0, exact = 1, count = 0, i, archs[128];
    if (ctx->rtc.GetNumSupportedArchs && ctx->rtc.GetSupportedArchs && ctx->rtc.GetNumSupportedArchs(&count) == NVRTC_SUCCESS &&
        count > 0 && count <= 128 && ctx->rtc.GetSupportedArchs(archs) == NVRTC_SUCCESS) {
        for (best = exact = i = 0; i < count; ++i) {
            exact |= archs[i] == dev_arch;
            if (archs[i] <= dev_arch && archs[i] > best) best = archs[i];
            if (!oldest || archs[i] < oldest) oldest = archs[i];
        }
        if (!best)
            return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "NVRTC %d.%d (%s) cannot compile for sm_%d (the oldest "
                              "arch it knows is sm_%d); set PCLR_NVRTC_LIBRARY to an older NVRTC",
                              ctx->rtc_major, ctx->rtc_minor, ctx->rtc_name, dev_arch, oldest);
    }
    ctx->cubin = exact && ctx->rtc.GetCUBIN != NULL;
    ctx->target_arch = ctx->cubin ? dev_arch : best;
    snprintf(ctx->target_opt, sizeof ctx->target_opt, "--gpu-architecture=%s_%d", ctx->cubin ? "sm" : "compute", ctx->target_arch);
    return PCLR_OK;
}

/* Device memory of `bytes` zero bytes into *mem (0 on failure). */
static pclr_result pclr__cuda_zeroed(pclr_cuda_context *ctx, CUdeviceptr *mem, size_t bytes, const char *what) {
    void *zeros = pclr__alloc(&ctx->e, bytes);
    pclr_result pr = PCLR_OK;
    CUresult r;
    *mem = 0;
    if (!zeros) return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory (%s)", what);
    memset(zeros, 0, bytes);
    if ((r = ctx->cu.MemAlloc(mem, bytes)) != CUDA_SUCCESS) pr = pclr__cuda_fail(ctx, r, what);
    else if ((r = ctx->cu.MemcpyHtoD(*mem, zeros, bytes)) != CUDA_SUCCESS) pr = pclr__cuda_fail(ctx, r, "cuMemcpyHtoD");
    pclr__free(&ctx->e, zeros);
    if (pr != PCLR_OK && *mem) {
        ctx->cu.MemFree(*mem);
        *mem = 0;
    }
    return pr;
}

/* Everything of create that needs the CUcontext current. */
static pclr_result pclr__cuda_init_current(pclr_cuda_context *ctx, const pclr_cuda_desc *d) {
    pclr_cuda_features *f = &ctx->features;
    uint32_t ctl[PCLR__CUDA_CTL_BYTES / 4];
    char why[512];
    CUresult r;
    pclr_result pr;
    int i;
    if (d->context && (r = ctx->cu.CtxGetDevice(&ctx->device)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuCtxGetDevice");
    if ((r = ctx->cu.DeviceGetName(f->device_name, (int)sizeof f->device_name, ctx->device)) != CUDA_SUCCESS)
        return pclr__cuda_fail(ctx, r, "cuDeviceGetName");
    f->device_name[sizeof f->device_name - 1] = '\0';
    f->cc_major = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    f->cc_minor = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    f->compute_units = (uint32_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1);
    f->max_group_size = (uint32_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
    f->l2_bytes = (size_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0);
    ctx->regs_per_block = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536);
    if (!f->compute_units) f->compute_units = 1;
    if ((pr = pclr__cuda_nvrtc(d->nvrtc_api, d->nvrtc_library, f->driver_version / 1000, &ctx->rtc, &ctx->rtc_lib,
                               ctx->rtc_name, sizeof ctx->rtc_name, why, sizeof why)) != PCLR_OK)
        return pclr__fail(&ctx->e, pr, "%s", why);
    if (ctx->rtc.Version(&ctx->rtc_major, &ctx->rtc_minor) != NVRTC_SUCCESS) ctx->rtc_major = ctx->rtc_minor = 0;
    f->nvrtc_major = ctx->rtc_major;
    f->nvrtc_minor = ctx->rtc_minor;
    if ((pr = pclr__cuda_pick_target(ctx)) != PCLR_OK) return pr;
    /* the engine's view */
    pclr__copy(ctx->e.device, sizeof ctx->e.device, f->device_name);
    snprintf(ctx->e.driver, sizeof ctx->e.driver, "%d", f->driver_version);
    snprintf(ctx->e.build_id, sizeof ctx->e.build_id, "cuda %s sm_%d%d driver %d nvrtc %d.%d", f->device_name, f->cc_major,
             f->cc_minor, f->driver_version, ctx->rtc_major, ctx->rtc_minor);
    ctx->e.facts.compute_units = f->compute_units;
    ctx->e.facts.max_group_size = f->max_group_size;
    ctx->e.cache_bytes = f->l2_bytes;
    /* scratch: the control words (slot i: type uint/int = i / 3, op sum/min/max = i % 3) */
    if ((r = ctx->cu.MemAlloc(&ctx->ctl, PCLR__CUDA_CTL_BYTES)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuMemAlloc");
    memset(ctl, 0, sizeof ctl);
    for (i = 0; i < 6; ++i) pclr_identity(i < 3 ? PCLR_UINT : PCLR_INT, (pclr_op)(PCLR_SUM + i % 3), &ctl[PCLR__CUDA_CTL_SLOTS / 4 + i]);
    if ((r = ctx->cu.MemcpyHtoD(ctx->ctl, ctl, sizeof ctl)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuMemcpyHtoD");
    /* the partials for the most groups a configuration asks (64 per unit, 64-byte states), and
       the words 4- and 8-byte states are published in (16 bytes a group, zeroed: the kernels leave them so), made
       once: a reduce then neither allocates nor synchronizes, so it can be captured into a CUDA
       graph, and a graph's copy of the address stays valid */
    ctx->partials_bytes = (size_t)f->compute_units * 64u * 64u;
    if ((r = ctx->cu.MemAlloc(&ctx->partials, ctx->partials_bytes)) != CUDA_SUCCESS) {
        ctx->partials = 0;
        ctx->partials_bytes = 0;
        return pclr__cuda_fail(ctx, r, "cuMemAlloc (partials)");
    }
    if ((pr = pclr__cuda_zeroed(ctx, &ctx->words, (size_t)f->compute_units * 64u * 16u, "cuMemAlloc (published states)")) != PCLR_OK)
        return pr;
    /* the blocking result: mapped pinned host memory the kernel writes directly */
    if (ctx->cu.MemHostAlloc(&ctx->host_result, 64, CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS) {
        ctx->host_result = NULL;
    } else if (ctx->cu.MemHostGetDevicePointer(&ctx->host_result_dev, ctx->host_result, 0) != CUDA_SUCCESS) {
        ctx->cu.MemFreeHost(ctx->host_result);
        ctx->host_result = NULL;
    }
    return PCLR_OK;
}

/* The driver's table (the caller's, linked or loaded) and cuInit, for create
   and pclr_device_count: PCLR_ERR_NO_DRIVER or PCLR_ERR_NO_DEVICE and why. */
static pclr_result pclr__cuda_driver_open(const pclr_cuda_api *given, const char *path, pclr_cuda_api *cu, char *name,
                                          size_t name_cap, char *why, size_t why_cap) {
    void *lib;
    const char *en = NULL, *es = NULL;
    CUresult r;
    pclr_result pr;
    if ((pr = pclr__library_open(&pclr__cuda_library, given, path, pclr__cuda_names, pclr__cuda_library.count, cu, sizeof *cu,
                                 &lib, name, name_cap, why, why_cap)) != PCLR_OK)
        return pr; /* the driver stays loaded: it starts threads at cuInit */
    if ((r = cu->Init(0)) == CUDA_SUCCESS) return PCLR_OK;
    if ((int)r == 34 /* CUDA_ERROR_STUB_LIBRARY */)
        return pclr__say(why, why_cap, PCLR_ERR_NO_DRIVER, "no CUDA driver (%s is the toolkit's stub library: cuInit failed "
                         "with CUDA_ERROR_STUB_LIBRARY)", name);
    if (cu->GetErrorName(r, &en) != CUDA_SUCCESS || !en) en = "CUDA error";
    if (cu->GetErrorString(r, &es) != CUDA_SUCCESS || !es) es = "unknown error";
    return pclr__say(why, why_cap, PCLR_ERR_NO_DEVICE, "cuInit failed: %s (%s, code %d)", en, es, (int)r);
}

/* The device desc names when it gives no context (the rule above pclr_cuda_desc): its ordinal in *ordinal. */
static pclr_result pclr__cuda_pick(pclr_cuda_context *ctx, const pclr_cuda_desc *d, int *ordinal) {
    int count = 0, i, best = -1, best_prohibited = 1;
    double best_score = -1.0;
    CUresult r;
    CUdevice dev;
    *ordinal = -1;
    if ((r = ctx->cu.DeviceGetCount(&count)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuDeviceGetCount"), PCLR_ERR_NO_DEVICE;
    if (d->device_number < 0)
        return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "device number %d (desc.device_number / pclr_desc.device) is not a device: 0 = the best, k > 0 = device k - 1",
                          d->device_number);
    if (d->device_number > 0) {
        if (d->device_number > count)
            return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no CUDA device %d (device number %d; there are %d)", d->device_number - 1,
                              d->device_number, count);
        *ordinal = d->device_number - 1;
        return PCLR_OK;
    }
    if (d->device_ordinal != 0) { /* deprecated spelling, 0-based */
        if (d->device_ordinal < 0 || d->device_ordinal >= count)
            return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no CUDA device %d (desc.device_ordinal, deprecated: 0-based; there are %d)",
                              d->device_ordinal, count);
        *ordinal = d->device_ordinal;
        return PCLR_OK;
    }
    for (i = 0; i < count; ++i) { /* the best: most multiprocessors x clock, not prohibited, lowest ordinal on ties */
        int sms = 0, khz = 0, mode = 0, prohibited;
        double score;
        if ((r = ctx->cu.DeviceGet(&dev, i)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuDeviceGet"), PCLR_ERR_NO_DEVICE;
        if (ctx->cu.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS) sms = 0;
        if (ctx->cu.DeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) != CUDA_SUCCESS || khz <= 0) khz = 1;
        if (ctx->cu.DeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev) != CUDA_SUCCESS) mode = 0;
        prohibited = mode == CU_COMPUTEMODE_PROHIBITED;
        score = (double)sms * (double)khz;
        if (best < 0 || (best_prohibited && !prohibited) || (prohibited == best_prohibited && score > best_score)) {
            best = i;
            best_score = score;
            best_prohibited = prohibited;
        }
    }
    if (best < 0) return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no CUDA device (cuDeviceGetCount says %d)", count);
    *ordinal = best;
    return PCLR_OK;
}

static pclr_result pclr__cuda_init(pclr_cuda_context *ctx, const pclr_cuda_desc *d) {
    char why[512];
    CUresult r;
    pclr_result pr;
    int ordinal = -1, pushed = 0;
    if ((pr = pclr__cuda_driver_open(d->cuda_api, d->cuda_library, &ctx->cu, ctx->cu_name, sizeof ctx->cu_name, why,
                                     sizeof why)) != PCLR_OK)
        return pclr__fail(&ctx->e, pr, "%s", why);
    if (ctx->cu.DriverGetVersion(&ctx->features.driver_version) != CUDA_SUCCESS) ctx->features.driver_version = 0;
    ctx->device_ordinal = -1;
    if (d->context) {
        ctx->cu_ctx = d->context;
    } else {
        if ((pr = pclr__cuda_pick(ctx, d, &ordinal)) != PCLR_OK) return pr;
        if ((r = ctx->cu.DeviceGet(&ctx->device, ordinal)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuDeviceGet"), PCLR_ERR_NO_DEVICE;
        if ((r = ctx->cu.DevicePrimaryCtxRetain(&ctx->cu_ctx, ctx->device)) != CUDA_SUCCESS) {
            ctx->cu_ctx = NULL;
            pr = pclr__cuda_fail(ctx, r, "cuDevicePrimaryCtxRetain");
            return pr == PCLR_ERR_BACKEND ? PCLR_ERR_NO_DEVICE : pr;
        }
        ctx->owns_primary = 1;
        ctx->device_ordinal = ordinal;
    }
    if ((pr = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return pr;
    pr = pclr__cuda_init_current(ctx, d);
    pclr__cuda_leave(ctx, pushed);
    if (pr == PCLR_OK) pclr__engine_files(&ctx->e, d->cache_dir, d->no_disk_cache, d->tune_file, d->no_tune_file);
    return pr;
}

PCLR_API void pclr_cuda_destroy(pclr_cuda_context *ctx) {
    pclr_allocator a;
    int pushed = 0;
    if (!ctx) return;
    if (ctx->cu_ctx && pclr__cuda_enter(ctx, &pushed) == PCLR_OK) {
        pclr__engine_free(&ctx->e);
        if (ctx->partials) ctx->cu.MemFree(ctx->partials);
        if (ctx->words) ctx->cu.MemFree(ctx->words);
        if (ctx->ctl) ctx->cu.MemFree(ctx->ctl);
        if (ctx->lay_ctl) ctx->cu.MemFree(ctx->lay_ctl);
        if (ctx->lay_states) ctx->cu.MemFree(ctx->lay_states);
        if (ctx->hist) ctx->cu.MemFree(ctx->hist);
        if (ctx->host_result) ctx->cu.MemFreeHost(ctx->host_result);
        pclr__cuda_leave(ctx, pushed);
    }
    pclr__engine_free(&ctx->e); /* what is left when the context could not be made current */
    if (ctx->owns_primary) ctx->cu.DevicePrimaryCtxRelease(ctx->device);
    pclr__lib_close(ctx->rtc_lib);
    a = ctx->e.alloc;
    a.free(ctx, a.user);
}

static void pclr__cuda_ops(pclr__backend_ops *ops);

PCLR_API pclr_result pclr_cuda_create(const pclr_cuda_desc *desc, pclr_cuda_context **out) {
    pclr_cuda_desc zero;
    pclr_allocator a;
    pclr_cuda_context *ctx;
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if ((r = pclr__create_check("pclr_cuda_create", desc->error, desc->error_cap, out != NULL, &desc->allocator, &a)) != PCLR_OK)
        return r;
    if (!(ctx = (pclr_cuda_context *)a.alloc(sizeof *ctx, a.user)))
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    memset(ctx, 0, sizeof *ctx);
    pclr__engine_init(&ctx->e, pclr__cuda_ops, &a);
    if ((r = pclr__cuda_init(ctx, desc)) != PCLR_OK) {
        pclr__say(desc->error, desc->error_cap, r, "%s", ctx->e.last_error);
        pclr_cuda_destroy(ctx);
        return r;
    }
    ctx->e.last_error[0] = '\0';
    *out = ctx;
    return PCLR_OK;
}

PCLR_API const pclr_cuda_features *pclr_cuda_get_features(const pclr_cuda_context *ctx) { return ctx ? &ctx->features : NULL; }
PCLR_API const pclr_cuda_api *pclr_cuda_get_api(const pclr_cuda_context *ctx) { return ctx ? &ctx->cu : NULL; }
PCLR_API const char *pclr_cuda_build_log(const pclr_cuda_context *ctx) { return pclr__engine_log(ctx ? &ctx->e : NULL); }
PCLR_API const char *pclr_cuda_last_error(const pclr_cuda_context *ctx) { return pclr__engine_error(ctx ? &ctx->e : NULL); }

PCLR_API pclr_result pclr_cuda_resolve(pclr_cuda_context *ctx, const pclr_config *cfg, pclr_config *out) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_resolve(&ctx->e, cfg, out));
}

PCLR_API pclr_result pclr_cuda_prepare(pclr_cuda_context *ctx, const pclr_config *cfg) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_prepare(&ctx->e, cfg));
}

/* ------------------------------------------------------------ memory: the engine's slots and the public calls */
/* One driver call with the context current (enter: pclr__cuda_enter, or pclr__cuda_use inside a call that claimed
   the context); names the call on failure. */
#define PCLR__CUDA_CALL(ctx, enter, call, name)                                                  \
    do {                                                                                         \
        int pushed_ = 0;                                                                         \
        CUresult r_;                                                                             \
        pclr_result pr_;                                                                         \
        if ((pr_ = enter((ctx), &pushed_)) != PCLR_OK) return pr_;                               \
        r_ = (call);                                                                             \
        pclr__cuda_leave((ctx), pushed_);                                                        \
        return r_ == CUDA_SUCCESS ? PCLR_OK : pclr__cuda_fail((ctx), r_, name);                  \
    } while (0)

/* The slots run inside a call that claimed the context (pclr__enter): pclr__cuda_use. The public
   memory calls below claim nothing (another thread may be in a reduce): pclr__cuda_enter. */
#define PCLR__CUDA_ENTER(claimed) ((claimed) ? pclr__cuda_use : pclr__cuda_enter)
static pclr_result pclr__cuda_alloc_as(pclr_cuda_context *ctx, int claimed, size_t bytes, CUdeviceptr *p) {
    *p = 0;
    PCLR__CUDA_CALL(ctx, PCLR__CUDA_ENTER(claimed), ctx->cu.MemAlloc(p, bytes), "cuMemAlloc");
}
static pclr_result pclr__cuda_write_as(pclr_cuda_context *ctx, int claimed, CUdeviceptr dst, const void *src, size_t bytes) {
    PCLR__CUDA_CALL(ctx, PCLR__CUDA_ENTER(claimed), ctx->cu.MemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}
static pclr_result pclr__cuda_read_as(pclr_cuda_context *ctx, int claimed, void *dst, CUdeviceptr src, size_t bytes) {
    PCLR__CUDA_CALL(ctx, PCLR__CUDA_ENTER(claimed), ctx->cu.MemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}
#undef PCLR__CUDA_ENTER
#undef PCLR__CUDA_CALL

static pclr_result pclr__cuda_alloc(pclr__engine *e, size_t bytes, pclr__mem *m) {
    CUdeviceptr p = 0;
    const pclr_result r = pclr__cuda_alloc_as((pclr_cuda_context *)e, 1, bytes, &p);
    m->addr = p;
    return r;
}
/* (pclr_buffer_destroy claims nothing: the context is made current here, whatever a reduce in flight did) */
static void pclr__cuda_free(pclr__engine *e, pclr__mem m) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    int pushed = 0;
    if (m.addr && pclr__cuda_enter(ctx, &pushed) == PCLR_OK) {
        ctx->cu.MemFree((CUdeviceptr)m.addr);
        pclr__cuda_leave(ctx, pushed);
    }
}
static pclr_result pclr__cuda_write(pclr__engine *e, pclr__mem m, size_t offset, const void *src, size_t bytes) {
    return pclr__cuda_write_as((pclr_cuda_context *)e, 1, (CUdeviceptr)m.addr + offset, src, bytes);
}
static pclr_result pclr__cuda_read(pclr__engine *e, pclr__mem m, size_t offset, void *dst, size_t bytes) {
    return pclr__cuda_read_as((pclr_cuda_context *)e, 1, dst, (CUdeviceptr)m.addr + offset, bytes);
}

/* A program's CUdeviceptr as a buffer: bytes 0 asks the driver for the rest of the allocation
   holding it (UINT64_MAX when the driver cannot place the pointer: no bound is checked then). */
static pclr_result pclr__cuda_wrap(pclr__engine *e, pclr__mem h, uint64_t bytes, pclr_buffer *out) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    CUdeviceptr base = 0, p = (CUdeviceptr)h.addr;
    size_t size = 0;
    int pushed = 0;
    pclr_result pr;
    if (!p) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "pclr_cuda_buffer: the device pointer is 0");
    out->handle = h;
    out->address = h.addr;
    out->bytes = bytes;
    if (bytes) return PCLR_OK;
    if ((pr = pclr__cuda_use(ctx, &pushed)) != PCLR_OK) return pr;
    out->bytes = ctx->cu.MemGetAddressRange(&base, &size, p) == CUDA_SUCCESS && p >= base && p - base <= size
               ? (uint64_t)(base + size - p) : UINT64_MAX;
    pclr__cuda_leave(ctx, pushed);
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cuda_alloc(pclr_cuda_context *ctx, size_t bytes, CUdeviceptr *out) {
    if (!out) return PCLR_ERR_NULL_POINTER;
    *out = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    return pclr__cuda_alloc_as(ctx, 0, bytes, out);
}
PCLR_API pclr_result pclr_cuda_free(pclr_cuda_context *ctx, CUdeviceptr ptr) {
    pclr__mem m;
    if (!ctx) return ptr ? PCLR_ERR_INVALID_CONTEXT : PCLR_OK;
    m.addr = ptr;
    pclr__cuda_free(&ctx->e, m);
    return PCLR_OK;
}
PCLR_API pclr_result pclr_cuda_copy_to_device(pclr_cuda_context *ctx, CUdeviceptr dst, const void *src, size_t bytes) {
    if ((!src || !dst) && bytes) return PCLR_ERR_NULL_POINTER;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    return bytes ? pclr__cuda_write_as(ctx, 0, dst, src, bytes) : PCLR_OK;
}
PCLR_API pclr_result pclr_cuda_copy_to_host(pclr_cuda_context *ctx, void *dst, CUdeviceptr src, size_t bytes) {
    if ((!src || !dst) && bytes) return PCLR_ERR_NULL_POINTER;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    return bytes ? pclr__cuda_read_as(ctx, 0, dst, src, bytes) : PCLR_OK;
}

/* ------------------------------------------------------------ the reduce's slots (the engine runs it: pclr__engine_reduce) */
/* Device memory of at least `bytes` in *mem (grown; waits for the context's work before freeing the old one,
   so a reduce that grows it cannot be captured into a graph). The context is current. */
static pclr_result pclr__cuda_grow(pclr_cuda_context *ctx, CUdeviceptr *mem, size_t *have, uint64_t bytes, const char *what) {
    CUdeviceptr p = 0;
    CUresult r;
    if (bytes <= *have) return PCLR_OK;
    if (bytes > SIZE_MAX) return pclr__fail(&ctx->e, PCLR_ERR_SIZE_OVERFLOW, "%s: %llu bytes", what, (unsigned long long)bytes);
    if (*mem && (r = ctx->cu.CtxSynchronize()) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuCtxSynchronize");
    if ((r = ctx->cu.MemAlloc(&p, (size_t)bytes)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, what);
    if (*mem) ctx->cu.MemFree(*mem);
    *mem = p;
    *have = (size_t)bytes;
    return PCLR_OK;
}

/* The scratch (see pclr__scratch_kind), made at create or on first need and kept: a reduce then
   neither allocates nor synchronizes, so it can be captured into a CUDA graph. The partials are
   made at create for every knob setting (64 groups per unit, 64-byte states); only an exact sum's
   partials finish so long that it needs more than 64 groups per unit (2^29 elements a group), or a
   layout's shared rows, grow them. The context is current (begin). */
static pclr_result pclr__cuda_scratch(pclr__engine *e, const pclr__entry *en, pclr__scratch_kind what, uint64_t bytes, pclr__mem *m) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    pclr_result pr = PCLR_OK;
    CUdeviceptr p = 0;
    switch (what) {
    case PCLR__SCRATCH_FOLD: /* what the one-array kernel folds through */
        if (en->cfg.op == PCLR_HISTOGRAM) { /* its counts */
            if (!ctx->hist) pr = pclr__cuda_zeroed(ctx, &ctx->hist, PCLR__HIST_SCRATCH_BYTES, "cuMemAlloc (a histogram's counts)");
            p = ctx->hist;
        } else if (pclr__zeroed_scratch_bytes(&en->cfg)) p = ctx->ctl + PCLR__CUDA_CTL_ZEROED; /* the exact sum's cells */
        else if (pclr__words_finish(&en->cfg, en->layout.size)) p = ctx->words; /* at most 64 groups a unit (pclr_plan) */
        else if (en->cfg.finish != PCLR_FINISH_ATOMIC) {
            pr = pclr__cuda_grow(ctx, &ctx->partials, &ctx->partials_bytes, bytes, "cuMemAlloc (partials)");
            p = ctx->partials;
        } else p = ctx->ctl + PCLR__CUDA_CTL_SLOTS + 4u * (uint32_t)pclr__atomic_slot(&en->cfg); /* the running value */
        break;
    case PCLR__SCRATCH_PARTIALS:
        pr = pclr__cuda_grow(ctx, &ctx->partials, &ctx->partials_bytes, bytes, "cuMemAlloc (partials)");
        p = ctx->partials;
        break;
    case PCLR__SCRATCH_COUNTER: p = ctx->ctl + PCLR__CUDA_CTL_COUNTER; break;
    case PCLR__SCRATCH_TICKETS: /* the status word and the tickets, zeroed once: the kernels leave them zero */
        if (!ctx->lay_ctl) { /* shared rows and tiles: fewer than 4 x the groups (pclr__plan_layout) */
            const size_t tickets = (size_t)ctx->features.compute_units * 256 + 64;
            pr = pclr__cuda_zeroed(ctx, &ctx->lay_ctl, tickets * 4, "cuMemAlloc (layout tickets)");
        }
        p = ctx->lay_ctl;
        break;
    case PCLR__SCRATCH_RESULT: /* a blocking reduce's states: up to 64 bytes in the mapped pinned host memory the kernel writes directly */
        if (bytes <= 64) p = ctx->host_result ? ctx->host_result_dev : ctx->ctl + PCLR__CUDA_CTL_RESULT;
        else {
            pr = pclr__cuda_grow(ctx, &ctx->lay_states, &ctx->lay_states_bytes, bytes, "cuMemAlloc (states)");
            p = ctx->lay_states;
        }
        break;
    default: return pclr__fail(e, PCLR_ERR_INVALID_ARGUMENT, "no such scratch (%d)", (int)what);
    }
    m->addr = pr == PCLR_OK ? p : 0;
    return pr;
}

/* A dependent grid takes at most half the groups that fit at once: the next reduce's groups are
   then resident, waiting, when this one ends (a second wave of them costs ~1.5 us). */
static void pclr__cuda_limit(pclr__engine *e, const pclr__entry *en, pclr_launch *plan) {
    const pclr__cuda_program *prog = (const pclr__cuda_program *)en->program;
    const uint64_t half = (uint64_t)e->facts.compute_units * (uint64_t)(prog->resident / 2);
    if (prog->dependent && half > 0 && plan->groups > half) plan->groups = half;
}

/* The context current for the reduce: pushed here (when it is not current already), popped by
   complete. A deprecated verb or the tuner has made it current for its whole call: nothing then. */
static pclr_result pclr__cuda_begin(pclr__engine *e, const pclr_sync *sync, int blocking) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    pclr_result pr;
    (void)sync;
    (void)blocking;
    if (ctx->current) return PCLR_OK;
    if ((pr = pclr__cuda_enter(ctx, &ctx->begin_pushed)) != PCLR_OK) return pr;
    ctx->begun = ctx->current = 1;
    return PCLR_OK;
}

static CUstream pclr__cuda_stream(const pclr_sync *sync) { return sync && sync->cuda_stream ? (CUstream)sync->cuda_stream : NULL; }

/* One pass: the kernel's arguments in the generated order (pclr__pass), on sync's stream. */
static pclr_result pclr__cuda_launch(pclr__engine *e, const pclr__pass *p, const pclr_sync *sync) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    const pclr__entry *en = p->en;
    const pclr__cuda_program *prog = (const pclr__cuda_program *)en->program;
    const CUstream stream = pclr__cuda_stream(sync);
    CUdeviceptr x = (CUdeviceptr)p->x.addr, y = (CUdeviceptr)p->y.addr, offsets = (CUdeviceptr)p->offsets.addr;
    CUdeviceptr out = (CUdeviceptr)(p->out.addr + p->out_index * en->layout.size), fold = (CUdeviceptr)p->fold.addr;
    CUdeviceptr counter = (CUdeviceptr)p->counter.addr;
    uint64_t x_offset = p->x_offset, y_offset = p->y_offset, n = p->n, rows = 0, cols = 0, pitch = 0, split = 0;
    uint64_t values[PCLR_MAP_MAX_PARAMS];
    void *args[13 + PCLR_MAP_MAX_PARAMS];
    int k = 0, j;
    CUresult r;
    args[k++] = &x;
    args[k++] = &x_offset;
    if (p->b) { /* a layout: its shape, offsets, and the groups sharing a row or tile */
        rows = p->b->shape.rows;
        cols = p->b->shape.cols;
        pitch = p->b->shape.pitch;
        split = p->b->plan.split;
        args[k++] = &rows;
        args[k++] = &cols;
        args[k++] = &pitch;
        args[k++] = &offsets;
    }
    args[k++] = &n;
    if (p->b) args[k++] = &split;
    args[k++] = &out;
    args[k++] = &fold;
    args[k++] = &counter;
    if (en->y_size) { /* a map's y, then its parameters */
        args[k++] = &y;
        args[k++] = &y_offset;
    }
    for (j = 0; j < en->params; ++j) {
        pclr__param_arg(en->param[j], p->params ? p->params[j] : 0.0, &values[j]);
        args[k++] = &values[j];
    }
    if (!p->b && prog->dependent) { /* back-to-back reduces: the next grid starts while this one finishes */
        CUlaunchConfig lc;
        CUlaunchAttribute at;
        memset(&lc, 0, sizeof lc);
        memset(&at, 0, sizeof at);
        at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        at.value.programmaticStreamSerializationAllowed = 1;
        lc.gridDimX = (unsigned int)p->groups;
        lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = p->group_size;
        lc.blockDimY = lc.blockDimZ = 1;
        lc.hStream = stream;
        lc.attrs = &at;
        lc.numAttrs = 1;
        r = ctx->cu.LaunchKernelEx(&lc, prog->fn, args, NULL);
    } else {
        r = ctx->cu.LaunchKernel(prog->fn, (unsigned int)p->groups, 1, 1, p->group_size, 1, 1, 0, stream, args, NULL);
    }
    return r == CUDA_SUCCESS ? PCLR_OK : pclr__cuda_fail(ctx, r, "cuLaunchKernel");
}

/* After the last pass: blocking (host set), waits for the stream and copies the states: from the
   mapped pinned memory the kernel wrote (no driver call), else from the device. Then pops what
   begin pushed, whether the passes ran or not. */
static pclr_result pclr__cuda_complete(pclr__engine *e, const pclr_sync *sync, int ok, pclr__mem src, size_t bytes, void *host) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    pclr_result pr = PCLR_OK;
    CUresult r;
    if (ok && host) {
        if ((r = ctx->cu.StreamSynchronize(pclr__cuda_stream(sync))) != CUDA_SUCCESS) pr = pclr__cuda_fail(ctx, r, "cuStreamSynchronize");
        else if (ctx->host_result && (CUdeviceptr)src.addr == ctx->host_result_dev) memcpy(host, ctx->host_result, bytes);
        else if ((r = ctx->cu.MemcpyDtoH(host, (CUdeviceptr)src.addr, bytes)) != CUDA_SUCCESS) pr = pclr__cuda_fail(ctx, r, "cuMemcpyDtoH");
    }
    if (ctx->begun) {
        ctx->begun = ctx->current = 0;
        pclr__cuda_leave(ctx, ctx->begin_pushed);
        ctx->begin_pushed = 0;
    }
    return pr;
}

/* ------------------------------------------------------------ the deprecated verbs: thin wrappers of the engine's reduce */
/* ptr (0: none) as a buffer in *buf, and *into pointed at it. */
static pclr_result pclr__cuda_wrap_ptr(pclr_cuda_context *ctx, CUdeviceptr ptr, uint64_t bytes, pclr_buffer *buf, const pclr_buffer **into) {
    pclr__mem h;
    pclr_result r;
    if (!ptr) return PCLR_OK;
    h.addr = ptr;
    if ((r = pclr__cuda_wrap(&ctx->e, h, bytes, buf)) == PCLR_OK) *into = buf;
    return r;
}

/* A verb's CUdeviceptrs as stack buffers (0: none), the input, and the engine's reduce: blocking into
   results (sized on trust, as before) or async into out's first states. The context is made current
   once for the whole call, as the old reduce did (the wraps' driver queries and the reduce's slots then
   make no driver call for it). An async `out` is not bounded (as before: no driver query per call). */
static pclr_result pclr__cuda_verb(pclr_cuda_context *ctx, const char *fn, const pclr_config *cfg, int batched, int blocking,
                                   CUdeviceptr x, uint64_t x_offset, CUdeviceptr y, uint64_t y_offset, const double *params,
                                   CUdeviceptr offsets, uint64_t n, CUstream stream, CUdeviceptr out, void *results) {
    pclr_buffer xb, yb, ob, sb;
    const pclr_buffer *states = NULL;
    pclr_input in;
    pclr_sync sync;
    pclr_result r;
    int pushed = 0;
    if (cfg && (cfg->layout != PCLR_LAYOUT_ONE) != batched)
        return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_COMBINATION, batched ? "%s: the batched reduce needs a layout (rows, columns or segments)"
                          : "%s: a layout (cfg.layout) reduces through pclr_cuda_reduce_batched", fn);
    memset(&in, 0, sizeof in);
    memset(&sync, 0, sizeof sync);
    in.x_offset = x_offset;
    in.y_offset = y_offset;
    in.params = params;
    in.n = n;
    sync.cuda_stream = (void *)stream;
    if ((r = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return r;
    ctx->current = 1;
    if ((r = pclr__cuda_wrap_ptr(ctx, x, 0, &xb, &in.x)) == PCLR_OK && (r = pclr__cuda_wrap_ptr(ctx, y, 0, &yb, &in.y)) == PCLR_OK &&
        (r = pclr__cuda_wrap_ptr(ctx, offsets, 0, &ob, &in.offsets)) == PCLR_OK &&
        (r = pclr__cuda_wrap_ptr(ctx, out, UINT64_MAX, &sb, &states)) == PCLR_OK)
        r = blocking ? pclr__engine_blocking(&ctx->e, fn, cfg, &in, results, SIZE_MAX, &sync)
                    : pclr__engine_async(&ctx->e, fn, cfg, &in, states, 0, &sync);
    ctx->current = 0;
    pclr__cuda_leave(ctx, pushed);
    return r;
}

PCLR_API pclr_result pclr_cuda_reduce(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in, uint64_t offset,
                                      uint64_t n, CUstream stream, void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cuda_verb(ctx, "pclr_cuda_reduce", cfg, 0, 1, in, offset, 0, 0, NULL, 0, n, stream, 0, result));
}

PCLR_API pclr_result pclr_cuda_reduce_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in,
                                            uint64_t offset, uint64_t n, CUdeviceptr out, CUstream stream) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cuda_verb(ctx, "pclr_cuda_reduce_async", cfg, 0, 0, in, offset, 0, 0, NULL, 0, n, stream, out, NULL));
}

PCLR_API pclr_result pclr_cuda_reduce_map(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                          CUdeviceptr y, uint64_t y_offset, uint64_t n, const double *params, CUstream stream,
                                          void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy,
                   pclr__cuda_verb(ctx, "pclr_cuda_reduce_map", cfg, 0, 1, x, x_offset, y, y_offset, params, 0, n, stream, 0, result));
}

PCLR_API pclr_result pclr_cuda_reduce_map_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                                CUdeviceptr y, uint64_t y_offset, uint64_t n, const double *params, CUdeviceptr out,
                                                CUstream stream) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy,
                   pclr__cuda_verb(ctx, "pclr_cuda_reduce_map_async", cfg, 0, 0, x, x_offset, y, y_offset, params, 0, n, stream, out, NULL));
}

PCLR_API pclr_result pclr_cuda_reduce_batched(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                              CUdeviceptr y, uint64_t y_offset, const double *params, CUdeviceptr offsets, uint64_t n,
                                              CUstream stream, void *results) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cuda_verb(ctx, "pclr_cuda_reduce_batched", cfg, 1, 1, x, x_offset, y, y_offset, params, offsets, n,
                                                 stream, 0, results));
}

PCLR_API pclr_result pclr_cuda_reduce_batched_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr x, uint64_t x_offset,
                                                    CUdeviceptr y, uint64_t y_offset, const double *params, CUdeviceptr offsets,
                                                    uint64_t n, CUdeviceptr out, CUstream stream) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__cuda_verb(ctx, "pclr_cuda_reduce_batched_async", cfg, 1, 0, x, x_offset, y, y_offset, params, offsets,
                                                 n, stream, out, NULL));
}

/* ------------------------------------------------------------ tuner: events around a batch on the default stream */
static pclr_result pclr__cuda_tune_begin(pclr__engine *e) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    CUresult r;
    pclr_result pr;
    if ((pr = pclr__cuda_use(ctx, &ctx->tune_pushed)) != PCLR_OK) return pr; /* until tune_end */
    if ((r = ctx->cu.EventCreate(&ctx->tune_start, 0)) != CUDA_SUCCESS || (r = ctx->cu.EventCreate(&ctx->tune_stop, 0)) != CUDA_SUCCESS) {
        if (ctx->tune_start) ctx->cu.EventDestroy(ctx->tune_start);
        ctx->tune_start = NULL;
        pclr__cuda_leave(ctx, ctx->tune_pushed);
        ctx->tune_pushed = 0;
        return pclr__cuda_fail(ctx, r, "cuEventCreate");
    }
    ctx->tune_held = !ctx->current; /* the timed reduces' begin and complete leave it current */
    ctx->current = 1;
    return PCLR_OK;
}
/* `calls` reductions through the engine's async reduce on the tuner's stream (the legacy default stream,
   which the events are recorded on): one array's states into the result cell, a layout's into out. */
static double pclr__cuda_tune_time(pclr__engine *e, const pclr_config *c, const pclr_buffer *pool, const pclr_buffer *out, uint64_t n,
                                   const uint64_t *offsets, int calls) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    const pclr_buffer *states = out;
    pclr_buffer cell;
    pclr_input in;
    pclr_sync sync;
    float ms = 0.0f;
    int i, ok = 1;
    memset(&in, 0, sizeof in);
    memset(&sync, 0, sizeof sync);
    sync.cuda_stream = NULL; /* the tuner's stream */
    in.x = pool;
    in.n = n;
    if (c->layout == PCLR_LAYOUT_ONE) {
        memset(&cell, 0, sizeof cell);
        cell.handle.addr = ctx->ctl + PCLR__CUDA_CTL_RESULT;
        cell.address = cell.handle.addr;
        cell.bytes = 64;
        states = &cell;
    }
    if (ctx->cu.EventRecord(ctx->tune_start, NULL) != CUDA_SUCCESS) return -1.0;
    for (i = 0; i < calls && ok; ++i) { /* (inside pclr_tune's call: the engine's form, not a public one that claims the context) */
        in.x_offset = offsets[i];
        ok = pclr__engine_async(e, "pclr_tune", c, &in, states, 0, &sync) == PCLR_OK;
    }
    if (!ok || ctx->cu.EventRecord(ctx->tune_stop, NULL) != CUDA_SUCCESS || ctx->cu.EventSynchronize(ctx->tune_stop) != CUDA_SUCCESS ||
        ctx->cu.EventElapsedTime(&ms, ctx->tune_start, ctx->tune_stop) != CUDA_SUCCESS)
        return -1.0;
    return ms * 1e-3;
}
static void pclr__cuda_tune_end(pclr__engine *e) {
    pclr_cuda_context *ctx = (pclr_cuda_context *)e;
    if (ctx->tune_start) ctx->cu.EventDestroy(ctx->tune_start);
    if (ctx->tune_stop) ctx->cu.EventDestroy(ctx->tune_stop);
    ctx->tune_start = ctx->tune_stop = NULL;
    if (ctx->tune_held) ctx->current = 0;
    ctx->tune_held = 0;
    pclr__cuda_leave(ctx, ctx->tune_pushed);
    ctx->tune_pushed = 0;
}

PCLR_API pclr_result pclr_cuda_tune(pclr_cuda_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                    pclr_tune_entry *out, size_t cap, size_t *count) {
    pclr_result r;
    int pushed = 0;
    if (count) *count = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!pclr__enter(&ctx->e.busy)) return PCLR_ERR_BUSY;
    if ((r = pclr__cuda_enter(ctx, &pushed)) == PCLR_OK) {
        r = pclr__engine_tune(&ctx->e, type, op, opt, out, cap, count);
        pclr__cuda_leave(ctx, pushed);
    }
    return pclr__leave(&ctx->e.busy, r);
}

/* ------------------------------------------------------------ describe, compile check, the generic context */
static void pclr__cuda_describe(const pclr__engine *e, char *buf, size_t cap, size_t *len) {
    const pclr_cuda_context *ctx = (const pclr_cuda_context *)e;
    const pclr_cuda_features *f = &ctx->features;
    pclr__appendf(buf, cap, len, "CUDA backend (driver API + NVRTC)\n");
    pclr__appendf(buf, cap, len, "device: %s, compute capability %d.%d, %u multiprocessors, %u threads per block max, %lu KiB L2\n",
                  f->device_name, f->cc_major, f->cc_minor, f->compute_units, f->max_group_size, (unsigned long)(f->l2_bytes / 1024));
    if (ctx->device_ordinal >= 0) pclr__appendf(buf, cap, len, "context: primary context of device %d\n", ctx->device_ordinal);
    else pclr__appendf(buf, cap, len, "context: the caller's CUcontext\n");
    pclr__appendf(buf, cap, len, "driver: CUDA %d.%d (%s)\n", f->driver_version / 1000, f->driver_version % 1000 / 10, ctx->cu_name);
    pclr__appendf(buf, cap, len, "nvrtc: %d.%d (%s), code: %s for %s_%d\n", f->nvrtc_major, f->nvrtc_minor, ctx->rtc_name,
                  ctx->cubin ? "CUBIN" : "PTX (driver JIT)", ctx->cubin ? "sm" : "compute", ctx->target_arch);
    pclr__appendf(buf, cap, len, "blocking result: %s\n",
                  ctx->host_result ? "mapped pinned host memory" : "device memory + copy (mapping unavailable)");
}

PCLR_API size_t pclr_cuda_describe(const pclr_cuda_context *ctx, char *buf, size_t cap) {
    return pclr__engine_describe(ctx ? &ctx->e : NULL, buf, cap);
}

PCLR_API pclr_result pclr_cuda_compile_check(const pclr_config *cfg, const pclr_cuda_desc *desc, int arch, int cubin,
                                             char *log, size_t log_cap) {
    pclr_cuda_desc zero;
    pclr__engine e;
    pclr_nvrtc_api rtc;
    pclr_config c;
    pclr_result r;
    const char *why = NULL;
    char target[64], name[256], *src = NULL, *image = NULL, opts[512];
    size_t size = 0, len = 0;
    void *lib = NULL;
    if (log && log_cap) log[0] = '\0';
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if (!cfg) return pclr__say(log, log_cap, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    c = *cfg;
    if (c.backend == PCLR_BACKEND_AUTO) c.backend = PCLR_CUDA;
    pclr__cuda_defaults(NULL, &c);
    if ((r = pclr_config_resolve(&c, &c, &why)) != PCLR_OK) return pclr__say(log, log_cap, r, "invalid configuration: %s", why);
    if (c.backend != PCLR_CUDA) return pclr__say(log, log_cap, PCLR_ERR_UNSUPPORTED_COMBINATION, "the CUDA backend runs only cuda kernels");
    if (arch < 10 || arch > 9999)
        return pclr__say(log, log_cap, PCLR_ERR_INVALID_KNOB, "arch %d is not a compute capability number (e.g. 75, 90)", arch);
    memset(&e, 0, sizeof e);
    if (!pclr__allocator_of(&desc->allocator, &e.alloc))
        return pclr__say(log, log_cap, PCLR_ERR_NULL_POINTER, "desc.allocator needs both alloc and free, or neither");
    if ((r = pclr__cuda_nvrtc(desc->nvrtc_api, desc->nvrtc_library, 0, &rtc, &lib, name, sizeof name, log, log_cap)) != PCLR_OK) return r;
    snprintf(target, sizeof target, "--gpu-architecture=%s_%d", cubin ? "sm" : "compute", arch);
    pclr_kernel_options(&c, opts, sizeof opts, NULL);
    len = strlen(opts);
    pclr__cuda_append_options(target, 65536, &c, opts, sizeof opts, &len); /* 64K registers per block since sm_20 */
    if (pclr_kernel_source(&c, NULL, 0, &size) != PCLR_OK || !(src = (char *)pclr__alloc(&e, size))) {
        r = pclr__say(log, log_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the kernel source");
    } else {
        pclr_kernel_source(&c, src, size, NULL);
        r = pclr__nvrtc_compile(&e, &rtc, src, opts, cubin, &image, &size);
        if (r != PCLR_OK) pclr__say(log, log_cap, r, "%s%s%s", e.last_error, e.build_log && e.build_log[0] ? "\n" : "", pclr__engine_log(&e));
        else pclr__say(log, log_cap, r, "%s", pclr__engine_log(&e));
    }
    pclr__free(&e, src);
    pclr__free(&e, image);
    pclr__free(&e, e.build_log);
    pclr__lib_close(lib);
    return r;
}

static pclr_result pclr__cuda_generic_create(const pclr_desc *d, pclr__engine **out) {
    pclr_cuda_desc c;
    pclr_cuda_context *ctx = NULL;
    pclr_result r;
    memset(&c, 0, sizeof c);
    PCLR__DESC_FROM(c, d);
    c.device_number = d->device; /* the same numbering: 0 = the best, k = device k - 1 */
    c.cuda_library = d->cuda_library;
    c.nvrtc_library = d->nvrtc_library;
    c.cuda_api = d->cuda_api;
    c.nvrtc_api = d->nvrtc_api;
    if (d->cuda) c.context = d->cuda->context; /* the program's own */
    r = pclr_cuda_create(&c, &ctx);
    *out = ctx ? &ctx->e : NULL;
    return r;
}
static void pclr__cuda_generic_destroy(pclr__engine *e) { pclr_cuda_destroy((pclr_cuda_context *)e); }
static pclr_result pclr__cuda_device_count(const pclr_desc *d, int *count) {
    pclr_cuda_api cu;
    char name[256];
    CUresult r;
    pclr_result pr;
    if ((pr = pclr__cuda_driver_open(d->cuda_api, d->cuda_library, &cu, name, sizeof name, d->error, d->error_cap)) != PCLR_OK)
        return pr;
    if ((r = cu.DeviceGetCount(count)) != CUDA_SUCCESS || *count <= 0) {
        *count = 0;
        return pclr__say(d->error, d->error_cap, PCLR_ERR_NO_DEVICE, "no CUDA device (cuDeviceGetCount: code %d)", (int)r);
    }
    return PCLR_OK;
}

PCLR_API pclr_cuda_context *pclr_context_cuda(const pclr_context *ctx) {
    return ctx && ctx->backend == PCLR_CUDA ? (pclr_cuda_context *)ctx->engine : NULL;
}
PCLR_API CUdeviceptr pclr_buffer_cuda(const pclr_context *ctx, const pclr_buffer *buf) {
    return ctx && buf && buf->owner == ctx && ctx->backend == PCLR_CUDA ? (CUdeviceptr)buf->handle.addr : 0;
}
PCLR_API pclr_result pclr_cuda_get_native(const pclr_context *ctx, pclr_cuda_native *out) {
    const pclr_cuda_context *cu;
    const pclr_result r = pclr__native_of(ctx, PCLR_CUDA, "pclr_cuda_get_native", out, sizeof *out);
    if (r != PCLR_OK) return r;
    cu = (const pclr_cuda_context *)ctx->engine;
    out->context = cu->cu_ctx;
    out->device = cu->device;
    out->api = &cu->cu;
    out->nvrtc = &cu->rtc;
    out->features = &cu->features;
    return PCLR_OK;
}

PCLR_API pclr_result pclr_cuda_buffer(pclr_context *ctx, CUdeviceptr ptr, size_t bytes, pclr_buffer *out) {
    pclr__mem h;
    h.addr = ptr;
    return pclr__buffer_wrap(ctx, PCLR_CUDA, "pclr_cuda_buffer", h, bytes, out);
}

static void pclr__cuda_ops(pclr__backend_ops *ops) {
    ops->backend = PCLR_CUDA;
    ops->defaults = pclr__cuda_defaults;
    ops->options = pclr__cuda_options;
    ops->build = pclr__cuda_build;
    ops->release = pclr__cuda_release;
    ops->alloc = pclr__cuda_alloc;
    ops->free = pclr__cuda_free;
    ops->write = pclr__cuda_write;
    ops->read = pclr__cuda_read;
    ops->wrap = pclr__cuda_wrap;
    ops->scratch = pclr__cuda_scratch;
    ops->limit = pclr__cuda_limit;
    ops->begin = pclr__cuda_begin;
    ops->complete = pclr__cuda_complete;
    ops->tune_begin = pclr__cuda_tune_begin;
    ops->tune_time = pclr__cuda_tune_time;
    ops->tune_end = pclr__cuda_tune_end;
    ops->describe = pclr__cuda_describe;
    ops->create = pclr__cuda_generic_create;
    ops->destroy = pclr__cuda_generic_destroy;
    ops->launch = pclr__cuda_launch;
}

PCLR__DEPRECATED_OK_END
#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_CUDA_IMPLEMENTED */

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
