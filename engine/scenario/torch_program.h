// A scenario as a runnable PyTorch program: what the Code tab shows and what
// `--backend torch` runs (under `streamlab-cli record`). Spin kernels are
// torch.cuda._sleep, converted from microseconds with the GPU clock measured at start;
// copies use real pinned or pageable tensors; streams, events, wait_event, wait_stream,
// syncs and host threads are PyTorch's own. Each op of the measured pass runs inside an
// NVTX range named "streamlab:N" (N = the op's index), which is how the recorded run is
// mapped back onto the lab's ops (engine/trace/torch_mapping.h); a warm-up pass, where the
// scenario asks for one, uses "warmup:N". A graph_launch's ops are captured with
// torch.cuda.graph at the start of each pass, each inside "capture:N", and replayed by the
// launch; CUPTI names the captured node behind each replayed kernel.
#pragma once

#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

struct TorchProgram {
  std::string text;
  // What PyTorch does differently from the lab's program (a per-thread default stream, a
  // blocking stream, a kernel that fills the GPU): the program runs, and shows what PyTorch
  // does instead. The text says the same in comments.
  std::vector<std::string> differs;
  // What the program cannot run (a non-spin kernel, a collective, a recorded program).
  std::vector<std::string> unsupported;
};

TorchProgram ScenarioAsTorchProgram(const Scenario& scenario);

// The NVTX range name of op `op` in the measured pass.
std::string TorchRangeName(int op);
// The NVTX range op `op`, a graph node, is captured in (each pass captures its graphs anew).
std::string TorchCaptureRangeName(int op);

}  // namespace streamlab
