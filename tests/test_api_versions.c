/* An old program and a new one (issue 31): built twice from this file.
     -DPCLR_OLD_PROGRAM   the 0.3 calls (the deprecated wrappers: generic pclr_reduce_map,
                          pclr_reduce_batched(_async); every backend's own context and verbs),
                          which must still compile, link and give the same results;
     (default)            the 0.4 verb set, compiled with PCLREDUCE_WARN_DEPRECATED and -Werror, so
                          that a deprecated call anywhere in it fails the build.
   Both run on the CPU context (every machine has it) against a sum written here; the backend calls
   are compiled and linked, and run where the backend works (OpenCL on PoCL in CI). */
#define _POSIX_C_SOURCE 200809L
#ifndef PCLR_OLD_PROGRAM
#define PCLREDUCE_WARN_DEPRECATED
#endif
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#define PCLREDUCE_VULKAN
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#define N 1000

static uint32_t g_data[N], g_sum, g_rows[4];

#ifdef PCLR_OLD_PROGRAM
/* The backends' own contexts, as a 0.3 program used them (compiled and linked; run on OpenCL where one works). */
static void old_backends(void) {
    pclr_cl_context *cl = NULL;
    pclr_config c = PCLR_ZERO;
    uint32_t sum = 0;
    cl_mem m;
    cl_int err;
    c.type = PCLR_UINT;
    if (pclr_cl_create_default(-1, -1, &cl) != PCLR_OK) {
        SKIP("old program: no OpenCL device");
        return;
    }
    m = pclr_cl_get_api(cl)->CreateBuffer(pclr_cl_get_cl_context(cl), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof g_data, g_data, &err);
    CHECK(m && pclr_cl_reduce(cl, &c, m, 0, N, &sum) == PCLR_OK && sum == g_sum, "old program: pclr_cl_reduce %u", sum);
    if (m) pclr_cl_get_api(cl)->ReleaseMemObject(m);
    pclr_cl_destroy(cl);
    { /* the other backends' calls link (not run here) */
        pclr_result (*vk)(pclr_vk_context *, const pclr_config *, VkBuffer, VkDeviceSize, uint64_t, uint64_t, void *) = pclr_vk_reduce;
        CHECK(vk != NULL && pclr_vk_record != NULL && pclr_cl_reduce_batched_async != NULL, "old program: the Vulkan and OpenCL verbs link");
#ifdef PCLR_TEST_CUDA
        CHECK(pclr_cuda_reduce != NULL && pclr_cuda_reduce_batched != NULL, "old program: the CUDA verbs link");
#endif
    }
}
#endif

int main(void) {
    pclr_desc d = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL, *states = NULL;
    pclr_config c = PCLR_ZERO, rows = PCLR_ZERO;
    uint32_t sum = 0, got[4] = {0, 0, 0, 0};
    uint64_t seed = (uint64_t)time(NULL);
    int i;
    for (i = 0; i < N; ++i) {
        g_data[i] = (uint32_t)(pclr_test_rand(&seed) & 0xffff);
        g_sum += g_data[i];
        g_rows[i / 250] += g_data[i];
    }
    c.type = PCLR_UINT;
    rows = c;
    rows.layout = PCLR_LAYOUT_ROWS;
    rows.rows = 4;
    rows.cols = 250;
    d.backends[0] = PCLR_CPU;
    if (!CHECK(pclr_create(&d, &ctx) == PCLR_OK && pclr_buffer_create(ctx, sizeof g_data, &buf) == PCLR_OK &&
               pclr_buffer_write(ctx, buf, 0, g_data, sizeof g_data) == PCLR_OK && pclr_buffer_create(ctx, 64, &states) == PCLR_OK,
               "a CPU context and its buffers"))
        return pclr_test_summary("test_api_versions");
#ifdef PCLR_OLD_PROGRAM
    CHECK(pclr_reduce_map(ctx, &c, buf, 0, NULL, 0, N, NULL, &sum) == PCLR_OK && sum == g_sum, "old program: pclr_reduce_map %u", sum);
    CHECK(pclr_reduce_batched(ctx, &rows, buf, 0, NULL, 0, NULL, NULL, 0, got) == PCLR_OK && !memcmp(got, g_rows, sizeof got),
          "old program: pclr_reduce_batched");
    memset(got, 0, sizeof got);
    CHECK(pclr_reduce_batched_async(ctx, &rows, buf, 0, NULL, 0, NULL, NULL, 0, states) == PCLR_OK &&
          pclr_buffer_read(ctx, states, 0, got, sizeof got) == PCLR_OK && !memcmp(got, g_rows, sizeof got),
          "old program: pclr_reduce_batched_async");
    old_backends();
#else
    {
        pclr_input in = PCLR_ZERO;
        pclr_cl_native cl;
        pclr_vk_native vk;
        pclr_buffer wrapped;
        in.x = buf;
        in.n = N;
        CHECK(pclr_reduce(ctx, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == g_sum, "new program: pclr_reduce %u", sum);
        CHECK(pclr_reduce(ctx, &rows, &in, got, sizeof got) == PCLR_OK && !memcmp(got, g_rows, sizeof got), "new program: rows");
        CHECK(pclr_reduce(ctx, &rows, &in, got, sizeof got - 1) == PCLR_ERR_BUFFER_TOO_SMALL, "new program: the results are sized");
        memset(got, 0, sizeof got);
        CHECK(pclr_reduce_async(ctx, &rows, &in, states, 0, NULL) == PCLR_OK && pclr_buffer_read(ctx, states, 0, got, sizeof got) == PCLR_OK &&
              !memcmp(got, g_rows, sizeof got), "new program: pclr_reduce_async");
        /* the backend headers' constructors and queries compile and refuse another backend's context */
        CHECK(pclr_cl_get_native(ctx, &cl) == PCLR_ERR_INVALID_ARGUMENT && pclr_vk_get_native(ctx, &vk) == PCLR_ERR_INVALID_ARGUMENT,
              "new program: no native OpenCL or Vulkan objects on the CPU");
        CHECK(pclr_cl_buffer(ctx, NULL, &wrapped) == PCLR_ERR_INVALID_ARGUMENT && pclr_vk_buffer(ctx, VK_NULL_HANDLE, 4, &wrapped) == PCLR_ERR_INVALID_ARGUMENT,
              "new program: pclr_cl_buffer and pclr_vk_buffer refuse a CPU context");
#ifdef PCLR_TEST_CUDA
        {
            pclr_cuda_native cu;
            CHECK(pclr_cuda_get_native(ctx, &cu) == PCLR_ERR_INVALID_ARGUMENT && pclr_cuda_buffer(ctx, 0, 4, &wrapped) == PCLR_ERR_INVALID_ARGUMENT,
                  "new program: the CUDA constructor and query refuse a CPU context");
        }
#endif
    }
#endif
    pclr_buffer_destroy(ctx, buf);
    pclr_buffer_destroy(ctx, states);
    pclr_destroy(ctx);
    return pclr_test_summary("test_api_versions");
}
