// See graph_markers.h. One pass in program order: within a graph, nodes are listed in
// capture order, so whatever a marker follows comes before it.
#include "engine/trace/graph_markers.h"

#include <algorithm>
#include <map>
#include <vector>

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

// One pass in op order: a recording's ops are in the order the host made the calls.
void PlaceRecordedMarkers(Trace& t, bool windowed) {
  const Scenario& s = t.scenario;
  std::vector<TimeNs> stream_end(s.streams.size(), 0);
  std::vector<TimeNs> event_time(s.events.size(), 0);
  std::vector<bool> had_work(s.streams.size(), false);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    OpRecord& rec = t.ops[i];
    if (op.stream < 0) continue;
    if (rec.gpu) {
      stream_end[op.stream] = std::max(stream_end[op.stream], rec.end);
      had_work[op.stream] = true;
      // A graph's node on a stream of its own still holds back the stream it was launched into.
      int launched_into = op.graph >= 0 ? s.ops[op.graph].other_stream : -1;
      if (launched_into >= 0) stream_end[launched_into] = std::max(stream_end[launched_into], rec.end);
    } else if (op.kind == OpKind::kRecord || op.kind == OpKind::kWaitEvent) {
      if (op.kind == OpKind::kRecord && windowed && !had_work[op.stream]) {
        // Its stream's work before the capture range is not in the trace.
        rec.inferred = "its stream ran nothing since the capture range began; what it ran before is not in this "
                       "recording, so what this record captured is unknown";
        rec.inferred_zh = "录制范围开始以来它的流上没有工作；之前的工作不在本次录制中，因此这次记录捕获了什么无从得知";
      }
      TimeNs at = std::max(rec.submit, stream_end[op.stream]);
      if (op.kind == OpKind::kRecord) event_time[op.event] = at;
      else at = std::max(at, event_time[op.event]);
      rec.gpu = true;
      rec.ready = rec.start = rec.end = at;
      stream_end[op.stream] = at;
    }
  }
}

}  // namespace streamlab
