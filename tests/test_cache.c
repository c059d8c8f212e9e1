/* Unit tests of the kernel cache and the tuning file (pclreduce.h, core
   only): round trips, every kind of bad cache file (absent, truncated,
   random, flipped, foreign, absurd size), two processes of several threads
   filling one directory at once, and the tuning file's format, merge, filter
   and lookup. POSIX (fork, threads, mkdtemp); works in a fresh temp dir. */
#define _XOPEN_SOURCE 700
#define PCLREDUCE_IMPLEMENTATION
#include "../pclreduce.h"
#include "pclr_test.h"

#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char g_root[64]; /* the test's temp dir */
static uint64_t g_rng;

/* ---------------------------------------------------------------- helpers */
static char *path_in(char *buf, size_t cap, const char *dir, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}
static char *cache_file(char *buf, size_t cap, const char *dir, const char *identity) {
    snprintf(buf, cap, "%s/%016llx.bin", dir, (unsigned long long)pclr_hash64(identity, strlen(identity), PCLR_HASH_SEED));
    return buf;
}
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long n;
    *len = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (p = (unsigned char *)malloc((size_t)n + 1)))
        *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    if (p) p[*len] = 0;
    return p;
}
static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f) ok = fclose(f) == 0 && ok;
    return ok;
}
static void fill_random(unsigned char *p, size_t n, uint64_t *rng) {
    size_t i;
    for (i = 0; i < n; ++i) p[i] = (unsigned char)pclr_test_rand(rng);
}
/* Files in dir whose name ends in suffix. */
static int count_files(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    size_t ls = strlen(suffix);
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] != '.' && l >= ls && strcmp(e->d_name + l - ls, suffix) == 0) ++n;
    }
    closedir(d);
    return n;
}
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}
static void remove_tree(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* Counting allocator: load must allocate exactly what it hands back. */
typedef struct counting { int allocs, frees, fail; } counting;
static void *count_alloc(size_t size, void *user) {
    counting *c = (counting *)user;
    if (c->fail) return NULL;
    ++c->allocs;
    return malloc(size);
}
static void count_free(void *p, void *user) {
    ++((counting *)user)->frees;
    free(p);
}

/* 1 when load misses with a reason; frees a wrong hit. */
static int misses(const char *dir, const char *identity, const char **why) {
    void *data = NULL;
    size_t size = 0;
    int hit = pclr_cache_load(dir, identity, strlen(identity), NULL, &data, &size, why);
    free(data);
    if (hit || !*why) *why = "(unexpected hit)";
    return !hit && data == NULL && size == 0;
}

/* ---------------------------------------------------------------- cache */
static void test_round_trip(const char *dir) {
    size_t sizes[8] = {0, 1, 2, 47, 4096, 0, 0, (1u << 20) + 13};
    unsigned char *payload = (unsigned char *)malloc(sizes[7]);
    char identity[128];
    size_t i;
    sizes[5] = 1 + (size_t)(pclr_test_rand(&g_rng) % 65536);
    sizes[6] = 1 + (size_t)(pclr_test_rand(&g_rng) % (1u << 20));
    for (i = 0; i < 8; ++i) {
        counting c = {0, 0, 0};
        pclr_allocator a;
        void *data = NULL;
        size_t size = 99;
        const char *why = "unset";
        a.alloc = count_alloc; a.free = count_free; a.user = &c;
        fill_random(payload, sizes[i], &g_rng);
        snprintf(identity, sizeof identity, "round trip %u source\noptions -DX\ndevice Fake GPU\ndriver 1.%u", (unsigned)i, (unsigned)i);
        CHECK(misses(dir, identity, &why) && strcmp(why, "no cache file") == 0, "size %zu: miss before store (%s)", sizes[i], why);
        CHECK(pclr_cache_store(dir, identity, strlen(identity), sizes[i] ? payload : NULL, sizes[i]) == PCLR_OK, "store %zu bytes", sizes[i]);
        CHECK(pclr_cache_load(dir, identity, strlen(identity), &a, &data, &size, &why) == 1 && why == NULL, "size %zu: hit", sizes[i]);
        CHECK(data && size == sizes[i] && memcmp(data, payload, size) == 0, "size %zu: same bytes back", sizes[i]);
        CHECK(c.allocs == 1, "size %zu: one allocation through the caller's allocator", sizes[i]);
        if (data) count_free(data, &c);
        /* a second store of other bytes under the same identity replaces the file */
        fill_random(payload, sizes[i], &g_rng);
        CHECK(pclr_cache_store(dir, identity, strlen(identity), payload, sizes[i]) == PCLR_OK, "store again");
        CHECK(pclr_cache_load(dir, identity, strlen(identity), NULL, &data, &size, NULL) == 1 && size == sizes[i] &&
              memcmp(data, payload, size) == 0, "size %zu: the newer bytes win", sizes[i]);
        free(data);
    }
    {
        counting c = {0, 0, 1};
        pclr_allocator a;
        void *data = NULL;
        size_t size = 0;
        const char *why = NULL;
        a.alloc = count_alloc; a.free = count_free; a.user = &c;
        CHECK(pclr_cache_load(dir, identity, strlen(identity), &a, &data, &size, &why) == 0 && data == NULL && why &&
              strstr(why, "memory"), "allocation failure is a miss (%s)", why ? why : "");
    }
    free(payload);
    CHECK(count_files(dir, ".tmp") == 0, "no temporary files left");
}

static void test_bad_files(const char *dir) {
    const char *id = "kernel A\noptions\ndevice Fake GPU 1\ndriver 1.0";
    const char *other = "kernel A\noptions\ndevice Fake GPU 2\ndriver 1.0"; /* same kernel, another device */
    unsigned char payload[37], *good, *bad;
    char file[512], other_file[512];
    const char *why = NULL;
    size_t good_len = 0, len, i;
    int ok;
    fill_random(payload, sizeof payload, &g_rng);
    cache_file(file, sizeof file, dir, id);
    cache_file(other_file, sizeof other_file, dir, other);
    CHECK(pclr_cache_store(dir, id, strlen(id), payload, sizeof payload) == PCLR_OK, "store the good file");
    good = read_file(file, &good_len);
    CHECK(good && good_len == 48 + sizeof payload, "file is header + payload (%zu bytes)", good_len);
    if (!good || good_len != 48 + sizeof payload) { free(good); return; }
    bad = (unsigned char *)malloc(good_len + 64);

    /* foreign: the right name, another identity inside (wrong device) */
    CHECK(write_file(other_file, good, good_len), "copy under the other device's name");
    CHECK(misses(dir, other, &why) && strstr(why, "identity"), "file of another device: miss (%s)", why);

    /* truncated at every length, and one byte too long */
    for (ok = 1, len = 0; len < good_len; ++len) {
        write_file(file, good, len);
        ok &= misses(dir, id, &why);
    }
    CHECK(ok, "truncated at every length 0..%zu: miss", good_len - 1);
    memcpy(bad, good, good_len);
    bad[good_len] = 0;
    write_file(file, bad, good_len + 1);
    CHECK(misses(dir, id, &why) && strstr(why, "length"), "one byte too long: miss (%s)", why);

    /* every single flipped byte, header or payload */
    for (ok = 1, i = 0; i < good_len; ++i) {
        memcpy(bad, good, good_len);
        bad[i] ^= (unsigned char)(1u << (pclr_test_rand(&g_rng) % 8));
        write_file(file, bad, good_len);
        ok &= misses(dir, id, &why);
        if (i == good_len - 1) CHECK(strstr(why, "checksum") != NULL, "flipped payload byte: checksum (%s)", why);
    }
    CHECK(ok, "each flipped bit: miss");

    /* random bytes, some behind a valid magic and version */
    for (ok = 1, i = 0; i < 300; ++i) {
        len = (size_t)(pclr_test_rand(&g_rng) % (good_len + 64));
        fill_random(bad, len, &g_rng);
        if (i % 2 && len >= 16) memcpy(bad, good, 16);
        write_file(file, bad, len);
        ok &= misses(dir, id, &why);
    }
    CHECK(ok, "300 random files: miss");

    /* a header claiming a huge size: refused before any allocation */
    {
        static const uint64_t claims[] = {~0ull, 1ull << 40, (uint64_t)PCLR_CACHE_MAX_BYTES + 1, sizeof payload + 1};
        for (i = 0; i < sizeof claims / sizeof claims[0]; ++i) {
            counting c = {0, 0, 0};
            pclr_allocator a;
            void *data = NULL;
            size_t size = 0;
            int k;
            a.alloc = count_alloc; a.free = count_free; a.user = &c;
            memcpy(bad, good, good_len);
            for (k = 0; k < 8; ++k) bad[32 + k] = (unsigned char)(claims[i] >> (8 * k));
            write_file(file, bad, good_len);
            CHECK(pclr_cache_load(dir, id, strlen(id), &a, &data, &size, &why) == 0 && c.allocs == 0 && data == NULL,
                  "header claims %llu bytes: miss with no allocation (%s)", (unsigned long long)claims[i], why);
        }
    }

    /* the caller rebuilds and stores: the good file is back */
    CHECK(pclr_cache_store(dir, id, strlen(id), payload, sizeof payload) == PCLR_OK, "store over the bad file");
    {
        void *data = NULL;
        size_t size = 0;
        CHECK(pclr_cache_load(dir, id, strlen(id), NULL, &data, &size, NULL) == 1 && size == sizeof payload &&
              memcmp(data, payload, size) == 0, "hit after the rebuild");
        free(data);
    }
    free(bad);
    free(good);
}

/* A FIFO, a directory or a device where a tuning or cache file is expected is
   refused at once (a FIFO used to block the caller forever). */
static void test_not_regular(void) {
    char fifo[512], file[512];
    pclr_tune_entry *e = NULL;
    size_t count = 9, size = 0;
    void *data = NULL;
    const char *why = NULL;
    path_in(fifo, sizeof fifo, g_root, "tune_fifo");
    if (!CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo)) return;
    alarm(20); /* a hang fails the test instead of CI */
    CHECK(pclr_tune_load(fifo, PCLR_OPENCL, "dev", "drv", NULL, &e, &count) == PCLR_ERR_IO && count == 0,
          "a FIFO as the tuning file: PCLR_ERR_IO, no hang");
    CHECK(pclr_tune_load("/dev/null", PCLR_OPENCL, "dev", "drv", NULL, &e, &count) == PCLR_ERR_IO, "a device as the tuning file");
    CHECK(pclr_tune_save(fifo, NULL, 0) == PCLR_ERR_IO, "tune_save over a FIFO refuses (it reads the file first)");
    cache_file(file, sizeof file, g_root, "fifo-id");
    CHECK(mkfifo(file, 0600) == 0, "mkfifo under a cache file's name");
    CHECK(pclr_cache_load(g_root, "fifo-id", 7, NULL, &data, &size, &why) == 0 && why && strstr(why, "regular"),
          "a FIFO as a cache file: a miss, no hang (%s)", why ? why : "");
    alarm(0);
    remove(fifo);
    remove(file);
}

static void test_store_errors(void) {
    char file[512], dir[600], deep[600];
    void *data = NULL;
    size_t size = 0;
    const char *why = NULL;
    int x = 7;
    path_in(file, sizeof file, g_root, "plain_file");
    CHECK(write_file(file, "x", 1), "make a regular file");
    snprintf(dir, sizeof dir, "%s/sub", file);
    CHECK(pclr_cache_store(dir, "id", 2, &x, sizeof x) == PCLR_ERR_IO, "directory under a regular file: PCLR_ERR_IO");
    CHECK(pclr_cache_load(dir, "id", 2, NULL, &data, &size, &why) == 0 && why, "and load misses (%s)", why);
    snprintf(deep, sizeof deep, "%s/made/by/store", g_root);
    CHECK(pclr_cache_store(deep, "id", 2, &x, sizeof x) == PCLR_OK, "store creates missing parents");
    CHECK(pclr_cache_load(deep, "id", 2, NULL, &data, &size, NULL) == 1 && size == sizeof x, "and loads back");
    free(data);
    cache_file(file, sizeof file, deep, "blocked");
    CHECK(mkdir(file, 0777) == 0 && pclr_cache_store(deep, "blocked", 7, &x, sizeof x) == PCLR_ERR_IO,
          "rename over a directory fails: PCLR_ERR_IO");
    CHECK(count_files(deep, ".tmp") == 0, "and the failed write removed its temporary file");
    CHECK(pclr_cache_store(NULL, "id", 2, &x, 1) == PCLR_ERR_NULL_POINTER, "NULL dir");
    CHECK(pclr_cache_store("", "id", 2, &x, 1) == PCLR_ERR_IO, "empty dir refused (the file would go to the root)");
    CHECK(pclr_cache_load("", "id", 2, NULL, &data, &size, &why) == 0 && why && strstr(why, "empty"), "empty dir: a miss (%s)",
          why ? why : "");
    CHECK(pclr_cache_store(deep, NULL, 2, &x, 1) == PCLR_ERR_NULL_POINTER, "NULL identity");
    CHECK(pclr_cache_store(deep, "id", 2, NULL, 1) == PCLR_ERR_NULL_POINTER, "NULL data with size > 0");
    CHECK(pclr_cache_store(deep, "id", 2, &x, (size_t)PCLR_CACHE_MAX_BYTES + 1) == PCLR_ERR_SIZE_OVERFLOW, "size over the cap");
    CHECK(pclr_cache_load(deep, "id", 2, NULL, NULL, &size, &why) == 0 && why, "NULL data pointer: miss");
    CHECK(strcmp(pclr_result_string(PCLR_ERR_IO), "unknown result code") != 0, "PCLR_ERR_IO has a sentence");
}

static void test_default_dir(void) {
    char buf[512], small[8];
    size_t n;
    unsetenv("PCLR_TUNE_FILE");
    setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
    setenv("HOME", "/home/someone", 1);
    n = pclr_cache_default_dir(buf, sizeof buf);
    CHECK(strcmp(buf, "/xdg/cache/pclreduce") == 0 && n == strlen(buf), "XDG_CACHE_HOME wins (%s)", buf);
    CHECK(pclr_cache_default_dir(small, sizeof small) == n && strlen(small) == sizeof small - 1, "short buffer: truncated, length reported");
    CHECK(pclr_cache_default_dir(NULL, 0) == n, "NULL buffer measures");
    setenv("XDG_CACHE_HOME", "relative/dir", 1);
    pclr_cache_default_dir(buf, sizeof buf);
    CHECK(strcmp(buf, "/home/someone/.cache/pclreduce") == 0, "relative XDG_CACHE_HOME ignored (%s)", buf);
    setenv("XDG_CACHE_HOME", "", 1);
    pclr_cache_default_dir(buf, sizeof buf);
    CHECK(strcmp(buf, "/home/someone/.cache/pclreduce") == 0, "empty XDG_CACHE_HOME ignored (%s)", buf);
    n = pclr_tune_default_path(buf, sizeof buf);
    CHECK(strcmp(buf, "/home/someone/.cache/pclreduce/tuning.txt") == 0 && n == strlen(buf), "tuning file default (%s)", buf);
    setenv("PCLR_TUNE_FILE", "/etc/my tuning.txt", 1);
    pclr_tune_default_path(buf, sizeof buf);
    CHECK(strcmp(buf, "/etc/my tuning.txt") == 0, "PCLR_TUNE_FILE wins (%s)", buf);
    unsetenv("PCLR_TUNE_FILE");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    strcpy(buf, "junk");
    CHECK(pclr_cache_default_dir(buf, sizeof buf) == 0 && buf[0] == 0, "no location known: 0 and an empty string");
    CHECK(pclr_tune_default_path(buf, sizeof buf) == 0 && buf[0] == 0, "no tuning path either");
}

/* ---------------------------------------------------------------- concurrency
   Two processes x 4 threads store shared keys (same bytes from everyone) and
   their own keys into one directory while reading shared keys back: a reader
   sees no file or a whole one, never a torn or foreign one. */
enum { PROCS = 2, THREADS = 4, ITERS = 120, SHARED = 6, OWN = 3 };
typedef struct worker { const char *dir; int owner, failures; } worker;

static void key_identity(char *buf, size_t cap, int owner, int k) {
    snprintf(buf, cap, "kernel %d of owner %d\noptions -O3\ndevice Fake GPU\ndriver 2.0", k, owner);
}
static size_t key_payload(unsigned char *p, int owner, int k) {
    uint64_t rng = (uint64_t)(owner + 1) * 1000003u + (uint64_t)k;
    size_t n = (size_t)((owner + 2) * 7919 + k * 977) % 40000;
    fill_random(p, n, &rng);
    return n;
}
static void *worker_run(void *arg) {
    worker *w = (worker *)arg;
    static const size_t cap = 40000;
    unsigned char *want = (unsigned char *)malloc(cap);
    char id[160];
    int i;
    for (i = 0; i < ITERS; ++i) {
        int shared_k = (i * 7 + w->owner) % SHARED, own_k = i % OWN;
        size_t n;
        void *data = NULL;
        size_t size = 0;
        const char *why = NULL;
        key_identity(id, sizeof id, -1, shared_k);
        n = key_payload(want, -1, shared_k);
        if (pclr_cache_store(w->dir, id, strlen(id), want, n) != PCLR_OK) { ++w->failures; printf("FAIL store shared %d\n", shared_k); }
        key_identity(id, sizeof id, -1, (shared_k + 3) % SHARED);
        n = key_payload(want, -1, (shared_k + 3) % SHARED);
        if (pclr_cache_load(w->dir, id, strlen(id), NULL, &data, &size, &why)) {
            if (size != n || memcmp(data, want, n) != 0) { ++w->failures; printf("FAIL owner %d: a hit with wrong bytes\n", w->owner); }
        } else if (strcmp(why, "no cache file") != 0) {
            ++w->failures;
            printf("FAIL owner %d: concurrent reader saw a bad file: %s\n", w->owner, why);
        }
        free(data);
        key_identity(id, sizeof id, w->owner, own_k);
        n = key_payload(want, w->owner, own_k);
        if (pclr_cache_store(w->dir, id, strlen(id), want, n) != PCLR_OK) { ++w->failures; printf("FAIL store own %d\n", own_k); }
    }
    free(want);
    fflush(stdout);
    return NULL;
}

static void test_two_processes(const char *dir) {
    pid_t pids[PROCS];
    int p, t, k, status, ok;
    unsigned char *want = (unsigned char *)malloc(40000);
    char id[160];
    fflush(stdout);
    for (p = 0; p < PROCS; ++p) {
        if ((pids[p] = fork()) == 0) {
            pthread_t th[THREADS];
            worker w[THREADS];
            int failures = 0;
            for (t = 0; t < THREADS; ++t) {
                w[t].dir = dir; w[t].owner = p * THREADS + t; w[t].failures = 0;
                if (pthread_create(&th[t], NULL, worker_run, &w[t]) != 0) { worker_run(&w[t]); th[t] = pthread_self(); }
            }
            for (t = 0; t < THREADS; ++t) {
                if (!pthread_equal(th[t], pthread_self())) pthread_join(th[t], NULL);
                failures += w[t].failures;
            }
            fflush(stdout);
            _exit(failures ? 1 : 0);
        }
        CHECK(pids[p] > 0, "fork %d", p);
    }
    for (p = 0; p < PROCS; ++p)
        if (pids[p] > 0)
            CHECK(waitpid(pids[p], &status, 0) == pids[p] && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "process %d: every store succeeded and every hit was whole", p);
    for (ok = 1, k = -1; k < PROCS * THREADS; ++k) {
        int keys = k < 0 ? SHARED : OWN, i;
        for (i = 0; i < keys; ++i) {
            void *data = NULL;
            size_t size = 0, n = key_payload(want, k, i);
            key_identity(id, sizeof id, k, i);
            ok &= pclr_cache_load(dir, id, strlen(id), NULL, &data, &size, NULL) == 1 && size == n && memcmp(data, want, n) == 0;
            free(data);
        }
    }
    CHECK(ok, "afterwards every key loads with its bytes");
    CHECK(count_files(dir, ".bin") == SHARED + PROCS * THREADS * OWN, "one file per key (%d)", count_files(dir, ".bin"));
    CHECK(count_files(dir, ".tmp") == 0, "no temporary files left");
    free(want);
}

/* ---------------------------------------------------------------- tuning file */
static const uint32_t g_classes[] = {12, 16, 20, 22, 24, 26, 63};

static int same_config(const pclr_config *a, const pclr_config *b) {
    return a->type == b->type && a->op == b->op && a->backend == b->backend && a->wave_width == b->wave_width &&
           a->group_size == b->group_size && a->unroll == b->unroll && a->vector_width == b->vector_width &&
           a->stride == b->stride && a->variant == b->variant && a->finish == b->finish && a->groups_per_unit == b->groups_per_unit;
}

/* A random entry whose config resolves. */
static pclr_tune_entry random_entry(pclr_backend backend, const char *device, const char *driver, pclr_type type, pclr_op op, uint32_t cls) {
    pclr_tune_entry e;
    memset(&e, 0, sizeof e);
    e.backend = backend; e.type = type; e.op = op; e.size_class = cls;
    snprintf(e.device, sizeof e.device, "%s", device);
    snprintf(e.driver, sizeof e.driver, "%s", driver);
    do {
        e.cfg.type = type; e.cfg.op = op; e.cfg.backend = backend;
        e.cfg.wave_width = 32 << (pclr_test_rand(&g_rng) % 2);
        e.cfg.group_size = 32 << (pclr_test_rand(&g_rng) % 6);
        e.cfg.unroll = 1 << (pclr_test_rand(&g_rng) % 8);
        e.cfg.vector_width = 1 << (pclr_test_rand(&g_rng) % 3);
        e.cfg.stride = (pclr_stride)(1 + pclr_test_rand(&g_rng) % 2);
        e.cfg.variant = (pclr_variant)(1 + pclr_test_rand(&g_rng) % 5);
        e.cfg.finish = (pclr_finish)(1 + pclr_test_rand(&g_rng) % 3);
        e.cfg.groups_per_unit = 1 + (int)(pclr_test_rand(&g_rng) % 64);
    } while (pclr_config_resolve(&e.cfg, &e.cfg, NULL) != PCLR_OK);
    e.gbps = (double)(pclr_test_rand(&g_rng) % 40000) / 10.0;
    return e;
}

static void test_size_class(void) {
    size_t i;
    uint64_t lo = 0;
    int ok = 1;
    for (i = 0; i < 6; ++i) {
        uint64_t top = 1ull << g_classes[i];
        ok &= pclr_size_class(lo) == g_classes[i] && pclr_size_class(top) == g_classes[i] && pclr_size_class(top + 1) == g_classes[i + 1];
        lo = top + 1;
    }
    CHECK(ok && pclr_size_class(0) == 12 && pclr_size_class(~0ull) == 63 && pclr_size_class(1ull << 63) == 63, "size class ladder");
}

static void test_tune_format_parse(void) {
    char line[1024];
    const char *why = NULL;
    pclr_tune_entry e, back;
    int b, t, o, ok = 1, count = 0;
    size_t c, n;
    for (b = PCLR_OPENCL; b <= PCLR_CUDA; ++b)
        for (t = PCLR_UINT; t <= PCLR_DOUBLE; ++t)
            for (o = PCLR_SUM; o <= PCLR_MAX; ++o)
                for (c = 0; c < 7; ++c) {
                    e = random_entry((pclr_backend)b, "Dev \"quoted\" back\\slash  two  spaces", "drv 1.2 \\", (pclr_type)t, (pclr_op)o, g_classes[c]);
                    n = pclr_tune_format(&e, line, sizeof line);
                    ok &= n == strlen(line) && n > 0 && line[n - 1] == '\n' && pclr_tune_format(&e, NULL, 0) == n;
                    memset(&back, 0x5a, sizeof back);
                    if (pclr_tune_parse(line, &back, &why) != PCLR_OK) { ok = 0; printf("FAIL parse: %s: %s", why, line); continue; }
                    ok &= back.backend == e.backend && back.type == e.type && back.op == e.op && back.size_class == e.size_class &&
                          strcmp(back.device, e.device) == 0 && strcmp(back.driver, e.driver) == 0 && same_config(&back.cfg, &e.cfg) &&
                          back.gbps > e.gbps - 0.051 && back.gbps < e.gbps + 0.051;
                    ++count;
                }
    CHECK(ok && count == 2 * 4 * 3 * 7, "format -> parse round trip for every backend, type, op and class (%d)", count);
    CHECK(pclr_tune_format(&e, line, 10) == n && strlen(line) == 9, "short buffer: truncated, length reported");

    /* the example, with an unknown key from a newer version */
    CHECK(pclr_tune_parse("cuda \"NVIDIA H100 80GB HBM3\" \"13000\" float sum 20 group=256 unroll=4 vector=4 stride=global "
                          "variant=shuffle finish=last_group groups_per_unit=8 gbps=2871.3 future_knob=7\r\n", &e, &why) == PCLR_OK &&
          e.backend == PCLR_CUDA && strcmp(e.device, "NVIDIA H100 80GB HBM3") == 0 && strcmp(e.driver, "13000") == 0 &&
          e.size_class == 20 && e.cfg.group_size == 256 && e.cfg.wave_width == 32 && e.cfg.variant == PCLR_VARIANT_SHUFFLE &&
          e.cfg.groups_per_unit == 8 && e.gbps > 2871.29 && e.gbps < 2871.31, "the issue's example line parses (%s)", why ? why : "ok");
    CHECK(pclr_tune_parse("opencl \"d\" \"\" uint max 12", &e, NULL) == PCLR_OK && e.driver[0] == 0 && e.cfg.group_size == 256,
          "no knobs: defaults; empty driver string");

    {
        static const struct { const char *line; pclr_result r; } bad[] = {
            {"", PCLR_ERR_INVALID_KNOB},
            {"   # a comment", PCLR_ERR_INVALID_KNOB},
            {"vulkan \"d\" \"1\" float sum 20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" quad sum 20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float avg 20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float default 20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float sum 21", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 99999999999999999999999999", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum", PCLR_ERR_INVALID_KNOB},
            {"cuda \"unterminated 1 float sum 20", PCLR_ERR_INVALID_KNOB},
            {"cuda", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=abc", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=-256", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=1e9", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=99999999999999", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=2.5", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 group=48", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 gbps=fast", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 stride=diagonal", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float sum 20 variant=collective", PCLR_ERR_UNSUPPORTED_COMBINATION},
            {"opencl \"d\" \"1\" float sum 20 finish=atomic", PCLR_ERR_UNSUPPORTED_COMBINATION},
            {"cuda \"d\" \"1\" float sum 20 variant=shuffle wave=64", PCLR_ERR_UNSUPPORTED_COMBINATION},
        };
        char longname[400];
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
            pclr_result r = pclr_tune_parse(bad[i].line, &e, &why);
            CHECK(r == bad[i].r && why != NULL, "bad line '%s': %s (got %s: %s)", bad[i].line, pclr_result_string(bad[i].r),
                  pclr_result_string(r), why ? why : "no reason");
        }
        memset(longname, 'x', sizeof longname);
        memcpy(longname, "cuda \"", 6);
        strcpy(longname + 300, "\" \"1\" float sum 20");
        CHECK(pclr_tune_parse(longname, &e, &why) == PCLR_ERR_INVALID_KNOB, "device name over 255 bytes (%s)", why);
        CHECK(pclr_tune_parse(NULL, &e, NULL) == PCLR_ERR_NULL_POINTER && pclr_tune_parse("x", NULL, NULL) == PCLR_ERR_NULL_POINTER, "NULL args");
    }
}

static int has_line(const char *text, const char *line) {
    const char *p = strstr(text, line);
    size_t n = strlen(line);
    return p && (p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0);
}

static void test_tune_files(void) {
    char path[600], dir[256], line[1024], other_line[1024];
    pclr_tune_entry e[4], other, *got = NULL;
    const pclr_tune_entry *hit;
    size_t n = 99, len;
    char *text;
    const char *head = "# pclreduce tuning file\n\n# keep this comment\nnot a valid line at all\n";
    FILE *f;
    snprintf(dir, sizeof dir, "%s/tune/nested", g_root);
    path_in(path, sizeof path, dir, "tuning.txt");

    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_OK && got == NULL && n == 0, "missing file: OK, no entries");
    e[0] = random_entry(PCLR_CUDA, "GPU A", "1.0", PCLR_FLOAT, PCLR_SUM, 20);
    e[1] = random_entry(PCLR_CUDA, "GPU A", "1.0", PCLR_FLOAT, PCLR_SUM, 24);
    other = random_entry(PCLR_CUDA, "GPU B", "1.0", PCLR_FLOAT, PCLR_SUM, 20);
    pclr_tune_format(&other, other_line, sizeof other_line);
    other_line[strlen(other_line) - 1] = 0;

    /* an existing file: comments, junk, another device, one of our keys twice */
    mkdir(path_in(line, sizeof line, g_root, "tune"), 0777);
    mkdir(dir, 0777);
    f = fopen(path, "wb");
    fputs(head, f);
    fprintf(f, "%s\n", other_line);
    e[2] = random_entry(PCLR_CUDA, "GPU A", "1.0", PCLR_FLOAT, PCLR_SUM, 20);
    pclr_tune_format(&e[2], line, sizeof line);
    fputs(line, f);
    e[3] = random_entry(PCLR_CUDA, "GPU A", "1.0", PCLR_FLOAT, PCLR_SUM, 20);
    pclr_tune_format(&e[3], line, sizeof line);
    fputs(line, f);
    fputs("opencl \"GPU A\" \"1.0\" float sum 20 group=64\ncuda \"GPU A\" \"2.0\" float sum 20 group=64\n", f);
    fputs("# a stray NUL:", f);
    fputc(0, f);
    fputs(" must not hide what follows\n", f);
    fputs("cuda \"GPU A\" \"1.0\" int min 12 group=64", f); /* last line without a newline */
    fclose(f);

    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_OK && n == 2, "load filters backend, device, driver (%zu)", n);
    hit = pclr_tune_lookup(got, n, PCLR_FLOAT, PCLR_SUM, 1u << 20);
    CHECK(hit && same_config(&hit->cfg, &e[3].cfg), "later line wins over an earlier one with the same key");
    CHECK(pclr_tune_lookup(got, n, PCLR_INT, PCLR_MIN, 100) != NULL && pclr_tune_lookup(got, n, PCLR_INT, PCLR_MIN, 5000) == NULL,
          "lookup by size class");
    CHECK(pclr_tune_lookup(got, n, PCLR_TYPE_DEFAULT, PCLR_OP_DEFAULT, (1u << 20) - 5) == hit, "defaults mean float sum");
    CHECK(pclr_tune_lookup(got, n, PCLR_FLOAT, PCLR_MAX, 1u << 20) == NULL && pclr_tune_lookup(NULL, 0, PCLR_FLOAT, PCLR_SUM, 1) == NULL, "no entry: NULL");
    free(got);
    CHECK(pclr_tune_load(path, PCLR_OPENCL, "GPU A", "1.0", NULL, &got, &n) == PCLR_OK && n == 1 && got[0].cfg.group_size == 64, "opencl entries apart");
    free(got);
    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "2.0", NULL, &got, &n) == PCLR_OK && n == 1, "other driver apart");
    free(got);

    /* save: replaces our (float sum 20) lines in place, appends class 24, keeps the rest */
    CHECK(pclr_tune_save(path, e, 2) == PCLR_OK, "save merges");
    text = (char *)read_file(path, &len);
    CHECK(text && strncmp(text, head, strlen(head)) == 0, "comments and junk kept, in order");
    CHECK(text && has_line(text, other_line), "another device's line kept");
    CHECK(text && has_line(text, "opencl \"GPU A\" \"1.0\" float sum 20 group=64") && has_line(text, "cuda \"GPU A\" \"1.0\" int min 12 group=64"),
          "other keys kept verbatim");
    pclr_tune_format(&e[0], line, sizeof line);
    CHECK(text && strstr(text, line) && strstr(text, line) < strstr(text, "opencl \"GPU A\""), "same key replaced in place");
    pclr_tune_format(&e[1], line, sizeof line);
    len = strlen(line);
    CHECK(text && strlen(text) >= len && strcmp(text + strlen(text) - len, line) == 0, "new key appended");
    free(text);
    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_OK && n == 3, "three keys now (%zu)", n);
    hit = pclr_tune_lookup(got, n, PCLR_FLOAT, PCLR_SUM, 1u << 20);
    CHECK(hit && same_config(&hit->cfg, &e[0].cfg), "the saved winner is read back");
    hit = pclr_tune_lookup(got, n, PCLR_FLOAT, PCLR_SUM, (1u << 24) - 1);
    CHECK(hit && same_config(&hit->cfg, &e[1].cfg) && hit->gbps > e[1].gbps - 0.051, "the appended one too");
    free(got);
    CHECK(count_files(dir, ".tmp") == 0 && count_files(dir, ".txt") == 1, "atomic save leaves no temporary file");

    /* a fresh file in a missing directory; an allocator for load */
    {
        counting c = {0, 0, 0};
        pclr_allocator a;
        a.alloc = count_alloc; a.free = count_free; a.user = &c;
        snprintf(path, sizeof path, "%s/fresh/dir/tuning.txt", g_root);
        CHECK(pclr_tune_save(path, e, 2) == PCLR_OK, "save creates the directory");
        CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", &a, &got, &n) == PCLR_OK && n == 2 && c.allocs == 1, "load uses the allocator");
        count_free(got, &c);
        CHECK(pclr_tune_save(path, NULL, 0) == PCLR_OK, "saving nothing keeps the file");
        CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_OK && n == 2, "still two");
        free(got);
    }

    /* I/O errors */
    snprintf(path, sizeof path, "%s/plain_file/tuning.txt", g_root);
    CHECK(pclr_tune_save(path, e, 1) == PCLR_ERR_IO, "save under a regular file: PCLR_ERR_IO");
    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_ERR_IO, "load under a regular file: PCLR_ERR_IO");
    CHECK(pclr_tune_load(g_root, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_ERR_IO && got == NULL && n == 0, "load of a directory: PCLR_ERR_IO");
    CHECK(pclr_tune_save(g_root, e, 1) == PCLR_ERR_IO, "save over a directory: PCLR_ERR_IO");
    CHECK(count_files(g_root, ".tmp") == 0, "and no temporary file left");
    CHECK(pclr_tune_load(NULL, PCLR_CUDA, "x", "y", NULL, &got, &n) == PCLR_ERR_NULL_POINTER && pclr_tune_save(NULL, e, 1) == PCLR_ERR_NULL_POINTER,
          "NULL path");
    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/fresh/dir/tuning.txt", g_root);
        chmod(path, 0);
        CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU A", "1.0", NULL, &got, &n) == PCLR_ERR_IO, "unreadable file: PCLR_ERR_IO");
        chmod(path, 0644);
    }
}

/* The sweep on a made-up device whose best knobs are known: group 512,
   unroll 8, 4 groups per unit, vector 2; local stride cannot run. */
static int ilog2(int v) { int l = 0; while (v > 1) { v >>= 1; ++l; } return l; }
static double fake_measure(void *user, const pclr_config *c, uint64_t n) {
    int *calls = (int *)user;
    ++*calls;
    if (c->stride == PCLR_STRIDE_LOCAL) return -1.0;
    return 1e-6 * (double)(n >> 10) * (1.0 + abs(ilog2(c->unroll) - 3) + abs(ilog2(c->groups_per_unit) - 2) +
                                        (c->group_size != 512) + (c->vector_width != 2));
}
static void fake_progress(void *user, double fraction, const char *what) {
    double *last = (double *)user;
    CHECK(fraction >= *last && fraction <= 1.0 && what && *what, "progress %.3f after %.3f", fraction, *last);
    *last = fraction;
}
static void test_tune_sweep(void) {
    pclr_config start;
    pclr_tune_options opt;
    pclr_tune_entry e[PCLR_TUNE_CLASSES];
    size_t count = 99, i;
    int calls = 0;
    double last = 0.0;
    memset(&start, 0, sizeof start);
    memset(&opt, 0, sizeof opt);
    start.type = PCLR_UINT; start.op = PCLR_MAX; start.backend = PCLR_CUDA;
    opt.max_n = (uint64_t)1 << 28;
    opt.progress = fake_progress;
    opt.user = &last;
    CHECK(pclr_tune_sweep(&start, &opt, fake_measure, &calls, e, PCLR_TUNE_CLASSES, &count) == PCLR_OK, "sweep");
    CHECK(count == PCLR_TUNE_CLASSES, "7 classes up to 2^28, got %zu", count);
    CHECK(last == 1.0, "progress ends at 1 (%.3f)", last);
    for (i = 0; i < count; ++i) {
        CHECK(e[i].type == PCLR_UINT && e[i].op == PCLR_MAX && e[i].backend == PCLR_CUDA, "entry %zu key", i);
        CHECK(e[i].cfg.group_size == 512 && e[i].cfg.unroll == 8 && e[i].cfg.groups_per_unit == 4 &&
              e[i].cfg.vector_width == 2 && e[i].cfg.stride == PCLR_STRIDE_GLOBAL,
              "class %u: found group %d unroll %d grid %d vector %d", (unsigned)e[i].size_class, e[i].cfg.group_size,
              e[i].cfg.unroll, e[i].cfg.groups_per_unit, e[i].cfg.vector_width);
        CHECK(e[i].gbps > 0 && e[i].default_gbps > 0 && e[i].default_gbps < e[i].gbps, "class %u gbps %g, default %g",
              (unsigned)e[i].size_class, e[i].gbps, e[i].default_gbps);
    }
    CHECK(calls > 7 * 10 && calls < 7 * 60, "measurements: %d", calls);
    opt.max_n = 5000; /* classes 12 and 16 only, the second measured at 5000 */
    last = 0.0;
    CHECK(pclr_tune_sweep(&start, &opt, fake_measure, &calls, e, PCLR_TUNE_CLASSES, &count) == PCLR_OK && count == 2,
          "max_n 5000: %zu classes", count);
    CHECK(pclr_tune_sweep(&start, &opt, fake_measure, &calls, e, 3, &count) == PCLR_ERR_BUFFER_TOO_SMALL, "cap 3");
    CHECK(pclr_tune_sweep(NULL, &opt, fake_measure, &calls, e, 7, &count) == PCLR_ERR_NULL_POINTER, "NULL start");
    start.unroll = 3;
    CHECK(pclr_tune_sweep(&start, &opt, fake_measure, &calls, e, 7, &count) == PCLR_ERR_INVALID_KNOB, "bad start");
    {   /* the backends' timing helpers */
        const double a[3] = {3, 1, 2}, b[3] = {1, 2, 3}, c[3] = {2, 3, 1}, d[3] = {5, 5, 4};
        CHECK(pclr__tune_median3(a) == 2 && pclr__tune_median3(b) == 2 && pclr__tune_median3(c) == 2 &&
                  pclr__tune_median3(d) == 5, "median of three");
        CHECK(pclr__tune_batch_calls(1e-2) == 3 && pclr__tune_batch_calls(1e-6) == 200 &&
                  pclr__tune_batch_calls(1e-4) == 23 && pclr__tune_batch_calls(0) == 200, "calls per ~2 ms batch");
    }
}

int main(void) {
    char dir[128];
    g_rng = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 32;
    printf("test_cache: seed %llu\n", (unsigned long long)g_rng);
    snprintf(g_root, sizeof g_root, "/tmp/pclr_test_cache.XXXXXX");
    if (!mkdtemp(g_root)) { CHECK(0, "mkdtemp"); return pclr_test_summary("test_cache"); }
    test_round_trip(path_in(dir, sizeof dir, g_root, "cache"));
    test_bad_files(path_in(dir, sizeof dir, g_root, "cache"));
    test_store_errors();
    test_not_regular();
    test_two_processes(path_in(dir, sizeof dir, g_root, "shared"));
    test_size_class();
    test_tune_format_parse();
    test_tune_files();
    test_tune_sweep();
    test_default_dir();
    remove_tree(g_root);
    CHECK(access(g_root, F_OK) != 0, "temp dir removed");
    return pclr_test_summary("test_cache");
}
