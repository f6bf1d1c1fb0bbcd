// The desktop app's state and its per-frame UI: lab browser, lab page (texts, parameters,
// variants, backend, Run/Cancel), the timeline with the analyzer's findings, and the code
// tab. Immediate mode: everything is drawn from this state every frame.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/child_run.h"
#include "app/gui/fonts.h"
#include "app/gui/gantt_view.h"
#include "app/gui/progress_store.h"
#include "app/gui/run_worker.h"
#include "app/gui/ui_text.h"
#include "engine/analyzer.h"
#include "engine/findings_text.h"
#include "engine/lab_texts.h"

namespace streamlab {

struct GuiOptions {
  std::string lab;
  std::string variant;
  std::map<std::string, double> params;
  std::string backend = "auto";  // auto, sim, cuda
  std::string lang;              // empty: from the locale
  std::string open_trace;        // show this trace file
  bool headless = false;         // rendering for a screenshot: no hover effects
  bool show_sms = false;         // start with the per-SM rows shown
};

class GuiApp {
 public:
  GuiApp(GuiOptions options, FontSetup fonts);
  void Frame(ImVec2 display_size);
  // True once nothing is running and what was asked for (a run, a trace) is on screen.
  bool Settled() const;
  bool HasError() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  const std::vector<SpanRect>& layout() const { return layout_; }
  const Trace* trace() const { return trace_ ? &*trace_ : nullptr; }
  double run_seconds() const { return run_seconds_; }
  // Shows a trace without analysing it (the frame-time bench's synthetic traces).
  void ShowTraceUnanalysed(Trace trace);

 private:
  void SetLanguage(const std::string& lang);
  void SelectLab(const std::string& id);
  void StartRun();
  void PollRun();
  void ShowTrace(Trace trace);
  void DrawTopBar();
  void DrawSidebar(float width);
  void DrawLabHeader();
  void DrawRunControls();
  void DrawTimeline();
  void DrawFindings(float height);
  void DrawCode();
  std::string ResolveBackend();

  GuiOptions options_;
  FontSetup fonts_;
  std::string lang_;
  UiText ui_;
  FindingTexts texts_;
  ProgressStore progress_;
  RunWorker worker_;
  std::string cli_path_;
  std::future<GpuProbeResult> probe_future_;
  std::optional<GpuProbeResult> probe_;

  std::map<std::string, std::string> lab_titles_;  // for the browser, in the current language
  std::string lab_id_;
  std::optional<LabText> lab_text_;
  std::string variant_;
  std::map<std::string, float> params_;
  int backend_choice_ = 0;  // 0 auto, 1 sim, 2 cuda
  bool run_pending_ = false;

  std::optional<Trace> trace_;
  Analysis analysis_;
  GanttViewState view_;
  std::vector<SpanRect> layout_;
  std::string banner_;
  std::string error_;
  double run_seconds_ = 0;
  int selected_finding_ = -1;
};

}  // namespace streamlab
