// Human-readable durations with units that adapt (ns / us / ms / s), and the filling of
// text templates, shared by all views.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/util/time.h"

namespace streamlab {

// "850 ns", "12.3 us", "1.25 ms", "2.10 s". ASCII "us" so terminal columns line up.
std::string FormatDuration(TimeNs ns);
// A time-axis label: `ns` in the unit its size calls for, with as many decimals as ticks `step`
// apart need to differ ("6.3995 s" for ticks 0.5 ms apart 6.4 s into a run, "1.5 ms", "500 us").
std::string FormatTick(TimeNs ns, TimeNs step);
// Same, to a fixed precision in microseconds, e.g. "1007.2 us" (for tables and checks).
std::string FormatMicros(TimeNs ns);
std::string FormatPercent(double fraction);
// "4 B", "16 KB", "64 MB" (powers of 1024, rounded down to a whole number).
std::string FormatBytes(uint64_t bytes);
// `tpl` with each {name} that `vars` has replaced by its value ({other} stays as it is).
std::string FillTemplate(const std::string& tpl, const std::map<std::string, std::string>& vars);

}  // namespace streamlab
