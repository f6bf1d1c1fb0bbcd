// The chart's per-trace index (gantt_view.h's GanttIndex): each lane's spans in time order,
// the event edges, the host's ranges laid out in rows, and the start delays worth a label.
// Built once per trace (and the delays once per analysis), so a frame only looks things up.
#include <algorithm>
#include <memory>

#include "app/gui/gantt_view.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/program_sites.h"
#include "engine/scenario/dependencies.h"
#include "engine/trace/trace_query.h"

namespace streamlab {

// The start delays worth drawing (not prompt starts) of `analysis`, by start time.
void IndexDelays(GanttIndex& x, const Trace& t, const Analysis& analysis) {
  if (x.analysis == &analysis && x.findings == analysis.findings.size()) return;
  x.analysis = &analysis;
  x.findings = analysis.findings.size();
  x.delays.clear();
  x.delay_starts.clear();
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.kind == FindingKind::kStartDelay && f.cause != Cause::kPrompt) x.delays.push_back(static_cast<int>(i));
  }
  auto start = [&](int i) { return t.ops[analysis.findings[i].op].start; };
  std::stable_sort(x.delays.begin(), x.delays.end(), [&](int a, int b) { return start(a) < start(b); });
  for (int i : x.delays) x.delay_starts.push_back(start(i));
}

// Builds (once per trace) the per-lane op lists the chart walks every frame.
const GanttIndex& GanttIndexOf(GanttViewState& view, const Trace& t) {
  GanttIndex& x = view.index;
  if (x.trace == &t && x.ops == t.ops.size()) return x;
  x = GanttIndex{};
  x.trace = &t;
  x.ops = t.ops.size();
  const Scenario& s = t.scenario;
  x.lanes = LanesOf(s);
  const std::vector<Lane>& lanes = x.lanes;
  x.lane_ops.resize(lanes.size());
  std::vector<int> lane_of_stream(s.streams.size(), 0);
  for (size_t l = 0; l < lanes.size(); ++l)
    if (lanes[l].kind == LaneKind::kStream) lane_of_stream[lanes[l].stream] = static_cast<int>(l);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (s.ops[i].graph < 0) x.lane_ops[HostLaneOf(s.ops[i])].push_back(static_cast<int>(i));
    if (t.ops[i].gpu && s.ops[i].stream >= 0) x.lane_ops[lane_of_stream[s.ops[i].stream]].push_back(static_cast<int>(i));
  }
  x.begin = TraceBegin(t);
  x.end = std::max(TraceEnd(t), x.begin + 1);
  if (!t.ranges.empty()) {
    x.ranges = std::make_shared<const RangeIndex>(t);
    x.calls = std::make_shared<const ThreadCalls>(t);
  }
  x.range_rows = LayOutRanges(t, lanes);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    OpKind k = s.ops[i].kind;
    if (k == OpKind::kSyncDevice || k == OpKind::kSyncStream || k == OpKind::kSyncEvent) x.syncs.push_back(static_cast<int>(i));
  }
  StreamDependencies deps = ComputeDependencies(s);
  for (size_t i = 0; i < s.ops.size(); ++i)
    for (const DepEdge& e : deps.into[i])
      if (e.kind == EdgeKind::kEvent || e.kind == EdgeKind::kWaitStream) x.record_to_wait.push_back({e.from, e.to});
  x.lane_starts.resize(lanes.size());
  x.lane_ends.resize(lanes.size());
  x.gap_from.assign(t.ops.size(), 0);
  for (size_t l = 0; l < lanes.size(); ++l) {
    std::vector<int>& ops = x.lane_ops[l];
    bool host = lanes[l].kind == LaneKind::kHost;
    auto start = [&](int op) { return host ? t.ops[op].submit : t.ops[op].start; };
    auto end = [&](int op) { return host ? t.ops[op].ret : t.ops[op].end; };
    std::stable_sort(ops.begin(), ops.end(), [&](int a, int b) { return start(a) < start(b); });
    TimeNs running_end = 0;
    TimeNs work_end = -1;
    for (int op : ops) {
      x.lane_starts[l].push_back(start(op));
      // Keep ends ascending even where markers or clock error make spans touch.
      running_end = std::max(running_end, end(op));
      x.lane_ends[l].push_back(running_end);
      if (!host) {
        x.gap_from[op] = std::max(t.ops[op].submit, work_end);
        if (IsGpuWork(s.ops[op])) work_end = std::max(work_end, t.ops[op].end);
      }
    }
  }
  return x;
}

std::pair<TimeNs, TimeNs> GanttExtent(GanttViewState& view, const Trace& trace) {
  const GanttIndex& index = GanttIndexOf(view, trace);
  return {index.begin, index.end};
}

}  // namespace streamlab
