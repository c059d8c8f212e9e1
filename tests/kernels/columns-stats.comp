/* pclreduce 0.4.0 kernel: type=double op=stats backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=columns lanes=8
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
#define PCLR_STORE_PARTIAL(k, s) pclr_store_partial(uint(k) * PCLR_STATE_WORDS, (s))
#define PCLR_UNUSED(x)
#define PCLR_LDS_PARAM uint pclr_no_lds
#define PCLR_LDS_ARG 0u
#define PCLR_STATES_VIEW uint
#define PCLR_STATES_ARG 0u
#define PCLR_CTL(k) ctl[uint(k)]
#define PCLR_TICKET(k) atomicAdd(ctl[uint(1u + (k))], 1u)
#define PCLR_STATES_PARAM uint partials
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uvec2 /* one load of x: 8 bytes */
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
uint pclr_xw(uint64_t w) { return xv[uint(w / 2ul)][uint(w % 2ul)]; }
/* ---- the operation: stats, accumulate native ---- */
#define pclr_v double /* values are computed in this type */
#define pclr_a double /* sums accumulate in this type (integers wrap) */
#define pclr_m double /* mean and M2 are computed in this type */
#define pclr_h double /* the moments' shift */
pclr_m pclr_diff(pclr_h x, pclr_h h) { return x - h; }
struct pclr_s { uint64_t n; double s; double lo; double hi; double shift; double d1; double m2; };
#define PCLR_STATE_WORDS 14u
void pclr_store_out(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.n); outw[at + 0u] = w.x; outw[at + 1u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.s); outw[at + 2u] = w.x; outw[at + 3u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.lo); outw[at + 4u] = w.x; outw[at + 5u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.hi); outw[at + 6u] = w.x; outw[at + 7u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.shift); outw[at + 8u] = w.x; outw[at + 9u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.d1); outw[at + 10u] = w.x; outw[at + 11u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.m2); outw[at + 12u] = w.x; outw[at + 13u] = w.y; }
}
void pclr_store_partial(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.n); pw[at + 0u] = w.x; pw[at + 1u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.s); pw[at + 2u] = w.x; pw[at + 3u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.lo); pw[at + 4u] = w.x; pw[at + 5u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.hi); pw[at + 6u] = w.x; pw[at + 7u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.shift); pw[at + 8u] = w.x; pw[at + 9u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.d1); pw[at + 10u] = w.x; pw[at + 11u] = w.y; }
    { const uvec2 w = unpackDouble2x32(s.m2); pw[at + 12u] = w.x; pw[at + 13u] = w.y; }
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s.n = packUint2x32(uvec2(pw[at + 0u], pw[at + 1u]));
    s.s = packDouble2x32(uvec2(pw[at + 2u], pw[at + 3u]));
    s.lo = packDouble2x32(uvec2(pw[at + 4u], pw[at + 5u]));
    s.hi = packDouble2x32(uvec2(pw[at + 6u], pw[at + 7u]));
    s.shift = packDouble2x32(uvec2(pw[at + 8u], pw[at + 9u]));
    s.d1 = packDouble2x32(uvec2(pw[at + 10u], pw[at + 11u]));
    s.m2 = packDouble2x32(uvec2(pw[at + 12u], pw[at + 13u]));
    return s;
}
bool pclr_neg(pclr_v x) { return int(unpackDouble2x32(x).y) < 0; } /* the sign bit */
/* NaN propagates; -0 orders before +0 */
pclr_v pclr_min(pclr_v a, pclr_v b) { return (isnan(a) || a < b || (a == b && pclr_neg(a))) ? a : b; }
pclr_v pclr_max(pclr_v a, pclr_v b) { return (isnan(a) || a > b || (a == b && pclr_neg(b))) ? a : b; }
pclr_a pclr_add(pclr_a a, pclr_a b) { return a + b; }
/* one value (counted already): sum, min, max, and the moments about the shift; the merge:
   integers move b's moments onto a's shift (exact), floats Chan et al.'s, the shift then moved
   to the value nearest the mean */
pclr_s pclr_identity(void) {
    pclr_s s;
    s.n = 0;
    s.s = pclr_a(0);
    s.lo = packDouble2x32(uvec2(0u, 0x7ff00000u));
    s.hi = packDouble2x32(uvec2(0u, 0xfff00000u));
    s.shift = pclr_h(0);
    s.d1 = pclr_m(0);
    s.m2 = pclr_m(0);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const pclr_m na = pclr_m(a.n), nb = pclr_m(b.n), n = na + nb, ca = a.d1 / na, cb = b.d1 / nb;
    const pclr_m delta = pclr_diff(b.shift, a.shift) + (cb - ca), c = ca + delta * (nb / n);
    const pclr_m m2 = (a.m2 - a.d1 * ca) + (b.m2 - b.d1 * cb) + delta * delta * (na * nb / n);
    precise pclr_h h = a.shift + c;
    precise pclr_m r = c - (h - a.shift);
    a.shift = h;
    a.d1 = r * n;
    a.m2 = m2 + a.d1 * r;
    a.n += b.n;
    a.s = pclr_add(a.s, b.s);
    a.lo = pclr_min(a.lo, b.lo);
    a.hi = pclr_max(a.hi, b.hi);
    return a;
}
pclr_s pclr_count_in(pclr_s a, pclr_v x, uint64_t k) {
    if (a.n == 0) a.shift = pclr_h(x);
    a.n += k;
    return a;
}
pclr_s pclr_fold_value(pclr_s a, pclr_v x) {
    a.s = pclr_add(a.s, pclr_a(x));
    a.lo = pclr_min(a.lo, x);
    a.hi = pclr_max(a.hi, x);
    const pclr_m d = pclr_diff(pclr_h(x), a.shift);
    a.d1 += d;
    a.m2 += d * d;
    return a;
}
pclr_s pclr_fold(pclr_s a, pclr_v x) {
    return pclr_fold_value(pclr_count_in(a, x, 1), x);
}
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
shared bool is_last;
#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()
#define PCLR_PARTIAL(vp, j) pclr_partial(uint(j))
#define pclr_t pclr_v /* an element's value */
pclr_t pclr_x(uint64_t e) { return pclr_v(packDouble2x32(uvec2(pclr_xw(2ul * (e)), pclr_xw(2ul * (e) + 1ul)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_v v = x;
    return pclr_fold(acc, v);
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
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
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch, split = args.split;
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
