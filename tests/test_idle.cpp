// GPU idle-time attribution: on simulator runs built for each cause, the idle time is
// split between the causes it should be, and the findings name the calls behind them.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

double Share(const Figures& f, IdleCause cause) {
  return f.device_time > 0 ? static_cast<double>(f.idle_by_cause[static_cast<int>(cause)]) / static_cast<double>(f.device_time) : 0;
}

const Finding* IdleFinding(const Analysis& a, IdleCause cause) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kGpuIdle && f.idle == cause) return &f;
  return nullptr;
}

// The run's idle time has `cause`, its longest gap points at `example`, and it is more than
// `min_share` of the device time.
void ExpectCauseWithExample(const Trace& t, IdleCause cause, int example, double min_share) {
  Analysis a = Analyze(t);
  const Finding* finding = IdleFinding(a, cause);
  ASSERT_NE(finding, nullptr) << ToString(cause);
  EXPECT_EQ(finding->because, std::vector<int>{example});
  EXPECT_GT(Share(a.figures, cause), min_share);
}

std::string Summary(const Trace& t, const Analysis& a, const std::string& lang) {
  return FindingTexts::Load(lang).RenderFigures(t, a.figures);
}

// 200 kernels of 2 us, launched one by one: the host (8 us per launch on the simulated
// H200) cannot keep the GPU fed.
TEST(IdleTime, LaunchBoundRunIsNamedWithItsLaunchRate) {
  ScenarioBuilder b("launch-bound");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 200; ++i) s.Launch("k" + std::to_string(i), Spin(Us(2), 1, 128));
  b.host().SyncDevice();
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  const Figures& f = a.figures;
  double idle = static_cast<double>(f.gpu_idle) / static_cast<double>(f.device_time);
  EXPECT_GT(idle, 0.5);
  EXPECT_GT(Share(f, IdleCause::kLaunchBound), 0.9 * idle) << Summary(t, a, "en");
  const Finding* finding = IdleFinding(a, IdleCause::kLaunchBound);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kNote);
  EXPECT_EQ(finding->count, 199);
  EXPECT_NEAR(static_cast<double>(finding->each), static_cast<double>(Us(8)), static_cast<double>(Us(1)));
  EXPECT_LT(finding->op_time, Us(4));
  EXPECT_NE(Summary(t, a, "en").find("launching op by op"), std::string::npos) << Summary(t, a, "en");
  EXPECT_NE(Summary(t, a, "zh").find("逐个启动操作"), std::string::npos);
}

// Kernels, then a pageable upload the host stages for ~2.6 ms, then more kernels: the GPU
// sits idle while the host is inside the copy.
TEST(IdleTime, PageableCopyInTheMiddleIsTheBlockingCall) {
  ScenarioBuilder b("pageable-middle");
  Buffer h = b.PageableBuffer("h", 16 << 20), d = b.DeviceBuffer("d", 16 << 20);
  Stream s = b.CreateStream("s1"), copy = b.CreateStream("copy");
  for (int i = 0; i < 5; ++i) s.Launch("before" + std::to_string(i), Spin(Us(100)));
  int upload = copy.Copy("upload", d, h, 16 << 20);
  for (int i = 0; i < 5; ++i) s.Launch("after" + std::to_string(i), Spin(Us(100)));
  b.host().SyncDevice();
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  const Figures& f = a.figures;
  double idle = static_cast<double>(f.gpu_idle) / static_cast<double>(f.device_time);
  EXPECT_GT(idle, 0.5);
  EXPECT_GT(Share(f, IdleCause::kHostCall), 0.95 * idle);
  const Finding* finding = IdleFinding(a, IdleCause::kHostCall);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->count, 1);
  EXPECT_EQ(finding->because, std::vector<int>{upload});
  EXPECT_NE(FindingTexts::Load("en").Render(t, *finding).find("upload"), std::string::npos);
}

// A loop that reads a result back every step (.item(): a small D2H copy and a stream sync)
// and then does host work: after each sync the GPU has nothing queued.
TEST(IdleTime, HostSyncsStarveTheGpu) {
  ScenarioBuilder b("sync-starved");
  Buffer loss = b.DeviceBuffer("loss", 4), host_loss = b.PageableBuffer("host_loss", 4);
  Stream s = b.CreateStream("s1");
  std::vector<int> syncs;
  for (int step = 0; step < 10; ++step) {
    for (int k = 0; k < 3; ++k) s.Launch("step" + std::to_string(step) + ".k" + std::to_string(k), Spin(Us(50)));
    // The copy into pageable memory waits for the step's kernels (the sync then returns at once).
    syncs.push_back(s.Copy("loss.item() " + std::to_string(step), host_loss, loss, 4));
    syncs.push_back(s.Synchronize());
    b.host().Work("python " + std::to_string(step), Us(30));
  }
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  const Figures& f = a.figures;
  double idle = static_cast<double>(f.gpu_idle) / static_cast<double>(f.device_time);
  EXPECT_GT(idle, 0.15);
  EXPECT_GT(Share(f, IdleCause::kHostSync), 0.8 * idle) << Summary(t, a, "en");
  const Finding* finding = IdleFinding(a, IdleCause::kHostSync);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->count, 9);  // after each sync but the last
  ASSERT_FALSE(finding->because.empty());
  EXPECT_NE(std::find(syncs.begin(), syncs.end(), finding->because.front()), syncs.end());
  EXPECT_NE(Summary(t, a, "en").find("host syncs"), std::string::npos) << Summary(t, a, "en");
}

// A kernel that needs the upload: while only the copy engine works the SMs are idle, and the
// gap is "waiting for a copy", naming the copy.
TEST(IdleTime, KernelWaitingForACopy) {
  ScenarioBuilder b("copy-wait");
  Buffer h = b.PinnedBuffer("h", 64 << 20), d = b.DeviceBuffer("d", 64 << 20);
  Stream s = b.CreateStream("s1");
  s.Launch("first", Spin(Us(50)));
  int upload = s.Copy("upload", d, h, 64 << 20);
  s.Launch("second", Spin(Us(50)));
  ExpectCauseWithExample(Simulate(b.Build()), IdleCause::kCopyWait, upload, 0.8);
}

// Back-to-back kernels on one stream: only the GPU's turnaround, a small share, info only.
TEST(IdleTime, QueuedWorkLeavesOnlyTurnaround) {
  ScenarioBuilder b("queued");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 20; ++i) s.Launch("k" + std::to_string(i), Spin(Us(200)));
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  double idle = static_cast<double>(a.figures.gpu_idle) / static_cast<double>(a.figures.device_time);
  EXPECT_LT(idle, 0.02);
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kGpuIdle) {
      EXPECT_EQ(f.idle, IdleCause::kTurnaround);
      EXPECT_EQ(f.severity, Severity::kInfo);
    }
}

// 200 launches: the start delays and host blocks fold into groups, largest first, and the
// group's header counts them.
TEST(IdleTime, LongRunsFoldIntoGroups) {
  ScenarioBuilder b("many");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
  Event e = b.CreateEvent("e");
  for (int i = 0; i < 100; ++i) {
    s1.Launch("a" + std::to_string(i), Spin(Us(40 + i)));
    s1.Record(e);
    s2.Wait(e);
    s2.Launch("b" + std::to_string(i), Spin(Us(20)));
  }
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  std::vector<FindingGroup> groups = GroupFindings(t, a, false);
  const FindingGroup* waits = nullptr;
  for (const FindingGroup& g : groups)
    if (g.pattern.rfind("start_delay/event_wait/", 0) == 0) waits = &g;
  ASSERT_NE(waits, nullptr);
  EXPECT_GT(waits->members.size(), kGroupShown);
  for (size_t i = 1; i < waits->members.size(); ++i)
    EXPECT_GE(a.findings[waits->members[i - 1]].amount, a.findings[waits->members[i]].amount);
  FindingTexts en = FindingTexts::Load("en");
  std::string header = RenderGroupHeader(en, *waits);
  EXPECT_NE(header.find(std::to_string(waits->members.size()) + " ops started late because of event wait"), std::string::npos) << header;
  EXPECT_NE(RenderGroupMore(en, *waits).find(std::to_string(waits->members.size() - kGroupShown) + " more"), std::string::npos);
}

// The host computes for 500 us between two kernels with nothing queued: its own work.
TEST(IdleTime, HostWorkBetweenKernels) {
  ScenarioBuilder b("host-work");
  Stream s = b.CreateStream("s1");
  s.Launch("k1", Spin(Us(100)));
  int work = b.host().Work("preprocess", Us(500));
  s.Launch("k2", Spin(Us(100)));
  ExpectCauseWithExample(Simulate(b.Build()), IdleCause::kHostWork, work, 0.5);
}

// Lazy loading without a warm-up: a first launch waits for running work, then its module
// loads while the GPU runs nothing.
TEST(IdleTime, ModuleLoadOnFirstLaunch) {
  Trace t = Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/lazy-loading-lazy.json")));
  Analysis a = Analyze(t);
  const Finding* f = IdleFinding(a, IdleCause::kModuleLoad);
  ASSERT_NE(f, nullptr) << Summary(t, a, "en");
  EXPECT_GT(a.figures.idle_by_cause[static_cast<int>(IdleCause::kModuleLoad)], 0);
}

// GPU 1 has run its first kernel and waits for an event recorded after GPU 0's kernel.
TEST(IdleTime, WaitingForAnotherGpu) {
  ScenarioBuilder b("two-gpus", 2);
  Stream s0 = b.CreateStream("s0"), s1 = b.CreateStream("s1", {.device = 1});
  Event done = b.CreateEvent("done", 0);
  int producer = s0.Launch("producer", Spin(Us(800)));
  s0.Record(done);
  s1.Launch("warm", Spin(Us(100)));
  s1.Wait(done);
  s1.Launch("consumer", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  const Finding* f = IdleFinding(a, IdleCause::kOtherDevice);
  ASSERT_NE(f, nullptr) << Summary(t, a, "en");
  EXPECT_EQ(f->because, std::vector<int>{producer});
  EXPECT_EQ(f->marker, 1);  // the device that waited
}

// A queued kernel that started 500 us late with nothing in the trace to hold it (a trace
// edited to say so; the simulator always has a reason): unknown, said as unknown.
TEST(IdleTime, NothingToExplainIsUnknown) {
  ScenarioBuilder b("unknown");
  Stream s = b.CreateStream("s1");
  s.Launch("k1", Spin(Us(100)));
  int late = s.Launch("k2", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  OpRecord& r = t.ops[late];
  r.ready += Us(500);
  r.start += Us(500);
  r.end += Us(500);
  r.blocks.clear();
  Analysis a = Analyze(t);
  const Finding* f = IdleFinding(a, IdleCause::kUnknown);
  ASSERT_NE(f, nullptr) << Summary(t, a, "en");
  EXPECT_EQ(f->because, std::vector<int>{late});
  EXPECT_NE(FindingTexts::Load("en").Render(t, *f).find("does not explain"), std::string::npos);
}

// Real runs on an H100 (examples/pytorch/, scripts/gpu_idle_examples.sh). The profiled loop
// of item_every_step.py: GPU-bound steps, each ending in loss.item() and 1 ms of Python.
TEST(IdleTime, ItemEveryStepOnTheRealGpuIsHostSyncs) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/item_every_step.json"));
  Analysis a = Analyze(t);
  double idle = static_cast<double>(a.figures.gpu_idle) / static_cast<double>(a.figures.device_time);
  EXPECT_GT(idle, 0.15);
  EXPECT_GT(Share(a.figures, IdleCause::kHostSync), 0.8 * idle) << Summary(t, a, "en");
  const Finding* syncs = IdleFinding(a, IdleCause::kHostSync);
  ASSERT_NE(syncs, nullptr);
  EXPECT_GE(syncs->count, 19);
  EXPECT_EQ(t.scenario.ops[syncs->because.front()].kind, OpKind::kSyncStream);
}

// The recording covers the whole program (startup included); its 20 .item() syncs are found.
TEST(IdleTime, ItemEveryStepRecordingFindsEachSync) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/item_every_step.json"));
  Analysis a = Analyze(t);
  const Finding* syncs = IdleFinding(a, IdleCause::kHostSync);
  ASSERT_NE(syncs, nullptr);
  EXPECT_EQ(syncs->count, 20);
  EXPECT_GT(syncs->amount, Ms(15));
}

// 200 in-place multiplies on 256 floats, torch.profiler around the loop: launch-bound.
TEST(IdleTime, LaunchBoundOnTheRealGpu) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/launch_bound.json"));
  Analysis a = Analyze(t);
  double idle = static_cast<double>(a.figures.gpu_idle) / static_cast<double>(a.figures.device_time);
  EXPECT_GT(idle, 0.8);
  EXPECT_GT(Share(a.figures, IdleCause::kLaunchBound), 0.85 * idle) << Summary(t, a, "en");
  const Finding* launches = IdleFinding(a, IdleCause::kLaunchBound);
  ASSERT_NE(launches, nullptr);
  EXPECT_GT(launches->each, Us(5));
  EXPECT_LT(launches->each, Us(50));
}

}  // namespace
}  // namespace streamlab
