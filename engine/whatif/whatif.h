// What a fix would save: the recording replayed as it ran and replayed with the fix made, both on
// the simulator, their steady steps' medians compared. The saving is the difference of two
// replays, so what the replay misses of the program (replay_steps.h says how much) is in both.
#pragma once

#include <vector>

#include "engine/analysis/verdict.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/whatif_edits.h"

namespace streamlab {

struct WhatIfRun {
  TimeNs before = 0;  // the replayed step as recorded (steady median; the GPU span without steps)
  TimeNs after = 0;   // the same with the edits made
  Trace predicted;    // the edited replay's run
  LeadIn lead_before, lead_after;
  std::vector<TimeNs> steps_before, steps_after;  // each step's time (ReplayedSteps)  // the warm-up steps, replayed as recorded and edited (by steps only)
};

// `anchors`: StepAnchors(measured, steps).
WhatIfRun RunWhatIf(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const std::vector<WhatIfEdit>& edits);

// Fills the first `count` fixes' simulated_save / simulated_step where an edit stands for them.
// Returns false (and leaves them unsimulated) when the program cannot be replayed.
bool SimulateFixes(const Trace& measured, Verdict& verdict, size_t count);

}  // namespace streamlab
