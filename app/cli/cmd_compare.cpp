// `streamlab-cli compare BEFORE AFTER [--per NAME] [--json] [--lang zh]`: two traces of one
// program (recordings, torch.profiler traces, saved traces) side by side, per step where the
// traces mark their steps (engine/classroom/compare_programs.h).
#include <filesystem>
#include <iostream>

#include "app/cli/commands.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/classroom/compare_programs.h"
#include "engine/classroom/compare_programs_text.h"
#include "engine/trace/trace_json.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {

Trace ReadProgramTrace(const std::string& path) {
  // Not recognised as one: read it as a trace anyway, for the reader's own error (malformed
  // JSON at line N, a scenario where a trace was wanted, ...).
  std::optional<Trace> trace = ReadTraceIfOne(path);
  return trace ? std::move(*trace) : LoadTraceFile(path);
}

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
  // Where the host was in the idle time for its own work, or, with host_work_places_are
  // "came_back_at", where it came back to CUDA after that work (the line after it).
  Json places = Json::array();
  for (const PlaceChange& p : c.host_work_places)
    places.push_back({{"place", texts.RenderPlace(p.place)}, {"time_a_ns", p.time_a}, {"time_b_ns", p.time_b}});
  Json out{{"step_range", c.unit},
           {"a", FiguresJson(c.a)},
           {"b", FiguresJson(c.b)},
           {"host_work_places", places},
           {"host_work_places_are", c.host_work_resumed ? "came_back_at" : "was_at"},
           {"findings", tallies}};
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
  for (const std::string& line : RenderProgramComparison(c, texts, name(cmd.before), name(cmd.after), a.backend, b.backend))
    std::cout << line << "\n";
  return 0;
}

}  // namespace streamlab
