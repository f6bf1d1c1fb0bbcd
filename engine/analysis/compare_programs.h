// Two traces of one program - before and after a change (a recording, a torch.profiler trace,
// or both kinds) - side by side: what the steps cost in each, where the GPU's idle time went,
// and each kind of finding at each place in the program with its count in each, so a student
// sees whether the change removed what the first run's findings named.
//
// A step is a range the program marked (torch.profiler's "ProfilerStep#N", or any name, e.g. an
// NVTX range "step"): figures are per step, over the steps only (from the first one's start to
// the end of the GPU work submitted inside the last), so start-up and a different number of
// steps do not skew them. With no such ranges the whole traces are compared, and the result
// says so: they may then hold different amounts of work.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/step_pace.h"
#include "engine/trace/trace.h"

namespace streamlab {

// One run's figures over its steps (or the whole trace), summed: divide by `steps`.
struct StepFigures {
  int steps = 0;         // ranges counted (0: the whole trace was taken)
  TimeNs from = 0, to = 0;  // the window looked at
  TimeNs host_in_steps = 0;  // time inside the step ranges (on their threads)
  TimeNs gpu_busy = 0;       // time some GPU op ran, within the window
  TimeNs host_blocked = 0;   // host calls made in the steps that blocked longer than the slack
  TimeNs idle_by_cause[kIdleCauseCount] = {};  // GPU idle within the window, by cause
  TimeNs gpu_idle = 0;
  // The window's time before its first kernel and after its last (summed over devices): the
  // idle gaps lie between kernels, so this is GPU time idle that no gap counts.
  TimeNs outside_kernels = 0;
  size_t kernels = 0;        // kernels submitted in the steps
  // Kernels, copies and memsets submitted in the steps by a call of their own (not replayed
  // from a graph), and what recording (or torch.profiler) is estimated to have added to the
  // host's time for them (engine/trace/host_cost.h's HostCostOf; 0 when the trace does not say).
  size_t submitting_calls = 0;
  TimeNs tool_low = 0, tool_high = 0;
};

// One kind of finding at one place: how many in each run, and the time they account for.
struct FindingTally {
  FindingKind kind = FindingKind::kHostBlock;
  ProgramSite site;    // where (empty when the trace does not say)
  std::string call;    // the call, when the place is unknown (its name)
  int count_a = 0, count_b = 0;
  TimeNs time_a = 0, time_b = 0;
};

// Where the host was, in the GPU's idle time for the host's own work, in each run.
struct PlaceChange {
  ProgramSite place;
  TimeNs time_a = 0, time_b = 0;
};

struct ProgramComparison {
  std::string unit;  // the step range's name ("" when whole traces are compared)
  bool single = false;  // one trace described per step (DescribeSteps): only `a` and the `_a` counts
  StepFigures a, b;
  SteadySteps steady_a, steady_b;
  std::vector<FindingTally> tallies;  // largest change in time first, then in count
  // The places that held a tenth of either run's idle time for the host's own work, largest
  // change first, at most three: where the traces' ranges say the host was, or, where they do
  // not say it for half of either run's such time, where a recording's stacks say the host came
  // back to CUDA after that work (host_work_resumed; the line after the work, not the work).
  std::vector<PlaceChange> host_work_places;
  bool host_work_resumed = false;
};

// The step range name both traces hold: `per` when given (an error when either has none),
// else "ProfilerStep" when both hold torch.profiler's step ranges, else "" (whole traces).
std::string StepRangeOf(const Trace& a, const Trace& b, const std::string& per);

// How many ranges of `trace` are named `name` or `name#N`.
int CountStepRanges(const Trace& trace, const std::string& name);

// `steady_a`: a's steady steps when its verdict has found them already (verdict.h: SteadyStepsOf
// its steps and pace), else they are found here.
ProgramComparison ComparePrograms(const Trace& a, const Analysis& analysis_a, const Trace& b,
                                  const Analysis& analysis_b, const std::string& per = "",
                                  std::optional<SteadySteps> steady_a = std::nullopt);

// One trace per step (`explain --per NAME`): the same figures, places and finding counts for it
// alone (`per` as for ComparePrograms; "ProfilerStep" when it has those and `per` is empty).
ProgramComparison DescribeSteps(const Trace& trace, const Analysis& analysis, const std::string& per,
                                std::optional<SteadySteps> steady = std::nullopt);

}  // namespace streamlab
