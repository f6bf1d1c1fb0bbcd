// Shared by the what-if tests: simulated runs relabelled as recordings, and their calls by kind.
#pragma once

#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

// A simulated run labelled as a recording of it: its kernels foreign, with their measured times.
inline Trace AsRecording(Trace t) {
  t.scenario.recorded = true;
  t.backend = "record";
  for (size_t i = 0; i < t.ops.size(); ++i) {
    KernelSpec& k = t.scenario.ops[i].kernel;
    if (t.scenario.ops[i].kind != OpKind::kKernel) continue;
    k.kind = KernelKind::kForeign;
    k.function = "spin";
    k.work = t.ops[i].end - t.ops[i].start;
  }
  for (OpRecord& rec : t.ops) rec.loaded_module = rec.note == "lazy module load";  // as the recorder marks them
  return t;
}

// The recorded calls of a kind (and name, when given).
inline std::vector<int> Calls(const Trace& t, OpKind kind, const std::string& name = "") {
  std::vector<int> out;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.scenario.ops[i].kind == kind && (name.empty() || t.scenario.ops[i].name == name)) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace streamlab
