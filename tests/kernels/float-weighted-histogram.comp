/* pclreduce 0.4.0 kernel: type=float op=histogram backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter, 4 y; push constants: offset, n, offset2, out_at, part_at, p0..p2 */
#version 450
#extension GL_ARB_gpu_shader_int64 : require
/* ---- GLSL 4.50 compute (Vulkan) ---- */
#define pclr_u64 uint64_t
#define PCLR_FN
#define PCLR_BARRIER() barrier()
#define PCLR_LID gl_LocalInvocationID.x
#define PCLR_GROUP_ID uint64_t(gl_WorkGroupID.x)
#define PCLR_NUM_GROUPS uint64_t(gl_NumWorkGroups.x)
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
#define PCLR_COUNTER counter
#define PCLR_CAST(T, x) T(x)
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
    layout(offset = 32) float p0;
    layout(offset = 36) float p1;
    layout(offset = 40) float p2;
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w / 4ul)][uint(w % 4ul)]; }
uint pclr_yw(uint64_t w) { return yv[uint(w / 4ul)][uint(w % 4ul)]; }
/* ---- the map: x ---- */
float pclr_map(float x, float y, uint64_t i, float p0 /* the range's lo */, float p1 /* its hi */, float p2 /* bins / (hi - lo) */) {
    precise float r = x;
    return r;
}
/* ---- the operation: histogram, 64 bins over [lo, hi), weighted by y ---- */
#define pclr_h float /* values are binned in this type */
#define pclr_v pclr_h
#define PCLR_BINS 64u
#define PCLR_ENTRIES (PCLR_BINS + 3u) /* the bins, underflow, overflow, nan */
#define PCLR_LO args.p0
#define PCLR_HI args.p1
#define PCLR_SCALE args.p2 /* bins / (hi - lo) */
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
#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()
#define PCLR_TOTAL_ADD(j, c) atomicAdd(pw[args.part_at + (j)], (c))
#define PCLR_TOTAL(j) pw[args.part_at + (j)]
#define PCLR_OUT(j) outw[args.out_at + (j)]
/* c more in entry k of the launch's counts */
#define PCLR_ADD_TOTAL(k, c) PCLR_ADD_COUNT(PCLR_TOTAL_ADD, 2u * (k), c)
shared uint hist[PCLR_ENTRIES]; /* the group's counts */
/* ---- the weights: each entry's exact sum of its y, a 320-bit two's complement integer in units of
   2^-149 (the float quantum): ten 32-bit digits, a flags word (1: +inf, 2: -inf, 4: NaN), a spare ---- */
#define PCLR_DIGITS 10u
#define PCLR_WORDS 12u
#define PCLR_WAT (2u * PCLR_ENTRIES) /* the launch's sums, after its counts */
#define PCLR_TOTAL_OR(j, c) atomicOr(pw[args.part_at + (j)], (c))
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
shared uint wsum[PCLR_WSUM_WORDS];
#define PCLR_WSUM_ADD(j, c) atomicAdd(wsum[j], (c))
#define PCLR_WSUM_OR(j, c) atomicOr(wsum[j], (c))
/* x added to digit j of the sum at word `at`, carrying into the digits above (ADD: the words' atomic addition,
   which returns the old word): the carry is one more atomic, and only a digit j + 1 of all ones (seldom) carries on,
   in a loop apart (a loop of atomics on the common path kept an H200's warps apart: 53-75x slower) */
#define PCLR_DIGIT_ADD(ADD, at, j, x) do { const uint x_ = (x), j_ = (j); \
    if (x_ != 0u && ADD((at) + j_, x_) + x_ < x_ && j_ + 1u < PCLR_DIGITS && ADD((at) + j_ + 1u, 1u) == 0xFFFFFFFFu) \
        for (uint c_ = j_ + 2u; c_ < PCLR_DIGITS && ADD((at) + c_, 1u) == 0xFFFFFFFFu; ++c_) {} \
} while (false)
/* v counted, and its weight w, a float m 2^(p - 149) (m < 2^24: two digits at most), added to its entry's sum */
#define PCLR_WEIGH(v, w) do { \
    const uint k_ = PCLR_BIN(v), b_ = floatBitsToUint(w), e_ = (b_ >> 23) & 255u; \
    const uint at_ = (b_ >> 31) != 0u ? PCLR_NEG + k_ * PCLR_DIGITS : k_ * PCLR_WORDS; \
    atomicAdd(hist[k_], 1u); \
    if (e_ == 255u) PCLR_WSUM_OR(k_ * PCLR_WORDS + PCLR_DIGITS, (b_ & 0x7FFFFFu) != 0u ? 4u : (b_ >> 31) != 0u ? 2u : 1u); \
    else { \
        const uint m_ = e_ != 0u ? (b_ & 0x7FFFFFu) | 0x800000u : b_ & 0x7FFFFFu, p_ = e_ != 0u ? e_ - 1u : 0u, s_ = p_ & 31u; \
        PCLR_DIGIT_ADD(PCLR_WSUM_ADD, at_, p_ >> 5, m_ << s_); \
        if (s_ > 8u) PCLR_DIGIT_ADD(PCLR_WSUM_ADD, at_, (p_ >> 5) + 1u, m_ >> (32u - s_)); \
    } \
} while (false)
shared bool is_last;
void pclr_count_load(pclr_in_x v, pclr_in_y v2, uint64_t i) {
    PCLR_WEIGH(pclr_v(pclr_map(float(uintBitsToFloat(v[0])), float(uintBitsToFloat(v2[0])), i + 0ul, args.p0, args.p1, args.p2)), float(uintBitsToFloat(v2[0])));
    PCLR_WEIGH(pclr_v(pclr_map(float(uintBitsToFloat(v[1])), float(uintBitsToFloat(v2[1])), i + 1ul, args.p0, args.p1, args.p2)), float(uintBitsToFloat(v2[1])));
    PCLR_WEIGH(pclr_v(pclr_map(float(uintBitsToFloat(v[2])), float(uintBitsToFloat(v2[2])), i + 2ul, args.p0, args.p1, args.p2)), float(uintBitsToFloat(v2[2])));
    PCLR_WEIGH(pclr_v(pclr_map(float(uintBitsToFloat(v[3])), float(uintBitsToFloat(v2[3])), i + 3ul, args.p0, args.p1, args.p2)), float(uintBitsToFloat(v2[3])));
}
#define PCLR_FOLD(acc, v, i) pclr_count_load((v).x, (v).y, (i))
/* the element at relative index r */
pclr_h pclr_value_at(uint64_t r) { return pclr_v(pclr_map(float(uintBitsToFloat(pclr_xw((args.offset + r)))), float(uintBitsToFloat(pclr_yw((args.offset2 + r)))), r, args.p0, args.p1, args.p2)); }
float pclr_weight_at(uint64_t r) { return float(uintBitsToFloat(pclr_yw((args.offset2 + r)))); }
#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(pclr_value_at(i), pclr_weight_at(i))
struct pclr_in { pclr_in_x x; pclr_in_y y; }; /* one load: words of x and of y */
pclr_in pclr_load(uint64_t j, uint64_t j2) { pclr_in r; r.x = xv[uint(j)]; r.y = yv[uint(j2)]; return r; }
#define PCLR_LOAD(j) pclr_load(pv + (j), qv + (j))
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, n = args.n, offset2 = args.offset2;
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    for (uint k = lid; k < PCLR_WSUM_WORDS; k += PCLR_GROUP) wsum[k] = 0u;
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;
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
        is_last = atomicAdd(counter, 1u) == groups - 1ul;
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
        PCLR_OUT(8u) = floatBitsToUint(PCLR_LO);
        PCLR_OUT(9u) = 0u;
        PCLR_OUT(10u) = floatBitsToUint(PCLR_HI);
        PCLR_OUT(11u) = 0u;
        PCLR_COUNTER = 0u;
    }
}
