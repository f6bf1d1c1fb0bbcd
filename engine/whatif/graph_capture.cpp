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
  int thread = -1;         // the loop's thread, which launches the graph
  int stream = -1;         // the stream of its first GPU op: where the graph is launched
  int launches = 0;
};

class Capture {
 public:
  Capture(const Trace& t, Replay& r) : t_(t), r_(r), threads_(ThreadCount(t.scenario)), woken_(threads_, false) {
    for (const Op& op : r.scenario.ops)
      if (op.woken_by >= 0) woken_[op.thread] = true;
  }

  // A step's calls on the loop's thread and on its helpers, in the order they were made: a
  // capture of the whole step holds what every thread launched into it (PyTorch's backward pass,
  // launched by the autograd thread while the loop's thread waits in backward()).
  void FindRegions(const std::vector<int>& anchors) {
    for (size_t k = 0; k + 1 < anchors.size(); ++k) {
      if (anchors[k] < 0 || anchors[k + 1] < 0) continue;
      int thread = t_.scenario.ops[anchors[k]].thread;
      std::vector<bool> in_step = StepThreads(thread, anchors[k], anchors[k + 1]);
      Region region;
      region.thread = LoopThread(anchors[k], anchors[k + 1], in_step, thread);
      TimeNs last_return = -1;
      for (int i = anchors[k]; i < anchors[k + 1]; ++i) {
        const Op& op = t_.scenario.ops[i];
        if (!IsRecordedCall(op) || !in_step[op.thread]) continue;
        // A host break between launches is not launch overhead: work a graph could not capture.
        if (last_return >= 0 && t_.ops[i].submit - last_return > kLongestCapturedGap) Close(region);
        last_return = std::max(last_return, t_.ops[i].ret);
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
    // A wake whose waker is now a node launched from the woken call's own thread is that
    // thread's own order: no wake is left to wait for.
    for (Op& op : r_.scenario.ops)
      if (op.woken_by >= 0 && r_.scenario.ops[op.woken_by].thread == op.thread) op.woken_by = -1;
  }

 private:
  TimeNs OwnTime(int op) const { return t_.ops[op].ret - t_.ops[op].submit; }

  // The threads whose calls a step's capture holds: the loop's thread, and each thread that
  // launched GPU work onto a stream the loop's thread launched onto in the step.
  std::vector<bool> StepThreads(int thread, int begin, int end) const {
    const Scenario& s = t_.scenario;
    std::vector<bool> streams(s.streams.size(), false), threads(threads_, false);
    threads[thread] = true;
    for (int i = begin; i < end; ++i)
      if (s.ops[i].thread == thread && IsGpuWork(s.ops[i]) && s.ops[i].stream >= 0) streams[s.ops[i].stream] = true;
    for (int i = begin; i < end; ++i)
      if (IsGpuWork(s.ops[i]) && s.ops[i].stream >= 0 && streams[s.ops[i].stream]) threads[s.ops[i].thread] = true;
    return threads;
  }

  // The thread that would replay the step's graphs, whichever thread made the step's first
  // call: the first in the step that no other thread wakes; where each is woken by another
  // (PyTorch's loop thread wakes the autograd thread in backward() and is woken back when it
  // ends), the one that made the program's first call (the loop's, which created the context);
  // `fallback` when neither is in the step.
  int LoopThread(int begin, int end, const std::vector<bool>& in_step, int fallback) const {
    for (int i = begin; i < end; ++i) {
      const Op& op = t_.scenario.ops[i];
      if (IsRecordedCall(op) && in_step[op.thread] && !woken_[op.thread]) return op.thread;
    }
    for (const Op& op : t_.scenario.ops)
      if (IsRecordedCall(op)) return in_step[op.thread] ? op.thread : fallback;
    return fallback;
  }

  // A captured kernel as it runs without the recorder (device_profile.h's
  // recorded_kernel_gpu_cost): the graph's launch cost is the unrecorded one too.
  void WithoutTheRecorder(Op& node) const {
    KernelSpec& k = node.kernel;
    if (node.kind != OpKind::kKernel || k.kind != KernelKind::kForeign) return;
    k.work = std::max<int64_t>(k.work / 2, k.work - r_.measured.recorded_kernel_gpu_cost);
  }

  void Close(Region& region) {
    if (region.launches >= 2) regions_.push_back(region);
    int thread = region.thread;
    region = Region{};
    region.thread = thread;
  }

  void EmitRegion(const Region& g, const std::vector<Op>& old, std::vector<Op>& ops, std::vector<int>& moved,
                  std::vector<bool>& node) {
    // The loop's thread launches every graph of its step, one that holds only a backward pass
    // too (graph.replay() where backward() was); the host time after the launch is that after
    // the loop thread's last call in the region (or, where it made none, the region's last).
    int thread = g.thread;
    int last = g.calls.back();
    for (int c : g.calls)
      if (t_.scenario.ops[c].thread == thread) last = c;
    // The launch's measured cost, then the host work after the launching thread's last call,
    // without that call's own time.
    const DeviceProfile& p = r_.measured;
    Op launch;
    launch.kind = OpKind::kApiCall;
    launch.name = "cudaGraphLaunch (what-if)";
    launch.thread = thread;
    launch.other_stream = g.stream;
    launch.host_after = p.graph_launch_host + p.graph_node_host * g.launches +
                        std::max<TimeNs>(0, old[r_.op_of[last]].host_after - OwnTime(last));
    // A region that begins on a thread another woke (PyTorch's autograd thread, woken by the
    // loop's backward()) is launched only once woken, as its first call was: without this the
    // woken thread launched every step's graph at the run's start.
    const Op& first = old[r_.op_of[g.calls.front()]];
    launch.woken_by = first.woken_by;  // an old index: RenumberOps maps it
    launch.woken_delay = first.woken_delay;
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
      ops.back().thread = thread;  // issued with its launch, whichever thread launched it
      ops.back().woken_by = -1;
      WithoutTheRecorder(ops.back());
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
  int threads_;  // the recording's host threads (counted once: a long recording has 10^5 steps)
  std::vector<bool> woken_;  // per thread: another thread wakes it (the replay's woken_by)
  std::vector<Region> regions_;
};

}  // namespace

void CaptureStepsInGraphs(const Trace& recorded, const std::vector<int>& anchors, Replay& replay) {
  Capture capture(recorded, replay);
  capture.FindRegions(anchors);
  capture.Rebuild();
}

}  // namespace streamlab
