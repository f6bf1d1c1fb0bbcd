// libFuzzer targets for every file the app reads. One source, six entry points chosen at compile
// time (FUZZ_SCENARIO / FUZZ_TRACE / FUZZ_PROFILE / FUZZ_RECORDING / FUZZ_KINETO / FUZZ_JSON). A
// malformed input must end in InputError (or, for a run the simulator refuses, RunError);
// anything else - a crash, a sanitizer report, another exception - is a bug the fuzzer reports.
// FUZZ_JSON holds StreamLab's JSON scanner to nlohmann's parser: the same texts accepted, the
// same values built, and a skipped value refused exactly when a built one is.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/trace/chrome_trace.h"
#include "engine/scenario/code_gen.h"
#include "engine/sim/device_profile.h"
#include "engine/util/errors.h"
#include "engine/scenario/scenario_json.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/text_gantt.h"
#include "engine/ingest/kineto.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/util/json_scan.h"

namespace {

using namespace streamlab;

const FindingTexts& Texts() {
  static const FindingTexts texts = FindingTexts::Load("en");
  return texts;
}

// Everything a view does with a trace: the charts, the analysis and every sentence of it.
void Exercise(const Trace& t) {
  (void)RenderTextGantt(t, 80);
  (void)DumpJson(ChromeTraceJson(t));
  (void)DumpJson(TraceToJson(t));
  Analysis a = Analyze(t);
  for (const Finding& f : a.findings) (void)Texts().Render(t, f);
  (void)Texts().RenderFigures(t, a.figures);
  for (const FindingGroup& g : GroupFindings(t, a, true)) {
    (void)RenderGroupHeader(Texts(), g);
    (void)RenderGroupMore(Texts(), g);
    (void)RenderGroupSite(Texts(), g);
  }
  (void)ScenarioAsCuda(t.scenario);
  (void)ScenarioAsPyTorch(t.scenario);
}

bool SmallEnoughToSimulate(const Scenario& s) {
  int64_t blocks = 0;
  for (const Op& op : s.ops) blocks += op.kind == OpKind::kKernel ? op.kernel.grid : 0;
  return s.ops.size() <= 400 && blocks <= 20000;
}

#if defined(FUZZ_JSON)
// nlohmann's verdict and value (dumped), or nothing where it refuses the text.
std::optional<std::string> Nlohmann(const std::string& text) {
  try {
    return Json::parse(text).dump();
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

void CompareWithNlohmann(const std::string& text) {
  std::optional<std::string> theirs = Nlohmann(text);
  std::optional<std::string> ours;
  bool too_deep = false;
  try {
    ours = JsonScanner(text, "fuzz").Document().dump();
  } catch (const InputError& e) {
    // nlohmann has no nesting limit; the scanner's 64 levels are its own rule.
    too_deep = std::string(e.what()).find("nested deeper than 64") != std::string::npos;
  }
  if (!too_deep && ours != theirs) __builtin_trap();
  bool skipped = false;
  try {
    JsonScanner in(text, "fuzz");
    in.Skip();
    in.Finish();
    skipped = true;
  } catch (const InputError&) {
  }
  if (skipped != ours.has_value()) __builtin_trap();
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
#if defined(FUZZ_JSON)
  CompareWithNlohmann(text);
  return 0;
#endif
  try {
#if defined(FUZZ_RECORDING)
    // The recorder's JSON lines: parsed line by line, then converted like `record` does -
    // alone, and as two processes of one job (the log and a copy that is rank + 1), merged.
    Recording r = ParseRecording(text, "fuzz");
    Trace t = TraceFromRecording(r);
    if (t.ops.size() <= 400) Exercise(t);
    if (!r.clocks.empty() && t.ops.size() <= 200) {
      Recording other = r;
      other.pid = r.pid + 1;
      other.rank = r.rank + 1;
      Trace merged = TraceFromRecordings({r, other});
      Exercise(merged);
    }
    return 0;
#elif defined(FUZZ_KINETO)
    // A torch.profiler Chrome trace: read, inferred and converted like `import` does.
    Trace t = TraceFromKineto(text, "fuzz");
    if (t.ops.size() <= 400) Exercise(t);
    return 0;
#endif
    Json json = ParseJson(text, "fuzz");
#if defined(FUZZ_SCENARIO)
    Scenario s = ScenarioFromJson(json, "fuzz");
    // Round trip: what we write we must read back identically.
    Json again = ScenarioToJson(s);
    if (ScenarioToJson(ScenarioFromJson(again, "again")) != again) __builtin_trap();
    if (SmallEnoughToSimulate(s)) Exercise(SimExecutor().Run(s, RunOptions{}));
#elif defined(FUZZ_TRACE)
    // The reader of a file's text (which builds no tree) must read what the tree reader reads,
    // and refuse what it refuses.
    std::optional<Trace> from_text;
    try {
      from_text = TraceFromJsonText(text, "fuzz");
    } catch (const InputError&) {
    }
    Trace t;
    try {
      t = TraceFromJson(json, "fuzz");
    } catch (const InputError&) {
      if (from_text) __builtin_trap();
      throw;
    }
    if (!from_text || TraceToJson(*from_text) != TraceToJson(t)) __builtin_trap();
    if (t.ops.size() <= 400) Exercise(t);
#elif defined(FUZZ_PROFILE)
    DeviceProfile p = ProfileFromJson(json, "fuzz");
    (void)ProfileToJson(p);
    (void)BlockDuration(p, KernelSpec{});
#endif
  } catch (const InputError&) {
  } catch (const RunError&) {
  }
  return 0;
}
