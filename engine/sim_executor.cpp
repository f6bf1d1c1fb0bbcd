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
//  - lazy loading (measured on an H200): the first launch of a kernel function costs the
//    host ~20 us but does not block it; on the GPU the module load waits for all work
//    already submitted to the device, and all work submitted after it waits for the load.
#include "engine/sim_executor.h"

#include <ctime>
#include <set>
#include <tuple>
#include <utility>

#include "engine/dependencies.h"
#include "engine/errors.h"
#include "engine/sim_gpu.h"

namespace streamlab {
namespace {

class SimRun {
 public:
  SimRun(const DeviceProfile& p, const Scenario& s)
      : p_(p),
        s_(s),
        gpu_(p, s.device_count, s.settings.max_connections),
        deps_(ComputeDependencies(s)),
        last_item_on_stream_(s.streams.size(), -1),
        load_barrier_(s.device_count, -1),
        queue_of_stream_(s.streams.size(), 0),
        item_of_op_(s.ops.size(), -1) {
    std::vector<int> per_device(s.device_count, 0);
    for (size_t i = 0; i < s.streams.size(); ++i)
      queue_of_stream_[i] = per_device[s.streams[i].device]++ % s.settings.max_connections;
    // A warm-up pass has already launched (and so loaded) every kernel function.
    if (s.settings.warmup)
      for (const Op& op : s.ops)
        if (op.kind == OpKind::kKernel) loaded_.insert(KernelKey(op));
  }

  Trace Run() {
    Trace trace;
    trace.ops.resize(s_.ops.size());
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      OpRecord& rec = trace.ops[i];
      rec.op = static_cast<int>(i);
      rec.submit = host_;
      Issue(static_cast<int>(i), rec);
      rec.ret = host_;
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
  void Issue(int index, OpRecord& rec) {
    const Op& op = s_.ops[index];
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
      case OpKind::kMemset: {
        host_ += op.async ? p_.launch_host : p_.memset_host;
        SimItem it = StreamItem(index, SimItem::Kind::kKernel);
        it.grid = 1;
        it.threads = 256;
        it.block_time = TransferDuration(p_, op.bytes, p_.memset_gbps);
        Submit(index, std::move(it));
        return;
      }
      case OpKind::kRecord:
        host_ += p_.record_host;
        Submit(index, StreamItem(index, SimItem::Kind::kMarker));
        return;
      case OpKind::kWaitEvent:
      case OpKind::kWaitStream:
        host_ += op.kind == OpKind::kWaitStream ? p_.record_host + p_.wait_host : p_.wait_host;
        Submit(index, StreamItem(index, SimItem::Kind::kMarker));
        return;
      case OpKind::kSyncDevice:
        return Block([&, d = device_] { return gpu_.DeviceIdle(d); });
      case OpKind::kSyncStream: {
        int last = ItemOf(deps_.last_on_stream_before[index]);
        return Block([&, last] { return last < 0 || gpu_.item(last).done; });
      }
      case OpKind::kSyncEvent: {
        int last = ItemOf(deps_.last_record_before[index]);
        return Block([&, last] { return last < 0 || gpu_.item(last).done; });
      }
      case OpKind::kQuery: {
        gpu_.AdvanceTo(host_);
        int last = ItemOf(deps_.last_record_before[index]);
        rec.note = (last < 0 || gpu_.item(last).done) ? "ready" : "not ready";
        host_ += p_.query_host;
        return;
      }
      case OpKind::kHostWork: host_ += op.duration; return;
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
        Block([&, d] { return gpu_.DeviceIdle(d); });
        host_ += p_.free_host;
        return;
      }
      case OpKind::kMallocHost:
        if (p_.malloc_host_syncs_device) Block([&, d = device_] { return gpu_.DeviceIdle(d); });
        host_ += p_.malloc_host_base + p_.malloc_host_per_mb * static_cast<TimeNs>(
                                           s_.buffers[op.buffer].bytes >> 20);
        return;
    }
  }

  void IssueKernel(int index, OpRecord& rec) {
    const Op& op = s_.ops[index];
    int device = s_.streams[op.stream].device;
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
    host_ += p_.launch_host;
    SimItem it = StreamItem(index, SimItem::Kind::kKernel);
    it.grid = op.kernel.grid;
    it.threads = op.kernel.block;
    it.block_time = BlockDuration(p_, op.kernel);
    it.priority = s_.streams[op.stream].priority;
    int item = Submit(index, std::move(it));
    if (s_.settings.launch_blocking) Block([&, item] { return gpu_.item(item).done; });
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
    if (pageable) gbps = p_.pageable_gbps;
    it.transfer = TransferDuration(p_, op.bytes, gbps);
    host_ += p_.launch_host;
    int item = Submit(index, std::move(it));
    // A pageable copy is staged through a driver buffer by the host thread; cudaMemcpy
    // (not Async) waits by definition.
    if (pageable || !op.async) {
      if (pageable) rec.note = "pageable: host staged the copy";
      Block([&, item] { return gpu_.item(item).done; });
    }
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
    for (const DepEdge& e : deps_.into[index]) it.deps.push_back(item_of_op_[e.from]);
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

  // The host waits until `done` holds; returns at once if it already does.
  void Block(const std::function<bool()>& done) {
    gpu_.AdvanceTo(host_);
    if (done()) {
      host_ += p_.query_host;
      return;
    }
    gpu_.RunUntil(done);
    host_ = std::max(host_, gpu_.Now()) + p_.sync_wake;
  }

  const DeviceProfile& p_;
  const Scenario& s_;
  SimGpu gpu_;
  TimeNs host_ = 0;
  int device_ = 0;
  StreamDependencies deps_;
  std::vector<int> last_item_on_stream_;
  std::vector<int> load_barrier_;  // per device: the latest module load, which later work waits for
  std::vector<int> queue_of_stream_;
  std::vector<int> item_of_op_;
  std::set<std::tuple<int, int, int>> loaded_;
};

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

Trace SimExecutor::Run(const Scenario& scenario, const RunOptions&) {
  ValidateScenario(scenario);
  Trace trace = SimRun(profile_, scenario).Run();
  trace.backend = "sim";
  trace.device_name = profile_.name;
  trace.profile = profile_.name;
  trace.driver = "simulator";
  trace.captured_at = NowIso();
  trace.clock_error = 0;
  trace.sm_count = profile_.sm_count;
  trace.scenario = scenario;
  return trace;
}

}  // namespace streamlab
