// The same kernel as cl_latency.c on CUDA: launch + 4-byte blocking copy, and launch + sync.
// Build: nvcc -O2 -arch=sm_90 -o build/cu_latency bench/latency/cu_latency.cu (results: h100-nvidia-opencl/sync_methods.log)
#include <cstdio>
#include <algorithm>
#include <chrono>
#include <cuda_runtime.h>
__global__ void k(const float *in, unsigned n, float *out) {
  float s = 0; for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = s; }
int main() {
  const unsigned n = 1u << 18; float *in, *out, got, *pinned; cudaMalloc(&in, n * 4); cudaMemset(in, 0, n * 4); cudaMalloc(&out, 64);
  cudaMallocHost(&pinned, 64);
  for (int way = 0; way < 3; ++way) {
    double t[200];
    for (int it = -20; it < 200; ++it) {
      auto t0 = std::chrono::steady_clock::now();
      k<<<132 * 2, 256>>>(in, n, out);
      if (way == 0) cudaDeviceSynchronize();
      else if (way == 1) cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost);
      else { cudaMemcpyAsync(pinned, out, 4, cudaMemcpyDeviceToHost, 0); cudaStreamSynchronize(0); }
      if (it >= 0) t[it] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    std::sort(t, t + 200);
    const char *names[] = {"cuda: kernel + sync", "cuda: kernel + blocking copy", "cuda: kernel + async copy to pinned + sync"};
    printf("%-48s median %7.2f us  p10 %7.2f  p90 %7.2f\n", names[way], t[100], t[20], t[180]);
  }
}
