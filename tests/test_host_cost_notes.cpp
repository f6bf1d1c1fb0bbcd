// The note that estimates what recording (or torch.profiler) added to the host's time: the
// per-call cost measured in bench/README.md times the calls of the trace that submitted GPU
// work (a graph launch once, not per node), said against the time from its first GPU work;
// and the same estimate a step in the per-step report and the comparison of two traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs.h"
#include "engine/analysis/compare_programs_text.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/host_cost.h"
#include "engine/trace/trace_json.h"
#include "engine/util/format.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

const TraceNote* FindNote(const Trace& t, const std::string& key) {
  for (const TraceNote& n : t.notes)
    if (n.key == key) return &n;
  return nullptr;
}

bool SubmitsWork(OpKind kind) {
  return kind == OpKind::kKernel || kind == OpKind::kMemcpy || kind == OpKind::kMemset || kind == OpKind::kPeerCopy ||
         kind == OpKind::kCollective;
}

// The GPU ops that had a call of their own (not replayed from a graph).
size_t OwnCallOps(const Trace& t) {
  size_t n = 0;
  for (const OpRecord& rec : t.ops) n += SubmitsWork(t.scenario.ops[rec.op].kind) && rec.gpu && !rec.graph_replay ? 1 : 0;
  return n;
}

TEST(HostCostNotes, ARecordingEstimatesTheRecordersTimeFromItsCalls) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/training_loop_timed.raw.jsonl.xz"));
  const TraceNote* note = FindNote(t, "recording_cost");
  ASSERT_NE(note, nullptr);
  size_t n = OwnCallOps(t);
  ASSERT_GT(n, 500u);
  EXPECT_EQ(note->vars.at("n"), std::to_string(n));
  EXPECT_EQ(note->vars.at("low"), FormatDuration(static_cast<TimeNs>(kRecordLowNs * static_cast<double>(n))));
  EXPECT_EQ(note->vars.at("high"), FormatDuration(static_cast<TimeNs>(kRecordHighNs * static_cast<double>(n))));
  // The span: from the first GPU work's submission to the last one's end.
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
  for (const OpRecord& rec : t.ops) {
    if (!rec.gpu || !SubmitsWork(t.scenario.ops[rec.op].kind)) continue;
    first = std::min(first, rec.submit);
    last = std::max({last, rec.ret, rec.end});
  }
  EXPECT_EQ(note->vars.at("span"), FormatDuration(last - first));
  double high_share = 100.0 * kRecordHighNs * static_cast<double>(n) / static_cast<double>(last - first);
  EXPECT_NEAR(std::stod(note->vars.at("high_share")), high_share, 0.06);
  EXPECT_NE(note->text.find("an estimate from those machines, not measured in this run"), std::string::npos);
}

TEST(HostCostNotes, AGraphLaunchCountsOnceNotPerNode) {
  Recording r = ReadRecordingFile(testing::SourcePath("tests/fixtures/recorded/compiled_step_reduce_overhead.raw.jsonl"));
  Trace t = TraceFromRecording(r);
  const TraceNote* note = FindNote(t, "recording_cost");
  ASSERT_NE(note, nullptr);
  size_t replayed = 0;
  for (const OpRecord& rec : t.ops) replayed += rec.graph_replay ? 1 : 0;
  std::set<uint64_t> launches;
  for (const RecordedCall& c : r.calls)
    if (c.role == CallRole::kGraphLaunch) launches.insert(c.correlation);
  ASSERT_GT(replayed, launches.size());  // several nodes a replay
  EXPECT_EQ(note->vars.at("n"), std::to_string(OwnCallOps(t) + launches.size()));
}

TEST(HostCostNotes, ATorchProfilerTraceSaysWhichProfilingItHad) {
  // With PyTorch's ops profiled (its ranges are in the trace): the CPU figure.
  Trace with_ops = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/launch_bound.json"));
  const TraceNote* cpu = FindNote(with_ops, "profiler_cost_cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->vars.at("n"), std::to_string(OwnCallOps(with_ops)));
  EXPECT_EQ(cpu->vars.at("low"), FormatDuration(static_cast<TimeNs>(6500 * OwnCallOps(with_ops))));
  EXPECT_FALSE(testing::HasNote(with_ops, "recording_cost"));
  // CUDA activity only: no op ranges, the lower figure.
  Trace cuda_only = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/event_chain.json"));
  const TraceNote* cuda = FindNote(cuda_only, "profiler_cost_cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->vars.at("low"), FormatDuration(static_cast<TimeNs>(3600 * OwnCallOps(cuda_only))));
  EXPECT_EQ(cuda->vars.at("high"), FormatDuration(static_cast<TimeNs>(4600 * OwnCallOps(cuda_only))));
}

TEST(HostCostNotes, ThePerStepReportEstimatesItAStep) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/training_loop_timed.raw.jsonl.xz"));
  Analysis analysis = Analyze(t);
  ProgramComparison steps = DescribeSteps(t, analysis, "step");
  ASSERT_EQ(steps.a.steps, 3);
  EXPECT_GE(steps.a.submitting_calls, steps.a.kernels);
  EXPECT_LT(steps.a.submitting_calls, OwnCallOps(t));  // those submitted inside the steps only
  EXPECT_EQ(steps.a.tool_low, static_cast<TimeNs>(kRecordLowNs * static_cast<double>(steps.a.submitting_calls)));
  EXPECT_EQ(steps.a.tool_high, static_cast<TimeNs>(kRecordHighNs * static_cast<double>(steps.a.submitting_calls)));
  std::string per_step_low = FormatDuration(steps.a.tool_low / steps.a.steps);
  bool said = false;
  for (const std::string& line : RenderStepReport(steps, FindingTexts::Load("en")))
    if (line.find("the recording tool's own host time, estimated: " + per_step_low + " to ") != std::string::npos) said = true;
  EXPECT_TRUE(said);
}

TEST(HostCostNotes, AComparisonSaysWhichTraceDoesNotSayIt) {
  // A trace converted before the note existed has no estimate: "not said", not zero.
  Trace a = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/training_loop_timed.raw.jsonl.xz"));
  Trace b = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/training_loop_nvtx_w0.json.xz"));
  Analysis analysis_a = Analyze(a), analysis_b = Analyze(b);
  ProgramComparison c = ComparePrograms(a, analysis_a, b, analysis_b, "step");
  EXPECT_GT(c.a.tool_high, 0);
  EXPECT_EQ(c.b.tool_high, 0);
  bool said = false;
  for (const std::string& line : RenderProgramComparison(c, FindingTexts::Load("en"), "a", "b", "record", "record"))
    if (line.find("the recording tool's own host time, estimated: ") != std::string::npos &&
        line.find(" -> not said") != std::string::npos)
      said = true;
  EXPECT_TRUE(said);
}

TEST(HostCostNotes, NoneWithoutSubmittedWork) {
  Recording r;
  EXPECT_TRUE(HostCostNotes(r, 0, 1000).empty());
  EXPECT_TRUE(HostCostNotes(r, 10, 0).empty());
  EXPECT_EQ(HostCostNotes(r, 10, 1000000).size(), 1u);
}

}  // namespace
}  // namespace streamlab
