// The recorder's call log: per-thread chunks written without locks by the calling thread,
// drained to JSON lines by a writer thread (and at exit, and on fatal signals).
#include "kernels/recorder/call_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace streamlab::recorder {
namespace {

constexpr uint32_t kChunkRecords = 4096;

struct Chunk {
  CallRecord records[kChunkRecords];
  std::atomic<uint32_t> committed{0};
  std::atomic<Chunk*> next{nullptr};
};

}  // namespace

struct ThreadLog {
  uint32_t index = 0;
  long os_tid = 0;
  Chunk* tail = nullptr;      // owner's chunk
  Chunk* head = nullptr;      // writer's chunk
  uint32_t read_pos = 0;      // writer's position in head
  bool announced = false;
  ThreadLog* next_log = nullptr;
};

namespace {

std::atomic<ThreadLog*> g_logs{nullptr};
std::atomic<uint32_t> g_thread_count{0};
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_stop{false};
std::mutex g_write_mutex;  // the file and its buffer; never taken inside an API callback
int g_fd = -1;
char g_buffer[1 << 20];
size_t g_used = 0;
std::thread g_writer;
std::atomic<void (*)(bool)> g_before_drain[4] = {};

void BeforeDrain(bool from_signal) {
  for (auto& slot : g_before_drain)
    if (auto work = slot.load()) work(from_signal);
}

void FlushBufferLocked() {
  size_t done = 0;
  while (done < g_used && g_fd >= 0) {
    ssize_t n = ::write(g_fd, g_buffer + done, g_used - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  g_used = 0;
}

void PutLocked(const char* data, size_t length) {
  if (g_used + length > sizeof(g_buffer)) FlushBufferLocked();
  if (length > sizeof(g_buffer)) return;  // a line cannot be this long
  std::memcpy(g_buffer + g_used, data, length);
  g_used += length;
}

// JSON string body: quotes, backslashes and control characters escaped.
size_t Escape(const char* in, size_t in_max, char* out, size_t out_max) {
  size_t o = 0;
  for (size_t i = 0; i < in_max && in[i] && o + 7 < out_max; ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = static_cast<char>(c);
    } else if (c < 0x20) {
      o += static_cast<size_t>(std::snprintf(out + o, out_max - o, "\\u%04x", c));
    } else {
      out[o++] = static_cast<char>(c);
    }
  }
  out[o] = 0;
  return o;
}

void FormatCallLocked(const ThreadLog& log, const CallRecord& r) {
  char line[768];
  int n = std::snprintf(line, sizeof(line),
                        "{\"t\":\"call\",\"tid\":%u,\"fn\":\"%s\",\"role\":\"%s\",\"dom\":%u,\"b\":%" PRIu64
                        ",\"e\":%" PRIu64 ",\"corr\":%" PRIu64,
                        log.index, r.function ? r.function : "?", CallRoleName(r.role).data(), r.domain, r.begin, r.end,
                        r.correlation);
  auto add = [&](const char* fmt, auto value) {
    if (n > 0 && static_cast<size_t>(n) < sizeof(line)) n += std::snprintf(line + n, sizeof(line) - n, fmt, value);
  };
  if (r.stream || r.role == Role::kLaunch || r.role == Role::kRecord || r.role == Role::kWaitEvent ||
      r.role == Role::kSyncStream || r.role == Role::kMemcpyAsync || r.role == Role::kMemsetAsync ||
      r.role == Role::kGraphLaunch || r.role == Role::kQueryStream || r.role == Role::kPeerCopy ||
      r.role == Role::kBeginCapture || r.role == Role::kEndCapture || r.role == Role::kMallocAsync ||
      r.role == Role::kFreeAsync)
    add(",\"stream\":%" PRIu64, r.stream);
  if (r.stream_id != UINT32_MAX) add(",\"sid\":%u", r.stream_id);
  if (r.event) add(",\"event\":%" PRIu64, r.event);
  if (r.out) add(",\"out\":%" PRIu64, r.out);
  if (r.size) add(",\"size\":%" PRIu64, r.size);
  if (r.parent) add(",\"parent\":%" PRIu64, r.parent);
  if (r.exec) add(",\"exec\":%" PRIu64, r.exec);
  if (r.flags) add(",\"flags\":%d", r.flags);
  if (r.priority) add(",\"prio\":%d", r.priority);
  if (r.value) add(",\"value\":%d", r.value);
  if (r.status) add(",\"status\":%d", r.status);
  if (r.per_thread) add(",\"ptsz\":%d", 1);
  if (r.device >= 0) add(",\"dev\":%d", static_cast<int>(r.device));
  if (r.python_stack) add(",\"py\":%u", r.python_stack);
  if (r.own_ns) add(",\"own\":%u", r.own_ns);
  if (r.own_in_ns) add(",\"own_in\":%u", r.own_in_ns);
  // A kernel's addresses as a list; a copy's or memset's ends by name (a kernel node: value 0).
  bool kernel = r.role == Role::kLaunch || r.role == Role::kLaunchArgs || (r.role == Role::kGraphNodeParams && r.value == 0);
  if (kernel && r.nargs) {
    add(",\"ptrs\":[%" PRIu64, r.args[0]);
    for (int i = 1; i < r.nargs && i < 8; ++i) add(",%" PRIu64, r.args[i]);
    add("],\"ptr_at\":[%u", static_cast<unsigned>(r.arg_offsets[0]));
    for (int i = 1; i < r.nargs && i < 8; ++i) add(",%u", static_cast<unsigned>(r.arg_offsets[i]));
    add("]%s", r.more_args ? ",\"ptrs_more\":1" : "");
  } else if (r.nargs) {
    add(",\"dst\":%" PRIu64, r.args[0]);
    if (r.nargs > 1) add(",\"src\":%" PRIu64, r.args[1]);
  }
  if (r.role == Role::kNvtxPush && r.text[0]) {
    char escaped[sizeof(r.text) * 6 + 8];
    Escape(r.text, sizeof(r.text), escaped, sizeof(escaped));
    add(",\"text\":\"%s\"", escaped);
  }
  if (n <= 0 || static_cast<size_t>(n) + 2 >= sizeof(line)) return;
  line[n++] = '}';
  line[n++] = '\n';
  PutLocked(line, static_cast<size_t>(n));
}

void DrainLocked() {
  for (ThreadLog* log = g_logs.load(std::memory_order_acquire); log; log = log->next_log) {
    if (!log->announced) {
      char line[96];
      int n = std::snprintf(line, sizeof(line), "{\"t\":\"thread\",\"tid\":%u,\"os_tid\":%ld}\n", log->index,
                            log->os_tid);
      PutLocked(line, static_cast<size_t>(n));
      log->announced = true;
    }
    while (log->head) {
      Chunk* c = log->head;
      uint32_t committed = c->committed.load(std::memory_order_acquire);
      for (; log->read_pos < committed; ++log->read_pos) FormatCallLocked(*log, c->records[log->read_pos]);
      Chunk* next = c->next.load(std::memory_order_acquire);
      if (committed < kChunkRecords || !next) break;
      // The owner moved on to `next` and never touches a full chunk again.
      log->head = next;
      log->read_pos = 0;
      delete c;
    }
  }
  FlushBufferLocked();
}

void WriterLoop(int period_ms, bool idle_priority) {
  // Diagnosis (bench/record_overhead.sh): the writer at the lowest scheduling class.
  if (idle_priority) {
    sched_param param{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  }
  while (!g_stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    DrainCalls();
  }
}

}  // namespace

ThreadLog* CurrentThreadLog() {
  thread_local ThreadLog* log = nullptr;
  if (log) return log;
  log = new ThreadLog;
  log->index = g_thread_count.fetch_add(1);
  log->os_tid = static_cast<long>(::syscall(SYS_gettid));
  log->tail = log->head = new Chunk;
  ThreadLog* first = g_logs.load();
  do {
    log->next_log = first;
  } while (!g_logs.compare_exchange_weak(first, log));
  return log;
}

uint32_t LogIndex(const ThreadLog* log) { return log->index; }

void Append(ThreadLog* log, const CallRecord& record) {
  if (!g_enabled.load(std::memory_order_relaxed)) return;
  Chunk* c = log->tail;
  uint32_t pos = c->committed.load(std::memory_order_relaxed);
  if (pos == kChunkRecords) {
    Chunk* fresh = new Chunk;  // once per 4096 calls
    c->next.store(fresh, std::memory_order_release);
    log->tail = c = fresh;
    pos = 0;
  }
  c->records[pos] = record;
  c->committed.store(pos + 1, std::memory_order_release);
}

bool StartLog(const char* path, int period_ms) {
  g_fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g_fd < 0) return false;
  g_enabled.store(true);
  // period_ms 0: no writer thread, everything is written at exit (or on a fatal signal).
  const char* idle = std::getenv("STREAMLAB_RECORD_WRITER_IDLE");
  if (period_ms > 0) g_writer = std::thread(WriterLoop, period_ms, idle && std::strcmp(idle, "1") == 0);
  return true;
}

void AddBeforeDrain(void (*work)(bool from_signal)) {
  for (auto& slot : g_before_drain) {
    void (*empty)(bool) = nullptr;
    if (slot.compare_exchange_strong(empty, work) || empty == work) return;
  }
}

void DrainCalls(bool from_signal) {
  if (g_fd < 0) return;
  BeforeDrain(from_signal);
  std::unique_lock<std::mutex> lock(g_write_mutex, std::defer_lock);
  if (from_signal) {
    if (!lock.try_lock()) return;  // this thread may be the one holding it
  } else {
    lock.lock();
  }
  DrainLocked();
}

void WriteLine(const char* line, size_t length) {
  if (g_fd < 0) return;
  std::lock_guard<std::mutex> lock(g_write_mutex);
  PutLocked(line, length);
}

void StopLog() {
  if (g_fd < 0) return;
  g_stop.store(true);
  if (g_writer.joinable()) g_writer.join();
  BeforeDrain(false);
  std::lock_guard<std::mutex> lock(g_write_mutex);
  DrainLocked();
  g_enabled.store(false);
  ::close(g_fd);
  g_fd = -1;
}

void DisableLog() {
  g_enabled.store(false);
  // The writer thread does not exist in a forked child; drop it without joining.
  if (g_writer.joinable()) g_writer.detach();
  g_fd = -1;
}

}  // namespace streamlab::recorder
