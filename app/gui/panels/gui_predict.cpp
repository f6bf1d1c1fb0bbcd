// Predict, then reveal. Before the run the student answers the lab's question in its own
// form (engine/classroom/answer_form.h): a number with its unit, one of a few choices, or
// the order in which the GPU work will start (drag, or the arrows); the chart stays hidden.
// The run reveals the chart and says whether the answer held, with the run's figure and
// the analyzer's sentence for why. Each answer is kept in the progress file, per week.
#include <imgui.h>

#include <cstdio>
#include <cstdlib>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace streamlab {

void GuiApp::ResetPrediction() {
  verdict_.reset();
  predicted_.clear();
  predict_scenario_.reset();
  answer_form_ = AnswerForm{};
  answer_.clear();
  answer_text_[0] = '\0';
  answer_verdict_.reset();
  answer_error_.clear();
  if (lab_id_.empty()) return;
  try {
    answer_form_ = LoadAnswerForm(lab_id_, variant_);
  } catch (const InputError& e) {
    error_ = e.what();  // a broken lab file: say so, fall back to ordering the work
  }
  try {  // built once here, not every frame
    const Lab& lab = FindLab(lab_id_);
    std::map<std::string, double> p(params_.begin(), params_.end());
    predict_scenario_ = lab.build(ResolveLabArgs(lab, variant_, p));
    predicted_ = PredictableOps(*predict_scenario_);
  } catch (const std::exception&) {
    predicted_.clear();  // parameters out of range mid-edit: no question yet
  }
  if (predict_first_) trace_.reset();
}

// A scripted answer (tests, demos): the named ops in this order, then reveal.
void GuiApp::ApplyPredictedOrder(const std::vector<std::string>& names) {
  if (!predict_scenario_) return;
  const Scenario& s = *predict_scenario_;
  std::vector<int> order;
  for (const std::string& name : names)
    for (int op : predicted_)
      if (DisplayName(s, op) == name) order.push_back(op);
  if (order.size() != predicted_.size()) {
    error_ = "--predict-order must name each of the lab's GPU ops once";
    return;
  }
  predicted_ = order;
  run_pending_ = true;
}

// A scripted number or choice (tests, demos), then reveal.
void GuiApp::ApplyPredictedAnswer(const std::string& answer) {
  if (answer_form_.kind == AnswerForm::Kind::kOrder) {
    error_ = "--predict-answer: this lab's question is answered by ordering the work (--predict-order)";
    return;
  }
  bool valid = false;
  for (const AnswerChoice& c : answer_form_.choices) valid = valid || c.id == answer;
  if (answer_form_.kind == AnswerForm::Kind::kNumber) {
    char* end = nullptr;
    std::strtod(answer.c_str(), &end);
    valid = !answer.empty() && *end == '\0';
  }
  if (!valid) {
    std::string ids;
    for (const AnswerChoice& c : answer_form_.choices) ids += (ids.empty() ? "" : ", ") + c.id;
    error_ = "--predict-answer: \"" + answer + "\" is not " +
             (ids.empty() ? "a number (in " + answer_form_.unit + ")" : "one of " + ids);
    return;
  }
  answer_ = answer;
  std::snprintf(answer_text_, sizeof answer_text_, "%s", answer.c_str());
  run_pending_ = true;
}

void GuiApp::CheckPrediction() {
  if (answer_form_.kind == AnswerForm::Kind::kOrder) {
    if (predicted_.empty()) return;
    verdict_ = CheckPredictedOrder(*trace_, predicted_);
    progress_.MarkPredicted(lab_id_, verdict_->held);
    return;
  }
  try {
    const Lab& lab = FindLab(lab_id_);
    std::map<std::string, double> p(params_.begin(), params_.end());
    LabArgs args = ResolveLabArgs(lab, variant_, p);
    answer_verdict_ = CheckAnswer(answer_form_, *trace_, analysis_, args.params, answer_, lang_);
    progress_.MarkPredicted(lab_id_, answer_verdict_->right);
  } catch (const std::exception& e) {
    answer_error_ = e.what();
  }
}

std::string GuiApp::AnswerVerdictText() const {
  if (!answer_error_.empty()) return answer_error_;
  if (!answer_verdict_) return "";
  const AnswerCheck& v = *answer_verdict_;
  std::string said = answer_ + " " + answer_form_.unit;
  for (const AnswerChoice& c : answer_form_.choices)
    if (c.id == answer_) said = c.label.count(lang_) ? c.label.at(lang_) : c.id;
  return ui_.Fill(v.right ? "predict.answer_right" : "predict.answer_wrong", {{"answer", said}, {"actual", v.shown}});
}

std::string GuiApp::PredictionReport() const {
  std::string text = AnswerVerdictText();
  if (answer_verdict_ && trace_)
    if (const Finding* why = AnswerReason(answer_form_, *trace_, analysis_))
      text += "\n" + std::string(ui_("predict.why")) + " " + texts_.Render(*trace_, *why);
  return text;
}

void GuiApp::DrawAnswerForm() {
  const AnswerForm& f = answer_form_;
  ImGui::PushTextWrapPos(0);
  auto prompt = f.prompt.find(lang_);
  if (prompt != f.prompt.end()) TextWrappedAnyScript(prompt->second);
  if (f.kind == AnswerForm::Kind::kNumber) {
    ImGui::TextUnformatted(ui_.Fill("predict.number", {{"unit", f.unit}}).c_str());
    ImGui::SetNextItemWidth(160);
    if (ImGui::InputText("##answer", answer_text_, sizeof answer_text_, ImGuiInputTextFlags_CharsDecimal))
      answer_ = answer_text_;
    ImGui::SameLine();
    ImGui::TextUnformatted(f.unit.c_str());
  } else {
    ImGui::TextUnformatted(ui_("predict.choose"));
    for (const AnswerChoice& c : f.choices) {
      auto label = c.label.find(lang_);
      if (ImGui::RadioButton(((label != c.label.end() ? label->second : c.id) + "##" + c.id).c_str(), answer_ == c.id))
        answer_ = c.id;
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  if (answer_.empty()) {
    ImGui::TextDisabled("%s", ui_("predict.need_answer"));
  } else if (!worker_.Busy() && ImGui::Button(ui_("predict.reveal"), ImVec2(160, 0))) {
    StartRun();
  }
}

void GuiApp::DrawPrediction() {
  if (answer_form_.kind != AnswerForm::Kind::kOrder) return DrawAnswerForm();
  if (predicted_.empty() || !predict_scenario_) return;
  const Scenario& s = *predict_scenario_;
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(ui_("predict.order"));
  ImGui::PopTextWrapPos();
  for (size_t i = 0; i < predicted_.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::ArrowButton("up", ImGuiDir_Up) && i > 0) std::swap(predicted_[i], predicted_[i - 1]);
    ImGui::SameLine();
    if (ImGui::ArrowButton("down", ImGuiDir_Down) && i + 1 < predicted_.size()) std::swap(predicted_[i], predicted_[i + 1]);
    ImGui::SameLine();
    const Op& op = s.ops[predicted_[i]];
    std::string label = std::to_string(i + 1) + ". " + DisplayName(s, predicted_[i]) + "   (" + s.streams[op.stream].name + ")";
    ImGui::Selectable(label.c_str());
    // Drag one row onto another to swap them.
    if (ImGui::BeginDragDropSource()) {
      int from = static_cast<int>(i);
      ImGui::SetDragDropPayload("order", &from, sizeof from);
      ImGui::TextUnformatted(label.c_str());
      ImGui::EndDragDropSource();
    }
    if (ImGui::BeginDragDropTarget()) {
      if (const ImGuiPayload* payload = ImGui::AcceptDragDropPayload("order"))
        std::swap(predicted_[*static_cast<const int*>(payload->Data)], predicted_[i]);
      ImGui::EndDragDropTarget();
    }
    ImGui::PopID();
  }
  ImGui::Spacing();
  if (!worker_.Busy() && ImGui::Button(ui_("predict.reveal"), ImVec2(160, 0))) StartRun();
}

void GuiApp::DrawPredictionVerdict() {
  if (!answer_error_.empty()) {
    ImGui::TextColored(ImVec4(1.0f, 0.55f, 0.3f, 1), "%s", answer_error_.c_str());
    return;
  }
  if (answer_verdict_) {
    ImVec4 colour = answer_verdict_->right ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1.0f, 0.55f, 0.3f, 1);
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(colour, "%s", AnswerVerdictText().c_str());
    if (const Finding* why = AnswerReason(answer_form_, *trace_, analysis_))
      ImGui::TextUnformatted((std::string(ui_("predict.why")) + " " + texts_.Render(*trace_, *why)).c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  const PredictionCheck& v = *verdict_;
  ImVec4 colour = v.held ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1.0f, 0.55f, 0.3f, 1);
  std::string actual;
  for (int op : v.actual_order) actual += (actual.empty() ? "" : " < ") + DisplayName(trace_->scenario, op);
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(colour, "%s", ui_.Fill(v.held ? "predict.held" : "predict.missed",
                                            {{"right", std::to_string(v.pairs_right)},
                                             {"pairs", std::to_string(v.pairs)},
                                             {"actual", actual}})
                                       .c_str());
  if (v.first_wrong >= 0)
    if (const Finding* why = StartFinding(analysis_, v.first_wrong))
      ImGui::TextUnformatted((std::string(ui_("predict.why")) + " " + texts_.Render(*trace_, *why)).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace streamlab
