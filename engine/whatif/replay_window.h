// The steps a prediction replays: a long loop's steady steps are alike, so what a fix saves a
// step is found on a few of them, not on every op of the run again. A window is a run of the
// loop's steps as a trace of its own, with its steps and a map from the recording's ops to the
// window's. `explain` replays its fixes on steps from the middle of the loop (its first steady
// steps are often still slower than the rest: caches, allocator, clocks), and the warm-up on the
// loop's first steps.
#pragma once

#include <vector>

#include "engine/analysis/program_steps.h"
#include "engine/trace/trace.h"

namespace streamlab {

// At most this many steady steps are replayed for explain's predictions (their median is the
// figure; the steps are alike, and 8 hold it to a few percent on the corpus's loops).
inline constexpr int kReplayedSteadySteps = 8;

struct StepWindow {
  Trace trace;               // the window's ops, in the recording's order
  StepSplit steps;           // its steps: the recording's first ones, their ops renumbered
  std::vector<int> op_of;    // per recorded op: its index in the window (-1: outside it)
  bool whole = true;         // the window is the whole recording (short enough to replay whole)
  int Map(int op) const { return op >= 0 && op < static_cast<int>(op_of.size()) ? op_of[op] : -1; }
};

// The recording's steps up to the warm-up and `steady` steady steps (and the step after them, which
// times the last one), or the whole recording when it has no more steps than that.
StepWindow FirstStepsWindow(const Trace& recorded, const StepSplit& steps, int steady = kReplayedSteadySteps);

// `steady` steady steps from the middle of the loop's steady ones, after one step that leads them
// in (a replay begins with idle streams: the step before the window fills them as the recording
// had them), and the step after them; the whole recording when it has too few steps for that.
StepWindow MiddleStepsWindow(const Trace& recorded, const StepSplit& steps, int steady = kReplayedSteadySteps);

}  // namespace streamlab
