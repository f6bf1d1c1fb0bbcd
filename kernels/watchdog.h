// Ends a run that takes too long: after the timeout it raises the cancel flags in mapped
// pinned memory that every spin kernel polls, so blocked syncs return and the run can fail
// cleanly instead of hanging the process. Kernels that poll no flag (NCCL's) are ended by
// `on_fire` (ncclCommAbort).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace streamlab {

class Watchdog {
 public:
  Watchdog(std::chrono::nanoseconds timeout, volatile int* cancel_flags, int flag_count,
           std::function<void()> on_fire = nullptr)
      : thread_([this, timeout, cancel_flags, flag_count, on_fire = std::move(on_fire)] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, timeout, [this] { return stopped_; })) {
            fired_ = true;
            for (int i = 0; i < flag_count; ++i) cancel_flags[i] = 1;
            if (on_fire) on_fire();
          }
        }) {}
  ~Watchdog() { Stop(); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Returns true if the watchdog fired before it was stopped.
  bool Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool fired_ = false;
  std::thread thread_;
};

}  // namespace streamlab
