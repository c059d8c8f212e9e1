/* pclreduce 0.4.0 kernel: type=double op=stats backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=columns lanes=8
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
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
#define PCLR_LD(p, k) (p)[k]
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_STORE_PARTIAL(k, s) partials[k] = (s)
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#define PCLR_STATES_VIEW PCLR_GLOBAL volatile const pclr_s *
#define PCLR_STATES_ARG partials
#define PCLR_CTL(k) ctl[k]
#define PCLR_TICKET(k) atomic_inc(ctl + 1 + (k))
#define PCLR_STATES_PARAM PCLR_GLOBAL pclr_s *partials
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
typedef double pclr_t;
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
PCLR_FN pclr_s pclr_fold(pclr_s a, pclr_v x) {
    return pclr_fold_value(pclr_count_in(a, x, 1), x);
}
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold((acc), PCLR_VALUE(x))
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
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 rows, pclr_u64 cols,
                             pclr_u64 pitch, PCLR_GLOBAL const pclr_u64 *PCLR_RESTRICT offsets, pclr_u64 n, pclr_u64 split,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *ctl /* [0]: the segments' status; [1 + k]: row or tile k's ticket */) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP];
    PCLR_SHARED uint is_last;
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
