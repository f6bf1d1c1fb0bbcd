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

DependencyTracker::DependencyTracker(const Scenario& s)
    : s_(s),
      last_on_stream_(s.streams.size(), -1),
      last_record_(s.events.size(), -1),
      last_legacy_(static_cast<size_t>(s.device_count) * ProcessCount(s), -1) {}

DependencyTracker::OpDeps DependencyTracker::Add(int to) {
  OpDeps d;
  const Op& op = s_.ops[to];
  if (op.event >= 0) d.last_record_before = last_record_[op.event];
  if (op.kind == OpKind::kWaitStream) d.last_on_stream_before = last_on_stream_[op.other_stream];
  if (op.kind == OpKind::kSyncStream) d.last_on_stream_before = last_on_stream_[op.stream];
  if (!IsStreamOp(op)) return d;

  std::vector<DepEdge>& in = d.into;
  const StreamDesc& st = s_.streams[op.stream];
  if (last_on_stream_[op.stream] >= 0) in.push_back({last_on_stream_[op.stream], to, EdgeKind::kStreamOrder});
  // The legacy stream synchronises with the blocking streams of its own process's context
  // only: another process's streams on the same GPU are another context's.
  int& last_legacy = last_legacy_[static_cast<size_t>(st.process) * s_.device_count + st.device];
  if (st.kind == StreamKind::kLegacyDefault) {
    for (size_t j = 0; j < s_.streams.size(); ++j) {
      const StreamDesc& other = s_.streams[j];
      if (other.device == st.device && other.process == st.process && IsBlockingStream(other) && last_on_stream_[j] >= 0)
        in.push_back({last_on_stream_[j], to, EdgeKind::kLegacyBarrier});
    }
  } else if (IsBlockingStream(st) && last_legacy >= 0 && last_legacy != last_on_stream_[op.stream]) {
    in.push_back({last_legacy, to, EdgeKind::kLegacyBarrier});
  }
  if (op.kind == OpKind::kWaitEvent && last_record_[op.event] >= 0)
    in.push_back({last_record_[op.event], to, EdgeKind::kEvent});
  if (op.kind == OpKind::kWaitStream && last_on_stream_[op.other_stream] >= 0)
    in.push_back({last_on_stream_[op.other_stream], to, EdgeKind::kWaitStream});

  last_on_stream_[op.stream] = to;
  if (st.kind == StreamKind::kLegacyDefault) last_legacy = to;
  if (op.kind == OpKind::kRecord) last_record_[op.event] = to;
  return d;
}

StreamDependencies ComputeDependencies(const Scenario& s) {
  StreamDependencies deps;
  deps.into.resize(s.ops.size());
  deps.last_record_before.assign(s.ops.size(), -1);
  deps.last_on_stream_before.assign(s.ops.size(), -1);
  DependencyTracker tracker(s);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    DependencyTracker::OpDeps d = tracker.Add(static_cast<int>(i));
    deps.into[i] = std::move(d.into);
    deps.last_record_before[i] = d.last_record_before;
    deps.last_on_stream_before[i] = d.last_on_stream_before;
  }
  return deps;
}

}  // namespace streamlab
