// 32 independent streams, each given a pair of one-block kernels (A then B, 2 ms each), then
// cudaDeviceSynchronize; 6 rounds. CUDA_DEVICE_MAX_CONNECTIONS is left at its default (8): the
// 32 streams share 8 hardware queues, and a queue runs its streams' work in order, so B of one
// stream holds A of the next stream in its queue (GPU-FACTS.md: 60 ms instead of 20 for 10 ms
// kernels). One block each on 132 SMs: the GPU is nearly empty throughout. Prints the median round.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void Spin(long long ns, int* out) {
  long long start = clock64();
  // clock64 counts SM cycles: about 1.7-1.98 GHz on H100/H200; 2 cycles a ns is close enough.
  while (clock64() - start < ns * 2) {
  }
  if (out) *out = 1;
}

int main() {
  const int streams = 32, rounds = 6;
  const long long kernel_ns = 2'000'000;
  std::vector<cudaStream_t> s(streams);
  for (cudaStream_t& x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  int* flag = nullptr;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  Spin<<<1, 1>>>(1000, flag);  // loads the module before the loop
  CHECK(cudaDeviceSynchronize());
  std::vector<double> times;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < streams; ++i) {
      Spin<<<1, 1, 0, s[i]>>>(kernel_ns, nullptr);  // A
      Spin<<<1, 1, 0, s[i]>>>(kernel_ns, nullptr);  // B
    }
    CHECK(cudaDeviceSynchronize());
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> steady(times.begin() + 1, times.end());
  std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
  std::printf("streams_32: %d steps timed; median step %.3f ms (steps 1..%d)\n", rounds, steady[steady.size() / 2], rounds - 1);
  for (cudaStream_t& x : s) CHECK(cudaStreamDestroy(x));
  CHECK(cudaFree(flag));
  return 0;
}
