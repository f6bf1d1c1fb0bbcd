// The account's names (account.h): one table per enum, so that the JSON, the texts and the
// corpus's expectations (tests/corpus/README.md) read the same words.
#include "engine/account/account.h"

namespace streamlab {
namespace {

constexpr const char* kCategoryNames[kTimeCategoryCount] = {
    "gpu_compute", "gpu_copy", "communication", "rank_wait", "gpu_queued",
    "gpu_latency", "launch", "cuda_call", "host_work", "unknown", "recording"};

struct KindRow {
  const char* name;
  TimeCategory category;
};
constexpr KindRow kKinds[kTimeKindCount] = {
    {"kernels", TimeCategory::kGpuCompute},      {"small_grid", TimeCategory::kGpuCompute},
    {"h2d", TimeCategory::kGpuCopy},             {"d2h", TimeCategory::kGpuCopy},
    {"d2d", TimeCategory::kGpuCopy},             {"peer", TimeCategory::kGpuCopy},
    {"collective", TimeCategory::kCommunication}, {"rank_wait", TimeCategory::kRankWait},
    {"hardware_queue", TimeCategory::kGpuQueued}, {"copy_engine", TimeCategory::kGpuQueued},
    {"queued_module_load", TimeCategory::kGpuQueued}, {"priority", TimeCategory::kGpuQueued},
    {"latency", TimeCategory::kGpuLatency},      {"launch", TimeCategory::kLaunch},
    {"sync", TimeCategory::kCudaCall},           {"blocking_launch", TimeCategory::kCudaCall},
    {"pageable_copy", TimeCategory::kCudaCall},  {"allocation", TimeCategory::kCudaCall},
    {"free", TimeCategory::kCudaCall},           {"graph_build", TimeCategory::kCudaCall},
    {"module_load", TimeCategory::kCudaCall},    {"context", TimeCategory::kCudaCall},
    {"other", TimeCategory::kCudaCall},          {"host_work", TimeCategory::kHostWork},
    {"data_loading", TimeCategory::kHostWork},   {"unknown", TimeCategory::kUnknown},
    {"recorder", TimeCategory::kRecording},
};

}  // namespace

const char* ToString(TimeCategory c) { return kCategoryNames[static_cast<int>(c)]; }
const char* ToString(TimeKind k) { return kKinds[static_cast<int>(k)].name; }
TimeCategory CategoryOf(TimeKind k) { return kKinds[static_cast<int>(k)].category; }

bool FromString(const std::string& text, TimeCategory* out) {
  for (int c = 0; c < kTimeCategoryCount; ++c)
    if (text == kCategoryNames[c]) return *out = static_cast<TimeCategory>(c), true;
  return false;
}

bool FromString(const std::string& text, TimeKind* out) {
  for (int k = 0; k < kTimeKindCount; ++k)
    if (text == kKinds[k].name) return *out = static_cast<TimeKind>(k), true;
  return false;
}

}  // namespace streamlab
