/* The generic context (pclr_create): the backend choice and what it reports,
   the one contract every context keeps (failed create, NULL context,
   allocator), device buffers and their bounds, and results against the CPU
   reference for every type/op on every backend that works here (PoCL in CI:
   OpenCL and the CPU; on a GPU machine CUDA as well). PCLR_TEST_SEED. */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "../examples/pclr_args.h"
#include "pclr_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every type/op on sizes around the kernels' boundaries, at odd offsets. */
static void reduce_all(pclr_context *ctx, uint64_t seed) {
    static const uint64_t sizes[] = {0, 1, 2, 3, 31, 257, 4099, 65537, 1000003};
    const uint64_t most = 1000003 + 7;
    const pclr_backend b = pclr_get_backend(ctx);
    unsigned char *host = (unsigned char *)malloc((size_t)most * 8);
    pclr_buffer *buf = NULL;
    int t, o;
    size_t s;
    if (!CHECK(host && pclr_buffer_create(ctx, (size_t)most * 8, &buf) == PCLR_OK, "a %s buffer of %llu bytes",
               pclr_backend_name(b), (unsigned long long)most * 8))
        goto done;
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t) {
        const size_t ts = pclr_type_size((pclr_type)t);
        pclr_args_fill_random((pclr_type)t, host, most, seed + (uint64_t)t);
        if (!CHECK(pclr_buffer_write(ctx, buf, 0, host, (size_t)most * ts) == PCLR_OK, "upload %s", pclr_type_name((pclr_type)t)))
            continue;
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
            for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                const uint64_t n = sizes[s], off = (s * 3) % 7;
                pclr_config c;
                unsigned char got[8];
                pclr_result r;
                memset(&c, 0, sizeof c);
                c.type = (pclr_type)t;
                c.op = (pclr_op)o;
                r = reduce_one(ctx, &c, buf, off, n, got);
                if (r == PCLR_ERR_NO_FP64) continue; /* a device without doubles says so */
                CHECK(r == PCLR_OK && pclr_args_matches(c.type, c.op, got, host + off * ts, n), "%s %s %s n=%llu offset %llu: %s (%s)",
                      pclr_backend_name(b), pclr_type_name(c.type), pclr_op_name(c.op), (unsigned long long)n,
                      (unsigned long long)off, pclr_result_string(r), pclr_last_error(ctx));
            }
    }
    {   /* reading back what was written */
        unsigned char back[64];
        CHECK(pclr_buffer_read(ctx, buf, 8, back, sizeof back) == PCLR_OK && memcmp(back, host + 8, sizeof back) == 0,
              "%s: pclr_buffer_read gives back the bytes written", pclr_backend_name(b));
    }
done:
    pclr_buffer_destroy(ctx, buf);
    free(host);
}

static void bad_inputs(pclr_context *ctx) {
    pclr_buffer *buf = NULL, *none = NULL;
    pclr_config c, out;
    unsigned char v[8], small[16];
    memset(&c, 0, sizeof c);
    memset(small, 0, sizeof small);
    if (!CHECK(pclr_buffer_create(ctx, 16, &buf) == PCLR_OK, "16-byte buffer")) return;
    CHECK(pclr_buffer_write(ctx, buf, 8, small, 9) == PCLR_ERR_SIZE_OVERFLOW && pclr_last_error(ctx)[0], "write past the end");
    CHECK(pclr_buffer_write(ctx, buf, (size_t)-1, small, 2) == PCLR_ERR_SIZE_OVERFLOW, "write offset wraps");
    CHECK(pclr_buffer_read(ctx, buf, 0, NULL, 4) == PCLR_ERR_NULL_POINTER, "read into NULL");
    CHECK(pclr_buffer_write(ctx, buf, 0, small, 16) == PCLR_OK, "write the whole buffer");
    c.type = PCLR_UINT;
    CHECK(reduce_one(ctx, &c, buf, 0, 5, v) == PCLR_ERR_SIZE_OVERFLOW, "5 uints in 16 bytes");
    CHECK(reduce_one(ctx, &c, buf, 3, 2, v) == PCLR_ERR_SIZE_OVERFLOW, "offset 3 + 2 uints in 16 bytes");
    CHECK(reduce_one(ctx, &c, buf, UINT64_MAX, 2, v) == PCLR_ERR_SIZE_OVERFLOW, "offset + n wraps");
    CHECK(reduce_one(ctx, &c, buf, 0, 4, NULL) == PCLR_ERR_NULL_POINTER, "NULL result");
    CHECK(reduce_one(ctx, &c, NULL, 0, 4, v) == PCLR_ERR_NULL_POINTER, "NULL buffer with n > 0");
    CHECK(reduce_one(ctx, NULL, buf, 0, 4, v) == PCLR_ERR_NULL_POINTER, "NULL config");
    c.unroll = 3;
    CHECK(reduce_one(ctx, &c, buf, 0, 4, v) == PCLR_ERR_INVALID_KNOB && strstr(pclr_last_error(ctx), "unroll"),
          "unroll 3 refused, the sentence names it (%s)", pclr_last_error(ctx));
    c.unroll = 0;
    c.op = PCLR_MAX;
    CHECK(reduce_one(ctx, &c, buf, 0, 0, v) == PCLR_OK && *(uint32_t *)v == 0, "n = 0 gives the identity");
    CHECK(reduce_one(ctx, &c, NULL, 0, 0, v) == PCLR_OK, "n = 0 needs no buffer");
    CHECK(pclr_resolve(ctx, &c, 1000, &out) == PCLR_OK && out.type == PCLR_UINT && out.group_size > 0, "pclr_resolve fills the knobs");
    CHECK(pclr_buffer_create(ctx, 8, NULL) == PCLR_ERR_NULL_POINTER, "buffer_create(NULL out)");
    CHECK(pclr_prepare(ctx, NULL) == PCLR_ERR_NULL_POINTER, "prepare(NULL)");
    pclr_buffer_destroy(ctx, none);
    pclr_buffer_destroy(ctx, buf);
}

static void contract(void) {
    pclr_desc d;
    pclr_context *ctx = (pclr_context *)&d; /* not NULL: a failed create must set it to NULL */
    pclr_test_counting cnt;
    char why[512], text[256];
    pclr_config c;
    unsigned char v[8];
    memset(&c, 0, sizeof c);
    memset(&d, 0, sizeof d);
    CHECK(pclr_create(&d, NULL) == PCLR_ERR_NULL_POINTER, "create(NULL out)");
    d.error = why;
    d.error_cap = sizeof why;
    d.allocator.alloc = pclr_test_count_alloc;
    CHECK(pclr_create(&d, &ctx) == PCLR_ERR_NULL_POINTER && ctx == NULL && strstr(why, "allocator"),
          "half an allocator refused: %s", why);
    memset(&d, 0, sizeof d);
    d.error = why;
    d.error_cap = sizeof why;
    d.backends[0] = PCLR_CUDA;
    d.cuda_library = "/nonexistent/pclr/libcuda.so.1";
    ctx = (pclr_context *)&d;
#ifdef PCLR_TEST_CUDA
    CHECK(pclr_create(&d, &ctx) == PCLR_ERR_NO_DEVICE && ctx == NULL && strstr(why, "cuda") && strstr(why, "/nonexistent"),
          "only a CUDA driver that does not load: no device, and why (%s)", why);
#else
    CHECK(pclr_create(&d, &ctx) == PCLR_ERR_NO_DEVICE && ctx == NULL && strstr(why, "cuda: not compiled in"),
          "only CUDA, not compiled in: no device, and why (%s)", why);
#endif
    d.backends[0] = (pclr_backend)9;
    CHECK(pclr_create(&d, &ctx) == PCLR_ERR_INVALID_ENUM && ctx == NULL, "backend 9 refused (%s)", why);
    /* NULL contexts */
    CHECK(strcmp(pclr_last_error(NULL), "no context (NULL)") == 0, "last_error(NULL)");
    CHECK(strcmp(pclr_build_log(NULL), "") == 0, "build_log(NULL)");
    CHECK(pclr_describe(NULL, text, sizeof text) > 0 && strstr(text, "no context"), "describe(NULL): %s", text);
    CHECK(pclr_get_backend(NULL) == PCLR_BACKEND_AUTO && strcmp(pclr_device_name(NULL), "") == 0, "backend/device of NULL");
    CHECK(reduce_one(NULL, &c, NULL, 0, 0, v) == PCLR_ERR_INVALID_CONTEXT, "reduce(NULL ctx)");
    CHECK(pclr_prepare(NULL, &c) == PCLR_ERR_INVALID_CONTEXT, "prepare(NULL ctx)");
    CHECK(pclr_buffer_create(NULL, 8, NULL) == PCLR_ERR_INVALID_CONTEXT, "buffer_create(NULL ctx)");
    CHECK(pclr_tune(NULL, PCLR_FLOAT, PCLR_SUM, NULL, NULL, 0, NULL) == PCLR_ERR_INVALID_CONTEXT, "tune(NULL ctx)");
    pclr_destroy(NULL);
    /* everything through the caller's allocator, all of it given back */
    memset(&cnt, 0, sizeof cnt);
    memset(&d, 0, sizeof d);
    d.allocator.alloc = pclr_test_count_alloc;
    d.allocator.free = pclr_test_count_free;
    d.allocator.user = &cnt;
    d.no_disk_cache = 1;
    if (CHECK(pclr_create(&d, &ctx) == PCLR_OK, "auto create with an allocator")) {
        pclr_buffer *b = NULL;
        c.type = PCLR_INT;
        if (pclr_buffer_create(ctx, 64, &b) == PCLR_OK) {
            memset(text, 1, 64);
            pclr_buffer_write(ctx, b, 0, text, 64);
            CHECK(reduce_one(ctx, &c, b, 0, 16, v) == PCLR_OK && *(int32_t *)v == 16 * 0x01010101, "int sum of 16");
        }
        pclr_buffer_destroy(ctx, b);
        pclr_destroy(ctx);
    }
    CHECK(cnt.calls > 0 && cnt.live == 0, "the caller's allocator: %ld allocations, %ld left", cnt.calls, cnt.live);
}

/* pclr_device_count: the numbers pclr_desc.device takes (device k + 1 for k < count) */
static void device_numbers(void) {
    static const pclr_backend gpus[] = {PCLR_OPENCL, PCLR_CUDA};
    pclr_desc d;
    pclr_context *ctx = NULL;
    char why[512];
    int count = -1;
    size_t b;
    memset(&d, 0, sizeof d);
    d.error = why;
    d.error_cap = sizeof why;
    CHECK(pclr_device_count(NULL, PCLR_CPU, &count) == PCLR_OK && count == 1, "the CPU is one device (%d)", count);
    CHECK(pclr_device_count(&d, PCLR_BACKEND_AUTO, &count) == PCLR_ERR_INVALID_ENUM && count == 0 && strstr(why, "name one backend"),
          "auto is not one backend: %s", why);
    CHECK(pclr_device_count(&d, (pclr_backend)9, &count) == PCLR_ERR_INVALID_ENUM, "backend 9");
    CHECK(pclr_device_count(&d, PCLR_CPU, NULL) == PCLR_ERR_NULL_POINTER, "NULL count");
    d.cuda_library = "/nonexistent/pclr/libcuda.so.1";
#ifdef PCLR_TEST_CUDA
    CHECK(pclr_device_count(&d, PCLR_CUDA, &count) == PCLR_ERR_NO_DRIVER && count == 0 && strstr(why, "/nonexistent"),
          "a CUDA driver that does not load: %s", why);
#else
    CHECK(pclr_device_count(&d, PCLR_CUDA, &count) == PCLR_ERR_NO_DRIVER && strstr(why, "not compiled in"),
          "CUDA not compiled in: %s", why);
#endif
    d.cuda_library = NULL;
    { /* OpenCL: every device of every platform, as the ICD lists them */
        pclr_cl_api cl;
        cl_platform_id plats[32];
        cl_uint np = 0, p, total = 0;
        if (pclr_cl_load_api(NULL, &cl, why, sizeof why) == PCLR_OK && cl.GetPlatformIDs(32, plats, &np) == CL_SUCCESS) {
            for (p = 0; p < np; ++p) {
                cl_uint nd = 0;
                if (cl.GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS) total += nd;
            }
            CHECK(pclr_device_count(&d, PCLR_OPENCL, &count) == PCLR_OK && count == (int)total,
                  "OpenCL devices: %d, the ICD lists %u (%s)", count, (unsigned)total, why);
            d.platform = (int)np + 1;
            CHECK(pclr_device_count(&d, PCLR_OPENCL, &count) == PCLR_ERR_NO_DEVICE && count == 0 && strstr(why, "no OpenCL platform"),
                  "platform %u of %u: %s", (unsigned)np, (unsigned)np, why);
            d.platform = -1;
            CHECK(pclr_device_count(&d, PCLR_OPENCL, &count) == PCLR_ERR_NO_DEVICE && count == 0 && strstr(why, "platform number -1"),
                  "platform number -1: %s", why);
            d.platform = 0;
        }
    }
    for (b = 0; b < sizeof gpus / sizeof gpus[0]; ++b) {
        int k, n = 0;
        if (pclr_device_count(&d, gpus[b], &n) != PCLR_OK) {
            CHECK(n == 0 && why[0], "%s without devices: 0 and a sentence", pclr_backend_name(gpus[b]));
            SKIP("%s devices: %s", pclr_backend_name(gpus[b]), why);
            continue;
        }
        d.backends[0] = gpus[b];
        for (k = 1; k <= n + 1; ++k) {
            d.device = k;
            d.no_disk_cache = 1;
            if (k <= n) {
                CHECK(pclr_create(&d, &ctx) == PCLR_OK, "%s device %d of %d: %s", pclr_backend_name(gpus[b]), k - 1, n, why);
                printf("%s device %d of %d: %s\n", pclr_backend_name(gpus[b]), k - 1, n, pclr_device_name(ctx));
            } else {
                CHECK(pclr_create(&d, &ctx) == PCLR_ERR_NO_DEVICE && ctx == NULL && strstr(why, "there are"),
                      "%s device %d past the count %d: %s", pclr_backend_name(gpus[b]), k - 1, n, why);
            }
            pclr_destroy(ctx);
            ctx = NULL;
        }
        d.backends[0] = PCLR_BACKEND_AUTO;
        d.device = 0;
    }
}

/* OpenCL's numbering (the rule above pclr_cl_desc): pclr_cl_create_default_desc takes
   desc.platform_number / device_number (0 = every platform / the best device, k > 0 = k - 1) when either
   is nonzero, else its old 0-based index arguments (-1 = every / the best), which
   pclr_cl_create_default keeps: both spellings of a device pick the same one, and pclr_desc.device /
   .platform are the desc's numbers. */
static const char *cl_pick(int platform_number, int device_number, int platform_index, int device_index, int old_call, pclr_result *r,
                           char *name, size_t cap, char *why, size_t why_cap) {
    pclr_cl_desc d;
    pclr_cl_context *ctx = NULL;
    memset(&d, 0, sizeof d);
    d.platform_number = platform_number;
    d.device_number = device_number;
    d.no_disk_cache = d.no_tune_file = 1;
    d.error = why;
    d.error_cap = why_cap;
    why[0] = name[0] = '\0';
    *r = old_call ? pclr_cl_create_default(platform_index, device_index, &ctx) : pclr_cl_create_default_desc(&d, platform_index, device_index, &ctx);
    if (ctx) snprintf(name, cap, "%s", pclr_cl_get_features(ctx)->device_name);
    pclr_cl_destroy(ctx);
    return name;
}

static void cl_numbers(void) {
    pclr_cl_api cl;
    cl_platform_id plats[32];
    cl_uint np = 0, p;
    char best[256], name[256], old[256], why[512], gwhy[512];
    pclr_result r;
    int total = 0;
    pclr_desc g;
    pclr_context *gc = NULL;
    if (pclr_cl_load_api(NULL, &cl, why, sizeof why) != PCLR_OK || cl.GetPlatformIDs(32, plats, &np) != CL_SUCCESS || np == 0) {
        SKIP("OpenCL numbering: no platform (%s)", why);
        return;
    }
    cl_pick(0, 0, -1, -1, 0, &r, best, sizeof best, why, sizeof why);
    if (!CHECK(r == PCLR_OK, "a zero desc with -1, -1: the best device: %s", why)) return;
    cl_pick(0, 0, -1, -1, 1, &r, name, sizeof name, why, sizeof why);
    CHECK(r == PCLR_OK && !strcmp(name, best), "pclr_cl_create_default(-1, -1) (old spelling): the same best device: %s", name);
    memset(&g, 0, sizeof g);
    g.backends[0] = PCLR_OPENCL;
    g.no_disk_cache = g.no_tune_file = 1;
    g.error = gwhy;
    g.error_cap = sizeof gwhy;
    r = pclr_create(&g, &gc);
    CHECK(r == PCLR_OK && !strcmp(pclr_device_name(gc), best), "pclr_desc.device 0: the same best device: %s (%s)", pclr_device_name(gc), gwhy);
    pclr_destroy(gc);
    gc = NULL;
    for (p = 0; p < np; ++p) {
        cl_uint nd = 0, i;
        if (cl.GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS) nd = 0;
        for (i = 0; i < nd; ++i, ++total) {
            /* device k over every platform: desc number total + 1, old index total */
            cl_pick(0, total + 1, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
            CHECK(r == PCLR_OK, "desc.device_number %d: %s", total + 1, why);
            cl_pick(0, 0, -1, total, 1, &r, old, sizeof old, why, sizeof why);
            CHECK(r == PCLR_OK && !strcmp(old, name), "pclr_cl_create_default(-1, %d) (old spelling) = device_number %d: %s / %s", total,
                  total + 1, old, name);
            /* device i of platform p */
            cl_pick((int)p + 1, (int)i + 1, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
            cl_pick(0, 0, (int)p, (int)i, 0, &r, old, sizeof old, why, sizeof why);
            CHECK(r == PCLR_OK && !strcmp(old, name), "platform_number %u device_number %u = indices (%u, %u): %s / %s", (unsigned)p + 1,
                  (unsigned)i + 1, (unsigned)p, (unsigned)i, name, old);
            g.platform = (int)p + 1;
            g.device = (int)i + 1;
            r = pclr_create(&g, &gc);
            CHECK(r == PCLR_OK && !strcmp(pclr_device_name(gc), name), "pclr_desc.platform %u .device %u: %s (%s)", (unsigned)p + 1,
                  (unsigned)i + 1, pclr_device_name(gc), gwhy);
            pclr_destroy(gc);
            gc = NULL;
        }
    }
    /* the desc's numbers win over the arguments */
    cl_pick(0, 1, 999, 999, 0, &r, name, sizeof name, why, sizeof why);
    cl_pick(0, 0, -1, 0, 1, &r, old, sizeof old, why, sizeof why);
    CHECK(r == PCLR_OK && !strcmp(name, old), "desc.device_number 1 wins over the arguments (999, 999): %s / %s", name, old);
    cl_pick((int)np + 1, 0, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(why, "no OpenCL platform"), "platform_number %u: %s", (unsigned)np + 1, why);
    cl_pick(0, total + 1 + 1, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(why, "there are"), "device_number %d past the %d devices: %s", total + 2, total, why);
    cl_pick(0, -1, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(why, "device_number -1"), "device_number -1: %s", why);
    cl_pick(-3, 0, -1, -1, 0, &r, name, sizeof name, why, sizeof why);
    CHECK(r == PCLR_ERR_NO_DEVICE && strstr(why, "platform_number -3"), "platform_number -3: %s", why);
}

/* A buffer of another context (red team round 3): a CPU context given an OpenCL buffer reduced its
   handle record as data and returned PCLR_OK; an OpenCL context given a CPU buffer crashed. Every
   verb that takes a buffer refuses another context's, with a sentence, and the context still works.
   SIZE_MAX bytes is an out-of-memory, not a wrapped size. */
static void foreign_buffers(void) {
    static const pclr_backend kinds[] = {PCLR_CPU, PCLR_OPENCL, PCLR_CPU};
    pclr_context *ctx[3] = {NULL, NULL, NULL};
    pclr_buffer *buf[3] = {NULL, NULL, NULL}, *huge = NULL;
    uint32_t data[100], got = 0, want = 0;
    pclr_config c;
    pclr_desc d;
    int a, b;
    for (a = 0; a < 100; ++a) { data[a] = (uint32_t)(a * 7 + 1); want += data[a]; }
    memset(&c, 0, sizeof c);
    c.type = PCLR_UINT;
    for (a = 0; a < 3; ++a) {
        memset(&d, 0, sizeof d);
        d.backends[0] = kinds[a];
        d.no_tune_file = 1;
        if (pclr_create(&d, &ctx[a]) != PCLR_OK) continue;
        CHECK(pclr_buffer_create(ctx[a], sizeof data, &buf[a]) == PCLR_OK && pclr_buffer_write(ctx[a], buf[a], 0, data, sizeof data) == PCLR_OK,
              "%s buffer", pclr_backend_name(kinds[a]));
        if (kinds[a] != PCLR_CPU) /* (malloc(SIZE_MAX) is NULL, but ASan stops the test there) */
            CHECK(pclr_buffer_create(ctx[a], SIZE_MAX, &huge) == PCLR_ERR_OUT_OF_MEMORY && huge == NULL, "%s: a buffer of SIZE_MAX bytes: %s",
                  pclr_backend_name(kinds[a]), pclr_last_error(ctx[a]));
    }
    for (a = 0; a < 3; ++a)
        for (b = 0; b < 3; ++b) {
            pclr_result r;
            uint32_t back[4];
            if (a == b || !ctx[a] || !buf[b]) continue;
            r = reduce_one(ctx[a], &c, buf[b], 0, 100, &got);
            CHECK(r == PCLR_ERR_INVALID_ARGUMENT && strstr(pclr_last_error(ctx[a]), "another context"),
                  "a %s context reducing a buffer of another (%s) context: %s (%s)", pclr_backend_name(kinds[a]), pclr_backend_name(kinds[b]),
                  pclr_result_string(r), pclr_last_error(ctx[a]));
            CHECK(pclr_buffer_read(ctx[a], buf[b], 0, back, sizeof back) == PCLR_ERR_INVALID_ARGUMENT &&
                      pclr_buffer_write(ctx[a], buf[b], 0, data, sizeof back) == PCLR_ERR_INVALID_ARGUMENT,
                  "%s context: read and write of another context's buffer refused", pclr_backend_name(kinds[a]));
            c.op = PCLR_SUM;
            c.map = "x * y";
            c.y_type = PCLR_UINT;
            CHECK(pclr_reduce_map(ctx[a], &c, buf[a], 0, buf[b], 0, 100, NULL, &got) == PCLR_ERR_INVALID_ARGUMENT, "%s context: another's y refused",
                  pclr_backend_name(kinds[a]));
            c.map = NULL;
            c.y_type = PCLR_TYPE_DEFAULT;
            if (kinds[a] == PCLR_OPENCL) CHECK(pclr_buffer_cl(ctx[a], buf[b]) == NULL, "pclr_buffer_cl of another context's buffer: NULL");
            pclr_buffer_destroy(ctx[a], buf[b]); /* ignored: its own context destroys it */
            got = 0;
            CHECK(reduce_one(ctx[a], &c, buf[a], 0, 100, &got) == PCLR_OK && got == want, "%s context: its own buffer still reduces (%u)",
                  pclr_backend_name(kinds[a]), (unsigned)got);
        }
    for (a = 0; a < 3; ++a) {
        pclr_buffer_destroy(ctx[a], buf[a]);
        pclr_destroy(ctx[a]);
    }
}

/* A program's own OpenCL objects: its context, device and queue adopted by pclr_create (desc.opencl),
   its cl_mem wrapped without allocation (pclr_cl_buffer), reduced by the generic verbs; the native
   query hands the objects back. */
static void cl_native(uint64_t seed) {
    pclr_desc d;
    pclr_cl_desc own;
    pclr_context *ctx = NULL, *mine = NULL, *cpu = NULL;
    pclr_cl_native nat, got;
    pclr_buffer wrapped, states;
    pclr_input in;
    pclr_config c = PCLR_ZERO;
    pclr_sync sync;
    cl_mem m, out;
    cl_int err;
    cl_event done = NULL;
    uint32_t data[1000], sum = 0, want = 0, state = 0;
    char why[512];
    int i;
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_OPENCL;
    d.error = why;
    d.error_cap = sizeof why;
    if (pclr_create(&d, &ctx) != PCLR_OK) {
        SKIP("opencl native: %s", why);
        return;
    }
    CHECK(pclr_cl_get_native(ctx, &nat) == PCLR_OK && nat.context && nat.device && nat.queue && nat.api && nat.features,
          "pclr_cl_get_native: %s", pclr_last_error(ctx));
    memset(&own, 0, sizeof own);
    own.context = nat.context;
    own.device = nat.device;
    own.queue = nat.queue;
    d.opencl = &own; /* a second context on the first one's objects: the program's own */
    if (!CHECK(pclr_create(&d, &mine) == PCLR_OK, "pclr_create with desc.opencl: %s", why)) {
        pclr_destroy(ctx);
        return;
    }
    CHECK(pclr_cl_get_native(mine, &got) == PCLR_OK && got.context == nat.context && got.queue == nat.queue, "the adopted objects are used");
    for (i = 0; i < 1000; ++i) {
        data[i] = (uint32_t)(pclr_test_rand(&seed) & 0xffff);
        if (i >= 7) want += data[i];
    }
    m = got.api->CreateBuffer(got.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    out = got.api->CreateBuffer(got.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(pclr_cl_buffer(mine, m, &wrapped) == PCLR_OK && wrapped.bytes == sizeof data, "pclr_cl_buffer asks the size: %llu",
          (unsigned long long)wrapped.bytes);
    c.type = PCLR_UINT;
    memset(&in, 0, sizeof in);
    in.x = &wrapped;
    in.x_offset = 7;
    in.n = 993;
    CHECK(pclr_reduce(mine, &c, &in, &sum, sizeof sum) == PCLR_OK && sum == want, "the program's cl_mem reduced: %u, want %u", sum, want);
    in.n = 994;
    CHECK(pclr_reduce(mine, &c, &in, &sum, sizeof sum) == PCLR_ERR_SIZE_OVERFLOW && strstr(pclr_last_error(mine), "past its end"),
          "one element past the program's buffer: %s", pclr_last_error(mine));
    in.n = 993;
    CHECK(pclr_cl_buffer(mine, out, &states) == PCLR_OK, "the states buffer wrapped");
    memset(&sync, 0, sizeof sync);
    sync.opencl_done = (void **)&done;
    if (CHECK(pclr_reduce_async(mine, &c, &in, &states, 3, &sync) == PCLR_OK && done, "async into the program's buffer, state 3: %s",
              pclr_last_error(mine))) {
        got.api->WaitForEvents(1, &done);
        got.api->ReleaseEvent(done);
        got.api->EnqueueReadBuffer(got.queue, out, CL_TRUE, 12, 4, &state, 0, NULL, NULL);
        CHECK(state == want, "state 3 holds the sum: %u", state);
    }
    CHECK(pclr_reduce(ctx, &c, &in, &sum, sizeof sum) == PCLR_ERR_INVALID_ARGUMENT, "another context's wrapped buffer is refused");
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_CPU;
    if (CHECK(pclr_create(&d, &cpu) == PCLR_OK, "a CPU context")) {
        CHECK(pclr_cl_buffer(cpu, m, &wrapped) == PCLR_ERR_INVALID_ARGUMENT && wrapped.handle.ptr == NULL,
              "pclr_cl_buffer on a CPU context: %s", pclr_last_error(cpu));
        CHECK(pclr_cl_get_native(cpu, &got) == PCLR_ERR_INVALID_ARGUMENT && got.context == NULL, "no native OpenCL objects on the CPU");
        pclr_destroy(cpu);
    }
    CHECK(pclr_cl_get_native(NULL, &got) == PCLR_ERR_INVALID_CONTEXT, "pclr_cl_get_native(NULL)");
    got.api = nat.api;
    got.api->ReleaseMemObject(m);
    got.api->ReleaseMemObject(out);
    pclr_destroy(mine);
    pclr_destroy(ctx);
}

int main(void) {
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    static const pclr_backend each[] = {PCLR_CPU, PCLR_OPENCL, PCLR_CUDA};
    pclr_context *ctx = NULL;
    pclr_desc d;
    char text[8192], why[1024];
    size_t i;
    seed = pclr_test_rand(&seed); /* nearby seeds give unrelated data */
    printf("test_generic: seed %s\n", env ? env : "(time)");
    contract();
    device_numbers();
    cl_numbers();
    foreign_buffers();
    cl_native(seed);
    /* auto: CUDA first, then OpenCL, then the CPU; the choice and the passed-over reasons are reported */
    memset(&d, 0, sizeof d);
    d.error = why;
    d.error_cap = sizeof why;
    if (CHECK(pclr_create(&d, &ctx) == PCLR_OK, "auto create: %s", why)) {
        pclr_describe(ctx, text, sizeof text);
        printf("auto picked %s (%s)\n%s", pclr_backend_name(pclr_get_backend(ctx)), pclr_device_name(ctx), text);
        CHECK(pclr_get_backend(ctx) != PCLR_BACKEND_AUTO && strstr(text, "backend: ") == text, "describe names the backend");
#ifndef PCLR_TEST_CUDA
        CHECK(pclr_get_backend(ctx) != PCLR_CUDA && strstr(text, "cuda: not compiled in"),
              "without PCLREDUCE_CUDA, auto passes over CUDA and says so");
        CHECK(strstr(text, "\ncompiled in: opencl, cpu (not: cuda: define PCLREDUCE_CUDA; vulkan: define PCLREDUCE_VULKAN)\n") != NULL,
              "describe names the backends compiled in and how to add the others:\n%s", text);
#else
        CHECK(strstr(text, "\ncompiled in: cuda, opencl, cpu (not: vulkan: define PCLREDUCE_VULKAN)\n") != NULL,
              "describe names the backends compiled in and how to add the others:\n%s", text);
#endif
        CHECK((pclr_get_backend(ctx) == PCLR_OPENCL) == (pclr_context_cl(ctx) != NULL), "pclr_context_cl for an OpenCL context");
        pclr_destroy(ctx);
    }
    /* each backend by itself */
    for (i = 0; i < sizeof each / sizeof each[0]; ++i) {
        memset(&d, 0, sizeof d);
        d.backends[0] = each[i];
        d.error = why;
        d.error_cap = sizeof why;
        ctx = NULL;
        if (pclr_create(&d, &ctx) != PCLR_OK) {
            CHECK(ctx == NULL && why[0], "%s unavailable: no context, a sentence", pclr_backend_name(each[i]));
            SKIP("%s: %s", pclr_backend_name(each[i]), why);
            continue;
        }
        CHECK(pclr_get_backend(ctx) == each[i], "asked for %s, got %s", pclr_backend_name(each[i]), pclr_backend_name(pclr_get_backend(ctx)));
        reduce_all(ctx, seed);
        bad_inputs(ctx);
        if (each[i] == PCLR_CPU) {
            size_t count = 9;
            pclr_tune_entry e[PCLR_TUNE_CLASSES];
            CHECK(pclr_tune(ctx, PCLR_FLOAT, PCLR_SUM, NULL, e, PCLR_TUNE_CLASSES, &count) == PCLR_ERR_UNSUPPORTED_BY_DEVICE && count == 0,
                  "the CPU has nothing to tune");
        }
        pclr_destroy(ctx);
    }
    /* a priority list: a backend that is not here, then the CPU */
    memset(&d, 0, sizeof d);
    d.backends[0] = PCLR_CUDA;
    d.backends[1] = PCLR_CPU;
    d.cuda_library = "/nonexistent/pclr/libcuda.so.1";
    if (CHECK(pclr_create(&d, &ctx) == PCLR_OK && pclr_get_backend(ctx) == PCLR_CPU, "cuda, cpu: the CPU")) {
        pclr_describe(ctx, text, sizeof text);
        CHECK(strstr(text, "passed over: cuda") != NULL, "describe says why CUDA was passed over: %.200s", text);
        pclr_destroy(ctx);
    }
    return pclr_test_summary("test_generic");
}
