// A profile's figures that vary between machine starts, taken to their ends: the run the
// simulator predicts with every such figure at its fastest, and at its slowest. The two
// bound what the same program should take on another start of the same GPU.
#pragma once

#include <optional>

#include "engine/scenario/scenario.h"
#include "engine/sim/device_profile.h"
#include "engine/trace/trace.h"

namespace streamlab {

enum class RangeBound { kFast, kSlow };

// A copy of `profile` with each ranged figure at the end that makes a run faster (kFast:
// the lowest cost, the highest bandwidth) or slower (kSlow). No ranges: the profile itself.
DeviceProfile ProfileAtBound(const DeviceProfile& profile, RangeBound bound);

// For a run simulated with `profile` (its trace `point`): a note that says what the run's GPU
// time would be at both ends of the profile's ranges, and which figures move it most; none
// when the profile has no ranges or the ends lie within 5 % of each other.
std::optional<TraceNote> RangeNote(const DeviceProfile& profile, const Scenario& scenario, const Trace& point);

}  // namespace streamlab
