// The chart's legend (gantt_view.h): what grey, blue, green, pink, olive shading and red mean,
// for the colours this trace can show, one swatch and word each; a density bar's swatch runs
// faint to solid (its opacity is how busy it is); the GPU-idle swatch names its causes' tints in
// its hover.
#include <string>
#include <vector>

#include "app/gui/chart/gantt_frame.h"
#include "app/gui/ui_text.h"

namespace streamlab {
namespace {

struct LegendItem {
  ImU32 color;
  std::string key;
  bool ramp = false;  // drawn faint to solid: a density bar's opacity is how busy it is
};

// One swatch and its word, on the line if it fits, else on the next.
void Swatch(const LegendItem& item, const UiText& ui, bool first) {
  const char* word = ui(item.key);
  float size = ImGui::GetFontSize() * 0.8f;
  float w = (item.ramp ? 2 * size : size) + 4 + ImGui::CalcTextSize(word).x;
  if (!first) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
  }
  // The swatch is drawn after its word, level with where the line put the word (beside buttons
  // a line's text sits lower than its cursor).
  float sw = item.ramp ? 2 * size : size;
  float x0 = ImGui::GetCursorScreenPos().x;
  ImGui::Dummy(ImVec2(sw, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, 4);
  ImGui::TextUnformatted(word);
  float y0 = ImGui::GetItemRectMin().y + (ImGui::GetTextLineHeight() - size) * 0.5f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (item.ramp) {
    for (int k = 0; k < 4; ++k) {
      auto alpha = static_cast<ImU32>(85 + 170 * k / 3);
      float a = x0 + sw * static_cast<float>(k) / 4, b = x0 + sw * static_cast<float>(k + 1) / 4;
      dl->AddRectFilled(ImVec2(a, y0), ImVec2(b, y0 + size), (item.color & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT));
    }
  } else {
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + size, y0 + size), item.color, 2.0f);
  }
}

}  // namespace

void DrawGanttLegend(const GanttInputs& in, GanttViewState& view) {
  const GanttIndex& x = GanttIndexOf(view, *in.trace);
  const UiText& ui = *in.ui;
  auto has = [&](OpKind k) { return x.kinds_present[static_cast<size_t>(k)]; };
  std::vector<LegendItem> items;
  if (has(OpKind::kKernel) || has(OpKind::kGraphLaunch)) items.push_back({kKernelColor, "legend.kernel"});
  if (x.copies_by_direction[0]) items.push_back({kH2DColor, "legend.h2d"});
  if (x.copies_by_direction[1]) items.push_back({kD2HColor, "legend.d2h"});
  if (x.copies_by_direction[2]) items.push_back({kD2DColor, "legend.d2d"});
  if (has(OpKind::kPeerCopy)) items.push_back({kPeerCopyColor, "legend.peer"});
  if (has(OpKind::kMemset)) items.push_back({kMemsetColor, "legend.memset"});
  if (has(OpKind::kCollective)) items.push_back({kCollectiveColor, "legend.collective"});
  items.push_back({kHostCall, "legend.host_call"});
  items.push_back({kHostBlockedSolid, "legend.host_held"});
  if (has(OpKind::kHostWork)) items.push_back({kHostWorkColor, "legend.host_work"});
  items.push_back({kKernelColor, "legend.density", true});
  if (!view.step_marks.empty()) items.push_back({kStepColor, "legend.step"});
  ImGui::PushID("legend");
  ImGui::TextDisabled("%s", ui("legend"));
  for (const LegendItem& item : items) Swatch(item, ui, false);
  if (view.show_idle) {
    // The idle shading's tints are faint on the chart: the swatch shows them opaque.
    Swatch({IM_COL32(200, 200, 90, 160), "legend.idle"}, ui, false);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      for (int c = 0; c < kIdleCauseCount; ++c) {
        ImU32 tint = (kIdleColor[c] & ~IM_COL32_A_MASK) | (200u << IM_COL32_A_SHIFT);
        Swatch({tint, std::string("legend.idle.") + ToString(static_cast<IdleCause>(c))}, ui, true);
      }
      ImGui::EndTooltip();
    }
  }
  ImGui::PopID();
}

}  // namespace streamlab
