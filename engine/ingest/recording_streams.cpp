// See recording_streams.h.
#include "engine/ingest/recording_streams.h"

#include <algorithm>
#include <string>

namespace streamlab {
namespace {

constexpr uint64_t kLegacyHandle = 0x1;     // cudaStreamLegacy
constexpr uint64_t kPerThreadHandle = 0x2;  // cudaStreamPerThread
// Stands for a stream a CUDA graph replay runs a node on that the program never named.
constexpr uint64_t kGraphStreamHandle = ~uint64_t{0};

}  // namespace

RecordedStreams::RecordedStreams(const Recording& recording, Scenario& scenario)
    : r_(recording), s_(scenario), python_threads_(ThreadsWithPythonFrames(recording)) {}

bool RecordedStreams::Special(uint64_t handle) {
  return handle == 0 || handle == kLegacyHandle || handle == kPerThreadHandle;
}

void RecordedStreams::Index(int device_count, int main_device) {
  device_count_ = std::max(device_count, 1);
  main_device_ = main_device;
  for (const RecordedActivity& a : r_.activity) devices_of_id_[a.stream_id].insert(a.device);
  for (const RecordedCall& c : r_.calls) {
    if (c.stream_id < 0) continue;
    if (c.role == CallRole::kStreamCreate) created_[c.stream_id].push_back(&c);
    // A call's context is the device of the stream it names through handle 0, 1 or 2, and of
    // the stream it creates; a stream of another device can be named in any context.
    if (c.device >= 0 && (Special(c.stream) || c.role == CallRole::kStreamCreate))
      devices_of_id_[c.stream_id].insert(c.device);
  }
}

int RecordedStreams::DeviceOfId(int64_t sid) const {
  auto it = devices_of_id_.find(sid);
  if (it == devices_of_id_.end() || it->second.empty()) return -1;
  // Seen on several devices (ids are per context): the busiest device if it is one of them.
  return it->second.count(main_device_) ? main_device_ : *it->second.begin();
}

void RecordedStreams::Follow(const RecordedCall& c, int thread) {
  if (c.device >= 0) device_of_thread_[thread] = c.device;
  if (c.role == CallRole::kSetDevice && c.status == 0 && c.value >= 0) device_of_thread_[thread] = c.value;
}

int RecordedStreams::DeviceOf(int thread, int fallback) const {
  auto it = device_of_thread_.find(thread);
  return it == device_of_thread_.end() ? fallback : std::min(it->second, device_count_ - 1);
}

// Handle 0, 1 or 2 names the current device's stream: the call's context says which, else the
// device the thread last used or set.
int RecordedStreams::HintOf(const RecordedCall& c, int thread) const {
  if (!Special(c.stream)) return -1;
  return c.device >= 0 ? c.device : DeviceOf(thread, -1);
}

int RecordedStreams::OfCall(const RecordedCall& c, int thread) {
  int hint = HintOf(c, thread);
  std::pair<uint64_t, int> handle{c.stream, Special(c.stream) ? hint : -1};
  if (c.stream_id < 0) {
    auto it = stream_of_handle_.find(handle);
    return it == stream_of_handle_.end() ? -1 : it->second;
  }
  return stream_of_handle_[handle] = Stream(c.stream_id, hint, c.stream, c.per_thread, thread);
}

int RecordedStreams::OfWork(const RecordedActivity& a, const RecordedCall& c, int thread) {
  int stream = Stream(a.stream_id, a.device, c.stream, c.per_thread, thread);
  // A replay's node says nothing of the handle its launch named.
  if (c.stream && c.role != CallRole::kGraphLaunch) stream_of_handle_[{c.stream, Special(c.stream) ? a.device : -1}] = stream;
  return stream;
}

int RecordedStreams::OfGraphStream(const RecordedActivity& a, int thread) {
  int stream = Stream(a.stream_id, a.device, kGraphStreamHandle, false, thread);
  s_.streams[stream].non_blocking = true;  // the graph orders its nodes itself
  return stream;
}

int RecordedStreams::Stream(int64_t sid, int device, uint64_t handle, bool per_thread, int thread) {
  if (device < 0 || device >= device_count_) device = DeviceOfId(sid);
  bool legacy = (handle == 0 && !per_thread) || handle == kLegacyHandle;
  // A legacy stream nothing places (it ran no GPU work of its own, and an older log does not say
  // the call's device): the legacy stream of a device that has none yet.
  for (int dev = 0; legacy && device < 0 && dev < device_count_; ++dev)
    if (!legacy_of_device_.count(dev)) device = dev;
  // A stream that ran nothing has no device in the log: take the one the process used most (a
  // torchrun rank's streams are all on its own GPU).
  if (device < 0) device = main_device_;
  device = std::clamp(device, 0, device_count_ - 1);
  Key key{device, sid};
  if (auto it = stream_of_key_.find(key); it != stream_of_key_.end()) return it->second;
  if (legacy) {
    if (auto it = legacy_of_device_.find(device); it != legacy_of_device_.end()) {
      ++joined_legacy_;
      return stream_of_key_[key] = it->second;
    }
  }
  StreamDesc d;
  d.device = device;
  std::string gpu = " (GPU " + std::to_string(device) + ")";
  if (legacy) {
    d.kind = StreamKind::kLegacyDefault;
    d.name = device_count_ > 1 ? "legacy default" + gpu : "legacy default";
  } else if (handle == kPerThreadHandle || handle == 0) {
    d.kind = StreamKind::kPerThreadDefault;
    d.thread = thread;
    d.name = "per-thread default (thread " + std::to_string(thread) + ")";
  } else {
    auto named = r_.stream_names.find(sid);
    auto made = created_.find(sid);
    const RecordedCall* create = nullptr;
    if (made != created_.end())
      for (const RecordedCall* c : made->second)
        if (!create || c->device == device) create = c;
    // A stream CUDA picked to run a graph's nodes on: the program never made it.
    bool graphs_own = handle == kGraphStreamHandle && !create;
    d.name = named != r_.stream_names.end() ? named->second : (graphs_own ? "graph stream " : "stream ") + std::to_string(sid);
    d.non_blocking = r_.default_non_blocking;
    if (create) {
      d.non_blocking = (create->flags & 1) != 0;
      d.priority = std::clamp(create->priority, -5, 0);
      d.library = StreamMadeInsideLibrary(r_, *create, python_threads_);
    }
  }
  // Names are unique: a stream of the same id on another device (ids are per context), or a
  // thread's per-thread stream of a second device, says its device.
  auto taken = [&](const std::string& name) {
    return std::any_of(s_.streams.begin(), s_.streams.end(), [&](const StreamDesc& o) { return o.name == name; });
  };
  if (taken(d.name)) d.name += gpu;
  std::string base = d.name;
  for (int n = 2; taken(d.name); ++n) d.name = base + " #" + std::to_string(n);
  s_.streams.push_back(d);
  int index = static_cast<int>(s_.streams.size()) - 1;
  if (legacy) legacy_of_device_[device] = index;
  return stream_of_key_[key] = index;
}

}  // namespace streamlab
