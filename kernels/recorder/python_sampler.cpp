// The main thread's Python stack sampled outside CUDA (python_sampler.h). The main thread
// notes when it enters and leaves calls; the sampler thread wakes every period and, when the
// main thread has been out of CUDA long enough, reads its stack with CPython's dumper (which
// takes no lock, as faulthandler's watchdog does). A fault in that read (the thread's frames
// changed under it) is caught on the sampler's own thread and the read dropped; the program goes
// on as if nothing had been read. Sampling stops once more than kMaxFaults reads, and more than
// one read in kFaultRate, have faulted.
#include "kernels/recorder/python_sampler.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "kernels/recorder/call_log.h"
#include "kernels/recorder/python_stack.h"

namespace streamlab::recorder {
namespace {

uint64_t (*g_now)() = nullptr;
uint64_t g_period_ns = 1'000'000;
uint64_t g_after_ns = 200'000;

// The main thread, as it notes its calls.
std::atomic<void*> g_main_state{nullptr};
std::atomic<uint32_t> g_main_index{0};
// Inside a call: set at every entry, cleared at every exit (a nested call's exit clears it a
// moment early; an exit CUPTI never delivered is healed by the next one).
std::atomic<bool> g_main_inside{false};
std::atomic<uint64_t> g_main_last_exit{0};
thread_local int t_is_main = -1;  // -1: not known yet

std::atomic<bool> g_running{false}, g_stop{false};
// A read that faults is dropped (the dumper holds no lock and allocates nothing, so nothing is
// left half-done but the pipe, which is emptied); many faults end sampling. Reads fault most
// while imports create and free code objects (about one in a hundred, in start-up), so a fixed
// count ended sampling before a long start-up's first step; a rate lets it reach the steps. A
// hot pure-Python loop faults more (heldout4's imu loader: 77 in 3 823 reads, 2 %), and a
// dropped read costs only the sampler's thread, so sampling stops only when more than one read
// in ten faults: the samples left would be too few to place the host's time.
constexpr uint64_t kMaxFaults = 16;
constexpr uint64_t kFaultRate = 10;
std::atomic<uint64_t> g_faults{0};
std::atomic<uint64_t> g_samples{0}, g_reads{0}, g_cost_ns{0};

bool TooManyFaults() {
  uint64_t faults = g_faults.load(std::memory_order_relaxed);
  return faults >= kMaxFaults && faults * kFaultRate > g_reads.load(std::memory_order_relaxed);
}
// Never destroyed: a forked child that exits normally must not meet a joinable thread object.
std::thread* g_sampler = nullptr;

std::mutex g_lines_mutex;
std::string g_lines;  // samples not yet written

// The sampler's own thread: where a fault in a read jumps back to.
thread_local sigjmp_buf* t_escape = nullptr;

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

bool IsMainThread() {
  if (t_is_main < 0) t_is_main = static_cast<long>(::syscall(SYS_gettid)) == static_cast<long>(::getpid()) ? 1 : 0;
  return t_is_main == 1;
}

// The stack read with the fault guard: 0 when the read faulted (and is dropped).
uint32_t GuardedRead(void* state) {
  sigjmp_buf escape;
  if (sigsetjmp(escape, 1) != 0) {
    t_escape = nullptr;
    g_faults.fetch_add(1);
    DiscardUnreadStack();
    return 0;
  }
  t_escape = &escape;
  uint32_t id = SamplePythonStack(state);
  t_escape = nullptr;
  return id;
}

void AddSample(uint64_t at, uint32_t stack) {
  char line[128];
  int n = std::snprintf(line, sizeof(line), "{\"t\":\"py_sample\",\"tid\":%u,\"at\":%" PRIu64 ",\"py\":%u}\n",
                        g_main_index.load(), at, stack);
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  g_lines.append(line, static_cast<size_t>(n));
}

// One wake-up: a sample when the main thread has been out of CUDA for g_after_ns.
void SampleOnce() {
  void* state = g_main_state.load(std::memory_order_acquire);
  uint64_t left = g_main_last_exit.load(std::memory_order_acquire);
  if (!state || left == 0 || g_main_inside.load(std::memory_order_acquire)) return;
  uint64_t at = g_now();
  if (at < left + g_after_ns) return;
  uint64_t start = MonotonicNs();
  uint32_t stack = GuardedRead(state);
  g_cost_ns.fetch_add(MonotonicNs() - start, std::memory_order_relaxed);
  g_reads.fetch_add(1, std::memory_order_relaxed);
  // A read that overlapped the thread's next call is left out: the call has its own stack.
  if (stack == 0 || g_main_inside.load(std::memory_order_acquire) || g_main_last_exit.load() != left) return;
  g_samples.fetch_add(1, std::memory_order_relaxed);
  AddSample(at, stack);
}

void SamplerLoop() {
  // Faults in a read come to this thread; the program's signals go to its own threads.
  sigset_t program_signals;
  sigfillset(&program_signals);
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigdelset(&program_signals, fault);
  pthread_sigmask(SIG_BLOCK, &program_signals, nullptr);
  while (!g_stop.load(std::memory_order_relaxed) && !TooManyFaults()) {
    timespec pause{static_cast<time_t>(g_period_ns / 1000000000u), static_cast<long>(g_period_ns % 1000000000u)};
    nanosleep(&pause, nullptr);
    SampleOnce();
  }
}

void WriteSamples(bool from_signal) {
  std::unique_lock<std::mutex> lock(g_lines_mutex, std::defer_lock);
  if (from_signal ? !lock.try_lock() : (lock.lock(), false)) return;
  if (g_lines.empty()) return;
  WriteLine(g_lines.data(), g_lines.size());
  g_lines.resize(0);  // keeps its buffer: no allocator call in a signal handler
}

uint64_t MicrosFromEnv(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace

bool StartPythonSampler(uint64_t (*now)()) {
  g_period_ns = MicrosFromEnv("STREAMLAB_RECORD_SAMPLE_US", 1000) * 1000;
  g_after_ns = MicrosFromEnv("STREAMLAB_RECORD_SAMPLE_AFTER_US", 200) * 1000;
  if (g_period_ns == 0 || !now) return false;
  g_now = now;
  AddBeforeDrain(WriteSamples);
  g_running.store(true);
  g_sampler = new std::thread(SamplerLoop);
  return true;
}

void NoteCallEntry() {
  if (!g_running.load(std::memory_order_relaxed) || !IsMainThread()) return;
  if (!g_main_state.load(std::memory_order_relaxed)) {
    // The first call the interpreter's main thread makes with Python running: its state, once.
    if (void* state = ThisThreadPythonState()) {
      g_main_index.store(LogIndex(CurrentThreadLog()));
      g_main_state.store(state, std::memory_order_release);
    }
  }
  g_main_inside.store(true, std::memory_order_release);
}

void NoteCallExit() {
  if (!g_running.load(std::memory_order_relaxed) || !IsMainThread()) return;
  g_main_last_exit.store(g_now(), std::memory_order_release);
  g_main_inside.store(false, std::memory_order_release);
}

void StopPythonSampler() {
  if (!g_running.exchange(false)) return;
  g_stop.store(true);
  if (g_sampler && g_sampler->joinable()) g_sampler->join();
  WriteSamples(false);
  char line[200];
  int n = std::snprintf(line, sizeof(line),
                        "{\"t\":\"python_samples\",\"taken\":%" PRIu64 ",\"reads\":%" PRIu64 ",\"cost_ns\":%" PRIu64
                        ",\"period_us\":%" PRIu64 ",\"after_us\":%" PRIu64 ",\"faults\":%" PRIu64 ",\"stopped\":%d}\n",
                        g_samples.load(), g_reads.load(), g_cost_ns.load(), g_period_ns / 1000, g_after_ns / 1000,
                        g_faults.load(), TooManyFaults() ? 1 : 0);
  WriteLine(line, static_cast<size_t>(n));
}

void EscapeFaultInSample(int sig, void (*rearm)(int sig)) {
  if (!t_escape) return;
  if (rearm) rearm(sig);
  siglongjmp(*t_escape, 1);
}

}  // namespace streamlab::recorder
