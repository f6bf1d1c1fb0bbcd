// What a recording tool adds to the host's time for each call that submits GPU work, as
// bench/README.md measured it; the importers write it into a trace's note, and the per-step
// report reads it back from there.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

// Added host time per call that submits GPU work, in ns (pairs of batches of tiny PyTorch ops,
// one recorded, on H100 and H200 machines): recorded +0.74 to +1.79 us; torch.profiler with
// CUDA activity only +3.65 to +4.57 us, with CPU ops too +6.50 and +6.52 us (one machine start;
// stacks and shapes cost more, unmeasured). A launch-bound BERT training step (440 launches,
// pairs of steps in one process, H200, 2026-11-29) cost +1.94 to +2.98 ms recorded: 4.4 to 6.8 us
// a launch, the high end here (bench/README.md, bert-pairs).
inline constexpr double kRecordLowNs = 700, kRecordHighNs = 6800;
inline constexpr double kProfilerCudaLowNs = 3600, kProfilerCudaHighNs = 4600;
inline constexpr double kProfilerCpuNs = 6500;

// The per-call cost behind a trace's cost note, in ns (both 0 when it has none: a lab's run,
// or a trace converted before the note existed).
struct HostCostPerCall {
  double low_ns = 0, high_ns = 0;
};
HostCostPerCall HostCostOf(const Trace& trace);

}  // namespace streamlab
