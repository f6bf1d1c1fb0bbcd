// Progress persistence as a small JSON file.
#include "app/gui/progress_store.h"

#include <cstdlib>
#include <filesystem>

#include "engine/util/json_reader.h"
#include "engine/scenario/scenario_json.h"

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
    if (j.contains("predicted") && j["predicted"].is_object())
      for (auto it = j["predicted"].begin(); it != j["predicted"].end(); ++it)
        if (it->is_boolean()) predicted_[it.key()] = it->get<bool>();
    if (j.contains("exercises") && j["exercises"].is_object())
      for (auto it = j["exercises"].begin(); it != j["exercises"].end(); ++it)
        if (it->is_boolean()) exercises_[it.key()] = it->get<bool>();
  } catch (const std::exception&) {
    // First start, or an unreadable file: start fresh rather than refuse to open.
  }
}

void ProgressStore::MarkDone(const std::string& lab) {
  if (done_.insert(lab).second) Save();
}

void ProgressStore::MarkPredicted(const std::string& lab, bool held) {
  predicted_[lab] = held;
  Save();
}

void ProgressStore::MarkExercise(const std::string& lab, bool passed) {
  exercises_[lab] = passed;
  Save();
}

namespace {
// Lab ids start with their week: "w2-...".
bool InWeek(const std::string& lab, int week) { return lab.rfind("w" + std::to_string(week) + "-", 0) == 0; }
}  // namespace

int ProgressStore::PredictionsHeld(int week) const {
  int n = 0;
  for (const auto& [lab, held] : predicted_) n += InWeek(lab, week) && held;
  return n;
}

int ProgressStore::PredictionsMade(int week) const {
  int n = 0;
  for (const auto& [lab, held] : predicted_) n += InWeek(lab, week);
  return n;
}

int ProgressStore::ExercisesPassed(int week) const {
  int n = 0;
  for (const auto& [lab, passed] : exercises_) n += InWeek(lab, week) && passed;
  return n;
}

void ProgressStore::Save() const {
  try {
    SaveJsonFile(Json{{"done", done_}, {"predicted", predicted_}, {"exercises", exercises_}}, dir_ + "/progress.json");
  } catch (const std::exception&) {
    // Read-only home: progress is kept for this session only.
  }
}

}  // namespace streamlab
