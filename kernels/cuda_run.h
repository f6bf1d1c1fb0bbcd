// One scenario on the real GPU: owns its streams, events and buffers (RAII), runs passes
// over the op list with a timing event before and after every GPU op and per-block
// %globaltimer records in every kernel, and converts everything to one host time base.
#pragma once

#include <memory>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace streamlab {

class CudaRun {
 public:
  CudaRun(const Scenario& scenario, TimeNs timeout);
  ~CudaRun();
  CudaRun(const CudaRun&) = delete;
  CudaRun& operator=(const CudaRun&) = delete;

  // Runs every op once. The trace's ops, clock error and notes are filled in; the caller
  // adds metadata. Throws RunError (CudaCallError for a failed call) on failure.
  Trace Pass();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace streamlab
