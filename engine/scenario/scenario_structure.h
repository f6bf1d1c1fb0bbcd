// Validation of a scenario's structure across ops: which host thread uses which stream and
// event, and the nodes of each CUDA graph (what stream capture would accept).
#pragma once

#include "engine/scenario/scenario.h"

namespace streamlab {

// Throws InputError naming the first problem, e.g.
// "ops[7]: s2 joins graph ops[4] only by waiting on an event recorded inside it".
void ValidateThreadsAndGraphs(const Scenario& scenario);

}  // namespace streamlab
