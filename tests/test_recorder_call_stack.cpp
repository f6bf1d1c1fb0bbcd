// The recorder's per-thread stack of calls in progress (kernels/recorder/call_stack.h): when
// the subscription is cut back (a graph capture before a capture range closed), the calls
// whose exit will never come are forgotten, and only those.
#include <gtest/gtest.h>

#include <set>

#include "kernels/recorder/call_stack.h"

namespace streamlab::recorder {
namespace {

TEST(RecorderCallStack, ForgetsOnlyTheCallsNoLongerSubscribed) {
  // Outermost first: a runtime call still subscribed (id 10) and the driver call inside it
  // (20); then a runtime launch (30) and its driver launch (40), which the cut-back dropped.
  PendingCall stack[16] = {{100, 1, true, 10}, {0, 2, false, 20}, {300, 3, true, 30}, {0, 4, false, 40}};
  std::set<uint32_t> still{10, 20};
  int runtime = -1;
  int depth = KeepSubscribedCalls(stack, 4, [&](const PendingCall& c) { return still.count(c.id) > 0; }, runtime);
  ASSERT_EQ(depth, 2);
  EXPECT_EQ(runtime, 1);  // the next driver call is nested in the runtime call still open
  EXPECT_EQ(stack[0].correlation, 1u);
  EXPECT_EQ(stack[1].correlation, 2u);  // order kept: the outer call stays first
  EXPECT_EQ(stack[1].begin, 0u);

  // All lost: nothing is nested any more, so the thread's next driver call is its own op.
  depth = KeepSubscribedCalls(stack, depth, [](const PendingCall&) { return false; }, runtime);
  EXPECT_EQ(depth, 0);
  EXPECT_EQ(runtime, 0);
}

TEST(RecorderCallStack, KeepsTheOrderOfWhatStays) {
  PendingCall stack[16] = {{1, 1, true, 1}, {2, 2, false, 2}, {3, 3, true, 3}, {4, 4, false, 4}, {5, 5, true, 5}};
  int runtime = 0;
  int depth = KeepSubscribedCalls(stack, 5, [](const PendingCall& c) { return c.id % 2 == 1; }, runtime);
  ASSERT_EQ(depth, 3);
  EXPECT_EQ(runtime, 3);
  EXPECT_EQ(stack[0].id, 1u);
  EXPECT_EQ(stack[1].id, 3u);
  EXPECT_EQ(stack[2].id, 5u);
}

}  // namespace
}  // namespace streamlab::recorder
