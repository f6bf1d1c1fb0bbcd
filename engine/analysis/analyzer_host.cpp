// Host blocking attribution: for each host call that held the host thread longer than the
// slack, which GPU work it waited for (from the happens-before graph: the sync's scope) and
// which of it finished last; and whether a narrower sync would have returned sooner.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "engine/analysis/analyzer_context.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// Work the call waited for that was still unfinished when the call began, latest end first.
std::vector<int> StillRunning(const AnalysisContext& ctx, int call, const std::vector<int>& scope) {
  std::vector<int> running;
  for (int g : scope)
    if (IsGpuWork(ctx.op(g)) && ctx.rec(g).end > ctx.rec(call).submit) running.push_back(g);
  std::sort(running.begin(), running.end(), [&](int a, int b) { return ctx.rec(a).end > ctx.rec(b).end; });
  return running;
}

void ScopeCheck(const AnalysisContext& ctx, int call, const std::vector<int>& running,
                std::vector<Finding>& out) {
  // Last finishing op of each stream the device sync waited for.
  std::map<int, int> last_of_stream;
  for (int g : running) {
    int st = ctx.op(g).stream;
    auto it = last_of_stream.find(st);
    if (it == last_of_stream.end() || ctx.rec(g).end > ctx.rec(it->second).end) last_of_stream[st] = g;
  }
  if (last_of_stream.size() < 2) return;
  int first = -1;
  for (const auto& [stream, g] : last_of_stream)
    if (first < 0 || ctx.rec(g).end < ctx.rec(first).end) first = g;
  TimeNs blocked = HostCallTime(ctx.rec(call));
  TimeNs saved = ctx.rec(call).ret - ctx.rec(first).end;
  // In double: a recorded time can be near TimeNs's limit, where saved * 10 overflows.
  if (saved <= ctx.slack || static_cast<double>(saved) * 10 < static_cast<double>(blocked)) return;
  Finding f;
  f.kind = FindingKind::kScopeTooWide;
  f.severity = Severity::kNote;
  f.op = call;
  f.because = {first};
  f.other = running.front();
  f.amount = saved;
  out.push_back(f);
}

}  // namespace

void ExplainHostBlocks(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    int call = static_cast<int>(i);
    const Op& op = ctx.op(call);
    TimeNs blocked = HostCallTime(ctx.rec(call));
    if (op.kind == OpKind::kHostWork || blocked <= ctx.slack) continue;
    Finding f;
    f.kind = FindingKind::kHostBlock;
    f.severity = Severity::kNote;
    f.op = call;
    f.amount = blocked;
    std::vector<int> running = StillRunning(ctx, call, ctx.hb.WaitedFor(call));
    if (op.kind == OpKind::kKernel) {
      if (IsLazyFirstLaunch(ctx, call)) {
        // The module load waited for the work running on the device.
        for (size_t g = 0; g < i; ++g)
          if (IsGpuWork(ctx.op(static_cast<int>(g))) && ctx.device_of(static_cast<int>(g)) == ctx.device_of(call) &&
              ctx.rec(static_cast<int>(g)).end > ctx.rec(call).submit &&
              ctx.rec(static_cast<int>(g)).end <= ctx.rec(call).ret + ctx.slack)
            running.push_back(static_cast<int>(g));
        f.cause = Cause::kHostLate;  // rendered as "lazy module load"
        f.severity = Severity::kWarning;
      } else if (ctx.s.settings.launch_blocking) {
        running = {call};
      }
    }
    if (!running.empty()) {
      f.because = {running.front()};
      f.also.assign(running.begin() + 1, running.end());
    }
    out.push_back(f);
    if (op.kind == OpKind::kSyncDevice) ScopeCheck(ctx, call, running, out);
  }
}

}  // namespace streamlab
