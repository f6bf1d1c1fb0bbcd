// The analyzer's entry point, its figures (overlap, busy time, speed-up, critical path)
// and the names of its enums.
#include "engine/analysis/analyzer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/program_sites.h"
#include "engine/trace/trace_query.h"

namespace streamlab {

namespace {

using Interval = std::pair<TimeNs, TimeNs>;

std::vector<Interval> Union(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (i.second <= i.first) continue;
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

TimeNs Length(const std::vector<Interval>& v) {
  TimeNs total = 0;
  for (const Interval& i : v) total += i.second - i.first;
  return total;
}

TimeNs Intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  TimeNs total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    TimeNs lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

// When the GPU work began: the first submission of an op that ran on a GPU. (Not the first
// host call: a whole recorded program starts with its import and CUDA set-up, hundreds of ms
// in which it submits nothing, and the path would be that start-up every time.)
TimeNs FirstGpuSubmission(const AnalysisContext& ctx) {
  TimeNs first = 0;
  bool any = false;
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const OpRecord& r = ctx.rec(static_cast<int>(i));
    if (!IsGpuWork(ctx.op(static_cast<int>(i))) || !r.gpu) continue;
    TimeNs t = std::min(r.submit, r.start);
    if (!any || t < first) first = t;
    any = true;
  }
  return first;
}

// Walks back from the op that ended last along each op's deciding cause. Where that runs out
// (an op that started as soon as it was submitted, or a host call that waited for no GPU
// work), the host set the pace: the path goes on through the last call of the process that
// waited for the GPU and had returned by then, and the host's time in between is a stretch of
// the path. That call is most often on the same thread; on another (PyTorch's autograd thread
// submits the backward pass after the main thread's sync) the link is inferred.
void FindCriticalPath(const AnalysisContext& ctx, const std::vector<Finding>& findings, Figures& fig) {
  std::map<int, const Finding*> delay_of, block_of;
  std::map<int, int> held_by;  // collective part -> the late rank's part it waited for
  for (const Finding& f : findings) {
    if (f.kind == FindingKind::kStartDelay) delay_of[f.op] = &f;
    if (f.kind == FindingKind::kHostBlock) block_of[f.op] = &f;
    if (f.kind == FindingKind::kCollectiveWait) held_by[f.op] = f.other;
  }
  int last = -1;
  for (size_t i = 0; i < ctx.s.ops.size(); ++i)
    if (IsGpuWork(ctx.op(static_cast<int>(i))) && ctx.rec(static_cast<int>(i)).gpu &&
        (last < 0 || ctx.rec(static_cast<int>(i)).end > ctx.rec(last).end))
      last = static_cast<int>(i);
  if (last < 0) return;
  const TimeNs origin = FirstGpuSubmission(ctx);
  fig.critical_span = ctx.rec(last).end - origin;
  auto waited_for_gpu = [&](int call) {
    auto b = block_of.find(call);
    return b != block_of.end() && !b->second->because.empty();
  };
  // Calls that waited for the GPU, by the time they returned.
  std::vector<std::pair<TimeNs, int>> syncs;
  for (const auto& [call, f] : block_of)
    if (!f->because.empty()) syncs.push_back({ctx.rec(call).ret, call});
  std::sort(syncs.begin(), syncs.end());
  auto last_sync_before = [&](int op, TimeNs at) {
    int process = ProcessOfThread(ctx.s, ctx.op(op).thread);
    auto it = std::upper_bound(syncs.begin(), syncs.end(), std::make_pair(at, std::numeric_limits<int>::max()));
    while (it != syncs.begin()) {
      --it;
      if (it->second != op && ProcessOfThread(ctx.s, ctx.op(it->second).thread) == process) return it->second;
    }
    return -1;
  };
  std::vector<int>& path = fig.critical_path;
  std::set<int> seen;
  for (int op = last; op >= 0 && seen.insert(op).second;) {
    path.push_back(op);
    int next = -1;
    // A collective part that waited ends when its late rank's part does: follow that rank.
    if (auto h = held_by.find(op); h != held_by.end()) {
      op = h->second;
      continue;
    }
    if (auto d = delay_of.find(op); d != delay_of.end() && !d->second->because.empty()) {
      next = d->second->because.front();
    } else if (waited_for_gpu(op)) {
      next = block_of[op]->because.front();
    } else {
      // Paced by the host: back to the process's last call that waited for the GPU.
      TimeNs submitted = ctx.rec(op).submit;
      int sync = last_sync_before(op, submitted);
      TimeNs from = sync >= 0 ? ctx.rec(sync).ret : std::min(origin, submitted);
      if (submitted - from > ctx.slack) {
        Figures::HostStretch stretch;
        stretch.before = op, stretch.thread = ctx.op(op).thread, stretch.length = submitted - from;
        stretch.from_thread = sync >= 0 ? ctx.op(sync).thread : -1;
        fig.critical_host.push_back(stretch);
      }
      next = sync;
    }
    op = next;
  }
  std::reverse(path.begin(), path.end());
  std::reverse(fig.critical_host.begin(), fig.critical_host.end());
}

}  // namespace

Figures ComputeFigures(const AnalysisContext& ctx, const std::vector<Finding>& findings) {
  Figures fig;
  std::vector<Interval> all;
  std::map<int, std::vector<Interval>> by_stream;
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    const OpRecord& r = ctx.rec(static_cast<int>(i));
    if (op.kind == OpKind::kHostWork) continue;
    if (!IsGpuWork(op)) {
      if (!r.gpu && HostCallTime(r) > ctx.slack) fig.host_blocked = SaturatingAdd(fig.host_blocked, HostCallTime(r));
      continue;
    }
    if (HostCallTime(r) > ctx.slack) fig.host_blocked = SaturatingAdd(fig.host_blocked, HostCallTime(r));
    if (!r.gpu || r.end <= r.start) continue;
    all.emplace_back(r.start, r.end);
    by_stream[op.stream].emplace_back(r.start, r.end);
    fig.serial = SaturatingAdd(fig.serial, r.end - r.start);
  }
  std::vector<Interval> busy = Union(all);
  if (!busy.empty()) fig.makespan = busy.back().second - busy.front().first;
  fig.gpu_busy = Length(busy);
  fig.speedup = fig.makespan > 0 ? static_cast<double>(fig.serial) / static_cast<double>(fig.makespan) : 1.0;

  std::vector<Lane> lanes = LanesOf(ctx.s);
  // Pairwise overlap for up to 64 stream lanes (a chart with more is not read pair by pair).
  if (lanes.size() > 65) lanes.resize(65);
  for (size_t a = 1; a < lanes.size(); ++a) {
    for (size_t b = a + 1; b < lanes.size(); ++b) {
      std::vector<Interval> ua = Union(by_stream[lanes[a].stream]), ub = Union(by_stream[lanes[b].stream]);
      TimeNs shorter = std::min(Length(ua), Length(ub));
      if (shorter <= 0) continue;
      TimeNs overlap = Intersection(ua, ub);
      fig.overlaps.push_back({static_cast<int>(a), static_cast<int>(b), overlap,
                              static_cast<double>(overlap) / static_cast<double>(shorter)});
    }
  }
  FindCriticalPath(ctx, findings, fig);
  return fig;
}

namespace {

bool OnLibraryStream(const Scenario& s, int op) {
  return op >= 0 && s.ops[op].stream >= 0 && s.streams[s.ops[op].stream].library;
}

}  // namespace

// What a finding may not say: a warning about a library's own streams (it orders its own
// work; the program cannot change it), or a figure of zero (a finding about nothing).
void KeepFindingsTrue(const Trace& trace, std::vector<Finding>& findings) {
  const Scenario& s = trace.scenario;
  for (Finding& f : findings)
    if (f.severity == Severity::kWarning && (OnLibraryStream(s, f.op) || OnLibraryStream(s, f.other)))
      f.severity = Severity::kNote;
  // One fact, one warning: where a legacy-stream summary says what the legacy default stream
  // waited for and held back (and how to avoid it), each delay it caused stays as a note
  // beside it, not a second and third warning of the same barrier.
  bool summarised = std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.kind == FindingKind::kLegacyNextToBlocking && f.severity == Severity::kWarning;
  });
  for (Finding& f : findings)
    if (summarised && f.kind == FindingKind::kStartDelay && f.cause == Cause::kLegacyBarrier && f.severity == Severity::kWarning)
      f.severity = Severity::kNote;
  // (A lab's trace keeps every op's start finding, which its views look up by op.)
  if (!s.recorded) return;
  // In a program, lazy module loads are one-off start-up costs (the verdict lists them), and a
  // wait on the legacy stream's barrier may be the very order its data needs (cuda-samples rely
  // on it): whether either hurts the steady state the trace cannot tell, so they are notes.
  for (Finding& f : findings) {
    bool start_up = (f.kind == FindingKind::kStartDelay && f.cause == Cause::kModuleLoad) ||
                    (f.kind == FindingKind::kHostBlock && f.cause == Cause::kHostLate);
    bool legacy = (f.kind == FindingKind::kStartDelay && f.cause == Cause::kLegacyBarrier) ||
                  f.kind == FindingKind::kLegacyNextToBlocking;
    if ((start_up || legacy) && f.severity == Severity::kWarning) f.severity = Severity::kNote;
  }
  std::erase_if(findings, [](const Finding& f) {
    bool timed = f.kind == FindingKind::kStartDelay || f.kind == FindingKind::kHostBlock ||
                 f.kind == FindingKind::kGpuIdle || f.kind == FindingKind::kScopeTooWide ||
                 f.kind == FindingKind::kHiddenSync || f.kind == FindingKind::kCollectiveWait ||
                 f.kind == FindingKind::kPageableAsyncCopy;
    return timed && f.amount <= 0 && !(f.kind == FindingKind::kStartDelay && f.cause == Cause::kPrompt);
  });
}

Analysis Analyze(const Trace& trace) {
  AnalysisContext ctx(trace);
  return Analyze(ctx);
}

Analysis Analyze(const AnalysisContext& ctx) {
  const Trace& trace = ctx.t;
  Analysis a;
  if (trace.ops.size() > Analysis::kMaxExplainedOps) {
    a.summarised_only = true;
    a.figures = ComputeFigures(ctx, a.findings);
    ExplainIdleTime(ctx, a.findings, a.figures);
    return a;
  }
  ExplainStartDelays(ctx, a.findings);
  ExplainHostBlocks(ctx, a.findings);
  DetectMisconceptions(ctx, a.findings);
  DetectPyTorchPatterns(ctx, a.findings);
  ExplainCollectiveWaits(ctx, a.findings);
  a.figures = ComputeFigures(ctx, a.findings);
  ExplainIdleTime(ctx, a.findings, a.figures);
  // Streams that ran side by side, as findings, so views can point at them.
  std::vector<Lane> lanes = LanesOf(trace.scenario);
  for (const LaneOverlap& o : a.figures.overlaps) {
    if (o.fraction < 0.2 || o.overlap <= ctx.slack) continue;
    Finding f;
    f.kind = FindingKind::kOverlap;
    f.severity = Severity::kInfo;
    // The first work op of each lane stands for the lane.
    for (size_t i = 0; i < trace.scenario.ops.size(); ++i) {
      const Op& op = trace.scenario.ops[i];
      if (!IsGpuWork(op)) continue;
      if (f.op < 0 && op.stream == lanes[o.lane_a].stream) f.op = static_cast<int>(i);
      if (f.other < 0 && op.stream == lanes[o.lane_b].stream) f.other = static_cast<int>(i);
    }
    f.amount = o.overlap;
    f.fraction = o.fraction;
    a.findings.push_back(f);
  }
  AttachProgramSites(trace, a.figures, a.findings);
  KeepFindingsTrue(trace, a.findings);
  return a;
}

const char* ToString(Cause cause) {
  switch (cause) {
    case Cause::kPrompt: return "prompt";
    case Cause::kStreamOrder: return "stream_order";
    case Cause::kEventWait: return "event_wait";
    case Cause::kWaitStream: return "wait_stream";
    case Cause::kLegacyBarrier: return "legacy_barrier";
    case Cause::kHostLate: return "host_late";
    case Cause::kSmsBusy: return "sms_busy";
    case Cause::kCopyEngineBusy: return "copy_engine_busy";
    case Cause::kHardwareQueue: return "hardware_queue";
    case Cause::kModuleLoad: return "module_load";
    case Cause::kUnexplained: return "unexplained";
  }
  return "?";
}

const char* ToString(FindingKind kind) {
  switch (kind) {
    case FindingKind::kStartDelay: return "start_delay";
    case FindingKind::kHostBlock: return "host_block";
    case FindingKind::kScopeTooWide: return "scope_too_wide";
    case FindingKind::kOverlap: return "overlap";
    case FindingKind::kWaitCapturedNothing: return "wait_captured_nothing";
    case FindingKind::kDataRace: return "data_race";
    case FindingKind::kPageableAsyncCopy: return "pageable_async_copy";
    case FindingKind::kLegacyNextToBlocking: return "legacy_next_to_blocking";
    case FindingKind::kWrongResult: return "wrong_result";
    case FindingKind::kGpuIdle: return "gpu_idle";
    case FindingKind::kMallocMidRun: return "malloc_mid_run";
    case FindingKind::kHiddenSync: return "hidden_sync";
    case FindingKind::kCollectiveWait: return "collective_wait";
    case FindingKind::kAddressRace: return "address_race";
  }
  return "?";
}

const char* ToString(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
  }
  return "?";
}

}  // namespace streamlab
