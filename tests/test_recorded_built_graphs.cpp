// Races in replays of CUDA graphs built by hand (cudaGraphAddKernelNode, cudaGraphAddMemsetNode,
// cudaGraphAddDependencies), as raw CUDA programs build them instead of capturing a stream:
// each replayed node takes the addresses and edges the recorder read from the call that added
// it, and what the recorder could not read leaves replays unchecked, never guessed.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analysis/findings_text.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/recorder_log.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::HasNote;
using testing::Log;
using testing::ReplayedOps;

using testing::Races;
// A diamond built by hand: a memset of 4096 (node 1); two kernels after it, B handed 4096
// (node 2) and C handed 8192 (node 3); D after both (node 4, its edge from C added by
// cudaGraphAddDependencies). `d_after_c`: whether that edge is added.
Log Diamond(bool d_after_c) {
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1}).BuiltKernel(3, "[8192]", {1});
  log.BuiltKernel(4, "[4096,8192]", {2});
  if (d_after_c) log.BuiltEdge(3, 4);
  return log;
}

Log& ReplayDiamond(Log& log) {
  log.Instantiate({1, 2, 3, 4});
  return log.Replay(77, {{1, 77, true}, {2, 77}, {3, 150}, {4, 77}}).Addresses(3);
}

TEST(RecordedBuiltGraphs, ReplayedNodesTakeTheAddressesAndEdgesTheProgramGaveThem) {
  Log log = Diamond(true);
  Trace t = ReplayDiamond(log).Convert();
  std::vector<int> nodes = ReplayedOps(t);
  ASSERT_EQ(nodes.size(), 4u);
  const std::vector<Op>& ops = t.scenario.ops;
  EXPECT_TRUE(ops[nodes[0]].graph_after.empty());
  EXPECT_EQ(ops[nodes[1]].graph_after, std::vector<int>{nodes[0]});
  EXPECT_EQ(ops[nodes[2]].graph_after, std::vector<int>{nodes[0]});
  EXPECT_EQ(ops[nodes[3]].graph_after, (std::vector<int>{nodes[1], nodes[2]}));
  ASSERT_EQ(ops[nodes[0]].addresses.size(), 1u);
  EXPECT_EQ(ops[nodes[0]].addresses[0].use, AddressUse::kWrite);  // the memset's destination
  EXPECT_EQ(ops[nodes[3]].addresses.size(), 2u);
  EXPECT_NE(t.ops[nodes[2]].inferred.find("built node by node"), std::string::npos);
  EXPECT_TRUE(Races(t).empty());
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));
  EXPECT_FALSE(HasNote(t, "replays_edited"));
}

TEST(RecordedBuiltGraphs, AMissingEdgeIsARace) {
  // B on the graph's own stream beside the memset it should follow: node 2 built with no
  // edge from node 1.
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {}).Instantiate({1, 2});
  log.Replay(77, {{1, 77, true}, {2, 150}}).Addresses(1);
  Trace t = log.Convert();
  std::vector<int> nodes = ReplayedOps(t);
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(std::minmax(races[0].op, races[0].other), std::minmax(nodes[0], nodes[1]));
  EXPECT_EQ(races[0].severity, Severity::kWarning);  // the memset writes what the kernel is handed
  // The diamond without D's edge from C: D and C share 8192, both kernels (a note, not a warning).
  Log diamond = Diamond(false);
  EXPECT_EQ(Races(ReplayDiamond(diamond).Convert()).size(), 1u);
}

TEST(RecordedBuiltGraphs, WhatTheRecorderCouldNotReadIsNotChecked) {
  // A building call with nothing read under it (a child graph, a programmatic edge).
  Log unread = Diamond(true);
  unread.UnreadBuild("cudaGraphAddDependencies");
  Trace t = ReplayDiamond(unread).Convert();
  EXPECT_TRUE(HasNote(t, "replays_edited"));
  for (int n : ReplayedOps(t)) EXPECT_TRUE(t.scenario.ops[n].addresses.empty());

  // An edge added after instantiation is not in the instance made before it (the race is
  // there), and is in one made after it.
  Log late;
  late.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {}).Instantiate({1, 2}).BuiltEdge(1, 2);
  late.Replay(77, {{1, 77, true}, {2, 150}}).Addresses(1);
  Trace t2 = late.Convert();
  EXPECT_FALSE(HasNote(t2, "replays_edited"));
  EXPECT_EQ(Races(t2).size(), 1u);
  late.Instantiate({1, 2}, 2000).Replay(88, {{1, 88, true}, {2, 160}}, 0, 2000);
  Trace t2b = late.Convert();
  std::vector<int> both = ReplayedOps(t2b);
  ASSERT_EQ(both.size(), 4u);
  EXPECT_TRUE(t2b.scenario.ops[both[1]].graph_after.empty());
  EXPECT_EQ(t2b.scenario.ops[both[3]].graph_after, std::vector<int>{both[2]});

  // A kernel node whose arguments were not read keeps its edges and is counted unchecked.
  Log args;
  args.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[]", {1}, true).Instantiate({1, 2});
  args.Replay(77, {{1, 77, true}, {2, 150}}).Addresses(1);
  Trace t3 = args.Convert();
  std::vector<int> nodes = ReplayedOps(t3);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(t3.scenario.ops[nodes[1]].graph_after, std::vector<int>{nodes[0]});
  EXPECT_TRUE(t3.scenario.ops[nodes[1]].addresses.empty());
  EXPECT_TRUE(HasNote(t3, "replays_unchecked"));
  EXPECT_FALSE(HasNote(t3, "replays_edited"));
}

// Two branches captured with nothing between them (a memset of 4096 on 77, a kernel handed
// 4096 on 88), then, before instantiation, an edge added by hand between them.
TEST(RecordedBuiltGraphs, AnEdgeAddedToACapturedGraphOrdersItsNodes) {
  auto captured = [](bool add_edge) {
    Log log;
    log.BeginCapture(77).Record(77, 5).Wait(88, 5).CapturedMemset(77, 4096, 1).CapturedKernel(88, "[4096]", 2);
    log.Record(88, 6).Wait(77, 6).EndCapture(77);
    if (add_edge) log.BuiltEdge(1, 2);
    log.Instantiate({1, 2}).Replay(77, {{1, 77, true}, {2, 150}}).Addresses(1);
    return log.Convert();
  };
  EXPECT_EQ(Races(captured(false)).size(), 1u);
  Trace t = captured(true);
  EXPECT_TRUE(Races(t).empty());
  std::vector<int> nodes = ReplayedOps(t);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(t.scenario.ops[nodes[1]].graph_after, std::vector<int>{nodes[0]});
}

// A kernel node handed more than a record's 8 addresses: the rest join its parameters.
TEST(RecordedBuiltGraphs, AKernelNodeHandedManyAddressesKeepsThemAll) {
  Log log;
  log.BuiltMemset(1, 40960, {}).BuiltKernel(2, "[4096,8192,12288,16384,20480,24576,28672,32768]", {}, false, "[36864,40960]");
  log.Instantiate({1, 2}).Replay(77, {{1, 77, true}, {2, 150}}).Addresses(0);
  Trace t = log.Convert();
  std::vector<int> nodes = ReplayedOps(t);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(t.scenario.ops[nodes[1]].addresses.size(), 10u);
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);  // the missing edge, on the tenth address
  EXPECT_EQ(races[0].address, 40960u);
}

TEST(RecordedBuiltGraphs, AGraphBuiltBeforeTheRangeIsCheckedInIt) {
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {}).Instantiate({1, 2}).RangeStart();
  log.Replay(77, {{1, 77, true}, {2, 150}}).Addresses(1);
  Trace t = log.Convert();
  ASSERT_EQ(ReplayedOps(t).size(), 2u);
  EXPECT_EQ(Races(t).size(), 1u);  // the missing edge, though both nodes were built before the range
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));
}

// examples/cuda/graph_by_hand.cu recorded on an H100: an upload, two kernels on it, an empty
// join, a memset, a sum and a download, built with the runtime's cudaGraphAdd* calls and
// replayed 3 times. With --missing-edge the square kernel lacks its edge from the upload; the
// program then computed a wrong result in all 3 replays (96% of the elements). With --range
// (recorded with --capture-range cudaProfilerApi) the graph was built before the range and
// only the replays are in it: the same findings.
TEST(RecordedBuiltGraphs, TheHandBuiltExampleRecordedOnAnH100) {
  auto load = [](const std::string& name) {
    return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name + ".json"));
  };
  auto warnings = [](const std::vector<Finding>& races) {
    return std::count_if(races.begin(), races.end(), [](const Finding& f) { return f.severity == Severity::kWarning; });
  };
  for (const char* name :
       {"graph_by_hand", "graph_by_hand_missing_edge", "graph_by_hand_range", "graph_by_hand_range_missing_edge"}) {
    Trace t = load(name);
    std::vector<int> nodes = ReplayedOps(t);
    ASSERT_EQ(nodes.size(), 18u) << name;  // 6 nodes that run work (the join runs none), 3 replays
    for (int n : nodes) EXPECT_FALSE(t.scenario.ops[n].addresses.empty()) << name << " " << n;
    // The sum comes after both branches through the empty join, and after the memset through
    // the edge cudaGraphAddDependencies added.
    for (int n : nodes) {
      const Op& op = t.scenario.ops[n];
      if (op.name != "AddInto") continue;
      std::vector<std::string> before;
      for (int b : op.graph_after) {
        const Op& prior = t.scenario.ops[b];
        before.push_back(prior.kind == OpKind::kMemset ? "(memset)" : prior.name);
      }
      std::sort(before.begin(), before.end());
      EXPECT_EQ(before, (std::vector<std::string>{"(memset)", "Square", "Triple"})) << name;
    }
    std::vector<Finding> races = Races(t);
    bool missing = std::string(name).ends_with("_missing_edge");
    EXPECT_EQ(warnings(races), missing ? 3 : 0) << name;
    // Both branches are handed x and run side by side: a note per replay (they only read it).
    EXPECT_EQ(races.size() - warnings(races), 3u) << name;
    FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
    for (const Finding& f : races) {
      // Two nodes of one replay: the fix is an edge in the graph, not a wait between streams.
      EXPECT_NE(en.Render(t, f).find("Both are nodes of one CUDA graph, replayed by cudaGraphLaunch on stream 16"),
                std::string::npos);
      EXPECT_NE(zh.Render(t, f).find("由 stream 16 上的 cudaGraphLaunch 重放"), std::string::npos);
      if (f.severity != Severity::kWarning) continue;
      EXPECT_NE(en.Render(t, f).find("make one node a dependency of the other"), std::string::npos);
      // The upload against the kernel that reads what it writes.
      std::vector<OpKind> pair{t.scenario.ops[f.op].kind, t.scenario.ops[f.other].kind};
      EXPECT_EQ(std::count(pair.begin(), pair.end(), OpKind::kMemcpy), 1);
      for (int op : {f.op, f.other}) {
        if (t.scenario.ops[op].kind == OpKind::kKernel) {
          EXPECT_EQ(t.scenario.ops[op].name, "Square");
        }
      }
    }
    EXPECT_FALSE(HasNote(t, "replays_unchecked")) << name;
    EXPECT_FALSE(HasNote(t, "replays_edited")) << name;
  }
}

}  // namespace
}  // namespace streamlab
