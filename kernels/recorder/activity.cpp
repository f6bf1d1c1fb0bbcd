// CUPTI activity for the recorder: buffers handed to CUPTI on request and taken back on
// completion (off the program's hot path), each kernel / copy / memset / device record
// written as one JSON line with the correlation id that joins it to its API call.
#include <cupti.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {
namespace {

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
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

// A copy's line, from either of CUPTI's copy records (same field names).
template <typename Record>
void EmitMemcpy(const Record& m) {
  char extra[160];
  std::string line = Head("memcpy", m.correlationId, m.deviceId, m.streamId, m.start, m.end);
  std::snprintf(extra, sizeof(extra), ",\"bytes\":%" PRIu64 ",\"copy\":%u,\"src\":%u,\"dst\":%u,\"graph\":%u",
                m.bytes, m.copyKind, m.srcKind, m.dstKind, m.graphId);
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
                    ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"regs\":%u,\"ssmem\":%d,\"dsmem\":%d,\"graph\":%u,\"name\":\"",
                    k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, k->registersPerThread,
                    k->staticSharedMemory, k->dynamicSharedMemory, k->graphId);
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
      std::snprintf(extra, sizeof(extra), ",\"bytes\":%" PRIu64 ",\"mem\":%u,\"graph\":%u", m->bytes, m->memoryKind,
                    m->graphId);
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
      line += '"';
      Emit(line);
      break;
    }
    default: break;
  }
}

void CUPTIAPI OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) WriteRecord(record);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    char line[96];
    int n = std::snprintf(line, sizeof(line), "{\"t\":\"dropped\",\"count\":%zu}\n", dropped);
    WriteLine(line, static_cast<size_t>(n));
  }
  std::free(buffer);
}

}  // namespace

bool StartActivity() {
  if (cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted) != CUPTI_SUCCESS) return false;
  bool ok = true;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                  CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
    ok = cuptiActivityEnable(kind) == CUPTI_SUCCESS && ok;
  // Completed buffers are handed back at least this often, so a crash loses little.
  cuptiActivityFlushPeriod(200);
  return ok;
}

void FlushActivity(bool forced) { cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }

}  // namespace streamlab::recorder
