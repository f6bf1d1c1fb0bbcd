// Every row of shared/GPU-FACTS.md's table, as a scenario file in scenarios/gpu-facts/,
// must come out of the simulator with the orderings the H200 showed.
#include <gtest/gtest.h>

#include "engine/scenario_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Trace RunFact(const std::string& name) {
  return testing::Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/" + name + ".json")));
}

const OpRecord& K(const Trace& t, const char* name) { return OpNamed(t, name); }

const OpRecord& OpOfKind(const Trace& t, OpKind kind) {
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.scenario.ops[i].kind == kind) return t.ops[i];
  throw std::runtime_error("no such op");
}

TEST(GpuFacts, TwoBlockingStreamsOverlap) {
  Trace t = RunFact("two-blocking-streams");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_s2")), 0.95);
  EXPECT_LT(K(t, "k_s2").start - K(t, "k_s1").start, Us(15));
}

TEST(GpuFacts, LegacyBetweenBlockingIsSerial) {
  Trace t = RunFact("legacy-between-blocking");
  EXPECT_GE(K(t, "k_legacy").start, K(t, "k_s1").end);
  EXPECT_GE(K(t, "k_s2").start, K(t, "k_legacy").end);
}

TEST(GpuFacts, LegacyBetweenNonBlockingOverlaps) {
  Trace t = RunFact("legacy-between-non-blocking");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_legacy")), 0.95);
  EXPECT_GT(OverlapFraction(K(t, "k_legacy"), K(t, "k_s2")), 0.95);
}

TEST(GpuFacts, PerThreadBetweenBlockingOverlaps) {
  Trace t = RunFact("per-thread-between-blocking");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_pt")), 0.95);
  EXPECT_GT(OverlapFraction(K(t, "k_pt"), K(t, "k_s2")), 0.95);
}

TEST(GpuFacts, MallocDelaysOnlyBySubmission) {
  Trace t = RunFact("malloc-between");
  const OpRecord& m = OpOfKind(t, OpKind::kMalloc);
  EXPECT_GT(HostCallTime(m), Us(100));
  EXPECT_GE(K(t, "k_s2").start, m.ret);                 // late: submitted after the malloc
  EXPECT_LT(K(t, "k_s2").start, K(t, "k_s1").end);      // but not ordered after k_s1
}

TEST(GpuFacts, FreeBlocksHostUntilDeviceIdle) {
  Trace t = RunFact("free-between");
  const OpRecord& f = OpOfKind(t, OpKind::kFree);
  EXPECT_GT(HostCallTime(f), Us(900));                  // GPU-FACTS: 1134 us
  EXPECT_GE(K(t, "k_s2").start, K(t, "k_s1").end);
}

TEST(GpuFacts, MemsetReturnsButLegacyBarrierOrders) {
  Trace t = RunFact("memset-between");
  EXPECT_LT(HostCallTime(OpOfKind(t, OpKind::kMemset)), Us(20));  // GPU-FACTS: 9 us
  EXPECT_GE(K(t, "k_s2").start, K(t, "k_s1").end);
}

TEST(GpuFacts, PageableCopyBlocksHostPinnedOverlaps) {
  Trace pageable = RunFact("pageable-copy-between");
  Trace pinned = RunFact("pinned-copy-between");
  const OpRecord& pc = OpOfKind(pageable, OpKind::kMemcpy);
  const OpRecord& qc = OpOfKind(pinned, OpKind::kMemcpy);
  EXPECT_GT(HostCallTime(pc), Ms(8));                    // GPU-FACTS: 9.7 ms
  EXPECT_LT(HostCallTime(qc), Us(30));                   // GPU-FACTS: 20 us
  EXPECT_GE(K(pageable, "k_s2").start, pc.ret);
  EXPECT_GT(OverlapFraction(K(pinned, "k_s1"), K(pinned, "k_s2")), 0.95);
  // Bandwidth ordering: pinned ~10x faster.
  EXPECT_GT(pc.end - pc.start, 5 * (qc.end - qc.start));
}

TEST(GpuFacts, WaitOnEmptyRecordDoesNotWait) {
  Trace t = RunFact("wait-on-empty-record");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_s2")), 0.95);
}

TEST(GpuFacts, PriorityActsOnPendingBlocksOnly) {
  Trace high = RunFact("priority-pending-high"), same = RunFact("priority-pending-same");
  EXPECT_NEAR(static_cast<double>(K(high, "late").start), 352e3, 25e3);
  EXPECT_NEAR(static_cast<double>(K(same, "late").start), 1004e3, 25e3);
  Trace rhigh = RunFact("priority-resident-high"), rsame = RunFact("priority-resident-same");
  EXPECT_EQ(K(rhigh, "late").start, K(rsame, "late").start);
  EXPECT_NEAR(static_cast<double>(K(rhigh, "late").start), 400.6e3, 25e3);
}

TEST(GpuFacts, HardwareQueuesOrdering) {
  TimeNs one = GpuMakespan(RunFact("hardware-queues-1"));
  TimeNs eight = GpuMakespan(RunFact("hardware-queues-8"));
  TimeNs all = GpuMakespan(RunFact("hardware-queues-32"));
  EXPECT_GT(one, eight);
  EXPECT_GT(eight, all);
  EXPECT_NEAR(static_cast<double>(one), 33e6, 1e6);  // (n + 1) x kernel time
}

TEST(GpuFacts, LazyLoadingCostsAboutOneKernelTime) {
  TimeNs lazy = GpuMakespan(RunFact("lazy-loading-lazy"));
  TimeNs eager = GpuMakespan(RunFact("lazy-loading-eager"));
  EXPECT_NEAR(static_cast<double>(lazy - eager), 1e6, 0.2e6);
}

}  // namespace
}  // namespace streamlab
