// The compare view: two runs of a lab - two variants, the simulator's prediction and the
// GPU's measurement of one variant, or its CUDA C++ and PyTorch runs - stacked on one time axis (each from its own first
// GPU start), with what changed called out: GPU time, overlap (speed-up), host blocked,
// and the ops whose start moved most, each with the analyzer's reason in the second run.
// For a program's trace (recorded or imported), the same program after a change, per step
// (engine/analysis/compare_programs.h), each chart from its first step; until a second trace
// is chosen, the trace alone per step when it marks its steps.
#include <imgui.h>

#include <filesystem>

#include "app/gui/gui_app.h"
#include "engine/analysis/compare_programs_text.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

std::string Signed(TimeNs d) { return (d >= 0 ? "+" : "-") + FormatDuration(d >= 0 ? d : -d); }

std::string Ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}

}  // namespace

void GuiApp::StartCompare() {
  if (lab_id_.empty() || worker_.Busy()) return;
  error_.clear();
  banner_.clear();
  std::optional<Backend> backend = ResolveBackend();
  if (!backend) return;
  RunRequest a;
  a.lab = lab_id_;
  a.variant = variant_;
  for (const auto& [k, v] : params_) a.params[k] = v;
  a.backend = *backend;
  RunRequest b = a;
  // compare_with_ is a variant, or a backend's name: the same variant there.
  std::optional<Backend> other = ParseBackend(compare_with_);
  if (other == Backend::kTorch) {
    // The lab's CUDA C++ run next to its PyTorch run, both on the GPU.
    a.backend = Backend::kCuda;
    b.backend = Backend::kTorch;
    if (*backend == Backend::kSim) {
      error_ = ui_("compare.no_gpu");
      return;
    }
  } else if (other == Backend::kSim || other == Backend::kCuda) {
    // The simulator's prediction next to the GPU's measurement of the same variant.
    a.backend = Backend::kSim;
    b.backend = Backend::kCuda;
    if (*backend != Backend::kCuda) {
      error_ = ui_("compare.no_gpu");
      return;
    }
  } else {
    b.variant = compare_with_;
  }
  compare_b_ = Run{};
  comparison_.reset();
  comparing_ = true;
  compare_results_ = 0;
  Submit(std::move(a));
  Submit(std::move(b));
}

void GuiApp::DrawCompare() {
  if (lab_id_.empty()) return DrawProgramCompare();  // a program's trace, not a lab's run
  const Lab& lab = FindLab(lab_id_);
  if (!presenting_) {
    ImGui::SetNextItemWidth(200);
    std::string shown = compare_with_.empty() ? ui_("compare.pick") : ui_.Variant(compare_with_);
    if (ImGui::BeginCombo(ui_("compare.with"), shown.c_str())) {
      for (const std::string& v : lab.variants)
        if (v != variant_ && ImGui::Selectable((ui_.Variant(v) + "##" + v).c_str(), v == compare_with_)) compare_with_ = v;
      for (auto [backend, label] : {std::pair{Backend::kCuda, "compare.sim_vs_gpu"}, std::pair{Backend::kTorch, "compare.cuda_vs_torch"}}) {
        std::string name(BackendName(backend));
        if (ImGui::Selectable(ui_(label), compare_with_ == name)) compare_with_ = name;
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (!compare_with_.empty() && !worker_.Busy() && ImGui::Button(ui_("compare.run"))) StartCompare();
  }
  if (comparing_ || !comparison_ || !trace_ || !compare_b_.trace) {
    if (comparing_) ImGui::TextUnformatted(ui_("running"));
    return;
  }
  const Comparison& c = *comparison_;
  std::string label_a = trace_->variant + " (" + trace_->backend + ")";
  std::string label_b = compare_b_.trace->variant + " (" + compare_b_.trace->backend + ")";
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(ui_.Fill("compare.figures",
                                  {{"a", label_a},
                                   {"b", label_b},
                                   {"time_a", FormatDuration(c.a.makespan)},
                                   {"time_b", FormatDuration(c.b.makespan)},
                                   {"time_d", Signed(c.b.makespan - c.a.makespan)},
                                   {"speedup_a", Ratio(c.a.speedup)},
                                   {"speedup_b", Ratio(c.b.speedup)},
                                   {"blocked_a", FormatDuration(c.a.host_blocked)},
                                   {"blocked_b", FormatDuration(c.b.host_blocked)}})
                             .c_str());
  for (const MovedOp& m : c.moved) {
    if (m.shift() == 0) continue;
    const Finding* why_a = StartFinding(analysis_, m.op_a);
    const Finding* why_b = StartFinding(compare_b_.analysis, m.op_b);
    ImGui::Bullet();
    TimeNs amount = m.shift() >= 0 ? m.shift() : -m.shift();
    ImGui::TextUnformatted(ui_.Fill(m.shift() < 0 ? "compare.earlier" : "compare.later",
                                    {{"op", m.name},
                                     {"amount", FormatDuration(amount)},
                                     {"why_a", why_a ? texts_.Render(*trace_, *why_a) : "-"},
                                     {"why_b", why_b ? texts_.Render(*compare_b_.trace, *why_b) : "-"}})
                               .c_str());
  }
  ImGui::PopTextWrapPos();

  // Both charts on one axis, each from its own start.
  auto [begin_a, end_a] = GanttExtent(*trace_);
  auto [begin_b, end_b] = GanttExtent(*compare_b_.trace);
  DrawChartsOnOneAxis(begin_a, begin_b, std::max(end_a - begin_a, end_b - begin_b), label_a, label_b);
}

// B's window follows A's, offset by the runs' origins; panning or zooming B moves A too.
void GuiApp::DrawChartsOnOneAxis(TimeNs origin_a, TimeNs origin_b, TimeNs span, const std::string& label_a,
                                 const std::string& label_b) {
  if (view_.fit_requested) {
    view_.begin = origin_a - span / 40;
    view_.end = origin_a + span + span / 40;
    view_.fit_requested = false;
  }
  float h = std::max(120.0f, (ImGui::GetContentRegionAvail().y - 2 * ImGui::GetFontSize()) * 0.5f);
  float w = ImGui::GetContentRegionAvail().x;
  float scale = presenting_ ? 1.4f : 1.0f;
  view_.axis_origin = origin_a;
  compare_b_.view.axis_origin = origin_b;
  ImGui::TextUnformatted(("A: " + label_a).c_str());
  GanttInputs in_a{&*trace_, &analysis_, &texts_, &ui_, scale, !options_.headless, presenting_};
  DrawGantt(in_a, view_, ImVec2(w, h), &layout_);
  compare_b_.view.begin = origin_b + (view_.begin - origin_a);
  compare_b_.view.end = origin_b + (view_.end - origin_a);
  compare_b_.view.fit_requested = false;
  ImGui::TextUnformatted(("B: " + label_b).c_str());
  GanttInputs in_b{&*compare_b_.trace, &compare_b_.analysis, &texts_, &ui_, scale, !options_.headless, presenting_};
  DrawGantt(in_b, compare_b_.view, ImVec2(w, h), nullptr);
  view_.begin = origin_a + (compare_b_.view.begin - origin_b);
  view_.end = origin_a + (compare_b_.view.end - origin_b);
}

// [SECTION] two traces of one program -------------------------------------------------------

void GuiApp::StartProgramCompare(const std::string& path, const std::string& per) {
  if (path.empty()) return;
  // The fields show what is compared, also when it came from --compare-file and --per.
  if (path.c_str() != compare_path_) std::snprintf(compare_path_, sizeof compare_path_, "%s", path.c_str());
  if (per.c_str() != compare_per_text_) std::snprintf(compare_per_text_, sizeof compare_per_text_, "%s", per.c_str());
  steps_per_ = per;
  if (trace_ && program_label_a_.empty())
    program_label_a_ = options_.open_trace.empty() ? trace_->scenario.name
                                                   : std::filesystem::path(options_.open_trace).filename().string();
  program_label_b_ = std::filesystem::path(path).filename().string();
  program_per_ = per;
  program_comparison_.reset();
  compare_b_ = Run{};
  comparing_ = true;
  compare_results_ = trace_ ? 1 : 0;  // A is already shown when asked from the compare view
  error_.clear();
  RunRequest request;
  request.open = path;
  Submit(std::move(request));
}

void GuiApp::AcceptProgram(Trace trace, Analysis analysis) {
  if (!TakeComparePart(std::move(trace), std::move(analysis))) return;
  try {
    program_comparison_ =
        ComparePrograms(*trace_, analysis_, *compare_b_.trace, compare_b_.analysis, program_per_, ShownSteadySteps());
    view_.fit_requested = true;
  } catch (const InputError& e) {  // --per names a range one of them lacks
    error_ = e.what();
  }
}

bool GuiApp::ShowsCompare() const {
  // --per without --compare-file (a screenshot): the trace per step, in the compare tab.
  bool steps_only = options_.headless && !options_.compare_per.empty() && options_.compare_file.empty() && lab_id_.empty();
  return comparison_.has_value() || program_comparison_.has_value() || comparing_ || steps_only;
}

// The shown trace's steady steps as its verdict found them (none for a lab's run: found afresh).
std::optional<SteadySteps> GuiApp::ShownSteadySteps() const {
  if (!program_verdict_ || !program_verdict_->found()) return std::nullopt;
  return SteadyStepsOf(program_verdict_->lead().steps, program_verdict_->lead().pace);
}

std::optional<ProgramComparison> GuiApp::DescribeOwnSteps() const {
  if (!trace_ || !lab_id_.empty()) return std::nullopt;
  std::string per = !steps_per_.empty() ? steps_per_ : options_.compare_per;
  if (per.empty()) per = CountStepRanges(*trace_, "ProfilerStep") > 0 ? "ProfilerStep" : "step";
  if (CountStepRanges(*trace_, per) == 0) return std::nullopt;
  try {
    return DescribeSteps(*trace_, analysis_, per, ShownSteadySteps());
  } catch (const InputError&) {  // ranges that all end before they begin
    return std::nullopt;
  }
}

const ProgramComparison* GuiApp::StepsReport() {
  // The trace shown (its address is reused by the next one, so its size and time say which)
  // and the range named.
  std::string key = trace_ ? std::to_string(reinterpret_cast<uintptr_t>(&*trace_)) + "/" +
                                 std::to_string(trace_->ops.size()) + "/" + trace_->captured_at + "/" + steps_per_
                           : "";
  if (key != steps_report_key_) {
    steps_report_key_ = key;
    steps_report_ = DescribeOwnSteps();
  }
  return steps_report_ ? &*steps_report_ : nullptr;
}

std::string GuiApp::ProgramCompareReport() const {
  if (!program_comparison_ && !comparing_ && options_.compare_file.empty()) {  // the trace alone, per step
    std::optional<ProgramComparison> steps = DescribeOwnSteps();
    std::string out;
    if (steps)
      for (const std::string& line : RenderStepReport(*steps, texts_)) out += (out.empty() ? "" : "\n") + line;
    return out;
  }
  if (!program_comparison_ || !trace_ || !compare_b_.trace) return "";
  std::string out;
  for (const std::string& line : RenderProgramComparison(*program_comparison_, texts_, program_label_a_, program_label_b_,
                                                         trace_->backend, compare_b_.trace->backend))
    out += (out.empty() ? "" : "\n") + line;
  return out;
}

void GuiApp::DrawProgramCompare() {
  if (steps_per_.empty() && !options_.compare_per.empty()) {  // --per alone: the field shows it too
    steps_per_ = options_.compare_per;
    std::snprintf(compare_per_text_, sizeof compare_per_text_, "%s", steps_per_.c_str());
  }
  if (!presenting_) {
    ImGui::SetNextItemWidth(420);
    ImGui::InputText(ui_("compare.file"), compare_path_, sizeof compare_path_);
    ImGui::SameLine();
    if (ImGui::Button(ui_("open.browse"))) compare_picker_.Open(compare_path_[0] ? compare_path_ : options_.open_trace);
    if (compare_picker_.Draw(ui_("compare.file"), ui_))
      std::snprintf(compare_path_, sizeof compare_path_, "%s", compare_picker_.chosen().c_str());
    ImGui::SetNextItemWidth(160);
    ImGui::InputText(ui_("compare.per"), compare_per_text_, sizeof compare_per_text_);
    if (ImGui::IsItemDeactivatedAfterEdit()) steps_per_ = compare_per_text_;
    ImGui::SameLine();
    if (!worker_.Busy() && ImGui::Button(ui_("compare.open"))) StartProgramCompare(compare_path_, compare_per_text_);
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  if (comparing_) ImGui::TextUnformatted(ui_("running"));
  if (!comparing_ && !program_comparison_) {  // nothing compared yet: this trace per step, if it marks steps
    if (const ProgramComparison* steps = StepsReport()) {
      ImGui::TextDisabled("%s", ui_("compare.own_steps"));
      ImGui::BeginChild("own_steps", ImVec2(0, 0), false);
      ImGui::PushTextWrapPos(0);
      for (const std::string& line : RenderStepReport(*steps, texts_)) ImGui::TextUnformatted(line.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndChild();
    }
    return;
  }
  if (comparing_ || !program_comparison_ || !trace_ || !compare_b_.trace) return;
  const ProgramComparison& c = *program_comparison_;
  // The comparison scrolls in at most two fifths of the height; the charts get the rest.
  ImGui::BeginChild("program_compare", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.4f), false);
  ImGui::PushTextWrapPos(0);
  for (const std::string& line : RenderProgramComparison(c, texts_, program_label_a_, program_label_b_, trace_->backend,
                                                         compare_b_.trace->backend))
    ImGui::TextUnformatted(line.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  // The charts from each run's first step (or start), over the longer of the two.
  TimeNs origin_a = c.unit.empty() ? GanttExtent(*trace_).first : c.a.from;
  TimeNs origin_b = c.unit.empty() ? GanttExtent(*compare_b_.trace).first : c.b.from;
  TimeNs end_a = c.unit.empty() ? GanttExtent(*trace_).second : c.a.to;
  TimeNs end_b = c.unit.empty() ? GanttExtent(*compare_b_.trace).second : c.b.to;
  DrawChartsOnOneAxis(origin_a, origin_b, std::max(end_a - origin_a, end_b - origin_b), program_label_a_, program_label_b_);
}

}  // namespace streamlab
