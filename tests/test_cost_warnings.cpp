// A program's cost warnings weighed by the steady step (engine/explain/cost_warnings.h): an
// "async" copy from pageable memory is a warning only where such copies take 5 % of a step, and
// the verdict does not already rank them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/explain/cost_warnings.h"
#include "engine/explain/explain_program.h"
#include "engine/ingest/open_trace.h"

namespace streamlab {
namespace {

Severity PageableSeverity(const std::vector<Finding>& findings) {
  for (const Finding& f : findings)
    if (f.kind == FindingKind::kPageableAsyncCopy) return f.severity;
  ADD_FAILURE() << "no pageable copy found";
  return Severity::kInfo;
}

TEST(CostWarnings, APageableCopyIsAWarningOnlyWhereItCostsTheStep) {
  // pageable_vs_pinned.py: one pageable "async" copy held the host 9.9 ms of a 374 ms run (3 %),
  // most of which is the program's own set-up: a note.
  Trace t = LoadTraceFile(std::string(STREAMLAB_SOURCE_DIR) + "/tests/fixtures/recorded/pageable_vs_pinned.json");
  Explanation e = ExplainProgram(t, {0});
  EXPECT_EQ(PageableSeverity(e.analysis.findings), Severity::kNote);
  // The same copy in a run a tenth as long is 27 % of it: a warning.
  Analysis fresh = Analyze(t);
  EXPECT_EQ(PageableSeverity(fresh.findings), Severity::kWarning);
  ProgramAccount shorter = e.account;
  ASSERT_EQ(shorter.processes.size(), 1u);
  ASSERT_FALSE(shorter.processes[0].steps.found());
  StepSplit& run = shorter.processes[0].steps;
  run.run_end = run.run_begin + (run.run_end - run.run_begin) / 10;
  WeighCostWarnings(t, shorter, fresh.findings);
  EXPECT_EQ(PageableSeverity(fresh.findings), Severity::kWarning);
}

// streamOrderedAllocation's "async" copies from pageable memory bound its step: the verdict ranks
// them first, with their remedy, so the finding below is a note, not a second warning of one fact.
TEST(CostWarnings, ACostTheVerdictRanksIsNotWarnedAgain) {
  Trace t = LoadTraceFile(std::string(STREAMLAB_SOURCE_DIR) + "/tests/corpus/traces/streamOrderedAllocation.json.xz");
  EXPECT_EQ(PageableSeverity(Analyze(t).findings), Severity::kWarning);
  Explanation e = ExplainProgram(t, {0});
  ASSERT_TRUE(e.verdict.found());
  const std::vector<VerdictFix>& fixes = e.verdict.lead().fixes;
  EXPECT_TRUE(std::any_of(fixes.begin(), fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kPageableCopy; }));
  EXPECT_EQ(PageableSeverity(e.analysis.findings), Severity::kNote);
}

}  // namespace
}  // namespace streamlab
