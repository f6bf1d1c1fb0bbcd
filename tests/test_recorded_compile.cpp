// torch.compile recorded on an H100 (examples/pytorch/compiled_step.py, 20 timed steps of a small
// MLP block in a cudaProfilerApi range): eagerly, compiled, and compiled with
// mode="reduce-overhead", whose CUDA graph trees capture the block before the range and replay
// it in it. Also the torch.profiler trace of the reduce-overhead run.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/trace/trace.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::HasNote;
using testing::ReplayedOps;

const Finding* LaunchBound(const Analysis& a) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kGpuIdle && f.idle == IdleCause::kLaunchBound) return &f;
  return nullptr;
}

int Kernels(const Trace& t, const std::string& prefix = "") {
  return static_cast<int>(std::count_if(t.scenario.ops.begin(), t.scenario.ops.end(), [&](const Op& op) {
    return op.kind == OpKind::kKernel && op.name.rfind(prefix, 0) == 0;
  }));
}

Trace Fixture(const std::string& name) { return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name)); }

// Eagerly 10 kernels a step; Inductor fuses the element-wise ops into 3 Triton kernels beside
// the GEMMs (7 a step); each launch-bound, and only there is "use a CUDA graph" the advice.
TEST(CompiledStep, EagerAndCompiledAreLaunchBoundOpByOp) {
  for (const char* name : {"compiled_step_eager.json.xz", "compiled_step_default.json"}) {
    bool eager = std::string(name).find("eager") != std::string::npos;
    Trace t = Fixture(name);
    EXPECT_EQ(Kernels(t), eager ? 200 : 140) << name;
    EXPECT_EQ(Kernels(t, "triton_"), eager ? 0 : 60) << name;
    EXPECT_TRUE(ReplayedOps(t).empty()) << name;
    Analysis a = Analyze(t);
    const Finding* f = LaunchBound(a);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_GT(f->fraction, 0.5) << name;  // 76 % and 57 % of the GPU's time
    EXPECT_EQ(f->next_to_graphs, 0) << name;
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("a CUDA graph (one launch for many ops)"), std::string::npos) << text;
    EXPECT_TRUE(testing::AnalyzedFindingsOfKind(t, FindingKind::kAddressRace).empty()) << name;
    // No sync in the range: the host's launches set the pace of the whole path (99-100 %).
    ASSERT_EQ(a.figures.critical_host.size(), 1u) << name;
    EXPECT_GT(a.figures.critical_host[0].length * 10, a.figures.critical_span * 9) << name;
  }
}

// CUDA graph trees captured the block before the range: each of its 20 replays is led back to
// that capture (7 nodes with the addresses they were captured with), after a copy of the input
// into the graph's memory. No race, nothing unchecked; the GPU still idles between steps, next
// to the replays, and the advice says a graph is already used.
TEST(CompiledStep, ReduceOverheadReplaysAreLedBackToTheirCapture) {
  for (const char* name : {"compiled_step_reduce_overhead.json.xz", "compiled_step_reduce_overhead.raw.jsonl"}) {
    Trace t = Fixture(name);
    std::vector<int> replayed = ReplayedOps(t);
    ASSERT_EQ(replayed.size(), 140u) << name;
    for (int op : replayed) EXPECT_FALSE(t.scenario.ops[op].addresses.empty()) << name << " " << op;
    EXPECT_EQ(Kernels(t), 160) << name;
    EXPECT_EQ(Kernels(t, "triton_"), 60) << name;
    EXPECT_FALSE(HasNote(t, "replays_unchecked")) << name;
    EXPECT_FALSE(HasNote(t, "replays_edited")) << name;
    EXPECT_TRUE(testing::AnalyzedFindingsOfKind(t, FindingKind::kAddressRace).empty()) << name;
    Analysis a = Analyze(t);
    const Finding* f = LaunchBound(a);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_GT(f->next_to_graphs, 0) << name;
    EXPECT_LE(f->next_to_graphs, f->count) << name;
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("already goes out as one launch"), std::string::npos) << text;
    EXPECT_EQ(text.find("a CUDA graph (one launch for many ops)"), std::string::npos) << text;
    EXPECT_NE(FindingTexts::Load("zh").Render(t, *f).find("CUDA graph"), std::string::npos);
  }
}

// Kineto names no graph node, but each kernel of a replay follows its cudaGraphLaunch: it is a
// replayed node, not a host call of its own (before, each claimed the launch's host time, up to 47 us).
TEST(CompiledStep, KinetoReplayedKernelsAreNotHostCalls) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/compiled_step_reduce_overhead.json.xz"));
  EXPECT_EQ(t.backend, "kineto");
  int nodes = 0;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    if (t.scenario.ops[i].graph < 0) continue;
    ++nodes;
    EXPECT_TRUE(t.ops[i].graph_replay) << i;
    EXPECT_NE(t.ops[i].inferred.find("replayed from a CUDA graph"), std::string::npos) << i;
  }
  EXPECT_EQ(nodes, 140);
  Analysis a = Analyze(t);
  for (const Finding& f : a.findings) {
    if (f.kind != FindingKind::kHostBlock) continue;
    EXPECT_LT(t.scenario.ops[f.op].graph, 0) << FindingTexts::Load("en").Render(t, f);
  }
  const Finding* f = LaunchBound(a);
  ASSERT_NE(f, nullptr);
  EXPECT_GT(f->next_to_graphs, 0);
}

}  // namespace
}  // namespace streamlab
