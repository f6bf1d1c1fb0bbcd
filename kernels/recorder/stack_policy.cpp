// Which calls get the program's Python stack (stack_policy.h). A call id is marked the first
// time one of its calls shows a host-holding role: that first call gets the stack at exit, the
// later ones at entry. A copy between two device buffers (GradScaler's per-device copies) does
// not hold the host: it gets none unless it took 500 us or more.
#include "kernels/recorder/stack_policy.h"

#include <atomic>

#include "kernels/recorder/api_roles.h"
#include "kernels/recorder/python_stack.h"

namespace streamlab::recorder {
namespace {

constexpr uint64_t kLongCallNs = 500'000;
constexpr CUpti_CallbackId kMaxCallbackId = 1024;
static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= kMaxCallbackId && CUPTI_DRIVER_TRACE_CBID_SIZE <= kMaxCallbackId);
std::atomic<bool> g_stack_at_entry[2][kMaxCallbackId] = {};

bool HoldsHostByNature(Role role) {
  switch (role) {
    case Role::kSyncDevice: case Role::kSyncStream: case Role::kSyncEvent: case Role::kMemcpy:
    case Role::kMemcpyAsync: case Role::kMemset: case Role::kMalloc: case Role::kFree:
    case Role::kMallocHost: case Role::kHostRegister: case Role::kFreeHost:
    // Not a host-holding call, but rare: its stack tells a library's stream from the program's.
    case Role::kStreamCreate:
      return true;
    default:
      return false;
  }
}

// Work put on a stream: a stream switch on a thread is where two streams' work meets.
bool PutsWork(Role role) {
  return role == Role::kLaunch || role == Role::kMemcpyAsync || role == Role::kMemsetAsync || role == Role::kGraphLaunch ||
         role == Role::kPeerCopy;
}
thread_local uint64_t t_last_stream = ~uint64_t{0};

std::atomic<bool>* StackAtEntry(bool runtime, CUpti_CallbackId id) {
  return id < kMaxCallbackId ? &g_stack_at_entry[runtime ? 0 : 1][id] : nullptr;
}

}  // namespace

bool StackOnEntry(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t now, uint64_t last_exit,
                  uint64_t resume_ns) {
  if (resume_ns && last_exit != 0 && now > last_exit + resume_ns && !LastStackWasFrameless()) return true;
  std::atomic<bool>* marked = StackAtEntry(runtime, id);
  return marked && marked->load(std::memory_order_relaxed) && !CopiesOnDevice(runtime, id, d);
}

uint32_t StackOnExit(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d, Role role, uint64_t took_ns,
                     uint32_t read_on_entry, uint64_t stream) {
  bool by_nature = HoldsHostByNature(role) && !CopiesOnDevice(runtime, id, d);
  if (by_nature)
    if (std::atomic<bool>* marked = StackAtEntry(runtime, id)) marked->store(true, std::memory_order_relaxed);
  bool switched = false;
  if (PutsWork(role)) {
    switched = t_last_stream != ~uint64_t{0} && stream != t_last_stream;
    t_last_stream = stream;
  }
  if (read_on_entry || !(by_nature || switched || took_ns >= kLongCallNs)) return read_on_entry;
  return CapturePythonStack();
}

}  // namespace streamlab::recorder
