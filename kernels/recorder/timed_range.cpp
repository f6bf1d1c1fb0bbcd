// The timed window's thread (timed_range.h). Detached: at the program's exit it may still be
// asleep, and the recorder's exit handler writes what was recorded without it.
#include "kernels/recorder/timed_range.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <system_error>
#include <thread>

namespace streamlab::recorder {

bool StartTimedRange(uint64_t delay_ms, uint64_t duration_ms, uint64_t grace_ms, TimedRangeSteps steps) {
  // Created with every signal blocked, which the new thread inherits; this thread's mask is
  // restored at once.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  bool started = true;
  try {
    std::thread([=] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      steps.start();
      if (duration_ms == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(duration_ms));
      steps.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(grace_ms));
      steps.after_stop();
    }).detach();
  } catch (const std::system_error&) {
    started = false;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return started;
}

}  // namespace streamlab::recorder
