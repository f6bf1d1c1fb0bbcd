// Aligning a GPU's %globaltimer with the host's steady clock by ping-pong through mapped
// pinned memory: the host stamps t0, flips a flag, the kernel stamps %globaltimer and
// answers, the host stamps t1. The tightest round gives the offset, and half its round
// trip bounds the error.
#pragma once

#include <cstdint>
#include <functional>

namespace streamlab {

struct ClockOffset {
  int64_t offset = 0;  // globaltimer = host + offset (ns)
  int64_t error = 0;   // half the tightest round trip (ns)
};

// Runs on `device`; host_now() returns host time in ns. Throws RunError on failure.
ClockOffset CalibrateGlobalTimer(int device, const std::function<int64_t()>& host_now);

}  // namespace streamlab
