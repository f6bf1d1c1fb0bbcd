// JSON parsing with located errors (line/column for syntax, a path for structure).
#include "engine/util/json_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/util/errors.h"
#include "engine/util/json_scan.h"
#include "engine/util/plain_file.h"

namespace streamlab {

namespace {

// A compressed file is read as its plain bytes (plain_file.h): up to `max_bytes`, or only its
// first `stop_after` bytes.
std::ifstream OpenFile(const std::string& path, uint64_t max_bytes = kMaxDecompressedBytes, uint64_t stop_after = 0) {
  PlainFile plain(path, max_bytes, stop_after);
  std::ifstream in(plain.path(), std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  return in;
}

}  // namespace

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);  // the stored bytes, compressed or not
  if (!in) throw InputError(path + ": cannot open file");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path + ": cannot read file");
  return static_cast<uint64_t>(size);
}

std::string ReadFileStart(const std::string& path, size_t bytes) {
  std::ifstream in = OpenFile(path, kMaxDecompressedBytes, bytes);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string ReadTextFile(const std::string& path, uint64_t max_bytes) {
  std::ifstream in = OpenFile(path, max_bytes);
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path + ": cannot read file");
  if (static_cast<uint64_t>(size) > max_bytes)
    throw InputError(path + ": file larger than " + std::to_string(max_bytes >> 20) + " MiB");
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), size);
  if (!in) throw InputError(path + ": cannot read file");
  return text;
}

void ThrowJsonSyntaxError(std::string_view text, const std::string& source, size_t byte, std::string what) {
  size_t offset = byte == 0 ? 0 : byte - 1;
  int line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  size_t cut = what.find("parse error");
  if (cut != std::string::npos) what = what.substr(cut);
  throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " + what);
}

Json ParseJson(const std::string& text, const std::string& source) {
  // The scanner limits nesting itself (64 levels), so hostile input cannot exhaust the stack.
  return JsonScanner(text, source).Document();
}

std::string DumpJson(const Json& json, int indent) { return json.dump(indent, ' ', false, Json::error_handler_t::replace); }

JsonReader::JsonReader(const Json& value, std::string source, std::string path)
    : value_(value), source_(std::move(source)), path_(std::move(path)) {
  if (!value_.is_object()) Fail("expected an object");
}

void JsonReader::Fail(const std::string& what) const {
  throw InputError(source_ + ": " + (path_.empty() ? std::string("(top level)") : path_) + ": " +
                   what);
}

void JsonReader::FailAt(const char* key, const std::string& what) const {
  std::string at = path_.empty() ? key : path_ + "." + key;
  throw InputError(source_ + ": " + at + ": " + what);
}

bool JsonReader::Has(const char* key) const { return value_.contains(key); }

const Json& JsonReader::Field(const char* key) const {
  auto it = value_.find(key);
  if (it == value_.end()) FailAt(key, "missing");
  return *it;
}

std::string JsonReader::String(const char* key) const {
  const Json& v = Field(key);
  if (!v.is_string()) FailAt(key, "expected a string");
  return v.get<std::string>();
}

std::string JsonReader::String(const char* key, const std::string& fallback) const {
  return Has(key) ? String(key) : fallback;
}

int64_t JsonReader::Int(const char* key) const {
  const Json& v = Field(key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    // Range first: converting an out-of-range double to an integer is undefined (the
    // fuzzer found 1e54).
    double d = v.get<double>();
    if (d > -9e18 && d < 9e18 && d == static_cast<double>(static_cast<int64_t>(d)))
      return static_cast<int64_t>(d);
  }
  FailAt(key, "expected an integer");
}

int64_t JsonReader::Int(const char* key, int64_t fallback) const {
  return Has(key) ? Int(key) : fallback;
}

double JsonReader::Number(const char* key, double fallback) const {
  if (!Has(key)) return fallback;
  const Json& v = Field(key);
  if (!v.is_number()) FailAt(key, "expected a number");
  return v.get<double>();
}

bool JsonReader::Bool(const char* key, bool fallback) const {
  if (!Has(key)) return fallback;
  const Json& v = Field(key);
  if (!v.is_boolean()) FailAt(key, "expected true or false");
  return v.get<bool>();
}

JsonReader JsonReader::Object(const char* key) const {
  const Json& v = Field(key);
  if (!v.is_object()) FailAt(key, "expected an object");
  return JsonReader(v, source_, path_.empty() ? key : path_ + "." + key);
}

std::vector<JsonReader> JsonReader::Array(const char* key) const {
  std::vector<JsonReader> out;
  if (!Has(key)) return out;
  const Json& v = Field(key);
  if (!v.is_array()) FailAt(key, "expected an array");
  std::string base = path_.empty() ? key : path_ + "." + key;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string at = base + "[" + std::to_string(i) + "]";
    if (!v[i].is_object()) throw InputError(source_ + ": " + at + ": expected an object");
    out.emplace_back(v[i], source_, at);
  }
  return out;
}

std::vector<int64_t> JsonReader::Ints(const char* key, int64_t lo, int64_t hi) const {
  std::vector<int64_t> out;
  if (!Has(key)) return out;
  const Json& v = Field(key);
  if (!v.is_array()) FailAt(key, "expected an array");
  for (const Json& x : v) {
    if (!x.is_number_integer() || x.get<int64_t>() < lo || x.get<int64_t>() > hi)
      FailAt(key, "expected integers " + std::to_string(lo) + ".." + std::to_string(hi));
    out.push_back(x.get<int64_t>());
  }
  return out;
}

}  // namespace streamlab
