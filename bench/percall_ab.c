/* percall_ab: the host time of one float sum per call, blocking and pipelined, on CUDA and on NVIDIA
   OpenCL, for two versions of the headers in one process, so that what a change costs per call is
   measured side by side instead of across runs (which drift by a microsecond on the H100).
   This file is compiled three times (bench/percall_ab.sh): twice as a side, with PCLREDUCE_STATIC
   and -DPCLR_AB_SIDE=base or cur against each tree's headers (every version since 0.3 has the backend
   verbs used here), and once with -DPCLR_AB_MAIN, which alternates the two sides call batch by call
   batch (base, cur, then cur, base, ...) and prints per way and size the median of each, the
   difference in us and the ratio. Both sides use CUDA's primary context and one OpenCL context and
   queue (the second side adopts the first's: two OpenCL contexts on one device disturb each other).
     cuda-blocking      pclr_cuda_reduce into host memory (a batch of 16 calls)
     cuda-pipelined     64 pclr_cuda_reduce_async back to back and one wait: the time / 64
     opencl-blocking    pclr_cl_reduce (16 calls)
     opencl-pipelined   64 pclr_cl_reduce_async back to back and one clFinish: the time / 64
   n = 2^10 .. 2^28 floats; each call reads the next of up to 16 slices of a 1 GiB buffer (20x the
   H100's L2), so that inputs come from memory; 21 batches a side, after two warm-up batches. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PCLR_AB_MAIN
#define REPS 21
int ab_base_init(const char *platform, void *share[3]);
int ab_cur_init(const char *platform, void *share[3]);
double ab_base_time(int way, int lg, int calls, unsigned long long *turn);
double ab_cur_time(int way, int lg, int calls, unsigned long long *turn);

static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    static const char *const names[] = {"cuda-blocking", "cuda-pipelined", "opencl-blocking", "opencl-pipelined"};
    const char *platform = argc > 1 ? argv[1] : "NVIDIA";
    int lg, way, rep, cl;
    unsigned long long turn_b = 0, turn_c = 0;
    void *share[3] = {NULL, NULL, NULL}; /* one OpenCL context, device and queue for both sides (as CUDA's primary context) */
    if (!ab_base_init(platform, share) || !(cl = ab_cur_init(platform, share))) return 1;
    printf("way,log2n,baseline_us,current_us,diff_us,ratio\n");
    for (lg = 10; lg <= 28; lg += 2)
        for (way = 0; way < 4; ++way) {
            const int calls = way % 2 ? 64 : 16;
            double tb[REPS], tc[REPS], b, c;
            if (way >= 2 && cl < 2) continue; /* no OpenCL platform */
            for (rep = -2; rep < REPS; ++rep) { /* alternating which side goes first */
                double x, y;
                if (rep % 2) {
                    x = ab_base_time(way, lg, calls, &turn_b);
                    y = ab_cur_time(way, lg, calls, &turn_c);
                } else {
                    y = ab_cur_time(way, lg, calls, &turn_c);
                    x = ab_base_time(way, lg, calls, &turn_b);
                }
                if (x < 0 || y < 0) return 1;
                if (rep >= 0) { tb[rep] = x; tc[rep] = y; }
            }
            qsort(tb, REPS, sizeof tb[0], cmp);
            qsort(tc, REPS, sizeof tc[0], cmp);
            b = tb[REPS / 2];
            c = tc[REPS / 2];
            printf("%s,%d,%.3f,%.3f,%+.3f,%.4f\n", names[way], lg, b, c, c - b, c / b);
            fflush(stdout);
        }
    return 0;
}

#else /* a side: PCLR_AB_SIDE = base or cur */
#define PCLREDUCE_STATIC
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#define PCLREDUCE_CUDA
#include "pclreduce.h"

#define AB_CAT_(a, b, c) a##b##c
#define AB_CAT(a, b, c) AB_CAT_(a, b, c)
#define AB_FN(name) AB_CAT(ab_, PCLR_AB_SIDE, name)
#define POOL_FLOATS ((uint64_t)1 << 28)

static double ab_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static pclr_cuda_context *cu;
static pclr_cl_context *cl;
static CUdeviceptr dx, dout;
static cl_mem x, out;

int AB_FN(_init)(const char *platform, void *share[3]);
double AB_FN(_time)(int way, int lg, int calls, unsigned long long *turn);

/* 0: failed; 1: CUDA only; 2: CUDA and OpenCL. share: the OpenCL context, device and queue to use
   (NULL: found here, then handed out through it). */
int AB_FN(_init)(const char *platform, void *share[3]) {
    float *h = (float *)malloc((size_t)(POOL_FLOATS * 4));
    const pclr_cl_api *a;
    uint64_t i;
    int p;
    cl_int err;
    if (!h) return 0;
    for (i = 0; i < POOL_FLOATS; ++i) h[i] = (float)(i % 7);
    if (pclr_cuda_create(NULL, &cu) != PCLR_OK || pclr_cuda_alloc(cu, (size_t)(POOL_FLOATS * 4), &dx) != PCLR_OK ||
        pclr_cuda_alloc(cu, 64, &dout) != PCLR_OK || pclr_cuda_copy_to_device(cu, dx, h, (size_t)(POOL_FLOATS * 4)) != PCLR_OK) {
        fprintf(stderr, "percall_ab: no CUDA context\n");
        free(h);
        return 0;
    }
    if (share[0]) { /* the other side's */
        pclr_cl_desc d;
        memset(&d, 0, sizeof d);
        d.context = (cl_context)share[0];
        d.device = (cl_device_id)share[1];
        d.queue = (cl_command_queue)share[2];
        if (pclr_cl_create(&d, &cl) != PCLR_OK) cl = NULL;
    }
    for (p = 0; p < 8 && !cl && !share[0]; ++p) { /* the first platform whose name has `platform` */
        if (pclr_cl_create_default(p, 0, &cl) != PCLR_OK) break;
        if (!strstr(pclr_cl_get_features(cl)->platform_name, platform)) {
            pclr_cl_destroy(cl);
            cl = NULL;
        }
    }
    if (cl) {
        a = pclr_cl_get_api(cl);
        x = a->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)(POOL_FLOATS * 4), h, &err);
        out = a->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_WRITE, 64, NULL, &err);
        if (!x || !out) cl = NULL;
    }
    if (cl && !share[0]) {
        share[0] = (void *)pclr_cl_get_cl_context(cl);
        share[1] = NULL; /* (pclr_cl_create takes the queue's device) */
        share[2] = (void *)pclr_cl_get_queue(cl);
    }
    if (!cl) fprintf(stderr, "percall_ab: no OpenCL platform with \"%s\": CUDA only\n", platform);
    free(h);
    return cl ? 2 : 1;
}

/* us per call of `calls` calls of one way at 2^lg elements (negative: a call failed) */
double AB_FN(_time)(int way, int lg, int calls, unsigned long long *turn) {
    const uint64_t n = (uint64_t)1 << lg, slots = POOL_FLOATS / n > 16 ? 16 : POOL_FLOATS / n;
    pclr_config c;
    pclr_result r = PCLR_OK;
    float v = 0;
    double t0;
    int k;
    memset(&c, 0, sizeof c);
    t0 = ab_now_us();
    for (k = 0; k < calls && r == PCLR_OK; ++k) {
        const uint64_t off = (*turn)++ % slots * n;
        if (way == 0) r = pclr_cuda_reduce(cu, &c, dx, off, n, NULL, &v);
        else if (way == 1) r = pclr_cuda_reduce_async(cu, &c, dx, off, n, dout, NULL);
        else if (way == 2) r = pclr_cl_reduce(cl, &c, x, off, n, &v);
        else r = pclr_cl_reduce_async(cl, &c, x, off, n, out, 0, 0, NULL, NULL);
    }
    if (r == PCLR_OK && way == 1) r = pclr_cuda_copy_to_host(cu, &v, dout, 4); /* (waits for the stream) */
    if (r == PCLR_OK && way == 3 && pclr_cl_get_api(cl)->Finish(pclr_cl_get_queue(cl)) != CL_SUCCESS) r = PCLR_ERR_BACKEND;
    if (r != PCLR_OK) {
        fprintf(stderr, "percall_ab: way %d at 2^%d: %s\n", way, lg, pclr_result_string(r));
        return -1.0;
    }
    return (ab_now_us() - t0) / calls;
}
#endif
