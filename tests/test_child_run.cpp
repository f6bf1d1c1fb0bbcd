// Children started now and waited for later (`verify --backend torch` starts the next
// variant's program while one runs): the environment they get, the gate their program
// waits at, and that a child dropped unwaited is killed. No GPU: plain shell and Python.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/runner/child_run.h"
#include "engine/scenario/torch_program.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

std::string TempFile(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("streamlab-test-" + std::to_string(getpid()) + "-" + name)).string();
}

bool StillRunning(pid_t pid) { return kill(pid, 0) == 0; }

TEST(ChildRun, AStartedChildGetsTheEnvironmentAskedFor) {
  StartedChild child = StartCommandInChild({"sh", "-c", "test \"$STREAMLAB_TEST_VALUE\" = 42"},
                                           {{"STREAMLAB_TEST_VALUE", "42"}});
  EXPECT_EQ(WaitForChild(child, 10, nullptr, {}).exit_code, 0);
  StartedChild without = StartCommandInChild({"sh", "-c", "test \"$STREAMLAB_TEST_VALUE\" = 42"}, {});
  EXPECT_EQ(WaitForChild(without, 10, nullptr, {}).exit_code, 1);
}

TEST(ChildRun, AnEndedChildIsSeenEndedAndItsStatusStillRead) {
  StartedChild child = StartCommandInChild({"sh", "-c", "exit 7"}, {});
  for (int i = 0; i < 400 && !child.Exited(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(child.Exited());
  EXPECT_EQ(WaitForChild(child, 10, nullptr, {}).exit_code, 7);
}

TEST(ChildRun, AChildDroppedBeforeItsTurnIsKilled) {
  pid_t pid = -1;
  {
    StartedChild child = StartCommandInChild({"sleep", "30"}, {});
    pid = child.pid;
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(StillRunning(pid));
  }
  EXPECT_FALSE(StillRunning(pid));
  EXPECT_EQ(errno, ESRCH);  // killed and reaped, not a zombie
}

// The Python a lab's PyTorch program runs before its first CUDA call, taken from the program
// itself (everything from `def wait_for_turn` to its call), with the two modules it uses.
std::string GateCode() {
  const Lab& lab = FindLab("w2-event-chain");
  std::string text = ScenarioAsTorchProgram(lab.build(ResolveLabArgs(lab, "chain", {}))).text;
  size_t begin = text.find("def wait_for_turn");
  size_t call = text.find("\nwait_for_turn()\n");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(call, std::string::npos);
  EXPECT_LT(call, text.find("torch.cuda._sleep"));  // before anything touches CUDA
  return "import os, time\n" + text.substr(begin, call + 17 - begin);
}

TEST(ChildRun, ALabsPyTorchProgramWaitsAtItsGateUntilTheFileExists) {
  std::string gate = TempFile("gate");
  std::filesystem::remove(gate);
  StartedChild child = StartCommandInChild({"python3", "-c", GateCode()},
                                           {{"STREAMLAB_START_GATE", gate}, {"STREAMLAB_GATE_OWNER", std::to_string(getpid())}});
  // Python's start takes its time on a loaded machine: wait for the gate's .ready, then a bit.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!std::filesystem::exists(gate + ".ready") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(std::filesystem::exists(gate + ".ready")) << "did not say it reached its gate";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(StillRunning(child.pid)) << "went on before its turn";
  EXPECT_FALSE(child.Exited());
  std::ofstream(gate) << "go\n";
  auto begin = std::chrono::steady_clock::now();
  EXPECT_EQ(WaitForChild(child, 10, nullptr, {}).exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(2));
  std::filesystem::remove(gate);
  std::filesystem::remove(gate + ".ready");
}

TEST(ChildRun, AGatedProgramWhoseOwnerIsGoneEndsInsteadOfWaiting) {
  StartedChild owner = StartCommandInChild({"true"}, {});
  std::string owner_pid = std::to_string(owner.pid);
  WaitForChild(owner, 10, nullptr, {});  // reaped: that pid is no one's now
  StartedChild child = StartCommandInChild({"python3", "-c", GateCode()},
                                           {{"STREAMLAB_START_GATE", TempFile("never")}, {"STREAMLAB_GATE_OWNER", owner_pid}});
  ChildRunResult result = WaitForChild(child, 10, nullptr, {});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.error.find("ended before this run's turn"), std::string::npos) << result.error;
}

TEST(ChildRun, RunByHandAProgramDoesNotWait) {
  StartedChild child = StartCommandInChild({"python3", "-c", GateCode()}, {});
  EXPECT_EQ(WaitForChild(child, 10, nullptr, {}).exit_code, 0);
}

}  // namespace
}  // namespace streamlab
