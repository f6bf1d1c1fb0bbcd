// The first screen: the three ways in, side by side - learn with a lab, open a trace made
// elsewhere, record one's own program - so someone who came with their own program sees its
// door at once, not only the lab list.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"
#include "labs/catalogue.h"

namespace streamlab {

void GuiApp::DrawWelcome() {
  welcome_doors_.clear();
  ImGui::TextUnformatted(ui_("welcome.heading"));
  ImGui::Spacing();
  if (!ImGui::BeginTable("doors", 3, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableNextColumn();
  DrawLabDoor();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(ui_("open.heading"));
  welcome_doors_.push_back("open a trace");
  DrawOpenForm();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(ui_("record.heading"));
  welcome_doors_.push_back("record a program");
  DrawRecordForm();
  ImGui::EndTable();
  ImGui::Spacing();
  DrawMachineLine();
}

// What this machine offers, once the GPU probe (started with the app) has answered: where the
// labs run and whether recording can, so a machine without a GPU says so before a run fails.
void GuiApp::DrawMachineLine() {
  if (!probe_ && probe_future_.valid() &&
      probe_future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    probe_ = probe_future_.get();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  welcome_machine_ = !probe_ ? "looking for a GPU" : probe_->usable ? "gpu" : "no gpu";
  if (!probe_) TextWrappedAnyScript(ui_("welcome.machine.probing"));
  else if (probe_->usable)
    TextWrappedAnyScript(ui_.Fill("welcome.machine.gpu", {{"device", probe_->device}, {"count", std::to_string(probe_->count)}}));
  else TextWrappedAnyScript(ui_.Fill("welcome.machine.no_gpu", {{"reason", probe_->reason}}));
  ImGui::PopStyleColor();
}

void GuiApp::DrawLabDoor() {
  ImGui::TextUnformatted(ui_("welcome.labs"));
  welcome_doors_.push_back("labs");
  TextWrappedAnyScript(ui_("welcome.labs_hint"));
  const Lab& first = AllLabs().front();
  std::string label = ui_.Fill("welcome.start", {{"title", lab_titles_[first.id]}});
  if (!ImGui::Button(label.c_str())) return;
  mode_ = Mode::kLab;
  SelectLab(first.id);
  error_.clear();
  banner_.clear();
  ResetPrediction();
}

std::string GuiApp::FirstScreenReport() const {
  std::string report;
  for (const std::string& door : welcome_doors_) report += (report.empty() ? "" : ", ") + door;
  if (!report.empty() && !welcome_machine_.empty()) report += "; machine: " + welcome_machine_;
  return report;
}

}  // namespace streamlab
