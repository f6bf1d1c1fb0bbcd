// Steps timed from call to call, and the steady step's pace (step_pace.h).
#include "engine/analysis/step_pace.h"

#include "engine/util/median.h"

namespace streamlab {

std::vector<int> StepAnchors(const Trace& t, const StepSplit& steps) {
  std::vector<int> anchors;
  for (const ProgramStep& step : steps.steps) {
    int anchor = -1;
    if (step.first_op >= 0) {
      int thread = t.scenario.ops[step.first_op].thread;
      for (int i = step.first_op; i >= 0 && t.ops[i].submit >= step.begin; --i)
        if (IsRecordedCall(t.scenario.ops[i]) && t.scenario.ops[i].thread == thread) anchor = i;
    }
    anchors.push_back(anchor);
  }
  return anchors;
}

// A host that runs ahead, with no sync to hold it, calls steps faster than the GPU finishes them;
// then the GPU's pace is the step. A median, not a mean: one step held up (a collection, a slow
// batch) says nothing of the steady pace.
StepPace PaceOf(const StepSplit& steps, const StepSpacing& s) {
  std::vector<TimeNs> calls, ends;
  for (size_t k = 0; k < s.calls.size(); ++k) {
    if (!steps.steps[k].steady) continue;
    if (s.calls[k] >= 0) calls.push_back(s.calls[k]);
    if (k + 1 < s.calls.size() && steps.steps[k + 1].steady && s.done[k] >= 0 && s.done[k + 1] >= 0 && s.calls[k + 1] >= 0)
      ends.push_back(s.done[k + 1] - s.done[k]);
  }
  return {MedianTime(calls), MedianTime(ends)};
}

StepPace MeasuredPace(const Trace& t, const StepSplit& steps) {
  if (!steps.found()) return {};
  return PaceOf(steps, Spacing(t, t, StepAnchors(t, steps), [](int i) { return i; }));
}

SteadySteps SteadyStepsOf(const Trace& t) {
  StepSplit steps = FindSteps(t);
  if (!steps.found()) return {};
  return SteadyStepsOf(steps, MeasuredPace(t, steps));
}

}  // namespace streamlab
