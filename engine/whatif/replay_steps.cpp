// Steps measured and replayed (replay_steps.h). A step is timed from one call to the same call a
// step later: its first call on the loop's thread (for a range, the first call inside it), so
// measured and replayed steps are timed by the same calls.
#include "engine/whatif/replay_steps.h"

#include <algorithm>
#include <cstdlib>

#include "engine/analysis/program_facts.h"
#include "engine/trace/trace_query.h"
#include "engine/util/median.h"

namespace streamlab {
namespace {

void AddEdgeErrors(const Trace& measured, const Replay& replay, const Trace& replayed, const std::vector<int>& anchors,
                   const StepSplit& steps, ReplayReport& out) {
  std::vector<TimeNs> errors;
  size_t k = 0;
  for (size_t i = 0; i < measured.ops.size(); ++i) {
    const OpRecord& m = measured.ops[i];
    while (k + 1 < steps.steps.size() && steps.steps[k + 1].begin <= m.submit) ++k;
    if (!m.gpu || replay.op_of[i] < 0 || k + 1 >= anchors.size() || !steps.steps[k].steady) continue;
    if (anchors[k] < 0 || m.submit < steps.steps[k].begin || m.end <= m.start) continue;
    const OpRecord& r = replayed.ops[replay.op_of[i]];
    const Op& op = measured.scenario.ops[i];
    if (op.kind != OpKind::kKernel && op.kind != OpKind::kMemcpy && op.kind != OpKind::kMemset) continue;
    TimeNs at_m = m.start - measured.ops[anchors[k]].submit;
    TimeNs at_r = r.start - replayed.ops[replay.op_of[anchors[k]]].submit;
    TimeNs error = std::llabs(at_r - at_m);
    errors.push_back(error);
    if (error > out.worst_edge) out.worst_edge = error, out.worst_edge_op = static_cast<int>(i);
  }
  out.median_edge = MedianTime(errors);
}

// The replay's time at which the recording's start-up (StartupEnd) ended: a replayed call's own
// time is host work after its submission, so it is found from the next call on the thread that
// created the context, as far before that call as it was in the recording.
TimeNs ReplayedStartupEnd(const Trace& measured, const Replay& replay, const Trace& replayed) {
  int context = ContextCreationCall(measured, nullptr);
  if (context < 0) return -1;
  const int thread = measured.scenario.ops[context].thread;
  for (size_t j = context + 1; j < measured.ops.size(); ++j) {
    if (measured.scenario.ops[j].thread != thread || replay.op_of[j] < 0 || measured.ops[j].graph_replay) continue;
    return replayed.ops[replay.op_of[j]].submit - (measured.ops[j].submit - measured.ops[context].ret);
  }
  return -1;
}

}  // namespace

ReplayReport CompareReplay(const Trace& measured, const StepSplit& steps, const Replay& replay, const Trace& replayed) {
  ReplayReport out;
  out.steps = steps;
  if (!steps.found()) {
    out.measured = RunBoundsOf(measured, -1, StartupEnd(measured)).length();  // the account's scope without steps
    out.replayed = RunBoundsOf(replay.scenario, replayed.ops, -1, ReplayedStartupEnd(measured, replay, replayed)).length();
  } else {
    std::vector<int> anchors = StepAnchors(measured, steps);
    StepSpacing m = Spacing(measured, measured, anchors, [](int i) { return i; });
    StepSpacing r = Spacing(measured, replayed, anchors, [&](int i) { return replay.op_of[i]; });
    for (size_t k = 0; k < anchors.size(); ++k)
      if (m.calls[k] >= 0 && r.calls[k] >= 0)
        out.per_step.push_back({static_cast<int>(k), m.calls[k], r.calls[k], steps.steps[k].steady});
    out.measured = SteadyStep(steps, m);
    out.replayed = SteadyStep(steps, r);
    AddEdgeErrors(measured, replay, replayed, anchors, steps, out);
  }
  if (out.measured > 0) out.error = std::abs(static_cast<double>(out.replayed - out.measured)) / static_cast<double>(out.measured);
  return out;
}

void MarkReplayedSteps(const std::vector<int>& anchors, const Replay& replay, Trace& replayed) {
  for (size_t k = 0; k + 1 < anchors.size(); ++k) {
    if (anchors[k] < 0 || anchors[k + 1] < 0) continue;
    int a = replay.op_of[anchors[k]], b = replay.op_of[anchors[k + 1]];
    if (a < 0 || b < 0) continue;
    replayed.ranges.push_back({replayed.scenario.ops[a].thread, "step", replayed.ops[a].submit, replayed.ops[b].submit});
  }
}

TimeNs ReplayedStep(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay,
                    const Trace& replayed) {
  if (!steps.found()) return RunBoundsOf(replay.scenario, replayed.ops, -1, ReplayedStartupEnd(measured, replay, replayed)).length();
  return SteadyStep(steps, Spacing(measured, replayed, anchors, [&](int i) { return replay.op_of[i]; }));
}

std::vector<TimeNs> ReplayedSteps(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors,
                                  const Replay& replay, const Trace& replayed) {
  if (!steps.found()) return {};
  return Spacing(measured, replayed, anchors, [&](int i) { return replay.op_of[i]; }).calls;
}

namespace {

template <typename Map>
LeadIn LeadInOf(const StepSplit& steps, const std::vector<int>& anchors, const Scenario& scenario, const Trace& run, Map map) {
  size_t steady = 0;
  while (steady < steps.steps.size() && !steps.steps[steady].steady) ++steady;
  size_t end = std::max<size_t>(steady, 1);
  if (end >= anchors.size() || anchors[0] < 0 || anchors[end] < 0) return {};
  int a = map(anchors[0]), b = map(anchors[end]);
  if (a < 0 || b < 0) return {};
  TimeNs run_began = run.ops[b].submit;
  for (size_t i = 0; i < run.ops.size(); ++i)
    if (IsRecordedCall(scenario.ops[i])) run_began = std::min(run_began, run.ops[i].submit);
  return {static_cast<int>(end), run.ops[b].submit - run.ops[a].submit, run.ops[b].submit - run_began};
}

}  // namespace

LeadIn MeasuredLeadIn(const Trace& measured, const StepSplit& steps, const std::vector<int>& anchors) {
  return LeadInOf(steps, anchors, measured.scenario, measured, [](int i) { return i; });
}

LeadIn ReplayedLeadIn(const StepSplit& steps, const std::vector<int>& anchors, const Replay& replay, const Trace& replayed) {
  return LeadInOf(steps, anchors, replay.scenario, replayed, [&](int i) { return replay.op_of[i]; });
}

}  // namespace streamlab
