// A lower bound found by galloping from a position the caller already knows: the chart's
// spans and ranges are walked left to right, and the next boundary is usually a few
// entries away.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "engine/util/time.h"

namespace streamlab {

// The first position at or after `from` whose value is not below `value`, searched by
// doubling steps from `from`: a plain binary search over the rest of a lane of a million
// spans would touch memory all over it, which made a frame's cost grow with the trace.
inline size_t GallopLowerBound(const std::vector<TimeNs>& v, size_t from, TimeNs value) {
  size_t lo = from, step = 1, hi = from;
  while (hi < v.size() && v[hi] < value) {
    lo = hi + 1;
    hi = from + step;
    step *= 2;
  }
  hi = std::min(hi, v.size());
  return static_cast<size_t>(std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(std::min(lo, hi)),
                                              v.begin() + static_cast<std::ptrdiff_t>(hi), value) - v.begin());
}

}  // namespace streamlab
