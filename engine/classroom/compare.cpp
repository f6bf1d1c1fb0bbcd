// See compare.h.
#include "engine/classroom/compare.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>

namespace streamlab {

TimeNs FirstGpuStart(const Trace& t) {
  TimeNs first = std::numeric_limits<TimeNs>::max();
  for (const OpRecord& r : t.ops)
    if (r.gpu) first = std::min(first, r.start);
  return first == std::numeric_limits<TimeNs>::max() ? TraceBegin(t) : first;
}

const Finding* StartFinding(const Analysis& analysis, int op) {
  for (const Finding& f : analysis.findings)
    if (f.kind == FindingKind::kStartDelay && f.op == op) return &f;
  return nullptr;
}

Comparison CompareRuns(const Trace& a, const Analysis& aa, const Trace& b, const Analysis& ab, size_t max_moved) {
  Comparison c;
  c.a = aa.figures;
  c.b = ab.figures;
  std::map<std::string, int> in_b;
  for (size_t i = 0; i < b.ops.size(); ++i)
    if (b.ops[i].gpu && IsStreamOp(b.scenario.ops[i])) in_b.emplace(DisplayName(b.scenario, static_cast<int>(i)), static_cast<int>(i));
  TimeNs origin_a = FirstGpuStart(a), origin_b = FirstGpuStart(b);
  for (size_t i = 0; i < a.ops.size(); ++i) {
    if (!a.ops[i].gpu || a.ops[i].end == a.ops[i].start) continue;  // work only, not markers
    std::string name = DisplayName(a.scenario, static_cast<int>(i));
    auto it = in_b.find(name);
    if (it == in_b.end()) continue;
    MovedOp m;
    m.name = name;
    m.op_a = static_cast<int>(i);
    m.op_b = it->second;
    m.start_a = a.ops[i].start - origin_a;
    m.start_b = b.ops[it->second].start - origin_b;
    c.moved.push_back(m);
  }
  std::stable_sort(c.moved.begin(), c.moved.end(),
                   [](const MovedOp& x, const MovedOp& y) { return std::llabs(x.shift()) > std::llabs(y.shift()); });
  if (c.moved.size() > max_moved) c.moved.resize(max_moved);
  return c;
}

}  // namespace streamlab
