// A recording's Python stacks (engine/ingest/python_traceback.h, read by the recorder with
// CPython's own dumper): the dump's text read into frames, the frames made ranges around their
// call, and the findings naming the program's line. Real logs: examples/pytorch/
// grad_scaler_step.py, data_dependent_shape.py and crash_midway.py recorded on an H100
// (torch 2.11, Python 3.12) with `streamlab-cli record --raw-dir`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/ingest/python_traceback.h"
#include "engine/ingest/open_trace.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::HasNote;

Trace Recorded(const std::string& name) {
  return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name));
}

TEST(PythonTraceback, CPythonsDumpIsReadOutermostFirst) {
  const std::string dump =
      "Stack (most recent call first):\n"
      "  File \"/opt/venv/lib/python3.12/site-packages/torch/amp/grad_scaler.py\", line 380 in _maybe_opt_step\n"
      "  File \"/work/examples/train.py\", line ??? in step\n"
      "  <no Python frame>\n"
      "  ...\n"
      "  File \"/usr/lib/python3.12/runpy.py\", line 88 in _run_code\n"
      "  File \"train.py\", line 40 in <module>\n"
      "  File \"cut.py\", line 1 in sho";  // the pipe filled up mid-line
  EXPECT_EQ(FramesOfTraceback(dump), (std::vector<std::string>{"train.py:40 in <module>", "runpy.py:88 in _run_code",
                                                               "train.py:0 in step",
                                                               "torch/amp/grad_scaler.py:380 in _maybe_opt_step"}));
  // Not frames: another tool's text, a frame line damaged, a function name with a space.
  for (const char* other : {"File \"x.py\", line 3 in f\n", "  File \"x.py\", line 3x in f\n",
                            "  File \"x.py\", line 3 in f g\n", "  File \"\", line 3 in f\n", "  File \"x.py\"\n"})
    EXPECT_TRUE(FramesOfTraceback(other).empty()) << other;
}

TEST(PythonTraceback, FilesAreNamedAsTorchProfilerNamesThem) {
  EXPECT_EQ(FramePath("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py"), "torch/nn/modules/module.py");
  EXPECT_EQ(FramePath("/usr/lib/python3/dist-packages/numpy/core/x.py"), "numpy/core/x.py");
  EXPECT_EQ(FramePath("/usr/lib/python3.12/contextlib.py"), "contextlib.py");
  EXPECT_EQ(FramePath("/usr/lib/python3.12/concurrent/futures/thread.py"), "concurrent/futures/thread.py");
  EXPECT_EQ(FramePath("examples/pytorch/grad_scaler_step.py"), "grad_scaler_step.py");
  EXPECT_EQ(FramePath("<frozen runpy>"), "<frozen runpy>");
}

TEST(PythonTraceback, ARecordedFrameKeepsItsExactLine) {
  SourceFrame frame;
  ASSERT_TRUE(ParseSourceFrame("grad_scaler_step.py:34 in step", &frame));
  EXPECT_EQ(frame.file, "grad_scaler_step.py");
  EXPECT_EQ(frame.line, 34);
  EXPECT_EQ(frame.function, "step");
  EXPECT_TRUE(frame.exact_line);
  ASSERT_TRUE(ParseSourceFrame("grad_scaler_step.py(27): step", &frame));
  EXPECT_FALSE(frame.exact_line);  // torch.profiler's: the line it first saw the frame at
  ASSERT_TRUE(ParseSourceFrame("torch/amp/grad_scaler.py:380 in _maybe_opt_step", &frame));
  EXPECT_TRUE(IsLibraryFrame(frame));
  for (const char* other : {"step 3 in epoch", "a:b in c", "x.py:3 in f g", ":3 in f", "x.py: in f", "x.py:3 in "})
    EXPECT_FALSE(IsPythonRange(other)) << other;
}

// GradScaler.step's overflow read, recorded with no profiler and no NVTX around torch's calls:
// the stack names the program's line, the library call it made, and so the remedy.
TEST(PythonTraceback, ARecordingNamesTheLineOfEachHiddenSync) {
  Trace t = Recorded("grad_scaler_step_stacks.raw.jsonl.xz");
  EXPECT_TRUE(HasNote(t, "python_stacks"));
  Analysis a = Analyze(t);
  std::vector<const Finding*> syncs = testing::FindingsOfKind(a, FindingKind::kHiddenSync);
  ASSERT_EQ(syncs.size(), 5u);  // 2 warm-up steps and 3 studied
  for (const Finding* f : syncs) {
    EXPECT_EQ(f->site.file, "grad_scaler_step.py");
    EXPECT_EQ(f->site.line, 34);  // scaler.step(optimizer)
    EXPECT_TRUE(f->site.exact_line);
    EXPECT_EQ(f->site.caller_function, "studied_steps");
    EXPECT_EQ(f->site.via_file, "torch/amp/grad_scaler.py");
    EXPECT_EQ(f->site.inner_function, "_maybe_opt_step");
    EXPECT_TRUE(IsGradScalerOverflowRead(f->site));
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("Made in step (grad_scaler_step.py:34), called from studied_steps (streamlab_example.py), "
                        "by way of step > _maybe_opt_step (torch/amp/grad_scaler.py)."),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("fused=True"), std::string::npos) << text;
  }
  // The frames are ranges around the call only, the outermost first, and never an op's label.
  // The last read is in a studied step, whose NVTX range holds the whole step around them.
  RangeIndex index(t);
  size_t last = static_cast<size_t>(syncs.back()->op);
  std::vector<const HostRange*> around = index.Enclosing(t.scenario.ops[last].thread, t.ops[last].submit);
  ASSERT_GE(around.size(), 4u);
  EXPECT_EQ(around.front()->name.rfind("torch/amp/grad_scaler.py:", 0), 0u) << around.front()->name;
  EXPECT_EQ(around[around.size() - 2]->name, "grad_scaler_step.py:38 in <module>");
  EXPECT_EQ(around.back()->name, "step");
  for (const OpRecord& r : t.ops) EXPECT_EQ(r.note.find(".py:"), std::string::npos) << r.note;
}

// A plain recording of x[x > 0]: each read is named by its line; the group says it once.
TEST(PythonTraceback, EachDataDependentReadIsLedBackToItsLine) {
  Trace t = Recorded("data_dependent_shape_stacks.raw.jsonl");
  Analysis a = Analyze(t);
  bool said = false;
  for (const FindingGroup& g : GroupFindings(t, a, false)) {
    if (g.kind != FindingKind::kHiddenSync) continue;
    said = true;
    EXPECT_EQ(g.site.line, 29);  // positive = x[x > 0]
    EXPECT_EQ(RenderGroupSite(FindingTexts::Load("en"), g).rfind("All 5 were made in step (data_dependent_shape.py:29)", 0), 0u)
        << RenderGroupSite(FindingTexts::Load("en"), g);
  }
  EXPECT_TRUE(said);
}

// A program that crashed: its stacks were written as it ran, their totals (written at exit) not.
TEST(PythonTraceback, ACrashedProgramKeepsItsStacks) {
  Trace t = Recorded("crash_midway_stacks.raw.jsonl");
  EXPECT_TRUE(HasNote(t, "python_stacks_no_total"));
  EXPECT_FALSE(HasNote(t, "python_stacks"));
  bool framed = false;
  for (const HostRange& r : t.ranges) framed |= r.name.rfind("crash_midway.py:", 0) == 0;
  EXPECT_TRUE(framed);
}

// The sampler's stacks (STREAMLAB_RECORD_SAMPLE_US): samples taken while the main thread was
// out of CUDA become frame ranges over that stretch, so the host's own work between calls is
// placed at the function it was in, not only at the call it came back at. The samples are
// added here to a real log (training_loop_stacks, whose stacks cover only the calls) inside
// the longest stretch of host work in a step, as the sampler would write them.
TEST(PythonTraceback, SampledStacksPlaceTheHostsOwnWork) {
  std::stringstream log;
  log << ReadTextFile(testing::SourcePath("tests/fixtures/recorded/training_loop_stacks.raw.jsonl.xz"));
  uint64_t zero = 0;
  Trace plain = TraceFromRecording(ParseRecording(log.str(), "plain"), &zero);
  Analysis before = Analyze(plain);
  const IdleGap* longest = nullptr;
  for (const IdleGap& g : before.figures.idle_gaps) {
    bool in_step = false;
    for (const HostRange& r : plain.ranges) in_step |= r.name == "step" && r.begin < g.to && g.from < r.end;
    bool main_thread = g.next >= 0 && plain.scenario.ops[g.next].thread == 0;  // the one sampled
    if (g.cause == IdleCause::kHostWork && in_step && main_thread && (!longest || g.to - g.from > longest->to - longest->from)) longest = &g;
  }
  ASSERT_NE(longest, nullptr);
  ASSERT_GT(longest->to - longest->from, Ms(2));
  // The host made the batch in make_batch (lines the program does not have, to tell them apart) for most of the gap, then one sample in
  // another function, and one sample taken inside the call that ended the gap (left out).
  const uint64_t from = zero + static_cast<uint64_t>(longest->from), to = zero + static_cast<uint64_t>(longest->to);
  uint64_t inside_call = 0;
  for (const RecordedCall& c : ParseRecording(log.str(), "plain").calls)
    if (c.thread == 0 && c.begin + 50'000 >= to && c.end > c.begin + 2) {
      inside_call = c.begin + (c.end - c.begin) / 2;
      break;
    }
  ASSERT_GT(inside_call, 0u);
  std::string samples =
      R"({"t":"python_stack","id":9001,"text":"Stack (most recent call first):\n  File \"/w/training_loop.py\", line 150 in make_batch\n  File \"/w/training_loop.py\", line 55 in <module>\n"})"
      "\n"
      R"({"t":"python_stack","id":9002,"text":"Stack (most recent call first):\n  File \"/w/training_loop.py\", line 161 in log_loss\n  File \"/w/training_loop.py\", line 162 in <module>\n"})"
      "\n";
  auto sample = [&](uint64_t at, int stack) {
    samples += R"({"t":"py_sample","tid":0,"at":)" + std::to_string(at) + R"(,"py":)" + std::to_string(stack) + "}\n";
  };
  int taken = 0;
  uint64_t at = from + 125'000;  // a sample every 250 us
  for (; at + 375'000 < to; at += 250'000, ++taken) sample(at, 9001);
  sample(at, 9002);
  sample(inside_call, 9002);
  samples += R"({"t":"python_samples","taken":)" + std::to_string(taken + 2) +
             R"(,"reads":40,"cost_ns":90000,"period_us":250,"after_us":200,"faults":0,"stopped":0})" + "\n";
  Trace t = TraceFromRecording(ParseRecording(log.str() + samples, "sampled"));
  EXPECT_TRUE(HasNote(t, "python_samples"));
  EXPECT_FALSE(HasNote(t, "python_samples_faulted"));
  // A read that faulted was dropped and said; so many that sampling stopped, said so.
  std::string faulted = samples, stopped = samples;
  faulted.replace(faulted.find(R"("faults":0)"), 10, R"("faults":2)");
  stopped.replace(stopped.find(R"("faults":0,"stopped":0)"), 22, R"("faults":16,"stopped":1)");
  EXPECT_TRUE(HasNote(TraceFromRecording(ParseRecording(log.str() + faulted, "faulted")), "python_samples_faulted"));
  EXPECT_TRUE(HasNote(TraceFromRecording(ParseRecording(log.str() + stopped, "stopped")), "python_samples_stopped"));

  // Ranges of make_batch over the runs of its samples (split where the thread made a call in
  // between), log_loss over one period; the sample inside the call made none.
  TimeNs batch = 0;
  int log_loss = 0;
  for (const HostRange& r : t.ranges) {
    if (r.name.rfind("training_loop.py:150", 0) == 0) {
      batch += r.end - r.begin;
      EXPECT_GE(r.begin, longest->from);
      EXPECT_LE(r.end, longest->to);
    }
    log_loss += r.name.rfind("training_loop.py:161", 0) == 0;
  }
  EXPECT_GE(batch * 10, Us(250 * taken) * 8);
  EXPECT_LE(batch, Us(250 * taken) + Us(250));
  EXPECT_EQ(log_loss, 1);

  // Where the host was in that gap, as the findings and the step's account tally it: in
  // make_batch, where before only the line it came back to CUDA at was known.
  Analysis a = Analyze(t);
  RangeIndex index(t);
  TimeNs looked = 0;
  std::vector<HostPlace> places = IdlePlaces(t, a.figures, index, IdleCause::kHostWork, longest->from, longest->to, &looked);
  ASSERT_FALSE(places.empty());
  EXPECT_EQ(places.front().site.file, "training_loop.py");
  EXPECT_EQ(places.front().site.function, "make_batch");
  EXPECT_GE(places.front().time * 10, looked * 7);
  RangeIndex plain_index(plain);
  for (const HostPlace& p : IdlePlaces(plain, before.figures, plain_index, IdleCause::kHostWork, longest->from, longest->to, &looked))
    EXPECT_LT(p.time * 10, looked * 3) << p.site.function;  // without samples, the gap was mostly nowhere
}

}  // namespace
}  // namespace streamlab
