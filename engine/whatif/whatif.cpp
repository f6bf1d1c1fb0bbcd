// What-if runs (whatif.h).
#include "engine/whatif/whatif.h"

#include <exception>

#include "engine/sim/sim_executor.h"
#include "engine/whatif/replay_steps.h"

namespace streamlab {
namespace {

void SimulateEach(const Trace& measured, Verdict& v, size_t count) {
  Replay replay = BuildReplay(measured, ProfileForRecording(measured));
  std::vector<int> anchors = StepAnchors(measured, v.steps);
  CallPlaces places(measured, anchors);
  TimeNs before = ReplayedStep(measured, v.steps, anchors, replay, SimulateRecorded(replay.profile, replay.scenario));
  if (before <= 0) return;
  for (size_t i = 0; i < v.fixes.size() && i < count; ++i) {
    std::optional<WhatIfEdit> edit = EditForFix(measured, places, v.fixes[i]);
    if (!edit) continue;
    Replay edited = replay;
    ApplyEdit(measured, anchors, *edit, edited);
    TimeNs after = ReplayedStep(measured, v.steps, anchors, edited, SimulateRecorded(edited.profile, edited.scenario));
    v.fixes[i].simulated_save = std::max<TimeNs>(0, before - after);
    v.fixes[i].simulated_step = before;
  }
}

}  // namespace

WhatIfRun RunWhatIf(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const std::vector<WhatIfEdit>& edits) {
  WhatIfRun run;
  run.before = ReplayedStep(measured, steps, anchors, replay, SimulateRecorded(replay.profile, replay.scenario));
  Replay edited = replay;
  for (const WhatIfEdit& edit : edits) ApplyEdit(measured, anchors, edit, edited);
  run.predicted = SimulateRecorded(edited.profile, edited.scenario);
  run.after = ReplayedStep(measured, steps, anchors, edited, run.predicted);
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
