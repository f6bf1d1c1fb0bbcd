// A scenario as a runnable PyTorch program: what the Code tab shows and what
// `--backend torch` runs (under `streamlab-cli record`). Spin kernels are
// torch.cuda._sleep, converted from microseconds with the GPU clock measured at start;
// copies use real pinned or pageable tensors; streams, events, wait_event, wait_stream,
// syncs and host threads are PyTorch's own. Each op of the measured pass runs inside an
// NVTX range named "streamlab:N" (N = the op's index), which is how the recorded run is
// mapped back onto the lab's ops (engine/ingest/torch_mapping.h); a warm-up pass, where the
// scenario asks for one, uses "warmup:N". A graph_launch's ops are captured with
// torch.cuda.graph at the start of each pass, each inside "capture:N", and replayed by the
// launch; CUPTI names the captured node behind each replayed kernel. A spin kernel of more
// than 32 blocks is StreamLab's spin kernel compiled with NVRTC (torch.cuda._sleep is one
// block). A scenario with collectives is a torchrun program: each GPU's ops run in that
// GPU's process (its ranges keep their op numbers), the collectives are torch.distributed's.
// A lab whose program PyTorch writes differently (autograd's backward() launches the
// backward kernels itself, on another thread) gives its thread function by hand
// (Scenario::torch_source); the rest of the program is generated as for any lab, and one
// range may then name several ops ("streamlab:3+4+5", in the order the calls come).
#pragma once

#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

struct TorchProgram {
  std::string text;
  // What PyTorch does differently from the lab's program (a per-thread default stream, a
  // blocking stream, buffers it does not read back): the program runs, and shows what
  // PyTorch does instead. The text says the same in comments.
  std::vector<std::string> differs;
  // What the program cannot run (a non-spin kernel, a recorded program, another GPU's
  // event under torchrun).
  std::vector<std::string> unsupported;
  // Processes to start: 1 = `python3 program.py`; N = a scenario with collectives, run as
  // `torchrun --nproc_per_node=N program.py`, one process per GPU (RANK = its GPU).
  int processes = 1;
};

TorchProgram ScenarioAsTorchProgram(const Scenario& scenario);

// The NVTX range name of op `op` in the measured pass.
std::string TorchRangeName(int op);
// The ops a range of the measured pass names, in order ("streamlab:3+4+5" -> 3, 4, 5); empty
// for a range of another tag or a malformed name.
std::vector<int> TorchRangeOps(const std::string& range_name);
// The NVTX range op `op`, a graph node, is captured in (each pass captures its graphs anew).
std::string TorchCaptureRangeName(int op);

}  // namespace streamlab
