// Shared state of one analysis and the three passes that fill the findings (internal to
// the analyzer: start delays, host blocks, misconception detectors).
#pragma once

#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/happens_before.h"

namespace streamlab {

struct AnalysisContext {
  explicit AnalysisContext(const Trace& trace);

  const Trace& t;
  const Scenario& s;
  HappensBefore hb;
  TimeNs slack;
  std::vector<int> queue_of_stream;  // hardware queue (connection) each stream maps to

  const OpRecord& rec(int op) const { return t.ops[op]; }
  const Op& op(int index) const { return s.ops[index]; }
  int device_of(int op_index) const { return s.streams[s.ops[op_index].stream].device; }
};

// Under lazy loading with no warm-up: is op the first launch of its kernel function on its
// device (the launch that loads the module)?
bool IsLazyFirstLaunch(const AnalysisContext& ctx, int op);

// Kernels, copies and memsets: GPU ops with a duration (not records or waits).
bool IsGpuWork(const Op& op);
bool IsCopy(const Op& op);

void ExplainStartDelays(const AnalysisContext& ctx, std::vector<Finding>& out);
void ExplainHostBlocks(const AnalysisContext& ctx, std::vector<Finding>& out);
void DetectMisconceptions(const AnalysisContext& ctx, std::vector<Finding>& out);
Figures ComputeFigures(const AnalysisContext& ctx, const std::vector<Finding>& findings);

}  // namespace streamlab
