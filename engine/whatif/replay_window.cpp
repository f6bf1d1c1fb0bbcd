// A recording's first steps as a trace of their own (replay_window.h): the calls made from the
// first step's begin to the begin of the step after the window, each graph launch with its nodes,
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

}  // namespace

StepWindow WindowOfSteps(const Trace& t, const StepSplit& s, int steady) {
  StepWindow w;
  const int last = s.warmup + steady;  // the step after the window: it times the window's last one
  if (!s.found() || last + 1 >= static_cast<int>(s.steps.size())) {
    w.trace = t;
    w.steps = s;
    w.op_of.resize(t.ops.size());
    for (size_t i = 0; i < w.op_of.size(); ++i) w.op_of[i] = static_cast<int>(i);
    return w;
  }
  w.whole = false;
  const TimeNs from = s.steps.front().begin, to = s.steps[last + 1].begin;
  const Scenario& sc = t.scenario;
  w.op_of.assign(t.ops.size(), -1);
  // A step's first op may be submitted just before its range begins (its anchor): the calls from
  // the first step's first op on, up to the step after the window's first op.
  TimeNs begin = std::min(from, s.steps.front().first_op >= 0 ? t.ops[s.steps.front().first_op].submit : from);
  TimeNs end = std::min(to, s.steps[last + 1].first_op >= 0 ? t.ops[s.steps[last + 1].first_op].submit : to);
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
  w.steps.steps.assign(s.steps.begin(), s.steps.begin() + last + 1);
  for (ProgramStep& step : w.steps.steps) step.first_op = step.first_op >= 0 ? w.op_of[step.first_op] : -1;
  w.steps.steps.back().open_end = true;
  w.steps.steady = last + 1 - s.warmup;
  w.steps.run_begin = TraceBegin(w.trace);
  w.steps.run_end = TraceEnd(w.trace);
  return w;
}

}  // namespace streamlab
