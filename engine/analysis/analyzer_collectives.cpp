// Collective waits: an NCCL collective moves data only once every rank is inside it, so all
// its parts end together. A part that arrived (its stream reached it) well before the last
// one spent the difference waiting inside the collective, its kernel holding SMs and doing
// nothing. For each such part a finding names the late GPU, the wait, and what the late
// GPU's stream was still running - the straggler.
#include "engine/analysis/analyzer_context.h"

namespace streamlab {
namespace {

// The GPU work just before `part` on its stream, if it ran until (about) the part's start.
int StillRunningBefore(const AnalysisContext& ctx, int part) {
  const Op& op = ctx.op(part);
  for (int i = part - 1; i >= 0; --i) {
    const Op& prev = ctx.op(i);
    if (prev.stream != op.stream || !IsGpuWork(prev) || !ctx.rec(i).gpu) continue;
    return ctx.rec(i).end + ctx.slack >= ctx.rec(part).start ? i : -1;
  }
  return -1;
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
    int busy = StillRunningBefore(ctx, late);
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
      out.push_back(f);
    }
  }
}

}  // namespace streamlab
