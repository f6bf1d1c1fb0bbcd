// Walking a stretch of a run's critical path back in time: from a point (a host thread at a
// time, or a GPU op at its end) to a time before it, each stretch of the path put in one
// category (account.h). At a GPU op the path goes on through what let it start (its stream's
// previous op, an event's work, the SMs' last kernel, its own launch call), at a host call that
// waited for the GPU through the GPU op it waited for, and between calls through the thread's
// previous call (or the thread that woke it). The segments tile the stretch exactly.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "engine/account/account.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/thread_calls.h"

namespace streamlab {

struct PathPoint {
  bool gpu = false;
  int op = -1;      // gpu: the GPU op the path is in
  int thread = -1;  // host: the thread
  TimeNs at = 0;
};

class PathWalker {
 public:
  // `context`: the trace's analysis context, shared with the analysis (it must outlive the walker).
  explicit PathWalker(const AnalysisContext& context);
  // The path from `end` back to `begin`, latest segment first.
  WalkedStep Walk(PathPoint end, TimeNs begin);
  const AnalysisContext& context() const { return *ctx_; }
  const ThreadCalls& calls() const { return calls_; }

 private:
  struct State;
  void StepGpu(State& s);
  void StepHost(State& s);
  int WaitedOp(int call, TimeNs at) const;
  int StarterOf(int first_call, TimeNs at) const;
  int LatestWorkBefore(int op, int depth) const;
  const StartReason& ReasonOf(int op);
  TimeKind GpuKind(int op, TimeNs from, TimeNs to) const;
  TimeKind CallKind(int call, bool waited) const;

  const Trace& t_;
  const AnalysisContext* ctx_;
  ThreadCalls calls_;
  std::map<int, StartReason> reasons_;  // computed when the path reaches an op
  std::vector<std::vector<int>> devices_of_process_;
};

}  // namespace streamlab
