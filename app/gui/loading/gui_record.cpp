// "Record a program": the form (in the top bar's popup and on the first screen) where a student types the command that runs their
// own program (python3 train.py ...), and if they want only a window of time of it (record
// --delay, --duration); it runs under `streamlab-cli record` in a child process on the worker
// thread, and the recording opens like a lab's trace (chart, findings).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include <imgui.h>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"

namespace streamlab {
namespace {

// Splits a command line into arguments: spaces separate, '...' and "..." group.
std::vector<std::string> SplitCommand(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

}  // namespace

void GuiApp::StartRecording(const std::string& command) {
  if (command.c_str() != record_command_) std::snprintf(record_command_, sizeof(record_command_), "%s", command.c_str());
  std::vector<std::string> argv = SplitCommand(command);
  if (argv.empty()) {
    error_ = ui_("record.empty");
    return;
  }
  error_.clear();
  banner_.clear();
  mode_ = Mode::kLab;
  lab_id_.clear();
  trace_.reset();
  comparison_.reset();
  RunRequest request;
  request.record = std::move(argv);
  if (record_window_) {  // a window of time: the program's steady state, without editing it
    request.record_options = {"--delay", std::to_string(std::max(0.0f, record_delay_s_))};
    if (record_duration_s_ > 0) {
      request.record_options.push_back("--duration");
      request.record_options.push_back(std::to_string(record_duration_s_));
    }
  }
  Submit(std::move(request));
}

void GuiApp::DrawRecordForm() {
  ImGui::PushID("record_form");  // drawn in the sidebar and on the first screen
  TextWrappedAnyScript(ui_("record.hint"));
  ImGui::SetNextItemWidth(-1);
  bool enter = ImGui::InputText("##record_command", record_command_, sizeof(record_command_),
                                ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::Checkbox(ui_("record.window"), &record_window_);
  if (record_window_) {
    ImGui::SetNextItemWidth(90);
    ImGui::InputFloat(ui_("record.delay"), &record_delay_s_, 0, 0, "%.1f");
    ImGui::SetNextItemWidth(90);
    ImGui::InputFloat(ui_("record.duration"), &record_duration_s_, 0, 0, "%.2f");
  }
  bool busy = worker_.Busy();
  if (busy) ImGui::BeginDisabled();
  if ((ImGui::Button(ui_("record.button")) || enter) && !busy) StartRecording(record_command_);
  if (busy) ImGui::EndDisabled();
  ImGui::PopID();
}

}  // namespace streamlab
