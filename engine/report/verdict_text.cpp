// The verdict's lines (verdict_text.h): what bounds the step, the steps, the step's time split,
// the fixes with their cost and place and a remedy that fits the program's language and call,
// and the one-off start-up costs.
#include "engine/report/verdict_text.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/analysis/program_sites.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

std::string Percent(TimeNs part, TimeNs whole) {
  return FormatPercent(whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0);
}

// Bytes with three significant digits (13.5 GB, 32.8 KB).
std::string Size(double bytes) {
  const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) bytes /= 1000, ++unit;
  char text[32];
  std::snprintf(text, sizeof(text), bytes >= 100 || unit == 0 ? "%.0f %s" : bytes >= 10 ? "%.1f %s" : "%.2f %s", bytes, kUnits[unit]);
  return text;
}

std::string Count(double n) {
  char text[32];
  std::snprintf(text, sizeof(text), n >= 10 || n == static_cast<int>(n) ? "%.0f" : "%.1f", n);
  return text;
}

std::string StepsLine(const FindingTexts& texts, const Verdict& v) {
  const StepSplit& s = v.steps;
  if (!s.found()) return texts.Fill("verdict.steps.none", {{"span", FormatDuration(v.to - v.from)}});
  std::map<std::string, std::string> vars{{"steady", std::to_string(s.steady)},
                                          {"median", FormatDuration(s.median)},
                                          {"low", FormatDuration(s.low)},
                                          {"high", FormatDuration(s.high)},
                                          {"warmup", std::to_string(s.warmup)},
                                          {"period", std::to_string(s.period)},
                                          {"name", s.range_name}};
  std::string line = texts.Fill(s.source == StepSource::kRanges ? "verdict.steps.ranges" : "verdict.steps.repeating", vars);
  if (v.gpu_paced_step > 0)
    line += " " + texts.Fill(v.gpu_paced_held ? "verdict.steps.gpu_paced_held" : "verdict.steps.gpu_paced",
                             {{"step", FormatDuration(v.gpu_paced_step)}});
  return line;
}

// The step's time split, with the idle time's two largest causes.
std::string SplitLine(const FindingTexts& texts, const Verdict& v) {
  TimeNs step = v.compute + v.copy_only + v.idle;
  std::string causes;
  std::vector<int> order;
  for (int c = 0; c < kIdleCauseCount; ++c)
    if (v.idle_by_cause[c] * 50 >= step && v.idle_by_cause[c] > 0) order.push_back(c);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return v.idle_by_cause[a] > v.idle_by_cause[b]; });
  for (size_t i = 0; i < order.size() && i < 2; ++i)
    causes += (i ? ", " : "") + texts.Get(std::string("compare.idle.") + ToString(static_cast<IdleCause>(order[i]))) + " " +
              Percent(v.idle_by_cause[order[i]], step);
  std::string what = texts.Get(v.steps.found() ? "verdict.what.step" : "verdict.what.run");
  if (v.devices > 1) what = texts.Fill("verdict.what.devices", {{"what", what}, {"devices", std::to_string(v.devices)}});
  return texts.Fill(v.copy_only > 0 ? "verdict.split" : "verdict.split.no_copies",
                    {{"what", what},
                     {"compute", FormatDuration(v.compute)},
                     {"compute_pct", Percent(v.compute, step)},
                     {"copy", FormatDuration(v.copy_only)},
                     {"copy_pct", Percent(v.copy_only, step)},
                     {"idle", FormatDuration(v.idle)},
                     {"idle_pct", Percent(v.idle, step)},
                     {"causes", causes.empty() ? "" : texts.Fill("verdict.split.causes", {{"list", causes}})}});
}

std::string BoundLine(const FindingTexts& texts, const Verdict& v) {
  std::string each = v.fixes.empty() ? "" : FormatDuration(v.fixes.front().each);
  for (const VerdictFix& f : v.fixes)
    if (f.kind == FixKind::kLaunchRate) each = FormatDuration(f.each);
  std::string kernels;
  for (const TopKernel& k : v.top_kernels) {
    std::string key = k.most_at_once > 1 ? "verdict.kernel.side_by_side" : "verdict.kernel";
    kernels += (kernels.empty() ? "" : texts.Get("verdict.kernel.sep")) +
               texts.Fill(key, {{"name", k.name}, {"time", FormatDuration(k.busy)}, {"n", Count(k.launches)},
                                {"at_once", std::to_string(k.most_at_once)}});
  }
  std::string line = texts.Fill(std::string("verdict.bound.") + ToString(v.bound),
                                {{"launches", Count(v.launches)}, {"each", each}, {"kernels", kernels},
                                 {"per", texts.Get(v.steps.found() ? "verdict.per_step" : "verdict.per_run")},
                                 {"share", Percent(v.copy_only, v.compute + v.copy_only + v.idle)},
                                 {"unit", texts.Get(v.steps.found() ? "verdict.unit.step" : "verdict.unit.run")}});
  if (v.bound == StepBound::kGpuCompute) line += " " + texts.Get(v.python ? "verdict.remedy.py.kernels" : "verdict.remedy.cpp.kernels");
  return line;
}

std::string StartupLine(const FindingTexts& texts, const Trace& t, const Verdict& v) {
  std::string list;
  for (const StartupCost& c : v.startup) {
    if (c.time <= 0) continue;
    static const char* const kKeys[] = {c.inferred ? "verdict.startup.context_inferred" : "verdict.startup.context", "verdict.startup.module_loads", "verdict.startup.before",
                                        "verdict.startup.warmup", "verdict.startup.after"};
    std::string key = kKeys[c.kind];
    if (c.kind == StartupCost::kWarmupSteps && c.simulated_save > 0) key = c.loads > 0 ? "verdict.startup.warmup_simulated_loads" : "verdict.startup.warmup_simulated";
    list += (list.empty() ? "" : "; ") +
            texts.Fill(key, {{"time", FormatDuration(c.time)},
                             {"n", std::to_string(c.count)},
                             {"saved", FormatDuration(std::min(c.simulated_save, c.time))},
                             {"loads", FormatDuration(c.loads)},
                             {"call", c.op >= 0 ? DisplayName(t.scenario, c.op) : ""}});
  }
  return list.empty() ? "" : texts.Fill("verdict.startup", {{"list", list}});
}

}  // namespace

std::string RenderFix(const FindingTexts& texts, const Trace& /*trace*/, const Verdict& v, const VerdictFix& f) {
  std::string place;
  if (!f.site.empty()) place = texts.Fill(f.came_back ? "verdict.place_back" : "verdict.place", {{"place", texts.RenderPlace(f.site)}});
  else if (v.python && f.kind != FixKind::kLaunchRate && f.kind != FixKind::kKernels && f.kind != FixKind::kCopies &&
           f.kind != FixKind::kOtherDevice)
    place = texts.Get("verdict.place_unknown");
  TimeNs step = v.compute + v.copy_only + v.idle;
  std::string kind = ToString(f.kind);
  std::string text = texts.Fill("verdict.fix." + kind, {{"cost", FormatDuration(f.per_step)},
                                                        {"per", texts.Get(v.steps.found() ? "verdict.per_step" : "verdict.per_run")},
                                                        {"share", Percent(f.per_step, step)},
                                                        {"count", Count(f.count)},
                                                        {"call", f.call},
                                                        {"place", place},
                                                        {"each", FormatDuration(f.each)},
                                                        {"launches", Count(v.launches)},
                                                        {"bytes", Size(static_cast<double>(f.bytes))},
                                                        // bytes per ns is GB/s
                                                        {"rate", f.each > 0 ? Count(static_cast<double>(f.bytes) / static_cast<double>(f.each)) : "?"}});
  // Under 1 % a step: the step then waits on something else, which is worth saying as such.
  if (f.simulated_save >= 0) {
    std::string edit = texts.Get("verdict.edit." + f.simulated_edit);
    std::string what = texts.Get(v.steps.found() ? "verdict.saved.step" : "verdict.saved.run");
    if (f.simulated_save * 100 < f.simulated_step)
      text += " " + texts.Fill("verdict.would_save_none", {{"edit", edit}, {"what", what}});
    else
      text += " " + texts.Fill("verdict.would_save", {{"edit", edit}, {"what", what},
                                                      {"save", FormatDuration(f.simulated_save)},
                                                      {"share", Percent(f.simulated_save, f.simulated_step)}});
    // The other case the trace cannot rule out, where it saves at least 1 % of a step more.
    if (f.simulated_other_case != VerdictFix::kNoOtherCase && (f.simulated_other_save - f.simulated_save) * 100 >= f.simulated_step)
      text += " " + texts.Fill(std::string("verdict.would_save_other.") + OtherCaseName(f.simulated_other_case),
                               {{"save", FormatDuration(f.simulated_other_save)}, {"share", Percent(f.simulated_other_save, f.simulated_step)}});
  }
  std::string remedy = std::string("verdict.remedy.") + (v.python ? "py." : "cpp.") + kind;
  if (f.kind == FixKind::kLaunchRate && v.graphs) remedy += "_graphs";
  if (f.kind == FixKind::kHostWork && f.at_step_start) remedy += "_step_start";
  // A read inside PyTorch with a known remedy says it (GradScaler's overflow check, a shape that
  // depends on the data), rather than "read it less often", which the program cannot.
  if (f.kind == FixKind::kHiddenRead && IsGradScalerOverflowRead(f.site)) return text + " " + texts.Get("advice.grad_scaler");
  if (f.kind == FixKind::kHiddenRead && IsDataDependentShapeRead(f.site)) return text + " " + texts.Get("advice.data_dependent_shape");
  return text + " " + texts.Get(remedy);
}

std::vector<std::string> RenderVerdict(const FindingTexts& texts, const Trace& t, const Verdict& v) {
  std::vector<std::string> lines;
  if (v.to <= v.from) return lines;
  lines.push_back(texts.Get("verdict.title") + " " + BoundLine(texts, v));
  lines.push_back("  " + StepsLine(texts, v));
  lines.push_back("  " + SplitLine(texts, v));
  if (!v.fixes.empty()) lines.push_back("  " + texts.Get(v.steps.found() ? "verdict.fixes" : "verdict.fixes.run"));
  for (size_t i = 0; i < v.fixes.size() && i < kVerdictFixes; ++i)
    lines.push_back("    " + std::to_string(i + 1) + ". " + RenderFix(texts, t, v, v.fixes[i]));
  if (std::string startup = StartupLine(texts, t, v); !startup.empty()) lines.push_back("  " + startup);
  if (lines.size() > kVerdictLines) lines.resize(kVerdictLines);
  return lines;
}

const std::vector<std::string>& VerdictTextKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"verdict.title", "verdict.steps.none", "verdict.steps.ranges", "verdict.steps.repeating", "verdict.steps.gpu_paced", "verdict.steps.gpu_paced_held",
                               "verdict.split", "verdict.split.no_copies", "verdict.split.causes", "verdict.what.step", "verdict.what.run",
                               "verdict.what.devices", "verdict.unit.step", "verdict.unit.run", "verdict.fixes.run", "verdict.fixes",
                               "verdict.place", "verdict.place_unknown", "verdict.startup", "verdict.startup.context",
                               "verdict.startup.context_inferred", "verdict.startup.module_loads", "verdict.startup.before", "verdict.startup.warmup",
                               "verdict.startup.warmup_simulated", "verdict.startup.warmup_simulated_loads", "verdict.startup.after", "verdict.remedy.py.launch_rate_graphs",
                               "verdict.remedy.cpp.launch_rate_graphs", "verdict.per_step", "verdict.per_run", "verdict.place_back",
                               "verdict.remedy.py.host_work_step_start", "verdict.remedy.cpp.host_work_step_start",
                               "verdict.would_save", "verdict.would_save_none", "verdict.saved.step", "verdict.saved.run",
                               "verdict.would_save_other.graph_gap", "verdict.would_save_other.loader",
                               "verdict.kernel", "verdict.kernel.side_by_side", "verdict.kernel.sep"};
    for (const char* edit : {"defer_read", "drop_sync", "pin_copy", "allocate_once", "graph_steps", "shorten_host_work", "connections",
                             "side_stream_copy"})
      k.push_back(std::string("verdict.edit.") + edit);
    for (int b = 0; b < kStepBoundCount; ++b) k.push_back(std::string("verdict.bound.") + ToString(static_cast<StepBound>(b)));
    for (int f = 0; f < kFixKindCount; ++f) {
      std::string kind = ToString(static_cast<FixKind>(f));
      k.push_back("verdict.fix." + kind);
      k.push_back("verdict.remedy.py." + kind);
      k.push_back("verdict.remedy.cpp." + kind);
    }
    return k;
  }();
  return keys;
}

}  // namespace streamlab
