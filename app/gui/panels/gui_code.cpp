// The code tab: the trace's scenario as a CUDA C++ program and as a PyTorch program.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "engine/scenario/code_gen.h"

namespace streamlab {

void GuiApp::DrawCode() {
  if (ImGui::BeginTabBar("code")) {
    for (int which = 0; which < 2; ++which) {
      if (!ImGui::BeginTabItem(ui_(which == 0 ? "code.cuda" : "code.pytorch"))) continue;
      std::string code = which == 0 ? ScenarioAsCuda(trace_->scenario) : ScenarioAsPyTorch(trace_->scenario);
      ImGui::BeginChild("source", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
      ImGui::TextUnformatted(code.c_str());
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace streamlab
