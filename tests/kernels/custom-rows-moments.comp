/* pclreduce 0.4.0 kernel: type=int op=custom backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 reduce="state s: long = 0, q: long = 0, n: ulong = 0; lift s = x, q = long(x) * x, n = 1; merge s = a.s + b.s, q = a.q + b.q, n = a.n + b.n; result s, q, n" layout=rows rows=0 cols=0 pitch=64 lanes=8
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
/* ---- the operation: custom ---- */
struct pclr_s { int64_t f_s; int64_t f_q; uint64_t f_n; };
#define PCLR_STATE_WORDS 6u
void pclr_store_out(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(uint64_t(s.f_s)); outw[at + 0u] = w.x; outw[at + 1u] = w.y; }
    { const uvec2 w = unpackUint2x32(uint64_t(s.f_q)); outw[at + 2u] = w.x; outw[at + 3u] = w.y; }
    { const uvec2 w = unpackUint2x32(s.f_n); outw[at + 4u] = w.x; outw[at + 5u] = w.y; }
}
pclr_s pclr_identity(void) {
    pclr_s s;
    precise int64_t v_s = int64_t(0);
    s.f_s = v_s;
    precise int64_t v_q = int64_t(0);
    s.f_q = v_q;
    precise uint64_t v_n = uint64_t(0);
    s.f_n = v_n;
    return s;
}
#define PCLR_IDENTITY pclr_identity()
bool pclr_is_identity(pclr_s s) {
    return uint64_t(s.f_s) == 0x0ul && uint64_t(s.f_q) == 0x0ul && uint64_t(s.f_n) == 0x0ul;
}
/* the description's merge: b's elements come after a's */
pclr_s pclr_merge_parts(pclr_s a, pclr_s b) {
    pclr_s s;
    precise int64_t v_s = int64_t(uint64_t(a.f_s) + uint64_t(b.f_s));
    s.f_s = v_s;
    precise int64_t v_q = int64_t(uint64_t(a.f_q) + uint64_t(b.f_q));
    s.f_q = v_q;
    precise uint64_t v_n = (a.f_n + b.f_n);
    s.f_n = v_n;
    return s;
}
/* between work-items and groups, a state equal to the identity is an empty part: the other state */
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    if (pclr_is_identity(b)) return a;
    if (pclr_is_identity(a)) return b;
    return pclr_merge_parts(a, b);
}
/* a work-item's accumulator starts as the identity; a load's lifted elements merge as described */
pclr_s pclr_fold_in(pclr_s acc, pclr_s s) {
    if (pclr_is_identity(acc)) return s;
    return pclr_merge_parts(acc, s);
}
/* the lift of element x (y) at index i */
pclr_s pclr_map(int x, uint64_t i) {
    pclr_s s;
    precise int64_t v_s = int64_t(x);
    s.f_s = v_s;
    precise int64_t v_q = int64_t(uint64_t(int64_t(x)) * uint64_t(x));
    s.f_q = v_q;
    precise uint64_t v_n = uint64_t(1);
    s.f_n = v_n;
    return s;
}
#define pclr_lift(s) (s) /* (pclr_map lifted it) */
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
#define pclr_t int /* the map's input */
pclr_t pclr_x(uint64_t e) { return int(int(pclr_xw((e)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_s v = pclr_map(x, i);
    return pclr_fold_in(acc, pclr_lift(v));
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
/* ---- the layout: rows, 8 work-items per row ---- */
#define PCLR_LANES 8
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
