/* pclreduce 0.4.0 kernel: type=double op=sum backend=opencl accumulate=exact wave=32 group=256 unroll=4 vector=2 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: pclr_reduce(in, offset, n, out, partials, counter) */
/* ---- OpenCL C ---- */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef ulong pclr_u64;
#define PCLR_KERNEL __kernel
#define PCLR_GLOBAL __global
#define PCLR_LOCAL __local
#define PCLR_RESTRICT restrict
#define PCLR_SHARED __local
#define PCLR_FN static inline
#define PCLR_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PCLR_LID ((uint)get_local_id(0))
#define PCLR_GROUP_ID ((pclr_u64)get_group_id(0))
#define PCLR_NUM_GROUPS ((pclr_u64)get_num_groups(0))
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_ELEMENT_AT(p) ((pclr_u64)(p) / sizeof(pclr_t))
#define PCLR_VREF PCLR_GLOBAL const pclr_vec *
#define PCLR_VAT(p) ((PCLR_GLOBAL const pclr_vec *)(p))
/* Orders a group's partial before its ticket, device-wide. */
#if __OPENCL_C_VERSION__ >= 200
#define PCLR_DEVICE_FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device)
#elif defined(cl_nv_pragma_unroll)
#define PCLR_DEVICE_FENCE() asm volatile("membar.gl;")
#else
#define PCLR_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 2
typedef double pclr_t;
typedef double2 pclr_vec; /* 16-byte loads */
/* ---- the operation: sum, accumulate exact ----
   The exact sum of the elements, rounded once (nearest, ties to even). */
typedef double pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef long pclr_i64;
#define PCLR_ATOMIC_ADD64(a, v) atom_add(&(a), (v))
#define PCLR_ATOMIC_OR(a, v) atomic_or(&(a), (v))
#define PCLR_ATOMIC_MIN(a, v) atomic_min(&(a), (v))
#define PCLR_ATOMIC_MAX(a, v) atomic_max(&(a), (v))
#define PCLR_BITS(d) as_ulong(d)
#define PCLR_CLZ(x) ((int)clz((uint)(x)))
typedef double pclr_r; /* the result */
#define PCLR_RESULT(b) as_double((ulong)(b))
/* PoCL 3 (LLVM 15) loses the local-memory atomics of a function called both inside
   and outside a function with barriers, unless it is inlined: inline them all */
#ifdef __clang__
#undef PCLR_FN
#define PCLR_FN static inline __attribute__((always_inline))
#endif
#define PCLR_COLD PCLR_FN
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
/* The superaccumulator: cell k holds a 32-bit digit of weight 2^(32 k - 1088),
   carried in 64 bits: deposits add signed pieces under 2^32 to it. */
#define PCLR_CELLS 69
#define PCLR_CELL_EMIN (-1088)
/* the result's precision; its smallest and largest ulp, in bits of the cells */
#define PCLR_MANT 53
#define PCLR_SUB_ULP 14
#define PCLR_TOP_ULP 2059
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
/* A running sum: s, and the exact sum c of the rounding errors of s. */
typedef struct pclr_acc { double s, c; } pclr_acc;
PCLR_FN pclr_acc pclr_acc_zero(void) { pclr_acc a; a.s = 0.0; a.c = 0.0; return a; }
PCLR_FN void pclr_put_acc(pclr_acc a PCLR_CELLS_PARAMS) {
    pclr_put(a.s PCLR_CELLS_ARGS);
    pclr_put(a.c PCLR_CELLS_ARGS);
}
/* Two running sums into one: s by TwoSum, its error into c, checked; a merge
   that would round puts the four parts into the cells. */
PCLR_FN pclr_acc pclr_merge(pclr_acc a, pclr_acc b PCLR_CELLS_PARAMS) {
    pclr_acc t = a;
    double e;
    int exact = 1;
    PCLR_TWO_SUM(t.s, b.s, e);
    PCLR_ADD_CHECKED(t.c, b.c, exact);
    PCLR_ADD_CHECKED(t.c, e, exact);
    if (exact != 0) return t;
    pclr_put_acc(a PCLR_CELLS_ARGS);
    pclr_put_acc(b PCLR_CELLS_ARGS);
    return pclr_acc_zero();
}
/* ---- level 1's running sums: one per lane of a loaded vector, so that the lanes add
   independently (SIMD on CPUs: OpenCL vector types) ---- */
typedef double2 pclr_values;
typedef long2 pclr_mask; /* comparisons: -1 true */
#define PCLR_MASK_ALL ((pclr_mask)(-1))
#define PCLR_ALL(m) all(m)
typedef struct pclr_lanes { pclr_values s, c; } pclr_lanes;
PCLR_FN pclr_lanes pclr_lanes_zero(void) {
    pclr_lanes t;
    t.s.s0 = 0.0;
    t.c.s0 = 0.0;
    t.s.s1 = 0.0;
    t.c.s1 = 0.0;
    return t;
}
#define PCLR_VALUES_OF(v, i) (v)
/* t += x lane by lane: s by TwoSum, its error into c, checked as PCLR_ADD_CHECKED */
#define PCLR_ADD_LANES(t, x, exact) do { \
    const pclr_values u_ = (t).s + (x), v_ = u_ - (t).s, e_ = ((t).s - (u_ - v_)) + ((x) - v_), c_ = (t).c + e_; \
    (exact) &= ((c_ - (t).c) == e_) & ((c_ - e_) == (t).c); (t).s = u_; (t).c = c_; } while (0)
/* A vector that would round: the lanes and the values go into the cells, and the
   lanes restart from 0 (rare for most data). */
PCLR_COLD pclr_lanes pclr_spill(pclr_lanes t, pclr_values v PCLR_CELLS_PARAMS) {
    const double x[6] = {t.s.s0, t.c.s0, t.s.s1, t.c.s1, v.s0, v.s1};
#pragma unroll 1
    for (int k = 0; k < 6; ++k) pclr_put(x[k] PCLR_CELLS_ARGS);
    return pclr_lanes_zero();
}
/* One vector into the lanes, checked; a vector that would round is spilled. */
PCLR_FN pclr_lanes pclr_fold_vector(pclr_lanes acc, pclr_values x PCLR_CELLS_PARAMS) {
    pclr_lanes t = acc;
    pclr_mask exact = PCLR_MASK_ALL;
    PCLR_ADD_LANES(t, x, exact);
    return PCLR_ALL(exact) ? t : pclr_spill(acc, x PCLR_CELLS_ARGS);
}
/* One element into lane 0 (the head and the tail); one that would round goes into the cells with the lane. */
PCLR_COLD pclr_lanes pclr_spill_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {
    pclr_put(acc.s.s0 PCLR_CELLS_ARGS);
    pclr_put(acc.c.s0 PCLR_CELLS_ARGS);
    pclr_put(x PCLR_CELLS_ARGS);
    acc.s.s0 = 0.0;
    acc.c.s0 = 0.0;
    return acc;
}
PCLR_FN pclr_lanes pclr_fold_one(pclr_lanes acc, double x PCLR_CELLS_PARAMS) {
    int exact = 1;
    double s = acc.s.s0, c = acc.c.s0, e;
    PCLR_TWO_SUM(s, x, e);
    PCLR_ADD_CHECKED(c, e, exact);
    if (exact == 0) return pclr_spill_one(acc, x PCLR_CELLS_ARGS);
    acc.s.s0 = s;
    acc.c.s0 = c;
    return acc;
}
/* The lanes into one running sum: TwoSum merges, their errors into the cells. */
PCLR_FN pclr_acc pclr_lanes_sum(pclr_lanes t PCLR_CELLS_PARAMS) {
    pclr_acc a, b;
    a.s = t.s.s0;
    a.c = t.c.s0;
    b.s = t.s.s1;
    b.c = t.c.s1;
    a = pclr_merge(a, b PCLR_CELLS_ARGS);
    return a;
}
#define PCLR_FOLD(acc, v, i) (acc) = pclr_fold_vector((acc), PCLR_VALUES_OF(v, i) PCLR_GROUP_CELLS)
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), PCLR_VALUE((x)) PCLR_GROUP_CELLS)
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
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
#define PCLR_SIGN_BIT ((pclr_u64)1 << 63)
#define PCLR_INF_BITS ((pclr_u64)0x7ff0000000000000)
#define PCLR_NAN_BITS ((pclr_u64)0x7ff8000000000000)
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
typedef pclr_vec pclr_in; /* one load: a vector of x */
#define PCLR_LOAD(j) pv[j]
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,
                             PCLR_GLOBAL pclr_r *out, PCLR_GLOBAL pclr_i64 *total,
                             PCLR_GLOBAL uint *counter) {
    /* the launch's cells (PCLR_TOTAL), then a word of specials flags; zero between launches */
    PCLR_SHARED pclr_acc lds[PCLR_GROUP];
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
    /* Level 1, in-thread. Elements before the first vector-aligned address form the head. */
    pclr_u64 head = (PCLR_VECTOR - PCLR_ELEMENT_AT(p) % PCLR_VECTOR) % PCLR_VECTOR;
    if (head > n) head = n;
    if (thread < head) PCLR_FOLD1(acc, PCLR_LD(p, thread), thread);
    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;
    PCLR_VREF pv = PCLR_VAT(p + head);
    /* grid stride: consecutive work-items read consecutive vectors */
    const pclr_u64 stride = groups * PCLR_GROUP, end = nvec;
    pclr_u64 i = thread;
    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {
        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);
        /* the round's additions, each checked: kept when none rounded (nearly always) */
        pclr_lanes t = acc;
        pclr_mask exact = PCLR_MASK_ALL;
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_ADD_LANES(t, PCLR_VALUES_OF(v[k], head + (i + k * stride) * PCLR_VECTOR), exact);
        if (PCLR_ALL(exact)) {
            acc = t;
        } else { /* again vector by vector, from memory (cached): those that would round spill */
#pragma unroll 1
            for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_FOLD(acc, PCLR_LOAD(i + k * stride), head + (i + k * stride) * PCLR_VECTOR);
        }
    }
    /* The last, partial round (fewer than PCLR_UNROLL vectors left): the same loads,
       all in flight, clamped to a valid index and folded under a guard. */
    if (i < end) {
        pclr_in v[PCLR_UNROLL - 1];
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL - 1; ++k) v[k] = PCLR_LOAD(i + k * stride < end ? i + k * stride : i);
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL - 1; ++k)
            if (i + k * stride < end) PCLR_FOLD(acc, v[k], head + (i + k * stride) * PCLR_VECTOR);
    }
    /* the tail: fewer than PCLR_VECTOR elements after the last whole vector */
    if (nvec * PCLR_VECTOR + thread < rest) PCLR_FOLD1(acc, PCLR_LD(p, head + nvec * PCLR_VECTOR + thread), head + nvec * PCLR_VECTOR + thread);
    /* Level 2, in-group. */
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
        is_last = atomic_inc(counter) == groups - 1;
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
