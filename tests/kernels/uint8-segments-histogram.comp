/* pclreduce 0.4.0 kernel: type=uint8 op=histogram backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=segments lanes=256
   entry: main; bindings 0 x, 1 out, 2 partials, 3 ctl, 5 offsets; push constants: offset, n, offset2, out_at, part_at, rows, cols, pitch, split, p0..p2 */
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
#define PCLR_LD(p, k) pclr_x((p) + (k))
#define PCLR_CAST(T, x) T(x)
#define PCLR_CTL(k) ctl[uint(k)]
#define PCLR_OFFSET(k) pclr_offsets[uint(k)]
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uint /* one load of x: 4 bytes */
layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };
layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };
layout(std430, set = 0, binding = 3) coherent buffer pclr_ctl_words { uint ctl[]; }; /* [0] the segments' status, [1 + k] tickets */
layout(std430, set = 0, binding = 5) readonly buffer pclr_offset_words { uint64_t pclr_offsets[]; }; /* segments' */
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
/* ---- the map: x ---- */
int pclr_map(int x, uint64_t i, float p0 /* the range's lo */, float p1 /* its hi */, float p2 /* bins / (hi - lo) */) {
    precise int r = x;
    return r;
}
/* ---- the operation: histogram, 256 bins over [lo, hi) ---- */
#define pclr_h float /* values are binned in this type */
#define pclr_v pclr_h
#define PCLR_BINS 256u
#define PCLR_ENTRIES (PCLR_BINS + 3u) /* the bins, underflow, overflow, nan */
#define PCLR_LO args.p0
#define PCLR_HI args.p1
#define PCLR_SCALE args.p2 /* bins / (hi - lo) */
/* The entry value v counts in: its bin (v - lo) * scale, rounded down, or underflow, overflow, nan. */
PCLR_FN uint pclr_bin(pclr_h v, pclr_h lo, pclr_h hi, pclr_h scale) {
    if (v < lo) return PCLR_BINS;
    if (v >= hi) return PCLR_BINS + 1u;
    const uint k = PCLR_CAST(uint, (v - lo) * scale);
    return k < PCLR_BINS ? k : PCLR_BINS - 1u; /* (just below hi, rounded up) */
}
/* 8- and 16-bit integers x, where lo is an integer (|lo| <= 2^23) and scale a power of two 2^-s: (x - lo) * scale
   is exact in float, so the bin is (x - lo) >> s and the range checks compare integers (x >= hi: x >= ceil(hi)):
   pclr_bin's bins without its float arithmetic (uint8 in 256 bins on an H200: 164 -> 142 us, bench/hist_probe.cu).
   s, or -1 where the range is not such */
PCLR_FN int pclr_shift_of(pclr_h lo, pclr_h scale) {
    const uint b = floatBitsToUint(scale), e = (b >> 23) & 255u;
    if (lo != floor(lo) || !(lo >= -8388608.0f && lo <= 8388608.0f) || (b & 0x807FFFFFu) != 0u || e > 127u || e == 0u) return -1;
    return e < 96u ? 31 : 127 - PCLR_CAST(int, e); /* (s >= 24: every bin is 0) */
}
PCLR_FN uint pclr_shift_bin(int x, int lo, int hi, int s) {
    if (x < lo) return PCLR_BINS;
    if (x >= hi) return PCLR_BINS + 1u;
    const uint k = PCLR_CAST(uint, x - lo) >> s;
    return k < PCLR_BINS ? k : PCLR_BINS - 1u;
}
int pclr_s, pclr_ilo, pclr_ihi; /* (set at the kernel's start) */
#define PCLR_SHIFT_INIT() pclr_s = pclr_shift_of(PCLR_LO, PCLR_SCALE); \
    pclr_ilo = pclr_s >= 0 ? PCLR_CAST(int, PCLR_LO) : 0; \
    pclr_ihi = pclr_s < 0 ? 0 : PCLR_HI >= 16777216.0f ? 16777216 : PCLR_CAST(int, ceil(PCLR_HI))
#define PCLR_BIN(v) (pclr_s >= 0 ? pclr_shift_bin(PCLR_CAST(int, v), pclr_ilo, pclr_ihi, pclr_s) \
                           : pclr_bin(PCLR_CAST(pclr_h, v), PCLR_LO, PCLR_HI, PCLR_SCALE))
/* entry k's low and high words in the state: the bins from word 12, underflow, overflow, nan from word 2 */
#define PCLR_AT(k) ((k) < PCLR_BINS ? 12u + 2u * (k) : 2u + 2u * ((k) - PCLR_BINS))
#define PCLR_STATE_WORDS 524u /* a result's state */
#define PCLR_OUT(j) outw[args.out_at + uint(base) + (j)]
shared uint hist[PCLR_ENTRIES]; /* the group's counts */
#define PCLR_COUNT(v) atomicAdd(hist[PCLR_BIN(v)], 1u)
#define pclr_t int /* the map's input */
pclr_t pclr_x(uint64_t e) { return int(((pclr_xw((e) >> 2) >> (uint((e) & 3ul) * 8u)) & 0xffu)); }
#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(pclr_v(pclr_map((x), (i), args.p0, args.p1, args.p2)))
/* Segment r is [offsets[r], offsets[r + 1]). The offsets are in device memory, so they are checked
   here: a decreasing pair or an end past n makes the segment empty and sets ctl[0]. */
#define PCLR_ROW_BOUNDS(r, lo, len) { const pclr_u64 a_ = PCLR_OFFSET(r), b_ = PCLR_OFFSET((r) + 1); \
    if (b_ < a_ || b_ > n) { PCLR_CTL(0) = 1u; (lo) = 0; (len) = 0; } else { (lo) = a_; (len) = b_ - a_; } }
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch;
    PCLR_SHIFT_INIT();
    const uint lid = PCLR_LID;
    const pclr_u64 groups = PCLR_NUM_GROUPS, results = rows;
    for (pclr_u64 r = PCLR_GROUP_ID; r < results; r += groups) {
        const pclr_u64 base = r * PCLR_STATE_WORDS;
        pclr_u64 lo, len;
        PCLR_ROW_BOUNDS(r, lo, len);
        PCLR_XREF p = PCLR_XAT(offset + lo);
        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;
        PCLR_BARRIER();
        pclr_u64 j = lid;
        for (; j + (PCLR_UNROLL - 1) * PCLR_GROUP < len; j += PCLR_UNROLL * PCLR_GROUP) {
            pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, j + u * PCLR_GROUP);
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        if (j < len) {
            pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_GROUP < len ? j + u * PCLR_GROUP : j));
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                if (j + u * PCLR_GROUP < len) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        PCLR_BARRIER();
        for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) {
            const uint at = PCLR_AT(k);
            PCLR_OUT(at) = hist[k];
            PCLR_OUT(at + 1u) = 0u;
        }
        if (lid == 0) { /* the bins, then lo and hi in the compute type */
            PCLR_OUT(0u) = PCLR_BINS;
            PCLR_OUT(1u) = 0u; /* weighted */
            PCLR_OUT(8u) = floatBitsToUint(PCLR_LO);
            PCLR_OUT(9u) = 0u;
            PCLR_OUT(10u) = floatBitsToUint(PCLR_HI);
            PCLR_OUT(11u) = 0u;
        }
        PCLR_BARRIER(); /* the counts are read before the next result's zero them */
    }
}
