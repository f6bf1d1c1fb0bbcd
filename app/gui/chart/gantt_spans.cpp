// The chart's lanes: each lane's spans by kind - a host call (shaded when it blocked the
// host), GPU work (its queued part hatched), a record or wait marker, and density bars for what
// is under ~3 px (level of detail: as dark as the lane is busy there, its hover says what is
// inside) - then the host's sync lines, the steps on the axis and the SM rows, each thinned to
// what fits.
#include <algorithm>
#include <string>

#include "app/gui/chart/gallop.h"
#include "app/gui/chart/gantt_frame.h"
#include "app/gui/ui_text.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/findings_text.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// A record (triangle down from the top) or a wait (up from the bottom), where it was satisfied.
void DrawMarker(GanttFrame& fr, int op, float y0, float y1) {
  const OpRecord& r = fr.t.ops[op];
  if (r.end > fr.cutoff) return;
  float x = fr.g.X(r.end);
  if (fr.s.ops[op].kind == OpKind::kRecord)
    fr.dl->AddTriangleFilled(ImVec2(x - 4, y0 - 3), ImVec2(x + 4, y0 - 3), ImVec2(x, y0 + 4), kMarker);
  else
    fr.dl->AddTriangleFilled(ImVec2(x - 4, y1 + 3), ImVec2(x + 4, y1 + 3), ImVec2(x, y1 - 4), kMarker);
}

// Whether a highlighted op lies at positions [first, end) of the lane.
bool HighlightIn(const GanttFrame& fr, size_t lane, size_t first, size_t end) {
  if (lane >= fr.view.highlight_at.size()) return false;
  const std::vector<size_t>& at = fr.view.highlight_at[lane];
  auto it = std::lower_bound(at.begin(), at.end(), first);
  return it != at.end() && *it < end;
}

// Level of detail: everything that starts within the next 3 px of span `i` becomes one density
// bar, as opaque as the lane is busy under it; a host bar holding a call that held the host is
// red. Only the last op of such a run can be wide (the others end before it). Returns the index
// of the first span after the bar.
size_t DrawMergedRun(GanttFrame& fr, size_t lane, size_t i, float x0, float y0, float y1) {
  const std::vector<TimeNs>& starts = fr.index.lane_starts[lane];
  const std::vector<TimeNs>& ends = fr.index.lane_ends[lane];
  const Geometry& g = fr.g;
  size_t j = GallopLowerBound(starts, i, g.T(x0 + 3.0f));
  if (j > i + 1 && g.X(ends[j - 1]) - g.X(starts[j - 1]) >= 3.0f) --j;
  j = std::max(j, i + 1);
  float mx1 = std::max(g.X(ends[j - 1]), x0 + 1.0f);
  size_t count = j - i;
  int op = fr.index.lane_ops[lane][i];
  bool host_lane = fr.lanes[lane].kind == LaneKind::kHost;
  ImU32 col = host_lane ? kHostCall : OpColor(fr.s, op);
  if (host_lane && fr.index.lane_blocked[lane][j] > fr.index.lane_blocked[lane][i]) col = kHostBlockedSolid;
  TimeNs busy = fr.index.lane_busy[lane][j] - fr.index.lane_busy[lane][i];
  double covered = std::max(1.0, static_cast<double>(g.T(mx1) - g.T(x0)));
  float density = std::clamp(static_cast<float>(static_cast<double>(busy) / covered), 0.0f, 1.0f);
  // At least a third opaque, so that a run of tiny spans never vanishes.
  auto alpha = static_cast<ImU32>(85.0f + 170.0f * density);
  fr.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(mx1, y1), (col & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT));
  // A highlighted op inside: a strip along the bar's foot (an outline on every bar would paint
  // a dense lane yellow).
  if (HighlightIn(fr, lane, i, j)) fr.dl->AddRectFilled(ImVec2(x0, y1 - 3), ImVec2(std::max(mx1, x0 + 2), y1 + 2), kHighlight);
  if (count > 1) {
    std::string label = fr.in.ui->Fill("merged", {{"n", std::to_string(count)}});
    if (mx1 - x0 > ImGui::CalcTextSize(label.c_str()).x + 4)
      fr.dl->AddText(ImVec2(x0 + 2, y0 + 1), IM_COL32(20, 20, 20, 255), label.c_str());
  }
  // One thin span is itself (its hover gives its times), not a bar.
  if (count == 1) fr.drawn.push_back({op, host_lane ? 0 : static_cast<int>(lane), x0, y0, mx1, y1, col});
  else fr.merged.push_back({static_cast<int>(lane), i, j, x0, y0, mx1, y1});
  return j;
}

// A host call: shaded with its name when it blocked the host.
void DrawHostSpan(GanttFrame& fr, int op, float x0, float x1, float y0, float y1) {
  const Op& o = fr.s.ops[op];
  bool blocked = HostCallTime(fr.t.ops[op]) > fr.slack && o.kind != OpKind::kHostWork;
  ImU32 col = blocked ? kHostBlocked : (o.kind == OpKind::kHostWork ? kHostWorkColor : kHostCall);
  fr.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), col);
  if (fr.view.highlight.count(op)) fr.dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), kHighlight, 0, 0, 3.0f);
  if (fr.view.selected_op == op) fr.dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), kSelected, 0, 0, 2.0f);
  if (blocked && x1 - x0 > 40) {
    std::string name = DisplayName(fr.s, op);
    if (x1 - x0 > ImGui::CalcTextSize(name.c_str()).x + 6)
      fr.dl->AddText(ImVec2(std::max(x0, fr.g.ChartX0()) + 3, y0 + 1), fr.pal.text, name.c_str());
  }
  fr.drawn.push_back({op, 0, x0, y0, x1, y1, col});
}

// GPU work: its ready -> start part outlined and hatched (queued), then the span itself.
void DrawGpuSpan(GanttFrame& fr, size_t lane, int op, float x0, float x1, float y0, float y1) {
  const OpRecord& r = fr.t.ops[op];
  ImU32 col = OpColor(fr.s, op);
  TimeNs queued = QueuedTime(fr.t, r);
  if (queued > 0) {
    float qx0 = fr.g.X(r.start - queued);
    fr.dl->AddRect(ImVec2(qx0, y0 + 3), ImVec2(x0, y1 - 3), col, 0, 0, 1.0f);
    for (float hx = std::max(qx0, fr.g.ChartX0()); hx < x0; hx += 6)
      fr.dl->AddLine(ImVec2(hx, y1 - 3), ImVec2(std::min(hx + 4, x0), y0 + 3), col);
  }
  fr.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), col, 2.0f);
  if (fr.view.highlight.count(op)) fr.dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), kHighlight, 2.0f, 0, 3.0f);
  if (fr.view.selected_op == op) fr.dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), kSelected, 2.0f, 0, 2.0f);
  if (x1 - x0 > 30) {
    std::string name = DisplayName(fr.s, op);
    if (x1 - x0 > ImGui::CalcTextSize(name.c_str()).x + 6)
      fr.dl->AddText(ImVec2(std::max(x0, fr.g.ChartX0()) + 3, y0 + 2), IM_COL32(255, 255, 255, 255), name.c_str());
  }
  fr.drawn.push_back({op, static_cast<int>(lane), x0, y0, x1, y1, col});
}

}  // namespace

void DrawLaneSpans(GanttFrame& fr, size_t lane) {
  const Geometry& g = fr.g;
  float y0 = g.LaneY(static_cast<int>(lane)) + 4, y1 = g.LaneY(static_cast<int>(lane)) + g.lane_h - 4;
  const std::vector<int>& ops = fr.index.lane_ops[lane];
  const std::vector<TimeNs>& starts = fr.index.lane_starts[lane];
  const std::vector<TimeNs>& ends = fr.index.lane_ends[lane];
  bool host_lane = fr.lanes[lane].kind == LaneKind::kHost;
  // First op still visible; ends are ascending because spans on a lane do not overlap.
  size_t i = std::lower_bound(ends.begin(), ends.end(), g.begin) - ends.begin();
  float marker_x = -1e9f;  // markers closer than 4 px to the last one drawn are left out
  while (i < ops.size() && starts[i] <= g.end && starts[i] <= fr.cutoff) {
    int op = ops[i];
    float x0 = g.X(starts[i]), x1 = g.X(std::min(ends[i], fr.cutoff));
    if (!host_lane && !IsGpuWork(fr.s.ops[op])) {
      if (x0 - marker_x >= 4.0f) {
        DrawMarker(fr, op, y0, y1);
        marker_x = x0;
      }
      ++i;
    } else if (x1 - x0 < 3.0f) {
      i = DrawMergedRun(fr, lane, i, x0, y0, y1);
    } else {
      if (host_lane) DrawHostSpan(fr, op, x0, x1, y0, y1);
      else DrawGpuSpan(fr, lane, op, x0, x1, y0, y1);
      ++i;
    }
  }
}

// Host syncs: a line where the host got control back, across its own process's rows. Where more
// than one would fall in 8 px the lines are left out (a wall of red says nothing): the host
// lane's spans and density bars still show every sync, and their hover counts them.
void DrawSyncLines(GanttFrame& fr) {
  const Geometry& g = fr.g;
  const std::vector<int>& syncs = fr.index.syncs;
  auto ret = [&](int op) { return fr.t.ops[static_cast<size_t>(op)].ret; };
  auto first = std::lower_bound(syncs.begin(), syncs.end(), g.begin, [&](int op, TimeNs t) { return ret(op) < t; });
  auto last = std::upper_bound(syncs.begin(), syncs.end(), std::min(g.end, fr.cutoff), [&](TimeNs t, int op) { return t < ret(op); });
  if (static_cast<float>(last - first) * 8.0f <= g.ChartW()) {
    // Each group's rows, top to bottom.
    std::vector<std::pair<float, float>> span(fr.index.groups.size(), {1e9f, -1e9f});
    for (const ChartRow& row : g.rows) {
      if (row.kind == ChartRow::kGroupHeader) continue;  // the header's words stay clear
      auto& [top, bottom] = span[static_cast<size_t>(row.group)];
      top = std::min(top, row.y0);
      bottom = std::max(bottom, row.y1);
    }
    for (auto it = first; it != last; ++it) {
      auto group = static_cast<size_t>(fr.index.lane_group[static_cast<size_t>(HostLaneOf(fr.s.ops[static_cast<size_t>(*it)]))]);
      if (fr.view.folds[group].collapsed) continue;
      float x = g.X(ret(*it));
      fr.dl->AddLine(ImVec2(x, span[group].first), ImVec2(x, span[group].second), IM_COL32(200, 70, 70, 160), 1.5f);
    }
  }
  if (fr.view.replay_until >= 0) {  // the replay cursor
    float x = g.X(fr.view.replay_until);
    fr.dl->AddLine(ImVec2(x, g.origin.y), ImVec2(x, fr.br.y), kHighlight, 2.0f);
  }
}

namespace {

// The smallest of 1, 2, 5, 10, 20, 50, ... with `every` steps at least `room` px apart.
size_t EveryNth(float px_per_step, float room) {
  for (size_t every = 1;; every *= 10)
    for (size_t m : {1, 2, 5})
      if (px_per_step * static_cast<float>(every * m) >= room || every * m > (1u << 30)) return every * m;
}

}  // namespace

// A program's steps: a line at each one's start (warm-up ones dimmer), numbered in a band of
// their own under the axis's labels; where they crowd, every k-th line and label (k = 1, 2, 5, ...).
void DrawStepMarks(GanttFrame& fr, float axis_y) {
  const std::vector<TimeNs>& marks = fr.view.step_marks;
  if (marks.empty()) return;
  const Geometry& g = fr.g;
  float small = ImGui::GetFontSize() * 0.75f;
  float px = marks.size() > 1 ? (g.X(marks.back()) - g.X(marks.front())) / static_cast<float>(marks.size() - 1) : 1e9f;
  std::string widest = "#" + std::to_string(marks.size());
  float label_w = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, widest.c_str()).x;
  size_t every_line = EveryNth(px, 4.0f), every_label = EveryNth(px, label_w + 16.0f);
  float band_y = axis_y + g.axis_h - g.step_band - 2;
  auto first = static_cast<size_t>(std::lower_bound(marks.begin(), marks.end(), g.begin) - marks.begin());
  float label_end = -1e9f;  // steps are not evenly spaced: a label never starts on the previous one
  for (size_t k = first; k < marks.size() && marks[k] <= g.end && marks[k] <= fr.cutoff; ++k) {
    float x = g.X(marks[k]);
    bool numbered = ((k + 1) % every_label == 0 || every_label == 1) && x + 2 >= label_end + 4;
    if ((k + 1) % every_line != 0 && every_line > 1 && !numbered) continue;
    bool warm = k < fr.view.first_steady;
    ImU32 color = warm ? IM_COL32(150, 120, 200, 110) : kStepColor;
    // Only a numbered line rises into the label band, so no line runs through a neighbour's label.
    fr.dl->AddLine(ImVec2(x, numbered ? band_y : band_y + g.step_band), ImVec2(x, fr.br.y), color, 1.0f);
    std::string label = "#" + std::to_string(k + 1);
    if (numbered && x + 2 + label_w <= fr.br.x) {
      label_end = x + 2 + ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, label.c_str()).x;
      AddLabel(fr, small, ImVec2(x + 2, band_y + 1), IM_COL32(190, 170, 255, 230), label, "step");
    }
  }
}

void DrawSmRows(GanttFrame& fr) {
  if (fr.sm_count <= 0) return;
  float top = fr.sm_top + ImGui::GetFontSize() + 2;
  // One hue per kernel here, so it shows which kernel held which SM.
  static const ImU32 kKernelHues[] = {IM_COL32(70, 130, 200, 255), IM_COL32(230, 145, 50, 255),
                                      IM_COL32(90, 185, 100, 255), IM_COL32(200, 90, 160, 255),
                                      IM_COL32(60, 190, 190, 255), IM_COL32(210, 200, 70, 255)};
  int kernel_index = 0;
  for (size_t i = 0; i < fr.t.ops.size(); ++i) {
    if (fr.t.ops[i].blocks.empty()) continue;
    ImU32 col = kKernelHues[kernel_index++ % 6];
    for (const BlockRecord& blk : fr.t.ops[i].blocks) {
      if (blk.start > fr.cutoff) continue;
      float x0 = fr.g.X(blk.start), x1 = std::max(fr.g.X(std::min(blk.end, fr.cutoff)), x0 + 1);
      if (x1 < fr.g.ChartX0() || x0 > fr.br.x) continue;
      float y = top + static_cast<float>(blk.sm) * fr.g.sm_h;
      fr.dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + fr.g.sm_h - 1),
                           fr.view.highlight.count(static_cast<int>(i)) ? kHighlight : col);
    }
  }
}

}  // namespace streamlab
