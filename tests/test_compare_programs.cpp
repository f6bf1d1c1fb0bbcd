// Two traces of one program compared per step (engine/analysis/compare_programs.h), on the H100
// recordings and torch.profiler traces of grad_scaler_step.py, data_dependent_shape.py and
// training_loop.py, each with and without its remedy, every studied step inside a range "step".
#include <gtest/gtest.h>

#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs.h"
#include "engine/verdict/verdict.h"
#include "tests/verdict_util.h"
#include "engine/analysis/compare_programs_text.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_json.h"
#include "engine/util/json_reader.h"
#include "engine/util/errors.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Trace Fixture(const std::string& path) { return LoadTraceFile(testing::SourcePath("tests/fixtures/" + path)); }

ProgramComparison Compare(const Trace& a, const Trace& b, const std::string& per) {
  return ComparePrograms(a, Analyze(a), b, Analyze(b), per);
}

const FindingTally* TallyOf(const ProgramComparison& c, FindingKind kind) {
  for (const FindingTally& t : c.tallies)
    if (t.kind == kind) return &t;
  return nullptr;
}

TEST(ComparePrograms, AFusedOptimizerRemovesTheReadFromEachStep) {
  Trace plain = Fixture("recorded/grad_scaler_step.json.xz"), fused = Fixture("recorded/grad_scaler_step_fused.json.xz");
  ProgramComparison c = Compare(plain, fused, "step");
  EXPECT_EQ(c.unit, "step");
  EXPECT_EQ(c.a.steps, 3);
  EXPECT_EQ(c.b.steps, 3);
  const FindingTally* reads = TallyOf(c, FindingKind::kHiddenSync);
  ASSERT_NE(reads, nullptr);
  EXPECT_EQ(reads->count_a, 3);  // one a step (the 2 warm-up steps' reads are outside the steps)
  EXPECT_EQ(reads->count_b, 0);
  EXPECT_EQ(reads->site.ranges, std::vector<std::string>{"step"});
  EXPECT_GT(reads->time_a, Ms(3 * 1.4));  // each waited for the 2 ms spin
  // The read is the call that blocked: it is not counted again as a blocking call.
  for (const FindingTally& t : c.tallies) {
    if (t.kind == FindingKind::kHostBlock) {
      EXPECT_LT(t.time_a, Ms(1)) << t.call;
    }
  }
  // Per step: the host blocked for the read, then no longer; the GPU's work is the same.
  EXPECT_GT(c.a.host_blocked / c.a.steps, Ms(1.4));
  EXPECT_LT(c.b.host_blocked / c.b.steps, Us(500));
  EXPECT_LT(c.b.to - c.b.from, c.a.to - c.a.from);
  EXPECT_NEAR(static_cast<double>(c.b.gpu_busy), static_cast<double>(c.a.gpu_busy), 0.1 * static_cast<double>(c.a.gpu_busy));
  // The window is the steps': from the first one's start to the end of the last one's GPU work.
  EXPECT_GE(c.a.to - c.a.from, c.a.host_in_steps);
  EXPECT_GT(c.a.kernels, c.b.kernels);  // fused AdamW: fewer kernels
}

TEST(ComparePrograms, TorchProfilerTracesNameTheLibraryCall) {
  Trace plain = Fixture("kineto/grad_scaler_step_stack.json.xz"), fused = Fixture("kineto/grad_scaler_step_fused_stack.json.xz");
  EXPECT_EQ(StepRangeOf(plain, fused, ""), "");  // no ProfilerStep#N: whole traces unless told
  ProgramComparison c = Compare(plain, fused, "step");
  const FindingTally* reads = TallyOf(c, FindingKind::kHiddenSync);
  ASSERT_NE(reads, nullptr);
  EXPECT_EQ(reads->count_a, 3);
  EXPECT_EQ(reads->count_b, 0);
  EXPECT_EQ(reads->site.file, "grad_scaler_step.py");
  EXPECT_EQ(reads->site.via_file, "torch/amp/grad_scaler.py");
  EXPECT_EQ(reads->site.inner_function, "_maybe_opt_step");
}

TEST(ComparePrograms, GpuWorkAfterTheLastStepTakesNothingFromTheSteps) {
  // Three steps of a 100 us kernel and a sync, then a 500 us kernel after the loop (a last read
  // of the result): the steps' GPU busy time is their three kernels'.
  ScenarioBuilder b("after the loop");
  Stream s = b.CreateStream("s");
  std::vector<int> launches, syncs;
  for (int k = 0; k < 4; ++k) {
    if (k == 3) b.host().Work("after the loop", Us(50));
    launches.push_back(s.Launch("k", Spin(k < 3 ? Us(100) : Us(500), 4)));
    syncs.push_back(b.host().SyncDevice());
  }
  Trace t = SimExecutor().Run(b.Build(), {});
  for (int k = 0; k < 3; ++k) t.ranges.push_back({0, "step", t.ops[launches[k]].submit, t.ops[syncs[k]].ret});
  ProgramComparison c = Compare(t, t, "step");
  ASSERT_EQ(c.a.steps, 3);
  EXPECT_NEAR(static_cast<double>(c.a.gpu_busy), static_cast<double>(Us(300)), static_cast<double>(Us(5)));
}

TEST(ComparePrograms, OnlyWhatHappenedInTheStepsIsCounted) {
  Trace mask = Fixture("recorded/data_dependent_shape.json"), where = Fixture("recorded/data_dependent_shape_where.json");
  // Whole traces: the warm-up's reads, and --where's one read outside the steps, count.
  ProgramComparison whole = Compare(mask, where, "");
  EXPECT_EQ(whole.unit, "");
  EXPECT_EQ(whole.a.steps, 0);
  const FindingTally* all = TallyOf(whole, FindingKind::kHiddenSync);
  ASSERT_NE(all, nullptr);
  int whole_a = 0, whole_b = 0;
  for (const FindingTally& t : whole.tallies)
    if (t.kind == FindingKind::kHiddenSync) whole_a += t.count_a, whole_b += t.count_b;
  EXPECT_EQ(whole_a, 5);
  EXPECT_EQ(whole_b, 1);
  // Per step: one read a step, then none.
  ProgramComparison steps = Compare(mask, where, "step");
  int step_a = 0, step_b = 0;
  for (const FindingTally& t : steps.tallies)
    if (t.kind == FindingKind::kHiddenSync) step_a += t.count_a, step_b += t.count_b;
  EXPECT_EQ(step_a, 3);
  EXPECT_EQ(step_b, 0);
  EXPECT_GT(steps.a.idle_by_cause[static_cast<int>(IdleCause::kHostSync)], 0);
}

// training_loop.py --layers 1 --batch 32, 2 steps recorded with emit_nvtx() (H100): with 2
// DataLoader workers the host no longer makes the batches in the GPU's idle time.
TEST(ComparePrograms, WorkersTakeTheBatchesOffTheHost) {
  Trace w0 = Fixture("recorded/training_loop_nvtx_w0.json.xz"), w2 = Fixture("recorded/training_loop_nvtx_w2.json.xz");
  ProgramComparison c = Compare(w0, w2, "step");
  ASSERT_EQ(c.a.steps, 2);
  ASSERT_EQ(c.b.steps, 2);
  EXPECT_LT(2 * (c.b.to - c.b.from), c.a.to - c.a.from);  // under half the wall time a step
  const int host_work = static_cast<int>(IdleCause::kHostWork);
  EXPECT_LT(c.b.idle_by_cause[host_work], c.a.idle_by_cause[host_work]);
  ASSERT_FALSE(c.host_work_places.empty());
  const PlaceChange& loader = c.host_work_places.front();
  EXPECT_EQ(loader.place.ranges, std::vector<std::string>{"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"});
  EXPECT_GT(loader.time_a, Ms(2 * 5));  // over 5 ms a step
  EXPECT_EQ(loader.time_b, 0);
  EXPECT_FALSE(c.host_work_resumed);  // emit_nvtx's ranges say where the host was
  // The "step" range itself is not a place (it holds every one).
  for (const PlaceChange& p : c.host_work_places) EXPECT_NE(p.place.ranges, std::vector<std::string>{"step"});
  // The window's time: GPU busy, idle between kernels, and before the first or after the last.
  for (const StepFigures* f : {&c.a, &c.b}) {
    double window = static_cast<double>(f->to - f->from);
    double parts = static_cast<double>(f->gpu_busy + f->gpu_idle + f->outside_kernels);
    EXPECT_NEAR(parts, window, 0.05 * window);
  }
}

// The same two runs recorded without emit_nvtx (H100; --workers 0 on 2026-11-25, --workers 2 on
// 2026-11-26): no range says where the host was, so the places are where it came back to CUDA,
// from the Python stacks the recorder read at calls made after 1 ms or more outside CUDA.
TEST(ComparePrograms, WithoutRangesTheStacksSayWhereTheHostCameBack) {
  Trace w0 = Fixture("recorded/training_loop_stacks.raw.jsonl.xz"), w2 = Fixture("recorded/training_loop_stacks_w2.raw.jsonl.xz");
  ProgramComparison c = Compare(w0, w2, "step");
  ASSERT_EQ(c.a.steps, 2);
  ASSERT_EQ(c.b.steps, 2);
  EXPECT_TRUE(c.host_work_resumed);
  ASSERT_FALSE(c.host_work_places.empty());
  // Without workers the host came back at the batch's copy (line 56, right after next(batches))
  // after making the batch, over 5 ms a step; with two workers, hardly at all.
  const PlaceChange& copy = c.host_work_places.front();
  EXPECT_EQ(copy.place.file, "training_loop.py");
  EXPECT_EQ(copy.place.line, 56);
  EXPECT_TRUE(copy.place.exact_line);
  EXPECT_GT(copy.time_a, Ms(2 * 5));
  EXPECT_LT(copy.time_b * 10, copy.time_a);
  for (const PlaceChange& p : c.host_work_places) EXPECT_TRUE(p.place.exact_line) << p.place.function;
  FindingTexts en = FindingTexts::Load("en");
  std::string text;
  for (const std::string& line : RenderProgramComparison(c, en, "w0", "w2", w0.backend, w2.backend)) text += line + "\n";
  EXPECT_TRUE(Contains(text, "where it came back to CUDA after its own work")) << text;
  EXPECT_TRUE(Contains(text, "        in step (training_loop.py:56)")) << text;
  text.clear();
  for (const std::string& line : RenderProgramComparison(c, FindingTexts::Load("zh"), "w0", "w2", w0.backend, w2.backend))
    text += line + "\n";
  EXPECT_TRUE(Contains(text, "回到 CUDA 的位置")) << text;
  // A trace without stacks or ranges has no places of either kind.
  Trace lab = Fixture("recorded/legacy_stall.json");
  ProgramComparison none = Compare(lab, lab, "");
  EXPECT_FALSE(none.host_work_resumed);
  EXPECT_TRUE(none.host_work_places.empty());
}

// explain --per step: one trace described step by step, with the same figures, places and
// finding counts as a comparison, and no "A -> B" anywhere.
TEST(ComparePrograms, OneTraceDescribedPerStep) {
  Trace t = Fixture("recorded/grad_scaler_step.json.xz");
  Analysis a = Analyze(t);
  ProgramComparison c = DescribeSteps(t, a, "step");
  EXPECT_TRUE(c.single);
  EXPECT_EQ(c.unit, "step");
  ASSERT_EQ(c.a.steps, 3);
  ASSERT_FALSE(c.tallies.empty());
  EXPECT_EQ(c.tallies.front().kind, FindingKind::kHiddenSync);  // the most time first
  EXPECT_EQ(c.tallies.front().count_a, 3);
  std::string text;
  for (const std::string& line : RenderStepReport(c, FindingTexts::Load("en"))) {
    text += line + "\n";
    EXPECT_EQ(line.find(" -> "), std::string::npos) << line;
  }
  EXPECT_TRUE(Contains(text, "Per step, over its 3 \"step\" ranges")) << text;
  EXPECT_TRUE(Contains(text, "hidden syncs (small reads the host waited for), inside step: 1 a step (")) << text;
  EXPECT_TRUE(Contains(text, "kernels launched 41")) << text;
  // The same figures as the trace's side of a comparison.
  ProgramComparison pair = ComparePrograms(t, a, Fixture("recorded/grad_scaler_step_fused.json.xz"),
                                           Analyze(Fixture("recorded/grad_scaler_step_fused.json.xz")), "step");
  EXPECT_EQ(c.a.gpu_busy, pair.a.gpu_busy);
  EXPECT_EQ(c.a.host_blocked, pair.a.host_blocked);
  // Without NVTX: where the host came back to CUDA, the largest first.
  Trace w2 = Fixture("recorded/training_loop_stacks_w2.raw.jsonl.xz");
  ProgramComparison back = DescribeSteps(w2, Analyze(w2), "step");
  EXPECT_TRUE(back.host_work_resumed);
  ASSERT_FALSE(back.host_work_places.empty());
  EXPECT_EQ(back.host_work_places.front().place.line, 62);  // GradScaler's unscale_
  EXPECT_THROW(DescribeSteps(t, a, "nope"), InputError);
}

TEST(ComparePrograms, StepRangesAreCountedByName) {
  Trace t;
  t.ranges = {{0, "ProfilerStep#1", 0, 10}, {0, "ProfilerStep#2", 10, 20}, {0, "ProfilerStepX", 0, 5}, {0, "ProfilerStep", 0, 1}};
  EXPECT_EQ(CountStepRanges(t, "ProfilerStep"), 3);
  EXPECT_EQ(StepRangeOf(t, t, ""), "ProfilerStep");
  Trace none;
  EXPECT_EQ(StepRangeOf(t, none, ""), "");
  EXPECT_EQ(testing::InputErrorOf([&] { StepRangeOf(t, none, "ProfilerStep"); }),
            "--per ProfilerStep: the second trace has no range named \"ProfilerStep\" or \"ProfilerStep#N\"");
  Trace backwards;
  backwards.ranges = {{0, "step", 10, 5}};
  EXPECT_NE(testing::InputErrorOf([&] { Compare(backwards, backwards, "step"); }), "no error");
}

// A timed window (record --delay 6 --duration 0.06) of training_loop.py, whose NVTX "step"
// ranges the recorder logged from the start: the steps that ended before the window are not in
// the trace, and the one the window opened in, begun before it, is not measured as a step.
TEST(ComparePrograms, AWindowsStepsAreTheOnesItRecorded) {
  Trace t = Fixture("recorded/training_loop_timed.raw.jsonl.xz");
  const TimeNs first_op = TraceBegin(t);
  int steps_in_trace = 0;
  for (const HostRange& r : t.ranges) {
    if (r.name != "step") continue;
    ++steps_in_trace;
    EXPECT_GE(r.end, first_op - 20'000'000);  // none ends long before the window (one step)
  }
  EXPECT_EQ(steps_in_trace, 4);  // 60 ms of ~20 ms steps; the first began before the window
  ASSERT_TRUE(t.recorded_from.has_value());
  // Written with the trace (streamlab-cli import) and read back, in both readers.
  EXPECT_EQ(TraceFromJson(TraceToJson(t), "t.json").recorded_from, t.recorded_from);
  EXPECT_EQ(TraceFromJsonText(TraceToJson(t).dump(), "t.json").recorded_from, t.recorded_from);
  EXPECT_FALSE(Fixture("recorded/training_loop_nvtx.json.xz").recorded_from.has_value());  // written before it
  ProgramComparison steps = DescribeSteps(t, Analyze(t), "step");
  EXPECT_EQ(steps.a.steps, 3);
  EXPECT_GE(steps.a.from, *t.recorded_from);
}

// data_dependent_shape.py's log (3 steps of about 2 ms) with a cudaProfilerStart put in its
// first step: right after the step's range opened (as a program that starts its profiler
// range inside the step), the step is measured; half-way through, it is not.
TEST(ComparePrograms, AStepTheRecordingBeganInIsMeasuredOnlyFromItsStart) {
  const std::string path = testing::SourcePath("tests/fixtures/recorded/data_dependent_shape_stacks.raw.jsonl");
  const std::string log = ReadTextFile(path);
  const std::string push = R"("role":"nvtx_push","dom":2,"b":)";
  size_t at = log.find(push);
  ASSERT_NE(at, std::string::npos);
  uint64_t step_begin = std::stoull(log.substr(at + push.size(), 19));
  size_t line_end = log.find('\n', at) + 1;
  auto steps_with_start_at = [&](uint64_t start) {
    std::string mark = R"({"t":"call","tid":0,"fn":"cudaProfilerStart","role":"capture_start","dom":0,"b":)" +
                       std::to_string(start) + R"(,"e":)" + std::to_string(start) + R"(,"corr":0})" + "\n";
    Trace t = TraceFromRecording(ParseRecording(log.substr(0, line_end) + mark + log.substr(line_end), path));
    EXPECT_TRUE(t.recorded_from.has_value());
    return DescribeSteps(t, Analyze(t), "step").a.steps;
  };
  EXPECT_EQ(steps_with_start_at(step_begin + 5'000), 3);      // 5 us into a 2 ms step
  EXPECT_EQ(steps_with_start_at(step_begin + 1'000'000), 2);  // half of it unrecorded
}

// Eight steps of a 300 us kernel the host launches without waiting for it, the first step after
// 5 ms of host work (a warm-up: loading, autotuning). The ranges close as the launch returns, so
// neither their lengths nor their mean says what a step costs: the GPU's pace does, as whatif
// times it, and the steady step leaves the warm-up out.
Trace StepsAheadOfTheGpu(TimeNs first_work) {
  ScenarioBuilder b("host ahead");
  Stream s = b.CreateStream("s");
  std::vector<int> works, launches;
  for (int k = 0; k < 8; ++k) {
    works.push_back(b.host().Work("batch", k == 0 ? first_work : Us(50)));
    launches.push_back(s.Launch("k", Spin(Us(300), 4)));
  }
  b.host().SyncDevice();
  Trace t = SimExecutor().Run(b.Build(), {});
  for (int k = 0; k < 8; ++k) t.ranges.push_back({0, "step", t.ops[works[k]].submit, t.ops[launches[k]].ret});
  return t;
}

TEST(ComparePrograms, TheSteadyStepIsTheGpusPaceAfterTheWarmUp) {
  Trace warm = StepsAheadOfTheGpu(Ms(5)), cold = StepsAheadOfTheGpu(Us(50));
  ProgramComparison c = Compare(warm, cold, "step");
  EXPECT_EQ(c.steady_a.warmup, 1);
  EXPECT_EQ(c.steady_b.warmup, 0);
  EXPECT_NEAR(static_cast<double>(c.steady_a.step), static_cast<double>(Us(300)), static_cast<double>(Us(15)));
  EXPECT_NEAR(static_cast<double>(c.steady_b.step), static_cast<double>(Us(300)), static_cast<double>(Us(15)));
  EXPECT_GT(c.a.to - c.a.from, 8 * Us(600));  // the mean a step counts the warm-up: over twice the pace
  std::string text;
  for (const std::string& line : RenderProgramComparison(c, FindingTexts::Load("en"), "a", "b", warm.backend, cold.backend))
    text += line + "\n";
  EXPECT_TRUE(Contains(text, "steady step 301.0 us -> 301.0 us (+0%): the median after 1 -> 0 warm-up step(s)")) << text;
  // A run whose steps were not found says so, and one trace alone gets its own figure.
  ScenarioBuilder once("no loop");
  once.CreateStream("s").Launch("k", Spin(Us(300), 4));
  Trace no_steps = SimExecutor().Run(once.Build(), {});
  ProgramComparison whole = Compare(warm, no_steps, "");
  EXPECT_EQ(whole.steady_b.steady, 0);
  Analysis analysis = Analyze(warm);
  ProgramComparison one = DescribeSteps(warm, analysis, "step");
  EXPECT_NEAR(static_cast<double>(one.steady_a.step), static_cast<double>(Us(300)), static_cast<double>(Us(15)));
  // explain and the GUI pass the verdict's steps and pace in: the same figure, found once.
  Verdict v = LeadVerdict(warm);
  SteadySteps from_verdict = SteadyStepsOf(v.steps, v.pace);
  EXPECT_EQ(from_verdict.step, one.steady_a.step);
  EXPECT_EQ(from_verdict.warmup, one.steady_a.warmup);
  EXPECT_EQ(DescribeSteps(warm, analysis, "step", from_verdict).steady_a.step, one.steady_a.step);
}

}  // namespace
}  // namespace streamlab
