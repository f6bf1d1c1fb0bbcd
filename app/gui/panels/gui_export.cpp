// Export for slides: the chart as a PNG at a chosen size, and the run as Chrome-trace JSON
// (Perfetto) and as StreamLab trace JSON. The PNG is drawn by a second, headless copy of
// the app (`streamlab --open TRACE --chart-only --screenshot PNG --size WxH`), so any size
// works and this window never waits for it.
#include <imgui.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "app/gui/gui_app.h"
#include "engine/trace/chrome_trace.h"
#include "engine/scenario/scenario_json.h"
#include "engine/trace/trace_json.h"

namespace streamlab {
namespace {

std::string Quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// This executable (the GUI), to render the PNG headless.
std::string SelfPath() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "streamlab" : self.string();
}

}  // namespace

void GuiApp::DrawExport() {
  if (ImGui::Button(ui_("export"))) ImGui::OpenPopup("export");
  if (!ImGui::BeginPopup("export")) return;
  static char dir[256] = ".";
  ImGui::SetNextItemWidth(260);
  ImGui::InputText(ui_("export.folder"), dir, sizeof dir);
  ImGui::SetNextItemWidth(160);
  ImGui::InputInt2(ui_("export.size"), export_size_);
  std::string base = std::string(dir) + "/" + (trace_->lab.empty() ? "trace" : trace_->lab) +
                     (trace_->variant.empty() ? "" : "." + trace_->variant);
  if (ImGui::Button(ui_("export.png"))) {
    int w = std::clamp(export_size_[0], 320, 8192), h = std::clamp(export_size_[1], 240, 8192);
    std::string trace_path = base + ".json";
    try {
      SaveJsonFile(TraceToJson(*trace_), trace_path);
      std::string cmd = Quoted(SelfPath()) + " --open " + Quoted(trace_path) + " --chart-only --lang " + lang_ +
                        " --screenshot " + Quoted(base + ".png") + " --size " + std::to_string(w) + "x" +
                        std::to_string(h) + " >/dev/null 2>&1";
      std::thread([cmd] { (void)std::system(cmd.c_str()); }).detach();
      export_status_ = ui_.Fill("export.started", {{"path", base + ".png"}});
    } catch (const std::exception& e) {
      export_status_ = e.what();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button(ui_("export.chrome"))) {
    try {
      SaveJsonFile(ChromeTraceJson(*trace_), base + ".chrome.json");
      export_status_ = ui_.Fill("export.saved", {{"path", base + ".chrome.json"}});
    } catch (const std::exception& e) {
      export_status_ = e.what();
    }
  }
  if (!export_status_.empty()) ImGui::TextUnformatted(export_status_.c_str());
  ImGui::EndPopup();
}

// The chart alone, filling the window: what a slide needs.
void GuiApp::DrawChartOnly(ImVec2 display) {
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(display);
  ImGui::Begin("chart", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  if (trace_) {
    std::string title = trace_->lab + (trace_->variant.empty() ? "" : " [" + trace_->variant + "]");
    if (lab_text_) title = lab_text_->title + "  (" + trace_->variant + ")";
    ImGui::TextUnformatted(title.c_str());
    GanttInputs in{&*trace_, &analysis_, &texts_, &ui_, 1.0f, false, presenting_};
    DrawGantt(in, view_, ImGui::GetContentRegionAvail(), &layout_);
  } else if (!error_.empty()) {
    ImGui::TextUnformatted(error_.c_str());
  }
  ImGui::End();
}

}  // namespace streamlab
