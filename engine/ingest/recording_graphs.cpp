// See recording_graphs.h.
#include "engine/ingest/recording_graphs.h"

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
    if (c.role == CallRole::kGraphNodeClone) clone_of_[c.out] = {c.parent, c.begin};
    if (c.role == CallRole::kNvtxPush || c.role == CallRole::kNvtxPop) by_thread[c.thread].push_back({c.begin, c.role == CallRole::kNvtxPop, &c.text, 0});
    if (c.role == CallRole::kGraphNode) by_thread[c.thread].push_back({c.begin, 2, nullptr, c.out});
    if (c.role == CallRole::kGraphNode && c.correlation) {
      capturing_calls_.insert(c.correlation);
      nodes_of_call_[c.correlation].push_back(c.out);
    }
  }
  Built(r);
  for (const RecordedMark& m : r.marks) {
    if (m.frame) continue;  // a recorded Python frame names no range of the program's
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

void RecordedGraphs::Built(const Recording& r) {
  std::map<uint64_t, const RecordedCall*> program_call;  // correlation id -> a graph_build or graph_edit call
  for (const RecordedCall& c : r.calls)
    if (c.role == CallRole::kGraphBuild || c.role == CallRole::kGraphEdit) program_call[c.correlation] = &c;
  auto named = [&](const RecordedCall& record) {
    auto call = program_call.find(record.correlation);
    return call == program_call.end() ? record.function : call->second->function;
  };
  // The node pairs CUPTI names while cudaGraphExecUpdate runs, if it succeeded (parameters set
  // by hand are read from their own calls; a failed update changed nothing, and with nothing
  // read under it leaves the replays after it unchecked).
  for (const RecordedCall& c : r.calls) {
    if (c.role != CallRole::kGraphNodeUpdate) continue;
    auto call = program_call.find(c.correlation);
    if (call == program_call.end() || call->second->status != 0 ||
        call->second->function.find("GraphExecUpdate") == std::string::npos)
      continue;
    updates_[c.out].push_back({c.begin, c.parent});
    updating_calls_.insert(c.correlation);
  }
  for (auto& [node, updates] : updates_)
    std::stable_sort(updates.begin(), updates.end(), [](const Update& a, const Update& b) { return a.at < b.at; });
  std::set<uint64_t> read;  // correlation ids of the program's calls that the recorder read
  for (const RecordedCall& c : r.calls) {
    if (c.role != CallRole::kGraphNodeParams && c.role != CallRole::kGraphEdge && c.role != CallRole::kGraphExecEdit) continue;
    read.insert(c.correlation);
    auto call = program_call.find(c.correlation);
    bool set_again = c.exec || (call != program_call.end() && call->second->role == CallRole::kGraphEdit);
    if (c.role == CallRole::kGraphNodeParams && !set_again) captured_node_[c.out].call = &c;  // edges follow below
    if (c.role == CallRole::kGraphNodeParams && set_again) versions_[{c.out, c.exec}].push_back({c.begin, &c});
    // cudaGraphExecUpdate is followed where CUPTI named the nodes it paired (graph_node_update).
    bool followed = (c.flags & 1) || updating_calls_.count(c.correlation);
    if (c.role == CallRole::kGraphExecEdit && !followed) changes_[c.exec].push_back({c.begin, named(c)});
    if (c.role == CallRole::kGraphEdge) {
      // Edges of a graph copied by cudaGraphClone name the copy's nodes, which replays are not
      // led back to: a change there is not followed.
      if (clone_of_.count(c.out)) any_change_.push_back({c.begin, named(c)});
      if (c.flags & 1) removed_[{c.parent, c.out}].push_back(c.begin);
      else added_after_[c.out].push_back({c.parent, c.begin});
    }
  }
  read.insert(updating_calls_.begin(), updating_calls_.end());
  for (const auto& [correlation, c] : program_call)
    if (!read.count(correlation)) any_change_.push_back({c->begin, c->function + (c->role == CallRole::kGraphBuild ? " (not read)" : "")});
  auto by_time = [](const auto& x, const auto& y) { return x.at < y.at; };
  std::stable_sort(any_change_.begin(), any_change_.end(), by_time);
  for (auto& [exec, changes] : changes_) std::stable_sort(changes.begin(), changes.end(), by_time);
  for (auto& [key, versions] : versions_) std::stable_sort(versions.begin(), versions.end(), by_time);
  for (auto& [at, times] : removed_) std::sort(times.begin(), times.end());
  for (auto& [node, built] : captured_node_) built.after = added_after_[node];
}

bool RecordedGraphs::Valid(const Edge& edge, uint64_t to, uint64_t copied_at) const {
  if (edge.since >= copied_at) return false;  // added after the instance was made
  auto removed = removed_.find({edge.node, to});
  if (removed == removed_.end()) return true;
  for (uint64_t at : removed->second)
    if (at >= edge.since && at < copied_at) return false;  // taken away before the instance was made
  return true;
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
  CallRole role = c.role;
  const uint64_t stream = StreamKey(c);
  bool stream_ordered = role == CallRole::kLaunch || role == CallRole::kGraphLaunch || role == CallRole::kMemcpyAsync || role == CallRole::kMemsetAsync ||
                        role == CallRole::kPeerCopy || role == CallRole::kRecord || role == CallRole::kWaitEvent || role == CallRole::kBeginCapture ||
                        role == CallRole::kEndCapture;
  if (!stream_ordered) return false;
  if (role == CallRole::kBeginCapture) {
    capturing_[stream] = stream;
    reached_[stream].clear();  // the graph's first node has no edge into it
    return false;  // the call itself is shown as a call
  }
  if (role == CallRole::kEndCapture) {
    // The capture ends for its origin and for every stream that joined it.
    for (auto it = capturing_.begin(); it != capturing_.end();) {
      if (it->second == stream) reached_.erase(it->first);
      it = it->second == stream ? capturing_.erase(it) : std::next(it);
    }
    for (auto it = captured_event_.begin(); it != captured_event_.end();)
      it = it->second == stream ? captured_event_.erase(it) : std::next(it);
    return false;
  }
  auto origin = capturing_.find(stream);
  if (role == CallRole::kWaitEvent && origin == capturing_.end()) {
    auto joined = captured_event_.find(c.event);
    if (joined == captured_event_.end()) return false;
    capturing_[stream] = joined->second;  // this stream is now part of that capture
    reached_[stream] = event_reached_[c.event];
    return true;
  }
  bool captured = origin != capturing_.end() || capturing_calls_.count(c.correlation) > 0;
  if (role == CallRole::kRecord) {
    if (origin != capturing_.end()) {
      captured_event_[c.event] = origin->second;
      event_reached_[c.event] = reached_[stream];
    } else {
      captured_event_.erase(c.event);  // recorded for real: a wait on it waits
    }
  }
  if (captured && role == CallRole::kWaitEvent) {
    std::vector<uint64_t>& mine = reached_[stream];
    for (uint64_t n : event_reached_[c.event])
      if (std::find(mine.begin(), mine.end(), n) == mine.end()) mine.push_back(n);
  }
  if (!captured) return false;
  if (auto made = nodes_of_call_.find(c.correlation); made != nodes_of_call_.end()) {
    // The call's nodes come after what its stream had reached, and are what it reaches now.
    std::vector<uint64_t>& reached = reached_[stream];
    for (uint64_t n : made->second) {
      CapturedNode& node = captured_node_[n] = {&c, {}};
      for (uint64_t before : reached) node.after.push_back({before, 0});
      // Edges the program added by hand after the capture (cudaGraphAddDependencies).
      if (auto added = added_after_.find(n); added != added_after_.end())
        node.after.insert(node.after.end(), added->second.begin(), added->second.end());
    }
    reached = made->second;
  }
  return true;
}

uint64_t RecordedGraphs::OriginalId(uint64_t node) const {
  for (int hops = 0; hops < 8; ++hops) {  // an instantiated graph's node copies the captured one
    auto it = clone_of_.find(node);
    if (it == clone_of_.end()) break;
    node = it->second.parent;
  }
  return node;
}

uint64_t RecordedGraphs::CopiedAt(uint64_t node) const {
  uint64_t at = UINT64_MAX;
  for (int hops = 0; hops < 8; ++hops) {
    auto it = clone_of_.find(node);
    if (it == clone_of_.end()) break;
    at = it->second.at;
    node = it->second.parent;
  }
  return at;
}

const RecordedGraphs::CapturedNode* RecordedGraphs::Original(uint64_t node) const {
  auto it = captured_node_.find(OriginalId(node));
  return it == captured_node_.end() ? nullptr : &it->second;
}

std::string RecordedGraphs::CapturedIn(uint64_t node) const {
  auto it = range_of_node_.find(OriginalId(node));
  return it == range_of_node_.end() ? "" : it->second;
}

const RecordedCall* RecordedGraphs::ParamsOf(uint64_t node, uint64_t exec, uint64_t launch_at) const {
  const uint64_t instance_node = node;
  const RecordedCall* best = nullptr;
  uint64_t best_at = 0;
  // The latest version of (node, instance) set after `after` and before `before`.
  auto consider = [&](uint64_t n, uint64_t instance, uint64_t after, uint64_t before) {
    auto it = versions_.find({n, instance});
    if (it == versions_.end()) return;
    auto next = std::lower_bound(it->second.begin(), it->second.end(), before,
                                 [](const Version& v, uint64_t at) { return v.at < at; });
    if (next == it->second.begin()) return;
    const Version& v = *std::prev(next);
    if (v.at > after && v.at >= best_at) best = v.call, best_at = v.at;
  };
  // Each copy on the way back to the captured node: set on the instance after it was made
  // (the first copy only), or on the graph copied before it was copied.
  for (int hops = 0; hops < 8; ++hops) {
    auto it = clone_of_.find(node);
    if (it == clone_of_.end()) break;
    const Copy& copy = it->second;
    if (hops == 0 && exec) consider(copy.parent, exec, copy.at, launch_at);
    consider(copy.parent, 0, 0, copy.at);
    node = copy.parent;
  }
  // cudaGraphExecUpdate of the instance after that: its node runs with the paired node's parameters.
  if (auto updates = updates_.find(instance_node); updates != updates_.end()) {
    auto next = std::lower_bound(updates->second.begin(), updates->second.end(), launch_at,
                                 [](const Update& u, uint64_t at) { return u.at < at; });
    if (next != updates->second.begin() && std::prev(next)->at >= best_at)
      return GraphParamsAt(std::prev(next)->source, std::prev(next)->at);
  }
  if (best) return best;
  auto captured = captured_node_.find(node);
  return captured == captured_node_.end() ? nullptr : captured->second.call;
}

const RecordedCall* RecordedGraphs::GraphParamsAt(uint64_t node, uint64_t at) const {
  if (auto it = versions_.find({node, 0}); it != versions_.end()) {  // set again on that graph before
    auto next = std::lower_bound(it->second.begin(), it->second.end(), at,
                                 [](const Version& v, uint64_t t) { return v.at < t; });
    if (next != it->second.begin()) return std::prev(next)->call;
  }
  auto captured = captured_node_.find(OriginalId(node));
  return captured == captured_node_.end() ? nullptr : captured->second.call;
}

const std::string* RecordedGraphs::ChangedBy(uint64_t node, uint64_t exec, uint64_t launch_at) const {
  if (!any_change_.empty() && any_change_.front().at < launch_at) return &any_change_.front().by;
  auto changes = changes_.find(exec);
  if (!exec || changes == changes_.end()) return nullptr;
  // A change of this instance after it was made (a later instance may reuse a destroyed one's handle).
  auto copy = clone_of_.find(node);
  uint64_t made = copy == clone_of_.end() ? 0 : copy->second.at;
  auto first = std::upper_bound(changes->second.begin(), changes->second.end(), made,
                                [](uint64_t at, const Change& c) { return at < c.at; });
  return first != changes->second.end() && first->at < launch_at ? &first->by : nullptr;
}

ReplayedLaunch::Placed ReplayedLaunch::Place(Op& op, int index, uint64_t node) {
  op.graph = launch_;
  if (const std::string* by = graphs_.ChangedBy(node, exec_, at_)) {
    tally_.Changed(*by);
    return {};
  }
  const RecordedGraphs::CapturedNode* captured = graphs_.Original(node);
  if (!captured || !captured->call) {
    tally_.Unchecked();
    return {};
  }
  uint64_t original = graphs_.OriginalId(node);
  auto has_op = [&](uint64_t n) { return op_of_node_.count(n) > 0; };
  for (uint64_t before : graphs_.NearestBefore(original, graphs_.CopiedAt(node), has_op))
    op.graph_after.push_back(op_of_node_[before]);
  std::sort(op.graph_after.begin(), op.graph_after.end());
  // Keyed by the captured node, not the instantiated copy: the graph's edges name captured nodes.
  op_of_node_[original] = index;
  Placed placed{captured->call, graphs_.ParamsOf(node, exec_, at_)};
  // A kernel node whose arguments the recorder could not read: its edges, no addresses.
  if (placed.addresses && placed.addresses->role == CallRole::kGraphNodeParams && (placed.addresses->flags & 1))
    placed.addresses = nullptr;
  if (!placed.addresses) tally_.Unchecked();
  return placed;
}

std::vector<TraceNote> ReplayTally::Notes() const {
  std::vector<TraceNote> notes;
  if (unchecked_) notes.push_back(Note("replays_unchecked", {{"n", std::to_string(unchecked_)}}));
  if (changed_) notes.push_back(Note("replays_edited", {{"n", std::to_string(changed_)}, {"call", changed_by_}}));
  return notes;
}

void MarkReplayed(OpRecord& rec, const std::string& range, const RecordedCall* node) {
  rec.graph_replay = true;
  rec.captured_in = range;
  bool built = node && node->role == CallRole::kGraphNodeParams;
  std::string where = range.empty() ? "" : std::string(built ? " (built" : " (captured") + " in range " + range + ")";
  std::string where_zh = range.empty() ? std::string() : "（在范围 " + range + (built ? " 中构建）" : " 中捕获）");
  rec.inferred = std::string("replayed from a CUDA graph") + (built ? " the program built node by node" : "") + where + ": ";
  rec.inferred_zh = std::string(built ? "由程序逐个节点构建的 CUDA graph 重放" : "由 CUDA graph 重放") + where_zh + "：";
  if (!node) {
    rec.inferred += "the graph's own dependencies also ordered it, and the trace does not hold them";
    rec.inferred_zh += "graph 自身的依赖也约束它的顺序，而 trace 中没有这些依赖";
    return;
  }
  rec.inferred += std::string(built ? "the edges it gave the graph (recorded from its cudaGraphAdd* calls)"
                                    : "the graph's own edges, rebuilt from its capture,") +
                  " also ordered it; the race check follows them, the account of when it started does not";
  rec.inferred_zh += std::string(built ? "程序给 graph 加的依赖（从 cudaGraphAdd* 调用中录制）" : "graph 自身的依赖（由捕获过程重建）") +
                     "也约束它的顺序；竞争检查考虑了这些依赖，开始时间的解释没有";
}

}  // namespace streamlab
