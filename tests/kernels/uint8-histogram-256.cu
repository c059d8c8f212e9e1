/* pclreduce 0.4.0 kernel: type=uint8 op=histogram backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=shuffle finish=last_group groups_per_unit=8
   entry: pclr_reduce(in, offset, n, out, partials, counter, p0..p2) */
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
#define PCLR_ELEMENT_AT(p) ((pclr_u64)(p) / sizeof(pclr_t))
#define PCLR_VREF PCLR_GLOBAL const pclr_vec *
#define PCLR_VAT(p) ((PCLR_GLOBAL const pclr_vec *)(p))
#define PCLR_COUNTER (*counter)
#define PCLR_CAST(T, x) ((T)(x))
/* Release/acquire between groups: fence.acq_rel is the light fence for that
   pattern (__threadfence is a sequentially consistent fence.sc). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define PCLR_DEVICE_FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#else
#define PCLR_DEVICE_FENCE() __threadfence()
#endif
/* The ticket: the atomic releases this group's partial and acquires the others'. */
static __device__ __forceinline__ uint pclr_ticket(uint *counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    uint t; asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], 1;" : "=r"(t) : "l"(counter) : "memory"); return t;
#else
    __threadfence(); const uint t = atomicAdd(counter, 1u); __threadfence(); return t;
#endif
}
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
typedef unsigned char pclr_t;
struct __align__(4) pclr_vec { pclr_t s[4]; }; /* 4-byte loads */
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
/* c more in the 64-bit count at words j, j + 1 (ADD: their atomic addition, which returns the old word):
   the low word, and its carry into the high one */
#define PCLR_ADD_COUNT(ADD, j, c) do { const uint c_ = (c), j_ = (j); \
    if (ADD(j_, c_) + c_ < c_) ADD(j_ + 1u, 1u); } while (false)
#define PCLR_TOTAL_ADD(j, c) atomicAdd(total + (j), (c))
#define PCLR_TOTAL(j) ((PCLR_GLOBAL volatile uint *)total)[j]
#define PCLR_OUT(j) out[j]
/* c more in entry k of the launch's counts */
#define PCLR_ADD_TOTAL(k, c) PCLR_ADD_COUNT(PCLR_TOTAL_ADD, 2u * (k), c)
#define PCLR_COUNT(v) atomicAdd(hist + PCLR_BIN(v), 1u)
#define PCLR_FOLD(acc, v, i) do { \
    PCLR_COUNT(PCLR_MAP((v).s[0], (i))); \
    PCLR_COUNT(PCLR_MAP((v).s[1], (i) + 1)); \
    PCLR_COUNT(PCLR_MAP((v).s[2], (i) + 2)); \
    PCLR_COUNT(PCLR_MAP((v).s[3], (i) + 3)); \
} while (false)
#define PCLR_FOLD1(acc, x, i) PCLR_COUNT(PCLR_MAP((x), (i)))
typedef pclr_vec pclr_in; /* one load: a vector of x */
#define PCLR_LOAD(j) pv[j]
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,
                             PCLR_GLOBAL uint *out, PCLR_GLOBAL uint *total, PCLR_GLOBAL uint *counter,
                             float p0, float p1, float p2) {
    PCLR_SHARED uint hist[PCLR_ENTRIES]; /* the group's counts */
    PCLR_SHARED uint is_last;
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
        is_last = pclr_ticket(counter) == groups - 1;
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
        PCLR_OUT(8u) = __float_as_uint(PCLR_LO);
        PCLR_OUT(9u) = 0u;
        PCLR_OUT(10u) = __float_as_uint(PCLR_HI);
        PCLR_OUT(11u) = 0u;
        PCLR_COUNTER = 0u;
    }
}
