// Capturing the steps' launches into graphs (graph_capture.h). A graph's nodes must directly
// follow their launch in the scenario, so the replay's op list is rebuilt: each region becomes
// [graph launch, with the host work after the region][its GPU ops and markers, as nodes][its
// other calls, now free].
#include "engine/whatif/graph_capture.h"

#include <algorithm>

namespace streamlab {
namespace {

// A host break in a step's launches longer than this is not launch overhead: work a graph could
// not capture (getting a batch, logging), which stays where it was.
constexpr TimeNs kLongestCapturedGap = Us(500);

bool IsNodeKind(OpKind kind) {
  return kind == OpKind::kKernel || kind == OpKind::kMemcpy || kind == OpKind::kMemset || kind == OpKind::kRecord ||
         kind == OpKind::kWaitEvent;
}

struct Region {
  std::vector<int> calls;  // recorded calls, in order
  int stream = -1;         // the stream of its first GPU op: where the graph is launched
  int launches = 0;
};

class Capture {
 public:
  Capture(const Trace& t, Replay& r) : t_(t), r_(r) {}

  void FindRegions(const std::vector<int>& anchors) {
    for (size_t k = 0; k + 1 < anchors.size(); ++k) {
      if (anchors[k] < 0 || anchors[k + 1] < 0) continue;
      int thread = t_.scenario.ops[anchors[k]].thread;
      Region region;
      for (int i = anchors[k]; i < anchors[k + 1]; ++i) {
        const Op& op = t_.scenario.ops[i];
        if (!IsRecordedCall(op) || op.thread != thread) continue;
        bool launches_graph = i + 1 < static_cast<int>(t_.ops.size()) && t_.scenario.ops[i + 1].graph == i;
        if (BlocksHostInReplay(t_.scenario, op) || IsSyncCall(op.kind) || IsAllocation(op) || op.kind == OpKind::kQuery ||
            launches_graph) {
          Close(region);
          continue;
        }
        region.calls.push_back(i);
        if (IsNodeKind(op.kind) && op.kind != OpKind::kRecord && op.kind != OpKind::kWaitEvent) {
          ++region.launches;
          if (region.stream < 0) region.stream = op.stream;
        }
        if (HostAfter(i) - OwnTime(i) > kLongestCapturedGap) Close(region);
      }
      Close(region);
    }
  }

  void Rebuild() {
    std::vector<Op>& old = r_.scenario.ops;
    std::vector<int> starts(old.size(), -1);  // replay index of a region's first call -> region
    std::vector<bool> taken(old.size(), false);
    for (size_t g = 0; g < regions_.size(); ++g) {
      starts[r_.op_of[regions_[g].calls.front()]] = static_cast<int>(g);
      for (int c : regions_[g].calls) taken[r_.op_of[c]] = true;
    }
    std::vector<Op> ops;
    std::vector<int> moved(old.size(), -1);
    std::vector<bool> node(old.size() + regions_.size() + 1, false);
    for (size_t i = 0; i < old.size(); ++i) {
      if (starts[i] >= 0) {
        EmitRegion(regions_[starts[i]], old, ops, moved, node);
      } else if (!taken[i]) {
        moved[i] = static_cast<int>(ops.size());
        ops.push_back(old[i]);
      }
    }
    RenumberOps(r_, std::move(ops), moved, node);
  }

 private:
  TimeNs HostAfter(int op) const { return r_.scenario.ops[r_.op_of[op]].host_after; }
  TimeNs OwnTime(int op) const { return t_.ops[op].ret - t_.ops[op].submit; }

  void Close(Region& region) {
    if (region.launches >= 2) regions_.push_back(region);
    region = Region{};
  }

  void EmitRegion(const Region& g, const std::vector<Op>& old, std::vector<Op>& ops, std::vector<int>& moved,
                  std::vector<bool>& node) {
    int thread = t_.scenario.ops[g.calls.front()].thread;
    // The launch's measured cost, then the host work after the region's last call, without
    // that call's own time.
    const DeviceProfile& p = r_.measured;
    Op launch;
    launch.kind = OpKind::kApiCall;
    launch.name = "cudaGraphLaunch (what-if)";
    launch.thread = thread;
    launch.other_stream = g.stream;
    launch.host_after = p.graph_launch_host + p.graph_node_host * g.launches +
                        std::max<TimeNs>(0, old[r_.op_of[g.calls.back()]].host_after - OwnTime(g.calls.back()));
    int at = static_cast<int>(ops.size());
    ops.push_back(launch);
    for (int c : g.calls) {  // the nodes, right after their launch
      int i = r_.op_of[c];
      if (!IsNodeKind(old[i].kind)) continue;
      moved[i] = static_cast<int>(ops.size());
      node[ops.size()] = true;
      ops.push_back(old[i]);
      ops.back().graph = at;
      ops.back().graph_after.clear();
      ops.back().host_after = 0;
    }
    for (int c : g.calls) {  // other calls the graph made unnecessary
      int i = r_.op_of[c];
      if (IsNodeKind(old[i].kind)) continue;
      moved[i] = static_cast<int>(ops.size());
      Op free_call;
      free_call.kind = OpKind::kHostWork;
      free_call.thread = thread;
      ops.push_back(free_call);
    }
  }

  const Trace& t_;
  Replay& r_;
  std::vector<Region> regions_;
};

}  // namespace

void CaptureStepsInGraphs(const Trace& recorded, const std::vector<int>& anchors, Replay& replay) {
  Capture capture(recorded, replay);
  capture.FindRegions(anchors);
  capture.Rebuild();
}

}  // namespace streamlab
