// The account of each process's steady steps (step_account.h).
#include "engine/account/step_account.h"

#include <algorithm>

#include "engine/account/account_walk.h"
#include "engine/analysis/program_facts.h"
#include "engine/trace/trace_query.h"
#include "engine/util/median.h"

namespace streamlab {
namespace {

// Where a step's window ends: the next step's first call on the loop's thread (a host-paced
// loop), or the end of the step's last GPU op (the host runs ahead).
struct StepWindow {
  int step = -1;
  TimeNs begin = 0, end = 0;
  PathPoint end_point;
};

std::vector<StepWindow> HostWindows(const Trace& t, const StepSplit& s, const std::vector<int>& anchors) {
  std::vector<StepWindow> out;
  for (size_t k = 0; k + 1 < s.steps.size(); ++k) {
    if (!s.steps[k].steady || s.steps[k].open_end || anchors[k + 1] < 0) continue;
    int anchor = anchors[k + 1];
    TimeNs end = t.ops[anchor].submit;
    out.push_back({static_cast<int>(k), s.steps[k].begin, end, {false, -1, t.scenario.ops[anchor].thread, end}});
  }
  return out;
}

std::vector<StepWindow> GpuWindows(const Trace& t, int process, const StepSplit& s) {
  // Each step's last-ending GPU op: of the process's GPU work submitted from its begin to the next's.
  std::vector<int> last(s.steps.size(), -1);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = t.scenario.ops[i];
    if (!r.gpu || !IsGpuWork(op) || ProcessOfThread(t.scenario, op.thread) != process) continue;
    auto after = std::partition_point(s.steps.begin(), s.steps.end(), [&](const ProgramStep& p) { return p.begin <= r.submit; });
    if (after == s.steps.begin()) continue;
    int& k = last[after - s.steps.begin() - 1];
    if (k < 0 || r.end > t.ops[k].end) k = static_cast<int>(i);
  }
  std::vector<StepWindow> out;
  for (size_t k = 1; k < s.steps.size(); ++k) {
    if (!s.steps[k].steady || !s.steps[k - 1].steady || last[k] < 0 || last[k - 1] < 0) continue;
    TimeNs begin = t.ops[last[k - 1]].end, end = t.ops[last[k]].end;
    if (end > begin) out.push_back({static_cast<int>(k), begin, end, {true, last[k], -1, end}});
  }
  return out;
}

// Whether, at most steady steps' ends, the step's GPU work ended after the next step's first call.
bool HostRanAhead(const Trace& t, const StepSplit& s, const std::vector<int>& anchors, const StepSpacing& spacing) {
  int ahead = 0, judged = 0;
  for (size_t k = 0; k + 1 < s.steps.size(); ++k) {
    if (!s.steps[k].steady || anchors[k + 1] < 0 || spacing.done[k] < 0) continue;
    ++judged;
    ahead += spacing.done[k] > t.ops[anchors[k + 1]].submit;
  }
  return 2 * ahead > judged;
}

// A run without steps: from the end of CUDA's start-up (the context's creation, said apart as a
// one-off every process pays) or the process's first recorded call, to its GPU work's end. With
// no steady state there is no warm-up to set apart: what the host did before and between the
// GPU's work fed it, and a program that spends 0.5 s filling its input on the host before 3 ms
// of GPU work is bound by that host work, not by its GPU's (Holistic Trace Analysis counts only
// the GPU's span: how busy the GPU was, not where the run went). What the host did after the
// GPU's last op (checking results, freeing, exiting) is teardown, said apart too.
std::vector<StepWindow> RunWindow(const Trace& t, int process) {
  RunBounds run = RunBoundsOf(t, process, StartupEnd(t, process));
  if (run.length() <= 0) return {};
  return {{-1, run.begin, run.end, {true, run.last_gpu, -1, run.end}}};
}

// The windows a steady step's time is judged on: those within half and twice the median (one
// step held up by a checkpoint or a collection says nothing of the steady step), at most
// kMostStepsWalked of them, evenly spread.
std::vector<StepWindow> Typical(std::vector<StepWindow> w) {
  std::vector<TimeNs> lengths;
  for (const StepWindow& x : w) lengths.push_back(x.end - x.begin);
  TimeNs median = MedianTime(lengths);
  std::erase_if(w, [&](const StepWindow& x) { return 2 * (x.end - x.begin) < median || x.end - x.begin > 2 * median; });
  if (w.size() <= static_cast<size_t>(kMostStepsWalked)) return w;
  std::vector<StepWindow> spread;
  for (int i = 0; i < kMostStepsWalked; ++i) spread.push_back(w[i * w.size() / kMostStepsWalked]);
  return spread;
}

// The process's GPU work as disjoint busy intervals, in time order (ops on several streams at
// once counted once); with `direction` >= 0, only its copies of that direction (CopyDirection:
// 0 host to device, 1 device to host).
std::vector<std::pair<TimeNs, TimeNs>> GpuBusy(const Trace& t, int process, int direction = -1) {
  std::vector<std::pair<TimeNs, TimeNs>> ops, merged;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = t.scenario.ops[i];
    if (!r.gpu || r.end <= r.start || !IsGpuWork(op) || ProcessOfThread(t.scenario, op.thread) != process) continue;
    if (direction >= 0 && CopyDirection(t.scenario, op) != direction) continue;
    ops.emplace_back(r.start, r.end);
  }
  std::sort(ops.begin(), ops.end());
  for (const auto& [from, to] : ops) {
    if (!merged.empty() && from <= merged.back().second) merged.back().second = std::max(merged.back().second, to);
    else merged.emplace_back(from, to);
  }
  return merged;
}

TimeNs BusyWithin(const std::vector<std::pair<TimeNs, TimeNs>>& busy, TimeNs begin, TimeNs end) {
  auto it = std::partition_point(busy.begin(), busy.end(), [&](const auto& b) { return b.second <= begin; });
  TimeNs total = 0;
  for (; it != busy.end() && it->first < end; ++it) total += std::min(end, it->second) - std::max(begin, it->first);
  return total;
}

ProcessAccount AccountOfProcess(const Trace& t, PathWalker& walker, int process) {
  ProcessAccount a;
  a.process = process;
  if (process < static_cast<int>(t.scenario.processes.size())) a.name = t.scenario.processes[process];
  a.sm_count = t.sm_count;
  a.steps = FindSteps(t, process);
  std::vector<StepWindow> windows;
  if (a.steps.found()) {
    std::vector<int> anchors = StepAnchors(t, a.steps);
    StepSpacing spacing = Spacing(t, t, anchors, [](int i) { return i; });
    a.pace = PaceOf(a.steps, spacing);
    // The GPU sets the pace where the host calls its steps faster than the GPU ends them (beyond
    // the 10 % two medians of one loop's steps differ by chance: a loop that syncs every 10th
    // step calls 9 steps in 25 ms each, waits out the backlog in the 10th, and its GPU ends one
    // every 31 ms), or where the host is ahead at most step boundaries: a step's GPU work still
    // runs when the next step's first call is made, so no host time of the step is on its path.
    a.gpu_paced = a.pace.ends > 0 && (10 * a.pace.ends > 11 * a.pace.calls || HostRanAhead(t, a.steps, anchors, spacing));
    windows = a.gpu_paced ? GpuWindows(t, process, a.steps) : HostWindows(t, a.steps, anchors);
    windows = Typical(std::move(windows));
  }
  if (windows.empty()) {
    a.steps.steady = 0;  // no window to judge a step on: the whole run instead
    windows = RunWindow(t, process);
  }
  std::vector<std::pair<TimeNs, TimeNs>> busy = GpuBusy(t, process);
  const std::array<std::vector<std::pair<TimeNs, TimeNs>>, 2> copying = {GpuBusy(t, process, 0), GpuBusy(t, process, 1)};
  TimeNs busy_total = 0;
  std::array<TimeNs, 2> copying_total{};
  for (const StepWindow& w : windows) {
    busy_total += BusyWithin(busy, w.begin, w.end);
    for (int d = 0; d < 2; ++d) copying_total[d] += BusyWithin(copying[d], w.begin, w.end);
    WalkedStep walked = walker.Walk(w.end_point, w.begin);
    walked.step = w.step;
    walked.gpu_paced = w.end_point.gpu && w.step >= 0;
    for (const PathSegment& seg : walked.path) {
      a.by_kind[static_cast<int>(seg.kind)] += seg.length();
      if (seg.legacy_serialized) a.legacy_serialized += seg.length();
    }
    a.walked.push_back(std::move(walked));
  }
  if (a.walked.empty()) return a;
  // The mean over the walked steps. Integer division may leave a few ns: they go to the largest
  // kind, so that the kinds, and the categories made of them, sum to the step exactly.
  const TimeNs n = static_cast<TimeNs>(a.walked.size());
  TimeNs total = 0, parts = 0;
  for (TimeNs& k : a.by_kind) total += k, k /= n, parts += k;
  a.step = total / n;
  a.gpu_busy = std::min(a.step, busy_total / n);
  for (int d = 0; d < 2; ++d) a.copy_busy[d] = std::min(a.step, copying_total[d] / n);
  a.legacy_serialized /= n;
  *std::max_element(a.by_kind.begin(), a.by_kind.end()) += a.step - parts;
  a.by_category = {};
  for (int k = 0; k < kTimeKindCount; ++k) a.by_category[static_cast<int>(CategoryOf(static_cast<TimeKind>(k)))] += a.by_kind[k];
  return a;
}

}  // namespace

bool ProgramAccount::found() const {
  return std::any_of(processes.begin(), processes.end(), [](const ProcessAccount& p) { return !p.walked.empty(); });
}

ProgramAccount AccountOf(const Trace& trace) {
  AnalysisContext context(trace);
  return AccountOf(context);
}

ProgramAccount AccountOf(const AnalysisContext& context) {
  const Trace& trace = context.t;
  ProgramAccount out;
  PathWalker walker(context);
  for (int p = 0; p < ProcessCount(trace.scenario); ++p) {
    ProcessAccount a = AccountOfProcess(trace, walker, p);
    if (!a.walked.empty()) out.processes.push_back(std::move(a));
  }
  return out;
}

}  // namespace streamlab
