// `--backend torch`: a lab's scenario run as the PyTorch program StreamLab writes for it
// (engine/scenario/torch_program.h), under `streamlab-cli record` in a child process, and
// mapped back onto the lab's ops (engine/ingest/torch_mapping.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "app/runner/child_run.h"

#include "engine/trace/executor.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct TorchRunOptions {
  std::string self;          // this executable (for `record`)
  double timeout_s = 60;
  std::string save_program;  // also write the program here (before anything can fail)
};

// A PyTorch run started ahead of its turn: its program written and `record` started, the
// program waiting (after `import torch`, before any CUDA call) until FinishTorchRun lets it
// go on (app/cli/torch_runs_ahead.h says why). Dropped unfinished, the child is killed.
struct PreparedTorchRun {
  Scenario scenario;
  std::vector<std::string> differs;
  double timeout_s = 60;
  std::string program_path, contents_dir, gate_path;  // gate_path empty: not waiting
  std::string ready_path;                             // the program writes it at its gate
  StartedChild child;
  PreparedTorchRun() = default;
  PreparedTorchRun(PreparedTorchRun&& other) noexcept;
  PreparedTorchRun& operator=(PreparedTorchRun&&) = delete;
  ~PreparedTorchRun();
};

// Checks and starts (the same errors as RunInTorch); `gated`: the program waits for its turn
// (a torchrun job never does: its processes start CUDA as they start).
PreparedTorchRun PrepareTorchRun(const Scenario& scenario, const TorchRunOptions& options, bool gated);
// Waits until a gated program has reached its gate or ended (at most timeout_s).
void WaitUntilAtGate(const PreparedTorchRun& run, double timeout_s);
// Lets the program go on, waits for it and maps its recording onto the lab's ops.
Trace FinishTorchRun(PreparedTorchRun& run);

// Throws BackendError (exit 3) without a GPU or a python3 that has PyTorch with CUDA,
// InputError for what the program cannot run, RunError when the run or the mapping fails.
Trace RunInTorch(const Scenario& scenario, const TorchRunOptions& options);

// The same behind the Executor interface (the watchdog's timeout becomes the run's, at least 60 s).
class TorchExecutor : public Executor {
 public:
  explicit TorchExecutor(TorchRunOptions options) : options_(std::move(options)) {}
  Backend Kind() const override { return Backend::kTorch; }
  Trace Run(const Scenario& scenario, const RunOptions& run) override;

 private:
  TorchRunOptions options_;
};

}  // namespace streamlab
