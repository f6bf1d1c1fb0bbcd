// Each step launches 16 short kernels and waits for each with cudaDeviceSynchronize, so the GPU
// idles while the host launches the next. Fixed: one wait at the end of the step.
#include "pairs_common.cuh"

int main(int argc, char** argv) {
  bool fixed = Fixed(argc, argv);
  float* dev = nullptr;
  CHECK(cudaMalloc(&dev, 1 << 20));
  for (int step = 0; step < 40; ++step) {
    StepRange range;
    for (int k = 0; k < 16; ++k) {
      spin<<<132, 128>>>(dev, 30000);
      if (!fixed) CHECK(cudaDeviceSynchronize());
    }
    if (fixed) CHECK(cudaDeviceSynchronize());
  }
  std::printf("done\n");
  return 0;
}
