// A recording's Python stacks (engine/ingest/python_traceback.h, read by the recorder with
// CPython's own dumper): the dump's text read into frames, the frames made ranges around their
// call, and the findings naming the program's line. Real logs: examples/pytorch/
// grad_scaler_step.py, data_dependent_shape.py and crash_midway.py recorded on an H100
// (torch 2.11, Python 3.12) with `streamlab-cli record --raw-dir`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/ingest/python_traceback.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
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
  Trace t = Recorded("grad_scaler_step_stacks.raw.jsonl");
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

}  // namespace
}  // namespace streamlab
