/* libFuzzer harness: bytes -> a pclr_config with arbitrary (also invalid)
   field values -> pclr_config_resolve, pclr_config_describe,
   pclr_kernel_source / pclr_kernel_options (size query, exact buffer,
   too-small buffers), pclr_plan. Invariants (abort on violation):
     resolve OK <=> source OK <=> options OK (same error code otherwise);
     size query == strlen + 1; the text starts with "/ * pclreduce";
     resolve is idempotent and the source of cfg equals that of resolve(cfg);
     too-small buffers give PCLR_ERR_BUFFER_TOO_SMALL, an empty string and no
     write past cap (ASan: the buffers are malloc'ed to exactly cap bytes).
   Input layout: 11 selector bytes, one per field (type op dialect wave group
   unroll vector stride variant finish groups_per_unit): s < 0xf0 picks
   table[s % size] (valid values plus near misses), s >= 0xf0 takes the next
   4 bytes as a raw int. Then 2 bytes small cap, 2+2 bytes device facts
   (compute units, max group), 8 bytes n for pclr_plan, then one selector
   byte for the accumulator, one for a histogram's bins and one of its flags (clamp, weighted, float y)
   (inputs that end earlier: the defaults).
   Modes (environment, read once):
     PCLR_FUZZ_DUMP=dir  write every valid config's source to dir/<hash>.cl
                         (OpenCL) or dir/<hash>.cu (CUDA), its compiler
                         options to .opts and the config to .cfg (12 ints),
                         for tests/fuzz/compile_corpus.sh.
   Build with -DPCLR_FUZZ_COMPILE_CHECK (and -lOpenCL) to also build every
   valid OpenCL source with the first OpenCL device inside the loop (slow:
   off by default). */
#define PCLREDUCE_IMPLEMENTATION
#ifdef PCLR_FUZZ_COMPILE_CHECK
#define PCLREDUCE_OPENCL
#endif
#include "pclreduce.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            fprintf(stderr, "fuzz_generator: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

typedef struct reader { const uint8_t *p; size_t n; } reader;
static unsigned rd_u8(reader *r) {
    if (!r->n) return 0;
    --r->n;
    return *r->p++;
}
static uint64_t rd_bytes(reader *r, int k) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < k; ++i) v |= (uint64_t)rd_u8(r) << (8 * i);
    return v;
}
static int rd_field(reader *r, const int *table, int size) {
    unsigned s = rd_u8(r);
    if (s >= 0xf0) return (int)(uint32_t)rd_bytes(r, 4);
    return table[s % (unsigned)size];
}
#define FIELD(r, t) rd_field(r, t, (int)(sizeof t / sizeof t[0]))

static const int t_type[] = {0, 1, 2, 3, 4, 5, -1};
static const int t_op[] = {0, 1, 2, 3, 4, -1, (int)PCLR_HISTOGRAM};
static const int t_dialect[] = {0, 1, 2, 3};
static const int t_wave[] = {0, 32, 64, 16, 128, -32};
static const int t_group[] = {0, 32, 64, 128, 256, 512, 1024, 2048, 16, 100, -256};
static const int t_unroll[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 3, -1};
static const int t_vector[] = {0, 1, 2, 4, 3, 8, -1};
static const int t_stride[] = {0, 1, 2, 3};
static const int t_variant[] = {0, 1, 2, 3, 4, 5, 6};
static const int t_finish[] = {0, 1, 2, 3, 4};
static const int t_gpu[] = {0, 1, 2, 8, 64, 65, -1};
static const int t_acc[] = {0, 1, 2, 3, 4, 5, -1};
static const int t_bins[] = {0, 1, 7, 256, 257, 4001, 65536, 65537};

static const char *g_dump;

#ifdef PCLR_FUZZ_COMPILE_CHECK
static void compile_check(const pclr_config *c, const char *src, const char *opts) {
    static cl_context ctx;
    static cl_device_id dev;
    cl_int err;
    cl_program prog;
    if (c->backend != PCLR_OPENCL) return;
    if (!ctx) {
        cl_platform_id plat;
        cl_uint n = 0;
        if (clGetPlatformIDs(1, &plat, &n) != CL_SUCCESS || !n) return;
        if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, &n) != CL_SUCCESS || !n) return;
        ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        if (err != CL_SUCCESS) { ctx = NULL; return; }
    }
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    /* shuffle (NVIDIA PTX), collective (OpenCL 2.0) and double may be refused by the device */
    if (c->variant != PCLR_VARIANT_SHUFFLE && c->variant != PCLR_VARIANT_COLLECTIVE && c->type != PCLR_DOUBLE)
        REQUIRE(err == CL_SUCCESS);
    clReleaseProgram(prog);
}
#endif

static void dump(const pclr_config *c, const char *src, const char *opts) {
    char path[4096];
    uint64_t h = pclr_hash64(src, strlen(src), PCLR_HASH_SEED);
    FILE *f;
    h = pclr_hash64(opts, strlen(opts), h);
    snprintf(path, sizeof path, "%s/%016llx.%s", g_dump, (unsigned long long)h, c->backend == PCLR_CUDA ? "cu" : "cl");
    if ((f = fopen(path, "w"))) { fputs(src, f); fclose(f); }
    snprintf(path, sizeof path, "%s/%016llx.opts", g_dump, (unsigned long long)h);
    if ((f = fopen(path, "w"))) { fputs(opts, f); fclose(f); }
    snprintf(path, sizeof path, "%s/%016llx.cfg", g_dump, (unsigned long long)h);
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%d %d %d %d %d %d %d %d %d %d %d %d\n", (int)c->type, (int)c->op, (int)c->backend, c->wave_width,
                c->group_size, c->unroll, c->vector_width, (int)c->stride, (int)c->variant, (int)c->finish,
                c->groups_per_unit, (int)c->accumulate);
        fclose(f);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    g_dump = getenv("PCLR_FUZZ_DUMP");
    if (g_dump && !*g_dump) g_dump = NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader rd;
    pclr_config cfg, res, res2;
    pclr_device_facts dev;
    pclr_launch plan;
    const char *why = (const char *)1;
    pclr_result r, rs, ro;
    size_t dlen, need = 123, oneed = 123, small, cap;
    char *src, *src2, *opts, *buf;
    uint64_t n;
    rd.p = data;
    rd.n = size;
    memset(&cfg, 0, sizeof cfg);
    cfg.type = (pclr_type)FIELD(&rd, t_type);
    cfg.op = (pclr_op)FIELD(&rd, t_op);
    cfg.backend = (pclr_backend)FIELD(&rd, t_dialect);
    cfg.wave_width = FIELD(&rd, t_wave);
    cfg.group_size = FIELD(&rd, t_group);
    cfg.unroll = FIELD(&rd, t_unroll);
    cfg.vector_width = FIELD(&rd, t_vector);
    cfg.stride = (pclr_stride)FIELD(&rd, t_stride);
    cfg.variant = (pclr_variant)FIELD(&rd, t_variant);
    cfg.finish = (pclr_finish)FIELD(&rd, t_finish);
    cfg.groups_per_unit = FIELD(&rd, t_gpu);
    small = (size_t)rd_bytes(&rd, 2);
    dev.compute_units = (uint32_t)rd_bytes(&rd, 2);
    dev.max_group_size = (uint32_t)rd_bytes(&rd, 2);
    n = rd_bytes(&rd, 8);
    cfg.accumulate = (pclr_accumulate)FIELD(&rd, t_acc);
    { /* a histogram's: bins, then a byte of clamp (bit 0), weighted (bit 1) and float weights y (bit 2) */
        unsigned h;
        cfg.bins = (uint32_t)FIELD(&rd, t_bins);
        h = rd_u8(&rd);
        cfg.clamp = (int)(h & 1u);
        cfg.weighted = (int)(h >> 1 & 1u);
        if (h & 4u) cfg.y_type = PCLR_FLOAT;
    }

    /* describe works on anything, resolved or not */
    dlen = pclr_config_describe(&cfg, NULL, 0);
    REQUIRE(dlen > 0);
    buf = (char *)malloc(dlen + 1);
    REQUIRE(buf);
    REQUIRE(pclr_config_describe(&cfg, buf, dlen + 1) == dlen && strlen(buf) == dlen);
    free(buf);
    cap = small % (dlen + 1);
    if (cap) {
        buf = (char *)malloc(cap);
        REQUIRE(buf);
        REQUIRE(pclr_config_describe(&cfg, buf, cap) == dlen && strlen(buf) == cap - 1);
        free(buf);
    }

    r = pclr_config_resolve(&cfg, &res, &why);
    REQUIRE((r == PCLR_OK) == (why == NULL));
    REQUIRE(r == PCLR_OK || (why[0] != '\0' && r > PCLR_OK && r < PCLR_RESULT_COUNT_));
    rs = pclr_kernel_source(&cfg, NULL, 0, &need);
    ro = pclr_kernel_options(&cfg, NULL, 0, &oneed);
    REQUIRE(rs == r && ro == r);
    if (r != PCLR_OK) {
        REQUIRE(need == 0 && oneed == 0);
        return 0;
    }
    /* a resolved config is a fixed point, with every field in range */
    REQUIRE(pclr_config_resolve(&res, &res2, NULL) == PCLR_OK && memcmp(&res, &res2, sizeof res) == 0);
    REQUIRE(res.type > PCLR_TYPE_DEFAULT && res.type < PCLR_TYPE_COUNT_);
    REQUIRE(res.op > PCLR_OP_DEFAULT && res.op < PCLR_OP_COUNT_);
    REQUIRE(res.backend > PCLR_BACKEND_DEFAULT && res.backend < PCLR_BACKEND_COUNT_);
    REQUIRE(res.stride > PCLR_STRIDE_DEFAULT && res.stride < PCLR_STRIDE_COUNT_);
    REQUIRE(res.variant > PCLR_VARIANT_DEFAULT && res.variant < PCLR_VARIANT_COUNT_);
    REQUIRE(res.finish > PCLR_FINISH_DEFAULT && res.finish < PCLR_FINISH_COUNT_);
    REQUIRE(res.group_size >= 32 && res.group_size <= 1024 && res.unroll >= 1 && res.unroll <= 128);
    REQUIRE(res.groups_per_unit >= 1 && res.groups_per_unit <= 64);

    REQUIRE(need > 1 && oneed >= 1);
    src = (char *)malloc(need);
    src2 = (char *)malloc(need);
    opts = (char *)malloc(oneed);
    REQUIRE(src && src2 && opts);
    REQUIRE(pclr_kernel_source(&cfg, src, need, NULL) == PCLR_OK);
    REQUIRE(strlen(src) + 1 == need);
    REQUIRE(strncmp(src, "/* pclreduce", 12) == 0);
    REQUIRE(strstr(src, res.backend == PCLR_VULKAN ? "void main()" : PCLR_KERNEL_NAME) != NULL); /* GLSL's entry is main */
    REQUIRE(pclr_kernel_source(&res, src2, need, NULL) == PCLR_OK && strcmp(src, src2) == 0);
    REQUIRE(pclr_kernel_options(&cfg, opts, oneed, NULL) == PCLR_OK && strlen(opts) + 1 == oneed);
    REQUIRE(strcmp(opts, res.variant == PCLR_VARIANT_COLLECTIVE ? "-cl-std=CL2.0"
                         : res.op == PCLR_HISTOGRAM && res.backend == PCLR_CUDA ? "--fmad=false" /* (its value is a map's) */
                         : "") == 0);
    free(src2);

    /* too small: one byte short, and a fuzzed cap */
    buf = (char *)malloc(need - 1);
    REQUIRE(buf);
    REQUIRE(pclr_kernel_source(&cfg, buf, need - 1, NULL) == PCLR_ERR_BUFFER_TOO_SMALL && buf[0] == '\0');
    free(buf);
    cap = small % need;
    buf = (char *)malloc(cap ? cap : 1);
    REQUIRE(buf);
    buf[0] = 'x';
    REQUIRE(pclr_kernel_source(&cfg, buf, cap, &need) == PCLR_ERR_BUFFER_TOO_SMALL);
    REQUIRE(cap ? buf[0] == '\0' : buf[0] == 'x');
    REQUIRE(need == strlen(src) + 1);
    if (oneed > 1) {
        REQUIRE(pclr_kernel_options(&cfg, buf, cap % oneed, NULL) == PCLR_ERR_BUFFER_TOO_SMALL);
    }
    free(buf);

    /* the planner on fuzzed device facts */
    if (pclr_plan(&res, &dev, n, &plan) == PCLR_OK) {
        /* (exact sums and histograms: a group takes at most 2^29 elements, however many groups that needs) */
        const int bounded = res.accumulate == PCLR_EXACT || res.op == PCLR_HISTOGRAM;
        const uint64_t exact_groups = bounded ? (n >> 29) + ((n & ((1u << 29) - 1)) != 0) : 0;
        REQUIRE(plan.groups >= 1 && (plan.groups <= pclr_max_groups(&res, &dev) || plan.groups == exact_groups));
        REQUIRE(plan.group_size == (uint32_t)res.group_size);
    } else {
        REQUIRE(dev.max_group_size && (uint32_t)res.group_size > dev.max_group_size);
    }

#ifdef PCLR_FUZZ_COMPILE_CHECK
    compile_check(&res, src, opts);
#endif
    if (g_dump) dump(&res, src, opts);
    free(src);
    free(opts);
    return 0;
}
