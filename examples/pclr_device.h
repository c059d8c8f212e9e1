/* The examples' device: CUDA when a GPU and driver are there, else the best
   OpenCL device, else the CPU reference (pclr_cpu_reduce). Include after
   pclreduce.h with PCLREDUCE_OPENCL (and PCLREDUCE_CUDA where the CUDA headers
   exist) defined. OpenCL is called through the context's table
   (pclr_cl_get_api), so the programs link -ldl -lm only. */
#ifndef PCLR_DEVICE_H
#define PCLR_DEVICE_H

#include <stdio.h>
#include <string.h>

typedef struct pclr_example_device {
    pclr_cl_context *cl;
    cl_mem cbuf;
#ifdef PCLREDUCE_CUDA
    pclr_cuda_context *cuda;
    CUdeviceptr dbuf;
#endif
    const void *host; /* the uploaded data, for the CPU fallback */
    char name[512];
} pclr_example_device;

/* 1 with a GPU/OpenCL device, 0 when only the CPU reference is left (the
   reasons are printed; the device still works, on the CPU). */
static inline int pclr_example_open(pclr_example_device *d) {
    memset(d, 0, sizeof *d);
#ifdef PCLREDUCE_CUDA
    if (pclr_cuda_create(NULL, &d->cuda) == PCLR_OK) {
        snprintf(d->name, sizeof d->name, "CUDA: %s", pclr_cuda_get_features(d->cuda)->device_name);
        return 1;
    }
    printf("CUDA: %s; trying OpenCL\n", d->cuda ? pclr_cuda_last_error(d->cuda) : "unavailable");
    pclr_cuda_destroy(d->cuda);
    d->cuda = NULL;
#endif
    {
        pclr_cl_desc desc;
        char why[512] = "";
        memset(&desc, 0, sizeof desc);
        desc.error = why;
        desc.error_cap = sizeof why;
        if (pclr_cl_create_default_desc(&desc, -1, -1, &d->cl) == PCLR_OK) {
            const pclr_cl_features *f = pclr_cl_get_features(d->cl);
            snprintf(d->name, sizeof d->name, "OpenCL: %s / %s", f->platform_name, f->device_name);
            return 1;
        }
        printf("OpenCL: %s\n", why);
    }
    snprintf(d->name, sizeof d->name, "CPU (pclr_cpu_reduce)");
    return 0;
}

static inline const char *pclr_example_error(const pclr_example_device *d) {
#ifdef PCLREDUCE_CUDA
    if (d->cuda) return pclr_cuda_last_error(d->cuda);
#endif
    return d->cl ? pclr_cl_last_error(d->cl) : "";
}

/* Builds cfg's kernel now (load time), not at the first reduce. */
static inline pclr_result pclr_example_prepare(pclr_example_device *d, const pclr_config *cfg) {
#ifdef PCLREDUCE_CUDA
    if (d->cuda) return pclr_cuda_prepare(d->cuda, cfg);
#endif
    return d->cl ? pclr_cl_prepare(d->cl, cfg) : PCLR_OK;
}

/* Copies `bytes` of data to the device, replacing an earlier upload. */
static inline pclr_result pclr_example_upload(pclr_example_device *d, const void *data, size_t bytes) {
    d->host = data;
#ifdef PCLREDUCE_CUDA
    if (d->cuda) {
        pclr_result r;
        pclr_cuda_free(d->cuda, d->dbuf);
        d->dbuf = 0;
        if ((r = pclr_cuda_alloc(d->cuda, bytes, &d->dbuf)) != PCLR_OK) return r;
        return pclr_cuda_copy_to_device(d->cuda, d->dbuf, data, bytes);
    }
#endif
    if (d->cl) {
        const pclr_cl_api *cl = pclr_cl_get_api(d->cl);
        cl_int err;
        if (d->cbuf) cl->ReleaseMemObject(d->cbuf);
        d->cbuf = cl->CreateBuffer(pclr_cl_get_cl_context(d->cl), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                   (void *)data, &err);
        if (err != CL_SUCCESS) d->cbuf = NULL;
        return err == CL_SUCCESS ? PCLR_OK : PCLR_ERR_OUT_OF_MEMORY;
    }
    return PCLR_OK;
}

/* Blocking reduction of the first n uploaded elements. */
static inline pclr_result pclr_example_reduce(pclr_example_device *d, const pclr_config *cfg, uint64_t n, void *result) {
#ifdef PCLREDUCE_CUDA
    if (d->cuda) return pclr_cuda_reduce(d->cuda, cfg, d->dbuf, 0, n, NULL, result);
#endif
    if (d->cl) return pclr_cl_reduce(d->cl, cfg, d->cbuf, 0, n, result);
    return pclr_cpu_reduce(cfg->type, cfg->op, d->host, n, result);
}

static inline void pclr_example_close(pclr_example_device *d) {
#ifdef PCLREDUCE_CUDA
    pclr_cuda_free(d->cuda, d->dbuf);
    pclr_cuda_destroy(d->cuda);
#endif
    if (d->cbuf) pclr_cl_get_api(d->cl)->ReleaseMemObject(d->cbuf);
    pclr_cl_destroy(d->cl);
}

#endif
