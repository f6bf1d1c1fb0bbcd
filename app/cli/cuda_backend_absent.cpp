// The CUDA backend when this build has no CUDA toolkit: never usable, says why.
#include "kernels/cuda_backend.h"

namespace streamlab {

CudaProbe ProbeCuda() {
  CudaProbe probe;
  probe.reason = "this build has no CUDA backend (no CUDA compiler was found at configure time)";
  return probe;
}

std::unique_ptr<Executor> MakeCudaExecutor() { return nullptr; }

}  // namespace streamlab
