// The explain pipeline (explain_program.h).
#include "engine/explain/explain_program.h"

#include "engine/account/step_account.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/explain/cost_warnings.h"
#include "engine/whatif/whatif.h"

namespace streamlab {

Explanation ExplainProgram(const Trace& trace, const ExplainOptions& options) {
  Explanation e;
  AnalysisContext context(trace);  // one happens-before graph and index for the analysis and the account
  e.analysis = Analyze(context);
  if (!trace.scenario.recorded) return e;
  e.account = AccountOf(context);
  WeighCostWarnings(trace, e.account, e.analysis.findings);
  e.verdict = VerdictOf(trace, e.analysis, e.account);
  NoteCostsTheVerdictRanks(trace, e.verdict, e.analysis.findings);
  if (options.simulate_fixes > 0 && e.verdict.found()) SimulateFixes(trace, e.verdict.lead(), options.simulate_fixes);
  return e;
}

}  // namespace streamlab
