/* pclreduce 0.4.0 kernel: type=uint op=min backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=atomic groups_per_unit=8
   entry: main; bindings 0 x, 1 out, 2 partials, 3 counter; push constants: offset, n, offset2, out_at, part_at */
#version 450
#extension GL_ARB_gpu_shader_int64 : require
/* ---- GLSL 4.50 compute (Vulkan) ---- */
#define pclr_u64 uint64_t
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
} args;
uint pclr_xw(uint64_t w) { return xv[uint(w / 4ul)][uint(w % 4ul)]; }
/* ---- the operation: min ---- */
#define pclr_v uint /* values are computed in this type */
struct pclr_s { uint v; };
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = uint(s.v);
}
pclr_v pclr_min(pclr_v a, pclr_v b) { return a < b ? a : b; }
pclr_s pclr_identity(void) {
    pclr_s s;
    s.v = 0xffffffffu;
    return s;
}
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a.v = pclr_min(a.v, b.v);
    return a;
}
pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s.v = x;
    return s;
}
pclr_s pclr_fold1(pclr_s acc, uint64_t r) { return pclr_merge(acc, pclr_lift(pclr_v(pclr_xw((args.offset + r))))); }
/* Folds one load (its first element at relative index i) into the accumulator, as a small tree. */
pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, uint64_t i) {
    const pclr_s e0 = pclr_lift(pclr_v(v[0]));
    const pclr_s e1 = pclr_lift(pclr_v(v[1]));
    const pclr_s e2 = pclr_lift(pclr_v(v[2]));
    const pclr_s e3 = pclr_lift(pclr_v(v[3]));
    return pclr_merge(acc, pclr_merge(pclr_merge(e0, e1), pclr_merge(e2, e3)));
}
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
shared pclr_s lds[PCLR_GROUP];
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
    /* the partials' word args.part_at holds the running value; it is the identity between calls */
    if (lid == 0u) {
        atomicMin(pw[args.part_at], acc.v);
        memoryBarrierBuffer();
        if (atomicAdd(counter, 1u) == uint(groups) - 1u) {
            memoryBarrierBuffer();
            outw[args.out_at] = uint(atomicExchange(pw[args.part_at], 0xffffffffu));
            counter = 0u;
        }
    }
}
