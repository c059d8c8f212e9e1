/* The OpenCL backend's disk cache and tuner on a real device (PoCL in CI):
   cold and warm contexts, corrupted, truncated and foreign cache files, two
   processes filling one cache directory at once, and pclr_cl_tune's entries
   applied, saved and loaded by the next context. Results are checked against
   pclr_cpu_reduce throughout. PCLR_CL_PLATFORM / PCLR_CL_DEVICE pick the
   device (default: the best one). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, fork, clock_gettime */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "../pclreduce.h"
#include "pclr_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 100003

static char g_dir[] = "/tmp/pclr_cl_cacheXXXXXX";
static char g_tune[600];
static uint64_t g_seed;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static pclr_cl_context *open_ctx(void) {
    pclr_cl_desc d;
    pclr_cl_context *ctx = NULL;
    char why[512] = "";
    memset(&d, 0, sizeof d);
    d.cache_dir = g_dir;
    d.tune_file = g_tune;
    d.error = why;
    d.error_cap = sizeof why;
    if (pclr_cl_create_default_desc(&d, env_int("PCLR_CL_PLATFORM", -1), env_int("PCLR_CL_DEVICE", -1), &ctx) != PCLR_OK)
        CHECK(0, "create: %s", why);
    return ctx;
}

static void counts(pclr_cl_context *ctx, unsigned long *loaded, unsigned long *stored, unsigned long *tuned) {
    char text[4096];
    const char *p;
    *loaded = *stored = *tuned = 0;
    pclr_cl_describe(ctx, text, sizeof text);
    if ((p = strstr(text, "disk cache: ")) && (p = strchr(p, '('))) sscanf(p, "(%lu loaded, %lu stored)", loaded, stored);
    if ((p = strstr(text, "tuned: "))) sscanf(p, "tuned: %lu entries", tuned);
}

/* Reduces n random elements of type/op (defaults otherwise) and compares with the CPU. */
static int reduce_ok(pclr_cl_context *ctx, pclr_type type, pclr_op op, uint64_t n, uint64_t seed) {
    const pclr_cl_api *cl = pclr_cl_get_api(ctx);
    const size_t es = pclr_type_size(type);
    unsigned char *host = (unsigned char *)malloc(n * es + 8), got[8], want[8];
    uint64_t st = seed, i;
    pclr_config c;
    cl_mem buf;
    cl_int err = CL_SUCCESS;
    int ok;
    if (!host) return 0;
    for (i = 0; i < n; ++i) {
        const uint64_t z = pclr_test_rand(&st);
        if (type == PCLR_FLOAT) ((float *)host)[i] = (float)(z % 2001) / 1000.0f - 1.0f;
        else if (type == PCLR_DOUBLE) ((double *)host)[i] = (double)(z % 200001) / 100000.0 - 1.0;
        else ((uint32_t *)host)[i] = (uint32_t)z;
    }
    buf = cl->CreateBuffer(pclr_cl_get_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * es, host, &err);
    memset(&c, 0, sizeof c);
    c.type = type;
    c.op = op;
    pclr_cpu_reduce(type, op, host, n, want);
    ok = err == CL_SUCCESS && pclr_cl_reduce(ctx, &c, buf, 0, n, got) == PCLR_OK;
    if (ok && op == PCLR_SUM && type == PCLR_FLOAT) ok = fabs(*(float *)got - *(float *)want) <= 1e-3 * (1 + fabs(*(float *)want));
    else if (ok && op == PCLR_SUM && type == PCLR_DOUBLE) ok = fabs(*(double *)got - *(double *)want) <= 1e-9 * (1 + fabs(*(double *)want));
    else if (ok) ok = memcmp(got, want, es) == 0;
    if (buf) cl->ReleaseMemObject(buf);
    free(host);
    if (!ok) printf("  %s %s n=%llu: %s\n", pclr_type_name(type), pclr_op_name(op), (unsigned long long)n, pclr_cl_last_error(ctx));
    return ok;
}

/* Runs cmd on every cache file; returns how many files there were. */
static int for_each_file(const char *what, void (*fn)(const char *path)) {
    DIR *d = opendir(g_dir);
    struct dirent *e;
    char path[1024];
    int count = 0;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".bin")) continue;
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        if (fn) fn(path);
        ++count;
    }
    closedir(d);
    (void)what;
    return count;
}

static void scramble(const char *path) {
    FILE *f = fopen(path, "r+b");
    uint64_t st = g_seed ^ 0x5eed;
    int i;
    if (!f) return;
    for (i = 0; i < 4096; ++i) fputc((int)(pclr_test_rand(&st) & 0xff), f);
    fclose(f);
}

static void truncate_half(const char *path) {
    FILE *f = fopen(path, "rb");
    long size;
    char *buf;
    if (!f) return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    buf = (char *)malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        fclose(f);
        if ((f = fopen(path, "wb")) != NULL) fwrite(buf, 1, (size_t)size / 2, f);
    }
    if (f) fclose(f);
    free(buf);
}

static void remove_file(const char *path) { remove(path); }

/* One context: the float sum is right and the disk counters say what was expected. */
static void expect(const char *label, unsigned long want_loaded, unsigned long want_stored) {
    unsigned long loaded, stored, tuned;
    double t0 = now_s();
    pclr_cl_context *ctx = open_ctx();
    if (!ctx) return;
    CHECK(reduce_ok(ctx, PCLR_FLOAT, PCLR_SUM, N, g_seed), "%s: float sum correct", label);
    printf("%s: context to first result %.1f ms\n", label, (now_s() - t0) * 1e3);
    counts(ctx, &loaded, &stored, &tuned);
    CHECK(loaded == want_loaded && stored == want_stored, "%s: %lu loaded, %lu stored (want %lu, %lu)", label, loaded,
          stored, want_loaded, want_stored);
    pclr_cl_destroy(ctx);
}

static void test_cold_warm_corrupt(void) {
    pclr_cl_context *ctx;
    int files;
    expect("cold", 0, 1);
    expect("warm", 1, 0);
    CHECK(for_each_file("scramble", scramble) == 1, "one cache file");
    expect("random bytes", 0, 1);
    for_each_file("truncate", truncate_half);
    expect("truncated", 0, 1);
    /* a foreign file: the uint max program's file copied over the float sum's name */
    if ((ctx = open_ctx()) != NULL) {
        CHECK(reduce_ok(ctx, PCLR_UINT, PCLR_MAX, N, g_seed + 1), "uint max");
        pclr_cl_destroy(ctx);
    }
    files = for_each_file("count", NULL);
    CHECK(files == 2, "two cache files (%d)", files);
    {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "cd %s && a=$(ls -t *.bin | head -1) && b=$(ls -t *.bin | tail -1) && [ \"$a\" != \"$b\" ] && cp \"$a\" \"$b\"",
                 g_dir);
        CHECK(system(cmd) == 0, "copy one cache file over the other");
    }
    /* whichever name was overwritten, both programs load or rebuild correctly */
    if ((ctx = open_ctx()) != NULL) {
        unsigned long loaded, stored, tuned;
        CHECK(reduce_ok(ctx, PCLR_FLOAT, PCLR_SUM, N, g_seed) && reduce_ok(ctx, PCLR_UINT, PCLR_MAX, N, g_seed + 1),
              "foreign file: both reductions correct");
        counts(ctx, &loaded, &stored, &tuned);
        CHECK(loaded == 1 && stored == 1, "foreign file: 1 loaded, 1 rebuilt and stored (%lu, %lu)", loaded, stored);
        pclr_cl_destroy(ctx);
    }
    for_each_file("clear", remove_file);
}

/* A cache directory others may write into (the old umask-000 result) is not
   used: describe says why, once; reduces still work, nothing is written. */
static void test_untrusted_dir(void) {
    pclr_cl_context *ctx;
    char text[4096];
    int files = for_each_file("count", NULL);
    chmod(g_dir, 0777);
    if ((ctx = open_ctx()) != NULL) {
        unsigned long loaded, stored, tuned;
        const char *line, *want = "disk cache: off (the cache directory is writable by group or others: ";
        pclr_cl_describe(ctx, text, sizeof text);
        line = strstr(text, "disk cache: ");
        CHECK(line && strncmp(line, want, strlen(want)) == 0,
              "describe says why the disk cache is off: %.120s", line ? line : "(no line)");
        CHECK(reduce_ok(ctx, PCLR_FLOAT, PCLR_SUM, N, g_seed) && reduce_ok(ctx, PCLR_INT, PCLR_MIN, 999, g_seed + 3),
              "reduces work uncached");
        counts(ctx, &loaded, &stored, &tuned);
        CHECK(loaded == 0 && stored == 0 && for_each_file("count", NULL) == files, "nothing loaded or stored (%lu, %lu)", loaded, stored);
        pclr_cl_destroy(ctx);
    }
    chmod(g_dir, 0700);
    expect("private again", 1, 0);
}

/* A child process (exec'd: the parent's OpenCL threads do not survive a
   plain fork): every type/op into the shared cache. Exit status 0 = all correct. */
static int child_main(void) {
    int bad = 0, t, o;
    pclr_cl_context *ctx = open_ctx();
    if (!ctx) return 3;
    for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t)
        for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
            if ((t != PCLR_DOUBLE || pclr_cl_get_features(ctx)->fp64) &&
                !reduce_ok(ctx, (pclr_type)t, (pclr_op)o, 4099, g_seed + (uint64_t)(t * 3 + o)))
                bad = 1;
    pclr_cl_destroy(ctx);
    return bad;
}

/* Two processes fill the empty cache with every type/op at once; then this
   one finds every program on disk. */
static void test_two_processes(const char *self) {
    pid_t kids[2];
    int i, status, ok = 1, t, o;
    unsigned long loaded, stored, tuned;
    pclr_cl_context *ctx;
    DIR *d;
    struct dirent *e;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)g_seed);
    fflush(stdout);
    for (i = 0; i < 2; ++i) {
        kids[i] = fork();
        if (kids[i] == 0) {
            execl(self, self, "--child", g_dir, seed, (char *)NULL);
            _exit(127);
        }
    }
    for (i = 0; i < 2; ++i) ok &= kids[i] > 0 && waitpid(kids[i], &status, 0) == kids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    CHECK(ok, "two processes filling one cache directory: all results correct");
    if ((ctx = open_ctx()) != NULL) {
        const int types = pclr_cl_get_features(ctx)->fp64 ? 4 : 3;
        for (t = PCLR_UINT; t < PCLR_UINT + types; ++t)
            for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
                CHECK(reduce_ok(ctx, (pclr_type)t, (pclr_op)o, 4099, g_seed + (uint64_t)(t * 3 + o)), "after: %s %s",
                      pclr_type_name((pclr_type)t), pclr_op_name((pclr_op)o));
        counts(ctx, &loaded, &stored, &tuned);
        CHECK(loaded == (unsigned long)types * 3 && stored == 0, "a third process loads all %d programs (%lu loaded, %lu stored)",
              types * 3, loaded, stored);
        pclr_cl_destroy(ctx);
    }
    if ((d = opendir(g_dir)) != NULL) {
        int temps = 0;
        while ((e = readdir(d)) != NULL) temps += strstr(e->d_name, ".tmp") != NULL;
        closedir(d);
        CHECK(temps == 0, "no temporary files left (%d)", temps);
    }
}

static void test_tune(void) {
    pclr_tune_entry found[PCLR_TUNE_CLASSES];
    pclr_tune_options opt;
    size_t count = 0, i;
    unsigned long loaded, stored, tuned;
    pclr_cl_context *ctx = open_ctx();
    double t0;
    if (!ctx) return;
    memset(&opt, 0, sizeof opt);
    opt.max_n = (uint64_t)1 << 12; /* class 2^12 only: each candidate is a PoCL build (~0.5 s) */
    t0 = now_s();
    CHECK(pclr_cl_tune(ctx, PCLR_INT, PCLR_MAX, &opt, found, PCLR_TUNE_CLASSES, &count) == PCLR_OK && count == 1,
          "tune int max: %zu classes: %s", count, pclr_cl_last_error(ctx));
    printf("tune int max, class 2^12: %.1f s\n", now_s() - t0);
    for (i = 0; i < count; ++i) {
        char line[1024];
        pclr_tune_format(&found[i], line, sizeof line);
        printf("  %s", line);
        CHECK(found[i].gbps > 0 && found[i].type == PCLR_INT && found[i].op == PCLR_MAX &&
                  strcmp(found[i].device, pclr_cl_get_features(ctx)->device_name) == 0,
              "tuned entry %zu", i);
    }
    counts(ctx, &loaded, &stored, &tuned);
    CHECK(tuned == count, "the context holds the tuned entries (%lu)", tuned);
    for (i = 0; i < 5; ++i) {
        const uint64_t n = i == 0 ? 1 : i == 1 ? 4097 : i == 2 ? 16411 : i == 3 ? 3 : 70001;
        CHECK(reduce_ok(ctx, PCLR_INT, PCLR_MAX, n, g_seed + 40 + i), "tuned int max n=%llu", (unsigned long long)n);
    }
    CHECK(pclr_tune_save(g_tune, found, count) == PCLR_OK, "save %s", g_tune);
    pclr_cl_destroy(ctx);
    if ((ctx = open_ctx()) != NULL) {
        counts(ctx, &loaded, &stored, &tuned);
        CHECK(tuned == count, "the next context loads %zu tuned entries (%lu)", count, tuned);
        CHECK(reduce_ok(ctx, PCLR_INT, PCLR_MAX, 5000, g_seed + 50), "loaded tuning: int max correct");
        pclr_cl_destroy(ctx);
    }
}

/* A tuning line for this device that names a variant it cannot run (or a
   group above its limit) is skipped when loaded: default reduces still work. */
static void test_unrunnable_entry(void) {
    pclr_cl_context *ctx = open_ctx();
    pclr_tune_entry e;
    char text[4096];
    unsigned long loaded, stored, tuned;
    if (!ctx) return;
    memset(&e, 0, sizeof e);
    strcpy(e.device, pclr_cl_get_features(ctx)->device_name);
    strcpy(e.driver, pclr_cl_get_features(ctx)->driver_version);
    e.backend = PCLR_OPENCL;
    e.type = PCLR_FLOAT;
    e.op = PCLR_SUM;
    e.size_class = 16;
    e.cfg.variant = PCLR_VARIANT_SHUFFLE; /* inline PTX: NVIDIA's OpenCL only */
    if (pclr_cl_get_features(ctx)->nvidia) {
        SKIP("NVIDIA's OpenCL runs every variant: no unrunnable tuning entry to write");
        pclr_cl_destroy(ctx);
        return;
    }
    pclr_cl_destroy(ctx);
    CHECK(pclr_tune_save(g_tune, &e, 1) == PCLR_OK, "save an entry the device cannot run");
    if (!(ctx = open_ctx())) return;
    counts(ctx, &loaded, &stored, &tuned);
    pclr_cl_describe(ctx, text, sizeof text);
    CHECK(strstr(text, "(1 skipped") != NULL, "describe counts the skipped entry: %.300s", strstr(text, "tuned:"));
    CHECK(reduce_ok(ctx, PCLR_FLOAT, PCLR_SUM, 30000, g_seed + 60), "a default float sum in the skipped class still works: %s",
          pclr_cl_last_error(ctx));
    pclr_cl_destroy(ctx);
    remove(g_tune);
}

int main(int argc, char **argv) {
    char cmd[700];
    const char *env = getenv("PCLR_TEST_SEED");
    if (argc == 4 && strcmp(argv[1], "--child") == 0 && strlen(argv[2]) < sizeof g_dir) {
        strcpy(g_dir, argv[2]);
        snprintf(g_tune, sizeof g_tune, "%s/tuning.txt", g_dir);
        g_seed = strtoull(argv[3], NULL, 10);
        return child_main();
    }
    g_seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("test_cl_cache: seed %llu\n", (unsigned long long)g_seed);
    if (!mkdtemp(g_dir)) {
        CHECK(0, "mkdtemp");
        return pclr_test_summary("test_cl_cache");
    }
    snprintf(g_tune, sizeof g_tune, "%s/tuning.txt", g_dir);
    /* first, while this process has not loaded OpenCL: children exec'd by a
       process that holds NVIDIA's OpenCL runtime did not find its platform */
    test_two_processes(argv[0]);
    for_each_file("clear", remove_file);
    test_cold_warm_corrupt();
    expect("cold again", 0, 1);
    test_untrusted_dir();
    test_tune();
    test_unrunnable_entry();
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0, "remove %s", g_dir);
    return pclr_test_summary("test_cl_cache");
}
