// Races in recorded CUDA graph replays. A replay's nodes carry no arguments of their own and
// run on streams CUDA picks; the recording leads each one back to the call that captured it
// (its addresses) and rebuilds the graph's edges from the capture's stream order, records and
// waits. These tests build each case from a small recorder log (tests/recorder_log.h).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analysis/analyzer.h"
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
// Fork and join inside the capture, as torch.cuda.graph records a two-branch step:
// A on 77; 88 joins through event 5 and runs B; C runs on 77 beside B; 77 joins 88 back
// through event 6 and runs D. `c_ptrs`: what C is handed.
Log ForkJoinGraph(const std::string& c_ptrs) {
  Log log;
  log.BeginCapture(77).CapturedKernel(77, "[4096]", 1).Record(77, 5).Wait(88, 5);
  log.CapturedKernel(88, "[4096]", 2).CapturedKernel(77, c_ptrs, 3).Record(88, 6).Wait(77, 6);
  log.CapturedKernel(77, "[4096,8192]", 4).EndCapture(77).Instantiate({1, 2, 3, 4});
  return log;
}

TEST(RecordedGraphRaces, ReplayedNodesTakeTheirCapturesAddressesAndEdges) {
  Log log = ForkJoinGraph("[8192]");
  log.Replay(77, {{1, 77}, {2, 150}, {3, 77}, {4, 77}}).Addresses(4);
  Trace t = log.Convert();
  std::vector<int> nodes = ReplayedOps(t);
  ASSERT_EQ(nodes.size(), 4u);
  const std::vector<Op>& ops = t.scenario.ops;
  int launch = ops[nodes[0]].graph;
  ASSERT_GE(launch, 0);
  EXPECT_EQ(ops[launch].name, "cudaGraphLaunch");
  EXPECT_EQ(t.scenario.streams[ops[launch].other_stream].name, "stream 13");
  for (int n : nodes) EXPECT_EQ(ops[n].graph, launch);
  EXPECT_TRUE(ops[nodes[0]].graph_after.empty());                     // A: the graph's root
  EXPECT_EQ(ops[nodes[1]].graph_after, std::vector<int>{nodes[0]});  // B after A (event 5)
  EXPECT_EQ(ops[nodes[2]].graph_after, std::vector<int>{nodes[0]});  // C after A (stream 77)
  EXPECT_EQ(ops[nodes[3]].graph_after, (std::vector<int>{nodes[1], nodes[2]}));  // D after both
  ASSERT_EQ(ops[nodes[1]].addresses.size(), 1u);
  EXPECT_EQ(ops[nodes[1]].addresses[0].at, 4096u);
  EXPECT_EQ(ops[nodes[3]].addresses.size(), 2u);
  EXPECT_NE(t.ops[nodes[1]].inferred.find("rebuilt from its capture"), std::string::npos);
  // B ran on a stream of the graph's own, yet A before it and D after it are ordered by the
  // graph: no race among nodes that share 4096.
  EXPECT_TRUE(Races(t).empty());
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));
}

TEST(RecordedGraphRaces, TwoBranchesOfOneGraphHandedOneAddressRace) {
  Log log = ForkJoinGraph("[4096]");  // C, beside B, is handed B's address too
  log.Replay(77, {{1, 77}, {2, 150}, {3, 77}, {4, 77}}).Addresses(4);
  Trace t = log.Convert();
  std::vector<int> nodes = ReplayedOps(t);
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].op, nodes[1]);
  EXPECT_EQ(races[0].other, nodes[2]);
}

// A memset node writes 4096 on a stream of the graph's own; stream 88 reads 4096 after the
// launch. Only what orders the launch stream's later work orders it.
Log MemsetGraph() {
  Log log;
  log.BeginCapture(77).CapturedKernel(77, "[8192]", 1).CapturedMemset(77, 4096, 2).EndCapture(77);
  log.Instantiate({1, 2});
  return log;
}

TEST(RecordedGraphRaces, WorkAfterTheLaunchIsOrderedOnlyThroughTheLaunchStream) {
  Log unordered = MemsetGraph();
  unordered.Replay(77, {{1, 77}, {2, 150, true}}).Kernel(88, "[4096]").Addresses(2);
  std::vector<Finding> races = Races(unordered.Convert());
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].severity, Severity::kWarning);  // the memset writes there
  // An event recorded on the launch stream after the launch is reached only once every
  // node ran, also the node on stream 150; so is a synchronize of the launch stream.
  Log waited = MemsetGraph();
  waited.Replay(77, {{1, 77}, {2, 150, true}}).Record(77, 7).Wait(88, 7).Kernel(88, "[4096]").Addresses(2);
  EXPECT_TRUE(Races(waited.Convert()).empty());
  Log synced = MemsetGraph();
  synced.Replay(77, {{1, 77}, {2, 150, true}}).SyncStream(77).Kernel(88, "[4096]").Addresses(2);
  EXPECT_TRUE(Races(synced.Convert()).empty());
}

TEST(RecordedGraphRaces, NodesStartAfterWhatTheLaunchStreamWaitedFor) {
  Log waited = MemsetGraph();
  waited.Kernel(88, "[4096]").Record(88, 5).Wait(77, 5).Replay(77, {{1, 77}, {2, 150, true}}).Addresses(2);
  EXPECT_TRUE(Races(waited.Convert()).empty());
  Log unordered = MemsetGraph();
  unordered.Kernel(88, "[4096]").Replay(77, {{1, 77}, {2, 150, true}}).Addresses(2);
  EXPECT_EQ(Races(unordered.Convert()).size(), 1u);
  // A second launch into the same stream starts after all of the first one's nodes, wherever
  // they ran.
  Log twice = MemsetGraph();
  twice.Replay(77, {{1, 77}, {2, 150, true}}).Replay(77, {{1, 77}, {2, 151, true}}).Addresses(2);
  EXPECT_TRUE(Races(twice.Convert()).empty());
}

// The legacy default stream and a blocking stream wait for each other's work, a graph launch's
// nodes included, wherever they ran.
TEST(RecordedGraphRaces, TheLegacyBarrierCoversALaunchsNodes) {
  Log into_blocking = MemsetGraph();
  into_blocking.CreateBlocking(66).Replay(66, {{1, 66}, {2, 150, true}}).Kernel(0, "[4096]").Addresses(2);
  EXPECT_TRUE(Races(into_blocking.Convert()).empty());
  Log into_legacy = MemsetGraph();
  into_legacy.CreateBlocking(66).Replay(0, {{1, 0}, {2, 150, true}}).Kernel(66, "[4096]").Addresses(2);
  EXPECT_TRUE(Races(into_legacy.Convert()).empty());
  Log non_blocking = MemsetGraph();
  non_blocking.Replay(0, {{1, 0}, {2, 150, true}}).Kernel(88, "[4096]").Addresses(2);
  EXPECT_EQ(Races(non_blocking.Convert()).size(), 1u);
}

// After a call that may have changed a graph, its captured arguments and edges may be stale:
// replayed nodes are left unchecked, and the note names the call.
TEST(RecordedGraphRaces, AnEditedGraphIsNotChecked) {
  Log log = MemsetGraph();
  log.GraphEdit("cudaGraphExecKernelNodeSetParams").Replay(77, {{1, 77}, {2, 150, true}}).Kernel(88, "[4096]");
  Trace t = log.Addresses(2).Convert();
  EXPECT_TRUE(Races(t).empty());
  for (int n : ReplayedOps(t)) EXPECT_TRUE(t.scenario.ops[n].addresses.empty());
  auto note = std::find_if(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "replays_edited"; });
  ASSERT_NE(note, t.notes.end());
  EXPECT_NE(note->text.find("cudaGraphExecKernelNodeSetParams"), std::string::npos);
  EXPECT_FALSE(FindingTexts::Load("zh").RenderNote(*note).empty());
}

// A replay whose capture the recording did not see (built node by node, or captured before a
// capture range by an older recorder) has nothing to compare: the note counts its nodes.
TEST(RecordedGraphRaces, ReplaysOfAnUnseenCaptureAreCounted) {
  Log log;
  log.Instantiate({1, 2}).Replay(77, {{1, 77}, {2, 150, true}}).Kernel(88, "[4096]").Addresses(1);
  Trace t = log.Convert();
  EXPECT_TRUE(Races(t).empty());
  auto note = std::find_if(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "replays_unchecked"; });
  ASSERT_NE(note, t.notes.end());
  EXPECT_NE(note->text.find("2 ops replayed"), std::string::npos) << note->text;
}

// Under --capture-range the recorder logs every call while a capture is open, also before the
// range: a graph captured in the warm-up and replayed in the range keeps its addresses and
// edges, and the capture itself makes no op of the trace.
TEST(RecordedGraphRaces, AGraphCapturedBeforeTheRangeIsCheckedInIt) {
  Log log = ForkJoinGraph("[4096]");
  log.Pause(50000).RangeStart();
  log.Replay(77, {{1, 77}, {2, 150}, {3, 77}, {4, 77}}).Kernel(99, "[8192]").Addresses(5);
  Trace t = log.Convert();
  std::vector<int> nodes = ReplayedOps(t);
  ASSERT_EQ(nodes.size(), 4u);
  for (const Op& op : t.scenario.ops) EXPECT_EQ(op.name.find("captured into a CUDA graph"), std::string::npos) << op.name;
  EXPECT_EQ(t.scenario.ops[nodes[3]].graph_after, (std::vector<int>{nodes[1], nodes[2]}));
  ASSERT_EQ(t.scenario.ops[nodes[3]].addresses.size(), 2u);
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 2u);  // B against C (both handed 4096), D's 8192 against the kernel on 99
  EXPECT_EQ(races[0].op, nodes[1]);
  EXPECT_EQ(races[0].other, nodes[2]);
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));
  // An older recorder logged nothing before the range: the same replay is left unchecked.
  Log older;
  older.Instantiate({1, 2, 3, 4}).Pause(50000).RangeStart();
  older.Replay(77, {{1, 77}, {2, 150}, {3, 77}, {4, 77}}).Kernel(99, "[8192]").Addresses(5);
  Trace unchecked = older.Convert();
  EXPECT_TRUE(Races(unchecked).empty());
  EXPECT_TRUE(HasNote(unchecked, "replays_unchecked"));
}

TEST(RecordedGraphRaces, EdgesSurviveASavedTraceAndBadOnesAreRefused) {
  Log log = ForkJoinGraph("[4096]");
  log.Replay(77, {{1, 77}, {2, 150}, {3, 77}, {4, 77}}).Kernel(99, "[4096]").Addresses(5);
  Trace t = log.Convert();
  std::string saved = TraceToJson(t).dump();
  EXPECT_NE(saved.find("\"graph_after\""), std::string::npos);
  for (const Trace& back : {TraceFromJsonText(saved, "saved.json"), TraceFromJson(ParseJson(saved, "saved.json"), "saved.json")}) {
    for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
      EXPECT_EQ(back.scenario.ops[i].graph, t.scenario.ops[i].graph) << i;
      EXPECT_EQ(back.scenario.ops[i].graph_after, t.scenario.ops[i].graph_after) << i;
      EXPECT_EQ(back.scenario.ops[i].other_stream, t.scenario.ops[i].other_stream) << i;
    }
    EXPECT_EQ(Races(back).size(), Races(t).size());
  }
  size_t at = saved.find("\"graph_after\":[");
  ASSERT_NE(at, std::string::npos);
  std::string forward = saved;
  forward.insert(at + 15, "99999,");  // a later op: edges only point back to the same launch's nodes
  EXPECT_NE(testing::InputErrorOf([&] { TraceFromJsonText(forward, "bad.json"); }).find("graph_after"), std::string::npos);
  std::string text = saved;
  text.insert(at + 15, "\"x\",");
  EXPECT_NE(testing::InputErrorOf([&] { TraceFromJsonText(text, "bad.json"); }).find("graph_after"), std::string::npos);
}

// examples/pytorch/graph_replay.py recorded on an H100 (torch 2.11): a two-branch step captured
// with torch.cuda.graph and replayed three times on a stream of the program's own, the main
// stream writing the static input before and reading the static output after each replay.
TEST(RecordedGraphRaces, TheGraphReplayExampleRecordedOnAnH100) {
  auto load = [](const std::string& name) {
    return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name + ".json"));
  };
  auto count = [](const std::vector<Finding>& races, Severity severity) {
    return std::count_if(races.begin(), races.end(), [&](const Finding& f) { return f.severity == severity; });
  };
  // As written: no warning. The notes are pairs of GEMMs that both read x: the eager warm-up's
  // two branches, and each replay's (they run side by side in the graph too).
  Trace ok = load("graph_replay");
  std::vector<Finding> races = Races(ok);
  EXPECT_EQ(count(races, Severity::kWarning), 0);
  EXPECT_EQ(count(races, Severity::kNote), 5);
  for (const Finding& f : races) {
    EXPECT_EQ(ok.scenario.ops[f.op].kind, OpKind::kKernel);
    EXPECT_EQ(ok.scenario.ops[f.other].kind, OpKind::kKernel);
  }
  // Each replayed node was handed its captured call's addresses.
  std::vector<int> nodes = ReplayedOps(ok);
  EXPECT_EQ(nodes.size(), 15u);
  for (int n : nodes) EXPECT_FALSE(ok.scenario.ops[n].addresses.empty()) << n;
  // Without the graph's edges, the sum's kernel and the branch's GEMM (both handed b) would
  // look unordered in each replay: three more notes.
  Trace no_edges = ok;
  for (Op& op : no_edges.scenario.ops) op.graph_after.clear();
  EXPECT_EQ(Races(no_edges).size(), races.size() + 3);
  // Without the main stream's wait: the next input's copy overwrites x while both branches'
  // GEMMs of the replay before may still read it (2 steps x 2), and the main stream's sum
  // reads the output the replay's copy writes (3 steps). Each pairs a replayed node with
  // the main (legacy default) stream.
  Trace no_wait = load("graph_replay_without_wait");
  races = Races(no_wait);
  EXPECT_EQ(count(races, Severity::kWarning), 7);
  for (const Finding& f : races) {
    if (f.severity != Severity::kWarning) continue;
    const Op& a = no_wait.scenario.ops[f.op];
    const Op& b = no_wait.scenario.ops[f.other];
    EXPECT_NE(a.graph >= 0, b.graph >= 0);
    const Op& main = a.graph >= 0 ? b : a;
    EXPECT_EQ(no_wait.scenario.streams[main.stream].kind, StreamKind::kLegacyDefault);
    // A replayed node against an op outside the graph: a wait between streams fixes it.
    std::string text = FindingTexts::Load("en").Render(no_wait, f);
    EXPECT_NE(text.find("Make one stream wait for the other"), std::string::npos);
    EXPECT_EQ(text.find("nodes of one CUDA graph"), std::string::npos);
  }
  // The same program with the replays alone in a profiler range (--range, recorded with
  // --capture-range cudaProfilerApi): the graph was captured before the range, and its
  // replays are still checked. The warm-up's note is outside the range.
  for (const auto& [name, warnings] : {std::pair{"graph_replay_range", 0}, std::pair{"graph_replay_range_without_wait", 7}}) {
    Trace ranged = load(name);
    races = Races(ranged);
    EXPECT_EQ(count(races, Severity::kWarning), warnings) << name;
    EXPECT_EQ(count(races, Severity::kNote), 3) << name;
    nodes = ReplayedOps(ranged);
    EXPECT_EQ(nodes.size(), 15u) << name;
    for (int n : nodes) EXPECT_FALSE(ranged.scenario.ops[n].addresses.empty()) << name << " " << n;
    EXPECT_FALSE(HasNote(ranged, "replays_unchecked")) << name;
  }
}

// A replayed node has its launch call's times, but no host call of its own: the host was not
// "blocked in" a kernel of the graph, nor did the launch that submitted a node delay it.
TEST(RecordedGraphRaces, AReplayedNodeIsNeverTheHostCallThatHeldTheHost) {
  for (const char* name : {"graph_replay", "graph_replay_without_wait", "graph_replay_range"}) {
    Trace t = LoadTraceFile(testing::SourcePath(std::string("tests/fixtures/recorded/") + name + ".json"));
    int host_late = 0;
    for (const Finding& f : testing::AnalyzedFindingsOfKind(t, FindingKind::kStartDelay)) {
      if (f.cause != Cause::kHostLate) continue;
      ++host_late;
      ASSERT_FALSE(f.because.empty());
      EXPECT_FALSE(t.ops[f.because[0]].graph_replay) << name << ": " << t.scenario.ops[f.because[0]].name;
      EXPECT_NE(f.because[0], t.scenario.ops[f.op].graph) << name << ": op " << f.op << " held by its own launch";
    }
    EXPECT_GT(host_late, 0) << name;  // the check above ran
  }
}

}  // namespace
}  // namespace streamlab
