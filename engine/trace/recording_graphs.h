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
// way, to the parameters and edges the recorder read from each building call.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/trace/recording.h"

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

  // A node captured in this recording: the call that captured it (its addresses are the
  // node's; for a node built by hand, its graph_node_params record) and the nodes it came
  // after in its graph.
  struct CapturedNode {
    const RecordedCall* call = nullptr;
    std::vector<uint64_t> after;
  };
  // The captured (or built) node behind replayed node `node` (through the instantiation's
  // copies); null when the recording does not hold it (inside a child graph, captured before
  // a capture range by an older recorder).
  const CapturedNode* Original(uint64_t node) const;
  // The captured node an instantiated one copies (itself when it copies none).
  uint64_t OriginalId(uint64_t node) const;
  // Of the captured nodes `node` came after, those `has_op` accepts, looking through the
  // ones it refuses (nodes that ran no op: a host function, an empty node, a child graph).
  template <typename HasOp>
  std::vector<uint64_t> NearestBefore(const CapturedNode& node, HasOp has_op) const;
  // The first call that may have changed a graph after its capture (cudaGraphExecUpdate, a
  // node's parameters set by hand; role graph_edit), or built one in a way the recording does
  // not hold, or "" when none was logged: then replayed nodes keep their captured addresses
  // and edges.
  const std::string& edited_by() const { return edited_by_; }

 private:
  std::map<uint64_t, std::string> range_of_node_;  // original node id -> range name
  std::map<uint64_t, uint64_t> clone_of_;          // instantiated node id -> the node it copies
  std::set<uint64_t> capturing_calls_;             // correlation ids of calls that made a node
  std::map<uint64_t, uint64_t> capturing_;         // stream handle -> origin stream of its capture
  std::map<uint64_t, uint64_t> captured_event_;    // event handle -> origin stream of the capture it was recorded in
  std::map<uint64_t, std::vector<uint64_t>> nodes_of_call_;  // correlation id -> the nodes the call created
  std::map<uint64_t, std::vector<uint64_t>> reached_;        // capturing stream -> the nodes it has reached
  std::map<uint64_t, std::vector<uint64_t>> event_reached_;  // event recorded in a capture -> what its stream had reached
  // Nodes built by hand (cudaGraphAdd*Node, cudaGraphAddDependencies): their parameter and
  // edge records become captured nodes; a build call the recorder did not read, or an edge
  // added after instantiation, leaves replays unchecked (edited_by_).
  void Built(const Recording& r, const std::map<uint64_t, uint64_t>& first_copied);

  std::map<uint64_t, CapturedNode> captured_node_;
  std::map<uint64_t, std::vector<uint64_t>> added_after_;  // node -> nodes an edge added by hand put before it
  std::string edited_by_;
};

template <typename HasOp>
std::vector<uint64_t> RecordedGraphs::NearestBefore(const CapturedNode& node, HasOp has_op) const {
  std::vector<uint64_t> found, pending = node.after;
  std::set<uint64_t> seen(pending.begin(), pending.end());
  while (!pending.empty()) {
    uint64_t n = pending.back();
    pending.pop_back();
    if (has_op(n)) {
      found.push_back(n);
      continue;
    }
    auto it = captured_node_.find(n);
    if (it == captured_node_.end()) continue;
    for (uint64_t before : it->second.after)
      if (seen.insert(before).second) pending.push_back(before);
  }
  return found;
}

// The ops one graph launch's replay became, in start order: each node's op names the ops of
// the nodes its graph put before it (Op::graph_after), and takes the addresses of the call
// that captured it, unless the program edited a graph (then neither is known).
class ReplayedLaunch {
 public:
  ReplayedLaunch(const RecordedGraphs& graphs, int launch) : graphs_(graphs), launch_(launch) {}
  // Op number `index`, replayed from instantiated node `node`: sets its launch and edges;
  // returns the call that captured the node, or null.
  const RecordedCall* Place(Op& op, int index, uint64_t node);

 private:
  const RecordedGraphs& graphs_;
  int launch_;
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
