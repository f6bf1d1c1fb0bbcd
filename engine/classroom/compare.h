// Two runs side by side: the figures that changed (GPU time, overlap, host blocked) and the
// ops whose start moved most between them, matched by name, each with the analyzer's
// reason in the second run. Used by the app's compare view (variant vs variant, or the
// simulator's prediction vs the GPU's measurement).
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct MovedOp {
  std::string name;
  int op_a = -1;
  int op_b = -1;
  TimeNs start_a = 0;  // from its run's first GPU start
  TimeNs start_b = 0;
  TimeNs shift() const { return start_b - start_a; }
};

struct Comparison {
  Figures a, b;
  std::vector<MovedOp> moved;  // largest |shift| first
};

// Ops are matched by display name; each run's times are taken from its own first GPU start.
Comparison CompareRuns(const Trace& a, const Analysis& analysis_a, const Trace& b,
                       const Analysis& analysis_b, size_t max_moved = 3);

// The first GPU start of a run (its time origin for comparisons).
TimeNs FirstGpuStart(const Trace& trace);

// The analyzer's start-delay finding for `op`, or null.
const Finding* StartFinding(const Analysis& analysis, int op);

}  // namespace streamlab
