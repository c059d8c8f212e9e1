/* bench_rows: rows, columns and segments on a CUDA GPU (pclr_config.layout).
     1. float sum of 2^28 elements as every shape from 2^27 rows x 2 to 2 x 2^27 (powers of two),
        along rows (one result per row) and along columns (one per column): pclreduce's
        pclr_cuda_reduce_batched_async against the read-only kernel over the same bytes and, for
        rows, CUB DeviceSegmentedReduce::Sum with 64-bit offsets (the toolkit's CUB has no
        fixed-size overload: checked in /usr/local/cuda/include/cccl/cub);
     2. argmax and stats per row for a few shapes (argmax beside CUB's segmented ArgMax);
     3. one segment longer than 2^32 elements (uint8 ones, a wide sum: exact).
   Times: per call, pipelined (a batch of back-to-back calls between two events), median of 15
   batches; the 1 GiB input is 20x the L2, so every call reads memory. The first and last
   results of each shape are checked against the host.
       nvcc -O2 -o build/bench_rows bench/bench_rows.cu -ldl    (run.sh --rows builds it) */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_runtime.h>
#include "cuda_timing.cuh"

static int failures = 0;

#include "read_limit.cuh"

static void check(pclr_cuda_context *pc, pclr_result r, const char *what) {
    if (r != PCLR_OK) { ++failures; printf("FAIL: %s: %s (%s)\n", what, pclr_result_string(r), pclr_cuda_last_error(pc)); }
}

__global__ void fill_kernel(float *x, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long z = i * 0x9e3779b97f4a7c15ull;
        z ^= z >> 29;
        x[i] = (float)((int)(z % 65) - 32) * 0.25f; /* multiples of 1/4: the checks' sums are exact */
    }
}
__global__ void ones_kernel(unsigned char *x, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) x[i] = 1;
}

int main(int argc, char **argv) {
    /* bench_rows [OUTDIR] [--unroll U] [--group G] [--vector V] [--gpu G] [--no-cub] [--sums-only]: the knobs study a strategy */
    const char *outdir = ".";
    int unroll = 0, group = 0, vector = 0, gpu = 0, no_cub = 0, sums_only = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--unroll") && a + 1 < argc) unroll = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--group") && a + 1 < argc) group = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--vector") && a + 1 < argc) vector = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--gpu") && a + 1 < argc) gpu = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--no-cub")) no_cub = 1;
        else if (!strcmp(argv[a], "--sums-only")) sums_only = 1;
        else outdir = argv[a];
    }
    const unsigned long long total = 1ull << 28;
    char path[1024];
    pclr_cuda_context *pc = NULL;
    pclr_cuda_desc desc;
    cudaStream_t s;
    cudaDeviceProp prop;
    float *x, *out, *hx;
    unsigned long long *offs;
    unsigned *sink;
    void *temp = NULL;
    size_t temp_bytes = 0;
    CK(cudaFree(0));
    CK(cudaGetDeviceProperties(&prop, 0));
    memset(&desc, 0, sizeof desc);
    desc.device_number = 1; /* device 0, the runtime's */
    if (pclr_cuda_create(&desc, &pc) != PCLR_OK) { fprintf(stderr, "bench_rows: no pclreduce CUDA context\n"); return 1; }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&x, total * 4));
    CK(cudaMalloc(&out, (total / 2) * 64)); /* up to 2^27 states of stats */
    CK(cudaMalloc(&offs, ((total / 2) + 1) * 8));
    CK(cudaMalloc(&sink, 4));
    fill_kernel<<<4096, 256>>>(x, total);
    CK(cudaDeviceSynchronize());
    hx = (float *)malloc(total * 4);
    CK(cudaMemcpy(hx, x, total * 4, cudaMemcpyDeviceToHost));
    snprintf(path, sizeof path, "%s/rows_cuda.csv", outdir);
    FILE *csv = fopen(path, "w");
    if (!csv) { fprintf(stderr, "bench_rows: cannot write %s\n", path); return 1; }
    fprintf(csv, "row,axis,rows,cols,lanes,split,pclr_us,read_us,cub_us,gbps,of_read,of_cub\n");
    printf("# bench_rows on %s (%d SMs): per-call us, pipelined, median of 15 batches of 10; 2^28 floats (1 GiB)\n", prop.name,
           prop.multiProcessorCount);
    const double read_us = time_us(s, 10, [&] { read_limit_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>((const uint4 *)x, total / 4, sink); });
    printf("read kernel: %.1f us (%.1f GB/s)\n", read_us, total * 4 / read_us / 1e3);
    for (int axis = 0; axis < 2; ++axis)
        for (int lr = 27; lr >= 1; --lr) {
            const unsigned long long rows = 1ull << lr, cols = total >> lr, k = axis ? cols : rows;
            pclr_config c;
            pclr_launch plan;
            memset(&c, 0, sizeof c);
            c.layout = axis ? PCLR_LAYOUT_COLUMNS : PCLR_LAYOUT_ROWS;
            c.rows = rows;
            c.cols = cols;
            c.unroll = unroll;
            c.group_size = group;
            c.vector_width = vector;
            c.groups_per_unit = gpu;
            pclr_config rc;
            memset(&plan, 0, sizeof plan);
            if (pclr_cuda_resolve(pc, &c, &rc) == PCLR_OK) {
                pclr_device_facts dev = {(uint32_t)prop.multiProcessorCount, 1024};
                pclr_plan_layout(&rc, &dev, 0, &plan);
            }
            pclr_result r = PCLR_OK;
            const double us = time_us(s, 10, [&] {
                if (r == PCLR_OK) r = pclr_cuda_reduce_batched_async(pc, &c, (CUdeviceptr)x, 0, 0, 0, NULL, 0, 0, (CUdeviceptr)out, s);
            });
            check(pc, r, "reduce_batched_async");
            double cub_us = 0;
            if (!axis && !no_cub) {
                std::vector<unsigned long long> h(rows + 1);
                for (unsigned long long i = 0; i <= rows; ++i) h[i] = i * cols;
                CK(cudaMemcpy(offs, h.data(), (rows + 1) * 8, cudaMemcpyHostToDevice));
                size_t need = 0;
                CK(cub::DeviceSegmentedReduce::Sum(NULL, need, x, out + k, (long long)rows, offs, offs + 1, s));
                if (need > temp_bytes) { if (temp) CK(cudaFree(temp)); CK(cudaMalloc(&temp, need)); temp_bytes = need; }
                cub_us = time_us(s, 10, [&] { cub::DeviceSegmentedReduce::Sum(temp, need, x, out + k, (long long)rows, offs, offs + 1, s); });
            }
            { /* the first and last results against the host */
                float got[2];
                double want[2] = {0, 0};
                CK(cudaStreamSynchronize(s));
                (void)pclr_cuda_reduce_batched_async(pc, &c, (CUdeviceptr)x, 0, 0, 0, NULL, 0, 0, (CUdeviceptr)out, s);
                CK(cudaStreamSynchronize(s));
                CK(cudaMemcpy(&got[0], out, 4, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(&got[1], out + (k - 1), 4, cudaMemcpyDeviceToHost));
                for (int w = 0; w < 2; ++w) {
                    const unsigned long long at = w ? k - 1 : 0, len = axis ? rows : cols;
                    for (unsigned long long j = 0; j < len; ++j) want[w] += hx[axis ? j * cols + at : at * cols + j];
                    if (fabs(got[w] - want[w]) > 1e-6 * fabs(want[w]) + 1e-3 * sqrt((double)len)) {
                        ++failures;
                        printf("FAIL: %s 2^%d x 2^%d result %llu: %.9g, host %.9g\n", axis ? "columns" : "rows", lr, 28 - lr, at, got[w], want[w]);
                    }
                }
            }
            printf("sum %-7s 2^%-2d x 2^%-2d lanes %4d split %5llu: %9.1f us %7.1f GB/s %5.1f %% of read", axis ? "columns" : "rows", lr,
                   28 - lr, plan.lanes, (unsigned long long)plan.split, us, total * 4 / us / 1e3, 100 * read_us / us);
            if (cub_us > 0) printf("   CUB %9.1f us -> %.3f x CUB's time", cub_us, us / cub_us);
            printf("\n");
            fprintf(csv, "sum,%s,%llu,%llu,%d,%llu,%.3f,%.3f,%.3f,%.1f,%.4f,%.4f\n", axis ? "col" : "row", rows, cols, plan.lanes,
                    (unsigned long long)plan.split, us, read_us, cub_us, total * 4 / us / 1e3, read_us / us, cub_us > 0 ? us / cub_us : 0.0);
            fflush(stdout);
            fflush(csv);
        }
    /* argmax and stats per row */
    if (!sums_only) {
        const int shapes[] = {24, 20, 14, 8};
        for (int si = 0; si < 4; ++si) {
            const unsigned long long rows = 1ull << shapes[si], cols = total >> shapes[si];
            for (int op = 0; op < 2; ++op) {
                pclr_config c;
                memset(&c, 0, sizeof c);
                c.layout = PCLR_LAYOUT_ROWS;
                c.rows = rows;
                c.cols = cols;
                c.op = op ? PCLR_STATS : PCLR_ARGMAX;
                pclr_result r = PCLR_OK;
                const double us = time_us(s, 10, [&] {
                    if (r == PCLR_OK) r = pclr_cuda_reduce_batched_async(pc, &c, (CUdeviceptr)x, 0, 0, 0, NULL, 0, 0, (CUdeviceptr)out, s);
                });
                check(pc, r, op ? "stats" : "argmax");
                double cub_us = 0;
                if (!op) {
                    std::vector<unsigned long long> h(rows + 1);
                    for (unsigned long long i = 0; i <= rows; ++i) h[i] = i * cols;
                    CK(cudaMemcpy(offs, h.data(), (rows + 1) * 8, cudaMemcpyHostToDevice));
                    cub::KeyValuePair<int, float> *kv = (cub::KeyValuePair<int, float> *)out;
                    size_t need = 0;
                    CK(cub::DeviceSegmentedReduce::ArgMax(NULL, need, x, kv, (long long)rows, offs, offs + 1, s));
                    if (need > temp_bytes) { if (temp) CK(cudaFree(temp)); CK(cudaMalloc(&temp, need)); temp_bytes = need; }
                    cub_us = time_us(s, 10, [&] { cub::DeviceSegmentedReduce::ArgMax(temp, need, x, kv, (long long)rows, offs, offs + 1, s); });
                }
                printf("%-6s rows 2^%-2d x 2^%-2d: %9.1f us %7.1f GB/s %5.1f %% of read", op ? "stats" : "argmax", shapes[si], 28 - shapes[si], us,
                       total * 4 / us / 1e3, 100 * read_us / us);
                if (!op) printf("   CUB ArgMax %9.1f us -> %.3f x CUB's time", cub_us, us / cub_us);
                printf("\n");
                fprintf(csv, "%s,row,%llu,%llu,0,0,%.3f,%.3f,%.3f,%.1f,%.4f,%.4f\n", op ? "stats" : "argmax", rows, cols, us, read_us, cub_us,
                        total * 4 / us / 1e3, read_us / us, cub_us > 0 ? us / cub_us : 0.0);
                fflush(stdout);
            }
        }
    }
    fclose(csv);
    CK(cudaFree(x));
    CK(cudaFree(out));
    if (!sums_only) { /* a segment longer than 2^32 elements */
        const unsigned long long big = (1ull << 32) + 5, n = (1ull << 32) + 16;
        unsigned char *u;
        unsigned long long ho[3] = {0, big, n}, *dof;
        uint64_t res[2] = {0, 0};
        if (cudaMalloc(&u, n) == cudaSuccess && cudaMalloc(&dof, 24) == cudaSuccess) {
            pclr_config c;
            ones_kernel<<<4096, 256>>>(u, n);
            CK(cudaMemcpy(dof, ho, 24, cudaMemcpyHostToDevice));
            CK(cudaDeviceSynchronize());
            memset(&c, 0, sizeof c);
            c.type = PCLR_UINT8;
            c.accumulate = PCLR_WIDE;
            c.layout = PCLR_LAYOUT_SEGMENTS;
            c.rows = 2;
            pclr_result r = pclr_cuda_reduce_batched(pc, &c, (CUdeviceptr)u, 0, 0, 0, NULL, (CUdeviceptr)dof, n, s, res);
            check(pc, r, "segment past 2^32");
            printf("segment of 2^32 + 5 uint8 ones, wide sum: %llu and %llu (want %llu and 11)%s\n", (unsigned long long)res[0],
                   (unsigned long long)res[1], big, res[0] == big && res[1] == 11 ? "" : "  FAIL");
            if (res[0] != big || res[1] != 11) ++failures;
            cudaFree(u);
            cudaFree(dof);
        } else {
            printf("skip: no room for a 4 GiB segment\n");
        }
    }
    pclr_cuda_destroy(pc);
    printf("bench_rows: %d failures\n", failures);
    return failures ? 1 : 0;
}
