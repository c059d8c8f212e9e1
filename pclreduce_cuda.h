/* pclreduce_cuda.h - CUDA backend of pclreduce: NVRTC compile + cache,
   driver-API launch on CUdeviceptr.

   Use (stb style), in exactly one C or C++ file:
       #define PCLREDUCE_IMPLEMENTATION
       #define PCLREDUCE_CUDA
       #include "pclreduce.h"          (or #include "pclreduce_cuda.h")
   Needs the CUDA headers (cuda.h, nvrtc.h) on the include path for their
   types only: the driver (libcuda) and NVRTC are loaded at run time with
   dlopen (LoadLibrary on Windows), so programs link with -ldl on Linux and
   need neither -lcuda nor -lnvrtc. A program built this way runs (and reports
   PCLR_ERR_NO_DRIVER) on a machine without CUDA. With
   PCLREDUCE_NO_RUNTIME_LINKING defined before the include, the tables hold
   the directly linked functions instead (nothing is loaded, the paths below
   are ignored): link with -lcuda -lnvrtc (-L<cuda>/lib64).

   Libraries, first found wins:
       driver: desc.driver_path, else $PCLR_CUDA_LIBRARY, else libcuda.so.1,
               libcuda.so (nvcuda.dll). An explicit path that fails to load
               is an error (no fall-back to the usual names).
       NVRTC:  desc.nvrtc_path, else $PCLR_NVRTC_LIBRARY, else
               libnvrtc.so.13, .so.12, .so.11.2, libnvrtc.so (nvrtc64_*.dll);
               versions not newer than the driver are tried first, since a
               newer NVRTC's code may not load on an older driver.
   The driver library is never unloaded (it starts threads at cuInit); the
   NVRTC library is unloaded by pclr_cuda_destroy.

   Errors: every call returns a pclr_result. pclr_cuda_create sets *out even
   when it fails (unless out is NULL or the context allocation itself fails):
   that context only holds the error sentence, so pclr_cuda_last_error and
   pclr_cuda_describe can say what went wrong; every other call on it returns
   PCLR_ERR_INVALID_CONTEXT. Destroy it with pclr_cuda_destroy either way.

   Thread safety: a pclr_cuda_context is NOT thread-safe. Its calls must be
   ordered, and it runs on one stream at a time: the scratch memory (the
   counter of the last-group finish, the atomic running values, the partials)
   is shared by all its launches, so two launches of one context must not
   overlap on the device (blocking calls never overlap; async calls on
   different streams can, so order those streams or use one context per
   stream). Use one context per thread / concurrent stream; several contexts
   may share one CUcontext. Calls make the context's CUcontext current for
   their duration (push/pop, skipped when it is already current).

   Per-call cost: a configuration is resolved, generated, compiled and loaded
   once (pclr_cuda_prepare or the first reduce with it) and then found by the
   bytes of the caller's config struct; a reduce is one kernel launch (two for
   PCLR_FINISH_PARTIALS), with no allocation. The blocking reduce lets the
   kernel write the result straight into mapped pinned host memory, then
   synchronizes the stream: no separate copy.

   Bounds: `in` must be aligned to the element size (PCLR_ERR_MISALIGNED) and
   [in + offset, in + offset + n) elements must lie inside the allocation that
   holds `in`, as cuMemGetAddressRange reports it (PCLR_ERR_SIZE_OVERFLOW);
   pointers the driver cannot describe (it answers "not found") are not
   range-checked. n = 0 gives the identity of the operation.

   License: MIT (see README.md). */
#ifndef PCLREDUCE_CUDA_H
#define PCLREDUCE_CUDA_H

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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pclr_cuda_desc {
    int device_ordinal;        /* used when context is NULL: that device's primary context */
    CUcontext context;         /* the user's context, or NULL (it must outlive the pclr context) */
    const char *driver_path, *nvrtc_path; /* NULL = the usual names (see above) */
    pclr_allocator allocator;  /* zero = malloc/free */
    const char *cache_dir;     /* compiled kernels on disk; NULL = pclr_cache_default_dir() */
    int no_disk_cache;         /* 1: compile every kernel (no files read or written) */
    const char *tune_file;     /* NULL = pclr_tune_default_path(); its entries for this device apply */
    int no_tune_file;          /* 1: built-in defaults only */
} pclr_cuda_desc;

typedef struct pclr_cuda_features {
    char device_name[256];
    int cc_major, cc_minor;    /* compute capability */
    int driver_version;        /* cuDriverGetVersion: 1000 * major + 10 * minor */
    int nvrtc_major, nvrtc_minor;
    uint32_t compute_units;    /* multiprocessors */
    uint32_t max_group_size;   /* max threads per block */
    size_t l2_bytes;
} pclr_cuda_features;

typedef struct pclr_cuda_context pclr_cuda_context;

/* desc may be NULL (device 0, usual library names, malloc). See "Errors" above. */
PCLR_API pclr_result pclr_cuda_create(const pclr_cuda_desc *desc, pclr_cuda_context **out);
PCLR_API void pclr_cuda_destroy(pclr_cuda_context *ctx);
/* NULL for a NULL or failed context. */
PCLR_API const pclr_cuda_features *pclr_cuda_get_features(const pclr_cuda_context *ctx);
/* Dialect CUDA where 0, defaults filled in, validated (pclr_config_resolve),
   then checked against the device (group size above its limit ->
   PCLR_ERR_UNSUPPORTED_BY_DEVICE; dialect OpenCL -> PCLR_ERR_UNSUPPORTED_COMBINATION). */
PCLR_API pclr_result pclr_cuda_resolve(pclr_cuda_context *ctx, const pclr_config *cfg, pclr_config *out);
/* Compile and load cfg's kernel now (otherwise the first reduce does it). */
PCLR_API pclr_result pclr_cuda_prepare(pclr_cuda_context *ctx, const pclr_config *cfg);
/* Blocking: reduces n elements of cfg's type starting `offset` elements after
   `in`, on `stream` (0 = the legacy default stream), into *result (one
   element, host memory). Returns after the result is there. */
PCLR_API pclr_result pclr_cuda_reduce(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in, uint64_t offset,
                                      uint64_t n, CUstream stream, void *result);
/* Async: the result (one element) goes to device memory `out` (aligned to the
   element size), ordered on `stream`; nothing waits. */
PCLR_API pclr_result pclr_cuda_reduce_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in,
                                            uint64_t offset, uint64_t n, CUdeviceptr out, CUstream stream);
/* Device memory through the context's driver (programs need not link
   libcuda): allocate, free, and blocking copies. */
PCLR_API pclr_result pclr_cuda_alloc(pclr_cuda_context *ctx, size_t bytes, CUdeviceptr *out);
PCLR_API pclr_result pclr_cuda_free(pclr_cuda_context *ctx, CUdeviceptr ptr);
PCLR_API pclr_result pclr_cuda_copy_to_device(pclr_cuda_context *ctx, CUdeviceptr dst, const void *src, size_t bytes);
PCLR_API pclr_result pclr_cuda_copy_to_host(pclr_cuda_context *ctx, void *dst, CUdeviceptr src, size_t bytes);
/* Sweeps the knobs for type and op per size class on this device (see
   pclr_tune_sweep; opt may be NULL: classes up to 2^26), on inputs rotated
   over buffers larger than L2, timed with events (pipelined: many calls back
   to back). The winners apply to this context at once (knobs a config leaves
   0 come from them) and are written to out[] (device and driver filled in)
   for pclr_tune_save. Blocks until done; about 1-3 s per type/op on an H100. */
PCLR_API pclr_result pclr_cuda_tune(pclr_cuda_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                    pclr_tune_entry *out, size_t cap, size_t *count);
/* The log of the context's last NVRTC compile ("" if none). */
PCLR_API const char *pclr_cuda_build_log(const pclr_cuda_context *ctx);
/* A sentence about the context's most recent failure, naming the failing call
   and its error string ("" if none). */
PCLR_API const char *pclr_cuda_last_error(const pclr_cuda_context *ctx);
/* Human-readable description (device, driver, NVRTC, code target, cache) for
   `pclreduce-run -v`. Writes at most cap bytes (NUL-terminated when cap > 0);
   returns the length the full text needs, without the NUL. */
PCLR_API size_t pclr_cuda_describe(const pclr_cuda_context *ctx, char *buf, size_t cap);
/* No device needed: loads NVRTC (nvrtc_path NULL = the usual names) and
   compiles cfg's source (dialect CUDA where 0) with the options the backend
   uses for `arch` (e.g. 75): --gpu-architecture=compute_75 to PTX, or with
   `cubin` nonzero sm_75 to CUBIN. The NVRTC log (or a sentence on why there
   was no compile) goes to log/log_cap (may be NULL/0). PCLR_ERR_NO_DRIVER if
   NVRTC is missing, PCLR_ERR_BUILD_FAILED on compile errors or an arch this
   NVRTC does not know, config errors as pclr_config_resolve returns them. */
PCLR_API pclr_result pclr_cuda_compile_check(const pclr_config *cfg, const char *nvrtc_path, int arch, int cubin,
                                             char *log, size_t log_cap);

#ifdef __cplusplus
}
#endif

#endif /* PCLREDUCE_CUDA_H */

/* ====================================================================== */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_CUDA_IMPLEMENTED)
#define PCLREDUCE_CUDA_IMPLEMENTED

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

/* ------------------------------------------------------------ library loading */
#ifdef PCLREDUCE_NO_RUNTIME_LINKING
static void pclr__lib_close(void *lib) { (void)lib; } /* nothing was loaded */
#endif

/* Driver entry points (versioned names where the ABI has them). */
typedef struct pclr__cuda_api {
    CUresult (CUDAAPI *Init)(unsigned int);
    CUresult (CUDAAPI *DriverGetVersion)(int *);
    CUresult (CUDAAPI *GetErrorName)(CUresult, const char **);
    CUresult (CUDAAPI *GetErrorString)(CUresult, const char **);
    CUresult (CUDAAPI *DeviceGetCount)(int *);
    CUresult (CUDAAPI *DeviceGet)(CUdevice *, int);
    CUresult (CUDAAPI *DeviceGetName)(char *, int, CUdevice);
    CUresult (CUDAAPI *DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (CUDAAPI *DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (CUDAAPI *DevicePrimaryCtxRelease)(CUdevice);
    CUresult (CUDAAPI *CtxGetCurrent)(CUcontext *);
    CUresult (CUDAAPI *CtxPushCurrent)(CUcontext);
    CUresult (CUDAAPI *CtxPopCurrent)(CUcontext *);
    CUresult (CUDAAPI *CtxGetDevice)(CUdevice *);
    CUresult (CUDAAPI *CtxSynchronize)(void);
    CUresult (CUDAAPI *ModuleLoadData)(CUmodule *, const void *);
    CUresult (CUDAAPI *ModuleUnload)(CUmodule);
    CUresult (CUDAAPI *ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (CUDAAPI *FuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (CUDAAPI *MemAlloc)(CUdeviceptr *, size_t);
    CUresult (CUDAAPI *MemFree)(CUdeviceptr);
    CUresult (CUDAAPI *MemHostAlloc)(void **, size_t, unsigned int);
    CUresult (CUDAAPI *MemFreeHost)(void *);
    CUresult (CUDAAPI *MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned int);
    CUresult (CUDAAPI *MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (CUDAAPI *MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (CUDAAPI *MemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
    CUresult (CUDAAPI *LaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                     unsigned int, unsigned int, CUstream, void **, void **);
    CUresult (CUDAAPI *StreamSynchronize)(CUstream);
    /* timing for pclr_cuda_tune */
    CUresult (CUDAAPI *EventCreate)(CUevent *, unsigned int);
    CUresult (CUDAAPI *EventRecord)(CUevent, CUstream);
    CUresult (CUDAAPI *EventSynchronize)(CUevent);
    CUresult (CUDAAPI *EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (CUDAAPI *EventDestroy)(CUevent);
} pclr__cuda_api;

/* NVRTC entry points; the last four are optional (older NVRTC). */
typedef struct pclr__nvrtc_api {
    void *lib;
    int major, minor;
    char name[256];
    nvrtcResult (*Version)(int *, int *);
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetPTX)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*GetNumSupportedArchs)(int *);
    nvrtcResult (*GetSupportedArchs)(int *);
} pclr__nvrtc_api;

static void pclr__cuda_copy_str(char *dst, size_t cap, const char *src) {
    size_t n;
    if (!cap) return;
    n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void pclr__cuda_fmt(char *buf, size_t cap, const char *fmt, ...) PCLR__PRINTF(3, 4);
static void pclr__cuda_fmt(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    if (!buf || !cap) return;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

/* Loads NVRTC from `path` (or the usual names) into *rtc. driver_major > 0
   puts the NVRTC versions not newer than the driver first. On failure writes
   a sentence to err and returns PCLR_ERR_NO_DRIVER. */
#ifdef PCLREDUCE_NO_RUNTIME_LINKING
static pclr_result pclr__nvrtc_load(pclr__nvrtc_api *rtc, const char *path, int driver_major, char *err, size_t err_cap) {
    (void)path; /* the program links NVRTC */
    (void)driver_major;
    (void)err;
    (void)err_cap;
    memset(rtc, 0, sizeof *rtc);
    pclr__cuda_copy_str(rtc->name, sizeof rtc->name, "the linked NVRTC");
    rtc->Version = nvrtcVersion;
    rtc->GetErrorString = nvrtcGetErrorString;
    rtc->CreateProgram = nvrtcCreateProgram;
    rtc->DestroyProgram = nvrtcDestroyProgram;
    rtc->CompileProgram = nvrtcCompileProgram;
    rtc->GetProgramLogSize = nvrtcGetProgramLogSize;
    rtc->GetProgramLog = nvrtcGetProgramLog;
    rtc->GetPTXSize = nvrtcGetPTXSize;
    rtc->GetPTX = nvrtcGetPTX;
    rtc->GetCUBINSize = nvrtcGetCUBINSize;
    rtc->GetCUBIN = nvrtcGetCUBIN;
    rtc->GetNumSupportedArchs = nvrtcGetNumSupportedArchs;
    rtc->GetSupportedArchs = nvrtcGetSupportedArchs;
    if (rtc->Version(&rtc->major, &rtc->minor) != NVRTC_SUCCESS) rtc->major = rtc->minor = 0;
    return PCLR_OK;
}
#else
static pclr_result pclr__nvrtc_load(pclr__nvrtc_api *rtc, const char *path, int driver_major, char *err, size_t err_cap) {
#ifdef _WIN32
    static const char *const names[] = {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll"};
    static const int majors[] = {13, 12, 11};
    const char *tried = "nvrtc64_130_0.dll, nvrtc64_120_0.dll, nvrtc64_112_0.dll";
#else
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    static const int majors[] = {13, 12, 11, 0};
    const char *tried = "libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.11.2, libnvrtc.so";
#endif
    const size_t count = sizeof names / sizeof names[0];
    const char *env = getenv("PCLR_NVRTC_LIBRARY");
    size_t i;
    int pass;
    memset(rtc, 0, sizeof *rtc);
    if (!path || !*path) path = (env && *env) ? env : NULL;
    if (path) {
        rtc->lib = pclr__lib_open(path);
        if (!rtc->lib) {
            pclr__cuda_fmt(err, err_cap, "NVRTC not found (%s could not be loaded: %s)", path, pclr__lib_error());
            return PCLR_ERR_NO_DRIVER;
        }
        pclr__cuda_copy_str(rtc->name, sizeof rtc->name, path);
    } else {
        /* pass 0: versions the driver can load (all when the driver is unknown); pass 1: the rest */
        for (pass = 0; pass < 2 && !rtc->lib; ++pass)
            for (i = 0; i < count && !rtc->lib; ++i) {
                int fits = driver_major <= 0 || majors[i] == 0 || majors[i] <= driver_major;
                if ((pass == 0) != (fits != 0)) continue;
                rtc->lib = pclr__lib_open(names[i]);
                if (rtc->lib) pclr__cuda_copy_str(rtc->name, sizeof rtc->name, names[i]);
            }
        if (!rtc->lib) {
            pclr__cuda_fmt(err, err_cap, "NVRTC not found (tried %s; set PCLR_NVRTC_LIBRARY)", tried);
            return PCLR_ERR_NO_DRIVER;
        }
    }
    if (!pclr__lib_sym(rtc->lib, "nvrtcVersion", &rtc->Version) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetErrorString", &rtc->GetErrorString) ||
        !pclr__lib_sym(rtc->lib, "nvrtcCreateProgram", &rtc->CreateProgram) ||
        !pclr__lib_sym(rtc->lib, "nvrtcDestroyProgram", &rtc->DestroyProgram) ||
        !pclr__lib_sym(rtc->lib, "nvrtcCompileProgram", &rtc->CompileProgram) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetProgramLogSize", &rtc->GetProgramLogSize) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetProgramLog", &rtc->GetProgramLog) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetPTXSize", &rtc->GetPTXSize) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetPTX", &rtc->GetPTX)) {
        pclr__cuda_fmt(err, err_cap, "NVRTC library %s lacks the nvrtc* entry points this backend needs", rtc->name);
        pclr__lib_close(rtc->lib);
        memset(rtc, 0, sizeof *rtc);
        return PCLR_ERR_NO_DRIVER;
    }
    if (!pclr__lib_sym(rtc->lib, "nvrtcGetCUBINSize", &rtc->GetCUBINSize) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetCUBIN", &rtc->GetCUBIN)) {
        rtc->GetCUBINSize = NULL;
        rtc->GetCUBIN = NULL;
    }
    if (!pclr__lib_sym(rtc->lib, "nvrtcGetNumSupportedArchs", &rtc->GetNumSupportedArchs) ||
        !pclr__lib_sym(rtc->lib, "nvrtcGetSupportedArchs", &rtc->GetSupportedArchs)) {
        rtc->GetNumSupportedArchs = NULL;
        rtc->GetSupportedArchs = NULL;
    }
    if (rtc->Version(&rtc->major, &rtc->minor) != NVRTC_SUCCESS) rtc->major = rtc->minor = 0;
    return PCLR_OK;
}
#endif /* PCLREDUCE_NO_RUNTIME_LINKING */

static void pclr__nvrtc_unload(pclr__nvrtc_api *rtc) {
    pclr__lib_close(rtc->lib);
    memset(rtc, 0, sizeof *rtc);
}

static void *pclr__cuda_default_alloc(size_t size, void *user) { (void)user; return malloc(size); }
static void pclr__cuda_default_free(void *ptr, void *user) { (void)user; free(ptr); }

/* Dialect CUDA where 0, pclr_config_resolve, dialect check. */
static pclr_result pclr__cuda_resolve_cfg(const pclr_config *cfg, pclr_config *out, const char **why) {
    pclr_config c;
    pclr_result r;
    *why = NULL;
    if (!cfg || !out) { *why = "config pointer is NULL"; return PCLR_ERR_NULL_POINTER; }
    c = *cfg;
    if (c.backend == PCLR_BACKEND_DEFAULT) c.backend = PCLR_CUDA;
    /* NVIDIA GPUs (H100 study, bench/results): 8 loads in flight per thread and
       half occupancy stream as fast as full occupancy, and halve the partials
       the last group folds. */
    if (c.unroll == 0) c.unroll = 8;
    if (c.groups_per_unit == 0) c.groups_per_unit = c.group_size == 0 ? 4 : c.group_size < 1024 ? 1024 / c.group_size : 1;
    if ((r = pclr_config_resolve(&c, &c, why)) != PCLR_OK) return r;
    if (c.backend != PCLR_CUDA) { *why = "the CUDA backend runs backend=cuda kernels only"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    *out = c;
    return PCLR_OK;
}

/* Options the backend passes to NVRTC besides the core's: the target and,
   where the group is large, a register cap so that a group always fits on a
   multiprocessor (besides the kernel's __launch_bounds__). opts gets at most 8
   pointers into `store` (cap bytes). Returns the count, or -1 on overflow. */
static int pclr__cuda_options(const pclr_config *resolved, const char *target, int regs_per_block, char *store,
                              size_t cap, const char **opts) {
    size_t size = 0, used, len;
    int n = 0, maxreg;
    char *p;
    opts[n++] = target;
    maxreg = resolved->group_size > 0 ? regs_per_block / resolved->group_size : 255;
    used = 0;
    if (maxreg < 255) {
        if (maxreg < 16) maxreg = 16;
        pclr__cuda_fmt(store, cap, "--maxrregcount=%d", maxreg);
        opts[n++] = store;
        used = strlen(store) + 1;
    }
    if (pclr_kernel_options(resolved, NULL, 0, &size) != PCLR_OK || used + size > cap) return -1;
    p = store + used;
    if (pclr_kernel_options(resolved, p, cap - used, NULL) != PCLR_OK) return -1;
    /* split the core's options on spaces */
    while (*p) {
        while (*p == ' ') *p++ = '\0';
        if (!*p) break;
        if (n >= 8) return -1;
        opts[n++] = p;
        len = strcspn(p, " ");
        p += len;
    }
    return n;
}

/* Compiles src with NVRTC. On success *image (from a) holds PTX or CUBIN. The
   log (possibly empty, from a) goes to *log when log is not NULL. err gets a
   sentence on failure. */
static pclr_result pclr__nvrtc_build(const pclr__nvrtc_api *rtc, const pclr_allocator *a, const char *src,
                                     const char *const *opts, int nopts, int cubin, char **image, size_t *image_size,
                                     char **log, char *err, size_t err_cap) {
    nvrtcProgram prog = NULL;
    nvrtcResult nr;
    size_t log_size = 0, size = 0;
    pclr_result result = PCLR_OK;
    if (image) *image = NULL;
    if (image_size) *image_size = 0;
    if (log) *log = NULL;
    if (cubin && (!rtc->GetCUBIN || !rtc->GetCUBINSize)) {
        pclr__cuda_fmt(err, err_cap, "NVRTC %d.%d cannot produce CUBIN (nvrtcGetCUBIN is missing)", rtc->major, rtc->minor);
        return PCLR_ERR_BUILD_FAILED;
    }
    nr = rtc->CreateProgram(&prog, src, "pclreduce.cu", 0, NULL, NULL);
    if (nr != NVRTC_SUCCESS) {
        pclr__cuda_fmt(err, err_cap, "nvrtcCreateProgram failed: %s", rtc->GetErrorString(nr));
        return nr == NVRTC_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED;
    }
    nr = rtc->CompileProgram(prog, nopts, opts);
    if (log && rtc->GetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
        *log = (char *)a->alloc(log_size + 1, a->user);
        if (*log) {
            if (rtc->GetProgramLog(prog, *log) != NVRTC_SUCCESS) (*log)[0] = '\0';
            (*log)[log_size] = '\0';
        }
    }
    if (nr != NVRTC_SUCCESS) {
        pclr__cuda_fmt(err, err_cap, "nvrtcCompileProgram failed (%s) with options %s%s%s%s%s", rtc->GetErrorString(nr),
                       opts[0], nopts > 1 ? " " : "", nopts > 1 ? opts[1] : "", nopts > 2 ? " " : "",
                       nopts > 2 ? opts[2] : "");
        result = nr == NVRTC_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED;
    } else if (image) {
        nr = cubin ? rtc->GetCUBINSize(prog, &size) : rtc->GetPTXSize(prog, &size);
        if (nr != NVRTC_SUCCESS || size == 0) {
            pclr__cuda_fmt(err, err_cap, "%s failed: %s", cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize",
                           nr != NVRTC_SUCCESS ? rtc->GetErrorString(nr) : "empty output");
            result = PCLR_ERR_BUILD_FAILED;
        } else if (!(*image = (char *)a->alloc(size, a->user))) {
            pclr__cuda_fmt(err, err_cap, "out of host memory for the %lu-byte compiled kernel", (unsigned long)size);
            result = PCLR_ERR_OUT_OF_MEMORY;
        } else if ((nr = cubin ? rtc->GetCUBIN(prog, *image) : rtc->GetPTX(prog, *image)) != NVRTC_SUCCESS) {
            pclr__cuda_fmt(err, err_cap, "%s failed: %s", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", rtc->GetErrorString(nr));
            a->free(*image, a->user);
            *image = NULL;
            result = PCLR_ERR_BUILD_FAILED;
        } else if (image_size) {
            *image_size = size;
        }
    }
    rtc->DestroyProgram(&prog);
    return result;
}

/* ------------------------------------------------------------ the context */
typedef struct pclr__cuda_module {
    uint64_t hash;            /* of source + options */
    CUmodule module;
    CUfunction fn;
} pclr__cuda_module;

typedef struct pclr__cuda_entry {
    pclr_config raw;          /* the caller's bytes: the lookup key */
    pclr_config cfg;          /* resolved */
    CUfunction fn;
    uint32_t elem_size;
    uint32_t atomic_slot;     /* byte offset of the ATOMIC running value in ctl */
} pclr__cuda_entry;

/* Layout of the small control allocation. */
#define PCLR__CUDA_CTL_COUNTER 0   /* uint: last-group ticket counter */
#define PCLR__CUDA_CTL_RESULT 8    /* 8 bytes: blocking result when mapped memory is unavailable */
#define PCLR__CUDA_CTL_SLOTS 16    /* 6 x uint: ATOMIC running values, (uint|int) x (sum|min|max) */
#define PCLR__CUDA_CTL_BYTES 64

struct pclr_cuda_context {
    int ready;                /* 1 after a successful create */
    pclr_result create_result;
    pclr_allocator alloc;
    void *driver_lib;
    char driver_name[256];
    pclr__cuda_api cu;
    pclr__nvrtc_api rtc;
    CUdevice device;
    int device_ordinal;       /* -1 for a user context */
    CUcontext cu_ctx;
    int owns_primary;
    pclr_cuda_features features;
    pclr_device_facts facts;
    int regs_per_block;
    int cubin;                /* 1: CUBIN for the exact arch; 0: PTX for target_arch */
    int target_arch;
    char target_opt[64];
    CUdeviceptr ctl;          /* PCLR__CUDA_CTL_* */
    CUdeviceptr partials;
    size_t partials_bytes;
    void *host_result;        /* mapped pinned, or NULL (then ctl's result slot + copy) */
    CUdeviceptr host_result_dev;
    pclr__cuda_module *modules;
    size_t module_count, module_cap;
    pclr__cuda_entry *entries;
    size_t entry_count, entry_cap;
    uint32_t *table;          /* open addressing: entry index + 1, 0 = empty */
    size_t table_cap;
    size_t last;              /* entry index + 1 of the last hit */
    char *log;
    char cache_dir[512];      /* the disk cache; "" = off */
    size_t disk_hits, disk_stores;
    pclr_tune_entry *tuned;   /* this device's entries of the tuning file (or of pclr_cuda_tune) */
    size_t tuned_count;
    char last_error[1024];
};

static void pclr__cuda_error(pclr_cuda_context *ctx, const char *fmt, ...) PCLR__PRINTF(2, 3);
static void pclr__cuda_error(pclr_cuda_context *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
}

static void pclr__cuda_err_text(const pclr_cuda_context *ctx, CUresult r, const char **name, const char **str) {
    *name = NULL;
    *str = NULL;
    if (ctx->cu.GetErrorName && ctx->cu.GetErrorName(r, name) != CUDA_SUCCESS) *name = NULL;
    if (ctx->cu.GetErrorString && ctx->cu.GetErrorString(r, str) != CUDA_SUCCESS) *str = NULL;
    if (!*name) *name = "CUDA error";
    if (!*str) *str = "unknown error";
}

/* Records "call failed: NAME (string)" and maps r to a pclr_result. */
static pclr_result pclr__cuda_fail(pclr_cuda_context *ctx, CUresult r, const char *call) {
    const char *name, *str;
    pclr__cuda_err_text(ctx, r, &name, &str);
    pclr__cuda_error(ctx, "%s failed: %s (%s, code %d)", call, name, str, (int)r);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return PCLR_ERR_OUT_OF_MEMORY;
    if (r == CUDA_ERROR_NO_DEVICE) return PCLR_ERR_NO_DEVICE;
    return PCLR_ERR_BACKEND;
}

#ifdef PCLREDUCE_NO_RUNTIME_LINKING
/* The linked functions (cuda.h maps the names to their _v2 versions). */
#define PCLR__CUDA_LOAD(field, name) ctx->cu.field = cu##field;

static pclr_result pclr__cuda_load_driver(pclr_cuda_context *ctx, const char *path) {
    (void)path; /* the program links libcuda */
    pclr__cuda_copy_str(ctx->driver_name, sizeof ctx->driver_name, "the linked libcuda");
#else
#define PCLR__CUDA_LOAD(field, name) \
    if (ok && !pclr__lib_sym(ctx->driver_lib, name, &ctx->cu.field)) { ok = 0; missing = name; }

static pclr_result pclr__cuda_load_driver(pclr_cuda_context *ctx, const char *path) {
#ifdef _WIN32
    static const char *const names[] = {"nvcuda.dll"};
#else
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
#endif
    const char *env = getenv("PCLR_CUDA_LIBRARY"), *missing = NULL;
    size_t i;
    int ok = 1;
    if (!path || !*path) path = (env && *env) ? env : NULL;
    if (path) {
        ctx->driver_lib = pclr__lib_open(path);
        if (!ctx->driver_lib) {
            pclr__cuda_error(ctx, "no CUDA driver (%s could not be loaded: %s)", path, pclr__lib_error());
            return PCLR_ERR_NO_DRIVER;
        }
        pclr__cuda_copy_str(ctx->driver_name, sizeof ctx->driver_name, path);
    } else {
        for (i = 0; i < sizeof names / sizeof names[0] && !ctx->driver_lib; ++i) {
            ctx->driver_lib = pclr__lib_open(names[i]);
            if (ctx->driver_lib) pclr__cuda_copy_str(ctx->driver_name, sizeof ctx->driver_name, names[i]);
        }
        if (!ctx->driver_lib) {
            pclr__cuda_error(ctx, "no CUDA driver (%s not found)", names[0]);
            return PCLR_ERR_NO_DRIVER;
        }
    }
#endif
    PCLR__CUDA_LOAD(Init, "cuInit")
    PCLR__CUDA_LOAD(DriverGetVersion, "cuDriverGetVersion")
    PCLR__CUDA_LOAD(GetErrorName, "cuGetErrorName")
    PCLR__CUDA_LOAD(GetErrorString, "cuGetErrorString")
    PCLR__CUDA_LOAD(DeviceGetCount, "cuDeviceGetCount")
    PCLR__CUDA_LOAD(DeviceGet, "cuDeviceGet")
    PCLR__CUDA_LOAD(DeviceGetName, "cuDeviceGetName")
    PCLR__CUDA_LOAD(DeviceGetAttribute, "cuDeviceGetAttribute")
    PCLR__CUDA_LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
    PCLR__CUDA_LOAD(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
    PCLR__CUDA_LOAD(CtxGetCurrent, "cuCtxGetCurrent")
    PCLR__CUDA_LOAD(CtxPushCurrent, "cuCtxPushCurrent_v2")
    PCLR__CUDA_LOAD(CtxPopCurrent, "cuCtxPopCurrent_v2")
    PCLR__CUDA_LOAD(CtxGetDevice, "cuCtxGetDevice")
    PCLR__CUDA_LOAD(CtxSynchronize, "cuCtxSynchronize")
    PCLR__CUDA_LOAD(ModuleLoadData, "cuModuleLoadData")
    PCLR__CUDA_LOAD(ModuleUnload, "cuModuleUnload")
    PCLR__CUDA_LOAD(ModuleGetFunction, "cuModuleGetFunction")
    PCLR__CUDA_LOAD(FuncGetAttribute, "cuFuncGetAttribute")
    PCLR__CUDA_LOAD(MemAlloc, "cuMemAlloc_v2")
    PCLR__CUDA_LOAD(MemFree, "cuMemFree_v2")
    PCLR__CUDA_LOAD(MemHostAlloc, "cuMemHostAlloc")
    PCLR__CUDA_LOAD(MemFreeHost, "cuMemFreeHost")
    PCLR__CUDA_LOAD(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2")
    PCLR__CUDA_LOAD(MemcpyHtoD, "cuMemcpyHtoD_v2")
    PCLR__CUDA_LOAD(MemcpyDtoH, "cuMemcpyDtoH_v2")
    PCLR__CUDA_LOAD(MemGetAddressRange, "cuMemGetAddressRange_v2")
    PCLR__CUDA_LOAD(LaunchKernel, "cuLaunchKernel")
    PCLR__CUDA_LOAD(StreamSynchronize, "cuStreamSynchronize")
    PCLR__CUDA_LOAD(EventCreate, "cuEventCreate")
    PCLR__CUDA_LOAD(EventRecord, "cuEventRecord")
    PCLR__CUDA_LOAD(EventSynchronize, "cuEventSynchronize")
    PCLR__CUDA_LOAD(EventElapsedTime, "cuEventElapsedTime")
    PCLR__CUDA_LOAD(EventDestroy, "cuEventDestroy_v2")
#ifndef PCLREDUCE_NO_RUNTIME_LINKING
    if (!ok) {
        pclr__cuda_error(ctx, "no usable CUDA driver (%s lacks %s; driver too old?)", ctx->driver_name, missing);
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return PCLR_ERR_NO_DRIVER;
    }
#endif
    return PCLR_OK;
}
#undef PCLR__CUDA_LOAD

/* Makes ctx's CUcontext current unless it already is. *pushed says whether
   pclr__cuda_leave must pop. */
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

static int pclr__cuda_attr(pclr_cuda_context *ctx, CUdevice_attribute a, int dflt) {
    int v = 0;
    return ctx->cu.DeviceGetAttribute(&v, a, ctx->device) == CUDA_SUCCESS ? v : dflt;
}

/* Picks CUBIN for the device's exact arch when NVRTC knows it, else PTX for
   the newest arch NVRTC knows that the device can run (the driver JITs it). */
static pclr_result pclr__cuda_pick_target(pclr_cuda_context *ctx) {
    const int dev_arch = ctx->features.cc_major * 10 + ctx->features.cc_minor;
    int best = 0, oldest = 0, exact = 0, count = 0, i;
    int archs[128];
    if (ctx->rtc.GetNumSupportedArchs && ctx->rtc.GetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0 &&
        count <= 128 && ctx->rtc.GetSupportedArchs(archs) == NVRTC_SUCCESS) {
        for (i = 0; i < count; ++i) {
            if (archs[i] == dev_arch) exact = 1;
            if (archs[i] <= dev_arch && archs[i] > best) best = archs[i];
            if (!oldest || archs[i] < oldest) oldest = archs[i];
        }
        if (!best) {
            pclr__cuda_error(ctx, "NVRTC %d.%d (%s) cannot compile for sm_%d (the oldest arch it knows is sm_%d); set "
                             "PCLR_NVRTC_LIBRARY to an older NVRTC",
                             ctx->rtc.major, ctx->rtc.minor, ctx->rtc.name, dev_arch, oldest);
            return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
        }
    } else {
        exact = 1;
        best = dev_arch;
    }
    ctx->cubin = exact && ctx->rtc.GetCUBIN != NULL;
    ctx->target_arch = ctx->cubin ? dev_arch : best;
    pclr__cuda_fmt(ctx->target_opt, sizeof ctx->target_opt, "--gpu-architecture=%s_%d", ctx->cubin ? "sm" : "compute",
                   ctx->target_arch);
    return PCLR_OK;
}

/* Everything of create that needs the CUcontext current. */
static pclr_result pclr__cuda_init_current(pclr_cuda_context *ctx, const pclr_cuda_desc *d) {
    uint32_t ctl[PCLR__CUDA_CTL_BYTES / 4];
    char err[512];
    CUresult r;
    pclr_result pr;
    pclr_config dflt;
    const char *why;
    int i;
    if (d->context && (r = ctx->cu.CtxGetDevice(&ctx->device)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuCtxGetDevice");
    if ((r = ctx->cu.DeviceGetName(ctx->features.device_name, (int)sizeof ctx->features.device_name, ctx->device)) != CUDA_SUCCESS)
        return pclr__cuda_fail(ctx, r, "cuDeviceGetName");
    ctx->features.device_name[sizeof ctx->features.device_name - 1] = '\0';
    ctx->features.cc_major = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    ctx->features.cc_minor = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    ctx->features.compute_units = (uint32_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1);
    ctx->features.max_group_size = (uint32_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
    ctx->features.l2_bytes = (size_t)pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0);
    ctx->regs_per_block = pclr__cuda_attr(ctx, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536);
    if (ctx->features.compute_units == 0) ctx->features.compute_units = 1;
    ctx->facts.compute_units = ctx->features.compute_units;
    ctx->facts.max_group_size = ctx->features.max_group_size;

    /* NVRTC, preferring versions the driver can load */
    if ((pr = pclr__nvrtc_load(&ctx->rtc, d->nvrtc_path, ctx->features.driver_version / 1000, err, sizeof err)) != PCLR_OK) {
        pclr__cuda_error(ctx, "%s", err);
        return pr;
    }
    ctx->features.nvrtc_major = ctx->rtc.major;
    ctx->features.nvrtc_minor = ctx->rtc.minor;
    if ((pr = pclr__cuda_pick_target(ctx)) != PCLR_OK) return pr;

    /* scratch: control words, then partials for the default configuration (grown on demand) */
    if ((r = ctx->cu.MemAlloc(&ctx->ctl, PCLR__CUDA_CTL_BYTES)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuMemAlloc");
    memset(ctl, 0, sizeof ctl);
    for (i = 0; i < 6; ++i) /* slot i: type (uint, int) = i / 3, op (sum, min, max) = i % 3 */
        pclr_identity(i < 3 ? PCLR_UINT : PCLR_INT, (pclr_op)(PCLR_SUM + i % 3), &ctl[PCLR__CUDA_CTL_SLOTS / 4 + i]);
    if ((r = ctx->cu.MemcpyHtoD(ctx->ctl, ctl, sizeof ctl)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuMemcpyHtoD");
    memset(&dflt, 0, sizeof dflt);
    pclr__cuda_resolve_cfg(&dflt, &dflt, &why);
    ctx->partials_bytes = (size_t)pclr_max_groups(&dflt, &ctx->facts) * 8;
    if ((r = ctx->cu.MemAlloc(&ctx->partials, ctx->partials_bytes)) != CUDA_SUCCESS) {
        ctx->partials = 0;
        return pclr__cuda_fail(ctx, r, "cuMemAlloc");
    }
    /* the blocking result: mapped pinned host memory the kernel writes directly */
    if (ctx->cu.MemHostAlloc(&ctx->host_result, 64, CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS) {
        if (ctx->cu.MemHostGetDevicePointer(&ctx->host_result_dev, ctx->host_result, 0) != CUDA_SUCCESS) {
            ctx->cu.MemFreeHost(ctx->host_result);
            ctx->host_result = NULL;
            ctx->host_result_dev = 0;
        }
    } else {
        ctx->host_result = NULL;
    }
    return PCLR_OK;
}

static pclr_result pclr__cuda_init(pclr_cuda_context *ctx, const pclr_cuda_desc *d) {
    CUresult r;
    pclr_result pr;
    int count = 0, pushed = 0;
    if ((pr = pclr__cuda_load_driver(ctx, d->driver_path)) != PCLR_OK) return pr;
    if ((r = ctx->cu.Init(0)) != CUDA_SUCCESS) {
        const char *name, *str;
        pclr__cuda_err_text(ctx, r, &name, &str);
        if ((int)r == 34 /* CUDA_ERROR_STUB_LIBRARY */) {
            pclr__cuda_error(ctx, "no CUDA driver (%s is the toolkit's stub library: cuInit failed with CUDA_ERROR_STUB_LIBRARY)",
                             ctx->driver_name);
            return PCLR_ERR_NO_DRIVER;
        }
        pclr__cuda_error(ctx, "no usable CUDA device (cuInit failed: %s (%s, code %d))", name, str, (int)r);
        return PCLR_ERR_NO_DEVICE;
    }
    if (ctx->cu.DriverGetVersion(&ctx->features.driver_version) != CUDA_SUCCESS) ctx->features.driver_version = 0;
    if (d->context) {
        ctx->cu_ctx = d->context;
        ctx->device_ordinal = -1;
    } else {
        if ((r = ctx->cu.DeviceGetCount(&count)) != CUDA_SUCCESS) {
            pclr__cuda_fail(ctx, r, "cuDeviceGetCount");
            return PCLR_ERR_NO_DEVICE;
        }
        if (count <= 0) {
            pclr__cuda_error(ctx, "no CUDA device (cuDeviceGetCount found none)");
            return PCLR_ERR_NO_DEVICE;
        }
        if (d->device_ordinal < 0 || d->device_ordinal >= count) {
            pclr__cuda_error(ctx, "no CUDA device %d (there are %d)", d->device_ordinal, count);
            return PCLR_ERR_NO_DEVICE;
        }
        ctx->device_ordinal = d->device_ordinal;
        if ((r = ctx->cu.DeviceGet(&ctx->device, d->device_ordinal)) != CUDA_SUCCESS) {
            pclr__cuda_fail(ctx, r, "cuDeviceGet");
            return PCLR_ERR_NO_DEVICE;
        }
        if ((r = ctx->cu.DevicePrimaryCtxRetain(&ctx->cu_ctx, ctx->device)) != CUDA_SUCCESS) {
            ctx->cu_ctx = NULL;
            pr = pclr__cuda_fail(ctx, r, "cuDevicePrimaryCtxRetain");
            return pr == PCLR_ERR_BACKEND ? PCLR_ERR_NO_DEVICE : pr;
        }
        ctx->owns_primary = 1;
    }
    if ((pr = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return pr;
    pr = pclr__cuda_init_current(ctx, d);
    pclr__cuda_leave(ctx, pushed);
    return pr;
}

/* Frees everything but the struct itself (and the driver library). */
static void pclr__cuda_release(pclr_cuda_context *ctx) {
    size_t i;
    int pushed = 0;
    if (ctx->cu_ctx && ctx->cu.CtxPushCurrent && pclr__cuda_enter(ctx, &pushed) == PCLR_OK) {
        for (i = 0; i < ctx->module_count; ++i) ctx->cu.ModuleUnload(ctx->modules[i].module);
        if (ctx->partials) ctx->cu.MemFree(ctx->partials);
        if (ctx->ctl) ctx->cu.MemFree(ctx->ctl);
        if (ctx->host_result) ctx->cu.MemFreeHost(ctx->host_result);
        pclr__cuda_leave(ctx, pushed);
    }
    if (ctx->owns_primary) ctx->cu.DevicePrimaryCtxRelease(ctx->device);
    ctx->owns_primary = 0;
    ctx->cu_ctx = NULL;
    ctx->partials = ctx->ctl = ctx->host_result_dev = 0;
    ctx->host_result = NULL;
    ctx->module_count = ctx->entry_count = 0;
    if (ctx->modules) ctx->alloc.free(ctx->modules, ctx->alloc.user);
    if (ctx->entries) ctx->alloc.free(ctx->entries, ctx->alloc.user);
    if (ctx->table) ctx->alloc.free(ctx->table, ctx->alloc.user);
    if (ctx->log) ctx->alloc.free(ctx->log, ctx->alloc.user);
    if (ctx->tuned) ctx->alloc.free(ctx->tuned, ctx->alloc.user);
    ctx->tuned = NULL;
    ctx->tuned_count = 0;
    ctx->modules = NULL;
    ctx->entries = NULL;
    ctx->table = NULL;
    ctx->log = NULL;
    ctx->module_cap = ctx->entry_cap = ctx->table_cap = 0;
    ctx->last = 0;
    pclr__nvrtc_unload(&ctx->rtc);
}

/* The disk cache directory and this device's entries of the tuning file.
   Neither can fail the context: without them kernels are compiled and the
   built-in defaults apply. */
static void pclr__cuda_setup_files(pclr_cuda_context *ctx, const pclr_cuda_desc *d) {
    char path[1024], driver[32];
    const char *file = d->tune_file;
    size_t need;
    if (!d->no_disk_cache) { /* a directory name that does not fit turns the disk cache off */
        need = d->cache_dir && *d->cache_dir ? strlen(d->cache_dir) : pclr_cache_default_dir(NULL, 0);
        if (need && need < sizeof ctx->cache_dir) {
            if (d->cache_dir && *d->cache_dir) pclr__cuda_copy_str(ctx->cache_dir, sizeof ctx->cache_dir, d->cache_dir);
            else pclr_cache_default_dir(ctx->cache_dir, sizeof ctx->cache_dir);
        }
    }
    if (d->no_tune_file) return;
    if (!file || !*file) {
        need = pclr_tune_default_path(path, sizeof path);
        file = need && need < sizeof path ? path : NULL;
    }
    snprintf(driver, sizeof driver, "%d", ctx->features.driver_version);
    if (file && pclr_tune_load(file, PCLR_CUDA, ctx->features.device_name, driver, &ctx->alloc, &ctx->tuned,
                               &ctx->tuned_count) != PCLR_OK) {
        ctx->tuned = NULL;
        ctx->tuned_count = 0;
    }
}

PCLR_API pclr_result pclr_cuda_create(const pclr_cuda_desc *desc, pclr_cuda_context **out) {
    pclr_cuda_desc d;
    pclr_allocator a;
    pclr_cuda_context *ctx;
    pclr_result r;
    if (!out) return PCLR_ERR_NULL_POINTER;
    *out = NULL;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    a = d.allocator;
    if (!a.alloc || !a.free) {
        a.alloc = pclr__cuda_default_alloc;
        a.free = pclr__cuda_default_free;
        a.user = NULL;
    }
    ctx = (pclr_cuda_context *)a.alloc(sizeof *ctx, a.user);
    if (!ctx) return PCLR_ERR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = a;
    ctx->device_ordinal = d.device_ordinal;
    *out = ctx;
    r = pclr__cuda_init(ctx, &d);
    ctx->create_result = r;
    if (r != PCLR_OK) {
        if (!ctx->last_error[0]) pclr__cuda_error(ctx, "pclr_cuda_create failed: %s", pclr_result_string(r));
        pclr__cuda_release(ctx);
        return r;
    }
    pclr__cuda_setup_files(ctx, &d);
    ctx->ready = 1;
    return PCLR_OK;
}

PCLR_API void pclr_cuda_destroy(pclr_cuda_context *ctx) {
    pclr_allocator a;
    if (!ctx) return;
    pclr__cuda_release(ctx);
    a = ctx->alloc;
    memset(ctx, 0, sizeof *ctx);
    a.free(ctx, a.user);
}

PCLR_API const pclr_cuda_features *pclr_cuda_get_features(const pclr_cuda_context *ctx) {
    return ctx && ctx->ready ? &ctx->features : NULL;
}

PCLR_API const char *pclr_cuda_build_log(const pclr_cuda_context *ctx) {
    return ctx && ctx->log ? ctx->log : "";
}

PCLR_API const char *pclr_cuda_last_error(const pclr_cuda_context *ctx) {
    if (!ctx) return "invalid context (NULL)";
    return ctx->last_error;
}

PCLR_API pclr_result pclr_cuda_resolve(pclr_cuda_context *ctx, const pclr_config *cfg, pclr_config *out) {
    pclr_config c;
    pclr_result r;
    const char *why = NULL;
    if (!ctx || !ctx->ready) return PCLR_ERR_INVALID_CONTEXT;
    if ((r = pclr__cuda_resolve_cfg(cfg, &c, &why)) != PCLR_OK) {
        pclr__cuda_error(ctx, "invalid configuration: %s (%s)", why ? why : "?", pclr_result_string(r));
        return r;
    }
    if ((uint32_t)c.group_size > ctx->features.max_group_size) {
        pclr__cuda_error(ctx, "group size %d is above this device's limit of %u threads per block", c.group_size,
                         ctx->features.max_group_size);
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    *out = c;
    return PCLR_OK;
}

/* The bytes that define a binary, for the disk cache: source, options,
   device, compute capability, driver and NVRTC versions. NULL when the disk
   cache is off or memory is short (then the kernel is simply compiled). */
static char *pclr__cuda_identity(pclr_cuda_context *ctx, const char *src, const char *const *opts, int nopts,
                                 size_t *len) {
    size_t cap = strlen(src) + 512, n = 0;
    char *id;
    int i;
    if (!ctx->cache_dir[0]) return NULL;
    for (i = 0; i < nopts; ++i) cap += strlen(opts[i]) + 1;
    if (!(id = (char *)ctx->alloc.alloc(cap, ctx->alloc.user))) return NULL;
    pclr__appendf(id, cap, &n, "%s", src);
    for (i = 0; i < nopts; ++i) pclr__appendf(id, cap, &n, "\n%s", opts[i]);
    pclr__appendf(id, cap, &n, "\ncuda %s sm_%d%d driver %d nvrtc %d.%d", ctx->features.device_name,
                  ctx->features.cc_major, ctx->features.cc_minor, ctx->features.driver_version, ctx->rtc.major,
                  ctx->rtc.minor);
    *len = n;
    return id;
}

/* Compiles and loads the kernel of a resolved config, or finds it among the
   loaded modules by the hash of source + options. The context is current. */
static pclr_result pclr__cuda_function(pclr_cuda_context *ctx, const pclr_config *c, CUfunction *fn) {
    char optstore[256], err[512];
    const char *opts[8];
    char *src = NULL, *image = NULL, *log = NULL, *ident = NULL;
    size_t size = 0, i, image_size = 0, ident_len = 0;
    int nopts, max_threads = 0;
    uint64_t h;
    pclr_result pr;
    CUresult r = CUDA_SUCCESS;
    CUmodule mod = NULL;
    CUfunction f = NULL;
    if ((pr = pclr_kernel_source(c, NULL, 0, &size)) != PCLR_OK) {
        pclr__cuda_error(ctx, "pclr_kernel_source failed: %s", pclr_result_string(pr));
        return pr;
    }
    if (!(src = (char *)ctx->alloc.alloc(size, ctx->alloc.user))) {
        pclr__cuda_error(ctx, "out of host memory for the kernel source");
        return PCLR_ERR_OUT_OF_MEMORY;
    }
    pclr_kernel_source(c, src, size, NULL);
    nopts = pclr__cuda_options(c, ctx->target_opt, ctx->regs_per_block, optstore, sizeof optstore, opts);
    if (nopts < 0) {
        ctx->alloc.free(src, ctx->alloc.user);
        pclr__cuda_error(ctx, "compiler options too long");
        return PCLR_ERR_BUILD_FAILED;
    }
    h = pclr_hash64(src, size, PCLR_HASH_SEED);
    for (i = 0; i < (size_t)nopts; ++i) h = pclr_hash64(opts[i], strlen(opts[i]) + 1, h);
    for (i = 0; i < ctx->module_count; ++i)
        if (ctx->modules[i].hash == h) {
            ctx->alloc.free(src, ctx->alloc.user);
            *fn = ctx->modules[i].fn;
            return PCLR_OK;
        }
    if (ctx->module_count == ctx->module_cap) {
        size_t cap = ctx->module_cap ? ctx->module_cap * 2 : 16;
        pclr__cuda_module *m = (pclr__cuda_module *)ctx->alloc.alloc(cap * sizeof *m, ctx->alloc.user);
        if (!m) {
            ctx->alloc.free(src, ctx->alloc.user);
            pclr__cuda_error(ctx, "out of host memory for the module cache");
            return PCLR_ERR_OUT_OF_MEMORY;
        }
        if (ctx->module_count) memcpy(m, ctx->modules, ctx->module_count * sizeof *m);
        if (ctx->modules) ctx->alloc.free(ctx->modules, ctx->alloc.user);
        ctx->modules = m;
        ctx->module_cap = cap;
    }
    /* The disk cache: a valid file for this identity skips NVRTC; one the
       driver refuses is rebuilt and overwritten. */
    ident = pclr__cuda_identity(ctx, src, opts, nopts, &ident_len);
    if (ident && pclr_cache_load(ctx->cache_dir, ident, ident_len, &ctx->alloc, (void **)&image, &image_size, NULL)) {
        if (ctx->cu.ModuleLoadData(&mod, image) == CUDA_SUCCESS) ++ctx->disk_hits;
        else mod = NULL;
        ctx->alloc.free(image, ctx->alloc.user);
        image = NULL;
    }
    if (!mod) {
        err[0] = '\0';
        pr = pclr__nvrtc_build(&ctx->rtc, &ctx->alloc, src, opts, nopts, ctx->cubin, &image, &image_size, &log, err,
                               sizeof err);
        if (ctx->log) ctx->alloc.free(ctx->log, ctx->alloc.user);
        ctx->log = log;
        if (pr != PCLR_OK) {
            ctx->alloc.free(src, ctx->alloc.user);
            if (ident) ctx->alloc.free(ident, ctx->alloc.user);
            pclr__cuda_error(ctx, "%s (NVRTC %d.%d, %s; see pclr_cuda_build_log)", err, ctx->rtc.major, ctx->rtc.minor,
                             ctx->rtc.name);
            return pr;
        }
        r = ctx->cu.ModuleLoadData(&mod, image);
        /* a failed store only costs the next process a compile */
        if (r == CUDA_SUCCESS && ident && pclr_cache_store(ctx->cache_dir, ident, ident_len, image, image_size) == PCLR_OK)
            ++ctx->disk_stores;
        ctx->alloc.free(image, ctx->alloc.user);
    }
    ctx->alloc.free(src, ctx->alloc.user);
    if (ident) ctx->alloc.free(ident, ctx->alloc.user);
    if (r != CUDA_SUCCESS) {
        const char *name, *str;
        pclr__cuda_err_text(ctx, r, &name, &str);
        pclr__cuda_error(ctx, "cuModuleLoadData failed: %s (%s, code %d) loading %s from NVRTC %d.%d (%s) into driver %d.%d%s", name,
                         str, (int)r, strchr(ctx->target_opt, '=') + 1, ctx->rtc.major, ctx->rtc.minor, ctx->rtc.name,
                         ctx->features.driver_version / 1000, ctx->features.driver_version % 1000 / 10,
                         ctx->rtc.major * 1000 > ctx->features.driver_version
                             ? "; NVRTC is newer than the driver: set PCLR_NVRTC_LIBRARY to the driver's version"
                             : "");
        return r == CUDA_ERROR_OUT_OF_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED;
    }
    if ((r = ctx->cu.ModuleGetFunction(&f, mod, PCLR_KERNEL_NAME)) != CUDA_SUCCESS) {
        pr = pclr__cuda_fail(ctx, r, "cuModuleGetFunction");
        ctx->cu.ModuleUnload(mod);
        return pr;
    }
    if (ctx->cu.FuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS &&
        max_threads < c->group_size) {
        pclr__cuda_error(ctx, "the kernel for group size %d fits only %d threads per block on this device (registers)",
                         c->group_size, max_threads);
        ctx->cu.ModuleUnload(mod);
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    ctx->modules[ctx->module_count].hash = h;
    ctx->modules[ctx->module_count].module = mod;
    ctx->modules[ctx->module_count].fn = f;
    ++ctx->module_count;
    *fn = f;
    return PCLR_OK;
}

/* Makes the partials area hold `bytes` (waits for the context's work before
   freeing the old one). The context is current. */
static pclr_result pclr__cuda_grow_partials(pclr_cuda_context *ctx, size_t bytes) {
    CUdeviceptr p = 0;
    CUresult r;
    if (bytes <= ctx->partials_bytes) return PCLR_OK;
    if ((r = ctx->cu.CtxSynchronize()) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuCtxSynchronize");
    if ((r = ctx->cu.MemAlloc(&p, bytes)) != CUDA_SUCCESS) return pclr__cuda_fail(ctx, r, "cuMemAlloc (partials)");
    if (ctx->partials) ctx->cu.MemFree(ctx->partials);
    ctx->partials = p;
    ctx->partials_bytes = bytes;
    return PCLR_OK;
}

static uint64_t pclr__cuda_key_hash(const pclr_config *cfg) { return pclr_hash64(cfg, sizeof *cfg, PCLR_HASH_SEED); }

/* Inserts entry index i (0-based) into the table, growing it to keep the load under 1/2. */
static pclr_result pclr__cuda_table_insert(pclr_cuda_context *ctx, size_t i) {
    size_t j, mask;
    if ((ctx->entry_count + 1) * 2 > ctx->table_cap) {
        size_t cap = ctx->table_cap ? ctx->table_cap * 2 : 64, k;
        uint32_t *t = (uint32_t *)ctx->alloc.alloc(cap * sizeof *t, ctx->alloc.user);
        if (!t) return PCLR_ERR_OUT_OF_MEMORY;
        memset(t, 0, cap * sizeof *t);
        for (k = 0; k < ctx->entry_count; ++k) {
            if (k == i) continue;
            for (j = (size_t)pclr__cuda_key_hash(&ctx->entries[k].raw) & (cap - 1); t[j]; j = (j + 1) & (cap - 1)) {}
            t[j] = (uint32_t)(k + 1);
        }
        if (ctx->table) ctx->alloc.free(ctx->table, ctx->alloc.user);
        ctx->table = t;
        ctx->table_cap = cap;
    }
    mask = ctx->table_cap - 1;
    for (j = (size_t)pclr__cuda_key_hash(&ctx->entries[i].raw) & mask; ctx->table[j]; j = (j + 1) & mask) {}
    ctx->table[j] = (uint32_t)(i + 1);
    return PCLR_OK;
}

/* Slow path: resolves, builds (or finds) the kernel and adds an entry for the
   caller's config bytes. The context is current. */
static pclr_result pclr__cuda_add_entry(pclr_cuda_context *ctx, const pclr_config *cfg, const pclr__cuda_entry **out) {
    pclr__cuda_entry e;
    pclr_result r;
    size_t idx;
    memset(&e, 0, sizeof e);
    if ((r = pclr_cuda_resolve(ctx, cfg, &e.cfg)) != PCLR_OK) return r;
    if ((r = pclr__cuda_function(ctx, &e.cfg, &e.fn)) != PCLR_OK) return r;
    if ((r = pclr__cuda_grow_partials(ctx, (size_t)pclr_max_groups(&e.cfg, &ctx->facts) * 8)) != PCLR_OK) return r;
    memcpy(&e.raw, cfg, sizeof e.raw);
    e.elem_size = (uint32_t)pclr_type_size(e.cfg.type);
    e.atomic_slot = PCLR__CUDA_CTL_SLOTS + 4u * (uint32_t)((e.cfg.type == PCLR_INT ? 3 : 0) + (int)e.cfg.op - (int)PCLR_SUM);
    if (ctx->entry_count == ctx->entry_cap) {
        size_t cap = ctx->entry_cap ? ctx->entry_cap * 2 : 16;
        pclr__cuda_entry *p = (pclr__cuda_entry *)ctx->alloc.alloc(cap * sizeof *p, ctx->alloc.user);
        if (!p) {
            pclr__cuda_error(ctx, "out of host memory for the configuration cache");
            return PCLR_ERR_OUT_OF_MEMORY;
        }
        if (ctx->entry_count) memcpy(p, ctx->entries, ctx->entry_count * sizeof *p);
        if (ctx->entries) ctx->alloc.free(ctx->entries, ctx->alloc.user);
        ctx->entries = p;
        ctx->entry_cap = cap;
    }
    idx = ctx->entry_count;
    ctx->entries[idx] = e;
    if (pclr__cuda_table_insert(ctx, idx) != PCLR_OK) {
        pclr__cuda_error(ctx, "out of host memory for the configuration cache");
        return PCLR_ERR_OUT_OF_MEMORY;
    }
    ++ctx->entry_count;
    ctx->last = idx + 1;
    *out = &ctx->entries[idx];
    return PCLR_OK;
}

/* The entry for the caller's config: last hit, then the hash table, then the
   slow path. The returned pointer is valid until the next lookup. */
static pclr_result pclr__cuda_lookup(pclr_cuda_context *ctx, const pclr_config *cfg, const pclr__cuda_entry **out) {
    size_t j, mask;
    if (ctx->last && memcmp(&ctx->entries[ctx->last - 1].raw, cfg, sizeof *cfg) == 0) {
        *out = &ctx->entries[ctx->last - 1];
        return PCLR_OK;
    }
    if (ctx->table_cap) {
        mask = ctx->table_cap - 1;
        for (j = (size_t)pclr__cuda_key_hash(cfg) & mask; ctx->table[j]; j = (j + 1) & mask) {
            const pclr__cuda_entry *e = &ctx->entries[ctx->table[j] - 1];
            if (memcmp(&e->raw, cfg, sizeof *cfg) == 0) {
                ctx->last = ctx->table[j];
                *out = e;
                return PCLR_OK;
            }
        }
    }
    return pclr__cuda_add_entry(ctx, cfg, out);
}

PCLR_API pclr_result pclr_cuda_prepare(pclr_cuda_context *ctx, const pclr_config *cfg) {
    const pclr__cuda_entry *e = NULL;
    pclr_result r;
    int pushed = 0;
    if (!ctx || !ctx->ready) return PCLR_ERR_INVALID_CONTEXT;
    if (!cfg) {
        pclr__cuda_error(ctx, "pclr_cuda_prepare: config pointer is NULL");
        return PCLR_ERR_NULL_POINTER;
    }
    if ((r = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return r;
    r = pclr__cuda_lookup(ctx, cfg, &e);
    pclr__cuda_leave(ctx, pushed);
    return r;
}

static CUresult pclr__cuda_launch(pclr_cuda_context *ctx, CUfunction fn, uint64_t groups, uint32_t group_size,
                                  CUstream stream, CUdeviceptr in, uint64_t offset, uint64_t n, CUdeviceptr out,
                                  CUdeviceptr partials) {
    CUdeviceptr counter = ctx->ctl + PCLR__CUDA_CTL_COUNTER;
    void *args[6];
    args[0] = &in;
    args[1] = &offset;
    args[2] = &n;
    args[3] = &out;
    args[4] = &partials;
    args[5] = &counter;
    return ctx->cu.LaunchKernel(fn, (unsigned int)groups, 1, 1, group_size, 1, 1, 0, stream, args, NULL);
}

/* Shared body of the blocking (result != NULL) and async (out != 0) reduce. */
static pclr_result pclr__cuda_reduce(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in, uint64_t offset,
                                     uint64_t n, CUstream stream, CUdeviceptr out, void *result) {
    const pclr__cuda_entry *e = NULL;
    pclr_config tuned;
    pclr_launch launch;
    pclr_result pr;
    CUresult r;
    CUdeviceptr dst, base = 0;
    size_t alloc_size = 0;
    uint64_t es, end_bytes;
    int pushed = 0;
    if (!ctx || !ctx->ready) return PCLR_ERR_INVALID_CONTEXT;
    if (!cfg || (!result && !out)) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce: %s is NULL", !cfg ? "config" : result ? "out" : "result");
        return PCLR_ERR_NULL_POINTER;
    }
    if ((pr = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return pr;
    if (ctx->tuned_count && pclr_tune_apply(ctx->tuned, ctx->tuned_count, cfg, n, &tuned)) cfg = &tuned;
    if ((pr = pclr__cuda_lookup(ctx, cfg, &e)) != PCLR_OK) goto done;
    es = e->elem_size;
    if (!in && n > 0) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce: input pointer is 0 with n = %llu", (unsigned long long)n);
        pr = PCLR_ERR_NULL_POINTER;
        goto done;
    }
    if (in % es != 0 || (!result && out % es != 0)) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce: %s pointer 0x%llx is not aligned to the %u-byte element size",
                         in % es != 0 ? "input" : "output", (unsigned long long)(in % es != 0 ? in : out), (unsigned)es);
        pr = PCLR_ERR_MISALIGNED;
        goto done;
    }
    if (offset > UINT64_MAX - n || offset + n > UINT64_MAX / es || in > UINT64_MAX - (offset + n) * es) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce: offset %llu + n %llu elements overflows 64-bit addresses",
                         (unsigned long long)offset, (unsigned long long)n);
        pr = PCLR_ERR_SIZE_OVERFLOW;
        goto done;
    }
    end_bytes = (offset + n) * es;
    if (in) {
        r = ctx->cu.MemGetAddressRange(&base, &alloc_size, in);
        if (r == CUDA_SUCCESS && in + end_bytes > (uint64_t)base + alloc_size) {
            pclr__cuda_error(ctx, "pclr_cuda_reduce: elements [%llu, %llu) reach %llu bytes past the end of the %llu-byte "
                             "allocation holding the input",
                             (unsigned long long)offset, (unsigned long long)(offset + n),
                             (unsigned long long)(in + end_bytes - ((uint64_t)base + alloc_size)),
                             (unsigned long long)alloc_size);
            pr = PCLR_ERR_SIZE_OVERFLOW;
            goto done;
        }
    }
    if (n == 0 && result) { /* nothing to wait for */
        pr = pclr_identity(e->cfg.type, e->cfg.op, result);
        goto done;
    }
    if ((pr = pclr_plan(&e->cfg, &ctx->facts, n, &launch)) != PCLR_OK) {
        pclr__cuda_error(ctx, "pclr_plan failed: %s", pclr_result_string(pr));
        goto done;
    }
    dst = result ? (ctx->host_result ? ctx->host_result_dev : ctx->ctl + PCLR__CUDA_CTL_RESULT) : out;
    if (e->cfg.finish == PCLR_FINISH_PARTIALS && launch.groups > 1) {
        /* pass 1: one value per group into the partials; pass 2: one group folds them */
        r = pclr__cuda_launch(ctx, e->fn, launch.groups, launch.group_size, stream, in, offset, n, ctx->partials, ctx->partials);
        if (r == CUDA_SUCCESS)
            r = pclr__cuda_launch(ctx, e->fn, 1, launch.group_size, stream, ctx->partials, 0, launch.groups, dst, ctx->partials);
    } else {
        r = pclr__cuda_launch(ctx, e->fn, launch.groups, launch.group_size, stream, in, offset, n, dst,
                              e->cfg.finish == PCLR_FINISH_ATOMIC ? ctx->ctl + e->atomic_slot : ctx->partials);
    }
    if (r != CUDA_SUCCESS) {
        pr = pclr__cuda_fail(ctx, r, "cuLaunchKernel");
        goto done;
    }
    if (result) {
        if ((r = ctx->cu.StreamSynchronize(stream)) != CUDA_SUCCESS) {
            pr = pclr__cuda_fail(ctx, r, "cuStreamSynchronize");
            goto done;
        }
        if (ctx->host_result) {
            memcpy(result, ctx->host_result, (size_t)es);
        } else if ((r = ctx->cu.MemcpyDtoH(result, dst, (size_t)es)) != CUDA_SUCCESS) {
            pr = pclr__cuda_fail(ctx, r, "cuMemcpyDtoH");
            goto done;
        }
    }
done:
    pclr__cuda_leave(ctx, pushed);
    return pr;
}

PCLR_API pclr_result pclr_cuda_reduce(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in, uint64_t offset,
                                      uint64_t n, CUstream stream, void *result) {
    if (ctx && ctx->ready && !result) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce: result pointer is NULL");
        return PCLR_ERR_NULL_POINTER;
    }
    return pclr__cuda_reduce(ctx, cfg, in, offset, n, stream, 0, result);
}

PCLR_API pclr_result pclr_cuda_reduce_async(pclr_cuda_context *ctx, const pclr_config *cfg, CUdeviceptr in,
                                            uint64_t offset, uint64_t n, CUdeviceptr out, CUstream stream) {
    if (ctx && ctx->ready && !out) {
        pclr__cuda_error(ctx, "pclr_cuda_reduce_async: output pointer is 0");
        return PCLR_ERR_NULL_POINTER;
    }
    return pclr__cuda_reduce(ctx, cfg, in, offset, n, stream, out, NULL);
}

/* Runs one driver call with the context current; names the call on failure. */
#define PCLR__CUDA_MEMCALL(ctx, call, name)                                      \
    do {                                                                         \
        int pushed_ = 0;                                                         \
        CUresult r_;                                                             \
        pclr_result pr_;                                                         \
        if (!(ctx) || !(ctx)->ready) return PCLR_ERR_INVALID_CONTEXT;            \
        if ((pr_ = pclr__cuda_enter((ctx), &pushed_)) != PCLR_OK) return pr_;   \
        r_ = (call);                                                             \
        pclr__cuda_leave((ctx), pushed_);                                        \
        if (r_ == CUDA_ERROR_OUT_OF_MEMORY) {                                    \
            pclr__cuda_fail((ctx), r_, name);                                    \
            return PCLR_ERR_OUT_OF_MEMORY;                                       \
        }                                                                        \
        if (r_ != CUDA_SUCCESS) return pclr__cuda_fail((ctx), r_, name);         \
        return PCLR_OK;                                                          \
    } while (0)

/* ------------------------------------------------------------ tuner */
typedef struct pclr__cuda_tuning {
    pclr_cuda_context *ctx;
    CUdeviceptr pool, out;
    uint64_t pool_elems, turn;
    CUevent start, stop;
} pclr__cuda_tuning;

/* Seconds per call of cfg on n elements, pipelined (calls back to back on
   the default stream), the median of three batches; each call reads the
   next slice of the pool so that inputs come from memory, not L2. */
static double pclr__cuda_tune_measure(void *user, const pclr_config *cfg, uint64_t n) {
    pclr__cuda_tuning *t = (pclr__cuda_tuning *)user;
    const uint64_t span = (n + 63) / 64 * 64, slots = t->pool_elems / span ? t->pool_elems / span : 1;
    double secs[3];
    int calls = 1, batch, i;
    if (pclr_cuda_prepare(t->ctx, cfg) != PCLR_OK) return -1.0; /* this device cannot run it */
    for (batch = -1; batch < 3; ++batch) { /* batch -1: warm-up, and sizes the batches to ~2 ms */
        float ms = 0.0f;
        if (t->ctx->cu.EventRecord(t->start, NULL) != CUDA_SUCCESS) return -1.0;
        for (i = 0; i < calls; ++i)
            if (pclr_cuda_reduce_async(t->ctx, cfg, t->pool, (t->turn++ % slots) * span, n, t->out, NULL) != PCLR_OK)
                return -1.0;
        if (t->ctx->cu.EventRecord(t->stop, NULL) != CUDA_SUCCESS || t->ctx->cu.EventSynchronize(t->stop) != CUDA_SUCCESS ||
            t->ctx->cu.EventElapsedTime(&ms, t->start, t->stop) != CUDA_SUCCESS)
            return -1.0;
        if (batch < 0) calls = pclr__tune_batch_calls(ms * 1e-3);
        else secs[batch] = ms * 1e-3 / calls;
    }
    return pclr__tune_median3(secs);
}

/* Fills the pool with the tuners' pattern. */
static pclr_result pclr__cuda_tune_fill(pclr_cuda_context *ctx, CUdeviceptr pool, uint64_t bytes, pclr_type type) {
    const size_t chunk = (size_t)1 << 20;
    uint64_t done;
    char *host = (char *)ctx->alloc.alloc(chunk, ctx->alloc.user);
    CUresult r = CUDA_SUCCESS;
    if (!host) return PCLR_ERR_OUT_OF_MEMORY;
    pclr__tune_pattern(type, host, chunk);
    for (done = 0; done < bytes && r == CUDA_SUCCESS; done += chunk)
        r = ctx->cu.MemcpyHtoD(pool + done, host, (size_t)(bytes - done < chunk ? bytes - done : chunk));
    ctx->alloc.free(host, ctx->alloc.user);
    return r == CUDA_SUCCESS ? PCLR_OK : pclr__cuda_fail(ctx, r, "cuMemcpyHtoD (tuning input)");
}

PCLR_API pclr_result pclr_cuda_tune(pclr_cuda_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                    pclr_tune_entry *out, size_t cap, size_t *count) {
    pclr__cuda_tuning t;
    pclr_tune_options o;
    pclr_config start;
    pclr_result pr;
    CUresult r;
    uint64_t es, pool_bytes;
    size_t i;
    int pushed = 0;
    if (count) *count = 0;
    if (!ctx || !ctx->ready) return PCLR_ERR_INVALID_CONTEXT;
    if (!out || !count) {
        pclr__cuda_error(ctx, "pclr_cuda_tune: %s is NULL", out ? "count" : "out");
        return PCLR_ERR_NULL_POINTER;
    }
    memset(&start, 0, sizeof start);
    start.type = type;
    start.op = op;
    if ((int)type <= 0 || (int)op <= 0 || (pr = pclr_cuda_resolve(ctx, &start, &start)) != PCLR_OK) {
        pclr__cuda_error(ctx, "pclr_cuda_tune: type and op must be set and valid");
        return PCLR_ERR_INVALID_ENUM;
    }
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (!o.max_n) o.max_n = (uint64_t)1 << 26;
    es = pclr_type_size(type);
    if (o.max_n > ((uint64_t)1 << 40) / es) {
        pclr__cuda_error(ctx, "pclr_cuda_tune: max_n %llu is too large", (unsigned long long)o.max_n);
        return PCLR_ERR_SIZE_OVERFLOW;
    }
    /* at least 4 x L2 so that small inputs rotate through memory, not L2 */
    pool_bytes = o.max_n * es > 4 * (uint64_t)ctx->features.l2_bytes ? o.max_n * es : 4 * (uint64_t)ctx->features.l2_bytes;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    t.pool_elems = pool_bytes / es;
    if ((pr = pclr__cuda_enter(ctx, &pushed)) != PCLR_OK) return pr;
    if ((r = ctx->cu.MemAlloc(&t.pool, (size_t)pool_bytes)) != CUDA_SUCCESS) {
        t.pool = 0;
        pr = pclr__cuda_fail(ctx, r, "cuMemAlloc (tuning input)");
    } else if ((r = ctx->cu.MemAlloc(&t.out, 8)) != CUDA_SUCCESS) {
        t.out = 0;
        pr = pclr__cuda_fail(ctx, r, "cuMemAlloc (tuning result)");
    } else if ((r = ctx->cu.EventCreate(&t.start, 0)) != CUDA_SUCCESS || (r = ctx->cu.EventCreate(&t.stop, 0)) != CUDA_SUCCESS) {
        pr = pclr__cuda_fail(ctx, r, "cuEventCreate");
    } else if ((pr = pclr__cuda_tune_fill(ctx, t.pool, pool_bytes, type)) == PCLR_OK) {
        pr = pclr_tune_sweep(&start, &o, pclr__cuda_tune_measure, &t, out, cap, count);
    }
    if (t.start) ctx->cu.EventDestroy(t.start);
    if (t.stop) ctx->cu.EventDestroy(t.stop);
    if (t.out) ctx->cu.MemFree(t.out);
    if (t.pool) ctx->cu.MemFree(t.pool);
    pclr__cuda_leave(ctx, pushed);
    if (pr != PCLR_OK) {
        if (pr == PCLR_ERR_BUFFER_TOO_SMALL) pclr__cuda_error(ctx, "pclr_cuda_tune: out needs room for %d entries", PCLR_TUNE_CLASSES);
        *count = 0;
        return pr;
    }
    for (i = 0; i < *count; ++i) {
        pclr__cuda_copy_str(out[i].device, sizeof out[i].device, ctx->features.device_name);
        snprintf(out[i].driver, sizeof out[i].driver, "%d", ctx->features.driver_version);
    }
    if ((pr = pclr__tune_add(&ctx->alloc, &ctx->tuned, &ctx->tuned_count, out, *count)) != PCLR_OK)
        pclr__cuda_error(ctx, "pclr_cuda_tune: out of host memory for the tuned entries");
    return pr;
}

PCLR_API pclr_result pclr_cuda_alloc(pclr_cuda_context *ctx, size_t bytes, CUdeviceptr *out) {
    if (!out) return PCLR_ERR_NULL_POINTER;
    *out = 0;
    PCLR__CUDA_MEMCALL(ctx, ctx->cu.MemAlloc(out, bytes), "cuMemAlloc");
}
PCLR_API pclr_result pclr_cuda_free(pclr_cuda_context *ctx, CUdeviceptr ptr) {
    if (!ptr) return PCLR_OK;
    PCLR__CUDA_MEMCALL(ctx, ctx->cu.MemFree(ptr), "cuMemFree");
}
PCLR_API pclr_result pclr_cuda_copy_to_device(pclr_cuda_context *ctx, CUdeviceptr dst, const void *src, size_t bytes) {
    if ((!src || !dst) && bytes) return PCLR_ERR_NULL_POINTER;
    if (!bytes) return ctx && ctx->ready ? PCLR_OK : PCLR_ERR_INVALID_CONTEXT;
    PCLR__CUDA_MEMCALL(ctx, ctx->cu.MemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}
PCLR_API pclr_result pclr_cuda_copy_to_host(pclr_cuda_context *ctx, void *dst, CUdeviceptr src, size_t bytes) {
    if ((!src || !dst) && bytes) return PCLR_ERR_NULL_POINTER;
    if (!bytes) return ctx && ctx->ready ? PCLR_OK : PCLR_ERR_INVALID_CONTEXT;
    PCLR__CUDA_MEMCALL(ctx, ctx->cu.MemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}
#undef PCLR__CUDA_MEMCALL

PCLR_API size_t pclr_cuda_describe(const pclr_cuda_context *ctx, char *buf, size_t cap) {
    size_t len = 0;
    if (!ctx) {
        pclr__appendf(buf, cap, &len, "CUDA backend: no context");
    } else if (!ctx->ready) {
        pclr__appendf(buf, cap, &len, "CUDA backend: not available: %s (%s)", ctx->last_error,
                       pclr_result_string(ctx->create_result));
    } else {
        const pclr_cuda_features *f = &ctx->features;
        pclr__appendf(buf, cap, &len, "CUDA backend (driver API + NVRTC)\n");
        pclr__appendf(buf, cap, &len, "device: %s, compute capability %d.%d, %u multiprocessors, %u threads per block max, %lu KiB L2\n",
                       f->device_name, f->cc_major, f->cc_minor, f->compute_units, f->max_group_size,
                       (unsigned long)(f->l2_bytes / 1024));
        if (ctx->device_ordinal >= 0) pclr__appendf(buf, cap, &len, "context: primary context of device %d\n", ctx->device_ordinal);
        else pclr__appendf(buf, cap, &len, "context: the caller's CUcontext\n");
        pclr__appendf(buf, cap, &len, "driver: CUDA %d.%d (%s)\n", f->driver_version / 1000, f->driver_version % 1000 / 10,
                       ctx->driver_name);
        pclr__appendf(buf, cap, &len, "nvrtc: %d.%d (%s), code: %s for %s_%d\n", f->nvrtc_major, f->nvrtc_minor,
                       ctx->rtc.name, ctx->cubin ? "CUBIN" : "PTX (driver JIT)", ctx->cubin ? "sm" : "compute", ctx->target_arch);
        pclr__appendf(buf, cap, &len, "blocking result: %s\n",
                       ctx->host_result ? "mapped pinned host memory" : "device memory + copy (mapping unavailable)");
        pclr__appendf(buf, cap, &len, "cache: %lu configurations, %lu modules\n", (unsigned long)ctx->entry_count,
                       (unsigned long)ctx->module_count);
        pclr__appendf(buf, cap, &len, "disk cache: %s (%lu loaded, %lu stored)\n", ctx->cache_dir[0] ? ctx->cache_dir : "off",
                       (unsigned long)ctx->disk_hits, (unsigned long)ctx->disk_stores);
        pclr__appendf(buf, cap, &len, "tuned: %lu entries for this device\n", (unsigned long)ctx->tuned_count);
    }
    if (buf && cap > 0) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

PCLR_API pclr_result pclr_cuda_compile_check(const pclr_config *cfg, const char *nvrtc_path, int arch, int cubin,
                                             char *log, size_t log_cap) {
    pclr__nvrtc_api rtc;
    pclr_allocator a;
    pclr_config c;
    pclr_result r;
    const char *why = NULL, *opts[8];
    char target[64], optstore[256], err[512], *src = NULL, *build_log = NULL, *image = NULL;
    size_t size = 0;
    int nopts;
    if (log && log_cap) log[0] = '\0';
    if ((r = pclr__cuda_resolve_cfg(cfg, &c, &why)) != PCLR_OK) {
        pclr__cuda_fmt(log, log_cap, "invalid configuration: %s", why ? why : pclr_result_string(r));
        return r;
    }
    if (arch < 10 || arch > 9999) {
        pclr__cuda_fmt(log, log_cap, "arch %d is not a compute capability number (e.g. 75, 90)", arch);
        return PCLR_ERR_INVALID_KNOB;
    }
    a.alloc = pclr__cuda_default_alloc;
    a.free = pclr__cuda_default_free;
    a.user = NULL;
    if ((r = pclr__nvrtc_load(&rtc, nvrtc_path, 0, err, sizeof err)) != PCLR_OK) {
        pclr__cuda_fmt(log, log_cap, "%s", err);
        return r;
    }
    pclr__cuda_fmt(target, sizeof target, "--gpu-architecture=%s_%d", cubin ? "sm" : "compute", arch);
    /* every CUDA device since sm_20 has 64K registers per block */
    nopts = pclr__cuda_options(&c, target, 65536, optstore, sizeof optstore, opts);
    if (nopts < 0) {
        pclr__cuda_fmt(log, log_cap, "compiler options too long");
        r = PCLR_ERR_BUILD_FAILED;
    } else if (pclr_kernel_source(&c, NULL, 0, &size) != PCLR_OK || !(src = (char *)malloc(size))) {
        pclr__cuda_fmt(log, log_cap, "out of host memory for the kernel source");
        r = PCLR_ERR_OUT_OF_MEMORY;
    } else {
        pclr_kernel_source(&c, src, size, NULL);
        err[0] = '\0';
        r = pclr__nvrtc_build(&rtc, &a, src, opts, nopts, cubin, &image, NULL, &build_log, err, sizeof err);
        if (r != PCLR_OK && (!build_log || !build_log[0])) pclr__cuda_fmt(log, log_cap, "%s", err);
        else if (r != PCLR_OK) pclr__cuda_fmt(log, log_cap, "%s\n%s", err, build_log);
        else if (build_log) pclr__cuda_fmt(log, log_cap, "%s", build_log);
    }
    free(src);
    free(image);
    free(build_log);
    pclr__nvrtc_unload(&rtc);
    return r;
}

#ifdef __cplusplus
}
#endif

#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_CUDA_IMPLEMENTED */
