// Before and after: two traces of a program compared over their steps (compare_programs.h).
// Which ops belong to the steps is decided by time alone (submitted inside a step range, on
// any thread): the backward pass of autograd's own thread belongs to the step that ran it.
#include "engine/analysis/compare_programs.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/program_sites.h"
#include "engine/analysis/resumed_places.h"
#include "engine/trace/host_cost.h"
#include "engine/trace/trace_query.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

bool IsStepRange(const HostRange& r, const std::string& name) {
  return r.name == name || (r.name.size() > name.size() && r.name.compare(0, name.size(), name) == 0 &&
                            r.name[name.size()] == '#');
}

// Whether a step lies in what was recorded. A recording of a capture range or a --delay window
// keeps the ranges open at its start; a step begun before it lacks its first part, unless the
// recording began right after it (under 1 % of the step in: a program that starts its
// profiler range inside its first step), and is not measured.
bool Recorded(const Trace& t, const HostRange& r) {
  return !t.recorded_from || r.begin + (r.end - r.begin) / 100 >= *t.recorded_from;
}

// The steps' ranges, by begin.
std::vector<std::pair<TimeNs, TimeNs>> StepSpans(const Trace& t, const std::string& name) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (const HostRange& r : t.ranges)
    if (r.end >= r.begin && IsStepRange(r, name) && Recorded(t, r)) out.push_back({r.begin, r.end});
  std::sort(out.begin(), out.end());
  return out;
}

// Whether `at` lies inside one of `spans` (sorted by begin; they may nest or overlap).
bool Inside(const std::vector<std::pair<TimeNs, TimeNs>>& spans, const std::vector<TimeNs>& end_so_far, TimeNs at) {
  // The spans beginning at or before `at`; one of them holds it when the latest end among
  // them reaches `at`.
  size_t n = static_cast<size_t>(std::upper_bound(spans.begin(), spans.end(), std::make_pair(at, std::numeric_limits<TimeNs>::max())) - spans.begin());
  return n > 0 && end_so_far[n - 1] >= at;
}

TimeNs Overlap(TimeNs a0, TimeNs a1, TimeNs b0, TimeNs b1) { return std::max<TimeNs>(0, std::min(a1, b1) - std::max(a0, b0)); }

// The run's figures over its steps, and which ops were submitted in them.
StepFigures FiguresOver(const Trace& t, const Analysis& analysis, const std::string& unit, std::vector<char>& in_steps) {
  StepFigures f;
  const Scenario& s = t.scenario;
  in_steps.assign(t.ops.size(), unit.empty() ? 1 : 0);
  if (unit.empty()) {
    f.from = TraceBegin(t);
    f.to = TraceEnd(t);
  } else {
    std::vector<std::pair<TimeNs, TimeNs>> spans = StepSpans(t, unit);
    if (spans.empty())
      throw InputError("the trace's \"" + unit + "\" ranges all end before they begin, or began before what it recorded");
    f.steps = static_cast<int>(spans.size());
    std::vector<TimeNs> end_so_far;
    for (const auto& [b, e] : spans) end_so_far.push_back(std::max(end_so_far.empty() ? e : end_so_far.back(), e));
    // Time inside the steps, counted once where step ranges of several threads overlap.
    TimeNs covered_to = spans.front().first;
    for (const auto& [b, e] : spans) {
      f.host_in_steps = SaturatingAdd(f.host_in_steps, std::max<TimeNs>(0, e - std::max(b, covered_to)));
      covered_to = std::max(covered_to, e);
    }
    f.from = spans.front().first;
    f.to = end_so_far.back();
    for (size_t i = 0; i < t.ops.size(); ++i) {
      if (!Inside(spans, end_so_far, t.ops[i].submit)) continue;
      in_steps[i] = 1;
      if (t.ops[i].gpu) f.to = std::max(f.to, t.ops[i].end);
    }
  }
  if (unit.empty()) f.host_in_steps = f.to - f.from;
  const TimeNs slack = ExplainSlack(t);
  std::vector<std::pair<TimeNs, TimeNs>> busy;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = s.ops[i];
    const OpRecord& r = t.ops[i];
    // Only the part inside the window: an op after it (a last read of the result) would clip to
    // a span that ends before it begins, and take time away from the sum.
    if (IsGpuWork(op) && r.gpu && r.end > f.from && r.start < f.to) busy.push_back({std::max(r.start, f.from), std::min(r.end, f.to)});
    if (!in_steps[i] || op.kind == OpKind::kHostWork) continue;
    if (op.kind == OpKind::kKernel) ++f.kernels;
    if (IsGpuWork(op) && r.gpu && !r.graph_replay) ++f.submitting_calls;
    if (!IsGpuWork(op) && r.gpu) continue;  // records and waits: no host time of their own
    if (HostCallTime(r) > slack) f.host_blocked = SaturatingAdd(f.host_blocked, HostCallTime(r));
  }
  std::sort(busy.begin(), busy.end());
  TimeNs busy_to = f.from;
  for (const auto& [b, e] : busy) {
    if (e <= busy_to) continue;
    f.gpu_busy = SaturatingAdd(f.gpu_busy, e - std::max(b, busy_to));
    busy_to = e;
  }
  // Per device, the first kernel (or memset) start and last end in the window, as idle gaps count.
  std::map<int, std::pair<TimeNs, TimeNs>> kernels_span;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = s.ops[i];
    const OpRecord& r = t.ops[i];
    if (!r.gpu || (op.kind != OpKind::kKernel && op.kind != OpKind::kMemset) || r.end <= f.from || r.start >= f.to) continue;
    int device = op.stream >= 0 && static_cast<size_t>(op.stream) < s.streams.size() ? s.streams[op.stream].device : 0;
    auto [it, fresh] = kernels_span.emplace(device, std::make_pair(r.start, r.end));
    if (!fresh) it->second = {std::min(it->second.first, r.start), std::max(it->second.second, r.end)};
  }
  for (const auto& [device, span] : kernels_span)
    f.outside_kernels = SaturatingAdd(f.outside_kernels, std::max<TimeNs>(0, span.first - f.from) + std::max<TimeNs>(0, f.to - span.second));
  HostCostPerCall cost = HostCostOf(t);
  f.tool_low = static_cast<TimeNs>(cost.low_ns * static_cast<double>(f.submitting_calls));
  f.tool_high = static_cast<TimeNs>(cost.high_ns * static_cast<double>(f.submitting_calls));
  for (const IdleGap& g : analysis.figures.idle_gaps) {
    TimeNs part = Overlap(g.from, g.to, f.from, f.to);
    f.idle_by_cause[static_cast<int>(g.cause)] = SaturatingAdd(f.idle_by_cause[static_cast<int>(g.cause)], part);
    f.gpu_idle = SaturatingAdd(f.gpu_idle, part);
  }
  return f;
}

// The findings a comparison counts: those about one call or op, not the run's totals
// (idle time, overlap) or each op's start (the figures say those).
bool Tallied(FindingKind k) {
  return k != FindingKind::kStartDelay && k != FindingKind::kOverlap && k != FindingKind::kGpuIdle;
}

using TallyKey = std::tuple<int, std::string, std::string>;

std::string SiteKey(const ProgramSite& s) {
  std::string key = s.file + "|" + s.function + "|" + s.via_file + "|" + s.via_function + "|";
  for (const std::string& r : s.ranges) key += r + ">";
  return key;
}

void Tally(const Trace& t, const Analysis& analysis, const std::vector<char>& in_steps, bool second,
           std::map<TallyKey, FindingTally>& tallies) {
  auto in = [&](int op) { return op >= 0 && static_cast<size_t>(op) < in_steps.size() && in_steps[op]; };
  // A call that blocked the host for a reason with its own finding (a hidden sync, a pageable
  // copy, cudaMalloc, a too-wide sync) is counted there, not again as a blocking call.
  std::vector<char> said(in_steps.size(), 0);
  for (const Finding& f : analysis.findings) {
    if (!in(f.op) || (f.kind != FindingKind::kHiddenSync && f.kind != FindingKind::kPageableAsyncCopy &&
                      f.kind != FindingKind::kMallocMidRun && f.kind != FindingKind::kScopeTooWide))
      continue;
    said[f.op] = 1;
    if (f.kind == FindingKind::kHiddenSync)  // the read's copy, and the call that waited for it
      for (int op : f.because)
        if (in(op)) said[op] = 1;
  }
  for (const Finding& f : analysis.findings) {
    if (!Tallied(f.kind) || !in(f.op) || (f.kind == FindingKind::kHostBlock && said[f.op])) continue;
    // Without a place, the kind of call (a launch: its kernel); not the op's own name, which
    // numbers allocations and names streams, and so differs between runs.
    const Op& op = t.scenario.ops[f.op];
    bool named = op.kind == OpKind::kKernel || op.kind == OpKind::kApiCall;
    std::string call = !f.site.empty() ? "" : named ? DisplayName(t.scenario, f.op) : ToString(op.kind);
    FindingTally& tally = tallies[{static_cast<int>(f.kind), SiteKey(f.site), call}];
    tally.kind = f.kind;
    if (tally.site.empty()) tally.site = f.site;
    tally.site.exact_line = false;  // matched by function across the runs: an edit may move its line
    tally.call = call;
    (second ? tally.count_b : tally.count_a) += 1;
    TimeNs& time = second ? tally.time_b : tally.time_a;
    time = SaturatingAdd(time, f.amount);
  }
}

// One run's idle time for the host's own work within its window, place by place: where the
// ranges say the host was, and where it came back to CUDA after that work.
struct RunPlaces {
  TimeNs looked_at = 0, known = 0;
  std::vector<HostPlace> was_at, came_back_at;
};

RunPlaces PlacesOf(const Trace& t, const Analysis& analysis, const StepFigures& f) {
  RunPlaces run;
  if (t.ranges.empty()) return run;
  RangeIndex index(t);
  run.was_at = IdlePlaces(t, analysis.figures, index, IdleCause::kHostWork, f.from, f.to, &run.looked_at);
  for (const HostPlace& p : run.was_at) run.known += p.time;
  run.came_back_at = ResumedPlaces(t, analysis.figures, index, IdleCause::kHostWork, f.from, f.to);
  return run;
}

// Where the host was in each run's idle time for its own work, place by place. From the
// ranges where they say so for at least half of each run's such time; else where the host came
// back to CUDA after it (a recording's stacks at calls), matched by line, which `resumed` says.
std::vector<PlaceChange> HostWorkPlaces(const Trace& a, const Analysis& analysis_a, const StepFigures& fa, const Trace& b,
                                        const Analysis& analysis_b, const StepFigures& fb, bool* resumed) {
  RunPlaces run_a = PlacesOf(a, analysis_a, fa), run_b = PlacesOf(b, analysis_b, fb);
  auto ranges_say = [](const RunPlaces& r) { return r.looked_at == 0 || r.known * 2 >= r.looked_at; };
  *resumed = !(ranges_say(run_a) && ranges_say(run_b)) && (!run_a.came_back_at.empty() || !run_b.came_back_at.empty());
  std::map<std::string, PlaceChange> by_key;
  std::map<std::string, bool> large;  // a tenth of either run's such time
  auto add = [&](const RunPlaces& run, bool second) {
    for (const HostPlace& p : *resumed ? run.came_back_at : run.was_at) {
      std::string key = PlaceKey(p.site) + (*resumed ? "\n" + std::to_string(p.site.line) : "");
      PlaceChange& change = by_key[key];
      if (change.place.empty()) change.place = p.site;
      (second ? change.time_b : change.time_a) += p.time;
      if (p.time * 10 >= run.looked_at && run.looked_at > 0) large[key] = true;
    }
  };
  add(run_a, false);
  add(run_b, true);
  auto per_step = [](TimeNs v, int steps) { return steps > 0 ? v / steps : v; };
  std::vector<PlaceChange> out;
  for (auto& [key, change] : by_key)
    if (large.count(key)) out.push_back(change);
  std::stable_sort(out.begin(), out.end(), [&](const PlaceChange& x, const PlaceChange& y) {
    return std::abs(per_step(x.time_a, fa.steps) - per_step(x.time_b, fb.steps)) >
           std::abs(per_step(y.time_a, fa.steps) - per_step(y.time_b, fb.steps));
  });
  if (out.size() > 3) out.resize(3);
  return out;
}

}  // namespace

int CountStepRanges(const Trace& trace, const std::string& name) {
  int n = 0;
  for (const HostRange& r : trace.ranges)
    if (IsStepRange(r, name)) ++n;
  return n;
}

std::string StepRangeOf(const Trace& a, const Trace& b, const std::string& per) {
  if (!per.empty()) {
    for (const Trace* t : {&a, &b})
      if (CountStepRanges(*t, per) == 0)
        throw InputError("--per " + per + ": the " + (t == &a ? "first" : "second") + " trace has no range named \"" + per +
                         "\" or \"" + per + "#N\"");
    return per;
  }
  if (CountStepRanges(a, "ProfilerStep") > 0 && CountStepRanges(b, "ProfilerStep") > 0) return "ProfilerStep";
  return "";
}

ProgramComparison ComparePrograms(const Trace& a, const Analysis& analysis_a, const Trace& b, const Analysis& analysis_b,
                                  const std::string& per, std::optional<SteadySteps> steady_a) {
  ProgramComparison c;
  c.unit = StepRangeOf(a, b, per);
  std::vector<char> in_a, in_b;
  c.a = FiguresOver(a, analysis_a, c.unit, in_a);
  c.b = FiguresOver(b, analysis_b, c.unit, in_b);
  c.steady_a = steady_a ? *steady_a : SteadyStepsOf(a);
  c.steady_b = SteadyStepsOf(b);
  c.host_work_places = HostWorkPlaces(a, analysis_a, c.a, b, analysis_b, c.b, &c.host_work_resumed);
  std::map<TallyKey, FindingTally> tallies;
  Tally(a, analysis_a, in_a, false, tallies);
  Tally(b, analysis_b, in_b, true, tallies);
  // Per step when steps are counted: a change in count is a change per step.
  auto per_step = [&](TimeNs v, int steps) { return steps > 0 ? v / steps : v; };
  for (auto& [key, tally] : tallies) c.tallies.push_back(tally);
  std::stable_sort(c.tallies.begin(), c.tallies.end(), [&](const FindingTally& x, const FindingTally& y) {
    TimeNs dx = std::abs(per_step(x.time_a, c.a.steps) - per_step(x.time_b, c.b.steps));
    TimeNs dy = std::abs(per_step(y.time_a, c.a.steps) - per_step(y.time_b, c.b.steps));
    if (dx != dy) return dx > dy;
    return std::abs(x.count_a - x.count_b) > std::abs(y.count_a - y.count_b);
  });
  return c;
}

ProgramComparison DescribeSteps(const Trace& trace, const Analysis& analysis, const std::string& per,
                                std::optional<SteadySteps> steady) {
  ProgramComparison c;
  c.single = true;
  if (!per.empty() && CountStepRanges(trace, per) == 0)
    throw InputError("--per " + per + ": the trace has no range named \"" + per + "\" or \"" + per + "#N\"");
  c.unit = StepRangeOf(trace, trace, per);
  std::vector<char> in_steps;
  c.a = FiguresOver(trace, analysis, c.unit, in_steps);
  c.steady_a = steady ? *steady : SteadyStepsOf(trace);
  // Against a run with nothing in it: each place's and each finding's time is its change.
  const Trace none;
  c.host_work_places = HostWorkPlaces(trace, analysis, c.a, none, analysis, StepFigures{}, &c.host_work_resumed);
  std::map<TallyKey, FindingTally> tallies;
  Tally(trace, analysis, in_steps, false, tallies);
  for (auto& [key, tally] : tallies) c.tallies.push_back(tally);
  std::stable_sort(c.tallies.begin(), c.tallies.end(), [](const FindingTally& x, const FindingTally& y) {
    return x.time_a != y.time_a ? x.time_a > y.time_a : x.count_a > y.count_a;
  });
  return c;
}

}  // namespace streamlab
