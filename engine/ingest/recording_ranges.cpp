// A recording's ranges (recording_ranges.h): marks kept per thread, walked in time order.
#include "engine/ingest/recording_ranges.h"

#include <algorithm>

namespace streamlab {

void RecordingRanges::Add(int thread, uint64_t at, bool push, const std::string* text, bool frame) {
  marks_[thread].push_back({at, push, text, frame});
}

void RecordingRanges::SortByTime() {
  auto by_time = [](const Mark& a, const Mark& b) { return a.at < b.at; };
  for (auto& [thread, marks] : marks_)
    if (!std::is_sorted(marks.begin(), marks.end(), by_time)) std::stable_sort(marks.begin(), marks.end(), by_time);
}

std::string RecordingRanges::LabelAt(int thread, uint64_t at) {
  auto it = marks_.find(thread);
  if (it == marks_.end()) return "";
  Cursor& cursor = cursors_[thread];
  const std::vector<Mark>& marks = it->second;
  for (; cursor.next < marks.size() && marks[cursor.next].at <= at; ++cursor.next) {
    if (marks[cursor.next].push) cursor.open.push_back(&marks[cursor.next]);
    else if (!cursor.open.empty()) cursor.open.pop_back();
  }
  auto inner = std::find_if(cursor.open.rbegin(), cursor.open.rend(), [](const Mark* m) { return !m->frame; });
  return inner == cursor.open.rend() || (*inner)->text->empty() ? "" : "in " + *(*inner)->text;
}

void RecordingRanges::AppendRanges(uint64_t cut_at, uint64_t window_begin, const std::function<int(int)>& trace_thread,
                                   const std::function<TimeNs(uint64_t)>& trace_time,
                                   std::vector<HostRange>& out) const {
  size_t pushes = 0;  // the ranges' exact count, reserved: a long trace has hundreds of thousands
  for (const auto& [thread, marks] : marks_)
    for (const Mark& m : marks) pushes += m.push && m.at < cut_at ? 1 : 0;
  const size_t first = out.size();
  out.reserve(out.size() + pushes);
  std::vector<char> before_window(pushes, 0);  // by index from `first`
  for (const auto& [thread, marks] : marks_) {
    std::vector<size_t> open;  // in `out`
    auto close = [&](uint64_t at) {
      out[open.back()].end = std::max(trace_time(at), out[open.back()].begin);
      if (at < window_begin) before_window[open.back() - first] = 1;
    };
    for (const Mark& m : marks) {
      if (m.at >= cut_at) break;
      if (m.push) {
        open.push_back(out.size());
        TimeNs begin = trace_time(m.at);
        out.push_back({trace_thread(thread), *m.text, begin, begin});
      } else if (!open.empty()) {
        close(m.at);
        open.pop_back();
      }
    }
    uint64_t last = marks.back().at;
    if (cut_at != UINT64_MAX) last = std::min(last, cut_at);
    for (; !open.empty(); open.pop_back()) close(last);
  }
  size_t kept = first;
  for (size_t i = first; i < out.size(); ++i) {
    if (before_window[i - first]) continue;
    if (kept != i) out[kept] = std::move(out[i]);  // not onto itself: a moved-from name is empty
    ++kept;
  }
  out.resize(kept);
}

}  // namespace streamlab
