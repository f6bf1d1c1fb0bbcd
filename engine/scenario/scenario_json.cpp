// Scenario JSON (schema 1): {"kind": "streamlab.scenario", "schema": 1, "streams": [...],
// "events": [...], "buffers": [...], "ops": [{"op": "kernel", "stream": "s1", ...}]}.
#include "engine/scenario/scenario_json.h"

#include <fstream>
#include <map>

#include "engine/util/errors.h"

namespace streamlab {
namespace {

constexpr const char* kKind = "streamlab.scenario";

Json KernelToJson(const Scenario& s, const KernelSpec& k) {
  Json j{{"kind", ToString(k.kind)}, {"grid", k.grid}, {"block", k.block}, {"work", k.work}};
  if (k.function_slot != 0) j["function_slot"] = k.function_slot;
  Json reads = Json::array(), writes = Json::array();
  for (int b : k.reads) reads.push_back(s.buffers[b].name);
  for (int b : k.writes) writes.push_back(s.buffers[b].name);
  if (!reads.empty()) j["reads"] = reads;
  if (!writes.empty()) j["writes"] = writes;
  if (!k.function.empty()) j["function"] = k.function;
  if (k.registers) j["registers"] = k.registers;
  if (k.shared_bytes) j["shared_bytes"] = k.shared_bytes;
  if (k.max_blocks_per_sm) j["max_blocks_per_sm"] = k.max_blocks_per_sm;
  return j;
}

Json OpToJson(const Scenario& s, const Op& op) {
  Json j{{"op", ToString(op.kind)}};
  if (!op.name.empty()) j["name"] = op.name;
  if (op.stream >= 0) j["stream"] = s.streams[op.stream].name;
  if (op.event >= 0) j["event"] = s.events[op.event].name;
  if (op.other_stream >= 0) j["other_stream"] = s.streams[op.other_stream].name;
  if (op.buffer >= 0) j["buffer"] = s.buffers[op.buffer].name;
  if (op.src >= 0) j["src"] = s.buffers[op.src].name;
  if (op.dst >= 0) j["dst"] = s.buffers[op.dst].name;
  if (op.bytes) j["bytes"] = op.bytes;
  if (op.kind == OpKind::kMemset) j["value"] = op.value;
  if ((op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset) && !op.async) j["async"] = false;
  if (op.kind == OpKind::kHostWork || op.kind == OpKind::kApiCall || op.duration) j["duration_ns"] = op.duration;
  if (op.host_floor) j["host_floor_ns"] = op.host_floor;
  if (op.woken_by >= 0) j["woken_by"] = op.woken_by, j["woken_delay_ns"] = op.woken_delay;
  if (op.host_after) j["host_after_ns"] = op.host_after;
  if (op.kind == OpKind::kSetDevice) j["device"] = op.device;
  if (op.kind == OpKind::kKernel) j["kernel"] = KernelToJson(s, op.kernel);
  if (op.thread != 0) j["thread"] = op.thread;
  if (op.graph >= 0) j["graph"] = op.graph;
  if (!op.graph_after.empty()) j["graph_after"] = op.graph_after;
  if (op.kind == OpKind::kCollective) {
    j["collective"] = ToString(op.collective);
    j["collective_first"] = op.collective_first;
  }
  if (op.query_ready) j["ready"] = true;
  if (!op.addresses.empty()) {
    Json list = Json::array();
    for (const AddressPassed& a : op.addresses) {
      Json entry = {{"at", FormatAddress(a.at)}, {"use", ToString(a.use)}};
      if (a.offset >= 0) entry["offset"] = a.offset;
      list.push_back(std::move(entry));
    }
    j["addresses"] = std::move(list);
  }
  return j;
}

// "0x7f3a00000000" -> the address; anything else fails at `at`.
uint64_t AddressFromJson(const JsonReader& r) {
  std::string text = r.String("at");
  uint64_t value = 0;
  bool hex = text.size() > 2 && text.size() <= 18 && text[0] == '0' && text[1] == 'x';
  for (size_t i = 2; hex && i < text.size(); ++i) {
    char c = text[i];
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) hex = false;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  if (!hex) r.FailAt("at", "expected an address like \"0x7f3a00000000\"");
  return value;
}

std::vector<AddressPassed> AddressesFromJson(const JsonReader& op, OpKind kind) {
  std::vector<AddressPassed> out;
  if (!op.Has("addresses")) return out;
  for (const JsonReader& r : op.Array("addresses")) {
    AddressPassed a;
    a.at = AddressFromJson(r);
    std::string use = r.String("use");
    if (!FromString(use, &a.use)) r.FailAt("use", "unknown use \"" + use + "\" (argument, read, write, allocate or free)");
    if ((a.use == AddressUse::kAllocate || a.use == AddressUse::kFree) != (kind == OpKind::kApiCall))
      r.FailAt("use", kind == OpKind::kApiCall ? "a recorded API call's address is allocated or freed"
                                               : "only a recorded API call (cudaMallocAsync, cudaFreeAsync) allocates or frees");
    if (r.Has("offset")) {
      if (kind != OpKind::kKernel) r.FailAt("offset", "only a kernel's argument has an offset");
      int64_t offset = r.Int("offset");
      if (offset < 0 || offset > UINT16_MAX) r.FailAt("offset", "expected a byte offset (0..65535)");
      a.offset = static_cast<int>(offset);
    }
    out.push_back(a);
  }
  return out;
}

// Resolves names to indices, failing with the JSON path when a name is unknown.
class NameTable {
 public:
  void Add(const JsonReader& at, const std::string& name, int index) {
    if (!names_.emplace(name, index).second) at.FailAt("name", "duplicate name \"" + name + "\"");
  }
  int Find(const JsonReader& at, const char* key, const char* what) const {
    std::string name = at.String(key);
    auto it = names_.find(name);
    if (it == names_.end()) at.FailAt(key, std::string("no ") + what + " named \"" + name + "\"");
    return it->second;
  }
  int FindOptional(const JsonReader& at, const char* key, const char* what) const {
    return at.Has(key) ? Find(at, key, what) : -1;
  }

 private:
  std::map<std::string, int> names_;
};

int ToInt(const JsonReader& at, const char* key, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    at.FailAt(key, "must be " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(v);
}

KernelSpec KernelFromJson(const JsonReader& r, const NameTable& buffers) {
  KernelSpec k;
  std::string kind = r.String("kind", "spin");
  if (!FromString(kind, &k.kind)) r.FailAt("kind", "unknown kernel kind \"" + kind + "\"");
  k.grid = ToInt(r, "grid", r.Int("grid", 1), 1, k.kind == KernelKind::kForeign ? INT32_MAX : 1 << 20);
  k.block = ToInt(r, "block", r.Int("block", 128), 1, 1024);
  k.work = r.Int("work", 0);
  k.function_slot = ToInt(r, "function_slot", r.Int("function_slot", 0), 0, 7);
  k.function = r.String("function", "");
  k.registers = ToInt(r, "registers", r.Int("registers", 0), 0, 255);
  k.shared_bytes = ToInt(r, "shared_bytes", r.Int("shared_bytes", 0), 0, 1 << 30);
  k.max_blocks_per_sm = ToInt(r, "max_blocks_per_sm", r.Int("max_blocks_per_sm", 0), 0, 64);
  for (const char* key : {"reads", "writes"}) {
    if (!r.Has(key)) continue;
    const Json& list = r.value()[key];
    if (!list.is_array()) r.FailAt(key, "expected an array of buffer names");
    for (const Json& name : list) {
      if (!name.is_string()) r.FailAt(key, "expected an array of buffer names");
      Json one{{"b", name}};
      JsonReader tmp(one, "", r.path() + "." + key);
      int index = buffers.Find(tmp, "b", "buffer");
      (std::string(key) == "reads" ? k.reads : k.writes).push_back(index);
    }
  }
  return k;
}

}  // namespace

Json ScenarioToJson(const Scenario& s) {
  Json streams = Json::array(), events = Json::array(), buffers = Json::array(), ops = Json::array();
  for (const StreamDesc& st : s.streams) {
    Json j{{"name", st.name}, {"kind", ToString(st.kind)}, {"device", st.device}};
    if (st.non_blocking) j["non_blocking"] = true;
    if (st.priority != 0) j["priority"] = st.priority;
    if (st.library) j["library"] = true;
    if (st.process != 0) j["process"] = st.process;
    if (st.thread != 0) j["thread"] = st.thread;
    streams.push_back(j);
  }
  for (const EventDesc& e : s.events) events.push_back({{"name", e.name}, {"device", e.device}});
  for (const BufferDesc& b : s.buffers) {
    Json j{{"name", b.name}, {"kind", ToString(b.kind)}, {"device", b.device}, {"bytes", b.bytes}};
    if (b.alias_of >= 0) j["alias_of"] = s.buffers[b.alias_of].name;
    if (b.checked) j["checked"] = true;
    buffers.push_back(j);
  }
  for (const Op& op : s.ops) ops.push_back(OpToJson(s, op));
  Json out{{"kind", kKind},
              {"schema", Scenario::kSchemaVersion},
              {"name", s.name},
              {"recorded", s.recorded},
              {"device_count", s.device_count},
              {"settings",
               {{"max_connections", s.settings.max_connections},
                {"lazy_loading", s.settings.lazy_loading},
                {"launch_blocking", s.settings.launch_blocking},
                {"warmup", s.settings.warmup},
                {"known", s.settings.known},
                {"env", s.settings.env}}},
              {"streams", streams},
              {"events", events},
              {"buffers", buffers},
              {"ops", ops}};
  if (!s.processes.empty()) {
    out["processes"] = s.processes;
    out["thread_process"] = s.thread_process;
  }
  return out;
}

namespace {

// "processes": ["rank 0 (pid 4242)", ...] and "thread_process": [0, 0, 1, ...].
void ProcessesFromJson(const JsonReader& root, Scenario& s) {
  if (!root.Has("processes")) return;
  const Json& names = root.value().at("processes");
  if (!names.is_array() || names.size() > 64) root.FailAt("processes", "expected up to 64 names");
  for (const Json& n : names) {
    if (!n.is_string()) root.FailAt("processes", "expected names");
    s.processes.push_back(n.get<std::string>());
  }
  if (!root.Has("thread_process")) root.FailAt("thread_process", "missing (which process each host thread is in)");
  const Json& threads = root.value().at("thread_process");
  if (!threads.is_array() || threads.size() > 64) root.FailAt("thread_process", "expected up to 64 process indices");
  for (const Json& t : threads) {
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= static_cast<int64_t>(s.processes.size()))
      root.FailAt("thread_process", "expected indices into processes");
    s.thread_process.push_back(static_cast<int>(t.get<int64_t>()));
  }
}

// JSON files people open by mistake, named, so that the error says what to open instead.
void RejectOtherJson(const Json& json, const std::string& source) {
  auto schema = json.find("schema");
  if (json.contains("nodes") && schema != json.end() && schema->is_string())
    throw InputError(source + ": this is a PyTorch execution trace (ExecutionTraceObserver): it lists ops without "
                              "GPU times; open a torch.profiler trace (prof.export_chrome_trace) instead");
  if (!json.contains("kind") && schema == json.end())
    throw InputError(source + ": not a StreamLab scenario, trace or recording, nor a torch.profiler trace "
                              "(no \"kind\", \"schema\" or \"traceEvents\")");
}

}  // namespace

Scenario ScenarioFromJsonAndOps(const Json& json, const std::string& source, const ScenarioOpSource& ops) {
  if (!json.is_object()) throw InputError(source + ": expected a JSON object at the top level");
  RejectOtherJson(json, source);
  JsonReader root(json, source, "");
  std::string kind = root.String("kind", kKind);
  if (kind != kKind) root.FailAt("kind", "expected \"" + std::string(kKind) + "\", got \"" + kind + "\"");
  int64_t schema = root.Int("schema");
  if (schema != Scenario::kSchemaVersion)
    root.FailAt("schema", "version " + std::to_string(schema) + " is not supported (this build reads " +
                              std::to_string(Scenario::kSchemaVersion) + ")");
  Scenario s;
  s.name = root.String("name", "scenario");
  s.recorded = root.Bool("recorded", false);
  s.device_count = ToInt(root, "device_count", root.Int("device_count", 1), 1, 16);
  if (root.Has("settings")) {
    JsonReader st = root.Object("settings");
    s.settings.max_connections =
        ToInt(st, "max_connections", st.Int("max_connections", 8), 1, 32);
    s.settings.lazy_loading = st.Bool("lazy_loading", true);
    s.settings.launch_blocking = st.Bool("launch_blocking", false);
    s.settings.warmup = st.Bool("warmup", true);
    // A recording converted before the recorder kept the environment says nothing about it.
    s.settings.known = st.Bool("known", !s.recorded);
    if (st.Has("env") && st.value().at("env").is_object())
      for (const auto& [name, value] : st.value().at("env").items())
        if (value.is_string()) s.settings.env[name] = value.get<std::string>().substr(0, 256);
  } else {
    s.settings.known = !s.recorded;
  }
  NameTable streams, events, buffers;
  for (const JsonReader& r : root.Array("streams")) {
    StreamDesc d;
    d.name = r.String("name");
    std::string k = r.String("kind", "created");
    if (!FromString(k, &d.kind)) r.FailAt("kind", "unknown stream kind \"" + k + "\"");
    d.device = ToInt(r, "device", r.Int("device", 0), 0, s.device_count - 1);
    d.non_blocking = r.Bool("non_blocking", false);
    d.priority = ToInt(r, "priority", r.Int("priority", 0), -5, 0);
    d.library = r.Bool("library", false);
    d.thread = ToInt(r, "thread", r.Int("thread", 0), 0, 63);
    d.process = ToInt(r, "process", r.Int("process", 0), 0, 63);
    streams.Add(r, d.name, static_cast<int>(s.streams.size()));
    s.streams.push_back(d);
  }
  for (const JsonReader& r : root.Array("events")) {
    EventDesc e{r.String("name"), ToInt(r, "device", r.Int("device", 0), 0, s.device_count - 1)};
    events.Add(r, e.name, static_cast<int>(s.events.size()));
    s.events.push_back(e);
  }
  for (const JsonReader& r : root.Array("buffers")) {
    BufferDesc b;
    b.name = r.String("name");
    std::string k = r.String("kind", "device");
    if (!FromString(k, &b.kind)) r.FailAt("kind", "unknown memory kind \"" + k + "\"");
    b.device = ToInt(r, "device", r.Int("device", 0), 0, s.device_count - 1);
    int64_t bytes = r.Int("bytes");
    if (bytes <= 0 || bytes > (int64_t{8} << 30)) r.FailAt("bytes", "must be 1..8 GiB");
    b.bytes = static_cast<uint64_t>(bytes);
    b.alias_of = buffers.FindOptional(r, "alias_of", "buffer");
    b.checked = r.Bool("checked", false);
    buffers.Add(r, b.name, static_cast<int>(s.buffers.size()));
    s.buffers.push_back(b);
  }
  ops([&](const JsonReader& r) {
    if (s.ops.size() >= kMaxScenarioOps) root.FailAt("ops", "more than " + std::to_string(kMaxScenarioOps) + " ops");
    Op op;
    std::string k = r.String("op");
    if (!FromString(k, &op.kind)) r.FailAt("op", "unknown op \"" + k + "\"");
    op.name = r.String("name", "");
    op.stream = streams.FindOptional(r, "stream", "stream");
    op.event = events.FindOptional(r, "event", "event");
    op.other_stream = streams.FindOptional(r, "other_stream", "stream");
    op.buffer = buffers.FindOptional(r, "buffer", "buffer");
    op.src = buffers.FindOptional(r, "src", "buffer");
    op.dst = buffers.FindOptional(r, "dst", "buffer");
    int64_t bytes = r.Int("bytes", 0);
    if (bytes < 0) r.FailAt("bytes", "must be >= 0");
    op.bytes = static_cast<uint64_t>(bytes);
    op.value = ToInt(r, "value", r.Int("value", 0), 0, 255);
    op.async = r.Bool("async", true);
    op.duration = r.Int("duration_ns", 0);
    op.host_floor = r.Int("host_floor_ns", 0);
    if (op.host_floor < 0) r.FailAt("host_floor_ns", "must be >= 0");
    op.woken_by = ToInt(r, "woken_by", r.Int("woken_by", -1), -1, static_cast<int64_t>(kMaxScenarioOps));
    op.woken_delay = r.Int("woken_delay_ns", 0);
    op.host_after = r.Int("host_after_ns", 0);
    if (op.host_after < 0) r.FailAt("host_after_ns", "must be >= 0");
    if (op.woken_delay < 0) r.FailAt("woken_delay_ns", "must be >= 0");
    op.device = ToInt(r, "device", r.Int("device", -1), -1, 15);
    if (op.kind == OpKind::kKernel) op.kernel = KernelFromJson(r.Object("kernel"), buffers);
    op.thread = ToInt(r, "thread", r.Int("thread", 0), 0, 63);
    op.graph = ToInt(r, "graph", r.Int("graph", -1), -1, static_cast<int64_t>(kMaxScenarioOps));
    for (int64_t before : r.Ints("graph_after", 0, static_cast<int64_t>(kMaxScenarioOps)))
      op.graph_after.push_back(static_cast<int>(before));
    if (op.kind == OpKind::kCollective) {
      std::string c = r.String("collective", "all_reduce");
      if (!FromString(c, &op.collective)) r.FailAt("collective", "unknown collective \"" + c + "\"");
    }
    op.collective_first = ToInt(r, "collective_first", r.Int("collective_first", -1), -1, static_cast<int64_t>(kMaxScenarioOps));
    op.query_ready = r.Bool("ready", false);
    op.addresses = AddressesFromJson(r, op.kind);
    s.ops.push_back(std::move(op));
  });
  ProcessesFromJson(root, s);
  try {
    ValidateScenario(s);
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  return s;
}

Scenario ScenarioFromJson(const Json& json, const std::string& source) {
  return ScenarioFromJsonAndOps(json, source, [&](const std::function<void(const JsonReader&)>& each) {
    for (const JsonReader& r : JsonReader(json, source, "").Array("ops")) each(r);
  });
}

Scenario LoadScenarioFile(const std::string& path) {
  return ScenarioFromJson(ParseJson(ReadTextFile(path), path), path);
}

void SaveJsonFile(const Json& json, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write file");
  out << DumpJson(json, 1) << "\n";
  if (!out) throw InputError(path + ": write failed");
}

}  // namespace streamlab
