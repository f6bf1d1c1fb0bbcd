// The sandbox editor: streams (flags, priority), events, and the host's ops in order, each
// added, moved or removed through SandboxModel, which refuses an invalid edit with its
// reason. Runs on the simulator or the GPU like a lab; saves and loads scenario JSON.
#include <imgui.h>

#include <algorithm>

#include "app/gui/fill_slider.h"
#include "app/gui/gui_app.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

// A combo over names; returns the chosen index (kept in `index`).
void NamePicker(const char* label, const std::vector<std::string>& names, int& index) {
  if (names.empty()) {
    ImGui::TextDisabled("%s: -", label);
    return;
  }
  index = std::clamp(index, 0, static_cast<int>(names.size()) - 1);
  ImGui::SetNextItemWidth(110);
  if (ImGui::BeginCombo(label, names[index].c_str())) {
    for (size_t i = 0; i < names.size(); ++i)
      if (ImGui::Selectable(names[i].c_str(), static_cast<int>(i) == index)) index = static_cast<int>(i);
    ImGui::EndCombo();
  }
}

std::string OpSummary(const Scenario& s, int i) {
  const Op& op = s.ops[i];
  std::string text = std::string(ToString(op.kind)) + "  " + DisplayName(s, i);
  if (op.kind == OpKind::kKernel) text += "  " + FormatDuration(op.kernel.work) + " x " + std::to_string(op.kernel.grid) + " blocks";
  if (op.kind == OpKind::kMemcpy) text += "  " + std::to_string(op.bytes >> 20) + " MB";
  if (op.kind == OpKind::kHostWork) text += "  " + FormatDuration(op.duration);
  return text;
}

}  // namespace

void GuiApp::RunSandbox() {
  if (worker_.Busy()) return;
  error_.clear();
  banner_.clear();
  std::optional<Backend> backend = ResolveBackend();
  if (!backend) return;
  RunRequest request;
  request.scenario = sandbox_.scenario();
  request.backend = *backend;
  Submit(std::move(request));
}

void GuiApp::DrawSandbox() {
  const Scenario& s = sandbox_.scenario();
  std::vector<std::string> streams, events;
  for (const StreamDesc& st : s.streams) streams.push_back(st.name);
  for (const EventDesc& e : s.events) events.push_back(e.name);
  static char name[32] = "s1";
  static bool non_blocking = true;
  static int priority = 0, stream = 0, other = 0, event = 0, grid = 4;
  static float us = 200, megabytes = 8;

  DrawExercisePanel();
  ImGui::TextUnformatted(ui_("sandbox"));
  ImGui::SameLine();
  ImGui::TextDisabled("%s", ui_("sandbox.hint"));
  ImGui::BeginChild("editor", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.45f), true);
  // Streams and events.
  ImGui::SetNextItemWidth(90);
  ImGui::InputText(ui_("sandbox.name"), name, sizeof name);
  ImGui::SameLine();
  ImGui::Checkbox(ui_("sandbox.non_blocking"), &non_blocking);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80);
  FillSliderInt(ui_("sandbox.priority"), &priority, -5, 0);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_stream"))) sandbox_.AddStream(name, non_blocking, priority);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_event"))) sandbox_.AddEvent(name);
  for (size_t i = 0; i < s.streams.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    const StreamDesc& st = s.streams[i];
    ImGui::BulletText("%s  %s%s", st.name.c_str(), st.non_blocking ? "non-blocking" : "blocking",
                      st.priority ? (", prio " + std::to_string(st.priority)).c_str() : "");
    ImGui::SameLine();
    if (ImGui::SmallButton(ui_("sandbox.toggle_blocking"))) sandbox_.SetStream(static_cast<int>(i), !st.non_blocking, st.priority);
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) sandbox_.RemoveStream(static_cast<int>(i));
    ImGui::PopID();
  }
  if (!events.empty()) {
    std::string list;
    for (const std::string& e : events) list += (list.empty() ? "" : ", ") + e;
    ImGui::TextDisabled("%s: %s", ui_("sandbox.events"), list.c_str());
  }
  ImGui::Separator();
  // Ops.
  NamePicker(ui_("sandbox.stream"), streams, stream);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  ImGui::InputFloat("us", &us, 0, 0, "%.0f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80);
  FillSliderInt(ui_("sandbox.blocks"), &grid, 1, 528);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_kernel")) && !streams.empty())
    sandbox_.AddKernel(stream, "k" + std::to_string(s.ops.size() + 1), us, grid);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70);
  ImGui::InputFloat("MB", &megabytes, 0, 0, "%.0f");
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_copy")) && !streams.empty())
    sandbox_.AddCopy(stream, "copy" + std::to_string(s.ops.size() + 1), megabytes, true);
  NamePicker(ui_("sandbox.event"), events, event);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_record")) && !streams.empty() && !events.empty()) sandbox_.AddRecord(stream, event);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_wait")) && !streams.empty() && !events.empty()) sandbox_.AddWaitEvent(stream, event);
  ImGui::SameLine();
  NamePicker(ui_("sandbox.other"), streams, other);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_wait_stream")) && !streams.empty()) sandbox_.AddWaitStream(stream, other);
  if (ImGui::Button(ui_("sandbox.add_sync_device"))) sandbox_.AddSyncDevice();
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_sync_stream")) && !streams.empty()) sandbox_.AddSyncStream(stream);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.add_host_work"))) sandbox_.AddHostWork(us);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    ImGui::PushID(static_cast<int>(i) + 1000);
    if (ImGui::ArrowButton("up", ImGuiDir_Up)) sandbox_.MoveOp(static_cast<int>(i), -1);
    ImGui::SameLine();
    if (ImGui::ArrowButton("down", ImGuiDir_Down)) sandbox_.MoveOp(static_cast<int>(i), +1);
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) sandbox_.RemoveOp(static_cast<int>(i));
    ImGui::SameLine();
    // Copies keep what the op is (a kernel's function, so a warm-up can load its module).
    if (ImGui::SmallButton(ui_("sandbox.duplicate")))
      sandbox_.DuplicateOp(static_cast<int>(i), s.ops[i].name.empty() ? "" : s.ops[i].name + "_copy");
    if (s.ops[i].kind == OpKind::kKernel && s.ops[i].kernel.kind == KernelKind::kSpin) {
      ImGui::SameLine();
      // The time and blocks typed in the row above, so one pair of fields edits any kernel.
      if (ImGui::SmallButton(ui_("sandbox.set_kernel"))) sandbox_.SetKernel(static_cast<int>(i), us, grid);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui_("sandbox.set_kernel_tip"));
    }
    ImGui::SameLine();
    ImGui::Text("%zu. %s", i + 1, OpSummary(s, static_cast<int>(i)).c_str());
    ImGui::PopID();
  }
  ImGui::EndChild();
  if (!sandbox_.refusal().empty())
    ImGui::TextColored(ImVec4(1, 0.55f, 0.3f, 1), "%s %s", ui_("sandbox.refused"), sandbox_.refusal().c_str());
  // Run, save, load.
  if (worker_.Busy()) ImGui::Text("%s %.1f s", ui_("running"), worker_.ElapsedSeconds());
  else if (ImGui::Button(ui_("run"), ImVec2(120, 0)) && !s.ops.empty()) RunSandbox();
  ImGui::SameLine();
  static char path[256] = "sandbox.json";
  ImGui::SetNextItemWidth(220);
  ImGui::InputText("##path", path, sizeof path);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.save"))) sandbox_.Save(path);
  ImGui::SameLine();
  if (ImGui::Button(ui_("sandbox.load"))) sandbox_.Load(path);
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  if (!banner_.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", banner_.c_str());
  if (trace_) DrawTimeline();
}

}  // namespace streamlab
