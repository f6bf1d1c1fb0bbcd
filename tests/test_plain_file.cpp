// Compressed traces (engine/util/plain_file.h): a torch.profiler trace gzipped as PyTorch
// writes it, an xz'd StreamLab trace and a folder of xz'd recorder logs open as their plain
// forms do; corrupt data and a decompression past the reader's bound are refused with the
// file's name; the plain copy leaves nothing behind in the temporary folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>

#include "engine/ingest/open_trace.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "engine/util/plain_file.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

namespace fs = std::filesystem;

// A scratch folder of this test's own.
fs::path Scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("streamlab_plain_file_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// `tool` (gzip or xz) compresses `from` into `to`; the test needs the tool (setup.sh installs both).
void Compress(const std::string& tool, const fs::path& from, const fs::path& to) {
  std::string command = tool + " -c '" + from.string() + "' > '" + to.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// `load` throws InputError whose text holds each of `words`.
template <class Load>
void ExpectInputError(Load load, std::initializer_list<const char*> words) {
  try {
    load();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    for (const char* w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

int PlainCopiesLeft() {
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    if (e.path().filename().string().rfind("streamlab-plain-", 0) == 0) ++n;
  return n;
}

TEST(PlainFile, CompressedTracesOpenAsTheirPlainForms) {
  fs::path dir = Scratch("traces");
  int copies_before = PlainCopiesLeft();
  std::string kineto = testing::SourcePath("tests/fixtures/kineto/event_chain.json");
  std::string saved = testing::SourcePath("tests/fixtures/recorded/legacy_stall.json");
  Compress("gzip", kineto, dir / "event_chain.pt.trace.json.gz");
  Compress("xz", saved, dir / "legacy_stall.json.xz");
  EXPECT_EQ(CompressionOf((dir / "event_chain.pt.trace.json.gz").string()), Compression::kGzip);
  EXPECT_EQ(CompressionOf((dir / "legacy_stall.json.xz").string()), Compression::kXz);
  EXPECT_EQ(CompressionOf(kineto), Compression::kNone);

  Trace plain_kineto = LoadTraceFile(kineto), gz = LoadTraceFile((dir / "event_chain.pt.trace.json.gz").string());
  EXPECT_EQ(gz.ops.size(), plain_kineto.ops.size());
  ASSERT_FALSE(gz.ops.empty());
  EXPECT_EQ(gz.ops.back().end, plain_kineto.ops.back().end);
  Trace plain_saved = LoadTraceFile(saved), xz = LoadTraceFile((dir / "legacy_stall.json.xz").string());
  EXPECT_EQ(xz.ops.size(), plain_saved.ops.size());
  EXPECT_EQ(ReadFileStart((dir / "legacy_stall.json.xz").string(), 40), ReadFileStart(saved, 40));
  EXPECT_EQ(PlainCopiesLeft(), copies_before);  // unlinked as soon as made
}

TEST(PlainFile, AFolderOfCompressedRecorderLogsOpens) {
  fs::path dir = Scratch("logs");
  std::string log = testing::SourcePath("tests/fixtures/recorded/legacy_stall.raw.jsonl");
  Compress("xz", log, dir / "raw.4242.jsonl.xz");
  Trace from_folder = LoadTraceFile(dir.string());
  Trace from_log = LoadTraceFile(log);
  EXPECT_EQ(from_folder.ops.size(), from_log.ops.size());
  EXPECT_GT(from_folder.ops.size(), 0u);
}

TEST(PlainFile, CorruptOrOversizedDataIsRefusedByName) {
  fs::path dir = Scratch("bad");
  fs::path corrupt = dir / "corrupt.json.xz";
  std::ofstream(corrupt, std::ios::binary) << std::string("\xfd" "7zXZ", 5) << '\0' << "not really xz data at all";
  ExpectInputError([&] { LoadTraceFile(corrupt.string()); }, {"corrupt.json.xz", "corrupt xz data"});
  fs::path corrupt_gz = dir / "corrupt.json.gz";
  std::ofstream(corrupt_gz, std::ios::binary) << "\x1f\x8b\x08\x00 then nothing gzip would write";
  ExpectInputError([&] { LoadTraceFile(corrupt_gz.string()); }, {"corrupt.json.gz"});

  // 3 MiB of text: more than a reader bounded at 1 MiB takes, decompressed or not.
  fs::path big = dir / "big.json";
  std::ofstream(big) << "[" << std::string(3 << 20, ' ') << "]";
  Compress("xz", big, dir / "big.json.xz");
  ExpectInputError([&] { ReadTextFile((dir / "big.json.xz").string(), 1 << 20); }, {"big.json.xz", "once decompressed"});
  EXPECT_EQ(ReadTextFile((dir / "big.json.xz").string()).size(), (3u << 20) + 2);
}

}  // namespace
}  // namespace streamlab
