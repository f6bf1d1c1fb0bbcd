// The student's progress (labs run) and the window layout, kept in the user's config
// directory ($XDG_CONFIG_HOME/streamlab or ~/.config/streamlab).
#pragma once

#include <set>
#include <string>

namespace streamlab {

class ProgressStore {
 public:
  ProgressStore();  // loads; a missing or broken file means no progress yet
  bool Done(const std::string& lab) const { return done_.count(lab) > 0; }
  void MarkDone(const std::string& lab);
  const std::string& dir() const { return dir_; }
  std::string LayoutFile() const { return dir_ + "/imgui.ini"; }

 private:
  void Save() const;
  std::string dir_;
  std::set<std::string> done_;
};

}  // namespace streamlab
