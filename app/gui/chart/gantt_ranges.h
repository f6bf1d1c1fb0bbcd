// The host's ranges (Python frames, PyTorch ops, NVTX ranges) drawn as a flame chart under
// each host lane: one thin row per nesting level, outermost first, so the names a program
// gives its own code stand next to the calls and kernels they led to.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

// One host lane's ranges in rows by nesting depth. Ranges in a row never overlap, so each
// row's begins and ends are both ascending and a frame finds what is in view by bisection.
struct RangeRows {
  std::vector<std::vector<const HostRange*>> rows;
  std::vector<std::vector<TimeNs>> begins, ends;
  size_t deeper = 0;  // ranges nested below the last row drawn (the tooltip still names them)
};

// Rows beyond this many are not drawn: a Python stack of with_stack=True is about 25 deep.
constexpr size_t kMaxRangeRows = 32;
// A trace whose ranges are deeper than this opens with them hidden (the streams stay in view).
constexpr size_t kRangeRowsShownAtOpen = 12;

// Lays out the ranges of each host lane's thread (`lanes[i].thread` for host lanes; stream
// lanes get no rows). Built once per trace.
std::vector<RangeRows> LayOutRanges(const Trace& trace, const std::vector<Lane>& lanes);

// Where and how one lane's rows are drawn this frame.
struct RangeRowsView {
  float chart_x0 = 0, chart_w = 1;  // the chart's time area
  TimeNs begin = 0, end = 1;        // the time it shows
  float top = 0, row_h = 12;        // the first row's top, each row's height
  TimeNs cutoff = 0;                // replay: nothing after this is drawn
  float font_size = 10;             // the names' size
  ImVec2 mouse;
  bool hovered = false;             // the mouse is over the chart
};

// Draws the rows; ranges under 3 px are merged into grey blocks. Returns the range under the
// mouse (nullptr for none).
const HostRange* DrawRangeRows(ImDrawList* dl, const RangeRows& rows, const RangeRowsView& view);

// A range's colour: a muted hue from its name, so one function has one colour throughout.
ImU32 RangeColor(const std::string& name);

}  // namespace streamlab
