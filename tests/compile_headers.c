/* Compile test: all three headers with their implementations in one
   translation unit (C99 and C++11, gcc and clang, warnings as errors), linked
   with compile_headers_use.c, which includes them without implementations. */
#define PCLREDUCE_IMPLEMENTATION
#define PCLREDUCE_OPENCL
#ifndef PCLR_TEST_NO_CUDA /* the core and OpenCL headers need no cuda.h */
#define PCLREDUCE_CUDA
#endif
#include "../pclreduce.h"
#include "../pclreduce_cl.h"   /* a second include is harmless */
#ifndef PCLR_TEST_NO_CUDA
#include "../pclreduce_cuda.h"

int pclr_compile_headers_use(void);

int main(void) {
    return pclr_compile_headers_use();
}
#endif
