// The thresholds the explain pipeline decides with, in one place: where a gap between calls
// stops being launching and becomes the program's own work, when a call held the host, when a
// thread was handed the work by another. Each is a measured figure or a rule of CUDA's, said here.
#pragma once

#include "engine/util/time.h"

namespace streamlab {

// A thread's gap between two CUDA calls up to this long is launching op by op (a framework's
// dispatch: Python, the op's C++ code; PyTorch's eager ops launch every 10-40 us on an H100);
// longer, it is the program's own work outside CUDA.
inline constexpr TimeNs kDispatchGapMax = Us(100);
// A launch call (kernel, async copy, record, wait) up to this long is launching; longer, it held
// the host: a module load, a full launch queue, a blocking graph launch (20-40 us at most seen
// for plain launches under the recorder on H100s and H200s).
inline constexpr TimeNs kLaunchCallMax = Us(50);
// A call that held the host and returned within this of a GPU op's end waited for that op (a
// sync's return latency was 5-30 us on H100s and H200s).
inline constexpr TimeNs kWakeLatencyMax = Us(50);
// A thread outside CUDA for at least kShortestHandOff that came back within
// kLongestHandOffDelay (and within half its gap) of another thread's call returning was most
// likely woken by it (PyTorch's autograd thread starting the backward pass, the main thread
// going on when it ends).
inline constexpr TimeNs kShortestHandOff = Us(200);
inline constexpr TimeNs kLongestHandOffDelay = Ms(2);
// Kernels whose blocks covered fewer than this share of the GPU's SMs left it mostly empty.
inline constexpr double kSmallGridShare = 0.5;
// A run without steps says its teardown (the host's time after the GPU's last op) from this
// long: shorter, it says nothing a student needs.
inline constexpr TimeNs kOneOffShown = Ms(1);
// A fix's calls left without a stack by the recorder's time budget are placed where the same
// calls with one were, once at least this many of those were read (a sample, said as such).
inline constexpr size_t kSampledPlaceCalls = 20;
// A fix worth naming costs at least this share of a step.
inline constexpr double kFixShareMin = 0.01;
// A line that holds at least this share of its place's time in one fix is a fix of its own (two
// 128 MiB pageable copies on two lines of one loop, half each); a smaller one is counted in the
// place's costliest line (a 10 KB copy beside a 38 MB one).
inline constexpr double kLineShareOfPlace = 0.25;
// A cost a program is warned about (to fix before others) takes at least this share of a steady
// step; below it the finding is a note (true, and listed, but not what to fix first).
inline constexpr double kWarningShareMin = 0.05;

}  // namespace streamlab
