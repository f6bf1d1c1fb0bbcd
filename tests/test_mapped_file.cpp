// MappedFile (engine/util/mapped_file.h): the text is the file's, errors are ReadTextFile's, and
// released pages leave the process's memory but read the same again. And a torch.profiler trace
// read through it (LoadTraceFile) fails where the text reader fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/ingest/kineto.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "engine/util/mapped_file.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

std::string TempFile(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / ("streamlab_mapped_" + name)).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The file pages this process holds (Linux: /proc/self/status), in kB.
long ResidentFileKb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long kb = -1;
  while (status >> key)
    if (key == "RssFile:") status >> kb;
  return kb;
}

TEST(MappedFile, HoldsTheFileAndRefusesWhatReadTextFileRefuses) {
  std::string path = TempFile("small.json", "{\"a\": [1, 2, 3]}");
  MappedFile file(path, 1024);
  EXPECT_EQ(file.text(), "{\"a\": [1, 2, 3]}");
  EXPECT_EQ(MappedFile(TempFile("empty.json", ""), 1024).text(), "");
  for (const std::string& bad : {path + ".missing", std::filesystem::temp_directory_path().string()}) {
    std::string ours = testing::InputErrorOf([&] { MappedFile f(bad, 1024); });
    EXPECT_FALSE(ours.empty());
    EXPECT_EQ(ours, testing::InputErrorOf([&] { ReadTextFile(bad, 1024); }));
  }
  EXPECT_EQ(testing::InputErrorOf([&] { MappedFile f(path, 8); }),
            testing::InputErrorOf([&] { ReadTextFile(path, 8); }));
}

TEST(MappedFile, ReleasedPagesLeaveMemoryAndReadTheSameAgain) {
  std::string text(32 << 20, 'x');
  for (size_t i = 0; i < text.size(); i += 4093) text[i] = static_cast<char>('a' + i % 26);
  std::string path = TempFile("large.txt", text);
  MappedFile file(path, uint64_t{1} << 30);
  long before = ResidentFileKb();
  size_t sum = 0;
  for (char c : file.text()) sum += static_cast<unsigned char>(c);
  long touched = ResidentFileKb();
  file.Release(16 << 20);
  long half = ResidentFileKb();
  file.ReleaseAll();
  long none = ResidentFileKb();
  if (before >= 0) {  // /proc is there
    EXPECT_GT(touched - before, 30 << 10) << "reading it all holds its 32 MB";
    EXPECT_LT(half - before, 18 << 10) << "the first 16 MB handed back";
    EXPECT_LT(none - before, 2 << 10) << "all of it handed back";
  }
  EXPECT_EQ(file.text(), text);  // read again from the file
  size_t again = 0;
  for (char c : file.text()) again += static_cast<unsigned char>(c);
  EXPECT_EQ(again, sum);
}

// A malformed event far into a large trace: read through the mapped file (whose first part has
// been handed back by then), the error names the same line and column as the text reader's.
TEST(MappedFile, AKinetoTraceFailsWhereItsTextFails) {
  std::string events;
  for (int i = 0; i < 60000; ++i)
    events += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": " +
              std::to_string(i * 10) + ", \"dur\": 5},\n";
  std::string text = "{\"traceEvents\": [\n" + events + "{\"ph\": \"X\", \"ts\": 1e}\n]}";
  std::string path = TempFile("bad_kineto.json", text);
  std::string mapped = testing::InputErrorOf([&] { LoadTraceFile(path); });
  EXPECT_NE(mapped.find(":60002:"), std::string::npos) << mapped;
  EXPECT_EQ(mapped, testing::InputErrorOf([&] { TraceFromKineto(text, path); }));
}

}  // namespace
}  // namespace streamlab
