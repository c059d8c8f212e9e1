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

/* Stats of n floats in one pass: each thread sums (x - shift), (x - shift)^2
   in double about its first element (plus min and max) over its static
   block; the blocks are merged with Chan et al.'s formula. */
typedef struct omp_anchor_stats {
    uint64_t count;
    double sum, mean, var, sample_var; /* population variance M2 / n; sample M2 / (n - 1) */
    float min, max;
} omp_anchor_stats;
void omp_anchor_stats_f32(const float *data, uint64_t n, omp_anchor_stats *out);

/* Sums of each of `rows` rows of `cols` floats (rows side by side) into out[rows]: rows split
   statically over the threads, each row a SIMD loop (bench/rows_cpu.c's anchor). */
void omp_anchor_rows_f32(const float *data, uint64_t rows, uint64_t cols, float *out);

/* The streaming-read limit on the host: an XOR fold of `bytes` bytes (a
   multiple of 8) as 64-bit words, so every byte is loaded. */
uint64_t omp_anchor_read(const void *data, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif
