// Device profile JSON and the simulator's per-block and per-transfer cost model.
#include "engine/sim/device_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/util/assets.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

// One table drives both directions, so a field cannot be saved but not loaded.
template <typename Fn>
void ForEachField(DeviceProfile& p, Fn&& fn) {
  fn("sm_count", p.sm_count);
  fn("max_threads_per_sm", p.max_threads_per_sm);
  fn("max_blocks_per_sm", p.max_blocks_per_sm);
  fn("launch_host_ns", p.launch_host);
  fn("record_host_ns", p.record_host);
  fn("wait_host_ns", p.wait_host);
  fn("query_host_ns", p.query_host);
  fn("sync_wake_ns", p.sync_wake);
  fn("memset_host_ns", p.memset_host);
  fn("malloc_base_ns", p.malloc_base);
  fn("malloc_per_mb_ns", p.malloc_per_mb);
  fn("free_host_ns", p.free_host);
  fn("malloc_host_base_ns", p.malloc_host_base);
  fn("malloc_host_per_mb_ns", p.malloc_host_per_mb);
  fn("malloc_host_syncs_device", p.malloc_host_syncs_device);
  fn("set_device_host_ns", p.set_device_host);
  fn("thread_spawn_ns", p.thread_spawn);
  fn("module_load_ns", p.module_load);
  fn("module_load_host_ns", p.module_load_host);
  fn("graph_launch_host_ns", p.graph_launch_host);
  fn("graph_node_host_ns", p.graph_node_host);
  fn("submit_latency_ns", p.submit_latency);
  fn("same_stream_gap_ns", p.same_stream_gap);
  fn("cross_stream_gap_ns", p.cross_stream_gap);
  fn("graph_node_gap_ns", p.graph_node_gap);
  fn("graph_launch_gap_ns", p.graph_launch_gap);
  fn("replay_stream_gap_ns", p.replay_stream_gap);
  fn("replay_graph_node_gap_ns", p.replay_graph_node_gap);
  fn("replay_graph_node_gap_fast_ns", p.replay_graph_node_gap_fast);
  fn("recorded_kernel_gpu_cost_ns", p.recorded_kernel_gpu_cost);
  fn("h2d_pinned_gbps", p.h2d_pinned_gbps);
  fn("d2h_pinned_gbps", p.d2h_pinned_gbps);
  fn("pageable_gbps", p.pageable_gbps);
  fn("pageable_d2h_gbps", p.pageable_d2h_gbps);
  fn("d2d_gbps", p.d2d_gbps);
  fn("peer_gbps", p.peer_gbps);
  fn("memset_gbps", p.memset_gbps);
  fn("nccl_bus_gbps", p.nccl_bus_gbps);
  fn("nccl_fixed_ns", p.nccl_fixed);
  fn("nccl_step_ns", p.nccl_step);
  fn("nccl_channels", p.nccl_channels);
  fn("nccl_threads", p.nccl_threads);
  fn("nccl_launch_host_ns", p.nccl_launch_host);
  fn("nccl_group_host_ns", p.nccl_group_host);
  fn("copy_fixed_ns", p.copy_fixed);
  fn("compute_ns_per_fma", p.compute_ns_per_fma);
  fn("sm_memory_gbps", p.sm_memory_gbps);
  fn("atomic_ns", p.atomic_ns);
  fn("shared_ns_per_iter", p.shared_ns_per_iter);
  fn("priority_greatest", p.priority_greatest);
  fn("priority_least", p.priority_least);
}

// "ranges": {"launch_host_ns": [4864, 7782], ...}: each a known numeric figure, low <= the
// point figure's neighbourhood is not required (the point is one start's), low <= high.
void ReadRanges(const Json& json, JsonReader& r, DeviceProfile& p) {
  if (!r.Has("ranges")) return;
  const Json& ranges = json.at("ranges");
  if (!ranges.is_object()) r.FailAt("ranges", "expected an object of [low, high] pairs");
  for (const auto& [key, pair] : ranges.items()) {
    double point = 0;
    if (!ProfileFigure(p, key, &point)) r.FailAt("ranges", "no numeric figure \"" + key + "\"");
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
      r.FailAt("ranges", key + ": expected [low, high]");
    FigureRange range{key, pair[0].get<double>(), pair[1].get<double>()};
    if (!(range.low >= 0) || !(range.high >= range.low) || !std::isfinite(range.high))
      r.FailAt("ranges", key + ": expected 0 <= low <= high");
    p.ranges.push_back(range);
  }
  p.ranges_from = r.String("ranges_from", "");
}

}  // namespace

Json ProfileToJson(const DeviceProfile& profile) {
  DeviceProfile copy = profile;
  Json j{{"kind", "streamlab.profile"}, {"schema", 1}, {"name", profile.name}};
  if (!profile.device.empty()) j["device"] = profile.device;
  if (!profile.driver.empty()) j["driver"] = profile.driver;
  if (!profile.calibrated_at.empty()) j["calibrated_at"] = profile.calibrated_at;
  ForEachField(copy, [&](const char* key, auto& field) { j[key] = field; });
  if (!profile.ranges.empty()) {
    Json ranges = Json::object();
    for (const FigureRange& r : profile.ranges) ranges[r.field] = Json::array({r.low, r.high});
    j["ranges"] = ranges;
    j["ranges_from"] = profile.ranges_from;
  }
  return j;
}

bool ProfileFigure(const DeviceProfile& profile, const std::string& key, double* value) {
  DeviceProfile copy = profile;
  bool found = false;
  ForEachField(copy, [&](const char* name, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (!std::is_same_v<T, bool>)
      if (key == name) {
        *value = static_cast<double>(field);
        found = true;
      }
  });
  return found;
}

bool SetProfileFigure(DeviceProfile& profile, const std::string& key, double value) {
  bool found = false;
  ForEachField(profile, [&](const char* name, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (!std::is_same_v<T, bool>)
      if (key == name) {
        field = std::is_floating_point_v<T> ? static_cast<T>(value) : static_cast<T>(std::llround(value));
        found = true;
      }
  });
  return found;
}

DeviceProfile ProfileFromJson(const Json& json, const std::string& source) {
  if (!json.is_object()) throw InputError(source + ": expected a JSON object");
  JsonReader r(json, source, "");
  if (r.String("kind", "streamlab.profile") != "streamlab.profile")
    r.FailAt("kind", "expected \"streamlab.profile\"");
  if (r.Int("schema", 1) != 1) r.FailAt("schema", "only schema 1 is supported");
  DeviceProfile p;
  p.name = r.String("name", p.name);
  p.device = r.String("device", "");
  p.driver = r.String("driver", "");
  p.calibrated_at = r.String("calibrated_at", "");
  ForEachField(p, [&](const char* key, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if (!r.Has(key)) return;
    if constexpr (std::is_same_v<T, bool>) {
      field = r.Bool(key, field);
    } else if constexpr (std::is_same_v<T, double>) {
      double v = r.Number(key, field);
      if (!(v > 0) || !std::isfinite(v) || v > 1e7) r.FailAt(key, "must be a positive number");
      field = v;
    } else {
      int64_t v = r.Int(key);
      bool priority = std::string(key).rfind("priority", 0) == 0;
      if (v < (priority ? -1000 : 0) || v > int64_t{10'000'000'000}) r.FailAt(key, "out of range");
      field = static_cast<T>(v);
    }
  });
  if (p.sm_count < 1 || p.sm_count > 1024) r.FailAt("sm_count", "must be 1..1024");
  if (p.max_threads_per_sm < 32 || p.max_threads_per_sm > 4096)
    r.FailAt("max_threads_per_sm", "must be 32..4096");
  if (p.max_blocks_per_sm < 1 || p.max_blocks_per_sm > 64)
    r.FailAt("max_blocks_per_sm", "must be 1..64");
  // A collective's blocks must fit, or the simulated rendezvous could never complete.
  if (p.nccl_channels < 1 || p.nccl_channels > p.sm_count) r.FailAt("nccl_channels", "must be 1..sm_count");
  if (p.nccl_threads < 32 || p.nccl_threads > p.max_threads_per_sm)
    r.FailAt("nccl_threads", "must be 32..max_threads_per_sm");
  if (p.priority_greatest > p.priority_least) r.FailAt("priority_greatest", "must not exceed priority_least");
  ReadRanges(json, r, p);
  return p;
}

DeviceProfile LoadProfileFile(const std::string& path) {
  return ProfileFromJson(ParseJson(ReadTextFile(path), path), path);
}

std::vector<std::string> ShippedProfiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(AssetsDir() + "/profiles", ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

DeviceProfile ResolveProfile(const std::string& name_or_path) {
  if (name_or_path.empty()) return DeviceProfile{};
  if (std::filesystem::exists(name_or_path)) return LoadProfileFile(name_or_path);
  std::string shipped = AssetsDir() + "/profiles/" + name_or_path + ".json";
  if (name_or_path.find('/') == std::string::npos && std::filesystem::exists(shipped)) return LoadProfileFile(shipped);
  std::string names;
  for (const std::string& n : ShippedProfiles()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("no profile \"" + name_or_path + "\": give a profile file or one of: " + names);
}

TimeNs CollectiveDuration(const DeviceProfile& p, CollectiveKind kind, uint64_t bytes, int ranks) {
  double wire = static_cast<double>(bytes) * CollectiveBusFactor(kind, ranks) / p.nccl_bus_gbps;  // GB/s = bytes/ns
  return p.nccl_fixed + CollectiveSteps(kind, ranks) * p.nccl_step + static_cast<TimeNs>(wire);
}

TimeNs BlockDuration(const DeviceProfile& p, const KernelSpec& k) {
  double ns = 0;
  switch (k.kind) {
    case KernelKind::kSpin: ns = static_cast<double>(k.work); break;
    case KernelKind::kCompute: ns = static_cast<double>(k.work) * p.compute_ns_per_fma; break;
    case KernelKind::kMemory: ns = static_cast<double>(k.work) / p.sm_memory_gbps; break;
    case KernelKind::kAtomic: ns = static_cast<double>(k.work) * p.atomic_ns; break;
    case KernelKind::kSharedMemory: ns = static_cast<double>(k.work) * p.shared_ns_per_iter; break;
    case KernelKind::kForeign:
      // As measured, however short: a recorded program's elementwise kernels often run under
      // 1 us, and raising them to the model's floor lengthened a replayed CUDA graph of 240 of
      // them by 32 us (14 %).
      return std::max<TimeNs>(1, static_cast<TimeNs>(k.work));
  }
  return std::max<TimeNs>(Us(1), static_cast<TimeNs>(ns));  // the model kernels' shortest run
}

TimeNs TransferDuration(const DeviceProfile& p, uint64_t bytes, double gbps) {
  return p.copy_fixed + static_cast<TimeNs>(static_cast<double>(bytes) / gbps);
}

}  // namespace streamlab
