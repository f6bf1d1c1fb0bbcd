// Each step copies 32 MB in from malloc'd (pageable) memory, which the host stages and waits
// for, then computes on it. Fixed: the host buffer is pinned (cudaMallocHost).
#include "pairs_common.cuh"

int main(int argc, char** argv) {
  bool fixed = Fixed(argc, argv);
  const size_t bytes = 32u << 20;
  float* host = nullptr;
  if (fixed) CHECK(cudaMallocHost(&host, bytes));
  else host = static_cast<float*>(std::malloc(bytes));
  std::memset(host, 0, bytes);
  float* dev = nullptr;
  CHECK(cudaMalloc(&dev, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int step = 0; step < 40; ++step) {
    StepRange range;
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    for (int k = 0; k < 3; ++k) spin<<<132, 128, 0, s>>>(dev, 200000);
  }
  CHECK(cudaStreamSynchronize(s));
  std::printf("done\n");
  return 0;
}
