// Where the verdict's fixes say the time went (engine/verdict/verdict.cpp): two costly lines of
// one place are two fixes, a cheap line counts in its place's costliest, and the host's own work
// in one stretch is shared among the places the ranges saw it in, the rest going to where the
// host came back to CUDA; copies from pinned memory are not told to pin, and copies on the path
// are at the line that made them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/analysis/findings_text.h"
#include "engine/report/verdict_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/sim/sim_executor.h"
#include "engine/verdict/verdict.h"
#include "tests/recorder_log.h"
#include "tests/verdict_util.h"
#include "tests/whatif_recorded_loops.h"

namespace streamlab {
namespace {

using testing::Log;

// The GPU ops named `name`, in submission order.
std::vector<int> OpsNamed(const Trace& t, const std::string& name) {
  std::vector<int> out;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].name == name) out.push_back(static_cast<int>(i));
  return out;
}

const VerdictFix* FixAtLine(const Verdict& v, int line) {
  for (const VerdictFix& f : v.fixes)
    if (f.site.line == line) return &f;
  return nullptr;
}

TEST(VerdictPlaces, TwoCostlyLinesOfOnePlaceAreTwoFixesACheapOneCountsInTheCostliest) {
  // Eight steps: the host works 2 ms at line 33, 2 ms at line 34 and 0.1 ms at line 35 of the
  // loop (one function), launching a tiny kernel after each, then waits for the GPU.
  Log log;
  for (int step = 0; step < 8; ++step) {
    log.Kernel(77, "[4096]", 1000, "k_first").Pause(2'000'000);
    log.Kernel(77, "[4096]", 1000, "k_second").Pause(2'000'000);
    log.Kernel(77, "[4096]", 1000, "k_third").Pause(100'000);
    log.Kernel(77, "[4096]", 1000, "k_last").SyncStream(77);
  }
  Trace t = log.Convert();
  std::vector<int> a = OpsNamed(t, "k_first"), b = OpsNamed(t, "k_second"), c = OpsNamed(t, "k_third"), d = OpsNamed(t, "k_last");
  ASSERT_EQ(a.size(), 8u);
  for (size_t k = 0; k < a.size(); ++k) {
    t.ranges.push_back({0, "loop.py:33 in <module>", t.ops[a[k]].ret, t.ops[b[k]].submit});
    t.ranges.push_back({0, "loop.py:34 in <module>", t.ops[b[k]].ret, t.ops[c[k]].submit});
    t.ranges.push_back({0, "loop.py:35 in <module>", t.ops[c[k]].ret, t.ops[d[k]].submit});
  }
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  const VerdictFix* at33 = FixAtLine(v, 33);
  const VerdictFix* at34 = FixAtLine(v, 34);
  ASSERT_NE(at33, nullptr);
  ASSERT_NE(at34, nullptr);
  EXPECT_EQ(FixAtLine(v, 35), nullptr);  // 2 % of the place's time: in line 33's or 34's fix
  EXPECT_NEAR(static_cast<double>(at33->per_step + at34->per_step), 4.1e6, 0.3e6);
  EXPECT_GT(at33->per_step, Ms(1.8));
  EXPECT_GT(at34->per_step, Ms(1.8));
}

TEST(VerdictPlaces, HostWorkIsSharedAmongThePlacesSeenInItTheRestWhereTheHostCameBack) {
  // Eight steps: 4 ms outside CUDA, sampled 1.6 ms in augment (line 40) and 1.6 ms in collate
  // (line 52), 0.8 ms unseen; the host comes back to CUDA at line 54.
  Log log;
  for (int step = 0; step < 8; ++step) {
    log.Kernel(77, "[4096]", 1000, "k_first").Pause(4'000'000);
    log.Kernel(77, "[4096]", 1000, "k_second").SyncStream(77);
  }
  Trace t = log.Convert();
  std::vector<int> a = OpsNamed(t, "k_first"), b = OpsNamed(t, "k_second");
  ASSERT_EQ(a.size(), 8u);
  for (size_t k = 0; k < a.size(); ++k) {
    TimeNs from = t.ops[a[k]].ret;
    t.ranges.push_back({0, "loader.py:40 in augment", from, from + Us(1600)});
    t.ranges.push_back({0, "loader.py:52 in collate", from + Us(1600), from + Us(3200)});
    t.ranges.push_back({0, "loader.py:54 in <module>", t.ops[b[k]].submit - 100, t.ops[b[k]].ret + 100});
  }
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  const VerdictFix* augment = FixAtLine(v, 40);
  const VerdictFix* collate = FixAtLine(v, 52);
  const VerdictFix* back = FixAtLine(v, 54);
  ASSERT_NE(augment, nullptr);
  ASSERT_NE(collate, nullptr);
  ASSERT_NE(back, nullptr);
  EXPECT_NEAR(static_cast<double>(augment->per_step), 1.6e6, 0.2e6);
  EXPECT_NEAR(static_cast<double>(collate->per_step), 1.6e6, 0.2e6);
  EXPECT_FALSE(augment->came_back);
  EXPECT_TRUE(back->came_back);
  EXPECT_LT(back->per_step, Ms(1.2));
}

// Eight steps, each a 64 MB copy from pinned memory and a short kernel on another stream, then a
// sync: the copies bound it.
Trace PinnedCopyLoop() {
  ScenarioBuilder b("pinned copies");
  Stream s = b.CreateStream("copy"), compute = b.CreateStream("compute");
  Buffer host = b.PinnedBuffer("batch", 64 << 20), device = b.DeviceBuffer("input", 64 << 20);
  for (int k = 0; k < 8; ++k) {
    s.Copy("h2d", device, host, 64 << 20);
    compute.Launch("k", Spin(Us(20), 132));
    b.host().SyncDevice();
  }
  return AsRecording(SimExecutor().Run(b.Build(), {}));
}

TEST(VerdictPlaces, CopiesFromPinnedMemoryAreNotToldToPin) {
  // Eight steps, each a 64 MB copy from pinned memory and a short kernel on another stream: the
  // copies bound it.
  Trace t = PinnedCopyLoop();
  ProgramVerdict pv = ProgramVerdictOf(t);
  ASSERT_TRUE(pv.found());
  std::string copies;
  for (const std::string& line : RenderVerdict(FindingTexts::Load("en"), t, pv))
    if (line.find("copies on the critical path") != std::string::npos) copies = line;
  ASSERT_FALSE(copies.empty());
  EXPECT_NE(copies.find("already use pinned memory"), std::string::npos) << copies;
  EXPECT_EQ(copies.find("from pinned memory,"), std::string::npos) << copies;
}

// A copy from pinned memory on the kernels' own stream, which they then wait for: the advice is
// to copy ahead on another stream, not to pin what is pinned already.
TEST(VerdictPlaces, AKernelsWaitForAPinnedCopyIsNotToldToPin) {
  ScenarioBuilder b("pinned input");
  Stream s = b.CreateStream("compute");
  Buffer host = b.PinnedBuffer("batch", 64 << 20), device = b.DeviceBuffer("input", 64 << 20);
  for (int k = 0; k < 8; ++k) {
    s.Copy("h2d", device, host, 64 << 20);
    s.Launch("k", Spin(Us(20), 132));
    b.host().SyncDevice();
  }
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  ProgramVerdict pv = ProgramVerdictOf(t);
  ASSERT_TRUE(pv.found());
  std::string wait;
  for (const std::string& line : RenderVerdict(FindingTexts::Load("en"), t, pv))
    if (line.find("kernels wait for a copy") != std::string::npos) wait = line;
  ASSERT_FALSE(wait.empty());
  EXPECT_NE(wait.find("already comes from pinned memory"), std::string::npos) << wait;
}

// The same copies, made at line 33 of the loop (a range around each call, as the recorder's
// stack at a copy call says): the copies' fix is at that line (stft_export_pinned's pinned export
// was placed nowhere, though the recording read the stack at every copy).
TEST(VerdictPlaces, CopiesOnThePathAreAtTheLineThatMadeThem) {
  Trace t = PinnedCopyLoop();
  for (int copy : OpsNamed(t, "h2d"))
    t.ranges.push_back({t.scenario.ops[copy].thread, "export.py:33 in <module>", t.ops[copy].submit - 1, t.ops[copy].ret + 1});
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  ASSERT_FALSE(v.fixes.empty());
  EXPECT_EQ(v.fixes.front().kind, FixKind::kCopies);
  EXPECT_EQ(v.fixes.front().site.line, 33);
}

// A loop of one-value reads whose stacks the recorder's budget read at one sync in ten: the
// others are placed where those were, said as inferred from that share, in one fix.
TEST(VerdictPlaces, SyncsWithoutAStackArePlacedWhereTheSampledOnesWere) {
  Log log;
  for (int step = 0; step < 8; ++step) {
    log.Kernel(77, "[4096]", 300'000, "k_step");
    for (int read = 0; read < 40; ++read) log.Pause(8'000).SyncStream(77);
  }
  Trace t = log.Convert();
  int syncs = 0;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.scenario.ops[i].kind == OpKind::kSyncStream && syncs++ % 10 == 0)
      t.ranges.push_back({0, "reads.py:41 in <module>", t.ops[i].submit, t.ops[i].ret});
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  int syncs_fixes = 0;
  for (const VerdictFix& f : v.fixes) syncs_fixes += f.kind == FixKind::kHostSync;
  EXPECT_EQ(syncs_fixes, 1);
  const VerdictFix* at41 = FixAtLine(v, 41);
  ASSERT_NE(at41, nullptr);
  EXPECT_EQ(at41->kind, FixKind::kHostSync);
  EXPECT_NEAR(at41->site_sampled, 0.1, 0.03);
  std::string text = RenderFix(FindingTexts::Load("en"), t, v, *at41);
  EXPECT_NE(text.find("inferred: where the recorder read the stack of"), std::string::npos) << text;
}

}  // namespace
}  // namespace streamlab
