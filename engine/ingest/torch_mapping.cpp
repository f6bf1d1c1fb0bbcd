// Mapping a recorded PyTorch run onto the lab's ops, range by range.
#include "engine/ingest/torch_mapping.h"

#include <algorithm>
#include <map>

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

}  // namespace

Trace MapTorchRun(const Trace& recorded, const Scenario& lab) {
  std::map<std::string, const HostRange*> range_of;
  for (const HostRange& r : recorded.ranges) range_of[r.name] = &r;  // the last one of a name wins

  Trace t;
  t.backend = BackendName(Backend::kTorch);
  t.device_name = recorded.device_name;
  t.driver = recorded.driver;
  t.captured_at = recorded.captured_at;
  t.clock_error = recorded.clock_error;
  t.sm_count = recorded.sm_count;
  t.scenario = lab;
  t.ops.resize(lab.ops.size());
  bool missing_ready = false;
  for (size_t i = 0; i < lab.ops.size(); ++i) {
    const Op& op = lab.ops[i];
    OpRecord& rec = t.ops[i];
    rec.op = static_cast<int>(i);
    if (op.graph >= 0) {
      MapGraphNode(recorded, lab, static_cast<int>(i), range_of, t);
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
  if (std::any_of(lab.ops.begin(), lab.ops.end(), [](const Op& op) { return op.graph >= 0; }))
    t.notes.push_back(Note("torch_graphs"));
  if (std::any_of(lab.ops.begin(), lab.ops.end(), [](const Op& op) { return op.kind == OpKind::kCollective; }))
    t.notes.push_back(Note("torch_collectives"));
  if (missing_ready) t.notes.push_back(Note("torch_no_ready"));
  for (const TraceNote& n : recorded.notes) t.notes.push_back(n);
  return t;
}

}  // namespace streamlab
