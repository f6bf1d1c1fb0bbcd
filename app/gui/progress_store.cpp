// Progress persistence as a small JSON file.
#include "app/gui/progress_store.h"

#include <cstdlib>
#include <filesystem>

#include "engine/json_reader.h"
#include "engine/scenario_json.h"

namespace streamlab {

ProgressStore::ProgressStore() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  dir_ = xdg && *xdg ? std::string(xdg) + "/streamlab" : std::string(home ? home : "/tmp") + "/.config/streamlab";
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  try {
    Json j = ParseJson(ReadTextFile(dir_ + "/progress.json"), "progress.json");
    for (const Json& id : j.value("done", Json::array()))
      if (id.is_string()) done_.insert(id.get<std::string>());
  } catch (const std::exception&) {
    // First start, or an unreadable file: start fresh rather than refuse to open.
  }
}

void ProgressStore::MarkDone(const std::string& lab) {
  if (done_.insert(lab).second) Save();
}

void ProgressStore::Save() const {
  try {
    SaveJsonFile(Json{{"done", done_}}, dir_ + "/progress.json");
  } catch (const std::exception&) {
    // Read-only home: progress is kept for this session only.
  }
}

}  // namespace streamlab
