// Reading JSON files with errors a student can act on: "x.json:3:14: ..." for syntax,
// "x.json: ops[2].stream: expected a string" for structure. Used by every file reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace streamlab {

using Json = nlohmann::json;

// Files StreamLab writes or a person edits (scenarios, profiles, its own traces).
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;
// A torch.profiler trace is read whole but parsed as a stream (engine/ingest/kineto_parse.cpp):
// the text is most of what it costs in memory.
inline constexpr uint64_t kMaxKinetoFileBytes = uint64_t{1} << 30;

// Both read a gzip or xz file as its plain bytes (plain_file.h).
// Throws InputError if the file is missing, unreadable or larger than `max_bytes`.
std::string ReadTextFile(const std::string& path, uint64_t max_bytes = kMaxTextFileBytes);
// The file's first `bytes` bytes (fewer if it is shorter), to tell formats apart.
std::string ReadFileStart(const std::string& path, size_t bytes);
// The file's size as stored (compressed or not); throws InputError as ReadTextFile does for a
// folder or a missing file.
uint64_t FileSize(const std::string& path);
// Throws InputError "source:line:column: message" on malformed JSON.
Json ParseJson(const std::string& text, const std::string& source);
// The JSON text of `json` (indented by `indent`, or on one line when -1). A string cut inside a
// UTF-8 sequence (a demangled name shortened by its declared length, a name from a damaged
// log) is written with U+FFFD in place of the broken bytes, never thrown on.
std::string DumpJson(const Json& json, int indent = -1);
// Throws InputError "source:line:column: malformed JSON: what" for an error at byte `byte`
// (1-based, as nlohmann counts) of `text`.
[[noreturn]] void ThrowJsonSyntaxError(std::string_view text, const std::string& source, size_t byte,
                                       std::string what);

// A view of one JSON object with its path, for typed access with located errors.
class JsonReader {
 public:
  JsonReader(const Json& value, std::string source, std::string path);

  const Json& value() const { return value_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }

  bool Has(const char* key) const;
  std::string String(const char* key) const;
  std::string String(const char* key, const std::string& fallback) const;
  int64_t Int(const char* key) const;
  int64_t Int(const char* key, int64_t fallback) const;
  double Number(const char* key, double fallback) const;
  bool Bool(const char* key, bool fallback) const;
  JsonReader Object(const char* key) const;
  // Array elements as readers; an absent key gives an empty array.
  std::vector<JsonReader> Array(const char* key) const;
  // An array of integers in [lo, hi]; an absent key gives an empty array.
  std::vector<int64_t> Ints(const char* key, int64_t lo, int64_t hi) const;
  [[noreturn]] void Fail(const std::string& what) const;
  [[noreturn]] void FailAt(const char* key, const std::string& what) const;

 private:
  const Json& Field(const char* key) const;
  const Json& value_;
  std::string source_;
  std::string path_;
};

}  // namespace streamlab
