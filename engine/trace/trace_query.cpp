// Trace measures used by expectations and summaries.
#include "engine/trace/trace_query.h"

#include <algorithm>
#include <map>
#include <limits>

#include "engine/util/errors.h"

namespace streamlab {

const OpRecord& OpNamed(const Trace& t, const std::string& name) {
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].name == name) return t.ops[i];
  throw RunError("trace has no op named \"" + name + "\"");
}

double OverlapFraction(const OpRecord& a, const OpRecord& b) {
  TimeNs overlap = std::min(a.end, b.end) - std::max(a.start, b.start);
  TimeNs shorter = std::min(a.end - a.start, b.end - b.start);
  if (overlap <= 0 || shorter <= 0) return 0.0;
  return static_cast<double>(overlap) / static_cast<double>(shorter);
}

TimeNs CouldOverlap(const OpRecord& a, const OpRecord& b) {
  TimeNs launched_both = std::min(a.end, b.end) - std::max(a.submit, b.submit);
  TimeNs shorter = std::min(a.end - a.start, b.end - b.start);
  return std::max<TimeNs>(0, std::min(launched_both, shorter));
}

TimeNs GpuMakespan(const Trace& t) {
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
  for (const OpRecord& r : t.ops) {
    if (!r.gpu || r.end == r.start) continue;
    first = std::min(first, r.start);
    last = std::max(last, r.end);
  }
  return last > first ? last - first : 0;
}

RunBounds RunBoundsOf(const Trace& t, int process, TimeNs not_before) { return RunBoundsOf(t.scenario, t.ops, process, not_before); }

RunBounds RunBoundsOf(const Scenario& scenario, const std::vector<OpRecord>& ops, int process, TimeNs not_before) {
  RunBounds b;
  int first_gpu = -1;
  bool calls = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = scenario.ops[i];
    const OpRecord& r = ops[i];
    if (process >= 0 && (op.thread < 0 || ProcessOfThread(scenario, op.thread) != process)) continue;
    if (op.thread >= 0 && !r.graph_replay && r.ret >= r.submit) {
      if (!calls || r.submit < b.begin) b.begin = r.submit;
      b.calls_end = std::max(b.calls_end, r.ret);
      calls = true;
    }
    if (!r.gpu || r.end <= r.start || !IsGpuWork(op)) continue;
    if (first_gpu < 0 || r.start < ops[first_gpu].start) first_gpu = static_cast<int>(i);
    if (b.last_gpu < 0 || r.end > ops[b.last_gpu].end) b.last_gpu = static_cast<int>(i);
  }
  if (first_gpu < 0) return {};
  b.begin = !calls ? ops[first_gpu].start : std::min(b.begin, ops[first_gpu].start);
  if (not_before >= 0) b.begin = std::max(b.begin, std::min(not_before, ops[first_gpu].start));
  b.end = ops[b.last_gpu].end;
  return b;
}

TimeNs HostTimeInCalls(const Trace& t, int until) {
  TimeNs total = 0;
  size_t n = until < 0 ? t.ops.size() : std::min<size_t>(t.ops.size(), until);
  for (size_t i = 0; i < n; ++i)
    if (t.scenario.ops[i].kind != OpKind::kHostWork) total += HostCallTime(t.ops[i]);
  return total;
}

// A node replayed from a recorded CUDA graph carries its launch call's times, but the host
// spent them in the launch (its own op), not in the node.
TimeNs HostCallTime(const OpRecord& r) { return r.graph_replay ? 0 : r.ret - r.submit; }

int CopyDirection(const Scenario& s, const Op& op) {
  if (op.kind == OpKind::kPeerCopy) return 3;
  if (op.kind != OpKind::kMemcpy) return -1;
  if (s.buffers[op.src].kind != MemoryKind::kDevice) return 0;
  return s.buffers[op.dst].kind != MemoryKind::kDevice ? 1 : 2;
}

void SerialiseCopyStarts(Trace& t) {
  const Scenario& s = t.scenario;
  // Key: device and direction.
  std::map<std::pair<int, int>, std::vector<int>> engines;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    int direction = CopyDirection(s, op);
    if (direction < 0 || !t.ops[i].gpu) continue;
    engines[{s.streams[op.stream].device, direction}].push_back(static_cast<int>(i));
  }
  for (auto& [key, copies] : engines) {
    std::sort(copies.begin(), copies.end(), [&](int a, int b) { return t.ops[a].end < t.ops[b].end; });
    for (size_t k = 1; k < copies.size(); ++k) {
      OpRecord& r = t.ops[copies[k]];
      r.start = std::clamp(t.ops[copies[k - 1]].end, r.start, r.end);
    }
  }
}

TimeNs QueuedTime(const Trace& t, const OpRecord& r) {
  // GPU-FACTS.md: events give ready/done edges with ~3 us of slack; measured ready->start on
  // an idle H200 was up to ~7 us for a stream's first kernel.
  const TimeNs slack = Us(10) + t.clock_error;
  TimeNs queued = r.gpu ? r.start - r.ready : 0;
  return queued > slack ? queued : 0;
}

double DeviceIdleShare(const Trace& t, int device) {
  TimeNs first = -1, last = 0;
  std::vector<std::pair<TimeNs, TimeNs>> busy;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kKernel || t.ops[i].end <= t.ops[i].start) continue;
    first = first < 0 ? t.ops[i].start : std::min(first, t.ops[i].start);
    last = std::max(last, t.ops[i].end);
    if (t.scenario.streams[op.stream].device == device) busy.emplace_back(t.ops[i].start, t.ops[i].end);
  }
  if (first < 0 || last <= first) return 0;
  std::sort(busy.begin(), busy.end());
  TimeNs covered = 0, reach = first;
  for (auto [s, e] : busy) {
    s = std::max(s, reach);
    if (e > s) covered += e - s;
    reach = std::max(reach, e);
  }
  return 1.0 - static_cast<double>(covered) / static_cast<double>(last - first);
}


}  // namespace streamlab
