/* pclreduce 0.4.0 kernel: type=uint8 op=histogram backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter; push constants: offset, n, offset2, out_at, part_at, p0..p2 */
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
#define PCLR_ELEMENT_AT(p) (p)
#define PCLR_VREF uint64_t
#define PCLR_VAT(p) ((p) / PCLR_VECTOR)
#define PCLR_COUNTER counter
#define PCLR_CAST(T, x) T(x)
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uint /* one load of x: 4 bytes */
layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };
layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };
layout(std430, set = 0, binding = 3) coherent buffer pclr_counter_word { uint counter; };
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
#define PCLR_COUNT(v) atomicAdd(hist[PCLR_BIN(v)], 1u)
shared bool is_last;
void pclr_count_load(pclr_in_x v, uint64_t i) {
    PCLR_COUNT(pclr_v(pclr_map(int(((v >> 0u) & 0xffu)), i + 0ul, args.p0, args.p1, args.p2)));
    PCLR_COUNT(pclr_v(pclr_map(int(((v >> 8u) & 0xffu)), i + 1ul, args.p0, args.p1, args.p2)));
    PCLR_COUNT(pclr_v(pclr_map(int(((v >> 16u) & 0xffu)), i + 2ul, args.p0, args.p1, args.p2)));
    PCLR_COUNT(pclr_v(pclr_map(int(((v >> 24u) & 0xffu)), i + 3ul, args.p0, args.p1, args.p2)));
}
#define PCLR_FOLD(acc, v, i) pclr_count_load((v), (i))
/* the element at relative index r */
pclr_h pclr_value_at(uint64_t r) { return pclr_v(pclr_map(int(((pclr_xw((args.offset + r) >> 2) >> (uint((args.offset + r) & 3ul) * 8u)) & 0xffu)), r, args.p0, args.p1, args.p2)); }
#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(pclr_value_at(i))
#define pclr_in pclr_in_x /* one load: words of x */
#define PCLR_LOAD(j) xv[uint(pv + (j))]
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, n = args.n;
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    PCLR_SHIFT_INIT();
    for (uint k = lid; k < PCLR_ENTRIES; k += PCLR_GROUP) hist[k] = 0u;
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
        PCLR_OUT(1u) = 0u; /* weighted */
        PCLR_OUT(8u) = floatBitsToUint(PCLR_LO);
        PCLR_OUT(9u) = 0u;
        PCLR_OUT(10u) = floatBitsToUint(PCLR_HI);
        PCLR_OUT(11u) = 0u;
        PCLR_COUNTER = 0u;
    }
}
