// Group headers say true totals: ops queued on one stream wait at the same time, so a
// group's "in all" counts overlapping waits once; an unexplained delay, a wait whose record
// an import does not know, and a long name list each read as what they are.
#include <gtest/gtest.h>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/ingest/kineto.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

const FindingGroup* GroupOf(const std::vector<FindingGroup>& groups, const std::string& prefix) {
  for (const FindingGroup& g : groups)
    if (g.pattern.rfind(prefix, 0) == 0) return &g;
  return nullptr;
}

// Twenty 100 us kernels submitted at once on one stream: the k-th waits k x 100 us, so the
// waits add up to 19 ms of a 2 ms run; at least one was waiting for about 1.9 ms.
TEST(FindingGroups, QueuedWaitsAreCountedOnce) {
  ScenarioBuilder b("queue");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 20; ++i) s.Launch("k" + std::to_string(i), Spin(Us(100)));
  Trace t = testing::Simulate(b.Build());
  Analysis a = Analyze(t);
  std::vector<FindingGroup> groups = GroupFindings(t, a, false);
  const FindingGroup* order = GroupOf(groups, "start_delay/stream_order/");
  ASSERT_NE(order, nullptr);
  ASSERT_GE(order->members.size(), 15u);
  TimeNs sum = 0, makespan = 0;
  for (int m : order->members) sum += a.findings[m].amount;
  for (const OpRecord& r : t.ops) makespan = std::max(makespan, r.end);
  EXPECT_GT(sum, 5 * makespan);     // what the header used to say
  EXPECT_LE(order->total, makespan);  // what it says now
  EXPECT_GT(order->total, makespan / 2);
  std::string header = RenderGroupHeader(FindingTexts::Load("en"), *order);
  EXPECT_NE(header.find("overlapping waits counted once"), std::string::npos) << header;
}

// A Kineto wait whose record's stream the trace does not give, and a kernel that started
// long after anything in the trace let it go (its launch is there, the reason is not).
std::string KinetoWaitAndLateKernel() {
  return R"j({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":1,"tid":1,"ts":100,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","pid":1,"tid":1,"ts":110,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":7,"ts":111,"dur":0,
     "args":{"stream":7,"correlation":2,"wait_on_cuda_event_id":3,"wait_on_cuda_event_record_corr_id":-1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":130,"dur":10,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":5,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":50000,"dur":10,"args":{"stream":7,"correlation":4}},
    {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":60000,"dur":10,"args":{"stream":7,"correlation":99}}
  ]})j";
}

TEST(FindingGroups, ImportedTracesSayWhatTheyDoNotKnow) {
  Trace t = TraceFromKineto(KinetoWaitAndLateKernel(), "k.json");
  Analysis a = Analyze(t);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  std::vector<FindingGroup> groups = GroupFindings(t, a, false);

  const FindingGroup* unknown_record = GroupOf(groups, "wait_captured_nothing/record_unknown/");
  ASSERT_NE(unknown_record, nullptr);
  std::string header = RenderGroupHeader(en, *unknown_record);
  EXPECT_NE(header.find("cannot be told"), std::string::npos) << header;
  EXPECT_EQ(header.find("captured no work"), std::string::npos) << header;  // not stated as a fact
  EXPECT_NE(RenderGroupHeader(zh, *unknown_record).find("无法判断"), std::string::npos);

  const FindingGroup* late = GroupOf(groups, "start_delay/unexplained/");
  ASSERT_NE(late, nullptr);
  header = RenderGroupHeader(en, *late);
  EXPECT_NE(header.find("for a reason the trace does not record"), std::string::npos) << header;
  EXPECT_EQ(header.find("because of unknown"), std::string::npos) << header;

  // The orphan kernel (no launch in the trace) is left out, and a note says so.
  EXPECT_EQ(testing::GpuOpsNamed(t, "orphan").size(), 0u);
  bool noted = false;
  for (const TraceNote& note : t.notes) noted |= note.text.rfind("1 GPU records (kernels, copies, memsets) have no API call", 0) == 0;
  EXPECT_TRUE(noted);

  // Mostly idle: no "speed-up" below 1x.
  std::string figures = en.RenderFigures(t, a.figures);
  EXPECT_EQ(figures.find("speed-up 0."), std::string::npos) << figures;
  EXPECT_NE(figures.find("the GPU waited longer than its streams overlapped"), std::string::npos) << figures;
}

// "waited for: a, b, c, d and 3 more", not "... and 3".
TEST(FindingGroups, LongNameListsSayHowManyMore) {
  ScenarioBuilder b("many");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 7; ++i) s.Launch("k" + std::to_string(i), Spin(Us(50)));
  b.host().SyncDevice();
  Trace t = testing::Simulate(b.Build());
  Analysis a = Analyze(t);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  bool seen = false;
  for (const Finding& f : a.findings) {
    std::string text = en.Render(t, f);
    if (text.find("waited for:") == std::string::npos) continue;
    seen = true;
    EXPECT_NE(text.find(" and 3 more)"), std::string::npos) << text;
    EXPECT_NE(zh.Render(t, f).find("等另外 3 个"), std::string::npos) << zh.Render(t, f);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace streamlab
