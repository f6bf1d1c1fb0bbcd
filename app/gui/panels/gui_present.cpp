// Presentation mode and replay, for an instructor at a projector.
// F5 (or the top bar's button) toggles presentation: larger type, a high-contrast
// palette, and only the chart and the explanation on screen. Keys: Right/PageDown and
// Left/PageUp step through the week's labs, R runs, F fits, C runs the comparison,
// Space starts or stops the replay, which grows the timeline in time order.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>

#include "app/gui/fill_slider.h"
#include "app/gui/gui_app.h"
#include "labs/catalogue.h"

namespace streamlab {

void GuiApp::HandleKeys() {
  if (options_.headless || ImGui::GetIO().WantTextInput) return;
  if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) presenting_ = !presenting_;
  if (!presenting_ || mode_ != Mode::kLab) return;
  if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, false) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false)) StepLab(+1);
  if (ImGui::IsKeyPressed(GLFW_KEY_LEFT, false) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false)) StepLab(-1);
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) StartRun();
  if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) view_.fit_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_C, false) && !lab_id_.empty()) {
    const Lab& lab = FindLab(lab_id_);
    if (compare_with_.empty())  // the first other variant
      for (const std::string& v : lab.variants)
        if (v != variant_) {
          compare_with_ = v;
          break;
        }
    if (!compare_with_.empty()) StartCompare();
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false) && trace_) {
    replaying_ = !replaying_;
    if (replaying_ && replay_pos_ >= 1.0) replay_pos_ = 0.0;
  }
}

// The next or previous lab of the catalogue (weeks in order), run at once.
void GuiApp::StepLab(int delta) {
  const std::vector<Lab>& labs = AllLabs();
  int at = 0;
  for (size_t i = 0; i < labs.size(); ++i)
    if (labs[i].id == lab_id_) at = static_cast<int>(i);
  int next = std::clamp(at + delta, 0, static_cast<int>(labs.size()) - 1);
  if (labs[next].id == lab_id_ && !lab_id_.empty()) return;
  SelectLab(labs[next].id);
  trace_.reset();
  comparison_.reset();
  compare_with_.clear();
  ResetPrediction();
  StartRun();
}

void GuiApp::AdvanceReplay() {
  if (!replaying_) return;
  // Speed 1 plays the whole run in 6 s, whatever its length.
  replay_pos_ += ImGui::GetIO().DeltaTime * replay_speed_ / 6.0;
  if (replay_pos_ >= 1.0) {
    replay_pos_ = 1.0;
    replaying_ = false;
  }
}

void GuiApp::DrawReplayControls() {
  if (ImGui::Button(replaying_ ? ui_("replay.pause") : ui_("replay"))) {
    replaying_ = !replaying_;
    if (replaying_ && replay_pos_ >= 1.0) replay_pos_ = 0.0;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  FillSliderFloat(ui_("replay.speed"), &replay_speed_, 0.1f, 10.0f, "%.1fx", ImGuiSliderFlags_Logarithmic);
  if (replay_pos_ < 1.0) {
    ImGui::SameLine();
    float pos = static_cast<float>(replay_pos_);
    ImGui::SetNextItemWidth(120);
    if (FillSliderFloat("##replay_pos", &pos, 0.0f, 1.0f, "%.2f")) replay_pos_ = pos;
  }
}

// Presentation style: larger type and a high-contrast palette; restored on leaving.
void GuiApp::ApplyStyle() {
  if (style_presenting_ == presenting_) return;
  style_presenting_ = presenting_;
  ImGuiStyle& style = ImGui::GetStyle();
  if (presenting_) {
    ImGui::GetIO().FontGlobalScale = 1.45f;
    ImGui::StyleColorsDark();
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0, 0, 0, 1);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 1);
    style.Colors[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1);
    style.Colors[ImGuiCol_Border] = ImVec4(0.8f, 0.8f, 0.8f, 1);
  } else {
    ImGui::GetIO().FontGlobalScale = 1.0f;
    ImGui::StyleColorsDark();
  }
}

}  // namespace streamlab
