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
  // Vector clocks over chains: each stream, and each host thread's blocking calls, is a
  // chain whose members are ordered by edges. clock_[op * chains_ + c] = the highest position
  // in chain c that happens before (or is) op; a reaches b iff b's clock covers a's place.
  // Memory grows as ops x chains, not ops squared: 100 000 ops on 30 streams take 12 MB.
  size_t chains_ = 0;
  std::vector<int> chain_of_;     // the chain an op is a member of (-1: none)
  std::vector<int> position_;     // its position in that chain, from 1
  std::vector<int32_t> clock_;
};

}  // namespace streamlab
