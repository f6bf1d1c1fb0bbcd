// Helpers shared by the tests: run a scenario on the simulator, find ops by name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/scenario/scenario.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace.h"
#include "engine/trace/trace_query.h"
#include "engine/util/errors.h"

namespace streamlab::testing {

inline Trace Simulate(const Scenario& s, DeviceProfile profile = {}) {
  return SimExecutor(std::move(profile)).Run(s, RunOptions{});
}

inline std::string SourcePath(const std::string& relative) {
  return std::string(STREAMLAB_SOURCE_DIR) + "/" + relative;
}

// The GPU ops named `name` (that ran on the GPU), in submission order.
inline std::vector<int> GpuOpsNamed(const Trace& t, const std::string& name) {
  std::vector<int> out;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].name == name && t.ops[i].gpu) out.push_back(static_cast<int>(i));
  return out;
}

// The message of the InputError that `fn` throws, or "no error".
inline std::string InputErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// The findings of one kind, in the analyzer's order.
inline std::vector<const Finding*> FindingsOfKind(const Analysis& a, FindingKind kind) {
  std::vector<const Finding*> out;
  for (const Finding& f : a.findings)
    if (f.kind == kind) out.push_back(&f);
  return out;
}

// The trace's findings of one kind, copied (they outlive the analysis, which FindingsOfKind's
// pointers must not).
inline std::vector<Finding> AnalyzedFindingsOfKind(const Trace& t, FindingKind kind) {
  Analysis a = Analyze(t);
  std::vector<Finding> out;
  for (const Finding* f : FindingsOfKind(a, kind)) out.push_back(*f);
  return out;
}
// The possible data races a recorded trace's analysis found (by address).
inline std::vector<Finding> Races(const Trace& t) { return AnalyzedFindingsOfKind(t, FindingKind::kAddressRace); }

// The ops replayed from CUDA graphs, in trace order.
inline std::vector<int> ReplayedOps(const Trace& t) {
  std::vector<int> out;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].graph_replay) out.push_back(static_cast<int>(i));
  return out;
}

inline bool HasNote(const Trace& t, const std::string& key) {
  for (const TraceNote& n : t.notes)
    if (n.key == key) return true;
  return false;
}

}  // namespace streamlab::testing
