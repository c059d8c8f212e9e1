/* test_exact: accumulate = exact (sums of half, float and double, rounded
   once to nearest-even) on a device through the generic context and in the
   CPU reference, against exact sums computed apart: Python's rationals
   (tests/exact_reference.py reads the cases this program writes) and a few
   answers written by hand.

   Data that breaks ordinary sums: massive cancellation (B, 1, -B repeated),
   values spanning the whole exponent range, subnormals only, sums that fall
   exactly halfway between two results (ties to even, both ways, and a sticky
   bit that comes from the last element), sums that overflow and sums whose
   running sums would overflow while the total does not, NaN and infinities,
   signed zeros, random data with a fresh seed; n = 0, 1, primes, 2^k +- 1, at
   odd element offsets. Every case must give the same bits on the device, for
   every knob setting tried (group size, unroll, vector width, stride,
   variant, grid), as in the CPU reference, and those bits must be Python's.

   Usage: test_exact [--backend opencl|cuda|vulkan|cpu] [--platform N] [--device N] [--big] [--nvrtc-only] [-v]
   Built with -DPCLR_TEST_VULKAN it runs on Vulkan too (--backend vulkan; PCLR_SHADERC_LIBRARY names
   shaderc where it is not found). Built with -DPCLR_TEST_CUDA it also compiles every knob set's CUDA kernel
   through NVRTC (--nvrtc-only: that and the API checks, no device run).
   Environment: PCLR_TEST_SEED=S reproduces a run (the seed is printed);
   PCLR_TEST_QUICK=1 fewer sizes and knob sets; PCLR_TEST_FULL=1 every knob
   set on every type; PCLR_EXACT_PYTHON (default python3; "" skips the
   rational reference). --big: also 2^26 + 5 random elements per type
   (device and CPU reference only). */
#define _POSIX_C_SOURCE 200809L
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifdef PCLR_TEST_CUDA
#define PCLREDUCE_CUDA
#endif
#ifdef PCLR_TEST_VULKAN
#define PCLREDUCE_VULKAN
#endif
#include "../pclreduce.h"
#include "pclr_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int g_quick, g_full, g_verbose, g_big;
static uint64_t g_seed;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ values of a type */
static const pclr_type g_types[] = {PCLR_FLOAT, PCLR_DOUBLE, PCLR_HALF};

/* The nearest half to a double (ties to even), as bits; overflow gives inf. */
static uint16_t to_half(double v) {
    const uint16_t sign = signbit(v) ? 0x8000u : 0;
    double a = fabs(v), m;
    int e;
    if (v != v) return 0x7e00u;
    if (a >= 65520.0) return sign | 0x7c00u; /* past the largest half + half an ulp */
    if (a < ldexp(1.0, -14)) { /* subnormal: a multiple of 2^-24 */
        m = nearbyint(ldexp(a, 24));
        return sign | (uint16_t)m; /* 1024 becomes the smallest normal: right bits */
    }
    e = ilogb(a);
    m = nearbyint(ldexp(a, 10 - e)); /* 1024 .. 2048 */
    return sign | (uint16_t)(((e + 15) << 10) + (int)m - 1024);
}

static double from_half(uint16_t h) {
    const int e = h >> 10 & 0x1f, m = h & 0x3ff;
    const double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000u ? -v : v;
}

static void set_value(pclr_type t, unsigned char *base, uint64_t i, double v) {
    if (t == PCLR_DOUBLE) memcpy(base + 8 * i, &v, 8);
    else if (t == PCLR_INT64) { const int64_t q = (int64_t)v; memcpy(base + 8 * i, &q, 8); }
    else if (t == PCLR_FLOAT) { float f = (float)v; memcpy(base + 4 * i, &f, 4); }
    else { uint16_t h = to_half(v); memcpy(base + 2 * i, &h, 2); }
}
static void set_bits(pclr_type t, unsigned char *base, uint64_t i, uint64_t bits) {
    if (t == PCLR_DOUBLE) memcpy(base + 8 * i, &bits, 8);
    else if (t == PCLR_FLOAT) { uint32_t b = (uint32_t)bits; memcpy(base + 4 * i, &b, 4); }
    else { uint16_t b = (uint16_t)bits; memcpy(base + 2 * i, &b, 2); }
}
static double get_value(pclr_type t, const unsigned char *base, uint64_t i) {
    if (t == PCLR_DOUBLE) { double d; memcpy(&d, base + 8 * i, 8); return d; }
    if (t == PCLR_FLOAT) { float f; memcpy(&f, base + 4 * i, 4); return f; }
    { uint16_t h; memcpy(&h, base + 2 * i, 2); return from_half(h); }
}

/* The format of t: mantissa bits (without the hidden one), exponent bits. */
static int frac_bits(pclr_type t) { return t == PCLR_DOUBLE ? 52 : t == PCLR_FLOAT ? 23 : 10; }
static int exp_bits(pclr_type t) { return t == PCLR_DOUBLE ? 11 : t == PCLR_FLOAT ? 8 : 5; }
static double largest(pclr_type t) { return t == PCLR_DOUBLE ? DBL_MAX : t == PCLR_FLOAT ? FLT_MAX : 65504.0; }
/* ulp(1) / 2: the sum 1 + this is a tie */
static double half_ulp1(pclr_type t) { return ldexp(1.0, -frac_bits(t) - 1); }
/* A random finite value of t: any exponent field but the top one, any mantissa, any sign. */
static uint64_t random_finite_bits(pclr_type t, uint64_t *st) {
    const int fb = frac_bits(t), eb = exp_bits(t);
    const uint64_t r = pclr_test_rand(st), e = (r >> 1) % ((1u << eb) - 1), m = pclr_test_rand(st) & (((uint64_t)1 << fb) - 1);
    return (r & 1) << (fb + eb) | e << fb | m;
}

/* ------------------------------------------------------------------ the data sets */
typedef enum kind {
    K_RANDOM, K_POSITIVE, K_CANCEL, K_SPAN, K_SUBNORMAL, K_TIE_DOWN, K_TIE_UP, K_TIE_STICKY, K_OVERFLOW, K_OVERFLOW_NEG,
    K_RUNNING_OVERFLOW, K_INF, K_INF_BOTH, K_NAN, K_NEG_ZEROS, K_PAIRS, K_RARE_TINY, K_TIE_STICKY_MID, K_MIXED, K_COUNT
} kind;
static const char *const kind_names[K_COUNT] = {
    "random [-1, 1)", "positive [0, 1000)", "cancellation B 1 -B", "whole exponent range", "subnormals only",
    "tie: 1 + ulp/2 (to even: down)", "tie: 1 + ulp + ulp/2 (to even: up)", "tie + a sticky last element",
    "overflow to +inf", "overflow to -inf", "running sums past the largest value, total finite", "+inf among values",
    "+inf and -inf", "NaN at the end", "-0 only", "x, -x pairs (exactly 0)",
    "random [-1, 1), 1 in 61 times 2^-40, 1 in 7 zero (float's rounds fail their bound now and then)",
    "tie + a sticky element amid x, -x pairs of [-1, 1) (a round that keeps it must not pass its bound)",
    "magnitudes 1e-6..1e6, both signs (float's rounds fail their bound: the second tier)"};

/* Writes n elements of kind k at base. */
static void fill(pclr_type t, kind k, unsigned char *base, uint64_t n, uint64_t seed) {
    uint64_t st = seed, i;
    const double big = t == PCLR_DOUBLE ? 1e17 : t == PCLR_FLOAT ? 1e8 : 2048, mx = largest(t);
    for (i = 0; i < n; ++i) {
        const double u = (double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53); /* [0, 1) */
        switch (k) {
        case K_RANDOM: set_value(t, base, i, 2 * u - 1); break;
        case K_POSITIVE: set_value(t, base, i, 1000 * u); break;
        case K_CANCEL: set_value(t, base, i, i % 3 == 0 ? big : i % 3 == 1 ? 1.0 : -big); break;
        case K_SPAN: set_bits(t, base, i, random_finite_bits(t, &st)); break;
        case K_SUBNORMAL: {
            const uint64_t m = pclr_test_rand(&st) & (((uint64_t)1 << frac_bits(t)) - 1), s = pclr_test_rand(&st) & 1;
            set_bits(t, base, i, s << (frac_bits(t) + exp_bits(t)) | m);
            break;
        }
        case K_TIE_DOWN: case K_TIE_UP: case K_TIE_STICKY:
            /* 1 (or 1 + ulp), ulp/2, then pairs x, -x of any size that cancel exactly */
            if (i == 0) set_value(t, base, i, k == K_TIE_UP ? 1.0 + 2 * half_ulp1(t) : 1.0);
            else if (i == 1) set_value(t, base, i, half_ulp1(t));
            else if (k == K_TIE_STICKY && i == n - 1) set_value(t, base, i, ldexp(half_ulp1(t), -frac_bits(t) - 6));
            else if (i % 2 == 0) set_bits(t, base, i, random_finite_bits(t, &st));
            else set_value(t, base, i, -get_value(t, base, i - 1));
            break;
        case K_OVERFLOW: set_value(t, base, i, 0.75 * mx); break;
        case K_OVERFLOW_NEG: set_value(t, base, i, -0.75 * mx * (1 - u / 8)); break;
        case K_RUNNING_OVERFLOW: /* mx, mx, -mx, -mx, ...: the first two overflow a running sum */
            set_value(t, base, i, i == 0 ? 1.5 : (i % 4 == 1 || i % 4 == 2) ? mx : -mx);
            break;
        case K_INF: set_value(t, base, i, i == n / 2 ? INFINITY : 2 * u - 1); break;
        case K_INF_BOTH: set_value(t, base, i, i == n / 3 ? INFINITY : i == n - 1 ? -INFINITY : 2 * u - 1); break;
        case K_NAN: set_value(t, base, i, i == n - 1 ? NAN : 2 * u - 1); break;
        case K_NEG_ZEROS: set_value(t, base, i, -0.0); break;
        case K_PAIRS:
            if (i % 2 == 0 && i + 1 < n) set_bits(t, base, i, random_finite_bits(t, &st));
            else if (i % 2 == 1) set_value(t, base, i, -get_value(t, base, i - 1));
            else set_value(t, base, i, 0.0);
            break;
        case K_TIE_STICKY_MID: {
            const uint64_t mid = 2 + 2 * ((n - 2) / 4);
            if (i < 2) set_value(t, base, i, i == 0 ? 1.0 : half_ulp1(t));
            else if (i == mid || i == mid + 1 || (i == n - 1 && i % 2 == 0)) /* (no x without its -x) */
                set_value(t, base, i, i == mid ? ldexp(half_ulp1(t), -frac_bits(t) - 6) : 0.0);
            else set_value(t, base, i, i % 2 == 0 ? 2 * u - 1 : -get_value(t, base, i - 1));
            break;
        }
        case K_MIXED: set_value(t, base, i, (i % 2 ? -1 : 1) * pow(10.0, 12 * u - 6)); break;
        case K_RARE_TINY: set_value(t, base, i, i % 7 == 3 ? 0.0 : i % 61 == 5 ? ldexp(2 * u - 1, -40) : 2 * u - 1); break;
        default: break;
        }
    }
}

/* ------------------------------------------------------------------ cases */
typedef struct xcase {
    pclr_type type;
    kind k;
    uint64_t n, at;      /* at: element index in the type's host array */
    uint64_t ref;        /* the CPU reference's bits */
    uint64_t py;         /* Python's bits */
    int have_py;         /* 0: not checked by Python (big) */
} xcase;

static xcase *g_cases;
static size_t g_ncases, g_capcases;
static unsigned char *g_host[3]; /* per type: every case's elements */
static uint64_t g_used[3], g_cap[3];

static int type_slot(pclr_type t) { return t == PCLR_FLOAT ? 0 : t == PCLR_DOUBLE ? 1 : 2; }

static uint64_t result_bits(pclr_type t, const void *res) {
    if (t == PCLR_DOUBLE) { uint64_t b; memcpy(&b, res, 8); return b; }
    { uint32_t b; memcpy(&b, res, 4); return b; }
}

static void add_case(pclr_type t, kind k, uint64_t n, int python, uint64_t *st) {
    const int s = type_slot(t);
    const size_t es = pclr_type_size(t);
    const uint64_t misalign = pclr_test_rand(st) % 4; /* odd element offsets */
    xcase c;
    pclr_config cfg;
    unsigned char res[16];
    if (g_ncases == g_capcases) {
        g_capcases = g_capcases ? 2 * g_capcases : 256;
        g_cases = (xcase *)realloc(g_cases, g_capcases * sizeof *g_cases);
        if (!g_cases) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    if (g_used[s] + misalign + n + 8 > g_cap[s]) {
        g_cap[s] = 2 * (g_used[s] + misalign + n + 8);
        g_host[s] = (unsigned char *)realloc(g_host[s], (size_t)g_cap[s] * es);
        if (!g_host[s]) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    memset(&c, 0, sizeof c);
    c.type = t;
    c.k = k;
    c.n = n;
    c.at = g_used[s] + misalign;
    memset(g_host[s] + g_used[s] * es, 0x7f, (size_t)misalign * es); /* neighbours that must not count */
    fill(t, k, g_host[s] + c.at * es, n, pclr_test_rand(st));
    g_used[s] = c.at + n;
    memset(&cfg, 0, sizeof cfg);
    cfg.type = t;
    cfg.op = PCLR_SUM;
    cfg.accumulate = PCLR_EXACT;
    if (!CHECK(pclr_cpu_reduce_config(&cfg, g_host[s] + c.at * es, n, res) == PCLR_OK, "cpu reference refuses %s", pclr_type_name(t)))
        return;
    c.ref = result_bits(t, res);
    c.have_py = python;
    g_cases[g_ncases++] = c;
}

static const char *case_text(const xcase *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s, %s, n = %llu (offset %llu)", pclr_type_name(c->type), kind_names[c->k], (unsigned long long)c->n,
             (unsigned long long)c->at);
    return buf;
}

static void make_cases(void) {
    static const uint64_t sizes[] = {0, 1, 2, 3, 5, 7, 31, 32, 33, 100, 255, 256, 257, 1021, 4093, 4097, 65537};
    static const uint64_t quick_sizes[] = {0, 1, 2, 3, 33, 257, 4097};
    const uint64_t *sz = g_quick ? quick_sizes : sizes;
    const size_t nsz = g_quick ? COUNT(quick_sizes) : COUNT(sizes);
    uint64_t st = g_seed;
    size_t t, i;
    int k;
    for (t = 0; t < COUNT(g_types); ++t) {
        for (k = 0; k < K_COUNT; ++k)
            for (i = 0; i < nsz; ++i) {
                /* the largest size only where it tells something new */
                if (sz[i] > 5000 && k != K_RANDOM && k != K_SPAN && k != K_CANCEL && k != K_TIE_STICKY && k != K_RARE_TINY && k != K_TIE_STICKY_MID && k != K_MIXED) continue;
                add_case(g_types[t], (kind)k, sz[i], 1, &st);
            }
        if (!g_quick) {
            add_case(g_types[t], K_RANDOM, ((uint64_t)1 << 17) + 3, 1, &st);
            add_case(g_types[t], K_SPAN, ((uint64_t)1 << 17) - 1, 1, &st);
        }
        /* sizes at which a work-item of the defaults adds whole rounds, the bound's path (PoCL: 2^20 / 2048) */
        add_case(g_types[t], K_RARE_TINY, ((uint64_t)1 << 18) + 1, 1, &st);
        add_case(g_types[t], K_MIXED, ((uint64_t)1 << 18) + 3, 1, &st);
        add_case(g_types[t], K_TIE_STICKY_MID, ((uint64_t)1 << 20) + 1, 0, &st);
        if (g_big) {
            add_case(g_types[t], K_POSITIVE, ((uint64_t)1 << 26) + 5, 0, &st);
            add_case(g_types[t], K_SPAN, ((uint64_t)1 << 24) + 1, 0, &st);
        }
    }
}

/* ------------------------------------------------------------------ Python's rationals */
static void python_reference(void) {
    const char *py = getenv("PCLR_EXACT_PYTHON");
    char path[] = "/tmp/pclr_exact_XXXXXX", cmd[1024], line[128];
    FILE *f, *p;
    size_t i, got = 0, agree = 0;
    int fd, status;
    double t0 = now_s();
    if (!py) py = "python3";
    if (!*py) { SKIP("PCLR_EXACT_PYTHON is empty: the rational reference is not run"); return; }
    if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "wb"))) { CHECK(0, "cannot write the cases file"); return; }
    for (i = 0; i < g_ncases; ++i) {
        const xcase *c = &g_cases[i];
        const uint32_t es = (uint32_t)pclr_type_size(c->type);
        if (!c->have_py) continue;
        fwrite(&es, 4, 1, f);
        fwrite(&c->n, 8, 1, f);
        fwrite(g_host[type_slot(c->type)] + c->at * es, es, (size_t)c->n, f);
    }
    if (fclose(f) != 0) { CHECK(0, "cannot write the cases file"); remove(path); return; }
    snprintf(cmd, sizeof cmd, "%s tests/exact_reference.py %s 2>&1", py, path);
    if (!(p = popen(cmd, "r"))) { SKIP("%s: cannot run (no python?): the rational reference is not run", py); remove(path); return; }
    for (i = 0; i < g_ncases; ++i) {
        xcase *c = &g_cases[i];
        if (!c->have_py) continue;
        if (!fgets(line, sizeof line, p)) break;
        c->py = strtoull(line, NULL, 16);
        ++got;
    }
    while (fgets(line, sizeof line, p)) {} /* the rest (an error's text) */
    status = pclose(p);
    remove(path);
    if (status != 0 && got == 0) { SKIP("%s tests/exact_reference.py failed (status %d): the rational reference is not run", py, status); return; }
    CHECK(status == 0, "exact_reference.py exits with status %d", status);
    for (i = 0; i < g_ncases; ++i) {
        const xcase *c = &g_cases[i];
        char text[160];
        if (!c->have_py) continue;
        if (CHECK(c->ref == c->py, "cpu reference vs Python: %s: 0x%llx, Python 0x%llx", case_text(c, text, sizeof text),
                  (unsigned long long)c->ref, (unsigned long long)c->py))
            ++agree;
    }
    printf("python fractions: %lu cases, %lu agree with the cpu reference, %.1fs\n", (unsigned long)got, (unsigned long)agree, now_s() - t0);
}

/* ------------------------------------------------------------------ answers by hand */
static void known(const char *what, pclr_type t, const double *v, size_t n, uint64_t want) {
    unsigned char data[64 * 8], res[16];
    pclr_config c;
    size_t i;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.op = PCLR_SUM;
    c.accumulate = PCLR_EXACT;
    memset(res, 0, sizeof res);
    for (i = 0; i < n; ++i) set_value(t, data, i, v[i]);
    CHECK(pclr_cpu_reduce_config(&c, data, n, res) == PCLR_OK && result_bits(t, res) == want, "known %s (%s): got 0x%llx, want 0x%llx",
          what, pclr_type_name(t), (unsigned long long)result_bits(t, res), (unsigned long long)want);
}

static void known_answers(void) {
    const double cancel[] = {1e8, 1, -1e8, 1e8, 1, -1e8, 1e8, 1, -1e8}, tie[] = {1, ldexp(1, -24)}, tie_up[] = {1 + ldexp(1, -23), ldexp(1, -24)},
                 sticky[] = {1, ldexp(1, -24), ldexp(1, -70)}, fmax_tie[] = {FLT_MAX, ldexp(1, 103)}, fmax_q[] = {FLT_MAX, ldexp(1, 102)},
                 dmax3[] = {DBL_MAX, DBL_MAX, -DBL_MAX}, sub3[] = {ldexp(1, -149), ldexp(1, -149), ldexp(1, -149)},
                 infs[] = {1, INFINITY, -INFINITY}, ninf[] = {5, -INFINITY, 7}, nzero[] = {-0.0, -0.0}, dtie[] = {1, ldexp(1, -53)},
                 cancel_d[] = {1e17, 1, -1e17, 1}, halves[] = {65504, 65504, -65504, 0.5};
    known("1e8 1 -1e8 x 3", PCLR_FLOAT, cancel, 9, 0x40400000u);
    known("1 + 2^-24: a tie, to even", PCLR_FLOAT, tie, 2, 0x3f800000u);
    known("1 + 2^-23 + 2^-24: a tie, to even", PCLR_FLOAT, tie_up, 2, 0x3f800002u);
    known("1 + 2^-24 + 2^-70: sticky", PCLR_FLOAT, sticky, 3, 0x3f800001u);
    known("FLT_MAX + ulp/2: a tie, to even is 2^128", PCLR_FLOAT, fmax_tie, 2, 0x7f800000u);
    known("FLT_MAX + ulp/4", PCLR_FLOAT, fmax_q, 2, 0x7f7fffffu);
    known("3 x 2^-149", PCLR_FLOAT, sub3, 3, 3u);
    known("1 inf -inf", PCLR_FLOAT, infs, 3, 0x7fc00000u);
    known("5 -inf 7", PCLR_FLOAT, ninf, 3, 0xff800000u);
    known("-0 -0: +0", PCLR_FLOAT, nzero, 2, 0u);
    known("n = 0", PCLR_FLOAT, nzero, 0, 0u);
    known("DBL_MAX DBL_MAX -DBL_MAX", PCLR_DOUBLE, dmax3, 3, 0x7fefffffffffffffull);
    known("1 + 2^-53: a tie, to even", PCLR_DOUBLE, dtie, 2, 0x3ff0000000000000ull);
    known("1e17 1 -1e17 1", PCLR_DOUBLE, cancel_d, 4, 0x4000000000000000ull);
    known("1 inf -inf", PCLR_DOUBLE, infs, 3, 0x7ff8000000000000ull);
    known("65504 65504 -65504 0.5: in float", PCLR_HALF, halves, 4, 0x477fe080u);
}

/* ------------------------------------------------------------------ the API */
static void api(void) {
    static const pclr_type ints[] = {PCLR_UINT8, PCLR_INT8, PCLR_UINT16, PCLR_INT16, PCLR_UINT, PCLR_INT, PCLR_UINT64, PCLR_INT64};
    pclr_accumulate a = PCLR_ACCUMULATE_DEFAULT;
    pclr_config c, out;
    const char *why = NULL;
    size_t i;
    unsigned char res[16];
    CHECK(pclr_parse_accumulate("exact", &a) == PCLR_OK && a == PCLR_EXACT, "pclr_parse_accumulate(exact)");
    CHECK(strcmp(pclr_accumulate_name(PCLR_EXACT), "exact") == 0, "pclr_accumulate_name(PCLR_EXACT)");
    CHECK(PCLR_EXACT == 4, "PCLR_EXACT keeps the number 4 (after the older accumulators)");
    CHECK(pclr_sum_type(PCLR_FLOAT, PCLR_EXACT) == PCLR_FLOAT && pclr_sum_type(PCLR_HALF, PCLR_EXACT) == PCLR_FLOAT &&
              pclr_sum_type(PCLR_DOUBLE, PCLR_EXACT) == PCLR_DOUBLE, "pclr_sum_type of exact sums: float, float, double");
    for (i = 0; i < COUNT(ints); ++i) {
        memset(&c, 0, sizeof c);
        c.type = ints[i];
        c.accumulate = PCLR_EXACT;
        CHECK(pclr_sum_type(ints[i], PCLR_EXACT) == PCLR_TYPE_DEFAULT, "pclr_sum_type(%s, exact) is none", pclr_type_name(ints[i]));
        CHECK(pclr_config_resolve(&c, &out, &why) == PCLR_ERR_UNSUPPORTED_COMBINATION && why, "%s exact sum refused", pclr_type_name(ints[i]));
        CHECK(pclr_cpu_reduce_config(&c, res, 1, res) == PCLR_ERR_UNSUPPORTED_COMBINATION, "cpu reference refuses %s exact", pclr_type_name(ints[i]));
    }
    {
        static const struct { pclr_op op; pclr_finish finish; pclr_variant variant; pclr_result want; } combos[] = {
            {PCLR_STATS, PCLR_FINISH_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_ERR_UNSUPPORTED_COMBINATION},
            {PCLR_SUM, PCLR_FINISH_ATOMIC, PCLR_VARIANT_DEFAULT, PCLR_ERR_UNSUPPORTED_COMBINATION},
            {PCLR_SUM, PCLR_FINISH_PARTIALS, PCLR_VARIANT_DEFAULT, PCLR_ERR_UNSUPPORTED_COMBINATION},
            {PCLR_SUM, PCLR_FINISH_DEFAULT, PCLR_VARIANT_COLLECTIVE, PCLR_ERR_UNSUPPORTED_COMBINATION},
            {PCLR_MAX, PCLR_FINISH_DEFAULT, PCLR_VARIANT_DEFAULT, PCLR_OK}, /* only sums accumulate: max ignores it */
            {PCLR_SUM, PCLR_FINISH_LAST_GROUP, PCLR_VARIANT_NAIVE, PCLR_OK}};
        for (i = 0; i < COUNT(combos); ++i) {
            pclr_result r;
            memset(&c, 0, sizeof c);
            c.type = PCLR_FLOAT;
            c.op = combos[i].op;
            c.finish = combos[i].finish;
            c.variant = combos[i].variant;
            c.accumulate = PCLR_EXACT;
            r = pclr_config_resolve(&c, &out, &why);
            CHECK(r == combos[i].want, "resolve exact %s finish %s variant %s: %s (%s), want %s", pclr_op_name(c.op),
                  pclr_finish_name(c.finish), pclr_variant_name(c.variant), pclr_result_string(r), why ? why : "", pclr_result_string(combos[i].want));
        }
    }
    memset(&c, 0, sizeof c);
    c.accumulate = PCLR_EXACT;
    c.type = PCLR_HALF;
    CHECK(pclr_result_size(&c) == 4 && pclr_state_size(&c) == 4, "half exact: a float result and state");
    c.type = PCLR_DOUBLE;
    CHECK(pclr_result_size(&c) == 8 && pclr_state_size(&c) == 8, "double exact: a double result and state");
    {
        char desc[512];
        size_t need = 0;
        pclr_config_describe(&c, desc, sizeof desc);
        CHECK(strstr(desc, "accumulate=exact") != NULL, "describe names the accumulator: %s", desc);
        c.backend = PCLR_CUDA;
        CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_OK && need > 1000, "a cuda exact kernel is generated");
        c.backend = PCLR_OPENCL;
        CHECK(pclr_kernel_source(&c, NULL, 0, &need) == PCLR_OK && need > 1000, "an opencl exact kernel is generated");
    }
    {
        pclr_device_facts dev;
        pclr_launch plan;
        memset(&dev, 0, sizeof dev);
        dev.compute_units = 1;
        memset(&c, 0, sizeof c);
        c.accumulate = PCLR_EXACT;
        c.groups_per_unit = 1;
        CHECK(pclr_config_resolve(&c, &c, NULL) == PCLR_OK && pclr_plan(&c, &dev, (uint64_t)5 << 29, &plan) == PCLR_OK && plan.groups == 5,
              "an exact sum's group takes at most 2^29 elements (5 x 2^29 on one group per device: %llu groups)",
              (unsigned long long)plan.groups);
    }
}

/* ------------------------------------------------------------------ the device */
/* vector 0: the default; -1: the widest load (32 bytes), -2: 16 bytes (Vulkan's widest); per_unit: groups per compute unit (0: the default) */
typedef struct knobs { const char *name; int vector, unroll, group, wave; pclr_stride stride; pclr_variant variant; int per_unit; } knobs;
static const knobs g_knobs[] = {
    {"defaults", 0, 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, 0},
    {"vector 1 unroll 1 group 64 naive global", 1, 1, 64, 0, PCLR_STRIDE_GLOBAL, PCLR_VARIANT_NAIVE, 0},
    {"vector 2 unroll 2 group 256 sequential local", 2, 2, 256, 0, PCLR_STRIDE_LOCAL, PCLR_VARIANT_SEQUENTIAL, 0},
    {"32-byte loads unroll 16 group 1024 unrolled wave 64", -1, 16, 1024, 64, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_UNROLLED, 0},
    {"shuffle group 32 unroll 4", 0, 4, 32, 32, PCLR_STRIDE_GLOBAL, PCLR_VARIANT_SHUFFLE, 0},
    {"shuffle group 512 vector 1 unroll 8", 1, 8, 512, 32, PCLR_STRIDE_GLOBAL, PCLR_VARIANT_SHUFFLE, 0},
    {"defaults, one group per unit", 0, 0, 0, 0, PCLR_STRIDE_DEFAULT, PCLR_VARIANT_DEFAULT, 1},
    {"group 32 vector 1 unroll 1, 64 groups per unit", 1, 1, 32, 0, PCLR_STRIDE_GLOBAL, PCLR_VARIANT_UNROLLED, 64},
    {"16-byte loads unroll 8 group 128 naive local", -2, 8, 128, 0, PCLR_STRIDE_LOCAL, PCLR_VARIANT_NAIVE, 0},
};

static long g_reduces, g_refused;

static void run_device(pclr_context *ctx) {
    pclr_buffer *buf[3] = {NULL, NULL, NULL};
    size_t t, j, i;
    const int cpu = pclr_get_backend(ctx) == PCLR_CPU;
    const char *dev = pclr_device_name(ctx);
    const int pocl = strstr(dev, "pthread") != NULL || strstr(dev, "cpu") != NULL || strstr(dev, "CPU") != NULL;
    double t0 = now_s();
    for (t = 0; t < COUNT(g_types); ++t) {
        const size_t es = pclr_type_size(g_types[t]);
        const int s = type_slot(g_types[t]);
        if (!g_used[s]) continue;
        if (!CHECK(pclr_buffer_create(ctx, (size_t)g_used[s] * es, &buf[t]) == PCLR_OK &&
                       pclr_buffer_write(ctx, buf[t], 0, g_host[s], (size_t)g_used[s] * es) == PCLR_OK,
                   "upload %s: %s", pclr_type_name(g_types[t]), pclr_last_error(ctx)))
            goto done;
    }
    for (j = 0; j < COUNT(g_knobs); ++j) {
        for (t = 0; t < COUNT(g_types); ++t) {
            const knobs *kn = &g_knobs[j];
            const pclr_type ty = g_types[t];
            pclr_config c, resolved;
            long bad = 0, ran = 0;
            char desc[512];
            pclr_result r;
            double t1 = now_s();
            /* PoCL builds each kernel with LLVM (seconds): two sets per type there (quick: the first;
               float also on another grid, the same kernel), each type's widest ones left out; every
               set on GPUs */
            static const size_t pocl_sets[3][2] = {{0, 1}, {2, 0}, {7, 2}};
            if (!g_full && !cpu && pocl && j != pocl_sets[t][0] && (g_quick || (j != pocl_sets[t][1] && (j != 6 || t != 0)))) continue;
            if (cpu && j > 0) continue; /* the CPU context has no knobs */
            memset(&c, 0, sizeof c);
            c.type = ty;
            c.op = PCLR_SUM;
            c.accumulate = PCLR_EXACT;
            c.vector_width = kn->vector < 0 ? (int)((kn->vector == -1 ? 32 : 16) / pclr_type_size(ty)) : kn->vector;
            c.unroll = kn->unroll;
            c.group_size = kn->group;
            c.wave_width = kn->wave;
            c.stride = kn->stride;
            c.variant = kn->variant;
            c.groups_per_unit = kn->per_unit;
            if ((r = pclr_resolve(ctx, &c, 1000, &resolved)) != PCLR_OK) {
                ++g_refused;
                printf("refused here: %s %s: %s\n", pclr_type_name(ty), kn->name, pclr_last_error(ctx));
                continue;
            }
            pclr_config_describe(&resolved, desc, sizeof desc);
            for (i = 0; i < g_ncases; ++i) {
                const xcase *x = &g_cases[i];
                unsigned char res[16];
                char text[160];
                if (x->type != ty) continue;
                memset(res, 0xa5, sizeof res);
                r = reduce_one(ctx, &c, buf[t], x->at, x->n, res);
                ++g_reduces;
                ++ran;
                if (r == PCLR_ERR_UNSUPPORTED_BY_DEVICE && ran == 1) { /* known at the launch (NVIDIA OpenCL: a kernel's group limit) */
                    ++g_refused;
                    printf("refused here: %s %s: %s\n", pclr_type_name(ty), kn->name, pclr_last_error(ctx));
                    break;
                }
                if (!CHECK(r == PCLR_OK, "%s: %s: %s (%s)", desc, case_text(x, text, sizeof text), pclr_result_string(r), pclr_last_error(ctx))) {
                    if (++bad > 3) break;
                    continue;
                }
                if (!CHECK(result_bits(ty, res) == x->ref, "%s: %s: device 0x%llx, cpu reference 0x%llx", desc,
                           case_text(x, text, sizeof text), (unsigned long long)result_bits(ty, res), (unsigned long long)x->ref) &&
                    ++bad > 12)
                    break;
            }
            printf("%-6s %-52s %4ld cases, %ld wrong, %.1fs%s%s\n", pclr_type_name(ty), kn->name, ran, bad, now_s() - t1,
                   g_verbose ? "  " : "", g_verbose ? desc : "");
            fflush(stdout);
        }
    }
    /* n = 0 writes the identity, +0 */
    printf("device: %s, %ld reductions, %ld knob sets refused here, %.1fs\n", dev, g_reduces, g_refused, now_s() - t0);
done:
    for (t = 0; t < COUNT(g_types); ++t) pclr_buffer_destroy(ctx, buf[t]);
}

/* ------------------------------------------------------------------ maps
   The exact sum of a map's values: float x and y with the map double(x) * y
   (each product exact in double: the correctly rounded dot product),
   x * s with a float parameter (products rounded in float, then summed
   exactly), and x - y of doubles; cancelling data, the device against
   pclr_cpu_reduce_map bit for bit, on the default knobs and one other set
   (PoCL: the defaults; quick: the first map). */
typedef struct exact_map { const char *map, *params; pclr_type x, y; double s; } exact_map;
static const exact_map g_maps[] = {
    {"double(x) * y", NULL, PCLR_FLOAT, PCLR_FLOAT, 0},
    {"x * s", "float s", PCLR_FLOAT, PCLR_TYPE_DEFAULT, 0.1},
    {"x - y", NULL, PCLR_DOUBLE, PCLR_DOUBLE, 0},
};

static void run_maps(pclr_context *ctx) {
    static const uint64_t sizes[] = {0, 1, 7, 1021, 65537};
    const uint64_t most = 65537 + 8;
    size_t m, k, j;
    uint64_t st = g_seed ^ 0x3a9ull;
    long bad = 0, ran = 0;
    double t0 = now_s();
    const char *dev = pclr_device_name(ctx);
    const int pocl = strstr(dev, "pthread") != NULL || strstr(dev, "cpu") != NULL || strstr(dev, "CPU") != NULL;
    for (m = 0; m < (g_quick ? 1 : COUNT(g_maps)); ++m)
        for (j = 0; j < (pocl && !g_full ? 1 : 2); ++j) { /* (PoCL: the default knobs; its builds take seconds) */
            const exact_map *em = &g_maps[m];
            const size_t xs = pclr_type_size(em->x), ys = em->y ? pclr_type_size(em->y) : 0;
            unsigned char *hx = (unsigned char *)malloc((size_t)most * 8), *hy = (unsigned char *)malloc((size_t)most * 8);
            pclr_buffer *bx = NULL, *by = NULL;
            pclr_config c;
            uint64_t i;
            memset(&c, 0, sizeof c);
            c.type = em->x;
            c.op = PCLR_SUM;
            c.accumulate = PCLR_EXACT;
            c.map = em->map;
            c.params = em->params;
            c.y_type = em->y;
            if (j) { c.vector_width = 1; c.unroll = 2; c.group_size = 64; c.stride = PCLR_STRIDE_GLOBAL; }
            if (!hx || !hy) { CHECK(0, "out of memory"); free(hx); free(hy); return; }
            for (i = 0; i < most; ++i) { /* x: cancelling triples B, 1, -B and wide values; y near 1 */
                const double u = (double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53);
                const double big = em->x == PCLR_DOUBLE ? 1e17 : 1e8;
                set_value(em->x, hx, i, i % 5 == 4 ? ldexp(2 * u - 1, (int)(pclr_test_rand(&st) % 60) - 30) : i % 3 == 0 ? big : i % 3 == 1 ? 1.0 : -big);
                if (em->y) set_value(em->y, hy, i, i % 7 == 6 ? 1.0 + u : 1.0);
            }
            if (!CHECK(pclr_buffer_create(ctx, (size_t)most * xs, &bx) == PCLR_OK && pclr_buffer_write(ctx, bx, 0, hx, (size_t)most * xs) == PCLR_OK &&
                           (!em->y || (pclr_buffer_create(ctx, (size_t)most * ys, &by) == PCLR_OK &&
                                       pclr_buffer_write(ctx, by, 0, hy, (size_t)most * ys) == PCLR_OK)),
                       "map upload: %s", pclr_last_error(ctx))) {
                pclr_buffer_destroy(ctx, bx); pclr_buffer_destroy(ctx, by); free(hx); free(hy);
                return;
            }
            for (k = 0; k < COUNT(sizes); ++k) {
                const uint64_t n = sizes[k], off = k % 3; /* x and y at the same odd offset: their vectors line up */
                unsigned char got[16], ref[16];
                pclr_result r, rr;
                const pclr_type st_ = pclr_sum_type(pclr_reduced_type(&c), PCLR_EXACT);
                memset(got, 0xa5, sizeof got);
                memset(ref, 0x5a, sizeof ref);
                rr = pclr_cpu_reduce_map(&c, hx + off * xs, em->y ? hy + off * ys : NULL, n, em->params ? &em->s : NULL, ref);
                r = pclr_reduce_map(ctx, &c, bx, off, by, off, n, em->params ? &em->s : NULL, got);
                ++ran;
                if (!CHECK(rr == PCLR_OK && r == PCLR_OK, "map %s (set %lu) n = %llu: cpu %s, device %s (%s)", em->map, (unsigned long)j,
                           (unsigned long long)n, pclr_result_string(rr), pclr_result_string(r), pclr_last_error(ctx)) ||
                    !CHECK(result_bits(st_, got) == result_bits(st_, ref), "map %s (set %lu) n = %llu: device 0x%llx, cpu reference 0x%llx",
                           em->map, (unsigned long)j, (unsigned long long)n, (unsigned long long)result_bits(st_, got),
                           (unsigned long long)result_bits(st_, ref)))
                    ++bad;
            }
            pclr_buffer_destroy(ctx, bx);
            pclr_buffer_destroy(ctx, by);
            free(hx);
            free(hy);
        }
    printf("maps: %ld exact sums of mapped values, %ld wrong, %.1fs\n", ran, bad, now_s() - t0);
}

/* The device's default knobs fit every exact configuration they are applied to: on PoCL the defaults
   once forced 8 elements per load for every exact sum, which an int64 x, an 8-byte y or pixels of 2
   or 4 components cannot take (PCLR_ERR_UNSUPPORTED_COMBINATION). Each resolves and reduces as
   the CPU reference does. */
static void defaults_fit(pclr_context *ctx) {
    static const struct { pclr_type x, y; int comps; const char *map; } rows[] = {
        {PCLR_INT64, PCLR_TYPE_DEFAULT, 1, "double(x)"},
        {PCLR_FLOAT, PCLR_DOUBLE, 1, "x * y"},
        {PCLR_FLOAT, PCLR_TYPE_DEFAULT, 2, "x.x - x.y"},
        {PCLR_HALF, PCLR_TYPE_DEFAULT, 4, "x.r + x.g + x.b + x.a"},
        {PCLR_DOUBLE, PCLR_TYPE_DEFAULT, 1, NULL},
    };
    const uint64_t n = 1001;
    unsigned char hx[1001 * 16], hy[1001 * 8];
    uint64_t st = g_seed ^ 0xdefau, i;
    size_t k;
    for (k = 0; k < COUNT(rows); ++k) {
        const size_t xs = pclr_type_size(rows[k].x) * (size_t)rows[k].comps, ys = rows[k].y ? pclr_type_size(rows[k].y) : 0;
        pclr_buffer *bx = NULL, *by = NULL;
        pclr_config c, run;
        unsigned char got[16], ref[16];
        pclr_result r = PCLR_OK;
        memset(&c, 0, sizeof c);
        c.type = rows[k].x;
        c.y_type = rows[k].y;
        c.components = rows[k].comps > 1 ? rows[k].comps : 0;
        c.map = rows[k].map;
        c.op = PCLR_SUM;
        c.accumulate = PCLR_EXACT;
        for (i = 0; i < n * (uint64_t)rows[k].comps; ++i) /* full-precision values over many binades */
            set_value(rows[k].x, hx, i, rows[k].x == PCLR_INT64 ? (double)(int64_t)(pclr_test_rand(&st) >> 8) - 3.6e16
                                                              : ldexp((double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53) - 0.5, (int)(pclr_test_rand(&st) % 20) - 10));
        for (i = 0; ys && i < n; ++i) set_value(rows[k].y, hy, i, (double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53) + 0.5);
        if (!CHECK(pclr_resolve(ctx, &c, n, &run) == PCLR_OK, "exact %s%s%s with the device's defaults resolves: %s", pclr_type_name(c.type),
                   c.map ? ", map " : "", c.map ? c.map : "", pclr_last_error(ctx)))
            continue;
        if (pclr_buffer_create(ctx, sizeof hx, &bx) != PCLR_OK || pclr_buffer_write(ctx, bx, 0, hx, (size_t)n * xs) != PCLR_OK ||
            (ys && (pclr_buffer_create(ctx, sizeof hy, &by) != PCLR_OK || pclr_buffer_write(ctx, by, 0, hy, (size_t)n * ys) != PCLR_OK)))
            r = PCLR_ERR_OUT_OF_MEMORY;
        if (r == PCLR_OK) r = pclr_reduce_map(ctx, &c, bx, 0, by, 0, n, NULL, got);
        if (CHECK(r == PCLR_OK, "exact %s%s%s (vector %d) reduces: %s (%s)", pclr_type_name(c.type), c.map ? ", map " : "", c.map ? c.map : "",
                  run.vector_width, pclr_result_string(r), pclr_last_error(ctx)) &&
            CHECK(pclr_cpu_reduce_map(&c, hx, ys ? hy : NULL, n, NULL, ref) == PCLR_OK, "the CPU reference")) {
            const pclr_type t = pclr_sum_type(pclr_reduced_type(&c), PCLR_EXACT);
            CHECK(result_bits(t, got) == result_bits(t, ref), "exact %s%s%s: device 0x%llx, CPU reference 0x%llx", pclr_type_name(c.type),
                  c.map ? ", map " : "", c.map ? c.map : "", (unsigned long long)result_bits(t, got), (unsigned long long)result_bits(t, ref));
        }
        pclr_buffer_destroy(ctx, bx);
        pclr_buffer_destroy(ctx, by);
    }
}

/* A device whose exact kernel runs smaller groups than the device (NVIDIA's OpenCL: the exact kernel
   reports CL_KERNEL_WORK_GROUP_SIZE 256 and a launch of 1024 fails with CL_OUT_OF_RESOURCES), played
   by PoCL through a wrapped pclr_cl_api: every kernel reports 64 and refuses larger groups at the
   launch. An exact sum's group (the CPU default 128, or the caller's 1024) is lowered to 64 by the
   engine, pclr_resolve says so, and the bits are the CPU reference's; a native sum at group 128
   keeps its group and gets the launch's clear error. */
#define LIMITED_GROUP 64
static pclr_cl_api g_cl_real;
static cl_int CL_API_CALL limited_group_info(cl_kernel k, cl_device_id d, cl_kernel_work_group_info w, size_t s, void *v, size_t *r) {
    cl_int err = g_cl_real.GetKernelWorkGroupInfo(k, d, w, s, v, r);
    if (err == CL_SUCCESS && w == CL_KERNEL_WORK_GROUP_SIZE && v && s >= sizeof(size_t)) *(size_t *)v = LIMITED_GROUP;
    return err;
}
static cl_int CL_API_CALL limited_enqueue(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *o, const size_t *g, const size_t *l,
                                          cl_uint nw, const cl_event *w, cl_event *ev) {
    if (l && l[0] > LIMITED_GROUP) return CL_OUT_OF_RESOURCES;
    return g_cl_real.EnqueueNDRangeKernel(q, k, dims, o, g, l, nw, w, ev);
}
static void group_lowered(const pclr_desc *base) {
    static const struct { pclr_type x, y; int comps, group; const char *map; } rows[] = {
        {PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, 0, NULL},    {PCLR_FLOAT, PCLR_TYPE_DEFAULT, 1, 1024, NULL},
        {PCLR_DOUBLE, PCLR_TYPE_DEFAULT, 1, 1024, NULL}, {PCLR_HALF, PCLR_TYPE_DEFAULT, 1, 256, NULL},
        {PCLR_INT64, PCLR_TYPE_DEFAULT, 1, 1024, "double(x)"}, {PCLR_FLOAT, PCLR_DOUBLE, 1, 1024, "x * y"},
        {PCLR_FLOAT, PCLR_TYPE_DEFAULT, 4, 512, "x.r - x.a"},
    };
    const uint64_t n = 100003;
    pclr_desc d = *base;
    pclr_cl_api api;
    pclr_context *ctx = NULL;
    pclr_buffer *bx = NULL, *by = NULL;
    unsigned char *hx = (unsigned char *)malloc((size_t)n * 16), *hy = (unsigned char *)malloc((size_t)n * 8);
    char why[512];
    uint64_t st = g_seed ^ 0x9a0u, i;
    size_t k;
    int right = 0;
    if (!hx || !hy) { CHECK(0, "out of host memory"); free(hx); free(hy); return; }
    if (pclr_cl_load_api(NULL, &g_cl_real, why, sizeof why) != PCLR_OK) { SKIP("group_lowered: no OpenCL library (%s)", why); free(hx); free(hy); return; }
    api = g_cl_real;
    api.GetKernelWorkGroupInfo = limited_group_info;
    api.EnqueueNDRangeKernel = limited_enqueue;
    d.opencl_api = &api;
    if (pclr_create(&d, &ctx) != PCLR_OK) { SKIP("group_lowered: no OpenCL device"); free(hx); free(hy); return; }
    if (!CHECK(pclr_buffer_create(ctx, (size_t)n * 16, &bx) == PCLR_OK && pclr_buffer_create(ctx, (size_t)n * 8, &by) == PCLR_OK,
               "buffers: %s", pclr_last_error(ctx)))
        goto done;
    for (k = 0; k < COUNT(rows); ++k) {
        const size_t xs = pclr_type_size(rows[k].x) * (size_t)rows[k].comps, ys = rows[k].y ? pclr_type_size(rows[k].y) : 0;
        pclr_config c, run;
        pclr_input in;
        unsigned char got[16], ref[16];
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.type = rows[k].x;
        c.y_type = rows[k].y;
        c.components = rows[k].comps > 1 ? rows[k].comps : 0;
        c.map = rows[k].map;
        c.op = PCLR_SUM;
        c.accumulate = PCLR_EXACT;
        c.group_size = rows[k].group;
        for (i = 0; i < n * (uint64_t)rows[k].comps; ++i) /* full-precision values of both signs over many binades */
            set_value(rows[k].x, hx, i, rows[k].x == PCLR_INT64 ? (double)(int64_t)(pclr_test_rand(&st) >> 8) - 3.6e16
                                                              : ldexp((double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53) - 0.5, (int)(pclr_test_rand(&st) % 20) - 10));
        for (i = 0; ys && i < n; ++i) set_value(rows[k].y, hy, i, (double)(pclr_test_rand(&st) >> 11) * ldexp(1.0, -53) + 0.5);
        if (!CHECK(pclr_buffer_write(ctx, bx, 0, hx, (size_t)n * xs) == PCLR_OK && (!ys || pclr_buffer_write(ctx, by, 0, hy, (size_t)n * ys) == PCLR_OK),
                   "writing: %s", pclr_last_error(ctx)))
            continue;
        if (!CHECK(pclr_resolve(ctx, &c, n, &run) == PCLR_OK, "kernel limit %d: exact %s, group %d resolves: %s", LIMITED_GROUP,
                   pclr_type_name(c.type), c.group_size, pclr_last_error(ctx)))
            continue;
        CHECK(run.group_size == LIMITED_GROUP, "kernel limit %d: exact %s, group %d: pclr_resolve says group %d", LIMITED_GROUP,
              pclr_type_name(c.type), c.group_size, run.group_size);
        memset(&in, 0, sizeof in);
        in.x = bx;
        in.y = ys ? by : NULL;
        in.n = n;
        r = pclr_reduce(ctx, &c, &in, got, sizeof got);
        if (CHECK(r == PCLR_OK, "kernel limit %d: exact %s%s%s, group %d reduces: %s (%s)", LIMITED_GROUP, pclr_type_name(c.type),
                  c.map ? ", map " : "", c.map ? c.map : "", c.group_size, pclr_result_string(r), pclr_last_error(ctx)) &&
            CHECK(pclr_cpu_reduce_map(&c, hx, ys ? hy : NULL, n, NULL, ref) == PCLR_OK, "the CPU reference")) {
            const pclr_type t = pclr_sum_type(pclr_reduced_type(&c), PCLR_EXACT);
            right += CHECK(result_bits(t, got) == result_bits(t, ref), "kernel limit %d: exact %s, group %d: device 0x%llx, CPU reference 0x%llx",
                  LIMITED_GROUP, pclr_type_name(c.type), c.group_size, (unsigned long long)result_bits(t, got), (unsigned long long)result_bits(t, ref));
        }
    }
    { /* a native sum keeps the caller's group: the launch refuses it, and says why */
        pclr_config c;
        pclr_input in;
        float got = 0;
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.group_size = 128;
        memset(&in, 0, sizeof in);
        in.x = bx;
        in.n = n;
        r = pclr_reduce(ctx, &c, &in, &got, sizeof got);
        CHECK(r == PCLR_ERR_UNSUPPORTED_BY_DEVICE && strstr(pclr_last_error(ctx), "CL_KERNEL_WORK_GROUP_SIZE 64"),
              "kernel limit %d: a native sum at group 128 is refused with the kernel's limit: %s (%s)", LIMITED_GROUP, pclr_result_string(r),
              pclr_last_error(ctx));
    }
    printf("kernel limit %d: %d of %d exact sums lowered to it, the CPU reference's bits\n", LIMITED_GROUP, right, (int)COUNT(rows));
done:
    pclr_buffer_destroy(ctx, bx);
    pclr_buffer_destroy(ctx, by);
    pclr_destroy(ctx);
    free(hx);
    free(hy);
}

#ifdef PCLR_TEST_CUDA
/* Every knob set's CUDA kernel through NVRTC (compute_90 PTX), without a device. */
static void nvrtc_compiles(void) {
    size_t t, j;
    long compiled = 0;
    char log[4096];
    pclr_config c;
    double t0 = now_s();
    memset(&c, 0, sizeof c);
    c.accumulate = PCLR_EXACT;
    if (pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log) == PCLR_ERR_NO_DRIVER) {
        SKIP("NVRTC not found (%s): the CUDA kernels are not compiled", log);
        return;
    }
    for (j = 0; j < COUNT(g_knobs); ++j)
        for (t = 0; t < COUNT(g_types); ++t) {
            const knobs *kn = &g_knobs[j];
            pclr_result r;
            char desc[512];
            if (g_quick && j % 3 != t) continue;
            memset(&c, 0, sizeof c);
            c.type = g_types[t];
            c.op = PCLR_SUM;
            c.accumulate = PCLR_EXACT;
            c.backend = PCLR_CUDA;
            c.vector_width = kn->vector < 0 ? (int)((kn->vector == -1 ? 32 : 16) / pclr_type_size(c.type)) : kn->vector;
            c.unroll = kn->unroll;
            c.group_size = kn->group;
            c.wave_width = kn->wave == 64 ? 0 : kn->wave; /* CUDA warps are 32 wide */
            c.stride = kn->stride;
            c.variant = kn->variant;
            pclr_config_describe(&c, desc, sizeof desc);
            r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
            ++compiled;
            CHECK(r == PCLR_OK, "NVRTC compute_90: %s: %s\n%.3000s", desc, pclr_result_string(r), log);
        }
    for (j = 0; j < COUNT(g_maps); ++j) {
        pclr_result r;
        memset(&c, 0, sizeof c);
        c.type = g_maps[j].x;
        c.op = PCLR_SUM;
        c.accumulate = PCLR_EXACT;
        c.backend = PCLR_CUDA;
        c.map = g_maps[j].map;
        c.params = g_maps[j].params;
        c.y_type = g_maps[j].y;
        r = pclr_cuda_compile_check(&c, NULL, 90, 0, log, sizeof log);
        ++compiled;
        CHECK(r == PCLR_OK, "NVRTC compute_90: map %s: %s\n%.3000s", g_maps[j].map, pclr_result_string(r), log);
    }
    printf("nvrtc: %ld exact kernels compiled, %.1fs\n", compiled, now_s() - t0);
}
#endif

int main(int argc, char **argv) {
    pclr_desc desc;
    pclr_context *ctx = NULL;
    char err[512];
    const char *env;
    int i, nvrtc_only = 0;
    memset(&desc, 0, sizeof desc);
    if ((env = getenv("PCLR_TEST_BACKEND")) != NULL && *env) pclr_parse_backend(env, &desc.backends[0]);
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (pclr_parse_backend(argv[++i], &desc.backends[0]) != PCLR_OK) { fprintf(stderr, "unknown backend %s\n", argv[i]); return 2; }
        } else if (!strcmp(argv[i], "--platform") && i + 1 < argc) desc.platform = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) desc.device = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--big")) g_big = 1;
        else if (!strcmp(argv[i], "--nvrtc-only")) nvrtc_only = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else { fprintf(stderr, "usage: test_exact [--backend opencl|cuda|vulkan|cpu] [--platform N] [--device N] [--big] [--nvrtc-only] [-v]\n"); return 2; }
    }
    if (!desc.backends[0]) desc.backends[0] = PCLR_OPENCL;
    g_quick = (env = getenv("PCLR_TEST_QUICK")) != NULL && *env && *env != '0';
    g_full = (env = getenv("PCLR_TEST_FULL")) != NULL && *env && *env != '0';
    g_seed = (env = getenv("PCLR_TEST_SEED")) != NULL && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    printf("test_exact: seed %llu (PCLR_TEST_SEED=%llu reproduces it)\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
    api();
#ifdef PCLR_TEST_CUDA
    nvrtc_compiles();
#endif
    if (nvrtc_only) return pclr_test_summary("test_exact");
    known_answers();
    make_cases();
    printf("%lu cases\n", (unsigned long)g_ncases);
    python_reference();
    desc.error = err;
    desc.error_cap = sizeof err;
    desc.no_tune_file = 1;
    if (pclr_create(&desc, &ctx) != PCLR_OK) {
        SKIP("no %s device: %s", pclr_backend_name(desc.backends[0]), err);
    } else {
        printf("device: %s (%s)\n", pclr_device_name(ctx), pclr_backend_name(pclr_get_backend(ctx)));
        run_device(ctx);
        run_maps(ctx);
        defaults_fit(ctx);
        if (pclr_get_backend(ctx) == PCLR_OPENCL) group_lowered(&desc);
        pclr_destroy(ctx);
    }
    for (i = 0; i < 3; ++i) free(g_host[i]);
    free(g_cases);
    return pclr_test_summary("test_exact");
}
