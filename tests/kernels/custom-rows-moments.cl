/* pclreduce 0.4.0 kernel: type=int op=custom backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 reduce="state s: long = 0, q: long = 0, n: ulong = 0; lift s = x, q = long(x) * x, n = 1; merge s = a.s + b.s, q = a.q + b.q, n = a.n + b.n; result s, q, n" layout=rows rows=0 cols=0 pitch=64 lanes=4
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
/* ---- OpenCL C ---- */
typedef ulong pclr_u64;
#define PCLR_KERNEL __kernel
#define PCLR_GLOBAL __global
#define PCLR_LOCAL __local
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
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#define PCLR_GROUP 256
typedef int pclr_t;
#pragma OPENCL FP_CONTRACT OFF /* a map's a * b + c rounds twice, as C and the CPU reference do */
/* ---- the operation: custom ---- */
typedef struct pclr_s { long f_s; long f_q; ulong f_n; } pclr_s;
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.f_s = (long)(0);
    s.f_q = (long)(0);
    s.f_n = (ulong)(0);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN bool pclr_is_identity(pclr_s s) {
    return as_ulong(s.f_s) == 0x0UL && as_ulong(s.f_q) == 0x0UL && as_ulong(s.f_n) == 0x0UL;
}
/* the description's merge: b's elements come after a's */
PCLR_FN pclr_s pclr_merge_parts(pclr_s a, pclr_s b) {
    pclr_s s;
    s.f_s = (long)((ulong)(a.f_s) + (ulong)(b.f_s));
    s.f_q = (long)((ulong)(a.f_q) + (ulong)(b.f_q));
    s.f_n = (a.f_n + b.f_n);
    return s;
}
/* between work-items and groups, a state equal to the identity is an empty part: the other state */
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    if (pclr_is_identity(b)) return a;
    if (pclr_is_identity(a)) return b;
    return pclr_merge_parts(a, b);
}
/* a work-item's accumulator starts as the identity; a load's lifted elements merge as described */
PCLR_FN pclr_s pclr_fold_in(pclr_s acc, pclr_s s) {
    if (pclr_is_identity(acc)) return s;
    return pclr_merge_parts(acc, s);
}
/* the lift of element x (y) at index i */
PCLR_FN pclr_s pclr_map(pclr_t x, pclr_u64 i) {
    pclr_s s;
    s.f_s = (long)(x);
    s.f_q = (long)((ulong)((long)(x)) * (ulong)(x));
    s.f_n = (ulong)(1);
    return s;
}
#define PCLR_LIFT(s, i) (s) /* (PCLR_MAP lifted it) */
#define PCLR_MAP(x, i) pclr_map((x), (i))
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_in((acc), PCLR_LIFT(PCLR_MAP((x), (i)), (i)))
/* ---- the layout: rows, 4 work-items per row ---- */
#define PCLR_LANES 4
/* a team's values in a tree through local memory; its lane 0 gets the result */
PCLR_FN pclr_s pclr_team_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID, lane = lid % PCLR_LANES;
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    lds[lid] = acc;
    PCLR_BARRIER();
#pragma unroll 1
    for (uint s = PCLR_LANES / 2; s > 0; s >>= 1) {
        if (lane < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);
        PCLR_BARRIER();
    }
    return acc;
}
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
