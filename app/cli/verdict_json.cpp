// `explain --json`'s "verdict": the steps, the step's time split, the bound, the fixes and the
// one-off costs, with the lines the text prints.
#include "app/cli/verdict_json.h"

#include "engine/report/verdict_text.h"

namespace streamlab {
namespace {

const char* StartupName(StartupCost::Kind kind) {
  static const char* const kNames[] = {"context_creation", "module_loads", "before_first_step", "warmup_steps",
                                       "after_last_step"};
  return kNames[kind];
}

const char* SourceName(StepSource source) {
  switch (source) {
    case StepSource::kRanges: return "ranges";
    case StepSource::kRepeating: return "repeating_gpu_work";
    default: return "none";
  }
}

}  // namespace

Json VerdictJson(const Verdict& v, const Trace& trace, const FindingTexts& texts, Json (*site_json)(const ProgramSite&)) {
  const StepSplit& s = v.steps;
  Json steps = Json::array();
  for (const ProgramStep& step : s.steps)
    steps.push_back({{"begin_ns", step.begin}, {"end_ns", step.end}, {"gpu_ops", step.gpu_ops}, {"steady", step.steady}});
  Json fixes = Json::array();
  for (const VerdictFix& f : v.fixes) {
    fixes.push_back({{"kind", ToString(f.kind)},
                     {"per_step_ns", f.per_step},
                     {"count_per_step", f.count},
                     {"call", f.call},
                     {"text", RenderFix(texts, trace, v, f)}});
    if (!f.site.empty()) fixes.back()["site"] = site_json(f.site);
    if (f.simulated_save >= 0)
      fixes.back()["simulated"] = {{"would_save_ns", f.simulated_save}, {"replayed_step_ns", f.simulated_step}};
    if (f.simulated_save >= 0 && f.simulated_other_case != VerdictFix::kNoOtherCase)  // the case the trace cannot rule out
      fixes.back()["simulated"]["other_case"] = {{"if", OtherCaseName(f.simulated_other_case)}, {"would_save_ns", f.simulated_other_save}};
  }
  Json startup = Json::array();
  for (const StartupCost& c : v.startup)
    startup.push_back({{"kind", StartupName(c.kind)}, {"time_ns", c.time}, {"count", c.count}, {"inferred", c.inferred},
                       {"loads_ns", c.loads}, {"simulated_save_ns", c.simulated_save}});
  return {{"bound", ToString(v.bound)},
          {"steps",
           {{"source", SourceName(s.source)},
            {"range_name", s.range_name},
            {"period_gpu_ops", s.period},
            {"found", static_cast<int>(s.steps.size())},
            {"warmup", s.warmup},
            {"steady", s.steady},
            {"median_ns", s.median},
            {"fastest_ns", s.low},
            {"slowest_ns", s.high},
            // The GPU's time a step when the host ran ahead of it (0: it did not); held: a sync
            // every few steps held the host back, and this is the spacing of steps' ends.
            {"gpu_paced_ns", v.gpu_paced_step},
            {"gpu_paced_held", v.gpu_paced_held},
            {"list", steps}}},
          {"window", {{"from_ns", v.from}, {"to_ns", v.to}, {"devices", v.devices}}},
          {"per_step", {{"compute_ns", v.compute}, {"copy_only_ns", v.copy_only}, {"idle_ns", v.idle}, {"launches", v.launches}}},
          {"fixes", fixes},
          {"startup", startup},
          {"text", RenderVerdict(texts, trace, v)}};
}

Json AccountJson(const ProgramAccount& account) {
  Json processes = Json::array();
  for (const ProcessAccount& p : account.processes) {
    Json categories = Json::object(), kinds = Json::object();
    for (int c = 0; c < kTimeCategoryCount; ++c)
      if (p.by_category[c] > 0) categories[ToString(static_cast<TimeCategory>(c))] = p.by_category[c];
    for (int k = 0; k < kTimeKindCount; ++k)
      if (p.by_kind[k] > 0) kinds[ToString(static_cast<TimeKind>(k))] = p.by_kind[k];
    Json walked = Json::array();
    for (const WalkedStep& w : p.walked) walked.push_back({{"step", w.step}, {"begin_ns", w.begin}, {"end_ns", w.end}, {"cut", w.cut}});
    // The first walked step's path, latest first (at most 400 segments): where to look in the chart.
    Json path = Json::array();
    if (!p.walked.empty())
      for (const PathSegment& seg : p.walked.front().path) {
        if (path.size() >= 400) break;
        path.push_back({{"from_ns", seg.from}, {"to_ns", seg.to}, {"kind", ToString(seg.kind)}, {"op", seg.op},
                        {"thread", seg.thread}, {"after_wait", seg.after_wait}, {"rank", seg.rank}});
      }
    processes.push_back({{"process", p.process},
                         {"name", p.name},
                         {"scope", p.steps.found() ? "steady_steps" : "whole_run"},
                         {"steps_found", static_cast<int>(p.steps.steps.size())},
                         {"steady", p.steps.steady},
                         {"median_ns", p.steps.median},
                         {"gpu_paced", p.gpu_paced},
                         {"step_ns", p.step},
                         {"categories", categories},
                         {"kinds", kinds},
                         {"walked", walked},
                         {"example_path", path}});
  }
  return {{"processes", processes}};
}

}  // namespace streamlab
