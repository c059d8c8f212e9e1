/* pclreduce 0.4.0 kernel: type=float op=sum backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 map="x*x" map_type=float layout=segments lanes=32
   entry: main; bindings 0 x, 1 out, 2 partials, 3 ctl, 5 offsets; push constants: offset, n, offset2, out_at, part_at, rows, cols, pitch, split */
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
#define PCLR_STORE_OUT(k, s) pclr_store_out(args.out_at + uint(k) * PCLR_STATE_WORDS, (s))
#define PCLR_CAST(T, x) T(x)
#define PCLR_UNUSED(x)
#define PCLR_LDS_PARAM uint pclr_no_lds
#define PCLR_LDS_ARG 0u
#define PCLR_CTL(k) ctl[uint(k)]
#define PCLR_OFFSET(k) pclr_offsets[uint(k)]
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
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
/* ---- the map: x*x ---- */
float pclr_map(float x, uint64_t i) {
    precise float r = (x * x);
    return r;
}
/* ---- the operation: sum, accumulate native ---- */
#define pclr_v float /* values are computed in this type */
#define pclr_a float /* sums accumulate in this type (integers wrap) */
#define pclr_s float /* the state: one value */
#define PCLR_STATE_WORDS 1u
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = floatBitsToUint(s);
}
pclr_a pclr_add(pclr_a a, pclr_a b) { return a + b; }
pclr_s pclr_identity(void) {
    pclr_s s;
    s = pclr_a(0);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a = pclr_add(a, b);
    return a;
}
pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s = pclr_a(x);
    return s;
}
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
#define pclr_t float /* the map's input */
pclr_t pclr_x(uint64_t e) { return float(uintBitsToFloat(pclr_xw((e)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_v v = pclr_v(pclr_map(x, i));
    return pclr_merge(acc, pclr_lift(v));
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
/* ---- the layout: segments, 32 work-items per row ---- */
#define PCLR_LANES 32
/* Segment r is [offsets[r], offsets[r + 1]). The offsets are in device memory, so they are checked
   here: a decreasing pair or an end past n makes the segment empty and sets ctl[0]. */
#define PCLR_ROW_BOUNDS(r, lo, len) { const pclr_u64 a_ = PCLR_OFFSET(r), b_ = PCLR_OFFSET((r) + 1); \
    if (b_ < a_ || b_ > n) { PCLR_CTL(0) = 1u; (lo) = 0; (len) = 0; } else { (lo) = a_; (len) = b_ - a_; } }
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
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch, split = args.split;
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
