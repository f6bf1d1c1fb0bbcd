// "Open a trace": the top bar's button and the first screen's form open a trace file picked in the GUI's file picker
// (app/gui/loading/file_picker.h) - a recording, a raw recorder log, a torch.profiler trace or a saved
// lab trace - as --open does, and the compare view's "Browse..." for the second trace.
#include <imgui.h>

#include <filesystem>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"

namespace streamlab {

void GuiApp::OpenTrace(const std::string& path) {
  if (worker_.Busy()) return;
  options_.open_trace = path;  // its name labels the trace (compare, "reading ...")
  mode_ = Mode::kLab;
  lab_id_.clear();
  trace_.reset();
  comparison_.reset();
  program_comparison_.reset();
  program_label_a_.clear();
  error_.clear();
  banner_.clear();
  RunRequest request;
  request.open = path;
  opening_ = true;
  Submit(std::move(request));
}

void GuiApp::DrawOpenForm() {
  ImGui::PushID("open_form");  // drawn in the sidebar and on the first screen
  TextWrappedAnyScript(ui_("open.hint"));
  bool busy = worker_.Busy();
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Button(ui_("open.browse")) && !busy) open_picker_.Open(options_.open_trace);
  if (busy) ImGui::EndDisabled();
  ImGui::PopID();
}

void GuiApp::StartBrowsing() {
  open_picker_.Open(options_.browse);
  if (options_.browse_pick.empty()) return;
  if (open_picker_.Pick(options_.browse_pick)) OpenTrace(open_picker_.chosen());
  else error_ = open_picker_.Summary();
}

std::string GuiApp::PickerReport() {
  if (compare_picker_.shown()) return compare_picker_.Summary();
  if (open_picker_.shown()) return open_picker_.Summary();
  return "";
}

// A trace drawn without analysis (the chart benchmark's made-up spans): no findings, no verdict.
void GuiApp::ShowTraceUnanalysed(Trace trace) {
  analysis_ = Analysis{};
  finding_groups_.clear();
  program_verdict_.reset();
  trace_ = std::move(trace);
  rendered_notes_.reset();
  view_ = GanttViewState{};
}

}  // namespace streamlab
