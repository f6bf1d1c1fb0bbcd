// The happens-before graph of a run: CUDA's ordering edges (stream FIFO, event waits,
// wait_stream, legacy barrier) plus the host's blocking calls (a sync that returned orders
// the work it waited for before everything the host submitted afterwards).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/scenario/dependencies.h"
#include "engine/trace/trace.h"

namespace streamlab {

class HappensBefore {
 public:
  explicit HappensBefore(const Scenario& scenario);
  // True if op a is guaranteed to finish before op b starts.
  bool Ordered(int a, int b) const;
  const StreamDependencies& deps() const { return deps_; }
  // The GPU ops a blocking host op waits for (empty for non-blocking ops).
  const std::vector<int>& WaitedFor(int host_op) const { return waited_for_[host_op]; }

 private:
  StreamDependencies deps_;
  std::vector<std::vector<int>> successors_;
  std::vector<std::vector<int>> waited_for_;
  size_t words_ = 0;
  std::vector<uint64_t> reach_;  // transitive closure, one bit row per op
};

}  // namespace streamlab
