// The CUDA boundary's one check macro: every runtime call goes through SL_CUDA(...), which
// turns a failure into a CudaCallError naming the call, file and line. The runner catches
// it and ends the run cleanly; nothing calls exit().
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "engine/util/errors.h"

namespace streamlab {

class CudaCallError : public RunError {
 public:
  CudaCallError(cudaError_t code, const std::string& what) : RunError(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void ThrowCudaError(cudaError_t code, const char* expr, const char* file, int line);

inline void CheckCuda(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) ThrowCudaError(code, expr, file, line);
}

}  // namespace streamlab

#define SL_CUDA(expr) ::streamlab::CheckCuda((expr), #expr, __FILE__, __LINE__)
