/* The CPU anchor for OpenCL CPU devices (PoCL): a plain OpenMP + SIMD loop,
   compiled on its own with -O3 -march=native -ffast-math -fopenmp so the
   compiler vectorizes the reductions (ffast-math lets it reorder float sums). */
#ifndef PCLR_OMP_ANCHOR_H
#define PCLR_OMP_ANCHOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reduces n elements at data into *result (one element). type and op are
   pclr_type / pclr_op values (uint, int, float, double; sum, min, max). */
void omp_anchor_reduce(int type, int op, const void *data, uint64_t n, void *result);
/* Threads the anchor uses (all cores unless OMP_NUM_THREADS says otherwise). */
int omp_anchor_threads(void);

#ifdef __cplusplus
}
#endif

#endif
