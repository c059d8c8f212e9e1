/* See omp_anchor.h. One function per (type, op) so each loop has a single,
   simple reduction the vectorizer recognizes. Int sums run on the unsigned
   bits: they wrap like the GPU kernels, without signed-overflow UB. */
#include "omp_anchor.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "pclreduce.h"

#define OMP_ANCHOR_FN(name, T, INIT, PRAGMA, STEP)                        \
    static T name(const T *x, int64_t n) {                                \
        T acc = INIT;                                                     \
        int64_t i;                                                        \
        _Pragma(PRAGMA)                                                   \
        for (i = 0; i < n; ++i) STEP;                                     \
        return acc;                                                       \
    }
#define OMP_SUM "omp parallel for simd schedule(static) reduction(+:acc)"
#define OMP_MIN "omp parallel for simd schedule(static) reduction(min:acc)"
#define OMP_MAX "omp parallel for simd schedule(static) reduction(max:acc)"

OMP_ANCHOR_FN(sum_u32, uint32_t, 0u, OMP_SUM, acc += x[i])
OMP_ANCHOR_FN(min_u32, uint32_t, UINT32_MAX, OMP_MIN, acc = x[i] < acc ? x[i] : acc)
OMP_ANCHOR_FN(max_u32, uint32_t, 0u, OMP_MAX, acc = x[i] > acc ? x[i] : acc)
OMP_ANCHOR_FN(min_i32, int32_t, INT32_MAX, OMP_MIN, acc = x[i] < acc ? x[i] : acc)
OMP_ANCHOR_FN(max_i32, int32_t, INT32_MIN, OMP_MAX, acc = x[i] > acc ? x[i] : acc)
OMP_ANCHOR_FN(sum_f32, float, 0.0f, OMP_SUM, acc += x[i])
OMP_ANCHOR_FN(min_f32, float, __builtin_inff(), OMP_MIN, acc = x[i] < acc ? x[i] : acc)
OMP_ANCHOR_FN(max_f32, float, -__builtin_inff(), OMP_MAX, acc = x[i] > acc ? x[i] : acc)
OMP_ANCHOR_FN(sum_f64, double, 0.0, OMP_SUM, acc += x[i])
OMP_ANCHOR_FN(min_f64, double, __builtin_inf(), OMP_MIN, acc = x[i] < acc ? x[i] : acc)
OMP_ANCHOR_FN(max_f64, double, -__builtin_inf(), OMP_MAX, acc = x[i] > acc ? x[i] : acc)

void omp_anchor_reduce(int type, int op, const void *data, uint64_t n, void *result) {
    const int64_t m = (int64_t)n;
    switch (type) {
    case PCLR_UINT:
    case PCLR_INT:
        if (op == PCLR_SUM) {
            uint32_t v = sum_u32((const uint32_t *)data, m);
            memcpy(result, &v, 4);
        } else if (type == PCLR_UINT) {
            uint32_t v = op == PCLR_MIN ? min_u32((const uint32_t *)data, m) : max_u32((const uint32_t *)data, m);
            memcpy(result, &v, 4);
        } else {
            int32_t v = op == PCLR_MIN ? min_i32((const int32_t *)data, m) : max_i32((const int32_t *)data, m);
            memcpy(result, &v, 4);
        }
        break;
    case PCLR_FLOAT: {
        const float *x = (const float *)data;
        float v = op == PCLR_SUM ? sum_f32(x, m) : op == PCLR_MIN ? min_f32(x, m) : max_f32(x, m);
        memcpy(result, &v, 4);
        break;
    }
    default: {
        const double *x = (const double *)data;
        double v = op == PCLR_SUM ? sum_f64(x, m) : op == PCLR_MIN ? min_f64(x, m) : max_f64(x, m);
        memcpy(result, &v, 8);
        break;
    }
    }
}

int omp_anchor_threads(void) { return omp_get_max_threads(); }

void omp_anchor_stats_f32(const float *x, uint64_t n, omp_anchor_stats *out) {
    int nt = omp_get_max_threads(), t;
    omp_anchor_stats *part = (omp_anchor_stats *)calloc((size_t)nt, sizeof *part);
    double m2 = 0;
    memset(out, 0, sizeof *out);
    out->min = __builtin_inff();
    out->max = -__builtin_inff();
    if (!part) return;
#pragma omp parallel num_threads(nt)
    {
        const int id = omp_get_thread_num(), cnt = omp_get_num_threads();
        const int64_t b = (int64_t)(n * (uint64_t)id / (uint64_t)cnt), e = (int64_t)(n * (uint64_t)(id + 1) / (uint64_t)cnt);
        const double shift = b < e ? (double)x[b] : 0.0;
        double s1 = 0, s2 = 0;
        float lo = __builtin_inff(), hi = -__builtin_inff();
        int64_t i;
#pragma omp simd reduction(+:s1, s2) reduction(min:lo) reduction(max:hi)
        for (i = b; i < e; ++i) {
            const double d = (double)x[i] - shift;
            s1 += d;
            s2 += d * d;
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        part[id].count = (uint64_t)(e - b);
        part[id].sum = (double)(e - b) * shift + s1;
        part[id].mean = e > b ? shift + s1 / (double)(e - b) : 0.0;
        part[id].var = e > b ? s2 - s1 * s1 / (double)(e - b) : 0.0; /* M2 of the block */
        part[id].min = lo;
        part[id].max = hi;
    }
    for (t = 0; t < nt; ++t) { /* Chan et al.: merge (count, mean, M2) */
        const omp_anchor_stats *q = &part[t];
        uint64_t c;
        double delta;
        if (!q->count) continue;
        c = out->count + q->count;
        delta = q->mean - out->mean;
        out->mean += delta * (double)q->count / (double)c;
        m2 += q->var + delta * delta * (double)out->count * (double)q->count / (double)c;
        out->count = c;
        out->sum += q->sum;
        if (q->min < out->min) out->min = q->min;
        if (q->max > out->max) out->max = q->max;
    }
    out->var = out->count ? m2 / (double)out->count : __builtin_nan("");
    out->sample_var = out->count > 1 ? m2 / (double)(out->count - 1) : __builtin_nan("");
    if (!out->count) out->mean = __builtin_nan("");
    free(part);
}

uint64_t omp_anchor_read(const void *data, uint64_t bytes) {
    const uint64_t *x = (const uint64_t *)data;
    const int64_t m = (int64_t)(bytes / 8);
    uint64_t acc = 0;
    int64_t i;
#pragma omp parallel for simd schedule(static) reduction(^:acc)
    for (i = 0; i < m; ++i) acc ^= x[i];
    return acc;
}

void omp_anchor_rows_f32(const float *data, uint64_t rows, uint64_t cols, float *out) {
    const int64_t m = (int64_t)rows;
    int64_t r;
#pragma omp parallel for schedule(static)
    for (r = 0; r < m; ++r) {
        const float *x = data + (uint64_t)r * cols;
        float s = 0.0f;
        uint64_t j;
#pragma omp simd reduction(+:s)
        for (j = 0; j < cols; ++j) s += x[j];
        out[r] = s;
    }
}
