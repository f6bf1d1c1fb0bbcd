// Predict, then reveal: before a run the student puts the lab's GPU work in the order they
// expect it to start; after the run this says whether the order held. Ops that start
// within a small tolerance of each other count as tied (either order is right), because
// overlapping work has no meaningful "first".
#pragma once

#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

// The ops a student orders: kernels, copies and memsets, in submission order (at most 12,
// so the question stays answerable).
std::vector<int> PredictableOps(const Scenario& scenario);

struct PredictionCheck {
  bool held = false;
  int pairs = 0;        // ordered pairs compared
  int pairs_right = 0;  // pairs the run agrees with (ties count as right)
  std::vector<int> actual_order;  // the same ops by actual start
  int first_wrong = -1;           // the first op (in the prediction) that started before one predicted earlier
};

// Starts closer than max(2 us + clock error, 2% of the GPU time) count as tied.
PredictionCheck CheckPredictedOrder(const Trace& trace, const std::vector<int>& predicted);

}  // namespace streamlab
