// SimExecutor: the host thread's side of a simulated run.
// Rules applied at submission (each from the CUDA programming guide or GPU-FACTS.md):
//  - a stream is FIFO: each op depends on the previous op of its stream;
//  - the legacy default stream waits for all blocking streams' earlier work, and blocking
//    streams' later work waits for it; non-blocking streams are exempt; the per-thread
//    default stream counts as blocking;
//  - cudaEventRecord captures the work submitted to the stream so far; cudaStreamWaitEvent
//    waits for the latest record (none yet = waits for nothing); wait_stream = record + wait;
//  - host blocking: the three syncs, cudaFree (device-wide), cudaMallocHost (its own cost;
//    device-wide only if the profile says so), pageable copies (until done), cudaMemcpy,
//    CUDA_LAUNCH_BLOCKING (every launch waits for its kernel);
//  - an NCCL collective's part occupies SMs from when its stream reaches it until every
//    rank's part has, plus the transfer (sim_gpu.h); after launching it, NCCL makes its own
//    internal stream wait for the part (recorded on two H200s with NCCL 2.28, one process
//    driving both GPUs: an event recorded after the kernel, NCCL's stream waiting on it).
//    That wait sits in the hardware queue of NCCL's stream, modelled as the next one after
//    the program's streams: with one connection it holds everything behind it until the
//    collective ends;
//  - lazy loading (measured on an H200): the first launch of a kernel function costs the
//    host ~20 us but does not block it; on the GPU the module load waits for all work
//    already submitted to the device, and all work submitted after it waits for the load.
#include "engine/sim/sim_executor.h"

#include <ctime>
#include <functional>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include "engine/sim/buffer_contents.h"
#include "engine/scenario/dependencies.h"
#include "engine/util/errors.h"
#include "engine/sim/sim_gpu.h"

namespace streamlab {
namespace {

// Per-block records beyond this many per run are not kept (the run is still simulated).
constexpr size_t kMaxBlockRecords = 200000;

class SimRun {
 public:
  // `block_records`: per-block records kept at most (a lab's run draws them; a replay's
  // foreign kernels have none to compare with).
  SimRun(const DeviceProfile& p, const Scenario& s, size_t block_records)
      : p_(p),
        s_(s),
        gpu_(p, s.device_count, s.settings.max_connections, block_records),
        tracker_(s),
        last_item_on_stream_(s.streams.size(), -1),
        load_barrier_(s.device_count, -1),
        queue_of_stream_(s.streams.size(), 0),
        nccl_queue_(s.device_count, 0),
        item_of_op_(s.ops.size(), -1),
        returned_(s.ops.size(), false) {
    std::vector<int> per_device(s.device_count, 0);
    for (size_t i = 0; i < s.streams.size(); ++i)
      queue_of_stream_[i] = per_device[s.streams[i].device]++ % s.settings.max_connections;
    for (int d = 0; d < s.device_count; ++d) nccl_queue_[d] = per_device[d] % s.settings.max_connections;
    // A warm-up pass has already launched (and so loaded) every kernel function.
    if (s.settings.warmup)
      for (const Op& op : s.ops)
        if (op.kind == OpKind::kKernel) loaded_.insert(KernelKey(op));
  }

  Trace Run() {
    Trace trace;
    trace.ops.resize(s_.ops.size());
    threads_.resize(ThreadCount(s_));
    for (size_t i = 0; i < s_.ops.size(); ++i) threads_[s_.ops[i].thread].ops.push_back(static_cast<int>(i));
    // With several host threads, the program spawns them one after another: each starts
    // (its first call) a little after the one before it.
    if (threads_.size() > 1)
      for (size_t t = 0; t < threads_.size(); ++t) threads_[t].clock = static_cast<TimeNs>(t) * p_.thread_spawn;
    // Host threads interleave in time order: the one whose clock is earliest calls next, and
    // a blocked thread wakes when what it waits for is done.
    while (true) {
      int next = EarliestRunnable(trace);
      TimeNs horizon = next < 0 ? std::numeric_limits<TimeNs>::max() : threads_[next].clock;
      if (WakeBlockedThreads(horizon, trace)) continue;
      if (next < 0) {
        for (const HostThread& th : threads_)
          if (th.next < th.ops.size()) throw RunError("simulator: host threads wait for each other's calls (deadlock)");
        break;
      }
      HostThread& th = threads_[next];
      int index = th.ops[th.next++];
      IssueOnThread(th, index, trace);
      // A graph's nodes go with their launch, before the GPU runs on to another thread's clock
      // (the launching thread's clock is already past the host work after the launch).
      while (th.next < th.ops.size() && s_.ops[th.ops[th.next]].graph == index) IssueOnThread(th, th.ops[th.next++], trace);
    }
    gpu_.RunUntil([&] { return gpu_.AllIdle(); });
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      if (item_of_op_[i] < 0) continue;
      const SimItem& it = gpu_.item(item_of_op_[i]);
      OpRecord& rec = trace.ops[i];
      rec.gpu = true;
      rec.ready = it.ready;
      rec.start = it.start;
      rec.end = it.end;
      rec.blocks = it.blocks;
    }
    return trace;
  }

 private:
  struct HostThread {
    std::vector<int> ops;
    size_t next = 0;
    TimeNs clock = 0;
    int device = 0;
    std::function<bool()> blocked;  // set while the thread waits in a call
    TimeNs after_block = 0;         // host time the call still takes once unblocked
    int blocked_op = -1;
    int floor_item = -1;            // a replayed copy: the call lasts its host_floor from this item's ready
  };

  // The thread to call next: the earliest, of those not blocked in a call and not waiting for
  // another thread's call to return (a replayed recording's wake-up, woken_by). A woken thread's
  // clock moves to when its waker returned, plus the measured delay.
  int EarliestRunnable(const Trace& trace) {
    int best = -1;
    for (size_t t = 0; t < threads_.size(); ++t) {
      HostThread& th = threads_[t];
      if (th.blocked || th.next >= th.ops.size()) continue;
      const Op& op = s_.ops[th.ops[th.next]];
      if (op.woken_by >= 0) {
        if (!returned_[op.woken_by]) continue;
        th.clock = std::max(th.clock, trace.ops[op.woken_by].ret + op.woken_delay);
      }
      if (best < 0 || th.clock < threads_[best].clock) best = static_cast<int>(t);
    }
    return best;
  }

  // Runs the GPU up to `horizon` or until a blocked thread's wait is over; true if one woke.
  bool WakeBlockedThreads(TimeNs horizon, Trace& trace) {
    bool any_blocked = false;
    for (const HostThread& th : threads_) any_blocked |= static_cast<bool>(th.blocked);
    if (!any_blocked) return false;
    while (true) {
      for (HostThread& th : threads_) {
        if (!th.blocked || !th.blocked()) continue;
        th.blocked = nullptr;
        returned_[th.blocked_op] = true;
        th.clock = std::max(th.clock, gpu_.Now()) + p_.sync_wake + th.after_block;
        if (th.floor_item >= 0) th.clock = std::max(th.clock, FloorEnd(th.floor_item, trace.ops[th.blocked_op].submit));
        trace.ops[th.blocked_op].ret = th.clock;
        th.clock += s_.ops[th.blocked_op].host_after;
        return true;
      }
      if (!gpu_.StepNoLaterThan(horizon)) {
        if (horizon == std::numeric_limits<TimeNs>::max())
          throw RunError("simulator: a host thread waits for work that can never finish (deadlock)");
        return false;
      }
    }
  }

  void IssueOnThread(HostThread& th, int index, Trace& trace) {
    OpRecord& rec = trace.ops[index];
    rec.op = index;
    const Op& op = s_.ops[index];
    host_ = th.clock;
    device_ = th.device;
    if (op.graph >= 0) {
      // A node: submitted by its graph launch, at no host cost of its own (Issue skips the
      // per-call costs of nodes, so their GPU items become visible when the launch returned).
      rec.submit = rec.ret = trace.ops[op.graph].ret;
      host_ = rec.ret;  // not the thread's clock: a replayed launch's host_after came after it
      Issue(index, rec);
      returned_[index] = true;  // a replay's call captured into a graph returns with its launch
      return;
    }
    rec.submit = host_;
    pending_block_ = nullptr;
    pending_floor_item_ = -1;
    Issue(index, rec);
    th.clock = host_ + (pending_block_ ? 0 : op.host_after);  // a blocked call's comes when it returns
    th.device = device_;
    rec.ret = host_;
    returned_[index] = !pending_block_;
    if (pending_block_) {
      th.blocked = std::move(pending_block_);
      th.after_block = pending_after_block_;
      th.blocked_op = index;
      th.floor_item = pending_floor_item_;
    }
  }

  void Issue(int index, OpRecord& rec) {
    const Op& op = s_.ops[index];
    deps_ = tracker_.Add(index);
    switch (op.kind) {
      case OpKind::kKernel: return IssueKernel(index, rec);
      case OpKind::kMemcpy: return IssueCopy(index, rec);
      case OpKind::kPeerCopy: {
        host_ += p_.launch_host;
        SimItem it = StreamItem(index, SimItem::Kind::kCopy);
        it.engine = CopyEngine::kPeer;
        it.transfer = TransferDuration(p_, op.bytes, p_.peer_gbps);
        Submit(index, std::move(it));
        return;
      }
      case OpKind::kCollective: {
        int ranks = static_cast<int>(CollectiveParts(s_, index).size());
        int later = op.collective_first + ranks - 1 - index;  // parts still to be called
        host_ += p_.nccl_launch_host + (later == 0 ? p_.nccl_group_host : 0);
        SimItem it = StreamItem(index, SimItem::Kind::kKernel);
        // ncclGroupEnd, after the last rank's call, launches every rank's kernel.
        if (later > 0) it.visible_at += later * p_.nccl_launch_host + p_.nccl_group_host;
        it.grid = p_.nccl_channels;
        it.threads = p_.nccl_threads;
        it.priority = s_.streams[op.stream].priority;
        it.group = op.collective_first;
        it.group_size = ranks;
        it.transfer = CollectiveDuration(p_, op.collective, op.bytes, ranks);
        SimItem join;  // NCCL's internal stream waits for the part (see the header)
        join.device = it.device;
        join.queue = nccl_queue_[it.device];
        join.visible_at = it.visible_at;
        join.deps = {Submit(index, std::move(it))};
        gpu_.Submit(std::move(join));
        return;
      }
      case OpKind::kMemset: {
        host_ += op.async ? p_.launch_host : p_.memset_host;
        SimItem it = StreamItem(index, SimItem::Kind::kKernel);
        it.grid = 1;
        it.threads = 256;
        it.block_time = op.duration > 0 ? op.duration : TransferDuration(p_, op.bytes, p_.memset_gbps);
        Submit(index, std::move(it));
        return;
      }
      case OpKind::kRecord:
        if (op.graph < 0) host_ += p_.record_host;  // a node's call is the launch's
        Submit(index, StreamItem(index, SimItem::Kind::kMarker));
        return;
      case OpKind::kWaitEvent:
      case OpKind::kWaitStream:
        if (op.graph < 0) host_ += op.kind == OpKind::kWaitStream ? p_.record_host + p_.wait_host : p_.wait_host;
        Submit(index, StreamItem(index, SimItem::Kind::kMarker));
        return;
      case OpKind::kSyncDevice:
        return Block([&, d = device_] { return gpu_.DeviceIdle(d); });
      case OpKind::kSyncStream: {
        int last = ItemOf(deps_.last_on_stream_before);
        return Block([&, last] { return last < 0 || gpu_.item(last).done; });
      }
      case OpKind::kSyncEvent: {
        int last = ItemOf(deps_.last_record_before);
        return Block([&, last] { return last < 0 || gpu_.item(last).done; });
      }
      case OpKind::kQuery: {
        gpu_.AdvanceTo(host_);
        int last = ItemOf(deps_.last_record_before);
        rec.note = (last < 0 || gpu_.item(last).done) ? "ready" : "not ready";
        host_ += p_.query_host;
        return;
      }
      case OpKind::kHostWork:
      case OpKind::kApiCall: host_ += op.duration; return;
      case OpKind::kGraphLaunch: {
        int nodes = GraphNodesEnd(s_, index) - index - 1;
        host_ += p_.graph_launch_host + p_.graph_node_host * nodes;
        return;
      }
      case OpKind::kSetDevice:
        device_ = op.device;
        host_ += p_.set_device_host;
        return;
      case OpKind::kMalloc:
        host_ += p_.malloc_base + p_.malloc_per_mb * static_cast<TimeNs>(
                                      s_.buffers[op.buffer].bytes >> 20);
        return;
      case OpKind::kFree: {
        int d = s_.buffers[op.buffer].device;
        Block([&, d] { return gpu_.DeviceIdle(d); }, p_.free_host);
        return;
      }
      case OpKind::kMallocHost:
      {
        TimeNs cost = p_.malloc_host_base +
                      p_.malloc_host_per_mb * static_cast<TimeNs>(s_.buffers[op.buffer].bytes >> 20);
        if (p_.malloc_host_syncs_device) Block([&, d = device_] { return gpu_.DeviceIdle(d); }, cost);
        else host_ += cost;
        return;
      }
    }
  }

  void IssueKernel(int index, OpRecord& rec) {
    const Op& op = s_.ops[index];
    int device = s_.streams[op.stream].device;
    bool node = op.graph >= 0;  // graph nodes: loaded when captured, no launch call of their own
    if (node) loaded_.insert(KernelKey(op));
    // Lazy loading: the first launch of a function loads its module. The load waits for
    // the work already on the device, and everything submitted later waits for the load.
    if (s_.settings.lazy_loading && loaded_.insert(KernelKey(op)).second) {
      host_ += p_.module_load_host;
      SimItem load;
      load.kind = SimItem::Kind::kCopy;
      load.engine = CopyEngine::kModuleLoad;
      load.op = index;
      load.device = device;
      load.stream = op.stream;
      load.queue = -1;
      load.visible_at = host_ + p_.submit_latency;
      load.transfer = p_.module_load;
      for (size_t st = 0; st < s_.streams.size(); ++st)
        if (s_.streams[st].device == device && last_item_on_stream_[st] >= 0)
          load.deps.push_back(last_item_on_stream_[st]);
      load_barrier_[device] = gpu_.Submit(std::move(load));
      rec.note = "lazy module load";
    }
    if (!node) host_ += p_.launch_host;  // before StreamItem: it sets when the GPU sees the op
    SimItem it = StreamItem(index, SimItem::Kind::kKernel);
    it.grid = op.kernel.grid;
    it.threads = op.kernel.block;
    it.block_time = BlockDuration(p_, op.kernel);
    it.priority = s_.streams[op.stream].priority;
    int item = Submit(index, std::move(it));
    if (s_.settings.launch_blocking && !node) Block([&, item] { return gpu_.item(item).done; });
  }

  void IssueCopy(int index, OpRecord& rec) {
    const Op& op = s_.ops[index];
    const BufferDesc& src = s_.buffers[op.src];
    const BufferDesc& dst = s_.buffers[op.dst];
    bool src_host = src.kind != MemoryKind::kDevice;
    bool dst_host = dst.kind != MemoryKind::kDevice;
    bool pageable = src.kind == MemoryKind::kPageableHost || dst.kind == MemoryKind::kPageableHost;
    SimItem it = StreamItem(index, SimItem::Kind::kCopy);
    double gbps = p_.d2d_gbps;
    it.engine = CopyEngine::kD2D;
    if (src_host) {
      it.engine = CopyEngine::kH2D;
      gbps = p_.h2d_pinned_gbps;
    } else if (dst_host) {
      it.engine = CopyEngine::kD2H;
      gbps = p_.d2h_pinned_gbps;
    }
    if (pageable) {
      // Device to pageable host stages faster than the other way (12.9 against 8.1 GB/s for
      // 8 MB on an H200).
      bool to_pageable = dst.kind == MemoryKind::kPageableHost && !src_host;
      gbps = to_pageable ? p_.pageable_d2h_gbps : p_.pageable_gbps;
    }
    it.transfer = op.duration > 0 ? op.duration : TransferDuration(p_, op.bytes, gbps);
    host_ += p_.launch_host;
    int item = Submit(index, std::move(it));
    // A pageable copy is staged through a driver buffer by the host thread; cudaMemcpy
    // (not Async) waits by definition.
    if (pageable || !op.async) {
      if (pageable) rec.note = "pageable: host staged the copy";
      Block([&, item] { return gpu_.item(item).done; });
      // A replayed copy's call takes at least its own measured time once its stream reaches it.
      if (op.host_floor > 0) {
        if (pending_block_) pending_floor_item_ = item;
        else host_ = std::max(host_, FloorEnd(item, rec.submit));
      }
    }
  }

  // A replayed copy's call ends no sooner than its host_floor after its stream reached it (or
  // after the call, if that was later).
  TimeNs FloorEnd(int item, TimeNs submit) const {
    const SimItem& it = gpu_.item(item);
    return std::max(submit, it.ready - p_.submit_latency) + s_.ops[it.op].host_floor;
  }

  std::tuple<int, int, int> KernelKey(const Op& op) const {
    return {s_.streams[op.stream].device, static_cast<int>(op.kernel.kind), op.kernel.function_slot};
  }

  // A stream work item with the ordering edges CUDA's semantics give it.
  SimItem StreamItem(int index, SimItem::Kind kind) {
    const Op& op = s_.ops[index];
    SimItem it;
    it.kind = kind;
    it.op = index;
    it.device = s_.streams[op.stream].device;
    it.stream = op.stream;
    it.queue = queue_of_stream_[op.stream];
    it.visible_at = host_ + p_.submit_latency;
    it.graph = op.graph;
    for (const DepEdge& e : deps_.into) it.deps.push_back(item_of_op_[e.from]);
    if (load_barrier_[it.device] >= 0) it.deps.push_back(load_barrier_[it.device]);
    return it;
  }

  int Submit(int op_index, SimItem it) {
    int stream = it.stream;
    int item = gpu_.Submit(std::move(it));
    last_item_on_stream_[stream] = item;
    item_of_op_[op_index] = item;
    return item;
  }

  int ItemOf(int op) const { return op < 0 ? -1 : item_of_op_[op]; }

  // The host waits until `done` holds: returns at once if it already does, otherwise the
  // calling thread blocks (Run wakes it) and then spends `after` more in the call.
  void Block(std::function<bool()> done, TimeNs after = 0) {
    gpu_.AdvanceTo(host_);
    if (done()) {
      host_ += p_.query_host + after;
      return;
    }
    pending_block_ = std::move(done);
    pending_after_block_ = after;
  }

  const DeviceProfile& p_;
  const Scenario& s_;
  SimGpu gpu_;
  TimeNs host_ = 0;
  int device_ = 0;
  // Edges of the op being issued, from the calls made so far (in time order, which is index
  // order for one host thread).
  DependencyTracker tracker_;
  DependencyTracker::OpDeps deps_;
  std::vector<int> last_item_on_stream_;
  std::vector<int> load_barrier_;  // per device: the latest module load, which later work waits for
  std::vector<int> queue_of_stream_;
  std::vector<int> nccl_queue_;  // per device: the hardware queue of NCCL's internal stream
  std::vector<int> item_of_op_;
  std::vector<bool> returned_;  // per op: its call has returned (a graph node: with its launch)
  std::set<std::tuple<int, int, int>> loaded_;
  std::vector<HostThread> threads_;
  std::function<bool()> pending_block_;
  TimeNs pending_after_block_ = 0;
  int pending_floor_item_ = -1;
};

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

Trace SimulateRecorded(const DeviceProfile& profile, const Scenario& scenario, bool keep_scenario) {
  ValidateScenario(scenario);
  Trace trace = SimRun(profile, scenario, 0).Run();
  trace.backend = BackendName(Backend::kSim);
  trace.device_name = profile.name;
  trace.profile = profile.name;
  trace.driver = "simulator";
  trace.captured_at = NowIso();
  trace.sm_count = profile.sm_count;
  if (keep_scenario) trace.scenario = scenario;
  return trace;
}

Trace SimExecutor::Run(const Scenario& scenario, const RunOptions&) {
  ValidateRunnable(scenario);
  Trace trace = SimRun(profile_, scenario, kMaxBlockRecords).Run();
  trace.backend = BackendName(Backend::kSim);
  trace.device_name = profile_.name;
  trace.profile = profile_.name;
  trace.driver = "simulator";
  trace.captured_at = NowIso();
  trace.clock_error = 0;
  trace.sm_count = profile_.sm_count;
  trace.scenario = scenario;
  trace.checks = SimulatedChecks(trace);
  return trace;
}

}  // namespace streamlab
