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

#include "app/runner/child_run.h"
#include "app/gui/loading/file_picker.h"
#include "app/gui/fonts.h"
#include "app/gui/chart/gantt_view.h"
#include "app/gui/progress_store.h"
#include "app/gui/loading/run_worker.h"
#include "app/gui/ui_text.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/classroom/compare.h"
#include "engine/analysis/compare_programs.h"
#include "engine/analysis/findings_text.h"
#include "engine/verdict/verdict.h"
#include "engine/classroom/lab_texts.h"
#include "engine/classroom/answer_form.h"
#include "engine/classroom/exercise.h"
#include "engine/classroom/prediction.h"
#include "engine/classroom/sandbox_model.h"

namespace streamlab {

struct GuiOptions {
  std::string lab;
  std::string variant;
  std::map<std::string, double> params;
  Backend backend = Backend::kAuto;
  std::string lang;              // empty: from the locale
  std::string open_trace;        // show this trace file
  bool headless = false;         // rendering for a screenshot: no hover effects
  bool show_sms = false;         // start with the per-SM rows shown
  std::string compare;           // run this variant too (or "sim"/"cuda": the same variant there)
  bool present = false;          // start in presentation mode
  double replay_at = -1;         // freeze a replay at this fraction of the run (screenshots)
  float hover_x = -1, hover_y = -1;  // a screenshot with the mouse here: the chart's tooltip shown
  // ... or at this time (ms from the trace's start) on this lane (LanesOf's order), in its own row
  // (-1) or its k-th row of ranges: a place in the trace, wherever the layout puts it.
  double hover_ms = -1;
  int hover_lane = -1, hover_row = -1;
  double view_from_ms = -1, view_to_ms = -1;  // open the chart on this window (ms from the trace's start)
  bool chart_only = false;       // draw only the chart (slide export)
  std::string sandbox_script;    // open the sandbox and apply these edits (one per line)
  bool predict = false;          // start with predict-then-reveal on (no automatic run)
  std::vector<std::string> predict_order;  // answer with this order of op names, then reveal
  std::string predict_answer;  // answer the lab's number or choice question with this, then reveal
  std::string profile;         // the simulator's profile: a shipped name (h100, h200) or a file
  std::string exercise;        // open this lab's exercise in the sandbox (with sandbox_script: edit, then check);
                               // an exercise on parameters is checked at once with `params`
  std::string record_command;    // record this program (a command line) and show it
  double record_delay = -1;      // ... only from this many seconds after it initialises CUDA (record --delay)
  double record_duration = 0;    // ... for this many seconds (record --duration; 0: to the end)
  std::string compare_file;      // with open_trace: the same program after a change, compared per step
  std::string compare_per;       // the step range's name for compare_file (empty: ProfilerStep#N if both have it)
  std::string browse;            // show the file picker at this folder (a screenshot of it)
  std::string browse_pick;       // ... then pick this file in it (relative to the folder) and open it
  int show_fix = 0;              // with --open: click the verdict's fix N once the trace is shown (1-based)
};

class GuiApp {
 public:
  GuiApp(GuiOptions options, FontSetup fonts);
  void Frame(ImVec2 display_size);
  // True once nothing is running and what was asked for (a run, a trace) is on screen.
  bool Settled() const;
  bool HasError() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  const ChartLayout& layout() const { return layout_; }
  // Where --hover-chart's place was drawn in the last frame (false: not drawn yet).
  bool HoverPoint(ImVec2* at) const;
  // Where the answer panel went and the height its lines need (-1: none shown).
  struct PanelLayout {
    float verdict_y0 = -1, verdict_y1 = -1, verdict_needed = 0;
  };
  const PanelLayout& panels() const { return panels_; }
  const std::string& tooltip() const { return view_.tooltip; }
  const Trace* trace() const { return trace_ ? &*trace_ : nullptr; }
  // The verdict on a number or choice prediction and the analyzer's reason ("" if none).
  std::string PredictionReport() const;
  // The latest exercise check, goal by goal ("" if none).
  std::string ExerciseReport() const;
  // The compare view's lines for two traces of one program ("" if none is shown).
  std::string ProgramCompareReport() const;
  // The verdict's fix last clicked: its number, the ops highlighted, the window shown ("" if none).
  std::string FixReport() const;
  // The file picker shown: its folder and what it lists ("" when none is shown).
  std::string PickerReport();
  // The doors the first screen drew in the last frame ("labs, open a trace, record a program");
  // empty once a lab or a trace is shown.
  std::string FirstScreenReport() const;
  double run_seconds() const { return run_seconds_; }
  // Shows a trace without analysing it (the frame-time bench's synthetic traces).
  void ShowTraceUnanalysed(Trace trace);
  bool presenting() const { return presenting_; }

 private:
  // One chart's run: the trace, its analysis and the chart's view.
  struct Run {
    std::optional<Trace> trace;
    Analysis analysis;
    GanttViewState view;
  };
  enum class Mode { kLab, kSandbox };

  // gui_compare.cpp
  void StartCompare();
  void DrawCompare();
  void DrawChartsOnOneAxis(TimeNs origin_a, TimeNs origin_b, TimeNs span, const std::string& label_a,
                           const std::string& label_b);
  // Two traces of one program (before and after a change), compared per step.
  void StartProgramCompare(const std::string& path, const std::string& per);
  void AcceptProgram(Trace trace, Analysis analysis);
  void DrawProgramCompare();
  bool ShowsCompare() const;  // the compare tab is the one to show (a comparison, or --per alone)
  // This trace per step (DescribeSteps) for the step range `per` names, or ProfilerStep or "step"
  // when it has those; none when it marks no steps. Cached for the trace and range drawn.
  const ProgramComparison* StepsReport();
  std::optional<ProgramComparison> DescribeOwnSteps() const;
  std::optional<SteadySteps> ShownSteadySteps() const;
  // gui_predict.cpp
  void ResetPrediction();
  void ApplyPredictedOrder(const std::vector<std::string>& names);
  void DrawPrediction();
  void DrawPredictionVerdict();
  // gui_present.cpp
  void HandleKeys();
  void StepLab(int delta);
  void AdvanceReplay();
  void DrawReplayControls();
  void ApplyStyle();
  // sandbox_view.cpp
  void DrawSandbox();
  void RunSandbox();
  // gui_export.cpp
  void DrawExport();
  void DrawChartOnly(ImVec2 display);

  void SetLanguage(const std::string& lang);
  void SelectLab(const std::string& id);
  void StartRun();
  void Submit(RunRequest request);
  void PollRun();
  void Accept(Trace trace, Analysis analysis, std::optional<ProgramVerdict> verdict = std::nullopt);
  // A compare's result: the first is shown (A), the second kept as B; true once both are in.
  bool TakeComparePart(Trace trace, Analysis analysis);
  // `verdict`: a program's, worked out (with its simulated savings) off the frame by the worker.
  void ShowTrace(Trace trace, std::optional<Analysis> analysis = std::nullopt, std::optional<ProgramVerdict> verdict = std::nullopt);
  // "Record a program" (gui_record.cpp): a command line run under `streamlab-cli record`; its
  // form is in the top bar's popup and on the first screen.
  void DrawRecordForm();
  void DrawOpenForm();  // gui_open.cpp
  // gui_welcome.cpp: the first screen, with the labs, "Open a trace" and "Record a program".
  void DrawWelcome();
  void DrawLabDoor();
  void OpenTrace(const std::string& path);
  void StartBrowsing();  // --browse (and --browse-pick)
  void StartRecording(const std::string& command);
  void DrawTopBar();
  void DrawSidebar(float width);
  void DrawLabHeader();
  // gui_trace_notes.cpp: where the trace comes from and its notes, folded into one line.
  void DrawTraceNotes(bool imported, const std::string& banner);
  std::string TraceBanner(bool imported) const;
  // A simulator profile's name in the UI's language ("(simulated, GPU-FACTS profile)").
  std::string ProfileLabel(const std::string& name) const;
  void DrawRunControls();
  void DrawTimeline();
  void DrawFindings(float height);
  // gui_verdict.cpp: a program's answer on top; a fix clicked shows its calls in the chart.
  void DrawVerdictPanel();
  void ShowFix(int index);
  void RenderGroupNotes();
  // Under a program's chart: its findings behind one line (the verdict above says what matters).
  void DrawProgramFindings(float open_height);
  void ApplyPredictedAnswer(const std::string& answer);
  void CheckPrediction();
  void DrawAnswerForm();
  // gui_exercise.cpp
  bool HasExercise(const std::string& lab);
  void OpenExercise(const std::string& lab);
  void DrawExerciseButton();
  void DrawExercisePanel();
  void StartParamsExerciseCheck();  // an exercise on the lab's parameters: run its variant
  void CheckExerciseRun();
  std::string AnswerVerdictText() const;
  void DrawFinding(int index);
  void DrawCode();
  // The backend chosen in the menu, auto resolved with the GPU probe; nullopt (and an error
  // shown) when a GPU backend was chosen and no GPU is usable.
  std::optional<Backend> ResolveBackend();
  void DrawMachineLine();
  std::string welcome_machine_;  // what the first screen said of this machine (its report)

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
  std::vector<std::string> profile_names_;  // the shipped simulator profiles (and --profile's file)
  int profile_choice_ = 0;                  // 0: the built-in profile, else profile_names_[i - 1]
  int backend_choice_ = 0;  // 0 auto, 1 sim, 2 cuda, 3 torch (the lab as a PyTorch program)
  bool run_pending_ = false;

  std::optional<Trace> trace_;
  void PrepareVerdict(std::optional<ProgramVerdict> worked_out);
  std::optional<ProgramVerdict> program_verdict_;  // a recorded or imported program's answer first
  // The answer panel (gui_verdict.cpp): the verdict's lines in the current language, their height
  // at a wrap width (measured again only when it changes), the fix last clicked; and whether the
  // findings under the chart are open.
  struct VerdictPanel {
    std::vector<std::string> lines;
    std::string lang;
    float wrap = -1, height = 0;
    int selected_fix = -1;
    bool findings_open = false;
  };
  VerdictPanel verdict_panel_;
  bool sidebar_shown_ = true;  // the lab list; folded away while a program's trace is shown
  Analysis analysis_;
  std::vector<FindingGroup> finding_groups_;  // of analysis_, prompt starts left out
  GanttViewState view_;
  ChartLayout layout_;
  PanelLayout panels_;
  std::vector<std::string> welcome_doors_;  // drawn by DrawWelcome this frame
  // trace_'s notes in the current language, and their height at a wrap width: rendered once per
  // trace and language (reset where either changes), measured again only when the width changes.
  struct RenderedNotes {
    std::vector<std::string> lines;
    float wrap = -1;
    float height = 0;
  };
  std::optional<RenderedNotes> rendered_notes_;
  std::string banner_;
  std::string error_;
  double run_seconds_ = 0;
  int selected_finding_ = -1;

  Mode mode_ = Mode::kLab;
  std::vector<RunRequest> queue_;  // runs still to start (a compare queues two)
  bool comparing_ = false;         // the next two results are the compare view's A and B
  int compare_results_ = 0;        // results received for the compare in flight
  Run compare_b_;                  // the compare view's second run (the first is trace_)
  std::string compare_with_;       // variant, or "sim" / "cuda" for the other backend
  std::optional<Comparison> comparison_;
  std::optional<ProgramComparison> program_comparison_;  // of trace_ and compare_b_ (program traces)
  std::string program_label_a_, program_label_b_;        // their files' names
  std::string program_per_;                              // the step range asked for
  char compare_path_[512] = {};
  char compare_per_text_[64] = {};
  // The range the trace's own per-step report uses: the field's text once its edit is done
  // (not per keystroke: each change recomputes the report on the GUI thread).
  std::string steps_per_;
  bool predict_first_ = false;
  std::optional<Scenario> predict_scenario_;  // the lab's program for the current settings
  std::vector<int> predicted_;     // the student's order (op indices of predict_scenario_)
  std::optional<PredictionCheck> verdict_;
  AnswerForm answer_form_;               // the lab's question form for the current variant
  std::string answer_;                   // the student's number or choice id
  char answer_text_[32] = {};            // the number as typed
  std::optional<AnswerCheck> answer_verdict_;
  std::string answer_error_;
  bool presenting_ = false;
  bool opening_ = false;  // --open: the worker is reading the file
  bool style_presenting_ = false;  // the style currently applied
  bool replaying_ = false;
  float replay_speed_ = 1.0f;      // 1 = the whole run in 6 s
  double replay_pos_ = 1.0;        // fraction of the run shown
  SandboxModel sandbox_;
  std::map<std::string, bool> has_exercise_;  // lab -> has a checked exercise (read once)
  std::map<std::string, bool> exercise_on_params_;  // lab -> its exercise is on the lab's parameters
  std::string exercise_lab_;                  // the lab whose exercise the sandbox holds
  std::optional<Exercise> exercise_;
  std::optional<ExerciseResult> exercise_result_;
  bool exercise_check_pending_ = false;
  std::map<std::string, double> exercise_params_;  // the parameters of a params exercise's check run
  int export_size_[2] = {1600, 600};
  std::string export_status_;
  char record_command_[512] = {};  // the Record panel's command line
  // The Record panel's window of time (record --delay, --duration; 0 s for: to the end).
  bool record_window_ = options_.record_delay >= 0;
  float record_delay_s_ = options_.record_delay >= 0 ? static_cast<float>(options_.record_delay) : 10.0f;
  float record_duration_s_ = static_cast<float>(options_.record_duration);
  FilePicker open_picker_;         // "Open a trace"
  FilePicker compare_picker_;      // the compare view's second trace
  std::optional<ProgramComparison> steps_report_;  // StepsReport()'s, for the key below
  std::string steps_report_key_;
};

}  // namespace streamlab
