// Shared state of one analysis and the passes that fill the findings (internal to the
// analyzer: start delays, host blocks, misconception detectors, GPU idle time). The context
// also holds indexes built once per run, so that explaining one op never scans all others:
// a trace of 100 000 ops is explained in well under a second.
#pragma once

#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/happens_before.h"

namespace streamlab {

// A device's GPU work ordered by start, with the running maximum of the ends: the ops that
// ran during [from, to) are found by a binary search and a short walk back.
struct SpanIndex {
  std::vector<int> by_start;
  std::vector<TimeNs> max_end;  // max end of by_start[0..i]
};

struct AnalysisContext {
  explicit AnalysisContext(const Trace& trace);

  const Trace& t;
  const Scenario& s;
  HappensBefore hb;
  TimeNs slack;
  std::vector<int> queue_of_stream;  // hardware queue (connection) each stream maps to
  std::vector<char> lazy_first;      // op loads its kernel's module (see IsLazyFirstLaunch)
  bool module_loads = false;         // some op loads a module (lazy loading, no warm-up, or recorded loads)
  std::vector<int> lazy_first_before;  // latest lazy first launch on op's device before op
  std::vector<int> blocking_before;  // latest call of op's host thread before it that blocked > slack
  std::vector<SpanIndex> spans;      // per device

  const OpRecord& rec(int op) const { return t.ops[op]; }
  const Op& op(int index) const { return s.ops[index]; }
  int device_of(int op_index) const { return s.streams[s.ops[op_index].stream].device; }

  // GPU work on `device` (with a GPU span) that ran during [from, to), any order.
  template <typename F>
  void ForEachRunning(int device, TimeNs from, TimeNs to, F&& visit) const {
    const SpanIndex& index = spans[device];
    size_t n = 0, hi = index.by_start.size();
    while (n < hi) {  // first position whose op starts at or after `to`
      size_t mid = (n + hi) / 2;
      if (rec(index.by_start[mid]).start < to) n = mid + 1;
      else hi = mid;
    }
    for (size_t i = n; i-- > 0 && index.max_end[i] > from;)
      if (rec(index.by_start[i]).end > from) visit(index.by_start[i]);
  }
};

// Under lazy loading with no warm-up: is op the first launch of its kernel function on its
// device (the launch that loads the module)?
inline bool IsLazyFirstLaunch(const AnalysisContext& ctx, int op) { return ctx.lazy_first[op] != 0; }

bool IsCopy(const Op& op);

// The analysis over a context built already (the explain pipeline shares one with the account).
Analysis Analyze(const AnalysisContext& ctx);

// Why GPU op `op` started when it did; with `finding`, also the start-delay finding about it.
StartReason ExplainStart(const AnalysisContext& ctx, int op, Finding* finding = nullptr);
void ExplainStartDelays(const AnalysisContext& ctx, std::vector<Finding>& out);
void ExplainHostBlocks(const AnalysisContext& ctx, std::vector<Finding>& out);
void DetectMisconceptions(const AnalysisContext& ctx, std::vector<Finding>& out);
void DetectPyTorchPatterns(const AnalysisContext& ctx, std::vector<Finding>& out);
// Parts of NCCL collectives that waited inside them for a later rank (analyzer_collectives.cpp).
void ExplainCollectiveWaits(const AnalysisContext& ctx, std::vector<Finding>& out);
Figures ComputeFigures(const AnalysisContext& ctx, const std::vector<Finding>& findings);
// Fills fig's idle figures and adds one kGpuIdle finding per cause (after the start delays).
void ExplainIdleTime(const AnalysisContext& ctx, std::vector<Finding>& findings, Figures& fig);

}  // namespace streamlab
