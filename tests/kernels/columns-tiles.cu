/* pclreduce 0.4.0 kernel: type=float op=sum backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=shuffle finish=last_group groups_per_unit=8 layout=columns lanes=8
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
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
typedef float pclr_t;
/* ---- the operation: sum ---- */
typedef pclr_t pclr_s; /* the state: the element itself */
#define PCLR_PARTIAL(vp, j) (vp)[j]
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), (x))
#define PCLR_IDENTITY 0.0f
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return a + b; }
/* ---- the layout: columns, 8 work-items down each column ---- */
#define PCLR_LANES 8
PCLR_FN pclr_s pclr_fold_partials(PCLR_STATES_PARAM, pclr_u64 first, pclr_u64 split, uint from, uint step) {
    PCLR_STATES_VIEW vp = partials; /* written by other groups */
    pclr_s s = PCLR_IDENTITY;
    for (pclr_u64 k = from; k < split; k += step) s = pclr_merge(s, PCLR_PARTIAL(vp, first + k));
    return s;
}
#define PCLR_TILE (PCLR_GROUP / PCLR_LANES) /* neighbouring columns: a row's elements are read side by side */
/* down a column: its lanes' values in a tree through local memory; lane 0 gets the column's */
PCLR_FN pclr_s pclr_down_column(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID, lane = lid / PCLR_TILE;
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    lds[lid] = acc;
    PCLR_BARRIER();
#pragma unroll 1
    for (uint s = PCLR_LANES / 2; s > 0; s >>= 1) {
        if (lane < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s * PCLR_TILE]);
        PCLR_BARRIER();
    }
    return acc;
}
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
    PCLR_SHARED uint is_last;
    const uint lid = PCLR_LID, c_in = lid % PCLR_TILE, lane = lid / PCLR_TILE;
    const pclr_u64 groups = PCLR_NUM_GROUPS, tiles = (cols + PCLR_TILE - 1) / PCLR_TILE;
    PCLR_UNUSED(offsets); PCLR_UNUSED(n); PCLR_UNUSED(lds);
    for (pclr_u64 task = PCLR_GROUP_ID; task < tiles * split; task += groups) {
        /* split groups share a tile: each folds a contiguous band of rows */
        const pclr_u64 tile = task / split, part = task % split, col = tile * PCLR_TILE + c_in;
        const pclr_u64 band = (rows + split - 1) / split;
        const pclr_u64 b = part * band < rows ? part * band : rows, e = b + band < rows ? b + band : rows;
        pclr_s acc = PCLR_IDENTITY;
        if (col < cols) {
            PCLR_XREF p = PCLR_XAT(offset + col);
            pclr_u64 j = b + lane;
            for (; j + (PCLR_UNROLL - 1) * PCLR_LANES < e; j += PCLR_UNROLL * PCLR_LANES) {
                pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_LANES) * pitch);
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc, w[u], j + u * PCLR_LANES);
            }
            if (j < e) {
                pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, ((j + u * PCLR_LANES < e ? j + u * PCLR_LANES : j)) * pitch);
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                    if (j + u * PCLR_LANES < e) PCLR_FOLD1(acc, w[u], j + u * PCLR_LANES);
            }
        }
        acc = pclr_down_column(acc, PCLR_LDS_ARG);
        if (split == 1) {
            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, acc);
            continue;
        }
        /* the last of the tile's groups folds their partials in order (deterministic) */
        if (lane == 0 && col < cols) PCLR_STORE_PARTIAL(col * split + part, acc);
        PCLR_DEVICE_FENCE(); /* release: the partials before the ticket */
        PCLR_BARRIER();
        if (lid == 0) {
            is_last = PCLR_TICKET(tile) == split - 1;
            if (is_last) PCLR_DEVICE_FENCE(); /* acquire */
        }
        PCLR_BARRIER();
        if (is_last) { /* (uniform: is_last is the group's) */
            PCLR_DEVICE_FENCE();
#ifdef PCLR_FOLD_IN_ONE
            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, pclr_fold_partials(PCLR_STATES_ARG, col * split, split, 0, 1));
#else
            acc = col < cols ? pclr_fold_partials(PCLR_STATES_ARG, col * split, split, lane, PCLR_LANES) : PCLR_IDENTITY;
            acc = pclr_down_column(acc, PCLR_LDS_ARG);
            if (lane == 0 && col < cols) PCLR_STORE_OUT(col, acc);
#endif
            if (lid == 0) PCLR_CTL(1 + tile) = 0u;
        }
        PCLR_BARRIER(); /* is_last is read before the next task sets it */
    }
}
