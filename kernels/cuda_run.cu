// CudaRun: executes a Scenario with the real CUDA calls and measures it.
// [SECTION] setup: streams, events, buffers, scratch, cancel flag
// [SECTION] one pass: per-op timing events, the real call, host stamps, NVTX ranges
// [SECTION] clocks: events -> %globaltimer (bounded by each kernel's in-kernel times),
//           %globaltimer -> host (ping-pong), all onto the host's steady clock
#include "kernels/cuda_run.h"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "engine/buffer_contents.h"
#include "engine/format.h"
#include "engine/graph_markers.h"
#include "engine/trace.h"
#include "kernels/buffer_readback.h"
#include "kernels/clock_calibration.h"
#include "kernels/cuda_raii.h"
#include "kernels/device_kernels.cuh"
#include "kernels/watchdog.h"

namespace streamlab {
namespace {

constexpr int kMaxInstrumentedBlocks = 1 << 16;
constexpr size_t kScratchBytes = 64ull << 20;
constexpr int64_t kCalibrationSpinNs = 20000;

int64_t HostNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The stream-ordered span of one op: a timing event on each side and, for kernels, a
// buffer of per-block records.
struct OpProbe {
  int device = -1;
  OwnedEvent ready;
  OwnedEvent done;
  OwnedEvent aux;  // wait_stream's internal event
  DeviceMemory timing;
  int blocks = 0;
  OwnedGraphExec graph;  // graph_launch: the instantiated graph of its nodes
};

int64_t ElapsedNs(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SL_CUDA(cudaEventElapsedTime(&ms, from, to));
  return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
}

// Bounds on the offset x in globaltimer = event_time + x, from spans measured both ways:
// the ready event fires before the first block starts, the done event after the last ends.
struct OffsetBounds {
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  void AddReady(int64_t ready_e, int64_t start_g) { hi = std::min(hi, start_g - ready_e); }
  void AddDone(int64_t done_e, int64_t end_g) { lo = std::max(lo, end_g - done_e); }
  int64_t Mid() const { return lo / 2 + hi / 2; }
  // Half the feasible window; if the bounds cross (event resolution), their disagreement.
  int64_t Error() const { return (hi >= lo ? hi - lo : lo - hi) / 2 + 500; }
};

bool ReadBlocks(const OpProbe& probe, std::vector<BlockTiming>* out) {
  out->resize(probe.blocks);
  SL_CUDA(cudaMemcpy(out->data(), probe.timing.get(), probe.blocks * sizeof(BlockTiming),
                     cudaMemcpyDeviceToHost));
  return std::all_of(out->begin(), out->end(),
                     [](const BlockTiming& b) { return b.start != 0 && b.end >= b.start; });
}

}  // namespace

// [SECTION] setup ------------------------------------------------------------------------

struct CudaRun::State {
  const Scenario& s;
  TimeNs timeout;
  // Per host thread, as in CUDA: the runtime's current device (switched for each stream
  // op) and the device the scenario's set_device ops chose.
  static thread_local int current_device;
  static thread_local int host_device;
  std::vector<OwnedStream> owned_streams;
  std::vector<cudaStream_t> streams;
  std::vector<OwnedEvent> events;
  std::vector<void*> buffers;            // current pointer of each buffer (null = not allocated)
  std::vector<DeviceMemory> device_mem;  // owners of buffers allocated up front
  std::vector<PinnedMemory> pinned_mem;
  std::vector<PageableMemory> pageable_mem;
  std::vector<bool> allocated_by_op;     // buffers a malloc/malloc_host op owns this pass
  std::vector<DeviceMemory> scratch;     // per device, for kernels that name no buffer
  std::vector<OwnedStream> calibration_streams;
  PinnedMemory cancel_mem;
  volatile int* cancel = nullptr;
  // Test hook (tests/gpu/fault_paths.cpp): STREAMLAB_INJECT_FAULT=bad_launch makes the first
  // kernel launch invalid; =illegal_address makes it write through a bad pointer.
  std::string inject_fault;
  std::vector<bool> checked_storage;  // per buffer: spin kernels fill it (buffer_contents.h)

  State(const Scenario& scenario, TimeNs t) : s(scenario), timeout(t), checked_storage(CheckedStorage(scenario)) {
    if (const char* f = std::getenv("STREAMLAB_INJECT_FAULT")) inject_fault = f;
  }

  void ClearCancel() {
    for (int i = 0; i < kCancelInts; ++i) cancel[i] = 0;
  }

  void UseDevice(int device) {
    if (device == current_device) return;
    SL_CUDA(cudaSetDevice(device));
    current_device = device;
  }

  void Setup() {
    void* flag = nullptr;
    SL_CUDA(cudaHostAlloc(&flag, kCancelInts * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    cancel_mem = PinnedMemory(flag);
    cancel = static_cast<volatile int*>(flag);
    ClearCancel();

    for (int d = 0; d < s.device_count; ++d) {
      SL_CUDA(cudaSetDevice(d));
      void* p = nullptr;
      SL_CUDA(cudaMalloc(&p, kScratchBytes));
      scratch.emplace_back(p);
      SL_CUDA(cudaMemset(p, 0, kScratchBytes));
      cudaStream_t cs = nullptr;
      SL_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
      calibration_streams.emplace_back(cs);
      for (int peer = 0; peer < s.device_count; ++peer) {
        if (peer == d) continue;
        int can = 0;
        SL_CUDA(cudaDeviceCanAccessPeer(&can, d, peer));
        if (!can) continue;
        cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
        else SL_CUDA(e);
      }
    }
    current_device = s.device_count - 1;
    UseDevice(0);

    for (const StreamDesc& st : s.streams) {
      UseDevice(st.device);
      if (st.kind == StreamKind::kLegacyDefault) {
        streams.push_back(cudaStreamLegacy);
        owned_streams.emplace_back();
      } else if (st.kind == StreamKind::kPerThreadDefault) {
        streams.push_back(cudaStreamPerThread);
        owned_streams.emplace_back();
      } else {
        int least = 0, greatest = 0;
        SL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        int priority = std::clamp(st.priority, greatest, least);
        cudaStream_t raw = nullptr;
        SL_CUDA(cudaStreamCreateWithPriority(
            &raw, st.non_blocking ? cudaStreamNonBlocking : cudaStreamDefault, priority));
        owned_streams.emplace_back(raw);
        streams.push_back(raw);
      }
    }
    for (const EventDesc& e : s.events) {
      UseDevice(e.device);
      cudaEvent_t raw = nullptr;
      SL_CUDA(cudaEventCreateWithFlags(&raw, cudaEventDisableTiming));
      events.emplace_back(raw);
    }

    buffers.assign(s.buffers.size(), nullptr);
    allocated_by_op.assign(s.buffers.size(), false);
    device_mem.resize(s.buffers.size());
    pinned_mem.resize(s.buffers.size());
    pageable_mem.resize(s.buffers.size());
    EnsureBuffers();
  }

  // Allocates every buffer that no malloc / malloc_host op allocates and that is not held
  // now (a free op in the last pass released it), zero-filled.
  void EnsureBuffers() {
    std::vector<bool> op_allocates(s.buffers.size(), false);
    for (const Op& op : s.ops)
      if (op.kind == OpKind::kMalloc || op.kind == OpKind::kMallocHost) op_allocates[op.buffer] = true;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      if (op_allocates[i] || buffers[i] || s.buffers[i].alias_of >= 0) continue;
      const BufferDesc& b = s.buffers[i];
      void* p = nullptr;
      switch (b.kind) {
        case MemoryKind::kDevice:
          UseDevice(b.device);
          SL_CUDA(cudaMalloc(&p, b.bytes));
          device_mem[i] = DeviceMemory(p);
          SL_CUDA(cudaMemset(p, 0, b.bytes));
          break;
        case MemoryKind::kPinnedHost:
          SL_CUDA(cudaMallocHost(&p, b.bytes));
          pinned_mem[i] = PinnedMemory(p);
          std::memset(p, 0, b.bytes);
          break;
        case MemoryKind::kPageableHost:
          p = std::aligned_alloc(4096, (b.bytes + 4095) / 4096 * 4096);
          if (!p) throw RunError("out of host memory for buffer " + b.name);
          pageable_mem[i] = PageableMemory(p);
          std::memset(p, 0, b.bytes);  // touch every page now, not during the run
          break;
      }
      buffers[i] = p;
    }
    // Checked buffers start every pass zeroed, as the content model assumes.
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      if (!s.buffers[i].checked || s.buffers[i].alias_of >= 0 || !buffers[i]) continue;
      if (s.buffers[i].kind == MemoryKind::kDevice) {
        UseDevice(s.buffers[i].device);
        SL_CUDA(cudaMemset(buffers[i], 0, s.buffers[i].bytes));
      } else {
        std::memset(buffers[i], 0, s.buffers[i].bytes);
      }
    }
    for (int d = 0; d < s.device_count; ++d) {
      UseDevice(d);
      SL_CUDA(cudaDeviceSynchronize());
    }
    UseDevice(0);
  }

  // Frees what malloc / malloc_host ops allocated and did not free, so the next pass
  // starts from the same state.
  void ReleaseOpAllocations() {
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (!allocated_by_op[i] || !buffers[i]) continue;
      if (s.buffers[i].kind == MemoryKind::kDevice) (void)cudaFree(buffers[i]);
      else (void)cudaFreeHost(buffers[i]);
      buffers[i] = nullptr;
      allocated_by_op[i] = false;
    }
  }

  void* BufferPtr(int index) const {
    index = StorageOf(s, index);
    if (!buffers[index])
      throw RunError("buffer " + s.buffers[index].name + " is used while not allocated");
    return buffers[index];
  }

  // [SECTION] one pass ---------------------------------------------------------------------

  KernelArgs KernelArgsFor(const Op& op, const OpProbe& probe) const {
    KernelArgs a;
    a.kind = static_cast<int>(op.kernel.kind);
    a.slot = op.kernel.function_slot;
    a.work = op.kernel.work;
    a.timing = probe.blocks ? static_cast<BlockTiming*>(probe.timing.get()) : nullptr;
    a.cancel = cancel;
    int device = s.streams[op.stream].device;
    if (!op.kernel.reads.empty()) {
      a.read = BufferPtr(op.kernel.reads.front());
      a.read_bytes = s.buffers[op.kernel.reads.front()].bytes;
    }
    if (!op.kernel.writes.empty()) {
      a.write = BufferPtr(op.kernel.writes.front());
      a.write_bytes = s.buffers[op.kernel.writes.front()].bytes;
      a.fill = op.kernel.kind == KernelKind::kSpin && checked_storage[op.kernel.writes.front()];
    }
    bool needs_memory = op.kernel.kind == KernelKind::kMemory || op.kernel.kind == KernelKind::kAtomic;
    if (needs_memory && !a.read) {
      a.read = scratch[device].get();
      a.read_bytes = kScratchBytes;
    }
    if (op.kernel.kind == KernelKind::kAtomic && !a.write) {
      a.write = scratch[device].get();
      a.write_bytes = kScratchBytes;
    }
    return a;
  }

  OpProbe MakeProbe(const Op& op) {
    OpProbe probe;
    if (op.stream < 0 || !IsStreamOp(op)) return probe;
    probe.device = s.streams[op.stream].device;
    UseDevice(probe.device);
    if (op.graph >= 0) return MakeNodeProbe(op, probe);
    probe.ready = MakeTimingEvent();
    // An instrumented kernel's end comes from its blocks. A *done* event after it would be
    // one more item in a hardware queue that waits for the kernel: with few connections it
    // holds back other streams' work (measured: 32 streams of A->B on one connection went
    // from (n+1) to 2n kernel times), so it is only used where nothing else gives the end.
    bool instrumented = op.kind == OpKind::kKernel && op.kernel.grid <= kMaxInstrumentedBlocks;
    if (!instrumented) probe.done = MakeTimingEvent();
    AddAuxAndBlockRecords(op, probe);
    return probe;
  }

  // A graph node: no timing events (a kernel's edges come from its block records).
  OpProbe MakeNodeProbe(const Op& op, OpProbe& probe) {
    AddAuxAndBlockRecords(op, probe);
    return std::move(probe);
  }

  // wait_stream's internal event, and a kernel's per-block record buffer (zeroed).
  void AddAuxAndBlockRecords(const Op& op, OpProbe& probe) {
    if (op.kind == OpKind::kWaitStream) {
      cudaEvent_t raw = nullptr;
      SL_CUDA(cudaEventCreateWithFlags(&raw, cudaEventDisableTiming));
      probe.aux = OwnedEvent(raw);
    }
    if (op.kind == OpKind::kKernel && op.kernel.grid <= kMaxInstrumentedBlocks) {
      void* p = nullptr;
      SL_CUDA(cudaMalloc(&p, op.kernel.grid * sizeof(BlockTiming)));
      probe.timing = DeviceMemory(p);
      SL_CUDA(cudaMemset(p, 0, op.kernel.grid * sizeof(BlockTiming)));
      probe.blocks = op.kernel.grid;
    }
  }

  // Captures each graph_launch's nodes from its stream, instantiates and uploads the graph,
  // before the measured calls (as a program captures once, then replays).
  void CaptureGraphs(std::vector<OpProbe>& probes) {
    for (size_t l = 0; l < s.ops.size(); ++l) {
      if (s.ops[l].kind != OpKind::kGraphLaunch) continue;
      cudaStream_t origin = streams[s.ops[l].stream];
      UseDevice(s.streams[s.ops[l].stream].device);
      SL_CUDA(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
      cudaGraph_t graph = nullptr;
      try {
        for (int k = static_cast<int>(l) + 1; k < GraphNodesEnd(s, static_cast<int>(l)); ++k)
          Call(k, probes[k], nullptr);
      } catch (...) {
        (void)cudaStreamEndCapture(origin, &graph);
        if (graph) (void)cudaGraphDestroy(graph);
        throw;
      }
      SL_CUDA(cudaStreamEndCapture(origin, &graph));
      OwnedGraph owned(graph);
      cudaGraphExec_t exec = nullptr;
      SL_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      probes[l].graph = OwnedGraphExec(exec);
      SL_CUDA(cudaGraphUpload(exec, origin));
    }
    for (int d = 0; d < s.device_count; ++d) {
      UseDevice(d);
      SL_CUDA(cudaDeviceSynchronize());
    }
  }

  // Issues op `i` with its real CUDA call; stamps the host time around the call only.
  void Issue(int i, OpProbe& probe, OpRecord& rec, int64_t origin) {
    const Op& op = s.ops[i];
    cudaStream_t stream = op.stream >= 0 ? streams[op.stream] : nullptr;
    if (probe.ready) {
      UseDevice(probe.device);
      SL_CUDA(cudaEventRecord(probe.ready.get(), stream));
    }
    std::string range = DisplayName(s, i);
    nvtxRangePushA(range.c_str());
    rec.submit = HostNow() - origin;
    Call(i, probe, &rec);
    rec.ret = HostNow() - origin;
    nvtxRangePop();
    if (probe.done) SL_CUDA(cudaEventRecord(probe.done.get(), stream));
  }

  // The op's own CUDA call (`rec` is null while capturing a graph node).
  void Call(int i, OpProbe& probe, OpRecord* rec) {
    const Op& op = s.ops[i];
    cudaStream_t stream = op.stream >= 0 ? streams[op.stream] : nullptr;
    if (op.stream >= 0) UseDevice(s.streams[op.stream].device);
    switch (op.kind) {
      case OpKind::kGraphLaunch:
        SL_CUDA(cudaGraphLaunch(probe.graph.get(), stream));
        break;
      case OpKind::kKernel: {
        KernelArgs args = KernelArgsFor(op, probe);
        int block = op.kernel.block;
        if (inject_fault == "bad_launch") block = 2048;  // above every GPU's limit
        if (inject_fault == "illegal_address") args.timing = reinterpret_cast<BlockTiming*>(0x10);
        SL_CUDA(LaunchLabKernel(args, op.kernel.grid, block, stream));
        break;
      }
      case OpKind::kMemcpy:
        if (op.async)
          SL_CUDA(cudaMemcpyAsync(BufferPtr(op.dst), BufferPtr(op.src), op.bytes, cudaMemcpyDefault, stream));
        else
          SL_CUDA(cudaMemcpy(BufferPtr(op.dst), BufferPtr(op.src), op.bytes, cudaMemcpyDefault));
        break;
      case OpKind::kPeerCopy:
        SL_CUDA(cudaMemcpyPeerAsync(BufferPtr(op.dst), s.buffers[op.dst].device, BufferPtr(op.src),
                                    s.buffers[op.src].device, op.bytes, stream));
        break;
      case OpKind::kMemset:
        if (op.async) SL_CUDA(cudaMemsetAsync(BufferPtr(op.buffer), op.value, op.bytes, stream));
        else SL_CUDA(cudaMemset(BufferPtr(op.buffer), op.value, op.bytes));
        break;
      case OpKind::kRecord:
        SL_CUDA(cudaEventRecord(events[op.event].get(), stream));
        break;
      case OpKind::kWaitEvent:
        SL_CUDA(cudaStreamWaitEvent(stream, events[op.event].get(), 0));
        break;
      case OpKind::kWaitStream:  // what torch's wait_stream does: record on the other, wait
        SL_CUDA(cudaEventRecord(probe.aux.get(), streams[op.other_stream]));
        SL_CUDA(cudaStreamWaitEvent(stream, probe.aux.get(), 0));
        break;
      case OpKind::kSyncDevice:
        UseDevice(host_device);  // the device the program chose, not the last stream's
        SL_CUDA(cudaDeviceSynchronize());
        break;
      case OpKind::kSyncStream:
        SL_CUDA(cudaStreamSynchronize(stream));
        break;
      case OpKind::kSyncEvent:
        SL_CUDA(cudaEventSynchronize(events[op.event].get()));
        break;
      case OpKind::kQuery: {
        cudaError_t e = cudaEventQuery(events[op.event].get());
        if (e == cudaErrorNotReady) {
          (void)cudaGetLastError();  // not an error: the answer "not yet"
          if (rec) rec->note = "not ready";
        } else {
          SL_CUDA(e);
          if (rec) rec->note = "ready";
        }
        break;
      }
      case OpKind::kHostWork: {
        int64_t until = HostNow() + op.duration;
        while (HostNow() < until) {
        }
        break;
      }
      case OpKind::kSetDevice:
        SL_CUDA(cudaSetDevice(op.device));
        current_device = op.device;
        host_device = op.device;
        break;
      case OpKind::kMalloc: {
        UseDevice(s.buffers[op.buffer].device);
        ReleaseIfHeld(op.buffer);
        SL_CUDA(cudaMalloc(&buffers[op.buffer], s.buffers[op.buffer].bytes));
        allocated_by_op[op.buffer] = true;
        break;
      }
      case OpKind::kMallocHost:
        UseDevice(host_device);
        ReleaseIfHeld(op.buffer);
        SL_CUDA(cudaMallocHost(&buffers[op.buffer], s.buffers[op.buffer].bytes));
        allocated_by_op[op.buffer] = true;
        break;
      case OpKind::kFree:
        SL_CUDA(cudaFree(BufferPtr(op.buffer)));
        buffers[op.buffer] = nullptr;
        allocated_by_op[op.buffer] = false;
        device_mem[op.buffer].Release();  // freed just now by the op itself
        break;
    }
  }

  // Issues every op of host thread `thread` in order; graph nodes go with their launch.
  void IssueThread(int thread, std::vector<OpProbe>& probes, Trace& trace, int64_t origin) {
    for (size_t i = 0; i < s.ops.size(); ++i) {
      const Op& op = s.ops[i];
      if (op.thread != thread) continue;
      OpRecord& rec = trace.ops[i];
      rec.op = static_cast<int>(i);
      if (op.graph >= 0) {
        rec.submit = trace.ops[op.graph].submit;
        rec.ret = trace.ops[op.graph].ret;
        continue;
      }
      Issue(static_cast<int>(i), probes[i], rec, origin);
    }
  }

  // Runs each host thread's ops on its own std::thread (one thread runs inline); the first
  // failure is rethrown once all have stopped.
  void IssueAll(std::vector<OpProbe>& probes, Trace& trace, int64_t origin) {
    int threads = ThreadCount(s);
    if (threads == 1) return IssueThread(0, probes, trace, origin);
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        try {
          IssueThread(t, probes, trace, origin);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (std::thread& w : workers) w.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

  // Each buffer's memory (aliases share their storage's pointer).
  std::vector<void*> StoragePointers() const {
    std::vector<void*> out;
    for (size_t i = 0; i < buffers.size(); ++i) out.push_back(buffers[StorageOf(s, static_cast<int>(i))]);
    return out;
  }

  void ReleaseIfHeld(int buffer) {
    if (allocated_by_op[buffer]) {
      allocated_by_op[buffer] = false;
      if (s.buffers[buffer].kind == MemoryKind::kDevice) SL_CUDA(cudaFree(buffers[buffer]));
      else SL_CUDA(cudaFreeHost(buffers[buffer]));
      buffers[buffer] = nullptr;
    }
  }
};

thread_local int CudaRun::State::current_device = 0;
thread_local int CudaRun::State::host_device = 0;

CudaRun::CudaRun(const Scenario& scenario, TimeNs timeout)
    : state_(std::make_unique<State>(scenario, timeout)) {
  (void)cudaGetLastError();  // start clean of any earlier run's non-sticky error
  state_->Setup();
}

CudaRun::~CudaRun() {
  if (state_) state_->ReleaseOpAllocations();
}

Trace CudaRun::Pass() {
  State& st = *state_;
  const Scenario& s = st.s;
  size_t n = s.ops.size();
  st.EnsureBuffers();
  std::vector<OpProbe> probes;
  probes.reserve(n);
  for (const Op& op : s.ops) probes.push_back(st.MakeProbe(op));

  // Per device: a reference event, then a short instrumented spin between two events, so
  // even a run without kernels can align event time with %globaltimer.
  // Several samples, because each bounds the offset only to within its own event slack
  // (a few us); the tightest bounds over all samples are kept.
  constexpr int kCalibrationSamples = 8;
  struct DeviceRef {
    OwnedEvent ref;
    std::vector<OwnedEvent> before, after;
    DeviceMemory timing;  // kCalibrationSamples block records
  };
  std::vector<DeviceRef> refs(s.device_count);
  st.ClearCancel();
  for (int d = 0; d < s.device_count; ++d) {
    st.UseDevice(d);
    DeviceRef& r = refs[d];
    r.ref = MakeTimingEvent();
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, kCalibrationSamples * sizeof(BlockTiming)));
    r.timing = DeviceMemory(p);
    SL_CUDA(cudaMemset(p, 0, kCalibrationSamples * sizeof(BlockTiming)));
    cudaStream_t cs = st.calibration_streams[d].get();
    SL_CUDA(cudaEventRecord(r.ref.get(), cs));
    for (int k = 0; k < kCalibrationSamples; ++k) {
      r.before.push_back(MakeTimingEvent());
      r.after.push_back(MakeTimingEvent());
      KernelArgs a;
      a.work = kCalibrationSpinNs;
      a.timing = static_cast<BlockTiming*>(p) + k;
      SL_CUDA(cudaEventRecord(r.before.back().get(), cs));
      SL_CUDA(LaunchLabKernel(a, 1, 32, cs));
      SL_CUDA(cudaEventRecord(r.after.back().get(), cs));
    }
    SL_CUDA(cudaStreamSynchronize(cs));
  }
  st.UseDevice(0);

  Trace trace;
  trace.ops.resize(n);
  st.host_device = 0;
  Watchdog watchdog(std::chrono::nanoseconds(st.timeout), st.cancel, kCancelInts);
  st.CaptureGraphs(probes);
  int64_t origin = HostNow();
  st.IssueAll(probes, trace, origin);
  for (int d = 0; d < s.device_count; ++d) {
    st.UseDevice(d);
    SL_CUDA(cudaDeviceSynchronize());
  }
  if (watchdog.Stop())
    throw RunError("watchdog: the run took longer than " + FormatDuration(st.timeout) +
                   " and was cancelled (raise --timeout for longer runs)");
  trace.checks = ReadBackChecks(s, st.StoragePointers());
  st.ReleaseOpAllocations();

  // [SECTION] clocks -----------------------------------------------------------------------
  std::vector<OffsetBounds> bounds(s.device_count);
  std::vector<std::vector<BlockTiming>> blocks(n);
  std::vector<bool> instrumented(n, false);
  std::vector<int64_t> ready_e(n, 0), done_e(n, 0);
  for (int d = 0; d < s.device_count; ++d) {
    std::vector<BlockTiming> calib;
    OpProbe tmp;
    tmp.timing = std::move(refs[d].timing);
    tmp.blocks = kCalibrationSamples;
    st.UseDevice(d);
    if (ReadBlocks(tmp, &calib)) {
      for (int k = 0; k < kCalibrationSamples; ++k) {
        bounds[d].AddReady(ElapsedNs(refs[d].ref.get(), refs[d].before[k].get()), static_cast<int64_t>(calib[k].start));
        bounds[d].AddDone(ElapsedNs(refs[d].ref.get(), refs[d].after[k].get()), static_cast<int64_t>(calib[k].end));
      }
    }
    refs[d].timing = std::move(tmp.timing);
  }
  for (size_t i = 0; i < n; ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready) {
      if (p.blocks) {
        st.UseDevice(p.device);
        instrumented[i] = ReadBlocks(p, &blocks[i]);  // a graph node: blocks only
      }
      continue;
    }
    st.UseDevice(p.device);
    ready_e[i] = ElapsedNs(refs[p.device].ref.get(), p.ready.get());
    done_e[i] = p.done ? ElapsedNs(refs[p.device].ref.get(), p.done.get()) : ready_e[i];
    if (p.blocks && ReadBlocks(p, &blocks[i])) {
      instrumented[i] = true;
      uint64_t first = UINT64_MAX, last = 0;
      for (const BlockTiming& b : blocks[i]) {
        first = std::min(first, b.start);
        last = std::max(last, b.end);
      }
      bounds[p.device].AddReady(ready_e[i], static_cast<int64_t>(first));
      if (p.done) bounds[p.device].AddDone(done_e[i], static_cast<int64_t>(last));
    }
  }
  // %globaltimer -> host clock, per device; then event time -> globaltimer -> trace time.
  std::vector<ClockOffset> host_offsets;
  TimeNs worst_error = 0;
  for (int d = 0; d < s.device_count; ++d) {
    host_offsets.push_back(CalibrateGlobalTimer(d, HostNow));
    worst_error = std::max(worst_error, bounds[d].Error() + host_offsets[d].error);
    trace.notes.push_back("GPU " + std::to_string(d) + " clock alignment: events->globaltimer +/-" +
                          std::to_string(bounds[d].Error()) + " ns, globaltimer->host +/-" +
                          std::to_string(host_offsets[d].error) + " ns");
  }
  st.current_device = -1;
  st.UseDevice(0);
  auto from_global = [&](int d, int64_t g) { return g - host_offsets[d].offset - origin; };
  auto from_event = [&](int d, int64_t e) { return from_global(d, e + bounds[d].Mid()); };

  for (size_t i = 0; i < n; ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready && !instrumented[i]) continue;
    OpRecord& rec = trace.ops[i];
    rec.gpu = true;
    if (p.ready) {
      rec.ready = from_event(p.device, ready_e[i]);
      rec.start = rec.ready;
      rec.end = std::max(rec.ready, from_event(p.device, done_e[i]));
    } else {
      rec.ready = rec.start = std::numeric_limits<TimeNs>::max();
    }
    const OpKind kind = s.ops[i].kind;
    if (kind == OpKind::kRecord || kind == OpKind::kWaitEvent || kind == OpKind::kWaitStream)
      rec.start = rec.end;  // a marker: "ready" = stream reached it, end = it was satisfied
    if (instrumented[i]) {
      TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
      for (size_t b = 0; b < blocks[i].size(); ++b) {
        const BlockTiming& bt = blocks[i][b];
        BlockRecord br{static_cast<int>(b), static_cast<int>(bt.sm),
                       from_global(p.device, static_cast<int64_t>(bt.start)),
                       from_global(p.device, static_cast<int64_t>(bt.end))};
        first = std::min(first, br.start);
        last = std::max(last, br.end);
        rec.blocks.push_back(br);
      }
      rec.start = first;
      rec.end = last;
      rec.ready = std::min(rec.ready, rec.start);
    }
  }
  trace.clock_error = worst_error;
  trace.scenario = s;
  FillGraphMarkerTimes(trace);
  return trace;
}

}  // namespace streamlab
