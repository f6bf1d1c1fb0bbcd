// The fix for a possible race, as an edit: the op of the pair submitted second waits, through an
// event recorded right after the first, for the first to finish (cudaEventRecord on the first's
// stream, cudaStreamWaitEvent on the second's: two calls at the program's usual call cost). What
// it predicts is what ordering the pair costs a step, often nothing, since the second op tends to
// start after the first anyway. Pairs with a graph node in them are left as they are: a node
// cannot be given an event of the program's after capture.
#pragma once

#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/whatif/replay_scenario.h"

namespace streamlab {

struct RacePair {
  int first = -1, second = -1;  // recorded ops, by submission
};

// Every possible race the analysis flagged (data races, address races), once per pair of ops.
std::vector<RacePair> FlaggedRaces(const Trace& recorded, const Analysis& analysis);

// Rebuilds the replay's op list with each pair ordered by an event.
void OrderRaces(const std::vector<RacePair>& pairs, Replay& replay);

}  // namespace streamlab
