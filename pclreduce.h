/* pclreduce.h - portable GPU reductions from kernels written at run time.

   Core: types, configuration, validation, the kernel source generator for the
   OpenCL C and CUDA dialects, the launch planner, the CPU reference and result
   codes. Needs no GPU header.

   Use (stb style), in exactly one C or C++ file:
       #define PCLREDUCE_IMPLEMENTATION
       #define PCLREDUCE_OPENCL      (and/or PCLREDUCE_CUDA: pulls in the backend)
       #include "pclreduce.h"
   Other files include it without PCLREDUCE_IMPLEMENTATION.

   Options (define before including):
       PCLREDUCE_STATIC   all functions static (private to one translation unit)
       PCLR_ASSERT(c)     assertion used by the library (default: assert)
       PCLREDUCE_MACRO_FORM  PCLR_SOURCE_CL / PCLR_SOURCE_CUDA (section "macro form")
   Features left out (docs/usage.md "Leaving features out"), defined where
   PCLREDUCE_IMPLEMENTATION is: their functions stay and refuse with
   PCLR_ERR_UNSUPPORTED_COMBINATION and a sentence naming the switch.
       PCLREDUCE_NO_MAP      map expressions (parser, writer, CPU evaluation)
       PCLREDUCE_NO_EXACT    accumulate = exact (kernel and CPU reference)
       PCLREDUCE_NO_LAYOUTS  rows, columns, segments (kernels, planner, CPU reference)
       PCLREDUCE_NO_FILES    the disk cache and the tuning file (no file I/O)

   Thread safety: the core has no global mutable state; every function is
   reentrant. Backend contexts are documented in their headers.

   License: MIT (the full text is at the end of this file and in LICENSE).

   Index: search for the tag (">>gen") to jump to its section.
     what a program sees
       >>codes     result codes                    >>context   the generic context, pclr_reduce
       >>config    the description: pclr_config    >>knobs     the knobs, defined once (PCLR__KNOBS)
       >>results   inputs, results, sizes          >>macro     the macro form (PCLREDUCE_MACRO_FORM)
       >>cache     the kernel cache                >>text      kernel text the generator and the macro
       >>tune      the tuning file                             form share (only where asked for)
     the implementation (>>impl)
       >>map       the map language: parser        >>source    pclr_kernel_source, pclr_map_source
       >>state     an op's state, its fields       >>plan      the planner: groups, a layout's strategy
       >>ops       the built-in ops as data        >>cpu       the CPU reference
       >>resolve   pclr_config_resolve             >>combine   combining two results
       >>mapgen    writing a map out, per dialect  >>files     disk cache and tuning file I/O
       >>gen       the generator: the op writer,   >>engine    the one reduce pipeline (pclr__engine_reduce)
                   the one-array C kernels         >>loading   loading OpenCL, CUDA, Vulkan at run time
       >>exact     the exact sum's kernel          >>generic   the generic context
       >>glsl      the GLSL kernel (Vulkan)        >>cpu-backend  the CPU reference as a backend
       >>layouts   rows, columns, segments         >>deprecated   0.3's verbs (go in 0.5)
       >>histogram a histogram's range and bins    >>backends  the backend headers the program asked for
       >>histogram-kernel  its kernel              >>quantiles a histogram's quantiles */
#ifndef PCLREDUCE_H
#define PCLREDUCE_H

#include <stddef.h>
#include <stdint.h>

#ifndef PCLR_API
#if defined(PCLREDUCE_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define PCLR_API static __attribute__((unused)) /* a program need not call every function */
#elif defined(PCLREDUCE_STATIC)
#define PCLR_API static
#else
#define PCLR_API extern
#endif
#endif

/* The declarations of deprecated functions (kept for one minor version, then removed; the CHANGELOG
   names what replaces each). Define PCLREDUCE_WARN_DEPRECATED to have the compiler say where a
   program still calls one. */
#if defined(PCLREDUCE_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#define PCLR_DEPRECATED PCLR_API __attribute__((deprecated))
#else
#define PCLR_DEPRECATED PCLR_API
#endif

/* The implementation's own calls of deprecated functions (wrappers calling each other) are not warned about. */
#if defined(PCLREDUCE_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#define PCLR__DEPRECATED_OK_BEGIN _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define PCLR__DEPRECATED_OK_END _Pragma("GCC diagnostic pop")
#else
#define PCLR__DEPRECATED_OK_BEGIN
#define PCLR__DEPRECATED_OK_END
#endif

/* C linkage for C++ programs, around every declaration and definition. */
#ifdef __cplusplus
#define PCLR_EXTERN_C_BEGIN extern "C" {
#define PCLR_EXTERN_C_END }
#else
#define PCLR_EXTERN_C_BEGIN
#define PCLR_EXTERN_C_END
#endif

#define PCLREDUCE_VERSION_MAJOR 0
#define PCLREDUCE_VERSION_MINOR 4
#define PCLREDUCE_VERSION_PATCH 0
#define PCLREDUCE_VERSION "0.4.0"

/* Zero-initialises any pclreduce struct (zero means "the default" in every field), the same way
   in C and C++ and without warnings:  pclr_config cfg = PCLR_ZERO;  ({0} is an error in C++ for
   a struct that starts with an enum, {} is not C99.) */
#ifdef __cplusplus
#define PCLR_ZERO {}
#else
#define PCLR_ZERO {0}
#endif

PCLR_EXTERN_C_BEGIN

/* ---------------------------------------------------------------- result codes  >>codes */
typedef enum pclr_result {
    PCLR_OK = 0,
    PCLR_ERR_NULL_POINTER,          /* a required pointer argument is NULL */
    PCLR_ERR_INVALID_ENUM,          /* type, op, backend, variant, finish or stride out of range */
    PCLR_ERR_INVALID_KNOB,          /* wave, group, unroll, vector or grid value not supported */
    PCLR_ERR_UNSUPPORTED_COMBINATION, /* valid knobs that do not go together */
    PCLR_ERR_BUFFER_TOO_SMALL,      /* caller buffer too small; the size needed was reported */
    PCLR_ERR_SIZE_OVERFLOW,         /* n/offset overflow 64 bits or exceed the buffer */
    PCLR_ERR_MISALIGNED,            /* pointer not aligned to the element size */
    PCLR_ERR_NO_DRIVER,             /* OpenCL ICD / CUDA driver / NVRTC / Vulkan loader / shaderc not found */
    PCLR_ERR_NO_DEVICE,             /* no usable device */
    PCLR_ERR_NO_FP64,               /* double requested on a device without fp64 */
    PCLR_ERR_NO_INT64_ATOMICS,      /* configuration needs 64-bit atomics the device lacks */
    PCLR_ERR_UNSUPPORTED_BY_DEVICE, /* the device cannot run this configuration */
    PCLR_ERR_BUILD_FAILED,          /* kernel compilation failed; the build log is kept */
    PCLR_ERR_OUT_OF_MEMORY,         /* host or device allocation failed */
    PCLR_ERR_BACKEND,               /* an OpenCL/CUDA call failed (see the context's message) */
    PCLR_ERR_INVALID_CONTEXT,       /* context NULL, destroyed or not initialised */
    PCLR_ERR_IO,                    /* a cache or tuning file could not be read or written */
    PCLR_ERR_INVALID_MAP,           /* a map expression or its parameters do not parse or type-check */
    PCLR_ERR_INVALID_ARGUMENT,      /* an argument that cannot be used here: a buffer of another context */
    PCLR_ERR_BUSY,                  /* the context is in a call of another thread: one call at a time per context */
    PCLR_RESULT_COUNT_
} pclr_result;

/* ------------------------------------------------------------ configuration  >>config
   Zero means "default" everywhere (sokol style): a zero-initialised config is
   a float sum with every knob at its default. */
/* Element types: uint/int are 32-bit, half is IEEE binary16 storage (a
   uint16_t of bits on the host). 64-bit types and double need a device that
   has them (PCLR_ERR_NO_FP64 otherwise). New types were added after the first
   four so that the old values keep their numbers. */
typedef enum pclr_type {
    PCLR_TYPE_DEFAULT = 0, PCLR_UINT, PCLR_INT, PCLR_FLOAT, PCLR_DOUBLE,
    PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT64, PCLR_INT64, PCLR_HALF,
    PCLR_TYPE_COUNT_
} pclr_type;
/* What a reduction computes (docs/semantics.md has each one's result):
   sum, min, max: one value; argmin/argmax: value and index (ties: the
   smallest index; floats: the first NaN); minmax: both in one pass; stats:
   count, sum, min, max, mean, variance in one pass; count: nonzero elements;
   prod: the product (integers wrap in the element type, or in 64 bits with
   accumulate wide; floats in their type, double with wide); and, or, xor:
   bitwise, of integers; any, all: whether some / every element is nonzero
   (NaN is), 0 or 1; argminmax: argmin and argmax in one pass; custom: the
   reduction described in cfg.reduce (a pclr_custom_result); histogram: counts
   of the values in cfg.bins even bins over [in.lo, in.hi) (a
   pclr_histogram_result, its counts and, weighted, the sums of y per bin). The built-in ops are those before
   PCLR_CUSTOM. New ops were added after count so that the old values keep
   their numbers. */
typedef enum pclr_op {
    PCLR_OP_DEFAULT = 0, PCLR_SUM, PCLR_MIN, PCLR_MAX, PCLR_ARGMIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT,
    PCLR_PROD, PCLR_AND, PCLR_OR, PCLR_XOR, PCLR_ANY, PCLR_ALL, PCLR_ARGMINMAX, PCLR_CUSTOM, PCLR_HISTOGRAM,
    PCLR_OP_COUNT_
} pclr_op;
/* How a sum (also the sum inside stats) accumulates:
   NATIVE: in the element's own width: 32-bit ints wrap mod 2^32, 64-bit mod
     2^64, 8/16-bit ints accumulate in 32 bits, half in float;
   WIDE: integers in 64 bits, half and float in double (needs fp64);
   COMPENSATED: Kahan-Babuska-Neumaier in the element's float type (half: float);
   EXACT: half, float and double sums only: the exact sum rounded once to
     nearest-even into float (half, float) or double, the same bits for every
     knob, backend and device (needs fp64 and 64-bit integer atomics). */
typedef enum pclr_accumulate {
    PCLR_ACCUMULATE_DEFAULT = 0, PCLR_NATIVE, PCLR_WIDE, PCLR_COMPENSATED, PCLR_EXACT, PCLR_ACCUMULATE_COUNT_
} pclr_accumulate;
/* What is reduced into how many results (docs/layouts.md):
   ONE: the n elements into one result; ROWS: a rows x cols matrix whose rows
   start pitch elements apart, one result per row (NumPy axis=-1; fixed-length
   segments are rows with pitch = cols); COLUMNS: the same matrix, one result
   per column (axis=0); SEGMENTS: K segments [offsets[k], offsets[k + 1]) of
   the input, the K + 1 uint64 offsets in device memory, one result each. */
typedef enum pclr_layout {
    PCLR_LAYOUT_ONE = 0, PCLR_LAYOUT_ROWS, PCLR_LAYOUT_COLUMNS, PCLR_LAYOUT_SEGMENTS, PCLR_LAYOUT_COUNT_
} pclr_layout;
/* Where a reduction runs, and the kernel language it is written in: one word in
   the API, on the command lines (--backend) and in the tuning file. 0 is
   "auto": a backend's own calls fill in their own, the generic context picks
   one (see pclr_context). The CPU reference runs no kernel. */
typedef enum pclr_backend {
    PCLR_BACKEND_AUTO = 0, PCLR_OPENCL, PCLR_CUDA, PCLR_CPU, PCLR_VULKAN, PCLR_BACKEND_COUNT_
} pclr_backend;
/* Earlier spellings, kept so that existing programs build. */
typedef pclr_backend pclr_dialect;
#define PCLR_BACKEND_DEFAULT PCLR_BACKEND_AUTO
#define PCLR_DIALECT_DEFAULT PCLR_BACKEND_AUTO
#define pclr_dialect_name pclr_backend_name
#define pclr_parse_dialect pclr_parse_backend

/* Level 1 (in-thread): how a work-item walks the input. */
typedef enum pclr_stride {
    PCLR_STRIDE_DEFAULT = 0,
    PCLR_STRIDE_GLOBAL,   /* grid-stride: consecutive work-items read consecutive vectors */
    PCLR_STRIDE_LOCAL,    /* each work-item walks its own contiguous block (what CPUs want) */
    PCLR_STRIDE_SIMD,     /* OpenCL C: as LOCAL, and each load is folded lane by lane into a vector of
                             accumulators, reduced once at the end (a CPU's SIMD; docs/knobs.md) */
    PCLR_STRIDE_COUNT_
} pclr_stride;

/* Level 2 (in-group): how a group combines its work-items' values. */
typedef enum pclr_variant {
    PCLR_VARIANT_DEFAULT = 0, /* CUDA: SHUFFLE; OpenCL: UNROLLED (backends pick better per device) */
    PCLR_VARIANT_NAIVE,       /* paper ablation: interleaved tree, divergent modulo test */
    PCLR_VARIANT_SEQUENTIAL,  /* paper ablation: divergence-free tree, loop kept rolled */
    PCLR_VARIANT_UNROLLED,    /* divergence-free tree fully unrolled for the group size */
    PCLR_VARIANT_SHUFFLE,     /* wave shuffles (CUDA __shfl_down_sync; NVIDIA OpenCL inline PTX) */
    PCLR_VARIANT_COLLECTIVE,  /* OpenCL 2.0 work_group_reduce_* (needs -cl-std=CL2.0) */
    PCLR_VARIANT_COUNT_
} pclr_variant;

/* Level 3 (between groups). */
typedef enum pclr_finish {
    PCLR_FINISH_DEFAULT = 0,  /* LAST_GROUP */
    PCLR_FINISH_LAST_GROUP,   /* partials + counter; the last group folds them in fixed order (deterministic) */
    PCLR_FINISH_ATOMIC,       /* native 32-bit integer atomics (uint/int only: exact) */
    PCLR_FINISH_PARTIALS,     /* each group writes out[group]; the host runs a second pass */
    PCLR_FINISH_COUNT_
} pclr_finish;

typedef struct pclr_config {
    pclr_type type;           /* default PCLR_FLOAT */
    pclr_op op;               /* default PCLR_SUM */
    pclr_backend backend;     /* kernel language: PCLR_OPENCL or PCLR_CUDA; default: the context's (OpenCL for the generator) */
    int wave_width;           /* 32 or 64; default 32 */
    int group_size;           /* power of two 32..1024; default 256 */
    int unroll;               /* loads in flight per work-item, power of two 1..128; default 4 */
    int vector_width;         /* elements per load: 1, 2 or 4; default 16 bytes (4, or 2 for double) */
    pclr_stride stride;       /* default PCLR_STRIDE_GLOBAL */
    pclr_variant variant;     /* default per dialect, see above */
    pclr_finish finish;       /* default PCLR_FINISH_LAST_GROUP */
    int groups_per_unit;      /* planner: groups per compute unit, 1..64; default 2048 / group_size */
    pclr_accumulate accumulate; /* sums and stats (prod: native or wide): default PCLR_NATIVE */
    /* A map (docs/maps.md): each element contributes f(x, y, i)
       instead of x: `map` is an expression in the map language, `params` declares
       the run-time parameters it names ("float t, int k": their values are passed
       at reduce time and cause no rebuild), `y_type` the element type of a second
       input y of the same length, `components` the scalars per element of x and y
       (RGBA pixels: 4). The strings are read during each call (the contexts keep
       copies); all zero/NULL = no map. */
    const char *map;
    const char *params;
    pclr_type map_type;       /* the value reduced: int, uint, int64, uint64, float or double; default: the map's type */
    pclr_type y_type;         /* default: no second input */
    int components;           /* 1, 2 or 4; default 1 */
    /* A reduction of the user's (op = PCLR_CUSTOM; README "Your own reductions"):
       "state m: float = -inf, s: float = 0; lift m = x, s = 1;
        merge m = max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m); result m + log(s)".
       Its lift reads x, y, i, components and params as a map does (no map with it). Read during
       each call, as map (the contexts keep copies). */
    const char *reduce;
    /* The layout (all zero: one array, one result). A map's i is then the
       index inside the row, column or segment, and so is argmin/argmax's. */
    pclr_layout layout;
    uint64_t rows;            /* ROWS, COLUMNS: rows of the matrix; SEGMENTS: K, the number of segments */
    uint64_t cols;            /* ROWS, COLUMNS: elements per row; SEGMENTS: 0 or the typical length (a hint) */
    uint64_t pitch;           /* ROWS, COLUMNS: elements between row starts, >= cols; 0 = cols */
    int lanes;                /* knob: work-items per row or segment (ROWS, SEGMENTS) or down each column
                                 (COLUMNS) in a group, a power of two up to the group size; 0 = by shape */
    /* op = PCLR_HISTOGRAM (docs/histograms.md): `bins` even bins over [in.lo, in.hi) of the value (the map's,
       or the element's); a value below lo counts in underflow, one at or above hi in overflow (clamp 1: in
       the first and the last bin), NaN in nan. The range is given at reduce time: a new one rebuilds nothing. */
    uint32_t bins;            /* 1 .. PCLR_HISTOGRAM_MAX_BINS */
    int clamp;                /* 0 or 1 */
    int weighted;             /* 0 or 1: each bin (and underflow, overflow, nan) also sums the weights y
                                 (y_type float), exactly, rounded once to double; at most
                                 PCLR_HISTOGRAM_MAX_WEIGHTED_BINS bins */
} pclr_config;

/* ------------------------------------------------------------ results  >>results
   What pclr_reduce writes (pclr_result_size bytes):
   - sum, min, max: one value (sum: of type pclr_sum_type; min/max: of type
     pclr_value_type), count: a uint64_t: the scalar itself, so that a float
     sum writes one float as it always did;
   - argmin, argmax: a pclr_arg_result; minmax: a pclr_minmax_result;
     stats: a pclr_stats_result; argminmax: a pclr_argminmax_result;
   - prod: one value, of the element's value type (pclr_value_type: 8- and
     16-bit integers wrap in their own width) with the native accumulator, of
     pclr_sum_type(type, wide) with the wide one; and, or, xor: one value of
     the element type; any, all: a uint32_t, 0 or 1;
   - custom: a pclr_custom_result (below).
   A pclr_scalar holds a value in the member of its type (u8 for uint8, f32
   for float and for half, ...). */
typedef union pclr_scalar {
    uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32; int32_t i32; uint64_t u64; int64_t i64;
    float f32; double f64;
} pclr_scalar;
typedef struct pclr_arg_result {
    pclr_scalar value; /* of type pclr_value_type */
    uint64_t index;    /* from the first element reduced; UINT64_MAX for n = 0 */
} pclr_arg_result;
typedef struct pclr_minmax_result { pclr_scalar min, max; } pclr_minmax_result;
/* argmin and argmax in one pass: each as pclr_arg_result (ties: the smallest index; floats: the first NaN, in both) */
typedef struct pclr_argminmax_result { pclr_arg_result min, max; } pclr_argminmax_result;
/* op = PCLR_CUSTOM: one value per `result` expression, in the expression's type (type[k]: PCLR_INT
   in value[k].i32, PCLR_UINT u32, PCLR_INT64 i64, PCLR_UINT64 u64, PCLR_FLOAT f32, PCLR_DOUBLE f64),
   and the final state's fields (field[k] of state_type[k], in the state clause's order), which
   pclr_combine merges. */
#define PCLR_CUSTOM_MAX 8 /* fields of a state, and results */
typedef struct pclr_custom_result {
    pclr_scalar value[PCLR_CUSTOM_MAX];
    pclr_scalar field[PCLR_CUSTOM_MAX];
    pclr_type type[PCLR_CUSTOM_MAX];
    pclr_type state_type[PCLR_CUSTOM_MAX];
    int values, fields;
} pclr_custom_result;
/* op = PCLR_HISTOGRAM: the header, followed by `bins` uint64_t counts (pclr_histogram_count), then,
   weighted, bins + 3 doubles: the sums of the weights of each bin, underflow, overflow and nan
   (pclr_histogram_sum); the result is pclr_result_size bytes. lo and hi are the range as the kernel
   compared with: rounded to its compute type (float for half and float values and 8/16-bit integer
   elements, double for the others). */
#define PCLR_HISTOGRAM_MAX_BINS 65536
#define PCLR_HISTOGRAM_MAX_WEIGHTED_BINS 256
typedef struct pclr_histogram_result {
    uint32_t bins, weighted;
    uint64_t underflow, overflow, nan; /* values below lo, at or above hi (both 0 with clamp), NaN */
    double lo, hi;
} pclr_histogram_result;
typedef struct pclr_stats_result {
    uint64_t count;
    pclr_scalar sum;       /* of type pclr_sum_type */
    pclr_scalar min, max;  /* of type pclr_value_type */
    double mean;           /* NaN for n = 0 */
    double var;            /* population variance, M2 / n; NaN for n = 0 */
    double sample_var;     /* M2 / (n - 1); NaN for n < 2 */
} pclr_stats_result;

/* Host memory for a backend context (in its desc). Set both functions or
   neither: zero means malloc/free. */
typedef struct pclr_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} pclr_allocator;

/* Device facts the planner needs (backends fill this in). */
typedef struct pclr_device_facts {
    uint32_t compute_units;
    uint32_t max_group_size;
} pclr_device_facts;

/* One launch: `groups` groups of `group_size` work-items. */
typedef struct pclr_launch {
    uint64_t groups;
    uint32_t group_size;
    uint64_t split;   /* layouts: groups that share one row or segment (ROWS, SEGMENTS) or one tile of columns */
    int lanes;        /* layouts: the lanes knob the shape asks for (see pclr_config.lanes) */
} pclr_launch;

/* Name of the kernel entry point in every generated source. Its arguments:
   (const T *in, u64 offset, u64 n, T *out, T *partials, uint *counter); counter
   zero before the first launch (each launch leaves it zero). partials: a state per
   group, except for CUDA's last-group kernels whose state is 4 or 8 bytes (pclr_state_size;
   e.g. sum, min and max of uint, int, float and double), which take 8 or 16 bytes per group
   there, zero-filled before the first launch (each launch leaves them zero). */
#define PCLR_KERNEL_NAME "pclr_reduce"

PCLR_API const char *pclr_result_string(pclr_result r);
PCLR_API const char *pclr_type_name(pclr_type t);
PCLR_API const char *pclr_op_name(pclr_op o);
PCLR_API const char *pclr_backend_name(pclr_backend d);
PCLR_API const char *pclr_stride_name(pclr_stride s);
PCLR_API const char *pclr_variant_name(pclr_variant v);
PCLR_API const char *pclr_finish_name(pclr_finish f);
PCLR_API const char *pclr_accumulate_name(pclr_accumulate a);
PCLR_API const char *pclr_layout_name(pclr_layout l);
/* Parse the names above (e.g. "uint", "max", "cuda", "last_group"); PCLR_ERR_INVALID_ENUM if unknown. */
PCLR_API pclr_result pclr_parse_type(const char *s, pclr_type *out);
PCLR_API pclr_result pclr_parse_op(const char *s, pclr_op *out);
PCLR_API pclr_result pclr_parse_backend(const char *s, pclr_backend *out);
PCLR_API pclr_result pclr_parse_stride(const char *s, pclr_stride *out);
PCLR_API pclr_result pclr_parse_variant(const char *s, pclr_variant *out);
PCLR_API pclr_result pclr_parse_finish(const char *s, pclr_finish *out);
PCLR_API pclr_result pclr_parse_accumulate(const char *s, pclr_accumulate *out);
PCLR_API pclr_result pclr_parse_layout(const char *s, pclr_layout *out);

/* Map expressions. The longest expression, deepest nesting and most parameters: */
#define PCLR_MAP_MAX_LENGTH 1024
#define PCLR_MAP_MAX_DEPTH 64
#define PCLR_MAP_MAX_PARAMS 16
#define PCLR_REDUCE_MAX_LENGTH 4096 /* a reduction's description */
/* PCLR_OK when cfg's map, params, y_type and components go together (also
   when cfg has no map); else PCLR_ERR_INVALID_MAP (or the enum error) and a
   sentence that names the column, in why (cap bytes; may be NULL).
   pclr_config_resolve runs the same check and says only "the map is
   invalid": this call says where. */
PCLR_API pclr_result pclr_map_check(const pclr_config *cfg, char *why, size_t cap);
/* The map's function `pclr_map` alone, in one language ("opencl", "cuda" or
   "glsl"), under the buffer protocol of pclr_kernel_source. */
PCLR_API pclr_result pclr_map_source(const pclr_config *cfg, const char *lang, char *buf, size_t cap, size_t *size_needed);
/* The type of the value a config reduces: the map's result type, or the element type. */
PCLR_API pclr_type pclr_reduced_type(const pclr_config *cfg);

/* Size in bytes of one element (0 for an invalid type; PCLR_TYPE_DEFAULT is float). */
PCLR_API size_t pclr_type_size(pclr_type t);

/* Fill in defaults and validate. `out` may equal `in`. On error `*why` (if not
   NULL) points to a static sentence naming the problem. */
PCLR_API pclr_result pclr_config_resolve(const pclr_config *in, pclr_config *out, const char **why);

/* "type=uint op=sum backend=cuda ..." for a resolved or unresolved config.
   Writes at most cap bytes (NUL-terminated when cap > 0); returns the length
   the full text needs, without the NUL. */
PCLR_API size_t pclr_config_describe(const pclr_config *cfg, char *buf, size_t cap);

/* Kernel source for cfg. With buf == NULL only *size_needed (bytes including
   the NUL) is reported. PCLR_ERR_BUFFER_TOO_SMALL when cap < *size_needed
   (the buffer is left holding an empty string). The core allocates nothing. */
PCLR_API pclr_result pclr_kernel_source(const pclr_config *cfg, char *buf, size_t cap, size_t *size_needed);

/* Compiler options the source needs (e.g. "-cl-std=CL2.0"; often empty), same
   buffer protocol as pclr_kernel_source. Backends add their own (CUDA arch). */
PCLR_API pclr_result pclr_kernel_options(const pclr_config *cfg, char *buf, size_t cap, size_t *size_needed);

/* Most groups the planner may ask for on this device (scratch sizing). Exact
   sums, which take no per-group scratch, get more above 2^29 elements per
   group of this: ceil(n / 2^29) (see pclr_plan). */
PCLR_API uint64_t pclr_max_groups(const pclr_config *resolved, const pclr_device_facts *dev);

/* Grid for n elements: min(ceil(n / items per group), compute units x
   groups_per_unit), at least 1 (n = 0 still launches one group that writes
   the identity); exact sums at least ceil(n / 2^29) (their cells' bound).
   `cfg` must be resolved. */
PCLR_API pclr_result pclr_plan(const pclr_config *cfg, const pclr_device_facts *dev, uint64_t n, pclr_launch *out);

/* A layout's launch (cfg resolved, its rows, cols and pitch set): lanes
   (cfg's, or by shape: rows and segments of up to a wave's width get a team
   of the next power of two, up to 4096 elements a wave, longer ones a group
   and, when there are fewer rows than groups to fill the device, `split`
   groups per row; columns: tiles of the next power of two of cols, up to a
   group, split over bands of rows when there are few tiles; stride=local
   asks for a row per work-item, what CPUs want), split and groups. n: for
   SEGMENTS the elements they span (their mean length n / K guides the
   choice unless cols gives it). */
PCLR_API pclr_result pclr_plan_layout(const pclr_config *cfg, const pclr_device_facts *dev, uint64_t n, pclr_launch *out);

/* The types in a result (see "results"): min, max, argmin, argmax, minmax
   and stats' min/max values are of the element type, except half, whose
   values come back as float (which holds every half exactly). */
PCLR_API pclr_type pclr_value_type(pclr_type t);
/* The type of a sum (and of stats' sum) for the element type and
   accumulator; PCLR_TYPE_DEFAULT for a pair that does not go together
   (compensated integers). */
PCLR_API pclr_type pclr_sum_type(pclr_type t, pclr_accumulate a);
/* Bytes of one result pclr_reduce writes for cfg (0 when its type, op, accumulator or map are
   invalid; the other fields are not looked at). */
PCLR_API size_t pclr_result_size(const pclr_config *cfg);
/* Bytes of the op's state: what the kernel writes, and what the
   asynchronous reduces leave in device memory (8-byte aligned). For sum,
   min, max of uint, int, uint64, int64, float and double with the native
   accumulator the state is the result itself; otherwise pclr_finalize turns
   a state copied to the host into the result (a reduction's description is
   parsed there, its merge not checked again: it was when the reduce ran). */
PCLR_API size_t pclr_state_size(const pclr_config *cfg);
PCLR_API pclr_result pclr_finalize(const pclr_config *cfg, const void *state, void *result);

/* The result of reducing no elements with (type, op) and the native
   accumulator (0 for sum, the largest value for min, ...), written as
   pclr_result_size bytes to `out`. */
PCLR_API pclr_result pclr_identity(pclr_type type, pclr_op op, void *out);

/* CPU reference: reduces n elements at data into *result, with the same
   semantics as the kernels (integer sums wrap in their accumulator, NaN
   propagates through float min/max, float sums are pairwise, in tree order).
   The second form takes the accumulator from cfg (its knobs are ignored). */
PCLR_API pclr_result pclr_cpu_reduce(pclr_type type, pclr_op op, const void *data, uint64_t n, void *result);
PCLR_API pclr_result pclr_cpu_reduce_config(const pclr_config *cfg, const void *data, uint64_t n, void *result);
/* With cfg's map: x and (when the map names it) y, n elements each, and the
   values of cfg's parameters in their order (NULL when it has none); a
   histogram's params are the map's parameters' values, then lo and hi. */
PCLR_API pclr_result pclr_cpu_reduce_map(const pclr_config *cfg, const void *x, const void *y, uint64_t n, const double *params,
                                         void *result);

/* Results a layout gives: rows (ROWS, SEGMENTS), cols (COLUMNS), 1 (ONE). */
PCLR_API uint64_t pclr_layout_results(const pclr_config *cfg);
/* CPU reference of cfg's layout: x (and the map's y, NULL when it has none)
   from their element 0, the parameters' values, for SEGMENTS the K + 1
   offsets (host memory) and n, the elements x holds (offsets past it, or
   decreasing, are PCLR_ERR_SIZE_OVERFLOW); one result per row, column or
   segment (pclr_result_size bytes each) into results. */
PCLR_API pclr_result pclr_cpu_reduce_layout(const pclr_config *cfg, const void *x, const void *y, const uint64_t *offsets, uint64_t n,
                                            const double *params, void *results);
/* The result of reducing a's elements followed by b's, from the two results
   (pclr_result_size bytes each, as pclr_reduce or pclr_cpu_reduce_config
   wrote them with cfg's type, op, accumulator and map; no alignment needed;
   out may be a or b). b_first_index is the number of elements a covers: it
   is added to b's argmin/argmax index. Folding parts left to right (a
   cluster's ranks in rank order) gives a deterministic answer; it equals the
   result of the whole where the order of operations cannot matter:
   - integer sums wrap in their sum type, counts add, min/max/minmax keep the
     first NaN and take -0 below +0 (the CPU reference's rule);
   - argmin/argmax: the first NaN, else the smaller value, ties to a (the
     smaller index); an empty part (index UINT64_MAX) is the identity;
   - float sums (every accumulator but exact) add once in the sum type: the
     error bound of the whole gains one rounding per combine;
   - stats: counts and sums as above, mean and M2 merged with Chan et al.'s
     formula in double (M2 = var x count), the variances recomputed from M2;
   - prod multiplies in its result type (integers wrap; floats round once),
     and/or/xor/any/all combine bitwise, argminmax as argmin and argmax.
   An exact sum is rounded once, and the sum of two rounded sums is not the
   exact sum: accumulate = exact (sum, stats) is PCLR_ERR_UNSUPPORTED_COMBINATION
   (combine wide or compensated sums, or reduce the gathered data). An index
   that would pass UINT64_MAX - 1 is PCLR_ERR_SIZE_OVERFLOW. */
PCLR_API pclr_result pclr_combine(const pclr_config *cfg, const void *a, const void *b, uint64_t b_first_index, void *out);

/* Histograms (op = PCLR_HISTOGRAM, docs/histograms.md). A result is a pclr_histogram_result followed
   by its bins' counts (pclr_result_size bytes; no alignment needed by these calls). */
/* Count k of a histogram result (0 for k >= bins). */
PCLR_API uint64_t pclr_histogram_count(const void *result, uint64_t k);
/* The sum of the weights in bin k of a weighted histogram result, k = bins, bins + 1, bins + 2: in
   underflow, overflow, nan; the exact sum rounded once to double (to nearest, ties to even; +inf,
   -inf or NaN as IEEE adds them). 0 for an unweighted result or k >= bins + 3. */
PCLR_API double pclr_histogram_sum(const void *result, uint64_t k);
/* The q-quantile (0 <= q <= 1) of the values counted in the bins (underflow, overflow and NaN are not:
   with clamp the out-of-range values are in the first and last bin), each bin's count spread evenly
   over it (linear interpolation): the x in [lo, hi] below which a fraction q of them lie. A weighted
   histogram's quantiles weigh each bin by its sum of weights instead (a metering mask). NaN for an
   empty histogram (or one with a negative or non-finite bin sum), a NULL result or q outside [0, 1]. */
PCLR_API double pclr_histogram_quantile(const void *result, double q);
/* The mean of the values between the q_lo- and q_hi-quantiles (0 <= q_lo <= q_hi <= 1), each bin's
   share of that range taken at its midpoint, what engines meter exposure by (the mean
   log-luminance between the 10th and 90th percentile). NaN where pclr_histogram_quantile is. For
   q_lo == q_hi: that quantile. */
PCLR_API double pclr_histogram_mean_between(const void *result, double q_lo, double q_hi);

/* 64-bit FNV-1a hash, chainable through `seed` (use PCLR_HASH_SEED first). */
#define PCLR_HASH_SEED 0xcbf29ce484222325ull
PCLR_API uint64_t pclr_hash64(const void *data, size_t len, uint64_t seed);

/* ------------------------------------------------------------ kernel cache  >>cache
   Compiled binaries (OpenCL program binaries, CUBIN) on disk, one file per
   identity: <dir>/<16 hex digits of pclr_hash64(identity)>.bin. The identity
   is every byte that defines the binary (the backends pass source, options,
   device name and driver version). A file holds a header (magic, format
   version, identity length, payload size, the payload's SHA-256), the whole
   identity, compared byte for byte, and the payload. Files are written to a
   temporary name and renamed, so a reader sees a whole file or none; a
   torn, corrupt or foreign file is a miss, never trusted: the caller
   rebuilds and stores again.

   Trust (POSIX; docs/tuning-and-cache.md): the directory must be
   a real directory (not a symbolic link) owned by this user (geteuid) and not
   writable by group or others; each file a regular file (opened with
   O_NOFOLLOW | O_NONBLOCK, then fstat) with the same owner and mode rule.
   store creates missing directories 0700 and files 0600, whatever the
   umask. Anything else is a miss (load) or PCLR_ERR_IO (store). */
#ifndef PCLR_CACHE_MAX_BYTES
#define PCLR_CACHE_MAX_BYTES (256u << 20) /* larger payloads are refused: no binary is this big */
#endif

/* $XDG_CACHE_HOME/pclreduce, else $HOME/.cache/pclreduce (Windows:
   %LOCALAPPDATA%\pclreduce). Same buffer protocol as pclr_config_describe;
   0 when no location is known. */
PCLR_API size_t pclr_cache_default_dir(char *buf, size_t cap);

/* 1 on a valid hit: *data (allocated with `a`; NULL or zero functions mean
   malloc, free it with the same) holds *size bytes. 0 on a miss of any kind
   (no file, truncated, other format, other identity, bad checksum, size over
   the cap, no memory), with *why (if not NULL) a static sentence. */
PCLR_API int pclr_cache_load(const char *dir, const void *identity, size_t identity_len, const pclr_allocator *a,
                             void **data, size_t *size, const char **why);

/* Writes the file atomically, creating dir and its parents (0700). PCLR_ERR_IO
   when dir is "", fails the trust rule above, or the directory or file
   cannot be written (a failed write leaves no temporary file);
   PCLR_ERR_SIZE_OVERFLOW above PCLR_CACHE_MAX_BYTES. Safe between threads
   and processes: the last complete writer wins. */
PCLR_API pclr_result pclr_cache_store(const char *dir, const void *identity, size_t identity_len, const void *data,
                                      size_t size);

/* ------------------------------------------------------------ tuning file  >>tune
   Measured winners, one per line in a text file people can read and edit:
     cuda "NVIDIA H100 80GB HBM3" "13000" float sum 20 group=256 unroll=4 vector=4 wave=32
         stride=global variant=shuffle finish=last_group groups_per_unit=8 gbps=2871.3
   (one line): backend, quoted device name and driver version (\" and \\
   escaped), type, op, size class, then key=value knobs. '#' comments and
   blank lines are kept and ignored; unknown keys are ignored (newer files);
   a malformed line is skipped, never fatal.

   Size classes: n belongs to the first class c of 12, 16, 20, 22, 24, 26, 63
   with n <= 2^c. Small sizes are latency-bound (one coarse class each), the
   grid and unroll trade-offs move between 2^20 and 2^26 (finer classes), and
   above that reductions are bandwidth-bound.

   A layout's entries are keyed by its shape class as well: the class is
   written before the size class, "rows_short:26" (rows_short entries
   for 2^26 elements or fewer), and the knobs include lanes when the tuner
   chose them (a reader without shape classes skips such a line). */
PCLR_API uint32_t pclr_size_class(uint64_t n);

/* Shape classes: the planner's strategy changes between them (see
   pclr_plan_layout), and so do the best knobs. Rows and segments go by
   their length (segments: cols when given, else their mean length n / K),
   columns by their number. */
typedef enum pclr_shape {
    PCLR_SHAPE_ONE = 0,     /* one array, one result */
    PCLR_SHAPE_ROWS_SHORT,  /* rows or segments of up to 64 elements: staged tiles of rows, or a team per row */
    PCLR_SHAPE_ROWS_MEDIUM, /* up to 2048: a wave per row */
    PCLR_SHAPE_ROWS_LONG,   /* up to 8192: a group per row, a pass or two over it */
    PCLR_SHAPE_ROWS_HUGE,   /* longer: a group per row or several, many passes (the H100's best unroll differs) */
    PCLR_SHAPE_COLS_NARROW, /* up to 64 columns: groups share a tile, a band of rows each */
    PCLR_SHAPE_COLS_WIDE,   /* more columns: tiles across them */
    PCLR_SHAPE_COUNT_
} pclr_shape;
/* cfg's shape class (cfg need not be resolved; n: the elements segments span). */
PCLR_API pclr_shape pclr_shape_class(const pclr_config *cfg, uint64_t n);
/* The elements a layout reduces (rows x cols, saturating; segments: n) or n for one array. */
PCLR_API uint64_t pclr_layout_elements(const pclr_config *cfg, uint64_t n);
PCLR_API const char *pclr_shape_name(pclr_shape s); /* "one", "rows_short", ... */
PCLR_API pclr_result pclr_parse_shape(const char *s, pclr_shape *out); /* not "one": it has no prefix */

typedef struct pclr_tune_entry {
    pclr_backend backend;  /* PCLR_OPENCL or PCLR_CUDA */
    char device[256];      /* device name as the driver reports it */
    char driver[128];      /* driver version string */
    pclr_type type;
    pclr_op op;
    uint32_t size_class;   /* one of the ladder above */
    pclr_shape shape;      /* PCLR_SHAPE_ONE, or a layout's class (cfg.layout is then rows or columns) */
    pclr_config cfg;       /* the winner, resolved */
    double gbps;           /* its measured bandwidth (information only) */
    double default_gbps;   /* pclr_tune_sweep: the start config's bandwidth there (not in the file) */
} pclr_tune_entry;

/* One line for e, ending in '\n'. Same buffer protocol as
   pclr_config_describe. The config is written resolved; in the names, " and
   \ are escaped with \ and control characters written \xHH (parse reads
   them back, so that such a device's entries load again). */
PCLR_API size_t pclr_tune_format(const pclr_tune_entry *e, char *buf, size_t cap);

/* Parses one line (a trailing newline is fine). PCLR_ERR_INVALID_ENUM for an
   unknown backend, type, op or knob name, PCLR_ERR_INVALID_KNOB for bad
   syntax, a size class off the ladder or a config that does not resolve;
   *why (if not NULL) says which. On success out->cfg is resolved. */
PCLR_API pclr_result pclr_tune_parse(const char *line, pclr_tune_entry *out, const char **why);

/* The entries of the file at path for this backend, device and driver
   (later lines win over earlier ones with the same type, op and class).
   *entries is allocated with `a` (NULL: malloc), NULL when *count is 0. A
   missing file is PCLR_OK with no entries; an unreadable one PCLR_ERR_IO. */
PCLR_API pclr_result pclr_tune_load(const char *path, pclr_backend backend, const char *device, const char *driver,
                                    const pclr_allocator *a, pclr_tune_entry **entries, size_t *count);

/* Merges entries into the file at path, creating its directory: every other
   line (comments, other devices) is kept, a line with the same backend,
   device, driver, type, op and class is replaced in place, new keys are
   appended; a new file starts with the line "# pclreduce tuning file".
   - Only a tuning file is written over: an existing file must be blank,
     start with that line, or have an entry as its first line that is not a
     comment; anything else (a binary, a script) is PCLR_ERR_IO, untouched.
   - Savers are serialized by an fcntl lock on <path>.lock (left in place):
     each reads the file as the last one left it, so no entry is lost. Not on
     Windows. Threads of one process serialize only where the program sees
     F_OFD_SETLKW (Linux with _GNU_SOURCE); otherwise do not save from two
     threads at once.
   - A plain file is replaced atomically (temporary + rename) with its
     permission bits kept. A symbolic link, or a file with several hard
     links, is rewritten in place through the link, so the link and the
     other names stay; not atomic: a crash midway can leave it cut short (a
     cut last line is skipped when loaded).
   With count 0 nothing is written: PCLR_OK tells that path could be saved to
   (absent or a tuning file). pclr_tune_save_ex also gives a static sentence
   in *why (NULL on success). */
PCLR_API pclr_result pclr_tune_save(const char *path, const pclr_tune_entry *entries, size_t count);
PCLR_API pclr_result pclr_tune_save_ex(const char *path, const pclr_tune_entry *entries, size_t count, const char **why);

/* The entry for type, op and n's size class (one array); NULL if none. */
PCLR_API const pclr_tune_entry *pclr_tune_lookup(const pclr_tune_entry *entries, size_t count, pclr_type type,
                                                 pclr_op op, uint64_t n);

/* cfg with every knob it leaves 0 taken from the entry for its type, op,
   shape class and size class (of pclr_layout_elements(cfg, n); type 0 =
   float, op 0 = sum). 1 when an entry applied, 0 (and *out = *cfg) when
   none. The backends call it at every reduce. */
PCLR_API int pclr_tune_apply(const pclr_tune_entry *entries, size_t count, const pclr_config *cfg, uint64_t n,
                             pclr_config *out);

/* $PCLR_TUNE_FILE when set, else <pclr_cache_default_dir>/tuning.txt. Same
   buffer protocol as pclr_cache_default_dir. */
PCLR_API size_t pclr_tune_default_path(char *buf, size_t cap);

/* The tuner's sweep, shared by the backends (pclr_cl_tune, pclr_cuda_tune).
   For each size class up to opt->max_n it starts from `start` (the backend's
   default, type and op set) and walks the knobs one at a time, keeping a
   value when it is clearly faster (coordinate descent: group size, unroll,
   grid, vector width, stride, variant, finish, then unroll and grid again).
   A start with a layout (rows, cols and pitch set) is measured at its own
   shape only (n = its elements, max_n ignored) over group size, unroll,
   lanes and grid, then unroll and lanes again: one entry, for its shape
   class and size class, whose config keeps the layout and drops the shape.
   `measure` times a config on n elements and returns seconds per call, or a
   negative number when the device cannot run it (skipped). Fills out[] with
   one entry per class measured (device and driver left empty for the
   backend); *count gets the number. PCLR_ERR_BUFFER_TOO_SMALL if cap <
   PCLR_TUNE_CLASSES. */
typedef double (*pclr_tune_measure_fn)(void *user, const pclr_config *cfg, uint64_t n);
typedef void (*pclr_tune_progress_fn)(void *user, double fraction, const char *what);

typedef struct pclr_tune_options {
    uint64_t max_n;                 /* largest n measured; 0 = 2^26. Classes above it are left out */
    pclr_tune_progress_fn progress; /* called before each measurement; NULL = silent */
    void *user;                     /* passed to progress */
    /* pclr_tune of a layout: rows x cols (pitch = cols) reduced along each row
       (PCLR_LAYOUT_ROWS; its entry also serves segments of that length) or
       each column (PCLR_LAYOUT_COLUMNS); PCLR_LAYOUT_ONE (0): one array */
    pclr_layout layout;
    uint64_t rows, cols;
} pclr_tune_options;

#define PCLR_TUNE_CLASSES 7 /* the size-class ladder above */

PCLR_API pclr_result pclr_tune_sweep(const pclr_config *start, const pclr_tune_options *opt, pclr_tune_measure_fn measure,
                                     void *measure_user, pclr_tune_entry *out, size_t cap, size_t *count);

/* ------------------------------------------------------------ the generic context  >>context
   One context over whichever backend works here, so that a program needs no
   backend-specific code (miniaudio's ma_context_init is the model):

       pclr_context *ctx;
       pclr_buffer *buf;
       pclr_config cfg = PCLR_ZERO;            float sum, every knob tuned or default
       pclr_input in = PCLR_ZERO;
       float sum;
       pclr_create(NULL, &ctx);                CUDA, else OpenCL, else the CPU
       pclr_buffer_create(ctx, n * sizeof(float), &buf);
       pclr_buffer_write(ctx, buf, 0, host, n * sizeof(float));
       in.x = buf;
       in.n = n;
       pclr_reduce(ctx, &cfg, &in, &sum, sizeof sum);
       printf("%s: %g\n", pclr_device_name(ctx), sum);
       pclr_buffer_destroy(ctx, buf);
       pclr_destroy(ctx);

   The backends it can pick are those enabled (PCLREDUCE_OPENCL,
   PCLREDUCE_CUDA, PCLREDUCE_VULKAN) where PCLREDUCE_IMPLEMENTATION is
   defined; the CPU reference is always there. A program's own cl_mem,
   CUdeviceptr or VkBuffer enters through its backend header's constructor.

   The contract every context keeps (generic and backend ones alike):
   - create: PCLR_OK and *out set, or an error code, *out NULL and a sentence
     in desc.error (error_cap bytes, when given) saying why;
   - a NULL context: PCLR_ERR_INVALID_CONTEXT from every call; last_error
     answers "no context (NULL)", build_log "", describe a line saying so;
   - desc.allocator: both functions or neither (PCLR_ERR_NULL_POINTER);
   - after a failed call the context stays usable; last_error names the call;
   - a context is not thread-safe: one thread at a time (see docs/threads.md). */
#define PCLR_MAX_BACKENDS 4


/* The fields every context's desc has (pclr_desc, pclr_cl_desc, pclr_cuda_desc). */
#define PCLR_DESC_COMMON                                                                                \
    pclr_allocator allocator; /* host memory; zero = malloc/free */                                   \
    const char *cache_dir;    /* compiled kernels on disk; NULL = pclr_cache_default_dir() */         \
    int no_disk_cache;        /* 1: no files read or written */                                       \
    const char *tune_file;    /* NULL = pclr_tune_default_path(); its entries for the device apply */ \
    int no_tune_file;         /* 1: built-in defaults only */                                         \
    char *error;              /* a failed create writes why here (error_cap bytes) */                 \
    size_t error_cap;

typedef struct pclr_desc {
    PCLR_DESC_COMMON
    pclr_backend backends[PCLR_MAX_BACKENDS]; /* generic context: tried in this order up to the first 0;
                                                 all 0 = auto: CUDA, OpenCL (GPU first), CPU; Vulkan
                                                 (PCLR_VULKAN) only where listed */
    int device;                         /* 0: the backend's best device; k > 0: its device k - 1; < 0: no device of a GPU backend
                                           (the numbering of every backend's desc: device_number) */
    int platform;                       /* OpenCL: 0 = every platform; k > 0: only platform k - 1 */
    const char *opencl_library;         /* NULL = $PCLR_OPENCL_LIBRARY, else the usual names */
    const char *cuda_library;           /* NULL = $PCLR_CUDA_LIBRARY, else the usual names */
    const char *nvrtc_library;          /* NULL = $PCLR_NVRTC_LIBRARY, else the usual names */
    const struct pclr_cl_api *opencl_api;  /* a caller's table of entry points instead of loading (copied; */
    const struct pclr_cuda_api *cuda_api;  /* see pclreduce_cl.h, pclreduce_cuda.h) */
    const struct pclr_nvrtc_api *nvrtc_api;
    const char *vulkan_library;         /* NULL = $PCLR_VULKAN_LIBRARY, else libvulkan.so.1 (pclreduce_vk.h) */
    const char *shaderc_library;        /* NULL = $PCLR_SHADERC_LIBRARY, else libshaderc.so.1 */
    const struct pclr_vk_api *vulkan_api;
    const struct pclr_shaderc_api *shaderc_api;
    /* A program's own device objects for the backend that takes them (NULL: the backend makes its
       own): the fields of the backend's desc that name them (pclr_cl_desc: context, device, queue;
       pclr_cuda_desc: context; pclr_vk_desc: instance, physical_device, device, queue_family,
       queue, enabled_features, compiler); the other fields come from this desc. */
    const struct pclr_cl_desc *opencl;
    const struct pclr_cuda_desc *cuda;
    const struct pclr_vk_desc *vulkan;
} pclr_desc;

typedef struct pclr_context pclr_context;

/* A buffer of device memory (host memory on the CPU): made by pclr_buffer_create, or around a
   program's own cl_mem, CUdeviceptr or VkBuffer by its backend header's constructor
   (pclr_cl_buffer, pclr_cuda_buffer, pclr_vk_buffer), which allocates nothing: such a buffer is a
   value the program keeps where it likes (on the stack). The fields are the library's. */
typedef union pclr_handle { void *ptr; uint64_t addr; } pclr_handle;
typedef struct pclr_buffer {
    pclr_handle handle;            /* the backend's: cl_mem, CUdeviceptr, VkBuffer, host memory */
    uint64_t bytes;                /* from the handle on; UINT64_MAX: not known (a CUDA pointer the driver cannot place) */
    uint64_t address;              /* where it starts, for alignment checks (0: aligned, the driver's own memory) */
    const pclr_context *owner;     /* the context it works with */
    int made;                      /* 1: pclr_buffer_create made it (pclr_buffer_destroy frees it) */
} pclr_buffer;

/* What a reduce reads (zero-initialise, then set what the reduce needs; offsets count elements). */
typedef struct pclr_input {
    const pclr_buffer *x;          /* the elements: cfg.type, cfg.components of them per element with a map */
    uint64_t x_offset;
    const pclr_buffer *y;          /* a map's second input (cfg.y_type); NULL when it has none */
    uint64_t y_offset;
    const double *params;          /* the map's parameters' values in their order; NULL when it has none */
    const pclr_buffer *offsets;    /* SEGMENTS: the K + 1 uint64 offsets (device memory) */
    uint64_t n;                    /* one array: the elements reduced; SEGMENTS: the elements of x (from x_offset) the
                                      segments may reach; ROWS, COLUMNS: not read (cfg's rows, cols, pitch say) */
    double lo, hi;                 /* op histogram: the bins' range [lo, hi) (finite, lo < hi) */
} pclr_input;

/* How an asynchronous reduce fits into the program's own work, per backend; zero (or a NULL
   pointer): the context's queue / the default stream, nothing waited for, nothing handed back
   (Vulkan excepted: its asynchronous reduce needs the program's command buffer). */
typedef struct pclr_sync {
    void *cuda_stream;             /* CUDA: the CUstream the kernels go to */
    uint32_t opencl_wait_count;    /* OpenCL: cl_events the first command waits for */
    void *const *opencl_wait;
    void **opencl_done;            /* OpenCL: gets the cl_event of the reduce's last command (release it) */
    void *vulkan_commands;         /* Vulkan: the VkCommandBuffer (recording, a compute queue's) the dispatches are
                                      recorded into; required: the program submits it (see pclreduce_vk.h) */
} pclr_sync;


/* desc may be NULL (auto). The chosen backend and device: pclr_get_backend,
   pclr_device_name, pclr_describe (which also says why earlier backends were
   passed over). PCLR_ERR_NO_DEVICE when no listed backend works (the
   reasons in desc.error). */
PCLR_API pclr_result pclr_create(const pclr_desc *desc, pclr_context **out);
/* How many devices `backend` has here, numbered as desc.device numbers them
   (desc.device = k + 1 takes device k, 0 <= k < *count): CUDA: every device
   (cuDeviceGetCount); OpenCL: the devices of every platform in platform order
   (pclreduce-run --list's order), of platform desc.platform - 1 only when
   desc.platform > 0 (< 0: PCLR_ERR_NO_DEVICE, as pclr_create); CPU: 1. One process per GPU (MPI) takes device
   local_rank % count + 1. desc may be NULL; its libraries and tables load as
   pclr_create loads them. PCLR_ERR_NO_DRIVER, PCLR_ERR_NO_DEVICE (*count 0)
   with a sentence in desc.error; PCLR_ERR_INVALID_ENUM for
   PCLR_BACKEND_AUTO (name one backend); PCLR_ERR_NO_DRIVER for a backend
   not compiled in. */
PCLR_API pclr_result pclr_device_count(const pclr_desc *desc, pclr_backend backend, int *count);
PCLR_API void pclr_destroy(pclr_context *ctx); /* NULL is fine; destroy buffers first */
PCLR_API pclr_backend pclr_get_backend(const pclr_context *ctx); /* PCLR_BACKEND_AUTO for NULL */
PCLR_API const char *pclr_device_name(const pclr_context *ctx);  /* "" for NULL */
PCLR_API pclr_result pclr_buffer_create(pclr_context *ctx, size_t bytes, pclr_buffer **out);
PCLR_API void pclr_buffer_destroy(pclr_context *ctx, pclr_buffer *buf);
/* Blocking copies into and out of a buffer, `offset` bytes into it. */
PCLR_API pclr_result pclr_buffer_write(pclr_context *ctx, pclr_buffer *buf, size_t offset, const void *src, size_t bytes);
PCLR_API pclr_result pclr_buffer_read(pclr_context *ctx, const pclr_buffer *buf, size_t offset, void *dst, size_t bytes);
/* Builds cfg's kernel now (load time) instead of at the first reduce. */
PCLR_API pclr_result pclr_prepare(pclr_context *ctx, const pclr_config *cfg);
/* The configuration a reduce of n elements runs: tuned knobs for n's size
   class, then the device's defaults, resolved and checked. */
PCLR_API pclr_result pclr_resolve(pclr_context *ctx, const pclr_config *cfg, uint64_t n, pclr_config *out);
/* The tuning entry whose knobs fill those cfg leaves 0 in a reduce of n
   elements (the context's entries for its device, those it cannot run left
   out), or NULL: such knobs are then the device's defaults. */
PCLR_API const pclr_tune_entry *pclr_tuned_entry(const pclr_context *ctx, const pclr_config *cfg, uint64_t n);
/* The reduce, blocking: what `in` names (see pclr_input), reduced as cfg says (its op, map and
   layout), into `results`: one result for one array, one per row, column or segment for a layout,
   pclr_result_size(cfg) bytes each (pclr_layout_results(cfg) of them), which results_bytes must
   hold (PCLR_ERR_BUFFER_TOO_SMALL, nothing written, and a sentence naming the bytes needed).
   Segment offsets are checked on the device: a decreasing pair or an end past in.n is
   PCLR_ERR_SIZE_OVERFLOW. */
PCLR_API pclr_result pclr_reduce(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, void *results,
                                 size_t results_bytes);
/* The reduce, asynchronous: nothing is waited for; the op's states (pclr_state_size(cfg) bytes
   each; pclr_finalize turns a copied state into the result) go to `states` from state
   first_state on (the CPU context has no states and writes the results there, pclr_result_size
   bytes each). sync: the backend's stream, events or command buffer (may be NULL). Invalid
   segment offsets then give empty segments, unreported (on a device; the CPU context, whose
   offsets are host memory, checks them: PCLR_ERR_SIZE_OVERFLOW, nothing written). */
PCLR_API pclr_result pclr_reduce_async(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, const pclr_buffer *states,
                                       uint64_t first_state, const pclr_sync *sync);
/* Deprecated (0.4; removed in 0.5): the earlier verbs, now thin wrappers of pclr_reduce and
   pclr_reduce_async that take the results' size on trust. */
PCLR_DEPRECATED pclr_result pclr_reduce_map(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                     const pclr_buffer *y, uint64_t y_offset, uint64_t n, const double *params, void *result);
PCLR_DEPRECATED pclr_result pclr_reduce_batched(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                         const pclr_buffer *y, uint64_t y_offset, const double *params, const pclr_buffer *offsets,
                                         uint64_t n, void *results);
PCLR_DEPRECATED pclr_result pclr_reduce_batched_async(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                               const pclr_buffer *y, uint64_t y_offset, const double *params, const pclr_buffer *offsets,
                                               uint64_t n, pclr_buffer *out);
/* The tuner: sweeps the knobs for type and op per size class on this device
   (pclr_tune_sweep; opt may be NULL: classes up to 2^26), on inputs rotated
   over 4x the device's cache, pipelined. The winners apply to this context at
   once (knobs a config leaves 0 come from them) and go to out[] (device and
   driver filled in) for pclr_tune_save. PCLR_ERR_UNSUPPORTED_BY_DEVICE on the CPU. */
PCLR_API pclr_result pclr_tune(pclr_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                               pclr_tune_entry *out, size_t cap, size_t *count);
PCLR_API const char *pclr_last_error(const pclr_context *ctx);
PCLR_API const char *pclr_build_log(const pclr_context *ctx);
/* Multi-line text: backend, device, default path, caches. Same buffer
   protocol as pclr_config_describe. */
PCLR_API size_t pclr_describe(const pclr_context *ctx, char *buf, size_t cap);

/* ------------------------------------------------------------ the knobs  >>knobs
   Every knob once: X(kind, name in describe and the tuning file, pclr_config
   field, kernel macro, default). kind: ARG (chosen by the caller; the macro
   form takes it as an argument), ENUM, INT, HOST (host side only: not in a
   kernel). A default is one expression read twice: by pclr_config_resolve
   (C) and, stringified, by the macro form's kernel text; in it PCLR_TSIZE is
   the element size in bytes, PCLR_GROUP the group size and PCLR_IS_CUDA 1 for
   the CUDA backend. The enum values are the kernel's macro values (1, 2, ...). */
#define PCLR__KNOBS(X)                                                                                      \
    X(ARG, type, type, PCLR_TYPE, PCLR_FLOAT)                                                              \
    X(ARG, op, op, PCLR_OP, PCLR_SUM)                                                                      \
    X(ARG, backend, backend, PCLR_BACKEND, PCLR_OPENCL)                                                    \
    X(ARG, accumulate, accumulate, PCLR_ACCUMULATE, PCLR_NATIVE)                                           \
    X(INT, wave, wave_width, PCLR_WAVE, 32)                                                                \
    X(INT, group, group_size, PCLR_GROUP, 256)                                                             \
    X(INT, unroll, unroll, PCLR_UNROLL, 4)                                                                 \
    X(INT, vector, vector_width, PCLR_VECTOR, (16 / PCLR_TSIZE))                                           \
    X(ENUM, stride, stride, PCLR_STRIDE, PCLR_STRIDE_GLOBAL)                                               \
    X(ENUM, variant, variant, PCLR_VARIANT, (PCLR_IS_CUDA ? PCLR_VARIANT_SHUFFLE : PCLR_VARIANT_UNROLLED)) \
    X(ENUM, finish, finish, PCLR_FINISH, PCLR_FINISH_LAST_GROUP)                                           \
    X(HOST, groups_per_unit, groups_per_unit, PCLR_GROUPS_PER_UNIT, (2048 / PCLR_GROUP))
/* A use of PCLR__KNOBS picks by kind: for names (ARG, ENUM), a kernel's number (INT) or the host's. */
#define PCLR__KNOB_KIND_ARG(named, number, host) named
#define PCLR__KNOB_KIND_ENUM(named, number, host) named
#define PCLR__KNOB_KIND_INT(named, number, host) number
#define PCLR__KNOB_KIND_HOST(named, number, host) host

/* ------------------------------------------------------------ macro form  >>macro
   PCLR_SOURCE_CL(uint, sum, 32, 8) and PCLR_SOURCE_CUDA(float, max, 32, 4)
   expand at compile time to one string literal: a complete kernel for that
   type (uint|int|float|double), op (sum|min|max), wave width and unroll
   depth, every other knob at its default (from PCLR__KNOBS: group 256,
   16-byte loads, global stride, last-group finish; the OpenCL kernel's tree
   unrolled, the CUDA kernel's shuffles, so a CUDA wave must be 32). It is the
   generator's text below for exactly those knobs, with type and op chosen by
   #if when the kernel compiles (the tests compare the two kernels' results).
   Note: the literal is longer than the 4095 characters C99 promises; every
   mainstream compiler accepts it (gcc -Wpedantic in C: -Woverlength-strings).
   Opt-in: define PCLREDUCE_MACRO_FORM before including pclreduce.h in the
   files that use it (the generator shares the text pieces below, not these). */
#ifdef PCLREDUCE_MACRO_FORM
#define PCLR_SOURCE_CL(T, OP, WAVE, UNROLL) PCLR__MACRO_FORM(CL, "opencl", T, OP, WAVE, UNROLL)
#define PCLR_SOURCE_CUDA(T, OP, WAVE, UNROLL) PCLR__MACRO_FORM(CUDA, "cuda", T, OP, WAVE, UNROLL)
#define PCLR__MACRO_FORM(D, NAME, T, OP, WAVE, UNROLL)                                                         \
    "/* pclreduce kernel (macro form): type=" #T " op=" #OP " backend=" NAME " wave=" #WAVE " unroll=" #UNROLL \
    ", other knobs at their defaults */\n#define PCLR_TYPE_" #T " 1\n#define PCLR_OP_" #OP " 1\n"              \
    "#define PCLR_WAVE " #WAVE "\n#define PCLR_UNROLL " #UNROLL "\n" PCLR__MF_PRELUDE_##D PCLR__MF_TYPES       \
    PCLR__KNOBS(PCLR__KNOB_TEXT) PCLR__MF_VECTORS(PCLR__MF_VEC_##D, PCLR__TEXT_ELEMENT_##D) PCLR__MF_OPS(D)    \
    PCLR__TEXT_LEVEL2 PCLR__MF_GROUP_##D "}\n" PCLR__MF_KERNEL_##D
/* One size knob's default: "#ifndef PCLR_GROUP\n#define PCLR_GROUP 256\n#endif\n" (the
   variant, stride and finish are fixed to their defaults by the text itself). */
#define PCLR__KNOB_TEXT(kind, name, field, macro, dflt) \
    PCLR__KNOB_KIND_##kind(, "#ifndef " #macro "\n#define " #macro " " #dflt "\n#endif\n", )

/* The macro form's own text: what the generator decides in C, chosen by #if. */
#define PCLR__MF_PRELUDE_CL \
    PCLR__TEXT_PRELUDE_OPENCL("#if defined(PCLR_TYPE_double)\n" PCLR__TEXT_FP64 "#endif\n") PCLR__TEXT_FENCE_OPENCL
#define PCLR__MF_PRELUDE_CUDA                                                                                   \
    PCLR__TEXT_PRELUDE_CUDA PCLR__TEXT_GRID_DEPENDENCY_DEFINE_CUDA \
    "#if PCLR_WAVE != 32\n#error \"pclreduce: CUDA shuffles need a wave width of 32\"\n#endif\n"
#define PCLR__MF_TYPES \
"#define PCLR_CAT_(a, b) a##b\n#define PCLR_CAT(a, b) PCLR_CAT_(a, b)\n" \
"#if defined(PCLR_TYPE_uint)\n#define PCLR_T uint\n#define PCLR_TSIZE 4\n#define PCLR_IS_FLOAT 0\n" \
"#elif defined(PCLR_TYPE_int)\n#define PCLR_T int\n#define PCLR_TSIZE 4\n#define PCLR_IS_FLOAT 0\n" \
"#elif defined(PCLR_TYPE_float)\n#define PCLR_T float\n#define PCLR_TSIZE 4\n#define PCLR_IS_FLOAT 1\n" \
"#elif defined(PCLR_TYPE_double)\n#define PCLR_T double\n#define PCLR_TSIZE 8\n#define PCLR_IS_FLOAT 1\n" \
"#else\n#error \"pclreduce: define PCLR_TYPE_uint, _int, _float or _double\"\n#endif\n" \
"typedef PCLR_T pclr_t;\ntypedef pclr_t pclr_s; /* the state: the element itself */\n" \
"#define PCLR_PARTIAL(vp, j) (vp)[j]\n#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), (x))\n"
/* PCLR_VECTOR may be an expression (16 / PCLR_TSIZE): the vector type takes a number. */
#define PCLR__MF_VECTORS(VEC, E) \
    "#if PCLR_VECTOR == 1\n" PCLR__TEXT_VEC1 PCLR__TEXT_FOLD1 "#elif PCLR_VECTOR == 2\n" VEC(2) \
    PCLR__TEXT_FOLD2(E) "#elif PCLR_VECTOR == 4\n" VEC(4) PCLR__TEXT_FOLD4(E) \
    "#else\n#error \"pclreduce: the macro form loads 1, 2 or 4 elements at a time (PCLR_VECTOR)\"\n#endif\n"
#define PCLR__MF_VEC_CL(V) "typedef PCLR_CAT(PCLR_T, " #V ") pclr_vec;\n"
#define PCLR__MF_VEC_CUDA(V) "struct __align__(PCLR_TSIZE * " #V ") pclr_vec { pclr_t s[" #V "]; };\n"
#define PCLR__MF_OPS(D) \
"/* ---- the operation ---- */\n" \
"#if defined(PCLR_TYPE_double)\n#define PCLR_NEG(x) " PCLR__TEXT_NEG_##D##_D "\n#else\n#define PCLR_NEG(x) " PCLR__TEXT_NEG_##D##_F "\n#endif\n" \
"#if defined(PCLR_OP_sum)\n#define PCLR_IDENTITY ((pclr_t)0)\n" \
"#elif defined(PCLR_OP_min)\n#define PCLR_IDENTITY_uint 0xffffffffu\n#define PCLR_IDENTITY_int 0x7fffffff\n" \
"#define PCLR_IDENTITY_float " PCLR__TEXT_INF_##D##_F "\n#define PCLR_IDENTITY_double " PCLR__TEXT_INF_##D##_D "\n" \
"#elif defined(PCLR_OP_max)\n#define PCLR_IDENTITY_uint 0u\n#define PCLR_IDENTITY_int (-0x7fffffff - 1)\n" \
"#define PCLR_IDENTITY_float (-" PCLR__TEXT_INF_##D##_F ")\n#define PCLR_IDENTITY_double (-" PCLR__TEXT_INF_##D##_D ")\n" \
"#else\n#error \"pclreduce: define PCLR_OP_sum, _min or _max\"\n#endif\n" \
"#ifndef PCLR_IDENTITY\n#define PCLR_IDENTITY PCLR_CAT(PCLR_IDENTITY_, PCLR_T)\n#endif\n" \
"#if defined(PCLR_OP_sum) && defined(PCLR_TYPE_int)\n" PCLR__TEXT_MERGE_BITS(PCLR__MERGE_SUM) PCLR__TEXT_MERGE_INT_##D \
"#elif defined(PCLR_OP_sum)\n" PCLR__TEXT_MERGE(PCLR__MERGE_SUM) \
"#elif defined(PCLR_OP_min) && defined(PCLR_TYPE_double)\n" PCLR__TEXT_DMINMAX(PCLR__SM80_##D, "min", PCLR__MERGE_MIN_NAN_##D) PCLR__TEXT_MERGE_VIA("min") \
"#elif defined(PCLR_OP_min) && PCLR_IS_FLOAT\n" PCLR__TEXT_FMINMAX(PCLR__SM80_##D, "min", PCLR__MERGE_MIN_NAN_##D) PCLR__TEXT_MERGE_VIA("min") \
"#elif defined(PCLR_OP_min)\n" PCLR__TEXT_MERGE(PCLR__MERGE_MIN) \
"#elif defined(PCLR_TYPE_double)\n" PCLR__TEXT_DMINMAX(PCLR__SM80_##D, "max", PCLR__MERGE_MAX_NAN_##D) PCLR__TEXT_MERGE_VIA("max") \
"#elif PCLR_IS_FLOAT\n" PCLR__TEXT_FMINMAX(PCLR__SM80_##D, "max", PCLR__MERGE_MAX_NAN_##D) PCLR__TEXT_MERGE_VIA("max") \
"#else\n" PCLR__TEXT_MERGE(PCLR__MERGE_MAX) "#endif\n"
#define PCLR__MF_GROUP_CL PCLR__TEXT_TREE_ROLLED PCLR__TEXT_GROUP_REDUCE PCLR__TEXT_TREE_UNROLLED("1") PCLR__TEXT_RETURN_LDS
#define PCLR__MF_GROUP_CUDA PCLR__TEXT_SHFL_CUDA PCLR__TEXT_WAVE_REDUCE PCLR__TEXT_GROUP_REDUCE PCLR__TEXT_SHUFFLE_WAVES
#define PCLR__MF_KERNEL_CL PCLR__MF_KERNEL("PCLR_GROUP", "", "", PCLR__TEXT_LAST_GROUP(PCLR__TEXT_TICKET_CL, "pclr_tree_rolled"))
#define PCLR__MF_KERNEL_CUDA                                                                                  \
    "#if PCLR_TSIZE == 4\n" PCLR__TEXT_WORD4_CUDA "#else\n" PCLR__TEXT_WORD8_CUDA "#endif\n" PCLR__TEXT_COLLECT_CUDA \
    PCLR__MF_KERNEL("PCLR_GROUP / PCLR_WAVE", PCLR__TEXT_GRID_DEPENDENCY, PCLR__TEXT_TICKET_AT_START_CUDA,       \
                    PCLR__TEXT_LAST_GROUP_WORDS_CUDA("pclr_group_reduce"))
#define PCLR__MF_KERNEL(LDS, WAIT, START, LAST)                                                                          \
    PCLR__TEXT_LOAD_X PCLR__TEXT_KERNEL(LDS) PCLR__TEXT_IS_LAST WAIT PCLR__TEXT_IDS START PCLR__TEXT_HEAD \
    PCLR__TEXT_STRIDE_GLOBAL PCLR__TEXT_LOOP "#if PCLR_UNROLL > 1\n" PCLR__TEXT_PARTIAL_ROUND "#endif\n"               \
    PCLR__TEXT_TAIL PCLR__TEXT_LEVEL2_CALL PCLR__TEXT_ONE_GROUP LAST
#endif /* PCLREDUCE_MACRO_FORM */

PCLR_EXTERN_C_END

#endif /* PCLREDUCE_H */

#if (defined(PCLREDUCE_MACRO_FORM) || defined(PCLREDUCE_IMPLEMENTATION)) && !defined(PCLR__TEXT_DEFINED)
#define PCLR__TEXT_DEFINED /* (the generator's and the macro form's; a program sees them only if it asks) */
/* ------------------------------------------------------------ kernel text  >>text
   Written once, for both the generator (pclr_kernel_source, which puts the
   pieces one configuration needs) and the macro form above (which joins the
   pieces of the default configurations). A parameter is a string: a literal
   for the macro form, "%s" where the generator formats it (such a piece holds
   no other %). Each piece stays under C99's 4095 characters. */

/* the ops' merges: pclr__accums and the macro form */
#define PCLR__MERGE_SUM "a + b"
#define PCLR__MERGE_MIN "a < b ? a : b"
#define PCLR__MERGE_MIN_NAN "(a != a || a < b || (a == b && PCLR_NEG(a))) ? a : b"
#define PCLR__MERGE_MAX "a > b ? a : b"
#define PCLR__MERGE_MAX_NAN "(a != a || a > b || (a == b && PCLR_NEG(b))) ? a : b"
/* OpenCL C: the short-circuit form too. The same tests joined with | and & (no branch for a CPU to
   mispredict: PoCL's float min 3x at 2^26) lost a NaN now and then on PoCL 3 (LLVM 15): float min,
   sequential variant, last-group finish, 5 results in 400 with a NaN among random data (test_opencl
   nan_random); PoCL's fast path is stride simd's ordered keys. */
#define PCLR__MERGE_MIN_NAN_CL PCLR__MERGE_MIN_NAN
#define PCLR__MERGE_MAX_NAN_CL PCLR__MERGE_MAX_NAN
#define PCLR__MERGE_MIN_NAN_CUDA PCLR__MERGE_MIN_NAN
#define PCLR__MERGE_MAX_NAN_CUDA PCLR__MERGE_MAX_NAN
/* the sign bit of a float or double x (min/max order -0 before +0) */
#define PCLR__TEXT_NEG_CL_F "(as_int(x) < 0)"
#define PCLR__TEXT_NEG_CL_D "(as_long(x) < 0)"
#define PCLR__TEXT_NEG_CUDA_F "(__float_as_int(x) < 0)"
#define PCLR__TEXT_NEG_CUDA_D "(__double_as_longlong(x) < 0)"
#define PCLR__TEXT_INF_CL_F "INFINITY"
#define PCLR__TEXT_INF_CL_D "((double)INFINITY)"
#define PCLR__TEXT_INF_CUDA_F "__int_as_float(0x7f800000)"
#define PCLR__TEXT_INF_CUDA_D "__longlong_as_double(0x7ff0000000000000ll)"

/* The dialects' words, the spellings a kernel's text names where OpenCL C, CUDA C and GLSL differ:
   W(PCLR_<name>, OpenCL C, CUDA C, GLSL); a value begins with its space. A generated kernel defines
   the words its text reads (pclr__gen_words). Inputs are read through cursors: a pointer in C, an
   element (or load) index in GLSL, whose inputs are arrays of 32-bit words. */
#define PCLR__TEXT_WORDS(W)                                                                                      \
    W(KERNEL, " __kernel", " extern \"C\" __global__ __launch_bounds__(PCLR_GROUP)", "")                        \
    W(GLOBAL, " __global", "", "")                                                                               \
    W(LOCAL, " __local", "", "")                                                                                 \
    W(RESTRICT, " restrict", " __restrict__ /* read-only loads */", "")                                          \
    W(SHARED, " __local", " __shared__", " shared")                                                              \
    W(FN, " static inline", " static __device__ __forceinline__", "")                                           \
    W(BARRIER(), " barrier(CLK_LOCAL_MEM_FENCE)", " __syncthreads()", " barrier()")                              \
    W(LID, " ((uint)get_local_id(0))", " ((uint)threadIdx.x)", " gl_LocalInvocationID.x")                        \
    W(GROUP_ID, " ((pclr_u64)get_group_id(0))", " ((pclr_u64)blockIdx.x)", " uint64_t(gl_WorkGroupID.x)")        \
    W(NUM_GROUPS, " ((pclr_u64)get_num_groups(0))", " ((pclr_u64)gridDim.x)", " uint64_t(gl_NumWorkGroups.x)")   \
    W(XREF, " PCLR_GLOBAL const pclr_t *", " PCLR_GLOBAL const pclr_t *", " uint64_t") /* a cursor into x */      \
    W(XAT(e), " (in + (e))", " (in + (e))", " (e)")             /* the cursor at element e of x */               \
    W(YREF, " PCLR_GLOBAL const pclr_t2 *", " PCLR_GLOBAL const pclr_t2 *", " uint64_t")                         \
    W(YAT(e), " (in2 + (e))", " (in2 + (e))", " (e)")                                                            \
    W(LD(p, k), " (p)[k]", " (p)[k]", " pclr_x((p) + (k))")     /* element k from x's cursor p */                \
    W(ELEMENT_AT(p), " ((pclr_u64)(p) / sizeof(pclr_t))", " ((pclr_u64)(p) / sizeof(pclr_t))", " (p)") /* its address in elements */ \
    W(VREF, " PCLR_GLOBAL const pclr_vec *", " PCLR_GLOBAL const pclr_vec *", " uint64_t") /* a cursor of loads */ \
    W(VAT(p), " ((PCLR_GLOBAL const pclr_vec *)(p))", " ((PCLR_GLOBAL const pclr_vec *)(p))", " ((p) / PCLR_VECTOR)") \
    W(V2REF, " PCLR_GLOBAL const pclr_vec2 *", " PCLR_GLOBAL const pclr_vec2 *", " uint64_t")                    \
    W(V2AT(p), " ((PCLR_GLOBAL const pclr_vec2 *)(p))", " ((PCLR_GLOBAL const pclr_vec2 *)(p))", " ((p) / PCLR_VECTOR)") \
    W(STORE_OUT(k, s), " out[k] = (s)", " out[k] = (s)", " pclr_store_out(args.out_at + uint(k) * PCLR_STATE_WORDS, (s))") \
    W(STORE_PARTIAL(k, s), " partials[k] = (s)", " partials[k] = (s)", " pclr_store_partial(uint(k) * PCLR_STATE_WORDS, (s))") \
    W(COUNTER, " (*counter)", " (*counter)", " counter")        /* the single array's ticket counter */          \
    W(CAST(T, x), " ((T)(x))", " ((T)(x))", " T(x)")                                                             \
    W(UNUSED(x), " (void)(x)", " (void)(x)", "")                                                                 \
    W(LDS_PARAM, " PCLR_LOCAL pclr_s *lds", " PCLR_LOCAL pclr_s *lds", " uint pclr_no_lds") /* GLSL: the global lds */ \
    W(LDS_ARG, " lds", " lds", " 0u")                                                                            \
    W(STATES_VIEW, " PCLR_GLOBAL volatile const pclr_s *", " PCLR_GLOBAL volatile const pclr_s *", " uint")      \
    W(STATES_ARG, " partials", " partials", " 0u")                                                               \
    /* the layouts' (rows, columns, segments) */                                                                 \
    W(X(e), " in[e]", " in[e]", " pclr_x(e)") /* element e of x, counted from the binding's start in GLSL */      \
    W(CTL(k), " ctl[k]", " ctl[k]", " ctl[uint(k)]")                                                             \
    W(TICKET(k), " atomic_inc(ctl + 1 + (k))", " atomicAdd(ctl + 1 + (k), 1u)", " atomicAdd(ctl[uint(1u + (k))], 1u)") \
    W(OFFSET(k), " offsets[k]", " offsets[k]", " pclr_offsets[uint(k)]")                                         \
    W(STATES_PARAM, " PCLR_GLOBAL pclr_s *partials", " PCLR_GLOBAL pclr_s *partials", " uint partials")
#define PCLR__TEXT_WORD_OPENCL(macro, opencl, cuda, glsl) "#define PCLR_" #macro opencl "\n"
#define PCLR__TEXT_WORD_CUDA(macro, opencl, cuda, glsl) "#define PCLR_" #macro cuda "\n"
#define PCLR__TEXT_WORD_GLSL(macro, opencl, cuda, glsl) "#define PCLR_" #macro glsl "\n"
#define PCLR__TEXT_FP64 "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
/* (the generator writes the head, then the words its kernel reads) */
#define PCLR__TEXT_PRELUDE_HEAD_OPENCL(FP64) "/* ---- OpenCL C ---- */\n" FP64 "typedef ulong pclr_u64;\n"
#define PCLR__TEXT_PRELUDE_OPENCL(FP64) PCLR__TEXT_PRELUDE_HEAD_OPENCL(FP64) PCLR__TEXT_WORDS(PCLR__TEXT_WORD_OPENCL)
#define PCLR__TEXT_PRELUDE_HEAD_CUDA                               \
    "/* ---- CUDA C (NVRTC) ---- */\ntypedef unsigned int uint;\n" \
    "typedef unsigned long long pclr_u64;\n"
#define PCLR__TEXT_PRELUDE_CUDA PCLR__TEXT_PRELUDE_HEAD_CUDA PCLR__TEXT_WORDS(PCLR__TEXT_WORD_CUDA)
#define PCLR__TEXT_FENCE_CUDA \
"/* Release/acquire between groups: fence.acq_rel is the light fence for that\n" \
"   pattern (__threadfence is a sequentially consistent fence.sc). */\n" \
"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n" \
"#define PCLR_DEVICE_FENCE() asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\")\n" \
"#else\n" \
"#define PCLR_DEVICE_FENCE() __threadfence()\n" \
"#endif\n"
/* The last-group finish on CUDA, states of 4 or 8 bytes. Every group takes its ticket as it
   starts, with its loads in flight, and the group with the last ticket folds: every other
   group has started by then, so the fold waits on none that is not running. A group
   publishes its state with a flag in one word (8 bytes for a 4-byte state, 16 for an 8-byte
   one): one store, no fence, no ticket after it; the folder polls the words and leaves them
   zero for the next launch. Against partials + acq_rel ticket + loads this takes 0.2-0.4 us
   off a call at 2^18-2^22 (4-byte states) and 0.1-0.8 us at 2^18-2^20 (8-byte) on the H100;
   a double sum in two separately flagged 8-byte words ran 0.2-0.35 us slower than with the
   ticket (bench/results/README.md, issue 19). Larger states keep the ticket. Follows the op:
   needs pclr_s. */
#define PCLR__TEXT_WORD4_CUDA \
"/* A 4-byte state and its flag in one 8-byte word: one store carries both. */\n" \
"typedef pclr_u64 pclr_word;\n" \
"union pclr_bits { pclr_s s; uint w; };\n" \
"PCLR_FN pclr_word pclr_word_of(pclr_s s) { union pclr_bits u; u.s = s; return ((pclr_u64)1 << 32) | u.w; }\n" \
"PCLR_FN pclr_s pclr_state_of(pclr_word v) { union pclr_bits u; u.w = (uint)v; return u.s; }\n" \
"#define PCLR_FLAG(v) ((v) >> 32)\n" \
"PCLR_FN void pclr_word_store(pclr_word *p, pclr_word v) { *(volatile pclr_word *)p = v; }\n" \
"PCLR_FN pclr_word pclr_word_load(const pclr_word *p) { return *(volatile const pclr_word *)p; }\n" \
"PCLR_FN void pclr_word_clear(pclr_word *p) { *(volatile pclr_word *)p = 0; }\n"
#define PCLR__TEXT_WORD8_CUDA \
"/* An 8-byte state and its flag in one 16-byte word, stored and loaded as one vector access:\n" \
"   the word CUB's decoupled look-back publishes an 8-byte value and its status in. */\n" \
"typedef struct __align__(16) { pclr_u64 w, flag; } pclr_word;\n" \
"union pclr_bits { pclr_s s; pclr_u64 w; };\n" \
"PCLR_FN pclr_word pclr_word_of(pclr_s s) { union pclr_bits u; pclr_word v; u.s = s; v.w = u.w; v.flag = 1; return v; }\n" \
"PCLR_FN pclr_s pclr_state_of(pclr_word v) { union pclr_bits u; u.w = v.w; return u.s; }\n" \
"#define PCLR_FLAG(v) ((v).flag)\n" \
"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n" \
"#define PCLR_WORD_ACCESS \"relaxed.gpu\"\n" \
"#else\n" \
"#define PCLR_WORD_ACCESS \"volatile\"\n" \
"#endif\n" \
"PCLR_FN void pclr_word_store(pclr_word *p, pclr_word v) {\n" \
"    asm volatile(\"st.\" PCLR_WORD_ACCESS \".global.v2.u64 [%0], {%1, %2};\" :: \"l\"(p), \"l\"(v.w), \"l\"(v.flag) : \"memory\");\n" \
"}\n" \
"PCLR_FN pclr_word pclr_word_load(const pclr_word *p) {\n" \
"    pclr_word v;\n" \
"    asm volatile(\"ld.\" PCLR_WORD_ACCESS \".global.v2.u64 {%0, %1}, [%2];\" : \"=l\"(v.w), \"=l\"(v.flag) : \"l\"(p) : \"memory\");\n" \
"    return v;\n" \
"}\n" \
"PCLR_FN void pclr_word_clear(pclr_word *p) { pclr_word z; z.w = 0; z.flag = 0; pclr_word_store(p, z); }\n"
#define PCLR__TEXT_COLLECT_CUDA \
"/* The states of groups j, j + PCLR_GROUP, j + 2 PCLR_GROUP, j + 3 PCLR_GROUP (the identity from\n" \
"   `groups` on), polled in rounds that load every word still missing (one L2 round trip a\n" \
"   round); their words are zero again after. */\n" \
"PCLR_FN void pclr_collect4(pclr_word *words, pclr_u64 j, pclr_u64 groups, pclr_s *s) {\n" \
"    pclr_word v[4];\n" \
"    uint mine = 0, missing;\n" \
"    for (uint q = 0; q < 4; ++q) mine |= (uint)(j + q * PCLR_GROUP < groups) << q;\n" \
"    missing = mine;\n" \
"    do { /* the groups are running: their words come */\n" \
"        for (uint q = 0; q < 4; ++q)\n" \
"            if (missing >> q & 1) v[q] = pclr_word_load(words + j + q * PCLR_GROUP);\n" \
"        for (uint q = 0; q < 4; ++q)\n" \
"            if ((missing >> q & 1) && PCLR_FLAG(v[q])) missing &= ~(1u << q);\n" \
"    } while (missing);\n" \
"    for (uint q = 0; q < 4; ++q) {\n" \
"        s[q] = mine >> q & 1 ? pclr_state_of(v[q]) : PCLR_IDENTITY;\n" \
"        if (mine >> q & 1) pclr_word_clear(words + j + q * PCLR_GROUP);\n" \
"    }\n" \
"}\n"
/* (is_last is stored at once: with the ticket held in a register until level 2 instead, the
   float sum ran 0.3-0.7 us slower at 2^20-2^22 on the H100) */
#define PCLR__TEXT_TICKET_AT_START_CUDA \
"    if (lid == 0 && groups > 1) is_last = atomicAdd(counter, 1u) == groups - 1; /* the last to start folds */\n"
/* Larger states: from sm_70 one acq_rel atomic both releases the group's partial and acquires
   the others' (no fences around it: ~0.4 us a call). */
#define PCLR__TEXT_TICKET_FN_CUDA \
"/* The ticket: the atomic releases this group's partial and acquires the others'. */\n" \
"static __device__ __forceinline__ uint pclr_ticket(uint *counter) {\n" \
"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n" \
"    uint t; asm volatile(\"atom.add.acq_rel.gpu.u32 %0, [%1], 1;\" : \"=r\"(t) : \"l\"(counter) : \"memory\"); return t;\n" \
"#else\n" \
"    __threadfence(); const uint t = atomicAdd(counter, 1u); __threadfence(); return t;\n" \
"#endif\n" \
"}\n"
/* Programmatic dependent launch (sm_90): the backend lets this grid start while the
   one before it in the stream finishes; the grid waits here for that grid's memory
   before it reads or writes any, then lets the next one start. The backend launches
   a kernel that way only when its text holds this line (without it both are no-ops). */
#define PCLR__TEXT_GRID_DEPENDENCY_DEFINE_CUDA \
"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* programmatic dependent launch */\n" \
"#define PCLR_GRID_DEPENDENCY() asm volatile(\"griddepcontrol.wait;\\n\\tgriddepcontrol.launch_dependents;\" ::: \"memory\")\n" \
"#else\n" \
"#define PCLR_GRID_DEPENDENCY()\n" \
"#endif\n"
#define PCLR__TEXT_GRID_DEPENDENCY "    PCLR_GRID_DEPENDENCY(); /* the previous grid's memory first */\n"
#define PCLR__TEXT_FENCE_OPENCL \
"/* Orders a group's partial before its ticket, device-wide. */\n" \
"#if __OPENCL_C_VERSION__ >= 200\n" \
"#define PCLR_DEVICE_FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device)\n" \
"#elif defined(cl_nv_pragma_unroll)\n" \
"#define PCLR_DEVICE_FENCE() asm volatile(\"membar.gl;\")\n" \
"#else\n" \
"#define PCLR_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)\n" \
"#endif\n"

/* the operation */
#define PCLR__TEXT_MERGE(E) "PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return " E "; }\n"
/* Floats' min and max on NVIDIA sm_80 and later (CUDA; OpenCL with PCLR_NVIDIA_SM80, which
   the OpenCL backend defines there): one instruction, PTX min/max.NaN.f32, whose semantics
   are the compare chain's (NaN propagates, -0 < +0); the chain is six dependent
   instructions, which cost float min/max a fifth of their mid-size speed (ncu on the H100).
   COND: the preprocessor test for it. */
#define PCLR__SM80_CUDA "__CUDA_ARCH__ >= 800"
#define PCLR__SM80_CL "defined(PCLR_NVIDIA_SM80)"
#define PCLR__TEXT_FMINMAX(COND, OP, E) \
"PCLR_FN float pclr_" OP "(float a, float b) { /* NaN propagates, -0 < +0 */\n" \
"#if " COND "\n" \
"    float r; asm(\"" OP ".NaN.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(a), \"f\"(b)); return r; /* one instruction */\n" \
"#else\n" \
"    return " E ";\n" \
"#endif\n" \
"}\n"
/* doubles: PTX min/max.f64 order -0 < +0 but pass a NaN by; a NaN operand is added in */
#define PCLR__TEXT_DMINMAX(COND, OP, E) \
"PCLR_FN double pclr_" OP "(double a, double b) { /* NaN propagates, -0 < +0 */\n" \
"#if " COND "\n" \
"    double r; asm(\"" OP ".f64 %0, %1, %2;\" : \"=d\"(r) : \"d\"(a), \"d\"(b)); return a != a || b != b ? a + b : r;\n" \
"#else\n" \
"    return " E ";\n" \
"#endif\n" \
"}\n"
/* min and max ops: the merge is pclr_min / pclr_max */
#define PCLR__TEXT_MERGE_VIA(OP) "PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return pclr_" OP "(a, b); }\n"
#define PCLR__TEXT_MERGE_BITS(E) \
"/* int: computed on the unsigned bits (wraps; no signed overflow) */\n" \
"PCLR_FN uint pclr_merge_bits(uint a, uint b) { return " E "; }\n"
#define PCLR__TEXT_MERGE_INT_CL "PCLR_FN int pclr_merge(int a, int b) { return as_int(pclr_merge_bits(as_uint(a), as_uint(b))); }\n"
#define PCLR__TEXT_MERGE_INT_CUDA "PCLR_FN int pclr_merge(int a, int b) { return (int)pclr_merge_bits((uint)a, (uint)b); }\n"
#define PCLR__TEXT_VEC1 "typedef pclr_t pclr_vec; /* one element per load */\n"
#define PCLR__TEXT_FOLD1 "#define PCLR_FOLD(acc, v, i) (acc) = pclr_merge((acc), (v))\n"
/* E(i): element i of a vector v */
#define PCLR__TEXT_ELEMENT_CL(i) "(v).s" #i
#define PCLR__TEXT_ELEMENT_CUDA(i) "(v).s[" #i "]"
#define PCLR__TEXT_FOLD2(E) \
"/* Folds one loaded vector into the accumulator, as a small tree. */\n" \
"#define PCLR_FOLD(acc, v, i) (acc) = pclr_merge((acc), pclr_merge(" E(0) ", " E(1) "))\n"
#define PCLR__TEXT_FOLD4(E) \
"/* Folds one loaded vector into the accumulator, as a small tree. */\n" \
"#define PCLR_FOLD(acc, v, i) (acc) = pclr_merge((acc), pclr_merge(pclr_merge(" E(0) ", " E(1) "), \\\n" \
"                                                            pclr_merge(" E(2) ", " E(3) ")))\n"

/* level 2: in-group */
#define PCLR__TEXT_LEVEL2 "/* ---- level 2: in-group; the result is valid in work-item 0 ---- */\n"
#define PCLR__TEXT_TREE_ROLLED \
"/* Divergence-free tree kept as a loop: the SEQUENTIAL variant, and the last\n" \
"   group's fold of the partials (PoCL 3/LLVM 15 miscompiles a second unrolled\n" \
"   barrier tree there; the fold runs once per launch, so the loop costs nothing). */\n" \
"PCLR_FN pclr_s pclr_tree_rolled(pclr_s acc, PCLR_LDS_PARAM) {\n" \
"    const uint lid = PCLR_LID;\n" \
"    PCLR_BARRIER(); /* lds may still be read by an earlier call */\n" \
"    lds[lid] = acc;\n" \
"    PCLR_BARRIER();\n" \
"#pragma unroll 1\n" \
"    for (uint s = PCLR_GROUP / 2; s > 0; s >>= 1) {\n" \
"        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);\n" \
"        PCLR_BARRIER();\n" \
"    }\n" \
"    return lds[0];\n" \
"}\n"
#define PCLR__TEXT_SHFL_CUDA "#define PCLR_SHFL_DOWN(v, delta) __shfl_down_sync(0xffffffffu, (v), (delta))\n"
#define PCLR__TEXT_WAVE_REDUCE \
"/* Lane 0 of each wave gets the wave's result. */\n" \
"PCLR_FN pclr_s pclr_wave_reduce(pclr_s v, uint width) {\n" \
"#pragma unroll\n" \
"    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1)\n" \
"        if (delta < width) v = pclr_merge(v, PCLR_SHFL_DOWN(v, delta));\n" \
"    return v;\n" \
"}\n"
#define PCLR__TEXT_GROUP_REDUCE "PCLR_FN pclr_s pclr_group_reduce(pclr_s acc, PCLR_LDS_PARAM) {\n"
#define PCLR__TEXT_SHUFFLE_WAVES \
"    const uint lid = PCLR_LID;\n" \
"    acc = pclr_wave_reduce(acc, PCLR_WAVE);\n" \
"    PCLR_BARRIER(); /* lds may still be read by an earlier call */\n" \
"    if (lid % PCLR_WAVE == 0) lds[lid / PCLR_WAVE] = acc;\n" \
"    PCLR_BARRIER();\n" \
"    if (lid < PCLR_WAVE) {\n" \
"        acc = lid < PCLR_GROUP / PCLR_WAVE ? lds[lid] : PCLR_IDENTITY;\n" \
"        acc = pclr_wave_reduce(acc, PCLR_GROUP / PCLR_WAVE);\n" \
"    }\n" \
"    return acc;\n"
/* LAST: the smallest step with a barrier ("1", or "32" where CUDA warp 0 ends the tree) */
#define PCLR__TEXT_TREE_UNROLLED(LAST) \
"    const uint lid = PCLR_LID;\n" \
"    PCLR_BARRIER();\n" \
"    lds[lid] = acc;\n" \
"    PCLR_BARRIER();\n" \
"    /* the divergence-free tree, fully unrolled for the compile-time group size */\n" \
"#pragma unroll\n" \
"    for (uint s = PCLR_GROUP / 2; s >= " LAST "; s >>= 1) {\n" \
"        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);\n" \
"        PCLR_BARRIER();\n" \
"    }\n"
#define PCLR__TEXT_RETURN_LDS "    return lds[0];\n"
#define PCLR__TEXT_TREE_NAIVE \
"    const uint lid = PCLR_LID;\n" \
"    PCLR_BARRIER();\n" \
"    lds[lid] = acc;\n" \
"    PCLR_BARRIER();\n" \
"    /* interleaved tree, divergent modulo test (the paper's first version) */\n" \
"#pragma unroll 1\n" \
"    for (uint s = 1; s < PCLR_GROUP; s *= 2) {\n" \
"        if (lid % (2 * s) == 0) lds[lid] = pclr_merge(lds[lid], lds[lid + s]);\n" \
"        PCLR_BARRIER();\n" \
"    }\n" PCLR__TEXT_RETURN_LDS

/* the kernel; LDS: the local array's size */
#define PCLR__TEXT_KERNEL(LDS) PCLR__TEXT_KERNEL_ARGS ") {\n" PCLR__TEXT_KERNEL_LDS(LDS)
#define PCLR__TEXT_KERNEL_ARGS \
"/* ---- the kernel ---- */\n" \
"PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,\n" \
"                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,\n" \
"                             PCLR_GLOBAL uint *counter"
#define PCLR__TEXT_KERNEL_LDS(LDS) "    PCLR_SHARED pclr_s lds[" LDS "];\n"
/* what one step of the loop loads (a map's second input adds its own vector) */
#define PCLR__TEXT_LOAD_X "typedef pclr_vec pclr_in; /* one load: a vector of x */\n#define PCLR_LOAD(j) pv[j]\n"
#define PCLR__TEXT_IS_LAST "    PCLR_SHARED uint is_last;\n"
#define PCLR__TEXT_IDS \
"    const uint lid = PCLR_LID;\n" \
"    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;\n" \
"    const pclr_u64 thread = group * PCLR_GROUP + lid;\n" \
"    PCLR_XREF p = PCLR_XAT(offset);\n" \
"    pclr_s acc = PCLR_IDENTITY;\n"
/* level 1, in-thread */
#define PCLR__TEXT_HEAD PCLR__TEXT_HEAD_FOLDED("    if (thread < head) PCLR_FOLD1(acc, PCLR_LD(p, thread), thread);\n")
#define PCLR__TEXT_HEAD_FOLDED(FOLD) \
"    /* Level 1, in-thread. Elements before the first vector-aligned address form the head. */\n" \
"    pclr_u64 head = (PCLR_VECTOR - PCLR_ELEMENT_AT(p) % PCLR_VECTOR) % PCLR_VECTOR;\n" \
"    if (head > n) head = n;\n" FOLD \
"    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;\n" \
"    PCLR_VREF pv = PCLR_VAT(p + head);\n"
/* a reduction's (op custom): its merge takes the elements in order, so the first work-item folds the head
   before its block and the last the tail after its own (each walks a contiguous block: stride local) */
#define PCLR__TEXT_HEAD_ORDERED \
    PCLR__TEXT_HEAD_FOLDED("    if (thread == 0) for (pclr_u64 e = 0; e < head; ++e) PCLR_FOLD1(acc, PCLR_LD(p, e), e);\n")
#define PCLR__TEXT_TAIL_ORDERED \
"    /* the tail: fewer than PCLR_VECTOR elements after the last whole vector */\n" \
"    if (thread == groups * PCLR_GROUP - 1) for (pclr_u64 e = head + nvec * PCLR_VECTOR; e < n; ++e) PCLR_FOLD1(acc, PCLR_LD(p, e), e);\n"
#define PCLR__TEXT_STRIDE_GLOBAL \
"    /* grid stride: consecutive work-items read consecutive vectors */\n" \
"    const pclr_u64 stride = groups * PCLR_GROUP, end = nvec;\n" \
"    pclr_u64 i = thread;\n"
/* FOLD: the fold of a load into the work-item's accumulator ("PCLR_FOLD(acc, ") or its lanes (stride simd) */
#define PCLR__TEXT_LOOP PCLR__TEXT_LOOP_INTO("PCLR_FOLD(acc, ")
#define PCLR__TEXT_LOOP_INTO(FOLD) \
"    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {\n" \
"        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */\n" \
"#pragma unroll\n" \
"        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);\n" \
"#pragma unroll\n" \
"        for (uint k = 0; k < PCLR_UNROLL; ++k) " FOLD "v[k], head + (i + k * stride) * PCLR_VECTOR);\n" \
"    }\n"
#define PCLR__TEXT_PARTIAL_ROUND PCLR__TEXT_PARTIAL_ROUND_INTO("PCLR_FOLD(acc, ")
#define PCLR__TEXT_PARTIAL_ROUND_INTO(FOLD) \
"    /* The last, partial round (fewer than PCLR_UNROLL vectors left): the same loads,\n" \
"       all in flight, clamped to a valid index and folded under a guard. */\n" \
"    if (i < end) {\n" \
"        pclr_in v[PCLR_UNROLL - 1];\n" \
"#pragma unroll\n" \
"        for (uint k = 0; k < PCLR_UNROLL - 1; ++k) v[k] = PCLR_LOAD(i + k * stride < end ? i + k * stride : i);\n" \
"#pragma unroll\n" \
"        for (uint k = 0; k < PCLR_UNROLL - 1; ++k)\n" \
"            if (i + k * stride < end) " FOLD "v[k], head + (i + k * stride) * PCLR_VECTOR);\n" \
"    }\n"
#define PCLR__TEXT_TAIL \
"    /* the tail: fewer than PCLR_VECTOR elements after the last whole vector */\n" \
"    if (nvec * PCLR_VECTOR + thread < rest) PCLR_FOLD1(acc, PCLR_LD(p, head + nvec * PCLR_VECTOR + thread), head + nvec * PCLR_VECTOR + thread);\n"
#define PCLR__TEXT_LEVEL2_CALL \
"    /* Level 2, in-group. */\n" \
"    acc = pclr_group_reduce(acc, PCLR_LDS_ARG);\n"

/* level 3, between groups */
#define PCLR__TEXT_ONE_GROUP \
"    /* Level 3, between groups. */\n" \
"    if (groups == 1) {\n" \
"        if (lid == 0) PCLR_STORE_OUT(0, acc);\n" \
"        return;\n" \
"    }\n"
#define PCLR__TEXT_TICKET_CL "atomic_inc(counter)"
#define PCLR__TEXT_TICKET_CUDA "atomicAdd(counter, 1u)"
/* TICKET: the counter's atomic increment; TREE: the group reduction for the fold */
#define PCLR__TEXT_LAST_GROUP(TICKET, TREE) PCLR__TEXT_LAST_GROUP_PUBLISH(TICKET) PCLR__TEXT_LAST_GROUP_FOLD(TREE)
#define PCLR__TEXT_LAST_GROUP_PUBLISH(TICKET) \
"    /* the last group to finish folds the partials in a fixed order (deterministic) */\n" \
"    if (lid == 0) {\n" \
"        PCLR_STORE_PARTIAL(group, acc);\n" \
"        PCLR_DEVICE_FENCE(); /* release: the partial before the ticket */\n" \
"        is_last = " TICKET " == groups - 1;\n" \
"        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the thread that read the ticket */\n" \
"    }\n"
/* CUDA's and GLSL's generated kernels: TICKET is a call of pclr_ticket, which releases the
   group's partial (PCLR__TEXT_TICKET_FN_CUDA: an acq_rel atomic; GLSL: a fence, then the atomic) */
#define PCLR__TEXT_LAST_GROUP_TICKET(TICKET, TREE) PCLR__TEXT_LAST_GROUP_TICKET_PUBLISH(TICKET) PCLR__TEXT_LAST_GROUP_FOLD(TREE)
#define PCLR__TEXT_LAST_GROUP_TICKET_PUBLISH(TICKET) \
"    /* the last group to finish folds the partials in a fixed order (deterministic) */\n" \
"    if (lid == 0) {\n" \
"        PCLR_STORE_PARTIAL(group, acc);\n" \
"        is_last = " TICKET " == groups - 1;\n" \
"    }\n"
#define PCLR__TEXT_LAST_GROUP_FOLD(TREE) PCLR__TEXT_LAST_GROUP_OPEN PCLR__TEXT_FOLD(TREE, \
"            const pclr_s a = PCLR_PARTIAL(vp, j);\n" \
"            const pclr_s b = j + PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + PCLR_GROUP) : PCLR_IDENTITY;\n" \
"            const pclr_s c = j + 2 * PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + 2 * PCLR_GROUP) : PCLR_IDENTITY;\n" \
"            const pclr_s d = j + 3 * PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + 3 * PCLR_GROUP) : PCLR_IDENTITY;\n")
#define PCLR__TEXT_LAST_GROUP_OPEN \
"    PCLR_BARRIER();\n" \
"    if (is_last) {\n" \
"        PCLR_DEVICE_FENCE();\n" \
"        PCLR_STATES_VIEW vp = PCLR_STATES_ARG;\n"
/* A reduction's (op custom) fold: its merge takes states in order, so the last group's first work-item
   folds the groups' states in group order (a second barrier tree in one kernel is what PoCL 3
   miscompiles: pclr__gen_tree_rolled; a fold of at most a few thousand states, its loads in flight) */
#define PCLR__TEXT_LAST_GROUP_FOLD_ORDERED PCLR__TEXT_LAST_GROUP_OPEN \
"        if (lid == 0) {\n" \
"            acc = PCLR_IDENTITY;\n" \
"            for (pclr_u64 j = 0; j < groups; ++j) acc = pclr_merge(acc, PCLR_PARTIAL(vp, j));\n" \
"            PCLR_STORE_OUT(0, acc);\n" \
"            PCLR_COUNTER = 0;\n" \
"        }\n" \
"    }\n" \
"}\n"
/* CUDA, states of 4 or 8 bytes: the words and the ticket at the start (PCLR__TEXT_COLLECT_CUDA) */
#define PCLR__TEXT_LAST_GROUP_WORDS_CUDA(TREE) \
"    /* the group that started last folds the states in a fixed order (deterministic) */\n" \
"    pclr_word *words = (pclr_word *)partials;\n" \
"    if (lid == 0) pclr_word_store(words + group, pclr_word_of(acc));\n" \
"    if (is_last) {\n" PCLR__TEXT_FOLD(TREE, \
"            pclr_s s[4];\n" \
"            pclr_collect4(words, j, groups, s);\n" \
"            const pclr_s a = s[0], b = s[1], c = s[2], d = s[3];\n")
/* The last group's fold; TAKE4: the text that gives a, b, c, d, the states of groups j,
   j + PCLR_GROUP, j + 2 PCLR_GROUP, j + 3 PCLR_GROUP (the identity from `groups` on). */
#define PCLR__TEXT_FOLD(TREE, TAKE4) \
"        acc = PCLR_IDENTITY;\n" \
"        /* four loads in flight: the fold's time is L2 round trips */\n" \
"        for (pclr_u64 j = lid; j < groups; j += 4 * PCLR_GROUP) {\n" TAKE4 \
"            acc = pclr_merge(acc, pclr_merge(pclr_merge(a, b), pclr_merge(c, d)));\n" \
"        }\n" \
"        acc = " TREE "(acc, PCLR_LDS_ARG);\n" \
"        if (lid == 0) {\n" \
"            PCLR_STORE_OUT(0, acc);\n" \
"            PCLR_COUNTER = 0;\n" \
"        }\n" \
"    }\n" \
"}\n"
#endif /* the kernel text */

/* ======================================================== the implementation  >>impl */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_IMPLEMENTED)
#define PCLREDUCE_IMPLEMENTED
PCLR__DEPRECATED_OK_BEGIN

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <ctype.h>  /* the map language: */
#include <float.h>
#include <locale.h>
#include <math.h>
#ifndef PCLREDUCE_NO_FILES /* the cache and tuning file: */
#include <errno.h>
#ifdef _WIN32
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <windows.h>
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#endif
#endif /* PCLREDUCE_NO_FILES */

#ifndef PCLR_ASSERT
#include <assert.h>
#define PCLR_ASSERT(c) assert(c)
#endif

/* Internal functions: static, and quiet when a program leaves some unused. */
#if defined(__GNUC__) || defined(__clang__)
#define PCLR__FN static __attribute__((unused))
#define PCLR__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PCLR__FN static
#define PCLR__PRINTF(f, a)
#endif

/* What a use of a feature left out says (docs/usage.md "Leaving features out"). */
#define PCLR__NO_MAP_WHY "maps are compiled out (PCLREDUCE_NO_MAP)"
#define PCLR__NO_EXACT_WHY "exact sums are compiled out (PCLREDUCE_NO_EXACT)"
#define PCLR__NO_LAYOUTS_WHY "rows, columns and segments are compiled out (PCLREDUCE_NO_LAYOUTS)"
#define PCLR__NO_FILES_WHY "the disk cache and the tuning file are compiled out (PCLREDUCE_NO_FILES)"

PCLR_EXTERN_C_BEGIN

PCLR__FN void pclr__appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...) PCLR__PRINTF(4, 5);

static const char *const pclr__result_strings[PCLR_RESULT_COUNT_] = {
    "ok",
    "a required pointer argument is NULL",
    "an enumeration value (type, op, backend, variant, finish, stride) is out of range",
    "a knob value is not supported (wave 32|64, group 32..1024 power of two, unroll 1..128 power of two, vector 1|2|4, groups per unit 1..64)",
    "these knob values do not go together",
    "the caller's buffer is too small",
    "element count or offset overflows or exceeds the buffer",
    "pointer is not aligned to the element size",
    "driver not found (OpenCL ICD loader, CUDA driver, NVRTC, Vulkan loader or shaderc)",
    "no usable device",
    "double requested on a device without fp64 support",
    "the device lacks the 64-bit atomics this configuration needs",
    "the device cannot run this configuration",
    "kernel compilation failed (the build log is kept in the context)",
    "out of memory",
    "an OpenCL or CUDA call failed",
    "invalid context (NULL, destroyed or not initialised)",
    "a cache or tuning file could not be read or written",
    "the map expression or its parameters are invalid",
    "an argument cannot be used here (a buffer of another context)",
    "the context is busy with another thread's call (one call at a time per context)",
};

PCLR_API const char *pclr_result_string(pclr_result r) {
    if ((int)r < 0 || r >= PCLR_RESULT_COUNT_) return "unknown result code";
    return pclr__result_strings[r];
}

static const char *const pclr__type_names[PCLR_TYPE_COUNT_] = {"default", "uint", "int", "float", "double", "uint8", "int8",
                                                                "uint16", "int16", "uint64", "int64", "half"};
static const char *const pclr__op_names[PCLR_OP_COUNT_] = {"default", "sum", "min", "max", "argmin", "argmax", "minmax", "stats", "count",
                                                           "prod", "and", "or", "xor", "any", "all", "argminmax", "custom",
                                                           "histogram"};
static const char *const pclr__accumulate_names[PCLR_ACCUMULATE_COUNT_] = {"default", "native", "wide", "compensated", "exact"};
static const char *const pclr__layout_names[PCLR_LAYOUT_COUNT_] = {"one", "rows", "columns", "segments"};
static const char *const pclr__shape_names[PCLR_SHAPE_COUNT_] = {"one", "rows_short", "rows_medium", "rows_long", "rows_huge", "cols_narrow",
                                                                        "cols_wide"};
static const char *const pclr__backend_names[PCLR_BACKEND_COUNT_] = {"auto", "opencl", "cuda", "cpu", "vulkan"};
static const char *const pclr__stride_names[PCLR_STRIDE_COUNT_] = {"default", "global", "local", "simd"};
static const char *const pclr__variant_names[PCLR_VARIANT_COUNT_] = {"default", "naive", "sequential", "unrolled", "shuffle", "collective"};
static const char *const pclr__finish_names[PCLR_FINISH_COUNT_] = {"default", "last_group", "atomic", "partials"};

static const char *pclr__name(const char *const *names, int count, int v) {
    return (v >= 0 && v < count) ? names[v] : "invalid";
}
static pclr_result pclr__parse(const char *const *names, int count, const char *s, int *out) {
    int i;
    if (!s || !out) return PCLR_ERR_NULL_POINTER;
    for (i = 1; i < count; ++i)
        if (strcmp(s, names[i]) == 0) { *out = i; return PCLR_OK; }
    return PCLR_ERR_INVALID_ENUM;
}

PCLR_API const char *pclr_type_name(pclr_type t) { return pclr__name(pclr__type_names, PCLR_TYPE_COUNT_, (int)t); }
PCLR_API const char *pclr_op_name(pclr_op o) { return pclr__name(pclr__op_names, PCLR_OP_COUNT_, (int)o); }
PCLR_API const char *pclr_backend_name(pclr_backend d) { return pclr__name(pclr__backend_names, PCLR_BACKEND_COUNT_, (int)d); }
PCLR_API const char *pclr_stride_name(pclr_stride s) { return pclr__name(pclr__stride_names, PCLR_STRIDE_COUNT_, (int)s); }
PCLR_API const char *pclr_variant_name(pclr_variant v) { return pclr__name(pclr__variant_names, PCLR_VARIANT_COUNT_, (int)v); }
PCLR_API const char *pclr_finish_name(pclr_finish f) { return pclr__name(pclr__finish_names, PCLR_FINISH_COUNT_, (int)f); }
PCLR_API const char *pclr_accumulate_name(pclr_accumulate a) { return pclr__name(pclr__accumulate_names, PCLR_ACCUMULATE_COUNT_, (int)a); }
PCLR_API const char *pclr_layout_name(pclr_layout l) { return pclr__name(pclr__layout_names, PCLR_LAYOUT_COUNT_, (int)l); }
PCLR_API const char *pclr_shape_name(pclr_shape s) { return pclr__name(pclr__shape_names, PCLR_SHAPE_COUNT_, (int)s); }

#define PCLR__PARSE_FN(fn, T, names, count)                  \
    PCLR_API pclr_result fn(const char *s, T *out) {         \
        int v = 0;                                           \
        pclr_result r = pclr__parse(names, count, s, &v);    \
        if (r == PCLR_OK && !out) r = PCLR_ERR_NULL_POINTER; \
        if (r == PCLR_OK) *out = (T)v;                       \
        return r;                                            \
    }
PCLR__PARSE_FN(pclr_parse_accumulate, pclr_accumulate, pclr__accumulate_names, PCLR_ACCUMULATE_COUNT_)
PCLR__PARSE_FN(pclr_parse_layout, pclr_layout, pclr__layout_names, PCLR_LAYOUT_COUNT_)
PCLR__PARSE_FN(pclr_parse_shape, pclr_shape, pclr__shape_names, PCLR_SHAPE_COUNT_)
PCLR__PARSE_FN(pclr_parse_op, pclr_op, pclr__op_names, PCLR_OP_COUNT_)
PCLR__PARSE_FN(pclr_parse_stride, pclr_stride, pclr__stride_names, PCLR_STRIDE_COUNT_)
PCLR__PARSE_FN(pclr_parse_variant, pclr_variant, pclr__variant_names, PCLR_VARIANT_COUNT_)
PCLR__PARSE_FN(pclr_parse_finish, pclr_finish, pclr__finish_names, PCLR_FINISH_COUNT_)
#undef PCLR__PARSE_FN

PCLR_API pclr_result pclr_parse_backend(const char *s, pclr_backend *out) {
    int v = 0;
    pclr_result r = s && strcmp(s, "auto") == 0 ? PCLR_OK : pclr__parse(pclr__backend_names, PCLR_BACKEND_COUNT_, s, &v);
    if (r == PCLR_OK && !out) r = PCLR_ERR_NULL_POINTER;
    if (r == PCLR_OK) *out = (pclr_backend)v;
    return r;
}

PCLR_API pclr_result pclr_parse_type(const char *s, pclr_type *out) {
    /* the names, and the spellings NumPy users reach for */
    static const char *const alias[][2] = {{"uint32", "uint"}, {"int32", "int"}, {"float32", "float"},
                                           {"float64", "double"}, {"float16", "half"}};
    size_t i;
    int v = 0;
    pclr_result r;
    for (i = 0; s && i < sizeof alias / sizeof alias[0]; ++i)
        if (strcmp(s, alias[i][0]) == 0) s = alias[i][1];
    r = pclr__parse(pclr__type_names, PCLR_TYPE_COUNT_, s, &v);
    if (r == PCLR_OK && !out) r = PCLR_ERR_NULL_POINTER;
    if (r == PCLR_OK) *out = (pclr_type)v;
    return r;
}

PCLR_API size_t pclr_type_size(pclr_type t) {
    switch (t) {
    case PCLR_UINT8: case PCLR_INT8: return 1;
    case PCLR_UINT16: case PCLR_INT16: case PCLR_HALF: return 2;
    case PCLR_TYPE_DEFAULT: case PCLR_UINT: case PCLR_INT: case PCLR_FLOAT: return 4;
    case PCLR_DOUBLE: case PCLR_UINT64: case PCLR_INT64: return 8;
    default: return 0;
    }
}

static int pclr__is_float(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static int pclr__is_signed(pclr_type t) { return t == PCLR_INT8 || t == PCLR_INT16 || t == PCLR_INT || t == PCLR_INT64; }

PCLR_API pclr_type pclr_value_type(pclr_type t) {
    if (t == PCLR_TYPE_DEFAULT || t == PCLR_HALF) return PCLR_FLOAT;
    return (int)t > 0 && t < PCLR_TYPE_COUNT_ ? t : PCLR_TYPE_DEFAULT;
}

/* The type a kernel computes values in: 8/16-bit integers widen to 32 bits, half to float. */
static pclr_type pclr__compute_type(pclr_type t) {
    switch (t) {
    case PCLR_UINT8: case PCLR_UINT16: return PCLR_UINT;
    case PCLR_INT8: case PCLR_INT16: return PCLR_INT;
    default: return pclr_value_type(t);
    }
}

PCLR_API pclr_type pclr_sum_type(pclr_type t, pclr_accumulate a) {
    pclr_type v = pclr__compute_type(t);
    if (v == PCLR_TYPE_DEFAULT || (int)a < 0 || a >= PCLR_ACCUMULATE_COUNT_) return PCLR_TYPE_DEFAULT;
    if (a == PCLR_WIDE) return v == PCLR_FLOAT ? PCLR_DOUBLE : pclr__is_float(v) ? v : pclr__is_signed(v) ? PCLR_INT64 : PCLR_UINT64;
    if ((a == PCLR_COMPENSATED || a == PCLR_EXACT) && !pclr__is_float(v)) return PCLR_TYPE_DEFAULT;
    return v;
}

/* ------------------------------------------------------------ map expressions  >>map
   A map is parsed into a small tree (pclr__mtree) and type-checked once; the
   generator writes the tree out in a kernel's language and the CPU reference
   evaluates it. Only text the tree writes reaches a compiler: the inputs are
   x, y and i, the parameters p0..p15, numbers are printed from their values.
   Types are C's: int, uint, long (int64), ulong (uint64), float, double, and
   C's usual arithmetic conversions; integer arithmetic wraps, integer / and %
   by 0 give 0, float to integer conversions saturate (NaN gives 0). The bitwise
   operators & | ^ ~ << >> take integers only; a shift has its left operand's
   type and counts modulo its width (x << 33 is x << 1 for a 32-bit x), and >> of
   a negative value fills with ones, the same on every backend. */
enum { PCLR__MN_LIT, PCLR__MN_X, PCLR__MN_Y, PCLR__MN_I, PCLR__MN_PARAM, PCLR__MN_NEG, PCLR__MN_NOT, PCLR__MN_BIN,
       PCLR__MN_COND, PCLR__MN_CALL, PCLR__MN_CAST, PCLR__MN_BNOT, PCLR__MN_FIELD };
/* a reduction's field (PCLR__MN_FIELD: op the field, v.u the state it is read from): the one being
   assigned (a bare name), a (the earlier elements') or b (the later ones') */
enum { PCLR__MS_SELF, PCLR__MS_A, PCLR__MS_B };
/* the binary operators: arithmetic and bitwise (of the operands' type), then from PCLR__MB_LT on those whose
   value is an int (comparisons, && and ||) */
enum { PCLR__MB_ADD, PCLR__MB_SUB, PCLR__MB_MUL, PCLR__MB_DIV, PCLR__MB_MOD, PCLR__MB_BAND, PCLR__MB_BOR, PCLR__MB_BXOR,
       PCLR__MB_SHL, PCLR__MB_SHR, PCLR__MB_LT, PCLR__MB_LE, PCLR__MB_GT, PCLR__MB_GE, PCLR__MB_EQ, PCLR__MB_NE, PCLR__MB_AND,
       PCLR__MB_OR };
#define PCLR__MB_BITWISE(op) ((op) >= PCLR__MB_BAND && (op) <= PCLR__MB_SHR)
/* the functions: name, arguments, and what they compute in (0: the arguments' common
   type, 1: floating (integers as float), 2: floating in, int out) */
typedef struct pclr__mfunc { const char *name; int args, kind; } pclr__mfunc;
enum { PCLR__MF_ABS, PCLR__MF_MIN, PCLR__MF_MAX, PCLR__MF_CLAMP, PCLR__MF_SQRT, PCLR__MF_RSQRT, PCLR__MF_EXP, PCLR__MF_EXP2,
       PCLR__MF_LOG, PCLR__MF_LOG2, PCLR__MF_POW, PCLR__MF_SIN, PCLR__MF_COS, PCLR__MF_FLOOR, PCLR__MF_CEIL, PCLR__MF_ROUND,
       PCLR__MF_FMA, PCLR__MF_ISNAN, PCLR__MF_ISINF, PCLR__MF_COUNT };

typedef struct pclr__mnode {
    unsigned char kind, op, type, n; /* op: operator, function, cast type, parameter or component (4: none) */
    short a[3];                      /* the operands */
    short col;                       /* 1-based column, for sentences */
    union { uint64_t u; double d; } v; /* a literal: integers as their 64 bits, floats as double */
} pclr__mnode;

typedef struct pclr__mtree {
    pclr__mnode node[PCLR_MAP_MAX_LENGTH];
    int count, root;
    pclr_type x, y, type;            /* element types (y: 0 = none); the map's result type */
    int comps, params, uses_y, uses_double;
    pclr_type param[PCLR_MAP_MAX_PARAMS];
    char pname[PCLR_MAP_MAX_PARAMS][32];
    /* a reduction (op custom; else fields = 0): its state's fields, each field's identity (a root),
       lift's and merge's assignments in their order (field, root), the results' roots */
    int fields, lifts, merges, results;
    pclr_type ftype[PCLR_CUSTOM_MAX];
    char fname[PCLR_CUSTOM_MAX][32];
    short identity[PCLR_CUSTOM_MAX], lift[PCLR_CUSTOM_MAX][2], merge[PCLR_CUSTOM_MAX][2], result[PCLR_CUSTOM_MAX];
} pclr__mtree;

/* A value of one of the map's types: integers sign- or zero-extended to 64 bits, floats as double (float values rounded to float). */
typedef union pclr__mval { int64_t i; uint64_t u; double d; } pclr__mval;
#ifndef PCLREDUCE_NO_MAP
static void pclr__ridentity(const pclr__mtree *t, pclr__mval *s);
#endif
/* a field's bits (the identity test of a reduction's merge compares them) */
PCLR__FN uint64_t pclr__rbits(pclr__mval v, pclr_type t) {
    uint64_t b = v.u;
    if (t == PCLR_FLOAT) { const float f = (float)v.d; uint32_t u; memcpy(&u, &f, 4); b = u; }
    else if (t == PCLR_INT || t == PCLR_UINT) b = (uint32_t)v.u;
    return b;
}

/* the type an element of t is read as (C's integer promotion; half as float) */
static pclr_type pclr__mpromote(pclr_type t) {
    switch (t) {
    case PCLR_UINT: case PCLR_INT64: case PCLR_UINT64: case PCLR_FLOAT: case PCLR_DOUBLE: return t;
    case PCLR_HALF: return PCLR_FLOAT;
    default: return PCLR_INT;
    }
}

/* A character of a name (the map language's, and the op texts' of pclr__op_defs). */
static int pclr__mis_ident(int ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (ch >= '0' && ch <= '9'); }
/* Whether text reads name as a word (a NULL text is not known: yes). */
static int pclr__text_uses(const char *text, const char *name) {
    const size_t n = strlen(name);
    const char *p = text;
    if (!p) return 1;
    for (; (p = strstr(p, name)) != NULL; p += n)
        if ((p == text || !pclr__mis_ident((unsigned char)p[-1])) && !pclr__mis_ident((unsigned char)p[n])) return 1;
    return 0;
}
#ifndef PCLREDUCE_NO_MAP /* the parser (docs/usage.md "Leaving features out") */
static const char *const pclr__mbin_text[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
static const pclr__mfunc pclr__mfuncs[PCLR__MF_COUNT] = {
    {"abs", 1, 0}, {"min", 2, 0}, {"max", 2, 0}, {"clamp", 3, 0}, {"sqrt", 1, 1}, {"rsqrt", 1, 1}, {"exp", 1, 1},
    {"exp2", 1, 1}, {"log", 1, 1}, {"log2", 1, 1}, {"pow", 2, 1}, {"sin", 1, 1}, {"cos", 1, 1}, {"floor", 1, 1},
    {"ceil", 1, 1}, {"round", 1, 1}, {"fma", 3, 1}, {"isnan", 1, 2}, {"isinf", 1, 2}};
/* the casts and parameter types, by their names in the language */
static const char *const pclr__mtype_names[] = {"int", "uint", "long", "ulong", "float", "double"};
static const pclr_type pclr__mtypes[] = {PCLR_INT, PCLR_UINT, PCLR_INT64, PCLR_UINT64, PCLR_FLOAT, PCLR_DOUBLE};

/* What a reduction's clause may read (a map: x, y, i and the parameters). */
enum { PCLR__MC_MAP, PCLR__MC_STATE, PCLR__MC_LIFT, PCLR__MC_MERGE, PCLR__MC_RESULT };
typedef struct pclr__mparser {
    pclr__mtree *t;
    const char *s;
    int pos, depth;
    char *why;
    size_t cap;
    pclr_result err;
    int clause;        /* PCLR__MC_*: what a name may be */
    unsigned assigned; /* the fields the clause has assigned so far (a bare name reads them) */
} pclr__mparser;

static int pclr__mrank(pclr_type t) {
    return t == PCLR_INT ? 1 : t == PCLR_UINT ? 2 : t == PCLR_INT64 ? 3 : t == PCLR_UINT64 ? 4 : t == PCLR_FLOAT ? 5 : 6;
}
/* C's usual arithmetic conversions (a long holds every uint) */
static pclr_type pclr__mcommon(pclr_type a, pclr_type b) {
    if ((a == PCLR_INT64 && b == PCLR_UINT) || (a == PCLR_UINT && b == PCLR_INT64)) return PCLR_INT64;
    return pclr__mrank(a) >= pclr__mrank(b) ? a : b;
}
static pclr_type pclr__mfloating(pclr_type t) { return t == PCLR_DOUBLE ? PCLR_DOUBLE : PCLR_FLOAT; }
static int pclr__mis_real(pclr_type t) { return t == PCLR_FLOAT || t == PCLR_DOUBLE; }

static int pclr__merr(pclr__mparser *P, int col, const char *fmt, ...) PCLR__PRINTF(3, 4);
static int pclr__merr(pclr__mparser *P, int col, const char *fmt, ...) {
    va_list ap;
    size_t len;
    if (P->err != PCLR_OK) return -1;
    P->err = PCLR_ERR_INVALID_MAP;
    if (!P->why || !P->cap) return -1;
    if (P->clause == PCLR__MC_MAP) {
        len = (size_t)snprintf(P->why, P->cap, "map, column %d: ", col);
    } else { /* a description's lines */
        int k, line = 1, start = 0;
        for (k = 0; k + 1 < col && P->s[k]; ++k) if (P->s[k] == '\n') { ++line; start = k + 1; }
        len = (size_t)snprintf(P->why, P->cap, "reduce, line %d, column %d: ", line, col - start);
    }
    if (len < P->cap) {
        va_start(ap, fmt);
        vsnprintf(P->why + len, P->cap - len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void pclr__mskip(pclr__mparser *P) {
    while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t' || P->s[P->pos] == '\n' || P->s[P->pos] == '\r') ++P->pos;
}
/* the next token is the operator op (then it is taken) */
static int pclr__maccept(pclr__mparser *P, const char *op) {
    size_t k = strlen(op);
    pclr__mskip(P);
    if (strncmp(P->s + P->pos, op, k) != 0) return 0;
    /* "<" is not the start of "<=" or "<<", "&" of "&&", "|" of "||", "!" of "!=" */
    if (k == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!' || op[0] == '=') && P->s[P->pos + 1] == '=') return 0;
    if (k == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '&' || op[0] == '|') && P->s[P->pos + 1] == op[0]) return 0;
    P->pos += (int)k;
    return 1;
}

static int pclr__mnew(pclr__mparser *P, int kind, int op, pclr_type type, int col) {
    pclr__mnode *m;
    if (P->t->count >= PCLR_MAP_MAX_LENGTH) return pclr__merr(P, col, "too many terms");
    m = &P->t->node[P->t->count];
    memset(m, 0, sizeof *m);
    m->kind = (unsigned char)kind;
    m->op = (unsigned char)op;
    m->type = (unsigned char)type;
    m->col = (short)col;
    if (type == PCLR_DOUBLE) P->t->uses_double = 1;
    return P->t->count++;
}

static int pclr__mexpr(pclr__mparser *P);

/* a number: 12, 12u, 0x1f, 2.5, 1e-4, 2.5f */
static int pclr__mnumber(pclr__mparser *P) {
    const char *s = P->s + P->pos;
    const int col = P->pos + 1;
    int k = 0, is_float = 0, hex = 0, id;
    uint64_t v = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        hex = 1;
        k = 2;
        if (!isxdigit((unsigned char)s[k])) return pclr__merr(P, col, "a hexadecimal number needs digits after 0x");
        for (; isxdigit((unsigned char)s[k]); ++k) {
            const int d = isdigit((unsigned char)s[k]) ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10;
            if (v >> 60) return pclr__merr(P, col, "the number does not fit in 64 bits");
            v = v * 16 + (uint64_t)d;
        }
    } else {
        for (; isdigit((unsigned char)s[k]); ++k) {
            const uint64_t d = (uint64_t)(s[k] - '0');
            if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
                return pclr__merr(P, col, "the number does not fit in 64 bits");
            v = v * 10 + d;
        }
        if (s[k] == '.') { is_float = 1; for (++k; isdigit((unsigned char)s[k]); ++k) {} }
        if (s[k] == 'e' || s[k] == 'E') {
            int e = k + 1;
            if (s[e] == '+' || s[e] == '-') ++e;
            if (!isdigit((unsigned char)s[e])) return pclr__merr(P, col, "an exponent needs digits");
            for (k = e; isdigit((unsigned char)s[k]); ++k) {}
            is_float = 1;
        }
        if (!is_float && k > 1 && s[0] == '0') return pclr__merr(P, col, "a number may not start with 0 (C would read it as octal)");
    }
    if (is_float) {
        char text[80], *end = NULL;
        const char *point = localeconv()->decimal_point; /* strtod reads the locale's decimal point */
        int j, m = 0;
        double d;
        if (k >= 64) return pclr__merr(P, col, "a number is at most 63 characters");
        for (j = 0; j < k; ++j) {
            if (s[j] == '.' && point && *point) { size_t pl = strlen(point); memcpy(text + m, point, pl); m += (int)pl; }
            else text[m++] = s[j];
        }
        text[m] = '\0';
        d = strtod(text, &end);
        /* (a float literal rounds to inf from FLT_MAX + half an ulp, 2^103, up) */
        if (d > DBL_MAX || ((s[k] == 'f' || s[k] == 'F') && d >= (double)FLT_MAX + 10141204801825835211973625643008.0))
            return pclr__merr(P, col, "the number is too large for its type");
        if (s[k] == 'f' || s[k] == 'F') {
            ++k;
            if (pclr__mis_ident((unsigned char)s[k])) return pclr__merr(P, col, "a number is followed by a letter");
            if ((id = pclr__mnew(P, PCLR__MN_LIT, 0, PCLR_FLOAT, col)) < 0) return -1;
            P->t->node[id].v.d = (double)(float)d;
        } else {
            if (pclr__mis_ident((unsigned char)s[k])) return pclr__merr(P, col, "a number is followed by a letter");
            if ((id = pclr__mnew(P, PCLR__MN_LIT, 0, PCLR_DOUBLE, col)) < 0) return -1;
            P->t->node[id].v.d = d;
        }
        P->pos += k;
        return id;
    } else {
        const int u = s[k] == 'u' || s[k] == 'U';
        pclr_type t;
        if (u) ++k;
        if (pclr__mis_ident((unsigned char)s[k]) || s[k] == '.') return pclr__merr(P, col, "a number is followed by '%c'", s[k]);
        if (u) t = v <= 0xffffffffu ? PCLR_UINT : PCLR_UINT64;
        else if (v <= 0x7fffffff) t = PCLR_INT;
        else if (hex && v <= 0xffffffffu) t = PCLR_UINT;
        else if (v <= (uint64_t)INT64_MAX) t = PCLR_INT64;
        else if (hex) t = PCLR_UINT64;
        else return pclr__merr(P, col, "the number does not fit in a long (write it with a u: %llu u)", (unsigned long long)v);
        if ((id = pclr__mnew(P, PCLR__MN_LIT, 0, t, col)) < 0) return -1;
        P->t->node[id].v.u = v;
        P->pos += k;
        return id;
    }
}

/* Nesting: each pair of parentheses (grouping, a call, a cast) and each prefix operator is one
   level (P->depth); the finished tree is checked too (a chain of n operators is n levels). */
static int pclr__mtoo_deep(pclr__mparser *P, int col) {
    return pclr__merr(P, col, "the expression nests deeper than %d levels (each pair of parentheses and each prefix operator is one)",
                      PCLR_MAP_MAX_DEPTH);
}

/* x or y, with a component when its elements have them */
static int pclr__minput(pclr__mparser *P, int is_y, int col) {
    const pclr_type et = is_y ? P->t->y : P->t->x;
    int comp = 4, id;
    const char *name = is_y ? "y" : "x";
    if (is_y && !et) return pclr__merr(P, col, "y names a second input: give its element type (y_type, --input2)");
    if (is_y) P->t->uses_y = 1;
    pclr__mskip(P);
    if (P->s[P->pos] == '.') {
        const char *names = "xyzwrgba", *hit;
        const char ch = P->s[P->pos + 1];
        if (!ch || pclr__mis_ident((unsigned char)P->s[P->pos + 2]) || !(hit = strchr(names, ch)) || !pclr__mis_ident((unsigned char)ch))
            return pclr__merr(P, P->pos + 1, "a component is one of .x .y .z .w or .r .g .b .a");
        comp = (int)(hit - names) % 4;
        if (P->t->comps == 1) return pclr__merr(P, P->pos + 1, "%s has one component: it takes no .%c", name, ch);
        if (comp >= P->t->comps) return pclr__merr(P, P->pos + 1, "%s has %d components: .%c is not one of them", name, P->t->comps, ch);
        P->pos += 2;
    } else if (P->t->comps > 1) {
        return pclr__merr(P, col, "%s has %d components: name one (%s.x, %s.y, ... or %s.r, %s.g, ...)", name, P->t->comps, name, name,
                          name, name);
    }
    if ((id = pclr__mnew(P, is_y ? PCLR__MN_Y : PCLR__MN_X, comp, pclr__mpromote(et), col)) < 0) return -1;
    return id;
}

/* name(arguments) of a function or cast */
static int pclr__mcall(pclr__mparser *P, const char *name, int len, int col) {
    int f, c, args[3] = {0, 0, 0}, n = 0, id;
    pclr_type t;
    for (f = 0; f < PCLR__MF_COUNT; ++f) if ((int)strlen(pclr__mfuncs[f].name) == len && !strncmp(pclr__mfuncs[f].name, name, (size_t)len)) break;
    for (c = 0; c < 6; ++c) if ((int)strlen(pclr__mtype_names[c]) == len && !strncmp(pclr__mtype_names[c], name, (size_t)len)) break;
    if (!pclr__maccept(P, "(")) return pclr__merr(P, col, "%.*s is a %s: write %.*s(...)", len, name, f < PCLR__MF_COUNT ? "function" : "cast", len, name);
    if (++P->depth > PCLR_MAP_MAX_DEPTH) return pclr__mtoo_deep(P, col);
    if (!pclr__maccept(P, ")")) {
        do {
            if (n == 3) return pclr__merr(P, col, "%.*s takes at most %d arguments", len, name, f < PCLR__MF_COUNT ? pclr__mfuncs[f].args : 1);
            if ((args[n++] = pclr__mexpr(P)) < 0) return -1;
        } while (pclr__maccept(P, ","));
        if (!pclr__maccept(P, ")")) return pclr__merr(P, P->pos + 1, "expected ')' or ',' in the arguments of %.*s", len, name);
    }
    --P->depth;
    if (f == PCLR__MF_COUNT) { /* a cast */
        if (n != 1) return pclr__merr(P, col, "the cast %.*s takes 1 argument, not %d", len, name, n);
        if ((id = pclr__mnew(P, PCLR__MN_CAST, c, pclr__mtypes[c], col)) < 0) return -1;
    } else {
        const pclr__mfunc *fn = &pclr__mfuncs[f];
        int k;
        if (n != fn->args) return pclr__merr(P, col, "%s takes %d argument%s, not %d", fn->name, fn->args, fn->args == 1 ? "" : "s", n);
        t = (pclr_type)P->t->node[args[0]].type;
        for (k = 1; k < n; ++k) t = pclr__mcommon(t, (pclr_type)P->t->node[args[k]].type);
        if (fn->kind == 1) t = pclr__mfloating(t);
        if (fn->kind == 2) t = PCLR_INT;
        if ((id = pclr__mnew(P, PCLR__MN_CALL, f, t, col)) < 0) return -1;
    }
    P->t->node[id].n = (unsigned char)n;
    for (f = 0; f < n; ++f) P->t->node[id].a[f] = (short)args[f];
    return id;
}

/* the parameter called s[0..len), or -1 */
static int pclr__mparam(const pclr__mtree *t, const char *s, int len) {
    int k;
    for (k = 0; k < t->params; ++k)
        if ((int)strlen(t->pname[k]) == len && !strncmp(t->pname[k], s, (size_t)len)) return k;
    return -1;
}

/* The named constants: inf, nan and the types' extremes, each of its type (-2: not one). */
static const char *const pclr__mconst_names[10] = {"inf", "nan", "INT_MIN", "INT_MAX", "UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "FLT_MAX", "DBL_MAX"};
static int pclr__mconst_index(const char *s, int len) {
    int k;
    for (k = 0; k < 10; ++k)
        if ((int)strlen(pclr__mconst_names[k]) == len && !strncmp(pclr__mconst_names[k], s, (size_t)len)) return k;
    return -1;
}
static int pclr__mconstant(pclr__mparser *P, const char *s, int len, int col) {
    static const pclr_type types[] = {PCLR_FLOAT, PCLR_FLOAT, PCLR_INT, PCLR_INT, PCLR_UINT, PCLR_INT64, PCLR_INT64, PCLR_UINT64, PCLR_FLOAT, PCLR_DOUBLE};
    const double inf = 1e300 * 1e300;
    const int k = pclr__mconst_index(s, len);
    int id;
    if (k < 0) return -2;
    if ((id = pclr__mnew(P, PCLR__MN_LIT, 0, types[k], col)) < 0) return -1;
    switch (k) {
    case 0: P->t->node[id].v.d = inf; break;
    case 1: P->t->node[id].v.d = inf - inf; break; /* (a quiet NaN; its sign is not kept) */
    case 2: P->t->node[id].v.u = (uint64_t)(int64_t)INT32_MIN; break;
    case 3: P->t->node[id].v.u = INT32_MAX; break;
    case 4: P->t->node[id].v.u = UINT32_MAX; break;
    case 5: P->t->node[id].v.u = (uint64_t)INT64_MIN; break;
    case 6: P->t->node[id].v.u = INT64_MAX; break;
    case 7: P->t->node[id].v.u = UINT64_MAX; break;
    case 8: P->t->node[id].v.d = FLT_MAX; break;
    default: P->t->node[id].v.d = DBL_MAX; break;
    }
    return id;
}

/* The field called s[0..len) of a reduction, alone (the clause's own, assigned already) or as a.f / b.f
   in merge (-2: not a field's name). */
static int pclr__mfield(pclr__mparser *P, const char *s, int len, int col) {
    const pclr__mtree *t = P->t;
    int side = PCLR__MS_SELF, f, id;
    if (len == 1 && (s[0] == 'a' || s[0] == 'b') && P->s[P->pos] == '.') {
        const char *q = P->s + P->pos + 1;
        if (P->clause != PCLR__MC_MERGE) return pclr__merr(P, col, "%c.FIELD is read in merge only (a: the earlier elements' state, b: the later ones')", s[0]);
        side = s[0] == 'a' ? PCLR__MS_A : PCLR__MS_B;
        for (len = 0; pclr__mis_ident((unsigned char)q[len]); ++len) {}
        s = q;
        col = P->pos + 2;
        P->pos += 1 + len;
    }
    for (f = 0; f < t->fields; ++f)
        if ((int)strlen(t->fname[f]) == len && !strncmp(t->fname[f], s, (size_t)len)) break;
    if (f == t->fields) return side == PCLR__MS_SELF ? -2 : pclr__merr(P, col, "'%.*s' is not a field of the state", len > 32 ? 32 : len, s);
    if (P->clause == PCLR__MC_STATE) return pclr__merr(P, col, "an identity is a constant: it reads no field");
    if (side == PCLR__MS_SELF && P->clause != PCLR__MC_RESULT && !(P->assigned >> f & 1))
        return pclr__merr(P, col, "%s is not assigned yet in this clause (a bare field name reads the value assigned before it%s)", t->fname[f],
                          P->clause == PCLR__MC_MERGE ? "; a.FIELD and b.FIELD read the two states" : "");
    if ((id = pclr__mnew(P, PCLR__MN_FIELD, f, t->ftype[f], col)) < 0) return -1;
    P->t->node[id].v.u = (uint64_t)side;
    return id;
}

static int pclr__mprimary(pclr__mparser *P) {
    int col, id, len, k;
    const char *s;
    pclr__mskip(P);
    col = P->pos + 1;
    s = P->s + P->pos;
    if (isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) return pclr__mnumber(P);
    if (s[0] == '(') {
        ++P->pos;
        if (++P->depth > PCLR_MAP_MAX_DEPTH) return pclr__mtoo_deep(P, col);
        if ((id = pclr__mexpr(P)) < 0) return -1;
        if (!pclr__maccept(P, ")")) return pclr__merr(P, P->pos + 1, "expected ')' (the '(' at column %d is not closed)", col);
        --P->depth;
        return id;
    }
    if (!pclr__mis_ident((unsigned char)s[0])) {
        if (!s[0]) return pclr__merr(P, col, "the expression ends where a value is expected");
        return pclr__merr(P, col, "expected a value, found '%c'", s[0]);
    }
    for (len = 0; pclr__mis_ident((unsigned char)s[len]); ++len) {}
    P->pos += len;
    if ((id = pclr__mconstant(P, s, len, col)) != -2) return id;
    if (P->clause != PCLR__MC_MAP && (id = pclr__mfield(P, s, len, col)) != -2) return id;
    if (P->clause != PCLR__MC_MAP && P->clause != PCLR__MC_LIFT && ((len == 1 && strchr("xyi", s[0])) || pclr__mparam(P->t, s, len) >= 0))
        return pclr__merr(P, col, "%.*s is an input: only lift reads the inputs and parameters", len > 32 ? 32 : len, s);
    if (len == 1 && (s[0] == 'x' || s[0] == 'y')) return pclr__minput(P, s[0] == 'y', col);
    if (len == 1 && s[0] == 'i') return pclr__mnew(P, PCLR__MN_I, 0, PCLR_UINT64, col);
    if ((k = pclr__mparam(P->t, s, len)) >= 0) return pclr__mnew(P, PCLR__MN_PARAM, k, P->t->param[k], col);
    for (k = 0; k < PCLR__MF_COUNT; ++k)
        if ((int)strlen(pclr__mfuncs[k].name) == len && !strncmp(pclr__mfuncs[k].name, s, (size_t)len)) return pclr__mcall(P, s, len, col);
    for (k = 0; k < 6; ++k)
        if ((int)strlen(pclr__mtype_names[k]) == len && !strncmp(pclr__mtype_names[k], s, (size_t)len)) return pclr__mcall(P, s, len, col);
    if (P->clause != PCLR__MC_MAP)
        return pclr__merr(P, col, "unknown name '%.*s' (not a field, input, parameter, function, type or constant)", len > 32 ? 32 : len, s);
    return pclr__merr(P, col, "unknown name '%.*s' (the inputs are x, y and i; parameters are declared in params)", len > 32 ? 32 : len, s);
}

static int pclr__mpostfix(pclr__mparser *P) {
    int id = pclr__mprimary(P);
    if (id < 0) return -1;
    pclr__mskip(P);
    if (P->s[P->pos] == '.') return pclr__merr(P, P->pos + 1, "a component (.x, .r, ...) follows only x or y");
    return id;
}

static int pclr__munary(pclr__mparser *P) {
    int col, a, id, op;
    pclr__mskip(P);
    col = P->pos + 1;
    if (pclr__maccept(P, "-")) op = '-';
    else if (pclr__maccept(P, "!")) op = '!';
    else if (pclr__maccept(P, "~")) op = '~';
    else if (pclr__maccept(P, "+")) op = '+';
    else return pclr__mpostfix(P);
    if (++P->depth > PCLR_MAP_MAX_DEPTH) return pclr__mtoo_deep(P, col);
    if ((a = pclr__munary(P)) < 0) return -1;
    --P->depth;
    if (op == '+') return a;
    if (op == '~' && pclr__mis_real((pclr_type)P->t->node[a].type))
        return pclr__merr(P, col, "'~' is for integers, and its operand is %s", P->t->node[a].type == PCLR_DOUBLE ? "double" : "float");
    if ((id = pclr__mnew(P, op == '-' ? PCLR__MN_NEG : op == '~' ? PCLR__MN_BNOT : PCLR__MN_NOT, 0,
                         op == '!' ? PCLR_INT : (pclr_type)P->t->node[a].type, col)) < 0) return -1;
    P->t->node[id].n = 1;
    P->t->node[id].a[0] = (short)a;
    return id;
}

static int pclr__mbinary_node(pclr__mparser *P, int op, int a, int b, int col) {
    const pclr_type ta = (pclr_type)P->t->node[a].type, tb = (pclr_type)P->t->node[b].type;
    /* (a shift has its left operand's type: C's, of the promoted operand) */
    const pclr_type t = op >= PCLR__MB_LT ? PCLR_INT : op == PCLR__MB_SHL || op == PCLR__MB_SHR ? ta : pclr__mcommon(ta, tb);
    int id;
    if (PCLR__MB_BITWISE(op) && (pclr__mis_real(ta) || pclr__mis_real(tb)))
        return pclr__merr(P, col, "'%s' is for integers, and its %s operand is %s", pclr__mbin_text[op], pclr__mis_real(ta) ? "left" : "right",
                          (pclr__mis_real(ta) ? ta : tb) == PCLR_DOUBLE ? "double" : "float");
    if ((id = pclr__mnew(P, PCLR__MN_BIN, op, t, col)) < 0) return -1;
    P->t->node[id].n = 2;
    P->t->node[id].a[0] = (short)a;
    P->t->node[id].a[1] = (short)b;
    return id;
}

/* one precedence level of left-associative binary operators: ops[] (longest first), next level */
static int pclr__mlevel(pclr__mparser *P, int level);
static int pclr__mlevel(pclr__mparser *P, int level) {
    /* C's precedence, lowest first */
    static const char *const ops[10][4] = {{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"},
                                           {"+", "-"}, {"*", "/", "%"}};
    static const int codes[10][4] = {{PCLR__MB_OR}, {PCLR__MB_AND}, {PCLR__MB_BOR}, {PCLR__MB_BXOR}, {PCLR__MB_BAND}, {PCLR__MB_EQ, PCLR__MB_NE},
                                     {PCLR__MB_LE, PCLR__MB_GE, PCLR__MB_LT, PCLR__MB_GT}, {PCLR__MB_SHL, PCLR__MB_SHR},
                                     {PCLR__MB_ADD, PCLR__MB_SUB}, {PCLR__MB_MUL, PCLR__MB_DIV, PCLR__MB_MOD}};
    const int last = 9;
    int a = level == last ? pclr__munary(P) : pclr__mlevel(P, level + 1), k, col;
    while (a >= 0) {
        pclr__mskip(P);
        col = P->pos + 1;
        for (k = 0; k < 4 && ops[level][k]; ++k) if (pclr__maccept(P, ops[level][k])) break;
        if (k == 4 || !ops[level][k]) return a;
        {
            const int b = level == last ? pclr__munary(P) : pclr__mlevel(P, level + 1);
            if (b < 0) return -1;
            a = pclr__mbinary_node(P, codes[level][k], a, b, col);
        }
    }
    return a;
}

static int pclr__mexpr(pclr__mparser *P) {
    int c, a, b, id, col;
    if ((c = pclr__mlevel(P, 0)) < 0) return -1;
    pclr__mskip(P);
    col = P->pos + 1;
    if (pclr__maccept(P, "?")) {
        if ((a = pclr__mexpr(P)) < 0) return -1;
        if (!pclr__maccept(P, ":")) return pclr__merr(P, P->pos + 1, "expected ':' of the '?' at column %d", col);
        if ((b = pclr__mexpr(P)) < 0) return -1;
        if ((id = pclr__mnew(P, PCLR__MN_COND, 0, pclr__mcommon((pclr_type)P->t->node[a].type, (pclr_type)P->t->node[b].type), col)) < 0)
            return -1;
        P->t->node[id].n = 3;
        P->t->node[id].a[0] = (short)c;
        P->t->node[id].a[1] = (short)a;
        P->t->node[id].a[2] = (short)b;
        c = id;
    }
    return c;
}

/* Characters no expression has: said before parsing, with what they would have been. */
static int pclr__mscan(pclr__mparser *P, const char *s, const char *what) {
    const char *in = strcmp(what, "params") ? "" : "params: ";
    const int reduce = !strcmp(what, "the reduction"), most = reduce ? PCLR_REDUCE_MAX_LENGTH : PCLR_MAP_MAX_LENGTH;
    int k;
    for (k = 0; s[k]; ++k) {
        const unsigned char ch = (unsigned char)s[k];
        if (k >= most) return pclr__merr(P, k + 1, "%s is longer than %d characters", what, most);
        if (pclr__mis_ident(ch) || strchr(" \t\r\n.+-*%<>=!&|^~?:(),", ch) || (reduce && ch == ';')) continue;
        if (ch == '/') {
            if (s[k + 1] == '/' || s[k + 1] == '*') return pclr__merr(P, k + 1, "%scomments are not allowed", in);
            continue;
        }
        if (ch == ';') return pclr__merr(P, k + 1, "%s';' is not allowed: a map is one expression", in);
        if (ch == '{' || ch == '}') return pclr__merr(P, k + 1, "%sbraces are not allowed: a map is one expression", in);
        if (ch == '#') return pclr__merr(P, k + 1, "%s'#' is not allowed (no preprocessor)", in);
        if (ch == '\\') return pclr__merr(P, k + 1, "%sbackslashes are not allowed", in);
        if (ch == '"' || ch == '\'') return pclr__merr(P, k + 1, "%sstring and character literals are not allowed", in);
        if (ch >= 0x21 && ch < 0x7f) return pclr__merr(P, k + 1, "%s'%c' is not allowed", in, ch);
        return pclr__merr(P, k + 1, "%sbyte 0x%02x is not allowed", in, ch);
    }
    return 0;
}

/* "float t, int k": the parameters' types and names */
static int pclr__mparams(pclr__mparser *P, const char *s) {
    pclr__mtree *t = P->t;
    int k = 0;
    t->params = 0;
    if (!s) return 0;
    for (;;) {
        int col, len, tl, ty, j, ok;
        while (s[k] == ' ' || s[k] == '\t' || s[k] == ',') ++k;
        if (!s[k]) return 0;
        col = k + 1;
        if (k >= PCLR_MAP_MAX_LENGTH) return pclr__merr(P, col, "params is longer than %d characters", PCLR_MAP_MAX_LENGTH);
        for (tl = 0; pclr__mis_ident((unsigned char)s[k + tl]); ++tl) {}
        for (ty = 0; ty < 6; ++ty) if ((int)strlen(pclr__mtype_names[ty]) == tl && !strncmp(pclr__mtype_names[ty], s + k, (size_t)tl)) break;
        if (ty == 6) return pclr__merr(P, col, "params: a parameter starts with its type: int, uint, long, ulong, float or double");
        if (t->params == PCLR_MAP_MAX_PARAMS) return pclr__merr(P, col, "params: at most %d parameters", PCLR_MAP_MAX_PARAMS);
        k += tl;
        while (s[k] == ' ' || s[k] == '\t') ++k;
        col = k + 1;
        for (len = 0; pclr__mis_ident((unsigned char)s[k + len]); ++len) {}
        if (!len || isdigit((unsigned char)s[k])) return pclr__merr(P, col, "params: a name follows the type");
        if (len > 31) return pclr__merr(P, col, "params: a name is at most 31 characters");
        ok = !(len == 1 && (s[k] == 'x' || s[k] == 'y' || s[k] == 'i'));
        for (j = 0; ok && j < PCLR__MF_COUNT; ++j) ok = !((int)strlen(pclr__mfuncs[j].name) == len && !strncmp(pclr__mfuncs[j].name, s + k, (size_t)len));
        for (j = 0; ok && j < 6; ++j) ok = !((int)strlen(pclr__mtype_names[j]) == len && !strncmp(pclr__mtype_names[j], s + k, (size_t)len));
        for (j = 0; ok && j < t->params; ++j) ok = !((int)strlen(t->pname[j]) == len && !strncmp(t->pname[j], s + k, (size_t)len));
        ok = ok && pclr__mconst_index(s + k, len) < 0;
        if (!ok) return pclr__merr(P, col, "params: '%.*s' is taken (an input, a function, a type, a constant or an earlier parameter)", len, s + k);
        t->param[t->params] = pclr__mtypes[ty];
        if (pclr__mtypes[ty] == PCLR_DOUBLE) t->uses_double = 1;
        memcpy(t->pname[t->params], s + k, (size_t)len);
        t->pname[t->params++][len] = '\0';
        k += len;
        if (s[k] && s[k] != ',' && s[k] != ' ' && s[k] != '\t') return pclr__merr(P, k + 1, "params: '%c' is not allowed", s[k]);
    }
}

/* The tree's depth (a chain of n operators is n deep): compilers limit nested parentheses. */
static int pclr__mdepth_ok(pclr__mparser *P) {
    const pclr__mtree *t = P->t;
    unsigned char depth[PCLR_MAP_MAX_LENGTH];
    int k, a;
    for (k = 0; k < t->count; ++k) {
        depth[k] = 1;
        for (a = 0; a < t->node[k].n; ++a)
            if (depth[t->node[k].a[a]] + 1 > depth[k]) depth[k] = (unsigned char)(depth[t->node[k].a[a]] + 1);
        if (depth[k] > PCLR_MAP_MAX_DEPTH + 1) /* a value is level 0 */
            return pclr__merr(P, t->node[k].col, "the expression nests deeper than %d levels (a chain of n operators is n levels)", PCLR_MAP_MAX_DEPTH);
    }
    return 0;
}

/* The name at the parser's position, skipping blanks (its length; 0: none). */
static int pclr__mname(pclr__mparser *P, const char **name) {
    int len;
    pclr__mskip(P);
    *name = P->s + P->pos;
    for (len = 0; pclr__mis_ident((unsigned char)(*name)[len]); ++len) {}
    if (len && isdigit((unsigned char)(*name)[0])) return 0;
    P->pos += len;
    return len;
}

/* A new field's name: not an input, a, b, a function, a type, a constant, a clause's word, a parameter or
   an earlier field. */
static int pclr__mfield_name_ok(pclr__mparser *P, const char *s, int len, int col) {
    static const char *const taken[] = {"x", "y", "i", "a", "b", "state", "lift", "merge", "result"};
    int k, ok = len > 0 && len < 32;
    if (!len) return pclr__merr(P, col, "a field's name is expected here");
    if (len >= 32) return pclr__merr(P, col, "a field's name is at most 31 characters");
    for (k = 0; ok && k < (int)(sizeof taken / sizeof taken[0]); ++k) ok = !((int)strlen(taken[k]) == len && !strncmp(taken[k], s, (size_t)len));
    for (k = 0; ok && k < PCLR__MF_COUNT; ++k) ok = !((int)strlen(pclr__mfuncs[k].name) == len && !strncmp(pclr__mfuncs[k].name, s, (size_t)len));
    for (k = 0; ok && k < 6; ++k) ok = !((int)strlen(pclr__mtype_names[k]) == len && !strncmp(pclr__mtype_names[k], s, (size_t)len));
    for (k = 0; ok && k < P->t->fields; ++k) ok = !((int)strlen(P->t->fname[k]) == len && !strncmp(P->t->fname[k], s, (size_t)len));
    ok = ok && pclr__mparam(P->t, s, len) < 0 && pclr__mconst_index(s, len) < 0;
    return ok ? 0 : pclr__merr(P, col, "'%.*s' is taken (an input, a, b, a function, a type, a constant, a clause, a parameter or an earlier field)", len, s);
}

/* A reduction's description (op custom), its clauses apart by ';' or a line break (each starts with its
   word): "state f: TYPE = IDENTITY, ..." first, then "lift f = EXPR, ...", "merge f = EXPR, ..." and
   "result EXPR, ..." once each. Merge assigns every field; a field lift does not assign takes its identity. */
static int pclr__reduce_clauses(pclr__mparser *P) {
    static const char *const words[4] = {"state", "lift", "merge", "result"};
    pclr__mtree *t = P->t;
    unsigned seen = 0;
    int k;
    P->clause = PCLR__MC_STATE; /* (its sentences say "reduce, line L, column C") */
    for (;;) {
        const char *w;
        int len, col, clause, end;
        while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t' || P->s[P->pos] == '\r' || P->s[P->pos] == '\n' || P->s[P->pos] == ';') ++P->pos;
        if (!P->s[P->pos]) break;
        col = P->pos + 1;
        len = pclr__mname(P, &w);
        for (clause = 0; clause < 4 && !((int)strlen(words[clause]) == len && !strncmp(words[clause], w, (size_t)len)); ++clause) {}
        if (clause == 4) {
            if (!len) return pclr__merr(P, col, "expected a clause: state, lift, merge or result (found '%c')", P->s[P->pos]);
            return pclr__merr(P, col, "expected a clause: state, lift, merge or result (found '%.*s')", len > 32 ? 32 : len, w);
        }
        if (seen >> clause & 1) return pclr__merr(P, col, "a second %s clause", words[clause]);
        if (clause && !(seen & 1)) return pclr__merr(P, col, "the state clause comes first: it declares the fields");
        seen |= 1u << clause;
        P->clause = PCLR__MC_STATE + clause;
        P->assigned = 0;
        do {
            const char *name;
            int f, root;
            col = P->pos + 1;
            if (clause == 3) { /* result */
                if (t->results == PCLR_CUSTOM_MAX) return pclr__merr(P, col, "at most %d results", PCLR_CUSTOM_MAX);
                if ((root = pclr__mexpr(P)) < 0) return -1;
                t->result[t->results++] = (short)root;
                continue;
            }
            pclr__mskip(P);
            col = P->pos + 1;
            len = pclr__mname(P, &name);
            if (clause == 0) { /* f: TYPE = IDENTITY */
                const char *ty;
                int tl, j;
                if (t->fields == PCLR_CUSTOM_MAX) return pclr__merr(P, col, "at most %d fields", PCLR_CUSTOM_MAX);
                if (pclr__mfield_name_ok(P, name, len, col) < 0) return -1;
                if (!pclr__maccept(P, ":")) return pclr__merr(P, P->pos + 1, "expected ':' and the field's type after its name");
                pclr__mskip(P);
                col = P->pos + 1;
                tl = pclr__mname(P, &ty);
                for (j = 0; j < 6 && !((int)strlen(pclr__mtype_names[j]) == tl && !strncmp(pclr__mtype_names[j], ty, (size_t)tl)); ++j) {}
                if (j == 6) return pclr__merr(P, col, "a field's type is int, uint, long, ulong, float or double");
                f = t->fields++;
                memcpy(t->fname[f], name, (size_t)len);
                t->fname[f][len] = '\0';
                t->ftype[f] = pclr__mtypes[j];
                if (t->ftype[f] == PCLR_DOUBLE) t->uses_double = 1;
                if (!pclr__maccept(P, "=")) return pclr__merr(P, P->pos + 1, "expected '=' and the field's identity after its type");
                if ((root = pclr__mexpr(P)) < 0) return -1;
                t->identity[f] = (short)root;
                continue;
            }
            for (f = 0; f < t->fields && !((int)strlen(t->fname[f]) == len && !strncmp(t->fname[f], name, (size_t)len)); ++f) {}
            if (f == t->fields) return pclr__merr(P, col, len ? "'%.*s' is not a field of the state" : "a field's name is expected here%.*s", len, name);
            if (P->assigned >> f & 1) return pclr__merr(P, col, "%s is assigned twice", t->fname[f]);
            if (!pclr__maccept(P, "=")) return pclr__merr(P, P->pos + 1, "expected '=' after the field's name");
            if ((root = pclr__mexpr(P)) < 0) return -1;
            P->assigned |= 1u << f;
            if (clause == 1) { t->lift[t->lifts][0] = (short)f; t->lift[t->lifts++][1] = (short)root; }
            else { t->merge[t->merges][0] = (short)f; t->merge[t->merges++][1] = (short)root; }
        } while (pclr__maccept(P, ","));
        /* a clause ends at ';', a line break or the end (the expression took the blanks after it) */
        for (end = P->pos; end > 0 && strchr(" \t\r\n", P->s[end - 1]) && P->s[end - 1] != '\n'; --end) {}
        if (P->s[P->pos] && P->s[P->pos] != ';' && !(end > 0 && P->s[end - 1] == '\n'))
            return pclr__merr(P, P->pos + 1, "the %s clause ends at ';' or a line break (found '%c')", words[clause], P->s[P->pos]);
        if (clause == 2)
            for (k = 0; k < t->fields; ++k)
                if (!(P->assigned >> k & 1)) return pclr__merr(P, P->pos + 1, "merge assigns every field: %s is missing", t->fname[k]);
    }
    for (k = 0; k < 4; ++k)
        if (!(seen >> k & 1)) return pclr__merr(P, P->pos + 1, "the description has no %s clause (state, lift, merge and result)", words[k]);
    return 0;
}

/* Parses and checks cfg's map into *t (the caller's; about 24 KB). PCLR_OK
   for a config without a map (t->count = 0). */
static pclr_result pclr__map_parse_text(const pclr_config *c, pclr__mtree *t, char *why, size_t cap) {
    pclr__mparser P;
    const int has_map = c->map && c->map[0];
    memset(&P, 0, sizeof P);
    P.t = t;
    P.why = why;
    P.cap = cap;
    if (why && cap) why[0] = '\0';
    t->count = 0;
    t->root = -1;
    t->uses_y = t->uses_double = 0;
    t->params = 0;
    t->x = c->type ? c->type : PCLR_FLOAT;
    t->y = c->y_type;
    t->comps = c->components ? c->components : 1;
    t->type = PCLR_TYPE_DEFAULT;
    t->fields = t->lifts = t->merges = t->results = 0;
    if ((int)t->x < 0 || t->x >= PCLR_TYPE_COUNT_ || (int)t->y < 0 || t->y >= PCLR_TYPE_COUNT_ || (int)c->map_type < 0 ||
        c->map_type >= PCLR_TYPE_COUNT_) {
        if (why && cap) snprintf(why, cap, "type, y_type and map_type must be valid element types");
        return PCLR_ERR_INVALID_ENUM;
    }
    if (c->op == PCLR_CUSTOM || (c->reduce && c->reduce[0])) { /* a reduction's description: its lift is the map */
        const char *no = c->op != PCLR_CUSTOM ? "reduce describes a reduction of op custom: set op to custom (or leave reduce empty)"
                       : !c->reduce || !c->reduce[0] ? "op custom reduces as reduce describes: give the description"
                       : has_map ? "a reduction's lift reads x, y, i and the parameters as a map does: write the map's expression in lift (no map)"
                       : c->map_type ? "map_type belongs to a map: a reduction's fields have their own types" : NULL;
        if (no) {
            if (why && cap) snprintf(why, cap, "%s", no);
            return PCLR_ERR_INVALID_MAP;
        }
        if (t->comps != 1 && t->comps != 2 && t->comps != 4) {
            if (why && cap) snprintf(why, cap, "components must be 1, 2 or 4");
            return PCLR_ERR_INVALID_MAP;
        }
        P.clause = PCLR__MC_STATE; /* (the sentences' places are lines and columns) */
        P.s = c->reduce;
        if (pclr__mscan(&P, c->reduce, "the reduction") < 0) return P.err;
        P.clause = PCLR__MC_MAP;
        if (c->params && pclr__mscan(&P, c->params, "params") < 0) return P.err;
        if (pclr__mparams(&P, c->params) < 0) return P.err;
        P.s = c->reduce;
        if (pclr__reduce_clauses(&P) < 0 || pclr__mdepth_ok(&P) < 0) return P.err;
        t->type = pclr__mpromote(t->x); /* (what the op's value type would be: no op reads it) */
        if (t->x == PCLR_DOUBLE || t->y == PCLR_DOUBLE) t->uses_double = 1;
        return PCLR_OK;
    }
    if (!has_map) {
        if (c->y_type || (c->params && c->params[0]) || c->map_type || (c->components && c->components != 1)) {
            if (why && cap) snprintf(why, cap, "y_type, params, map_type and components belong to a map: set map too");
            return PCLR_ERR_INVALID_MAP;
        }
        return PCLR_OK;
    }
    if (t->comps != 1 && t->comps != 2 && t->comps != 4) {
        if (why && cap) snprintf(why, cap, "components must be 1, 2 or 4");
        return PCLR_ERR_INVALID_MAP;
    }
    if (c->map_type && c->map_type != PCLR_INT && c->map_type != PCLR_UINT && c->map_type != PCLR_INT64 &&
        c->map_type != PCLR_UINT64 && c->map_type != PCLR_FLOAT && c->map_type != PCLR_DOUBLE) {
        if (why && cap) snprintf(why, cap, "map_type must be int, uint, int64, uint64, float or double");
        return PCLR_ERR_INVALID_MAP;
    }
    if (pclr__mscan(&P, c->map, "the map") < 0) return P.err;
    if (c->params && pclr__mscan(&P, c->params, "params") < 0) return P.err;
    if (pclr__mparams(&P, c->params) < 0) return P.err;
    P.s = c->map;
    if ((t->root = pclr__mexpr(&P)) < 0) return P.err;
    pclr__mskip(&P);
    if (c->map[P.pos]) {
        pclr__merr(&P, P.pos + 1, "unexpected '%c' after a whole expression", c->map[P.pos]);
        return P.err;
    }
    if (pclr__mdepth_ok(&P) < 0) return P.err;
    t->type = c->map_type ? c->map_type : (pclr_type)t->node[t->root].type;
    if (t->type == PCLR_DOUBLE || t->x == PCLR_DOUBLE || t->y == PCLR_DOUBLE) t->uses_double = 1;
    return PCLR_OK;
}
/* A histogram's value is its map's, or the element itself: the map "x" (so that every dialect reads its
   elements, pixels and y as a map's). */
static pclr_result pclr__map_parse(const pclr_config *c, pclr__mtree *t, char *why, size_t cap) {
    if (c->op == PCLR_HISTOGRAM && !(c->map && c->map[0])) {
        pclr_config x = *c;
        x.map = "x";
        return pclr__map_parse_text(&x, t, why, cap);
    }
    return pclr__map_parse_text(c, t, why, cap);
}
#else /* PCLREDUCE_NO_MAP: a config without a map passes; any map field is refused */
static pclr_result pclr__map_parse(const pclr_config *c, pclr__mtree *t, char *why, size_t cap) {
    const int has_map = (c->map && c->map[0]) || c->y_type || (c->params && c->params[0]) || c->map_type ||
                        (c->components && c->components != 1) || c->op == PCLR_CUSTOM || c->op == PCLR_HISTOGRAM ||
                        (c->reduce && c->reduce[0]); /* (a histogram reads its elements as a map does) */
    if (why && cap) why[0] = '\0';
    t->count = t->params = t->uses_y = t->uses_double = 0;
    t->fields = t->lifts = t->merges = t->results = 0;
    t->root = -1;
    t->y = t->type = PCLR_TYPE_DEFAULT;
    if ((int)c->type < 0 || c->type >= PCLR_TYPE_COUNT_ || (int)c->y_type < 0 || c->y_type >= PCLR_TYPE_COUNT_ ||
        (int)c->map_type < 0 || c->map_type >= PCLR_TYPE_COUNT_) {
        if (why && cap) snprintf(why, cap, "type, y_type and map_type must be valid element types");
        return PCLR_ERR_INVALID_ENUM;
    }
    t->x = c->type ? c->type : PCLR_FLOAT;
    t->comps = 1;
    if (!has_map) return PCLR_OK;
    if (why && cap) snprintf(why, cap, "%s", PCLR__NO_MAP_WHY);
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
#endif /* PCLREDUCE_NO_MAP */

static pclr_result pclr__reduce_verify(const pclr__mtree *t, char *why, size_t cap, int *commutes);
PCLR_API pclr_result pclr_map_check(const pclr_config *cfg, char *why, size_t cap) {
    pclr__mtree t;
    pclr_result r;
    if (!cfg) {
        if (why && cap) snprintf(why, cap, "config pointer is NULL");
        return PCLR_ERR_NULL_POINTER;
    }
    r = pclr__map_parse(cfg, &t, why, cap);
    return r == PCLR_OK && t.fields ? pclr__reduce_verify(&t, why, cap, NULL) : r; /* (a reduction: its merge checked too) */
}

/* ------------------------------------------------------------ the op's state  >>state
   What a work-item carries while it reduces, field by field (each field one
   of the 32/64-bit compute types, named by its pclr_type). The kernel
   declares it as a typedef (one field) or a struct (several); the host reads
   it back with the same offsets (natural alignment, as C, OpenCL C and CUDA
   lay out a struct) and finalizes it into the result. */
typedef struct pclr__field { char name[40]; pclr_type type; } pclr__field;
typedef struct pclr__layout {
    pclr_type value, sum, moment; /* the compute types: values, sums, stats' moments */
    pclr_type shift;              /* stats' shift: the value type for 64-bit integers, else the moment type */
    int count;                    /* fields */
    pclr__field field[8];
    size_t offset[8], size;       /* byte offsets, and the size with padding */
} pclr__layout;

/* >>ops The built-in ops as data. An op is its state's fields (each with a role: the value, sum or
   moment compute type, a 64-bit count or index, or a 32-bit flag) and its functions in one dialect-neutral text that
   each dialect's writer spells (pclr__gen_op_text): statements on a state s (identity, lift: s from
   the value x), on a and b (merge: b into a), on a and the value x at index i (fold: one element), or
   on a and k values from x on (count: stats count a load once). The text is C-like; what differs
   between dialects is written one way: casts function-style (pclr_m(x)), isnan(x), bool, PCLR_HI /
   PCLR_LO (the value type's largest and smallest values), PCLR_NO_INDEX (an arg op's "no index yet"),
   `precise ` before a declaration (GLSL's qualifier against reassociation; the C dialects drop it),
   and the helpers the writer defines beside the state: pclr_add and pclr_mul (the sum type's addition and
   multiplication; integers wrap),
   pclr_min / pclr_max (NaN propagates, -0 before +0), PCLR_KBN (Neumaier's step) and pclr_diff (stats:
   x - h in the moment type pclr_m, of two values of the shift type pclr_h; pclr__gen_diff). An op with a
   lift merges its lifted elements (a load's as a small tree); one without folds element by element
   (cheaper than its merge: compensated sums, stats, arg ops). */
enum { PCLR__R_VALUE = 1, PCLR__R_SUM, PCLR__R_MOMENT, PCLR__R_U64, PCLR__R_SHIFT, PCLR__R_U32 };
typedef struct pclr__op_field { const char *name; int role; } pclr__op_field;
typedef struct pclr__op_def {
    pclr_op op;
    int compensated;         /* the compensated accumulator's entry (sum, stats) */
    int nan;                 /* 1: float values only, 0: integer values only, -1: any */
    pclr__op_field field[8]; /* the state's fields, in order */
    const char *identity, *lift, *count, *fold, *merge;
    const char *about;       /* what merge and fold do, or NULL */
    const char *load_wins;   /* an integer arg op's: whether a load whose least value is lo and greatest hi can
                                change state a (its fold sees a load's elements only where it can), or NULL */
} pclr__op_def;

#define PCLR__OP_ARG_ABOUT "b wins with the better value; ties go to the smaller index. A work-item meets its elements\n" \
    "   in index order: a strictly better value wins its fold, and any element beats the identity (no index yet)"
#define PCLR__OP_ARG_ABOUT_NAN "b wins with the better value; ties go to the smaller index; a NaN beats any number and\n" \
    "   the first NaN wins (NumPy). A work-item meets its elements in index order: a strictly better value\n" \
    "   (or the first NaN) wins its fold, and any element beats the identity (no index yet)"
/* An arg op's fold and merge on the value field v and index field i (argminmax: twice, lo/il and hi/ih) */
#define PCLR__OP_ARG_FOLD(v, i, better) "if (x " better " a." v " || a." i " == PCLR_NO_INDEX) { a." v " = x; a." i " = i; }\n"
#define PCLR__OP_ARG_MERGE(v, i, better, win) \
    "const bool " win " = b." v " " better " a." v " || (b." v " == a." v " && b." i " < a." i ");\n" \
    "if (" win ") { a." v " = b." v "; a." i " = b." i "; }\n"
#define PCLR__OP_ARG_FOLD_NAN(v, i, better) \
    "if (x " better " a." v " || (isnan(x) && !isnan(a." v ")) || a." i " == PCLR_NO_INDEX) { a." v " = x; a." i " = i; }\n"
#define PCLR__OP_ARG_MERGE_NAN(v, i, better, win) \
    "const bool " win " = isnan(b." v ") ? (!isnan(a." v ") || b." i " < a." i ")\n" \
    "                               : (!isnan(a." v ") && (b." v " " better " a." v " || (b." v " == a." v " && b." i " < a." i ")));\n" \
    "if (" win ") { a." v " = b." v "; a." i " = b." i "; }\n"
#define PCLR__OP_ARG(op, better, worst, best) \
    {op, 0, 0, {{"i", PCLR__R_U64}, {"v", PCLR__R_VALUE}}, "s.i = PCLR_NO_INDEX;\ns.v = " worst ";\n", NULL, NULL, \
     PCLR__OP_ARG_FOLD("v", "i", better), PCLR__OP_ARG_MERGE("v", "i", better, "b_wins"), PCLR__OP_ARG_ABOUT, \
     best " " better " a.v || a.i == PCLR_NO_INDEX"}, \
    {op, 0, 1, {{"i", PCLR__R_U64}, {"v", PCLR__R_VALUE}}, "s.i = PCLR_NO_INDEX;\ns.v = " worst ";\n", NULL, NULL, \
     PCLR__OP_ARG_FOLD_NAN("v", "i", better), PCLR__OP_ARG_MERGE_NAN("v", "i", better, "b_wins"), PCLR__OP_ARG_ABOUT_NAN, NULL}
/* argminmax: argmin's fields lo (il), argmax's hi (ih), each folded and merged as its arg op's */
#define PCLR__OP_ARGMINMAX_FIELDS {{"il", PCLR__R_U64}, {"ih", PCLR__R_U64}, {"lo", PCLR__R_VALUE}, {"hi", PCLR__R_VALUE}}
#define PCLR__OP_ARGMINMAX_IDENTITY "s.il = PCLR_NO_INDEX;\ns.ih = PCLR_NO_INDEX;\ns.lo = PCLR_HI;\ns.hi = PCLR_LO;\n"

/* stats: the count, sum, min, max, and the moments about a shift h: d1 = sum (x - h), m2 = sum (x - h)^2
   (pclr_diff(x, h): x - h in the moment type; 64-bit integers subtract exactly on their unsigned bits and
   shift in their own type, pclr_h). A work-item's shift is the first value it meets. Integers merge by
   moving b's moments onto a's shift, with no division: while the data's n (max - min)^2 stays below
   2^50 every value is an integer below 2^53, exact, and the state the same on every backend and tree;
   the host finalizes it exactly (pclr__stats_int). Floats merge by Chan et al.'s formula (the two
   parts' centered M2 and the difference of their means, taken as the difference of the shifts plus that
   of the offsets d1 / n, never as shift + offset in the working precision), then move the shift to the
   working-precision value nearest the mean: s = h + c, and the remainder r = c - (s - h) (exact, Fast2Sum)
   stays in d1 = n r, so the moments stay about a point within half an ulp of the mean. */
#define PCLR__OP_STATS_IDENTITY "s.lo = PCLR_HI;\ns.hi = PCLR_LO;\ns.shift = pclr_h(0);\ns.d1 = pclr_m(0);\ns.m2 = pclr_m(0);\n"
#define PCLR__OP_STATS_COUNT "if (a.n == 0) a.shift = pclr_h(x);\na.n += k;\n"
#define PCLR__OP_STATS_FOLD "a.lo = pclr_min(a.lo, x);\na.hi = pclr_max(a.hi, x);\nconst pclr_m d = pclr_diff(pclr_h(x), a.shift);\na.d1 += d;\na.m2 += d * d;\n"
#define PCLR__OP_STATS_MERGE_INT \
    "if (b.n == 0) return a;\n" \
    "if (a.n == 0) return b;\n" \
    "const pclr_m nb = pclr_m(b.n), delta = pclr_diff(b.shift, a.shift);\n" \
    "a.m2 += b.m2 + delta * ((b.d1 + b.d1) + nb * delta);\n" \
    "a.d1 += b.d1 + nb * delta;\n" \
    "a.n += b.n;\n"
#define PCLR__OP_STATS_MERGE \
    "if (b.n == 0) return a;\n" \
    "if (a.n == 0) return b;\n" \
    "const pclr_m na = pclr_m(a.n), nb = pclr_m(b.n), n = na + nb, ca = a.d1 / na, cb = b.d1 / nb;\n" \
    "const pclr_m delta = pclr_diff(b.shift, a.shift) + (cb - ca), c = ca + delta * (nb / n);\n" \
    "const pclr_m m2 = (a.m2 - a.d1 * ca) + (b.m2 - b.d1 * cb) + delta * delta * (na * nb / n);\n" \
    "precise pclr_h h = a.shift + c;\n" \
    "precise pclr_m r = c - (h - a.shift);\n" \
    "a.shift = h;\n" \
    "a.d1 = r * n;\n" \
    "a.m2 = m2 + a.d1 * r;\n" \
    "a.n += b.n;\n"
#define PCLR__OP_STATS_MERGE_END "a.lo = pclr_min(a.lo, b.lo);\na.hi = pclr_max(a.hi, b.hi);\n"
#define PCLR__OP_STATS_ABOUT "one value (counted already): sum, min, max, and the moments about the shift; the merge:\n" \
                             "   integers move b's moments onto a's shift (exact), floats Chan et al.'s, the shift then moved\n" \
                             "   to the value nearest the mean"
/* stats' state, identity, count and fold, native or wide: the integer and float entries differ in the merge */
#define PCLR__OP_STATS_NATIVE                                                                                          \
    {{"n", PCLR__R_U64}, {"s", PCLR__R_SUM}, {"lo", PCLR__R_VALUE}, {"hi", PCLR__R_VALUE}, {"shift", PCLR__R_SHIFT},     \
     {"d1", PCLR__R_MOMENT}, {"m2", PCLR__R_MOMENT}},                                                                  \
        "s.n = 0;\ns.s = pclr_a(0);\n" PCLR__OP_STATS_IDENTITY, NULL, PCLR__OP_STATS_COUNT,                             \
        "a.s = pclr_add(a.s, pclr_a(x));\n" PCLR__OP_STATS_FOLD
#define PCLR__OP_KBN_ADD "PCLR_KBN(a.s, a.c, pclr_a(x));\n"
#define PCLR__OP_KBN_MERGE "PCLR_KBN(a.s, a.c, b.s);\na.c += b.c;\n"

static const pclr__op_def pclr__op_defs[] = {
    {PCLR_SUM, 0, -1, {{"s", PCLR__R_SUM}}, "s.s = pclr_a(0);\n", "s.s = pclr_a(x);\n", NULL, NULL, "a.s = pclr_add(a.s, b.s);\n", NULL, NULL},
    {PCLR_SUM, 1, -1, {{"s", PCLR__R_SUM}, {"c", PCLR__R_SUM}}, "s.s = pclr_a(0);\ns.c = pclr_a(0);\n", NULL, NULL, PCLR__OP_KBN_ADD,
     PCLR__OP_KBN_MERGE, "the sum s and the sum c of its additions' rounding errors (Neumaier)", NULL},
    {PCLR_MIN, 0, -1, {{"v", PCLR__R_VALUE}}, "s.v = PCLR_HI;\n", "s.v = x;\n", NULL, NULL, "a.v = pclr_min(a.v, b.v);\n", NULL, NULL},
    {PCLR_MAX, 0, -1, {{"v", PCLR__R_VALUE}}, "s.v = PCLR_LO;\n", "s.v = x;\n", NULL, NULL, "a.v = pclr_max(a.v, b.v);\n", NULL, NULL},
    {PCLR_COUNT, 0, -1, {{"n", PCLR__R_U64}}, "s.n = 0;\n", "s.n = x != pclr_v(0) ? 1 : 0; /* NaN counts, -0 does not */\n", NULL, NULL,
     "a.n += b.n;\n", NULL, NULL},
    {PCLR_MINMAX, 0, -1, {{"lo", PCLR__R_VALUE}, {"hi", PCLR__R_VALUE}}, "s.lo = PCLR_HI;\ns.hi = PCLR_LO;\n", "s.lo = x;\ns.hi = x;\n",
     NULL, NULL, "a.lo = pclr_min(a.lo, b.lo);\na.hi = pclr_max(a.hi, b.hi);\n", NULL, NULL},
    PCLR__OP_ARG(PCLR_ARGMIN, "<", "PCLR_HI", "lo"),
    PCLR__OP_ARG(PCLR_ARGMAX, ">", "PCLR_LO", "hi"),
    {PCLR_ARGMINMAX, 0, 0, PCLR__OP_ARGMINMAX_FIELDS, PCLR__OP_ARGMINMAX_IDENTITY, NULL, NULL,
     PCLR__OP_ARG_FOLD("lo", "il", "<") PCLR__OP_ARG_FOLD("hi", "ih", ">"),
     PCLR__OP_ARG_MERGE("lo", "il", "<", "b_lo") PCLR__OP_ARG_MERGE("hi", "ih", ">", "b_hi"), "argmin (lo, il) and argmax (hi, ih): " PCLR__OP_ARG_ABOUT,
     "lo < a.lo || hi > a.hi || a.il == PCLR_NO_INDEX"},
    {PCLR_ARGMINMAX, 0, 1, PCLR__OP_ARGMINMAX_FIELDS, PCLR__OP_ARGMINMAX_IDENTITY, NULL, NULL,
     PCLR__OP_ARG_FOLD_NAN("lo", "il", "<") PCLR__OP_ARG_FOLD_NAN("hi", "ih", ">"),
     PCLR__OP_ARG_MERGE_NAN("lo", "il", "<", "b_lo") PCLR__OP_ARG_MERGE_NAN("hi", "ih", ">", "b_hi"),
     "argmin (lo, il) and argmax (hi, ih): " PCLR__OP_ARG_ABOUT_NAN, NULL},
    /* prod: in the sum type (native: the compute type, whose low bits are the element type's wrapped product) */
    {PCLR_PROD, 0, -1, {{"p", PCLR__R_SUM}}, "s.p = pclr_a(1);\n", "s.p = pclr_a(x);\n", NULL, NULL, "a.p = pclr_mul(a.p, b.p);\n", NULL, NULL},
    /* bitwise, of integers (8- and 16-bit ones extended to 32 bits: the low bits are theirs) */
    {PCLR_AND, 0, 0, {{"v", PCLR__R_VALUE}}, "s.v = ~pclr_v(0);\n", "s.v = x;\n", NULL, NULL, "a.v = a.v & b.v;\n", NULL, NULL},
    {PCLR_OR, 0, 0, {{"v", PCLR__R_VALUE}}, "s.v = pclr_v(0);\n", "s.v = x;\n", NULL, NULL, "a.v = a.v | b.v;\n", NULL, NULL},
    {PCLR_XOR, 0, 0, {{"v", PCLR__R_VALUE}}, "s.v = pclr_v(0);\n", "s.v = x;\n", NULL, NULL, "a.v = a.v ^ b.v;\n", NULL, NULL},
    /* any, all: a 32-bit flag, whether an element is nonzero (NaN is, -0 is not) */
    {PCLR_ANY, 0, -1, {{"f", PCLR__R_U32}}, "s.f = 0u;\n", "s.f = x != pclr_v(0) ? 1u : 0u; /* NaN counts, -0 does not */\n", NULL, NULL,
     "a.f = a.f | b.f;\n", NULL, NULL},
    {PCLR_ALL, 0, -1, {{"f", PCLR__R_U32}}, "s.f = 1u;\n", "s.f = x != pclr_v(0) ? 1u : 0u; /* NaN counts, -0 does not */\n", NULL, NULL,
     "a.f = a.f & b.f;\n", NULL, NULL},
    {PCLR_STATS, 0, 0,
     PCLR__OP_STATS_NATIVE, PCLR__OP_STATS_MERGE_INT "a.s = pclr_add(a.s, b.s);\n" PCLR__OP_STATS_MERGE_END,
     PCLR__OP_STATS_ABOUT, NULL},
    {PCLR_STATS, 0, 1,
     PCLR__OP_STATS_NATIVE, PCLR__OP_STATS_MERGE "a.s = pclr_add(a.s, b.s);\n" PCLR__OP_STATS_MERGE_END,
     PCLR__OP_STATS_ABOUT, NULL},
    {PCLR_STATS, 1, -1,
     {{"n", PCLR__R_U64}, {"s", PCLR__R_SUM}, {"c", PCLR__R_SUM}, {"lo", PCLR__R_VALUE}, {"hi", PCLR__R_VALUE},
      {"shift", PCLR__R_SHIFT}, {"d1", PCLR__R_MOMENT}, {"m2", PCLR__R_MOMENT}},
     "s.n = 0;\ns.s = pclr_a(0);\ns.c = pclr_a(0);\n" PCLR__OP_STATS_IDENTITY, NULL, PCLR__OP_STATS_COUNT,
     PCLR__OP_KBN_ADD PCLR__OP_STATS_FOLD, PCLR__OP_STATS_MERGE PCLR__OP_KBN_MERGE PCLR__OP_STATS_MERGE_END, PCLR__OP_STATS_ABOUT, NULL},
};

/* Whether an op's text uses the identifier name (its helpers and types are written only where used). */
static int pclr__op_uses(const pclr__op_def *d, const char *name) {
    const char *const parts[5] = {d ? d->identity : NULL, d ? d->lift : NULL, d ? d->count : NULL, d ? d->fold : NULL, d ? d->merge : NULL};
    int k;
    if (!d) return 0; /* (a reduction's: its text is its tree's) */
    for (k = 0; k < 5; ++k)
        if (parts[k] && pclr__text_uses(parts[k], name)) return 1;
    return 0;
}

/* Whether an op's fold takes the element's index i (the arg ops'). */
static int pclr__fold_takes_index(const pclr__op_def *d) { return d && d->fold && pclr__text_uses(d->fold, "i"); }

/* The entry of a config's op (its value type decides an arg op's NaN rules); NULL: none. */
static const pclr__op_def *pclr__op_def_of(pclr_op op, pclr_accumulate acc, pclr_type value) {
    size_t k;
    for (k = 0; k < sizeof pclr__op_defs / sizeof pclr__op_defs[0]; ++k) {
        const pclr__op_def *d = &pclr__op_defs[k];
        if (d->op == op && d->compensated == (acc == PCLR_COMPENSATED && (op == PCLR_SUM || op == PCLR_STATS)) &&
            (d->nan < 0 || d->nan == (value == PCLR_HALF || value == PCLR_FLOAT || value == PCLR_DOUBLE)))
            return d;
    }
    return NULL;
}

/* A map, or a reduction's description, whose lift reads the inputs as a map does. */
static int pclr__has_map(const pclr_config *c) { return (c->map && c->map[0]) || c->op == PCLR_CUSTOM || c->op == PCLR_HISTOGRAM; }

/* The ops whose accumulator is chosen (cfg.accumulate): sums, stats' sum, products. */
static int pclr__op_accumulates(pclr_op op) { return op == PCLR_SUM || op == PCLR_STATS || op == PCLR_PROD; }

/* The type a config reduces: its map's result type (a resolved config carries it in map_type), else the element type. */
static pclr_type pclr__reduced(const pclr_config *c) {
    pclr__mtree t;
    if (!pclr__has_map(c) || c->op == PCLR_CUSTOM) return c->type ? c->type : PCLR_FLOAT; /* (a reduction: its element type) */
    if (c->map_type) return c->map_type;
    return pclr__map_parse(c, &t, NULL, 0) == PCLR_OK ? t.type : PCLR_TYPE_DEFAULT;
}
PCLR_API pclr_type pclr_reduced_type(const pclr_config *cfg) { return cfg ? pclr__reduced(cfg) : PCLR_TYPE_DEFAULT; }

/* Bytes of one element of x or y (a map's pixels count their components), and of the wider. */
static size_t pclr__load_size(const pclr_config *c) {
    const size_t comps = pclr__has_map(c) && c->components > 1 ? (size_t)c->components : 1;
    const size_t x = pclr_type_size(c->type) * comps, y = pclr__has_map(c) ? pclr_type_size(c->y_type) * comps : 0;
    return x > y ? x : y;
}

/* >>histogram A histogram's state (what its kernel writes, 8-byte words): the bins, underflow, overflow, nan
   (uint64), lo and hi in the compute type (a float in the first 4 bytes of its word), then the counts. The
   result (pclr_histogram_result) is the same but for lo and hi, which it holds as doubles. */
#define PCLR__HIST_HEADER 48
/* A weighted histogram's state goes on with each entry's (the bins', then underflow's, overflow's and
   nan's) exact sum of its weights: a 320-bit two's complement integer in units of 2^-149, the float
   quantum, as ten 32-bit digits, then a flags word (1: +inf added, 2: -inf, 4: NaN) and a spare one. A
   float weight is m 2^(p - 149), m < 2^24 and p < 254, so it touches two digits; 2^42 of them cannot
   overflow. The result holds the sums rounded once to double (pclr__hist_sum_value). */
#define PCLR__HIST_DIGITS 10
#define PCLR__HIST_WORDS 12
/* A group counts in local memory up to this many bins (4 KiB short of Vulkan's 16 KiB of shared memory); a
   histogram of more counts in global memory (the launch's counts; a layout's, its result's state) */
#define PCLR__HIST_LOCAL_BINS 4000
/* A CPU's work-items (stride local or simd: a work-item walks its own block, a core runs a group) count
   in bins of their own, without atomics, up to this many bins, and add them into the group's once. */
#define PCLR__HIST_PRIVATE_BINS 1024
/* Whether a one-array histogram's work-items count in bins of their own (a CPU's). Not a weighted one in GLSL:
   NVIDIA's Vulkan driver refused its 21 KB per invocation (vkCreateComputePipelines: VK_ERROR_UNKNOWN) that CUDA
   and OpenCL take; it counts in local memory. */
PCLR__FN int pclr__hist_mine(const pclr_config *c) {
    return c->layout == PCLR_LAYOUT_ONE && c->stride != PCLR_STRIDE_GLOBAL && c->bins <= PCLR__HIST_PRIVATE_BINS &&
           !(c->weighted && c->backend == PCLR_VULKAN);
}
/* Such a work-item's sets of bins: one per lane of a load, up to 4, so that a run of equal values is not one chain
   of increments (weighted: one) */
PCLR__FN int pclr__hist_ways(const pclr_config *c) { return c->weighted ? 1 : c->vector_width < 4 ? c->vector_width : 4; }
/* Its private bytes: bins, and weighted their sums (64-bit words of 32-bit digits, a flags word). PoCL keeps a
   group's on one thread's stack: a group's must stay under PCLR__HIST_PRIVATE_GROUP_BYTES there (1024 work-items of
   23 KB crashed it on the 16-core Xeon). */
#define PCLR__HIST_PRIVATE_GROUP_BYTES (4u << 20)
PCLR__FN size_t pclr__hist_private_bytes(const pclr_config *c) {
    const size_t entries = (size_t)c->bins + 3;
    return 4 * (size_t)pclr__hist_ways(c) * entries + (c->weighted ? (8 * PCLR__HIST_DIGITS + 4) * entries : 0);
}
/* A histogram's compute type: float for float values (half, float, a map of float result) and for 8- and
   16-bit integer elements (exact in float: no fp64 needed), else double (integers up to 2^53 exactly). */
static pclr_type pclr__hist_type(const pclr_config *c);

/* The state of a resolved config. */
static void pclr__layout_of(const pclr_config *c, pclr__layout *l) {
    const pclr_type vt = pclr__reduced(c);
    const pclr__op_def *d;
    int i;
    size_t align = 1;
    memset(l, 0, sizeof *l);
    l->value = pclr__compute_type(vt);
    l->sum = pclr_sum_type(vt, c->accumulate);
    l->moment = (vt == PCLR_DOUBLE || !pclr__is_float(vt) || c->accumulate == PCLR_WIDE) ? PCLR_DOUBLE : PCLR_FLOAT;
    l->shift = l->value == PCLR_INT64 || l->value == PCLR_UINT64 ? l->value : l->moment;
    d = pclr__op_def_of(c->op, c->accumulate, l->value);
    if (!d) d = pclr__op_def_of(PCLR_SUM, c->accumulate, l->value); /* (an unresolved op: as sum) */
    if (c->op == PCLR_CUSTOM) { /* a reduction's: as its description declares, each name after f_ (no
                                   keyword of a kernel language is one); none: one uint, for sentences' sake */
        pclr__mtree t;
        i = 0;
        if (pclr__map_parse(c, &t, NULL, 0) == PCLR_OK)
            for (; i < t.fields; ++i) {
                snprintf(l->field[i].name, sizeof l->field[i].name, "f_%s", t.fname[i]);
                l->field[i].type = t.ftype[i];
            }
        if (!i) { strcpy(l->field[0].name, "f_"); l->field[0].type = PCLR_UINT; i = 1; }
        d = NULL;
    }
    for (i = c->op == PCLR_CUSTOM ? i : 0; d && i < 8 && d->field[i].name; ++i) {
        const int role = d->field[i].role;
        strcpy(l->field[i].name, d->field[i].name);
        l->field[i].type = role == PCLR__R_VALUE ? l->value : role == PCLR__R_SUM ? l->sum : role == PCLR__R_MOMENT ? l->moment
                         : role == PCLR__R_SHIFT ? l->shift : role == PCLR__R_U32 ? PCLR_UINT : PCLR_UINT64;
    }
    l->count = i;
    if (c->op == PCLR_HISTOGRAM) { /* its state is an array (>>histogram); the one field for sentences' sake */
        strcpy(l->field[0].name, "bins");
        l->field[0].type = PCLR_UINT64;
        l->count = 1;
        l->size = PCLR__HIST_HEADER + 8 * (size_t)c->bins + (c->weighted ? 4 * PCLR__HIST_WORDS * ((size_t)c->bins + 3) : 0);
        return;
    }
    for (i = 0; i < l->count; ++i) {
        size_t sz = pclr_type_size(l->field[i].type);
        l->size = (l->size + sz - 1) / sz * sz;
        l->offset[i] = l->size;
        l->size += sz;
        if (sz > align) align = sz;
    }
    l->size = (l->size + align - 1) / align * align;
}

/* A reduction (op custom) whose merge does not commute, resolved to merge its states in order (stride local,
   variant naive: pclr_config_resolve): the one-array kernel's head, tail and last-group fold keep the order too. */
static int pclr__ordered(const pclr_config *c) {
    return c->op == PCLR_CUSTOM && c->variant == PCLR_VARIANT_NAIVE && c->stride != PCLR_STRIDE_GLOBAL;
}

/* CUDA's one-array last-group kernels whose state is 4 or 8 bytes publish it as a flagged word
   (PCLR__TEXT_COLLECT_CUDA) into zeroed scratch; other states, and a reduction's merged in group order,
   go through the partials. */
PCLR__FN int pclr__words_finish(const pclr_config *c, size_t state_size) {
    return c->backend == PCLR_CUDA && c->layout == PCLR_LAYOUT_ONE && c->accumulate != PCLR_EXACT && !pclr__ordered(c) &&
           c->finish == PCLR_FINISH_LAST_GROUP && (state_size == 4 || state_size == 8);
}

/* The state is the element itself: what the partials finish's second pass reads as input. */
static int pclr__state_is_element(const pclr_config *c) {
    pclr__layout l;
    pclr__layout_of(c, &l);
    return l.count == 1 && (c->op == PCLR_SUM || c->op == PCLR_MIN || c->op == PCLR_MAX) && l.field[0].type == c->type && !pclr__has_map(c);
}

/* Ops whose kernel folds element by element (pclr_fold) instead of merging lifted elements. */
PCLR__FN int pclr__folds_each(const pclr_config *c) {
    const pclr__op_def *d = pclr__op_def_of(c->op, c->accumulate, pclr__compute_type(pclr__reduced(c)));
    return d && !d->lift;
}

/* Ops the single-array kernel can fold lane by lane into a vector of accumulators (stride simd): one
   array, no map, loads of 2 or more elements; integer sums, min, max, minmax, argmin, argmax, count and stats
   of any element type. (Float sums keep the per-load tree, whose order fixes their bits; the others' results
   do not depend on the order, but for float stats' roundings.) c may be unresolved (0: the defaults). Other
   configurations with stride simd walk as local. */
PCLR__FN int pclr__lanes_fold(const pclr_config *c) {
    const pclr_type t = c->type ? c->type : PCLR_FLOAT;
    const pclr_op op = c->op ? c->op : PCLR_SUM;
    if (c->layout != PCLR_LAYOUT_ONE || pclr__has_map(c) || c->vector_width == 1 || (int)t < 0 || t >= PCLR_TYPE_COUNT_) return 0;
    if (c->accumulate == PCLR_COMPENSATED || c->accumulate == PCLR_EXACT) return 0;
    return op == PCLR_MIN || op == PCLR_MAX || op == PCLR_MINMAX || op == PCLR_ARGMIN || op == PCLR_ARGMAX || op == PCLR_COUNT ||
           (op == PCLR_SUM && !pclr__is_float(t)) || op == PCLR_STATS;
}

/* Half elements under stride simd in the ops without a lanes fold: each load is converted to floats as one
   vector (pclr_half_to_float<N>), then folded as before (the same order: the same bits). */
PCLR__FN int pclr__half_vectors(const pclr_config *c) {
    return c->type == PCLR_HALF && c->layout == PCLR_LAYOUT_ONE && !pclr__has_map(c) && c->vector_width != 1 &&
           c->accumulate != PCLR_EXACT && !pclr__lanes_fold(c);
}

static int pclr__needs_fp64(const pclr_config *c) {
    pclr__layout l;
    int i;
    if (c->accumulate == PCLR_EXACT) return 1; /* its running sums are doubles */
    if (c->op == PCLR_HISTOGRAM && pclr__hist_type(c) == PCLR_DOUBLE) return 1;
    pclr__layout_of(c, &l);
    for (i = 0; i < l.count; ++i) if (l.field[i].type == PCLR_DOUBLE) return 1;
    if (pclr__has_map(c)) { /* a double anywhere in the map */
        pclr__mtree t;
        if (pclr__map_parse(c, &t, NULL, 0) == PCLR_OK && t.uses_double) return 1;
    }
    return c->type == PCLR_DOUBLE;
}

/* Whether a histogram bins 8- or 16-bit integer elements (no map). */
PCLR__FN int pclr__hist_small_int(const pclr_config *c) {
    const pclr_type x = c->type;
    return !(c->map && c->map[0]) && (x == PCLR_UINT8 || x == PCLR_INT8 || x == PCLR_UINT16 || x == PCLR_INT16);
}
static pclr_type pclr__hist_type(const pclr_config *c) {
    const pclr_type t = pclr__reduced(c);
    return t == PCLR_FLOAT || t == PCLR_HALF || pclr__hist_small_int(c) ? PCLR_FLOAT : PCLR_DOUBLE;
}

/* A histogram's kernel arguments from the caller's range: lo and hi rounded to the compute type t, and
   scale = bins / (hi - lo) rounded to it; PCLR_ERR_INVALID_ARGUMENT (and why) where they cannot bin. */
PCLR__FN pclr_result pclr__hist_range(pclr_type t, uint32_t bins, double lo, double hi, double out[3], const char **why) {
    const double most = t == PCLR_FLOAT ? 3.4028234663852886e38 : 1.7976931348623157e308;
    double width, scale;
    if (!(lo >= -most && lo <= most && hi >= -most && hi <= most)) { /* (NaN fails too) */
        *why = t == PCLR_FLOAT ? "the range's lo and hi must be finite floats (the values are binned in float)" : "the range's lo and hi must be finite";
        return PCLR_ERR_INVALID_ARGUMENT;
    }
    if (t == PCLR_FLOAT) { /* (through volatile floats: GCC 12.2's -O2 SLP vectorizer stored the unrounded lo and hi) */
        volatile float l = (float)lo, h = (float)hi, w;
        w = h - l;
        lo = l;
        hi = h;
        width = w;
    } else {
        width = hi - lo;
    }
    if (!(lo < hi) || !(width <= most)) {
        *why = !(lo < hi) ? "the range must have lo < hi (after rounding to the compute type)" : "hi - lo overflows the compute type";
        return PCLR_ERR_INVALID_ARGUMENT;
    }
    scale = (double)bins / width;
    if (!(scale <= most)) { *why = "bins / (hi - lo) overflows the compute type: a wider range"; return PCLR_ERR_INVALID_ARGUMENT; }
    out[0] = lo;
    out[1] = hi;
    out[2] = t == PCLR_FLOAT ? (double)(float)scale : scale;
    return PCLR_OK;
}

/* The entry a value v (of compute type float when fl) counts in: its bin 0 .. bins - 1, or bins
   (underflow), bins + 1 (overflow), bins + 2 (NaN); r: pclr__hist_range's. The kernels' pclr_bin. */
PCLR__FN uint32_t pclr__hist_bin(int fl, double v, const double r[3], uint32_t bins, int clamp) {
    uint32_t k;
    if (v != v) return bins + 2;
    if (v < r[0]) return clamp ? 0 : bins;
    if (v >= r[1]) return clamp ? bins - 1 : bins + 1;
    if (fl) {
        const float d = (float)v - (float)r[0], x = d * (float)r[2];
        k = (uint32_t)x;
    } else {
        const double d = v - r[0], x = d * r[2];
        k = (uint32_t)x;
    }
    return k < bins ? k : bins - 1;
}

/* w added to an entry's exact sum d (PCLR__HIST_DIGITS digits and the flags word): the kernels' PCLR_WEIGH. */
PCLR__FN void pclr__hist_weigh(uint32_t *d, float w) {
    uint32_t b, e, m, p, s, j, k;
    memcpy(&b, &w, 4);
    e = (b >> 23) & 255u;
    if (e == 255u) {
        d[PCLR__HIST_DIGITS] |= (b & 0x7FFFFFu) ? 4u : (b >> 31) ? 2u : 1u;
        return;
    }
    m = e ? (b & 0x7FFFFFu) | 0x800000u : b & 0x7FFFFFu;
    p = e ? e - 1u : 0u;
    s = p & 31u;
    for (j = 0; j < 2; ++j) { /* the low digit, and the high one where m crosses into it */
        const uint32_t x = j ? (s > 8u ? m >> (32u - s) : 0u) : m << s;
        if (!x) continue;
        k = (p >> 5) + j;
        if (b >> 31) { /* subtract, borrowing */
            const uint32_t old = d[k];
            d[k] = old - x;
            if (old < x)
                for (++k; k < PCLR__HIST_DIGITS && d[k]-- == 0u; ++k) {}
        } else {
            d[k] += x;
            if (d[k] < x)
                for (++k; k < PCLR__HIST_DIGITS && ++d[k] == 0u; ++k) {}
        }
    }
}

/* An exact sum d (pclr__hist_weigh's) rounded to double: to nearest, ties to even. */
PCLR__FN double pclr__hist_sum_value(const uint32_t *d) {
    const double inf = 1e300 * 1e300;
    uint32_t a[PCLR__HIST_DIGITS], f = d[PCLR__HIST_DIGITS], carry = 1;
    uint64_t t = 0, r;
    int neg = (int)(d[PCLR__HIST_DIGITS - 1] >> 31), top = -1, b, taken = 0, sticky = 0, k;
    if ((f & 4u) || (f & 3u) == 3u) return inf - inf;
    if (f) return f & 1u ? inf : -inf;
    for (k = 0; k < PCLR__HIST_DIGITS; ++k) { /* the magnitude */
        a[k] = neg ? ~d[k] + carry : d[k];
        carry = neg && carry && a[k] == 0u;
    }
    for (b = 32 * PCLR__HIST_DIGITS - 1; b >= 0 && top < 0; --b)
        if ((a[b >> 5] >> (b & 31)) & 1u) top = b;
    if (top < 0) return 0.0;
    for (b = top; b >= 0; --b) { /* the top 64 bits, and whether any below them is set */
        const uint32_t bit = (a[b >> 5] >> (b & 31)) & 1u;
        if (taken < 64) t = t << 1 | bit, ++taken;
        else sticky |= (int)bit;
    }
    t <<= 64 - taken;
    r = t >> 11;
    if ((t & 0x7FFu) > 0x400u || ((t & 0x7FFu) == 0x400u && (sticky || (r & 1u)))) ++r;
    return (neg ? -1.0 : 1.0) * ldexp((double)r, top - 52 - 149);
}

/* A histogram's result from its header's parts and its counts' words (8 bytes each, little-endian). */
PCLR__FN void pclr__hist_header(uint32_t bins, int weighted, const uint64_t flow[3], double lo, double hi, void *result) {
    pclr_histogram_result h;
    memset(&h, 0, sizeof h);
    h.bins = bins;
    h.weighted = weighted != 0;
    h.underflow = flow[0];
    h.overflow = flow[1];
    h.nan = flow[2];
    h.lo = lo;
    h.hi = hi;
    memcpy(result, &h, sizeof h);
}

static int pclr__is_pow2_in(int v, int lo, int hi) {
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

/* ---- resolving a configuration: defaults, checks, the sentence why  >>resolve */
static pclr_result pclr__config_resolve(const pclr_config *in, pclr_config *out, const char **why, int merge_checks);
PCLR_API pclr_result pclr_config_resolve(const pclr_config *in, pclr_config *out, const char **why) {
    return pclr__config_resolve(in, out, why, 1);
}
/* merge_checks 0: a reduction's merge is not tested on the CPU evaluator (0.1 ms), and resolves as if it commuted:
   for what a config's state and results are (pclr__resolve_op), where knobs play no part. */
static pclr_result pclr__config_resolve(const pclr_config *in, pclr_config *out, const char **why, int merge_checks) {
    pclr_config c;
    const char *dummy = NULL;
    int ordered = 0; /* a reduction whose merge does not commute: its states merge in order */
    if (!why) why = &dummy;
    *why = NULL;
    if (!in || !out) { *why = "config pointer is NULL"; return PCLR_ERR_NULL_POINTER; }
    c = *in;
    if ((int)c.type < 0 || c.type >= PCLR_TYPE_COUNT_) { *why = "type must be uint8, int8, uint16, int16, uint, int, uint64, int64, half, float or double"; return PCLR_ERR_INVALID_ENUM; }
    if ((int)c.op < 0 || c.op >= PCLR_OP_COUNT_) { *why = "op must be sum, min, max, argmin, argmax, minmax, stats, count, prod, and, or, xor, any, all, argminmax, custom or histogram"; return PCLR_ERR_INVALID_ENUM; }
    if ((int)c.accumulate < 0 || c.accumulate >= PCLR_ACCUMULATE_COUNT_) { *why = "accumulate must be native, wide, compensated or exact"; return PCLR_ERR_INVALID_ENUM; }
    if ((int)c.backend < 0 || c.backend >= PCLR_BACKEND_COUNT_) { *why = "backend must be opencl, cuda or vulkan"; return PCLR_ERR_INVALID_ENUM; }
    if (c.backend == PCLR_CPU) { *why = "the cpu backend runs no kernel (only opencl, cuda and vulkan kernels are generated)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if ((int)c.stride < 0 || c.stride >= PCLR_STRIDE_COUNT_) { *why = "stride must be global, local or simd"; return PCLR_ERR_INVALID_ENUM; }
    if (c.stride == PCLR_STRIDE_SIMD && c.backend != PCLR_OPENCL && c.backend != PCLR_BACKEND_AUTO) { *why = "stride simd folds loads as OpenCL C vectors: OpenCL only (CUDA and Vulkan: global or local)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if ((int)c.variant < 0 || c.variant >= PCLR_VARIANT_COUNT_) { *why = "variant must be naive, sequential, unrolled, shuffle or collective"; return PCLR_ERR_INVALID_ENUM; }
    if ((int)c.finish < 0 || c.finish >= PCLR_FINISH_COUNT_) { *why = "finish must be last_group, atomic or partials"; return PCLR_ERR_INVALID_ENUM; }
    {
        pclr__mtree t;
        pclr_result r = pclr__map_parse(&c, &t, NULL, 0);
        int commutes = 1;
        if (r == PCLR_OK && t.fields && merge_checks) r = pclr__reduce_verify(&t, NULL, 0, &commutes);
        ordered = r == PCLR_OK && !commutes;
        if (r != PCLR_OK) {
            *why = r == PCLR_ERR_UNSUPPORTED_COMBINATION ? PCLR__NO_MAP_WHY : c.op == PCLR_CUSTOM || (c.reduce && c.reduce[0])
                 ? "the reduction's description is invalid (pclr_map_check says where, and why)" : "the map is invalid (pclr_map_check says where)";
            return r;
        }
        if (t.fields) { /* a reduction: its lift reads elements as a map does */
            c.components = t.comps;
            if (c.components > 1 && !c.vector_width) c.vector_width = 1;
            if (c.components > 1 && c.vector_width != 1) { *why = "elements of 2 or 4 components load one at a time: vector width 1"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        } else if (t.root >= 0) {
            c.map_type = t.type;
            c.components = t.comps;
            if (c.components > 1 && !c.vector_width) c.vector_width = 1; /* a pixel is the load */
            if (c.components > 1 && c.vector_width != 1) { *why = "elements of 2 or 4 components load one at a time: vector width 1"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        } else {
            c.components = 0;
        }
        if (c.op == PCLR_HISTOGRAM) { /* (its map is "x" where it has none: pclr__map_parse) */
            if (!c.bins || c.bins > PCLR_HISTOGRAM_MAX_BINS) { *why = "a histogram has 1 to 65536 bins (cfg.bins)"; return PCLR_ERR_INVALID_KNOB; }
            if (c.clamp != 0 && c.clamp != 1) { *why = "clamp is 0 or 1"; return PCLR_ERR_INVALID_KNOB; }
            if (t.params > PCLR_MAP_MAX_PARAMS - 3) { *why = "a histogram's map takes at most 13 parameters (the kernel takes 3 more: the range)"; return PCLR_ERR_INVALID_MAP; }
            if (c.finish && c.finish != PCLR_FINISH_LAST_GROUP) { *why = "a histogram finishes with last_group: the groups add their counts, the last one writes them"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
            if (c.accumulate && c.accumulate != PCLR_NATIVE) { *why = "a histogram counts: no accumulator (accumulate native or default)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
            if (c.variant == PCLR_VARIANT_COLLECTIVE) { *why = "a histogram has its own in-group step (counts in local memory): not the collective variant"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
            if (c.weighted != 0 && c.weighted != 1) { *why = "weighted is 0 or 1"; return PCLR_ERR_INVALID_KNOB; }
            if (c.weighted && (c.y_type != PCLR_FLOAT || c.components > 1)) { *why = "a weighted histogram's weights are y, one float per element (y_type float, no components)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
            if (c.weighted && c.bins > PCLR_HISTOGRAM_MAX_WEIGHTED_BINS) { *why = "a weighted histogram has at most 256 bins (a group sums each bin's weights exactly in local memory)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        } else if (c.bins || c.clamp || c.weighted) {
            *why = "bins, clamp and weighted belong to a histogram (op histogram)";
            return PCLR_ERR_UNSUPPORTED_COMBINATION;
        }
    }
    if ((int)c.layout < 0 || c.layout >= PCLR_LAYOUT_COUNT_) { *why = "layout must be one, rows, columns or segments"; return PCLR_ERR_INVALID_ENUM; }
#ifdef PCLREDUCE_NO_LAYOUTS
    if (c.layout != PCLR_LAYOUT_ONE) { *why = PCLR__NO_LAYOUTS_WHY; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
#endif
    if (c.layout != PCLR_LAYOUT_ONE && !c.vector_width) c.vector_width = 1; /* rows start anywhere: one element per load */
    /* every default, in PCLR__KNOBS order (the type before the vector width,
       the backend before the variant, the group size before groups per unit;
       a bad group size is refused below before groups per unit is) */
#define PCLR_TSIZE ((int)pclr__load_size(&c))
#define PCLR_GROUP c.group_size
#define PCLR_IS_CUDA (c.backend == PCLR_CUDA)
#define PCLR__FILL_DEFAULT(kind, name, field, macro, dflt) if (!c.field) c.field = dflt;
    PCLR__KNOBS(PCLR__FILL_DEFAULT)
#undef PCLR__FILL_DEFAULT
#undef PCLR_IS_CUDA
#undef PCLR_GROUP
#undef PCLR_TSIZE
    if (!pclr__op_accumulates(c.op)) c.accumulate = PCLR_NATIVE; /* only sums (stats') and products accumulate */
    if (ordered) { /* a reduction's merge takes a (earlier) and b (later): every state a contiguous run, merged in order:
                      each work-item its own block, the interleaved tree, a row or column per work-item (pclr__ordered) */
        if (c.stride == PCLR_STRIDE_GLOBAL) c.stride = PCLR_STRIDE_LOCAL;
        c.variant = PCLR_VARIANT_NAIVE;
        if (c.layout != PCLR_LAYOUT_ONE) c.lanes = 1;
    }
    if (c.op == PCLR_PROD && c.accumulate != PCLR_NATIVE && c.accumulate != PCLR_WIDE) {
        *why = "a product accumulates native (in the element's type: integers wrap) or wide (64-bit integers, double)";
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
    }
    if ((c.op == PCLR_AND || c.op == PCLR_OR || c.op == PCLR_XOR) && pclr__is_float(pclr__reduced(&c))) {
        *why = "and, or and xor are bitwise: for integer values, not half, float or double (a map can make integers of them)";
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
    }
    if (c.accumulate == PCLR_COMPENSATED && !pclr__is_float(pclr__reduced(&c))) { *why = "compensated sums are for half, float and double"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if (c.accumulate == PCLR_EXACT) { /* see "the exact sum" in the generator */
#ifdef PCLREDUCE_NO_EXACT
        *why = PCLR__NO_EXACT_WHY;
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
#endif
        if (!pclr__is_float(pclr__reduced(&c))) { *why = "exact sums are for half, float and double values (integer sums are exact with accumulate wide)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.op != PCLR_SUM) { *why = "exact accumulation is for sum only (stats: accumulate wide or compensated)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.finish != PCLR_FINISH_LAST_GROUP) { *why = "the exact sum finishes with last_group: the groups add integer cells, the last one rounds them"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.variant == PCLR_VARIANT_COLLECTIVE) { *why = "the exact sum has its own in-group step: variant naive, sequential, unrolled (a tree in local memory) or shuffle"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    }
    if (c.wave_width != 32 && c.wave_width != 64) { *why = "wave width must be 32 or 64"; return PCLR_ERR_INVALID_KNOB; }
    if (!pclr__is_pow2_in(c.group_size, 32, 1024)) { *why = "group size must be a power of two from 32 to 1024"; return PCLR_ERR_INVALID_KNOB; }
    if (!pclr__is_pow2_in(c.unroll, 1, 128)) { *why = "unroll depth must be a power of two from 1 to 128"; return PCLR_ERR_INVALID_KNOB; }
    if (!pclr__is_pow2_in(c.vector_width, 1, 16)) { *why = "vector width must be 1, 2, 4, 8 or 16"; return PCLR_ERR_INVALID_KNOB; }
    if (c.vector_width * (int)pclr__load_size(&c) > 32) { *why = "a load is at most 32 bytes: vector width x element size <= 32 (a map's y too)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if (c.groups_per_unit < 1 || c.groups_per_unit > 64) { *why = "groups per compute unit must be 1..64"; return PCLR_ERR_INVALID_KNOB; }
    if (c.variant == PCLR_VARIANT_SHUFFLE && c.wave_width != 32) { *why = "shuffles need a wave width of 32 (NVIDIA warps)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if (c.variant == PCLR_VARIANT_SHUFFLE && c.group_size < c.wave_width) { *why = "shuffles need a group of at least one wave"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if (c.variant == PCLR_VARIANT_COLLECTIVE && c.backend != PCLR_OPENCL) { *why = "work_group_reduce collectives exist only in OpenCL 2.0"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    if (c.backend == PCLR_VULKAN) { /* see "the GLSL kernel" */
        const int xbytes = c.vector_width * (int)pclr_type_size(c.type) * (c.components > 1 ? c.components : 1);
        const int ybytes = pclr__has_map(&c) && c.y_type ? xbytes / (int)pclr_type_size(c.type) * (int)pclr_type_size(c.y_type) : 4;
        if (c.accumulate == PCLR_EXACT && c.variant == PCLR_VARIANT_SHUFFLE) { *why = "Vulkan's exact sum merges in a tree in shared memory: variant naive, sequential or unrolled (not shuffle)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.layout != PCLR_LAYOUT_ONE) { /* one element a load, from 32-bit words */
            if (xbytes > 16 || ybytes > 16) { *why = "Vulkan layouts read elements (pixels) of at most 16 bytes"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        } else if ((xbytes != 4 && xbytes != 8 && xbytes != 16) || (ybytes != 4 && ybytes != 8 && ybytes != 16)) { *why = "Vulkan kernels load 4, 8 or 16 bytes at a time: vector width x element size (a map's y too)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    }
    {
        pclr__layout l;
        int simple = c.op == PCLR_SUM || c.op == PCLR_MIN || c.op == PCLR_MAX;
        pclr__layout_of(&c, &l);
        if (c.variant == PCLR_VARIANT_COLLECTIVE && (!simple || l.count != 1)) { *why = "the collective variant reduces one value: sum, min or max, not compensated"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.finish == PCLR_FINISH_ATOMIC && (!simple || l.count != 1 || (l.field[0].type != PCLR_UINT && l.field[0].type != PCLR_INT))) { *why = "atomic finish is exact only for sum, min and max in 32-bit integers"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.finish == PCLR_FINISH_PARTIALS && !pclr__state_is_element(&c)) { *why = "the partials finish re-reads its partials as elements: sum, min or max whose state is the element type"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
    }
    if (c.layout != PCLR_LAYOUT_ONE) { /* docs/layouts.md */
        if (c.layout != PCLR_LAYOUT_SEGMENTS && !c.pitch) c.pitch = c.cols;
        if (c.accumulate == PCLR_EXACT) { *why = "exact sums reduce one array into one result (their cells take 2 KiB of scratch per result): not in a layout"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.finish != PCLR_FINISH_LAST_GROUP) { *why = "layouts finish with last_group (a row shared by several groups is folded by its last group)"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.variant == PCLR_VARIANT_COLLECTIVE) { *why = "the collective variant reduces a whole group: not in a layout"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.vector_width != 1) { *why = "layouts load one element at a time (rows start anywhere): vector width 1"; return PCLR_ERR_UNSUPPORTED_COMBINATION; }
        if (c.lanes && !pclr__is_pow2_in(c.lanes, 1, c.group_size)) { *why = "lanes must be a power of two from 1 to the group size"; return PCLR_ERR_INVALID_KNOB; }
        if (c.layout != PCLR_LAYOUT_SEGMENTS && c.pitch < c.cols) { *why = "the pitch (elements between row starts) must be at least cols"; return PCLR_ERR_SIZE_OVERFLOW; }
        if (c.layout != PCLR_LAYOUT_SEGMENTS && c.rows > 1 && c.pitch > (UINT64_MAX - c.cols) / (c.rows - 1)) { *why = "rows x pitch overflows 64 bits"; return PCLR_ERR_SIZE_OVERFLOW; }
        { /* the results are written to host memory */
            const size_t rs = pclr_result_size(&c);
            if (rs && pclr_layout_results(&c) > SIZE_MAX / rs) { *why = "the layout's results (one per row, column or segment) overflow the address space"; return PCLR_ERR_SIZE_OVERFLOW; }
        }
    } else if (c.rows || c.cols || c.pitch || c.lanes) {
        *why = "rows, cols, pitch and lanes belong to a layout (set layout to rows, columns or segments)";
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
    }
    *out = c;
    return PCLR_OK;
}

PCLR__FN void pclr__appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = buf && *len < cap ? vsnprintf(buf + *len, cap - *len, fmt, ap) : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k > 0) *len += (size_t)k;
}

/* The generator's output buffer (see pclr__appendf). */
typedef struct pclr__writer { char *buf; size_t cap, len; } pclr__writer;

static void pclr__put(pclr__writer *w, const char *s) { pclr__appendf(w->buf, w->cap, &w->len, "%s", s); }

/* "type=float op=sum backend=opencl wave=32 ...": every knob in PCLR__KNOBS order. */
static void pclr__describe(pclr__writer *w, const pclr_config *c) {
    const char *sep = "";
#define PCLR__DESCRIBE_NAME(name, field) pclr__appendf(w->buf, w->cap, &w->len, "%s" #name "=%s", sep, pclr_##name##_name(c->field));
#define PCLR__DESCRIBE_NUMBER(name, field) pclr__appendf(w->buf, w->cap, &w->len, "%s" #name "=%d", sep, c->field);
#define PCLR__DESCRIBE(kind, name, field, macro, dflt) \
    PCLR__KNOB_KIND_##kind(PCLR__DESCRIBE_NAME, PCLR__DESCRIBE_NUMBER, PCLR__DESCRIBE_NUMBER)(name, field) sep = " ";
    PCLR__KNOBS(PCLR__DESCRIBE)
#undef PCLR__DESCRIBE
#undef PCLR__DESCRIBE_NAME
#undef PCLR__DESCRIBE_NUMBER
    if ((c->map && c->map[0]) || (c->op == PCLR_CUSTOM && c->reduce && c->reduce[0])) {
        /* quoted; text that could end a comment or a line is not repeated (a description's line breaks: "; ") */
        const int reduce = !(c->map && c->map[0]);
        const char *text[2];
        int k;
        text[0] = reduce ? c->reduce : c->map;
        text[1] = c->params ? c->params : "";
        for (k = 0; k < 2; ++k) {
            const char *q = text[k];
            while (((*q >= 0x20 && *q < 0x7f) || (reduce && !k && (*q == '\n' || *q == '\r' || *q == '\t'))) && *q != '"' && !(q[0] == '*' && q[1] == '/')) ++q;
            if (k && !text[1][0]) continue;
            if (*q || q - text[k] > (k || !reduce ? PCLR_MAP_MAX_LENGTH : PCLR_REDUCE_MAX_LENGTH)) {
                pclr__appendf(w->buf, w->cap, &w->len, " %s=\"(not printable)\"", k ? "params" : reduce ? "reduce" : "map");
                continue;
            }
            pclr__appendf(w->buf, w->cap, &w->len, " %s=\"", k ? "params" : reduce ? "reduce" : "map");
            for (q = text[k]; *q; ++q) {
                if (*q == '\n') pclr__appendf(w->buf, w->cap, &w->len, "; ");
                else pclr__appendf(w->buf, w->cap, &w->len, "%c", *q == '\r' || *q == '\t' ? ' ' : *q);
            }
            pclr__appendf(w->buf, w->cap, &w->len, "\"");
        }
        if (c->map_type) pclr__appendf(w->buf, w->cap, &w->len, " map_type=%s", pclr_type_name(c->map_type));
        if (c->y_type) pclr__appendf(w->buf, w->cap, &w->len, " y_type=%s", pclr_type_name(c->y_type));
        if (c->components > 1) pclr__appendf(w->buf, w->cap, &w->len, " components=%d", c->components);
    }
    if (c->layout != PCLR_LAYOUT_ONE) {
        pclr__appendf(w->buf, w->cap, &w->len, " layout=%s", pclr_layout_name(c->layout));
        if (c->rows || c->cols || c->pitch) pclr__appendf(w->buf, w->cap, &w->len, " rows=%llu cols=%llu pitch=%llu", (unsigned long long)c->rows,
                                              (unsigned long long)c->cols, (unsigned long long)c->pitch);
        if (c->lanes) pclr__appendf(w->buf, w->cap, &w->len, " lanes=%d", c->lanes);
    }
}

PCLR_API size_t pclr_config_describe(const pclr_config *cfg, char *buf, size_t cap) {
    pclr__writer w;
    w.buf = buf; w.cap = cap; w.len = 0;
    if (!cfg) pclr__put(&w, "(null config)");
    else pclr__describe(&w, cfg);
    if (buf && cap > 0) buf[w.len < cap ? w.len : cap - 1] = '\0';
    return w.len;
}

/* Finish a writer under the size-query protocol of pclr_kernel_source. */
static pclr_result pclr__finish_text(pclr__writer *w, size_t *size_needed) {
    if (size_needed) *size_needed = w->len + 1;
    if (!w->buf) return PCLR_OK;
    if (w->len + 1 > w->cap) {
        if (w->cap > 0) w->buf[0] = '\0';
        return PCLR_ERR_BUFFER_TOO_SMALL;
    }
    w->buf[w->len] = '\0';
    return PCLR_OK;
}

/* ---- writing a map out: OpenCL C, CUDA C or GLSL (lang 0, 1, 2)  >>mapgen */
enum { PCLR__ML_OPENCL, PCLR__ML_CUDA, PCLR__ML_GLSL };
/* keep: 32-bit integer min/max operands pass through pclr_keep (see pclr__gen_map);
   zero: the GLSL kernel's floating +0 literals are pclr_zero (see pclr__mzero) */
/* used: the nodes the kernel writes (NULL: all; a reduction's results stay on the host) */
typedef struct pclr__memit { pclr__writer *w; const pclr__mtree *t; int lang, keep, zero, zeros; const unsigned char *used; } pclr__memit; /* zeros: pclr_zero written */
#define PCLR__MPUTF(E, ...) pclr__appendf((E)->w->buf, (E)->w->cap, &(E)->w->len, __VA_ARGS__)

static const char *pclr__mtname(pclr_type t, int lang) {
    switch (t) {
    case PCLR_INT: return "int";
    case PCLR_UINT: return "uint";
    case PCLR_INT64: return lang == PCLR__ML_OPENCL ? "long" : lang == PCLR__ML_CUDA ? "pclr_i64" : "int64_t";
    case PCLR_UINT64: return lang == PCLR__ML_OPENCL ? "ulong" : lang == PCLR__ML_CUDA ? "pclr_u64" : "uint64_t";
    case PCLR_DOUBLE: return "double";
    default: return "float";
    }
}
static int pclr__mis_int(pclr_type t) { return t != PCLR_FLOAT && t != PCLR_DOUBLE; }
static int pclr__mis_signed(pclr_type t) { return t == PCLR_INT || t == PCLR_INT64; }
#ifndef PCLREDUCE_NO_MAP /* the writer */
/* the unsigned type of the same width */
static pclr_type pclr__munsigned(pclr_type t) { return t == PCLR_INT ? PCLR_UINT : t == PCLR_INT64 ? PCLR_UINT64 : t; }
/* a helper's name suffix */
static const char *pclr__msuffix(pclr_type t) {
    return t == PCLR_INT ? "int" : t == PCLR_UINT ? "uint" : t == PCLR_INT64 ? "long" : t == PCLR_UINT64 ? "ulong" : t == PCLR_FLOAT ? "float" : "double";
}

/* A real number as the language writes it, whatever the C locale's decimal point. */
static void pclr__mreal(pclr__memit *E, double d, int is_double) {
    char text[64];
    int k, has = 0;
    if (d - d != 0) { /* inf, -inf, NaN (a reduction's constants): by their bits */
        static const char *const fbits[3] = {"as_float(0x%sU)", "__int_as_float(0x%s)", "uintBitsToFloat(0x%su)"};
        static const char *const dbits[3] = {"as_double(0x%s00000000UL)", "__longlong_as_double(0x%s00000000ll)", "packDouble2x32(uvec2(0u, 0x%su))"};
        const char *hex = d != d ? (is_double ? "7ff80000" : "7fc00000") : d > 0 ? (is_double ? "7ff00000" : "7f800000") : (is_double ? "fff00000" : "ff800000");
        PCLR__MPUTF(E, is_double ? dbits[E->lang] : fbits[E->lang], hex);
        return;
    }
    snprintf(text, sizeof text, is_double ? "%.17g" : "%.9g", d);
    for (k = 0; text[k]; ++k) {
        if (text[k] == ',') text[k] = '.';
        if (text[k] == '.' || text[k] == 'e') has = 1;
    }
    PCLR__MPUTF(E, "%s%s%s", text, has ? "" : ".0", is_double ? (E->lang == PCLR__ML_GLSL ? "lf" : "") : "f");
}

static void pclr__mnode_text(pclr__memit *E, int id);

/* Node id is a literal that is +0 as a `to` (float or double) and E writes
   such zeros as pclr_zero: a +0 the compiler cannot see. Drivers fold a
   literal zero operand before any float controls apply (lavapipe's LLVM IR
   builder turns x * 0.0 into 0 and -0.0 + 0.0 into -0.0), where C gives NaN
   for x = inf and +0. */
static int pclr__mzero_lit(const pclr__mnode *m) {
    uint64_t bits;
    if (m->kind != PCLR__MN_LIT) return 0;
    if (pclr__mis_int((pclr_type)m->type)) return m->v.u == 0;
    memcpy(&bits, &m->v.d, sizeof bits);
    return bits == 0;
}
static int pclr__mzero(const pclr__memit *E, int id, pclr_type to) {
    return E->zero && !pclr__mis_int(to) && pclr__mzero_lit(&E->t->node[id]);
}

/* node id converted to type `to` */
static void pclr__mas(pclr__memit *E, int id, pclr_type to) {
    const pclr_type from = (pclr_type)E->t->node[id].type;
    if (pclr__mzero(E, id, to)) { pclr__put(E->w, to == PCLR_DOUBLE ? "double(pclr_zero)" : "pclr_zero"); ++E->zeros; return; }
    if (from == to) { pclr__mnode_text(E, id); return; }
    if (pclr__mis_int(to) && !pclr__mis_int(from)) { /* saturating, NaN to 0: a helper (NVIDIA's conversions give INT_MIN for NaN) */
        PCLR__MPUTF(E, "pclr_%s_of_%s(", pclr__msuffix(to), pclr__msuffix(from));
    } else {
        PCLR__MPUTF(E, E->lang == PCLR__ML_GLSL ? "%s(" : "(%s)(", pclr__mtname(to, E->lang));
    }
    pclr__mnode_text(E, id);
    pclr__put(E->w, ")");
}

/* "(T)" or "T(" ... for a cast around text the caller writes (GLSL needs the closing parenthesis) */
static void pclr__mcast_open(pclr__memit *E, pclr_type to) {
    PCLR__MPUTF(E, E->lang == PCLR__ML_GLSL ? "%s(" : "(%s)(", pclr__mtname(to, E->lang));
}

/* a float function's name in the language */
static const char *pclr__mfname(pclr__memit *E, int f, pclr_type t) {
    static const char *const cl[PCLR__MF_COUNT] = {"fabs", 0, 0, 0, "sqrt", "rsqrt", "exp", "exp2", "log", "log2", "pow", "sin", "cos",
                                                   "floor", "ceil", "round", "fma", "isnan", "isinf"};
    static const char *const cuf[PCLR__MF_COUNT] = {"fabsf", 0, 0, 0, "sqrtf", "rsqrtf", "expf", "exp2f", "logf", "log2f", "powf", "sinf",
                                                    "cosf", "floorf", "ceilf", "roundf", "fmaf", "isnan", "isinf"};
    static const char *const gl[PCLR__MF_COUNT] = {"abs", 0, 0, 0, "sqrt", "inversesqrt", "exp", "exp2", "log", "log2", "pow", "sin", "cos",
                                                   "floor", "ceil", "pclr_round", "fma", "isnan", "isinf"};
    if (E->lang == PCLR__ML_OPENCL) return cl[f];
    if (E->lang == PCLR__ML_GLSL) return gl[f];
    return t == PCLR_DOUBLE ? cl[f] : cuf[f];
}

static void pclr__mzero_test(pclr__memit *E, int id, int want_nonzero) {
    /* C reads any nonzero value (NaN too) as true; GLSL wants a bool */
    if (E->lang != PCLR__ML_GLSL) { /* (OpenCL C refuses a float where a condition goes) */
        pclr__put(E->w, "(");
        pclr__mnode_text(E, id);
        PCLR__MPUTF(E, " %s 0)", want_nonzero ? "!=" : "==");
        return;
    }
    pclr__put(E->w, "(");
    pclr__mnode_text(E, id);
    PCLR__MPUTF(E, " %s %s(0))", want_nonzero ? "!=" : "==", pclr__mtname((pclr_type)E->t->node[id].type, E->lang));
}

static void pclr__mnode_text(pclr__memit *E, int id) {
    const pclr__mnode *m = &E->t->node[id];
    const pclr_type t = (pclr_type)m->type;
    const int L = E->lang;
    int k;
    switch (m->kind) {
    case PCLR__MN_LIT:
        if (pclr__mzero(E, id, t)) { pclr__put(E->w, t == PCLR_DOUBLE ? "double(pclr_zero)" : "pclr_zero"); ++E->zeros; }
        else if (t == PCLR_FLOAT || t == PCLR_DOUBLE) pclr__mreal(E, m->v.d, t == PCLR_DOUBLE);
        else if ((t == PCLR_INT && (int32_t)(uint32_t)m->v.u < 0) || (t == PCLR_INT64 && (int64_t)m->v.u < 0)) {
            /* (a negative constant: INT_MIN, LONG_MIN; the language writes no other) */
            const char *sx = t == PCLR_INT ? "" : L == 0 ? "L" : L == 1 ? "ll" : "l";
            const uint64_t mag = t == PCLR_INT ? (uint64_t)(0u - (uint32_t)m->v.u) : 0 - m->v.u;
            PCLR__MPUTF(E, "(-%llu%s - 1%s)", (unsigned long long)(mag - 1), sx, sx);
        } else PCLR__MPUTF(E, "%llu%s", (unsigned long long)m->v.u,
                         t == PCLR_INT ? "" : t == PCLR_UINT ? "u" : t == PCLR_INT64 ? (L == 0 ? "L" : L == 1 ? "ll" : "l")
                                                                  : (L == 0 ? "UL" : L == 1 ? "ull" : "ul"));
        break;
    case PCLR__MN_X: case PCLR__MN_Y: {
        const pclr_type et = m->kind == PCLR__MN_X ? E->t->x : E->t->y;
        const char *name = m->kind == PCLR__MN_X ? "x" : "y";
        char raw[8];
        snprintf(raw, sizeof raw, "%s%s%c", name, m->op < 4 ? "." : "", m->op < 4 ? "xyzw"[m->op] : '\0');
        if (L == PCLR__ML_GLSL || et == t) pclr__put(E->w, raw); /* GLSL takes promoted inputs */
        else if (et == PCLR_HALF) PCLR__MPUTF(E, "pclr_half_to_float(%s)", raw);
        else PCLR__MPUTF(E, "(int)%s", raw);
        break;
    }
    case PCLR__MN_I: pclr__put(E->w, "i"); break;
    case PCLR__MN_PARAM: PCLR__MPUTF(E, "p%d", m->op); break;
    case PCLR__MN_FIELD: /* s (the state being assigned), a or b; a one-field state is its field */
        if (E->t->fields == 1) PCLR__MPUTF(E, "%c", "sab"[m->v.u]);
        else PCLR__MPUTF(E, "%c.f_%s", "sab"[m->v.u], E->t->fname[m->op]);
        break;
    case PCLR__MN_NEG:
        if (pclr__mis_signed(t)) { /* wraps: negate the unsigned bits */
            pclr__mcast_open(E, t);
            PCLR__MPUTF(E, "%s - ", L == PCLR__ML_GLSL ? (t == PCLR_INT ? "0u" : "0ul") : (t == PCLR_INT ? "0u" : L == 0 ? "0UL" : "0ull"));
            pclr__mas(E, m->a[0], pclr__munsigned(t));
            pclr__put(E->w, ")");
        } else {
            pclr__put(E->w, "(-");
            pclr__mnode_text(E, m->a[0]);
            pclr__put(E->w, ")");
        }
        break;
    case PCLR__MN_NOT:
        pclr__mcast_open(E, PCLR_INT);
        pclr__mzero_test(E, m->a[0], 0);
        pclr__put(E->w, ")");
        break;
    case PCLR__MN_BNOT:
        pclr__put(E->w, "(~");
        pclr__mnode_text(E, m->a[0]);
        pclr__put(E->w, ")");
        break;
    case PCLR__MN_BIN: {
        const int op = m->op;
        const pclr_type ct = op >= PCLR__MB_LT ? pclr__mcommon((pclr_type)E->t->node[m->a[0]].type, (pclr_type)E->t->node[m->a[1]].type) : t;
        if (op == PCLR__MB_AND || op == PCLR__MB_OR) {
            pclr__mcast_open(E, PCLR_INT);
            pclr__mzero_test(E, m->a[0], 1);
            pclr__put(E->w, op == PCLR__MB_AND ? " && " : " || ");
            pclr__mzero_test(E, m->a[1], 1);
            pclr__put(E->w, ")");
        } else if (op >= PCLR__MB_LT) {
            pclr__mcast_open(E, PCLR_INT);
            pclr__mas(E, m->a[0], ct);
            PCLR__MPUTF(E, " %s ", pclr__mbin_text[op]);
            pclr__mas(E, m->a[1], ct);
            pclr__put(E->w, ")");
        } else if ((op == PCLR__MB_DIV || op == PCLR__MB_MOD) && pclr__mis_int(t)) {
            PCLR__MPUTF(E, "pclr_%s_%s(", op == PCLR__MB_DIV ? "div" : "mod", pclr__msuffix(t));
            pclr__mas(E, m->a[0], t);
            pclr__put(E->w, ", ");
            pclr__mas(E, m->a[1], t);
            pclr__put(E->w, ")");
        } else if (op == PCLR__MB_MOD) { /* floats: C's fmod */
            PCLR__MPUTF(E, "%s(", L == PCLR__ML_GLSL ? (t == PCLR_DOUBLE ? "pclr_fmod_double" : "pclr_fmod_float")
                                  : L == PCLR__ML_CUDA && t == PCLR_FLOAT ? "fmodf" : "fmod");
            pclr__mas(E, m->a[0], t);
            pclr__put(E->w, ", ");
            pclr__mas(E, m->a[1], t);
            pclr__put(E->w, ")");
        } else if (op == PCLR__MB_SHL || op == PCLR__MB_SHR) {
            /* the count (as uint) modulo the left operand's width, written out: C's and GLSL's shifts are undefined
               past the width; a signed << shifts the unsigned bits (no signed overflow); >> fills a negative with ones */
            const int signed_shl = op == PCLR__MB_SHL && pclr__mis_signed(t);
            if (signed_shl) {
                pclr__mcast_open(E, t);
                pclr__mas(E, m->a[0], pclr__munsigned(t));
            } else {
                pclr__put(E->w, "(");
                pclr__mas(E, m->a[0], t);
            }
            PCLR__MPUTF(E, " %s (", pclr__mbin_text[op]);
            pclr__mas(E, m->a[1], PCLR_UINT);
            PCLR__MPUTF(E, " & %du))", t == PCLR_INT64 || t == PCLR_UINT64 ? 63 : 31);
        } else if (PCLR__MB_BITWISE(op)) { /* & | ^: no overflow, signed too */
            pclr__put(E->w, "(");
            pclr__mas(E, m->a[0], t);
            PCLR__MPUTF(E, " %s ", pclr__mbin_text[op]);
            pclr__mas(E, m->a[1], t);
            pclr__put(E->w, ")");
        } else if (pclr__mis_signed(t) && op != PCLR__MB_DIV) { /* wraps: on the unsigned bits */
            const pclr_type u = pclr__munsigned(t);
            pclr__mcast_open(E, t);
            pclr__mas(E, m->a[0], u);
            PCLR__MPUTF(E, " %s ", pclr__mbin_text[op]);
            pclr__mas(E, m->a[1], u);
            pclr__put(E->w, ")");
        } else {
            pclr__put(E->w, "(");
            pclr__mas(E, m->a[0], t);
            PCLR__MPUTF(E, " %s ", pclr__mbin_text[op]);
            pclr__mas(E, m->a[1], t);
            pclr__put(E->w, ")");
        }
        break;
    }
    case PCLR__MN_COND: /* GLSL: ?:; the C dialects: pclr_sel_T, whose arguments are evaluated first (NVVM
                           branched around a nested ?: whose arms it did not speculate) */
        if (E->lang == PCLR__ML_GLSL) pclr__put(E->w, "(");
        else PCLR__MPUTF(E, "pclr_sel_%s(", pclr__msuffix(t));
        pclr__mzero_test(E, m->a[0], 1);
        pclr__put(E->w, E->lang == PCLR__ML_GLSL ? " ? " : ", ");
        pclr__mas(E, m->a[1], t);
        pclr__put(E->w, E->lang == PCLR__ML_GLSL ? " : " : ", ");
        pclr__mas(E, m->a[2], t);
        pclr__put(E->w, ")");
        break;
    case PCLR__MN_CAST: pclr__mas(E, m->a[0], t); break;
    default: { /* PCLR__MN_CALL */
        const int f = m->op;
        pclr_type at = t; /* the type the arguments are converted to */
        if (pclr__mfuncs[f].kind == 2) at = pclr__mfloating((pclr_type)E->t->node[m->a[0]].type);
        if (f == PCLR__MF_MIN || f == PCLR__MF_MAX || (f == PCLR__MF_ABS && pclr__mis_signed(t))) {
            PCLR__MPUTF(E, "pclr_%s_%s(", pclr__mfuncs[f].name, pclr__msuffix(t));
        } else if (f == PCLR__MF_ABS && pclr__mis_int(t)) { /* unsigned: itself */
            pclr__mnode_text(E, m->a[0]);
            break;
        } else if (f == PCLR__MF_CLAMP) { /* min(max(a, lo), hi) */
            PCLR__MPUTF(E, "pclr_min_%s(pclr_max_%s(", pclr__msuffix(t), pclr__msuffix(t));
            pclr__mas(E, m->a[0], t);
            pclr__put(E->w, ", ");
            pclr__mas(E, m->a[1], t);
            pclr__put(E->w, "), ");
            pclr__mas(E, m->a[2], t);
            pclr__put(E->w, ")");
            break;
        } else if (pclr__mfuncs[f].kind == 2) {
            pclr__mcast_open(E, PCLR_INT);
            PCLR__MPUTF(E, "%s(", pclr__mfname(E, f, at));
        } else if (L == PCLR__ML_GLSL && t == PCLR_DOUBLE && f >= PCLR__MF_EXP && f <= PCLR__MF_COS) {
            PCLR__MPUTF(E, "pclr_%s_double(", pclr__mfname(E, f, t)); /* GLSL has these for float only: helpers in double */
        } else if (f == PCLR__MF_RSQRT && L != PCLR__ML_GLSL) { /* 1 / sqrt: the same on every C-like language */
            PCLR__MPUTF(E, "(%s / %s(", t == PCLR_DOUBLE ? "1.0" : "1.0f", pclr__mfname(E, PCLR__MF_SQRT, t));
        } else {
            PCLR__MPUTF(E, "%s(", pclr__mfname(E, f, t));
        }
        for (k = 0; k < m->n; ++k) {
            if (k) pclr__put(E->w, ", ");
            pclr__mas(E, m->a[k], at);
        }
        pclr__put(E->w, pclr__mfuncs[f].kind == 2 || (f == PCLR__MF_RSQRT && L != PCLR__ML_GLSL) ? "))" : ")");
        break;
    }
    }
}

/* GLSL helpers for C's exp, exp2, log, log2, pow, sin, cos in double (GLSL has them for float only) and
   for float and double `%` (C's fmod, exact), written only where a map uses them. Error-free steps
   (Cody-Waite, TwoSum, TwoProd) need each operation rounded once, as written: their variables are
   `precise` (no contraction into fma, no reordering), and exact products are Dekker's, as Vulkan's
   fma() need not be fused (lavapipe's is not). Against glibc (test_vulkan's test_double_math): within
   1 ulp, subnormal results too where the device keeps subnormals; sin and cos reduce by Cody-Waite
   below 2^30 and by Payne-Hanek above, so every finite double. The coefficients are Taylor's (1/n!,
   2/(2n+1)); ln2, pi/2 and 2/pi are split in doubles (2/pi's 1184 bits in 32-bit words). */
#define PCLR__GLSL_TWO_PROD \
    "/* a b = hi + lo exactly (Dekker; Veltkamp's split in 26 + 27 bits): Vulkan's fma() need not be fused\n" \
    "   (lavapipe's is not), so no fma anywhere here. |a|, |b| < 2^995 */\n" \
    "dvec2 pclr_two_prod(double a, double b) {\n" \
    "    precise double ca = 134217729.0lf * a, ah = ca - (ca - a), al = a - ah;\n" \
    "    precise double cb = 134217729.0lf * b, bh = cb - (cb - b), bl = b - bh;\n" \
    "    precise double p = a * b, e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;\n" \
    "    return dvec2(p, e);\n" \
    "}\n"
#define PCLR__GLSL_EXP_DD \
    "/* e^(xh + xl), xl a small correction (C's exp in double: GLSL has exp for float only) */\n" \
    "double pclr_exp_dd(double xh, double xl) {\n" \
    "    if (xh > 710.0lf) return uint64BitsToDouble(0x7ff0000000000000ul); /* past 709.78: inf */\n" \
    "    if (xh < -746.0lf) return 0.0lf; /* below log(2^-1075): 0 */\n" \
    "    /* x = k ln2 + r, |r| <= ln2/2 (Cody-Waite): k times ln2's first 42 bits, and xh minus that, are exact */\n" \
    "    precise double k = round(xh * 1.4426950408889634lf);\n" \
    "    precise double r1 = xh - k * 0.69314718055989033lf;\n" \
    "    precise double c = xl - k * 5.4979230187083712e-14lf; /* ln2's next 53 bits */\n" \
    "    precise double r = r1 + c, rb = r - r1, rl = (r1 - (r - rb)) + (c - rb); /* r + rl = r1 + c (TwoSum) */\n" \
    "    /* e^r - 1 - r = r^2 q(r): Taylor to r^13/13!, the rest below 2^-57 of e^r */\n" \
    "    precise double q = 1.6059043836821613e-10lf;\n" \
    "    q = q * r + 2.08767569878681e-09lf;\n" \
    "    q = q * r + 2.505210838544172e-08lf;\n" \
    "    q = q * r + 2.7557319223985888e-07lf;\n" \
    "    q = q * r + 2.7557319223985893e-06lf;\n" \
    "    q = q * r + 2.4801587301587302e-05lf;\n" \
    "    q = q * r + 0.00019841269841269841lf;\n" \
    "    q = q * r + 0.0013888888888888889lf;\n" \
    "    q = q * r + 0.0083333333333333332lf;\n" \
    "    q = q * r + 0.041666666666666664lf;\n" \
    "    q = q * r + 0.16666666666666666lf;\n" \
    "    q = q * r + 0.5lf;\n" \
    "    precise double s = 1.0lf + r, se = (1.0lf - s) + r; /* 1 + r exactly: one rounding at the end */\n" \
    "    precise double y = s + (se + (r * r * q + rl * s));\n" \
    "    /* times 2^k from its bits; past 2^1023 or below 2^-1022 in two steps, the second rounding once (gradual\n" \
    "       underflow). precise: a compiler may not fold 2^1023 * 2 into inf */\n" \
    "    int ki = int(k);\n" \
    "    if (ki > 1023) y = y * 8.9884656743115795e+307lf * 2.0lf;\n" \
    "    else if (ki < -1022) y = y * uint64BitsToDouble(uint64_t(ki + 2023) << 52) * 9.3326361850321888e-302lf;\n" \
    "    else y = y * uint64BitsToDouble(uint64_t(ki + 1023) << 52);\n" \
    "    return y;\n" \
    "}\n"
#define PCLR__GLSL_EXP \
    "double pclr_exp_double(double x) { return x != x ? x : pclr_exp_dd(x, 0.0lf); }\n"
#define PCLR__GLSL_EXP2 \
    "double pclr_exp2_double(double x) { /* e^(x ln2), x ln2 in double-double (beyond +-1100 only its sign matters) */\n" \
    "    if (x != x) return x;\n" \
    "    dvec2 h = pclr_two_prod(clamp(x, -1100.0lf, 1100.0lf), 0.69314718055994529lf);\n" \
    "    precise double l = h.y + x * 2.3190468138462996e-17lf;\n" \
    "    return pclr_exp_dd(h.x, l);\n" \
    "}\n"
#define PCLR__GLSL_LOG_DD \
    "/* log(x) as hi + lo, about 2^-64 apart, for finite x > 0 (C's log in double: GLSL has log for float only) */\n" \
    "dvec2 pclr_log_dd(double x) {\n" \
    "    uint64_t b = doubleBitsToUint64(x);\n" \
    "    int e = int(b >> 52) - 1023;\n" \
    "    if (e == -1023) { /* subnormal: its integer mantissa, exactly, times 2^-1074 */\n" \
    "        b = doubleBitsToUint64(double(b));\n" \
    "        e = int(b >> 52) - 1023 - 1074;\n" \
    "    }\n" \
    "    /* x = 2^e m, m in [sqrt(1/2), sqrt(2)) */\n" \
    "    precise double m = uint64BitsToDouble((b & 0x000ffffffffffffful) | 0x3ff0000000000000ul);\n" \
    "    if (m > 1.4142135623730951lf) { m = m * 0.5lf; e += 1; }\n" \
    "    /* log(m) = 2 atanh(s) = 2s + s^3 R(s^2), s = f / (2 + f), f = m - 1 (exact), |s| < 0.1716 */\n" \
    "    precise double f = m - 1.0lf;\n" \
    "    precise double u = 2.0lf + f, ul = (2.0lf - u) + f; /* 2 + f = u + ul */\n" \
    "    precise double s = f / u;\n" \
    "    dvec2 su = pclr_two_prod(s, u);\n" \
    "    precise double sl = (((f - su.x) - su.y) - s * ul) / u; /* s + sl = f / (2 + f); f - su.x exact */\n" \
    "    dvec2 ss = pclr_two_prod(s, s);\n" \
    "    precise double z = ss.x, zl = ss.y + 2.0lf * s * sl; /* s^2 = z + zl */\n" \
    "    /* R(z) = sum 2 z^(n-1) / (2n+1), n = 1..12 (the rest below 2^-70); 2/3 in two parts */\n" \
    "    precise double t = 0.080000000000000002lf;\n" \
    "    t = t * z + 0.086956521739130432lf;\n" \
    "    t = t * z + 0.095238095238095233lf;\n" \
    "    t = t * z + 0.10526315789473684lf;\n" \
    "    t = t * z + 0.11764705882352941lf;\n" \
    "    t = t * z + 0.13333333333333333lf;\n" \
    "    t = t * z + 0.15384615384615385lf;\n" \
    "    t = t * z + 0.18181818181818182lf;\n" \
    "    t = t * z + 0.22222222222222221lf;\n" \
    "    t = t * z + 0.2857142857142857lf;\n" \
    "    t = t * z + 0.40000000000000002lf;\n" \
    "    t = t * z;\n" \
    "    precise double R = 0.66666666666666663lf + t, Rl = ((0.66666666666666663lf - R) + t) + 3.7007434154171883e-17lf;\n" \
    "    dvec2 zr = pclr_two_prod(z, R);\n" \
    "    precise double w = zr.x, wl = zr.y + (z * Rl + zl * R); /* s^2 R */\n" \
    "    dvec2 sw = pclr_two_prod(s, w);\n" \
    "    precise double c = sw.x, cl = sw.y + (s * wl + sl * w); /* s^3 R */\n" \
    "    precise double h = 2.0lf * s + c, hl = ((2.0lf * s - h) + c) + (2.0lf * sl + cl); /* log(m) */\n" \
    "    /* + e ln2: ln2's first 42 bits times e exact */\n" \
    "    precise double a = double(e) * 0.69314718055989033lf;\n" \
    "    precise double v = a + h, vb = v - a, vl = ((a - (v - vb)) + (h - vb)) + (hl + double(e) * 5.4979230187083712e-14lf);\n" \
    "    precise double hi = v + vl, lo = vl - (hi - v);\n" \
    "    return dvec2(hi, lo);\n" \
    "}\n"
#define PCLR__GLSL_LOG \
    "double pclr_log_double(double x) { /* -inf at +-0, NaN below 0 */\n" \
    "    if (x == 0.0lf) return uint64BitsToDouble(0xfff0000000000000ul);\n" \
    "    if (!(x > 0.0lf)) return x != x ? x : uint64BitsToDouble(0x7ff8000000000000ul);\n" \
    "    return isinf(x) ? x : pclr_log_dd(x).x;\n" \
    "}\n"
#define PCLR__GLSL_LOG2 \
    "double pclr_log2_double(double x) { /* log(x) / ln2 in double-double */\n" \
    "    if (x == 0.0lf) return uint64BitsToDouble(0xfff0000000000000ul);\n" \
    "    if (!(x > 0.0lf)) return x != x ? x : uint64BitsToDouble(0x7ff8000000000000ul);\n" \
    "    if (isinf(x)) return x;\n" \
    "    dvec2 l = pclr_log_dd(x);\n" \
    "    dvec2 h = pclr_two_prod(l.x, 1.4426950408889634lf);\n" \
    "    precise double r = h.x + (h.y + (l.x * 2.0355273740931033e-17lf + l.y * 1.4426950408889634lf));\n" \
    "    return r;\n" \
    "}\n"
#define PCLR__GLSL_POW \
    "double pclr_pow_double(double x, double y) { /* C99 Annex F's special cases, else e^(y log|x|) with both in double-double */\n" \
    "    if (y == 0.0lf || x == 1.0lf) return 1.0lf;\n" \
    "    if (x != x || y != y) return x + y;\n" \
    "    precise double ax = abs(x);\n" \
    "    bool neg = (doubleBitsToUint64(x) >> 63) != 0ul; /* -0 too */\n" \
    "    if (isinf(y)) return ax == 1.0lf ? 1.0lf : (ax < 1.0lf) == (y < 0.0lf) ? uint64BitsToDouble(0x7ff0000000000000ul) : 0.0lf;\n" \
    "    bool integer = trunc(y) == y, odd = integer && abs(y) < 9007199254740992.0lf && (int64_t(y) & 1l) != 0l;\n" \
    "    precise double r;\n" \
    "    if (ax == 0.0lf || isinf(ax)) { /* 0 or inf by y's sign, with x's sign where y is odd */\n" \
    "        r = (ax == 0.0lf) == (y < 0.0lf) ? uint64BitsToDouble(0x7ff0000000000000ul) : 0.0lf;\n" \
    "    } else if (neg && !integer) {\n" \
    "        return uint64BitsToDouble(0x7ff8000000000000ul);\n" \
    "    } else if (ax == 1.0lf) { /* -1 to an integer: +-1 */\n" \
    "        r = 1.0lf;\n" \
    "    } else {\n" \
    "        dvec2 l = pclr_log_dd(ax);\n" \
    "        dvec2 p = pclr_two_prod(y, l.x); /* |y| < 2^63 where |y log|x|| < 746 (else p.y is unused) */\n" \
    "        precise double pl = p.y + y * l.y;\n" \
    "        r = pclr_exp_dd(p.x, pl);\n" \
    "    }\n" \
    "    return neg && odd ? -r : r;\n" \
    "}\n"
#define PCLR__GLSL_REM_PIO2 \
    "/* 2/pi = sum pclr_2opi[j] 2^(-32 (j+1)): the bits a Payne-Hanek reduction of a huge x needs */\n" \
    "const uint pclr_2opi[37] = uint[](\n" \
    "    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u,\n" \
    "    0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u,\n" \
    "    0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,\n" \
    "    0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu,\n" \
    "    0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u\n" \
    ");\n" \
    "/* x = (n + f) pi/2 for |x| >= 2^30 (Payne-Hanek): x = M 2^E, M's 53 bits times the 224 bits of 2/pi from where\n" \
    "   the product's bits stop being multiples of 4; returns r = f pi/2, |f| <= 1/2, as hi, lo, and n mod 4 */\n" \
    "dvec2 pclr_rem_pio2(double x, out int n) {\n" \
    "    uint64_t b = doubleBitsToUint64(abs(x)), m = (b & 0x000ffffffffffffful) | 0x0010000000000000ul, carry = 0ul;\n" \
    "    int e = int(b >> 52) - 1075, j0 = max(0, (e - 2) >> 5), s = 32 * (j0 + 7) - e; /* x 2/pi = P 2^-s, s in [191, 246] */\n" \
    "    /* P = m times words j0..j0+6 in 32-bit limbs, least significant first (limbs 8 up, bits >= 256 > s + 2: multiples of 4) */\n" \
    "    uint p[8];\n" \
    "    for (int i = 0; i < 7; ++i) {\n" \
    "        uint64_t v = uint64_t(pclr_2opi[j0 + 6 - i]) * (m & 0xfffffffful) + carry;\n" \
    "        p[i] = uint(v);\n" \
    "        carry = v >> 32;\n" \
    "    }\n" \
    "    p[7] = uint(carry);\n" \
    "    carry = 0ul;\n" \
    "    for (int i = 0; i < 6; ++i) {\n" \
    "        uint64_t v = uint64_t(pclr_2opi[j0 + 6 - i]) * (m >> 32) + p[i + 1] + carry;\n" \
    "        p[i + 1] = uint(v);\n" \
    "        carry = v >> 32;\n" \
    "    }\n" \
    "    p[7] += uint(pclr_2opi[j0] * uint(m >> 32)) + uint(carry);\n" \
    "    /* 128 bits of P from bit s + 2 down: n (2 bits), then f in 126 bits (fh 62, fl 64) */\n" \
    "    uint64_t w[2];\n" \
    "    for (int h = 0; h < 2; ++h) {\n" \
    "        int at = s + 2 - 64 * (h + 1), a = at >> 5, sh = at & 31;\n" \
    "        uint64_t v = (uint64_t(p[a + 1]) << 32) | uint64_t(p[a]);\n" \
    "        w[h] = sh == 0 ? v : (v >> sh) | (uint64_t(p[a + 2]) << (64 - sh));\n" \
    "    }\n" \
    "    uint64_t fh = w[0] & 0x3ffffffffffffffful, fl = w[1];\n" \
    "    n = int(w[0] >> 62);\n" \
    "    bool neg = fh >= 0x2000000000000000ul; /* f >= 1/2: f - 1 (2^126 minus the bits), n + 1 */\n" \
    "    if (neg) {\n" \
    "        fh = 0x3ffffffffffffffful - fh + (fl == 0ul ? 1ul : 0ul);\n" \
    "        fl = 0ul - fl;\n" \
    "        n += 1;\n" \
    "    }\n" \
    "    /* f as hi + lo (fh's 62 bits in two doubles, exactly), then times pi/2 in double-double */\n" \
    "    precise double a = double(fh), c = double(int64_t(fh) - int64_t(a)) + double(fl) * 5.4210108624275222e-20lf; /* 2^-64 */\n" \
    "    precise double h = a + c, l = c - (h - a);\n" \
    "    h = h * 2.1684043449710089e-19lf; /* 2^-62 */\n" \
    "    l = l * 2.1684043449710089e-19lf;\n" \
    "    dvec2 r = pclr_two_prod(h, 1.5707963267948966lf);\n" \
    "    precise double rl = r.y + (h * 6.123233995736766e-17lf + l * 1.5707963267948966lf);\n" \
    "    precise double hi = r.x + rl, lo = rl - (hi - r.x);\n" \
    "    if (neg != (x < 0.0lf)) { hi = -hi; lo = -lo; }\n" \
    "    if (x < 0.0lf) n = -n;\n" \
    "    n = n & 3;\n" \
    "    return dvec2(hi, lo);\n" \
    "}\n"
#define PCLR__GLSL_SINCOS \
    "/* sin(x) (c = 0) or cos(x) (c = 1) (GLSL has them for float only): x = n pi/2 + r, r in double-double by Cody-Waite\n" \
    "   (pi/2 in 3 doubles, exact products) below 2^30, by Payne-Hanek above; then +-sin or +-cos of r */\n" \
    "double pclr_sincos_double(double x, int c) {\n" \
    "    if (isinf(x) || x != x) return uint64BitsToDouble(0x7ff8000000000000ul);\n" \
    "    if (x == 0.0lf) return c == 0 ? x : 1.0lf; /* sin(-0) = -0 */\n" \
    "    precise double r = x, rl = 0.0lf;\n" \
    "    int n = 0;\n" \
    "    if (abs(x) >= 1073741824.0lf) {\n" \
    "        dvec2 v = pclr_rem_pio2(x, n);\n" \
    "        r = v.x;\n" \
    "        rl = v.y;\n" \
    "    } else if (abs(x) > 0.78539816339744828lf) {\n" \
    "        precise double k = round(x * 0.63661977236758138lf);\n" \
    "        dvec2 a = pclr_two_prod(k, 1.5707963267948966lf), b = pclr_two_prod(k, 6.123233995736766e-17lf); /* k P1, k P2 */\n" \
    "        precise double r1 = x - a.x; /* exact: a.x is x's neighbour (Sterbenz) */\n" \
    "        precise double s1 = r1 - a.y, v1 = s1 - r1, e1 = (r1 - (s1 - v1)) - (a.y + v1); /* r1 - a.y = s1 + e1 (TwoSum) */\n" \
    "        precise double s2 = s1 - b.x, v2 = s2 - s1, e2 = (s1 - (s2 - v2)) - (b.x + v2); /* s1 - b.x = s2 + e2 */\n" \
    "        rl = (e1 + e2) - (b.y + k * -1.4973849048591698e-33lf); /* the rest, P3 the third part */\n" \
    "        r = s2 + rl;\n" \
    "        rl = rl - (r - s2);\n" \
    "        n = int(k) & 3;\n" \
    "    }\n" \
    "    dvec2 rr = pclr_two_prod(r, r);\n" \
    "    precise double z = rr.x, zl = rr.y + 2.0lf * r * rl, y;\n" \
    "    if (((n + c) & 1) == 0) { /* sin(r): Taylor to r^17/17! (the rest < 2^-62) */\n" \
    "        precise double p = 2.8114572543455206e-15lf;\n" \
    "        p = p * z - 7.6471637318198164e-13lf;\n" \
    "        p = p * z + 1.6059043836821613e-10lf;\n" \
    "        p = p * z - 2.505210838544172e-08lf;\n" \
    "        p = p * z + 2.7557319223985893e-06lf;\n" \
    "        p = p * z - 0.00019841269841269841lf;\n" \
    "        p = p * z + 0.0083333333333333332lf;\n" \
    "        p = p * z - 0.16666666666666666lf;\n" \
    "        y = r + (r * z * p + rl * (1.0lf - 0.5lf * z));\n" \
    "    } else { /* cos(r): 1 - r^2/2 + Taylor to r^18/18! */\n" \
    "        precise double p = -1.5619206968586225e-16lf;\n" \
    "        p = p * z + 4.7794773323873853e-14lf;\n" \
    "        p = p * z - 1.1470745597729725e-11lf;\n" \
    "        p = p * z + 2.08767569878681e-09lf;\n" \
    "        p = p * z - 2.7557319223985888e-07lf;\n" \
    "        p = p * z + 2.4801587301587302e-05lf;\n" \
    "        p = p * z - 0.0013888888888888889lf;\n" \
    "        p = p * z + 0.041666666666666664lf;\n" \
    "        precise double hz = 0.5lf * z, w = 1.0lf - hz;\n" \
    "        y = w + (((1.0lf - w) - hz) + (z * z * p - 0.5lf * zl));\n" \
    "    }\n" \
    "    return ((n + c) & 2) == 0 ? y : -y;\n" \
    "}\n"
#define PCLR__GLSL_SIN \
    "double pclr_sin_double(double x) { return pclr_sincos_double(x, 0); }\n"
#define PCLR__GLSL_COS \
    "double pclr_cos_double(double x) { return pclr_sincos_double(x, 1); }\n"
#define PCLR__GLSL_FMOD_FLOAT \
    "/* C's fmod, exact: |a| mod |b| by long division of the integer mantissas, 8 bits a step; a's sign */\n" \
    "float pclr_fmod_float(float a, float b) {\n" \
    "    uint ua = floatBitsToUint(a) & 0x7fffffffu, ub = floatBitsToUint(b) & 0x7fffffffu, sign = floatBitsToUint(a) & 0x80000000u;\n" \
    "    if (ub == 0u || ua >= 0x7f800000u || ub > 0x7f800000u) /* b 0, a inf, a or b NaN */\n" \
    "        return uintBitsToFloat(0x7fc00000u);\n" \
    "    if (ua < ub) return a; /* |a| < |b| (b inf too), a +-0 too */\n" \
    "    /* m 2^e, subnormals with e = 1 and no implicit bit */\n" \
    "    int ea = int(ua >> 23), eb = int(ub >> 23);\n" \
    "    uint ma = ea == 0 ? ua : (ua & 0x7fffffu) | 0x800000u, mb = eb == 0 ? ub : (ub & 0x7fffffu) | 0x800000u;\n" \
    "    ma %= mb;\n" \
    "    for (int d = max(ea, 1) - max(eb, 1); d > 0; d -= 8) ma = (ma << min(d, 8)) % mb;\n" \
    "    eb = max(eb, 1);\n" \
    "    while (ma != 0u && ma < 0x800000u && eb > 1) { ma <<= 1; eb--; } /* normalize: exponent 1 below 2^23 is a subnormal */\n" \
    "    return uintBitsToFloat(sign | (ma < 0x800000u ? ma : (uint(eb) << 23) + (ma - 0x800000u)));\n" \
    "}\n"
#define PCLR__GLSL_FMOD_DOUBLE \
    "/* C's fmod, exact: |a| mod |b| by long division of the integer mantissas, 11 bits a step; a's sign */\n" \
    "double pclr_fmod_double(double a, double b) {\n" \
    "    uint64_t ua = doubleBitsToUint64(a) & 0x7ffffffffffffffful, ub = doubleBitsToUint64(b) & 0x7ffffffffffffffful;\n" \
    "    uint64_t sign = doubleBitsToUint64(a) & 0x8000000000000000ul, one = 0x0010000000000000ul;\n" \
    "    if (ub == 0ul || ua >= 0x7ff0000000000000ul || ub > 0x7ff0000000000000ul) /* b 0, a inf, a or b NaN */\n" \
    "        return uint64BitsToDouble(0x7ff8000000000000ul);\n" \
    "    if (ua < ub) return a; /* |a| < |b| (b inf too), a +-0 too */\n" \
    "    /* m 2^e, subnormals with e = 1 and no implicit bit */\n" \
    "    int ea = int(ua >> 52), eb = int(ub >> 52);\n" \
    "    uint64_t ma = ea == 0 ? ua : (ua & (one - 1ul)) | one, mb = eb == 0 ? ub : (ub & (one - 1ul)) | one;\n" \
    "    ma %= mb;\n" \
    "    for (int d = max(ea, 1) - max(eb, 1); d > 0; d -= 11) ma = (ma << min(d, 11)) % mb;\n" \
    "    eb = max(eb, 1);\n" \
    "    while (ma != 0ul && ma < one && eb > 1) { ma <<= 1; eb--; } /* normalize: exponent 1 below 2^52 is a subnormal */\n" \
    "    return uint64BitsToDouble(sign | (ma < one ? ma : (uint64_t(eb) << 52) + (ma - one)));\n" \
    "}\n"

/* The helpers the tree uses, then its function pclr_map(x, [y,] i, [p0, ...]). */
/* The helpers the map's (or a reduction's) nodes call, each once: integer division and remainder by 0,
   abs, min and max, GLSL's fmod, round and double functions, float to integer conversions. */
static void pclr__mhelpers(pclr__memit *E) {
    const pclr__mtree *t = E->t;
    const int glsl = E->lang == PCLR__ML_GLSL;
    const char *fn = glsl ? "" : "PCLR_FN ";
    unsigned div = 0, mod = 0, absv = 0, mn = 0, mx = 0, fmodv = 0, rnd = 0, sel = 0, conv[6] = {0, 0, 0, 0, 0, 0};
    unsigned dmath = 0; /* GLSL: the double functions exp..cos used (bit f - PCLR__MF_EXP) */
    static const pclr_type all[6] = {PCLR_INT, PCLR_UINT, PCLR_INT64, PCLR_UINT64, PCLR_FLOAT, PCLR_DOUBLE};
    int k, j;
    for (k = 0; k < t->count; ++k) {
        const pclr__mnode *m = &t->node[k];
        const unsigned bit = 1u << m->type;
        if (E->used && !E->used[k]) continue;
        if (m->kind == PCLR__MN_BIN && m->op == PCLR__MB_DIV && pclr__mis_int((pclr_type)m->type)) div |= bit;
        if (m->kind == PCLR__MN_BIN && m->op == PCLR__MB_MOD) { if (pclr__mis_int((pclr_type)m->type)) mod |= bit; else fmodv |= bit; }
        if (m->kind == PCLR__MN_CALL && m->op == PCLR__MF_ABS && pclr__mis_signed((pclr_type)m->type)) absv |= bit;
        if (m->kind == PCLR__MN_CALL && (m->op == PCLR__MF_MIN || m->op == PCLR__MF_CLAMP)) mn |= bit;
        if (m->kind == PCLR__MN_CALL && (m->op == PCLR__MF_MAX || m->op == PCLR__MF_CLAMP)) mx |= bit;
        if (m->kind == PCLR__MN_CALL && m->op == PCLR__MF_ROUND) rnd |= bit;
        if (m->kind == PCLR__MN_COND && !glsl) sel |= bit;
        if (glsl && m->kind == PCLR__MN_CALL && m->type == PCLR_DOUBLE && m->op >= PCLR__MF_EXP && m->op <= PCLR__MF_COS)
            dmath |= 1u << (m->op - PCLR__MF_EXP);
    }
    { /* float to integer conversions: wherever a float meets an integer type */
        for (k = 0; k < t->count; ++k) {
            const pclr__mnode *m = &t->node[k];
            int a;
            if (E->used && !E->used[k]) continue;
            for (a = 0; a < m->n; ++a) {
                const pclr_type from = (pclr_type)t->node[m->a[a]].type;
                pclr_type to = (pclr_type)m->type;
                if (m->kind == PCLR__MN_BIN && m->op >= PCLR__MB_LT)
                    to = pclr__mcommon((pclr_type)t->node[m->a[0]].type, (pclr_type)t->node[m->a[1]].type);
                if (m->kind == PCLR__MN_CALL && pclr__mfuncs[m->op].kind == 2) to = from;
                if (pclr__mis_int(to) && !pclr__mis_int(from)) conv[from == PCLR_DOUBLE] |= 1u << to;
            }
        }
        if (t->root >= 0 && pclr__mis_int(t->type) && !pclr__mis_int((pclr_type)t->node[t->root].type))
            conv[t->node[t->root].type == PCLR_DOUBLE] |= 1u << t->type;
        for (k = 0; k < t->fields + t->lifts + t->merges; ++k) { /* a reduction's assignments to integer fields */
            const int f = k < t->fields ? k : k < t->fields + t->lifts ? t->lift[k - t->fields][0] : t->merge[k - t->fields - t->lifts][0];
            const int r = k < t->fields ? t->identity[k] : k < t->fields + t->lifts ? t->lift[k - t->fields][1] : t->merge[k - t->fields - t->lifts][1];
            if (pclr__mis_int(t->ftype[f]) && !pclr__mis_int((pclr_type)t->node[r].type)) conv[t->node[r].type == PCLR_DOUBLE] |= 1u << t->ftype[f];
        }
    }
    for (j = 0; j < 6; ++j) {
        const pclr_type ty = all[j];
        const char *T = pclr__mtname(ty, E->lang), *U = pclr__mtname(pclr__munsigned(ty), E->lang), *sx = pclr__msuffix(ty);
        char zero[32], uzero[40];
        snprintf(zero, sizeof zero, glsl ? "%s(0)" : "0", T);
        snprintf(uzero, sizeof uzero, glsl ? "%s(0)" : "(%s)0", U);
        if (sel & (1u << ty)) /* (no expression of the language traps: both sides may be evaluated) */
            PCLR__MPUTF(E, "%s%s pclr_sel_%s(int c, %s a, %s b) { return c ? a : b; } /* both sides first: a select, not a branch */\n",
                        fn, T, sx, T, T);
        if (div & (1u << ty)) {
            if (pclr__mis_signed(ty))
                PCLR__MPUTF(E, "%s%s pclr_div_%s(%s a, %s b) { return b == %s ? %s : b == %s(-1) ? %s(%s - %s(a)) : a / b; } /* by 0: 0; wraps */\n",
                            fn, T, sx, T, T, zero, zero, glsl ? T : "", glsl ? T : "", uzero, glsl ? U : "");
            else PCLR__MPUTF(E, "%s%s pclr_div_%s(%s a, %s b) { return b == %s ? %s : a / b; } /* by 0: 0 */\n", fn, T, sx, T, T, zero, zero);
        }
        if (mod & (1u << ty)) {
            if (pclr__mis_signed(ty))
                PCLR__MPUTF(E, "%s%s pclr_mod_%s(%s a, %s b) { return b == %s || b == %s(-1) ? %s : a %% b; } /* by 0: 0 */\n", fn, T, sx, T,
                            T, zero, glsl ? T : "", zero);
            else PCLR__MPUTF(E, "%s%s pclr_mod_%s(%s a, %s b) { return b == %s ? %s : a %% b; } /* by 0: 0 */\n", fn, T, sx, T, T, zero, zero);
        }
        if (absv & (1u << ty))
            PCLR__MPUTF(E, "%s%s pclr_abs_%s(%s a) { return a < %s ? %s(%s - %s(a)) : a; } /* wraps */\n", fn, T, sx, T, zero,
                        glsl ? T : "", uzero, glsl ? U : "");
        { /* min/max; 32-bit integers under keep pass through pclr_keep first */
            char kept[160] = "";
            if (E->keep && (ty == PCLR_INT || ty == PCLR_UINT))
                snprintf(kept, sizeof kept, "a = (%s)pclr_keep((uint)a); b = (%s)pclr_keep((uint)b); ", T, T);
            if (mn & (1u << ty)) PCLR__MPUTF(E, "%s%s pclr_min_%s(%s a, %s b) { %sreturn b < a ? b : a; }\n", fn, T, sx, T, T, kept);
            if (mx & (1u << ty)) PCLR__MPUTF(E, "%s%s pclr_max_%s(%s a, %s b) { %sreturn b > a ? b : a; }\n", fn, T, sx, T, T, kept);
        }
        if (glsl && (fmodv & (1u << ty))) pclr__put(E->w, ty == PCLR_DOUBLE ? PCLR__GLSL_FMOD_DOUBLE : PCLR__GLSL_FMOD_FLOAT);
        if (glsl && (rnd & (1u << ty)))
            PCLR__MPUTF(E, "%s pclr_round(%s a) { %s t = trunc(a); return abs(a - t) >= %s(0.5) ? t + sign(a) : t; } /* halves away from 0 */\n",
                        T, T, T, T);
    }
    if (dmath) { /* double exp..cos in GLSL, each after what it calls */
#define PCLR__DM(f) (dmath & (1u << (PCLR__MF_##f - PCLR__MF_EXP)))
        if (dmath != PCLR__DM(EXP)) pclr__put(E->w, PCLR__GLSL_TWO_PROD); /* all but exp alone use it */
        if (PCLR__DM(EXP) || PCLR__DM(EXP2) || PCLR__DM(POW)) pclr__put(E->w, PCLR__GLSL_EXP_DD);
        if (PCLR__DM(LOG) || PCLR__DM(LOG2) || PCLR__DM(POW)) pclr__put(E->w, PCLR__GLSL_LOG_DD);
        if (PCLR__DM(EXP)) pclr__put(E->w, PCLR__GLSL_EXP);
        if (PCLR__DM(EXP2)) pclr__put(E->w, PCLR__GLSL_EXP2);
        if (PCLR__DM(LOG)) pclr__put(E->w, PCLR__GLSL_LOG);
        if (PCLR__DM(LOG2)) pclr__put(E->w, PCLR__GLSL_LOG2);
        if (PCLR__DM(POW)) pclr__put(E->w, PCLR__GLSL_POW);
        if (PCLR__DM(SIN) || PCLR__DM(COS)) {
            pclr__put(E->w, PCLR__GLSL_REM_PIO2);
            pclr__put(E->w, PCLR__GLSL_SINCOS);
        }
        if (PCLR__DM(SIN)) pclr__put(E->w, PCLR__GLSL_SIN);
        if (PCLR__DM(COS)) pclr__put(E->w, PCLR__GLSL_COS);
#undef PCLR__DM
    }
    { /* float to integer helpers: NaN gives 0, out of range saturates, inside truncates (defined C) */
        static const char *const lim[4] = {"2147483648.0", "4294967296.0", "9223372036854775808.0", "18446744073709551616.0"};
        static const char *const low[4] = {"-2147483648.0", "-1.0", "-9223372036854775808.0", "-1.0"};
        static const char *const top[3][4] = {{"2147483647", "4294967295u", "9223372036854775807L", "18446744073709551615UL"},
                                              {"2147483647", "4294967295u", "9223372036854775807ll", "18446744073709551615ull"},
                                              {"2147483647", "4294967295u", "9223372036854775807l", "18446744073709551615ul"}};
        static const char *const bottom[3][4] = {{"(-2147483647 - 1)", "0u", "(-9223372036854775807L - 1)", "0UL"},
                                                 {"(-2147483647 - 1)", "0u", "(-9223372036854775807ll - 1)", "0ull"},
                                                 {"(-2147483647 - 1)", "0u", "(-9223372036854775807l - 1l)", "0ul"}};
        for (k = 0; k < 2; ++k)
            for (j = 0; j < 4; ++j)
                if (conv[k] & (1u << all[j])) {
                    const char *F = k ? "double" : "float", *T = pclr__mtname(all[j], E->lang), *sg = pclr__mis_signed(all[j]) ? "<" : "<=";
                    const char *suffix = glsl ? (k ? "lf" : "") : (k ? "" : "f"); /* literals of the argument's type */
                    char in_range[64], zero[32];
                    snprintf(in_range, sizeof in_range, glsl ? "%s(v)" : "(%s)v", T);
                    snprintf(zero, sizeof zero, glsl ? "%s(0)" : "0", T);
                    PCLR__MPUTF(E, "%s%s pclr_%s_of_%s(%s v) { return v != v ? %s : v >= %s%s ? %s : v %s %s%s ? %s : %s; } /* saturates; NaN: 0 */\n",
                                fn, T, pclr__msuffix(all[j]), F, F, zero, lim[j], suffix, top[E->lang][j], sg, low[j], suffix,
                                bottom[E->lang][j], in_range);
                }
    }
}

/* The map's arguments, after "pclr_map(": x, y as loaded (GLSL: as read, promoted), i counted from the
   first element reduced, the parameters; then ") {". */
static void pclr__margs(pclr__memit *E) {
    const pclr__mtree *t = E->t;
    const int glsl = E->lang == PCLR__ML_GLSL;
    int k;
    for (k = 0; k < 2; ++k) {
        const pclr_type et = k ? t->y : t->x;
        if (k && !et) continue;
        if (!glsl) PCLR__MPUTF(E, "%s %s, ", k ? "pclr_t2" : "pclr_t", k ? "y" : "x");
        else if (t->comps == 1) PCLR__MPUTF(E, "%s %s, ", pclr__mtname(pclr__mpromote(et), 2), k ? "y" : "x");
        else {
            const pclr_type pt = pclr__mpromote(et);
            PCLR__MPUTF(E, "%svec%d %s, ", pt == PCLR_FLOAT ? "" : pt == PCLR_DOUBLE ? "d" : pt == PCLR_INT ? "i" : pt == PCLR_UINT ? "u"
                                          : pt == PCLR_INT64 ? "i64" : "u64", t->comps, k ? "y" : "x");
        }
    }
    PCLR__MPUTF(E, "%s i", glsl ? "uint64_t" : "pclr_u64");
    for (k = 0; k < t->params; ++k) PCLR__MPUTF(E, ", %s p%d /* %s */", pclr__mtname(t->param[k], E->lang), k, t->pname[k]);
    pclr__put(E->w, ") {\n");
}

static void pclr__mfunction(pclr__memit *E) {
    const pclr__mtree *t = E->t;
    const int glsl = E->lang == PCLR__ML_GLSL;
    pclr__mhelpers(E);
    PCLR__MPUTF(E, "%s%s pclr_map(", glsl ? "" : "PCLR_FN ", pclr__mtname(t->type, E->lang));
    pclr__margs(E);
    /* GLSL: precise (NoContraction) keeps the compiler from fusing a * b + c
       and from rewriting the map's arithmetic ((x + 1) - 1 to x, x - x to 0) */
    if (glsl) PCLR__MPUTF(E, "    precise %s r = ", pclr__mtname(t->type, E->lang));
    else pclr__put(E->w, "    return ");
    pclr__mas(E, t->root, t->type);
    pclr__put(E->w, glsl ? ";\n    return r;\n}\n" : ";\n}\n");
}

/* One assignment of a reduction's function: field f = node root in its type (GLSL: through a precise local). */
static void pclr__mset(pclr__memit *E, int f, int root) {
    const pclr__mtree *t = E->t;
    char lv[48];
    if (t->fields == 1) snprintf(lv, sizeof lv, "s");
    else snprintf(lv, sizeof lv, "s.f_%s", t->fname[f]);
    if (E->lang == PCLR__ML_GLSL) PCLR__MPUTF(E, "    precise %s v_%s = ", pclr__mtname(t->ftype[f], E->lang), t->fname[f]);
    else PCLR__MPUTF(E, "    %s = ", lv);
    pclr__mas(E, root, t->ftype[f]);
    if (E->lang == PCLR__ML_GLSL) PCLR__MPUTF(E, ";\n    %s = v_%s;\n", lv, t->fname[f]);
    else pclr__put(E->w, ";\n");
}

/* A reduction's functions (op custom), in E's language, after the state's type pclr_s: the helpers its
   identity, lift and merge call, pclr_identity, pclr_merge and the lift as a map whose value is the
   state, pclr_map(x, [y,] i, parameters) (the kernel's PCLR_MAP lifts; its PCLR_LIFT passes a state on). */
static void pclr__mreduction(pclr__memit *E) {
    const pclr__mtree *t = E->t;
    const char *fn = E->lang == PCLR__ML_GLSL ? "" : "PCLR_FN ";
    unsigned char used[PCLR_MAP_MAX_LENGTH];
    int k, j;
    memset(used, 0, sizeof used);
    for (k = 0; k < t->fields + t->lifts + t->merges; ++k) /* the nodes the kernel writes: every root's but the results' */
        used[k < t->fields ? t->identity[k] : k < t->fields + t->lifts ? t->lift[k - t->fields][1] : t->merge[k - t->fields - t->lifts][1]] = 1;
    for (k = t->count - 1; k >= 0; --k) /* (operands come before their node) */
        for (j = 0; used[k] && j < t->node[k].n; ++j) used[t->node[k].a[j]] = 1;
    E->used = used;
    pclr__mhelpers(E);
    PCLR__MPUTF(E, "%spclr_s pclr_identity(void) {\n    pclr_s s;\n", fn);
    for (k = 0; k < t->fields; ++k) pclr__mset(E, k, t->identity[k]);
    pclr__put(E->w, "    return s;\n}\n#define PCLR_IDENTITY pclr_identity()\n");
    { /* whether a state is the identity, bit for bit */
        static const char *const f32[3] = {"as_uint(%s) == 0x%llxu", "__float_as_uint(%s) == 0x%llxu", "floatBitsToUint(%s) == 0x%llxu"};
        static const char *const u32[3] = {"as_uint(%s) == 0x%llxu", "(uint)(%s) == 0x%llxu", "uint(%s) == 0x%llxu"};
        static const char *const u64[3] = {"as_ulong(%s) == 0x%llxUL", "(pclr_u64)(%s) == 0x%llxull", "uint64_t(%s) == 0x%llxul"};
        static const char *const f64[3] = {"as_ulong(%s) == 0x%llxUL", "(pclr_u64)__double_as_longlong(%s) == 0x%llxull", "doubleBitsToUint64(%s) == 0x%llxul"};
        pclr__mval id[PCLR_CUSTOM_MAX];
        pclr__ridentity(t, id);
        PCLR__MPUTF(E, "%sbool pclr_is_identity(pclr_s s) {\n    return ", fn);
        for (k = 0; k < t->fields; ++k) {
            const pclr_type ft = t->ftype[k];
            const char *form = ft == PCLR_FLOAT ? f32[E->lang] : ft == PCLR_DOUBLE ? f64[E->lang] : pclr_type_size(ft) == 4 ? u32[E->lang] : u64[E->lang];
            char lv[48];
            if (t->fields == 1) snprintf(lv, sizeof lv, "s");
            else snprintf(lv, sizeof lv, "s.f_%s", t->fname[k]);
            if (k) pclr__put(E->w, " && ");
            PCLR__MPUTF(E, form, lv, (unsigned long long)pclr__rbits(id[k], ft));
        }
        pclr__put(E->w, ";\n}\n");
    }
    PCLR__MPUTF(E, "/* the description's merge: b's elements come after a's */\n"
                   "%spclr_s pclr_merge_parts(pclr_s a, pclr_s b) {\n    pclr_s s;\n", fn);
    for (k = 0; k < t->merges; ++k) pclr__mset(E, t->merge[k][0], t->merge[k][1]);
    PCLR__MPUTF(E, "    return s;\n}\n"
                   "/* between work-items and groups, a state equal to the identity is an empty part: the other state */\n"
                   "%spclr_s pclr_merge(pclr_s a, pclr_s b) {\n"
                   "    if (pclr_is_identity(b)) return a;\n    if (pclr_is_identity(a)) return b;\n    return pclr_merge_parts(a, b);\n}\n"
                   "/* a work-item's accumulator starts as the identity; a load's lifted elements merge as described */\n"
                   "%spclr_s pclr_fold_in(pclr_s acc, pclr_s s) {\n"
                   "    if (pclr_is_identity(acc)) return s;\n    return pclr_merge_parts(acc, s);\n}\n", fn, fn);
    PCLR__MPUTF(E, "/* the lift of element x (y) at index i */\n%spclr_s pclr_map(", fn);
    pclr__margs(E);
    PCLR__MPUTF(E, "    pclr_s s%s;\n", t->lifts < t->fields ? " = pclr_identity()" : "");
    for (k = 0; k < t->lifts; ++k) pclr__mset(E, t->lift[k][0], t->lift[k][1]);
    pclr__put(E->w, "    return s;\n}\n");
    E->used = NULL;
}
#else /* PCLREDUCE_NO_MAP: no map reaches the generator (pclr_config_resolve refuses them) */
static int pclr__mzero_lit(const pclr__mnode *m) { (void)m; return 0; }
static void pclr__mfunction(pclr__memit *E) { (void)E; }
static void pclr__mreduction(pclr__memit *E) { (void)E; }
#endif /* PCLREDUCE_NO_MAP */


/* ------------------------------------------------------------ the generator  >>gen
   pclr_kernel_source writes only what one configuration needs: one dialect's
   prelude, the op's state and its functions (from its layout, pclr__layout),
   then the pieces of its variant, stride and finish. Choices are made here in
   C; the kernel holds no #if but the device-dependent fence and, in OpenCL, NVIDIA's
   inline PTX (PCLR_NVIDIA_PTX, which the OpenCL backend defines there). The text it
   shares with the macro form is the PCLR__TEXT_ pieces (section "kernel text").

   An op is a state with an identity, a merge of two states, and either a
   lift of one element into a state (the vector's elements are merged as a
   small tree) or a sequential fold of one value into a state (compensated
   sums and stats, whose per-element step is cheaper than their merge). */

/* The OpenCL 2.0 collective and the atomic read-modify-write of sum, min, max. */
static const char *const pclr__prims[4] = {NULL, "add", "min", "max"};

/* Where the pieces write, and what they derive from the configuration (given beside g). */
typedef struct pclr__gen {
    pclr__writer *w;
    pclr__layout l;
    int cuda, is_float, tsize;
    const char *t; /* element type name in the kernel's dialect */
    const pclr__mtree *map; /* the map (NULL: none); its elements are f(x, [y,] i) */
    int glsl;               /* the dialect: GLSL (Vulkan), else CUDA C (cuda) or OpenCL C */
    const char *after;      /* the text that follows, where it is written first (a GLSL layout's): a piece it
                               does not read is not written (NULL: unknown) */
    int vector;             /* elements per load */
    const char *y_at;       /* a map's y of the element at index i (NULL: q[i]; columns step by the pitch) */
    int vloads;             /* the kernel loads vectors (pclr_vec, pclr_in, PCLR_LOAD, PCLR_FOLD): not the layouts */
    int lanes;              /* the loads fold lane by lane into a vector of accumulators (stride simd, pclr__lanes_fold):
                               pclr_lanes, PCLR_VFOLD and pclr_lanes_out instead of PCLR_FOLD */
    int vhalf;              /* stride simd, half elements without a lanes fold: PCLR_FOLD converts its load to a
                               vector of floats f_ first (pclr__half_vectors) */
    int oom;                /* scratch memory could not be had */
    const char *merge_in;   /* a work-item's fold of lifted elements into its accumulator: pclr_merge, or a
                               reduction's pclr_fold_in (op custom: its accumulator alone may be the identity) */
    const char *merge_parts; /* the merge inside a load's small tree: pclr_merge, or pclr_merge_parts (op custom) */
} pclr__gen;

#define PCLR__GEN_PUTF(g, ...) pclr__appendf((g)->w->buf, (g)->w->cap, &(g)->w->len, __VA_ARGS__)

/* Whether the text that follows reads name (yes where it is not known). */
static int pclr__after_uses(const pclr__gen *g, const char *name) { return pclr__text_uses(g->after, name); }

/* fn's text for c, written into scratch memory first (the caller frees it), so that what precedes it can be
   written as it reads: measured in a dry run, then written. NULL where no memory could be had (g->oom is set). */
static char *pclr__gen_scratch(pclr__gen *g, const pclr_config *c, void (*fn)(pclr__gen *, const pclr_config *)) {
    pclr__writer w;
    pclr__gen b = *g;
    w.buf = NULL; w.cap = 0; w.len = 0;
    b.w = &w;
    fn(&b, c);
    w.cap = w.len + 1;
    w.len = 0;
    if (!(w.buf = (char *)malloc(w.cap))) {
        g->oom = 1;
        return NULL;
    }
    fn(&b, c);
    return w.buf;
}

/* fn's text, after the dialect's words (PCLR__TEXT_WORDS) that it reads and does not define itself. */
static void pclr__gen_words(pclr__gen *g, const pclr_config *c, void (*fn)(pclr__gen *, const pclr_config *)) {
#define PCLR__GEN_WORD_CL(w, opencl, cuda, glsl) PCLR__TEXT_WORD_OPENCL(w, opencl, cuda, glsl),
#define PCLR__GEN_WORD_CUDA(w, opencl, cuda, glsl) PCLR__TEXT_WORD_CUDA(w, opencl, cuda, glsl),
#define PCLR__GEN_WORD_GLSL(w, opencl, cuda, glsl) PCLR__TEXT_WORD_GLSL(w, opencl, cuda, glsl),
    static const char *const words[3][48] = {{PCLR__TEXT_WORDS(PCLR__GEN_WORD_CL) NULL},
                                             {PCLR__TEXT_WORDS(PCLR__GEN_WORD_CUDA) NULL},
                                             {PCLR__TEXT_WORDS(PCLR__GEN_WORD_GLSL) NULL}};
#undef PCLR__GEN_WORD_CL
#undef PCLR__GEN_WORD_CUDA
#undef PCLR__GEN_WORD_GLSL
    const char *const *def = words[g->glsl ? 2 : g->cuda ? 1 : 0];
    char *body = pclr__gen_scratch(g, c, fn), name[48][32];
    int k, j, used[48] = {0}, more = 1;
    if (!body) return;
    for (k = 0; def[k]; ++k) { /* "#define PCLR_NAME..." */
        const size_t n = strcspn(def[k] + 8, " (\n");
        memcpy(name[k], def[k] + 8, n);
        name[k][n] = '\0';
    }
    while (more) /* read by the text, or by a word it reads (PCLR_XREF reads PCLR_GLOBAL) */
        for (more = 0, k = 0; def[k]; ++k)
            for (j = -1; !used[k] && j < 48 && (j < 0 || def[j]); ++j)
                if (j < 0 ? pclr__text_uses(body, name[k]) : used[j] && pclr__text_uses(def[j] + 8, name[k])) used[k] = more = 1;
    for (k = 0; def[k]; ++k) {
        char own[48], undef[48]; /* (a kernel part that spells the word its own way: the exact sum's) */
        snprintf(own, sizeof own, "#define %.31s", name[k]);
        snprintf(undef, sizeof undef, "#undef %.31s", name[k]);
        if (used[k] && (!pclr__text_uses(body, own) || pclr__text_uses(body, undef))) pclr__put(g->w, def[k]);
    }
    pclr__put(g->w, body);
    free(body);
}

/* A compute or element type's name in the kernel (half is stored as its 16 bits). */
static const char *pclr__ktype(pclr_type t, int cuda) {
    static const char *const cl[PCLR_TYPE_COUNT_] = {"float", "uint", "int", "float", "double", "uchar", "char",
                                                     "ushort", "short", "ulong", "long", "ushort"};
    static const char *const cu[PCLR_TYPE_COUNT_] = {"float", "uint", "int", "float", "double", "unsigned char", "signed char",
                                                     "unsigned short", "short", "pclr_u64", "pclr_i64", "unsigned short"};
    return (cuda ? cu : cl)[t];
}

/* The largest (big) or smallest value of compute type t, as a kernel literal: the
   identities of min and max (the host saturates them into a narrower element type). */
static const char *pclr__kextreme(const pclr__gen *g, pclr_type t, int big) {
    static const char *const hi[PCLR_TYPE_COUNT_] = {"", "0xffffffffu", "0x7fffffff", "INF", "INF", "255u", "127", "65535u",
                                                     "32767", "", "", "INF"}; /* 64-bit: below */
    static const char *const lo[PCLR_TYPE_COUNT_] = {"", "0u", "(-0x7fffffff - 1)", "-INF", "-INF", "0u", "(-128)", "0u",
                                                     "(-32768)", "", "", "-INF"};
    const char *v = (big ? hi : lo)[t];
    int dbl = g->l.value == PCLR_DOUBLE;
    if (!strcmp(v, "INF")) return g->cuda ? (dbl ? PCLR__TEXT_INF_CUDA_D : PCLR__TEXT_INF_CUDA_F) : (dbl ? PCLR__TEXT_INF_CL_D : PCLR__TEXT_INF_CL_F);
    if (!strcmp(v, "-INF")) return g->cuda ? (dbl ? "(-" PCLR__TEXT_INF_CUDA_D ")" : "(-" PCLR__TEXT_INF_CUDA_F ")")
                                           : (dbl ? "(-" PCLR__TEXT_INF_CL_D ")" : "(-" PCLR__TEXT_INF_CL_F ")");
    /* 64-bit literals carry the dialect's suffix */
    if (t == PCLR_UINT64) return big ? (g->cuda ? "0xffffffffffffffffull" : "0xffffffffffffffffUL") : "0";
    if (t == PCLR_INT64) return big ? (g->cuda ? "0x7fffffffffffffffll" : "0x7fffffffffffffffL")
                                    : (g->cuda ? "(-0x7fffffffffffffffll - 1)" : "(-0x7fffffffffffffffL - 1)");
    return v;
}

/* What a kernel reads, so that nothing else is written (tests/kernel_dead_code.py checks that every
   definition of a kernel is read). A layout program is one of: columns; rows or segments by teams of
   c->lanes < c->group_size work-items (staged through local memory where pclr__rows_staged); a group
   per row or segment, split groups sharing a long one (pclr__gen_layout). */
static int pclr__rows_staged(const pclr_config *c, int lanes);
static int pclr__gen_row_groups(const pclr_config *c) { /* a layout's group per row */
    return c->layout != PCLR_LAYOUT_ONE && c->layout != PCLR_LAYOUT_COLUMNS && c->lanes >= c->group_size;
}
static int pclr__gen_teams(const pclr_config *c) { /* a layout's teams of more than one work-item per row */
    return c->layout != PCLR_LAYOUT_ONE && c->layout != PCLR_LAYOUT_COLUMNS && c->lanes > 1 && c->lanes < c->group_size;
}
static int pclr__gen_team_wave(const pclr_config *c) { /* teams reduced by pclr_wave_reduce */
    return pclr__gen_teams(c) && c->variant == PCLR_VARIANT_SHUFFLE && c->lanes <= c->wave_width;
}
static int pclr__gen_staged(const pclr_config *c) { /* rows staged through local memory */
    return c->layout != PCLR_LAYOUT_ONE && c->lanes < c->group_size && pclr__rows_staged(c, c->lanes);
}
/* pclr_group_reduce: the single-array kernels and a layout's group per row */
static int pclr__gen_group_reduce(const pclr_config *c) { return c->layout == PCLR_LAYOUT_ONE || pclr__gen_row_groups(c); }
/* pclr_wave_reduce and the shuffles */
static int pclr__gen_waves(const pclr_config *c) {
    return c->variant == PCLR_VARIANT_SHUFFLE && (pclr__gen_group_reduce(c) || pclr__gen_team_wave(c));
}
/* the partials read back (PCLR_PARTIAL): the last group's fold, a layout's split rows and tiles */
static int pclr__gen_reads_partials(const pclr_config *c, size_t state_size) {
    if (c->layout != PCLR_LAYOUT_ONE) return c->layout == PCLR_LAYOUT_COLUMNS || pclr__gen_row_groups(c);
    return c->finish == PCLR_FINISH_LAST_GROUP && !pclr__words_finish(c, state_size);
}

/* Uses of the local-memory tree kept as a loop (see PCLR__TEXT_TREE_ROLLED). */
static int pclr__gen_tree_rolled(const pclr_config *c) {
    int lds_is_group = c->variant != PCLR_VARIANT_SHUFFLE && c->variant != PCLR_VARIANT_COLLECTIVE;
    if (pclr__ordered(c)) return 0; /* (its last group folds without a tree) */
    if (c->layout != PCLR_LAYOUT_ONE) return c->variant == PCLR_VARIANT_SEQUENTIAL && pclr__gen_row_groups(c); /* its group reduce */
    return lds_is_group && (c->variant == PCLR_VARIANT_SEQUENTIAL || c->finish == PCLR_FINISH_LAST_GROUP);
}

/* An input's element type (a scalar, or a map's pixel of 2 or 4 of them) and its load vector (vec NULL: none). */
static void pclr__gen_input(pclr__gen *g, const char *name, const char *vec, pclr_type t, int width) {
    const int comps = g->map ? g->map->comps : 1, size = (int)pclr_type_size(t) * comps;
    const char *half = t == PCLR_HALF ? " /* half: its 16 bits */" : "";
    if (comps == 1) PCLR__GEN_PUTF(g, "typedef %s %s;%s\n", pclr__ktype(t, g->cuda), name, half);
    else if (g->cuda) PCLR__GEN_PUTF(g, "typedef struct __align__(%d) { %s x, y%s; } %s;%s\n", size, pclr__ktype(t, 1), comps == 4 ? ", z, w" : "", name, half);
    else PCLR__GEN_PUTF(g, "typedef %s%d %s;%s\n", pclr__ktype(t, 0), comps, name, half);
    if (!vec) return; /* (the layouts load one element at a time) */
    if (width == 1) PCLR__GEN_PUTF(g, "typedef %s %s; /* one element per load */\n", name, vec);
    else if (g->cuda) PCLR__GEN_PUTF(g, "struct __align__(%d) %s { %s s[%d]; }; /* %d-byte loads */\n", size * width, vec, name, width, size * width);
    else PCLR__GEN_PUTF(g, "typedef %s%d %s; /* %d-byte loads */\n", pclr__ktype(t, 0), width, vec, size * width);
}

/* Whether the kernel reads knob macro m (PCLR__KNOBS): the wave only where it shuffles (not GLSL's
   subgroups), the vector only where it loads vectors (not the layouts), the unroll depth only where
   it walks (not the staged rows). */
static int pclr__gen_knob_read(const pclr_config *c, const char *m) {
    if (!strcmp(m, "PCLR_WAVE")) return c->backend != PCLR_VULKAN && pclr__gen_waves(c) && c->op != PCLR_HISTOGRAM; /* (no tree) */
    if (!strcmp(m, "PCLR_VECTOR")) return c->layout == PCLR_LAYOUT_ONE;
    if (!strcmp(m, "PCLR_UNROLL")) return !pclr__gen_staged(c);
    return 1;
}

/* Whether a CUDA kernel names a 64-bit signed integer (pclr_i64): its elements, state, sums or map. */
static int pclr__gen_i64(const pclr__gen *g, const pclr_config *c) {
    int k;
    if (c->layout == PCLR_LAYOUT_ONE && c->accumulate == PCLR_EXACT) return 1; /* the cells */
    if (c->type == PCLR_INT64 || g->l.value == PCLR_INT64 || g->l.sum == PCLR_INT64 || g->l.moment == PCLR_INT64) return 1;
    for (k = 0; k < g->l.count; ++k)
        if (g->l.field[k].type == PCLR_INT64) return 1;
    if (!g->map) return 0;
    if (g->map->x == PCLR_INT64 || g->map->y == PCLR_INT64 || g->map->type == PCLR_INT64) return 1;
    for (k = 0; k < g->map->params; ++k)
        if (g->map->param[k] == PCLR_INT64) return 1;
    for (k = 0; k < g->map->count; ++k)
        if (g->map->node[k].type == PCLR_INT64) return 1;
    return 0;
}

/* The C dialects' prelude after its head and words: types, the fence, the knobs, the inputs. */
static void pclr__gen_prelude(pclr__gen *g, const pclr_config *c) {
    const int words = pclr__words_finish(c, g->l.size); /* no fence, no ticket function */
    const int one = c->layout == PCLR_LAYOUT_ONE;
    /* (a histogram per row, column or segment has no partials) */
    const int fence = one ? c->finish != PCLR_FINISH_PARTIALS && !words
                          : (c->layout == PCLR_LAYOUT_COLUMNS || pclr__gen_row_groups(c)) && c->op != PCLR_HISTOGRAM;
    if (g->cuda && pclr__gen_i64(g, c)) pclr__put(g->w, "typedef long long pclr_i64;\n");
    if (fence) pclr__put(g->w, g->cuda ? PCLR__TEXT_FENCE_CUDA : PCLR__TEXT_FENCE_OPENCL);
    if (g->cuda && one && c->finish == PCLR_FINISH_LAST_GROUP && c->accumulate != PCLR_EXACT && !words) pclr__put(g->w, PCLR__TEXT_TICKET_FN_CUDA);
    if (g->cuda && one && c->accumulate != PCLR_EXACT && c->op != PCLR_HISTOGRAM) pclr__put(g->w, PCLR__TEXT_GRID_DEPENDENCY_DEFINE_CUDA);
    /* the knobs the kernel reads */
#define PCLR__GEN_KNOB(kind, name, field, macro, dflt) \
    PCLR__KNOB_KIND_##kind(, if (pclr__gen_knob_read(c, #macro)) PCLR__GEN_PUTF(g, "#define " #macro " %d\n", c->field);, )
    PCLR__KNOBS(PCLR__GEN_KNOB)
#undef PCLR__GEN_KNOB
    pclr__gen_input(g, "pclr_t", one ? "pclr_vec" : NULL, c->type, c->vector_width);
    if (g->map && g->map->y) pclr__gen_input(g, "pclr_t2", one ? "pclr_vec2" : NULL, g->map->y, c->vector_width);
}

/* pclr_half_to_float: binary16 bits to float, exactly. */
static void pclr__gen_half(pclr__gen *g) {
    if (g->cuda)
        pclr__put(g->w, "PCLR_FN float pclr_half_to_float(unsigned short h) {\n"
                        "    float f;\n"
                        "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
                        "    return f;\n"
                        "}\n");
    else
        pclr__put(g->w, "/* binary16 bits to float, exactly (no fp16 extension needed) */\n"
                        "PCLR_FN float pclr_half_to_float(ushort h) {\n"
                        "    const uint a = h & 0x7fffu;\n"
                        "    const float f = a < 0x400u ? (float)a * 5.9604644775390625e-8f /* subnormal: a * 2^-24 */\n"
                        "                  : as_float(a >= 0x7c00u ? (a << 13) | 0x7f800000u   /* inf, NaN */\n"
                        "                                          : (a << 13) + 0x38000000u); /* rebias 15 -> 127 */\n"
                        "    return as_float(as_uint(f) | ((uint)(h & 0x8000u) << 16));\n"
                        "}\n");
}

/* The value of element x in the compute type (a map's elements are its values already). */
static void pclr__gen_value(pclr__gen *g, const pclr_config *c, int op_fns) {
    /* (pclr_v: in PCLR_VALUE, but half's; in the op's functions (op_fns)) */
    if (c->type != PCLR_HALF || g->map || op_fns)
        PCLR__GEN_PUTF(g, "typedef %s pclr_v; /* values are computed in this type */\n", pclr__ktype(g->l.value, g->cuda));
    if (c->type != PCLR_HALF || g->map) {
        pclr__put(g->w, "#define PCLR_VALUE(x) ((pclr_v)(x))\n");
    } else {
        pclr__gen_half(g);
        pclr__put(g->w, "#define PCLR_VALUE(x) pclr_half_to_float(x)\n");
        if (g->vhalf || (g->lanes && c->op == PCLR_STATS)) { /* (stats' lanes take a load's values) */
            const int n = c->vector_width;
            /* (vload_half, core OpenCL C: the CPU's conversion instruction; 2x the integer form on PoCL) */
            PCLR__GEN_PUTF(g, "/* a load's halves to floats at once, exactly (stride simd) */\n"
                              "PCLR_FN float%d pclr_half_to_float%d(ushort%d h) { return vload_half%d(0, (const half *)&h); }\n", n, n, n, n);
        }
    }
}

/* ptxas (seen in CUDA 12.8 to 13.3) can drop a negation that it fuses into a three-input integer
   min/max (VIMNMX3): the fold max(acc, -x) then sees x. A map's 32-bit integer values (its result,
   the operands of its min/max) pass through an identity byte permute that ptxas does not look
   through; it costs one instruction. */
#define PCLR__TEXT_KEEP_PTX \
"/* ptxas can drop a negation fused into a three-input integer min/max: values pass through an\n" \
"   identity it does not see through */\n" \
"PCLR_FN uint pclr_keep(uint v) { uint r; asm volatile(\"prmt.b32 %0, %1, 0, 0x3210;\" : \"=r\"(r) : \"r\"(v)); return r; }\n"

/* The map, or a reduction's functions (whose lift is its map): PCLR_MAP(x, [y,] i), which passes the
   kernel's parameters. */
static void pclr__gen_map(pclr__gen *g, const pclr_config *c) {
    pclr__memit E;
    int k, wrap, arith;
    E.w = g->w;
    E.t = g->map;
    E.lang = g->cuda ? PCLR__ML_CUDA : PCLR__ML_OPENCL;
    if (!g->map->fields) PCLR__GEN_PUTF(g, "/* ---- the map: %s ---- */\n", c->map && c->map[0] ? c->map : "x");
    if (c->type == PCLR_HALF || g->map->y == PCLR_HALF) pclr__gen_half(g);
    wrap = !g->map->fields && (g->map->type == PCLR_INT || g->map->type == PCLR_UINT); /* the map's value goes to the fold */
    E.zero = E.zeros = 0;
    E.used = NULL;
    for (k = 0, E.keep = wrap, arith = 0; k < g->map->count; ++k) {
        const pclr__mnode *m = &g->map->node[k];
        if ((m->type == PCLR_INT || m->type == PCLR_UINT) && m->kind == PCLR__MN_CALL &&
            (m->op == PCLR__MF_MIN || m->op == PCLR__MF_MAX || m->op == PCLR__MF_CLAMP))
            E.keep = 1;
        arith |= pclr__mis_int((pclr_type)m->type) && (m->kind == PCLR__MN_NEG || m->kind == PCLR__MN_BNOT || /* (a negation ptxas could see) */
                                                      (m->kind == PCLR__MN_BIN && m->op < PCLR__MB_LT) ||
                                                      (m->kind == PCLR__MN_CALL && m->op != PCLR__MF_MIN && m->op != PCLR__MF_MAX));
    }
    if (g->map->fields && !arith) E.keep = 0; /* (a reduction whose integers are only read, compared and selected) */
    if (E.keep) pclr__put(g->w, g->cuda ? PCLR__TEXT_KEEP_PTX : "#ifdef PCLR_NVIDIA_PTX /* defined by the OpenCL backend on NVIDIA */\n"
                                          PCLR__TEXT_KEEP_PTX "#else\n#define pclr_keep(v) (v)\n#endif\n");
    if (g->map->fields) {
        pclr__mreduction(&E);
        pclr__put(g->w, "#define PCLR_LIFT(s, i) (s) /* (PCLR_MAP lifted it) */\n");
    } else {
        pclr__mfunction(&E);
    }
    PCLR__GEN_PUTF(g, "#define PCLR_MAP(x, %si) %spclr_map((x), %s(i)", g->map->y ? "y, " : "",
                   !wrap ? "" : g->map->type == PCLR_INT ? "((int)pclr_keep((uint)" : "pclr_keep(", g->map->y ? "(y), " : "");
    for (k = 0; k < g->map->params; ++k) PCLR__GEN_PUTF(g, ", p%d", k);
    pclr__put(g->w, !wrap ? ")\n" : g->map->type == PCLR_INT ? ")))\n" : "))\n");
}

/* Lane k of a load of x (j 0) or y (j 1), as loaded; k < 0: the element at i (the head's and tail's). */
static void pclr__gen_lane(const pclr__gen *g, int j, int k, char *out, size_t cap) {
    const char *part = g->map && g->map->y ? (j ? ".y" : ".x") : "";
    if (k < 0) snprintf(out, cap, "%s", j ? (g->y_at ? g->y_at : "q[i]") : "(x)");
    else if (g->vhalf) snprintf(out, cap, "f_.s%x", k); /* (no map: x alone) */
    else if (g->vector == 1) snprintf(out, cap, "(v)%s", part);
    else snprintf(out, cap, g->cuda ? "(v)%s.s[%d]" : "(v)%s.s%x", part, k);
}
/* Element k of the loaded vector v (its index (i) + k), as the op sees it; k < 0: the single element x at index i. */
static void pclr__gen_elem(pclr__gen *g, int k, char *buf, size_t cap) {
    char xs[48], ys[48];
    pclr__gen_lane(g, 0, k, xs, sizeof xs);
    pclr__gen_lane(g, 1, k, ys, sizeof ys);
    if (!g->map) snprintf(buf, cap, "%s", xs);
    else if (g->map->y) snprintf(buf, cap, k > 0 ? "PCLR_MAP(%s, %s, (i) + %d)" : "PCLR_MAP(%s, %s, (i))", xs, ys, k);
    else snprintf(buf, cap, k > 0 ? "PCLR_MAP(%s, (i) + %d)" : "PCLR_MAP(%s, (i))", xs, k);
}

/* Two values' min and max (floats: NaN propagates, -0 orders before +0). */
static void pclr__gen_minmax_fns(pclr__gen *g, int min, int max) {
    const int f = pclr__is_float(g->l.value), d = g->l.value == PCLR_DOUBLE;
    if (f) PCLR__GEN_PUTF(g, "#define PCLR_NEG(x) %s\n",
                          g->cuda ? (d ? PCLR__TEXT_NEG_CUDA_D : PCLR__TEXT_NEG_CUDA_F) : (d ? PCLR__TEXT_NEG_CL_D : PCLR__TEXT_NEG_CL_F));
    /* [double][cuda][max] */
    static const char *const fns[2][2][2] = {
        {{PCLR__TEXT_FMINMAX(PCLR__SM80_CL, "min", PCLR__MERGE_MIN_NAN_CL), PCLR__TEXT_FMINMAX(PCLR__SM80_CL, "max", PCLR__MERGE_MAX_NAN_CL)},
         {PCLR__TEXT_FMINMAX(PCLR__SM80_CUDA, "min", PCLR__MERGE_MIN_NAN_CUDA), PCLR__TEXT_FMINMAX(PCLR__SM80_CUDA, "max", PCLR__MERGE_MAX_NAN_CUDA)}},
        {{PCLR__TEXT_DMINMAX(PCLR__SM80_CL, "min", PCLR__MERGE_MIN_NAN_CL), PCLR__TEXT_DMINMAX(PCLR__SM80_CL, "max", PCLR__MERGE_MAX_NAN_CL)},
         {PCLR__TEXT_DMINMAX(PCLR__SM80_CUDA, "min", PCLR__MERGE_MIN_NAN_CUDA), PCLR__TEXT_DMINMAX(PCLR__SM80_CUDA, "max", PCLR__MERGE_MAX_NAN_CUDA)}}};
    if (f) {
        if (min) pclr__put(g->w, fns[d][g->cuda != 0][0]);
        if (max) pclr__put(g->w, fns[d][g->cuda != 0][1]);
    } else {
        if (min) PCLR__GEN_PUTF(g, "PCLR_FN pclr_v pclr_min(pclr_v a, pclr_v b) { return %s; }\n", PCLR__MERGE_MIN);
        if (max) PCLR__GEN_PUTF(g, "PCLR_FN pclr_v pclr_max(pclr_v a, pclr_v b) { return %s; }\n", PCLR__MERGE_MAX);
    }
}

/* The sum's type pclr_a, its addition pclr_add (signed integers add on their unsigned bits: they wrap, no
   signed overflow) and Neumaier's step PCLR_KBN, each where the op's text uses it. */
static void pclr__gen_add(pclr__gen *g, const pclr__op_def *d) {
    const pclr_type a = g->l.sum;
    int k;
    if (!pclr__op_uses(d, "pclr_a")) return;
    PCLR__GEN_PUTF(g, "typedef %s pclr_a; /* sums accumulate in this type */\n", pclr__ktype(a, g->cuda));
    for (k = 0; k < 2; ++k) { /* pclr_add, pclr_mul: signed integers on their unsigned bits (they wrap) */
        const char *const fn = k ? "mul" : "add", op = k ? '*' : '+';
        if (!pclr__op_uses(d, k ? "pclr_mul" : "pclr_add")) continue;
        if (a == PCLR_INT && g->cuda) PCLR__GEN_PUTF(g, "PCLR_FN int pclr_%s(int a, int b) { return (int)((uint)a %c (uint)b); } /* wraps */\n", fn, op);
        else if (a == PCLR_INT) PCLR__GEN_PUTF(g, "PCLR_FN int pclr_%s(int a, int b) { return as_int(as_uint(a) %c as_uint(b)); } /* wraps */\n", fn, op);
        else if (a == PCLR_INT64 && g->cuda)
            PCLR__GEN_PUTF(g, "PCLR_FN pclr_a pclr_%s(pclr_a a, pclr_a b) { return (pclr_i64)((pclr_u64)a %c (pclr_u64)b); } /* wraps */\n", fn, op);
        else if (a == PCLR_INT64)
            PCLR__GEN_PUTF(g, "PCLR_FN pclr_a pclr_%s(pclr_a a, pclr_a b) { return as_long(as_ulong(a) %c as_ulong(b)); } /* wraps */\n", fn, op);
        else PCLR__GEN_PUTF(g, "PCLR_FN pclr_a pclr_%s(pclr_a a, pclr_a b) { return a %c b; }\n", fn, op);
    }
    if (pclr__op_uses(d, "PCLR_KBN"))
        pclr__put(g->w, "/* Neumaier's step: t = s + x, and the rounding error of that addition into c */\n"
                        "#define PCLR_ABS(x) ((x) < 0 ? -(x) : (x))\n"
                        "#define PCLR_KBN(s, c, x) do { const pclr_a t_ = (s) + (x); \\\n"
                        "    (c) += PCLR_ABS(s) >= PCLR_ABS(x) ? ((s) - t_) + (x) : ((x) - t_) + (s); (s) = t_; } while (0)\n");
}

static const char *pclr__gextreme(pclr_type t, int big);
static const char *pclr__gtype(pclr_type t);

/* Stats' shift type pclr_h and pclr_diff(x, h), x - h in the moment type, where the op's text uses them:
   64-bit integers shift in their own type and subtract on their unsigned bits (exact, any two values),
   the others in the moment type (exact for every 8- to 32-bit integer). */
static void pclr__gen_diff(pclr__gen *g, const pclr__op_def *d) {
    const int wide_int = g->l.shift == PCLR_INT64 || g->l.shift == PCLR_UINT64;
    if (!pclr__op_uses(d, "pclr_h")) return;
    if (g->glsl) PCLR__GEN_PUTF(g, "#define pclr_h %s /* the moments' shift */\n", pclr__gtype(g->l.shift));
    else PCLR__GEN_PUTF(g, "typedef %s pclr_h; /* the moments' shift */\n", pclr__ktype(g->l.shift, g->cuda));
    if (!pclr__op_uses(d, "pclr_diff")) return;
    if (!wide_int) PCLR__GEN_PUTF(g, "%spclr_m pclr_diff(pclr_h x, pclr_h h) { return x - h; }\n", g->glsl ? "" : "PCLR_FN ");
    else if (g->glsl) pclr__put(g->w, "/* x - h, exact before its rounding into the moment type */\n"
                                      "pclr_m pclr_diff(pclr_h x, pclr_h h) { return x >= h ? pclr_m(uint64_t(x) - uint64_t(h)) : -pclr_m(uint64_t(h) - uint64_t(x)); }\n");
    else pclr__put(g->w, "/* x - h, exact before its rounding into the moment type */\n"
                         "PCLR_FN pclr_m pclr_diff(pclr_h x, pclr_h h) { return x >= h ? (pclr_m)((pclr_u64)x - (pclr_u64)h) : -(pclr_m)((pclr_u64)h - (pclr_u64)x); }\n");
}


/* Writes len bytes of an op's neutral text (pclr__op_defs) in g's dialect, a line at a time indented by
   four spaces: the C dialects cast as C does and test NaN as x != x; a one-field state is its field (a
   typedef, not a struct); PCLR_HI, PCLR_LO and PCLR_NO_INDEX become the dialect's literals. */
static void pclr__gen_op_span(pclr__gen *g, const char *t, size_t len) {
    static const char *const casts[5] = {"pclr_v", "pclr_a", "pclr_m", "pclr_h", "pclr_u64"};
    const int c_dialect = !g->glsl, one = g->l.count == 1;
    size_t k = 0;
    while (k < len) {
        size_t e = k, close;
        int j, is_cast = 0;
        if (t[k] == '\n') {
            pclr__put(g->w, k + 1 < len ? "\n    " : "\n");
            ++k;
            continue;
        }
        if (!pclr__mis_ident((unsigned char)t[k])) {
            if (!(c_dialect && t[k] == '!' && k + 6 < len && !strncmp(t + k + 1, "isnan(", 6))) /* (below) */
                PCLR__GEN_PUTF(g, "%c", t[k]);
            ++k;
            continue;
        }
        while (e < len && pclr__mis_ident((unsigned char)t[e])) ++e;
        for (j = 0; j < 5; ++j) is_cast |= e - k == strlen(casts[j]) && !memcmp(t + k, casts[j], e - k);
        if (c_dialect && e - k == 7 && !memcmp(t + k, "precise", 7) && e < len && t[e] == ' ') {
            k = e + 1; /* (GLSL's qualifier against reassociation: the C dialects do not reassociate) */
        } else if (c_dialect && e - k == 4 && !memcmp(t + k, "bool", 4)) { /* (the kernels' flags are ints in C) */
            pclr__put(g->w, "int");
            k = e;
        } else if (c_dialect && e < len && t[e] == '(' && (is_cast || (e - k == 5 && !memcmp(t + k, "isnan", 5)))) {
            const int negated = !is_cast && k > 0 && t[k - 1] == '!'; /* !isnan(v): v == v */
            int depth = 0;
            for (close = e; close < len; ++close)
                if (t[close] == '(') ++depth;
                else if (t[close] == ')' && --depth == 0) break;
            size_t m = e + 1;
            const char *open = "(", *shut = ")"; /* around an operand that is more than a name (a.v) */
            while (m < close && (pclr__mis_ident((unsigned char)t[m]) || t[m] == '.')) ++m;
            if (m == close) open = shut = "";
            if (is_cast) PCLR__GEN_PUTF(g, "(%.*s)%s", (int)(e - k), t + k, open);
            else if (!negated) pclr__put(g->w, "("); /* isnan(v): (v != v) */
            pclr__gen_op_span(g, t + e + 1, close - e - 1);
            if (!is_cast) {
                PCLR__GEN_PUTF(g, "%s %s %s", shut, negated ? "==" : "!=", open);
                pclr__gen_op_span(g, t + e + 1, close - e - 1);
            }
            pclr__put(g->w, is_cast || negated ? shut : shut[0] ? "))" : ")");
            k = close + 1;
        } else if (e - k == 7 && (!memcmp(t + k, "PCLR_HI", 7) || !memcmp(t + k, "PCLR_LO", 7))) {
            const int big = t[k + 5] == 'H';
            pclr__put(g->w, g->glsl ? pclr__gextreme(g->l.value, big) : pclr__kextreme(g, g->l.value, big));
            k = e;
        } else if (e - k == 13 && !memcmp(t + k, "PCLR_NO_INDEX", 13)) {
            pclr__put(g->w, g->glsl ? "0xfffffffffffffffful" : g->cuda ? "~0ull" : "~0UL");
            k = e;
        } else if (g->glsl && e - k == 8 && !memcmp(t + k, "PCLR_KBN", 8)) {
            pclr__put(g->w, "pclr_kbn");
            k = e;
        } else if (one && e - k == 1 && strchr("abs", t[k]) && e < len && t[e] == '.' &&
                   !strncmp(t + e + 1, g->l.field[0].name, strlen(g->l.field[0].name)) &&
                   !pclr__mis_ident((unsigned char)t[e + 1 + strlen(g->l.field[0].name)])) {
            PCLR__GEN_PUTF(g, "%c", t[k]); /* a.s: a */
            k = e + 1 + strlen(g->l.field[0].name);
        } else {
            PCLR__GEN_PUTF(g, "%.*s", (int)(e - k), t + k);
            k = e;
        }
    }
}

/* One of an op's functions: its head, a local state (or none), the body in neutral text, what it returns. */
static void pclr__gen_op_fn(pclr__gen *g, const char *head, int local, const char *body, const char *ret) {
    PCLR__GEN_PUTF(g, "%s%s {\n%s", g->glsl ? "" : "PCLR_FN ", head, local ? "    pclr_s s;\n" : "");
    if (body[0]) {
        pclr__put(g->w, "    ");
        pclr__gen_op_span(g, body, strlen(body));
    }
    PCLR__GEN_PUTF(g, "    return %s;\n}\n", ret);
}

/* The op's functions from its entry, in g's dialect: pclr_identity, pclr_merge, and pclr_lift or pclr_fold
   (stats: pclr_count_in and pclr_fold_value, which a load's fold calls once and per element). */
static void pclr__gen_op_fns(pclr__gen *g, const pclr__op_def *d, int merges, int fold1) {
    if (d->about) PCLR__GEN_PUTF(g, "/* %s */\n", d->about);
    pclr__gen_op_fn(g, "pclr_s pclr_identity(void)", 1, d->identity, "s");
    if (pclr__after_uses(g, "PCLR_IDENTITY")) pclr__put(g->w, "#define PCLR_IDENTITY pclr_identity()\n");
    if (merges) pclr__gen_op_fn(g, "pclr_s pclr_merge(pclr_s a, pclr_s b)", 0, d->merge, "a");
    if (d->lift) pclr__gen_op_fn(g, "pclr_s pclr_lift(pclr_v x)", 1, d->lift, "s");
    if (d->count) {
        /* (GLSL spells the 64-bit count's type itself: its pclr_u64 is defined only where the kernel's skeleton reads it) */
        pclr__gen_op_fn(g, g->glsl ? "pclr_s pclr_count_in(pclr_s a, pclr_v x, uint64_t k)" : "pclr_s pclr_count_in(pclr_s a, pclr_v x, pclr_u64 k)", 0, d->count, "a");
        pclr__gen_op_fn(g, "pclr_s pclr_fold_value(pclr_s a, pclr_v x)", 0, d->fold, "a");
        if (fold1) /* (a load's fold counts its values at once) */
            pclr__gen_op_fn(g, "pclr_s pclr_fold(pclr_s a, pclr_v x)", 0, "", "pclr_fold_value(pclr_count_in(a, x, 1), x)");
    } else if (d->fold) {
        const int at = pclr__fold_takes_index(d);
        pclr__gen_op_fn(g, !at ? "pclr_s pclr_fold(pclr_s a, pclr_v x)" : g->glsl ? "pclr_s pclr_fold(pclr_s a, pclr_v x, uint64_t i)"
                                                                      : "pclr_s pclr_fold(pclr_s a, pclr_v x, pclr_u64 i)", 0, d->fold, "a");
    }
}

/* The state: a typedef (one field) or a struct, and how a partial another group wrote is read. */
static void pclr__gen_state(pclr__gen *g, const pclr_config *c) {
    const pclr__layout *l = &g->l;
    const int partials = pclr__gen_reads_partials(c, l->size);
    int i;
    if (l->count == 1) {
        PCLR__GEN_PUTF(g, "typedef %s pclr_s;\n", pclr__ktype(l->field[0].type, g->cuda));
        if (partials) pclr__put(g->w, "#define PCLR_PARTIAL(vp, j) (vp)[j]\n");
        return;
    }
    pclr__put(g->w, "typedef struct pclr_s {");
    for (i = 0; i < l->count; ++i) PCLR__GEN_PUTF(g, " %s %s;", pclr__ktype(l->field[i].type, g->cuda), l->field[i].name);
    pclr__put(g->w, " } pclr_s;\n");
    if (!partials) return;
    pclr__put(g->w, "/* a partial written by another group, read field by field through a volatile pointer */\n"
                    "PCLR_FN pclr_s pclr_partial(PCLR_GLOBAL volatile const pclr_s *vp, pclr_u64 j) {\n    pclr_s s;\n");
    for (i = 0; i < l->count; ++i) PCLR__GEN_PUTF(g, "    s.%s = vp[j].%s;\n", l->field[i].name, l->field[i].name);
    pclr__put(g->w, "    return s;\n}\n#define PCLR_PARTIAL(vp, j) pclr_partial((vp), (j))\n");
}

/* Elements [lo, hi) of a loaded vector v as a balanced tree of merges: merge(merge(e0, e1), merge(e2, e3)),
   each lifted into a state (lift) or, where the state is the element, as it is. */
static void pclr__gen_tree(pclr__gen *g, int lo, int hi, int lift) {
    if (hi - lo == 1) {
        char e[160];
        pclr__gen_elem(g, lo, e, sizeof e);
        if (lift && g->vhalf) PCLR__GEN_PUTF(g, "pclr_lift(%s)", e); /* (a value already) */
        else if (lift) PCLR__GEN_PUTF(g, "PCLR_LIFT(%s, (i) + %d)", e, lo);
        else pclr__put(g->w, e);
        return;
    }
    PCLR__GEN_PUTF(g, "%s(", g->merge_parts);
    pclr__gen_tree(g, lo, (lo + hi) / 2, lift);
    pclr__put(g->w, hi - lo > 4 ? ", \\\n    " : ", ");
    pclr__gen_tree(g, (lo + hi) / 2, hi, lift);
    pclr__put(g->w, ")");
}

/* Stride simd, stats: each lane's sum, moments about its shift (the lane's first value; 64-bit integers
   subtract exactly, as pclr_diff), min and max keys (id, key_lo, key_hi: pclr__gen_lanes's) and the loads'
   count; the lanes leave as states merged into acc in lane order (pclr_merge: Chan's, or exact for integers). */
static void pclr__gen_lanes_stats(pclr__gen *g, const pclr_config *c, char id[2][120], const char *key_lo, const char *key_hi) {
    const int n = c->vector_width, fl = pclr__is_float(c->type), wide_int = g->l.shift == PCLR_INT64 || g->l.shift == PCLR_UINT64;
    const char *V = pclr__ktype(g->l.value, 0), *S = pclr__ktype(g->l.sum, 0), *M = pclr__ktype(g->l.moment, 0), *H = pclr__ktype(g->l.shift, 0);
    const char *et = pclr__ktype(c->type, 0);
    char sum[160], diff[240], values[80], shift[100];
    int k;
    if (c->type == PCLR_HALF) snprintf(values, sizeof values, "pclr_half_to_float%d(v)", n); /* (half: the keys are its bits) */
    else if (g->l.value == c->type) snprintf(values, sizeof values, "(v)");
    else snprintf(values, sizeof values, "convert_%s%d(v)", V, n);
    if (c->type == PCLR_HALF && g->l.shift == PCLR_FLOAT) snprintf(shift, sizeof shift, "%s", values);
    else if (c->type == PCLR_HALF) snprintf(shift, sizeof shift, "convert_%s%d(%s)", H, n, values); /* (wide: doubles) */
    else if (g->l.shift == c->type) snprintf(shift, sizeof shift, "(v)");
    else snprintf(shift, sizeof shift, "convert_%s%d(v)", H, n);
    if (g->l.sum == PCLR_INT || g->l.sum == PCLR_INT64) /* (on the unsigned bits: wraps) */
        snprintf(sum, sizeof sum, "as_%s%d(as_u%s%d(l.s) + as_u%s%d(convert_%s%d(x)))", S, n, S, n, S, n, S, n);
    else if (g->l.sum == g->l.value) snprintf(sum, sizeof sum, "l.s + x");
    else snprintf(sum, sizeof sum, "l.s + convert_%s%d(x)", S, n);
    if (wide_int)
        snprintf(diff, sizeof diff, "select(-convert_%s%d(as_ulong%d(l.shift) - as_ulong%d(x)), convert_%s%d(as_ulong%d(x) - as_ulong%d(l.shift)), x >= l.shift)",
                 M, n, n, n, M, n, n, n);
    else if (g->l.moment == g->l.value) snprintf(diff, sizeof diff, "x - l.shift");
    else snprintf(diff, sizeof diff, "convert_%s%d(x) - l.shift", M, n);
    PCLR__GEN_PUTF(g, "typedef struct pclr_lanes { %s%d s; %s%d d1, m2; %s%d shift; pclr_keys lo, hi; ulong n; } pclr_lanes;\n"
                      "/* a lane's sum, moments about its shift (its first value), min and max (keys), and the loads counted */\n"
                      "PCLR_FN pclr_lanes pclr_lanes_identity(void) {\n"
                      "    pclr_lanes l;\n    l.s = (%s%d)(0);\n    l.d1 = l.m2 = (%s%d)(0);\n    l.shift = (%s%d)(0);\n"
                      "    l.lo = %s;\n    l.hi = %s;\n    l.n = 0;\n    return l;\n}\n"
                      "#define PCLR_LANES_IDENTITY pclr_lanes_identity()\n"
                      "PCLR_FN pclr_lanes pclr_lanes_of(pclr_vec v, pclr_u64 i) { /* the shifts: a load's values */\n"
                      "    pclr_lanes l = pclr_lanes_identity();\n    l.shift = %s;\n    return l;\n}\n"
                      "PCLR_FN pclr_lanes pclr_vfold(pclr_lanes l, pclr_vec v) {\n"
                      "    const %s%d x = %s;\n"
                      "    const %s%d d = %s;\n"
                      "    l.s = %s;\n    l.d1 += d;\n    l.m2 += d * d;\n"
                      "    l.lo = min(l.lo, %s);\n    l.hi = max(l.hi, %s);\n    l.n += 1;\n    return l;\n}\n"
                      "#define PCLR_VFOLD(l, v, i) (l) = pclr_vfold((l), (v))\n",
                   S, n, M, n, H, n, S, n, M, n, H, n, id[0], id[1], shift, V, n, values, M, n, diff, sum, key_lo, key_hi);
    pclr__put(g->w, "PCLR_FN pclr_s pclr_lanes_out(pclr_s acc, pclr_lanes l) { /* the lanes into acc, in lane order */\n"
                    "    pclr_s s;\n    if (l.n == 0) return acc;\n");
    if (fl) PCLR__GEN_PUTF(g, "    const pclr_vec xlo = as_%s%d(PCLR_KEY(l.lo)), xhi = as_%s%d(PCLR_KEY(l.hi));\n", et, n, et, n);
    else pclr__put(g->w, "    const pclr_vec xlo = l.lo, xhi = l.hi;\n");
    pclr__put(g->w, "    s.n = l.n;\n");
    for (k = 0; k < n; ++k)
        PCLR__GEN_PUTF(g, "    s.s = l.s.s%x; s.lo = PCLR_VALUE(xlo.s%x); s.hi = PCLR_VALUE(xhi.s%x); s.shift = l.shift.s%x; s.d1 = l.d1.s%x; s.m2 = l.m2.s%x; "
                          "acc = pclr_merge(acc, s);\n", k, k, k, k, k, k);
    pclr__put(g->w, "    return acc;\n}\n");
}

/* Stride simd (g->lanes, pclr__lanes_fold): the work-item's accumulators as one vector of PCLR_VECTOR lanes,
   pclr_lanes, which PCLR_VFOLD(l, v, i) folds a load into lane by lane with OpenCL C's vector operations (the
   CPU compilers' SIMD: a scalar accumulator leaves each load a scalar tree of merges), and pclr_lanes_out,
   which merges the lanes into the state acc in lane order once the loop is done. Integer sums add in the
   sum's type on its unsigned bits (they wrap), counts in 64-bit lanes; integer min and max keep the element
   type; float, double and half min and max compare their bits as ordered integer keys (-0 below +0), a NaN
   as the extreme key, so that it wins (any NaN is a NaN result: its payload is not kept). */
static void pclr__gen_lanes(pclr__gen *g, const pclr_config *c) {
    static const char *const ikey[PCLR_TYPE_COUNT_] = {"", "int", "int", "int", "long", "char", "char", "short", "short", "long", "long", "short"};
    const int n = c->vector_width, plain = pclr__state_is_element(c), fl = pclr__is_float(c->type);
    const int arg = c->op == PCLR_ARGMIN || c->op == PCLR_ARGMAX, bits = (int)pclr_type_size(c->type) * 8;
    const int lo = c->op == PCLR_MIN || c->op == PCLR_ARGMIN || c->op == PCLR_MINMAX, hi = c->op == PCLR_MAX || c->op == PCLR_ARGMAX || c->op == PCLR_MINMAX;
    const char *et = pclr__ktype(c->type, 0), *st = pclr__ktype(g->l.field[0].type, 0), *kt = ikey[c->type];
    char key_lo[80], key_hi[80];
    int k;
    pclr__put(g->w, "/* ---- stride simd: one accumulator per lane of a load, folded with vector operations ---- */\n");
    if (c->op == PCLR_COUNT) {
        PCLR__GEN_PUTF(g, "typedef long%d pclr_lanes; /* the lanes' counts */\n"
                          "#define PCLR_LANES_IDENTITY ((pclr_lanes)(0))\n"
                          "#define PCLR_VFOLD(l, v, i) (l) -= convert_long%d(%s) /* (true is -1) */\n",
                       n, n, c->type == PCLR_HALF ? "((v) & (ushort)0x7fff) != (ushort)0 /* half: NaN counts, -0 does not */"
                                                 : fl ? "(v) != (pclr_vec)(0) /* NaN counts, -0 does not */" : "(v) != (pclr_vec)(0)");
        pclr__put(g->w, "PCLR_FN pclr_s pclr_lanes_out(pclr_s acc, pclr_lanes l) { /* the lanes into acc, in lane order */\n");
        for (k = 0; k < n; ++k) PCLR__GEN_PUTF(g, "    acc = pclr_merge(acc, (pclr_s)l.s%x);\n", k);
        pclr__put(g->w, "    return acc;\n}\n");
        return;
    }
    if (c->op == PCLR_SUM) {
        const pclr_type at = g->l.field[0].type;
        char conv[48] = "(v)";
        if (at != c->type) snprintf(conv, sizeof conv, "convert_%s%d(v)", st, n);
        PCLR__GEN_PUTF(g, "typedef %s%d pclr_lanes; /* the lanes' sums, in the sum's type */\n"
                          "#define PCLR_LANES_IDENTITY ((pclr_lanes)(0))\n", st, n);
        if (at == PCLR_INT || at == PCLR_INT64) PCLR__GEN_PUTF(g, "#define PCLR_VFOLD(l, v, i) (l) = as_%s%d(as_u%s%d(l) + as_u%s%d(%s)) /* wraps */\n",
                                                              st, n, st, n, st, n, conv);
        else PCLR__GEN_PUTF(g, "#define PCLR_VFOLD(l, v, i) (l) += %s\n", conv);
        pclr__put(g->w, "PCLR_FN pclr_s pclr_lanes_out(pclr_s acc, pclr_lanes l) { /* the lanes into acc, in lane order */\n");
        for (k = 0; k < n; ++k) PCLR__GEN_PUTF(g, "    acc = pclr_merge(acc, l.s%x);\n", k);
        pclr__put(g->w, "    return acc;\n}\n");
        return;
    }
    /* min, max, minmax, argmin, argmax: keys (pclr_keys), the element itself for integers */
    if (fl) {
        const char *mask = bits == 64 ? "0x7fffffffffffffffL" : bits == 32 ? "0x7fffffff" : "(short)0x7fff";
        const char *nan = c->type == PCLR_HALF ? "((v) & (ushort)0x7fff) > (ushort)0x7c00" : "isnan(v)";
        const char *kmin = bits == 64 ? "(-0x7fffffffffffffffL - 1)" : bits == 32 ? "(-0x7fffffff - 1)" : "(-0x7fff - 1)";
        const char *kmax = bits == 64 ? "0x7fffffffffffffffL" : bits == 32 ? "0x7fffffff" : "0x7fff";
        PCLR__GEN_PUTF(g, "typedef %s%d pclr_keys; /* a float's bits ordered as integers (-0 below +0) */\n"
                          "#define PCLR_KEY(b) ((b) ^ (((b) >> %d) & %s)) /* (its own inverse) */\n"
                          "PCLR_FN pclr_keys pclr_key(pclr_vec v, pclr_keys nan) { /* a NaN: the key nan (the extreme: it wins) */\n"
                          "    return select(PCLR_KEY(as_%s%d(v)), nan, %s);\n"
                          "}\n", kt, n, bits - 1, mask, kt, n, nan);
        snprintf(key_lo, sizeof key_lo, "pclr_key((v), (pclr_keys)(%s))", kmin);
        snprintf(key_hi, sizeof key_hi, "pclr_key((v), (pclr_keys)(%s))", kmax);
    } else {
        pclr__put(g->w, "typedef pclr_vec pclr_keys; /* integers: the element itself */\n");
        snprintf(key_lo, sizeof key_lo, "(v)");
        snprintf(key_hi, sizeof key_hi, "(v)");
    }
    { /* the identity of a side: the key of PCLR_HI (lo) or PCLR_LO (hi) */
        char id[2][120];
        int side;
        for (side = 0; side < 2; ++side) {
            const char *v = c->type == PCLR_HALF ? (side ? "(ushort)0xfc00" : "(ushort)0x7c00")
                          : pclr__kextreme(g, fl ? g->l.value : c->type, !side);
            if (fl) snprintf(id[side], sizeof id[side], "pclr_key((pclr_vec)(%s), (pclr_keys)(0))", v);
            else snprintf(id[side], sizeof id[side], "((pclr_vec)(%s))", v);
        }
        if (c->op == PCLR_STATS) {
            pclr__gen_lanes_stats(g, c, id, key_lo, key_hi);
            return;
        }
        if (c->op == PCLR_MINMAX) {
            PCLR__GEN_PUTF(g, "typedef struct pclr_lanes { pclr_keys lo, hi; } pclr_lanes; /* the lanes' minima and maxima */\n"
                              "PCLR_FN pclr_lanes pclr_lanes_identity(void) {\n"
                              "    pclr_lanes l;\n    l.lo = %s;\n    l.hi = %s;\n    return l;\n}\n"
                              "#define PCLR_LANES_IDENTITY pclr_lanes_identity()\n"
                              "PCLR_FN pclr_lanes pclr_vfold(pclr_lanes l, pclr_vec v) {\n"
                              "    l.lo = min(l.lo, %s);\n    l.hi = max(l.hi, %s);\n    return l;\n}\n"
                              "#define PCLR_VFOLD(l, v, i) (l) = pclr_vfold((l), (v))\n", id[0], id[1], key_lo, key_hi);
        } else if (arg) {
            static const char *const sname[PCLR_TYPE_COUNT_] = {"", "int", "int", "int", "long", "char", "char", "short", "short", "long", "long", "short"};
            /* floats: the lanes compare keys whose -0 is +0 (c: the ties' order), and keep the best's own key (v) */
            if (fl) pclr__put(g->w, "#define PCLR_TIE0(k) ((k) - ((k) == (pclr_keys)(-1))) /* -0's key as +0's: arg ops tie them */\n");
            PCLR__GEN_PUTF(g, "typedef struct pclr_lanes { pclr_keys v%s; ulong%d i; } pclr_lanes; /* the lanes' best values and their indices */\n"
                              "#define PCLR_LANE_AT(i) ((ulong%d)(i) + (ulong%d)(", fl ? ", c" : "", n, n, n);
            for (k = 0; k < n; ++k) PCLR__GEN_PUTF(g, "%s%d", k ? ", " : "", k);
            PCLR__GEN_PUTF(g, ")) /* the indices of a load's elements */\n"
                              "PCLR_FN pclr_lanes pclr_lanes_identity(void) {\n"
                              "    pclr_lanes l;\n    l.v = %s;%s\n    l.i = (ulong%d)(%s);\n    return l;\n}\n"
                              "#define PCLR_LANES_IDENTITY pclr_lanes_identity()\n"
                              "/* the lanes of a load: every lane holds an element (a lane's first), so that a strictly better one wins */\n"
                              "PCLR_FN pclr_lanes pclr_lanes_of(pclr_vec v, pclr_u64 i) {\n"
                              "    pclr_lanes l;\n    l.v = %s;%s\n    l.i = PCLR_LANE_AT(i);\n    return l;\n}\n"
                              "/* a lane meets its elements in index order: a strictly better one (or the first NaN) wins */\n"
                              "PCLR_FN pclr_lanes pclr_vfold(pclr_lanes l, pclr_vec v, pclr_u64 i) {\n"
                              "    const pclr_keys k = %s;%s\n"
                              "    const %s%d better = %s %s %s;\n"
                              "    l.v = select(l.v, k, better);%s\n"
                              "    l.i = select(l.i, PCLR_LANE_AT(i), convert_long%d(better));\n"
                              "    return l;\n}\n"
                              "#define PCLR_VFOLD(l, v, i) (l) = pclr_vfold((l), (v), (i))\n",
                           c->op == PCLR_ARGMIN ? id[0] : id[1], fl ? "\n    l.c = PCLR_TIE0(l.v);" : "", n, "~0UL",
                           c->op == PCLR_ARGMIN ? key_lo : key_hi, fl ? "\n    l.c = PCLR_TIE0(l.v);" : "",
                           c->op == PCLR_ARGMIN ? key_lo : key_hi, fl ? "\n    const pclr_keys kc = PCLR_TIE0(k);" : "",
                           sname[c->type], n, fl ? "kc" : "k", c->op == PCLR_ARGMIN ? "<" : ">", fl ? "l.c" : "l.v",
                           fl ? "\n    l.c = select(l.c, kc, better);" : "", n);
        } else {
            PCLR__GEN_PUTF(g, "typedef pclr_keys pclr_lanes; /* the lanes' %s */\n"
                              "#define PCLR_LANES_IDENTITY %s\n"
                              "#define PCLR_VFOLD(l, v, i) (l) = %s((l), %s)\n",
                           lo ? "minima" : "maxima", lo ? id[0] : id[1], lo ? "min" : "max", lo ? key_lo : key_hi);
        }
    }
    /* back from the lanes to the elements, and into acc */
    pclr__put(g->w, "PCLR_FN pclr_s pclr_lanes_out(pclr_s acc, pclr_lanes l) { /* the lanes into acc, in lane order */\n");
    {
        const char *fields[2] = {c->op == PCLR_MINMAX ? "lo" : arg ? "v" : "", c->op == PCLR_MINMAX ? "hi" : ""};
        int f;
        for (f = 0; f < 2 && (f == 0 || fields[f][0]); ++f) {
            if (fl) PCLR__GEN_PUTF(g, "    const pclr_vec x%s = as_%s%d(PCLR_KEY(l%s%s));\n", fields[f], et, n, fields[f][0] ? "." : "", fields[f]);
            else PCLR__GEN_PUTF(g, "    const pclr_vec x%s = l%s%s;\n", fields[f], fields[f][0] ? "." : "", fields[f]);
        }
        if (c->op == PCLR_MINMAX || arg) pclr__put(g->w, "    pclr_s s;\n");
        for (k = 0; k < n; ++k) {
            if (c->op == PCLR_MINMAX) PCLR__GEN_PUTF(g, "    s.lo = PCLR_VALUE(xlo.s%x); s.hi = PCLR_VALUE(xhi.s%x); acc = pclr_merge(acc, s);\n", k, k);
            else if (arg) PCLR__GEN_PUTF(g, "    s.v = PCLR_VALUE(xv.s%x); s.i = l.i.s%x; acc = pclr_merge(acc, s);\n", k, k);
            else if (plain) PCLR__GEN_PUTF(g, "    acc = pclr_merge(acc, x.s%x);\n", k);
            else PCLR__GEN_PUTF(g, "    acc = pclr_merge(acc, PCLR_LIFT(x.s%x, 0));\n", k);
        }
    }
    pclr__put(g->w, "    return acc;\n}\n");
    (void)hi;
}

/* An integer arg op's test of a whole load (its entry's load_wins): pclr_load_wins(a, [lo,] [hi]), true where a
   load whose least value is lo and greatest hi can change state a (and the pclr_min / pclr_max that find them).
   A work-item meets its elements in index order and only a strictly better value (or the first) changes its
   state: once that holds a good value few loads can, and the others cost a min or max per element, not a fold. */
static void pclr__gen_load_wins(pclr__gen *g, const pclr__op_def *d) {
    const int lo = pclr__text_uses(d->load_wins, "lo"), hi = pclr__text_uses(d->load_wins, "hi");
    if (!g->glsl) pclr__gen_minmax_fns(g, lo && !pclr__op_uses(d, "pclr_min"), hi && !pclr__op_uses(d, "pclr_max"));
    PCLR__GEN_PUTF(g, "/* whether a load with %s can change a (its elements come in index order: only a strictly better one can) */\n"
                      "%sbool pclr_load_wins(pclr_s a%s%s) {\n    return ", lo && hi ? "least value lo and greatest hi" : lo ? "least value lo" : "greatest value hi",
                   g->glsl ? "" : "PCLR_FN ", lo ? ", pclr_v lo" : "", hi ? ", pclr_v hi" : "");
    pclr__gen_op_span(g, d->load_wins, strlen(d->load_wins));
    pclr__put(g->w, ";\n}\n");
}

static void pclr__gvalue(const pclr__gen *g, const pclr_config *c, int k, char *buf, size_t cap); /* (the GLSL kernel's) */
static void pclr__gelem(const pclr__gen *g, const pclr_config *c, int y, int k, const char *e, char *buf, size_t cap);
/* Whether an op's load folds under pclr_load_wins: an integer arg op's loads of two or more values. */
static int pclr__load_test(const pclr__gen *g, const pclr_config *c, const pclr__op_def *d) {
    return d && d->load_wins && c->vector_width > 1 && !g->vhalf;
}
/* The statements that find a load's least (lo_) and greatest (hi_) values, as load_wins reads them, then the
   test: in the C dialects PCLR_FOLD's "if (pclr_load_wins((acc), lo_)) {" (the folds follow), in GLSL
   pclr_foldv's "if (!pclr_load_wins(acc, lo_)) return acc;". */
static void pclr__gen_load_extremes(pclr__gen *g, const pclr_config *c, const pclr__op_def *d) {
    const int lo = pclr__text_uses(d->load_wins, "lo"), hi = pclr__text_uses(d->load_wins, "hi");
    char e[176], x[160]; /* (PCLR_VALUE around an element's text) */
    int k, side;
    for (side = 0; side < 2; ++side) {
        const char *v = side ? "hi_" : "lo_", *f = g->glsl ? (side ? "max" : "min") : (side ? "pclr_max" : "pclr_min");
        if (!(side ? hi : lo)) continue;
        for (k = 0; k < c->vector_width; ++k) {
            const char *at = g->glsl ? "    " : k == 0 || k % 2 ? " \\\n    " : " "; /* (a macro's lines: two statements each) */
            if (g->glsl) pclr__gvalue(g, c, k, e, sizeof e);
            else {
                pclr__gen_elem(g, k, x, sizeof x);
                snprintf(e, sizeof e, "PCLR_VALUE(%s)", x);
            }
            if (k == 0) PCLR__GEN_PUTF(g, "%spclr_v %s = %s;%s", at, v, e, g->glsl ? "\n" : "");
            else PCLR__GEN_PUTF(g, "%s%s = %s(%s, %s);%s", at, v, f, v, e, g->glsl ? "\n" : "");
        }
    }
    if (g->glsl) PCLR__GEN_PUTF(g, "    if (!pclr_load_wins(acc%s%s)) return acc;\n", lo ? ", lo_" : "", hi ? ", hi_" : "");
    else PCLR__GEN_PUTF(g, " \\\n    if (pclr_load_wins((acc)%s%s)) {", lo ? ", lo_" : "", hi ? ", hi_" : "");
}

/* Sum, min or max whose state is the element itself: the short text the macro form shares. */
static void pclr__gen_plain_ops(pclr__gen *g, const pclr_config *c) {
    const pclr_type t = c->type;
    const int d = t == PCLR_DOUBLE;
    PCLR__GEN_PUTF(g, "/* ---- the operation: %s ---- */\n"
                      "typedef pclr_t pclr_s; /* the state: the element itself */\n", pclr_op_name(c->op));
    if (pclr__gen_reads_partials(c, g->l.size)) pclr__put(g->w, "#define PCLR_PARTIAL(vp, j) (vp)[j]\n");
    if (!g->vloads || c->vector_width > 1) /* (one element: the head and tail of vectors, the layouts) */
        pclr__put(g->w, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), (x))\n");
    PCLR__GEN_PUTF(g, "#define PCLR_IDENTITY %s\n", c->op == PCLR_MIN ? pclr__kextreme(g, t, 1) : c->op == PCLR_MAX ? pclr__kextreme(g, t, 0)
                                                    : pclr__is_float(t) ? (d ? "0.0" : "0.0f") : t == PCLR_UINT ? "0u" : "0");
    if (c->op == PCLR_SUM && t == PCLR_INT) {
        pclr__put(g->w, PCLR__TEXT_MERGE_BITS(PCLR__MERGE_SUM));
        pclr__put(g->w, g->cuda ? PCLR__TEXT_MERGE_INT_CUDA : PCLR__TEXT_MERGE_INT_CL);
    } else if (c->op == PCLR_SUM && t == PCLR_INT64) {
        PCLR__GEN_PUTF(g, "PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return %s; } /* on the unsigned bits: wraps */\n",
                       g->cuda ? "(pclr_i64)((pclr_u64)a + (pclr_u64)b)" : "as_long(as_ulong(a) + as_ulong(b))");
    } else if (c->op != PCLR_SUM && pclr__is_float(t)) {
        pclr__gen_minmax_fns(g, c->op == PCLR_MIN, c->op == PCLR_MAX); /* one instruction on NVIDIA sm_80+ */
        pclr__put(g->w, c->op == PCLR_MIN ? PCLR__TEXT_MERGE_VIA("min") : PCLR__TEXT_MERGE_VIA("max"));
    } else {
        pclr__put(g->w, c->op == PCLR_SUM ? PCLR__TEXT_MERGE(PCLR__MERGE_SUM) : c->op == PCLR_MIN ? PCLR__TEXT_MERGE(PCLR__MERGE_MIN)
                                                                                      : PCLR__TEXT_MERGE(PCLR__MERGE_MAX));
    }
    if (!g->vloads) ; /* (a layout folds one element at a time) */
    else if (g->lanes) pclr__gen_lanes(g, c);
    else if (c->vector_width == 1) pclr__put(g->w, PCLR__TEXT_FOLD1);
    else if (c->vector_width == 2) pclr__put(g->w, g->cuda ? PCLR__TEXT_FOLD2(PCLR__TEXT_ELEMENT_CUDA) : PCLR__TEXT_FOLD2(PCLR__TEXT_ELEMENT_CL));
    else if (c->vector_width == 4) pclr__put(g->w, g->cuda ? PCLR__TEXT_FOLD4(PCLR__TEXT_ELEMENT_CUDA) : PCLR__TEXT_FOLD4(PCLR__TEXT_ELEMENT_CL));
    else { /* 8 or 16 elements (the macro form stops at 4) */
        pclr__put(g->w, "/* Folds one loaded vector into the accumulator, as a small tree. */\n"
                        "#define PCLR_FOLD(acc, v, i) (acc) = pclr_merge((acc), ");
        pclr__gen_tree(g, 0, c->vector_width, 0);
        pclr__put(g->w, ")\n");
    }
}

/* The op: merge, and lift or fold; then PCLR_FOLD1 (one element x at index i)
   and PCLR_FOLD (the loaded vector v, its first element at index i). */
static void pclr__gen_ops(pclr__gen *g, const pclr_config *c) {
    const pclr__op_def *d = pclr__op_def_of(c->op, c->accumulate, g->l.value); /* (NULL: a reduction's, op custom) */
    const int sequential = d && !d->lift;
    /* PCLR_FOLD1 is read by the layouts, by the head and tail of vectors, and by a PCLR_FOLD written as it */
    const int fold1 = !g->vloads || c->vector_width > 1 || !g->map;
    /* pclr_merge is read everywhere but in rows of one work-item each folded by pclr_fold alone */
    const int merges = !sequential || c->layout == PCLR_LAYOUT_ONE || c->layout == PCLR_LAYOUT_COLUMNS || c->lanes > 1;
    char x1[160], e[160];
    int k;
    if (pclr__state_is_element(c)) {
        pclr__gen_plain_ops(g, c);
        return;
    }
    PCLR__GEN_PUTF(g, "/* ---- the operation: %s%s%s ---- */\n", pclr_op_name(c->op), pclr__op_accumulates(c->op) ? ", accumulate " : "",
                   pclr__op_accumulates(c->op) ? pclr_accumulate_name(c->accumulate) : "");
    if (!d) { /* a reduction's: its state, then its functions and lift (the map) */
        pclr__gen_state(g, c);
        pclr__gen_map(g, c);
    } else {
        pclr__gen_value(g, c, 1);
        if (pclr__op_uses(d, "pclr_min") || pclr__op_uses(d, "pclr_max")) pclr__gen_minmax_fns(g, pclr__op_uses(d, "pclr_min"), pclr__op_uses(d, "pclr_max"));
        pclr__gen_add(g, d);
        if (pclr__op_uses(d, "pclr_m")) PCLR__GEN_PUTF(g, "typedef %s pclr_m; /* mean and M2 are computed in this type */\n",
                                                     pclr__ktype(g->l.moment, g->cuda));
        pclr__gen_diff(g, d);
        pclr__gen_state(g, c);
        pclr__gen_op_fns(g, d, merges, fold1);
        if (d->lift) pclr__put(g->w, "#define PCLR_LIFT(x, i) pclr_lift(PCLR_VALUE(x))\n");
    }
    /* the folds (a map's x and y: PCLR_MAP of the loaded elements) */
    pclr__gen_elem(g, -1, x1, sizeof x1);
    if (sequential) {
        const int at = pclr__fold_takes_index(d);
        if (fold1) PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold((acc), PCLR_VALUE(%s)%s)\n", g->map ? x1 : "x", at ? ", (i)" : "");
        if (!g->vloads) ; /* (a layout folds one element at a time) */
        else if (g->lanes) pclr__gen_lanes(g, c);
        else if (c->vector_width == 1 && !g->map) pclr__put(g->w, "#define PCLR_FOLD(acc, v, i) PCLR_FOLD1(acc, v, i)\n");
        else {
            const int stats = c->op == PCLR_STATS; /* counted once per vector */
            const int wins = pclr__load_test(g, c, d); /* (an integer arg op: its load's extremes first) */
            pclr__gen_elem(g, 0, e, sizeof e);
            const char *value = g->vhalf ? "" : "PCLR_VALUE";
            if (wins) pclr__gen_load_wins(g, d);
            PCLR__GEN_PUTF(g, "/* Folds one loaded vector into the accumulator, element by element%s. */\n#define PCLR_FOLD(acc, v, i) do {",
                           wins ? " where it can change it (pclr_load_wins)" : "");
            if (g->vhalf) PCLR__GEN_PUTF(g, " \\\n    const float%d f_ = pclr_half_to_float%d(v); /* the load's values */", c->vector_width, c->vector_width);
            if (stats) PCLR__GEN_PUTF(g, " \\\n    (acc) = pclr_count_in((acc), %s(%s), PCLR_VECTOR);", value, e);
            if (wins) pclr__gen_load_extremes(g, c, d);
            for (k = 0; k < c->vector_width; ++k) {
                char idx[32] = "";
                if (at) snprintf(idx, sizeof idx, ", (i) + %d", k);
                pclr__gen_elem(g, k, e, sizeof e);
                PCLR__GEN_PUTF(g, "%s(acc) = pclr_fold%s((acc), %s(%s)%s);", k % 2 ? " " : wins ? " \\\n        " : " \\\n    ", stats ? "_value" : "",
                               value, e, idx);
            }
            pclr__put(g->w, wins ? " \\\n    } \\\n} while (0)\n" : " \\\n} while (0)\n");
        }
    } else {
        if (fold1) PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) (acc) = %s((acc), PCLR_LIFT(%s, (i)))\n", g->merge_in, g->map ? x1 : "(x)");
        if (!g->vloads) ; /* (a layout folds one element at a time) */
        else if (g->lanes) pclr__gen_lanes(g, c);
        else if (c->vector_width == 1 && !g->map) pclr__put(g->w, "#define PCLR_FOLD(acc, v, i) PCLR_FOLD1(acc, v, i)\n");
        else if (c->vector_width == 1) {
            pclr__gen_elem(g, 0, e, sizeof e);
            PCLR__GEN_PUTF(g, "#define PCLR_FOLD(acc, v, i) (acc) = %s((acc), PCLR_LIFT(%s, (i)))\n", g->merge_in, e);
        } else if (g->vhalf) {
            PCLR__GEN_PUTF(g, "/* Folds one loaded vector into the accumulator, as a small tree of its values. */\n"
                              "#define PCLR_FOLD(acc, v, i) do { \\\n"
                              "    const float%d f_ = pclr_half_to_float%d(v); \\\n"
                              "    (acc) = %s((acc), ", c->vector_width, c->vector_width, g->merge_in);
            pclr__gen_tree(g, 0, c->vector_width, 1);
            pclr__put(g->w, "); \\\n} while (0)\n");
        } else {
            PCLR__GEN_PUTF(g, "/* Folds one loaded vector into the accumulator, as a small tree. */\n"
                              "#define PCLR_FOLD(acc, v, i) (acc) = %s((acc), ", g->merge_in);
            pclr__gen_tree(g, 0, c->vector_width, 1);
            pclr__put(g->w, ")\n");
        }
    }
}

/* Level 2: the group's value, valid in work-item 0. */
/* One field's shuffle on NVIDIA OpenCL (32-bit pieces through inline PTX). */
static void pclr__gen_shfl_field(pclr__gen *g, const char *lv, pclr_type t) {
    const char *n = pclr__ktype(t, 0);
    if (pclr_type_size(t) == 8)
        PCLR__GEN_PUTF(g, "    { uint2 b = as_uint2(%s); b.x = pclr_shfl_u32(b.x, delta); b.y = pclr_shfl_u32(b.y, delta); %s = as_%s(b); }\n",
                       lv, lv, n);
    else if (t == PCLR_UINT) PCLR__GEN_PUTF(g, "    %s = pclr_shfl_u32(%s, delta);\n", lv, lv);
    else PCLR__GEN_PUTF(g, "    %s = as_%s(pclr_shfl_u32(as_uint(%s), delta));\n", lv, n, lv);
}

/* Level 2: the group's value, valid in work-item 0. */
static void pclr__gen_group(pclr__gen *g, const pclr_config *c) {
    const pclr__layout *l = &g->l;
    const pclr_type st = l->field[0].type; /* a one-field state's type */
    int i;
    if (!pclr__gen_group_reduce(c) && !pclr__gen_waves(c)) return; /* a layout whose teams or columns reduce without them */
    pclr__put(g->w, PCLR__TEXT_LEVEL2);
    if (pclr__gen_tree_rolled(c)) pclr__put(g->w, PCLR__TEXT_TREE_ROLLED);
    if (pclr__gen_waves(c)) {
        if (g->cuda && l->count == 1) pclr__put(g->w, PCLR__TEXT_SHFL_CUDA);
        else if (g->cuda) {
            pclr__put(g->w, "PCLR_FN pclr_s pclr_shfl_down(pclr_s v, uint delta) { /* field by field */\n");
            for (i = 0; i < l->count; ++i)
                PCLR__GEN_PUTF(g, "    v.%s = __shfl_down_sync(0xffffffffu, v.%s, delta);\n", l->field[i].name, l->field[i].name);
            pclr__put(g->w, "    return v;\n}\n#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))\n");
        } else {
            pclr__put(g->w, "/* NVIDIA OpenCL: wave shuffles as inline PTX on 32-bit pieces. */\n"
                            "PCLR_FN uint pclr_shfl_u32(uint v, uint delta) {\n"
                            "    uint r;\n"
                            "    asm volatile(\"shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(delta));\n"
                            "    return r;\n"
                            "}\n"
                            "PCLR_FN pclr_s pclr_shfl_down(pclr_s v, uint delta) {\n");
            if (l->count == 1) pclr__gen_shfl_field(g, "v", st);
            for (i = 0; l->count > 1 && i < l->count; ++i) {
                char lv[48];
                snprintf(lv, sizeof lv, "v.%s", l->field[i].name);
                pclr__gen_shfl_field(g, lv, l->field[i].type);
            }
            pclr__put(g->w, "    return v;\n}\n"
                            "#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))\n");
        }
        pclr__put(g->w, PCLR__TEXT_WAVE_REDUCE);
    }
    if (!pclr__gen_group_reduce(c)) return; /* (teams of a wave: pclr_wave_reduce alone) */
    if (c->variant == PCLR_VARIANT_SEQUENTIAL) { /* one function, not a call of it (PoCL 3 crashes on a struct state there) */
        pclr__put(g->w, "#define pclr_group_reduce pclr_tree_rolled\n");
        return;
    }
    pclr__put(g->w, PCLR__TEXT_GROUP_REDUCE);
    if (c->variant == PCLR_VARIANT_COLLECTIVE) {
        const int dbl = st == PCLR_DOUBLE;
        const char *key = dbl ? "long" : "int", *mask = dbl ? "0x7fffffffffffffffL" : "0x7fffffff", *prim = pclr__prims[c->op];
        pclr__put(g->w, "    (void)lds;\n");
        if (c->op == PCLR_SUM && (st == PCLR_INT || st == PCLR_INT64)) /* on the unsigned bits: wraps */
            PCLR__GEN_PUTF(g, "    return as_%s(work_group_reduce_add(as_u%s(acc)));\n", pclr__ktype(st, 0), pclr__ktype(st, 0));
        else if (pclr__is_float(st) && c->op != PCLR_SUM)
            PCLR__GEN_PUTF(g, "    const int has_nan = work_group_any(acc != acc); /* the collectives ignore NaN; we propagate it */\n"
                              "    /* NVIDIA's float min/max collectives start from FLT_MAX/FLT_MIN, not +-inf:\n"
                              "       reduce order-preserving integer keys of the bits instead. */\n"
                              "    %s k = as_%s(acc);\n"
                              "    k ^= (k >> %d) & %s;\n"
                              "    k = work_group_reduce_%s(k);\n"
                              "    const pclr_t r = as_%s(k ^ ((k >> %d) & %s));\n"
                              "    return has_nan ? (pclr_s)NAN : r;\n",
                           key, key, dbl ? 63 : 31, mask, prim, pclr__ktype(st, 0), dbl ? 63 : 31, mask);
        else PCLR__GEN_PUTF(g, "    return work_group_reduce_%s(acc);\n", prim);
    } else if (c->variant == PCLR_VARIANT_SHUFFLE && c->group_size > c->wave_width)
        pclr__put(g->w, PCLR__TEXT_SHUFFLE_WAVES);
    else if (c->variant == PCLR_VARIANT_SHUFFLE)
        pclr__put(g->w, "    (void)lds; /* one wave: no second step */\n"
                        "    return pclr_wave_reduce(acc, PCLR_WAVE);\n");
    else if (c->variant == PCLR_VARIANT_NAIVE)
        pclr__put(g->w, PCLR__TEXT_TREE_NAIVE);
    else if (!g->cuda || c->wave_width != 32) /* UNROLLED */
        pclr__put(g->w, PCLR__TEXT_TREE_UNROLLED("1") PCLR__TEXT_RETURN_LDS);
    else /* UNROLLED, CUDA warps of 32: the smaller steps stay inside warp 0 (a group has one or more) */
        pclr__put(g->w, PCLR__TEXT_TREE_UNROLLED("32")
                        "    /* the steps inside warp 0: __syncwarp orders them (the old volatile idiom is a race) */\n"
                        "    if (lid < 32) {\n"
                        "#pragma unroll\n"
                        "        for (uint s = 16; s > 0; s >>= 1) {\n"
                        "            pclr_s o = acc;\n"
                        "            if (lid < s) o = lds[lid + s];\n"
                        "            __syncwarp();\n"
                        "            if (lid < s) lds[lid] = acc = pclr_merge(acc, o);\n"
                        "            __syncwarp();\n"
                        "        }\n"
                        "    }\n"
                        "    return acc;\n");
    pclr__put(g->w, "}\n");
}

/* What one step of the loop loads (pclr_in, PCLR_LOAD: a vector of x, and one of y beside it) and the
   kernel's opening to its first statement. C: the entry point and its arguments (args: the text of the
   first ones, PCLR__TEXT_KERNEL_ARGS or the exact sum's). GLSL: main, whose first constants are the
   arguments (the push constants'); its shared memory is declared at global scope (pclr__glsl_group). */
static void pclr__gen_kernel_open(pclr__gen *g, const char *args) {
    const int y = g->map && g->map->y;
    int k;
    if (!g->vloads) ; /* (a layout loads its elements one by one) */
    else if (g->glsl && !y) pclr__put(g->w, "#define pclr_in pclr_in_x /* one load: words of x */\n#define PCLR_LOAD(j) xv[uint(pv + (j))]\n");
    else if (g->glsl)
        pclr__put(g->w, "struct pclr_in { pclr_in_x x; pclr_in_y y; }; /* one load: words of x and of y */\n"
                        "pclr_in pclr_load(uint64_t j, uint64_t j2) { pclr_in r; r.x = xv[uint(j)]; r.y = yv[uint(j2)]; return r; }\n"
                        "#define PCLR_LOAD(j) pclr_load(pv + (j), qv + (j))\n");
    else if (!y) pclr__put(g->w, PCLR__TEXT_LOAD_X);
    else pclr__put(g->w, "typedef struct pclr_in { pclr_vec x; pclr_vec2 y; } pclr_in; /* one load: a vector of x and one of y */\n"
                         "PCLR_FN pclr_in pclr_load(PCLR_GLOBAL const pclr_vec *pv, PCLR_GLOBAL const pclr_vec2 *qv, pclr_u64 j) {\n"
                         "    pclr_in r;\n    r.x = pv[j];\n    r.y = qv[j];\n    return r;\n}\n"
                         "#define PCLR_LOAD(j) pclr_load(pv, qv, (j))\n");
    if (g->glsl) {
        PCLR__GEN_PUTF(g, "/* ---- the kernel ---- */\n"
                          "void main() {\n"
                          "    const uint64_t offset = args.offset, n = args.n%s;\n", y ? ", offset2 = args.offset2" : "");
        return;
    }
    pclr__put(g->w, args);
    if (y) pclr__put(g->w, ",\n                             PCLR_GLOBAL const pclr_t2 *PCLR_RESTRICT in2, pclr_u64 offset2");
    for (k = 0; g->map && k < g->map->params; ++k)
        PCLR__GEN_PUTF(g, "%s%s p%d", k ? ", " : ",\n                             ", pclr__mtname(g->map->param[k], g->cuda), k);
    pclr__put(g->w, ") {\n");
}

/* Level 1: each work-item folds its share of the input into acc (PCLR_FOLD, PCLR_FOLD1), loads in
   flight; loop: the main loop's text (PCLR__TEXT_LOOP, or the exact sum's). */
static void pclr__gen_level1(pclr__gen *g, const pclr_config *c, const char *loop, const char *partial) {
    const int y = g->map && g->map->y;
    if (y) pclr__put(g->w, "    PCLR_YREF q = PCLR_YAT(offset2); /* y, element for element with x */\n");
    if (c->vector_width > 1) pclr__put(g->w, pclr__ordered(c) ? PCLR__TEXT_HEAD_ORDERED : PCLR__TEXT_HEAD);
    else pclr__put(g->w, "    /* Level 1, in-thread. */\n"
                         "    const pclr_u64 head = 0, nvec = n;\n"
                         "    PCLR_VREF pv = PCLR_VAT(p);\n");
    if (y) pclr__put(g->w, "    PCLR_V2REF qv = PCLR_V2AT(q + head); /* the host saw that y lines up */\n");
    if (c->stride == PCLR_STRIDE_GLOBAL) pclr__put(g->w, PCLR__TEXT_STRIDE_GLOBAL);
    else pclr__put(g->w, "    /* local stride: work-item t walks its own contiguous block of vectors (CPU-friendly) */\n"
                         "    const pclr_u64 block = (nvec + groups * PCLR_GROUP - 1) / (groups * PCLR_GROUP), stride = 1;\n"
                         "    pclr_u64 i = thread * block;\n"
                         "    const pclr_u64 end = i + block < nvec ? i + block : nvec;\n");
    if (g->lanes) {
        pclr__put(g->w, "    pclr_lanes lanes = PCLR_LANES_IDENTITY; /* stride simd: an accumulator per lane */\n");
        if (c->op == PCLR_ARGMIN || c->op == PCLR_ARGMAX)
            pclr__put(g->w, "    if (i < end) lanes = pclr_lanes_of(PCLR_LOAD(i), head + i * PCLR_VECTOR); /* (folded again below: no change) */\n");
        if (c->op == PCLR_STATS) pclr__put(g->w, "    if (i < end) lanes = pclr_lanes_of(PCLR_LOAD(i), head + i * PCLR_VECTOR); /* the lanes' shifts */\n");
        pclr__put(g->w, PCLR__TEXT_LOOP_INTO("PCLR_VFOLD(lanes, "));
        if (c->unroll > 1) pclr__put(g->w, PCLR__TEXT_PARTIAL_ROUND_INTO("PCLR_VFOLD(lanes, "));
        pclr__put(g->w, "    acc = pclr_lanes_out(acc, lanes);\n");
    } else {
        pclr__put(g->w, loop);
        if (c->unroll > 1) pclr__put(g->w, partial ? partial : PCLR__TEXT_PARTIAL_ROUND);
    }
    if (c->vector_width > 1) pclr__put(g->w, pclr__ordered(c) ? PCLR__TEXT_TAIL_ORDERED : PCLR__TEXT_TAIL);
}

/* Level 3, between groups, and the kernel's closing brace. */
static void pclr__gen_finish(pclr__gen *g, const pclr_config *c) {
    const char *ticket = g->glsl ? "atomicAdd(counter, 1u)" : g->cuda ? PCLR__TEXT_TICKET_CUDA : PCLR__TEXT_TICKET_CL;
    const char *tree = pclr__gen_tree_rolled(c) ? "pclr_tree_rolled" : "pclr_group_reduce";
    if (c->finish == PCLR_FINISH_PARTIALS)
        pclr__put(g->w, "    /* Level 3: each group writes its value; the host runs a second pass. */\n"
                        "    if (lid == 0) PCLR_STORE_OUT(group, acc);\n"
                        "}\n");
    else if (c->finish == PCLR_FINISH_LAST_GROUP && pclr__words_finish(c, g->l.size))
        PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP PCLR__TEXT_LAST_GROUP_WORDS_CUDA("%s"), tree);
    else if (c->finish == PCLR_FINISH_LAST_GROUP && pclr__ordered(c)) { /* (a reduction's merge: states in order) */
        if (g->cuda || g->glsl) PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP PCLR__TEXT_LAST_GROUP_TICKET_PUBLISH("%s"), g->cuda ? "pclr_ticket(counter)" : "pclr_ticket()");
        else PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP PCLR__TEXT_LAST_GROUP_PUBLISH("%s"), ticket);
        pclr__put(g->w, PCLR__TEXT_LAST_GROUP_FOLD_ORDERED);
    } else if (c->finish == PCLR_FINISH_LAST_GROUP && (g->cuda || g->glsl))
        PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP PCLR__TEXT_LAST_GROUP_TICKET("%s", "%s"), g->cuda ? "pclr_ticket(counter)" : "pclr_ticket()", tree);
    else if (c->finish == PCLR_FINISH_LAST_GROUP)
        PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP PCLR__TEXT_LAST_GROUP("%s", "%s"), ticket, tree);
    else { /* the running value in one word of the partials, by the dialect's atomics */
        static const char *const fns[3][4] = {{"atomic_add", "atomic_min", "atomic_max", "atomic_xchg"},
                                              {"atomicAdd", "atomicMin", "atomicMax", "atomicExch"},
                                              {"atomicAdd", "atomicMin", "atomicMax", "atomicExchange"}};
        const int d = g->glsl ? 2 : g->cuda ? 1 : 0, f = c->op == PCLR_SUM ? 0 : c->op == PCLR_MIN ? 1 : 2;
        const char *running = !g->glsl ? "partials" : g->l.field[0].type == PCLR_INT ? "pwi[args.part_at]" : "pw[args.part_at]";
        PCLR__GEN_PUTF(g, PCLR__TEXT_ONE_GROUP
                          "    /* %s holds the running value; it is the identity between calls. */\n"
                          "    if (lid == 0) {\n"
                          "        %s(%s, acc);\n"
                          "        PCLR_DEVICE_FENCE();\n"
                          "        if (%s == groups - 1) {\n"
                          "            PCLR_DEVICE_FENCE();\n"
                          "            PCLR_STORE_OUT(0, %s(%s, PCLR_IDENTITY));\n"
                          "            PCLR_COUNTER = 0;\n"
                          "        }\n"
                          "    }\n"
                          "}\n", g->glsl ? "The partials' word args.part_at" : "partials[0]", fns[d][f], running, ticket, fns[d][3], running);
    }
}

/* The single array's kernel, one text for every dialect: its opening, levels 1 and 2 (the group step is
   pclr__gen_group's), and level 3, between groups. */
static void pclr__gen_kernel(pclr__gen *g, const pclr_config *c) {
    const int words = pclr__words_finish(c, g->l.size);
    if (words) {
        pclr__put(g->w, g->l.size == 4 ? PCLR__TEXT_WORD4_CUDA : PCLR__TEXT_WORD8_CUDA);
        pclr__put(g->w, PCLR__TEXT_COLLECT_CUDA);
    }
    pclr__gen_kernel_open(g, PCLR__TEXT_KERNEL_ARGS);
    if (!g->glsl) {
        PCLR__GEN_PUTF(g, PCLR__TEXT_KERNEL_LDS("%s"), c->variant == PCLR_VARIANT_SHUFFLE ? "PCLR_GROUP / PCLR_WAVE"
                                                     : c->variant == PCLR_VARIANT_COLLECTIVE ? "1"
                                                     : "PCLR_GROUP");
        if (c->finish == PCLR_FINISH_LAST_GROUP) pclr__put(g->w, PCLR__TEXT_IS_LAST);
    }
    if (g->cuda) pclr__put(g->w, PCLR__TEXT_GRID_DEPENDENCY);
    pclr__put(g->w, PCLR__TEXT_IDS);
    if (words) pclr__put(g->w, PCLR__TEXT_TICKET_AT_START_CUDA);
    if (c->finish == PCLR_FINISH_PARTIALS && !g->glsl) pclr__put(g->w, "    (void)partials; (void)counter;\n");
    pclr__gen_level1(g, c, PCLR__TEXT_LOOP, NULL);
    pclr__put(g->w, PCLR__TEXT_LEVEL2_CALL);
    pclr__gen_finish(g, c);
}

/* ------------------------------------------------------------ the exact sum  >>exact
   accumulate = exact (sums of half, float, double): the exact sum of the
   elements rounded once to nearest-even, so that every knob, grid, backend
   and device gives the same bits (docs/exact-sums.md: the method and why it
   is exact). In short: a work-item adds its elements in double and keeps the
   sum while a cheap test shows that no addition rounded; a vector that would
   round goes, with the running sum, into the group's superaccumulator:
   integer cells of 32-bit digits carried in 64 bits (carry-save), added with
   64-bit atomics in local memory. The group tree merges running sums with
   TwoSum and deposits the rounding errors. Each group adds its cells into the
   launch's cells (the kernel's partials argument, zero between launches) with
   64-bit atomics; the last group rounds them and zeroes them again. */

/* The elements one group adds into its cells at most: each of its deposits
   adds less than 2^32 to a cell, and an element causes at most two deposits
   (its own spill, or its share of a running sum's s and c when that is
   spilled), so a cell stays under 2^62. */
#define PCLR__EXACT_GROUP_MOST ((uint64_t)1 << 29)
/* The launch's cells and its flags word: the zeroed scratch of every exact kernel. */
#define PCLR__EXACT_SCRATCH_BYTES ((69 + 1) * 8)
/* A histogram launch's counts: a low and a high word for each bin and for underflow, overflow and nan: the
   zeroed scratch of every histogram kernel (one size for every bins: the backends make it once). */
#define PCLR__HIST_SCRATCH_BYTES (8 * ((size_t)PCLR_HISTOGRAM_MAX_BINS + 3))

/* The zeroed device scratch a configuration's kernel takes as its partials
   argument, and leaves zeroed after each launch (0: it takes the per-group
   partials instead). The backends allocate it once, zero-filled. */
PCLR__FN size_t pclr__zeroed_scratch_bytes(const pclr_config *c) {
    return c->op == PCLR_HISTOGRAM ? PCLR__HIST_SCRATCH_BYTES : c->accumulate == PCLR_EXACT ? PCLR__EXACT_SCRATCH_BYTES : 0;
}

#ifndef PCLREDUCE_NO_EXACT /* the exact kernel (docs/usage.md "Leaving features out") */
/* The cells for an element type: cell k weighs 2^(32 k + emin); the rest
   describes the result's format. */
typedef struct pclr__exact_shape {
    int cells;       /* deposits reach cell cells - 4 at most: room for the carries of 2^64 elements */
    int emin;        /* a multiple of 32 at or below the smallest ulp of the elements */
    int mant;        /* the result's precision in bits (24, 53) */
    int sub, top;    /* the result's smallest and largest ulp exponents (-149 and 104; -1074 and 971) */
} pclr__exact_shape;

static pclr__exact_shape pclr__exact_shape_of(pclr_type t) {
    /* float and half elements (values < 2^128, multiples of 2^-149): a running
       sum of < 2^31 of them stays below 2^159, bit 319 of cells from 2^-160;
       the launch's total stays below 2^192. Doubles: below 2^1024 and 2^1088. */
    pclr__exact_shape s;
    if (t == PCLR_DOUBLE) { s.cells = 69; s.emin = -1088; s.mant = 53; s.sub = -1074; s.top = 971; }
    else { s.cells = 12; s.emin = -160; s.mant = 24; s.sub = -149; s.top = 104; }
    return s;
}

/* Whether the exact kernel is written in GLSL (the Vulkan backend): the text
   below is one kernel for the three dialects; their differences are the words
   of pclr__gen_exact_words, the shared declarations' place and level 1's frame. */
static int pclr__xglsl(const pclr_config *c) { return c->backend == PCLR_VULKAN; }

/* A struct type named name with these fields: C's typedef, GLSL's declaration. */
static void pclr__xstruct(pclr__gen *g, const pclr_config *c, const char *name, const char *fields) {
    if (pclr__xglsl(c)) PCLR__GEN_PUTF(g, "struct %s {%s};\n", name, fields);
    else PCLR__GEN_PUTF(g, "typedef struct %s {%s} %s;\n", name, fields, name);
}

/* Another name for a type (C's typedef, GLSL's macro). */
static void pclr__xalias(pclr__gen *g, const pclr_config *c, const char *type, const char *name) {
    if (pclr__xglsl(c)) PCLR__GEN_PUTF(g, "#define %s %s\n", name, type);
    else PCLR__GEN_PUTF(g, "typedef %s %s;\n", type, name);
}


/* The dialect's words for the exact kernel: types and casts, atomics (64-bit
   ones too), bit casts, clz, function qualifiers, `precise` (GLSL: the error-free
   additions must not be contracted or reordered), and the cells: C passes the
   group's cells and specials word to functions as pointers, GLSL names its
   shared variables (PCLR_CELLS_PARAMS / _ARGS are empty); the launch's cells
   (PCLR_TOTAL), the flags word after them, the ticket, the counter and out. */
static void pclr__gen_exact_words(pclr__gen *g, const pclr_config *c) {
    const int dbl = pclr__reduced(c) == PCLR_DOUBLE;
    if (pclr__xglsl(c)) {
        PCLR__GEN_PUTF(g, "#extension GL_EXT_shader_atomic_int64 : require\n"
                          "#define pclr_i64 int64_t\n%s"
                          "#define PCLR_FN\n#define PCLR_COLD\n#define PCLR_SHARED shared\n#define PCLR_PRECISE precise\n"
                          "#define PCLR_LID gl_LocalInvocationID.x\n"
                          "#define PCLR_GROUP_ID uint64_t(gl_WorkGroupID.x)\n#define PCLR_NUM_GROUPS uint64_t(gl_NumWorkGroups.x)\n"
                          "#define PCLR_BARRIER() barrier()\n#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()\n"
                          "#define PCLR_EQ(a, b) int((a) == (b))\n#define PCLR_CAST(t, x) t(x)\n"
                          "#define PCLR_DIGIT 0xffffffffl\n#define PCLR_M52 0xffffffffffffful\n"
                          "#define PCLR_ATOMIC_ADD64(a, v) atomicAdd((a), (v))\n"
                          "#define PCLR_ATOMIC_OR(a, v) atomicOr((a), (v))\n"
                          "#define PCLR_ATOMIC_MIN(a, v) atomicMin((a), (v))\n"
                          "#define PCLR_ATOMIC_MAX(a, v) atomicMax((a), (v))\n"
                          "#define PCLR_BITS(d) doubleBitsToUint64(d)\n"
                          "#define PCLR_CLZ(x) (31 - findMSB(uint(x)))\n"
                          "#define pclr_r uint64_t /* the result's bits */\n#define PCLR_RESULT(b) uint64_t(b)\n"
                          "/* the group's cells and specials are the shared variables below */\n"
                          "#define PCLR_CELLS_PARAMS\n#define PCLR_CELLS_ARGS\n#define PCLR_SPECIALS specials\n"
                          "#define PCLR_GROUP_CELLS\n#define PCLR_LDS_PARAM\n#define PCLR_GROUP_LDS\n"
                          "/* the launch's cells from word args.part_at of the partials, then the flags word */\n"
                          "layout(std430, set = 0, binding = 2) coherent buffer pclr_cell_words { int64_t pclr_total[]; };\n"
                          "#define PCLR_TOTAL(k) pclr_total[args.part_at / 2u + (k)]\n#define PCLR_TOTAL_VOLATILE(k) PCLR_TOTAL(k)\n"
                          "#define PCLR_FLAGS pw[args.part_at + 2u * PCLR_CELLS]\n#define PCLR_FLAGS_VOLATILE PCLR_FLAGS\n"
                          "#define PCLR_COUNTER counter\n"
                          "void pclr_store_result(uint64_t b) { outw[args.out_at] = uint(b);%s }\n"
                          "#define PCLR_STORE_RESULT(r) pclr_store_result(r)\n",
                       c->type == PCLR_FLOAT && !pclr__has_map(c) ? "" : "#define pclr_v double /* the values, in double */\n",
                       dbl ? " outw[args.out_at + 1u] = uint(b >> 32);" : "");
        if (c->type == PCLR_FLOAT && !pclr__has_map(c)) /* (pclr__gelem) */
            pclr__put(g->w, "/* float bits as a double, exactly: a subnormal too (NVIDIA's Vulkan driver flushes it in float) */\n"
                            "double pclr_f2d(uint b) {\n"
                            "    if ((b & 0x7f800000u) != 0u) return double(uintBitsToFloat(b));\n"
                            "    const double m = double(b & 0x7fffffu) * packDouble2x32(uvec2(0u, 874u << 20)); /* 2^-149 */\n"
                            "    return (b >> 31) != 0u ? -m : m;\n"
                            "}\n");
        return;
    }
    if (g->cuda)
        PCLR__GEN_PUTF(g, "#define PCLR_ATOMIC_ADD64(a, v) atomicAdd((unsigned long long *)&(a), (unsigned long long)(v))\n"
                          "#define PCLR_ATOMIC_OR(a, v) atomicOr(&(a), (v))\n"
                          "#define PCLR_ATOMIC_MIN(a, v) atomicMin(&(a), (v))\n"
                          "#define PCLR_ATOMIC_MAX(a, v) atomicMax(&(a), (v))\n"
                          "#define PCLR_BITS(d) ((pclr_u64)__double_as_longlong(d))\n"
                          "#define PCLR_CLZ(x) __clz((int)(x))\n"
                          "typedef %s pclr_r; /* the result */\n"
                          "#define PCLR_RESULT(b) %s\n"
                          "#define PCLR_COLD static __device__ __noinline__ /* the rare path: one copy, called */\n"
                          "/* at most 64 registers (1024 work-items a multiprocessor): the rare paths' spill, not the loads' */\n"
                          "#undef PCLR_KERNEL\n#define PCLR_KERNEL extern \"C\" __global__ __launch_bounds__(PCLR_GROUP, 1024 / PCLR_GROUP)\n",
                       dbl ? "double" : "float", dbl ? "__longlong_as_double((long long)(b))" : "__int_as_float((int)(uint)(b))");
    else
        PCLR__GEN_PUTF(g, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
                          "typedef long pclr_i64;\n"
                          "#define PCLR_ATOMIC_ADD64(a, v) atom_add(&(a), (v))\n"
                          "#define PCLR_ATOMIC_OR(a, v) atomic_or(&(a), (v))\n"
                          "#define PCLR_ATOMIC_MIN(a, v) atomic_min(&(a), (v))\n"
                          "#define PCLR_ATOMIC_MAX(a, v) atomic_max(&(a), (v))\n"
                          "#define PCLR_BITS(d) as_ulong(d)\n"
                          "#define PCLR_CLZ(x) ((int)clz((uint)(x)))\n"
                          "typedef %s pclr_r; /* the result */\n"
                          "#define PCLR_RESULT(b) %s\n"
                          "/* PoCL 3 (LLVM 15) loses the local-memory atomics of a function called both inside\n"
                          "   and outside a function with barriers, unless it is inlined: inline them all */\n"
                          "#ifdef __clang__\n#undef PCLR_FN\n#define PCLR_FN static inline __attribute__((always_inline))\n#endif\n"
                          "#define PCLR_COLD PCLR_FN\n",
                       dbl ? "double" : "float", dbl ? "as_double((ulong)(b))" : "as_float((uint)(b))");
    pclr__put(g->w, "#define PCLR_EQ(a, b) ((a) == (b))\n");
    pclr__put(g->w, "#define PCLR_PRECISE\n#define PCLR_CAST(t, x) ((t)(x))\n"
                    "#define PCLR_DIGIT 0xffffffff\n#define PCLR_M52 ((pclr_u64)0xfffffffffffff)\n"
                    "/* the group's cells and specials word, passed on as pointers */\n"
                    "#define PCLR_CELLS_PARAMS , PCLR_LOCAL pclr_i64 *cells, PCLR_LOCAL uint *specials\n"
                    "#define PCLR_CELLS_ARGS , cells, specials\n#define PCLR_SPECIALS (*specials)\n"
                    "#define PCLR_GROUP_CELLS , cells, &specials\n"
                    "#define PCLR_LDS_PARAM , PCLR_LOCAL pclr_acc *lds\n#define PCLR_GROUP_LDS , lds\n"
                    "/* the launch's cells (the kernel's total), then the flags word */\n"
                    "#define PCLR_TOTAL(k) total[k]\n#define PCLR_TOTAL_VOLATILE(k) ((PCLR_GLOBAL volatile pclr_i64 *)total)[k]\n"
                    "#define PCLR_FLAGS (*(PCLR_GLOBAL uint *)(total + PCLR_CELLS))\n"
                    "#define PCLR_FLAGS_VOLATILE (*(PCLR_GLOBAL volatile uint *)(total + PCLR_CELLS))\n"
                    "#define PCLR_COUNTER (*counter)\n#define PCLR_STORE_RESULT(r) out[0] = (r)\n");
}

/* The group's shared variables (ind: the indent; C declares them in the kernel,
   GLSL at global scope before the functions that name them); lds: its tree's. */
static void pclr__gen_exact_shared(pclr__gen *g, const pclr_config *c, const char *ind, int lds) {
    if (lds) PCLR__GEN_PUTF(g, "%sPCLR_SHARED pclr_acc lds[%s];\n", ind, c->variant == PCLR_VARIANT_SHUFFLE ? "PCLR_GROUP / PCLR_WAVE" : "PCLR_GROUP");
    else PCLR__GEN_PUTF(g, "%sPCLR_SHARED pclr_i64 cells[PCLR_CELLS + 1]; /* the group's (+1: room for the rounding's carry) */\n"
                           "%sPCLR_SHARED uint specials;\n%sPCLR_SHARED int cell_lo, cell_hi;\n%sPCLR_SHARED %s is_last;\n",
                        ind, ind, ind, ind, pclr__xglsl(c) ? "bool" : "uint");
}

/* Lane k of a work-item's lanes (base: a pclr_lanes expression; part 's' the
   running sum, 'c' the sum of its rounding errors for double elements), or of
   a vector's values (part 'x', base: a pclr_values expression). */
static const char *pclr__xlane(const pclr__gen *g, const pclr_config *c, char *buf, size_t cap, const char *base, char part, int k) {
    const int dbl_lanes = pclr__reduced(c) == PCLR_DOUBLE && part != 'x', v1 = c->vector_width == 1;
    if (g->cuda || pclr__xglsl(c)) snprintf(buf, cap, "%s.%c[%d]", base, part == 'x' ? 's' : part, k);
    else if (dbl_lanes && v1) snprintf(buf, cap, "%s.%c", base, part);
    else if (dbl_lanes) snprintf(buf, cap, "%s.%c.s%x", base, part, k);
    else if (v1) snprintf(buf, cap, "%s", base);
    else snprintf(buf, cap, "%s.s%x", base, k);
    return buf;
}

/* Level 1's round for float-precision values (float and half elements, maps of float results): kept by a
   bound instead of a check per addition. A value is m 2^(E - 1046), m an integer under 2^24 and E its
   double's exponent field, so every partial sum of values whose E is at least Elow is a multiple of
   2^(Elow - 1046), exact in double while it stays below 2^(Elow - 993). A round adds PCLR_UNROLL values per
   lane: its partial sums stay below (PCLR_UNROLL + 1) 2^(Etop - 1022), Etop the largest E of the lanes'
   start and of the values. So the round is exact when Etop + ceil(log2(PCLR_UNROLL + 1)) <= Elow + 29.
   top and low hold E in the high 11 bits of the double's high word shifted left (the sign gone); low
   takes that word minus 1, so that a zero (word 0) never lowers it, and E - 1 at worst; inf and NaN
   (E 2047) fail. */
static void pclr__gen_exact_bound(pclr__gen *g, const pclr_config *c) {
    const int V = c->vector_width, lanes = g->cuda || pclr__xglsl(c); /* (lanes: arrays of doubles; else OpenCL vectors) */
    int bits = 0, k;
    char a[64], x[64];
    while ((1 << bits) < c->unroll + 1) ++bits;
    pclr__put(g->w, "/* ---- a round kept by its bound (pclr__gen_exact_bound): no partial sum reaches\n"
                    "   2^(Elow - 993), where 2^(Elow - 1046) divides every value the lanes hold ---- */\n");
    if (pclr__xglsl(c)) pclr__put(g->w, "#define pclr_hw uint\n#define PCLR_HI2(d) (unpackDouble2x32(d).y << 1)\n#define PCLR_HW_NONE 0xffffffffu\n");
    else {
        if (g->cuda) pclr__put(g->w, "typedef uint pclr_hw;\n#define PCLR_HI2(d) ((uint)__double2hiint(d) << 1)\n");
        else if (V == 1) pclr__put(g->w, "typedef uint pclr_hw;\n#define PCLR_HI2(d) (as_uint2(d).y << 1)\n");
        else if (V < 16) PCLR__GEN_PUTF(g, "typedef uint%d pclr_hw;\n#define PCLR_HI2(d) (as_uint%d(d).odd << 1)\n", V, 2 * V);
        else pclr__put(g->w, "typedef uint16 pclr_hw;\n#define PCLR_HI2(d) ((pclr_hw)(as_uint16((d).lo).odd, as_uint16((d).hi).odd) << 1)\n");
        pclr__put(g->w, "#define PCLR_HW_NONE ((pclr_hw)0xffffffffu)\n");
    }
    /* A round that some work-items of a warp redo is a branch they leave at different times: NVIDIA's
       independent thread scheduling may carry that split through the following rounds (their loads issued
       twice, at part width: 25 % slower on the H200 with 0.2 % of the rounds redone), so they join again. */
    if (g->cuda) pclr__put(g->w, "#define PCLR_WARP_MASK() __activemask()\n#define PCLR_WARP_JOIN(m) __syncwarp(m)\n");
    else if (!pclr__xglsl(c))
        pclr__put(g->w, "#ifdef PCLR_NVIDIA_PTX /* (NVIDIA's warps, as CUDA's) */\n"
                        "#define PCLR_WARP_MASK() pclr_warp_mask()\n"
                        "PCLR_FN uint pclr_warp_mask(void) { uint m; asm volatile(\"activemask.b32 %0;\" : \"=r\"(m)); return m; }\n"
                        "#define PCLR_WARP_JOIN(m) asm volatile(\"bar.warp.sync %0;\" :: \"r\"(m))\n"
                        "#else\n#define PCLR_WARP_MASK() 0u\n#define PCLR_WARP_JOIN(m) (void)(m)\n#endif\n");
    else pclr__put(g->w, "#define PCLR_WARP_MASK() 0u /* (SPIR-V's structured branches join at their merge) */\n#define PCLR_WARP_JOIN(m)\n");
    pclr__put(g->w, "/* t += x lane by lane; top and low take x's exponents */\n#define PCLR_ADD_BOUNDED(t, x, top, low) do {");
    if (!lanes) pclr__put(g->w, " const pclr_hw h_ = PCLR_HI2(x); (t) += (x); (top) = max((top), h_); (low) = min((low), h_ - 1u);");
    else for (k = 0; k < V; ++k)
        PCLR__GEN_PUTF(g, " \\\n    { const uint h_ = PCLR_HI2((x).s[%d]); PCLR_PRECISE const double s_ = (t).s[%d] + (x).s[%d]; (t).s[%d] = s_; \\\n"
                          "      (top) = max((top), h_); (low) = min((low), h_ - 1u); }", k, k, k, k);
    pclr__put(g->w, lanes ? " \\\n} while (false)\n" : " } while (0)\n");
    pclr__put(g->w, "/* the lanes' largest exponent */\n#define PCLR_TOP_OF(t) ");
    if (!lanes) pclr__put(g->w, "PCLR_HI2(t)\n");
    else {
        for (k = 1; k < V; ++k) pclr__put(g->w, "max(");
        for (k = 0; k < V; ++k) PCLR__GEN_PUTF(g, "%sPCLR_HI2(%s)%s", k ? ", " : "", pclr__xlane(g, c, a, sizeof a, "(t)", 's', k), k ? ")" : "");
        pclr__put(g->w, "\n");
    }
    /* (the partial round adds fewer values: its bound is the same) */
    PCLR__GEN_PUTF(g, "/* whether a round's partial sums, below 2^%d 2^(Etop - 1022), are exact */\n", bits);
    if (!lanes && V > 1) PCLR__GEN_PUTF(g, "#define PCLR_BOUNDED(top, low) all(((top) < (pclr_hw)0xffe00000u) & (((top) >> 21) + %du <= ((low) >> 21) + 29u))\n", bits);
    else PCLR__GEN_PUTF(g, "#define PCLR_BOUNDED(top, low) ((top) < 0xffe00000u && ((top) >> 21) + %du <= ((low) >> 21) + 29u)\n", bits);
    pclr__put(g->w, "/* The lanes into the cells; they restart from 0. */\n"
                    "PCLR_COLD pclr_lanes pclr_spill_lanes(pclr_lanes t PCLR_CELLS_PARAMS) {\n");
    for (k = 0; k < V; ++k) PCLR__GEN_PUTF(g, "    pclr_put(%s PCLR_CELLS_ARGS);\n", pclr__xlane(g, c, x, sizeof x, "t", 's', k));
    pclr__put(g->w, "    return pclr_lanes_zero();\n}\n");
    /* The second tier: values whose running sums need more than 53 bits (magnitudes over 1e-6..1e6) fail the
       bound on every round; they add error-free instead, TwoSum's errors summed (checked) in one more double
       per work-item, which never rounds on such data. */
    pclr__put(g->w, "/* ---- the second tier: a round that fails its bound adds error-free: each lane's s by TwoSum, the\n"
                    "   errors into c (one double, checked); s + c stays the exact sum ---- */\n");
    pclr__xstruct(g, c, "pclr_pair", " pclr_lanes s; double c; ");
    pclr__put(g->w, "#define PCLR_ADD_TWO(t, x, c, exact) do {");
    if (!lanes) pclr__put(g->w, " \\\n    const pclr_values u_ = (t) + (x), v_ = u_ - (t), e_ = ((t) - (u_ - v_)) + ((x) - v_); (t) = u_;");
    for (k = 0; k < V; ++k) {
        if (lanes) PCLR__GEN_PUTF(g, " \\\n    { double e_; PCLR_TWO_SUM((t).s[%d], (x).s[%d], e_); PCLR_ADD_CHECKED(c, e_, exact); }", k, k);
        else PCLR__GEN_PUTF(g, " \\\n    PCLR_ADD_CHECKED(c, %s, exact);", pclr__xlane(g, c, a, sizeof a, "e_", 'x', k));
    }
    pclr__put(g->w, " \\\n} while (false)\n"
                    "/* One vector into s + c error-free; an error that does not fit c (or inf, NaN): s, c and the values\n"
                    "   into the cells (inf and NaN set flags), restarting from 0. */\n"
                    "PCLR_COLD pclr_pair pclr_fold_two(pclr_pair p, pclr_values x PCLR_CELLS_PARAMS) {\n"
                    "    pclr_pair t = p;\n"
                    "    int exact = 1;\n"
                    "    PCLR_ADD_TWO(t.s, x, t.c, exact);\n"
                    "    if (exact != 0) return t;\n"
                    "    pclr_put(p.c PCLR_CELLS_ARGS);\n"
                    "    pclr_spill_lanes(x PCLR_CELLS_ARGS); /* (a vector of values is a pclr_lanes) */\n"
                    "    t.s = pclr_spill_lanes(p.s PCLR_CELLS_ARGS);\n"
                    "    t.c = 0.0;\n"
                    "    return t;\n"
                    "}\n"
                    "#define PCLR_FOLD_TWO(p, v, i) (p) = pclr_fold_two((p), PCLR_VALUES_OF(v, i) PCLR_GROUP_CELLS)\n"
                    "/* the second tier's errors into the cells, before the lanes' sum */\n"
                    "#define PCLR_TIER_OUT() if (err != 0.0) pclr_put(err PCLR_GROUP_CELLS)\n");
}

/* The running sums (pclr_lanes in level 1, pclr_acc in the group), their
   checked additions, spills, merges and deposits. */
static void pclr__gen_exact_ops(pclr__gen *g, const pclr_config *c) {
    const pclr_type rt = pclr__reduced(c); /* the elements', or their map's */
    const int dbl = rt == PCLR_DOUBLE, V = c->vector_width, glsl = pclr__xglsl(c);
    const pclr__exact_shape x = pclr__exact_shape_of(rt);
    char a[64], b[64];
    int k;
    pclr__put(g->w, "/* ---- the operation: sum, accumulate exact ----\n"
                    "   The exact sum of the elements, rounded once (nearest, ties to even). */\n");
    /* (pclr_v and PCLR_VALUE: OpenCL's float and double loads become doubles without them, but one element) */
    if (!glsl && (V > 1 || g->cuda || g->map || (rt != PCLR_FLOAT && !dbl))) pclr__gen_value(g, c, 0);
    pclr__gen_exact_words(g, c);
    PCLR__GEN_PUTF(g, "/* The superaccumulator: cell k holds a 32-bit digit of weight 2^(32 k - %d),\n"
                      "   carried in 64 bits: deposits add signed pieces under 2^32 to it. */\n"
                      "#define PCLR_CELLS %d\n#define PCLR_CELL_EMIN (%d)\n"
                      "/* the result's precision; its smallest and largest ulp, in bits of the cells */\n"
                      "#define PCLR_MANT %d\n#define PCLR_SUB_ULP %d\n#define PCLR_TOP_ULP %d\n",
                   -x.emin, x.cells, x.emin, x.mant, x.sub - x.emin, x.top - x.emin);
    if (glsl) pclr__gen_exact_shared(g, c, "", 0);
    pclr__put(g->w,
        "/* t += x, checked: exact stays 1 only if the addition did not round. With\n"
        "   |t| >= |x|, s - t is exact (Fast2Sum) and equals x exactly when s = t + x;\n"
        "   with |x| > |t| the same holds for s - x and t. inf and NaN fail the test. */\n"
        "#define PCLR_ADD_CHECKED(t, x, exact) do { PCLR_PRECISE const double s_ = (t) + (x), d_ = s_ - (t), f_ = s_ - (x); \\\n"
        "    (exact) &= PCLR_EQ(d_, (x)) & PCLR_EQ(f_, (t)); (t) = s_; } while (false)\n");
    pclr__put(g->w,
        "/* Knuth's TwoSum: s + x becomes s and its rounding error e, exactly (inf, NaN\n"
        "   or an overflow make e NaN) */\n"
        "#define PCLR_TWO_SUM(s, x, e) do { PCLR_PRECISE const double ts_ = (s) + (x), tv_ = ts_ - (s), \\\n"
        "    te_ = ((s) - (ts_ - tv_)) + ((x) - tv_); (e) = te_; (s) = ts_; } while (false)\n"
        "/* A finite double d = m 2^q (m < 2^53 an integer) as signed pieces of the\n"
        "   cells: m lands at bit p = q - PCLR_CELL_EMIN, in cells p/32 .. p/32 + 2. */\n");
    pclr__xstruct(g, c, "pclr_pieces", " int k; pclr_i64 p0, p1, p2; ");
    pclr__put(g->w,
        "PCLR_FN pclr_pieces pclr_pieces_of(double d) {\n"
        "    const pclr_u64 b = PCLR_BITS(d);\n"
        "    const int e = PCLR_CAST(int, b >> 52) & 0x7ff;\n"
        "    pclr_u64 m = (b & PCLR_M52) | (PCLR_CAST(pclr_u64, e != 0) << 52);\n"
        "    int p = (e != 0 ? e : 1) - 1075 - PCLR_CELL_EMIN;\n"
        "    pclr_pieces r;\n");
    if (x.emin > -1074) /* the smallest p is 1 - 1075 - emin */
        pclr__put(g->w, "    if (p < 0) { m >>= -p; p = 0; } /* below 2^-160: float data has zeros there */\n");
    pclr__put(g->w,
        "    const int sh = p & 31;\n"
        "    const pclr_u64 w = m << sh, top = sh != 0 ? m >> (64 - sh) : 0; /* m 2^sh: 85 bits */\n"
        "    r.k = p >> 5;\n"
        "    r.p0 = PCLR_CAST(pclr_i64, w & PCLR_DIGIT);\n"
        "    r.p1 = PCLR_CAST(pclr_i64, w >> 32);\n"
        "    r.p2 = PCLR_CAST(pclr_i64, top);\n"
        "    if ((b >> 63) != 0) { r.p0 = -r.p0; r.p1 = -r.p1; r.p2 = -r.p2; }\n"
        "    return r;\n"
        "}\n"
        "/* One value into the group's cells; inf and NaN set flags instead (1 NaN, 2 +inf, 4 -inf). */\n"
        "PCLR_COLD void pclr_put(double x PCLR_CELLS_PARAMS) {\n"
        "    PCLR_PRECISE const double z = x - x; /* 0, or NaN for inf and NaN */\n"
        "    if (z != 0) {\n"
        "        PCLR_ATOMIC_OR(PCLR_SPECIALS, x != x ? 1u : x > 0 ? 2u : 4u);\n"
        "    } else if (x != 0) {\n"
        "        const pclr_pieces q = pclr_pieces_of(x);\n"
        "        if (q.p0 != 0) PCLR_ATOMIC_ADD64(cells[q.k], q.p0);\n"
        "        if (q.p1 != 0) PCLR_ATOMIC_ADD64(cells[q.k + 1], q.p1);\n"
        "        if (q.p2 != 0) PCLR_ATOMIC_ADD64(cells[q.k + 2], q.p2);\n"
        "    }\n"
        "}\n");
    /* pclr_acc: a running sum in the group tree */
    if (dbl) {
        pclr__put(g->w, "/* A running sum: s, and the exact sum c of the rounding errors of s. */\n");
        pclr__xstruct(g, c, "pclr_acc", " double s, c; ");
        pclr__put(g->w, "PCLR_FN pclr_acc pclr_acc_zero(void) { pclr_acc a; a.s = 0.0; a.c = 0.0; return a; }\n"
                        "PCLR_FN void pclr_put_acc(pclr_acc a PCLR_CELLS_PARAMS) {\n"
                        "    pclr_put(a.s PCLR_CELLS_ARGS);\n"
                        "    pclr_put(a.c PCLR_CELLS_ARGS);\n"
                        "}\n"
                        "/* Two running sums into one: s by TwoSum, its error into c, checked; a merge\n"
                        "   that would round puts the four parts into the cells. */\n"
                        "PCLR_FN pclr_acc pclr_merge(pclr_acc a, pclr_acc b PCLR_CELLS_PARAMS) {\n"
                        "    pclr_acc t = a;\n"
                        "    double e;\n"
                        "    int exact = 1;\n"
                        "    PCLR_TWO_SUM(t.s, b.s, e);\n"
                        "    PCLR_ADD_CHECKED(t.c, b.c, exact);\n"
                        "    PCLR_ADD_CHECKED(t.c, e, exact);\n"
                        "    if (exact != 0) return t;\n"
                        "    pclr_put_acc(a PCLR_CELLS_ARGS);\n"
                        "    pclr_put_acc(b PCLR_CELLS_ARGS);\n"
                        "    return pclr_acc_zero();\n"
                        "}\n");
    } else {
        pclr__put(g->w, "/* A running sum, exact in double (float elements are doubles with 24-bit mantissas). */\n");
        pclr__xalias(g, c, "double", "pclr_acc");
        if (c->variant == PCLR_VARIANT_SHUFFLE && c->group_size > c->wave_width) pclr__put(g->w, "#define pclr_acc_zero() 0.0\n"); /* (the waves' step) */
        pclr__put(g->w, "#define pclr_put_acc pclr_put\n"
                        "/* Two running sums into one; the rounding error (TwoSum) goes into the cells. */\n"
                        "PCLR_FN pclr_acc pclr_merge(pclr_acc a, pclr_acc b PCLR_CELLS_PARAMS) {\n"
                        "    double e;\n"
                        "    PCLR_TWO_SUM(a, b, e); /* (no overflow: |a|, |b| < 2^159) */\n"
                        "    if (e != 0) pclr_put(e PCLR_CELLS_ARGS);\n"
                        "    return a;\n"
                        "}\n");
    }
    /* pclr_lanes: level 1's running sums, one per lane of a loaded vector; pclr_values: a vector's values in double */
    pclr__put(g->w, "/* ---- level 1's running sums: one per lane of a loaded vector, so that the lanes add\n"
                    "   independently (SIMD on CPUs: OpenCL vector types) ---- */\n");
    if (g->cuda || glsl) {
        snprintf(a, sizeof a, " double s[%d]; ", V);
        pclr__xstruct(g, c, "pclr_values", a);
        snprintf(a, sizeof a, " double s[%d], c[%d]; ", V, V);
        if (dbl) pclr__xstruct(g, c, "pclr_lanes", a);
        else pclr__xalias(g, c, "pclr_values", "pclr_lanes");
        if (dbl) pclr__xalias(g, c, "int", "pclr_mask"); /* (the checked vector: doubles only) */
        if (dbl) PCLR__GEN_PUTF(g, "#define PCLR_MASK_ALL 1\n#define PCLR_ALL(m) %s\n", glsl ? "((m) != 0)" : "(m)");
    } else {
        if (V == 1) pclr__put(g->w, "typedef double pclr_values;\n");
        else PCLR__GEN_PUTF(g, "typedef double%d pclr_values;\n", V);
        if (dbl && V == 1) pclr__put(g->w, "typedef int pclr_mask;\n#define PCLR_MASK_ALL 1\n#define PCLR_ALL(m) (m)\n");
        else if (dbl) PCLR__GEN_PUTF(g, "typedef long%d pclr_mask; /* comparisons: -1 true */\n"
                                        "#define PCLR_MASK_ALL ((pclr_mask)(-1))\n#define PCLR_ALL(m) all(m)\n", V);
        if (dbl) pclr__put(g->w, "typedef struct pclr_lanes { pclr_values s, c; } pclr_lanes;\n");
        else pclr__put(g->w, "typedef pclr_values pclr_lanes;\n");
    }
    pclr__put(g->w, "PCLR_FN pclr_lanes pclr_lanes_zero(void) {\n    pclr_lanes t;\n");
    for (k = 0; k < V; ++k) {
        PCLR__GEN_PUTF(g, "    %s = 0.0;\n", pclr__xlane(g, c, a, sizeof a, "t", 's', k));
        if (dbl) PCLR__GEN_PUTF(g, "    %s = 0.0;\n", pclr__xlane(g, c, a, sizeof a, "t", 'c', k));
    }
    pclr__put(g->w, "    return t;\n}\n");
    /* PCLR_VALUES_OF(v, i): the values of a load v (a pclr_in; i: its first element's index) in double */
    if (!g->cuda && !glsl && !g->map && c->type == PCLR_FLOAT)
        PCLR__GEN_PUTF(g, "#define PCLR_VALUES_OF(v, i) convert_double%s(v)\n", V == 1 ? "" : V == 2 ? "2" : V == 4 ? "4" : V == 8 ? "8" : "16");
    else if (!g->cuda && !glsl && !g->map && dbl)
        pclr__put(g->w, "#define PCLR_VALUES_OF(v, i) (v)\n");
    else { /* (a macro: a map's call takes the kernel's parameters) */
        char e[1800];
        pclr__put(g->w, "PCLR_FN pclr_values pclr_values_make(");
        for (k = 0; k < V; ++k) PCLR__GEN_PUTF(g, "double x%d%s", k, k + 1 < V ? ", " : ") {\n    pclr_values x;\n");
        for (k = 0; k < V; ++k) PCLR__GEN_PUTF(g, "    %s = x%d;\n", pclr__xlane(g, c, a, sizeof a, "x", 'x', k), k);
        if (glsl) { /* GLSL: the words of a load (v, and y's v2) taken apart as the other GLSL kernels do */
            const int y = g->map && g->map->y;
            PCLR__GEN_PUTF(g, "    return x;\n}\npclr_values pclr_values_of(pclr_in_x v, %suint64_t i) {\n    return pclr_values_make(",
                           y ? "pclr_in_y v2, " : "");
            for (k = 0; k < V; ++k) {
                pclr__gvalue(g, c, k, e, sizeof e);
                PCLR__GEN_PUTF(g, "%s%s", e, k + 1 < V ? ",\n                            " : ");\n}\n");
            }
            PCLR__GEN_PUTF(g, "#define PCLR_VALUES_OF(v, i) pclr_values_of(%s, (i))\n", y ? "(v).x, (v).y" : "(v)");
            pclr__gvalue(g, c, -1, e, sizeof e);
            if (V > 1) PCLR__GEN_PUTF(g, "/* the element at relative index r */\ndouble pclr_value_at(uint64_t r) { return %s; }\n", e);
        } else {
            pclr__put(g->w, "    return x;\n}\n#define PCLR_VALUES_OF(v, i) pclr_values_make(");
            for (k = 0; k < V; ++k) {
                pclr__gen_elem(g, k, e, sizeof e);
                PCLR__GEN_PUTF(g, "%sPCLR_VALUE(%s)%s", k && k % 2 == 0 ? "\\\n    " : "", e, k + 1 < V ? ", " : ")\n");
            }
        }
    }
    /* the checked addition of a vector into the lanes (doubles: float-precision values take the bound's two tiers) */
    if (!dbl) ;
    else if (!g->cuda && !glsl)
        pclr__put(g->w, "/* t += x lane by lane: s by TwoSum, its error into c, checked as PCLR_ADD_CHECKED */\n"
                        "#define PCLR_ADD_LANES(t, x, exact) do { \\\n"
                        "    const pclr_values u_ = (t).s + (x), v_ = u_ - (t).s, e_ = ((t).s - (u_ - v_)) + ((x) - v_), c_ = (t).c + e_; \\\n"
                        "    (exact) &= ((c_ - (t).c) == e_) & ((c_ - e_) == (t).c); (t).s = u_; (t).c = c_; } while (0)\n");
    else {
        pclr__put(g->w, "/* t += x lane by lane: s by TwoSum, its error into c, checked */\n#define PCLR_ADD_LANES(t, x, exact) do { double e_;");
        for (k = 0; k < V; ++k)
            PCLR__GEN_PUTF(g, " \\\n    PCLR_TWO_SUM((t).s[%d], (x).s[%d], e_); PCLR_ADD_CHECKED((t).c[%d], e_, exact);", k, k, k);
        pclr__put(g->w, " \\\n} while (false)\n");
    }
    /* the spill and the fold of a vector (doubles; float-precision values: pclr__gen_exact_bound), of one
       element, the lanes' sum */
    if (dbl) {
        PCLR__GEN_PUTF(g, "/* A vector that would round: the lanes and the values go into the cells, and the\n"
                          "   lanes restart from 0 (rare for most data). */\n"
                          "PCLR_COLD pclr_lanes pclr_spill(pclr_lanes t, pclr_values v PCLR_CELLS_PARAMS) {\n"
                          "    const double x[%d] = ", 3 * V);
        if (glsl) PCLR__GEN_PUTF(g, "double[%d](", 3 * V);
        else pclr__put(g->w, "{");
        for (k = 0; k < V; ++k) {
            PCLR__GEN_PUTF(g, "%s%s, ", k % 4 == 0 && k ? "\n                          " : "", pclr__xlane(g, c, a, sizeof a, "t", 's', k));
            PCLR__GEN_PUTF(g, "%s, ", pclr__xlane(g, c, a, sizeof a, "t", 'c', k));
        }
        for (k = 0; k < V; ++k) PCLR__GEN_PUTF(g, "%s%s", pclr__xlane(g, c, a, sizeof a, "v", 'x', k), k + 1 < V ? ", " : glsl ? ");\n" : "};\n");
        PCLR__GEN_PUTF(g, "#pragma unroll 1\n"
                          "    for (int k = 0; k < %d; ++k) pclr_put(x[k] PCLR_CELLS_ARGS);\n"
                          "    return pclr_lanes_zero();\n"
                          "}\n", 3 * V);
    }
    if (!dbl) pclr__gen_exact_bound(g, c);
    else pclr__put(g->w, "/* One vector into the lanes, checked; a vector that would round is spilled. */\n"
                         "PCLR_FN pclr_lanes pclr_fold_vector(pclr_lanes acc, pclr_values x PCLR_CELLS_PARAMS) {\n"
                         "    pclr_lanes t = acc;\n"
                         "    pclr_mask exact = PCLR_MASK_ALL;\n"
                         "    PCLR_ADD_LANES(t, x, exact);\n"
                         "    return PCLR_ALL(exact) ? t : pclr_spill(acc, x PCLR_CELLS_ARGS);\n"
                         "}\n");
    if (V > 1) { /* one element at a time: the head and the tail */
        pclr__xlane(g, c, a, sizeof a, "acc", 's', 0);
        pclr__xlane(g, c, b, sizeof b, "acc", 'c', 0);
        PCLR__GEN_PUTF(g, "/* One element into lane 0 (the head and the tail); one that would round goes into the cells with the lane. */\n"
                          "PCLR_COLD pclr_lanes pclr_spill_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {\n"
                          "    pclr_put(%s PCLR_CELLS_ARGS);\n", a);
        if (dbl) PCLR__GEN_PUTF(g, "    pclr_put(%s PCLR_CELLS_ARGS);\n", b);
        PCLR__GEN_PUTF(g, "    pclr_put(x PCLR_CELLS_ARGS);\n    %s = 0.0;\n", a);
        if (dbl) PCLR__GEN_PUTF(g, "    %s = 0.0;\n", b);
        pclr__put(g->w, "    return acc;\n"
                        "}\n"
                        "PCLR_FN pclr_lanes pclr_fold_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {\n"
                        "    int exact = 1;\n");
        if (dbl)
            PCLR__GEN_PUTF(g, "    double s = %s, c = %s, e;\n"
                              "    PCLR_TWO_SUM(s, x, e);\n"
                              "    PCLR_ADD_CHECKED(c, e, exact);\n"
                              "    if (exact == 0) return pclr_spill_one(acc, x PCLR_CELLS_ARGS);\n"
                              "    %s = s;\n"
                              "    %s = c;\n"
                              "    return acc;\n"
                              "}\n", a, b, a, b);
        else
            PCLR__GEN_PUTF(g, "    double s = %s;\n"
                              "    PCLR_ADD_CHECKED(s, x, exact);\n"
                              "    if (exact == 0) return pclr_spill_one(acc, x PCLR_CELLS_ARGS);\n"
                              "    %s = s;\n"
                              "    return acc;\n"
                              "}\n", a, a);
    }
    pclr__put(g->w, "/* The lanes into one running sum: TwoSum merges, their errors into the cells. */\n"
                    "PCLR_FN pclr_acc pclr_lanes_sum(pclr_lanes t PCLR_CELLS_PARAMS) {\n");
    if (dbl) {
        PCLR__GEN_PUTF(g, "    pclr_acc a%s;\n    a.s = %s;\n", V > 1 ? ", b" : "", pclr__xlane(g, c, a, sizeof a, "t", 's', 0));
        PCLR__GEN_PUTF(g, "    a.c = %s;\n", pclr__xlane(g, c, a, sizeof a, "t", 'c', 0));
        for (k = 1; k < V; ++k) {
            PCLR__GEN_PUTF(g, "    b.s = %s;\n", pclr__xlane(g, c, a, sizeof a, "t", 's', k));
            PCLR__GEN_PUTF(g, "    b.c = %s;\n    a = pclr_merge(a, b PCLR_CELLS_ARGS);\n", pclr__xlane(g, c, a, sizeof a, "t", 'c', k));
        }
    } else {
        PCLR__GEN_PUTF(g, "    pclr_acc a = %s;\n", pclr__xlane(g, c, a, sizeof a, "t", 's', 0));
        for (k = 1; k < V; ++k) PCLR__GEN_PUTF(g, "    a = pclr_merge(a, %s PCLR_CELLS_ARGS);\n", pclr__xlane(g, c, a, sizeof a, "t", 's', k));
    }
    pclr__put(g->w, "    return a;\n}\n");
    if (dbl) pclr__put(g->w, "#define PCLR_FOLD(acc, v, i) (acc) = pclr_fold_vector((acc), PCLR_VALUES_OF(v, i) PCLR_GROUP_CELLS)\n");
    if (V == 1) ;
    else if (glsl) /* (GLSL reads the element at its index: x, its word, is not taken apart) */
        pclr__put(g->w, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), pclr_value_at(i) PCLR_GROUP_CELLS)\n");
    else {
        pclr__gen_elem(g, -1, a, sizeof a);
        PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), PCLR_VALUE(%s) PCLR_GROUP_CELLS)\n", a);
    }
}

/* Level 2 for the exact sum: the running sums merge up a tree (lanes whose
   partner is not theirs merge nothing: a merge may deposit). */
static void pclr__gen_exact_group(pclr__gen *g, const pclr_config *c) {
    const int dbl = pclr__reduced(c) == PCLR_DOUBLE;
    pclr__put(g->w, PCLR__TEXT_LEVEL2);
    if (pclr__xglsl(c)) pclr__gen_exact_shared(g, c, "", 1);
    if (c->variant == PCLR_VARIANT_SHUFFLE) { /* (not on Vulkan: pclr_config_resolve) */
        if (g->cuda && !dbl) pclr__put(g->w, PCLR__TEXT_SHFL_CUDA);
        else if (g->cuda)
            pclr__put(g->w, "PCLR_FN pclr_acc pclr_shfl_down(pclr_acc v, uint delta) {\n"
                            "    v.s = __shfl_down_sync(0xffffffffu, v.s, delta);\n"
                            "    v.c = __shfl_down_sync(0xffffffffu, v.c, delta);\n"
                            "    return v;\n"
                            "}\n#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))\n");
        else {
            pclr__put(g->w, "/* NVIDIA OpenCL: wave shuffles as inline PTX on 32-bit pieces. */\n"
                            "PCLR_FN uint pclr_shfl_u32(uint v, uint delta) {\n"
                            "    uint r;\n"
                            "    asm volatile(\"shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(delta));\n"
                            "    return r;\n"
                            "}\n"
                            "PCLR_FN pclr_acc pclr_shfl_down(pclr_acc v, uint delta) {\n");
            pclr__gen_shfl_field(g, dbl ? "v.s" : "v", PCLR_DOUBLE);
            if (dbl) pclr__gen_shfl_field(g, "v.c", PCLR_DOUBLE);
            pclr__put(g->w, "    return v;\n}\n#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))\n");
        }
        pclr__put(g->w, "/* lanes below delta merge their partner's sum: lane 0 gets the wave's */\n"
                        "PCLR_FN pclr_acc pclr_wave_sum(pclr_acc v, uint width PCLR_CELLS_PARAMS) {\n"
                        "    const uint lane = PCLR_LID % PCLR_WAVE;\n"
                        "#pragma unroll\n"
                        "    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1) {\n"
                        "        const pclr_acc o = PCLR_SHFL_DOWN(v, delta);\n"
                        "        if (delta < width && lane < delta) v = pclr_merge(v, o PCLR_CELLS_ARGS);\n"
                        "    }\n"
                        "    return v;\n"
                        "}\n");
    }
    pclr__put(g->w, "PCLR_FN pclr_acc pclr_group_sum(pclr_acc acc PCLR_LDS_PARAM PCLR_CELLS_PARAMS) {\n"
                    "    const uint lid = PCLR_LID;\n");
    if (c->variant == PCLR_VARIANT_SHUFFLE && c->group_size > c->wave_width)
        pclr__put(g->w, "    acc = pclr_wave_sum(acc, PCLR_WAVE PCLR_CELLS_ARGS);\n"
                        "    if (lid % PCLR_WAVE == 0) lds[lid / PCLR_WAVE] = acc;\n"
                        "    PCLR_BARRIER();\n"
                        "    if (lid < PCLR_WAVE) {\n"
                        "        acc = lid < PCLR_GROUP / PCLR_WAVE ? lds[lid] : pclr_acc_zero();\n"
                        "        acc = pclr_wave_sum(acc, PCLR_GROUP / PCLR_WAVE PCLR_CELLS_ARGS);\n"
                        "    }\n"
                        "    return acc;\n");
    else if (c->variant == PCLR_VARIANT_SHUFFLE)
        pclr__put(g->w, "    (void)lds; (void)lid; /* one wave */\n"
                        "    return pclr_wave_sum(acc, PCLR_WAVE PCLR_CELLS_ARGS);\n");
    else
        PCLR__GEN_PUTF(g, "    lds[lid] = acc;\n"
                          "    PCLR_BARRIER();\n"
                          "    /* the divergence-free tree%s */\n"
                          "#pragma unroll%s\n"
                          "    for (uint s = PCLR_GROUP / 2; s > 0; s >>= 1) {\n"
                          "        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s] PCLR_CELLS_ARGS);\n"
                          "        PCLR_BARRIER();\n"
                          "    }\n"
                          "    return acc;\n",
                       c->variant == PCLR_VARIANT_UNROLLED ? "" : " (kept as a loop)", c->variant == PCLR_VARIANT_UNROLLED ? "" : " 1");
    pclr__put(g->w, "}\n");
}

/* Rounds the launch's cells into the result (the last group's work-item 0). */
static void pclr__gen_exact_round(pclr__gen *g, const pclr_config *c) {
    const int dbl = pclr__reduced(c) == PCLR_DOUBLE, glsl = pclr__xglsl(c);
    PCLR__GEN_PUTF(g,
        "/* ---- the result: the cells' exact sum, rounded to nearest (ties to even) ----\n"
        "   flags: any NaN, or +inf with -inf, gives NaN; else an infinity gives itself.\n"
        "   cells[lo..hi] are the nonzero cells (cells[hi + 1] is 0 and may be written). */\n"
        "#define PCLR_SIGN_BIT %s\n#define PCLR_INF_BITS %s\n#define PCLR_NAN_BITS %s\n"
        "PCLR_FN pclr_r pclr_round(int lo, int hi, uint flags PCLR_CELLS_PARAMS) {\n"
        "    if ((flags & 1) != 0 || (flags & 6) == 6) return PCLR_RESULT(PCLR_NAN_BITS);\n"
        "    if (flags != 0) return PCLR_RESULT(flags == 2 ? PCLR_INF_BITS : PCLR_SIGN_BIT | PCLR_INF_BITS);\n"
        "    if (hi < 0) return PCLR_RESULT(0); /* an exact zero is +0, as 0 elements give */\n"
        "    /* carries up: each cell keeps a digit in [0, 2^32); the last carry (0 or -1) is the sign */\n"
        "    pclr_i64 carry = 0;\n"
        "    int k;\n"
        "    for (k = lo; k <= hi + 1; ++k) {\n"
        "        const pclr_i64 v = cells[k] + carry;\n"
        "        cells[k] = v & PCLR_DIGIT;\n"
        "        carry = v >> 32;\n"
        "    }\n"
        "    const bool neg = carry < 0;\n"
        "    if (neg) { /* the magnitude: the digits' two's complement */\n"
        "        pclr_i64 borrow = 1;\n"
        "        for (k = lo; k <= hi + 1; ++k) {\n"
        "            const pclr_i64 v = (~cells[k] & PCLR_DIGIT) + borrow;\n"
        "            cells[k] = v & PCLR_DIGIT;\n"
        "            borrow = v >> 32;\n"
        "        }\n"
        "    }\n"
        "    int top = hi + 1;\n"
        "    while (top > lo && cells[top] == 0) --top;\n"
        "    if (cells[top] == 0) return PCLR_RESULT(0); /* exact cancellation */\n"
        "    /* the result's ulp, in bits of the cells: PCLR_MANT bits below the leading one, or the subnormal ulp */\n"
        "    const int msb = 32 * top + 31 - PCLR_CLZ(cells[top]);\n"
        "    const int ulp = msb - (PCLR_MANT - 1) > PCLR_SUB_ULP ? msb - (PCLR_MANT - 1) : PCLR_SUB_ULP;\n"
        "    const pclr_u64 sign = neg ? PCLR_SIGN_BIT : 0;\n"
        "    if (ulp > PCLR_TOP_ULP) return PCLR_RESULT(sign | PCLR_INF_BITS);\n"
        "    /* 64 bits from the guard bit (the one below the ulp) up; the sticky bit: any lower one */\n"
        "    const int gk = (ulp - 1) >> 5, gs = (ulp - 1) & 31;\n"
        "    const pclr_u64 d0 = PCLR_CAST(pclr_u64, cells[gk]), d1 = gk + 1 <= top ? PCLR_CAST(pclr_u64, cells[gk + 1]) : 0,\n"
        "                   d2 = gk + 2 <= top ? PCLR_CAST(pclr_u64, cells[gk + 2]) : 0;\n"
        "    const pclr_u64 w = ((d1 << 32 | d0) >> gs) | (gs != 0 ? d2 << (64 - gs) : 0);\n"
        "    int sticky = PCLR_CAST(int, (d0 & ((PCLR_CAST(pclr_u64, 1) << gs) - 1)) != 0);\n"
        "    for (k = lo; k < gk; ++k) sticky |= PCLR_CAST(int, cells[k] != 0);\n"
        "    pclr_u64 kept = w >> 1;\n"
        "    if ((w & 1) != 0 && (sticky != 0 || (kept & 1) != 0)) kept += 1;\n"
        "    /* exponent field and mantissa in one sum: kept's leading bit (or a carry\n"
        "       out of the rounding) steps the exponent; past the largest value it gives inf */\n"
        "    return PCLR_RESULT(sign | ((PCLR_CAST(pclr_u64, ulp - PCLR_SUB_ULP) << (PCLR_MANT - 1)) + kept));\n"
        "}\n",
        glsl ? (dbl ? "0x8000000000000000ul" : "0x80000000ul") : dbl ? "((pclr_u64)1 << 63)" : "((pclr_u64)1 << 31)",
        glsl ? (dbl ? "0x7ff0000000000000ul" : "0x7f800000ul") : dbl ? "((pclr_u64)0x7ff0000000000000)" : "((pclr_u64)0x7f800000)",
        glsl ? (dbl ? "0x7ff8000000000000ul" : "0x7fc00000ul") : dbl ? "((pclr_u64)0x7ff8000000000000)" : "((pclr_u64)0x7fc00000)");
}

/* The exact kernel: levels 1 and 2 as the others, level 3 through the cells. */
static void pclr__gen_exact(pclr__gen *g, const pclr_config *c) {
    const int glsl = pclr__xglsl(c);
    pclr__gen_exact_ops(g, c);
    pclr__gen_exact_group(g, c);
    pclr__gen_exact_round(g, c);
    pclr__gen_kernel_open(g, "/* ---- the kernel ---- */\n"
                             "PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,\n"
                             "                             PCLR_GLOBAL pclr_r *out, PCLR_GLOBAL pclr_i64 *total,\n"
                             "                             PCLR_GLOBAL uint *counter");
    pclr__put(g->w, "    /* the launch's cells (PCLR_TOTAL), then a word of specials flags; zero between launches */\n");
    if (!glsl) { /* (GLSL's shared memory is global: pclr__gen_exact_group) */
        pclr__gen_exact_shared(g, c, "    ", 1);
        pclr__gen_exact_shared(g, c, "    ", 0);
    }
    pclr__put(g->w,
        "    const uint lid = PCLR_LID;\n"
        "    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;\n"
        "    const pclr_u64 thread = group * PCLR_GROUP + lid;\n"
        "    PCLR_XREF p = PCLR_XAT(offset);\n");
    pclr__put(g->w,
        "    pclr_lanes acc = pclr_lanes_zero();\n"
        "    for (uint k = lid; k <= PCLR_CELLS; k += PCLR_GROUP) cells[k] = 0;\n"
        "    if (lid == 0) {\n"
        "        specials = 0;\n"
        "        cell_lo = PCLR_CELLS;\n"
        "        cell_hi = -1;\n"
        "    }\n"
        "    PCLR_BARRIER();\n");
    {
        static const char loop[] =
            "    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {\n"
            "        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);\n"
            "        /* the round's additions, each checked: kept when none rounded (nearly always) */\n"
            "        pclr_lanes t = acc;\n"
            "        pclr_mask exact = PCLR_MASK_ALL;\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_ADD_LANES(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), exact);\n"
            "        if (PCLR_ALL(exact)) {\n"
            "            acc = t;\n"
            "        } else { /* again vector by vector, from memory (cached): those that would round spill */\n"
            "#pragma unroll 1\n"
            "            for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_FOLD(acc, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);\n"
            "        }\n"
            "    }\n";
        static const char bounded[] = /* (float-precision values: pclr__gen_exact_bound) */
            "    pclr_hw low = thread < head ? PCLR_CAST(pclr_hw, 0u) : PCLR_HW_NONE; /* (a head element: the first round spills) */\n"
            "    double err = 0.0; /* the second tier's errors; slow: rounds in a row that failed their bound */\n"
            "    uint slow = 0u;\n"
            "    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {\n"
            "        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */\n"
            "        const uint warp = PCLR_WARP_MASK(); /* the work-items on this round together */\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);\n"
            "        /* the round's additions, kept when its bound shows that none rounded (nearly always) */\n"
            "        pclr_lanes t = acc;\n"
            "        pclr_hw top = PCLR_TOP_OF(acc), fresh = PCLR_HW_NONE; /* fresh: the round's values' low */\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_ADD_BOUNDED(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), top, fresh);\n"
            "        const pclr_hw both = min(low, fresh);\n"
            "        if (PCLR_BOUNDED(top, both)) {\n"
            "            acc = t;\n"
            "            low = both;\n"
            "            slow = 0u;\n"
            "        } else { /* the round again by the second tier, vector by vector from memory (cached); after a round\n"
            "                    that failed alone, and every 16th in a row, the lanes go into the cells so that the next\n"
            "                    rounds are kept by their bound again (lanes that have rounded have no low: 0) */\n"
            "            pclr_pair p;\n"
            "            p.s = acc;\n"
            "            p.c = err;\n"
            "#pragma unroll 1\n"
            "            for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_FOLD_TWO(p, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);\n"
            "            err = p.c;\n"
            "            if (slow++ % 16u == 0u) {\n"
            "                acc = pclr_spill_lanes(p.s PCLR_GROUP_CELLS);\n"
            "                low = PCLR_HW_NONE;\n"
            "            } else {\n"
            "                acc = p.s;\n"
            "                low = PCLR_CAST(pclr_hw, 0u);\n"
            "            }\n"
            "        }\n"
            "        PCLR_WARP_JOIN(warp);\n"
            "    }\n";
        static const char bounded_partial[] = /* (no call between its loads and folds: nothing to spill around it) */
            "    /* The last, partial round (fewer than PCLR_UNROLL vectors left): the same loads, all in flight,\n"
            "       clamped to a valid index, added under a guard and kept by the round's bound, else the second tier. */\n"
            "    if (i < end) {\n"
            "        pclr_in v[PCLR_UNROLL - 1];\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL - 1; ++k) v[k] = PCLR_LOAD(i + k * stride < end ? i + k * stride : i);\n"
            "        pclr_lanes t = acc;\n"
            "        pclr_hw top = PCLR_TOP_OF(acc), fresh = PCLR_HW_NONE;\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL - 1; ++k)\n"
            "            if (i + k * stride < end) PCLR_ADD_BOUNDED(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), top, fresh);\n"
            "        if (PCLR_BOUNDED(top, min(low, fresh))) {\n"
            "            acc = t;\n"
            "        } else {\n"
            "            pclr_pair p;\n"
            "            p.s = acc;\n"
            "            p.c = err;\n"
            "#pragma unroll 1\n"
            "            for (uint k = 0; k < PCLR_UNROLL - 1; ++k)\n"
            "                if (i + k * stride < end) PCLR_FOLD_TWO(p, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);\n"
            "            acc = p.s;\n"
            "            err = p.c;\n"
            "        }\n"
            "    }\n";
        if (pclr__reduced(c) == PCLR_DOUBLE) pclr__gen_level1(g, c, loop, NULL);
        else pclr__gen_level1(g, c, bounded, bounded_partial);
    }
    PCLR__GEN_PUTF(g,
        "    /* Level 2, in-group. */\n%s"
        "    pclr_acc sum = pclr_lanes_sum(acc PCLR_GROUP_CELLS);\n"
        "    sum = pclr_group_sum(sum PCLR_GROUP_LDS PCLR_GROUP_CELLS);\n"
        "    /* Level 3: the group's sum joins its cells, which go into the launch's cells. */\n"
        "    if (lid == 0) pclr_put_acc(sum PCLR_GROUP_CELLS);\n"
        "    PCLR_BARRIER();\n"
        "    for (uint k = lid; k < PCLR_CELLS; k += PCLR_GROUP) {\n"
        "        /* a cell's digit plus the carry of the cell below: a group adds under 2^33 per cell */\n"
        "        const pclr_i64 d = (cells[k] & PCLR_DIGIT) + (k > 0 ? cells[k - 1] >> 32 : 0);\n"
        "        if (d != 0) PCLR_ATOMIC_ADD64(PCLR_TOTAL(k), d);\n"
        "    }\n"
        "    if (lid == 0 && specials != 0) PCLR_ATOMIC_OR(PCLR_FLAGS, specials);\n"
        "    if (lid < PCLR_CELLS) PCLR_DEVICE_FENCE(); /* release: the group's atomics before its ticket */\n"
        "    PCLR_BARRIER();\n"
        "    if (lid == 0) {\n"
        "        is_last = %s == groups - 1;\n"
        "        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the thread that read the ticket */\n"
        "    }\n"
        "    PCLR_BARRIER();\n"
        "    if (!is_last) return;\n"
        "    /* the last group: the launch's cells into local memory (zeroed for the next launch), rounded */\n"
        "    PCLR_DEVICE_FENCE();\n"
        "    for (uint k = lid; k < PCLR_CELLS; k += PCLR_GROUP) {\n"
        "        const pclr_i64 v = PCLR_TOTAL_VOLATILE(k);\n"
        "        cells[k] = v;\n"
        "        PCLR_TOTAL(k) = 0;\n"
        "        if (v != 0) {\n"
        "            PCLR_ATOMIC_MIN(cell_lo, PCLR_CAST(int, k));\n"
        "            PCLR_ATOMIC_MAX(cell_hi, PCLR_CAST(int, k));\n"
        "        }\n"
        "    }\n"
        "    PCLR_BARRIER();\n"
        "    if (lid == 0) {\n"
        "        const uint sp = PCLR_FLAGS_VOLATILE;\n"
        "        PCLR_FLAGS_VOLATILE = 0;\n"
        "        PCLR_STORE_RESULT(pclr_round(cell_lo, cell_hi, sp PCLR_GROUP_CELLS));\n"
        "        PCLR_COUNTER = 0;\n"
        "    }\n"
        "}\n",
        pclr__reduced(c) == PCLR_DOUBLE ? "" : "    PCLR_TIER_OUT();\n", g->cuda ? PCLR__TEXT_TICKET_CUDA : glsl ? "atomicAdd(counter, 1u)" : PCLR__TEXT_TICKET_CL);
}
#else /* PCLREDUCE_NO_EXACT: never called (pclr_config_resolve refuses accumulate = exact) */
static void pclr__gen_exact(pclr__gen *g, const pclr_config *c) { (void)g; (void)c; }
#endif /* PCLREDUCE_NO_EXACT */

/* ------------------------------------------------------------ histograms  >>histogram-kernel
   op = histogram: each value (the map's; "x" where there is none) counts in one of PCLR_BINS even bins
   over [lo, hi), or in underflow, overflow or nan (pclr__hist_bin: the CPU reference bins the same way).
   A group counts in local memory with 32-bit atomics (up to PCLR__HIST_LOCAL_BINS bins; more count
   straight into the launch's counts), then adds its nonzero counts into the launch's counts: a low and
   a high word each, the carry by a second atomic (no 64-bit atomics needed). The last group copies them
   into the state (its words: >>histogram) and zeroes them for the next launch. The range comes as the
   kernel's last three arguments (lo, hi, scale = bins / (hi - lo)), so a new one rebuilds nothing. */
/* A GPU's loads in flight per work-item for a weighted histogram, whose every weight is a few local atomics, a carry
   seldom more (H200, 2^24 floats into 256 bins: 119 us at 2, 167 at 8; bench/hist_cuda.cu); 0: the backend's own. */
PCLR__FN int pclr__gpu_hist_unroll(const pclr_config *c) { return c->op == PCLR_HISTOGRAM && c->weighted ? 2 : 0; }
/* The local memory a histogram kernel declares. */
PCLR__FN size_t pclr__hist_local_bytes(const pclr_config *c) {
    const size_t entries = (size_t)c->bins + 3;
    return (c->bins <= PCLR__HIST_LOCAL_BINS ? 4 * entries : 0) +
           (c->weighted ? 4 * (PCLR__HIST_WORDS + PCLR__HIST_DIGITS) * entries : 0) + 4;
}

/* The dialect's reading of a float's bits as a uint. */
static const char *pclr__gen_float_bits(const pclr__gen *g) { return g->glsl ? "floatBitsToUint" : g->cuda ? "__float_as_uint" : "as_uint"; }

/* The op's pieces: its compute type, bins, range and pclr_bin (pclr__hist_bin's rule). */
static void pclr__gen_hist_op(pclr__gen *g, const pclr_config *c) {
    const int glsl = g->glsl, np = g->map->params - 3, dbl = pclr__hist_type(c) == PCLR_DOUBLE, nan = pclr__is_float(pclr__reduced(c));
    const char *arg = glsl ? "args." : "";
    PCLR__GEN_PUTF(g, "/* ---- the operation: histogram, %u bins over [lo, hi)%s%s ---- */\n", c->bins,
                   c->clamp ? ", clamped (out of range: the first and last bin)" : "", c->weighted ? ", weighted by y" : "");
    if (glsl) PCLR__GEN_PUTF(g, "#define pclr_h %s /* values are binned in this type */\n#define pclr_v pclr_h\n", dbl ? "double" : "float");
    else PCLR__GEN_PUTF(g, "typedef %s pclr_h; /* values are binned in this type */\n", dbl ? "double" : "float");
    PCLR__GEN_PUTF(g, "#define PCLR_BINS %uu\n#define PCLR_ENTRIES (PCLR_BINS + 3u) /* the bins, underflow, overflow, nan */\n"
                      "#define PCLR_LO %sp%d\n#define PCLR_HI %sp%d\n#define PCLR_SCALE %sp%d /* bins / (hi - lo) */\n",
                   c->bins, arg, np, arg, np + 1, arg, np + 2);
    PCLR__GEN_PUTF(g, "/* The entry value v counts in: its bin (v - lo) * scale, rounded down, or underflow, overflow, nan. */\n"
                      "PCLR_FN uint pclr_bin(pclr_h v, pclr_h lo, pclr_h hi, pclr_h scale) {\n%s"
                      "    if (v < lo) return %s;\n"
                      "    if (v >= hi) return %s;\n"
                      "    const uint k = PCLR_CAST(uint, (v - lo) * scale);\n"
                      "    return k < PCLR_BINS ? k : PCLR_BINS - 1u; /* (just below hi, rounded up) */\n"
                      "}\n",
                   nan ? "    if (v != v) return PCLR_BINS + 2u;\n" : "", c->clamp ? "0u" : "PCLR_BINS",
                   c->clamp ? "PCLR_BINS - 1u" : "PCLR_BINS + 1u");
    if (pclr__hist_small_int(c)) {
        const char *fl = g->cuda ? "floorf" : "floor", *ce = g->cuda ? "ceilf" : "ceil", *decl = glsl ? "" : "const int ";
        PCLR__GEN_PUTF(g, "/* 8- and 16-bit integers x, where lo is an integer (|lo| <= 2^23) and scale a power of two 2^-s: (x - lo) * scale\n"
                          "   is exact in float, so the bin is (x - lo) >> s and the range checks compare integers (x >= hi: x >= ceil(hi)):\n"
                          "   pclr_bin's bins without its float arithmetic (uint8 in 256 bins on an H200: 164 -> 142 us, bench/hist_probe.cu).\n"
                          "   s, or -1 where the range is not such */\n"
                          "PCLR_FN int pclr_shift_of(pclr_h lo, pclr_h scale) {\n"
                          "    const uint b = %s(scale), e = (b >> 23) & 255u;\n"
                          "    if (lo != %s(lo) || !(lo >= -8388608.0f && lo <= 8388608.0f) || (b & 0x807FFFFFu) != 0u || e > 127u || e == 0u) return -1;\n"
                          "    return e < 96u ? 31 : 127 - PCLR_CAST(int, e); /* (s >= 24: every bin is 0) */\n"
                          "}\n"
                          "PCLR_FN uint pclr_shift_bin(int x, int lo, int hi, int s) {\n"
                          "    if (x < lo) return %s;\n"
                          "    if (x >= hi) return %s;\n"
                          "    const uint k = PCLR_CAST(uint, x - lo) >> s;\n"
                          "    return k < PCLR_BINS ? k : PCLR_BINS - 1u;\n"
                          "}\n"
                          "%s"
                          "#define PCLR_SHIFT_INIT() %spclr_s = pclr_shift_of(PCLR_LO, PCLR_SCALE); \\\n"
                          "    %spclr_ilo = pclr_s >= 0 ? PCLR_CAST(int, PCLR_LO) : 0; \\\n"
                          "    %spclr_ihi = pclr_s < 0 ? 0 : PCLR_HI >= 16777216.0f ? 16777216 : PCLR_CAST(int, %s(PCLR_HI))\n"
                          "#define PCLR_BIN(v) (pclr_s >= 0 ? pclr_shift_bin(PCLR_CAST(int, v), pclr_ilo, pclr_ihi, pclr_s) \\\n"
                          "                           : pclr_bin(PCLR_CAST(pclr_h, v), PCLR_LO, PCLR_HI, PCLR_SCALE))\n",
                       pclr__gen_float_bits(g), fl, c->clamp ? "0u" : "PCLR_BINS", c->clamp ? "PCLR_BINS - 1u" : "PCLR_BINS + 1u",
                       glsl ? "int pclr_s, pclr_ilo, pclr_ihi; /* (set at the kernel's start) */\n" : "", decl, decl, decl, ce);
    } else pclr__put(g->w, "#define PCLR_BIN(v) pclr_bin(PCLR_CAST(pclr_h, v), PCLR_LO, PCLR_HI, PCLR_SCALE)\n");
    pclr__put(g->w, "/* entry k's low and high words in the state: the bins from word 12, underflow, overflow, nan from word 2 */\n"
                    "#define PCLR_AT(k) ((k) < PCLR_BINS ? 12u + 2u * (k) : 2u + 2u * ((k) - PCLR_BINS))\n");
    if (c->layout == PCLR_LAYOUT_ONE || c->bins > PCLR__HIST_LOCAL_BINS) /* (counts in global memory: the launch's, a result's state) */
        pclr__put(g->w, "/* c more in the 64-bit count at words j, j + 1 (ADD: their atomic addition, which returns the old word):\n"
                        "   the low word, and its carry into the high one */\n"
                        "#define PCLR_ADD_COUNT(ADD, j, c) do { const uint c_ = (c), j_ = (j); \\\n"
                        "    if (ADD(j_, c_) + c_ < c_) ADD(j_ + 1u, 1u); } while (false)\n");
}

/* The counts into the state's words at PCLR_OUT (PCLR_AT), entry k by work-item k % PCLR_GROUP: its low and
   high words lo and hi (text; NULL: the counts are there already), after the statements `before`; work-item 0
   writes the header, in a block it leaves open. */
static void pclr__gen_hist_store(pclr__gen *g, const pclr_config *c, const char *ind, const char *before, const char *lo, const char *hi) {
    const int glsl = g->glsl, dbl = pclr__hist_type(c) == PCLR_DOUBLE;
    int k;
    if (lo) PCLR__GEN_PUTF(g, "%sfor (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) {\n%s"
                              "%s    const uint at = PCLR_AT(k);\n"
                              "%s    PCLR_OUT(at) = %s;\n%s    PCLR_OUT(at + 1u) = %s;\n%s}\n", ind, before, ind, ind, lo, ind, hi, ind);
    PCLR__GEN_PUTF(g, "%sif (lid == 0) { /* the bins, then lo and hi in the compute type */\n"
                      "%s    PCLR_OUT(0u) = PCLR_BINS;\n%s    PCLR_OUT(1u) = %du; /* weighted */\n", ind, ind, ind, c->weighted);
    for (k = 0; k < 2; ++k) {
        const char *v = k ? "PCLR_HI" : "PCLR_LO";
        const int at = 8 + 2 * k;
        if (!dbl) PCLR__GEN_PUTF(g, "%s    PCLR_OUT(%du) = %s(%s);\n%s    PCLR_OUT(%du) = 0u;\n", ind, at,
                                 pclr__gen_float_bits(g), v, ind, at + 1);
        else if (glsl) PCLR__GEN_PUTF(g, "%s    PCLR_OUT(%du) = unpackDouble2x32(%s).x;\n%s    PCLR_OUT(%du) = unpackDouble2x32(%s).y;\n",
                                      ind, at, v, ind, at + 1, v);
        else if (g->cuda) PCLR__GEN_PUTF(g, "%s    PCLR_OUT(%du) = (uint)__double2loint(%s);\n%s    PCLR_OUT(%du) = (uint)__double2hiint(%s);\n",
                                         ind, at, v, ind, at + 1, v);
        else PCLR__GEN_PUTF(g, "%s    PCLR_OUT(%du) = as_uint2(%s).x;\n%s    PCLR_OUT(%du) = as_uint2(%s).y;\n", ind, at, v, ind, at + 1, v);
    }
}

static void pclr__gen_hist_layout(pclr__gen *g, const pclr_config *c);

/* A weighted histogram's sums: PCLR_WEIGH counts a value and adds its weight into its entry's sum. On GPUs (and
   layouts) that sum is the group's, ten 32-bit digits in local memory added with 32-bit atomics, carries by
   further atomics. On CPUs (mine) each work-item keeps its own: ten 64-bit words of 32-bit digits with room for
   their carries, added to without a branch or an atomic (2^29 weights a group: under 2^61 a word), in one
   noinline function that every load calls (PoCL took a minute to build the 128 inlined copies of 32 unrolled
   loads), then normalized into the group's digits. The group's go into the launch's the same way (>>histogram). */
static void pclr__gen_hist_weights(pclr__gen *g, int launch, int mine) {
    const int glsl = g->glsl;
    const char *add = glsl ? "atomicAdd" : g->cuda ? "atomicAdd" : "atomic_add", *or_ = glsl ? "atomicOr" : g->cuda ? "atomicOr" : "atomic_or";
    const char *bits = pclr__gen_float_bits(g);
    PCLR__GEN_PUTF(g, "/* ---- the weights: each entry's exact sum of its y, a 320-bit two's complement integer in units of\n"
                      "   2^-149 (the float quantum): ten 32-bit digits, a flags word (1: +inf, 2: -inf, 4: NaN), a spare ---- */\n"
                      "#define PCLR_DIGITS %du\n#define PCLR_WORDS %du\n", PCLR__HIST_DIGITS, PCLR__HIST_WORDS);
    if (launch && glsl) pclr__put(g->w, "#define PCLR_WAT (2u * PCLR_ENTRIES) /* the launch's sums, after its counts */\n"
                                        "#define PCLR_TOTAL_OR(j, c) atomicOr(pw[args.part_at + (j)], (c))\n");
    else if (launch) PCLR__GEN_PUTF(g, "#define PCLR_WAT (2u * PCLR_ENTRIES) /* the launch's sums, after its counts */\n"
                                       "#define PCLR_TOTAL_OR(j, c) %s(total + (j), (c))\n", or_);
    pclr__put(g->w, "/* the group's sums: the positive weights' (digits and flags, PCLR_WORDS an entry), then the negative's magnitudes\n"
                    "   (PCLR_DIGITS an entry, from PCLR_NEG): both only grow, so a carry seldom goes past the next digit (a\n"
                    "   two's complement sum near 0 borrows through every digit above, a chain of atomics) */\n"
                    "#define PCLR_NEG (PCLR_ENTRIES * PCLR_WORDS)\n#define PCLR_WSUM_WORDS (PCLR_ENTRIES * (PCLR_WORDS + PCLR_DIGITS))\n"
                    "/* digit j of entry k's sum (two's complement) into d: the positive digit less the negative, borrowing (b) */\n"
                    "#define PCLR_WSUM_DIGIT(k, j, b, d) do { \\\n"
                    "    const uint p_ = wsum[(k) * PCLR_WORDS + (j)], n_ = wsum[PCLR_NEG + (k) * PCLR_DIGITS + (j)]; \\\n"
                    "    d = p_ - n_ - b; \\\n"
                    "    b = p_ < n_ || (p_ == n_ && b != 0u) ? 1u : 0u; \\\n"
                    "} while (false)\n");
    if (glsl) pclr__put(g->w, "shared uint wsum[PCLR_WSUM_WORDS];\n"
                              "#define PCLR_WSUM_ADD(j, c) atomicAdd(wsum[j], (c))\n#define PCLR_WSUM_OR(j, c) atomicOr(wsum[j], (c))\n");
    else PCLR__GEN_PUTF(g, "#define PCLR_WSUM_ADD(j, c) %s(wsum + (j), (c))\n#define PCLR_WSUM_OR(j, c) %s(wsum + (j), (c))\n", add, or_);
    pclr__put(g->w, "/* x added to digit j of the sum at word `at`, carrying into the digits above (ADD: the words' atomic addition,\n"
                    "   which returns the old word): the carry is one more atomic, and only a digit j + 1 of all ones (seldom) carries on,\n"
                    "   in a loop apart (a loop of atomics on the common path kept an H200's warps apart: 53-75x slower) */\n"
                    "#define PCLR_DIGIT_ADD(ADD, at, j, x) do { const uint x_ = (x), j_ = (j); \\\n"
                    "    if (x_ != 0u && ADD((at) + j_, x_) + x_ < x_ && j_ + 1u < PCLR_DIGITS && ADD((at) + j_ + 1u, 1u) == 0xFFFFFFFFu) \\\n"
                    "        for (uint c_ = j_ + 2u; c_ < PCLR_DIGITS && ADD((at) + c_, 1u) == 0xFFFFFFFFu; ++c_) {} \\\n"
                    "} while (false)\n");
    if (!mine) {
        PCLR__GEN_PUTF(g, "/* v counted, and its weight w, a float m 2^(p - 149) (m < 2^24: two digits at most), added to its entry's sum */\n"
                          "#define PCLR_WEIGH(v, w) do { \\\n"
                          "    const uint k_ = PCLR_BIN(v), b_ = %s(w), e_ = (b_ >> 23) & 255u; \\\n"
                          "    const uint at_ = (b_ >> 31) != 0u ? PCLR_NEG + k_ * PCLR_DIGITS : k_ * PCLR_WORDS; \\\n"
                          "    %s; \\\n"
                          "    if (e_ == 255u) PCLR_WSUM_OR(k_ * PCLR_WORDS + PCLR_DIGITS, (b_ & 0x7FFFFFu) != 0u ? 4u : (b_ >> 31) != 0u ? 2u : 1u); \\\n"
                          "    else { \\\n"
                          "        const uint m_ = e_ != 0u ? (b_ & 0x7FFFFFu) | 0x800000u : b_ & 0x7FFFFFu, p_ = e_ != 0u ? e_ - 1u : 0u, s_ = p_ & 31u; \\\n"
                          "        PCLR_DIGIT_ADD(PCLR_WSUM_ADD, at_, p_ >> 5, m_ << s_); \\\n"
                          "        if (s_ > 8u) PCLR_DIGIT_ADD(PCLR_WSUM_ADD, at_, (p_ >> 5) + 1u, m_ >> (32u - s_)); \\\n"
                          "    } \\\n"
                          "} while (false)\n", bits,
                       glsl ? "atomicAdd(hist[k_], 1u)" : g->cuda ? "atomicAdd(hist + k_, 1u)" : "atomic_add(hist + k_, 1u)");
        return;
    }
    if (glsl) pclr__put(g->w, "#define pclr_i64 int64_t\n"
                              "pclr_i64 wmine[PCLR_ENTRIES * PCLR_DIGITS]; /* this work-item's sums */\nuint wflags[PCLR_ENTRIES];\n");
    else PCLR__GEN_PUTF(g, "typedef %s pclr_i64;\n", g->cuda ? "long long" : "long");
    PCLR__GEN_PUTF(g, "/* entry k counted, and the weight of bits b, a float m 2^(p - 149) (m < 2^24), added to its sum: the part of\n"
                      "   m 2^(p mod 32) below 2^32 to word p / 32, the rest (0 where m fits) to the next; no branch on the sign */\n"
                      "%svoid pclr_weigh(%suint k, uint b) {\n"
                      "    const uint e = (b >> 23) & 255u, m = e != 0u ? (b & 0x7FFFFFu) | 0x800000u : b & 0x7FFFFFu, p = e != 0u ? e - 1u : 0u;\n"
                      "    const uint s = p & 31u, at = k * PCLR_DIGITS + (p >> 5);\n"
                      "    const pclr_i64 sign = PCLR_CAST(pclr_i64, 1) - PCLR_CAST(pclr_i64, (b >> 31) << 1); /* 1 or -1 */\n"
                      "    ++%s[k];\n"
                      "    if (e == 255u) {\n"
                      "        wflags[k] |= (b & 0x7FFFFFu) != 0u ? 4u : (b >> 31) != 0u ? 2u : 1u;\n"
                      "        return;\n"
                      "    }\n"
                      "    wmine[at] += sign * PCLR_CAST(pclr_i64, m << s);\n"
                      "    wmine[at + 1u] += sign * PCLR_CAST(pclr_i64, s > 8u ? m >> (32u - s) : 0u);\n"
                      "}\n#define PCLR_WEIGH(v, w) pclr_weigh(%sPCLR_BIN(v), %s(w))\n",
                   glsl ? "" : g->cuda ? "static __device__ __noinline__ " : "static __attribute__((noinline)) ",
                   glsl ? "" : "uint *count, pclr_i64 *wmine, uint *wflags, ", glsl ? "mine[0]" : "count",
                   glsl ? "" : "mine[0], wmine, wflags, ", bits);
}

/* The histogram kernel, in every dialect. */
static void pclr__gen_hist(pclr__gen *g, const pclr_config *c) {
    const int glsl = g->glsl, local = c->bins <= PCLR__HIST_LOCAL_BINS, y = g->map->y, V = c->vector_width, wt = c->weighted;
    const int mine = pclr__hist_mine(c);
    const int ways = mine ? pclr__hist_ways(c) : 1;
    char e[1800], w[1800];
    int k;
    pclr__gen_hist_op(g, c);
    if (c->layout != PCLR_LAYOUT_ONE) {
        pclr__gen_hist_layout(g, c);
        return;
    }
    /* the launch's counts: atomics on word j (returns the old value), read, written */
    if (glsl) pclr__put(g->w, "#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()\n#define PCLR_TOTAL_ADD(j, c) atomicAdd(pw[args.part_at + (j)], (c))\n#define PCLR_TOTAL(j) pw[args.part_at + (j)]\n"
                              "#define PCLR_OUT(j) outw[args.out_at + (j)]\n");
    else PCLR__GEN_PUTF(g, "#define PCLR_TOTAL_ADD(j, c) %s(total + (j), (c))\n#define PCLR_TOTAL(j) ((PCLR_GLOBAL volatile uint *)total)[j]\n"
                           "#define PCLR_OUT(j) out[j]\n", g->cuda ? "atomicAdd" : "atomic_add");
    pclr__put(g->w, "/* c more in entry k of the launch's counts */\n#define PCLR_ADD_TOTAL(k, c) PCLR_ADD_COUNT(PCLR_TOTAL_ADD, 2u * (k), c)\n");
    if (mine) PCLR__GEN_PUTF(g, "/* a CPU's work-item counts in bins of its own (no atomics; a set per lane of a load), added into the\n"
                               "   group's at the end */\n#define PCLR_WAYS %d\n%s%s", ways, wt ? "" : "#define PCLR_COUNT_IN(w, v) (++mine[w][PCLR_BIN(v)])\n",
                             V > 1 && !wt ? "#define PCLR_COUNT(v) PCLR_COUNT_IN(0, v) /* the head's and tail's elements */\n" : "");
    if (mine && glsl) pclr__put(g->w, "shared uint hist[PCLR_ENTRIES]; /* the group's counts */\nuint mine[PCLR_WAYS][PCLR_ENTRIES];\n");
    else if (mine) ;
    else if (!local) PCLR__GEN_PUTF(g, "/* more bins than local memory holds: each value counts in the launch's counts, without the carry\n"
                                "   where n < 2^32 (an atomic whose old word is not read: the GPU's reduction in memory) */\n"
                                "#define PCLR_COUNT(v) do { \\\n"
                                "    if ((%s >> 32) == 0%s) PCLR_TOTAL_ADD(2u * PCLR_BIN(v), 1u); \\\n"
                                "    else PCLR_ADD_TOTAL(PCLR_BIN(v), 1u); \\\n"
                                "} while (false)\n", glsl ? "args.n" : "n", glsl ? "ul" : "");
    else if (glsl) PCLR__GEN_PUTF(g, "shared uint hist[PCLR_ENTRIES]; /* the group's counts */\n%s",
                                  wt ? "" : "#define PCLR_COUNT(v) atomicAdd(hist[PCLR_BIN(v)], 1u)\n");
    else if (!wt) PCLR__GEN_PUTF(g, "#define PCLR_COUNT(v) %s(hist + PCLR_BIN(v)%s)\n", g->cuda ? "atomicAdd" : "atomic_inc", g->cuda ? ", 1u" : "");
    if (wt) pclr__gen_hist_weights(g, 1, mine); /* (PCLR_WEIGH counts too) */
    if (glsl) pclr__put(g->w, "shared bool is_last;\n");
    /* a load's values, and one element's (the head and the tail) */
    if (glsl) {
        PCLR__GEN_PUTF(g, "void pclr_count_load(pclr_in_x v, %suint64_t i) {\n", y ? "pclr_in_y v2, " : "");
        for (k = 0; k < V; ++k) {
            pclr__gvalue(g, c, k, e, sizeof e);
            if (wt) pclr__gelem(g, c, 1, k, NULL, w, sizeof w);
            if (wt) PCLR__GEN_PUTF(g, "    PCLR_WEIGH(%s, %s);\n", e, w);
            else if (mine) PCLR__GEN_PUTF(g, "    PCLR_COUNT_IN(%d, %s);\n", k % ways, e);
            else PCLR__GEN_PUTF(g, "    PCLR_COUNT(%s);\n", e);
        }
        PCLR__GEN_PUTF(g, "}\n#define PCLR_FOLD(acc, v, i) pclr_count_load(%s, (i))\n", y ? "(v).x, (v).y" : "(v)");
        if (V > 1) {
            pclr__gvalue(g, c, -1, e, sizeof e);
            PCLR__GEN_PUTF(g, "/* the element at relative index r */\npclr_h pclr_value_at(uint64_t r) { return %s; }\n", e);
            if (wt) pclr__gelem(g, c, 1, -1, "args.offset2 + r", w, sizeof w);
            if (wt) PCLR__GEN_PUTF(g, "float pclr_weight_at(uint64_t r) { return %s; }\n"
                                      "#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(pclr_value_at(i), pclr_weight_at(i))\n", w);
            else pclr__put(g->w, "#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(pclr_value_at(i))\n");
        }
    } else {
        pclr__put(g->w, "#define PCLR_FOLD(acc, v, i) do { \\\n");
        for (k = 0; k < V; ++k) {
            pclr__gen_elem(g, k, e, sizeof e);
            pclr__gen_lane(g, 1, k, w, sizeof w);
            if (wt) PCLR__GEN_PUTF(g, "    PCLR_WEIGH(%s, %s); \\\n", e, w);
            else if (mine) PCLR__GEN_PUTF(g, "    PCLR_COUNT_IN(%d, %s); \\\n", k % ways, e);
            else PCLR__GEN_PUTF(g, "    PCLR_COUNT(%s); \\\n", e);
        }
        pclr__put(g->w, "} while (false)\n");
        if (V > 1) {
            pclr__gen_elem(g, -1, e, sizeof e);
            pclr__gen_lane(g, 1, -1, w, sizeof w);
            if (wt) PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(%s, %s)\n", e, w);
            else PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(%s)\n", e);
        }
    }
    pclr__gen_kernel_open(g, "/* ---- the kernel ---- */\n"
                             "PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,\n"
                             "                             PCLR_GLOBAL uint *out, PCLR_GLOBAL uint *total, PCLR_GLOBAL uint *counter");
    if (!glsl) PCLR__GEN_PUTF(g, "%s%s    PCLR_SHARED uint is_last;\n", local ? "    PCLR_SHARED uint hist[PCLR_ENTRIES]; /* the group's counts */\n" : "",
                              wt ? "    PCLR_SHARED uint wsum[PCLR_WSUM_WORDS]; /* and the sums of their weights */\n" : "");
    pclr__put(g->w, "    const uint lid = PCLR_LID;\n"
                    "    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;\n"
                    "    const pclr_u64 thread = group * PCLR_GROUP + lid;\n"
                    "    PCLR_XREF p = PCLR_XAT(offset);\n");
    if (pclr__hist_small_int(c)) pclr__put(g->w, "    PCLR_SHIFT_INIT();\n");
    if (mine && !glsl) PCLR__GEN_PUTF(g, "    uint mine[PCLR_WAYS][PCLR_ENTRIES]; /* this work-item's counts */\n%s",
                                      wt ? "    pclr_i64 wmine[PCLR_ENTRIES * PCLR_DIGITS]; /* and sums */\n    uint wflags[PCLR_ENTRIES];\n" : "");
    if (wt) pclr__put(g->w, "    for (uint k = lid; k < PCLR_WSUM_WORDS; k += PCLR_GROUP) wsum[k] = 0u;\n");
    if (local) pclr__put(g->w, "    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;\n    PCLR_BARRIER();\n");
    if (mine) pclr__put(g->w, "    for (uint k = 0u; k < PCLR_ENTRIES; ++k)\n        for (uint w = 0u; w < PCLR_WAYS; ++w) mine[w][k] = 0u;\n");
    if (mine && wt) pclr__put(g->w, "    for (uint k = 0u; k < PCLR_ENTRIES * PCLR_DIGITS; ++k) wmine[k] = 0;\n"
                                    "    for (uint k = 0u; k < PCLR_ENTRIES; ++k) wflags[k] = 0u;\n");
    pclr__gen_level1(g, c, PCLR__TEXT_LOOP, NULL);
    if (local) pclr__put(g->w, "    /* Level 2: the group's counts into the launch's. */\n");
    if (mine) PCLR__GEN_PUTF(g, "    for (uint k = 0u; k < PCLR_ENTRIES; ++k) {\n"
                               "        uint m = 0u;\n"
                               "        for (uint w = 0u; w < PCLR_WAYS; ++w) m += mine[w][k];\n"
                               "        if (m != 0u) %s;\n"
                               "    }\n",
                            glsl ? "atomicAdd(hist[k], m)" : g->cuda ? "atomicAdd(hist + k, m)" : "atomic_add(hist + k, m)");
    if (mine && wt) pclr__put(g->w, "    for (uint k = 0u; k < PCLR_ENTRIES; ++k) { /* and its sums, normalized digit by digit, into the group's */\n"
                                    "        pclr_i64 carry = 0;\n"
                                    "        for (uint j = 0u; j < PCLR_DIGITS; ++j) {\n"
                                    "            const pclr_i64 t = wmine[k * PCLR_DIGITS + j] + carry;\n"
                                    "            const uint d = PCLR_CAST(uint, t);\n"
                                    "            carry = (t - PCLR_CAST(pclr_i64, d)) / (PCLR_CAST(pclr_i64, 1) << 32); /* (exact: a multiple of 2^32) */\n"
                                    "            PCLR_DIGIT_ADD(PCLR_WSUM_ADD, k * PCLR_WORDS, j, d);\n"
                                    "        }\n"
                                    "        if (wflags[k] != 0u) PCLR_WSUM_OR(k * PCLR_WORDS + PCLR_DIGITS, wflags[k]);\n"
                                    "    }\n");
    if (local) pclr__put(g->w, "    PCLR_BARRIER();\n"
                               "    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP)\n"
                               "        if (hist[k] != 0u) PCLR_ADD_TOTAL(k, hist[k]);\n");
    if (wt) pclr__put(g->w, "    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) { /* the sums' digits, each with its carries */\n"
                            "        const uint at = k * PCLR_WORDS;\n"
                            "        uint b = 0u, d;\n"
                            "        for (uint j = 0u; j < PCLR_DIGITS; ++j) {\n"
                            "            PCLR_WSUM_DIGIT(k, j, b, d);\n"
                            "            PCLR_DIGIT_ADD(PCLR_TOTAL_ADD, PCLR_WAT + at, j, d);\n"
                            "        }\n"
                            "        if (wsum[at + PCLR_DIGITS] != 0u) PCLR_TOTAL_OR(PCLR_WAT + at + PCLR_DIGITS, wsum[at + PCLR_DIGITS]);\n"
                            "    }\n");
    PCLR__GEN_PUTF(g, "    /* Level 3: the last group writes the launch's counts into the state and zeroes them. */\n"
                      "    PCLR_DEVICE_FENCE(); /* release: the group's counts before its ticket */\n"
                      "    PCLR_BARRIER();\n"
                      "    if (lid == 0) {\n"
                      "        is_last = %s == groups - 1%s;\n"
                      "        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the work-item that read the ticket */\n"
                      "    }\n"
                      "    PCLR_BARRIER();\n"
                      "    if (!is_last) return;\n"
                      "    PCLR_DEVICE_FENCE();\n",
                   g->cuda ? "pclr_ticket(counter)" : glsl ? "atomicAdd(counter, 1u)" : PCLR__TEXT_TICKET_CL, glsl ? "ul" : "");
    if (wt) pclr__put(g->w, "    for (uint k = lid; k < PCLR_ENTRIES * PCLR_WORDS; k += PCLR_GROUP) { /* the sums, after the counts */\n"
                            "        PCLR_OUT(12u + 2u * PCLR_BINS + k) = PCLR_TOTAL(PCLR_WAT + k);\n"
                            "        PCLR_TOTAL(PCLR_WAT + k) = 0u;\n"
                            "    }\n");
    pclr__gen_hist_store(g, c, "    ", "        const uint lo = PCLR_TOTAL(2u * k), hi = PCLR_TOTAL(2u * k + 1u);\n"
                                       "        PCLR_TOTAL(2u * k) = 0u; /* for the next launch */\n"
                                       "        PCLR_TOTAL(2u * k + 1u) = 0u;\n", "lo", "hi");
    pclr__put(g->w, "        PCLR_COUNTER = 0u;\n    }\n}\n");
}

/* ------------------------------------------------------------ the GLSL kernel  >>glsl
   backend = vulkan: one GLSL 4.50 compute shader (compiled to SPIR-V by
   shaderc or the caller's compiler) with the same three levels. GLSL has no
   pointers: every input is an array of 32-bit words, loaded as uint, uvec2
   or uvec4 (4, 8 or 16 bytes: the vector knob) and taken apart with bit
   casts, so that 8/16-bit types and half need no storage extension. The
   bindings (descriptor set 0, pushed per dispatch): 0 x, 1 out, 2 the
   partials (also the atomic finish's running value), 3 the ticket counter,
   4 y. The push constants: x's first element and n, y's first element, the
   word where out's state goes and the atomic finish's word, then a map's
   parameters. Needs shaderInt64 (64-bit indices); the shuffle variant needs
   subgroup arithmetic and relative shuffles (gl_SubgroupSize is read at run
   time: any subgroup width works). */
#define PCLR__GLSL_ARGS_BYTES 32 /* the push constants before a map's parameters */
#define PCLR__GLSL_LAYOUT_ARGS_BYTES 64 /* a layout's: rows, cols, pitch and split follow */
static uint32_t pclr__glsl_args_bytes(const pclr_config *c) {
    return c->layout != PCLR_LAYOUT_ONE ? PCLR__GLSL_LAYOUT_ARGS_BYTES : PCLR__GLSL_ARGS_BYTES;
}

static const char *pclr__gtype(pclr_type t) {
    switch (t) {
    case PCLR_UINT: case PCLR_UINT8: case PCLR_UINT16: return "uint";
    case PCLR_INT: case PCLR_INT8: case PCLR_INT16: return "int";
    case PCLR_UINT64: return "uint64_t";
    case PCLR_INT64: return "int64_t";
    case PCLR_DOUBLE: return "double";
    default: return "float";
    }
}

/* A compute type's largest (big) or smallest value as a GLSL literal. */
static const char *pclr__gextreme(pclr_type t, int big) {
    switch (t) {
    case PCLR_UINT: return big ? "0xffffffffu" : "0u";
    case PCLR_INT: return big ? "0x7fffffff" : "(-0x7fffffff - 1)";
    case PCLR_UINT64: return big ? "0xfffffffffffffffful" : "0ul";
    case PCLR_INT64: return big ? "0x7fffffffffffffffl" : "(-0x7fffffffffffffffl - 1l)";
    case PCLR_DOUBLE: return big ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "packDouble2x32(uvec2(0u, 0xfff00000u))";
    default: return big ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
    }
}

/* Bytes one load of x (y: 1) reads: 4, 8 or 16 (pclr_config_resolve checked). */
static int pclr__gload_bytes(const pclr__gen *g, const pclr_config *c, int y) {
    const int comps = g->map ? g->map->comps : 1, b = c->vector_width * comps * (int)pclr_type_size(y ? g->map->y : c->type);
    return b < 4 ? 4 : b; /* (a layout's 1- and 2-byte elements: read from words, pclr_xw) */
}

/* Scalar s of the input (x or y) of element type t as its natural GLSL type, from words:
   w0/w1 the text of the word holding it (and the next, for 8-byte types), sh the bit shift within w0. */
static void pclr__gscalar(char *buf, size_t cap, pclr_type t, const char *w0, const char *w1, const char *sh) {
    switch (t) {
    case PCLR_UINT8: snprintf(buf, cap, "((%s >> %s) & 0xffu)", w0, sh); break;
    case PCLR_UINT16: snprintf(buf, cap, "((%s >> %s) & 0xffffu)", w0, sh); break;
    case PCLR_INT8: snprintf(buf, cap, "bitfieldExtract(int(%s), int(%s), 8)", w0, sh); break;
    case PCLR_INT16: snprintf(buf, cap, "bitfieldExtract(int(%s), int(%s), 16)", w0, sh); break;
    case PCLR_HALF: snprintf(buf, cap, "unpackHalf2x16(%s >> %s).x", w0, sh); break;
    case PCLR_UINT: snprintf(buf, cap, "%s", w0); break;
    case PCLR_INT: snprintf(buf, cap, "int(%s)", w0); break;
    case PCLR_FLOAT: snprintf(buf, cap, "uintBitsToFloat(%s)", w0); break;
    case PCLR_DOUBLE: snprintf(buf, cap, "packDouble2x32(uvec2(%s, %s))", w0, w1); break;
    case PCLR_UINT64: snprintf(buf, cap, "packUint2x32(uvec2(%s, %s))", w0, w1); break;
    default: snprintf(buf, cap, "int64_t(packUint2x32(uvec2(%s, %s)))", w0, w1); break; /* INT64 */
    }
}

/* The element of an input (x or y) as the op or the map takes it: a map gets
   its promoted type (a vecN of them for pixels), the op the value type.
   k >= 0: element k of the loaded value `v` (y: `v2`); k < 0: the element
   at binding index `e` (text), read through pclr_xw / pclr_yw. */
static void pclr__gelem(const pclr__gen *g, const pclr_config *c, int y, int k, const char *e, char *buf, size_t cap) {
    const pclr_type t = y ? g->map->y : c->type;
    const int es = (int)pclr_type_size(t), comps = g->map ? g->map->comps : 1;
    const int words = pclr__gload_bytes(g, c, y) / 4;
    const char *lv = y ? "v2" : "v", *fn = y ? "pclr_yw" : "pclr_xw";
    char part[4][400], w0[160], w1[160], sh[160];
    int j;
    for (j = 0; j < comps; ++j) {
        if (k >= 0) { /* compile-time positions in the load */
            const int s = k * comps + j, byte = s * es, q = byte / 4;
            if (words == 1) snprintf(w0, sizeof w0, "%s", lv);
            else snprintf(w0, sizeof w0, "%s[%d]", lv, q);
            snprintf(w1, sizeof w1, "%s[%d]", lv, q + 1);
            snprintf(sh, sizeof sh, "%du", (byte % 4) * 8);
        } else { /* scalar index S = e * comps + j, counted in the binding */
            char S[80];
            if (comps == 1) snprintf(S, sizeof S, "(%s)", e);
            else snprintf(S, sizeof S, "((%s) * %dul + %dul)", e, comps, j);
            if (es == 8) { snprintf(w0, sizeof w0, "%s(2ul * %s)", fn, S); snprintf(w1, sizeof w1, "%s(2ul * %s + 1ul)", fn, S); }
            else if (es == 4) snprintf(w0, sizeof w0, "%s(%s)", fn, S);
            else snprintf(w0, sizeof w0, "%s(%s >> %d)", fn, S, es == 2 ? 1 : 2);
            if (es < 4) snprintf(sh, sizeof sh, "(uint(%s & %dul) * %du)", S, 4 / es - 1, es * 8);
            else snprintf(sh, sizeof sh, "0u");
        }
        pclr__gscalar(part[j], sizeof part[j], t, w0, w1, sh);
    }
    if (!g->map) { /* the op's value */
        if (c->accumulate == PCLR_EXACT && t == PCLR_FLOAT) snprintf(buf, cap, "pclr_f2d(%s)", w0); /* (no float step) */
        else snprintf(buf, cap, "pclr_v(%s)", part[0]);
    } else if (comps == 1) {
        snprintf(buf, cap, "%s(%s)", pclr__mtname(pclr__mpromote(t), PCLR__ML_GLSL), part[0]);
    } else {
        const pclr_type pt = pclr__mpromote(t);
        const char *pre = pt == PCLR_FLOAT ? "" : pt == PCLR_DOUBLE ? "d" : pt == PCLR_INT ? "i" : pt == PCLR_UINT ? "u" : pt == PCLR_INT64 ? "i64" : "u64";
        if (comps == 2) snprintf(buf, cap, "%svec2(%s, %s)", pre, part[0], part[1]);
        else snprintf(buf, cap, "%svec4(%s, %s, %s, %s)", pre, part[0], part[1], part[2], part[3]);
    }
}

/* The value the op folds for element k of the load (k < 0: relative index r, at binding indexes base + r). */
static void pclr__gvalue(const pclr__gen *g, const pclr_config *c, int k, char *buf, size_t cap) {
    char x[1700], y[1700];
    int j, len;
    if (k >= 0) pclr__gelem(g, c, 0, k, NULL, x, sizeof x);
    else pclr__gelem(g, c, 0, -1, "args.offset + r", x, sizeof x);
    if (!g->map) { snprintf(buf, cap, "%s", x); return; }
    y[0] = '\0';
    if (g->map->y) {
        if (k >= 0) pclr__gelem(g, c, 1, k, NULL, y, sizeof y);
        else pclr__gelem(g, c, 1, -1, "args.offset2 + r", y, sizeof y);
    }
    /* (a reduction's map is its lift: a state) */
    if (k >= 0) len = snprintf(buf, cap, "%spclr_map(%s, %s%si + %dul", g->map->fields ? "" : "pclr_v(", x, y, g->map->y ? ", " : "", k);
    else len = snprintf(buf, cap, "%spclr_map(%s, %s%sr", g->map->fields ? "" : "pclr_v(", x, y, g->map->y ? ", " : "");
    for (j = 0; j < g->map->params && len > 0 && (size_t)len < cap; ++j) len += snprintf(buf + len, cap - (size_t)len, ", args.p%d", j);
    if (len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, g->map->fields ? ")" : "))");
}

/* A field's value as 32-bit words into buffer `arr` at word index `at` (text), and back. */
static void pclr__gstore_field(pclr__gen *g, const char *arr, const char *at, int off, const char *f, pclr_type t) {
    if (pclr_type_size(t) == 8) {
        PCLR__GEN_PUTF(g, "    { const uvec2 w = %s(%s%s%s); %s[%s + %du] = w.x; %s[%s + %du] = w.y; }\n",
                       t == PCLR_DOUBLE ? "unpackDouble2x32" : "unpackUint2x32", t == PCLR_INT64 ? "uint64_t(" : "", f,
                       t == PCLR_INT64 ? ")" : "", arr, at, off, arr, at, off + 1);
    } else {
        PCLR__GEN_PUTF(g, "    %s[%s + %du] = %s(%s);\n", arr, at, off, t == PCLR_FLOAT ? "floatBitsToUint" : "uint", f);
    }
}
static void pclr__gload_field(pclr__gen *g, const char *arr, int off, const char *f, pclr_type t) {
    char w[2][64], v[200];
    snprintf(w[0], sizeof w[0], "%s[at + %du]", arr, off);
    snprintf(w[1], sizeof w[1], "%s[at + %du]", arr, off + 1);
    pclr__gscalar(v, sizeof v, t, w[0], w[1], "0u");
    PCLR__GEN_PUTF(g, "    %s = %s;\n", f, v);
}

/* Whether the group step uses subgroup operations (the shuffle variant), and
   whether the whole state is one 32-bit value subgroupAdd/Min/Max reduce as
   the op does (float min/max are not: NaN and -0 have their own rules). */
static int pclr__gsubgroup(const pclr_config *c) { return c->variant == PCLR_VARIANT_SHUFFLE; }
static const char *pclr__gsubgroup_op(const pclr__gen *g, const pclr_config *c) {
    const pclr_type t = g->l.field[0].type;
    if (g->l.count != 1 || pclr_type_size(t) != 4 || c->op == PCLR_STATS) return NULL;
    if (c->op == PCLR_SUM) return c->accumulate == PCLR_COMPENSATED ? NULL : "subgroupAdd";
    if (t == PCLR_FLOAT) return NULL;
    return c->op == PCLR_MIN ? "subgroupMin" : c->op == PCLR_MAX ? "subgroupMax" : NULL;
}

/* The GLSL prelude's head: the version and extensions come first. */
static void pclr__glsl_head(pclr__gen *g, const pclr_config *c) {
    pclr__put(g->w, "#version 450\n"
                    "#extension GL_ARB_gpu_shader_int64 : require\n");
    if (pclr__gsubgroup(c))
        pclr__put(g->w, "#extension GL_KHR_shader_subgroup_basic : require\n"
                        "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                        "#extension GL_KHR_shader_subgroup_shuffle_relative : require\n");
    pclr__put(g->w, "/* ---- GLSL 4.50 compute (Vulkan) ---- */\n"
                    "#define pclr_u64 uint64_t\n");
}

/* The GLSL prelude after its head and words: the knobs, the bindings and the push constants (the arguments). */
static void pclr__glsl_prelude(pclr__gen *g, const pclr_config *c) {
    const int xw = pclr__gload_bytes(g, c, 0) / 4, yw = g->map && g->map->y ? pclr__gload_bytes(g, c, 1) / 4 : 0;
    const char *vt[5] = {"", "uint", "uvec2", "", "uvec4"};
    const int lay = c->layout != PCLR_LAYOUT_ONE;
    int k, at = (int)pclr__glsl_args_bytes(c);
#define PCLR__GEN_KNOB(kind, name, field, macro, dflt) \
    PCLR__KNOB_KIND_##kind(, if (pclr__gen_knob_read(c, #macro)) PCLR__GEN_PUTF(g, "#define " #macro " %d\n", c->field);, )
    PCLR__KNOBS(PCLR__GEN_KNOB)
#undef PCLR__GEN_KNOB
    pclr__put(g->w, "layout(local_size_x = PCLR_GROUP) in;\n");
    PCLR__GEN_PUTF(g, "#define pclr_in_x %s /* one load of x: %d bytes */\n", vt[xw], xw * 4);
    PCLR__GEN_PUTF(g, "layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };\n"
                      "layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };\n"
                      "layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };\n");
    if (lay) pclr__put(g->w, "layout(std430, set = 0, binding = 3) coherent buffer pclr_ctl_words { uint ctl[]; }; /* [0] the segments' status, [1 + k] tickets */\n"
                             "layout(std430, set = 0, binding = 5) readonly buffer pclr_offset_words { uint64_t pclr_offsets[]; }; /* segments' */\n");
    else pclr__put(g->w, "layout(std430, set = 0, binding = 3) coherent buffer pclr_counter_word { uint counter; };\n");
    if (c->finish == PCLR_FINISH_ATOMIC && g->l.field[0].type == PCLR_INT)
        pclr__put(g->w, "layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_ints { int pwi[]; }; /* the same words, signed */\n");
    if (yw) PCLR__GEN_PUTF(g, "#define pclr_in_y %s /* one load of y: %d bytes */\n"
                              "layout(std430, set = 0, binding = 4) readonly buffer pclr_y_words { pclr_in_y yv[]; };\n", vt[yw], yw * 4);
    pclr__put(g->w, "layout(push_constant) uniform pclr_args_block {\n"
                    "    layout(offset = 0) uint64_t offset;   /* x's first element, counted from the binding's start */\n"
                    "    layout(offset = 8) uint64_t n;\n"
                    "    layout(offset = 16) uint64_t offset2; /* y's first element */\n"
                    "    layout(offset = 24) uint out_at;      /* out's first word */\n"
                    "    layout(offset = 28) uint part_at;     /* the atomic finish's word in the partials */\n");
    if (lay) pclr__put(g->w, "    layout(offset = 32) uint64_t rows;\n    layout(offset = 40) uint64_t cols;\n"
                             "    layout(offset = 48) uint64_t pitch;\n    layout(offset = 56) uint64_t split;\n");
    for (k = 0; g->map && k < g->map->params; ++k) {
        const int sz = pclr__mis_int(g->map->param[k]) && g->map->param[k] != PCLR_INT64 && g->map->param[k] != PCLR_UINT64 ? 4
                     : g->map->param[k] == PCLR_FLOAT ? 4 : 8;
        at = (at + sz - 1) / sz * sz;
        PCLR__GEN_PUTF(g, "    layout(offset = %d) %s p%d;\n", at, pclr__mtname(g->map->param[k], PCLR__ML_GLSL), k);
        at += sz;
    }
    pclr__put(g->w, "} args;\n");
    /* word w of an input, counted from its binding's start (one element's: the head and tail of loads, a layout's) */
    if (c->vector_width == 1 && c->layout == PCLR_LAYOUT_ONE) ;
    else if (xw == 1) pclr__put(g->w, "uint pclr_xw(uint64_t w) { return xv[uint(w)]; }\n");
    else PCLR__GEN_PUTF(g, "uint pclr_xw(uint64_t w) { return xv[uint(w / %dul)][uint(w %% %dul)]; }\n", xw, xw);
    if (c->vector_width == 1 && c->layout == PCLR_LAYOUT_ONE) ;
    else if (yw == 1) pclr__put(g->w, "uint pclr_yw(uint64_t w) { return yv[uint(w)]; }\n");
    else if (yw) PCLR__GEN_PUTF(g, "uint pclr_yw(uint64_t w) { return yv[uint(w / %dul)][uint(w %% %dul)]; }\n", yw, yw);
}

/* Lifted elements e[lo, hi) of a load as a balanced tree of merges. */
static void pclr__gtree(pclr__gen *g, int lo, int hi) {
    if (hi - lo == 1) { PCLR__GEN_PUTF(g, "e%d", lo); return; }
    PCLR__GEN_PUTF(g, "%s(", g->merge_parts);
    pclr__gtree(g, lo, (lo + hi) / 2);
    pclr__put(g->w, ", ");
    pclr__gtree(g, (lo + hi) / 2, hi);
    pclr__put(g->w, ")");
}

static void pclr__glsl_map(pclr__gen *g, const pclr_config *c);
/* The state (always a struct), identity, store and load, and the op's functions. */
static void pclr__glsl_ops(pclr__gen *g, const pclr_config *c) {
    const pclr__layout *l = &g->l;
    const pclr__op_def *d = pclr__op_def_of(c->op, c->accumulate, l->value); /* (NULL: a reduction's, op custom) */
    const int nan = pclr__is_float(l->value), dbl = l->value == PCLR_DOUBLE;
    const int sequential = d && !d->lift, words = (int)(l->size / 4), min = pclr__op_uses(d, "pclr_min"), max = pclr__op_uses(d, "pclr_max");
    char e[4000], lv[8][48];
    int i, k;
    PCLR__GEN_PUTF(g, "/* ---- the operation: %s%s%s ---- */\n", pclr_op_name(c->op), pclr__op_accumulates(c->op) ? ", accumulate " : "",
                   pclr__op_accumulates(c->op) ? pclr_accumulate_name(c->accumulate) : "");
    if (d) PCLR__GEN_PUTF(g, "#define pclr_v %s /* values are computed in this type */\n", pclr__gtype(l->value));
    if (pclr__op_uses(d, "pclr_a")) PCLR__GEN_PUTF(g, "#define pclr_a %s /* sums accumulate in this type (integers wrap) */\n", pclr__gtype(l->sum));
    if (pclr__op_uses(d, "pclr_m")) PCLR__GEN_PUTF(g, "#define pclr_m %s /* mean and M2 are computed in this type */\n", pclr__gtype(l->moment));
    pclr__gen_diff(g, d);
    if (l->count == 1) PCLR__GEN_PUTF(g, "#define pclr_s %s /* the state: one value */\n", pclr__gtype(l->field[0].type));
    else {
        pclr__put(g->w, "struct pclr_s {");
        for (i = 0; i < l->count; ++i) PCLR__GEN_PUTF(g, " %s %s;", pclr__gtype(l->field[i].type), l->field[i].name);
        pclr__put(g->w, " };\n");
    }
    for (i = 0; i < l->count; ++i) snprintf(lv[i], sizeof lv[i], l->count == 1 ? "s" : "s.%s", l->field[i].name);
    PCLR__GEN_PUTF(g, "#define PCLR_STATE_WORDS %du\n", words);
    pclr__put(g->w, "void pclr_store_out(uint at, pclr_s s) {\n");
    for (i = 0; i < l->count; ++i) pclr__gstore_field(g, "outw", "at", (int)(l->offset[i] / 4), lv[i], l->field[i].type);
    pclr__put(g->w, "}\n");
    if (pclr__after_uses(g, "PCLR_STORE_PARTIAL")) {
        pclr__put(g->w, "void pclr_store_partial(uint at, pclr_s s) {\n"); /* the partials, written and read back */
        for (i = 0; i < l->count; ++i) pclr__gstore_field(g, "pw", "at", (int)(l->offset[i] / 4), lv[i], l->field[i].type);
        pclr__put(g->w, "}\n/* a partial another group wrote (pw is coherent) */\npclr_s pclr_partial(uint j) {\n    const uint at = j * PCLR_STATE_WORDS;\n    pclr_s s;\n");
        for (i = 0; i < l->count; ++i) pclr__gload_field(g, "pw", (int)(l->offset[i] / 4), lv[i], l->field[i].type);
        pclr__put(g->w, "    return s;\n}\n");
    }
    if (nan && (min || max))
        PCLR__GEN_PUTF(g, "bool pclr_neg(pclr_v x) { return %s; } /* the sign bit */\n",
                            dbl ? "int(unpackDouble2x32(x).y) < 0" : "floatBitsToInt(x) < 0");
    if (nan && (min || max)) pclr__put(g->w, "/* NaN propagates; -0 orders before +0 */\n");
    if (min) pclr__put(g->w, nan ? "pclr_v pclr_min(pclr_v a, pclr_v b) { return (isnan(a) || a < b || (a == b && pclr_neg(a))) ? a : b; }\n"
                                 : "pclr_v pclr_min(pclr_v a, pclr_v b) { return a < b ? a : b; }\n");
    if (max) pclr__put(g->w, nan ? "pclr_v pclr_max(pclr_v a, pclr_v b) { return (isnan(a) || a > b || (a == b && pclr_neg(b))) ? a : b; }\n"
                                 : "pclr_v pclr_max(pclr_v a, pclr_v b) { return a > b ? a : b; }\n");
    if (pclr__op_uses(d, "pclr_add")) pclr__put(g->w, "pclr_a pclr_add(pclr_a a, pclr_a b) { return a + b; }\n");
    if (pclr__op_uses(d, "pclr_mul")) pclr__put(g->w, "pclr_a pclr_mul(pclr_a a, pclr_a b) { return a * b; }\n");
    if (pclr__op_uses(d, "PCLR_KBN")) pclr__put(g->w, "/* Neumaier's step: s + x, and the rounding error of that addition into c */\n"
                              "void pclr_kbn(inout pclr_a s, inout pclr_a c, pclr_a x) {\n"
                              "    precise pclr_a t = s + x;\n"
                              "    precise pclr_a e = abs(s) >= abs(x) ? (s - t) + x : (x - t) + s;\n"
                              "    c += e;\n"
                              "    s = t;\n"
                              "}\n");
    if (d) pclr__gen_op_fns(g, d, 1, 1);
    else pclr__glsl_map(g, c); /* a reduction's functions and lift */
    /* the fold of one load (one element: pclr__glsl_words) */
    {
        const int at = pclr__fold_takes_index(d);
        const int y = g->map && g->map->y;
        const int wins = sequential && pclr__load_test(g, c, d); /* (an integer arg op: its load's extremes first) */
        if (c->layout != PCLR_LAYOUT_ONE) return; /* (a layout folds one element at a time) */
        if (wins) pclr__gen_load_wins(g, d);
        PCLR__GEN_PUTF(g, "/* Folds one load (its first element at relative index i) into the accumulator%s. */\n"
                          "pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, %suint64_t i) {\n",
                       !sequential ? ", as a small tree" : wins ? ", element by element where it can change it" : ", element by element",
                       y ? "pclr_in_y v2, " : "");
        if (sequential) {
            if (wins) pclr__gen_load_extremes(g, c, d);
            for (k = 0; k < c->vector_width; ++k) {
                char idx[32] = "";
                if (at) snprintf(idx, sizeof idx, ", i + %dul", k);
                pclr__gvalue(g, c, k, e, sizeof e);
                PCLR__GEN_PUTF(g, "    acc = pclr_fold(acc, %s%s);\n", e, idx);
            }
            pclr__put(g->w, "    return acc;\n}\n");
        } else {
            for (k = 0; k < c->vector_width; ++k) {
                pclr__gvalue(g, c, k, e, sizeof e);
                PCLR__GEN_PUTF(g, "    const pclr_s e%d = pclr_lift(%s);\n", k, e);
            }
            PCLR__GEN_PUTF(g, "    return %s(acc, ", g->merge_in);
            pclr__gtree(g, 0, c->vector_width);
            pclr__put(g->w, ");\n}\n");
        }
        PCLR__GEN_PUTF(g, "#define PCLR_FOLD(acc, v, i) (acc) = pclr_foldv((acc), %s, (i))\n", y ? "(v).x, (v).y" : "(v)");
    }
}

/* Level 2: the group's value, valid in work-item 0, from the C dialects' text (GLSL's lds is global: the
   functions take a stand-in, PCLR_LDS_PARAM), but for the shuffle variant's subgroup operations, which
   take any subgroup width. */
static void pclr__glsl_group(pclr__gen *g, const pclr_config *c) {
    const pclr__layout *l = &g->l;
    int i;
    pclr__put(g->w, PCLR__TEXT_LEVEL2 "shared pclr_s lds[PCLR_GROUP];\n");
    if (pclr__after_uses(g, "is_last")) pclr__put(g->w, "shared bool is_last;\n");
    if (pclr__after_uses(g, "pclr_tree_rolled")) pclr__put(g->w, PCLR__TEXT_TREE_ROLLED);
    if (!pclr__after_uses(g, "pclr_group_reduce")) return; /* (a layout's teams and columns reduce in their own trees) */
    if (c->variant == PCLR_VARIANT_NAIVE) {
        pclr__put(g->w, PCLR__TEXT_GROUP_REDUCE PCLR__TEXT_TREE_NAIVE "}\n");
        return;
    }
    if (!pclr__gsubgroup(c)) {
        pclr__put(g->w, PCLR__TEXT_GROUP_REDUCE PCLR__TEXT_TREE_UNROLLED("1") PCLR__TEXT_RETURN_LDS "}\n");
        return;
    }
    pclr__put(g->w, "/* Lane 0 of each subgroup gets the subgroup's value (any subgroup width). */\n"
                    "pclr_s pclr_subgroup_reduce(pclr_s v) {\n");
    if (pclr__gsubgroup_op(g, c)) PCLR__GEN_PUTF(g, "    return %s(v);\n}\n", pclr__gsubgroup_op(g, c));
    else {
        pclr__put(g->w, "    const uint width = min(gl_SubgroupSize, PCLR_GROUP), lane = gl_SubgroupInvocationID;\n"
                        "    for (uint d = width / 2u; d > 0u; d >>= 1) {\n"
                        "        pclr_s o;\n");
        for (i = 0; i < l->count; ++i) {
            char f[48];
            const pclr_type t = l->field[i].type;
            snprintf(f, sizeof f, "%s%s", l->count == 1 ? "" : ".", l->count == 1 ? "" : l->field[i].name);
            if (t == PCLR_DOUBLE) PCLR__GEN_PUTF(g, "        o%s = packDouble2x32(subgroupShuffleDown(unpackDouble2x32(v%s), d));\n", f, f);
            else if (t == PCLR_UINT64) PCLR__GEN_PUTF(g, "        o%s = packUint2x32(subgroupShuffleDown(unpackUint2x32(v%s), d));\n", f, f);
            else if (t == PCLR_INT64) PCLR__GEN_PUTF(g, "        o%s = int64_t(packUint2x32(subgroupShuffleDown(unpackUint2x32(uint64_t(v%s)), d)));\n", f, f);
            else PCLR__GEN_PUTF(g, "        o%s = subgroupShuffleDown(v%s, d);\n", f, f);
        }
        pclr__put(g->w, "        if (lane + d < width) v = pclr_merge(v, o);\n"
                        "    }\n"
                        "    return v;\n"
                        "}\n");
    }
    pclr__put(g->w, PCLR__TEXT_GROUP_REDUCE
                    "    const uint lid = gl_LocalInvocationID.x, m = gl_NumSubgroups;\n"
                    "    acc = pclr_subgroup_reduce(acc);\n"
                    "    if (m == 1u) return acc;\n"
                    "    barrier(); /* lds may still be read by an earlier call */\n"
                    "    if (gl_SubgroupInvocationID == 0u) lds[gl_SubgroupID] = acc;\n"
                    "    barrier();\n"
                    "    if (m <= gl_SubgroupSize) { /* one more subgroup step */\n"
                    "        if (gl_SubgroupID == 0u) acc = pclr_subgroup_reduce(lid < m ? lds[lid] : pclr_identity());\n"
                    "        return acc;\n"
                    "    }\n"
                    "    for (uint s = m / 2u; s > 0u; s >>= 1) { /* narrow subgroups: a tree over their values */\n"
                    "        if (lid < s) lds[lid] = pclr_merge(lds[lid], lds[lid + s]);\n"
                    "        barrier();\n"
                    "    }\n"
                    "    return lds[0];\n"
                    "}\n");
}

/* GLSL's names for what the kernels' one text reads (the C dialects get them from their preludes and
   ops), over the GLSL op: the fence, PCLR_IDENTITY and PCLR_PARTIAL; pclr_t, what pclr_x reads (the
   op's value, or the map's input: pclr__gelem); PCLR_FOLD1, which folds one element (a map's y read
   beside it, at q + i; columns: q + i * pitch). Each where the text reads it. */
static void pclr__glsl_words(pclr__gen *g, const pclr_config *c) {
    const int y = g->map && g->map->y, at = pclr__fold_takes_index(pclr__op_def_of(c->op, c->accumulate, g->l.value));
    const int fold1 = pclr__after_uses(g, "PCLR_FOLD1");
    char e[1700];
    int k;
    static const char *const words[][2] = {
        {"PCLR_DEVICE_FENCE", "#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()\n"},
        {"PCLR_PARTIAL", "#define PCLR_PARTIAL(vp, j) pclr_partial(uint(j))\n"},
        {"pclr_ticket", "/* The ticket: the fence releases this group's partial before it. */\n"
                        "uint pclr_ticket() { memoryBarrierBuffer(); return atomicAdd(counter, 1u); }\n"}};
    for (k = 0; k < (int)(sizeof words / sizeof words[0]); ++k)
        if (pclr__after_uses(g, words[k][0])) pclr__put(g->w, words[k][1]);
    for (k = 0; k <= y; ++k) { /* pclr_t and pclr_x; a map's y: pclr_t2 and pclr_y */
        const pclr_type t = k ? g->map->y : c->type;
        const int comps = g->map ? g->map->comps : 1;
        const pclr_type pt = pclr__mpromote(t);
        const char *pre = pt == PCLR_FLOAT ? "" : pt == PCLR_DOUBLE ? "d" : pt == PCLR_INT ? "i" : pt == PCLR_UINT ? "u" : pt == PCLR_INT64 ? "i64" : "u64";
        if (!fold1 && !pclr__after_uses(g, k ? "pclr_t2" : "pclr_t") && (k || !pclr__after_uses(g, "PCLR_X"))) continue;
        if (!g->map) pclr__put(g->w, "#define pclr_t pclr_v /* an element's value */\n");
        else if (comps == 1) PCLR__GEN_PUTF(g, "#define pclr_t%s %s /* the map's input */\n", k ? "2" : "", pclr__mtname(pt, PCLR__ML_GLSL));
        else PCLR__GEN_PUTF(g, "#define pclr_t%s %svec%d /* the map's input */\n", k ? "2" : "", pre, comps);
        pclr__gelem(g, c, k, -1, "e", e, sizeof e);
        PCLR__GEN_PUTF(g, "pclr_t%s pclr_%s(uint64_t e) { return %s; }\n", k ? "2" : "", k ? "y" : "x", e);
    }
    if (!fold1) return;
    PCLR__GEN_PUTF(g, "pclr_s pclr_fold_one(pclr_s acc, pclr_t x, %suint64_t i) {\n    const %s v = ", y ? "pclr_t2 y, " : "",
                   g->map && g->map->fields ? "pclr_s" : "pclr_v"); /* (a reduction's map lifts: a state) */
    if (!g->map) pclr__put(g->w, "x;\n");
    else {
        PCLR__GEN_PUTF(g, "%spclr_map(x, %si", g->map->fields ? "" : "pclr_v(", y ? "y, " : "");
        for (k = 0; k < g->map->params; ++k) PCLR__GEN_PUTF(g, ", args.p%d", k);
        pclr__put(g->w, g->map->fields ? ");\n" : "));\n");
    }
    if (pclr__folds_each(c)) PCLR__GEN_PUTF(g, "    return pclr_fold(acc, v%s);\n}\n", at ? ", i" : "");
    else PCLR__GEN_PUTF(g, "    return %s(acc, pclr_lift(v));\n}\n", g->merge_in);
    if (!y) pclr__put(g->w, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))\n");
    else PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), pclr_y(q + %s), (i))\n",
                        c->layout == PCLR_LAYOUT_COLUMNS ? "(i) * pitch" : "(i)");
}

static void pclr__gen_layout(pclr__gen *g, const pclr_config *c); /* (the layouts section) */

/* The map's function in GLSL, or a reduction's functions and lift (after its state). */
static void pclr__glsl_map(pclr__gen *g, const pclr_config *c) {
    pclr__memit E;
    int k;
    E.w = g->w;
    E.t = g->map;
    E.lang = PCLR__ML_GLSL;
    E.keep = 0; /* pclr_keep is NVIDIA PTX (CUDA, OpenCL); GLSL has no inline assembly */
    E.zero = E.zeros = 0;
    E.used = NULL;
    if (!g->map->fields) PCLR__GEN_PUTF(g, "/* ---- the map: %s ---- */\n", c->map && c->map[0] ? c->map : "x");
    for (k = 0; k < g->map->count; ++k) E.zero |= pclr__mzero_lit(&g->map->node[k]);
    if (E.zero) { /* a dry run: pclr_zero only where a zero literal is written as a float (integer zeros stay 0) */
        pclr__writer dry;
        dry.buf = NULL; dry.cap = 0; dry.len = 0;
        E.w = &dry;
        if (g->map->fields) pclr__mreduction(&E);
        else pclr__mfunction(&E);
        E.w = g->w;
        E.zero = E.zeros > 0;
    }
    if (E.zero) /* (the kernel is dispatched as groups x 1 x 1) */
        pclr__put(g->w, "#define pclr_zero uintBitsToFloat(gl_NumWorkGroups.y - 1u) /* +0 unknown to the compiler (pclr__mzero) */\n");
    if (!g->map->fields) {
        pclr__mfunction(&E);
        return;
    }
    pclr__mreduction(&E);
    pclr__put(g->w, "#define pclr_lift(s) (s) /* (pclr_map lifted it) */\n");
}

/* A GLSL kernel after its prelude's head and words. */
static void pclr__gen_glsl(pclr__gen *g, const pclr_config *c) {
    pclr__glsl_prelude(g, c);
    if (g->map && !g->map->fields) pclr__glsl_map(g, c); /* (a reduction's comes with its state: pclr__glsl_ops) */
    if (c->accumulate == PCLR_EXACT) { /* the exact kernel, in GLSL's words */
        pclr__gen_exact(g, c);
        return;
    }
    if (c->op == PCLR_HISTOGRAM) {
        pclr__gen_hist(g, c);
        return;
    }
    { /* the kernel's one text, written first: the GLSL pieces it reads go before it */
        char *text = pclr__gen_scratch(g, c, c->layout != PCLR_LAYOUT_ONE ? pclr__gen_layout : pclr__gen_kernel);
        if (!text) return;
        g->after = text;
        pclr__glsl_ops(g, c);
        pclr__glsl_group(g, c);
        pclr__glsl_words(g, c);
        pclr__put(g->w, text);
        g->after = NULL;
        free(text);
    }
}

/* ------------------------------------------------------------ layouts  >>layouts
   Rows, columns and segments: one kernel reduces many rows (docs/layouts.md).
   The op's pieces (PCLR_FOLD1, pclr_merge, the group and wave reductions) are the single reduction's; these kernels only walk
   the layout. Rows and segments: a team of PCLR_LANES work-items per row
   (several rows per team in flight when rows are short), or the whole group
   per row with `split` groups sharing a long row, whose last group folds their
   partials in order. Columns: a group holds PCLR_TILE neighbouring columns
   (a row's elements are read side by side) and PCLR_LANES work-items down
   each, `split` groups sharing a tile the same way. */
PCLR__FN pclr_result pclr__plan_layout(const pclr_config *c, const pclr_device_facts *dev, uint64_t n, pclr_launch *out);
static void pclr__layout_program(const pclr_config *shape, const pclr_launch *plan, pclr_config *kernel);

/* Short rows go through local memory on GPUs: a team per row reading global
   memory spends a dozen instructions of row bookkeeping per element and
   cannot keep the memory busy. Rows up to PCLR__STAGE_PITCH elements
   apart, one input, scalar elements (cfg resolved; lanes: the team's). A staged
   program serves every such shape: its config keeps pitch =
   PCLR__STAGE_PITCH (see pclr__engine_batch). */
#define PCLR__STAGE_PITCH 64
/* Columns of at most this many rows, one column per work-item (lanes 1): four tiles per
   work-item with every load in flight (pclr__gen_layout), in a program of their own per
   power of two of rows (its config keeps rows = that power: see pclr__engine_batch). In the
   one columns program a bound of 8 cost the others registers: 2 rows 66 -> 52 % of the read
   kernel, 16 rows 83 -> 76 % (H100, bench/results/h100-cuda/rows_few8.log). */
#define PCLR__FEW_ROWS 8
static int pclr__rows_staged(const pclr_config *c, int lanes) {
    return c->layout == PCLR_LAYOUT_ROWS && c->stride == PCLR_STRIDE_GLOBAL && c->pitch >= 1 && c->pitch <= PCLR__STAGE_PITCH &&
           c->y_type == PCLR_TYPE_DEFAULT && c->components <= 1 && lanes < c->group_size;
}

#ifndef PCLREDUCE_NO_LAYOUTS /* the layout kernels (docs/usage.md "Leaving features out") */
/* The layout kernels are one text for OpenCL C, CUDA C and GLSL (issue 32): where the dialects
   differ, the text names a spelling, which each dialect's prelude of the layout defines.
   W(spelling, OpenCL C, CUDA C, GLSL); a value begins with its space. Inputs are read through
   cursors: a pointer in C, an element index in GLSL (whose inputs are arrays of words). */

#define PCLR__TEXT_LAYOUT_ARGS \
"/* ---- the kernel ---- */\n" \
"PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,\n" \
"                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,\n" \
"                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,\n" \
"                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */"

/* The kernel's opening: its local memory (lds, and is_last and stage when asked) and its arguments. C: the
   entry point with its arguments, the declarations inside. GLSL: shared memory is declared at global scope
   (lds and is_last are pclr__glsl_group's already), then main, whose first constants are the arguments
   (the push constants'). */
static void pclr__layout_open(pclr__gen *g, const pclr_config *c, int is_last, int stage) {
    if (c->backend == PCLR_VULKAN) {
        if (stage) pclr__put(g->w, "PCLR_SHARED pclr_t stage[PCLR_PAD(PCLR_STAGE)];\n");
        pclr__put(g->w, "/* ---- the kernel ---- */\n"
                        "void main() {\n"
                        "    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;\n"
                        "    const uint64_t pitch = args.pitch, split = args.split;\n");
        return;
    }
    pclr__gen_kernel_open(g, PCLR__TEXT_LAYOUT_ARGS);
    if (stage) pclr__put(g->w, "    PCLR_SHARED pclr_t stage[PCLR_PAD(PCLR_STAGE)];\n");
    pclr__put(g->w, "    PCLR_SHARED pclr_s lds[PCLR_GROUP];\n");
    if (is_last) pclr__put(g->w, "    PCLR_SHARED uint is_last;\n");
}

/* A walk over [start, end) in steps of step, PCLR_UNROLL loads in flight; at: the element at index %s. */
/* at, an element's load with "%s" where its index goes, for the index text (no format string of the caller's) */
static void pclr__gen_at(char *out, size_t cap, const char *at, const char *index) {
    const char *hole = strstr(at, "%s");
    size_t len = 0;
    pclr__appendf(out, cap, &len, "%.*s", hole ? (int)(hole - at) : (int)strlen(at), at);
    if (hole) pclr__appendf(out, cap, &len, "%s%s", index, hole + 2);
}

static void pclr__gen_walk(pclr__gen *g, int unroll, const char *ind, const char *acc, const char *start, const char *end, const char *step,
                           const char *at) {
    char a[160], b[160];
    snprintf(a, sizeof a, "j + u * %s", step);
    pclr__gen_at(b, sizeof b, at, a);
    PCLR__GEN_PUTF(g, "%spclr_u64 j = %s;\n"
                      "%sfor (; j + (PCLR_UNROLL - 1) * %s < %s; j += PCLR_UNROLL * %s) {\n"
                      "%s    pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */\n"
                      "#pragma unroll\n"
                      "%s    for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = %s;\n"
                      "#pragma unroll\n"
                      "%s    for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(%s, w[u], j + u * %s);\n"
                      "%s}\n",
                   ind, start, ind, step, end, step, ind, ind, b, ind, acc, step, ind);
    if (unroll == 1) {
        pclr__gen_at(a, sizeof a, at, "j");
        PCLR__GEN_PUTF(g, "%sfor (; j < %s; j += %s) PCLR_FOLD1(%s, %s, j);\n", ind, end, step, acc, a);
        return;
    }
    /* the last, partial round: its loads all in flight too (a column of 2 rows would
       otherwise wait for one load after the other), clamped and folded under a guard */
    snprintf(a, sizeof a, "(j + u * %s < %s ? j + u * %s : j)", step, end, step);
    pclr__gen_at(b, sizeof b, at, a);
    PCLR__GEN_PUTF(g, "%sif (j < %s) {\n"
                      "%s    pclr_t w[PCLR_UNROLL - 1];\n"
                      "#pragma unroll\n"
                      "%s    for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = %s;\n"
                      "#pragma unroll\n"
                      "%s    for (uint u = 0; u < PCLR_UNROLL - 1; ++u)\n"
                      "%s        if (j + u * %s < %s) PCLR_FOLD1(%s, w[u], j + u * %s);\n"
                      "%s}\n",
                   ind, end, ind, ind, b, ind, ind, step, end, acc, step, ind);
}

/* The last group of a row or tile folds the partials of its `split` groups:
   work-item `from` of `step` folds partials from, from + step, ... in order,
   and a fixed tree joins them (deterministic; in parallel, so that a few
   hundred partials cost a few L2 round trips, not hundreds). */
#define PCLR__TEXT_FOLD_PARTIALS \
"PCLR_FN pclr_s pclr_fold_partials(PCLR_STATES_PARAM, pclr_u64 first, pclr_u64 split, uint from, uint step) {\n" \
"    PCLR_STATES_VIEW vp = partials; /* written by other groups */\n" \
"    pclr_s s = PCLR_IDENTITY;\n" \
"    for (pclr_u64 k = from; k < split; k += step) s = pclr_merge(s, PCLR_PARTIAL(vp, first + k));\n" \
"    return s;\n" \
"}\n"

/* Who folds a shared row's or tile's partials: on GPUs the group (or a
   column's lanes), in parallel; on CPUs (PCLR_FOLD_IN_ONE, which the
   OpenCL backend defines there: a few partials) one work-item, right after
   its ticket: PoCL 3.1 miscompiles the group fold inside the task loop
   (the partials stored before the ticket's barrier come out garbage). */
#define PCLR__TEXT_COLUMN_FOLD \
"#ifdef PCLR_FOLD_IN_ONE\n" \
"            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, pclr_fold_partials(PCLR_STATES_ARG, col * split, split, 0, 1));\n" \
"#else\n" \
"            acc = col < cols ? pclr_fold_partials(PCLR_STATES_ARG, col * split, split, lane, PCLR_LANES) : PCLR_IDENTITY;\n" \
"            acc = pclr_down_column(acc, PCLR_LDS_ARG);\n" \
"            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, acc);\n" \
"#endif\n"
#define PCLR__TEXT_ROW_FOLD \
"#ifdef PCLR_FOLD_IN_ONE\n" \
"                if (is_last) {\n" \
"                    PCLR_DEVICE_FENCE(); /* acquire */\n" \
"                    PCLR_STORE_OUT(r, pclr_fold_partials(PCLR_STATES_ARG, r * split, split, 0, 1));\n" \
"                    PCLR_CTL(1 + r) = 0u;\n" \
"                }\n" \
"            }\n" \
"#else\n" \
"                if (is_last) PCLR_DEVICE_FENCE(); /* acquire */\n" \
"            }\n" \
"            PCLR_BARRIER();\n" \
"            if (is_last) { /* (uniform: is_last is the group's) */\n" \
"                PCLR_DEVICE_FENCE();\n" \
"                acc = pclr_group_reduce(pclr_fold_partials(PCLR_STATES_ARG, r * split, split, lid, PCLR_GROUP), PCLR_LDS_ARG);\n" \
"                if (lid == 0) {\n" \
"                    PCLR_STORE_OUT(r, acc);\n" \
"                    PCLR_CTL(1 + r) = 0u;\n" \
"                }\n" \
"            }\n" \
"#endif\n"

/* Elements of a staged tile per work-item: 16 KiB of tile, 1 to 16 each. GLSL: 8 KiB (Vulkan promises 16 KiB
   of shared memory, lds beside it) of elements of 4 bytes at least (pclr_t: a value). */
static int pclr__stage_per(const pclr_config *c) {
    const int vk = c->backend == PCLR_VULKAN, es = (int)pclr_type_size(c->type);
    const int per = (vk ? 8192 : 16384) / (c->group_size * (vk && es < 4 ? 4 : es));
    return per < 1 ? 1 : per > 16 ? 16 : per;
}

/* PCLR_ROW_BOUNDS(r, lo, len): where result r's elements start and how many (braces, not do-while (0): GLSL's
   conditions are bool); a column's are pitch apart. */
static void pclr__gen_row_bounds(pclr__gen *g, pclr_layout layout) {
    if (layout == PCLR_LAYOUT_SEGMENTS)
        pclr__put(g->w, "/* Segment r is [offsets[r], offsets[r + 1]). The offsets are in device memory, so they are checked\n"
                        "   here: a decreasing pair or an end past n makes the segment empty and sets ctl[0]. */\n"
                        "#define PCLR_ROW_BOUNDS(r, lo, len) { const pclr_u64 a_ = PCLR_OFFSET(r), b_ = PCLR_OFFSET((r) + 1); \\\n"
                        "    if (b_ < a_ || b_ > n) { PCLR_CTL(0) = 1u; (lo) = 0; (len) = 0; } else { (lo) = a_; (len) = b_ - a_; } }\n");
    else if (layout == PCLR_LAYOUT_COLUMNS)
        pclr__put(g->w, "/* Column r: rows elements from element r, pitch apart. */\n"
                        "#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r); (len) = rows; }\n");
    else
        pclr__put(g->w, "/* Row r: cols elements from element r * pitch. */\n"
                        "#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r) * pitch; (len) = cols; }\n");
}

/* The layout's kernel: one text for every dialect over the dialect's spellings (PCLR__TEXT_WORDS). */
static void pclr__gen_layout(pclr__gen *g, const pclr_config *c) {
    const int y = g->map && g->map->y, glsl = c->backend == PCLR_VULKAN;
    PCLR__GEN_PUTF(g, "/* ---- the layout: %s, %d work-item%s %s ---- */\n", pclr_layout_name(c->layout),
                   c->lanes, c->lanes > 1 ? "s" : "", c->layout == PCLR_LAYOUT_COLUMNS ? "down each column" : "per row");
    if (c->layout == PCLR_LAYOUT_COLUMNS || c->lanes < c->group_size) PCLR__GEN_PUTF(g, "#define PCLR_LANES %d\n", c->lanes);
    if (pclr__gen_reads_partials(c, g->l.size)) pclr__put(g->w, PCLR__TEXT_FOLD_PARTIALS); /* split rows and tiles */
    if (c->layout == PCLR_LAYOUT_COLUMNS) {
        pclr__put(g->w, "#define PCLR_TILE (PCLR_GROUP / PCLR_LANES) /* neighbouring columns: a row's elements are read side by side */\n");
        if (c->lanes == 1 && !y && c->rows) /* the few-rows program (pclr__cols_few) */
            PCLR__GEN_PUTF(g, "#define PCLR_FEW_ROWS %d /* rows the few-rows path takes */\n", (int)c->rows);
        if (c->lanes > 1)
            pclr__put(g->w, "/* down a column: its lanes' values in a tree through local memory; lane 0 gets the column's */\n"
                            "PCLR_FN pclr_s pclr_down_column(pclr_s acc, PCLR_LDS_PARAM) {\n"
                            "    const uint lid = PCLR_LID, lane = lid / PCLR_TILE;\n"
                            "    PCLR_BARRIER(); /* lds may still be read by an earlier call */\n"
                            "    lds[lid] = acc;\n"
                            "    PCLR_BARRIER();\n"
                            "#pragma unroll 1\n"
                            "    for (uint s = PCLR_LANES / 2; s > 0; s >>= 1) {\n"
                            "        if (lane < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s * PCLR_TILE]);\n"
                            "        PCLR_BARRIER();\n"
                            "    }\n"
                            "    return acc;\n"
                            "}\n");
        else pclr__put(g->w, "#define pclr_down_column(acc, lds) (acc) /* one lane per column */\n");
        pclr__layout_open(g, c, 1, 0);
        pclr__put(g->w, "    const uint lid = PCLR_LID, c_in = lid % PCLR_TILE, lane = lid / PCLR_TILE;\n"
                        "    const pclr_u64 groups = PCLR_NUM_GROUPS, tiles = (cols + PCLR_TILE - 1) / PCLR_TILE;\n"
                        "    PCLR_UNUSED(offsets); PCLR_UNUSED(n); PCLR_UNUSED(lds);\n");
        if (c->lanes == 1 && !y && c->rows) /* (pclr__plan_layout launches tiles / 4 groups for it) */
            pclr__put(g->w,
                "    if (split == 1 && rows <= PCLR_FEW_ROWS) {\n"
                "        /* A few rows: each work-item takes a column of 4 tiles, all their loads in flight\n"
                "           (a column at a time would wait for one or two loads, then write). */\n"
                "        for (pclr_u64 task = PCLR_GROUP_ID; task < tiles; task += 4 * groups) {\n"
                "            pclr_t w[4][PCLR_FEW_ROWS];\n"
                "#pragma unroll\n"
                "            for (uint k = 0; k < 4; ++k)\n"
                "#pragma unroll\n"
                "                for (uint r = 0; r < PCLR_FEW_ROWS; ++r) {\n"
                "                    const pclr_u64 col = (task + k * groups) * PCLR_TILE + c_in;\n"
                "                    if (col < cols && r < rows) w[k][r] = PCLR_X(offset + r * pitch + col);\n"
                "                }\n"
                "#pragma unroll\n"
                "            for (uint k = 0; k < 4; ++k) {\n"
                "                const pclr_u64 col = (task + k * groups) * PCLR_TILE + c_in;\n"
                "                pclr_s acc = PCLR_IDENTITY;\n"
                "#pragma unroll\n"
                "                for (uint r = 0; r < PCLR_FEW_ROWS; ++r)\n"
                "                    if (r < rows) PCLR_FOLD1(acc, w[k][r], PCLR_CAST(pclr_u64, r));\n"
                "                if (col < cols) PCLR_STORE_OUT(col, acc);\n"
                "            }\n"
                "        }\n"
                "        return;\n"
                "    }\n");
        pclr__put(g->w, "    for (pclr_u64 task = PCLR_GROUP_ID; task < tiles * split; task += groups) {\n"
                        "        /* split groups share a tile: each folds a contiguous band of rows */\n"
                        "        const pclr_u64 tile = task / split, part = task % split, col = tile * PCLR_TILE + c_in;\n"
                        "        const pclr_u64 band = (rows + split - 1) / split;\n"
                        "        const pclr_u64 b = part * band < rows ? part * band : rows, e = b + band < rows ? b + band : rows;\n"
                        "        pclr_s acc = PCLR_IDENTITY;\n"
                        "        if (col < cols) {\n"
                        "            PCLR_XREF p = PCLR_XAT(offset + col);\n");
        if (y) pclr__put(g->w, "            PCLR_YREF q = PCLR_YAT(offset2 + col);\n");
        pclr__gen_walk(g, c->unroll, "            ", "acc", "b + lane", "e", "PCLR_LANES", "PCLR_LD(p, (%s) * pitch)");
        pclr__put(g->w, "        }\n");
        pclr__put(g->w, "        acc = pclr_down_column(acc, PCLR_LDS_ARG);\n");
        pclr__put(g->w, "        if (split == 1) {\n"
                        "            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, acc);\n"
                        "            continue;\n"
                        "        }\n"
                        "        /* the last of the tile's groups folds their partials in order (deterministic) */\n"
                        "        if (lane == 0 && col < cols) PCLR_STORE_PARTIAL(col * split + part, acc);\n"
                        "        PCLR_DEVICE_FENCE(); /* release: the partials before the ticket */\n"
                        "        PCLR_BARRIER();\n"
                        "        if (lid == 0) {\n"
                        "            is_last = PCLR_TICKET(tile) == split - 1;\n"
                        "            if (is_last) PCLR_DEVICE_FENCE(); /* acquire */\n"
                        "        }\n"
                        "        PCLR_BARRIER();\n"
                        "        if (is_last) { /* (uniform: is_last is the group's) */\n"
                        "            PCLR_DEVICE_FENCE();\n"
                        PCLR__TEXT_COLUMN_FOLD
                        "            if (lid == 0) PCLR_CTL(1 + tile) = 0u;\n"
                        "        }\n"
                        "        PCLR_BARRIER(); /* is_last is read before the next task sets it */\n"
                        "    }\n"
                        "}\n");
        return;
    }
    if (!pclr__gen_staged(c)) pclr__gen_row_bounds(g, c->layout); /* (a staged tile holds whole rows cols apart) */
    if (c->lanes < c->group_size) { /* teams of PCLR_LANES work-items, PCLR_UNROLL rows each per step */
        if (c->lanes == 1) pclr__put(g->w, "#define pclr_team_reduce(acc, lds) (acc) /* a row per work-item */\n");
        else if (c->variant == PCLR_VARIANT_SHUFFLE && c->lanes <= c->wave_width && !glsl) /* (GLSL: the subgroup's width is not known here) */
            pclr__put(g->w, "/* a team is an aligned part of a wave: its lane 0 gets the team's value */\n"
                            "#define pclr_team_reduce(acc, lds) pclr_wave_reduce((acc), PCLR_LANES)\n");
        else
            pclr__put(g->w, "/* a team's values in a tree through local memory; its lane 0 gets the result */\n"
                            "PCLR_FN pclr_s pclr_team_reduce(pclr_s acc, PCLR_LDS_PARAM) {\n"
                            "    const uint lid = PCLR_LID, lane = lid % PCLR_LANES;\n"
                            "    PCLR_BARRIER(); /* lds may still be read by an earlier call */\n"
                            "    lds[lid] = acc;\n"
                            "    PCLR_BARRIER();\n"
                            "#pragma unroll 1\n"
                            "    for (uint s = PCLR_LANES / 2; s > 0; s >>= 1) {\n"
                            "        if (lane < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);\n"
                            "        PCLR_BARRIER();\n"
                            "    }\n"
                            "    return acc;\n"
                            "}\n");
        if (pclr__rows_staged(c, c->lanes)) {
            PCLR__GEN_PUTF(g, "#define PCLR_STAGE_PER %d /* elements of a tile per work-item */\n"
                              "#define PCLR_STAGE (PCLR_GROUP * PCLR_STAGE_PER)\n"
                              "#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)\n"
                              "/* a word of padding after every 32: rows read side by side fall in different banks */\n"
                              "#define PCLR_PAD(i) ((i) + ((i) >> 5))\n", pclr__stage_per(c));
            pclr__layout_open(g, c, 0, 1);
            pclr__put(g->w,
                "    /* Short rows: the group loads a tile of whole rows (coalesced, every load in flight)\n"
                "       into local memory; then a team of PCLR_LANES work-items folds each row there. */\n"
                "    const uint lid = PCLR_LID, lane = lid % PCLR_LANES, team = lid / PCLR_LANES;\n"
                "    const uint tile_rows = PCLR_STAGE / PCLR_CAST(uint, pitch); /* the host keeps 1 <= cols <= pitch <= PCLR_STAGE */\n"
                "    const pclr_u64 groups = PCLR_NUM_GROUPS, tiles = (rows + tile_rows - 1) / tile_rows;\n"
                "    PCLR_UNUSED(lds); PCLR_UNUSED(partials); PCLR_UNUSED(ctl); PCLR_UNUSED(split); PCLR_UNUSED(offsets); PCLR_UNUSED(n);\n"
                "    for (pclr_u64 tile = PCLR_GROUP_ID; tile < tiles; tile += groups) {\n"
                "        const pclr_u64 first = tile * tile_rows;\n"
                "        const uint nr = rows - first < tile_rows ? PCLR_CAST(uint, rows - first) : tile_rows;\n"
                "        const uint span = (nr - 1) * PCLR_CAST(uint, pitch) + PCLR_CAST(uint, cols); /* the last row's padding may lie past the end */\n"
                "        PCLR_XREF p = PCLR_XAT(offset + first * pitch);\n"
                "        pclr_t w[PCLR_STAGE_PER];\n"
                "#pragma unroll\n"
                "        for (uint u = 0; u < PCLR_STAGE_PER; ++u)\n"
                "            if (lid + u * PCLR_GROUP < span) w[u] = PCLR_LD(p, lid + u * PCLR_GROUP);\n"
                "        PCLR_BARRIER(); /* the last tile's rows are folded */\n"
                "#pragma unroll\n"
                "        for (uint u = 0; u < PCLR_STAGE_PER; ++u)\n"
                "            if (lid + u * PCLR_GROUP < span) stage[PCLR_PAD(lid + u * PCLR_GROUP)] = w[u];\n"
                "        PCLR_BARRIER();\n"
                "        for (uint r0 = 0; r0 < nr; r0 += PCLR_TEAMS) { /* (uniform: whole teams and waves take part) */\n"
                "            const uint r = r0 + team;\n"
                "            pclr_s acc = PCLR_IDENTITY;\n"
                "            if (r < nr)\n"
                "                for (uint j = lane; j < PCLR_CAST(uint, cols); j += PCLR_LANES) PCLR_FOLD1(acc, stage[PCLR_PAD(r * PCLR_CAST(uint, pitch) + j)], j);\n"
                "            acc = pclr_team_reduce(acc, PCLR_LDS_ARG);\n"
                "            if (lane == 0 && r < nr) PCLR_STORE_OUT(first + r, acc);\n"
                "        }\n"
                "    }\n"
                "}\n");
            return;
        }
        pclr__layout_open(g, c, 0, 0);
        pclr__put(g->w, "#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)\n"
                        "    const uint lid = PCLR_LID, lane = lid % PCLR_LANES, team = lid / PCLR_LANES;\n"
                        "    const pclr_u64 groups = PCLR_NUM_GROUPS;\n"
                        "    PCLR_XREF x = PCLR_XAT(offset);\n"
                        "    PCLR_UNUSED(lds); PCLR_UNUSED(partials); PCLR_UNUSED(ctl); PCLR_UNUSED(split); PCLR_UNUSED(pitch); PCLR_UNUSED(cols);\n"
                        "    PCLR_UNUSED(offsets); PCLR_UNUSED(n);\n");
        if (y) pclr__put(g->w, "    PCLR_YREF y = PCLR_YAT(offset2);\n");
        PCLR__GEN_PUTF(g,
            "    /* a step: PCLR_UNROLL rows per team, neighbouring teams on neighbouring rows */\n"
            "    for (pclr_u64 first = PCLR_GROUP_ID * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL; first < rows;\n"
            "         first += groups * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL) {\n"
            "        pclr_s acc[PCLR_UNROLL];\n"
            "        pclr_u64 lo[PCLR_UNROLL], len[PCLR_UNROLL];\n"
            "        pclr_t v[PCLR_UNROLL];\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) {\n"
            "            const pclr_u64 r = first + k * PCLR_TEAMS + team;\n"
            "            acc[k] = PCLR_IDENTITY;\n"
            "            lo[k] = len[k] = 0;\n"
            "            if (r < rows) PCLR_ROW_BOUNDS(r, lo[k], len[k]);\n"
            "        }\n"
            "        /* each lane's first element of every row: the loads of short rows all in flight */\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k)\n"
            "            if (lane < len[k]) v[k] = PCLR_LD(x, lo[k] + lane);\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k)\n"
            "            if (lane < len[k]) {\n"
            "%s"
            "                PCLR_FOLD1(acc[k], v[k], PCLR_CAST(pclr_u64, lane));\n"
            "            }\n"
            "        /* the rest of longer rows */\n"
            "#pragma unroll\n"
            "        for (uint k = 0; k < PCLR_UNROLL; ++k) {\n"
            "            PCLR_XREF p = x + lo[k];\n", y ? "                PCLR_YREF q = y + lo[k];\n" : "");
        if (y) pclr__put(g->w, "            PCLR_YREF q = y + lo[k];\n");
        pclr__gen_walk(g, c->unroll, "            ", "acc[k]", "lane + PCLR_LANES", "len[k]", "PCLR_LANES", "PCLR_LD(p, %s)");
        pclr__put(g->w, "        }\n"
                        "#pragma unroll\n"
                        "        for (uint k = 0; k < PCLR_UNROLL; ++k) {\n"
                        "            const pclr_s s = pclr_team_reduce(acc[k], PCLR_LDS_ARG);\n"
                        "            const pclr_u64 r = first + k * PCLR_TEAMS + team;\n"
                        "            if (lane == 0 && r < rows) PCLR_STORE_OUT(r, s);\n"
                        "        }\n"
                        "    }\n"
                        "}\n");
        return;
    }
    /* a group per row; split groups share a long row */
    pclr__layout_open(g, c, 1, 0);
    pclr__put(g->w, "    const uint lid = PCLR_LID;\n"
                    "    const pclr_u64 groups = PCLR_NUM_GROUPS;\n"
                    "    PCLR_UNUSED(pitch); PCLR_UNUSED(cols); PCLR_UNUSED(offsets); PCLR_UNUSED(n);\n"
                    "    for (pclr_u64 task = PCLR_GROUP_ID; task < rows * split; task += groups) {\n"
                    "        const pclr_u64 r = task / split, part = task % split;\n"
                    "        pclr_u64 lo = 0, len = 0;\n"
                    "        PCLR_ROW_BOUNDS(r, lo, len);\n"
                    "        /* split groups share the row: each folds a contiguous chunk */\n"
                    "        const pclr_u64 chunk = (len + split - 1) / split;\n"
                    "        const pclr_u64 b = part * chunk < len ? part * chunk : len, e = b + chunk < len ? b + chunk : len;\n"
                    "        PCLR_XREF p = PCLR_XAT(offset + lo);\n");
    if (y) pclr__put(g->w, "        PCLR_YREF q = PCLR_YAT(offset2 + lo);\n");
    pclr__put(g->w, "        pclr_s acc = PCLR_IDENTITY;\n");
    pclr__gen_walk(g, c->unroll, "        ", "acc", "b + lid", "e", "PCLR_GROUP", "PCLR_LD(p, %s)");
    pclr__put(g->w, "        acc = pclr_group_reduce(acc, PCLR_LDS_ARG);\n"
                    "        if (split == 1) {\n"
                    "            if (lid == 0) PCLR_STORE_OUT(r, acc);\n"
                    "        } else {\n"
                    "            /* the last of the row's groups folds their partials (deterministic) */\n"
                    "            if (lid == 0) {\n"
                    "                PCLR_STORE_PARTIAL(task, acc);\n"
                    "                PCLR_DEVICE_FENCE(); /* release: the partial before the ticket */\n"
                    "                is_last = PCLR_TICKET(r) == split - 1;\n"
                    PCLR__TEXT_ROW_FOLD
                    "            PCLR_BARRIER(); /* is_last is read before the next task sets it */\n"
                    "        }\n"
                    "    }\n"
                    "}\n");
}
/* A histogram per row, column or segment: a group takes one at a time (the planner launches at most one
   group per result), zeroes its counts in local memory (above PCLR__HIST_LOCAL_BINS: in the result's state,
   counted there with global atomics), walks the elements (PCLR_UNROLL loads in flight, PCLR_GROUP apart) and
   writes the counts into the result's state; no launch-wide counts, no ticket. */
static void pclr__gen_hist_layout(pclr__gen *g, const pclr_config *c) {
    const int glsl = g->glsl, y = g->map->y != PCLR_TYPE_DEFAULT, seg = c->layout == PCLR_LAYOUT_SEGMENTS, cols = c->layout == PCLR_LAYOUT_COLUMNS;
    const int wt = c->weighted, local = c->bins <= PCLR__HIST_LOCAL_BINS;
    char e[1800], w[1800];
    int k;
    PCLR__GEN_PUTF(g, "#define PCLR_STATE_WORDS %uu /* a result's state */\n", 12u + 2u * c->bins + (wt ? PCLR__HIST_WORDS * (c->bins + 3u) : 0u));
    if (wt) pclr__gen_hist_weights(g, 0, 0); /* (PCLR_WEIGH counts too) */
    PCLR__GEN_PUTF(g, "#define PCLR_OUT(j) %s\n", glsl ? "outw[args.out_at + uint(base) + (j)]" : "out[base + (j)]");
    if (!local)
        PCLR__GEN_PUTF(g, "/* more bins than local memory holds: each value counts straight into its result's state, a low and a high word\n"
                          "   (the group's own: one group a result at a time), zeroed first, visible to the group's atomics */\n"
                          "#define PCLR_OUT_ADD(j, c) %s\n"
                          "#define PCLR_COUNT(v) PCLR_ADD_COUNT(PCLR_OUT_ADD, PCLR_AT(PCLR_BIN(v)), 1u)\n"
                          "#define PCLR_OUT_BARRIER() %s\n",
                       glsl ? "atomicAdd(PCLR_OUT(j), (c))" : g->cuda ? "atomicAdd(&PCLR_OUT(j), (c))" : "atomic_add(&PCLR_OUT(j), (c))",
                       glsl ? "do { memoryBarrierBuffer(); barrier(); } while (false)" : g->cuda ? "__syncthreads()" : "barrier(CLK_GLOBAL_MEM_FENCE)");
    if (glsl) {
        if (local) PCLR__GEN_PUTF(g, "shared uint hist[PCLR_ENTRIES]; /* the group's counts */\n%s",
                                 wt ? "" : "#define PCLR_COUNT(v) atomicAdd(hist[PCLR_BIN(v)], 1u)\n");
        for (k = 0; k <= y; ++k) { /* pclr_t (the walk's loads) and pclr_x; y's pclr_y: an element at a binding index */
            const pclr_type pt = pclr__mpromote(k ? g->map->y : c->type);
            if (!k && g->map->comps == 1) PCLR__GEN_PUTF(g, "#define pclr_t %s /* the map's input */\n", pclr__mtname(pt, PCLR__ML_GLSL));
            else if (!k) PCLR__GEN_PUTF(g, "#define pclr_t %svec%d /* the map's input */\n", pt == PCLR_FLOAT ? "" : pt == PCLR_DOUBLE ? "d"
                                        : pt == PCLR_INT ? "i" : pt == PCLR_UINT ? "u" : pt == PCLR_INT64 ? "i64" : "u64", g->map->comps);
            pclr__gelem(g, c, k, -1, "e", e, sizeof e);
            PCLR__GEN_PUTF(g, "%s pclr_%s(uint64_t e) { return %s; }\n", k ? (g->map->comps == 1 ? pclr__mtname(pt, PCLR__ML_GLSL) : "pclr_t") : "pclr_t",
                           k ? "y" : "x", e);
        }
        PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) %s(pclr_v(pclr_map((x), %s%s(i)", wt ? "PCLR_WEIGH" : "PCLR_COUNT",
                       y ? "pclr_y(q + (i)" : "", y ? (cols ? " * pitch), " : "), ") : "");
        for (k = 0; k < g->map->params; ++k) PCLR__GEN_PUTF(g, ", args.p%d", k);
        PCLR__GEN_PUTF(g, "))%s)\n", wt ? (cols ? ", pclr_y(q + (i) * pitch)" : ", pclr_y(q + (i))") : "");
    } else {
        if (!wt && local) PCLR__GEN_PUTF(g, "#define PCLR_COUNT(v) %s(hist + PCLR_BIN(v)%s)\n", g->cuda ? "atomicAdd" : "atomic_inc", g->cuda ? ", 1u" : "");
        pclr__gen_elem(g, -1, e, sizeof e);
        pclr__gen_lane(g, 1, -1, w, sizeof w);
        if (wt) PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(%s, %s)\n", e, w);
        else PCLR__GEN_PUTF(g, "#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(%s)\n", e);
    }
    pclr__gen_row_bounds(g, c->layout);
    if (glsl)
        pclr__put(g->w, "/* ---- the kernel ---- */\n"
                        "void main() {\n"
                        "    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;\n"
                        "    const uint64_t pitch = args.pitch;\n");
    else {
        pclr__gen_kernel_open(g, "/* ---- the kernel ---- */\n"
                                 "PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,\n"
                                 "                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,\n"
                                 "                             PCLR_GLOBAL uint *out, PCLR_GLOBAL uint *partials, PCLR_GLOBAL uint *ctl");
        PCLR__GEN_PUTF(g, "%s%s    PCLR_UNUSED(partials); PCLR_UNUSED(split);%s\n",
                       local ? "    PCLR_SHARED uint hist[PCLR_ENTRIES]; /* the group's counts */\n" : "",
                       wt ? "    PCLR_SHARED uint wsum[PCLR_WSUM_WORDS]; /* and the sums of their weights */\n" : "",
                       seg ? " PCLR_UNUSED(pitch);" : " PCLR_UNUSED(offsets); PCLR_UNUSED(n); PCLR_UNUSED(ctl);");
    }
    if (pclr__hist_small_int(c)) pclr__put(g->w, "    PCLR_SHIFT_INIT();\n");
    PCLR__GEN_PUTF(g, "    const uint lid = PCLR_LID;\n"
                      "    const pclr_u64 groups = PCLR_NUM_GROUPS, results = %s;\n"
                      "    for (pclr_u64 r = PCLR_GROUP_ID; r < results; r += groups) {\n"
                      "        const pclr_u64 base = r * PCLR_STATE_WORDS;\n"
                      "        pclr_u64 lo, len;\n"
                      "        PCLR_ROW_BOUNDS(r, lo, len);\n"
                      "        PCLR_XREF p = PCLR_XAT(offset + lo);\n", cols ? "cols" : "rows");
    if (y) pclr__put(g->w, "        PCLR_YREF q = PCLR_YAT(offset2 + lo);\n");
    if (wt) pclr__put(g->w, "        for (uint k = lid; k < PCLR_WSUM_WORDS; k += PCLR_GROUP) wsum[k] = 0u;\n");
    if (local) pclr__put(g->w, "        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;\n"
                               "        PCLR_BARRIER();\n");
    else pclr__put(g->w, "        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) {\n"
                         "            PCLR_OUT(PCLR_AT(k)) = 0u;\n"
                         "            PCLR_OUT(PCLR_AT(k) + 1u) = 0u;\n"
                         "        }\n"
                         "        PCLR_OUT_BARRIER();\n");
    pclr__gen_walk(g, c->unroll, "        ", "acc", "lid", "len", "PCLR_GROUP", cols ? "PCLR_LD(p, (%s) * pitch)" : "PCLR_LD(p, %s)");
    pclr__put(g->w, "        PCLR_BARRIER();\n");
    if (wt) pclr__put(g->w, "        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) { /* the sums */\n"
                            "            const uint at = 12u + 2u * PCLR_BINS + k * PCLR_WORDS;\n"
                            "            uint b = 0u, d;\n"
                            "            for (uint j = 0u; j < PCLR_DIGITS; ++j) {\n"
                            "                PCLR_WSUM_DIGIT(k, j, b, d);\n"
                            "                PCLR_OUT(at + j) = d;\n"
                            "            }\n"
                            "            PCLR_OUT(at + PCLR_DIGITS) = wsum[k * PCLR_WORDS + PCLR_DIGITS];\n"
                            "            PCLR_OUT(at + PCLR_DIGITS + 1u) = 0u;\n"
                            "        }\n");
    pclr__gen_hist_store(g, c, "        ", "", local ? "hist[k]" : NULL, "0u");
    pclr__put(g->w, "        }\n"
                    "        PCLR_BARRIER(); /* the counts are read before the next result's zero them */\n"
                    "    }\n"
                    "}\n");
}

#else /* PCLREDUCE_NO_LAYOUTS: never called (pclr_config_resolve refuses layouts) */
static void pclr__gen_layout(pclr__gen *g, const pclr_config *c) { (void)g; (void)c; }
static void pclr__gen_hist_layout(pclr__gen *g, const pclr_config *c) { (void)g; (void)c; }
#endif /* PCLREDUCE_NO_LAYOUTS */

/* An OpenCL C or CUDA C kernel after its prelude's head and words. */
static void pclr__gen_c(pclr__gen *g, const pclr_config *c) {
    pclr__gen_prelude(g, c);
    if (g->map) {
        if (!g->cuda) pclr__put(g->w, "#pragma OPENCL FP_CONTRACT OFF /* a map's a * b + c rounds twice, as C and the CPU reference do */\n");
        if (!g->map->fields) pclr__gen_map(g, c); /* (a reduction's comes with its state: pclr__gen_ops) */
    }
    if (c->accumulate == PCLR_EXACT && c->layout == PCLR_LAYOUT_ONE) {
        pclr__gen_exact(g, c);
        return;
    }
    if (c->op == PCLR_HISTOGRAM) {
        pclr__gen_hist(g, c);
        return;
    }
    pclr__gen_ops(g, c);
    pclr__gen_group(g, c);
    if (c->layout != PCLR_LAYOUT_ONE) pclr__gen_layout(g, c);
    else pclr__gen_kernel(g, c);
}

/* ------------------------------------------------------------ the generator's entry points  >>source
   pclr_kernel_source (every dialect: the one-array kernel, the exact sum, the layouts), pclr_map_source,
   pclr_kernel_options. */

/* Resolves cfg into *c and points w at buf, under the protocol of pclr_kernel_source. */
static pclr_result pclr__gen_start(const pclr_config *cfg, pclr_config *c, pclr__writer *w, char *buf, size_t cap,
                                   size_t *size_needed) {
    if (size_needed) *size_needed = 0;
    w->buf = buf; w->cap = cap; w->len = 0;
    return cfg ? pclr_config_resolve(cfg, c, NULL) : PCLR_ERR_NULL_POINTER;
}

PCLR_API pclr_result pclr_kernel_source(const pclr_config *cfg, char *buf, size_t cap, size_t *size_needed) {
    pclr_config c;
    pclr__writer w;
    pclr__gen g;
    pclr__mtree tree; /* the map's */
    pclr_result r = pclr__gen_start(cfg, &c, &w, buf, cap, size_needed);
    if (r != PCLR_OK) return r;
    g.w = &w;
    pclr__layout_of(&c, &g.l);
    g.cuda = c.backend == PCLR_CUDA;
    g.glsl = c.backend == PCLR_VULKAN;
    g.after = NULL;
    g.is_float = pclr__is_float(c.type);
    g.tsize = (int)pclr_type_size(c.type) * (c.components ? c.components : 1);
    g.t = pclr__ktype(c.type, g.cuda);
    g.vector = c.vector_width;
    g.y_at = c.layout == PCLR_LAYOUT_COLUMNS ? "q[(i) * pitch]" : NULL;
    g.vloads = c.layout == PCLR_LAYOUT_ONE;
    g.lanes = c.stride == PCLR_STRIDE_SIMD && c.backend == PCLR_OPENCL && pclr__lanes_fold(&c);
    g.vhalf = c.stride == PCLR_STRIDE_SIMD && c.backend == PCLR_OPENCL && pclr__half_vectors(&c);
    g.oom = 0;
    g.map = NULL;
    g.merge_in = c.op == PCLR_CUSTOM ? "pclr_fold_in" : "pclr_merge";
    g.merge_parts = c.op == PCLR_CUSTOM ? "pclr_merge_parts" : "pclr_merge";
    if (c.layout != PCLR_LAYOUT_ONE && !c.lanes) { /* a shape: the program the planner picks for it (one compute unit) */
        pclr_device_facts dev;
        pclr_launch l;
        memset(&dev, 0, sizeof dev);
        dev.compute_units = 1;
        pclr__plan_layout(&c, &dev, c.rows * (c.cols ? c.cols : 1), &l);
        pclr__layout_program(&c, &l, &c);
    }
    if (pclr__has_map(&c)) { /* a map, or a reduction's description */
        if ((r = pclr__map_parse(&c, &tree, NULL, 0)) != PCLR_OK) return r; /* (resolve has checked it) */
        if (c.op == PCLR_HISTOGRAM) { /* the range: three more arguments (pclr__gen_hist; resolve left room) */
            static const char *const names[3] = {"the range's lo", "its hi", "bins / (hi - lo)"};
            int k;
            for (k = 0; k < 3; ++k, ++tree.params) {
                tree.param[tree.params] = pclr__hist_type(&c);
                strcpy(tree.pname[tree.params], names[k]);
            }
        }
        g.map = &tree;
    }
    pclr__put(&w, "/* pclreduce " PCLREDUCE_VERSION " kernel: ");
    pclr__describe(&w, &c);
    if (c.backend == PCLR_VULKAN) { /* (the comment's text may not hold a '#version' line: it comes first) */
        pclr__put(&w, c.layout != PCLR_LAYOUT_ONE ? "\n   entry: main; bindings 0 x, 1 out, 2 partials, 3 ctl" : "\n   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter");
        if (g.map && g.map->y) pclr__put(&w, ", 4 y");
        if (c.layout != PCLR_LAYOUT_ONE) pclr__put(&w, ", 5 offsets");
        pclr__put(&w, "; push constants: offset, n, offset2, out_at, part_at");
        if (c.layout != PCLR_LAYOUT_ONE) pclr__put(&w, ", rows, cols, pitch, split");
        if (g.map && g.map->params) PCLR__GEN_PUTF(&g, ", p0..p%d", g.map->params - 1);
        pclr__put(&w, " */\n");
        pclr__glsl_head(&g, &c);
        pclr__gen_words(&g, &c, pclr__gen_glsl);
        return g.oom ? PCLR_ERR_OUT_OF_MEMORY : pclr__finish_text(&w, size_needed);
    }
    if (c.layout != PCLR_LAYOUT_ONE) pclr__put(&w, "\n   entry: " PCLR_KERNEL_NAME "(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl");
    else pclr__put(&w, "\n   entry: " PCLR_KERNEL_NAME "(in, offset, n, out, partials, counter");
    if (g.map && g.map->y) pclr__put(&w, ", in2, offset2");
    if (g.map && g.map->params) PCLR__GEN_PUTF(&g, ", p0..p%d", g.map->params - 1);
    pclr__put(&w, ") */\n");
    if (g.cuda) pclr__put(&w, PCLR__TEXT_PRELUDE_HEAD_CUDA);
    else pclr__put(&w, pclr__needs_fp64(&c) ? PCLR__TEXT_PRELUDE_HEAD_OPENCL(PCLR__TEXT_FP64) : PCLR__TEXT_PRELUDE_HEAD_OPENCL(""));
    pclr__gen_words(&g, &c, pclr__gen_c);
    return g.oom ? PCLR_ERR_OUT_OF_MEMORY : pclr__finish_text(&w, size_needed);
}

PCLR_API pclr_result pclr_map_source(const pclr_config *cfg, const char *lang, char *buf, size_t cap, size_t *size_needed) {
    static const char *const langs[3] = {"opencl", "cuda", "glsl"};
    pclr__writer w;
    pclr__mtree t;
    pclr__memit E;
    pclr_result r;
    int k;
    if (size_needed) *size_needed = 0;
    w.buf = buf; w.cap = cap; w.len = 0;
    if (!cfg || !lang) return PCLR_ERR_NULL_POINTER;
    for (k = 0; k < 3 && strcmp(lang, langs[k]); ++k) {}
    if (k == 3) return PCLR_ERR_INVALID_ENUM;
    if ((r = pclr__map_parse(cfg, &t, NULL, 0)) != PCLR_OK) return r;
    if (t.root < 0) return PCLR_ERR_INVALID_MAP; /* no map */
    E.w = &w;
    E.t = &t;
    E.lang = k;
    E.keep = 0;
    E.zero = E.zeros = 0;
    E.used = NULL;
    pclr__mfunction(&E);
    return pclr__finish_text(&w, size_needed);
}

PCLR_API pclr_result pclr_kernel_options(const pclr_config *cfg, char *buf, size_t cap, size_t *size_needed) {
    pclr_config c;
    pclr__writer w;
    pclr_result r = pclr__gen_start(cfg, &c, &w, buf, cap, size_needed);
    if (r != PCLR_OK) return r;
    if (c.variant == PCLR_VARIANT_COLLECTIVE) pclr__put(&w, "-cl-std=CL2.0");
    if (pclr__has_map(&c) && c.backend == PCLR_CUDA) pclr__put(&w, "--fmad=false"); /* a map's (a lift's) a * b + c rounds twice */
    return pclr__finish_text(&w, size_needed);
}

/* ------------------------------------------------------------ the planner  >>plan
   How many groups of what size: one array (pclr_plan), a layout's strategy (pclr_plan_layout). */
PCLR_API uint64_t pclr_max_groups(const pclr_config *cfg, const pclr_device_facts *dev) {
    uint64_t units;
    if (!cfg || !dev) return 0;
    units = dev->compute_units ? dev->compute_units : 1;
    return units * (uint64_t)(cfg->groups_per_unit > 0 ? cfg->groups_per_unit : 1);
}

PCLR_API pclr_result pclr_plan(const pclr_config *cfg, const pclr_device_facts *dev, uint64_t n, pclr_launch *out) {
    uint64_t per_group, wanted, cap;
    if (!cfg || !dev || !out) return PCLR_ERR_NULL_POINTER;
    if (cfg->group_size <= 0 || cfg->unroll <= 0 || cfg->vector_width <= 0) return PCLR_ERR_INVALID_KNOB;
    if (dev->max_group_size && (uint32_t)cfg->group_size > dev->max_group_size) return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    per_group = (uint64_t)cfg->group_size * (uint64_t)cfg->unroll * (uint64_t)cfg->vector_width;
    wanted = n / per_group + (n % per_group != 0);
    cap = pclr_max_groups(cfg, dev);
    if (wanted > cap) wanted = cap;
    /* exact sums: a group's cells take at most 2^29 elements (see PCLR__EXACT_GROUP_MOST); a histogram's
       group counts in 32 bits: the same bound keeps them */
    if ((cfg->accumulate == PCLR_EXACT || cfg->op == PCLR_HISTOGRAM) && wanted < n / PCLR__EXACT_GROUP_MOST + (n % PCLR__EXACT_GROUP_MOST != 0))
        wanted = n / PCLR__EXACT_GROUP_MOST + (n % PCLR__EXACT_GROUP_MOST != 0);
    if (wanted < 1) wanted = 1;
    out->groups = wanted;
    out->group_size = (uint32_t)cfg->group_size;
    return PCLR_OK;
}

static uint64_t pclr__pow2_at_least(uint64_t v) {
    uint64_t p = 1;
    while (p < v && p < ((uint64_t)1 << 62)) p <<= 1;
    return p;
}

/* The few-rows program's rows for a columns shape planned with lanes and split (a power of two,
   1 to PCLR__FEW_ROWS), or 0 when it takes the general program. */
static uint64_t pclr__cols_few(const pclr_config *c, uint64_t lanes, uint64_t split) {
    if (c->layout != PCLR_LAYOUT_COLUMNS || lanes != 1 || split != 1 || c->rows > PCLR__FEW_ROWS || c->y_type != PCLR_TYPE_DEFAULT)
        return 0;
    return pclr__pow2_at_least(c->rows);
}

/* The program a planned shape runs: kernel (a copy of the caller's config or of shape) loses the
   shape, which the kernel takes as run-time arguments, but for the staged rows' pitch and the
   few-rows columns' power of two of rows; it keeps the plan's lanes. */
static void pclr__layout_program(const pclr_config *shape, const pclr_launch *plan, pclr_config *kernel) {
    const int staged = pclr__rows_staged(shape, plan->lanes);
    const uint64_t few = pclr__cols_few(shape, (uint64_t)plan->lanes, plan->split);
    kernel->cols = 0;
    kernel->pitch = staged ? PCLR__STAGE_PITCH : 0;
    kernel->rows = few;
    kernel->lanes = plan->lanes;
}

#ifndef PCLREDUCE_NO_LAYOUTS /* the planner */
/* Groups per long row when there are few rows: the split (1..most) whose
   rows x split tasks fill whole waves of `slots` groups best (a last wave
   of a few long tasks would run the device nearly empty); the smallest
   split within 3 % of the best fill, as each split adds partials. */
static uint64_t pclr__fill(uint64_t tasks, uint64_t slots) { /* in 1/1024ths of the waves' slots */
    return tasks * 1024 / ((tasks + slots - 1) / slots * slots);
}
static uint64_t pclr__balanced_split(uint64_t rows, uint64_t slots, uint64_t most) {
    uint64_t s, best_fill = 0;
    if (most < 1) most = 1;
    if (most > 4 * slots) most = 4 * slots;
    for (s = 1; s <= most && best_fill < 1024; ++s)
        if (pclr__fill(rows * s, slots) > best_fill) best_fill = pclr__fill(rows * s, slots);
    for (s = 1; s < most && pclr__fill(rows * s, slots) + 32 < best_fill; ++s) {}
    return s;
}

/* The strategy for a layout's shape (see pclr_plan_layout). */
PCLR__FN pclr_result pclr__plan_layout(const pclr_config *c, const pclr_device_facts *dev, uint64_t n, pclr_launch *out) {
    const uint64_t group = (uint64_t)c->group_size, unroll = (uint64_t)c->unroll, most = (uint64_t)1 << 30;
    const uint64_t target = pclr_max_groups(c, dev), slots = 2 * target; /* groups at once: one-element loads want full occupancy */
    const int cpu = c->stride == PCLR_STRIDE_LOCAL || c->stride == PCLR_STRIDE_SIMD; /* each work-item its own contiguous block: what CPUs want */
    uint64_t lanes, tasks;
    out->group_size = (uint32_t)c->group_size;
    out->split = 1;
    if (c->op == PCLR_HISTOGRAM) { /* a group per histogram at a time (pclr__gen_hist_layout) */
        const uint64_t results = pclr_layout_results(c);
        out->lanes = c->group_size;
        out->groups = results < 1 ? 1 : results < slots ? results : slots;
        return PCLR_OK;
    }
    if (c->layout == PCLR_LAYOUT_COLUMNS) {
        const uint64_t wave = (uint64_t)c->wave_width < group ? (uint64_t)c->wave_width : group;
        uint64_t tile = c->lanes ? group / (uint64_t)c->lanes : (pclr__pow2_at_least(c->cols) < group ? pclr__pow2_at_least(c->cols) : group);
        uint64_t tiles = c->cols / tile + (c->cols % tile != 0), per;
        if (!c->lanes && !cpu && tile > wave && tiles < target) { /* few tiles: a wave wide (still whole lines), more of them */
            tile = wave;
            tiles = c->cols / tile + (c->cols % tile != 0);
        }
        lanes = group / tile;
        per = lanes * unroll * 4;
        if (tiles && tiles < 2 * slots) { /* few tiles: groups share one, each a band of rows */
            /* (tiles of up to half a wave of columns ran faster at half occupancy on the H100: 89 % of
               the read kernel against 75-86 % for 2-16 columns, bench_rows) */
            const uint64_t fill = tile <= wave / 2 ? target : slots;
            out->split = pclr__balanced_split(tiles, fill, c->rows / per + (c->rows % per != 0));
        }
        tasks = tiles * out->split;
        if (pclr__cols_few(c, lanes, out->split)) tasks = tiles / 4 + (tiles % 4 != 0); /* the few-rows path: four tiles per work-item */
    } else {
        const uint64_t avg = c->layout == PCLR_LAYOUT_SEGMENTS ? (c->cols ? c->cols : (c->rows ? n / c->rows : 0)) : c->cols;
        const uint64_t wave = (uint64_t)c->wave_width < group ? (uint64_t)c->wave_width : group;
        if (c->lanes) lanes = (uint64_t)c->lanes;
        else if (cpu) lanes = avg > ((uint64_t)1 << 16) ? group : 1;
        else if (avg <= wave) lanes = pclr__pow2_at_least(avg ? avg : 1);
        else if (avg <= 2048 || group <= wave) lanes = wave; /* a wave per row: no barrier */
        else lanes = group;
        if (lanes == group) {
            const uint64_t per = group * unroll * 4, most_split = avg / per + (avg % per != 0);
            if (c->rows && c->rows < 2 * slots) out->split = pclr__balanced_split(c->rows, slots, most_split);
            tasks = c->rows * out->split;
        } else if (c->layout == PCLR_LAYOUT_ROWS) {
            if (pclr__rows_staged(c, (int)lanes)) { /* a tile of whole rows per group and step */
                const uint64_t per = (uint64_t)pclr__stage_per(c), tile_rows = group * per / c->pitch;
                /* a team per row, as few work-items as keep every one busy: a work-item folds
                   ~PCLR_STAGE_PER elements of a row in a row, no shuffles */
                if (!c->lanes) lanes = pclr__pow2_at_least((c->pitch + per - 1) / per);
                tasks = c->rows / tile_rows + (c->rows % tile_rows != 0);
            } else {
                const uint64_t per = group / lanes * unroll; /* rows per group and step */
                tasks = c->rows / per + (c->rows % per != 0);
            }
        } else {
            const uint64_t per = group / lanes * unroll; /* rows per group and step */
            tasks = c->rows / per + (c->rows % per != 0);
        }
    }
    out->lanes = (int)lanes;
    out->groups = tasks < 1 ? 1 : tasks > most ? most : tasks;
    return PCLR_OK;
}
#else /* PCLREDUCE_NO_LAYOUTS */
PCLR__FN pclr_result pclr__plan_layout(const pclr_config *c, const pclr_device_facts *dev, uint64_t n, pclr_launch *out) {
    (void)c; (void)dev; (void)n;
    memset(out, 0, sizeof *out);
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
#endif /* PCLREDUCE_NO_LAYOUTS */

PCLR_API pclr_result pclr_plan_layout(const pclr_config *cfg, const pclr_device_facts *dev, uint64_t n, pclr_launch *out) {
    if (!cfg || !dev || !out) return PCLR_ERR_NULL_POINTER;
    if (cfg->layout == PCLR_LAYOUT_ONE || cfg->layout >= PCLR_LAYOUT_COUNT_ || cfg->group_size <= 0 || cfg->unroll <= 0) return PCLR_ERR_INVALID_KNOB;
    if (dev->max_group_size && (uint32_t)cfg->group_size > dev->max_group_size) return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    return pclr__plan_layout(cfg, dev, n, out);
}

/* type, op and accumulate of cfg, resolved (knobs play no part in a state or result). merge_checks 0: a
   reduction's merge is not tested again (the engine's calls, on a config that built). */
/* A map's config becomes one of the values it reduces (type = the map's type, no map). */
static pclr_result pclr__resolve_op(const pclr_config *cfg, pclr_config *c, int merge_checks) {
    pclr_result r;
    if (!cfg) return PCLR_ERR_NULL_POINTER;
    memset(c, 0, sizeof *c);
    c->type = cfg->type;
    c->op = cfg->op;
    c->accumulate = cfg->accumulate;
    c->map = cfg->map;
    c->params = cfg->params;
    c->map_type = cfg->map_type;
    c->y_type = cfg->y_type;
    c->components = cfg->components;
    c->reduce = cfg->reduce;
    c->bins = cfg->bins;
    c->clamp = cfg->clamp;
    c->weighted = cfg->weighted;
    if ((r = pclr__config_resolve(c, c, NULL, merge_checks)) != PCLR_OK) return r;
    if (pclr__has_map(c) && c->op != PCLR_CUSTOM && (c->op != PCLR_HISTOGRAM || (c->map && c->map[0]))) {
        /* (a reduction's lift reads the inputs: it keeps them; a histogram of the elements keeps their type,
           a weighted one its weights') */
        c->type = c->map_type;
        c->map = c->params = NULL;
        c->map_type = PCLR_TYPE_DEFAULT;
        c->y_type = c->weighted ? PCLR_FLOAT : PCLR_TYPE_DEFAULT;
        c->components = 0;
        c->vector_width = 0;
        r = pclr__config_resolve(c, c, NULL, merge_checks);
    }
    return r;
}

/* The result type of prod (native: the element's value type, 8/16-bit integers wrapped into it; wide: the wide
   sum's type) and of and, or, xor (the element type) for a resolved op config (a map's: its type). */
static pclr_type pclr__wrap_type(const pclr_config *c) {
    const pclr_type t = pclr__reduced(c);
    if (c->op == PCLR_PROD) return c->accumulate == PCLR_WIDE ? pclr_sum_type(t, PCLR_WIDE) : pclr_value_type(t);
    return t;
}

PCLR_API size_t pclr_state_size(const pclr_config *cfg) {
    pclr_config c;
    pclr__layout l;
    if (pclr__resolve_op(cfg, &c, 1) != PCLR_OK) return 0;
    pclr__layout_of(&c, &l);
    return l.size;
}

PCLR_API size_t pclr_result_size(const pclr_config *cfg) {
    pclr_config c;
    if (pclr__resolve_op(cfg, &c, 1) != PCLR_OK) return 0;
    switch (c.op) {
    case PCLR_SUM: return pclr_type_size(pclr_sum_type(c.type, c.accumulate));
    case PCLR_MIN: case PCLR_MAX: return pclr_type_size(pclr_value_type(c.type));
    case PCLR_COUNT: return sizeof(uint64_t);
    case PCLR_ARGMIN: case PCLR_ARGMAX: return sizeof(pclr_arg_result);
    case PCLR_MINMAX: return sizeof(pclr_minmax_result);
    case PCLR_STATS: return sizeof(pclr_stats_result);
    case PCLR_ARGMINMAX: return sizeof(pclr_argminmax_result);
    case PCLR_ANY: case PCLR_ALL: return sizeof(uint32_t);
    case PCLR_CUSTOM: return sizeof(pclr_custom_result);
    case PCLR_HISTOGRAM: return PCLR__HIST_HEADER + 8 * (size_t)c.bins + (c.weighted ? 8 * ((size_t)c.bins + 3) : 0);
    default: return pclr_type_size(pclr__wrap_type(&c)); /* prod, and, or, xor */
    }
}

/* A compute-type field (u32, i32, u64, i64, f32, f64) as a double, or its integer bits. */
static double pclr__field_f(const unsigned char *p, pclr_type t) {
    float f;
    double d;
    if (t == PCLR_FLOAT) { memcpy(&f, p, 4); return f; }
    memcpy(&d, p, 8);
    return d;
}
static int64_t pclr__field_i(const unsigned char *p, pclr_type t) {
    uint32_t u;
    int32_t i;
    int64_t v;
    if (t == PCLR_UINT) { memcpy(&u, p, 4); return (int64_t)u; }
    if (t == PCLR_INT) { memcpy(&i, p, 4); return i; }
    memcpy(&v, p, 8);
    return v;
}

/* A value of compute type t into the member of element type e's value type;
   the min/max identities of a wider compute type saturate into e's range. */
static pclr_scalar pclr__narrow(const unsigned char *p, pclr_type t, pclr_type e) {
    pclr_scalar r;
    int64_t v = 0;
    memset(&r, 0, sizeof r);
    if (pclr__is_float(t)) {
        if (t == PCLR_FLOAT) memcpy(&r.f32, p, 4);
        else memcpy(&r.f64, p, 8);
        return r;
    }
    if (pclr_type_size(t) == 8) { memcpy(&r.u64, p, 8); return r; }
    v = pclr__field_i(p, t);
    switch (e) {
    case PCLR_UINT8: r.u8 = (uint8_t)(v > 255 ? 255 : v); break;
    case PCLR_INT8: r.i8 = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v); break;
    case PCLR_UINT16: r.u16 = (uint16_t)(v > 65535 ? 65535 : v); break;
    case PCLR_INT16: r.i16 = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); break;
    default: memcpy(&r.u32, p, 4); break;
    }
    return r;
}

/* The kernel's identity state, read from the op's identity text (pclr__op_defs): lines "s.FIELD = VALUE;"
   whose VALUE is PCLR_HI, PCLR_LO (the field type's extremes: +-inf for floats), PCLR_NO_INDEX or ~pclr_v(0)
   (every bit set), or a small number, bare or cast (0, 1u, pclr_a(1)). */
static int pclr__field_index(const pclr__layout *l, const char *name);
static void pclr__identity_state(const pclr__layout *l, const pclr__op_def *d, unsigned char *state) {
    const char *t = d ? d->identity : NULL;
    memset(state, 0, l->size);
    while (t && t[0] == 's' && t[1] == '.') {
        char name[16];
        const char *v = strstr(t, " = ");
        size_t len = v ? (size_t)(v - t - 2) : 0;
        int k;
        if (!v || len >= sizeof name) break;
        memcpy(name, t + 2, len);
        name[len] = '\0';
        v += 3;
        if ((k = pclr__field_index(l, name)) >= 0) {
            const pclr_type ft = l->field[k].type;
            unsigned char *p = state + l->offset[k];
            const int hi = !strncmp(v, "PCLR_HI", 7), lo = !strncmp(v, "PCLR_LO", 7);
            if (v[0] == '~' || !strncmp(v, "PCLR_NO_INDEX", 13) || (hi && (ft == PCLR_UINT || ft == PCLR_UINT64))) {
                memset(p, 0xff, pclr_type_size(ft));
            } else if ((hi || lo) && pclr__is_float(ft)) {
                const float f = hi ? 1e30f * 1e30f : -1e30f * 1e30f; /* +-inf */
                const double dd = f;
                if (ft == PCLR_FLOAT) memcpy(p, &f, 4);
                else memcpy(p, &dd, 8);
            } else if (hi || lo) { /* signed; the unsigned minimum is 0 */
                const int64_t v64 = hi ? INT64_MAX : INT64_MIN;
                const int32_t v32 = hi ? INT32_MAX : INT32_MIN;
                if (ft == PCLR_INT64) memcpy(p, &v64, 8);
                else if (ft == PCLR_INT) memcpy(p, &v32, 4);
            } else { /* a number, perhaps cast: pclr_a(1) */
                const char *num = strchr(v, '(') && strchr(v, '(') < strchr(v, ';') ? strchr(v, '(') + 1 : v;
                const long n = strtol(num, NULL, 10);
                const float f = (float)n;
                const double dd = (double)n;
                const uint32_t u32 = (uint32_t)n;
                const uint64_t u64 = (uint64_t)(int64_t)n;
                if (ft == PCLR_FLOAT) memcpy(p, &f, 4);
                else if (ft == PCLR_DOUBLE) memcpy(p, &dd, 8);
                else if (pclr_type_size(ft) == 4) memcpy(p, &u32, 4);
                else memcpy(p, &u64, 8);
            }
        }
        t = strchr(t, '\n');
        if (t) ++t;
    }
}

static int pclr__field_index(const pclr__layout *l, const char *name) {
    int i;
    for (i = 0; i < l->count; ++i) if (!strcmp(l->field[i].name, name)) return i;
    return -1;
}

/* Stats' mean, var and sample_var (out[0..2]) from the moments about a shift h: d1 = sum (x - h),
   m2 = sum (x - h)^2, finished in double; the CPU reference and every backend's states end here.
   n = 0: NaN (the positive quiet NaN, whatever the compiler folds inf - inf to), sample_var also n = 1. */
PCLR__FN void pclr__stats_nan(double out[3]) {
    const uint64_t quiet = 0x7ff8000000000000ull;
    memcpy(&out[0], &quiet, 8);
    out[1] = out[2] = out[0];
}
PCLR__FN void pclr__stats_moments(uint64_t count, double mean, double m2, double out[3]) {
    const double n = (double)count;
    if (!(m2 >= 0)) m2 = m2 < 0 ? 0.0 : m2; /* (rounding: a variance is never negative) */
    out[0] = mean;
    out[1] = m2 / n;
    if (count > 1) out[2] = m2 / (double)(count - 1);
}
/* Floats, with lo and hi the data's min and max and sum their sum: a NaN in the data makes mean and
   variances NaN; else an infinity makes the mean that infinity (NaN where both signs are there) and the
   variances NaN (NumPy's mean and var; the same on every backend whatever the order of inf - inf in the
   moments). The mean: shift + d1 / n, or where the data's range holds 0, sum / n (there the sum's terms
   cancel and its error is the smaller: a shift as far from the mean as the data's spread is not). */
PCLR__FN void pclr__stats_float(uint64_t count, double shift, double d1, double m2, double lo, double hi, double sum, double out[3]) {
    const double n = (double)count, q = count ? d1 / n : 0.0, inf = 1e300 * 1e300;
    pclr__stats_nan(out);
    if (!count || lo != lo || hi != hi) return;
    if (hi == inf || lo == -inf) {
        if (hi != inf || lo != -inf) out[0] = hi == inf ? inf : -inf;
        return;
    }
    pclr__stats_moments(count, lo <= 0 && hi >= 0 && sum - sum == 0 ? sum / n : shift + q, m2 - d1 * q, out);
}
/* Integers (u: unsigned; shift and range = max - min as their 64-bit bits). Where n range^2 < 2^50 every
   value the kernels and the reference computed is an integer below 2^53, so the state holds the exact
   D1 = sum (x - h) and M2 = sum (x - h)^2 about whichever element h the tree kept: they move exactly onto
   t = h + floor(D1 / n), and mean = t + rem / n, var = (M2' - rem^2 / n) / n come out bit for bit the same
   on every backend, device and knob. Wider data: the moments as they are (relative error ~ 2^-53 n). */
PCLR__FN void pclr__stats_int(uint64_t count, int u, uint64_t shift, double d1, double m2, uint64_t range, double out[3]) {
    const double n = (double)count, r = (double)range;
    pclr__stats_nan(out);
    if (!count) return;
    /* (and a state the data can have made: |D1| <= n range, 0 <= M2 <= 2^53; else no integer arithmetic) */
    if (r * r * n < 1125899906842624.0 /* 2^50 */ && d1 >= -n * r && d1 <= n * r && m2 >= 0 && m2 <= 9007199254740992.0) {
        const int64_t D1 = (int64_t)d1, M2 = (int64_t)m2, cn = range ? (int64_t)count : 1;
        int64_t k = D1 / cn, rem;
        uint64_t t;
        if (D1 - k * cn < 0) --k; /* (floor) */
        rem = D1 - k * cn;
        t = shift + (uint64_t)k;
        pclr__stats_moments(count, (u ? (double)t : (double)(int64_t)t) + (double)rem / n,
                            (double)(M2 - 2 * k * D1 + k * k * cn) - (double)rem * ((double)rem / n), out);
        return;
    }
    pclr__stats_moments(count, (u ? (double)shift : (double)(int64_t)shift) + d1 / n, m2 - d1 * (d1 / n), out);
}

/* pclr_finalize for a resolved config c and its layout l (the backends keep both per configuration). */
/* Finalizing a state into its result, with the state's fields looked up once (a layout's
   blocking reduce finalizes every state in one pass). */
typedef struct pclr__finalizer {
    pclr_op op;
    pclr__layout l;
    pclr_type vt;                   /* the reduced type */
    size_t s, c, lo, hi, i, ih, shift, d1, m2; /* the fields' byte offsets (those the op has) */
    pclr_type wrap;                 /* prod, and, or, xor: the result's type (pclr__wrap_type) */
    int has_c;                      /* a compensated sum's c */
    size_t sum_bytes, value_bytes;  /* of the result's sum and values */
    int plain;                      /* a value's bytes are the result's (no narrowing of 8/16-bit ints) */
    int same;                       /* the state's bytes are the result's: a copy does */
    pclr_config cfg;                /* op custom: its description's (the strings the caller keeps) */
} pclr__finalizer;
static void pclr__finalize_custom(const pclr__finalizer *f, size_t rs, const unsigned char *states, uint64_t count, void *results);

PCLR__FN size_t pclr__field_at(const pclr__layout *l, const char *name) {
    const int k = pclr__field_index(l, name);
    return k >= 0 ? l->offset[k] : 0;
}

PCLR__FN void pclr__finalizer_init(pclr__finalizer *f, const pclr_config *cfg, const pclr__layout *layout) {
    const pclr_op op = cfg->op;
    const int arg = op == PCLR_MIN || op == PCLR_MAX || op == PCLR_ARGMIN || op == PCLR_ARGMAX;
    memset(f, 0, sizeof *f);
    f->op = op;
    f->l = *layout;
    f->cfg = *cfg;
    f->vt = pclr__reduced(cfg);
    f->s = pclr__field_at(layout, "s");
    f->has_c = pclr__field_index(layout, "c") >= 0;
    f->c = pclr__field_at(layout, "c");
    f->lo = pclr__field_at(layout, arg ? "v" : "lo");
    f->hi = pclr__field_at(layout, "hi");
    f->i = pclr__field_at(layout, op == PCLR_ARGMINMAX ? "il" : "i");
    f->ih = pclr__field_at(layout, "ih");
    f->wrap = pclr__wrap_type(cfg);
    f->shift = pclr__field_at(layout, "shift");
    f->d1 = pclr__field_at(layout, "d1");
    f->m2 = pclr__field_at(layout, "m2");
    f->sum_bytes = pclr_type_size(layout->sum);
    f->value_bytes = pclr_type_size(pclr_value_type(f->vt));
    f->plain = pclr__is_float(layout->value) || pclr_type_size(layout->value) == f->value_bytes;
    f->same = (op == PCLR_SUM && !f->has_c) || op == PCLR_COUNT || op == PCLR_ANY || op == PCLR_ALL ||
              ((op == PCLR_PROD || op == PCLR_AND || op == PCLR_OR || op == PCLR_XOR) && layout->field[0].type == f->wrap) ||
              ((op == PCLR_MIN || op == PCLR_MAX) && layout->value == pclr_value_type(f->vt) && pclr__is_float(layout->value) == pclr__is_float(f->vt));
}

/* A value field into the result's scalar (narrowed: 8/16-bit ints come back in their own width). */
PCLR__FN void pclr__finalize_value(const pclr__finalizer *f, const unsigned char *p, pclr_scalar *out) {
    if (f->plain) {
        memset(out, 0, sizeof *out);
        memcpy(out, p, f->value_bytes);
    } else {
        *out = pclr__narrow(p, f->l.value, f->vt);
    }
}

PCLR__FN void pclr__finalize_one(const pclr__finalizer *f, const void *state, void *result) {
    const pclr__layout *l = &f->l;
    const unsigned char *st = (const unsigned char *)state;
    switch (f->op) {
    case PCLR_CUSTOM: pclr__finalize_custom(f, sizeof(pclr_custom_result), st, 1, result); break;
    case PCLR_HISTOGRAM: { /* the state but for lo and hi, which become doubles, and the weights' sums, rounded */
        const size_t counted = PCLR__HIST_HEADER + 8 * (size_t)f->cfg.bins;
        double r[2];
        uint32_t k;
        memmove(result, st, counted);
        for (k = 0; f->cfg.weighted && k < f->cfg.bins + 3; ++k) { /* (in place too: entry k's words are read before
                                                                       its double, below them, is written) */
            uint32_t d[PCLR__HIST_WORDS];
            double v;
            memcpy(d, st + counted + 4 * PCLR__HIST_WORDS * (size_t)k, sizeof d);
            v = pclr__hist_sum_value(d);
            memcpy((unsigned char *)result + counted + 8 * (size_t)k, &v, 8);
        }
        for (k = 0; k < 2; ++k) {
            float fl;
            memcpy(&fl, st + 32 + 8 * k, 4);
            if (pclr__hist_type(&f->cfg) == PCLR_FLOAT) r[k] = fl;
            else memcpy(&r[k], st + 32 + 8 * k, 8);
        }
        memcpy((unsigned char *)result + 32, r, 16);
        break;
    }
    case PCLR_SUM: {
        pclr_scalar sum;
        memcpy(&sum, st + f->s, f->sum_bytes);
        /* s + c; an infinite or NaN s is the sum itself (its c is NaN) */
        if (f->has_c && l->sum == PCLR_FLOAT && sum.f32 - sum.f32 == 0) sum.f32 = sum.f32 + (float)pclr__field_f(st + f->c, l->sum);
        else if (f->has_c && l->sum == PCLR_DOUBLE && sum.f64 - sum.f64 == 0) sum.f64 = sum.f64 + pclr__field_f(st + f->c, l->sum);
        memcpy(result, &sum, f->sum_bytes);
        break;
    }
    case PCLR_MIN: case PCLR_MAX: {
        pclr_scalar v;
        pclr__finalize_value(f, st + f->lo, &v);
        memcpy(result, &v, f->value_bytes);
        break;
    }
    case PCLR_COUNT: memcpy(result, st, 8); break;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result a;
        pclr__finalize_value(f, st + f->lo, &a.value);
        memcpy(&a.index, st + f->i, 8);
        memcpy(result, &a, sizeof a);
        break;
    }
    case PCLR_MINMAX: {
        pclr_minmax_result m;
        pclr__finalize_value(f, st + f->lo, &m.min);
        pclr__finalize_value(f, st + f->hi, &m.max);
        memcpy(result, &m, sizeof m);
        break;
    }
    case PCLR_ARGMINMAX: {
        pclr_argminmax_result m;
        pclr__finalize_value(f, st + f->lo, &m.min.value);
        memcpy(&m.min.index, st + f->i, 8);
        pclr__finalize_value(f, st + f->hi, &m.max.value);
        memcpy(&m.max.index, st + f->ih, 8);
        memcpy(result, &m, sizeof m);
        break;
    }
    case PCLR_ANY: case PCLR_ALL: memcpy(result, st, 4); break;
    case PCLR_PROD: case PCLR_AND: case PCLR_OR: case PCLR_XOR: { /* one field, wrapped into the result's type */
        const pclr_type ft = l->field[0].type;
        if (pclr__is_float(ft) || pclr_type_size(ft) == 8) {
            memcpy(result, st, pclr_type_size(ft));
        } else {
            uint32_t u;
            uint16_t u16;
            uint8_t u8;
            memcpy(&u, st, 4);
            u16 = (uint16_t)u;
            u8 = (uint8_t)u;
            if (pclr_type_size(f->wrap) == 1) memcpy(result, &u8, 1);
            else if (pclr_type_size(f->wrap) == 2) memcpy(result, &u16, 2);
            else memcpy(result, &u, 4);
        }
        break;
    }
    default: {
        pclr_stats_result s;
        double d1, m2, mv[3];
        memset(&s, 0, sizeof s);
        memcpy(&s.count, st, 8);
        memcpy(&s.sum, st + f->s, f->sum_bytes);
        if (f->has_c && l->sum == PCLR_FLOAT && s.sum.f32 - s.sum.f32 == 0) s.sum.f32 = s.sum.f32 + (float)pclr__field_f(st + f->c, l->sum);
        else if (f->has_c && l->sum == PCLR_DOUBLE && s.sum.f64 - s.sum.f64 == 0) s.sum.f64 = s.sum.f64 + pclr__field_f(st + f->c, l->sum);
        pclr__finalize_value(f, st + f->lo, &s.min);
        pclr__finalize_value(f, st + f->hi, &s.max);
        d1 = pclr__field_f(st + f->d1, l->moment);
        m2 = pclr__field_f(st + f->m2, l->moment);
        if (pclr__is_float(l->value)) {
            pclr__stats_float(s.count, pclr__field_f(st + f->shift, l->shift), d1, m2, pclr__field_f(st + f->lo, l->value),
                              pclr__field_f(st + f->hi, l->value), l->sum == PCLR_FLOAT ? (double)s.sum.f32 : s.sum.f64, mv);
        } else {
            const int u = l->value == PCLR_UINT || l->value == PCLR_UINT64;
            const int64_t lo = pclr__field_i(st + f->lo, l->value), hi = pclr__field_i(st + f->hi, l->value);
            const uint64_t shift = l->shift == PCLR_DOUBLE ? (uint64_t)(int64_t)pclr__field_f(st + f->shift, l->shift)
                                                          : (uint64_t)pclr__field_i(st + f->shift, l->shift);
            pclr__stats_int(s.count, u, shift, d1, m2, (uint64_t)hi - (uint64_t)lo, mv);
        }
        s.mean = mv[0];
        s.var = mv[1];
        s.sample_var = mv[2];
        memcpy(result, &s, sizeof s);
        break;
    }
    }
}

PCLR__FN pclr_result pclr__finalize(const pclr_config *cfg, const pclr__layout *layout, const void *state, void *result) {
    pclr__finalizer f;
    pclr__finalizer_init(&f, cfg, layout);
    pclr__finalize_one(&f, state, result);
    return PCLR_OK;
}

/* count states (the layout's size apart) into count results (rs bytes apart): one copy where they are the same bytes. */
PCLR__FN void pclr__finalize_states(const pclr__finalizer *f, size_t rs, const unsigned char *states, uint64_t count, void *results) {
    const size_t ss = f->l.size;
    unsigned char *out = (unsigned char *)results;
    uint64_t k;
    if (f->op == PCLR_CUSTOM) {
        pclr__finalize_custom(f, rs, states, count, results);
        return;
    }
    if (f->same && rs == ss) {
        if (count && (const void *)states != results) memmove(results, states, (size_t)(count * rs));
        return;
    }
    if (f->plain && (f->op == PCLR_ARGMIN || f->op == PCLR_ARGMAX || f->op == PCLR_MINMAX)) { /* the common layouts' ops: copies */
        const size_t second = f->op == PCLR_MINMAX ? f->hi : f->i, second_bytes = f->op == PCLR_MINMAX ? f->value_bytes : 8;
        /* a 16-byte result: the value in its 8-byte scalar, then the index or the max; sizes the compiler sees */
#define PCLR__FINALIZE_PAIR(VB, SB)                                 \
    for (k = 0; k < count; ++k, states += ss, out += 16) {          \
        unsigned char r[16] = {0};                                  \
        memcpy(r, states + f->lo, VB);                              \
        memcpy(r + 8, states + second, SB);                         \
        memcpy(out, r, 16);                                         \
    }
        if (f->value_bytes == 4 && second_bytes == 8) PCLR__FINALIZE_PAIR(4, 8)
        else if (f->value_bytes == 4) PCLR__FINALIZE_PAIR(4, 4)
        else PCLR__FINALIZE_PAIR(8, 8)
#undef PCLR__FINALIZE_PAIR
        return;
    }
    if (f->op == PCLR_SUM && f->has_c && f->l.sum == PCLR_FLOAT) { /* compensated float sums: s + c */
        for (k = 0; k < count; ++k, states += ss, out += rs) {
            float s, c;
            memcpy(&s, states + f->s, 4);
            memcpy(&c, states + f->c, 4);
            if (s - s == 0) s = s + c; /* (an infinite or NaN s is the sum itself) */
            memcpy(out, &s, 4);
        }
        return;
    }
    for (k = 0; k < count; ++k) pclr__finalize_one(f, states + k * ss, out + k * rs);
}

PCLR_API pclr_result pclr_finalize(const pclr_config *cfg, const void *state, void *result) {
    pclr_config c;
    pclr__layout l;
    pclr_result r;
    if (!state || !result) return PCLR_ERR_NULL_POINTER;
    if ((r = pclr__resolve_op(cfg, &c, 0)) != PCLR_OK) return r;
    pclr__layout_of(&c, &l);
    return pclr__finalize(&c, &l, state, result);
}

/* The atomic finish's running value lives in one of six slots, 32-bit unsigned
   or signed (by the state's type) x sum, min, max; between calls it holds the
   identity of the uint or int op (pclr_identity), which every element type
   sharing the slot uses too. */
PCLR__FN int pclr__atomic_slot(const pclr_config *c) {
    pclr__layout l;
    pclr__layout_of(c, &l);
    return (l.field[0].type == PCLR_INT ? 3 : 0) + ((int)c->op - (int)PCLR_SUM);
}

/* The result of n = 0 for cfg's type, op and accumulator. */
PCLR__FN pclr_result pclr__identity_result(const pclr_config *cfg, void *out) {
    pclr_config c;
    pclr__layout l;
    unsigned char state[64];
    pclr_result r;
    if (!out) return PCLR_ERR_NULL_POINTER;
    if ((r = pclr__resolve_op(cfg, &c, 0)) != PCLR_OK) return r;
    pclr__layout_of(&c, &l);
    if (c.op == PCLR_CUSTOM) return pclr_cpu_reduce_map(&c, NULL, NULL, 0, NULL, out); /* (no params: the identity reads none) */
    if (c.op == PCLR_HISTOGRAM) return PCLR_ERR_UNSUPPORTED_COMBINATION; /* (its range is the reduce's: pclr__hist_empty) */
    pclr__identity_state(&l, pclr__op_def_of(c.op, c.accumulate, l.value), state);
    return pclr__finalize(&c, &l, state, out);
}

PCLR_API pclr_result pclr_identity(pclr_type type, pclr_op op, void *out) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.op = op;
    return pclr__identity_result(&c, out);
}

/* ------------------------------------------------ CPU reference (every type, op, accumulator)  >>cpu
   pclr__cpu_reference(type, op, acc, data, n, result): type, op and acc are
   resolved (never DEFAULT). Writes pclr_result_size bytes (see "results").
   Order: float sums and the moments of stats are computed in blocks of
   PCLR__REF_BLOCK elements, each block sequential, blocks combined pairwise
   by a recursive split whose left part is a multiple of the block (the shape
   of the kernels' trees, and of the first CPU reference). Integer sums wrap
   (computed on unsigned bits), min/max/arg/count do not depend on order. */
#define PCLR__REF_BLOCK 256u
#define PCLR__REF_SPLIT(n) (((n) / 2 + PCLR__REF_BLOCK - 1) / PCLR__REF_BLOCK * PCLR__REF_BLOCK)

static float pclr__ref_f32_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static double pclr__ref_f64_bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static int pclr__ref_neg_f32(float v) { uint32_t b; memcpy(&b, &v, 4); return (int)(b >> 31); }
static int pclr__ref_neg_f64(double v) { uint64_t b; memcpy(&b, &v, 8); return (int)(b >> 63); }

/* IEEE binary16 bits to float, exactly: subnormals are m * 2^-24 (exact in
   float arithmetic), inf and NaN keep their payload bits. */
static float pclr__ref_half(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (uint32_t)(h >> 10) & 0x1fu, m = (uint32_t)h & 0x3ffu;
    if (e == 0) {
        float f = (float)m * 5.9604644775390625e-8f; /* 2^-24 */
        return sign ? -f : f;
    }
    if (e == 31) return pclr__ref_f32_bits(sign | 0x7f800000u | (m << 13));
    return pclr__ref_f32_bits(sign | ((e + 112u) << 23) | (m << 13));
}

/* ---- the CPU reference's evaluation of a map */

/* v of type from as type to (C's conversions; floats to integers saturate, NaN gives 0) */
static pclr__mval pclr__mconv(pclr__mval v, pclr_type from, pclr_type to) {
    pclr__mval r;
    if (from == to) return v;
    if (to == PCLR_FLOAT || to == PCLR_DOUBLE) {
        double d = from == PCLR_FLOAT || from == PCLR_DOUBLE ? v.d : pclr__mis_signed(from) ? (double)v.i : (double)v.u;
        if (to == PCLR_FLOAT) d = pclr__mis_int(from) ? (double)(pclr__mis_signed(from) ? (float)v.i : (float)v.u) : (double)(float)d;
        r.d = d;
        return r;
    }
    if (from == PCLR_FLOAT || from == PCLR_DOUBLE) {
        const double d = v.d;
        if (d != d) r.u = 0;
        else if (to == PCLR_INT) r.i = d >= 2147483648.0 ? INT32_MAX : d < -2147483648.0 ? INT32_MIN : (int64_t)(int32_t)d;
        else if (to == PCLR_UINT) r.u = d >= 4294967296.0 ? UINT32_MAX : d <= -1.0 ? 0 : (uint64_t)(uint32_t)d;
        else if (to == PCLR_INT64) r.i = d >= 9223372036854775808.0 ? INT64_MAX : d < -9223372036854775808.0 ? INT64_MIN : (int64_t)d;
        else r.u = d >= 18446744073709551616.0 ? UINT64_MAX : d <= -1.0 ? 0 : (uint64_t)d;
        return r;
    }
    /* integer to integer: wrap to the width (two's complement) */
    if (to == PCLR_INT) r.i = (int64_t)(int32_t)(uint32_t)v.u;
    else if (to == PCLR_UINT) r.u = (uint32_t)v.u;
    else r.u = v.u;
    return r;
}

#ifndef PCLREDUCE_NO_MAP /* the evaluator */
/* -a for an integer a of type t, wrapping to t's width (the negation of INT_MIN is INT_MIN) */
static pclr__mval pclr__mneg(pclr__mval a, pclr_type t) {
    a.u = 0 - a.u;
    return pclr__mconv(a, PCLR_UINT64, t);
}

typedef struct pclr__meval {
    const pclr__mtree *t;
    const unsigned char *x, *y; /* this element's bytes */
    uint64_t i;
    pclr__mval param[PCLR_MAP_MAX_PARAMS];
    const pclr__mval *state[3]; /* a reduction's fields: the state being assigned, a and b (PCLR__MS_*) */
} pclr__meval;

static pclr__mval pclr__mread(const unsigned char *p, pclr_type t) {
    pclr__mval r;
    r.u = 0;
    switch (t) {
    case PCLR_UINT8: r.i = *p; break;
    case PCLR_INT8: r.i = (int8_t)*p; break;
    case PCLR_UINT16: { uint16_t v; memcpy(&v, p, 2); r.i = v; break; }
    case PCLR_INT16: { int16_t v; memcpy(&v, p, 2); r.i = v; break; }
    case PCLR_HALF: { uint16_t v; memcpy(&v, p, 2); r.d = pclr__ref_half(v); break; }
    case PCLR_UINT: { uint32_t v; memcpy(&v, p, 4); r.u = v; break; }
    case PCLR_INT: { int32_t v; memcpy(&v, p, 4); r.i = v; break; }
    case PCLR_UINT64: memcpy(&r.u, p, 8); break;
    case PCLR_INT64: memcpy(&r.i, p, 8); break;
    case PCLR_FLOAT: { float v; memcpy(&v, p, 4); r.d = v; break; }
    default: memcpy(&r.d, p, 8); break;
    }
    return r;
}

static pclr__mval pclr__mev(const pclr__meval *V, int id);
static pclr__mval pclr__mev_as(const pclr__meval *V, int id, pclr_type to) {
    return pclr__mconv(pclr__mev(V, id), (pclr_type)V->t->node[id].type, to);
}
static int pclr__mtruth(pclr__mval v, pclr_type t) { return t == PCLR_FLOAT || t == PCLR_DOUBLE ? v.d != 0 : v.u != 0; }

static pclr__mval pclr__mev(const pclr__meval *V, int id) {
    const pclr__mnode *m = &V->t->node[id];
    const pclr_type t = (pclr_type)m->type;
    const int fl = t == PCLR_FLOAT;
    pclr__mval r, a, b, c;
    r.u = b.u = c.u = 0;
    switch (m->kind) {
    case PCLR__MN_LIT: if (t == PCLR_FLOAT || t == PCLR_DOUBLE) r.d = m->v.d; else r.u = m->v.u; return r;
    case PCLR__MN_X: case PCLR__MN_Y: {
        const pclr_type et = m->kind == PCLR__MN_X ? V->t->x : V->t->y;
        const unsigned char *p = m->kind == PCLR__MN_X ? V->x : V->y;
        return pclr__mread(p + (m->op < 4 ? m->op : 0) * pclr_type_size(et), et);
    }
    case PCLR__MN_I: r.u = V->i; return r;
    case PCLR__MN_PARAM: return V->param[m->op];
    case PCLR__MN_FIELD: return V->state[m->v.u][m->op];
    case PCLR__MN_NEG:
        a = pclr__mev(V, m->a[0]);
        if (t == PCLR_FLOAT || t == PCLR_DOUBLE) r.d = -a.d;
        else r = pclr__mneg(a, t);
        return r;
    case PCLR__MN_NOT: r.i = !pclr__mtruth(pclr__mev(V, m->a[0]), (pclr_type)V->t->node[m->a[0]].type); return r;
    case PCLR__MN_BNOT: a = pclr__mev(V, m->a[0]); r.u = ~a.u; return pclr__mconv(r, PCLR_UINT64, t);
    case PCLR__MN_COND:
        return pclr__mtruth(pclr__mev(V, m->a[0]), (pclr_type)V->t->node[m->a[0]].type) ? pclr__mev_as(V, m->a[1], t) : pclr__mev_as(V, m->a[2], t);
    case PCLR__MN_CAST: return pclr__mev_as(V, m->a[0], t);
    case PCLR__MN_BIN: {
        const int op = m->op;
        if (op == PCLR__MB_AND) { r.i = pclr__mtruth(pclr__mev(V, m->a[0]), (pclr_type)V->t->node[m->a[0]].type) && pclr__mtruth(pclr__mev(V, m->a[1]), (pclr_type)V->t->node[m->a[1]].type); return r; }
        if (op == PCLR__MB_OR) { r.i = pclr__mtruth(pclr__mev(V, m->a[0]), (pclr_type)V->t->node[m->a[0]].type) || pclr__mtruth(pclr__mev(V, m->a[1]), (pclr_type)V->t->node[m->a[1]].type); return r; }
        if (op >= PCLR__MB_LT) {
            const pclr_type ct = pclr__mcommon((pclr_type)V->t->node[m->a[0]].type, (pclr_type)V->t->node[m->a[1]].type);
            int lt, eq, gt;
            a = pclr__mev_as(V, m->a[0], ct);
            b = pclr__mev_as(V, m->a[1], ct);
            if (ct == PCLR_FLOAT || ct == PCLR_DOUBLE) { lt = a.d < b.d; eq = a.d == b.d; gt = a.d > b.d; }
            else if (pclr__mis_signed(ct)) { lt = a.i < b.i; eq = a.i == b.i; gt = a.i > b.i; }
            else { lt = a.u < b.u; eq = a.u == b.u; gt = a.u > b.u; }
            r.i = op == PCLR__MB_LT ? lt : op == PCLR__MB_LE ? (lt || eq) : op == PCLR__MB_GT ? gt : op == PCLR__MB_GE ? (gt || eq) : op == PCLR__MB_EQ ? eq : !eq;
            return r;
        }
        a = pclr__mev_as(V, m->a[0], t);
        b = pclr__mev_as(V, m->a[1], t);
        if (t == PCLR_FLOAT || t == PCLR_DOUBLE) {
            switch (op) {
            case PCLR__MB_ADD: r.d = fl ? (double)((float)a.d + (float)b.d) : a.d + b.d; break;
            case PCLR__MB_SUB: r.d = fl ? (double)((float)a.d - (float)b.d) : a.d - b.d; break;
            case PCLR__MB_MUL: r.d = fl ? (double)((float)a.d * (float)b.d) : a.d * b.d; break;
            case PCLR__MB_DIV: r.d = fl ? (double)((float)a.d / (float)b.d) : a.d / b.d; break;
            default: r.d = fl ? (double)fmodf((float)a.d, (float)b.d) : fmod(a.d, b.d); break;
            }
            return r;
        }
        {
            const int sg = pclr__mis_signed(t);
            const unsigned k = (unsigned)(b.u & (pclr_type_size(t) == 8 ? 63u : 31u)); /* a shift's count, modulo the width */
            switch (op) {
            case PCLR__MB_ADD: r.u = a.u + b.u; break;
            case PCLR__MB_SUB: r.u = a.u - b.u; break;
            case PCLR__MB_MUL: r.u = a.u * b.u; break;
            case PCLR__MB_BAND: r.u = a.u & b.u; break;
            case PCLR__MB_BOR: r.u = a.u | b.u; break;
            case PCLR__MB_BXOR: r.u = a.u ^ b.u; break;
            case PCLR__MB_SHL: r.u = a.u << k; break;
            case PCLR__MB_SHR: /* a signed value's ones shifted in, written out (C leaves >> of a negative to the compiler) */
                if (sg && a.i < 0) r.i = ~(~a.i >> k);
                else r.u = a.u >> k;
                break;
            case PCLR__MB_DIV:
                if (b.u == 0) r.u = 0;
                else if (sg && b.i == -1) r.u = 0 - a.u;
                else if (sg) r.i = a.i / b.i;
                else r.u = a.u / b.u;
                break;
            default:
                if (b.u == 0 || (sg && b.i == -1)) r.u = 0;
                else if (sg) r.i = a.i % b.i;
                else r.u = a.u % b.u;
                break;
            }
            return pclr__mconv(r, PCLR_UINT64, t);
        }
    }
    default: { /* PCLR__MN_CALL */
        const int f = m->op;
        if (pclr__mfuncs[f].kind == 2) {
            const pclr_type at = pclr__mfloating((pclr_type)V->t->node[m->a[0]].type);
            a = pclr__mev_as(V, m->a[0], at);
            r.i = f == PCLR__MF_ISNAN ? a.d != a.d : (a.d == a.d && (a.d - a.d) != (a.d - a.d));
            return r;
        }
        a = pclr__mev_as(V, m->a[0], t);
        if (m->n > 1) b = pclr__mev_as(V, m->a[1], t);
        if (m->n > 2) c = pclr__mev_as(V, m->a[2], t);
        if (f == PCLR__MF_MIN || f == PCLR__MF_MAX || f == PCLR__MF_CLAMP) {
            /* min(a, b) = b < a ? b : a; max(a, b) = b > a ? b : a; clamp = min(max(a, lo), hi) */
            int k;
            for (k = 0; k < (f == PCLR__MF_CLAMP ? 2 : 1); ++k) {
                const int want_min = f == PCLR__MF_MIN || (f == PCLR__MF_CLAMP && k == 1);
                const pclr__mval o = k ? c : b;
                int less, more;
                if (t == PCLR_FLOAT || t == PCLR_DOUBLE) { less = o.d < a.d; more = o.d > a.d; }
                else if (pclr__mis_signed(t)) { less = o.i < a.i; more = o.i > a.i; }
                else { less = o.u < a.u; more = o.u > a.u; }
                if (want_min ? less : more) a = o;
            }
            return a;
        }
        if (f == PCLR__MF_ABS) {
            if (t == PCLR_FLOAT || t == PCLR_DOUBLE) r.d = fabs(a.d);
            else if (pclr__mis_signed(t) && a.i < 0) r = pclr__mneg(a, t);
            else r = a;
            return r;
        }
        if (fl) {
            const float x = (float)a.d, y = m->n > 1 ? (float)b.d : 0.0f, z = m->n > 2 ? (float)c.d : 0.0f;
            float v;
            switch (f) {
            case PCLR__MF_SQRT: v = sqrtf(x); break;
            case PCLR__MF_RSQRT: v = 1.0f / sqrtf(x); break;
            case PCLR__MF_EXP: v = expf(x); break;
            case PCLR__MF_EXP2: v = exp2f(x); break;
            case PCLR__MF_LOG: v = logf(x); break;
            case PCLR__MF_LOG2: v = log2f(x); break;
            case PCLR__MF_POW: v = powf(x, y); break;
            case PCLR__MF_SIN: v = sinf(x); break;
            case PCLR__MF_COS: v = cosf(x); break;
            case PCLR__MF_FLOOR: v = floorf(x); break;
            case PCLR__MF_CEIL: v = ceilf(x); break;
            case PCLR__MF_ROUND: v = roundf(x); break;
            default: v = fmaf(x, y, z); break;
            }
            r.d = v;
        } else {
            const double x = a.d, y = m->n > 1 ? b.d : 0.0, z = m->n > 2 ? c.d : 0.0;
            switch (f) {
            case PCLR__MF_SQRT: r.d = sqrt(x); break;
            case PCLR__MF_RSQRT: r.d = 1.0 / sqrt(x); break;
            case PCLR__MF_EXP: r.d = exp(x); break;
            case PCLR__MF_EXP2: r.d = exp2(x); break;
            case PCLR__MF_LOG: r.d = log(x); break;
            case PCLR__MF_LOG2: r.d = log2(x); break;
            case PCLR__MF_POW: r.d = pow(x, y); break;
            case PCLR__MF_SIN: r.d = sin(x); break;
            case PCLR__MF_COS: r.d = cos(x); break;
            case PCLR__MF_FLOOR: r.d = floor(x); break;
            case PCLR__MF_CEIL: r.d = ceil(x); break;
            case PCLR__MF_ROUND: r.d = round(x); break;
            default: r.d = fma(x, y, z); break;
            }
        }
        return r;
    }
    }
}

/* The mapped values of n elements (of types t->x, t->y) as an array of t->type. */
/* An evaluator of t with the parameters' values (NULL: zeros). */
static void pclr__meval_init(pclr__meval *V, const pclr__mtree *t, const double *params) {
    int k;
    memset(V, 0, sizeof *V);
    V->t = t;
    for (k = 0; k < t->params; ++k) {
        pclr__mval p;
        p.d = params ? params[k] : 0.0;
        V->param[k] = pclr__mconv(p, PCLR_DOUBLE, t->param[k]);
    }
}
static void pclr__map_apply(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, void *out) {
    pclr__meval V;
    const size_t xs = pclr_type_size(t->x) * (size_t)t->comps, ys = t->y ? pclr_type_size(t->y) * (size_t)t->comps : 0;
    const size_t os = pclr_type_size(t->type);
    uint64_t j;
    pclr__meval_init(&V, t, params);
    for (j = 0; j < n; ++j) {
        pclr__mval v;
        V.x = (const unsigned char *)x + j * xs;
        V.y = y ? (const unsigned char *)y + j * ys : NULL;
        V.i = j;
        v = pclr__mev_as(&V, t->root, t->type);
        if (t->type == PCLR_FLOAT) { const float f = (float)v.d; memcpy((char *)out + j * os, &f, 4); }
        else if (t->type == PCLR_DOUBLE) memcpy((char *)out + j * os, &v.d, 8);
        else if (os == 4) { const uint32_t u = (uint32_t)v.u; memcpy((char *)out + j * os, &u, 4); }
        else memcpy((char *)out + j * os, &v.u, 8);
    }
}

/* A histogram on the host (the CPU reference): each element's value by the map, binned as the kernels bin
   it (pclr__hist_bin); params: the map's parameters' values, then lo and hi. */
static pclr_result pclr__hist_cpu(const pclr_config *c, const pclr__mtree *t, const void *x, const void *y, uint64_t n,
                                  const double *params, void *result) {
    pclr__meval V;
    const size_t xs = pclr_type_size(t->x) * (size_t)t->comps, ys = t->y ? pclr_type_size(t->y) * (size_t)t->comps : 0;
    const int fl = pclr__hist_type(c) == PCLR_FLOAT;
    const char *why = NULL;
    double r[3];
    uint64_t flow[3] = {0, 0, 0}, j;
    unsigned char *counts = (unsigned char *)result + PCLR__HIST_HEADER;
    uint32_t *sums = NULL; /* weighted: each entry's exact sum (PCLR__HIST_WORDS words) */
    pclr_result e;
    if ((e = pclr__hist_range(pclr__hist_type(c), c->bins, params[t->params], params[t->params + 1], r, &why)) != PCLR_OK) return e;
    if (c->weighted && !(sums = (uint32_t *)calloc(((size_t)c->bins + 3) * PCLR__HIST_WORDS, 4))) return PCLR_ERR_OUT_OF_MEMORY;
    memset(counts, 0, 8 * (size_t)c->bins);
    pclr__meval_init(&V, t, params);
    for (j = 0; j < n; ++j) {
        pclr__mval v;
        double d;
        uint32_t b;
        V.x = (const unsigned char *)x + j * xs;
        V.y = y ? (const unsigned char *)y + j * ys : NULL;
        V.i = j;
        v = pclr__mev_as(&V, t->root, t->type);
        d = t->type == PCLR_FLOAT ? (double)(float)v.d : t->type == PCLR_DOUBLE ? v.d : t->type == PCLR_INT ? (double)(int32_t)v.u
          : t->type == PCLR_UINT ? (double)(uint32_t)v.u : t->type == PCLR_INT64 ? (double)(int64_t)v.u : (double)v.u;
        b = pclr__hist_bin(fl, d, r, c->bins, c->clamp);
        if (sums) {
            float w;
            memcpy(&w, V.y, 4);
            pclr__hist_weigh(sums + (size_t)b * PCLR__HIST_WORDS, w);
        }
        if (b < c->bins) {
            uint64_t w;
            memcpy(&w, counts + 8 * (size_t)b, 8);
            ++w;
            memcpy(counts + 8 * (size_t)b, &w, 8);
        } else {
            ++flow[b - c->bins];
        }
    }
    pclr__hist_header(c->bins, c->weighted, flow, r[0], r[1], result);
    for (j = 0; sums && j < (uint64_t)c->bins + 3; ++j) {
        const double v = pclr__hist_sum_value(sums + j * PCLR__HIST_WORDS);
        memcpy(counts + 8 * (c->bins + j), &v, 8);
    }
    free(sums);
    return PCLR_OK;
}

/* ---- a reduction of the user's (op custom) on the host: its lift, merge and results evaluated on states
   of pclr__mvals (one per field, in its type), the CPU reference, the states' bytes, and the checks */
static void pclr__ridentity(const pclr__mtree *t, pclr__mval *s) {
    pclr__meval V;
    int f;
    pclr__meval_init(&V, t, NULL);
    for (f = 0; f < t->fields; ++f) s[f] = pclr__mev_as(&V, t->identity[f], t->ftype[f]);
}
/* s = lift of the element V is at (the fields lift leaves: their identity, id) */
static void pclr__rlift(pclr__meval *V, const pclr__mval *id, pclr__mval *s) {
    const pclr__mtree *t = V->t;
    int k;
    memcpy(s, id, sizeof *s * (size_t)t->fields);
    V->state[PCLR__MS_SELF] = s;
    for (k = 0; k < t->lifts; ++k) s[t->lift[k][0]] = pclr__mev_as(V, t->lift[k][1], t->ftype[t->lift[k][0]]);
}
/* s = merge(a, b) (s may be a or b) */
static void pclr__rmerge(const pclr__mtree *t, const pclr__mval *a, const pclr__mval *b, pclr__mval *s) {
    pclr__meval V;
    pclr__mval out[PCLR_CUSTOM_MAX];
    int k;
    memset(&V, 0, sizeof V);
    V.t = t;
    V.state[PCLR__MS_SELF] = out;
    V.state[PCLR__MS_A] = a;
    V.state[PCLR__MS_B] = b;
    memset(out, 0, sizeof out);
    for (k = 0; k < t->merges; ++k) out[t->merge[k][0]] = pclr__mev_as(&V, t->merge[k][1], t->ftype[t->merge[k][0]]);
    memcpy(s, out, sizeof *s * (size_t)t->fields);
}
/* Whether state s is the identity id, bit for bit (the kernels' pclr_is_identity). */
static int pclr__ris_identity(const pclr__mtree *t, const pclr__mval *id, const pclr__mval *s) {
    int k;
    for (k = 0; k < t->fields; ++k)
        if (pclr__rbits(s[k], t->ftype[k]) != pclr__rbits(id[k], t->ftype[k])) return 0;
    return 1;
}
/* The kernels' merge between work-items and groups: with the identity (bit for bit: an empty part) it is the
   other state; else the description's. */
static void pclr__rmerge_kernel(const pclr__mtree *t, const pclr__mval *id, const pclr__mval *a, const pclr__mval *b, pclr__mval *s) {
    const int a_id = pclr__ris_identity(t, id, a), b_id = pclr__ris_identity(t, id, b);
    if (b_id || a_id) memmove(s, b_id ? a : b, sizeof *s * (size_t)t->fields);
    else pclr__rmerge(t, a, b, s);
}
/* The kernels' fold of a lifted element into a work-item's accumulator: the accumulator equal to the identity
   is replaced; else the description's merge (the element is a part with an element, whatever its bits). */
static void pclr__rfold_in(const pclr__mtree *t, const pclr__mval *id, pclr__mval *acc, const pclr__mval *e) {
    if (pclr__ris_identity(t, id, acc)) memmove(acc, e, sizeof *acc * (size_t)t->fields);
    else pclr__rmerge(t, acc, e, acc);
}
/* A value of type t (int, uint, long, ulong, float, double) as a pclr_scalar, and back. */
static pclr_scalar pclr__rscalar(pclr__mval v, pclr_type t) {
    pclr_scalar r;
    memset(&r, 0, sizeof r);
    if (t == PCLR_FLOAT) r.f32 = (float)v.d;
    else if (t == PCLR_DOUBLE) r.f64 = v.d;
    else if (t == PCLR_INT || t == PCLR_UINT) r.u32 = (uint32_t)v.u;
    else r.u64 = v.u;
    return r;
}
static pclr__mval pclr__rvalue(const pclr_scalar *v, pclr_type t) {
    pclr__mval r;
    r.u = 0;
    if (t == PCLR_FLOAT) r.d = v->f32;
    else if (t == PCLR_DOUBLE) r.d = v->f64;
    else if (t == PCLR_INT) r.i = v->i32;
    else if (t == PCLR_UINT) r.u = v->u32;
    else r.u = v->u64;
    return r;
}
/* The result of final state s: its results' values and its fields. */
static void pclr__rresult(const pclr__mtree *t, const pclr__mval *s, pclr_custom_result *out) {
    pclr__meval V;
    int k;
    memset(out, 0, sizeof *out);
    memset(&V, 0, sizeof V);
    V.t = t;
    V.state[PCLR__MS_SELF] = s;
    out->values = t->results;
    out->fields = t->fields;
    for (k = 0; k < t->results; ++k) {
        const pclr_type rt = (pclr_type)t->node[t->result[k]].type;
        out->type[k] = rt;
        out->value[k] = pclr__rscalar(pclr__mev(&V, t->result[k]), rt);
    }
    for (k = 0; k < t->fields; ++k) {
        out->state_type[k] = t->ftype[k];
        out->field[k] = pclr__rscalar(s[k], t->ftype[k]);
    }
}
/* The CPU reference: elements [lo, hi) lifted and merged into acc, in blocks of PCLR__REF_BLOCK elements
   merged in index order, the blocks pairwise (the shape of the kernels' trees; float merges round less). */
static void pclr__rreduce_range(pclr__meval *V, const pclr__mval *id, const void *x, const void *y, uint64_t lo, uint64_t hi, pclr__mval *acc) {
    const pclr__mtree *t = V->t;
    const size_t xs = pclr_type_size(t->x) * (size_t)t->comps, ys = t->y ? pclr_type_size(t->y) * (size_t)t->comps : 0;
    pclr__mval e[PCLR_CUSTOM_MAX];
    uint64_t j;
    memcpy(acc, id, sizeof *acc * (size_t)t->fields);
    if (hi - lo > 256) {
        const uint64_t mid = lo + ((hi - lo) / 2 + 255) / 256 * 256;
        pclr__rreduce_range(V, id, x, y, lo, mid, acc);
        pclr__rreduce_range(V, id, x, y, mid, hi, e);
        pclr__rmerge_kernel(t, id, acc, e, acc);
        return;
    }
    for (j = lo; j < hi; ++j) {
        V->x = (const unsigned char *)x + j * xs;
        V->y = y ? (const unsigned char *)y + j * ys : NULL;
        V->i = j;
        pclr__rlift(V, id, e);
        pclr__rfold_in(t, id, acc, e);
    }
}
static void pclr__rreduce(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, pclr_custom_result *out) {
    pclr__mval id[PCLR_CUSTOM_MAX], acc[PCLR_CUSTOM_MAX];
    pclr__meval V;
    pclr__meval_init(&V, t, params);
    pclr__ridentity(t, id);
    pclr__rreduce_range(&V, id, x, y, 0, n, acc);
    pclr__rresult(t, acc, out);
}
/* the same into a result's bytes (no alignment needed) */
PCLR__FN void pclr__rreduce_to(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, void *out) {
    pclr_custom_result r;
    pclr__rreduce(t, x, y, n, params, &r);
    memcpy(out, &r, sizeof r);
}

/* Whether two values of type t are the same: integers bit for bit; floats within a few roundings
   (merge(identity, s) may compute s again: a mean's s * n / n), NaN as NaN. */
static int pclr__rsame(pclr__mval a, pclr__mval b, pclr_type t) {
    double tol;
    if (pclr__mis_int(t)) return a.u == b.u;
    if (a.d != a.d || b.d != b.d) return a.d != a.d && b.d != b.d;
    if (a.d == b.d) return 1;
    if (a.d - a.d != 0 || b.d - b.d != 0) return 0; /* (an infinity: only itself) */
    tol = (t == PCLR_FLOAT ? 1e-5 : 1e-13) * (fabs(a.d) > fabs(b.d) ? fabs(a.d) : fabs(b.d));
    return fabs(a.d - b.d) <= tol;
}
/* "{m: 1.5, s: 2}" into buf */
static void pclr__rstate_text(const pclr__mtree *t, const pclr__mval *s, char *buf, size_t cap) {
    size_t len = 0;
    int k;
    pclr__appendf(buf, cap, &len, "{");
    for (k = 0; k < t->fields; ++k) {
        const pclr_type ft = t->ftype[k];
        pclr__appendf(buf, cap, &len, "%s%s: ", k ? ", " : "", t->fname[k]);
        if (ft == PCLR_FLOAT || ft == PCLR_DOUBLE) pclr__appendf(buf, cap, &len, ft == PCLR_FLOAT ? "%.9g" : "%.17g", s[k].d);
        else if (pclr__mis_signed(ft)) pclr__appendf(buf, cap, &len, "%lld", (long long)s[k].i);
        else pclr__appendf(buf, cap, &len, "%llu", (unsigned long long)s[k].u);
    }
    pclr__appendf(buf, cap, &len, "}");
}
static int pclr__rstates_same(const pclr__mtree *t, const pclr__mval *a, const pclr__mval *b) {
    int k;
    for (k = 0; k < t->fields; ++k) if (!pclr__rsame(a[k], b[k], t->ftype[k])) return 0;
    return 1;
}

static uint64_t pclr__xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The checks before a reduction builds, on the CPU evaluator: its identity is neutral for merge (on both
   sides), and a merge of integer fields only is associative, over states lifted from random elements
   (and random parameters) and merges of them. A failure: PCLR_ERR_INVALID_MAP and the counterexample. */
enum { PCLR__RSTATES = 256 };
/* PCLR__RSTATES random states, the same on every call: the first half lifted from random elements (floats in
   [-10, 10], integers any bits; every other one of five values, -2..2, so that ties come up) at random
   indexes, with random parameters, the rest merges of those. */
static void pclr__rstates(const pclr__mtree *t, const pclr__mval *id, pclr__mval (*st)[PCLR_CUSTOM_MAX]) {
    unsigned char xb[32], yb[32];
    double params[PCLR_MAP_MAX_PARAMS];
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    pclr__meval V;
    int k, j;
    pclr__meval_init(&V, t, NULL);
    for (k = 0; k < PCLR__RSTATES; ++k) {
        if (k % 32 == 0) { /* new parameters now and then: a threshold's both sides */
            for (j = 0; j < t->params; ++j) params[j] = (double)(int64_t)(pclr__xorshift(&rng) % 2001) / 100.0 - 10.0;
            pclr__meval_init(&V, t, params);
        }
        if (k >= PCLR__RSTATES / 2) { /* merges of lifted ones */
            const uint64_t p = pclr__xorshift(&rng) % (PCLR__RSTATES / 2), q = pclr__xorshift(&rng) % (PCLR__RSTATES / 2);
            pclr__rmerge(t, st[p], st[q], st[k]);
            continue;
        }
        for (j = 0; j < 2; ++j) {
            const pclr_type et = j ? t->y : t->x;
            unsigned char *p = j ? yb : xb;
            int q;
            if (!et) continue;
            for (q = 0; q < t->comps; ++q) {
                const uint64_t r = k % 2 ? pclr__xorshift(&rng) % 5 - 2 : pclr__xorshift(&rng);
                const double d = k % 2 ? (double)(int64_t)r : (double)(int64_t)(r % 2000001) / 100000.0 - 10.0;
                const size_t es = pclr_type_size(et);
                if (et == PCLR_FLOAT) { const float f = (float)d; memcpy(p + q * es, &f, 4); }
                else if (et == PCLR_DOUBLE) memcpy(p + q * es, &d, 8);
                else if (et == PCLR_HALF) { /* (-2, -1, 0, 1, 2; else near 1, either sign) */
                    static const uint16_t few[5] = {0xc000u, 0xbc00u, 0, 0x3c00u, 0x4000u};
                    const uint16_t h = k % 2 ? few[(r + 2) % 5] : (uint16_t)((0x3c00u + (r % 0x800u) - 0x400u) | (uint16_t)(r >> 40 & 0x8000u));
                    memcpy(p + q * es, &h, 2);
                } else memcpy(p + q * es, &r, es);
            }
        }
        V.x = xb;
        V.y = t->y ? yb : NULL;
        V.i = pclr__xorshift(&rng) % 1000000u;
        pclr__rlift(&V, id, st[k]);
    }
}

/* The checks, on one set of states; *commutes (when asked): whether merge(p, q) and merge(q, p) are the same bits
   (NaN as NaN) for those states (ties among them). One that commutes runs in any order, as the built-in ops do; one
   that does not (a first index, a last value) in order: pclr__ordered. */
static pclr_result pclr__reduce_verify(const pclr__mtree *t, char *why, size_t cap, int *commutes) {
    pclr__mval (*st)[PCLR_CUSTOM_MAX] = (pclr__mval (*)[PCLR_CUSTOM_MAX])malloc(sizeof *st * PCLR__RSTATES);
    pclr__mval id[PCLR_CUSTOM_MAX], m1[PCLR_CUSTOM_MAX], m2[PCLR_CUSTOM_MAX];
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int k, ints = 1;
    char a[400], b[400], c[400];
    enum { STATES = PCLR__RSTATES };
    if (!st) {
        if (why && cap) snprintf(why, cap, "out of host memory for the reduction's checks");
        return PCLR_ERR_OUT_OF_MEMORY;
    }
#define PCLR__RAND() pclr__xorshift(&rng)
    for (k = 0; k < t->fields; ++k) ints &= pclr__mis_int(t->ftype[k]);
    pclr__ridentity(t, id);
    pclr__rstates(t, id, st);
    for (k = 0; k < STATES; ++k) {
        pclr__rmerge(t, id, st[k], m1);
        pclr__rmerge(t, st[k], id, m2);
        if (!pclr__rstates_same(t, m1, st[k]) || !pclr__rstates_same(t, m2, st[k])) {
            const int left = !pclr__rstates_same(t, m1, st[k]);
            pclr__rstate_text(t, st[k], a, sizeof a);
            pclr__rstate_text(t, left ? m1 : m2, b, sizeof b);
            if (why && cap) snprintf(why, cap, "reduce: the identity is not neutral for merge: for s = %s, merge(%s) = %s", a,
                                     left ? "identity, s" : "s, identity", b);
            free(st);
            return PCLR_ERR_INVALID_MAP;
        }
    }
    for (k = 0; ints && k < STATES; ++k) {
        const uint64_t qk = PCLR__RAND() % STATES, rk = PCLR__RAND() % STATES;
        const pclr__mval *p = st[k], *q = st[qk], *r = st[rk];
        pclr__rmerge(t, p, q, m1);
        pclr__rmerge(t, m1, r, m1);
        pclr__rmerge(t, q, r, m2);
        pclr__rmerge(t, p, m2, m2);
        if (!pclr__rstates_same(t, m1, m2)) {
            pclr__rstate_text(t, p, a, sizeof a);
            pclr__rstate_text(t, q, b, sizeof b);
            pclr__rstate_text(t, r, c, sizeof c);
            if (why && cap) {
                size_t len = 0;
                pclr__appendf(why, cap, &len, "reduce: an integer merge must be associative: for p = %s, q = %s, r = %s, merge(merge(p, q), r) = ", a, b, c);
                pclr__rstate_text(t, m1, a, sizeof a);
                pclr__rstate_text(t, m2, b, sizeof b);
                pclr__appendf(why, cap, &len, "%s but merge(p, merge(q, r)) = %s", a, b);
            }
            free(st);
            return PCLR_ERR_INVALID_MAP;
        }
    }
    for (k = 0; commutes && k < STATES; ++k) {
        const uint64_t q = k % 2 ? (uint64_t)(k ^ 1) : PCLR__RAND() % STATES; /* (neighbours: both of few values) */
        int f;
        pclr__rmerge(t, st[k], st[q], m1);
        pclr__rmerge(t, st[q], st[k], m2);
        for (f = 0; f < t->fields; ++f)
            if (pclr__rbits(m1[f], t->ftype[f]) != pclr__rbits(m2[f], t->ftype[f]) &&
                !(!pclr__mis_int(t->ftype[f]) && m1[f].d != m1[f].d && m2[f].d != m2[f].d))
                *commutes = 0;
        if (!*commutes) break;
    }
#undef PCLR__RAND
    free(st);
    return PCLR_OK;
}

/* A reduction's states (op custom) into their results, the description parsed once. */
static void pclr__finalize_custom(const pclr__finalizer *f, size_t rs, const unsigned char *states, uint64_t count, void *results) {
    pclr__mtree t;
    pclr__mval s[PCLR_CUSTOM_MAX];
    pclr_custom_result r;
    uint64_t k;
    int j;
    if (pclr__map_parse(&f->cfg, &t, NULL, 0) != PCLR_OK) return; /* (resolved: it parses) */
    for (k = 0; k < count; ++k) {
        for (j = 0; j < t.fields; ++j) s[j] = pclr__mread(states + k * f->l.size + f->l.offset[j], t.ftype[j]);
        pclr__rresult(&t, s, &r);
        memcpy((unsigned char *)results + k * rs, &r, sizeof r);
    }
}

/* pclr_combine's: the two results' states merged, the results computed from the merged state. */
static pclr_result pclr__combine_custom(const pclr_config *c, const pclr_custom_result *a, const pclr_custom_result *b, pclr_custom_result *out) {
    pclr__mtree *t = (pclr__mtree *)malloc(sizeof *t);
    pclr__mval x[PCLR_CUSTOM_MAX], y[PCLR_CUSTOM_MAX], id[PCLR_CUSTOM_MAX];
    pclr_result r;
    int k;
    if (!t) return PCLR_ERR_OUT_OF_MEMORY;
    if ((r = pclr__map_parse(c, t, NULL, 0)) == PCLR_OK) {
        for (k = 0; k < t->fields; ++k) {
            x[k] = pclr__rvalue(&a->field[k], t->ftype[k]);
            y[k] = pclr__rvalue(&b->field[k], t->ftype[k]);
        }
        pclr__ridentity(t, id);
        pclr__rmerge_kernel(t, id, x, y, x);
        pclr__rresult(t, x, out);
    }
    free(t);
    return r;
}
#else /* PCLREDUCE_NO_MAP: never called (pclr__map_parse refuses every map) */
static void pclr__finalize_custom(const pclr__finalizer *f, size_t rs, const unsigned char *states, uint64_t count, void *results) {
    (void)f; (void)rs; (void)states; (void)count; (void)results;
}
static void pclr__rreduce(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, pclr_custom_result *out) {
    (void)t; (void)x; (void)y; (void)n; (void)params; (void)out;
}
PCLR__FN void pclr__rreduce_to(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, void *out) {
    (void)t; (void)x; (void)y; (void)n; (void)params; (void)out;
}
static pclr_result pclr__combine_custom(const pclr_config *c, const pclr_custom_result *a, const pclr_custom_result *b, pclr_custom_result *out) {
    (void)c; (void)a; (void)b; (void)out;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
static pclr_result pclr__reduce_verify(const pclr__mtree *t, char *why, size_t cap, int *commutes) {
    (void)t; (void)why; (void)cap; (void)commutes;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
static void pclr__map_apply(const pclr__mtree *t, const void *x, const void *y, uint64_t n, const double *params, void *out) {
    (void)t; (void)x; (void)y; (void)n; (void)params; (void)out;
}
static pclr_result pclr__hist_cpu(const pclr_config *c, const pclr__mtree *t, const void *x, const void *y, uint64_t n,
                                  const double *params, void *result) {
    (void)c; (void)t; (void)x; (void)y; (void)n; (void)params; (void)result;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
#endif /* PCLREDUCE_NO_MAP */

/* Kahan-Babuska-Neumaier state in float or double. */
typedef struct pclr__ref_kbn_f32 { float s, c; } pclr__ref_kbn_f32;
typedef struct pclr__ref_kbn_f64 { double s, c; } pclr__ref_kbn_f64;
static void pclr__ref_kbn_fold_f32(pclr__ref_kbn_f32 *a, float x) {
    float t = a->s + x;
    float as = a->s < 0 ? -a->s : a->s, ax = x < 0 ? -x : x;
    float d = as >= ax ? (a->s - t) + x : (x - t) + a->s;
    a->c = a->c + d;
    a->s = t;
}
static void pclr__ref_kbn_fold_f64(pclr__ref_kbn_f64 *a, double x) {
    double t = a->s + x;
    double as = a->s < 0 ? -a->s : a->s, ax = x < 0 ? -x : x;
    double d = as >= ax ? (a->s - t) + x : (x - t) + a->s;
    a->c = a->c + d;
    a->s = t;
}

/* Moments of a part about a shift h (the kernels' state): count, h, d1 = sum (x - h), m2 = sum (x - h)^2. */
typedef struct pclr__ref_mom_f32 { uint64_t n; float h, d1, m2; } pclr__ref_mom_f32;
typedef struct pclr__ref_mom_f64 { uint64_t n; double h, d1, m2; } pclr__ref_mom_f64;
typedef struct pclr__ref_mom_int { uint64_t n, h; double d1, m2; } pclr__ref_mom_int; /* h: the value's 64-bit bits */
/* Floats: two parts merged as the kernels' pclr_merge does (PCLR__OP_STATS_MERGE); an empty part is skipped. */
#define PCLR__REF_CHAN_FN(name, ST, M)                                                  \
    static ST name(ST a, ST b) {                                                        \
        M na, nb, n, ca, cb, delta, c, m2, s, r;                                        \
        if (b.n == 0) return a;                                                         \
        if (a.n == 0) return b;                                                         \
        na = (M)a.n; nb = (M)b.n; n = na + nb; ca = a.d1 / na; cb = b.d1 / nb;          \
        delta = (b.h - a.h) + (cb - ca);                                                \
        c = ca + delta * (nb / n);                                                      \
        m2 = (a.m2 - a.d1 * ca) + (b.m2 - b.d1 * cb) + delta * delta * (na * nb / n);   \
        s = a.h + c;                                                                    \
        r = c - (s - a.h);                                                              \
        a.h = s;                                                                        \
        a.d1 = r * n;                                                                   \
        a.m2 = m2 + a.d1 * r;                                                           \
        a.n += b.n;                                                                     \
        return a;                                                                       \
    }
PCLR__REF_CHAN_FN(pclr__ref_chan_f32, pclr__ref_mom_f32, float)
PCLR__REF_CHAN_FN(pclr__ref_chan_f64, pclr__ref_mom_f64, double)
/* x - h for integers (u: unsigned) of their 64-bit bits, exact before the rounding into double (pclr_diff) */
static double pclr__ref_idiff(uint64_t x, uint64_t h, int u) {
    const int ge = u ? x >= h : (int64_t)x >= (int64_t)h;
    return ge ? (double)(x - h) : -(double)(h - x);
}
/* Integers: b's moments moved onto a's shift (PCLR__OP_STATS_MERGE_INT) */
static pclr__ref_mom_int pclr__ref_chan_int(pclr__ref_mom_int a, pclr__ref_mom_int b, int u) {
    double nb, delta;
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    nb = (double)b.n;
    delta = pclr__ref_idiff(b.h, a.h, u);
    a.m2 = a.m2 + (b.m2 + delta * ((b.d1 + b.d1) + nb * delta));
    a.d1 = a.d1 + (b.d1 + nb * delta);
    a.n += b.n;
    return a;
}

/* What the per-type functions found; pclr__cpu_reference lays it out. */
typedef struct pclr__ref_parts {
    pclr_scalar sum, min, max, arg, arg2, prod, bits; /* arg2, index2: argminmax's max */
    uint64_t index, index2, count;
    double mean, var, sample_var;
} pclr__ref_parts;

/* mean, var, sample_var of a part's moments (pclr__stats_float, pclr__stats_int: as the backends' finalize) */
#define PCLR__REF_FINISH(p, mv) do { (p)->mean = (mv)[0]; (p)->var = (mv)[1]; (p)->sample_var = (mv)[2]; } while (0)

/* Sum tree in F (blocks sequential from +0, blocks pairwise). */
#define PCLR__REF_SUM_FN(name, ET, LOAD, F)                                             \
    static F name(const ET *x, uint64_t n) {                                            \
        if (n <= PCLR__REF_BLOCK) {                                                     \
            F a = (F)0;                                                                 \
            uint64_t i;                                                                 \
            for (i = 0; i < n; ++i) a = a + (F)LOAD(x, i);                              \
            return a;                                                                   \
        } else {                                                                        \
            uint64_t h = PCLR__REF_SPLIT(n);                                            \
            F l = name(x, h), r = name(x + h, n - h);                                   \
            return l + r;                                                               \
        }                                                                               \
    }
/* Product tree in F (blocks sequential from 1, blocks pairwise: the sums' shape). */
#define PCLR__REF_PROD_FN(name, ET, LOAD, F)                                            \
    static F name(const ET *x, uint64_t n) {                                            \
        if (n <= PCLR__REF_BLOCK) {                                                     \
            F a = (F)1;                                                                 \
            uint64_t i;                                                                 \
            for (i = 0; i < n; ++i) a = a * (F)LOAD(x, i);                              \
            return a;                                                                   \
        } else {                                                                        \
            uint64_t h = PCLR__REF_SPLIT(n);                                            \
            F l = name(x, h), r = name(x + h, n - h);                                   \
            return l * r;                                                               \
        }                                                                               \
    }
/* Compensated sum tree: each block folds its elements into (0, 0); two parts
   merge by folding b.s into a, then a.c += b.c. */
#define PCLR__REF_KBN_FN(name, ET, LOAD, F, ST, FOLD)                                   \
    static ST name(const ET *x, uint64_t n) {                                           \
        ST a;                                                                           \
        if (n <= PCLR__REF_BLOCK) {                                                     \
            uint64_t i;                                                                 \
            a.s = 0; a.c = 0;                                                           \
            for (i = 0; i < n; ++i) FOLD(&a, (F)LOAD(x, i));                            \
        } else {                                                                        \
            uint64_t h = PCLR__REF_SPLIT(n);                                            \
            ST b;                                                                       \
            a = name(x, h);                                                             \
            b = name(x + h, n - h);                                                     \
            FOLD(&a, b.s);                                                              \
            a.c = a.c + b.c;                                                            \
        }                                                                               \
        return a;                                                                       \
    }
/* Moments tree in M: per block about its first element h: d1 = sum (x - h), m2 = sum (x - h)^2;
   blocks merged pairwise (CHAN, as the kernels merge). n >= 1. */
#define PCLR__REF_MOM_FN(name, ET, LOAD, M, ST, CHAN)                                   \
    static ST name(const ET *x, uint64_t n) {                                           \
        if (n <= PCLR__REF_BLOCK) {                                                     \
            ST a;                                                                       \
            M h = (M)LOAD(x, 0), d1 = 0, m2 = 0;                                        \
            uint64_t i;                                                                 \
            for (i = 0; i < n; ++i) {                                                   \
                M d = (M)LOAD(x, i) - h;                                                \
                d1 = d1 + d;                                                            \
                m2 = m2 + d * d;                                                        \
            }                                                                           \
            a.n = n; a.h = h; a.d1 = d1; a.m2 = m2;                                     \
            return a;                                                                   \
        } else {                                                                        \
            uint64_t h = PCLR__REF_SPLIT(n);                                            \
            return CHAN(name(x, h), name(x + h, n - h));                                \
        }                                                                               \
    }
/* The same for integers (U: unsigned), the differences exact (pclr__ref_idiff) */
#define PCLR__REF_IMOM_FN(name, ET, U)                                                  \
    static pclr__ref_mom_int name(const ET *x, uint64_t n) {                            \
        if (n <= PCLR__REF_BLOCK) {                                                     \
            pclr__ref_mom_int a;                                                        \
            uint64_t i;                                                                 \
            a.n = n; a.h = (uint64_t)x[0]; a.d1 = 0; a.m2 = 0;                          \
            for (i = 0; i < n; ++i) {                                                   \
                double d = pclr__ref_idiff((uint64_t)x[i], a.h, U);                     \
                a.d1 = a.d1 + d;                                                        \
                a.m2 = a.m2 + d * d;                                                    \
            }                                                                           \
            return a;                                                                   \
        } else {                                                                        \
            uint64_t h = PCLR__REF_SPLIT(n);                                            \
            return pclr__ref_chan_int(name(x, h), name(x + h, n - h), U);               \
        }                                                                               \
    }

#define PCLR__REF_LOAD_PLAIN(x, i) ((x)[i])
#define PCLR__REF_LOAD_HALF(x, i) pclr__ref_half((x)[i])

/* The reference walks its elements in blocks of PCLR__REF_LANE: a loop of that fixed trip count with
   no branch in it (integer compares and selects, float bits as integer keys) is what compilers
   vectorize at -O2 (GCC's very-cheap cost model takes only loops without a remainder); the few
   elements after the last whole block go through the same code one at a time. */
#define PCLR__REF_LANE 256u
/* A block's elements and its fixed-length loop: BODY on element x[i + j] for j < len. */
#define PCLR__REF_BLOCK_LOOP(len, BODY)                                                 \
    if ((len) == PCLR__REF_LANE) { unsigned j; for (j = 0; j < PCLR__REF_LANE; ++j) { BODY } } \
    else { unsigned j; for (j = 0; j < (unsigned)(len); ++j) { BODY } }

/* Integer element type ET (values compared as ET; LO/HI its range). Sums
   are taken mod 2^64 on unsigned bits (the conversion to uint64_t is modular,
   so signed elements sign-extend); the native 32-bit sums are the low half.
   A block sums in 32 bits where that is exact or all that is kept (8/16-bit
   elements: a block's sum is below 2^24 in magnitude, sign-extended into the
   64-bit sum; 32-bit elements, native: the low half), else in 64. */
#define PCLR__REF_INT(S, ET, LO, HI)                                                    \
    static uint64_t pclr__ref_sum_##S(const ET *x, uint64_t n, int native) {            \
        uint64_t s = 0, i = 0;                                                          \
        if (sizeof(ET) <= 2 || (sizeof(ET) == 4 && native)) {                           \
            for (; i + PCLR__REF_LANE <= n; i += PCLR__REF_LANE) {                      \
                uint32_t b = 0;                                                         \
                PCLR__REF_BLOCK_LOOP(PCLR__REF_LANE, b += (uint32_t)x[i + j];)          \
                s += (uint64_t)b - ((uint64_t)(b >> 31) << 32);                         \
            }                                                                           \
        } else {                                                                        \
            for (; i + PCLR__REF_LANE <= n; i += PCLR__REF_LANE) {                      \
                uint64_t b = 0;                                                         \
                PCLR__REF_BLOCK_LOOP(PCLR__REF_LANE, b += (uint64_t)x[i + j];)          \
                s += b;                                                                 \
            }                                                                           \
        }                                                                               \
        for (; i < n; ++i) s += (uint64_t)x[i];                                         \
        return s;                                                                       \
    }                                                                                   \
    static void pclr__ref_minmax_##S(const ET *x, uint64_t n, ET *mn, ET *mx) {         \
        ET a = HI, b = LO;                                                              \
        uint64_t i;                                                                     \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            ET ba = HI, bb = LO;                                                        \
            PCLR__REF_BLOCK_LOOP(len, const ET v = x[i + j]; ba = v < ba ? v : ba; bb = v > bb ? v : bb;) \
            a = ba < a ? ba : a;                                                        \
            b = bb > b ? bb : b;                                                        \
            i += len;                                                                   \
        }                                                                               \
        *mn = a; *mx = b;                                                               \
    }                                                                                   \
    /* each block's best value (a branch-free loop); where it betters the best so far, \
       the block is searched again for its first index */                              \
    static uint64_t pclr__ref_arg_##S(const ET *x, uint64_t n, int want_max) {          \
        uint64_t i, k = UINT64_MAX;                                                     \
        ET b = want_max ? (ET)(LO) : (ET)(HI);                                          \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            ET m = want_max ? (ET)(LO) : (ET)(HI);                                      \
            if (want_max) { PCLR__REF_BLOCK_LOOP(len, const ET v = x[i + j]; m = v > m ? v : m;) } \
            else { PCLR__REF_BLOCK_LOOP(len, const ET v = x[i + j]; m = v < m ? v : m;) } \
            if (k == UINT64_MAX || (want_max ? m > b : m < b)) {                        \
                uint64_t j = 0;                                                         \
                while (x[i + j] != m) ++j;                                              \
                b = m;                                                                  \
                k = i + j;                                                              \
            }                                                                           \
            i += len;                                                                   \
        }                                                                               \
        return k;                                                                       \
    }                                                                                   \
    static uint64_t pclr__ref_count_##S(const ET *x, uint64_t n) {                      \
        uint64_t c = 0, i;                                                              \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            uint32_t b = 0;                                                             \
            PCLR__REF_BLOCK_LOOP(len, b += x[i + j] != 0;)                              \
            c += b;                                                                     \
            i += len;                                                                   \
        }                                                                               \
        return c;                                                                       \
    }                                                                                   \
    PCLR__REF_IMOM_FN(pclr__ref_mom_##S, ET, (ET)-1 > 0)                               \
    /* prod mod 2^64 on the unsigned bits (signed elements sign-extend); and, or, xor of the bits */ \
    static uint64_t pclr__ref_prod_##S(const ET *x, uint64_t n) {                       \
        uint64_t q = 1, i;                                                              \
        for (i = 0; i < n; ++i) q *= (uint64_t)x[i];                                    \
        return q;                                                                       \
    }                                                                                   \
    static uint64_t pclr__ref_bitwise_##S(const ET *x, uint64_t n, pclr_op op) {        \
        uint64_t b = op == PCLR_AND ? ~(uint64_t)0 : 0, i;                              \
        if (op == PCLR_AND) for (i = 0; i < n; ++i) b &= (uint64_t)x[i];                \
        else if (op == PCLR_OR) for (i = 0; i < n; ++i) b |= (uint64_t)x[i];            \
        else for (i = 0; i < n; ++i) b ^= (uint64_t)x[i];                               \
        return b;                                                                       \
    }                                                                                   \
    static void pclr__ref_do_##S(pclr_op op, pclr_accumulate acc, const void *data, uint64_t n, pclr__ref_parts *p) { \
        const ET *x = (const ET *)data;                                                 \
        if (op == PCLR_PROD) {                                                          \
            const uint64_t q = pclr__ref_prod_##S(x, n);                                \
            const ET v = (ET)q; /* native: wrapped into the element type */             \
            if (acc == PCLR_WIDE) memcpy(&p->prod, &q, 8);                              \
            else memcpy(&p->prod, &v, sizeof v);                                        \
        }                                                                               \
        if (op == PCLR_AND || op == PCLR_OR || op == PCLR_XOR) {                        \
            const ET v = (ET)pclr__ref_bitwise_##S(x, n, op);                           \
            memcpy(&p->bits, &v, sizeof v);                                             \
        }                                                                               \
        if (op == PCLR_SUM || op == PCLR_STATS) {                                       \
            uint64_t s = pclr__ref_sum_##S(x, n, acc == PCLR_NATIVE);                   \
            uint32_t s32 = (uint32_t)s;                                                 \
            if (sizeof(ET) < 8 && acc == PCLR_NATIVE) memcpy(&p->sum, &s32, 4);         \
            else memcpy(&p->sum, &s, 8);                                                \
        }                                                                               \
        if (op == PCLR_MIN || op == PCLR_MAX || op == PCLR_MINMAX || op == PCLR_STATS) { \
            ET a, b;                                                                    \
            pclr__ref_minmax_##S(x, n, &a, &b);                                         \
            memcpy(&p->min, &a, sizeof a);                                              \
            memcpy(&p->max, &b, sizeof b);                                              \
        }                                                                               \
        if (op == PCLR_ARGMIN || op == PCLR_ARGMAX || op == PCLR_ARGMINMAX) {          \
            ET v;                                                                       \
            p->index = pclr__ref_arg_##S(x, n, op == PCLR_ARGMAX);                      \
            if (p->index != UINT64_MAX) v = x[p->index];                                \
            else v = op == PCLR_ARGMAX ? (ET)(LO) : (ET)(HI);                           \
            memcpy(&p->arg, &v, sizeof v);                                              \
        }                                                                               \
        if (op == PCLR_ARGMINMAX) {                                                     \
            ET v;                                                                       \
            p->index2 = pclr__ref_arg_##S(x, n, 1);                                     \
            v = p->index2 != UINT64_MAX ? x[p->index2] : (ET)(LO);                      \
            memcpy(&p->arg2, &v, sizeof v);                                             \
        }                                                                               \
        if (op == PCLR_COUNT || op == PCLR_ANY || op == PCLR_ALL) p->count = pclr__ref_count_##S(x, n); \
        if (op == PCLR_STATS) {                                                         \
            pclr__ref_mom_int m;                                                        \
            ET a, b;                                                                    \
            double mv[3];                                                               \
            m.n = 0; m.h = 0; m.d1 = 0; m.m2 = 0;                                       \
            if (n) m = pclr__ref_mom_##S(x, n);                                         \
            pclr__ref_minmax_##S(x, n, &a, &b);                                         \
            pclr__stats_int(m.n, (ET)-1 > 0, m.h, m.d1, m.m2, (uint64_t)b - (uint64_t)a, mv); \
            PCLR__REF_FINISH(p, mv);                                                    \
        }                                                                               \
    }

PCLR__REF_INT(u8, uint8_t, 0, UINT8_MAX)
PCLR__REF_INT(i8, int8_t, INT8_MIN, INT8_MAX)
PCLR__REF_INT(u16, uint16_t, 0, UINT16_MAX)
PCLR__REF_INT(i16, int16_t, INT16_MIN, INT16_MAX)
PCLR__REF_INT(u32, uint32_t, 0, UINT32_MAX)
PCLR__REF_INT(i32, int32_t, INT32_MIN, INT32_MAX)
PCLR__REF_INT(u64, uint64_t, 0, UINT64_MAX)
PCLR__REF_INT(i64, int64_t, INT64_MIN, INT64_MAX)

/* Float element type ET, values in V (float for half and float, double for
   double). min/max: the first NaN wins, -0 < +0; arg: the first NaN, else the
   first occurrence (-0 == +0: a tie). NZ: element != 0. min, max and arg work
   on the bits (KT, BITS(x, i); INFBITS: infinity's; VALOF: a value from its bits)
   as unsigned keys in the values' order: a negative value's bits inverted, a
   positive one's sign bit set (-0 < +0; a NaN's key lies beyond an infinity's,
   and a NaN is looked for on its own). */
#define PCLR__REF_KEY(KT, u) ((KT)((u) ^ ((KT)((KT)0 - (KT)((u) >> (8 * sizeof(KT) - 1))) | (KT)((KT)1 << (8 * sizeof(KT) - 1)))))
#define PCLR__REF_UNKEY(KT, k) ((KT)(((k) >> (8 * sizeof(KT) - 1)) ? (KT)((k) ^ (KT)((KT)1 << (8 * sizeof(KT) - 1))) : (KT)~(k)))
static uint16_t pclr__ref_bits_f16(const uint16_t *x, uint64_t i) { return x[i]; }
static uint32_t pclr__ref_bits_f32(const float *x, uint64_t i) { uint32_t u; memcpy(&u, x + i, 4); return u; }
static uint64_t pclr__ref_bits_f64(const double *x, uint64_t i) { uint64_t u; memcpy(&u, x + i, 8); return u; }
#define PCLR__REF_FLT(S, ET, V, LOAD, NZ, KT, BITS, INFBITS, VALOF, INF, KBN, FOLD, MOM, CHAN) \
    PCLR__REF_SUM_FN(pclr__ref_sumn_##S, ET, LOAD, V)                                   \
    PCLR__REF_SUM_FN(pclr__ref_sumw_##S, ET, LOAD, double)                              \
    PCLR__REF_PROD_FN(pclr__ref_prodn_##S, ET, LOAD, V)                                 \
    PCLR__REF_PROD_FN(pclr__ref_prodw_##S, ET, LOAD, double)                            \
    PCLR__REF_KBN_FN(pclr__ref_sumc_##S, ET, LOAD, V, KBN, FOLD)                         \
    PCLR__REF_MOM_FN(pclr__ref_momn_##S, ET, LOAD, V, MOM, CHAN)                        \
    PCLR__REF_MOM_FN(pclr__ref_momw_##S, ET, LOAD, double, pclr__ref_mom_f64, pclr__ref_chan_f64) \
    /* min/max on the bits as keys (PCLR__REF_KEY: -0 < +0); a block that holds a NaN is searched  \
       for the first, which is the result */                                            \
    static void pclr__ref_minmax_##S(const ET *x, uint64_t n, V *mn, V *mx) {           \
        const KT sign = (KT)((KT)1 << (8 * sizeof(KT) - 1));                            \
        KT a = PCLR__REF_KEY(KT, INFBITS), b = PCLR__REF_KEY(KT, (KT)(INFBITS | sign));  \
        uint64_t i;                                                                     \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            KT ba = a, bb = b, nan = 0;                                                 \
            PCLR__REF_BLOCK_LOOP(len, const KT u = BITS(x, i + j); const KT k = PCLR__REF_KEY(KT, u); \
                                 ba = k < ba ? k : ba; bb = k > bb ? k : bb; nan |= (KT)((KT)(u & (KT)~sign) > INFBITS);) \
            if (nan) {                                                                  \
                uint64_t j = 0;                                                         \
                while ((KT)(BITS(x, i + j) & (KT)~sign) <= INFBITS) ++j;                \
                *mn = *mx = LOAD(x, i + j);                                             \
                return;                                                                 \
            }                                                                           \
            a = ba;                                                                     \
            b = bb;                                                                     \
            i += len;                                                                   \
        }                                                                               \
        *mn = VALOF(PCLR__REF_UNKEY(KT, a));                                            \
        *mx = VALOF(PCLR__REF_UNKEY(KT, b));                                            \
    }                                                                                   \
    /* arg: the first NaN, else the first index of the best value (-0 == +0: keyed as +0) */ \
    static uint64_t pclr__ref_arg_##S(const ET *x, uint64_t n, int want_max) {          \
        const KT sign = (KT)((KT)1 << (8 * sizeof(KT) - 1));                            \
        uint64_t i, k = UINT64_MAX;                                                     \
        KT b = 0;                                                                       \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            KT m = want_max ? (KT)0 : (KT)~(KT)0, nan = 0;                              \
            if (want_max) {                                                             \
                PCLR__REF_BLOCK_LOOP(len, const KT u = BITS(x, i + j); const KT kk = PCLR__REF_KEY(KT, u == sign ? (KT)0 : u); \
                                     m = kk > m ? kk : m; nan |= (KT)((KT)(u & (KT)~sign) > INFBITS);) \
            } else {                                                                    \
                PCLR__REF_BLOCK_LOOP(len, const KT u = BITS(x, i + j); const KT kk = PCLR__REF_KEY(KT, u == sign ? (KT)0 : u); \
                                     m = kk < m ? kk : m; nan |= (KT)((KT)(u & (KT)~sign) > INFBITS);) \
            }                                                                           \
            if (nan) {                                                                  \
                uint64_t j = 0;                                                         \
                while ((KT)(BITS(x, i + j) & (KT)~sign) <= INFBITS) ++j;                \
                return i + j;                                                           \
            }                                                                           \
            if (k == UINT64_MAX || (want_max ? m > b : m < b)) {                        \
                uint64_t j = 0;                                                         \
                while (PCLR__REF_KEY(KT, BITS(x, i + j) == sign ? (KT)0 : BITS(x, i + j)) != m) ++j; \
                b = m;                                                                  \
                k = i + j;                                                              \
            }                                                                           \
            i += len;                                                                   \
        }                                                                               \
        return k;                                                                       \
    }                                                                                   \
    static uint64_t pclr__ref_count_##S(const ET *x, uint64_t n) {                      \
        uint64_t c = 0, i;                                                              \
        for (i = 0; i < n; ) {                                                          \
            const uint64_t len = n - i < PCLR__REF_LANE ? n - i : PCLR__REF_LANE;       \
            uint32_t b = 0;                                                             \
            PCLR__REF_BLOCK_LOOP(len, b += (uint32_t)NZ(x, i + j);)                      \
            c += b;                                                                     \
            i += len;                                                                   \
        }                                                                               \
        return c;                                                                       \
    }                                                                                   \
    static void pclr__ref_do_##S(pclr_op op, pclr_accumulate acc, const void *data, uint64_t n, pclr__ref_parts *p) { \
        const ET *x = (const ET *)data;                                                 \
        if (op == PCLR_SUM || op == PCLR_STATS) {                                       \
            if (acc == PCLR_WIDE) { double s = pclr__ref_sumw_##S(x, n); memcpy(&p->sum, &s, sizeof s); } \
            else if (acc == PCLR_COMPENSATED) {                                         \
                KBN k = pclr__ref_sumc_##S(x, n);                                        \
                V s = k.s - k.s == 0 ? k.s + k.c : k.s; /* inf, NaN: c is NaN */          \
                memcpy(&p->sum, &s, sizeof s);                                          \
            } else { V s = pclr__ref_sumn_##S(x, n); memcpy(&p->sum, &s, sizeof s); }   \
        }                                                                               \
        if (op == PCLR_MIN || op == PCLR_MAX || op == PCLR_MINMAX || op == PCLR_STATS) { \
            V a, b;                                                                     \
            pclr__ref_minmax_##S(x, n, &a, &b);                                         \
            memcpy(&p->min, &a, sizeof a);                                              \
            memcpy(&p->max, &b, sizeof b);                                              \
        }                                                                               \
        if (op == PCLR_ARGMIN || op == PCLR_ARGMAX || op == PCLR_ARGMINMAX) {          \
            V v;                                                                        \
            p->index = pclr__ref_arg_##S(x, n, op == PCLR_ARGMAX);                      \
            if (p->index != UINT64_MAX) v = LOAD(x, p->index);                          \
            else v = op == PCLR_ARGMAX ? -INF : INF;                                    \
            memcpy(&p->arg, &v, sizeof v);                                              \
        }                                                                               \
        if (op == PCLR_ARGMINMAX) {                                                     \
            V v;                                                                        \
            p->index2 = pclr__ref_arg_##S(x, n, 1);                                     \
            v = p->index2 != UINT64_MAX ? LOAD(x, p->index2) : -INF;                    \
            memcpy(&p->arg2, &v, sizeof v);                                             \
        }                                                                               \
        if (op == PCLR_PROD) {                                                          \
            if (acc == PCLR_WIDE) { double q = pclr__ref_prodw_##S(x, n); memcpy(&p->prod, &q, sizeof q); } \
            else { V q = pclr__ref_prodn_##S(x, n); memcpy(&p->prod, &q, sizeof q); }   \
        }                                                                               \
        if (op == PCLR_COUNT || op == PCLR_ANY || op == PCLR_ALL) p->count = pclr__ref_count_##S(x, n); \
        if (op == PCLR_STATS) {                                                         \
            V lo, hi;                                                                   \
            double mv[3];                                                               \
            const double sum = acc == PCLR_WIDE || sizeof(V) == 8 ? p->sum.f64 : (double)p->sum.f32; \
            pclr__ref_minmax_##S(x, n, &lo, &hi);                                       \
            if (acc == PCLR_WIDE) {                                                     \
                pclr__ref_mom_f64 m;                                                    \
                m.n = 0; m.h = 0; m.d1 = 0; m.m2 = 0;                                   \
                if (n) m = pclr__ref_momw_##S(x, n);                                    \
                pclr__stats_float(m.n, m.h, m.d1, m.m2, lo, hi, sum, mv);             \
            } else {                                                                    \
                MOM m;                                                                  \
                m.n = 0; m.h = 0; m.d1 = 0; m.m2 = 0;                                   \
                if (n) m = pclr__ref_momn_##S(x, n);                                    \
                pclr__stats_float(m.n, m.h, m.d1, m.m2, lo, hi, sum, mv);             \
            }                                                                           \
            PCLR__REF_FINISH(p, mv);                                                    \
        }                                                                               \
    }

#define PCLR__REF_NZ_HALF(x, i) (((x)[i] & 0x7fffu) != 0)
#define PCLR__REF_NZ_PLAIN(x, i) ((x)[i] != 0)
PCLR__REF_FLT(f16, uint16_t, float, PCLR__REF_LOAD_HALF, PCLR__REF_NZ_HALF, uint16_t, pclr__ref_bits_f16, 0x7c00u, pclr__ref_half,
              pclr__ref_f32_bits(0x7f800000u), pclr__ref_kbn_f32, pclr__ref_kbn_fold_f32,
              pclr__ref_mom_f32, pclr__ref_chan_f32)
PCLR__REF_FLT(f32, float, float, PCLR__REF_LOAD_PLAIN, PCLR__REF_NZ_PLAIN, uint32_t, pclr__ref_bits_f32, 0x7f800000u, pclr__ref_f32_bits,
              pclr__ref_f32_bits(0x7f800000u), pclr__ref_kbn_f32, pclr__ref_kbn_fold_f32,
              pclr__ref_mom_f32, pclr__ref_chan_f32)
PCLR__REF_FLT(f64, double, double, PCLR__REF_LOAD_PLAIN, PCLR__REF_NZ_PLAIN, uint64_t, pclr__ref_bits_f64, 0x7ff0000000000000ull,
              pclr__ref_f64_bits, pclr__ref_f64_bits(0x7ff0000000000000ull), pclr__ref_kbn_f64, pclr__ref_kbn_fold_f64,
              pclr__ref_mom_f64, pclr__ref_chan_f64)

#ifndef PCLREDUCE_NO_EXACT
/* Exact sums (accumulate = exact): every element goes into one big two's
   complement integer of 64-bit limbs whose bit 0 weighs the smallest
   subnormal of the result's format (2^-149 for half and float, 2^-1074 for
   double; every element is a whole multiple of it), rounded once at the end.
   Plain integer code, apart from the kernels' cells on purpose: the tests
   hold the two against each other and against Python's fractions. */
#define PCLR__XREF_LIMBS 35 /* double: 2^-1074 .. 2^1024 x 2^64 elements, and a sign bit */
typedef struct pclr__xref {
    uint64_t limb[PCLR__XREF_LIMBS]; /* little-endian */
    int limbs;                       /* in use: 6 for a float result, 35 for a double one */
    unsigned specials;               /* seen: 1 NaN, 2 +inf, 4 -inf */
} pclr__xref;

/* a += m 2^shift, or a -= m 2^shift (neg), modulo 2^(64 limbs); m < 2^53. */
static void pclr__xref_add(pclr__xref *a, uint64_t m, int shift, int neg) {
    const int k = shift / 64, s = shift % 64;
    const uint64_t part[2] = {m << s, s ? m >> (64 - s) : 0};
    uint64_t carry = 0; /* a carry, or a borrow */
    int i;
    for (i = k; i < a->limbs && (i < k + 2 || carry); ++i) {
        const uint64_t x = i < k + 2 ? part[i - k] : 0, old = a->limb[i];
        if (!neg) {
            const uint64_t v = old + x, w = v + carry;
            carry = (uint64_t)(v < x) + (uint64_t)(w < v);
            a->limb[i] = w;
        } else {
            const uint64_t v = old - x, w = v - carry;
            carry = (uint64_t)(old < x) + (uint64_t)(v < carry);
            a->limb[i] = w;
        }
    }
}

/* One element: mantissa m (with its hidden bit), shift = the position of m's bit 0, sign; or a special. */
static void pclr__xref_put(pclr__xref *a, uint64_t m, int shift, int neg) {
    if (m) pclr__xref_add(a, m, shift, neg);
}

/* The bits of the correctly rounded sum in a format of mant bits of
   precision whose subnormal ulp is bit 0 of a, largest ulp bit top_ulp, and
   sign bit sign_bit (infinity: exponent field all ones). */
static uint64_t pclr__xref_round(const pclr__xref *a, int mant, int top_ulp, int sign_bit) {
    uint64_t mag[PCLR__XREF_LIMBS], kept = 0, borrow = 1;
    const uint64_t sign = a->limb[a->limbs - 1] >> 63, inf = ((uint64_t)1 << sign_bit) - ((uint64_t)1 << (mant - 1));
    int i, msb = -1, ulp, guard = 0, sticky = 0;
    for (i = 0; i < a->limbs; ++i) { /* the magnitude */
        mag[i] = sign ? ~a->limb[i] + borrow : a->limb[i];
        if (sign) borrow = borrow && mag[i] == 0;
    }
    for (i = 64 * a->limbs - 1; i >= 0 && msb < 0; --i)
        if (mag[i / 64] >> (i % 64) & 1) msb = i;
    if (msb < 0) return 0; /* an exact zero: +0 */
    ulp = msb - (mant - 1) > 0 ? msb - (mant - 1) : 0;
    if (ulp > top_ulp) return sign << sign_bit | inf;
    for (i = msb; i >= ulp; --i) kept = kept << 1 | (mag[i / 64] >> (i % 64) & 1);
    if (ulp > 0) guard = (int)(mag[(ulp - 1) / 64] >> ((ulp - 1) % 64) & 1);
    for (i = 0; i < ulp - 1 && !sticky; ++i) sticky = (int)(mag[i / 64] >> (i % 64) & 1);
    if (guard && (sticky || (kept & 1))) ++kept;
    /* the exponent field is ulp (bit 0 is the subnormal ulp); a rounding carry into
       bit mant steps it, and past the largest finite value gives inf's pattern */
    return sign << sign_bit | (((uint64_t)ulp << (mant - 1)) + kept);
}

static pclr_result pclr__xref_sum(pclr_type type, const void *data, uint64_t n, void *result) {
    pclr__xref a;
    uint64_t i, bits;
    memset(&a, 0, sizeof a);
    a.limbs = type == PCLR_DOUBLE ? PCLR__XREF_LIMBS : 6;
    for (i = 0; i < n; ++i) {
        uint64_t b, m;
        int e, neg;
        if (type == PCLR_DOUBLE) {
            memcpy(&b, (const unsigned char *)data + 8 * i, 8);
            e = (int)(b >> 52 & 0x7ff), m = b & 0xfffffffffffffull, neg = (int)(b >> 63);
            if (e == 0x7ff) a.specials |= m ? 1u : neg ? 4u : 2u;
            else pclr__xref_put(&a, e ? m | (uint64_t)1 << 52 : m, e ? e - 1 : 0, neg);
        } else if (type == PCLR_FLOAT) {
            uint32_t f;
            memcpy(&f, (const unsigned char *)data + 4 * i, 4);
            e = (int)(f >> 23 & 0xff), m = f & 0x7fffffu, neg = (int)(f >> 31);
            if (e == 0xff) a.specials |= m ? 1u : neg ? 4u : 2u;
            else pclr__xref_put(&a, e ? m | 1u << 23 : m, e ? e - 1 : 0, neg);
        } else { /* half: m 2^(max(e, 1) - 25), that is bit max(e, 1) + 124 above 2^-149 */
            uint16_t h;
            memcpy(&h, (const unsigned char *)data + 2 * i, 2);
            e = h >> 10 & 0x1f, m = h & 0x3ffu, neg = h >> 15;
            if (e == 0x1f) a.specials |= m ? 1u : neg ? 4u : 2u;
            else pclr__xref_put(&a, e ? m | 1u << 10 : m, (e ? e : 1) + 124, neg);
        }
    }
    if (type == PCLR_DOUBLE) {
        double d;
        bits = (a.specials & 1) || (a.specials & 6) == 6 ? 0x7ff8000000000000ull
             : a.specials == 2 ? 0x7ff0000000000000ull : a.specials == 4 ? 0xfff0000000000000ull
             : pclr__xref_round(&a, 53, 2045, 63);
        memcpy(&d, &bits, 8);
        memcpy(result, &d, 8);
    } else {
        uint32_t f;
        bits = (a.specials & 1) || (a.specials & 6) == 6 ? 0x7fc00000u
             : a.specials == 2 ? 0x7f800000u : a.specials == 4 ? 0xff800000u
             : pclr__xref_round(&a, 24, 253, 31);
        f = (uint32_t)bits;
        memcpy(result, &f, 4);
    }
    return PCLR_OK;
}
#else /* PCLREDUCE_NO_EXACT */
static pclr_result pclr__xref_sum(pclr_type type, const void *data, uint64_t n, void *result) {
    (void)type; (void)data; (void)n; (void)result;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
#endif /* PCLREDUCE_NO_EXACT */

static pclr_result pclr__cpu_reference(pclr_type type, pclr_op op, pclr_accumulate acc, const void *data, uint64_t n,
                                       void *result) {
    pclr__ref_parts p;
    pclr_type st;
    size_t vs, ss;
    if (!result || (!data && n > 0)) return PCLR_ERR_NULL_POINTER;
    if ((int)type <= 0 || type >= PCLR_TYPE_COUNT_ || (int)op <= 0 || op >= PCLR_OP_COUNT_ || (int)acc <= 0 ||
        acc >= PCLR_ACCUMULATE_COUNT_)
        return PCLR_ERR_INVALID_ENUM;
    st = pclr_sum_type(type, acc);
    if ((op == PCLR_SUM || op == PCLR_STATS) && st == PCLR_TYPE_DEFAULT) return PCLR_ERR_UNSUPPORTED_COMBINATION;
    if (acc == PCLR_EXACT) return op == PCLR_SUM ? pclr__xref_sum(type, data, n, result) : PCLR_ERR_UNSUPPORTED_COMBINATION;
    memset(&p, 0, sizeof p);
    switch (type) {
    case PCLR_UINT8: pclr__ref_do_u8(op, acc, data, n, &p); break;
    case PCLR_INT8: pclr__ref_do_i8(op, acc, data, n, &p); break;
    case PCLR_UINT16: pclr__ref_do_u16(op, acc, data, n, &p); break;
    case PCLR_INT16: pclr__ref_do_i16(op, acc, data, n, &p); break;
    case PCLR_UINT: pclr__ref_do_u32(op, acc, data, n, &p); break;
    case PCLR_INT: pclr__ref_do_i32(op, acc, data, n, &p); break;
    case PCLR_UINT64: pclr__ref_do_u64(op, acc, data, n, &p); break;
    case PCLR_INT64: pclr__ref_do_i64(op, acc, data, n, &p); break;
    case PCLR_HALF: pclr__ref_do_f16(op, acc, data, n, &p); break;
    case PCLR_FLOAT: pclr__ref_do_f32(op, acc, data, n, &p); break;
    case PCLR_DOUBLE: pclr__ref_do_f64(op, acc, data, n, &p); break;
    default: return PCLR_ERR_INVALID_ENUM;
    }
    vs = pclr_type_size(pclr_value_type(type));
    ss = pclr_type_size(st);
    switch (op) {
    case PCLR_SUM: memcpy(result, &p.sum, ss); break;
    case PCLR_MIN: memcpy(result, &p.min, vs); break;
    case PCLR_MAX: memcpy(result, &p.max, vs); break;
    case PCLR_COUNT: memcpy(result, &p.count, sizeof p.count); break;
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result a;
        memset(&a, 0, sizeof a);
        a.value = p.arg;
        a.index = p.index;
        memcpy(result, &a, sizeof a);
        break;
    }
    case PCLR_ARGMINMAX: {
        pclr_argminmax_result a;
        memset(&a, 0, sizeof a);
        a.min.value = p.arg;
        a.min.index = p.index;
        a.max.value = p.arg2;
        a.max.index = p.index2;
        memcpy(result, &a, sizeof a);
        break;
    }
    case PCLR_ANY: case PCLR_ALL: {
        const uint32_t f = op == PCLR_ANY ? p.count != 0 : p.count == n;
        memcpy(result, &f, sizeof f);
        break;
    }
    case PCLR_PROD: memcpy(result, &p.prod, pclr_type_size(acc == PCLR_WIDE ? pclr_sum_type(type, PCLR_WIDE) : pclr_value_type(type))); break;
    case PCLR_AND: case PCLR_OR: case PCLR_XOR:
        if (pclr__is_float(type)) return PCLR_ERR_UNSUPPORTED_COMBINATION;
        memcpy(result, &p.bits, pclr_type_size(type));
        break;
    case PCLR_MINMAX: {
        pclr_minmax_result m;
        memset(&m, 0, sizeof m);
        m.min = p.min;
        m.max = p.max;
        memcpy(result, &m, sizeof m);
        break;
    }
    case PCLR_STATS: {
        pclr_stats_result s;
        memset(&s, 0, sizeof s);
        s.count = n;
        s.sum = p.sum;
        s.min = p.min;
        s.max = p.max;
        s.mean = p.mean;
        s.var = p.var;
        s.sample_var = p.sample_var;
        memcpy(result, &s, sizeof s);
        break;
    }
    default: return PCLR_ERR_INVALID_ENUM;
    }
    return PCLR_OK;
}

#undef PCLR__REF_SPLIT
#undef PCLR__REF_CHAN_FN
#undef PCLR__REF_SUM_FN
#undef PCLR__REF_PROD_FN
#undef PCLR__REF_KBN_FN
#undef PCLR__REF_MOM_FN
#undef PCLR__REF_IMOM_FN
#undef PCLR__REF_FINISH
#undef PCLR__REF_LOAD_PLAIN
#undef PCLR__REF_LOAD_HALF
#undef PCLR__REF_INT
#undef PCLR__REF_FLT
#undef PCLR__REF_NZ_HALF
#undef PCLR__REF_NZ_PLAIN
#undef PCLR__REF_BLOCK

PCLR_API pclr_result pclr_cpu_reduce(pclr_type type, pclr_op op, const void *data, uint64_t n, void *result) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.op = op;
    return pclr_cpu_reduce_config(&c, data, n, result);
}

PCLR_API pclr_result pclr_cpu_reduce_config(const pclr_config *cfg, const void *data, uint64_t n, void *result) {
    return pclr_cpu_reduce_map(cfg, data, NULL, n, NULL, result);
}

PCLR_API uint64_t pclr_layout_results(const pclr_config *cfg) {
    if (!cfg) return 0;
    return cfg->layout == PCLR_LAYOUT_COLUMNS ? cfg->cols : cfg->layout == PCLR_LAYOUT_ONE ? 1 : cfg->rows;
}

#ifndef PCLREDUCE_NO_LAYOUTS /* the CPU reference of layouts */
/* cfg without its layout: what each row, column or segment is reduced with. */
static void pclr__without_layout(const pclr_config *cfg, pclr_config *c) {
    *c = *cfg;
    c->layout = PCLR_LAYOUT_ONE;
    c->rows = c->cols = c->pitch = 0;
    c->lanes = 0;
    c->vector_width = 0;
}

PCLR_API pclr_result pclr_cpu_reduce_layout(const pclr_config *cfg, const void *x, const void *y, const uint64_t *offsets, uint64_t n,
                                            const double *params, void *results) {
    pclr_config c, one;
    pclr_result r;
    size_t rs, xs, ys;
    uint64_t k, count, j;
    unsigned char *gx = NULL, *gy = NULL;
    pclr__mtree *t = NULL; /* a reduction's (op custom): parsed and checked once, not per row */
    if (!cfg || !results) return PCLR_ERR_NULL_POINTER;
    c = *cfg;
    c.backend = PCLR_BACKEND_AUTO; /* any: only the shape and the op matter here */
    if ((r = pclr_config_resolve(&c, &c, NULL)) != PCLR_OK) return r;
    pclr__without_layout(&c, &one);
    one.backend = PCLR_BACKEND_AUTO;
    if ((r = pclr_config_resolve(&one, &one, NULL)) != PCLR_OK) return r;
    if (c.layout == PCLR_LAYOUT_ONE) return pclr_cpu_reduce_map(&one, x, y, n, params, results);
    rs = pclr_result_size(&one);
    xs = pclr_type_size(c.type) * (c.components > 1 ? (size_t)c.components : 1);
    ys = pclr__has_map(&c) && c.y_type ? pclr_type_size(c.y_type) * (c.components > 1 ? (size_t)c.components : 1) : 0;
    count = pclr_layout_results(&c);
    if (c.layout == PCLR_LAYOUT_SEGMENTS) {
        if (count && !offsets) return PCLR_ERR_NULL_POINTER;
        for (k = 0; k < count; ++k)
            if (offsets[k + 1] < offsets[k] || offsets[k + 1] > n) return PCLR_ERR_SIZE_OVERFLOW;
    }
    if (c.op == PCLR_CUSTOM) {
        if (!(t = (pclr__mtree *)malloc(sizeof *t))) return PCLR_ERR_OUT_OF_MEMORY;
        if ((r = pclr__map_parse(&one, t, NULL, 0)) != PCLR_OK || (t->y && !y && n > 0) || (t->params && !params)) {
            free(t);
            return r != PCLR_OK ? r : PCLR_ERR_NULL_POINTER;
        }
    }
    if (c.layout == PCLR_LAYOUT_COLUMNS && c.rows) { /* a column's elements, gathered */
        if (c.rows > SIZE_MAX / (xs > ys ? xs : ys)) { free(t); return PCLR_ERR_SIZE_OVERFLOW; }
        gx = (unsigned char *)malloc((size_t)c.rows * xs);
        gy = ys ? (unsigned char *)malloc((size_t)c.rows * ys) : NULL;
        if (!gx || (ys && !gy)) { free(gx); free(gy); free(t); return PCLR_ERR_OUT_OF_MEMORY; }
    }
    for (k = 0; k < count && r == PCLR_OK; ++k) {
        unsigned char *dst = (unsigned char *)results + k * rs;
        if (c.layout == PCLR_LAYOUT_COLUMNS) {
            for (j = 0; j < c.rows; ++j) {
                memcpy(gx + j * xs, (const unsigned char *)x + (j * c.pitch + k) * xs, xs);
                if (gy && y) memcpy(gy + j * ys, (const unsigned char *)y + (j * c.pitch + k) * ys, ys);
            }
            if (t) pclr__rreduce_to(t, gx, y ? gy : NULL, c.rows, params, dst);
            else r = pclr_cpu_reduce_map(&one, gx, y ? gy : NULL, c.rows, params, dst);
        } else {
            const uint64_t lo = c.layout == PCLR_LAYOUT_SEGMENTS ? offsets[k] : k * c.pitch;
            const uint64_t len = c.layout == PCLR_LAYOUT_SEGMENTS ? offsets[k + 1] - offsets[k] : c.cols;
            const unsigned char *px = len ? (const unsigned char *)x + lo * xs : NULL, *py = y && len ? (const unsigned char *)y + lo * ys : NULL;
            if (t) pclr__rreduce_to(t, px, py, len, params, dst);
            else r = pclr_cpu_reduce_map(&one, px, py, len, params, dst);
        }
    }
    free(gx);
    free(gy);
    free(t);
    return r;
}
#else /* PCLREDUCE_NO_LAYOUTS: one array (pclr_config_resolve refuses the others) */
PCLR_API pclr_result pclr_cpu_reduce_layout(const pclr_config *cfg, const void *x, const void *y, const uint64_t *offsets, uint64_t n,
                                            const double *params, void *results) {
    pclr_config c;
    pclr_result r;
    (void)offsets;
    if (!cfg || !results) return PCLR_ERR_NULL_POINTER;
    c = *cfg;
    c.backend = PCLR_BACKEND_AUTO;
    if ((r = pclr_config_resolve(&c, &c, NULL)) != PCLR_OK) return r;
    return pclr_cpu_reduce_map(cfg, x, y, n, params, results);
}
#endif /* PCLREDUCE_NO_LAYOUTS */

/* pclr_cpu_reduce_map; merge_checks 0: a reduction's merge is not tested again (the CPU backend's launches) */
static pclr_result pclr__cpu_reduce_map(const pclr_config *cfg, const void *x, const void *y, uint64_t n, const double *params,
                                        void *result, int merge_checks) {
    pclr_config c;
    pclr_result r;
    pclr__mtree *t;
    void *mapped;
    if (!result || (!x && n > 0)) return PCLR_ERR_NULL_POINTER;
    if ((r = pclr__resolve_op(cfg, &c, merge_checks)) != PCLR_OK) return r;
    if (!pclr__has_map(cfg)) return pclr__cpu_reference(c.type, c.op, c.accumulate, x, n, result);
    /* the mapped values, then the reference reduction of them */
    if (n > SIZE_MAX / 8) return PCLR_ERR_SIZE_OVERFLOW;
    if (!(t = (pclr__mtree *)malloc(sizeof *t))) return PCLR_ERR_OUT_OF_MEMORY;
    if ((r = pclr__map_parse(cfg, t, NULL, 0)) != PCLR_OK || (t->y && !y && n > 0) || (t->params && !params && (n > 0 || !t->fields))) {
        free(t);
        return r != PCLR_OK ? r : PCLR_ERR_NULL_POINTER;
    }
    if (c.op == PCLR_HISTOGRAM) { /* (params: the map's, then the range) */
        r = params ? pclr__hist_cpu(&c, t, x, y, n, params, result) : PCLR_ERR_NULL_POINTER;
        free(t);
        return r;
    }
    if (c.op == PCLR_CUSTOM) { /* a reduction's: lift and merge, element by element */
        pclr_custom_result res;
        pclr__rreduce(t, x, y, n, params, &res);
        memcpy(result, &res, sizeof res);
        free(t);
        return PCLR_OK;
    }
    if (!(mapped = malloc(n ? (size_t)n * pclr_type_size(t->type) : 1))) {
        free(t);
        return PCLR_ERR_OUT_OF_MEMORY;
    }
    pclr__map_apply(t, x, y, n, params, mapped);
    r = pclr__cpu_reference(c.type, c.op, c.accumulate, mapped, n, result);
    free(mapped);
    free(t);
    return r;
}
PCLR_API pclr_result pclr_cpu_reduce_map(const pclr_config *cfg, const void *x, const void *y, uint64_t n, const double *params,
                                         void *result) {
    return pclr__cpu_reduce_map(cfg, x, y, n, params, result, 1);
}

/* ------------------------------------------------ a histogram's quantiles  >>quantiles */
/* Count k of a result whose header has been read (k < bins). */
static uint64_t pclr__hist_count_at(const void *result, uint64_t k) {
    uint64_t c;
    memcpy(&c, (const unsigned char *)result + PCLR__HIST_HEADER + 8 * k, 8);
    return c;
}
PCLR_API uint64_t pclr_histogram_count(const void *result, uint64_t k) {
    pclr_histogram_result h;
    if (!result) return 0;
    memcpy(&h, result, sizeof h);
    return k < h.bins && h.bins <= PCLR_HISTOGRAM_MAX_BINS ? pclr__hist_count_at(result, k) : 0;
}
/* Sum k of a weighted result of `bins` bins whose header has been read (k < bins + 3). */
static double pclr__hist_sum_at(const void *result, uint64_t bins, uint64_t k) {
    double v;
    memcpy(&v, (const unsigned char *)result + PCLR__HIST_HEADER + 8 * (bins + k), 8);
    return v;
}
PCLR_API double pclr_histogram_sum(const void *result, uint64_t k) {
    pclr_histogram_result h;
    if (!result) return 0;
    memcpy(&h, result, sizeof h);
    if (!h.weighted || h.bins > PCLR_HISTOGRAM_MAX_WEIGHTED_BINS || k >= (uint64_t)h.bins + 3) return 0; /* (no such result) */
    return pclr__hist_sum_at(result, h.bins, k);
}
/* What the quantiles weigh bin k by: its count, or its sum of weights in a weighted histogram. */
static double pclr__hist_mass_at(const void *result, const pclr_histogram_result *h, uint64_t k) {
    return h->weighted ? pclr__hist_sum_at(result, h->bins, k) : (double)pclr__hist_count_at(result, k);
}
/* The bins' total mass, or 0 where the result cannot give quantiles (a negative or non-finite weighted bin too). */
static double pclr__hist_total(const void *result, pclr_histogram_result *h) {
    double total = 0;
    uint64_t k;
    if (!result) return 0;
    memcpy(h, result, sizeof *h);
    if (!h->bins || h->bins > PCLR_HISTOGRAM_MAX_BINS || !(h->lo < h->hi)) return 0;
    for (k = 0; k < h->bins; ++k) {
        const double m = pclr__hist_mass_at(result, h, k);
        if (!(m >= 0 && m <= DBL_MAX)) return 0;
        total += m;
    }
    return total;
}
PCLR_API double pclr_histogram_quantile(const void *result, double q) {
    pclr_histogram_result h;
    const double total = pclr__hist_total(result, &h);
    double below = 0, want, width;
    uint64_t k;
    if (!(total > 0) || !(q >= 0 && q <= 1)) return NAN;
    want = q * total;
    width = (h.hi - h.lo) / (double)h.bins;
    for (k = 0; k < h.bins; ++k) { /* the bin where the running count reaches want, and how far into it */
        const double c = pclr__hist_mass_at(result, &h, k);
        if (c > 0 && below + c >= want) return h.lo + width * ((double)k + (want - below) / c);
        below += c;
    }
    return h.hi;
}
PCLR_API double pclr_histogram_mean_between(const void *result, double q_lo, double q_hi) {
    pclr_histogram_result h;
    const double total = pclr__hist_total(result, &h);
    double below = 0, sum = 0, mass = 0, lo, hi;
    uint64_t k;
    if (!(total > 0) || !(q_lo >= 0 && q_lo <= q_hi && q_hi <= 1)) return NAN;
    if (q_lo == q_hi) return pclr_histogram_quantile(result, q_lo);
    lo = q_lo * total;
    hi = q_hi * total;
    for (k = 0; k < h.bins; ++k) { /* each bin's share of the counts between lo and hi, at its midpoint */
        const double c = pclr__hist_mass_at(result, &h, k);
        const double from = below > lo ? below : lo, to = below + c < hi ? below + c : hi;
        if (to > from) {
            sum += (to - from) * (h.lo + (h.hi - h.lo) * ((double)k + 0.5) / (double)h.bins);
            mass += to - from;
        }
        below += c;
    }
    return mass > 0 ? sum / mass : NAN;
}

/* ------------------------------------------------ combining two results (pclr_combine)  >>combine */
static int pclr__cmb_nan(pclr_type t, const pclr_scalar *v) {
    return t == PCLR_FLOAT ? v->f32 != v->f32 : t == PCLR_DOUBLE ? v->f64 != v->f64 : 0;
}
/* x < y in the order of t (a value or sum type); zeros: -0 < +0 when signed_zero. No NaN here. */
static int pclr__cmb_less(pclr_type t, const pclr_scalar *x, const pclr_scalar *y, int signed_zero) {
    switch (t) {
    case PCLR_UINT8: return x->u8 < y->u8;
    case PCLR_INT8: return x->i8 < y->i8;
    case PCLR_UINT16: return x->u16 < y->u16;
    case PCLR_INT16: return x->i16 < y->i16;
    case PCLR_UINT: return x->u32 < y->u32;
    case PCLR_INT: return x->i32 < y->i32;
    case PCLR_UINT64: return x->u64 < y->u64;
    case PCLR_INT64: return x->i64 < y->i64;
    case PCLR_FLOAT:
        return x->f32 < y->f32 ||
               (signed_zero && x->f32 == 0 && y->f32 == 0 && pclr__ref_neg_f32(x->f32) && !pclr__ref_neg_f32(y->f32));
    default:
        return x->f64 < y->f64 ||
               (signed_zero && x->f64 == 0 && y->f64 == 0 && pclr__ref_neg_f64(x->f64) && !pclr__ref_neg_f64(y->f64));
    }
}
/* min (want_max 0) or max of a then b: the first NaN, else the smaller (larger), -0 below +0 */
static pclr_scalar pclr__cmb_pick(pclr_type t, pclr_scalar a, pclr_scalar b, int want_max) {
    if (pclr__cmb_nan(t, &a)) return a;
    if (pclr__cmb_nan(t, &b)) return b;
    return (want_max ? pclr__cmb_less(t, &a, &b, 1) : pclr__cmb_less(t, &b, &a, 1)) ? b : a;
}
/* a + b in the sum type t: integers wrap (on unsigned bits), floats round once */
static pclr_scalar pclr__cmb_add(pclr_type t, pclr_scalar a, pclr_scalar b) {
    pclr_scalar r = a;
    if (t == PCLR_FLOAT) r.f32 = a.f32 + b.f32;
    else if (t == PCLR_DOUBLE) r.f64 = a.f64 + b.f64;
    else if (pclr_type_size(t) == 8) r.u64 = a.u64 + b.u64;
    else r.u32 = a.u32 + b.u32;
    return r;
}

/* a b in type t: integers wrap (on unsigned bits, in t's width), floats round once */
static pclr_scalar pclr__cmb_mul(pclr_type t, pclr_scalar a, pclr_scalar b) {
    pclr_scalar r = a;
    switch (t) {
    case PCLR_UINT8: r.u8 = (uint8_t)((uint32_t)a.u8 * b.u8); break;
    case PCLR_INT8: r.i8 = (int8_t)(uint8_t)((uint32_t)(uint8_t)a.i8 * (uint8_t)b.i8); break;
    case PCLR_UINT16: r.u16 = (uint16_t)((uint32_t)a.u16 * b.u16); break;
    case PCLR_INT16: r.i16 = (int16_t)(uint16_t)((uint32_t)(uint16_t)a.i16 * (uint16_t)b.i16); break;
    case PCLR_UINT: case PCLR_INT: r.u32 = a.u32 * b.u32; break;
    case PCLR_UINT64: case PCLR_INT64: r.u64 = a.u64 * b.u64; break;
    case PCLR_FLOAT: r.f32 = a.f32 * b.f32; break;
    default: r.f64 = a.f64 * b.f64; break;
    }
    return r;
}
/* argmin (want_max 0) or argmax of a then b (b's index already counted from a's first element): b wins when a
   is empty, when b has the first NaN, or with a strictly better value */
static pclr_arg_result pclr__cmb_arg(pclr_type vt, pclr_arg_result x, pclr_arg_result y, int want_max) {
    if (y.index != UINT64_MAX &&
        (x.index == UINT64_MAX ||
         (!pclr__cmb_nan(vt, &x.value) &&
          (pclr__cmb_nan(vt, &y.value) || (want_max ? pclr__cmb_less(vt, &x.value, &y.value, 0) : pclr__cmb_less(vt, &y.value, &x.value, 0))))))
        return y;
    return x;
}
/* b's index counted from a's first element (an empty b stays empty) */
static int pclr__cmb_shift(pclr_arg_result *y, uint64_t b_first_index) {
    if (y->index == UINT64_MAX) return 1;
    if (y->index >= UINT64_MAX - b_first_index) return 0;
    y->index += b_first_index;
    return 1;
}

PCLR_API pclr_result pclr_combine(const pclr_config *cfg, const void *a, const void *b, uint64_t b_first_index, void *out) {
    pclr_config c;
    pclr_type vt, st;
    pclr_result r;
    size_t size;
    if (!a || !b || !out) return PCLR_ERR_NULL_POINTER;
    if ((r = pclr__resolve_op(cfg, &c, 0)) != PCLR_OK) return r;
    if (c.accumulate == PCLR_EXACT && (c.op == PCLR_SUM || c.op == PCLR_STATS)) return PCLR_ERR_UNSUPPORTED_COMBINATION;
    vt = pclr_value_type(c.type);
    st = pclr_sum_type(c.type, c.accumulate);
    size = pclr_result_size(&c);
    switch (c.op) {
    case PCLR_HISTOGRAM: { /* counts add; both over cfg's bins and the same range */
        pclr_histogram_result x, y;
        uint64_t k;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if (x.bins != c.bins || y.bins != c.bins || x.weighted != (uint32_t)c.weighted || y.weighted != x.weighted || x.lo != y.lo || x.hi != y.hi)
            return PCLR_ERR_INVALID_ARGUMENT;
        for (k = 0; k < c.bins; ++k) { /* (out may be a or b) */
            const uint64_t sum = pclr__hist_count_at(a, k) + pclr__hist_count_at(b, k);
            memcpy((unsigned char *)out + PCLR__HIST_HEADER + 8 * k, &sum, 8);
        }
        for (k = 0; c.weighted && k < c.bins + 3; ++k) { /* the weights' sums add in double: one more rounding */
            const double sum = pclr__hist_sum_at(a, c.bins, k) + pclr__hist_sum_at(b, c.bins, k);
            memcpy((unsigned char *)out + PCLR__HIST_HEADER + 8 * (c.bins + k), &sum, 8);
        }
        x.underflow += y.underflow;
        x.overflow += y.overflow;
        x.nan += y.nan;
        memcpy(out, &x, sizeof x);
        return PCLR_OK;
    }
    case PCLR_CUSTOM: { /* (b_first_index: a lift's i counts from each part's first element) */
        pclr_custom_result x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if ((r = pclr__combine_custom(&c, &x, &y, &x)) == PCLR_OK) memcpy(out, &x, sizeof x);
        return r;
    }
    case PCLR_SUM: case PCLR_MIN: case PCLR_MAX: case PCLR_COUNT: {
        pclr_scalar x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        memcpy(&x, a, size);
        memcpy(&y, b, size);
        if (c.op == PCLR_SUM) x = pclr__cmb_add(st, x, y);
        else if (c.op == PCLR_COUNT) x.u64 += y.u64;
        else x = pclr__cmb_pick(vt, x, y, c.op == PCLR_MAX);
        memcpy(out, &x, size);
        return PCLR_OK;
    }
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        pclr_arg_result x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if (!pclr__cmb_shift(&y, b_first_index)) return PCLR_ERR_SIZE_OVERFLOW;
        x = pclr__cmb_arg(vt, x, y, c.op == PCLR_ARGMAX);
        memcpy(out, &x, sizeof x);
        return PCLR_OK;
    }
    case PCLR_ARGMINMAX: {
        pclr_argminmax_result x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if (!pclr__cmb_shift(&y.min, b_first_index) || !pclr__cmb_shift(&y.max, b_first_index)) return PCLR_ERR_SIZE_OVERFLOW;
        x.min = pclr__cmb_arg(vt, x.min, y.min, 0);
        x.max = pclr__cmb_arg(vt, x.max, y.max, 1);
        memcpy(out, &x, sizeof x);
        return PCLR_OK;
    }
    case PCLR_PROD: case PCLR_AND: case PCLR_OR: case PCLR_XOR: case PCLR_ANY: case PCLR_ALL: {
        pclr_scalar x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        memcpy(&x, a, size);
        memcpy(&y, b, size);
        if (c.op == PCLR_PROD) x = pclr__cmb_mul(pclr__wrap_type(&c), x, y);
        else if (c.op == PCLR_AND || c.op == PCLR_ALL) x.u64 &= y.u64; /* (bytewise: the result's bytes, any order) */
        else if (c.op == PCLR_XOR) x.u64 ^= y.u64;
        else x.u64 |= y.u64;
        memcpy(out, &x, size);
        return PCLR_OK;
    }
    case PCLR_MINMAX: {
        pclr_minmax_result x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        x.min = pclr__cmb_pick(vt, x.min, y.min, 0);
        x.max = pclr__cmb_pick(vt, x.max, y.max, 1);
        memcpy(out, &x, sizeof x);
        return PCLR_OK;
    }
    default: { /* stats */
        pclr_stats_result x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        x.sum = pclr__cmb_add(st, x.sum, y.sum);
        x.min = pclr__cmb_pick(vt, x.min, y.min, 0);
        x.max = pclr__cmb_pick(vt, x.max, y.max, 1);
        if (x.count == 0) {
            x.mean = y.mean;
            x.var = y.var;
            x.sample_var = y.sample_var;
        } else if (y.count != 0) { /* Chan et al.: M2 = M2a + M2b + delta^2 na nb / n */
            const double na = (double)x.count, nb = (double)y.count, n = na + nb, delta = y.mean - x.mean;
            const double m2 = x.var * na + y.var * nb + delta * delta * (na * nb / n);
            x.mean = x.mean + delta * (nb / n);
            x.var = m2 / n;
            x.sample_var = m2 / (n - 1);
        }
        x.count += y.count;
        memcpy(out, &x, sizeof x);
        return PCLR_OK;
    }
    }
}

PCLR_API uint64_t pclr_hash64(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = seed;
    size_t i;
    for (i = 0; i < len; ++i) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}

/* ------------------------------------------------------------ files: kernel cache, tuning file  >>files
   Files are opened as descriptors and checked as opened (fstat), not looked
   up first: no FIFO or device (O_NONBLOCK, then regular files only), no
   symbolic link for a cache file (O_NOFOLLOW), and the owner and mode of
   the cache's files and directory (see "The disk cache's trust model" in
   docs/tuning-and-cache.md). */
#ifndef PCLREDUCE_NO_FILES /* the file code (docs/usage.md "Leaving features out") */
#ifdef _WIN32
#define PCLR__SEP "\\"
#define PCLR__IS_SEP(c) ((c) == '/' || (c) == '\\')
typedef struct _stat64 pclr__stat;
#define PCLR__OPEN(path, flags, mode) _open(path, (flags) | _O_BINARY, mode)
#define PCLR__FSTAT(fd, st) _fstat64(fd, st)
#define PCLR__READ(fd, p, n) _read(fd, p, (unsigned)(n))
#define PCLR__WRITE(fd, p, n) _write(fd, p, (unsigned)(n))
#define PCLR__CLOSE(fd) _close(fd)
#define PCLR__IS_REG(m) (((m) & _S_IFMT) == _S_IFREG)
#define PCLR__IS_DIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#define PCLR__O_RDONLY _O_RDONLY
#define PCLR__O_WRONLY _O_WRONLY
#define PCLR__O_CREAT _O_CREAT
#define PCLR__O_EXCL _O_EXCL
#define PCLR__O_TRUNC _O_TRUNC
#define PCLR__O_NONBLOCK 0
#define PCLR__O_NOFOLLOW 0
#define PCLR__MODE_FILE (_S_IREAD | _S_IWRITE)
#else
#define PCLR__SEP "/"
#define PCLR__IS_SEP(c) ((c) == '/')
typedef struct stat pclr__stat;
#define PCLR__OPEN open
#define PCLR__FSTAT fstat
#define PCLR__READ read
#define PCLR__WRITE write
#define PCLR__CLOSE close
#define PCLR__IS_REG(m) S_ISREG(m)
#define PCLR__IS_DIR(m) S_ISDIR(m)
#define PCLR__O_RDONLY O_RDONLY
#define PCLR__O_WRONLY O_WRONLY
#define PCLR__O_CREAT O_CREAT
#define PCLR__O_EXCL O_EXCL
#define PCLR__O_TRUNC O_TRUNC
#define PCLR__O_NONBLOCK O_NONBLOCK
#if defined(O_NOFOLLOW)
#define PCLR__O_NOFOLLOW O_NOFOLLOW
#elif defined(__O_NOFOLLOW) /* glibc under strict -std=c99 hides O_NOFOLLOW (POSIX 2008), not the value */
#define PCLR__O_NOFOLLOW __O_NOFOLLOW
#else
#define PCLR__O_NOFOLLOW 0 /* links are then followed: the owner and mode checks still apply */
#endif
#define PCLR__MODE_FILE 0666 /* minus the umask */
#endif
#define PCLR__PATH_CAP 4096
#define PCLR__CACHE_HEADER 64 /* "PCLRBIN\0", u64 little-endian: version, identity length, payload size; payload SHA-256 */
#define PCLR__CACHE_VERSION 2u
#define PCLR__TEXT_MAX (64L << 20) /* a tuning file is a few kilobytes */
#define PCLR__TUNE_HEADER "# pclreduce tuning file"

static void *pclr__mem_alloc(const pclr_allocator *a, size_t size) {
    return a && a->alloc ? a->alloc(size, a->user) : malloc(size);
}
static void pclr__mem_free(const pclr_allocator *a, void *p) {
    if (p && a && a->free) a->free(p, a->user);
    else free(p);
}

static const char *pclr__env(const char *name) {
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

PCLR_API size_t pclr_cache_default_dir(char *buf, size_t cap) {
    size_t len = 0;
#ifdef _WIN32
    const char *base = pclr__env("LOCALAPPDATA"), *tail = "\\pclreduce";
#else /* XDG: a relative $XDG_CACHE_HOME is invalid and ignored */
    const char *xdg = pclr__env("XDG_CACHE_HOME"), *base = xdg && xdg[0] == '/' ? xdg : pclr__env("HOME");
    const char *tail = base && base == xdg ? "/pclreduce" : "/.cache/pclreduce";
#endif
    if (base) pclr__appendf(buf, cap, &len, "%s%s", base, tail);
    if (buf && cap > 0) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

PCLR_API size_t pclr_tune_default_path(char *buf, size_t cap) {
    const char *file = pclr__env("PCLR_TUNE_FILE");
    size_t len = 0;
    if (file) pclr__appendf(buf, cap, &len, "%s", file);
    else if ((len = pclr_cache_default_dir(buf, cap)) > 0) pclr__appendf(buf, cap, &len, PCLR__SEP "tuning.txt");
    if (buf && cap > 0) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

/* read/write of exactly n bytes (both may return less, or fail with EINTR). */
static int pclr__read_all(int fd, void *p, size_t n) {
    unsigned char *q = (unsigned char *)p;
    long got;
    while (n > 0) {
        got = (long)PCLR__READ(fd, q, n > (1u << 30) ? (1u << 30) : n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        q += got;
        n -= (size_t)got;
    }
    return 1;
}
static int pclr__write_all(int fd, const void *p, size_t n) {
    const unsigned char *q = (const unsigned char *)p;
    long put;
    while (n > 0) {
        put = (long)PCLR__WRITE(fd, q, n > (1u << 30) ? (1u << 30) : n);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return 0;
        q += put;
        n -= (size_t)put;
    }
    return 1;
}

/* Opens path for reading if it is a regular file (a FIFO would block the
   caller forever; a directory or device is no cache or tuning file), with
   O_NOFOLLOW when nofollow. The descriptor and *st, or -1 with errno ENOENT
   (no file), ELOOP (a symbolic link, not followed), EINVAL (not a regular
   file) or the open's own. */
static int pclr__open_regular(const char *path, int nofollow, pclr__stat *st) {
    int fd = PCLR__OPEN(path, PCLR__O_RDONLY | PCLR__O_NONBLOCK | (nofollow ? PCLR__O_NOFOLLOW : 0), 0);
    if (fd < 0) {
#ifndef _WIN32
        if (nofollow && errno == EMLINK) errno = ELOOP; /* FreeBSD's word for it */
#endif
        return -1;
    }
    if (PCLR__FSTAT(fd, st) != 0 || !PCLR__IS_REG(st->st_mode)) {
        PCLR__CLOSE(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* The trust rule of the disk cache: its directory and files belong to this
   user (geteuid) and nobody else may write them. NULL when st passes, else
   why not. Windows leaves this to the ACLs of %LOCALAPPDATA%. */
static const char *pclr__untrusted(const pclr__stat *st, int dir) {
#ifndef _WIN32
    if (st->st_uid != geteuid()) return dir ? "the cache directory belongs to another user" : "the cache file belongs to another user";
    if (st->st_mode & 022) return dir ? "the cache directory is writable by group or others" : "the cache file is writable by group or others";
#else
    (void)st;
    (void)dir;
#endif
    return NULL;
}

/* 1 when dir is a directory the disk cache may use, 0 when it exists but may
   not be used (*why), -1 when it does not exist (yet). */
static int pclr__cache_dir_state(const char *dir, const char **why) {
    pclr__stat st;
    int ok;
#ifdef _WIN32
    ok = _stat64(dir, &st) == 0;
    if (!ok && errno == ENOENT) { *why = "the cache directory does not exist"; return -1; }
#else /* opened, not looked up: the checks are of the directory the name gives now */
    int fd = open(dir, O_RDONLY | O_NONBLOCK | PCLR__O_NOFOLLOW);
    if (fd < 0) {
        *why = errno == ENOENT ? "the cache directory does not exist"
             : errno == ELOOP || errno == EMLINK ? "the cache directory is a symbolic link (name the directory it points to)"
             : "the cache directory cannot be opened";
        return errno == ENOENT ? -1 : 0;
    }
    ok = fstat(fd, &st) == 0;
    close(fd);
#endif
    if (!ok || !PCLR__IS_DIR(st.st_mode)) { *why = "the cache directory is not a directory"; return 0; }
    *why = pclr__untrusted(&st, 1);
    return *why == NULL;
}

/* mkdir -p: creates every missing directory of path (with the last
   component when whole, else only those above it), each 0700 whatever the
   umask; a failure shows when the file or directory is used. */
static void pclr__make_dirs(char *path, int whole) {
    size_t i;
    char c;
    for (i = 1; path[i - 1]; ++i) {
        if (!(PCLR__IS_SEP(path[i]) || (whole && !path[i])) || PCLR__IS_SEP(path[i - 1])) continue;
        c = path[i];
        path[i] = '\0';
#ifdef _WIN32
        (void)_mkdir(path);
#else
        if (mkdir(path, 0700) == 0) (void)chmod(path, 0700); /* the umask may have taken the owner's bits */
#endif
        path[i] = c;
    }
}

/* Removes the temporaries of path that a writer left behind (a signal between its write and its
   rename): "<name>.<pid>.<...>.tmp" next to path, this user's, untouched for a minute. A writer
   that is still at it after a minute only loses its rename (its store fails, nothing read is
   wrong: readers check the SHA-256 and the trust rule). Windows keeps them (no sweep there). */
#define PCLR__STALE_SECONDS 60
static void pclr__sweep_temporaries(const char *path) {
#ifndef _WIN32
    char dir[PCLR__PATH_CAP], file[PCLR__PATH_CAP + 256];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const size_t name_len = strlen(name);
    const time_t now = time(NULL);
    struct dirent *d;
    DIR *dh;
    size_t len = 0;
    pclr__appendf(dir, sizeof dir, &len, "%.*s", slash ? (int)(slash - path + 1) : 1, slash ? path : ".");
    if (len >= sizeof dir || !name_len || !(dh = opendir(dir))) return;
    while ((d = readdir(dh)) != NULL) {
        const size_t n = strlen(d->d_name);
        pclr__stat st;
        int fd;
        if (n < name_len + 6 || strncmp(d->d_name, name, name_len) != 0 || d->d_name[name_len] != '.' ||
            !isdigit((unsigned char)d->d_name[name_len + 1]) || strcmp(d->d_name + n - 4, ".tmp") != 0)
            continue;
        len = 0;
        pclr__appendf(file, sizeof file, &len, "%s%s", slash ? dir : "", d->d_name);
        if (len >= sizeof file || (fd = pclr__open_regular(file, 1, &st)) < 0) continue;
        PCLR__CLOSE(fd);
        if (st.st_uid == geteuid() && now - st.st_mtime > PCLR__STALE_SECONDS) remove(file);
    }
    closedir(dh);
#else
    (void)path;
#endif
}

/* Writes the parts to path through a new temporary file in the same
   directory and a rename over path, so readers see the old file or the new
   one. The temporary is created exclusively (O_EXCL, never through a link)
   with permission bits `mode` set explicitly (the umask does not apply), or
   with the umask's default when mode is -1. */
static pclr_result pclr__write_atomic(const char *path, const void *const *parts, const size_t *sizes, int nparts,
                                      int mode) {
    char tmp[PCLR__PATH_CAP + 80];
    int here = 0, fd, ok, i; /* here: its address tells concurrent threads apart, the pid processes */
    size_t len = 0;
#ifdef _WIN32
    unsigned long pid = (unsigned long)_getpid();
#else
    unsigned long pid = (unsigned long)getpid();
#endif
    pclr__appendf(tmp, sizeof tmp, &len, "%s.%lu.%p.%lx.tmp", path, pid, (void *)&here, (unsigned long)time(NULL));
    if (len >= sizeof tmp) return PCLR_ERR_IO;
    pclr__sweep_temporaries(path);
    fd = PCLR__OPEN(tmp, PCLR__O_WRONLY | PCLR__O_CREAT | PCLR__O_EXCL | PCLR__O_NOFOLLOW, PCLR__MODE_FILE);
    if (fd < 0) return PCLR_ERR_IO;
#ifdef _WIN32
    ok = 1;
    (void)mode;
#else /* chmod, not fchmod: strict C99 builds do not see fchmod, and the new name is ours */
    ok = mode < 0 || chmod(tmp, (mode_t)mode) == 0;
#endif
    for (i = 0; i < nparts; ++i) ok = ok && (sizes[i] == 0 || pclr__write_all(fd, parts[i], sizes[i]));
    ok = PCLR__CLOSE(fd) == 0 && ok;
#ifdef _WIN32 /* rename() does not replace an existing file there */
    ok = ok && MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING);
#else
    ok = ok && rename(tmp, path) == 0;
#endif
    if (!ok) remove(tmp);
    return ok ? PCLR_OK : PCLR_ERR_IO;
}

static void pclr__put_u64(unsigned char *p, uint64_t v) {
    int i;
    for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t pclr__get_u64(const unsigned char *p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

/* SHA-256 (FIPS 180-4) of n bytes: the cache payload's checksum. Any
   accidental damage (a torn write, a flipped bit, another file's bytes)
   changes it; unlike a fast hash it has no structure a mistake can follow. */
#define PCLR__ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))
static void pclr__sha256_block(uint32_t h[8], const unsigned char *p) {
    static const uint32_t k[64] = {
        0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
        0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
        0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
        0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
        0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
        0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
        0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
        0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};
    uint32_t w[64], s[8], t1, t2;
    int i;
    for (i = 0; i < 16; ++i)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; ++i)
        w[i] = w[i - 16] + (PCLR__ROR(w[i - 15], 7) ^ PCLR__ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
               (PCLR__ROR(w[i - 2], 17) ^ PCLR__ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
    memcpy(s, h, sizeof s);
    for (i = 0; i < 64; ++i) {
        t1 = s[7] + (PCLR__ROR(s[4], 6) ^ PCLR__ROR(s[4], 11) ^ PCLR__ROR(s[4], 25)) + ((s[4] & s[5]) ^ (~s[4] & s[6])) + k[i] + w[i];
        t2 = (PCLR__ROR(s[0], 2) ^ PCLR__ROR(s[0], 13) ^ PCLR__ROR(s[0], 22)) + ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
        memmove(s + 1, s, 7 * sizeof *s);
        s[4] += t1;
        s[0] = t1 + t2;
    }
    for (i = 0; i < 8; ++i) h[i] += s[i];
}
#undef PCLR__ROR

PCLR__FN void pclr__sha256(const void *data, size_t n, unsigned char out[32]) {
    uint32_t h[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    const unsigned char *p = (const unsigned char *)data;
    unsigned char last[128];
    const size_t rest = n % 64, tail = rest < 56 ? 64 : 128;
    const uint64_t bits = (uint64_t)n * 8;
    size_t i;
    for (i = 0; i + 64 <= n; i += 64) pclr__sha256_block(h, p + i);
    memset(last, 0, sizeof last);
    if (rest) memcpy(last, p + n - rest, rest);
    last[rest] = 0x80;
    for (i = 0; i < 8; ++i) last[tail - 1 - i] = (unsigned char)(bits >> (8 * i));
    pclr__sha256_block(h, last);
    if (tail == 128) pclr__sha256_block(h, last + 64);
    for (i = 0; i < 32; ++i) out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static void pclr__cache_header(unsigned char *h, size_t identity_len, const void *data, size_t size) {
    memcpy(h, "PCLRBIN", 8);
    pclr__put_u64(h + 8, PCLR__CACHE_VERSION);
    pclr__put_u64(h + 16, identity_len);
    pclr__put_u64(h + 24, size);
    pclr__sha256(data, size, h + 32);
}

static size_t pclr__cache_path(char *buf, size_t cap, const char *dir, const void *identity, size_t identity_len) {
    size_t len = 0;
    pclr__appendf(buf, cap, &len, "%s" PCLR__SEP "%016llx.bin", dir,
                  (unsigned long long)pclr_hash64(identity, identity_len, PCLR_HASH_SEED));
    return len;
}

/* 1 when the next identity_len bytes of fd are identity, compared in pieces. */
static int pclr__same_bytes(int fd, const void *identity, size_t identity_len) {
    unsigned char piece[1024];
    size_t at, n;
    for (at = 0; at < identity_len; at += n) {
        n = identity_len - at < sizeof piece ? identity_len - at : sizeof piece;
        if (!pclr__read_all(fd, piece, n) || memcmp(piece, (const unsigned char *)identity + at, n) != 0) return 0;
    }
    return 1;
}

PCLR_API int pclr_cache_load(const char *dir, const void *identity, size_t identity_len, const pclr_allocator *a,
                             void **data, size_t *size, const char **why) {
    char path[PCLR__PATH_CAP];
    unsigned char head[PCLR__CACHE_HEADER], sum[32];
    const char *dummy;
    pclr__stat st;
    uint64_t n = 0;
    void *p = NULL;
    int fd;
    if (!why) why = &dummy;
    if (data) *data = NULL;
    if (size) *size = 0;
    if (!dir || !identity || !data || !size) { *why = "a required pointer argument is NULL"; return 0; }
    if (!*dir) { *why = "the cache directory is empty"; return 0; }
    if (pclr__cache_path(path, sizeof path, dir, identity, identity_len) >= sizeof path) { *why = "the cache path is too long"; return 0; }
    if ((fd = pclr__cache_dir_state(dir, why)) != 1) {
        if (fd < 0) *why = "no cache file"; /* no directory yet: an ordinary miss */
        return 0;
    }
    if ((fd = pclr__open_regular(path, 1, &st)) < 0) {
        *why = errno == ENOENT ? "no cache file" : errno == ELOOP ? "the cache file is a symbolic link (not followed)"
             : errno == EINVAL ? "the cache file is not a regular file (a FIFO, device or directory)" : "the cache file cannot be opened";
        return 0;
    }
    /* every size below is checked against the file before it is used */
    if ((*why = pclr__untrusted(&st, 0)) != NULL) { /* another user's file, or others may write it: not used */
    } else if (!pclr__read_all(fd, head, sizeof head)) *why = "the file is shorter than its header (truncated)";
    else if (memcmp(head, "PCLRBIN", 8) != 0 || pclr__get_u64(head + 8) != PCLR__CACHE_VERSION) *why = "not a pclreduce cache file of this format version";
    else if (pclr__get_u64(head + 16) != identity_len) *why = "the file belongs to another identity (source, options, device or driver)";
    else if ((n = pclr__get_u64(head + 24)) > PCLR_CACHE_MAX_BYTES) *why = "the size in the header is over PCLR_CACHE_MAX_BYTES";
    else if ((uint64_t)st.st_size != PCLR__CACHE_HEADER + identity_len + n) *why = "the file length does not match its header (truncated or torn)";
    else if (!pclr__same_bytes(fd, identity, identity_len)) *why = "the file belongs to another identity (source, options, device or driver)";
    else if (!(p = pclr__mem_alloc(a, n ? (size_t)n : 1))) *why = "out of memory";
    else if (!pclr__read_all(fd, p, (size_t)n)) *why = "read error";
    else if (pclr__sha256(p, (size_t)n, sum), memcmp(sum, head + 32, sizeof sum) != 0) *why = "the payload checksum does not match (corrupt file)";
    PCLR__CLOSE(fd);
    if (*why) { pclr__mem_free(a, p); return 0; }
    *data = p;
    *size = (size_t)n;
    return 1;
}

PCLR_API pclr_result pclr_cache_store(const char *dir, const void *identity, size_t identity_len, const void *data, size_t size) {
    char path[PCLR__PATH_CAP];
    unsigned char head[PCLR__CACHE_HEADER];
    const void *parts[3];
    size_t sizes[3];
    const char *why;
    int state;
    if (!dir || !identity || (!data && size > 0)) return PCLR_ERR_NULL_POINTER;
    if (!*dir) return PCLR_ERR_IO; /* "" would put the file at the root, "/<hash>.bin" */
    if (size > PCLR_CACHE_MAX_BYTES) return PCLR_ERR_SIZE_OVERFLOW;
    if (pclr__cache_path(path, sizeof path, dir, identity, identity_len) >= sizeof path) return PCLR_ERR_IO;
    if ((state = pclr__cache_dir_state(dir, &why)) < 0) {
        memcpy(path, dir, strlen(dir) + 1); /* fits: checked above */
        pclr__make_dirs(path, 1);
        state = pclr__cache_dir_state(dir, &why);
        pclr__cache_path(path, sizeof path, dir, identity, identity_len);
    }
    if (state != 1) return PCLR_ERR_IO;
    pclr__cache_header(head, identity_len, data, size);
    parts[0] = head; parts[1] = identity; parts[2] = data;
    sizes[0] = sizeof head; sizes[1] = identity_len; sizes[2] = size;
    return pclr__write_atomic(path, parts, sizes, 3, 0600);
}
#else /* PCLREDUCE_NO_FILES: no location, every load a miss, every store refused */
PCLR_API size_t pclr_cache_default_dir(char *buf, size_t cap) {
    if (buf && cap) buf[0] = '\0';
    return 0;
}
PCLR_API size_t pclr_tune_default_path(char *buf, size_t cap) {
    if (buf && cap) buf[0] = '\0';
    return 0;
}
PCLR_API int pclr_cache_load(const char *dir, const void *identity, size_t identity_len, const pclr_allocator *a,
                             void **data, size_t *size, const char **why) {
    (void)dir; (void)identity; (void)identity_len; (void)a;
    if (data) *data = NULL;
    if (size) *size = 0;
    if (why) *why = PCLR__NO_FILES_WHY;
    return 0;
}
PCLR_API pclr_result pclr_cache_store(const char *dir, const void *identity, size_t identity_len, const void *data, size_t size) {
    (void)dir; (void)identity; (void)identity_len; (void)data; (void)size;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
#endif /* PCLREDUCE_NO_FILES */

static const unsigned char pclr__size_classes[] = {12, 16, 20, 22, 24, 26, 63};

PCLR_API uint32_t pclr_size_class(uint64_t n) {
    size_t i;
    for (i = 0; i + 1 < sizeof pclr__size_classes; ++i)
        if (n <= (1ull << pclr__size_classes[i])) return pclr__size_classes[i];
    return 63;
}

PCLR_API uint64_t pclr_layout_elements(const pclr_config *cfg, uint64_t n) {
    if (!cfg || cfg->layout == PCLR_LAYOUT_ONE || cfg->layout == PCLR_LAYOUT_SEGMENTS) return n;
    return cfg->cols && cfg->rows > UINT64_MAX / cfg->cols ? UINT64_MAX : cfg->rows * cfg->cols;
}

/* (the lengths where pclr__plan_layout changes strategy on GPUs: PCLR__STAGE_PITCH, a wave per row up to
   2048; then rows a group reads in a pass or two, up to 8192 with the default group and unroll, apart from
   longer ones: on the H100 unroll 16 ran 2^16 rows x 4096 at 104 % of the read kernel and rows of 2^15 and
   longer at 94-98 %, where unroll 4 gave 99-101 %) */
PCLR_API pclr_shape pclr_shape_class(const pclr_config *cfg, uint64_t n) {
    uint64_t len;
    if (!cfg || cfg->layout == PCLR_LAYOUT_ONE || cfg->layout >= PCLR_LAYOUT_COUNT_) return PCLR_SHAPE_ONE;
    if (cfg->layout == PCLR_LAYOUT_COLUMNS) return cfg->cols <= 64 ? PCLR_SHAPE_COLS_NARROW : PCLR_SHAPE_COLS_WIDE;
    len = cfg->layout == PCLR_LAYOUT_SEGMENTS && !cfg->cols ? (cfg->rows ? n / cfg->rows : 0) : cfg->cols;
    return len <= 64 ? PCLR_SHAPE_ROWS_SHORT : len <= 2048 ? PCLR_SHAPE_ROWS_MEDIUM : len <= 8192 ? PCLR_SHAPE_ROWS_LONG : PCLR_SHAPE_ROWS_HUGE;
}

/* Appends s (at most max bytes) in double quotes: \ and " escaped, control
   characters as \xHH (a line break must not end the line; the name must read
   back the same to match the device). */
static void pclr__put_quoted(pclr__writer *w, const char *s, size_t max) {
    size_t i;
    pclr__put(w, "\"");
    for (i = 0; i < max && s[i]; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) pclr__appendf(w->buf, w->cap, &w->len, "\\x%02x", c);
        else pclr__appendf(w->buf, w->cap, &w->len, c == '"' || c == '\\' ? "\\%c" : "%c", c);
    }
    pclr__put(w, "\" ");
}

static void pclr__tune_write(pclr__writer *w, const pclr_tune_entry *e) {
    pclr_config c = e->cfg;
    double g = e->gbps >= 0 && e->gbps < 1e15 ? e->gbps : 0;
    unsigned long long tenths = (unsigned long long)(g * 10 + 0.5); /* printf's %f would follow the locale */
    c.type = e->type; c.op = e->op; c.backend = e->backend;
    (void)pclr_config_resolve(&c, &c, NULL); /* one that does not resolve is written as is, refused when read */
    pclr__appendf(w->buf, w->cap, &w->len, "%s ", pclr_backend_name(c.backend));
    pclr__put_quoted(w, e->device, sizeof e->device);
    pclr__put_quoted(w, e->driver, sizeof e->driver);
    pclr__appendf(w->buf, w->cap, &w->len, "%s %s ", pclr_type_name(c.type), pclr_op_name(c.op));
    if (e->shape != PCLR_SHAPE_ONE) pclr__appendf(w->buf, w->cap, &w->len, "%s:", pclr_shape_name(e->shape));
    pclr__appendf(w->buf, w->cap, &w->len, "%u group=%d unroll=%d vector=%d wave=%d stride=%s variant=%s finish=%s",
                  (unsigned)e->size_class, c.group_size, c.unroll, c.vector_width, c.wave_width, pclr_stride_name(c.stride),
                  pclr_variant_name(c.variant), pclr_finish_name(c.finish));
    pclr__appendf(w->buf, w->cap, &w->len, " groups_per_unit=%d", c.groups_per_unit);
    if (c.lanes) pclr__appendf(w->buf, w->cap, &w->len, " lanes=%d", c.lanes);
    if (c.accumulate != PCLR_NATIVE) pclr__appendf(w->buf, w->cap, &w->len, " accumulate=%s", pclr_accumulate_name(c.accumulate));
    pclr__appendf(w->buf, w->cap, &w->len, " gbps=%llu.%u\n", tenths / 10, (unsigned)(tenths % 10));
}

PCLR_API size_t pclr_tune_format(const pclr_tune_entry *e, char *buf, size_t cap) {
    pclr__writer w;
    w.buf = buf; w.cap = cap; w.len = 0;
    if (e) pclr__tune_write(&w, e);
    if (buf && cap > 0) buf[w.len < cap ? w.len : cap - 1] = '\0';
    return w.len;
}

static int pclr__is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static const char *pclr__skip_blank(const char *s) {
    while (pclr__is_blank(*s)) ++s;
    return s;
}

static int pclr__hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Copies the next token (a "quoted string" with \", \\ and \xHH escapes, or
   a run of non-blanks) to out; returns the position after it, NULL when
   there is none, it is unterminated, it holds \x00 or it does not fit in cap
   bytes. */
static const char *pclr__token(const char *s, char *out, size_t cap) {
    size_t n = 0;
    int quoted, hi, lo;
    char c;
    s = pclr__skip_blank(s);
    if (!*s) return NULL;
    quoted = *s == '"';
    for (s += quoted; *s && (quoted ? *s != '"' : !pclr__is_blank(*s)); ++s) {
        c = *s;
        if (quoted && c == '\\' && s[1] == 'x' && (hi = pclr__hex_digit(s[2])) >= 0 && (lo = pclr__hex_digit(s[3])) >= 0) {
            if (!(c = (char)(hi * 16 + lo))) return NULL;
            s += 3;
        } else if (quoted && c == '\\' && s[1]) {
            c = *++s;
        }
        if (n + 1 >= cap) return NULL;
        out[n++] = c;
    }
    if (quoted && *s++ != '"') return NULL;
    out[n] = '\0';
    return s;
}

/* Locale-free "123" or "123.4" (strtod would follow the locale's decimal point). */
static int pclr__parse_decimal(const char *s, double *out) {
    double v = 0, scale = 1;
    int digits = 0, point = 0;
    for (; *s; ++s) {
        if (*s == '.' && !point) { point = 1; continue; }
        if (*s < '0' || *s > '9') return 0;
        v = v * 10 + (*s - '0');
        scale *= point ? 10 : 1;
        ++digits;
    }
    *out = v / scale;
    return digits > 0;
}

PCLR_API pclr_result pclr_tune_parse(const char *line, pclr_tune_entry *out, const char **why) {
    char tok[256], *val;
    const char *s = line, *dummy;
    pclr_tune_entry e;
    double v = 0;
    size_t i;
    int *knob;
    pclr_result r;
    if (!why) why = &dummy;
    *why = NULL;
    if (!line || !out) { *why = "line or entry pointer is NULL"; return PCLR_ERR_NULL_POINTER; }
    memset(&e, 0, sizeof e);
    s = pclr__skip_blank(s);
    if (!*s || *s == '#') { *why = "not an entry (blank line or comment)"; return PCLR_ERR_INVALID_KNOB; }
#define PCLR__TUNE_FAIL(code, text) do { *why = text; return code; } while (0)
    if (!(s = pclr__token(s, tok, sizeof tok)) || pclr_parse_backend(tok, &e.backend) != PCLR_OK || (e.backend != PCLR_OPENCL && e.backend != PCLR_CUDA && e.backend != PCLR_VULKAN)) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_ENUM, "backend must be opencl, cuda or vulkan");
    if (!(s = pclr__token(s, e.device, sizeof e.device))) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "device name missing, unterminated or over 255 bytes");
    if (!(s = pclr__token(s, e.driver, sizeof e.driver))) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "driver version missing, unterminated or over 127 bytes");
    if (!(s = pclr__token(s, tok, sizeof tok)) || pclr_parse_type(tok, &e.type) != PCLR_OK) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_ENUM, "type must be uint, int, float or double");
    if (!(s = pclr__token(s, tok, sizeof tok)) || pclr_parse_op(tok, &e.op) != PCLR_OK) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_ENUM, "op must be sum, min or max");
    if ((s = pclr__token(s, tok, sizeof tok)) == NULL) tok[0] = '\0';
    if ((val = strchr(tok, ':')) != NULL) { /* a layout's entry: shape:class */
        *val++ = '\0';
        if (pclr_parse_shape(tok, &e.shape) != PCLR_OK) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_ENUM, "shape class must be rows_short, rows_medium, rows_long, rows_huge, cols_narrow or cols_wide");
        e.cfg.layout = e.shape >= PCLR_SHAPE_COLS_NARROW ? PCLR_LAYOUT_COLUMNS : PCLR_LAYOUT_ROWS;
    }
    if (!pclr__parse_decimal(val ? val : tok, &v)) v = 0;
    for (i = 0; i < sizeof pclr__size_classes && pclr__size_classes[i] != v; ++i) {}
    if (i == sizeof pclr__size_classes) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "size class must be 12, 16, 20, 22, 24, 26 or 63");
    e.size_class = pclr__size_classes[i];
    while (*(s = pclr__skip_blank(s))) {
        if (!(s = pclr__token(s, tok, sizeof tok)) || !(val = strchr(tok, '='))) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "knobs are written key=value");
        *val++ = '\0';
        r = PCLR_OK;
        knob = !strcmp(tok, "group") ? &e.cfg.group_size : !strcmp(tok, "unroll") ? &e.cfg.unroll : !strcmp(tok, "vector") ? &e.cfg.vector_width
             : !strcmp(tok, "wave") ? &e.cfg.wave_width : !strcmp(tok, "groups_per_unit") ? &e.cfg.groups_per_unit
             : !strcmp(tok, "lanes") ? &e.cfg.lanes : NULL;
        if (!strcmp(tok, "stride")) r = pclr_parse_stride(val, &e.cfg.stride);
        else if (!strcmp(tok, "variant")) r = pclr_parse_variant(val, &e.cfg.variant);
        else if (!strcmp(tok, "finish")) r = pclr_parse_finish(val, &e.cfg.finish);
        else if (!strcmp(tok, "accumulate")) r = pclr_parse_accumulate(val, &e.cfg.accumulate);
        else if (!strcmp(tok, "gbps") && !pclr__parse_decimal(val, &e.gbps)) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "gbps must be a decimal number");
        else if (knob && (!pclr__parse_decimal(val, &v) || v > 65536 || v != (int)v)) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_KNOB, "a knob value must be a whole number");
        else if (knob) *knob = (int)v;
        if (r != PCLR_OK) PCLR__TUNE_FAIL(PCLR_ERR_INVALID_ENUM, "unknown stride, variant, finish or accumulate name");
    } /* other keys: written by a newer version, ignored */
#undef PCLR__TUNE_FAIL
    e.cfg.type = e.type; e.cfg.op = e.op; e.cfg.backend = e.backend;
    if ((r = pclr_config_resolve(&e.cfg, &e.cfg, why)) != PCLR_OK) return r;
    *out = e;
    return PCLR_OK;
}

static int pclr__tune_same_slot(const pclr_tune_entry *x, const pclr_tune_entry *y) {
    return x->type == y->type && x->op == y->op && x->cfg.accumulate == y->cfg.accumulate && x->size_class == y->size_class &&
           x->shape == y->shape;
}

#ifndef PCLREDUCE_NO_FILES
/* Reads the whole file at path (following links), NUL-terminated, into
   *text (malloc; NUL bytes in the file become spaces, so that a stray one
   does not hide the rest from a merge; *nul says whether there were any) and
   its status into *st. 1: read, 0: no such file, -1: not a regular file,
   unreadable or over PCLR__TEXT_MAX. */
static int pclr__read_text(const char *path, char **text, pclr__stat *st, int *nul) {
    int fd, ok;
    size_t len = 0, i;
    *text = NULL;
    *nul = 0;
    if ((fd = pclr__open_regular(path, 0, st)) < 0) return errno == ENOENT ? 0 : -1;
    ok = st->st_size >= 0 && (uint64_t)st->st_size <= (uint64_t)PCLR__TEXT_MAX;
    if (ok) len = (size_t)st->st_size;
    ok = ok && (*text = (char *)malloc(len + 1)) != NULL && pclr__read_all(fd, *text, len);
    PCLR__CLOSE(fd);
    if (!ok) { free(*text); *text = NULL; return -1; }
    (*text)[len] = '\0';
    for (i = 0; i < len; ++i)
        if (!(*text)[i]) { (*text)[i] = ' '; *nul = 1; }
    return 1;
}

static int pclr__tune_same_key(const pclr_tune_entry *x, const pclr_tune_entry *y) {
    return pclr__tune_same_slot(x, y) && x->backend == y->backend && !strncmp(x->device, y->device, sizeof x->device) &&
           !strncmp(x->driver, y->driver, sizeof x->driver);
}

PCLR_API pclr_result pclr_tune_load(const char *path, pclr_backend backend, const char *device, const char *driver,
                                    const pclr_allocator *a, pclr_tune_entry **entries, size_t *count) {
    char *text, *line, *next;
    pclr_tune_entry e, *list = NULL, *grown;
    pclr__stat st;
    size_t n = 0, cap = 0, i;
    int got, nul;
    if (entries) *entries = NULL;
    if (count) *count = 0;
    if (!path || !device || !driver || !entries || !count) return PCLR_ERR_NULL_POINTER;
    if ((got = pclr__read_text(path, &text, &st, &nul)) <= 0) return got == 0 ? PCLR_OK : PCLR_ERR_IO;
    for (line = text; line; line = next) {
        if ((next = strchr(line, '\n')) != NULL) *next++ = '\0';
        if (pclr_tune_parse(line, &e, NULL) != PCLR_OK || e.backend != backend || strcmp(e.device, device) || strcmp(e.driver, driver)) continue;
        for (i = 0; i < n && !pclr__tune_same_slot(&list[i], &e); ++i) {}
        if (i == cap) {
            cap = cap ? 2 * cap : 16;
            if (!(grown = (pclr_tune_entry *)pclr__mem_alloc(a, cap * sizeof *grown))) { pclr__mem_free(a, list); free(text); return PCLR_ERR_OUT_OF_MEMORY; }
            if (n) memcpy(grown, list, n * sizeof *grown);
            pclr__mem_free(a, list);
            list = grown;
        }
        list[i] = e; /* a later line replaces an earlier one */
        n += i == n;
    }
    free(text);
    *entries = list;
    *count = n;
    return PCLR_OK;
}

/* The index of the last entry with e's key, or count. */
static size_t pclr__tune_last(const pclr_tune_entry *entries, size_t count, const pclr_tune_entry *e) {
    size_t i = count;
    while (i-- > 0) if (pclr__tune_same_key(&entries[i], e)) return i;
    return count;
}

/* The merged text of pclr_tune_save into w; done[i] marks entry i written. */
static void pclr__tune_merge(pclr__writer *w, const char *text, const pclr_tune_entry *entries, size_t count, unsigned char *done) {
    char line[2048];
    pclr_tune_entry e;
    const char *end;
    size_t n, i;
    memset(done, 0, count);
    for (; text && *text; text = *end ? end + 1 : end) {
        if (!(end = strchr(text, '\n'))) end = text + strlen(text);
        n = (size_t)(end - text);
        i = count;
        if (n < sizeof line) {
            memcpy(line, text, n);
            line[n] = '\0';
            if (pclr_tune_parse(line, &e, NULL) == PCLR_OK) i = pclr__tune_last(entries, count, &e);
        }
        if (i == count) pclr__appendf(w->buf, w->cap, &w->len, "%.*s\n", (int)n, text); /* kept as it is */
        else if (!done[i]) { pclr__tune_write(w, &entries[i]); done[i] = 1; }          /* replaced in place */
    }
    for (i = 0; i < count; ++i)
        if (!done[i] && pclr__tune_last(entries, count, &entries[i]) == i) { pclr__tune_write(w, &entries[i]); done[i] = 1; }
}

/* 1 when text (nul: it held NUL bytes) is a tuning file pclr_tune_save may
   rewrite: blank, or beginning with the header line, or (a file without
   one, as versions before 0.3 wrote them) whose first line that is neither
   blank nor a comment starts with a backend word and holds no NUL. A
   binary, a script or a document is not. */
static int pclr__is_tune_text(const char *text, int nul) {
    const char *s = text;
    if (strncmp(text, PCLR__TUNE_HEADER, sizeof PCLR__TUNE_HEADER - 1) == 0) return 1;
    while (*(s = pclr__skip_blank(s)) == '#')
        while (*s && *s++ != '\n') {}
    return !*s || (!nul && (strncmp(s, "opencl ", 7) == 0 || strncmp(s, "cuda ", 5) == 0));
}

/* Why pclr_tune_save refuses a file pclr__read_text gave (got, text, nul), or NULL. */
static const char *pclr__tune_refusal(int got, const char *text, int nul) {
    if (got < 0) return "the tuning file is not a regular file or cannot be read";
    if (got > 0 && !pclr__is_tune_text(text, nul))
        return "the file is not a tuning file (neither a '" PCLR__TUNE_HEADER "' line nor an entry first): left untouched";
    return NULL;
}

/* An exclusive lock on the file at path (created when missing), held until
   the descriptor returned is closed; -1 when it cannot be had. fcntl locks
   serialize processes; open-file-description locks (Linux, where the
   program sees F_OFD_SETLKW) also the threads of one process. */
static int pclr__lock(const char *path) {
#ifdef _WIN32
    (void)path;
    return -2; /* not locked: see docs/tuning-and-cache.md */
#else
    struct flock fl;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | PCLR__O_NOFOLLOW, 0600), r;
    if (fd >= 0) (void)chmod(path, 0600); /* made now: private whatever the umask (as the tuning file) */
    else if (errno == EEXIST) fd = open(path, O_RDWR | O_NONBLOCK | PCLR__O_NOFOLLOW);
    if (fd < 0) return -1;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
#ifdef F_OFD_SETLKW
    while ((r = fcntl(fd, F_OFD_SETLKW, &fl)) != 0 && errno == EINTR) {}
    if (r != 0 && errno == EINVAL) /* a kernel before 3.15 */
#endif
        while ((r = fcntl(fd, F_SETLKW, &fl)) != 0 && errno == EINTR) {}
    if (r != 0) {
        close(fd);
        return -1;
    }
    return fd;
#endif
}

/* 1 when path itself is a symbolic link (which pclr_tune_save writes through). */
static int pclr__is_link(const char *path) {
#ifdef _WIN32
    (void)path;
    return 0;
#else
    int fd = open(path, O_RDONLY | O_NONBLOCK | PCLR__O_NOFOLLOW);
    if (fd >= 0) close(fd);
    return PCLR__O_NOFOLLOW != 0 && fd < 0 && (errno == ELOOP || errno == EMLINK);
#endif
}

/* Rewrites the file at path in place, following a link: the link, the
   file's other hard links, its owner and mode stay as they are. */
static pclr_result pclr__write_in_place(const char *path, const char *text, size_t len) {
    pclr__stat st;
    int ok, fd = PCLR__OPEN(path, PCLR__O_WRONLY | PCLR__O_CREAT | PCLR__O_TRUNC | PCLR__O_NONBLOCK, PCLR__MODE_FILE);
    if (fd < 0) return PCLR_ERR_IO;
    ok = PCLR__FSTAT(fd, &st) == 0 && PCLR__IS_REG(st.st_mode) && pclr__write_all(fd, text, len);
    ok = PCLR__CLOSE(fd) == 0 && ok;
    return ok ? PCLR_OK : PCLR_ERR_IO;
}

PCLR_API pclr_result pclr_tune_save_ex(const char *path, const pclr_tune_entry *entries, size_t count, const char **why) {
    char lock_path[PCLR__PATH_CAP + 8], *text = NULL;
    const char *dummy;
    unsigned char *done = NULL;
    pclr__writer w;
    pclr__stat st;
    pclr_result r = PCLR_ERR_IO;
    int lock, got, nul, fresh;
    size_t len = 0;
    if (!why) why = &dummy;
    *why = NULL;
    if (!path || (!entries && count)) { *why = "path or entries pointer is NULL"; return PCLR_ERR_NULL_POINTER; }
    if (!*path) { *why = "the tuning file's path is empty"; return PCLR_ERR_IO; }
    pclr__appendf(lock_path, sizeof lock_path, &len, "%s", path);
    if (len >= PCLR__PATH_CAP) { *why = "the tuning file's path is too long"; return PCLR_ERR_IO; }
    got = pclr__read_text(path, &text, &st, &nul); /* a first look, so that a wrong path gets no lock file */
    *why = pclr__tune_refusal(got, text, nul);
    free(text);
    text = NULL;
    if (*why) return PCLR_ERR_IO;
    if (count == 0) return PCLR_OK; /* nothing to save: the check alone (a tool's, before a long sweep) */
    pclr__make_dirs(lock_path, 0);
    pclr__appendf(lock_path, sizeof lock_path, &len, ".lock");
    /* one saver at a time reads, merges and writes: no saver's entries are lost */
    if ((lock = pclr__lock(lock_path)) == -1) { *why = "cannot create or lock the tuning file's lock file (<file>.lock)"; return PCLR_ERR_IO; }
    got = pclr__read_text(path, &text, &st, &nul);
    fresh = got == 0 || (got == 1 && !*pclr__skip_blank(text));
    w.buf = NULL; w.cap = 0; w.len = 0;
    *why = pclr__tune_refusal(got, text, nul); /* again: the file may have changed before the lock */
    if (!*why && !(done = (unsigned char *)malloc(count + 1))) r = PCLR_ERR_OUT_OF_MEMORY;
    if (done) {
        int pass;
        for (pass = 0; pass < 2; ++pass) { /* measures, then writes */
            w.len = 0;
            if (fresh) pclr__put(&w, PCLR__TUNE_HEADER ": one line per backend, device, driver, type, op, shape class (layouts) and size class\n");
            pclr__tune_merge(&w, fresh ? NULL : text, entries, count, done);
            if (pass == 0) {
                w.cap = w.len + 1;
                if (!(w.buf = (char *)malloc(w.cap))) break;
            }
        }
        if (!w.buf) {
            r = PCLR_ERR_OUT_OF_MEMORY;
        } else if ((got == 1 && st.st_nlink > 1) || pclr__is_link(path)) {
            r = pclr__write_in_place(path, w.buf, w.len); /* the link and the file's other names keep it */
        } else {
            const void *part = w.buf;
            r = pclr__write_atomic(path, &part, &w.len, 1, got == 1 ? (int)(st.st_mode & 0777) : 0600); /* a new one: private */
        }
        if (r == PCLR_ERR_IO) *why = "the tuning file or a temporary file next to it cannot be written";
    }
    if (r == PCLR_ERR_OUT_OF_MEMORY) *why = "out of memory";
    if (lock >= 0) PCLR__CLOSE(lock);
    free(w.buf);
    free(done);
    free(text);
    return r;
}

PCLR_API pclr_result pclr_tune_save(const char *path, const pclr_tune_entry *entries, size_t count) {
    return pclr_tune_save_ex(path, entries, count, NULL);
}
#else /* PCLREDUCE_NO_FILES */
PCLR_API pclr_result pclr_tune_load(const char *path, pclr_backend backend, const char *device, const char *driver,
                                    const pclr_allocator *a, pclr_tune_entry **entries, size_t *count) {
    (void)path; (void)backend; (void)device; (void)driver; (void)a;
    if (entries) *entries = NULL;
    if (count) *count = 0;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
PCLR_API pclr_result pclr_tune_save_ex(const char *path, const pclr_tune_entry *entries, size_t count, const char **why) {
    (void)path; (void)entries; (void)count;
    if (why) *why = PCLR__NO_FILES_WHY;
    return PCLR_ERR_UNSUPPORTED_COMBINATION;
}
PCLR_API pclr_result pclr_tune_save(const char *path, const pclr_tune_entry *entries, size_t count) {
    return pclr_tune_save_ex(path, entries, count, NULL);
}
#endif /* PCLREDUCE_NO_FILES */

/* The knobs the sweep walks, in walking order, and the values it tries. */
enum { PCLR__K_GROUP, PCLR__K_UNROLL, PCLR__K_GRID, PCLR__K_VECTOR, PCLR__K_STRIDE, PCLR__K_VARIANT, PCLR__K_FINISH, PCLR__K_LANES };
#define PCLR__TUNE_VALUES 10
typedef struct pclr__tune_knob { int which; int values[PCLR__TUNE_VALUES]; } pclr__tune_knob; /* values end at a 0 */

static void pclr__tune_set(pclr_config *c, int which, int v) {
    switch (which) {
    case PCLR__K_GROUP: c->group_size = v; break;
    case PCLR__K_UNROLL: c->unroll = v; break;
    case PCLR__K_GRID: c->groups_per_unit = v; break;
    case PCLR__K_VECTOR: c->vector_width = v; break;
    case PCLR__K_STRIDE: c->stride = (pclr_stride)v; break;
    case PCLR__K_VARIANT: c->variant = (pclr_variant)v; break;
    case PCLR__K_LANES: c->lanes = v; break;
    default: c->finish = (pclr_finish)v; break;
    }
}

PCLR_API pclr_result pclr_tune_sweep(const pclr_config *start, const pclr_tune_options *opt, pclr_tune_measure_fn measure,
                                     void *measure_user, pclr_tune_entry *out, size_t cap, size_t *count) {
    static const uint32_t ladder[PCLR_TUNE_CLASSES] = {12, 16, 20, 22, 24, 26, 63};
    static const pclr__tune_knob one_knobs[] = {
        {PCLR__K_GROUP, {64, 128, 256, 512, 1024}},
        {PCLR__K_UNROLL, {1, 2, 4, 8, 16, 32}},
        {PCLR__K_GRID, {1, 2, 4, 8, 16, 32}},
        {PCLR__K_VECTOR, {1, 2, 4, 8, 16}},
        {PCLR__K_STRIDE, {PCLR_STRIDE_GLOBAL, PCLR_STRIDE_LOCAL, PCLR_STRIDE_SIMD}}, /* (simd: OpenCL only) */
        {PCLR__K_VARIANT, {PCLR_VARIANT_UNROLLED, PCLR_VARIANT_SHUFFLE, PCLR_VARIANT_COLLECTIVE}},
        {PCLR__K_FINISH, {PCLR_FINISH_LAST_GROUP, PCLR_FINISH_ATOMIC}},
        {PCLR__K_UNROLL, {1, 2, 4, 8, 16, 32}},
        {PCLR__K_GRID, {1, 2, 4, 8, 16, 32}}};
    /* a layout loads one element at a time and finishes with last_group; lanes (work-items per row, or
       down a column: the tile's width) is its own knob (the start's 0 lets the planner choose) */
    static const pclr__tune_knob layout_knobs[] = {
        {PCLR__K_GROUP, {64, 128, 256, 512, 1024}},
        {PCLR__K_UNROLL, {1, 2, 4, 8, 16}},
        {PCLR__K_LANES, {1, 2, 4, 8, 16, 32, 64, 128, 256, 1024}},
        {PCLR__K_GRID, {1, 2, 4, 8, 16}},
        {PCLR__K_UNROLL, {1, 2, 4, 8, 16}},
        {PCLR__K_LANES, {1, 2, 4, 8, 16, 32, 64, 128, 256, 1024}}};
    const pclr__tune_knob *knobs;
    size_t nknobs;
    uint64_t max_n, bound = 0;
    size_t c, k, v, classes, steps = 0, step = 0;
    pclr_config base;
    pclr_result r;
    if (count) *count = 0;
    if (!start || !measure || !out || !count) return PCLR_ERR_NULL_POINTER;
    if (cap < PCLR_TUNE_CLASSES) return PCLR_ERR_BUFFER_TOO_SMALL;
    if ((r = pclr_config_resolve(start, &base, NULL)) != PCLR_OK) return r;
    if (base.layout == PCLR_LAYOUT_SEGMENTS) return PCLR_ERR_UNSUPPORTED_COMBINATION; /* tuned as rows of their length */
    knobs = base.layout == PCLR_LAYOUT_ONE ? one_knobs : layout_knobs;
    nknobs = base.layout == PCLR_LAYOUT_ONE ? sizeof one_knobs / sizeof one_knobs[0] : sizeof layout_knobs / sizeof layout_knobs[0];
    max_n = base.layout != PCLR_LAYOUT_ONE ? pclr_layout_elements(&base, 0) : opt && opt->max_n ? opt->max_n : (uint64_t)1 << 26;
    /* the classes that start below max_n; each is measured at min(its bound, max_n); a layout: its own */
    for (classes = 0; classes < PCLR_TUNE_CLASSES && bound < max_n; ++classes)
        bound = ladder[classes] < 63 ? (uint64_t)1 << ladder[classes] : max_n;
    if (base.layout != PCLR_LAYOUT_ONE) classes = 1;
    for (k = 0; k < nknobs; ++k)
        for (v = 0; v < PCLR__TUNE_VALUES && knobs[k].values[v]; ++v) ++steps;
    steps *= classes;
    for (c = 0; c < classes; ++c) {
        const uint64_t n = base.layout != PCLR_LAYOUT_ONE ? max_n
                         : ladder[c] < 63 && ((uint64_t)1 << ladder[c]) < max_n ? (uint64_t)1 << ladder[c] : max_n;
        pclr_config best = base;
        double best_t = measure(measure_user, &best, n);
        const double start_t = best_t;
        char what[96];
        snprintf(what, sizeof what, "%s %s, n = %llu", pclr_type_name(base.type), pclr_op_name(base.op),
                 (unsigned long long)n);
        for (k = 0; k < nknobs; ++k) {
            for (v = 0; v < PCLR__TUNE_VALUES && knobs[k].values[v]; ++v, ++step) {
                pclr_config cand = best;
                double t;
                pclr__tune_set(&cand, knobs[k].which, knobs[k].values[v]);
                if (memcmp(&cand, &best, sizeof cand) == 0 || pclr_config_resolve(&cand, &cand, NULL) != PCLR_OK) continue;
                if (opt && opt->progress) opt->progress(opt->user, (double)step / (double)steps, what);
                t = measure(measure_user, &cand, n);
                /* a new value must win by 2%, so that timing noise does not walk the knobs */
                if (t > 0 && (best_t <= 0 || t < 0.98 * best_t)) { best = cand; best_t = t; }
            }
        }
        memset(&out[c], 0, sizeof out[c]);
        out[c].backend = base.backend;
        out[c].type = base.type;
        out[c].op = base.op;
        out[c].size_class = base.layout != PCLR_LAYOUT_ONE ? pclr_size_class(n) : ladder[c];
        out[c].shape = pclr_shape_class(&base, n);
        out[c].cfg = best;
        out[c].cfg.rows = out[c].cfg.cols = out[c].cfg.pitch = 0; /* the entry serves its classes, not this shape */
        out[c].gbps = best_t > 0 ? (double)n * (double)pclr_type_size(base.type) / best_t * 1e-9 : 0.0;
        out[c].default_gbps = start_t > 0 ? (double)n * (double)pclr_type_size(base.type) / start_t * 1e-9 : 0.0;
    }
    if (opt && opt->progress) opt->progress(opt->user, 1.0, "done");
    *count = classes;
    return PCLR_OK;
}

PCLR_API const pclr_tune_entry *pclr_tune_lookup(const pclr_tune_entry *entries, size_t count, pclr_type type, pclr_op op, uint64_t n) {
    const pclr_tune_entry *hit = NULL;
    uint32_t c = pclr_size_class(n);
    size_t i;
    if (type == PCLR_TYPE_DEFAULT) type = PCLR_FLOAT;
    if (op == PCLR_OP_DEFAULT) op = PCLR_SUM;
    for (i = 0; entries && i < count; ++i)
        if (entries[i].type == type && entries[i].op == op && entries[i].size_class == c && entries[i].shape == PCLR_SHAPE_ONE)
            hit = &entries[i];
    return hit;
}

PCLR__FN pclr_result pclr__tune_add(const pclr_allocator *a, pclr_tune_entry **list, size_t *count,
                                      const pclr_tune_entry *add, size_t n) {
    pclr_tune_entry *grown;
    size_t i, j, total = *count;
    if (!n) return PCLR_OK;
    grown = (pclr_tune_entry *)(a->alloc ? a->alloc((total + n) * sizeof *grown, a->user)
                                         : malloc((total + n) * sizeof *grown));
    if (!grown) return PCLR_ERR_OUT_OF_MEMORY;
    if (total) memcpy(grown, *list, total * sizeof *grown);
    for (i = 0; i < n; ++i) {
        for (j = 0; j < total && !pclr__tune_same_slot(&grown[j], &add[i]); ++j) {}
        grown[j] = add[i];
        if (j == total) ++total;
    }
    if (*list) {
        if (a->free) a->free(*list, a->user);
        else free(*list);
    }
    *list = grown;
    *count = total;
    return PCLR_OK;
}

PCLR__FN int pclr__tune_batch_calls(double first) {
    if (first <= 0) first = 1e-6;
    return first > 2e-3 ? 3 : 2e-3 / first > 200 ? 200 : (int)(2e-3 / first) + 3;
}

PCLR__FN double pclr__tune_median3(const double secs[3]) {
    const double lo = secs[0] < secs[1] ? secs[0] : secs[1], hi = secs[0] < secs[1] ? secs[1] : secs[0];
    return secs[2] < lo ? lo : secs[2] > hi ? hi : secs[2];
}

PCLR__FN void pclr__tune_pattern(pclr_type type, void *host, size_t bytes) {
    size_t i;
    for (i = 0; i < bytes / 8; ++i) {
        const uint32_t v = (uint32_t)(i * 2654435761u) >> 12;
        if (type == PCLR_DOUBLE) ((double *)host)[i] = (double)(v % 2048) / 1024.0 - 1.0;
        else if (type == PCLR_FLOAT) ((float *)host)[2 * i] = ((float *)host)[2 * i + 1] = (float)(v % 2048) / 1024.0f - 1.0f;
        else if (type == PCLR_HALF) ((uint64_t *)host)[i] = 0x3c003c003c003c00ull | (v & 0x3ff) * 0x0001000100010001ull; /* 1..2 */
        else ((uint32_t *)host)[2 * i] = ((uint32_t *)host)[2 * i + 1] = v;
    }
}

PCLR_API int pclr_tune_apply(const pclr_tune_entry *entries, size_t count, const pclr_config *cfg, uint64_t n,
                             pclr_config *out) {
    const pclr_tune_entry *e = NULL;
    /* type, op and accumulator as resolve fills them in (this runs at every reduce: no full resolve;
       a value resolve would refuse matches no entry, since entries are resolved) */
    const pclr_type type = cfg->type ? cfg->type : PCLR_FLOAT;
    const pclr_op opv = cfg->op ? cfg->op : PCLR_SUM;
    const pclr_accumulate acc = pclr__op_accumulates(opv) && cfg->accumulate ? cfg->accumulate : PCLR_NATIVE;
    const uint32_t size_class = pclr_size_class(pclr_layout_elements(cfg, n));
    const pclr_shape shape = pclr_shape_class(cfg, n);
    pclr_config op;
    size_t i;
    *out = *cfg;
    for (i = 0; entries && i < count; ++i) /* the last entry for the type, op, accumulator, shape and size class */
        if (entries[i].type == type && entries[i].op == opv && entries[i].cfg.accumulate == acc && entries[i].size_class == size_class &&
            entries[i].shape == shape)
            e = &entries[i];
    if (!e) return 0;
#define PCLR__FILL(field) if (!out->field) out->field = e->cfg.field
    PCLR__FILL(wave_width);
    PCLR__FILL(group_size);
    PCLR__FILL(unroll);
    PCLR__FILL(vector_width);
    PCLR__FILL(stride);
    PCLR__FILL(variant);
    PCLR__FILL(finish);
    PCLR__FILL(groups_per_unit);
    PCLR__FILL(lanes);
#undef PCLR__FILL
    if (pclr_config_resolve(out, &op, NULL) != PCLR_OK) { /* knobs of another accumulator that do not fit this config */
        *out = *cfg;
        return 0;
    }
    return 1;
}

/* ======================================================== the engine  >>engine */
/* The engine every backend shares. A backend context starts with a
   pclr__engine and gives it a table of functions (pclr__backend_ops); the
   engine does the rest once: resolving configurations, the program cache in
   memory and on disk, the tuning file and the tuner's timing loop, error
   sentences, describe, and the generic context. */

/* A device buffer: a cl_mem (ptr), a CUdeviceptr (addr), a VkBuffer's bits (addr), host memory (ptr). */
typedef pclr_handle pclr__mem;

typedef struct pclr__engine pclr__engine;
typedef struct pclr__entry pclr__entry;
typedef struct pclr__batch pclr__batch;

/* The scratch a reduce's passes use (the backend allocates each on first need and keeps it):
   FOLD: a one-array kernel's `partials` argument (groups states, or what the backend's kernels
   fold through instead: atomic slots, zeroed cells, flagged words); PARTIALS: a state per group
   (bytes: the two-pass finish, a layout's shared rows); COUNTER: the one-array kernel's counter;
   TICKETS: a layout's status word and tickets (zero between launches); RESULT: device memory that
   a blocking reduce's states land in (bytes). */
typedef enum pclr__scratch_kind {
    PCLR__SCRATCH_FOLD, PCLR__SCRATCH_PARTIALS, PCLR__SCRATCH_COUNTER, PCLR__SCRATCH_TICKETS, PCLR__SCRATCH_RESULT
} pclr__scratch_kind;

/* One kernel launch, its argument list built by the engine (pclr__engine_reduce). The one-array
   kernel takes (x, x_offset, n, out, fold, counter[, y, y_offset][, params]); a layout's (b set)
   (x, x_offset, rows, cols, pitch, offsets, n, split, out, fold, counter[, y, y_offset][, params])
   with rows, cols, pitch from b->shape and split from b->plan. Absent buffers are stood in for by
   the counter (never read). The CPU reference (ops->host) gets the whole reduce in one launch. */
typedef struct pclr__pass {
    const pclr__entry *en;
    const pclr__batch *b;          /* a layout's plan; NULL: one array */
    uint64_t groups;
    uint32_t group_size;
    pclr__mem x, y, offsets, out, fold, counter;
    uint64_t x_bytes, y_bytes, offsets_bytes, out_bytes; /* the program's buffers' sizes (pclr_buffer.bytes); 0: a scratch or stand-in */
    uint64_t x_offset, y_offset, n;
    uint64_t out_index;            /* the first state's index in out (backends without pointer arithmetic stage them) */
    uint64_t out_count;            /* states written: 1, or a layout's results */
    const double *params;
    int first, last;               /* the reduce's first launch (waits for sync's events), its last (hands out its event) */
    const char *fn;                /* the verb, for sentences */
} pclr__pass;

/* A backend: the device-level slots the engine calls (miniaudio's ma_backend_callbacks is the
   model), filled by named assignment in each backend header. The contract:
   - every slot that fails says why with pclr__fail and returns its code; none waits unless said;
   - build/release: programs; alloc/free/write/read: the engine's buffers (write and read block);
   - wrap: a program's own handle as a buffer: its bytes (bytes 0: ask the driver; UINT64_MAX when
     it cannot tell) and its address for alignment checks;
   - scratch: see pclr__scratch_kind; launch: one pass, in order after the previous one (and after
     sync's waits, on the first); begin (may be NULL): before a reduce's first launch, told whether
     the reduce blocks (a blocking CUDA verb has a stream in sync too); complete:
     after its last (ok 0: a launch failed, clean up), blocking when host is not NULL: waits and
     copies bytes from src to host;
   - limit (may be NULL): may lower a one-array launch's groups;
   - tune_begin/tune_time/tune_end: the tuner's timing (begin and end may be NULL);
   - host: the CPU reference: no programs, plans, scratch or completion; one launch writes the results. */
typedef struct pclr__backend_ops {
    pclr_backend backend;
    int host;
    /* device defaults for the knobs c leaves 0 (before pclr_config_resolve) */
    void (*defaults)(const pclr__engine *e, pclr_config *c);
    /* PCLR_OK, or why this device cannot run the resolved c (NULL: it can) */
    pclr_result (*check)(const pclr__engine *e, const pclr_config *c, const char **why);
    /* the backend's compiler options for c, appended to the core's */
    void (*options)(const pclr__engine *e, const pclr_config *c, char *buf, size_t cap, size_t *len);
    /* a runnable program from source (bin NULL; *keep, when keep is not NULL,
       gets a binary to cache, allocated with e->alloc) or from a cached binary */
    pclr_result (*build)(pclr__engine *e, const pclr_config *c, const char *src, const char *opts, const void *bin,
                         size_t bin_size, void **program, void **keep, size_t *keep_size);
    void (*release)(pclr__engine *e, void *program);
    /* (may be NULL) the most work-items a group of a built program can have, as the driver reports it
       (0: no limit beyond the device's); the engine lowers an exact sum's group to it (pclr__engine_add) */
    uint32_t (*group_limit)(const pclr__engine *e, const void *program);
    pclr_result (*alloc)(pclr__engine *e, size_t bytes, pclr__mem *m);
    void (*free)(pclr__engine *e, pclr__mem m);
    pclr_result (*write)(pclr__engine *e, pclr__mem m, size_t offset, const void *src, size_t bytes);
    pclr_result (*read)(pclr__engine *e, pclr__mem m, size_t offset, void *dst, size_t bytes);
    pclr_result (*wrap)(pclr__engine *e, pclr__mem h, uint64_t bytes, pclr_buffer *out);
    pclr_result (*scratch)(pclr__engine *e, const pclr__entry *en, pclr__scratch_kind what, uint64_t bytes, pclr__mem *m);
    void (*limit)(pclr__engine *e, const pclr__entry *en, pclr_launch *plan);
    pclr_result (*begin)(pclr__engine *e, const pclr_sync *sync, int blocking);
    pclr_result (*launch)(pclr__engine *e, const pclr__pass *p, const pclr_sync *sync);
    pclr_result (*complete)(pclr__engine *e, const pclr_sync *sync, int ok, pclr__mem src, size_t bytes, void *host);
    /* the tuner: seconds for `calls` reductions of n elements at offsets[i]
       of pool, back to back (negative: failed); a layout's (c has one) write
       their states into out */
    pclr_result (*tune_begin)(pclr__engine *e);
    double (*tune_time)(pclr__engine *e, const pclr_config *c, const pclr_buffer *pool, const pclr_buffer *out, uint64_t n,
                        const uint64_t *offsets, int calls);
    void (*tune_end)(pclr__engine *e);
    /* the device's lines of describe */
    void (*describe)(const pclr__engine *e, char *buf, size_t cap, size_t *len);
    /* the generic context: a context of this backend from a pclr_desc */
    pclr_result (*create)(const pclr_desc *d, pclr__engine **out);
    void (*destroy)(pclr__engine *e);
} pclr__backend_ops;
typedef void (*pclr__ops_fill)(pclr__backend_ops *ops); /* a backend's table, filled by named assignment */

/* A configuration as the caller passed it (tuned knobs applied), resolved and built. */
struct pclr__entry {
    pclr_config raw;     /* the lookup key: the caller's bytes (a map's strings: the copies in text) */
    pclr_config cfg;     /* resolved */
    void *program;       /* the backend's */
    uint32_t elem_size;  /* bytes of an input element */
    pclr__layout layout; /* the op's state (layout.size bytes): the partials, and what the kernel writes */
    char *text;          /* a map's expression and parameters, copied (NULL: no map) */
    uint32_t y_size;     /* a map's second input: bytes of an element (0: none) */
    int params;          /* a map's parameters, and their types */
    pclr_type param[PCLR_MAP_MAX_PARAMS];
    size_t result_size;  /* pclr_result_size */
    pclr__finalizer fz;  /* its states into results */
};


/* A parameter's value as the kernel argument of its type (8 bytes of room); returns its size. */
PCLR__FN size_t pclr__param_arg(pclr_type t, double v, void *out) {
    pclr__mval m;
    m.d = v;
    m = pclr__mconv(m, PCLR_DOUBLE, t);
    if (t == PCLR_FLOAT) { const float f = (float)m.d; memcpy(out, &f, 4); return 4; }
    if (t == PCLR_DOUBLE) { memcpy(out, &m.d, 8); return 8; }
    if (t == PCLR_INT || t == PCLR_UINT) { const uint32_t u = (uint32_t)m.u; memcpy(out, &u, 4); return 4; }
    memcpy(out, &m.u, 8);
    return 8;
}

/* Whether y's vectors line up with x's: the kernel aligns its loads of x (the head), and reads y at the same element. */
PCLR__FN int pclr__y_lines_up(const pclr__entry *en, uint64_t x_addr, uint64_t x_offset, uint64_t y_addr, uint64_t y_offset) {
    const uint64_t v = (uint64_t)en->cfg.vector_width;
    if (v <= 1 || !en->y_size) return 1;
    return (x_addr / en->elem_size + x_offset) % v == (y_addr / en->y_size + y_offset) % v;
}

typedef struct pclr__program { uint64_t key; void *handle; } pclr__program; /* key: hash of source + options */

struct pclr__engine {
    const pclr__backend_ops *ops; /* &table */
    pclr__backend_ops table;      /* the backend's slots, filled by its pclr__<name>_ops */
    pclr_allocator alloc;         /* both functions set */
    char device[256], driver[128]; /* the device's name and driver version: the tuning file's key */
    char build_id[768];           /* what else defines a binary (platform, architecture, compiler) */
    pclr_device_facts facts;
    uint64_t cache_bytes;         /* the device's last-level cache: the tuner rotates over 4x this */
    pclr__program *programs;
    size_t program_count, program_cap;
    pclr__entry *entries;
    size_t entry_count, entry_cap, last; /* last: the index of the last hit */
    char cache_dir[512];          /* "" = no disk cache */
    const char *cache_off;        /* why the disk cache at cache_dir is not used (fails the trust rule); NULL: used */
    size_t disk_hits, disk_stores;
    pclr_tune_entry *tuned;       /* this device's tuned entries */
    size_t tuned_count, tuned_skipped; /* skipped: entries the device cannot run */
    char *build_log;
    char last_error[1024];
    long busy;                    /* a call is in the context (pclr__enter) */
    unsigned char *states;        /* blocking layouts: the states read back, before they are finalized (grown) */
    size_t states_bytes;
};

/* One call at a time per context. The calls that use a context's shared state (scratch, programs,
   command buffer, error text) claim it first; a call from a second thread that overlaps one in
   flight gets PCLR_ERR_BUSY and changes nothing (not the error text either: that is the first
   call's) instead of corrupting both. An atomic exchange where the compiler has one (GCC, Clang,
   Windows); elsewhere a plain flag, which catches most overlaps. */
PCLR__FN int pclr__enter(long *busy) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_exchange_n(busy, 1L, __ATOMIC_ACQUIRE) == 0;
#elif defined(_WIN32)
    return InterlockedExchange((volatile LONG *)busy, 1L) == 0;
#else
    if (*busy) return 0;
    *busy = 1;
    return 1;
#endif
}
PCLR__FN pclr_result pclr__leave(long *busy, pclr_result r) {
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(busy, 0L, __ATOMIC_RELEASE);
#elif defined(_WIN32)
    InterlockedExchange((volatile LONG *)busy, 0L);
#else
    *busy = 0;
#endif
    return r;
}
/* return `call` run inside the context whose flag is `flag`, or PCLR_ERR_BUSY */
#define PCLR__ONE_CALL(flag, call) return pclr__enter(flag) ? pclr__leave((flag), (call)) : PCLR_ERR_BUSY

static void *pclr__default_alloc(size_t size, void *user) { (void)user; return malloc(size); }
static void pclr__default_free(void *p, void *user) { (void)user; free(p); }

/* The allocator a desc asks for (zero: malloc/free); half of one is refused. */
PCLR__FN int pclr__allocator_of(const pclr_allocator *in, pclr_allocator *out) {
    if ((in->alloc == NULL) != (in->free == NULL)) return 0;
    *out = *in;
    if (!in->alloc) { out->alloc = pclr__default_alloc; out->free = pclr__default_free; out->user = NULL; }
    return 1;
}

/* A sentence into a caller's buffer (buf may be NULL); returns r. */
PCLR__FN pclr_result pclr__say(char *buf, size_t cap, pclr_result r, const char *fmt, ...) PCLR__PRINTF(4, 5);
PCLR__FN pclr_result pclr__say(char *buf, size_t cap, pclr_result r, const char *fmt, ...) {
    va_list ap;
    if (!buf || !cap) return r;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return r;
}

/* What every create checks first (the contract): the error text cleared, an
   out pointer, an allocator with both functions or neither (*a: the one to use). */
PCLR__FN pclr_result pclr__create_check(const char *fn, char *error, size_t cap, int have_out, const pclr_allocator *in,
                                        pclr_allocator *a) {
    if (error && cap) error[0] = '\0';
    if (!have_out) return pclr__say(error, cap, PCLR_ERR_NULL_POINTER, "%s: out is NULL", fn);
    if (!pclr__allocator_of(in, a))
        return pclr__say(error, cap, PCLR_ERR_NULL_POINTER, "%s: desc.allocator needs both alloc and free, or neither", fn);
    return PCLR_OK;
}

PCLR__FN pclr_result pclr__fail(pclr__engine *e, pclr_result r, const char *fmt, ...) PCLR__PRINTF(3, 4);
PCLR__FN pclr_result pclr__fail(pclr__engine *e, pclr_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->last_error, sizeof e->last_error, fmt, ap);
    va_end(ap);
    return r;
}

/* Copies at most cap - 1 bytes, without the trailing spaces some drivers pad names with. */
PCLR__FN void pclr__copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (!cap) return;
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    while (n > 0 && dst[n - 1] == ' ') --n;
    dst[n] = '\0';
}

PCLR__FN void *pclr__alloc(pclr__engine *e, size_t size) { return e->alloc.alloc(size, e->alloc.user); }
PCLR__FN void pclr__free(pclr__engine *e, void *p) { if (p) e->alloc.free(p, e->alloc.user); }
/* array with room for one more element (count used of *cap, doubling); NULL
   when out of memory (array is then left as it was). */
PCLR__FN void *pclr__grow(pclr__engine *e, void *array, size_t *cap, size_t count, size_t elem) {
    size_t n = *cap ? 2 * *cap : 16;
    void *p;
    if (count < *cap) return array;
    if (!(p = pclr__alloc(e, n * elem))) return NULL;
    if (count) memcpy(p, array, count * elem);
    pclr__free(e, array);
    *cap = n;
    return p;
}

/* Keeps text as the build log (NULL or empty: none). */
PCLR__FN void pclr__set_log(pclr__engine *e, const char *text, size_t len) {
    pclr__free(e, e->build_log);
    e->build_log = (char *)pclr__alloc(e, len + 1);
    if (!e->build_log) return;
    if (len) memcpy(e->build_log, text, len);
    e->build_log[len] = '\0';
}

PCLR__FN void pclr__engine_init(pclr__engine *e, pclr__ops_fill fill, const pclr_allocator *a) {
    memset(e, 0, sizeof *e);
    fill(&e->table);
    e->ops = &e->table;
    e->alloc = *a;
}

/* Once the device, driver and facts are known: the disk cache directory and
   this device's tuning entries. Neither can fail the context: without them
   kernels are built from source and the built-in defaults apply. */
PCLR__FN pclr_result pclr__engine_check(const pclr__engine *e, const pclr_config *cfg, pclr_config *out, const char **why);
#ifndef PCLREDUCE_NO_FILES
PCLR__FN void pclr__engine_files(pclr__engine *e, const char *cache_dir, int no_disk_cache, const char *tune_file,
                                 int no_tune_file) {
    char path[1024];
    const char *why;
    pclr_config c;
    size_t need, i, kept;
    if (!no_disk_cache) { /* a directory name that does not fit turns the disk cache off */
        need = cache_dir && *cache_dir ? strlen(cache_dir) : pclr_cache_default_dir(NULL, 0);
        if (need && need < sizeof e->cache_dir) {
            if (cache_dir && *cache_dir) pclr__copy(e->cache_dir, sizeof e->cache_dir, cache_dir);
            else pclr_cache_default_dir(e->cache_dir, sizeof e->cache_dir);
        }
        /* a directory that exists and fails the trust rule is left alone for this context's life (describe says why);
           a missing one is created, private, at the first store */
        if (e->cache_dir[0] && pclr__cache_dir_state(e->cache_dir, &why) == 0) e->cache_off = why;
    }
    if (no_tune_file) return;
    if (!tune_file || !*tune_file) {
        need = pclr_tune_default_path(path, sizeof path);
        tune_file = need && need < sizeof path ? path : NULL;
    }
    if (tune_file &&
        pclr_tune_load(tune_file, e->ops->backend, e->device, e->driver, &e->alloc, &e->tuned, &e->tuned_count) != PCLR_OK) {
        e->tuned = NULL;
        e->tuned_count = 0;
    }
    /* an entry this device cannot run is dropped: a tuning file never makes a default reduce fail */
    for (i = kept = 0; i < e->tuned_count; ++i)
        if (pclr__engine_check(e, &e->tuned[i].cfg, &c, &why) == PCLR_OK) e->tuned[kept++] = e->tuned[i];
    e->tuned_skipped = e->tuned_count - kept;
    e->tuned_count = kept;
}
#else /* PCLREDUCE_NO_FILES: no disk cache, no tuning file (describe says so) */
PCLR__FN void pclr__engine_files(pclr__engine *e, const char *cache_dir, int no_disk_cache, const char *tune_file,
                                 int no_tune_file) {
    (void)e; (void)cache_dir; (void)no_disk_cache; (void)tune_file; (void)no_tune_file;
}
#endif /* PCLREDUCE_NO_FILES */

PCLR__FN void pclr__engine_free(pclr__engine *e) {
    size_t i;
    for (i = 0; i < e->program_count; ++i) e->ops->release(e, e->programs[i].handle);
    for (i = 0; i < e->entry_count; ++i) pclr__free(e, e->entries[i].text);
    pclr__free(e, e->programs);
    pclr__free(e, e->entries);
    pclr__free(e, e->tuned);
    pclr__free(e, e->build_log);
    pclr__free(e, e->states);
    e->programs = NULL; e->entries = NULL; e->tuned = NULL; e->build_log = NULL; e->states = NULL;
    e->states_bytes = 0;
    e->program_count = e->program_cap = e->entry_count = e->entry_cap = e->tuned_count = e->last = 0;
}

/* Backend defaults, the core's resolution, then what this device can run. */
PCLR__FN pclr_result pclr__engine_check(const pclr__engine *e, const pclr_config *cfg, pclr_config *out, const char **why) {
    pclr_config c = *cfg;
    pclr_result r;
    *why = NULL;
    if (e->ops->host) { /* the CPU reference checks the knobs as a kernel backend would, and runs no kernel */
        if (c.backend == PCLR_CPU) c.backend = PCLR_BACKEND_AUTO;
        if ((r = pclr_config_resolve(&c, &c, why)) != PCLR_OK) return r;
        *out = c;
        return PCLR_OK;
    }
    if (c.backend == PCLR_BACKEND_AUTO) c.backend = e->ops->backend;
    if (e->ops->defaults) e->ops->defaults(e, &c);
    if ((r = pclr_config_resolve(&c, &c, why)) != PCLR_OK) return r;
    if (c.backend != e->ops->backend) {
        *why = e->ops->backend == PCLR_CUDA ? "the CUDA backend runs only cuda kernels"
             : e->ops->backend == PCLR_VULKAN ? "the Vulkan backend runs only vulkan kernels" : "the OpenCL backend runs only opencl kernels";
        return PCLR_ERR_UNSUPPORTED_COMBINATION;
    }
    if (e->facts.max_group_size && (uint32_t)c.group_size > e->facts.max_group_size) {
        *why = "the group size is above the device's limit";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (e->ops->check && (r = e->ops->check(e, &c, why)) != PCLR_OK) return r;
    *out = c;
    return PCLR_OK;
}

PCLR__FN pclr_result pclr__engine_resolve(pclr__engine *e, const pclr_config *cfg, pclr_config *out) {
    const char *why = NULL;
    char where[256];
    pclr_result r;
    if (!cfg || !out) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    if ((r = pclr__engine_check(e, cfg, out, &why)) != PCLR_OK) {
        if (r == PCLR_ERR_INVALID_MAP && pclr_map_check(cfg, where, sizeof where) != PCLR_OK) why = where;
        pclr__fail(e, r, "configuration not usable on %s: %s (%s)", e->device, why ? why : "invalid", pclr_result_string(r));
    }
    return r;
}

/* The program of a resolved config: in memory, else from the disk cache,
   else built (and stored). */
PCLR__FN pclr_result pclr__engine_program(pclr__engine *e, const pclr_config *resolved, void **program) {
    pclr_config c = *resolved;
    size_t src_size = 0, opt_size = 0, opt_len, ident_len = 0, bin_size = 0, i;
    char *src, *opts, *ident = NULL;
    void *bin = NULL, *handle = NULL, *grown;
    uint64_t key;
    pclr_result r;
    if (e->ops->host) { /* the CPU reference runs no kernel */
        *program = NULL;
        return PCLR_OK;
    }
    c.groups_per_unit = 2048 / c.group_size; /* grid only: one program serves every value */
    if ((r = pclr_kernel_source(&c, NULL, 0, &src_size)) != PCLR_OK || (r = pclr_kernel_options(&c, NULL, 0, &opt_size)) != PCLR_OK)
        return pclr__fail(e, r, "cannot generate the kernel: %s", pclr_result_string(r));
    opt_size += 256; /* the backend's options */
    if (!(src = (char *)pclr__alloc(e, src_size + opt_size)))
        return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the kernel source");
    opts = src + src_size;
    pclr_kernel_source(&c, src, src_size, NULL);
    pclr_kernel_options(&c, opts, opt_size, NULL);
    opt_len = strlen(opts);
    if (e->ops->options) e->ops->options(e, &c, opts, opt_size, &opt_len);
    if (opt_len >= opt_size) {
        pclr__free(e, src);
        return pclr__fail(e, PCLR_ERR_BUILD_FAILED, "compiler options too long");
    }
    key = pclr_hash64(opts, opt_len, pclr_hash64(src, src_size, PCLR_HASH_SEED));
    for (i = 0; i < e->program_count; ++i)
        if (e->programs[i].key == key) { /* the same text: cannot differ in anything the kernel sees */
            pclr__free(e, src);
            *program = e->programs[i].handle;
            return PCLR_OK;
        }
    if (!(grown = pclr__grow(e, e->programs, &e->program_cap, e->program_count, sizeof *e->programs))) {
        pclr__free(e, src);
        return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the program cache");
    }
    e->programs = (pclr__program *)grown;
    /* The disk cache: a valid file for this identity skips the compiler; one
       the driver refuses is rebuilt and overwritten. */
    if (e->cache_dir[0] && !e->cache_off && (ident = (char *)pclr__alloc(e, src_size + opt_len + sizeof e->build_id + 8)) != NULL) {
        pclr__appendf(ident, src_size + opt_len + sizeof e->build_id + 8, &ident_len, "%s\n%s\n%s", src, opts, e->build_id);
        if (pclr_cache_load(e->cache_dir, ident, ident_len, &e->alloc, &bin, &bin_size, NULL)) {
            /* PCLR_ERR_BUILD_FAILED: the driver refuses the binary; anything else fails the call */
            if ((r = e->ops->build(e, &c, src, opts, bin, bin_size, &handle, NULL, NULL)) == PCLR_OK) ++e->disk_hits;
            pclr__free(e, bin);
            bin = NULL;
        }
    }
    if (r != PCLR_OK && r != PCLR_ERR_BUILD_FAILED) {
        pclr__free(e, ident);
        pclr__free(e, src);
        return r;
    }
    r = PCLR_OK;
    if (!handle) {
        bin_size = 0;
        r = e->ops->build(e, &c, src, opts, NULL, 0, &handle, ident ? &bin : NULL, &bin_size);
        /* a failed store only costs the next process a build */
        if (r == PCLR_OK && bin && pclr_cache_store(e->cache_dir, ident, ident_len, bin, bin_size) == PCLR_OK) ++e->disk_stores;
        pclr__free(e, bin);
    }
    pclr__free(e, ident);
    pclr__free(e, src);
    if (r != PCLR_OK) return r;
    e->programs[e->program_count].key = key;
    e->programs[e->program_count++].handle = handle;
    *program = handle;
    return PCLR_OK;
}

/* An exact sum's group size that the built program can run: its bits do not depend on the
   group size, so a group above the kernel's own limit (the driver's CL_KERNEL_WORK_GROUP_SIZE:
   NVIDIA's OpenCL compiles the exact kernel for 256 work-items and refuses 1024 at the launch with
   CL_OUT_OF_RESOURCES) is lowered to the largest power of two within it, whether the group came
   from the defaults, the tuning file or the caller (docs/exact-sums.md), and the program is built
   again for it; the other knobs the caller left 0 follow the new group (groups per unit). Other
   ops keep the group they were given: their float bits follow the tree's shape. */
PCLR__FN pclr_result pclr__engine_fit_group(pclr__engine *e, const pclr_config *cfg, pclr__entry *en) {
    const uint32_t limit = e->ops->group_limit && en->cfg.accumulate == PCLR_EXACT ? e->ops->group_limit(e, en->program) : 0;
    pclr_config lower = *cfg;
    int group = en->cfg.group_size;
    pclr_result r;
    if (!limit || (uint32_t)group <= limit) return PCLR_OK;
    while (group > 32 && (uint32_t)group > limit) group /= 2;
    if ((uint32_t)group > limit)
        return pclr__fail(e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "the exact sum's kernel runs groups of at most %u work-items on %s, "
                          "below the smallest group size (32)", (unsigned)limit, e->device);
    lower.group_size = group;
    if ((r = pclr__engine_resolve(e, &lower, &en->cfg)) != PCLR_OK) return r;
    return pclr__engine_program(e, &en->cfg, &en->program);
}

/* Slow path of pclr__engine_lookup: resolves, builds and adds an entry. */
PCLR__FN pclr_result pclr__engine_add(pclr__engine *e, const pclr_config *cfg, const pclr__entry **out) {
    pclr__entry en;
    pclr_result r;
    void *grown;
    memset(&en, 0, sizeof en);
    if ((r = pclr__engine_resolve(e, cfg, &en.cfg)) != PCLR_OK) return r;
    if ((r = pclr__engine_program(e, &en.cfg, &en.program)) != PCLR_OK) return r;
    if ((r = pclr__engine_fit_group(e, cfg, &en)) != PCLR_OK) return r;
    if (!(grown = pclr__grow(e, e->entries, &e->entry_cap, e->entry_count, sizeof *e->entries)))
        return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the configuration cache");
    e->entries = (pclr__entry *)grown;
    en.raw = *cfg;
    en.elem_size = (uint32_t)pclr_type_size(en.cfg.type);
    if (pclr__has_map(&en.cfg)) { /* the caller's strings may change: keep copies (the map's, or the reduction's) */
        const int reduce = en.cfg.op == PCLR_CUSTOM;
        const char *text = reduce ? cfg->reduce : cfg->map ? cfg->map : ""; /* (a histogram may have no map) */
        const size_t ml = strlen(text) + 1, pl = cfg->params ? strlen(cfg->params) + 1 : 0;
        pclr__mtree *t = (pclr__mtree *)pclr__alloc(e, sizeof *t);
        if (!t || !(en.text = (char *)pclr__alloc(e, ml + pl))) {
            pclr__free(e, t);
            return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the configuration cache");
        }
        memcpy(en.text, text, ml);
        if (pl) memcpy(en.text + ml, cfg->params, pl);
        if (reduce) en.raw.reduce = en.cfg.reduce = en.text;
        else en.raw.map = en.cfg.map = en.text;
        en.raw.params = en.cfg.params = pl ? en.text + ml : NULL;
        pclr__map_parse(&en.cfg, t, NULL, 0);
        en.elem_size *= (uint32_t)t->comps;
        en.y_size = t->y ? (uint32_t)(pclr_type_size(t->y) * (size_t)t->comps) : 0;
        en.params = t->params;
        memcpy(en.param, t->param, sizeof en.param);
        if (en.cfg.op == PCLR_HISTOGRAM) /* its kernel's last arguments: lo, hi and scale (pclr__hist_range) */
            while (en.params < t->params + 3) en.param[en.params++] = pclr__hist_type(&en.cfg);
        pclr__free(e, t);
    }
    pclr__layout_of(&en.cfg, &en.layout);
    en.result_size = pclr_result_size(&en.cfg);
    pclr__finalizer_init(&en.fz, &en.cfg, &en.layout);
    e->entries[e->entry_count] = en;
    *out = &e->entries[e->last = e->entry_count++];
    return PCLR_OK;
}

/* The same bytes, and the same text behind a map's pointers. */
PCLR__FN int pclr__config_same(const pclr_config *a, const pclr_config *b) {
    pclr_config x = *a, y = *b;
    x.map = x.params = x.reduce = y.map = y.params = y.reduce = NULL;
    return memcmp(&x, &y, sizeof x) == 0 && !strcmp(a->map ? a->map : "", b->map ? b->map : "") &&
           !strcmp(a->params ? a->params : "", b->params ? b->params : "") && !strcmp(a->reduce ? a->reduce : "", b->reduce ? b->reduce : "");
}

/* The entry for the caller's config on n elements: the tuned knobs for n's
   size class fill what cfg leaves 0 (one array; a layout's come in
   pclr__engine_batch, which knows its shape); then the entry with the same bytes,
   starting at the last hit (a program uses a few configurations, most often
   the same one again), else the slow path. Valid until the next lookup. */
PCLR__FN pclr_result pclr__engine_lookup(pclr__engine *e, const pclr_config *cfg, uint64_t n, const pclr__entry **out) {
    pclr_config tuned;
    size_t i, j;
    if (!cfg) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    if (e->tuned_count && cfg->layout == PCLR_LAYOUT_ONE && pclr_tune_apply(e->tuned, e->tuned_count, cfg, n, &tuned)) cfg = &tuned;
    for (i = 0, j = e->last; i < e->entry_count; ++i, j = j + 1 < e->entry_count ? j + 1 : 0)
        if (pclr__config_same(&e->entries[j].raw, cfg)) {
            *out = &e->entries[e->last = j];
            return PCLR_OK;
        }
    return pclr__engine_add(e, cfg, out);
}

/* A layout's reduction, planned: the program for the shape's strategy (its
   entry's config has no shape: one program serves every shape of a
   strategy), the launch, how many results and the elements it reads. */
struct pclr__batch {
    const pclr__entry *en;
    pclr_config shape;   /* resolved, with rows, cols and pitch */
    pclr_launch plan;
    uint64_t results;    /* rows, columns or segments */
    uint64_t span;       /* elements of x (and y) from the offset that the layout may read */
};

/* (as the caller gave cfg: the tuner's candidates; pclr__engine_batch first applies the tuned knobs) */
PCLR__FN pclr_result pclr__engine_plan_batch(pclr__engine *e, const pclr_config *cfg, uint64_t n, pclr__batch *b) {
    pclr_config kernel;
    pclr_result r;
    if (!cfg) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    if (cfg->layout == PCLR_LAYOUT_ONE)
        return pclr__fail(e, PCLR_ERR_UNSUPPORTED_COMBINATION, "the batched reduce needs a layout (rows, columns or segments)");
    if ((r = pclr__engine_resolve(e, cfg, &b->shape)) != PCLR_OK) return r;
    if ((r = pclr__plan_layout(&b->shape, &e->facts, n, &b->plan)) != PCLR_OK) return pclr__fail(e, r, "planning the layout failed");
    kernel = *cfg;
    pclr__layout_program(&b->shape, &b->plan, &kernel);
    if ((r = pclr__engine_lookup(e, &kernel, 0, &b->en)) != PCLR_OK) return r;
    b->results = pclr_layout_results(&b->shape);
    b->span = b->shape.layout == PCLR_LAYOUT_SEGMENTS ? n : !b->shape.rows || !b->shape.cols ? 0
            : (b->shape.rows - 1) * b->shape.pitch + b->shape.cols;
    if (b->results > UINT64_MAX / (b->en->layout.size * (b->plan.split + 1)))
        return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "%llu results overflow 64-bit sizes", (unsigned long long)b->results);
    return PCLR_OK;
}

/* A layout's reduction planned with the knobs tuned for its shape class and size filling what cfg leaves 0. */
PCLR__FN pclr_result pclr__engine_batch(pclr__engine *e, const pclr_config *cfg, uint64_t n, pclr__batch *b) {
    pclr_config tuned;
    if (cfg && e->tuned_count && pclr_tune_apply(e->tuned, e->tuned_count, cfg, n, &tuned)) cfg = &tuned;
    return pclr__engine_plan_batch(e, cfg, n, b);
}

PCLR__FN pclr_result pclr__engine_prepare(pclr__engine *e, const pclr_config *cfg) {
    const pclr__entry *en;
    return pclr__engine_lookup(e, cfg, 0, &en);
}

/* Where a reduce's results go: host memory (blocking) or states in a buffer (async). */
typedef struct pclr__dest {
    int blocking;
    void *results;                 /* blocking: results_bytes of room */
    size_t results_bytes;
    const pclr_buffer *states;     /* async: from state first_state on, ordered by sync */
    uint64_t first_state;
    const pclr_sync *sync;
} pclr__dest;

/* Elements [offset, offset + count) of es bytes each inside buf (a NULL buf holds none), buf aligned to es. */
PCLR__FN pclr_result pclr__engine_span(pclr__engine *e, const char *fn, const char *which, const pclr_buffer *buf, uint64_t offset,
                                       uint64_t count, uint64_t es) {
    if (!buf)
        return count ? pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: %s is NULL with %llu elements to read", fn, which, (unsigned long long)count)
                     : PCLR_OK;
    if (buf->address % es)
        return pclr__fail(e, PCLR_ERR_MISALIGNED, "%s: %s starts at 0x%llx, not aligned to %u bytes (its element's size)", fn, which,
                          (unsigned long long)buf->address, (unsigned)es);
    if (offset > UINT64_MAX - count || offset + count > UINT64_MAX / es)
        return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "%s: elements [%llu, %llu + %llu) of %s overflow 64-bit sizes", fn,
                          (unsigned long long)offset, (unsigned long long)offset, (unsigned long long)count, which);
    if (buf->bytes != UINT64_MAX && (offset + count) * es > buf->bytes)
        return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "%s: elements [%llu, %llu) of %s, %u bytes each, reach past its end (%llu bytes)", fn,
                          (unsigned long long)offset, (unsigned long long)(offset + count), which, (unsigned)es,
                          (unsigned long long)buf->bytes);
    return PCLR_OK;
}

/* Host memory for a blocking layout's states (kept and grown: no allocation in steady state). */
PCLR__FN unsigned char *pclr__engine_states(pclr__engine *e, uint64_t bytes) {
    if (bytes > e->states_bytes) {
        unsigned char *p = bytes <= SIZE_MAX ? (unsigned char *)pclr__alloc(e, (size_t)bytes) : NULL;
        if (!p) return NULL;
        pclr__free(e, e->states);
        e->states = p;
        e->states_bytes = (size_t)bytes;
    }
    return e->states;
}

/* The reduce: every verb of every backend ends here. Checks (worded once, naming fn), the
   configuration's entry (one rule for y's alignment), n = 0, the plan, scratch, the one or two
   passes, completion and finalize; the backend's slots do the device work. */
PCLR__FN pclr_result pclr__engine_reduce(pclr__engine *e, const char *fn, const pclr_config *cfg, const pclr_input *in,
                                         const pclr__dest *d) {
    const pclr__entry *en;
    pclr__batch b;
    pclr__pass p;
    pclr_launch plan;
    pclr_result r;
    const int layout = cfg && cfg->layout != PCLR_LAYOUT_ONE;
    uint64_t count, span, ss, rs, unit, most;
    pclr__mem dst, partials;
    unsigned char *host = NULL;
    const double *params = in ? in->params : NULL;
    double hist[PCLR_MAP_MAX_PARAMS]; /* a histogram's arguments: its map's parameters, then lo, hi and scale */
    if (!cfg) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: cfg is NULL", fn);
    if (!in) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: in is NULL", fn);
    if (d->blocking ? !d->results : !d->states)
        return pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: %s is NULL", fn, d->blocking ? "results" : "states");
    if (layout) {
        if ((r = pclr__engine_batch(e, cfg, in->n, &b)) != PCLR_OK) return r;
        en = b.en;
        count = b.results;
        span = b.span;
    } else {
        if ((r = pclr__engine_lookup(e, cfg, in->n, &en)) != PCLR_OK) return r;
        count = 1;
        span = in->n;
    }
    if ((r = pclr__engine_span(e, fn, "in.x", in->x, in->x_offset, span, en->elem_size)) != PCLR_OK) return r;
    if (en->y_size && (r = pclr__engine_span(e, fn, "in.y", in->y, in->y_offset, span, en->y_size)) != PCLR_OK) return r;
    if (en->cfg.op == PCLR_HISTOGRAM) { /* the range: three more arguments, rounded to the compute type */
        const int np = en->params - 3;
        const char *why = NULL;
        if ((r = pclr__hist_range(pclr__hist_type(&en->cfg), en->cfg.bins, in->lo, in->hi, hist + np, &why)) != PCLR_OK)
            return pclr__fail(e, r, "%s: in.lo = %g, in.hi = %g: %s", fn, in->lo, in->hi, why);
        if (np && !in->params) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: the map has %d parameters and in.params is NULL", fn, np);
        if (np) memcpy(hist, in->params, (size_t)np * sizeof *hist);
        params = hist;
    } else if (en->params && !in->params) {
        return pclr__fail(e, PCLR_ERR_NULL_POINTER, "%s: the map has %d parameters and in.params is NULL", fn, en->params);
    }
    if (layout && b.shape.layout == PCLR_LAYOUT_SEGMENTS && b.shape.rows &&
        (r = pclr__engine_span(e, fn, "in.offsets", in->offsets, 0, b.shape.rows + 1, 8)) != PCLR_OK) {
        if (r == PCLR_ERR_NULL_POINTER) pclr__fail(e, r, "%s: in.offsets is NULL: segments need K + 1 offsets", fn);
        return r;
    }
    if (!layout && en->y_size && in->x && in->y &&
        !pclr__y_lines_up(en, in->x->address, in->x_offset, in->y->address, in->y_offset)) {
        pclr_config one = en->raw; /* y's vectors would be misaligned: one element per load */
        const int v = en->cfg.vector_width;
        one.vector_width = 1;
        if ((r = pclr__engine_lookup(e, &one, span, &en)) != PCLR_OK) {
            char why[sizeof e->last_error];
            memcpy(why, e->last_error, sizeof why);
            return pclr__fail(e, r, "%s: in.y's elements do not line up with in.x's %d-element loads (their offsets differ modulo %d), "
                              "and one element a load is not possible here: %s", fn, v, v, why);
        }
    }
    ss = en->layout.size;
    rs = en->result_size;
    unit = e->ops->host ? rs : ss;
    if (d->blocking && count > d->results_bytes / rs)
        return pclr__fail(e, PCLR_ERR_BUFFER_TOO_SMALL, "%s: results_bytes is %llu; %llu result%s of %llu bytes need %llu", fn,
                          (unsigned long long)d->results_bytes, (unsigned long long)count, count == 1 ? "" : "s",
                          (unsigned long long)rs, (unsigned long long)(count * rs));
    if (!d->blocking) {
        const pclr_buffer *o = d->states;
        if (o->address % (unit < 8 ? unit : 8))
            return pclr__fail(e, PCLR_ERR_MISALIGNED, "%s: the states buffer starts at 0x%llx, not aligned to %u bytes (the state's alignment)",
                              fn, (unsigned long long)o->address, (unsigned)(unit < 8 ? unit : 8));
        if (d->first_state > UINT64_MAX / unit - count ||
            (o->bytes != UINT64_MAX && (d->first_state + count) * unit > o->bytes))
            return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "%s: the states buffer (%llu bytes) holds fewer than first_state + %llu = %llu states of "
                              "%llu bytes", fn, (unsigned long long)o->bytes, (unsigned long long)count,
                              (unsigned long long)(d->first_state + count), (unsigned long long)unit);
    }
    if (count == 0) return PCLR_OK; /* a layout without rows, columns or segments */
    if (!layout && d->blocking && span == 0 && en->cfg.op == PCLR_HISTOGRAM) { /* nothing to wait for */
        static const uint64_t none[3] = {0, 0, 0};
        memset(d->results, 0, (size_t)rs);
        pclr__hist_header(en->cfg.bins, en->cfg.weighted, none, params[en->params - 3], params[en->params - 2], d->results);
        return PCLR_OK;
    }
    if (!layout && d->blocking && span == 0) return pclr__identity_result(&en->cfg, d->results); /* nothing to wait for */
    memset(&p, 0, sizeof p);
    p.en = en;
    p.b = layout ? &b : NULL;
    p.x_offset = in->x_offset;
    p.y_offset = in->y_offset;
    p.n = span;
    p.params = params;
    p.out_count = count;
    p.first = p.last = 1;
    p.fn = fn;
    if (in->x) { p.x = in->x->handle; p.x_bytes = in->x->bytes; }
    if (in->y && en->y_size) { p.y = in->y->handle; p.y_bytes = in->y->bytes; }
    if (in->offsets && layout) { p.offsets = in->offsets->handle; p.offsets_bytes = in->offsets->bytes; }
    if (e->ops->host) { /* the CPU reference: the results themselves, in one launch */
        if (d->blocking) p.out.ptr = d->results;
        else p.out = d->states->handle;
        p.out_index = d->blocking ? 0 : d->first_state;
        return e->ops->launch(e, &p, d->sync);
    }
    if (layout) {
        plan = b.plan;
    } else {
        if ((r = pclr_plan(&en->cfg, &e->facts, span, &plan)) != PCLR_OK) return pclr__fail(e, r, "%s: pclr_plan: %s", fn, pclr_result_string(r));
        if (e->ops->limit) e->ops->limit(e, en, &plan);
    }
    p.groups = plan.groups;
    p.group_size = plan.group_size;
    most = pclr_max_groups(&en->cfg, &e->facts); /* the partials' room */
    if (most < plan.groups) most = plan.groups;
    if (d->blocking) { /* where the states land: the results themselves when they are the same bytes */
        host = en->fz.same && rs == ss ? (unsigned char *)d->results : pclr__engine_states(e, count * ss);
        if (!host) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu states", fn, (unsigned long long)count);
    }
    if (e->ops->begin && (r = e->ops->begin(e, d->sync, d->blocking)) != PCLR_OK) return r;
    if (layout) {
        const uint64_t bytes = b.plan.split > 1 ? count * b.plan.split * ss : 64;
        if ((r = e->ops->scratch(e, en, PCLR__SCRATCH_TICKETS, 0, &p.counter)) != PCLR_OK ||
            (r = e->ops->scratch(e, en, PCLR__SCRATCH_PARTIALS, bytes, &p.fold)) != PCLR_OK)
            goto failed;
    } else {
        if ((r = e->ops->scratch(e, en, PCLR__SCRATCH_COUNTER, 0, &p.counter)) != PCLR_OK ||
            (r = e->ops->scratch(e, en, PCLR__SCRATCH_FOLD, most * ss, &p.fold)) != PCLR_OK)
            goto failed;
    }
    if (d->blocking) {
        if ((r = e->ops->scratch(e, en, PCLR__SCRATCH_RESULT, count * ss, &dst)) != PCLR_OK) goto failed;
    } else {
        dst = d->states->handle;
        p.out_index = d->first_state;
        p.out_bytes = d->states->bytes;
    }
    if (!in->x) p.x = p.counter; /* nothing is read from the stand-ins */
    if (!in->y || !en->y_size) p.y = p.counter;
    if (!in->offsets || !layout) p.offsets = p.counter;
    if (layout && d->blocking && b.shape.layout == PCLR_LAYOUT_SEGMENTS) { /* the status word the kernel flags bad offsets in */
        const uint32_t zero = 0;
        if ((r = e->ops->write(e, p.counter, 0, &zero, 4)) != PCLR_OK) goto failed;
    }
    if (!layout && en->cfg.finish == PCLR_FINISH_PARTIALS && plan.groups > 1) {
        /* pass 1: a state per group into the partials; pass 2 (below): one group folds them as its elements */
        pclr__pass one = p;
        if ((r = e->ops->scratch(e, en, PCLR__SCRATCH_PARTIALS, most * ss, &partials)) != PCLR_OK) goto failed;
        one.out = one.fold = partials;
        one.out_index = one.out_bytes = 0;
        one.out_count = plan.groups;
        one.last = 0;
        if ((r = e->ops->launch(e, &one, d->sync)) != PCLR_OK) goto failed;
        p.x = p.fold = partials;
        p.x_bytes = p.x_offset = 0;
        p.n = plan.groups;
        p.groups = 1;
        p.first = 0;
    }
    p.out = dst;
    if ((r = e->ops->launch(e, &p, d->sync)) != PCLR_OK) goto failed;
    if ((r = e->ops->complete(e, d->sync, 1, dst, d->blocking ? (size_t)(count * ss) : 0, host)) != PCLR_OK) return r;
    if (!d->blocking) return PCLR_OK;
    if (layout && b.shape.layout == PCLR_LAYOUT_SEGMENTS) {
        uint32_t bad = 0;
        if ((r = e->ops->read(e, p.counter, 0, &bad, 4)) != PCLR_OK) return r;
        if (bad)
            return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "%s: segment offsets decrease or pass n = %llu (checked on the device, where the "
                              "offsets are)", fn, (unsigned long long)span);
    }
    if (host != (unsigned char *)d->results) pclr__finalize_states(&en->fz, (size_t)rs, host, count, d->results);
    return PCLR_OK;
failed:
    e->ops->complete(e, d->sync, 0, p.counter, 0, NULL);
    return r;
}

/* pclr__engine_reduce's two forms, on buffers (the backends' deprecated verbs wrap their handles first). */
PCLR__FN pclr_result pclr__engine_blocking(pclr__engine *e, const char *fn, const pclr_config *cfg, const pclr_input *in, void *results,
                                           size_t results_bytes, const pclr_sync *sync) {
    pclr__dest d;
    memset(&d, 0, sizeof d);
    d.blocking = 1;
    d.results = results;
    d.results_bytes = results_bytes;
    d.sync = sync; /* (a blocking CUDA verb's stream) */
    return pclr__engine_reduce(e, fn, cfg, in, &d);
}
PCLR__FN pclr_result pclr__engine_async(pclr__engine *e, const char *fn, const pclr_config *cfg, const pclr_input *in,
                                        const pclr_buffer *states, uint64_t first_state, const pclr_sync *sync) {
    pclr__dest d;
    memset(&d, 0, sizeof d);
    d.states = states;
    d.first_state = first_state;
    d.sync = sync;
    return pclr__engine_reduce(e, fn, cfg, in, &d);
}

/* The tuner's measurement: seconds per call of cfg on n elements, pipelined,
   the median of three ~2 ms batches; each call reads the next slice of a
   pool larger than the cache, so that inputs come from memory. A layout's
   calls write their states into out. */
typedef struct pclr__tuning { pclr__engine *e; pclr_buffer pool, out; uint64_t pool_elems, turn; } pclr__tuning;

PCLR__FN double pclr__tune_measure(void *user, const pclr_config *cfg, uint64_t n) {
    pclr__tuning *t = (pclr__tuning *)user;
    const uint64_t span = (n + 63) / 64 * 64, slots = t->pool_elems / span ? t->pool_elems / span : 1;
    uint64_t offsets[256];
    double secs[3], s;
    int calls = 1, batch, i;
    pclr__batch b;
    if (cfg->layout != PCLR_LAYOUT_ONE ? pclr__engine_plan_batch(t->e, cfg, n, &b) != PCLR_OK : pclr__engine_prepare(t->e, cfg) != PCLR_OK)
        return -1.0; /* this device cannot run it: skipped */
    for (batch = -1; batch < 3; ++batch) { /* batch -1: warm-up, and sizes the batches */
        for (i = 0; i < calls; ++i) offsets[i] = (t->turn++ % slots) * span;
        if ((s = t->e->ops->tune_time(t->e, cfg, &t->pool, &t->out, n, offsets, calls)) <= 0) return -1.0;
        if (batch < 0) calls = pclr__tune_batch_calls(s);
        else secs[batch] = s / calls;
    }
    return pclr__tune_median3(secs);
}

PCLR__FN pclr_result pclr__engine_tune(pclr__engine *e, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                       pclr_tune_entry *out, size_t cap, size_t *count) {
    const size_t chunk = (size_t)1 << 20;
    pclr__tuning t;
    pclr_tune_options o;
    pclr_config start;
    pclr_result r;
    uint64_t es, pool_bytes, done;
    size_t i;
    char *host;
    if (count) *count = 0;
    if (!e->ops->tune_time) return pclr__fail(e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "the CPU reference has no knobs to tune");
    if (!out || !count) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "tune: %s is NULL", out ? "count" : "out");
    if ((int)type <= 0 || (int)op <= 0 || type >= PCLR_TYPE_COUNT_ || op >= PCLR_OP_COUNT_)
        return pclr__fail(e, PCLR_ERR_INVALID_ENUM, "tune: type and op must be set and valid");
    if (cap < PCLR_TUNE_CLASSES)
        return pclr__fail(e, PCLR_ERR_BUFFER_TOO_SMALL, "tune: out needs room for %d entries", PCLR_TUNE_CLASSES);
    memset(&start, 0, sizeof start);
    start.type = type;
    start.op = op;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (o.layout != PCLR_LAYOUT_ONE) { /* one shape: its elements are the n measured */
        if (o.layout != PCLR_LAYOUT_ROWS && o.layout != PCLR_LAYOUT_COLUMNS)
            return pclr__fail(e, PCLR_ERR_INVALID_ENUM, "tune: a layout is tuned as rows or columns (segments use the entries of rows of their length)");
        if (!o.rows || !o.cols) return pclr__fail(e, PCLR_ERR_INVALID_KNOB, "tune: a layout needs rows and cols of at least 1");
        start.layout = o.layout;
        start.rows = o.rows;
        start.cols = o.cols;
        o.max_n = pclr_layout_elements(&start, 0);
    }
    if ((r = pclr__engine_resolve(e, &start, &start)) != PCLR_OK) return r;
    if (!o.max_n) o.max_n = (uint64_t)1 << 26;
    es = pclr_type_size(type);
    if (o.max_n > ((uint64_t)1 << 40) / es)
        return pclr__fail(e, PCLR_ERR_SIZE_OVERFLOW, "tune: %llu elements are too many", (unsigned long long)o.max_n);

    pool_bytes = o.max_n * es > 4 * e->cache_bytes ? o.max_n * es : 4 * e->cache_bytes;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    memset(&t, 0, sizeof t);
    t.e = e;
    t.pool_elems = pool_bytes / es;
    if (start.layout != PCLR_LAYOUT_ONE) { /* a state per row or column */
        pclr__layout states;
        pclr__layout_of(&start, &states);
        t.out.bytes = pclr_layout_results(&start) * states.size;
        if ((r = e->ops->alloc(e, (size_t)t.out.bytes, &t.out.handle)) != PCLR_OK) return r;
    }
    t.pool.bytes = pool_bytes;
    if ((r = e->ops->alloc(e, (size_t)pool_bytes, &t.pool.handle)) != PCLR_OK || !(host = (char *)pclr__alloc(e, chunk))) {
        if (r == PCLR_OK) e->ops->free(e, t.pool.handle);
        if (start.layout != PCLR_LAYOUT_ONE) e->ops->free(e, t.out.handle);
        return r != PCLR_OK ? r : pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the tuning input");
    }
    pclr__tune_pattern(type, host, chunk);
    for (done = 0; done < pool_bytes && r == PCLR_OK; done += chunk)
        r = e->ops->write(e, t.pool.handle, (size_t)done, host, (size_t)(pool_bytes - done < chunk ? pool_bytes - done : chunk));
    pclr__free(e, host);
    if (r == PCLR_OK && (!e->ops->tune_begin || (r = e->ops->tune_begin(e)) == PCLR_OK)) {
        const size_t tuned = e->tuned_count; /* set aside: each candidate is timed as given (a layout's lanes = 0 is the planner's) */
        e->tuned_count = 0;
        r = pclr_tune_sweep(&start, &o, pclr__tune_measure, &t, out, cap, count);
        e->tuned_count = tuned;
        if (e->ops->tune_end) e->ops->tune_end(e);
    }
    e->ops->free(e, t.pool.handle);
    if (start.layout != PCLR_LAYOUT_ONE) e->ops->free(e, t.out.handle);
    if (r != PCLR_OK) {
        *count = 0;
        return r;
    }
    for (i = 0; i < *count; ++i) {
        pclr__copy(out[i].device, sizeof out[i].device, e->device);
        pclr__copy(out[i].driver, sizeof out[i].driver, e->driver);
    }
    if ((r = pclr__tune_add(&e->alloc, &e->tuned, &e->tuned_count, out, *count)) != PCLR_OK)
        return pclr__fail(e, r, "tune: out of host memory for the tuned entries");
    return PCLR_OK;
}

PCLR__FN size_t pclr__engine_describe(const pclr__engine *e, char *buf, size_t cap) {
    pclr_config zero, c;
    pclr_launch plan;
    const char *why = NULL;
    char text[400];
    size_t len = 0;
    if (!e) {
        pclr__appendf(buf, cap, &len, "no context (NULL)\n");
    } else if (e->ops->host) { /* the CPU reference: no kernels, caches or tuning */
        e->ops->describe(e, buf, cap, &len);
    } else {
        e->ops->describe(e, buf, cap, &len);
        memset(&zero, 0, sizeof zero);
        if (pclr__engine_check(e, &zero, &c, &why) == PCLR_OK) {
            pclr_config_describe(&c, text, sizeof text);
            pclr__appendf(buf, cap, &len, "default path: %s\n", text);
            if (pclr_plan(&c, &e->facts, (uint64_t)1 << 24, &plan) == PCLR_OK)
                pclr__appendf(buf, cap, &len, "grid for 2^24 elements: %llu groups x %u work-items (at most %llu groups)\n",
                              (unsigned long long)plan.groups, (unsigned)plan.group_size,
                              (unsigned long long)pclr_max_groups(&c, &e->facts));
        } else {
            pclr__appendf(buf, cap, &len, "default path: none (%s)\n", why ? why : "unsupported");
        }
        pclr__appendf(buf, cap, &len, "cache: %lu configurations, %lu programs\n", (unsigned long)e->entry_count,
                      (unsigned long)e->program_count);
#ifdef PCLREDUCE_NO_FILES
        pclr__appendf(buf, cap, &len, "disk cache: none, tuning file: none (%s)\n", PCLR__NO_FILES_WHY);
#else
        if (e->cache_off) pclr__appendf(buf, cap, &len, "disk cache: off (%s: %s)\n", e->cache_off, e->cache_dir);
        else pclr__appendf(buf, cap, &len, "disk cache: %s (%lu loaded, %lu stored)\n", e->cache_dir[0] ? e->cache_dir : "off",
                           (unsigned long)e->disk_hits, (unsigned long)e->disk_stores);
#endif
        pclr__appendf(buf, cap, &len, "tuned: %lu entries for this device (%lu skipped: the device cannot run them)\n",
                      (unsigned long)e->tuned_count, (unsigned long)e->tuned_skipped);
    }
    if (buf && cap > 0) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

PCLR__FN const char *pclr__engine_error(const pclr__engine *e) { return e ? e->last_error : "no context (NULL)"; }
PCLR__FN const char *pclr__engine_log(const pclr__engine *e) { return e && e->build_log ? e->build_log : ""; }

/* ---------------------------------------------------------------- run-time library loading  >>loading
   One mechanism for every library: a list of entry points (field of the
   table, symbol name) filled by dlopen/dlsym (LoadLibrary/GetProcAddress) or,
   under PCLREDUCE_NO_RUNTIME_LINKING, by the linked symbols (each backend's
   list macro writes that part). */
typedef struct pclr__symbol { const char *name; size_t offset; int optional; } pclr__symbol;

/* A library the backends load: what it is called, where to look, its entry points. */
typedef struct pclr__library {
    const char *what, *env, *path_field, *table_field; /* "OpenCL library", "PCLR_OPENCL_LIBRARY", desc fields */
    const char *hint;                                  /* how to get one */
    const char *const *names;                          /* the usual names, in order */
    size_t count;
    const pclr__symbol *syms;
    size_t nsyms;
    void (*link)(void *table);                         /* PCLREDUCE_NO_RUNTIME_LINKING: the linked functions */
    const char *unresolved_hint;                       /* a library here that does not load for an undefined
                                                          symbol: what to do (NULL: hint) */
} pclr__library;

#ifndef PCLREDUCE_NO_RUNTIME_LINKING
#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

PCLR__FN void *pclr__lib_open(const char *name) {
#ifdef _WIN32
    return (void *)LoadLibraryA(name);
#else
    return dlopen(name, RTLD_NOW | RTLD_LOCAL);
#endif
}

PCLR__FN void pclr__lib_close(void *lib) {
    if (!lib) return;
#ifdef _WIN32
    FreeLibrary((HMODULE)lib);
#else
    dlclose(lib);
#endif
}

PCLR__FN const char *pclr__lib_error(void) {
#ifdef _WIN32
    return "LoadLibrary failed";
#else
    const char *e = dlerror();
    return e ? e : "not found";
#endif
}

/* dlerror's text for a library that is not there at all (any other: it is
   there and was refused: undefined symbols, not a shared object...). */
PCLR__FN int pclr__lib_absent(const char *err) {
#ifdef _WIN32
    (void)err;
    return 1;
#else
    return strstr(err, "No such file or directory") != NULL || !strcmp(err, "not found");
#endif
}

/* What to do about a library that did not load with dlerror's text err. */
PCLR__FN const char *pclr__lib_hint(const pclr__library *L, const char *err) {
    return L->unresolved_hint && strstr(err, "undefined symbol") ? L->unresolved_hint : L->hint;
}

/* Stores the address of `name` into the function pointer at dst (memcpy keeps
   the object-to-function pointer conversion -Wpedantic clean). 0: not found. */
PCLR__FN int pclr__lib_sym(void *lib, const char *name, void *dst) {
    void *p;
#ifdef _WIN32
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    memcpy(&p, &f, sizeof p);
#else
    p = dlsym(lib, name);
#endif
    if (!p) return 0;
    memcpy(dst, &p, sizeof p);
    return 1;
}


/* Opens `path` (an explicit path that fails is an error: no fall-back), else
   $env, else the first of names[] that opens, and fills every symbol into
   table. *lib gets the library, name where it came from; on failure a
   sentence in why and PCLR_ERR_NO_DRIVER. */
PCLR__FN pclr_result pclr__lib_load(const pclr__library *L, const char *path, const char *const *names, size_t count,
                                    void *table, void **lib, char *name, size_t name_cap, char *why, size_t why_cap) {
    const char *from = L->path_field;
    size_t i;
    *lib = NULL;
    if (!path || !*path) {
        path = getenv(L->env);
        from = L->env;
    }
    if (path && *path) {
        if (!(*lib = pclr__lib_open(path))) {
            const char *err = pclr__lib_error(), *hint = pclr__lib_hint(L, err);
            return pclr__say(why, why_cap, PCLR_ERR_NO_DRIVER, "no %s: %s (from %s) could not be loaded: %s%s%s", L->what, path,
                             from, err, hint == L->hint ? "" : ". ", hint == L->hint ? "" : hint);
        }
        pclr__copy(name, name_cap, path);
    } else {
        char tried[256], refused[384]; /* refused: the first one here that did not load, and dlerror's text */
        size_t len = 0;
        const char *first = NULL;
        tried[0] = refused[0] = '\0';
        for (i = 0; i < count && !*lib; ++i) {
            pclr__appendf(tried, sizeof tried, &len, "%s%s", i ? ", " : "", names[i]);
            if ((*lib = pclr__lib_open(names[i])) != NULL) {
                pclr__copy(name, name_cap, names[i]);
            } else if (!first) {
                const char *err = pclr__lib_error();
                if (!pclr__lib_absent(err)) {
                    first = names[i];
                    pclr__copy(refused, sizeof refused, err);
                }
            }
        }
        if (!*lib && first)
            return pclr__say(why, why_cap, PCLR_ERR_NO_DRIVER, "no %s: %s is here but does not load (%s; tried %s). %s", L->what,
                             first, refused, tried, pclr__lib_hint(L, refused));
        if (!*lib) return pclr__say(why, why_cap, PCLR_ERR_NO_DRIVER, "no %s (tried %s; %s)", L->what, tried, L->hint);
    }
    for (i = 0; i < L->nsyms; ++i)
        if (!pclr__lib_sym(*lib, L->syms[i].name, (char *)table + L->syms[i].offset) && !L->syms[i].optional) {
            pclr__say(why, why_cap, PCLR_ERR_NO_DRIVER, "the %s %s lacks %s (too old?)", L->what, name, L->syms[i].name);
            pclr__lib_close(*lib);
            *lib = NULL;
            return PCLR_ERR_NO_DRIVER;
        }
    return PCLR_OK;
}
#else
PCLR__FN void pclr__lib_close(void *lib) { (void)lib; } /* nothing was loaded */
#endif /* PCLREDUCE_NO_RUNTIME_LINKING */

/* A library's table of entry points: the caller's (`given`, copied when it
   sets every required entry point), the linked functions, or loaded (names:
   the order to try). *lib: what to close (NULL when nothing was loaded). */
PCLR__FN pclr_result pclr__library_open(const pclr__library *L, const void *given, const char *path, const char *const *names,
                                        size_t count, void *table, size_t size, void **lib, char *name, size_t name_cap,
                                        char *why, size_t why_cap) {
    size_t i;
    void *p;
    *lib = NULL;
    if (given) {
        for (i = 0; i < L->nsyms; ++i) {
            memcpy(&p, (const char *)given + L->syms[i].offset, sizeof p);
            if (!p && !L->syms[i].optional)
                return pclr__say(why, why_cap, PCLR_ERR_NULL_POINTER, "%s leaves %s NULL", L->table_field, L->syms[i].name);
        }
        memcpy(table, given, size);
        pclr__say(name, name_cap, PCLR_OK, "the caller's table (%s)", L->table_field);
        return PCLR_OK;
    }
#ifdef PCLREDUCE_NO_RUNTIME_LINKING
    (void)path; (void)names; (void)count; (void)why; (void)why_cap;
    L->link(table);
    pclr__say(name, name_cap, PCLR_OK, "linked (PCLREDUCE_NO_RUNTIME_LINKING)");
    return PCLR_OK;
#else
    return pclr__lib_load(L, path, names, count, table, lib, name, name_cap, why, why_cap);
#endif
}

/* pclr_cl_load_api and its twins: a table without a context (stays loaded). */
PCLR__FN pclr_result pclr__load_api(const pclr__library *L, const char *path, void *table, size_t size, char *why, size_t why_cap) {
    char name[256];
    void *lib;
    if (why && why_cap) why[0] = '\0';
    if (!table) return pclr__say(why, why_cap, PCLR_ERR_NULL_POINTER, "the table pointer is NULL");
    memset(table, 0, size);
    return pclr__library_open(L, NULL, path, L->names, L->count, table, size, &lib, name, sizeof name, why, why_cap);
}

/* A backend's desc from a pclr_desc: the fields they share. */
#define PCLR__DESC_FROM(dst, d)                                                                                \
    ((dst).allocator = (d)->allocator, (dst).cache_dir = (d)->cache_dir, (dst).no_disk_cache = (d)->no_disk_cache, \
     (dst).tune_file = (d)->tune_file, (dst).no_tune_file = (d)->no_tune_file, (dst).error = (d)->error,         \
     (dst).error_cap = (d)->error_cap)

/* A backend's table of functions, for the generic context. */
/* ---------------------------------------------------------------- the generic context  >>generic */
#if defined(PCLREDUCE_OPENCL) || defined(PCLREDUCE_CL_H)
static void pclr__cl_ops(pclr__backend_ops *ops);
static pclr_result pclr__cl_device_count(const pclr_desc *d, int *count);
#define PCLR__HAVE_OPENCL 1
#else
#define PCLR__HAVE_OPENCL 0
#endif
#if defined(PCLREDUCE_CUDA) || defined(PCLREDUCE_CUDA_H)
static void pclr__cuda_ops(pclr__backend_ops *ops);
static pclr_result pclr__cuda_device_count(const pclr_desc *d, int *count);
#define PCLR__HAVE_CUDA 1
#else
#define PCLR__HAVE_CUDA 0
#endif
#if defined(PCLREDUCE_VULKAN) || defined(PCLREDUCE_VK_H)
static void pclr__vk_ops(pclr__backend_ops *ops);
static pclr_result pclr__vk_device_count(const pclr_desc *d, int *count);
#define PCLR__HAVE_VULKAN 1
#else
#define PCLR__HAVE_VULKAN 0
#endif

struct pclr_context {
    pclr__engine *engine;  /* the backend's context (the CPU reference's too) */
    pclr_backend backend;
    pclr_allocator alloc;
    char passed_over[1024]; /* why earlier backends were not taken */
};

/* the context's one-call-at-a-time flag (see pclr__enter) */
PCLR__FN long *pclr__busy(pclr_context *ctx) { return &ctx->engine->busy; }

/* ------------------------------------------------ the CPU reference as a backend  >>cpu-backend
   Buffers are host memory; one launch runs the reference (pclr_cpu_reduce_map, pclr_cpu_reduce_layout)
   over the whole input and writes the results. */
PCLR__FN pclr_result pclr__cpu_alloc(pclr__engine *e, size_t bytes, pclr__mem *m) {
    m->addr = 0;
    if (!(m->ptr = pclr__alloc(e, bytes ? bytes : 1))) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a buffer");
    return PCLR_OK;
}
PCLR__FN void pclr__cpu_free(pclr__engine *e, pclr__mem m) { pclr__free(e, m.ptr); }
PCLR__FN pclr_result pclr__cpu_write(pclr__engine *e, pclr__mem m, size_t offset, const void *src, size_t bytes) {
    (void)e;
    memcpy((char *)m.ptr + offset, src, bytes);
    return PCLR_OK;
}
PCLR__FN pclr_result pclr__cpu_read(pclr__engine *e, pclr__mem m, size_t offset, void *dst, size_t bytes) {
    (void)e;
    memcpy(dst, (const char *)m.ptr + offset, bytes);
    return PCLR_OK;
}
PCLR__FN pclr_result pclr__cpu_launch(pclr__engine *e, const pclr__pass *p, const pclr_sync *sync) {
    const pclr_config *c = p->b ? &p->b->shape : &p->en->cfg;
    const uint64_t es = p->en->elem_size, ys = p->en->y_size;
    const char *x = p->n && p->x.ptr ? (const char *)p->x.ptr + p->x_offset * es : NULL;
    const char *y = p->n && ys && p->y.ptr ? (const char *)p->y.ptr + p->y_offset * ys : NULL;
    unsigned char *out = (unsigned char *)p->out.ptr + p->out_index * p->en->result_size;
    pclr_result r;
    (void)sync;
    if (p->b) r = pclr_cpu_reduce_layout(c, x, y, (const uint64_t *)p->offsets.ptr, p->n, p->params, out);
    else r = pclr__cpu_reduce_map(c, x, y, p->n, p->params, out, 0); /* (its config built: checked once) */
    if (r == PCLR_ERR_SIZE_OVERFLOW && p->b)
        return pclr__fail(e, r, "%s: segment offsets decrease or pass n = %llu", p->fn, (unsigned long long)p->n);
    return r == PCLR_OK ? r : pclr__fail(e, r, "%s: the CPU reference failed", p->fn);
}
PCLR__FN void pclr__cpu_describe(const pclr__engine *e, char *buf, size_t cap, size_t *len) {
    (void)e;
    pclr__appendf(buf, cap, len, "device: the CPU reference (pclr_cpu_reduce: sequential blocks, pairwise)\n");
}
PCLR__FN void pclr__cpu_destroy(pclr__engine *e) {
    const pclr_allocator a = e->alloc;
    pclr__engine_free(e);
    a.free(e, a.user);
}
static void pclr__cpu_ops(pclr__backend_ops *ops);
PCLR__FN pclr_result pclr__cpu_create(const pclr_desc *d, pclr__engine **out) {
    pclr_allocator a;
    pclr__engine *e;
    pclr_result r;
    if ((r = pclr__create_check("pclr_create", d->error, d->error_cap, out != NULL, &d->allocator, &a)) != PCLR_OK) return r;
    if (!(e = (pclr__engine *)a.alloc(sizeof *e, a.user)))
        return pclr__say(d->error, d->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    pclr__engine_init(e, pclr__cpu_ops, &a);
    pclr__copy(e->device, sizeof e->device, "the CPU reference (pclr_cpu_reduce)");
    e->facts.compute_units = 1; /* (the planner's view of it: a layout's plan is made and ignored) */
    e->facts.max_group_size = 1024;
    *out = e;
    return PCLR_OK;
}
static void pclr__cpu_ops(pclr__backend_ops *ops) {
    ops->backend = PCLR_CPU;
    ops->host = 1;
    ops->alloc = pclr__cpu_alloc;
    ops->free = pclr__cpu_free;
    ops->write = pclr__cpu_write;
    ops->read = pclr__cpu_read;
    ops->launch = pclr__cpu_launch;
    ops->describe = pclr__cpu_describe;
    ops->create = pclr__cpu_create;
    ops->destroy = pclr__cpu_destroy;
}

/* The macro that compiles GPU backend b in: PCLREDUCE_<it>. */
PCLR__FN const char *pclr__backend_macro(pclr_backend b) { return b == PCLR_CUDA ? "CUDA" : b == PCLR_VULKAN ? "VULKAN" : "OPENCL"; }

/* The table of backend b (zeroed first); 0 when b is not compiled in. */
PCLR__FN int pclr__ops_of(pclr_backend b, pclr__backend_ops *ops) {
    memset(ops, 0, sizeof *ops);
    switch (b) {
    case PCLR_CPU: pclr__cpu_ops(ops); return 1;
#if PCLR__HAVE_OPENCL
    case PCLR_OPENCL: pclr__cl_ops(ops); return 1;
#endif
#if PCLR__HAVE_CUDA
    case PCLR_CUDA: pclr__cuda_ops(ops); return 1;
#endif
#if PCLR__HAVE_VULKAN
    case PCLR_VULKAN: pclr__vk_ops(ops); return 1;
#endif
    default: return 0;
    }
}

PCLR_API pclr_result pclr_create(const pclr_desc *desc, pclr_context **out) {
    static const pclr_backend autos[] = {PCLR_CUDA, PCLR_OPENCL, PCLR_CPU};
    pclr_desc zero, d;
    pclr_allocator a;
    pclr_context *ctx;
    const pclr_backend *order = autos;
    size_t count = 3, i, len = 0;
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if ((r = pclr__create_check("pclr_create", desc->error, desc->error_cap, out != NULL, &desc->allocator, &a)) != PCLR_OK)
        return r;
    if (desc->backends[0] != PCLR_BACKEND_AUTO) {
        order = desc->backends;
        for (count = 0; count < PCLR_MAX_BACKENDS && desc->backends[count]; ++count)
            if ((int)desc->backends[count] < 0 || desc->backends[count] >= PCLR_BACKEND_COUNT_)
                return pclr__say(desc->error, desc->error_cap, PCLR_ERR_INVALID_ENUM,
                                 "pclr_create: desc.backends[%lu] is not a backend", (unsigned long)count);
    }
    if (!(ctx = (pclr_context *)a.alloc(sizeof *ctx, a.user)))
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = a;
    d = *desc;
    for (i = 0; i < count; ++i) {
        pclr__backend_ops ops;
        char why[768];
        why[0] = '\0';
        if (!pclr__ops_of(order[i], &ops)) {
            pclr__say(why, sizeof why, PCLR_ERR_NO_DRIVER, "not compiled in (define PCLREDUCE_%s)", pclr__backend_macro(order[i]));
        } else {
            d.error = why;
            d.error_cap = sizeof why;
            if ((r = ops.create(&d, &ctx->engine)) == PCLR_OK) {
                ctx->backend = order[i];
                *out = ctx;
                return PCLR_OK;
            }
            if (r == PCLR_ERR_OUT_OF_MEMORY || r == PCLR_ERR_NULL_POINTER || r == PCLR_ERR_INVALID_ENUM) {
                a.free(ctx, a.user);
                return pclr__say(desc->error, desc->error_cap, r, "%s: %s", pclr_backend_name(order[i]), why);
            }
        }
        pclr__appendf(ctx->passed_over, sizeof ctx->passed_over, &len, "%s%s: %s", len ? "; " : "",
                      pclr_backend_name(order[i]), why);
    }
    pclr__say(desc->error, desc->error_cap, PCLR_ERR_NO_DEVICE, "no backend works here (%s)", ctx->passed_over);
    a.free(ctx, a.user);
    return PCLR_ERR_NO_DEVICE;
}

PCLR_API pclr_result pclr_device_count(const pclr_desc *desc, pclr_backend backend, int *count) {
    pclr_desc zero;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if (desc->error && desc->error_cap) desc->error[0] = '\0';
    if (!count) return pclr__say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER, "pclr_device_count: count is NULL");
    *count = 0;
    switch (backend) {
    case PCLR_CPU: *count = 1; return PCLR_OK;
#if PCLR__HAVE_OPENCL
    case PCLR_OPENCL: return pclr__cl_device_count(desc, count);
#endif
#if PCLR__HAVE_CUDA
    case PCLR_CUDA: return pclr__cuda_device_count(desc, count);
#endif
#if PCLR__HAVE_VULKAN
    case PCLR_VULKAN: return pclr__vk_device_count(desc, count);
#endif
    default:
        if ((int)backend <= 0 || backend >= PCLR_BACKEND_COUNT_)
            return pclr__say(desc->error, desc->error_cap, PCLR_ERR_INVALID_ENUM, "pclr_device_count: name one backend (cuda, opencl, vulkan, cpu)");
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_NO_DRIVER, "pclr_device_count: %s is not compiled in",
                         pclr_backend_name(backend));
    }
}

PCLR_API void pclr_destroy(pclr_context *ctx) {
    if (!ctx) return;
    ctx->engine->ops->destroy(ctx->engine);
    ctx->alloc.free(ctx, ctx->alloc.user);
}

PCLR_API pclr_backend pclr_get_backend(const pclr_context *ctx) { return ctx ? ctx->backend : PCLR_BACKEND_AUTO; }
PCLR_API const char *pclr_device_name(const pclr_context *ctx) { return ctx ? ctx->engine->device : ""; }

/* The context's error slot. */
PCLR__FN pclr_result pclr__context_fail(pclr_context *ctx, pclr_result r, const char *what) {
    return pclr__fail(ctx->engine, r, "%s", what);
}

PCLR__FN pclr_result pclr__buffer_create(pclr_context *ctx, size_t bytes, pclr_buffer **out) {
    pclr_buffer *b;
    pclr_result r;
    if (!(b = (pclr_buffer *)ctx->alloc.alloc(sizeof *b, ctx->alloc.user)))
        return pclr__context_fail(ctx, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a buffer");
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->owner = ctx;
    b->made = 1;
    if ((r = ctx->engine->ops->alloc(ctx->engine, bytes ? bytes : 1, &b->handle)) != PCLR_OK) {
        ctx->alloc.free(b, ctx->alloc.user);
        return r;
    }
    *out = b;
    return PCLR_OK;
}

PCLR_API pclr_result pclr_buffer_create(pclr_context *ctx, size_t bytes, pclr_buffer **out) {
    if (out) *out = NULL;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!out) return pclr__context_fail(ctx, PCLR_ERR_NULL_POINTER, "pclr_buffer_create: out is NULL");
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__buffer_create(ctx, bytes, out));
}

/* A program's own handle as a buffer of ctx (the backend headers' constructors): no allocation. */
PCLR__FN pclr_result pclr__buffer_wrap(pclr_context *ctx, pclr_backend backend, const char *fn, pclr__mem h, uint64_t bytes,
                                       pclr_buffer *out) {
    pclr_result r;
    if (out) memset(out, 0, sizeof *out);
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!out) return pclr__context_fail(ctx, PCLR_ERR_NULL_POINTER, "the buffer to fill (out) is NULL");
    if (ctx->backend != backend || !ctx->engine->ops->wrap)
        return pclr__fail(ctx->engine, PCLR_ERR_INVALID_ARGUMENT, "%s: the context runs on %s, not %s", fn, pclr_backend_name(ctx->backend),
                          pclr_backend_name(backend));
    if (!pclr__enter(pclr__busy(ctx))) return PCLR_ERR_BUSY;
    r = ctx->engine->ops->wrap(ctx->engine, h, bytes, out);
    if (r == PCLR_OK) out->owner = ctx;
    return pclr__leave(pclr__busy(ctx), r);
}

/* What the backends' native queries (pclr_cl_get_native, ...) check first: out zeroed, a context of `backend`. */
PCLR__FN pclr_result pclr__native_of(const pclr_context *ctx, pclr_backend backend, const char *fn, void *out, size_t size) {
    if (out) memset(out, 0, size);
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!out) return pclr__fail(ctx->engine, PCLR_ERR_NULL_POINTER, "%s: out is NULL", fn);
    if (ctx->backend != backend)
        return pclr__fail(ctx->engine, PCLR_ERR_INVALID_ARGUMENT, "%s: the context runs on %s, not %s", fn, pclr_backend_name(ctx->backend),
                          pclr_backend_name(backend));
    return PCLR_OK;
}

/* A buffer another context made: its handle means nothing to this one (a CPU buffer's record read
   as a cl_mem crashed; an OpenCL buffer's record was reduced as data). NULL is for the caller to judge. */
PCLR__FN pclr_result pclr__buffer_owned(pclr_context *ctx, const pclr_buffer *buf, const char *which) {
    if (!buf || buf->owner == ctx) return PCLR_OK;
    return pclr__fail(ctx->engine, PCLR_ERR_INVALID_ARGUMENT, "%s belongs to another context (each context reads only its own buffers)",
                      which);
}

PCLR_API void pclr_buffer_destroy(pclr_context *ctx, pclr_buffer *buf) {
    if (!ctx || !buf || buf->owner != ctx || !buf->made) return; /* (another context's buffer: that context destroys it) */
    ctx->engine->ops->free(ctx->engine, buf->handle);
    ctx->alloc.free(buf, ctx->alloc.user);
}

/* buf, and [offset, offset + bytes) inside it. */
PCLR__FN pclr_result pclr__buffer_check(pclr_context *ctx, const pclr_buffer *buf, const void *host, size_t offset,
                                        size_t bytes) {
    if (!buf || (!host && bytes)) return pclr__context_fail(ctx, PCLR_ERR_NULL_POINTER, "buffer or host pointer is NULL");
    if (buf->owner != ctx) return pclr__buffer_owned(ctx, buf, "the buffer");
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return pclr__context_fail(ctx, PCLR_ERR_SIZE_OVERFLOW, "the copy reaches past the end of the buffer");
    return PCLR_OK;
}

PCLR__FN pclr_result pclr__buffer_write(pclr_context *ctx, pclr_buffer *buf, size_t offset, const void *src, size_t bytes) {
    pclr_result r;
    if ((r = pclr__buffer_check(ctx, buf, src, offset, bytes)) != PCLR_OK || !bytes) return r;
    return ctx->engine->ops->write(ctx->engine, buf->handle, offset, src, bytes);
}
PCLR_API pclr_result pclr_buffer_write(pclr_context *ctx, pclr_buffer *buf, size_t offset, const void *src, size_t bytes) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__buffer_write(ctx, buf, offset, src, bytes));
}

PCLR__FN pclr_result pclr__buffer_read(pclr_context *ctx, const pclr_buffer *buf, size_t offset, void *dst, size_t bytes) {
    pclr_result r;
    if ((r = pclr__buffer_check(ctx, buf, dst, offset, bytes)) != PCLR_OK || !bytes) return r;
    return ctx->engine->ops->read(ctx->engine, buf->handle, offset, dst, bytes);
}
PCLR_API pclr_result pclr_buffer_read(pclr_context *ctx, const pclr_buffer *buf, size_t offset, void *dst, size_t bytes) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__buffer_read(ctx, buf, offset, dst, bytes));
}

PCLR_API pclr_result pclr_prepare(pclr_context *ctx, const pclr_config *cfg) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__engine_prepare(ctx->engine, cfg));
}

PCLR__FN pclr_result pclr__resolve(pclr_context *ctx, const pclr_config *cfg, uint64_t n, pclr_config *out) {
    pclr__engine *e = ctx->engine;
    const pclr_config *given = cfg;
    pclr_config tuned;
    pclr_result r;
    if (cfg && e->tuned_count && pclr_tune_apply(e->tuned, e->tuned_count, cfg, n, &tuned)) cfg = &tuned;
    if ((r = pclr__engine_resolve(e, cfg, out)) != PCLR_OK) return r;
    if (out->accumulate == PCLR_EXACT && e->ops->group_limit && out->layout == PCLR_LAYOUT_ONE) {
        /* the group the built kernel runs (pclr__engine_fit_group): built now, as the reduce would */
        const pclr__entry *en;
        if ((r = pclr__engine_lookup(e, given, n, &en)) != PCLR_OK) return r;
        *out = en->cfg;
    }
    return PCLR_OK;
}
PCLR_API pclr_result pclr_resolve(pclr_context *ctx, const pclr_config *cfg, uint64_t n, pclr_config *out) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!out) return pclr__context_fail(ctx, PCLR_ERR_NULL_POINTER, "out is NULL");
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__resolve(ctx, cfg, n, out));
}

PCLR_API const pclr_tune_entry *pclr_tuned_entry(const pclr_context *ctx, const pclr_config *cfg, uint64_t n) {
    const pclr__engine *e = ctx ? ctx->engine : NULL;
    const pclr_tune_entry *found = NULL;
    pclr_config c;
    size_t i;
    /* one at a time, as the reduce applies them (a file's later line has replaced an earlier one with its key) */
    for (i = 0; e && cfg && i < e->tuned_count; ++i)
        if (pclr_tune_apply(&e->tuned[i], 1, cfg, n, &c)) found = &e->tuned[i];
    return found;
}

/* The buffers a reduce names are this context's. */
PCLR__FN pclr_result pclr__input_owned(pclr_context *ctx, const pclr_input *in, const pclr_buffer *states) {
    pclr_result r;
    if (in && ((r = pclr__buffer_owned(ctx, in->x, "in.x")) != PCLR_OK || (r = pclr__buffer_owned(ctx, in->y, "in.y")) != PCLR_OK ||
               (r = pclr__buffer_owned(ctx, in->offsets, "in.offsets")) != PCLR_OK))
        return r;
    return pclr__buffer_owned(ctx, states, "the states buffer");
}

PCLR__FN pclr_result pclr__reduce(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, void *results, size_t results_bytes,
                                  const char *fn) {
    pclr_result r;
    if ((r = pclr__input_owned(ctx, in, NULL)) != PCLR_OK) return r;
    return pclr__engine_blocking(ctx->engine, fn, cfg, in, results, results_bytes, NULL);
}
PCLR_API pclr_result pclr_reduce(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, void *results, size_t results_bytes) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__reduce(ctx, cfg, in, results, results_bytes, "pclr_reduce"));
}

PCLR__FN pclr_result pclr__reduce_async(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, const pclr_buffer *states,
                                        uint64_t first_state, const pclr_sync *sync, const char *fn) {
    pclr_result r;
    if ((r = pclr__input_owned(ctx, in, states)) != PCLR_OK) return r;
    return pclr__engine_async(ctx->engine, fn, cfg, in, states, first_state, sync);
}
PCLR_API pclr_result pclr_reduce_async(pclr_context *ctx, const pclr_config *cfg, const pclr_input *in, const pclr_buffer *states,
                                       uint64_t first_state, const pclr_sync *sync) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__reduce_async(ctx, cfg, in, states, first_state, sync, "pclr_reduce_async"));
}

/* ---- deprecated (0.4): the verbs before pclr_input  >>deprecated */
PCLR__FN pclr_input pclr__input_of(const pclr_buffer *x, uint64_t x_offset, const pclr_buffer *y, uint64_t y_offset, const double *params,
                                   const pclr_buffer *offsets, uint64_t n) {
    pclr_input in;
    in.x = x;
    in.x_offset = x_offset;
    in.y = y;
    in.y_offset = y_offset;
    in.params = params;
    in.offsets = offsets;
    in.n = n;
    return in;
}
PCLR_API pclr_result pclr_reduce_map(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                     const pclr_buffer *y, uint64_t y_offset, uint64_t n, const double *params, void *result) {
    const pclr_input in = pclr__input_of(x, x_offset, y, y_offset, params, NULL, n);
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__reduce(ctx, cfg, &in, result, SIZE_MAX, "pclr_reduce_map"));
}
PCLR_API pclr_result pclr_reduce_batched(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                         const pclr_buffer *y, uint64_t y_offset, const double *params, const pclr_buffer *offsets,
                                         uint64_t n, void *results) {
    const pclr_input in = pclr__input_of(x, x_offset, y, y_offset, params, offsets, n);
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (cfg && cfg->layout == PCLR_LAYOUT_ONE)
        return pclr__context_fail(ctx, PCLR_ERR_UNSUPPORTED_COMBINATION, "the batched reduce needs a layout (rows, columns or segments)");
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__reduce(ctx, cfg, &in, results, SIZE_MAX, "pclr_reduce_batched"));
}
PCLR_API pclr_result pclr_reduce_batched_async(pclr_context *ctx, const pclr_config *cfg, const pclr_buffer *x, uint64_t x_offset,
                                               const pclr_buffer *y, uint64_t y_offset, const double *params, const pclr_buffer *offsets,
                                               uint64_t n, pclr_buffer *out) {
    const pclr_input in = pclr__input_of(x, x_offset, y, y_offset, params, offsets, n);
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (cfg && cfg->layout == PCLR_LAYOUT_ONE)
        return pclr__context_fail(ctx, PCLR_ERR_UNSUPPORTED_COMBINATION, "the batched reduce needs a layout (rows, columns or segments)");
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__reduce_async(ctx, cfg, &in, out, 0, NULL, "pclr_reduce_batched_async"));
}

PCLR_API pclr_result pclr_tune(pclr_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                               pclr_tune_entry *out, size_t cap, size_t *count) {
    if (count) *count = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(pclr__busy(ctx), pclr__engine_tune(ctx->engine, type, op, opt, out, cap, count));
}

PCLR_API const char *pclr_last_error(const pclr_context *ctx) { return pclr__engine_error(ctx ? ctx->engine : NULL); }
PCLR_API const char *pclr_build_log(const pclr_context *ctx) { return ctx ? pclr__engine_log(ctx->engine) : ""; }

PCLR_API size_t pclr_describe(const pclr_context *ctx, char *buf, size_t cap) {
    size_t len = 0;
    if (!ctx) return pclr__engine_describe(NULL, buf, cap);
    pclr__appendf(buf, cap, &len, "backend: %s%s%s%s\n", pclr_backend_name(ctx->backend),
                  ctx->passed_over[0] ? " (passed over: " : "", ctx->passed_over, ctx->passed_over[0] ? ")" : "");
    { /* the backends this program has, and how to add the others */
        static const pclr_backend gpu[] = {PCLR_CUDA, PCLR_OPENCL, PCLR_VULKAN};
        char have[64], missing[160];
        size_t h = 0, m = 0, i;
        have[0] = missing[0] = '\0';
        for (i = 0; i < sizeof gpu / sizeof gpu[0]; ++i) {
            pclr__backend_ops ops;
            if (pclr__ops_of(gpu[i], &ops)) pclr__appendf(have, sizeof have, &h, "%s, ", pclr_backend_name(gpu[i]));
            else pclr__appendf(missing, sizeof missing, &m, "%s%s: define PCLREDUCE_%s", m ? "; " : "", pclr_backend_name(gpu[i]),
                               pclr__backend_macro(gpu[i]));
        }
        pclr__appendf(buf, cap, &len, "compiled in: %scpu%s%s%s\n", have, m ? " (not: " : "", missing, m ? ")" : "");
    }
    len += pclr__engine_describe(ctx->engine, buf && len < cap ? buf + len : NULL, len < cap ? cap - len : 0);
    if (buf && cap > 0) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

PCLR_EXTERN_C_END
PCLR__DEPRECATED_OK_END

#endif /* PCLREDUCE_IMPLEMENTATION */

/* ======================================================== the backends  >>backends */
/* The backends the program asked for (after the core's implementation, which they use). */
#if defined(PCLREDUCE_OPENCL) && !defined(PCLREDUCE_CL_H)
#include "pclreduce_cl.h"
#endif
#if defined(PCLREDUCE_CUDA) && !defined(PCLREDUCE_CUDA_H)
#include "pclreduce_cuda.h"
#endif
#if defined(PCLREDUCE_VULKAN) && !defined(PCLREDUCE_VK_H)
#include "pclreduce_vk.h"
#endif

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
