// Steps found from a recorded program's repeating GPU work (engine/analysis/program_steps.h), on
// the loop shapes that programs nobody on the team wrote showed: a loop shorter than its set-up,
// a teardown that repeats too, a warm-up that repeats with the loop's period in other kernels,
// a step that also logs its loss, kernels on three streams then their copies, a kernel that
// repeats inside a step, and steps that begin mid-iteration.
#include <gtest/gtest.h>

#include <string>

#include "engine/analysis/program_steps.h"
#include "tests/recorder_log.h"

namespace streamlab {
namespace {

using testing::Log;

// One step: kernels named by `names`, one after another on stream 77, then a sync.
void Step(Log& log, const std::string& names) {
  for (char c : names) log.Kernel(77, "[4096]", 10000, std::string("step_") + c);
  log.SyncStream(77);
}

TEST(ProgramSteps, ALoopShorterThanItsSetUpIsFound) {
  // A solver: 60 distinct set-up kernels (and a few that come back now and then), then 6 rounds.
  Log log;
  for (int i = 0; i < 60; ++i) log.Kernel(77, "[4096]", 10000, "setup_" + std::to_string(i % 50));
  for (int round = 0; round < 6; ++round) Step(log, "ab");
  StepSplit s = FindSteps(log.Convert());
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_EQ(s.steps.size(), 6u);
  EXPECT_EQ(s.period, 3);  // two kernels and the sync
}

TEST(ProgramSteps, ATeardownThatRepeatsIsNotTheLoop) {
  // The loop, then the result copied back and four device syncs (they repeat with period 1, 2).
  Log log;
  for (int i = 0; i < 8; ++i) log.Kernel(77, "[4096]", 10000, "setup_" + std::to_string(i));
  for (int round = 0; round < 7; ++round) Step(log, "x");
  log.Memset(77, 4096);
  for (int i = 0; i < 4; ++i) log.AnyCall("cudaDeviceSynchronize", "sync_device", "", 20000);
  StepSplit s = FindSteps(log.Convert());
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_EQ(s.steps.size(), 7u);
}

TEST(ProgramSteps, AWarmUpWithTheLoopsPeriodInOtherKernelsIsNotPartOfIt) {
  // An MLP run eagerly before its capture (GEMM, GELU, 8 times: period 2), a break (the capture,
  // a check), then the loop of replays: period 2 too, in other work.
  // (Kernels of 1 us: each ends before the next launch, as one stream runs them.)
  Log log;
  for (int i = 0; i < 8; ++i) log.Kernel(77, "[4096]", 1000, "gemm").Kernel(77, "[4096]", 1000, "gelu");
  log.SyncStream(77).Kernel(77, "[4096]", 1000, "capture_a").Kernel(77, "[4096]", 1000, "capture_b").Memset(77, 8192);
  log.SyncStream(77);
  for (int round = 0; round < 10; ++round) log.Kernel(77, "[4096]", 1000, "copy_in").Kernel(77, "[4096]", 1000, "replay");
  Trace t = log.Convert();
  StepSplit s = FindSteps(t);
  ASSERT_EQ(s.source, StepSource::kRepeating);
  ASSERT_GE(s.steps.size(), 9u);
  EXPECT_LE(s.steps.size(), 10u);
  for (const ProgramStep& step : s.steps) {
    const std::string& name = t.scenario.ops[step.first_op].name;
    EXPECT_TRUE(name == "copy_in" || name == "replay") << name;
  }
}

// heldout7's torch.compile(mode="reduce-overhead") server: eager calls before the capture (12
// kernels and a sync each, 5 times: 65 ops), then 10 replays of the captured 12-node graph, each
// followed by a sync. The sequence holds a replay as one op (20 ops for the loop), so counted in
// it the warm-up would look wider; counted in GPU ops, a replay's every node, the loop is.
TEST(ProgramSteps, ALoopOfGraphReplaysIsWiderThanTheEagerWarmUpBeforeItsCapture) {
  Log log;
  const std::string kernels = "abcdefghijkl";
  for (int call = 0; call < 5; ++call) Step(log, kernels);
  log.BeginCapture(77);
  for (uint64_t node = 1; node <= kernels.size(); ++node) log.CapturedKernel(77, "[4096]", node);
  log.EndCapture(77).Instantiate({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  for (int round = 0; round < 10; ++round) {
    log.Replay(77, {{1, 77}, {2, 77}, {3, 77}, {4, 77}, {5, 77}, {6, 77}, {7, 77}, {8, 77}, {9, 77}, {10, 77}, {11, 77}, {12, 77}});
    log.SyncStream(77);
  }
  Trace t = log.Convert();
  StepSplit s = FindSteps(t);
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_GE(s.steps.size(), 9u);
  EXPECT_LE(s.steps.size(), 10u);
  for (const ProgramStep& step : s.steps) EXPECT_TRUE(t.ops[step.first_op].graph_replay) << t.scenario.ops[step.first_op].name;
}

TEST(ProgramSteps, AStepThatAlsoLogsItsLossIsStillAStep) {
  // 12 steps of six kernels; steps 5 and 11 also copy the loss back and wait for it.
  Log log;
  for (int i = 0; i < 12; ++i) {
    for (char c : std::string("abcdef")) log.Kernel(77, "[4096]", 10000, std::string("k_") + c);
    if (i % 6 == 5) log.Memset(77, 4096).SyncStream(77);
    log.Pause(50000);  // the loop's top: the next batch
  }
  StepSplit s = FindSteps(log.Convert());
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_EQ(s.period, 6);
  EXPECT_GE(s.steps.size(), 11u);
}

TEST(ProgramSteps, KernelsOnThreeStreamsThenTheirCopiesAreOneStep) {
  // 10 rounds: a kernel on each of three streams, then each stream's copy back (simpleStreams'
  // shape). The kernels repeat one after another, and so do the copies: the step is all six.
  Log log;
  for (int i = 0; i < 4; ++i) log.Kernel(77, "[4096]", 10000, "setup_" + std::to_string(i));
  for (int round = 0; round < 10; ++round) {
    for (int stream : {77, 88, 99}) log.Kernel(stream, "[4096]", 10000, "init_array");
    for (int stream : {77, 88, 99}) log.Memset(stream, 4096);
    log.Pause(50000);
  }
  StepSplit s = FindSteps(log.Convert());
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_EQ(s.period, 6);
  EXPECT_GE(s.steps.size(), 9u);
  EXPECT_LE(s.steps.size(), 10u);
}

TEST(ProgramSteps, OneKernelLaunchedOverAndOverInsideAStepIsNotALoopOfSteps) {
  // Two training steps (too few for a loop): a forward pass whose elementwise kernel comes in
  // pairs between other kernels, then a foreach optimizer's 60 launches of that same kernel.
  // (Kernels of 1 us: each ends before the next launch, as one stream runs them.)
  Log log;
  for (int step = 0; step < 2; ++step) {
    for (int layer = 0; layer < 10; ++layer) {
      for (int k = 0; k < 4; ++k) log.Kernel(77, "[4096]", 1000, "layer_" + std::to_string(layer) + "_" + std::to_string(k));
      log.Kernel(77, "[4096]", 1000, "elementwise").Kernel(77, "[4096]", 1000, "elementwise");
    }
    for (int p = 0; p < 60; ++p) log.Kernel(77, "[4096]", 1000, "elementwise");
    log.SyncStream(77).Pause(200000);
  }
  StepSplit s = FindSteps(log.Convert());
  EXPECT_EQ(s.source, StepSource::kNone) << s.steps.size() << " steps of " << s.period << " ops";
}

TEST(ProgramSteps, ThreeIterationsAreThreeStepsWhereStepsBeginMidIteration) {
  // Three iterations whose widest host gap (where steps begin) is in their middle: the last
  // step holds only the last iteration's tail, and is still a step.
  Log log;
  for (int i = 0; i < 6; ++i) log.Kernel(77, "[4096]", 10000, "setup_" + std::to_string(i));
  for (int it = 0; it < 3; ++it) {
    for (char c : std::string("abc")) log.Kernel(77, "[4096]", 10000, std::string("head_") + c);
    log.Pause(500000);  // the host's work in the middle of the iteration
    for (char c : std::string("defgh")) log.Kernel(77, "[4096]", 10000, std::string("tail_") + c);
  }
  StepSplit s = FindSteps(log.Convert());
  ASSERT_EQ(s.source, StepSource::kRepeating);
  EXPECT_EQ(s.steps.size(), 3u);
}

}  // namespace
}  // namespace streamlab
