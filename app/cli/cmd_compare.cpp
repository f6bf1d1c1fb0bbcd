// `streamlab-cli compare BEFORE AFTER [--per NAME] [--json] [--lang zh]`: two traces of one
// program (recordings, torch.profiler traces, saved traces) side by side, per step where the
// traces mark their steps (engine/analysis/compare_programs.h).
#include <filesystem>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/comparison_json.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs.h"
#include "engine/analysis/compare_programs_text.h"
#include "engine/ingest/open_trace.h"
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

}  // namespace

int CmdCompare(const CompareCommand& cmd) {
  std::string lang = cmd.lang.empty() ? DefaultLanguage() : cmd.lang;
  if (lang != "en" && lang != "zh") throw InputError("--lang must be en or zh");
  FindingTexts texts = FindingTexts::Load(lang);
  Trace a = ReadProgramTrace(cmd.before), b = ReadProgramTrace(cmd.after);
  Analysis analysis_a = Analyze(a), analysis_b = Analyze(b);
  ProgramComparison c = ComparePrograms(a, analysis_a, b, analysis_b, cmd.per);
  if (cmd.json) {
    std::cout << DumpJson(ComparisonJson(c, texts), 2) << "\n";
    return 0;
  }
  auto name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  for (const std::string& line : RenderProgramComparison(c, texts, name(cmd.before), name(cmd.after), a.backend, b.backend))
    std::cout << line << "\n";
  return 0;
}

}  // namespace streamlab
