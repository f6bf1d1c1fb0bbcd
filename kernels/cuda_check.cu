// Formats a failed CUDA call: "cudaMalloc(&p, n) failed at kernels/x.cu:42: out of memory
// (cudaErrorMemoryAllocation)".
#include "kernels/cuda_check.h"

namespace streamlab {

void ThrowCudaError(cudaError_t code, const char* expr, const char* file, int line) {
  // Clear the runtime's last-error state: a non-sticky error (say, out of memory) would
  // otherwise resurface from the next run's cudaGetLastError() after a good launch.
  // (Measured: without this, the run after an OOM failed at its first launch.)
  (void)cudaGetLastError();
  std::string where = file;
  size_t cut = where.rfind("kernels/");
  if (cut != std::string::npos) where = where.substr(cut);
  throw CudaCallError(code, std::string(expr) + " failed at " + where + ":" + std::to_string(line) +
                                ": " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + ")");
}

}  // namespace streamlab
