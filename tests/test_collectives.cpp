// NCCL collectives: the scenario rules for a collective's parts, the simulator's rendezvous
// (no part ends before every rank arrived; parts hold SMs meanwhile), the analyzer's
// straggler finding, the C++ code it shows, and the real runs on two H200s (fixtures).
#include <gtest/gtest.h>

#include "engine/scenario/code_gen.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/findings_text.h"
#include "engine/sim/device_profile.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

// gpus GPUs: compute of `us[g]` on each, one all-reduce of `mb` MB, then a short kernel.
Scenario AllReduceAfter(const std::vector<int>& us, uint64_t mb = 64) {
  int gpus = static_cast<int>(us.size());
  ScenarioBuilder b("allreduce", gpus);
  std::vector<Stream> s;
  std::vector<Buffer> buf;
  for (int g = 0; g < gpus; ++g) {
    s.push_back(b.CreateStream("s" + std::to_string(g), {.device = g}));
    buf.push_back(b.DeviceBuffer("b" + std::to_string(g), mb << 20, g));
  }
  for (int g = 0; g < gpus; ++g) s[g].Launch("k" + std::to_string(g), Spin(Us(us[g]), 8), {}, {buf[g]});
  b.Collective("ar", CollectiveKind::kAllReduce, s, buf, mb << 20);
  for (int g = 0; g < gpus; ++g) s[g].Launch("after" + std::to_string(g), Spin(Us(50), 8), {buf[g]});
  for (int g = 0; g < gpus; ++g) {
    b.host().SetDevice(g);
    b.host().SyncDevice();
  }
  return b.Build();
}

TEST(Collectives, PartsMustBeConsecutiveOnDistinctDevicesWithWholeFloats) {
  Scenario ok = AllReduceAfter({100, 100});
  ASSERT_EQ(ok.ops[2].kind, OpKind::kCollective);
  EXPECT_EQ(ok.ops[2].name, "ar_gpu0");
  EXPECT_EQ(CollectiveParts(ok, 3), (std::vector<int>{2, 3}));

  Scenario split = ok;  // a kernel between the parts
  std::swap(split.ops[3], split.ops[4]);
  EXPECT_THROW(ValidateScenario(split), InputError);
  Scenario same_device = ok;
  same_device.ops[3].stream = same_device.ops[2].stream;
  same_device.ops[3].buffer = same_device.ops[2].buffer;
  EXPECT_THROW(ValidateScenario(same_device), InputError);
  Scenario odd = ok;
  for (int p : {2, 3}) odd.ops[p].bytes = 6;  // not 4 x 2 GPUs
  EXPECT_THROW(ValidateScenario(odd), InputError);
  Scenario lonely = ok;
  lonely.ops[3].collective_first = 3;  // a part of its own
  EXPECT_THROW(ValidateScenario(lonely), InputError);
}

TEST(Collectives, SurviveJsonAndShowAsNcclGroupCalls) {
  Scenario s = AllReduceAfter({100, 100});
  s.ops[2].collective = s.ops[3].collective = CollectiveKind::kReduceScatter;
  Scenario back = ScenarioFromJson(ScenarioToJson(s), "test");
  EXPECT_EQ(ScenarioToJson(back), ScenarioToJson(s));
  EXPECT_EQ(back.ops[3].collective, CollectiveKind::kReduceScatter);
  EXPECT_EQ(back.ops[3].collective_first, 2);
  std::string code = ScenarioAsCuda(s);
  EXPECT_NE(code.find("ncclCommInitAll"), std::string::npos) << code;
  EXPECT_NE(code.find("ncclGroupStart();"), std::string::npos) << code;
  EXPECT_NE(code.find("ncclReduceScatter(b1, (float*)b1 + 1 * "), std::string::npos) << code;
  EXPECT_NE(code.find("ncclGroupEnd();"), std::string::npos) << code;
  Json bad = ScenarioToJson(s);
  bad["ops"][2]["collective"] = "all_to_all";
  EXPECT_THROW(ScenarioFromJson(bad, "test"), InputError);
}

TEST(Collectives, EveryPartEndsTogetherOnceTheLastRankArrives) {
  DeviceProfile p;
  Trace t = testing::Simulate(AllReduceAfter({100, 1100}), p);
  const OpRecord &k1 = t.ops[1], &a0 = t.ops[2], &a1 = t.ops[3];
  EXPECT_EQ(a0.end, a1.end);
  EXPECT_LT(a0.start, k1.end - Us(900));  // GPU 0 entered long before GPU 1 was done
  EXPECT_GE(a1.start, k1.end);
  EXPECT_EQ(a1.end - a1.start, CollectiveDuration(p, CollectiveKind::kAllReduce, 64 << 20, 2));
  // The ring model: 2(n-1)/n of the bytes over the bus for all-reduce, (n-1)/n for the halves.
  EXPECT_DOUBLE_EQ(CollectiveBusFactor(CollectiveKind::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(CollectiveBusFactor(CollectiveKind::kAllGather, 4), 0.75);
  EXPECT_EQ(CollectiveSteps(CollectiveKind::kAllReduce, 4), 6);
}

TEST(Collectives, APartHoldsItsSmsWhileItWaitsSoAFullGridRunsAnotherWave) {
  // GPU 0's all-reduce waits for GPU 1; a kernel on GPU 0's other stream that needs every
  // SM finds 24 of them holding a 640-thread NCCL block and needs a second wave.
  auto fuller_span = [](int slow_us) {
    ScenarioBuilder b("held", 2);
    Stream s0 = b.CreateStream("s0", {.device = 0}), side = b.CreateStream("side", {.device = 0});
    Stream s1 = b.CreateStream("s1", {.device = 1});
    Buffer b0 = b.DeviceBuffer("b0", 4 << 20, 0), b1 = b.DeviceBuffer("b1", 4 << 20, 1);
    s1.Launch("slow", Spin(Us(slow_us), 8));
    b.Collective("ar", CollectiveKind::kAllReduce, {s0, s1}, {b0, b1}, 4 << 20);
    side.Launch("full", Spin(Us(100), 132, 1024));
    side.Launch("fuller", Spin(Us(100), 264, 1024));  // 2 blocks of 1024 threads per SM: every SM
    b.host().SyncDevice();
    Trace t = testing::Simulate(b.Build());
    int fuller = testing::GpuOpsNamed(t, "fuller").front();
    return t.ops[fuller].end - t.ops[fuller].start;
  };
  EXPECT_GE(fuller_span(1000), Us(200)) << "a second wave: NCCL holds SMs while it waits";
  EXPECT_LT(fuller_span(1), Us(110)) << "one wave once the all-reduce is over";
}

TEST(Collectives, TheAnalyzerNamesTheStragglerAndWhatItWasRunning) {
  Trace t = testing::Simulate(AllReduceAfter({100, 600, 100}, 48));
  Analysis a = Analyze(t);
  std::vector<const Finding*> waits = testing::FindingsOfKind(a, FindingKind::kCollectiveWait);
  ASSERT_EQ(waits.size(), 2u);  // GPUs 0 and 2 waited for GPU 1
  for (const Finding* f : waits) {
    EXPECT_EQ(t.scenario.ops[f->other].name, "ar_gpu1");
    ASSERT_EQ(f->because.size(), 1u);
    EXPECT_EQ(t.scenario.ops[f->because.front()].name, "k1");
    EXPECT_NEAR(static_cast<double>(f->amount), static_cast<double>(Us(500)), static_cast<double>(Us(30)));
  }
  // The critical path runs through the late GPU's compute.
  std::vector<std::string> path;
  for (int op : a.figures.critical_path) path.push_back(t.scenario.ops[op].name);
  EXPECT_NE(std::find(path.begin(), path.end(), "k1"), path.end());
  // Balanced ranks: no wait worth a finding.
  Analysis balanced = Analyze(testing::Simulate(AllReduceAfter({300, 300})));
  EXPECT_TRUE(testing::FindingsOfKind(balanced, FindingKind::kCollectiveWait).empty());
  // After the collective, each GPU's work is ordered after every GPU's work before it.
  AnalysisContext ctx(t);
  EXPECT_TRUE(ctx.hb.Ordered(1, 5));  // k1 (GPU 1) -> after0 (GPU 0)
}

TEST(Collectives, TwoH200sAgreeWithTheLabsAndTheSimulator) {
  // Captured with `streamlab-cli verify w3-straggler --backend cuda --out-dir` on two H200s.
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/gpu/w3-straggler.straggler.json"));
  EXPECT_EQ(t.backend, "cuda");
  bool noted = false;
  for (const TraceNote& n : t.notes) noted |= n.text.find("NCCL 2.") != std::string::npos;
  EXPECT_TRUE(noted);
  Analysis analysis = Analyze(t);  // the findings below point into it
  std::vector<const Finding*> waits = testing::FindingsOfKind(analysis, FindingKind::kCollectiveWait);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(t.scenario.ops[waits[0]->op].name, "allreduce_gpu0");
  EXPECT_NEAR(static_cast<double>(waits[0]->amount), static_cast<double>(Ms(1)), static_cast<double>(Us(100)));
  // The simulator's all-reduce (H200 profile) is within 10 % of the measured one.
  Trace sim = testing::Simulate(t.scenario, ResolveProfile("h200"));
  int part = testing::GpuOpsNamed(t, "allreduce_gpu1").front();
  double gpu = static_cast<double>(t.ops[part].end - t.ops[part].start);
  double predicted = static_cast<double>(sim.ops[part].end - sim.ops[part].start);
  EXPECT_NEAR(predicted, gpu, 0.1 * gpu);
}

// With one connection (w3-comm-priority/one-connection) the next layer is held until the
// all-reduce ahead of it in the queue has ended, on two H200s and on the simulator (which
// models NCCL's wait for its kernel): the finding names the collective and says "ended".
TEST(Collectives, OneConnectionHoldsTheNextLayerUntilTheCollectiveEnds) {
  Trace gpu = LoadTraceFile(testing::SourcePath("tests/fixtures/gpu/w3-comm-priority.one-connection.json"));
  Trace sim = testing::Simulate(gpu.scenario, ResolveProfile("h200"));
  FindingTexts en = FindingTexts::Load("en");
  for (const Trace* t : {&gpu, &sim}) {
    Analysis a = Analyze(*t);
    for (const char* gpu_id : {"0", "1"}) {
      int layer = testing::GpuOpsNamed(*t, std::string("backward0_gpu") + gpu_id).front();
      int ar = testing::GpuOpsNamed(*t, std::string("allreduce1_gpu") + gpu_id).front();
      EXPECT_GE(t->ops[layer].start, t->ops[ar].end - t->clock_error) << t->backend;
      const Finding* held = nullptr;
      for (const Finding& f : a.findings)
        if (f.kind == FindingKind::kStartDelay && f.op == layer) held = &f;
      ASSERT_NE(held, nullptr) << t->backend;
      EXPECT_EQ(held->cause, Cause::kHardwareQueue) << t->backend;
      EXPECT_EQ(held->marker, ar) << t->backend;
      EXPECT_NE(en.Render(*t, *held).find("until the collective"), std::string::npos) << t->backend;
    }
  }
  // At the default 8 connections the layer is not held: it starts before the all-reduce ends.
  Trace eight = LoadTraceFile(testing::SourcePath("tests/fixtures/gpu/w3-comm-priority.high-priority.json"));
  int layer = testing::GpuOpsNamed(eight, "backward0_gpu0").front();
  int ar = testing::GpuOpsNamed(eight, "allreduce1_gpu0").front();
  EXPECT_LT(eight.ops[layer].start, eight.ops[ar].end);
}

}  // namespace
}  // namespace streamlab
