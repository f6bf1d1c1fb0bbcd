// Reading a torch.profiler (Kineto) Chrome trace into a Recording: API calls from the
// cuda_runtime / cuda_driver events (role from the function's name), GPU activity from the
// kernel / gpu_memcpy / gpu_memset events, waits and syncs completed by their cuda_sync
// records, PyTorch ops and user annotations as ranges. Joined by correlation id.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <string_view>

#include "engine/ingest/kineto.h"
#include "engine/ingest/kineto_parse.h"
#include "engine/ingest/range_nesting.h"
#include "engine/util/errors.h"
#include "engine/util/json_scan.h"

namespace streamlab {
namespace {

constexpr size_t kMaxEvents = 4'000'000;
constexpr double kMaxMicroseconds = 1e16;
// The longest a trace may run from its first event to an event's end: a day. Longer is a
// broken clock (or a hand-edited file), and would overflow the nanosecond arithmetic.
constexpr double kMaxSpanMicroseconds = 86400e6;

// Kineto's names carry version and per-thread suffixes: cudaMemcpyAsync_ptsz, cuMemAlloc_v2.
std::string BaseName(std::string name, bool* per_thread) {
  for (bool cut = true; cut;) {
    cut = false;
    size_t us = name.rfind('_');
    if (us == std::string::npos) break;
    std::string tail = name.substr(us + 1);
    bool version = tail.size() > 1 && tail[0] == 'v' && std::all_of(tail.begin() + 1, tail.end(), ::isdigit);
    if (tail == "ptsz" || tail == "ptds") *per_thread = true;
    if (version || tail == "ptsz" || tail == "ptds") {
      name.resize(us);
      cut = true;
    }
  }
  return name;
}

CallRole RoleOf(const std::string& name) {
  static const std::map<std::string, CallRole> roles{
      {"cudaLaunchKernel", CallRole::kLaunch}, {"cudaLaunchKernelExC", CallRole::kLaunch}, {"cudaLaunchCooperativeKernel", CallRole::kLaunch},
      {"cuLaunchKernel", CallRole::kLaunch}, {"cuLaunchKernelEx", CallRole::kLaunch}, {"cuLaunchCooperativeKernel", CallRole::kLaunch},
      {"cudaGraphLaunch", CallRole::kGraphLaunch}, {"cuGraphLaunch", CallRole::kGraphLaunch},
      {"cudaEventRecord", CallRole::kRecord}, {"cudaEventRecordWithFlags", CallRole::kRecord}, {"cuEventRecord", CallRole::kRecord},
      {"cuEventRecordWithFlags", CallRole::kRecord}, {"cudaStreamWaitEvent", CallRole::kWaitEvent}, {"cuStreamWaitEvent", CallRole::kWaitEvent},
      {"cudaDeviceSynchronize", CallRole::kSyncDevice}, {"cuCtxSynchronize", CallRole::kSyncDevice},
      {"cudaStreamSynchronize", CallRole::kSyncStream}, {"cuStreamSynchronize", CallRole::kSyncStream},
      {"cudaEventSynchronize", CallRole::kSyncEvent}, {"cuEventSynchronize", CallRole::kSyncEvent},
      {"cudaMalloc", CallRole::kMalloc}, {"cuMemAlloc", CallRole::kMalloc}, {"cudaFree", CallRole::kFree}, {"cuMemFree", CallRole::kFree},
      {"cudaMallocHost", CallRole::kMallocHost}, {"cudaHostAlloc", CallRole::kMallocHost}, {"cuMemAllocHost", CallRole::kMallocHost},
      {"cuMemHostAlloc", CallRole::kMallocHost}, {"cudaHostRegister", CallRole::kHostRegister}, {"cudaFreeHost", CallRole::kFreeHost},
      {"cudaMemcpy", CallRole::kMemcpy}, {"cudaMemcpy2D", CallRole::kMemcpy}, {"cuMemcpyHtoD", CallRole::kMemcpy}, {"cuMemcpyDtoH", CallRole::kMemcpy},
      {"cuMemcpyDtoD", CallRole::kMemcpy}, {"cuMemcpy", CallRole::kMemcpy}, {"cudaMemcpyAsync", CallRole::kMemcpyAsync},
      {"cudaMemcpy2DAsync", CallRole::kMemcpyAsync}, {"cuMemcpyHtoDAsync", CallRole::kMemcpyAsync},
      {"cuMemcpyDtoHAsync", CallRole::kMemcpyAsync}, {"cuMemcpyDtoDAsync", CallRole::kMemcpyAsync}, {"cuMemcpyAsync", CallRole::kMemcpyAsync},
      {"cudaMemset", CallRole::kMemset}, {"cuMemsetD8", CallRole::kMemset}, {"cuMemsetD32", CallRole::kMemset},
      {"cudaMemsetAsync", CallRole::kMemsetAsync}, {"cuMemsetD8Async", CallRole::kMemsetAsync}, {"cuMemsetD32Async", CallRole::kMemsetAsync},
      {"cudaMemcpyPeerAsync", CallRole::kPeerCopy}};
  auto it = roles.find(name);
  return it == roles.end() ? CallRole::kOther : it->second;
}

// CUPTI's memory kinds, from the words Kineto puts in a copy's name.
int MemoryKindOf(const std::string& word) {
  if (word == "Pageable") return 1;
  if (word == "Pinned") return 2;
  if (word == "Device") return 3;
  if (word == "Managed") return 5;
  return 0;
}

// "Memcpy HtoD (Pageable -> Device)" -> copy kind 1, src 1, dst 3.
void ReadCopyName(const std::string& name, RecordedActivity& a) {
  static const std::map<std::string, int> kinds{{"HtoD", 1}, {"DtoH", 2}, {"HtoA", 3}, {"AtoH", 4}, {"AtoA", 5},
                                                {"AtoD", 6}, {"DtoA", 7}, {"DtoD", 8}, {"HtoH", 9}, {"PtoP", 10}};
  size_t space = name.find(' ');
  size_t open = name.find('(');
  if (space != std::string::npos) {
    auto it = kinds.find(name.substr(space + 1, name.find(' ', space + 1) - space - 1));
    if (it != kinds.end()) a.copy_kind = it->second;
  }
  size_t arrow = name.find(" -> ");
  if (open != std::string::npos && arrow != std::string::npos && arrow > open) {
    a.src_kind = MemoryKindOf(name.substr(open + 1, arrow - open - 1));
    size_t close = name.find(')', arrow);
    a.dst_kind = MemoryKindOf(name.substr(arrow + 4, close == std::string::npos ? std::string::npos : close - arrow - 4));
  }
}

int BlocksPerSmOfCapability(int major, int minor) {
  if (major == 8 && minor == 9) return 24;
  if ((major == 8 && minor > 0) || (major == 7 && minor == 5)) return 16;
  return major >= 5 ? 32 : 16;
}

class KinetoReader {
 public:
  explicit KinetoReader(const std::string& path) : path_(path) {}

  // Called by the parser with every complete ("X") event, in file order. The first malformed
  // event's error waits until the whole file is read, so that what the file is (not a
  // profiler trace, StreamLab's own export, ...) is said first.
  void OnEvent(const Json& e, size_t i) {
    if (!event_error_.empty() || i >= kMaxEvents) return;
    try {
      ReadEvent(e, i);
    } catch (const InputError& error) {
      event_error_ = error.what();
    }
  }

  Recording Finish(const KinetoDocument& doc) {
    root_ = &doc.root;
    if (!root_->is_object() || !root_->contains("traceEvents") || !(*root_)["traceEvents"].is_array())
      throw InputError(path_ + ": not a torch.profiler trace (no \"traceEvents\" array)");
    if (doc.events_in_file > kMaxEvents) throw InputError(path_ + ": more than 4000000 trace events");
    const Json* other = root_->contains("otherData") ? &(*root_)["otherData"] : nullptr;
    if (other && other->is_object() && other->contains("clock_error_ns"))
      throw InputError(path_ + ": this is StreamLab's own Chrome export (for Perfetto or chrome://tracing); open "
                       "the StreamLab trace it was exported from");
    if (!event_error_.empty()) throw InputError(event_error_);
    r_.source = "kineto";
    r_.default_non_blocking = true;
    ReadDevices();
    PlaceInTime();
    // ROCm's PyTorch writes HIP calls in CUDA's categories: read as CUDA, they would mislead.
    if (r_.activity.empty() || hip_calls_ > 0) throw InputError(path_ + ": " + WhyNoGpuWork());
    JoinCalls();
    AddRanges();
    Describe();
    return std::move(r_);
  }

 private:
  // A trace with no GPU records: say what it is instead, and how to profile the GPU too.
  std::string WhyNoGpuWork() const {
    auto count = [&](const char* cat) {
      auto it = categories_.find(cat);
      return it == categories_.end() ? 0 : it->second;
    };
    if (hip_calls_ > 0)
      return "this trace is from an AMD GPU (" + std::to_string(hip_calls_) +
             " HIP calls such as hipLaunchKernel); StreamLab explains NVIDIA CUDA traces";
    for (const auto& [cat, n] : categories_)
      if (cat.rfind("mtia", 0) == 0)
        return "this trace is from an MTIA accelerator (\"" + cat + "\" events); StreamLab explains NVIDIA CUDA traces";
    size_t calls = count("cuda_runtime") + count("cuda_driver");
    std::string hint = "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]";
    if (count("cuda_profiler_range") > 0)
      return "the trace holds " + std::to_string(count("cuda_profiler_range")) +
             " CUPTI profiler ranges (counter profiling) and no kernel, copy or memset records, so there is no GPU "
             "timeline to explain; " + hint + " and without the CUPTI range profiler";
    if (calls > 0)
      return "the trace holds " + std::to_string(calls) +
             " CUDA API calls but no kernel, copy or memset records: the GPU side was not profiled; " + hint;
    if (count("cpu_op") > 0)
      return "the trace holds only CPU work (" + std::to_string(count("cpu_op")) +
             " PyTorch ops, no CUDA calls or GPU records): it was profiled without CUDA activity, or the program "
             "ran on the CPU; " + hint;
    return "no torch.profiler CUDA records in this Chrome trace (no cuda_runtime, kernel, gpu_memcpy or gpu_memset "
           "events); StreamLab reads torch.profiler traces of CUDA programs";
  }

  // [SECTION] fields ------------------------------------------------------------------------
  [[noreturn]] void Fail(size_t i, const std::string& what) const {
    throw InputError(path_ + ": traceEvents[" + std::to_string(i) + "]" + what);
  }

  double Micros(const Json& e, const char* key, size_t i, bool required) const {
    auto it = e.find(key);
    if (it == e.end()) {
      if (required) Fail(i, "." + std::string(key) + ": missing");
      return 0;
    }
    if (!it->is_number()) Fail(i, "." + std::string(key) + ": expected a number of microseconds");
    double v = it->get<double>();
    if (!std::isfinite(v) || v < 0 || v > kMaxMicroseconds) Fail(i, "." + std::string(key) + ": out of range");
    return v;
  }

  int64_t Arg(const Json& args, const char* key, size_t i, int64_t fallback, int64_t lo = -1,
              int64_t hi = (int64_t{1} << 53)) const {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return fallback;
    if (!it->is_number_integer()) Fail(i, ".args." + std::string(key) + ": expected an integer");
    int64_t v = it->get<int64_t>();
    if (v < lo || v > hi) Fail(i, ".args." + std::string(key) + ": out of range");
    return v;
  }

  int64_t Product3(const Json& args, const char* key, size_t i) const {
    auto it = args.find(key);
    if (it == args.end()) return 1;
    if (!it->is_array() || it->size() != 3) Fail(i, ".args." + std::string(key) + ": expected [x, y, z]");
    int64_t product = 1;
    for (const Json& d : *it) {
      if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > (int64_t{1} << 31))
        Fail(i, ".args." + std::string(key) + ": expected three positive integers");
      product *= d.get<int64_t>();
      if (product > (int64_t{1} << 40)) Fail(i, ".args." + std::string(key) + ": too many blocks");
    }
    return product;
  }

  static std::string Str(const Json& e, const char* key) {
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  // Host threads by (pid, tid), numbered in order of appearance.
  int Thread(const Json& e) {
    auto id = [](const Json* v) -> std::string { return v ? DumpJson(*v) : "?"; };
    auto pid = e.find("pid"), tid = e.find("tid");
    std::string key = id(pid == e.end() ? nullptr : &*pid) + "/" + id(tid == e.end() ? nullptr : &*tid);
    auto [it, fresh] = threads_.emplace(key, static_cast<int>(threads_.size()));
    if (fresh && tid != e.end() && tid->is_number_integer()) r_.os_thread[it->second] = tid->get<long>();
    if (fresh && pid != e.end() && pid->is_number_integer() && r_.pid == 0)
      r_.pid = static_cast<int>(std::clamp<int64_t>(pid->get<int64_t>(), 0, 1 << 30));
    return it->second;
  }

  // Times stay in the file's microseconds until every event is read: the first one's whole
  // microsecond is the trace's zero.
  struct Span {
    double begin, duration;
    size_t index;  // the event's, for errors
  };
  void NoteFirstTime(const Json& e) {
    auto ts = e.find("ts");
    if (ts != e.end() && ts->is_number() && std::isfinite(ts->get<double>()) && ts->get<double>() >= 0)
      first_ = std::min(first_, ts->get<double>());
  }

  uint64_t Ns(double micros) const { return static_cast<uint64_t>(std::llround(std::max(0.0, micros - base_) * 1000)); }

  template <typename Item>
  void Place(std::vector<Item>& items, const std::vector<Span>& spans) const {
    for (size_t k = 0; k < items.size(); ++k) {
      if (spans[k].begin - base_ + spans[k].duration > kMaxSpanMicroseconds)
        Fail(spans[k].index, ": ends more than a day after the trace's first event (ts " +
                                 std::to_string(static_cast<int64_t>(spans[k].begin)) + " us)");
      items[k].begin = Ns(spans[k].begin);
      items[k].end = items[k].begin + static_cast<uint64_t>(std::llround(spans[k].duration * 1000));
    }
  }

  void PlaceInTime() {
    base_ = first_ == kMaxMicroseconds ? 0 : std::floor(first_);
    Place(r_.calls, call_spans_);
    Place(r_.activity, activity_spans_);
    Place(ranges_, range_spans_);
    for (auto* spans : {&call_spans_, &activity_spans_, &range_spans_}) std::vector<Span>().swap(*spans);
  }

  // [SECTION] events --------------------------------------------------------------------------
  void ReadEvent(const Json& e, size_t i) {
    NoteFirstTime(e);
    std::string cat = KinetoCategory(Str(e, "cat"));
    ++categories_[cat];
    bool host_call = cat == "cuda_runtime" || cat == "cuda_driver";
    bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
    bool range = cat == "cpu_op" || cat == "user_annotation" || cat == "python_function";
    if (!host_call && !gpu && !range && cat != "cuda_sync") return;
    Span span{Micros(e, "ts", i, true), Micros(e, "dur", i, false), i};
    std::string name = Str(e, "name");
    static const Json kEmpty = Json::object();
    auto args_it = e.find("args");
    if (args_it != e.end() && !args_it->is_object()) Fail(i, ".args: expected an object");
    const Json& args = args_it == e.end() ? kEmpty : *args_it;
    if (range) {
      ranges_.push_back({Thread(e), 0, 0, SharedName::Intern(op_names_, name)});
      range_spans_.push_back(span);
    } else if (host_call) {
      RecordedCall c;
      c.thread = Thread(e);
      c.domain = cat == "cuda_runtime" ? 0 : 1;
      c.function = name;
      c.role = RoleOf(BaseName(name, &c.per_thread));
      if (name.rfind("hip", 0) == 0) ++hip_calls_;
      c.correlation = static_cast<uint64_t>(Arg(args, "correlation", i, 0, 0));
      r_.calls.push_back(std::move(c));
      call_spans_.push_back(span);
    } else if (gpu) {
      RecordedActivity a;
      a.type = cat == "kernel" ? "kernel" : cat == "gpu_memcpy" ? "memcpy" : "memset";
      a.correlation = static_cast<uint64_t>(Arg(args, "correlation", i, 0, 0));
      a.device = static_cast<int>(Arg(args, "device", i, 0, 0, 15));
      a.stream_id = Arg(args, "stream", i, 0, 0, int64_t{1} << 40);
      if (a.type == "kernel") {
        a.name = SharedName::Intern(kernel_names_, name);
        a.grid = Product3(args, "grid", i);
        a.block = Product3(args, "block", i);
        if (a.block > 1024) Fail(i, ".args.block: more than 1024 threads per block");
        a.registers = static_cast<int>(Arg(args, "registers per thread", i, 0, 0, 255));
        a.shared_bytes = static_cast<int>(Arg(args, "shared memory", i, 0, 0, 1 << 24));
      } else {
        a.bytes = static_cast<uint64_t>(Arg(args, "bytes", i, 0, 0));
        if (a.type == "memcpy") ReadCopyName(name, a);
      }
      r_.activity.push_back(std::move(a));
      activity_spans_.push_back(span);
    } else {
      KinetoSync s;
      s.kind = Str(args, "cuda_sync_kind").empty() ? name : Str(args, "cuda_sync_kind");
      s.stream = Arg(args, "stream", i, -1, -1, int64_t{1} << 40);
      s.event_id = Arg(args, "wait_on_cuda_event_id", i, -1, -1);
      s.record_corr = Arg(args, "wait_on_cuda_event_record_corr_id", i, -1, -1);
      s.wait_on_stream = Arg(args, "wait_on_stream", i, -1, -1, int64_t{1} << 40);
      syncs_[static_cast<uint64_t>(Arg(args, "correlation", i, 0, 0))] = s;
    }
  }

  void ReadDevices() {
    if (!root_->contains("deviceProperties") || !(*root_)["deviceProperties"].is_array()) return;
    for (const Json& d : (*root_)["deviceProperties"]) {
      if (!d.is_object()) continue;
      auto num = [&](const char* key, int64_t hi) {
        auto it = d.find(key);
        return it != d.end() && it->is_number_integer() ? static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), 0, hi)) : 0;
      };
      RecordedDevice dev;
      dev.id = num("id", 15);
      dev.name = Str(d, "name");
      dev.sms = num("numSms", 4096);
      dev.warps_per_sm = num("maxThreadsPerMultiprocessor", 1 << 16) / 32;
      dev.blocks_per_sm = BlocksPerSmOfCapability(num("computeMajor", 100), num("computeMinor", 100));
      dev.regs_per_sm = num("regsPerMultiprocessor", 1 << 24);
      dev.smem_per_sm = num("sharedMemPerMultiprocessor", 1 << 30);
      r_.devices.push_back(dev);
    }
    if (root_->contains("cuda_driver_version") && (*root_)["cuda_driver_version"].is_number_integer()) {
      int64_t v = (*root_)["cuda_driver_version"].get<int64_t>();
      r_.driver = "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    }
  }

  // [SECTION] joining -----------------------------------------------------------------------
  void JoinCalls() {
    std::map<uint64_t, const RecordedActivity*> first_activity;
    for (const RecordedActivity& a : r_.activity) first_activity.emplace(a.correlation, &a);
    // A driver call inside a runtime call on the same thread is the runtime call's own work.
    std::vector<size_t> order(r_.calls.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const RecordedCall &x = r_.calls[a], &y = r_.calls[b];
      return x.thread != y.thread ? x.thread < y.thread : x.begin < y.begin;
    });
    const RecordedCall* open_runtime = nullptr;
    for (size_t index : order) {
      RecordedCall& c = r_.calls[index];
      if (open_runtime && (open_runtime->thread != c.thread || c.begin > open_runtime->end)) open_runtime = nullptr;
      if (c.domain == 0) {
        open_runtime = &c;
      } else if (open_runtime && c.end <= open_runtime->end) {
        c.role = CallRole::kCorrelationAlias;
        c.parent = open_runtime->correlation;
      }
    }
    std::vector<const KinetoSync*> syncs(r_.calls.size(), nullptr);
    for (size_t i = 0; i < r_.calls.size(); ++i) {
      RecordedCall& c = r_.calls[i];
      if (auto a = first_activity.find(c.correlation); a != first_activity.end()) {
        c.stream_id = a->second->stream_id;
        c.stream = KinetoStreamHandle(c.stream_id);
      }
      auto s = syncs_.find(c.correlation);
      if (s == syncs_.end()) continue;
      syncs[i] = &s->second;
      if (s->second.stream >= 0) {
        c.stream_id = s->second.stream;
        c.stream = KinetoStreamHandle(c.stream_id);
      }
      if (s->second.event_id >= 0) {
        c.event = KinetoEventHandle(s->second.event_id);
        event_ids_[c.event] = s->second.event_id;
      }
    }
    for (size_t i = 0; i < r_.calls.size(); ++i) {
      RecordedCall& c = r_.calls[i];
      if (c.role == CallRole::kQueryEvent || c.role == CallRole::kQueryStream) c.role = CallRole::kOther;  // the answer is not in the trace
      if ((c.role == CallRole::kWaitEvent || c.role == CallRole::kSyncStream) && c.stream_id < 0) {
        c.role = c.role == CallRole::kWaitEvent ? CallRole::kWaitWithoutRecord : CallRole::kOther;
        c.function += " (no cuda_sync record says which stream)";
        missing_sync_ = true;
      }
      if (c.role == CallRole::kSyncEvent && !syncs[i]) c.role = CallRole::kOther;
    }
    InferEventRecords(r_, syncs);
  }

  // Ranges become push/pop marks in time order per thread (outer before inner at one time).
  // A long trace has several times more ranges than API calls (every PyTorch op is one): each
  // name is moved, not copied.
  void AddRanges() {
    struct Mark {
      int thread;
      uint64_t at;
      int order;       // pops before pushes at one time
      int64_t length;  // pushes: longer first; pops: shorter first
      const SharedName* name;  // null for a pop
    };
    NestRanges(ranges_);
    std::vector<Mark> marks;
    marks.reserve(2 * ranges_.size());
    for (Range& g : ranges_) {
      if (g.end == g.begin) continue;  // holds no time, and its pop would sort before its push
      int64_t length = static_cast<int64_t>(g.end - g.begin);
      marks.push_back({g.thread, g.begin, 1, -length, &g.name});
      marks.push_back({g.thread, g.end, 0, length, nullptr});
    }
    std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) {
      if (a.thread != b.thread) return a.thread < b.thread;
      if (a.at != b.at) return a.at < b.at;
      if (a.order != b.order) return a.order < b.order;
      return a.length < b.length;
    });
    r_.marks.reserve(marks.size());
    for (const Mark& m : marks) r_.marks.push_back({m.thread, m.name != nullptr, m.at, m.name ? *m.name : SharedName()});
    std::vector<Range>().swap(ranges_);
  }

  void Describe() {
    r_.stream_names[kUnknownStreamId] = KinetoStreamName(kUnknownStreamId);
    for (const auto& [handle, id] : event_ids_) r_.event_names[handle] = KinetoEventName(id);
    r_.notes.push_back(Note("kineto_no_args"));
    r_.notes.push_back(Note("kineto_stream_kinds"));
    if (categories_["python_function"] > 0) r_.notes.push_back(Note("kineto_stack"));
    else if (categories_["cpu_op"] > 0) r_.notes.push_back(Note("kineto_no_stack"));
    if (missing_sync_) r_.notes.push_back(Note("kineto_missing_sync"));
    if (root_->contains("baseTimeNanoseconds") && (*root_)["baseTimeNanoseconds"].is_number_integer()) {
      int64_t ns = (*root_)["baseTimeNanoseconds"].get<int64_t>() + static_cast<int64_t>(base_ * 1000);
      std::time_t seconds = static_cast<std::time_t>(ns / 1'000'000'000);
      char date[32];
      std::tm tm{};
      if (ns > 0 && gmtime_r(&seconds, &tm) && std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm))
        captured_at_ = date;
    }
  }

 public:
  std::string captured_at_;

 private:
  struct Range {
    int thread;
    uint64_t begin, end;
    SharedName name;
  };
  const Json* root_ = nullptr;
  std::string path_;
  Recording r_;
  std::string event_error_;
  double first_ = kMaxMicroseconds, base_ = 0;
  std::vector<Span> call_spans_, activity_spans_, range_spans_;  // as calls, activity, ranges_
  std::map<std::string, int> threads_;
  std::map<uint64_t, KinetoSync> syncs_;
  std::vector<Range> ranges_;
  bool missing_sync_ = false;
  std::map<std::string, size_t> categories_;  // "X" events per (normalised) category
  size_t hip_calls_ = 0;
  std::map<uint64_t, int64_t> event_ids_;  // handle -> CUPTI event id
  NamePool kernel_names_, op_names_;
};

}  // namespace

uint64_t KinetoStreamHandle(int64_t stream_id) {
  return stream_id == kLegacyStreamId ? 0x1 : 0x100000 + static_cast<uint64_t>(stream_id);
}

uint64_t KinetoEventHandle(int64_t event_id) { return 0x200000 + static_cast<uint64_t>(event_id); }

std::string KinetoStreamName(int64_t stream_id) {
  if (stream_id == kLegacyStreamId) return "legacy default";
  if (stream_id == kUnknownStreamId) return "unknown stream (not in the trace)";
  return "stream " + std::to_string(stream_id);
}

std::string KinetoEventName(int64_t event_id) { return "e" + std::to_string(event_id); }

// Read up to the decisive top-level key, which both writers put first: torch.profiler's
// "traceEvents" follows a few small header members; StreamLab's saved trace begins with its
// "kind". A search of the whole text (as before) kept every page of a 700 MB file resident.
bool LooksLikeChromeTrace(std::string_view text) {
  bool chrome = false;
  ReadTopLevelMembers(text, [&](const std::string& key, JsonScanner& in) {
    if (key == "traceEvents") {
      chrome = true;
      return false;
    }
    if (key == "kind" && in.Peek() == '"') return in.Value() != "streamlab.trace";
    in.Skip();
    return true;
  });
  return chrome;
}

namespace {

// Reads the text (telling `progress` how far) and frees the reader's indexes: what is left for
// the conversion is the Recording.
Recording ReadKineto(std::string_view text, const std::string& path, const KinetoReadProgress& progress,
                     std::string* captured_at) {
  KinetoReader reader(path);
  KinetoDocument doc = ParseKinetoJson(
      text, path, [&](const Json& e, size_t i) { reader.OnEvent(e, i); }, progress);
  Recording recording = reader.Finish(doc);
  *captured_at = std::move(reader.captured_at_);
  return recording;
}

Trace ConvertKineto(const Recording& recording, std::string captured_at, const std::string& path) {
  Trace trace;
  try {
    trace = TraceFromRecording(recording);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  trace.captured_at = std::move(captured_at);
  return trace;
}

}  // namespace

Trace TraceFromKineto(std::string text, const std::string& path) {
  std::string captured_at;
  Recording recording = ReadKineto(text, path, {}, &captured_at);
  std::string().swap(text);
  return ConvertKineto(recording, std::move(captured_at), path);
}

Trace TraceFromKineto(MappedFile file, const std::string& path) {
  std::string captured_at;
  Recording recording = ReadKineto(file.text(), path, [&](size_t read) { file.Release(read); }, &captured_at);
  file.ReleaseAll();
  return ConvertKineto(recording, std::move(captured_at), path);
}

}  // namespace streamlab
