/* maps: four reductions of f(x, y) with map expressions, each one launch and
   no temporary array: dot product, squared L2 norm, L1 distance, and the count
   of elements above a threshold given at run time (a parameter: changing it
   rebuilds nothing). Each result is checked against the CPU reference.

       build/maps [n]      (default 1000003 random floats in x and y) */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_DEMO_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    static const struct { const char *what, *map, *params; } maps[] = {
        {"dot product          ", "x * y", NULL},
        {"squared L2 norm of x ", "x * x", NULL},
        {"L1 distance of x, y  ", "abs(x - y)", NULL},
        {"count of x > t       ", "x > t", "float t"},
    };
    const size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000003;
    const double threshold[1] = {0.5};
    float *x = (float *)malloc(n * sizeof(float) + 1), *y = (float *)malloc(n * sizeof(float) + 1);
    pclr_context *ctx = NULL;
    pclr_buffer *bx = NULL, *by = NULL;
    pclr_result r;
    size_t i, k;
    int failures = 0;
    if (!x || !y) return 1;
    for (i = 0; i < n; ++i) {
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        y[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
    }
    if ((r = pclr_create(NULL, &ctx)) != PCLR_OK || (r = pclr_buffer_create(ctx, n * sizeof(float), &bx)) != PCLR_OK ||
        (r = pclr_buffer_create(ctx, n * sizeof(float), &by)) != PCLR_OK ||
        (r = pclr_buffer_write(ctx, bx, 0, x, n * sizeof(float))) != PCLR_OK ||
        (r = pclr_buffer_write(ctx, by, 0, y, n * sizeof(float))) != PCLR_OK) {
        fprintf(stderr, "maps: %s (%s)\n", pclr_result_string(r), pclr_last_error(ctx));
        return 1;
    }
    printf("%zu floats on %s (%s)\n", n, pclr_backend_name(pclr_get_backend(ctx)), pclr_device_name(ctx));
    for (k = 0; k < sizeof maps / sizeof maps[0]; ++k) {
        pclr_config cfg = PCLR_ZERO;
        pclr_input in = PCLR_ZERO;
        double got, ref;
        unsigned char g[8], c[8];
        cfg.type = PCLR_FLOAT;
        cfg.op = PCLR_SUM;
        cfg.map = maps[k].map;
        cfg.params = maps[k].params;
        cfg.y_type = PCLR_FLOAT; /* y: the second array, element for element with x */
        in.x = bx;
        in.y = by;
        in.params = threshold; /* the parameters' values in their order (read only by the map with one) */
        in.n = n;
        if ((r = pclr_reduce(ctx, &cfg, &in, g, sizeof g)) != PCLR_OK ||
            (r = pclr_cpu_reduce_map(&cfg, x, y, n, threshold, c)) != PCLR_OK) {
            fprintf(stderr, "maps: %s: %s (%s)\n", maps[k].map, pclr_result_string(r), pclr_last_error(ctx));
            ++failures;
            continue;
        }
        /* the predicate is an int (0/1), so its sum is a count; the others are float sums */
        got = pclr_reduced_type(&cfg) == PCLR_INT ? (double)*(int *)g : (double)*(float *)g;
        ref = pclr_reduced_type(&cfg) == PCLR_INT ? (double)*(int *)c : (double)*(float *)c;
        printf("%s %-12s %.7g   (CPU reference %.7g)\n", maps[k].what, maps[k].map, got, ref);
        if (fabs(got - ref) > 1e-4 * (1.0 + fabs(ref))) ++failures;
    }
    pclr_buffer_destroy(ctx, bx);
    pclr_buffer_destroy(ctx, by);
    pclr_destroy(ctx);
    free(x);
    free(y);
    return failures ? 1 : 0;
}
