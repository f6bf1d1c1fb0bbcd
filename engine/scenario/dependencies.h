// The ordering edges CUDA's stream semantics put between GPU ops, derived from the
// scenario alone (submission order), before anything runs. The simulator executes them; the
// exporters draw them; the analyzer explains with them.
#pragma once

#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

enum class EdgeKind {
  kStreamOrder,    // previous op on the same stream (FIFO)
  kEvent,          // cudaStreamWaitEvent on the latest record of the event
  kWaitStream,     // wait_stream: the other stream's last op at the time of the call
  kLegacyBarrier,  // legacy default stream <-> blocking streams
};

struct DepEdge {
  int from = -1;  // op index that must finish first
  int to = -1;    // op index that waits
  EdgeKind kind = EdgeKind::kStreamOrder;
};

struct StreamDependencies {
  std::vector<std::vector<DepEdge>> into;  // into[op]: edges that op waits on
  std::vector<int> last_record_before;     // for wait_event/sync_event/query: the record op, or -1
  std::vector<int> last_on_stream_before;  // for wait_stream/sync_stream: that stream's last op, or -1
};

// The edges in submission (index) order: the order of the calls of a one-thread program.
StreamDependencies ComputeDependencies(const Scenario& scenario);

// The same rules, op by op, in the order the calls are made. With several host threads the
// calls interleave in time, not in index order, and the simulator feeds them as it issues
// them: a stream's FIFO follows the call that reached it first.
class DependencyTracker {
 public:
  explicit DependencyTracker(const Scenario& scenario);
  struct OpDeps {
    std::vector<DepEdge> into;
    int last_record_before = -1;
    int last_on_stream_before = -1;
  };
  OpDeps Add(int op);

 private:
  const Scenario& s_;
  std::vector<int> last_on_stream_, last_record_;
  std::vector<int> last_legacy_;  // per (process, device): the legacy stream's latest op
};

const char* ToString(EdgeKind kind);

}  // namespace streamlab
