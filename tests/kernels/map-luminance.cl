/* pclreduce 0.4.0 kernel: type=float op=stats backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 map="0.2126*x.x+0.7152*x.y+0.0722*x.z" map_type=double components=4
   entry: pclr_reduce(in, offset, n, out, partials, counter) */
/* ---- OpenCL C ---- */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
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
#define PCLR_VECTOR 1
typedef float4 pclr_t;
typedef pclr_t pclr_vec; /* one element per load */
#pragma OPENCL FP_CONTRACT OFF /* a map's a * b + c rounds twice, as C and the CPU reference do */
/* ---- the map: 0.2126*x.x+0.7152*x.y+0.0722*x.z ---- */
PCLR_FN double pclr_map(pclr_t x, pclr_u64 i) {
    return (((0.21260000000000001 * (double)(x.x)) + (0.71519999999999995 * (double)(x.y))) + (0.0722 * (double)(x.z)));
}
#define PCLR_MAP(x, i) pclr_map((x), (i))
/* ---- the operation: stats, accumulate native ---- */
typedef double pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
#define PCLR_NEG(x) (as_long(x) < 0)
PCLR_FN double pclr_min(double a, double b) { /* NaN propagates, -0 < +0 */
#if defined(PCLR_NVIDIA_SM80)
    double r; asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return a != a || b != b ? a + b : r;
#else
    return (a != a || a < b || (a == b && PCLR_NEG(a))) ? a : b;
#endif
}
PCLR_FN double pclr_max(double a, double b) { /* NaN propagates, -0 < +0 */
#if defined(PCLR_NVIDIA_SM80)
    double r; asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return a != a || b != b ? a + b : r;
#else
    return (a != a || a > b || (a == b && PCLR_NEG(b))) ? a : b;
#endif
}
typedef double pclr_a; /* sums accumulate in this type */
PCLR_FN pclr_a pclr_add(pclr_a a, pclr_a b) { return a + b; }
typedef double pclr_m; /* mean and M2 are computed in this type */
typedef double pclr_h; /* the moments' shift */
PCLR_FN pclr_m pclr_diff(pclr_h x, pclr_h h) { return x - h; }
typedef struct pclr_s { ulong n; double s; double lo; double hi; double shift; double d1; double m2; } pclr_s;
/* a partial written by another group, read field by field through a volatile pointer */
PCLR_FN pclr_s pclr_partial(PCLR_GLOBAL volatile const pclr_s *vp, pclr_u64 j) {
    pclr_s s;
    s.n = vp[j].n;
    s.s = vp[j].s;
    s.lo = vp[j].lo;
    s.hi = vp[j].hi;
    s.shift = vp[j].shift;
    s.d1 = vp[j].d1;
    s.m2 = vp[j].m2;
    return s;
}
#define PCLR_PARTIAL(vp, j) pclr_partial((vp), (j))
/* one value (counted already): sum, min, max, and the moments about the shift; the merge:
   integers move b's moments onto a's shift (exact), floats Chan et al.'s, the shift then moved
   to the value nearest the mean */
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.n = 0;
    s.s = (pclr_a)0;
    s.lo = ((double)INFINITY);
    s.hi = (-((double)INFINITY));
    s.shift = (pclr_h)0;
    s.d1 = (pclr_m)0;
    s.m2 = (pclr_m)0;
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const pclr_m na = (pclr_m)a.n, nb = (pclr_m)b.n, n = na + nb, ca = a.d1 / na, cb = b.d1 / nb;
    const pclr_m delta = pclr_diff(b.shift, a.shift) + (cb - ca), c = ca + delta * (nb / n);
    const pclr_m m2 = (a.m2 - a.d1 * ca) + (b.m2 - b.d1 * cb) + delta * delta * (na * nb / n);
    pclr_h h = a.shift + c;
    pclr_m r = c - (h - a.shift);
    a.shift = h;
    a.d1 = r * n;
    a.m2 = m2 + a.d1 * r;
    a.n += b.n;
    a.s = pclr_add(a.s, b.s);
    a.lo = pclr_min(a.lo, b.lo);
    a.hi = pclr_max(a.hi, b.hi);
    return a;
}
PCLR_FN pclr_s pclr_count_in(pclr_s a, pclr_v x, pclr_u64 k) {
    if (a.n == 0) a.shift = (pclr_h)x;
    a.n += k;
    return a;
}
PCLR_FN pclr_s pclr_fold_value(pclr_s a, pclr_v x) {
    a.s = pclr_add(a.s, (pclr_a)x);
    a.lo = pclr_min(a.lo, x);
    a.hi = pclr_max(a.hi, x);
    const pclr_m d = pclr_diff((pclr_h)x, a.shift);
    a.d1 += d;
    a.m2 += d * d;
    return a;
}
/* Folds one loaded vector into the accumulator, element by element. */
#define PCLR_FOLD(acc, v, i) do { \
    (acc) = pclr_count_in((acc), PCLR_VALUE(PCLR_MAP((v), (i))), PCLR_VECTOR); \
    (acc) = pclr_fold_value((acc), PCLR_VALUE(PCLR_MAP((v), (i)))); \
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
    /* Level 1, in-thread. */
    const pclr_u64 head = 0, nvec = n;
    PCLR_VREF pv = PCLR_VAT(p);
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
