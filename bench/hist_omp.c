/* The OpenMP anchor of bench/hist_cpu.c: per-thread bins over a static block each, summed after; the bin of
   a value by docs/histograms.md's rule (in float for float, 8- and 16-bit integer data), out-of-range values
   and NaN counted apart. Compiled on its own: -O3 -march=native -fopenmp. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hist_omp_threads(void) { return omp_get_max_threads(); }

#define HIST_LOOP(T, H)                                                                       \
    do {                                                                                      \
        const T *x = (const T *)data;                                                         \
        const H l = (H)lo, h = (H)hi, s = (H)((double)bins / (double)((H)hi - (H)lo));        \
        for (i = a; i < b; ++i) {                                                             \
            const H v = (H)x[i];                                                              \
            uint32_t k;                                                                       \
            if (v != v) k = bins + 2;                                                         \
            else if (v < l) k = bins;                                                         \
            else if (v >= h) k = bins + 1;                                                    \
            else {                                                                            \
                k = (uint32_t)((v - l) * s);                                                  \
                if (k >= bins) k = bins - 1;                                                  \
            }                                                                                 \
            ++mine[k];                                                                        \
        }                                                                                     \
    } while (0)

/* weighted float histograms: each thread's bins count and sum the weights in double (not exact: what a loop
   written by hand does), summed after */
void hist_omp_weighted(const float *x, const float *w, uint64_t n, double lo, double hi, uint32_t bins, uint64_t *counts, double *sums) {
    memset(counts, 0, 8 * ((size_t)bins + 3));
    memset(sums, 0, 8 * ((size_t)bins + 3));
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const uint64_t a = n * (uint64_t)t / (uint64_t)nt, b = n * (uint64_t)(t + 1) / (uint64_t)nt;
        uint32_t *mine = (uint32_t *)calloc((size_t)bins + 3, 4);
        double *msum = (double *)calloc((size_t)bins + 3, 8);
        const float l = (float)lo, h = (float)hi, s = (float)((double)bins / (double)((float)hi - (float)lo));
        uint64_t i;
        uint32_t k;
        if (mine && msum) {
            for (i = a; i < b; ++i) {
                const float v = x[i];
                if (v != v) k = bins + 2;
                else if (v < l) k = bins;
                else if (v >= h) k = bins + 1;
                else {
                    k = (uint32_t)((v - l) * s);
                    if (k >= bins) k = bins - 1;
                }
                ++mine[k];
                msum[k] += w[i];
            }
#pragma omp critical
            for (k = 0; k < bins + 3; ++k) {
                counts[k] += mine[k];
                sums[k] += msum[k];
            }
        }
        free(mine);
        free(msum);
    }
}

/* type: 5 uint8, 7 uint16, 3 float (pclr_type's values) */
void hist_omp(int type, const void *data, uint64_t n, double lo, double hi, uint32_t bins, uint64_t *counts) {
    memset(counts, 0, 8 * ((size_t)bins + 3));
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const uint64_t a = n * (uint64_t)t / (uint64_t)nt, b = n * (uint64_t)(t + 1) / (uint64_t)nt;
        uint32_t *mine = (uint32_t *)calloc((size_t)bins + 3, 4);
        uint64_t i;
        uint32_t k;
        if (mine) {
            if (type == 5) HIST_LOOP(uint8_t, float); /* (8/16-bit integers: binned in float, docs/histograms.md) */
            else if (type == 7) HIST_LOOP(uint16_t, float);
            else HIST_LOOP(float, float);
#pragma omp critical
            for (k = 0; k < bins + 3; ++k) counts[k] += mine[k];
            free(mine);
        }
    }
}
