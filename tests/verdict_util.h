// Shared by the verdict tests: a trace's verdict as the explain pipeline reaches it (analysis,
// account, verdict), and the lead process's, the program's answer for one process.
#pragma once

#include "engine/account/step_account.h"
#include "engine/analysis/analyzer.h"
#include "engine/verdict/verdict.h"

namespace streamlab {

inline ProgramVerdict ProgramVerdictOf(const Trace& t) { return VerdictOf(t, Analyze(t), AccountOf(t)); }
inline Verdict LeadVerdict(const Trace& t) {
  ProgramVerdict pv = ProgramVerdictOf(t);
  return pv.found() ? pv.lead() : Verdict{};
}
// The verdict's lines for a program of one process, as explain prints them.
inline ProgramVerdict Alone(const Verdict& v) {
  ProgramVerdict pv;
  pv.processes.push_back(v);
  return pv;
}

}  // namespace streamlab
