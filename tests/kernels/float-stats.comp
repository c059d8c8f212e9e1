/* pclreduce 0.4.0 kernel: type=float op=stats backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=unrolled finish=last_group groups_per_unit=8
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
/* ---- the operation: stats, accumulate native ---- */
#define pclr_v float /* values are computed in this type */
#define pclr_a float /* sums accumulate in this type (integers wrap) */
#define pclr_m float /* mean and M2 are computed in this type */
#define pclr_h float /* the moments' shift */
pclr_m pclr_diff(pclr_h x, pclr_h h) { return x - h; }
struct pclr_s { uint64_t n; float s; float lo; float hi; float shift; float d1; float m2; };
#define PCLR_STATE_WORDS 8u
void pclr_store_out(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.n); outw[at + 0u] = w.x; outw[at + 1u] = w.y; }
    outw[at + 2u] = floatBitsToUint(s.s);
    outw[at + 3u] = floatBitsToUint(s.lo);
    outw[at + 4u] = floatBitsToUint(s.hi);
    outw[at + 5u] = floatBitsToUint(s.shift);
    outw[at + 6u] = floatBitsToUint(s.d1);
    outw[at + 7u] = floatBitsToUint(s.m2);
}
void pclr_store_partial(uint at, pclr_s s) {
    { const uvec2 w = unpackUint2x32(s.n); pw[at + 0u] = w.x; pw[at + 1u] = w.y; }
    pw[at + 2u] = floatBitsToUint(s.s);
    pw[at + 3u] = floatBitsToUint(s.lo);
    pw[at + 4u] = floatBitsToUint(s.hi);
    pw[at + 5u] = floatBitsToUint(s.shift);
    pw[at + 6u] = floatBitsToUint(s.d1);
    pw[at + 7u] = floatBitsToUint(s.m2);
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s.n = packUint2x32(uvec2(pw[at + 0u], pw[at + 1u]));
    s.s = uintBitsToFloat(pw[at + 2u]);
    s.lo = uintBitsToFloat(pw[at + 3u]);
    s.hi = uintBitsToFloat(pw[at + 4u]);
    s.shift = uintBitsToFloat(pw[at + 5u]);
    s.d1 = uintBitsToFloat(pw[at + 6u]);
    s.m2 = uintBitsToFloat(pw[at + 7u]);
    return s;
}
bool pclr_neg(pclr_v x) { return floatBitsToInt(x) < 0; } /* the sign bit */
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
    s.lo = uintBitsToFloat(0x7f800000u);
    s.hi = uintBitsToFloat(0xff800000u);
    s.shift = pclr_h(0);
    s.d1 = pclr_m(0);
    s.m2 = pclr_m(0);
    return s;
}
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
pclr_s pclr_fold1(pclr_s acc, uint64_t r) { return pclr_fold(acc, pclr_v(uintBitsToFloat(pclr_xw((args.offset + r))))); }
/* Folds one load (its first element at relative index i) into the accumulator, element by element. */
pclr_s pclr_foldv(pclr_s acc, pclr_in_x v, uint64_t i) {
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[0])));
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[1])));
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[2])));
    acc = pclr_fold(acc, pclr_v(uintBitsToFloat(v[3])));
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
