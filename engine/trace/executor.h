// The one interface every backend implements - the simulator, the CUDA executor, the lab as a
// PyTorch program: run a Scenario, return its Trace.
#pragma once

#include <string>

#include "engine/scenario/scenario.h"
#include "engine/trace/backend.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct RunOptions {
  TimeNs timeout = Ms(10000);  // watchdog for real GPU runs
  int repeat = 1;              // real GPU runs: keep the median of N measured runs
  bool warmup = true;          // real GPU runs: one unmeasured pass first
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual Backend Kind() const = 0;  // kSim, kCuda or kTorch
  // Throws InputError for scenarios this backend cannot run, RunError when a run fails.
  virtual Trace Run(const Scenario& scenario, const RunOptions& options) = 0;
};

}  // namespace streamlab
