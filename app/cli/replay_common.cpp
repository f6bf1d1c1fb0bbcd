// The replay session (replay_common.h).
#include "app/cli/replay_common.h"

#include <fstream>
#include <iostream>
#include <optional>

#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "engine/analysis/analyzer.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/replay_window.h"

namespace streamlab {

ReplaySession OpenReplaySession(const std::string& path, const std::string& profile) {
  ReplaySession s;
  std::optional<Trace> trace = ReadTraceIfOne(path);
  s.trace = trace ? std::move(*trace) : LoadTraceFile(path);
  s.steps = FindSteps(s.trace, 0);  // the first process's steps, as the account finds them
  // A recording too long to simulate whole in a few seconds: its first steps (the warm-up and 32
  // steady steps) stand for the loop, as explain's predictions do (replay_window.h).
  if (s.trace.ops.size() > Analysis::kMaxExplainedOps && s.steps.found()) {
    size_t ops = s.trace.ops.size();
    StepWindow window = FirstStepsWindow(s.trace, s.steps, 32);
    if (!window.whole) {
      s.window_note = "replaying the first " + std::to_string(window.steps.steps.size()) + " of the recording's " +
                      std::to_string(s.steps.steps.size()) + " steps (" + std::to_string(window.trace.ops.size()) + " of " +
                      std::to_string(ops) + " ops): the steady steps are alike";
      s.trace = std::move(window.trace);
      s.steps = std::move(window.steps);
    }
  }
  DeviceProfile base = profile.empty() ? ProfileForRecording(s.trace) : ResolveProfile(profile);
  s.replay = BuildReplay(s.trace, base);
  s.anchors = StepAnchors(s.trace, s.steps);
  if (!s.window_note.empty()) std::cerr << "streamlab: " << s.window_note << "\n";
  return s;
}

void WriteTraceFile(const Trace& trace, const std::string& path) {
  std::ofstream out(path);
  out << DumpJson(TraceToJson(trace)) << "\n";
  if (!out) throw RunError("cannot write " + path);
}

}  // namespace streamlab
