// Shared by the what-if pairs' CUDA C++ programs: a kernel that runs for a set time, error
// checks, and the "fixed" switch (one fix made by hand when "fixed" is the first argument).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <nvtx3/nvToolsExt.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));         \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// Spins for about `ns` nanoseconds, then writes its block's index (so it is not optimised away).
__global__ void spin(float* out, long long ns) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(blockIdx.x);
}

inline bool Fixed(int argc, char** argv) { return argc > 1 && std::strcmp(argv[1], "fixed") == 0; }

// Marks one step with an NVTX range named "step", so before and after are split alike.
struct StepRange {
  StepRange() { nvtxRangePushA("step"); }
  ~StepRange() { nvtxRangePop(); }
};
