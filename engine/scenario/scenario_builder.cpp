// ScenarioBuilder: appends ops in program order; every call maps to one CUDA runtime call.
#include "engine/scenario/scenario_builder.h"

#include <utility>

namespace streamlab {

namespace {
KernelSpec KernelOf(KernelKind kind, int64_t work, int grid, int block, int function_slot = 0) {
  KernelSpec k;
  k.kind = kind;
  k.work = work;
  k.grid = grid;
  k.block = block;
  k.function_slot = function_slot;
  return k;
}
}  // namespace

KernelSpec Spin(TimeNs per_block, int grid, int block, int function_slot) {
  return KernelOf(KernelKind::kSpin, per_block, grid, block, function_slot);
}
KernelSpec Compute(int64_t fma_iterations, int grid, int block) {
  return KernelOf(KernelKind::kCompute, fma_iterations, grid, block);
}
KernelSpec MemoryStream(int64_t bytes_per_block, int grid, int block) {
  return KernelOf(KernelKind::kMemory, bytes_per_block, grid, block);
}
KernelSpec Atomics(int64_t adds_per_thread, int grid, int block) {
  return KernelOf(KernelKind::kAtomic, adds_per_thread, grid, block);
}
KernelSpec SharedMemoryTiles(int64_t iterations, int grid, int block) {
  return KernelOf(KernelKind::kSharedMemory, iterations, grid, block);
}

namespace {
std::vector<int> Indices(const std::vector<Buffer>& buffers) {
  std::vector<int> out;
  for (const Buffer& b : buffers) out.push_back(b.index());
  return out;
}
}  // namespace

namespace {
// An op on `stream`, named `name` (records and waits take their display name from the view).
Op StreamOp(OpKind kind, int stream, const std::string& name = "") {
  Op op;
  op.kind = kind;
  op.name = name;
  op.stream = stream;
  return op;
}

Op CopyOp(OpKind kind, int stream, const std::string& name, Buffer dst, Buffer src, uint64_t bytes) {
  Op op = StreamOp(kind, stream, name);
  op.dst = dst.index();
  op.src = src.index();
  op.bytes = bytes;
  return op;
}
}  // namespace

int Stream::Launch(const std::string& name, KernelSpec kernel, std::vector<Buffer> reads,
                   std::vector<Buffer> writes) {
  Op op = StreamOp(OpKind::kKernel, index_, name);
  op.kernel = std::move(kernel);
  op.kernel.reads = Indices(reads);
  op.kernel.writes = Indices(writes);
  return b_->Append(std::move(op));
}

int Stream::Record(Event event) {
  Op op = StreamOp(OpKind::kRecord, index_);
  op.event = event.index();
  return b_->Append(std::move(op));
}

int Stream::Wait(Event event) {
  Op op = StreamOp(OpKind::kWaitEvent, index_);
  op.event = event.index();
  return b_->Append(std::move(op));
}

int Stream::WaitStream(Stream other) {
  Op op = StreamOp(OpKind::kWaitStream, index_);
  op.other_stream = other.index();
  return b_->Append(std::move(op));
}

int Stream::Copy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes) {
  return b_->Append(CopyOp(OpKind::kMemcpy, index_, name, dst, src, bytes));
}

int Stream::Memset(const std::string& name, Buffer dst, uint64_t bytes, int value) {
  Op op = StreamOp(OpKind::kMemset, index_, name);
  op.buffer = dst.index();
  op.bytes = bytes;
  op.value = value;
  return b_->Append(std::move(op));
}

int Stream::PeerCopy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes) {
  return b_->Append(CopyOp(OpKind::kPeerCopy, index_, name, dst, src, bytes));
}

int Stream::Synchronize() { return b_->Append(StreamOp(OpKind::kSyncStream, index_)); }

namespace {
Op HostOp(OpKind kind) {
  Op op;
  op.kind = kind;
  return op;
}
}  // namespace

int Host::SyncDevice() { return b_->Append(HostOp(OpKind::kSyncDevice)); }

void Host::SyncEveryDevice() {
  for (int g = 0; g < b_->scenario_.device_count; ++g) {
    SetDevice(g);
    SyncDevice();
  }
}

int Host::SyncEvent(Event event) {
  Op op = HostOp(OpKind::kSyncEvent);
  op.event = event.index();
  return b_->Append(std::move(op));
}

int Host::Query(Event event) {
  Op op = HostOp(OpKind::kQuery);
  op.event = event.index();
  return b_->Append(std::move(op));
}

int Host::Work(const std::string& name, TimeNs duration) {
  Op op = HostOp(OpKind::kHostWork);
  op.name = name;
  op.duration = duration;
  return b_->Append(std::move(op));
}

namespace {
Op BufferOp(OpKind kind, Buffer buffer) {
  Op op = HostOp(kind);
  op.buffer = buffer.index();
  return op;
}
}  // namespace

int Host::Malloc(Buffer buffer) { return b_->Append(BufferOp(OpKind::kMalloc, buffer)); }
int Host::Free(Buffer buffer) { return b_->Append(BufferOp(OpKind::kFree, buffer)); }
int Host::MallocHost(Buffer buffer) { return b_->Append(BufferOp(OpKind::kMallocHost, buffer)); }

int Host::SetDevice(int device) {
  b_->current_device_ = device;
  Op op = HostOp(OpKind::kSetDevice);
  op.device = device;
  return b_->Append(std::move(op));
}

// cudaMemcpy / cudaMemset: the synchronous calls, which run on the legacy default stream.
int Host::Memcpy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes) {
  Op op = CopyOp(OpKind::kMemcpy, b_->LegacyStreamIndex(), name, dst, src, bytes);
  op.async = false;
  return b_->Append(std::move(op));
}

int Host::Memset(const std::string& name, Buffer dst, uint64_t bytes, int value) {
  Op op = StreamOp(OpKind::kMemset, b_->LegacyStreamIndex(), name);
  op.async = false;
  op.buffer = dst.index();
  op.bytes = bytes;
  op.value = value;
  return b_->Append(std::move(op));
}

ScenarioBuilder::ScenarioBuilder(std::string name, int device_count) {
  scenario_.name = std::move(name);
  scenario_.device_count = device_count;
}

Stream ScenarioBuilder::AddStream(StreamDesc desc) {
  scenario_.streams.push_back(std::move(desc));
  return Stream(this, static_cast<int>(scenario_.streams.size()) - 1);
}

Stream ScenarioBuilder::CreateStream(const std::string& name, StreamOptions options) {
  StreamDesc d;
  d.name = name;
  d.device = options.device;
  d.non_blocking = options.non_blocking;
  d.priority = options.priority;
  return AddStream(std::move(d));
}

Stream ScenarioBuilder::LegacyDefaultStream(int device, const std::string& name) {
  StreamDesc d;
  d.name = !name.empty() ? name : device == 0 ? "legacy" : "legacy" + std::to_string(device);
  d.device = device;
  d.kind = StreamKind::kLegacyDefault;
  return AddStream(std::move(d));
}

Stream ScenarioBuilder::PerThreadDefaultStream(int device, int thread) {
  StreamDesc d;
  d.name = device == 0 ? "per-thread" : "per-thread" + std::to_string(device);
  if (thread != 0) d.name += "-t" + std::to_string(thread);
  d.device = device;
  d.thread = thread;
  d.kind = StreamKind::kPerThreadDefault;
  return AddStream(std::move(d));
}

Event ScenarioBuilder::CreateEvent(const std::string& name, int device) {
  scenario_.events.push_back({name, device});
  return Event(static_cast<int>(scenario_.events.size()) - 1);
}

Buffer ScenarioBuilder::AddBuffer(const std::string& name, MemoryKind kind, uint64_t bytes,
                                  int device) {
  BufferDesc d;
  d.name = name;
  d.kind = kind;
  d.device = device;
  d.bytes = bytes;
  scenario_.buffers.push_back(std::move(d));
  return Buffer(static_cast<int>(scenario_.buffers.size()) - 1);
}

Buffer ScenarioBuilder::ReuseMemoryOf(const std::string& name, Buffer freed) {
  BufferDesc d = scenario_.buffers[freed.index()];
  d.name = name;
  d.alias_of = freed.index();
  scenario_.buffers.push_back(std::move(d));
  return Buffer(static_cast<int>(scenario_.buffers.size()) - 1);
}

void ScenarioBuilder::CheckContents(Buffer buffer) { scenario_.buffers[buffer.index()].checked = true; }

int ScenarioBuilder::BeginGraph(Stream launch_stream, const std::string& name) {
  Op op;
  op.kind = OpKind::kGraphLaunch;
  op.name = name;
  op.stream = launch_stream.index();
  graph_ = Append(std::move(op));
  return graph_;
}

void ScenarioBuilder::EndGraph() { graph_ = -1; }

Buffer ScenarioBuilder::DeviceBuffer(const std::string& name, uint64_t bytes, int device) {
  return AddBuffer(name, MemoryKind::kDevice, bytes, device);
}
Buffer ScenarioBuilder::PinnedBuffer(const std::string& name, uint64_t bytes) {
  return AddBuffer(name, MemoryKind::kPinnedHost, bytes, 0);
}
Buffer ScenarioBuilder::PageableBuffer(const std::string& name, uint64_t bytes) {
  return AddBuffer(name, MemoryKind::kPageableHost, bytes, 0);
}

int ScenarioBuilder::Collective(const std::string& name, CollectiveKind kind, const std::vector<Stream>& streams,
                                const std::vector<Buffer>& buffers, uint64_t bytes) {
  int first = static_cast<int>(scenario_.ops.size());
  for (size_t k = 0; k < streams.size(); ++k) {
    int device = scenario_.streams[streams[k].index()].device;
    Op op = StreamOp(OpKind::kCollective, streams[k].index(), name + "_gpu" + std::to_string(device));
    op.collective = kind;
    op.collective_first = first;
    op.buffer = k < buffers.size() ? buffers[k].index() : -1;
    op.bytes = bytes;
    Append(std::move(op));
  }
  return first;
}

int ScenarioBuilder::Append(Op op) {
  op.thread = thread_;
  if (op.kind != OpKind::kGraphLaunch) op.graph = graph_;
  scenario_.ops.push_back(std::move(op));
  return static_cast<int>(scenario_.ops.size()) - 1;
}

int ScenarioBuilder::LegacyStreamIndex() {
  for (size_t i = 0; i < scenario_.streams.size(); ++i) {
    const StreamDesc& st = scenario_.streams[i];
    if (st.kind == StreamKind::kLegacyDefault && st.device == current_device_)
      return static_cast<int>(i);
  }
  return LegacyDefaultStream(current_device_).index();
}

Scenario ScenarioBuilder::Build() const {
  ValidateScenario(scenario_);
  return scenario_;
}

}  // namespace streamlab
