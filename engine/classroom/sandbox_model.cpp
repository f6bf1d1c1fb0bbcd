// The sandbox's edits. Each builds the next scenario, validates it, and keeps it only if
// it is valid (engine/scenario/scenario.h's ValidateScenario gives the reason otherwise).
#include "engine/classroom/sandbox_model.h"

#include <sstream>
#include <utility>

#include "engine/util/errors.h"
#include "engine/scenario/scenario_json.h"

namespace streamlab {

SandboxModel::SandboxModel() { Clear(); }

void SandboxModel::Clear() {
  scenario_ = Scenario{};
  scenario_.name = "sandbox";
  refusal_.clear();
}

bool SandboxModel::Refuse(const std::string& reason) {
  refusal_ = reason;
  return false;
}

bool SandboxModel::Commit(Scenario next, bool edit) {
  if (edit) next.torch_source.clear();
  try {
    ValidateScenario(next);
  } catch (const InputError& e) {
    return Refuse(e.what());
  }
  scenario_ = std::move(next);
  refusal_.clear();
  return true;
}

bool SandboxModel::AddStream(const std::string& name, bool non_blocking, int priority) {
  if (name.empty()) return Refuse("a stream needs a name");
  if (StreamNamed(name) >= 0) return Refuse("there is already a stream named " + name);
  Scenario next = scenario_;
  StreamDesc d;
  d.name = name;
  d.non_blocking = non_blocking;
  d.priority = priority;
  next.streams.push_back(d);
  return Commit(std::move(next));
}

bool SandboxModel::AddEvent(const std::string& name) {
  if (name.empty()) return Refuse("an event needs a name");
  if (EventNamed(name) >= 0) return Refuse("there is already an event named " + name);
  Scenario next = scenario_;
  next.events.push_back({name, 0});
  return Commit(std::move(next));
}

namespace {
Op StreamOp(OpKind kind, int stream) {
  Op op;
  op.kind = kind;
  op.stream = stream;
  return op;
}
}  // namespace

bool SandboxModel::AddKernel(int stream, const std::string& name, double us, int grid) {
  if (us <= 0) return Refuse("a kernel needs a duration above 0 us");
  Op op = StreamOp(OpKind::kKernel, stream);
  op.name = name;
  op.kernel.grid = grid;
  op.kernel.block = 128;
  op.kernel.work = static_cast<int64_t>(us * 1000);
  return AddOp(op);
}

bool SandboxModel::AddCopy(int stream, const std::string& name, double megabytes, bool pinned) {
  if (megabytes <= 0) return Refuse("a copy needs a size above 0 MB");
  Scenario next = scenario_;
  uint64_t bytes = static_cast<uint64_t>(megabytes * (1 << 20));
  int src = static_cast<int>(next.buffers.size());
  BufferDesc host;
  host.name = name + "_host";
  host.kind = pinned ? MemoryKind::kPinnedHost : MemoryKind::kPageableHost;
  host.bytes = bytes;
  BufferDesc dev;
  dev.name = name + "_dev";
  dev.bytes = bytes;
  next.buffers.push_back(host);
  next.buffers.push_back(dev);
  Op op = StreamOp(OpKind::kMemcpy, stream);
  op.name = name;
  op.src = src;
  op.dst = src + 1;
  op.bytes = bytes;
  next.ops.push_back(op);
  return Commit(std::move(next));
}

bool SandboxModel::AddOp(Op op) {
  Scenario next = scenario_;
  next.ops.push_back(std::move(op));
  return Commit(std::move(next));
}

bool SandboxModel::AddRecord(int stream, int event) {
  Op op = StreamOp(OpKind::kRecord, stream);
  op.event = event;
  return AddOp(op);
}

bool SandboxModel::AddWaitEvent(int stream, int event) {
  Op op = StreamOp(OpKind::kWaitEvent, stream);
  op.event = event;
  return AddOp(op);
}

bool SandboxModel::AddWaitStream(int stream, int other) {
  if (stream == other) return Refuse("a stream cannot wait for itself");
  Op op = StreamOp(OpKind::kWaitStream, stream);
  op.other_stream = other;
  return AddOp(op);
}

bool SandboxModel::AddSyncDevice() { return AddOp(StreamOp(OpKind::kSyncDevice, -1)); }

bool SandboxModel::AddSyncStream(int stream) { return AddOp(StreamOp(OpKind::kSyncStream, stream)); }

bool SandboxModel::AddHostWork(double us) {
  Op op = StreamOp(OpKind::kHostWork, -1);
  op.name = "host_work";
  op.duration = static_cast<TimeNs>(us * 1000);
  return AddOp(op);
}

bool SandboxModel::SetStream(int stream, bool non_blocking, int priority) {
  if (stream < 0 || stream >= static_cast<int>(scenario_.streams.size())) return Refuse("no such stream");
  Scenario next = scenario_;
  next.streams[stream].non_blocking = non_blocking;
  next.streams[stream].priority = priority;
  return Commit(std::move(next));
}

bool SandboxModel::RemoveStream(int stream) {
  if (stream < 0 || stream >= static_cast<int>(scenario_.streams.size())) return Refuse("no such stream");
  for (const Op& op : scenario_.ops)
    if (op.stream == stream || op.other_stream == stream)
      return Refuse("stream " + scenario_.streams[stream].name + " is still used; remove its ops first");
  Scenario next = scenario_;
  next.streams.erase(next.streams.begin() + stream);
  for (Op& op : next.ops) {
    if (op.stream > stream) --op.stream;
    if (op.other_stream > stream) --op.other_stream;
  }
  return Commit(std::move(next));
}

bool SandboxModel::SetKernel(int op, double us, int grid) {
  if (op < 0 || op >= static_cast<int>(scenario_.ops.size())) return Refuse("no such op");
  if (scenario_.ops[op].kind != OpKind::kKernel) return Refuse("op " + std::to_string(op) + " is not a kernel");
  if (scenario_.ops[op].kernel.kind != KernelKind::kSpin) return Refuse("only a spin kernel's time can be set");
  if (us <= 0) return Refuse("a kernel needs a duration above 0 us");
  Scenario next = scenario_;
  next.ops[op].kernel.work = static_cast<int64_t>(us * 1000);
  if (grid > 0) next.ops[op].kernel.grid = grid;
  return Commit(std::move(next));
}

bool SandboxModel::DuplicateOp(int op, const std::string& name) {
  if (op < 0 || op >= static_cast<int>(scenario_.ops.size())) return Refuse("no such op");
  Op copy = scenario_.ops[op];
  if (copy.graph >= 0 || copy.kind == OpKind::kGraphLaunch) return Refuse("a graph's ops cannot be duplicated");
  if (!name.empty()) copy.name = name;
  return AddOp(copy);
}

bool SandboxModel::MoveOp(int op, int delta) {
  int to = op + delta;
  int n = static_cast<int>(scenario_.ops.size());
  if (op < 0 || op >= n || to < 0 || to >= n) return Refuse("cannot move that op further");
  Scenario next = scenario_;
  Op moved = next.ops[op];
  next.ops.erase(next.ops.begin() + op);
  next.ops.insert(next.ops.begin() + to, std::move(moved));
  return Commit(std::move(next));
}

bool SandboxModel::RemoveOp(int op) {
  if (op < 0 || op >= static_cast<int>(scenario_.ops.size())) return Refuse("no such op");
  Scenario next = scenario_;
  next.ops.erase(next.ops.begin() + op);
  return Commit(std::move(next));
}

bool SandboxModel::Save(const std::string& path) {
  try {
    SaveJsonFile(ScenarioToJson(scenario_), path);
  } catch (const InputError& e) {
    return Refuse(e.what());
  }
  refusal_.clear();
  return true;
}

bool SandboxModel::Load(const std::string& path) {
  try {
    scenario_ = LoadScenarioFile(path);
  } catch (const InputError& e) {
    return Refuse(e.what());
  }
  refusal_.clear();
  return true;
}

int SandboxModel::StreamNamed(const std::string& name) const {
  for (size_t i = 0; i < scenario_.streams.size(); ++i)
    if (scenario_.streams[i].name == name) return static_cast<int>(i);
  return -1;
}

int SandboxModel::OpNamed(const std::string& name) const {
  for (size_t i = 0; i < scenario_.ops.size(); ++i)
    if (scenario_.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

int SandboxModel::EventNamed(const std::string& name) const {
  for (size_t i = 0; i < scenario_.events.size(); ++i)
    if (scenario_.events[i].name == name) return static_cast<int>(i);
  return -1;
}

bool SandboxModel::Apply(const std::string& line) {
  std::istringstream in(line);
  std::string cmd, a, b;
  in >> cmd;
  if (cmd.empty() || cmd[0] == '#') return true;
  auto stream = [&](const std::string& name) {
    int s = StreamNamed(name);
    if (s < 0) refusal_ = "no stream named \"" + name + "\"";
    return s;
  };
  auto event = [&](const std::string& name) {
    int e = EventNamed(name);
    if (e < 0) refusal_ = "no event named \"" + name + "\"";
    return e;
  };
  if (cmd == "stream") {
    std::string flag;
    int priority = 0;
    in >> a >> flag >> priority;
    return AddStream(a, flag == "non_blocking", priority);
  }
  if (cmd == "set_stream") {
    std::string flag;
    int priority = 0;
    in >> a >> flag >> priority;
    int s = stream(a);
    return s >= 0 && SetStream(s, flag == "non_blocking", priority);
  }
  if (cmd == "event") return in >> a, AddEvent(a);
  if (cmd == "kernel") {
    double us = 100;
    int grid = 4;
    in >> a >> b >> us >> grid;
    int s = stream(a);
    return s >= 0 && AddKernel(s, b, us, grid);
  }
  if (cmd == "copy") {
    double mb = 8;
    std::string memory = "pinned";
    in >> a >> b >> mb >> memory;
    int s = stream(a);
    return s >= 0 && AddCopy(s, b, mb, memory != "pageable");
  }
  if (cmd == "record" || cmd == "wait") {
    in >> a >> b;
    int s = stream(a), e = s >= 0 ? event(b) : -1;
    return s >= 0 && e >= 0 && (cmd == "record" ? AddRecord(s, e) : AddWaitEvent(s, e));
  }
  if (cmd == "wait_stream") {
    in >> a >> b;
    int s = stream(a), o = s >= 0 ? stream(b) : -1;
    return s >= 0 && o >= 0 && AddWaitStream(s, o);
  }
  if (cmd == "sync_device") return AddSyncDevice();
  if (cmd == "sync_stream") {
    in >> a;
    int s = stream(a);
    return s >= 0 && AddSyncStream(s);
  }
  if (cmd == "host_work") {
    double us = 0;
    in >> us;
    return AddHostWork(us);
  }
  if (cmd == "set_kernel") {
    double us = 0;
    int grid = 0;
    in >> a >> us >> grid;
    int op = OpNamed(a);
    if (op < 0) return Refuse("no op named \"" + a + "\"");
    return SetKernel(op, us, grid);
  }
  if (cmd == "duplicate") {
    int op = -1;
    in >> op >> a;
    return DuplicateOp(op, a);
  }
  if (cmd == "move") {
    int op = -1, delta = 0;
    in >> op >> delta;
    return MoveOp(op, delta);
  }
  if (cmd == "remove") {
    int op = -1;
    in >> op;
    return RemoveOp(op);
  }
  if (cmd == "save") return in >> a, Save(a);
  if (cmd == "load") return in >> a, Load(a);
  if (cmd == "clear") {
    Clear();
    return true;
  }
  return Refuse("unknown sandbox command \"" + cmd + "\"");
}

}  // namespace streamlab
