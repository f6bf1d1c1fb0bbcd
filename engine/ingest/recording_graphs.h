// CUDA graphs in a recording. While a program captures a graph (cudaStreamBeginCapture ...
// EndCapture, what torch.cuda.graph does), its launches, copies, records and waits on the
// capturing streams build graph nodes and run nothing; each replay (cudaGraphLaunch) then
// runs the nodes, and CUPTI names the node behind each kernel, copy and memset it ran.
// This index tells the two apart and leads a replayed node back to the call that captured
// it: the NVTX range the program was in, the addresses that call was handed, and the graph's
// edges, which stream capture builds from the capturing streams' order and the events
// recorded and waited on between them (CUDA's capture rules: a node comes after the nodes
// its stream had reached; a wait adds the nodes the event's record had reached). A graph
// built by hand (cudaGraphAddKernelNode, ..., cudaGraphAddDependencies) is led back the same
// way, to the parameters and edges the recorder read from each building call. Later changes
// count where the recorder read them: parameters set again reach the instances they were set
// for (cudaGraphExec*SetParams) or made after (cudaGraph*SetParams), edges added or removed
// reach the instances made after; cudaGraphExecUpdate gives each node of the instance the
// parameters of the node CUDA paired it with (CUPTI names the pairs), the edges staying the
// instance's (the two graphs' topologies must match); a change not read leaves only the
// replays it may reach unchecked (of its instance, or launched after it).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_note.h"

namespace streamlab {

class RecordedGraphs {
 public:
  // Reads every graph-node and clone record of the log, inside a capture range or not
  // (programs capture their graphs before the steps they study).
  explicit RecordedGraphs(const Recording& recording);

  // Fed every stream call in time order: true when `call` was captured into a graph (it
  // built a node or an edge and ran nothing). A stream joins a capture by waiting on an
  // event recorded on a capturing stream, as CUDA's stream capture rules say.
  bool Captured(const RecordedCall& call);

  // The NVTX range (innermost) open when the node behind replayed node `node` was
  // captured; "" when it was in none, or the node is not known.
  std::string CapturedIn(uint64_t node) const;

  bool any() const { return !range_of_node_.empty() || !clone_of_.empty(); }

  // An edge into a node: `node` comes before it, from time `since` (0: it was captured).
  struct Edge {
    uint64_t node = 0;
    uint64_t since = 0;
  };
  // A node captured in this recording: the call that captured it (its addresses are the
  // node's; for a node built by hand, its graph_node_params record) and the edges into it.
  struct CapturedNode {
    const RecordedCall* call = nullptr;
    std::vector<Edge> after;
  };
  // The captured (or built) node behind replayed node `node` (through the instantiation's
  // copies); null when the recording does not hold it (inside a child graph, captured before
  // a capture range by an older recorder).
  const CapturedNode* Original(uint64_t node) const;
  // The captured node an instantiated one copies (itself when it copies none).
  uint64_t OriginalId(uint64_t node) const;
  // When the original of instantiated node `node` was copied (the instance was made): edits
  // of the graph after that time are not in it. UINT64_MAX when the recording has no copy.
  uint64_t CopiedAt(uint64_t node) const;
  // Of the nodes captured node `original` came after in an instance made at `copied_at`,
  // those `has_op` accepts, looking through the ones it refuses (nodes that ran no op: a host
  // function, an empty node, a child graph). Edges added or removed later are not followed.
  template <typename HasOp>
  std::vector<uint64_t> NearestBefore(uint64_t original, uint64_t copied_at, HasOp has_op) const;
  // The call whose parameters replayed node `node` ran with, in a launch of instance `exec`
  // at `launch_at`: the latest cudaGraph[Exec]*SetParams or cudaGraphExecUpdate that reached
  // that instance, or the call that captured or built the node (null when not known).
  const RecordedCall* ParamsOf(uint64_t node, uint64_t exec, uint64_t launch_at) const;
  // The first call that may have changed what replayed node `node` ran, in a launch of `exec`
  // at `launch_at`, in a way the recording does not follow (cudaGraphExecUpdate of that
  // instance, a graph call not read, ...), or null: then its parameters and edges are known.
  const std::string* ChangedBy(uint64_t node, uint64_t exec, uint64_t launch_at) const;

 private:
  struct Copy {
    uint64_t parent = 0;  // the node copied
    uint64_t at = 0;      // when
  };
  struct Version {  // a node's parameters set again (a graph_node_params record)
    uint64_t at = 0;
    const RecordedCall* call = nullptr;
  };
  struct Change {  // an edit not read
    uint64_t at = 0;
    std::string by;
  };
  struct Update {  // cudaGraphExecUpdate gave an instance's node the parameters of `source`
    uint64_t at = 0;
    uint64_t source = 0;
  };
  std::map<uint64_t, std::string> range_of_node_;  // original node id -> range name
  std::map<uint64_t, Copy> clone_of_;              // instantiated node id -> the node it copies
  std::set<uint64_t> capturing_calls_;             // correlation ids of calls that made a node
  std::map<uint64_t, uint64_t> capturing_;         // stream handle -> origin stream of its capture
  std::map<uint64_t, uint64_t> captured_event_;    // event handle -> origin stream of the capture it was recorded in
  std::map<uint64_t, std::vector<uint64_t>> nodes_of_call_;  // correlation id -> the nodes the call created
  std::map<uint64_t, std::vector<uint64_t>> reached_;        // capturing stream -> the nodes it has reached
  std::map<uint64_t, std::vector<uint64_t>> event_reached_;  // event recorded in a capture -> what its stream had reached
  // Graphs built or changed by hand (graph_build and graph_edit calls): parameter and edge
  // records become captured nodes, versions and edges; a call with nothing read under it
  // becomes a change that leaves later replays unchecked.
  void Built(const Recording& r);
  bool Valid(const Edge& edge, uint64_t to, uint64_t copied_at) const;

  std::map<uint64_t, CapturedNode> captured_node_;
  std::map<uint64_t, std::vector<Edge>> added_after_;  // node -> edges added by hand into it
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> removed_;  // (from, to) -> when removed
  // (node, instance or 0 for the graph) -> its parameters set again, in time order.
  std::map<std::pair<uint64_t, uint64_t>, std::vector<Version>> versions_;
  // An instance's node (the id its replays carry) -> the nodes whose parameters
  // cudaGraphExecUpdate gave it, in time order; and the calls that did, followed node by node.
  std::map<uint64_t, std::vector<Update>> updates_;
  std::set<uint64_t> updating_calls_;
  // The parameters graph node `node` (not an instance's) had at `at`.
  const RecordedCall* GraphParamsAt(uint64_t node, uint64_t at) const;
  std::vector<Change> any_change_;                   // changes of any graph, in time order
  std::map<uint64_t, std::vector<Change>> changes_;  // instance -> its changes, in time order
};

template <typename HasOp>
std::vector<uint64_t> RecordedGraphs::NearestBefore(uint64_t original, uint64_t copied_at, HasOp has_op) const {
  std::vector<uint64_t> found, pending{original};
  std::set<uint64_t> seen{original};
  while (!pending.empty()) {
    uint64_t n = pending.back();
    pending.pop_back();
    if (n != original && has_op(n)) {
      found.push_back(n);
      continue;
    }
    auto it = captured_node_.find(n);
    if (it == captured_node_.end()) continue;
    for (const Edge& before : it->second.after)
      if (Valid(before, n, copied_at) && seen.insert(before.node).second) pending.push_back(before.node);
  }
  return found;
}

// How many replayed ops the race check could not follow, and why: the trace's notes.
class ReplayTally {
 public:
  void Unchecked() { ++unchecked_; }
  void Changed(const std::string& by) {
    if (!changed_++) changed_by_ = by;
  }
  std::vector<TraceNote> Notes() const;

 private:
  size_t unchecked_ = 0, changed_ = 0;
  std::string changed_by_;  // the first change that left a replay unchecked
};

// The ops one graph launch's replay became, in start order: each node's op names the ops of
// the nodes its graph put before it (Op::graph_after), and takes the addresses its node ran
// with, unless the program changed the graph in a way the recording does not follow.
class ReplayedLaunch {
 public:
  // `launch`: the launch's op; `call`: its cudaGraphLaunch (the instance and when).
  ReplayedLaunch(const RecordedGraphs& graphs, int launch, const RecordedCall& call, ReplayTally& tally)
      : graphs_(graphs), launch_(launch), exec_(call.exec), at_(call.begin), tally_(tally) {}
  struct Placed {
    const RecordedCall* node = nullptr;       // the call behind the node (null: its edges are not known)
    const RecordedCall* addresses = nullptr;  // the call whose addresses it ran with (null: not known)
  };
  // Op number `index`, replayed from instantiated node `node`: sets its launch and edges.
  Placed Place(Op& op, int index, uint64_t node);

 private:
  const RecordedGraphs& graphs_;
  int launch_;
  uint64_t exec_, at_;
  ReplayTally& tally_;
  std::map<uint64_t, int> op_of_node_;  // captured node -> its op in this launch
};

// Marks a replayed op: the graph's edges (its captured records and waits) ordered it too;
// the race check follows them where they were rebuilt, the explanation of its start does
// not, so what held it is not fully known, and findings say so.
// `range`: the NVTX range its node was captured in ("" if none).
// `node`: the call behind its node (ReplayedLaunch::Place), null when unknown: then its
// graph's edges are not known either; otherwise they were rebuilt from the capture, or
// recorded from the calls that built the graph by hand (Op::graph_after).
void MarkReplayed(OpRecord& rec, const std::string& range, const RecordedCall* node);

}  // namespace streamlab
