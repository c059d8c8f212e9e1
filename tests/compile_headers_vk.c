/* All four backends in one translation unit (OpenCL, CUDA, Vulkan and the
   CPU): the headers compile together as C99 and C++11 (tests/run.sh), and
   pclr_device_count answers for Vulkan (0 devices is fine: this only runs it). */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#define PCLREDUCE_CUDA
#define PCLREDUCE_VULKAN
#include "../pclreduce.h"
#include <stdio.h>

int main(void) {
    int n = -1;
    char why[256] = "";
    pclr_desc d;
    pclr_result r;
    memset(&d, 0, sizeof d);
    d.error = why;
    d.error_cap = sizeof why;
    r = pclr_device_count(&d, PCLR_VULKAN, &n);
    printf("vulkan devices: %d (%s%s%s)\n", n, pclr_result_string(r), why[0] ? ": " : "", why);
    return (r == PCLR_OK && n > 0) || (r != PCLR_OK && n == 0 && why[0]) ? 0 : 1;
}
