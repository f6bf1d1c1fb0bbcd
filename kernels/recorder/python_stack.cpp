// The Python stack at a CUDA call (python_stack.h): CPython's dumper writes the calling thread's
// traceback into a per-thread pipe, which is read back at once and interned. The pipe never
// blocks the dumper: both ends are non-blocking, so a stack larger than the pipe is cut short
// (the reader keeps the frames that fit; the innermost come first).
#include "kernels/recorder/python_stack.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {
namespace {

// CPython's functions, found by name in the running process (never linked: a program that is
// not Python has none of them).
using GetThreadState = void* (*)();
using DumpTraceback = void (*)(int fd, void* thread_state);
using IntQuery = int (*)();
struct Python {
  GetThreadState this_thread_state = nullptr;
  DumpTraceback dump = nullptr;
  IntQuery initialized = nullptr;
  IntQuery finalizing = nullptr;  // _Py_IsFinalizing (3.12 and before) or Py_IsFinalizing
};

const Python* FindPython() {
  static const Python* found = [] () -> const Python* {
    const char* on = std::getenv("STREAMLAB_RECORD_PYTHON");
    if (on && std::strcmp(on, "0") == 0) return nullptr;
    static Python p;
    p.this_thread_state = reinterpret_cast<GetThreadState>(dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
    p.dump = reinterpret_cast<DumpTraceback>(dlsym(RTLD_DEFAULT, "_Py_DumpTraceback"));
    p.initialized = reinterpret_cast<IntQuery>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
    p.finalizing = reinterpret_cast<IntQuery>(dlsym(RTLD_DEFAULT, "Py_IsFinalizing"));
    if (!p.finalizing) p.finalizing = reinterpret_cast<IntQuery>(dlsym(RTLD_DEFAULT, "_Py_IsFinalizing"));
    if (!p.this_thread_state || !p.dump || !p.initialized) return nullptr;
    return &p;
  }();
  return found;
}

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The budget, a bucket of time: it fills at `share` of the time that passes, up to a burst of
// 5 ms, and each stack read takes what it cost. So reading stacks takes at most that share of
// the run, a burst (a model's thousand parameter copies at its start) cannot use up what later
// steps get, and a loop of thousands of small syncs cannot slow the program more than that.
constexpr double kBurstNs = 5e6;
std::mutex g_budget_mutex;
double g_budget_ns = kBurstNs;
uint64_t g_budget_at = 0;
std::atomic<uint64_t> g_cost_ns{0};
std::atomic<uint64_t> g_taken{0}, g_over_budget{0};
double BudgetShare() {
  static const double share = [] {
    const char* v = std::getenv("STREAMLAB_RECORD_PYTHON_BUDGET");
    double percent = v ? std::strtod(v, nullptr) : 1.0;
    return percent > 0 ? percent / 100.0 : 0.0;
  }();
  return share;
}

// Whether a stack may be read at `now`; the bucket filled up to it.
bool WithinBudget(uint64_t now) {
  std::lock_guard<std::mutex> lock(g_budget_mutex);
  if (g_budget_at != 0 && now > g_budget_at)
    g_budget_ns = std::min(kBurstNs, g_budget_ns + BudgetShare() * static_cast<double>(now - g_budget_at));
  g_budget_at = std::max(g_budget_at, now);
  return g_budget_ns > 0;
}

void Spend(uint64_t cost_ns) {
  std::lock_guard<std::mutex> lock(g_budget_mutex);
  g_budget_ns -= static_cast<double>(cost_ns);
}

// One pipe per thread that reads stacks, closed when the thread ends.
struct ThreadPipe {
  int read_fd = -1, write_fd = -1;
  bool failed = false;
  std::string text;
  ~ThreadPipe() {
    if (read_fd >= 0) ::close(read_fd);
    if (write_fd >= 0) ::close(write_fd);
  }
  bool Open() {
    if (read_fd >= 0 || failed) return !failed;
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return !(failed = true);
    read_fd = fds[0], write_fd = fds[1];
    // Room for 100 frames (the dumper's limit) of long paths; the default 64 KiB where refused.
    ::fcntl(write_fd, F_SETPIPE_SZ, 1 << 20);
    return true;
  }
};
thread_local ThreadPipe t_pipe;

// Stacks seen, by their text, and the lines not yet written.
std::mutex g_stacks_mutex;
std::unordered_map<std::string, uint32_t> g_ids;
std::string g_pending;

void AppendJsonString(std::string& out, const std::string& in) {
  for (unsigned char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
}

uint32_t Intern(const std::string& text) {
  std::lock_guard<std::mutex> lock(g_stacks_mutex);
  auto [it, added] = g_ids.emplace(text, static_cast<uint32_t>(g_ids.size() + 1));
  if (added) {
    g_pending += "{\"t\":\"python_stack\",\"id\":" + std::to_string(it->second) + ",\"text\":\"";
    AppendJsonString(g_pending, text);
    g_pending += "\"}\n";
  }
  return it->second;
}

}  // namespace

bool PythonStacksAvailable() { return FindPython() != nullptr; }

// The last stack this thread read had no Python frame (autograd's worker threads have a thread
// state and never a frame, unless a Python backward runs there).
thread_local bool t_frameless = false;
bool LastStackWasFrameless() { return t_frameless; }

namespace {

bool PythonRunning(const Python* py) { return py && py->initialized() && !(py->finalizing && py->finalizing()); }

// `state`'s stack dumped through this thread's pipe and interned (0: no Python frame).
uint32_t DumpAndIntern(const Python* py, void* state) {
  py->dump(t_pipe.write_fd, state);
  std::string& text = t_pipe.text;
  text.clear();
  char block[16384];
  for (ssize_t n; (n = ::read(t_pipe.read_fd, block, sizeof(block))) > 0;) text.append(block, static_cast<size_t>(n));
  t_frameless = text.find("File \"") == std::string::npos;
  return text.empty() || t_frameless ? 0 : Intern(text);
}

}  // namespace

uint32_t CapturePythonStack() {
  const Python* py = FindPython();
  if (!PythonRunning(py)) return 0;
  void* state = py->this_thread_state();  // this thread's, whether or not it holds the GIL
  if (!state || !t_pipe.Open()) return 0;
  uint64_t start = MonotonicNs();
  if (!WithinBudget(start)) {
    g_over_budget.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  uint32_t id = DumpAndIntern(py, state);
  uint64_t cost = MonotonicNs() - start;
  Spend(cost);
  g_cost_ns.fetch_add(cost, std::memory_order_relaxed);
  g_taken.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void* ThisThreadPythonState() {
  const Python* py = FindPython();
  return PythonRunning(py) ? py->this_thread_state() : nullptr;
}

uint32_t SamplePythonStack(void* state) {
  const Python* py = FindPython();
  if (!state || !PythonRunning(py) || !t_pipe.Open()) return 0;
  return DumpAndIntern(py, state);
}

void DiscardUnreadStack() {
  if (!t_pipe.Open()) return;
  char block[16384];
  while (::read(t_pipe.read_fd, block, sizeof(block)) > 0) {
  }
}

void WritePythonStacks(bool from_signal) {
  std::string lines;
  {
    std::unique_lock<std::mutex> lock(g_stacks_mutex, std::defer_lock);
    if (from_signal) {
      if (!lock.try_lock()) return;  // this thread may be the one holding it
    } else {
      lock.lock();
    }
    if (g_pending.empty()) return;
    if (from_signal) {
      WriteLine(g_pending.data(), g_pending.size());  // no allocator calls in a signal handler
      g_pending.resize(0);
      return;
    }
    lines.swap(g_pending);
  }
  WriteLine(lines.data(), lines.size());
}

void WritePythonStackCounts() {
  if (g_taken.load() == 0 && g_over_budget.load() == 0) return;
  char line[160];
  int n = std::snprintf(line, sizeof(line),
                        "{\"t\":\"python_stacks\",\"taken\":%" PRIu64 ",\"over_budget\":%" PRIu64 ",\"cost_ns\":%" PRIu64 "}\n",
                        g_taken.load(), g_over_budget.load(), g_cost_ns.load());
  WriteLine(line, static_cast<size_t>(n));
}

}  // namespace streamlab::recorder
