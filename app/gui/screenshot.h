// Headless output: the current frame as a PNG, and where each span, row and label was drawn as
// JSON (so tests can check that the pixels at a span's place have the span's colour, and that no
// label is cut or drawn over another).
#pragma once

#include <string>
#include <vector>

#include "app/gui/chart/gantt_view.h"

namespace streamlab {

// Reads the back buffer (width x height) and writes a PNG. Returns false on failure.
bool WriteScreenshot(const std::string& path, int width, int height);
// `verdict`: the answer panel's top, bottom and the height its lines need (top < 0: none shown).
void WriteLayout(const std::string& path, const Trace& trace, const ChartLayout& chart, const float verdict[3], int width,
                 int height);

}  // namespace streamlab
