// The replay (replay_scenario.h). The host's time is taken from the recording call by call: the
// host work after a call is the time from its start (or, for a call the host waited in, its
// return) to the next call on its thread, so a call's own cost travels with it and a wait is
// left for the simulator to decide. The GPU's latencies (a call to its op starting on an idle
// GPU, one op to the next on a stream, a finished sync to its return) are the recording's own
// medians, not the profile's, which was measured with StreamLab's timing events around each op.
#include "engine/whatif/replay_scenario.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/analysis/thread_calls.h"
#include "engine/util/errors.h"
#include "engine/util/median.h"

namespace streamlab {
namespace {

// A call's op reached an idle GPU (all GPU work called before it had ended): how long from the
// call's start to the op's start.
TimeNs SubmitLatency(const Trace& t, TimeNs fallback) {
  std::vector<int> by_submit;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].gpu && IsGpuWork(t.scenario.ops[i])) by_submit.push_back(static_cast<int>(i));
  std::stable_sort(by_submit.begin(), by_submit.end(), [&](int a, int b) { return t.ops[a].submit < t.ops[b].submit; });
  std::vector<TimeNs> latencies;
  TimeNs busy_until = 0;  // the latest end of the GPU work called so far
  for (int i : by_submit) {
    const OpRecord& r = t.ops[i];
    const Op& op = t.scenario.ops[i];
    // Kernels only: a copy the host stages starts when its first chunk is staged.
    if (busy_until <= r.submit && op.graph < 0 && op.kind == OpKind::kKernel && r.start >= r.submit)
      latencies.push_back(r.start - r.submit);
    busy_until = std::max(busy_until, r.end);
  }
  return std::clamp(MedianTime(latencies, fallback), Us(0.5), Us(30));
}

// Back-to-back ops on one stream: from one's end to the next one's start, when the next was
// called well before the first ended.
TimeNs SameStreamGap(const Trace& t, TimeNs latency, TimeNs fallback) {
  std::vector<int> last(t.scenario.streams.size(), -1);
  std::vector<TimeNs> gaps;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    const OpRecord& r = t.ops[i];
    if (!r.gpu || !IsGpuWork(op) || op.stream < 0) continue;
    int prev = last[op.stream];
    last[op.stream] = static_cast<int>(i);
    if (prev < 0 || op.graph >= 0) continue;
    const OpRecord& p = t.ops[prev];
    if (r.submit + latency < p.end && r.start >= p.end) gaps.push_back(r.start - p.end);
  }
  return std::clamp(MedianTime(gaps, fallback), TimeNs{0}, Us(20));
}

// Back-to-back nodes of one replayed CUDA graph on a stream: from one's end to the next one's start.
std::optional<TimeNs> MeasuredGraphNodeGap(const Trace& t) {
  std::vector<int> last(t.scenario.streams.size(), -1);
  std::vector<TimeNs> gaps;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    const OpRecord& r = t.ops[i];
    if (!r.gpu || op.kind != OpKind::kKernel || op.stream < 0) continue;
    int prev = last[op.stream];
    last[op.stream] = static_cast<int>(i);
    if (prev < 0 || op.graph < 0 || t.scenario.ops[prev].graph != op.graph) continue;
    if (r.start >= t.ops[prev].end) gaps.push_back(r.start - t.ops[prev].end);
  }
  if (gaps.empty()) return std::nullopt;
  return std::clamp(MedianTime(gaps), TimeNs{1}, Us(20));
}

// A call that waits for the GPU returns this long after the last GPU work before it ended: a
// sync (when it waited at all), or cudaFree, whose own work follows its device-wide wait.
TimeNs AfterWait(const Trace& t, bool frees, TimeNs fallback) {
  std::vector<TimeNs> ends;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].gpu && IsGpuWork(t.scenario.ops[i])) ends.push_back(t.ops[i].end);
  std::sort(ends.begin(), ends.end());
  std::vector<TimeNs> after;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    OpKind kind = t.scenario.ops[i].kind;
    const OpRecord& r = t.ops[i];
    if (frees ? kind != OpKind::kFree : !IsSyncCall(kind)) continue;
    auto it = std::upper_bound(ends.begin(), ends.end(), r.ret);
    if (it == ends.begin() || (!frees && r.ret - r.submit < Us(20))) continue;
    TimeNs end = *std::prev(it);
    if (!frees && end <= r.submit) continue;  // a sync that found the GPU done waited for nothing
    after.push_back(r.ret - std::max(r.submit, end));
  }
  return std::clamp(MedianTime(after, fallback), TimeNs{0}, frees ? Ms(10) : Us(50));
}

constexpr int kMaxBlockThreads = 1024;

// A foreign kernel as the simulator runs it: as many SMs as its grid covers in one wave, each
// holding the threads its blocks take there, for its measured time. A kernel of many waves was
// measured whole; splitting it into waves again would count its time twice.
void ShapeKernel(const DeviceProfile& p, KernelSpec& k) {
  int block = std::clamp(k.block, 1, p.max_threads_per_sm);
  int resident = std::min(p.max_threads_per_sm / block, p.max_blocks_per_sm);
  if (k.max_blocks_per_sm > 0) resident = std::min(resident, k.max_blocks_per_sm);
  resident = std::max(resident, 1);
  int grid = std::max(k.grid, 1);
  int sms = std::min(grid, p.sm_count);
  int threads = std::min((grid + sms - 1) / sms, resident) * block;  // per SM
  int parts = (threads + kMaxBlockThreads - 1) / kMaxBlockThreads;  // a block holds at most 1024
  k.grid = sms * parts;
  k.block = threads / parts;
}

TimeNs TypicalCall(const Trace& t) {
  std::vector<TimeNs> costs;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind == OpKind::kKernel && op.graph < 0 && !BlocksHostInReplay(t.scenario, op))
      costs.push_back(t.ops[i].ret - t.ops[i].submit);
  }
  return std::max<TimeNs>(0, MedianTime(costs, Us(5)));
}

Op HostWork(int thread, TimeNs duration) {
  Op op;
  op.kind = OpKind::kHostWork;
  op.thread = thread;
  op.duration = std::max<TimeNs>(0, duration);
  return op;
}

// The recorded op as the replay makes it: no host cost of its own, measured GPU time; a copy
// the host waits in keeps its call's own time from when its stream reached it (`stream_free`:
// the end of its stream's op before it).
Op Replayed(const Trace& t, int i, const DeviceProfile& p, TimeNs stream_free) {
  Op op = t.scenario.ops[i];
  const OpRecord& r = t.ops[i];
  op.addresses.clear();  // what a call was handed matters to the race check, not to timing
  op.kernel.function.clear();
  if (op.kind == OpKind::kApiCall) op.duration = 0;
  if (op.kind == OpKind::kKernel) ShapeKernel(p, op.kernel);
  if ((op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset) && r.gpu && r.end > r.start) op.duration = r.end - r.start;
  if (op.kind == OpKind::kMemcpy && BlocksHostInReplay(t.scenario, op))
    op.host_floor = std::max<TimeNs>(0, r.ret - std::max(r.submit, stream_free));
  return op;
}

DeviceProfile ReplayProfile(const Trace& t, const DeviceProfile& base) {
  DeviceProfile p = base;
  if (t.sm_count > 0) p.sm_count = t.sm_count;
  p.submit_latency = SubmitLatency(t, base.submit_latency);
  // What the recording cannot tell (a host-bound run queues no two kernels back to back; a run
  // without graphs has no graph nodes) comes from the probe's figures, else the lab profile's.
  p.same_stream_gap = SameStreamGap(t, p.submit_latency, base.replay_stream_gap > 0 ? base.replay_stream_gap : base.same_stream_gap);
  std::optional<TimeNs> graph_gap = MeasuredGraphNodeGap(t);
  p.graph_node_gap = graph_gap.value_or(base.replay_graph_node_gap > 0 ? base.replay_graph_node_gap : base.graph_node_gap);
  if (graph_gap || p.replay_graph_node_gap_fast >= p.graph_node_gap) p.replay_graph_node_gap_fast = 0;  // one figure
  // Between two launches of a graph, a replay keeps the node gap it was checked with
  // (docs/evidence/whatif.md); the labs' launch-to-launch gap was not measured on recordings.
  p.graph_launch_gap = 0;
  p.sync_wake = AfterWait(t, false, base.sync_wake);
  TimeNs free_after = AfterWait(t, true, 0);
  for (TimeNs* cost : {&p.launch_host, &p.record_host, &p.wait_host, &p.query_host, &p.memset_host, &p.malloc_base,
                       &p.malloc_per_mb, &p.free_host, &p.malloc_host_base, &p.malloc_host_per_mb, &p.set_device_host,
                       &p.graph_launch_host, &p.graph_node_host, &p.thread_spawn, &p.module_load_host,
                       &p.nccl_launch_host, &p.nccl_group_host})
    *cost = 0;
  p.free_host = std::max<TimeNs>(0, free_after - p.sync_wake);  // cudaFree's own work after its wait
  p.name = base.name + ", replaying " + (t.device_name.empty() ? "a recording" : t.device_name);
  return p;
}

}  // namespace


bool IsSyncCall(OpKind kind) {
  return kind == OpKind::kSyncDevice || kind == OpKind::kSyncStream || kind == OpKind::kSyncEvent;
}

bool IsAllocation(const Op& op) {
  if (op.kind == OpKind::kMalloc || op.kind == OpKind::kFree || op.kind == OpKind::kMallocHost) return true;
  return op.kind == OpKind::kApiCall && (op.name.rfind("cudaMalloc", 0) == 0 || op.name.rfind("cudaFree", 0) == 0 ||
                                         op.name.rfind("cuMem", 0) == 0);
}

bool BlocksHostInReplay(const Scenario& s, const Op& op) {
  switch (op.kind) {
    case OpKind::kSyncDevice:
    case OpKind::kSyncStream:
    case OpKind::kSyncEvent:
    case OpKind::kFree: return true;
    case OpKind::kMemcpy:
      return !op.async || s.buffers[op.src].kind == MemoryKind::kPageableHost ||
             s.buffers[op.dst].kind == MemoryKind::kPageableHost;
    case OpKind::kKernel: return s.settings.launch_blocking && op.graph < 0;
    default: return false;
  }
}

void RenumberOps(Replay& replay, std::vector<Op> ops, const std::vector<int>& moved, const std::vector<bool>& new_graph) {
  auto remap = [&](int& index) { index = index >= 0 ? moved[index] : -1; };
  for (size_t i = 0; i < ops.size(); ++i) {
    Op& op = ops[i];
    if (i >= new_graph.size() || !new_graph[i]) remap(op.graph);
    remap(op.woken_by);
    remap(op.collective_first);
    for (int& before : op.graph_after) remap(before);
  }
  replay.scenario.ops = std::move(ops);
  for (int& index : replay.op_of) remap(index);
}

void InsertCalls(Replay& replay, InsertedCalls before, InsertedCalls after) {
  std::vector<Op>& old = replay.scenario.ops;
  std::vector<Op> ops;
  ops.reserve(old.size() + before.size() + after.size());
  std::vector<int> moved(old.size(), -1);
  for (size_t i = 0; i < old.size(); ++i) {
    int at = static_cast<int>(i);
    for (auto [it, end] = before.equal_range(at); it != end; ++it) ops.push_back(std::move(it->second));
    moved[i] = static_cast<int>(ops.size());
    ops.push_back(std::move(old[i]));
    for (auto [it, end] = after.equal_range(at); it != end; ++it) ops.push_back(std::move(it->second));
  }
  RenumberOps(replay, std::move(ops), moved, {});
}

Op AddedCall(OpKind kind, const char* name, int stream, int event, int thread, TimeNs cost) {
  Op call;
  call.kind = kind;
  call.name = name;
  call.stream = stream;
  call.event = event;
  call.thread = thread;
  call.host_after = cost;
  return call;
}

int AddedEvent(Replay& replay, int stream, const std::string& name) {
  int event = static_cast<int>(replay.scenario.events.size());
  replay.scenario.events.push_back({name + " " + std::to_string(event), replay.scenario.streams[stream].device});
  return event;
}

DeviceProfile ProfileForRecording(const Trace& t) {
  for (const char* gpu : {"H100", "H200"})
    if (t.device_name.find(gpu) != std::string::npos) {
      std::string name = gpu;
      name[0] = 'h';
      try {
        return ResolveProfile(name);
      } catch (const InputError&) {
        break;  // assets not found: the built-in profile
      }
    }
  return DeviceProfile{};
}

Replay BuildReplay(const Trace& t, const DeviceProfile& base) {
  const Scenario& s = t.scenario;
  if (!s.recorded) throw InputError("replay needs a recorded or imported program's trace; a lab runs on the simulator itself");
  if (t.ops.size() != s.ops.size()) throw InputError("the trace's ops do not match its scenario");
  Replay r;
  r.measured = base;
  r.profile = ReplayProfile(t, base);
  r.typical_call = TypicalCall(t);
  r.scenario = s;
  r.scenario.ops.clear();
  r.scenario.settings.lazy_loading = false;  // a load's host time is in the recorded calls
  r.op_of.assign(s.ops.size(), -1);
  // Each call's next call on its thread, the call that woke it, and where each thread began.
  ThreadCalls calls(t);
  const std::vector<int>& next_call = calls.next_call();
  const std::vector<int>& wakers = calls.wakers();
  TimeNs origin = -1;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (IsRecordedCall(s.ops[i])) origin = origin < 0 ? t.ops[i].submit : std::min(origin, t.ops[i].submit);
  std::vector<bool> started(ThreadCount(s), false);
  std::vector<TimeNs> stream_free(s.streams.size(), 0);  // the end of each stream's latest GPU op
  auto replayed = [&](size_t i) {
    const Op& op = s.ops[i];
    TimeNs free_at = op.stream >= 0 ? stream_free[op.stream] : 0;
    if (op.stream >= 0 && t.ops[i].gpu) stream_free[op.stream] = std::max(free_at, t.ops[i].end);
    return Replayed(t, static_cast<int>(i), r.profile, free_at);
  };
  auto emit = [&](Op op) {
    r.scenario.ops.push_back(std::move(op));
    return static_cast<int>(r.scenario.ops.size()) - 1;
  };
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (!IsRecordedCall(op)) continue;  // nodes follow their launch below; recorded host work is in the gaps
    if (!started[op.thread]) {
      started[op.thread] = true;
      emit(HostWork(op.thread, wakers[i] >= 0 ? 0 : t.ops[i].submit - origin));  // a started thread waits for its starter
    }
    TimeNs from = BlocksHostInReplay(s, op) ? t.ops[i].ret : t.ops[i].submit;
    TimeNs to = next_call[i] >= 0 ? t.ops[next_call[i]].submit : t.ops[i].ret;
    // A thread woken by another: only its own call's time here; the wait is its waker's.
    if (next_call[i] >= 0 && wakers[next_call[i]] >= 0) to = std::max(from, t.ops[i].ret);
    Op call = replayed(i);
    call.host_after = std::max<TimeNs>(0, to - from);
    r.op_of[i] = emit(std::move(call));
    for (size_t j = i + 1; j < s.ops.size() && s.ops[j].graph == static_cast<int>(i); ++j) r.op_of[j] = emit(replayed(j));
  }
  std::vector<TimeNs> gaps;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].kind == OpKind::kKernel && s.ops[i].graph < 0 && r.op_of[i] >= 0 && !BlocksHostInReplay(s, s.ops[i]))
      gaps.push_back(r.scenario.ops[r.op_of[i]].host_after);
  r.typical_gap = MedianTime(gaps, r.typical_call);
  if (r.scenario.ops.size() > kMaxScenarioOps)
    throw InputError("the recording is too long to replay (" + std::to_string(r.scenario.ops.size()) +
                     " ops; at most " + std::to_string(kMaxScenarioOps) + ")");
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (wakers[i] >= 0 && r.op_of[i] >= 0) {
      Op& op = r.scenario.ops[r.op_of[i]];
      op.woken_by = wakers[i];  // made a replay index below
      op.woken_delay = t.ops[i].submit - t.ops[wakers[i]].ret;
    }
  // Indices that point at ops now point at their replayed ops.
  for (Op& op : r.scenario.ops) {
    if (op.woken_by >= 0) op.woken_by = r.op_of[op.woken_by];
    if (op.graph >= 0) op.graph = r.op_of[op.graph];
    for (int& before : op.graph_after) before = before >= 0 ? r.op_of[before] : -1;
    std::erase(op.graph_after, -1);
    if (op.collective_first >= 0) op.collective_first = r.op_of[op.collective_first];
  }
  return r;
}

}  // namespace streamlab
