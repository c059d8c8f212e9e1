/* pclreduce 0.4.0 kernel: type=float op=max backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=rows rows=0 cols=0 pitch=64 lanes=1
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
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
#define PCLR_LD(p, k) (p)[k]
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_CAST(T, x) ((T)(x))
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_LDS_ARG lds
#define PCLR_GROUP 256
typedef float pclr_t;
/* ---- the operation: max ---- */
typedef pclr_t pclr_s; /* the state: the element itself */
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), (x))
#define PCLR_IDENTITY (-INFINITY)
#define PCLR_NEG(x) (as_int(x) < 0)
PCLR_FN float pclr_max(float a, float b) { /* NaN propagates, -0 < +0 */
#if defined(PCLR_NVIDIA_SM80)
    float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; /* one instruction */
#else
    return (a != a || a > b || (a == b && PCLR_NEG(b))) ? a : b;
#endif
}
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) { return pclr_max(a, b); }
/* ---- the layout: rows, 1 work-item per row ---- */
#define PCLR_LANES 1
#define pclr_team_reduce(acc, lds) (acc) /* a row per work-item */
#define PCLR_STAGE_PER 16 /* elements of a tile per work-item */
#define PCLR_STAGE (PCLR_GROUP * PCLR_STAGE_PER)
#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)
/* a word of padding after every 32: rows read side by side fall in different banks */
#define PCLR_PAD(i) ((i) + ((i) >> 5))
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */) {
    PCLR_SHARED pclr_t stage[PCLR_PAD(PCLR_STAGE)];
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
    /* Short rows: the group loads a tile of whole rows (coalesced, every load in flight)
       into local memory; then a team of PCLR_LANES work-items folds each row there. */
    const uint lid = PCLR_LID, lane = lid % PCLR_LANES, team = lid / PCLR_LANES;
    const uint tile_rows = PCLR_STAGE / PCLR_CAST(uint, pitch); /* the host keeps 1 <= cols <= pitch <= PCLR_STAGE */
    const pclr_u64 groups = PCLR_NUM_GROUPS, tiles = (rows + tile_rows - 1) / tile_rows;
    PCLR_UNUSED(lds); PCLR_UNUSED(partials); PCLR_UNUSED(ctl); PCLR_UNUSED(split); PCLR_UNUSED(offsets); PCLR_UNUSED(n);
    for (pclr_u64 tile = PCLR_GROUP_ID; tile < tiles; tile += groups) {
        const pclr_u64 first = tile * tile_rows;
        const uint nr = rows - first < tile_rows ? PCLR_CAST(uint, rows - first) : tile_rows;
        const uint span = (nr - 1) * PCLR_CAST(uint, pitch) + PCLR_CAST(uint, cols); /* the last row's padding may lie past the end */
        PCLR_XREF p = PCLR_XAT(offset + first * pitch);
        pclr_t w[PCLR_STAGE_PER];
#pragma unroll
        for (uint u = 0; u < PCLR_STAGE_PER; ++u)
            if (lid + u * PCLR_GROUP < span) w[u] = PCLR_LD(p, lid + u * PCLR_GROUP);
        PCLR_BARRIER(); /* the last tile's rows are folded */
#pragma unroll
        for (uint u = 0; u < PCLR_STAGE_PER; ++u)
            if (lid + u * PCLR_GROUP < span) stage[PCLR_PAD(lid + u * PCLR_GROUP)] = w[u];
        PCLR_BARRIER();
        for (uint r0 = 0; r0 < nr; r0 += PCLR_TEAMS) { /* (uniform: whole teams and waves take part) */
            const uint r = r0 + team;
            pclr_s acc = PCLR_IDENTITY;
            if (r < nr)
                for (uint j = lane; j < PCLR_CAST(uint, cols); j += PCLR_LANES) PCLR_FOLD1(acc, stage[PCLR_PAD(r * PCLR_CAST(uint, pitch) + j)], j);
            acc = pclr_team_reduce(acc, PCLR_LDS_ARG);
            if (lane == 0 && r < nr) PCLR_STORE_OUT(first + r, acc);
        }
    }
}
