// The ImGui file picker (file_picker.h). The listing is read once per folder entered, not per
// frame, on a detached thread, and drawn through a list clipper, so a folder of thousands of
// traces stays smooth and a hung one holds only its own thread.
#include "app/gui/loading/file_picker.h"

#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>

#include "engine/util/plain_file.h"

namespace streamlab {
namespace fs = std::filesystem;

namespace {

// A file's size to a tenth of its unit (FormatBytes gives exact sizes: buffers, not files).
std::string FileSize(uintmax_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  for (; unit < 3 && v >= 1024; ++unit) v /= 1024;
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", v, units[unit]);
  return buf;
}

}  // namespace

void FilePicker::Open(const std::string& dir) {
  std::error_code ec;
  std::string start = dir;
  if (!start.empty() && fs::is_regular_file(start, ec)) start = fs::path(start).parent_path().string();
  Enter(start.empty() ? "." : start);
  open_requested_ = true;
  chosen_.clear();
}

void FilePicker::Enter(const std::string& dir) {
  std::error_code ec;
  fs::path path = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec).lexically_normal();
  dir_ = ec ? dir : path.string();
  if (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  listing_ = DirListing{};
  listing_.dir = dir_;
  selected_ = -1;
  message_.clear();
  std::snprintf(typed_, sizeof typed_, "%s", dir_.c_str());
  auto reading = std::make_shared<Reading>();
  reading_ = reading;
  try {
    std::thread([reading, folder = dir_] {
      DirListing listing = ListDirectory(folder, kTraceFileSuffixes);
      // The layout a --screenshot writes beside its PNG (NAME.png.layout.json) is not a trace.
      std::erase_if(listing.entries, [](const DirEntry& e) { return !e.folder && e.name.ends_with(".layout.json"); });
      std::lock_guard<std::mutex> lock(reading->mutex);
      reading->listing = std::move(listing);
      reading->done = true;
    }).detach();
  } catch (const std::system_error&) {  // no thread to spare: read it here
    reading_.reset();
    listing_ = ListDirectory(dir_, kTraceFileSuffixes);
  }
}

void FilePicker::Poll() {
  if (!reading_) return;
  std::lock_guard<std::mutex> lock(reading_->mutex);
  if (!reading_->done) return;
  listing_ = std::move(reading_->listing);
  reading_.reset();
}

std::string FilePicker::Summary() {
  for (int i = 0; i < 1000 && reading_; ++i) {
    Poll();
    if (reading_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  size_t folders = 0;
  for (const DirEntry& e : listing_.entries) folders += e.folder ? 1 : 0;
  std::string text = listing_.dir + ": " + std::to_string(folders) + " folders, " +
                     std::to_string(listing_.entries.size() - folders) + " files";
  if (!listing_.error.empty()) text += " (" + listing_.error + ")";
  if (!message_.empty()) text += " (" + message_ + ")";
  return text;
}

// A typed folder is entered; a typed file is chosen (relative paths from the folder shown).
void FilePicker::TakeTypedPath() {
  fs::path typed(typed_);
  if (typed.is_relative()) typed = fs::path(dir_) / typed;
  std::error_code ec;
  if (fs::is_directory(typed, ec)) {
    Enter(typed.string());
  } else if (fs::is_regular_file(typed, ec)) {
    chosen_ = typed.lexically_normal().string();
  } else {
    message_ = typed.string() + ": no such file or folder";
  }
}

bool FilePicker::Pick(const std::string& path) {
  std::snprintf(typed_, sizeof typed_, "%s", path.c_str());
  TakeTypedPath();
  if (chosen_.empty()) return false;
  open_requested_ = shown_ = false;
  return true;
}

void FilePicker::DrawEntries(const UiText& ui, bool* chosen_now) {
  if (reading_) ImGui::TextDisabled("%s", ui("picker.reading"));
  if (!listing_.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", listing_.error.c_str());
  if (!reading_ && listing_.entries.empty() && listing_.error.empty()) ImGui::TextDisabled("%s", ui("picker.empty"));
  float rows_height = ImGui::GetTextLineHeightWithSpacing() * 16;
  ImGui::BeginChild("entries", ImVec2(ImGui::GetFontSize() * 40, rows_height), true);
  std::string enter;  // entered after the loop: the listing must not change while it is drawn
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(listing_.entries.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const DirEntry& e = listing_.entries[i];
      std::string label = e.folder ? e.name + "/" : e.name;
      ImGui::PushID(i);
      if (ImGui::Selectable(label.c_str(), selected_ == i, ImGuiSelectableFlags_AllowDoubleClick)) {
        selected_ = i;
        if (ImGui::IsMouseDoubleClicked(0)) {
          if (e.folder) {
            enter = (fs::path(dir_) / e.name).string();
          } else {
            chosen_ = (fs::path(dir_) / e.name).string();
            *chosen_now = true;
          }
        }
      }
      if (!e.folder) {
        ImGui::SameLine(ImGui::GetFontSize() * 30);
        ImGui::TextDisabled("%s", FileSize(e.bytes).c_str());
      }
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
  if (listing_.left_out > 0) ImGui::TextDisabled("%s", ui.Fill("picker.left_out", {{"n", std::to_string(listing_.left_out)}}).c_str());
  if (!enter.empty()) Enter(enter);
}

bool FilePicker::Draw(const char* title, const UiText& ui) {
  if (open_requested_) {
    ImGui::OpenPopup(title);
    open_requested_ = false;
  }
  shown_ = ImGui::IsPopupOpen(title);
  Poll();
  ImGui::SetNextWindowBgAlpha(1.0f);  // opaque: the lab list must not show through the file list
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return false;
  bool chosen_now = false;
  if (ImGui::Button(ui("picker.up"))) Enter(ParentDirectory(dir_));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 34);
  if (ImGui::InputText("##path", typed_, sizeof typed_, ImGuiInputTextFlags_EnterReturnsTrue)) {
    TakeTypedPath();
    chosen_now = !chosen_.empty();
  }
  if (!message_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", message_.c_str());
  DrawEntries(ui, &chosen_now);
  bool file_selected = selected_ >= 0 && selected_ < static_cast<int>(listing_.entries.size()) &&
                       !listing_.entries[selected_].folder;
  if (!file_selected) ImGui::BeginDisabled();
  if (ImGui::Button(ui("picker.open")) && file_selected) {
    chosen_ = (fs::path(dir_) / listing_.entries[selected_].name).string();
    chosen_now = true;
  }
  if (!file_selected) ImGui::EndDisabled();
  ImGui::SameLine();
  bool cancel = ImGui::Button(ui("picker.cancel")) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
  if (chosen_now || cancel) {
    ImGui::CloseCurrentPopup();
    shown_ = false;
  }
  ImGui::EndPopup();
  return chosen_now;
}

}  // namespace streamlab
