// `--backend torch`: a lab's scenario run as the PyTorch program StreamLab writes for it
// (engine/scenario/torch_program.h), under `streamlab-cli record` in a child process, and
// mapped back onto the lab's ops (engine/ingest/torch_mapping.h).
#pragma once

#include <string>
#include <utility>

#include "engine/trace/executor.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct TorchRunOptions {
  std::string self;          // this executable (for `record`)
  double timeout_s = 60;
  std::string save_program;  // also write the program here (before anything can fail)
};

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
