// CUDA graphs in a recording. While a program captures a graph (cudaStreamBeginCapture ...
// EndCapture, what torch.cuda.graph does), its launches, copies, records and waits on the
// capturing streams build graph nodes and run nothing; each replay (cudaGraphLaunch) then
// runs the nodes, and CUPTI names the node behind each kernel, copy and memset it ran.
// This index tells the two apart and leads a replayed node back to the NVTX range the
// program was in when it captured that node.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

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

 private:
  std::map<uint64_t, std::string> range_of_node_;  // original node id -> range name
  std::map<uint64_t, uint64_t> clone_of_;          // instantiated node id -> the node it copies
  std::set<uint64_t> capturing_calls_;             // correlation ids of calls that made a node
  std::map<uint64_t, uint64_t> capturing_;         // stream handle -> origin stream of its capture
  std::map<uint64_t, uint64_t> captured_event_;    // event handle -> origin stream of the capture it was recorded in
};

// Marks a replayed op: the graph's edges (its captured records and waits) ordered it too;
// they are not in the recording, so what held it is not fully known, and findings say so.
// `range`: the NVTX range its node was captured in ("" if none).
void MarkReplayed(OpRecord& rec, const std::string& range);

}  // namespace streamlab
