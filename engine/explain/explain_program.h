// The explain pipeline's one entry: a recorded or imported program's trace analysed (why each op
// started when it did), its steps found per process and each steady step's time accounted for
// along its critical path, the verdict read from that account, and the top fixes replayed on the
// simulator (what each would save). `explain`, `whatif` and the app call this; each stage is a
// public function of its own (Analyze, AccountOf, VerdictOf, SimulateFixes).
#pragma once

#include <cstddef>

#include "engine/account/account.h"
#include "engine/analysis/analyzer.h"
#include "engine/verdict/verdict.h"

namespace streamlab {

struct ExplainOptions {
  size_t simulate_fixes = 5;  // the lead process's first fixes replayed on the simulator (0: none)
};

struct Explanation {
  Analysis analysis;
  ProgramAccount account;
  ProgramVerdict verdict;  // empty for a lab run (it has its own story)
};

Explanation ExplainProgram(const Trace& trace, const ExplainOptions& options = {});

}  // namespace streamlab
