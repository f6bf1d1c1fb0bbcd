// The logic behind the app's classroom features: comparing two runs, checking a predicted
// order, and the sandbox's edits (refused when invalid, saved as JSON the CLI runs).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "engine/classroom/compare.h"
#include "engine/classroom/prediction.h"
#include "engine/classroom/sandbox_model.h"
#include "engine/scenario/scenario_json.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

Trace RunLab(const std::string& id, const std::string& variant) {
  const Lab& lab = FindLab(id);
  Trace t = Simulate(lab.build(ResolveLabArgs(lab, variant, {})));
  t.lab = id;
  t.variant = variant;
  return t;
}

TEST(Compare, LegacyVersusNonBlockingNamesTheMovedKernelsAndWhy) {
  Trace legacy = RunLab("w2-legacy-default-stall", "legacy");
  Trace nonblocking = RunLab("w2-legacy-default-stall", "non-blocking");
  Analysis a = Analyze(legacy), b = Analyze(nonblocking);
  Comparison c = CompareRuns(legacy, a, nonblocking, b);
  EXPECT_GT(c.a.makespan, 2 * c.b.makespan);  // ~3 ms -> ~1 ms
  ASSERT_EQ(c.moved.size(), 3u);
  EXPECT_EQ(c.moved[0].name, "k_s2");  // moved most: ~2 ms earlier
  EXPECT_LT(c.moved[0].shift(), -Ms(1.5));
  EXPECT_EQ(c.moved[1].name, "k_default");
  // In A the analyzer blames the legacy barrier; in B nothing held it.
  const Finding* why_a = StartFinding(a, c.moved[0].op_a);
  const Finding* why_b = StartFinding(b, c.moved[0].op_b);
  ASSERT_NE(why_a, nullptr);
  ASSERT_NE(why_b, nullptr);
  EXPECT_EQ(why_a->cause, Cause::kLegacyBarrier);
  EXPECT_EQ(why_b->cause, Cause::kPrompt);
}

TEST(Prediction, OrderHoldsOnlyWhenTheRunAgrees) {
  Trace chain = RunLab("w2-wait-before-work", "waits-after-work");  // a -> b -> c
  std::vector<int> ops = PredictableOps(chain.scenario);
  ASSERT_EQ(ops.size(), 3u);
  auto named = [&](const std::string& n) {
    for (int op : ops)
      if (DisplayName(chain.scenario, op) == n) return op;
    return -1;
  };
  PredictionCheck right = CheckPredictedOrder(chain, {named("work_a"), named("work_b"), named("work_c")});
  EXPECT_TRUE(right.held);
  EXPECT_EQ(right.pairs_right, 3);
  PredictionCheck wrong = CheckPredictedOrder(chain, {named("work_c"), named("work_b"), named("work_a")});
  EXPECT_FALSE(wrong.held);
  EXPECT_EQ(wrong.pairs_right, 0);
  EXPECT_EQ(wrong.first_wrong, named("work_b"));
  EXPECT_EQ(wrong.actual_order.front(), named("work_a"));
}

TEST(Prediction, WorkThatStartsTogetherIsATie) {
  Trace together = RunLab("w1-fifo-vs-streams", "two-streams");
  std::vector<int> ops = PredictableOps(together.scenario);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_TRUE(CheckPredictedOrder(together, {ops[1], ops[0]}).held);  // either order is right
}

TEST(Sandbox, InvalidEditsAreRefusedWithAReasonAndChangeNothing) {
  SandboxModel m;
  EXPECT_TRUE(m.Apply("stream s1 non_blocking"));
  EXPECT_TRUE(m.Apply("kernel s1 k1 100 4"));
  Scenario before = m.scenario();
  EXPECT_FALSE(m.Apply("stream s1"));  // duplicate name
  EXPECT_NE(m.refusal().find("already a stream named s1"), std::string::npos);
  EXPECT_FALSE(m.Apply("wait s1 nope"));
  EXPECT_NE(m.refusal().find("no event named"), std::string::npos);
  EXPECT_FALSE(m.Apply("kernel s1 k2 -5 4"));
  EXPECT_FALSE(m.Apply("kernel s1 k2 100 0"));  // grid 0: the scenario validation says why
  EXPECT_NE(m.refusal().find("grid"), std::string::npos);
  EXPECT_FALSE(m.RemoveStream(0));  // still used
  EXPECT_FALSE(m.Apply("move 0 -1"));
  EXPECT_FALSE(m.Apply("frobnicate"));
  EXPECT_FALSE(m.Apply("set_kernel nope 100"));
  EXPECT_NE(m.refusal().find("no op named"), std::string::npos);
  EXPECT_FALSE(m.Apply("set_kernel k1 0"));
  EXPECT_FALSE(m.Apply("duplicate 7 x"));
  EXPECT_EQ(ScenarioToJson(m.scenario()), ScenarioToJson(before));
  EXPECT_TRUE(m.Apply("sync_device"));
  EXPECT_FALSE(m.SetKernel(1, 100, 4));  // not a kernel
  EXPECT_NE(m.refusal().find("is not a kernel"), std::string::npos);
}

TEST(Sandbox, KernelEditsDuplicatesAndMovesKeepWhatTheOpIs) {
  SandboxModel m;
  for (const char* line : {"stream s1", "kernel s1 a 100 4", "kernel s1 b 100 4", "sync_device", "set_kernel a 300 132",
                           "duplicate 0 warm", "move 3 -3"})
    ASSERT_TRUE(m.Apply(line)) << line << ": " << m.refusal();
  const std::vector<Op>& ops = m.scenario().ops;
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].name, "warm");  // moved three places up, the rest kept their order
  EXPECT_EQ(ops[1].name, "a");
  EXPECT_EQ(ops[2].name, "b");
  EXPECT_EQ(ops[3].kind, OpKind::kSyncDevice);
  EXPECT_EQ(ops[1].kernel.grid, 132);
  EXPECT_EQ(ops[1].kernel.work, 300000);
  EXPECT_EQ(ops[0].kernel.grid, 132);  // a copy of the edited kernel
  EXPECT_TRUE(m.Apply("set_kernel b 50"));  // no grid given: kept
  EXPECT_EQ(m.scenario().ops[2].kernel.grid, 4);
  EXPECT_EQ(m.scenario().ops[2].kernel.work, 50000);
}

TEST(Sandbox, SavedScenarioLoadsAndRunsUnchanged) {
  SandboxModel m;
  for (const char* line : {"stream s1 non_blocking", "stream s2 non_blocking", "event e", "kernel s1 a 200 4",
                           "record s1 e", "wait s2 e", "kernel s2 b 100 4", "copy s1 up 4 pinned", "move 4 -1",
                           "sync_device"})
    ASSERT_TRUE(m.Apply(line)) << line << ": " << m.refusal();
  std::string path = (std::filesystem::temp_directory_path() / "streamlab-sandbox-test.json").string();
  ASSERT_TRUE(m.Save(path));
  Scenario loaded = LoadScenarioFile(path);
  std::remove(path.c_str());
  EXPECT_EQ(ScenarioToJson(loaded), ScenarioToJson(m.scenario()));
  Trace t = Simulate(loaded);
  EXPECT_GE(OpNamed(t, "b").start, OpNamed(t, "a").end);  // the wait the UI added holds
}

}  // namespace
}  // namespace streamlab
