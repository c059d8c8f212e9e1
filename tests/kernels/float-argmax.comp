/* pclreduce 0.4.0 kernel: type=float op=argmax backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=last_group groups_per_unit=8
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
/* ---- the operation: argmax ---- */
#define pclr_v float /* values are computed in this type */
struct pclr_s { uint64_t i; float v; };
#define PCLR_STATE_WORDS 4u
void pclr_store_out(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.i); outw[at + 0u] = w.x; outw[at + 1u] = w.y; }
    outw[at + 2u] = floatBitsToUint(s.v);
}
void pclr_store_partial(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.i); pw[at + 0u] = w.x; pw[at + 1u] = w.y; }
    pw[at + 2u] = floatBitsToUint(s.v);
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s.i = packUint2x32(uvec2(pw[at + 0u], pw[at + 1u]));
    s.v = uintBitsToFloat(pw[at + 2u]);
    return s;
}
/* b wins with the better value; ties go to the smaller index; a NaN beats any number and
   the first NaN wins (NumPy). A work-item meets its elements in index order: a strictly better value
   (or the first NaN) wins its fold, and any element beats the identity (no index yet) */
pclr_s pclr_identity(void) {
    pclr_s s;
    s.i = 0xfffffffffffffffful;
    s.v = uintBitsToFloat(0xff800000u);
    return s;
}
pclr_s pclr_merge(pclr_s a, pclr_s b) {
    const bool b_wins = isnan(b.v) ? (!isnan(a.v) || b.i < a.i)
                                   : (!isnan(a.v) && (b.v > a.v || (b.v == a.v && b.i < a.i)));
    if (b_wins) { a.v = b.v; a.i = b.i; }
    return a;
}
pclr_s pclr_fold(pclr_s a, pclr_v x, uint64_t i) {
    if (x > a.v || (isnan(x) && !isnan(a.v)) || a.i == 0xfffffffffffffffful) { a.v = x; a.i = i; }
    return a;
}
pclr_s pclr_fold1(pclr_s acc, uint64_t r) { return pclr_fold(acc, pclr_v(uintBitsToFloat(pclr_xw((args.offset + r)))), r); }
/* Folds one load (its first element at relative index i) into the accumulator, element by element. */
pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, uint64_t i) {
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[0])), i + 0ul);
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[1])), i + 1ul);
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[2])), i + 2ul);
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[3])), i + 3ul);
    return acc;
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
