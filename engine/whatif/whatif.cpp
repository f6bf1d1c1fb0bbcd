// What-if runs (whatif.h).
#include "engine/whatif/whatif.h"

#include <algorithm>
#include <exception>

#include "engine/sim/sim_executor.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/replay_window.h"
#include "engine/util/median.h"

namespace streamlab {
namespace {

// One replay at a time, built again for each edit (that takes far less than simulating it): a
// long recording's replay is as large as its trace, and explain holds the trace already.
Replay LeanReplay(const Trace& measured, const DeviceProfile& profile) {
  Replay replay = BuildReplay(measured, profile);
  for (Op& op : replay.scenario.ops)
    if (op.kind != OpKind::kApiCall) op.name.clear();  // api_calls' names say what they are
  return replay;
}

// A step's host work before its first call (a step range begun before it) more than a steady
// step's, summed over the warm-up steps: the replay times steps from their first calls, so this
// part of what a warm-up step takes out is the measured one.
TimeNs WorkBeforeFirstCalls(const Trace& t, const StepSplit& s, const std::vector<int>& anchors) {
  std::vector<TimeNs> steady;
  for (size_t k = 0; k < anchors.size(); ++k)
    if (anchors[k] >= 0 && s.steps[k].steady) steady.push_back(std::max<TimeNs>(0, t.ops[anchors[k]].submit - s.steps[k].begin));
  if (steady.empty()) return 0;
  TimeNs usual = MedianTime(steady), excess = 0;
  for (int k = 0; k < s.warmup && k < static_cast<int>(anchors.size()); ++k)
    if (anchors[k] >= 0) excess += std::max<TimeNs>(0, t.ops[anchors[k]].submit - s.steps[k].begin - usual);
  return excess;
}

// The verdict's warm-up steps entry (end() when the loop has none slower than its steady steps).
std::vector<StartupCost>::iterator WarmUpSteps(Verdict& v) {
  return std::find_if(v.startup.begin(), v.startup.end(), [](const StartupCost& c) { return c.kind == StartupCost::kWarmupSteps; });
}

// How much of the warm-up steps' slowness a warm-up step before the loop takes out: those steps
// replayed as recorded against replayed with WarmUpEdit made.
void SimulateWarmUp(const Trace& measured, const StepSplit& steps, Verdict& v, const DeviceProfile& profile,
                    const std::vector<int>& anchors, const CallPlaces& places, const LeadIn& as_recorded) {
  auto warmup = WarmUpSteps(v);
  if (warmup == v.startup.end() || as_recorded.steps != warmup->count) return;
  std::optional<WhatIfEdit> edit = WarmUpEdit(measured, steps, places);
  if (!edit) return;
  try {
    Replay edited = LeanReplay(measured, profile);
    ApplyEdit(measured, anchors, *edit, edited);
    LeadIn after = ReplayedLeadIn(steps, anchors, edited, SimulateRecorded(edited.profile, edited.scenario, false));
    warmup->simulated_save = std::max<TimeNs>(0, as_recorded.first_steps - after.first_steps) + WorkBeforeFirstCalls(measured, steps, anchors);
  } catch (const std::exception&) {
    return;  // nothing before the loop to hold the warm-up, or a replay the simulator cannot finish
  }
}

// Where the trace cannot tell which of two cases a fix meets, the other one's replayed step (0
// when it has one case; `which` says which): a new graph at the faster node gap, or a pinned
// batch whose hand-over a DataLoader's pin-memory thread takes too. `edited` has the edit made.
// Only these two edits have a second case: a caller checks HasOtherCase before copying a replay.
bool HasOtherCase(const WhatIfEdit& edit) { return edit.kind == EditKind::kGraphSteps || edit.kind == EditKind::kPinCopy; }
TimeNs OtherCaseStep(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const WhatIfEdit& edit,
                     Replay edited, VerdictFix::OtherCase& which) {
  which = VerdictFix::kNoOtherCase;
  if (edit.kind == EditKind::kGraphSteps && edited.profile.replay_graph_node_gap_fast > 0) {
    edited.profile.graph_node_gap = edited.profile.replay_graph_node_gap_fast;
    which = VerdictFix::kFasterGraphGap;
  } else if (std::optional<WhatIfEdit> hand_over = LoaderHandOverEdit(measured, steps, anchors, edit)) {
    ApplyEdit(measured, anchors, *hand_over, edited);
    which = VerdictFix::kLoaderHandOver;
  } else {
    return 0;
  }
  return ReplayedStep(measured, steps, anchors, edited, SimulateRecorded(edited.profile, edited.scenario, false));
}

// A fix's calls (and example op) as the window numbers them; those outside it are left out.
VerdictFix InWindow(const VerdictFix& fix, const StepWindow& w) {
  VerdictFix out = fix;
  out.op = w.Map(fix.op);
  out.calls.clear();
  for (int c : fix.calls)
    if (int m = w.Map(c); m >= 0) out.calls.push_back(m);
  return out;
}

// The warm-up's saving, replayed on the loop's first steps.
void SimulateWarmUpWindow(const Trace& recorded, Verdict& v) {
  StepWindow window = FirstStepsWindow(recorded, v.steps);
  const Trace& measured = window.trace;
  DeviceProfile profile = ProfileForRecording(measured);
  std::vector<int> anchors = StepAnchors(measured, window.steps);
  CallPlaces places(measured, anchors);
  Replay replay = LeanReplay(measured, profile);
  Trace as_recorded = SimulateRecorded(replay.profile, replay.scenario, false);
  SimulateWarmUp(measured, window.steps, v, profile, anchors, places, ReplayedLeadIn(window.steps, anchors, replay, as_recorded));
}

void SimulateEach(const Trace& recorded, Verdict& v, size_t count) {
  if (WarmUpSteps(v) != v.startup.end()) {
    try {
      SimulateWarmUpWindow(recorded, v);
    } catch (const std::exception&) {
      // a replay the simulator cannot finish: the warm-up keeps its measured figure alone
    }
  }
  if (v.fixes.empty()) return;
  // A long loop's steady steps are alike: a few from its middle say what a fix saves a step.
  StepWindow window = MiddleStepsWindow(recorded, v.steps);
  const Trace& measured = window.trace;
  const StepSplit& steps = window.steps;
  DeviceProfile profile = ProfileForRecording(measured);
  std::vector<int> anchors = StepAnchors(measured, steps);
  CallPlaces places(measured, anchors);
  TimeNs before = 0;
  {
    Replay replay = LeanReplay(measured, profile);
    before = ReplayedStep(measured, steps, anchors, replay, SimulateRecorded(replay.profile, replay.scenario, false));
  }
  if (before <= 0) return;
  for (size_t i = 0; i < v.fixes.size() && i < count; ++i) {
    std::optional<WhatIfEdit> edit = EditForFix(measured, places, InWindow(v.fixes[i], window));
    if (!edit) continue;
    TimeNs after = 0;
    Replay edited;
    try {
      edited = LeanReplay(measured, profile);
      ApplyEdit(measured, anchors, *edit, edited);
      after = ReplayedStep(measured, steps, anchors, edited, SimulateRecorded(edited.profile, edited.scenario, false));
    } catch (const std::exception&) {
      continue;  // this edit cannot be replayed (the simulator says why in `whatif`): no figure for it
    }
    VerdictFix& fix = v.fixes[i];
    fix.simulated_save = std::max<TimeNs>(0, before - after);
    fix.simulated_step = before;
    fix.simulated_edit = ToString(edit->kind);
    if (!HasOtherCase(*edit)) continue;
    try {
      VerdictFix::OtherCase which = VerdictFix::kNoOtherCase;
      TimeNs other = OtherCaseStep(measured, steps, anchors, *edit, std::move(edited), which);
      if (which != VerdictFix::kNoOtherCase) fix.simulated_other_case = which, fix.simulated_other_save = std::max<TimeNs>(0, before - other);
    } catch (const std::exception&) {
      continue;  // the main figure stands alone
    }
  }
}

}  // namespace

WhatIfRun RunWhatIf(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const std::vector<WhatIfEdit>& edits) {
  WhatIfRun run;
  {
    Trace as_recorded = SimulateRecorded(replay.profile, replay.scenario, false);
    run.before = ReplayedStep(measured, steps, anchors, replay, as_recorded);
    if (steps.found()) run.lead_before = ReplayedLeadIn(steps, anchors, replay, as_recorded);
    run.steps_before = ReplayedSteps(measured, steps, anchors, replay, as_recorded);
  }
  Replay edited = replay;
  for (const WhatIfEdit& edit : edits) ApplyEdit(measured, anchors, edit, edited);
  run.predicted = SimulateRecorded(edited.profile, edited.scenario);
  run.after = ReplayedStep(measured, steps, anchors, edited, run.predicted);
  if (steps.found()) run.lead_after = ReplayedLeadIn(steps, anchors, edited, run.predicted);
  run.steps_after = ReplayedSteps(measured, steps, anchors, edited, run.predicted);
  MarkReplayedSteps(anchors, edited, run.predicted);
  for (const WhatIfEdit& edit : edits) {
    if (!HasOtherCase(edit)) continue;
    VerdictFix::OtherCase which = VerdictFix::kNoOtherCase;
    TimeNs other = OtherCaseStep(measured, steps, anchors, edit, edited, which);
    TimeNs& slot = which == VerdictFix::kFasterGraphGap ? run.after_fast_graph : run.after_loader;
    if (which != VerdictFix::kNoOtherCase && slot == 0) slot = other;
  }
  return run;
}

bool SimulateFixes(const Trace& measured, Verdict& v, size_t count) {
  try {
    SimulateEach(measured, v, count);
    return true;
  } catch (const std::exception&) {
    return false;  // too long to replay, or a replay the simulator cannot finish: no figures
  }
}

}  // namespace streamlab
