// PyTorch patterns: cudaMalloc in the middle of a run, and hidden host syncs (a small read
// from the GPU the host waits for), on simulator runs and on H100 runs of
// examples/pytorch/item_every_step.py.
#include <gtest/gtest.h>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

// Copies, so a finding outlives the Analysis it came from.
std::vector<Finding> OfKind(const Analysis& a, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding* f : testing::FindingsOfKind(a, kind)) out.push_back(*f);
  return out;
}

TEST(Patterns, MallocBetweenKernelsIsFlaggedNotOneBefore) {
  ScenarioBuilder b("malloc-mid-run");
  Buffer early = b.DeviceBuffer("early", 1 << 20), late = b.DeviceBuffer("late", 64 << 20);
  Stream s = b.CreateStream("s1");
  b.host().Malloc(early);
  s.Launch("k1", Spin(Us(100)));
  int grow = b.host().Malloc(late);
  s.Launch("k2", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  std::vector<Finding> found = OfKind(Analyze(t), FindingKind::kMallocMidRun);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].op, grow);
  EXPECT_EQ(found[0].count, 1);
  EXPECT_GT(found[0].amount, Us(100));  // 64 MB: ~160 us on the simulated H200
  for (const char* lang : {"en", "zh"})
    EXPECT_EQ(FindingTexts::Load(lang).Render(t, found[0]).find('{'), std::string::npos);
}

TEST(Patterns, ItemEveryStepIsAHiddenSyncOnTheSimulator) {
  ScenarioBuilder b("item");
  Buffer loss = b.DeviceBuffer("loss", 4), host_loss = b.PageableBuffer("host_loss", 4);
  Buffer big = b.DeviceBuffer("big", 64 << 20), host_big = b.PinnedBuffer("host_big", 64 << 20);
  Stream s = b.CreateStream("s1");
  for (int step = 0; step < 5; ++step) {
    s.Launch("step" + std::to_string(step), Spin(Us(200)));
    s.Copy("loss.item()", host_loss, loss, 4);
  }
  s.Copy("checkpoint", host_big, big, 64 << 20);  // a large read is not a hidden sync
  s.Synchronize();
  Trace t = Simulate(b.Build());
  std::vector<Finding> found = OfKind(Analyze(t), FindingKind::kHiddenSync);
  ASSERT_EQ(found.size(), 5u);
  for (const Finding& f : found) {
    EXPECT_EQ(t.scenario.ops[f.op].name, "loss.item()");
    EXPECT_GT(f.amount, Us(150));  // it waited for the step's kernel
    EXPECT_NE(FindingTexts::Load("en").Render(t, f).find(".item()"), std::string::npos);
  }
}

TEST(Patterns, ItemEveryStepOnTheRealGpu) {
  for (const char* file : {"tests/fixtures/recorded/item_every_step.json", "tests/fixtures/kineto/item_every_step.json"}) {
    Trace t = LoadTraceFile(testing::SourcePath(file));
    std::vector<Finding> found = OfKind(Analyze(t), FindingKind::kHiddenSync);
    // 20 steps in the loop (the Kineto trace holds the loop only; the recording also the
    // first step before it).
    EXPECT_GE(found.size(), 20u) << file;
    EXPECT_LE(found.size(), 21u) << file;
    for (const Finding& f : found) {
      EXPECT_EQ(t.scenario.ops[f.op].bytes, 4u) << file;
      ASSERT_EQ(f.because.size(), 1u);
      // The host waited in the stream sync, or already in the copy into pageable memory.
      EXPECT_TRUE(f.because.front() == f.op || t.scenario.ops[f.because.front()].kind == OpKind::kSyncStream) << file;
    }
  }
}

}  // namespace
}  // namespace streamlab
