// A thread's API calls in progress, as the recorder's callback keeps them (a runtime call
// encloses the driver calls it makes), and the one step on them that needs care: forgetting
// the calls whose exit will never come. Nothing here includes CUDA, so tests run it in CI.
#pragma once

#include <cstdint>

namespace streamlab::recorder {

struct PendingCall {
  uint64_t begin = 0;  // 0 for a driver call nested in a runtime one (it needs no time)
  uint64_t correlation = 0;
  bool runtime = false;
  uint32_t id = 0;  // CUPTI's callback id
  uint32_t python_stack = 0;  // read at the call's entry (python_stack.h), 0 = not read
};

// Keeps, in order, the first `depth` calls of `stack` that `subscribed(call)` accepts, and
// returns how many were kept; `runtime_kept` counts the runtime calls among them. A call no
// longer subscribed (the subscription was cut back while it ran) will see no exit callback:
// left on the stack, it would make every later driver call on the thread look nested in a
// runtime call, and name the wrong call behind a graph node.
template <typename Subscribed>
int KeepSubscribedCalls(PendingCall* stack, int depth, Subscribed subscribed, int& runtime_kept) {
  int kept = 0;
  runtime_kept = 0;
  for (int k = 0; k < depth; ++k) {
    if (!subscribed(stack[k])) continue;
    runtime_kept += stack[k].runtime ? 1 : 0;
    stack[kept++] = stack[k];
  }
  return kept;
}

}  // namespace streamlab::recorder
