// The verdict (verdict.h): the steady steps' time split as Holistic Trace Analysis splits a
// GPU's time (computing, copying only, idle), what bounds a step, the fixes from the idle gaps
// inside the steady steps grouped by cause and place, and the one-off start-up costs.
#include "engine/verdict/verdict.h"

#include <algorithm>
#include <functional>
#include <cstdint>
#include <map>

#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/program_sites.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

bool IsKernelLike(const Op& op) {
  return op.kind == OpKind::kKernel || op.kind == OpKind::kMemset || op.kind == OpKind::kCollective;
}

using Interval = std::pair<TimeNs, TimeNs>;

// A place without the step's own range (ProfilerStep#N holds every place of its step, and
// would make each step's same line a place of its own).
ProgramSite WithoutStepRanges(ProgramSite site) {
  std::erase_if(site.ranges, [](const std::string& r) { return r.rfind("ProfilerStep#", 0) == 0; });
  return site;
}

// The length of the union of intervals, each clipped to [from, to).
TimeNs UnionLength(std::vector<Interval> v, TimeNs from, TimeNs to) {
  for (Interval& i : v) i = {std::max(i.first, from), std::min(i.second, to)};
  std::erase_if(v, [](const Interval& i) { return i.second <= i.first; });
  std::sort(v.begin(), v.end());
  TimeNs total = 0, open = 0, close = -1;
  for (const Interval& i : v) {
    if (i.first > close) {
      if (close > open) total += close - open;
      open = i.first;
      close = i.second;
    } else {
      close = std::max(close, i.second);
    }
  }
  if (close > open) total += close - open;
  return total;
}

// Computing, copying only and idle in [from, to), summed over the devices that ran anything.
void SplitDeviceTime(const Trace& t, Verdict& v) {
  std::map<int, std::vector<Interval>> kernels, copies, busy;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = t.scenario.ops[i];
    if (!r.gpu || r.end <= v.from || r.start >= v.to || op.stream < 0) continue;
    int device = t.scenario.streams[op.stream].device;
    if (IsKernelLike(op)) kernels[device].push_back({r.start, r.end});
    if (IsCopy(op)) copies[device].push_back({r.start, r.end});
    if (IsKernelLike(op) || IsCopy(op)) busy[device].push_back({r.start, r.end});
  }
  TimeNs computing = 0, copying = 0, any = 0;
  for (auto& [device, list] : busy) {
    any += UnionLength(list, v.from, v.to);
    computing += UnionLength(kernels[device], v.from, v.to);
    copying += UnionLength(copies[device], v.from, v.to);
  }
  v.devices = static_cast<int>(busy.size());
  TimeNs span = (v.to - v.from) * std::max(v.devices, 1);
  v.compute = static_cast<TimeNs>(computing / v.per);
  v.copy_only = static_cast<TimeNs>((any - computing) / v.per);
  v.copying = static_cast<TimeNs>(copying / v.per);
  v.idle = static_cast<TimeNs>(std::max<TimeNs>(0, span - any) / v.per);
}

class FixCollector {
 public:
  FixCollector(const Trace& t, const Analysis& a, Verdict& v) : t_(t), a_(a), v_(v), index_(t) {
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = t.scenario.ops[i];
      if (op.kind != OpKind::kHostWork && op.graph < 0) calls_[op.thread].push_back(static_cast<int>(i));
    }
    for (auto& [thread, calls] : calls_)
      std::stable_sort(calls.begin(), calls.end(), [&](int x, int y) { return t.ops[x].submit < t.ops[y].submit; });
    for (size_t i = 0; i < a.findings.size(); ++i) {
      const Finding& f = a.findings[i];
      if (f.kind == FindingKind::kHiddenSync) {
        hidden_[f.op] = f.op;
        if (!f.because.empty()) hidden_[f.because.front()] = f.op;
      }
      if (f.kind == FindingKind::kMallocMidRun) kind_of_call_[f.op] = FixKind::kMallocMidRun;
      if (f.kind == FindingKind::kPageableAsyncCopy) kind_of_call_[f.op] = FixKind::kPageableCopy;
    }
  }

  void AddGap(const IdleGap& g) {
    TimeNs length = std::min(g.to, v_.to) - std::max(g.from, v_.from);
    if (length <= 0) return;
    v_.idle_by_cause[static_cast<int>(g.cause)] += length;
    switch (g.cause) {
      case IdleCause::kHostSync: return AddSync(g, length);
      case IdleCause::kHostCall: return AddCall(g, length);
      case IdleCause::kHostWork: return AddHostWork(g, length);
      case IdleCause::kLaunchBound: Add(FixKind::kLaunchRate, "", g.next, {}, length); return;
      case IdleCause::kCopyWait: Add(FixKind::kCopyWait, Name(g.call), g.call, Site(g.call), length); return;
      case IdleCause::kOtherDevice: Add(FixKind::kOtherDevice, "", g.call, {}, length); return;
      default: return;  // the GPU's own turnaround, a module load, unknown: nothing to fix here
    }
  }

  // Where the trace's ranges say the host was in the host-work gaps (a torch.profiler trace's
  // Python frames and ops, the DataLoader's range), when they cover at least half that time:
  // those places, rather than where the host came back to CUDA.
  void PlacesFromRanges() {
    TimeNs looked = 0, known = 0;
    std::vector<HostPlace> places = IdlePlaces(t_, a_.figures, index_, IdleCause::kHostWork, v_.from, v_.to, &looked);
    for (const HostPlace& p : places) known += p.time;
    if (places.empty() || known * 2 < looked) return;
    std::erase_if(fixes_, [](const auto& entry) {
      return entry.second.kind == FixKind::kHostWork || entry.second.kind == FixKind::kDataLoading;
    });
    for (size_t i = 0; i < places.size() && i < 4; ++i) {
      ProgramSite site = WithoutStepRanges(places[i].site);
      Add(IsDataLoaderPlace(site) ? FixKind::kDataLoading : FixKind::kHostWork, "", -1, site, places[i].time).count = 0;
    }
  }

  std::vector<VerdictFix> Take() {
    std::vector<VerdictFix> out;
    for (auto& [key, fix] : fixes_) {
      fix.per_step = static_cast<TimeNs>(fix.per_step / v_.per);
      fix.count /= v_.per;
      if (fix.kind == FixKind::kLaunchRate) fix.each = a_.figures.launch_interval;
      if (fix.per_step > 0) out.push_back(fix);
    }
    return out;
  }

 private:
  std::string Name(int op) const { return op >= 0 ? DisplayName(t_.scenario, op) : ""; }
  ProgramSite Site(int op) const {
    return op >= 0 ? WithoutStepRanges(SiteOf(index_, t_.scenario.ops[op].thread, t_.ops[op].submit)) : ProgramSite{};
  }

  VerdictFix& Add(FixKind kind, const std::string& call, int op, const ProgramSite& site, TimeNs length) {
    std::string key = std::to_string(static_cast<int>(kind)) + "|" + (site.empty() ? call : PlaceKey(site));
    auto [it, fresh] = fixes_.emplace(key, VerdictFix{});
    VerdictFix& f = it->second;
    if (fresh) f = {kind, 0, 0, op, site, call};
    if (op >= 0) f.calls.push_back(op);
    f.per_step += length;
    f.count += 1;
    return f;
  }

  void AddSync(const IdleGap& g, TimeNs length) {
    auto hidden = hidden_.find(g.call);
    if (hidden != hidden_.end()) {
      Add(FixKind::kHiddenRead, Name(hidden->second), hidden->second, Site(hidden->second), length);
      return;
    }
    Add(FixKind::kHostSync, Name(g.call), g.call, Site(g.call), length);
  }

  void AddCall(const IdleGap& g, TimeNs length) {
    auto known = kind_of_call_.find(g.call);
    FixKind kind = known != kind_of_call_.end() ? known->second : FixKind::kBlockingCall;
    if (g.call >= 0 && kind == FixKind::kBlockingCall && IsCopy(t_.scenario.ops[g.call])) kind = FixKind::kPageableCopy;
    if (g.call >= 0 && (t_.scenario.ops[g.call].kind == OpKind::kGraphLaunch ||
                        t_.scenario.ops[g.call].name.rfind("cudaGraphLaunch", 0) == 0 ||
                        t_.scenario.ops[g.call].name.rfind("cuGraphLaunch", 0) == 0))
      kind = FixKind::kGraphLaunch;
    Add(kind, Name(g.call), g.call, Site(g.call), length);
  }

  // The host's own work: where the thread came back to CUDA after it (its first call after the
  // GPU went idle, whose Python stack a recording reads), or the next op's call. Places not
  // recorded are one entry.
  void AddHostWork(const IdleGap& g, TimeNs length) {
    int back = g.next;
    if (g.next >= 0) {
      const std::vector<int>& calls = calls_[t_.scenario.ops[g.next].thread];
      auto it = std::partition_point(calls.begin(), calls.end(), [&](int c) { return t_.ops[c].submit < g.from; });
      if (it != calls.end() && t_.ops[*it].submit <= t_.ops[g.next].submit && !Site(*it).empty()) back = *it;
    }
    ProgramSite site = Site(back);
    FixKind kind = IsDataLoaderPlace(site) ? FixKind::kDataLoading : FixKind::kHostWork;
    VerdictFix& f = Add(kind, site.empty() ? "" : Name(back), back, site, length);
    f.came_back = !site.empty();
    bool holds_start = std::any_of(v_.steps.steps.begin(), v_.steps.steps.end(),
                                   [&](const ProgramStep& s) { return s.begin >= g.from && s.begin <= g.to; });
    if (holds_start) f.at_step_start_time += length;
    f.at_step_start = f.at_step_start_time * 2 > f.per_step;
  }

  const Trace& t_;
  const Analysis& a_;
  Verdict& v_;
  RangeIndex index_;
  std::map<int, std::vector<int>> calls_;  // each thread's calls, by submission
  std::map<int, int> hidden_;  // a call the host waited in for a small read -> the read
  std::map<int, FixKind> kind_of_call_;
  std::map<std::string, VerdictFix> fixes_;
};

// A kernel's launches in the window: how long at least one ran, and how many ran at once at most.
TopKernel KernelBusy(const std::string& name, std::vector<std::pair<TimeNs, TimeNs>> spans, double per) {
  std::sort(spans.begin(), spans.end());
  TopKernel k{name, 0, static_cast<double>(spans.size()) / per, 1};
  TimeNs covered_to = 0;
  std::vector<TimeNs> running_ends;  // min-heap of the ends of launches still running
  for (const auto& [start, end] : spans) {
    k.busy += std::max<TimeNs>(0, end - std::max(start, covered_to));
    covered_to = std::max(covered_to, end);
    while (!running_ends.empty() && running_ends.front() <= start) {
      std::pop_heap(running_ends.begin(), running_ends.end(), std::greater<>());
      running_ends.pop_back();
    }
    running_ends.push_back(end);
    std::push_heap(running_ends.begin(), running_ends.end(), std::greater<>());
    k.most_at_once = std::max(k.most_at_once, static_cast<int>(running_ends.size()));
  }
  k.busy = static_cast<TimeNs>(k.busy / per);
  return k;
}

// GPU-bound or copy-bound: the kernels (or copies) that take the step's time.
void AddWorkFixes(const Trace& t, Verdict& v) {
  std::map<std::string, std::vector<std::pair<TimeNs, TimeNs>>> by_kernel;
  uint64_t bytes = 0;
  TimeNs copying = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = t.scenario.ops[i];
    if (!r.gpu || r.start < v.from || r.start >= v.to) continue;
    if (IsKernelLike(op)) by_kernel[DisplayName(t.scenario, static_cast<int>(i))].push_back({r.start, r.end});
    if (IsCopy(op)) bytes += op.bytes, copying += r.end - r.start;
  }
  if (v.bound == StepBound::kCopies) {
    VerdictFix f{FixKind::kCopies, static_cast<TimeNs>(v.copy_only), 0, -1, {}, ""};
    f.bytes = static_cast<uint64_t>(bytes / v.per);
    f.each = static_cast<TimeNs>(copying / v.per);
    v.fixes.insert(v.fixes.begin(), f);
  }
  // The kernels that take the step's time: what a GPU-bound step would have to make faster.
  std::vector<TopKernel> kernels;
  for (auto& [name, spans] : by_kernel) kernels.push_back(KernelBusy(name, std::move(spans), v.per));
  std::stable_sort(kernels.begin(), kernels.end(), [](const TopKernel& a, const TopKernel& b) { return a.busy > b.busy; });
  if (kernels.size() > 3) kernels.resize(3);
  v.top_kernels = std::move(kernels);
}

StepBound BoundOf(const Verdict& v) {
  TimeNs total = v.compute + v.copy_only + v.idle;
  if (total <= 0) return StepBound::kUnknown;
  // GPU-bound only when kernels run most of the step (70 %); a GPU idle a third of the step or
  // more waits for something, and that is what bounds it.
  if (v.compute * 10 >= total * 7) return StepBound::kGpuCompute;
  if (v.copy_only >= v.idle && v.copy_only * 10 >= total * 3) {
    // Copy-only time that is mostly kernels waiting for their own stream's copies, which take
    // less time than the kernels: overlapped, the kernels would set the pace, not the copies.
    bool waited = v.idle_by_cause[static_cast<int>(IdleCause::kCopyWait)] * 2 >= v.copy_only;
    return waited && v.copying < v.compute ? StepBound::kCopyWait : StepBound::kCopies;
  }
  if (v.idle * 10 < total * 3) return StepBound::kGpuCompute;
  // The idle time's largest cause; the host's own work in the DataLoader is data loading.
  int top = 0;
  for (int c = 1; c < kIdleCauseCount; ++c)
    if (v.idle_by_cause[c] > v.idle_by_cause[top]) top = c;
  switch (static_cast<IdleCause>(top)) {
    case IdleCause::kLaunchBound: return StepBound::kLaunchRate;
    case IdleCause::kHostSync: return StepBound::kHostSyncs;
    case IdleCause::kHostWork: {
      TimeNs loading = 0, work = 0;
      for (const VerdictFix& f : v.fixes)
        (f.kind == FixKind::kDataLoading ? loading : work) += f.kind == FixKind::kDataLoading || f.kind == FixKind::kHostWork ? f.per_step : 0;
      return loading > work ? StepBound::kDataLoading : StepBound::kHostWork;
    }
    case IdleCause::kHostCall: return StepBound::kHostCalls;
    case IdleCause::kCopyWait: return StepBound::kCopyWait;
    case IdleCause::kOtherDevice: return StepBound::kOtherDevice;
    default: return StepBound::kUnknown;
  }
}

void AddStartupCosts(const Trace& t, Verdict& v) {
  const StepSplit& s = v.steps;
  bool inferred = false;
  if (int call = ContextCreationCall(t, &inferred); call >= 0) {
    v.startup.push_back({StartupCost::kContext, HostCallTime(t.ops[call]), 1, call, inferred});
  }
  StartupCost loads{StartupCost::kModuleLoads};
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].loaded_module) loads.time += HostCallTime(t.ops[i]), ++loads.count;
  if (loads.count) v.startup.push_back(loads);
  if (!s.found()) return;
  v.startup.push_back({StartupCost::kBeforeFirstStep, s.steps.front().begin - s.run_begin, 0});
  if (s.warmup > 0) {
    StartupCost warm{StartupCost::kWarmupSteps, 0, s.warmup};
    for (int k = 0; k < s.warmup; ++k) warm.time += s.steps[k].end - s.steps[k].begin - s.median;
    TimeNs to = s.steps[s.warmup - 1].end;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.ops[i].loaded_module && t.ops[i].submit >= s.steps.front().begin && t.ops[i].submit < to) warm.loads += HostCallTime(t.ops[i]);
    v.startup.push_back(warm);
  }
  if (s.run_end > s.steps.back().end) v.startup.push_back({StartupCost::kAfterLastStep, s.run_end - s.steps.back().end, 0});
}

// A loop with no sync in it queues its steps on the host's clock long before the GPU runs them:
// its step ranges (or submissions) span a fraction of the time the GPU takes for them. When the
// GPU's run of the steady steps' work lasts more than 1.5 times their span on the host, the
// figures are taken over that run instead, or they would count a sliver of the GPU's time.
void PaceByTheGpu(const Trace& t, Verdict& v) {
  TimeNs first = INT64_MAX, last = 0;
  for (const OpRecord& r : t.ops)
    if (r.gpu && r.end > r.start && r.submit >= v.from && r.submit < v.to)  // a graph's nodes too: its launch submits them
      first = std::min(first, r.start), last = std::max(last, r.end);
  if (last <= first || 2 * (last - first) <= 3 * (v.to - v.from)) return;
  v.from = first;
  v.to = last;
  v.gpu_paced_step = static_cast<TimeNs>((last - first) / v.per);
}

// Or a sync every few steps holds the host back, so the span is the GPU's, but the steps between
// syncs close their ranges long before their work runs: their median is the host's time, not the
// step's. Held back, the host calls most steps faster than their work ends (step_pace.h, as
// whatif times them), and the GPU works through most of that pace. A loop whose host works
// outside its ranges calls its steps as far apart as they end, and its GPU is mostly idle.
void PaceHeldByASync(Verdict& v) {
  const StepPace& pace = v.pace;
  bool ahead = 2 * pace.ends > 3 * pace.calls && 2 * pace.ends > 3 * v.steps.median;
  if (ahead && 2 * (v.compute + v.copy_only) >= pace.ends) v.gpu_paced_step = pace.ends, v.gpu_paced_held = true;
}

}  // namespace

Verdict MakeVerdict(const Trace& trace, const Analysis& analysis) {
  Verdict v;
  v.steps = FindSteps(trace);
  v.pace = MeasuredPace(trace, v.steps);
  v.python = IsPythonProgram(trace);
  for (const Op& op : trace.scenario.ops) v.graphs |= op.kind == OpKind::kGraphLaunch;
  if (v.steps.found()) {
    const std::vector<ProgramStep>& steps = v.steps.steps;
    v.from = steps[v.steps.warmup].begin;
    v.to = steps.back().end;
    v.per = v.steps.steady;
  } else {  // the device time, as HTA takes it: first GPU op's start to last one's end
    v.from = INT64_MAX;
    v.to = 0;
    for (const OpRecord& r : trace.ops)
      if (r.gpu && r.end > r.start) v.from = std::min(v.from, r.start), v.to = std::max(v.to, r.end);
  }
  if (v.to <= v.from) return v;
  for (size_t i = 0; i < trace.ops.size(); ++i)
    if (trace.ops[i].gpu && trace.ops[i].submit >= v.from && trace.ops[i].submit < v.to && !trace.ops[i].graph_replay)
      v.launches += 1;
  v.launches /= v.per;
  if (v.steps.found()) PaceByTheGpu(trace, v);
  SplitDeviceTime(trace, v);
  if (v.steps.found() && v.gpu_paced_step == 0) PaceHeldByASync(v);
  FixCollector collector(trace, analysis, v);
  for (const IdleGap& g : analysis.figures.idle_gaps) collector.AddGap(g);
  collector.PlacesFromRanges();
  for (TimeNs& t : v.idle_by_cause) t = static_cast<TimeNs>(t / v.per);
  v.fixes = collector.Take();
  v.bound = BoundOf(v);
  std::stable_sort(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& a, const VerdictFix& b) { return a.per_step > b.per_step; });
  AddWorkFixes(trace, v);
  // A fix worth naming costs at least 1 % of a step.
  TimeNs step = v.compute + v.copy_only + v.idle;
  std::erase_if(v.fixes, [&](const VerdictFix& f) { return f.per_step * 100 < step; });
  AddStartupCosts(trace, v);
  return v;
}

const char* ToString(StepBound bound) {
  static const char* const kNames[kStepBoundCount] = {"gpu_compute", "copies", "launch_rate", "host_syncs", "host_work",
                                                      "data_loading", "host_calls", "copy_wait", "other_device", "unknown"};
  return kNames[static_cast<int>(bound)];
}

const char* ToString(FixKind kind) {
  static const char* const kNames[kFixKindCount] = {"hidden_read", "host_sync", "launch_rate", "data_loading",
                                                    "host_work", "malloc_mid_run", "pageable_copy", "blocking_call",
                                                    "copy_wait", "other_device", "kernels", "copies", "graph_launch"};
  return kNames[static_cast<int>(kind)];
}

const char* OtherCaseName(VerdictFix::OtherCase c) {
  switch (c) {
    case VerdictFix::kFasterGraphGap: return "graph_gap";
    case VerdictFix::kLoaderHandOver: return "loader";
    case VerdictFix::kNoOtherCase: break;
  }
  return "";
}

}  // namespace streamlab
