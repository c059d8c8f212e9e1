/* pclreduce 0.4.0 kernel: type=int op=argmax backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=shuffle finish=last_group groups_per_unit=8 layout=rows lanes=32
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
/* ---- CUDA C (NVRTC) ---- */
typedef unsigned int uint;
typedef unsigned long long pclr_u64;
#define PCLR_KERNEL extern "C" __global__ __launch_bounds__(PCLR_GROUP)
#define PCLR_GLOBAL
#define PCLR_RESTRICT __restrict__ /* read-only loads */
#define PCLR_SHARED __shared__
#define PCLR_FN static __device__ __forceinline__
#define PCLR_LID ((uint)threadIdx.x)
#define PCLR_GROUP_ID ((pclr_u64)blockIdx.x)
#define PCLR_NUM_GROUPS ((pclr_u64)gridDim.x)
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_CAST(T, x) ((T)(x))
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_LDS_ARG lds
#define PCLR_WAVE 32
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
typedef int pclr_t;
/* ---- the operation: argmax ---- */
typedef int pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
typedef struct pclr_s { pclr_u64 i; int v; } pclr_s;
/* b wins with the better value; ties go to the smaller index. A work-item meets its elements
   in index order: a strictly better value wins its fold, and any element beats the identity (no index yet) */
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.i = ~0ull;
    s.v = (-0x7fffffff - 1);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    const int b_wins = b.v > a.v || (b.v == a.v && b.i < a.i);
    if (b_wins) { a.v = b.v; a.i = b.i; }
    return a;
}
PCLR_FN pclr_s pclr_fold(pclr_s a, pclr_v x, pclr_u64 i) {
    if (x > a.v || a.i == ~0ull) { a.v = x; a.i = i; }
    return a;
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold((acc), PCLR_VALUE(x), (i))
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
PCLR_FN pclr_s pclr_shfl_down(pclr_s v, uint delta) { /* field by field */
    v.i = __shfl_down_sync(0xffffffffu, v.i, delta);
    v.v = __shfl_down_sync(0xffffffffu, v.v, delta);
    return v;
}
#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))
/* Lane 0 of each wave gets the wave's result. */
PCLR_FN pclr_s pclr_wave_reduce(pclr_s v, uint width) {
#pragma unroll
    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1)
        if (delta < width) v = pclr_merge(v, PCLR_SHFL_DOWN(v, delta));
    return v;
}
/* ---- the layout: rows, 32 work-items per row ---- */
#define PCLR_LANES 32
/* Row r: cols elements from element r * pitch. */
#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r) * pitch; (len) = cols; }
/* a team is an aligned part of a wave: its lane 0 gets the team's value */
#define pclr_team_reduce(acc, lds) pclr_wave_reduce((acc), PCLR_LANES)
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)
    const uint lid = PCLR_LID, lane = lid % PCLR_LANES, team = lid / PCLR_LANES;
    const pclr_u64 groups = PCLR_NUM_GROUPS;
    PCLR_XREF x = PCLR_XAT(offset);
    PCLR_UNUSED(lds); PCLR_UNUSED(partials); PCLR_UNUSED(ctl); PCLR_UNUSED(split); PCLR_UNUSED(pitch); PCLR_UNUSED(cols);
    PCLR_UNUSED(offsets); PCLR_UNUSED(n);
    /* a step: PCLR_UNROLL rows per team, neighbouring teams on neighbouring rows */
    for (pclr_u64 first = PCLR_GROUP_ID * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL; first < rows;
         first += groups * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL) {
        pclr_s acc[PCLR_UNROLL];
        pclr_u64 lo[PCLR_UNROLL], len[PCLR_UNROLL];
        pclr_t v[PCLR_UNROLL];
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            const pclr_u64 r = first + k * PCLR_TEAMS + team;
            acc[k] = PCLR_IDENTITY;
            lo[k] = len[k] = 0;
            if (r < rows) PCLR_ROW_BOUNDS(r, lo[k], len[k]);
        }
        /* each lane's first element of every row: the loads of short rows all in flight */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k)
            if (lane < len[k]) v[k] = PCLR_LD(x, lo[k] + lane);
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k)
            if (lane < len[k]) {
                PCLR_FOLD1(acc[k], v[k], PCLR_CAST(pclr_u64, lane));
            }
        /* the rest of longer rows */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            PCLR_XREF p = x + lo[k];
            pclr_u64 j = lane + PCLR_LANES;
            for (; j + (PCLR_UNROLL - 1) * PCLR_LANES < len[k]; j += PCLR_UNROLL * PCLR_LANES) {
                pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, j + u * PCLR_LANES);
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc[k], w[u], j + u * PCLR_LANES);
            }
            if (j < len[k]) {
                pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_LANES < len[k] ? j + u * PCLR_LANES : j));
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                    if (j + u * PCLR_LANES < len[k]) PCLR_FOLD1(acc[k], w[u], j + u * PCLR_LANES);
            }
        }
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            const pclr_s s = pclr_team_reduce(acc[k], PCLR_LDS_ARG);
            const pclr_u64 r = first + k * PCLR_TEAMS + team;
            if (lane == 0 && r < rows) PCLR_STORE_OUT(r, s);
        }
    }
}
