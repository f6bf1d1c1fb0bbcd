// The analyzer names the right cause and the right ops, on small scenarios built for each
// cause and detector, and on the real-GPU traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

int OpId(const Trace& t, const std::string& name) {
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

// Copies, so a finding outlives the Analysis it came from.
std::optional<Finding> Find(const Analysis& a, FindingKind kind, int op) {
  for (const Finding& f : a.findings)
    if (f.kind == kind && f.op == op) return f;
  return std::nullopt;
}

Finding Delay(const Analysis& a, const Trace& t, const std::string& name) {
  std::optional<Finding> f = Find(a, FindingKind::kStartDelay, OpId(t, name));
  if (!f) throw std::runtime_error("no start-delay finding for " + name);
  return *f;
}

TEST(Analyzer, PromptStartHasNoCause) {
  ScenarioBuilder b("prompt");
  b.CreateStream("s1").Launch("k", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  EXPECT_EQ(Delay(Analyze(t), t, "k").cause, Cause::kPrompt);
}

TEST(Analyzer, StreamOrderNamesThePredecessor) {
  ScenarioBuilder b("fifo");
  Stream s = b.CreateStream("s1");
  s.Launch("a", Spin(Us(300)));
  s.Launch("b", Spin(Us(300)));
  Trace t = Simulate(b.Build());
  const Finding f = Delay(Analyze(t), t, "b");
  EXPECT_EQ(f.cause, Cause::kStreamOrder);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "a")});
}

TEST(Analyzer, EventWaitNamesTheProducerAndTheWait) {
  const Lab& lab = FindLab("w2-event-chain");
  Trace t = Simulate(lab.build(ResolveLabArgs(lab, "chain", {})));
  Analysis a = Analyze(t);
  const Finding f = Delay(a, t, "stage2");
  EXPECT_EQ(f.cause, Cause::kEventWait);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "stage1")});
  ASSERT_GE(f.marker, 0);
  EXPECT_EQ(t.scenario.ops[f.marker].kind, OpKind::kWaitEvent);
  EXPECT_EQ(Delay(a, t, "stage3").because, std::vector<int>{OpId(t, "stage2")});
}

TEST(Analyzer, WaitStreamNamesTheCapturedWork) {
  ScenarioBuilder b("wait-stream");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
  s1.Launch("producer", Spin(Us(300)));
  s2.WaitStream(s1);
  s2.Launch("consumer", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  const Finding f = Delay(Analyze(t), t, "consumer");
  EXPECT_EQ(f.cause, Cause::kWaitStream);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "producer")});
}

void ExpectLegacyStory(const Trace& t) {
  Analysis a = Analyze(t);
  const Finding mid = Delay(a, t, "k_default");
  EXPECT_EQ(mid.cause, Cause::kLegacyBarrier);
  EXPECT_EQ(mid.because, std::vector<int>{OpId(t, "k_s1")});
  const Finding last = Delay(a, t, "k_s2");
  EXPECT_EQ(last.cause, Cause::kLegacyBarrier);
  EXPECT_EQ(last.because, std::vector<int>{OpId(t, "k_default")});
  std::optional<Finding> legacy = Find(a, FindingKind::kLegacyNextToBlocking, OpId(t, "k_default"));
  ASSERT_TRUE(legacy.has_value());
  // One barrier, one warning: the summary warns (with its remedy), each delay it caused is a note.
  EXPECT_EQ(legacy->severity, Severity::kWarning);
  EXPECT_EQ(mid.severity, Severity::kNote);
  EXPECT_EQ(last.severity, Severity::kNote);
  EXPECT_EQ(a.figures.critical_path,
            (std::vector<int>{OpId(t, "k_s1"), OpId(t, "k_default"), OpId(t, "k_s2")}));
}

TEST(Analyzer, LegacyStallOnTheSimulator) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  ExpectLegacyStory(Simulate(lab.build(ResolveLabArgs(lab, "legacy", {}))));
}

// The critical path goes on through the host: K2 started as soon as it was submitted, and the
// host submitted it 2 ms after its device sync returned, which waited for K1.
TEST(Analyzer, CriticalPathCrossesTheHostThroughItsSync) {
  ScenarioBuilder b("sync then host work");
  Stream s = b.CreateStream("s1");
  s.Launch("K1", Spin(Us(1000)));
  int sync = b.host().SyncDevice();
  b.host().Work("prepare", Us(2000));
  s.Launch("K2", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  EXPECT_EQ(a.figures.critical_path, (std::vector<int>{OpId(t, "K1"), sync, OpId(t, "K2")}));
  ASSERT_EQ(a.figures.critical_host.size(), 1u);
  EXPECT_EQ(a.figures.critical_host[0].before, OpId(t, "K2"));
  EXPECT_NEAR(static_cast<double>(a.figures.critical_host[0].length), 2e6, 0.05e6);
  std::string text = FindingTexts::Load("en").RenderFigures(t, a.figures);
  EXPECT_NE(text.find("K1 -> "), std::string::npos) << text;
  EXPECT_NE(text.find("-> host, 2.0"), std::string::npos) << text;
}

// Idle for less than rounds to 1 %: the line says "under 0.5%", never "0%: many short gaps".
TEST(Analyzer, ATinyIdleShareIsNotCalledZero) {
  Figures fig;
  fig.device_time = Ms(10);
  fig.gpu_idle = Us(20);  // 0.2 %, in gaps too short to name
  for (const char* lang : {"en", "zh"}) {
    std::string text = FindingTexts::Load(lang).RenderFigures(Trace{}, fig);
    std::string line = text.substr(text.find('\n') + 1);
    line = line.substr(0, line.find('\n'));
    EXPECT_EQ(line.find(" 0%"), std::string::npos) << line;
    EXPECT_EQ(line.find("）0%"), std::string::npos) << line;
    EXPECT_NE(line.find("0.5%"), std::string::npos) << line;
  }
  fig.gpu_idle = Us(300);  // 3 %: the share itself
  EXPECT_NE(FindingTexts::Load("en").RenderFigures(Trace{}, fig).find("idle over the whole run (no kernel running) 3%"),
            std::string::npos);
}

// Another thread submitted the last op after the main thread's sync (as PyTorch's autograd
// thread does): the path goes through that sync, and says the link between threads is inferred.
TEST(Analyzer, CriticalPathAcrossThreadsSaysTheLinkIsInferred) {
  ScenarioBuilder b("two threads");
  Stream s1 = b.CreateStream("s1");
  Stream s2 = b.CreateStream("s2");
  s1.Launch("K1", Spin(Us(500)));
  int sync = b.host().SyncDevice();
  b.OnThread(1);
  b.host().Work("autograd", Us(2000));
  s2.Launch("K2", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  EXPECT_EQ(a.figures.critical_path, (std::vector<int>{OpId(t, "K1"), sync, OpId(t, "K2")}));
  ASSERT_EQ(a.figures.critical_host.size(), 1u);
  EXPECT_EQ(a.figures.critical_host[0].thread, 1);
  EXPECT_EQ(a.figures.critical_host[0].from_thread, 0);
  std::string text = FindingTexts::Load("en").RenderFigures(t, a.figures);
  EXPECT_NE(text.find("-> host 1, 1.5"), std::string::npos) << text;
  EXPECT_NE(text.find("after host's call until it submitted the next op"), std::string::npos) << text;
  EXPECT_NE(text.find("that it waited for host is inferred"), std::string::npos) << text;
}

// Launched op by op with host work between: the last kernel started on its submission, and the
// host's pace is nearly the whole path; a GPU-bound chain has no host stretch worth naming.
TEST(Analyzer, CriticalPathNamesTheHostWhenItSetsThePace) {
  ScenarioBuilder b("launch-bound");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 20; ++i) {
    b.host().Work("python " + std::to_string(i), Us(50));
    s.Launch("k" + std::to_string(i), Spin(Us(5)));
  }
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  EXPECT_EQ(a.figures.critical_path, std::vector<int>{OpId(t, "k19")});
  ASSERT_EQ(a.figures.critical_host.size(), 1u);
  EXPECT_GT(a.figures.critical_host[0].length * 10, a.figures.critical_span * 9);
  std::string text = FindingTexts::Load("en").RenderFigures(t, a.figures);
  EXPECT_NE(text.find("Critical path: host, "), std::string::npos) << text;
  EXPECT_NE(text.find("until it submitted the next op"), std::string::npos) << text;

  ScenarioBuilder g("gpu-bound");
  Stream s1 = g.CreateStream("s1");
  for (int i = 0; i < 5; ++i) s1.Launch("k" + std::to_string(i), Spin(Us(300)));
  Trace gt = Simulate(g.Build());
  Analysis ga = Analyze(gt);
  EXPECT_EQ(ga.figures.critical_path.size(), 5u);
  std::string gpu_text = FindingTexts::Load("en").RenderFigures(gt, ga.figures);
  EXPECT_EQ(gpu_text.find("until it submitted"), std::string::npos) << gpu_text;
}

// A long path shows its ends; "... N more ops ..." counts the ops left out, not the host
// stretches left out with them.
TEST(Analyzer, ALongCriticalPathCountsTheOpsItLeavesOut) {
  ScenarioBuilder b("chain");
  Stream s = b.CreateStream("s1");
  for (int i = 0; i < 20; ++i) s.Launch("k" + std::to_string(i), Spin(Us(100)));
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  ASSERT_EQ(a.figures.critical_path.size(), 20u);
  FindingTexts en = FindingTexts::Load("en");
  EXPECT_NE(en.RenderFigures(t, a.figures).find("... 8 more ops ..."), std::string::npos);
  Figures::HostStretch middle;
  middle.before = a.figures.critical_path[10], middle.length = a.figures.critical_span / 2;
  a.figures.critical_host = {middle};
  std::string text = en.RenderFigures(t, a.figures);
  EXPECT_NE(text.find("... 8 more ops ..."), std::string::npos) << text;
}

TEST(Analyzer, LegacyStallOnTheRealGpu) {
  ExpectLegacyStory(LoadTraceFile(testing::SourcePath("tests/fixtures/gpu/w2-legacy-default-stall.legacy.json")));
}

TEST(Analyzer, NonBlockingVariantReportsOverlapNotAStall) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  for (const char* variant : {"non-blocking", "per-thread"}) {
    Trace t = Simulate(lab.build(ResolveLabArgs(lab, variant, {})));
    Analysis a = Analyze(t);
    EXPECT_EQ(Delay(a, t, "k_default").cause, Cause::kPrompt) << variant;
    EXPECT_EQ(Delay(a, t, "k_s2").cause, Cause::kPrompt) << variant;
    int overlaps = 0;
    for (const Finding& f : a.findings) overlaps += f.kind == FindingKind::kOverlap;
    EXPECT_EQ(overlaps, 3) << variant;  // s1/middle, s1/s2, middle/s2
    EXPECT_GT(a.figures.speedup, 2.8);
  }
}

TEST(Analyzer, HostLateNamesTheBlockingCall) {
  Trace t = Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/pageable-copy-between.json")));
  Analysis a = Analyze(t);
  const Finding f = Delay(a, t, "k_s2");
  EXPECT_EQ(f.cause, Cause::kHostLate);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "H2D pageable 64MB")});
  EXPECT_TRUE(Find(a, FindingKind::kPageableAsyncCopy, OpId(t, "H2D pageable 64MB")).has_value());
}

TEST(Analyzer, BusySmsNamesTheKernelsHoldingThem) {
  ScenarioBuilder b("full");
  b.CreateStream("s1").Launch("big", Spin(Us(200), 264, 1024));
  b.CreateStream("s2").Launch("next", Spin(Us(100), 264, 1024));
  Trace t = Simulate(b.Build());
  const Finding f = Delay(Analyze(t), t, "next");
  EXPECT_EQ(f.cause, Cause::kSmsBusy);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "big")});
}

TEST(Analyzer, BusySmsOnTheRealGpu) {
  // On the H200 the second kernel's blocks start ~64 ns after the first's leave.
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/gpu/w1-gpu-is-full.full.json"));
  const Finding f = Delay(Analyze(t), t, "big2");
  EXPECT_EQ(f.cause, Cause::kSmsBusy);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "big1")});
}

// A recorded program has no block records: two 8192x8192 GEMMs on two streams (H100,
// examples/pytorch/default_plus_side_stream.py) ran back to back because each grid fills
// every SM at its occupancy. The second is held by busy SMs, said to be an estimate.
TEST(Analyzer, BusySmsFromOccupancyInARecording) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/default_plus_side_stream.json"));
  Analysis a = Analyze(t);
  int busy = 0;
  for (const Finding& f : a.findings) {
    if (f.kind != FindingKind::kStartDelay || f.cause != Cause::kSmsBusy) continue;
    ++busy;
    EXPECT_TRUE(f.estimated);
    ASSERT_EQ(f.because.size(), 1u);
    EXPECT_EQ(t.scenario.ops[f.because.front()].kernel.function, t.scenario.ops[f.op].kernel.function);
    EXPECT_NE(t.scenario.ops[f.because.front()].stream, t.scenario.ops[f.op].stream);
    EXPECT_GT(f.amount, Ms(10));
    EXPECT_NE(FindingTexts::Load("en").Render(t, f).find("Estimated"), std::string::npos);
  }
  EXPECT_EQ(busy, 1);
}

TEST(Analyzer, CopyEngineBusyNamesTheCopy) {
  ScenarioBuilder b("engine");
  Buffer h1 = b.PinnedBuffer("h1", 32 << 20), h2 = b.PinnedBuffer("h2", 32 << 20);
  Buffer d1 = b.DeviceBuffer("d1", 32 << 20), d2 = b.DeviceBuffer("d2", 32 << 20);
  b.CreateStream("s1").Copy("up1", d1, h1, 32 << 20);
  b.CreateStream("s2").Copy("up2", d2, h2, 32 << 20);
  Trace t = Simulate(b.Build());
  const Finding f = Delay(Analyze(t), t, "up2");
  EXPECT_EQ(f.cause, Cause::kCopyEngineBusy);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "up1")});
}

// An engine per direction: two uploads run one after the other while a download runs
// alongside. The second upload waited for the first, never for the download, and the
// critical path does not run through the download.
TEST(Analyzer, CopiesInOppositeDirectionsNeverNameEachOther) {
  ScenarioBuilder b("directions");
  Buffer h1 = b.PinnedBuffer("h1", 32 << 20), h2 = b.PinnedBuffer("h2", 32 << 20), h3 = b.PinnedBuffer("h3", 64 << 20);
  Buffer d1 = b.DeviceBuffer("d1", 32 << 20), d2 = b.DeviceBuffer("d2", 32 << 20), d3 = b.DeviceBuffer("d3", 64 << 20);
  b.CreateStream("s3").Copy("down", h3, d3, 64 << 20);
  b.CreateStream("s1").Copy("up1", d1, h1, 32 << 20);
  b.CreateStream("s2").Copy("up2", d2, h2, 32 << 20);
  Trace t = Simulate(b.Build());
  Analysis a = Analyze(t);
  const Finding f = Delay(a, t, "up2");
  EXPECT_EQ(f.cause, Cause::kCopyEngineBusy);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "up1")});
  for (const Finding& g : a.findings) {
    if (g.kind != FindingKind::kStartDelay) continue;
    bool up = g.op == OpId(t, "up1") || g.op == OpId(t, "up2");
    for (int other : g.because) EXPECT_FALSE(up && other == OpId(t, "down")) << "an upload named the download";
    for (int other : g.also) EXPECT_FALSE(up && other == OpId(t, "down")) << "an upload named the download";
    if (g.op == OpId(t, "down")) {
      EXPECT_EQ(g.cause, Cause::kPrompt);
    }
  }
  // The uploads end last (2 x 32 MB after each other vs 64 MB alongside, at similar rates
  // per direction) or the download does; either way the path never mixes directions.
  const std::vector<int>& path = a.figures.critical_path;
  ASSERT_FALSE(path.empty());
  bool has_down = std::count(path.begin(), path.end(), OpId(t, "down")) > 0;
  bool has_up = std::count(path.begin(), path.end(), OpId(t, "up1")) + std::count(path.begin(), path.end(), OpId(t, "up2")) > 0;
  EXPECT_FALSE(has_down && has_up);
}

TEST(Analyzer, SharedHardwareQueueIsAFalseDependency) {
  Trace t = Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/hardware-queues-8.json")));
  const Finding f = Delay(Analyze(t), t, "A8");
  EXPECT_EQ(f.cause, Cause::kHardwareQueue);
  EXPECT_EQ(f.because, std::vector<int>{OpId(t, "B0")});  // s8 shares s0's queue
}

TEST(Analyzer, LazyLoadingIsAHiddenBarrier) {
  for (const char* source : {"sim", "gpu"}) {
    Trace t = std::string(source) == "sim"
                  ? Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/lazy-loading-lazy.json")))
                  : LoadTraceFile(testing::SourcePath("tests/fixtures/gpu-facts/lazy-loading-lazy.json.xz"));
    Analysis a = Analyze(t);
    const Finding b0 = Delay(a, t, "B0");
    EXPECT_EQ(b0.cause, Cause::kModuleLoad) << source;
    EXPECT_EQ(b0.because, std::vector<int>{OpId(t, "A0")}) << source;
    const Finding a1 = Delay(a, t, "A1");
    EXPECT_EQ(a1.cause, Cause::kModuleLoad) << source;
    EXPECT_EQ(a1.because, std::vector<int>{OpId(t, "B0")}) << source;
  }
}

TEST(Analyzer, HostBlockNamesWhatItWaitedFor) {
  Trace t = Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/free-between.json")));
  Analysis a = Analyze(t);
  int free_op = -1;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].kind == OpKind::kFree) free_op = static_cast<int>(i);
  std::optional<Finding> f = Find(a, FindingKind::kHostBlock, free_op);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->because, std::vector<int>{OpId(t, "k_s1")});
  EXPECT_EQ(Delay(a, t, "k_s2").cause, Cause::kHostLate);
  EXPECT_EQ(Delay(a, t, "k_s2").because, std::vector<int>{free_op});
}

TEST(Analyzer, DeviceSyncWiderThanNeeded) {
  ScenarioBuilder b("scope");
  b.CreateStream("s1").Launch("short", Spin(Us(100)));
  b.CreateStream("s2").Launch("long", Spin(Us(2000)));
  int sync = b.host().SyncDevice();
  Trace t = Simulate(b.Build());
  std::optional<Finding> f = Find(Analyze(t), FindingKind::kScopeTooWide, sync);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->because, std::vector<int>{OpId(t, "short")});
  EXPECT_EQ(f->other, OpId(t, "long"));
  EXPECT_GT(f->amount, Us(1800));
}

TEST(Analyzer, WaitThatCapturedNothingIsFlagged) {
  Trace t = Simulate(LoadScenarioFile(testing::SourcePath("scenarios/gpu-facts/wait-on-empty-record.json")));
  Analysis a = Analyze(t);
  int wait = -1;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].kind == OpKind::kWaitEvent) wait = static_cast<int>(i);
  std::optional<Finding> f = Find(a, FindingKind::kWaitCapturedNothing, wait);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->other, OpId(t, "k_s1"));  // the work the student meant to wait for

  ScenarioBuilder b("early-wait-stream");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
  int ws = s2.WaitStream(s1);
  s1.Launch("producer", Spin(Us(100)));
  Trace t2 = Simulate(b.Build());
  std::optional<Finding> g = Find(Analyze(t2), FindingKind::kWaitCapturedNothing, ws);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->other, OpId(t2, "producer"));
}

TEST(Analyzer, UnorderedStreamsOnOneBufferAreARace) {
  for (bool ordered : {false, true}) {
    ScenarioBuilder b("race");
    Buffer x = b.DeviceBuffer("x", 1 << 20);
    Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
    Event e = b.CreateEvent("e");
    s1.Launch("writer", Spin(Us(200)), {}, {x});
    if (ordered) s1.Record(e);
    if (ordered) s2.Wait(e);
    s2.Launch("reader", Spin(Us(200)), {x}, {});
    s2.Launch("other", Spin(Us(200)));  // touches nothing: no race
    Trace t = Simulate(b.Build());
    std::optional<Finding> f = Find(Analyze(t), FindingKind::kDataRace, OpId(t, "writer"));
    if (ordered) {
      EXPECT_FALSE(f.has_value());
    } else {
      ASSERT_TRUE(f.has_value());
      EXPECT_EQ(f->other, OpId(t, "reader"));
    }
  }
}

TEST(Analyzer, HostSyncOrdersAcrossStreams) {
  ScenarioBuilder b("synced");
  Buffer x = b.DeviceBuffer("x", 1 << 20);
  b.CreateStream("s1").Launch("writer", Spin(Us(200)), {}, {x});
  b.host().SyncDevice();
  b.CreateStream("s2").Launch("reader", Spin(Us(200)), {x}, {});
  Trace t = Simulate(b.Build());
  EXPECT_FALSE(Find(Analyze(t), FindingKind::kDataRace, OpId(t, "writer")).has_value());
}

// Every GPU op that started later than it was submitted gets an explanation, in both
// languages, with every {placeholder} filled - on every lab and every real trace.
TEST(Analyzer, EveryOpIsExplainedInBothLanguages) {
  std::vector<Trace> traces;
  for (const Lab& lab : AllLabs())
    for (const std::string& v : lab.variants) traces.push_back(Simulate(lab.build(ResolveLabArgs(lab, v, {}))));
  for (const char* dir : {"tests/fixtures/gpu", "tests/fixtures/gpu-facts"})
    for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath(dir)))
      traces.push_back(LoadTraceFile(e.path().string()));
  for (const char* lang : {"en", "zh"}) {
    FindingTexts texts = FindingTexts::Load(lang);
    for (const Trace& t : traces) {
      Analysis a = Analyze(t);
      for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
        const Op& op = t.scenario.ops[i];
        bool work = op.kind == OpKind::kKernel || op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset;
        if (!work) continue;
        EXPECT_TRUE(Find(a, FindingKind::kStartDelay, static_cast<int>(i)).has_value()) << t.scenario.name << " op " << i;
      }
      for (const Finding& f : a.findings) {
        std::string text = texts.Render(t, f);
        EXPECT_FALSE(text.empty());
        EXPECT_EQ(text.find('{'), std::string::npos) << lang << ": " << text;
      }
      EXPECT_EQ(texts.RenderFigures(t, a.figures).find('{'), std::string::npos);
      for (const FindingGroup& g : GroupFindings(t, a, true)) {
        EXPECT_EQ(RenderGroupHeader(texts, g).find('{'), std::string::npos) << lang << ": " << g.pattern;
        EXPECT_EQ(RenderGroupMore(texts, g).find('{'), std::string::npos);
      }
    }
  }
}

}  // namespace
}  // namespace streamlab
