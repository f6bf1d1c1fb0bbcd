// A Recording becomes a Scenario + Trace: one op per API call that matters, in the order
// the host made them (all threads on one clock), GPU spans from CUPTI activity joined by
// correlation id, streams and events identified by the program's own handles.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "engine/trace/graph_markers.h"
#include "engine/ingest/host_call_of_op.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/recording_graphs.h"
#include "engine/ingest/recording_ranges.h"
#include "engine/ingest/recording_streams.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

constexpr uint64_t kMaxBytes = uint64_t{8} << 30;
// CUPTI's memory kinds (CUpti_ActivityMemoryKind) and memcpy kinds.
constexpr int kCuptiPageable = 1, kCuptiPinned = 2, kCuptiHtoH = 9;
// Calls of no role and no kind (host_call_kinds.h) shorter than this are bookkeeping (the
// recorder keeps those >= 2 us); every call with a role or a kind is kept, however short.
constexpr uint64_t kMinApiCallNs = 2000;
// Most host threads a scenario holds (ValidateScenario): later ones share the last lane.
constexpr int kMaxHostThreads = 64;

MemoryKind KindOfCuptiMemory(int kind) {
  if (kind == kCuptiPageable) return MemoryKind::kPageableHost;
  if (kind == kCuptiPinned) return MemoryKind::kPinnedHost;
  return MemoryKind::kDevice;
}

class Converter {
 public:
  Converter(const Recording& r, size_t max_ops) : r_(r), graphs_(r), max_ops_(max_ops) {}
  // The recording's time (CUPTI's clock) that the trace calls 0.
  uint64_t time_zero() const { return t0_; }

  Trace Run() {
    Index();
    std::vector<const RecordedCall*> calls, before;
    for (const RecordedCall& c : r_.calls) {
      if (c.domain == 2 || c.role == CallRole::kCorrelationAlias) continue;
      if (InWindow(c)) calls.push_back(&c);
      else if (windowed_ && c.begin < window_begin_) before.push_back(&c);
    }
    auto by_time = [](const RecordedCall* a, const RecordedCall* b) { return a->begin < b->begin; };
    std::stable_sort(calls.begin(), calls.end(), by_time);
    // Graphs captured before the capture range (the recorder logs every call while a capture
    // is open): they make no ops, but their replays in the range take addresses and edges.
    std::stable_sort(before.begin(), before.end(), by_time);
    for (const RecordedCall* c : before) graphs_.Captured(*c);
    if (windowed_) range_start_ = SlowFirstLaunches(calls);
    // Room for the ops the calls become (Convert: one per GPU record, a graph launch's call, or
    // at most one for a call without GPU records), so the op arrays never regrow.
    size_t most = 0;
    for (size_t k = 0; k < calls.size() && most < max_ops_; ++k) {
      const auto* acts = ActivityOf(*calls[k]);
      most += acts ? acts->size() + (calls[k]->role == CallRole::kGraphLaunch) : 1;
    }
    s_.ops.reserve(std::min(most, max_ops_));
    t_.ops.reserve(std::min(most, max_ops_));
    for (size_t k = 0; k < calls.size(); ++k) {
      // A call becomes at most its API call and one op per GPU record. A run longer than a
      // scenario holds is explained up to the call that would not fit (its note: CutNote).
      const auto* acts = ActivityOf(*calls[k]);
      if (s_.ops.size() + 1 + (acts ? acts->size() : 0) > max_ops_) {
        cut_at_ = calls[k]->begin;
        calls_left_out_ = calls.size() - k;
        break;
      }
      Convert(*calls[k], acts);
    }
    // GPU work CUPTI could not time (a kernel that hit a device-side assert) is still a run: its
    // calls are the trace, and its note says what was left out. With no GPU work at all, there
    // is nothing to explain.
    if (kernels_ + copies_ == 0 && r_.untimed == 0)
      throw InputError("the recording holds no GPU work: the program made no kernel launch, copy or memset "
                       "(did it use CUDA at all?)");
    Finish();
    return std::move(t_);
  }

 private:
  // [SECTION] indexes over the log ------------------------------------------------------
  // A recording limited by --capture-range holds the range's marks: only calls made between
  // them are the program's ops (stream creations before it still name the streams' kinds).
  bool InWindow(const RecordedCall& c) const {
    return c.role != CallRole::kCaptureStart && c.role != CallRole::kCaptureStop && c.begin >= window_begin_ && c.begin <= window_end_;
  }

  void Index() {
    for (const RecordedCall& c : r_.calls) {
      if (c.role == CallRole::kCaptureStart) window_begin_ = windowed_ = c.begin;
      if (c.role == CallRole::kCaptureStart) timed_window_ = c.function == "record --delay";  // record --delay, not the program's call
      if (c.role == CallRole::kCaptureStop) window_end_ = c.begin;
    }
    if (windowed_ == 0 && window_end_ != UINT64_MAX) window_end_ = UINT64_MAX;  // a stop without a start
    t0_ = UINT64_MAX;
    for (const RecordedCall& c : r_.calls) {
      if (InWindow(c)) t0_ = std::min(t0_, c.begin);
      if (c.role == CallRole::kCorrelationAlias) alias_[c.correlation] = c.parent;
      if (c.role == CallRole::kModuleLoad && c.correlation) module_loaded_in_.insert(c.correlation);
      if (c.role == CallRole::kContextCreated && c.correlation) context_created_in_.insert(c.correlation);
      if (c.role == CallRole::kNvtxPush || c.role == CallRole::kNvtxPop) ranges_.Add(c.thread, c.begin, c.role == CallRole::kNvtxPush, &c.text, false);
    }
    for (const RecordedMark& m : r_.marks) {
      if (m.at >= window_begin_ && m.at <= window_end_) t0_ = std::min(t0_, m.at);
      const std::string& name = m.text;
      ranges_.Add(m.thread, m.at, m.push, &name, m.frame);
    }
    ranges_.SortByTime();
    for (const RecordedActivity& a : r_.activity) {
      if (a.begin >= window_begin_) t0_ = std::min(t0_, a.begin);
      uint64_t corr = a.correlation;
      if (auto it = alias_.find(corr); it != alias_.end()) corr = it->second;
      activity_[corr].push_back(&a);
      device_count_ = std::max(device_count_, a.device + 1);
    }
    // A device only calls were made on (its legacy stream used for events, but ran nothing).
    for (const RecordedCall& c : r_.calls) device_count_ = std::max(device_count_, c.device + 1);
    for (const RecordedDevice& d : r_.devices) device_count_ = std::max(device_count_, d.id + 1);
    device_count_ = std::min(device_count_, 16);
    std::map<int, size_t> work_on;
    for (const RecordedActivity& a : r_.activity) ++work_on[a.device];
    size_t most = 0;
    for (const auto& [device, n] : work_on)
      if (n > most && device < device_count_) main_device_ = device, most = n;
    s_.device_count = device_count_;
    streams_.Index(device_count_, main_device_);
    s_.recorded = true;
    s_.settings.warmup = true;  // module loads appear as the program's own calls
    ApplyRecordedSettings(r_, s_.settings);
    s_.name = (r_.source == "kineto" ? "profiled program" : "recorded program") + (r_.pid ? " (pid " + std::to_string(r_.pid) + ")" : std::string());
  }

  // A damaged log can hold any 64-bit time: one more than a day from the first is refused
  // here, where every time the trace uses passes, rather than overflowing a sum later.
  TimeNs T(uint64_t cupti) const {
    auto t = static_cast<TimeNs>(cupti - t0_);
    if (!WithinTraceSpan(t))
      throw InputError("a CUPTI time in the recording (" + std::to_string(cupti) +
                       " ns) lies more than a day from its first (" + std::to_string(t0_) +
                       " ns): the log is damaged");
    return t;
  }

  // A program with more host threads than a scenario holds keeps them all: the later ones share
  // the last lane (a note says so).
  int Thread(int recorder_thread) {
    auto [it, fresh] = threads_.emplace(recorder_thread, std::min(static_cast<int>(threads_.size()), kMaxHostThreads - 1));
    if (fresh && threads_.size() > kMaxHostThreads) ++folded_threads_;
    return it->second;
  }

  int Event(uint64_t handle, int stream) {
    if (auto it = event_of_handle_.find(handle); it != event_of_handle_.end()) return it->second;
    auto named = r_.event_names.find(handle);
    std::string name = named != r_.event_names.end() ? named->second : "e" + std::to_string(s_.events.size() + 1);
    EventDesc e{name, stream >= 0 ? s_.streams[stream].device : 0};
    s_.events.push_back(e);
    return event_of_handle_[handle] = static_cast<int>(s_.events.size()) - 1;
  }

  // One buffer per memory kind (and, for GPU memory, per device) stands for "some memory of
  // that kind": the log says which kind each copy touched, not which bytes, so races are not
  // checked here. Host memory is one pool whichever GPU copied it (names must be unique).
  int Pooled(MemoryKind kind, int device, uint64_t bytes) {
    int key = static_cast<int>(kind) * 16 + (kind == MemoryKind::kDevice ? device : 0);
    auto it = pooled_.find(key);
    if (it == pooled_.end()) {
      BufferDesc b;
      b.kind = kind;
      b.device = kind == MemoryKind::kDevice ? device : 0;
      b.name = kind == MemoryKind::kDevice ? "GPU " + std::to_string(device) + " memory" : ToString(kind) + std::string(" host memory");
      b.bytes = 1;
      s_.buffers.push_back(b);
      it = pooled_.emplace(key, static_cast<int>(s_.buffers.size()) - 1).first;
    }
    BufferDesc& b = s_.buffers[it->second];
    b.bytes = std::max(b.bytes, std::min(std::max<uint64_t>(bytes, 1), kMaxBytes));
    return it->second;
  }

  int Allocation(MemoryKind kind, uint64_t pointer, uint64_t bytes, int device) {
    BufferDesc b;
    b.kind = kind;
    b.device = kind == MemoryKind::kDevice ? device : 0;
    b.bytes = std::min(std::max<uint64_t>(bytes, 1), kMaxBytes);
    b.name = (kind == MemoryKind::kDevice ? "allocation " : "pinned allocation ") + std::to_string(s_.buffers.size() + 1);
    s_.buffers.push_back(b);
    int index = static_cast<int>(s_.buffers.size()) - 1;
    if (pointer) buffer_of_pointer_[pointer] = index;
    return index;
  }

  // [SECTION] one call -> its ops ---------------------------------------------------------
  int Add(Op op, const RecordedCall& c, const RecordedActivity* gpu = nullptr) {
    OpRecord rec;
    rec.op = static_cast<int>(s_.ops.size());
    rec.submit = T(c.begin);
    rec.ret = T(c.end);
    if (c.inferred) {
      rec.inferred = c.inferred->en;
      rec.inferred_zh = c.inferred->zh;
      rec.slow_range_start = c.inferred->slow_range_start;
    }
    rec.loaded_module = module_loaded_in_.count(c.correlation) > 0;
    rec.created_context = context_created_in_.count(c.correlation) > 0;
    rec.recorder_before = c.own_ns;
    rec.recorder_inside = std::min<TimeNs>(c.own_in_ns, c.end > c.begin ? static_cast<TimeNs>(c.end - c.begin) : 0);
    if (gpu) {
      rec.gpu = true;
      rec.ready = rec.start = T(gpu->begin);
      rec.end = T(gpu->end);
      rec.note = ranges_.LabelAt(c.thread, c.begin);
    }
    s_.ops.push_back(std::move(op));
    t_.ops.push_back(std::move(rec));
    return static_cast<int>(s_.ops.size()) - 1;
  }

  void AddApiCall(const RecordedCall& c, int thread, const std::string& suffix = "") {
    bool bookkeeping = c.role == CallRole::kOther && HostCallKindOfName(c.function) == HostCallKind::kOther;
    if (c.end - c.begin < kMinApiCallNs && suffix.empty() && bookkeeping) return;
    Op op;
    op.kind = OpKind::kApiCall;
    op.name = c.function + suffix;
    op.thread = thread;
    op.duration = T(c.end) - T(c.begin);
    Add(std::move(op), c);
  }

  const std::vector<const RecordedActivity*>* ActivityOf(const RecordedCall& c) {
    auto it = activity_.find(c.correlation);
    return it == activity_.end() ? nullptr : &it->second;
  }

  // `acts`: the call's GPU records (ActivityOf), looked up once by Run.
  void Convert(const RecordedCall& c, const std::vector<const RecordedActivity*>* acts) {
    CallRole role = c.role;
    // What the recorder logged inside a call (graph nodes, edges, loads): not calls themselves.
    if (role == CallRole::kGraphNode || role == CallRole::kGraphNodeClone || role == CallRole::kGraphNodeParams || role == CallRole::kGraphEdge ||
        role == CallRole::kGraphNodeUpdate || role == CallRole::kGraphExecEdit || role == CallRole::kModuleLoad ||
        role == CallRole::kContextCreated)
      return;
    int thread = Thread(c.thread);
    streams_.Follow(c, thread);
    // Built a graph node (or an edge) and ran nothing: the replay runs it; its time is the graph's
    // building, kept however short (a re-captured graph's launches are most of its building).
    if (graphs_.Captured(c)) return AddApiCall(c, thread, std::string(kCapturedIntoGraph));
    if (role == CallRole::kLaunch || role == CallRole::kGraphLaunch || role == CallRole::kMemcpy || role == CallRole::kMemcpyAsync ||
        role == CallRole::kPeerCopy || role == CallRole::kMemset || role == CallRole::kMemsetAsync) {
      if (!acts) return AddApiCall(c, thread, role == CallRole::kGraphLaunch ? "" : " (no GPU record: not delivered before the program ended)");
      // A copy only for a capture range's slow first launches (their inference differs).
      std::optional<RecordedCall> slow;
      if (windowed_ && RangeStartCost(c, range_start_) != c.inferred) {
        slow = c;
        slow->inferred = RangeStartCost(c, range_start_);
      }
      const RecordedCall& call = slow ? *slow : c;
      if (role == CallRole::kGraphLaunch) return AddReplay(call, *acts, thread);
      for (const RecordedActivity* a : *acts) AddGpuWork(call, *a, thread, role == CallRole::kMemcpy || role == CallRole::kMemset);
      return;
    }
    Op op;
    op.thread = thread;
    if (role == CallRole::kRecord || role == CallRole::kWaitEvent) {
      op.kind = role == CallRole::kRecord ? OpKind::kRecord : OpKind::kWaitEvent;
      op.stream = streams_.OfCall(c, thread);
      if (op.stream < 0) return AddApiCall(c, thread, " (stream not identified)");
      op.event = Event(c.event, op.stream);
      if (role == CallRole::kRecord) recorded_in_window_.insert(c.event);
      if (role == CallRole::kWaitEvent && windowed_ && !recorded_in_window_.count(c.event)) {
        // Its record, if any, came before the capture range: not "waited for nothing".
        RecordedCall before = c;
        before.inferred = WaitBeforeRange();
        Add(std::move(op), before);
        return;
      }
    } else if (role == CallRole::kWaitWithoutRecord) {
      // Kept however short it was: findings that say nothing held an op name it as a
      // possible cause the trace cannot show.
      op.kind = OpKind::kApiCall;
      op.name = c.function;
      op.duration = T(c.end) - T(c.begin);
      t_.ops[Add(std::move(op), c)].note = kUnrecordedWait;
      return;
    } else if (role == CallRole::kSyncDevice) {
      op.kind = OpKind::kSyncDevice;
    } else if (role == CallRole::kSyncStream) {
      op.kind = OpKind::kSyncStream;
      op.stream = streams_.OfCall(c, thread);
      if (op.stream < 0) return AddApiCall(c, thread);
    } else if (role == CallRole::kSyncEvent || role == CallRole::kQueryEvent) {
      op.kind = role == CallRole::kSyncEvent ? OpKind::kSyncEvent : OpKind::kQuery;
      op.event = Event(c.event, -1);
      op.query_ready = role == CallRole::kQueryEvent && c.value != 0;
    } else if (role == CallRole::kMallocAsync || role == CallRole::kFreeAsync) {
      // Stream-ordered pool memory, kept however short: a block freed on one stream and
      // handed out on another orders the two streams (happens_before.cpp).
      op.kind = OpKind::kApiCall;
      op.name = c.function;
      op.duration = T(c.end) - T(c.begin);
      op.other_stream = streams_.OfCall(c, thread);
      op.bytes = c.size;
      if (c.status == 0 && c.out && op.other_stream >= 0)
        op.addresses = {{c.out, role == CallRole::kMallocAsync ? AddressUse::kAllocate : AddressUse::kFree}};
    } else if (role == CallRole::kMalloc) {
      op.kind = OpKind::kMalloc;
      op.buffer = Allocation(MemoryKind::kDevice, c.out, c.size, streams_.DeviceOf(thread, main_device_));
    } else if (role == CallRole::kMallocHost) {
      op.kind = OpKind::kMallocHost;
      op.buffer = Allocation(MemoryKind::kPinnedHost, c.out, c.size, 0);
    } else if (role == CallRole::kFree && buffer_of_pointer_.count(c.out)) {
      op.kind = OpKind::kFree;
      op.buffer = buffer_of_pointer_[c.out];
      buffer_of_pointer_.erase(c.out);
    } else if (role == CallRole::kSetDevice && c.value >= 0 && c.value < device_count_) {
      op.kind = OpKind::kSetDevice;
      op.device = c.value;
    } else {
      if (role == CallRole::kEventDestroy) event_of_handle_.erase(c.event);
      return AddApiCall(c, thread);
    }
    int index = Add(std::move(op), c);
    if (role == CallRole::kQueryEvent) t_.ops[index].note = c.value ? "ready" : "not ready";
  }

  // A graph launch: its call, kept however short (its nodes name it and the stream it was
  // launched into), then the nodes it ran, in start order (a node starts after those before it).
  void AddReplay(const RecordedCall& c, const std::vector<const RecordedActivity*>& acts, int thread) {
    Op launch;
    launch.kind = OpKind::kApiCall;
    launch.name = c.function;
    launch.thread = thread;
    launch.duration = T(c.end) - T(c.begin);
    launch.other_stream = streams_.OfCall(c, thread);
    bool linked = launch.other_stream >= 0;
    ReplayedLaunch replay(graphs_, Add(std::move(launch), c), c, tally_);
    std::vector<const RecordedActivity*> by_start = acts;
    std::stable_sort(by_start.begin(), by_start.end(),
                     [](const RecordedActivity* x, const RecordedActivity* y) { return x->begin < y->begin; });
    for (const RecordedActivity* a : by_start) AddGpuWork(c, *a, thread, false, linked ? &replay : nullptr);
  }

  // A GPU record the "no API call" note counts: begun inside the window, before any cut. Work
  // that began after a capture range closed (a timed stop keeps GPU records coming a while, for
  // the work in flight) is after the window, not unexplained.
  bool Counted(const RecordedActivity& a) const {
    return a.begin >= window_begin_ && a.begin < cut_at_ && a.begin <= window_end_;
  }

  // `replay`: the graph launch whose node this is (its ops must follow the launch unbroken).
  void AddGpuWork(const RecordedCall& c, const RecordedActivity& a, int thread, bool synchronous,
                  ReplayedLaunch* replay = nullptr) {
    if (Counted(a)) ++placed_;
    auto moved_nothing = [&] {
      if (!replay) AddApiCall(c, thread);
    };
    Op op;
    op.thread = thread;
    // A node of a graph launch; a Kineto trace names no node, but its launch placed it.
    bool replayed = c.role == CallRole::kGraphLaunch && (a.graph_node != 0 || replay);
    // CUDA may run a replay's node on a stream of the graph's own, not the one it was launched into.
    if (replayed && c.stream_id >= 0 && c.stream_id != a.stream_id) op.stream = streams_.OfGraphStream(a, thread);
    else op.stream = streams_.OfWork(a, c, thread);
    int device = s_.streams[op.stream].device;
    if (a.type == "kernel") {
      op.kind = OpKind::kKernel;
      op.name = ShortKernelName(a.name, &op.kernel.function);
      op.kernel.kind = KernelKind::kForeign;
      op.kernel.grid = static_cast<int>(std::min<int64_t>(a.grid, INT32_MAX));
      op.kernel.block = static_cast<int>(a.block);
      op.kernel.work = T(a.end) - T(a.begin);
      op.kernel.registers = a.registers;
      op.kernel.shared_bytes = a.shared_bytes;
      const RecordedDevice* d = DeviceInfo(device);
      if (d) op.kernel.max_blocks_per_sm = EstimateBlocksPerSm(*d, op.kernel.block, a.registers, a.shared_bytes);
      ++kernels_;
    } else if (a.type == "memcpy") {
      if (a.copy_kind == kCuptiHtoH || a.bytes == 0) return moved_nothing();
      op.kind = OpKind::kMemcpy;
      op.async = !synchronous;
      op.bytes = std::min(a.bytes, kMaxBytes);
      op.src = Pooled(KindOfCuptiMemory(a.src_kind), device, op.bytes);
      op.dst = Pooled(KindOfCuptiMemory(a.dst_kind), device, op.bytes);
      if (op.src == op.dst && s_.buffers[op.src].kind != MemoryKind::kDevice) return moved_nothing();
      ++copies_;
    } else {
      if (a.bytes == 0) return moved_nothing();
      op.kind = OpKind::kMemset;
      op.async = !synchronous;
      op.bytes = std::min(a.bytes, kMaxBytes);
      op.buffer = Pooled(MemoryKind::kDevice, device, op.bytes);
      ++copies_;
    }
    // A replayed node was handed what its node was set to: by the call that captured or
    // built it, or set its parameters again.
    ReplayedLaunch::Placed placed = replay ? replay->Place(op, static_cast<int>(s_.ops.size()), a.graph_node)
                                           : ReplayedLaunch::Placed{};
    if (!replayed || placed.addresses) op.addresses = AddressesOf(placed.addresses ? *placed.addresses : c, op.kind);
    if (replayed && !replay) tally_.Unchecked();
    if (!replayed) ++submitted_;  // its own call (a graph launch's nodes share one)
    else graph_launches_.insert(&c);
    int index = Add(std::move(op), c, &a);
    if (replayed) MarkReplayed(t_.ops[index], graphs_.CapturedIn(a.graph_node), placed.node);
  }

  // What the call was handed: a kernel's arguments (how it uses them is unknown), a copy's
  // destination (written) and source (read), a memset's destination (written).
  static std::vector<AddressPassed> AddressesOf(const RecordedCall& c, OpKind kind) {
    std::vector<AddressPassed> out;
    bool offsets = kind == OpKind::kKernel && c.arg_offsets.size() == c.args.size();
    for (size_t i = 0; i < c.args.size(); ++i)
      out.push_back({c.args[i], kind == OpKind::kKernel ? AddressUse::kArgument : i ? AddressUse::kRead : AddressUse::kWrite,
                     offsets ? static_cast<int>(c.arg_offsets[i]) : -1});
    return out;
  }

  const RecordedDevice* DeviceInfo(int device) const {
    for (const RecordedDevice& d : r_.devices)
      if (d.id == device) return &d;
    return nullptr;
  }

  // [SECTION] finishing: marker times, ranges, metadata ---------------------------------
  // From the first GPU work's submission to the end of the last (CUDA's start-up before it,
  // often most of a short program, is not what recording slows). Call after Finish moved the
  // scenario into the trace.
  TimeNs WorkSpan() const {
    TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
    for (const OpRecord& rec : t_.ops) {
      OpKind kind = t_.scenario.ops[rec.op].kind;
      bool work = kind == OpKind::kKernel || kind == OpKind::kMemcpy || kind == OpKind::kMemset ||
                  kind == OpKind::kPeerCopy || kind == OpKind::kCollective;
      if (!rec.gpu || !work) continue;
      first = std::min(first, rec.submit);
      last = std::max({last, rec.ret, rec.end});
    }
    return last > first ? last - first : 0;
  }

  void Finish() {
    ranges_.AppendRanges(cut_at_, windowed_ ? window_begin_ : 0, [this](int thread) { return Thread(thread); }, [this](uint64_t at) { return T(at); }, t_.ranges);
    t_.scenario = std::move(s_);
    if (windowed_) t_.recorded_from = T(window_begin_);
    PlaceRecordedMarkers(t_, windowed_ != 0);
    if (!r_.devices.empty()) {
      t_.device_name = r_.devices.front().name;
      t_.sm_count = r_.devices.front().sms;
    }
    bool kineto = r_.source == "kineto";
    t_.backend = r_.source;
    t_.driver = r_.driver;
    t_.notes.push_back(Note(kineto ? "imported" : "recorded", {{"calls", std::to_string(r_.calls.size())},
                                                                {"kernels", std::to_string(kernels_)},
                                                                {"copies", std::to_string(copies_)}}));
    t_.notes.push_back(Note("cupti_clock"));
    t_.notes.push_back(SettingsNote(t_.scenario.settings, true));
    if (TraceNote note = PriorityNote(t_.scenario); !note.key.empty()) t_.notes.push_back(std::move(note));
    for (TraceNote& note : MemoryNotes(r_)) t_.notes.push_back(std::move(note));
    for (TraceNote& note : PythonStackNotes(r_)) t_.notes.push_back(std::move(note));
    for (TraceNote& note : HostCostNotes(r_, submitted_ + graph_launches_.size(), WorkSpan())) t_.notes.push_back(std::move(note));
    if (r_.addresses == 1)
      for (TraceNote& note : tally_.Notes()) t_.notes.push_back(std::move(note));
    t_.notes.push_back(Note("clock_not_measured"));
    if (windowed_) {
      TimeNs last = 0;
      for (const OpRecord& rec : t_.ops) last = std::max({last, rec.ret, rec.end});
      uint64_t end = window_end_ != UINT64_MAX ? window_end_ : t0_ + static_cast<uint64_t>(last);
      std::string us = std::to_string(end > window_begin_ ? (end - window_begin_) / 1000 : 0);
      // The first clock pair is read as the recorder starts, when the program initialises CUDA.
      uint64_t cuda_init = r_.clocks.empty() ? window_begin_ : r_.clocks.front().cupti;
      std::string after = FormatDuration(static_cast<TimeNs>(window_begin_ > cuda_init ? window_begin_ - cuda_init : 0));
      t_.notes.push_back(timed_window_ ? Note("timed_range", {{"after", after}, {"us", us}}) : Note("capture_range", {{"us", us}}));
    }
    if (calls_left_out_) {
      uint64_t last = cut_at_;  // the run's last call, where it ended
      for (const RecordedCall& c : r_.calls)
        if (c.domain != 2 && InWindow(c)) last = std::max(last, c.end);
      t_.notes.insert(t_.notes.begin(), CutNote(r_, t_.ops.size(), T(cut_at_), T(last), calls_left_out_));
    }
    for (const TraceNote& note : r_.notes) t_.notes.push_back(note);
    if (r_.cupti_overhead_ns)
      t_.notes.push_back(Note("cupti_overhead", {{"us", std::to_string(r_.cupti_overhead_ns / 1000)}}));
    if (r_.dropped) t_.notes.push_back(Note("cupti_dropped", {{"n", std::to_string(r_.dropped)}}));
    if (r_.untimed) t_.notes.push_back(Note("cupti_untimed", {{"n", std::to_string(r_.untimed)}}));
    if (threads_.size() > 1) t_.notes.push_back(Note("host_threads", {{"n", std::to_string(threads_.size())}}));
    if (folded_threads_)
      t_.notes.push_back(std::to_string(folded_threads_) + " host threads beyond the " + std::to_string(kMaxHostThreads) +
                         "th share its lane (a trace holds " + std::to_string(kMaxHostThreads) + ")");
    if (streams_.joined_legacy())
      t_.notes.push_back(std::to_string(streams_.joined_legacy()) + " more CUPTI stream ids than one per device were "
                         "used as a legacy default stream (a log that does not say each call's device): each device has "
                         "one, so they are shown as their device's legacy default stream");
    size_t in_window = 0;
    for (const RecordedActivity& a : r_.activity) in_window += Counted(a) ? 1 : 0;
    if (in_window > placed_)
      t_.notes.push_back(Note("unplaced_activity", {{"n", std::to_string(in_window - placed_)}}));
  }

  const Recording& r_;
  RecordedGraphs graphs_;
  size_t max_ops_;
  uint64_t cut_at_ = UINT64_MAX;  // the first call left out (CUPTI time), when the run was cut
  size_t calls_left_out_ = 0;
  Scenario s_;
  Trace t_;
  RecordedStreams streams_{r_, s_};  // after s_: it appends to its streams
  uint64_t t0_ = 0;
  uint64_t windowed_ = 0, window_begin_ = 0, window_end_ = UINT64_MAX;  // the capture range
  bool timed_window_ = false;  // chosen by time (record --delay/--duration)
  SlowLaunches range_start_;  // each thread's first launch of the capture range, when slow
  std::set<uint64_t> recorded_in_window_;                              // event handles
  int device_count_ = 1;
  int main_device_ = 0;  // the device with the most GPU work
  size_t folded_threads_ = 0;  // host threads past the most a scenario holds
  int kernels_ = 0, copies_ = 0;
  size_t submitted_ = 0;  // GPU ops submitted by a call of their own (not replayed from a graph)
  std::set<const RecordedCall*> graph_launches_;  // the graph launches whose nodes ran
  ReplayTally tally_;  // replayed nodes the race check could not follow
  size_t placed_ = 0;  // GPU records that became ops (or API calls, when they moved nothing)
  std::map<uint64_t, uint64_t> alias_;
  std::set<uint64_t> module_loaded_in_;  // correlations of calls CUDA loaded a module in
  std::set<uint64_t> context_created_in_;  // ... and created a context in
  std::map<uint64_t, std::vector<const RecordedActivity*>> activity_;
  std::map<uint64_t, int> event_of_handle_;
  std::map<int, int> pooled_;
  std::map<uint64_t, int> buffer_of_pointer_;
  std::map<int, int> threads_;
  RecordingRanges ranges_;
};

}  // namespace

Trace TraceFromRecording(const Recording& recording, uint64_t* time_zero, size_t max_ops) {
  Converter converter(recording, max_ops);
  Trace t = converter.Run();
  if (time_zero) *time_zero = converter.time_zero();
  ValidateScenario(t.scenario);
  return t;
}

}  // namespace streamlab
