// The recorder's table of device allocations and its reading of kernel arguments (see
// launch_memory.h). Both run inside the program's launch calls, so the common case takes no
// lock but a shared one and touches no memory it has not touched before.
#include "kernels/recorder/launch_memory.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace streamlab::recorder {
namespace {

// [SECTION] device allocations -------------------------------------------------------------

std::shared_mutex g_allocations_mutex;
std::vector<std::pair<uint64_t, uint64_t>> g_allocations;  // [base, end), sorted by base
// The span of every allocation: most argument words (sizes, strides, flags) lie outside it
// and are ruled out without the lock.
std::atomic<uint64_t> g_lowest{UINT64_MAX}, g_highest{0};

bool InAllocationLocked(uint64_t word) {
  auto it = std::upper_bound(g_allocations.begin(), g_allocations.end(), word,
                             [](uint64_t w, const std::pair<uint64_t, uint64_t>& a) { return w < a.first; });
  return it != g_allocations.begin() && word < std::prev(it)->second;
}

// [SECTION] parameter sizes ----------------------------------------------------------------

using ParamInfoFn = CUresult (*)(void* handle, size_t index, size_t* offset, size_t* size);
ParamInfoFn g_function_param_info = nullptr;  // cuFuncGetParamInfo
ParamInfoFn g_kernel_param_info = nullptr;    // cuKernelGetParamInfo (a CUkernel launched as a CUfunction)
thread_local bool t_in_recorder_call = false;

// Parameters past this many, and bytes past this many per launch, are not read: a launch's
// pointers come first in practice (PyTorch's data pointers, cuBLAS's matrices), and the
// recorder must not spend long on a launch with a huge argument block.
constexpr int kMaxParams = 64;
constexpr size_t kMaxScannedBytes = 4096;

struct Layout {
  int count = 0;  // parameters whose sizes are known (0: none, the launch is not read)
  uint16_t size[kMaxParams] = {};
  uint16_t offset[kMaxParams] = {};  // in the argument block
};

std::mutex g_layouts_mutex;
std::unordered_map<uint64_t, std::unique_ptr<Layout>> g_layouts;
// Each thread remembers the layouts it used last, so a launch of a known kernel takes no lock.
struct CachedLayout {
  uint64_t function = 0;
  const Layout* layout = nullptr;
};
thread_local CachedLayout t_layouts[64];

int QueryLayout(ParamInfoFn query, CUfunction function, Layout& out) {
  if (!query) return 0;
  t_in_recorder_call = true;
  int count = 0;
  for (; count < kMaxParams; ++count) {
    size_t offset = 0, size = 0;
    if (query(reinterpret_cast<void*>(function), static_cast<size_t>(count), &offset, &size) != CUDA_SUCCESS) break;
    out.size[count] = static_cast<uint16_t>(std::min<size_t>(size, UINT16_MAX));
    out.offset[count] = static_cast<uint16_t>(std::min<size_t>(offset, UINT16_MAX));
  }
  t_in_recorder_call = false;
  return count;
}

const Layout* LayoutOf(CUfunction function) {
  uint64_t key = reinterpret_cast<uint64_t>(function);
  CachedLayout& slot = t_layouts[(key >> 4) & 63];
  if (slot.function == key && slot.layout) return slot.layout;
  std::lock_guard<std::mutex> lock(g_layouts_mutex);
  std::unique_ptr<Layout>& entry = g_layouts[key];
  if (!entry) {
    entry = std::make_unique<Layout>();
    entry->count = QueryLayout(g_function_param_info, function, *entry);
    // A kernel with no parameters reads nothing either way; a CUkernel handle fails the
    // function query at once and answers the kernel one.
    if (entry->count == 0) entry->count = QueryLayout(g_kernel_param_info, function, *entry);
  }
  slot = {key, entry.get()};
  return entry.get();
}

// [SECTION] reading a launch's words -------------------------------------------------------

// Repeats are dropped as they come among the first kSeekRepeats (most launches hand a few
// pointers); past them a word is only appended, and Deduplicate sorts once at the end, so a
// foreach kernel's 150 pointers cost no quadratic search. Each address keeps its first offset,
// and the kept ones go back into the order of their offsets.
constexpr int kSeekRepeats = 16;

void Deduplicate(LaunchAddresses& out) {
  if (out.count <= kSeekRepeats) return;
  std::pair<uint64_t, uint16_t> kept[kMaxLaunchAddresses];
  for (int i = 0; i < out.count; ++i) kept[i] = {out.at[i], out.offset[i]};
  std::sort(kept, kept + out.count);  // by address, then offset: the first of each is its first place
  int n = static_cast<int>(std::unique(kept, kept + out.count, [](const auto& a, const auto& b) { return a.first == b.first; }) - kept);
  std::sort(kept, kept + n, [](const auto& a, const auto& b) { return a.second < b.second; });
  for (int i = 0; i < n; ++i) {
    out.at[i] = kept[i].first;
    out.offset[i] = kept[i].second;
  }
  out.count = n;
}

void Keep(uint64_t word, size_t offset, LaunchAddresses& out) {
  for (int i = 0; i < std::min(out.count, kSeekRepeats); ++i)
    if (out.at[i] == word) return;
  if (out.count == kMaxLaunchAddresses) Deduplicate(out);  // full of repeats, perhaps
  if (out.count == kMaxLaunchAddresses) {
    out.more = true;
    return;
  }
  out.offset[out.count] = static_cast<uint16_t>(std::min<size_t>(offset, UINT16_MAX));
  out.at[out.count++] = word;
}

// Every 8-byte word of `bytes` that points into a device allocation (the caller holds the
// table's lock). Pointers inside a parameter (a struct of data pointers, as PyTorch's
// elementwise kernels take) are 8-byte aligned within it.
// `base`: where `bytes` lie in the launch's argument block.
void ScanLocked(const unsigned char* bytes, size_t size, size_t base, uint64_t lowest, uint64_t highest, LaunchAddresses& out) {
  for (size_t at = 0; at + 8 <= size; at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + at, 8);
    if (word < lowest || word >= highest) continue;
    if (InAllocationLocked(word)) Keep(word, base + at, out);
  }
}

}  // namespace

bool StartLaunchMemory() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!driver) return false;
  g_function_param_info = reinterpret_cast<ParamInfoFn>(dlsym(driver, "cuFuncGetParamInfo"));
  g_kernel_param_info = reinterpret_cast<ParamInfoFn>(dlsym(driver, "cuKernelGetParamInfo"));
  return g_function_param_info || g_kernel_param_info;
}

void AddAllocation(uint64_t base, uint64_t bytes) {
  if (!base || !bytes || base + bytes < base) return;
  std::unique_lock<std::shared_mutex> lock(g_allocations_mutex);
  uint64_t end = base + bytes;
  // A range still in the table that the new one overlaps was freed unseen (before a capture
  // range, or by a call the recorder does not follow): the new allocation replaces it.
  std::erase_if(g_allocations, [&](const std::pair<uint64_t, uint64_t>& a) { return a.first < end && base < a.second; });
  g_allocations.insert(std::upper_bound(g_allocations.begin(), g_allocations.end(), std::make_pair(base, end)),
                       {base, end});
  g_lowest.store(g_allocations.front().first, std::memory_order_relaxed);
  uint64_t highest = 0;
  for (const auto& a : g_allocations) highest = std::max(highest, a.second);
  g_highest.store(highest, std::memory_order_relaxed);
}

void RemoveAllocation(uint64_t base) {
  std::unique_lock<std::shared_mutex> lock(g_allocations_mutex);
  std::erase_if(g_allocations, [&](const std::pair<uint64_t, uint64_t>& a) { return a.first == base; });
}

void RemoveRange(uint64_t base, uint64_t bytes) {
  if (!bytes || base + bytes < base) return;
  uint64_t end = base + bytes;
  std::unique_lock<std::shared_mutex> lock(g_allocations_mutex);
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  kept.reserve(g_allocations.size() + 1);
  for (const auto& a : g_allocations) {
    if (a.second <= base || end <= a.first) {
      kept.push_back(a);
      continue;
    }
    // What lies outside the unmapped range stays mapped.
    if (a.first < base) kept.emplace_back(a.first, base);
    if (end < a.second) kept.emplace_back(end, a.second);
  }
  g_allocations = std::move(kept);  // still sorted: the pieces keep their entry's place
}

void ReadLaunchAddresses(CUfunction function, void** params, void** extra, LaunchAddresses& out) {
  out.count = 0;
  out.more = false;
  uint64_t lowest = g_lowest.load(std::memory_order_relaxed), highest = g_highest.load(std::memory_order_relaxed);
  if (lowest >= highest) return;  // no allocation seen yet
  if (params) {
    if (!function) return;
    const Layout* layout = LayoutOf(function);
    std::shared_lock<std::shared_mutex> lock(g_allocations_mutex);
    size_t scanned = 0;
    for (int i = 0; i < layout->count && scanned < kMaxScannedBytes; ++i) {
      if (!params[i]) continue;
      size_t size = std::min<size_t>(layout->size[i], kMaxScannedBytes - scanned);
      ScanLocked(static_cast<const unsigned char*>(params[i]), size, layout->offset[i], lowest, highest, out);
      scanned += size;
    }
    Deduplicate(out);
    return;
  }
  // cuLaunchKernel's other form: {CU_LAUNCH_PARAM_BUFFER_POINTER, p, CU_LAUNCH_PARAM_BUFFER_SIZE, &n, END}.
  const void* buffer = nullptr;
  size_t size = 0;
  for (int i = 0; extra && i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) size = *static_cast<const size_t*>(extra[i + 1]);
  }
  if (!buffer) return;
  std::shared_lock<std::shared_mutex> lock(g_allocations_mutex);
  ScanLocked(static_cast<const unsigned char*>(buffer), std::min(size, kMaxScannedBytes), 0, lowest, highest, out);
  Deduplicate(out);
}

bool InRecorderCall() { return t_in_recorder_call; }

void KeepLaunchAddresses(const LaunchAddresses& a, CallRecord& r, uint64_t node) {
  constexpr int kPerRecord = sizeof(r.args) / sizeof(r.args[0]);
  int in_record = std::min(a.count, kPerRecord);
  for (int i = 0; i < in_record; ++i) {
    r.args[i] = a.at[i];
    r.arg_offsets[i] = a.offset[i];
  }
  r.nargs = static_cast<uint8_t>(in_record);
  r.more_args = a.more ? 1 : 0;
  for (int from = kPerRecord; from < a.count; from += kPerRecord) {
    CallRecord more;
    more.role = Role::kLaunchArgs;
    more.function = "launch arguments";
    more.begin = more.end = r.begin;
    more.correlation = r.correlation;
    more.out = node;
    more.nargs = static_cast<uint8_t>(std::min(a.count - from, kPerRecord));
    for (int i = 0; i < more.nargs; ++i) {
      more.args[i] = a.at[from + i];
      more.arg_offsets[i] = a.offset[from + i];
    }
    Append(CurrentThreadLog(), more);
  }
}

}  // namespace streamlab::recorder
