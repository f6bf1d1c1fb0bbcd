// TorchRunsAhead: start a batch, wait until each of its programs has imported torch (or
// ended), run them in order.
#include "app/cli/torch_runs_ahead.h"

#include <algorithm>
#include <utility>

namespace streamlab {

void TorchRunsAhead::StartBatch(size_t first) {
  std::vector<PreparedTorchRun*> batch;
  for (size_t i = first; i < targets_.size() && batch.size() < batch_; ++i) {
    if (!targets_[i] || started_.count(i)) continue;
    Started& s = started_[i];
    try {
      ValidateRunnable(targets_[i]->scenario);
      s.run = std::make_unique<PreparedTorchRun>(PrepareTorchRun(targets_[i]->scenario, options_, true));
      batch.push_back(s.run.get());
    } catch (...) {
      s.error = std::current_exception();
    }
  }
  // A program that never reaches its gate fails at its turn, with its own error.
  for (PreparedTorchRun* run : batch) WaitUntilAtGate(*run, options_.timeout_s);
}

Trace TorchRunsAhead::Run(size_t index) {
  if (!started_.count(index)) StartBatch(index);
  Started current = std::move(started_[index]);
  started_.erase(index);
  if (current.error) std::rethrow_exception(current.error);
  Trace trace = FinishTorchRun(*current.run);
  LabelTrace(*targets_[index], trace);
  return trace;
}

}  // namespace streamlab
