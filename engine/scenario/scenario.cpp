// Names of the Scenario enums, op classification helpers and structural validation.
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "engine/util/errors.h"
#include "engine/scenario/scenario_structure.h"

namespace streamlab {
namespace {

template <typename Enum, size_t N>
const char* NameOf(const std::array<std::pair<Enum, const char*>, N>& table, Enum value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename Enum, size_t N>
bool ParseName(const std::array<std::pair<Enum, const char*>, N>& table, const std::string& text,
               Enum* out) {
  for (const auto& [e, name] : table) {
    if (text == name) {
      *out = e;
      return true;
    }
  }
  return false;
}

constexpr std::array<std::pair<StreamKind, const char*>, 3> kStreamKinds{{
    {StreamKind::kCreated, "created"},
    {StreamKind::kLegacyDefault, "legacy_default"},
    {StreamKind::kPerThreadDefault, "per_thread_default"},
}};
constexpr std::array<std::pair<MemoryKind, const char*>, 3> kMemoryKinds{{
    {MemoryKind::kDevice, "device"},
    {MemoryKind::kPinnedHost, "pinned"},
    {MemoryKind::kPageableHost, "pageable"},
}};
constexpr std::array<std::pair<OpKind, const char*>, 19> kOpKinds{{
    {OpKind::kKernel, "kernel"},         {OpKind::kMemcpy, "memcpy"},
    {OpKind::kMemset, "memset"},         {OpKind::kMalloc, "malloc"},
    {OpKind::kFree, "free"},             {OpKind::kMallocHost, "malloc_host"},
    {OpKind::kRecord, "record"},         {OpKind::kWaitEvent, "wait_event"},
    {OpKind::kWaitStream, "wait_stream"}, {OpKind::kSyncDevice, "sync_device"},
    {OpKind::kSyncStream, "sync_stream"}, {OpKind::kSyncEvent, "sync_event"},
    {OpKind::kQuery, "query"},           {OpKind::kHostWork, "host_work"},
    {OpKind::kSetDevice, "set_device"},  {OpKind::kPeerCopy, "peer_copy"},
    {OpKind::kGraphLaunch, "graph_launch"},  {OpKind::kApiCall, "api_call"},
    {OpKind::kCollective, "collective"},
}};
constexpr std::array<std::pair<CollectiveKind, const char*>, 4> kCollectiveKinds{{
    {CollectiveKind::kAllReduce, "all_reduce"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"},
    {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kBroadcast, "broadcast"},
}};
constexpr std::array<std::pair<AddressUse, const char*>, 5> kAddressUses{{{AddressUse::kArgument, "argument"},
                                                                          {AddressUse::kRead, "read"},
                                                                          {AddressUse::kWrite, "write"},
                                                                          {AddressUse::kAllocate, "allocate"},
                                                                          {AddressUse::kFree, "free"}}};
constexpr std::array<std::pair<KernelKind, const char*>, 6> kKernelKinds{{
    {KernelKind::kSpin, "spin"},
    {KernelKind::kCompute, "compute"},
    {KernelKind::kMemory, "memory"},
    {KernelKind::kAtomic, "atomic"},
    {KernelKind::kSharedMemory, "shared_memory"},
    {KernelKind::kForeign, "foreign"},
}};

std::string Where(size_t index, const char* field) {
  return "ops[" + std::to_string(index) + "]." + field;
}

}  // namespace

const char* ToString(StreamKind kind) { return NameOf(kStreamKinds, kind); }
const char* ToString(MemoryKind kind) { return NameOf(kMemoryKinds, kind); }
const char* ToString(OpKind kind) { return NameOf(kOpKinds, kind); }
const char* ToString(KernelKind kind) { return NameOf(kKernelKinds, kind); }
const char* ToString(CollectiveKind kind) { return NameOf(kCollectiveKinds, kind); }
const char* ToString(AddressUse use) { return NameOf(kAddressUses, use); }
std::string FormatAddress(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, address);
  return text;
}
bool FromString(const std::string& t, StreamKind* out) { return ParseName(kStreamKinds, t, out); }
bool FromString(const std::string& t, MemoryKind* out) { return ParseName(kMemoryKinds, t, out); }
bool FromString(const std::string& t, OpKind* out) { return ParseName(kOpKinds, t, out); }
bool FromString(const std::string& t, KernelKind* out) { return ParseName(kKernelKinds, t, out); }
bool FromString(const std::string& t, CollectiveKind* out) { return ParseName(kCollectiveKinds, t, out); }
bool FromString(const std::string& t, AddressUse* out) { return ParseName(kAddressUses, t, out); }

bool IsGpuWork(const Op& op) {
  switch (op.kind) {
    case OpKind::kKernel:
    case OpKind::kMemcpy:
    case OpKind::kMemset:
    case OpKind::kPeerCopy:
    case OpKind::kCollective: return true;
    default: return false;
  }
}

bool IsStreamOp(const Op& op) {
  switch (op.kind) {
    case OpKind::kKernel:
    case OpKind::kMemcpy:
    case OpKind::kMemset:
    case OpKind::kRecord:
    case OpKind::kWaitEvent:
    case OpKind::kWaitStream:
    case OpKind::kPeerCopy:
    case OpKind::kCollective:
      return true;
    default:
      return false;
  }
}

int StorageOf(const Scenario& scenario, int buffer) {
  // Validation allows aliases of non-aliases only, so one step reaches the storage.
  int root = scenario.buffers[buffer].alias_of;
  return root >= 0 ? root : buffer;
}

std::vector<bool> CheckedStorage(const Scenario& s) {
  std::vector<bool> root_checked(s.buffers.size(), false), checked(s.buffers.size(), false);
  for (size_t b = 0; b < s.buffers.size(); ++b)
    if (s.buffers[b].checked) root_checked[StorageOf(s, static_cast<int>(b))] = true;
  for (size_t b = 0; b < s.buffers.size(); ++b) checked[b] = root_checked[StorageOf(s, static_cast<int>(b))];
  return checked;
}

int ThreadCount(const Scenario& scenario) {
  int n = 1;
  for (const Op& op : scenario.ops) n = std::max(n, op.thread + 1);
  return n;
}

int GraphNodesEnd(const Scenario& scenario, int launch) {
  int end = launch + 1;
  while (end < static_cast<int>(scenario.ops.size()) && scenario.ops[end].graph == launch) ++end;
  return end;
}

int ProcessOfThread(const Scenario& scenario, int thread) {
  return thread >= 0 && thread < static_cast<int>(scenario.thread_process.size()) ? scenario.thread_process[thread] : 0;
}

int ProcessCount(const Scenario& scenario) { return std::max<int>(1, static_cast<int>(scenario.processes.size())); }

std::vector<int> CollectiveParts(const Scenario& scenario, int part) {
  int first = scenario.ops[part].collective_first;
  std::vector<int> parts;
  int n = static_cast<int>(scenario.ops.size());
  if (!scenario.recorded) {
    for (int i = first; i < n && scenario.ops[i].kind == OpKind::kCollective && scenario.ops[i].collective_first == first; ++i)
      parts.push_back(i);
    return parts;
  }
  // Recorded ranks each call the collective when they get there: other ops lie between the
  // parts (a linear scan; recorded traces have few collectives per op).
  for (int i = first; i < n; ++i)
    if (scenario.ops[i].kind == OpKind::kCollective && scenario.ops[i].collective_first == first) parts.push_back(i);
  return parts;
}

double CollectiveBusFactor(CollectiveKind kind, int ranks) {
  double n = ranks;
  switch (kind) {
    case CollectiveKind::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllGather: return (n - 1) / n;
    case CollectiveKind::kBroadcast: return 1.0;
  }
  return 1.0;
}

int CollectiveSteps(CollectiveKind kind, int ranks) {
  return kind == CollectiveKind::kAllReduce ? 2 * (ranks - 1) : ranks - 1;
}

bool IsBlockingStream(const StreamDesc& stream) {
  if (stream.kind == StreamKind::kPerThreadDefault) return true;
  return stream.kind == StreamKind::kCreated && !stream.non_blocking;
}

std::vector<int> BuffersRead(const Op& op) {
  switch (op.kind) {
    case OpKind::kKernel: return op.kernel.reads;
    case OpKind::kMemcpy:
    case OpKind::kPeerCopy: return {op.src};
    case OpKind::kCollective: return {op.buffer};  // in place: read, then written
    default: return {};
  }
}

std::vector<int> BuffersWritten(const Op& op) {
  switch (op.kind) {
    case OpKind::kKernel: return op.kernel.writes;
    case OpKind::kMemcpy:
    case OpKind::kPeerCopy: return {op.dst};
    case OpKind::kMemset:
    case OpKind::kCollective: return {op.buffer};
    default: return {};
  }
}

// Limits that keep a hand-edited file from asking for absurd work or memory.
constexpr int kMaxDevices = 16;
constexpr size_t kMaxObjects = 4096;
constexpr uint64_t kMaxBufferBytes = 8ull << 30;  // 8 GiB
constexpr int64_t kMaxGrid = 1 << 20;
constexpr TimeNs kMaxDuration = Ms(10000);
// Blocks over all kernels: the simulator steps every block, so this bounds a run's cost.
constexpr int64_t kMaxTotalBlocks = 2'000'000;
constexpr int kMaxThreads = 64;

void ValidateScenario(const Scenario& s) {
  auto fail = [](const std::string& what) { throw InputError(what); };
  if (s.device_count < 1 || s.device_count > kMaxDevices)
    fail("device_count: must be 1.." + std::to_string(kMaxDevices));
  if (s.settings.max_connections < 1 || s.settings.max_connections > 32)
    fail("settings.max_connections: must be 1..32");
  // A recorded program's objects each come from one of its calls (torch.compile's autotuning
  // created and destroyed 8 742 events in one run): bounded by its ops, not by what a hand-written
  // scenario may ask for.
  const size_t max_objects = s.recorded ? kMaxScenarioOps : kMaxObjects;
  if (s.streams.size() > max_objects || s.events.size() > max_objects || s.buffers.size() > max_objects)
    fail("too many streams, events or buffers (limit " + std::to_string(max_objects) + ")");
  if (s.ops.size() > kMaxScenarioOps) fail("too many ops (limit " + std::to_string(kMaxScenarioOps) + ")");

  auto device_ok = [&](int d) { return d >= 0 && d < s.device_count; };
  std::set<std::pair<int, int>> legacy;  // (process, device): each process's context has one
  for (size_t i = 0; i < s.streams.size(); ++i) {
    const StreamDesc& st = s.streams[i];
    std::string at = "streams[" + std::to_string(i) + "]";
    if (st.name.empty()) fail(at + ".name: empty");
    if (!device_ok(st.device)) fail(at + ".device: no device " + std::to_string(st.device));
    if (st.priority < -5 || st.priority > 0) fail(at + ".priority: must be -5..0");
    if (st.kind != StreamKind::kCreated && st.non_blocking)
      fail(at + ": a default stream cannot be non-blocking");
    if (st.kind == StreamKind::kLegacyDefault && !legacy.emplace(st.process, st.device).second)
      fail(at + ": a device has one legacy default stream");
    if (st.thread < 0 || st.thread >= kMaxThreads)
      fail(at + ".thread: must be 0.." + std::to_string(kMaxThreads - 1));
  }
  for (size_t i = 0; i < s.events.size(); ++i)
    if (!device_ok(s.events[i].device))
      fail("events[" + std::to_string(i) + "].device: no device " +
           std::to_string(s.events[i].device));
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const BufferDesc& b = s.buffers[i];
    std::string at = "buffers[" + std::to_string(i) + "]";
    if (b.bytes == 0 || b.bytes > kMaxBufferBytes) fail(at + ".bytes: must be 1..8 GiB");
    if (!device_ok(b.device)) fail(at + ".device: no device " + std::to_string(b.device));
    if (b.alias_of >= 0) {
      if (b.alias_of >= static_cast<int>(i)) fail(at + ".alias_of: must name an earlier buffer");
      const BufferDesc& root = s.buffers[b.alias_of];
      if (root.alias_of >= 0) fail(at + ".alias_of: " + root.name + " is itself an alias");
      if (root.kind != b.kind || root.device != b.device || b.bytes > root.bytes)
        fail(at + ".alias_of: an alias needs the same kind and device and at most the size of " + root.name);
    }
  }

  auto stream_ok = [&](int v) { return v >= 0 && v < static_cast<int>(s.streams.size()); };
  auto event_ok = [&](int v) { return v >= 0 && v < static_cast<int>(s.events.size()); };
  auto buffer_ok = [&](int v) { return v >= 0 && v < static_cast<int>(s.buffers.size()); };
  auto is_host = [&](int b) { return s.buffers[b].kind != MemoryKind::kDevice; };

  int64_t total_blocks = 0;
  for (const Op& op : s.ops)
    if (op.kind == OpKind::kKernel) total_blocks += std::max(0, op.kernel.grid);
  // A recorded program ran already: the limits that bound a simulation do not apply.
  if (total_blocks > kMaxTotalBlocks && !s.recorded)
    fail("ops: " + std::to_string(total_blocks) + " blocks over all kernels; the limit is " +
         std::to_string(kMaxTotalBlocks));

  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.thread < 0 || op.thread >= kMaxThreads)
      fail(Where(i, "thread") + ": must be 0.." + std::to_string(kMaxThreads - 1));
    if (op.woken_by >= 0 && (op.woken_by >= static_cast<int>(s.ops.size()) || s.ops[op.woken_by].thread == op.thread))
      fail(Where(i, "woken_by") + ": must be an op of another thread");
    bool needs_stream = IsStreamOp(op) || op.kind == OpKind::kSyncStream || op.kind == OpKind::kGraphLaunch;
    if (needs_stream && !stream_ok(op.stream)) fail(Where(i, "stream") + ": no such stream");
    // cudaMemcpy / cudaMemset (not Async) run on the legacy default stream.
    if ((op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset) && !op.async && !s.recorded &&
        s.streams[op.stream].kind != StreamKind::kLegacyDefault)
      fail(Where(i, "stream") + ": a synchronous copy or memset runs on the legacy default stream");
    switch (op.kind) {
      case OpKind::kKernel: {
        const KernelSpec& k = op.kernel;
        if (k.grid < 1 || (k.grid > kMaxGrid && !s.recorded)) fail(Where(i, "grid") + ": must be 1..1048576");
        if (k.block < 1 || k.block > 1024) fail(Where(i, "block") + ": must be 1..1024");
        if (k.work < 0) fail(Where(i, "work") + ": must be >= 0");
        if (k.kind == KernelKind::kSpin && k.work > kMaxDuration)
          fail(Where(i, "work") + ": a spin block may last at most 10 s");
        if (k.function_slot < 0 || k.function_slot > 7)
          fail(Where(i, "function_slot") + ": must be 0..7");
        for (int b : k.reads)
          if (!buffer_ok(b)) fail(Where(i, "reads") + ": no such buffer");
        for (int b : k.writes)
          if (!buffer_ok(b)) fail(Where(i, "writes") + ": no such buffer");
        break;
      }
      case OpKind::kMemcpy:
      case OpKind::kPeerCopy:
        if (!buffer_ok(op.src) || !buffer_ok(op.dst)) fail(Where(i, "src/dst") + ": no such buffer");
        if (op.bytes == 0 || op.bytes > s.buffers[op.src].bytes || op.bytes > s.buffers[op.dst].bytes)
          fail(Where(i, "bytes") + ": must be 1..size of both buffers");
        if (op.kind == OpKind::kMemcpy && is_host(op.src) && is_host(op.dst))
          fail(Where(i, "src/dst") + ": host-to-host copies are not GPU work");
        if (op.kind == OpKind::kPeerCopy && (is_host(op.src) || is_host(op.dst)))
          fail(Where(i, "src/dst") + ": peer_copy needs two device buffers");
        break;
      case OpKind::kMemset:
        if (!buffer_ok(op.buffer) || is_host(op.buffer))
          fail(Where(i, "buffer") + ": memset needs a device buffer");
        if (op.bytes == 0 || op.bytes > s.buffers[op.buffer].bytes)
          fail(Where(i, "bytes") + ": must be 1..buffer size");
        break;
      case OpKind::kMalloc:
      case OpKind::kFree:
        if (!buffer_ok(op.buffer) || is_host(op.buffer))
          fail(Where(i, "buffer") + ": needs a device buffer");
        if (s.buffers[op.buffer].alias_of >= 0)
          fail(Where(i, "buffer") + ": " + s.buffers[op.buffer].name + " is an alias; allocate or free what it aliases");
        break;
      case OpKind::kMallocHost:
        if (!buffer_ok(op.buffer) || s.buffers[op.buffer].kind != MemoryKind::kPinnedHost)
          fail(Where(i, "buffer") + ": needs a pinned host buffer");
        break;
      case OpKind::kRecord:
      case OpKind::kWaitEvent:
      case OpKind::kSyncEvent:
      case OpKind::kQuery:
        if (!event_ok(op.event)) fail(Where(i, "event") + ": no such event");
        break;
      case OpKind::kWaitStream:
        if (!stream_ok(op.other_stream)) fail(Where(i, "other_stream") + ": no such stream");
        break;
      case OpKind::kHostWork:
      case OpKind::kApiCall:
        // A recorded call took what it took (a first CUDA call can take seconds or more).
        if (op.duration < 0 || (op.duration > kMaxDuration && !s.recorded))
          fail(Where(i, "duration") + ": must be 0..10 s");
        break;
      case OpKind::kSetDevice:
        if (!device_ok(op.device)) fail(Where(i, "device") + ": no such device");
        break;
      case OpKind::kCollective:
        if (!buffer_ok(op.buffer) || is_host(op.buffer))
          fail(Where(i, "buffer") + ": a collective needs a device buffer");
        if (s.buffers[op.buffer].device != s.streams[op.stream].device)
          fail(Where(i, "buffer") + ": the buffer must be on the part's stream's device");
        // A recorded NCCL kernel does not say how many bytes it moved: 0 = unknown.
        if ((op.bytes == 0 && !s.recorded) || op.bytes > s.buffers[op.buffer].bytes)
          fail(Where(i, "bytes") + ": must be 1..buffer size");
        break;
      default:
        break;
    }
  }
  ValidateThreadsAndGraphs(s);
}

void ValidateRunnable(const Scenario& s) {
  if (s.recorded)
    throw InputError("\"" + s.name + "\" is a recorded program: it can be explained and shown, not run again");
  ValidateScenario(s);
}

}  // namespace streamlab
