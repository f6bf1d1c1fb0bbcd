// What one frame of the Gantt chart shares between the files that draw it (internal to
// app/gui/gantt_*.cpp): the palette, the geometry (time <-> x, lane rows), and the frame's
// state - the draw list, what was drawn, what the mouse is over.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "app/gui/gantt_view.h"

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
inline constexpr ImU32 kHostCall = IM_COL32(120, 125, 135, 255);
inline constexpr ImU32 kHostBlocked = IM_COL32(200, 70, 70, 150);
inline constexpr ImU32 kMerged = IM_COL32(130, 130, 130, 255);
inline constexpr ImU32 kMarker = IM_COL32(235, 235, 235, 255);
inline constexpr ImU32 kHighlight = IM_COL32(255, 215, 0, 255);
inline constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 kArrow = IM_COL32(255, 200, 60, 230);
inline constexpr ImU32 kMeasure = IM_COL32(90, 160, 255, 60);

struct Geometry {
  ImVec2 origin;
  ImVec2 size;
  float label_w, axis_h, lane_h, sm_h;
  float range_h;            // one row of the host's ranges
  std::vector<float> tops;  // each lane's top, then the bottom of the last (lanes + 1)
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
  float LaneY(int lane) const { return tops[static_cast<size_t>(lane)]; }
  // The lane whose own row (not its range rows) is at `y`, or -1.
  int LaneAt(float y) const {
    auto above = std::upper_bound(tops.begin(), tops.end(), y);
    if (above == tops.begin() || above == tops.end()) return -1;
    int lane = static_cast<int>(above - tops.begin()) - 1;
    return y < tops[static_cast<size_t>(lane)] + lane_h ? lane : -1;
  }
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
  int sm_count = 0;  // SM rows shown (0: none)
  float sm_top = 0;
  const IdleGap* idle_under = nullptr;
  const HostRange* range_under = nullptr;
  int range_lane = -1;  // the host lane whose range rows the mouse is over
};

// gantt_spans.cpp: one lane's spans (host calls, GPU work, markers, "N ops" blocks), the
// host's sync lines and the replay cursor, and the SM rows.
void DrawLaneSpans(GanttFrame& frame, size_t lane);
void DrawSyncLines(GanttFrame& frame);
// A program's steps: a line at each one's start, numbered on the axis (warm-up ones dimmer),
// every k-th where they would crowd.
void DrawStepMarks(GanttFrame& frame, float axis_y);
void DrawSmRows(GanttFrame& frame);
// gantt_explain.cpp: record -> wait lines, and each delayed op's cause and the arrow from the
// op that released it.
void DrawExplanations(GanttFrame& frame);
// gantt_interaction.cpp: zoom, pan, fit, measure, hover tooltip; returns the op clicked or -1.
int HandleInteraction(GanttFrame& frame);

}  // namespace streamlab
