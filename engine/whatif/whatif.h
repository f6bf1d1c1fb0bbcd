// What a fix would save: the recording replayed as it ran and replayed with the fix made, both on
// the simulator, their steady steps' medians compared. The saving is the difference of two
// replays, so what the replay misses of the program (replay_steps.h says how much) is in both.
#pragma once

#include <vector>

#include "engine/verdict/verdict.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/whatif_edits.h"

namespace streamlab {

struct WhatIfRun {
  TimeNs before = 0;  // the replayed step as recorded (steady median; the GPU span without steps)
  TimeNs after = 0;   // the same with the edits made
  Trace predicted;    // the edited replay's run
  LeadIn lead_before, lead_after;
  std::vector<TimeNs> steps_before, steps_after;  // each step's time (ReplayedSteps)
  // A graph an edit captures runs its nodes at a gap the trace cannot tell (DeviceProfile's
  // replay_graph_node_gap_fast): `after` at the profile's faster gap; 0 where there is one figure.
  TimeNs after_fast_graph = 0;
  // A pinned copy that begins the steps after host work outside them: `after` with that work on a
  // DataLoader's pin-memory thread too (LoaderHandOverEdit); 0 where there is one figure.
  TimeNs after_loader = 0;
};

// `anchors`: StepAnchors(measured, steps).
WhatIfRun RunWhatIf(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const std::vector<WhatIfEdit>& edits);

// Fills the first `count` fixes' simulated_save / simulated_step where an edit stands for them.
// Returns false (and leaves them unsimulated) when the program cannot be replayed.
bool SimulateFixes(const Trace& measured, Verdict& verdict, size_t count);

}  // namespace streamlab
