// See graph_markers.h. One pass in program order: within a graph, nodes are listed in
// capture order, so whatever a marker follows comes before it.
#include "engine/trace/graph_markers.h"

#include <algorithm>
#include <map>

namespace streamlab {

void FillGraphMarkerTimes(Trace& t) {
  const Scenario& s = t.scenario;
  std::map<int, TimeNs> stream_reached;  // stream -> end of its latest node so far
  std::map<int, TimeNs> event_time;      // event -> time of its latest record in the graph
  int graph = -1;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.graph < 0) continue;
    if (op.graph != graph) {  // a new launch: its nodes start no earlier than its call
      graph = op.graph;
      stream_reached.clear();
      event_time.clear();
    }
    OpRecord& rec = t.ops[i];
    TimeNs launched = t.ops[op.graph].ret;
    auto reached = [&](int stream) {
      auto it = stream_reached.find(stream);
      return it == stream_reached.end() ? launched : it->second;
    };
    TimeNs at = reached(op.stream);
    if (op.kind == OpKind::kKernel) {
      if (rec.gpu) stream_reached[op.stream] = std::max(at, rec.end);
      continue;
    }
    if (op.kind == OpKind::kWaitEvent && event_time.count(op.event)) at = std::max(at, event_time[op.event]);
    if (op.kind == OpKind::kWaitStream) at = std::max(at, reached(op.other_stream));
    if (op.kind == OpKind::kRecord) event_time[op.event] = at;
    stream_reached[op.stream] = at;
    rec.gpu = true;
    rec.ready = rec.start = rec.end = at;
  }
}

}  // namespace streamlab
