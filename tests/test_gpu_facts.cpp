// Every row of shared/GPU-FACTS.md's table, as a scenario file in scenarios/gpu-facts/,
// checked on the simulator and on the real-GPU traces of the same files in
// tests/fixtures/gpu-facts/ (captured with `streamlab-cli run FILE --backend cuda --out`).
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

class GpuFacts : public ::testing::TestWithParam<std::string> {
 protected:
  std::optional<Trace> Fact(const std::string& name) const {
    if (GetParam() == "sim")
      return testing::Simulate(
          LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/" + name + ".json")));
    std::string path = testing::SourcePath("tests/fixtures/gpu-facts/" + name + ".json.xz");
    if (!std::filesystem::exists(path)) return std::nullopt;
    return LoadTraceFile(path);
  }
};

// Loads fact NAME into `t`, or skips the test when there is no GPU trace of it.
#define FACT(t, name)                                                   \
  std::optional<Trace> t##_opt = Fact(name);                            \
  if (!t##_opt) GTEST_SKIP() << "no GPU trace of " << name;             \
  const Trace& t = *t##_opt

const OpRecord& K(const Trace& t, const char* name) { return OpNamed(t, name); }

const OpRecord& OpOfKind(const Trace& t, OpKind kind) {
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.scenario.ops[i].kind == kind) return t.ops[i];
  throw std::runtime_error("no such op");
}

// "a happened at or after b", allowing for the trace's clock alignment error.
bool AtOrAfter(const Trace& t, TimeNs a, TimeNs b) { return a >= b - t.clock_error - Us(1); }

TEST_P(GpuFacts, TwoBlockingStreamsOverlap) {
  FACT(t, "two-blocking-streams");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_s2")), 0.95);
  EXPECT_LT(K(t, "k_s2").start - K(t, "k_s1").start, Us(25));  // launch latency only
}

TEST_P(GpuFacts, LegacyBetweenBlockingIsSerial) {
  FACT(t, "legacy-between-blocking");
  EXPECT_TRUE(AtOrAfter(t, K(t, "k_legacy").start, K(t, "k_s1").end));
  EXPECT_TRUE(AtOrAfter(t, K(t, "k_s2").start, K(t, "k_legacy").end));
}

TEST_P(GpuFacts, LegacyBetweenNonBlockingOverlaps) {
  FACT(t, "legacy-between-non-blocking");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_legacy")), 0.95);
  EXPECT_GT(OverlapFraction(K(t, "k_legacy"), K(t, "k_s2")), 0.95);
}

TEST_P(GpuFacts, PerThreadBetweenBlockingOverlaps) {
  FACT(t, "per-thread-between-blocking");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_pt")), 0.95);
  EXPECT_GT(OverlapFraction(K(t, "k_pt"), K(t, "k_s2")), 0.95);
}

TEST_P(GpuFacts, MallocDelaysOnlyBySubmission) {
  FACT(t, "malloc-between");
  const OpRecord& m = OpOfKind(t, OpKind::kMalloc);
  EXPECT_GT(HostCallTime(m), Us(20));  // GPU-FACTS: 161 us; 53 us seen on a later H200 run
  EXPECT_TRUE(AtOrAfter(t, K(t, "k_s2").start, m.ret));  // late: submitted after the malloc
  EXPECT_LT(K(t, "k_s2").start, K(t, "k_s1").end);       // but not ordered after k_s1
}

TEST_P(GpuFacts, FreeBlocksHostUntilDeviceIdle) {
  FACT(t, "free-between");
  const OpRecord& f = OpOfKind(t, OpKind::kFree);
  EXPECT_GT(HostCallTime(f), Us(900));  // GPU-FACTS: 1134 us
  EXPECT_TRUE(AtOrAfter(t, K(t, "k_s2").start, K(t, "k_s1").end));
}

TEST_P(GpuFacts, MemsetReturnsButLegacyBarrierOrders) {
  FACT(t, "memset-between");
  EXPECT_LT(HostCallTime(OpOfKind(t, OpKind::kMemset)), Us(50));  // GPU-FACTS: 9 us
  EXPECT_TRUE(AtOrAfter(t, K(t, "k_s2").start, K(t, "k_s1").end));
}

TEST_P(GpuFacts, PageableCopyBlocksHostPinnedOverlaps) {
  FACT(pageable, "pageable-copy-between");
  FACT(pinned, "pinned-copy-between");
  const OpRecord& pc = OpOfKind(pageable, OpKind::kMemcpy);
  const OpRecord& qc = OpOfKind(pinned, OpKind::kMemcpy);
  EXPECT_GT(HostCallTime(pc), Ms(4));   // GPU-FACTS: 9.7 ms
  EXPECT_LT(HostCallTime(qc), Us(50));  // GPU-FACTS: 20 us
  EXPECT_TRUE(AtOrAfter(pageable, K(pageable, "k_s2").start, pc.ret));
  EXPECT_GT(OverlapFraction(K(pinned, "k_s1"), K(pinned, "k_s2")), 0.95);
  EXPECT_GT(pc.end - pc.start, 3 * (qc.end - qc.start));  // pinned is several times faster
}

TEST_P(GpuFacts, WaitOnEmptyRecordDoesNotWait) {
  FACT(t, "wait-on-empty-record");
  EXPECT_GT(OverlapFraction(K(t, "k_s1"), K(t, "k_s2")), 0.95);
}

TEST_P(GpuFacts, PriorityActsOnPendingBlocksOnly) {
  FACT(high, "priority-pending-high");
  FACT(same, "priority-pending-same");
  TimeNs flood_start = K(high, "flood").start;
  // High priority gets the next wave's blocks; same priority waits for the whole flood.
  EXPECT_LT(K(high, "late").start - K(high, "late").ready, Us(100));
  EXPECT_TRUE(AtOrAfter(same, K(same, "late").start, K(same, "flood").end - Us(60)));
  EXPECT_GT(K(high, "flood").end - flood_start, K(same, "flood").end - K(same, "flood").start + Us(30));
  FACT(rhigh, "priority-resident-high");
  FACT(rsame, "priority-resident-same");
  EXPECT_TRUE(AtOrAfter(rhigh, K(rhigh, "late").start, K(rhigh, "flood").end - Us(5)));
  EXPECT_TRUE(AtOrAfter(rsame, K(rsame, "late").start, K(rsame, "flood").end - Us(5)));
}

TEST_P(GpuFacts, HardwareQueuesOrdering) {
  FACT(one, "hardware-queues-1");
  FACT(eight, "hardware-queues-8");
  FACT(all, "hardware-queues-32");
  EXPECT_GT(GpuMakespan(one), GpuMakespan(eight));
  EXPECT_GT(GpuMakespan(eight), GpuMakespan(all) + Ms(1));
  EXPECT_NEAR(static_cast<double>(GpuMakespan(one)), 33e6, 1.5e6);  // (n + 1) x kernel time
}

TEST_P(GpuFacts, LazyLoadingCostsAboutOneKernelTime) {
  FACT(lazy, "lazy-loading-lazy");
  FACT(eager, "lazy-loading-eager");
  EXPECT_NEAR(static_cast<double>(GpuMakespan(lazy) - GpuMakespan(eager)), 1e6, 0.3e6);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuFacts, ::testing::Values("sim", "gpu"));

}  // namespace
}  // namespace streamlab
