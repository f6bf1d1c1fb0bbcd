// `explain --json`'s "verdict": the steps, the step's time split, the bound, the fixes and the
// one-off costs, with the lines the text prints.
#include "app/cli/verdict_json.h"

#include "engine/report/verdict_text.h"

namespace streamlab {
namespace {

const char* StartupName(StartupCost::Kind kind) {
  static const char* const kNames[] = {"context_creation", "module_loads", "before_first_step", "warmup_steps",
                                       "after_last_step", "after_gpu_work"};
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

namespace {

Json FixJson(const VerdictFix& f, const Trace& trace, const Verdict& v, const FindingTexts& texts, Json (*site_json)(const ProgramSite&)) {
  Json fix{{"kind", ToString(f.kind)},
           {"category", ToString(CategoryOf(f.time_kind))},
           {"time_kind", ToString(f.time_kind)},
           {"per_step_ns", f.per_step},
           {"count_per_step", f.count},
           {"call", f.call},
           {"in_library", f.in_library},
           {"text", RenderFix(texts, trace, v, f)}};
  if (!f.site.empty()) fix["site"] = site_json(f.site);
  if (!f.site.empty() && f.site_sampled > 0) fix["site"]["sampled_share"] = f.site_sampled;  // inferred from a sample
  if (f.rank >= 0) fix["rank"] = f.rank;
  if (f.exposes > 0) fix["exposes_ns"] = f.exposes;
  if (f.exposed_by >= 0) {
    fix["after_wait"] = {{"call", DisplayName(trace.scenario, f.exposed_by)}};
    if (!f.exposed_site.empty()) fix["after_wait"]["site"] = site_json(f.exposed_site);
  }
  if (f.simulated_save >= 0)
    fix["simulated"] = {{"would_save_ns", f.simulated_save}, {"replayed_step_ns", f.simulated_step}};
  if (f.simulated_save >= 0 && f.simulated_other_case != VerdictFix::kNoOtherCase)  // the case the trace cannot rule out
    fix["simulated"]["other_case"] = {{"if", OtherCaseName(f.simulated_other_case)}, {"would_save_ns", f.simulated_other_save}};
  return fix;
}

// One process's verdict: its steps, its account, its bound and fixes, its one-off costs.
Json ProcessJson(const Verdict& v, const Trace& trace, const FindingTexts& texts, Json (*site_json)(const ProgramSite&)) {
  const StepSplit& s = v.steps;
  Json steps = Json::array();
  for (const ProgramStep& step : s.steps)
    steps.push_back({{"begin_ns", step.begin}, {"end_ns", step.end}, {"gpu_ops", step.gpu_ops}, {"steady", step.steady}});
  Json fixes = Json::array();
  for (const VerdictFix& f : v.fixes) fixes.push_back(FixJson(f, trace, v, texts, site_json));
  Json startup = Json::array();
  for (const StartupCost& c : v.startup)
    startup.push_back({{"kind", StartupName(c.kind)}, {"time_ns", c.time}, {"count", c.count}, {"inferred", c.inferred},
                       {"loads_ns", c.loads}, {"simulated_save_ns", c.simulated_save}});
  Json categories = Json::object(), kinds = Json::object();
  for (int c = 0; c < kTimeCategoryCount; ++c)
    if (v.by_category[c] > 0) categories[ToString(static_cast<TimeCategory>(c))] = v.by_category[c];
  for (int k = 0; k < kTimeKindCount; ++k)
    if (v.by_kind[k] > 0) kinds[ToString(static_cast<TimeKind>(k))] = v.by_kind[k];
  return {{"process", v.process},
          {"name", v.name},
          {"bound", ToString(v.bound)},
          {"bound_kind", ToString(v.bound_kind)},
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
            // The GPU's pace (the median spacing of consecutive steps' ends) where the host ran ahead
            // of the GPU: then that is a step (0: it did not).
            {"gpu_paced_ns", v.gpu_paced ? v.pace.ends : 0},
            {"list", steps}}},
          // Where a step's time went, along its critical path: the scope says over what.
          {"account", {{"scope", v.found() ? "steady_steps" : "whole_run"},
                       {"walked", v.walked},
                       {"step_ns", v.step},
                       {"gpu_busy_ns", v.gpu_busy},
                       {"copy_busy_ns", {{"h2d", v.copy_busy[0]}, {"d2h", v.copy_busy[1]}}},
                       {"legacy_serialized_ns", v.legacy_serialized},
                       {"categories", categories},
                       {"kinds", kinds}}},
          {"launches_per_step", v.launches},
          {"fixes", fixes},
          {"startup", startup}};
}

}  // namespace

Json VerdictJson(const ProgramVerdict& pv, const Trace& trace, const FindingTexts& texts, Json (*site_json)(const ProgramSite&)) {
  Json races = Json::array();
  for (const RaceLine& r : pv.races) {
    races.push_back({{"first", r.first}, {"second", r.second}, {"first_call", DisplayName(trace.scenario, r.first)},
                     {"second_call", DisplayName(trace.scenario, r.second)}, {"finding", r.finding},
                     // this run's order: how often the later call's op began before the earlier's ended
                     {"occurrences", r.occurrences}, {"out_of_order", r.overlapped}, {"closest_ns", r.closest}});
    if (!r.first_site.empty()) races.back()["first_site"] = site_json(r.first_site);
    if (!r.second_site.empty()) races.back()["second_site"] = site_json(r.second_site);
  }
  Json processes = Json::array();
  for (const Verdict& v : pv.processes) processes.push_back(ProcessJson(v, trace, texts, site_json));
  Json out{{"processes", processes},
           {"races", races},
           {"straggler", pv.straggler >= 0 ? Json(pv.straggler) : Json()},
           {"straggler_wait_ns", pv.straggler_wait},
           {"text", RenderVerdict(texts, trace, pv)}};
  if (pv.found()) {
    // The lead process's verdict at the top level too: the program's answer for one process.
    Json lead = ProcessJson(pv.lead(), trace, texts, site_json);
    for (auto it = lead.begin(); it != lead.end(); ++it) out[it.key()] = it.value();
  }
  return out;
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
                         {"gpu_busy_ns", p.gpu_busy},
                         {"copy_busy_ns", {{"h2d", p.copy_busy[0]}, {"d2h", p.copy_busy[1]}}},
                         {"categories", categories},
                         {"kinds", kinds},
                         {"walked", walked},
                         {"example_path", path}});
  }
  return {{"processes", processes}};
}

}  // namespace streamlab
