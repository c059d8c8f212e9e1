/* auto_exposure: the game-engine example. Auto-exposure (eye adaptation) needs
   the minimum, maximum and mean log-luminance of the frame: one launch of
   pclreduce's stats over the RGBA frame itself, with the log-luminance as a
   map (no luminance pass, no temporary buffer, one read of the frame).

       build/auto_exposure [--backend auto|cuda|opencl|cpu|vulkan] [--metering mean|histogram] [in.ppm|in.pfm] [out.ppm]

   --metering histogram meters as Unreal, Bevy and Godot do: a histogram of 64 bins of the log2-luminance
   over a range given at reduce time ([-10, 10) EV here; an engine moves it every frame, which rebuilds
   nothing), clamped, then the mean of the log2-luminance between the 10th and the 90th percentile
   (pclr_histogram_mean_between), so that a few bright lights or a black sky do not swing the exposure.
   One launch too; checked against the CPU reference's histogram.

   Reads a binary PPM (P6, 8 or 16 bits, sRGB) or a PFM (PF colour / Pf grey,
   linear float), or renders a synthetic 1920x1080 HDR frame when no input is
   given; uploads it as an RGBA float frame; reduces it once with op stats and
   the map LOG_LUMINANCE below, log(1e-4 + 0.2126 R + 0.7152 G + 0.0722 B)
   per pixel (negative or NaN luminance counts as black), on the device (CUDA
   when built with the CUDA headers and a GPU is there, else the best OpenCL
   device, else the CPU reference); checks min, max and mean against
   pclr_cpu_reduce_map; prints the exposure; writes a Reinhard tone-mapped PPM
   to the second file (default build/auto_exposure.ppm).

   --backend vulkan (compute only, headless: no window, no swapchain) plays
   the engine: it creates its own VkInstance, VkDevice (VK_KHR_push_descriptor
   and shaderInt64 enabled) and compute queue, hands them to pclr_create
   (desc.backends = {PCLR_VULKAN}, desc.vulkan = a pclr_vk_desc naming them),
   builds the pipeline at load time (pclr_prepare), makes the HDR target and
   the states buffer with pclr_buffer_create / pclr_buffer_write (an engine's
   own VkBuffer would enter with pclr_vk_buffer(ctx, buffer, bytes, &buf),
   which allocates nothing), and records the reduce with pclr_reduce_async
   (sync.vulkan_commands = its command buffer) between the two barriers an
   engine's frame needs (the frame's writes -> compute reads; the state's
   compute write -> the copy that reads it back), submits the command buffer
   with its own fence and turns the state into the stats with pclr_finalize.
   The loader and shaderc are loaded at run time ($PCLR_VULKAN_LIBRARY;
   $PCLR_SHADERC_LIBRARY, else libshaderc_shared.so beside the example, which
   `make` builds where the system's does not load, else libshaderc.so.1).

   Wiring it into a frame loop (what an engine does instead of this one-shot):

   Load time (once):
     - one pclreduce context per render thread: pclr_create(&desc, &ctx) with
       desc.backends = {PCLR_OPENCL} and desc.opencl = a pclr_cl_desc holding
       the engine's own cl_context, device and queue (or desc.backends =
       {PCLR_CUDA} and desc.cuda = a pclr_cuda_desc whose context is the
       engine's CUcontext);
     - the config (stats, components 4, the map) built now, not in the first
       frame: pclr_prepare(ctx, &cfg);
     - the engine's buffers as pclr_buffers, without allocation (values kept
       with the engine's own): pclr_cl_buffer(ctx, hdr_mem, &hdr) around the
       HDR target's cl_mem, pclr_cuda_buffer(ctx, hdr_ptr, hdr_bytes, &hdr)
       around its CUdeviceptr; the same for a small states buffer `res` of 2
       states (pclr_state_size) for 2 frames in flight (cl_mem, or device
       memory + pinned host memory for CUDA), or pclr_buffer_create;
     - a pclr_input in with in.x = &hdr, in.n = the pixels.
   Every frame N (k = N % 2):
     - the renderer's HDR target is the input (often a downsampled one: 1/4
       or 1/16 of the pixels is plenty for exposure);
     - OpenCL: sync.opencl_wait_count = 1, sync.opencl_wait = &hdr_done (the
       event of the pass that rendered it), sync.opencl_done = &done[k];
       pclr_reduce_async(ctx, &cfg, &in, &res, k, &sync) leaves state k in
       res; then a non-blocking clEnqueueReadBuffer of that state waiting on
       done[k] (the queue and entry points: pclr_cl_get_native). Nothing on
       the CPU waits.
       CUDA: sync.cuda_stream = frame_stream; pclr_reduce_async(ctx, &cfg,
       &in, &res, k, &sync), cuMemcpyDtoHAsync of state k into pinned memory
       and cuEventRecord on the frame's stream (the driver's entry points:
       pclr_cuda_get_native); pclr_finalize turns the state into the stats.
     - tone mapping of frame N uses the exposure from frame N-1: read the
       other slot (by then its event has long completed; clWaitForEvents /
       cuEventSynchronize cost nothing), and adapt smoothly over time:
       exposure += (target - exposure) * (1 - exp(-dt * speed)).
   A frame of latency is invisible in eye adaptation and keeps the GPU and CPU
   from ever waiting on each other. This program uses the blocking call
   (pclr_reduce) since it only has one frame (and on Vulkan the recorded one,
   waited for with its fence). */
#define _POSIX_C_SOURCE 200809L /* readlink (pclr_args_shaderc_beside) */
#define PCLREDUCE_WARN_DEPRECATED /* the build proves that no deprecated call is left */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_DEMO_NO_CUDA
#define PCLREDUCE_CUDA
#endif
#ifndef PCLR_DEMO_NO_VULKAN
#define PCLREDUCE_VULKAN /* vulkan/vulkan.h at compile time; the loader and shaderc at run time */
#endif
#include "../pclreduce.h"
#include "pclr_args.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
    int w, h;
    float *rgb; /* linear RGB, w * h * 3 */
} image;

/* ------------------------------------------------------------ image input */
/* The image file, read whole (pclr_args_read_file: a regular file only), and the place read up to. */
typedef struct cursor { const unsigned char *p; size_t len, at; } cursor;
static int next_char(cursor *c) { return c->at < c->len ? c->p[c->at++] : EOF; }
/* The next `bytes` bytes, or NULL when the file ends first. */
static const unsigned char *take(cursor *c, size_t bytes) {
    const unsigned char *at = c->p + c->at;
    if (bytes > c->len - c->at) return NULL;
    c->at += bytes;
    return at;
}

/* Reads one header token of a PPM/PFM (skips whitespace and # comments). */
static int read_token(cursor *f, char *buf, size_t cap) {
    int c;
    size_t len = 0;
    for (;;) {
        c = next_char(f);
        if (c == '#') {
            while (c != '\n' && c != EOF) c = next_char(f);
        }
        if (c == EOF) return -1;
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#') break;
    }
    while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        if (len + 1 >= cap) return -1;
        buf[len++] = (char)c;
        c = next_char(f);
    }
    buf[len] = '\0';
    return 0; /* the single whitespace after the last token is consumed */
}

static float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : (float)pow((c + 0.055) / 1.055, 2.4);
}

static int host_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static int load_image(const char *path, image *img) {
    size_t bytes_read = 0;
    unsigned char *file = pclr_args_read_file(path, "image", "auto_exposure", &bytes_read);
    cursor cur, *f = &cur;
    char magic[8], tw[32], th[32], tm[64];
    long w, h;
    size_t i, count;
    if (!file) return -1;
    cur.p = file;
    cur.len = bytes_read;
    cur.at = 0;
    if (read_token(f, magic, sizeof magic) || read_token(f, tw, sizeof tw) || read_token(f, th, sizeof th) ||
        read_token(f, tm, sizeof tm)) {
        fprintf(stderr, "auto_exposure: %s: bad header\n", path);
        free(file);
        return -1;
    }
    w = strtol(tw, NULL, 10);
    h = strtol(th, NULL, 10);
    if (w <= 0 || h <= 0 || w > 65536 || h > 65536) {
        fprintf(stderr, "auto_exposure: %s: bad size %s x %s\n", path, tw, th);
        free(file);
        return -1;
    }
    img->w = (int)w;
    img->h = (int)h;
    count = (size_t)w * (size_t)h;
    img->rgb = (float *)malloc(count * 3 * sizeof(float));
    if (!img->rgb) { free(file); return -1; }
    if (strcmp(magic, "P6") == 0) {
        long maxval = strtol(tm, NULL, 10);
        int bytes = maxval > 255 ? 2 : 1;
        const unsigned char *raw;
        if (maxval <= 0 || maxval > 65535) { fprintf(stderr, "auto_exposure: %s: bad maxval\n", path); goto fail; }
        if (!(raw = take(f, count * 3 * (size_t)bytes))) {
            fprintf(stderr, "auto_exposure: %s: short pixel data\n", path);
            goto fail;
        }
        for (i = 0; i < count * 3; ++i) {
            unsigned v = bytes == 2 ? (unsigned)raw[2 * i] << 8 | raw[2 * i + 1] : raw[i];
            img->rgb[i] = srgb_to_linear((float)v / (float)maxval);
        }
    } else if (strcmp(magic, "PF") == 0 || strcmp(magic, "Pf") == 0) {
        int channels = magic[1] == 'F' ? 3 : 1;
        int swap = (strtod(tm, NULL) < 0) != host_little_endian(); /* negative scale: little-endian */
        const unsigned char *raw = take(f, count * (size_t)channels * sizeof(float));
        long y;
        if (!raw) {
            fprintf(stderr, "auto_exposure: %s: short pixel data\n", path);
            goto fail;
        }
        for (y = 0; y < h; ++y) { /* PFM rows run bottom to top */
            size_t x, c;
            for (x = 0; x < (size_t)w; ++x) {
                for (c = 0; c < 3; ++c) {
                    float v;
                    unsigned char b[4], t;
                    memcpy(b, raw + (((size_t)y * (size_t)w + x) * (size_t)channels + (channels == 3 ? c : 0)) * 4, 4);
                    if (swap) { t = b[0]; b[0] = b[3]; b[3] = t; t = b[1]; b[1] = b[2]; b[2] = t; }
                    memcpy(&v, b, 4);
                    img->rgb[((size_t)(h - 1 - y) * (size_t)w + x) * 3 + c] = v;
                }
            }
        }
    } else {
        fprintf(stderr, "auto_exposure: %s: not a binary PPM (P6) or PFM (PF/Pf)\n", path);
        goto fail;
    }
    free(file);
    return 0;
fail:
    free(img->rgb);
    img->rgb = NULL;
    free(file);
    return -1;
}

/* A synthetic HDR frame: a sky getting brighter towards the top, a dark
   ground with a horizontal gradient, and a few bright light sources (values up
   to ~2000, the dynamic range auto-exposure is for). Deterministic. */
static int synth_image(image *img) {
    static const float spots[][5] = { /* x, y, radius, intensity, colour tint (0 warm .. 1 cold) */
        {0.80f, 0.18f, 40.0f, 2000.0f, 0.3f}, {0.20f, 0.70f, 12.0f, 300.0f, 0.0f},
        {0.35f, 0.72f, 12.0f, 300.0f, 0.0f},  {0.50f, 0.74f, 12.0f, 300.0f, 0.0f},
        {0.65f, 0.60f, 25.0f, 80.0f, 1.0f}};
    int x, y;
    size_t k;
    img->w = 1920;
    img->h = 1080;
    img->rgb = (float *)malloc((size_t)img->w * (size_t)img->h * 3 * sizeof(float));
    if (!img->rgb) return -1;
    for (y = 0; y < img->h; ++y) {
        for (x = 0; x < img->w; ++x) {
            float u = (float)x / (float)(img->w - 1), v = (float)y / (float)(img->h - 1);
            float *p = img->rgb + ((size_t)y * (size_t)img->w + (size_t)x) * 3;
            if (v < 0.55f) { /* sky: 1.0 at the horizon up to ~8 at the top */
                float s = (float)exp(2.0 * (0.55 - v) / 0.55);
                p[0] = 0.45f * s; p[1] = 0.65f * s; p[2] = 1.0f * s;
            } else { /* ground: 0.005 .. 0.2, brighter to the right, darker towards the viewer */
                float g = 0.005f + 0.2f * u * u * (1.0f - 0.8f * (v - 0.55f) / 0.45f);
                p[0] = 0.9f * g; p[1] = 0.8f * g; p[2] = 0.6f * g;
            }
            for (k = 0; k < sizeof spots / sizeof spots[0]; ++k) {
                float dx = (float)x - spots[k][0] * (float)img->w, dy = (float)y - spots[k][1] * (float)img->h;
                float r2 = (dx * dx + dy * dy) / (spots[k][2] * spots[k][2]);
                if (r2 < 9.0f) {
                    float e = spots[k][3] * (float)exp(-2.0 * r2), t = spots[k][4];
                    p[0] += e * (1.0f - 0.4f * t);
                    p[1] += e * 0.85f;
                    p[2] += e * (0.6f + 0.4f * t);
                }
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ luminance */
static float luminance(const float *p) {
    float l = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    if (!(l >= 0.0f)) l = 0.0f;      /* negative or NaN pixels (some PFMs) count as black */
    if (l > FLT_MAX) l = FLT_MAX;    /* +inf */
    return l;
}

/* The same per pixel, as a map over RGBA pixels (x.r, x.g, x.b): the
   luminance is clamped into [0, FLT_MAX] with NaN as 0, as luminance() does. */
#define LUM "(0.2126f * x.r + 0.7152f * x.g + 0.0722f * x.b)"
static const char *const LOG_LUMINANCE = "log(1e-4f + (" LUM " >= 0.0f ? min(" LUM ", 3.40282347e38f) : 0.0f))";
/* --metering histogram: the log2-luminance, binned over [HIST_LO, HIST_HI) EV */
static const char *const LOG2_LUMINANCE = "log2(1e-4f + (" LUM " >= 0.0f ? min(" LUM ", 3.40282347e38f) : 0.0f))";
#define HIST_BINS 64
#define HIST_LO -10.0
#define HIST_HI 10.0

/* ------------------------------------------------------------ output */
static unsigned char encode_srgb(float c) {
    float s;
    if (!(c > 0.0f)) return 0;
    if (c >= 1.0f) return 255;
    s = c <= 0.0031308f ? 12.92f * c : (float)(1.055 * pow(c, 1.0 / 2.4) - 0.055);
    return (unsigned char)(s * 255.0f + 0.5f);
}

/* Extended Reinhard on luminance, L_white = the brightest pixel after
   exposure (so it maps to exactly 1), colour kept by scaling RGB by Ld / L. */
static int write_tonemapped(const char *path, const image *img, float exposure, float max_lum) {
    FILE *f = fopen(path, "wb");
    size_t i, n = (size_t)img->w * (size_t)img->h;
    double white2 = (double)exposure * max_lum * (double)exposure * max_lum;
    unsigned char *row = (unsigned char *)malloc((size_t)img->w * 3);
    int ok;
    if (!f || !row) {
        fprintf(stderr, "auto_exposure: cannot write %s\n", path);
        if (f) fclose(f);
        free(row);
        return -1;
    }
    fprintf(f, "P6\n%d %d\n255\n", img->w, img->h);
    for (i = 0; i < n; ++i) {
        const float *p = img->rgb + 3 * i;
        double l = (double)exposure * luminance(p), scale;
        unsigned char *o = row + 3 * (i % (size_t)img->w);
        int c;
        scale = l > 0.0 ? (1.0 + (white2 > 0.0 ? l / white2 : 0.0)) / (1.0 + l) * exposure : 0.0; /* Ld / L * exposure */
        for (c = 0; c < 3; ++c) o[c] = encode_srgb((float)((p[c] > 0.0f ? p[c] : 0.0f) * scale));
        if ((i + 1) % (size_t)img->w == 0) fwrite(row, 1, (size_t)img->w * 3, f);
    }
    ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    free(row);
    if (!ok) fprintf(stderr, "auto_exposure: error writing %s\n", path);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ reduce: the generic context */
/* CUDA, else OpenCL, else the CPU reference (backend 0: auto), or the backend asked for; got: the result
   (pclr_result_size bytes; a histogram's range: [HIST_LO, HIST_HI)). */
static int reduce_generic(pclr_backend backend, const pclr_config *cfg, const float *rgba, size_t n, void *got) {
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_buffer *buf = NULL;
    char why[1024] = "";
    pclr_input in = PCLR_ZERO;
    pclr_result r;
    desc.backends[0] = backend;
    desc.shaderc_library = pclr_args_shaderc_beside();
    desc.error = why;
    desc.error_cap = sizeof why;
    if ((r = pclr_create(&desc, &ctx)) != PCLR_OK) {
        fprintf(stderr, "auto_exposure: no context: %s (%s)\n", pclr_result_string(r), why);
        return -1;
    }
    printf("pclreduce %s auto-exposure on %s: %s\n", PCLREDUCE_VERSION, pclr_backend_name(pclr_get_backend(ctx)),
           pclr_device_name(ctx));
    /* load time: the kernel; then the frame is uploaded and reduced in one launch */
    if ((r = pclr_prepare(ctx, cfg)) != PCLR_OK || (r = pclr_buffer_create(ctx, n * 4 * sizeof(float), &buf)) != PCLR_OK ||
        (r = pclr_buffer_write(ctx, buf, 0, rgba, n * 4 * sizeof(float))) != PCLR_OK ||
        (in.x = buf, in.n = n, in.lo = HIST_LO, in.hi = HIST_HI, r = pclr_reduce(ctx, cfg, &in, got, pclr_result_size(cfg))) != PCLR_OK)
        fprintf(stderr, "auto_exposure: %s (%s)\n", pclr_result_string(r), pclr_last_error(ctx));
    pclr_buffer_destroy(ctx, buf);
    pclr_destroy(ctx);
    return r == PCLR_OK ? 0 : -1;
}

#ifndef PCLR_DEMO_NO_VULKAN
/* ------------------------------------------------------------ reduce: Vulkan, as an engine does */
typedef struct engine {
    pclr_vk_api vk; /* the loader's entry points (the example links no Vulkan library) */
    VkInstance instance;
    VkPhysicalDevice gpu;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    VkPhysicalDeviceFeatures enabled;
} engine;

static int has_extension(const engine *e, VkPhysicalDevice gpu, const char *name) {
    VkExtensionProperties ext[512];
    uint32_t count = 512, i;
    if (e->vk.EnumerateDeviceExtensionProperties(gpu, NULL, &count, ext) < 0) return 0;
    for (i = 0; i < count; ++i)
        if (strcmp(ext[i].extensionName, name) == 0) return 1;
    return 0;
}

/* The engine's instance, device and compute queue: a discrete GPU first, with shaderInt64 and push descriptors. */
static int engine_create(engine *e) {
    static const char *const push = "VK_KHR_push_descriptor";
    VkApplicationInfo app;
    VkInstanceCreateInfo ii;
    VkPhysicalDevice gpus[16];
    VkQueueFamilyProperties fam[64];
    VkDeviceQueueCreateInfo qi;
    VkDeviceCreateInfo di;
    VkPhysicalDeviceFeatures supported;
    const float priority = 1.0f;
    uint32_t count = 16, nfam = 64, i;
    int best_rank = 99;
    char why[512];
    if (pclr_vk_load_api(NULL, &e->vk, why, sizeof why) != PCLR_OK) {
        fprintf(stderr, "auto_exposure: %s\n", why);
        return -1;
    }
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "auto_exposure";
    app.apiVersion = VK_MAKE_VERSION(1, 1, 0);
    memset(&ii, 0, sizeof ii);
    ii.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ii.pApplicationInfo = &app;
    if (e->vk.CreateInstance(&ii, NULL, &e->instance) != VK_SUCCESS) {
        fprintf(stderr, "auto_exposure: vkCreateInstance failed (no Vulkan driver here?)\n");
        e->instance = VK_NULL_HANDLE;
        return -1;
    }
    if (e->vk.EnumeratePhysicalDevices(e->instance, &count, gpus) < 0) count = 0;
    for (i = 0; i < count; ++i) {
        VkPhysicalDeviceProperties p;
        int rank;
        e->vk.GetPhysicalDeviceProperties(gpus[i], &p);
        e->vk.GetPhysicalDeviceFeatures(gpus[i], &supported);
        if (!supported.shaderInt64 || p.apiVersion < VK_MAKE_VERSION(1, 1, 0) || !has_extension(e, gpus[i], push)) continue;
        rank = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 0 : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 1 : 2;
        if (rank < best_rank) { best_rank = rank; e->gpu = gpus[i]; }
    }
    if (!e->gpu) {
        fprintf(stderr, "auto_exposure: no Vulkan device with shaderInt64 and VK_KHR_push_descriptor (%u devices)\n", count);
        return -1;
    }
    e->vk.GetPhysicalDeviceQueueFamilyProperties(e->gpu, &nfam, fam);
    for (e->family = 0; e->family < nfam && !(fam[e->family].queueFlags & VK_QUEUE_COMPUTE_BIT); ++e->family) {}
    if (e->family == nfam) { fprintf(stderr, "auto_exposure: the device has no compute queue\n"); return -1; }
    e->vk.GetPhysicalDeviceFeatures(e->gpu, &supported);
    memset(&e->enabled, 0, sizeof e->enabled);
    e->enabled.shaderInt64 = VK_TRUE; /* pclreduce's kernels count in 64 bits */
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = e->family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    memset(&di, 0, sizeof di);
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.pEnabledFeatures = &e->enabled;
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = &push;
    if (e->vk.CreateDevice(e->gpu, &di, NULL, &e->device) != VK_SUCCESS) {
        fprintf(stderr, "auto_exposure: vkCreateDevice failed\n");
        e->device = VK_NULL_HANDLE;
        return -1;
    }
    e->vk.GetDeviceQueue(e->device, e->family, 0, &e->queue);
    return 0;
}

static void engine_destroy(engine *e) {
    if (e->device) e->vk.DestroyDevice(e->device, NULL);
    if (e->instance) e->vk.DestroyInstance(e->instance, NULL);
}

static void barrier(const engine *e, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst) {
    VkMemoryBarrier mb;
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = src;
    mb.dstAccessMask = dst;
    e->vk.CmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int reduce_vulkan(const pclr_config *cfg, const float *rgba, size_t n, pclr_stats_result *got) {
    engine e;
    pclr_vk_desc vk = PCLR_ZERO;  /* the engine's objects */
    pclr_desc desc = PCLR_ZERO;
    pclr_context *ctx = NULL;
    pclr_vk_native native = PCLR_ZERO;
    pclr_buffer *hdr = NULL, *stats = NULL;
    pclr_input in = PCLR_ZERO;
    pclr_sync sync = PCLR_ZERO;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkCommandPoolCreateInfo pi;
    VkCommandBufferAllocateInfo ai;
    VkCommandBufferBeginInfo bi;
    VkFenceCreateInfo fi;
    VkSubmitInfo si;
    unsigned char state[256];
    const size_t hdr_bytes = n * 4 * sizeof(float), state_bytes = pclr_state_size(cfg);
    const uint64_t frames_in_flight = 2, slot = 0; /* an engine's frame N uses state N % 2; this one-shot frame, 0 */
    char why[1024] = "";
    int rc = -1;
    pclr_result r = PCLR_OK;
    memset(&e, 0, sizeof e);
    if (engine_create(&e) != 0) goto done;
    /* load time: pclreduce on the engine's own device (a generic context of the Vulkan backend that adopts
       the engine's instance, device and queue), the pipeline built now */
    vk.instance = e.instance;
    vk.physical_device = e.gpu;
    vk.device = e.device;
    vk.queue_family = e.family;
    vk.queue = e.queue;
    vk.enabled_features = &e.enabled;
    desc.backends[0] = PCLR_VULKAN;
    desc.vulkan = &vk;
    desc.shaderc_library = pclr_args_shaderc_beside();
    desc.error = why;
    desc.error_cap = sizeof why;
    if ((r = pclr_create(&desc, &ctx)) != PCLR_OK) {
        fprintf(stderr, "auto_exposure: pclr_create: %s (%s)\n", pclr_result_string(r), why);
        goto done;
    }
    if ((r = pclr_vk_get_native(ctx, &native)) != PCLR_OK) goto failed;
    if (native.device != e.device) { /* the context runs on the engine's device, not one of its own */
        fprintf(stderr, "auto_exposure: the context did not take the example's VkDevice\n");
        goto done;
    }
    printf("pclreduce %s auto-exposure on vulkan: %s (the example's own VkDevice, queue family %u)\n", PCLREDUCE_VERSION,
           pclr_device_name(ctx), native.queue_family);
    if (state_bytes > sizeof state || (r = pclr_prepare(ctx, cfg)) != PCLR_OK) goto failed;
    /* the HDR target and a small states buffer (an engine keeps one state per frame in flight) */
    if ((r = pclr_buffer_create(ctx, hdr_bytes, &hdr)) != PCLR_OK ||
        (r = pclr_buffer_create(ctx, (size_t)frames_in_flight * state_bytes, &stats)) != PCLR_OK ||
        (r = pclr_buffer_write(ctx, hdr, 0, rgba, hdr_bytes)) != PCLR_OK)
        goto failed;
    /* the frame: the engine's command pool, command buffer and fence */
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = e.family;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    memset(&fi, 0, sizeof fi);
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (e.vk.CreateCommandPool(e.device, &pi, NULL, &pool) != VK_SUCCESS || (ai.commandPool = pool, 0) ||
        e.vk.AllocateCommandBuffers(e.device, &ai, &cmd) != VK_SUCCESS || e.vk.CreateFence(e.device, &fi, NULL, &fence) != VK_SUCCESS ||
        e.vk.BeginCommandBuffer(cmd, &bi) != VK_SUCCESS) {
        fprintf(stderr, "auto_exposure: creating the frame's command buffer failed\n");
        goto done;
    }
    /* ... the engine's passes that render the HDR target would be recorded here; then: */
    barrier(&e, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    /* one launch: the stats of the map, recorded into the engine's command buffer; its state goes to state `slot` of stats */
    in.x = hdr;
    in.n = n;
    sync.vulkan_commands = (void *)cmd;
    if ((r = pclr_reduce_async(ctx, cfg, &in, stats, slot, &sync)) != PCLR_OK) goto failed;
    barrier(&e, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT);
    /* ... tone mapping, UI, present would follow in a real frame */
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    if (e.vk.EndCommandBuffer(cmd) != VK_SUCCESS || e.vk.QueueSubmit(e.queue, 1, &si, fence) != VK_SUCCESS ||
        e.vk.WaitForFences(e.device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS) {
        fprintf(stderr, "auto_exposure: submitting the frame failed\n");
        goto done;
    }
    /* an engine reads last frame's state here (no wait); this one-shot program reads this frame's */
    if ((r = pclr_buffer_read(ctx, stats, (size_t)slot * state_bytes, state, state_bytes)) != PCLR_OK ||
        (r = pclr_finalize(cfg, state, got)) != PCLR_OK)
        goto failed;
    rc = 0;
    goto done;
failed:
    fprintf(stderr, "auto_exposure: %s (%s)\n", pclr_result_string(r != PCLR_OK ? r : PCLR_ERR_BUFFER_TOO_SMALL), pclr_last_error(ctx));
done:
    if (fence) e.vk.DestroyFence(e.device, fence, NULL);
    if (pool) e.vk.DestroyCommandPool(e.device, pool, NULL);
    pclr_buffer_destroy(ctx, hdr);
    pclr_buffer_destroy(ctx, stats);
    pclr_destroy(ctx); /* before the engine's device goes */
    engine_destroy(&e);
    return rc;
}
#endif

/* ------------------------------------------------------------ main */
/* --metering histogram: 64 bins of log2-luminance over [HIST_LO, HIST_HI) EV (clamped), one launch; the exposure from
   the mean log2-luminance between the 10th and 90th percentile; the counts checked against the CPU reference's
   (log2 may differ in its last bits on a device: a value on a bin's edge may fall on the other side, so the counts
   may differ by a few, and the metered mean by far less than a bin) */
static int meter_histogram(pclr_backend backend, const float *rgba, size_t n, double *exposure) {
    pclr_config cfg = PCLR_ZERO;
    const size_t bytes = sizeof(pclr_histogram_result) + HIST_BINS * sizeof(uint64_t);
    unsigned char *got = (unsigned char *)calloc(1, bytes), *ref = (unsigned char *)calloc(1, bytes);
    const double range[2] = {HIST_LO, HIST_HI};
    double mean, mean_ref, moved = 0;
    pclr_result r;
    int k, failures = 0;
    cfg.type = PCLR_FLOAT;
    cfg.components = 4;
    cfg.op = PCLR_HISTOGRAM;
    cfg.bins = HIST_BINS;
    cfg.clamp = 1; /* the darkest and brightest pixels count in the first and last bin */
    cfg.map = LOG2_LUMINANCE;
    if (!got || !ref) { fprintf(stderr, "auto_exposure: out of memory\n"); free(got); free(ref); return 1; }
    if (reduce_generic(backend, &cfg, rgba, n, got) != 0) failures = 1;
    else if ((r = pclr_cpu_reduce_map(&cfg, rgba, NULL, n, range, ref)) != PCLR_OK) {
        fprintf(stderr, "auto_exposure: CPU reference: %s\n", pclr_result_string(r));
        failures = 1;
    }
    if (!failures) {
        for (k = 0; k < HIST_BINS; ++k) { /* the counts that moved to a neighbouring bin */
            const double d = (double)pclr_histogram_count(got, (uint64_t)k) - (double)pclr_histogram_count(ref, (uint64_t)k);
            moved += d > 0 ? d : -d;
        }
        mean = pclr_histogram_mean_between(got, 0.1, 0.9);
        mean_ref = pclr_histogram_mean_between(ref, 0.1, 0.9);
        if (moved > 1e-4 * (double)n + 2 || !(fabs(mean - mean_ref) < 1e-3)) {
            fprintf(stderr, "auto_exposure: mismatch: %.0f counts differ from the CPU reference's; metered %.9g, CPU reference %.9g\n", moved,
                    mean, mean_ref);
            failures = 1;
        } else {
            *exposure = 0.18 / exp2(mean);
            printf("map: a histogram of %s over RGBA pixels: %d bins over [%g, %g) EV, clamped, one launch\n", LOG2_LUMINANCE, HIST_BINS,
                   HIST_LO, HIST_HI);
            printf("log2-luminance: 10th percentile %.4f  median %.4f  90th percentile %.4f   (checked against the CPU reference)\n",
                   pclr_histogram_quantile(got, 0.1), pclr_histogram_quantile(got, 0.5), pclr_histogram_quantile(got, 0.9));
            printf("metered:       mean log2-luminance between them %.6f (all pixels: %.6f), average %.6g\n", mean,
                   pclr_histogram_mean_between(got, 0, 1), exp2(mean));
            printf("exposure:      %.6f (key 0.18)   EV100 %.3f\n", *exposure, log2(exp2(mean) * 100.0 / 12.5));
        }
    }
    free(got);
    free(ref);
    return failures;
}

int main(int argc, char **argv) {
    const char *in_path = NULL, *out_path = "build/auto_exposure.ppm";
    pclr_backend backend = PCLR_BACKEND_AUTO;
    int positional = 0, k, histogram = 0;
    image img;
    pclr_config cfg = PCLR_ZERO;
    pclr_stats_result got, ref;
    float *rgba;
    double mean_log, avg_lum, exposure, ev100;
    size_t i, n;
    int failures = 0;
    pclr_result r;

    for (k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "-h") == 0 || strcmp(argv[k], "--help") == 0) {
            printf("usage: %s [--backend auto|cuda|opencl|cpu|vulkan] [--metering mean|histogram] [in.ppm|in.pfm] [out.ppm]\n"
                   "       (no input: a synthetic 1920x1080 HDR frame; vulkan: on a VkDevice of the example's own, recorded into its\n"
                   "       command buffer; histogram: 64 bins of log2-luminance, the mean between the 10th and 90th percentile)\n", argv[0]);
            return pclr_args_close_stdout("auto_exposure");
        }
        if (strcmp(argv[k], "--backend") == 0) {
            if (k + 1 >= argc || pclr_parse_backend(argv[k + 1], &backend) != PCLR_OK) {
                fprintf(stderr, "auto_exposure: --backend must be auto, cuda, opencl, cpu or vulkan\n");
                return 2;
            }
            ++k;
        } else if (strcmp(argv[k], "--metering") == 0) {
            if (k + 1 >= argc || (strcmp(argv[k + 1], "mean") != 0 && strcmp(argv[k + 1], "histogram") != 0)) {
                fprintf(stderr, "auto_exposure: --metering must be mean or histogram\n");
                return 2;
            }
            histogram = argv[++k][0] == 'h';
        } else if (positional < 2) {
            *(positional++ ? &out_path : &in_path) = argv[k];
        } else {
            fprintf(stderr, "auto_exposure: too many arguments ('%s'); usage: %s [--backend B] [in.ppm|in.pfm] [out.ppm]\n", argv[k], argv[0]);
            return 2;
        }
    }
    memset(&img, 0, sizeof img);
    if (in_path && strcmp(in_path, "-") != 0 ? load_image(in_path, &img) : synth_image(&img)) return 1;
    n = (size_t)img.w * (size_t)img.h;
    rgba = (float *)malloc(n * 4 * sizeof(float)); /* the engine's HDR target: RGBA float */
    if (!rgba) { fprintf(stderr, "auto_exposure: out of memory\n"); free(img.rgb); return 1; }
    for (i = 0; i < n; ++i) {
        memcpy(rgba + 4 * i, img.rgb + 3 * i, 3 * sizeof(float));
        rgba[4 * i + 3] = 1.0f;
    }
    cfg.type = PCLR_FLOAT;
    cfg.components = 4;
    cfg.op = PCLR_STATS; /* min, max and mean (and the variance) in one pass */
    cfg.map = LOG_LUMINANCE;

    printf("image: %s, %d x %d (%zu pixels)\n", in_path && strcmp(in_path, "-") ? in_path : "synthetic HDR frame",
           img.w, img.h, n);
    if (histogram) {
        failures = meter_histogram(backend, rgba, n, &exposure);
        if (!failures && write_tonemapped(out_path, &img, (float)exposure, (float)(0.18 / exposure * 64.0)) != 0) failures = 1;
        else if (!failures) printf("tone-mapped (Reinhard, white at 64x the average): %s\n", out_path);
        free(rgba);
        free(img.rgb);
        return failures ? 1 : 0;
    }
    if (backend == PCLR_VULKAN) {
#ifndef PCLR_DEMO_NO_VULKAN
        failures += reduce_vulkan(&cfg, rgba, n, &got) != 0;
#else
        fprintf(stderr, "auto_exposure: built without the Vulkan backend (no vulkan/vulkan.h)\n");
        ++failures;
#endif
    } else {
        failures += reduce_generic(backend, &cfg, rgba, n, &got) != 0;
    }

    /* Check against the CPU reference: min/max exactly (the map's + and * round as in C; log may differ in
       its last bits on a device), the mean within float rounding. */
    if (!failures && (r = pclr_cpu_reduce_map(&cfg, rgba, NULL, n, NULL, &ref)) != PCLR_OK) {
        fprintf(stderr, "auto_exposure: CPU reference: %s\n", pclr_result_string(r));
        ++failures;
    }
    if (!failures && (got.count != ref.count || fabs((double)got.min.f32 - ref.min.f32) > 1e-5 * (1 + fabs(ref.min.f32)) ||
                      fabs((double)got.max.f32 - ref.max.f32) > 1e-5 * (1 + fabs(ref.max.f32)) ||
                      fabs(got.mean - ref.mean) > 1e-4 * (1 + fabs(ref.mean)))) {
        fprintf(stderr, "auto_exposure: mismatch: device min %.9g max %.9g mean %.9g, CPU reference %.9g %.9g %.9g\n",
                (double)got.min.f32, (double)got.max.f32, got.mean, (double)ref.min.f32, (double)ref.max.f32, ref.mean);
        ++failures;
    }
    if (failures) {
        free(rgba);
        free(img.rgb);
        return 1;
    }

    /* Exposure from the geometric mean of the luminance (key 0.18): exposure =
       0.18 / exp(mean log L). EV100 = log2(L_avg * 100 / 12.5) (ISO 100,
       reflected-light meter constant K = 12.5). */
    mean_log = got.mean;
    avg_lum = exp(mean_log);
    exposure = 0.18 / avg_lum;
    ev100 = log2(avg_lum * 100.0 / 12.5);
    printf("map: stats of %s over RGBA pixels, one launch\n", LOG_LUMINANCE);
    printf("log-luminance: min %.6f  max %.6f  mean %.6f   (checked against the CPU reference)\n", (double)got.min.f32,
           (double)got.max.f32, mean_log);
    printf("luminance:     min %.6g  max %.6g  average (geometric) %.6g\n", exp((double)got.min.f32) - 1e-4,
           exp((double)got.max.f32) - 1e-4, avg_lum);
    printf("exposure:      %.6f (key 0.18)   EV100 %.3f\n", exposure, ev100);

    if (write_tonemapped(out_path, &img, (float)exposure, (float)(exp((double)got.max.f32) - 1e-4)) != 0) failures = 1;
    else printf("tone-mapped (Reinhard): %s\n", out_path);
    free(rgba);
    free(img.rgb);
    return failures ? 1 : 0;
}
