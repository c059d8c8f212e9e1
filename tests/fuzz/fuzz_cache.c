/* libFuzzer harness: bytes -> a cache file -> pclr_cache_load, and a store
   and load of the bytes as a payload. The first byte picks one of three
   identities (two of the same length), the rest is the file under that
   identity's name in a private temporary directory. Invariants (abort on
   violation):
     a miss gives a reason, *data NULL, *size 0 and allocates nothing that
     stays (a counting allocator); a hit is exactly header (64 bytes) +
     identity + payload, the payload handed back is the file's tail and its
     SHA-256 is the header's; no file is read as another identity's;
     storing the bytes as a payload, then loading, gives them back. */
#define PCLREDUCE_IMPLEMENTATION
#include "pclreduce.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQUIRE(c)                                                                      \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "fuzz_cache: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                    \
        }                                                                               \
    } while (0)

static const char *const g_ids[3] = {"kernel source A\n-cl-std=CL1.2\nFuzz Device\n1.0",
                                     "kernel source B\n-cl-std=CL1.2\nFuzz Device\n1.0", /* same length as A */
                                     "x"};
static char g_dir[64];

static void file_of(char *buf, size_t cap, int id) {
    snprintf(buf, cap, "%s/%016llx.bin", g_dir, (unsigned long long)pclr_hash64(g_ids[id], strlen(g_ids[id]), PCLR_HASH_SEED));
}

static void cleanup(void) {
    char path[160];
    int i;
    for (i = 0; i < 3; ++i) {
        file_of(path, sizeof path, i);
        remove(path);
    }
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/pclr_fuzz_cache.XXXXXX");
    REQUIRE(mkdtemp(g_dir) != NULL);
    atexit(cleanup);
    return 0;
}

typedef struct counting { long live; } counting;
static void *count_alloc(size_t size, void *user) {
    ++((counting *)user)->live;
    return malloc(size);
}
static void count_free(void *p, void *user) {
    if (p) --((counting *)user)->live;
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[160];
    counting c = {0};
    pclr_allocator a;
    void *got = NULL;
    size_t got_size = 99, idlen;
    const char *why = NULL, *id;
    unsigned char sum[32];
    int k, hit;
    FILE *f;
    if (size < 1 || size > 1 << 20) return 0;
    k = data[0] % 3;
    id = g_ids[k];
    idlen = strlen(id);
    ++data;
    --size;
    a.alloc = count_alloc;
    a.free = count_free;
    a.user = &c;
    file_of(path, sizeof path, k);
    f = fopen(path, "wb");
    REQUIRE(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
    chmod(path, 0600);
    hit = pclr_cache_load(g_dir, id, idlen, &a, &got, &got_size, &why);
    if (!hit) {
        REQUIRE(why != NULL && got == NULL && got_size == 0 && c.live == 0);
    } else {
        REQUIRE(why == NULL && got != NULL && c.live == 1);
        REQUIRE(size == 64 + idlen + got_size && memcmp(data, "PCLRBIN", 8) == 0);
        REQUIRE(memcmp(data + 64, id, idlen) == 0 && memcmp(data + 64 + idlen, got, got_size) == 0);
        pclr__sha256(got, got_size, sum);
        REQUIRE(memcmp(sum, data + 32, 32) == 0);
        count_free(got, &c);
    }
    /* a file valid for one identity, under the other of the same length: never a hit */
    if (k < 2 && hit) {
        char other[160];
        file_of(other, sizeof other, 1 - k);
        REQUIRE(rename(path, other) == 0);
        REQUIRE(pclr_cache_load(g_dir, g_ids[1 - k], idlen, &a, &got, &got_size, &why) == 0 && c.live == 0);
        remove(other);
    }
    /* the bytes as a payload: stored, then loaded back */
    REQUIRE(pclr_cache_store(g_dir, id, idlen, size ? data : NULL, size) == PCLR_OK);
    REQUIRE(pclr_cache_load(g_dir, id, idlen, &a, &got, &got_size, &why) == 1 && got_size == size &&
            (size == 0 || memcmp(got, data, size) == 0));
    count_free(got, &c);
    REQUIRE(c.live == 0);
    return 0;
}
