// Builds the happens-before graph and its transitive closure.
#include "engine/analysis/happens_before.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace streamlab {
namespace {
// Above this many clock entries (ops x chains) only direct edges answer Ordered().
constexpr size_t kMaxClockEntries = size_t{16} << 20;

// Stream-ordered pool memory in a recorded program. CUDA hands a block freed with
// cudaFreeAsync on one stream to a cudaMallocAsync on another only once that is safe: the free
// has completed, the allocating stream already waits for it, or the driver makes it wait
// (cudaMemPoolReuse*). In every case the free's stream's work before the free precedes the
// allocating stream's work after the allocation. PyTorch's cudaMallocAsync backend frees a
// record_stream'ed tensor this way; without these edges its correct code looked like a race.
class PoolReuse {
 public:
  explicit PoolReuse(const Scenario& s) : by_process_(ProcessCount(s)), into_stream_(s.streams.size()) {}

  // A recorded stream-ordered allocation or free; `last_on_stream`: each stream's latest GPU
  // op so far.
  void Call(const Scenario& s, const Op& op, const std::vector<int>& last_on_stream) {
    if (op.kind != OpKind::kApiCall || op.other_stream < 0 || op.addresses.empty()) return;
    Memory& m = by_process_[ProcessOfThread(s, op.thread)];
    uint64_t at = op.addresses.front().at;
    if (op.addresses.front().use == AddressUse::kAllocate) {
      uint64_t end = at + std::max<uint64_t>(op.bytes, 1);
      if (end <= at) return;  // a size past the address space (a malformed file)
      // Every freed piece this allocation reuses orders its free's stream before this stream.
      for (const auto& [start, piece] : Take(m.freed, at, end))
        if (piece.after >= 0) into_stream_[op.other_stream].push_back(piece.after);
      m.size[at] = op.bytes;
      return;
    }
    if (op.addresses.front().use != AddressUse::kFree) return;
    auto size = m.size.find(at);
    uint64_t end = at + (size != m.size.end() && size->second ? size->second : 1);  // unknown size: the address alone
    if (end <= at) return;
    if (size != m.size.end()) m.size.erase(size);
    Take(m.freed, at, end);  // an older free of the same memory is superseded
    m.freed[at] = {end, last_on_stream[op.other_stream]};
  }

  // The ops that the next GPU op on `stream` comes after: the frees whose memory an
  // allocation on that stream reused since its last GPU op.
  std::vector<int> Into(int stream) { return std::exchange(into_stream_[stream], {}); }

 private:
  struct Piece {
    uint64_t end;
    int after;  // the last op on the free's stream before the free (-1: none)
  };
  struct Memory {
    std::map<uint64_t, Piece> freed;      // by start address
    std::map<uint64_t, uint64_t> size;    // a live allocation's start -> bytes
  };
  // Removes [at, end) from `freed`, returning the pieces it overlapped (what lies outside
  // the range stays freed).
  static std::vector<std::pair<uint64_t, Piece>> Take(std::map<uint64_t, Piece>& freed, uint64_t at, uint64_t end) {
    std::vector<std::pair<uint64_t, Piece>> taken;
    auto it = freed.upper_bound(at);
    if (it != freed.begin() && std::prev(it)->second.end > at) --it;
    while (it != freed.end() && it->first < end) {
      auto [start, piece] = *it;
      it = freed.erase(it);
      taken.emplace_back(start, piece);
      if (start < at) freed[start] = {at, piece.after};
      if (end < piece.end) freed[end] = {piece.end, piece.after};
    }
    return taken;
  }
  std::vector<Memory> by_process_;
  std::vector<std::vector<int>> into_stream_;
};
// A recorded graph replay (recording_graphs.h): CUDA runs a launch's nodes on streams it
// picks, yet the launch is one step of the stream it was launched into. Its nodes start
// after that stream's earlier work, each after the nodes its graph's edges name, and the
// stream's next op starts after all of them - which the streams' FIFO order alone does not say.
class GraphReplays {
 public:
  explicit GraphReplays(const Scenario& s) : unjoined_(s.streams.size()) {}

  // The program's cudaGraphLaunch call (api_call `i`, followed by its nodes).
  void Launch(const Scenario& s, int i, const std::vector<int>& last_on_stream) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kApiCall || op.other_stream < 0 || i + 1 >= static_cast<int>(s.ops.size()) ||
        s.ops[i + 1].graph != i)
      return;
    std::vector<int> before = Joined(s, op.other_stream);
    if (last_on_stream[op.other_stream] >= 0) before.push_back(last_on_stream[op.other_stream]);
    before_launch_[i] = std::move(before);
  }

  // GPU op `i`: the ops it starts after beyond its stream's previous op.
  std::vector<int> Into(const Scenario& s, int i) {
    const Op& op = s.ops[i];
    auto launch = op.graph >= 0 ? before_launch_.find(op.graph) : before_launch_.end();
    if (launch == before_launch_.end()) return Joined(s, op.stream);
    std::vector<int> into = op.graph_after;
    if (into.empty()) into = launch->second;  // a root: after what came before the launch
    int stream = s.ops[op.graph].other_stream;
    if (op.stream != stream) {
      unjoined_[stream].push_back(i);
      waiting_.insert(stream);
    }
    return into;
  }

  // The nodes a synchronize of `stream` also waits for: those it ran on other streams.
  const std::vector<int>& Unjoined(int stream) const { return unjoined_[stream]; }

 private:
  // What the next op on `stream` comes after: its own launches' nodes (taken), and, across
  // the legacy barrier, those launched into the legacy default stream or a blocking stream
  // of the same device and process (copied: their own stream's next op still needs them).
  std::vector<int> Joined(const Scenario& s, int stream) {
    std::vector<int> into = std::exchange(unjoined_[stream], {});
    waiting_.erase(stream);
    const StreamDesc& st = s.streams[stream];
    for (int other : waiting_) {
      const StreamDesc& o = s.streams[other];
      if (o.device != st.device || o.process != st.process) continue;
      bool barrier = st.kind == StreamKind::kLegacyDefault ? IsBlockingStream(o)
                                                           : IsBlockingStream(st) && o.kind == StreamKind::kLegacyDefault;
      if (barrier) into.insert(into.end(), unjoined_[other].begin(), unjoined_[other].end());
    }
    return into;
  }

  std::vector<std::vector<int>> unjoined_;       // per stream: its launches' nodes no later op of it follows yet
  std::set<int> waiting_;                        // the streams whose unjoined_ is not empty
  std::map<int, std::vector<int>> before_launch_;  // launch call -> what its roots start after
};
}  // namespace

HappensBefore::HappensBefore(const Scenario& s)
    : deps_(ComputeDependencies(s)), successors_(s.ops.size()), waited_for_(s.ops.size()) {
  size_t n = s.ops.size();
  for (size_t i = 0; i < n; ++i)
    for (const DepEdge& e : deps_.into[i]) successors_[e.from].push_back(e.to);

  // Blocking host calls: which GPU ops must be done when the call returns.
  std::vector<int> last_on_stream(s.streams.size(), -1);
  // GPU ops submitted per device (and process: a device-wide wait covers only its own
  // process's streams) since the last device-wide wait (what came before is already ordered
  // through that wait).
  std::vector<std::vector<int>> pending(static_cast<size_t>(s.device_count) * ProcessCount(s));
  auto pending_of = [&](int process, int d) -> std::vector<int>& {
    return pending[static_cast<size_t>(process) * s.device_count + d];
  };
  // Recorded collectives: each part's predecessor on its stream (see kCollective below).
  std::vector<int> before_part(s.recorded ? n : 0, -1);
  // Per host thread: its current device and its latest blocking call (a thread's calls are
  // ordered; different threads' calls are not).
  std::vector<int> device_of_thread(ThreadCount(s), 0), last_blocking_of_thread(ThreadCount(s), -1);
  // Host calls that order the thread's later submissions (blocking calls, ready queries).
  std::vector<bool> orders_host(n, false);
  PoolReuse pool(s);
  GraphReplays replays(s);
  for (size_t i = 0; i < n; ++i) {
    const Op& op = s.ops[i];
    int& device = device_of_thread[op.thread];
    int& last_blocking = last_blocking_of_thread[op.thread];
    std::vector<int>& waits = waited_for_[i];
    int observed = -1;  // a ready query: the record whose work it saw done
    auto all_on_device = [&](int d) {
      std::vector<int>& mine = pending_of(ProcessOfThread(s, op.thread), d);
      waits = std::move(mine);
      mine.clear();
    };
    switch (op.kind) {
      case OpKind::kSyncDevice: all_on_device(device); break;
      case OpKind::kFree: all_on_device(s.buffers[op.buffer].device); break;
      case OpKind::kSyncStream:
        if (last_on_stream[op.stream] >= 0) waits.push_back(last_on_stream[op.stream]);
        for (int node : replays.Unjoined(op.stream)) waits.push_back(node);
        break;
      case OpKind::kSyncEvent:
        if (deps_.last_record_before[i] >= 0) waits.push_back(deps_.last_record_before[i]);
        break;
      case OpKind::kMemcpy: {
        bool pageable = s.buffers[op.src].kind == MemoryKind::kPageableHost ||
                        s.buffers[op.dst].kind == MemoryKind::kPageableHost;
        if (pageable || !op.async) waits.push_back(static_cast<int>(i));  // the copy itself
        break;
      }
      case OpKind::kQuery:
        // A recorded query that answered "done": the host saw the captured work finish, so
        // what it submits next comes after that work, as after a sync (PyTorch's caching
        // allocator reuses a record_stream'ed block only after such a query). It waited for
        // nothing, so it is not in WaitedFor.
        if (op.query_ready && deps_.last_record_before[i] >= 0) observed = deps_.last_record_before[i];
        break;
      case OpKind::kSetDevice: device = op.device; break;
      case OpKind::kApiCall:
        if (s.recorded) pool.Call(s, op, last_on_stream);
        if (s.recorded) replays.Launch(s, static_cast<int>(i), last_on_stream);
        break;
      case OpKind::kCollective:
        // No part completes before every rank reached it: each part comes after the work
        // that preceded every other part on that part's stream.
        if (!s.recorded && op.collective_first == static_cast<int>(i)) {
          std::vector<int> parts = CollectiveParts(s, static_cast<int>(i));
          for (int q : parts) {
            int before = last_on_stream[s.ops[q].stream];
            if (before < 0) continue;
            for (int p : parts)
              if (p != q) successors_[before].push_back(p);
          }
        } else if (s.recorded) {
          // Recorded parts lie apart (each rank called when it got there). At the last part
          // every predecessor is known; edges only go forward in op order, so an edge into
          // a part called before that predecessor is left out: the order is incomplete
          // there, never wrong (recorded traces are not checked for races).
          before_part[i] = last_on_stream[op.stream];
          std::vector<int> parts = CollectiveParts(s, op.collective_first);
          if (parts.back() == static_cast<int>(i))
            for (int q : parts)
              for (int p : parts)
                if (p != q && before_part[q] >= 0 && before_part[q] < p) successors_[before_part[q]].push_back(p);
        }
        break;
      default: break;
    }
    if (IsStreamOp(op)) {
      for (int from : pool.Into(op.stream)) successors_[from].push_back(static_cast<int>(i));
      if (s.recorded)
        for (int from : replays.Into(s, static_cast<int>(i))) successors_[from].push_back(static_cast<int>(i));
      pending_of(s.streams[op.stream].process, s.streams[op.stream].device).push_back(static_cast<int>(i));
      last_on_stream[op.stream] = static_cast<int>(i);
    }
    if (!waits.empty() || observed >= 0) {
      // The call returns after what it waited for, and the host submits everything later
      // after it returns: waited-for -> this call -> later GPU ops. The call links to the
      // GPU ops up to the next blocking call and to that call, which carries the order on
      // (linear in the ops, however many syncs there are).
      for (int w : waits)
        if (w != static_cast<int>(i)) successors_[w].push_back(static_cast<int>(i));
      if (observed >= 0) successors_[observed].push_back(static_cast<int>(i));
      orders_host[i] = true;
      if (last_blocking >= 0) successors_[last_blocking].push_back(static_cast<int>(i));
      last_blocking = static_cast<int>(i);
    } else if (IsStreamOp(op) && last_blocking >= 0 && last_blocking != static_cast<int>(i)) {
      successors_[last_blocking].push_back(static_cast<int>(i));
    }
  }

  // Chains: the streams, then each thread's blocking calls (a blocking call on a stream,
  // such as a synchronous copy, is a member of its stream's chain; the thread's chain
  // reaches it through the edge from the thread's previous blocking call).
  chains_ = s.streams.size() + static_cast<size_t>(ThreadCount(s));
  if (n * chains_ > kMaxClockEntries) return;
  chain_of_.assign(n, -1);
  position_.assign(n, 0);
  std::vector<int> length(chains_, 0);
  for (size_t i = 0; i < n; ++i) {
    if (IsStreamOp(s.ops[i])) chain_of_[i] = s.ops[i].stream;
    else if (orders_host[i]) chain_of_[i] = static_cast<int>(s.streams.size()) + s.ops[i].thread;
    if (chain_of_[i] >= 0) position_[i] = ++length[chain_of_[i]];
  }
  // Edges only go forward in op order: one sweep pushes each op's clock to its successors.
  clock_.assign(n * chains_, 0);
  for (size_t i = 0; i < n; ++i) {
    int32_t* own = &clock_[i * chains_];
    if (chain_of_[i] >= 0) own[chain_of_[i]] = std::max(own[chain_of_[i]], position_[i]);
    for (int next : successors_[i]) {
      int32_t* succ = &clock_[static_cast<size_t>(next) * chains_];
      for (size_t c = 0; c < chains_; ++c) succ[c] = std::max(succ[c], own[c]);
    }
  }
}

bool HappensBefore::Ordered(int a, int b) const {
  if (a == b) return false;
  if (!clock_.empty() && chain_of_[a] >= 0)
    return a < b && clock_[static_cast<size_t>(b) * chains_ + chain_of_[a]] >= position_[a];
  for (int next : successors_[a])
    if (next == b) return true;
  return false;
}

}  // namespace streamlab
