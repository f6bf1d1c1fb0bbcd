// The student's progress (labs run) and the window layout, kept in the user's config
// directory ($XDG_CONFIG_HOME/streamlab or ~/.config/streamlab).
#pragma once

#include <map>
#include <set>
#include <string>

namespace streamlab {

class ProgressStore {
 public:
  ProgressStore();  // loads; a missing or broken file means no progress yet
  bool Done(const std::string& lab) const { return done_.count(lab) > 0; }
  void MarkDone(const std::string& lab);
  // A prediction answered before a run: counts toward the week's progress.
  void MarkPredicted(const std::string& lab, bool held);
  int PredictionsHeld(int week) const;
  int PredictionsMade(int week) const;
  // A checked exercise: did the latest check pass?
  void MarkExercise(const std::string& lab, bool passed);
  int ExercisesPassed(int week) const;
  const std::string& dir() const { return dir_; }
  std::string LayoutFile() const { return dir_ + "/imgui.ini"; }

 private:
  void Save() const;
  std::string dir_;
  std::set<std::string> done_;
  std::map<std::string, bool> predicted_;  // lab -> did the latest prediction hold
  std::map<std::string, bool> exercises_;  // lab -> did the latest exercise check pass
};

}  // namespace streamlab
