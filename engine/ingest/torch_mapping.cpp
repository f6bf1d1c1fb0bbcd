// Mapping a recorded PyTorch run onto the lab's ops, range by range.
#include "engine/ingest/torch_mapping.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/scenario/torch_program.h"
#include "engine/trace/backend.h"
#include "engine/trace/graph_markers.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

// Which recorded op kinds stand for a lab op's GPU work (PyTorch may fill with a kernel
// where the lab has a memset, and stages a pageable copy itself).
bool Matches(OpKind lab, OpKind recorded) {
  switch (lab) {
    case OpKind::kKernel: return recorded == OpKind::kKernel;
    case OpKind::kMemcpy:
    case OpKind::kPeerCopy:
      return recorded == OpKind::kMemcpy || recorded == OpKind::kPeerCopy || recorded == OpKind::kKernel;
    case OpKind::kMemset: return recorded == OpKind::kMemset || recorded == OpKind::kKernel;
    case OpKind::kCollective: return recorded == OpKind::kCollective;  // NCCL's kernel, matched across ranks
    case OpKind::kRecord: return recorded == OpKind::kRecord;
    case OpKind::kWaitEvent:
    case OpKind::kWaitStream: return recorded == OpKind::kWaitEvent || recorded == OpKind::kWaitStream;
    default: return false;
  }
}

// A node of a graph_launch op: its GPU work is the replayed work of that launch (made inside
// the launch's range) whose node was captured inside this op's capture range. Records and
// waits in a graph run nothing; FillGraphMarkerTimes places them afterwards.
void MapGraphNode(const Trace& recorded, const Scenario& lab, int i, const std::map<std::string, const HostRange*>& range_of,
                  Trace& t) {
  const Op& op = lab.ops[i];
  OpRecord& rec = t.ops[i];
  rec.submit = t.ops[op.graph].submit;  // the launch is mapped first: it comes before its nodes
  rec.ret = t.ops[op.graph].ret;
  if (op.kind != OpKind::kKernel && op.kind != OpKind::kMemcpy && op.kind != OpKind::kMemset) return;
  auto launch = range_of.find(TorchRangeName(op.graph));
  if (launch == range_of.end()) return;  // MapTorchRun already failed on the launch
  const HostRange& range = *launch->second;
  std::string captured = TorchCaptureRangeName(i);
  for (size_t j = 0; j < recorded.ops.size(); ++j) {
    const OpRecord& r = recorded.ops[j];
    if (!r.gpu || r.captured_in != captured || !Matches(op.kind, recorded.scenario.ops[j].kind)) continue;
    if (recorded.scenario.ops[j].thread != range.thread || r.submit < range.begin || r.submit > range.end) continue;
    rec.gpu = true;
    rec.ready = r.ready;
    rec.start = r.start;
    rec.end = r.end;
    return;
  }
  throw RunError("the PyTorch run recorded no replayed GPU work for graph node " + DisplayName(lab, i) +
                 " (no kernel of " + lab.ops[op.graph].name + "'s replay was captured in range " + captured + ")");
}

// The recorded call behind a lab op, and its GPU span where the op has one.
void TakeCall(const OpRecord& r, const Op& op, OpRecord& rec) {
  rec.submit = r.submit;
  rec.ret = r.ret;
  if (!IsStreamOp(op)) return;
  rec.gpu = r.gpu;
  rec.ready = r.ready;
  rec.start = r.start;
  rec.end = r.end;
}

// A range that names several ops ("streamlab:3+4+5") is one Python call, such as
// loss.backward(), whose CUDA calls may come from another thread (autograd's engine thread)
// while the caller waits inside it. Each op takes the next call of its kind made during the
// range, on any thread, in the order the calls came. Returns the recorded op of each.
std::vector<int> MapGroup(const Trace& recorded, const Scenario& lab, const HostRange& range, const std::vector<int>& ops,
                          Trace& t) {
  std::vector<int> calls;
  for (size_t j = 0; j < recorded.ops.size(); ++j)
    if (recorded.ops[j].submit >= range.begin && recorded.ops[j].submit <= range.end) calls.push_back(static_cast<int>(j));
  std::stable_sort(calls.begin(), calls.end(), [&](int a, int b) { return recorded.ops[a].submit < recorded.ops[b].submit; });
  std::vector<int> taken;
  size_t next = 0;
  for (int i : ops) {
    const Op& op = lab.ops[i];
    auto fits = [&](int j) {
      return Matches(op.kind, recorded.scenario.ops[j].kind) && (!IsStreamOp(op) || recorded.ops[j].gpu);
    };
    while (next < calls.size() && !fits(calls[next])) ++next;
    if (next == calls.size())
      throw RunError("the PyTorch run made no " + std::string(ToString(op.kind)) + " call for op " + DisplayName(lab, i) +
                     " inside range " + range.name + " (after the ops before it in the range)");
    TakeCall(recorded.ops[calls[next]], op, t.ops[i]);
    taken.push_back(calls[next++]);
  }
  return taken;
}

// Whether PyTorch ran the lab's GPU work on streams as the lab places it: ops the lab puts
// on one stream on one recorded stream, ops on different streams on different ones. A
// collective runs on ProcessGroupNCCL's own stream and a graph node on the graph's, so
// neither is compared. Each mismatch becomes a note, so a run never silently redraws it.
void CheckStreamPlacement(const Trace& recorded, const Scenario& lab, const std::vector<int>& source, Trace& t) {
  std::map<int, std::pair<int, int>> recorded_of;  // lab stream -> (recorded stream, first op)
  std::map<int, std::pair<int, int>> lab_of;       // recorded stream -> (lab stream, first op)
  for (size_t i = 0; i < lab.ops.size(); ++i) {
    const Op& op = lab.ops[i];
    bool work = op.kind == OpKind::kKernel || op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset ||
                op.kind == OpKind::kPeerCopy;
    if (!work || op.graph >= 0 || source[i] < 0) continue;
    int rs = recorded.scenario.ops[source[i]].stream;
    if (rs < 0) continue;
    auto [lab_it, new_lab] = recorded_of.emplace(op.stream, std::make_pair(rs, static_cast<int>(i)));
    auto [rec_it, new_rec] = lab_of.emplace(rs, std::make_pair(op.stream, static_cast<int>(i)));
    std::string op_name = DisplayName(lab, static_cast<int>(i));
    if (!new_lab && lab_it->second.first != rs)  // the lab's one stream, two recorded ones
      t.notes.push_back(Note("torch_stream_split", {{"op", op_name},
                                                    {"other", DisplayName(lab, lab_it->second.second)},
                                                    {"stream", lab.streams[op.stream].name}}));
    else if (!new_rec && rec_it->second.first != op.stream)  // two lab streams, one recorded
      t.notes.push_back(Note("torch_stream_merged", {{"op", op_name},
                                                     {"other", DisplayName(lab, rec_it->second.second)},
                                                     {"stream", lab.streams[op.stream].name},
                                                     {"other_stream", lab.streams[rec_it->second.first].name}}));
  }
}

}  // namespace

Trace MapTorchRun(const Trace& recorded, const Scenario& lab) {
  std::map<std::string, const HostRange*> range_of;
  std::map<int, const HostRange*> group_of;  // op -> the range that names it with others
  bool grouped_calls = false;
  for (const HostRange& r : recorded.ranges) {
    range_of[r.name] = &r;  // the last one of a name wins
    std::vector<int> ops = TorchRangeOps(r.name);
    if (ops.size() > 1)
      for (int op : ops) group_of[op] = &r;
  }

  Trace t;
  t.backend = BackendName(Backend::kTorch);
  t.device_name = recorded.device_name;
  t.driver = recorded.driver;
  t.captured_at = recorded.captured_at;
  t.clock_error = recorded.clock_error;
  t.sm_count = recorded.sm_count;
  t.scenario = lab;
  t.ops.resize(lab.ops.size());
  for (size_t i = 0; i < lab.ops.size(); ++i) t.ops[i].op = static_cast<int>(i);
  std::vector<int> source(lab.ops.size(), -1);  // per lab op: the recorded op behind its GPU work
  bool missing_ready = false;
  for (size_t i = 0; i < lab.ops.size(); ++i) {
    const Op& op = lab.ops[i];
    OpRecord& rec = t.ops[i];
    if (op.graph >= 0) {
      MapGraphNode(recorded, lab, static_cast<int>(i), range_of, t);
      continue;
    }
    auto grouped = group_of.find(static_cast<int>(i));
    if (grouped != group_of.end()) {
      std::vector<int> ops = TorchRangeOps(grouped->second->name);
      if (ops.front() != static_cast<int>(i)) continue;  // mapped with the group's first op
      std::vector<int> taken = MapGroup(recorded, lab, *grouped->second, ops, t);
      grouped_calls = true;
      for (size_t k = 0; k < ops.size(); ++k) {
        source[ops[k]] = taken[k];
        missing_ready = missing_ready || lab.ops[ops[k]].kind == OpKind::kKernel;
      }
      continue;
    }
    auto found = range_of.find(TorchRangeName(static_cast<int>(i)));
    if (found == range_of.end())
      throw RunError("the PyTorch run has no range " + TorchRangeName(static_cast<int>(i)) + " (op " +
                     DisplayName(lab, static_cast<int>(i)) + "): did the program stop early?");
    const HostRange& range = *found->second;
    // The host call: from the op's first CUDA call to its last return (Python's own work
    // around them is not time in a call); an op with none (host work) is its whole range.
    rec.submit = range.end;
    rec.ret = range.begin;
    // The op's recorded calls: made on the range's thread, inside it.
    for (size_t j = 0; j < recorded.ops.size(); ++j) {
      const OpRecord& r = recorded.ops[j];
      const Op& rop = recorded.scenario.ops[j];
      if (rop.thread != range.thread || r.submit < range.begin || r.submit > range.end) continue;
      rec.submit = std::min(rec.submit, r.submit);
      rec.ret = std::max(rec.ret, r.ret);
      if (op.kind == OpKind::kQuery && rop.kind == OpKind::kQuery) rec.note = r.note;
      if (!IsStreamOp(op) || !r.gpu || !Matches(op.kind, rop.kind) || rec.gpu) continue;
      rec.gpu = true;
      rec.ready = r.ready;
      rec.start = r.start;
      rec.end = r.end;
      source[i] = static_cast<int>(j);
      missing_ready = missing_ready || op.kind == OpKind::kKernel || op.kind == OpKind::kCollective;
    }
    if (rec.ret < rec.submit) {
      rec.submit = range.begin;
      rec.ret = range.end;
    }
    if (IsStreamOp(op) && !rec.gpu)
      throw RunError("the PyTorch run recorded no GPU work for op " + DisplayName(lab, static_cast<int>(i)));
  }
  FillGraphMarkerTimes(t);
  t.notes.push_back(Note("torch_run"));
  if (grouped_calls) t.notes.push_back(Note("torch_calls_grouped"));
  CheckStreamPlacement(recorded, lab, source, t);
  if (std::any_of(lab.ops.begin(), lab.ops.end(), [](const Op& op) { return op.graph >= 0; }))
    t.notes.push_back(Note("torch_graphs"));
  if (std::any_of(lab.ops.begin(), lab.ops.end(), [](const Op& op) { return op.kind == OpKind::kCollective; }))
    t.notes.push_back(Note("torch_collectives"));
  if (missing_ready) t.notes.push_back(Note("torch_no_ready"));
  for (const TraceNote& n : recorded.notes) t.notes.push_back(n);
  return t;
}

}  // namespace streamlab
