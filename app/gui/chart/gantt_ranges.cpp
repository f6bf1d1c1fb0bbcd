// The host's ranges as rows under each host lane (gantt_ranges.h). Rows are laid out once per
// trace; a frame bisects each row to what is in view and merges what is under 3 px, so its
// cost follows the pixels, not the number of ranges.
#include "app/gui/chart/gantt_ranges.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "app/gui/chart/gallop.h"

namespace streamlab {

std::vector<RangeRows> LayOutRanges(const Trace& trace, const std::vector<Lane>& lanes) {
  std::vector<RangeRows> out(lanes.size());
  std::map<int, std::vector<const HostRange*>> by_thread;
  for (const HostRange& r : trace.ranges)
    if (r.end >= r.begin) by_thread[r.thread].push_back(&r);
  for (size_t l = 0; l < lanes.size(); ++l) {
    if (lanes[l].kind != LaneKind::kHost) continue;
    auto it = by_thread.find(lanes[l].thread);
    if (it == by_thread.end()) continue;
    std::vector<const HostRange*>& list = it->second;
    // Outer before inner: by begin, the longer first at one begin.
    std::stable_sort(list.begin(), list.end(), [](const HostRange* a, const HostRange* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;
    });
    RangeRows& rows = out[l];
    // The ends of the ranges still open around the next one, outermost first. A range is
    // put one row below the innermost still open; a row's earlier ranges were all closed
    // (popped) before it, so a row never holds two that overlap, even where a file's ranges
    // are not properly nested.
    std::vector<TimeNs> open;
    for (const HostRange* r : list) {
      while (!open.empty() && open.back() <= r->begin) open.pop_back();
      size_t depth = open.size();
      open.push_back(r->end);
      if (depth >= kMaxRangeRows) {
        ++rows.deeper;
        continue;
      }
      if (rows.rows.size() <= depth) {
        rows.rows.resize(depth + 1);
        rows.begins.resize(depth + 1);
        rows.ends.resize(depth + 1);
      }
      rows.rows[depth].push_back(r);
      rows.begins[depth].push_back(r->begin);
      rows.ends[depth].push_back(rows.ends[depth].empty() ? r->end : std::max(rows.ends[depth].back(), r->end));
    }
  }
  return out;
}

ImU32 RangeColor(const std::string& name) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  float hue = static_cast<float>(h % 360) / 360.0f;
  return ImColor::HSV(hue, 0.30f, 0.80f);
}

const HostRange* DrawRangeRows(ImDrawList* dl, const RangeRows& rr, const RangeRowsView& v) {
  constexpr ImU32 kMergedRanges = IM_COL32(120, 120, 120, 255);
  constexpr ImU32 kRangeText = IM_COL32(20, 20, 20, 255);
  const double per_px = static_cast<double>(v.end - v.begin) / static_cast<double>(v.chart_w);
  auto x_of = [&](TimeNs t) { return v.chart_x0 + static_cast<float>(static_cast<double>(t - v.begin) / per_px); };
  auto t_of = [&](float x) { return v.begin + static_cast<TimeNs>(static_cast<double>(x - v.chart_x0) * per_px); };
  const HostRange* under = nullptr;
  for (size_t d = 0; d < rr.rows.size(); ++d) {
    const float y0 = v.top + static_cast<float>(d) * v.row_h, y1 = y0 + v.row_h - 1;
    const bool mouse_in_row = v.hovered && v.mouse.y >= y0 && v.mouse.y < y1;
    const std::vector<TimeNs>& begins = rr.begins[d];
    const std::vector<TimeNs>& ends = rr.ends[d];
    size_t i = static_cast<size_t>(std::lower_bound(ends.begin(), ends.end(), v.begin) - ends.begin());
    while (i < begins.size() && begins[i] <= v.end && begins[i] <= v.cutoff) {
      const HostRange& r = *rr.rows[d][i];
      float x0 = x_of(r.begin), x1 = x_of(std::min(r.end, v.cutoff));
      if (x1 - x0 < 3.0f) {
        // Everything beginning in the next 3 px becomes one grey block (as spans do).
        size_t j = std::max(GallopLowerBound(begins, i, t_of(x0 + 3.0f)), i + 1);
        if (j > i + 1 && x_of(rr.rows[d][j - 1]->end) - x_of(begins[j - 1]) >= 3.0f) --j;
        float mx1 = std::max(x_of(std::min(ends[j - 1], v.cutoff)), x0 + 1.0f);
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(mx1, y1), j == i + 1 ? RangeColor(r.name) : kMergedRanges);
        if (j == i + 1 && mouse_in_row && v.mouse.x >= x0 - 1 && v.mouse.x <= mx1 + 1) under = &r;
        i = j;
        continue;
      }
      ++i;
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), RangeColor(r.name));
      if (x1 - x0 > 16.0f) {
        // The name, cut at the range's right edge (and kept in view at the left).
        ImVec4 clip(x0, y0, x1 - 2, y1);
        dl->AddText(ImGui::GetFont(), v.font_size, ImVec2(std::max(x0, v.chart_x0) + 2, y0), kRangeText, r.name.c_str(),
                    nullptr, 0.0f, &clip);
      }
      if (mouse_in_row && v.mouse.x >= x0 && v.mouse.x <= x1) under = &r;
    }
  }
  return under;
}

}  // namespace streamlab
