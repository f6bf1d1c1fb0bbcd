// `streamlab-cli explain TRACE.json | LAB | scenario.json`: the analyzer's findings about a
// saved trace (or a fresh simulated run), in Chinese or English, as text or JSON.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/cli/comparison_json.h"
#include "app/cli/verdict_json.h"
#include "app/runner/run_on_backend.h"
#include "engine/explain/explain_program.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/report/verdict_text.h"
#include "engine/util/errors.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs_text.h"
#include "engine/classroom/lab_texts.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/json_reader.h"
#include "engine/whatif/whatif.h"

namespace streamlab {
namespace {

Trace TraceFor(const ExplainCommand& cmd) {
  // A trace or a recording, recognised by its content (a lab id or scenario file is not),
  // or a folder of recorder logs (record --raw-dir); a trace file is read once.
  if (std::optional<Trace> trace = ReadTraceIfOne(cmd.target)) {
    if (!cmd.variant.empty() || !cmd.params.empty())
      throw InputError("--variant and --param apply to labs, not to trace files");
    return std::move(*trace);
  }
  RunTarget target = ResolveRunTarget(cmd.target, cmd.variant, ParseParams(cmd.params));
  RunSpec spec;
  spec.backend = BackendFlag(cmd.backend, {Backend::kSim, Backend::kCuda, Backend::kAuto});
  spec.in_process = CliExecutors({});
  RunOutcome run = RunOnBackend(target, spec);
  if (!run.message.empty()) std::cerr << "streamlab: " << run.message << "\n";
  return std::move(run.trace);
}

Json IdsToJson(const std::vector<int>& ids) { return Json(ids); }

// `first_line`: the line torch.profiler gave the frame (its first line), not the call's;
// `line`: the call's own line (a recording's Python stack); `most_line`: where the host was most
// often in the function (its sampled stacks); `by_autograd`: made by autograd's thread for the
// backward called at this site.
Json SiteJson(const ProgramSite& s) {
  Json site{{"ranges", s.ranges}};
  if (!s.file.empty())
    site.update({{"file", s.file}, {s.most_line ? "most_line" : s.exact_line ? "line" : "first_line", s.line}, {"function", s.function}});
  if (!s.caller_file.empty()) site["caller"] = {{"file", s.caller_file}, {"first_line", s.caller_line}, {"function", s.caller_function}};
  if (!s.via_file.empty()) site["via"] = {{"file", s.via_file}, {"function", s.via_function}};
  if (!s.inner_file.empty()) site["inner"] = {{"file", s.inner_file}, {"function", s.inner_function}};
  if (!s.caller_via_file.empty()) site["caller_via"] = {{"file", s.caller_via_file}, {"function", s.caller_via_function}};
  if (s.by_autograd) site["by_autograd"] = true;
  return site;
}

Json IdleByCause(const Figures& fig) {
  Json out = Json::object();
  for (int c = 0; c < kIdleCauseCount; ++c) out[ToString(static_cast<IdleCause>(c))] = fig.idle_by_cause[c];
  return out;
}

}  // namespace

int CmdExplain(const ExplainCommand& cmd) {
  std::string lang = cmd.lang.empty() ? DefaultLanguage() : cmd.lang;
  if (lang != "en" && lang != "zh") throw InputError("--lang must be en or zh");
  FindingTexts texts = FindingTexts::Load(lang);
  Trace trace = TraceFor(cmd);
  // A program's answer: its account and its verdict; its top fixes are replayed on the simulator
  // once --per NAME (per step, with the verdict's steady step) has been checked, so that a missing
  // range is a clean error before any replay.
  Explanation explained = ExplainProgram(trace, {0});
  const Analysis& analysis = explained.analysis;
  const bool program = trace.scenario.recorded && explained.verdict.found();
  std::optional<ProgramComparison> steps;
  std::optional<SteadySteps> steady;
  if (program) steady = SteadyStepsOf(explained.verdict.lead().steps, explained.verdict.lead().pace);
  if (!cmd.per.empty()) steps = DescribeSteps(trace, analysis, cmd.per, steady);
  if (program) SimulateFixes(trace, explained.verdict.lead(), kVerdictFixes);

  if (cmd.json) {
    Json notes = Json::array();
    for (const TraceNote& note : trace.notes) notes.push_back(texts.RenderNote(note));
    Json findings = Json::array();
    for (const Finding& f : analysis.findings) {
      findings.push_back({{"kind", ToString(f.kind)},
                          {"severity", ToString(f.severity)},
                          {"cause", ToString(f.cause)},
                          {"op", f.op},
                          {"op_name", f.op >= 0 ? DisplayName(trace.scenario, f.op) : ""},
                          {"because", IdsToJson(f.because)},
                          {"also", IdsToJson(f.also)},
                          {"marker", f.marker},
                          {"other", f.other},
                          {"amount_ns", f.amount},
                          {"text", texts.Render(trace, f)}});
      if (f.kind == FindingKind::kGpuIdle) {
        findings.back()["idle_cause"] = ToString(f.idle);
        findings.back()["gaps"] = f.count;
        findings.back()["share"] = f.fraction;
      }
      if (!f.site.empty()) findings.back()["site"] = SiteJson(f.site);
      if (!f.places.empty()) {
        Json places = Json::array();
        for (const HostPlace& p : f.places) places.push_back({{"site", SiteJson(p.site)}, {"time_ns", p.time}});
        findings.back()["host_places"] = places;
        findings.back()["host_places_of_ns"] = f.places_of;
      }
      if (!f.resumed_at.empty()) {
        Json resumed = Json::array();
        for (const HostPlace& p : f.resumed_at) resumed.push_back({{"site", SiteJson(p.site)}, {"time_ns", p.time}});
        findings.back()["resumed_at"] = resumed;
        findings.back()["host_places_of_ns"] = f.places_of;
      }
      if (f.kind == FindingKind::kAddressRace) {
        findings.back()["address"] = FormatAddress(f.address);
        findings.back()["overlap"] = f.fraction;
      }
    }
    Json groups = Json::array();
    for (const FindingGroup& g : GroupFindings(trace, analysis, true))
      groups.push_back({{"pattern", g.pattern},
                        {"kind", ToString(g.kind)},
                        {"severity", ToString(g.severity)},
                        {"count", g.members.size()},
                        {"total_ns", g.total},
                        {"findings", IdsToJson(g.members)}});
    const Figures& fig = analysis.figures;
    Json host_stretches = Json::array();
    for (const Figures::HostStretch& h : fig.critical_host) {
      host_stretches.push_back({{"before", h.before}, {"thread", h.thread}, {"length_ns", h.length}});
      if (!h.place.empty()) host_stretches.back()["place"] = {{"site", SiteJson(h.place)}, {"time_ns", h.place_time}};
      if (!h.came_back.empty())
        host_stretches.back()["came_back_at"] = {{"site", SiteJson(h.came_back)}, {"time_ns", h.came_back_time}};
    }
    Json overlaps = Json::array();
    for (const LaneOverlap& o : fig.overlaps)
      overlaps.push_back({{"lane_a", o.lane_a}, {"lane_b", o.lane_b}, {"overlap_ns", o.overlap}, {"fraction", o.fraction}});
    Json out{{"lab", trace.lab},
              {"variant", trace.variant},
              {"backend", trace.backend},
              {"language", lang},
              {"notes", notes},
              {"findings", findings},
              {"groups", groups},
              {"figures",
               {{"makespan_ns", fig.makespan},
                {"gpu_busy_ns", fig.gpu_busy},
                {"serial_ns", fig.serial},
                {"speedup", fig.speedup},
                {"host_blocked_ns", fig.host_blocked},
                {"overlaps", overlaps},
                {"critical_path", IdsToJson(fig.critical_path)},
                {"critical_path_host", host_stretches},
                {"critical_span_ns", fig.critical_span},
                {"device_time_ns", fig.device_time},
                {"gpu_idle_ns", fig.gpu_idle},
                {"idle_by_cause", IdleByCause(fig)},
                {"text", texts.RenderFigures(trace, fig)}}}};
    if (steps) out["per_step"] = ComparisonJson(*steps, texts);  // explain --per NAME
    if (trace.scenario.recorded) {
      out["verdict"] = VerdictJson(explained.verdict, trace, texts, SiteJson);
      out["account"] = AccountJson(explained.account);
    }
    std::cout << DumpJson(out, 1) << "\n";
    return kExitOk;
  }

  std::cout << (trace.lab.empty() ? trace.scenario.name : trace.lab);
  if (!trace.variant.empty()) std::cout << " [" << trace.variant << "]";
  std::cout << "  (" << trace.backend << ": " << trace.device_name << ")\n";
  // What the trace holds and leaves out (a capture range, records CUPTI dropped, processes
  // left out, links inferred) comes before the findings it qualifies.
  // A program's answer first: what bounds its step and the fixes worth most; then what the
  // trace holds, then the details.
  if (trace.scenario.recorded)
    for (const std::string& l : RenderVerdict(texts, trace, explained.verdict)) std::cout << l << "\n";
  if (!trace.notes.empty()) {
    std::cout << texts.Get("trace_notes") << "\n";
    for (const TraceNote& note : trace.notes) std::cout << "  - " << texts.RenderNote(note) << "\n";
  }
  // One line per finding; a long group of alike findings as a header and its largest few
  // (--all lists every finding, prompt starts included).
  auto line = [&](const Finding& f, const char* indent) {
    std::cout << indent << "[" << texts.Get(std::string("severity.") + ToString(f.severity)) << "] "
              << texts.Render(trace, f) << "\n";
  };
  for (const FindingGroup& g : GroupFindings(trace, analysis, cmd.all)) {
    if (cmd.all || g.members.size() <= kGroupShown) {
      for (int i : g.members) line(analysis.findings[i], "");
      continue;
    }
    std::cout << "[" << texts.Get(std::string("severity.") + ToString(g.severity)) << "] "
              << RenderGroupHeader(texts, g) << "\n";
    for (size_t k = 0; k < kGroupShown; ++k) line(analysis.findings[g.members[k]], "    ");
    std::string site = RenderGroupSite(texts, g);
    std::cout << "    " << RenderGroupMore(texts, g) << (site.empty() ? "" : " " + site) << "\n";
  }
  if (analysis.summarised_only) std::cout << texts.RenderSummarised(trace) << "\n";
  std::cout << texts.RenderFigures(trace, analysis.figures) << "\n";
  if (steps) {
    for (const std::string& l : RenderStepReport(*steps, texts)) std::cout << l << "\n";
  } else if (trace.lab.empty()) {  // a program's trace that marks its steps: say how to see them
    for (const char* name : {"ProfilerStep", "step"})
      if (int n = CountStepRanges(trace, name); n > 0) {
        std::cout << texts.Fill("hint.per_step", {{"n", std::to_string(n)}, {"unit", name}}) << "\n";
        break;
      }
  }
  return kExitOk;
}

}  // namespace streamlab
