// The walk back along the critical path (account_walk.h). Each move goes to an earlier (or the
// same) time; the segments it emits tile the stretch walked:
// - in a GPU op: its run is compute, a copy or a collective (a part that ran before the last
//   rank's part began waited for that rank); then what let it start: the op whose end released
//   it (its stream's previous op, an event's work, the graph node before it, the kernel whose
//   SMs it needed), else its own launch call, the gap to its start being the GPU's latency. Held
//   after all of those let it go (a shared hardware queue, a module load), the wait is queued.
// - on a host thread between calls: the gap is launching (short) or the program's own work; a
//   thread woken by another goes on through its waker's call.
// - in a host call: from the end of the GPU op it waited for (a sync, a blocking copy, a launch
//   that returned just as the GPU finished the work it waited for) the call's return is its kind,
//   and the path goes on through that op; a call that waited for nothing is its kind throughout.
#include "engine/account/account_walk.h"

#include <algorithm>
#include <limits>

#include "engine/analysis/explain_thresholds.h"
#include "engine/ingest/host_call_of_op.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

bool IsGraphLaunchCall(const Op& op) {
  return op.kind == OpKind::kGraphLaunch ||
         (op.kind == OpKind::kApiCall && (op.name.rfind("cudaGraphLaunch", 0) == 0 || op.name.rfind("cuGraphLaunch", 0) == 0));
}

}  // namespace

struct PathWalker::State {
  PathPoint at;
  TimeNs begin = 0;
  WalkedStep out;
  std::vector<size_t> exposed;  // host segments emitted since the path last left the host for the GPU

  void Emit(TimeNs from, TimeNs to, TimeKind kind, int op, int thread = -1, int rank = -1) {
    from = std::max(from, begin);
    if (to <= from) return;
    PathSegment seg{from, to, kind, op, thread, -1, rank};
    if (thread >= 0) exposed.push_back(out.path.size());
    out.path.push_back(seg);
  }
  // The path leaves the host for the GPU through call `call`, which waited for it.
  void WaitedIn(int call) {
    for (size_t i : exposed) out.path[i].after_wait = call;
    exposed.clear();
  }
};

PathWalker::PathWalker(const AnalysisContext& context)
    : t_(context.t), ctx_(&context), calls_(context.t),
      devices_of_process_(ProcessCount(context.t.scenario)) {
  for (const StreamDesc& s : t_.scenario.streams) {
    std::vector<int>& devices = devices_of_process_[std::min<int>(s.process, ProcessCount(t_.scenario) - 1)];
    if (std::find(devices.begin(), devices.end(), s.device) == devices.end()) devices.push_back(s.device);
  }
}

const StartReason& PathWalker::ReasonOf(int op) {
  auto it = reasons_.find(op);
  if (it == reasons_.end()) it = reasons_.emplace(op, ExplainStart(*ctx_, op)).first;
  return it->second;
}

WalkedStep PathWalker::Walk(PathPoint end, TimeNs begin) {
  State s;
  s.at = end;
  s.begin = begin;
  s.out.begin = begin;
  s.out.end = end.at;
  // Each move goes back in time or to an earlier cause at the same time; a run that stops
  // moving (clocks that disagree by more than the slack) is cut, the rest said as unknown.
  size_t moves = 0, stalled = 0;
  const size_t max_moves = 16 * t_.ops.size() + 1024;
  while (s.at.at > begin) {
    PathPoint before = s.at;
    if (s.at.gpu) StepGpu(s);
    else StepHost(s);
    bool same = s.at.at == before.at && s.at.gpu == before.gpu && s.at.op == before.op && s.at.thread == before.thread;
    stalled = s.at.at < before.at ? 0 : stalled + 1;
    if (same || stalled > 64 || ++moves > max_moves) {
      s.out.cut = true;
      s.Emit(begin, s.at.at, TimeKind::kUnknown, -1);
      break;
    }
  }
  return s.out;
}

void PathWalker::StepGpu(State& s) {
  const int g = s.at.op;
  const Op& op = t_.scenario.ops[g];
  const OpRecord& r = t_.ops[g];
  const TimeNs t = s.at.at;
  const TimeNs start = std::min(r.start, t);
  // A collective's part that began before the last rank's part waited inside it for that rank.
  int late = -1;
  if (op.kind == OpKind::kCollective && op.collective_first >= 0 && ProcessCount(t_.scenario) > 1) {
    int mine = t_.scenario.streams[op.stream].process;
    for (int p : CollectiveParts(t_.scenario, g))
      if (t_.ops[p].gpu && t_.scenario.streams[t_.scenario.ops[p].stream].process != mine &&
          (late < 0 || t_.ops[p].start > t_.ops[late].start))
        late = p;
    if (late >= 0 && t_.ops[late].start <= start + ctx_->slack) late = -1;
  }
  if (late >= 0) {
    TimeNs arrived = std::min(t_.ops[late].start, t);
    s.Emit(arrived, t, TimeKind::kCollective, g);
    s.Emit(start, arrived, TimeKind::kRankWait, g, -1, t_.scenario.streams[t_.scenario.ops[late].stream].process);
  } else {
    s.Emit(start, t, GpuKind(g, start, t), g);
  }
  const StartReason& reason = ReasonOf(g);
  const int call = op.graph >= 0 ? op.graph : g;  // the host call that submitted it
  auto go_gpu = [&](int p) {
    TimeNs e = std::min(t_.ops[p].end, start);
    s.Emit(e, start, TimeKind::kLatency, g);
    s.at = {true, p, -1, e};
  };
  auto go_host = [&](TimeNs at) {
    const OpRecord& rc = t_.ops[call];
    TimeNs release = std::min(std::max(std::min(rc.ret, at), rc.submit), at);
    s.Emit(release, at, TimeKind::kLatency, g);
    s.at = {false, -1, t_.scenario.ops[call].thread, release};
  };
  // The graph node it came after in its graph (the recording's rebuilt edges).
  int node_before = -1;
  for (int p : op.graph_after)
    if (p >= 0 && t_.ops[p].gpu && (node_before < 0 || t_.ops[p].end > t_.ops[node_before].end)) node_before = p;
  TimeNs by_end = reason.by >= 0 ? t_.ops[reason.by].end : kNever;
  if (node_before >= 0 && t_.ops[node_before].end >= std::max(by_end, reason.released)) return go_gpu(node_before);
  if (reason.cause == Cause::kLegacyBarrier && reason.by >= 0 && !s.out.path.empty() && s.out.path.back().op == g)
    s.out.path.back().legacy_serialized = true;
  switch (reason.cause) {
    case Cause::kStreamOrder: case Cause::kEventWait: case Cause::kWaitStream: case Cause::kLegacyBarrier:
    case Cause::kSmsBusy: case Cause::kCopyEngineBusy:
      if (reason.by >= 0 && t_.ops[reason.by].start < start) return go_gpu(reason.by);
      return go_host(start);
    case Cause::kHardwareQueue: case Cause::kModuleLoad: case Cause::kUnexplained: {
      TimeNs from = std::min(reason.released, start);
      TimeKind kind = reason.cause == Cause::kHardwareQueue ? TimeKind::kHardwareQueue
                      : reason.cause == Cause::kModuleLoad  ? TimeKind::kQueuedModuleLoad
                                                            : TimeKind::kUnknown;
      s.Emit(from, start, kind, g);
      if (reason.order_op >= 0 && reason.order_at >= t_.ops[call].submit && t_.ops[reason.order_op].start < from) {
        s.at = {true, reason.order_op, -1, std::min(t_.ops[reason.order_op].end, from)};
        return;
      }
      return go_host(from);
    }
    default: return go_host(start);
  }
}

void PathWalker::StepHost(State& s) {
  const int h = s.at.thread;
  const TimeNs t = s.at.at;
  const std::vector<int>& calls = calls_.Of(h);
  int pos = calls_.LastBefore(h, t);
  if (pos < 0) {  // before the thread's first call: the process went on on another thread
    int before = calls.empty() ? -1 : StarterOf(calls.front(), t);
    if (before < 0) {
      s.Emit(s.begin, t, TimeKind::kHostWork, -1, h);
      s.at.at = s.begin;
      return;
    }
    s.Emit(t_.ops[before].ret, t, TimeKind::kHostWork, calls.front(), h);
    s.at = {false, -1, t_.scenario.ops[before].thread, t_.ops[before].ret};
    return;
  }
  const int c = calls[pos];
  const OpRecord& rc = t_.ops[c];
  const int next = pos + 1 < static_cast<int>(calls.size()) ? calls[pos + 1] : -1;
  if (rc.ret < t) {  // between calls
    int waker = next >= 0 && t_.ops[next].submit >= t ? calls_.wakers()[next] : -1;
    if (waker >= 0 && t_.ops[waker].ret > rc.ret && t_.ops[waker].ret <= t) {
      s.Emit(t_.ops[waker].ret, t, TimeKind::kLaunch, next, h);
      s.at = {false, -1, t_.scenario.ops[waker].thread, t_.ops[waker].ret};
      return;
    }
    // The recorder's own time in the gap (its record of the last call, its stack read): not the
    // program's; without it the gap is that much shorter, and launching or host work by that.
    TimeNs own = next >= 0 && t_.ops[next].submit == t ? std::min(t_.ops[next].recorder_before, t - rc.ret) : 0;
    s.Emit(t - own, t, TimeKind::kRecorder, next, h);
    // A dispatch gap is spent on the call it leads to: before a call that a stream capture turns
    // into a graph node (or that begins, ends or updates the capture), building the graph; before
    // a call that waits for the GPU (a sync, a read into pageable memory), that wait: it is the
    // program's way to the read (`float(t)` through PyTorch's dispatcher), not a launch. Faster
    // R-CNN's loop of 12,000 one-value reads a request spent 80 ms a step so, and "launching".
    TimeNs gap = t - own - rc.ret;
    TimeKind dispatch = TimeKind::kLaunch;
    if (next >= 0) {
      switch (HostCallKindOf(t_.scenario, t_.scenario.ops[next])) {
        case HostCallKind::kGraphBuild: dispatch = TimeKind::kGraphBuild; break;
        case HostCallKind::kSync: dispatch = TimeKind::kSync; break;
        case HostCallKind::kPageableCopy: dispatch = TimeKind::kPageableCopy; break;
        default: break;
      }
    }
    s.Emit(rc.ret, t - own, gap <= kDispatchGapMax ? dispatch : TimeKind::kHostWork, next, h);
    s.at.at = rc.ret;
    return;
  }
  if (t_.scenario.ops[c].kind == OpKind::kHostWork) {
    s.Emit(rc.submit, t, TimeKind::kHostWork, c, h);
    s.at.at = rc.submit;
    return;
  }
  if (int w = WaitedOp(c, t); w >= 0) {
    s.Emit(t_.ops[w].end, t, CallKind(c, true), c, h);
    s.WaitedIn(c);
    s.at = {true, w, -1, t_.ops[w].end};
    return;
  }
  // The recorder's own time measured inside the call (reading a launch's arguments): not the
  // program's either.
  TimeNs own = std::min(rc.recorder_inside, t - rc.submit);
  s.Emit(t - own, t, TimeKind::kRecorder, c, h);
  s.Emit(rc.submit, t - own, CallKind(c, false), c, h);
  s.at.at = rc.submit;
}

// What a thread's first call (made at or after `at`) went on from: the thread that woke it, or
// else the call of another thread of its process that returned last before `at`. A thread's
// time before its first recorded call is not its own: it did not exist yet, or did what the
// recording does not show, and the process's time ran on the threads that were calling CUDA
// (simpleCallback's callback threads begin after the main thread's 122 ms context creation).
int PathWalker::StarterOf(int first_call, TimeNs at) const {
  if (int waker = calls_.wakers()[first_call]; waker >= 0 && t_.ops[waker].ret <= at) return waker;
  const int process = ProcessOfThread(t_.scenario, t_.scenario.ops[first_call].thread);
  int best = -1;
  for (int th = 0; th < ThreadCount(t_.scenario); ++th) {
    if (th == t_.scenario.ops[first_call].thread || ProcessOfThread(t_.scenario, th) != process) continue;
    const std::vector<int>& calls = calls_.Of(th);
    // Calls return in order on a thread: the last one begun before `at` that has also returned.
    for (int pos = calls_.LastBefore(th, at); pos >= 0; --pos) {
      if (t_.ops[calls[pos]].ret > at) continue;
      if (best < 0 || t_.ops[calls[pos]].ret > t_.ops[best].ret) best = calls[pos];
      break;
    }
  }
  return best;
}

// The GPU work that ended last among what op reached through records and waits.
int PathWalker::LatestWorkBefore(int op, int depth) const {
  if (depth > 16) return -1;
  int best = -1;
  for (const DepEdge& e : ctx_->hb.deps().into[op]) {
    int w = IsGpuWork(t_.scenario.ops[e.from]) ? e.from : LatestWorkBefore(e.from, depth + 1);
    if (w >= 0 && t_.ops[w].gpu && (best < 0 || t_.ops[w].end > t_.ops[best].end)) best = w;
  }
  return best;
}

// The GPU op call `call` waited for that ended last, at or before `at` and after the call
// began: what CUDA's rules say it waits for (a sync, a blocking copy, cudaFree), or else, for a
// launch that held the host and returned just after GPU work of its process ended (a graph whose
// copy node writes pageable memory, a full launch queue), that work (inferred from the times).
int PathWalker::WaitedOp(int call, TimeNs at) const {
  const OpRecord& rc = t_.ops[call];
  int best = -1;
  auto consider = [&](int w) {
    if (w < 0) return;
    if (!IsGpuWork(t_.scenario.ops[w])) w = LatestWorkBefore(w, 0);
    if (w < 0 || !t_.ops[w].gpu) return;
    TimeNs e = t_.ops[w].end;
    if (e <= rc.submit || e > at) return;
    if (best < 0 || e > t_.ops[best].end) best = w;
  };
  for (int w : ctx_->hb.WaitedFor(call)) consider(w);
  if (best >= 0 || !t_.scenario.recorded) return best;
  // A graph launch that held the host and returned just as its process's GPU work ended waited
  // for it (a copy node into pageable memory, a host node). Other launches that held the host
  // (another thread's call, a module load) say nothing of the GPU, and are not followed there.
  const Op& op = t_.scenario.ops[call];
  if (!IsGraphLaunchCall(op) || at + kWakeLatencyMax < rc.ret) return -1;
  int process = ProcessOfThread(t_.scenario, op.thread);
  // (Held longer than a launch, or back only after the graph it launched had run: a launch
  // returns before its work runs, unless it waits for it.)
  bool own_work_done = false;
  for (int device : devices_of_process_[std::min(process, static_cast<int>(devices_of_process_.size()) - 1)])
    ctx_->ForEachRunning(device, rc.submit, rc.ret, [&](int w) {
      own_work_done |= t_.ops[w].graph_replay && t_.ops[w].submit == rc.submit && t_.ops[w].end <= rc.ret &&
                       t_.scenario.ops[w].thread == op.thread;
    });
  if (HostCallTime(rc) <= kLaunchCallMax && !own_work_done) return -1;
  for (int device : devices_of_process_[std::min(process, static_cast<int>(devices_of_process_.size()) - 1)])
    ctx_->ForEachRunning(device, at - kWakeLatencyMax, at + 1, [&](int w) {
      if (t_.scenario.streams[t_.scenario.ops[w].stream].process == process && t_.ops[w].end >= at - kWakeLatencyMax)
        consider(w);
    });
  return best;
}

TimeKind PathWalker::GpuKind(int g, TimeNs from, TimeNs to) const {
  const Op& op = t_.scenario.ops[g];
  if (op.kind == OpKind::kCollective) return TimeKind::kCollective;
  if (IsCopy(op)) {
    switch (CopyDirection(t_.scenario, op)) {
      case 0: return TimeKind::kH2D;
      case 1: return TimeKind::kD2H;
      case 3: return TimeKind::kPeer;
      default: return TimeKind::kD2D;
    }
  }
  if (op.kind != OpKind::kKernel) return TimeKind::kKernels;
  // The SMs the kernels running then could cover: a block occupies an SM, so a grid of fewer
  // blocks than SMs (summed over the kernels side by side) leaves the rest idle.
  const int sms = t_.sm_count > 0 ? t_.sm_count : 132;
  long blocks = 0;
  TimeNs mid = from + (to - from) / 2;
  ctx_->ForEachRunning(ctx_->device_of(g), mid, mid + 1, [&](int k) {
    const Op& o = t_.scenario.ops[k];
    blocks += o.kind == OpKind::kKernel ? std::max(1, o.kernel.grid) : sms;
  });
  blocks = std::max<long>(blocks, std::max(1, op.kernel.grid));
  return static_cast<double>(blocks) < kSmallGridShare * sms ? TimeKind::kSmallGrid : TimeKind::kKernels;
}

// The account's kind of a host call's stretch, from the call's kind (the recorder's shared table,
// engine/ingest/host_call_kinds.h) and whether it waited for the GPU or held the host longer than
// a launch: a launch that held the host is a blocking launch; a cheap call of any kind is launching.
TimeKind PathWalker::CallKind(int call, bool waited) const {
  const Op& op = t_.scenario.ops[call];
  const OpRecord& r = t_.ops[call];
  const bool held = waited || HostCallTime(r) > kLaunchCallMax;
  if (r.created_context) return TimeKind::kContext;
  if (r.loaded_module && held) return TimeKind::kModuleLoad;
  if (op.kind == OpKind::kHostWork) return TimeKind::kHostWork;
  switch (HostCallKindOf(t_.scenario, op)) {
    case HostCallKind::kSync: return TimeKind::kSync;
    case HostCallKind::kPageableCopy: return TimeKind::kPageableCopy;
    case HostCallKind::kAllocation: return TimeKind::kAllocation;
    case HostCallKind::kFree: return TimeKind::kFree;
    case HostCallKind::kGraphBuild: return TimeKind::kGraphBuild;
    case HostCallKind::kModuleLoad: return held ? TimeKind::kModuleLoad : TimeKind::kLaunch;
    case HostCallKind::kBlockingLaunch: return waited ? TimeKind::kSync : held ? TimeKind::kBlockingLaunch : TimeKind::kLaunch;
    case HostCallKind::kLaunch: return held ? TimeKind::kBlockingLaunch : TimeKind::kLaunch;
    case HostCallKind::kContext: return held ? TimeKind::kContext : TimeKind::kLaunch;
    default: return held ? TimeKind::kOtherCall : TimeKind::kLaunch;
  }
}

}  // namespace streamlab
