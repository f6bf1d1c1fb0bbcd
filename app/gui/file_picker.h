// A file picker drawn with Dear ImGui, for opening a trace and for the compare view's second
// trace: GLFW has no file dialog, and a native one would differ on each desktop the class uses.
// A modal lists one folder (engine/util/dir_listing.h): its folders, then the files a trace can
// be. Double-click a folder to enter it, a file to choose it; or type a path and press Enter.
#pragma once

#include <string>

#include "app/gui/ui_text.h"
#include "engine/util/dir_listing.h"

namespace streamlab {

class FilePicker {
 public:
  // Shows the picker at `dir` (or the folder of the file it names; the working directory when
  // empty) from the next Draw on.
  void Open(const std::string& dir);
  // Picks `path` (relative to the folder shown) as if typed and entered: true when it is a file,
  // which chosen() then holds, and the picker is not shown.
  bool Pick(const std::string& path);
  // Draws the picker while it is shown; true on the frame a file was chosen (see chosen()).
  bool Draw(const char* title, const UiText& ui);
  const std::string& chosen() const { return chosen_; }
  bool shown() const { return shown_; }
  // The folder shown and what it holds, for headless checks ("DIR: N folders, M files"), and
  // why a typed path was not taken.
  std::string Summary() const;

 private:
  void Enter(const std::string& dir);
  void TakeTypedPath();
  void DrawEntries(const UiText& ui, bool* chosen_now);

  bool open_requested_ = false;
  bool shown_ = false;
  DirListing listing_;
  int selected_ = -1;
  char typed_[1024] = {};
  std::string message_;  // why a typed path was not taken
  std::string chosen_;
};

}  // namespace streamlab
