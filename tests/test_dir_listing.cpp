// ListDirectory (engine/util/dir_listing.h), which the GUI's file picker draws: folders first,
// trace files only, hidden entries and other files left out, the cap counted, and a folder that
// cannot be read an error text rather than an exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engine/util/dir_listing.h"

namespace streamlab {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kTraceFiles{".json", ".jsonl"};

fs::path MakeTree() {
  fs::path root = fs::temp_directory_path() / ("streamlab_listing_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "runs");
  fs::create_directories(root / "Archive");
  fs::create_directories(root / ".cache");
  for (const char* name : {"b.json", "A.jsonl", "notes.txt", ".hidden.json", "c.json.bak"}) std::ofstream(root / name) << "{}";
  fs::create_symlink(root / "runs", root / "link_to_runs");
  fs::create_symlink(root / "gone.json", root / "dangling.json");
  return root;
}

TEST(DirListing, FoldersFirstThenTraceFilesByName) {
  fs::path root = MakeTree();
  DirListing l = ListDirectory(root.string(), kTraceFiles);
  EXPECT_EQ(l.error, "");
  EXPECT_EQ(l.dir, root.string());
  std::vector<std::string> names;
  for (const DirEntry& e : l.entries) names.push_back(e.name + (e.folder ? "/" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"Archive/", "link_to_runs/", "runs/", "A.jsonl", "b.json"}));
  EXPECT_EQ(l.entries.back().bytes, 2u);
  EXPECT_EQ(l.left_out, 0u);
  DirListing capped = ListDirectory(root.string(), kTraceFiles, 2);
  ASSERT_EQ(capped.entries.size(), 2u);
  EXPECT_EQ(capped.left_out, 3u);
  fs::remove_all(root);
}

TEST(DirListing, AFolderThatCannotBeReadIsAnErrorText) {
  DirListing missing = ListDirectory("/no/such/folder/anywhere", kTraceFiles);
  EXPECT_NE(missing.error.find("/no/such/folder/anywhere: "), std::string::npos) << missing.error;
  EXPECT_TRUE(missing.entries.empty());
  fs::path file = fs::temp_directory_path() / ("streamlab_listing_file_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << "{}";
  EXPECT_NE(ListDirectory(file.string(), kTraceFiles).error, "");  // a file, not a folder
  fs::remove(file);
}

TEST(DirListing, ParentOfAFolder) {
  EXPECT_EQ(ParentDirectory("/a/b"), "/a");
  EXPECT_EQ(ParentDirectory("/a/b/"), "/a");
  EXPECT_EQ(ParentDirectory("/a"), "/");
  EXPECT_EQ(ParentDirectory("/"), "/");
  EXPECT_EQ(ParentDirectory("/a/./b/../c"), "/a");
}

}  // namespace
}  // namespace streamlab
