// Start-delay attribution: for each GPU op, the candidates that could have held it back
// (each ordering edge, traced through records and waits to the work that released it; the
// host's submission; busy SMs; a busy copy engine; a shared hardware queue), each with the
// time it released the op. The one that released it last is the cause; the others that
// still held it after submission are listed.
#include <algorithm>
#include <set>

#include "engine/analysis/analyzer_context.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

struct Candidate {
  Cause cause = Cause::kPrompt;
  TimeNs release = 0;
  std::vector<int> ops;
  int marker = -1;
};

Cause CauseOf(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kEvent: return Cause::kEventWait;
    case EdgeKind::kWaitStream: return Cause::kWaitStream;
    case EdgeKind::kLegacyBarrier: return Cause::kLegacyBarrier;
    case EdgeKind::kStreamOrder: return Cause::kStreamOrder;
  }
  return Cause::kStreamOrder;
}

// Follows the ordering edges into `op` back through records and waits to GPU work. The
// cause of a path is its first edge that is not plain stream order (seen from the waiting
// op); `marker` is the op where that edge enters (the wait, or the legacy-stream op).
void CollectOrdering(const AnalysisContext& ctx, int op, Cause cause, int marker, int depth,
                     std::vector<Candidate>& out, std::set<std::pair<int, int>>& visited) {
  // Each (op, cause) once: a legacy-stream marker fans out to every blocking stream, and
  // such fans can nest.
  if (depth > 64 || !visited.insert({op, static_cast<int>(cause)}).second) return;
  for (const DepEdge& e : ctx.hb.deps().into[op]) {
    Cause c = cause;
    int m = marker;
    if (c == Cause::kStreamOrder && e.kind != EdgeKind::kStreamOrder) {
      c = CauseOf(e.kind);
      m = e.kind == EdgeKind::kLegacyBarrier ? e.from : op;
    }
    if (IsGpuWork(ctx.op(e.from))) {
      out.push_back({c, ctx.rec(e.from).end, {e.from}, m});
    } else {
      CollectOrdering(ctx, e.from, c, m, depth + 1, out, visited);
    }
  }
}

// Copies in `copy`'s direction on its device (other than itself) that ran during [from, to):
// an engine moves one copy at a time per direction, so only those can have held it.
std::vector<int> CopiesDuring(const AnalysisContext& ctx, int copy, TimeNs from, TimeNs to) {
  std::vector<int> ops;
  const int direction = CopyDirection(ctx.s, ctx.op(copy));
  ctx.ForEachRunning(ctx.device_of(copy), from, to, [&](int i) {
    if (i != copy && CopyDirection(ctx.s, ctx.op(i)) == direction) ops.push_back(i);
  });
  // The ones that finished last are the ones that finally made room.
  std::sort(ops.begin(), ops.end(), [&](int a, int b) { return ctx.rec(a).end > ctx.rec(b).end; });
  return ops;
}

// Kernels (other than `self`) on self's device with blocks resident at time `at`, and the
// share of the GPU they held then. With block records: their resident blocks' threads
// against the GPU's thread slots. Without (a recorded program's kernels): each kernel's grid
// against SMs x its max active blocks per SM (occupancy), holding all its blocks for its
// whole span, which makes the share an estimate (*estimated is set).
std::vector<int> ResidentAt(const AnalysisContext& ctx, int self, TimeNs at, double* share, bool* estimated) {
  const int sm_count = ctx.t.sm_count > 0 ? ctx.t.sm_count : 132;
  const double capacity = static_cast<double>(sm_count) * 2048.0;
  double held = 0;
  std::vector<int> ops;
  ctx.ForEachRunning(ctx.device_of(self), at, at + 1, [&](int k) {
    const Op& o = ctx.op(k);
    if (k == self || o.kind != OpKind::kKernel) return;
    const OpRecord& r = ctx.rec(k);
    if (r.blocks.empty() && o.kernel.kind == KernelKind::kForeign && o.kernel.max_blocks_per_sm > 0) {
      held += std::min(1.0, static_cast<double>(o.kernel.grid) / (static_cast<double>(sm_count) * o.kernel.max_blocks_per_sm));
      *estimated = true;
      ops.push_back(k);
      return;
    }
    int resident = 0;
    if (r.blocks.empty()) {
      resident = o.kernel.grid;
    } else {
      for (const BlockRecord& b : r.blocks) resident += b.start <= at && b.end > at;
    }
    if (resident == 0) return;
    held += static_cast<double>(resident) * o.kernel.block / capacity;
    ops.push_back(k);
  });
  std::sort(ops.begin(), ops.end(), [&](int a, int b) { return ctx.rec(a).end > ctx.rec(b).end; });
  *share = std::min(1.0, held);
  return ops;
}

// Under lazy loading: the most recent first launch (module load) that `x` waited behind,
// with the time the load let it go; or x's own load and the running work it waited for.
bool ModuleLoadCandidate(const AnalysisContext& ctx, int x, Candidate* out) {
  if (!ctx.module_loads) return false;
  const OpRecord& r = ctx.rec(x);
  if (IsLazyFirstLaunch(ctx, x)) {
    std::vector<int> running;
    TimeNs last = 0;
    for (int i = 0; i < x; ++i) {
      if (!IsGpuWork(ctx.op(i)) || ctx.device_of(i) != ctx.device_of(x)) continue;
      if (ctx.rec(i).end > r.submit) {
        running.push_back(i);
        last = std::max(last, ctx.rec(i).end);
      }
    }
    if (running.empty()) return false;
    *out = {Cause::kModuleLoad, last, running, x};
    return true;
  }
  int i = ctx.lazy_first_before[x];
  if (i < 0 || ctx.rec(i).start <= r.submit) return false;
  *out = {Cause::kModuleLoad, ctx.rec(i).start, {i}, i};
  return true;
}

// Another stream's op in the same hardware queue that was last to move on before `op`
// became ready: the source of a false dependency. `*until_end` says it held the queue
// until it ended: a collective, behind which NCCL's own wait for it sits (sim_executor.cpp).
int QueueBlocker(const AnalysisContext& ctx, int op, TimeNs not_before, TimeNs ready, bool* until_end) {
  int stream = ctx.op(op).stream;
  int best = -1;
  TimeNs best_moved = 0;
  // A queued op releases the queue when it starts (kernels) or ends (what waits behind it):
  // look at ops of the same device that started (or, collectives, ended) in
  // [not_before, ready + slack].
  ctx.ForEachRunning(ctx.device_of(op), not_before, ready + ctx.slack + 1, [&](int i) {
    const Op& o = ctx.op(i);
    if (i >= op || o.stream == stream) return;
    if (ctx.queue_of_stream[o.stream] != ctx.queue_of_stream[stream]) return;
    auto consider = [&](TimeNs moved, bool at_end) {
      if (moved < not_before || moved > ready + ctx.slack) return;
      if (best < 0 || moved > best_moved || (moved == best_moved && i < best)) {
        best = i;
        best_moved = moved;
        *until_end = at_end;
      }
    };
    consider(ctx.rec(i).start, false);
    if (o.kind == OpKind::kCollective) consider(ctx.rec(i).end, true);
  });
  return best;
}

}  // namespace

StartReason ExplainStart(const AnalysisContext& ctx, int x, Finding* finding) {
  const OpRecord& r = ctx.rec(x);
  std::vector<Candidate> candidates;
  std::set<std::pair<int, int>> visited;
  CollectOrdering(ctx, x, Cause::kStreamOrder, -1, 0, candidates, visited);
  TimeNs ordering = 0;
  int order_op = -1;
  for (const Candidate& c : candidates)
    if (order_op < 0 || c.release > ordering) ordering = c.release, order_op = c.ops.front();
  TimeNs explained = std::max(ordering, r.submit);

  // Host submission: it may have come late because the host was stuck in an earlier call.
  Candidate host{Cause::kPrompt, r.submit, {}, -1};
  int blocker = ctx.blocking_before[x];
  if (blocker >= 0 && ctx.rec(blocker).ret > ordering + ctx.slack &&
      r.submit - ctx.rec(blocker).ret < ctx.slack + HostCallTime(ctx.rec(blocker))) {
    host.cause = Cause::kHostLate;
    host.ops = {blocker};
  }
  candidates.push_back(host);

  Candidate load;
  if (ModuleLoadCandidate(ctx, x, &load)) {
    candidates.push_back(load);
    explained = std::max(explained, load.release);
  }

  // Ready but not started: the GPU had no room (at least half its thread slots held by
  // other kernels while it waited). Sampled mid-wait: on an H200 the next kernel's blocks
  // start ~64 ns after the last ones leave, so "just before the start" can be empty.
  const Op& op = ctx.op(x);
  bool estimated = false;
  TimeNs queued = 0;
  // (A collective's part is a kernel too; on a GPU its start is its ready event, so only
  // the simulator shows it queued for SMs.)
  if (op.kind == OpKind::kKernel || op.kind == OpKind::kMemset || op.kind == OpKind::kCollective) {
    queued = QueuedTime(ctx.t, r);
    // A recorded kernel has no *ready* time: it was ready once ordering and submission let
    // it go, so a late start from then on is time it may have queued for SMs.
    // (A slow launch call - a module load inside it - lets it go only when it returns.)
    TimeNs let_go = std::max(explained, std::min(r.ret, r.start));
    if (ctx.s.recorded && r.ready >= r.start && r.start - let_go > ctx.slack) queued = r.start - let_go;
    double share = 0;
    std::vector<int> resident =
        queued > 0 ? ResidentAt(ctx, x, r.start - queued / 2, &share, &estimated) : std::vector<int>{};
    if (queued > 0 && share >= 0.5) candidates.push_back({Cause::kSmsBusy, r.start, resident, -1});
    // Ready late with nothing in the scenario to explain it: a shared hardware queue. (Not
    // for recorded graph replays: the graph's own edges, not in the recording, may explain it.)
    TimeNs ready = queued > 0 ? r.ready : r.start;
    if (ready - explained > ctx.slack && !r.graph_replay) {
      bool until_end = false;
      int q = QueueBlocker(ctx, x, explained, ready, &until_end);
      // The marker names the collective when it held the queue until it ended.
      if (q >= 0) candidates.push_back({Cause::kHardwareQueue, ready, {q}, until_end ? q : -1});
    }
  } else if (IsCopy(op) && r.start - explained > ctx.slack) {
    std::vector<int> busy = CopiesDuring(ctx, x, explained, r.start);
    if (!busy.empty()) candidates.push_back({Cause::kCopyEngineBusy, r.start, busy, -1});
  }

  // The deciding cause released the op last; among equals prefer the more specific one.
  auto decided = std::max_element(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.release != b.release) return a.release < b.release;
    return static_cast<int>(a.cause) < static_cast<int>(b.cause);
  });
  StartReason reason{decided->cause, -1, explained, order_op, ordering};
  // A delay within the slack of its release is launch latency: say so, not "it waited". Far
  // later than launch latency with nothing to show for it, it is not known why (a launch call
  // that itself took long, a module load inside it, is its own finding).
  bool timed_cause = reason.cause == Cause::kHostLate || reason.cause == Cause::kSmsBusy ||
                     reason.cause == Cause::kHardwareQueue || reason.cause == Cause::kCopyEngineBusy ||
                     reason.cause == Cause::kModuleLoad;
  if (!timed_cause && decided->release <= r.submit + ctx.slack)
    reason.cause = r.start - std::max(explained, std::min(r.ret, r.start)) > 2 * ctx.slack ? Cause::kUnexplained : Cause::kPrompt;
  bool held_by_op = reason.cause != Cause::kPrompt && reason.cause != Cause::kHostLate && reason.cause != Cause::kUnexplained &&
                    reason.cause != Cause::kHardwareQueue && reason.cause != Cause::kModuleLoad;
  if (held_by_op && !decided->ops.empty()) reason.by = decided->ops.front();
  if (!finding) return reason;
  Finding& f = *finding;
  f.kind = FindingKind::kStartDelay;
  f.op = x;
  f.cause = decided->cause;
  f.because = decided->ops;
  f.marker = decided->marker;
  f.at = decided->release;
  f.amount = r.start - r.submit;
  if (f.cause == Cause::kHostLate) f.amount = HostCallTime(ctx.rec(f.because.front()));
  if (f.cause == Cause::kSmsBusy) {
    f.amount = queued;
    f.estimated = estimated;
  }
  if (reason.cause == Cause::kPrompt || reason.cause == Cause::kUnexplained) {
    f.cause = reason.cause;
    f.because.clear();
    f.marker = -1;
  }
  for (const Candidate& c : candidates) {
    if (&c == &*decided || c.ops.empty() || c.release <= r.submit + ctx.slack) continue;
    if (c.cause == Cause::kStreamOrder && f.cause == Cause::kStreamOrder) continue;
    f.also.push_back(c.ops.front());
    f.also_causes.push_back(c.cause);
  }
  switch (f.cause) {
    case Cause::kPrompt:
    case Cause::kUnexplained:
    case Cause::kStreamOrder: f.severity = Severity::kInfo; break;
    case Cause::kLegacyBarrier:
    case Cause::kModuleLoad:
    case Cause::kHardwareQueue: f.severity = Severity::kWarning; break;
    default: f.severity = Severity::kNote; break;
  }
  return reason;
}

void ExplainStartDelays(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t i = 0; i < ctx.s.ops.size(); ++i)
    if (IsGpuWork(ctx.op(static_cast<int>(i))) && ctx.rec(static_cast<int>(i)).gpu) {
      Finding f;
      ExplainStart(ctx, static_cast<int>(i), &f);
      out.push_back(std::move(f));
    }
}

}  // namespace streamlab
