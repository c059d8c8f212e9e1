/* pclreduce 0.4.0 kernel: type=uint8 op=any backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=16 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter; push constants: offset, n, offset2, out_at, part_at */
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
#define PCLR_VECTOR 16
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
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w / 4ul)][uint(w % 4ul)]; }
/* ---- the operation: any ---- */
#define pclr_v uint /* values are computed in this type */
#define pclr_s uint /* the state: one value */
#define PCLR_STATE_WORDS 1u
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = uint(s);
}
void pclr_store_partial(uint at, pclr_s s) {
    pw[at + 0u] = uint(s);
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s = pw[at + 0u];
    return s;
}
pclr_s pclr_identity(void) {
    pclr_s s;
    s = 0u;
    return s;
}
#define PCLR_IDENTITY pclr_identity()
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a = a | b;
    return a;
}
pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s = x != pclr_v(0) ? 1u : 0u; /* NaN counts, -0 does not */
    return s;
}
/* Folds one load (its first element at relative index i) into the accumulator, as a small tree. */
pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, uint64_t i) {
    const pclr_s e0 = pclr_lift(pclr_v(((v[0] >> 0u) & 0xffu)));
    const pclr_s e1 = pclr_lift(pclr_v(((v[0] >> 8u) & 0xffu)));
    const pclr_s e2 = pclr_lift(pclr_v(((v[0] >> 16u) & 0xffu)));
    const pclr_s e3 = pclr_lift(pclr_v(((v[0] >> 24u) & 0xffu)));
    const pclr_s e4 = pclr_lift(pclr_v(((v[1] >> 0u) & 0xffu)));
    const pclr_s e5 = pclr_lift(pclr_v(((v[1] >> 8u) & 0xffu)));
    const pclr_s e6 = pclr_lift(pclr_v(((v[1] >> 16u) & 0xffu)));
    const pclr_s e7 = pclr_lift(pclr_v(((v[1] >> 24u) & 0xffu)));
    const pclr_s e8 = pclr_lift(pclr_v(((v[2] >> 0u) & 0xffu)));
    const pclr_s e9 = pclr_lift(pclr_v(((v[2] >> 8u) & 0xffu)));
    const pclr_s e10 = pclr_lift(pclr_v(((v[2] >> 16u) & 0xffu)));
    const pclr_s e11 = pclr_lift(pclr_v(((v[2] >> 24u) & 0xffu)));
    const pclr_s e12 = pclr_lift(pclr_v(((v[3] >> 0u) & 0xffu)));
    const pclr_s e13 = pclr_lift(pclr_v(((v[3] >> 8u) & 0xffu)));
    const pclr_s e14 = pclr_lift(pclr_v(((v[3] >> 16u) & 0xffu)));
    const pclr_s e15 = pclr_lift(pclr_v(((v[3] >> 24u) & 0xffu)));
    return pclr_merge(acc, pclr_merge(pclr_merge(pclr_merge(pclr_merge(e0, e1), pclr_merge(e2, e3)), pclr_merge(pclr_merge(e4, e5), pclr_merge(e6, e7))), pclr_merge(pclr_merge(pclr_merge(e8, e9), pclr_merge(e10, e11)), pclr_merge(pclr_merge(e12, e13), pclr_merge(e14, e15)))));
}
#define PCLR_FOLD(acc, v, i) (acc) = pclr_foldv((acc), (v), (i))
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
shared bool is_last;
/* Divergence-free tree kept as a loop: the SEQUENTIAL variant, and the last
   group's fold of the partials (PoCL 3/LLVM 15 miscompiles a second unrolled
   barrier tree there; the fold runs once per launch, so the loop costs nothing). */
PCLR_FN pclr_s pclr_tree_rolled(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID;
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    lds[lid] = acc;
    PCLR_BARRIER();
#pragma unroll 1
    for (uint s = PCLR_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);
        PCLR_BARRIER();
    }
    return lds[0];
}
PCLR_FN pclr_s pclr_group_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID;
    PCLR_BARRIER();
    lds[lid] = acc;
    PCLR_BARRIER();
    /* the divergence-free tree, fully unrolled for the compile-time group size */
#pragma unroll
    for (uint s = PCLR_GROUP / 2; s >= 1; s >>= 1) {
        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);
        PCLR_BARRIER();
    }
    return lds[0];
}
#define PCLR_DEVICE_FENCE() memoryBarrierBuffer()
#define PCLR_PARTIAL(vp, j) pclr_partial(uint(j))
/* The ticket: the fence releases this group's partial before it. */
uint pclr_ticket() { memoryBarrierBuffer(); return atomicAdd(counter, 1u); }
#define pclr_t pclr_v /* an element's value */
pclr_t pclr_x(uint64_t e) { return pclr_v(((pclr_xw((e) >> 2) >> (uint((e) & 3ul) * 8u)) & 0xffu)); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_v v = x;
    return pclr_merge(acc, pclr_lift(v));
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
    if (thread < head) PCLR_FOLD1(acc, PCLR_LD(p, thread), thread);
    const pclr_u64 rest = n - head, nvec = rest / PCLR_VECTOR;
    PCLR_VREF pv = PCLR_VAT(p + head);
    /* grid stride: consecutive work-items read consecutive vectors */
    const pclr_u64 stride = groups * PCLR_GROUP, end = nvec;
    pclr_u64 i = thread;
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
    if (nvec * PCLR_VECTOR + thread < rest) PCLR_FOLD1(acc, PCLR_LD(p, head + nvec * PCLR_VECTOR + thread), head + nvec * PCLR_VECTOR + thread);
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
        acc = PCLR_IDENTITY;
        /* four loads in flight: the fold's time is L2 round trips */
        for (pclr_u64 j = lid; j < groups; j += 4 * PCLR_GROUP) {
            const pclr_s a = PCLR_PARTIAL(vp, j);
            const pclr_s b = j + PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + PCLR_GROUP) : PCLR_IDENTITY;
            const pclr_s c = j + 2 * PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + 2 * PCLR_GROUP) : PCLR_IDENTITY;
            const pclr_s d = j + 3 * PCLR_GROUP < groups ? PCLR_PARTIAL(vp, j + 3 * PCLR_GROUP) : PCLR_IDENTITY;
            acc = pclr_merge(acc, pclr_merge(pclr_merge(a, b), pclr_merge(c, d)));
        }
        acc = pclr_tree_rolled(acc, PCLR_LDS_ARG);
        if (lid == 0) {
            PCLR_STORE_OUT(0, acc);
            PCLR_COUNTER = 0;
        }
    }
}
