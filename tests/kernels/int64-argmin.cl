/* pclreduce 0.4.0 kernel: type=int64 op=argmin backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=2 stride=global variant=unrolled finish=last_group groups_per_unit=8
   entry: pclr_reduce(in, offset, n, out, partials, counter) */
/* ---- OpenCL C ---- */
typedef ulong pclr_u64;
#define PCLR_KERNEL __kernel
#define PCLR_GLOBAL __global
#define PCLR_LOCAL __local
#define PCLR_RESTRICT restrict
#define PCLR_SHARED __local
#define PCLR_FN static inline
#define PCLR_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PCLR_LID ((uint)get_local_id(0))
#define PCLR_GROUP_ID ((pclr_u64)get_group_id(0))
#define PCLR_NUM_GROUPS ((pclr_u64)get_num_groups(0))
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_ELEMENT_AT(p) ((pclr_u64)(p) / sizeof(pclr_t))
#define PCLR_VREF PCLR_GLOBAL const pclr_vec *
#define PCLR_VAT(p) ((PCLR_GLOBAL const pclr_vec *)(p))
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_STORE_PARTIAL(k, s) partials[k] = (s)
#define PCLR_COUNTER (*counter)
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#define PCLR_STATES_VIEW PCLR_GLOBAL volatile const pclr_s *
#define PCLR_STATES_ARG partials
/* Orders a group's partial before its ticket, device-wide. */
#if __OPENCL_C_VERSION__ >= 200
#define PCLR_DEVICE_FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device)
#elif defined(cl_nv_pragma_unroll)
#define PCLR_DEVICE_FENCE() asm volatile("membar.gl;")
#else
#define PCLR_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 2
typedef long pclr_t;
typedef long2 pclr_vec; /* 16-byte loads */
/* ---- the operation: argmin ---- */
typedef long pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
typedef struct pclr_s { ulong i; long v; } pclr_s;
/* a partial written by another group, read field by field through a volatile pointer */
PCLR_FN pclr_s pclr_partial(PCLR_GLOBAL volatile const pclr_s *vp, pclr_u64 j) {
    pclr_s s;
    s.i = vp[j].i;
    s.v = vp[j].v;
    return s;
}
#define PCLR_PARTIAL(vp, j) pclr_partial((vp), (j))
/* b wins with the better value; ties go to the smaller index. A work-item meets its elements
   in index order: a strictly better value wins its fold, and any element beats the identity (no index yet) */
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.i = ~0UL;
    s.v = 0x7fffffffffffffffL;
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    const int b_wins = b.v < a.v || (b.v == a.v && b.i < a.i);
    if (b_wins) { a.v = b.v; a.i = b.i; }
    return a;
}
PCLR_FN pclr_s pclr_fold(pclr_s a, pclr_v x, pclr_u64 i) {
    if (x < a.v || a.i == ~0UL) { a.v = x; a.i = i; }
    return a;
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold((acc), PCLR_VALUE(x), (i))
PCLR_FN pclr_v pclr_min(pclr_v a, pclr_v b) { return a < b ? a : b; }
/* whether a load with least value lo can change a (its elements come in index order: only a strictly better one can) */
PCLR_FN bool pclr_load_wins(pclr_s a, pclr_v lo) {
    return lo < a.v || a.i == ~0UL;
}
/* Folds one loaded vector into the accumulator, element by element where it can change it (pclr_load_wins). */
#define PCLR_FOLD(acc, v, i) do { \
    pclr_v lo_ = PCLR_VALUE((v).s0); \
    lo_ = pclr_min(lo_, PCLR_VALUE((v).s1)); \
    if (pclr_load_wins((acc), lo_)) { \
        (acc) = pclr_fold((acc), PCLR_VALUE((v).s0), (i) + 0); (acc) = pclr_fold((acc), PCLR_VALUE((v).s1), (i) + 1); \
    } \
} while (0)
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
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
typedef pclr_vec pclr_in; /* one load: a vector of x */
#define PCLR_LOAD(j) pv[j]
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *counter) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
    PCLR_SHARED uint is_last;
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
        PCLR_DEVICE_FENCE(); /* release: the partial before the ticket */
        is_last = atomic_inc(counter) == groups - 1;
        if (is_last) PCLR_DEVICE_FENCE(); /* acquire, in the thread that read the ticket */
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
