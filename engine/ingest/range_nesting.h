// Ranges made to nest. A pop closes the innermost open range, so ranges handed on as push/pop
// marks must nest; torch.profiler's need not: a record_function or ProfilerStep#N annotation
// begins inside the Python frame of its __enter__ or step() and outlives that frame. Paired
// as a stack, such a pair swapped ends (a 10 ms step became 20 us, the frame 10 ms).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace streamlab {

// Where two ranges of one thread overlap in part, the shorter is cut at the other's edge: a
// frame that began first ends where the longer annotation begins; a range that outlives a
// longer one around it ends with it. Only ends change (never below their begins), so a
// range's begin, and the order of begins, stay. `Range` has `thread`, `begin` and `end`.
template <typename Range>
void NestRanges(std::vector<Range>& ranges) {
  std::vector<Range*> order;
  order.reserve(ranges.size());
  for (Range& r : ranges) order.push_back(&r);
  // Outer first: by thread, by begin, the longer first at one begin.
  std::stable_sort(order.begin(), order.end(), [](const Range* a, const Range* b) {
    if (a->thread != b->thread) return a->thread < b->thread;
    if (a->begin != b->begin) return a->begin < b->begin;
    return a->end - a->begin > b->end - b->begin;
  });
  std::vector<Range*> open;  // the ranges around the next one, outermost first
  for (size_t i = 0; i < order.size(); ++i) {
    Range* r = order[i];
    if (i > 0 && order[i - 1]->thread != r->thread) open.clear();
    while (!open.empty()) {
      Range* around = open.back();
      if (around->end <= r->begin) {
        open.pop_back();  // closed before this one began
      } else if (r->end <= around->end) {
        break;  // nested
      } else if (around->end - around->begin < r->end - r->begin) {
        around->end = r->begin;  // the shorter one, begun first: it ends where this one begins
        open.pop_back();
      } else {
        r->end = around->end;  // this one is the shorter: it ends with the one around it
        break;
      }
    }
    open.push_back(r);
  }
}

}  // namespace streamlab
