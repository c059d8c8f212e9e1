/* libFuzzer harness: bytes -> a tuning file -> the tuning-file parser and
   its file functions. Invariants (abort on violation):
     every line: pclr_tune_parse gives OK with no reason, or an error with
     one; a parsed entry is resolved, formats to exactly one line (one '\n',
     at its end) and parses back to the same entry (names byte for byte);
     pclr_tune_load of the bytes as a file: every entry it returns is for
     the asked backend/device/driver and resolves, no two share a slot;
     pclr_tune_save_ex of one entry onto the file: refused with a reason
     and the file untouched when it is not a tuning file, else saved, the
     entry loads back and every line that was not replaced is still there.
   The files live in a private temporary directory, removed at exit. */
#define PCLREDUCE_IMPLEMENTATION
#include "pclreduce.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQUIRE(c)                                                                     \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "fuzz_tune: invariant failed at line %d: %s\n", __LINE__, #c); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

static char g_dir[64], g_file[128], g_lock[160];

static void cleanup(void) {
    remove(g_file);
    remove(g_lock);
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/pclr_fuzz_tune.XXXXXX");
    REQUIRE(mkdtemp(g_dir) != NULL);
    snprintf(g_file, sizeof g_file, "%s/tuning.txt", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s.lock", g_file);
    atexit(cleanup);
    return 0;
}

static int same_entry(const pclr_tune_entry *a, const pclr_tune_entry *b) {
    return a->backend == b->backend && a->type == b->type && a->op == b->op && a->size_class == b->size_class &&
           a->shape == b->shape &&
           strcmp(a->device, b->device) == 0 && strcmp(a->driver, b->driver) == 0 &&
           memcmp(&a->cfg, &b->cfg, sizeof a->cfg) == 0;
}

static unsigned char *read_back(size_t *len) {
    FILE *f = fopen(g_file, "rb");
    unsigned char *p = (unsigned char *)malloc(1 << 20);
    *len = 0;
    REQUIRE(p);
    if (f) {
        *len = fread(p, 1, 1 << 20, f);
        fclose(f);
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text, *line, *next, out[4096];
    pclr_tune_entry e, back, first, *list = NULL;
    const char *why;
    size_t count = 0, i, j, n, before_len, after_len;
    unsigned char *before, *after;
    int have_first = 0;
    FILE *f;
    pclr_result r;
    if (size > 1 << 16) return 0;
    text = (char *)malloc(size + 1);
    REQUIRE(text);
    memcpy(text, data, size);
    text[size] = '\0';
    /* every line through parse, format, parse */
    for (line = text; line; line = next) {
        if ((next = strchr(line, '\n')) != NULL) *next++ = '\0';
        why = "unset";
        r = pclr_tune_parse(line, &e, &why);
        REQUIRE((r == PCLR_OK) == (why == NULL));
        if (r != PCLR_OK) continue;
        REQUIRE(pclr_config_resolve(&e.cfg, &back.cfg, NULL) == PCLR_OK);
        n = pclr_tune_format(&e, out, sizeof out);
        REQUIRE(n > 0 && n < sizeof out && strlen(out) == n && out[n - 1] == '\n' && strchr(out, '\n') == out + n - 1);
        REQUIRE(pclr_tune_parse(out, &back, &why) == PCLR_OK && same_entry(&e, &back));
        if (!have_first) { first = e; have_first = 1; }
    }
    free(text);

    /* the bytes as a file: load, then save one entry onto it */
    f = fopen(g_file, "wb");
    REQUIRE(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
    if (!have_first) {
        memset(&first, 0, sizeof first);
        first.backend = PCLR_OPENCL;
        strcpy(first.device, "fuzz \"device\"\t1");
        strcpy(first.driver, "1.0");
        first.type = PCLR_FLOAT;
        first.op = PCLR_SUM;
        first.size_class = 20;
        first.cfg.type = PCLR_FLOAT; first.cfg.op = PCLR_SUM; first.cfg.backend = PCLR_OPENCL;
        REQUIRE(pclr_config_resolve(&first.cfg, &first.cfg, NULL) == PCLR_OK);
    }
    REQUIRE(pclr_tune_load(g_file, first.backend, first.device, first.driver, NULL, &list, &count) == PCLR_OK);
    REQUIRE((count == 0) == (list == NULL));
    for (i = 0; i < count; ++i) {
        REQUIRE(list[i].backend == first.backend && strcmp(list[i].device, first.device) == 0 && strcmp(list[i].driver, first.driver) == 0);
        REQUIRE(pclr_config_resolve(&list[i].cfg, &back.cfg, NULL) == PCLR_OK);
        for (j = 0; j < i; ++j)
            REQUIRE(!(list[j].type == list[i].type && list[j].op == list[i].op && list[j].size_class == list[i].size_class &&
                      list[j].cfg.accumulate == list[i].cfg.accumulate && list[j].shape == list[i].shape));
    }
    free(list);
    before = read_back(&before_len);
    first.cfg.unroll = first.cfg.unroll == 2 ? 4 : 2; /* a change the save must show */
    r = pclr_tune_save_ex(g_file, &first, 1, &why);
    after = read_back(&after_len);
    if (r != PCLR_OK) {
        REQUIRE(r == PCLR_ERR_IO && why != NULL);
        REQUIRE(before_len == after_len && memcmp(before, after, before_len) == 0); /* untouched */
    } else {
        const pclr_tune_entry *hit = NULL;
        REQUIRE(why == NULL);
        REQUIRE(pclr_tune_load(g_file, first.backend, first.device, first.driver, NULL, &list, &count) == PCLR_OK);
        for (i = 0; i < count; ++i) /* the saved entry in its slot, with its change */
            if (list[i].type == first.type && list[i].op == first.op && list[i].size_class == first.size_class &&
                list[i].shape == first.shape && list[i].cfg.accumulate == first.cfg.accumulate) hit = &list[i];
        REQUIRE(count >= 1 && hit != NULL && hit->cfg.unroll == first.cfg.unroll);
        if (first.shape == PCLR_SHAPE_ONE)
            REQUIRE(pclr_tune_lookup(list, count, first.type, first.op, (uint64_t)1 << (first.size_class < 63 ? first.size_class : 40)) != NULL);
        free(list);
    }
    free(before);
    free(after);
    return 0;
}
