// One folder's contents for the GUI's file picker: its subfolders, then the files whose names end
// in one of the given suffixes (the kinds of file a trace can be), each group sorted by name.
// Nothing throws: a folder that cannot be read gives an error to show, not an exception.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamlab {

struct DirEntry {
  std::string name;
  bool folder = false;
  uintmax_t bytes = 0;  // files only
};

struct DirListing {
  std::string dir;    // the folder, made absolute
  std::string error;  // why it could not be read ("" when it was)
  std::vector<DirEntry> entries;  // folders first, each group in name order (case ignored)
  size_t left_out = 0;            // matching entries beyond `most`
};

// Hidden entries (names starting with '.') are left out, and so are entries that cannot be
// looked at (a dangling link). At most `most` entries: a huge folder stays quick to draw.
DirListing ListDirectory(const std::string& dir, const std::vector<std::string>& suffixes, size_t most = 4000);

// The folder above `dir` ("/" stays "/").
std::string ParentDirectory(const std::string& dir);

}  // namespace streamlab
