// See prediction.h.
#include "engine/classroom/prediction.h"

#include <algorithm>

#include "engine/trace/trace_query.h"

namespace streamlab {

std::vector<int> PredictableOps(const Scenario& s) {
  std::vector<int> out;
  for (size_t i = 0; i < s.ops.size() && out.size() < 12; ++i) {
    OpKind k = s.ops[i].kind;
    if (k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset || k == OpKind::kPeerCopy ||
        k == OpKind::kCollective)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

PredictionCheck CheckPredictedOrder(const Trace& t, const std::vector<int>& predicted) {
  PredictionCheck c;
  TimeNs tolerance = std::max<TimeNs>(Us(2) + t.clock_error, GpuMakespan(t) / 50);
  c.actual_order = predicted;
  std::stable_sort(c.actual_order.begin(), c.actual_order.end(),
                   [&](int x, int y) { return t.ops[x].start < t.ops[y].start; });
  for (size_t i = 0; i < predicted.size(); ++i) {
    for (size_t j = i + 1; j < predicted.size(); ++j) {
      ++c.pairs;
      // Predicted i before j: wrong only if j clearly started before i.
      bool right = t.ops[predicted[j]].start >= t.ops[predicted[i]].start - tolerance;
      c.pairs_right += right;
      if (!right && c.first_wrong < 0) c.first_wrong = predicted[j];
    }
  }
  c.held = c.pairs == c.pairs_right;
  return c;
}

}  // namespace streamlab
