/* The OpenMP anchor of bench/bench_cpu.c: for every type x op x accumulator, an
   `omp parallel for simd reduction` loop (or, for argmin/argmax and stats, a parallel
   region of simd loops) that computes what pclr_reduce returns, written into the
   same result layout (pclr_scalar, pclr_arg_result, ...). Compiled on its own with
   -O3 -march=native -fopenmp (no -ffast-math: OpenMP's reduction clause lets the
   compiler reorder the sums); the thread count is omp_set_num_threads' (bench_cpu
   runs it on all cores and on one).
   Semantics matched on NaN-free data: integer sums wrap in the sum type, min/max,
   minmax exact, argmin/argmax the first index of the best value, count of x != 0,
   stats' moments in double about each thread's first value (Chan's merge). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu_anchor.h"
#include "pclreduce.h"

typedef uint16_t cpu_anchor_h16;
#define LD(x, i) (x)[i]
/* binary16 bits to float without a branch or a library call (GCC 12 converts _Float16 by calling
   __extendhfsf2 per element): the magnitude's bits shifted into place times 2^112 (exact for normal
   and subnormal halves), infinities and NaNs rebuilt, the sign put back */
static inline float cpu_anchor_half(uint16_t h) {
    const uint32_t a = (uint32_t)(h & 0x7fffu) << 13, s = (uint32_t)(h & 0x8000u) << 16;
    float f, r;
    uint32_t b;
    memcpy(&f, &a, 4);
    f *= 0x1p112f;
    memcpy(&b, &f, 4);
    b = (a >= (0x7c00u << 13) ? (a | 0x7f800000u) : b) | s;
    memcpy(&r, &b, 4);
    return r;
}
#define LDH(x, i) cpu_anchor_half((x)[i])

/* sum of n elements of ET into sum type S (computed in US: unsigned for integers, so it wraps) */
#define A_SUM(name, ET, US, S, LOAD)                                      \
    static S name(const ET *x, int64_t n) {                               \
        US acc = 0;                                                       \
        int64_t i;                                                        \
        _Pragma("omp parallel for simd schedule(static) reduction(+:acc)") \
        for (i = 0; i < n; ++i) acc += (US)(S)LOAD(x, i);                 \
        return (S)acc;                                                    \
    }
#define A_MINMAX(name, ET, V, LOAD, HI, LO)                                                 \
    static void name(const ET *x, int64_t n, int which, V *lo_out, V *hi_out) {            \
        V lo = HI, hi = LO;                                                                 \
        int64_t i;                                                                          \
        if (which == 1) {                                                                   \
            _Pragma("omp parallel for simd schedule(static) reduction(min:lo)")            \
            for (i = 0; i < n; ++i) { const V v = LOAD(x, i); lo = v < lo ? v : lo; }      \
        } else if (which == 2) {                                                            \
            _Pragma("omp parallel for simd schedule(static) reduction(max:hi)")            \
            for (i = 0; i < n; ++i) { const V v = LOAD(x, i); hi = v > hi ? v : hi; }      \
        } else {                                                                            \
            _Pragma("omp parallel for simd schedule(static) reduction(min:lo) reduction(max:hi)") \
            for (i = 0; i < n; ++i) {                                                       \
                const V v = LOAD(x, i);                                                     \
                lo = v < lo ? v : lo;                                                       \
                hi = v > hi ? v : hi;                                                       \
            }                                                                               \
        }                                                                                   \
        *lo_out = lo;                                                                       \
        *hi_out = hi;                                                                       \
    }
#define A_COUNT(name, ET, NZ)                                             \
    static uint64_t name(const ET *x, int64_t n) {                        \
        uint64_t acc = 0;                                                 \
        int64_t i;                                                        \
        _Pragma("omp parallel for simd schedule(static) reduction(+:acc)") \
        for (i = 0; i < n; ++i) acc += NZ;                                \
        return acc;                                                       \
    }
/* argmin/argmax: each thread its static block, in chunks of 2048 that a simd min/max
   reduces; a chunk that betters the thread's best is searched again (in L1) for the
   first index of its best value; the threads' bests merge in thread order */
#define A_ARG_CHUNK 2048
#define A_ARG(name, ET, V, LOAD, HI, LO)                                                      \
    static uint64_t name(const ET *x, int64_t n, int want_max, V *best_out) {                \
        V bv[256];                                                                            \
        int64_t bi[256];                                                                      \
        int nt = 1, t;                                                                        \
        int64_t idx = -1;                                                                     \
        V best = want_max ? LO : HI;                                                          \
        _Pragma("omp parallel")                                                               \
        {                                                                                     \
            const int id = omp_get_thread_num(), cnt = omp_get_num_threads();               \
            const int64_t b = n * id / cnt, e = n * (id + 1) / cnt;                          \
            V tb = want_max ? LO : HI;                                                        \
            int64_t ti = -1, j, i;                                                            \
            if (id == 0) nt = cnt;                                                            \
            for (j = b; j < e; j += A_ARG_CHUNK) {                                            \
                const int64_t je = j + A_ARG_CHUNK < e ? j + A_ARG_CHUNK : e;                 \
                V m = want_max ? LO : HI;                                                     \
                int better;                                                                   \
                if (want_max) {                                                               \
                    _Pragma("omp simd reduction(max:m)")                                      \
                    for (i = j; i < je; ++i) { const V v = LOAD(x, i); m = v > m ? v : m; }  \
                    better = m > tb;                                                          \
                } else {                                                                      \
                    _Pragma("omp simd reduction(min:m)")                                      \
                    for (i = j; i < je; ++i) { const V v = LOAD(x, i); m = v < m ? v : m; }  \
                    better = m < tb;                                                          \
                }                                                                             \
                if (better || ti < 0) {                                                       \
                    for (i = j; i < je; ++i)                                                  \
                        if (LOAD(x, i) == m) break;                                           \
                    tb = m;                                                                   \
                    ti = i;                                                                   \
                }                                                                             \
            }                                                                                 \
            if (id < 256) { bv[id] = tb; bi[id] = ti; }                                       \
        }                                                                                     \
        for (t = 0; t < nt && t < 256; ++t) {                                                 \
            if (bi[t] < 0) continue;                                                          \
            if (idx < 0 || (want_max ? bv[t] > best : bv[t] < best)) { best = bv[t]; idx = bi[t]; } \
        }                                                                                     \
        *best_out = best;                                                                     \
        return idx < 0 ? UINT64_MAX : (uint64_t)idx;                                          \
    }
/* stats: per thread (static block) count, sum (US/S), min, max, and the moments about its
   first value in double; merged with Chan et al.'s formula */
#define A_STATS(name, ET, V, US, S, LOAD, HI, LO)                                             \
    static void name(const ET *x, int64_t n, pclr_stats_result *r) {                         \
        double pm[256], pm2[256];                                                             \
        int64_t pn[256];                                                                      \
        US ps[256];                                                                           \
        V plo[256], phi[256];                                                                 \
        int nt = 1, t;                                                                        \
        double mean = 0, m2 = 0;                                                              \
        int64_t cnt = 0;                                                                      \
        US sum = 0;                                                                           \
        V lo = HI, hi = LO;                                                                   \
        _Pragma("omp parallel")                                                               \
        {                                                                                     \
            const int id = omp_get_thread_num(), c = omp_get_num_threads();                 \
            const int64_t b = n * id / c, e = n * (id + 1) / c;                              \
            const double k = e > b ? (double)LOAD(x, b) : 0.0;                               \
            double d1 = 0, d2 = 0;                                                            \
            US s = 0;                                                                         \
            V l = HI, h = LO;                                                                 \
            int64_t i;                                                                        \
            if (id == 0) nt = c;                                                              \
            _Pragma("omp simd reduction(+:d1, d2, s) reduction(min:l) reduction(max:h)")     \
            for (i = b; i < e; ++i) {                                                         \
                const V v = LOAD(x, i);                                                       \
                const double d = (double)v - k;                                               \
                s += (US)(S)v;                                                                \
                d1 += d;                                                                      \
                d2 += d * d;                                                                  \
                l = v < l ? v : l;                                                            \
                h = v > h ? v : h;                                                            \
            }                                                                                 \
            if (id < 256) {                                                                   \
                pn[id] = e - b;                                                               \
                pm[id] = e > b ? k + d1 / (double)(e - b) : 0;                               \
                pm2[id] = e > b ? d2 - d1 * (d1 / (double)(e - b)) : 0;                      \
                ps[id] = s; plo[id] = l; phi[id] = h;                                         \
            }                                                                                 \
        }                                                                                     \
        for (t = 0; t < nt && t < 256; ++t) {                                                 \
            if (!pn[t]) continue;                                                             \
            if (!cnt) { mean = pm[t]; m2 = pm2[t]; }                                          \
            else {                                                                            \
                const double na = (double)cnt, nb = (double)pn[t], nn = na + nb, dl = pm[t] - mean; \
                m2 += pm2[t] + dl * dl * (na * nb / nn);                                      \
                mean += dl * (nb / nn);                                                       \
            }                                                                                 \
            cnt += pn[t];                                                                     \
            sum += ps[t];                                                                     \
            lo = plo[t] < lo ? plo[t] : lo;                                                   \
            hi = phi[t] > hi ? phi[t] : hi;                                                   \
        }                                                                                     \
        memset(r, 0, sizeof *r);                                                              \
        r->count = (uint64_t)cnt;                                                             \
        { const S sv = (S)sum; memcpy(&r->sum, &sv, sizeof sv); }                             \
        memcpy(&r->min, &lo, sizeof lo);                                                      \
        memcpy(&r->max, &hi, sizeof hi);                                                      \
        r->mean = mean;                                                                       \
        r->var = cnt ? m2 / (double)cnt : 0;                                                  \
        r->sample_var = cnt > 1 ? m2 / (double)(cnt - 1) : 0;                                 \
    }

/* One type: ET element, V value, native sum (UN unsigned, SN its type), wide sum (UW, SW). */
#define A_TYPE(s, ET, V, LOAD, HI, LO, UN, SN, UW, SW, NZ)                                   \
    A_SUM(sumn_##s, ET, UN, SN, LOAD)                                                         \
    A_SUM(sumw_##s, ET, UW, SW, LOAD)                                                         \
    A_MINMAX(minmax_##s, ET, V, LOAD, HI, LO)                                                 \
    A_COUNT(count_##s, ET, NZ)                                                                \
    A_ARG(arg_##s, ET, V, LOAD, HI, LO)                                                       \
    A_STATS(statsn_##s, ET, V, UN, SN, LOAD, HI, LO)                                          \
    A_STATS(statsw_##s, ET, V, UW, SW, LOAD, HI, LO)                                          \
    static int run_##s(int op, int wide, const void *data, int64_t n, void *out) {           \
        const ET *x = (const ET *)data;                                                       \
        switch (op) {                                                                         \
        case PCLR_SUM:                                                                        \
            if (wide) { const SW v = sumw_##s(x, n); memcpy(out, &v, sizeof v); }             \
            else { const SN v = sumn_##s(x, n); memcpy(out, &v, sizeof v); }                  \
            return 0;                                                                         \
        case PCLR_MIN: case PCLR_MAX: case PCLR_MINMAX: {                                     \
            V lo, hi;                                                                         \
            minmax_##s(x, n, op == PCLR_MIN ? 1 : op == PCLR_MAX ? 2 : 3, &lo, &hi);          \
            if (op == PCLR_MINMAX) {                                                          \
                pclr_minmax_result r;                                                         \
                memset(&r, 0, sizeof r);                                                      \
                memcpy(&r.min, &lo, sizeof lo);                                               \
                memcpy(&r.max, &hi, sizeof hi);                                               \
                memcpy(out, &r, sizeof r);                                                    \
            } else memcpy(out, op == PCLR_MIN ? &lo : &hi, sizeof lo);                        \
            return 0;                                                                         \
        }                                                                                     \
        case PCLR_ARGMIN: case PCLR_ARGMAX: {                                                 \
            pclr_arg_result r;                                                                \
            V v;                                                                              \
            memset(&r, 0, sizeof r);                                                          \
            r.index = arg_##s(x, n, op == PCLR_ARGMAX, &v);                                   \
            memcpy(&r.value, &v, sizeof v);                                                   \
            memcpy(out, &r, sizeof r);                                                        \
            return 0;                                                                         \
        }                                                                                     \
        case PCLR_COUNT: { const uint64_t c = count_##s(x, n); memcpy(out, &c, 8); return 0; } \
        case PCLR_STATS: {                                                                    \
            pclr_stats_result r;                                                              \
            if (wide) statsw_##s(x, n, &r); else statsn_##s(x, n, &r);                        \
            memcpy(out, &r, sizeof r);                                                        \
            return 0;                                                                         \
        }                                                                                     \
        default: return -1;                                                                   \
        }                                                                                     \
    }

#define NZI (x[i] != 0)
A_TYPE(u8, uint8_t, uint8_t, LD, UINT8_MAX, 0, uint32_t, uint32_t, uint64_t, uint64_t, NZI)
A_TYPE(i8, int8_t, int8_t, LD, INT8_MAX, INT8_MIN, uint32_t, int32_t, uint64_t, int64_t, NZI)
A_TYPE(u16, uint16_t, uint16_t, LD, UINT16_MAX, 0, uint32_t, uint32_t, uint64_t, uint64_t, NZI)
A_TYPE(i16, int16_t, int16_t, LD, INT16_MAX, INT16_MIN, uint32_t, int32_t, uint64_t, int64_t, NZI)
A_TYPE(u32, uint32_t, uint32_t, LD, UINT32_MAX, 0, uint32_t, uint32_t, uint64_t, uint64_t, NZI)
A_TYPE(i32, int32_t, int32_t, LD, INT32_MAX, INT32_MIN, uint32_t, int32_t, uint64_t, int64_t, NZI)
A_TYPE(u64, uint64_t, uint64_t, LD, UINT64_MAX, 0, uint64_t, uint64_t, uint64_t, uint64_t, NZI)
A_TYPE(i64, int64_t, int64_t, LD, INT64_MAX, INT64_MIN, uint64_t, int64_t, uint64_t, int64_t, NZI)
A_TYPE(f16, cpu_anchor_h16, float, LDH, __builtin_inff(), -__builtin_inff(), float, float, double, double, (LDH(x, i) != 0.0f))
A_TYPE(f32, float, float, LD, __builtin_inff(), -__builtin_inff(), float, float, double, double, (x[i] != 0.0f))
A_TYPE(f64, double, double, LD, __builtin_inf(), -__builtin_inf(), double, double, double, double, (x[i] != 0.0))

int cpu_anchor_reduce(int type, int op, int accumulate, const void *data, uint64_t n, void *result) {
    const int wide = accumulate == PCLR_WIDE;
    const int64_t m = (int64_t)n;
    switch (type) {
    case PCLR_UINT8: return run_u8(op, wide, data, m, result);
    case PCLR_INT8: return run_i8(op, wide, data, m, result);
    case PCLR_UINT16: return run_u16(op, wide, data, m, result);
    case PCLR_INT16: return run_i16(op, wide, data, m, result);
    case PCLR_UINT: return run_u32(op, wide, data, m, result);
    case PCLR_INT: return run_i32(op, wide, data, m, result);
    case PCLR_UINT64: return run_u64(op, wide, data, m, result);
    case PCLR_INT64: return run_i64(op, wide, data, m, result);
    case PCLR_HALF: return run_f16(op, wide, data, m, result);
    case PCLR_FLOAT: return run_f32(op, wide, data, m, result);
    case PCLR_DOUBLE: return run_f64(op, wide, data, m, result);
    default: return -1;
    }
}

void cpu_anchor_set_threads(int threads) { omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs()); }
int cpu_anchor_max_threads(void) { return omp_get_num_procs(); }
