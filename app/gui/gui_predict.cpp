// Predict, then reveal. Before the run the student orders the lab's GPU work by when they
// expect it to start (drag, or the arrows), and sees no chart; the run reveals the chart
// and says whether the order held, and for the first op that broke it, why (the
// analyzer's sentence). Each answer is kept in the progress file, per week.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "labs/catalogue.h"

namespace streamlab {

void GuiApp::ResetPrediction() {
  verdict_.reset();
  predicted_.clear();
  predict_scenario_.reset();
  if (lab_id_.empty()) return;
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

void GuiApp::DrawPrediction() {
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
