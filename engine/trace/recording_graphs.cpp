// See recording_graphs.h.
#include "engine/trace/recording_graphs.h"

#include <algorithm>
#include <vector>

namespace streamlab {

RecordedGraphs::RecordedGraphs(const Recording& r) {
  // Each thread's range marks and node creations, walked together in time order.
  struct Mark {
    uint64_t at;
    int kind;  // 0 push, 1 pop, 2 node: a node made inside a call sorts after a push at the same time
    const std::string* text;
    uint64_t node;
  };
  std::map<int, std::vector<Mark>> by_thread;
  for (const RecordedCall& c : r.calls) {
    if (c.role == "graph_node_clone") clone_of_[c.out] = c.parent;
    if (c.role == "nvtx_push" || c.role == "nvtx_pop") by_thread[c.thread].push_back({c.begin, c.role == "nvtx_pop", &c.text, 0});
    if (c.role == "graph_node") by_thread[c.thread].push_back({c.begin, 2, nullptr, c.out});
    if (c.role == "graph_node" && c.correlation) capturing_calls_.insert(c.correlation);
  }
  for (const RecordedMark& m : r.marks) {
    const std::string& name = m.text;
    by_thread[m.thread].push_back({m.at, m.push ? 0 : 1, &name, 0});
  }
  for (auto& [thread, marks] : by_thread) {
    std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) {
      return a.at != b.at ? a.at < b.at : (a.kind == 2) < (b.kind == 2);
    });
    std::vector<const std::string*> open;
    for (const Mark& m : marks) {
      if (m.kind == 0) open.push_back(m.text);
      else if (m.kind == 1) { if (!open.empty()) open.pop_back(); }
      else range_of_node_[m.node] = open.empty() ? "" : *open.back();
    }
  }
}

namespace {

// One key per stream: handle 0 is the legacy stream, or the calling thread's per-thread
// stream in a _ptsz call (the same stream as the handle cudaStreamPerThread).
uint64_t StreamKey(const RecordedCall& c) {
  constexpr uint64_t kLegacy = 0x1, kPerThread = 0x2;
  if (c.stream == 0) return c.per_thread ? kPerThread : kLegacy;
  return c.stream;
}

}  // namespace

bool RecordedGraphs::Captured(const RecordedCall& c) {
  const std::string& role = c.role;
  const uint64_t stream = StreamKey(c);
  bool stream_ordered = role == "launch" || role == "graph_launch" || role == "memcpy_async" || role == "memset_async" ||
                        role == "peer_copy" || role == "record" || role == "wait_event" || role == "begin_capture" ||
                        role == "end_capture";
  if (!stream_ordered) return false;
  if (role == "begin_capture") {
    capturing_[stream] = stream;
    return false;  // the call itself is shown as a call
  }
  if (role == "end_capture") {
    // The capture ends for its origin and for every stream that joined it.
    for (auto it = capturing_.begin(); it != capturing_.end();)
      it = it->second == stream ? capturing_.erase(it) : std::next(it);
    for (auto it = captured_event_.begin(); it != captured_event_.end();)
      it = it->second == stream ? captured_event_.erase(it) : std::next(it);
    return false;
  }
  auto origin = capturing_.find(stream);
  if (role == "wait_event" && origin == capturing_.end()) {
    auto joined = captured_event_.find(c.event);
    if (joined == captured_event_.end()) return false;
    capturing_[stream] = joined->second;  // this stream is now part of that capture
    return true;
  }
  bool captured = origin != capturing_.end() || capturing_calls_.count(c.correlation) > 0;
  if (role == "record") {
    if (origin != capturing_.end()) captured_event_[c.event] = origin->second;
    else captured_event_.erase(c.event);  // recorded for real: a wait on it waits
  }
  return captured;
}

std::string RecordedGraphs::CapturedIn(uint64_t node) const {
  for (int hops = 0; hops < 8; ++hops) {  // an instantiated graph's node copies the captured one
    auto it = clone_of_.find(node);
    if (it == clone_of_.end()) break;
    node = it->second;
  }
  auto it = range_of_node_.find(node);
  return it == range_of_node_.end() ? "" : it->second;
}

void MarkReplayed(OpRecord& rec, const std::string& range) {
  rec.graph_replay = true;
  rec.captured_in = range;
  std::string where = range.empty() ? "" : " (captured in range " + range + ")";
  rec.inferred = "replayed from a CUDA graph" + where +
                 ": the graph's own dependencies also ordered it, and the recording does not hold them";
  rec.inferred_zh = "由 CUDA graph 重放" + (range.empty() ? std::string() : "（在范围 " + range + " 中捕获）") +
                    "：graph 自身的依赖也约束它的顺序，而录制中没有这些依赖";
}

}  // namespace streamlab
