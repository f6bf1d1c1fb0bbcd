// A program's steps, found by themselves: the ranges it marked for them (torch.profiler's
// ProfilerStep#N, an NVTX range named "step..."), or else the repeating unit of its GPU work
// (a training loop submits the same kernels in the same order every step). The run is split
// into start-up (before the first step), warm-up steps (the first ones, slower: module loads,
// the allocator growing, autotuning) and steady-state steps, whose median is what a step costs.
#pragma once

#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

enum class StepSource {
  kNone,       // fewer than three repeats: no steps
  kRanges,     // the program's own step ranges
  kRepeating,  // the repeating sequence of GPU work
};

struct ProgramStep {
  TimeNs begin = 0;   // the host's submission of the step's first GPU op (or the range's begin)
  TimeNs end = 0;     // the next step's begin; the last step: its last op's end
  int first_op = -1;  // its first GPU op
  int gpu_ops = 0;    // GPU ops submitted in it
  bool steady = false;
  // Found from the repeating work with no step after it: its end is its own work's, not the next
  // step's start, so its length leaves out the loop's top (left out of the median).
  bool open_end = false;
};

struct StepSplit {
  StepSource source = StepSource::kNone;
  std::string range_name;  // kRanges: the ranges' name (without "#N")
  int period = 0;          // kRepeating: GPU ops in a steady step
  std::vector<ProgramStep> steps;
  int warmup = 0;           // leading steps slower than the steady ones
  int steady = 0;           // steps counted as steady
  TimeNs median = 0, low = 0, high = 0;  // steady steps' median, fastest and slowest
  TimeNs run_begin = 0, run_end = 0;     // the whole trace
  bool found() const { return steady > 0; }
};

// `process`: the steps of that process alone (a recording of several: each rank runs its own
// loop, and their ops lie interleaved); -1: of the whole trace.
StepSplit FindSteps(const Trace& trace, int process = -1);

}  // namespace streamlab
