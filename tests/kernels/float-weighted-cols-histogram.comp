/* pclreduce 0.4.0 kernel: type=float op=histogram backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 map="x * y" map_type=float y_type=float layout=columns lanes=256
   entry: main; bindings 0 x, 1 out, 2 partials, 3 ctl, 4 y, 5 offsets; push constants: offset, n, offset2, out_at, part_at, rows, cols, pitch, split, p0..p2 */
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
#define PCLR_CAST(T, x) T(x)
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uint /* one load of x: 4 bytes */
layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };
layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };
layout(std430, set = 0, binding = 3) coherent buffer pclr_ctl_words { uint ctl[]; }; /* [0] the segments' status, [1 + k] tickets */
layout(std430, set = 0, binding = 5) readonly buffer pclr_offset_words { uint64_t pclr_offsets[]; }; /* segments' */
#define pclr_in_y uint /* one load of y: 4 bytes */
layout(std430, set = 0, binding = 4) readonly buffer pclr_y_words { pclr_in_y yv[]; };
layout(push_constant) uniform pclr_args_block {
    layout(offset = 0) uint64_t offset;   /* x's first element, counted from the binding's start */
    layout(offset = 8) uint64_t n;
    layout(offset = 16) uint64_t offset2; /* y's first element */
    layout(offset = 24) uint out_at;      /* out's first word */
    layout(offset = 28) uint part_at;     /* the atomic finish's word in the partials */
    layout(offset = 32) uint64_t rows;
    layout(offset = 40) uint64_t cols;
    layout(offset = 48) uint64_t pitch;
    layout(offset = 56) uint64_t split;
    layout(offset = 64) float p0;
    layout(offset = 68) float p1;
    layout(offset = 72) float p2;
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w)]; }
uint pclr_yw(uint64_t w) { return yv[uint(w)]; }
/* ---- the map: x * y ---- */
float pclr_map(float x, float y, uint64_t i, float p0 /* the range's lo */, float p1 /* its hi */, float p2 /* bins / (hi - lo) */) {
    precise float r = (x * y);
    return r;
}
/* ---- the operation: histogram, 8 bins over [lo, hi), weighted by y ---- */
#define pclr_h float /* values are binned in this type */
#define pclr_v pclr_h
#define PCLR_BINS 8u
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
#define PCLR_STATE_WORDS 160u /* a result's state */
/* ---- the weights: each entry's exact sum of its y, a 320-bit two's complement integer in units of
   2^-149 (the float quantum): ten 32-bit digits, a flags word (1: +inf, 2: -inf, 4: NaN), a spare ---- */
#define PCLR_DIGITS 10u
#define PCLR_WORDS 12u
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
#define PCLR_OUT(j) outw[args.out_at + uint(base) + (j)]
shared uint hist[PCLR_ENTRIES]; /* the group's counts */
#define pclr_t float /* the map's input */
pclr_t pclr_x(uint64_t e) { return float(uintBitsToFloat(pclr_xw((e)))); }
float pclr_y(uint64_t e) { return float(uintBitsToFloat(pclr_yw((e)))); }
#define PCLR_FOLD1(acc, x, i) PCLR_WEIGH(pclr_v(pclr_map((x), pclr_y(q + (i) * pitch), (i), args.p0, args.p1, args.p2)), pclr_y(q + (i) * pitch))
/* Column r: rows elements from element r, pitch apart. */
#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r); (len) = rows; }
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch;
    const uint lid = PCLR_LID;
    const pclr_u64 groups = PCLR_NUM_GROUPS, results = cols;
    for (pclr_u64 r = PCLR_GROUP_ID; r < results; r += groups) {
        const pclr_u64 base = r * PCLR_STATE_WORDS;
        pclr_u64 lo, len;
        PCLR_ROW_BOUNDS(r, lo, len);
        PCLR_XREF p = PCLR_XAT(offset + lo);
        PCLR_YREF q = PCLR_YAT(offset2 + lo);
        for (uint k = lid; k < PCLR_WSUM_WORDS; k += PCLR_GROUP) wsum[k] = 0u;
        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;
        PCLR_BARRIER();
        pclr_u64 j = lid;
        for (; j + (PCLR_UNROLL - 1) * PCLR_GROUP < len; j += PCLR_UNROLL * PCLR_GROUP) {
            pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_GROUP) * pitch);
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        if (j < len) {
            pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, ((j + u * PCLR_GROUP < len ? j + u * PCLR_GROUP : j)) * pitch);
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                if (j + u * PCLR_GROUP < len) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        PCLR_BARRIER();
        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) { /* the sums */
            const uint at = 12u + 2u * PCLR_BINS + k * PCLR_WORDS;
            uint b = 0u, d;
            for (uint j = 0u; j < PCLR_DIGITS; ++j) {
                PCLR_WSUM_DIGIT(k, j, b, d);
                PCLR_OUT(at + j) = d;
            }
            PCLR_OUT(at + PCLR_DIGITS) = wsum[k * PCLR_WORDS + PCLR_DIGITS];
            PCLR_OUT(at + PCLR_DIGITS + 1u) = 0u;
        }
        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) {
            const uint at = PCLR_AT(k);
            PCLR_OUT(at) = hist[k];
            PCLR_OUT(at + 1u) = 0u;
        }
        if (lid == 0) { /* the bins, then lo and hi in the compute type */
            PCLR_OUT(0u) = PCLR_BINS;
            PCLR_OUT(1u) = 1u; /* weighted */
            PCLR_OUT(8u) = floatBitsToUint(PCLR_LO);
            PCLR_OUT(9u) = 0u;
            PCLR_OUT(10u) = floatBitsToUint(PCLR_HI);
            PCLR_OUT(11u) = 0u;
        }
        PCLR_BARRIER(); /* the counts are read before the next result's zero them */
    }
}
