// The scenario as a runnable PyTorch program (see torch_program.h). One function per host
// thread (under torchrun, per host thread and GPU process); each op is one
// `with op_range(...)` block, so the recorded NVTX range of op N holds exactly the calls
// PyTorch made for it.
#include "engine/scenario/torch_program.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "engine/scenario/code_gen.h"

namespace streamlab {
namespace {

constexpr int kMaxSleepGrid = 32;  // up to this many blocks, one spinning block times the same

std::string Py(const std::string& text) {  // a Python string literal
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

std::string Us(TimeNs ns) {
  std::ostringstream o;
  o << static_cast<double>(ns) / 1e3;
  return o.str();
}

std::string Buf(const Scenario& s, int b) { return "buf[" + Py(s.buffers[b].name) + "]"; }

// Checked memory starts zeroed, as the executors zero it before a run.
std::string NewTensor(const BufferDesc& b, bool zeroed) {
  std::string t = std::string(zeroed ? "torch.zeros(" : "torch.empty(") + std::to_string(b.bytes) + ", dtype=torch.uint8";
  if (b.kind == MemoryKind::kDevice) t += ", device=\"cuda:" + std::to_string(b.device) + "\"";
  if (b.kind == MemoryKind::kPinnedHost) t += ", pin_memory=True";
  return t + ")";
}

class Writer {
 public:
  explicit Writer(const Scenario& s) : s_(s), checked_(CheckedStorage(s)) {}

  TorchProgram Write() {
    AssignRanks();
    Check();
    Header();
    Declarations();
    if (!s_.torch_source.empty()) {
      HandWritten();
    } else {
      for (int r = 0; r < Ranks(); ++r)
        for (int t = 0; t < ThreadCount(s_); ++t) Thread(t, r);
    }
    Graphs();
    Passes();
    return {o_.str(), differs_, unsupported_, distributed_ ? s_.device_count : 1};
  }

 private:
  // [SECTION] ranks: a scenario with collectives runs as a torchrun job, one process per GPU.
  // Each op belongs to the process of its GPU: a stream's device, a set_device's device, and
  // for other host ops the device its host thread last set (0 at first).
  void AssignRanks() {
    distributed_ = std::any_of(s_.ops.begin(), s_.ops.end(), [](const Op& op) { return op.kind == OpKind::kCollective; });
    std::vector<int> current(static_cast<size_t>(ThreadCount(s_)), 0);
    for (const Op& op : s_.ops) {
      int rank = current[op.thread];
      if (op.kind == OpKind::kSetDevice) rank = current[op.thread] = op.device;
      else if (op.stream >= 0) rank = s_.streams[op.stream].device;
      rank_.push_back(rank);
    }
  }

  int Ranks() const { return distributed_ ? s_.device_count : 1; }
  bool OnRank(size_t op, int rank) const { return !distributed_ || rank_[op] == rank; }

  // What one process per GPU cannot do: use another GPU's stream, event or memory.
  void CheckOneGpuPerOp() {
    auto device_buffer_elsewhere = [&](int b, int rank) {
      return b >= 0 && s_.buffers[b].kind == MemoryKind::kDevice && s_.buffers[b].device != rank;
    };
    std::vector<int> high, normal;  // collectives' stream priorities
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      const Op& op = s_.ops[i];
      int rank = rank_[i];
      bool elsewhere = (op.event >= 0 && s_.events[op.event].device != rank) ||
                       (op.other_stream >= 0 && s_.streams[op.other_stream].device != rank) ||
                       device_buffer_elsewhere(op.buffer, rank) || device_buffer_elsewhere(op.src, rank) ||
                       device_buffer_elsewhere(op.dst, rank);
      for (int b : op.kernel.reads) elsewhere |= device_buffer_elsewhere(b, rank);
      for (int b : op.kernel.writes) elsewhere |= device_buffer_elsewhere(b, rank);
      if (elsewhere)
        unsupported_.push_back("op " + op.name + " on GPU " + std::to_string(rank) + " uses another GPU's event, stream "
                               "or memory: under torchrun each GPU is its own process");
      if (op.kind == OpKind::kGraphLaunch) unsupported_.push_back("graph " + op.name + " in a torchrun program");
      if (op.kind != OpKind::kCollective || op.collective_first != static_cast<int>(i)) continue;
      (s_.streams[op.stream].priority < 0 ? high : normal).push_back(static_cast<int>(i));
      if (static_cast<int>(CollectiveParts(s_, static_cast<int>(i)).size()) != s_.device_count)
        unsupported_.push_back("collective " + op.name + " over some of the GPUs: the program uses the default group only");
    }
    if (!high.empty() && !normal.empty())
      differs_.push_back("collectives: ProcessGroupNCCL has one stream priority for all of them, and this lab mixes two; "
                         "all run at high priority");
    high_priority_comm_ = !high.empty();
  }

  void Check() {
    if (s_.recorded) unsupported_.push_back("a recorded program is explained, not re-run");
    if (!s_.torch_source.empty() && (distributed_ || ThreadCount(s_) > 1))
      unsupported_.push_back("a hand-written PyTorch body drives one host thread of one process");
    if (distributed_) CheckOneGpuPerOp();
    // A blocking stream differs only where the legacy default stream has work to wait for.
    std::vector<bool> legacy_used(static_cast<size_t>(std::max(1, s_.device_count)), false);
    for (const Op& op : s_.ops)
      if (op.stream >= 0 && s_.streams[op.stream].kind == StreamKind::kLegacyDefault)
        legacy_used[s_.streams[op.stream].device] = true;
    for (const StreamDesc& st : s_.streams) {
      if (st.kind == StreamKind::kPerThreadDefault)
        differs_.push_back("stream " + st.name + ": PyTorch has no per-thread default stream; a side stream stands in");
      if (st.kind == StreamKind::kCreated && !st.non_blocking && legacy_used[st.device])
        differs_.push_back("stream " + st.name + ": PyTorch creates every stream non-blocking, so it never waits for the legacy default stream");
    }
    std::vector<int> slots;
    for (const Op& op : s_.ops)
      if (op.kind == OpKind::kKernel && std::find(slots.begin(), slots.end(), op.kernel.function_slot) == slots.end())
        slots.push_back(op.kernel.function_slot);
    if (slots.size() > 1 && s_.settings.lazy_loading && !s_.settings.warmup)  // first launches are measured
      differs_.push_back("kernels: every one is torch.cuda._sleep, one function, so lazy loading loads one module, "
                         "not one per kernel function");
    for (const Op& op : s_.ops) {
      if (op.kind == OpKind::kApiCall) unsupported_.push_back("recorded API call " + op.name);
      if (op.kind != OpKind::kKernel) continue;
      if (op.kernel.kind != KernelKind::kSpin && !Compiled(op.kernel.kind))
        unsupported_.push_back("kernel " + op.name + ": PyTorch has no equivalent of StreamLab's " + ToString(op.kernel.kind) + " kernel");
    }
  }

  static bool Compiled(KernelKind kind) { return kind == KernelKind::kAtomic || kind == KernelKind::kSharedMemory; }


  // A spin kernel of many blocks is StreamLab's spin compiled with NVRTC: torch.cuda._sleep
  // runs one block, which never fills the GPU (what w1-gpu-is-full and the priority labs need).
  bool GridSpin(const Op& op) const {
    return op.kind == OpKind::kKernel && op.kernel.kind == KernelKind::kSpin && op.kernel.grid > kMaxSleepGrid &&
           !FillSpin(op);
  }
  // A spin kernel that writes checked memory also fills it, as StreamLab's CUDA spin kernel
  // does: out[j] = in[j % n_in] + 1 after the spin, so a race's wrong result shows in PyTorch.
  bool FillSpin(const Op& op) const {
    return op.kind == OpKind::kKernel && op.kernel.kind == KernelKind::kSpin && !op.kernel.writes.empty() &&
           checked_[op.kernel.writes.front()];
  }
  bool Any(bool (Writer::*which)(const Op&) const) const {
    return std::any_of(s_.ops.begin(), s_.ops.end(), [&](const Op& op) { return (this->*which)(op); });
  }

  bool Uses(KernelKind kind) const {
    return std::any_of(s_.ops.begin(), s_.ops.end(),
                       [&](const Op& op) { return op.kind == OpKind::kKernel && op.kernel.kind == kind; });
  }

  // StreamLab's atomic and shared-memory kernels, as in kernels/device_kernels.cu (without
  // the block timestamps: CUPTI times the kernel). PyTorch has no op that does only this, so
  // the program compiles them at start with NVRTC through torch.cuda._compile_kernel and
  // launches them on the current stream like any PyTorch kernel.
  void CompiledKernels() {
    bool grid = Any(&Writer::GridSpin), fill = Any(&Writer::FillSpin);
    if (grid || fill) {
      o_ << "SPIN_SOURCE = r\"\"\"\n"
         << "__device__ void spin_ns(int ns) {\n"
         << "  // Thread 0 of every block spins on the GPU's nanosecond timer; the block holds its\n"
         << "  // SM slot meanwhile, so a big grid fills the GPU as a real kernel does.\n"
         << "  if (threadIdx.x == 0) {\n    unsigned long long start, now;\n"
         << "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(start));\n"
         << "    do {\n      asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now));\n"
         << "    } while (now - start < (unsigned long long)ns);\n  }\n  __syncthreads();\n}\n\n"
         << "extern \"C\" __global__ void streamlab_spin(int ns) { spin_ns(ns); }\n\n"
         << "extern \"C\" __global__ void streamlab_spin_fill(int ns, const unsigned* in, int n_in, unsigned* out, int n_out) {\n"
         << "  // Reads its input and writes every element of its output only after the spin, so\n"
         << "  // what it reads is what other streams left there by then.\n"
         << "  spin_ns(ns);\n"
         << "  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n_out; j += gridDim.x * blockDim.x)\n"
         << "    out[j] = (n_in ? in[j % n_in] : 0u) + 1u;\n}\n\"\"\"\n";
      if (grid) o_ << "spin_kernel = torch.cuda._compile_kernel(SPIN_SOURCE, \"streamlab_spin\")\n";
      if (fill) o_ << "spin_fill_kernel = torch.cuda._compile_kernel(SPIN_SOURCE, \"streamlab_spin_fill\")\n";
      o_ << "\n\n";
    }
    if (Uses(KernelKind::kAtomic))
      o_ << "ATOMIC_SOURCE = r\"\"\"\n"
         << "extern \"C\" __global__ void streamlab_atomics(unsigned* target, int n, int work) {\n"
         << "  // A few hot addresses, contended on purpose: work atomic adds per thread.\n"
         << "  for (int i = 0; i < work && n; ++i) atomicAdd(&target[(threadIdx.x + i) % n], 1u);\n"
         << "}\n\"\"\"\n"
         << "atomics_kernel = torch.cuda._compile_kernel(ATOMIC_SOURCE, \"streamlab_atomics\")\n\n\n";
    if (Uses(KernelKind::kSharedMemory))
      o_ << "SHARED_SOURCE = r\"\"\"\n"
         << "__device__ float streamlab_sink;\n"
         << "extern \"C\" __global__ void streamlab_shared_tiles(int work) {\n"
         << "  // Reads a tile no thread writes after the barrier; writes only its own slot.\n"
         << "  __shared__ float tile[1024];\n  __shared__ float mine[1024];\n"
         << "  unsigned slot = threadIdx.x % 1024;\n  tile[slot] = threadIdx.x;\n  mine[slot] = 0;\n"
         << "  __syncthreads();\n  float acc = 0;\n"
         << "  for (int i = 0; i < work; ++i) {\n"
         << "    acc += tile[(threadIdx.x + i * 33) % 1024];\n    mine[slot] = acc * 0.5f + mine[slot];\n  }\n"
         << "  acc += mine[slot];\n  if (acc == -1.0f) streamlab_sink = acc;  // keeps the loop\n"
         << "}\n\"\"\"\n"
         << "shared_tiles_kernel = torch.cuda._compile_kernel(SHARED_SOURCE, \"streamlab_shared_tiles\")\n\n\n";
  }

  std::string FillLaunch(const Op& op) const {
    int out = op.kernel.writes.front();
    int in = op.kernel.reads.empty() ? -1 : op.kernel.reads.front();
    std::string n_out = std::to_string(s_.buffers[out].bytes / 4);
    std::string input = in < 0 ? Buf(s_, out) + ", 0" : Buf(s_, in) + ", " + std::to_string(s_.buffers[in].bytes / 4);
    return "spin_fill_kernel(grid=(" + std::to_string(op.kernel.grid) + ", 1, 1), block=(" + std::to_string(op.kernel.block) +
           ", 1, 1), args=[" + std::to_string(std::min<TimeNs>(op.kernel.work, INT32_MAX)) + ", " + input + ", " +
           Buf(s_, out) + ", " + n_out + "])  # " + op.name;
  }

  std::string CompiledLaunch(const Op& op) const {
    std::string shape = "grid=(" + std::to_string(op.kernel.grid) + ", 1, 1), block=(" + std::to_string(op.kernel.block) + ", 1, 1)";
    std::string work = std::to_string(op.kernel.work);
    if (op.kernel.kind == KernelKind::kSharedMemory)
      return "shared_tiles_kernel(" + shape + ", args=[" + work + "])  # " + op.name;
    if (op.kernel.writes.empty()) return "pass  # " + op.name + ": an atomic kernel with no buffer";
    int target = op.kernel.writes.front();
    uint64_t hot = std::min<uint64_t>(s_.buffers[target].bytes / 4, 32);
    return "atomics_kernel(" + shape + ", args=[" + Buf(s_, target) + ", " + std::to_string(hot) + ", " + work + "])  # " + op.name;
  }

  void Header() {
    o_ << "# " << s_.name << ": the lab as a runnable PyTorch program, written by StreamLab\n"
       << "# (streamlab-cli run LAB --backend torch runs it under `streamlab-cli record`).\n";
    for (const std::string& d : differs_) o_ << "# differs from the lab: " << d << "\n";
    for (const std::string& u : unsupported_) o_ << "# cannot run as written: " << u << "\n";
    const RunSettings& r = s_.settings;
    o_ << "import os\n\n"
       << "# Per-process settings, before CUDA starts.\n"
       << "os.environ[\"CUDA_DEVICE_MAX_CONNECTIONS\"] = \"" << r.max_connections << "\"\n"
       << "os.environ[\"CUDA_MODULE_LOADING\"] = \"" << (r.lazy_loading ? "LAZY" : "EAGER") << "\"\n"
       << "os.environ[\"CUDA_LAUNCH_BLOCKING\"] = \"" << (r.launch_blocking ? 1 : 0) << "\"\n";
    if (distributed_) o_ << "os.environ.setdefault(\"NCCL_NVLS_ENABLE\", \"0\")  # no NVLink multicast\n";
    o_ << "import threading\nimport time\n\nimport torch\n" << (distributed_ ? "import torch.distributed as dist\n" : "")
       << "\nnvtx = torch.cuda.nvtx\n\n\n";
    if (distributed_) DistributedStart();
    else WaitForTurn();
    o_ << "def cycles_per_us():\n"
       << "    \"\"\"torch.cuda._sleep spins for GPU clock cycles: time a long one to convert.\"\"\"\n"
       << "    torch.cuda._sleep(1000)\n    torch.cuda.synchronize()\n"
       << "    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\n"
       << "    begin.record()\n    torch.cuda._sleep(10_000_000)\n    end.record()\n    end.synchronize()\n"
       << "    return 10_000_000 / (begin.elapsed_time(end) * 1000.0)\n\n\n"
       << "CYCLES_PER_US = cycles_per_us()\n\n\n"
       << "def spin(us):\n    torch.cuda._sleep(max(1, int(us * CYCLES_PER_US)))\n\n\n"
       << "def host_work(us):\n    end = time.perf_counter() + us / 1e6\n"
       << "    while time.perf_counter() < end:\n        pass\n\n\n"
       << "class op_range:\n    \"\"\"The NVTX range StreamLab maps a recorded call back to its op by.\"\"\"\n\n"
       << "    def __init__(self, tag, op):\n        self.name = f\"{tag}:{op}\"\n\n"
       << "    def __enter__(self):\n        nvtx.range_push(self.name)\n\n"
       << "    def __exit__(self, *exc):\n        nvtx.range_pop()\n\n\n";
    CompiledKernels();
  }

  // `verify` starts several variants' programs together (importing torch takes seconds) and
  // lets each touch CUDA only once the GPU and the host are its own.
  void WaitForTurn() {
    o_ << "def wait_for_turn():\n"
       << "    \"\"\"`streamlab-cli verify` starts this program early; it says it is here and goes\n"
       << "    on once the file STREAMLAB_START_GATE exists (run by hand: at once).\"\"\"\n"
       << "    gate, owner = os.environ.get(\"STREAMLAB_START_GATE\"), os.environ.get(\"STREAMLAB_GATE_OWNER\")\n"
       << "    if gate:\n"
       << "        open(gate + \".ready\", \"w\").close()\n"
       << "    while gate and not os.path.exists(gate):\n"
       << "        if owner and not os.path.exists(f\"/proc/{owner}\"):\n"
       << "            raise SystemExit(\"streamlab-cli verify ended before this run's turn\")\n"
       << "        time.sleep(0.002)\n\n\n"
       << "wait_for_turn()\n\n\n";
  }

  // One process per GPU (torchrun --nproc_per_node=N): this one drives GPU RANK, and the
  // collectives are NCCL's through torch.distributed.
  void DistributedStart() {
    o_ << "# torchrun starts one process per GPU; this one drives GPU RANK.\n"
       << "RANK = int(os.environ[\"LOCAL_RANK\"])\n"
       << "torch.cuda.set_device(RANK)\n";
    if (high_priority_comm_)
      o_ << "# The lab's communication streams have high priority; ProcessGroupNCCL runs every\n"
         << "# collective on a stream of its own, whose priority is this option.\n"
         << "options = dist.ProcessGroupNCCL.Options()\noptions.is_high_priority_stream = True\n"
         << "dist.init_process_group(\"nccl\", device_id=torch.device(\"cuda\", RANK), pg_options=options)\n\n\n";
    else
      o_ << "dist.init_process_group(\"nccl\", device_id=torch.device(\"cuda\", RANK))\n\n\n";
  }

  // Python to run only in the process of GPU `device` (every line, where there is one process).
  std::string RankGuard(int device) const { return distributed_ ? "if RANK == " + std::to_string(device) + ":\n" : ""; }

  void Declarations() {
    // Under torchrun, each process makes only its own GPU's streams, events and memory.
    for (int d = 0; d < Ranks(); ++d) {
      std::string in = distributed_ ? "    " : "";
      o_ << RankGuard(d);
      for (const StreamDesc& st : s_.streams) {
        if (distributed_ && st.device != d) continue;
        o_ << in << CodeIdent(st.name) << " = ";
        switch (st.kind) {
          case StreamKind::kLegacyDefault: o_ << "torch.cuda.default_stream(" << st.device << ")  # the legacy default stream\n"; break;
          case StreamKind::kPerThreadDefault: o_ << "torch.cuda.Stream(" << st.device << ")  # stands in for the per-thread default stream\n"; break;
          case StreamKind::kCreated:
            o_ << "torch.cuda.Stream(" << st.device << ", priority=" << st.priority << ")"
               << (st.non_blocking ? "" : "  # the lab's stream was blocking") << "\n";
            break;
        }
      }
      for (const EventDesc& e : s_.events)
        if (!distributed_ || e.device == d) o_ << in << CodeIdent(e.name) << " = torch.cuda.Event()\n";
    }
    o_ << "buf = {}\n\n\n";
    // Buffers an op allocates are made by that op; the rest before each pass.
    std::vector<bool> by_op(s_.buffers.size(), false);
    for (const Op& op : s_.ops)
      if ((op.kind == OpKind::kMalloc || op.kind == OpKind::kMallocHost) && op.buffer >= 0) by_op[op.buffer] = true;
    o_ << "def make_buffers():\n    buf.clear()\n";
    for (size_t b = 0; b < s_.buffers.size(); ++b) {
      const BufferDesc& d = s_.buffers[b];
      if (by_op[b]) continue;
      std::string in = "    ";
      if (distributed_ && d.kind == MemoryKind::kDevice) {
        o_ << in << RankGuard(d.device);
        in += "    ";
      }
      if (d.alias_of >= 0)
        o_ << in << Buf(s_, static_cast<int>(b)) << " = " << Buf(s_, d.alias_of)
           << "  # the caching allocator hands the freed block back\n";
      else
        o_ << in << Buf(s_, static_cast<int>(b)) << " = " << NewTensor(d, checked_[b]) << "\n";
    }
    o_ << "\n\n";
  }

  std::string Stream(int st) const { return CodeIdent(s_.streams[st].name); }

  // The statement(s) of one op, and whether they run on its stream.
  std::string Body(const Op& op) const {
    std::string ev = op.event >= 0 ? CodeIdent(s_.events[op.event].name) : "";
    switch (op.kind) {
      case OpKind::kKernel:
        if (Compiled(op.kernel.kind)) return CompiledLaunch(op);
        if (FillSpin(op)) return FillLaunch(op);
        if (GridSpin(op))
          return "spin_kernel(grid=(" + std::to_string(op.kernel.grid) + ", 1, 1), block=(" + std::to_string(op.kernel.block) +
                 ", 1, 1), args=[" + std::to_string(std::min<TimeNs>(op.kernel.work, INT32_MAX)) + "])  # " + op.name;
        return "spin(" + Us(op.kernel.work) + ")  # " + op.name;
      case OpKind::kMemcpy:
        return Buf(s_, op.dst) + ".copy_(" + Buf(s_, op.src) + (op.async ? ", non_blocking=True" : "") + ")  # " + op.name;
      case OpKind::kPeerCopy: return Buf(s_, op.dst) + ".copy_(" + Buf(s_, op.src) + ", non_blocking=True)  # " + op.name;
      case OpKind::kMemset: return Buf(s_, op.buffer) + ".fill_(" + std::to_string(op.value) + ")";
      case OpKind::kRecord: return ev + ".record(" + Stream(op.stream) + ")";
      case OpKind::kWaitEvent: return Stream(op.stream) + ".wait_event(" + ev + ")";
      case OpKind::kWaitStream: return Stream(op.stream) + ".wait_stream(" + Stream(op.other_stream) + ")";
      case OpKind::kSyncDevice: return "torch.cuda.synchronize()";
      case OpKind::kSyncStream: return Stream(op.stream) + ".synchronize()";
      case OpKind::kSyncEvent: return ev + ".synchronize()";
      case OpKind::kQuery: return ev + ".query()";
      case OpKind::kHostWork: return "host_work(" + Us(op.duration) + ")";
      case OpKind::kSetDevice: return "torch.cuda.set_device(" + std::to_string(op.device) + ")";
      case OpKind::kMalloc:
      case OpKind::kMallocHost: return Buf(s_, op.buffer) + " = " + NewTensor(s_.buffers[op.buffer], checked_[op.buffer]);
      case OpKind::kFree: return "del " + Buf(s_, op.buffer) + "\n        torch.cuda.empty_cache()  # cudaFree of the cached block";
      case OpKind::kCollective: return CollectiveCall(op);
      case OpKind::kGraphLaunch:
        return "graphs[" + std::to_string(&op - s_.ops.data()) + "].replay()  # " + op.name + ": one cudaGraphLaunch";
      case OpKind::kApiCall: return "pass  # " + op.name + ": not run";
    }
    return "pass";
  }

  // This GPU's part of a collective: the buffer as float32 (as the CUDA executor's NCCL
  // calls), in place. ProcessGroupNCCL runs it on its own stream, which waits for the
  // current stream first and which the current stream then waits for.
  std::string CollectiveCall(const Op& op) const {
    std::string b = Buf(s_, op.buffer) + (s_.buffers[op.buffer].bytes % 4 == 0 ? ".view(torch.float32)" : "");
    std::string n = std::to_string(CollectiveParts(s_, static_cast<int>(&op - s_.ops.data())).size());
    switch (op.collective) {
      case CollectiveKind::kAllReduce: return "dist.all_reduce(" + b + ")  # " + op.name;
      case CollectiveKind::kReduceScatter:
        return "dist.reduce_scatter_tensor(" + b + ".chunk(" + n + ")[RANK], " + b + ")  # " + op.name;
      case CollectiveKind::kAllGather:
        return "dist.all_gather_into_tensor(" + b + ", " + b + ".chunk(" + n + ")[RANK])  # " + op.name;
      case CollectiveKind::kBroadcast:
        return "dist.broadcast(" + b + ", src=" + std::to_string(s_.streams[s_.ops[op.collective_first].stream].device) +
               ")  # " + op.name;
    }
    return "pass";
  }

  bool OnItsStream(const Op& op) const {
    // Calls that take a stream argument name it; the rest run on the stream made current.
    return op.stream >= 0 && (op.kind == OpKind::kKernel || op.kind == OpKind::kMemcpy || op.kind == OpKind::kPeerCopy ||
                              op.kind == OpKind::kMemset || op.kind == OpKind::kGraphLaunch || op.kind == OpKind::kCollective);
  }

  void OpBlock(size_t i) {
    const Op& op = s_.ops[i];
    o_ << "    with op_range(tag, " << i << ")";
    if (OnItsStream(op)) o_ << ", torch.cuda.stream(" << Stream(op.stream) << ")";
    o_ << ":\n        " << Body(op) << "\n";
  }

  // The Python function of host thread `t` (in the process of GPU `rank`, under torchrun).
  std::string ThreadFunction(int t, int rank) const {
    if (!distributed_) return "thread_" + std::to_string(t);
    return "rank_" + std::to_string(rank) + (ThreadCount(s_) > 1 ? "_thread_" + std::to_string(t) : "");
  }

  void Thread(int t, int rank) {
    o_ << "def " << ThreadFunction(t, rank) << "(tag):\n";
    bool any = false;
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      const Op& op = s_.ops[i];
      if (op.thread != t || op.graph >= 0 || !OnRank(i, rank)) continue;
      any = true;
      OpBlock(i);
    }
    if (!any) o_ << "    pass\n";
    o_ << "\n\n";
  }

  // The lab's own thread_0, written by hand (Scenario::torch_source): "{op:N}" becomes op
  // N's statement, so kernels and copies read exactly as in a generated program.
  void HandWritten() {
    const std::string& src = s_.torch_source;
    const std::string marker = "{op:";
    size_t at = 0;
    for (size_t found; (found = src.find(marker, at)) != std::string::npos;) {
      size_t close = src.find('}', found);
      std::string digits = close == std::string::npos ? "" : src.substr(found + marker.size(), close - found - marker.size());
      bool number = !digits.empty() && digits.size() < 6 && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
      size_t op = number ? std::stoul(digits) : s_.ops.size();
      if (op >= s_.ops.size()) {
        unsupported_.push_back("the hand-written program names no op of the lab at " + src.substr(found, 12));
        return;
      }
      o_ << src.substr(at, found - at) << Body(s_.ops[op]);
      at = close + 1;
    }
    o_ << src.substr(at) << "\n\n";
  }

  // Each graph_launch's ops as a function, captured once per pass into graphs[N] on the
  // launch's stream (the other streams join the capture through their waits, as in CUDA).
  void Graphs() {
    std::vector<int> launches;
    for (size_t l = 0; l < s_.ops.size(); ++l)
      if (s_.ops[l].kind == OpKind::kGraphLaunch) launches.push_back(static_cast<int>(l));
    if (launches.empty()) return;
    o_ << "graphs = {}\n\n\n";
    for (int l : launches) {
      o_ << "def graph_" << l << "(tag):\n    \"\"\"What " << s_.ops[l].name << " replays.\"\"\"\n";
      for (int k = l + 1; k < GraphNodesEnd(s_, l); ++k) OpBlock(static_cast<size_t>(k));
      o_ << "\n\n";
    }
    o_ << "def capture_graphs():\n"
       << "    \"\"\"Captured before the pass's ops, as the lab's CUDA program does; each captured op is in an\n"
       << "    NVTX range capture:N, which CUPTI ties to the node every replay runs.\"\"\"\n";
    for (int l : launches) {
      o_ << "    graphs[" << l << "] = torch.cuda.CUDAGraph()\n"
         << "    with torch.cuda.graph(graphs[" << l << "], stream=" << Stream(s_.ops[l].stream) << "):\n"
         << "        graph_" << l << "(\"capture\")\n";
    }
    o_ << "\n\n";
  }

  void Passes() {
    int threads = ThreadCount(s_);
    bool graphs = std::any_of(s_.ops.begin(), s_.ops.end(), [](const Op& op) { return op.kind == OpKind::kGraphLaunch; });
    o_ << "def run_pass(tag):\n    make_buffers()\n" << (graphs ? "    capture_graphs()\n" : "")
       << "    torch.cuda.synchronize()\n"
       << (distributed_ ? "    dist.barrier()  # every GPU's process starts the pass together:\n"
                          "    torch.cuda.synchronize()  # once the barrier's all-reduce is done, all are here\n"
                        : "");
    // Host thread t's function (under torchrun: of this process's GPU).
    auto function = [&](int t) {
      if (!distributed_) return ThreadFunction(t, 0);
      std::string by_rank = "{";
      for (int r = 0; r < Ranks(); ++r) by_rank += (r ? ", " : "") + std::to_string(r) + ": " + ThreadFunction(t, r);
      return by_rank + "}[RANK]";
    };
    if (threads == 1) {
      o_ << "    " << function(0) << "(tag)\n";
    } else {
      o_ << "    # One Python thread per host thread, started one after another.\n    threads = [";
      for (int t = 0; t < threads; ++t) o_ << (t ? ", " : "") << "threading.Thread(target=" << function(t) << ", args=(tag,))";
      o_ << "]\n    for t in threads:\n        t.start()\n    for t in threads:\n        t.join()\n";
    }
    o_ << "    torch.cuda.synchronize()\n\n\n";
    // Under torchrun the first collectives connect the GPUs, so there is always a warm-up.
    SaveContents();
    if (s_.settings.warmup || distributed_) o_ << "run_pass(\"warmup\")  # loads every kernel and warms the allocator\n";
    o_ << "run_pass(\"streamlab\")\n";
    if (std::any_of(checked_.begin(), checked_.end(), [](bool c) { return c; })) o_ << "save_contents()\n";
    if (distributed_) o_ << "dist.destroy_process_group()\n";
  }

  // The checked memory's bytes after the measured pass, one file per storage (named by its
  // buffer index), for `--backend torch` to compare with what program order gives. The
  // memory may be held under the name of a buffer that reuses it.
  void SaveContents() {
    std::string storages;
    for (size_t b = 0; b < s_.buffers.size(); ++b) {
      if (!checked_[b] || s_.buffers[b].alias_of >= 0) continue;
      std::string names = Py(s_.buffers[b].name);
      for (size_t a = 0; a < s_.buffers.size(); ++a)
        if (a != b && StorageOf(s_, static_cast<int>(a)) == static_cast<int>(b)) names += ", " + Py(s_.buffers[a].name);
      storages += (storages.empty() ? "" : ", ") + std::to_string(b) + ": [" + names + "]";
    }
    if (storages.empty()) return;
    o_ << "def save_contents():\n"
       << "    \"\"\"Each checked buffer's bytes, for StreamLab to compare with what program order gives\n"
       << "    (it sets STREAMLAB_CONTENTS_DIR; run by hand, nothing is saved).\"\"\"\n"
       << "    where = os.environ.get(\"STREAMLAB_CONTENTS_DIR\")\n"
       << "    if not where:\n        return\n"
       << "    for storage, names in {" << storages << "}.items():\n"
       << "        held = [buf[n] for n in names if n in buf]\n"
       << "        if held:  # uint8 bytes; tolist needs no numpy (checked buffers are small)\n"
       << "            with open(os.path.join(where, f\"{storage}.bin\"), \"wb\") as f:\n"
       << "                f.write(bytes(held[0].cpu().tolist()))\n\n\n";
  }

  const Scenario& s_;
  std::ostringstream o_;
  std::vector<std::string> differs_, unsupported_;
  bool distributed_ = false;          // collectives: a torchrun job, one process per GPU
  bool high_priority_comm_ = false;   // a collective runs on a high-priority stream
  std::vector<int> rank_;             // per op: the GPU whose process runs it
  std::vector<bool> checked_;         // per buffer: its memory's contents are checked
};

}  // namespace

TorchProgram ScenarioAsTorchProgram(const Scenario& scenario) { return Writer(scenario).Write(); }

std::string TorchRangeName(int op) { return "streamlab:" + std::to_string(op); }

std::vector<int> TorchRangeOps(const std::string& range_name) {
  const std::string tag = "streamlab:";
  if (range_name.compare(0, tag.size(), tag) != 0) return {};
  std::vector<int> ops;
  std::string digits;
  for (size_t i = tag.size(); i <= range_name.size(); ++i) {
    char c = i < range_name.size() ? range_name[i] : '+';
    if (c >= '0' && c <= '9' && digits.size() < 6) {
      digits += c;
    } else if (c == '+' && !digits.empty()) {
      ops.push_back(std::stoi(digits));
      digits.clear();
    } else {
      return {};
    }
  }
  return ops;
}

std::string TorchCaptureRangeName(int op) { return "capture:" + std::to_string(op); }

std::string ScenarioAsPyTorch(const Scenario& scenario) { return ScenarioAsTorchProgram(scenario).text; }

}  // namespace streamlab
