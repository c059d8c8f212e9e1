/* The Vulkan backend beside the CUDA backend on the same GPU: pipelined
   time per reduce (many reduces back to back, timed on the device:
   Vulkan timestamps around one command buffer of them, CUDA events around
   as many async calls), both on inputs rotated over 4 buffers of >= 256 MiB
   in all so that data comes from memory. Default configs (no tuning file).
   usage: bench_vk [--quick] [--max-log2 N] [--data uniform|grid]
   Data (written again whenever the row's type changes): integers over all their bits; floats and
   doubles U(-1, 1) with every mantissa bit random (splitmix64, 63 random bits of magnitude), or with
   --data grid the data of the runs before issue 36: (k mod 1000) / 1000 as floats, whose bytes the
   double rows read as they are (doubles of about 2^-7..2^0, both signs).
   Prints one table row per (type, op, n): the median of 7 timed batches, us per call and GB/s for each,
   and Vulkan / CUDA throughput. Built with -DPCLR_BENCH_CUDA (cuda.h) for
   the CUDA column; without it the CUDA column says "-". */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_VULKAN
#ifdef PCLR_BENCH_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROT 4

static double vk_time(pclr_vk_context *vk, const pclr_config *c, VkBuffer *in, VkDeviceSize bytes, uint64_t n, VkBuffer out, int calls) {
    const pclr_vk_api *api = pclr_vk_get_api(vk);
    VkDevice dev = pclr_vk_get_device(vk);
    const pclr_vk_features *f = pclr_vk_get_features(vk);
    static VkCommandPool pool;
    static VkCommandBuffer cmd;
    static VkQueryPool qp;
    static VkQueue queue;
    static VkFence fence;
    VkCommandBufferBeginInfo bi;
    VkSubmitInfo si;
    uint64_t t[2];
    int i;
    if (!pool) {
        VkCommandPoolCreateInfo pi;
        VkCommandBufferAllocateInfo ai;
        VkQueryPoolCreateInfo qi;
        VkFenceCreateInfo fi;
        memset(&pi, 0, sizeof pi);
        pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pi.queueFamilyIndex = f->queue_family;
        api->CreateCommandPool(dev, &pi, NULL, &pool);
        memset(&ai, 0, sizeof ai);
        ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
        ai.commandPool = pool;
        ai.commandBufferCount = 1;
        api->AllocateCommandBuffers(dev, &ai, &cmd);
        memset(&qi, 0, sizeof qi);
        qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2;
        api->CreateQueryPool(dev, &qi, NULL, &qp);
        memset(&fi, 0, sizeof fi);
        fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        api->CreateFence(dev, &fi, NULL, &fence);
        api->GetDeviceQueue(dev, f->queue_family, 0, &queue);
    }
    (void)f;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    api->ResetCommandBuffer(cmd, 0);
    api->BeginCommandBuffer(cmd, &bi);
    api->CmdResetQueryPool(cmd, qp, 0, 2);
    api->CmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
    for (i = 0; i < calls; ++i)
        if (pclr_vk_record(vk, cmd, c, in[i % ROT], bytes, 0, n, out, 0) != PCLR_OK) {
            fprintf(stderr, "record: %s\n", pclr_vk_last_error(vk));
            return -1;
        }
    api->CmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
    api->EndCommandBuffer(cmd);
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    api->ResetFences(dev, 1, &fence);
    api->QueueSubmit(queue, 1, &si, fence);
    api->WaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
    api->GetQueryPoolResults(dev, qp, 0, 2, sizeof t, t, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    return (double)(t[1] - t[0]) * 1e-9 / calls; /* timestampPeriod: 1 ns on NVIDIA and lavapipe (checked in main) */
}

#ifdef PCLR_BENCH_CUDA
static double cuda_time(pclr_cuda_context *cu, const pclr_config *c, CUdeviceptr *in, uint64_t n, CUdeviceptr out, int calls) {
    const pclr_cuda_api *api = pclr_cuda_get_api(cu);
    CUevent a, b;
    float ms = 0;
    int i;
    if (api->EventCreate(&a, 0) != CUDA_SUCCESS) return -1;
    if (api->EventCreate(&b, 0) != CUDA_SUCCESS) { api->EventDestroy(a); return -1; }
    api->EventRecord(a, NULL);
    for (i = 0; i < calls; ++i)
        if (pclr_cuda_reduce_async(cu, c, in[i % ROT], 0, n, out, NULL) != PCLR_OK) { fprintf(stderr, "cuda: %s\n", pclr_cuda_last_error(cu)); return -1; }
    api->EventRecord(b, NULL);
    api->EventSynchronize(b);
    api->EventElapsedTime(&ms, a, b);
    api->EventDestroy(a);
    api->EventDestroy(b);
    return ms * 1e-3 / calls;
}
#endif

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* bytes of data of type t at host (see the header comment); grid: the old data whatever t is. */
static void fill_host(pclr_type t, void *host, size_t bytes, int grid) {
    uint64_t s = 0x5eed0000u + (uint64_t)t;
    size_t k;
    if (grid) for (k = 0; k < bytes / 4; ++k) ((float *)host)[k] = (float)(k % 1000) * 0.001f;
    else if (t == PCLR_FLOAT) for (k = 0; k < bytes / 4; ++k) ((float *)host)[k] = (float)((double)(int64_t)splitmix(&s) * (1.0 / 9223372036854775808.0));
    else if (t == PCLR_DOUBLE) for (k = 0; k < bytes / 8; ++k) ((double *)host)[k] = (double)(int64_t)splitmix(&s) * (1.0 / 9223372036854775808.0);
    else for (k = 0; k < bytes / 8; ++k) ((uint64_t *)host)[k] = splitmix(&s);
}

/* The median of 7 times (a failed one, -1, sorts first). */
static double median7(double *t) {
    int i, j;
    for (i = 1; i < 7; ++i)
        for (j = i; j > 0 && t[j] < t[j - 1]; --j) { const double x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
    return t[3];
}

int main(int argc, char **argv) {
    static const struct { pclr_type t; pclr_op o; } rows[] = {{PCLR_FLOAT, PCLR_SUM}, {PCLR_UINT, PCLR_SUM}, {PCLR_FLOAT, PCLR_MAX},
                                                             {PCLR_DOUBLE, PCLR_SUM}, {PCLR_INT, PCLR_MIN}, {PCLR_FLOAT, PCLR_ARGMIN}};
    int maxlog = 28, quick = 0, grid = 0, written = -1, i, k, lg;
    pclr_vk_desc d;
    pclr_vk_context *vk;
    VkBuffer vin[ROT], vout;
    char err[512];
    size_t bytes;
    void *host;
#ifdef PCLR_BENCH_CUDA
    pclr_cuda_context *cu = NULL;
    CUdeviceptr cin[ROT], cout = 0;
#endif
    setvbuf(stdout, NULL, _IOLBF, 0); /* a crash still shows the rows before it */
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1, maxlog = 24;
        else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc) maxlog = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc && (!strcmp(argv[i + 1], "uniform") || !strcmp(argv[i + 1], "grid"))) grid = !strcmp(argv[++i], "grid");
        else { printf("usage: bench_vk [--quick] [--max-log2 N] [--data uniform|grid]\n"); return 2; }
    }
    memset(&d, 0, sizeof d);
    d.no_tune_file = 1; /* device_number 0: the best device */
    d.error = err;
    d.error_cap = sizeof err;
    if (pclr_vk_create(&d, &vk) != PCLR_OK) { printf("skip: no Vulkan device (%s)\n", err); return 0; }
    if (pclr_vk_get_features(vk)->vendor_id != 0x10DE && pclr_vk_get_features(vk)->type != VK_PHYSICAL_DEVICE_TYPE_CPU)
        printf("note: timestamps are read as 1 ns per tick\n");
    bytes = ((size_t)8 << maxlog) / (maxlog >= 27 ? 2 : 1); /* doubles at 2^28: 2^27 of them */
    if (bytes < ((size_t)64 << 20)) bytes = (size_t)64 << 20;
    if (!(host = calloc(1, bytes))) { printf("out of host memory (%zu bytes)\n", bytes); return 1; }
    fill_host(PCLR_FLOAT, host, bytes, grid);
    for (k = 0; k < ROT; ++k) {
        if (pclr_vk_buffer_create(vk, bytes, &vin[k]) != PCLR_OK || pclr_vk_buffer_write(vk, vin[k], 0, host, bytes) != PCLR_OK) {
            printf("vulkan input %d: %s\n", k, pclr_vk_last_error(vk));
            return 1;
        }
    }
    if (pclr_vk_buffer_create(vk, 256, &vout) != PCLR_OK) { printf("vulkan output: %s\n", pclr_vk_last_error(vk)); return 1; }
    printf("vulkan: %d inputs of %zu MiB written\n", ROT, bytes >> 20);
#ifdef PCLR_BENCH_CUDA
    {
        pclr_cuda_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.device_number = 1; /* device 0, whose primary context the events below use */
        cd.no_tune_file = 1;
        if (pclr_cuda_create(&cd, &cu) != PCLR_OK) cu = NULL;
        if (cu) { /* the events below are made outside the library's calls: its (primary) context must be current here */
            const pclr_cuda_api *api = pclr_cuda_get_api(cu);
            CUdevice dev0;
            CUcontext primary;
            if (api->DeviceGet(&dev0, 0) != CUDA_SUCCESS || api->DevicePrimaryCtxRetain(&primary, dev0) != CUDA_SUCCESS ||
                api->CtxPushCurrent(primary) != CUDA_SUCCESS) {
                printf("cuda: no current context (no CUDA column)\n");
                pclr_cuda_destroy(cu);
                cu = NULL;
            }
        }
        for (k = 0; cu && k < ROT; ++k)
            if (pclr_cuda_alloc(cu, bytes, &cin[k]) != PCLR_OK || pclr_cuda_copy_to_device(cu, cin[k], host, bytes) != PCLR_OK) {
                printf("cuda input %d: %s (no CUDA column)\n", k, pclr_cuda_last_error(cu));
                pclr_cuda_destroy(cu);
                cu = NULL;
            }
        if (cu && pclr_cuda_alloc(cu, 256, &cout) != PCLR_OK) { pclr_cuda_destroy(cu); cu = NULL; }
    }
#endif
    printf("device: %s (Vulkan)\n", pclr_vk_get_features(vk)->device_name);
    printf("data: %s\n", grid ? "grid: (k mod 1000) / 1000 as floats, the runs before issue 36 (double rows read their bytes)"
                                : "uniform: integers over all their bits, floats and doubles U(-1, 1) with every mantissa bit random");
    written = grid ? -2 : PCLR_FLOAT;
    printf("| type | op | n | vulkan us/call | cuda us/call | vulkan GB/s | cuda GB/s | vulkan / cuda |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (i = 0; i < (int)(sizeof rows / sizeof rows[0]); ++i)
        for (lg = 12; lg <= maxlog; lg += (lg < 20 ? 2 : quick ? 4 : 2)) {
            pclr_config c;
            const size_t es = pclr_type_size(rows[i].t);
            const uint64_t n = (uint64_t)1 << (rows[i].t == PCLR_DOUBLE && lg == 28 ? 27 : lg);
            double tv, tc = -1, tvs[7], tcs[7];
            int calls = lg <= 20 ? 400 : lg <= 24 ? 100 : 20, rep;
            if (n * es > bytes) continue;
            if (written != -2 && written != (int)rows[i].t) { /* this type's data into every input */
                fill_host(rows[i].t, host, bytes, 0);
                for (k = 0; k < ROT; ++k) {
                    if (pclr_vk_buffer_write(vk, vin[k], 0, host, bytes) != PCLR_OK) { printf("vulkan input %d: %s\n", k, pclr_vk_last_error(vk)); return 1; }
#ifdef PCLR_BENCH_CUDA
                    if (cu && pclr_cuda_copy_to_device(cu, cin[k], host, bytes) != PCLR_OK) { printf("cuda input %d: %s\n", k, pclr_cuda_last_error(cu)); return 1; }
#endif
                }
                written = (int)rows[i].t;
            }
            memset(&c, 0, sizeof c);
            c.type = rows[i].t;
            c.op = rows[i].o;
            if (vk_time(vk, &c, vin, bytes, n, vout, 4) < 0) continue; /* build and warm */
            for (rep = 0; rep < 7; ++rep) tvs[rep] = vk_time(vk, &c, vin, bytes, n, vout, calls);
#ifdef PCLR_BENCH_CUDA
            if (cu) {
                cuda_time(cu, &c, cin, n, cout, 4);
                for (rep = 0; rep < 7; ++rep) tcs[rep] = cuda_time(cu, &c, cin, n, cout, calls);
                tc = median7(tcs);
            }
#endif
            tv = median7(tvs);
            if (tc > 0)
                printf("| %s | %s | 2^%d | %.2f | %.2f | %.0f | %.0f | %.3f |\n", pclr_type_name(c.type), pclr_op_name(c.op),
                       rows[i].t == PCLR_DOUBLE && lg == 28 ? 27 : lg, tv * 1e6, tc * 1e6, n * es / tv * 1e-9, n * es / tc * 1e-9, tc / tv);
            else
                printf("| %s | %s | 2^%d | %.2f | - | %.0f | - | - |\n", pclr_type_name(c.type), pclr_op_name(c.op),
                       rows[i].t == PCLR_DOUBLE && lg == 28 ? 27 : lg, tv * 1e6, n * es / tv * 1e-9);
            fflush(stdout);
        }
    free(host);
    pclr_vk_destroy(vk);
#ifdef PCLR_BENCH_CUDA
    if (cu) pclr_cuda_destroy(cu);
#endif
    return 0;
}
