// A file's plain bytes, whether it is stored as it is or compressed: torch.profiler writes
// `.pt.trace.json.gz` when asked to, and long recordings travel as `.json.xz`. A compressed
// file (told by its magic bytes, not its name) is decompressed into an unlinked temporary
// file that any reader opens by path (/proc/self/fd/N), so the readers that map a file, read
// it whole or read it line by line need no change, and memory holds none of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamlab {

enum class Compression : uint8_t { kNone, kGzip, kXz };

// The names a trace file can have: JSON or JSON lines, stored plain or compressed. Whoever lists
// a folder of traces (the picker, the fidelity bench, the fixture tests) keeps these.
inline const std::vector<std::string> kTraceFileSuffixes{".json", ".jsonl", ".json.gz", ".json.xz", ".jsonl.gz", ".jsonl.xz"};

// A JSON file, plain or compressed (NAME.json, NAME.json.gz, NAME.json.xz).
bool IsJsonFileName(const std::string& path);

// The most a file is decompressed to where its reader sets no bound of its own (a recorder
// log is read line by line, with no limit on the whole file).
inline constexpr uint64_t kMaxDecompressedBytes = uint64_t{16} << 30;

// By the first bytes (a file that cannot be read is kNone: its reader says why).
Compression CompressionOf(const std::string& path);

class PlainFile {
 public:
  // Throws InputError naming `path`: a folder, a file that cannot be opened, compressed data
  // that is corrupt or that this build cannot read (built without zlib or liblzma), or more
  // than `max_bytes` once decompressed. `stop_after` (0: all): decompress only this many bytes,
  // for a look at a file's start.
  PlainFile(const std::string& path, uint64_t max_bytes, uint64_t stop_after = 0);
  PlainFile(const PlainFile&) = delete;
  PlainFile& operator=(const PlainFile&) = delete;
  ~PlainFile();

  // The path to open: the file's own, or its decompressed copy's while this object lives. A
  // stream opened on it keeps the copy after this object is gone.
  const std::string& path() const { return path_; }
  bool decompressed() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace streamlab
