// The CUDA backend as the rest of the program sees it: plain C++, no CUDA headers, so the
// CLI and GUI compile without the toolkit. Built from kernels/ when CUDA is found, else
// from app/cli/cuda_backend_absent.cpp.
#pragma once

#include <memory>
#include <string>

#include "engine/trace/executor.h"

namespace streamlab {

struct CudaProbe {
  bool usable = false;
  std::string reason;  // why not, when not usable
  int device_count = 0;
  std::string device_name;
  std::string driver;
};

// Asks the CUDA runtime for devices. Per-process settings (CUDA_DEVICE_MAX_CONNECTIONS,
// CUDA_MODULE_LOADING, CUDA_LAUNCH_BLOCKING) must be in the environment before this.
CudaProbe ProbeCuda();
// A CUDA executor; only call when ProbeCuda() said usable.
std::unique_ptr<Executor> MakeCudaExecutor();

}  // namespace streamlab
