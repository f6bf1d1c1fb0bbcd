// The app's frame.
// [SECTION] state changes: language, lab selection, runs, traces
// [SECTION] frame layout: top bar, sidebar (lab browser), main area (lab page, tabs)
// [SECTION] lab page: texts, parameters, variants, backend, Run/Cancel
// The timeline tab (chart + findings) lives in gui_timeline.cpp; compare, predict-then-reveal,
// presentation/replay, the sandbox and export in gui_compare.cpp, gui_predict.cpp,
// gui_present.cpp, sandbox_view.cpp and gui_export.cpp; the code tab in gui_code.cpp.
#include "app/gui/gui_app.h"

#include <algorithm>

#include <imgui.h>

#include <filesystem>
#include <fstream>

#include "app/gui/fill_slider.h"
#include "app/gui/text_wrap.h"
#include "engine/sim/device_profile.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

void TextSection(const char* heading, const std::string& body, bool open) {
  if (body.empty()) return;
  if (ImGui::CollapsingHeader(heading, open ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    TextWrappedAnyScript(body);
  }
}

}  // namespace

// [SECTION] state changes ------------------------------------------------------------------

GuiApp::GuiApp(GuiOptions options, FontSetup fonts)
    : options_(std::move(options)),
      fonts_(fonts),
      ui_(UiText::Load("en")),
      texts_(FindingTexts::Load("en")),
      worker_(FindCliExecutable()),
      cli_path_(FindCliExecutable()) {
  std::string lang = options_.lang.empty() ? DefaultLanguage() : options_.lang;
  SetLanguage(fonts_.cjk ? lang : "en");
  backend_choice_ = static_cast<int>(options_.backend);  // the menu lists the backends in the enum's order
  profile_names_ = ShippedProfiles();
  if (!options_.profile.empty()) {
    auto it = std::find(profile_names_.begin(), profile_names_.end(), options_.profile);
    if (it == profile_names_.end()) profile_names_.push_back(options_.profile);  // a user's own file
    profile_choice_ = 1 + static_cast<int>(std::find(profile_names_.begin(), profile_names_.end(), options_.profile) -
                                           profile_names_.begin());
  }
  presenting_ = options_.present;
  compare_with_ = options_.compare;
  predict_first_ = options_.predict;
  if (options_.replay_at >= 0) replay_pos_ = std::min(1.0, options_.replay_at);
  if (backend_choice_ != 1) {
    std::string cli = cli_path_;
    probe_future_ = std::async(std::launch::async, [cli] { return ProbeGpuInChild(cli); });
  }
  if (!options_.record_command.empty()) {
    StartRecording(options_.record_command);
  } else if (!options_.open_trace.empty()) {
    RunRequest request;
    request.open = options_.open_trace;
    opening_ = true;
    Submit(std::move(request));
    if (!options_.compare_file.empty()) {  // the same program after a change: compared when both are read
      comparing_ = true;
      compare_results_ = 0;
      program_label_a_ = std::filesystem::path(options_.open_trace).filename().string();
      StartProgramCompare(options_.compare_file, options_.compare_per);
    }
  } else if (!options_.browse.empty()) {
    StartBrowsing();
  } else if (!options_.exercise.empty() || !options_.sandbox_script.empty()) {
    mode_ = Mode::kSandbox;
    if (!options_.exercise.empty()) {
      try {
        OpenExercise(options_.exercise);
        if (exercise_->on_params) {
          for (const auto& [k, v] : options_.params) params_[k] = static_cast<float>(v);
          StartParamsExerciseCheck();
          return;
        }
      } catch (const std::exception& e) {
        error_ = e.what();
      }
      if (!error_.empty() || options_.sandbox_script.empty()) return;
      exercise_check_pending_ = true;
    }
    std::ifstream script(options_.sandbox_script);
    if (!script) error_ = options_.sandbox_script + ": cannot read the sandbox script";
    std::string line;
    for (int n = 1; std::getline(script, line); ++n)
      if (!sandbox_.Apply(line)) {
        error_ = options_.sandbox_script + ":" + std::to_string(n) + ": " + sandbox_.refusal();
        break;
      }
    if (error_.empty()) RunSandbox();
  } else if (!options_.lab.empty()) {
    try {
      SelectLab(options_.lab);
      if (!options_.variant.empty()) variant_ = options_.variant;
      for (const auto& [k, v] : options_.params) params_[k] = static_cast<float>(v);
      ResetPrediction();
      run_pending_ = !predict_first_;
      if (!options_.predict_order.empty()) ApplyPredictedOrder(options_.predict_order);
      if (!options_.predict_answer.empty()) ApplyPredictedAnswer(options_.predict_answer);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
}

void GuiApp::SetLanguage(const std::string& lang) {
  lang_ = lang;
  ui_ = UiText::Load(lang);
  texts_ = FindingTexts::Load(lang);
  rendered_notes_.reset();
  // Read once per language, not every frame.
  lab_titles_.clear();
  for (const Lab& lab : AllLabs()) {
    try {
      lab_titles_[lab.id] = LoadLabText(lab.id, lang).title;
    } catch (const InputError&) {
      lab_titles_[lab.id] = lab.id;
    }
  }
  if (!lab_id_.empty()) {
    try {
      lab_text_ = LoadLabText(lab_id_, lang);
    } catch (const InputError&) {
      lab_text_.reset();
    }
  }
}

void GuiApp::SelectLab(const std::string& id) {
  const Lab& lab = FindLab(id);
  lab_id_ = id;
  variant_ = lab.variants.front();
  params_.clear();
  for (const LabParam& p : lab.params) params_[p.name] = static_cast<float>(p.fallback);
  try {
    lab_text_ = LoadLabText(id, lang_);
  } catch (const InputError&) {
    lab_text_.reset();
  }
}

std::optional<Backend> GuiApp::ResolveBackend() {
  const auto chosen = static_cast<Backend>(backend_choice_);
  if (chosen == Backend::kSim) return Backend::kSim;
  if (!probe_ && probe_future_.valid()) probe_ = probe_future_.get();
  bool usable = probe_ && probe_->usable;
  std::string reason = probe_ ? probe_->reason : "?";
  int needed = lab_id_.empty() ? 1 : FindLab(lab_id_).devices;
  if (usable && probe_->count < needed) {
    usable = false;
    reason = "this lab needs " + std::to_string(needed) + " GPUs; " + std::to_string(probe_->count) + " found";
  }
  if (OnGpu(chosen) && !usable) {
    error_ = ui_.Fill("banner.no_gpu", {{"reason", reason}});
    return std::nullopt;
  }
  if (chosen == Backend::kTorch) return Backend::kTorch;  // the lab as a PyTorch program, on the GPU
  if (!usable) banner_ = ui_.Fill("banner.no_gpu", {{"reason", reason}});
  return usable ? Backend::kCuda : Backend::kSim;
}

void GuiApp::StartRun() {
  if (lab_id_.empty() || worker_.Busy()) return;
  if (!compare_with_.empty()) return StartCompare();
  error_.clear();
  banner_.clear();
  std::optional<Backend> backend = ResolveBackend();
  if (!backend) return;
  RunRequest request;
  request.lab = lab_id_;
  request.variant = variant_;
  for (const auto& [k, v] : params_) request.params[k] = v;
  request.backend = *backend;
  Submit(std::move(request));
}

void GuiApp::Submit(RunRequest request) {
  request.profile = profile_choice_ == 0 ? std::string() : profile_names_[profile_choice_ - 1];
  if (worker_.Busy()) queue_.push_back(std::move(request));
  else worker_.Start(std::move(request));
}

void GuiApp::PollRun() {
  std::optional<RunResult> result = worker_.TakeResult();
  if (!result) return;
  run_seconds_ = result->seconds;
  if (result->opened) {
    if (!result->ok) {  // a file of a compare that cannot be read drops its partner
      error_ = result->cancelled ? ui_("open.cancelled") : result->error;
      opening_ = comparing_ = false;
      queue_.clear();
      return;
    }
    if (!queue_.empty()) {
      worker_.Start(std::move(queue_.front()));
      queue_.erase(queue_.begin());
    } else {
      opening_ = false;
    }
    if (comparing_) return AcceptProgram(std::move(result->trace), std::move(result->analysis));
    ShowTrace(std::move(result->trace), std::move(result->analysis), std::move(result->verdict));
    return;
  }
  if (!result->ok) {  // a failed compare run drops its partner
    error_ = ui_.Fill("error", {{"error", result->error}});
    queue_.clear();
    comparing_ = false;
    return;
  }
  if (!queue_.empty()) {
    worker_.Start(std::move(queue_.front()));
    queue_.erase(queue_.begin());
  }
  if (!lab_id_.empty() && mode_ == Mode::kLab) progress_.MarkDone(lab_id_);
  Accept(std::move(result->trace), std::move(result->analysis), std::move(result->verdict));
}

void GuiApp::Accept(Trace trace, Analysis analysis, std::optional<ProgramVerdict> verdict) {
  if (!comparing_) {
    ShowTrace(std::move(trace), std::move(analysis), std::move(verdict));
    if (exercise_check_pending_) return CheckExerciseRun();
    if (predict_first_ && mode_ == Mode::kLab) CheckPrediction();
    return;
  }
  if (TakeComparePart(std::move(trace), std::move(analysis)))
    comparison_ = CompareRuns(*trace_, analysis_, *compare_b_.trace, compare_b_.analysis);
}

bool GuiApp::TakeComparePart(Trace trace, Analysis analysis) {
  if (++compare_results_ == 1) {
    ShowTrace(std::move(trace), std::move(analysis));
    return false;
  }
  compare_b_.analysis = std::move(analysis);
  compare_b_.trace = std::move(trace);
  compare_b_.view = GanttViewState{};
  comparing_ = false;
  return true;
}

void GuiApp::ShowTrace(Trace trace, std::optional<Analysis> analysis, std::optional<ProgramVerdict> verdict) {
  analysis_ = analysis ? std::move(*analysis) : Analyze(trace);
  finding_groups_ = GroupFindings(trace, analysis_, false);
  trace_ = std::move(trace);
  rendered_notes_.reset();
  view_ = GanttViewState{};
  view_.show_sms = options_.show_sms;
  PrepareVerdict(std::move(verdict));
  program_comparison_.reset();
  if (!comparing_) program_label_a_.clear();  // a new trace: named again when compared
  // A Python stack (with_stack=True) is 20 or more ranges deep: drawn, it would push the
  // streams out of view, so such a trace opens with its ranges hidden (one tick shows them).
  size_t range_depth = 0;
  for (const RangeRows& rows : GanttIndexOf(view_, *trace_).range_rows) range_depth = std::max(range_depth, rows.rows.size());
  view_.show_ranges = range_depth <= kRangeRowsShownAtOpen;
  if (options_.view_to_ms > options_.view_from_ms && options_.view_from_ms >= 0) {
    TimeNs origin = GanttExtent(*trace_).first;
    view_.begin = origin + static_cast<TimeNs>(options_.view_from_ms * 1e6);
    view_.end = origin + static_cast<TimeNs>(options_.view_to_ms * 1e6);
    view_.fit_requested = false;
  }
  selected_finding_ = -1;
  // A program's trace takes the window's width; the labs are one click away (the top bar).
  if (trace_->scenario.recorded && trace_->lab.empty()) sidebar_shown_ = false;
  if (options_.show_fix > 0 && program_verdict_) {
    ShowFix(options_.show_fix - 1);
    options_.show_fix = 0;
  }
  if (!trace_->lab.empty() && lab_id_ != trace_->lab) {
    try {
      SelectLab(trace_->lab);
      variant_ = trace_->variant;
    } catch (const InputError&) {
      // A trace of a lab this build does not know: show the chart alone.
    }
  }
}

bool GuiApp::Settled() const {
  if (worker_.Busy() || run_pending_ || !queue_.empty() || comparing_) return false;
  if (predict_first_ && mode_ == Mode::kLab && !trace_)
    return error_.empty() ? options_.predict_order.empty() && options_.predict_answer.empty() : true;
  return trace_.has_value() || !error_.empty() || (lab_id_.empty() && mode_ == Mode::kLab);
}

// [SECTION] frame layout -------------------------------------------------------------------

void GuiApp::Frame(ImVec2 display) {
  if (run_pending_) {
    run_pending_ = false;
    StartRun();
  }
  PollRun();
  HandleKeys();
  ApplyStyle();
  AdvanceReplay();
  if (options_.chart_only) return DrawChartOnly(display);
  welcome_doors_.clear();  // drawn again below while the first screen shows
  panels_ = PanelLayout{};
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(display);
  ImGui::Begin("StreamLab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  DrawTopBar();
  if (open_picker_.Draw(ui_("open.heading"), ui_)) OpenTrace(open_picker_.chosen());
  if (!presenting_ && sidebar_shown_) {  // presentation mode: the chart and the explanation only
    float sidebar = 250.0f;
    ImGui::BeginChild("sidebar", ImVec2(sidebar, 0), true);
    DrawSidebar(sidebar);
    ImGui::EndChild();
    ImGui::SameLine();
  }
  ImGui::BeginChild("main", ImVec2(0, 0), false);
  if (mode_ == Mode::kSandbox) {
    DrawSandbox();
  } else if (lab_id_.empty() && !trace_) {
    // Also where a recording's progress and errors show: it has no lab header.
    std::string seconds = std::to_string(static_cast<int>(worker_.ElapsedSeconds()));
    if (worker_.Busy()) {
      // Which stage it is in (reading the file or running the program, then explaining), and a
      // Cancel that takes effect when that stage ends.
      const char* key = worker_.Stage() == RunStage::kExplaining ? (opening_ ? "open.explaining" : "record.explaining")
                        : opening_                               ? "open.reading"
                                                                 : "record.running";
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("%s", ui_.Fill(key, {{"file", options_.open_trace}, {"seconds", seconds}}).c_str());
      ImGui::SameLine();
      if (ImGui::SmallButton(ui_("cancel"))) worker_.Cancel();
    } else if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
    DrawWelcome();
  } else {
    DrawLabHeader();
    bool show_compare = ShowsCompare();
    if (presenting_) {
      show_compare ? DrawCompare() : DrawTimeline();
    } else if (ImGui::BeginTabBar("tabs")) {
      ImGuiTabItemFlags compare_flags = show_compare && options_.headless ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(ui_("chart"))) {
        DrawTimeline();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem(ui_("compare"), nullptr, compare_flags)) {
        DrawCompare();
        ImGui::EndTabItem();
      }
      if (trace_ && ImGui::BeginTabItem(ui_("code"))) {
        DrawCode();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

void GuiApp::DrawTopBar() {
  ImGui::TextUnformatted(ui_("app_title"));
  ImGui::SameLine(0, 20);
  if (!presenting_) {
    // The three ways in, one click each from anywhere: the labs, a trace, a program to record.
    if (ImGui::Button(sidebar_shown_ ? ui_("top.labs_hide") : ui_("top.labs"))) sidebar_shown_ = !sidebar_shown_;
    ImGui::SameLine();
    bool busy = worker_.Busy();
    if (busy) ImGui::BeginDisabled();
    if (ImGui::Button(ui_("top.open"))) open_picker_.Open(options_.open_trace);
    ImGui::SameLine();
    if (ImGui::Button(ui_("top.record"))) ImGui::OpenPopup("record_popup");
    if (busy) ImGui::EndDisabled();
    ImGui::SetNextWindowSize(ImVec2(36 * ImGui::GetFontSize(), 0));
    if (ImGui::BeginPopup("record_popup")) {
      ImGui::TextUnformatted(ui_("record.heading"));
      DrawRecordForm();
      if (worker_.Busy()) ImGui::CloseCurrentPopup();
      ImGui::EndPopup();
    }
    ImGui::SameLine(0, 30);
  }
  ImGui::SetNextItemWidth(120);
  const char* langs[] = {"English", "中文"};
  int current = lang_ == "zh" ? 1 : 0;
  if (fonts_.cjk) {
    if (ImGui::Combo(ui_("language"), &current, langs, 2)) SetLanguage(current == 1 ? "zh" : "en");
  } else {
    ImGui::TextDisabled("%s", ui_("no_cjk_font"));
  }
  ImGui::SameLine(0, 30);
  ImGui::SetNextItemWidth(170);
  const char* backends[] = {ui_("backend.auto"), ui_("backend.sim"), ui_("backend.cuda")};
  const char* backends_all[] = {backends[0], backends[1], backends[2], ui_("backend.torch")};
  ImGui::Combo(ui_("backend"), &backend_choice_, backends_all, 4);
  if (backend_choice_ == 0 || backend_choice_ == 1) {
    // Which GPU the simulator models: the built-in profile or one calibrated on a GPU.
    ImGui::SameLine(0, 20);
    ImGui::SetNextItemWidth(190);
    std::string current_profile = profile_choice_ == 0 ? ui_("profile.builtin") : profile_names_[profile_choice_ - 1];
    if (ImGui::BeginCombo(ui_("profile"), current_profile.c_str())) {
      for (int i = 0; i <= static_cast<int>(profile_names_.size()); ++i) {
        std::string label = i == 0 ? ui_("profile.builtin") : profile_names_[i - 1];
        if (ImGui::Selectable(label.c_str(), i == profile_choice_)) profile_choice_ = i;
      }
      ImGui::EndCombo();
    }
  }
  ImGui::SameLine(0, 30);
  if (ImGui::Button(presenting_ ? ui_("present.leave") : ui_("present"))) presenting_ = !presenting_;
  if (presenting_) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", ui_("present.keys"));
  }
  ImGui::Separator();
}

void GuiApp::DrawSidebar(float) {
  if (ImGui::Selectable(ui_("sandbox"), mode_ == Mode::kSandbox)) {
    mode_ = Mode::kSandbox;
    trace_.reset();
    comparison_.reset();
    error_.clear();
  }
  ImGui::Separator();
  ImGui::TextUnformatted(ui_("labs"));
  int week = 0;
  bool open = false;
  for (const Lab& lab : AllLabs()) {
    if (lab.week != week) {
      if (open) ImGui::TreePop();
      week = lab.week;
      ImGui::SetNextItemOpen(true, ImGuiCond_Once);
      std::string heading = ui_.Fill("week", {{"n", std::to_string(week)}});
      if (int made = progress_.PredictionsMade(week))
        heading += "  " + ui_.Fill("predictions", {{"held", std::to_string(progress_.PredictionsHeld(week))},
                                                   {"made", std::to_string(made)}});
      int exercises = 0;
      for (const Lab& other : AllLabs()) exercises += other.week == week && HasExercise(other.id);
      if (exercises > 0)
        heading += "  " + ui_.Fill("exercises", {{"passed", std::to_string(progress_.ExercisesPassed(week))},
                                                 {"n", std::to_string(exercises)}});
      open = ImGui::TreeNode((heading + "##week" + std::to_string(week)).c_str());
    }
    if (!open) continue;
    // The whole title, wrapped to the panel: a selectable as tall as the wrapped text, with
    // the text drawn over it beside the "done" mark (no leading blanks: a title without
    // spaces, as Chinese ones are, would otherwise wrap after the blanks).
    const std::string& title = lab_titles_[lab.id];
    float mark = ImGui::CalcTextSize("\xE2\x9C\x93 ").x;
    float wrap = ImGui::GetContentRegionAvail().x - mark;
    ImVec2 at = ImGui::GetCursorPos();
    float height = WrappedTextHeight(title, wrap);
    bool chosen = ImGui::Selectable(("##" + lab.id).c_str(), mode_ == Mode::kLab && lab.id == lab_id_, 0, ImVec2(0, height));
    bool hovered = ImGui::IsItemHovered();
    ImVec2 after = ImGui::GetCursorPos();
    if (progress_.Done(lab.id)) {
      ImGui::SetCursorPos(at);
      ImGui::TextUnformatted("\xE2\x9C\x93");
    }
    ImGui::SetCursorPos(ImVec2(at.x + mark, at.y));
    DrawWrappedText(title, wrap);
    ImGui::SetCursorPos(after);
    if (chosen) {
      mode_ = Mode::kLab;
      SelectLab(lab.id);
      trace_.reset();
      comparison_.reset();
      error_.clear();
      banner_.clear();
      ResetPrediction();
    }
    if (hovered) ImGui::SetTooltip("%s", lab.id.c_str());
  }
  if (open) ImGui::TreePop();
}

// [SECTION] lab page -----------------------------------------------------------------------

void GuiApp::DrawLabHeader() {
  if (lab_text_) {
    ImGui::TextUnformatted(lab_text_->title.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", lab_id_.c_str());
    if (!presenting_) {
      TextSection(ui_("goal"), lab_text_->goal, false);
      TextSection(ui_("theory"), lab_text_->theory, false);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.4f, 1.0f));
    TextWrappedAnyScript(ui_.Fill("predict.line", {{"heading", ui_("predict")}, {"text", lab_text_->predict}}));
    ImGui::PopStyleColor();
    if (trace_ && !presenting_) {
      TextSection(ui_("observe"), lab_text_->observe, false);
      TextSection(ui_("explanation"), lab_text_->explanation, false);
      TextSection(ui_("exercise"), lab_text_->exercise, false);
      DrawExerciseButton();
      TextSection(ui_("myth"), lab_text_->myth, false);
      TextSection(ui_("pytorch"), lab_text_->pytorch, false);
    }
  }
  if (!lab_id_.empty() && !presenting_) DrawRunControls();
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  if (!banner_.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", banner_.c_str());
  if (trace_) {
    bool imported = trace_->backend == "record" || trace_->backend == "kineto";
    std::string line = TraceBanner(imported);
    // A program's answer first; what the trace holds folds into one line under it.
    if (program_verdict_) DrawVerdictPanel();
    DrawTraceNotes(imported, line);
  }
}

// Where the trace comes from, in one line.
std::string GuiApp::TraceBanner(bool imported) const {
  // A trace from elsewhere may name no device or date (older torch.profiler versions).
  std::string device = trace_->device_name.empty() ? ui_("banner.unknown_device") : trace_->device_name;
  std::string date = trace_->captured_at.empty() ? ui_("banner.unknown_date") : trace_->captured_at;
  if (trace_->backend == BackendName(Backend::kSim)) return ui_.Fill("banner.sim_profile", {{"profile", ProfileLabel(trace_->profile)}});
  if (imported && !trace_->scenario.processes.empty())
    return ui_.Fill("banner.processes", {{"backend", trace_->backend}, {"device", device},
                                         {"n", std::to_string(trace_->scenario.processes.size())},
                                         {"error", FormatDuration(trace_->clock_error)}});
  if (imported) return ui_.Fill("banner.imported", {{"backend", trace_->backend}, {"device", device}, {"date", date}});
  return ui_.Fill("banner.trace", {{"backend", trace_->backend}, {"device", device}, {"date", date},
                                   {"error", FormatDuration(trace_->clock_error)}});
}

void GuiApp::DrawRunControls() {
  const Lab& lab = FindLab(lab_id_);
  ImGui::SetNextItemWidth(180);
  if (ImGui::BeginCombo(ui_("variant"), ui_.Variant(variant_).c_str())) {
    for (const std::string& v : lab.variants)
      if (ImGui::Selectable((ui_.Variant(v) + "##" + v).c_str(), v == variant_)) {
        variant_ = v;
        ResetPrediction();
      }
    ImGui::EndCombo();
  }
  for (const LabParam& p : lab.params) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140);
    float& value = params_[p.name];
    // The name as exercises and `--param` spell it (translated where the language has it); the
    // unit beside the value, unless the name already says it ("blocks", not "blocks (blocks)").
    const std::string unit = p.unit == "us" ? "\xC2\xB5s" : ui_.Unit(p.unit);
    const std::string shown = p.unit.empty() || p.unit == p.name ? "" : " " + (unit == "%" ? "%%" : unit);
    const std::string label = ui_.Param(p.name) + "##" + p.name;
    bool changed = false;
    if (p.max - p.min <= 64) {
      int v = static_cast<int>(value);
      changed = FillSliderInt(label.c_str(), &v, static_cast<int>(p.min), static_cast<int>(p.max), ("%d" + shown).c_str());
      if (changed) value = static_cast<float>(v);
    } else {
      changed = FillSliderFloat(label.c_str(), &value, static_cast<float>(p.min), static_cast<float>(p.max),
                                   ("%.0f" + shown).c_str(), ImGuiSliderFlags_Logarithmic);
    }
    if (changed && predict_first_) ResetPrediction();  // the question depends on the parameters
  }
  if (worker_.Busy()) {
    ImGui::Text("%s %.1f s", ui_("running"), worker_.ElapsedSeconds());
    ImGui::SameLine();
    if (ImGui::Button(ui_("cancel"))) worker_.Cancel();
  } else {
    bool revealing = predict_first_ && !trace_;
    if (ImGui::Button(revealing ? ui_("predict.reveal") : ui_("run"), ImVec2(120, 0))) StartRun();
    ImGui::SameLine();
    if (ImGui::Checkbox(ui_("predict.first"), &predict_first_)) ResetPrediction();
  }
}

}  // namespace streamlab
