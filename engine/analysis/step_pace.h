// How long a steady step takes: each step timed from one call to the same call a step later (its
// first call on the loop's thread; for a range, the first call inside it), or by the GPU's pace
// when the host runs ahead. `whatif` times measured and predicted steps this way, and `compare`
// and the GUI's Compare show the same figure, so the three agree on what a step costs.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/analysis/program_steps.h"
#include "engine/trace/trace.h"

namespace streamlab {

// Whether a recorded op is a host call of its own (a graph's replayed node is not, nor host work).
inline bool IsRecordedCall(const Op& op) { return op.kind != OpKind::kHostWork && op.graph < 0; }

// Per step of `t`: the call it is timed from (its first call on the loop's thread at or after the
// step's begin), -1 when none is found.
std::vector<int> StepAnchors(const Trace& t, const StepSplit& steps);

struct StepSpacing {
  std::vector<TimeNs> calls;  // per step with a next one: its first call to the next step's (-1: untimed)
  std::vector<TimeNs> done;   // per step: the end of its last GPU op (-1: none)
};

// The steps in `run`, whose op for the recording's op i is `map(i)` (the recording itself: i).
template <typename Map>
StepSpacing Spacing(const Trace& recorded, const Trace& run, const std::vector<int>& anchors, Map map) {
  StepSpacing out{std::vector<TimeNs>(anchors.size(), -1), std::vector<TimeNs>(anchors.size(), -1)};
  for (size_t k = 0; k + 1 < anchors.size(); ++k) {
    if (anchors[k] < 0 || anchors[k + 1] < 0) continue;
    int a = map(anchors[k]), b = map(anchors[k + 1]);
    if (a >= 0 && b >= 0) out.calls[k] = run.ops[b].submit - run.ops[a].submit;
    // (Only the loop's own process: other ranks' ops lie between its calls in a recording of several.)
    const int process = ProcessOfThread(recorded.scenario, recorded.scenario.ops[anchors[k]].thread);
    for (int i = anchors[k]; i < anchors[k + 1]; ++i) {
      int m = map(i);
      if (m >= 0 && run.ops[m].gpu && recorded.ops[i].gpu && ProcessOfThread(recorded.scenario, recorded.scenario.ops[i].thread) == process)
        out.done[k] = std::max(out.done[k], run.ops[m].end);
    }
  }
  return out;
}

// The steady steps' pace: the median spacing of their first calls, and of consecutive steps'
// ends (the GPU's pace; 0 when not timed). A host that runs ahead of the GPU calls steps faster
// than their work ends.
struct StepPace {
  TimeNs calls = 0, ends = 0;
  TimeNs step() const { return std::max(calls, ends); }  // a steady step: the slower of the two
};
StepPace PaceOf(const StepSplit& steps, const StepSpacing& s);
inline TimeNs SteadyStep(const StepSplit& steps, const StepSpacing& s) { return PaceOf(steps, s).step(); }

// A trace's steady pace by its own steps (zeros when they were not found).
StepPace MeasuredPace(const Trace& t, const StepSplit& steps);

// A run's steady-state step as `explain` finds its steps (program_steps.h) and `whatif` times
// them: the median step after the warm-up ones, from call to call or by the GPU's pace. Means
// over every step range count the warm-up too, and a range may close before its GPU work ends:
// a first step of autotuning, or a graph's capture, outweighs many steady steps there, so this
// is the figure to read against whatif's.
struct SteadySteps {
  int steady = 0;  // steps counted as steady (0: the run's steps were not found)
  int warmup = 0;  // leading steps left out as warm-up
  TimeNs step = 0;
};
inline SteadySteps SteadyStepsOf(const StepSplit& steps, StepPace pace) { return {steps.steady, steps.warmup, pace.step()}; }
// Found and timed afresh, for a trace whose verdict (verdict.h: its steps and pace) is not at hand.
SteadySteps SteadyStepsOf(const Trace& t);

}  // namespace streamlab
