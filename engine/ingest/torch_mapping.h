// A lab run in PyTorch, mapped back onto the lab: the PyTorch program StreamLab wrote
// (engine/scenario/torch_program.h) ran under `streamlab-cli record`, and each lab op's
// calls sit in its NVTX range "streamlab:N". The op's host call spans the CUDA calls PyTorch
// made in that range (the whole range for host work, which makes none), and its GPU span is
// the GPU op the range submitted. The result is a Trace of the lab's own scenario, backend "torch",
// that the lab's expectations, the analyzer and every view read like any other run.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

// Throws RunError naming the first op whose range or GPU work the recording lacks.
Trace MapTorchRun(const Trace& recorded, const Scenario& lab);

}  // namespace streamlab
