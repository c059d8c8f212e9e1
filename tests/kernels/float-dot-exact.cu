/* pclreduce 0.4.0 kernel: type=float op=sum backend=cuda accumulate=exact wave=32 group=256 unroll=4 vector=4 stride=global variant=shuffle finish=last_group groups_per_unit=8 map="x*y" map_type=float y_type=float
   entry: pclr_reduce(in, offset, n, out, partials, counter, in2, offset2) */
/* ---- CUDA C (NVRTC) ---- */
typedef unsigned int uint;
typedef unsigned long long pclr_u64;
#define PCLR_KERNEL extern "C" __global__ __launch_bounds__(PCLR_GROUP)
#define PCLR_GLOBAL
#define PCLR_LOCAL
#define PCLR_RESTRICT __restrict__ /* read-only loads */
#define PCLR_SHARED __shared__
#define PCLR_FN static __device__ __forceinline__
#define PCLR_BARRIER() __syncthreads()
#define PCLR_LID ((uint)threadIdx.x)
#define PCLR_GROUP_ID ((pclr_u64)blockIdx.x)
#define PCLR_NUM_GROUPS ((pclr_u64)gridDim.x)
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_YREF PCLR_GLOBAL const pclr_t2 *
#define PCLR_YAT(e) (in2 + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_ELEMENT_AT(p) ((pclr_u64)(p) / sizeof(pclr_t))
#define PCLR_VREF PCLR_GLOBAL const pclr_vec *
#define PCLR_VAT(p) ((PCLR_GLOBAL const pclr_vec *)(p))
#define PCLR_V2REF PCLR_GLOBAL const pclr_vec2 *
#define PCLR_V2AT(p) ((PCLR_GLOBAL const pclr_vec2 *)(p))
typedef long long pclr_i64;
/* Release/acquire between groups: fence.acq_rel is the light fence for that
   pattern (__threadfence is a sequentially consistent fence.sc). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define PCLR_DEVICE_FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#else
#define PCLR_DEVICE_FENCE() __threadfence()
#endif
#define PCLR_WAVE 32
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
typedef float pclr_t;
struct __align__(16) pclr_vec { pclr_t s[4]; }; /* 16-byte loads */
typedef float pclr_t2;
struct __align__(16) pclr_vec2 { pclr_t2 s[4]; }; /* 16-byte loads */
/* ---- the map: x*y ---- */
PCLR_FN float pclr_map(pclr_t x, pclr_t2 y, pclr_u64 i) {
    return (x * y);
}
#define PCLR_MAP(x, y, i) pclr_map((x), (y), (i))
/* ---- the operation: sum, accumulate exact ----
   The exact sum of the elements, rounded once (nearest, ties to even). */
typedef float pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
#define PCLR_ATOMIC_ADD64(a, v) atomicAdd((unsigned long long *)&(a), (unsigned long long)(v))
#define PCLR_ATOMIC_OR(a, v) atomicOr(&(a), (v))
#define PCLR_ATOMIC_MIN(a, v) atomicMin(&(a), (v))
#define PCLR_ATOMIC_MAX(a, v) atomicMax(&(a), (v))
#define PCLR_BITS(d) ((pclr_u64)__double_as_longlong(d))
#define PCLR_CLZ(x) __clz((int)(x))
typedef float pclr_r; /* the result */
#define PCLR_RESULT(b) __int_as_float((int)(uint)(b))
#define PCLR_COLD static __device__ __noinline__ /* the rare path: one copy, called */
/* at most 64 registers (1024 work-items a multiprocessor): the rare paths' spill, not the loads' */
#undef PCLR_KERNEL
#define PCLR_KERNEL extern "C" __global__ __launch_bounds__(PCLR_GROUP, 1024 / PCLR_GROUP)
#define PCLR_EQ(a, b) ((a) == (b))
#define PCLR_PRECISE
#define PCLR_CAST(t, x) ((t)(x))
#define PCLR_DIGIT 0xffffffff
#define PCLR_M52 ((pclr_u64)0xfffffffffffff)
/* the group's cells and specials word, passed on as pointers */
#define PCLR_CELLS_PARAMS , PCLR_LOCAL pclr_i64 *cells, PCLR_LOCAL uint *specials
#define PCLR_CELLS_ARGS , cells, specials
#define PCLR_SPECIALS (*specials)
#define PCLR_GROUP_CELLS , cells, &specials
#define PCLR_LDS_PARAM , PCLR_LOCAL pclr_acc *lds
#define PCLR_GROUP_LDS , lds
/* the launch's cells (the kernel's total), then the flags word */
#define PCLR_TOTAL(k) total[k]
#define PCLR_TOTAL_VOLATILE(k) ((PCLR_GLOBAL volatile pclr_i64 *)total)[k]
#define PCLR_FLAGS (*(PCLR_GLOBAL uint *)(total + PCLR_CELLS))
#define PCLR_FLAGS_VOLATILE (*(PCLR_GLOBAL volatile uint *)(total + PCLR_CELLS))
#define PCLR_COUNTER (*counter)
#define PCLR_STORE_RESULT(r) out[0] = (r)
/* The superaccumulator: cell k holds a 32-bit digit of weight 2^(32 k - 160),
   carried in 64 bits: deposits add signed pieces under 2^32 to it. */
#define PCLR_CELLS 12
#define PCLR_CELL_EMIN (-160)
/* the result's precision; its smallest and largest ulp, in bits of the cells */
#define PCLR_MANT 24
#define PCLR_SUB_ULP 11
#define PCLR_TOP_ULP 264
/* t += x, checked: exact stays 1 only if the addition did not round. With
   |t| >= |x|, s - t is exact (Fast2Sum) and equals x exactly when s = t + x;
   with |x| > |t| the same holds for s - x and t. inf and NaN fail the test. */
#define PCLR_ADD_CHECKED(t, x, exact) do { PCLR_PRECISE const double s_ = (t) + (x), d_ = s_ - (t), f_ = s_ - (x); \
    (exact) &= PCLR_EQ(d_, (x)) & PCLR_EQ(f_, (t)); (t) = s_; } while (false)
/* Knuth's TwoSum: s + x becomes s and its rounding error e, exactly (inf, NaN
   or an overflow make e NaN) */
#define PCLR_TWO_SUM(s, x, e) do { PCLR_PRECISE const double ts_ = (s) + (x), tv_ = ts_ - (s), \
    te_ = ((s) - (ts_ - tv_)) + ((x) - tv_); (e) = te_; (s) = ts_; } while (false)
/* A finite double d = m 2^q (m < 2^53 an integer) as signed pieces of the
   cells: m lands at bit p = q - PCLR_CELL_EMIN, in cells p/32 .. p/32 + 2. */
typedef struct pclr_pieces { int k; pclr_i64 p0, p1, p2; } pclr_pieces;
PCLR_FN pclr_pieces pclr_pieces_of(double d) {
    const pclr_u64 b = PCLR_BITS(d);
    const int e = PCLR_CAST(int, b >> 52) & 0x7ff;
    pclr_u64 m = (b & PCLR_M52) | (PCLR_CAST(pclr_u64, e != 0) << 52);
    int p = (e != 0 ? e : 1) - 1075 - PCLR_CELL_EMIN;
    pclr_pieces r;
    if (p < 0) { m >>= -p; p = 0; } /* below 2^-160: float data has zeros there */
    const int sh = p & 31;
    const pclr_u64 w = m << sh, top = sh != 0 ? m >> (64 - sh) : 0; /* m 2^sh: 85 bits */
    r.k = p >> 5;
    r.p0 = PCLR_CAST(pclr_i64, w & PCLR_DIGIT);
    r.p1 = PCLR_CAST(pclr_i64, w >> 32);
    r.p2 = PCLR_CAST(pclr_i64, top);
    if ((b >> 63) != 0) { r.p0 = -r.p0; r.p1 = -r.p1; r.p2 = -r.p2; }
    return r;
}
/* One value into the group's cells; inf and NaN set flags instead (1 NaN, 2 +inf, 4 -inf). */
PCLR_COLD void pclr_put(double x PCLR_CELLS_PARAMS) {
    PCLR_PRECISE const double z = x - x; /* 0, or NaN for inf and NaN */
    if (z != 0) {
        PCLR_ATOMIC_OR(PCLR_SPECIALS, x != x ? 1u : x > 0 ? 2u : 4u);
    } else if (x != 0) {
        const pclr_pieces q = pclr_pieces_of(x);
        if (q.p0 != 0) PCLR_ATOMIC_ADD64(cells[q.k], q.p0);
        if (q.p1 != 0) PCLR_ATOMIC_ADD64(cells[q.k + 1], q.p1);
        if (q.p2 != 0) PCLR_ATOMIC_ADD64(cells[q.k + 2], q.p2);
    }
}
/* A running sum, exact in double (float elements are doubles with 24-bit mantissas). */
typedef double pclr_acc;
#define pclr_acc_zero() 0.0
#define pclr_put_acc pclr_put
/* Two running sums into one; the rounding error (TwoSum) goes into the cells. */
PCLR_FN pclr_acc pclr_merge(pclr_acc a, pclr_acc b PCLR_CELLS_PARAMS) {
    double e;
    PCLR_TWO_SUM(a, b, e); /* (no overflow: |a|, |b| < 2^159) */
    if (e != 0) pclr_put(e PCLR_CELLS_ARGS);
    return a;
}
/* ---- level 1's running sums: one per lane of a loaded vector, so that the lanes add
   independently (SIMD on CPUs: OpenCL vector types) ---- */
typedef struct pclr_values { double s[4]; } pclr_values;
typedef pclr_values pclr_lanes;
PCLR_FN pclr_lanes pclr_lanes_zero(void) {
    pclr_lanes t;
    t.s[0] = 0.0;
    t.s[1] = 0.0;
    t.s[2] = 0.0;
    t.s[3] = 0.0;
    return t;
}
PCLR_FN pclr_values pclr_values_make(double x0, double x1, double x2, double x3) {
    pclr_values x;
    x.s[0] = x0;
    x.s[1] = x1;
    x.s[2] = x2;
    x.s[3] = x3;
    return x;
}
#define PCLR_VALUES_OF(v, i) pclr_values_make(PCLR_VALUE(PCLR_MAP((v).x.s[0], (v).y.s[0], (i))), PCLR_VALUE(PCLR_MAP((v).x.s[1], (v).y.s[1], (i) + 1)), \
    PCLR_VALUE(PCLR_MAP((v).x.s[2], (v).y.s[2], (i) + 2)), PCLR_VALUE(PCLR_MAP((v).x.s[3], (v).y.s[3], (i) + 3)))
/* ---- a round kept by its bound (pclr__gen_exact_bound): no partial sum reaches
   2^(Elow - 993), where 2^(Elow - 1046) divides every value the lanes hold ---- */
typedef uint pclr_hw;
#define PCLR_HI2(d) ((uint)__double2hiint(d) << 1)
#define PCLR_HW_NONE ((pclr_hw)0xffffffffu)
#define PCLR_WARP_MASK() __activemask()
#define PCLR_WARP_JOIN(m) __syncwarp(m)
/* t += x lane by lane; top and low take x's exponents */
#define PCLR_ADD_BOUNDED(t, x, top, low) do { \
    { const uint h_ = PCLR_HI2((x).s[0]); PCLR_PRECISE const double s_ = (t).s[0] + (x).s[0]; (t).s[0] = s_; \
      (top) = max((top), h_); (low) = min((low), h_ - 1u); } \
    { const uint h_ = PCLR_HI2((x).s[1]); PCLR_PRECISE const double s_ = (t).s[1] + (x).s[1]; (t).s[1] = s_; \
      (top) = max((top), h_); (low) = min((low), h_ - 1u); } \
    { const uint h_ = PCLR_HI2((x).s[2]); PCLR_PRECISE const double s_ = (t).s[2] + (x).s[2]; (t).s[2] = s_; \
      (top) = max((top), h_); (low) = min((low), h_ - 1u); } \
    { const uint h_ = PCLR_HI2((x).s[3]); PCLR_PRECISE const double s_ = (t).s[3] + (x).s[3]; (t).s[3] = s_; \
      (top) = max((top), h_); (low) = min((low), h_ - 1u); } \
} while (false)
/* the lanes' largest exponent */
#define PCLR_TOP_OF(t) max(max(max(PCLR_HI2((t).s[0]), PCLR_HI2((t).s[1])), PCLR_HI2((t).s[2])), PCLR_HI2((t).s[3]))
/* whether a round's partial sums, below 2^3 2^(Etop - 1022), are exact */
#define PCLR_BOUNDED(top, low) ((top) < 0xffe00000u && ((top) >> 21) + 3u <= ((low) >> 21) + 29u)
/* The lanes into the cells; they restart from 0. */
PCLR_COLD pclr_lanes pclr_spill_lanes(pclr_lanes t PCLR_CELLS_PARAMS) {
    pclr_put(t.s[0] PCLR_CELLS_ARGS);
    pclr_put(t.s[1] PCLR_CELLS_ARGS);
    pclr_put(t.s[2] PCLR_CELLS_ARGS);
    pclr_put(t.s[3] PCLR_CELLS_ARGS);
    return pclr_lanes_zero();
}
/* ---- the second tier: a round that fails its bound adds error-free: each lane's s by TwoSum, the
   errors into c (one double, checked); s + c stays the exact sum ---- */
typedef struct pclr_pair { pclr_lanes s; double c; } pclr_pair;
#define PCLR_ADD_TWO(t, x, c, exact) do { \
    { double e_; PCLR_TWO_SUM((t).s[0], (x).s[0], e_); PCLR_ADD_CHECKED(c, e_, exact); } \
    { double e_; PCLR_TWO_SUM((t).s[1], (x).s[1], e_); PCLR_ADD_CHECKED(c, e_, exact); } \
    { double e_; PCLR_TWO_SUM((t).s[2], (x).s[2], e_); PCLR_ADD_CHECKED(c, e_, exact); } \
    { double e_; PCLR_TWO_SUM((t).s[3], (x).s[3], e_); PCLR_ADD_CHECKED(c, e_, exact); } \
} while (false)
/* One vector into s + c error-free; an error that does not fit c (or inf, NaN): s, c and the values
   into the cells (inf and NaN set flags), restarting from 0. */
PCLR_COLD pclr_pair pclr_fold_two(pclr_pair p, pclr_values x PCLR_CELLS_PARAMS) {
    pclr_pair t = p;
    int exact = 1;
    PCLR_ADD_TWO(t.s, x, t.c, exact);
    if (exact != 0) return t;
    pclr_put(p.c PCLR_CELLS_ARGS);
    pclr_spill_lanes(x PCLR_CELLS_ARGS); /* (a vector of values is a pclr_lanes) */
    t.s = pclr_spill_lanes(p.s PCLR_CELLS_ARGS);
    t.c = 0.0;
    return t;
}
#define PCLR_FOLD_TWO(p, v, i) (p) = pclr_fold_two((p), PCLR_VALUES_OF(v, i) PCLR_GROUP_CELLS)
/* the second tier's errors into the cells, before the lanes' sum */
#define PCLR_TIER_OUT() if (err != 0.0) pclr_put(err PCLR_GROUP_CELLS)
/* One element into lane 0 (the head and the tail); one that would round goes into the cells with the lane. */
PCLR_COLD pclr_lanes pclr_spill_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {
    pclr_put(acc.s[0] PCLR_CELLS_ARGS);
    pclr_put(x PCLR_CELLS_ARGS);
    acc.s[0] = 0.0;
    return acc;
}
PCLR_FN pclr_lanes pclr_fold_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {
    int exact = 1;
    double s = acc.s[0];
    PCLR_ADD_CHECKED(s, x, exact);
    if (exact == 0) return pclr_spill_one(acc, x PCLR_CELLS_ARGS);
    acc.s[0] = s;
    return acc;
}
/* The lanes into one running sum: TwoSum merges, their errors into the cells. */
PCLR_FN pclr_acc pclr_lanes_sum(pclr_lanes t PCLR_CELLS_PARAMS) {
    pclr_acc a = t.s[0];
    a = pclr_merge(a, t.s[1] PCLR_CELLS_ARGS);
    a = pclr_merge(a, t.s[2] PCLR_CELLS_ARGS);
    a = pclr_merge(a, t.s[3] PCLR_CELLS_ARGS);
    return a;
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), PCLR_VALUE(PCLR_MAP((x), q[i], (i))) PCLR_GROUP_CELLS)
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
#define PCLR_SHFL_DOWN(v, delta) __shfl_down_sync(0xffffffffu, (v), (delta))
/* lanes below delta merge their partner's sum: lane 0 gets the wave's */
PCLR_FN pclr_acc pclr_wave_sum(pclr_acc v, uint width PCLR_CELLS_PARAMS) {
    const uint lane = PCLR_LID % PCLR_WAVE;
#pragma unroll
    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1) {
        const pclr_acc o = PCLR_SHFL_DOWN(v, delta);
        if (delta < width && lane < delta) v = pclr_merge(v, o PCLR_CELLS_ARGS);
    }
    return v;
}
PCLR_FN pclr_acc pclr_group_sum(pclr_acc acc PCLR_LDS_PARAM PCLR_CELLS_PARAMS) {
    const uint lid = PCLR_LID;
    acc = pclr_wave_sum(acc, PCLR_WAVE PCLR_CELLS_ARGS);
    if (lid % PCLR_WAVE == 0) lds[lid / PCLR_WAVE] = acc;
    PCLR_BARRIER();
    if (lid < PCLR_WAVE) {
        acc = lid < PCLR_GROUP / PCLR_WAVE ? lds[lid] : pclr_acc_zero();
        acc = pclr_wave_sum(acc, PCLR_GROUP / PCLR_WAVE PCLR_CELLS_ARGS);
    }
    return acc;
}
/* ---- the result: the cells' exact sum, rounded to nearest (ties to even) ----
   flags: any NaN, or +inf with -inf, gives NaN; else an infinity gives itself.
   cells[lo..hi] are the nonzero cells (cells[hi + 1] is 0 and may be written). */
#define PCLR_SIGN_BIT ((pclr_u64)1 << 31)
#define PCLR_INF_BITS ((pclr_u64)0x7f800000)
#define PCLR_NAN_BITS ((pclr_u64)0x7fc00000)
PCLR_FN pclr_r pclr_round(int lo, int hi, uint flags PCLR_CELLS_PARAMS) {
    if ((flags & 1) != 0 || (flags & 6) == 6) return PCLR_RESULT(PCLR_NAN_BITS);
    if (flags != 0) return PCLR_RESULT(flags == 2 ? PCLR_INF_BITS : PCLR_SIGN_BIT | PCLR_INF_BITS);
    if (hi < 0) return PCLR_RESULT(0); /* an exact zero is +0, as 0 elements give */
    /* carries up: each cell keeps a digit in [0, 2^32); the last carry (0 or -1) is the sign */
    pclr_i64 carry = 0;
    int k;
    for (k = lo; k <= hi + 1; ++k) {
        const pclr_i64 v = cells[k] + carry;
        cells[k] = v & PCLR_DIGIT;
        carry = v >> 32;
    }
    const bool neg = carry < 0;
    if (neg) { /* the magnitude: the digits' two's complement */
        pclr_i64 borrow = 1;
        for (k = lo; k <= hi + 1; ++k) {
            const pclr_i64 v = (~cells[k] & PCLR_DIGIT) + borrow;
            cells[k] = v & PCLR_DIGIT;
            borrow = v >> 32;
        }
    }
    int top = hi + 1;
    while (top > lo && cells[top] == 0) --top;
    if (cells[top] == 0) return PCLR_RESULT(0); /* exact cancellation */
    /* the result's ulp, in bits of the cells: PCLR_MANT bits below the leading one, or the subnormal ulp */
    const int msb = 32 * top + 31 - PCLR_CLZ(cells[top]);
    const int ulp = msb - (PCLR_MANT - 1) > PCLR_SUB_ULP ? msb - (PCLR_MANT - 1) : PCLR_SUB_ULP;
    const pclr_u64 sign = neg ? PCLR_SIGN_BIT : 0;
    if (ulp > PCLR_TOP_ULP) return PCLR_RESULT(sign | PCLR_INF_BITS);
    /* 64 bits from the guard bit (the one below the ulp) up; the sticky bit: any lower one */
    const int gk = (ulp - 1) >> 5, gs = (ulp - 1) & 31;
    const pclr_u64 d0 = PCLR_CAST(pclr_u64, cells[gk]), d1 = gk + 1 <= top ? PCLR_CAST(pclr_u64, cells[gk + 1]) : 0,
                   d2 = gk + 2 <= top ? PCLR_CAST(pclr_u64, cells[gk + 2]) : 0;
    const pclr_u64 w = ((d1 << 32 | d0) >> gs) | (gs != 0 ? d2 << (64 - gs) : 0);
    int sticky = PCLR_CAST(int, (d0 & ((PCLR_CAST(pclr_u64, 1) << gs) - 1)) != 0);
    for (k = lo; k < gk; ++k) sticky |= PCLR_CAST(int, cells[k] != 0);
    pclr_u64 kept = w >> 1;
    if ((w & 1) != 0 && (sticky != 0 || (kept & 1) != 0)) kept += 1;
    /* exponent field and mantissa in one sum: kept's leading bit (or a carry
       out of the rounding) steps the exponent; past the largest value it gives inf */
    return PCLR_RESULT(sign | ((PCLR_CAST(pclr_u64, ulp - PCLR_SUB_ULP) << (PCLR_MANT - 1)) + kept));
}
typedef struct pclr_in { pclr_vec x; pclr_vec2 y; } pclr_in; /* one load: a vector of x and one of y */
PCLR_FN pclr_in pclr_load(PCLR_GLOBAL const pclr_vec *pv, PCLR_GLOBAL const pclr_vec2 *qv, pclr_u64 j) {
    pclr_in r;
    r.x = pv[j];
    r.y = qv[j];
    return r;
}
#define PCLR_LOAD(j) pclr_load(pv, qv, (j))
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,
                             PCLR_GLOBAL pclr_r *out, PCLR_GLOBAL pclr_i64 *total,
                             PCLR_GLOBAL uint *counter,
                             PCLR_GLOBAL const pclr_t2 *PCLR_RESTRICT in2, pclr_u64 offset2) {
    /* the launch's cells (PCLR_TOTAL), then a word of specials flags; zero between launches */
    PCLR_SHARED pclr_acc lds[PCLR_GROUP / PCLR_WAVE];
    PCLR_SHARED pclr_i64 cells[PCLR_CELLS + 1]; /* the group's (+1: room for the rounding's carry) */
    PCLR_SHARED uint specials;
    PCLR_SHARED int cell_lo, cell_hi;
    PCLR_SHARED uint is_last;
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    pclr_lanes acc = pclr_lanes_zero();
    for (uint k = lid; k <= PCLR_CELLS; k += PCLR_GROUP) cells[k] = 0;
    if (lid == 0) {
        specials = 0;
        cell_lo = PCLR_CELLS;
        cell_hi = -1;
    }
    PCLR_BARRIER();
    PCLR_YREF q = PCLR_YAT(offset2); /* y, element for element with x */
    /* Level 1, in-thread. Elements before the first vector-aligned address form the head. */
    pclr_u64 head = (PCLR_VECTOR - PCLR_ELEMENT_AT(p) % PCLR_VECTOR) % PCLR_VECTOR;
    if (head > n) head = n;
    if (thread < head) PCLR_FOLD1(acc, PCLR_LD(p, thread), thread);
    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;
    PCLR_VREF pv = PCLR_VAT(p + head);
    PCLR_V2REF qv = PCLR_V2AT(q + head); /* the host saw that y lines up */
    /* grid stride: consecutive work-items read consecutive vectors */
    const pclr_u64 stride = groups * PCLR_GROUP, end = nvec;
    pclr_u64 i = thread;
    pclr_hw low = thread < head ? PCLR_CAST(pclr_hw, 0u) : PCLR_HW_NONE; /* (a head element: the first round spills) */
    double err = 0.0; /* the second tier's errors; slow: rounds in a row that failed their bound */
    uint slow = 0u;
    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {
        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */
        const uint warp = PCLR_WARP_MASK(); /* the work-items on this round together */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);
        /* the round's additions, kept when its bound shows that none rounded (nearly always) */
        pclr_lanes t = acc;
        pclr_hw top = PCLR_TOP_OF(acc), fresh = PCLR_HW_NONE; /* fresh: the round's values' low */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_ADD_BOUNDED(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), top, fresh);
        const pclr_hw both = min(low, fresh);
        if (PCLR_BOUNDED(top, both)) {
            acc = t;
            low = both;
            slow = 0u;
        } else { /* the round again by the second tier, vector by vector from memory (cached); after a round
                    that failed alone, and every 16th in a row, the lanes go into the cells so that the next
                    rounds are kept by their bound again (lanes that have rounded have no low: 0) */
            pclr_pair p;
            p.s = acc;
            p.c = err;
#pragma unroll 1
            for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_FOLD_TWO(p, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);
            err = p.c;
            if (slow++ % 16u == 0u) {
                acc = pclr_spill_lanes(p.s PCLR_GROUP_CELLS);
                low = PCLR_HW_NONE;
            } else {
                acc = p.s;
                low = PCLR_CAST(pclr_hw, 0u);
            }
        }
        PCLR_WARP_JOIN(warp);
    }
    /* The last, partial round (fewer than PCLR_UNROLL vectors left): the same loads, all in flight,
       clamped to a valid index, added under a guard and kept by the round's bound, else the second tier. */
    if (i < end) {
        pclr_in v[PCLR_UNROLL - 1];
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL - 1; ++k) v[k] = PCLR_LOAD(i + k * stride < end ? i + k * stride : i);
        pclr_lanes t = acc;
        pclr_hw top = PCLR_TOP_OF(acc), fresh = PCLR_HW_NONE;
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL - 1; ++k)
            if (i + k * stride < end) PCLR_ADD_BOUNDED(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), top, fresh);
        if (PCLR_BOUNDED(top, min(low, fresh))) {
            acc = t;
        } else {
            pclr_pair p;
            p.s = acc;
            p.c = err;
#pragma unroll 1
            for (uint k = 0; k < PCLR_UNROLL - 1; ++k)
                if (i + k * stride < end) PCLR_FOLD_TWO(p, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);
            acc = p.s;
            err = p.c;
        }
    }
    /* the tail: fewer than PCLR_VECTOR elements after the last whole vector */
    if (nvec * PCLR_VECTOR + thread < rest) PCLR_FOLD1(acc, PCLR_LD(p, head + nvec * PCLR_VECTOR + thread), head + nvec * PCLR_VECTOR + thread);
    /* Level 2, in-group. */
    PCLR_TIER_OUT();
    pclr_acc sum = pclr_lanes_sum(acc PCLR_GROUP_CELLS);
    sum = pclr_group_sum(sum PCLR_GROUP_LDS PCLR_GROUP_CELLS);
    /* Level 3: the group's sum joins its cells, which go into the launch's cells. */
    if (lid == 0) pclr_put_acc(sum PCLR_GROUP_CELLS);
    PCLR_BARRIER();
    for (uint k = lid; k < PCLR_CELLS; k += PCLR_GROUP) {
        /* a cell's digit plus the carry of the cell below: a group adds under 2^33 per cell */
        const pclr_i64 d = (cells[k] & PCLR_DIGIT) + (k > 0 ? cells[k - 1] >> 32 : 0);
        if (d != 0) PCLR_ATOMIC_ADD64(PCLR_TOTAL(k), d);
    }
    if (lid == 0 && specials != 0) PCLR_ATOMIC_OR(PCLR_FLAGS, specials);
    if (lid < PCLR_CELLS) PCLR_DEVICE_FENCE(); /* release: the group's atomics before its ticket */
    PCLR_BARRIER();
    if (lid == 0) {
        is_last = atomicAdd(counter, 1u) == groups - 1;
        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the thread that read the ticket */
    }
    PCLR_BARRIER();
    if (!is_last) return;
    /* the last group: the launch's cells into local memory (zeroed for the next launch), rounded */
    PCLR_DEVICE_FENCE();
    for (uint k = lid; k < PCLR_CELLS; k += PCLR_GROUP) {
        const pclr_i64 v = PCLR_TOTAL_VOLATILE(k);
        cells[k] = v;
        PCLR_TOTAL(k) = 0;
        if (v != 0) {
            PCLR_ATOMIC_MIN(cell_lo, PCLR_CAST(int, k));
            PCLR_ATOMIC_MAX(cell_hi, PCLR_CAST(int, k));
        }
    }
    PCLR_BARRIER();
    if (lid == 0) {
        const uint sp = PCLR_FLAGS_VOLATILE;
        PCLR_FLAGS_VOLATILE = 0;
        PCLR_STORE_RESULT(pclr_round(cell_lo, cell_hi, sp PCLR_GROUP_CELLS));
        PCLR_COUNTER = 0;
    }
}
