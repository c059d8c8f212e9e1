/* The declarations-only side of the header compile test. */
#include "../pclreduce_cuda.h"
#include "../pclreduce_cl.h"
#include <string.h>

int pclr_compile_headers_use(void) {
    pclr_config cfg;
    pclr_cl_context *cl = NULL;
    pclr_cuda_context *cuda = NULL;
    memset(&cfg, 0, sizeof cfg);
    (void)cl;
    (void)cuda;
    return pclr_config_resolve(&cfg, &cfg, NULL) == PCLR_OK ? 0 : 1;
}
