// The "About this trace" section above the chart: what a trace holds, leaves out and infers,
// as `explain` prints it, in the chosen language.
#include <imgui.h>

#include <algorithm>

#include "app/gui/gui_app.h"

namespace streamlab {

// Open at first for recorded and imported traces, whose notes say what the recording could not
// see. The notes are rendered once per trace and language, not every frame.
void GuiApp::DrawTraceNotes(bool imported) {
  if (trace_->notes.empty() || presenting_) return;
  std::string heading = ui_.Fill("trace_notes", {{"n", std::to_string(trace_->notes.size())}}) + "###trace_notes";
  if (!ImGui::CollapsingHeader(heading.c_str(), imported ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
  if (!rendered_notes_) {
    rendered_notes_.emplace();
    for (const TraceNote& note : trace_->notes) rendered_notes_->lines.push_back(texts_.RenderNote(note));
  }
  RenderedNotes& notes = *rendered_notes_;
  // As tall as the notes, up to a quarter of the window: a merged run's dozen notes would
  // otherwise push the chart down; the rest scrolls.
  float wrap = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize - 2 * ImGui::GetFontSize();
  if (wrap != notes.wrap) {
    notes.wrap = wrap;
    notes.height = 2 * ImGui::GetStyle().WindowPadding.y;
    for (const std::string& line : notes.lines)
      notes.height += ImGui::CalcTextSize(line.c_str(), nullptr, false, wrap).y + ImGui::GetStyle().ItemSpacing.y;
  }
  ImGui::BeginChild("trace_notes", ImVec2(0, std::min(notes.height, 0.25f * ImGui::GetIO().DisplaySize.y)), false);
  ImGui::PushTextWrapPos(0);
  for (const std::string& line : notes.lines) {
    ImGui::Bullet();
    ImGui::SameLine();
    ImGui::TextUnformatted(line.c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

}  // namespace streamlab
