// A run of a recording's steps as a trace of its own (replay_window.h): the calls made from the
// window's first step's begin to the begin of the step after the window, each graph launch with its nodes,
// the ranges around them, and every reference between ops renumbered (references out of the
// window are dropped: an event recorded before it orders nothing inside it).
#include "engine/whatif/replay_window.h"

#include <algorithm>

namespace streamlab {
namespace {

void Renumber(Op& op, const std::vector<int>& op_of) {
  auto map = [&](int i) { return i >= 0 && i < static_cast<int>(op_of.size()) ? op_of[i] : -1; };
  op.graph = map(op.graph);
  op.woken_by = map(op.woken_by);
  if (op.collective_first >= 0) op.collective_first = map(op.collective_first);
  for (int& before : op.graph_after) before = map(before);
  std::erase(op.graph_after, -1);
}

// The trace without its ops and ranges: copying a long recording's ops only to drop most of
// them would hold it twice.
Trace ShellOf(const Trace& t) {
  Trace out;
  out.backend = t.backend, out.device_name = t.device_name, out.driver = t.driver, out.captured_at = t.captured_at;
  out.profile = t.profile, out.clock_error = t.clock_error, out.sm_count = t.sm_count, out.lab = t.lab;
  out.variant = t.variant, out.params = t.params, out.checks = t.checks, out.notes = t.notes;
  out.recorded_from = t.recorded_from;
  const Scenario& s = t.scenario;
  Scenario& o = out.scenario;
  o.name = s.name, o.recorded = s.recorded, o.device_count = s.device_count, o.settings = s.settings;
  o.streams = s.streams, o.events = s.events, o.buffers = s.buffers, o.processes = s.processes;
  o.thread_process = s.thread_process, o.torch_source = s.torch_source;
  return out;
}

StepWindow WholeRecording(const Trace& t, const StepSplit& s) {
  StepWindow w;
  w.trace = t;
  w.steps = s;
  w.op_of.resize(t.ops.size());
  for (size_t i = 0; i < w.op_of.size(); ++i) w.op_of[i] = static_cast<int>(i);
  return w;
}

// Steps [first, last] and the step after them (which times the last one) as a trace; the first
// `lead` of them are not counted as steady (the window's warm-up).
StepWindow WindowOfSteps(const Trace& t, const StepSplit& s, int first, int last, int lead) {
  StepWindow w;
  w.whole = false;
  const ProgramStep &head = s.steps[first], &after = s.steps[last + 1];
  const Scenario& sc = t.scenario;
  w.op_of.assign(t.ops.size(), -1);
  // A step's first op may be submitted just before its range begins (its anchor): the calls from
  // the first step's first op on, up to the step after the window's first op.
  TimeNs begin = std::min(head.begin, head.first_op >= 0 ? t.ops[head.first_op].submit : head.begin);
  TimeNs end = std::min(after.begin, after.first_op >= 0 ? t.ops[after.first_op].submit : after.begin);
  w.trace = ShellOf(t);
  int n = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = sc.ops[i];
    bool inside = op.graph >= 0 ? w.op_of[op.graph] >= 0 : t.ops[i].submit >= begin && t.ops[i].submit < end;
    if (inside) w.op_of[i] = n++;
  }
  w.trace.scenario.ops.reserve(n);
  w.trace.ops.reserve(n);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (w.op_of[i] < 0) continue;
    Op op = sc.ops[i];
    Renumber(op, w.op_of);
    w.trace.scenario.ops.push_back(std::move(op));
    OpRecord r = t.ops[i];
    r.op = w.op_of[i];
    w.trace.ops.push_back(std::move(r));
  }
  for (const HostRange& r : t.ranges)
    if (r.end >= begin && r.begin < end) w.trace.ranges.push_back(r);
  w.steps = s;
  w.steps.steps.assign(s.steps.begin() + first, s.steps.begin() + last + 2);
  for (ProgramStep& step : w.steps.steps) step.first_op = step.first_op >= 0 ? w.op_of[step.first_op] : -1;
  for (int k = 0; k < lead; ++k) w.steps.steps[k].steady = false;
  w.steps.steps.back().open_end = true;
  w.steps.warmup = lead;
  w.steps.steady = last + 1 - first - lead;
  w.steps.run_begin = TraceBegin(w.trace);
  w.steps.run_end = TraceEnd(w.trace);
  return w;
}

}  // namespace

StepWindow FirstStepsWindow(const Trace& t, const StepSplit& s, int steady) {
  const int last = s.warmup + steady - 1;
  if (!s.found() || last + 2 >= static_cast<int>(s.steps.size())) return WholeRecording(t, s);
  return WindowOfSteps(t, s, 0, last, s.warmup);
}

StepWindow MiddleStepsWindow(const Trace& t, const StepSplit& s, int steady) {
  const int count = static_cast<int>(s.steps.size());
  // The steps from the lead-in to the step that times the last: steady + 2 of the loop's steps,
  // centred in its steady ones (those after the warm-up, the last one open).
  const int room = count - s.warmup;
  if (!s.found() || room < steady + 3) return WholeRecording(t, s);
  const int first = s.warmup + (room - (steady + 2)) / 2;
  return WindowOfSteps(t, s, first, first + steady, 1);
}

}  // namespace streamlab
