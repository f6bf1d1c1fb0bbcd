// PyTorch patterns that cost a training step time, each its own finding (grouping folds
// the repeats into a count and the largest few):
// - cudaMalloc in the middle of the run: the caching allocator growing its pool;
// - a hidden host sync: a small device-to-host copy the host then waits for (.item(),
//   .cpu(), print(tensor), `if tensor:`).
// ("non_blocking=True" from pageable memory is the pageable-copy detector's finding.)
#include <algorithm>

#include "engine/analysis/analyzer_context.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// A device-to-host copy this small reads a value or a few, not a tensor's worth of data.
constexpr uint64_t kSmallReadBytes = 4096;
// How many later calls of the same thread may come between the copy and the wait for it.
constexpr int kCallsToTheWait = 4;

void MallocsMidRun(const AnalysisContext& ctx, std::vector<Finding>& out) {
  // First and last GPU work submitted: allocations between them interrupt the run.
  int first = -1, last = -1;
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    if (!IsGpuWork(ctx.op(static_cast<int>(i)))) continue;
    if (first < 0) first = static_cast<int>(i);
    last = static_cast<int>(i);
  }
  int submitted = 0;
  for (int i = 0; i <= last; ++i) {
    if (IsGpuWork(ctx.op(i))) ++submitted;
    if (ctx.op(i).kind != OpKind::kMalloc || i < first) continue;
    Finding f;
    f.kind = FindingKind::kMallocMidRun;
    f.severity = Severity::kNote;
    f.op = i;
    f.amount = HostCallTime(ctx.rec(i));
    f.count = submitted;  // GPU ops submitted before it
    out.push_back(f);
  }
}

bool IsWaitingCall(const Op& op) {
  return op.kind == OpKind::kSyncStream || op.kind == OpKind::kSyncDevice || op.kind == OpKind::kSyncEvent;
}

void HiddenSyncs(const AnalysisContext& ctx, std::vector<Finding>& out) {
  std::vector<Finding> found;
  std::vector<std::vector<int>> calls_of_thread(ThreadCount(ctx.s));
  for (size_t i = 0; i < ctx.s.ops.size(); ++i)
    if (ctx.op(static_cast<int>(i)).graph < 0) calls_of_thread[ctx.op(static_cast<int>(i)).thread].push_back(static_cast<int>(i));
  for (const std::vector<int>& calls : calls_of_thread) {
    for (size_t k = 0; k < calls.size(); ++k) {
      int copy = calls[k];
      const Op& op = ctx.op(copy);
      if (op.kind != OpKind::kMemcpy || CopyDirection(ctx.s, op) != 1 || op.bytes > kSmallReadBytes) continue;
      // The host waited for it: in the copy itself (pageable or synchronous), or in a sync
      // right after it.
      int waited_in = HostCallTime(ctx.rec(copy)) > ctx.slack ? copy : -1;
      TimeNs blocked = waited_in >= 0 ? HostCallTime(ctx.rec(copy)) : 0;
      for (size_t j = k + 1; j < calls.size() && j <= k + kCallsToTheWait; ++j) {
        if (!IsWaitingCall(ctx.op(calls[j]))) continue;
        if (HostCallTime(ctx.rec(calls[j])) > ctx.slack) {
          waited_in = calls[j];
          blocked += HostCallTime(ctx.rec(calls[j]));
        }
        break;
      }
      if (waited_in < 0) continue;
      Finding f;
      f.kind = FindingKind::kHiddenSync;
      f.severity = Severity::kNote;
      f.op = copy;
      f.because = {waited_in};
      f.amount = blocked;
      found.push_back(f);
    }
  }
  // In op order, whatever the threads.
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) { return a.op < b.op; });
  out.insert(out.end(), found.begin(), found.end());
}

}  // namespace

void DetectPyTorchPatterns(const AnalysisContext& ctx, std::vector<Finding>& out) {
  MallocsMidRun(ctx, out);
  HiddenSyncs(ctx, out);
}

}  // namespace streamlab
