/* CUDA backend test (pclreduce_cuda.h).

   Part 1, everywhere (CI has no GPU): every type/op pair x every CUDA variant
   x every finish compiles with NVRTC (pclr_cuda_compile_check) to compute_75
   PTX and sm_90 CUBIN, the other knobs cycled so every value of every knob
   meets every type; invalid combinations are refused; without a driver
   pclr_cuda_create fails cleanly with a readable message.

   Part 2, where pclr_cuda_create succeeds (a GPU and its driver): results
   against pclr_cpu_reduce for every type/op, variant, finish, stride, unroll,
   vector width, group size and wave width, sizes 0..2^24+7 at odd offsets,
   the async path, caching, two streams, several contexts, NaN propagation,
   integer wrap-around, bounds checks, and (memory allowing) n > 2^32.

   Built without -lcuda / -lnvrtc: the header and this test load the driver
   with dlopen. Environment: PCLR_TEST_SEED (default: time), PCLR_TEST_QUICK=1
   (smaller part 2), PCLR_TEST_DEVICE_ONLY=1 (skip the NVRTC compile matrix of
   part 1), PCLR_TEST_VERBOSE=1, PCLR_CUDA_LIBRARY /
   PCLR_NVRTC_LIBRARY (library overrides, as in the header). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_CUDA
#include "../pclreduce.h"
#include "pclr_test.h"

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_quick, g_verbose;
static uint64_t g_maxn; /* PCLR_TEST_MAXN: skip larger reductions (for sanitizer runs); 0 = no cap */

static uint64_t cap_n(uint64_t n) { return g_maxn && n > g_maxn ? g_maxn : n; }

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const int k_waves[] = {32, 64}, k_groups[] = {32, 64, 128, 256, 512, 1024},
                 k_unrolls[] = {1, 2, 4, 8, 16, 32, 64, 128}, k_vectors[] = {1, 2, 4, 8}, k_gpus[] = {0, 1, 3, 64};

/* Cycles the knobs of c with counter k (per type) so every value of every knob
   meets every type, with little correlation between knobs; *w counts tree
   configurations for the wave width (shuffles need 32). */
static void cycle_knobs(pclr_config *c, int k, int *w, int max_group) {
    c->group_size = k_groups[k % 6];
    if (max_group > 0 && c->group_size > max_group) c->group_size = max_group;
    c->unroll = k_unrolls[(k * 3) % 8];
    c->vector_width = k_vectors[(k / 6) % 4]; /* 8: 32-byte loads, 4-byte types (doubles take 4) */
    if (c->vector_width * (int)pclr_type_size(c->type ? c->type : PCLR_FLOAT) > 32) c->vector_width = 4;
    c->stride = ((k / 2 + k / 9) % 2) ? PCLR_STRIDE_LOCAL : PCLR_STRIDE_GLOBAL;
    c->groups_per_unit = k_gpus[(k / 4) % 4];
    c->wave_width = c->variant == PCLR_VARIANT_SHUFFLE ? 32 : k_waves[(*w)++ % 2];
}

static void describe_cfg(const pclr_config *c, char *buf, size_t cap) { pclr_config_describe(c, buf, cap); }

/* ====================================================================== part 1 */

static void test_null_handling(void) {
    pclr_config c;
    char buf[64];
    memset(&c, 0, sizeof c);
    CHECK(pclr_cuda_create(NULL, NULL) == PCLR_ERR_NULL_POINTER, "create(NULL, NULL) is a NULL-pointer error");
    pclr_cuda_destroy(NULL);
    CHECK(pclr_cuda_get_features(NULL) == NULL, "features of NULL context");
    CHECK(pclr_cuda_build_log(NULL) != NULL && pclr_cuda_build_log(NULL)[0] == '\0', "build log of NULL is \"\"");
    CHECK(pclr_cuda_last_error(NULL) != NULL && strlen(pclr_cuda_last_error(NULL)) > 0, "last error of NULL says so");
    CHECK(pclr_cuda_resolve(NULL, &c, &c) == PCLR_ERR_INVALID_CONTEXT, "resolve without context");
    CHECK(pclr_cuda_prepare(NULL, &c) == PCLR_ERR_INVALID_CONTEXT, "prepare without context");
    CHECK(pclr_cuda_reduce(NULL, &c, 0, 0, 0, NULL, buf) == PCLR_ERR_INVALID_CONTEXT, "reduce without context");
    CHECK(pclr_cuda_reduce_async(NULL, &c, 0, 0, 0, 0, NULL) == PCLR_ERR_INVALID_CONTEXT, "reduce_async without context");
    CHECK(pclr_cuda_describe(NULL, buf, sizeof buf) > 0 && strlen(buf) > 0, "describe(NULL) writes something");
    CHECK(pclr_cuda_compile_check(NULL, NULL, 75, 0, buf, sizeof buf) == PCLR_ERR_NULL_POINTER, "compile_check(NULL cfg)");
}

/* A failed create: no context, a sentence in desc.error (g_err), and a NULL
   context answers every call the way the contract says. */
static char g_err[1024];
static void check_failed_context(pclr_cuda_context *ctx, pclr_result r, const char *what, const char *must_contain) {
    char text[1024];
    pclr_config c;
    float f = 0;
    memset(&c, 0, sizeof c);
    CHECK(ctx == NULL, "%s: a failed create hands back no context", what);
    printf("  %s -> %s: %s\n", what, pclr_result_string(r), g_err);
    CHECK(strlen(g_err) > 10, "%s: desc.error is a sentence", what);
    if (must_contain) CHECK(strstr(g_err, must_contain) != NULL, "%s: desc.error mentions \"%s\"", what, must_contain);
    CHECK(strlen(pclr_result_string(r)) > 5 && strcmp(pclr_result_string(r), "unknown result code") != 0,
          "%s: result string is meaningful", what);
    CHECK(pclr_cuda_describe(ctx, text, sizeof text) > 0 && strstr(text, "no context") != NULL, "%s: describe(NULL) says so (%s)",
          what, text);
    CHECK(strcmp(pclr_cuda_last_error(ctx), "no context (NULL)") == 0, "%s: last_error(NULL) says so", what);
    CHECK(pclr_cuda_get_features(ctx) == NULL, "%s: no features", what);
    CHECK(pclr_cuda_prepare(ctx, &c) == PCLR_ERR_INVALID_CONTEXT, "%s: prepare refused", what);
    CHECK(pclr_cuda_reduce(ctx, &c, 0, 0, 0, NULL, &f) == PCLR_ERR_INVALID_CONTEXT, "%s: reduce refused", what);
    CHECK(pclr_cuda_reduce_async(ctx, &c, 0, 0, 0, 8, NULL) == PCLR_ERR_INVALID_CONTEXT, "%s: reduce_async refused", what);
    CHECK(pclr_cuda_resolve(ctx, &c, &c) == PCLR_ERR_INVALID_CONTEXT, "%s: resolve refused", what);
    pclr_cuda_destroy(ctx);
}

/* Returns 1 when a device is usable (part 2 runs). */
static int test_create_paths(void) {
    pclr_cuda_desc d;
    pclr_cuda_context *ctx = NULL;
    pclr_result r;
    FILE *stub;
    const char *stub_path = "/usr/local/cuda/lib64/stubs/libcuda.so";
    int have_device = 0;

    /* first, so that the real driver (if any) is loaded before the stub below,
       whose SONAME is also libcuda.so.1 */
    memset(&d, 0, sizeof d);
    d.error = g_err;
    d.error_cap = sizeof g_err;
    r = pclr_cuda_create(&d, &ctx);
    if (r == PCLR_OK) {
        char text[2048];
        pclr_cuda_describe(ctx, text, sizeof text);
        printf("device found:\n%s\n", text);
        pclr_cuda_destroy(ctx);
        have_device = 1;
    } else {
        CHECK(r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE, "create without a device: no driver / no device (got %s)",
              pclr_result_string(r));
        check_failed_context(ctx, r, "default create", NULL);
    }

    ctx = NULL;
    memset(&d, 0, sizeof d);
    d.error = g_err;
    d.error_cap = sizeof g_err;
    d.cuda_library = "/nonexistent/libcuda.so.1";
    r = pclr_cuda_create(&d, &ctx);
    CHECK(r == PCLR_ERR_NO_DRIVER, "bad cuda_library gives PCLR_ERR_NO_DRIVER (got %s)", pclr_result_string(r));
    check_failed_context(ctx, r, "bad cuda_library", "/nonexistent/libcuda.so.1");

    if ((stub = fopen(stub_path, "rb")) != NULL) {
        fclose(stub);
        memset(&d, 0, sizeof d);
        d.error = g_err;
        d.error_cap = sizeof g_err;
        d.cuda_library = stub_path;
        ctx = NULL;
        r = pclr_cuda_create(&d, &ctx);
        CHECK(r == PCLR_ERR_NO_DRIVER || r == PCLR_ERR_NO_DEVICE, "the toolkit's stub libcuda gives no driver/device (got %s)",
              pclr_result_string(r));
        check_failed_context(ctx, r, "stub driver", NULL);
    } else {
        SKIP("no stub libcuda at %s", stub_path);
    }

    return have_device;
}

/* The device numbering without a GPU: a driver table of the test's own (desc.cuda_api) with three
   devices, whose cuDevicePrimaryCtxRetain records the device and fails, so create stops right after
   choosing. pclr_cuda_desc's rule: device_number k > 0 = ordinal k - 1; 0 = the deprecated
   device_ordinal when nonzero, else the best (most multiprocessors x clock, not prohibited, lowest
   ordinal on ties). */
static int g_fake_sms[3], g_fake_khz[3], g_fake_mode[3], g_fake_retained;
static void fake_never(void) { abort(); } /* the entry points create must not reach here */
static CUresult CUDAAPI fake_init(unsigned int f) { (void)f; return CUDA_SUCCESS; }
static CUresult CUDAAPI fake_version(int *v) { *v = 12000; return CUDA_SUCCESS; }
static CUresult CUDAAPI fake_error_name(CUresult r, const char **s) { *s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_?"; return CUDA_SUCCESS; }
static CUresult CUDAAPI fake_error_string(CUresult r, const char **s) { (void)r; *s = "the test's driver table stops here"; return CUDA_SUCCESS; }
static CUresult CUDAAPI fake_count(int *n) { *n = 3; return CUDA_SUCCESS; }
static CUresult CUDAAPI fake_get(CUdevice *d, int ordinal) {
    if (ordinal < 0 || ordinal >= 3) return CUDA_ERROR_INVALID_DEVICE;
    *d = (CUdevice)ordinal;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI fake_attr(int *v, CUdevice_attribute a, CUdevice d) {
    if (d < 0 || d >= 3) return CUDA_ERROR_INVALID_DEVICE;
    if (a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) *v = g_fake_sms[d];
    else if (a == CU_DEVICE_ATTRIBUTE_CLOCK_RATE) *v = g_fake_khz[d];
    else if (a == CU_DEVICE_ATTRIBUTE_COMPUTE_MODE) *v = g_fake_mode[d];
    else return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI fake_retain(CUcontext *c, CUdevice d) {
    (void)c;
    g_fake_retained = (int)d;
    return CUDA_ERROR_NO_DEVICE;
}

static pclr_cuda_api g_fake;
static const pclr_cuda_api *fake_table(void) {
    memset(&g_fake, 0, sizeof g_fake);
#define FAKE_NEVER(ret, name, params, sym) g_fake.name = (ret(CUDAAPI *) params)fake_never;
    PCLR_CUDA_ENTRY_POINTS(FAKE_NEVER)
#undef FAKE_NEVER
    g_fake.Init = fake_init;
    g_fake.DriverGetVersion = fake_version;
    g_fake.GetErrorName = fake_error_name;
    g_fake.GetErrorString = fake_error_string;
    g_fake.DeviceGetCount = fake_count;
    g_fake.DeviceGet = fake_get;
    g_fake.DeviceGetAttribute = fake_attr;
    g_fake.DevicePrimaryCtxRetain = fake_retain;
    return &g_fake;
}

/* The generic context with the fake table: the device retained (-1: none), the sentence in err. */
static int fake_pick_generic(int device, char *err, size_t cap) {
    pclr_desc gd;
    pclr_context *gc = NULL;
    pclr_result r;
    memset(&gd, 0, sizeof gd);
    gd.backends[0] = PCLR_CUDA;
    gd.cuda_api = fake_table();
    gd.device = device;
    gd.error = err;
    gd.error_cap = cap;
    g_fake_retained = -1;
    r = pclr_create(&gd, &gc);
    CHECK(r == PCLR_ERR_NO_DEVICE && gc == NULL, "the fake driver's generic create fails (%s)", pclr_result_string(r));
    pclr_destroy(gc);
    return g_fake_retained;
}

/* Creates with the fake table: the device retained (-1: none), the result and the sentence in err. */
static int fake_pick(int number, int ordinal, pclr_result *r, char *err, size_t cap) {
    pclr_cuda_desc d;
    pclr_cuda_context *ctx = NULL;
    memset(&d, 0, sizeof d);
    d.cuda_api = fake_table();
    d.device_number = number;
    d.device_ordinal = ordinal;
    d.error = err;
    d.error_cap = cap;
    g_fake_retained = -1;
    *r = pclr_cuda_create(&d, &ctx);
    CHECK(*r != PCLR_OK && ctx == NULL, "the fake driver's create fails (%s)", pclr_result_string(*r));
    pclr_cuda_destroy(ctx);
    if (ordinal == 0) { /* the generic context passes pclr_desc.device on as device_number: the same device */
        char why[1024];
        int first = g_fake_retained, generic = fake_pick_generic(number, why, sizeof why);
        CHECK(generic == first, "pclr_desc.device %d takes pclr_cuda_desc.device_number %d's device (%d, %d: %s)", number, number,
              generic, first, why);
        g_fake_retained = first;
    }
    return g_fake_retained;
}

static void test_device_numbers(void) {
    static const int sms[3] = {10, 40, 40}, khz[3] = {1000000, 1500000, 1500000};
    char err[1024];
    pclr_result r;
    int k, got;
    memset(g_fake_mode, 0, sizeof g_fake_mode);
    for (k = 0; k < 3; ++k) g_fake_sms[k] = sms[k], g_fake_khz[k] = khz[k];
    got = fake_pick(0, 0, &r, err, sizeof err);
    CHECK(got == 1 && r == PCLR_ERR_NO_DEVICE && strstr(err, "cuDevicePrimaryCtxRetain"),
          "a zero desc takes the best device: 1 (most multiprocessors x clock, the first of two equal), got %d: %s", got, err);
    for (k = 1; k <= 3; ++k) {
        got = fake_pick(k, 0, &r, err, sizeof err);
        CHECK(got == k - 1, "device_number %d is ordinal %d (got %d: %s)", k, k - 1, got, err);
        if (k > 1) { /* the deprecated spelling of the same device */
            int old = fake_pick(0, k - 1, &r, err, sizeof err);
            CHECK(old == got, "device_ordinal %d (deprecated) is device_number %d's device (%d, %d: %s)", k - 1, k, old, got, err);
        }
    }
    got = fake_pick(1, 2, &r, err, sizeof err);
    CHECK(got == 0, "device_number wins over device_ordinal (got %d)", got);
    got = fake_pick(5, 0, &r, err, sizeof err);
    CHECK(got == -1 && r == PCLR_ERR_NO_DEVICE && strstr(err, "no CUDA device 4 (device number 5; there are 3"),
          "device_number 5 of 3 names device 4: %s (%d)", err, got);
    got = fake_pick_generic(5, err, sizeof err);
    CHECK(got == -1 && strstr(err, "no CUDA device 4 (device number 5; there are 3"), "pclr_desc.device 5 of 3 names device 4: %s", err);
    got = fake_pick(-2, 0, &r, err, sizeof err);
    CHECK(got == -1 && r == PCLR_ERR_NO_DEVICE && strstr(err, "-2") && strstr(err, "not a device"), "device_number -2: %s", err);
    got = fake_pick(0, 999, &r, err, sizeof err);
    CHECK(got == -1 && r == PCLR_ERR_NO_DEVICE && strstr(err, "no CUDA device 999") && strstr(err, "deprecated"),
          "device_ordinal 999 (deprecated): %s", err);
    got = fake_pick(0, -1, &r, err, sizeof err);
    CHECK(got == -1 && r == PCLR_ERR_NO_DEVICE, "device_ordinal -1 (deprecated) stays an error: %s", err);
    /* a prohibited device is passed over; equal devices: the lowest ordinal */
    g_fake_mode[1] = CU_COMPUTEMODE_PROHIBITED;
    got = fake_pick(0, 0, &r, err, sizeof err);
    CHECK(got == 2, "the best device not in the prohibited compute mode: 2 (got %d)", got);
    got = fake_pick(2, 0, &r, err, sizeof err);
    CHECK(got == 1, "device_number 2 takes device 1 even when prohibited (got %d)", got);
    g_fake_mode[1] = 0;
    for (k = 0; k < 3; ++k) g_fake_sms[k] = 132, g_fake_khz[k] = 1980000;
    got = fake_pick(0, 0, &r, err, sizeof err);
    CHECK(got == 0, "identical devices: device 0 (got %d)", got);
}

static int compile_one(const pclr_config *c, int arch, int cubin) {
    char log[4096], desc[512];
    pclr_result r = pclr_cuda_compile_check(c, NULL, arch, cubin, log, sizeof log);
    if (r != PCLR_OK) {
        describe_cfg(c, desc, sizeof desc);
        CHECK(0, "NVRTC %s_%d: %s: %s\n%s", cubin ? "sm" : "compute", arch, desc, pclr_result_string(r), log);
        return 0;
    }
    CHECK(1, "compiles");
    return 1;
}

/* pclr_cuda_compile_check loads and unloads NVRTC on every call (~0.1 s);
   holding a reference here keeps the library mapped between calls. */
static void pin_nvrtc(void) {
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    const char *env = getenv("PCLR_NVRTC_LIBRARY");
    size_t i;
    if (env && *env) {
        if (dlopen(env, RTLD_NOW | RTLD_LOCAL)) return;
    }
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return;
}

/* Returns 0 when NVRTC is missing (then everything NVRTC is skipped). */
static int test_nvrtc_matrix(void) {
    pclr_config c;
    char log[1024];
    pclr_result r;
    int t, o, v, f, compiled = 0, per_type[PCLR_TYPE_COUNT_] = {0};
    double t0 = now_s();
    memset(&c, 0, sizeof c);
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    if (r == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): compile checks skipped", log);
        return 0;
    }
    CHECK(r == PCLR_OK, "default config compiles (%s)\n%s", pclr_result_string(r), log);
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t) {
        int k = 0, w = 0;
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
            for (v = PCLR_VARIANT_NAIVE; v <= PCLR_VARIANT_SHUFFLE; ++v)
                for (f = PCLR_FINISH_LAST_GROUP; f < PCLR_FINISH_COUNT_; ++f, ++k) {
                    if (f == PCLR_FINISH_ATOMIC && t != PCLR_UINT && t != PCLR_INT) continue;
                    memset(&c, 0, sizeof c);
                    c.backend = PCLR_CUDA;
                    c.type = (pclr_type)t;
                    c.op = (pclr_op)o;
                    c.variant = (pclr_variant)v;
                    c.finish = (pclr_finish)f;
                    cycle_knobs(&c, k, &w, 0);
                    if (g_verbose) {
                        char d[512];
                        describe_cfg(&c, d, sizeof d);
                        printf("  compile %s\n", d);
                    }
                    compiled += compile_one(&c, 75, 0);
                    compiled += compile_one(&c, 90, 1);
                    ++per_type[t];
                }
    }
    printf("NVRTC: %d compiles (configs per type: uint %d, int %d, float %d, double %d) in %.1f s\n", compiled,
           per_type[PCLR_UINT], per_type[PCLR_INT], per_type[PCLR_FLOAT], per_type[PCLR_DOUBLE], now_s() - t0);
    return 1;
}

static void test_compile_refusals(int have_nvrtc) {
    pclr_config c;
    char log[512], tiny[8];
    pclr_result r;

    memset(&c, 0, sizeof c);
    c.variant = PCLR_VARIANT_SHUFFLE;
    c.wave_width = 64;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strlen(log) > 0, "shuffle + wave 64 refused (%s: %s)", pclr_result_string(r), log);

    memset(&c, 0, sizeof c);
    c.variant = PCLR_VARIANT_COLLECTIVE;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strlen(log) > 0, "collective on CUDA refused (%s: %s)", pclr_result_string(r), log);

    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;
    c.finish = PCLR_FINISH_ATOMIC;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strlen(log) > 0, "float + atomic refused (%s: %s)", pclr_result_string(r), log);

    memset(&c, 0, sizeof c);
    c.type = PCLR_DOUBLE;
    c.finish = PCLR_FINISH_ATOMIC;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION, "double + atomic refused (%s)", pclr_result_string(r));

    memset(&c, 0, sizeof c);
    c.backend = PCLR_OPENCL;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strlen(log) > 0, "dialect opencl refused by the CUDA backend (%s: %s)",
          pclr_result_string(r), log);

    memset(&c, 0, sizeof c);
    c.group_size = 48;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_INVALID_KNOB, "group 48 refused (%s: %s)", pclr_result_string(r), log);

    memset(&c, 0, sizeof c);
    c.type = (pclr_type)42;
    r = pclr_cuda_compile_check(&c, NULL, 75, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_INVALID_ENUM, "type 42 refused (%s)", pclr_result_string(r));

    memset(&c, 0, sizeof c);
    r = pclr_cuda_compile_check(&c, NULL, 5, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_INVALID_KNOB, "arch 5 refused (%s: %s)", pclr_result_string(r), log);

    {
        pclr_cuda_desc bad;
        memset(&bad, 0, sizeof bad);
        bad.nvrtc_library = "/nonexistent/libnvrtc.so";
        r = pclr_cuda_compile_check(&c, &bad, 75, 0, log, sizeof log);
    }
    CHECK(r == PCLR_ERR_NO_DRIVER && strstr(log, "/nonexistent/libnvrtc.so") != NULL, "bad NVRTC path: no driver (%s: %s)",
          pclr_result_string(r), log);

    if (!have_nvrtc) {
        SKIP("NVRTC missing: arch and log checks skipped");
        return;
    }
    r = pclr_cuda_compile_check(&c, NULL, 12, 0, log, sizeof log);
    CHECK(r == PCLR_ERR_BUILD_FAILED && strlen(log) > 0, "compute_12 (unknown to NVRTC) fails to build with a log (%s: %s)",
          pclr_result_string(r), log);
    r = pclr_cuda_compile_check(&c, NULL, 12, 0, tiny, sizeof tiny);
    CHECK(r == PCLR_ERR_BUILD_FAILED && strlen(tiny) < sizeof tiny, "a tiny log buffer is truncated safely");
    r = pclr_cuda_compile_check(&c, NULL, 80, 1, NULL, 0);
    CHECK(r == PCLR_OK, "NULL log buffer is fine (%s)", pclr_result_string(r));
    /* the heaviest kernel: double, group 1024, unroll 128 (register cap keeps it launchable) */
    c.type = PCLR_DOUBLE;
    c.group_size = 1024;
    c.unroll = 128;
    c.variant = PCLR_VARIANT_UNROLLED;
    r = pclr_cuda_compile_check(&c, NULL, 90, 1, log, sizeof log);
    CHECK(r == PCLR_OK, "double group 1024 unroll 128 compiles (%s: %s)", pclr_result_string(r), log);
}

/* ====================================================================== part 2 */

/* The test's own driver entry points (for memory, streams and contexts). */
typedef struct tdrv {
    void *lib;
    CUresult (CUDAAPI *Init)(unsigned int);
    CUresult (CUDAAPI *DeviceGet)(CUdevice *, int);
    CUresult (CUDAAPI *PrimaryRetain)(CUcontext *, CUdevice);
    CUresult (CUDAAPI *PrimaryRelease)(CUdevice);
    CUresult (CUDAAPI *CtxPush)(CUcontext);
    CUresult (CUDAAPI *CtxPop)(CUcontext *);
    CUresult (CUDAAPI *CtxGetCurrent)(CUcontext *);
    CUresult (CUDAAPI *CtxCreate)(CUcontext *, unsigned int, CUdevice);
    CUresult (CUDAAPI *CtxDestroy)(CUcontext);
    CUresult (CUDAAPI *CtxSynchronize)(void);
    CUresult (CUDAAPI *MemAlloc)(CUdeviceptr *, size_t);
    CUresult (CUDAAPI *MemFree)(CUdeviceptr);
    CUresult (CUDAAPI *HtoD)(CUdeviceptr, const void *, size_t);
    CUresult (CUDAAPI *DtoH)(void *, CUdeviceptr, size_t);
    CUresult (CUDAAPI *MemsetD32)(CUdeviceptr, unsigned int, size_t);
    CUresult (CUDAAPI *MemGetInfo)(size_t *, size_t *);
    CUresult (CUDAAPI *StreamCreate)(CUstream *, unsigned int);
    CUresult (CUDAAPI *StreamDestroy)(CUstream);
    CUresult (CUDAAPI *StreamSynchronize)(CUstream);
    /* CUDA graphs (optional: the graph test skips without them) */
    CUresult (CUDAAPI *BeginCapture)(CUstream, CUstreamCaptureMode);
    CUresult (CUDAAPI *EndCapture)(CUstream, CUgraph *);
    CUresult (CUDAAPI *GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
    CUresult (CUDAAPI *GraphLaunch)(CUgraphExec, CUstream);
    CUresult (CUDAAPI *GraphExecDestroy)(CUgraphExec);
    CUresult (CUDAAPI *GraphDestroy)(CUgraph);
} tdrv;
static tdrv D;

static int tsym(const char *name, void *dst) {
    void *p = dlsym(D.lib, name);
    if (!p) return 0;
    memcpy(dst, &p, sizeof p);
    return 1;
}

static int load_test_driver(void) {
    const char *env = getenv("PCLR_CUDA_LIBRARY");
    D.lib = dlopen(env && *env ? env : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!D.lib) D.lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!D.lib) return 0;
    if (!tsym("cuCtxCreate_v2", &D.CtxCreate)) D.CtxCreate = NULL; /* optional */
    if (!tsym("cuStreamBeginCapture_v2", &D.BeginCapture) || !tsym("cuStreamEndCapture", &D.EndCapture) ||
        !tsym("cuGraphInstantiateWithFlags", &D.GraphInstantiate) || !tsym("cuGraphLaunch", &D.GraphLaunch) ||
        !tsym("cuGraphExecDestroy", &D.GraphExecDestroy) || !tsym("cuGraphDestroy", &D.GraphDestroy))
        D.BeginCapture = NULL;
    return tsym("cuInit", &D.Init) && tsym("cuDeviceGet", &D.DeviceGet) && tsym("cuDevicePrimaryCtxRetain", &D.PrimaryRetain) &&
           tsym("cuDevicePrimaryCtxRelease_v2", &D.PrimaryRelease) && tsym("cuCtxPushCurrent_v2", &D.CtxPush) &&
           tsym("cuCtxPopCurrent_v2", &D.CtxPop) && tsym("cuCtxGetCurrent", &D.CtxGetCurrent) &&
           tsym("cuCtxDestroy_v2", &D.CtxDestroy) && tsym("cuCtxSynchronize", &D.CtxSynchronize) &&
           tsym("cuMemAlloc_v2", &D.MemAlloc) && tsym("cuMemFree_v2", &D.MemFree) && tsym("cuMemcpyHtoD_v2", &D.HtoD) &&
           tsym("cuMemcpyDtoH_v2", &D.DtoH) && tsym("cuMemsetD32_v2", &D.MemsetD32) && tsym("cuMemGetInfo_v2", &D.MemGetInfo) &&
           tsym("cuStreamCreate", &D.StreamCreate) && tsym("cuStreamDestroy_v2", &D.StreamDestroy) &&
           tsym("cuStreamSynchronize", &D.StreamSynchronize);
}

#define MAXN ((uint64_t)(1u << 24) + 7u)
#define PAD 16u /* room for offsets */
static const uint64_t k_sizes[] = {0, 1, 2, 31, 33, 255, 257, 1000003, (1u << 20) - 1u, (1u << 20) + 1u, MAXN};
#define NSIZES (sizeof k_sizes / sizeof k_sizes[0])
static const uint64_t k_offsets[] = {1, 3, 5, 2};

typedef struct gpu_env {
    pclr_cuda_context *ctx;
    const pclr_cuda_features *feat;
    CUcontext primary;
    CUdeviceptr dbuf;            /* (MAXN + PAD) * 8 bytes */
    CUdeviceptr dout;            /* 64 result slots of 8 bytes */
    unsigned char *host;         /* host copy of dbuf */
    CUstream s1, s2;
    pclr_type type;              /* what dbuf holds */
    int minmax;                  /* 0: sum data, 1: min/max data */
    /* sum references of the current data, by size index and offset 0..7 */
    unsigned char ref[NSIZES][8][8];
    unsigned char ref_ok[NSIZES][8];
} gpu_env;

static size_t tsize(pclr_type t) { return pclr_type_size(t); }

static void fmt_val(pclr_type t, const void *v, char *buf, size_t cap) {
    switch (t) {
    case PCLR_UINT: { uint32_t x; memcpy(&x, v, 4); snprintf(buf, cap, "%lu (0x%08lx)", (unsigned long)x, (unsigned long)x); break; }
    case PCLR_INT: { int32_t x; memcpy(&x, v, 4); snprintf(buf, cap, "%ld", (long)x); break; }
    case PCLR_DOUBLE: { double x; memcpy(&x, v, 8); snprintf(buf, cap, "%.17g", x); break; }
    default: { float x; memcpy(&x, v, 4); snprintf(buf, cap, "%.9g", (double)x); break; }
    }
}

static int same_val(pclr_type t, const void *a, const void *b) {
    if (t == PCLR_FLOAT) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y || (x != x && y != y);
    }
    if (t == PCLR_DOUBLE) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y || (x != x && y != y);
    }
    return memcmp(a, b, 4) == 0;
}

static double as_double(pclr_type t, const void *v) {
    switch (t) {
    case PCLR_UINT: { uint32_t x; memcpy(&x, v, 4); return (double)x; }
    case PCLR_INT: { int32_t x; memcpy(&x, v, 4); return (double)x; }
    case PCLR_DOUBLE: { double x; memcpy(&x, v, 8); return x; }
    default: { float x; memcpy(&x, v, 4); return (double)x; }
    }
}

/* Sum data: random 32-bit integers (sums wrap); floats that are multiples of
   1/16 (and doubles of 1/64) small enough that every partial sum in any order
   is exact, so float sums compare exactly too. */
static void gen_sum(pclr_type t, unsigned char *h, uint64_t count, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < count; ++i) {
        uint64_t r = pclr_test_rand(st);
        if (t == PCLR_FLOAT) { float x = (float)((int)(r % 129u) - 64) / 16.0f; memcpy(h + i * 4, &x, 4); }
        else if (t == PCLR_DOUBLE) { double x = (double)((int)(r % 2049u) - 1024) / 64.0; memcpy(h + i * 8, &x, 8); }
        else { uint32_t x = (uint32_t)(r >> 16); memcpy(h + i * 4, &x, 4); }
    }
}

/* Min/max data in a band that a planted value lies outside of. */
static void gen_minmax(pclr_type t, unsigned char *h, uint64_t count, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < count; ++i) {
        uint64_t r = pclr_test_rand(st);
        if (t == PCLR_UINT) { uint32_t x = (1u << 20) + (uint32_t)(r % ((1u << 31) - (1u << 20))); memcpy(h + i * 4, &x, 4); }
        else if (t == PCLR_INT) { int32_t x = (int32_t)(r % (1u << 31)) - (1 << 30); memcpy(h + i * 4, &x, 4); }
        else if (t == PCLR_FLOAT) { float x = (float)((double)(r >> 40) / 16777216.0 * 2.0 - 1.0); memcpy(h + i * 4, &x, 4); }
        else { double x = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0; memcpy(h + i * 8, &x, 8); }
    }
}

/* A value beyond the min/max data band: the expected answer once planted. */
static void planted_value(pclr_type t, pclr_op op, uint64_t *st, void *out) {
    uint64_t r = pclr_test_rand(st);
    if (t == PCLR_UINT) { uint32_t x = op == PCLR_MIN ? (uint32_t)(r % (1u << 20)) : (1u << 31) + (uint32_t)(r % (1u << 31)); memcpy(out, &x, 4); }
    else if (t == PCLR_INT) { int32_t x = op == PCLR_MIN ? -(1 << 30) - 1 - (int32_t)(r % (1u << 20)) : (1 << 30) + (int32_t)(r % (1u << 20)); memcpy(out, &x, 4); }
    else if (t == PCLR_FLOAT) { float u = 1.0f + (float)((r >> 40) + 1) / 16777216.0f; float x = op == PCLR_MIN ? -u : u; memcpy(out, &x, 4); }
    else { double u = 1.0 + (double)((r >> 11) + 1) / 9007199254740992.0; double x = op == PCLR_MIN ? -u : u; memcpy(out, &x, 8); }
}

static int upload(gpu_env *g, pclr_type t, int minmax, uint64_t seed) {
    uint64_t st = seed, count = MAXN + PAD;
    CUresult r;
    if (minmax) gen_minmax(t, g->host, count, &st);
    else gen_sum(t, g->host, count, &st);
    r = D.HtoD(g->dbuf, g->host, (size_t)(count * tsize(t)));
    g->type = t;
    g->minmax = minmax;
    memset(g->ref_ok, 0, sizeof g->ref_ok);
    return CHECK(r == CUDA_SUCCESS, "upload %s data (%d)", pclr_type_name(t), (int)r);
}

static void poke(gpu_env *g, uint64_t index, const void *v) {
    size_t es = tsize(g->type);
    memcpy(g->host + index * es, v, es);
    D.HtoD(g->dbuf + index * es, v, es);
}

/* One reduction of the current data against the reference: min/max get a
   planted extreme (head, tail or inside) that must come out. */
static int run_query(gpu_env *g, pclr_cuda_context *ctx, const pclr_config *cfg, int size_index, uint64_t n,
                     uint64_t offset, CUstream stream, uint64_t *st, const char *label) {
    pclr_type t = cfg->type ? cfg->type : PCLR_FLOAT;
    pclr_op op = cfg->op ? cfg->op : PCLR_SUM;
    size_t es = tsize(t);
    unsigned char want[8], got[8], old[8], check[8];
    uint64_t pos = 0;
    pclr_result r;
    int planted = 0, ok;
    if (g_maxn && n > g_maxn) return 1;
    memset(got, 0xa5, sizeof got);
    if (op != PCLR_SUM && n > 0) {
        int where = (int)(pclr_test_rand(st) % 4);
        pos = offset + (where == 0 ? 0 : where == 1 ? n - 1 : pclr_test_rand(st) % n);
        memcpy(old, g->host + pos * es, es);
        planted_value(t, op, st, want);
        poke(g, pos, want);
        planted = 1;
    } else if (op != PCLR_SUM) {
        pclr_identity(t, op, want);
    } else if (size_index >= 0 && offset < 8 && g->ref_ok[size_index][offset]) {
        memcpy(want, g->ref[size_index][offset], es);
    } else {
        pclr_cpu_reduce(t, op, g->host + offset * es, n, want);
        if (size_index >= 0 && offset < 8) {
            memcpy(g->ref[size_index][offset], want, es);
            g->ref_ok[size_index][offset] = 1;
        }
    }
    if (n <= 1000) { /* the planted answer agrees with the CPU reference */
        pclr_cpu_reduce(t, op, g->host + offset * es, n, check);
        CHECK(same_val(t, check, want), "test's own expectation for n=%llu", (unsigned long long)n);
    }
    r = pclr_cuda_reduce(ctx, cfg, g->dbuf, offset, n, stream, got);
    ok = r == PCLR_OK && same_val(t, got, want);
    if (!ok || g_verbose) {
        char d[512], a[64], b[64];
        describe_cfg(cfg, d, sizeof d);
        fmt_val(t, got, a, sizeof a);
        fmt_val(t, want, b, sizeof b);
        CHECK(ok, "%s: %s n=%llu offset=%llu%s: %s, got %s want %s%s%s", label, d, (unsigned long long)n,
              (unsigned long long)offset, planted ? " (planted)" : "", pclr_result_string(r), a, b, r ? ": " : "",
              r ? pclr_cuda_last_error(ctx) : "");
    } else {
        CHECK(1, "ok");
    }
    if (planted) poke(g, pos, old);
    return ok;
}

/* The knob matrix: every type/op x (default + every variant x finish), knobs cycled. */
static int make_configs(pclr_type t, pclr_op o, int *k, int *w, int max_group, pclr_config *out) {
    int v, f, count = 0;
    memset(&out[count], 0, sizeof out[count]);
    out[count].type = t;
    out[count].op = o;
    ++count;
    for (v = PCLR_VARIANT_NAIVE; v <= PCLR_VARIANT_SHUFFLE; ++v)
        for (f = PCLR_FINISH_LAST_GROUP * 3; f < PCLR_FINISH_COUNT_ * 3; ++f, ++*k) {
            /* finish f / 3, knob sample f % 3: three samples (one in quick mode) */
            pclr_config *c = &out[count];
            if (g_quick && f % 3 != 0) continue;
            if (f / 3 == PCLR_FINISH_ATOMIC && t != PCLR_UINT && t != PCLR_INT) continue;
            memset(c, 0, sizeof *c);
            c->backend = PCLR_CUDA;
            c->type = t;
            c->op = o;
            c->variant = (pclr_variant)v;
            c->finish = (pclr_finish)(f / 3);
            cycle_knobs(c, *k, w, max_group);
            ++count;
        }
    return count;
}

static void test_matrix(gpu_env *g, uint64_t seed) {
    int t, o, i, s, total = 0;
    double t0 = now_s();
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t) {
        int k = 0, w = 0;
        uint64_t st = seed * 31 + (uint64_t)t;
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o) {
            pclr_config cfgs[64];
            int count = make_configs((pclr_type)t, (pclr_op)o, &k, &w, (int)g->feat->max_group_size, cfgs);
            double t1 = now_s();
            if (o == PCLR_SUM && !upload(g, (pclr_type)t, 0, seed + 100 + (uint64_t)t)) return;
            if (o == PCLR_MIN && !upload(g, (pclr_type)t, 1, seed + 200 + (uint64_t)t)) return;
            for (i = 0; i < count && pclr_test_failed < 100; ++i) {
                const pclr_config *c = &cfgs[i];
                uint64_t odd = k_offsets[(i + o) % 4];
                unsigned char a[8], b[8];
                pclr_result r;
                r = pclr_cuda_prepare(g->ctx, c);
                if (!CHECK(r == PCLR_OK, "prepare: %s: %s\n%s", pclr_result_string(r), pclr_cuda_last_error(g->ctx),
                           pclr_cuda_build_log(g->ctx)))
                    continue;
                for (s = 0; s < (int)NSIZES; ++s) {
                    if (k_sizes[s] == MAXN) {
                        if (g_quick || (i + o) % 3 != 0) continue;
                        run_query(g, g->ctx, c, s, k_sizes[s], odd, NULL, &st, "matrix");
                        continue;
                    }
                    run_query(g, g->ctx, c, s, k_sizes[s], 0, NULL, &st, "matrix");
                    run_query(g, g->ctx, c, s, k_sizes[s], odd, NULL, &st, "matrix");
                }
                /* async into device memory gives the blocking result bit for bit */
                memset(a, 0, sizeof a);
                memset(b, 1, sizeof b);
                r = pclr_cuda_reduce(g->ctx, c, g->dbuf, odd, cap_n(1000003), g->s1, a);
                if (r == PCLR_OK) r = pclr_cuda_reduce_async(g->ctx, c, g->dbuf, odd, cap_n(1000003), g->dout + 8 * (uint64_t)(i % 64), g->s1);
                if (r == PCLR_OK && D.StreamSynchronize(g->s1) == CUDA_SUCCESS)
                    D.DtoH(b, g->dout + 8 * (uint64_t)(i % 64), tsize((pclr_type)t));
                CHECK(r == PCLR_OK && memcmp(a, b, tsize((pclr_type)t)) == 0, "async equals blocking (%s %s config %d: %s)",
                      pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o), i, pclr_result_string(r));
                ++total;
            }
            printf("  %s %s: %d configurations in %.1f s\n", pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o), count,
                   now_s() - t1);
            fflush(stdout);
        }
    }
    printf("matrix: %d configurations in %.1f s\n", total, now_s() - t0);
}

/* Parses "cache: N configurations, M modules" from describe. */
static void cache_counts(pclr_cuda_context *ctx, unsigned long *entries, unsigned long *modules) {
    char text[2048];
    const char *p;
    *entries = *modules = 0;
    pclr_cuda_describe(ctx, text, sizeof text);
    p = strstr(text, "cache: ");
    if (p) sscanf(p, "cache: %lu configurations, %lu programs", entries, modules);
}

/* The flagged words of the last-group finish (4- and 8-byte states) under back-to-back launches:
   reduces queued on one stream, each into its own slot, overlap through dependent launch while
   the folder of one clears the words the next publishes into; every result must be bitwise the
   blocking call's (a torn or stale word would change a sum of random data). */
static void test_words_back_to_back(gpu_env *g, uint64_t seed) {
    static const pclr_type types[2] = {PCLR_FLOAT, PCLR_DOUBLE};
    static const uint64_t sizes[3] = {65537, 1000003, 4194301}; /* 2^16 + 1, ~2^20, 2^22 - 3 */
    const int reps = g_quick ? 300 : 3000;
    unsigned char *got = (unsigned char *)malloc((size_t)reps * 8);
    CUdeviceptr outs = 0;
    int ti, si, i;
    if (!CHECK(got != NULL && D.MemAlloc(&outs, (size_t)reps * 8) == CUDA_SUCCESS, "back-to-back: buffers")) {
        free(got);
        return;
    }
    for (ti = 0; ti < 2; ++ti) {
        const size_t es = tsize(types[ti]);
        upload(g, types[ti], 0, seed + 500 + (uint64_t)ti);
        for (si = 0; si < 3; ++si) {
            const uint64_t n = cap_n(sizes[si]);
            unsigned char want[8];
            pclr_config c;
            int bad = -1, launched = 1;
            memset(&c, 0, sizeof c);
            c.type = types[ti];
            if (!CHECK(pclr_cuda_reduce(g->ctx, &c, g->dbuf, 1, n, NULL, want) == PCLR_OK, "back-to-back: blocking %s sum",
                       pclr_type_name(c.type)))
                continue;
            for (i = 0; i < reps && launched; ++i)
                launched = pclr_cuda_reduce_async(g->ctx, &c, g->dbuf, 1, n, outs + (CUdeviceptr)i * es, g->s1) == PCLR_OK;
            if (!CHECK(launched && D.StreamSynchronize(g->s1) == CUDA_SUCCESS && D.DtoH(got, outs, (size_t)reps * es) == CUDA_SUCCESS,
                       "back-to-back: %d async %s sums of %llu", reps, pclr_type_name(c.type), (unsigned long long)n))
                continue;
            for (i = 0; i < reps && bad < 0; ++i)
                if (memcmp(got + (size_t)i * es, want, es) != 0) bad = i;
            CHECK(bad < 0, "back-to-back %s sums of %llu: all %d bitwise the blocking result (first differing: %d)",
                  pclr_type_name(c.type), (unsigned long long)n, reps, bad);
        }
    }
    printf("back-to-back: %d async float and double sums at each of 3 sizes against the blocking result\n", reps);
    D.MemFree(outs);
    free(got);
}

static void test_repeat_and_cache(gpu_env *g, uint64_t seed) {
    pclr_config c, same;
    unsigned char first[8], got[8];
    unsigned long e0, m0, e1, m1;
    uint64_t st = seed;
    int i, reps = g_quick ? 10 : 100, stable = 1;
    upload(g, PCLR_FLOAT, 0, seed + 300);
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;
    pclr_cuda_reduce(g->ctx, &c, g->dbuf, 3, cap_n(1000003), NULL, first);
    cache_counts(g->ctx, &e0, &m0);
    for (i = 0; i < reps; ++i) {
        pclr_cuda_reduce(g->ctx, &c, g->dbuf, 3, cap_n(1000003), NULL, got);
        stable &= memcmp(first, got, 4) == 0;
    }
    CHECK(stable, "float sum (last group) is bitwise reproducible over %d calls", reps);
    run_query(g, g->ctx, &c, -1, 1000003, 3, NULL, &st, "repeat");
    cache_counts(g->ctx, &e1, &m1);
    CHECK(e1 == e0 && m1 == m0 && m0 > 0, "repeated calls reuse the cache (%lu/%lu -> %lu/%lu)", e0, m0, e1, m1);
    /* the same configuration spelled out: a new key, the same module */
    pclr_cuda_resolve(g->ctx, &c, &same);
    CHECK(same.backend == PCLR_CUDA && same.variant == PCLR_VARIANT_SHUFFLE && same.finish == PCLR_FINISH_LAST_GROUP &&
              same.type == PCLR_FLOAT && same.group_size == 256,
          "resolve fills the CUDA defaults");
    pclr_cuda_reduce(g->ctx, &same, g->dbuf, 3, cap_n(1000003), NULL, got);
    CHECK(memcmp(first, got, 4) == 0, "explicit defaults give the same bits");
    cache_counts(g->ctx, &e1, &m1);
    CHECK(e1 == e0 + 1 && m1 == m0, "explicit defaults: one more key, no new module (%lu/%lu -> %lu/%lu)", e0, m0, e1, m1);

    /* atomic finish: the running value resets between calls, per type/op slot */
    upload(g, PCLR_UINT, 0, seed + 301);
    for (i = 0; i < (g_quick ? 4 : 20); ++i) {
        pclr_config a;
        memset(&a, 0, sizeof a);
        a.type = i % 2 ? PCLR_INT : PCLR_UINT;
        a.op = (pclr_op)(PCLR_SUM + i % 3);
        a.finish = PCLR_FINISH_ATOMIC;
        a.groups_per_unit = 1 + i % 5;
        if (a.op == PCLR_SUM) run_query(g, g->ctx, &a, 7, 1000003, 0, NULL, &st, "atomic repeat");
        else {
            unsigned char want[8];
            pclr_cpu_reduce(a.type, a.op, g->host + 4, cap_n(1000003), want);
            if (pclr_cuda_reduce(g->ctx, &a, g->dbuf, 1, cap_n(1000003), NULL, got) != PCLR_OK || memcmp(got, want, 4) != 0)
                CHECK(0, "atomic %s %s repeat %d", pclr_type_name(a.type), pclr_op_name(a.op), i);
            else
                CHECK(1, "ok");
        }
    }
}

static void test_streams_and_contexts(gpu_env *g, uint64_t seed) {
    pclr_cuda_desc d;
    pclr_cuda_context *b = NULL;
    pclr_config cfgs[4];
    unsigned char want[8], got[8];
    uint64_t st = seed + 7;
    pclr_result r;
    int i, j;
    CUstream streams[3];
    streams[0] = NULL;
    streams[1] = g->s1;
    streams[2] = g->s2;
    upload(g, PCLR_INT, 0, seed + 400);
    memset(cfgs, 0, sizeof cfgs);
    for (i = 0; i < 4; ++i) cfgs[i].type = PCLR_INT;
    cfgs[1].finish = PCLR_FINISH_ATOMIC;
    cfgs[2].finish = PCLR_FINISH_PARTIALS;
    cfgs[2].stride = PCLR_STRIDE_LOCAL;
    cfgs[3].variant = PCLR_VARIANT_UNROLLED;
    cfgs[3].group_size = 1024;
    for (i = 0; i < 12; ++i) run_query(g, g->ctx, &cfgs[i % 4], 7, 1000003, (uint64_t)(i % 3), streams[i % 3], &st, "streams");

    /* a second context on the same CUcontext, given explicitly */
    memset(&d, 0, sizeof d);
    d.context = g->primary;
    r = pclr_cuda_create(&d, &b);
    if (!CHECK(r == PCLR_OK, "second context on the primary CUcontext: %s", pclr_cuda_last_error(b))) {
        pclr_cuda_destroy(b);
        return;
    }
    {
        char text[2048];
        pclr_cuda_describe(b, text, sizeof text);
        CHECK(strstr(text, "caller's CUcontext") != NULL, "describe names the caller's context");
    }
    for (i = 0; i < 4; ++i) {
        unsigned char x[8], y[8];
        run_query(g, b, &cfgs[i], 7, 1000003, 1, g->s2, &st, "second context");
        pclr_cuda_reduce(g->ctx, &cfgs[i], g->dbuf, 2, cap_n(1000003), g->s1, x);
        pclr_cuda_reduce(b, &cfgs[i], g->dbuf, 2, cap_n(1000003), g->s2, y);
        CHECK(memcmp(x, y, 4) == 0, "two contexts agree (config %d)", i);
    }
    /* async on two streams at once, one context each; 8 results per stream */
    pclr_cpu_reduce(PCLR_INT, PCLR_SUM, g->host + 5 * 4, cap_n(1000003), want);
    for (j = 0; j < 8; ++j) {
        r = pclr_cuda_reduce_async(g->ctx, &cfgs[j % 4], g->dbuf, 5, cap_n(1000003), g->dout + 8 * (uint64_t)j, g->s1);
        CHECK(r == PCLR_OK, "async on stream 1: %s", pclr_result_string(r));
        r = pclr_cuda_reduce_async(b, &cfgs[(j + 1) % 4], g->dbuf, 5, cap_n(1000003), g->dout + 8 * (uint64_t)(8 + j), g->s2);
        CHECK(r == PCLR_OK, "async on stream 2: %s", pclr_result_string(r));
    }
    D.StreamSynchronize(g->s1);
    D.StreamSynchronize(g->s2);
    for (j = 0; j < 16; ++j) {
        D.DtoH(got, g->dout + 8 * (uint64_t)j, 4);
        CHECK(memcmp(got, want, 4) == 0, "concurrent async result %d", j);
    }
    /* async ordering on one stream: n = 0 writes the identity, then a real sum overwrites it */
    {
        pclr_config mx;
        int32_t idv = 0, v = 0;
        memset(&mx, 0, sizeof mx);
        mx.type = PCLR_INT;
        mx.op = PCLR_MAX;
        r = pclr_cuda_reduce_async(g->ctx, &mx, g->dbuf, 0, 0, g->dout + 8 * 20, g->s1);
        if (r == PCLR_OK && D.StreamSynchronize(g->s1) == CUDA_SUCCESS) D.DtoH(&idv, g->dout + 8 * 20, 4);
        CHECK(r == PCLR_OK && idv == INT32_MIN, "async n = 0 writes the identity (%ld)", (long)idv);
        r = pclr_cuda_reduce_async(g->ctx, &cfgs[0], g->dbuf, 5, cap_n(1000003), g->dout + 8 * 20, g->s1);
        if (r == PCLR_OK && D.StreamSynchronize(g->s1) == CUDA_SUCCESS) D.DtoH(&v, g->dout + 8 * 20, 4);
        CHECK(r == PCLR_OK && memcmp(&v, want, 4) == 0, "async after async on one stream");
    }
    pclr_cuda_destroy(b);

    /* a context of the caller's own (cuCtxCreate), used while another is current */
    if (D.CtxCreate) {
        CUcontext uctx = NULL, cur = NULL;
        CUdevice dev;
        CUdeviceptr ubuf = 0;
        pclr_cuda_context *c = NULL;
        uint32_t host[1000], sum = 0;
        uint32_t res = 0;
        pclr_config uc;
        memset(&uc, 0, sizeof uc);
        uc.type = PCLR_UINT;
        for (i = 0; i < 1000; ++i) { host[i] = (uint32_t)pclr_test_rand(&st); sum += host[i]; }
        if (D.DeviceGet(&dev, 0) != CUDA_SUCCESS || D.CtxCreate(&uctx, 0, dev) != CUDA_SUCCESS) {
            SKIP("cuCtxCreate_v2 failed: user context test skipped");
            return;
        }
        /* uctx is now current */
        CHECK(D.MemAlloc(&ubuf, sizeof host) == CUDA_SUCCESS && D.HtoD(ubuf, host, sizeof host) == CUDA_SUCCESS,
              "user context memory");
        memset(&d, 0, sizeof d);
        d.context = uctx;
        r = pclr_cuda_create(&d, &c);
        CHECK(r == PCLR_OK, "context on a user CUcontext: %s", pclr_cuda_last_error(c));
        if (r == PCLR_OK) {
            r = pclr_cuda_reduce(c, &uc, ubuf, 0, 1000, NULL, &res);
            CHECK(r == PCLR_OK && res == sum, "user context reduce (current): %lu vs %lu", (unsigned long)res, (unsigned long)sum);
            D.CtxPop(&cur); /* the primary context is current again */
            res = 0;
            r = pclr_cuda_reduce(c, &uc, ubuf, 0, 1000, NULL, &res);
            CHECK(r == PCLR_OK && res == sum, "user context reduce (pushed by the library): %s", pclr_result_string(r));
            cur = NULL;
            D.CtxGetCurrent(&cur);
            CHECK(cur == g->primary, "the library pops what it pushed");
            pclr_cuda_destroy(c);
            D.CtxGetCurrent(&cur);
            CHECK(cur == g->primary, "destroy leaves the current context alone");
            D.CtxPush(uctx);
        } else {
            pclr_cuda_destroy(c);
        }
        if (ubuf) D.MemFree(ubuf);
        D.CtxPop(&cur);
        D.CtxDestroy(uctx);
    } else {
        SKIP("cuCtxCreate_v2 not exported by this driver: user context test skipped");
    }
}

static void test_nan(gpu_env *g, uint64_t seed) {
    int t, o, i, p;
    for (t = PCLR_FLOAT; t <= PCLR_DOUBLE; ++t) {
        size_t es = tsize((pclr_type)t);
        upload(g, (pclr_type)t, 1, seed + 500 + (uint64_t)t);
        for (o = PCLR_MIN; o <= PCLR_MAX; ++o)
            for (i = 0; i < 4; ++i)
                for (p = 0; p < 3; ++p) {
                    static const uint64_t ns[] = {33, 1000003};
                    pclr_config c;
                    unsigned char old[8], nanv[8], got[8];
                    uint64_t n = cap_n(ns[(i + p) % 2]), off = 1 + (uint64_t)i, pos = p == 0 ? off : p == 1 ? off + n / 2 : off + n - 1;
                    pclr_result r;
                    memset(&c, 0, sizeof c);
                    c.type = (pclr_type)t;
                    c.op = (pclr_op)o;
                    c.variant = (pclr_variant)(PCLR_VARIANT_NAIVE + i);
                    c.finish = (pclr_finish)(PCLR_FINISH_LAST_GROUP + (i % 2) * 2);
                    c.vector_width = 1 + (i % 2);
                    if (t == PCLR_FLOAT) { float x = NAN; memcpy(nanv, &x, 4); }
                    else { double x = NAN; memcpy(nanv, &x, 8); }
                    memcpy(old, g->host + pos * es, es);
                    poke(g, pos, nanv);
                    r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, off, n, NULL, got);
                    CHECK(r == PCLR_OK && as_double((pclr_type)t, got) != as_double((pclr_type)t, got),
                          "NaN propagates: %s %s variant %s n=%llu NaN at %s (%s)", pclr_type_name((pclr_type)t),
                          pclr_op_name((pclr_op)o), pclr_variant_name(c.variant), (unsigned long long)n,
                          p == 0 ? "head" : p == 1 ? "middle" : "tail", pclr_result_string(r));
                    poke(g, pos, old);
                }
    }
}

static void test_wrap(gpu_env *g) {
    const uint64_t n = cap_n(1000003);
    pclr_config c;
    uint32_t u = 0, want_u;
    int32_t s = 0, want_s;
    pclr_result r;
    int f;
    for (f = PCLR_FINISH_LAST_GROUP; f < PCLR_FINISH_COUNT_; ++f) {
        memset(&c, 0, sizeof c);
        c.finish = (pclr_finish)f;
        D.MemsetD32(g->dbuf, 0x7fffffffu, (size_t)n);
        c.type = PCLR_INT;
        want_s = (int32_t)(uint32_t)(n * 0x7fffffffull);
        r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, n, NULL, &s);
        CHECK(r == PCLR_OK && s == want_s, "int sum wraps (%s): %ld vs %ld", pclr_finish_name(c.finish), (long)s, (long)want_s);
        D.MemsetD32(g->dbuf, 0xffffffffu, (size_t)n);
        c.type = PCLR_UINT;
        want_u = (uint32_t)(0u - (uint32_t)n);
        r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, n, NULL, &u);
        CHECK(r == PCLR_OK && u == want_u, "uint sum wraps (%s): %lu vs %lu", pclr_finish_name(c.finish), (unsigned long)u,
              (unsigned long)want_u);
    }
    g->type = PCLR_TYPE_DEFAULT; /* dbuf no longer matches host */
}

/* The generic context on the program's own device memory: pclr_cuda_buffer (bytes given, or the
   allocation's rest from the driver), pclr_reduce and pclr_reduce_async on a stream through pclr_sync. */
static void test_generic_buffers(gpu_env *g) {
    const uint64_t cap4 = ((uint64_t)1 << 20) / 4; /* the float elements of `small` */
    pclr_desc gd;
    pclr_context *gc = NULL;
    pclr_buffer whole, tail, part, states;
    pclr_input in;
    pclr_sync sync;
    pclr_config c;
    CUdeviceptr small = 0;
    unsigned char state[64];
    float f = 0, fin = 0;
    pclr_result r;
    memset(&gd, 0, sizeof gd);
    gd.backends[0] = PCLR_CUDA;
    gd.no_disk_cache = 1;
    gd.no_tune_file = 1;
    if (!CHECK(pclr_create(&gd, &gc) == PCLR_OK && pclr_context_cuda(gc) != NULL, "generic CUDA context")) {
        pclr_destroy(gc);
        return;
    }
    if (!CHECK(D.MemAlloc(&small, (size_t)1 << 20) == CUDA_SUCCESS, "1 MiB buffer")) {
        pclr_destroy(gc);
        return;
    }
    D.MemsetD32(small, 0x3f800000u, (size_t)cap4); /* 1.0f everywhere */
    r = pclr_cuda_buffer(gc, small, 0, &whole);
    CHECK(r == PCLR_OK && whole.bytes == ((uint64_t)1 << 20) && pclr_buffer_cuda(gc, &whole) == small,
          "pclr_cuda_buffer, bytes 0: the allocation (%s, %llu bytes)", pclr_result_string(r), (unsigned long long)whole.bytes);
    r = pclr_cuda_buffer(gc, small + 64, 0, &tail);
    CHECK(r == PCLR_OK && tail.bytes == ((uint64_t)1 << 20) - 64, "pclr_cuda_buffer, interior pointer: the allocation's rest (%llu bytes)",
          (unsigned long long)tail.bytes);
    r = pclr_cuda_buffer(gc, small, 400, &part);
    CHECK(r == PCLR_OK && part.bytes == 400, "pclr_cuda_buffer, bytes given (%llu)", (unsigned long long)part.bytes);
    CHECK(pclr_cuda_buffer(gc, 0, 400, &states) == PCLR_ERR_NULL_POINTER, "pclr_cuda_buffer of 0 refused");
    CHECK(pclr_cuda_buffer(NULL, small, 0, &states) == PCLR_ERR_INVALID_CONTEXT, "pclr_cuda_buffer on a NULL context refused");
    memset(&c, 0, sizeof c);
    memset(&in, 0, sizeof in);
    in.x = &tail;
    in.x_offset = 1;
    in.n = cap4 - 17;
    r = pclr_reduce(gc, &c, &in, &f, sizeof f);
    CHECK(r == PCLR_OK && f == (float)(cap4 - 17), "pclr_reduce on a wrapped pointer up to the allocation's end (%s, %g)",
          pclr_result_string(r), (double)f);
    in.n = cap4 - 16;
    r = pclr_reduce(gc, &c, &in, &f, sizeof f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "one element past the allocation's end refused (%s): %s", pclr_result_string(r), pclr_last_error(gc));
    in.x = &part;
    in.x_offset = 0;
    in.n = 101;
    r = pclr_reduce(gc, &c, &in, &f, sizeof f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "one element past the given bytes refused (%s)", pclr_result_string(r));
    in.n = 100;
    memset(&sync, 0, sizeof sync);
    sync.cuda_stream = (void *)g->s1;
    r = pclr_cuda_buffer(gc, g->dout, 64 * 8, &states);
    if (r == PCLR_OK) r = pclr_reduce_async(gc, &c, &in, &states, 3, &sync);
    if (r == PCLR_OK && D.StreamSynchronize(g->s1) == CUDA_SUCCESS &&
        D.DtoH(state, g->dout + 3 * pclr_state_size(&c), pclr_state_size(&c)) == CUDA_SUCCESS)
        r = pclr_finalize(&c, state, &fin);
    CHECK(r == PCLR_OK && fin == 100.0f, "pclr_reduce_async on a stream into a wrapped states buffer (%s, %g)", pclr_result_string(r),
          (double)fin);
    { /* the native objects, and a second context adopting the first one's CUcontext (desc.cuda) */
        pclr_cuda_native nat, got;
        pclr_cuda_desc own;
        pclr_context *mine = NULL;
        memset(&own, 0, sizeof own);
        r = pclr_cuda_get_native(gc, &nat);
        CHECK(r == PCLR_OK && nat.context && nat.api && nat.features && nat.features->compute_units > 0, "pclr_cuda_get_native (%s)",
              pclr_result_string(r));
        own.context = nat.context;
        gd.cuda = &own;
        r = pclr_create(&gd, &mine);
        CHECK(r == PCLR_OK && pclr_cuda_get_native(mine, &got) == PCLR_OK && got.context == nat.context,
              "pclr_create with desc.cuda uses the program's CUcontext (%s)", pclr_result_string(r));
        in.x = &part;
        in.n = 100;
        CHECK(pclr_reduce(mine, &c, &in, &f, sizeof f) == PCLR_ERR_INVALID_ARGUMENT, "another context's wrapped buffer refused");
        if (r == PCLR_OK && pclr_cuda_buffer(mine, small, 400, &part) == PCLR_OK)
            CHECK(pclr_reduce(mine, &c, &in, &f, sizeof f) == PCLR_OK && f == 100.0f, "the adopting context reduces the program's memory (%g)",
                  (double)f);
        pclr_destroy(mine);
    }
    D.MemFree(small);
    pclr_destroy(gc);
}

/* General floats: bounded error (the exact-data matrix checks coverage). */
static void test_float_error(gpu_env *g, uint64_t seed) {
    int t, i;
    for (t = PCLR_FLOAT; t <= PCLR_DOUBLE; ++t) {
        size_t es = tsize((pclr_type)t);
        uint64_t st = seed + 600 + (uint64_t)t, j, n;
        for (j = 0; j < MAXN + PAD; ++j) {
            double x = (double)(pclr_test_rand(&st) >> 11) / 9007199254740992.0;
            if (t == PCLR_FLOAT) { float f = (float)x; memcpy(g->host + j * 4, &f, 4); }
            else memcpy(g->host + j * 8, &x, 8);
        }
        D.HtoD(g->dbuf, g->host, (size_t)((MAXN + PAD) * es));
        g->type = (pclr_type)t;
        g->minmax = 1;
        for (i = 0; i < 4; ++i) {
            pclr_config c, res;
            pclr_device_facts facts;
            pclr_launch plan;
            unsigned char want[8], got[8];
            double exact = 0, a, b, eps = t == PCLR_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2, chain, bound;
            pclr_result r;
            memset(&c, 0, sizeof c);
            memset(&res, 0, sizeof res);
            memset(&plan, 0, sizeof plan);
            plan.groups = plan.group_size = 1;
            c.type = (pclr_type)t;
            if (i == 1) { c.variant = PCLR_VARIANT_NAIVE; c.stride = PCLR_STRIDE_LOCAL; c.finish = PCLR_FINISH_PARTIALS; }
            if (i == 2) { c.unroll = 1; c.vector_width = 1; c.groups_per_unit = 1; c.group_size = 32; }
            if (i == 3) { c.variant = PCLR_VARIANT_UNROLLED; c.wave_width = 64; c.unroll = 16; }
            n = cap_n((i % 2) ? 1000003 : (g_quick ? (1u << 20) + 1 : MAXN));
            { /* compensated (Neumaier) sum: far more accurate than the sums under test */
                double comp = 0;
                for (j = 0; j < n; ++j) {
                    double x = as_double((pclr_type)t, g->host + (3 + j) * es), s2 = exact + x;
                    comp += fabs(exact) >= fabs(x) ? (exact - s2) + x : (x - s2) + exact;
                    exact = s2;
                }
                exact += comp;
            }
            pclr_cpu_reduce((pclr_type)t, PCLR_SUM, g->host + 3 * es, n, want);
            r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 3, n, NULL, got);
            pclr_cuda_resolve(g->ctx, &c, &res);
            facts.compute_units = g->feat->compute_units;
            facts.max_group_size = g->feat->max_group_size;
            pclr_plan(&res, &facts, n, &plan);
            /* worst-case error of a chain of m additions is about m * eps * sum|x| */
            chain = (double)n / (double)(plan.groups * plan.group_size) + 2.0 * res.unroll * res.vector_width + 64.0;
            bound = eps * (chain + 300.0) * exact;
            a = as_double((pclr_type)t, got);
            b = as_double((pclr_type)t, want);
            CHECK(r == PCLR_OK && fabs(a - exact) <= bound && fabs(b - exact) <= bound,
                  "%s sum config %d n=%llu: gpu %.17g cpu %.17g exact %.17g bound %.3g (%s)", pclr_type_name((pclr_type)t), i,
                  (unsigned long long)n, a, b, exact, bound, pclr_result_string(r));
            if (g_verbose)
                printf("  %s sum n=%llu: relative error gpu %.3g cpu %.3g\n", pclr_type_name((pclr_type)t),
                       (unsigned long long)n, fabs(a - exact) / exact, fabs(b - exact) / exact);
        }
    }
}

static void test_errors(gpu_env *g) {
    pclr_config c, bad;
    pclr_cuda_desc d;
    pclr_cuda_context *x = NULL;
    unsigned char got[8];
    float f = 1;
    double dv = 1;
    pclr_result r;
    const uint64_t cap4 = ((uint64_t)1 << 20) / 4; /* the float elements of `small` */
    CUdeviceptr small = 0;
    int t, o;
    if (!CHECK(D.MemAlloc(&small, (size_t)1 << 20) == CUDA_SUCCESS, "1 MiB buffer")) return;
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;

    r = pclr_cuda_reduce(g->ctx, NULL, g->dbuf, 0, 10, NULL, &f);
    CHECK(r == PCLR_ERR_NULL_POINTER && strlen(pclr_cuda_last_error(g->ctx)) > 0, "NULL config refused");
    r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, 10, NULL, NULL);
    CHECK(r == PCLR_ERR_NULL_POINTER, "NULL result refused");
    r = pclr_cuda_reduce(g->ctx, &c, 0, 0, 10, NULL, &f);
    CHECK(r == PCLR_ERR_NULL_POINTER, "in = 0 with n > 0 refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce(g->ctx, &c, 0, 0, 0, NULL, &f);
    CHECK(r == PCLR_OK && f == 0.0f, "in = 0 with n = 0 gives the identity");
    r = pclr_cuda_reduce(g->ctx, &c, g->dbuf + 2, 0, 10, NULL, &f);
    CHECK(r == PCLR_ERR_MISALIGNED, "misaligned float input refused (%s)", pclr_result_string(r));
    c.type = PCLR_DOUBLE;
    r = pclr_cuda_reduce(g->ctx, &c, g->dbuf + 4, 0, 10, NULL, &dv);
    CHECK(r == PCLR_ERR_MISALIGNED, "double input on a 4-byte boundary refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce_async(g->ctx, &c, g->dbuf, 0, 10, g->dout + 4, NULL);
    CHECK(r == PCLR_ERR_MISALIGNED, "misaligned async output refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce_async(g->ctx, &c, g->dbuf, 0, 10, 0, NULL);
    CHECK(r == PCLR_ERR_NULL_POINTER, "async output 0 refused (%s)", pclr_result_string(r));
    c.type = PCLR_FLOAT;
    r = pclr_cuda_reduce(g->ctx, &c, small, 0, cap4 + 1, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "n past the allocation refused (%s): %s", pclr_result_string(r), pclr_cuda_last_error(g->ctx));
    r = pclr_cuda_reduce(g->ctx, &c, small, 5, cap4 - 4, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "offset + n past the allocation refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce(g->ctx, &c, small + 64, 0, cap4 - 15, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "interior pointer + n past the end refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce(g->ctx, &c, small, UINT64_MAX - 1, 5, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "offset + n overflowing 64 bits refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce(g->ctx, &c, small, (uint64_t)1 << 62, 1, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "byte offset overflowing 64 bits refused (%s)", pclr_result_string(r));
    r = pclr_cuda_reduce(g->ctx, &c, small, cap4 + 3, 0, NULL, &f);
    CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "offset past the end refused even for n = 0 (%s)", pclr_result_string(r));
    D.MemsetD32(small, 0x3f800000u, (size_t)cap4); /* 1.0f everywhere */
    r = pclr_cuda_reduce(g->ctx, &c, small + 64, 1, cap4 - 17, NULL, &f);
    CHECK(r == PCLR_OK && f == (float)(cap4 - 17), "exact fit up to the allocation's end accepted (%s, %g)", pclr_result_string(r),
          (double)f);
    r = pclr_cuda_reduce(g->ctx, &c, small, cap4, 0, NULL, &f);
    CHECK(r == PCLR_OK && f == 0.0f, "n = 0 at the allocation's end accepted (%s)", pclr_result_string(r));
    D.MemFree(small);

    /* n = 0: the identity, blocking and async, every type/op */
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t)
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o) {
            unsigned char want[8], dev[8];
            memset(&c, 0, sizeof c);
            c.type = (pclr_type)t;
            c.op = (pclr_op)o;
            c.finish = (pclr_finish)(PCLR_FINISH_LAST_GROUP + (t + o) % 2 * 2);
            if (c.finish == PCLR_FINISH_PARTIALS && (t == PCLR_UINT || t == PCLR_INT)) c.finish = PCLR_FINISH_ATOMIC;
            pclr_identity(c.type, c.op, want);
            memset(got, 0x5a, sizeof got);
            memset(dev, 0x5a, sizeof dev);
            r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 3, 0, NULL, got);
            CHECK(r == PCLR_OK && memcmp(got, want, tsize(c.type)) == 0, "n = 0 gives the identity (%s %s)",
                  pclr_type_name(c.type), pclr_op_name(c.op));
            r = pclr_cuda_reduce_async(g->ctx, &c, g->dbuf, 3, 0, g->dout + 8 * 40, NULL);
            if (r == PCLR_OK && D.StreamSynchronize(NULL) == CUDA_SUCCESS) D.DtoH(dev, g->dout + 8 * 40, tsize(c.type));
            CHECK(r == PCLR_OK && memcmp(dev, want, tsize(c.type)) == 0, "async n = 0 gives the identity (%s %s)",
                  pclr_type_name(c.type), pclr_op_name(c.op));
        }

    /* invalid configurations */
    memset(&bad, 0, sizeof bad);
    bad.wave_width = 64;
    r = pclr_cuda_reduce(g->ctx, &bad, g->dbuf, 0, 10, NULL, &f);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION && strlen(pclr_cuda_last_error(g->ctx)) > 0, "shuffle + wave 64 refused: %s",
          pclr_cuda_last_error(g->ctx));
    memset(&bad, 0, sizeof bad);
    bad.group_size = 2048;
    r = pclr_cuda_reduce(g->ctx, &bad, g->dbuf, 0, 10, NULL, &f);
    CHECK(r == PCLR_ERR_INVALID_KNOB, "group 2048 refused (%s)", pclr_result_string(r));
    memset(&bad, 0, sizeof bad);
    bad.backend = PCLR_OPENCL;
    r = pclr_cuda_prepare(g->ctx, &bad);
    CHECK(r == PCLR_ERR_UNSUPPORTED_COMBINATION, "dialect opencl refused (%s)", pclr_result_string(r));
    memset(&bad, 0, sizeof bad);
    bad.variant = PCLR_VARIANT_COLLECTIVE;
    CHECK(pclr_cuda_prepare(g->ctx, &bad) == PCLR_ERR_UNSUPPORTED_COMBINATION, "collective refused");
    memset(&bad, 0, sizeof bad);
    bad.finish = PCLR_FINISH_ATOMIC;
    CHECK(pclr_cuda_prepare(g->ctx, &bad) == PCLR_ERR_UNSUPPORTED_COMBINATION, "float + atomic refused");
    if (g->feat->max_group_size < 1024) {
        memset(&bad, 0, sizeof bad);
        bad.group_size = 1024;
        CHECK(pclr_cuda_prepare(g->ctx, &bad) == PCLR_ERR_UNSUPPORTED_BY_DEVICE, "group above the device limit refused");
    }
    /* after refusals the context still works */
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT;
    D.MemsetD32(g->dbuf, 0x3f800000u, 1000);
    g->type = PCLR_TYPE_DEFAULT;
    r = pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, 1000, NULL, &f);
    CHECK(r == PCLR_OK && f == 1000.0f, "context works after refusals (%s, %g)", pclr_result_string(r), (double)f);

    /* create failures with a driver present */
    memset(&d, 0, sizeof d);
    d.error = g_err;
    d.error_cap = sizeof g_err;
    d.nvrtc_library = "/nonexistent/libnvrtc.so";
    r = pclr_cuda_create(&d, &x);
    CHECK(r == PCLR_ERR_NO_DRIVER && !x && strstr(g_err, "NVRTC") != NULL, "bad nvrtc_library: %s: %s", pclr_result_string(r), g_err);
    memset(&d, 0, sizeof d);
    d.error = g_err;
    d.error_cap = sizeof g_err;
    d.device_ordinal = 999; /* the deprecated spelling */
    r = pclr_cuda_create(&d, &x);
    CHECK(r == PCLR_ERR_NO_DEVICE && !x && strlen(g_err) > 0, "device 999: %s: %s", pclr_result_string(r), g_err);
    d.device_ordinal = 0;
    d.device_number = 1000;
    r = pclr_cuda_create(&d, &x);
    CHECK(r == PCLR_ERR_NO_DEVICE && !x && strstr(g_err, "no CUDA device 999 (device number 1000"), "device_number 1000: %s: %s",
          pclr_result_string(r), g_err);
}

static void test_allocator(gpu_env *g) {
    pclr_test_counting cnt = {0, 0};
    pclr_cuda_desc d;
    pclr_cuda_context *x = NULL;
    pclr_config c;
    pclr_result r;
    long calls;
    float f = 0;
    int i;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = pclr_test_count_alloc;
    d.allocator.free = pclr_test_count_free;
    d.allocator.user = &cnt;
    r = pclr_cuda_create(&d, &x);
    CHECK(r == PCLR_OK && cnt.calls > 0, "custom allocator used (%s)", pclr_result_string(r));
    memset(&c, 0, sizeof c);
    D.MemsetD32(g->dbuf, 0x3f800000u, 1000);
    g->type = PCLR_TYPE_DEFAULT;
    r = pclr_cuda_reduce(x, &c, g->dbuf, 0, 1000, NULL, &f);
    calls = cnt.calls;
    for (i = 0; i < 10; ++i) r = r ? r : pclr_cuda_reduce(x, &c, g->dbuf, 0, 1000, NULL, &f);
    CHECK(r == PCLR_OK && f == 1000.0f, "reduce with a custom allocator");
    CHECK(cnt.calls == calls, "no host allocation per call (%ld -> %ld)", calls, cnt.calls);
    pclr_cuda_destroy(x);
    CHECK(cnt.live == 0, "everything allocated is freed (%ld live)", cnt.live);
}

/* n > 2^32: a device-filled pattern with a few patched elements. */
static void test_big(gpu_env *g) {
    const uint64_t N = ((uint64_t)1 << 32) + 1234567u;
    static const uint64_t idx[] = {0, ((uint64_t)1 << 31) + 7, ((uint64_t)1 << 32) - 1, (uint64_t)1 << 32,
                                   ((uint64_t)1 << 32) + 5, ((uint64_t)1 << 32) + 1234567u - 1};
    static const uint32_t val[] = {100, 200, 7, 11, 13, 0xfffffff0u};
    size_t free_b = 0, total_b = 0, bytes = (size_t)(N * 4);
    CUdeviceptr big = 0;
    pclr_config cfgs[4];
    pclr_result r;
    double t0 = now_s();
    int i, j;
    if (g_quick || g_maxn) {
        SKIP("n > 2^32 test skipped in quick mode / with PCLR_TEST_MAXN");
        return;
    }
    if (D.MemGetInfo(&free_b, &total_b) != CUDA_SUCCESS || free_b < bytes + ((size_t)2 << 30)) {
        SKIP("n > 2^32 test needs %.1f GB free device memory (%.1f GB free)", (double)bytes / 1e9, (double)free_b / 1e9);
        return;
    }
    if (D.MemAlloc(&big, bytes) != CUDA_SUCCESS) {
        SKIP("n > 2^32 test: cuMemAlloc of %.1f GB failed", (double)bytes / 1e9);
        return;
    }
    memset(cfgs, 0, sizeof cfgs);
    for (i = 0; i < 4; ++i) cfgs[i].type = PCLR_UINT;
    cfgs[1].finish = PCLR_FINISH_PARTIALS;
    cfgs[1].stride = PCLR_STRIDE_LOCAL;
    cfgs[2].finish = PCLR_FINISH_ATOMIC;
    cfgs[2].unroll = 8;
    cfgs[3].variant = PCLR_VARIANT_NAIVE;
    cfgs[3].vector_width = 1;
    cfgs[3].group_size = 128;
    D.MemsetD32(big, 3u, (size_t)N);
    for (i = 0; i < 6; ++i) D.HtoD(big + idx[i] * 4, &val[i], 4);
    for (j = 0; j < 3; ++j) {
        /* (offset, n): everything; from past 2^32; a short window straddling 2^32 */
        uint64_t off = j == 0 ? 0 : j == 1 ? ((uint64_t)1 << 32) + 1 : ((uint64_t)1 << 32) - 100, n = j == 0 ? N : j == 1 ? N - off : 200;
        uint64_t want = 3 * n;
        for (i = 0; i < 6; ++i)
            if (idx[i] >= off && idx[i] < off + n) want += (uint64_t)val[i] - 3;
        for (i = 0; i < 4; ++i) {
            uint32_t got = 0;
            r = pclr_cuda_reduce(g->ctx, &cfgs[i], big, off, n, NULL, &got);
            CHECK(r == PCLR_OK && got == (uint32_t)want, "uint sum n=%llu offset=%llu config %d: %lu vs %lu (%s %s)",
                  (unsigned long long)n, (unsigned long long)off, i, (unsigned long)got, (unsigned long)(uint32_t)want,
                  pclr_result_string(r), r ? pclr_cuda_last_error(g->ctx) : "");
        }
    }
    /* float max over the same memory: 1.0f everywhere, 7.5 past 2^32, 2.0 at the end, 3.0 early */
    {
        float a = 7.5f, b = 2.0f, c3 = 3.0f, got = 0;
        pclr_config fc;
        D.MemsetD32(big, 0x3f800000u, (size_t)N);
        D.HtoD(big + (((uint64_t)1 << 32) + 99) * 4, &a, 4);
        D.HtoD(big + (N - 1) * 4, &b, 4);
        D.HtoD(big + 5 * 4, &c3, 4);
        for (i = 0; i < 3; ++i) {
            memset(&fc, 0, sizeof fc);
            fc.type = PCLR_FLOAT;
            fc.op = PCLR_MAX;
            if (i == 1) { fc.stride = PCLR_STRIDE_LOCAL; fc.finish = PCLR_FINISH_PARTIALS; }
            if (i == 2) { fc.variant = PCLR_VARIANT_UNROLLED; fc.unroll = 16; fc.vector_width = 2; }
            r = pclr_cuda_reduce(g->ctx, &fc, big, 0, N, NULL, &got);
            CHECK(r == PCLR_OK && got == 7.5f, "float max n=%llu config %d: %g (%s)", (unsigned long long)N, i, (double)got,
                  pclr_result_string(r));
            r = pclr_cuda_reduce(g->ctx, &fc, big, ((uint64_t)1 << 32) + 100, N - ((uint64_t)1 << 32) - 100, NULL, &got);
            CHECK(r == PCLR_OK && got == 2.0f, "float max past 2^32 config %d: %g (%s)", i, (double)got, pclr_result_string(r));
            r = pclr_cuda_reduce(g->ctx, &fc, big, 1, ((uint64_t)1 << 32) + 50, NULL, &got);
            CHECK(r == PCLR_OK && got == 3.0f, "float max up to just past 2^32 config %d: %g (%s)", i, (double)got,
                  pclr_result_string(r));
        }
        r = pclr_cuda_reduce(g->ctx, &fc, big, 1, N, NULL, &got);
        CHECK(r == PCLR_ERR_SIZE_OVERFLOW, "big buffer: one element too many refused (%s)", pclr_result_string(r));
    }
    D.MemFree(big);
    printf("n > 2^32 (%.1f GB): %.1f s\n", (double)bytes / 1e9, now_s() - t0);
}

/* Not a check: blocking latency per call, for the record. */
static void test_latency(gpu_env *g) {
    static const uint64_t ns[] = {1, 1000, 1u << 20, 1u << 24};
    pclr_config c;
    float f;
    size_t i;
    int it, iters = g_quick ? 20 : 200;
    memset(&c, 0, sizeof c);
    D.MemsetD32(g->dbuf, 0x3f800000u, (size_t)(1u << 24));
    g->type = PCLR_TYPE_DEFAULT;
    printf("latency (float sum, default config, %d calls each):", iters);
    {
        double t0 = now_s();
        for (it = 0; it < iters; ++it) pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, 0, NULL, &f);
        printf(" n=0 (host side only, no launch): %.2f us;", (now_s() - t0) / iters * 1e6);
    }
    for (i = 0; i < sizeof ns / sizeof ns[0]; ++i) {
        double t0, t1, t2;
        for (it = 0; it < 10; ++it) pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, ns[i], NULL, &f);
        t0 = now_s();
        for (it = 0; it < iters; ++it) pclr_cuda_reduce(g->ctx, &c, g->dbuf, 0, ns[i], NULL, &f);
        t1 = now_s();
        for (it = 0; it < iters; ++it) {
            pclr_cuda_reduce_async(g->ctx, &c, g->dbuf, 0, ns[i], g->dout, NULL);
            D.StreamSynchronize(NULL);
        }
        t2 = now_s();
        printf(" n=%llu: %.1f us blocking, %.1f us async+sync;", (unsigned long long)ns[i], (t1 - t0) / iters * 1e6,
               (t2 - t1) / iters * 1e6);
    }
    printf("\n");
    CHECK(f == (float)(1u << 24), "latency loop result");
}

static void disk_counts(pclr_cuda_context *ctx, unsigned long *loaded, unsigned long *stored, unsigned long *tuned) {
    char text[4096];
    const char *p;
    *loaded = *stored = *tuned = 0;
    pclr_cuda_describe(ctx, text, sizeof text);
    if ((p = strstr(text, "disk cache: ")) && (p = strchr(p, '('))) sscanf(p, "(%lu loaded, %lu stored)", loaded, stored);
    if ((p = strstr(text, "tuned: "))) sscanf(p, "tuned: %lu entries", tuned);
}

/* A context on a fresh disk cache and tuning file; n-element float sum checked. */
static pclr_cuda_context *disk_ctx(gpu_env *g, const char *dir, const char *tune, unsigned long *loaded,
                                   unsigned long *stored, unsigned long *tuned) {
    pclr_cuda_desc d;
    pclr_cuda_context *ctx = NULL;
    pclr_config c;
    unsigned char got[8], want[8];
    memset(&d, 0, sizeof d);
    d.cache_dir = dir;
    d.tune_file = tune;
    memset(&c, 0, sizeof c);
    if (pclr_cuda_create(&d, &ctx) != PCLR_OK) {
        CHECK(0, "create with cache_dir %s: %s", dir, pclr_cuda_last_error(ctx));
        pclr_cuda_destroy(ctx);
        return NULL;
    }
    pclr_cpu_reduce(PCLR_FLOAT, PCLR_SUM, g->host, 100003, want);
    CHECK(pclr_cuda_reduce(ctx, &c, g->dbuf, 0, 100003, NULL, got) == PCLR_OK && fabsf(*(float *)got - *(float *)want) <=
              1e-3f * (1.0f + fabsf(*(float *)want)),
          "disk-cache context reduces correctly: %s", pclr_cuda_last_error(ctx));
    disk_counts(ctx, loaded, stored, tuned);
    return ctx;
}

/* The disk cache (cold, warm, corrupted file) and the tuner on the device. */
static void test_disk_cache_and_tune(gpu_env *g, uint64_t seed) {
    char dir[] = "/tmp/pclr_cuda_cacheXXXXXX", tune[512], file[600], cmd[700];
    unsigned long loaded, stored, tuned;
    pclr_cuda_context *ctx;
    pclr_tune_entry found[PCLR_TUNE_CLASSES];
    pclr_tune_options opt;
    size_t count = 0, i;
    double t0;
    if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
    snprintf(tune, sizeof tune, "%s/tuning.txt", dir);
    upload(g, PCLR_FLOAT, 0, seed + 900);
    t0 = now_s();
    if ((ctx = disk_ctx(g, dir, tune, &loaded, &stored, &tuned))) {
        CHECK(loaded == 0 && stored == 1 && tuned == 0, "cold: 0 loaded, 1 stored (%lu, %lu), no tuned entries", loaded, stored);
        pclr_cuda_destroy(ctx);
    }
    printf("disk cache: cold context to first result %.2f ms\n", (now_s() - t0) * 1e3);
    t0 = now_s();
    if ((ctx = disk_ctx(g, dir, tune, &loaded, &stored, &tuned))) {
        CHECK(loaded == 1 && stored == 0, "warm: 1 loaded, 0 stored (%lu, %lu)", loaded, stored);
        pclr_cuda_destroy(ctx);
    }
    printf("disk cache: warm context to first result %.2f ms\n", (now_s() - t0) * 1e3);
    /* every cache file overwritten with garbage: ignored, rebuilt, stored again */
    snprintf(cmd, sizeof cmd, "for f in %s/*.bin; do head -c 3000 /dev/urandom > \"$f\"; done", dir);
    CHECK(system(cmd) == 0, "corrupt the cache files");
    if ((ctx = disk_ctx(g, dir, tune, &loaded, &stored, &tuned))) {
        CHECK(loaded == 0 && stored == 1, "corrupt file: rebuilt and stored (%lu, %lu)", loaded, stored);
        pclr_cuda_destroy(ctx);
    }
    /* the tuner: classes up to 2^20 for uint sum, applied at once, saved, loaded by the next context */
    if ((ctx = disk_ctx(g, dir, tune, &loaded, &stored, &tuned))) {
        memset(&opt, 0, sizeof opt);
        opt.max_n = (uint64_t)1 << 20;
        t0 = now_s();
        CHECK(pclr_cuda_tune(ctx, PCLR_UINT, PCLR_SUM, &opt, found, PCLR_TUNE_CLASSES, &count) == PCLR_OK && count == 3,
              "tune uint sum up to 2^20: %zu classes: %s", count, pclr_cuda_last_error(ctx));
        printf("tune uint sum, classes 2^12..2^20: %.2f s\n", now_s() - t0);
        for (i = 0; i < count; ++i) {
            char line[1024];
            pclr_tune_format(&found[i], line, sizeof line);
            printf("  %s", line);
            CHECK(found[i].gbps > 0 && strcmp(found[i].device, g->feat->device_name) == 0, "tuned entry %zu", i);
        }
        disk_counts(ctx, &loaded, &stored, &tuned);
        CHECK(tuned == count, "the context holds the %zu tuned entries (%lu)", count, tuned);
        upload(g, PCLR_UINT, 0, seed + 901);
        for (i = 0; i < 6; ++i) {
            const uint64_t n = i == 0 ? 1 : i == 1 ? 4097 : i == 2 ? 65521 : i == 3 ? 1000003 : i == 4 ? 3 : 262143;
            pclr_config c;
            unsigned char got[8], want[8];
            memset(&c, 0, sizeof c);
            c.type = PCLR_UINT;
            pclr_cpu_reduce(PCLR_UINT, PCLR_SUM, g->host, n, want);
            CHECK(pclr_cuda_reduce(ctx, &c, g->dbuf, 0, n, NULL, got) == PCLR_OK && memcmp(got, want, 4) == 0,
                  "tuned uint sum n=%llu", (unsigned long long)n);
        }
        CHECK(pclr_tune_save(tune, found, count) == PCLR_OK, "save the tuning file");
        pclr_cuda_destroy(ctx);
        upload(g, PCLR_FLOAT, 0, seed + 900);
        if ((ctx = disk_ctx(g, dir, tune, &loaded, &stored, &tuned))) {
            CHECK(tuned == count, "the next context loads %zu tuned entries (%lu)", count, tuned);
            pclr_cuda_destroy(ctx);
        }
    }
    snprintf(file, sizeof file, "rm -rf %s", dir);
    CHECK(system(file) == 0, "remove %s", dir);
}

static void test_features(gpu_env *g) {
    const pclr_cuda_features *f = g->feat;
    char text[2048];
    size_t need = pclr_cuda_describe(g->ctx, NULL, 0), small;
    char tiny[16];
    CHECK(f != NULL, "features");
    if (!f) return;
    printf("device: %s, cc %d.%d, %u SMs, max group %u, L2 %lu KiB, driver %d, NVRTC %d.%d\n", f->device_name, f->cc_major,
           f->cc_minor, f->compute_units, f->max_group_size, (unsigned long)(f->l2_bytes / 1024), f->driver_version,
           f->nvrtc_major, f->nvrtc_minor);
    CHECK(strlen(f->device_name) > 0 && f->cc_major >= 3 && f->compute_units > 0 && f->max_group_size >= 32 &&
              f->driver_version > 0 && f->nvrtc_major > 0,
          "features are filled in");
    CHECK(pclr_cuda_describe(g->ctx, text, sizeof text) == need && strstr(text, f->device_name) != NULL,
          "describe names the device and reports its length");
    small = pclr_cuda_describe(g->ctx, tiny, sizeof tiny);
    CHECK(small == need && strlen(tiny) == sizeof tiny - 1, "describe truncates to the buffer");
    CHECK(pclr_cuda_build_log(g->ctx) != NULL, "build log is a string");
}

/* CUDA graphs: 1000 async reduces of 12 configurations (uint/int/float/double x sum/min/max)
   over different slices, captured once into a graph on a stream and replayed twice, the
   second time over new data at the same addresses. Every result must equal the CPU
   reference (the data make every sum exact, so float sums compare bit for bit) and the same
   call launched directly. */
#define GRAPH_CALLS 1000
#define GRAPH_ELEMS ((uint64_t)1 << 21)
static void graph_fill(unsigned char *h, pclr_type t, uint64_t *st) {
    uint64_t i;
    for (i = 0; i < GRAPH_ELEMS; ++i) {
        const uint64_t r = pclr_test_rand(st);
        if (t == PCLR_FLOAT) ((float *)h)[i] = (float)(int)(r % 7) - 3.0f; /* small integers: every partial sum is exact */
        else if (t == PCLR_DOUBLE) ((double *)h)[i] = (double)(int64_t)(r % 2001) - 1000.0;
        else ((uint32_t *)h)[i] = (uint32_t)r;
    }
}
static void test_graph(gpu_env *g, uint64_t seed) {
    static const pclr_type types[4] = {PCLR_UINT, PCLR_INT, PCLR_FLOAT, PCLR_DOUBLE};
    pclr_config cfg[12];
    CUdeviceptr in[4] = {0, 0, 0, 0}, out_graph = 0, out_direct = 0;
    unsigned char *host[4] = {NULL, NULL, NULL, NULL}, *got = NULL, *direct = NULL;
    uint64_t off[GRAPH_CALLS], n[GRAPH_CALLS], st = seed ^ 0x9e3779b97f4a7c15ull;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    int i, k, replay, ok = 1, bad = 0;
    if (!D.BeginCapture) {
        SKIP("the driver has no stream capture / graph entry points");
        return;
    }
    for (k = 0; k < 12; ++k) {
        memset(&cfg[k], 0, sizeof cfg[k]);
        cfg[k].type = types[k / 3];
        cfg[k].op = (pclr_op)(PCLR_SUM + k % 3);
        /* a reduce compiles its kernel on first use: capture only prepared configurations */
        ok &= CHECK(pclr_cuda_prepare(g->ctx, &cfg[k]) == PCLR_OK, "graph: prepare %d: %s", k, pclr_cuda_last_error(g->ctx));
    }
    for (k = 0; k < 4; ++k) {
        host[k] = (unsigned char *)malloc((size_t)(GRAPH_ELEMS * 8));
        ok &= CHECK(host[k] && D.MemAlloc(&in[k], (size_t)(GRAPH_ELEMS * 8)) == CUDA_SUCCESS, "graph: input buffers");
    }
    got = (unsigned char *)malloc(GRAPH_CALLS * 8);
    direct = (unsigned char *)malloc(GRAPH_CALLS * 8);
    ok &= CHECK(got && direct && D.MemAlloc(&out_graph, GRAPH_CALLS * 8) == CUDA_SUCCESS &&
                    D.MemAlloc(&out_direct, GRAPH_CALLS * 8) == CUDA_SUCCESS, "graph: output buffers");
    for (i = 0; i < GRAPH_CALLS; ++i) { /* sizes from 0 to 2^21, most of them small: the latency-bound calls graphs are for */
        const uint64_t r = pclr_test_rand(&st);
        n[i] = i % 50 == 0 ? GRAPH_ELEMS - (r % 64) : i % 7 == 0 ? r % 4 : (r >> 8) % ((uint64_t)1 << (6 + i % 13));
        off[i] = n[i] < GRAPH_ELEMS ? (r >> 40) % (GRAPH_ELEMS - n[i]) : 0;
    }
    for (replay = 0; ok && replay < 2; ++replay) {
        for (k = 0; k < 4; ++k) { /* new data each replay, at the same addresses */
            graph_fill(host[k], types[k], &st);
            ok &= CHECK(D.HtoD(in[k], host[k], (size_t)(GRAPH_ELEMS * (types[k] == PCLR_DOUBLE ? 8 : 4))) == CUDA_SUCCESS, "graph: upload");
        }
        if (replay == 0) {
            CUresult cr = D.BeginCapture(g->s1, CU_STREAM_CAPTURE_MODE_GLOBAL);
            pclr_result pr = PCLR_OK;
            ok &= CHECK(cr == CUDA_SUCCESS, "graph: begin capture (%d)", (int)cr);
            for (i = 0; ok && i < GRAPH_CALLS && pr == PCLR_OK; ++i) {
                k = i % 12;
                pr = pclr_cuda_reduce_async(g->ctx, &cfg[k], in[k / 3], off[i], n[i], out_graph + 8u * (unsigned)i, g->s1);
            }
            CHECK(pr == PCLR_OK, "graph: call %d captured: %s (%s)", i - 1, pclr_result_string(pr), pclr_cuda_last_error(g->ctx));
            cr = D.EndCapture(g->s1, &graph);
            ok &= CHECK(pr == PCLR_OK && cr == CUDA_SUCCESS && graph, "graph: end capture (%d)", (int)cr);
            ok &= ok && CHECK(D.GraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS, "graph: instantiate");
        }
        if (!ok) break;
        /* the same calls launched directly, for the bitwise comparison */
        for (i = 0; i < GRAPH_CALLS; ++i) {
            k = i % 12;
            if (pclr_cuda_reduce_async(g->ctx, &cfg[k], in[k / 3], off[i], n[i], out_direct + 8u * (unsigned)i, g->s2) != PCLR_OK) break;
        }
        ok &= CHECK(i == GRAPH_CALLS && D.StreamSynchronize(g->s2) == CUDA_SUCCESS, "graph: direct launches");
        ok &= CHECK(D.MemsetD32(out_graph, 0xa5a5a5a5u, GRAPH_CALLS * 2) == CUDA_SUCCESS && D.CtxSynchronize() == CUDA_SUCCESS, "graph: poison");
        ok &= CHECK(D.GraphLaunch(exec, g->s1) == CUDA_SUCCESS && D.StreamSynchronize(g->s1) == CUDA_SUCCESS, "graph: replay %d", replay);
        ok &= CHECK(D.DtoH(got, out_graph, GRAPH_CALLS * 8) == CUDA_SUCCESS && D.DtoH(direct, out_direct, GRAPH_CALLS * 8) == CUDA_SUCCESS,
                    "graph: read back");
        for (i = 0; ok && i < GRAPH_CALLS; ++i) {
            unsigned char ref[8];
            const size_t es = tsize(cfg[i % 12].type);
            k = i % 12;
            pclr_cpu_reduce(cfg[k].type, cfg[k].op, host[k / 3] + off[i] * es, n[i], ref);
            if (memcmp(got + 8 * i, ref, es) != 0 || memcmp(direct + 8 * i, ref, es) != 0) {
                char a[64], b[64], c[64];
                fmt_val(cfg[k].type, got + 8 * i, a, sizeof a);
                fmt_val(cfg[k].type, direct + 8 * i, b, sizeof b);
                fmt_val(cfg[k].type, ref, c, sizeof c);
                if (bad++ < 5)
                    CHECK(0, "graph replay %d, call %d (%s %s, n %llu, offset %llu): graph %s, direct %s, CPU %s", replay, i,
                          pclr_type_name(cfg[k].type), pclr_op_name(cfg[k].op), (unsigned long long)n[i], (unsigned long long)off[i], a, b, c);
            }
        }
        CHECK(bad == 0, "graph replay %d: all %d results equal the CPU reference and the direct launches (%d differ)", replay,
              GRAPH_CALLS, bad);
    }
    if (exec) D.GraphExecDestroy(exec);
    if (graph) D.GraphDestroy(graph);
    for (k = 0; k < 4; ++k) {
        if (in[k]) D.MemFree(in[k]);
        free(host[k]);
    }
    if (out_graph) D.MemFree(out_graph);
    if (out_direct) D.MemFree(out_direct);
    free(got);
    free(direct);
}

static void test_device(uint64_t seed) {
    gpu_env g;
    pclr_result r;
    CUdevice dev;
    CUcontext cur = NULL;
    double t0 = now_s();
    memset(&g, 0, sizeof g);
    r = pclr_cuda_create(NULL, &g.ctx);
    if (!CHECK(r == PCLR_OK, "create: %s", pclr_cuda_last_error(g.ctx))) { pclr_cuda_destroy(g.ctx); return; }
    g.feat = pclr_cuda_get_features(g.ctx);
    if (!CHECK(load_test_driver(), "the test loads libcuda itself") || D.Init(0) != CUDA_SUCCESS || D.DeviceGet(&dev, 0) != CUDA_SUCCESS ||
        D.PrimaryRetain(&g.primary, dev) != CUDA_SUCCESS || D.CtxPush(g.primary) != CUDA_SUCCESS) {
        CHECK(0, "test driver setup");
        pclr_cuda_destroy(g.ctx);
        return;
    }
    g.host = (unsigned char *)malloc((size_t)((MAXN + PAD) * 8));
    if (!CHECK(g.host != NULL, "host buffer") ||
        !CHECK(D.MemAlloc(&g.dbuf, (size_t)((MAXN + PAD) * 8)) == CUDA_SUCCESS && D.MemAlloc(&g.dout, 64 * 8) == CUDA_SUCCESS &&
                   D.StreamCreate(&g.s1, 1 /* non-blocking */) == CUDA_SUCCESS && D.StreamCreate(&g.s2, 1) == CUDA_SUCCESS,
               "device buffers and streams")) {
        free(g.host);
        pclr_cuda_destroy(g.ctx);
        return;
    }
    test_features(&g);
    test_matrix(&g, seed);
    test_latency(&g);
    test_graph(&g, seed);
    test_repeat_and_cache(&g, seed);
    test_words_back_to_back(&g, seed);
    test_streams_and_contexts(&g, seed);
    test_nan(&g, seed);
    test_wrap(&g);
    test_generic_buffers(&g);
    test_float_error(&g, seed);
    test_errors(&g);
    test_allocator(&g);
    test_big(&g);
    test_disk_cache_and_tune(&g, seed);
    D.CtxGetCurrent(&cur);
    CHECK(cur == g.primary, "the test's context is still current at the end");
    CHECK(D.CtxSynchronize() == CUDA_SUCCESS, "no sticky device error at the end");
    pclr_cuda_destroy(g.ctx);
    D.StreamDestroy(g.s1);
    D.StreamDestroy(g.s2);
    D.MemFree(g.dbuf);
    D.MemFree(g.dout);
    D.CtxPop(&cur);
    D.PrimaryRelease(dev);
    free(g.host);
    printf("device part: %.1f s\n", now_s() - t0);
}

int main(void) {
    const char *env = getenv("PCLR_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    int have_nvrtc, have_device;
    double t0 = now_s();
    g_quick = env_int("PCLR_TEST_QUICK", 0);
    g_verbose = env_int("PCLR_TEST_VERBOSE", 0);
    g_maxn = (uint64_t)env_int("PCLR_TEST_MAXN", 0);
    printf("test_cuda: seed %llu%s\n", (unsigned long long)seed, g_quick ? " (quick)" : "");
    test_null_handling();
    have_device = test_create_paths();
    test_device_numbers();
    pin_nvrtc();
    if (env_int("PCLR_TEST_DEVICE_ONLY", 0)) { /* the compile matrix runs in CI; on a GPU machine, save the time */
        SKIP("PCLR_TEST_DEVICE_ONLY=1: NVRTC compile matrix skipped");
    } else {
        have_nvrtc = test_nvrtc_matrix();
        test_compile_refusals(have_nvrtc);
    }
    printf("part 1 (no device needed): %.1f s\n", now_s() - t0);
    if (have_device) test_device(seed);
    else SKIP("no CUDA device: the launch tests need a GPU (run on a machine with the NVIDIA driver)");
    return pclr_test_summary("test_cuda");
}
