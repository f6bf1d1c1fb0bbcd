// A text Gantt chart of a Trace for terminals: one row per lane, scaled bars, a time axis
// and a legend that maps each bar's letter to its op and exact times.
#pragma once

#include <string>

#include "engine/trace/trace.h"

namespace streamlab {

std::string RenderTextGantt(const Trace& trace, int width = 80);

}  // namespace streamlab
