// The one time unit of the project: nanoseconds on the trace's time base.
#pragma once

#include <cstdint>

namespace streamlab {

using TimeNs = int64_t;

constexpr TimeNs Ns(double v) { return static_cast<TimeNs>(v); }
constexpr TimeNs Us(double v) { return static_cast<TimeNs>(v * 1e3); }
constexpr TimeNs Ms(double v) { return static_cast<TimeNs>(v * 1e6); }

}  // namespace streamlab
