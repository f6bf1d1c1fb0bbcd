// The desktop app's command line, parsed with CLI11 like streamlab-cli's: what to open or run
// first, and the headless modes (screenshot, frame-time benchmarks) that tests and docs use.
#pragma once

#include <string>
#include <vector>

#include "app/gui/gui_app.h"

namespace streamlab {

struct GuiArgs {
  GuiOptions options;
  std::string screenshot;         // render headless, write this PNG, exit
  int width = 1400, height = 860;
  std::vector<long> bench_spans;  // span counts to measure, in order
  double bench_max_ratio = 0;
  bool bench_frames = false;      // with --open: time frames once the trace is analysed and shown
};

// Parses and checks the command line. Bad input prints the problem and the usage and exits 2;
// --help prints the usage and exits 0.
GuiArgs ParseGuiArgs(int argc, char** argv);

}  // namespace streamlab
