/* pclreduce 0.4.0 kernel: type=float op=minmax backend=opencl accumulate=native wave=32 group=256 unroll=4 vector=1 stride=global variant=unrolled finish=last_group groups_per_unit=8 layout=segments lanes=32
   entry: pclr_reduce(in, offset, rows, cols, pitch, offsets, n, split, out, partials, ctl) */
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
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_CAST(T, x) ((T)(x))
#define PCLR_UNUSED(x) (void)(x)
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#define PCLR_CTL(k) ctl[k]
#define PCLR_OFFSET(k) offsets[k]
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
typedef float pclr_t;
/* ---- the operation: minmax ---- */
typedef float pclr_v; /* values are computed in this type */
#define PCLR_VALUE(x) ((pclr_v)(x))
#define PCLR_NEG(x) (as_int(x) < 0)
PCLR_FN float pclr_min(float a, float b) { /* NaN propagates, -0 < +0 */
#if defined(PCLR_NVIDIA_SM80)
    float r; asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; /* one instruction */
#else
    return (a != a || a < b || (a == b && PCLR_NEG(a))) ? a : b;
#endif
}
PCLR_FN float pclr_max(float a, float b) { /* NaN propagates, -0 < +0 */
#if defined(PCLR_NVIDIA_SM80)
    float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; /* one instruction */
#else
    return (a != a || a > b || (a == b && PCLR_NEG(b))) ? a : b;
#endif
}
typedef struct pclr_s { float lo; float hi; } pclr_s;
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.lo = INFINITY;
    s.hi = (-INFINITY);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    a.lo = pclr_min(a.lo, b.lo);
    a.hi = pclr_max(a.hi, b.hi);
    return a;
}
PCLR_FN pclr_s pclr_lift(pclr_v x) {
    pclr_s s;
    s.lo = x;
    s.hi = x;
    return s;
}
#define PCLR_LIFT(x, i) pclr_lift(PCLR_VALUE(x))
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_merge((acc), PCLR_LIFT((x), (i)))
/* ---- the layout: segments, 32 work-items per row ---- */
#define PCLR_LANES 32
/* Segment r is [offsets[r], offsets[r + 1]). The offsets are in device memory, so they are checked
   here: a decreasing pair or an end past n makes the segment empty and sets ctl[0]. */
#define PCLR_ROW_BOUNDS(r, lo, len) { const pclr_u64 a_ = PCLR_OFFSET(r), b_ = PCLR_OFFSET((r) + 1); \
    if (b_ < a_ || b_ > n) { PCLR_CTL(0) = 1u; (lo) = 0; (len) = 0; } else { (lo) = a_; (len) = b_ - a_; } }
/* a team's values in a tree through local memory; its lane 0 gets the result */
PCLR_FN pclr_s pclr_team_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID, lane = lid % PCLR_LANES;
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    lds[lid] = acc;
    PCLR_BARRIER();
#pragma unroll 1
    for (uint s = PCLR_LANES / 2; s > 0; s >>= 1) {
        if (lane < s) lds[lid] = acc = pclr_merge(acc, lds[lid + s]);
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
#define PCLR_TEAMS (PCLR_GROUP / PCLR_LANES)
    const uint lid = PCLR_LID, lane = lid % PCLR_LANES, team = lid / PCLR_LANES;
    const pclr_u64 groups = PCLR_NUM_GROUPS;
    PCLR_XREF x = PCLR_XAT(offset);
    PCLR_UNUSED(lds); PCLR_UNUSED(partials); PCLR_UNUSED(ctl); PCLR_UNUSED(split); PCLR_UNUSED(pitch); PCLR_UNUSED(cols);
    PCLR_UNUSED(offsets); PCLR_UNUSED(n);
    /* a step: PCLR_UNROLL rows per team, neighbouring teams on neighbouring rows */
    for (pclr_u64 first = PCLR_GROUP_ID * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL; first < rows;
         first += groups * PCLR_GROUP / PCLR_LANES * PCLR_UNROLL) {
        pclr_s acc[PCLR_UNROLL];
        pclr_u64 lo[PCLR_UNROLL], len[PCLR_UNROLL];
        pclr_t v[PCLR_UNROLL];
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            const pclr_u64 r = first + k * PCLR_TEAMS + team;
            acc[k] = PCLR_IDENTITY;
            lo[k] = len[k] = 0;
            if (r < rows) PCLR_ROW_BOUNDS(r, lo[k], len[k]);
        }
        /* each lane's first element of every row: the loads of short rows all in flight */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k)
            if (lane < len[k]) v[k] = PCLR_LD(x, lo[k] + lane);
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k)
            if (lane < len[k]) {
                PCLR_FOLD1(acc[k], v[k], PCLR_CAST(pclr_u64, lane));
            }
        /* the rest of longer rows */
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            PCLR_XREF p = x + lo[k];
            pclr_u64 j = lane + PCLR_LANES;
            for (; j + (PCLR_UNROLL - 1) * PCLR_LANES < len[k]; j += PCLR_UNROLL * PCLR_LANES) {
                pclr_t w[PCLR_UNROLL]; /* all loads in flight before the first use */
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) w[u] = PCLR_LD(p, j + u * PCLR_LANES);
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL; ++u) PCLR_FOLD1(acc[k], w[u], j + u * PCLR_LANES);
            }
            if (j < len[k]) {
                pclr_t w[PCLR_UNROLL - 1];
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u) w[u] = PCLR_LD(p, (j + u * PCLR_LANES < len[k] ? j + u * PCLR_LANES : j));
#pragma unroll
                for (uint u = 0; u < PCLR_UNROLL - 1; ++u)
                    if (j + u * PCLR_LANES < len[k]) PCLR_FOLD1(acc[k], w[u], j + u * PCLR_LANES);
            }
        }
#pragma unroll
        for (uint k = 0; k < PCLR_UNROLL; ++k) {
            const pclr_s s = pclr_team_reduce(acc[k], PCLR_LDS_ARG);
            const pclr_u64 r = first + k * PCLR_TEAMS + team;
            if (lane == 0 && r < rows) PCLR_STORE_OUT(r, s);
        }
    }
}
