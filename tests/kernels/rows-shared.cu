/* pclreduce 0.4.0 kernel: type=float op=sum backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=shuffle finish=last_group groups_per_unit=8 layout=rows lanes=256
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
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
#define PCLR_LD(p, k) (p)[k]
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_STORE_PARTIAL(k, s) partials[k] = (s)
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#define PCLR_STATES_VIEW PCLR_GLOBAL volatile const pclr_s *
#define PCLR_STATES_ARG partials
#define PCLR_CTL(k) ctl[k]
#define PCLR_TICKET(k) atomicAdd(ctl + 1 + (k), 1u)
#define PCLR_STATES_PARAM PCLR_GLOBAL pclr_s *partials
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
typedef float pclr_t;
/* ---- the operation: sum ---- */
typedef pclr_t pclr_s; /* the state: the element itself */
#define PCLR_PARTIAL(vp, j) (vp)[j]
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), (x))
#define PCLR_IDENTITY 0.0f
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return a + b; }
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
#define PCLR_SHFL_DOWN(v, delta) __shfl_down_sync(0xffffffffu, (v), (delta))
/* Lane 0 of each wave gets the wave's result. */
PCLR_FN pclr_s pclr_wave_reduce(pclr_s v, uint width) {
#pragma unroll
    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1)
        if (delta < width) v = pclr_merge(v, PCLR_SHFL_DOWN(v, delta));
    return v;
}
PCLR_FN pclr_s pclr_group_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID;
    acc = pclr_wave_reduce(acc, PCLR_WAVE);
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    if (lid % PCLR_WAVE == 0) lds[lid / PCLR_WAVE] = acc;
    PCLR_BARRIER();
    if (lid < PCLR_WAVE) {
        acc = lid < PCLR_GROUP / PCLR_WAVE ? lds[lid] : PCLR_IDENTITY;
        acc = pclr_wave_reduce(acc, PCLR_GROUP / PCLR_WAVE);
    }
    return acc;
}
/* ---- the layout: rows, 256 work-items per row ---- */
PCLR_FN pclr_s pclr_fold_partials(PCLR_STATES_PARAM, pclr_u64 first, pclr_u64 split, uint from, uint step) {
    PCLR_STATES_VIEW vp = partials; /* written by other groups */
    pclr_s s = PCLR_IDENTITY;
    for (pclr_u64 k = from; k < split; k += step) s = pclr_merge(s, PCLR_PARTIAL(vp, first + k));
    return s;
}
/* Row r: cols elements from element r * pitch. */
#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r) * pitch; (len) = cols; }
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
    PCLR_SHARED uint is_last;
    const uint lid = PCLR_LID;
    const pclr_u64 groups = PCLR_NUM_GROUPS;
    PCLR_UNUSED(pitch); PCLR_UNUSED(cols); PCLR_UNUSED(offsets); PCLR_UNUSED(n);
    for (pclr_u64 task = PCLR_GROUP_ID; task < rows * split; task += groups) {
        const pclr_u64 r = task / split, part = task % split;
        pclr_u64 lo = 0, len = 0;
        PCLR_ROW_BOUNDS(r, lo, len);
        /* split groups share the row: each folds a contiguous chunk */
        const pclr_u64 chunk = (len + split - 1) / split;
        const pclr_u64 b = part * chunk < len ? part * chunk : len, e = b + chunk < len ? b + chunk : len;
        PCLR_XREF p = PCLR_XAT(offset + lo);
        pclr_s acc = PCLR_IDENTITY;
        pclr_u64 j = b + lid;
        for (; j + (PCLR_UNROLL - 1) * PCLR_GROUP < e; j += PCLR_UNROLL * PCLR_GROUP) {
            pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, j + u * PCLR_GROUP);
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        if (j < e) {
            pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_GROUP < e ? j + u * PCLR_GROUP : j));
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                if (j + u * PCLR_GROUP < e) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        acc = pclr_group_reduce(acc, PCLR_LDS_ARG);
        if (split == 1) {
            if (lid == 0) PCLR_STORE_OUT(r, acc);
        } else {
            /* the last of the row's groups folds their partials (deterministic) */
            if (lid == 0) {
                PCLR_STORE_PARTIAL(task, acc);
                PCLR_DEVICE_FENCE(); /* release: the partial before the ticket */
                is_last = PCLR_TICKET(r) == split - 1;
#ifdef PCLR_FOLD_IN_ONE
                if (is_last) {
                    PCLR_DEVICE_FENCE(); /* acquire */
                    PCLR_STORE_OUT(r, pclr_fold_partials(PCLR_STATES_ARG, r * split, split, 0, 1));
                    PCLR_CTL(1 + r) = 0u;
                }
            }
#else
                if (is_last) PCLR_DEVICE_FENCE(); /* acquire */
            }
            PCLR_BARRIER();
            if (is_last) { /* (uniform: is_last is the group's) */
                PCLR_DEVICE_FENCE();
                acc = pclr_group_reduce(pclr_fold_partials(PCLR_STATES_ARG, r * split, split, lid, PCLR_GROUP), PCLR_LDS_ARG);
                if (lid == 0) {
                    PCLR_STORE_OUT(r, acc);
                    PCLR_CTL(1 + r) = 0u;
                }
            }
#endif
            PCLR_BARRIER(); /* is_last is read before the next task sets it */
        }
    }
}
