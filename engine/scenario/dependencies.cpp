// Derives the CUDA ordering edges in submission order (see dependencies.h).
#include "engine/scenario/dependencies.h"

namespace streamlab {

const char* ToString(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kStreamOrder: return "stream_order";
    case EdgeKind::kEvent: return "event";
    case EdgeKind::kWaitStream: return "wait_stream";
    case EdgeKind::kLegacyBarrier: return "legacy_barrier";
  }
  return "?";
}

StreamDependencies ComputeDependencies(const Scenario& s) {
  StreamDependencies deps;
  deps.into.resize(s.ops.size());
  deps.last_record_before.assign(s.ops.size(), -1);
  deps.last_on_stream_before.assign(s.ops.size(), -1);
  std::vector<int> last_on_stream(s.streams.size(), -1);
  std::vector<int> last_legacy(s.device_count, -1);
  std::vector<int> last_record(s.events.size(), -1);

  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    int to = static_cast<int>(i);
    if (op.event >= 0) deps.last_record_before[i] = last_record[op.event];
    if (op.kind == OpKind::kWaitStream) deps.last_on_stream_before[i] = last_on_stream[op.other_stream];
    if (op.kind == OpKind::kSyncStream) deps.last_on_stream_before[i] = last_on_stream[op.stream];
    if (!IsStreamOp(op)) continue;

    std::vector<DepEdge>& in = deps.into[i];
    const StreamDesc& st = s.streams[op.stream];
    if (last_on_stream[op.stream] >= 0)
      in.push_back({last_on_stream[op.stream], to, EdgeKind::kStreamOrder});
    if (st.kind == StreamKind::kLegacyDefault) {
      for (size_t j = 0; j < s.streams.size(); ++j) {
        const StreamDesc& other = s.streams[j];
        if (other.device == st.device && IsBlockingStream(other) && last_on_stream[j] >= 0)
          in.push_back({last_on_stream[j], to, EdgeKind::kLegacyBarrier});
      }
    } else if (IsBlockingStream(st) && last_legacy[st.device] >= 0 &&
               last_legacy[st.device] != last_on_stream[op.stream]) {
      in.push_back({last_legacy[st.device], to, EdgeKind::kLegacyBarrier});
    }
    if (op.kind == OpKind::kWaitEvent && last_record[op.event] >= 0)
      in.push_back({last_record[op.event], to, EdgeKind::kEvent});
    if (op.kind == OpKind::kWaitStream && last_on_stream[op.other_stream] >= 0)
      in.push_back({last_on_stream[op.other_stream], to, EdgeKind::kWaitStream});

    last_on_stream[op.stream] = to;
    if (st.kind == StreamKind::kLegacyDefault) last_legacy[st.device] = to;
    if (op.kind == OpKind::kRecord) last_record[op.event] = to;
  }
  return deps;
}

}  // namespace streamlab
