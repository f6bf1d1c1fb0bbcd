// What-if runs (whatif.h).
#include "engine/whatif/whatif.h"

#include <exception>

#include "engine/sim/sim_executor.h"
#include "engine/whatif/replay_steps.h"

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

void SimulateEach(const Trace& measured, Verdict& v, size_t count) {
  if (v.fixes.empty()) return;  // nothing to simulate: no replay
  DeviceProfile profile = ProfileForRecording(measured);
  std::vector<int> anchors = StepAnchors(measured, v.steps);
  CallPlaces places(measured, anchors);
  TimeNs before = 0;
  {
    Replay replay = LeanReplay(measured, profile);
    before = ReplayedStep(measured, v.steps, anchors, replay, SimulateRecorded(replay.profile, replay.scenario, false));
  }
  if (before <= 0) return;
  for (size_t i = 0; i < v.fixes.size() && i < count; ++i) {
    std::optional<WhatIfEdit> edit = EditForFix(measured, places, v.fixes[i]);
    if (!edit) continue;
    TimeNs after = 0;
    try {
      Replay edited = LeanReplay(measured, profile);
      ApplyEdit(measured, anchors, *edit, edited);
      after = ReplayedStep(measured, v.steps, anchors, edited, SimulateRecorded(edited.profile, edited.scenario, false));
    } catch (const std::exception&) {
      continue;  // this edit cannot be replayed (the simulator says why in `whatif`): no figure for it
    }
    v.fixes[i].simulated_save = std::max<TimeNs>(0, before - after);
    v.fixes[i].simulated_step = before;
    v.fixes[i].simulated_edit = ToString(edit->kind);
  }
}

}  // namespace

WhatIfRun RunWhatIf(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const std::vector<WhatIfEdit>& edits) {
  WhatIfRun run;
  run.before = ReplayedStep(measured, steps, anchors, replay, SimulateRecorded(replay.profile, replay.scenario, false));
  Replay edited = replay;
  for (const WhatIfEdit& edit : edits) ApplyEdit(measured, anchors, edit, edited);
  run.predicted = SimulateRecorded(edited.profile, edited.scenario);
  run.after = ReplayedStep(measured, steps, anchors, edited, run.predicted);
  MarkReplayedSteps(anchors, edited, run.predicted);
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
