// `streamlab-cli compare BEFORE AFTER [--per NAME] [--json] [--lang zh]`: two traces of one
// program (recordings, torch.profiler traces, saved traces) side by side, per step where the
// traces mark their steps (engine/classroom/compare_programs.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "app/cli/commands.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/classroom/compare_programs.h"
#include "engine/trace/trace_json.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {

Trace ReadProgramTrace(const std::string& path) {
  // Not recognised as one: read it as a trace anyway, for the reader's own error (malformed
  // JSON at line N, a scenario where a trace was wanted, ...).
  std::optional<Trace> trace = ReadTraceIfOne(path);
  return trace ? std::move(*trace) : LoadTraceFile(path);
}

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

struct Printer {
  const FindingTexts& texts;
  const ProgramComparison& c;
  TimeNs PerStep(TimeNs v, const StepFigures& f) const { return f.steps > 0 ? v / f.steps : v; }
  // "a -> b (+x%)" for one figure.
  std::string Change(TimeNs StepFigures::*field) const {
    TimeNs a = PerStep(c.a.*field, c.a), b = PerStep(c.b.*field, c.b);
    return FormatDuration(a) + " -> " + FormatDuration(b) + Percent(a, b);
  }
  std::string Amount(int count, TimeNs time, const StepFigures& f) const {
    if (count == 0) return texts.Fill("compare.none", {});
    double n = f.steps > 0 ? static_cast<double>(count) / f.steps : count;
    return texts.Fill(f.steps > 0 ? "compare.count_per_step" : "compare.count",
                      {{"n", Count(n)}, {"time", FormatDuration(PerStep(time, f))}});
  }
};

Json FiguresJson(const StepFigures& f) {
  Json idle = Json::object();
  for (int i = 0; i < kIdleCauseCount; ++i) idle[ToString(static_cast<IdleCause>(i))] = f.idle_by_cause[i];
  return {{"steps", f.steps},         {"from_ns", f.from},       {"to_ns", f.to},
          {"host_in_steps_ns", f.host_in_steps}, {"gpu_busy_ns", f.gpu_busy}, {"host_blocked_ns", f.host_blocked},
          {"gpu_idle_ns", f.gpu_idle}, {"idle_by_cause_ns", idle}, {"kernels", f.kernels}};
}

void PrintJson(const ProgramComparison& c, const FindingTexts& texts) {
  Json tallies = Json::array();
  for (const FindingTally& t : c.tallies)
    tallies.push_back({{"kind", ToString(t.kind)},
                       {"place", t.site.empty() ? t.call : texts.RenderPlace(t.site)},
                       {"count_a", t.count_a},
                       {"count_b", t.count_b},
                       {"time_a_ns", t.time_a},
                       {"time_b_ns", t.time_b}});
  Json out{{"step_range", c.unit}, {"a", FiguresJson(c.a)}, {"b", FiguresJson(c.b)}, {"findings", tallies}};
  std::cout << DumpJson(out, 2) << "\n";
}

}  // namespace

int CmdCompare(const CompareCommand& cmd) {
  std::string lang = cmd.lang.empty() ? DefaultLanguage() : cmd.lang;
  if (lang != "en" && lang != "zh") throw InputError("--lang must be en or zh");
  FindingTexts texts = FindingTexts::Load(lang);
  Trace a = ReadProgramTrace(cmd.before), b = ReadProgramTrace(cmd.after);
  Analysis analysis_a = Analyze(a), analysis_b = Analyze(b);
  ProgramComparison c = ComparePrograms(a, analysis_a, b, analysis_b, cmd.per);
  if (cmd.json) {
    PrintJson(c, texts);
    return 0;
  }
  auto name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  auto run = [&](const char* label, const std::string& path, const Trace& t, const StepFigures& f) {
    std::string steps = f.steps > 0 ? texts.Fill("compare.steps", {{"n", std::to_string(f.steps)}, {"unit", c.unit}})
                                    : texts.Fill("compare.whole", {});
    std::cout << label << ": " << name(path) << " (" << t.backend << ", " << steps << ")\n";
  };
  run("A", cmd.before, a, c.a);
  run("B", cmd.after, b, c.b);
  Printer p{texts, c};
  std::cout << (c.unit.empty() ? texts.Fill("compare.whole_traces", {}) : texts.Fill("compare.per_step", {{"unit", c.unit}}))
            << "\n";
  auto row = [&](const char* key, const std::string& change) { std::cout << "  " << texts.Fill(key, {{"change", change}}) << "\n"; };
  TimeNs wall_a = p.PerStep(c.a.to - c.a.from, c.a), wall_b = p.PerStep(c.b.to - c.b.from, c.b);
  row("compare.wall", FormatDuration(wall_a) + " -> " + FormatDuration(wall_b) + Percent(wall_a, wall_b));
  if (!c.unit.empty()) row("compare.host_in_steps", p.Change(&StepFigures::host_in_steps));
  row("compare.gpu_busy", p.Change(&StepFigures::gpu_busy));
  row("compare.host_blocked", p.Change(&StepFigures::host_blocked));
  row("compare.gpu_idle", p.Change(&StepFigures::gpu_idle));
  for (int i = 0; i < kIdleCauseCount; ++i) {
    TimeNs ia = p.PerStep(c.a.idle_by_cause[i], c.a), ib = p.PerStep(c.b.idle_by_cause[i], c.b);
    if (ia == 0 && ib == 0) continue;
    std::cout << "    " << texts.Fill(std::string("compare.idle.") + ToString(static_cast<IdleCause>(i)), {})
              << ": " << FormatDuration(ia) << " -> " << FormatDuration(ib) << "\n";
  }
  std::cout << "  "
            << texts.Fill("compare.kernels", {{"a", Count(c.a.steps > 0 ? static_cast<double>(c.a.kernels) / c.a.steps : c.a.kernels)},
                                              {"b", Count(c.b.steps > 0 ? static_cast<double>(c.b.kernels) / c.b.steps : c.b.kernels)}})
            << "\n";
  if (c.tallies.empty()) {
    std::cout << texts.Fill("compare.no_findings", {}) << "\n";
    return 0;
  }
  std::cout << texts.Fill(c.unit.empty() ? "compare.findings" : "compare.findings_per_step", {}) << "\n";
  // The largest changes, at most 12 and none under 1 % of the longer wall time a step (noise:
  // calls a few microseconds over the slack); the rest counted (--json lists them all).
  constexpr size_t kShown = 12;
  const TimeNs noise = std::max(wall_a, wall_b) / 100;
  size_t shown = 0;
  for (const FindingTally& t : c.tallies) {
    if (shown == kShown || std::max(p.PerStep(t.time_a, c.a), p.PerStep(t.time_b, c.b)) < noise) continue;
    ++shown;
    std::string place = t.site.empty() ? texts.Fill("compare.at_call", {{"call", t.call}}) : texts.RenderPlace(t.site);
    std::string verdict = t.count_b == 0 ? texts.Fill("compare.gone", {}) : t.count_a == 0 ? texts.Fill("compare.new", {}) : "";
    std::cout << "  " << texts.Fill(std::string("compare.kind.") + ToString(t.kind), {}) << ", " << place << ": "
              << p.Amount(t.count_a, t.time_a, c.a) << " -> " << p.Amount(t.count_b, t.time_b, c.b) << verdict << "\n";
  }
  if (c.tallies.size() > shown) std::cout << "  " << texts.Fill("group.more", {{"n", std::to_string(c.tallies.size() - shown)}}) << "\n";
  return 0;
}

}  // namespace streamlab
