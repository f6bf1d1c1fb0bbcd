// Where in the program a host call was made (engine/analysis/program_sites.h): Python frames and
// ops around a call, from hand-made ranges, from torch.profiler traces taken on an H100 with
// with_stack=True (examples/pytorch/item_every_step.py, 5 steps, and pageable_vs_pinned.py) and
// from a recording's NVTX ranges.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::HasNote;

Trace Kineto(const std::string& name) { return LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/" + name)); }

TEST(ProgramSites, PythonFramesAreToldFromOtherRanges) {
  SourceFrame frame;
  ASSERT_TRUE(ParseSourceFrame("examples/train.py(42): step", &frame));
  EXPECT_EQ(frame.file, "examples/train.py");
  EXPECT_EQ(frame.line, 42);
  EXPECT_EQ(frame.function, "step");
  EXPECT_TRUE(IsPythonRange("<built-in method item of Tensor object at 0x7f00>"));
  EXPECT_TRUE(IsPythonRange("nn.Module: Linear_0"));
  for (const char* other : {"aten::item", "forward", "ProfilerStep#3", "f(x): y", "a(): b", "step(12)"})
    EXPECT_FALSE(IsPythonRange(other)) << other;
  for (const char* library : {"torch/nn/modules/module.py(1783): _call_impl", "typing.py(2154): cast",
                              "/usr/lib/python3.12/contextlib.py(141): __exit__",
                              "/venv/lib/python3.12/site-packages/foo/bar.py(3): f"}) {
    ASSERT_TRUE(ParseSourceFrame(library, &frame)) << library;
    EXPECT_TRUE(IsLibraryFrame(frame)) << library;
  }
  ASSERT_TRUE(ParseSourceFrame("/home/student/train.py(7): <module>", &frame));
  EXPECT_FALSE(IsLibraryFrame(frame));
}

// Nested ranges with siblings: only those around the time, innermost first; the program's own
// innermost frame and its caller, library frames skipped, the ops inside the program's frame.
TEST(ProgramSites, TheRangesAroundACallAreFoundThroughTheNesting) {
  Trace t;
  t.ranges = {{0, "train.py(1): <module>", 0, 1000},
              {0, "train.py(20): step", 100, 900},
              {0, "aten::linear", 110, 150},  // a sibling that ended before the call
              {0, "torch/nn/modules/module.py(1783): _call_impl", 200, 800},
              {0, "<built-in method item of Tensor object at 0x1>", 300, 700},
              {0, "aten::item", 310, 690},
              {0, "aten::_local_scalar_dense", 320, 680},
              {1, "aten::mm", 0, 1000}};  // another thread
  RangeIndex index(t);
  std::vector<const HostRange*> around = index.Enclosing(0, 400);
  ASSERT_EQ(around.size(), 7u - 1u);
  EXPECT_EQ(around.front()->name, "aten::_local_scalar_dense");
  EXPECT_EQ(around.back()->name, "train.py(1): <module>");
  ProgramSite site = SiteOf(index, 0, 400);
  EXPECT_EQ(site.file, "train.py");
  EXPECT_EQ(site.function, "step");
  EXPECT_EQ(site.caller_function, "<module>");
  EXPECT_EQ(site.ranges, (std::vector<std::string>{"aten::item", "aten::_local_scalar_dense"}));
  // Outside every op of the step; at a range's end it is over.
  EXPECT_EQ(SiteOf(index, 0, 950).function, "<module>");
  EXPECT_TRUE(SiteOf(index, 0, 1000).empty());
  // A trace file may name any thread: looked up, never allocated for.
  Trace odd;
  odd.ranges = {{2147483647, "far", 0, 10}, {-5, "negative", 0, 10}};
  RangeIndex odd_index(odd);
  EXPECT_EQ(SiteOf(odd_index, 2147483647, 5).ranges, std::vector<std::string>{"far"});
  EXPECT_EQ(SiteOf(odd_index, -5, 5).ranges, std::vector<std::string>{"negative"});
  EXPECT_TRUE(SiteOf(odd_index, 0, 5).empty());
  // NVTX-like ranges only: no frame, the ranges outermost first.
  ProgramSite other = SiteOf(index, 1, 5);
  EXPECT_TRUE(other.file.empty());
  EXPECT_EQ(other.ranges, std::vector<std::string>{"aten::mm"});
  EXPECT_EQ(FindingTexts::Load("en").RenderSite(site),
            "Made in step (train.py), called from <module> (train.py), by way of _call_impl "
            "(torch/nn/modules/module.py), inside aten::item > aten::_local_scalar_dense.");
  EXPECT_EQ(FindingTexts::Load("en").RenderSite(other), "Made inside aten::mm.");

  // A group says where most of its members were made, when one place made at least half.
  Analysis a;
  a.findings.resize(3);
  a.findings[0].site = site, a.findings[1].site = site, a.findings[2].site = other;
  FindingGroup g;
  g.members = {0, 1, 2};
  g.site = site, g.at_site = 2;
  EXPECT_EQ(RenderGroupSite(FindingTexts::Load("en"), g).rfind("2 of the 3 were made in step (train.py)", 0), 0u);
  g.at_site = 1;
  EXPECT_EQ(RenderGroupSite(FindingTexts::Load("en"), g), "");
}

// loss.item() every step: each hidden sync is named as made in step(), called from the module,
// inside aten::item; without Python frames the same trace's ops are still named.
// PyTorch runs a backward's CUDA work on autograd's own thread while the caller waits in
// _engine_run_backward: a call on that thread (no Python frame of its own) is placed at the
// backward's line, said to be autograd's; not when two threads are in a backward at once, not
// from another process, and not outside the backward.
TEST(ProgramSites, AutogradsThreadCallsAreAtTheBackwardTheyServe) {
  Trace t;
  t.scenario.thread_process = {0, 0, 1, 1};
  t.ranges = {{0, "train.py:62 in <module>", 1000, 2000},
              {0, "torch/_tensor.py:631 in backward", 1000, 2000},
              {0, "torch/autograd/__init__.py:381 in backward", 1000, 2000},
              {0, "torch/autograd/graph.py:869 in _engine_run_backward", 1000, 2000},
              {0, "train.py:61 in <module>", 500, 600},
              {1, "autograd::engine::evaluate_function: NllLossBackward0", 1100, 1200}};
  RangeIndex index(t);
  ProgramSite site = SiteOf(index, 1, 1150);
  EXPECT_EQ(site.file, "train.py");
  EXPECT_EQ(site.line, 62);
  EXPECT_TRUE(site.by_autograd);
  EXPECT_EQ(site.ranges, std::vector<std::string>{"autograd::engine::evaluate_function: NllLossBackward0"});
  EXPECT_FALSE(SiteOf(index, 0, 1500).by_autograd);  // the caller's own call
  EXPECT_TRUE(SiteOf(index, 1, 550).file.empty());  // the main thread in its forward: no backward to serve
  EXPECT_TRUE(SiteOf(index, 3, 1500).file.empty());  // another process's thread
  FindingTexts en = FindingTexts::Load("en");
  EXPECT_NE(en.RenderPlace(site).find("by autograd's own thread"), std::string::npos) << en.RenderPlace(site);
  // Two threads in a backward at once: whose, the trace cannot say.
  Trace two = t;
  two.scenario.thread_process = {0, 0, 0, 0};
  two.ranges.push_back({2, "torch/autograd/graph.py:869 in _engine_run_backward", 1000, 2000});
  two.ranges.push_back({2, "other.py:5 in run", 1000, 2000});
  RangeIndex both(two);
  EXPECT_TRUE(SiteOf(both, 3, 1500).file.empty());
}

TEST(ProgramSites, EachItemIsLedBackToTheFunctionThatCalledIt) {
  Trace t = Kineto("item_every_step_stack.json.xz");
  EXPECT_TRUE(HasNote(t, "kineto_stack"));
  Analysis a = Analyze(t);
  std::vector<const Finding*> syncs = testing::FindingsOfKind(a, FindingKind::kHiddenSync);
  ASSERT_EQ(syncs.size(), 5u);  // 5 steps
  for (const Finding* f : syncs) {
    EXPECT_EQ(f->site.file, "item_every_step.py");
    EXPECT_EQ(f->site.function, "step");
    EXPECT_EQ(f->site.caller_function, "<module>");
    EXPECT_EQ(f->site.ranges, (std::vector<std::string>{"aten::item", "aten::_local_scalar_dense"}));
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("Made in step (item_every_step.py), called from <module>"), std::string::npos) << text;
  }
  // One place made the whole group: said once for it.
  bool said = false;
  for (const FindingGroup& g : GroupFindings(t, a, false)) {
    if (g.kind != FindingKind::kHiddenSync) continue;
    said = true;
    EXPECT_EQ(g.at_site, 5);
    EXPECT_EQ(RenderGroupSite(FindingTexts::Load("en"), g),
              "All 5 were made in step (item_every_step.py), called from <module> (item_every_step.py), inside "
              "aten::item > aten::_local_scalar_dense.");
  }
  EXPECT_TRUE(said);
  // The backward pass's calls come from autograd's own thread, which has no Python frame: they
  // are placed at the program's line that called backward (the main thread waits there), said to
  // be autograd's, with the thread's own ops.
  bool autograd = false;
  for (const Finding* f : testing::FindingsOfKind(a, FindingKind::kHostBlock))
    autograd |= f->site.by_autograd && f->site.file == "item_every_step.py" && !f->site.ranges.empty() &&
                f->site.ranges.front().rfind("autograd::engine::evaluate_function", 0) == 0;
  EXPECT_TRUE(autograd);

  Trace plain = Kineto("item_every_step.json");
  EXPECT_TRUE(HasNote(plain, "kineto_no_stack"));
  Analysis b = Analyze(plain);
  std::vector<const Finding*> plain_syncs = testing::FindingsOfKind(b, FindingKind::kHiddenSync);
  ASSERT_FALSE(plain_syncs.empty());
  for (const Finding* f : plain_syncs) {
    EXPECT_TRUE(f->site.file.empty());
    EXPECT_EQ(f->site.ranges, (std::vector<std::string>{"aten::item", "aten::_local_scalar_dense"}));
  }
}

TEST(ProgramSites, ThePageableCopyIsTheModulesCopy) {
  Trace t = Kineto("pageable_vs_pinned_stack.json.xz");
  Analysis a = Analyze(t);
  std::vector<const Finding*> pageable = testing::FindingsOfKind(a, FindingKind::kPageableAsyncCopy);
  ASSERT_EQ(pageable.size(), 1u);
  EXPECT_EQ(pageable[0]->site.file, "pageable_vs_pinned.py");
  EXPECT_EQ(pageable[0]->site.function, "<module>");
  EXPECT_EQ(pageable[0]->site.ranges, std::vector<std::string>{"aten::copy_"});
  std::string zh = FindingTexts::Load("zh").Render(t, *pageable[0]);
  EXPECT_NE(zh.find("调用发生在 <module>(pageable_vs_pinned.py) 中，位于 aten::copy_ 之内。"), std::string::npos) << zh;
}

// A recording has neither PyTorch ops nor Python frames: the program's NVTX ranges name the site
// (examples/pytorch/nvtx_ranges.py, recorded on an H100).
TEST(ProgramSites, ARecordingNamesTheProgramsNvtxRanges) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/nvtx_ranges.json"));
  EXPECT_EQ(t.backend, "record");
  Analysis a = Analyze(t);
  std::vector<const Finding*> syncs = testing::FindingsOfKind(a, FindingKind::kHiddenSync);
  ASSERT_FALSE(syncs.empty());
  for (const Finding* f : syncs) {
    EXPECT_TRUE(f->site.file.empty());
    EXPECT_EQ(f->site.ranges, (std::vector<std::string>{"step", "read loss"}));
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("Made inside step > read loss."), std::string::npos) << text;
  }
}

// A lab's trace has no ranges: no finding has a site.
TEST(ProgramSites, ALabHasNone) {
  const Lab& lab = FindLab("w2-implicit-sync-zoo");
  Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, "pageable-copy", {})));
  for (const Finding& f : Analyze(t).findings) EXPECT_TRUE(f.site.empty());
}

}  // namespace
}  // namespace streamlab
