// The one time unit of the project: nanoseconds on the trace's time base.
#pragma once

#include <cstdint>
#include <limits>

namespace streamlab {

using TimeNs = int64_t;

constexpr TimeNs Ns(double v) { return static_cast<TimeNs>(v); }
constexpr TimeNs Us(double v) { return static_cast<TimeNs>(v * 1e3); }
constexpr TimeNs Ms(double v) { return static_cast<TimeNs>(v * 1e6); }

// No trace spans more than a day from its time 0. Input times are held to this, so that the
// analyzer's sums of spans (a few million of them at most) stay far inside int64.
constexpr TimeNs kLongestTraceNs = TimeNs{86'400} * 1'000'000'000;
constexpr bool WithinTraceSpan(TimeNs t) { return t >= -kLongestTraceNs && t <= kLongestTraceNs; }

// a + b held at int64's limits: for a sum over every op of a trace, which a crafted file of a
// few hundred thousand day-long spans could still carry past them.
constexpr TimeNs SaturatingAdd(TimeNs a, TimeNs b) {
  TimeNs sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}

}  // namespace streamlab
