/* pclreduce 0.4.0 kernel: type=float op=custom backend=cuda accumulate=native wave=32 group=256 unroll=4 vector=4 stride=global variant=shuffle finish=last_group groups_per_unit=8 reduce="state m: float = -inf, s: float = 0; lift m = x, s = 1; merge m = max(a.m, b.m), s = a.s * exp(a.m - m) + b.s * exp(b.m - m); result m + log(s)"
   entry: pclr_reduce(in, offset, n, out, partials, counter) */
/* ---- CUDA C (NVRTC) ---- */
typedef unsigned int uint;
typedef unsigned long long pclr_u64;
#define PCLR_KERNEL extern "C" __global__ __launch_bounds__(PCLR_GROUP)
#define PCLR_GLOBAL
#define PCLR_LOCAL
#define PCLR_RESTRICT __restrict__ /* read-only loads */
#define PCLR_SHARED __shared__
#define PCLR_FN static __device__ __forceinline__
#define PCLR_BARRIER() __syncthreads()
#define PCLR_LID ((uint)threadIdx.x)
#define PCLR_GROUP_ID ((pclr_u64)blockIdx.x)
#define PCLR_NUM_GROUPS ((pclr_u64)gridDim.x)
#define PCLR_XREF PCLR_GLOBAL const pclr_t *
#define PCLR_XAT(e) (in + (e))
#define PCLR_LD(p, k) (p)[k]
#define PCLR_ELEMENT_AT(p) ((pclr_u64)(p) / sizeof(pclr_t))
#define PCLR_VREF PCLR_GLOBAL const pclr_vec *
#define PCLR_VAT(p) ((PCLR_GLOBAL const pclr_vec *)(p))
#define PCLR_STORE_OUT(k, s) out[k] = (s)
#define PCLR_COUNTER (*counter)
#define PCLR_LDS_PARAM PCLR_LOCAL pclr_s *lds
#define PCLR_LDS_ARG lds
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* programmatic dependent launch */
#define PCLR_GRID_DEPENDENCY() asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory")
#else
#define PCLR_GRID_DEPENDENCY()
#endif
#define PCLR_WAVE 32
#define PCLR_GROUP 256
#define PCLR_UNROLL 4
#define PCLR_VECTOR 4
typedef float pclr_t;
struct __align__(16) pclr_vec { pclr_t s[4]; }; /* 16-byte loads */
/* ---- the operation: custom ---- */
typedef struct pclr_s { float f_m; float f_s; } pclr_s;
PCLR_FN float pclr_max_float(float a, float b) { return b > a ? b : a; }
PCLR_FN pclr_s pclr_identity(void) {
    pclr_s s;
    s.f_m = (-__int_as_float(0x7f800000));
    s.f_s = (float)(0);
    return s;
}
#define PCLR_IDENTITY pclr_identity()
PCLR_FN bool pclr_is_identity(pclr_s s) {
    return __float_as_uint(s.f_m) == 0xff800000u && __float_as_uint(s.f_s) == 0x0u;
}
/* the description's merge: b's elements come after a's */
PCLR_FN pclr_s pclr_merge_parts(pclr_s a, pclr_s b) {
    pclr_s s;
    s.f_m = pclr_max_float(a.f_m, b.f_m);
    s.f_s = ((a.f_s * expf((a.f_m - s.f_m))) + (b.f_s * expf((b.f_m - s.f_m))));
    return s;
}
/* between work-items and groups, a state equal to the identity is an empty part: the other state */
PCLR_FN pclr_s pclr_merge(pclr_s a, pclr_s b) {
    if (pclr_is_identity(b)) return a;
    if (pclr_is_identity(a)) return b;
    return pclr_merge_parts(a, b);
}
/* a work-item's accumulator starts as the identity; a load's lifted elements merge as described */
PCLR_FN pclr_s pclr_fold_in(pclr_s acc, pclr_s s) {
    if (pclr_is_identity(acc)) return s;
    return pclr_merge_parts(acc, s);
}
/* the lift of element x (y) at index i */
PCLR_FN pclr_s pclr_map(pclr_t x, pclr_u64 i) {
    pclr_s s;
    s.f_m = x;
    s.f_s = (float)(1);
    return s;
}
#define PCLR_LIFT(s, i) (s) /* (PCLR_MAP lifted it) */
#define PCLR_MAP(x, i) pclr_map((x), (i))
#define PCLR_FOLD1(acc, x, i) (acc) = pclr_fold_in((acc), PCLR_LIFT(PCLR_MAP((x), (i)), (i)))
/* Folds one loaded vector into the accumulator, as a small tree. */
#define PCLR_FOLD(acc, v, i) (acc) = pclr_fold_in((acc), pclr_merge_parts(pclr_merge_parts(PCLR_LIFT(PCLR_MAP((v).s[0], (i)), (i) + 0), PCLR_LIFT(PCLR_MAP((v).s[1], (i) + 1), (i) + 1)), pclr_merge_parts(PCLR_LIFT(PCLR_MAP((v).s[2], (i) + 2), (i) + 2), PCLR_LIFT(PCLR_MAP((v).s[3], (i) + 3), (i) + 3))))
/* ---- level 2: in-group; the result is valid in work-item 0 ---- */
PCLR_FN pclr_s pclr_shfl_down(pclr_s v, uint delta) { /* field by field */
    v.f_m = __shfl_down_sync(0xffffffffu, v.f_m, delta);
    v.f_s = __shfl_down_sync(0xffffffffu, v.f_s, delta);
    return v;
}
#define PCLR_SHFL_DOWN(v, delta) pclr_shfl_down((v), (delta))
/* Lane 0 of each wave gets the wave's result. */
PCLR_FN pclr_s pclr_wave_reduce(pclr_s v, uint width) {
#pragma unroll
    for (uint delta = PCLR_WAVE / 2; delta > 0; delta >>= 1)
        if (delta < width) v = pclr_merge(v, PCLR_SHFL_DOWN(v, delta));
    return v;
}
PCLR_FN pclr_s pclr_group_reduce(pclr_s acc, PCLR_LDS_PARAM) {
    const uint lid = PCLR_LID;
    acc = pclr_wave_reduce(acc, PCLR_WAVE);
    PCLR_BARRIER(); /* lds may still be read by an earlier call */
    if (lid % PCLR_WAVE == 0) lds[lid / PCLR_WAVE] = acc;
    PCLR_BARRIER();
    if (lid < PCLR_WAVE) {
        acc = lid < PCLR_GROUP / PCLR_WAVE ? lds[lid] : PCLR_IDENTITY;
        acc = pclr_wave_reduce(acc, PCLR_GROUP / PCLR_WAVE);
    }
    return acc;
}
/* An 8-byte state and its flag in one 16-byte word, stored and loaded as one vector access:
   the word CUB's decoupled look-back publishes an 8-byte value and its status in. */
typedef struct __align__(16) { pclr_u64 w, flag; } pclr_word;
union pclr_bits { pclr_s s; pclr_u64 w; };
PCLR_FN pclr_word pclr_word_of(pclr_s s) { union pclr_bits u; pclr_word v; u.s = s; v.w = u.w; v.flag = 1; return v; }
PCLR_FN pclr_s pclr_state_of(pclr_word v) { union pclr_bits u; u.w = v.w; return u.s; }
#define PCLR_FLAG(v) ((v).flag)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define PCLR_WORD_ACCESS "relaxed.gpu"
#else
#define PCLR_WORD_ACCESS "volatile"
#endif
PCLR_FN void pclr_word_store(pclr_word *p, pclr_word v) {
    asm volatile("st." PCLR_WORD_ACCESS ".global.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(v.w), "l"(v.flag) : "memory");
}
PCLR_FN pclr_word pclr_word_load(const pclr_word *p) {
    pclr_word v;
    asm volatile("ld." PCLR_WORD_ACCESS ".global.v2.u64 {%0, %1}, [%2];" : "=l"(v.w), "=l"(v.flag) : "l"(p) : "memory");
    return v;
}
PCLR_FN void pclr_word_clear(pclr_word *p) { pclr_word z; z.w = 0; z.flag = 0; pclr_word_store(p, z); }
/* The states of groups j, j + PCLR_GROUP, j + 2 PCLR_GROUP, j + 3 PCLR_GROUP (the identity from
   `groups` on), polled in rounds that load every word still missing (one L2 round trip a
   round); their words are zero again after. */
PCLR_FN void pclr_collect4(pclr_word *words, pclr_u64 j, pclr_u64 groups, pclr_s *s) {
    pclr_word v[4];
    uint mine = 0, missing;
    for (uint q = 0; q < 4; ++q) mine |= (uint)(j + q * PCLR_GROUP < groups) << q;
    missing = mine;
    do { /* the groups are running: their words come */
        for (uint q = 0; q < 4; ++q)
            if (missing >> q & 1) v[q] = pclr_word_load(words + j + q * PCLR_GROUP);
        for (uint q = 0; q < 4; ++q)
            if ((missing >> q & 1) && PCLR_FLAG(v[q])) missing &= ~(1u << q);
    } while (missing);
    for (uint q = 0; q < 4; ++q) {
        s[q] = mine >> q & 1 ? pclr_state_of(v[q]) : PCLR_IDENTITY;
        if (mine >> q & 1) pclr_word_clear(words + j + q * PCLR_GROUP);
    }
}
typedef pclr_vec pclr_in; /* one load: a vector of x */
#define PCLR_LOAD(j) pv[j]
/* ---- the kernel ---- */
PCLR_KERNEL void pclr_reduce(PCLR_GLOBAL const pclr_t *PCLR_RESTRICT in, pclr_u64 offset, pclr_u64 n,
                             PCLR_GLOBAL pclr_s *out, PCLR_GLOBAL pclr_s *partials,
                             PCLR_GLOBAL uint *counter) {
    PCLR_SHARED pclr_s lds[PCLR_GROUP / PCLR_WAVE];
    PCLR_SHARED uint is_last;
    PCLR_GRID_DEPENDENCY(); /* the previous grid's memory first */
    const uint lid = PCLR_LID;
    const pclr_u64 group = PCLR_GROUP_ID, groups = PCLR_NUM_GROUPS;
    const pclr_u64 thread = group * PCLR_GROUP + lid;
    PCLR_XREF p = PCLR_XAT(offset);
    pclr_s acc = PCLR_IDENTITY;
    if (lid == 0 && groups > 1) is_last = atomicAdd(counter, 1u) == groups - 1; /* the last to start folds */
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
    /* the group that started last folds the states in a fixed order (deterministic) */
    pclr_word *words = (pclr_word *)partials;
    if (lid == 0) pclr_word_store(words + group, pclr_word_of(acc));
    if (is_last) {
        acc = PCLR_IDENTITY;
        /* four loads in flight: the fold's time is L2 round trips */
        for (pclr_u64 j = lid; j < groups; j += 4 * PCLR_GROUP) {
            pclr_s s[4];
            pclr_collect4(words, j, groups, s);
            const pclr_s a = s[0], b = s[1], c = s[2], d = s[3];
            acc = pclr_merge(acc, pclr_merge(pclr_merge(a, b), pclr_merge(c, d)));
        }
        acc = pclr_group_reduce(acc, PCLR_LDS_ARG);
        if (lid == 0) {
            PCLR_STORE_OUT(0, acc);
            PCLR_COUNTER = 0;
        }
    }
}
