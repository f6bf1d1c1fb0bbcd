// What the chart says under the mouse: a span's times and the finding about it, what a density
// bar holds ("37 syncs (12.3 ms), 120 launches (3.4 ms)"), an idle interval's cause, and where
// the host was at that moment, from the trace's ranges (Python frames, PyTorch ops, NVTX ranges)
// when it holds any.
#pragma once

#include <string>

#include "app/gui/chart/gantt_view.h"

namespace streamlab {

struct MergedRun;

struct GanttHover {
  const SpanRect* span = nullptr;  // the span under the mouse
  const MergedRun* merged = nullptr;  // else the density bar under it
  const IdleGap* idle = nullptr;   // else the idle interval under it
  const HostRange* range = nullptr;  // else the range under it (in a host lane's range rows)
  int host_thread = -1;            // else the host lane's thread under it
  TimeNs at = 0;                   // the time under the mouse
};

// Draws the tooltip for what is hovered (nothing when nothing is); returns its text.
std::string DrawGanttTooltip(const GanttInputs& in, const GanttIndex& index, const GanttHover& hover);

}  // namespace streamlab
