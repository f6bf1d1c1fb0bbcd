// Building the account (account.h): each process's steps found on its own, its steady steps'
// windows chosen (from one step's first call to the next step's, or, where the host runs ahead
// of the GPU, from one step's last GPU end to the next one's), each window walked back along its
// critical path (account_walk.h), and the walks summed per category.
#pragma once

#include "engine/account/account.h"
#include "engine/analysis/analyzer_context.h"

namespace streamlab {

// At most this many steady steps are walked per process, spread evenly over them: a long run's
// account costs what a short one's does (the steps are alike; a sample says where their time goes).
inline constexpr int kMostStepsWalked = 64;

ProgramAccount AccountOf(const Trace& trace);
// The same over the trace's analysis context, built already (the explain pipeline's).
ProgramAccount AccountOf(const AnalysisContext& context);

}  // namespace streamlab
