// Human-readable durations with units that adapt (ns / us / ms / s), shared by all views.
#pragma once

#include <string>

#include "engine/util/time.h"

namespace streamlab {

// "850 ns", "12.3 us", "1.25 ms", "2.10 s". ASCII "us" so terminal columns line up.
std::string FormatDuration(TimeNs ns);
// Same, to a fixed precision in microseconds, e.g. "1007.2 us" (for tables and checks).
std::string FormatMicros(TimeNs ns);
std::string FormatPercent(double fraction);

}  // namespace streamlab
