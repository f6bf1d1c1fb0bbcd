// Graphs changed after they were made: a node's parameters set again for one instance
// (cudaGraphExec*SetParams) or for the graph (instances made later take them), edges removed,
// and changes the recorder could not read. Each replay is checked with what its own instance
// ran; a change not read leaves unchecked only the replays it may reach.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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
constexpr uint64_t kA = 0xa000, kB = 0xb000;  // two instances' handles

// A memset of 4096 (node 1), then a kernel handed 4096 (node 2), instantiated twice: A (copies
// numbered +1000) and B (+2000).
Log TwoInstances() {
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1});
  log.Instantiate({1, 2}, 1000).Instantiate({1, 2}, 2000);
  return log;
}

// A on stream 77 and B on stream 88, nothing ordering the two launches.
Trace ReplayBoth(Log& log) {
  log.Replay(77, {{1, 77, true}, {2, 77}}, kA, 1000).Replay(88, {{1, 88, true}, {2, 88}}, kB, 2000).Addresses(2);
  return log.Convert();
}

const Op& Node(const Trace& t, int i) { return t.scenario.ops[ReplayedOps(t)[i]]; }

TEST(RecordedGraphEdits, AnInstanceSetToItsOwnBuffersRacesWithNothing) {
  Log shared = TwoInstances();
  // Both instances write 4096: A's and B's memsets race (two writes), and each kernel with the
  // other's memset.
  EXPECT_FALSE(Races(ReplayBoth(shared)).empty());

  Log own = TwoInstances();
  own.SetMemset(1, 8192, kB).SetKernel(2, "[8192]", kB);
  Trace t = ReplayBoth(own);
  EXPECT_TRUE(Races(t).empty());
  ASSERT_EQ(ReplayedOps(t).size(), 4u);
  EXPECT_EQ(Node(t, 0).addresses[0].at, 4096u);  // A keeps what it was built with
  EXPECT_EQ(Node(t, 2).addresses[0].at, 8192u);
  EXPECT_EQ(Node(t, 3).addresses[0].at, 8192u);
  EXPECT_EQ(Node(t, 3).graph_after, std::vector<int>{ReplayedOps(t)[2]});  // the edges stay
  EXPECT_FALSE(HasNote(t, "replays_edited"));
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));

  // The kernel forgotten: B's kernel is still handed 4096, which A's ops use; B's memset is not
  // in a race any more.
  Log forgot = TwoInstances();
  forgot.SetMemset(1, 8192, kB);
  Trace t2 = ReplayBoth(forgot);
  std::vector<Finding> races = Races(t2);
  std::vector<int> ops = ReplayedOps(t2);
  ASSERT_FALSE(races.empty());
  for (const Finding& f : races) EXPECT_TRUE(f.op == ops[3] || f.other == ops[3]);
}

TEST(RecordedGraphEdits, AGraphSetAfterAnInstanceReachesOnlyInstancesMadeLater) {
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1}).Instantiate({1, 2}, 1000);
  log.SetMemset(1, 8192).SetKernel(2, "[8192]").Instantiate({1, 2}, 2000);
  Trace t = ReplayBoth(log);
  EXPECT_TRUE(Races(t).empty());
  EXPECT_EQ(Node(t, 0).addresses[0].at, 4096u);
  EXPECT_EQ(Node(t, 2).addresses[0].at, 8192u);
  // Set before any instance: both take it, and share 8192 again.
  Log early;
  early.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1}).SetMemset(1, 8192).SetKernel(2, "[8192]");
  early.Instantiate({1, 2}, 1000).Instantiate({1, 2}, 2000);
  Trace t2 = ReplayBoth(early);
  EXPECT_EQ(Node(t2, 0).addresses[0].at, 8192u);
  EXPECT_FALSE(Races(t2).empty());
}

TEST(RecordedGraphEdits, AnInstanceSetAfterALaunchKeepsThatLaunchsArguments) {
  Log log = TwoInstances();
  log.Replay(77, {{1, 77, true}, {2, 77}}, kA, 1000).SetKernel(2, "[8192]", kA);
  log.Replay(77, {{1, 77, true}, {2, 77}}, kA, 1000).Addresses(2);
  Trace t = log.Convert();
  ASSERT_EQ(ReplayedOps(t).size(), 4u);
  EXPECT_EQ(Node(t, 1).addresses[0].at, 4096u);
  EXPECT_EQ(Node(t, 3).addresses[0].at, 8192u);
}

TEST(RecordedGraphEdits, AnUnreadChangeOfOneInstanceLeavesOnlyItsLaterReplaysUnchecked) {
  Log log = TwoInstances();
  log.Replay(88, {{1, 88, true}, {2, 88}}, kB, 2000);  // before the change: checked
  log.InstanceEdit("cudaGraphExecUpdate", kB);
  Trace t = ReplayBoth(log);
  std::vector<int> ops = ReplayedOps(t);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_FALSE(t.scenario.ops[ops[0]].addresses.empty());
  EXPECT_FALSE(t.scenario.ops[ops[2]].addresses.empty());  // A, after the change of B
  EXPECT_TRUE(t.scenario.ops[ops[4]].addresses.empty());
  EXPECT_TRUE(t.scenario.ops[ops[5]].addresses.empty());
  auto note = std::find_if(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "replays_edited"; });
  ASSERT_NE(note, t.notes.end());
  EXPECT_EQ(note->vars.at("n"), "2");
  EXPECT_EQ(note->vars.at("call"), "cudaGraphExecUpdate");
  EXPECT_NE(note->text.find("2 ops replayed"), std::string::npos);

  // A node enabled or disabled changes nothing the check uses.
  Log enabled = TwoInstances();
  enabled.InstanceEdit("cudaGraphNodeSetEnabled", kB, true);
  EXPECT_FALSE(HasNote(ReplayBoth(enabled), "replays_edited"));

  // An instance made later with the same handle (the old one destroyed) is not the one changed.
  Log reused;
  reused.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1}).Instantiate({1, 2}, 1000);
  reused.InstanceEdit("cudaGraphExecUpdate", kB).Instantiate({1, 2}, 2000);
  EXPECT_FALSE(HasNote(ReplayBoth(reused), "replays_edited"));
}

// cudaGraphExecUpdate as a recorder that logs CUPTI's GRAPH_NODE_UPDATED pairs writes it: an
// instance updated from a second capture of the same shape runs that capture's addresses from
// then on, with its own edges; the replay before the update keeps the first capture's.
TEST(RecordedGraphEdits, AnInstanceUpdatedFromAnotherCaptureRunsItsAddresses) {
  auto capture = [](Log& log, uint64_t left, uint64_t right, uint64_t node, int event) {
    log.BeginCapture(77).Record(77, event).Wait(88, event).CapturedMemset(77, left, node);
    log.CapturedMemset(88, right, node + 1).Record(88, event + 1).Wait(77, event + 1).EndCapture(77);
  };
  Log log;
  capture(log, 4096, 8192, 1, 5);  // two branches writing apart: no race
  log.Instantiate({1, 2});
  log.Replay(77, {{1, 77, true}, {2, 150, true}}, kA);
  capture(log, 4096, 4096, 11, 7);  // the same shape, both branches writing 4096
  log.ExecUpdate(kA, {{1001, 11}, {1002, 12}});
  log.Replay(77, {{1, 77, true}, {2, 150, true}}, kA).Addresses(4);
  Trace t = log.Convert();
  std::vector<int> ops = ReplayedOps(t);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(Node(t, 1).addresses[0].at, 8192u);  // before the update
  EXPECT_EQ(Node(t, 2).addresses[0].at, 4096u);
  EXPECT_EQ(Node(t, 3).addresses[0].at, 4096u);  // after it: the second capture's
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);  // the updated instance's two branches, and nothing before
  EXPECT_EQ(races[0].severity, Severity::kWarning);
  std::vector<int> pair{races[0].op, races[0].other};
  std::sort(pair.begin(), pair.end());
  EXPECT_EQ(pair, (std::vector<int>{ops[2], ops[3]}));
  EXPECT_FALSE(HasNote(t, "replays_edited"));
  EXPECT_FALSE(HasNote(t, "replays_unchecked"));

  // Logged by an older recorder (the update, not its pairs): the replays after it unchecked.
  Log old;
  capture(old, 4096, 8192, 1, 5);
  old.Instantiate({1, 2});
  capture(old, 4096, 4096, 11, 7);
  old.InstanceEdit("cudaGraphExecUpdate", kA);
  old.Replay(77, {{1, 77, true}, {2, 150, true}}, kA).Addresses(2);
  Trace unread = old.Convert();
  EXPECT_TRUE(Races(unread).empty());
  EXPECT_TRUE(HasNote(unread, "replays_edited"));

  // An update that failed changed nothing, whatever pairs were named before it failed: its
  // pairs are not taken, and the replays after it are not checked.
  Log failed;
  capture(failed, 4096, 8192, 1, 5);
  failed.Instantiate({1, 2});
  capture(failed, 4096, 4096, 11, 7);
  failed.ExecUpdate(kA, {{1001, 11}, {1002, 12}}, true);
  failed.Replay(77, {{1, 77, true}, {2, 150, true}}, kA).Addresses(2);
  Trace refused = failed.Convert();
  EXPECT_TRUE(Races(refused).empty());
  EXPECT_TRUE(HasNote(refused, "replays_edited"));
}

TEST(RecordedGraphEdits, AChangeNotReadLeavesTheReplaysAfterItUnchecked) {
  Log log = TwoInstances();
  log.Replay(77, {{1, 77, true}, {2, 77}}, kA, 1000).GraphEdit("cudaGraphKernelNodeSetAttribute");
  log.Replay(77, {{1, 77, true}, {2, 77}}, kA, 1000).Addresses(2);
  Trace t = log.Convert();
  std::vector<int> ops = ReplayedOps(t);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_FALSE(t.scenario.ops[ops[1]].addresses.empty());
  EXPECT_TRUE(t.scenario.ops[ops[3]].addresses.empty());
  auto note = std::find_if(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "replays_edited"; });
  ASSERT_NE(note, t.notes.end());
  EXPECT_EQ(note->vars.at("n"), "2");
}

TEST(RecordedGraphEdits, AnEdgeRemovedReachesOnlyInstancesMadeLater) {
  Log log;
  log.BuiltMemset(1, 4096, {}).BuiltKernel(2, "[4096]", {1}).Instantiate({1, 2}, 1000);
  log.RemovedEdge(1, 2).Instantiate({1, 2}, 2000);
  log.Replay(77, {{1, 77, true}, {2, 150}}, kA, 1000).Replay(88, {{1, 88, true}, {2, 160}}, kB, 2000).Addresses(2);
  Trace t = log.Convert();
  std::vector<int> ops = ReplayedOps(t);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(t.scenario.ops[ops[1]].graph_after, std::vector<int>{ops[0]});
  EXPECT_TRUE(t.scenario.ops[ops[3]].graph_after.empty());
  // B's memset and kernel now race; A's memset races with B's kernel and B's memset too.
  std::vector<Finding> races = Races(t);
  EXPECT_TRUE(std::any_of(races.begin(), races.end(), [&](const Finding& f) {
    return std::minmax(f.op, f.other) == std::minmax(ops[2], ops[3]);
  }));
  EXPECT_FALSE(std::any_of(races.begin(), races.end(), [&](const Finding& f) {
    return std::minmax(f.op, f.other) == std::minmax(ops[0], ops[1]);
  }));
}


// examples/cuda/graph_by_hand.cu --second-instance recorded on an H100: the graph instantiated
// twice, the second instance's nodes pointed at buffers of its own (the download on the graph
// before the second instantiation, the rest with cudaGraphExec*SetParams), both replayed 3
// times side by side on two streams. With --forget-node its Triple node still used the first
// instance's x and b: the program's second instance was wrong in 3 of 3 replays.
TEST(RecordedGraphEdits, TheTwoInstanceExampleRecordedOnAnH100) {
  // The trace saved on the H100, and its recorder log converted here.
  for (std::string name : {"graph_by_hand_second.json", "graph_by_hand_second_forget.json",
                           "graph_by_hand_second.raw.jsonl", "graph_by_hand_second_forget.raw.jsonl"}) {
    bool forget = name.find("forget") != std::string::npos;
    Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name));
    const std::vector<Op>& ops = t.scenario.ops;
    std::vector<int> nodes = ReplayedOps(t);
    ASSERT_EQ(nodes.size(), 36u) << name;  // 6 nodes that run work, 2 instances, 3 replays
    for (int n : nodes) EXPECT_FALSE(ops[n].addresses.empty()) << name << " " << n;
    EXPECT_FALSE(HasNote(t, "replays_edited")) << name;
    EXPECT_FALSE(HasNote(t, "replays_unchecked")) << name;
    // The second instance: the launches on the stream the first launch was not on.
    int first_stream = ops[ops[nodes[0]].graph].other_stream;
    auto second = [&](int op) { return ops[ops[op].graph].other_stream != first_stream; };
    int across = 0, warnings = 0;
    for (const Finding& f : Races(t)) {
      if (second(f.op) == second(f.other)) continue;  // within one instance: both branches read x
      ++across;
      // Only the node not pointed at its own buffers shares memory with the other instance.
      const Op& mine = ops[second(f.op) ? f.op : f.other];
      EXPECT_EQ(mine.name, "Triple") << name;
      // The first instance's upload writes x: past the kernels nearer to it, that copy is a
      // certain conflict with the second Triple, so a warning, not a note.
      if (f.severity != Severity::kWarning) continue;
      ++warnings;
      const Op& theirs = ops[second(f.op) ? f.other : f.op];
      EXPECT_EQ(theirs.kind, OpKind::kMemcpy) << name;
    }
    // Each replay: on x the first instance's Square, Triple and upload with the second Triple
    // (the upload a warning), on b its Triple and AddInto with it (kernels only: notes).
    EXPECT_EQ(across, forget ? 15 : 0) << name;
    EXPECT_EQ(warnings, forget ? 3 : 0) << name;
  }
}

// examples/cuda/graph_exec_update.cu recorded on an H100 (2026-11-26): one step captured again
// each of 4 steps with alternating buffer sets and the instance updated with it
// (cudaGraphExecUpdate; CUPTI named each node pair). Every replay is checked with its own
// step's buffers. Both branches are handed `in` (read and read: notes, one per replay); with
// --shared-output the second set's branches also share out_a, in steps 1 and 3 only (the
// program's output was wrong in exactly those two steps).
TEST(RecordedGraphEdits, TheExecUpdateExampleRecordedOnAnH100) {
  for (bool shared : {false, true}) {
    std::string name = shared ? "graph_exec_update_shared.raw.jsonl" : "graph_exec_update.raw.jsonl";
    Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name));
    const std::vector<Op>& ops = t.scenario.ops;
    std::vector<int> nodes = ReplayedOps(t);
    ASSERT_EQ(nodes.size(), 8u) << name;  // Scale and Offset, 4 replays
    for (int n : nodes) EXPECT_FALSE(ops[n].addresses.empty()) << name << " " << n;
    EXPECT_FALSE(HasNote(t, "replays_edited")) << name;
    EXPECT_FALSE(HasNote(t, "replays_unchecked")) << name;
    // The launches in order, and each replay's Scale's first address (its `in`): the sets alternate.
    std::vector<int> launches;
    std::map<int, uint64_t> in_of;
    for (int n : nodes) {
      if (std::find(launches.begin(), launches.end(), ops[n].graph) == launches.end()) launches.push_back(ops[n].graph);
      if (ops[n].name == "Scale") in_of[ops[n].graph] = ops[n].addresses[0].at;
    }
    ASSERT_EQ(launches.size(), 4u) << name;
    EXPECT_NE(in_of[launches[0]], in_of[launches[1]]) << name;  // the update took the second set
    EXPECT_EQ(in_of[launches[0]], in_of[launches[2]]) << name;
    EXPECT_EQ(in_of[launches[1]], in_of[launches[3]]) << name;
    // Races: within one replay only; per replay one on `in`, and with --shared-output one more
    // in the second set's replays.
    std::map<int, int> per_replay;
    for (const Finding& f : Races(t)) {
      EXPECT_EQ(ops[f.op].graph, ops[f.other].graph) << name;
      ++per_replay[ops[f.op].graph];
    }
    for (int i = 0; i < 4; ++i) EXPECT_EQ(per_replay[launches[i]], shared && i % 2 == 1 ? 2 : 1) << name << " replay " << i;
  }
}

}  // namespace
}  // namespace streamlab
