// The copy on a side stream (side_stream_copy.h). The join is one wait_stream (an event recorded
// on the side stream, waited for on the kernels' stream): two calls, each at the program's usual
// call cost. Copies that share the op after them share its join: it waits for both.
#include "engine/whatif/side_stream_copy.h"

#include <map>

namespace streamlab {
namespace {

bool FromHost(const Scenario& s, const Op& op) {
  return op.kind == OpKind::kMemcpy && op.graph < 0 && s.buffers[op.src].kind != MemoryKind::kDevice &&
         s.buffers[op.dst].kind == MemoryKind::kDevice;
}

class SideStreams {
 public:
  explicit SideStreams(Replay& r) : r_(r) {}

  // The side stream of `stream`: created on first use, on the same device and at its priority.
  // It never syncs with the legacy default stream, or it would wait for the kernels it should
  // run beside.
  int Of(int stream) {
    auto [it, fresh] = side_.emplace(stream, static_cast<int>(r_.scenario.streams.size()));
    if (fresh) {
      StreamDesc side = r_.scenario.streams[stream];
      side.name += " (copies, what-if)";
      side.non_blocking = side.kind == StreamKind::kLegacyDefault || side.non_blocking;
      side.kind = StreamKind::kCreated;
      side.library = false;
      r_.scenario.streams.push_back(std::move(side));
    }
    return it->second;
  }

 private:
  Replay& r_;
  std::map<int, int> side_;
};

// The replay op that next uses `stream` after op `from`: an op issued to it, a sync of it, or the
// launch of a graph whose nodes run on it. -1 if none.
int NextUse(const std::vector<Op>& ops, int from, int stream) {
  for (int i = from + 1; i < static_cast<int>(ops.size()); ++i) {
    const Op& op = ops[i];
    if (op.stream != stream) continue;
    return op.graph >= 0 ? op.graph : i;
  }
  return -1;
}

}  // namespace

std::vector<int> CopiesToTheDevice(const Trace& t, const std::vector<int>& calls) {
  std::vector<int> out;
  for (int c : calls)
    if (FromHost(t.scenario, t.scenario.ops[c])) out.push_back(c);
  return out;
}

void CopyOnSideStreams(const std::vector<int>& copies, Replay& r) {
  std::vector<Op>& ops = r.scenario.ops;
  SideStreams sides(r);
  InsertedCalls join_before;  // replay index -> the wait_stream made right before it
  for (int c : copies) {
    int at = r.op_of[c];
    if (at < 0 || !FromHost(r.scenario, ops[at])) continue;
    int stream = ops[at].stream;
    int side = sides.Of(stream);
    ops[at].stream = side;
    int use = NextUse(ops, at, stream);
    if (use < 0 || join_before.count(use)) continue;
    Op join;
    join.kind = OpKind::kWaitStream;
    join.name = "wait_stream (what-if)";
    join.stream = stream;
    join.other_stream = side;
    join.thread = ops[use].thread;
    join.host_after = 2 * r.typical_call;  // cudaEventRecord + cudaStreamWaitEvent
    join_before.emplace(use, std::move(join));
  }
  InsertCalls(r, std::move(join_before), {});
}

}  // namespace streamlab
