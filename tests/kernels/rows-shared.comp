/* pclreduce 0.4.0 kernel: type=float op=sum backend=vulkan accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=rows lanes=256
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
/* ---- the operation: sum, accumulate native ---- */
#define pclr_v float /* values are computed in this type */
#define pclr_a float /* sums accumulate in this type (integers wrap) */
#define pclr_s float /* the state: one value */
#define PCLR_STATE_WORDS 1u
void pclr_store_out(uint at, pclr_s s) {
    outw[at + 0u] = floatBitsToUint(s);
}
void pclr_store_partial(uint at, pclr_s s) {
    pw[at + 0u] = floatBitsToUint(s);
}
/* a partial another group wrote (pw is coherent) */
pclr_s pclr_partial(uint j) {
    const uint at = j * PCLR_STATE_WORDS;
    pclr_s s;
    s = uintBitsToFloat(pw[at + 0u]);
    return s;
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
shared bool is_last;
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
#define pclr_t pclr_v /* an element's value */
pclr_t pclr_x(uint64_t e) { return pclr_v(uintBitsToFloat(pclr_xw((e)))); }
pclr_s pclr_fold_one(pclr_s acc, pclr_t x, uint64_t i) {
    const pclr_v v = x;
    return pclr_merge(acc, pclr_lift(v));
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_one((acc), (x), (i))
/* ---- the layout: rows, 256 work-items per row ---- */
PCLR_FN pclr_s pclr_fold_partials(PCLR_STATES_PARAM, pclr_u64 first, pclr_u64 split, uint from, uint step) {
    PCLR_STATES_VIEW vp = partials; /* written by other groups */
    pclr_s s = PCLR_IDENTITY;
    for (pclr_u64 k = from; k < split; k += step) s = pclr_merge(s, PCLR_PARTIAL(vp, first + k));
    return s;
}
/* Row r: cols elements from element r * pitch. */
#define PCLR_ROW_BOUNDS(r, lo, len) { (lo) = (r) * pitch; (len) = cols; }
/* ---- the kernel ---- */
void main() {
    const uint64_t offset = args.offset, offset2 = args.offset2, n = args.n, rows = args.rows, cols = args.cols;
    const uint64_t pitch = args.pitch, split = args.split;
    const uint lid = PCLR_LID;
    const pclr_u64 groups = PCLR_NUM_GROUPS;
    PCLR_UNUSED(pitch); PCLR_UNUSED(cols); PCLR_UNUSED(offsets); PCLR_UNUSED(n);
    for (pclr_u64 task = PCLR_GROUP_ID; task < rows * split; task += groups) {
        const pclr_u64 r = task / split, part = task % split;
        pclr_u64 lo = 0, len = 0;
        PCLR_ROW_BOUNDS(r, lo, len);
        /* split groups share the row: each folds a contiguous chunk */
        const pclr_u64 chunk = (len + split - 1) / split;
        const pclr_u64 b = part * chunk < len ? part * chunk : len, e = b + chunk < len ? b + chunk : len;
        PCLR_XREF p = PCLR_XAT(offset + lo);
        pclr_s acc = PCLR_IDENTITY;
        pclr_u64 j = b + lid;
        for (; j + (PCLR_UNROLL - 1) * PCLR_GROUP < e; j += PCLR_UNROLL * PCLR_GROUP) {
            pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, j + u * PCLR_GROUP);
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        if (j < e) {
            pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_GROUP < e ? j + u * PCLR_GROUP : j));
#pragma unroll
            for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                if (j + u * PCLR_GROUP < e) PCLR_FOLD1(acc, w[u], j + u * PCLR_GROUP);
        }
        acc = pclr_group_reduce(acc, PCLR_LDS_ARG);
        if (split == 1) {
            if (lid == 0) PCLR_STORE_OUT(r, acc);
        } else {
            /* the last of the row's groups folds their partials (deterministic) */
            if (lid == 0) {
                PCLR_STORE_PARTIAL(task, acc);
                PCLR_DEVICE_FENCE(); /* release: the partial before the ticket */
                is_last = PCLR_TICKET(r) == split - 1;
#ifdef PCLR_FOLD_IN_ONE
                if (is_last) {
                    PCLR_DEVICE_FENCE(); /* acquire */
                    PCLR_STORE_OUT(r, pclr_fold_partials(PCLR_STATES_ARG, r * split, split, 0, 1));
                    PCLR_CTL(1 + r) = 0u;
                }
            }
#else
                if (is_last) PCLR_DEVICE_FENCE(); /* acquire */
            }
            PCLR_BARRIER();
            if (is_last) { /* (uniform: is_last is the group's) */
                PCLR_DEVICE_FENCE();
                acc = pclr_group_reduce(pclr_fold_partials(PCLR_STATES_ARG, r * split, split, lid, PCLR_GROUP), PCLR_LDS_ARG);
                if (lid == 0) {
                    PCLR_STORE_OUT(r, acc);
                    PCLR_CTL(1 + r) = 0u;
                }
            }
#endif
            PCLR_BARRIER(); /* is_last is read before the next task sets it */
        }
    }
}
