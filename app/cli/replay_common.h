// What `replay`, `whatif` and `explain` share to replay a recorded program: the trace read once,
// its steps, and the replay built on the recorded GPU's profile (or the one asked for).
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/program_steps.h"
#include "engine/trace/trace.h"
#include "engine/whatif/replay_scenario.h"

namespace streamlab {

struct ReplaySession {
  Trace trace;
  StepSplit steps;
  std::vector<int> anchors;  // per step: the call it is timed from
  Replay replay;
  std::string window_note;  // a long recording: which of its steps are replayed ("": all of it)
};

// Throws InputError for a file that is not a program's trace, or a profile that does not exist.
ReplaySession OpenReplaySession(const std::string& path, const std::string& profile);
// Writes `trace` as a StreamLab trace file; throws RunError when it cannot.
void WriteTraceFile(const Trace& trace, const std::string& path);

}  // namespace streamlab
