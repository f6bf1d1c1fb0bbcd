// Eight streams, each a chain of short kernels, submitted stream after stream. Run with
// CUDA_DEVICE_MAX_CONNECTIONS=1 every stream shares one hardware queue and the chains run one
// after another; the fixed run (the same binary, 8 connections) overlaps them.
#include "pairs_common.cuh"

int main(int, char**) {
  float* dev = nullptr;
  CHECK(cudaMalloc(&dev, 1 << 20));
  cudaStream_t streams[8];
  for (cudaStream_t& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int step = 0; step < 40; ++step) {
    StepRange range;
    for (cudaStream_t s : streams)
      for (int k = 0; k < 4; ++k) spin<<<8, 128, 0, s>>>(dev, 20000);
    CHECK(cudaDeviceSynchronize());
  }
  std::printf("done\n");
  return 0;
}
