/* See omp_anchor.h. One function per (type, op) so each loop has a single,
   simple reduction the vectorizer recognizes. Int sums run on the unsigned
   bits: they wrap like the GPU kernels, without signed-overflow UB. */
#include "omp_anchor.h"

#include <omp.h>
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
