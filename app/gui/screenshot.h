// Headless output: the current frame as a PNG, and where each span was drawn as JSON
// (so tests can check that the pixels at a span's place have the span's colour).
#pragma once

#include <string>
#include <vector>

#include "app/gui/gantt_view.h"

namespace streamlab {

// Reads the back buffer (width x height) and writes a PNG. Returns false on failure.
bool WriteScreenshot(const std::string& path, int width, int height);
void WriteLayout(const std::string& path, const Trace& trace, const std::vector<SpanRect>& spans, int width,
                 int height);

}  // namespace streamlab
