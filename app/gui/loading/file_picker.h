// A file picker drawn with Dear ImGui, for opening a trace and for the compare view's second
// trace: GLFW has no file dialog, and a native one would differ on each desktop the class uses.
// A modal lists one folder (engine/util/dir_listing.h): its folders, then the files a trace can
// be. Double-click a folder to enter it, a file to choose it; or type a path and press Enter.
// A folder is read on a thread of its own, so a slow or hung one (a network mount) never
// freezes the window: the picker says it is reading, and another folder can be chosen meanwhile.
#pragma once

#include <memory>
#include <mutex>
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
  // why a typed path was not taken; waits up to 10 s for a folder still being read.
  std::string Summary();

 private:
  // A folder being read: the reading thread fills it, Poll takes it.
  struct Reading {
    std::mutex mutex;
    bool done = false;
    DirListing listing;
  };
  void Enter(const std::string& dir);
  void Poll();
  void TakeTypedPath();
  void DrawEntries(const UiText& ui, bool* chosen_now);

  bool open_requested_ = false;
  bool shown_ = false;
  std::string dir_;  // the folder shown (absolute), known before its listing is
  DirListing listing_;
  std::shared_ptr<Reading> reading_;  // dropped (and left to finish alone) when another folder is entered
  int selected_ = -1;
  char typed_[1024] = {};
  std::string message_;  // why a typed path was not taken
  std::string chosen_;
};

}  // namespace streamlab
