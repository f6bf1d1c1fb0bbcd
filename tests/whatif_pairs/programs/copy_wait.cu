// Each step copies a 24 MB input from pinned memory onto the stream its kernels run on, so the
// copy waits for the last step's kernels and the kernels wait for the copy: the GPU computes
// only between copies. Fixed: the copy goes on a second stream into one of two buffers, and the
// kernels' stream waits for it with an event; the copy waits only for the kernels that read
// that buffer two steps before.
#include "pairs_common.cuh"

int main(int argc, char** argv) {
  bool fixed = Fixed(argc, argv);
  const size_t bytes = 24u << 20;
  float* host = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  std::memset(host, 0, bytes);
  float* dev[2] = {nullptr, nullptr};
  for (float*& d : dev) CHECK(cudaMalloc(&d, bytes));
  cudaStream_t compute, copies;
  CHECK(cudaStreamCreate(&compute));
  CHECK(cudaStreamCreate(&copies));
  cudaEvent_t landed[2], read[2];
  for (int b = 0; b < 2; ++b) {
    CHECK(cudaEventCreateWithFlags(&landed[b], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&read[b], cudaEventDisableTiming));
  }
  for (int step = 0; step < 40; ++step) {
    StepRange range;
    int b = fixed ? step % 2 : 0;
    if (fixed) {
      if (step >= 2) CHECK(cudaStreamWaitEvent(copies, read[b], 0));
      CHECK(cudaMemcpyAsync(dev[b], host, bytes, cudaMemcpyHostToDevice, copies));
      CHECK(cudaEventRecord(landed[b], copies));
      CHECK(cudaStreamWaitEvent(compute, landed[b], 0));
    } else {
      CHECK(cudaMemcpyAsync(dev[b], host, bytes, cudaMemcpyHostToDevice, compute));
    }
    for (int k = 0; k < 3; ++k) spin<<<132, 128, 0, compute>>>(dev[b], 200000);
    if (fixed) CHECK(cudaEventRecord(read[b], compute));
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
