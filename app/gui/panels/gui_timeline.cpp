// The timeline tab: the chart's controls and legend, the chart (scrolling inside its own region
// when lanes are many), and the findings under it; and where --hover-chart's place was drawn,
// for a screenshot of a tooltip at a place in the trace.
#include <algorithm>

#include <imgui.h>

#include "app/gui/gui_app.h"

namespace streamlab {

void GuiApp::DrawTimeline() {
  if (predict_first_ && !trace_ && mode_ == Mode::kLab) return DrawPrediction();
  if (!trace_) return;
  view_.axis_origin = -1;  // the compare view may have set its own
  if (verdict_ || answer_verdict_ || !answer_error_.empty()) DrawPredictionVerdict();
  if (ImGui::Button(ui_("fit"))) view_.fit_requested = true;
  ImGui::SameLine();
  ImGui::Checkbox(ui_("show_sms"), &view_.show_sms);
  ImGui::SameLine();
  ImGui::Checkbox(ui_("show_arrows"), &view_.show_arrows);
  ImGui::SameLine();
  ImGui::Checkbox(ui_("show_idle"), &view_.show_idle);
  if (!trace_->ranges.empty()) {
    ImGui::SameLine();
    ImGui::Checkbox(ui_("show_ranges"), &view_.show_ranges);
  }
  ImGui::SameLine();
  DrawReplayControls();
  if (!presenting_) {
    ImGui::SameLine();
    DrawExport();
  }
  {
    GanttInputs legend{&*trace_, &analysis_, &texts_, &ui_};
    ImGui::SameLine(0, 2 * ImGui::GetFontSize());
    DrawGanttLegend(legend, view_);
  }
  // A lab's findings take a third under the chart; a program's open from one line there.
  const bool program = program_verdict_.has_value();
  const float avail_y = ImGui::GetContentRegionAvail().y;
  float strip_h = program ? ImGui::GetFrameHeightWithSpacing() : 0.0f;
  float findings_h = !program ? std::max(140.0f, avail_y * 0.32f) : verdict_panel_.findings_open ? std::max(160.0f, avail_y * 0.35f) : 0.0f;
  ImVec2 visible(ImGui::GetContentRegionAvail().x, std::max(120.0f, avail_y - findings_h - strip_h));
  // Many lanes scroll vertically inside the chart's own region; the wheel zooms.
  ImVec2 chart(visible.x - ImGui::GetStyle().ScrollbarSize, std::max(visible.y, GanttContentHeight(*trace_, view_, 1.0f)));
  ImGui::BeginChild("chart", visible, false, ImGuiWindowFlags_NoScrollWithMouse);
  auto [begin, end] = GanttExtent(view_, *trace_);
  view_.replay_until = replay_pos_ < 1.0 ? begin + static_cast<TimeNs>(replay_pos_ * static_cast<double>(end - begin)) : -1;
  bool hover = !options_.headless || options_.hover_x >= 0 || options_.hover_ms >= 0;  // (a screenshot of a tooltip)
  GanttInputs in{&*trace_, &analysis_, &texts_, &ui_, presenting_ ? 1.4f : 1.0f, hover, presenting_};
  int clicked = DrawGantt(in, view_, chart, &layout_);
  ImGui::EndChild();
  if (clicked >= 0) {
    view_.selected_op = clicked;
    view_.highlight = {clicked};
    selected_finding_ = -1;
  }
  if (program) DrawProgramFindings(findings_h);
  else DrawFindings(findings_h);
}

bool GuiApp::HoverPoint(ImVec2* at) const {
  const ChartLayout& c = layout_;
  if (options_.hover_ms < 0 || !trace_ || c.end <= c.begin) return false;
  for (const RowRect& r : c.rows) {
    if (r.kind != "lane" || r.lane != options_.hover_lane) continue;
    TimeNs t = view_.index.begin + static_cast<TimeNs>(options_.hover_ms * 1e6);
    at->x = c.chart_x0 + static_cast<float>(static_cast<double>(t - c.begin) * c.chart_w / static_cast<double>(c.end - c.begin));
    at->y = options_.hover_row < 0 ? (r.y0 + r.y1) * 0.5f : r.y1 + (static_cast<float>(options_.hover_row) + 0.5f) * c.range_h;
    return true;
  }
  return false;
}

}  // namespace streamlab
