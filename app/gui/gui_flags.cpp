// The desktop app's flags (CLI11), each bound to GuiOptions or GuiArgs, then the checks that
// need several flags or the catalogue (a --compare variant the lab has, --browse-pick needs
// --browse, ...).
#include "app/gui/gui_flags.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

[[noreturn]] void Fail(const CLI::App& app, const std::string& problem) {
  std::fprintf(stderr, "streamlab: %s (see %s --help)\n", problem.c_str(), app.get_name().c_str());
  std::exit(2);
}

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

struct RawFlags {
  std::vector<std::string> params;
  std::string predict_order, hover, hover_chart, view, size, bench_spans;
  std::string backend = "auto";
};

void AddFlags(CLI::App& app, GuiArgs& a, RawFlags& raw) {
  GuiOptions& o = a.options;
  app.add_option("--lab", o.lab, "Open this lab");
  app.add_option("--variant", o.variant, "The lab's variant");
  app.add_option("--param", raw.params, "A lab parameter name=value (repeatable)");
  app.add_option("--backend", raw.backend, "auto, sim, cuda or torch")->check(CLI::IsMember({"auto", "sim", "cuda", "torch"}));
  app.add_option("--profile", o.profile, "The simulator's profile: h100, h200 or a file");
  app.add_option("--lang", o.lang, "en or zh (default: from the locale)")->check(CLI::IsMember({"en", "zh"}));
  app.add_option("--open", o.open_trace, "Open a trace, a recording or a torch.profiler trace");
  app.add_option("--compare-file", o.compare_file, "With --open: the same program after a change, compared per step");
  app.add_option("--per", o.compare_per, "The step range's name for --compare-file");
  app.add_option("--browse", o.browse, "Show the file picker at this folder");
  app.add_option("--browse-pick", o.browse_pick, "Then pick this file in it");
  app.add_option("--record", o.record_command, "Record this program (a command line) and show it");
  app.add_option("--record-delay", o.record_delay, "Record only from this many seconds after it initialises CUDA");
  app.add_option("--record-duration", o.record_duration, "... for this many seconds (0: to the end)");
  app.add_option("--compare", o.compare, "Compare with this variant, or cuda / torch for the same variant there");
  app.add_flag("--present", o.present, "Start in presentation mode");
  app.add_option("--replay-at", o.replay_at, "Freeze a replay at this fraction of the run")->check(CLI::Range(0.0, 1.0));
  app.add_flag("--predict", o.predict, "Start with predict-then-reveal on");
  app.add_option("--predict-order", raw.predict_order, "Answer with this order of op names (a,b,c), then reveal");
  app.add_option("--predict-answer", o.predict_answer, "Answer the number or choice question, then reveal");
  app.add_option("--exercise", o.exercise, "Open this lab's exercise");
  app.add_option("--sandbox-script", o.sandbox_script, "Open the sandbox and apply these edits");
  app.add_flag("--show-sms", o.show_sms, "Start with the per-SM rows shown");
  app.add_option("--show-fix", o.show_fix, "With --open: click the verdict's fix N once the trace is shown")->check(CLI::Range(1, 20));
  app.add_flag("--chart-only", o.chart_only, "Draw only the chart (slide export)");
  app.add_option("--screenshot", a.screenshot, "Render headless, write this PNG (and its layout JSON), exit");
  app.add_option("--size", raw.size, "Window size WxH");
  app.add_option("--hover", raw.hover, "With --screenshot: the mouse at X,Y (pixels)");
  app.add_option("--hover-chart", raw.hover_chart, "With --screenshot: the mouse at MS,LANE[,ROW] (ms from the trace's start, a lane, its k-th row of ranges)");
  app.add_option("--view", raw.view, "Open the chart on FROM,TO (ms from the trace's start)");
  app.add_option("--bench-spans", raw.bench_spans, "CPU frame time with an N-span trace, then M... (N[,M...])");
  app.add_option("--bench-max-ratio", a.bench_max_ratio, "Exit 1 when the last frame time exceeds R times the first");
  app.add_flag("--bench-frames", a.bench_frames, "With --open: CPU frame time once the trace is shown");
}

// The flags whose values have a shape of their own (k=v, a,b,c, X,Y, WxH).
void ReadShapedFlags(const CLI::App& app, GuiArgs& a, const RawFlags& raw) {
  GuiOptions& o = a.options;
  for (const std::string& kv : raw.params) {
    size_t eq = kv.find('=');
    char* end = nullptr;
    double value = eq == std::string::npos ? 0 : std::strtod(kv.c_str() + eq + 1, &end);
    if (eq == std::string::npos || end == kv.c_str() + eq + 1 || *end) Fail(app, "--param expects name=value");
    o.params[kv.substr(0, eq)] = value;
  }
  o.backend = ParseBackend(raw.backend).value_or(Backend::kAuto);  // IsMember checked the name
  if (!raw.predict_order.empty()) o.predict_order = SplitCommas(raw.predict_order);
  if (!o.predict_order.empty() || !o.predict_answer.empty()) o.predict = true;
  if (!raw.hover.empty() &&
      (std::sscanf(raw.hover.c_str(), "%f,%f", &o.hover_x, &o.hover_y) != 2 || o.hover_x < 0 || o.hover_y < 0))
    Fail(app, "--hover expects X,Y in pixels, e.g. 700,400");
  if (!raw.hover_chart.empty()) {
    int n = std::sscanf(raw.hover_chart.c_str(), "%lf,%d,%d", &o.hover_ms, &o.hover_lane, &o.hover_row);
    if (n < 2 || o.hover_ms < 0 || o.hover_lane < 0) Fail(app, "--hover-chart expects MS,LANE[,ROW], e.g. 50,0 or 24,0,1");
  }
  if (!raw.view.empty() && (std::sscanf(raw.view.c_str(), "%lf,%lf", &o.view_from_ms, &o.view_to_ms) != 2 ||
                            o.view_from_ms < 0 || o.view_to_ms <= o.view_from_ms))
    Fail(app, "--view expects FROM,TO in milliseconds from the trace's start, FROM < TO, e.g. 20,30");
  if (!raw.size.empty() && (std::sscanf(raw.size.c_str(), "%dx%d", &a.width, &a.height) != 2 || a.width < 320 ||
                            a.height < 240 || a.width > 8192 || a.height > 8192))
    Fail(app, "--size expects WxH, e.g. 1280x800");
  for (const std::string& n : raw.bench_spans.empty() ? std::vector<std::string>{} : SplitCommas(raw.bench_spans)) {
    long count = std::atol(n.c_str());
    if (count <= 0 || count > 20'000'000) Fail(app, "--bench-spans takes counts from 1 to 20000000, comma-separated");
    a.bench_spans.push_back(count);
  }
}

// Checks that need several flags, or the catalogue.
void CheckTogether(const CLI::App& app, const GuiArgs& a) {
  const GuiOptions& o = a.options;
  if (!o.compare.empty() && o.lab.empty()) Fail(app, "--compare needs --lab");
  if (a.bench_frames && o.open_trace.empty()) Fail(app, "--bench-frames needs --open FILE");
  if (o.show_fix > 0 && o.open_trace.empty()) Fail(app, "--show-fix needs --open FILE");
  if (!o.compare_file.empty() && o.open_trace.empty()) Fail(app, "--compare-file needs --open FILE (the trace before the change)");
  if (!o.browse_pick.empty() && o.browse.empty()) Fail(app, "--browse-pick needs --browse DIR");
  if (o.record_delay >= 0 && o.record_command.empty()) Fail(app, "--record-delay needs --record COMMAND");
  if (o.record_duration != 0 && o.record_delay < 0) Fail(app, "--record-duration needs --record-delay");
  if (o.record_duration < 0) Fail(app, "--record-duration must be 0 (to the end) or more");
  if (o.lab.empty()) return;
  try {
    const Lab& lab = FindLab(o.lab);
    const std::string& c = o.compare;
    bool backend = ParseBackend(c).has_value() && c != BackendName(Backend::kAuto);
    if (!c.empty() && !backend &&
        std::find(lab.variants.begin(), lab.variants.end(), c) == lab.variants.end())
      Fail(app, "--compare: " + o.lab + " has no variant \"" + c + "\"");
  } catch (const InputError& e) {
    Fail(app, e.what());
  }
}

}  // namespace

GuiArgs ParseGuiArgs(int argc, char** argv) {
  GuiArgs args;
  RawFlags raw;
  CLI::App app{"StreamLab: CUDA streams and events, run and explained (the desktop app)", "streamlab"};
  AddFlags(app, args, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    Fail(app, e.what());
  }
  ReadShapedFlags(app, args, raw);
  CheckTogether(app, args);
  return args;
}

}  // namespace streamlab
