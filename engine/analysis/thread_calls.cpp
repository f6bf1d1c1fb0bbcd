// Threads' calls and their hand-overs (thread_calls.h).
#include "engine/analysis/thread_calls.h"

#include <algorithm>

#include "engine/analysis/explain_thresholds.h"
#include "engine/analysis/step_pace.h"

namespace streamlab {
namespace {

std::vector<int> Wakers(const Trace& t, const std::vector<int>& next_call) {
  const Scenario& s = t.scenario;
  std::vector<int> wakers(s.ops.size(), -1);
  if (ThreadCount(s) < 2) return wakers;
  std::vector<int> by_return;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (IsRecordedCall(s.ops[i])) by_return.push_back(static_cast<int>(i));
  std::sort(by_return.begin(), by_return.end(), [&](int a, int b) { return t.ops[a].ret < t.ops[b].ret; });
  std::vector<bool> seen(ThreadCount(s), false);
  for (int first : by_return) {  // each thread's first call (by return: calls return in order on a thread)
    int thread = s.ops[first].thread;
    if (seen[thread]) continue;
    seen[thread] = true;
    auto it = std::upper_bound(by_return.begin(), by_return.end(), t.ops[first].submit,
                               [&](TimeNs at, int op) { return at < t.ops[op].ret; });
    while (it != by_return.begin()) {
      int x = *--it;
      if (s.ops[x].thread == thread) continue;
      // Started by that call's thread, if soon after it (else: started by something not recorded,
      // such as CUDA's own callback thread, and kept where it began).
      if (t.ops[first].submit - t.ops[x].ret <= kLongestHandOffDelay) wakers[first] = x;
      break;
    }
  }
  for (size_t c = 0; c < s.ops.size(); ++c) {
    int n = next_call[c];
    if (n < 0) continue;
    TimeNs from = t.ops[c].ret, to = t.ops[n].submit;
    if (to - from < kShortestHandOff) continue;
    auto it = std::upper_bound(by_return.begin(), by_return.end(), to, [&](TimeNs at, int op) { return at < t.ops[op].ret; });
    while (it != by_return.begin()) {
      int x = *--it;
      if (t.ops[x].ret <= from) break;
      if (s.ops[x].thread == s.ops[c].thread) continue;
      if (to - t.ops[x].ret <= std::min((to - from) / 2, kLongestHandOffDelay)) wakers[n] = x;
      break;
    }
  }
  return wakers;
}

}  // namespace

ThreadCalls::ThreadCalls(const Trace& trace) : t_(trace), of_thread_(ThreadCount(trace.scenario)), next_(trace.ops.size(), -1) {
  const Scenario& s = trace.scenario;
  std::vector<int> recorded_last(of_thread_.size(), -1);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.graph >= 0 || trace.ops[i].graph_replay) continue;  // a replayed node: its launch is the call
    of_thread_[op.thread].push_back(static_cast<int>(i));
    if (!IsRecordedCall(op)) continue;
    int& last = recorded_last[op.thread];
    if (last >= 0) next_[last] = static_cast<int>(i);
    last = static_cast<int>(i);
  }
  for (std::vector<int>& calls : of_thread_)
    std::stable_sort(calls.begin(), calls.end(), [&](int a, int b) { return trace.ops[a].submit < trace.ops[b].submit; });
  wakers_ = Wakers(trace, next_);
}

const std::vector<int>& ThreadCalls::Of(int thread) const {
  static const std::vector<int> kNone;
  return thread >= 0 && thread < static_cast<int>(of_thread_.size()) ? of_thread_[thread] : kNone;
}

int ThreadCalls::LastBefore(int thread, TimeNs at) const {
  const std::vector<int>& calls = Of(thread);
  auto it = std::partition_point(calls.begin(), calls.end(), [&](int c) { return t_.ops[c].submit < at; });
  return static_cast<int>(it - calls.begin()) - 1;
}

size_t ThreadCalls::FirstAfter(int thread, TimeNs at) const {
  const std::vector<int>& calls = Of(thread);
  auto next = std::upper_bound(calls.begin(), calls.end(), at, [&](TimeNs x, int op) { return x < t_.ops[op].submit; });
  return static_cast<size_t>(next - calls.begin());
}

}  // namespace streamlab
