// Collective waits: an NCCL collective moves data only once every rank is inside it, so all
// its parts end together. A part that arrived (its stream reached it) well before the last
// one spent the difference waiting inside the collective, its kernel holding SMs and doing
// nothing. For each such part a finding names the late GPU, the wait, and what the late
// GPU's stream was still running - the straggler.
#include "engine/analysis/analyzer_context.h"

namespace streamlab {
namespace {

// The last GPU work (IsGpuWork: not a record or wait marker) before op `before` on `stream`.
int LastWorkBefore(const AnalysisContext& ctx, int stream, int before) {
  for (int w = before - 1; w >= 0; --w) {
    const Op& work = ctx.op(w);
    if (work.stream == stream && IsGpuWork(work) && ctx.rec(w).gpu) return w;
  }
  return -1;
}

// The GPU work that held `part` back: the work that ended last among the op before it on its
// stream and, through the event waits just before it (DDP's communication stream waits for
// each bucket's gradients), the work those events captured on other streams - the compute
// the late rank was still doing. -1 if none ran until (about) the part's start. `*wait` =
// the wait it came through, else -1.
int StillRunningBefore(const AnalysisContext& ctx, int part, int* wait) {
  const Op& op = ctx.op(part);
  int best = -1;
  for (int i = part - 1; i >= 0; --i) {
    const Op& prev = ctx.op(i);
    bool waits = prev.kind == OpKind::kWaitEvent;
    if (prev.stream != op.stream || !(IsGpuWork(prev) || waits) || !ctx.rec(i).gpu) continue;
    int work = i, through = -1;
    if (waits) {
      int record = ctx.hb.deps().last_record_before[i];
      work = record >= 0 ? LastWorkBefore(ctx, ctx.op(record).stream, record) : -1;
      through = i;
    }
    if (work >= 0 && (best < 0 || ctx.rec(work).end > ctx.rec(best).end)) {
      best = work;
      *wait = through;
    }
    if (!waits) break;  // the waits right before the part, then its stream's work
  }
  return best >= 0 && ctx.rec(best).end + ctx.slack >= ctx.rec(part).start ? best : -1;
}

}  // namespace

void ExplainCollectiveWaits(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (op.kind != OpKind::kCollective || op.collective_first != static_cast<int>(i)) continue;
    std::vector<int> parts = CollectiveParts(ctx.s, static_cast<int>(i));
    int late = -1;
    bool timed = true;
    for (int p : parts) {
      timed &= ctx.rec(p).gpu;
      if (late < 0 || ctx.rec(p).start > ctx.rec(late).start) late = p;
    }
    if (!timed) continue;
    int wait_op = -1;
    int busy = StillRunningBefore(ctx, late, &wait_op);
    for (int p : parts) {
      TimeNs wait = ctx.rec(late).start - ctx.rec(p).start;
      if (p == late || wait <= ctx.slack) continue;
      Finding f;
      f.kind = FindingKind::kCollectiveWait;
      f.severity = Severity::kNote;
      f.op = p;
      f.other = late;
      f.amount = wait;
      f.at = ctx.rec(late).start;
      if (busy >= 0) f.because = {busy};
      f.marker = busy >= 0 ? wait_op : -1;  // the late part's stream waited for `because` here
      out.push_back(f);
    }
  }
}

}  // namespace streamlab
