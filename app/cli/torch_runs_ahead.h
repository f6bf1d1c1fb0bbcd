// `verify --backend torch`: the variants' PyTorch programs started in batches. A batch's
// programs start Python and `import torch` together (~4 s of a variant's ~11 s on an H200
// host when each started alone, measured 2026-11-29), wait at their gate, and then run one
// at a time, each with the GPU and the host to itself: a program importing torch beside a
// measured run slowed its Python launches (w2-event-chain/no-events overlapped 77 % instead
// of >= 80 %). Each variant keeps a process of its own, so nothing one variant leaves behind
// (the caching allocator, loaded modules, CUDA_DEVICE_MAX_CONNECTIONS) reaches the next.
#pragma once

#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/torch_backend.h"
#include "app/runner/run_target.h"

namespace streamlab {

class TorchRunsAhead {
 public:
  // `targets[i]` is run at Run(i); a null target is never started (a variant skipped).
  // `batch`: programs started together (1: each alone, when its turn comes).
  TorchRunsAhead(std::vector<const RunTarget*> targets, TorchRunOptions options, size_t batch)
      : targets_(std::move(targets)), options_(std::move(options)), batch_(std::max<size_t>(1, batch)) {}
  // Target i's run, labelled; starts the next batch first where i is not started. Throws what
  // PrepareTorchRun and FinishTorchRun throw (an InputError for a program PyTorch cannot run
  // as written).
  Trace Run(size_t index);

 private:
  struct Started {
    std::unique_ptr<PreparedTorchRun> run;
    std::exception_ptr error;  // the start failed: thrown at its turn
  };
  void StartBatch(size_t first);

  std::vector<const RunTarget*> targets_;
  TorchRunOptions options_;
  size_t batch_;
  std::map<size_t, Started> started_;
};

}  // namespace streamlab
