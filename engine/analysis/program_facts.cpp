// Facts about a program (program_facts.h).
#include "engine/analysis/program_facts.h"

#include <algorithm>

#include "engine/analysis/program_sites.h"
#include "engine/trace/trace_query.h"

namespace streamlab {

// The cheap signs first (asked once per finding rendered): the source, the recorded command.
bool IsPythonProgram(const Trace& t) {
  if (t.backend == "kineto") return true;
  for (const TraceNote& n : t.notes)
    if (n.key.rfind("program.", 0) == 0 && n.vars.count("command") && n.vars.at("command").find("python") != std::string::npos)
      return true;
  return std::any_of(t.ranges.begin(), t.ranges.end(), [](const HostRange& r) { return IsPythonRange(r.name); });
}

int ContextCreationCall(const Trace& t, bool* inferred, int process) {
  int first_long = -1;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const int thread = t.scenario.ops[i].thread;
    if (process >= 0 && (thread < 0 || ProcessOfThread(t.scenario, thread) != process)) continue;
    if (t.ops[i].gpu) break;  // after the process's first GPU work: a context was there
    if (t.ops[i].created_context) {
      if (inferred) *inferred = false;
      return static_cast<int>(i);
    }
    if (first_long < 0 && t.scenario.ops[i].kind != OpKind::kHostWork && HostCallTime(t.ops[i]) >= Ms(10))
      first_long = static_cast<int>(i);
  }
  if (inferred) *inferred = true;
  return first_long;
}

TimeNs StartupEnd(const Trace& t, int process) {
  int call = ContextCreationCall(t, nullptr, process);
  return call >= 0 ? t.ops[call].ret : -1;
}

}  // namespace streamlab
