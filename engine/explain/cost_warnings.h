// A program's warnings about a cost weighed by what the cost takes of a steady step: an "async"
// copy from pageable memory that holds the host is a warning where those copies take a share of
// the step worth fixing first; a few tiny ones (a DDP job's 4-byte flags, a framework's batch of
// 1.5 MB in an 8 ms step) are a note. What makes results wrong (a race) is never weighed down.
// A cost the verdict already ranks among its fixes is a note too: the verdict says it once, with
// its share of the step, its place and its remedy, and a warning below would repeat it.
#pragma once

#include <vector>

#include "engine/account/account.h"
#include "engine/analysis/analyzer.h"
#include "engine/trace/trace.h"
#include "engine/verdict/verdict.h"

namespace streamlab {

void WeighCostWarnings(const Trace& trace, const ProgramAccount& account, std::vector<Finding>& findings);
void NoteCostsTheVerdictRanks(const Trace& trace, const ProgramVerdict& verdict, std::vector<Finding>& findings);

}  // namespace streamlab
