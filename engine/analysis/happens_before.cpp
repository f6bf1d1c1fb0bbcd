// Builds the happens-before graph and its transitive closure.
#include "engine/analysis/happens_before.h"

namespace streamlab {
namespace {
// Above this many ops the closure is not built and only direct edges answer Ordered().
constexpr size_t kMaxClosureOps = 4000;

bool IsGpuWork(const Op& op) {
  return IsStreamOp(op);
}
}  // namespace

HappensBefore::HappensBefore(const Scenario& s)
    : deps_(ComputeDependencies(s)), successors_(s.ops.size()), waited_for_(s.ops.size()) {
  size_t n = s.ops.size();
  for (size_t i = 0; i < n; ++i)
    for (const DepEdge& e : deps_.into[i]) successors_[e.from].push_back(e.to);

  // Blocking host calls: which GPU ops must be done when the call returns.
  std::vector<int> last_on_stream(s.streams.size(), -1);
  // GPU ops submitted per device since that device's last device-wide wait (what came
  // before is already ordered through that wait).
  std::vector<std::vector<int>> pending(s.device_count);
  // Per host thread: its current device and its latest blocking call (a thread's calls are
  // ordered; different threads' calls are not).
  std::vector<int> device_of_thread(ThreadCount(s), 0), last_blocking_of_thread(ThreadCount(s), -1);
  for (size_t i = 0; i < n; ++i) {
    const Op& op = s.ops[i];
    int& device = device_of_thread[op.thread];
    int& last_blocking = last_blocking_of_thread[op.thread];
    std::vector<int>& waits = waited_for_[i];
    auto all_on_device = [&](int d) {
      waits = std::move(pending[d]);
      pending[d].clear();
    };
    switch (op.kind) {
      case OpKind::kSyncDevice: all_on_device(device); break;
      case OpKind::kFree: all_on_device(s.buffers[op.buffer].device); break;
      case OpKind::kSyncStream:
        if (last_on_stream[op.stream] >= 0) waits.push_back(last_on_stream[op.stream]);
        break;
      case OpKind::kSyncEvent:
        if (deps_.last_record_before[i] >= 0) waits.push_back(deps_.last_record_before[i]);
        break;
      case OpKind::kMemcpy: {
        bool pageable = s.buffers[op.src].kind == MemoryKind::kPageableHost ||
                        s.buffers[op.dst].kind == MemoryKind::kPageableHost;
        if (pageable || !op.async) waits.push_back(static_cast<int>(i));  // the copy itself
        break;
      }
      case OpKind::kSetDevice: device = op.device; break;
      default: break;
    }
    if (IsGpuWork(op)) {
      pending[s.streams[op.stream].device].push_back(static_cast<int>(i));
      last_on_stream[op.stream] = static_cast<int>(i);
    }
    if (!waits.empty()) {
      // The call returns after what it waited for, and the host submits everything later
      // after it returns: waited-for -> this call -> later GPU ops. The call links to the
      // GPU ops up to the next blocking call and to that call, which carries the order on
      // (linear in the ops, however many syncs there are).
      for (int w : waits)
        if (w != static_cast<int>(i)) successors_[w].push_back(static_cast<int>(i));
      if (last_blocking >= 0) successors_[last_blocking].push_back(static_cast<int>(i));
      last_blocking = static_cast<int>(i);
    } else if (IsGpuWork(op) && last_blocking >= 0 && last_blocking != static_cast<int>(i)) {
      successors_[last_blocking].push_back(static_cast<int>(i));
    }
  }

  if (n > kMaxClosureOps) return;
  words_ = (n + 63) / 64;
  reach_.assign(n * words_, 0);
  // Edges only go forward in op order, so one backward sweep builds the closure.
  for (size_t i = n; i-- > 0;) {
    uint64_t* row = &reach_[i * words_];
    for (int next : successors_[i]) {
      row[next / 64] |= uint64_t{1} << (next % 64);
      const uint64_t* other = &reach_[static_cast<size_t>(next) * words_];
      for (size_t w = 0; w < words_; ++w) row[w] |= other[w];
    }
  }
}

bool HappensBefore::Ordered(int a, int b) const {
  if (!reach_.empty()) return (reach_[a * words_ + b / 64] >> (b % 64)) & 1;
  for (int next : successors_[a])
    if (next == b) return true;
  return false;
}

}  // namespace streamlab
