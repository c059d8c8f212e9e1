/* The OpenMP anchor of bench/bench_cpu.c (bench/cpu_anchor.c): every type x op x accumulator
   as an OpenMP SIMD loop, compiled alone with -O3 -march=native -fopenmp. */
#ifndef PCLR_CPU_ANCHOR_H
#define PCLR_CPU_ANCHOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n elements of pclr_type `type` at data, pclr_op `op`, pclr_accumulate `accumulate` (native or
   wide): the result pclr_reduce writes (pclr_result_size bytes; stats' variances from moments in
   double). 0, or -1 for a combination it does not have. */
int cpu_anchor_reduce(int type, int op, int accumulate, const void *data, uint64_t n, void *result);
/* Threads of the next calls (<= 0: all cores), and the cores there are. */
void cpu_anchor_set_threads(int threads);
int cpu_anchor_max_threads(void);

#ifdef __cplusplus
}
#endif

#endif
