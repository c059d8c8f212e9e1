/* pclreduce 0.4.0 kernel: type=uint8 op=max backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=16 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter; push constants: offset, n, offset2, out_at, part_at */
#version 450
#extension GL_ARB_gpu_shader_int64 : require
/* ---- GLSL 4.50 compute (Vulkan) ---- */
#define pclr_u64 uint64_t
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
/* ---- the operation: max ---- */
#define pclr_v uint /* values are computed in this type */
struct pclr_s { uint v; };
#define PCLR_STATE_WORDS 1u
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = uint(s.v);
}
void pclr_store_partial(uint at, pclr_s s) {
    pw[at + 0u] = uint(s.v);
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s.v = pw[at + 0u];
    return s;
}
pclr_v pclr_max(pclr_v a, pclr_v b) { return a > b ? a : b; }
pclr_s pclr_identity(void) {
    pclr_s s;
    s.v = 0u;
    return s;
}
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a.v = pclr_max(a.v, b.v);
    return a;
}
pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s.v = x;
    return s;
}
pclr_s pclr_fold1(pclr_s acc, uint64_t r) { return pclr_merge(acc, pclr_lift(pclr_v(((pclr_xw((args.offset + r) >> 2) >> (uint((args.offset + r) & 3ul) * 8u)) & 0xffu)))); }
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
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
shared bool is_last;
/* The divergence-free tree (the loop's bounds are constants: compilers unroll it). */
pclr_s pclr_tree(pclr_s acc) {
    const uint lid = gl_LocalInvocationID.x;
    barrier(); /* lds may still be read by an earlier call */
    lds[lid] = acc;
    barrier();
    for (uint s = PCLR_GROUP / 2; s > 0u; s >>= 1) {
        if (lid < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);
        barrier();
    }
    return lds[0];
}
#define pclr_group_reduce pclr_tree
/* ---- the kernel ---- */
#define pclr_in pclr_in_x
#define pclr_load(j, j2) xv[uint(j)]
#define PCLR_FOLDV(acc, v, i) pclr_foldv((acc), (v), (i))
void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint64_t group = uint64_t(gl_WorkGroupID.x), groups = uint64_t(gl_NumWorkGroups.x);
    const uint64_t thread = group * PCLR_GROUP + lid, n = args.n;
    pclr_s acc = pclr_identity();
    /* Level 1, in-thread. Elements before the first whole load form the head. */
    uint64_t head = (PCLR_VECTOR - args.offset % PCLR_VECTOR) % PCLR_VECTOR;
    if (head > n) head = n;
    if (thread < head) acc = pclr_fold1(acc, thread);
    const uint64_t rest = n - head, nvec = rest / PCLR_VECTOR;
    const uint64_t vx = (args.offset + head) / PCLR_VECTOR, vy = (args.offset2 + head) / PCLR_VECTOR; /* the first loads */
    /* grid stride: consecutive work-items read consecutive vectors */
    const pclr_u64 stride = groups * PCLR_GROUP, end = nvec;
    pclr_u64 i = thread;
    for (; i + (PCLR_UNROLL - 1) * stride < end; i += PCLR_UNROLL * stride) {
        pclr_in v[PCLR_UNROLL]; /* all loads issued before the first use */
        for (uint k = 0u; k < PCLR_UNROLL; ++k) v[k] = pclr_load(vx + i + k * stride, vy + i + k * stride);
        for (uint k = 0u; k < PCLR_UNROLL; ++k) acc = PCLR_FOLDV(acc, v[k], head + (i + k * stride) * PCLR_VECTOR);
    }
    /* the last, partial round (fewer than PCLR_UNROLL loads left), folded under a guard */
    for (uint k = 0u; k < PCLR_UNROLL - 1; ++k)
        if (i + k * stride < end) acc = PCLR_FOLDV(acc, pclr_load(vx + i + k * stride, vy + i + k * stride), head + (i + k * stride) * PCLR_VECTOR);
    /* the tail: fewer than PCLR_VECTOR elements after the last whole load */
    if (nvec * PCLR_VECTOR + thread < rest) acc = pclr_fold1(acc, head + nvec * PCLR_VECTOR + thread);
    /* Level 2, in-group. */
    acc = pclr_group_reduce(acc);
    /* Level 3, between groups. */
    if (groups == 1ul) {
        if (lid == 0u) pclr_store_out(args.out_at, acc);
        return;
    }
    /* the last group to finish folds the partials in a fixed order (deterministic) */
    if (lid == 0u) {
        pclr_store_partial(uint(group) * PCLR_STATE_WORDS, acc);
        memoryBarrierBuffer(); /* release: the partial before the ticket */
        is_last = atomicAdd(counter, 1u) == uint(groups) - 1u;
    }
    barrier();
    if (is_last) {
        memoryBarrierBuffer(); /* acquire */
        acc = pclr_identity();
        /* four loads in flight: the fold's time is L2 round trips */
        for (uint j = lid; j < uint(groups); j += 4u * PCLR_GROUP) {
            const pclr_s a = pclr_partial(j);
            const pclr_s b = j + PCLR_GROUP < uint(groups) ? pclr_partial(j + PCLR_GROUP) : pclr_identity();
            const pclr_s c = j + 2u * PCLR_GROUP < uint(groups) ? pclr_partial(j + 2u * PCLR_GROUP) : pclr_identity();
            const pclr_s d = j + 3u * PCLR_GROUP < uint(groups) ? pclr_partial(j + 3u * PCLR_GROUP) : pclr_identity();
            acc = pclr_merge(acc, pclr_merge(pclr_merge(a, b), pclr_merge(c, d)));
        }
        acc = pclr_tree(acc);
        if (lid == 0u) {
            pclr_store_out(args.out_at, acc);
            counter = 0u;
        }
    }
}
