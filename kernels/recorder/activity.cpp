// CUPTI activity for the recorder: buffers handed to CUPTI on request and taken back on
// completion, each kernel / copy / memset / device record written as one JSON line with the
// correlation id that joins it to its API call. CUPTI's callbacks only move buffer pointers
// (under a lock held for that alone): the formatting is done by the log's writer thread.
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {
namespace {

constexpr size_t kBufferBytes = 8 << 20;

// Buffers CUPTI filled, waiting for the writer, and emptied ones kept for reuse (a fresh
// 8 MB buffer costs its page faults again). Before this, completed buffers were formatted in
// CUPTI's callback while the writer thread held the file: the program's own launches then
// stalled behind CUPTI, and a recorded ResNet-50 step was up to 25 % slower (bench/README.md).
std::mutex g_buffers_mutex;
std::vector<std::pair<uint8_t*, size_t>> g_completed;  // buffer, valid bytes
std::vector<uint8_t*> g_spare;
constexpr size_t kMaxSpare = 8;
// CUPTI zeroes each buffer it is given, on the program's thread, unless told the buffers come
// zeroed; with `zeroed` (diagnosis) fresh buffers are calloc'ed and reused ones cleared by the
// writer thread instead.
bool g_zeroed_buffers = false;

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    if (!g_spare.empty()) {
      *buffer = g_spare.back();
      g_spare.pop_back();
    } else {
      *buffer = nullptr;
    }
  }
  if (!*buffer)
    *buffer = static_cast<uint8_t*>(g_zeroed_buffers ? std::calloc(1, kBufferBytes) : std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void AppendEscaped(std::string& out, const char* text) {
  for (const char* c = text ? text : ""; *c; ++c) {
    unsigned char u = static_cast<unsigned char>(*c);
    if (u == '"' || u == '\\') {
      out += '\\';
      out += *c;
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\u%04x", u);
      out += esc;
    } else {
      out += *c;
    }
  }
}

void Emit(std::string& line) {
  line += "}\n";
  WriteLine(line.data(), line.size());
}

std::string Head(const char* type, uint32_t corr, uint32_t dev, uint32_t sid, uint64_t b, uint64_t e) {
  char head[256];
  std::snprintf(head, sizeof(head),
                "{\"t\":\"%s\",\"corr\":%u,\"dev\":%u,\"sid\":%u,\"b\":%" PRIu64 ",\"e\":%" PRIu64, type, corr, dev,
                sid, b, e);
  return head;
}

// Diagnosis (bench/record_overhead.sh): STREAMLAB_RECORD_LAUNCHES=records subscribes no
// kernel-launch callbacks and asks CUPTI for API activity records of the launches instead;
// =none takes launches from nowhere (kernel records only); =driver keeps only the driver's
// launch callbacks (the runtime's launch calls the driver's inside it). The first two lose what
// a launch's callback gives (its host times, thread and arguments); they measure its cost.
std::atomic<uint64_t> g_api_records{0};
constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060};
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
const char* LaunchesMode() {
  const char* mode = std::getenv("STREAMLAB_RECORD_LAUNCHES");
  return mode ? mode : "callbacks";
}

// A copy's line, from either of CUPTI's copy records (same field names).
template <typename Record>
void EmitMemcpy(const Record& m) {
  char extra[160];
  std::string line = Head("memcpy", m.correlationId, m.deviceId, m.streamId, m.start, m.end);
  std::snprintf(extra, sizeof(extra), ",\"bytes\":%" PRIu64 ",\"copy\":%u,\"src\":%u,\"dst\":%u,\"graph\":%u,\"node\":%" PRIu64,
                m.bytes, m.copyKind, m.srcKind, m.dstKind, m.graphId, static_cast<uint64_t>(m.graphNodeId));
  line += extra;
  Emit(line);
}

void WriteRecord(const CUpti_Activity* record) {
  char extra[512];
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::string line = Head("kernel", k->correlationId, k->deviceId, k->streamId, k->start, k->end);
      std::snprintf(extra, sizeof(extra),
                    ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"regs\":%u,\"ssmem\":%d,\"dsmem\":%d,\"graph\":%u,\"node\":%" PRIu64 ",\"name\":\"",
                    k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, k->registersPerThread,
                    k->staticSharedMemory, k->dynamicSharedMemory, k->graphId, static_cast<uint64_t>(k->graphNodeId));
      line += extra;
      AppendEscaped(line, k->name);
      line += '"';
      Emit(line);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      EmitMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      // Peer-to-peer copies (between two GPUs) come as their own kind, written as a memcpy
      // line; the device is the one whose stream ran it.
      EmitMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      std::string line = Head("memset", m->correlationId, m->deviceId, m->streamId, m->start, m->end);
      std::snprintf(extra, sizeof(extra), ",\"bytes\":%" PRIu64 ",\"mem\":%u,\"graph\":%u,\"node\":%" PRIu64, m->bytes,
                    m->memoryKind, m->graphId, static_cast<uint64_t>(m->graphNodeId));
      line += extra;
      Emit(line);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      std::string line = "{\"t\":\"device\",\"id\":" + std::to_string(d->id);
      std::snprintf(extra, sizeof(extra),
                    ",\"sms\":%u,\"warps_per_sm\":%u,\"blocks_per_sm\":%u,\"regs_per_sm\":%u,\"smem_per_sm\":%u,"
                    "\"cc\":[%u,%u],\"name\":\"",
                    d->numMultiprocessors, d->maxWarpsPerMultiprocessor, d->maxBlocksPerMultiprocessor,
                    d->maxRegistersPerMultiprocessor, d->maxSharedMemoryPerMultiprocessor,
                    d->computeCapabilityMajor, d->computeCapabilityMinor);
      line += extra;
      AppendEscaped(line, d->name);
      // The UUID names the physical GPU in every process (device ids are per process: a
      // rank started with CUDA_VISIBLE_DEVICES=1 calls GPU 1 "device 0").
      line += "\",\"uuid\":\"";
      for (unsigned char byte : d->uuid.bytes) {
        char hex[3];
        std::snprintf(hex, sizeof(hex), "%02x", byte);
        line += hex;
      }
      line += '"';
      Emit(line);
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      // CUPTI's own account of the time it added (STREAMLAB_RECORD_OVERHEAD=1, diagnosis).
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      std::snprintf(extra, sizeof(extra), "{\"t\":\"overhead\",\"kind\":%u,\"b\":%" PRIu64 ",\"e\":%" PRIu64 "}\n",
                    static_cast<unsigned>(o->overheadKind), o->start, o->end);
      WriteLine(extra, std::strlen(extra));
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      g_api_records.fetch_add(1, std::memory_order_relaxed);  // counted only (STREAMLAB_RECORD_LAUNCHES)
      break;
    default: break;
  }
}

size_t g_dropped = 0, g_dropped_written = 0;  // under g_buffers_mutex

void CUPTIAPI OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  g_completed.emplace_back(buffer, valid);
  g_dropped = std::max(g_dropped, dropped);
}

// The writer's side: formats every completed buffer, then keeps it for reuse or frees it.
// `from_signal`: a fatal signal handler's best effort, which gives up rather than wait.
void WriteCompletedBuffers(bool from_signal) {
  std::vector<std::pair<uint8_t*, size_t>> completed;
  size_t dropped = 0;
  {
    std::unique_lock<std::mutex> lock(g_buffers_mutex, std::defer_lock);
    if (from_signal) {
      if (!lock.try_lock()) return;  // this thread may be the one holding it
    } else {
      lock.lock();
    }
    completed.swap(g_completed);
    if (g_dropped > g_dropped_written) dropped = g_dropped_written = g_dropped;
  }
  if (dropped > 0) {
    char line[96];
    int n = std::snprintf(line, sizeof(line), "{\"t\":\"dropped\",\"count\":%zu}\n", dropped);
    WriteLine(line, static_cast<size_t>(n));
  }
  for (auto [buffer, valid] : completed) {
    CUpti_Activity* record = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) WriteRecord(record);
    if (from_signal) continue;  // no allocator calls in a signal handler: leak it, the process is ending
    if (g_zeroed_buffers) std::memset(buffer, 0, kBufferBytes);  // here, not under the lock CUPTI's requests take
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    if (g_spare.size() < kMaxSpare) {
      g_spare.push_back(buffer);
    } else {
      std::free(buffer);
    }
  }
}

// The kinds that record the program's GPU work (device records are written once, always).
constexpr CUpti_ActivityKind kWorkKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                             CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};

bool g_started = false;  // buffer callbacks registered (STREAMLAB_RECORD_ACTIVITY=0 leaves them out)

// Diagnosis only (bench/record_overhead.sh): CUPTI's activity attributes, as
// STREAMLAB_RECORD_CUPTI="device_mb=32,prealloc=6,pool_limit=500,host_pinned=1,per_thread=0,zeroed=1".
// Set before the buffer callbacks are registered and before any context exists, as CUPTI asks.
void SetDiagnosisAttributes(const char* spec) {
  struct Attribute {
    const char* key;
    CUpti_ActivityAttribute attribute;
    bool is_size;  // a size_t, else a uint8_t
    size_t scale;
  };
  static constexpr Attribute kAttributes[] = {
      {"device_mb", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, true, size_t{1} << 20},
      {"prealloc", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, true, 1},
      {"pool_limit", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, true, 1},
      {"host_pinned", CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, false, 1},
      {"per_thread", CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, false, 1},
      {"zeroed", CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, false, 1},
  };
  for (const char* item = spec; item && *item;) {
    const char* end = std::strchr(item, ',');
    std::string pair(item, end ? static_cast<size_t>(end - item) : std::strlen(item));
    item = end ? end + 1 : nullptr;
    size_t eq = pair.find('=');
    const Attribute* found = nullptr;
    for (const Attribute& a : kAttributes)
      if (eq != std::string::npos && pair.compare(0, eq, a.key) == 0 && std::strlen(a.key) == eq) found = &a;
    if (!found) {
      std::fprintf(stderr, "streamlab record: STREAMLAB_RECORD_CUPTI: unknown item '%s'\n", pair.c_str());
      continue;
    }
    size_t value = std::strtoull(pair.c_str() + eq + 1, nullptr, 10) * found->scale;
    uint8_t flag = value != 0;
    size_t bytes = found->is_size ? sizeof(value) : sizeof(flag);
    void* data = found->is_size ? static_cast<void*>(&value) : static_cast<void*>(&flag);
    CUptiResult result = cuptiActivitySetAttribute(found->attribute, &bytes, data);
    if (result != CUPTI_SUCCESS)
      std::fprintf(stderr, "streamlab record: STREAMLAB_RECORD_CUPTI: %s not set (CUPTI error %d)\n", pair.c_str(),
                   static_cast<int>(result));
    else if (found->attribute == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER)
      g_zeroed_buffers = flag != 0;
  }
}

}  // namespace

bool SetWorkActivity(bool on) {
  if (!g_started) return false;
  bool ok = true;
  for (CUpti_ActivityKind kind : kWorkKinds)
    ok = (on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind)) == CUPTI_SUCCESS && ok;
  if (std::strcmp(LaunchesMode(), "records") == 0) {
    for (CUpti_CallbackId id : kRuntimeLaunches) cuptiActivityEnableRuntimeApi(id, on ? 1 : 0);
    for (CUpti_CallbackId id : kDriverLaunches) cuptiActivityEnableDriverApi(id, on ? 1 : 0);
  }
  const char* overhead = std::getenv("STREAMLAB_RECORD_OVERHEAD");
  if (overhead && std::strcmp(overhead, "1") == 0)
    on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD) : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_OVERHEAD);
  return ok;
}

bool StartActivity(bool work, int flush_ms) {
  SetDiagnosisAttributes(std::getenv("STREAMLAB_RECORD_CUPTI"));
  if (cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted) != CUPTI_SUCCESS) return false;
  g_started = true;
  AddBeforeDrain(WriteCompletedBuffers);
  bool ok = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE) == CUPTI_SUCCESS;
  if (work) ok = SetWorkActivity(true) && ok;
  // Completed buffers are handed back at least this often, so a crash loses little.
  if (flush_ms > 0) cuptiActivityFlushPeriod(static_cast<uint32_t>(flush_ms));
  return ok;
}

void DropLaunchCallbacks(CUpti_SubscriberHandle subscriber) {
  if (std::strcmp(LaunchesMode(), "callbacks") == 0) return;
  for (CUpti_CallbackId id : kRuntimeLaunches) cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  if (std::strcmp(LaunchesMode(), "driver") == 0) return;  // the driver's launch, called inside, stays
  for (CUpti_CallbackId id : kDriverLaunches) cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

uint64_t ApiRecordCount() { return g_api_records.load(); }

void FlushActivity(bool forced) { cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }

}  // namespace streamlab::recorder
