// Renders a program comparison (compare_programs_text.h): per step when the traces mark steps,
// each figure as "A -> B (change)", then the findings whose time changed most; or one trace's
// steps (DescribeSteps), each figure as its value.
#include "engine/analysis/compare_programs_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/util/format.h"

namespace streamlab {
namespace {

std::string Percent(TimeNs a, TimeNs b) {
  if (a <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%+.0f%%)", 100.0 * (static_cast<double>(b) - static_cast<double>(a)) / static_cast<double>(a));
  return buf;
}

std::string Count(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n == std::floor(n) ? "%.0f" : "%.2f", n);
  return buf;
}

class Renderer {
 public:
  Renderer(const ProgramComparison& c, const FindingTexts& texts) : c_(c), texts_(texts) {}

  TimeNs PerStep(TimeNs v, const StepFigures& f) const { return f.steps > 0 ? v / f.steps : v; }
  double PerStep(size_t n, const StepFigures& f) const {
    return f.steps > 0 ? static_cast<double>(n) / f.steps : static_cast<double>(n);
  }
  // "A -> B (+n%)", or, describing one trace, its value.
  std::string Change(TimeNs a, TimeNs b) const {
    return c_.single ? FormatDuration(a) : FormatDuration(a) + " -> " + FormatDuration(b) + Percent(a, b);
  }
  std::string Change(TimeNs StepFigures::*field) const {
    return Change(PerStep(c_.a.*field, c_.a), PerStep(c_.b.*field, c_.b));
  }
  std::string Amount(int count, TimeNs time, const StepFigures& f) const {
    if (count == 0) return texts_.Fill("compare.none", {});
    return texts_.Fill(f.steps > 0 ? "compare.count_per_step" : "compare.count",
                       {{"n", Count(PerStep(static_cast<size_t>(count), f))}, {"time", FormatDuration(PerStep(time, f))}});
  }
  std::string Run(const std::string& name, const std::string& label, const std::string& backend, const StepFigures& f) const {
    std::string steps = f.steps > 0 ? texts_.Fill("compare.steps", {{"n", std::to_string(f.steps)}, {"unit", c_.unit}})
                                    : texts_.Fill("compare.whole", {});
    return name + ": " + label + " (" + backend + ", " + steps + ")";
  }

  std::string Times(TimeNs a, TimeNs b) const { return c_.single ? FormatDuration(a) : FormatDuration(a) + " -> " + FormatDuration(b); }

  void Figures(std::vector<std::string>& out) const {
    if (c_.single)
      out.push_back(texts_.Fill("compare.per_step_one", {{"n", std::to_string(c_.a.steps)}, {"unit", c_.unit}}));
    else
      out.push_back(c_.unit.empty() ? texts_.Fill("compare.whole_traces", {})
                                    : texts_.Fill("compare.per_step", {{"unit", c_.unit}}));
    auto row = [&](const char* key, const std::string& change) { out.push_back("  " + texts_.Fill(key, {{"change", change}})); };
    Steady(out);
    row("compare.wall", Change(PerStep(c_.a.to - c_.a.from, c_.a), PerStep(c_.b.to - c_.b.from, c_.b)));
    if (!c_.unit.empty()) row("compare.host_in_steps", Change(&StepFigures::host_in_steps));
    row("compare.gpu_busy", Change(&StepFigures::gpu_busy));
    row("compare.host_blocked", Change(&StepFigures::host_blocked));
    row("compare.gpu_idle", Change(&StepFigures::gpu_idle));
    for (int i = 0; i < kIdleCauseCount; ++i) {
      TimeNs a = PerStep(c_.a.idle_by_cause[i], c_.a), b = PerStep(c_.b.idle_by_cause[i], c_.b);
      if (a == 0 && b == 0) continue;
      out.push_back("    " + texts_.Fill(std::string("compare.idle.") + ToString(static_cast<IdleCause>(i)), {}) + ": " +
                    Times(a, b));
      if (static_cast<IdleCause>(i) != IdleCause::kHostWork) continue;
      // Where the host was then, or, where no range says it, where it came back to CUDA.
      if (c_.host_work_resumed && !c_.host_work_places.empty())
        out.push_back("      " + texts_.Fill("compare.came_back", {}));
      for (const PlaceChange& p : c_.host_work_places)
        out.push_back(std::string(c_.host_work_resumed ? "        " : "      ") + texts_.RenderPlace(p.place) + ": " +
                      Times(PerStep(p.time_a, c_.a), PerStep(p.time_b, c_.b)));
    }
    TimeNs outside_a = PerStep(c_.a.outside_kernels, c_.a), outside_b = PerStep(c_.b.outside_kernels, c_.b);
    if (outside_a > 0 || outside_b > 0)
      out.push_back("    " + texts_.Fill("compare.idle.outside", {}) + ": " + Times(outside_a, outside_b));
    if (c_.single)
      out.push_back("  " + texts_.Fill("compare.kernels_one", {{"n", Count(PerStep(c_.a.kernels, c_.a))}}));
    else
      out.push_back("  " + texts_.Fill("compare.kernels", {{"a", Count(PerStep(c_.a.kernels, c_.a))},
                                                          {"b", Count(PerStep(c_.b.kernels, c_.b))}}));
    ToolTime(out);
  }

  // The steady step as whatif times it (step_pace.h's SteadySteps), when a run's steps were
  // found: the means below count warm-up steps too.
  std::string SteadyStep(const SteadySteps& s) const {
    return s.steady ? FormatDuration(s.step) : texts_.Fill("compare.steady_none", {});
  }
  std::string SteadyChange() const {
    const SteadySteps &a = c_.steady_a, &b = c_.steady_b;
    if (c_.single) return SteadyStep(a);
    if (a.steady && b.steady) return Change(a.step, b.step);  // with its difference
    return SteadyStep(a) + " -> " + SteadyStep(b);
  }
  void Steady(std::vector<std::string>& out) const {
    const SteadySteps &a = c_.steady_a, &b = c_.steady_b;
    if (a.steady == 0 && (c_.single || b.steady == 0)) return;
    std::string warm = std::to_string(a.warmup) + (c_.single ? "" : " -> " + std::to_string(b.warmup));
    out.push_back("  " + texts_.Fill("compare.steady", {{"change", SteadyChange()}, {"warm", warm}}));
  }

  // What recording or torch.profiler is estimated to have added to the host's time a step,
  // when the trace's notes say what it costs a call (a recorded or imported trace).
  std::string ToolRange(const StepFigures& f) const {
    if (f.tool_high == 0) return texts_.Fill("compare.tool_time_unknown", {});
    TimeNs low = PerStep(f.tool_low, f), high = PerStep(f.tool_high, f);
    if (low == high) return FormatDuration(low);
    return texts_.Fill("compare.range", {{"low", FormatDuration(low)}, {"high", FormatDuration(high)}});
  }
  void ToolTime(std::vector<std::string>& out) const {
    if (c_.a.tool_high == 0 && (c_.single || c_.b.tool_high == 0)) return;
    if (c_.single)
      out.push_back("  " + texts_.Fill("compare.tool_time_one", {{"range", ToolRange(c_.a)},
                                                                  {"n", Count(PerStep(c_.a.submitting_calls, c_.a))}}));
    else
      out.push_back("  " + texts_.Fill("compare.tool_time", {{"a", ToolRange(c_.a)}, {"b", ToolRange(c_.b)}}));
  }

  // The largest changes, at most 12 and none under 1 % of the longer wall time a step (noise:
  // calls a few microseconds over the slack); the rest counted (--json lists them all).
  void Findings(std::vector<std::string>& out) const {
    if (c_.tallies.empty()) {
      out.push_back(texts_.Fill("compare.no_findings", {}));
      return;
    }
    out.push_back(texts_.Fill(c_.unit.empty() ? "compare.findings" : "compare.findings_per_step", {}));
    constexpr size_t kShown = 12;
    const TimeNs noise = std::max(PerStep(c_.a.to - c_.a.from, c_.a), PerStep(c_.b.to - c_.b.from, c_.b)) / 100;
    size_t shown = 0;
    for (const FindingTally& t : c_.tallies) {
      if (shown == kShown || std::max(PerStep(t.time_a, c_.a), PerStep(t.time_b, c_.b)) < noise) continue;
      ++shown;
      std::string place = t.site.empty() ? texts_.Fill("compare.at_call", {{"call", t.call}}) : texts_.RenderPlace(t.site);
      std::string head = "  " + texts_.Fill(std::string("compare.kind.") + ToString(t.kind), {}) + ", " + place + ": ";
      if (c_.single) {
        out.push_back(head + Amount(t.count_a, t.time_a, c_.a));
        continue;
      }
      std::string verdict = t.count_b == 0 ? texts_.Fill("compare.gone", {}) : t.count_a == 0 ? texts_.Fill("compare.new", {}) : "";
      out.push_back(head + Amount(t.count_a, t.time_a, c_.a) + " -> " + Amount(t.count_b, t.time_b, c_.b) + verdict);
    }
    if (c_.tallies.size() > shown)
      out.push_back("  " + texts_.Fill("group.more", {{"n", std::to_string(c_.tallies.size() - shown)}}));
  }

 private:
  const ProgramComparison& c_;
  const FindingTexts& texts_;
};

}  // namespace

std::vector<std::string> RenderProgramComparison(const ProgramComparison& c, const FindingTexts& texts,
                                                 const std::string& label_a, const std::string& label_b,
                                                 const std::string& backend_a, const std::string& backend_b) {
  Renderer r(c, texts);
  std::vector<std::string> out{r.Run("A", label_a, backend_a, c.a), r.Run("B", label_b, backend_b, c.b)};
  r.Figures(out);
  r.Findings(out);
  return out;
}

std::vector<std::string> RenderStepReport(const ProgramComparison& c, const FindingTexts& texts) {
  Renderer r(c, texts);
  std::vector<std::string> out;
  r.Figures(out);
  r.Findings(out);
  return out;
}

}  // namespace streamlab
