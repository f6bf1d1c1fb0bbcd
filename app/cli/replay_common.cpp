// The replay session (replay_common.h).
#include "app/cli/replay_common.h"

#include <fstream>
#include <optional>

#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "engine/whatif/replay_steps.h"

namespace streamlab {

ReplaySession OpenReplaySession(const std::string& path, const std::string& profile) {
  ReplaySession s;
  std::optional<Trace> trace = ReadTraceIfOne(path);
  s.trace = trace ? std::move(*trace) : LoadTraceFile(path);
  DeviceProfile base = profile.empty() ? ProfileForRecording(s.trace) : ResolveProfile(profile);
  s.replay = BuildReplay(s.trace, base);
  s.steps = FindSteps(s.trace);
  s.anchors = StepAnchors(s.trace, s.steps);
  return s;
}

void WriteTraceFile(const Trace& trace, const std::string& path) {
  std::ofstream out(path);
  out << DumpJson(TraceToJson(trace)) << "\n";
  if (!out) throw RunError("cannot write " + path);
}

}  // namespace streamlab
