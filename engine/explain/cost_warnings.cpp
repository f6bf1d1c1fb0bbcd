// Cost warnings weighed by the steady step (cost_warnings.h).
#include "engine/explain/cost_warnings.h"

#include <algorithm>

#include "engine/analysis/explain_thresholds.h"

namespace streamlab {
namespace {

// The process's time the finding's kind costs a steady step, against the step: the host held in
// such copies, summed over the copies made in steady steps, per step. Without steps: over the run.
double ShareOfStep(const Trace& t, const ProcessAccount& a, const std::vector<Finding>& findings, FindingKind kind) {
  TimeNs held = 0;
  for (const Finding& f : findings) {
    if (f.kind != kind || f.op < 0 || ProcessOfThread(t.scenario, t.scenario.ops[f.op].thread) != a.process) continue;
    TimeNs at = t.ops[f.op].submit;
    bool in_steady = !a.steps.found();
    for (const ProgramStep& s : a.steps.steps) in_steady |= s.steady && at >= s.begin && at < s.end;
    if (in_steady) held += f.amount;
  }
  int steps = a.steps.found() ? a.steps.steady : 1;
  TimeNs step = a.steps.found() ? a.step : a.steps.run_end - a.steps.run_begin;
  return step > 0 ? static_cast<double>(held) / steps / static_cast<double>(step) : 0;
}

}  // namespace

void WeighCostWarnings(const Trace& trace, const ProgramAccount& account, std::vector<Finding>& findings) {
  if (!trace.scenario.recorded) return;  // a lab's warnings are its lesson
  for (const ProcessAccount& a : account.processes) {
    if (ShareOfStep(trace, a, findings, FindingKind::kPageableAsyncCopy) >= kWarningShareMin) continue;
    for (Finding& f : findings)
      if (f.kind == FindingKind::kPageableAsyncCopy && f.severity == Severity::kWarning && f.op >= 0 &&
          ProcessOfThread(trace.scenario, trace.scenario.ops[f.op].thread) == a.process)
        f.severity = Severity::kNote;
  }
}

void NoteCostsTheVerdictRanks(const Trace& trace, const ProgramVerdict& verdict, std::vector<Finding>& findings) {
  for (const Verdict& v : verdict.processes) {
    bool ranked = std::any_of(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& x) { return x.kind == FixKind::kPageableCopy; });
    if (!ranked) continue;
    for (Finding& f : findings)
      if (f.kind == FindingKind::kPageableAsyncCopy && f.severity == Severity::kWarning && f.op >= 0 &&
          ProcessOfThread(trace.scenario, trace.scenario.ops[f.op].thread) == v.process)
        f.severity = Severity::kNote;
  }
}

}  // namespace streamlab
