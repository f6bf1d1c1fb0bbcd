// Reading a trace's recording-cost note back as a cost per call.
#include "engine/trace/host_cost.h"

namespace streamlab {

HostCostPerCall HostCostOf(const Trace& trace) {
  for (const TraceNote& note : trace.notes) {
    if (note.key == "recording_cost") return {kRecordLowNs, kRecordHighNs};
    if (note.key == "profiler_cost_cuda") return {kProfilerCudaLowNs, kProfilerCudaHighNs};
    if (note.key == "profiler_cost_cpu") return {kProfilerCpuNs, kProfilerCpuNs};
  }
  return {};
}

}  // namespace streamlab
