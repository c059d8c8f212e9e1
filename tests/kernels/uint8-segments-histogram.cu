/* pclreduce 0.4.0 kernel: type=uint8 op=histogram backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=shuffle finish=last_group groups_per_unit=8 layout=segments lanes=256
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl, p0..p2) */
/* ---- CUDA C (NVRTC) ---- */
typedef unsigned int uint;
typedef unsigned long long pclr_u64;
#define PCLR_KERNEL extern "C" __global__ __launch_bounds__(PCLR_GROUP)
#define PCLR_GLOBAL
#define PCLR_RESTRICT __restrict__ /* read-only loads */
#define PCLR_SHARED __shared__
#define PCLR_FN static __device__ __forceinline__
#define PCLR_BARRIER() __syncthreads()
#define PCLR_LID ((uint)threadIdx.x)
#define PCLR_GROUP_ID ((pclr_u64)blockIdx.x)
#define PCLR_NUM_GROUPS ((pclr_u64)gridDim.x)
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_CAST(T, x) ((T)(x))
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_CTL(k) ctl[k]
#define PCLR_OFFSET(k) offsets[k]
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
typedef unsigned char pclr_t;
/* ---- the map: x ---- */
/* ptxas can drop a negation fused into a three-input integer min/max: values pass through an
   identity it does not see through */
PCLR_FN uint pclr_keep(uint v) { uint r; asm volatile("prmt.b32 %0, %1, 0, 0x3210;" : "=r"(r) : "r"(v)); return r; }
PCLR_FN int pclr_map(pclr_t x, pclr_u64 i, float p0 /* the range's lo */, float p1 /* its hi */, float p2 /* bins / (hi - lo) */) {
    return (int)x;
}
#define PCLR_MAP(x, i) ((int)pclr_keep((uint)pclr_map((x), (i), p0, p1, p2)))
/* ---- the operation: histogram, 256 bins over [lo, hi) ---- */
typedef float pclr_h; /* values are binned in this type */
#define PCLR_BINS 256u
#define PCLR_ENTRIES (PCLR_BINS + 3u) /* the bins, underflow, overflow, nan */
#define PCLR_LO p0
#define PCLR_HI p1
#define PCLR_SCALE p2 /* bins / (hi - lo) */
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
    const uint b = __float_as_uint(scale), e = (b >> 23) & 255u;
    if (lo != floorf(lo) || !(lo >= -8388608.0f && lo <= 8388608.0f) || (b & 0x807FFFFFu) != 0u || e > 127u || e == 0u) return -1;
    return e < 96u ? 31 : 127 - PCLR_CAST(int, e); /* (s >= 24: every bin is 0) */
}
PCLR_FN uint pclr_shift_bin(int x, int lo, int hi, int s) {
    if (x < lo) return PCLR_BINS;
    if (x >= hi) return PCLR_BINS + 1u;
    const uint k = PCLR_CAST(uint, x - lo) >> s;
    return k < PCLR_BINS ? k : PCLR_BINS - 1u;
}
#define PCLR_SHIFT_INIT() const int pclr_s = pclr_shift_of(PCLR_LO, PCLR_SCALE); \
    const int pclr_ilo = pclr_s >= 0 ? PCLR_CAST(int, PCLR_LO) : 0; \
    const int pclr_ihi = pclr_s < 0 ? 0 : PCLR_HI >= 16777216.0f ? 16777216 : PCLR_CAST(int, ceilf(PCLR_HI))
#define PCLR_BIN(v) (pclr_s >= 0 ? pclr_shift_bin(PCLR_CAST(int, v), pclr_ilo, pclr_ihi, pclr_s) \
                           : pclr_bin(PCLR_CAST(pclr_h, v), PCLR_LO, PCLR_HI, PCLR_SCALE))
/* entry k's low and high words in the state: the bins from word 12, underflow, overflow, nan from word 2 */
#define PCLR_AT(k) ((k) < PCLR_BINS ? 12u + 2u * (k) : 2u + 2u * ((k) - PCLR_BINS))
#define PCLR_STATE_WORDS 524u /* a result's state */
#define PCLR_OUT(j) out[base + (j)]
#define PCLR_COUNT(v) atomicAdd(hist + PCLR_BIN(v), 1u)
#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(PCLR_MAP((x), (i)))
/* Segment r is [offsets[r], offsets[r + 1]). The offsets are in device memory, so they are checked
   here: a decreasing pair or an end past n makes the segment empty and sets ctl[0]. */
#define PCLR_ROW_BOUNDS(r, lo, len) { const pclr_u64 a_ = PCLR_OFFSET(r), b_ = PCLR_OFFSET((r) + 1); \
    if (b_ < a_ || b_ > n) { PCLR_CTL(0) = 1u; (lo) = 0; (len) = 0; } else { (lo) = a_; (len) = b_ - a_; } }
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL uint *out, PCLR_GLOBAL uint *partials, PCLR_GLOBAL uint *ctl,
                             float p0, float p1, float p2) {
    PCLR_SHARED uint hist[PCLR_ENTRIES]; /* the group's counts */
    PCLR_UNUSED(partials); PCLR_UNUSED(split); PCLR_UNUSED(pitch);
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
            PCLR_OUT(8u) = __float_as_uint(PCLR_LO);
            PCLR_OUT(9u) = 0u;
            PCLR_OUT(10u) = __float_as_uint(PCLR_HI);
            PCLR_OUT(11u) = 0u;
        }
        PCLR_BARRIER(); /* the counts are read before the next result's zero them */
    }
}
