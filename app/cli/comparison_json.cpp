// ComparisonJson (comparison_json.h).
#include "app/cli/comparison_json.h"

namespace streamlab {
namespace {

Json FiguresJson(const StepFigures& f) {
  Json idle = Json::object();
  for (int i = 0; i < kIdleCauseCount; ++i) idle[ToString(static_cast<IdleCause>(i))] = f.idle_by_cause[i];
  return {{"steps", f.steps},         {"from_ns", f.from},       {"to_ns", f.to},
          {"host_in_steps_ns", f.host_in_steps}, {"gpu_busy_ns", f.gpu_busy}, {"host_blocked_ns", f.host_blocked},
          {"gpu_idle_ns", f.gpu_idle}, {"idle_by_cause_ns", idle}, {"kernels", f.kernels},
          // What recording or torch.profiler is estimated to have added (0, 0: the trace does not say).
          {"submitting_calls", f.submitting_calls}, {"tool_time_estimate_ns", Json::array({f.tool_low, f.tool_high})}};
}

// The steady step as whatif times it (null: the run's steps were not found).
Json SteadyJson(const SteadySteps& s) {
  if (s.steady == 0) return nullptr;
  return {{"step_ns", s.step}, {"steady_steps", s.steady}, {"warmup_steps", s.warmup}};
}

}  // namespace

Json ComparisonJson(const ProgramComparison& c, const FindingTexts& texts) {
  Json tallies = Json::array();
  for (const FindingTally& t : c.tallies) {
    Json row{{"kind", ToString(t.kind)}, {"place", t.site.empty() ? t.call : texts.RenderPlace(t.site)},
             {"count_a", t.count_a}, {"time_a_ns", t.time_a}};
    if (!c.single) row.update({{"count_b", t.count_b}, {"time_b_ns", t.time_b}});
    tallies.push_back(row);
  }
  // Where the host was in the idle time for its own work, or, with host_work_places_are
  // "came_back_at", where it came back to CUDA after that work (the line after it).
  Json places = Json::array();
  for (const PlaceChange& p : c.host_work_places) {
    Json row{{"place", texts.RenderPlace(p.place)}, {"time_a_ns", p.time_a}};
    if (!c.single) row["time_b_ns"] = p.time_b;
    places.push_back(row);
  }
  Json out{{"step_range", c.unit},
           {"a", FiguresJson(c.a)},
           {"steady_a", SteadyJson(c.steady_a)},
           {"host_work_places", places},
           {"host_work_places_are", c.host_work_resumed ? "came_back_at" : "was_at"},
           {"findings", tallies}};
  if (!c.single) {
    out["b"] = FiguresJson(c.b);
    out["steady_b"] = SteadyJson(c.steady_b);
  }
  return out;
}

}  // namespace streamlab
