// Each host thread's calls in the order it made them, and the hand-overs between threads: a
// thread that sat outside CUDA and came back just after another thread's call returned was most
// likely woken by it (PyTorch's autograd thread starting the backward pass as the main thread
// finishes the forward, the main thread going on when it ends). The account walks a step's path
// across such a hand-over; the replay makes the woken call wait for its waker.
#pragma once

#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

class ThreadCalls {
 public:
  explicit ThreadCalls(const Trace& trace);
  // A thread's calls (recorded calls and host work, not a graph's replayed nodes), by submission.
  const std::vector<int>& Of(int thread) const;
  // The position in Of(thread) of the last call that began before `at` (-1: none).
  int LastBefore(int thread, TimeNs at) const;
  // The position in Of(thread) of its first call submitted after `at` (Of(thread).size(): none).
  size_t FirstAfter(int thread, TimeNs at) const;
  // Each call's next call on its thread (-1: its last).
  const std::vector<int>& next_call() const { return next_; }
  // Per call: the call of another thread that woke it (-1: none found). A thread's first call
  // is woken by the call another thread made last before it, when soon after it.
  const std::vector<int>& wakers() const { return wakers_; }

 private:
  const Trace& t_;
  std::vector<std::vector<int>> of_thread_;
  std::vector<int> next_, wakers_;
};

}  // namespace streamlab
