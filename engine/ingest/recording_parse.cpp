// Parsing the recorder's JSON-lines log (kernels/recorder/): one object per line, checked
// field by field, so a truncated or corrupted log gives "path:line: what" and exit 2.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "engine/ingest/python_traceback.h"
#include "engine/ingest/recording.h"
#include "engine/util/errors.h"
#include "engine/util/plain_file.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {


uint64_t U64(const JsonReader& r, const char* key, int64_t fallback = 0) {
  int64_t v = r.Has(key) ? r.Int(key) : fallback;
  if (v < 0) r.FailAt(key, "must not be negative");
  return static_cast<uint64_t>(v);
}

int Small(const JsonReader& r, const char* key, int64_t lo, int64_t hi, int64_t fallback = 0) {
  int64_t v = r.Has(key) ? r.Int(key) : fallback;
  if (v < lo || v > hi) r.FailAt(key, "must be " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(v);
}

int64_t Product3(const JsonReader& r, const char* key) {
  if (!r.Has(key)) r.FailAt(key, "missing");
  const Json& v = r.value().at(key);
  if (!v.is_array() || v.size() != 3) r.FailAt(key, "expected [x, y, z]");
  int64_t product = 1;
  for (const Json& d : v) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > (1ll << 31))
      r.FailAt(key, "expected three positive integers");
    product *= d.get<int64_t>();
    if (product > (1ll << 40)) r.FailAt(key, "too many blocks");
  }
  return product;
}

// A launch's "ptrs" (addresses among its arguments, at most 8, "ptrs_more" if it had more) and
// "ptr_at" (each one's byte offset in the arguments); a copy's "dst" and "src", a memset's "dst".
void ReadAddresses(const JsonReader& r, RecordedCall& c) {
  if (r.Has("ptrs")) {
    const Json& list = r.value().at("ptrs");
    if (!list.is_array() || list.size() > 8) r.FailAt("ptrs", "expected at most 8 addresses");
    for (const Json& a : list) {
      if (!a.is_number_unsigned() && !(a.is_number_integer() && a.get<int64_t>() >= 0))
        r.FailAt("ptrs", "expected addresses (non-negative integers)");
      c.args.push_back(a.get<uint64_t>());
    }
    c.more_args = Small(r, "ptrs_more", 0, 1) == 1;
    if (r.Has("ptr_at")) {
      const Json& at = r.value().at("ptr_at");
      if (!at.is_array() || at.size() != list.size()) r.FailAt("ptr_at", "expected one offset per address in \"ptrs\"");
      for (const Json& o : at) {
        if (!o.is_number_integer() || o.get<int64_t>() < 0 || o.get<int64_t>() > UINT16_MAX)
          r.FailAt("ptr_at", "expected byte offsets (0..65535)");
        c.arg_offsets.push_back(static_cast<uint16_t>(o.get<int64_t>()));
      }
    }
  } else if (r.Has("dst")) {
    c.args.push_back(U64(r, "dst"));
    if (r.Has("src")) c.args.push_back(U64(r, "src"));
  }
}

// `kernel_names` gives every record of one kernel the same name text.
void ParseLine(const Json& json, const std::string& where, Recording& out, NamePool& kernel_names) {
  if (!json.is_object()) throw InputError(where + ": expected a JSON object");
  JsonReader r(json, where, "");
  std::string type = r.String("t");
  if (type == "meta") {
    if (r.String("format") != "streamlab-record") r.FailAt("format", "not a StreamLab recording");
    if (r.Int("version") != 1) r.FailAt("version", "only version 1 is read by this build");
    out.pid = Small(r, "pid", 0, 1 << 30);
    out.rank = Small(r, "rank", -1, 1 << 20, -1);
  } else if (type == "env") {
    out.env_known = true;
    for (const auto& [name, value] : json.items())
      if (name != "t" && value.is_string()) out.env[name] = value.get<std::string>().substr(0, 256);
  } else if (type == "clock") {
    out.clocks.push_back({U64(r, "cupti"), U64(r, "host"), U64(r, "err")});
  } else if (type == "thread") {
    out.os_thread[Small(r, "tid", 0, 1 << 20)] = static_cast<long>(U64(r, "os_tid"));
  } else if (type == "call") {
    RecordedCall c;
    c.thread = Small(r, "tid", 0, 1 << 20);
    c.function = r.String("fn");
    // A role this build does not know (a newer recorder's) reads as any other call.
    c.role = ParseCallRole(r.String("role")).value_or(CallRole::kOther);
    c.domain = Small(r, "dom", 0, 2);
    c.begin = U64(r, "b");
    c.end = U64(r, "e");
    if (c.end < c.begin) r.FailAt("e", "ends before it begins");
    c.correlation = U64(r, "corr");
    c.stream = U64(r, "stream");
    c.stream_id = r.Has("sid") ? static_cast<int64_t>(U64(r, "sid")) : -1;
    c.event = U64(r, "event");
    c.out = U64(r, "out");
    c.size = U64(r, "size");
    c.parent = U64(r, "parent");
    c.exec = U64(r, "exec");
    c.flags = Small(r, "flags", INT32_MIN, INT32_MAX);
    c.priority = Small(r, "prio", -1000, 1000);
    c.value = Small(r, "value", INT32_MIN, INT32_MAX);
    c.status = Small(r, "status", INT32_MIN, INT32_MAX);
    c.per_thread = Small(r, "ptsz", 0, 1) == 1;
    c.device = Small(r, "dev", -1, 63, -1);
    c.text = r.String("text", "");
    c.python_stack = static_cast<uint32_t>(Small(r, "py", 0, INT32_MAX));
    c.own_ns = static_cast<uint32_t>(Small(r, "own", 0, INT32_MAX));
    c.own_in_ns = static_cast<uint32_t>(Small(r, "own_in", 0, INT32_MAX));
    ReadAddresses(r, c);
    out.calls.push_back(std::move(c));
  } else if (type == "kernel" || type == "memcpy" || type == "memset") {
    RecordedActivity a;
    a.type = type;
    a.correlation = U64(r, "corr");
    a.device = Small(r, "dev", 0, 15);
    a.stream_id = static_cast<int64_t>(U64(r, "sid"));
    a.begin = U64(r, "b");
    a.end = U64(r, "e");
    if (a.end < a.begin) r.FailAt("e", "ends before it begins");
    if (a.begin == 0 && a.end == 0) {  // CUPTI's "timestamps could not be collected"
      ++out.untimed;
      return;
    }
    a.graph_node = U64(r, "node");
    if (type == "kernel") {
      a.name = SharedName::Intern(kernel_names, r.String("name"));
      a.grid = Product3(r, "grid");
      a.block = Product3(r, "block");
      if (a.block > 1024) r.FailAt("block", "more than 1024 threads per block");
      a.registers = Small(r, "regs", 0, 255);
      a.shared_bytes = Small(r, "ssmem", 0, 1 << 24) + Small(r, "dsmem", 0, 1 << 24);
    } else {
      a.bytes = U64(r, "bytes");
      a.copy_kind = Small(r, "copy", 0, 64);
      a.src_kind = Small(r, "src", 0, 64);
      a.dst_kind = Small(r, "dst", 0, 64);
    }
    out.activity.push_back(std::move(a));
  } else if (type == "device") {
    RecordedDevice d;
    d.id = Small(r, "id", 0, 15);
    d.name = r.String("name");
    d.sms = Small(r, "sms", 0, 4096);
    d.warps_per_sm = Small(r, "warps_per_sm", 0, 1024);
    d.blocks_per_sm = Small(r, "blocks_per_sm", 0, 1024);
    d.regs_per_sm = Small(r, "regs_per_sm", 0, 1 << 24);
    d.smem_per_sm = Small(r, "smem_per_sm", 0, 1 << 30);
    d.uuid = r.String("uuid", "");
    out.devices.push_back(d);
  } else if (type == "overhead") {
    uint64_t b = U64(r, "b"), e = U64(r, "e");
    Small(r, "kind", 0, INT32_MAX);
    if (e > b) out.cupti_overhead_ns += e - b;
  } else if (type == "addresses") {
    out.addresses = Small(r, "supported", 0, 1);
    out.launches_read = U64(r, "read");
    out.launches_unread = U64(r, "unread");
  } else if (type == "python_stack") {
    uint32_t id = static_cast<uint32_t>(Small(r, "id", 1, INT32_MAX));
    out.python_stacks[id] = FramesOfTraceback(r.String("text"));
  } else if (type == "python_stacks") {
    out.python_stacks_taken = U64(r, "taken");
    out.python_stacks_over_budget = U64(r, "over_budget");
    out.python_stack_cost_ns = U64(r, "cost_ns");
  } else if (type == "py_sample") {
    out.python_samples.push_back({Small(r, "tid", 0, 1 << 20), U64(r, "at"), static_cast<uint32_t>(Small(r, "py", 1, INT32_MAX))});
  } else if (type == "python_samples") {
    Recording::SamplerTotals& t = out.sampler;
    t.taken = U64(r, "taken"), t.reads = U64(r, "reads"), t.cost_ns = U64(r, "cost_ns");
    t.period_us = U64(r, "period_us"), t.after_us = U64(r, "after_us");
    t.faults = U64(r, "faults");
    t.stopped = Small(r, "stopped", 0, 1) == 1;
  } else if (type == "dropped") {
    out.dropped = std::max(out.dropped, U64(r, "count"));
  } else {
    r.FailAt("t", "unknown record type \"" + type + "\"");
  }
}

}  // namespace

bool LooksLikeRecording(std::string_view text) {
  return text.rfind("{\"t\":\"meta\",\"format\":\"streamlab-record\"", 0) == 0;
}

namespace {

// The recorder's longest line is a kernel record with a long (templated) name: far below this.
constexpr size_t kMaxLineBytes = size_t{1} << 20;

// A log's lines, read in 64 KiB blocks: the log is never held whole (its size does not
// matter), and a line longer than kMaxLineBytes is refused before it is (a file with no
// newlines must not be read whole either).
class LineReader {
 public:
  LineReader(std::istream& in, const std::string& path) : in_(in), path_(path), block_(size_t{64} << 10, '\0') {}

  // The next line, without its newline; false at the end of the log.
  bool Next(std::string& line) {
    line.clear();
    bool any = false;
    while (at_ < end_ || Fill()) {
      any = true;
      const char* start = block_.data() + at_;
      const char* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - at_));
      size_t take = newline ? static_cast<size_t>(newline - start) : end_ - at_;
      if (line.size() + take > kMaxLineBytes)
        throw InputError(path_ + ":" + std::to_string(number_ + 1) + ": a line longer than 1 MiB: not a recorder log");
      line.append(start, take);
      at_ += take + (newline ? 1 : 0);
      if (newline) break;
    }
    if (any) ++number_;
    return any;
  }
  bool AtEnd() { return at_ == end_ && !Fill(); }
  size_t number() const { return number_; }

 private:
  bool Fill() {
    in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
    at_ = 0;
    end_ = static_cast<size_t>(in_.gcount());
    return end_ > 0;
  }
  std::istream& in_;
  const std::string& path_;
  std::string block_;
  size_t at_ = 0, end_ = 0, number_ = 0;
};

// A launch handed more than 8 addresses logs the rest in launch_args records, 8 each: they
// join their launch (same correlation id) or, for a graph's kernel node, its parameters (the
// node in "out"), and leave the log.
void JoinMoreAddresses(Recording& r) {
  // A graph kernel node's are keyed by node and call: a node built and later set again has
  // launch_args records under each call.
  using Key = std::pair<uint64_t, uint64_t>;  // (node or 0, correlation)
  std::map<Key, std::vector<const RecordedCall*>> more_of;
  for (const RecordedCall& c : r.calls)
    if (c.role == CallRole::kLaunchArgs) more_of[{c.out, c.correlation}].push_back(&c);
  if (more_of.empty()) return;
  for (RecordedCall& c : r.calls) {
    if (c.role != CallRole::kLaunch && c.role != CallRole::kGraphNodeParams) continue;
    auto more = more_of.find({c.role == CallRole::kLaunch ? 0 : c.out, c.correlation});
    if (more == more_of.end()) continue;
    for (const RecordedCall* m : more->second) {
      // Offsets are kept only while every part of the launch has them.
      bool offsets = c.arg_offsets.size() == c.args.size() && m->arg_offsets.size() == m->args.size();
      c.args.insert(c.args.end(), m->args.begin(), m->args.end());
      if (offsets) c.arg_offsets.insert(c.arg_offsets.end(), m->arg_offsets.begin(), m->arg_offsets.end());
      else c.arg_offsets.clear();
    }
  }
  std::erase_if(r.calls, [](const RecordedCall& c) { return c.role == CallRole::kLaunchArgs; });
}

}  // namespace

Recording ParseRecording(std::istream& stream, const std::string& path, size_t max_lines) {
  Recording out;
  NamePool kernel_names;
  std::string line;
  bool meta = false;
  LineReader in(stream, path);
  while (in.Next(line)) {
    size_t number = in.number();
    if (number == 1 && !LooksLikeRecording(line)) break;
    if (number > max_lines) {
      // A trace holds far fewer ops than this many lines make (see TraceFromRecording's cut),
      // so the rest of a long run's log is not read at all.
      out.read_partly = true;
      out.notes.push_back(Note("log_lines_limit", {{"max", std::to_string(max_lines)}}));
      break;
    }
    if (line.empty()) continue;
    std::string where = path + ":" + std::to_string(number);
    Json json;
    try {
      json = ParseJson(line, where);  // bounded nesting, located errors
    } catch (const InputError&) {
      // A program killed mid-write leaves its last line cut short; anything else is damage.
      if (in.AtEnd()) break;
      throw InputError(where + ": not a JSON object (the log is damaged)");
    }
    try {
      ParseLine(json, where, out, kernel_names);
    } catch (const Json::exception& e) {
      throw InputError(where + ": " + e.what());
    }
    if (number == 1) meta = true;
  }
  if (!meta) throw InputError(path + ": not a StreamLab recording (no meta line)");
  JoinMoreAddresses(out);
  AddPythonStackMarks(out);
  return out;
}

Recording ParseRecording(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  return ParseRecording(in, path);
}

Recording ReadRecordingFile(const std::string& path) {
  FileSize(path);  // a folder or a missing file: the same errors as for any other file
  PlainFile plain(path, kMaxDecompressedBytes);  // a compressed log: read as its plain lines
  std::ifstream in(plain.path(), std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  return ParseRecording(in, path);
}

namespace {
// A recorder log's name, as written or compressed (raw.PID.jsonl, raw.PID.jsonl.xz, .gz).
bool IsLogName(const std::string& name) {
  for (const char* end : {".jsonl", ".jsonl.xz", ".jsonl.gz"}) {
    std::string e = end;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}
}  // namespace

std::vector<Recording> ReadRecordingFolder(const std::string& dir, size_t* logs, std::string* problem) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (IsLogName(entry.path().filename().string())) paths.push_back(entry.path().string());
  if (error) throw InputError(dir + ": cannot read the folder: " + error.message());
  std::sort(paths.begin(), paths.end());
  *logs = paths.size();
  std::vector<Recording> out;
  for (const std::string& path : paths) {
    try {
      if (!LooksLikeRecording(ReadFileStart(path, 64))) continue;
      out.push_back(ReadRecordingFile(path));
    } catch (const InputError& e) {
      *problem = e.what();
    }
  }
  return out;
}

}  // namespace streamlab
