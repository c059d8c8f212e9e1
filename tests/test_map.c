/* test_map: map expressions (issue 15) on a device and on the CPU backend,
   through the generic context (pclr_create / pclr_reduce_map), against the
   CPU reference pclr_cpu_reduce_map; and the CPU reference against an
   independent evaluation: every row of the table below carries its own C
   function computing the map element by element (C's conversions, wrapping,
   saturation written out here, not taken from the library), whose values,
   reduced by the plain reference pclr_cpu_reduce_config, must give the map
   reference's results bit for bit.

   What runs:
   1. the table (~70 rows: dot, squared L2, L1 distance, count-if with a
      parameter, clamp, integer / and % with zeros, -INT_MIN, wrapping,
      i-dependent maps, saturating casts of NaN/inf/huge, isnan/isinf, mixed
      element types, 2 and 4 components, map_type overrides, transcendental
      functions) x every op x every accumulator that applies, on random data
      with a fresh seed, odd sizes (0, 1, primes, 2^k +- 1) at offsets (y at
      its own offset) on the CPU backend; on the device (OpenCL: PoCL here)
      a seeded sample where builds are slow (every row with PCLR_TEST_FULL=1),
      every row on GPUs;
   2. y offsets that line up with x's vectors and ones that do not (the
      backends fall back to one element per load), a y buffer too short, y or
      the parameters NULL;
   3. parameters changed between calls: no new program (pclr_describe's
      "cache: N configurations, M programs" and "disk cache" lines), results
      follow the values; the same map pointer with new text is a new kernel;
   4. every refusal class of pclr_map_check with the column it names, the
      same refusal from pclr_config_resolve, the generators, the CPU reference
      and both contexts; kernels of valid maps repeat the map on their first
      line and only inside comments;
   5. pclr_map_source in the three languages (buffer protocol; the OpenCL
      and CUDA functions are the ones inside the kernels); the GLSL function
      compiles in a GLSL 4.50 compute shader when glslc is installed.
   Kernels through NVRTC: tests/test_map_nvrtc.c (it includes this file's
   table with PCLR_MAP_TABLE_ONLY).

   How results compare: as tests/test_vocab.c (integers, min, max, argmin,
   argmax, minmax, count exactly; float sums within (n + 2) eps sum|v|,
   compensated 4 eps |S| + ..., stats' moments relatively), on the mapped
   values. Rows marked inexact (/, sqrt, transcendental functions: a few ulps
   on OpenCL and GPUs) compare element values within rel (|v| + max|v|),
   rel = 1e-5 (float) or 1e-12 (double), an argmin/argmax index by the value
   the reference has there, a count within the elements near zero.

   Usage: test_map [--backend opencl|cuda|cpu] [--platform N] [--device N] [-v]
   [--row N]... [--device-only] (the CPU backend always runs too; --row: only
   those rows on the device, every op; --device-only: no CPU backend table,
   texts or refusals). Environment: PCLR_TEST_SEED=S
   reproduces a run (the seed is printed); PCLR_TEST_QUICK=1 a smaller run;
   PCLR_TEST_FULL=1 every row and op on the device; PCLR_TEST_BACKEND as
   --backend. --backend cuda needs -DPCLR_TEST_CUDA (and a GPU): without
   them it prints a "skip:" line and runs the rest. */
#define _POSIX_C_SOURCE 200809L
#ifndef PCLR_MAP_TABLE_ONLY
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"
#endif

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================== the table */
/* Element readers (component k of an element), writers of one mapped value. */
static float rf(const unsigned char *b, int k) { float v; memcpy(&v, b + 4 * k, 4); return v; }
static double rd(const unsigned char *b, int k) { double v; memcpy(&v, b + 8 * k, 8); return v; }
static int32_t ri(const unsigned char *b, int k) { int32_t v; memcpy(&v, b + 4 * k, 4); return v; }
static uint32_t ru(const unsigned char *b, int k) { uint32_t v; memcpy(&v, b + 4 * k, 4); return v; }
static int64_t rl(const unsigned char *b, int k) { int64_t v; memcpy(&v, b + 8 * k, 8); return v; }
static uint64_t rul(const unsigned char *b, int k) { uint64_t v; memcpy(&v, b + 8 * k, 8); return v; }
static int rb(const unsigned char *b, int k) { return b[k]; }
static int rsb(const unsigned char *b, int k) { return (int)(int8_t)b[k]; }
static int rus(const unsigned char *b, int k) { uint16_t v; memcpy(&v, b + 2 * k, 2); return v; }
static int rss(const unsigned char *b, int k) { int16_t v; memcpy(&v, b + 2 * k, 2); return v; }
/* binary16 bits to float, exactly */
static float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);
    else if (e) bits = sign | ((e + 112u) << 23) | (m << 13);
    else {
        f = (float)m * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    memcpy(&f, &bits, 4);
    return f;
}
static float rh(const unsigned char *b, int k) { uint16_t v; memcpy(&v, b + 2 * k, 2); return half_to_float(v); }
static void wf(unsigned char *o, float v) { memcpy(o, &v, 4); }
static void wd(unsigned char *o, double v) { memcpy(o, &v, 8); }
static void wi(unsigned char *o, int32_t v) { memcpy(o, &v, 4); }
static void wu(unsigned char *o, uint32_t v) { memcpy(o, &v, 4); }
static void wl(unsigned char *o, int64_t v) { memcpy(o, &v, 8); }
static void wul(unsigned char *o, uint64_t v) { memcpy(o, &v, 8); }

/* C's integer semantics of the language, written out: wrapping on the unsigned bits,
   / and % by 0 give 0, INT_MIN / -1 wraps (and its % is 0) */
static int32_t i32w(uint32_t u) { return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1; }
static int64_t i64w(uint64_t u) { return u <= (uint64_t)INT64_MAX ? (int64_t)u : (int64_t)(u - 9223372036854775808ull) - INT64_MAX - 1; }
static int32_t add32(int32_t a, int32_t b) { return i32w((uint32_t)a + (uint32_t)b); }
static int32_t sub32(int32_t a, int32_t b) { return i32w((uint32_t)a - (uint32_t)b); }
static int32_t mul32(int32_t a, int32_t b) { return i32w((uint32_t)a * (uint32_t)b); }
static int32_t neg32(int32_t a) { return i32w(0u - (uint32_t)a); }
static int32_t abs32(int32_t a) { return a < 0 ? neg32(a) : a; }
static int32_t div32(int32_t a, int32_t b) { return b == 0 ? 0 : b == -1 ? neg32(a) : a / b; }
static int32_t mod32(int32_t a, int32_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static int64_t add64(int64_t a, int64_t b) { return i64w((uint64_t)a + (uint64_t)b); }
static int64_t sub64(int64_t a, int64_t b) { return i64w((uint64_t)a - (uint64_t)b); }
static int64_t mul64(int64_t a, int64_t b) { return i64w((uint64_t)a * (uint64_t)b); }
static int64_t neg64(int64_t a) { return i64w(0u - (uint64_t)a); }
static int64_t mod64(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
/* shifts: the count modulo the left operand's width; << on the unsigned bits; >> of a negative fills with ones */
static int32_t shl32(int32_t a, uint64_t k) { return i32w((uint32_t)a << (k & 31)); }
static int32_t sar32(int32_t a, uint64_t k) { return a < 0 ? ~(~a >> (k & 31)) : a >> (k & 31); }
static int64_t shl64(int64_t a, uint64_t k) { return i64w((uint64_t)a << (k & 63)); }
static int64_t sar64(int64_t a, uint64_t k) { return a < 0 ? ~(~a >> (k & 63)) : a >> (k & 63); }
/* float to integer: saturating, NaN to 0 */
static int32_t sat32(double d) { return d != d ? 0 : d >= 2147483648.0 ? INT32_MAX : d <= -2147483649.0 ? INT32_MIN : (int32_t)d; }
static uint32_t satu32(double d) { return d != d ? 0 : d >= 4294967296.0 ? UINT32_MAX : d <= -1.0 ? 0 : (uint32_t)d; }
static int64_t sat64(double d) { return d != d ? 0 : d >= 9223372036854775808.0 ? INT64_MAX : d < -9223372036854775808.0 ? INT64_MIN : (int64_t)d; }
static uint64_t satu64(double d) { return d != d ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : d <= -1.0 ? 0 : (uint64_t)d; }
/* the language's min and max: min(a, b) = b < a ? b : a, max(a, b) = b > a ? b : a */
static float minf_(float a, float b) { return b < a ? b : a; }
static float maxf_(float a, float b) { return b > a ? b : a; }
static int64_t minl_(int64_t a, int64_t b) { return b < a ? b : a; }
static int64_t maxl_(int64_t a, int64_t b) { return b > a ? b : a; }
/* a float parameter's value, an integer one's (the double converted as C, saturating) */
static float pf(const double *p, int k) { return (float)p[k]; }

typedef void (*map_eval)(const unsigned char *x, const unsigned char *y, uint64_t i, const double *p, unsigned char *o);
#define EV(fn, ...)                                                                                     \
    static void fn(const unsigned char *x, const unsigned char *y, uint64_t i, const double *p, unsigned char *o) { \
        (void)x; (void)y; (void)i; (void)p;                                                             \
        __VA_ARGS__;                                                                                    \
    }

/* data flags: specials in x (NaN, inf, huge, -0, INT_MIN, -1, 0), y with many 0 and -1,
   x nonnegative (floats in [0, 1)), x small (integers in -64..64), x over many binades */
enum { F_SPECIAL = 1, F_YZERO = 2, F_POS = 4, F_SMALL = 8, F_WIDE = 16, F_INEXACT = 32, F_I = 64 };
/* what a row exercises (the device sample takes rows of different kinds) */
enum { K_PLAIN, K_INT, K_SPECIAL, K_MIXED, K_COMP, K_MAPTYPE, K_INEXACT, K_INDEX, K_KINDS_ };
static const char *const kind_names[K_KINDS_] = {"plain", "integer", "special", "mixed", "components", "map_type", "inexact", "index"};

typedef struct map_row {
    const char *map, *params;
    pclr_type x, y;
    int comps;
    pclr_type map_type; /* the override (0: none) */
    pclr_type want;     /* the reduced type the map has */
    int flags, kind;
    double pv[2][2];    /* two sets of parameter values */
    map_eval ev;
} map_row;

EV(ev_dot_f, wf(o, rf(x, 0) * rf(y, 0)))
EV(ev_dot_d, wd(o, rd(x, 0) * rd(y, 0)))
EV(ev_dot_i, wi(o, mul32(ri(x, 0), ri(y, 0))))
EV(ev_dot_u8f, wf(o, (float)rb(x, 0) * rf(y, 0)))
EV(ev_dot_fd, wd(o, (double)rf(x, 0) * rd(y, 0)))
EV(ev_sq_f, wf(o, rf(x, 0) * rf(x, 0)))
EV(ev_sq_h, wf(o, rh(x, 0) * rh(x, 0)))
EV(ev_sq_i16, wi(o, rss(x, 0) * rss(x, 0)))
EV(ev_sq_u64, wul(o, rul(x, 0) * rul(x, 0)))
EV(ev_l1_f, wf(o, fabsf(rf(x, 0) - rf(y, 0))))
EV(ev_l1_i, wi(o, abs32(sub32(ri(x, 0), ri(y, 0)))))
EV(ev_l1_u, wu(o, ru(x, 0) - ru(y, 0)))
EV(ev_l1_i8, wi(o, abs(rsb(x, 0) - rsb(y, 0))))
EV(ev_gt_t, wi(o, rf(x, 0) > pf(p, 0)))
EV(ev_band, wi(o, ri(x, 0) > sat32(p[0]) && ri(x, 0) <= sat32(p[1])))
EV(ev_clamp_f, wf(o, minf_(maxf_(rf(x, 0), pf(p, 0)), pf(p, 1))))
EV(ev_clamp_l, wl(o, minl_(maxl_(rl(x, 0), sat64(p[0])), sat64(p[1]))))
EV(ev_mod7_i, wi(o, mod32(ri(x, 0), 7)))
EV(ev_mod7_u, wu(o, ru(x, 0) % 7u))
EV(ev_mod7_l, wl(o, mod64(rl(x, 0), 7)))
EV(ev_div_i, wi(o, div32(ri(x, 0), ri(y, 0))))
EV(ev_mod_l, wl(o, mod64(rl(x, 0), rl(y, 0))))
EV(ev_div_u16, wi(o, rus(y, 0) == 0 ? 0 : rus(x, 0) / rus(y, 0)))
EV(ev_neg_i, wi(o, neg32(ri(x, 0))))
EV(ev_neg_l, wl(o, neg64(rl(x, 0))))
EV(ev_neg_i8, wi(o, -rsb(x, 0)))
EV(ev_neg_i16, wi(o, -rss(x, 0)))
EV(ev_neg_u, wu(o, 0u - ru(x, 0)))
EV(ev_negmax_i, wi(o, neg32(ri(x, 0)) > ri(y, 0) ? neg32(ri(x, 0)) : ri(y, 0)))
EV(ev_wrap_i, wi(o, add32(ri(x, 0), 2147483647)))
EV(ev_wrap_ul, wul(o, rul(x, 0) * 3u + rul(y, 0)))
EV(ev_wrap_ulit, wu(o, (uint32_t)ri(x, 0) + 0xffffffffu))
EV(ev_long_lit, wl(o, mul64(ri(x, 0), 4294967296ll)))
EV(ev_alt, wf(o, i % 2 == 0 ? rf(x, 0) : -rf(x, 0)))
EV(ev_ix, wf(o, (float)i * rf(x, 0)))
EV(ev_li, wl(o, (int64_t)i - (int64_t)mul32(3, ri(x, 0))))
EV(ev_i, wul(o, i))
EV(ev_cond_i, wul(o, rf(x, 0) > 0.5f ? i : 7u))
EV(ev_sat_i, wi(o, sat32((double)rf(x, 0) * 1000.0)))
EV(ev_sat_u, wu(o, satu32(rd(x, 0))))
EV(ev_sat_l, wl(o, sat64((double)(rf(x, 0) * 1e10f))))
EV(ev_sat_ul, wul(o, satu64(rd(x, 0) * 1e19)))
EV(ev_naninf_f, wi(o, isnan(rf(x, 0)) || isinf(rf(x, 0))))
EV(ev_naninf_d, wi(o, (isnan(rd(x, 0)) ? 1 : 0) + 2 * (isinf(rd(x, 0)) ? 1 : 0)))
EV(ev_isinf_h, wi(o, isinf(rh(x, 0)) ? 1 : 0))
EV(ev_ne_self, wi(o, rf(x, 0) != rf(x, 0)))
EV(ev_not_i, wi(o, !ri(x, 0)))
EV(ev_h_plus_f, wf(o, rh(x, 0) + rf(y, 0)))
EV(ev_i8_h, wf(o, (float)rsb(x, 0) * rh(y, 0)))
EV(ev_i_plus_u, wu(o, (uint32_t)ri(x, 0) + ru(y, 0)))
EV(ev_i_lt_u, wi(o, (uint32_t)ri(x, 0) < ru(y, 0)))
EV(ev_l_plus_u, wl(o, add64(rl(x, 0), (int64_t)ru(y, 0))))
EV(ev_l_minus_l, wl(o, sub64(rl(x, 0), rl(y, 0))))
EV(ev_lum_f, wf(o, 0.2126f * rf(x, 0) + 0.7152f * rf(x, 1) + 0.0722f * rf(x, 2)))
EV(ev_lum_u8, wf(o, 0.2126f * (float)rb(x, 0) + 0.7152f * (float)rb(x, 1) + 0.0722f * (float)rb(x, 2)))
EV(ev_alpha, wf(o, rf(x, 3)))
EV(ev_cross, wf(o, rf(x, 0) * rf(y, 1) - rf(x, 1) * rf(y, 0)))
EV(ev_gdiff, wi(o, rb(x, 1) - rb(y, 1)))
EV(ev_hprod, wf(o, rh(x, 0) * rh(x, 1)))
EV(ev_u16sum, wi(o, rus(x, 0) + rus(x, 1) + rus(x, 2) + rus(x, 3)))
EV(ev_mt_fd, wd(o, (double)rf(x, 0)))
EV(ev_mt_i, wf(o, (float)ri(x, 0)))
EV(ev_mt_u8, wul(o, (uint64_t)rb(x, 0)))
EV(ev_mt_ii, wl(o, (int64_t)mul32(ri(x, 0), ri(y, 0))))
EV(ev_mt_df, wf(o, (float)(rd(x, 0) * rd(y, 0))))
EV(ev_mt_lu, wu(o, (uint32_t)rl(x, 0)))
EV(ev_fma, wf(o, fmaf(rf(x, 0), rf(y, 0), 1.0f)))
EV(ev_round, wf(o, floorf(rf(x, 0)) + ceilf(rf(y, 0)) + roundf(rf(x, 0) * 2.5f)))
EV(ev_minmax_nan, wf(o, minf_(rf(x, 0), rf(y, 0)) + maxf_(rf(x, 0), pf(p, 0))))
EV(ev_cond_f, wf(o, rf(x, 0) != 0.0f ? rf(y, 0) : 0.5f))
EV(ev_logic_d, wi(o, !(rd(x, 0) != 0.0) + 2 * (rd(x, 0) != 0.0 && rd(y, 0) != 0.0) + 4 * (rd(x, 0) != 0.0 || 0)))
EV(ev_logic_h, wi(o, (rh(x, 0) != 0.0f ? 1 : 2) + !(rf(y, 0) != 0.0f)))
EV(ev_andor, wi(o, (ri(x, 0) > 0 && ri(y, 0) < 0) || ri(x, 0) == 0))
EV(ev_fmod, wf(o, fmodf(rf(x, 0), 0.25f)))
EV(ev_mod_ul, wul(o, rul(x, 0) % 1000000007u))
EV(ev_dpromote, wd(o, (double)rf(x, 0) * 0.1))
EV(ev_poly, wf(o, ((rf(x, 0) + 1.0f) * (rf(x, 0) - 1.0f)) * 0.5f - rf(y, 0)))
EV(ev_nested, wi(o, mul32(add32(mod32(sub32(mul32(mod32(add32(mul32(sub32(mul32(add32(ri(x, 0), 1), 3), 2), 5), 7), 1000), 11), 13), 997), 17), 19)))
static volatile double g_two = 2.0; /* pow(x, 2.0) as a call (a compiler folds a constant 2 into x * x) */
EV(ev_pow_d, wd(o, pow(rd(x, 0), g_two) / (1.0 + fabs(rd(y, 0)))))
EV(ev_hypot, wf(o, sqrtf(rf(x, 0) * rf(x, 0) + rf(y, 0) * rf(y, 0))))
EV(ev_loglum, wf(o, logf(0.2126f * rf(x, 0) + 0.7152f * rf(x, 1) + 0.0722f * rf(x, 2) + 1e-4f)))
EV(ev_trans, wf(o, exp2f(rf(x, 0)) + sinf(rf(x, 0)) * cosf(rf(y, 0)) - 1.0f / sqrtf(1.0f + rf(x, 0) * rf(x, 0))))
EV(ev_trans_d, wd(o, exp(rd(x, 0)) + log(fabs(rd(x, 0))) + sin(rd(x, 0)) + cos(rd(y, 0)) + exp2(rd(y, 0)) + log2(fabs(rd(y, 0))) +
                          1.0 / sqrt(1.0 + rd(x, 0) * rd(x, 0))))
EV(ev_div_f, wf(o, rf(x, 0) / rf(y, 0)))
EV(ev_sqrt_u16, wf(o, sqrtf((float)rus(x, 0)) * 2.0f))
EV(ev_param_int, wl(o, add64(rl(x, 0), (int64_t)sat32(p[0]))))
EV(ev_bits_mix, wi(o, (ri(x, 0) & 0xff) | (sar32(ri(x, 0), 8) ^ 3)))
EV(ev_shl_xy, wi(o, shl32(ri(x, 0), (uint64_t)(int64_t)ri(y, 0))))
EV(ev_sar_l, wl(o, sar64(rl(x, 0), (uint64_t)(int64_t)add32(ri(y, 0), 40))))
EV(ev_not_xor_u, wu(o, ~ru(x, 0) ^ ru(y, 0)))
EV(ev_shl_i_u16, wi(o, shl32(rus(x, 0), i) | sar32(rus(x, 0), 3)))
EV(ev_shr33_ul, wul(o, rul(x, 0) >> (33 & 63)))
EV(ev_shl33_i, wi(o, shl32(ri(x, 0), 33)))
EV(ev_not_and_i8, wu(o, (uint32_t)~rsb(x, 0) & 0xffffu))
EV(ev_shl_param, wul(o, (uint64_t)shl64((int64_t)rul(x, 0), (uint64_t)sat64(p[0])) ^ (rul(x, 0) >> ((uint64_t)sat64(p[0]) & 63))))

#define T_U8 PCLR_UINT8
#define T_I8 PCLR_INT8
#define T_U16 PCLR_UINT16
#define T_I16 PCLR_INT16
#define T_U PCLR_UINT
#define T_I PCLR_INT
#define T_UL PCLR_UINT64
#define T_L PCLR_INT64
#define T_H PCLR_HALF
#define T_F PCLR_FLOAT
#define T_D PCLR_DOUBLE
#define NP {{0, 0}, {0, 0}}

static const map_row g_rows[] = {
    /* dot products, squared L2, L1 distance */
    {"x*y", NULL, T_F, T_F, 1, 0, T_F, 0, K_PLAIN, NP, ev_dot_f},
    {"x * y", NULL, T_D, T_D, 1, 0, T_D, 0, K_PLAIN, NP, ev_dot_d},
    {"x*y", NULL, T_I, T_I, 1, 0, T_I, 0, K_INT, NP, ev_dot_i},
    {"x*y", NULL, T_U8, T_F, 1, 0, T_F, 0, K_MIXED, NP, ev_dot_u8f},
    {"x*y", NULL, T_F, T_D, 1, 0, T_D, 0, K_MIXED, NP, ev_dot_fd},
    {"x*x", NULL, T_F, 0, 1, 0, T_F, 0, K_PLAIN, NP, ev_sq_f},
    {"x*x", NULL, T_H, 0, 1, 0, T_F, 0, K_MIXED, NP, ev_sq_h},
    {"x*x", NULL, T_I16, 0, 1, 0, T_I, 0, K_INT, NP, ev_sq_i16},
    {"x*x", NULL, T_UL, 0, 1, 0, T_UL, 0, K_INT, NP, ev_sq_u64},
    {"abs(x - y)", NULL, T_F, T_F, 1, 0, T_F, 0, K_PLAIN, NP, ev_l1_f},
    {"abs(x - y)", NULL, T_I, T_I, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_l1_i},
    {"abs(x - y)", NULL, T_U, T_U, 1, 0, T_U, 0, K_INT, NP, ev_l1_u},
    {"abs(x - y)", NULL, T_I8, T_I8, 1, 0, T_I, 0, K_INT, NP, ev_l1_i8},
    /* count-if and ranges with parameters */
    {"x > t", "float t", T_F, 0, 1, 0, T_I, 0, K_PLAIN, {{0.25, 0}, {-0.5, 0}}, ev_gt_t},
    {"x > t && x <= u", "int t, int u", T_I, 0, 1, 0, T_I, F_SMALL, K_INT, {{-20, 40}, {0, 0}}, ev_band},
    {"clamp(x, lo, hi)", "float lo, float hi", T_F, 0, 1, 0, T_F, F_SPECIAL, K_SPECIAL, {{-0.5, 0.25}, {0.3, -0.3}}, ev_clamp_f},
    {"clamp(x, lo, hi)", "long lo, long hi", T_L, 0, 1, 0, T_L, 0, K_INT, {{-1e15, 3e15}, {-4e18, -2e18}}, ev_clamp_l},
    {"x + k", "int k", T_L, 0, 1, 0, T_L, 0, K_INT, {{2.75, 0}, {-1e12, 0}}, ev_param_int},
    /* bitwise operators: C's precedence, shift counts modulo the width (negative and past it too) */
    {"x & 0xff | x >> 8 ^ 3", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_bits_mix},
    {"x << y", NULL, T_I, T_I, 1, 0, T_I, F_SPECIAL | F_YZERO, K_INT, NP, ev_shl_xy},
    {"x >> (y + 40)", NULL, T_L, T_I, 1, 0, T_L, F_SPECIAL | F_YZERO, K_INT, NP, ev_sar_l},
    {"~x ^ y", NULL, T_U, T_U, 1, 0, T_U, 0, K_INT, NP, ev_not_xor_u},
    {"(x << i) | (x >> 3)", NULL, T_U16, 0, 1, 0, T_I, F_I, K_INDEX, NP, ev_shl_i_u16},
    {"x >> 33", NULL, T_UL, 0, 1, 0, T_UL, 0, K_INT, NP, ev_shr33_ul},
    {"x << 33", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_shl33_i},
    {"~x & 0xffffu", NULL, T_I8, 0, 1, 0, T_U, F_SPECIAL, K_INT, NP, ev_not_and_i8},
    {"x << k ^ x >> k", "long k", T_UL, 0, 1, 0, T_UL, 0, K_INT, {{5, 0}, {-3, 0}}, ev_shl_param},
    /* integer arithmetic: %, / with zeros, -INT_MIN, wrapping, literals */
    {"x % 7", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_mod7_i},
    {"x % 7", NULL, T_U, 0, 1, 0, T_U, 0, K_INT, NP, ev_mod7_u},
    {"x % 7", NULL, T_L, 0, 1, 0, T_L, F_SPECIAL, K_INT, NP, ev_mod7_l},
    {"x / y", NULL, T_I, T_I, 1, 0, T_I, F_SPECIAL | F_YZERO, K_SPECIAL, NP, ev_div_i},
    {"x % y", NULL, T_L, T_L, 1, 0, T_L, F_SPECIAL | F_YZERO, K_SPECIAL, NP, ev_mod_l},
    {"x / y", NULL, T_U16, T_U16, 1, 0, T_I, F_YZERO, K_INT, NP, ev_div_u16},
    {"-x", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_SPECIAL, NP, ev_neg_i},
    {"-x", NULL, T_L, 0, 1, 0, T_L, F_SPECIAL, K_SPECIAL, NP, ev_neg_l},
    /* negations folded into min/max (ptxas once dropped them: see negation_fold) */
    {"0 - x", NULL, T_I8, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_neg_i8},
    {"x * -1", NULL, T_I16, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_neg_i16},
    {"-x", NULL, T_U, 0, 1, 0, T_U, F_SPECIAL, K_INT, NP, ev_neg_u},
    {"max(-x, y)", NULL, T_I, T_I, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_negmax_i},
    {"x + 2147483647", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_wrap_i},
    {"x * 3 + y", NULL, T_UL, T_UL, 1, 0, T_UL, 0, K_INT, NP, ev_wrap_ul},
    {"x + 0xffffffff", NULL, T_I, 0, 1, 0, T_U, 0, K_INT, NP, ev_wrap_ulit},
    {"x * 4294967296", NULL, T_I, 0, 1, 0, T_L, F_SPECIAL, K_INT, NP, ev_long_lit},
    {"(((((((((((x + 1) * 3) - 2) * 5) + 7) % 1000) * 11) - 13) % 997) + 17) * 19)", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_nested},
    /* the element index */
    {"i % 2 == 0 ? x : -x", NULL, T_F, 0, 1, 0, T_F, F_I, K_INDEX, NP, ev_alt},
    {"float(i) * x", NULL, T_F, 0, 1, 0, T_F, F_I, K_INDEX, NP, ev_ix},
    {"long(i) - 3 * x", NULL, T_I, 0, 1, 0, T_L, F_I, K_INDEX, NP, ev_li},
    {"i", NULL, T_U8, 0, 1, 0, T_UL, F_I, K_INDEX, NP, ev_i},
    {"x > 0.5f ? i : 7", NULL, T_F, 0, 1, 0, T_UL, F_I, K_INDEX, NP, ev_cond_i},
    /* casts: saturation, NaN to 0 */
    {"int(x * 1000.0)", NULL, T_F, 0, 1, 0, T_I, F_SPECIAL | F_WIDE, K_SPECIAL, NP, ev_sat_i},
    {"uint(x)", NULL, T_D, 0, 1, 0, T_U, F_SPECIAL | F_WIDE, K_SPECIAL, NP, ev_sat_u},
    {"long(x * 1e10f)", NULL, T_F, 0, 1, 0, T_L, F_SPECIAL | F_WIDE, K_SPECIAL, NP, ev_sat_l},
    {"ulong(x * 1e19)", NULL, T_D, 0, 1, 0, T_UL, F_SPECIAL | F_WIDE, K_SPECIAL, NP, ev_sat_ul},
    /* NaN and infinities */
    {"isnan(x) || isinf(x)", NULL, T_F, 0, 1, 0, T_I, F_SPECIAL, K_SPECIAL, NP, ev_naninf_f},
    {"isnan(x) + 2 * isinf(x)", NULL, T_D, 0, 1, 0, T_I, F_SPECIAL, K_SPECIAL, NP, ev_naninf_d},
    {"isinf(x)", NULL, T_H, 0, 1, 0, T_I, F_SPECIAL, K_SPECIAL, NP, ev_isinf_h},
    {"x != x", NULL, T_F, 0, 1, 0, T_I, F_SPECIAL, K_SPECIAL, NP, ev_ne_self},
    {"!x", NULL, T_I, 0, 1, 0, T_I, F_SPECIAL, K_INT, NP, ev_not_i},
    {"min(x, y) + max(x, t)", "float t", T_F, T_F, 1, 0, T_F, F_SPECIAL, K_SPECIAL, {{0.125, 0}, {-2, 0}}, ev_minmax_nan},
    {"x ? y : 0.5f", NULL, T_F, T_F, 1, 0, T_F, F_SPECIAL, K_SPECIAL, NP, ev_cond_f},
    {"!x + 2 * (x && y) + 4 * (x || 0.0)", NULL, T_D, T_D, 1, 0, T_I, F_SPECIAL | F_YZERO, K_SPECIAL, NP, ev_logic_d},
    {"(x ? 1 : 2) + !y", NULL, T_H, T_F, 1, 0, T_I, F_SPECIAL | F_YZERO, K_SPECIAL, NP, ev_logic_h},
    /* mixed element types: C's usual arithmetic conversions */
    {"x + y", NULL, T_H, T_F, 1, 0, T_F, 0, K_MIXED, NP, ev_h_plus_f},
    {"x * y", NULL, T_I8, T_H, 1, 0, T_F, 0, K_MIXED, NP, ev_i8_h},
    {"x + y", NULL, T_I, T_U, 1, 0, T_U, 0, K_MIXED, NP, ev_i_plus_u},
    {"x < y", NULL, T_I, T_U, 1, 0, T_I, F_SPECIAL, K_MIXED, NP, ev_i_lt_u},
    {"x + y", NULL, T_L, T_U, 1, 0, T_L, 0, K_MIXED, NP, ev_l_plus_u},
    {"x - y", NULL, T_L, T_L, 1, 0, T_L, 0, K_INT, NP, ev_l_minus_l},
    {"(x > 0 && y < 0) || x == 0", NULL, T_I, T_I, 1, 0, T_I, F_SPECIAL | F_YZERO, K_INT, NP, ev_andor},
    /* 2 and 4 components */
    {"0.2126f*x.r + 0.7152f*x.g + 0.0722f*x.b", NULL, T_F, 0, 4, 0, T_F, F_POS, K_COMP, NP, ev_lum_f},
    {"0.2126f*x.r + 0.7152f*x.g + 0.0722f*x.b", NULL, T_U8, 0, 4, 0, T_F, 0, K_COMP, NP, ev_lum_u8},
    {"x.a", NULL, T_F, 0, 4, 0, T_F, 0, K_COMP, NP, ev_alpha},
    {"x.x * y.y - x.y * y.x", NULL, T_F, T_F, 2, 0, T_F, 0, K_COMP, NP, ev_cross},
    {"x.g - y.g", NULL, T_U8, T_U8, 4, 0, T_I, 0, K_COMP, NP, ev_gdiff},
    {"x.x * x.y", NULL, T_H, 0, 2, 0, T_F, 0, K_COMP, NP, ev_hprod},
    {"x.r + x.g + x.b + x.a", NULL, T_U16, 0, 4, 0, T_I, 0, K_COMP, NP, ev_u16sum},
    /* map_type overrides */
    {"x", NULL, T_F, 0, 1, T_D, T_D, 0, K_MAPTYPE, NP, ev_mt_fd},
    {"x * 1000.0", NULL, T_F, 0, 1, T_I, T_I, F_SPECIAL | F_WIDE, K_MAPTYPE, NP, ev_sat_i},
    {"x", NULL, T_I, 0, 1, T_F, T_F, 0, K_MAPTYPE, NP, ev_mt_i},
    {"x", NULL, T_U8, 0, 1, T_UL, T_UL, 0, K_MAPTYPE, NP, ev_mt_u8},
    {"x * y", NULL, T_I, T_I, 1, T_L, T_L, 0, K_MAPTYPE, NP, ev_mt_ii},
    {"x * y", NULL, T_D, T_D, 1, T_F, T_F, 0, K_MAPTYPE, NP, ev_mt_df},
    {"x", NULL, T_L, 0, 1, T_U, T_U, 0, K_MAPTYPE, NP, ev_mt_lu},
    /* float functions that round exactly */
    {"fma(x, y, 1.0f)", NULL, T_F, T_F, 1, 0, T_F, 0, K_PLAIN, NP, ev_fma},
    {"floor(x) + ceil(y) + round(x * 2.5f)", NULL, T_F, T_F, 1, 0, T_F, F_WIDE, K_PLAIN, NP, ev_round},
    {"x % 0.25f", NULL, T_F, 0, 1, 0, T_F, 0, K_PLAIN, NP, ev_fmod},
    {"x % 1000000007u", NULL, T_UL, 0, 1, 0, T_UL, 0, K_INT, NP, ev_mod_ul},
    {"double(x) * 0.1", NULL, T_F, 0, 1, 0, T_D, 0, K_MIXED, NP, ev_dpromote},
    {"((x + 1.0f) * (x - 1.0f)) * 0.5f - y", NULL, T_F, T_F, 1, 0, T_F, 0, K_PLAIN, NP, ev_poly},
    /* a few ulps apart on devices */
    {"pow(x, 2.0) / (1.0 + abs(y))", NULL, T_D, T_D, 1, 0, T_D, F_INEXACT, K_INEXACT, NP, ev_pow_d},
    {"sqrt(x * x + y * y)", NULL, T_F, T_F, 1, 0, T_F, F_INEXACT, K_INEXACT, NP, ev_hypot},
    {"log(0.2126f*x.r + 0.7152f*x.g + 0.0722f*x.b + 1e-4f)", NULL, T_F, 0, 4, 0, T_F, F_POS | F_INEXACT, K_INEXACT, NP, ev_loglum},
    {"exp2(x) + sin(x) * cos(y) - rsqrt(1.0f + x * x)", NULL, T_F, T_F, 1, 0, T_F, F_INEXACT, K_INEXACT, NP, ev_trans},
    {"exp(x) + log(abs(x)) + sin(x) + cos(y) + exp2(y) + log2(abs(y)) + rsqrt(1.0 + x * x)", NULL, T_D, T_D, 1, 0, T_D, F_INEXACT, K_INEXACT, NP,
     ev_trans_d},
    {"x / y", NULL, T_F, T_F, 1, 0, T_F, F_INEXACT, K_INEXACT, NP, ev_div_f},
    {"sqrt(x) * 2.0f", NULL, T_U16, 0, 1, 0, T_F, F_INEXACT, K_INEXACT, NP, ev_sqrt_u16},
};
#define NROWS ((int)(sizeof g_rows / sizeof g_rows[0]))

/* The row's configuration (op, accumulator); the caller's knobs stay 0. */
static pclr_config row_config(const map_row *r, pclr_op op, pclr_accumulate acc) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.type = r->x;
    c.op = op;
    c.accumulate = acc;
    c.map = r->map;
    c.params = r->params;
    c.map_type = r->map_type;
    c.y_type = r->y;
    c.components = r->comps > 1 ? r->comps : 0;
    return c;
}

/* the row of a map and element type (the first one; 0 if none) */
static int find_row(const char *map, pclr_type x, pclr_type y) {
    int k;
    for (k = 0; k < NROWS; ++k)
        if (!strcmp(g_rows[k].map, map) && g_rows[k].x == x && g_rows[k].y == y) return k;
    return 0;
}

#ifndef PCLR_MAP_TABLE_ONLY
/* the parameters a row declares */
static int row_params(const map_row *r) {
    int n = 0;
    const char *s = r->params;
    if (!s) return 0;
    for (n = 1; *s; ++s) n += *s == ',';
    return n;
}

/* ================================================================== state */
#include <time.h>
#include <unistd.h>

static int g_quick, g_full, g_verbose, g_fails_printed;
static unsigned char g_only[256]; /* --row N: the device runs these rows, every op (g_only_any: some given) */
static int g_only_any, g_device_only; /* --device-only: skip the CPU backend's table and the texts */
static uint64_t g_seed;
static long g_runs, g_builds_slow;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One check; failures print (the first 100 in full). */
static int report(int ok, const char *fmt, ...) PCLR__PRINTF(2, 3);
static int report(int ok, const char *fmt, ...) {
    if (ok) {
        ++pclr_test_passed;
        return 1;
    }
    ++pclr_test_failed;
    if (++g_fails_printed <= 100) {
        va_list ap;
        fputs("FAIL ", stdout);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
    } else if (g_fails_printed == 101) {
        puts("FAIL (further failures counted, not printed)");
    }
    return 0;
}

static int is_float(pclr_type t) { return t == PCLR_HALF || t == PCLR_FLOAT || t == PCLR_DOUBLE; }
static int is_signed_int(pclr_type t) { return t == PCLR_INT8 || t == PCLR_INT16 || t == PCLR_INT || t == PCLR_INT64; }
static double rand_unit(uint64_t *st) { return (double)(pclr_test_rand(st) >> 11) / 9007199254740992.0; }

/* a scalar of type t at p as a double */
static double get_d(pclr_type t, const void *p) {
    const unsigned char *b = (const unsigned char *)p;
    switch (t) {
    case PCLR_UINT8: return rb(b, 0);
    case PCLR_INT8: return rsb(b, 0);
    case PCLR_UINT16: return rus(b, 0);
    case PCLR_INT16: return rss(b, 0);
    case PCLR_UINT: return ru(b, 0);
    case PCLR_INT: return ri(b, 0);
    case PCLR_UINT64: return (double)rul(b, 0);
    case PCLR_INT64: return (double)rl(b, 0);
    case PCLR_HALF: return rh(b, 0);
    case PCLR_FLOAT: return rf(b, 0);
    default: return rd(b, 0);
    }
}

/* ================================================================== data */
/* One scalar of type t from a double (in range), and the specials of each type. */
static void put_scalar(pclr_type t, unsigned char *p, double v) {
    switch (t) {
    case PCLR_UINT8: p[0] = (uint8_t)v; break;
    case PCLR_INT8: { int8_t s = (int8_t)v; memcpy(p, &s, 1); break; }
    case PCLR_UINT16: { uint16_t s = (uint16_t)v; memcpy(p, &s, 2); break; }
    case PCLR_INT16: { int16_t s = (int16_t)v; memcpy(p, &s, 2); break; }
    case PCLR_UINT: wu(p, (uint32_t)v); break;
    case PCLR_INT: wi(p, (int32_t)v); break;
    case PCLR_UINT64: wul(p, (uint64_t)v); break;
    case PCLR_INT64: wl(p, (int64_t)v); break;
    case PCLR_FLOAT: wf(p, (float)v); break;
    case PCLR_DOUBLE: wd(p, v); break;
    default: break; /* half: bits written by the caller */
    }
}

/* a half in [-1, 1] (any of its bit patterns there, subnormals too), or [0, 1] */
static uint16_t rand_half(uint64_t *st, int pos) {
    uint16_t h = (uint16_t)(pclr_test_rand(st) % 0x3c01u);
    if (!pos && (pclr_test_rand(st) & 1)) h |= 0x8000u;
    return h;
}

static void special_scalar(pclr_type t, unsigned char *p, uint64_t *st) {
    const unsigned k = (unsigned)(pclr_test_rand(st) % 12);
    if (t == PCLR_HALF) {
        static const uint16_t hs[12] = {0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x8000, 0x0000, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x0001, 0x3800};
        memcpy(p, &hs[k], 2);
    } else if (t == PCLR_FLOAT || t == PCLR_DOUBLE) {
        static const double fs[12] = {0, -0.0, 1e30, -1e30, 2147483648.0, -2147483904.0, 4294967296.0, 3e9, -3e9, 1e20, 0.5, -1};
        if (k < 3) {
            const double v = k == 0 ? NAN : k == 1 ? HUGE_VAL : -HUGE_VAL;
            put_scalar(t, p, v);
        } else {
            put_scalar(t, p, fs[k]);
        }
    } else {
        const int bits = (int)pclr_type_size(t) * 8;
        switch (k % 6) {
        case 0: memset(p, 0, pclr_type_size(t)); break;                                                  /* 0 */
        case 1: memset(p, 0xff, pclr_type_size(t)); break;                                               /* -1 / the largest unsigned */
        case 2: memset(p, 0, pclr_type_size(t)); p[bits / 8 - 1] = 0x80; break;                          /* INT_MIN */
        case 3: memset(p, 0xff, pclr_type_size(t)); p[bits / 8 - 1] = 0x7f; break;                       /* INT_MAX */
        case 4: put_scalar(t, p, 1); break;
        default: memset(p, 0, pclr_type_size(t)); p[0] = 7; break;                                       /* 7: % 7 == 0 */
        }
    }
}

/* n elements of comps scalars of type t at buf: random per type (integers over their full
   range, floats in [-1, 1)), shaped by the row's flags (is_y: the flags that concern y). */
static void fill(pclr_type t, int comps, unsigned char *buf, uint64_t n, int flags, int is_y, uint64_t seed) {
    uint64_t st = seed, j;
    const size_t ts = pclr_type_size(t);
    const uint64_t count = n * (uint64_t)comps;
    for (j = 0; j < count; ++j) {
        unsigned char *p = buf + j * ts;
        const uint64_t r = pclr_test_rand(&st);
        if (t == PCLR_HALF) {
            uint16_t h = rand_half(&st, !is_y && (flags & F_POS));
            memcpy(p, &h, 2);
        } else if (is_float(t)) {
            double v = 2 * rand_unit(&st) - 1;
            if (!is_y && (flags & F_POS)) v = rand_unit(&st);
            if (!is_y && (flags & F_WIDE)) v = ldexp(v, (int)(pclr_test_rand(&st) % 48) - 8);
            put_scalar(t, p, v);
        } else if (!is_y && (flags & F_SMALL)) {
            put_scalar(t, p, (double)((int)(r % 129) - 64) * (is_signed_int(t) ? 1 : 0) + (is_signed_int(t) ? 0 : (double)(r % 65)));
        } else {
            memcpy(p, &r, ts); /* the full range */
        }
        if (!is_y && (flags & F_SPECIAL) && pclr_test_rand(&st) % 8 == 0) special_scalar(t, p, &st);
        if (is_y && (flags & F_YZERO)) {
            const unsigned k = (unsigned)(pclr_test_rand(&st) % 4);
            if (k == 0) memset(p, 0, ts);
            else if (k == 1) memset(p, is_float(t) ? 0 : 0xff, ts); /* -1 */
        }
    }
}

/* ================================================================== comparison */
/* What the comparison knows of the mapped values (of the map's type). */
typedef struct vinfo {
    double abs_sum, lo, hi, mag, rel;
    int has_nan, has_inf;
    uint64_t near_zero;
    const unsigned char *vals; /* the mapped values (for argmin/argmax of inexact rows) */
    pclr_type t;
} vinfo;

static void describe_values(pclr_type t, const unsigned char *v, uint64_t n, double rel, vinfo *d) {
    const size_t ts = pclr_type_size(t);
    uint64_t j;
    memset(d, 0, sizeof *d);
    d->lo = HUGE_VAL;
    d->hi = -HUGE_VAL;
    d->rel = rel;
    d->vals = v;
    d->t = t;
    for (j = 0; j < n; ++j) {
        const double x = get_d(t, v + j * ts);
        if (x != x) { d->has_nan = 1; continue; }
        if (isinf(x)) { d->has_inf = 1; continue; }
        d->abs_sum += fabs(x);
        if (x < d->lo) d->lo = x;
        if (x > d->hi) d->hi = x;
    }
    if (d->lo > d->hi) d->lo = d->hi = 0;
    d->mag = fmax(fabs(d->lo), fabs(d->hi));
    if (rel > 0)
        for (j = 0; j < n; ++j)
            if (fabs(get_d(t, v + j * ts)) <= rel * d->mag * 4) ++d->near_zero;
}

static double unit_roundoff(pclr_type t) { return t == PCLR_DOUBLE ? ldexp(1.0, -53) : ldexp(1.0, -24); }

static int same_value(pclr_type t, const void *a, const void *b) {
    if (is_float(t)) {
        const double x = get_d(t, a), y = get_d(t, b);
        if (x != x || y != y) return x != x && y != y;
    }
    return memcmp(a, b, pclr_type_size(t)) == 0;
}
/* an element value: the same, or (inexact rows) within rel (|r| + max|v|) */
static int close_value(pclr_type t, const void *g, const void *r, const vinfo *d) {
    double a, b;
    if (same_value(t, g, r)) return 1;
    if (d->rel <= 0 || !is_float(t)) return 0;
    a = get_d(t, g);
    b = get_d(t, r);
    if (a != a || b != b || isinf(a) || isinf(b)) return 0;
    return fabs(a - b) <= d->rel * (fabs(b) + d->mag) + 1e-300;
}

static int close_sum(pclr_type st, pclr_accumulate acc, double g, double r, uint64_t n, const vinfo *d) {
    const double eps_acc = acc == PCLR_WIDE ? ldexp(1.0, -53) : unit_roundoff(st), eps_res = unit_roundoff(st);
    double tol;
    if (d->has_nan) return g != g && r != r;
    if (d->has_inf || r != r || isinf(r) || g != g || isinf(g))
        return (g != g || isinf(g)) == (r != r || isinf(r)) && (r != r || g != g || g == r || d->has_inf);
    if (acc == PCLR_COMPENSATED) tol = 4 * eps_res * fabs(r) + 4 * (double)n * eps_acc * eps_acc * d->abs_sum;
    else tol = ((double)n + 2) * eps_acc * d->abs_sum + eps_res * fabs(r);
    tol += d->rel * (d->abs_sum + (double)n * d->mag) + 1e-300;
    return fabs(g - r) <= tol;
}

static int close_moment(double g, double r, double rel, double scale, const vinfo *d) {
    if (r != r || isinf(r) || g != g || isinf(g)) {
        if (d->has_nan && r != r) return g != g;
        if (d->has_inf) return (g != g || isinf(g)) == (r != r || isinf(r));
        if (!d->has_nan && (r != r || isinf(r))) return g != g || isinf(g); /* finite values whose moments overflow: inf or NaN by order */
        return (g != g) == (r != r) && (r != r || g == r);
    }
    return fabs(g - r) <= rel * (fabs(r) + scale) + 1e-300;
}

/* device result got against the reference ref of n mapped values of type vt */
static int compare(const pclr_config *c, pclr_type vt, const void *got, const void *ref, uint64_t n, const vinfo *d, const char **why) {
    const pclr_accumulate acc = c->accumulate ? c->accumulate : PCLR_NATIVE;
    const pclr_type st = pclr_sum_type(vt, acc);
    *why = "value";
    switch (c->op) {
    case PCLR_SUM:
        if (!is_float(st)) return memcmp(got, ref, pclr_type_size(st)) == 0;
        return close_sum(st, acc, get_d(st, got), get_d(st, ref), n, d);
    case PCLR_MIN: case PCLR_MAX: return close_value(vt, got, ref, d);
    case PCLR_COUNT: {
        uint64_t g, r;
        memcpy(&g, got, 8);
        memcpy(&r, ref, 8);
        return g == r || (d->rel > 0 && (g > r ? g - r : r - g) <= d->near_zero);
    }
    case PCLR_ARGMIN: case PCLR_ARGMAX: {
        const pclr_arg_result *g = (const pclr_arg_result *)got, *r = (const pclr_arg_result *)ref;
        if (!close_value(vt, &g->value, &r->value, d)) return 0;
        if (g->index == r->index) return 1;
        *why = "index";
        /* inexact rows: a near tie, the reference's value at the index found is as good */
        return d->rel > 0 && g->index < n && close_value(vt, d->vals + g->index * pclr_type_size(vt), &r->value, d);
    }
    case PCLR_MINMAX: {
        const pclr_minmax_result *g = (const pclr_minmax_result *)got, *r = (const pclr_minmax_result *)ref;
        if (!close_value(vt, &g->min, &r->min, d)) { *why = "min"; return 0; }
        *why = "max";
        return close_value(vt, &g->max, &r->max, d);
    }
    case PCLR_STATS: {
        const pclr_stats_result *g = (const pclr_stats_result *)got, *r = (const pclr_stats_result *)ref;
        const double rel = fmax(vt == PCLR_FLOAT ? 1e-4 : 1e-10, d->rel * 10), range = d->hi - d->lo;
        if (g->count != r->count || g->count != n) { *why = "count"; return 0; }
        if (!close_value(vt, &g->min, &r->min, d)) { *why = "min"; return 0; }
        if (!close_value(vt, &g->max, &r->max, d)) { *why = "max"; return 0; }
        *why = "sum";
        if (!is_float(st) ? memcmp(&g->sum, &r->sum, pclr_type_size(st)) != 0
                          : !close_sum(st, acc, get_d(st, &g->sum), get_d(st, &r->sum), n, d))
            return 0;
        if (!close_moment(g->mean, r->mean, rel, d->mag, d)) { *why = "mean"; return 0; }
        if (!close_moment(g->var, r->var, rel, range * (range + d->mag), d)) { *why = "var"; return 0; }
        *why = "sample_var";
        return close_moment(g->sample_var, r->sample_var, rel, range * (range + d->mag), d);
    }
    default: *why = "op"; return 0;
    }
}

/* bit for bit (NaN: any payload): the map reference against the independent evaluation */
static int identical(const pclr_config *c, pclr_type vt, const void *a, const void *b) {
    const pclr_type st = pclr_sum_type(vt, c->accumulate ? c->accumulate : PCLR_NATIVE);
    switch (c->op) {
    case PCLR_SUM: return same_value(st, a, b);
    case PCLR_MIN: case PCLR_MAX: return same_value(vt, a, b);
    case PCLR_COUNT: return memcmp(a, b, 8) == 0;
    case PCLR_ARGMIN: case PCLR_ARGMAX:
        return ((const pclr_arg_result *)a)->index == ((const pclr_arg_result *)b)->index &&
               same_value(vt, &((const pclr_arg_result *)a)->value, &((const pclr_arg_result *)b)->value);
    case PCLR_MINMAX:
        return same_value(vt, &((const pclr_minmax_result *)a)->min, &((const pclr_minmax_result *)b)->min) &&
               same_value(vt, &((const pclr_minmax_result *)a)->max, &((const pclr_minmax_result *)b)->max);
    default: {
        const pclr_stats_result *x = (const pclr_stats_result *)a, *y = (const pclr_stats_result *)b;
        return x->count == y->count && same_value(st, &x->sum, &y->sum) && same_value(vt, &x->min, &y->min) &&
               same_value(vt, &x->max, &y->max) && same_value(PCLR_DOUBLE, &x->mean, &y->mean) &&
               same_value(PCLR_DOUBLE, &x->var, &y->var) && same_value(PCLR_DOUBLE, &x->sample_var, &y->sample_var);
    }
    }
}

static void format_value(pclr_type t, const void *v, char *buf, size_t cap) {
    if (t == PCLR_UINT64) snprintf(buf, cap, "%llu", (unsigned long long)rul((const unsigned char *)v, 0));
    else if (t == PCLR_INT64) snprintf(buf, cap, "%lld", (long long)rl((const unsigned char *)v, 0));
    else snprintf(buf, cap, "%.9g", get_d(t, v));
}
static void format_result(const pclr_config *c, pclr_type vt, const void *res, char *buf, size_t cap) {
    const pclr_type st = pclr_sum_type(vt, c->accumulate ? c->accumulate : PCLR_NATIVE);
    char a[64], b[64];
    switch (c->op) {
    case PCLR_SUM: format_value(st, res, buf, cap); break;
    case PCLR_MIN: case PCLR_MAX: format_value(vt, res, buf, cap); break;
    case PCLR_COUNT: format_value(PCLR_UINT64, res, buf, cap); break;
    case PCLR_ARGMIN: case PCLR_ARGMAX:
        format_value(vt, &((const pclr_arg_result *)res)->value, a, sizeof a);
        snprintf(buf, cap, "%s at %llu", a, (unsigned long long)((const pclr_arg_result *)res)->index);
        break;
    case PCLR_MINMAX:
        format_value(vt, &((const pclr_minmax_result *)res)->min, a, sizeof a);
        format_value(vt, &((const pclr_minmax_result *)res)->max, b, sizeof b);
        snprintf(buf, cap, "min=%s max=%s", a, b);
        break;
    default: {
        const pclr_stats_result *s = (const pclr_stats_result *)res;
        format_value(st, &s->sum, a, sizeof a);
        snprintf(buf, cap, "count=%llu sum=%s mean=%.17g var=%.17g", (unsigned long long)s->count, a, s->mean, s->var);
        break;
    }
    }
}

/* ================================================================== one row's data */
#define MAX_OFF 40
typedef struct row_data {
    const map_row *r;
    unsigned char *x, *y, *mapped; /* host data of cap elements (+ MAX_OFF), mapped values of a window */
    uint64_t cap;
    size_t xs, ys, vs;            /* bytes of an element of x, y, a mapped value */
    pclr_type vt;                 /* the map's type */
} row_data;

static int row_data_make(row_data *rd_, const map_row *r, uint64_t cap, uint64_t seed) {
    memset(rd_, 0, sizeof *rd_);
    rd_->r = r;
    rd_->cap = cap;
    rd_->xs = pclr_type_size(r->x) * (size_t)r->comps;
    rd_->ys = r->y ? pclr_type_size(r->y) * (size_t)r->comps : 0;
    rd_->vt = r->want;
    rd_->vs = pclr_type_size(r->want);
    rd_->x = (unsigned char *)malloc((size_t)(cap + MAX_OFF) * rd_->xs);
    rd_->y = rd_->ys ? (unsigned char *)malloc((size_t)(cap + MAX_OFF) * rd_->ys) : NULL;
    rd_->mapped = (unsigned char *)malloc((size_t)(cap + MAX_OFF) * rd_->vs);
    if (!rd_->x || (rd_->ys && !rd_->y) || !rd_->mapped) return 0;
    fill(r->x, r->comps, rd_->x, cap + MAX_OFF, r->flags, 0, seed);
    if (rd_->ys) fill(r->y, r->comps, rd_->y, cap + MAX_OFF, r->flags, 1, seed ^ 0x77ull);
    return 1;
}
static void row_data_free(row_data *d) {
    free(d->x);
    free(d->y);
    free(d->mapped);
}
/* the independent mapped values of the window [xo, xo + n) of x and [yo, yo + n) of y (i from 0) */
static void evaluate(row_data *d, uint64_t xo, uint64_t yo, uint64_t n, const double *p) {
    uint64_t j;
    for (j = 0; j < n; ++j)
        d->r->ev(d->x + (xo + j) * d->xs, d->y ? d->y + (yo + j) * d->ys : NULL, j, p, d->mapped + j * d->vs);
}

/* ================================================================== contexts */
typedef struct dev {
    const char *name;  /* "cpu" or the device's backend */
    pclr_context *ctx;
    pclr_buffer *bx, *by;
    int slow_builds;   /* PoCL and other CPU OpenCL devices: builds take seconds */
    long builds;       /* reductions over 2 s (builds, mostly) */
} dev;

static long g_slow_printed;
/* pclr_reduce_map, timed (slow calls are builds: counted, the first 20 printed) */
static pclr_result dev_reduce(dev *D, const pclr_config *c, uint64_t xo, int with_y, uint64_t yo, uint64_t n, const double *p, void *res) {
    const double t0 = now_s();
    const pclr_result r = pclr_reduce_map(D->ctx, c, D->bx, xo, with_y ? D->by : NULL, yo, n, p, res);
    const double dt = now_s() - t0;
    ++g_runs;
    if (dt > 1.5) {
        ++D->builds;
        ++g_builds_slow;
        if (g_verbose || ++g_slow_printed <= 20) {
            char desc[1600];
            pclr_config_describe(c, desc, sizeof desc);
            printf("%s: %.1fs (a build) for %s\n", D->name, dt, desc);
            fflush(stdout);
        }
    }
    return r;
}

/* "cache: N configurations, M programs" and "disk cache: ... (L loaded, S stored)" of pclr_describe */
static int describe_counts(pclr_context *ctx, unsigned long *configs, unsigned long *programs, unsigned long *stored) {
    char text[8192];
    const char *p, *q;
    *configs = *programs = *stored = 0;
    pclr_describe(ctx, text, sizeof text);
    if (!(p = strstr(text, "cache: ")) || sscanf(p, "cache: %lu configurations, %lu programs", configs, programs) != 2) return 0;
    if ((q = strstr(text, "disk cache: ")) && (q = strstr(q, " loaded, "))) sscanf(q, " loaded, %lu stored", stored);
    return 1;
}

static int upload(dev *D, const row_data *d) {
    const size_t xb = (size_t)(d->cap + MAX_OFF) * d->xs, yb = (size_t)(d->cap + MAX_OFF) * d->ys;
    pclr_buffer_destroy(D->ctx, D->bx);
    pclr_buffer_destroy(D->ctx, D->by);
    D->bx = D->by = NULL;
    if (pclr_buffer_create(D->ctx, xb, &D->bx) != PCLR_OK || pclr_buffer_write(D->ctx, D->bx, 0, d->x, xb) != PCLR_OK)
        return report(0, "%s: upload x (%zu bytes): %s", D->name, xb, pclr_last_error(D->ctx));
    if (yb && (pclr_buffer_create(D->ctx, yb, &D->by) != PCLR_OK || pclr_buffer_write(D->ctx, D->by, 0, d->y, yb) != PCLR_OK))
        return report(0, "%s: upload y (%zu bytes): %s", D->name, yb, pclr_last_error(D->ctx));
    return 1;
}

/* After a mismatch (rows without i, whose values do not depend on where the window starts): the
   first elements whose mapped value differs alone (max of one element is the element), else the
   smallest failing window found by halving, printed with its x values. Two per row. */
static int window_differs(dev *D, row_data *d, const pclr_config *c, uint64_t n, uint64_t xo, uint64_t yo, const double *p) {
    union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result) + 32]; } got, ref;
    vinfo info;
    const char *why;
    if (pclr_reduce_map(D->ctx, c, D->bx, xo, d->r->y ? D->by : NULL, yo, n, p, &got) != PCLR_OK) return 0;
    if (pclr_cpu_reduce_map(c, d->x + xo * d->xs, d->r->y ? d->y + yo * d->ys : NULL, n, p, &ref) != PCLR_OK) return 0;
    evaluate(d, xo, yo, n, p);
    describe_values(d->vt, d->mapped, n, (d->r->flags & F_INEXACT) ? (d->vt == PCLR_DOUBLE ? 1e-12 : 1e-5) : 0, &info);
    return !compare(c, d->vt, &got, &ref, n, &info, &why);
}

static void print_elements(row_data *d, uint64_t xo, uint64_t yo, uint64_t n) {
    uint64_t j;
    int k;
    for (j = 0; j < n; ++j) {
        char xs[200] = "", ys[64] = "", one[40];
        for (k = 0; k < d->r->comps; ++k) {
            format_value(d->r->x, d->x + (xo + j) * d->xs + (size_t)k * pclr_type_size(d->r->x), one, sizeof one);
            snprintf(xs + strlen(xs), sizeof xs - strlen(xs), "%s%s", k ? "," : "", one);
        }
        if (d->r->y) format_value(d->r->y, d->y + (yo + j) * d->ys, ys, sizeof ys);
        printf("    x[%llu]=%s%s%s\n", (unsigned long long)(xo + j), xs, d->r->y ? " y=" : "", ys);
    }
}

static void localize(dev *D, row_data *d, const pclr_config *c0, uint64_t n, uint64_t xo, uint64_t yo, const double *p) {
    pclr_config c = *c0;
    uint64_t j, lo = 0, len = n;
    int shown = 0;
    static unsigned char calls[NROWS];
    const int row = (int)(d->r - g_rows);
    if ((d->r->flags & F_I) || row < 0 || row >= NROWS || ++calls[row] > 2) return;
    c.op = PCLR_MAX;
    c.accumulate = PCLR_NATIVE;
    for (j = 0; j < n && j < 5000 && shown < 3; ++j) { /* element by element */
        unsigned char got[16], ref[16];
        char g[64], w[64];
        if (pclr_reduce_map(D->ctx, &c, D->bx, xo + j, d->r->y ? D->by : NULL, yo + j, 1, p, got) != PCLR_OK) break;
        if (pclr_cpu_reduce_map(&c, d->x + (xo + j) * d->xs, d->r->y ? d->y + (yo + j) * d->ys : NULL, 1, p, ref) != PCLR_OK) break;
        if (same_value(d->vt, got, ref)) continue;
        format_value(d->vt, got, g, sizeof g);
        format_value(d->vt, ref, w, sizeof w);
        printf("  element %llu alone: %s maps it to %s, the reference to %s\n", (unsigned long long)j, D->name, g, w);
        print_elements(d, xo + j, yo + j, 1);
        ++shown;
    }
    if (shown) return;
    while (len > 8) { /* no element alone: halve the window while a half still fails */
        const uint64_t h = len / 2;
        if (window_differs(D, d, c0, h, xo + lo, yo + lo, p)) len = h;
        else if (window_differs(D, d, c0, len - h, xo + lo + h, yo + lo + h, p)) lo += h, len -= h;
        else break;
    }
    printf("  no element differs alone; the smallest failing window found: [%llu, %llu) of the window (x offset %llu):\n",
           (unsigned long long)lo, (unsigned long long)(lo + len), (unsigned long long)xo);
    if (len <= 16) print_elements(d, xo + lo, yo + lo, len);
}

/* One reduction on the context against the map reference on the same window; 0 when it failed. */
static int run_case(dev *D, row_data *d, const pclr_config *c, uint64_t n, uint64_t xo, uint64_t yo, const double *p) {
    union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result) + 32]; } got, ref;
    const size_t rs = pclr_result_size(c);
    const map_row *r = d->r;
    pclr_result res;
    vinfo info;
    const char *why = "";
    char desc[1600], gt[256], rt[256];
    size_t k;
    memset(&got, 0xa5, sizeof got);
    memset(&ref, 0, sizeof ref);
    res = dev_reduce(D, c, xo, r->y != 0, yo, n, p, &got);
    pclr_config_describe(c, desc, sizeof desc);
    if (res == PCLR_ERR_NO_FP64) return 1;
    if (!report(res == PCLR_OK, "%s: %s n=%llu xoff=%llu yoff=%llu: %s (%s)", D->name, desc, (unsigned long long)n, (unsigned long long)xo,
                (unsigned long long)yo, pclr_result_string(res), pclr_last_error(D->ctx))) {
        static int logs;
        if (res == PCLR_ERR_BUILD_FAILED && ++logs <= 3) printf("build log:\n%.3000s\n", pclr_build_log(D->ctx));
        return 0;
    }
    if (pclr_cpu_reduce_map(c, d->x + xo * d->xs, r->y ? d->y + yo * d->ys : NULL, n, p, &ref) != PCLR_OK)
        return report(0, "cpu reference refused %s", desc);
    for (k = rs; k < rs + 16; ++k)
        if (got.b[k] != 0xa5) return report(0, "%s: %s n=%llu: wrote beyond pclr_result_size (%zu bytes)", D->name, desc, (unsigned long long)n, rs);
    evaluate(d, xo, yo, n, p);
    describe_values(d->vt, d->mapped, n, (r->flags & F_INEXACT) ? (d->vt == PCLR_DOUBLE ? 1e-12 : 1e-5) : 0, &info);
    if (compare(c, d->vt, &got, &ref, n, &info, &why)) return report(1, " ");
    format_result(c, d->vt, &got, gt, sizeof gt);
    format_result(c, d->vt, &ref, rt, sizeof rt);
    report(0, "%s: %s n=%llu xoff=%llu yoff=%llu seed=%llu: %s differs: got %s, reference %s", D->name, desc, (unsigned long long)n,
           (unsigned long long)xo, (unsigned long long)yo, (unsigned long long)g_seed, why, gt, rt);
    localize(D, d, c, n, xo, yo, p);
    return 0;
}

/* ================================================================== 1. the reference against the rows' own C */
static const pclr_op all_ops[] = {PCLR_SUM, PCLR_MIN, PCLR_MAX, PCLR_ARGMIN, PCLR_ARGMAX, PCLR_MINMAX, PCLR_STATS, PCLR_COUNT};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Each element (n = 1 reductions: max of one value is the value) and whole windows with every op. */
static void reference_row(row_data *d, const double *p, uint64_t *st) {
    const map_row *r = d->r;
    union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result)]; } a, b;
    pclr_config c = row_config(r, PCLR_MAX, PCLR_NATIVE), plain;
    uint64_t j;
    size_t o;
    int bad = 0;
    static const uint64_t sizes[] = {0, 1, 2, 7, 33, 257, 1021};
    /* element by element, at i = 0 */
    for (j = 0; j < 64 && j < d->cap; ++j) {
        memset(&a, 0, sizeof a);
        if (pclr_cpu_reduce_map(&c, d->x + j * d->xs, r->y ? d->y + j * d->ys : NULL, 1, p, &a) != PCLR_OK) { bad = 1; break; }
        r->ev(d->x + j * d->xs, r->y ? d->y + j * d->ys : NULL, 0, p, b.b);
        if (!same_value(d->vt, a.b, b.b)) {
            char g[64], w[64], xs[64];
            format_value(d->vt, a.b, g, sizeof g);
            format_value(d->vt, b.b, w, sizeof w);
            format_value(r->x, d->x + j * d->xs, xs, sizeof xs);
            report(0, "reference: map \"%s\" (x %s%s%s) element %llu (x=%s): pclr_cpu_reduce_map gives %s, the row's C gives %s", r->map,
                   pclr_type_name(r->x), r->y ? ", y " : "", r->y ? pclr_type_name(r->y) : "", (unsigned long long)j, xs, g, w);
            bad = 1;
            break;
        }
    }
    report(!bad, "reference: map \"%s\": elements as the row's C evaluates them", r->map);
    /* whole windows: the map reference == the plain reference of the evaluated values, bit for bit */
    for (o = 0; o < COUNT(all_ops); ++o) {
        pclr_accumulate acc;
        for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; acc = (pclr_accumulate)(acc + 1)) {
            const uint64_t n = sizes[pclr_test_rand(st) % COUNT(sizes)], xo = pclr_test_rand(st) % 8, yo = pclr_test_rand(st) % 8;
            pclr_result ra, rb_;
            if (acc != PCLR_NATIVE && all_ops[o] != PCLR_SUM && all_ops[o] != PCLR_STATS) continue;
            c = row_config(r, all_ops[o], acc);
            memset(&plain, 0, sizeof plain);
            plain.type = d->vt;
            plain.op = all_ops[o];
            plain.accumulate = acc;
            if ((acc == PCLR_COMPENSATED && !is_float(d->vt)) || /* compensated sums of integers are refused, with a map too */
                (acc == PCLR_EXACT && (!is_float(d->vt) || c.op == PCLR_STATS))) { /* exact: float sums only */
                pclr_config out;
                const char *why = NULL;
                report(pclr_config_resolve(&c, &out, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION,
                       "map \"%s\" (an integer map) with a %s %s is refused", r->map, pclr_accumulate_name(acc), pclr_op_name(c.op));
                report(pclr_result_size(&c) == 0, "pclr_result_size of map \"%s\" %s is 0", r->map, pclr_accumulate_name(acc));
                continue;
            }
            evaluate(d, xo, yo, n, p);
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            ra = pclr_cpu_reduce_map(&c, d->x + xo * d->xs, r->y ? d->y + yo * d->ys : NULL, n, p, &a);
            rb_ = pclr_cpu_reduce_config(&plain, d->mapped, n, &b);
            if (ra != PCLR_OK || rb_ != PCLR_OK) {
                report(0, "reference: map \"%s\" %s: %s / %s", r->map, pclr_op_name(c.op), pclr_result_string(ra), pclr_result_string(rb_));
                continue;
            }
            if (!identical(&c, d->vt, &a, &b)) {
                char g[256], w[256];
                format_result(&c, d->vt, &a, g, sizeof g);
                format_result(&c, d->vt, &b, w, sizeof w);
                report(0, "reference: map \"%s\" %s %s n=%llu: pclr_cpu_reduce_map gives %s, the row's C values reduce to %s", r->map,
                       pclr_op_name(c.op), pclr_accumulate_name(acc), (unsigned long long)n, g, w);
            } else {
                report(1, " ");
            }
            /* the sizes agree with the plain config of the map's type */
            report(pclr_result_size(&c) == pclr_result_size(&plain) && pclr_state_size(&c) == pclr_state_size(&plain),
                   "map \"%s\" %s %s: result size %zu, state size %zu (the %s config's: %zu, %zu)", r->map, pclr_op_name(c.op),
                   pclr_accumulate_name(acc), pclr_result_size(&c), pclr_state_size(&c), pclr_type_name(d->vt), pclr_result_size(&plain),
                   pclr_state_size(&plain));
        }
    }
}

/* ================================================================== 1. the table on a context */
static const uint64_t small_sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 32, 33, 63, 65, 127, 255, 257, 1021, 1023, 1025, 4093, 4097};
static const uint64_t dev_sizes[] = {0, 1, 3, 31, 33, 257, 1021, 4097};
static const uint64_t xoffs[] = {0, 1, 3, 7};

/* The y offset for x offset xo: lined up with x's vectors (xo + 32), or (odd) anything. */
static uint64_t y_offset(uint64_t xo, int lined_up, uint64_t *st) {
    return lined_up ? xo + 32 : pclr_test_rand(st) % MAX_OFF;
}

/* Every size at rotating offsets for one config on the context. big: one case of 65537 (or more). */
static void run_sizes(dev *D, row_data *d, const pclr_config *c, const uint64_t *sizes, size_t ns, int any_yoff, uint64_t big,
                      const double *p, uint64_t *st) {
    size_t s;
    for (s = 0; s < ns; ++s) {
        const uint64_t xo = xoffs[(s + (size_t)(*st & 3)) % COUNT(xoffs)];
        if (!run_case(D, d, c, sizes[s], xo, y_offset(xo, !any_yoff, st), p)) return;
    }
    if (big && big <= d->cap) run_case(D, d, c, big, 1, y_offset(1, !any_yoff, st), p);
}

static void cpu_table(dev *D, int row_lo, int row_hi) {
    int k;
    uint64_t st = g_seed ^ 0xc0ffeeull;
    const double t0 = now_s();
    const long before = pclr_test_failed, passed = pclr_test_passed;
    for (k = row_lo; k < row_hi; ++k) {
        const map_row *r = &g_rows[k];
        row_data d;
        size_t o;
        int ps;
        const uint64_t big_op = pclr_test_rand(&st) % COUNT(all_ops);
        if (!row_data_make(&d, r, g_quick ? 4097 : 65537, g_seed + (uint64_t)k * 1000003u) || !upload(D, &d)) {
            report(0, "row %d: host data", k);
            row_data_free(&d);
            continue;
        }
        for (ps = 0; ps < (r->params ? 2 : 1); ++ps) reference_row(&d, r->pv[ps], &st);
        for (o = 0; o < COUNT(all_ops); ++o) {
            pclr_accumulate acc;
            for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; acc = (pclr_accumulate)(acc + 1)) {
                pclr_config c = row_config(r, all_ops[o], acc);
                if (acc != PCLR_NATIVE && all_ops[o] != PCLR_SUM && all_ops[o] != PCLR_STATS) continue;
                if (acc == PCLR_COMPENSATED && !is_float(r->want)) continue;
                if (acc == PCLR_EXACT && (!is_float(r->want) || all_ops[o] == PCLR_STATS)) continue; /* refused (checked above) */
                ps = (int)(pclr_test_rand(&st) & 1) && r->params;
                /* the CPU backend: y at any offset */
                run_sizes(D, &d, &c, small_sizes, g_quick ? 12 : COUNT(small_sizes), 1, o == big_op && acc == PCLR_NATIVE && !g_quick ? 65537 : 0,
                          r->pv[ps], &st);
            }
        }
        row_data_free(&d);
    }
    printf("cpu backend: rows %d..%d, %ld checks ok, %ld failing, %.1fs\n", row_lo, row_hi - 1, pclr_test_passed - passed,
           pclr_test_failed - before, now_s() - t0);
    fflush(stdout);
}

/* ================================================================== 1. the table on the device */
typedef struct pick { int row; pclr_op op; pclr_accumulate acc; } pick;

static pclr_accumulate pick_acc(const map_row *r, pclr_op op, uint64_t *st) {
    if (op != PCLR_SUM && op != PCLR_STATS) return PCLR_NATIVE;
    return (pclr_accumulate)(PCLR_NATIVE + (int)(pclr_test_rand(st) % (is_float(r->want) ? 3 : 2)));
}

static void device_row(dev *D, const pick *pk, uint64_t *st) {
    const map_row *r = &g_rows[pk->row];
    row_data d;
    pclr_config c = row_config(r, pk->op, pk->acc);
    const uint64_t cap = g_full ? 262147 : 65537;
    const long before = pclr_test_failed;
    const double t0 = now_s();
    int ps;
    if (!row_data_make(&d, r, cap, g_seed + (uint64_t)pk->row * 1000003u + 17) || !upload(D, &d)) {
        report(0, "row %d: host data", pk->row);
        row_data_free(&d);
        return;
    }
    for (ps = 0; ps < (r->params ? 2 : 1); ++ps) /* the second parameter values: the same kernel */
        run_sizes(D, &d, &c, dev_sizes, ps ? 4 : COUNT(dev_sizes), 0, ps ? 0 : g_quick ? 4097 : cap, r->pv[ps], st);
    if (g_verbose || pclr_test_failed != before)
        printf("%s: row %d \"%s\" x %s%s%s %s %s: %s, %.1fs\n", D->name, pk->row, r->map, pclr_type_name(r->x), r->y ? " y " : "",
               r->y ? pclr_type_name(r->y) : "", pclr_op_name(pk->op), pclr_accumulate_name(pk->acc),
               pclr_test_failed == before ? "ok" : "FAILED", now_s() - t0);
    row_data_free(&d);
}

/* Negated 32-bit integers folded by min/max with one element per load and four loads in flight:
   NVIDIA's ptxas fused such folds into a three-input min/max and dropped the negation (the
   generator's pclr_keep); the default knobs (four-element vectors) did not show it. */
static void negation_fold(dev *D) {
    static const char *const maps[] = {"-x", "0 - x", "x * -1", "-x", "max(-x, y)"};
    static const pclr_type types[] = {T_I, T_I8, T_I16, T_U, T_I};
    static const pclr_op ops[] = {PCLR_MIN, PCLR_MAX, PCLR_MINMAX, PCLR_STATS};
    static const uint64_t sizes[] = {100003, 65537};
    const long before = pclr_test_failed;
    size_t k, o, s;
    for (k = 0; k < COUNT(maps); ++k) {
        const map_row *r = &g_rows[find_row(maps[k], types[k], k == 4 ? T_I : 0)];
        row_data d;
        if (!row_data_make(&d, r, 100003, g_seed + 77 * (uint64_t)k) || !upload(D, &d)) {
            report(0, "negation_fold: host data");
            row_data_free(&d);
            continue;
        }
        for (o = 0; o < COUNT(ops); ++o) {
            pclr_config c = row_config(r, ops[o], PCLR_NATIVE);
            c.vector_width = 1;
            c.unroll = 4;
            for (s = 0; s < COUNT(sizes); ++s) run_case(D, &d, &c, sizes[s], s, s, NULL);
        }
        row_data_free(&d);
    }
    printf("%s: negations folded by min/max, vector 1, unroll 4: %ld failed\n", D->name, pclr_test_failed - before);
}

static void device_table(dev *D) {
    uint64_t st = g_seed ^ 0xd00dull;
    pick picks[NROWS * 12];
    int np = 0, k, kind;
    size_t o;
    const double t0 = now_s();
    const long before = pclr_test_failed, passed = pclr_test_passed, b0 = D->builds;
    if (g_only_any) { /* --row: those rows, every op and accumulator */
        for (k = 0; k < NROWS; ++k)
            for (o = 0; o < COUNT(all_ops) && g_only[k]; ++o) {
                pclr_accumulate acc;
                for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; acc = (pclr_accumulate)(acc + 1)) {
                    if (acc != PCLR_NATIVE && all_ops[o] != PCLR_SUM && all_ops[o] != PCLR_STATS) continue;
                    if ((acc == PCLR_COMPENSATED || acc == PCLR_EXACT) && !is_float(g_rows[k].want)) continue; /* (refused) */
                    picks[np].row = k;
                    picks[np].op = all_ops[o];
                    picks[np++].acc = acc;
                }
            }
    } else if (g_full) { /* every row: every op where builds are fast, else a rotating op and sum */
        for (k = 0; k < NROWS; ++k)
            for (o = 0; o < COUNT(all_ops); ++o) {
                pclr_accumulate acc;
                if (D->slow_builds && all_ops[o] != PCLR_SUM && o != (size_t)k % COUNT(all_ops)) continue;
                for (acc = PCLR_NATIVE; acc < PCLR_ACCUMULATE_COUNT_; acc = (pclr_accumulate)(acc + 1)) {
                    if (acc != PCLR_NATIVE && all_ops[o] != PCLR_SUM && all_ops[o] != PCLR_STATS) continue;
                    if (acc == PCLR_COMPENSATED && !is_float(g_rows[k].want)) continue;
                    if (acc == PCLR_EXACT && (!is_float(g_rows[k].want) || all_ops[o] == PCLR_STATS)) continue;
                    if (D->slow_builds && acc != PCLR_NATIVE) continue;
                    picks[np].row = k;
                    picks[np].op = all_ops[o];
                    picks[np++].acc = acc;
                }
            }
    } else if (!D->slow_builds) { /* GPUs: every row, sum and a rotating op with a rotating accumulator */
        for (k = 0; k < NROWS; ++k) {
            picks[np].row = k;
            picks[np].op = PCLR_SUM;
            picks[np++].acc = PCLR_NATIVE;
            picks[np].row = k;
            picks[np].op = all_ops[1 + (size_t)(k + (int)(g_seed % 7)) % (COUNT(all_ops) - 1)];
            picks[np].acc = pick_acc(&g_rows[k], picks[np].op, &st);
            ++np;
        }
    } else { /* slow builds (PoCL): rows of different kinds, each with a random op */
        int kinds[K_KINDS_], want = g_quick ? 1 : 5;
        for (kind = 0; kind < K_KINDS_; ++kind) kinds[kind] = kind;
        for (kind = K_KINDS_ - 1; kind > 0; --kind) { /* shuffle */
            const int j = (int)(pclr_test_rand(&st) % (uint64_t)(kind + 1)), t = kinds[kind];
            kinds[kind] = kinds[j];
            kinds[j] = t;
        }
        for (kind = 0; kind < K_KINDS_ && np < want; ++kind) {
            int cand[NROWS], nc = 0;
            for (k = 0; k < NROWS; ++k) if (g_rows[k].kind == kinds[kind]) cand[nc++] = k;
            if (!nc) continue;
            picks[np].row = cand[pclr_test_rand(&st) % (uint64_t)nc];
            picks[np].op = all_ops[pclr_test_rand(&st) % COUNT(all_ops)];
            picks[np].acc = pick_acc(&g_rows[picks[np].row], picks[np].op, &st);
            ++np;
        }
        printf("%s: sampled (row kind op accumulator):", D->name);
        for (k = 0; k < np; ++k)
            printf(" [\"%s\" %s %s %s %s]", g_rows[picks[k].row].map, pclr_type_name(g_rows[picks[k].row].x),
                   kind_names[g_rows[picks[k].row].kind], pclr_op_name(picks[k].op), pclr_accumulate_name(picks[k].acc));
        printf("\n");
        fflush(stdout);
    }
    for (k = 0; k < np; ++k) device_row(D, &picks[k], &st);
    printf("%s: the table: %d configs, %ld checks ok, %ld failing, %ld builds, %.1fs\n", D->name, np, pclr_test_passed - passed,
           pclr_test_failed - before, D->builds - b0, now_s() - t0);
    fflush(stdout);
}

/* ================================================================== 2. y offsets and bad calls */
/* The dot row: x and y at offsets that line up with x's vectors and ones that do not. */
static void y_alignment(dev *D) {
    const map_row *r = &g_rows[find_row("x*y", T_F, T_F)];
    row_data d;
    pclr_config c = row_config(r, PCLR_SUM, PCLR_NATIVE), res;
    static const uint64_t pairs[][2] = {{0, 0}, {1, 1}, {3, 35}, {0, 1}, {1, 2}, {3, 0}, {2, 7}, {5, 6}};
    static const uint64_t ns[] = {0, 1, 5, 33, 1021, 4097};
    unsigned long cf0 = 0, pr0 = 0, sd0 = 0, cf1 = 0, pr1 = 0, sd1 = 0, cf2 = 0, pr2 = 0, sd2 = 0;
    int have = 0, vec = 1;
    size_t k, s;
    if (!row_data_make(&d, r, 4097 + 64, g_seed ^ 0xa1u) || !upload(D, &d)) {
        row_data_free(&d);
        return;
    }
    if (pclr_resolve(D->ctx, &c, 4097, &res) == PCLR_OK) vec = res.vector_width;
    for (k = 0; k < COUNT(pairs); ++k) {
        if (k == 3) have = describe_counts(D->ctx, &cf0, &pr0, &sd0); /* before the first misaligned call */
        for (s = 0; s < COUNT(ns); ++s) run_case(D, &d, &c, ns[s], pairs[k][0], pairs[k][1], NULL);
        if (k == 3 && have) describe_counts(D->ctx, &cf1, &pr1, &sd1);
    }
    if (have) {
        describe_counts(D->ctx, &cf2, &pr2, &sd2);
        /* a vector width above 1: the misaligned calls built the one-element-per-load kernel once */
        report(pr1 == pr0 + (vec > 1) && pr2 == pr1, "%s: y misaligned with x's %d-element vectors: %lu -> %lu -> %lu programs (one more, once)",
               D->name, vec, pr0, pr1, pr2);
    }
    printf("%s: y offsets: vector width %d, %d x/y offset pairs\n", D->name, vec, (int)COUNT(pairs));
    row_data_free(&d);
}

/* Wrong calls: y too short, y NULL, parameters NULL, x too short, pclr_reduce of a map with y. */
static void bad_calls(dev *D) {
    const map_row *dot = &g_rows[find_row("x*y", T_F, T_F)], *cnt = &g_rows[find_row("x > t", T_F, 0)];
    pclr_buffer *small = NULL;
    pclr_config c = row_config(dot, PCLR_SUM, PCLR_NATIVE), cc = row_config(cnt, PCLR_SUM, PCLR_NATIVE);
    row_data d;
    float sum = -1;
    int32_t isum = -1;
    pclr_arg_result ar;
    pclr_result r;
    const double t = 0.5;
    if (!row_data_make(&d, dot, 256, g_seed ^ 0xbadu) || !upload(D, &d)) {
        row_data_free(&d);
        return;
    }
    if (pclr_buffer_create(D->ctx, 100 * sizeof(float), &small) != PCLR_OK) {
        report(0, "%s: a buffer of 100 floats", D->name);
        row_data_free(&d);
        return;
    }
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, small, 0, 101, NULL, &sum);
    report(r == PCLR_ERR_SIZE_OVERFLOW, "%s: y of 100 elements, n = 101: %s (%s), want size overflow", D->name, pclr_result_string(r),
           pclr_last_error(D->ctx));
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, small, 1, 100, NULL, &sum);
    report(r == PCLR_ERR_SIZE_OVERFLOW, "%s: y of 100 elements, y_offset 1, n = 100: %s, want size overflow", D->name, pclr_result_string(r));
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, small, 0, 100, NULL, &sum);
    report(r == PCLR_OK, "%s: y of 100 elements, n = 100: %s (%s)", D->name, pclr_result_string(r), pclr_last_error(D->ctx));
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, small, UINT64_MAX - 5, 10, NULL, &sum);
    report(r == PCLR_ERR_SIZE_OVERFLOW, "%s: y_offset near 2^64: %s, want size overflow", D->name, pclr_result_string(r));
    r = pclr_reduce_map(D->ctx, &c, small, 0, D->by, 0, 101, NULL, &sum);
    report(r == PCLR_ERR_SIZE_OVERFLOW, "%s: x of 100 elements, n = 101: %s, want size overflow", D->name, pclr_result_string(r));
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, NULL, 0, 10, NULL, &sum);
    report(r == PCLR_ERR_NULL_POINTER, "%s: the map reads y, y NULL: %s, want null pointer", D->name, pclr_result_string(r));
    r = reduce_one(D->ctx, &c, D->bx, 0, 10, &sum);
    report(r == PCLR_ERR_NULL_POINTER, "%s: pclr_reduce of a map that reads y: %s, want null pointer", D->name, pclr_result_string(r));
    sum = -1;
    r = pclr_reduce_map(D->ctx, &c, D->bx, 0, NULL, 0, 0, NULL, &sum);
    report(r == PCLR_OK && sum == 0.0f, "%s: n = 0, y NULL: %s, sum %g (want ok, 0)", D->name, pclr_result_string(r), (double)sum);
    r = pclr_reduce_map(D->ctx, &cc, D->bx, 0, NULL, 0, 10, NULL, &isum);
    report(r == PCLR_ERR_NULL_POINTER && strstr(pclr_last_error(D->ctx), "parameter"), "%s: parameters declared, values NULL: %s (%s), want null pointer",
           D->name, pclr_result_string(r), pclr_last_error(D->ctx));
    r = reduce_one(D->ctx, &cc, D->bx, 0, 10, &isum);
    report(r == PCLR_ERR_NULL_POINTER, "%s: pclr_reduce of a map with parameters: %s, want null pointer", D->name, pclr_result_string(r));
    isum = -1;
    r = pclr_reduce_map(D->ctx, &cc, D->bx, 0, NULL, 0, 10, &t, &isum);
    {
        int32_t want = 0;
        int j;
        for (j = 0; j < 10; ++j) want += rf(d.x, j) > 0.5f;
        report(r == PCLR_OK && isum == want, "%s: x > t, t = 0.5, 10 elements: %s, %d (want %d)", D->name, pclr_result_string(r), (int)isum, (int)want);
    }
    /* n = 0: identities */
    cc.op = PCLR_ARGMAX;
    memset(&ar, 0, sizeof ar);
    r = pclr_reduce_map(D->ctx, &cc, D->bx, 0, NULL, 0, 0, &t, &ar);
    report(r == PCLR_OK && ar.index == UINT64_MAX && ar.value.i32 == INT32_MIN, "%s: argmax of x > t over no elements: %s, %d at %llu", D->name,
           pclr_result_string(r), (int)ar.value.i32, (unsigned long long)ar.index);
    /* an invalid map: the generic context says where */
    {
        pclr_config bad = c;
        bad.map = "x * y + foo";
        r = pclr_reduce_map(D->ctx, &bad, D->bx, 0, D->by, 0, 10, NULL, &sum);
        report(r == PCLR_ERR_INVALID_MAP && strstr(pclr_last_error(D->ctx), "column 9"), "%s: an unknown name at column 9: %s (%s)", D->name,
               pclr_result_string(r), pclr_last_error(D->ctx));
        bad.map = "x; y";
        r = pclr_prepare(D->ctx, &bad);
        report(r == PCLR_ERR_INVALID_MAP && strstr(pclr_last_error(D->ctx), "column 2"), "%s: pclr_prepare of \"x; y\": %s (%s)", D->name,
               pclr_result_string(r), pclr_last_error(D->ctx));
    }
    pclr_buffer_destroy(D->ctx, small);
    row_data_free(&d);
}

/* ================================================================== 3. parameters do not rebuild */
static void params_no_rebuild(dev *D) {
    const map_row *r = &g_rows[find_row("x > t", T_F, 0)]; /* float t */
    row_data d;
    pclr_config c = row_config(r, PCLR_SUM, PCLR_NATIVE);
    static const double ts[] = {0.25, -0.5, 0.9, 2.0, -2.0, 0.0, -0.125};
    unsigned long cf0, pr0, sd0, cf, pr, sd;
    char map_text[32], params_text[32];
    size_t k;
    int have;
    const uint64_t n = 4099, xo = 3;
    int32_t got = -1;
    if (!row_data_make(&d, r, n + 8, g_seed ^ 0x9a4au) || !upload(D, &d)) {
        row_data_free(&d);
        return;
    }
    /* a copy of the strings in the caller's buffers (changed below) */
    snprintf(map_text, sizeof map_text, "%s", r->map);
    snprintf(params_text, sizeof params_text, "%s", r->params);
    c.map = map_text;
    c.params = params_text;
    if (!report(dev_reduce(D, &c, xo, 0, 0, n, &ts[0], &got) == PCLR_OK, "%s: x > t: %s", D->name, pclr_last_error(D->ctx))) {
        row_data_free(&d);
        return;
    }
    have = describe_counts(D->ctx, &cf0, &pr0, &sd0);
    report(have || !strcmp(D->name, "cpu"), "%s: pclr_describe has a \"cache: N configurations, M programs\" line", D->name);
    for (k = 0; k < COUNT(ts); ++k) {
        int32_t want = 0;
        uint64_t j;
        pclr_result res;
        for (j = 0; j < n; ++j) want += rf(d.x, (int)(xo + j)) > (float)ts[k];
        got = -1;
        res = dev_reduce(D, &c, xo, 0, 0, n, &ts[k], &got);
        report(res == PCLR_OK && got == want, "%s: x > t with t = %g: %s, %d elements (want %d)", D->name, ts[k], pclr_result_string(res), (int)got,
               (int)want);
    }
    if (have) {
        describe_counts(D->ctx, &cf, &pr, &sd);
        report(cf == cf0 && pr == pr0 && sd == sd0, "%s: %d parameter values, no rebuild: configurations %lu -> %lu, programs %lu -> %lu, disk stores %lu -> %lu",
               D->name, (int)COUNT(ts), cf0, cf, pr0, pr, sd0, sd);
    }
    /* the same pointers, new text: a new kernel that reads the new text */
    snprintf(map_text, sizeof map_text, "x < t");
    {
        int32_t want = 0;
        uint64_t j;
        pclr_result res;
        for (j = 0; j < n; ++j) want += rf(d.x, (int)(xo + j)) < 0.25f;
        got = -1;
        res = dev_reduce(D, &c, xo, 0, 0, n, &ts[0], &got);
        report(res == PCLR_OK && got == want, "%s: the map buffer rewritten to \"x < t\": %s, %d (want %d)", D->name, pclr_result_string(res), (int)got,
               (int)want);
        if (have) {
            describe_counts(D->ctx, &cf, &pr, &sd);
            report(pr == pr0 + 1 && cf == cf0 + 1, "%s: new map text: one more configuration and program (%lu -> %lu, %lu -> %lu)", D->name, cf0, cf,
                   pr0, pr);
        }
        /* and back: the first kernel again, no build */
        snprintf(map_text, sizeof map_text, "%s", r->map);
        got = -1;
        res = dev_reduce(D, &c, xo, 0, 0, n, &ts[1], &got);
        want = 0;
        for (j = 0; j < n; ++j) want += rf(d.x, (int)(xo + j)) > -0.5f;
        report(res == PCLR_OK && got == want, "%s: back to \"x > t\": %d (want %d)", D->name, (int)got, (int)want);
        if (have) {
            unsigned long pr2, cf2, sd2;
            describe_counts(D->ctx, &cf2, &pr2, &sd2);
            report(pr2 == pr && cf2 == cf, "%s: back to the first text: no new program (%lu -> %lu)", D->name, pr, pr2);
        }
    }
    row_data_free(&d);
}

/* ================================================================== 4. refusals */
typedef struct refusal {
    const char *map, *params;
    pclr_type x, y;
    int comps, col;
    const char *word; /* in the sentence, after "column N: " */
} refusal;

static const refusal g_refusals[] = {
    /* unknown identifiers */
    {"foo", NULL, T_F, 0, 1, 1, "unknown"},
    {"x + bar", NULL, T_F, 0, 1, 5, "unknown"},
    {"x * X", NULL, T_F, 0, 1, 5, "unknown"},
    {"x + t", "float u", T_F, 0, 1, 5, "unknown"},
    {"pi * x", NULL, T_F, 0, 1, 1, "unknown"},
    {"sqrtf(x)", NULL, T_F, 0, 1, 1, "unknown"},
    {"get_global_id(0)", NULL, T_F, 0, 1, 1, "unknown"},
    {"threadIdx", NULL, T_F, 0, 1, 1, "unknown"},
    {"x + aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL, T_F, 0, 1, 5, "unknown"},
    /* arity */
    {"sqrt(x, x)", NULL, T_F, 0, 1, 1, "argument"},
    {"min(x)", NULL, T_F, 0, 1, 1, "argument"},
    {"x + clamp(x, 1)", NULL, T_F, 0, 1, 5, "argument"},
    {"fma(x, x)", NULL, T_F, 0, 1, 1, "argument"},
    {"abs()", NULL, T_F, 0, 1, 1, "argument"},
    {"pow(x, x, x, x)", NULL, T_F, 0, 1, 1, "argument"},
    {"float(x, x)", NULL, T_F, 0, 1, 1, "argument"},
    {"int()", NULL, T_F, 0, 1, 1, "argument"},
    {"sqrt", NULL, T_F, 0, 1, 1, "function"},
    {"x + float", NULL, T_F, 0, 1, 5, "cast"},
    /* components */
    {"x.x", NULL, T_F, 0, 1, 2, "component"},
    {"x + y.r", NULL, T_F, T_F, 1, 6, "component"},
    {"x.z", NULL, T_F, 0, 2, 2, "component"},
    {"x.x + x.a", NULL, T_F, 0, 2, 8, "component"},
    {"x.q", NULL, T_F, 0, 4, 2, "component"},
    {"x.xy", NULL, T_F, 0, 4, 2, "component"},
    {"x", NULL, T_F, 0, 4, 1, "component"},
    {"x.r + y", NULL, T_F, T_F, 4, 7, "component"},
    {"i.x", NULL, T_F, 0, 1, 2, "component"},
    {"(x).x", NULL, T_F, 0, 4, 2, "component"},
    /* y without y_type */
    {"x * y", NULL, T_F, 0, 1, 5, "second input"},
    {"y", NULL, T_F, 0, 1, 1, "second input"},
    /* parentheses */
    {"(x", NULL, T_F, 0, 1, 3, "not closed"},
    {"((x + 1) * 2", NULL, T_F, 0, 1, 13, "not closed"},
    {"x)", NULL, T_F, 0, 1, 2, "unexpected"},
    {"(x + 1))", NULL, T_F, 0, 1, 8, "unexpected"},
    {"sqrt(x", NULL, T_F, 0, 1, 7, "expected"},
    {"()", NULL, T_F, 0, 1, 2, "expected a value"},
    /* ; braces comments # backslash strings */
    {"x;", NULL, T_F, 0, 1, 2, "';'"},
    {"x; y", NULL, T_F, T_F, 1, 2, "';'"},
    {"{x}", NULL, T_F, 0, 1, 1, "braces"},
    {"x}", NULL, T_F, 0, 1, 2, "braces"},
    {"x /* c */", NULL, T_F, 0, 1, 3, "comment"},
    {"x // c", NULL, T_F, 0, 1, 3, "comment"},
    {"x */ 2", NULL, T_F, 0, 1, 4, "expected a value"},
    {"#define X 1", NULL, T_F, 0, 1, 1, "'#'"},
    {"x\n#include <stdio.h>", NULL, T_F, 0, 1, 3, "'#'"},
    {"x + 1 \\\n + 2", NULL, T_F, 0, 1, 7, "backslash"},
    {"\"x\"", NULL, T_F, 0, 1, 1, "string"},
    {"x + 'a'", NULL, T_F, 0, 1, 5, "character"},
    {"x @ 1", NULL, T_F, 0, 1, 3, "'@'"},
    {"x & 1", NULL, T_F, 0, 1, 3, "'&'"},
    {"x | 1", NULL, T_F, 0, 1, 3, "'|'"},
    {"x ^ 1", NULL, T_F, 0, 1, 3, "'^'"},
    {"x[0]", NULL, T_F, 0, 1, 2, "'['"},
    {"x = 1", NULL, T_F, 0, 1, 3, "unexpected"},
    {"x << 1", NULL, T_F, 0, 1, 3, "integers"},
    {"~x", NULL, T_F, 0, 1, 1, "integers"},
    {"1 >> x", NULL, T_D, 0, 1, 3, "integers"},
    {"x + (2 & 1.5)", NULL, T_I, 0, 1, 8, "integers"},
    {"x | y", NULL, T_I, T_F, 1, 3, "integers"},
    {"x ^ ~y", NULL, T_I, T_D, 1, 5, "integers"},
    {"x + \xc3\xa9", NULL, T_F, 0, 1, 5, "byte"},
    {"x\t+\x01", NULL, T_F, 0, 1, 4, "byte"},
    /* numbers */
    {"1x", NULL, T_F, 0, 1, 1, "number"},
    {"x + 08", NULL, T_F, 0, 1, 5, "octal"},
    {"0x", NULL, T_F, 0, 1, 1, "hexadecimal"},
    {"x * 0xg1", NULL, T_F, 0, 1, 5, "hexadecimal"},
    {"1e", NULL, T_F, 0, 1, 1, "exponent"},
    {"x + 2.5e+", NULL, T_F, 0, 1, 5, "exponent"},
    {"1e999", NULL, T_F, 0, 1, 1, "too large"},
    {"x * 1e39f", NULL, T_F, 0, 1, 5, "too large"},
    {"99999999999999999999", NULL, T_F, 0, 1, 1, "64 bits"},
    {"18446744073709551615", NULL, T_F, 0, 1, 1, "fit"},
    {"1.5u", NULL, T_F, 0, 1, 1, "followed"},
    {"2ff", NULL, T_F, 0, 1, 1, "followed"},
    {"1.5.3", NULL, T_F, 0, 1, 4, "component"},
    /* empty and trailing */
    {"   ", NULL, T_F, 0, 1, 4, "ends"},
    {"x +", NULL, T_F, 0, 1, 4, "ends"},
    {"x ?", NULL, T_F, 0, 1, 4, "ends"},
    {"x ? 1", NULL, T_F, 0, 1, 6, "':'"},
    {"x y", NULL, T_F, 0, 1, 3, "unexpected"},
    {"x + 1 2", NULL, T_F, 0, 1, 7, "unexpected"},
    {"x )", NULL, T_F, 0, 1, 3, "unexpected"},
    /* parameters */
    {"x > t", "quad t", T_F, 0, 1, 1, "params"},
    {"x > t", "float t, int t", T_F, 0, 1, 14, "taken"},
    {"x > t", "float x", T_F, 0, 1, 7, "taken"},
    {"x > t", "float t, float sqrt", T_F, 0, 1, 16, "taken"},
    {"x > t", "int i", T_F, 0, 1, 5, "taken"},
    {"x > t", "float float", T_F, 0, 1, 7, "taken"},
    {"x > t", "float y", T_F, T_F, 1, 7, "taken"},
    {"x > t", "float", T_F, 0, 1, 6, "name"},
    {"x > t", "float 1t", T_F, 0, 1, 7, "name"},
    {"x > t", "float t, half h", T_F, 0, 1, 10, "params"},
    {"x > t", "float taaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", T_F, 0, 1, 7, "31"},
    {"x > a", "int a, int b, int c, int d, int e, int f, int g, int h, int j, int k, int l, int m, int n, int o, int p, int q, int r", T_F, 0, 1,
     113, "16"},
    /* closing the kernel: each refused at its first character that no expression has */
    {"x); } __global__ void f() { (", NULL, T_F, 0, 1, 3, "';'"},
    {"x) } __kernel void f(__global int *p) { p[0] = 1; } float g(float x) { return (x", NULL, T_F, 0, 1, 4, "braces"},
    {"x)\n#define pclr_map(x) 0\n(", NULL, T_F, 0, 1, 4, "'#'"},
    {"x) + (x", NULL, T_F, 0, 1, 2, "unexpected"},
    {"x) ? 1 : (0", NULL, T_F, 0, 1, 2, "unexpected"},
    {"x */ } /*", NULL, T_F, 0, 1, 6, "braces"},
    {"x \"; system(\"sh\")", NULL, T_F, 0, 1, 3, "string"},
    {"x > t", "float t) { return 0; } float u(float v", T_F, 0, 1, 10, "params"}, /* params' own characters say "params" */
};
#define NREFUSALS ((int)(sizeof g_refusals / sizeof g_refusals[0]))

/* the sentence has "column N:" and the word after it */
static int names_column(const char *why, int col, const char *word) {
    char want[48];
    const char *p;
    snprintf(want, sizeof want, "column %d:", col);
    return (p = strstr(why, want)) != NULL && strstr(p, word) != NULL && strncmp(why, "map, column ", 12) == 0;
}

/* The deepest parenthesis nesting of a text (clang, PoCL's compiler, stops at 256). */
static int paren_depth(const char *s) {
    int d = 0, most = 0;
    for (; *s; ++s) {
        if (*s == '(') { if (++d > most) most = d; }
        else if (*s == ')') --d;
    }
    return most;
}

static void refused_everywhere(dev **D, int nd, const pclr_config *c, const char *label, int col, const char *word) {
    char why[512], src[64];
    const char *rwhy = NULL;
    pclr_config out, k = *c;
    pclr_result r;
    size_t need = 99;
    union { pclr_stats_result s; unsigned char b[256]; } res;
    int j;
    memset(why, 'z', sizeof why);
    r = pclr_map_check(c, why, sizeof why);
    report(r == PCLR_ERR_INVALID_MAP, "refusal %s: pclr_map_check gives %s", label, pclr_result_string(r));
    report(memchr(why, '\0', sizeof why) != NULL, "refusal %s: the sentence is NUL-terminated", label);
    why[sizeof why - 1] = '\0';
    report(col < 0 ? strstr(why, word) != NULL : names_column(why, col, word), "refusal %s: the sentence \"%s\" names column %d and says '%s'", label,
           why, col, word);
    r = pclr_config_resolve(c, &out, &rwhy);
    report(r == PCLR_ERR_INVALID_MAP && rwhy && *rwhy, "refusal %s: pclr_config_resolve gives %s", label, pclr_result_string(r));
    k.backend = PCLR_OPENCL;
    memset(src, 'q', sizeof src);
    r = pclr_kernel_source(&k, src, sizeof src, &need);
    report(r == PCLR_ERR_INVALID_MAP && src[0] != '/' && need == 0, "refusal %s: pclr_kernel_source (opencl) gives %s, nothing written", label,
           pclr_result_string(r));
    k.backend = PCLR_CUDA;
    r = pclr_kernel_source(&k, NULL, 0, &need);
    report(r == PCLR_ERR_INVALID_MAP, "refusal %s: pclr_kernel_source (cuda) gives %s", label, pclr_result_string(r));
    r = pclr_map_source(c, "glsl", NULL, 0, &need);
    report(r == PCLR_ERR_INVALID_MAP, "refusal %s: pclr_map_source (glsl) gives %s", label, pclr_result_string(r));
    {
        float xs[4] = {1, 2, 3, 4};
        const double ps[16] = {0};
        r = pclr_cpu_reduce_map(c, xs, xs, 1, ps, &res);
        report(r == PCLR_ERR_INVALID_MAP, "refusal %s: pclr_cpu_reduce_map gives %s", label, pclr_result_string(r));
    }
    for (j = 0; j < nd; ++j) { /* the contexts: the same error, the sentence with the column */
        const double ps[16] = {0};
        r = pclr_reduce_map(D[j]->ctx, c, D[j]->bx, 0, D[j]->bx, 0, 1, ps, &res);
        report(r == PCLR_ERR_INVALID_MAP && (col < 0 || strstr(pclr_last_error(D[j]->ctx), "column")), "refusal %s on %s: %s (%s)", label, D[j]->name,
               pclr_result_string(r), pclr_last_error(D[j]->ctx));
    }
}

static void refusals(dev **D, int nd) {
    const double t0 = now_s();
    int k;
    char label[96];
    const long before = pclr_test_failed;
    for (k = 0; k < NREFUSALS; ++k) {
        const refusal *f = &g_refusals[k];
        pclr_config c;
        memset(&c, 0, sizeof c);
        c.type = f->x;
        c.y_type = f->y;
        c.components = f->comps > 1 ? f->comps : 0;
        c.map = f->map;
        c.params = f->params;
        snprintf(label, sizeof label, "%d (%.40s%s%.30s)", k, f->map, f->params ? " | " : "", f->params ? f->params : "");
        refused_everywhere(D, nd, &c, label, f->col, f->word);
    }
    /* over 1024 characters: refused at column 1025; 1024 is fine */
    {
        char *m = (char *)malloc(2100);
        pclr_config c;
        char why[256];
        memset(&c, 0, sizeof c);
        memset(m, ' ', 2100);
        m[0] = 'x';
        m[1025] = '\0';
        c.map = m;
        refused_everywhere(D, nd, &c, "1025 characters", 1025, "longer");
        m[1024] = '\0';
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK, "a map of 1024 characters (x and spaces) is accepted: %s", why);
        m[1024] = ' ';
        m[2099] = '\0';
        refused_everywhere(D, nd, &c, "2099 characters", 1025, "longer");
        /* x+x+...: 512 terms, 1023 characters */
        {
            int j;
            for (j = 0; j < 512; ++j) { m[2 * j] = 'x'; m[2 * j + 1] = '+'; }
            m[1023] = '\0';
            report(pclr_map_check(&c, why, sizeof why) == PCLR_OK || names_column(why, 1, "") || strstr(why, "column"),
                   "x+x+...+x (512 terms): checked (%s)", why);
        }
        free(m);
    }
    /* nesting: deep parentheses refused with the column of where it goes too deep; shallower ones accepted */
    {
        char m[400], why[256];
        pclr_config c;
        int j, n = 0, depth;
        memset(&c, 0, sizeof c);
        c.map = m;
        for (depth = 65; depth <= 150; depth += 85) {
            n = 0;
            for (j = 0; j < depth; ++j) m[n++] = '(';
            m[n++] = 'x';
            for (j = 0; j < depth; ++j) m[n++] = ')';
            m[n] = '\0';
            pclr_map_check(&c, why, sizeof why);
            {
                const char *p = strstr(why, "column ");
                const int col = p ? atoi(p + 7) : -1;
                report(col >= 1 && col <= 65 && m[col - 1] == '(' && strstr(why, "nests"),
                       "%d nested parentheses: refused at a '(' within the first 65 columns: %s", depth, why);
                if (depth == 65) refused_everywhere(D, nd, &c, "65 nested parentheses", col, "nests");
            }
        }
        n = 0; /* 64 levels are 64 pairs of parentheses (each pair once; they once counted twice) */
        for (j = 0; j < 64; ++j) m[n++] = '(';
        m[n++] = 'x';
        for (j = 0; j < 64; ++j) m[n++] = ')';
        m[n] = '\0';
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK, "64 nested parentheses are accepted: %s", why);
        n = 0; /* 64 prefix operators */
        for (j = 0; j < 64; ++j) m[n++] = j % 2 ? '-' : '!';
        m[n++] = 'x';
        m[n] = '\0';
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK, "64 prefix operators are accepted: %s", why);
        n = 0; /* 200 unary minus */
        for (j = 0; j < 200; ++j) m[n++] = '-';
        m[n++] = 'x';
        m[n] = '\0';
        refused_everywhere(D, nd, &c, "200 unary minus", -1, "nests");
        for (depth = 64; depth <= 65; ++depth) { /* sqrt(sqrt(...)): the 64 levels, accepted, and one more, refused */
            n = 0;
            for (j = 0; j < depth; ++j) { memcpy(m + n, "sqrt(", 5); n += 5; }
            m[n++] = 'x';
            for (j = 0; j < depth; ++j) m[n++] = ')';
            m[n] = '\0';
            if (depth == 64) {
                pclr_config kc = c;
                static char src[1 << 16];
                report(pclr_map_check(&c, why, sizeof why) == PCLR_OK, "64 nested calls are accepted: %s", why);
                kc.backend = PCLR_OPENCL;
                report(pclr_kernel_source(&kc, src, sizeof src, NULL) == PCLR_OK && paren_depth(src) < 256,
                       "64 nested calls: the kernel nests %d parentheses (clang stops at 256)", paren_depth(src));
            } else {
                refused_everywhere(D, nd, &c, "65 nested calls", -1, "nests");
            }
        }
    }
    /* config errors without a column */
    {
        pclr_config c;
        char why[256];
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.map = "x";
        c.components = 3;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_MAP && strstr(why, "components"), "components 3: %s (%s)", pclr_result_string(r), why);
        c.components = 0;
        c.map_type = PCLR_HALF;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_MAP && strstr(why, "map_type"), "map_type half: %s (%s)", pclr_result_string(r), why);
        c.map_type = PCLR_UINT8;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_MAP && strstr(why, "map_type"), "map_type uint8: %s (%s)", pclr_result_string(r), why);
        c.map_type = (pclr_type)99;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_ENUM, "map_type 99: %s (%s)", pclr_result_string(r), why);
        c.map_type = 0;
        c.y_type = (pclr_type)-3;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_ENUM, "y_type -3: %s (%s)", pclr_result_string(r), why);
        memset(&c, 0, sizeof c); /* map fields without a map */
        c.y_type = PCLR_FLOAT;
        r = pclr_map_check(&c, why, sizeof why);
        report(r == PCLR_ERR_INVALID_MAP && strstr(why, "map"), "y_type without a map: %s (%s)", pclr_result_string(r), why);
        report(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_INVALID_MAP, "y_type without a map: resolve refuses");
        memset(&c, 0, sizeof c);
        c.params = "float t";
        report(pclr_map_check(&c, why, sizeof why) == PCLR_ERR_INVALID_MAP, "params without a map: %s", why);
        memset(&c, 0, sizeof c);
        c.components = 4;
        report(pclr_map_check(&c, why, sizeof why) == PCLR_ERR_INVALID_MAP, "components without a map: %s", why);
        memset(&c, 0, sizeof c);
        c.map = ""; /* an empty string is no map */
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK && pclr_reduced_type(&c) == PCLR_FLOAT, "map \"\" is no map");
        report(pclr_map_check(NULL, why, sizeof why) == PCLR_ERR_NULL_POINTER, "pclr_map_check(NULL)");
        c.map = "x +";
        report(pclr_map_check(&c, NULL, 0) == PCLR_ERR_INVALID_MAP && pclr_map_check(&c, why, 1) == PCLR_ERR_INVALID_MAP && why[0] == '\0',
               "pclr_map_check with no room for the sentence");
        report(pclr_map_check(&c, why, 12) == PCLR_ERR_INVALID_MAP && strlen(why) == 11, "pclr_map_check truncates its sentence to cap");
        c.map = "x + 18446744073709551615u"; /* the largest ulong literals (...610u to ...615u were refused once) */
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK, "\"%s\" (2^64 - 1, a ulong) is accepted: %s", c.map, why);
        c.map = "18446744073709551609u";
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK && pclr_reduced_type(&c) == PCLR_UINT64, "\"%s\" is accepted: %s", c.map, why);
        c.map = "0xffffffffffffffff";
        report(pclr_map_check(&c, why, sizeof why) == PCLR_OK && pclr_reduced_type(&c) == PCLR_UINT64, "\"%s\" is accepted: %s", c.map, why);
        c.map = "x.r";
        c.vector_width = 2;
        c.components = 4;
        report(pclr_config_resolve(&c, &c, NULL) == PCLR_ERR_UNSUPPORTED_COMBINATION, "components 4 with vector width 2: refused");
    }
    printf("refusals: %d maps and the limits, %ld failed, %.1fs\n", NREFUSALS, pclr_test_failed - before, now_s() - t0);
    fflush(stdout);
}

/* ================================================================== 4/5. the text of valid maps */
/* every occurrence of needle in text lies inside a comment, and none ends it */
static int only_in_comments(const char *text, const char *needle) {
    const size_t nl = strlen(needle);
    const char *p = text, *hit;
    if (!nl) return 1;
    while ((hit = strstr(p, needle)) != NULL) {
        const char *q = text;
        int in = 0; /* 1: block comment, 2: line comment */
        const char *end;
        while (q < hit) {
            if (!in && q[0] == '/' && q[1] == '*') { in = 1; q += 2; continue; }
            if (!in && q[0] == '/' && q[1] == '/') { in = 2; q += 2; continue; }
            if (in == 1 && q[0] == '*' && q[1] == '/') { in = 0; q += 2; continue; }
            if (in == 2 && q[0] == '\n') in = 0;
            ++q;
        }
        if (!in) return 0;
        end = in == 1 ? strstr(hit, "*/") : strchr(hit, '\n');
        if (end && end < hit + nl) return 0;
        p = hit + 1;
    }
    return 1;
}

/* GLSL: the map function inside a minimal compute shader, compiled by glslc */
static const char *glsl_scalar(pclr_type t) {
    switch (t) {
    case PCLR_UINT: return "uint";
    case PCLR_UINT64: return "uint64_t";
    case PCLR_INT64: return "int64_t";
    case PCLR_FLOAT: case PCLR_HALF: return "float";
    case PCLR_DOUBLE: return "double";
    default: return "int";
    }
}
static const char *glsl_vec(pclr_type t, int comps, char *buf, size_t cap) {
    const char *s = glsl_scalar(t);
    static const char *const pre[] = {"", "i", "u", "i64", "u64", "d"};
    int k = !strcmp(s, "float") ? 0 : !strcmp(s, "int") ? 1 : !strcmp(s, "uint") ? 2 : !strcmp(s, "int64_t") ? 3 : !strcmp(s, "uint64_t") ? 4 : 5;
    if (comps <= 1) return s;
    snprintf(buf, cap, "%svec%d", pre[k], comps);
    return buf;
}

static int g_glslc = -1; /* glslc found: 1, not: 0 */
static char g_tmpdir[256];

/* One shader: row k's function with its names prefixed (pclr_ -> r<k>_), and main()'s call of it. */
static void glsl_append(char **text, size_t *len, size_t *cap, const char *fmt, ...) PCLR__PRINTF(4, 5);
static void glsl_append(char **text, size_t *len, size_t *cap, const char *fmt, ...) {
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if (*len + (size_t)k + 1 > *cap) {
        char *g = (char *)realloc(*text, (*len + (size_t)k + 1) * 2);
        if (!g) return;
        *text = g;
        *cap = (*len + (size_t)k + 1) * 2;
    }
    va_start(ap, fmt);
    vsnprintf(*text + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t)k;
}

/* the function text with "pclr_" renamed "r<k>_" */
static void glsl_function(char **text, size_t *len, size_t *cap, int k, const char *fn) {
    const char *p = fn, *hit;
    while ((hit = strstr(p, "pclr_")) != NULL) {
        glsl_append(text, len, cap, "%.*sr%d_", (int)(hit - p), p, k);
        p = hit + 5;
    }
    glsl_append(text, len, cap, "%s", p);
}

/* main()'s block calling row k's function with inputs and parameters of its types */
static void glsl_call(char **text, size_t *len, size_t *cap, int k) {
    const map_row *r = &g_rows[k];
    char xt[32], yt[32];
    const int np = row_params(r);
    const char *s = r->params;
    int j;
    glsl_append(text, len, cap, "    {\n        %s x = %s(gl_GlobalInvocationID.x);\n", glsl_vec(r->x, r->comps, xt, sizeof xt),
                glsl_vec(r->x, r->comps, xt, sizeof xt));
    if (r->y) glsl_append(text, len, cap, "        %s y = %s(gl_GlobalInvocationID.y);\n", glsl_vec(r->y, r->comps, yt, sizeof yt),
                          glsl_vec(r->y, r->comps, yt, sizeof yt));
    glsl_append(text, len, cap, "        uint64_t i = uint64_t(gl_GlobalInvocationID.x);\n");
    for (j = 0; j < np; ++j) { /* the parameters, by their declared types */
        char ty[16];
        int l = 0;
        const char *gt;
        while (*s == ' ' || *s == ',') ++s;
        while (s[l] && s[l] != ' ') ++l;
        snprintf(ty, sizeof ty, "%.*s", l, s);
        s += l;
        while (*s && *s != ',') ++s;
        gt = !strcmp(ty, "long") ? "int64_t" : !strcmp(ty, "ulong") ? "uint64_t" : ty;
        glsl_append(text, len, cap, "        %s p%d = %s(%d);\n", gt, j, gt, j + 1);
    }
    glsl_append(text, len, cap, "        out_v[%d] = double(r%d_map(x, %si", k, k, r->y ? "y, " : "");
    for (j = 0; j < np; ++j) glsl_append(text, len, cap, ", p%d", j);
    glsl_append(text, len, cap, "));\n    }\n");
}

/* glslc on a shader of the given rows (-1 ends the list); the log in err */
static int glsl_compile(char *const *fns, const int *rows, char *err, size_t cap) {
    char path[512], cmd[1400];
    char *text = NULL;
    size_t len = 0, tcap = 0;
    FILE *f;
    int j, rc;
    glsl_append(&text, &len, &tcap, "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(local_size_x = 64) in;\n"
                                    "layout(std430, binding = 0) buffer Out { double out_v[]; };\n");
    for (j = 0; rows[j] >= 0; ++j) glsl_function(&text, &len, &tcap, rows[j], fns[rows[j]]);
    glsl_append(&text, &len, &tcap, "void main() {\n");
    for (j = 0; rows[j] >= 0; ++j) glsl_call(&text, &len, &tcap, rows[j]);
    glsl_append(&text, &len, &tcap, "}\n");
    snprintf(path, sizeof path, "%s/map.comp", g_tmpdir);
    if (!text || !(f = fopen(path, "w"))) {
        free(text);
        return snprintf(err, cap, "cannot write %s", path), 0;
    }
    fputs(text, f);
    fclose(f);
    free(text);
    snprintf(cmd, sizeof cmd, "glslc -fshader-stage=compute -o '%s/map.spv' '%s' > '%s/glslc.log' 2>&1", g_tmpdir, path, g_tmpdir);
    rc = system(cmd);
    err[0] = '\0';
    if (rc != 0) {
        snprintf(path, sizeof path, "%s/glslc.log", g_tmpdir);
        if ((f = fopen(path, "r"))) {
            size_t got = fread(err, 1, cap - 1, f);
            err[got] = '\0';
            fclose(f);
        }
    }
    return rc == 0;
}

/* rows [lo, hi) in one shader; where that fails, halves (a failing row is found in a few compiles) */
static int glsl_split(char *const *fns, const int *rows, int lo, int hi) {
    int sub[NROWS + 1], k, ok;
    char err[3000];
    for (k = lo; k < hi; ++k) sub[k - lo] = rows[k];
    sub[hi - lo] = -1;
    if (glsl_compile(fns, sub, err, sizeof err)) {
        for (k = lo; k < hi; ++k) report(1, " ");
        return hi - lo;
    }
    if (hi - lo == 1) {
        report(0, "row %d \"%s\": the GLSL function does not compile (glslc):\n%s\n%s", rows[lo], g_rows[rows[lo]].map, fns[rows[lo]], err);
        return 0;
    }
    ok = glsl_split(fns, rows, lo, lo + (hi - lo) / 2);
    return ok + glsl_split(fns, rows, lo + (hi - lo) / 2, hi);
}

/* every row's GLSL function in one shader */
static void glsl_rows(char *const *fns) {
    int rows[NROWS + 1], k, n = 0, ok;
    for (k = 0; k < NROWS; ++k) if (fns[k]) rows[n++] = k;
    rows[n] = -1;
    ok = glsl_split(fns, rows, 0, n);
    printf("glsl: %d of %d map functions compile in a GLSL 4.50 compute shader (glslc)\n", ok, n);
}

static void texts(void) {
    int k, l;
    const long before = pclr_test_failed;
    static const char *const langs[3] = {"opencl", "cuda", "glsl"};
    static const char *const attacks[] = {"void f()", "evil", "system(", "p[0] = 1", "#include <stdio.h>", "pclr_map(x) 0"};
    size_t cap = 1 << 20;
    char *src = (char *)malloc(cap), *fn = (char *)malloc(1 << 16), *glsl[NROWS];
    double t0 = now_s();
    memset(glsl, 0, sizeof glsl);
    if (!src || !fn) { report(0, "texts: memory"); free(src); free(fn); return; }
    if (g_glslc < 0) {
        g_glslc = system("command -v glslc >/dev/null 2>&1") == 0;
        if (g_glslc) {
            snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/pclr_test_map_XXXXXX");
            if (!mkdtemp(g_tmpdir)) g_glslc = 0;
        }
        if (!g_glslc) SKIP("glslc not found: the GLSL map functions are generated but not compiled (apt-get install glslc)");
    }
    for (k = 0; k < NROWS; ++k) {
        const map_row *r = &g_rows[k];
        pclr_config c = row_config(r, PCLR_SUM, PCLR_NATIVE);
        char why[256], first[2048];
        size_t need = 0, need2 = 0;
        pclr_result res;
        res = pclr_map_check(&c, why, sizeof why);
        report(res == PCLR_OK, "row %d \"%s\": pclr_map_check: %s (%s)", k, r->map, pclr_result_string(res), why);
        report(pclr_reduced_type(&c) == r->want, "row %d \"%s\": pclr_reduced_type %s, want %s", k, r->map, pclr_type_name(pclr_reduced_type(&c)),
               pclr_type_name(r->want));
        for (l = 0; l < 3; ++l) {
            char tiny[8];
            res = pclr_map_source(&c, langs[l], NULL, 0, &need);
            report(res == PCLR_OK && need > 1 && need <= (size_t)(1 << 16), "row %d %s map source size: %s %zu", k, langs[l], pclr_result_string(res), need);
            if (res != PCLR_OK || need > (size_t)(1 << 16)) continue;
            res = pclr_map_source(&c, langs[l], fn, need, &need2);
            report(res == PCLR_OK && need2 == need && strlen(fn) + 1 == need && strstr(fn, "pclr_map("), "row %d %s map source: %s", k, langs[l],
                   pclr_result_string(res));
            memset(tiny, 'q', sizeof tiny);
            res = pclr_map_source(&c, langs[l], tiny, sizeof tiny, NULL);
            report(res == PCLR_ERR_BUFFER_TOO_SMALL && tiny[0] == '\0', "row %d %s map source into 8 bytes: %s", k, langs[l], pclr_result_string(res));
            if (l < 2) { /* the kernel of that language holds this very function, and the map only in comments */
                pclr_config kc = c;
                char opts[256];
                kc.backend = l == 0 ? PCLR_OPENCL : PCLR_CUDA;
                res = pclr_kernel_source(&kc, src, cap, NULL);
                if (!report(res == PCLR_OK, "row %d %s kernel: %s", k, langs[l], pclr_result_string(res))) continue;
                { /* (its helpers may differ: the kernel's 32-bit integer min/max pass through pclr_keep) */
                    const char *def = strstr(fn, " pclr_map(");
                    while (def && def > fn && def[-1] != '\n') --def;
                    report(def && strstr(src, def) != NULL, "row %d %s: the kernel holds pclr_map_source's function", k, langs[l]);
                }
                snprintf(first, sizeof first, "map=\"%s\"", r->map);
                {
                    const char *nl = strchr(src, '\n');
                    const char *at = strstr(src, first);
                    report(at && nl && at < nl, "row %d %s: the kernel's first line repeats the map (%s)", k, langs[l], first);
                }
                /* the map's text only inside comments: as written when the generator would never write it so (no
                   spaces), else with its spaces tripled (the same map; no generated code has "   *   ") */
                if (strlen(r->map) >= 3 && !strchr(r->map, ' ')) {
                    report(only_in_comments(src, r->map), "row %d %s: the map's own text appears only inside comments", k, langs[l]);
                } else if (strchr(r->map, ' ')) {
                    char spaced[1024], *kernel2 = (char *)malloc(cap);
                    size_t a = 0, b;
                    pclr_config c3 = kc;
                    for (b = 0; r->map[b] && a + 4 < sizeof spaced; ++b) {
                        if (r->map[b] == ' ') { memcpy(spaced + a, "   ", 3); a += 3; }
                        else spaced[a++] = r->map[b];
                    }
                    spaced[a] = '\0';
                    c3.map = spaced;
                    if (kernel2 && report(pclr_kernel_source(&c3, kernel2, cap, NULL) == PCLR_OK, "row %d %s: the kernel of \"%s\"", k, langs[l], spaced))
                        report(only_in_comments(kernel2, spaced), "row %d %s: \"%s\" appears only inside comments", k, langs[l], spaced);
                    free(kernel2);
                }
                {
                    size_t a;
                    for (a = 0; a < COUNT(attacks); ++a)
                        report(strstr(src, attacks[a]) == NULL, "row %d %s: no text of a refused map (%s) in the kernel", k, langs[l], attacks[a]);
                }
                if (l == 0) report(strstr(src, "#pragma OPENCL FP_CONTRACT OFF") != NULL, "row %d: the OpenCL kernel turns contraction off", k);
                res = pclr_kernel_options(&kc, opts, sizeof opts, NULL);
                if (l == 1) report(res == PCLR_OK && strstr(opts, "--fmad=false"), "row %d: the CUDA options turn contraction off (%s)", k, opts);
            } else {
                glsl[k] = (char *)malloc(need);
                if (glsl[k]) memcpy(glsl[k], fn, need);
            }
        }
    }
    {   /* the language names, and a config without a map */
        pclr_config c = row_config(&g_rows[0], PCLR_SUM, PCLR_NATIVE);
        size_t need = 0;
        report(pclr_map_source(&c, "hlsl", NULL, 0, &need) == PCLR_ERR_INVALID_ENUM, "pclr_map_source(\"hlsl\") is refused");
        report(pclr_map_source(&c, NULL, NULL, 0, &need) == PCLR_ERR_NULL_POINTER, "pclr_map_source(NULL language)");
        c.map = NULL;
        c.y_type = 0;
        report(pclr_map_source(&c, "opencl", NULL, 0, &need) == PCLR_ERR_INVALID_MAP, "pclr_map_source of a config without a map");
    }
    if (g_glslc) glsl_rows(glsl);
    for (k = 0; k < NROWS; ++k) free(glsl[k]);
    printf("texts: %d rows x 3 languages, %ld failed, %.1fs\n", NROWS, pclr_test_failed - before, now_s() - t0);
    fflush(stdout);
    free(src);
    free(fn);
}

/* ================================================================== the deepest maps */

/* Chains of one operator and term, as long as pclr_map_check takes them (the tree is 64 levels at
   most): the longest is accepted, one more term refused with the column of an operator; the kernels
   of the longest nest fewer than 256 parentheses; on fast devices (all with PCLR_TEST_FULL=1) they
   build and reduce as the reference does. */
typedef struct chain { const char *first, *step; pclr_type x; } chain;
static const chain g_chains[] = {
    {"x", "+x", T_F},              /* floats: one level per operator */
    {"x", "+1", T_I},              /* signed integers: wrapping casts */
    {"x", "-x*2", T_L},
    {"x", "<1", T_I},              /* comparisons: int 0/1 */
    {"-x", "*-x", T_I},
    {"x", "%7+x", T_I},
    {"x", "+1u-x", T_I8},          /* int and uint in turn */
    {"float(x)", "+int(x*0.5f)", T_F},
    {"x", "+x*y", T_D},
};

static void deep_maps(dev *D) {
    size_t k;
    const long before = pclr_test_failed;
    size_t cap = 1 << 20;
    char *src = (char *)malloc(cap), *m = (char *)malloc(PCLR_MAP_MAX_LENGTH + 64), why[256];
    if (!src || !m) { free(src); free(m); return; }
    for (k = 0; k < COUNT(g_chains); ++k) {
        const chain *ch = &g_chains[k];
        pclr_config c;
        size_t len = strlen(ch->first), last_ok = 0;
        int terms = 1, l;
        memset(&c, 0, sizeof c);
        c.type = ch->x;
        c.y_type = strchr(ch->step, 'y') ? ch->x : PCLR_TYPE_DEFAULT;
        c.map = m;
        memcpy(m, ch->first, len + 1);
        while (pclr_map_check(&c, why, sizeof why) == PCLR_OK && len + strlen(ch->step) < PCLR_MAP_MAX_LENGTH) {
            last_ok = len;
            memcpy(m + len, ch->step, strlen(ch->step) + 1);
            len += strlen(ch->step);
            ++terms;
        }
        if (!report(last_ok > 0, "chain %s%s...: the first terms are accepted (%s)", ch->first, ch->step, why)) continue;
        if (len + strlen(ch->step) < PCLR_MAP_MAX_LENGTH) {
            const char *p = strstr(why, "column ");
            const int col = p ? atoi(p + 7) : 0;
            report(col > 0 && (size_t)col <= len && strstr(why, "nests"), "chain %s%s... of %d terms: refused as too deep at a column of the map: %s",
                   ch->first, ch->step, terms, why);
        }
        m[last_ok] = '\0'; /* the longest accepted */
        for (l = 0; l < 2; ++l) {
            pclr_config kc = c;
            kc.backend = l ? PCLR_CUDA : PCLR_OPENCL;
            if (!report(pclr_kernel_source(&kc, src, cap, NULL) == PCLR_OK, "chain %.40s... (%zu characters): the %s kernel", m, last_ok, l ? "cuda" : "opencl"))
                continue;
            if (g_verbose) printf("chain %.30s... (%zu characters, %s): %d nested parentheses\n", m, last_ok, l ? "cuda" : "opencl", paren_depth(src));
            report(paren_depth(src) < 256, "chain %.40s... (%zu characters): the %s kernel nests %d parentheses (clang stops at 256)", m, last_ok,
                   l ? "cuda" : "opencl", paren_depth(src));
        }
        if (D && (g_full || !D->slow_builds || k < 1)) { /* build it, and reduce */
            row_data d;
            map_row r;
            union { pclr_stats_result s; unsigned char b[sizeof(pclr_stats_result) + 32]; } got, ref;
            pclr_result res;
            memset(&r, 0, sizeof r);
            r.map = m;
            r.x = ch->x;
            r.y = c.y_type;
            r.comps = 1;
            r.want = pclr_reduced_type(&c);
            r.ev = NULL;
            if (row_data_make(&d, &r, 1000, g_seed ^ k) && upload(D, &d)) {
                pclr_config rc = c;
                rc.op = PCLR_MAX; /* exact for every map type */
                res = dev_reduce(D, &rc, 3, r.y != 0, 3, 997, NULL, &got);
                pclr_cpu_reduce_map(&rc, d.x + 3 * d.xs, r.y ? d.y + 3 * d.ys : NULL, 997, NULL, &ref);
                report(res == PCLR_OK && same_value(r.want, &got, &ref), "%s: chain %.40s... (%zu characters): %s (%s)", D->name, m, last_ok,
                       pclr_result_string(res), res == PCLR_OK ? "" : pclr_last_error(D->ctx));
            }
            row_data_free(&d);
        }
    }
    printf("deep maps: %d chains at the depth limit, %ld failed\n", (int)COUNT(g_chains), pclr_test_failed - before);
    free(src);
    free(m);
}

/* ================================================================== main */
static int open_context(pclr_backend backend, int platform, int device, dev *D, const char *name) {
    pclr_desc d;
    char why[2048];
    memset(&d, 0, sizeof d);
    memset(D, 0, sizeof *D);
    d.backends[0] = backend;
    d.platform = platform >= 0 ? platform + 1 : 0;
    d.device = device >= 0 ? device + 1 : 0;
    d.error = why;
    d.error_cap = sizeof why;
    why[0] = '\0';
    D->name = name;
    if (pclr_create(&d, &D->ctx) != PCLR_OK) {
        D->ctx = NULL;
        SKIP("no %s context (%s): its part of the test is skipped", pclr_backend_name(backend), why);
        return 0;
    }
    if (backend == PCLR_OPENCL) {
        const char *dev_name = pclr_device_name(D->ctx);
        D->slow_builds = strstr(dev_name, "pthread") || strstr(dev_name, "cpu") || strstr(dev_name, "CPU") || strstr(dev_name, "Portable") ||
                         strstr(dev_name, "basic") || strstr(dev_name, "EPYC") || strstr(dev_name, "Xeon") || strstr(dev_name, "Intel(R) Core");
    }
    if (pclr_buffer_create(D->ctx, 1024, &D->bx) != PCLR_OK || pclr_buffer_create(D->ctx, 1024, &D->by) != PCLR_OK)
        report(0, "%s: two buffers of 1 KiB: %s", name, pclr_last_error(D->ctx));
    printf("%s: backend %s, device %s%s\n", name, pclr_backend_name(pclr_get_backend(D->ctx)), pclr_device_name(D->ctx),
           D->slow_builds ? " (slow builds: a sample of the table)" : "");
    fflush(stdout);
    return 1;
}

static void close_context(dev *D) {
    if (!D->ctx) return;
    pclr_buffer_destroy(D->ctx, D->bx);
    pclr_buffer_destroy(D->ctx, D->by);
    pclr_destroy(D->ctx);
    D->ctx = NULL;
}

int main(int argc, char **argv) {
    const char *env_seed = getenv("PCLR_TEST_SEED"), *env, *backend_name = getenv("PCLR_TEST_BACKEND");
    int platform = -1, device = -1, i, nd = 0;
    pclr_backend backend = PCLR_OPENCL;
    dev cpu, gpu, *all[2];
    const double t0 = now_s();
    (void)pclr_test_check; /* the harness's CHECK: this file counts through report() */
    g_quick = (env = getenv("PCLR_TEST_QUICK")) && *env && *env != '0';
    g_full = (env = getenv("PCLR_TEST_FULL")) && *env && *env != '0';
    if (g_full) g_quick = 0;
    if ((env = getenv("PCLR_CL_PLATFORM"))) platform = atoi(env);
    if ((env = getenv("PCLR_CL_DEVICE"))) device = atoi(env);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend_name = argv[++i];
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) platform = atoi(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = atoi(argv[++i]);
        else if (strcmp(argv[i], "-v") == 0) g_verbose = 1;
        else if (strcmp(argv[i], "--row") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) < NROWS) g_only[atoi(argv[++i])] = 1, g_only_any = 1;
        else if (strcmp(argv[i], "--device-only") == 0) g_device_only = 1;
        else {
            fprintf(stderr, "usage: test_map [--backend opencl|cuda|cpu] [--platform N] [--device N] [--row N]... [--device-only] [-v]\n");
            return 2;
        }
    }
    if (backend_name && (pclr_parse_backend(backend_name, &backend) != PCLR_OK || backend == PCLR_BACKEND_AUTO)) {
        fprintf(stderr, "test_map: backend must be opencl, cuda or cpu\n");
        return 2;
    }
    g_seed = env_seed ? strtoull(env_seed, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20) ^ ((uint64_t)getpid() << 40);
    printf("test_map: seed %llu (PCLR_TEST_SEED=%llu reproduces), mode %s, %d rows, %d refusals\n", (unsigned long long)g_seed,
           (unsigned long long)g_seed, g_full ? "full" : g_quick ? "quick" : "default", NROWS, NREFUSALS);
    {
        uint64_t s = g_seed;
        g_seed = pclr_test_rand(&s);
    }
    fflush(stdout);
    /* the CPU backend: always */
    if (open_context(PCLR_CPU, -1, -1, &cpu, "cpu")) all[nd++] = &cpu;
    memset(&gpu, 0, sizeof gpu);
#ifndef PCLR_TEST_CUDA
    if (backend == PCLR_CUDA) SKIP("--backend cuda: this build has no CUDA backend (compile with -DPCLR_TEST_CUDA and the CUDA headers)");
    else
#endif
    if (backend != PCLR_CPU && open_context(backend, platform, device, &gpu, pclr_backend_name(backend))) all[nd++] = &gpu;
    if (!g_device_only) {
        texts();
        deep_maps(NULL);
        refusals(all, nd);
    }
    if (cpu.ctx && !g_device_only) {
        bad_calls(&cpu);
        params_no_rebuild(&cpu);
        y_alignment(&cpu);
        cpu_table(&cpu, 0, NROWS);
    }
    if (gpu.ctx) {
        const double t1 = now_s();
        if (!g_only_any) {
            params_no_rebuild(&gpu);
            bad_calls(&gpu);
            y_alignment(&gpu);
        }
        device_table(&gpu);
        negation_fold(&gpu);
        deep_maps(&gpu);
        printf("%s: %.1fs, %ld builds\n", gpu.name, now_s() - t1, gpu.builds);
    }
    close_context(&gpu);
    close_context(&cpu);
    if (g_tmpdir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmpdir);
        if (system(cmd) != 0) printf("could not remove %s\n", g_tmpdir);
    }
    printf("test_map: %ld reductions, %.1fs\n", g_runs, now_s() - t0);
    return pclr_test_summary("test_map");
}
#endif /* PCLR_MAP_TABLE_ONLY */
