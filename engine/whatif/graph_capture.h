// The launch-rate fix as an edit: each step's launches on the loop's thread and on the threads
// that launch into the same streams (PyTorch's autograd thread, which launches the backward
// pass), between the calls a graph cannot hold (syncs, allocations, copies the host waits in,
// long host breaks), captured into a CUDA graph launched by the loop's thread: one launch call
// at the measured cost of a graph launch, its kernels then run as a graph's nodes run; the host
// work between the launches, which the graph replays without, is gone.
#pragma once

#include <vector>

#include "engine/whatif/replay_scenario.h"

namespace streamlab {

// `anchors`: the recording's steps (replay_steps.h). Rebuilds the replay's op list.
void CaptureStepsInGraphs(const Trace& recorded, const std::vector<int>& anchors, Replay& replay);

}  // namespace streamlab
