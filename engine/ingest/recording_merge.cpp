// Several processes' recordings as one trace (a `torchrun --nproc_per_node=N` job writes one
// log per rank). Each log's CUPTI clock is mapped onto the host's CLOCK_MONOTONIC, which all
// processes share, through the clock pairs the recorder logged at its start and end; each
// process is converted on its own (its streams, events, legacy stream and device-wide waits
// are its own) and the ops are interleaved by host time into one scenario whose threads and
// streams name their process. NCCL's kernels become collective parts: the k-th all-reduce
// kernel of each GPU is one collective, which is how NCCL orders them on one communicator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "engine/ingest/recording.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

// [SECTION] one timeline ----------------------------------------------------------------
// CUPTI time -> host CLOCK_MONOTONIC: linear through the first and last pair when the run
// spanned at least a millisecond between them (the clocks' rates may differ slightly), else
// the first pair's offset.
struct ClockMap {
  long double c0 = 0, h0 = 0, rate = 1;
  uint64_t error = 0;     // ns: how far one process's times may be off the host clock
  double drift_ppm = 0;   // the rates' difference, if two pairs were logged

  uint64_t operator()(uint64_t cupti) const {
    long double host = h0 + (static_cast<long double>(cupti) - c0) * rate;
    return host <= 0 ? 0 : static_cast<uint64_t>(std::llround(host));
  }
};

ClockMap MapOf(const Recording& r, const std::string& who) {
  if (r.clocks.empty())
    throw InputError(who + " has no clock readings (recorded by an older StreamLab?): several processes cannot be "
                           "put on one timeline without them");
  ClockMap m;
  const ClockPair& first = r.clocks.front();
  const ClockPair& last = r.clocks.back();
  m.c0 = first.cupti;
  m.h0 = first.host;
  m.error = first.err;
  if (last.cupti > first.cupti + 1000000 && last.host > first.host) {
    m.rate = static_cast<long double>(last.host - first.host) / static_cast<long double>(last.cupti - first.cupti);
    m.drift_ppm = static_cast<double>((m.rate - 1) * 1e6L);
    m.error = std::max(first.err, last.err);
  }
  return m;
}

void ToHostClock(Recording& r, const ClockMap& m) {
  for (RecordedCall& c : r.calls) {
    c.begin = m(c.begin);
    c.end = std::max(c.begin, m(c.end));
  }
  for (RecordedActivity& a : r.activity) {
    a.begin = m(a.begin);
    a.end = std::max(a.begin, m(a.end));
  }
  for (RecordedMark& mark : r.marks) mark.at = m(mark.at);
}

// Device ids are per process (CUDA_VISIBLE_DEVICES renumbers them). Where the logs name the
// physical GPUs (UUIDs) and the numbering disagrees between processes, every process's ids
// are rewritten to one numbering: the GPUs in the order the ranks first name them.
void OneDeviceNumbering(std::vector<Recording>& recordings) {
  std::map<std::string, int> id_of_uuid;
  std::map<int, std::string> uuid_of_id;
  bool agree = true;
  for (const Recording& r : recordings)
    for (const RecordedDevice& d : r.devices) {
      if (d.uuid.empty()) return;  // older logs: keep the ids as they are
      agree &= id_of_uuid.emplace(d.uuid, d.id).first->second == d.id;
      agree &= uuid_of_id.emplace(d.id, d.uuid).first->second == d.uuid;
    }
  if (agree) return;
  std::map<std::string, int> global;
  for (const Recording& r : recordings)
    for (const RecordedDevice& d : r.devices) global.emplace(d.uuid, static_cast<int>(global.size()));
  for (Recording& r : recordings) {
    std::map<int, int> to;
    for (RecordedDevice& d : r.devices) d.id = to[d.id] = std::min(global[d.uuid], 15);
    for (RecordedActivity& a : r.activity)
      if (auto it = to.find(a.device); it != to.end()) a.device = it->second;
    for (RecordedCall& c : r.calls)
      if (c.role == CallRole::kSetDevice)
        if (auto it = to.find(c.value); it != to.end()) c.value = it->second;
  }
}

std::string ProcessName(const Recording& r) {
  return r.rank >= 0 ? "rank " + std::to_string(r.rank) + " (pid " + std::to_string(r.pid) + ")" : "pid " + std::to_string(r.pid);
}

// "rank 0: " - or the pid where two processes claim one rank (names must stay unique).
std::string LanePrefix(const Recording& r, size_t index, std::set<std::string>& taken) {
  std::string prefix = (r.rank >= 0 ? "rank " + std::to_string(r.rank) : "process " + std::to_string(index)) + ": ";
  if (!taken.insert(prefix).second) taken.insert(prefix = "pid " + std::to_string(r.pid) + ": ");
  return prefix;
}

// The host threads a process's trace has lanes for (its ops' and its ranges').
int ThreadsOf(const Trace& t) {
  int threads = ThreadCount(t.scenario);
  for (const HostRange& r : t.ranges) threads = std::max(threads, r.thread + 1);
  return threads;
}

// [SECTION] interleaving the processes' ops ---------------------------------------------
struct Part {
  const Trace* trace = nullptr;
  int process = 0;
  TimeNs shift = 0;  // added to every time of this process's trace
  int stream0 = 0, event0 = 0, buffer0 = 0, thread0 = 0;
  std::string prefix;
};

void Shift(OpRecord& r, TimeNs by) {
  r.submit += by;
  r.ret += by;
  if (r.gpu) {
    r.ready += by;
    r.start += by;
    r.end += by;
  }
  for (BlockRecord& b : r.blocks) {
    b.start += by;
    b.end += by;
  }
}

class Merger {
 public:
  explicit Merger(std::vector<Part> parts) : parts_(std::move(parts)) {}

  Trace Run() {
    DeclareObjects();
    Interleave();
    return std::move(out_);
  }

 private:
  void DeclareObjects() {
    Scenario& s = out_.scenario;
    s.recorded = true;
    s.name = "recorded program (" + std::to_string(parts_.size()) + " processes)";
    for (Part& p : parts_) {
      const Scenario& in = p.trace->scenario;
      s.device_count = std::max(s.device_count, in.device_count);
      p.stream0 = static_cast<int>(s.streams.size());
      p.event0 = static_cast<int>(s.events.size());
      p.buffer0 = static_cast<int>(s.buffers.size());
      p.thread0 = static_cast<int>(s.thread_process.size());
      for (StreamDesc d : in.streams) {
        d.name = p.prefix + d.name;
        d.thread += p.thread0;
        d.process = p.process;
        s.streams.push_back(d);
      }
      for (EventDesc e : in.events) {
        e.name = p.prefix + e.name;
        s.events.push_back(e);
      }
      for (BufferDesc b : in.buffers) {
        b.name = p.prefix + b.name;
        if (b.alias_of >= 0) b.alias_of += p.buffer0;
        s.buffers.push_back(b);
      }
      int threads = ThreadsOf(*p.trace);
      s.thread_process.insert(s.thread_process.end(), threads, p.process);
      for (const HostRange& r : p.trace->ranges)
        out_.ranges.push_back({r.thread + p.thread0, r.name, r.begin + p.shift, r.end + p.shift});
    }
  }

  // One unit = an op, or a graph launch with its nodes (which must stay right after it; a
  // recorded launch is an api_call followed by the nodes its replay ran).
  static int UnitEnd(const Scenario& s, int i) {
    bool launch = s.ops[i].kind == OpKind::kGraphLaunch ||
                  (i + 1 < static_cast<int>(s.ops.size()) && s.ops[i + 1].graph == i);
    return launch ? GraphNodesEnd(s, i) : i + 1;
  }

  void Interleave() {
    std::vector<int> next(parts_.size(), 0);
    std::vector<std::vector<int>> new_index(parts_.size());
    for (size_t p = 0; p < parts_.size(); ++p) new_index[p].assign(parts_[p].trace->ops.size(), -1);
    while (true) {
      int pick = -1;
      TimeNs best = 0;
      for (size_t p = 0; p < parts_.size(); ++p) {
        const Trace& t = *parts_[p].trace;
        if (next[p] >= static_cast<int>(t.ops.size())) continue;
        TimeNs at = t.ops[next[p]].submit + parts_[p].shift;
        if (pick < 0 || at < best) pick = static_cast<int>(p), best = at;
      }
      if (pick < 0) break;
      const Part& part = parts_[pick];
      const Scenario& in = part.trace->scenario;
      int end = UnitEnd(in, next[pick]);
      for (int i = next[pick]; i < end; ++i) {
        new_index[pick][i] = static_cast<int>(out_.scenario.ops.size());
        Op op = in.ops[i];
        auto move = [](int& v, int by) {
          if (v >= 0) v += by;
        };
        move(op.stream, part.stream0);
        move(op.other_stream, part.stream0);
        move(op.event, part.event0);
        move(op.buffer, part.buffer0);
        move(op.src, part.buffer0);
        move(op.dst, part.buffer0);
        for (int& b : op.kernel.reads) b += part.buffer0;
        for (int& b : op.kernel.writes) b += part.buffer0;
        op.thread += part.thread0;
        if (op.graph >= 0) op.graph = new_index[pick][op.graph];
        for (int& before : op.graph_after) before = new_index[pick][before];
        OpRecord rec = part.trace->ops[i];
        rec.op = static_cast<int>(out_.scenario.ops.size());
        Shift(rec, part.shift);
        out_.scenario.ops.push_back(std::move(op));
        out_.ops.push_back(std::move(rec));
      }
      next[pick] = end;
    }
  }

  std::vector<Part> parts_;
  Trace out_;
};

// [SECTION] NCCL kernels -> collective parts ----------------------------------------------
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL" -> all-reduce; false for send/recv and others.
bool NcclCollective(const std::string& kernel_name, CollectiveKind* kind) {
  std::string rest;
  for (const char* prefix : {"ncclDevKernel_", "ncclKernel_"})
    if (kernel_name.rfind(prefix, 0) == 0) rest = kernel_name.substr(std::string(prefix).size());
  std::string word = rest.substr(0, rest.find('_'));
  if (word == "AllReduce") *kind = CollectiveKind::kAllReduce;
  else if (word == "ReduceScatter") *kind = CollectiveKind::kReduceScatter;
  else if (word == "AllGather") *kind = CollectiveKind::kAllGather;
  else if (word == "Broadcast") *kind = CollectiveKind::kBroadcast;
  else return false;
  return true;
}

// A device buffer on `device` for the parts to name (what NCCL reduced is not recorded).
int DeviceBuffer(Scenario& s, int device) {
  std::string name = "NCCL buffers (GPU " + std::to_string(device) + ")";
  for (size_t b = 0; b < s.buffers.size(); ++b)
    if (s.buffers[b].name == name) return static_cast<int>(b);
  BufferDesc b;
  b.name = name;
  b.device = device;
  b.bytes = 1;
  s.buffers.push_back(b);
  return static_cast<int>(s.buffers.size()) - 1;
}

// Matches each kind's NCCL kernels across GPUs by their order on each GPU. Returns how many
// collectives were formed; `problem` says why some kernels were left as kernels.
int MatchCollectives(Trace& t, std::string* problem) {
  Scenario& s = t.scenario;
  // kind -> device -> the NCCL kernels of that kind on that device, in op order.
  std::map<CollectiveKind, std::map<int, std::vector<int>>> found;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    CollectiveKind kind;
    if (op.kind == OpKind::kKernel && op.graph < 0 && NcclCollective(op.name, &kind))
      found[kind][s.streams[op.stream].device].push_back(static_cast<int>(i));
  }
  int formed = 0;
  for (auto& [kind, by_device] : found) {
    size_t count = by_device.begin()->second.size();
    if (by_device.size() < 2) {
      *problem += std::string(problem->empty() ? "" : "; ") + ToString(kind) + " kernels ran on GPU " +
                  std::to_string(by_device.begin()->first) + " only (were the other ranks recorded?): shown as kernels";
      continue;
    }
    bool equal = true;
    for (const auto& [device, ops] : by_device) equal &= ops.size() == count;
    if (!equal) {
      std::string counts;
      for (const auto& [device, ops] : by_device)
        counts += (counts.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(device) + ": " + std::to_string(ops.size());
      *problem += std::string(problem->empty() ? "" : "; ") + ToString(kind) + " kernels differ in number between GPUs (" +
                  counts + "), so they are shown as kernels, not matched into collectives";
      continue;
    }
    for (size_t k = 0; k < count; ++k) {
      int first = INT32_MAX;
      for (const auto& [device, ops] : by_device) first = std::min(first, ops[k]);
      for (const auto& [device, ops] : by_device) {
        Op& op = s.ops[ops[k]];
        op.kind = OpKind::kCollective;
        op.collective = kind;
        op.collective_first = first;
        op.bytes = 0;  // not recorded
        op.buffer = DeviceBuffer(s, device);
        op.kernel = KernelSpec{};
      }
      ++formed;
    }
  }
  return formed;
}

}  // namespace

Trace TraceFromRecordings(std::vector<Recording> recordings) {
  if (recordings.empty()) throw InputError("no recording to convert");
  // Processes that used CUDA but ran nothing on a GPU (a launcher, a data-loader worker)
  // are left out, with a note.
  std::vector<std::string> idle;
  if (recordings.size() > 1) {
    std::vector<Recording> busy;
    for (Recording& r : recordings)
      if (r.activity.empty()) idle.push_back(ProcessName(r));
      else busy.push_back(std::move(r));
    if (!busy.empty()) recordings = std::move(busy);
  }
  std::stable_sort(recordings.begin(), recordings.end(), [](const Recording& a, const Recording& b) {
    return std::make_pair(a.rank < 0, std::make_pair(a.rank, a.pid)) < std::make_pair(b.rank < 0, std::make_pair(b.rank, b.pid));
  });
  if (recordings.size() == 1) {
    Trace t = TraceFromRecording(recordings.front());
    std::string problem;
    int formed = MatchCollectives(t, &problem);
    if (formed) t.notes.push_back(Note("collectives_matched_gpus", {{"n", std::to_string(formed)}}));
    if (!problem.empty()) t.notes.push_back(problem);
    for (const std::string& who : idle) t.notes.push_back(Note("process_idle", {{"process", who}}));
    ValidateScenario(t.scenario);
    return t;
  }
  std::vector<ClockMap> maps;
  for (Recording& r : recordings) {
    maps.push_back(MapOf(r, ProcessName(r)));
    ToHostClock(r, maps.back());
  }
  OneDeviceNumbering(recordings);
  std::vector<Trace> traces;
  std::vector<uint64_t> zeros;
  std::vector<std::pair<std::string, std::string>> failed;  // process, why
  std::vector<size_t> kept;
  int threads = 0;  // a scenario holds 64 host threads: processes past them are left out, said
  for (size_t i = 0; i < recordings.size(); ++i) {
    uint64_t zero = 0;
    try {
      // Each process gets an equal share of what one trace holds.
      Trace t = TraceFromRecording(recordings[i], &zero, kMaxScenarioOps / recordings.size());
      if (threads + ThreadsOf(t) > 64)
        throw InputError("its " + std::to_string(ThreadsOf(t)) + " host threads do not fit: a trace holds 64, and the "
                         "processes before it have " + std::to_string(threads));
      threads += ThreadsOf(t);
      traces.push_back(std::move(t));
    } catch (const InputError& e) {
      failed.emplace_back(ProcessName(recordings[i]), e.what());
      continue;
    }
    zeros.push_back(zero);
    kept.push_back(i);
  }
  if (traces.empty())
    throw InputError("no process's recording holds GPU work: " + failed.front().first + ": " + failed.front().second);
  uint64_t zero = *std::min_element(zeros.begin(), zeros.end());
  // Processes of one run start within minutes of each other; logs an hour apart (or a log
  // whose times span half of TimeNs) are not one run, and adding them could overflow.
  constexpr uint64_t kHour = uint64_t{3600} * 1000000000;
  for (size_t k = 0; k < traces.size(); ++k)
    if (zeros[k] - zero > kHour || TraceEnd(traces[k]) > INT64_MAX / 2)
      throw InputError(ProcessName(recordings[kept[k]]) + " began more than an hour after the first process (on the "
                       "host clock), or its log spans that long: these logs are not one run");
  std::vector<Part> parts;
  std::set<std::string> prefixes;
  for (size_t k = 0; k < traces.size(); ++k) {
    Part p;
    p.trace = &traces[k];
    p.process = static_cast<int>(k);
    p.shift = static_cast<TimeNs>(zeros[k] - zero);
    p.prefix = LanePrefix(recordings[kept[k]], k, prefixes);
    parts.push_back(p);
  }
  Trace t = Merger(parts).Run();
  for (size_t k = 0; k < traces.size(); ++k) t.scenario.processes.push_back(ProcessName(recordings[kept[k]]));

  t.backend = "record";
  t.driver = recordings[kept.front()].driver;
  t.device_name = traces.front().device_name;
  t.sm_count = traces.front().sm_count;
  // Notes every process's trace has are said once; the others name their process.
  std::map<std::string, size_t> how_many;
  for (const Trace& tr : traces) {
    std::set<std::string> texts;
    for (const TraceNote& note : tr.notes) texts.insert(note.text);
    for (const std::string& text : texts) ++how_many[text];
  }
  uint64_t worst = 0;
  long double lowest_offset = 0, highest_offset = 0;
  for (size_t k = 0; k < traces.size(); ++k) {
    const Recording& r = recordings[kept[k]];
    const ClockMap& m = maps[kept[k]];
    worst = std::max(worst, m.error);
    long double offset = m.h0 - m.c0;
    if (k == 0 || offset < lowest_offset) lowest_offset = offset;
    if (k == 0 || offset > highest_offset) highest_offset = offset;
    // Its first note (what was recorded, or where it was cut) is always its own.
    for (const TraceNote& note : traces[k].notes)
      if (how_many[note.text] < traces.size() || &note == &traces[k].notes.front())
        t.notes.push_back(ForProcess(note, ProcessName(r)));
    std::string error = std::to_string(m.error);
    t.notes.push_back(ForProcess(
        r.clocks.size() >= 2
            ? Note("process_clock", {{"error", error}, {"drift", std::to_string(std::llround(m.drift_ppm))}})
            : Note("process_clock_unpaired", {{"error", error}}),
        ProcessName(r)));
  }
  for (const TraceNote& note : traces.front().notes)
    if (how_many[note.text] == traces.size() && &note != &traces.front().notes.front()) t.notes.push_back(note);
  // Two processes' times can disagree by both of their readings' errors.
  t.clock_error = static_cast<TimeNs>(2 * worst);
  t.notes.push_back(Note("processes_timeline",
                         {{"n", std::to_string(traces.size())},
                          {"error", std::to_string(2 * worst)},
                          {"offset", std::to_string(std::llround(highest_offset - lowest_offset))}}));
  for (const auto& [process, why] : failed) t.notes.push_back(Note("process_failed", {{"process", process}, {"error", why}}));
  for (const std::string& who : idle) t.notes.push_back(Note("process_idle", {{"process", who}}));
  std::string problem;
  int formed = MatchCollectives(t, &problem);
  if (formed)
    t.notes.push_back(Note("collectives_matched", {{"n", std::to_string(formed)}}));
  if (!problem.empty()) t.notes.push_back(problem);
  ValidateScenario(t.scenario);
  return t;
}

}  // namespace streamlab
