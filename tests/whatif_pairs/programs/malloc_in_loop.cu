// Each step allocates a 64 MB work buffer, runs on it and frees it; cudaFree waits for the whole
// device. Fixed: the buffer is allocated once before the loop.
#include "pairs_common.cuh"

int main(int argc, char** argv) {
  bool fixed = Fixed(argc, argv);
  const size_t bytes = 64u << 20;
  float* kept = nullptr;
  if (fixed) CHECK(cudaMalloc(&kept, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int step = 0; step < 40; ++step) {
    StepRange range;
    float* work = kept;
    if (!fixed) CHECK(cudaMalloc(&work, bytes));
    for (int k = 0; k < 4; ++k) spin<<<132, 128, 0, s>>>(work, 100000);
    CHECK(cudaMemsetAsync(work, 0, 4096, s));
    if (!fixed) CHECK(cudaFree(work));
  }
  CHECK(cudaStreamSynchronize(s));
  if (fixed) CHECK(cudaFree(kept));
  std::printf("done\n");
  return 0;
}
