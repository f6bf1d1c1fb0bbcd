// The recorder log's process lines (log_header.h), written through call_log.h's WriteLine.
#include "kernels/recorder/log_header.h"

#include <cupti.h>
#include <time.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "engine/ingest/recorded_settings.h"
#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {
namespace {

uint64_t CuptiNow() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

int Rank() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name); v && *v >= '0' && *v <= '9') return std::atoi(v);
  return -1;
}

void WriteMeta(int pid) {
  char line[512];
  int n = std::snprintf(line, sizeof(line),
                        "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":%d,\"rank\":%d,"
                        "\"start\":%" PRIu64 "}\n",
                        pid, Rank(), CuptiNow());
  WriteLine(line, static_cast<size_t>(n));
}

// CLOCK_MONOTONIC is shared by every process on the host. The pair with the tightest bracket
// of 8 tries is kept; half its width is how far off the pair can be.
void WriteClockPair() {
  uint64_t best_cupti = 0, best_host = 0, best_width = UINT64_MAX;
  for (int i = 0; i < 8; ++i) {
    uint64_t before = MonotonicNs();
    uint64_t cupti = CuptiNow();
    uint64_t after = MonotonicNs();
    if (after - before < best_width) {
      best_width = after - before;
      best_cupti = cupti;
      best_host = before + (after - before) / 2;
    }
  }
  char line[160];
  int n = std::snprintf(line, sizeof(line), "{\"t\":\"clock\",\"cupti\":%" PRIu64 ",\"host\":%" PRIu64 ",\"err\":%" PRIu64 "}\n",
                        best_cupti, best_host, (best_width + 1) / 2);
  WriteLine(line, static_cast<size_t>(n));
}

void WriteSettings() {
  char line[2048];
  int n = std::snprintf(line, sizeof(line), "{\"t\":\"env\"");
  for (const char* name : kRecordedSettings) {
    const char* v = std::getenv(name);
    if (!v) continue;
    char value[256];
    size_t length = 0;
    for (; v[length] && length + 1 < sizeof(value); ++length) {
      char c = v[length];
      value[length] = (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    }
    value[length] = 0;
    if (n > 0 && static_cast<size_t>(n) < sizeof(line))
      n += std::snprintf(line + n, sizeof(line) - n, ",\"%s\":\"%s\"", name, value);
  }
  if (n <= 0 || static_cast<size_t>(n) + 2 >= sizeof(line)) return;
  n += std::snprintf(line + n, sizeof(line) - n, "}\n");
  WriteLine(line, static_cast<size_t>(n));
}

}  // namespace streamlab::recorder
