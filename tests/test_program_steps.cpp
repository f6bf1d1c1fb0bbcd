// Steps found from a recorded program's repeating GPU work (engine/analysis/program_steps.h), on
// the loop shapes that programs nobody on the team wrote showed: a loop shorter than its set-up,
// a teardown that repeats too, a warm-up that repeats with the loop's period in other kernels,
// and a step that also logs its loss.
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

}  // namespace
}  // namespace streamlab
