// Library calls in a site, where the host was while the GPU waited for it, and the remedies named
// for known causes (engine/analysis/program_sites.h): hand-made ranges, then traces taken on an
// H100 of examples/pytorch/grad_scaler_step.py and data_dependent_shape.py (torch.profiler with
// Python frames, and recorded with and without the fix) and of training_loop.py with --workers 0,
// recorded with emit_nvtx() ranges, and without (where the host came back to CUDA).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/analysis/resumed_places.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Trace Fixture(const std::string& path) { return LoadTraceFile(testing::SourcePath("tests/fixtures/" + path)); }

const Finding* HostWorkIdle(const Analysis& a) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kGpuIdle && f.idle == IdleCause::kHostWork) return &f;
  return nullptr;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A step that gets a batch (the DataLoader calls the program's __getitem__ back) and steps a
// GradScaler (whose _maybe_opt_step reads found_inf with .item() in a generator expression).
Trace HandMade() {
  Trace t;
  t.ranges = {{0, "train.py(1): <module>", 0, 1000},
              {0, "train.py(20): step", 100, 900},
              {0, "torch/utils/data/dataloader.py(736): __next__", 120, 400},
              {0, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 121, 399},
              {0, "torch/utils/data/_utils/fetch.py(50): fetch", 130, 390},
              {0, "train.py(30): __getitem__", 140, 380},
              {0, "<built-in method randn of type object at 0x1>", 150, 200},
              {0, "torch/amp/grad_scaler.py(375): step", 500, 800},
              {0, "torch/amp/grad_scaler.py(363): _maybe_opt_step", 510, 790},
              {0, "torch/amp/grad_scaler.py(371): <genexpr>", 520, 780},
              {0, "aten::item", 530, 770},
              {0, "aten::_local_scalar_dense", 540, 760}};
  return t;
}

TEST(HostPlaces, ASiteNamesTheLibraryCallOnTheWayAndTheLibraryThatCalledBack) {
  Trace t = HandMade();
  RangeIndex index(t);
  FindingTexts en = FindingTexts::Load("en");
  // The read inside GradScaler.step: the call the program made and where it led (the
  // generator expression has no name of its own), nothing between the two.
  ProgramSite read = SiteOf(index, 0, 600);
  EXPECT_EQ(read.function, "step");
  EXPECT_EQ(read.via_file, "torch/amp/grad_scaler.py");
  EXPECT_EQ(read.via_function, "step");
  EXPECT_EQ(read.inner_function, "_maybe_opt_step");
  EXPECT_EQ(read.via_depth, 0);
  EXPECT_TRUE(read.caller_via_file.empty());
  EXPECT_TRUE(IsGradScalerOverflowRead(read));
  EXPECT_FALSE(IsDataLoaderPlace(read));
  EXPECT_EQ(en.RenderSite(read),
            "Made in step (train.py), called from <module> (train.py), by way of step > _maybe_opt_step "
            "(torch/amp/grad_scaler.py), inside aten::item > aten::_local_scalar_dense.");
  // Inside the Dataset: the program's __getitem__, called back from step by way of __next__.
  ProgramSite item = SiteOf(index, 0, 160);
  EXPECT_EQ(item.function, "__getitem__");
  EXPECT_EQ(item.caller_function, "step");
  EXPECT_EQ(item.caller_via_file, "torch/utils/data/dataloader.py");
  EXPECT_EQ(item.caller_via_function, "__next__");
  EXPECT_TRUE(item.via_file.empty());
  EXPECT_TRUE(IsDataLoaderPlace(item));
  EXPECT_FALSE(IsGradScalerOverflowRead(item));
  EXPECT_EQ(en.RenderSite(item),
            "Made in __getitem__ (train.py), called from step (train.py) by way of __next__ "
            "(torch/utils/data/dataloader.py).");  // (the loader's range is around __getitem__, not in it)
  // The loader's own code: a library call the step made.
  ProgramSite loader = SiteOf(index, 0, 135);
  EXPECT_EQ(loader.function, "step");
  EXPECT_EQ(loader.via_function, "__next__");
  EXPECT_EQ(loader.inner_function, "fetch");
  EXPECT_TRUE(IsDataLoaderPlace(loader));
  // Without Python frames the loader is known by its record_function range.
  ProgramSite range_only;
  range_only.ranges = {"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"};
  EXPECT_TRUE(IsDataLoaderPlace(range_only));
  range_only.ranges = {"aten::item"};
  EXPECT_FALSE(IsDataLoaderPlace(range_only));
}

// A malformed file nesting 100 000 ranges: every lookup walks at most kMaxNesting of them, so
// the places of many gaps in it stay quick.
TEST(HostPlaces, DeepNestingIsWalkedOnlySoFar) {
  Trace t;
  constexpr int kDepth = 100000;
  for (int i = 0; i < kDepth; ++i) t.ranges.push_back({0, "train.py(" + std::to_string(i) + "): f", i, 2 * kDepth - i});
  RangeIndex index(t);
  EXPECT_EQ(index.Enclosing(0, kDepth).size(), RangeIndex::kMaxNesting);
  EXPECT_EQ(index.Enclosing(0, kDepth).front()->begin, kDepth - 1);  // the innermost kept
  for (int i = 0; i < 2000; ++i) EXPECT_EQ(SiteOf(index, 0, kDepth + i % 7).function, "f");
}

TEST(HostPlaces, BoundariesAreTheRangesEdgesBetweenTwoTimes) {
  Trace t = HandMade();
  RangeIndex index(t);
  EXPECT_EQ(index.Boundaries(0, 100, 200, 64), (std::vector<TimeNs>{100, 120, 121, 130, 140, 150, 200}));
  // Ranges that began before and end inside count by their end.
  EXPECT_EQ(index.Boundaries(0, 385, 450, 64), (std::vector<TimeNs>{385, 390, 399, 400, 450}));
  // Too many: empty, and the caller slices evenly instead.
  EXPECT_TRUE(index.Boundaries(0, 0, 1000, 3).empty());
  EXPECT_EQ(index.Boundaries(7, 0, 10, 64), (std::vector<TimeNs>{0, 10}));
}

// grad_scaler_step.py, 3 steps under torch.profiler with_stack=True: each step's GradScaler.step
// read found_inf back and waited for the 2 ms spin; the text says why and what avoids it.
TEST(HostPlaces, GradScalersReadIsNamedWithItsRemedy) {
  Trace t = Fixture("kineto/grad_scaler_step_stack.json.xz");
  Analysis a = Analyze(t);
  std::vector<const Finding*> reads = testing::FindingsOfKind(a, FindingKind::kHiddenSync);
  ASSERT_EQ(reads.size(), 3u);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  for (const Finding* f : reads) {
    EXPECT_GT(f->amount, Us(1000)) << "the read waited for the spin";
    EXPECT_EQ(f->site.file, "grad_scaler_step.py");
    EXPECT_EQ(f->site.function, "step");
    EXPECT_EQ(f->site.via_file, "torch/amp/grad_scaler.py");
    EXPECT_TRUE(IsGradScalerOverflowRead(f->site));
    std::string text = en.Render(t, *f);
    EXPECT_TRUE(Contains(text, "by way of step > _maybe_opt_step (torch/amp/grad_scaler.py)")) << text;
    EXPECT_TRUE(Contains(text, "fused=True")) << text;
    EXPECT_TRUE(Contains(zh.Render(t, *f), "fused=True 的 torch.optim.Adam")) << zh.Render(t, *f);
  }
  // The sync inside the read is a finding of its own, without the remedy said again.
  for (const Finding* f : testing::FindingsOfKind(a, FindingKind::kHostBlock))
    EXPECT_FALSE(Contains(en.Render(t, *f), "fused=True"));
}

// Recorded whole (2 warm-up steps and 3 studied ones): one read a step with a plain AdamW, none
// with AdamW(fused=True), which takes the overflow flag as a tensor.
TEST(HostPlaces, AFusedOptimizerTakesTheReadAway) {
  Trace plain = Fixture("recorded/grad_scaler_step.json.xz");
  Trace fused = Fixture("recorded/grad_scaler_step_fused.json.xz");
  Analysis a = Analyze(plain), b = Analyze(fused);
  EXPECT_EQ(testing::FindingsOfKind(a, FindingKind::kHiddenSync).size(), 5u);
  EXPECT_TRUE(testing::FindingsOfKind(b, FindingKind::kHiddenSync).empty());
}

// data_dependent_shape.py: x[x > 0] after a 2 ms spin, 3 steps under torch.profiler with Python
// frames: each step reads the count of selected elements back and waits; the text says why and
// which forms keep the shape. Recorded whole: 5 reads (2 warm-up steps and the 3 studied
// ones), and with --where (torch.where(x > 0, x, 0)) one, outside the steps.
TEST(HostPlaces, ADataDependentShapeReadIsNamedWithItsRemedy) {
  Trace t = Fixture("kineto/data_dependent_shape_stack.json.xz");
  Analysis a = Analyze(t);
  std::vector<const Finding*> reads = testing::FindingsOfKind(a, FindingKind::kHiddenSync);
  ASSERT_EQ(reads.size(), 3u);
  for (const Finding* f : reads) {
    EXPECT_GT(f->amount, Us(1000)) << "the read waited for the spin";
    EXPECT_EQ(f->site.function, "step");
    EXPECT_EQ(f->site.ranges, (std::vector<std::string>{"aten::index", "aten::nonzero"}));
    EXPECT_TRUE(IsDataDependentShapeRead(f->site));
    EXPECT_FALSE(IsGradScalerOverflowRead(f->site));
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_TRUE(Contains(text, "torch.where(mask, x, 0)")) << text;
  }
  EXPECT_EQ(testing::FindingsOfKind(Analyze(Fixture("recorded/data_dependent_shape.json")), FindingKind::kHiddenSync).size(), 5u);
  EXPECT_EQ(testing::FindingsOfKind(Analyze(Fixture("recorded/data_dependent_shape_where.json")), FindingKind::kHiddenSync).size(), 1u);
  // An .item() is not such a read.
  ProgramSite item;
  item.ranges = {"aten::item", "aten::_local_scalar_dense"};
  EXPECT_FALSE(IsDataDependentShapeRead(item));
}

// training_loop.py --workers 0, 2 steps recorded with emit_nvtx(): the GPU waited while the host
// made the next batch itself, and the findings say so from the DataLoader's range.
TEST(HostPlaces, TheHostWasMakingTheNextBatch) {
  Trace t = Fixture("recorded/training_loop_nvtx.json.xz");
  ASSERT_FALSE(t.ranges.empty());
  for (const HostRange& r : t.ranges) {
    // emit_nvtx()'s ", seq = N, op_id = N" is left out by the recorder.
    EXPECT_FALSE(Contains(r.name, ", op_id = ") || Contains(r.name, ", seq = ")) << r.name;
    ASSERT_LE(r.name.size(), 63u);
  }
  Analysis a = Analyze(t);
  const Finding* idle = HostWorkIdle(a);
  ASSERT_NE(idle, nullptr);
  EXPECT_GT(idle->fraction, 0.5);
  ASSERT_FALSE(idle->places.empty());
  const HostPlace& top = idle->places.front();
  EXPECT_EQ(top.site.ranges, std::vector<std::string>{"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"});
  EXPECT_GT(static_cast<double>(top.time), 0.5 * static_cast<double>(idle->places_of));
  TimeNs listed = 0;
  for (const HostPlace& p : idle->places) {
    EXPECT_GE(static_cast<double>(p.time), 0.1 * static_cast<double>(idle->places_of));
    EXPECT_LE(p.time, top.time);
    listed += p.time;
  }
  EXPECT_LE(listed, idle->places_of);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  std::string text = en.Render(t, *idle);
  EXPECT_TRUE(Contains(text, "Where the host was in these gaps: ")) << text;
  EXPECT_TRUE(Contains(text, "% inside enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")) << text;
  EXPECT_TRUE(Contains(text, "More workers (num_workers)")) << text;
  EXPECT_TRUE(Contains(zh.Render(t, *idle), "这些空闲期间主机所在之处")) << zh.Render(t, *idle);
  // Launched op by op: those gaps have places of their own (the optimizer's step, the backward).
  const Finding* launch_bound = nullptr;
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kGpuIdle && f.idle == IdleCause::kLaunchBound) launch_bound = &f;
  ASSERT_NE(launch_bound, nullptr);
  ASSERT_FALSE(launch_bound->places.empty());
  EXPECT_EQ(launch_bound->places.front().site.ranges, std::vector<std::string>{"Optimizer.step#AdamW.step"});
  EXPECT_FALSE(Contains(en.Render(t, *launch_bound), "More workers")) << en.Render(t, *launch_bound);
  // The critical path is the host's, and most of it was spent there too.
  ASSERT_FALSE(a.figures.critical_host.empty());
  const Figures::HostStretch& h = a.figures.critical_host.front();
  EXPECT_EQ(h.place.ranges, top.site.ranges);
  std::string figures = en.RenderFigures(t, a.figures);
  EXPECT_TRUE(Contains(figures, "of it inside enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")) << figures;
}

// A recording without ranges has no places, and its text says where the host was is unknown
// and how to learn it; a lab's trace (its host work is named ops) says nothing of it.
TEST(HostPlaces, NoRangesNoPlaces) {
  Trace t = Fixture("recorded/item_every_step.json");
  EXPECT_TRUE(t.ranges.empty());
  Analysis a = Analyze(t);
  for (const Finding& f : a.findings) EXPECT_TRUE(f.places.empty());
  const Finding* idle = HostWorkIdle(a);
  ASSERT_NE(idle, nullptr);
  std::string text = FindingTexts::Load("en").Render(t, *idle);
  EXPECT_TRUE(Contains(text, "Where the host was in these gaps is unknown")) << text;
  EXPECT_TRUE(Contains(text, "emit_nvtx()")) << text;

  ScenarioBuilder b("host work between launches");
  Stream s = b.CreateStream("s1");
  s.Launch("K1", Spin(Us(100)));
  b.host().Work("prepare", Us(2000));
  s.Launch("K2", Spin(Us(100)));
  Trace lab = testing::Simulate(b.Build());
  ASSERT_NE(HostWorkIdle(Analyze(lab)), nullptr);
  for (const Finding& f : Analyze(lab).findings)
    EXPECT_FALSE(Contains(FindingTexts::Load("en").Render(lab, f), "Where the host was")) << FindingTexts::Load("en").Render(lab, f);
}

// A recording with no NVTX ranges (training_loop.py --workers 0 --layers 1 --batch 32
// --log-every 10, 2 studied steps, recorded on an H100 on 2026-11-25): where the host was in the
// gaps is unknown, but the recorder read the Python stack at each call made after a millisecond
// or more outside CUDA, so the finding says where the host came back, as that and no more.
TEST(HostPlaces, ARecordingWithoutRangesSaysWhereTheHostCameBack) {
  Trace t = Fixture("recorded/training_loop_stacks.raw.jsonl.xz");
  Analysis a = Analyze(t);
  const Finding* idle = HostWorkIdle(a);
  ASSERT_NE(idle, nullptr);
  EXPECT_TRUE(idle->places.empty());
  EXPECT_LT(idle->places_known * 2, idle->places_of);  // the stacks cover the calls, not the gaps
  ASSERT_FALSE(idle->resumed_at.empty());
  ASSERT_LE(idle->resumed_at.size(), 3u);
  TimeNs listed = 0;
  for (const HostPlace& p : idle->resumed_at) {
    EXPECT_TRUE(p.site.exact_line);
    EXPECT_GE(p.time * 10, idle->places_of);
    EXPECT_LE(p.time, idle->resumed_at.front().time);
    listed += p.time;
  }
  EXPECT_LE(listed, idle->places_of);
  // Most of the run's idle time is its start: the host came back in the first step's batch,
  // pinning it (pin_memory's first cudaHostAlloc).
  const ProgramSite& first = idle->resumed_at.front().site;
  EXPECT_EQ(first.file, "training_loop.py");
  EXPECT_EQ(first.line, 55);  // inputs, labels = next(batches)
  EXPECT_EQ(first.inner_function, "pin_memory");
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  std::string text = en.Render(t, *idle);
  EXPECT_TRUE(Contains(text, "Where the host was in these gaps is unknown")) << text;
  EXPECT_TRUE(Contains(text, "It came back to CUDA after its own work at: ")) << text;
  EXPECT_TRUE(Contains(text, "in step (training_loop.py:55)")) << text;
  EXPECT_TRUE(Contains(text, "not the work itself")) << text;
  EXPECT_FALSE(Contains(text, "More workers")) << text;  // a line after the work names no cause
  EXPECT_TRUE(Contains(zh.Render(t, *idle), "回到 CUDA 的位置")) << zh.Render(t, *idle);

  // Step by step, the host made each batch (next(batches)) and came back at the copy of it.
  RangeIndex index(t);
  int steps = 0;
  for (const HostRange& r : t.ranges) {
    if (r.name != "step") continue;
    ++steps;
    std::vector<HostPlace> back = ResumedPlaces(t, a.figures, index, IdleCause::kHostWork, r.begin, r.end);
    ASSERT_FALSE(back.empty());
    EXPECT_EQ(back.front().site.line, 56) << back.front().site.function;  // inputs.cuda(non_blocking=True)
    EXPECT_GT(back.front().time, Ms(5));
  }
  EXPECT_EQ(steps, 2);
  // Outside the gaps nothing is counted.
  EXPECT_TRUE(ResumedPlaces(t, a.figures, index, IdleCause::kHostWork, 0, 1).empty());

  // The critical path's host stretch (the start, 5.2 s) says the same, as the line after the work.
  const Figures::HostStretch* longest = nullptr;
  for (const Figures::HostStretch& h : a.figures.critical_host)
    if (!longest || h.length > longest->length) longest = &h;
  ASSERT_NE(longest, nullptr);
  EXPECT_TRUE(longest->place.empty());
  EXPECT_EQ(longest->came_back.line, 55);
  EXPECT_GE(longest->came_back_time * 10, longest->length);
  EXPECT_LE(longest->came_back_time, longest->length);
  std::string path = en.RenderFigures(t, a.figures);
  EXPECT_TRUE(Contains(path, "of it outside CUDA until it came back in step (training_loop.py:55)")) << path;
  EXPECT_TRUE(Contains(zh.RenderFigures(t, a.figures), "回到 CUDA")) << zh.RenderFigures(t, a.figures);
}

// Hovering a moment of the host's own work (the GUI's tooltip): the stretch it lies in, and the
// line the host came back to CUDA at, from the stack of the call that ended the stretch.
TEST(HostPlaces, AMomentOfTheHostsOwnWorkSaysWhereItCameBack) {
  Trace t = Fixture("recorded/training_loop_stacks.raw.jsonl.xz");
  Analysis a = Analyze(t);
  RangeIndex index(t);
  ThreadCalls calls(t);
  const IdleGap* longest = nullptr;
  for (const IdleGap& g : a.figures.idle_gaps)
    if (g.cause == IdleCause::kHostWork && g.next >= 0 && (!longest || g.to - g.from > longest->to - longest->from)) longest = &g;
  ASSERT_NE(longest, nullptr);
  int thread = t.scenario.ops[longest->next].thread;
  TimeNs mid = longest->from + (longest->to - longest->from) / 2;
  Resumption back = ResumedAt(t, calls, index, thread, mid);
  ASSERT_GE(back.call, 0);
  EXPECT_LE(back.from, mid);
  EXPECT_GT(back.to, mid);
  EXPECT_EQ(back.to, t.ops[back.call].submit);
  EXPECT_GT(back.to - back.from, Ms(1000));  // the start: 3.5 s to the first batch
  EXPECT_EQ(back.site.file, "training_loop.py");
  EXPECT_EQ(back.site.line, 55);
  EXPECT_EQ(back.site.inner_function, "pin_memory");
  // Inside a call the host is in CUDA, not at its own work.
  const OpRecord& call = t.ops[back.call];
  if (call.ret > call.submit + 1) {
    EXPECT_EQ(ResumedAt(t, calls, index, thread, call.submit + 1).call, -1);
  }
  // A thread that made no call, and a moment after the last call: no place.
  EXPECT_EQ(ResumedAt(t, calls, index, 12345, mid).call, -1);
  EXPECT_TRUE(ResumedAt(t, calls, index, thread, std::numeric_limits<TimeNs>::max() - 1).site.empty());
}

}  // namespace
}  // namespace streamlab
