/* pclreduce 0.4.0 kernel: type=float op=max backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=rows rows=0 cols=0 pitch=64 lanes=2
   entry: main; bindings 0 x, 1 out, 2 partials, 3 ctl, 5 offsets; push constants: offset, n, offset2, out_at, part_at, rows, cols, pitch, split */
#version 450
#extension GL_ARB_gpu_shader_int64 : require
/* ---- GLSL 4.50 compute (Vulkan) ---- */
#define pclr_u64 uint64_t
#define PCLR_SHARED shared
#define PCLR_FN
#define PCLR_BARRIER() barrier()
#define PCLR_LID gl_LocalInvocationID.x
#define PCLR_GROUP_ID uint64_t(gl_WorkGroupID.x)
#define PCLR_NUM_GROUPS uint64_t(gl_NumWorkGroups.x)
#define PCLR_XREF uint64_t
#define PCLR_XAT(e) (e)
#define PCLR_LD(p, k) pclr_x((p) + (k))
#define PCLR_STORE_OUT(k, s) pclr_store_out(args.out_at + uint(k) * PCLR_STATE_WORDS, (s))
#define PCLR_CAST(T, x) T(x)
#define PCLR_UNUSED(x)
#define PCLR_LDS_PARAM uint pclr_no_lds
#define PCLR_LDS_ARG 0u
#define PCLR_GROUP 256
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
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w)]; }
/* ---- the operation: max ---- */
#define pclr_v float /* values are computed in this type */
#define pclr_s float /* the state: one value */
#define PCLR_STATE_WORDS 1u
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = floatBitsToUint(s);
}
bool pclr_neg(pclr_v x) { return floatBitsToInt(x) < 0; } /* the sign bit */
/* NaN propagates; -0 orders before +0 */
pclr_v pclr_max(pclr_v a, pclr_v b) { return (isnan(a) || a > b || (a == b && pclr_neg(b))) ? a : b; }
pclr_s pclr_identity(void) {
    pclr_s s;
    s = uintBitsToFloat(0xff800000u);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a = pclr_max(a, b);
    return a;
}
pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s = x;
    return s;
}
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
#define pclr_t pclr_v /* an element's value */
pclr_t pclr_x(uint64_t e) { return pclr_v(uintBitsToFloat(pclr_xw((e)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_v v = x;
    return pclr_merge(acc, pclr_lift(v));
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
/* ---- the layout: rows, 2 work-items per row ---- */
#define PCLR_LANES 2
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
#define PCLR_STAGE_PER 8 /* elements of a tile per work-item */
#define PCLR_STAGE (PCLR_GROUP * PCLR_STAGE_PER)
#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)
/* a word of padding after every 32: rows read side by side fall in different banks */
#define PCLR_PAD(i) ((i) + ((i) >> 5))
PCLR_SHARED pclr_t stage[PCLR_PAD(PCLR_STAGE)];
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch, split = args.split;
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
