// Lane layout and naming shared by every view of a Trace.
#include "engine/trace/trace.h"

#include <algorithm>
#include <limits>

namespace streamlab {

std::vector<Lane> LanesOf(const Scenario& s) {
  std::vector<Lane> lanes;
  // A recorded program of several processes: each host lane says whose thread it is.
  for (int t = 0; t < ThreadCount(s); ++t)
    lanes.push_back({LaneKind::kHost, -1, -1, t == 0 ? "host" : "host " + std::to_string(t),
                     (s.processes.empty() ? "" : s.processes[ProcessOfThread(s, t)] + ", ") + "thread " + std::to_string(t), t});
  for (int d = 0; d < s.device_count; ++d) {
    for (size_t i = 0; i < s.streams.size(); ++i) {
      const StreamDesc& st = s.streams[i];
      if (st.device != d) continue;
      std::string flags;
      switch (st.kind) {
        case StreamKind::kLegacyDefault: flags = "legacy default"; break;
        case StreamKind::kPerThreadDefault: flags = "per-thread default"; break;
        case StreamKind::kCreated: flags = st.non_blocking ? "non-blocking" : "blocking"; break;
      }
      if (st.priority != 0) flags += ", prio " + std::to_string(st.priority);
      if (st.kind == StreamKind::kPerThreadDefault) flags += ", thread " + std::to_string(st.thread);
      lanes.push_back({LaneKind::kStream, d, static_cast<int>(i), st.name, flags, 0});
    }
  }
  return lanes;
}

int GpuLaneOf(const std::vector<Lane>& lanes, const Op& op) {
  for (size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].kind == LaneKind::kStream && lanes[i].stream == op.stream && op.stream >= 0)
      return static_cast<int>(i);
  return 0;
}

std::string DisplayName(const Scenario& s, int index) {
  const Op& op = s.ops[index];
  if (!op.name.empty()) return op.name;
  std::string kind = ToString(op.kind);
  auto stream = [&](int i) { return i >= 0 ? s.streams[i].name : std::string("?"); };
  auto event = [&](int i) { return i >= 0 ? s.events[i].name : std::string("?"); };
  auto buffer = [&](int i) { return i >= 0 ? s.buffers[i].name : std::string("?"); };
  switch (op.kind) {
    case OpKind::kRecord: return "record " + event(op.event) + " on " + stream(op.stream);
    case OpKind::kWaitEvent: return stream(op.stream) + " waits " + event(op.event);
    case OpKind::kWaitStream:
      return stream(op.stream) + ".wait_stream(" + stream(op.other_stream) + ")";
    case OpKind::kSyncStream: return "sync " + stream(op.stream);
    case OpKind::kSyncEvent: return "sync " + event(op.event);
    case OpKind::kQuery: return "query " + event(op.event);
    case OpKind::kMalloc:
    case OpKind::kFree:
    case OpKind::kMallocHost: return kind + " " + buffer(op.buffer);
    case OpKind::kSetDevice: return "set_device " + std::to_string(op.device);
    default: return kind;
  }
}

TimeNs TraceBegin(const Trace& t) {
  TimeNs begin = std::numeric_limits<TimeNs>::max();
  for (const OpRecord& r : t.ops) {
    begin = std::min(begin, r.submit);
    if (r.gpu) begin = std::min(begin, r.ready);
  }
  return t.ops.empty() ? 0 : begin;
}

TimeNs TraceEnd(const Trace& t) {
  TimeNs end = 0;
  for (const OpRecord& r : t.ops) {
    end = std::max(end, r.ret);
    if (r.gpu) end = std::max(end, r.end);
  }
  return end;
}

}  // namespace streamlab
