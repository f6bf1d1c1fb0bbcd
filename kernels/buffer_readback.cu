// Reads checked buffers back after a run (the device is idle by then).
#include "kernels/buffer_readback.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "engine/sim/buffer_contents.h"
#include "kernels/cuda_check.h"

namespace streamlab {

std::vector<BufferCheck> ReadBackChecks(const Scenario& s, const std::vector<void*>& storage) {
  std::vector<BufferCheck> out;
  std::vector<Contents> expected = ProgramOrderContents(s);
  for (size_t b = 0; b < s.buffers.size(); ++b) {
    const BufferDesc& d = s.buffers[b];
    if (!d.checked || d.alias_of >= 0) continue;
    if (!storage[b]) {
      out.push_back({d.name, Describe(expected[b]), "freed before the end of the run", true});
      continue;
    }
    std::vector<uint32_t> elements(d.bytes / 4);
    if (d.kind == MemoryKind::kDevice) {
      SL_CUDA(cudaSetDevice(d.device));
      SL_CUDA(cudaMemcpy(elements.data(), storage[b], elements.size() * 4, cudaMemcpyDeviceToHost));
    } else {
      std::memcpy(elements.data(), storage[b], elements.size() * 4);
    }
    out.push_back(CheckElements(d.name, expected[b], elements));
  }
  return out;
}

}  // namespace streamlab
