// Profiles at the ends of their ranges (profile_ranges.h).
#include "engine/sim/profile_ranges.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"

namespace streamlab {

DeviceProfile ProfileAtBound(const DeviceProfile& profile, RangeBound bound) {
  DeviceProfile p = profile;
  for (const FigureRange& r : profile.ranges) {
    // A bandwidth is faster when higher; every other ranged figure is a cost in ns.
    bool higher_is_faster = std::string_view(r.field).ends_with("_gbps");
    bool fast = bound == RangeBound::kFast;
    SetProfileFigure(p, r.field, fast == higher_is_faster ? r.high : r.low);
  }
  p.ranges.clear();
  return p;
}

std::optional<TraceNote> RangeNote(const DeviceProfile& profile, const Scenario& scenario, const Trace& point) {
  if (profile.ranges.empty()) return std::nullopt;
  auto gpu_time = [&](const DeviceProfile& p) { return GpuMakespan(SimExecutor(p).Run(scenario, RunOptions{})); };
  TimeNs fast = gpu_time(ProfileAtBound(profile, RangeBound::kFast));
  TimeNs slow = gpu_time(ProfileAtBound(profile, RangeBound::kSlow));
  if (fast > slow) std::swap(fast, slow);
  if (slow <= 0 || static_cast<double>(slow - fast) < 0.05 * static_cast<double>(slow)) return std::nullopt;
  // Which figures move it: each alone from its fast end to its slow one.
  std::vector<std::pair<TimeNs, std::string>> moves;
  for (const FigureRange& r : profile.ranges) {
    DeviceProfile one = profile;
    one.ranges = {r};
    TimeNs spread = std::abs(gpu_time(ProfileAtBound(one, RangeBound::kSlow)) - gpu_time(ProfileAtBound(one, RangeBound::kFast)));
    if (static_cast<double>(spread) >= 0.02 * static_cast<double>(slow)) moves.emplace_back(spread, r.field);
  }
  std::sort(moves.rbegin(), moves.rend());
  std::string figures;
  for (size_t i = 0; i < moves.size() && i < 3; ++i) figures += (i ? ", " : "") + moves[i].second;
  if (figures.empty()) figures = "several figures together";
  return Note("profile_range", {{"profile", profile.name},
                                {"point", FormatDuration(GpuMakespan(point))},
                                {"fast", FormatDuration(fast)},
                                {"slow", FormatDuration(slow)},
                                {"from", profile.ranges_from},
                                {"figures", figures}});
}

}  // namespace streamlab
