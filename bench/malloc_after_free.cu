// Probe: does cudaMalloc cost more right after cudaFree than before any free? (The calibration
// used to time allocations made after the previous round's frees; a lab's allocations come first.)
//   nvcc -O2 -o malloc_after_free bench/malloc_after_free.cu && ./malloc_after_free MODE
//   MODE: fresh (3 rounds of 64 MB + 256 MB, nothing freed until the end)
//         after_free (each round's buffers freed before the next round allocates)
//         old_order (the calibration's old order: each round freed, then 8 MB and 64 MB of
//                    pinned memory allocated with cudaMallocHost and kept, before the next round)
// Prints each allocation's host time in us, in order.
//
// 2026-11-27, three processes per mode on each of four machine starts (H100 start 10: fresh and
// after_free only; H200 starts 11 and 14; H100 start 12), a 64 MB cudaMalloc after the process's
// first: fresh 42-122 us; after_free 36-116 us, and 128-180 us in one process of start 14 that
// was slow throughout (its first allocation 193 us); old_order 181-295 us (H200) and 175-241 us
// (H100); the process's first allocation 94-193 us in every mode.
// So a cudaFree does not slow the next allocation; a cudaMallocHost does. The calibration now
// times its allocations before any pinned allocation (engine/sim/calibration.cpp).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

static double TimedMalloc(void** p, size_t bytes) {
  auto began = std::chrono::steady_clock::now();
  if (cudaMalloc(p, bytes) != cudaSuccess) std::exit(1);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - began).count();
}

int main(int argc, char** argv) {
  bool old_order = argc > 1 && std::strcmp(argv[1], "old_order") == 0;
  bool after_free = old_order || (argc > 1 && std::strcmp(argv[1], "after_free") == 0);
  std::vector<void*> pinned;
  cudaFree(nullptr);  // the context, before any timing
  std::vector<void*> kept;
  for (int round = 0; round < 3; ++round) {
    void *a = nullptr, *b = nullptr;
    double t64 = TimedMalloc(&a, 64u << 20), t256 = TimedMalloc(&b, 256u << 20);
    std::printf("round %d malloc64 %.1f malloc256 %.1f\n", round, t64, t256);
    if (after_free) {
      cudaFree(a);
      cudaFree(b);
      for (size_t mb : {8u, 64u}) {
        if (!old_order) break;
        void* h = nullptr;
        if (cudaMallocHost(&h, mb << 20) != cudaSuccess) return 1;
        pinned.push_back(h);
      }
    } else {
      kept.push_back(a);
      kept.push_back(b);
    }
  }
  for (void* p : kept) cudaFree(p);
  for (void* h : pinned) cudaFreeHost(h);
  return 0;
}
