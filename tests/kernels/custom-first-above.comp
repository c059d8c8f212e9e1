/* pclreduce 0.4.0 kernel: type=float op=custom backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=local variant=naive finish=last_group groups_per_unit=8 reduce="state k: ulong = ULONG_MAX; lift k = x > t ? i : ULONG_MAX; merge k = a.k != ULONG_MAX ? a.k : b.k; result k" params="float t"
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter; push constants: offset, n, offset2, out_at, part_at, p0..p0 */
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
#define PCLR_ELEMENT_AT(p) (p)
#define PCLR_VREF uint64_t
#define PCLR_VAT(p) ((p) / PCLR_VECTOR)
#define PCLR_STORE_OUT(k, s) pclr_store_out(args.out_at + uint(k) * PCLR_STATE_WORDS, (s))
#define PCLR_STORE_PARTIAL(k, s) pclr_store_partial(uint(k) * PCLR_STATE_WORDS, (s))
#define PCLR_COUNTER counter
#define PCLR_LDS_PARAM uint pclr_no_lds
#define PCLR_LDS_ARG 0u
#define PCLR_STATES_VIEW uint
#define PCLR_STATES_ARG 0u
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
layout(local_size_x = PCLR_GROUP) in;
#define pclr_in_x uvec4 /* one load of x: 16 bytes */
layout(std430, set = 0, binding = 0) readonly buffer pclr_x_words { pclr_in_x xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer pclr_out_words { uint outw[]; };
layout(std430, set = 0, binding = 2) coherent buffer pclr_partial_words { uint pw[]; };
layout(std430, set = 0, binding = 3) coherent buffer pclr_counter_word { uint counter; };
layout(push_constant) uniform pclr_args_block {
    layout(offset = 0) uint64_t offset;   /* x's first element, counted from the binding's start */
    layout(offset = 8) uint64_t n;
    layout(offset = 16) uint64_t offset2; /* y's first element */
    layout(offset = 24) uint out_at;      /* out's first word */
    layout(offset = 28) uint part_at;     /* the atomic finish's word in the partials */
    layout(offset = 32) float p0;
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w / 4ul)][uint(w % 4ul)]; }
/* ---- the operation: custom ---- */
#define pclr_s uint64_t /* the state: one value */
#define PCLR_STATE_WORDS 2u
void pclr_store_out(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s); outw[at + 0u] = w.x; outw[at + 1u] = w.y; }
}
void pclr_store_partial(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s); pw[at + 0u] = w.x; pw[at + 1u] = w.y; }
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s = packUint2x32(uvec2(pw[at + 0u], pw[at + 1u]));
    return s;
}
pclr_s pclr_identity(void) {
    pclr_s s;
    precise uint64_t v_k = 18446744073709551615ul;
    s = v_k;
    return s;
}
#define PCLR_IDENTITY pclr_identity()
bool pclr_is_identity(pclr_s s) {
    return uint64_t(s) == 0xfffffffffffffffful;
}
/* the description's merge: b's elements come after a's */
pclr_s pclr_merge_parts(pclr_s a, pclr_s b) {
    pclr_s s;
    precise uint64_t v_k = ((int(a != 18446744073709551615ul) != int(0)) ? a : b);
    s = v_k;
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
pclr_s pclr_map(float x, uint64_t i, float p0 /* t */) {
    pclr_s s;
    precise uint64_t v_k = ((int(x > p0) != int(0)) ? i : 18446744073709551615ul);
    s = v_k;
    return s;
}
#define pclr_lift(s) (s) /* (pclr_map lifted it) */
/* Folds one load (its first element at relative index i) into the accumulator, as a small tree. */
pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, uint64_t i) {
    const pclr_s e0 = pclr_lift(pclr_map(float(uintBitsToFloat(v[0])), i + 0ul, args.p0));
    const pclr_s e1 = pclr_lift(pclr_map(float(uintBitsToFloat(v[1])), i + 1ul, args.p0));
    const pclr_s e2 = pclr_lift(pclr_map(float(uintBitsToFloat(v[2])), i + 2ul, args.p0));
    const pclr_s e3 = pclr_lift(pclr_map(float(uintBitsToFloat(v[3])), i + 3ul, args.p0));
    return pclr_fold_in(acc, pclr_merge_parts(pclr_merge_parts(e0, e1), pclr_merge_parts(e2, e3)));
}
#define PCLR_FOLD(acc, v, i) (acc) = pclr_foldv((acc), (v), (i))
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
shared bool is_last;
PCLR_FN pclr_s pclr_group_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID;
    PCLR_BARRIER();
    lds[lid] = acc;
    PCLR_BARRIER();
    /* interleaved tree, divergent modulo test (the paper's first version) */
#pragma unroll 1
    for (uint s = 1; s < PCLR_GROUP; s *= 2) {
        if (lid % (2 * s) == 0) lds[lid] = pclr_merge(lds[lid], lds[lid + s]);
        PCLR_BARRIER();
    }
    return lds[0];
}
#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()
#define PCLR_PARTIAL(vp, j) pclr_partial(uint(j))
/* The ticket: the fence releases this group's partial before it. */
uint pclr_ticket() { memoryBarrierBuffer(); return atomicAdd(counter, 1u); }
#define pclr_t float /* the map's input */
pclr_t pclr_x(uint64_t e) { return float(uintBitsToFloat(pclr_xw((e)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_s v = pclr_map(x, i, args.p0);
    return pclr_fold_in(acc, pclr_lift(v));
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
#define pclr_in pclr_in_x /* one load: words of x */
#define PCLR_LOAD(j) xv[uint(pv + (j))]
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, n = args.n;
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    pclr_s acc = PCLR_IDENTITY;
    /* Level 1, in-thread. Elements before the first vector-aligned address form the head. */
    pclr_u64 head = (PCLR_VECTOR - PCLR_ELEMENT_AT(p) % PCLR_VECTOR) % PCLR_VECTOR;
    if (head > n) head = n;
    if (thread == 0) for (pclr_u64 e = 0; e < head; ++e) PCLR_FOLD1(acc, PCLR_LD(p, e), e);
    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;
    PCLR_VREF pv = PCLR_VAT(p + head);
    /* local stride: work-item t walks its own contiguous block of vectors (CPU-friendly) */
    const pclr_u64 block = (nvec + groups * PCLR_GROUP - 1) / (groups * PCLR_GROUP), stride = 1;
    pclr_u64 i = thread * block;
    const pclr_u64 end = i + block < nvec ? i + block : nvec;
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
    if (thread == groups * PCLR_GROUP - 1) for (pclr_u64 e = head + nvec * PCLR_VECTOR; e < n; ++e) PCLR_FOLD1(acc, PCLR_LD(p, e), e);
    /* Level 2, in-group. */
    acc = pclr_group_reduce(acc, PCLR_LDS_ARG);
    /* Level 3, between groups. */
    if (groups == 1) {
        if (lid == 0) PCLR_STORE_OUT(0, acc);
        return;
    }
    /* the last group to finish folds the partials in a fixed order (deterministic) */
    if (lid == 0) {
        PCLR_STORE_PARTIAL(group, acc);
        is_last = pclr_ticket() == groups - 1;
    }
    PCLR_BARRIER();
    if (is_last) {
        PCLR_DEVICE_FENCE();
        PCLR_STATES_VIEW vp = PCLR_STATES_ARG;
        if (lid == 0) {
            acc = PCLR_IDENTITY;
            for (pclr_u64 j = 0; j < groups; ++j) acc = pclr_merge(acc, PCLR_PARTIAL(vp, j));
            PCLR_STORE_OUT(0, acc);
            PCLR_COUNTER = 0;
        }
    }
}
