// The median of a set of times, as the step finder, the replay and its edits take it over
// repeated measurements (steps, calls, gaps).
#pragma once

#include <algorithm>
#include <vector>

#include "engine/util/time.h"

namespace streamlab {

// Of an even count, the upper middle one; `if_empty` when there is none.
inline TimeNs MedianTime(std::vector<TimeNs> values, TimeNs if_empty = 0) {
  if (values.empty()) return if_empty;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace streamlab
