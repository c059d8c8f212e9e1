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
#include <utime.h>

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
    CHECK(good && good_len == 64 + strlen(id) + sizeof payload, "file is header + identity + payload (%zu bytes)", good_len);
    if (!good || good_len != 64 + strlen(id) + sizeof payload) { free(good); return; }
    CHECK(memcmp(good + 64, id, strlen(id)) == 0, "the whole identity is in the file, after the header");
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
            for (k = 0; k < 8; ++k) bad[24 + k] = (unsigned char)(claims[i] >> (8 * k));
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

/* ---------------------------------------------------------------- trust (issue 13) */
static unsigned mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 07777u;
}
static int is_symlink(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}
static int same_text(const char *path, const char *want) {
    size_t len = 0;
    unsigned char *got = read_file(path, &len);
    int ok = got && len == strlen(want) && memcmp(got, want, len) == 0;
    free(got);
    return ok;
}

/* The payload checksum: SHA-256, against its published vectors and sha256sum. */
static void test_sha256(void) {
    static const struct { const char *text, *hex; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    unsigned char sum[32], *buf = (unsigned char *)malloc(1000000);
    char hex[65], want[80], cmd[700], file[512];
    size_t i, k, lengths[] = {1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 65536 + 3};
    int ok = 1;
    for (i = 0; i < sizeof v / sizeof v[0]; ++i) {
        pclr__sha256(v[i].text, strlen(v[i].text), sum);
        for (k = 0; k < 32; ++k) snprintf(hex + 2 * k, 3, "%02x", sum[k]);
        CHECK(strcmp(hex, v[i].hex) == 0, "SHA-256 of '%s': %s", v[i].text, hex);
    }
    memset(buf, 'a', 1000000);
    pclr__sha256(buf, 1000000, sum);
    for (k = 0; k < 32; ++k) snprintf(hex + 2 * k, 3, "%02x", sum[k]);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0, "SHA-256 of a million 'a'");
    path_in(file, sizeof file, g_root, "sha_input");
    for (i = 0; i < sizeof lengths / sizeof lengths[0]; ++i) {
        FILE *p;
        fill_random(buf, lengths[i], &g_rng);
        write_file(file, buf, lengths[i]);
        pclr__sha256(buf, lengths[i], sum);
        for (k = 0; k < 32; ++k) snprintf(hex + 2 * k, 3, "%02x", sum[k]);
        snprintf(cmd, sizeof cmd, "sha256sum %s 2>/dev/null", file);
        if (!(p = popen(cmd, "r")) || !fgets(want, sizeof want, p)) { if (p) pclose(p); SKIP("no sha256sum"); break; }
        pclose(p);
        ok &= strncmp(want, hex, 64) == 0;
    }
    CHECK(ok, "SHA-256 agrees with sha256sum at block-edge lengths");
    remove(file);
    free(buf);
}

/* The trust model: a private directory (0700, files 0600, whatever the
   umask); a directory or file of another user, or writable by others, or a
   symbolic link, is not used. */
static void test_cache_trust(void) {
    char dir[600], top[256], file[700], real[800], link_dir[600], dir2[600];
    const char *id = "trust kernel\noptions\ndevice Fake GPU\ndriver 1";
    const int x = 42;
    void *data = NULL;
    size_t size = 0;
    const char *why = NULL;
    mode_t old;
    snprintf(top, sizeof top, "%s/trust", g_root);
    snprintf(dir, sizeof dir, "%s/deep/cache", top);
    cache_file(file, sizeof file, dir, id);

    old = umask(0); /* the most open umask: the old code made 0777 directories and 0666 files */
    CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_OK, "store under umask 000");
    CHECK(mode_of(top) == 0700 && mode_of(dir) == 0700, "directories created 0700 under umask 000 (%o, %o)", mode_of(top), mode_of(dir));
    CHECK(mode_of(file) == 0600, "file created 0600 under umask 000 (%o)", mode_of(file));
    umask(0777); /* the most closed: the owner's bits are set back explicitly */
    snprintf(dir2, sizeof dir2, "%s/closed", top);
    CHECK(pclr_cache_store(dir2, id, strlen(id), &x, sizeof x) == PCLR_OK, "store under umask 777");
    CHECK(mode_of(dir2) == 0700, "directory 0700 under umask 777 (%o)", mode_of(dir2));
    cache_file(real, sizeof real, dir2, id);
    CHECK(mode_of(real) == 0600, "file 0600 under umask 777 (%o)", mode_of(real));
    umask(old);
    CHECK(pclr_cache_load(dir2, id, strlen(id), NULL, &data, &size, &why) == 1 && size == sizeof x, "and it loads (%s)", why ? why : "hit");
    free(data);

    /* a directory others may write into: not used, nothing written */
    chmod(dir, 0777);
    CHECK(misses(dir, id, &why) && strstr(why, "directory is writable by group or others"), "0777 directory: a miss (%s)", why);
    CHECK(pclr_cache_store(dir, "new id", 6, &x, sizeof x) == PCLR_ERR_IO, "0777 directory: store refused");
    chmod(dir, 0720);
    CHECK(misses(dir, id, &why) && strstr(why, "writable"), "group-writable directory: a miss (%s)", why);
    CHECK(count_files(dir, ".bin") == 1 && count_files(dir, ".tmp") == 0, "nothing was written there");
    chmod(dir, 0755); /* readable by others is fine */
    CHECK(pclr_cache_load(dir, id, strlen(id), NULL, &data, &size, &why) == 1, "0755 directory: used (%s)", why ? why : "hit");
    free(data);
    chmod(dir, 0700);

    /* a file others may write: a miss; the next store replaces it with a private one */
    chmod(file, 0666);
    CHECK(misses(dir, id, &why) && strstr(why, "file is writable by group or others"), "0666 file: a miss (%s)", why);
    CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_OK && mode_of(file) == 0600, "stored again: 0600 (%o)", mode_of(file));

    /* another user's directory or file */
    if (geteuid() == 0) {
        CHECK(chown(file, 12345, 12345) == 0, "chown the file");
        CHECK(misses(dir, id, &why) && strstr(why, "file belongs to another user"), "another user's file: a miss (%s)", why);
        CHECK(chown(file, 0, 0) == 0 && chown(dir, 12345, 12345) == 0, "chown the directory");
        CHECK(misses(dir, id, &why) && strstr(why, "directory belongs to another user"), "another user's directory: a miss (%s)", why);
        CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_ERR_IO, "another user's directory: store refused");
        CHECK(chown(dir, 0, 0) == 0, "chown back");
    } else {
        SKIP("not root: files of another user cannot be made here");
    }

    /* a symbolic link as the cache file: not followed, even to a good file */
    snprintf(real, sizeof real, "%s.real", file);
    CHECK(rename(file, real) == 0 && symlink(real, file) == 0, "cache file replaced by a link to it");
    CHECK(misses(dir, id, &why) && strstr(why, "symbolic link"), "a link as the cache file: a miss (%s)", why);
    CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_OK && !is_symlink(file), "store replaces the link, not its target");
    CHECK(mode_of(real) == 0600 && remove(real) == 0, "the link's target untouched");

    /* a symbolic link as the cache directory (the issue's link to /etc): not used, nothing written behind it */
    snprintf(link_dir, sizeof link_dir, "%s/link_to_dir2", top);
    CHECK(symlink(dir2, link_dir) == 0, "symlink to a directory");
    CHECK(pclr_cache_store(link_dir, "via link", 8, &x, sizeof x) == PCLR_ERR_IO, "a link as the cache directory: store refused");
    CHECK(count_files(dir2, ".bin") == 1, "nothing written behind the link");
    CHECK(misses(link_dir, id, &why) && strstr(why, "symbolic link"), "and load misses (%s)", why);
    remove(link_dir);
    /* a regular file where the directory should be */
    CHECK(misses(file, id, &why) && strstr(why, "not a directory"), "a file as the cache directory: a miss (%s)", why);
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

    /* the issue's example, with an unknown key from a newer version */
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
            {"cpu \"d\" \"1\" float sum 20", PCLR_ERR_INVALID_ENUM}, /* the CPU has nothing to tune */
            {"metal \"d\" \"1\" float sum 20", PCLR_ERR_INVALID_ENUM},
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

/* pclr_tune_save writes only over a tuning file, keeps its mode, writes
   through a symbolic link and keeps hard links (issue 13). */
static void test_tune_save_safety(void) {
    char dir[512], path[600], other[600], lnk[600], text[2048];
    static const unsigned char binary[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 'x', 0, 0xff};
    const char *script = "#!/bin/sh\necho hello\n", *why = NULL;
    pclr_tune_entry e = random_entry(PCLR_OPENCL, "Safe GPU", "3.0", PCLR_UINT, PCLR_MAX, 16), *got = NULL;
    size_t n = 0, len = 0;
    unsigned char *before, *after;
    snprintf(dir, sizeof dir, "%s/tune_safety", g_root);
    mkdir(dir, 0700);
    path_in(path, sizeof path, dir, "tool");

    /* a binary (0755) and a script: refused, left exactly as they were */
    CHECK(write_file(path, binary, sizeof binary) && chmod(path, 0755) == 0, "a binary file");
    CHECK(pclr_tune_save_ex(path, &e, 1, &why) == PCLR_ERR_IO && why && strstr(why, "not a tuning file"), "save over a binary refused (%s)",
          why ? why : "");
    before = read_file(path, &len);
    CHECK(len == sizeof binary && memcmp(before, binary, len) == 0 && mode_of(path) == 0755, "the binary is untouched (mode %o)", mode_of(path));
    free(before);
    CHECK(write_file(path, script, strlen(script)), "a script");
    CHECK(pclr_tune_save(path, &e, 1) == PCLR_ERR_IO && same_text(path, script), "save over a script refused, untouched");
    CHECK(count_files(dir, ".lock") == 0 && count_files(dir, ".tmp") == 0, "no lock or temporary file left next to them");

    /* a new tuning file (and its lock file) is 0600 like the cache's files, whatever the umask (it was 0666 under umask 000) */
    {
        const mode_t was = umask(0);
        char lock[1100];
        path_in(path, sizeof path, dir, "fresh-umask0.txt");
        remove(path);
        snprintf(lock, sizeof lock, "%s.lock", path);
        remove(lock);
        CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK && mode_of(path) == 0600 && mode_of(lock) == 0600,
              "a new tuning file under umask 000: 0600 (%o), its lock file 0600 (%o)", mode_of(path), mode_of(lock));
        umask(0777);
        CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK && mode_of(path) == 0600, "saved again under umask 777: still 0600 (%o)", mode_of(path));
        umask(was);
        remove(path);
        remove(lock);
    }
    /* a tuning file of 0600 stays 0600 (the umask's 0644 was the old result) */
    path_in(path, sizeof path, dir, "private.txt");
    CHECK(write_file(path, "", 0) && chmod(path, 0600) == 0, "an empty 0600 file");
    CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK && mode_of(path) == 0600, "saved: still 0600 (%o)", mode_of(path));
    before = read_file(path, &len);
    CHECK(before && strncmp((char *)before, "# pclreduce tuning file", 23) == 0, "a new tuning file starts with its header line");
    free(before);
    chmod(path, 0640);
    CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK && mode_of(path) == 0640, "0640 kept (%o)", mode_of(path));
    /* a file of an older version: no header, an entry first */
    pclr_tune_format(&e, text, sizeof text);
    CHECK(write_file(path, text, strlen(text)), "a header-less tuning file");
    CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK && same_text(path, text), "accepted, the same line replaced in place");

    /* a symbolic link: the target is written, the link stays */
    path_in(other, sizeof other, dir, "target.txt");
    path_in(lnk, sizeof lnk, dir, "link.txt");
    CHECK(write_file(other, "# pclreduce tuning file\n", 24) && symlink("target.txt", lnk) == 0, "link.txt -> target.txt");
    CHECK(pclr_tune_save(lnk, &e, 1) == PCLR_OK, "save through the link");
    CHECK(is_symlink(lnk), "the link is still a link");
    CHECK(pclr_tune_load(other, PCLR_OPENCL, "Safe GPU", "3.0", NULL, &got, &n) == PCLR_OK && n == 1, "the target holds the entry (%zu)", n);
    free(got);
    /* a dangling link: its target is created */
    remove(other);
    CHECK(pclr_tune_save(lnk, &e, 1) == PCLR_OK && is_symlink(lnk) && mode_of(other) != 07777, "dangling link: target created");

    /* hard links: rewritten in place, both names see the new entries */
    path_in(path, sizeof path, dir, "hard1.txt");
    path_in(other, sizeof other, dir, "hard2.txt");
    CHECK(write_file(path, "# pclreduce tuning file\n", 24) && link(path, other) == 0, "two hard links");
    CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK, "save through one name");
    before = read_file(path, &len);
    after = read_file(other, &n);
    CHECK(before && after && len == n && memcmp(before, after, len) == 0 && strstr((char *)after, "Safe GPU"), "the other name sees it");
    free(before);
    free(after);

    /* not regular, or an empty path */
    CHECK(pclr_tune_save_ex(dir, &e, 1, &why) == PCLR_ERR_IO && why && strstr(why, "regular"), "a directory refused (%s)", why ? why : "");
    CHECK(pclr_tune_save_ex("", &e, 1, &why) == PCLR_ERR_IO && why, "an empty path refused (%s)", why ? why : "");
    CHECK(pclr_tune_save_ex(path, &e, 1, &why) == PCLR_OK && why == NULL, "success: why NULL");
}

/* A device name with control characters (a tab, a line break, \x01) is
   saved escaped and loads again (the old format wrote spaces: never found). */
static void test_tune_control_chars(void) {
    char path[600], line[2048];
    const char *names[] = {"GPU\twith tab", "two\nlines", "\x01start", "end\x7f", "back\\x41slash \"q\"", "all\x1f\x02\x03"};
    pclr_tune_entry e, back, *got = NULL;
    size_t i, n = 0;
    path_in(path, sizeof path, g_root, "control.txt");
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
        e = random_entry(PCLR_CUDA, names[i], "dr\tv", PCLR_FLOAT, PCLR_SUM, 20);
        pclr_tune_format(&e, line, sizeof line);
        CHECK(strchr(line, '\n') == line + strlen(line) - 1 && !strchr(line, '\t') && !strchr(line, '\x01'), "one line, no raw control character: %s", line);
        CHECK(pclr_tune_parse(line, &back, NULL) == PCLR_OK && strcmp(back.device, names[i]) == 0 && strcmp(back.driver, "dr\tv") == 0,
              "name %zu reads back the same", i);
        CHECK(pclr_tune_save(path, &e, 1) == PCLR_OK, "save name %zu", i);
        CHECK(pclr_tune_load(path, PCLR_CUDA, names[i], "dr\tv", NULL, &got, &n) == PCLR_OK && n == 1 && same_config(&got[0].cfg, &e.cfg),
              "name %zu: its entry loads again (%zu)", i, n);
        free(got);
    }
    CHECK(pclr_tune_parse("cuda \"a\\x00b\" \"1\" float sum 20", &back, NULL) == PCLR_ERR_INVALID_KNOB, "\\x00 in a name refused");
    CHECK(pclr_tune_parse("cuda \"a\\x4\" \"1\" float sum 20", &back, NULL) == PCLR_OK && strcmp(back.device, "ax4") == 0,
          "a short \\x is the letter x, as before");
}

/* Four processes save different entries into one file at once, many
   times: the lock serializes them and each merges what the others wrote. */
static void test_tune_concurrent(void) {
    enum { SAVERS = 4, TRIALS = 25, EACH = 3 };
    static const pclr_op ops[SAVERS] = {PCLR_SUM, PCLR_MIN, PCLR_MAX, PCLR_COUNT};
    char path[600];
    int trial, p, lost = 0, status;
    path_in(path, sizeof path, g_root, "concurrent.txt");
    fflush(stdout);
    for (trial = 0; trial < TRIALS; ++trial) {
        pid_t kids[SAVERS];
        int go[2];
        pclr_tune_entry *got = NULL;
        size_t n = 0;
        char c;
        remove(path);
        if (pipe(go) != 0) { CHECK(0, "pipe"); return; }
        for (p = 0; p < SAVERS; ++p) {
            if ((kids[p] = fork()) == 0) {
                pclr_tune_entry e[EACH];
                int k, bad = 0;
                close(go[1]);
                for (k = 0; k < EACH; ++k) e[k] = random_entry(PCLR_OPENCL, "Shared GPU", "1", PCLR_INT, ops[p], g_classes[k]);
                if (read(go[0], &c, 1) < 0) _exit(3); /* all start when the parent closes the pipe */
                for (k = 0; k < EACH; ++k) bad |= pclr_tune_save(path, &e[k], 1) != PCLR_OK; /* one save each: more races */
                _exit(bad);
            }
        }
        close(go[0]);
        close(go[1]);
        for (p = 0; p < SAVERS; ++p) lost |= !(kids[p] > 0 && waitpid(kids[p], &status, 0) == kids[p] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (pclr_tune_load(path, PCLR_OPENCL, "Shared GPU", "1", NULL, &got, &n) != PCLR_OK || n != SAVERS * EACH) {
            printf("trial %d: %zu of %d entries\n", trial, n, SAVERS * EACH);
            lost = 1;
        }
        free(got);
    }
    CHECK(!lost, "%d trials of %d processes saving at once: every entry present, every save OK", TRIALS, SAVERS);
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

/* Layout entries (issue 16): shape classes, their lines, matching, merging and the sweep of one shape. */
static double fake_layout_measure(void *user, const pclr_config *c, uint64_t n) {
    uint64_t *seen_n = (uint64_t *)user;
    *seen_n = n;
    if (c->layout != PCLR_LAYOUT_ROWS || c->rows != 4096 || c->cols != 48 || c->vector_width != 1) return -1.0;
    return 1e-6 * (1.0 + abs(ilog2(c->unroll) - 1) + (c->group_size != 256) + (c->lanes ? abs(ilog2(c->lanes) - 3) : 5));
}
static pclr_config layout_cfg(pclr_layout layout, uint64_t rows, uint64_t cols) {
    pclr_config c;
    memset(&c, 0, sizeof c);
    c.layout = layout; c.rows = rows; c.cols = cols;
    return c;
}
static void test_tune_shapes(void) {
    static const pclr_shape shapes[] = {PCLR_SHAPE_ROWS_SHORT, PCLR_SHAPE_ROWS_MEDIUM, PCLR_SHAPE_ROWS_LONG, PCLR_SHAPE_ROWS_HUGE,
                                        PCLR_SHAPE_COLS_NARROW, PCLR_SHAPE_COLS_WIDE};
    pclr_config c, out;
    pclr_tune_entry e, back, list[4], *got = NULL;
    pclr_tune_options opt;
    pclr_shape sh;
    char line[1024], path[600], want[64];
    const char *why = NULL;
    size_t i, n = 0;
    uint64_t seen_n = 0;
    int ok = 1, k;

    /* classes and their boundaries */
    c = layout_cfg(PCLR_LAYOUT_ROWS, 10, 64);   ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_SHORT;
    c.cols = 65;                                  ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_MEDIUM;
    c.cols = 2048;                                ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_MEDIUM;
    c.cols = 2049;                                ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_LONG;
    c.cols = 8192;                                ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_LONG;
    c.cols = 8193;                                ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_ROWS_HUGE;
    c = layout_cfg(PCLR_LAYOUT_COLUMNS, 1u << 20, 64); ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_COLS_NARROW;
    c.cols = 65;                                  ok &= pclr_shape_class(&c, 0) == PCLR_SHAPE_COLS_WIDE;
    c = layout_cfg(PCLR_LAYOUT_SEGMENTS, 10, 0);  ok &= pclr_shape_class(&c, 640) == PCLR_SHAPE_ROWS_SHORT && pclr_shape_class(&c, 650) == PCLR_SHAPE_ROWS_MEDIUM;
    c.cols = 5000;                                ok &= pclr_shape_class(&c, 640) == PCLR_SHAPE_ROWS_LONG; /* the length hint wins */
    c.cols = 0;                                   ok &= pclr_shape_class(&c, 10 * 100000) == PCLR_SHAPE_ROWS_HUGE;
    c = layout_cfg(PCLR_LAYOUT_SEGMENTS, 0, 0);   ok &= pclr_shape_class(&c, 99) == PCLR_SHAPE_ROWS_SHORT;
    c = layout_cfg(PCLR_LAYOUT_ONE, 0, 0);        ok &= pclr_shape_class(&c, 1u << 30) == PCLR_SHAPE_ONE && pclr_shape_class(NULL, 5) == PCLR_SHAPE_ONE;
    CHECK(ok, "shape classes at their boundaries");
    c = layout_cfg(PCLR_LAYOUT_ROWS, 1u << 20, 48);
    CHECK(pclr_layout_elements(&c, 7) == 48u << 20, "rows x cols elements");
    c.rows = UINT64_MAX / 3;
    CHECK(pclr_layout_elements(&c, 7) == UINT64_MAX, "rows x cols saturates");
    c = layout_cfg(PCLR_LAYOUT_SEGMENTS, 10, 0);
    CHECK(pclr_layout_elements(&c, 12345) == 12345 && pclr_layout_elements(NULL, 9) == 9, "segments: n");
    for (ok = 1, i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        ok &= pclr_parse_shape(pclr_shape_name(shapes[i]), &sh) == PCLR_OK && sh == shapes[i];
    CHECK(ok && pclr_parse_shape("one", &sh) == PCLR_ERR_INVALID_ENUM && pclr_parse_shape("rows", &sh) == PCLR_ERR_INVALID_ENUM &&
          strcmp(pclr_shape_name((pclr_shape)99), "invalid") == 0, "shape names parse back; 'one' has no prefix");

    /* lines: shape:class, lanes; random knobs for every shape, class and accumulator-free op */
    for (ok = 1, i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (k = 0; k < 7; ++k) {
            memset(&e, 0, sizeof e);
            e.backend = k % 2 ? PCLR_CUDA : PCLR_OPENCL; e.type = PCLR_FLOAT; e.op = (pclr_op)(PCLR_SUM + k % 3);
            e.size_class = g_classes[k]; e.shape = shapes[i];
            snprintf(e.device, sizeof e.device, "GPU %d", k);
            do {
                memset(&e.cfg, 0, sizeof e.cfg);
                e.cfg.type = e.type; e.cfg.op = e.op; e.cfg.backend = e.backend;
                e.cfg.layout = shapes[i] >= PCLR_SHAPE_COLS_NARROW ? PCLR_LAYOUT_COLUMNS : PCLR_LAYOUT_ROWS;
                e.cfg.group_size = 64 << (pclr_test_rand(&g_rng) % 5);
                e.cfg.unroll = 1 << (pclr_test_rand(&g_rng) % 5);
                e.cfg.lanes = (int)(pclr_test_rand(&g_rng) % 2) << (pclr_test_rand(&g_rng) % 7); /* 0: the planner's */
                e.cfg.groups_per_unit = 1 + (int)(pclr_test_rand(&g_rng) % 16);
            } while (pclr_config_resolve(&e.cfg, &e.cfg, NULL) != PCLR_OK);
            pclr_tune_format(&e, line, sizeof line);
            snprintf(want, sizeof want, " %s:%u ", pclr_shape_name(shapes[i]), (unsigned)g_classes[k]);
            ok &= strstr(line, want) != NULL && (e.cfg.lanes ? strstr(line, " lanes=") != NULL : strstr(line, "lanes") == NULL);
            memset(&back, 0x5a, sizeof back);
            if (pclr_tune_parse(line, &back, &why) != PCLR_OK) { ok = 0; printf("FAIL parse: %s: %s", why, line); continue; }
            ok &= back.shape == e.shape && back.size_class == e.size_class && back.cfg.layout == e.cfg.layout &&
                  back.cfg.lanes == e.cfg.lanes && same_config(&back.cfg, &e.cfg) && back.cfg.rows == 0 && back.cfg.cols == 0;
        }
    CHECK(ok, "layout entries: format -> parse round trip for every shape class and size class");
    {
        static const struct { const char *line; pclr_result r; } bad[] = {
            {"cuda \"d\" \"1\" float sum squares:20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float sum one:20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float sum :20", PCLR_ERR_INVALID_ENUM},
            {"cuda \"d\" \"1\" float sum rows_short:", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum rows_short:21", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum rows_short:20:20", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum 20 lanes=4", PCLR_ERR_UNSUPPORTED_COMBINATION}, /* lanes belong to a layout */
            {"cuda \"d\" \"1\" float sum rows_long:20 lanes=3", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum rows_long:20 group=64 lanes=128", PCLR_ERR_INVALID_KNOB},
            {"cuda \"d\" \"1\" float sum cols_wide:20 vector=4", PCLR_ERR_UNSUPPORTED_COMBINATION},
        };
        for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
            pclr_result r = pclr_tune_parse(bad[i].line, &e, &why);
            CHECK(r == bad[i].r && why != NULL, "bad line '%s': %s (got %s: %s)", bad[i].line, pclr_result_string(bad[i].r),
                  pclr_result_string(r), why ? why : "no reason");
        }
    }

    /* matching: one array, rows_short and cols_wide entries of float sum side by side */
    CHECK(pclr_tune_parse("cuda \"d\" \"1\" float sum 20 group=64", &list[0], NULL) == PCLR_OK &&
          pclr_tune_parse("cuda \"d\" \"1\" float sum rows_short:20 group=128 unroll=2 lanes=4", &list[1], NULL) == PCLR_OK &&
          pclr_tune_parse("cuda \"d\" \"1\" float sum cols_wide:26 group=512 groups_per_unit=3", &list[2], NULL) == PCLR_OK &&
          pclr_tune_parse("cuda \"d\" \"1\" float sum rows_short:20 group=1024", &list[3], NULL) == PCLR_OK, "entries parse");
    c = layout_cfg(PCLR_LAYOUT_ONE, 0, 0);
    CHECK(pclr_tune_apply(list, 3, &c, 1u << 20, &out) == 1 && out.group_size == 64 && out.lanes == 0, "one array: its own entry");
    c = layout_cfg(PCLR_LAYOUT_ROWS, 1u << 14, 64);
    CHECK(pclr_tune_apply(list, 3, &c, 0, &out) == 1 && out.group_size == 128 && out.unroll == 2 && out.lanes == 4 &&
          out.rows == c.rows && out.cols == 64, "rows of 64, 2^20 elements: the rows_short entry, shape kept");
    c.lanes = 8;
    CHECK(pclr_tune_apply(list, 3, &c, 0, &out) == 1 && out.lanes == 8, "lanes given: kept");
    c = layout_cfg(PCLR_LAYOUT_ROWS, 1u << 13, 128);
    CHECK(pclr_tune_apply(list, 3, &c, 0, &out) == 0 && out.group_size == 0, "rows of 128: rows_medium, no entry");
    c = layout_cfg(PCLR_LAYOUT_ROWS, 1u << 15, 64);
    CHECK(pclr_tune_apply(list, 3, &c, 0, &out) == 0, "rows of 64, 2^21 elements: another size class, no entry");
    c = layout_cfg(PCLR_LAYOUT_SEGMENTS, 1u << 15, 0);
    CHECK(pclr_tune_apply(list, 3, &c, 1u << 20, &out) == 1 && out.group_size == 128 && out.lanes == 4, "segments of mean 32: rows_short");
    c = layout_cfg(PCLR_LAYOUT_COLUMNS, 1u << 10, 1u << 16);
    CHECK(pclr_tune_apply(list, 3, &c, 0, &out) == 1 && out.group_size == 512 && out.groups_per_unit == 3, "2^16 columns: cols_wide");
    CHECK(pclr_tune_apply(list, 4, &c, 0, &out) == 1 && out.group_size == 512, "(a later rows entry does not touch columns)");
    c = layout_cfg(PCLR_LAYOUT_ROWS, 1u << 14, 64);
    CHECK(pclr_tune_apply(list, 4, &c, 0, &out) == 1 && out.group_size == 1024, "the later entry of a slot wins");
    CHECK(pclr_tune_lookup(list, 4, PCLR_FLOAT, PCLR_SUM, 1u << 20) == &list[0], "pclr_tune_lookup: one array's entry only");

    /* a file keeps a shape's entry apart from the one array's of the same class */
    snprintf(path, sizeof path, "%s/tune_shapes/tuning.txt", g_root);
    for (i = 0; i < 3; ++i) { snprintf(list[i].device, sizeof list[i].device, "GPU S"); snprintf(list[i].driver, sizeof list[i].driver, "9"); }
    CHECK(pclr_tune_save(path, list, 3) == PCLR_OK && pclr_tune_save(path, list, 1) == PCLR_OK, "saved twice");
    CHECK(pclr_tune_load(path, PCLR_CUDA, "GPU S", "9", NULL, &got, &n) == PCLR_OK && n == 3 && got[0].shape == PCLR_SHAPE_ONE &&
          got[1].shape == PCLR_SHAPE_ROWS_SHORT && got[1].cfg.lanes == 4 && got[2].shape == PCLR_SHAPE_COLS_WIDE,
          "three slots load back (%zu)", n);
    free(got);

    /* the sweep of one shape: one entry, for its classes, without the shape */
    memset(&c, 0, sizeof c);
    c.type = PCLR_FLOAT; c.op = PCLR_SUM; c.backend = PCLR_CUDA;
    c.layout = PCLR_LAYOUT_ROWS; c.rows = 4096; c.cols = 48;
    memset(&opt, 0, sizeof opt);
    opt.max_n = 1u << 12; /* ignored for a layout */
    CHECK(pclr_tune_sweep(&c, &opt, fake_layout_measure, &seen_n, list, PCLR_TUNE_CLASSES, &n) == PCLR_OK && n == 1, "layout sweep: one entry");
    CHECK(list[0].shape == PCLR_SHAPE_ROWS_SHORT && list[0].size_class == 20 && list[0].cfg.layout == PCLR_LAYOUT_ROWS &&
          list[0].cfg.rows == 0 && list[0].cfg.cols == 0 && seen_n == 4096u * 48, "rows_short:20, shape dropped, measured at 4096 x 48 (%llu)",
          (unsigned long long)seen_n);
    CHECK(list[0].cfg.group_size == 256 && list[0].cfg.unroll == 2 && list[0].cfg.lanes == 8 && list[0].cfg.vector_width == 1,
          "found group %d unroll %d lanes %d", list[0].cfg.group_size, list[0].cfg.unroll, list[0].cfg.lanes);
    c.layout = PCLR_LAYOUT_SEGMENTS;
    CHECK(pclr_tune_sweep(&c, &opt, fake_layout_measure, &seen_n, list, PCLR_TUNE_CLASSES, &n) == PCLR_ERR_UNSUPPORTED_COMBINATION && n == 0,
          "segments are tuned as rows");
}

/* A temporary file a signal left between its write and its rename (issue 30): the next store of
   the same file removes it once it is a minute old and this user's; a fresh one (a writer at work),
   another file's temporary and files of other names stay. */
static void test_stale_temporaries(const char *dir) {
    const char *id = "stale kernel\noptions\ndevice Fake GPU\ndriver 1";
    char file[700], stale[800], fresh[800], other[800], plain[800], tune[700], tune_stale[800];
    const int x = 7;
    struct utimbuf old_times;
    pclr_tune_entry e = random_entry(PCLR_OPENCL, "Stale GPU", "1.0", PCLR_UINT, PCLR_SUM, 16);
    old_times.actime = old_times.modtime = time(NULL) - 120;
    CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_OK, "a first store");
    cache_file(file, sizeof file, dir, id);
    snprintf(stale, sizeof stale, "%s.4242.0x7ffc1234.65f0a1b2.tmp", file);
    snprintf(fresh, sizeof fresh, "%s.4243.0x7ffc1234.65f0a1b3.tmp", file);
    snprintf(other, sizeof other, "%s/another.bin.4244.0x7ffc1234.65f0a1b4.tmp", dir);
    snprintf(plain, sizeof plain, "%s.notes.tmp", file);
    CHECK(write_file(stale, "half a binary", 13) && utime(stale, &old_times) == 0, "a temporary two minutes old");
    CHECK(write_file(fresh, "a writer at work", 16) && write_file(other, "x", 1) && utime(other, &old_times) == 0 &&
          write_file(plain, "y", 1) && utime(plain, &old_times) == 0, "a fresh one, another file's, one of another form");
    CHECK(pclr_cache_store(dir, id, strlen(id), &x, sizeof x) == PCLR_OK, "the same file stored again");
    CHECK(access(stale, F_OK) != 0, "the stale temporary is gone");
    CHECK(access(fresh, F_OK) == 0 && access(other, F_OK) == 0 && access(plain, F_OK) == 0,
          "the fresh one, another file's and one of another form stay");
    remove(fresh);
    remove(other);
    remove(plain);
    /* the tuning file's save sweeps the same way */
    path_in(tune, sizeof tune, dir, "tuning.txt");
    snprintf(tune_stale, sizeof tune_stale, "%s.99.0x1.2.tmp", tune);
    CHECK(write_file(tune_stale, "#", 1) && utime(tune_stale, &old_times) == 0, "a stale temporary of a tuning file");
    CHECK(pclr_tune_save(tune, &e, 1) == PCLR_OK && access(tune_stale, F_OK) != 0, "saving the tuning file removes it");
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
    test_stale_temporaries(path_in(dir, sizeof dir, g_root, "cache"));
    test_sha256();
    test_cache_trust();
    test_two_processes(path_in(dir, sizeof dir, g_root, "shared"));
    test_size_class();
    test_tune_format_parse();
    test_tune_files();
    test_tune_save_safety();
    test_tune_control_chars();
    test_tune_concurrent();
    test_tune_sweep();
    test_tune_shapes();
    test_default_dir();
    remove_tree(g_root);
    CHECK(access(g_root, F_OK) != 0, "temp dir removed");
    return pclr_test_summary("test_cache");
}
