// Code generation for the Code tab. One line (or two) per op, in program order.
#include "engine/scenario/code_gen.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace streamlab {

std::string CodeIdent(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  return out;
}

namespace {

std::string Ident(const std::string& name) { return CodeIdent(name); }

std::string CudaStream(const Scenario& s, int i) {
  switch (s.streams[i].kind) {
    case StreamKind::kLegacyDefault: return "0 /* legacy default stream */";
    case StreamKind::kPerThreadDefault: return "cudaStreamPerThread";
    default: return Ident(s.streams[i].name);
  }
}

std::string Micros(int64_t ns) { return std::to_string(ns / 1000); }

std::string KernelCall(const KernelSpec& k) {
  switch (k.kind) {
    case KernelKind::kSpin: return "spin_kernel<" + std::to_string(k.function_slot) + ">";
    case KernelKind::kCompute: return "fma_chain_kernel";
    case KernelKind::kMemory: return "stream_copy_kernel";
    case KernelKind::kAtomic: return "atomic_add_kernel";
    case KernelKind::kSharedMemory: return "shared_memory_kernel";
    case KernelKind::kForeign: return k.function.empty() ? "recorded_kernel" : k.function;
  }
  return "kernel";
}

// Which host thread calls the op, and whether a graph launch (not the host) submits it.
std::string OpPrefix(const Op& op, const char* comment) {
  std::string p;
  if (op.thread != 0) p += std::string(comment) + " [thread " + std::to_string(op.thread) + "] ";
  if (op.graph >= 0) p += std::string(comment) + "   (graph node) ";
  return p;
}

std::string CopyKind(const Scenario& s, const Op& op) {
  bool src_host = s.buffers[op.src].kind != MemoryKind::kDevice;
  bool dst_host = s.buffers[op.dst].kind != MemoryKind::kDevice;
  if (src_host && !dst_host) return "cudaMemcpyHostToDevice";
  if (!src_host && dst_host) return "cudaMemcpyDeviceToHost";
  return "cudaMemcpyDeviceToDevice";
}

// One rank's NCCL call, inside the group's ncclGroupStart/End (one thread drives all GPUs).
std::string NcclCall(const Scenario& s, const Op& op) {
  int index = static_cast<int>(&op - s.ops.data());
  std::vector<int> parts = CollectiveParts(s, index);
  int rank = static_cast<int>(std::find(parts.begin(), parts.end(), index) - parts.begin());
  int n = static_cast<int>(parts.size());
  std::string buf = Ident(s.buffers[op.buffer].name), st = CudaStream(s, op.stream);
  std::string comm = "comms[" + std::to_string(s.streams[op.stream].device) + "]";
  std::string floats = std::to_string(op.bytes / 4), chunk = std::to_string(op.bytes / 4 / n);
  std::ostringstream o;
  if (rank == 0) o << "ncclGroupStart();  // " << op.name.substr(0, op.name.rfind("_gpu")) << "\n";
  o << "  ";
  switch (op.collective) {
    case CollectiveKind::kAllReduce:
      o << "ncclAllReduce(" << buf << ", " << buf << ", " << floats << ", ncclFloat, ncclSum, " << comm << ", " << st << ");";
      break;
    case CollectiveKind::kReduceScatter:
      o << "ncclReduceScatter(" << buf << ", (float*)" << buf << " + " << rank << " * " << chunk << ", " << chunk
        << ", ncclFloat, ncclSum, " << comm << ", " << st << ");";
      break;
    case CollectiveKind::kAllGather:
      o << "ncclAllGather((char*)" << buf << " + " << rank << " * " << op.bytes / n << ", " << buf << ", " << op.bytes / n
        << ", ncclChar, " << comm << ", " << st << ");";
      break;
    case CollectiveKind::kBroadcast:
      o << "ncclBroadcast(" << buf << ", " << buf << ", " << op.bytes << ", ncclChar, 0, " << comm << ", " << st << ");";
      break;
  }
  o << "  // rank " << rank << "\n";
  if (rank == n - 1) o << "ncclGroupEnd();  // launches every rank's kernel\n";
  return o.str();
}

}  // namespace

std::string ScenarioAsCuda(const Scenario& s) {
  std::ostringstream o;
  o << "// " << s.name << " - generated from the scenario StreamLab ran\n";
  if (s.settings.max_connections != 8) o << "// env: CUDA_DEVICE_MAX_CONNECTIONS=" << s.settings.max_connections << "\n";
  if (!s.settings.lazy_loading) o << "// env: CUDA_MODULE_LOADING=EAGER\n";
  if (s.settings.launch_blocking) o << "// env: CUDA_LAUNCH_BLOCKING=1\n";
  for (size_t i = 0; i < s.streams.size(); ++i) {
    const StreamDesc& st = s.streams[i];
    if (st.kind != StreamKind::kCreated) continue;
    std::string id = Ident(st.name);
    o << "cudaStream_t " << id << ";  cudaStreamCreateWithPriority(&" << id << ", "
      << (st.non_blocking ? "cudaStreamNonBlocking" : "cudaStreamDefault") << ", " << st.priority << ");\n";
  }
  for (const EventDesc& e : s.events)
    o << "cudaEvent_t " << Ident(e.name) << ";  cudaEventCreateWithFlags(&" << Ident(e.name)
      << ", cudaEventDisableTiming);\n";
  std::vector<bool> op_allocated(s.buffers.size(), false);
  for (const Op& op : s.ops)
    if (op.kind == OpKind::kMalloc || op.kind == OpKind::kMallocHost) op_allocated[op.buffer] = true;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const BufferDesc& b = s.buffers[i];
    std::string id = Ident(b.name);
    o << "void* " << id << ";";
    if (b.alias_of >= 0) {
      o << "  " << id << " = " << Ident(s.buffers[b.alias_of].name)
        << ";  // the same memory, as a caching allocator hands a freed block back\n";
      continue;
    }
    if (!op_allocated[i]) {
      if (b.kind == MemoryKind::kDevice) o << "  cudaMalloc(&" << id << ", " << b.bytes << ");";
      if (b.kind == MemoryKind::kPinnedHost) o << "  cudaMallocHost(&" << id << ", " << b.bytes << ");";
      if (b.kind == MemoryKind::kPageableHost) o << "  " << id << " = malloc(" << b.bytes << ");  // pageable";
    }
    o << "\n";
  }
  o << "\n";
  bool nccl = false;
  for (const Op& op : s.ops) nccl |= op.kind == OpKind::kCollective;
  if (nccl)
    o << "ncclComm_t comms[" << s.device_count << "];  ncclCommInitAll(comms, " << s.device_count
      << ", nullptr);  // one communicator, a rank per GPU\n\n";
  for (const Op& op : s.ops) {
    std::string st = op.stream >= 0 ? CudaStream(s, op.stream) : "";
    o << OpPrefix(op, "//");
    switch (op.kind) {
      case OpKind::kGraphLaunch:
        o << "cudaGraphLaunch(" << Ident(op.name) << "_exec, " << st
          << ");  // replays the nodes below, captured once with cudaStreamBeginCapture\n";
        break;
      case OpKind::kKernel:
        o << KernelCall(op.kernel) << "<<<" << op.kernel.grid << ", " << op.kernel.block << ", 0, " << st
          << ">>>(" << (op.kernel.kind == KernelKind::kSpin ? Micros(op.kernel.work) + "us" : std::to_string(op.kernel.work))
          << ");  // " << op.name << "\n";
        break;
      case OpKind::kMemcpy:
        if (op.async)
          o << "cudaMemcpyAsync(" << Ident(s.buffers[op.dst].name) << ", " << Ident(s.buffers[op.src].name) << ", "
            << op.bytes << ", " << CopyKind(s, op) << ", " << st << ");";
        else
          o << "cudaMemcpy(" << Ident(s.buffers[op.dst].name) << ", " << Ident(s.buffers[op.src].name) << ", "
            << op.bytes << ", " << CopyKind(s, op) << ");";
        o << (op.name.empty() ? "" : "  // " + op.name) << "\n";
        break;
      case OpKind::kMemset:
        if (op.async) o << "cudaMemsetAsync(" << Ident(s.buffers[op.buffer].name) << ", " << op.value << ", " << op.bytes << ", " << st << ");\n";
        else o << "cudaMemset(" << Ident(s.buffers[op.buffer].name) << ", " << op.value << ", " << op.bytes << ");\n";
        break;
      case OpKind::kPeerCopy:
        o << "cudaMemcpyPeerAsync(" << Ident(s.buffers[op.dst].name) << ", " << s.buffers[op.dst].device << ", "
          << Ident(s.buffers[op.src].name) << ", " << s.buffers[op.src].device << ", " << op.bytes << ", " << st << ");\n";
        break;
      case OpKind::kMalloc: o << "cudaMalloc(&" << Ident(s.buffers[op.buffer].name) << ", " << s.buffers[op.buffer].bytes << ");\n"; break;
      case OpKind::kFree: o << "cudaFree(" << Ident(s.buffers[op.buffer].name) << ");\n"; break;
      case OpKind::kMallocHost: o << "cudaMallocHost(&" << Ident(s.buffers[op.buffer].name) << ", " << s.buffers[op.buffer].bytes << ");\n"; break;
      case OpKind::kRecord: o << "cudaEventRecord(" << Ident(s.events[op.event].name) << ", " << st << ");\n"; break;
      case OpKind::kWaitEvent: o << "cudaStreamWaitEvent(" << st << ", " << Ident(s.events[op.event].name) << ", 0);\n"; break;
      case OpKind::kWaitStream:
        o << "cudaEventRecord(tmp, " << CudaStream(s, op.other_stream) << ");  cudaStreamWaitEvent(" << st
          << ", tmp, 0);  // " << s.streams[op.stream].name << ".wait_stream(" << s.streams[op.other_stream].name << ")\n";
        break;
      case OpKind::kSyncDevice: o << "cudaDeviceSynchronize();\n"; break;
      case OpKind::kSyncStream: o << "cudaStreamSynchronize(" << st << ");\n"; break;
      case OpKind::kSyncEvent: o << "cudaEventSynchronize(" << Ident(s.events[op.event].name) << ");\n"; break;
      case OpKind::kQuery: o << "cudaEventQuery(" << Ident(s.events[op.event].name) << ");\n"; break;
      case OpKind::kHostWork: o << "busy_wait(" << Micros(op.duration) << "us);  // host work\n"; break;
      case OpKind::kApiCall: o << "// " << op.name << "(...)  " << Micros(op.duration) << "us\n"; break;
      case OpKind::kSetDevice: o << "cudaSetDevice(" << op.device << ");\n"; break;
      case OpKind::kCollective: o << NcclCall(s, op); break;
    }
  }
  return o.str();
}

}  // namespace streamlab
