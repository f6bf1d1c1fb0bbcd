// CudaRun op dispatch: each scenario op issued with its real CUDA call (checked), its
// timing probes, graph capture before the measured calls, and one std::thread per host thread.
#include <nvtx3/nvToolsExt.h>

#include <exception>
#include <thread>

#include "kernels/cuda_run_state.h"

namespace streamlab {

KernelArgs CudaRun::State::KernelArgsFor(const Op& op, const OpProbe& probe) const {
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

OpProbe CudaRun::State::MakeProbe(const Op& op) {
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
OpProbe CudaRun::State::MakeNodeProbe(const Op& op, OpProbe& probe) {
  AddAuxAndBlockRecords(op, probe);
  return std::move(probe);
}

// wait_stream's internal event, and a kernel's per-block record buffer (zeroed).
void CudaRun::State::AddAuxAndBlockRecords(const Op& op, OpProbe& probe) {
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
void CudaRun::State::CaptureGraphs(std::vector<OpProbe>& probes) {
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
void CudaRun::State::Issue(int i, OpProbe& probe, OpRecord& rec, int64_t origin) {
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
void CudaRun::State::Call(int i, OpProbe& probe, OpRecord* rec) {
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
    case OpKind::kCollective:  // issued as a group by IssueCollective
      throw RunError("internal: a collective part issued on its own");
    case OpKind::kApiCall:  // recorded programs only; ValidateRunnable refuses them
      throw RunError("a recorded API call cannot be re-run");
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
void CudaRun::State::IssueThread(int thread, std::vector<OpProbe>& probes, Trace& trace, int64_t origin) {
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
    if (op.kind == OpKind::kCollective) {
      if (op.collective_first == static_cast<int>(i)) IssueCollective(static_cast<int>(i), probes, trace, origin);
      continue;
    }
    Issue(static_cast<int>(i), probes[i], rec, origin);
  }
}

void CudaRun::State::IssueCollective(int first, std::vector<OpProbe>& probes, Trace& trace, int64_t origin) {
  std::vector<int> parts = CollectiveParts(s, first);
  for (int p : parts) {
    UseDevice(probes[p].device);
    SL_CUDA(cudaEventRecord(probes[p].ready.get(), streams[s.ops[p].stream]));
  }
  std::string range = DisplayName(s, first);
  nvtxRangePushA(range.c_str());
  nccl->GroupStart();
  for (int p : parts) {
    OpRecord& rec = trace.ops[p];
    rec.op = p;
    rec.submit = HostNow() - origin;
    UseDevice(probes[p].device);
    nccl->Call(p, BufferPtr(s.ops[p].buffer), streams[s.ops[p].stream]);
    rec.ret = HostNow() - origin;
  }
  nccl->GroupEnd();
  trace.ops[parts.back()].ret = HostNow() - origin;  // the group's end launches every rank
  nvtxRangePop();
  for (int p : parts) {
    UseDevice(probes[p].device);
    SL_CUDA(cudaEventRecord(probes[p].done.get(), streams[s.ops[p].stream]));
  }
}

// Runs each host thread's ops on its own std::thread (one thread runs inline); the first
// failure is rethrown once all have stopped.
void CudaRun::State::IssueAll(std::vector<OpProbe>& probes, Trace& trace, int64_t origin) {
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
}  // namespace streamlab
