// The replay set beside the run it replays: each step of the recording (program_steps.h) as it
// was measured and as the simulator replayed it, from one step's first call to the next's, and
// how far the replay put each GPU op from where it ran inside its step.
#pragma once

#include <vector>

#include "engine/analysis/program_steps.h"
#include "engine/analysis/step_pace.h"
#include "engine/whatif/replay_scenario.h"

namespace streamlab {

struct StepReplay {
  int step = 0;  // index into StepSplit::steps
  TimeNs measured = 0, replayed = 0;
  bool steady = false;
};

struct ReplayReport {
  StepSplit steps;                // the recording's steps
  std::vector<StepReplay> per_step;  // every step that has a next one
  // Steady steps' medians (the whole run's GPU span, first op to last, without steps).
  TimeNs measured = 0, replayed = 0;
  double error = 0;               // |replayed - measured| / measured
  // A GPU op's start within its step, replayed against measured: the worst, its op, the median.
  TimeNs worst_edge = 0, median_edge = 0;
  int worst_edge_op = -1;
  bool by_steps() const { return steps.found(); }
};

// `replayed` is SimulateRecorded's trace of `replay` (of the recording `measured`).
ReplayReport CompareReplay(const Trace& measured, const StepSplit& steps, const Replay& replay, const Trace& replayed);

// Marks each step of the recording on the replayed (or predicted) run as a host range named
// "step", from its first call to the next step's, at the replay's times: `compare --per step`
// and the GUI's Compare then set the run beside the recording step by step.
void MarkReplayedSteps(const std::vector<int>& anchors, const Replay& replay, Trace& replayed);

// The steady steps' median step in a replayed (or edited) run, by the recording's steps (or its
// GPU span, without steps): what the what-ifs compare.
TimeNs ReplayedStep(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay, const Trace& replayed);

// Each step's time in a replayed (or edited) run, from its first call to the next step's, by the
// recording's steps (-1: not timed; empty without steps).
std::vector<TimeNs> ReplayedSteps(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors,
                                  const Replay& replay, const Trace& replayed);

// The steps before the steady ones (the warm-up steps; at least the first step), timed as the
// steady steps are: from the first step's first call to the first steady step's. And the time from
// the run's first call to that same call: what a warm-up before the loop moves time into.
struct LeadIn {
  int steps = 0;          // steps counted (0: not timed)
  TimeNs first_steps = 0;
  TimeNs to_steady = 0;
};
LeadIn MeasuredLeadIn(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors);
LeadIn ReplayedLeadIn(const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay, const Trace& replayed);

}  // namespace streamlab
