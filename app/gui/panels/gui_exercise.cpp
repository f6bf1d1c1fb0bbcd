// Checked exercises in the app: "Open in sandbox" puts the lab's program (its current
// variant and parameters) into the sandbox; the sandbox then shows the exercise and its
// goals, and "Check" runs the edited program and says, goal by goal, what was measured and,
// for a goal not met, the analyzer's sentence. An exercise on the lab's parameters stays on
// the lab page: its "Check" runs the exercise's variant with the parameters the student set.
// The result is kept in the progress file.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace streamlab {

bool GuiApp::HasExercise(const std::string& lab) {
  auto it = has_exercise_.find(lab);
  if (it != has_exercise_.end()) return it->second;
  bool has = false;
  try {
    std::optional<Exercise> exercise = LoadExercise(lab);
    has = exercise.has_value();
    exercise_on_params_[lab] = has && exercise->on_params;
  } catch (const InputError&) {
    has = false;  // a broken check section: the exercise stays text only
  }
  return has_exercise_[lab] = has;
}

void GuiApp::OpenExercise(const std::string& lab_id) {
  std::optional<Exercise> exercise = LoadExercise(lab_id);
  if (!exercise) throw InputError("lab " + lab_id + " has no checked exercise");
  const Lab& lab = FindLab(lab_id);
  if (lab_id_ != lab_id) SelectLab(lab_id);
  std::map<std::string, double> p(params_.begin(), params_.end());
  std::string variant = !exercise->variant.empty() ? exercise->variant : variant_.empty() ? lab.variants.front() : variant_;
  variant_ = variant;
  if (exercise->on_params) {
    exercise_lab_ = lab_id;
    exercise_ = std::move(exercise);
    exercise_result_.reset();
    mode_ = Mode::kLab;
    return;
  }
  if (!sandbox_.Open(lab.build(ResolveLabArgs(lab, variant, p))))
    throw InputError("the lab's program does not open in the sandbox: " + sandbox_.refusal());
  exercise_lab_ = lab_id;
  exercise_ = std::move(exercise);
  exercise_result_.reset();
  mode_ = Mode::kSandbox;
  trace_.reset();
  analysis_ = Analysis{};
}

void GuiApp::DrawExerciseButton() {
  if (lab_id_.empty() || !HasExercise(lab_id_)) return;
  bool open = exercise_ && exercise_lab_ == lab_id_ && exercise_->on_params;
  bool on_params = exercise_on_params_[lab_id_];
  if (!open && ImGui::Button(ui_(on_params ? "exercise.start" : "exercise.open"))) {
    try {
      OpenExercise(lab_id_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  if (open) DrawExercisePanel();
}

void GuiApp::StartParamsExerciseCheck() {
  const Lab& lab = FindLab(exercise_lab_);
  variant_ = !exercise_->variant.empty() ? exercise_->variant : lab.variants.front();
  // The parameters as the run uses them (defaults filled in), read when the run returns.
  std::map<std::string, double> p(params_.begin(), params_.end());
  exercise_params_ = ResolveLabArgs(lab, variant_, p).params;
  exercise_check_pending_ = true;
  StartRun();
}

void GuiApp::CheckExerciseRun() {
  exercise_check_pending_ = false;
  if (!exercise_ || !trace_) return;
  exercise_result_ = CheckExercise(*exercise_, *trace_, analysis_, texts_, lang_,
                                   exercise_->on_params ? exercise_params_ : std::map<std::string, double>{});
  progress_.MarkExercise(exercise_lab_, exercise_result_->passed);
}

std::string GuiApp::ExerciseReport() const {
  if (!exercise_result_) return "";
  const ExerciseResult& r = *exercise_result_;
  int failed = 0;
  for (const GoalResult& g : r.goals) failed += !g.met;
  std::string text = "exercise " + exercise_lab_ + ": " +
                     (r.passed ? std::string(ui_("exercise.passed"))
                               : ui_.Fill("exercise.failed", {{"failed", std::to_string(failed)},
                                                              {"n", std::to_string(r.goals.size())}}));
  for (const GoalResult& g : r.goals) {
    text += "\n  [" + std::string(ui_(g.met ? "exercise.goal_met" : "exercise.goal_missed")) + "] " + g.goal + " (" +
            ui_("exercise.measured") + " " + g.measured + ")";
    if (!g.reason.empty()) text += "\n    " + std::string(ui_("predict.why")) + " " + g.reason;
  }
  return text;
}

void GuiApp::DrawExercisePanel() {
  if (exercise_lab_.empty() || !exercise_) return;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.4f, 1.0f), "%s",
                     ui_.Fill("exercise.heading", {{"title", lab_titles_[exercise_lab_]}}).c_str());
  if (lab_text_ && lab_id_ == exercise_lab_) TextWrappedAnyScript(lab_text_->exercise);
  if (exercise_->on_params) ImGui::TextDisabled("%s", ui_("exercise.on_params"));
  if (!worker_.Busy() && ImGui::Button(ui_("exercise.check"))) {
    if (exercise_->on_params) {
      StartParamsExerciseCheck();
    } else {
      exercise_check_pending_ = true;
      RunSandbox();
    }
  }
  if (exercise_result_) {
    const ExerciseResult& r = *exercise_result_;
    ImVec4 colour = r.passed ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1.0f, 0.55f, 0.3f, 1);
    int failed = 0;
    for (const GoalResult& g : r.goals) failed += !g.met;
    ImGui::TextColored(colour, "%s",
                       r.passed ? ui_("exercise.passed")
                                : ui_.Fill("exercise.failed", {{"failed", std::to_string(failed)},
                                                               {"n", std::to_string(r.goals.size())}})
                                      .c_str());
    for (const GoalResult& g : r.goals) {
      ImGui::BulletText("[%s] %s (%s %s)", ui_(g.met ? "exercise.goal_met" : "exercise.goal_missed"), g.goal.c_str(),
                        ui_("exercise.measured"), g.measured.c_str());
      if (!g.reason.empty()) ImGui::TextDisabled("%s %s", ui_("predict.why"), g.reason.c_str());
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::Separator();
}

}  // namespace streamlab
