// The chart's per-trace index (gantt_view.h's GanttIndex): each lane's spans in time order with
// their running busy time, the lanes grouped by process, the event edges, the host's ranges laid
// out in rows, and the start delays worth a label.
// Built once per trace (and the delays once per analysis), so a frame only looks things up.
#include <algorithm>
#include <memory>

#include "app/gui/chart/gantt_view.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/program_sites.h"
#include "engine/scenario/dependencies.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// A host lane with fewer calls than this share of its process's, or than a handful, is folded (a
// recording's helper threads: 5 of a rank's threads made a handful of calls each).
constexpr size_t kQuietShare = 50;  // 1/50 = 2 %
constexpr size_t kQuietCalls = 8;

// The lanes by process, in drawing order: each process's busy host lanes, its quiet ones apart,
// then its streams (LanesOf lists them by device).
void GroupLanes(GanttIndex& x, const Scenario& s) {
  const size_t processes = std::max<size_t>(1, s.processes.size());
  x.groups.assign(processes, LaneGroup{});
  x.lane_group.assign(x.lanes.size(), 0);
  auto process_of = [&](const Lane& lane) {
    if (s.processes.empty()) return 0;
    int p = lane.kind == LaneKind::kHost ? ProcessOfThread(s, lane.thread) : s.streams[static_cast<size_t>(lane.stream)].process;
    return std::clamp(p, 0, static_cast<int>(processes) - 1);
  };
  std::vector<size_t> calls(processes, 0), host_lanes(processes, 0);
  for (size_t l = 0; l < x.lanes.size(); ++l)
    if (x.lanes[l].kind == LaneKind::kHost) {
      calls[static_cast<size_t>(process_of(x.lanes[l]))] += x.lane_ops[l].size();
      ++host_lanes[static_cast<size_t>(process_of(x.lanes[l]))];
    }
  std::vector<std::vector<bool>> on_device(processes, std::vector<bool>(static_cast<size_t>(std::max(1, s.device_count)), false));
  for (size_t l = 0; l < x.lanes.size(); ++l) {
    const Lane& lane = x.lanes[l];
    auto p = static_cast<size_t>(process_of(lane));
    LaneGroup& g = x.groups[p];
    x.lane_group[l] = static_cast<int>(p);
    // Only a recording folds threads: a lab's every thread is there to be seen.
    bool quiet = s.recorded && lane.kind == LaneKind::kHost && host_lanes[p] > 1 && (x.lane_ops[l].size() * kQuietShare < calls[p] || x.lane_ops[l].size() < kQuietCalls);
    if (quiet) {
      g.quiet.push_back(static_cast<int>(l));
      g.quiet_calls += x.lane_ops[l].size();
    } else {
      g.lanes.push_back(static_cast<int>(l));
    }
    if (lane.kind == LaneKind::kStream && lane.device >= 0 && lane.device < s.device_count) on_device[p][static_cast<size_t>(lane.device)] = true;
  }
  for (size_t p = 0; p < processes; ++p) {
    LaneGroup& g = x.groups[p];
    g.process = s.processes.empty() ? -1 : static_cast<int>(p);
    g.title = s.processes.empty() ? "" : s.processes[p];
    g.devices = static_cast<int>(std::count(on_device[p].begin(), on_device[p].end(), true));
  }
}

// Each lane's running busy time, and a host lane's running count of calls that held the host.
void IndexBusy(GanttIndex& x, const Trace& t) {
  const TimeNs slack = ExplainSlack(t);
  x.lane_busy.assign(x.lanes.size(), {});
  x.lane_blocked.assign(x.lanes.size(), {});
  for (size_t l = 0; l < x.lanes.size(); ++l) {
    bool host = x.lanes[l].kind == LaneKind::kHost;
    std::vector<TimeNs>& busy = x.lane_busy[l];
    busy.reserve(x.lane_ops[l].size() + 1);
    busy.push_back(0);
    if (host) x.lane_blocked[l].push_back(0);
    for (int op : x.lane_ops[l]) {
      const OpRecord& r = t.ops[static_cast<size_t>(op)];
      busy.push_back(busy.back() + std::max<TimeNs>(0, host ? r.ret - r.submit : r.end - r.start));
      if (host) {
        bool blocked = HostCallTime(r) > slack && t.scenario.ops[static_cast<size_t>(op)].kind != OpKind::kHostWork;
        x.lane_blocked[l].push_back(x.lane_blocked[l].back() + (blocked ? 1u : 0u));
      }
    }
  }
}

// What kinds of span the trace holds, for the legend.
void IndexKinds(GanttIndex& x, const Scenario& s) {
  x.kinds_present.assign(static_cast<size_t>(OpKind::kCollective) + 1, false);
  for (const Op& op : s.ops) {
    x.kinds_present[static_cast<size_t>(op.kind)] = true;
    if (op.kind != OpKind::kMemcpy || op.src < 0 || op.dst < 0) continue;
    bool src_host = s.buffers[static_cast<size_t>(op.src)].kind != MemoryKind::kDevice;
    bool dst_host = s.buffers[static_cast<size_t>(op.dst)].kind != MemoryKind::kDevice;
    x.copies_by_direction[src_host && !dst_host ? 0 : !src_host && dst_host ? 1 : 2] = true;
  }
}

}  // namespace

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
  x.stream_lane.assign(s.streams.size(), 0);
  std::vector<int>& lane_of_stream = x.stream_lane;
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
  std::stable_sort(x.syncs.begin(), x.syncs.end(), [&](int a, int b) { return t.ops[static_cast<size_t>(a)].ret < t.ops[static_cast<size_t>(b)].ret; });
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
  GroupLanes(x, s);
  IndexBusy(x, t);
  IndexKinds(x, s);
  return x;
}

void IndexHighlight(GanttViewState& view, const Trace& t) {
  size_t key = view.highlight.size();
  for (int op : view.highlight) key = key * 1000003u ^ static_cast<size_t>(op);
  const GanttIndex& x = view.index;
  if (key == view.highlight_key && view.highlight_at.size() == x.lanes.size()) return;
  view.highlight_key = key;
  view.highlight_at.assign(x.lanes.size(), {});
  // An op's position in a lane: among the spans starting when it does there.
  auto place = [&](int lane, TimeNs at, int op) {
    const std::vector<TimeNs>& starts = x.lane_starts[static_cast<size_t>(lane)];
    for (auto i = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), at) - starts.begin());
         i < starts.size() && starts[i] == at; ++i)
      if (x.lane_ops[static_cast<size_t>(lane)][i] == op) return view.highlight_at[static_cast<size_t>(lane)].push_back(i);
  };
  for (int op : view.highlight) {
    if (op < 0 || static_cast<size_t>(op) >= t.ops.size()) continue;
    const Op& o = t.scenario.ops[static_cast<size_t>(op)];
    const OpRecord& r = t.ops[static_cast<size_t>(op)];
    if (o.graph < 0) place(HostLaneOf(o), r.submit, op);
    if (r.gpu && o.stream >= 0) place(x.stream_lane[static_cast<size_t>(o.stream)], r.start, op);
  }
  for (std::vector<size_t>& at : view.highlight_at) std::sort(at.begin(), at.end());
}

std::pair<TimeNs, TimeNs> GanttExtent(GanttViewState& view, const Trace& trace) {
  const GanttIndex& index = GanttIndexOf(view, trace);
  return {index.begin, index.end};
}

}  // namespace streamlab
