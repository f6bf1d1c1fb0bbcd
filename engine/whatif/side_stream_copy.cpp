// The copy on a side stream (side_stream_copy.h). The join is one wait_stream (an event recorded
// on the side stream, waited for on the kernels' stream): two calls, each at the program's usual
// call cost. Copies that share the op after them share its join: it waits for both.
#include "engine/whatif/side_stream_copy.h"

#include <map>
#include <set>
#include <utility>

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
  InsertedCalls before;
  std::set<int> joined;                       // replay ops a join was made before
  std::map<std::pair<int, int>, int> last_use;  // per stream and buffer copied into: the last copy's join
  for (int c : copies) {
    int at = r.op_of[c];
    if (at < 0 || !FromHost(r.scenario, ops[at])) continue;
    int stream = ops[at].stream;
    int side = sides.Of(stream);
    ops[at].stream = side;
    // Two buffers: a copy into the buffer the last one filled may overwrite only what the
    // kernels before the last copy's read, so it waits for the stream as it stood there.
    int& last = last_use.try_emplace({stream, ops[at].dst}, -1).first->second;
    if (last >= 0) {
      int event = AddedEvent(r, stream, "buffer free (what-if)");
      before.emplace(last, AddedCall(OpKind::kRecord, "cudaEventRecord (what-if)", stream, event, ops[last].thread, r.typical_call));
      before.emplace(at, AddedCall(OpKind::kWaitEvent, "cudaStreamWaitEvent (what-if)", side, event, ops[at].thread, r.typical_call));
    }
    last = NextUse(ops, at, stream);
    if (last < 0 || !joined.insert(last).second) continue;
    Op join = AddedCall(OpKind::kWaitStream, "wait_stream (what-if)", stream, -1, ops[last].thread,
                        2 * r.typical_call);  // cudaEventRecord + cudaStreamWaitEvent
    join.other_stream = side;
    before.emplace(last, std::move(join));
  }
  InsertCalls(r, std::move(before), {});
}

}  // namespace streamlab
