// GPU idle-time attribution: every interval in which a device ran no kernel (nor memset),
// between its first one's start and its last one's end, gets the cause that left it empty.
// Copies do not count as busy: they run on the copy engines while the SMs wait, and a
// kernel held back by one is "waiting for a copy". The op whose start ended the gap says
// where to look:
// - it was submitted during the gap: the host had not submitted yet. What the host thread
//   was doing in the gap decides: a sync that waited for the GPU to drain, another blocking
//   call, its own work, or simply launching op by op (launch-bound);
// - it was queued before the gap: what held it (another GPU's work, a module load), or the
//   copy, another GPU's work, a module load), or the GPU's own turnaround between ops when
//   the gap is within launch latency; else unknown.
// A gap spent in a capture range's slow first launches (OpRecord::slow_range_start: CUPTI
// starting up, or a kernel's first launch) is said as that, not as a blocking call.
// Gaps are summed per cause into one finding each, with the three longest as examples.
#include <algorithm>
#include <array>

#include "engine/analysis/analyzer_context.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// A launch interval up to this long, with no blocking call in the gap, is the host launching
// op by op; longer stretches outside CUDA calls are the host's own work (Python, data...).
constexpr TimeNs kLaunchIntervalMax = Us(100);

struct Attribution {
  IdleCause cause = IdleCause::kUnknown;
  int call = -1;
  TimeNs launch_interval = -1;  // for kLaunchBound
};

class IdleExplainer {
 public:
  IdleExplainer(const AnalysisContext& ctx, const std::vector<Finding>& findings)
      : ctx_(ctx), delay_of_(ctx.s.ops.size(), -1), calls_of_thread_(ThreadCount(ctx.s)) {
    for (size_t i = 0; i < findings.size(); ++i)
      if (findings[i].kind == FindingKind::kStartDelay) delay_of_[findings[i].op] = static_cast<int>(i);
    for (size_t i = 0; i < ctx.s.ops.size(); ++i)
      if (ctx.op(static_cast<int>(i)).graph < 0) calls_of_thread_[ctx.op(static_cast<int>(i)).thread].push_back(static_cast<int>(i));
    findings_ = &findings;
  }

  Attribution Explain(int device, TimeNs from, TimeNs to, int next) const {
    const OpRecord& r = ctx_.rec(next);
    // The work was in the GPU's hands once its call returned (or once it started, where a
    // recorded kernel starts before its launch call returns).
    TimeNs enqueued = r.ret > r.submit ? std::min(r.ret, r.start) : r.submit;
    if (enqueued > from) return HostSide(from, enqueued, next);
    return QueuedSide(device, from, to, next);
  }

 private:
  // The op was submitted at `until`, after the GPU went idle at `from`: what did its host
  // thread do in between?
  Attribution HostSide(TimeNs from, TimeNs until, int next) const {
    const std::vector<int>& calls = calls_of_thread_[ctx_.op(next).thread];
    // Calls of one thread follow each other: the first that returned after `from`.
    auto first = std::partition_point(calls.begin(), calls.end(), [&](int c) { return ctx_.rec(c).ret <= from; });
    int sync = -1, busiest = -1;
    TimeNs busiest_overlap = 0;
    for (auto it = first; it != calls.end() && ctx_.rec(*it).submit < until; ++it) {
      int c = *it;
      // The op's own call counts where its time was measured (a recording): a launch that
      // blocked the host, for CUPTI's start-up for example, is where the host was.
      if (c == next && !ctx_.s.recorded) break;
      const Op& op = ctx_.op(c);
      const OpRecord& rc = ctx_.rec(c);
      if (sync < 0 && rc.submit <= from && WaitedForTheGpu(c, from)) sync = c;
      bool blocking = op.kind == OpKind::kHostWork || HostCallTime(rc) > ctx_.slack;
      TimeNs overlap = std::min(rc.ret, until) - std::max(rc.submit, from);
      if (blocking && overlap > busiest_overlap) {
        busiest = c;
        busiest_overlap = overlap;
      }
      if (c == next) break;
    }
    // A sync that was still waiting when the GPU drained is why nothing was queued.
    if (sync >= 0) return {IdleCause::kHostSync, sync};
    if (busiest >= 0 && busiest_overlap * 2 >= until - from) {
      if (ctx_.rec(busiest).slow_range_start) return {IdleCause::kRangeStart, busiest};
      // A launch CUDA loaded the kernel's module in (recorded): lazy loading, not a blocking call.
      if (ctx_.rec(busiest).loaded_module) return {IdleCause::kModuleLoad, busiest};
      return {ctx_.op(busiest).kind == OpKind::kHostWork ? IdleCause::kHostWork : IdleCause::kHostCall, busiest};
    }
    TimeNs interval = LaunchInterval(next);
    if (interval >= 0 && interval <= kLaunchIntervalMax) return {IdleCause::kLaunchBound, next, interval};
    // Outside CUDA calls (or in short ones): the host's own work, with nothing to name.
    return {IdleCause::kHostWork, -1};
  }

  // Did call c wait for the work that drained at `from`? Explicit syncs and cudaFree wait for
  // other work; a blocking copy (to pageable memory, or cudaMemcpy) waits for itself, and
  // for the work before it when it queued behind that work (.item() in PyTorch).
  bool WaitedForTheGpu(int c, TimeNs from) const {
    for (int w : ctx_.hb.WaitedFor(c))
      if (w != c || ctx_.rec(c).start + ctx_.slack >= from) return true;
    return false;
  }

  // From the previous GPU op the same thread submitted to this one's submission.
  TimeNs LaunchInterval(int next) const {
    const std::vector<int>& calls = calls_of_thread_[ctx_.op(next).thread];
    auto at = std::lower_bound(calls.begin(), calls.end(), next);
    for (int steps = 0; at != calls.begin() && steps < 64; ++steps) {
      --at;
      if (IsGpuWork(ctx_.op(*at))) return ctx_.rec(next).submit - ctx_.rec(*at).submit;
    }
    return -1;
  }

  // The op was queued before the GPU went idle: what held it?
  Attribution QueuedSide(int device, TimeNs from, TimeNs to, int next) const {
    const Op& op = ctx_.op(next);
    const OpRecord& r = ctx_.rec(next);
    // A copy from pageable memory (or a synchronous one) runs while its own call stages it.
    if (IsCopy(op) && r.ret > from && HostCallTime(r) > ctx_.slack) return {IdleCause::kHostCall, next};
    if (delay_of_[next] >= 0) {
      const Finding& f = (*findings_)[delay_of_[next]];
      if (f.cause == Cause::kModuleLoad) return {IdleCause::kModuleLoad, f.because.empty() ? next : f.because.front()};
      if (!f.because.empty() && ctx_.op(f.because.front()).stream >= 0) {
        int cause = f.because.front();
        if (ctx_.device_of(cause) != device) return {IdleCause::kOtherDevice, cause};
        if (IsCopy(ctx_.op(cause))) return {IdleCause::kCopyWait, cause};
      }
    }
    if (to - std::max(from, r.submit) <= ctx_.slack) return {IdleCause::kTurnaround, next};
    return {IdleCause::kUnknown, next};
  }

  const AnalysisContext& ctx_;
  std::vector<int> delay_of_;
  std::vector<std::vector<int>> calls_of_thread_;
  const std::vector<Finding>* findings_ = nullptr;
};

}  // namespace

void ExplainIdleTime(const AnalysisContext& ctx, std::vector<Finding>& findings, Figures& fig) {
  IdleExplainer explainer(ctx, findings);
  struct Sum {
    TimeNs total = 0;
    int gaps = 0;
    TimeNs launch_total = 0, ran_out_total = 0;
    int launches = 0;
    int next_to_graphs = 0;
    std::vector<const IdleGap*> gaps_of;
  };
  std::array<Sum, kIdleCauseCount> sums;
  for (int device = 0; device < static_cast<int>(ctx.spans.size()); ++device) {
    const SpanIndex& index = ctx.spans[device];
    TimeNs first = -1, busy_until = 0;
    int last = -1;  // the op that ends last so far
    for (int op : index.by_start) {
      if (IsCopy(ctx.op(op))) continue;
      const OpRecord& r = ctx.rec(op);
      if (first < 0) first = busy_until = r.start;
      if (r.start > busy_until) {
        Attribution a = explainer.Explain(device, busy_until, r.start, op);
        fig.idle_gaps.push_back({device, busy_until, r.start, a.cause, last, op, a.call});
        if (a.launch_interval >= 0) {
          Sum& sum = sums[static_cast<int>(a.cause)];
          sum.launch_total += a.launch_interval;
          sum.ran_out_total += ctx.rec(last).end - ctx.rec(last).start;
          ++sum.launches;
        }
      }
      if (r.end > busy_until || last < 0) {
        busy_until = std::max(busy_until, r.end);
        last = op;
      }
    }
    if (first >= 0) fig.device_time += busy_until - first;
  }
  for (const IdleGap& g : fig.idle_gaps) {
    Sum& sum = sums[static_cast<int>(g.cause)];
    sum.total += g.to - g.from;
    ++sum.gaps;
    sum.gaps_of.push_back(&g);
    // A launch-bound gap beside a graph's replayed work: the advice to use a graph is moot.
    if ((g.prev >= 0 && ctx.op(g.prev).graph >= 0) || ctx.op(g.next).graph >= 0) ++sum.next_to_graphs;
    fig.idle_by_cause[static_cast<int>(g.cause)] += g.to - g.from;
    fig.gpu_idle += g.to - g.from;
  }
  // One finding per cause, largest first, with the three longest gaps as examples.
  std::vector<int> order;
  for (int c = 0; c < kIdleCauseCount; ++c)
    if (sums[c].gaps > 0) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sums[a].total > sums[b].total; });
  for (int c : order) {
    Sum& sum = sums[c];
    std::stable_sort(sum.gaps_of.begin(), sum.gaps_of.end(),
                     [](const IdleGap* a, const IdleGap* b) { return a->to - a->from > b->to - b->from; });
    Finding f;
    f.kind = FindingKind::kGpuIdle;
    f.idle = static_cast<IdleCause>(c);
    double share = fig.device_time > 0 ? static_cast<double>(sum.total) / static_cast<double>(fig.device_time) : 0;
    f.severity = share >= 0.1 && f.idle != IdleCause::kTurnaround ? Severity::kNote : Severity::kInfo;
    f.op = sum.gaps_of.front()->next;
    f.marker = sum.gaps_of.front()->device;
    for (const IdleGap* g : sum.gaps_of) {
      int example = g->call >= 0 ? g->call : g->next;
      if (std::find(f.because.begin(), f.because.end(), example) != f.because.end()) continue;
      f.because.push_back(example);
      f.gap_lengths.push_back(g->to - g->from);
      if (f.because.size() == 3) break;
    }
    f.amount = sum.total;
    f.fraction = share;
    f.count = sum.gaps;
    f.next_to_graphs = sum.next_to_graphs;
    f.each = sum.launches > 0 ? sum.launch_total / sum.launches : sum.total / sum.gaps;
    if (f.idle == IdleCause::kLaunchBound) fig.launch_interval = f.each;
    f.op_time = sum.launches > 0 ? sum.ran_out_total / sum.launches : 0;
    findings.push_back(f);
  }
}

const char* ToString(IdleCause cause) {
  switch (cause) {
    case IdleCause::kHostSync: return "host_sync";
    case IdleCause::kHostCall: return "host_call";
    case IdleCause::kHostWork: return "host_work";
    case IdleCause::kLaunchBound: return "launch_bound";
    case IdleCause::kCopyWait: return "copy_wait";
    case IdleCause::kOtherDevice: return "other_device";
    case IdleCause::kModuleLoad: return "module_load";
    case IdleCause::kTurnaround: return "turnaround";
    case IdleCause::kRangeStart: return "range_start";
    case IdleCause::kUnknown: return "unknown";
  }
  return "?";
}

}  // namespace streamlab
