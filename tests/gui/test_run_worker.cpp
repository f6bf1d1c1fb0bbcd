// The GUI's background worker opening a trace (no display needed): it says which stage it is in
// (reading, then explaining), and a Cancel takes effect when the stage ends, showing nothing.
#include "app/gui/loading/run_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace streamlab {
namespace {

const std::string kTrace = std::string(STREAMLAB_SOURCE_DIR) + "/tests/fixtures/recorded/training_loop_nvtx.json.xz";

RunResult Wait(RunWorker& worker) {
  for (int i = 0; i < 6000; ++i) {
    if (std::optional<RunResult> r = worker.TakeResult()) return std::move(*r);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "the worker did not finish within 60 s";
  return {};
}

TEST(RunWorker, OpeningReadsThenExplains) {
  RunWorker worker("");
  RunRequest request;
  request.open = kTrace;
  worker.Start(request);
  EXPECT_NE(worker.Stage(), RunStage::kRunning);  // reading (or already explaining)
  RunResult r = Wait(worker);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.opened);
  EXPECT_FALSE(r.cancelled);
  EXPECT_FALSE(r.trace.ops.empty());
  EXPECT_EQ(worker.Stage(), RunStage::kExplaining);  // the last stage it reached
}

TEST(RunWorker, CancelledOpeningShowsNothing) {
  RunWorker worker("");
  RunRequest request;
  request.open = kTrace;
  worker.Start(request);
  worker.Cancel();  // while it reads: it stops when the file is read, before explaining
  RunResult r = Wait(worker);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(r.trace.ops.empty());
}

}  // namespace
}  // namespace streamlab
