/* pclreduce 0.4.0 kernel: type=float op=sum backend=vulkan accumulate=exact wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=last_group groups_per_unit=8 map="x*y" map_type=float y_type=float
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter, 4 y; push constants: offset, n, offset2, out_at, part_at */
#version 450
#extension GL_ARB_gpu_shader_int64 : require
/* ---- GLSL 4.50 compute (Vulkan) ---- */
#define pclr_u64 uint64_t
#define PCLR_XREF uint64_t
#define PCLR_XAT(e) (e)
#define PCLR_YREF uint64_t
#define PCLR_YAT(e) (e)
#define PCLR_LD(p, k) pclr_x((p) + (k))
#define PCLR_ELEMENT_AT(p) (p)
#define PCLR_VREF uint64_t
#define PCLR_VAT(p) ((p) / PCLR_VECTOR)
#define PCLR_V2REF uint64_t
#define PCLR_V2AT(p) ((p) / PCLR_VECTOR)
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uvec4 /* one load of x: 16 bytes */
layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };
layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };
layout(std430, set = 0, binding = 3) coherent buffer pclr_counter_word { uint counter; };
#define pclr_in_y uvec4 /* one load of y: 16 bytes */
layout(std430, set = 0, binding = 4) readonly buffer pclr_y_words { pclr_in_y yv[]; };
layout(push_constant) uniform pclr_args_block {
    layout(offset = 0) uint64_t offset;   /* x's first element, counted from the binding's start */
    layout(offset = 8) uint64_t n;
    layout(offset = 16) uint64_t offset2; /* y's first element */
    layout(offset = 24) uint out_at;      /* out's first word */
    layout(offset = 28) uint part_at;     /* the atomic finish's word in the partials */
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w / 4ul)][uint(w % 4ul)]; }
uint pclr_yw(uint64_t w) { return yv[uint(w / 4ul)][uint(w % 4ul)]; }
/* ---- the map: x*y ---- */
float pclr_map(float x, float y, uint64_t i) {
    precise float r = (x * y);
    return r;
}
/* ---- the operation: sum, accumulate exact ----
   The exact sum of the elements, rounded once (nearest, ties to even). */
#extension GL_EXT_shader_atomic_int64 : require
#define pclr_i64 int64_t
#define pclr_v double /* the values, in double */
#define PCLR_FN
#define PCLR_COLD
#define PCLR_SHARED shared
#define PCLR_PRECISE precise
#define PCLR_LID gl_LocalInvocationID.x
#define PCLR_GROUP_ID uint64_t(gl_WorkGroupID.x)
#define PCLR_NUM_GROUPS uint64_t(gl_NumWorkGroups.x)
#define PCLR_BARRIER() barrier()
#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()
#define PCLR_EQ(a, b) int((a) == (b))
#define PCLR_CAST(t, x) t(x)
#define PCLR_DIGIT 0xffffffffl
#define PCLR_M52 0xffffffffffffful
#define PCLR_ATOMIC_ADD64(a, v) atomicAdd((a), (v))
#define PCLR_ATOMIC_OR(a, v) atomicOr((a), (v))
#define PCLR_ATOMIC_MIN(a, v) atomicMin((a), (v))
#define PCLR_ATOMIC_MAX(a, v) atomicMax((a), (v))
#define PCLR_BITS(d) doubleBitsToUint64(d)
#define PCLR_CLZ(x) (31 - findMSB(uint(x)))
#define pclr_r uint64_t /* the result's bits */
#define PCLR_RESULT(b) uint64_t(b)
/* the group's cells and specials are the shared variables below */
#define PCLR_CELLS_PARAMS
#define PCLR_CELLS_ARGS
#define PCLR_SPECIALS specials
#define PCLR_GROUP_CELLS
#define PCLR_LDS_PARAM
#define PCLR_GROUP_LDS
/* the launch's cells from word args.part_at of the partials, then the flags word */
layout(std430, set = 0, binding = 2) coherent buffer pclr_cell_words { int64_t pclr_total[]; };
#define PCLR_TOTAL(k) pclr_total[args.part_at / 2u + (k)]
#define PCLR_TOTAL_VOLATILE(k) PCLR_TOTAL(k)
#define PCLR_FLAGS pw[args.part_at + 2u * PCLR_CELLS]
#define PCLR_FLAGS_VOLATILE PCLR_FLAGS
#define PCLR_COUNTER counter
void pclr_store_result(uint64_t b) { outw[args.out_at] = uint(b); }
#define PCLR_STORE_RESULT(r) pclr_store_result(r)
/* The superaccumulator: cell k holds a 32-bit digit of weight 2^(32 k - 160),
   carried in 64 bits: deposits add signed pieces under 2^32 to it. */
#define PCLR_CELLS 12
#define PCLR_CELL_EMIN (-160)
/* the result's precision; its smallest and largest ulp, in bits of the cells */
#define PCLR_MANT 24
#define PCLR_SUB_ULP 11
#define PCLR_TOP_ULP 264
PCLR_SHARED pclr_i64 cells[PCLR_CELLS + 1]; /* the group's (+1: room for the rounding's carry) */
PCLR_SHARED uint specials;
PCLR_SHARED int cell_lo, cell_hi;
PCLR_SHARED bool is_last;
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
struct pclr_pieces { int k; pclr_i64 p0, p1, p2; };
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
#define pclr_acc double
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
struct pclr_values { double s[4]; };
#define pclr_lanes pclr_values
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
pclr_values pclr_values_of(pclr_in_x v, pclr_in_y v2, uint64_t i) {
    return pclr_values_make(pclr_v(pclr_map(float(uintBitsToFloat(v[0])), float(uintBitsToFloat(v2[0])), i + 0ul)),
                            pclr_v(pclr_map(float(uintBitsToFloat(v[1])), float(uintBitsToFloat(v2[1])), i + 1ul)),
                            pclr_v(pclr_map(float(uintBitsToFloat(v[2])), float(uintBitsToFloat(v2[2])), i + 2ul)),
                            pclr_v(pclr_map(float(uintBitsToFloat(v[3])), float(uintBitsToFloat(v2[3])), i + 3ul)));
}
#define PCLR_VALUES_OF(v, i) pclr_values_of((v).x, (v).y, (i))
/* the element at relative index r */
double pclr_value_at(uint64_t r) { return pclr_v(pclr_map(float(uintBitsToFloat(pclr_xw((args.offset + r)))), float(uintBitsToFloat(pclr_yw((args.offset2 + r)))), r)); }
/* ---- a round kept by its bound (pclr__gen_exact_bound): no partial sum reaches
   2^(Elow - 993), where 2^(Elow - 1046) divides every value the lanes hold ---- */
#define pclr_hw uint
#define PCLR_HI2(d) (unpackDouble2x32(d).y << 1)
#define PCLR_HW_NONE 0xffffffffu
#define PCLR_WARP_MASK() 0u /* (SPIR-V's structured branches join at their merge) */
#define PCLR_WARP_JOIN(m)
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
struct pclr_pair { pclr_lanes s; double c; };
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
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), pclr_value_at(i) PCLR_GROUP_CELLS)
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
PCLR_SHARED pclr_acc lds[PCLR_GROUP];
PCLR_FN pclr_acc pclr_group_sum(pclr_acc acc PCLR_LDS_PARAM PCLR_CELLS_PARAMS) {
    const uint lid = PCLR_LID;
    lds[lid] = acc;
    PCLR_BARRIER();
    /* the divergence-free tree */
#pragma unroll
    for (uint s = PCLR_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s] PCLR_CELLS_ARGS);
        PCLR_BARRIER();
    }
    return acc;
}
/* ---- the result: the cells' exact sum, rounded to nearest (ties to even) ----
   flags: any NaN, or +inf with -inf, gives NaN; else an infinity gives itself.
   cells[lo..hi] are the nonzero cells (cells[hi + 1] is 0 and may be written). */
#define PCLR_SIGN_BIT 0x80000000ul
#define PCLR_INF_BITS 0x7f800000ul
#define PCLR_NAN_BITS 0x7fc00000ul
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
struct pclr_in { pclr_in_x x; pclr_in_y y; }; /* one load: words of x and of y */
pclr_in pclr_load(uint64_t j, uint64_t j2) { pclr_in r; r.x = xv[uint(j)]; r.y = yv[uint(j2)]; return r; }
#define PCLR_LOAD(j) pclr_load(pv + (j), qv + (j))
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, n = args.n, offset2 = args.offset2;
    /* the launch's cells (PCLR_TOTAL), then a word of specials flags; zero between launches */
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
