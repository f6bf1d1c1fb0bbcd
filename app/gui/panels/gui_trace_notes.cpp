// "About this trace": where a trace comes from (its backend, device, clock) and its notes - what
// it holds, leaves out and infers, as `explain` prints them - folded into one line above the
// chart that opens into the notes; in the chosen language.
#include <imgui.h>

#include <algorithm>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"

namespace streamlab {

// Closed at first: a recorded program's answer is the verdict above; its notes say what the
// recording could not see, for who asks. They are rendered once per trace and language.
void GuiApp::DrawTraceNotes(bool, const std::string& banner) {
  if (presenting_) return;
  if (trace_->notes.empty()) {
    ImGui::TextDisabled("%s", banner.c_str());
    return;
  }
  std::string heading = ui_.Fill("trace_notes.line", {{"n", std::to_string(trace_->notes.size())}, {"banner", banner}});
  // One line: cut to the width with an ellipsis (the whole banner is the notes' first line).
  float room = ImGui::GetContentRegionAvail().x - 3 * ImGui::GetFontSize();
  if (ImGui::CalcTextSize(heading.c_str()).x > room) {
    std::string cut = heading;
    while (!cut.empty() && ImGui::CalcTextSize((cut + "\xE2\x80\xA6").c_str()).x > room) {
      cut.pop_back();
      while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
      if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80)) cut.pop_back();
    }
    heading = cut + "\xE2\x80\xA6";
  }
  if (!ImGui::CollapsingHeader((heading + "###trace_notes").c_str())) return;
  if (!rendered_notes_) {
    rendered_notes_.emplace();
    rendered_notes_->lines.push_back(banner);
    for (const TraceNote& note : trace_->notes) rendered_notes_->lines.push_back(texts_.RenderNote(note));
  }
  RenderedNotes& notes = *rendered_notes_;
  // As tall as the notes, up to a quarter of the window: a merged run's dozen notes would
  // otherwise push the chart down; the rest scrolls.
  const float bullet = ImGui::GetFontSize() + ImGui::GetStyle().ItemSpacing.x;
  float wrap = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize - bullet - 2 * ImGui::GetStyle().WindowPadding.x;
  if (wrap != notes.wrap) {
    notes.wrap = wrap;
    notes.height = 2 * ImGui::GetStyle().WindowPadding.y;
    for (const std::string& line : notes.lines) notes.height += WrappedTextHeight(line, wrap) + ImGui::GetStyle().ItemSpacing.y;
  }
  ImGui::BeginChild("trace_notes", ImVec2(0, std::min(notes.height, 0.25f * ImGui::GetIO().DisplaySize.y)), false);
  for (const std::string& line : notes.lines) {
    ImGui::Bullet();
    ImGui::SameLine();
    DrawWrappedText(line, wrap);
  }
  ImGui::EndChild();
}

std::string GuiApp::ProfileLabel(const std::string& name) const {
  const std::string facts = " (simulated, GPU-FACTS profile)";
  if (name.size() > facts.size() && name.compare(name.size() - facts.size(), facts.size(), facts) == 0)
    return name.substr(0, name.size() - facts.size()) + ui_("profile.simulated_facts");
  // "NVIDIA H200 (calibrated 2026-11-22, driver 580.159.04)"
  size_t open = name.rfind(" (calibrated ");
  size_t comma = name.find(", driver ", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || comma == std::string::npos || name.back() != ')') return name;
  std::string date = name.substr(open + 13, comma - open - 13);
  std::string driver = name.substr(comma + 9, name.size() - comma - 10);
  return name.substr(0, open) + ui_.Fill("profile.calibrated", {{"date", date}, {"driver", driver}});
}

}  // namespace streamlab
