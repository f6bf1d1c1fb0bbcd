// The edits (whatif_edits.h). Each changes the replayed calls and the host work around them the
// way the fix would change the program, and nothing else: a kernel keeps its measured time, a
// call the fix does not touch keeps its measured cost.
#include "engine/whatif/whatif_edits.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/analysis/program_sites.h"
#include "engine/util/errors.h"
#include "engine/whatif/graph_capture.h"
#include "engine/whatif/order_races.h"
#include "engine/whatif/side_stream_copy.h"
#include "engine/util/median.h"

namespace streamlab {
namespace {


class Editor {
 public:
  Editor(const Trace& t, Replay& r) : t_(t), r_(r) {}

  Op& Replayed(int op) { return r_.scenario.ops[r_.op_of[op]]; }
  TimeNs& HostAfter(int op) { return Replayed(op).host_after; }
  TimeNs OwnTime(int op) const { return t_.ops[op].ret - t_.ops[op].submit; }
  bool Blocked(int op) const { return BlocksHostInReplay(t_.scenario, t_.scenario.ops[op]); }

  void ToHostWork(int op) {
    Op work;
    work.kind = OpKind::kHostWork;
    work.thread = Replayed(op).thread;
    work.host_after = Replayed(op).host_after;
    Replayed(op) = std::move(work);
  }

  // The call after (or before) `op` on its thread, -1 if none.
  int NextCall(int op, int direction) const {
    int thread = t_.scenario.ops[op].thread;
    for (int i = op + direction; i >= 0 && i < static_cast<int>(t_.ops.size()); i += direction)
      if (IsRecordedCall(t_.scenario.ops[i]) && t_.scenario.ops[i].thread == thread) return i;
    return -1;
  }

  bool Pageable(int op) {
    const Op& o = Replayed(op);
    return o.kind == OpKind::kMemcpy && (r_.scenario.buffers[o.src].kind == MemoryKind::kPageableHost ||
                                         r_.scenario.buffers[o.dst].kind == MemoryKind::kPageableHost);
  }

  // The warm-up steps' calls at a steady step's host and GPU times (WarmUpEdit); the host time
  // cut is spent right before the first step's first call, where the warm-up step would run.
  void WarmUpBeforeTheLoop(const WhatIfEdit& edit, const std::vector<int>& anchors) {
    auto first = std::find_if(anchors.begin(), anchors.end(), [](int a) { return a >= 0; });
    int before_loop = first == anchors.end() ? -1 : NextCall(*first, -1);
    if (before_loop < 0 || r_.op_of[before_loop] < 0)
      throw InputError("--fix warm-up: the program makes no call before its first step, where the warm-up would go");
    auto at = [](const std::vector<TimeNs>& v, size_t k) { return k < v.size() ? v[k] : -1; };
    TimeNs moved = 0;
    for (size_t k = 0; k < edit.calls.size(); ++k) {
      int c = edit.calls[k];
      Op& op = Replayed(c);
      if (TimeNs gpu = at(edit.gpu_times, k); gpu >= 0) {
        if (op.kind == OpKind::kKernel) op.kernel.work = std::min(op.kernel.work, gpu);
        if (op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset) op.duration = std::min(op.duration, gpu);
      }
      if (Blocked(c)) {  // the host waits in it: only its own floor can shrink
        if (TimeNs own = at(edit.own_times, k); own >= 0) op.host_floor = std::min(op.host_floor, own);
        continue;
      }
      TimeNs usual = at(edit.host_times, k) >= 0 ? edit.host_times[k] : r_.typical_call;
      TimeNs cut = std::max<TimeNs>(0, HostAfter(c) - usual);
      HostAfter(c) -= cut;
      moved += cut;
    }
    HostAfter(before_loop) += moved;
  }

  // The copy's pageable host end made pinned; the call no longer waits for the copy.
  void Pin(int op, bool pinned_speed) {
    if (r_.op_of[op] < 0 || Replayed(op).kind != OpKind::kMemcpy) return;
    bool was_blocked = Blocked(op);
    Op& o = Replayed(op);
    for (int* end : {&o.src, &o.dst})
      if (r_.scenario.buffers[*end].kind == MemoryKind::kPageableHost) *end = PinnedTwin(*end);
    bool to_device = r_.scenario.buffers[o.src].kind != MemoryKind::kDevice;
    if (pinned_speed)
      o.duration = TransferDuration(r_.measured, o.bytes, to_device ? r_.measured.h2d_pinned_gbps : r_.measured.d2h_pinned_gbps);
    o.async = true;
    o.host_floor = 0;
    if (was_blocked) HostAfter(op) += r_.typical_call;  // the call's own cost, no longer hidden in its wait
  }

 private:
  int PinnedTwin(int buffer) {
    auto [it, fresh] = twins_.emplace(buffer, static_cast<int>(r_.scenario.buffers.size()));
    if (fresh) {
      BufferDesc pinned = r_.scenario.buffers[buffer];
      pinned.kind = MemoryKind::kPinnedHost;
      pinned.name += " (pinned)";
      r_.scenario.buffers.push_back(std::move(pinned));
    }
    return it->second;
  }

  const Trace& t_;
  Replay& r_;
  std::map<int, int> twins_;
};

ProgramSite WithoutStepRanges(ProgramSite site) {
  std::erase_if(site.ranges, [](const std::string& r) { return r.rfind("ProfilerStep#", 0) == 0; });
  return site;
}

}  // namespace

CallPlaces::CallPlaces(const Trace& t, const std::vector<int>& anchors) : key_(t.ops.size(), 0), step_(t.ops.size(), -1) {
  RangeIndex index(t);
  std::map<std::string, int> seen;  // per step: calls of a name and place so far
  size_t k = 0;
  int step = -1;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    while (k < anchors.size() && (anchors[k] < 0 || anchors[k] <= static_cast<int>(i))) {
      if (anchors[k] >= 0) step = static_cast<int>(k), seen.clear();
      ++k;
    }
    step_[i] = step;
    const Op& op = t.scenario.ops[i];
    if (!IsRecordedCall(op)) continue;
    std::string place = PlaceKey(WithoutStepRanges(SiteOf(index, op.thread, t.ops[i].submit)));
    std::string base = std::to_string(op.thread) + "|" + op.name + "|" + place;
    key_[i] = std::hash<std::string>{}(base + "|" + std::to_string(seen[base]++)) | 1;  // never 0
  }
}

std::vector<int> CallPlaces::AlikeCalls(const std::vector<int>& calls, bool recurring) const {
  std::map<uint64_t, std::set<int>> steps_of;  // per place: the steps it was seen in
  std::set<int> all_steps;
  for (int c : calls)
    if (c >= 0 && key_[c]) steps_of[key_[c]].insert(step_[c]), all_steps.insert(step_[c]);
  std::set<uint64_t> keys;
  for (const auto& [key, steps] : steps_of)
    if (!recurring || steps.size() * 2 >= all_steps.size()) keys.insert(key);
  // Only inside the steps, when there are steps: a fix changes the loop, not the set-up before it.
  bool stepped = std::any_of(step_.begin(), step_.end(), [](int s) { return s >= 0; });
  std::vector<int> out;
  for (size_t i = 0; i < key_.size(); ++i)
    if (key_[i] && keys.count(key_[i]) && (!stepped || step_[i] >= 0)) out.push_back(static_cast<int>(i));
  return out;
}

bool PageableToDevice(const Trace& t, int op) {
  const Op& o = t.scenario.ops[op];
  return o.kind == OpKind::kMemcpy && o.graph < 0 && t.scenario.buffers[o.src].kind == MemoryKind::kPageableHost &&
         t.scenario.buffers[o.dst].kind == MemoryKind::kDevice;
}

// The call after `op` on its thread (-1: none).
int NextCallOnThread(const Trace& t, int op) {
  for (int i = op + 1; i < static_cast<int>(t.ops.size()); ++i)
    if (IsRecordedCall(t.scenario.ops[i]) && t.scenario.ops[i].thread == t.scenario.ops[op].thread) return i;
  return -1;
}

// A stream's sync: recorded as one, or a torch.profiler trace's cudaStreamSynchronize that no
// cuda_sync record ties to a stream (kineto_import.cpp keeps it as a plain call).
bool IsStreamSync(const Op& op) {
  return op.kind == OpKind::kSyncStream || (op.kind == OpKind::kApiCall && op.name.rfind("cudaStreamSynchronize", 0) == 0);
}

// A batch is copied tensor by tensor (inputs, then labels), each call right after the last with
// only its stream's sync (or calls that queue nothing) between: pinned as a batch (a DataLoader's
// pin_memory=True pins them all), the others are the fix's too, or the first one left pageable
// would wait in their place.
std::vector<int> WithTheBatchsOtherCopies(const Trace& t, std::vector<int> copies) {
  std::set<int> all(copies.begin(), copies.end());
  for (int c : copies) {
    if (!PageableToDevice(t, c)) continue;
    for (int i = NextCallOnThread(t, c); i >= 0; i = NextCallOnThread(t, i)) {
      if (IsStreamSync(t.scenario.ops[i]) || t.scenario.ops[i].kind == OpKind::kApiCall) continue;
      if (!PageableToDevice(t, i)) break;
      all.insert(i);
    }
  }
  return {all.begin(), all.end()};
}

// The copies from or to pageable memory (a copy-bound run's copies are sped up only by pinning).
std::vector<int> PageableCopies(const Trace& t) {
  std::vector<int> out;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind == OpKind::kMemcpy && op.graph < 0 &&
        (t.scenario.buffers[op.src].kind == MemoryKind::kPageableHost || t.scenario.buffers[op.dst].kind == MemoryKind::kPageableHost))
      out.push_back(static_cast<int>(i));
  }
  return out;
}

// Every allocation and free the program makes inside its steps.
std::vector<int> AllocationsInSteps(const Trace& t, const CallPlaces& places) {
  std::vector<int> out;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (places.StepOf(static_cast<int>(i)) >= 0 && IsRecordedCall(t.scenario.ops[i]) && IsAllocation(t.scenario.ops[i]))
      out.push_back(static_cast<int>(i));
  return out;
}

namespace {

// Per recorded call: the host's time from it to its thread's next call (from its return, when
// the replay makes the host wait in it), as the replay's host_after holds it.
std::vector<TimeNs> HostTimesAfter(const Trace& t) {
  std::vector<TimeNs> out(t.ops.size(), -1);
  std::map<int, int> last;  // per thread: its latest call
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (!IsRecordedCall(op)) continue;
    if (auto it = last.find(op.thread); it != last.end()) {
      int c = it->second;
      TimeNs from = BlocksHostInReplay(t.scenario, t.scenario.ops[c]) ? t.ops[c].ret : t.ops[c].submit;
      out[c] = std::max<TimeNs>(0, t.ops[i].submit - from);
    }
    last[op.thread] = static_cast<int>(i);
  }
  return out;
}

// What a steady step's call at one place takes: the host's time from it to the next call, its
// op's GPU time, its own time.
struct PlaceTimes {
  std::vector<TimeNs> host, gpu, own;
};

}  // namespace

std::optional<WhatIfEdit> WarmUpEdit(const Trace& t, const StepSplit& steps, const CallPlaces& places) {
  if (!steps.found() || steps.warmup < 1) return std::nullopt;
  std::vector<TimeNs> after = HostTimesAfter(t);
  auto gpu_time = [&](size_t i) { return t.ops[i].gpu && t.ops[i].end > t.ops[i].start ? t.ops[i].end - t.ops[i].start : -1; };
  std::map<uint64_t, PlaceTimes> steady;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    int step = places.StepOf(static_cast<int>(i));
    uint64_t key = places.KeyOf(static_cast<int>(i));
    if (step < 0 || !steps.steps[step].steady || !key) continue;
    PlaceTimes& p = steady[key];
    if (after[i] >= 0) p.host.push_back(after[i]);
    if (gpu_time(i) >= 0) p.gpu.push_back(gpu_time(i));
    p.own.push_back(t.ops[i].ret - t.ops[i].submit);
  }
  WhatIfEdit edit;
  edit.kind = EditKind::kWarmUp;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    int step = places.StepOf(static_cast<int>(i));
    if (step < 0 || step >= steps.warmup || !places.KeyOf(static_cast<int>(i))) continue;
    auto it = steady.find(places.KeyOf(static_cast<int>(i)));
    edit.calls.push_back(static_cast<int>(i));
    edit.host_times.push_back(it == steady.end() ? -1 : MedianTime(it->second.host, -1));
    edit.gpu_times.push_back(it == steady.end() ? -1 : MedianTime(it->second.gpu, -1));
    edit.own_times.push_back(it == steady.end() ? -1 : MedianTime(it->second.own, -1));
  }
  if (edit.calls.empty()) return std::nullopt;
  return edit;
}

std::optional<WhatIfEdit> EditForFix(const Trace& t, const CallPlaces& places, const VerdictFix& fix) {
  WhatIfEdit edit;
  // Host work is cut only where it recurs step after step: a gap that fell on a different call
  // each step is the host's pace, not a place.
  bool host_work = fix.kind == FixKind::kHostWork || fix.kind == FixKind::kDataLoading;
  edit.calls = places.AlikeCalls(fix.calls, host_work);
  bool allocations = !edit.calls.empty() && std::all_of(edit.calls.begin(), edit.calls.end(), [&](int c) {
    return IsAllocation(t.scenario.ops[c]);
  });
  // A sync or blocking call that is an allocation (cudaFree waits for the device): every
  // allocation and free of the loop made once before it instead.
  bool allocation_fix = fix.kind == FixKind::kMallocMidRun || fix.kind == FixKind::kBlockingCall || fix.kind == FixKind::kHostSync;
  if (allocation_fix && allocations) {
    edit.kind = EditKind::kAllocateOnce;
    edit.calls = AllocationsInSteps(t, places);
    // A run without steps has no loop to take them out of: nothing to replay.
    if (edit.calls.empty()) return std::nullopt;
    return edit;
  }
  switch (fix.kind) {
    case FixKind::kHiddenRead: edit.kind = EditKind::kDeferRead; break;
    case FixKind::kHostSync: edit.kind = EditKind::kDropSync; break;
    case FixKind::kPageableCopy:
      edit.kind = EditKind::kPinCopy;
      edit.calls = WithTheBatchsOtherCopies(t, edit.calls);
      break;
    case FixKind::kHostWork:
    case FixKind::kDataLoading: edit.kind = EditKind::kShortenHostWork; break;
    case FixKind::kLaunchRate:
      edit.kind = EditKind::kGraphSteps;
      return edit;
    case FixKind::kCopyWait:  // copies to the device only: a kernel's input, copied ahead of it
      edit.kind = EditKind::kSideStreamCopy;
      edit.calls = CopiesToTheDevice(t, edit.calls);
      break;
    case FixKind::kCopies: {  // copy-bound: pinning speeds up copies that take most of the copy time
      edit.kind = EditKind::kPinCopy;
      edit.calls = PageableCopies(t);
      TimeNs pageable = 0, all = 0;
      for (size_t i = 0; i < t.ops.size(); ++i)
        if (t.scenario.ops[i].kind == OpKind::kMemcpy && t.ops[i].gpu) all += t.ops[i].end - t.ops[i].start;
      for (int c : edit.calls) pageable += t.ops[c].end - t.ops[c].start;
      if (pageable * 2 < all) return std::nullopt;
      break;
    }
    default: return std::nullopt;
  }
  if (edit.calls.empty()) return std::nullopt;
  return edit;
}

std::optional<WhatIfEdit> LoaderHandOverEdit(const Trace& t, const StepSplit& steps, const std::vector<int>& anchors,
                                             const WhatIfEdit& pin) {
  if (pin.kind != EditKind::kPinCopy || steps.source != StepSource::kRanges) return std::nullopt;
  std::set<int> pinned(pin.calls.begin(), pin.calls.end());
  WhatIfEdit edit;
  edit.kind = EditKind::kShortenHostWork;
  for (size_t k = 0; k < anchors.size() && k < steps.steps.size(); ++k) {
    int copy = anchors[k];
    if (!steps.steps[k].steady || copy < 0 || !pinned.count(copy)) continue;
    int before = -1;  // the loop's last call before it
    for (int i = copy - 1; i >= 0 && before < 0; --i)
      if (IsRecordedCall(t.scenario.ops[i]) && t.scenario.ops[i].thread == t.scenario.ops[copy].thread) before = i;
    if (before < 0) continue;
    TimeNs outside = steps.steps[k].begin - t.ops[before].ret, inside = t.ops[copy].submit - steps.steps[k].begin;
    if (outside > inside) edit.calls.push_back(copy);
  }
  if (edit.calls.empty() || 2 * static_cast<int>(edit.calls.size()) < steps.steady) return std::nullopt;
  return edit;
}

// Every kernel and memset at `scale` of its measured time; copies, calls and the host's own work
// as they were. What a step gains from a GPU that much faster (or from that much less GPU work
// per op) says how much of it the GPU bounds: tests/corpus/sensitivity.json measures the same
// with each program's batch halved.
void ScaleKernels(double scale, Replay& replay) {
  for (Op& op : replay.scenario.ops) {
    if (op.kind == OpKind::kKernel && op.kernel.kind == KernelKind::kForeign)
      op.kernel.work = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(op.kernel.work) * scale));
    if (op.kind == OpKind::kMemset && op.duration > 0)
      op.duration = std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(op.duration) * scale));
  }
}

void ApplyEdit(const Trace& t, const std::vector<int>& anchors, const WhatIfEdit& edit, Replay& replay) {
  Editor e(t, replay);
  for (int c : edit.calls)
    if (replay.op_of[c] < 0) return;  // not a replayed call: nothing to edit
  switch (edit.kind) {
    case EditKind::kDropSync:
      for (int c : edit.calls)
        if (IsSyncCall(t.scenario.ops[c].kind)) e.ToHostWork(c);
      return;
    case EditKind::kDeferRead:
      for (int c : edit.calls) {
        e.Pin(c, false);
        int next = e.NextCall(c, +1);
        if (next >= 0 && IsSyncCall(t.scenario.ops[next].kind)) e.ToHostWork(next);
      }
      return;
    case EditKind::kPinCopy: {
      // PyTorch's copy with non_blocking=False syncs its stream right after the call; with
      // non_blocking=True, as the advice goes, it does not (a read back to the host keeps it).
      bool python = IsPythonProgram(t);
      for (int c : edit.calls) {
        e.Pin(c, true);
        int next = NextCallOnThread(t, c);
        if (python && PageableToDevice(t, c) && next >= 0 && IsStreamSync(t.scenario.ops[next]) &&
            (t.scenario.ops[next].kind == OpKind::kApiCall || t.scenario.ops[next].stream == t.scenario.ops[c].stream))
          e.ToHostWork(next);
      }
      return;
    }
    case EditKind::kAllocateOnce:
      for (int c : edit.calls) {
        if (!e.Blocked(c)) e.HostAfter(c) = std::max<TimeNs>(0, e.HostAfter(c) - e.OwnTime(c));
        e.ToHostWork(c);
      }
      return;
    case EditKind::kShortenHostWork:
      for (int c : edit.calls) {
        int before = e.NextCall(c, -1);
        if (before < 0) continue;
        TimeNs own = e.Blocked(before) ? 0 : std::min(e.OwnTime(before), e.HostAfter(before));
        TimeNs left = edit.host_time >= 0 ? own + edit.host_time : std::max(own, replay.typical_gap);
        e.HostAfter(before) = std::min(e.HostAfter(before), left);
      }
      return;
    case EditKind::kGraphSteps: return CaptureStepsInGraphs(t, anchors, replay);
    case EditKind::kSideStreamCopy:
      for (int c : edit.calls)
        if (e.Pageable(c)) e.Pin(c, true);
      return CopyOnSideStreams(edit.calls, replay);
    case EditKind::kOrderRaces: {
      std::vector<RacePair> pairs;
      for (size_t k = 0; k + 1 < edit.calls.size(); k += 2) pairs.push_back({edit.calls[k], edit.calls[k + 1]});
      return OrderRaces(pairs, replay);
    }
    case EditKind::kWarmUp: return e.WarmUpBeforeTheLoop(edit, anchors);
    case EditKind::kConnections: replay.scenario.settings.max_connections = std::clamp(edit.connections, 1, 32); return;
    case EditKind::kScaleKernels: return ScaleKernels(edit.scale, replay);
  }
}

const char* ToString(EditKind kind) {
  static const char* const kNames[kEditKindCount] = {"defer_read", "drop_sync", "pin_copy", "allocate_once",
                                                     "graph_steps", "shorten_host_work", "connections", "side_stream_copy",
                                                     "order_races", "warm_up", "scale_kernels"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace streamlab
