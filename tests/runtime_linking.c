/* Runtime linking: a program that links neither libOpenCL nor
   libcuda/libnvrtc (gcc ... -ldl -lm) reduces on OpenCL through the table
   the context loaded, makes and fills its buffers through pclr_cl_get_api,
   and gets a clean answer from pclr_cuda_create (PCLR_ERR_NO_DRIVER with a
   sentence without a driver, a context with one). tests/test_runtime_linking.sh
   builds it that way and also with -DPCLREDUCE_NO_RUNTIME_LINKING -lOpenCL
   -lcuda -lnvrtc.

       runtime_linking              the checks above; ends "N passed, N failed"
       runtime_linking no-library   expects PCLR_ERR_NO_DRIVER naming
                                    $PCLR_OPENCL_LIBRARY (run with a bogus one)

   PCLR_RL_NO_CUDA leaves the CUDA part out. */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_RL_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <stdlib.h>
#include <string.h>

/* Random elements of type t (ints over the full range, floats in [-1, 1)). */
static void fill_random(pclr_type t, void *data, uint64_t n, uint64_t *seed) {
    uint64_t i;
    for (i = 0; i < n; ++i) {
        uint64_t r = pclr_test_rand(seed);
        switch (t) {
        case PCLR_UINT: ((uint32_t *)data)[i] = (uint32_t)r; break;
        case PCLR_INT: ((int32_t *)data)[i] = (int32_t)(uint32_t)r; break;
        case PCLR_FLOAT: ((float *)data)[i] = (float)((double)(r >> 11) / 4503599627370496.0 - 1.0); break;
        default: ((double *)data)[i] = (double)(r >> 11) / 4503599627370496.0 - 1.0; break;
        }
    }
}

/* Float sums differ from the pairwise reference by rounding; everything
   else must match exactly. */
static int same(pclr_type t, pclr_op op, const void *got, const void *want, uint64_t n) {
    if (t == PCLR_FLOAT && op == PCLR_SUM) {
        double g = *(const float *)got, w = *(const float *)want;
        return g - w <= 1e-4 * (double)n && w - g <= 1e-4 * (double)n;
    }
    if (t == PCLR_DOUBLE && op == PCLR_SUM) {
        double g = *(const double *)got, w = *(const double *)want;
        return g - w <= 1e-9 * (double)n && w - g <= 1e-9 * (double)n;
    }
    return memcmp(got, want, pclr_type_size(t)) == 0;
}

/* One context: buffers made, filled and read back through its table;
   reductions checked against pclr_cpu_reduce. */
static void opencl_round(int round, uint64_t *seed) {
    static const struct { pclr_type t; pclr_op op; pclr_finish finish; } cases[] = {
        {PCLR_UINT, PCLR_SUM, PCLR_FINISH_DEFAULT}, {PCLR_INT, PCLR_MIN, PCLR_FINISH_PARTIALS},
        {PCLR_FLOAT, PCLR_MAX, PCLR_FINISH_DEFAULT}, {PCLR_FLOAT, PCLR_SUM, PCLR_FINISH_PARTIALS},
        {PCLR_UINT, PCLR_MAX, PCLR_FINISH_ATOMIC},
    };
    static const uint64_t sizes[] = {1, 7, 1000, 65537, 1000003};
    pclr_cl_context *ctx = NULL;
    const pclr_cl_api *cl;
    pclr_result r;
    size_t c;
    char why[512];
    pclr_cl_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.error = why;
    desc.error_cap = sizeof why;
    r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
    if (!CHECK(r == PCLR_OK && ctx, "round %d: OpenCL context: %s (%s)", round, pclr_result_string(r), why)) return;
    cl = pclr_cl_get_api(ctx);
    CHECK(cl != NULL && cl->CreateBuffer && cl->EnqueueWriteBuffer && cl->ReleaseMemObject, "round %d: the table", round);
    CHECK(pclr_cl_get_api(NULL) == NULL, "pclr_cl_get_api(NULL)");
    {
        char text[4096];
        pclr_cl_describe(ctx, text, sizeof text);
        CHECK(strstr(text, "OpenCL library: ") != NULL, "describe names the OpenCL library");
        if (round == 0) printf("%s", text);
    }
    for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        pclr_config cfg;
        size_t ts = pclr_type_size(cases[c].t);
        uint64_t n = sizes[(c + (size_t)round) % (sizeof sizes / sizeof sizes[0])], offset = c % 4;
        unsigned char want[8], got[8], back[8];
        void *host = malloc((size_t)(n + offset) * ts);
        cl_mem in, out;
        cl_int err;
        cl_event done = NULL;
        if (!CHECK(host != NULL, "host memory")) break;
        memset(&cfg, 0, sizeof cfg);
        cfg.type = cases[c].t;
        cfg.op = cases[c].op;
        cfg.finish = cases[c].finish;
        fill_random(cfg.type, host, n + offset, seed);
        pclr_cpu_reduce(cfg.type, cfg.op, (const unsigned char *)host + offset * ts, n, want);
        /* a buffer made empty and filled by a write, as an engine's upload would */
        in = cl->CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_ONLY, (size_t)(n + offset) * ts, NULL, &err);
        if (CHECK(err == CL_SUCCESS && in, "clCreateBuffer through the table: %d", (int)err)) {
            err = cl->EnqueueWriteBuffer(pclr_cl_get_queue(ctx), in, CL_TRUE, 0, (size_t)(n + offset) * ts, host, 0,
                                         NULL, NULL);
            CHECK(err == CL_SUCCESS, "clEnqueueWriteBuffer through the table: %d", (int)err);
            memset(got, 0, sizeof got);
            r = pclr_cl_reduce(ctx, &cfg, in, offset, n, got);
            CHECK(r == PCLR_OK && same(cfg.type, cfg.op, got, want, n), "%s %s n=%llu offset=%llu: %s (%s)",
                  pclr_type_name(cfg.type), pclr_op_name(cfg.op), (unsigned long long)n, (unsigned long long)offset,
                  pclr_result_string(r), pclr_cl_last_error(ctx));
            /* async into element 1 of an output buffer, waited on with the table's clWaitForEvents */
            out = cl->CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_WRITE, 2 * ts, NULL, &err);
            if (CHECK(err == CL_SUCCESS && out, "output buffer")) {
                r = pclr_cl_reduce_async(ctx, &cfg, in, offset, n, out, 1, 0, NULL, &done);
                if (CHECK(r == PCLR_OK && done, "async %s: %s", pclr_type_name(cfg.type), pclr_cl_last_error(ctx))) {
                    CHECK(cl->WaitForEvents(1, &done) == CL_SUCCESS, "clWaitForEvents through the table");
                    cl->ReleaseEvent(done);
                    err = cl->EnqueueReadBuffer(pclr_cl_get_queue(ctx), out, CL_TRUE, ts, ts, back, 0, NULL, NULL);
                    CHECK(err == CL_SUCCESS && same(cfg.type, cfg.op, back, want, n), "async %s %s n=%llu result",
                          pclr_type_name(cfg.type), pclr_op_name(cfg.op), (unsigned long long)n);
                }
                CHECK(cl->Finish(pclr_cl_get_queue(ctx)) == CL_SUCCESS, "clFinish through the table");
                cl->ReleaseMemObject(out);
            }
            cl->ReleaseMemObject(in);
        }
        free(host);
    }
    pclr_cl_destroy(ctx);
}

/* A table without a context, and the ways loading fails. */
static void load_api(void) {
    pclr_cl_api api;
    char why[512];
    pclr_result r;
    cl_uint np = 0;
    pclr_cl_context *ctx = (pclr_cl_context *)&api;
    pclr_cl_desc desc;
    r = pclr_cl_load_api(NULL, &api, why, sizeof why);
    if (CHECK(r == PCLR_OK, "pclr_cl_load_api: %s (%s)", pclr_result_string(r), why)) {
        CHECK(api.GetPlatformIDs(0, NULL, &np) == CL_SUCCESS && np >= 1, "clGetPlatformIDs through a loaded table");
        /* a caller's table: used as is */
        memset(&desc, 0, sizeof desc);
        desc.opencl_api = &api;
        r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
        if (CHECK(r == PCLR_OK && ctx, "create on the caller's table: %s", pclr_result_string(r))) {
            CHECK(pclr_cl_get_api(ctx)->CreateBuffer == api.CreateBuffer, "the context uses the caller's table");
            pclr_cl_destroy(ctx);
        }
        /* a table with a hole is refused, naming the entry point */
        api.EnqueueNDRangeKernel = NULL;
        desc.error = why;
        desc.error_cap = sizeof why;
        ctx = (pclr_cl_context *)&api;
        r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
        CHECK(r == PCLR_ERR_NULL_POINTER && ctx == NULL && strstr(why, "clEnqueueNDRangeKernel") != NULL,
              "a table without clEnqueueNDRangeKernel: %s (%s)", pclr_result_string(r), why);
    }
    CHECK(pclr_cl_load_api(NULL, NULL, why, sizeof why) == PCLR_ERR_NULL_POINTER && why[0],
          "pclr_cl_load_api(NULL api)");
    /* desc.context with create_default_desc is a mistake, said so */
    memset(&desc, 0, sizeof desc);
    desc.context = (cl_context)&desc;
    desc.error = why;
    desc.error_cap = sizeof why;
    r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
    CHECK(r == PCLR_ERR_INVALID_CONTEXT && ctx == NULL && why[0], "create_default_desc with desc.context set: %s",
          pclr_result_string(r));
#ifndef PCLREDUCE_NO_RUNTIME_LINKING
    /* an explicit path that does not load: no fall-back to the usual names */
    memset(&desc, 0, sizeof desc);
    desc.opencl_library = "/nonexistent/pclr/libOpenCL.so.1";
    desc.error = why;
    desc.error_cap = sizeof why;
    ctx = (pclr_cl_context *)&desc;
    r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && ctx == NULL && strstr(why, "/nonexistent/pclr/libOpenCL.so.1") != NULL,
          "desc.opencl_library that does not exist: %s (%s)", pclr_result_string(r), why);
    /* a library that is not OpenCL: the missing entry point is named */
    desc.opencl_library = "libm.so.6";
    r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER && ctx == NULL && strstr(why, "libm.so.6") && strstr(why, "lacks clGetPlatformIDs"),
          "libm as the OpenCL library: %s (%s)", pclr_result_string(r), why);
    r = pclr_cl_load_api("/nonexistent/pclr/libOpenCL.so.1", &api, why, sizeof why);
    CHECK(r == PCLR_ERR_NO_DRIVER && api.CreateBuffer == NULL && strstr(why, "/nonexistent/pclr/"),
          "pclr_cl_load_api(bogus path): %s (%s)", pclr_result_string(r), why);
#endif
}

#ifdef PCLREDUCE_CUDA
static void cuda(void) {
    pclr_cuda_context *ctx = NULL;
    pclr_cuda_desc desc;
    char why[512] = "";
    pclr_result r;
    memset(&desc, 0, sizeof desc);
    desc.error = why;
    desc.error_cap = sizeof why;
    r = pclr_cuda_create(&desc, &ctx);
    if (r == PCLR_OK) {
        SKIP("a CUDA driver and GPU are here: pclr_cuda_create succeeded (%s)",
             pclr_cuda_get_features(ctx)->device_name);
        CHECK(ctx != NULL, "cuda context");
    } else {
        CHECK(r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE, "pclr_cuda_create without a GPU: %s",
              pclr_result_string(r));
        CHECK(!ctx && why[0] != '\0', "pclr_cuda_create says why");
        printf("cuda: %s (%s)\n", pclr_result_string(r), why);
    }
    pclr_cuda_destroy(ctx);
}
#endif

int main(int argc, char **argv) {
    uint64_t seed = 12345;
    const char *env = getenv("PCLR_TEST_SEED");
    if (env) seed = strtoull(env, NULL, 10);
    if (argc == 2 && strcmp(argv[1], "no-library") == 0) {
        /* PCLR_OPENCL_LIBRARY names a library that does not exist */
        const char *lib = getenv("PCLR_OPENCL_LIBRARY");
        pclr_cl_context *ctx = NULL;
        pclr_cl_desc desc;
        char why[512] = "";
        pclr_result r;
        memset(&desc, 0, sizeof desc);
        desc.error = why;
        desc.error_cap = sizeof why;
        r = pclr_cl_create_default_desc(&desc, -1, -1, &ctx);
        printf("%s: %s\n", pclr_result_string(r), why);
        CHECK(lib && *lib, "PCLR_OPENCL_LIBRARY is set");
        CHECK(r == PCLR_ERR_NO_DRIVER && ctx == NULL, "PCLR_OPENCL_LIBRARY=%s: %s", lib ? lib : "", pclr_result_string(r));
        CHECK(lib && strstr(why, lib) != NULL && strstr(why, "PCLR_OPENCL_LIBRARY") != NULL,
              "the sentence names the path and the variable: %s", why);
        CHECK(pclr_cl_create_default(-1, -1, &ctx) == PCLR_ERR_NO_DRIVER && ctx == NULL, "pclr_cl_create_default too");
        return pclr_test_summary("runtime_linking no-library");
    }
    printf("runtime_linking: seed %llu\n", (unsigned long long)seed);
    opencl_round(0, &seed);
    opencl_round(1, &seed); /* a second context after the first was destroyed */
    load_api();
#ifdef PCLREDUCE_CUDA
    cuda();
#endif
    return pclr_test_summary("runtime_linking");
}
