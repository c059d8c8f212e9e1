/* test_reduce: user-defined reductions (issue 33, op = PCLR_CUSTOM, cfg.reduce), on every context this
   program can create: the CPU reference functions (pclr_cpu_reduce_map, pclr_cpu_reduce_layout) and the CPU
   context always; OpenCL (PoCL in CI), Vulkan (lavapipe) and CUDA where compiled in (PCLR_TEST_OPENCL,
   PCLR_TEST_VULKAN, PCLR_TEST_CUDA) and a device answers (else a "skip:" line). Every result is held against
   a reference written here in plain C loops, not against the library's evaluator:
   1. the description's checks (no context): pclr_map_check refuses 40-odd bad descriptions with
      PCLR_ERR_INVALID_MAP and the sentence's fragment (line and column where there is one): missing, late or
      second clauses, unknown fields, a field assigned twice or read before it is assigned, a.f outside merge,
      inputs outside lift, taken names, more than 8 fields or results, bad types, an identity reading a field,
      merge leaving a field out, an identity that is not neutral, an integer merge that is not associative,
      reduce with another op, op custom without reduce or with a map or map_type, ';' misused, 5000 characters;
      pclr_config_resolve refuses the same; NULL configs; pclr_result_size.
   2. results, on fresh random data at sizes 0, 1, 2, 3, 31, 1000, 4099, 65537 and 2^20 + 3 (not with
      PCLR_TEST_QUICK) from random element offsets: log-sum-exp (float), sum + sum of squares + count fused
      (float data: double fields within 1e-9, a bare field read in lift; int data in long fields: exact), the
      first index above a threshold parameter (exact; a merge that needs a before b), the L2 norm scaled by
      max |x|, argminmax written by hand (int, ties to the smallest index: exact, and against PCLR_ARGMINMAX);
      descriptions equal to built-ins (uint sum wrapping, float max bit for bit, int argmin with its index),
      each against the loop and against the built-in op on the same context; a dot product over y (double,
      1e-9); RGBA uint8 pixels (components 4); a 64-bit wrapping state (long, ulong; a field lift leaves at
      its identity); xor of shifts; 8 fields and 8 results. The result's metadata (values, fields, type[],
      state_type[]) too. Float states' results: relative 1e-4. On devices, PCLR_TEST_QUICK takes the worked
      examples and one more drawn from the seed, the built-in beside argminmax only (PoCL builds a kernel in
      seconds); without it every description, and a second knob set (group 64, naive, vector 1) for three.
   3. layouts: rows (pitch > cols), columns and segments (offsets in a device buffer, empty segments among
      them) for log-sum-exp and the hand-written argminmax (whose i is the index in the row, column, segment);
      quick on a device: one matrix and one set of segments.
   4. pclr_combine: two parts reduced apart and combined equal the whole (integer ones exact); an index-reading
      lift's i counts from each part's start (b_first_index is not added).
   5. n = 0 gives the identity's results (log-sum-exp: -inf); a description changed in place behind the same
      pointer is read again (the contexts keep copies, read each call).
   Each context runs in a child process (fork): a crash is reported with the last case it ran, and the other
   contexts still run.
   Usage: test_reduce [cpu] [opencl] [vulkan] [cuda]   (none named: every one compiled in)
          test_reduce --nvrtc-only   (built with PCLR_TEST_CUDA: every description and layout of this file
                                      through NVRTC, compute_90 PTX, no device; skips without NVRTC)
   Environment: PCLR_SEED (or PCLR_TEST_SEED) reproduces a run (the seed is printed); PCLR_TEST_QUICK=1 leaves
   out the largest size. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#ifdef PCLR_TEST_OPENCL
#define PCLREDUCE_OPENCL
#endif
#ifdef PCLR_TEST_VULKAN
#define PCLREDUCE_VULKAN
#endif
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <math.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef PCLR_TEST_CUDA
#include <dlfcn.h>
#endif

#define D_COUNT_MAX_ 14 /* (D_COUNT, before its enum) */
static uint64_t g_seed, g_rng;
static int g_quick;
static int g_sample[D_COUNT_MAX_]; /* quick, on a device: the descriptions this run takes */
static int g_pipe = -1;            /* a child's: the case it runs, for its parent */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double unit(void) { return (double)(pclr_test_rand(&g_rng) >> 11) / 9007199254740992.0; } /* [0, 1) */
static uint64_t below(uint64_t k) { return k ? pclr_test_rand(&g_rng) % k : 0; }

/* what the child runs now (a crash is reported with it) */
static void at_case(const char *fmt, ...) {
    char line[300];
    va_list ap;
    int len;
    if (g_pipe < 0) return;
    va_start(ap, fmt);
    len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if (len > (int)sizeof line - 2) len = (int)sizeof line - 2;
    line[len++] = '\n';
    if (write(g_pipe, line, (size_t)len) < 0) g_pipe = -1;
}

/* ------------------------------------------------------------------ the descriptions */
enum { D_LSE, D_SUMS_F, D_SUMS_I, D_FIRST, D_L2, D_ARGMM, D_SUM_U, D_MAX_F, D_ARGMIN_I, D_DOT, D_RGBA, D_WIDE64, D_XOR, D_EIGHT, D_COUNT };
typedef struct desc {
    const char *name, *reduce, *params;
    pclr_type type, y_type;
    int components;
    pclr_op builtin; /* the built-in op it equals (0: none) */
} desc;
static const desc g_desc[D_COUNT] = {
    {"log-sum-exp",
     "state m: float = -inf, s: float = 0\n"
     "lift  m = x, s = 1\n"
     "merge m = max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m)\n"
     "result m + log(s)",
     NULL, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"sum, squares, count (float)",
     "state s: double = 0, q: double = 0, n: ulong = 0; lift s = x, q = s * s, n = 1; merge s = a.s + b.s, q = a.q + b.q, n = a.n + b.n; "
     "result s, q, n",
     NULL, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"sum, squares, count (int, long fields)",
     "state s: long = 0, q: long = 0, n: ulong = 0; lift s = x, q = long(x) * x, n = 1; merge s = a.s + b.s, q = a.q + b.q, n = a.n + b.n; "
     "result s, q, n",
     NULL, PCLR_INT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"first index above t", "state k: ulong = ULONG_MAX; lift k = x > t ? i : ULONG_MAX; merge k = a.k != ULONG_MAX ? a.k : b.k; result k", "float t",
     PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"L2 norm scaled by max |x|",
     "state c: float = 0, q: float = 0\n"
     "lift c = abs(x), q = x != 0\n"
     "merge c = max(a.c, b.c), q = c == 0 ? 0 : a.q * (a.c / c) * (a.c / c) + b.q * (b.c / c) * (b.c / c)\n"
     "result c * sqrt(q)",
     NULL, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"argminmax by hand",
     "state lo: int = INT_MAX, li: ulong = ULONG_MAX, hi: int = INT_MIN, hj: ulong = ULONG_MAX\n"
     "lift lo = x, li = i, hi = x, hj = i\n"
     "merge lo = min(a.lo, b.lo), li = a.lo < b.lo ? a.li : b.lo < a.lo ? b.li : min(a.li, b.li),\n"
     "      hi = max(a.hi, b.hi), hj = a.hi > b.hi ? a.hj : b.hi > a.hi ? b.hj : min(a.hj, b.hj)\n"
     "result lo, li, hi, hj",
     NULL, PCLR_INT, PCLR_TYPE_DEFAULT, 1, PCLR_ARGMINMAX},
    {"uint sum (as op sum)", "state s: uint = 0; lift s = x; merge s = a.s + b.s; result s", NULL, PCLR_UINT, PCLR_TYPE_DEFAULT, 1, PCLR_SUM},
    {"float max (as op max)", "state m: float = -inf; lift m = x; merge m = max(a.m, b.m); result m", NULL, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1,
     PCLR_MAX},
    {"int argmin (as op argmin)",
     "state v: int = INT_MAX, k: ulong = ULONG_MAX; lift v = x, k = i; merge v = min(a.v, b.v), k = a.v < b.v ? a.k : b.v < a.v ? b.k : min(a.k, b.k); "
     "result v, k",
     NULL, PCLR_INT, PCLR_TYPE_DEFAULT, 1, PCLR_ARGMIN},
    {"dot product over y", "state s: double = 0; lift s = double(x) * y; merge s = a.s + b.s; result s", NULL, PCLR_FLOAT, PCLR_FLOAT, 1,
     PCLR_OP_DEFAULT},
    {"RGBA pixels with r > 128", "state n: ulong = 0; lift n = x.r > 128 ? 1 : 0; merge n = a.n + b.n; result n", NULL, PCLR_UINT8, PCLR_TYPE_DEFAULT,
     4, PCLR_OP_DEFAULT},
    {"64-bit wrapping state",
     "state p: ulong = 1, s: long = 0, c: ulong = 5; lift p = ulong(x) | 1, s = x * 1000000007; merge p = a.p * b.p, s = a.s + b.s, c = a.c | b.c; "
     "result p, s, p ^ ulong(s), c", /* (c: lift leaves it, its identity) */
     NULL, PCLR_INT64, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
    {"xor of shifts", "state h: uint = 0; lift h = x << 3 ^ x >> 5; merge h = a.h ^ b.h; result h", NULL, PCLR_UINT, PCLR_TYPE_DEFAULT, 1,
     PCLR_OP_DEFAULT},
    {"8 fields, 8 results",
     "state f0: int = 0, f1: uint = 0, f2: long = 0, f3: ulong = 0, f4: float = -inf, f5: double = 0, f6: int = INT_MAX, f7: ulong = 0\n"
     "lift f0 = x, f1 = uint(x) * 3u, f2 = long(x) * x, f3 = 1, f4 = float(x), f5 = x * 0.5, f6 = x, f7 = ulong(x & 255)\n"
     "merge f0 = a.f0 + b.f0, f1 = a.f1 + b.f1, f2 = a.f2 + b.f2, f3 = a.f3 + b.f3, f4 = max(a.f4, b.f4), f5 = a.f5 + b.f5,\n"
     "      f6 = min(a.f6, b.f6), f7 = a.f7 | b.f7\n"
     "result f0, f1, f2, f3, f4, f5, f6, f7 + f3",
     NULL, PCLR_INT, PCLR_TYPE_DEFAULT, 1, PCLR_OP_DEFAULT},
};

static void desc_config(int d, pclr_config *c) {
    memset(c, 0, sizeof *c);
    c->op = PCLR_CUSTOM;
    c->reduce = g_desc[d].reduce;
    c->params = g_desc[d].params;
    c->type = g_desc[d].type;
    c->y_type = g_desc[d].y_type;
    c->components = g_desc[d].components;
}
static size_t x_elem(int d) { return pclr_type_size(g_desc[d].type) * (size_t)g_desc[d].components; }

/* ------------------------------------------------------------------ what a result must be */
typedef struct want_t {
    int values, fields;
    pclr_type type[PCLR_CUSTOM_MAX], ftype[PCLR_CUSTOM_MAX];
    double d[PCLR_CUSTOM_MAX], fd[PCLR_CUSTOM_MAX];   /* float and double values */
    uint64_t u[PCLR_CUSTOM_MAX], fu[PCLR_CUSTOM_MAX]; /* integers (signed ones sign-extended) */
    double tol[PCLR_CUSTOM_MAX];                      /* floats: the absolute error allowed; 0: the same bits */
    int fchk[PCLR_CUSTOM_MAX];                        /* fields held exactly */
} want_t;
static void wv(want_t *w, pclr_type t, double d, uint64_t u, double tol) {
    const int k = w->values++;
    w->type[k] = t;
    w->d[k] = d;
    w->u[k] = u;
    w->tol[k] = tol;
}
static void wf(want_t *w, pclr_type t, int chk, double d, uint64_t u) {
    const int k = w->fields++;
    w->ftype[k] = t;
    w->fchk[k] = chk;
    w->fd[k] = d;
    w->fu[k] = u;
}
static int is_float(pclr_type t) { return t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static uint64_t in_width(pclr_type t, uint64_t u) { return t == PCLR_INT || t == PCLR_UINT ? u & 0xffffffffu : u; }
static uint64_t scalar_u(pclr_type t, const pclr_scalar *s) { return t == PCLR_INT ? (uint64_t)(int64_t)s->i32 : t == PCLR_UINT ? s->u32 : s->u64; }
static double scalar_d(pclr_type t, const pclr_scalar *s) { return t == PCLR_FLOAT ? (double)s->f32 : s->f64; }
static void value_text(pclr_type t, double d, uint64_t u, char *buf, size_t cap) {
    if (is_float(t))
        snprintf(buf, cap, t == PCLR_FLOAT ? "%.9g" : "%.17g", d);
    else if (t == PCLR_INT || t == PCLR_INT64)
        snprintf(buf, cap, "%lld", (long long)(int64_t)(t == PCLR_INT ? (uint64_t)(int64_t)(int32_t)u : u));
    else
        snprintf(buf, cap, "%llu", (unsigned long long)in_width(t, u));
}
static int same_value(pclr_type t, const pclr_scalar *s, double d, uint64_t u, double tol) {
    if (!is_float(t)) return in_width(t, scalar_u(t, s)) == in_width(t, u);
    if (tol == 0) {
        if (t == PCLR_FLOAT) {
            const float a = s->f32, b = (float)d;
            return memcmp(&a, &b, 4) == 0;
        }
        return memcmp(&s->f64, &d, 8) == 0;
    }
    if (isinf(d)) return scalar_d(t, s) == d;
    return fabs(scalar_d(t, s) - d) <= tol; /* (NaN fails) */
}

/* got against w; what: the case. Returns whether all is right (one check per result). */
static int check_result(const char *what, const pclr_custom_result *got, const want_t *w) {
    char a[64], b[64];
    int k, ok = got->values == w->values && got->fields == w->fields;
    if (!CHECK(ok, "%s: %d values and %d fields, want %d and %d", what, got->values, got->fields, w->values, w->fields)) return 0;
    for (k = 0; k < w->values; ++k) {
        if (!CHECK(got->type[k] == w->type[k], "%s: result %d is of type %s, want %s", what, k, pclr_type_name(got->type[k]),
                   pclr_type_name(w->type[k]))) {
            ok = 0;
            continue;
        }
        value_text(w->type[k], scalar_d(w->type[k], &got->value[k]), scalar_u(w->type[k], &got->value[k]), a, sizeof a);
        value_text(w->type[k], w->d[k], w->u[k], b, sizeof b);
        if (!CHECK(same_value(w->type[k], &got->value[k], w->d[k], w->u[k], w->tol[k]), "%s: result %d (%s): got %s, want %s%s", what, k,
                   pclr_type_name(w->type[k]), a, b, w->tol[k] > 0 ? " (within the tolerance)" : ""))
            ok = 0;
    }
    for (k = 0; k < w->fields; ++k) {
        if (!CHECK(got->state_type[k] == w->ftype[k], "%s: field %d is of type %s, want %s", what, k, pclr_type_name(got->state_type[k]),
                   pclr_type_name(w->ftype[k]))) {
            ok = 0;
            continue;
        }
        if (!w->fchk[k]) continue;
        value_text(w->ftype[k], scalar_d(w->ftype[k], &got->field[k]), scalar_u(w->ftype[k], &got->field[k]), a, sizeof a);
        value_text(w->ftype[k], w->fd[k], w->fu[k], b, sizeof b);
        if (!CHECK(same_value(w->ftype[k], &got->field[k], w->fd[k], w->fu[k], 0), "%s: the final state's field %d (%s): got %s, want %s", what, k,
                   pclr_type_name(w->ftype[k]), a, b))
            ok = 0;
    }
    return ok;
}

/* ------------------------------------------------------------------ the references: plain loops */
/* the relative error allowed a float state's result (the CPU reference merges blocks pairwise: 1e-5 holds there) */
#define FLOAT_REL(n) ((void)(n), 1e-4)
/* x: the first element reduced; step: elements between two (a column's pitch); y likewise; t: the threshold */
static void reference(int d, const void *xv, const void *yv, uint64_t n, uint64_t step, double t, want_t *w) {
    const float *xf = (const float *)xv, *yf = (const float *)yv;
    const int32_t *xi = (const int32_t *)xv;
    const uint32_t *xu = (const uint32_t *)xv;
    const int64_t *xl = (const int64_t *)xv;
    const uint8_t *x8 = (const uint8_t *)xv;
    const double inf = 1e300 * 1e300;
    uint64_t j;
    memset(w, 0, sizeof *w);
    switch (d) {
    case D_LSE: {
        double m = -inf, s = 0, r;
        for (j = 0; j < n; ++j) m = xf[j * step] > m ? xf[j * step] : m;
        for (j = 0; j < n; ++j) s += exp((double)xf[j * step] - m);
        r = n ? m + log(s) : -inf;
        wv(w, PCLR_FLOAT, r, 0, n ? FLOAT_REL(n) * (fabs(m) + fabs(log(s))) + 1e-6 : 0);
        wf(w, PCLR_FLOAT, 1, m, 0);
        wf(w, PCLR_FLOAT, !n, 0, 0);
        break;
    }
    case D_SUMS_F: {
        double s = 0, q = 0, sa = 0;
        for (j = 0; j < n; ++j) {
            const double v = xf[j * step], v2 = v * v; /* (lift's q = s * s: s, the double just assigned) */
            s += v;
            sa += fabs(v);
            q += v2;
        }
        wv(w, PCLR_DOUBLE, s, 0, 1e-9 * sa);
        wv(w, PCLR_DOUBLE, q, 0, 1e-9 * q);
        wv(w, PCLR_UINT64, 0, n, 0);
        wf(w, PCLR_DOUBLE, !n, 0, 0);
        wf(w, PCLR_DOUBLE, !n, 0, 0);
        wf(w, PCLR_UINT64, 1, 0, n);
        break;
    }
    case D_SUMS_I: {
        uint64_t s = 0, q = 0;
        for (j = 0; j < n; ++j) {
            const int64_t v = xi[j * step];
            s += (uint64_t)v;
            q += (uint64_t)(v * v);
        }
        wv(w, PCLR_INT64, 0, s, 0);
        wv(w, PCLR_INT64, 0, q, 0);
        wv(w, PCLR_UINT64, 0, n, 0);
        wf(w, PCLR_INT64, 1, 0, s);
        wf(w, PCLR_INT64, 1, 0, q);
        wf(w, PCLR_UINT64, 1, 0, n);
        break;
    }
    case D_FIRST: {
        const float tf = (float)t;
        uint64_t k = UINT64_MAX;
        for (j = 0; j < n && k == UINT64_MAX; ++j)
            if (xf[j * step] > tf) k = j;
        wv(w, PCLR_UINT64, 0, k, 0);
        wf(w, PCLR_UINT64, 1, 0, k);
        break;
    }
    case D_L2: {
        double c = 0, q = 0;
        for (j = 0; j < n; ++j) {
            const double v = xf[j * step];
            c = fabs(v) > c ? fabs(v) : c;
            q += v * v;
        }
        wv(w, PCLR_FLOAT, sqrt(q), 0, FLOAT_REL(n) * sqrt(q));
        wf(w, PCLR_FLOAT, 1, c, 0);
        wf(w, PCLR_FLOAT, c == 0, 0, 0);
        break;
    }
    case D_ARGMM:
    case D_ARGMIN_I: {
        int32_t lo = INT32_MAX, hi = INT32_MIN;
        uint64_t li = UINT64_MAX, hj = UINT64_MAX;
        for (j = 0; j < n; ++j) {
            const int32_t v = xi[j * step];
            if (v < lo || li == UINT64_MAX) { /* ties: the first */
                if (li == UINT64_MAX || v < lo) {
                    lo = v;
                    li = j;
                }
            }
            if (v > hi || hj == UINT64_MAX) {
                if (hj == UINT64_MAX || v > hi) {
                    hi = v;
                    hj = j;
                }
            }
        }
        wv(w, PCLR_INT, 0, (uint64_t)(int64_t)lo, 0);
        wv(w, PCLR_UINT64, 0, li, 0);
        wf(w, PCLR_INT, 1, 0, (uint64_t)(int64_t)lo);
        wf(w, PCLR_UINT64, 1, 0, li);
        if (d == D_ARGMM) {
            wv(w, PCLR_INT, 0, (uint64_t)(int64_t)hi, 0);
            wv(w, PCLR_UINT64, 0, hj, 0);
            wf(w, PCLR_INT, 1, 0, (uint64_t)(int64_t)hi);
            wf(w, PCLR_UINT64, 1, 0, hj);
        }
        break;
    }
    case D_SUM_U: {
        uint32_t s = 0;
        for (j = 0; j < n; ++j) s += xu[j * step];
        wv(w, PCLR_UINT, 0, s, 0);
        wf(w, PCLR_UINT, 1, 0, s);
        break;
    }
    case D_MAX_F: {
        float m = (float)-inf;
        for (j = 0; j < n; ++j) m = xf[j * step] > m ? xf[j * step] : m;
        wv(w, PCLR_FLOAT, m, 0, 0);
        wf(w, PCLR_FLOAT, 1, m, 0);
        break;
    }
    case D_DOT: {
        double s = 0, sa = 0;
        for (j = 0; j < n; ++j) {
            s += (double)xf[j * step] * (double)yf[j * step];
            sa += fabs((double)xf[j * step] * (double)yf[j * step]);
        }
        wv(w, PCLR_DOUBLE, s, 0, 1e-9 * sa);
        wf(w, PCLR_DOUBLE, !n, 0, 0);
        break;
    }
    case D_RGBA: {
        uint64_t c = 0;
        for (j = 0; j < n; ++j) c += x8[4 * j * step] > 128;
        wv(w, PCLR_UINT64, 0, c, 0);
        wf(w, PCLR_UINT64, 1, 0, c);
        break;
    }
    case D_WIDE64: {
        uint64_t p = 1, s = 0;
        for (j = 0; j < n; ++j) {
            p *= (uint64_t)xl[j * step] | 1u;
            s += (uint64_t)xl[j * step] * 1000000007u;
        }
        wv(w, PCLR_UINT64, 0, p, 0);
        wv(w, PCLR_INT64, 0, s, 0);
        wv(w, PCLR_UINT64, 0, p ^ s, 0);
        wv(w, PCLR_UINT64, 0, 5, 0);
        wf(w, PCLR_UINT64, 1, 0, p);
        wf(w, PCLR_INT64, 1, 0, s);
        wf(w, PCLR_UINT64, 1, 0, 5);
        break;
    }
    case D_XOR: {
        uint32_t h = 0;
        for (j = 0; j < n; ++j) h ^= (xu[j * step] << 3) ^ (xu[j * step] >> 5);
        wv(w, PCLR_UINT, 0, h, 0);
        wf(w, PCLR_UINT, 1, 0, h);
        break;
    }
    default: { /* D_EIGHT */
        uint32_t f0 = 0, f1 = 0, f7 = 0;
        uint64_t f2 = 0;
        double f4 = -inf, f5 = 0;
        int32_t f6 = INT32_MAX;
        for (j = 0; j < n; ++j) {
            const int32_t v = xi[j * step];
            f0 += (uint32_t)v;
            f1 += (uint32_t)v * 3u;
            f2 += (uint64_t)((int64_t)v * v);
            f4 = v > f4 ? v : f4;
            f5 += v * 0.5;
            f6 = v < f6 ? v : f6;
            f7 |= (uint32_t)v & 255u;
        }
        wv(w, PCLR_INT, 0, (uint64_t)(int64_t)(int32_t)f0, 0);
        wv(w, PCLR_UINT, 0, f1, 0);
        wv(w, PCLR_INT64, 0, f2, 0);
        wv(w, PCLR_UINT64, 0, n, 0);
        wv(w, PCLR_FLOAT, f4, 0, 0);
        wv(w, PCLR_DOUBLE, f5, 0, 0);
        wv(w, PCLR_INT, 0, (uint64_t)(int64_t)f6, 0);
        wv(w, PCLR_UINT64, 0, f7 + n, 0);
        wf(w, PCLR_INT, 1, 0, (uint64_t)(int64_t)(int32_t)f0);
        wf(w, PCLR_UINT, 1, 0, f1);
        wf(w, PCLR_INT64, 1, 0, f2);
        wf(w, PCLR_UINT64, 1, 0, n);
        wf(w, PCLR_FLOAT, 1, f4, 0);
        wf(w, PCLR_DOUBLE, 1, f5, 0);
        wf(w, PCLR_INT, 1, 0, (uint64_t)(int64_t)f6);
        wf(w, PCLR_UINT64, 1, 0, f7);
        break;
    }
    }
}

/* the data of description d: count elements (and y) at x */
static void fill(int d, void *xv, void *yv, uint64_t count) {
    uint64_t j;
    for (j = 0; j < count; ++j) {
        switch (d) {
        case D_LSE: ((float *)xv)[j] = (float)(40 * unit() - 20); break;
        case D_SUMS_F: ((float *)xv)[j] = (float)(200 * unit() - 100); break;
        case D_SUMS_I: ((int32_t *)xv)[j] = (int32_t)below(1u << 21) - (1 << 20); break;
        case D_FIRST: ((float *)xv)[j] = below(37) ? (float)(unit() / 2) : (float)(0.5 + unit() / 2); break; /* above 1/2: one in 37 */
        case D_L2: ((float *)xv)[j] = below(16) ? (float)(6 * unit() - 3) : 0.0f; break;
        case D_ARGMM: ((int32_t *)xv)[j] = below(2000) == 0 ? (below(2) ? INT32_MAX : INT32_MIN) : (int32_t)below(101) - 50; break;
        case D_ARGMIN_I: ((int32_t *)xv)[j] = (int32_t)below(2001) - 1000; break;
        case D_SUM_U:
        case D_XOR: ((uint32_t *)xv)[j] = (uint32_t)pclr_test_rand(&g_rng); break;
        case D_MAX_F: ((float *)xv)[j] = (float)(2e6 * unit() - 1e6); break;
        case D_DOT:
            ((float *)xv)[j] = (float)(2 * unit() - 1);
            ((float *)yv)[j] = (float)(2 * unit() - 1);
            break;
        case D_RGBA: {
            const uint64_t r = pclr_test_rand(&g_rng);
            memcpy((uint8_t *)xv + 4 * j, &r, 4);
            break;
        }
        case D_WIDE64: ((uint64_t *)xv)[j] = pclr_test_rand(&g_rng); break;
        default: ((int32_t *)xv)[j] = (int32_t)below(2001) - 1000; break; /* D_EIGHT */
        }
    }
}

/* ------------------------------------------------------------------ a context, or the CPU reference functions */
typedef struct runner {
    const char *name;
    pclr_context *ctx;            /* NULL: the CPU reference functions on the host copies */
    pclr_buffer *x, *y, *off;     /* the context's */
    const unsigned char *hx, *hy; /* what was written, on the host */
    const uint64_t *hoff;
    int device; /* not the CPU: a second knob set is tried */
} runner;

/* whether description d runs on R: every one on the CPU and without PCLR_TEST_QUICK; quick on a device, the worked
   examples (log-sum-exp, sums fused on ints, first index, L2 norm, argminmax) and one other drawn from the seed (PoCL
   builds a kernel in seconds) */
static int takes(const runner *R, int d) { return !R->device || !g_quick || g_sample[d]; }
static void draw_sample(void) {
    int k, drawn = 0;
    uint64_t rng = g_seed ^ 0x5a3b1eu;
    memset(g_sample, 0, sizeof g_sample);
    g_sample[D_LSE] = g_sample[D_SUMS_I] = g_sample[D_FIRST] = g_sample[D_L2] = g_sample[D_ARGMM] = 1;
    while (drawn < 1) {
        k = (int)(pclr_test_rand(&rng) % D_COUNT);
        if (!g_sample[k]) g_sample[k] = ++drawn;
    }
}

static int put(runner *R, pclr_buffer *b, const void *host, size_t bytes) {
    if (!R->ctx) return 1;
    return CHECK(pclr_buffer_write(R->ctx, b, 0, host, bytes) == PCLR_OK, "%s: writing %zu bytes: %s", R->name, bytes, pclr_last_error(R->ctx));
}

/* cfg over x from element xo (y from yo), n elements (segments: x's elements), into nres results at out */
static pclr_result run_reduce(runner *R, const pclr_config *cfg, uint64_t xo, uint64_t yo, uint64_t n, const double *params, void *out,
                              uint64_t nres) {
    const size_t rs = pclr_result_size(cfg);
    if (R->ctx) {
        pclr_input in;
        memset(&in, 0, sizeof in);
        in.x = R->x;
        in.x_offset = xo;
        in.y = cfg->y_type ? R->y : NULL;
        in.y_offset = yo;
        in.params = params;
        in.offsets = cfg->layout == PCLR_LAYOUT_SEGMENTS ? R->off : NULL;
        in.n = n;
        return pclr_reduce(R->ctx, cfg, &in, out, (size_t)nres * rs);
    } else {
        const size_t xs = cfg->op == PCLR_CUSTOM || (cfg->map && cfg->map[0])
                              ? pclr_type_size(cfg->type) * (size_t)(cfg->components ? cfg->components : 1)
                              : pclr_type_size(cfg->type);
        const size_t ys = cfg->y_type ? pclr_type_size(cfg->y_type) * (size_t)(cfg->components ? cfg->components : 1) : 0;
        const void *x = R->hx + xo * xs, *y = cfg->y_type ? (const void *)(R->hy + yo * ys) : NULL;
        if (cfg->layout != PCLR_LAYOUT_ONE) return pclr_cpu_reduce_layout(cfg, x, y, R->hoff, n, params, out);
        if (cfg->op != PCLR_CUSTOM) return pclr_cpu_reduce_config(cfg, x, n, out);
        return pclr_cpu_reduce_map(cfg, x, y, n, params, out);
    }
}
static const char *run_error(const runner *R) { return R->ctx ? pclr_last_error(R->ctx) : "(the CPU reference)"; }
/* after a failed reduce: the build log's start, where the kernel did not build */
static void show_log(const runner *R, pclr_result r) {
    if (R->ctx && r == PCLR_ERR_BUILD_FAILED) printf("  build log: %.1500s\n", pclr_build_log(R->ctx));
}

/* the refusals a device may give for a knob set or fp64 (a skip, not a failure) */
static int refused(pclr_result r) {
    return r == PCLR_ERR_UNSUPPORTED_COMBINATION || r == PCLR_ERR_UNSUPPORTED_BY_DEVICE || r == PCLR_ERR_INVALID_KNOB;
}

/* 2. one description at every size, the built-in op beside it, and on devices a second knob set */
#define NMAX (((uint64_t)1 << 20) + 3)
#define ROOM 16 /* elements before and after: the offsets */
static void results(runner *R, int d, unsigned char *hx, unsigned char *hy) {
    static const uint64_t sizes[] = {0, 1, 2, 3, 31, 1000, 4099, 65537, NMAX};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]) - (g_quick ? 1 : 0);
    const uint64_t total = NMAX + ROOM;
    pclr_config c;
    int si, knob;
    desc_config(d, &c);
    g_rng = g_seed ^ (0x51ed27u * (unsigned)(d + 1));
    fill(d, hx, hy, total);
    R->hx = hx;
    R->hy = hy;
    if (!put(R, R->x, hx, (size_t)total * x_elem(d))) return;
    if (g_desc[d].y_type && !put(R, R->y, hy, (size_t)total * 4)) return;
    if (!takes(R, d)) return;
    for (knob = 0; knob < (R->device && !g_quick ? 2 : 1); ++knob) {
        if (knob) { /* a tree of another shape */
            c.group_size = 64;
            c.variant = PCLR_VARIANT_NAIVE;
            c.vector_width = 1;
            if (d != D_LSE && d != D_ARGMM && d != D_EIGHT) continue;
        }
        for (si = 0; si < nsizes; ++si) {
            const uint64_t n = sizes[si], xo = below(8), yo = below(8);
            double t = 0;
            char what[300];
            pclr_custom_result got;
            want_t w;
            pclr_result r;
            if (knob && n != 4099 && n != 65537) continue;
            if (d == D_FIRST) { /* t: the first above it expected near a random m (one element in 37 is above 1/2, its
                                   value uniform up to 1), often past the first work-item's elements: a merge that takes
                                   b before a shows; or 1/2; or the largest of a random prefix (none above, at times) */
                const float *xf = (const float *)hx + xo;
                const uint64_t how = below(4);
                t = 0.5;
                if (how == 0) {
                    const uint64_t pre = below(2) ? below(n + 1) : n;
                    uint64_t j;
                    for (j = 0; j < pre; ++j) t = xf[j] > t ? xf[j] : t;
                } else if (how > 1 && n > 40) {
                    const double m = exp(log(19.0) + unit() * (log((double)n) - log(19.0)));
                    t = 1 - 18.5 / m;
                }
            }
            snprintf(what, sizeof what, "%s: %s, n = %llu, x offset %llu%s%s", R->name, g_desc[d].name, (unsigned long long)n, (unsigned long long)xo,
                     g_desc[d].y_type ? " (y offset differs)" : "", knob ? ", group 64 naive vector 1" : "");
            at_case("%s", what);
            memset(&got, 0xA5, sizeof got);
            r = run_reduce(R, &c, xo, yo, n, d == D_FIRST ? &t : NULL, &got, 1);
            if (r != PCLR_OK && R->ctx && refused(r) && (knob || strstr(run_error(R), "fp64") || strstr(run_error(R), "double"))) {
                SKIP("%s: refused here: %s", what, run_error(R));
                break;
            }
            if (!CHECK(r == PCLR_OK, "%s: %s: %s", what, pclr_result_string(r), run_error(R))) { /* (one failure per description) */
                show_log(R, r);
                break;
            }
            reference(d, hx + xo * x_elem(d), hy ? (const void *)((const float *)hy + yo) : NULL, n, 1, t, &w);
            if (!check_result(what, &got, &w) && n > 1000) continue;
            if (n == 0 && d == D_LSE)
                CHECK(got.values == 1 && got.value[0].f32 == (float)(-1e300 * 1e300), "%s: log-sum-exp of nothing is -inf + log(0) = -inf, got %g",
                      what, (double)got.value[0].f32);
            /* the built-in op on the same context, same input (quick on a device: argminmax only) */
            if (g_desc[d].builtin && !knob && (d == D_ARGMM || !R->device || !g_quick)) {
                pclr_config b;
                unsigned char out[sizeof(pclr_argminmax_result) + 16];
                memset(&b, 0, sizeof b);
                b.type = c.type;
                b.op = g_desc[d].builtin;
                memset(out, 0, sizeof out);
                r = run_reduce(R, &b, xo, 0, n, NULL, out, 1);
                if (!CHECK(r == PCLR_OK, "%s: the built-in %s: %s: %s", what, pclr_op_name(b.op), pclr_result_string(r), run_error(R))) continue;
                if (b.op == PCLR_SUM) {
                    uint32_t s;
                    memcpy(&s, out, 4);
                    CHECK(s == got.value[0].u32, "%s: op sum gives %u, the description %u", what, s, got.value[0].u32);
                } else if (b.op == PCLR_MAX) {
                    float m;
                    memcpy(&m, out, 4);
                    if (n)
                        CHECK(memcmp(&m, &got.value[0].f32, 4) == 0, "%s: op max gives %.9g, the description %.9g", what, (double)m,
                              (double)got.value[0].f32);
                } else if (b.op == PCLR_ARGMIN) {
                    pclr_arg_result a;
                    memcpy(&a, out, sizeof a);
                    CHECK(a.index == got.value[1].u64 && (!n || a.value.i32 == got.value[0].i32),
                          "%s: op argmin gives %d at %llu, the description %d at %llu", what, a.value.i32, (unsigned long long)a.index,
                          got.value[0].i32, (unsigned long long)got.value[1].u64);
                } else {
                    pclr_argminmax_result a;
                    memcpy(&a, out, sizeof a);
                    CHECK(a.min.index == got.value[1].u64 && a.max.index == got.value[3].u64 &&
                              (!n || (a.min.value.i32 == got.value[0].i32 && a.max.value.i32 == got.value[2].i32)),
                          "%s: op argminmax gives min %d at %llu, max %d at %llu; the description min %d at %llu, max %d at %llu", what,
                          a.min.value.i32, (unsigned long long)a.min.index, a.max.value.i32, (unsigned long long)a.max.index, got.value[0].i32,
                          (unsigned long long)got.value[1].u64, got.value[2].i32, (unsigned long long)got.value[3].u64);
                }
            }
        }
    }
}

/* 3. layouts: rows, columns, segments */
static void layouts(runner *R, unsigned char *hx) {
    static const int ds[2] = {D_LSE, D_ARGMM};
    static const struct { uint64_t rows, cols, pitch; } mats[] = {{37, 53, 64}, {4, 3001, 3010}, {1, 1, 3}, {300, 7, 9}};
    const uint64_t total = 20000, xo = 5;
    uint64_t hoff[64];
    pclr_custom_result *got = (pclr_custom_result *)malloc(sizeof *got * 4096);
    int di, m, L;
    if (!CHECK(got != NULL, "malloc")) return;
    for (di = 0; di < 2; ++di) {
        const int d = ds[di];
        const size_t es = x_elem(d);
        pclr_config c;
        g_rng = g_seed ^ (0x1a7u * (unsigned)(d + 1));
        fill(d, hx, NULL, total + ROOM);
        R->hx = hx;
        if (!put(R, R->x, hx, (size_t)(total + ROOM) * es)) break;
        for (L = PCLR_LAYOUT_ROWS; L <= PCLR_LAYOUT_SEGMENTS; ++L)
            for (m = 0; m < (int)(sizeof mats / sizeof mats[0]); ++m) {
                uint64_t k, count, n = total;
                pclr_result r;
                char what[300], one[360];
                int bad = 0;
                desc_config(d, &c);
                c.layout = (pclr_layout)L;
                if (L == PCLR_LAYOUT_SEGMENTS) { /* K segments, empty ones among them, from offset 7 */
                    if (m > 1 || (!m && R->device && g_quick)) continue;
                    c.rows = m ? 40 : 5;
                    hoff[0] = 7;
                    for (k = 0; k < c.rows; ++k) {
                        const uint64_t kind = below(5);
                        const uint64_t len = kind == 0 ? 0 : kind == 1 ? below(4) : kind == 2 ? 31 : below(300);
                        hoff[k + 1] = hoff[k] + (k == c.rows / 2 ? 5000 : len);
                    }
                    n = hoff[c.rows] + below(3);
                    R->hoff = hoff;
                    if (!put(R, R->off, hoff, (size_t)(c.rows + 1) * 8)) continue;
                    snprintf(what, sizeof what, "%s: %s, %llu segments over %llu elements", R->name, g_desc[d].name, (unsigned long long)c.rows,
                             (unsigned long long)n);
                } else {
                    if (m && R->device && g_quick) continue; /* (quick: one matrix) */
                    c.rows = mats[m].rows;
                    c.cols = mats[m].cols;
                    c.pitch = mats[m].pitch;
                    snprintf(what, sizeof what, "%s: %s, %s of %llu x %llu, pitch %llu", R->name, g_desc[d].name,
                             L == PCLR_LAYOUT_ROWS ? "rows" : "columns", (unsigned long long)c.rows, (unsigned long long)c.cols,
                             (unsigned long long)c.pitch);
                }
                count = pclr_layout_results(&c);
                at_case("%s", what);
                if (!CHECK(count >= 1 && count <= 4096, "%s: pclr_layout_results %llu", what, (unsigned long long)count)) continue;
                memset(got, 0xA5, sizeof *got * (size_t)count);
                r = run_reduce(R, &c, xo, 0, n, NULL, got, count);
                if (!CHECK(r == PCLR_OK, "%s: %s: %s", what, pclr_result_string(r), run_error(R))) continue;
                for (k = 0; k < count && bad < 3; ++k) {
                    const unsigned char *x0 = hx + xo * es;
                    want_t w;
                    if (L == PCLR_LAYOUT_ROWS)
                        reference(d, x0 + k * c.pitch * es, NULL, c.cols, 1, 0, &w);
                    else if (L == PCLR_LAYOUT_COLUMNS)
                        reference(d, x0 + k * es, NULL, c.rows, c.pitch, 0, &w);
                    else
                        reference(d, x0 + hoff[k] * es, NULL, hoff[k + 1] - hoff[k], 1, 0, &w);
                    snprintf(one, sizeof one, "%s: result %llu", what, (unsigned long long)k);
                    bad += !check_result(one, &got[k], &w);
                }
            }
    }
    free(got);
}

/* 4. pclr_combine: two parts against the whole; an index-reading lift counts i from each part's start */
static void combine(runner *R, unsigned char *hx) {
    static const int ds[] = {D_SUMS_I, D_WIDE64, D_ARGMM, D_FIRST, D_LSE, D_EIGHT};
    int di, rep;
    for (di = 0; di < (int)(sizeof ds / sizeof ds[0]); ++di) {
        const int d = ds[di];
        const size_t es = x_elem(d);
        const uint64_t total = 5000;
        pclr_config c;
        if (!takes(R, d)) continue;
        desc_config(d, &c);
        g_rng = g_seed ^ (0xc0b1u * (unsigned)(d + 1));
        fill(d, hx, NULL, total + ROOM);
        R->hx = hx;
        if (!put(R, R->x, hx, (size_t)(total + ROOM) * es)) break;
        for (rep = 0; rep < 4; ++rep) {
            const uint64_t n = rep == 3 ? 1 : 1000 + below(4000), xo = below(8);
            const uint64_t s = rep == 0 ? 0 : rep == 1 ? n : rep == 3 ? below(2) : below(n + 1);
            const unsigned char *x0 = hx + xo * es;
            pclr_custom_result ra, rb, out;
            want_t w, wa, wb;
            double t = 0.5;
            char what[300];
            pclr_result r;
            int k;
            snprintf(what, sizeof what, "%s: pclr_combine of %s, %llu + %llu elements", R->name, g_desc[d].name, (unsigned long long)s,
                     (unsigned long long)(n - s));
            at_case("%s", what);
            r = run_reduce(R, &c, xo, 0, s, &t, &ra, 1);
            if (r == PCLR_OK) r = run_reduce(R, &c, xo + s, 0, n - s, &t, &rb, 1);
            if (!CHECK(r == PCLR_OK, "%s: %s: %s", what, pclr_result_string(r), run_error(R))) break;
            r = pclr_combine(&c, &ra, &rb, s, &out);
            if (!CHECK(r == PCLR_OK, "%s: pclr_combine: %s", what, pclr_result_string(r))) continue;
            reference(d, x0, NULL, n, 1, t, &w);
            if (d == D_ARGMM || d == D_FIRST) { /* b's indices count from its own start */
                reference(d, x0, NULL, s, 1, t, &wa);
                reference(d, x0 + s * es, NULL, n - s, 1, t, &wb);
                if (d == D_FIRST) {
                    w.u[0] = w.fu[0] = wa.u[0] != UINT64_MAX ? wa.u[0] : wb.u[0];
                } else
                    for (k = 0; k < 4; k += 2) {
                        const int64_t av = (int64_t)wa.u[k], bv = (int64_t)wb.u[k];
                        const int lower = k == 0;
                        const int a_wins = lower ? av < bv : av > bv, b_wins = lower ? bv < av : bv > av;
                        w.u[k] = w.fu[k] = (uint64_t)(a_wins ? av : bv);
                        w.u[k + 1] = w.fu[k + 1] = a_wins                      ? wa.u[k + 1]
                                                   : b_wins                    ? wb.u[k + 1]
                                                   : wa.u[k + 1] < wb.u[k + 1] ? wa.u[k + 1]
                                                                               : wb.u[k + 1];
                    }
            }
            if (d == D_LSE) w.fchk[1] = 0;
            check_result(what, &out, &w);
        }
    }
}

/* 5. a description changed in place, behind the same pointer: read again */
static void changed_in_place(runner *R) {
    static const uint32_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char text[200];
    pclr_config c;
    pclr_custom_result got;
    pclr_result r;
    int k;
    if (!R->ctx) return;
    R->hx = (const unsigned char *)x;
    if (!put(R, R->x, x, sizeof x)) return;
    memset(&c, 0, sizeof c);
    c.op = PCLR_CUSTOM;
    c.type = PCLR_UINT;
    c.reduce = text;
    for (k = 1; k <= 2; ++k) {
        snprintf(text, sizeof text, "state s: uint = 0; lift s = x * %du; merge s = a.s + b.s; result s", k);
        at_case("%s: the description changed in place (%d)", R->name, k);
        r = run_reduce(R, &c, 0, 0, 8, NULL, &got, 1);
        if (!CHECK(r == PCLR_OK, "%s: a description changed in place: %s: %s", R->name, pclr_result_string(r), run_error(R))) return;
        CHECK(got.value[0].u32 == 36u * (unsigned)k,
              "%s: the description \"%s\" changed in place behind the same pointer gives %u, want %u (the "
              "context kept the old text's kernel?)",
              R->name, text, got.value[0].u32, 36u * (unsigned)k);
    }
    c.reduce = "state s: uint = 0; lift s = x; merge s = a.s - b.s; result s"; /* not neutral: refused by the context too */
    r = run_reduce(R, &c, 0, 0, 8, NULL, &got, 1);
    CHECK(r == PCLR_ERR_INVALID_MAP, "%s: a non-neutral identity: pclr_reduce gives %s, want PCLR_ERR_INVALID_MAP", R->name, pclr_result_string(r));
    c.reduce = "state s: uint = 0; lift s = x; merge s = a.s + b.q; result s";
    r = run_reduce(R, &c, 0, 0, 8, NULL, &got, 1);
    CHECK(r == PCLR_ERR_INVALID_MAP, "%s: a bad description: pclr_reduce gives %s, want PCLR_ERR_INVALID_MAP", R->name, pclr_result_string(r));
}

static void run_all(runner *R) {
    const size_t bytes = (size_t)(NMAX + ROOM) * 8;
    unsigned char *hx = (unsigned char *)malloc(bytes), *hy = (unsigned char *)malloc(bytes);
    int d;
    if (CHECK(hx && hy, "malloc")) {
        double t0 = now_s();
        for (d = 0; d < D_COUNT; ++d) {
            results(R, d, hx, hy);
            if (takes(R, d)) printf("%s: %s: %.1fs\n", R->name, g_desc[d].name, now_s() - t0);
            t0 = now_s();
        }
        layouts(R, hx);
        printf("%s: layouts: %.1fs\n", R->name, now_s() - t0);
        t0 = now_s();
        combine(R, hx);
        changed_in_place(R);
        printf("%s: combine, changed in place: %.1fs\n", R->name, now_s() - t0);
    }
    free(hx);
    free(hy);
}

static void try_backend(pclr_backend b) {
    pclr_desc dsc;
    runner R;
    char why[1024] = "";
    memset(&R, 0, sizeof R);
    memset(&dsc, 0, sizeof dsc);
    dsc.backends[0] = b;
    dsc.error = why;
    dsc.error_cap = sizeof why;
    R.name = pclr_backend_name(b);
    R.device = b != PCLR_CPU;
    if (pclr_create(&dsc, &R.ctx) != PCLR_OK) {
        if (b == PCLR_CPU)
            CHECK(0, "the CPU context: %s", why);
        else
            SKIP("%s: no context here: %s", pclr_backend_name(b), why);
        return;
    }
    printf("%s: %s\n", pclr_backend_name(b), pclr_device_name(R.ctx));
    if (CHECK(pclr_buffer_create(R.ctx, (size_t)(NMAX + ROOM) * 8, &R.x) == PCLR_OK &&
                  pclr_buffer_create(R.ctx, (size_t)(NMAX + ROOM) * 8, &R.y) == PCLR_OK && pclr_buffer_create(R.ctx, 64 * 8, &R.off) == PCLR_OK,
              "%s: buffers: %s", R.name, pclr_last_error(R.ctx)))
        run_all(&R);
    pclr_buffer_destroy(R.ctx, R.x);
    pclr_buffer_destroy(R.ctx, R.y);
    pclr_buffer_destroy(R.ctx, R.off);
    pclr_destroy(R.ctx);
}

/* ------------------------------------------------------------------ 1. the description's checks */
#define OK3 "; lift n = 1; merge n = a.n + b.n; result n" /* the rest of a good description of field n */
typedef struct bad_desc {
    const char *reduce, *params, *map;
    pclr_op op;
    pclr_type type, map_type;
    int components;
    const char *frag, *frag2; /* in the sentence (frag2 may be NULL) */
} bad_desc;
static const bad_desc g_bad[] = {
    /* clauses */
    {"state n: int = 0; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "no lift clause", NULL},
    {"state n: int = 0; lift n = 1; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "no merge clause", NULL},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "no result clause", NULL},
    {"lift n = 1; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 1: ", "state clause comes first"},
    {"\n\nlift n = 1; state n: int = 0; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 3, column 1: ", "state clause comes first"},
    {"state n: int = 0\nlift n = 1\nmerge n = a.n + b.n\nresult n\nlift n = 2", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 5, column 1: ", "a second lift clause"},
    {"state n: int = 0; state m: int = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 19: ", "a second state clause"},
    {"stat n: int = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "reduce, line 1, column 1: ", "(found 'stat')"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 51: ", "the merge clause ends at ';' or a line break (found 'r')"},
    {"state n: int = 0" OK3, "float nan", NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "params: 'nan' is taken", "a constant"},
    {"state n: int = 0 lift n = 1; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 18: ", "the state clause ends at ';' or a line break (found 'l')"},
    /* fields */
    {"state n: int = 0; lift m = 1; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 24: ", "'m' is not a field of the state"},
    {"state n: int = 0\nlift n = 1\nmerge n = a.n + b.q\nresult n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 3, column 19: ", "'q' is not a field of the state"},
    {"state n: int = 0; lift n = 1, n = 2; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 31: ", "n is assigned twice"},
    {"state n: int = 0, s: int = 0; lift s = n, n = 1; merge n = a.n + b.n, s = a.s + b.s; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT,
     PCLR_TYPE_DEFAULT, 0, "reduce, line 1, column 40: ", "n is not assigned yet in this clause"},
    {"state n: int = 0, s: int = 0; lift n = 1; merge n = s + a.n, s = a.s + b.s; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "s is not assigned yet in this clause", "a.FIELD and b.FIELD read the two states"},
    {"state n: int = 0; lift n = a.n; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 28: ", "a.FIELD is read in merge only"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n; result b.n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "b.FIELD is read in merge only", NULL},
    {"state n: int = 0; lift n = 1; merge n = a.n + x; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 47: ", "x is an input: only lift reads the inputs and parameters"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n; result n + i", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 63: ", "i is an input"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n + k; result n", "int k", NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "k is an input: only lift reads the inputs and parameters", NULL},
    {"state n: float = x" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0, "x is an input", NULL},
    {"state n: int = 0, m: int = n; lift n = 1; merge n = a.n + b.n, m = a.m + b.m; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT,
     0, "reduce, line 1, column 28: ", "an identity is a constant: it reads no field"},
    /* names taken */
    {"state x: int = 0; lift x = 1; merge x = a.x + b.x; result x", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 7: ", "'x' is taken"},
    {"state a: int = 0; lift a = 1; merge a = a.a + b.a; result a", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "'a' is taken", NULL},
    {"state n: int = 0, exp: float = 0; lift n = 1; merge n = a.n + b.n, exp = a.exp; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT,
     0, "reduce, line 1, column 19: ", "'exp' is taken"},
    {"state int: int = 0; lift int = 1; merge int = a.int + b.int; result int", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "'int' is taken", NULL},
    {"state inf: float = 0; lift inf = x; merge inf = a.inf + b.inf; result inf", NULL, NULL, PCLR_CUSTOM, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0,
     "'inf' is taken", NULL},
    {"state state: int = 0; lift state = 1; merge state = a.state + b.state; result state", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "'state' is taken", NULL},
    {"state t: float = 0; lift t = x; merge t = a.t + b.t; result t", "float t", NULL, PCLR_CUSTOM, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0, "'t' is taken",
     NULL},
    {"state n: int = 0, n: int = 1" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "'n' is taken", NULL},
    /* sizes and types */
    {"state f0: int = 0, f1: int = 0, f2: int = 0, f3: int = 0, f4: int = 0, f5: int = 0, f6: int = 0, f7: int = 0, f8: int = 0\n"
     "lift f0 = 1\nmerge f0 = a.f0 + b.f0, f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0, f6 = 0, f7 = 0, f8 = 0\nresult f0",
     NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "reduce, line 1, column 111: ", "at most 8 fields"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n; result n, n, n, n, n, n, n, n, n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "at most 8 results", NULL},
    {"state n: short = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 10: ", "a field's type is int, uint, long, ulong, float or double"},
    {"state n int = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "reduce, line 1, column 9: ", "expected ':'"},
    {"state n: int 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "reduce, line 1, column 14: ", "expected '='"},
    {"state n: int = 0, m: int = 0; lift n = 1; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "merge assigns every field: m is missing", NULL},
    {"state n: int = 0; lift n = foo; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 28: ", "unknown name 'foo'"},
    {"state n: float = 0; lift n = x << 1; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 32: ", "'<<' is for integers"},
    {"state n: int = 0; lift n = x.y; merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "x has one component",
     NULL},
    /* ';' misused */
    {"state n: int = 0; lift n = (1; 2); merge n = a.n + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 30: ", "expected ')'"},
    {"state n: int = 0; lift n = 1; merge n = a.n +; b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 46: ", "found ';'"},
    {"state n: int = 0; lift n = 1; merge n = a.n + b.n; result n,", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce, line 1, column 61: ", NULL},
    {NULL, NULL, "x; x", PCLR_SUM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "map, column 2: ';' is not allowed", NULL},
    /* the checks */
    {"state m: float = 0; lift m = x; merge m = max(a.m, b.m); result m", NULL, NULL, PCLR_CUSTOM, PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0,
     "reduce: the identity is not neutral for merge: for s = {m: -", "merge(identity, s) = {m: 0}"},
    {"state n: int = 0; lift n = x; merge n = a.n - b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0,
     "reduce: the identity is not neutral for merge: for s = {n: ", "merge(identity, s) = {n: "},
    {"state n: int = 0; lift n = x & 7; merge n = a.n == 0 ? b.n : b.n == 0 ? a.n : a.n * 2 + b.n; result n", NULL, NULL, PCLR_CUSTOM, PCLR_INT,
     PCLR_TYPE_DEFAULT, 0, "reduce: an integer merge must be associative: for p = {n: ", "but merge(p, merge(q, r)) = {n: "},
    {"state h: uint = 0; lift h = uint(x); merge h = max(a.h, b.h) - min(a.h, b.h); result h", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT,
     0, "an integer merge must be associative", NULL},
    /* the config around it */
    {"state n: int = 0" OK3, NULL, NULL, PCLR_SUM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "set op to custom", NULL},
    {NULL, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "op custom reduces as reduce describes: give the description", NULL},
    {"", NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "give the description", NULL},
    {"state n: int = 0" OK3, NULL, "x * 2", PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 0, "write the map's expression in lift (no map)", NULL},
    {"state n: int = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_FLOAT, 0, "map_type belongs to a map", NULL},
    {"state n: int = 0" OK3, NULL, NULL, PCLR_CUSTOM, PCLR_INT, PCLR_TYPE_DEFAULT, 3, "components must be 1, 2 or 4", NULL},
};

static void check_refusals(void) {
    char why[1024], *longest;
    pclr_config c;
    pclr_result r;
    size_t k;
    const char *rwhy;
    for (k = 0; k < sizeof g_bad / sizeof g_bad[0]; ++k) {
        const bad_desc *b = &g_bad[k];
        memset(&c, 0, sizeof c);
        c.reduce = b->reduce;
        c.params = b->params;
        c.map = b->map;
        c.op = b->op;
        c.type = b->type;
        c.map_type = b->map_type;
        c.components = b->components;
        strcpy(why, "(nothing)");
        r = pclr_map_check(&c, why, sizeof why);
        CHECK(r == PCLR_ERR_INVALID_MAP && strstr(why, b->frag) && (!b->frag2 || strstr(why, b->frag2)),
              "pclr_map_check of bad description %zu \"%s\"%s%s: %s \"%s\"; want PCLR_ERR_INVALID_MAP and \"%s\"%s%s", k,
              b->reduce ? b->reduce : "(NULL)", b->map ? " with map " : "", b->map ? b->map : "", pclr_result_string(r), why, b->frag,
              b->frag2 ? " ... " : "", b->frag2 ? b->frag2 : "");
        /* resolve refuses it too, and a sentence-less check does not crash */
        rwhy = NULL;
        c.backend = PCLR_OPENCL;
        r = pclr_config_resolve(&c, &c, &rwhy);
        CHECK(r == PCLR_ERR_INVALID_MAP && rwhy && *rwhy, "pclr_config_resolve of bad description %zu: %s (%s), want PCLR_ERR_INVALID_MAP", k,
              pclr_result_string(r), rwhy ? rwhy : "no sentence");
        c.backend = PCLR_BACKEND_AUTO;
        r = pclr_map_check(&c, NULL, 0);
        CHECK(r == PCLR_ERR_INVALID_MAP, "pclr_map_check(cfg, NULL, 0) of bad description %zu: %s", k, pclr_result_string(r));
        r = pclr_map_check(&c, why, 8); /* a short sentence: cut, terminated */
        CHECK(r == PCLR_ERR_INVALID_MAP && strlen(why) < 8, "pclr_map_check with cap 8, bad description %zu: %s, %zu characters", k,
              pclr_result_string(r), strlen(why));
    }
    /* too long: 5000 characters (a description may have 4096) */
    longest = (char *)malloc(5001);
    if (CHECK(longest != NULL, "malloc")) {
        static const char *const good = "state n: int = 0; lift n = 1; merge n = a.n + b.n; result n";
        memset(longest, ' ', 5000); /* blanks, then a good description: 5000 characters in all */
        memcpy(longest + 5000 - strlen(good), good, strlen(good));
        longest[5000] = '\0';
        memset(&c, 0, sizeof c);
        c.op = PCLR_CUSTOM;
        c.reduce = longest;
        r = pclr_map_check(&c, why, sizeof why);
        CHECK(r == PCLR_ERR_INVALID_MAP && strstr(why, "longer than 4096 characters"), "a 5000-character description: %s \"%s\"",
              pclr_result_string(r), why);
        c.reduce = longest + 1000; /* 4000: fine */
        r = pclr_map_check(&c, why, sizeof why);
        CHECK(r == PCLR_OK, "a 4000-character description (blanks before it): %s \"%s\"", pclr_result_string(r), why);
        free(longest);
    }
    /* NULL */
    strcpy(why, "x");
    r = pclr_map_check(NULL, why, sizeof why);
    CHECK(r == PCLR_ERR_NULL_POINTER && strstr(why, "NULL"), "pclr_map_check(NULL): %s \"%s\"", pclr_result_string(r), why);
    CHECK(pclr_map_check(NULL, NULL, 0) == PCLR_ERR_NULL_POINTER, "pclr_map_check(NULL, NULL, 0)");
    /* the good ones pass, their result size is pclr_custom_result's, and their identity is the n = 0 result */
    for (k = 0; k < D_COUNT; ++k) {
        pclr_custom_result id;
        want_t w;
        desc_config((int)k, &c);
        r = pclr_map_check(&c, why, sizeof why);
        CHECK(r == PCLR_OK, "pclr_map_check of %s: %s \"%s\"", g_desc[k].name, pclr_result_string(r), why);
        CHECK(pclr_result_size(&c) == sizeof(pclr_custom_result), "pclr_result_size of %s: %zu, want %zu", g_desc[k].name, pclr_result_size(&c),
              sizeof(pclr_custom_result));
        rwhy = NULL;
        c.backend = PCLR_OPENCL;
        r = pclr_config_resolve(&c, &c, &rwhy);
        CHECK(r == PCLR_OK, "pclr_config_resolve of %s: %s (%s)", g_desc[k].name, pclr_result_string(r), rwhy ? rwhy : "");
        desc_config((int)k, &c);
        memset(&id, 0xA5, sizeof id);
        if (CHECK(pclr_cpu_reduce_map(&c, NULL, NULL, 0, NULL, &id) == PCLR_OK, "pclr_cpu_reduce_map of nothing, %s", g_desc[k].name)) {
            char what[200];
            snprintf(what, sizeof what, "the CPU reference of nothing (the identity), %s", g_desc[k].name);
            reference((int)k, NULL, NULL, 0, 1, 0, &w);
            check_result(what, &id, &w);
        }
    }
    /* the sentence's line and column for a description of several lines */
    memset(&c, 0, sizeof c);
    c.op = PCLR_CUSTOM;
    c.type = PCLR_INT;
    c.reduce = "state n: int = 0\n  lift n = 1\n\n  merge n = a.n + b.n\n  result n * zz";
    r = pclr_map_check(&c, why, sizeof why);
    CHECK(r == PCLR_ERR_INVALID_MAP && strstr(why, "reduce, line 5, column 14: ") && strstr(why, "'zz'"), "line 5 column 14: %s \"%s\"",
          pclr_result_string(r), why);
    { /* a merge that commutes keeps the backend's walk; one that does not (ties to a, a first index) walks in order */
        static const struct { const char *reduce; int ordered; } orders[] = {
            {"state s: float = 0; lift s = x; merge s = a.s + b.s; result s", 0},
            {"state v: int = INT_MAX, k: ulong = ULONG_MAX; lift v = x, k = i; merge v = min(a.v, b.v), k = a.v < b.v ? a.k : b.v < a.v ? b.k : min(a.k, b.k); result v, k", 0},
            {"state v: int = INT_MAX, k: ulong = ULONG_MAX; lift v = x, k = i; merge v = min(a.v, b.v), k = b.v < a.v ? b.k : a.k; result v, k", 1},
            {"state k: ulong = ULONG_MAX; lift k = x > 3 ? i : ULONG_MAX; merge k = a.k != ULONG_MAX ? a.k : b.k; result k", 1}};
        for (k = 0; k < sizeof orders / sizeof orders[0]; ++k) {
            memset(&c, 0, sizeof c);
            c.op = PCLR_CUSTOM;
            c.type = PCLR_INT;
            c.backend = PCLR_CUDA;
            c.reduce = orders[k].reduce;
            c.layout = PCLR_LAYOUT_ROWS;
            c.rows = c.cols = 100;
            r = pclr_config_resolve(&c, &c, &rwhy);
            CHECK(r == PCLR_OK && (c.stride == PCLR_STRIDE_LOCAL && c.variant == PCLR_VARIANT_NAIVE && c.lanes == 1) == orders[k].ordered,
                  "%s: resolved to stride %s, variant %s, lanes %d (%s in order)", orders[k].reduce, pclr_stride_name(c.stride),
                  pclr_variant_name(c.variant), c.lanes, orders[k].ordered ? "want" : "not");
        }
    }
}

/* ------------------------------------------------------------------ NVRTC: every description compiles for CUDA */
#ifdef PCLR_TEST_CUDA
static void pin_nvrtc(void) { /* pclr_cuda_compile_check loads and unloads NVRTC on every call; a reference keeps it mapped */
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    const char *env = getenv("PCLR_NVRTC_LIBRARY");
    size_t i;
    if (env && *env && dlopen(env, RTLD_NOW | RTLD_LOCAL)) return;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return;
}
static int nvrtc_one(const pclr_config *c0, const char *what) {
    pclr_config c = *c0;
    const char *rwhy = NULL;
    char log[4096];
    size_t size = 0;
    pclr_result r;
    c.backend = PCLR_CUDA;
    r = pclr_config_resolve(&c, &c, &rwhy);
    if (!CHECK(r == PCLR_OK, "NVRTC: %s: pclr_config_resolve: %s (%s)", what, pclr_result_string(r), rwhy ? rwhy : "")) return 0;
    r = pclr_kernel_source(&c, NULL, 0, &size);
    if (!CHECK(r == PCLR_OK && size > 1, "NVRTC: %s: pclr_kernel_source (cuda): %s, %zu bytes", what, pclr_result_string(r), size)) return 0;
    log[0] = '\0';
    r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
    return CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", what, pclr_result_string(r), log);
}
static int nvrtc_all(void) {
    pclr_config c;
    char log[512];
    int d, L, compiled = 0;
    pin_nvrtc();
    memset(&c, 0, sizeof c);
    if (pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log) == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): compile checks skipped", log);
        return 0;
    }
    for (d = 0; d < D_COUNT; ++d) {
        desc_config(d, &c);
        compiled += nvrtc_one(&c, g_desc[d].name);
        if (d == D_LSE || d == D_ARGMM || d == D_EIGHT) {
            char what[200];
            c.group_size = 64;
            c.variant = PCLR_VARIANT_NAIVE;
            c.vector_width = 1;
            snprintf(what, sizeof what, "%s, group 64 naive vector 1", g_desc[d].name);
            compiled += nvrtc_one(&c, what);
            desc_config(d, &c);
            c.variant = PCLR_VARIANT_SEQUENTIAL;
            c.group_size = 1024;
            snprintf(what, sizeof what, "%s, group 1024 sequential", g_desc[d].name);
            compiled += nvrtc_one(&c, what);
        }
        if (d == D_LSE || d == D_ARGMM)
            for (L = PCLR_LAYOUT_ROWS; L <= PCLR_LAYOUT_SEGMENTS; ++L) {
                char what[200];
                desc_config(d, &c);
                c.layout = (pclr_layout)L;
                c.rows = 37;
                c.cols = L == PCLR_LAYOUT_SEGMENTS ? 0 : 53;
                c.pitch = L == PCLR_LAYOUT_SEGMENTS ? 0 : 64;
                snprintf(what, sizeof what, "%s, layout %s", g_desc[d].name, pclr_layout_name((pclr_layout)L));
                compiled += nvrtc_one(&c, what);
            }
    }
    printf("test_reduce --nvrtc-only: %d kernels compiled (compute_90 PTX)\n", compiled);
    return 0;
}
#endif

/* ------------------------------------------------------------------ each context in a child process */
static void run_child(const char *name, pclr_backend b, int reference_only) {
    int fds[2], status = 0, p = 0, f = 0, got_end = 0;
    char buf[4096], last[300] = "(before the first case)", line[300];
    size_t ll = 0;
    ssize_t got;
    pid_t pid;
    fflush(stdout);
    if (pipe(fds) != 0) { /* run it here */
        if (reference_only) {
            runner R;
            memset(&R, 0, sizeof R);
            R.name = name;
            run_all(&R);
        } else
            try_backend(b);
        return;
    }
    pid = fork();
    if (pid == 0) {
        char end[64];
        int len;
        close(fds[0]);
        g_pipe = fds[1];
        pclr_test_passed = pclr_test_failed = 0;
        if (reference_only) {
            runner R;
            memset(&R, 0, sizeof R);
            R.name = name;
            run_all(&R);
        } else
            try_backend(b);
        fflush(stdout);
        len = snprintf(end, sizeof end, "END %d %d\n", pclr_test_passed, pclr_test_failed);
        if (g_pipe >= 0 && write(g_pipe, end, (size_t)len) < 0) _exit(3);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        CHECK(0, "%s: fork failed", name);
        return;
    }
    while ((got = read(fds[0], buf, sizeof buf)) > 0) {
        ssize_t i;
        for (i = 0; i < got; ++i) {
            if (buf[i] != '\n') {
                if (ll < sizeof line - 1) line[ll++] = buf[i];
                continue;
            }
            line[ll] = '\0';
            ll = 0;
            if (!strncmp(line, "END ", 4) && sscanf(line + 4, "%d %d", &p, &f) == 2)
                got_end = 1;
            else
                memcpy(last, line, sizeof line);
        }
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    pclr_test_passed += p;
    pclr_test_failed += f;
    if (WIFSIGNALED(status))
        CHECK(0, "%s: the run died of signal %d in its case \"%s\" (%d passed, %d failed before it)", name, WTERMSIG(status), last, p, f);
    else if (!got_end || WEXITSTATUS(status) != 0)
        CHECK(0, "%s: the run ended without its counts (exit status %d; last case \"%s\")", name, WEXITSTATUS(status), last);
    printf("%s: %d checks passed, %d checks failed in this context\n", name, p, f + (WIFSIGNALED(status) || !got_end ? 1 : 0));
}

int main(int argc, char **argv) {
    static const pclr_test_backend all[] = PCLR_TEST_BACKENDS;
    const char *env = getenv("PCLR_SEED");
    int want[4] = {0, 0, 0, 0}, named = 0, nvrtc_only = 0, i, k;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!env || !*env) env = getenv("PCLR_TEST_SEED");
    g_seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    g_quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--nvrtc-only")) {
            nvrtc_only = 1;
            continue;
        }
        for (k = 0; k < 4; ++k)
            if (!strcmp(argv[i], all[k].name)) {
                want[k] = named = 1;
                break;
            }
        if (k == 4) {
            fprintf(stderr, "usage: %s [cpu] [opencl] [vulkan] [cuda] | --nvrtc-only\n", argv[0]);
            return 2;
        }
    }
    if (nvrtc_only) {
#ifdef PCLR_TEST_CUDA
        nvrtc_all();
#else
        SKIP("--nvrtc-only: built without PCLR_TEST_CUDA");
#endif
        return pclr_test_summary("test_reduce");
    }
    printf("seed %llu (PCLR_SEED=%llu reproduces this run)%s\n", (unsigned long long)g_seed, (unsigned long long)g_seed,
           g_quick ? "; quick: the largest size left out" : "");
    draw_sample();
    check_refusals();
    printf("the description's checks: %d checks passed, %d checks failed\n", pclr_test_passed, pclr_test_failed);
    if (!named || want[0]) run_child("cpu-reference", PCLR_CPU, 1); /* the library's CPU reference functions */
    for (k = 0; k < 4; ++k) {
        if (named && !want[k]) continue;
        if (!all[k].compiled) {
            if (named) SKIP("%s: not compiled in (define PCLR_TEST_%s)", all[k].name, k == 1 ? "OPENCL" : k == 2 ? "VULKAN" : "CUDA");
            continue;
        }
        run_child(all[k].name, all[k].b, 0);
    }
    if (pclr_test_failed) printf("FAILED with seed %llu: PCLR_SEED=%llu reproduces it\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    return pclr_test_summary("test_reduce");
}
