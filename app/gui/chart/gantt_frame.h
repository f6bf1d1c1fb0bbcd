// What one frame of the Gantt chart shares between the files that draw it (internal to
// app/gui/gantt_*.cpp): the palette, the geometry (time <-> x, lane rows), and the frame's
// state - the draw list, what was drawn, what the mouse is over.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/chart/gantt_view.h"

namespace streamlab {

// The chart's neutral colours; presentation mode uses the high-contrast set (projectors
// wash out dark greys).
struct Palette {
  ImU32 background, stripe, grid, text, dim_text;
};
inline constexpr Palette kNormalPalette{IM_COL32(24, 26, 30, 255), IM_COL32(32, 35, 40, 255), IM_COL32(70, 74, 82, 255),
                                 IM_COL32(225, 228, 232, 255), IM_COL32(150, 155, 165, 255)};
inline constexpr Palette kHighContrastPalette{IM_COL32(0, 0, 0, 255), IM_COL32(22, 22, 22, 255), IM_COL32(120, 120, 120, 255),
                                       IM_COL32(255, 255, 255, 255), IM_COL32(225, 225, 225, 255)};
// Span colours by kind (OpColor), and the GPU-idle shading by cause (IdleCause's order).
inline constexpr ImU32 kKernelColor = IM_COL32(70, 130, 200, 255);
inline constexpr ImU32 kMemsetColor = IM_COL32(155, 105, 210, 255);
inline constexpr ImU32 kPeerCopyColor = IM_COL32(40, 180, 180, 255);
inline constexpr ImU32 kCollectiveColor = IM_COL32(215, 80, 120, 255);
inline constexpr ImU32 kH2DColor = IM_COL32(70, 175, 95, 255);
inline constexpr ImU32 kD2HColor = IM_COL32(230, 145, 50, 255);
inline constexpr ImU32 kD2DColor = IM_COL32(200, 180, 60, 255);
inline constexpr ImU32 kHostWorkColor = IM_COL32(110, 110, 160, 200);
inline constexpr ImU32 kStepColor = IM_COL32(170, 140, 255, 170);
inline constexpr ImU32 kIdleColor[kIdleCauseCount] = {
    IM_COL32(230, 90, 90, 45),   IM_COL32(230, 150, 60, 45),  IM_COL32(200, 200, 90, 40),
    IM_COL32(120, 200, 120, 45), IM_COL32(90, 170, 230, 45),  IM_COL32(160, 120, 230, 45),
    IM_COL32(200, 120, 200, 45), IM_COL32(150, 150, 150, 30), IM_COL32(100, 100, 100, 25),
    IM_COL32(120, 120, 120, 40)};
inline constexpr ImU32 kHostCall = IM_COL32(120, 125, 135, 255);
inline constexpr ImU32 kHostBlocked = IM_COL32(200, 70, 70, 150);
inline constexpr ImU32 kHostBlockedSolid = IM_COL32(200, 70, 70, 255);  // a density bar's (its alpha is the density)
inline constexpr ImU32 kMarker = IM_COL32(235, 235, 235, 255);
inline constexpr ImU32 kHighlight = IM_COL32(255, 215, 0, 255);
inline constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 kArrow = IM_COL32(255, 200, 60, 230);
inline constexpr ImU32 kMeasure = IM_COL32(90, 160, 255, 60);

// One row of the chart, top to bottom: a lane, a group's header (a process of a recording of
// several: a rank), or the thin row its quiet host threads are folded behind.
struct ChartRow {
  enum Kind { kLane, kGroupHeader, kQuiet } kind = kLane;
  int lane = -1;   // kLane
  int group = -1;  // the group it belongs to
  float y0 = 0, y1 = 0;
};

struct Geometry {
  ImVec2 origin;
  ImVec2 size;
  float label_w, axis_h, lane_h, sm_h;
  float range_h;               // one row of the host's ranges
  float step_band = 0;         // the band under the axis where steps are numbered (0: none)
  std::vector<float> lane_top;  // each lane's top; -1 for a lane not shown (folded)
  std::vector<ChartRow> rows;   // what is shown, top to bottom
  float lanes_top = 0, lanes_bottom = 0;  // the first row's top, the last one's bottom
  TimeNs begin, end;
  float ChartX0() const { return origin.x + label_w; }
  float ChartW() const { return std::max(1.0f, size.x - label_w); }
  float X(TimeNs t) const {
    return ChartX0() + static_cast<float>(static_cast<double>(t - begin) * ChartW() / static_cast<double>(end - begin));
  }
  TimeNs T(float x) const {
    return begin + static_cast<TimeNs>(static_cast<double>(x - ChartX0()) * static_cast<double>(end - begin) / ChartW());
  }
  // A lane's top; a host lane with ranges shown has their rows below its own row.
  float LaneY(int lane) const { return lane_top[static_cast<size_t>(lane)]; }
  bool Shown(int lane) const { return lane >= 0 && lane_top[static_cast<size_t>(lane)] >= 0; }
  // The row at `y` (nullptr: none).
  const ChartRow* RowAt(float y) const {
    auto after = std::upper_bound(rows.begin(), rows.end(), y, [](float v, const ChartRow& r) { return v < r.y0; });
    if (after == rows.begin()) return nullptr;
    const ChartRow& r = *(after - 1);
    return y < r.y1 ? &r : nullptr;
  }
  // The lane whose own row (not its range rows) is at `y`, or -1.
  int LaneAt(float y) const {
    const ChartRow* r = RowAt(y);
    return r && r->kind == ChartRow::kLane && y < r->y0 + lane_h ? r->lane : -1;
  }
};

// A density bar: a lane's spans [first, end) (positions in its time-ordered list) drawn as one
// block where each would be under ~3 px wide.
struct MergedRun {
  int lane = 0;
  size_t first = 0, end = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// One frame of the chart: its inputs, its geometry and what the drawing found on the way.
struct GanttFrame {
  GanttFrame(const GanttInputs& inputs, GanttViewState& view_state, TimeNs replay_cutoff, TimeNs blocked_slack, Geometry geometry)
      : in(inputs), view(view_state), t(*inputs.trace), s(inputs.trace->scenario),
        pal(inputs.high_contrast ? kHighContrastPalette : kNormalPalette), cutoff(replay_cutoff), slack(blocked_slack),
        index(view_state.index), lanes(view_state.index.lanes), g(std::move(geometry)) {}

  const GanttInputs& in;
  GanttViewState& view;
  const Trace& t;
  const Scenario& s;
  const Palette& pal;
  TimeNs cutoff;  // replay: only what had happened by this time is drawn
  TimeNs slack;   // a host call longer than this blocked the host (ExplainSlack)
  GanttIndex& index;
  const std::vector<Lane>& lanes;
  Geometry g;
  ImDrawList* dl = nullptr;
  ImVec2 br;  // the chart's bottom right
  bool hovered = false;
  std::vector<SpanRect> drawn;
  std::vector<MergedRun> merged;  // the density bars drawn (for their tooltips)
  std::vector<TextRect> texts;    // the labels drawn (for the layout file)
  int sm_count = 0;  // SM rows shown (0: none)
  float sm_top = 0;
  float visible_top = 0, visible_bottom = 0;  // the part of the chart on screen (it scrolls)
  const IdleGap* idle_under = nullptr;
  const HostRange* range_under = nullptr;
  int range_lane = -1;  // the host lane whose range rows the mouse is over
};

// Draws a label and notes where it went (kind: "lane", "header", "axis", "step", ...).
inline void AddLabel(GanttFrame& fr, float size, ImVec2 at, ImU32 color, const std::string& text, const char* kind) {
  fr.dl->AddText(ImGui::GetFont(), size, at, color, text.c_str());
  ImVec2 ext = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0, text.c_str());
  fr.texts.push_back({kind, text, at.x, at.y, at.x + ext.x, at.y + ext.y});
}

// The height of one row of ranges, and of the rows under `lane` (0 when none are shown).
float RangeRowHeight(float scale);
float RangeBlockHeight(const GanttIndex& x, const GanttViewState& view, size_t lane, float row_h);
// `text` cut to `width` at `font_size`, with an ellipsis where it was cut.
std::string Ellipsize(const std::string& text, float width, float font_size);
// Lane flags ("blocking, prio -5", "thread 2") in the UI's language, word by word.
std::string TranslateFlags(const UiText& ui, const std::string& flags);
// gantt_rows.cpp: the rows (lanes grouped by process, quiet threads folded) placed from the top,
// their labels and the groups' headers; a click on a header folds or unfolds it.
Geometry LayOut(const GanttInputs& in, GanttViewState& view, const GanttIndex& index, ImVec2 size);
void DrawRowLabels(GanttFrame& frame);
bool HandleRowClick(GanttFrame& frame);
// The label drawn for a lane: its name without what its group's header already says.
std::string LaneLabel(const GanttFrame& frame, size_t lane);
// gantt_spans.cpp: one lane's spans (host calls, GPU work, markers, "N ops" blocks), the
// host's sync lines and the replay cursor, and the SM rows.
void DrawLaneSpans(GanttFrame& frame, size_t lane);
void DrawSyncLines(GanttFrame& frame);
// A program's steps: a line at each one's start, numbered in the axis's step band (warm-up ones
// dimmer), every k-th where they would crowd.
void DrawStepMarks(GanttFrame& frame, float axis_y);
void DrawSmRows(GanttFrame& frame);
// gantt_explain.cpp: record -> wait lines, and each delayed op's cause and the arrow from the
// op that released it.
void DrawExplanations(GanttFrame& frame);
// gantt_interaction.cpp: zoom, pan, fit, measure, hover tooltip; returns the op clicked or -1.
int HandleInteraction(GanttFrame& frame);

}  // namespace streamlab
