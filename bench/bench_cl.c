/* bench_cl: pclreduce's OpenCL backend on one platform/device; on CPU devices
   (PoCL) also the CPU anchor, an OpenMP + SIMD loop over the same data.

   Build: cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o
          cc -O2 -fopenmp -I. bench/bench_cl.c build/omp_anchor.o -o build/bench_cl -lOpenCL -lm
   Run:   build/bench_cl --list                        (platforms, devices and their result folders)
          build/bench_cl --platform 0 --device 0 [--quick] [--study] [--types ...] ...
          build/bench_cl --platform 0 --device 0 --vocab [--types uint8,half] [--ops stats] [--accumulate native]
   Writes bench_opencl.csv (or study_opencl.csv, vocab_opencl.csv) and device_opencl.txt to --out DIR
   (default bench/results/<slug>, e.g. h100-nvidia-opencl, pocl-amd-epyc-7b13-16c).

   Kernel times come from profiling events, so the bench makes its own
   profiling queue and hands it to pclr_cl_create (pclr_cl_create_default's
   queue has no profiling). Inputs rotate over K slices of one buffer, each
   call the next slice (element offset into the pool), K x bytes > 3 x cache. */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#include "pclreduce.h"

#include "bench_common.h"
#include "omp_anchor.h"

/* IMPL_READ: the streaming-read limit (GPUs: an OpenCL kernel of 16-byte
   loads; CPU devices: omp_anchor_read on the host); IMPL_OMP_STATS: the
   OpenMP stats loop (float). */
enum impl_kind { IMPL_OMP, IMPL_PCLR, IMPL_READ, IMPL_OMP_STATS };

typedef struct impl {
    enum impl_kind kind;
    char name[64];
    pclr_config cfg;
} impl;

typedef struct bench {
    bench_opts o;
    char device[256], platform[128], out_dir[512];
    cl_device_id dev;
    cl_device_type dev_type;
    cl_context context;
    cl_command_queue queue;
    pclr_cl_context *pc;
    cl_program read_prog; /* the read kernel (GPU devices, vocabulary run) */
    cl_kernel read_kernel;
    size_t read_global;
    cl_mem pool, out;
    void *pool_host;
    size_t pool_bytes, cache_bytes;
    int profiling_ok; /* 0 after the first event without timestamps: host clock instead */
    int failures;
} bench;

typedef struct point {
    bench *b;
    const impl *im;
    pclr_config cfg;
    pclr_type type;
    pclr_op op;
    uint64_t n;
    size_t bytes;
    int buffers, next, batch;
    char err[256];
} point;

static int next_slice(point *p) {
    int s = p->next;
    p->next = (p->next + 1) % p->buffers;
    return s;
}

static int pclr_fail(point *p, pclr_result r, const char *what) {
    if (r == PCLR_OK) return 0;
    snprintf(p->err, sizeof p->err, "%s: %s (%.120s)", what, pclr_result_string(r), pclr_cl_last_error(p->b->pc));
    return -1;
}
static int cl_fail(point *p, cl_int e, const char *what) {
    if (e == CL_SUCCESS) return 0;
    snprintf(p->err, sizeof p->err, "%s failed with OpenCL error %d", what, (int)e);
    return -1;
}

/* Host-run implementations: the OpenMP loops. */
static int host_impl(const point *p) {
    return p->im->kind == IMPL_OMP || p->im->kind == IMPL_OMP_STATS || (p->im->kind == IMPL_READ && !p->b->read_kernel);
}

static const void *host_slice(point *p, int s);

/* Runs a host implementation on slice s; result (if not NULL): omp's element,
   the stats as a pclr_stats_result, the read limit's fold. */
static void host_run(point *p, int s, void *result) {
    const void *x = host_slice(p, s);
    if (p->im->kind == IMPL_OMP) {
        double r[1];
        omp_anchor_reduce(p->type, p->op, x, p->n, result ? result : r);
    } else if (p->im->kind == IMPL_OMP_STATS) {
        omp_anchor_stats st;
        omp_anchor_stats_f32((const float *)x, p->n, &st);
        if (result) {
            pclr_stats_result r;
            memset(&r, 0, sizeof r);
            r.count = st.count;
            r.sum.f32 = (float)st.sum;
            r.min.f32 = st.min;
            r.max.f32 = st.max;
            r.mean = st.mean;
            r.var = st.var;
            r.sample_var = st.sample_var;
            memcpy(result, &r, sizeof r);
        }
    } else {
        volatile uint64_t v = omp_anchor_read(x, p->bytes);
        if (result) memcpy(result, (const void *)&v, 8);
    }
}

/* Enqueues one reduction of slice s into element 0 of b->out; *ev (if not NULL) gets its event. */
static int launch(point *p, int s, cl_event *ev) {
    if (p->im->kind == IMPL_READ) {
        bench *b = p->b;
        cl_ulong off = (cl_ulong)s * p->bytes / 16, nvec = p->bytes / 16;
        size_t global = b->read_global, local = 256;
        if (global > (nvec + 255) / 256 * 256) global = (nvec + 255) / 256 * 256;
        if (cl_fail(p, clSetKernelArg(b->read_kernel, 0, sizeof(cl_mem), &b->pool), "clSetKernelArg") ||
            cl_fail(p, clSetKernelArg(b->read_kernel, 1, sizeof off, &off), "clSetKernelArg") ||
            cl_fail(p, clSetKernelArg(b->read_kernel, 2, sizeof nvec, &nvec), "clSetKernelArg") ||
            cl_fail(p, clSetKernelArg(b->read_kernel, 3, sizeof(cl_mem), &b->out), "clSetKernelArg") ||
            cl_fail(p, clEnqueueNDRangeKernel(b->queue, b->read_kernel, 1, NULL, &global, &local, 0, NULL, ev), "read kernel"))
            return -1;
        return 0;
    }
    return pclr_fail(p, pclr_cl_reduce_async(p->b->pc, &p->cfg, p->b->pool, (uint64_t)s * p->n, p->n, p->b->out, 0, 0, NULL, ev),
                     "pclr_cl_reduce_async");
}

static const void *host_slice(point *p, int s) { return (const char *)p->b->pool_host + (size_t)s * p->bytes; }

/* Start/end of two events in microseconds; -1 when the queue gives no timestamps. */
static double event_span_us(bench *b, cl_event first, cl_event last) {
    cl_ulong t0 = 0, t1 = 0;
    if (!b->profiling_ok ||
        clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS || t1 < t0) {
        if (b->profiling_ok) fprintf(stderr, "bench_cl: no profiling timestamps; kernel and pipelined times use the host clock\n");
        b->profiling_ok = 0;
        return -1;
    }
    return (double)(t1 - t0) / 1e3;
}

static double sample_kernel(void *u) {
    point *p = (point *)u;
    cl_event ev = NULL;
    double t0 = bench_now(), us;
    if (host_impl(p)) {
        host_run(p, next_slice(p), NULL);
        return 1e6 * (bench_now() - t0);
    }
    if (launch(p, next_slice(p), &ev) || cl_fail(p, clWaitForEvents(1, &ev), "clWaitForEvents")) {
        if (ev) clReleaseEvent(ev);
        return -1;
    }
    us = event_span_us(p->b, ev, ev);
    if (us < 0) us = 1e6 * (bench_now() - t0);
    clReleaseEvent(ev);
    return us;
}

static double sample_pipelined(void *u) {
    point *p = (point *)u;
    cl_event first = NULL, last = NULL;
    double t0 = bench_now(), us = -1;
    int i;
    if (host_impl(p)) {
        for (i = 0; i < p->batch; ++i) host_run(p, next_slice(p), NULL);
        return 1e6 * (bench_now() - t0) / p->batch;
    }
    for (i = 0; i < p->batch && !p->err[0]; ++i)
        launch(p, next_slice(p), i == 0 ? &first : i == p->batch - 1 ? &last : NULL);
    if (!p->err[0] && !cl_fail(p, clWaitForEvents(1, &last), "clWaitForEvents")) {
        us = event_span_us(p->b, first, last);
        if (us < 0) us = 1e6 * (bench_now() - t0);
        us /= p->batch;
    }
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    return p->err[0] ? -1 : us;
}

/* Result in host memory: pclreduce's blocking call; the anchor is blocking by nature. */
static int blocking(point *p, int s, void *result) {
    if (host_impl(p)) {
        host_run(p, s, result);
        return 0;
    }
    if (p->im->kind == IMPL_READ) { /* the GPU read kernel: launch, wait */
        if (launch(p, s, NULL) || cl_fail(p, clFinish(p->b->queue), "clFinish")) return -1;
        memset(result, 0, 8);
        return 0;
    }
    return pclr_fail(p, pclr_cl_reduce(p->b->pc, &p->cfg, p->b->pool, (uint64_t)s * p->n, p->n, result), "pclr_cl_reduce");
}

static double sample_blocking(void *u) {
    point *p = (point *)u;
    double t0 = bench_now(), r[16];
    if (blocking(p, next_slice(p), r)) return -1;
    return 1e6 * (bench_now() - t0);
}

/* Blocking and async paths on slices 0 and K-1 against the CPU reference. */
static int check_point(point *p, const double refs[2], char *why, size_t cap) {
    int k, slices[2];
    slices[0] = 0;
    slices[1] = p->buffers - 1;
    for (k = 0; k < (p->buffers > 1 ? 2 : 1); ++k) {
        double got[1];
        unsigned char junk[8];
        memset(got, 0xa5, sizeof got);
        if (blocking(p, slices[k], got)) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (!bench_check(p->type, p->op, p->n, got, &refs[k], why, cap)) return 0;
        if (p->im->kind != IMPL_PCLR) continue;
        memset(junk, 0xa5, sizeof junk);
        memset(got, 0xa5, sizeof got);
        if (cl_fail(p, clEnqueueWriteBuffer(p->b->queue, p->b->out, CL_TRUE, 0, 8, junk, 0, NULL, NULL), "clEnqueueWriteBuffer") ||
            launch(p, slices[k], NULL) ||
            cl_fail(p, clEnqueueReadBuffer(p->b->queue, p->b->out, CL_TRUE, 0, pclr_type_size(p->type), got, 0, NULL, NULL),
                    "clEnqueueReadBuffer")) {
            snprintf(why, cap, "%.150s", p->err);
            return 0;
        }
        if (!bench_check(p->type, p->op, p->n, got, &refs[k], why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (async path)");
            return 0;
        }
    }
    return 1;
}

static void measure(point *p, bench_row *row) {
    const bench_opts *o = &p->b->o;
    double est_us = -1;
    int i;
    row->buffers = p->buffers;
    for (i = 0; i < 2 && !p->err[0]; ++i) sample_kernel(p); /* warm-up */
    if (!p->err[0] && o->do_kernel) row->kernel_us = est_us = bench_measure(sample_kernel, p, o->target_s, o->min_reps, &row->kernel_reps);
    if (!p->err[0] && o->do_pipelined) {
        if (est_us < 0) est_us = sample_kernel(p);
        p->batch = row->batch = bench_batch_for(o, est_us);
        row->pipelined_us = bench_measure(sample_pipelined, p, o->target_s, o->min_reps > 5 ? 5 : o->min_reps, &row->pipelined_reps);
    }
    if (!p->err[0] && o->do_blocking) {
        if (host_impl(p) && o->do_kernel) { /* the same thing as its kernel time */
            row->blocking_us = row->kernel_us;
            row->blocking_reps = row->kernel_reps;
        } else {
            row->blocking_us = bench_measure(sample_blocking, p, o->target_s, o->min_reps, &row->blocking_reps);
        }
    }
    if (p->err[0]) {
        snprintf(row->status, sizeof row->status, "FAIL: %.150s", p->err);
        row->kernel_us = row->pipelined_us = row->blocking_us = NAN;
    }
}

/* ------------------------------------------------------------ devices */
typedef struct dev_entry {
    int platform, index; /* index within its platform */
    cl_platform_id pid;
    cl_device_id did;
    cl_device_type type;
    char pname[128], dname[256], slug[128];
    cl_uint units;
} dev_entry;

static void entry_slug(dev_entry *d) {
    char s[96];
    if (strstr(d->pname, "NVIDIA")) {
        bench_gpu_slug(d->dname, s, sizeof s);
        snprintf(d->slug, sizeof d->slug, "%s-nvidia-opencl", s);
    } else if (strstr(d->pname, "Portable Computing Language") || strstr(d->pname, "pocl") || strstr(d->pname, "PoCL")) {
        if (d->type & CL_DEVICE_TYPE_CPU) bench_cpu_slug(d->units, s, sizeof s);
        else bench_slugify(d->dname, s, sizeof s);
        snprintf(d->slug, sizeof d->slug, "pocl-%s", s);
    } else {
        char p[64];
        if (d->type & CL_DEVICE_TYPE_GPU) bench_gpu_slug(d->dname, s, sizeof s);
        else bench_slugify(d->dname, s, sizeof s);
        bench_slugify(d->pname, p, sizeof p);
        if (strchr(p, '-')) *strchr(p, '-') = '\0';
        snprintf(d->slug, sizeof d->slug, "%.60s-%.30s-opencl", s, p);
    }
}

static int list_devices(dev_entry *out, int cap) {
    cl_platform_id plats[16];
    cl_uint np = 0, pi;
    int k = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return 0;
    if (np > 16) np = 16;
    for (pi = 0; pi < np; ++pi) {
        cl_device_id devs[16];
        cl_uint nd = 0, di;
        char pname[128] = "";
        clGetPlatformInfo(plats[pi], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) continue;
        if (nd > 16) nd = 16;
        for (di = 0; di < nd && k < cap; ++di, ++k) {
            dev_entry *d = &out[k];
            memset(d, 0, sizeof *d);
            d->platform = (int)pi;
            d->index = (int)di;
            d->pid = plats[pi];
            d->did = devs[di];
            snprintf(d->pname, sizeof d->pname, "%s", pname);
            clGetDeviceInfo(devs[di], CL_DEVICE_NAME, sizeof d->dname, d->dname, NULL);
            clGetDeviceInfo(devs[di], CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
            clGetDeviceInfo(devs[di], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->units, &d->units, NULL);
            entry_slug(d);
        }
    }
    return k;
}

/* --platform P --device D: that device; only --platform: its first device;
   only --device: the D-th over all platforms; neither: the first GPU, else the first device. */
static const dev_entry *pick_device(const dev_entry *all, int count, int platform, int device) {
    int i, seen = 0;
    for (i = 0; i < count; ++i) {
        if (platform >= 0 && all[i].platform != platform) continue;
        if (platform >= 0 && device >= 0 && all[i].index != device) continue;
        if (platform < 0 && device >= 0 && seen++ != device) continue;
        if (platform < 0 && device < 0 && !(all[i].type & CL_DEVICE_TYPE_GPU)) continue;
        return &all[i];
    }
    return platform < 0 && device < 0 && count > 0 ? &all[0] : NULL;
}

static void write_device_file(bench *b, int anchor) {
    FILE *f = bench_open_out(b->out_dir, "device_opencl.txt");
    char text[4096];
    if (!f) return;
    fprintf(f, "backend: opencl\nplatform: %s\ndevice: %s\ncache: %zu bytes\n", b->platform, b->device, b->cache_bytes);
    if (anchor) fprintf(f, "CPU anchor: OpenMP + SIMD loop, %d threads (-O3 -march=native -ffast-math -fopenmp)\n", omp_anchor_threads());
    pclr_cl_describe(b->pc, text, sizeof text);
    fprintf(f, "pclreduce: %s\n%s\n", PCLREDUCE_VERSION, text);
    fclose(f);
}

static void fill_pool(bench *b, pclr_type t) {
    uint64_t count = b->pool_bytes / pclr_type_size(t);
    cl_int e;
    bench_fill(t, b->pool_host, count, 0x5eed0000u + (uint64_t)t);
    e = clEnqueueWriteBuffer(b->queue, b->pool, CL_TRUE, 0, (size_t)(count * pclr_type_size(t)), b->pool_host, 0, NULL, NULL);
    if (e != CL_SUCCESS) { fprintf(stderr, "bench_cl: writing the input failed (%d)\n", (int)e); exit(1); }
}

/* Slices so that they span more than 3 x the device's cache (at least 256 MiB). */
static size_t rotation_span(const bench *b) {
    return 3 * b->cache_bytes > ((size_t)256 << 20) ? 3 * b->cache_bytes : ((size_t)256 << 20);
}
static int buffers_for(const bench *b, size_t bytes) {
    size_t span = rotation_span(b);
    size_t k = (span + bytes - 1) / bytes, fit = b->pool_bytes / bytes;
    if (k > fit) k = fit;
    return k < 1 ? 1 : (int)k;
}

static pclr_result prepare(bench *b, const pclr_config *cfg, const char *name) {
    double t0 = bench_now();
    pclr_result r = pclr_cl_prepare(b->pc, cfg);
    if (r == PCLR_OK)
        printf("# prepared %s %s %s in %.1f ms\n", name, pclr_type_name(cfg->type), pclr_op_name(cfg->op), 1e3 * (bench_now() - t0));
    else
        printf("# FAIL prepare %s %s %s: %s (%s)\n", name, pclr_type_name(cfg->type), pclr_op_name(cfg->op), pclr_result_string(r),
               pclr_cl_last_error(b->pc));
    return r;
}

/* ------------------------------------------------------------ the sweep */
static int build_read_kernel(bench *b);

static void run_sweep(bench *b, int anchor) {
    impl impls[BENCH_MAX_TUNED + 3];
    int nimpl = 0, ti, oi, i;
    FILE *csv = bench_open_out(b->out_dir, "bench_opencl.csv");
    if (!csv) exit(1);
    bench_csv_header(csv);
    memset(impls, 0, sizeof impls);
    if (anchor) { impls[nimpl].kind = IMPL_OMP; snprintf(impls[nimpl++].name, 64, "omp"); }
    /* GPU devices: the read kernel first, every later row's efficiency is against it */
    if (!anchor && build_read_kernel(b) != 0) printf("# the read kernel did not build: no read limit, no efficiency\n");
    if (b->read_kernel) { impls[nimpl].kind = IMPL_READ; snprintf(impls[nimpl++].name, 64, "read-limit"); }
    impls[nimpl].kind = IMPL_PCLR; snprintf(impls[nimpl++].name, 64, "pclreduce");
    for (i = 0; i < b->o.ntuned; ++i) {
        impls[nimpl].kind = IMPL_PCLR;
        impls[nimpl].cfg = b->o.tuned[i];
        bench_tuned_name(&b->o.tuned[i], impls[nimpl].name, sizeof impls[nimpl].name);
        ++nimpl;
    }
    printf("# %s on %s. Times in us per call (median); GB/s from the kernel time.\n", b->device, b->platform);
    if (anchor) printf("# omp/impl = OpenMP loop time / this time (above 1: faster than the loop), %d threads.\n", omp_anchor_threads());
    bench_table_header(anchor ? "omp" : NULL);
    for (ti = 1; ti < PCLR_TYPE_COUNT_; ++ti) {
        pclr_type t = (pclr_type)ti;
        uint64_t sizes[40];
        int nsizes, si;
        if (!b->o.types[t]) continue;
        if (t == PCLR_DOUBLE && !pclr_cl_get_features(b->pc)->fp64) { printf("# skip double: the device has no fp64\n"); continue; }
        nsizes = bench_sizes(&b->o, t, sizes, 40);
        fill_pool(b, t);
        for (oi = 1; oi < PCLR_CUSTOM; ++oi) {
            pclr_op op = (pclr_op)oi;
            int usable[BENCH_MAX_TUNED + 3];
            if (!b->o.ops[op]) continue;
            for (i = 0; i < nimpl; ++i) {
                pclr_config c = impls[i].cfg;
                usable[i] = 1;
                if (impls[i].kind != IMPL_PCLR) continue;
                c.type = t; c.op = op; c.backend = PCLR_OPENCL;
                if (prepare(b, &c, impls[i].name) != PCLR_OK) { usable[i] = 0; ++b->failures; }
            }
            for (si = 0; si < nsizes; ++si) {
                uint64_t n = sizes[si];
                double refs[2]; /* room for one element of any type each */
                bench_row ref_row;
                double read_pipelined = NAN;
                point p;
                memset(&p, 0, sizeof p);
                p.b = b; p.type = t; p.op = op; p.n = n; p.bytes = n * pclr_type_size(t);
                p.buffers = buffers_for(b, p.bytes);
                pclr_cpu_reduce(t, op, host_slice(&p, 0), n, &refs[0]);
                pclr_cpu_reduce(t, op, host_slice(&p, p.buffers - 1), n, &refs[1]);
                bench_row_init(&ref_row, "opencl", b->device, t, op, n, "omp");
                snprintf(ref_row.status, sizeof ref_row.status, "FAIL: not run");
                for (i = 0; i < nimpl; ++i) {
                    bench_row row;
                    char why[200] = "";
                    p.im = &impls[i];
                    p.err[0] = '\0';
                    p.next = 0;
                    p.cfg = impls[i].cfg;
                    p.cfg.type = t; p.cfg.op = op; p.cfg.backend = PCLR_OPENCL;
                    bench_row_init(&row, "opencl", b->device, t, op, n, impls[i].name);
                    if (!usable[i]) snprintf(row.status, sizeof row.status, "FAIL: prepare failed");
                    else if (impls[i].kind != IMPL_READ && !b->o.no_check && !check_point(&p, refs, why, sizeof why))
                        snprintf(row.status, sizeof row.status, "FAIL: %s", why);
                    else measure(&p, &row);
                    if (strncmp(row.status, "ok", 2) != 0) ++b->failures;
                    if (impls[i].kind == IMPL_OMP) ref_row = row;
                    if (impls[i].kind == IMPL_READ) read_pipelined = row.pipelined_us;
                    row.efficiency = read_pipelined / row.pipelined_us;
                    bench_csv_row(csv, &row);
                    bench_table_row(&row, anchor ? &ref_row : NULL);
                }
            }
        }
    }
    fclose(csv);
}

/* ------------------------------------------------------------ the study */
static void run_study(bench *b) {
    bench_study_point plan[BENCH_STUDY_MAX];
    const pclr_cl_features *ft = pclr_cl_get_features(b->pc);
    pclr_device_facts facts;
    pclr_type t = PCLR_UINT;
    pclr_op op = PCLR_SUM;
    uint64_t n = 1ull << b->o.study_log;
    double refs[2];
    int i, count;
    impl im;
    FILE *csv;
    for (i = PCLR_TYPE_COUNT_ - 1; i >= 1; --i) if (b->o.types[i]) t = (pclr_type)i; /* the first selected */
    for (i = PCLR_CUSTOM - 1; i >= 1; --i) if (b->o.ops[i]) op = (pclr_op)i;
    while (n * pclr_type_size(t) > b->pool_bytes) n >>= 1;
    facts.compute_units = ft->compute_units;
    facts.max_group_size = ft->max_group_size;
    csv = bench_open_out(b->out_dir, "study_opencl.csv");
    if (!csv) exit(1);
    bench_study_csv_header(csv);
    fill_pool(b, t);
    {
        size_t bytes = n * pclr_type_size(t);
        int k = buffers_for(b, bytes);
        pclr_cpu_reduce(t, op, b->pool_host, n, &refs[0]);
        pclr_cpu_reduce(t, op, (const char *)b->pool_host + (size_t)(k - 1) * bytes, n, &refs[1]);
    }
    count = bench_study_plan(t, op, PCLR_OPENCL, ft->nvidia, ft->collectives, plan, BENCH_STUDY_MAX);
    memset(&im, 0, sizeof im);
    im.kind = IMPL_PCLR;
    printf("# study on %s (%s): %s %s, n = 2^%d, kernel time (median)\n", b->device, b->platform, pclr_type_name(t), pclr_op_name(op),
           bench_log2(n));
    printf("%-12s %-20s %-6s %-10s %6s %6s %6s %8s %10s %8s\n", "study", "series", "stride", "variant", "unroll", "vector", "gpu",
           "groups", "kernel_us", "GB/s");
    for (i = 0; i < count; ++i) {
        pclr_config res;
        pclr_launch lp;
        point p;
        bench_row row;
        char why[200] = "";
        pclr_result r;
        memset(&p, 0, sizeof p);
        p.b = b; p.im = &im; p.type = t; p.op = op; p.n = n; p.bytes = n * pclr_type_size(t);
        p.buffers = buffers_for(b, p.bytes);
        p.cfg = plan[i].cfg;
        bench_row_init(&row, "opencl", b->device, t, op, n, "study");
        if ((r = pclr_cl_resolve(b->pc, &p.cfg, &res)) != PCLR_OK) {
            printf("# skip %s/%s: %s (%s)\n", plan[i].study, plan[i].series, pclr_result_string(r), pclr_cl_last_error(b->pc));
            continue;
        }
        lp.groups = 0;
        pclr_plan(&res, &facts, n, &lp);
        if (pclr_cl_prepare(b->pc, &p.cfg) != PCLR_OK) {
            snprintf(row.status, sizeof row.status, "unsupported: %.140s", pclr_cl_last_error(b->pc));
        } else if (!b->o.no_check && !check_point(&p, refs, why, sizeof why)) {
            snprintf(row.status, sizeof row.status, "FAIL: %s", why);
            ++b->failures;
        } else {
            bench_opts saved = b->o;
            b->o.do_pipelined = b->o.do_blocking = 0;
            b->o.do_kernel = 1;
            measure(&p, &row);
            b->o = saved;
        }
        bench_study_csv_row(csv, "opencl", b->device, &plan[i], &res, n, lp.groups, row.kernel_us, row.kernel_reps, row.status);
        printf("%-12s %-20s %-6s %-10s %6d %6d %6d %8llu %10.2f %8.1f %s\n", plan[i].study, plan[i].series, pclr_stride_name(res.stride),
               pclr_variant_name(res.variant), res.unroll, res.vector_width, res.groups_per_unit, (unsigned long long)lp.groups,
               row.kernel_us, (double)p.bytes / row.kernel_us / 1e3, strcmp(row.status, "ok") ? row.status : "");
        fflush(stdout);
    }
    fclose(csv);
}

/* ------------------------------------------------------------ the vocabulary run
   Every selected type x op x accumulator (sums and stats once per
   accumulator) at 2^20, 2^24 and the largest size, against the read limit
   over the same bytes; on CPU devices float stats also against the OpenMP
   stats loop. */
static const char *read_kernel_src =
    "__kernel void read_limit(__global const uint4 *in, ulong off, ulong nvec, __global uint *out) {\n"
    "    const ulong stride = get_global_size(0);\n"
    "    ulong i = get_global_id(0);\n"
    "    uint acc = 0;\n"
    "    in += off;\n"
    "    for (; i + 3 * stride < nvec; i += 4 * stride) {\n"
    "        const uint4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];\n"
    "        acc += (a.x ^ a.y ^ a.z ^ a.w) + (b.x ^ b.y ^ b.z ^ b.w) + (c.x ^ c.y ^ c.z ^ c.w) + (d.x ^ d.y ^ d.z ^ d.w);\n"
    "    }\n"
    "    for (; i < nvec; i += stride) { const uint4 a = in[i]; acc += a.x ^ a.y ^ a.z ^ a.w; }\n"
    "    if (acc == 0x9e3779b9u) *out = acc;\n"
    "}\n";

/* Builds the read kernel (GPU devices); 0 on success. */
static int build_read_kernel(bench *b) {
    cl_int e;
    cl_uint units = 1;
    b->read_prog = clCreateProgramWithSource(b->context, 1, &read_kernel_src, NULL, &e);
    if (e != CL_SUCCESS) return -1;
    if (clBuildProgram(b->read_prog, 1, &b->dev, "", NULL, NULL) != CL_SUCCESS) return -1;
    b->read_kernel = clCreateKernel(b->read_prog, "read_limit", &e);
    if (e != CL_SUCCESS) { b->read_kernel = NULL; return -1; }
    clGetDeviceInfo(b->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    b->read_global = (size_t)units * 2048; /* 8 groups of 256 per unit, as bench_cuda's read kernel */
    return 0;
}

/* Blocking and (for pclreduce) async paths on slices 0 and K-1 against
   refs[k] (pclr_cpu_reduce_config's results of p->cfg); the async path
   leaves the op's state in b->out: read back and finalized. */
static int vocab_check_point(point *p, unsigned char refs[2][128], char *why, size_t cap) {
    int k, slices[2];
    size_t rsize = pclr_result_size(&p->cfg), ssize = pclr_state_size(&p->cfg);
    slices[0] = 0;
    slices[1] = p->buffers - 1;
    if (!rsize || rsize > 128 || ssize > 256) { snprintf(why, cap, "result %zu / state %zu bytes", rsize, ssize); return 0; }
    for (k = 0; k < (p->buffers > 1 ? 2 : 1); ++k) {
        unsigned char got[256], state[256], junk[256];
        memset(got, 0xa5, sizeof got);
        if (blocking(p, slices[k], got)) { snprintf(why, cap, "%.150s", p->err); return 0; }
        if (!bench_check_result(&p->cfg, p->n, got, refs[k], why, cap)) return 0;
        if (p->im->kind != IMPL_PCLR) continue;
        memset(junk, 0xa5, sizeof junk);
        memset(got, 0xa5, sizeof got);
        memset(state, 0xa5, sizeof state);
        if (cl_fail(p, clEnqueueWriteBuffer(p->b->queue, p->b->out, CL_TRUE, 0, sizeof junk, junk, 0, NULL, NULL), "clEnqueueWriteBuffer") ||
            launch(p, slices[k], NULL) ||
            cl_fail(p, clEnqueueReadBuffer(p->b->queue, p->b->out, CL_TRUE, 0, ssize, state, 0, NULL, NULL), "clEnqueueReadBuffer") ||
            pclr_fail(p, pclr_finalize(&p->cfg, state, got), "pclr_finalize")) {
            snprintf(why, cap, "%.150s", p->err);
            return 0;
        }
        if (!bench_check_result(&p->cfg, p->n, got, refs[k], why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (async path)");
            return 0;
        }
    }
    return 1;
}

typedef struct vocab_cfg {
    pclr_config cfg;
    int usable;
    unsigned char ref[2][128]; /* CPU reference on slices 0 and K-1 */
} vocab_cfg;

#define VOCAB_MAX_CFGS 32

static void run_vocab(bench *b, int cpu) {
    impl pclr_im, read_im, stats_im;
    bench_row read_cache[64];
    int have_read[64], ti, oi, ai, i;
    FILE *csv = bench_open_out(b->out_dir, b->o.exact ? "exact_opencl.csv" : "vocab_opencl.csv");
    if (!csv) exit(1);
    bench_vocab_csv_header(csv);
    memset(have_read, 0, sizeof have_read);
    memset(&pclr_im, 0, sizeof pclr_im);
    read_im = stats_im = pclr_im;
    pclr_im.kind = IMPL_PCLR; snprintf(pclr_im.name, sizeof pclr_im.name, "pclreduce");
    read_im.kind = IMPL_READ; snprintf(read_im.name, sizeof read_im.name, "read-limit");
    stats_im.kind = IMPL_OMP_STATS; snprintf(stats_im.name, sizeof stats_im.name, "omp-stats");
    if (!cpu && build_read_kernel(b) != 0) printf("# the read kernel did not build: no read limit\n");
    printf("# vocabulary on %s (%s). Times in us per call (median); GB/s from the kernel time;\n"
           "# %%read = read-limit time / this time (same bytes; %s);\n"
           "# anchor_time/time above 1: faster than the anchor.\n",
           b->device, b->platform, cpu ? "on a CPU device an OpenMP read loop on the host" : "an OpenCL kernel of 16-byte loads");
    bench_vocab_table_header();
    for (ti = 1; ti < PCLR_TYPE_COUNT_; ++ti) {
        pclr_type t = (pclr_type)ti;
        uint64_t sizes[40];
        int nsizes, si, ncfg = 0;
        static vocab_cfg cfgs[VOCAB_MAX_CFGS];
        if (!b->o.types[t]) continue;
        nsizes = bench_vocab_sizes(&b->o, t, sizes, 40);
        for (oi = 1; oi < PCLR_CUSTOM; ++oi) {
            if (!b->o.ops[oi]) continue;
            for (ai = 1; ai < PCLR_ACCUMULATE_COUNT_ && ncfg < VOCAB_MAX_CFGS; ++ai) {
                pclr_op op = (pclr_op)oi;
                pclr_accumulate a = (pclr_accumulate)ai;
                vocab_cfg *c = &cfgs[ncfg];
                int sums = op == PCLR_SUM || op == PCLR_STATS;
                pclr_result r;
                if (sums ? !b->o.accs[a] : a != PCLR_NATIVE) continue;
                if (!bench_acc_valid(t, op, a)) continue;
                memset(c, 0, sizeof *c);
                c->cfg.type = t; c->cfg.op = op; c->cfg.backend = PCLR_OPENCL; c->cfg.accumulate = a;
                r = prepare(b, &c->cfg, sums ? pclr_accumulate_name(a) : "pclreduce");
                if (r == PCLR_ERR_NO_FP64) { printf("# skip %s %s %s: the device has no fp64\n", pclr_type_name(t), pclr_op_name(op), pclr_accumulate_name(a)); continue; }
                c->usable = r == PCLR_OK;
                if (!c->usable) ++b->failures;
                ++ncfg;
            }
        }
        if (!ncfg) continue;
        fill_pool(b, t);
        for (si = 0; si < nsizes; ++si) {
            uint64_t n = sizes[si];
            size_t bytes = n * pclr_type_size(t);
            int buffers = buffers_for(b, bytes), lg = bench_log2(bytes), j;
            bench_row stats_row, native_sum; /* native_sum: --exact, the exact rows' anchor */
            int have_stats = 0, have_native = 0;
            point p;
            memset(&p, 0, sizeof p);
            memset(&native_sum, 0, sizeof native_sum);
            p.b = b; p.type = t; p.n = n; p.bytes = bytes; p.buffers = buffers;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
            for (j = 0; j < 2 * ncfg; ++j) { /* references, in parallel (each one single-threaded) */
                vocab_cfg *c = &cfgs[j / 2];
                int slice = j % 2 ? buffers - 1 : 0;
                memset(c->ref[j % 2], 0, 128);
                if (pclr_cpu_reduce_config(&c->cfg, host_slice(&p, slice), n, c->ref[j % 2]) != PCLR_OK) c->usable = 0;
            }
            if (!have_read[lg] && (cpu || b->read_kernel)) {
                bench_row row;
                p.im = &read_im; p.op = PCLR_SUM; p.err[0] = '\0'; p.next = 0;
                bench_row_init(&row, "opencl", b->device, t, PCLR_SUM, n, read_im.name);
                measure(&p, &row);
                if (strcmp(row.status, "ok") == 0) { read_cache[lg] = row; have_read[lg] = 1; }
                else ++b->failures;
            }
            if (have_read[lg]) {
                bench_row row = read_cache[lg];
                row.type = t; row.op = PCLR_SUM; row.n = n; row.read_kernel_us = row.kernel_us;
                bench_vocab_csv_row(csv, &row);
                bench_vocab_table_row(&row);
            }
            for (i = 0; i < ncfg; ++i) {
                vocab_cfg *c = &cfgs[i];
                pclr_accumulate acc = bench_acc_of(&c->cfg);
                int sums = c->cfg.op == PCLR_SUM || c->cfg.op == PCLR_STATS;
                bench_row row;
                char why[300] = "";
                p.cfg = c->cfg; p.op = c->cfg.op;
                if (cpu && t == PCLR_FLOAT && c->cfg.op == PCLR_STATS && !b->o.no_anchor && !have_stats) {
                    bench_row_init(&stats_row, "opencl", b->device, t, PCLR_STATS, n, stats_im.name);
                    stats_row.read_kernel_us = have_read[lg] ? read_cache[lg].kernel_us : NAN;
                    p.im = &stats_im; p.err[0] = '\0'; p.next = 0;
                    if (!c->usable) snprintf(stats_row.status, sizeof stats_row.status, "FAIL: no CPU reference");
                    else if (!b->o.no_check && !vocab_check_point(&p, c->ref, why, sizeof why))
                        snprintf(stats_row.status, sizeof stats_row.status, "FAIL: %.150s", why);
                    else measure(&p, &stats_row);
                    if (strncmp(stats_row.status, "ok", 2) != 0) ++b->failures;
                    bench_vocab_csv_row(csv, &stats_row);
                    bench_vocab_table_row(&stats_row);
                    have_stats = 1;
                }
                bench_row_init(&row, "opencl", b->device, t, c->cfg.op, n, pclr_im.name);
                row.acc = sums ? acc : PCLR_ACCUMULATE_DEFAULT;
                row.sum_type = sums ? pclr_sum_type(t, acc) : PCLR_TYPE_DEFAULT;
                row.read_kernel_us = have_read[lg] ? read_cache[lg].kernel_us : NAN;
                if (have_stats && c->cfg.op == PCLR_STATS && strncmp(stats_row.status, "ok", 2) == 0) {
                    snprintf(row.anchor, sizeof row.anchor, "%.47s", stats_im.name);
                    row.anchor_kernel_us = stats_row.kernel_us;
                    row.anchor_pipelined_us = stats_row.pipelined_us;
                }
                if (have_native && acc == PCLR_EXACT && c->cfg.op == PCLR_SUM) { /* native time / exact time */
                    snprintf(row.anchor, sizeof row.anchor, "pclreduce-native");
                    row.anchor_kernel_us = native_sum.kernel_us;
                    row.anchor_pipelined_us = native_sum.pipelined_us;
                }
                p.im = &pclr_im; p.err[0] = '\0'; p.next = 0;
                if (!c->usable) snprintf(row.status, sizeof row.status, "FAIL: prepare or CPU reference failed");
                else if (!b->o.no_check && !vocab_check_point(&p, c->ref, why, sizeof why)) snprintf(row.status, sizeof row.status, "FAIL: %.150s", why);
                else measure(&p, &row);
                if (strncmp(row.status, "ok", 2) != 0) ++b->failures;
                if (acc == PCLR_NATIVE && c->cfg.op == PCLR_SUM && strncmp(row.status, "ok", 2) == 0) {
                    native_sum = row;
                    have_native = 1;
                }
                bench_vocab_csv_row(csv, &row);
                bench_vocab_table_row(&row);
            }
        }
    }
    fclose(csv);
}

int main(int argc, char **argv) {
    static bench b;
    static dev_entry all[64];
    const dev_entry *d;
    pclr_cl_desc desc;
    cl_context_properties props[3];
    cl_ulong max_alloc = 0, cache = 0;
    cl_int err;
    pclr_result r;
    int ndev, i, anchor;
    int rc = bench_parse_args(argc, argv, &b.o, "bench_cl",
                              "  --list              list OpenCL devices (platform, device, result folder) and exit\n"
                              "  --platform P        OpenCL platform index\n"
                              "  --device D          device index within the platform (over all platforms without --platform)\n"
                              "  --no-anchor         skip the OpenMP loop on CPU devices\n");
    if (rc) return rc;
    ndev = list_devices(all, 64);
    if (b.o.list) {
        for (i = 0; i < ndev; ++i)
            printf("%d %d %s %s | %s | %s\n", all[i].platform, all[i].index, all[i].slug,
                   (all[i].type & CL_DEVICE_TYPE_GPU) ? "gpu" : (all[i].type & CL_DEVICE_TYPE_CPU) ? "cpu" : "other",
                   all[i].pname, all[i].dname);
        return 0;
    }
    if (!(d = pick_device(all, ndev, b.o.platform, b.o.device))) {
        fprintf(stderr, "bench_cl: no OpenCL device%s (try --list)\n", ndev ? " with those indices" : "");
        return 1;
    }
    snprintf(b.out_dir, sizeof b.out_dir, "%s", b.o.out_dir ? b.o.out_dir : "");
    if (!b.o.out_dir) snprintf(b.out_dir, sizeof b.out_dir, "bench/results/%s", d->slug);
    if (b.o.print_out) { printf("%s\n", b.out_dir); return 0; }
    snprintf(b.device, sizeof b.device, "%s", d->dname);
    snprintf(b.platform, sizeof b.platform, "%s", d->pname);
    for (i = 0; b.device[i]; ++i) if (b.device[i] == ',') b.device[i] = ' '; /* CSV-safe */
    b.dev = d->did;
    b.dev_type = d->type;

    props[0] = (cl_context_properties)CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)d->pid;
    props[2] = 0;
    b.context = clCreateContext(props, 1, &b.dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "bench_cl: clCreateContext failed (%d)\n", (int)err); return 1; }
    b.queue = clCreateCommandQueue(b.context, b.dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "bench_cl: clCreateCommandQueue failed (%d)\n", (int)err); return 1; }
    b.profiling_ok = 1;
    memset(&desc, 0, sizeof desc);
    desc.context = b.context;
    desc.device = b.dev;
    desc.queue = b.queue;
    if ((r = pclr_cl_create(&desc, &b.pc)) != PCLR_OK) {
        fprintf(stderr, "bench_cl: pclr_cl_create failed: %s\n", pclr_result_string(r));
        return 1;
    }
    anchor = (b.dev_type & CL_DEVICE_TYPE_CPU) && !b.o.no_anchor;

    clGetDeviceInfo(b.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(b.dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    b.cache_bytes = (size_t)cache;
    /* One pool: the largest input, at least the rotation span; shrink the sweep if the device caps allocations. */
    for (;;) {
        size_t largest = 0, span = rotation_span(&b);
        for (i = 1; i < PCLR_TYPE_COUNT_; ++i) {
            uint64_t sizes[40];
            int k = b.o.vocab ? bench_vocab_sizes(&b.o, (pclr_type)i, sizes, 40) : bench_sizes(&b.o, (pclr_type)i, sizes, 40);
            if (b.o.types[i] && k > 0 && sizes[k - 1] * pclr_type_size((pclr_type)i) > largest)
                largest = sizes[k - 1] * pclr_type_size((pclr_type)i);
        }
        if (b.o.study) largest = (size_t)8 << b.o.study_log;
        b.pool_bytes = largest > span ? largest : span;
        if (!max_alloc || b.pool_bytes <= max_alloc || b.o.max_bytes_log <= 24) break;
        --b.o.max_bytes_log;
        if (b.o.study) --b.o.study_log;
        printf("# the device allocates at most %llu bytes: inputs capped at 2^%d bytes\n", (unsigned long long)max_alloc, b.o.max_bytes_log);
    }
    b.pool = clCreateBuffer(b.context, CL_MEM_READ_ONLY, b.pool_bytes, NULL, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "bench_cl: cannot allocate %zu bytes on the device (%d)\n", b.pool_bytes, (int)err); return 1; }
    b.out = clCreateBuffer(b.context, CL_MEM_READ_WRITE, 256, NULL, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "bench_cl: clCreateBuffer failed (%d)\n", (int)err); return 1; }
    b.pool_host = malloc(b.pool_bytes);
    if (!b.pool_host) { fprintf(stderr, "bench_cl: out of host memory\n"); return 1; }
    if (bench_mkdirs(b.out_dir) != 0) { fprintf(stderr, "bench_cl: cannot create %s\n", b.out_dir); return 1; }
    write_device_file(&b, anchor);
    {
        const pclr_cl_features *ft = pclr_cl_get_features(b.pc);
        printf("# pclreduce %s, OpenCL: %s / %s, %u compute units, best variant %s%s%s\n", PCLREDUCE_VERSION, b.platform, b.device,
               ft->compute_units, pclr_variant_name(ft->best_variant), ft->nvidia ? ", NVIDIA PTX shuffles" : "",
               ft->collectives ? ", OpenCL 2.0 collectives" : "");
    }

    if (b.o.study) run_study(&b);
    else if (b.o.vocab) run_vocab(&b, (b.dev_type & CL_DEVICE_TYPE_CPU) != 0);
    else run_sweep(&b, anchor);

    pclr_cl_destroy(b.pc);
    if (b.read_kernel) clReleaseKernel(b.read_kernel);
    if (b.read_prog) clReleaseProgram(b.read_prog);
    clReleaseMemObject(b.pool);
    clReleaseMemObject(b.out);
    clReleaseCommandQueue(b.queue);
    clReleaseContext(b.context);
    free(b.pool_host);
    printf("# results in %s (%d failure%s)\n", b.out_dir, b.failures, b.failures == 1 ? "" : "s");
    return b.failures ? 1 : 0;
}
