// A raw CUDA C++ program to record: two blocking streams and one kernel on the legacy
// default stream between them (the stall the course notes attribute to "implicit sync"),
// then an event that orders s2 after s1 explicitly. Build: nvcc -o legacy_stall legacy_stall.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(err_),    \
                   __FILE__, __LINE__);                                                   \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

// Spins for about `ns` nanoseconds of GPU time.
__global__ void Spin(long long ns) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= static_cast<unsigned long long>(ns)) break;
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA GPU\n");
    return 3;
  }
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));  // blocking streams: they sync with the legacy stream
  CHECK(cudaStreamCreate(&s2));
  cudaEvent_t done1;
  CHECK(cudaEventCreateWithFlags(&done1, cudaEventDisableTiming));
  Spin<<<1, 32>>>(1000);  // load the module before the studied part
  CHECK(cudaDeviceSynchronize());

  // Part 1: s1, legacy default stream, s2 -> fully serial.
  Spin<<<4, 128, 0, s1>>>(1000000);
  Spin<<<4, 128>>>(1000000);        // stream 0 = the legacy default stream
  Spin<<<4, 128, 0, s2>>>(1000000);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  // Part 2: an explicit dependency s1 -> s2 through an event; the host does not block.
  Spin<<<4, 128, 0, s1>>>(500000);
  CHECK(cudaEventRecord(done1, s1));
  CHECK(cudaStreamWaitEvent(s2, done1, 0));
  Spin<<<4, 128, 0, s2>>>(500000);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s2));

  CHECK(cudaEventDestroy(done1));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  std::printf("legacy stall demo done\n");
  return 0;
}
