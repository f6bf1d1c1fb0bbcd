// The chart's interaction: the wheel zooms around the cursor, a drag pans, a shift-drag
// measures, a double click fits; hovering gives the tooltip, a click selects an op.
#include <cmath>
#include <string>

#include "app/gui/chart/gantt_frame.h"
#include "app/gui/chart/gantt_tooltip.h"
#include "app/gui/ui_text.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

void ZoomAndPan(GanttFrame& fr) {
  ImGuiIO& io = ImGui::GetIO();
  GanttViewState& view = fr.view;
  const Geometry& g = fr.g;
  if (fr.hovered) {
    float mx = io.MousePos.x;
    if (io.MouseWheel != 0 && mx >= g.ChartX0()) {
      TimeNs at = g.T(mx);
      double factor = std::pow(1.25, -io.MouseWheel);
      view.begin = at - static_cast<TimeNs>(static_cast<double>(at - view.begin) * factor);
      view.end = at + static_cast<TimeNs>(static_cast<double>(view.end - at) * factor);
      if (view.end - view.begin < 100) view.end = view.begin + 100;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view.fit_requested = true;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
    if (io.KeyShift) {
      if (!view.measuring) {
        view.measuring = true;
        view.measure_from = g.T(io.MouseClickedPos[0].x);
      }
      view.measure_to = g.T(io.MousePos.x);
    } else {
      auto shift = static_cast<TimeNs>(static_cast<double>(io.MouseDelta.x) * static_cast<double>(g.end - g.begin) / g.ChartW());
      view.begin -= shift;
      view.end -= shift;
    }
  }
  if (ImGui::IsItemDeactivated()) {
    // A click (not a drag) clears the measured range; a finished shift-drag keeps it shown.
    if (io.MouseDragMaxDistanceSqr[0] < 4.0f) view.measure_to = view.measure_from;
    view.measuring = false;
  }
}

void DrawMeasuredRange(GanttFrame& fr) {
  GanttViewState& view = fr.view;
  if (!view.measuring && view.measure_to == view.measure_from) return;
  float x0 = fr.g.X(std::min(view.measure_from, view.measure_to)), x1 = fr.g.X(std::max(view.measure_from, view.measure_to));
  if (x1 - x0 <= 1) return;
  fr.dl->AddRectFilled(ImVec2(x0, fr.g.origin.y), ImVec2(x1, fr.br.y), kMeasure);
  std::string label = std::string((*fr.in.ui)("measure")) + ": " + FormatDuration(std::abs(view.measure_to - view.measure_from));
  fr.dl->AddText(ImVec2(x0 + 4, fr.br.y - ImGui::GetFontSize() - 4), fr.pal.text, label.c_str());
}

}  // namespace

int HandleInteraction(GanttFrame& fr) {
  ImGuiIO& io = ImGui::GetIO();
  ZoomAndPan(fr);
  DrawMeasuredRange(fr);
  const SpanRect* under = nullptr;
  if (fr.hovered)
    for (const SpanRect& r : fr.drawn)
      if (io.MousePos.x >= r.x0 - 1 && io.MousePos.x <= r.x1 + 1 && io.MousePos.y >= r.y0 && io.MousePos.y <= r.y1) under = &r;
  int clicked = under && ImGui::IsItemClicked(ImGuiMouseButton_Left) ? under->op : -1;
  fr.view.tooltip.clear();
  if (!fr.hovered) return clicked;
  GanttHover hover;
  hover.span = under;
  if (fr.hovered && !under)
    for (const MergedRun& m : fr.merged)
      if (io.MousePos.x >= m.x0 - 1 && io.MousePos.x <= m.x1 + 1 && io.MousePos.y >= m.y0 && io.MousePos.y <= m.y1) hover.merged = &m;
  hover.idle = under || hover.merged ? nullptr : fr.idle_under;
  hover.at = fr.g.T(io.MousePos.x);
  hover.range = under ? nullptr : fr.range_under;
  // Over a host lane's own row or its range rows (where no range is, or one too small to
  // name): where the host was then.
  int lane = fr.range_lane >= 0 ? fr.range_lane : fr.g.LaneAt(io.MousePos.y);
  if (lane >= 0 && fr.lanes[lane].kind == LaneKind::kHost && io.MousePos.x >= fr.g.ChartX0())
    hover.host_thread = fr.lanes[lane].thread;
  fr.view.tooltip = DrawGanttTooltip(fr.in, fr.index, hover);
  return clicked;
}

}  // namespace streamlab
