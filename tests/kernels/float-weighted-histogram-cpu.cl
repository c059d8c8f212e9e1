/* pclreduce 0.4.0 kernel: type=float op=histogram backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=4 stride=local variant=unrolled finish=last_group groups_per_unit=8
   entry: pclr_reduce(in, offset, n, out, partials, counter, in2, offset2, p0..p2) */
/* ---- OpenCL C ---- */
typedef ulong pclr_u64;
#define PCLR_KERNEL __kernel
#define PCLR_GLOBAL __global
#define PCLR_RESTRICT restrict
#define PCLR_SHARED __local
#define PCLR_FN static inline
#define PCLR_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PCLR_LID ((uint)get_local_id(0))
#define PCLR_GROUP_ID ((pclr_u64)get_group_id(0))
#define PCLR_NUM_GROUPS ((pclr_u64)get_num_groups(0))
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
#define PCLR_COUNTER (*counter)
#define PCLR_CAST(T, x) ((T)(x))
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
#define PCLR_VECTOR 4
typedef float pclr_t;
typedef float4 pclr_vec; /* 16-byte loads */
typedef float pclr_t2;
typedef float4 pclr_vec2; /* 16-byte loads */
#pragma OPENCL FP_CONTRACT OFF /* a map's a * b + c rounds twice, as C and the CPU reference do */
/* ---- the map: x ---- */
PCLR_FN float pclr_map(pclr_t x, pclr_t2 y, pclr_u64 i, float p0 /* the range's lo */, float p1 /* its hi */, float p2 /* bins / (hi - lo) */) {
    return x;
}
#define PCLR_MAP(x, y, i) pclr_map((x), (y), (i), p0, p1, p2)
/* ---- the operation: histogram, 64 bins over [lo, hi), weighted by y ---- */
typedef float pclr_h; /* values are binned in this type */
#define PCLR_BINS 64u
#define PCLR_ENTRIES (PCLR_BINS + 3u) /* the bins, underflow, overflow, nan */
#define PCLR_LO p0
#define PCLR_HI p1
#define PCLR_SCALE p2 /* bins / (hi - lo) */
/* The entry value v counts in: its bin (v - lo) * scale, rounded down, or underflow, overflow, nan. */
PCLR_FN uint pclr_bin(pclr_h v, pclr_h lo, pclr_h hi, pclr_h scale) {
    if (v != v) return PCLR_BINS + 2u;
    if (v < lo) return PCLR_BINS;
    if (v >= hi) return PCLR_BINS + 1u;
    const uint k = PCLR_CAST(uint, (v - lo) * scale);
    return k < PCLR_BINS ? k : PCLR_BINS - 1u; /* (just below hi, rounded up) */
}
#define PCLR_BIN(v) pclr_bin(PCLR_CAST(pclr_h, v), PCLR_LO, PCLR_HI, PCLR_SCALE)
/* entry k's low and high words in the state: the bins from word 12, underflow, overflow, nan from word 2 */
#define PCLR_AT(k) ((k) < PCLR_BINS ? 12u + 2u * (k) : 2u + 2u * ((k) - PCLR_BINS))
/* c more in the 64-bit count at words j, j + 1 (ADD: their atomic addition, which returns the old word):
   the low word, and its carry into the high one */
#define PCLR_ADD_COUNT(ADD, j, c) do { const uint c_ = (c), j_ = (j); \
    if (ADD(j_, c_) + c_ < c_) ADD(j_ + 1u, 1u); } while (false)
#define PCLR_TOTAL_ADD(j, c) atomic_add(total + (j), (c))
#define PCLR_TOTAL(j) ((PCLR_GLOBAL volatile uint *)total)[j]
#define PCLR_OUT(j) out[j]
/* c more in entry k of the launch's counts */
#define PCLR_ADD_TOTAL(k, c) PCLR_ADD_COUNT(PCLR_TOTAL_ADD, 2u * (k), c)
/* a CPU's work-item counts in bins of its own (no atomics; a set per lane of a load), added into the
   group's at the end */
#define PCLR_WAYS 1
/* ---- the weights: each entry's exact sum of its y, a 320-bit two's complement integer in units of
   2^-149 (the float quantum): ten 32-bit digits, a flags word (1: +inf, 2: -inf, 4: NaN), a spare ---- */
#define PCLR_DIGITS 10u
#define PCLR_WORDS 12u
#define PCLR_WAT (2u * PCLR_ENTRIES) /* the launch's sums, after its counts */
#define PCLR_TOTAL_OR(j, c) atomic_or(total + (j), (c))
/* the group's sums: the positive weights' (digits and flags, PCLR_WORDS an entry), then the negative's magnitudes
   (PCLR_DIGITS an entry, from PCLR_NEG): both only grow, so a carry seldom goes past the next digit (a
   two's complement sum near 0 borrows through every digit above, a chain of atomics) */
#define PCLR_NEG (PCLR_ENTRIES * PCLR_WORDS)
#define PCLR_WSUM_WORDS (PCLR_ENTRIES * (PCLR_WORDS + PCLR_DIGITS))
/* digit j of entry k's sum (two's complement) into d: the positive digit less the negative, borrowing (b) */
#define PCLR_WSUM_DIGIT(k, j, b, d) do { \
    const uint p_ = wsum[(k) * PCLR_WORDS + (j)], n_ = wsum[PCLR_NEG + (k) * PCLR_DIGITS + (j)]; \
    d = p_ - n_ - b; \
    b = p_ < n_ || (p_ == n_ && b != 0u) ? 1u : 0u; \
} while (false)
#define PCLR_WSUM_ADD(j, c) atomic_add(wsum + (j), (c))
#define PCLR_WSUM_OR(j, c) atomic_or(wsum + (j), (c))
/* x added to digit j of the sum at word `at`, carrying into the digits above (ADD: the words' atomic addition,
   which returns the old word): the carry is one more atomic, and only a digit j + 1 of all ones (seldom) carries on,
   in a loop apart (a loop of atomics on the common path kept an H200's warps apart: 53-75x slower) */
#define PCLR_DIGIT_ADD(ADD, at, j, x) do { const uint x_ = (x), j_ = (j); \
    if (x_ != 0u && ADD((at) + j_, x_) + x_ < x_ && j_ + 1u < PCLR_DIGITS && ADD((at) + j_ + 1u, 1u) == 0xFFFFFFFFu) \
        for (uint c_ = j_ + 2u; c_ < PCLR_DIGITS && ADD((at) + c_, 1u) == 0xFFFFFFFFu; ++c_) {} \
} while (false)
typedef long pclr_i64;
/* entry k counted, and the weight of bits b, a float m 2^(p - 149) (m < 2^24), added to its sum: the part of
   m 2^(p mod 32) below 2^32 to word p / 32, the rest (0 where m fits) to the next; no branch on the sign */
static __attribute__((noinline)) void pclr_weigh(uint *count, pclr_i64 *wmine, uint *wflags, uint k, uint b) {
    const uint e = (b >> 23) & 255u, m = e != 0u ? (b & 0x7FFFFFu) | 0x800000u : b & 0x7FFFFFu, p = e != 0u ? e - 1u : 0u;
    const uint s = p & 31u, at = k * PCLR_DIGITS + (p >> 5);
    const pclr_i64 sign = PCLR_CAST(pclr_i64, 1) - PCLR_CAST(pclr_i64, (b >> 31) << 1); /* 1 or -1 */
    ++count[k];
    if (e == 255u) {
        wflags[k] |= (b & 0x7FFFFFu) != 0u ? 4u : (b >> 31) != 0u ? 2u : 1u;
        return;
    }
    wmine[at] += sign * PCLR_CAST(pclr_i64, m << s);
    wmine[at + 1u] += sign * PCLR_CAST(pclr_i64, s > 8u ? m >> (32u - s) : 0u);
}
#define PCLR_WEIGH(v, w) pclr_weigh(mine[0], wmine, wflags, PCLR_BIN(v), as_uint(w))
#define PCLR_FOLD(acc, v, i) do { \
    PCLR_WEIGH(PCLR_MAP((v).x.s0, (v).y.s0, (i)), (v).y.s0); \
    PCLR_WEIGH(PCLR_MAP((v).x.s1, (v).y.s1, (i) + 1), (v).y.s1); \
    PCLR_WEIGH(PCLR_MAP((v).x.s2, (v).y.s2, (i) + 2), (v).y.s2); \
    PCLR_WEIGH(PCLR_MAP((v).x.s3, (v).y.s3, (i) + 3), (v).y.s3); \
} while (false)
#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(PCLR_MAP((x), q[i], (i)), q[i])
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
                             PCLR_GLOBAL uint *out, PCLR_GLOBAL uint *total, PCLR_GLOBAL uint *counter,
                             PCLR_GLOBAL const pclr_t2 *PCLR_RESTRICT in2, pclr_u64 offset2,
                             float p0, float p1, float p2) {
    PCLR_SHARED uint hist[PCLR_ENTRIES]; /* the group's counts */
    PCLR_SHARED uint wsum[PCLR_WSUM_WORDS]; /* and the sums of their weights */
    PCLR_SHARED uint is_last;
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    uint mine[PCLR_WAYS][PCLR_ENTRIES]; /* this work-item's counts */
    pclr_i64 wmine[PCLR_ENTRIES * PCLR_DIGITS]; /* and sums */
    uint wflags[PCLR_ENTRIES];
    for (uint k = lid; k < PCLR_WSUM_WORDS; k += PCLR_GROUP) wsum[k] = 0u;
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;
    PCLR_BARRIER();
    for (uint k = 0u; k < PCLR_ENTRIES; ++k)
        for (uint w = 0u; w < PCLR_WAYS; ++w) mine[w][k] = 0u;
    for (uint k = 0u; k < PCLR_ENTRIES * PCLR_DIGITS; ++k) wmine[k] = 0;
    for (uint k = 0u; k < PCLR_ENTRIES; ++k) wflags[k] = 0u;
    PCLR_YREF q = PCLR_YAT(offset2); /* y, element for element with x */
    /* Level 1, in-thread. Elements before the first vector-aligned address form the head. */
    pclr_u64 head = (PCLR_VECTOR - PCLR_ELEMENT_AT(p) % PCLR_VECTOR) % PCLR_VECTOR;
    if (head > n) head = n;
    if (thread < head) PCLR_FOLD1(acc, PCLR_LD(p, thread), thread);
    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;
    PCLR_VREF pv = PCLR_VAT(p + head);
    PCLR_V2REF qv = PCLR_V2AT(q + head); /* the host saw that y lines up */
    /* local stride: work-item t walks its own contiguous block of vectors (CPU-friendly) */
    const pclr_u64 block = (nvec + groups * PCLR_GROUP - 1) / (groups * PCLR_GROUP), stride = 1;
    pclr_u64 i = thread * block;
    const pclr_u64 end = i + block < nvec ? i + block : nvec;
    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {
        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) v[k] = PCLR_LOAD(i + k * stride);
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) PCLR_FOLD(acc, v[k], head + (i + k * stride) * PCLR_VECTOR);
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
    /* Level 2: the group's counts into the launch's. */
    for (uint k = 0u; k < PCLR_ENTRIES; ++k) {
        uint m = 0u;
        for (uint w = 0u; w < PCLR_WAYS; ++w) m += mine[w][k];
        if (m != 0u) atomic_add(hist + k, m);
    }
    for (uint k = 0u; k < PCLR_ENTRIES; ++k) { /* and its sums, normalized digit by digit, into the group's */
        pclr_i64 carry = 0;
        for (uint j = 0u; j < PCLR_DIGITS; ++j) {
            const pclr_i64 t = wmine[k * PCLR_DIGITS + j] + carry;
            const uint d = PCLR_CAST(uint, t);
            carry = (t - PCLR_CAST(pclr_i64, d)) / (PCLR_CAST(pclr_i64, 1) << 32); /* (exact: a multiple of 2^32) */
            PCLR_DIGIT_ADD(PCLR_WSUM_ADD, k * PCLR_WORDS, j, d);
        }
        if (wflags[k] != 0u) PCLR_WSUM_OR(k * PCLR_WORDS + PCLR_DIGITS, wflags[k]);
    }
    PCLR_BARRIER();
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP)
        if (hist[k] != 0u) PCLR_ADD_TOTAL(k, hist[k]);
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) { /* the sums' digits, each with its carries */
        const uint at = k * PCLR_WORDS;
        uint b = 0u, d;
        for (uint j = 0u; j < PCLR_DIGITS; ++j) {
            PCLR_WSUM_DIGIT(k, j, b, d);
            PCLR_DIGIT_ADD(PCLR_TOTAL_ADD, PCLR_WAT + at, j, d);
        }
        if (wsum[at + PCLR_DIGITS] != 0u) PCLR_TOTAL_OR(PCLR_WAT + at + PCLR_DIGITS, wsum[at + PCLR_DIGITS]);
    }
    /* Level 3: the last group writes the launch's counts into the state and zeroes them. */
    PCLR_DEVICE_FENCE(); /* release: the group's counts before its ticket */
    PCLR_BARRIER();
    if (lid == 0) {
        is_last = atomic_inc(counter) == groups - 1;
        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the work-item that read the ticket */
    }
    PCLR_BARRIER();
    if (!is_last) return;
    PCLR_DEVICE_FENCE();
    for (uint k = lid; k < PCLR_ENTRIES * PCLR_WORDS; k += PCLR_GROUP) { /* the sums, after the counts */
        PCLR_OUT(12u + 2u * PCLR_BINS + k) = PCLR_TOTAL(PCLR_WAT + k);
        PCLR_TOTAL(PCLR_WAT + k) = 0u;
    }
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) {
        const uint lo = PCLR_TOTAL(2u * k), hi = PCLR_TOTAL(2u * k + 1u);
        PCLR_TOTAL(2u * k) = 0u; /* for the next launch */
        PCLR_TOTAL(2u * k + 1u) = 0u;
        const uint at = PCLR_AT(k);
        PCLR_OUT(at) = lo;
        PCLR_OUT(at + 1u) = hi;
    }
    if (lid == 0) { /* the bins, then lo and hi in the compute type */
        PCLR_OUT(0u) = PCLR_BINS;
        PCLR_OUT(1u) = 1u; /* weighted */
        PCLR_OUT(8u) = as_uint(PCLR_LO);
        PCLR_OUT(9u) = 0u;
        PCLR_OUT(10u) = as_uint(PCLR_HI);
        PCLR_OUT(11u) = 0u;
        PCLR_COUNTER = 0u;
    }
}
