// The verdict (verdict.h): each process's account read into a bound and fixes. A fix is the
// account's path segments of one cause at one place, summed over the walked steps: the calls a
// sync or a blocking copy was made at, the host's own work where it was (the trace's ranges, or
// the line it came back to CUDA at), launching, the kernels, the copies, a rank waited for.
#include "engine/verdict/verdict.h"

#include <algorithm>
#include <optional>
#include <map>
#include <set>

#include "engine/analysis/explain_thresholds.h"
#include "engine/analysis/library_writes.h"
#include "engine/analysis/program_facts.h"
#include "engine/analysis/program_sites.h"
#include "engine/trace/trace_query.h"

namespace streamlab {

// One more race between ops `x` and `y` at a line's two places: whether in this run the op called
// later began before the one called first had ended (together, or in the other order), else how
// long after.
void CountRaceOccurrence(const Trace& t, int x, int y, RaceLine& line) {
  ++line.occurrences;
  const OpRecord& a = t.ops[x];
  const OpRecord& b = t.ops[y];
  if (!a.gpu || !b.gpu || a.end <= a.start || b.end <= b.start) return;
  const OpRecord& called_first = a.submit <= b.submit ? a : b;
  const OpRecord& called_next = a.submit <= b.submit ? b : a;
  TimeNs apart = called_next.start - called_first.end;  // < 0: together, or the later call's op first
  if (apart < 0) ++line.overlapped;
  else if (line.closest < 0 || apart < line.closest) line.closest = apart;
}

namespace {

// A place without the step's own range (ProfilerStep#N holds every place of its step, and
// would make each step's same line a place of its own).
ProgramSite WithoutStepRanges(ProgramSite site) {
  std::erase_if(site.ranges, [](const std::string& r) { return r.rfind("ProfilerStep#", 0) == 0; });
  return site;
}

// Whether `op` is known to write at `address`: a copy's or memset's destination covering it, or
// a library kernel's argument its code says it writes (library_writes.h).
bool KnownToWriteAt(const Op& op, uint64_t address) {
  std::vector<bool> library = KnownKernelWrites(op);
  for (size_t k = 0; k < op.addresses.size(); ++k) {
    const AddressPassed& a = op.addresses[k];
    bool covers = a.at == address || (op.kind != OpKind::kKernel && a.at < address && address < a.at + op.bytes);
    if (covers && (a.use == AddressUse::kWrite || library[k])) return true;
  }
  return false;
}

bool IsPageable(const Scenario& s, const Op& op) {
  if (op.kind != OpKind::kMemcpy) return false;
  auto pageable = [&](int b) { return b >= 0 && s.buffers[b].kind == MemoryKind::kPageableHost; };
  return pageable(op.src) || pageable(op.dst);
}

bool IsGraphLaunch(const Op& op) {
  return op.kind == OpKind::kGraphLaunch || (op.kind == OpKind::kApiCall && (op.name.rfind("cudaGraphLaunch", 0) == 0 ||
                                                                             op.name.rfind("cuGraphLaunch", 0) == 0));
}

class FixBuilder {
 public:
  FixBuilder(const Trace& t, const Analysis& a, const RangeIndex& index) : t_(t), index_(index) {
    for (const Op& op : t.scenario.ops)
      if (op.kind == OpKind::kKernel && op.stream >= 0) kernel_streams_.insert(op.stream);
    for (const Finding& f : a.findings)
      if (f.kind == FindingKind::kHiddenSync) {
        hidden_[f.op] = f.op;
        if (!f.because.empty()) hidden_[f.because.front()] = f.op;
      }
  }

  void Add(const PathSegment& seg) {
    switch (seg.category()) {
      case TimeCategory::kGpuCompute: return AddKernel(seg);
      case TimeCategory::kGpuCopy: {
        // A copy from or to pageable memory runs at the staging's pace while its call holds the
        // host: its time is the pageable copy's, and pinning is its remedy.
        if (IsPageable(t_.scenario, t_.scenario.ops[seg.op])) {
          VerdictFix& f = Group(FixKind::kPageableCopy, DisplayName(t_.scenario, seg.op), seg, SiteOfCall(seg.op));
          if (seen_copies_.insert(seg.op).second) f.bytes += t_.scenario.ops[seg.op].bytes;
          return;
        }
        // A copy to the device on a stream whose kernels then wait for it in stream order: the
        // kernels' input, which a copy ahead of them on a side stream (a prefetch) would hide.
        // Either is at the place its copy was made, where the trace tells it (the recorder reads
        // the stack at every copy call): stft_export_pinned's 197 MB a step at line 33.
        // Other copies by direction: data sent in and results brought back are two causes with
        // two remedies (heldout6's pinned pipeline: 268 MB each way, both on its path).
        bool feeds = seg.kind == TimeKind::kH2D && kernel_streams_.count(t_.scenario.ops[seg.op].stream);
        VerdictFix& f = Group(feeds ? FixKind::kCopyWait : FixKind::kCopies, feeds ? DisplayName(t_.scenario, seg.op) : ToString(seg.kind), seg,
                              SiteOfCall(seg.op));
        if (seen_copies_.insert(seg.op).second) f.bytes += t_.scenario.ops[seg.op].bytes;
        return;
      }
      case TimeCategory::kCommunication: Group(FixKind::kCommunication, "", seg, {}); return;
      case TimeCategory::kRankWait: {
        std::string rank = seg.rank < static_cast<int>(t_.scenario.processes.size()) ? t_.scenario.processes[seg.rank]
                                                                                      : "#" + std::to_string(seg.rank);
        Group(FixKind::kOtherDevice, rank, seg, {}).rank = seg.rank;
        return;
      }
      case TimeCategory::kGpuQueued:
        if (seg.kind == TimeKind::kHardwareQueue) Group(FixKind::kHardwareQueue, "", seg, {});
        else if (seg.kind == TimeKind::kCopyEngine) Group(FixKind::kCopies, "", seg, {});
        else Group(FixKind::kModuleLoadWait, seg.op >= 0 ? DisplayName(t_.scenario, seg.op) : "", seg, {});
        return;
      case TimeCategory::kGpuLatency: Group(FixKind::kGpuLatency, "", seg, {}); return;
      case TimeCategory::kLaunch: {
        VerdictFix& f = Group(FixKind::kLaunchRate, "", seg, {});
        if (seg.op >= 0 && seen_launches_.insert(seg.op).second) f.count += 1;
        return;
      }
      case TimeCategory::kCudaCall: return AddCall(seg);
      case TimeCategory::kHostWork: return AddHostWork(seg);
      case TimeCategory::kUnknown: break;    // said in the account, not a fix
      case TimeCategory::kRecording: break;  // the recorder's, not the program's
    }
  }

  // A walked step: its segments, and for each call that waited for the GPU, how much of the
  // host's time after it the GPU work before it could have hidden (the lesser of the two).
  void AddStep(const WalkedStep& w) {
    std::map<int, std::pair<TimeNs, TimeNs>> host_gpu;
    int wait = -1;
    bool in_gpu = false;
    for (const PathSegment& seg : w.path) {  // latest first
      if (seg.thread >= 0) {
        if (in_gpu) wait = -1, in_gpu = false;
        if (seg.after_wait >= 0) wait = seg.after_wait, host_gpu[wait].first += seg.length();
      } else if (wait >= 0) {
        in_gpu = true;
        host_gpu[wait].second += seg.length();
      }
      Add(seg);
    }
    for (const auto& [call, hg] : host_gpu) exposure_[call] += std::min(hg.first, hg.second);
  }

  // Each place's lines that hold too little of its time to stand alone, counted in its costliest.
  void FoldSmallLines() {
    std::map<std::string, std::vector<std::string>> lines;  // place -> its groups' keys
    std::map<std::string, TimeNs> total;
    for (const auto& [key, g] : groups_) lines[g.place].push_back(key), total[g.place] += g.time;
    for (auto& [place, keys] : lines) {
      if (keys.size() < 2) continue;
      std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) { return groups_[a].time > groups_[b].time; });
      Group_& costliest = groups_[keys.front()];
      for (size_t k = 1; k < keys.size(); ++k) {
        if (static_cast<double>(groups_[keys[k]].time) >= kLineShareOfPlace * static_cast<double>(total[place])) continue;
        costliest.Merge(groups_[keys[k]]);
        groups_.erase(keys[k]);
      }
    }
  }

  // Calls of one kind and name whose stacks the recorder's time budget left unread (a loop of
  // 12,000 one-value reads a step: 1 in 70 read) are made where the same calls it did read were:
  // the read ones are a sample of them. The unplaced ones join the costliest place so sampled,
  // said as such, once enough of them were read to say where (kSampledPlaceCalls).
  void PlaceUnplacedBySample() {
    for (auto it = groups_.begin(); it != groups_.end();) {
      Group_& unplaced = it->second;
      if (!unplaced.fix.site.empty() || !SampledPlaceKind(unplaced.fix.kind)) { ++it; continue; }
      Group_* best = nullptr;
      size_t sampled = 0;
      for (auto& [key, g] : groups_) {
        if (g.fix.site.empty() || g.fix.kind != unplaced.fix.kind || !g.by_call.count(unplaced.fix.call)) continue;
        sampled += g.ops.size();
        if (!best || g.time > best->time) best = &g;
      }
      if (!best || sampled < kSampledPlaceCalls) { ++it; continue; }
      best->fix.site_sampled = static_cast<double>(sampled) / static_cast<double>(sampled + unplaced.ops.size());
      best->Merge(unplaced);
      it = groups_.erase(it);
    }
  }

  std::vector<VerdictFix> Take(double per, TimeNs step) {
    PlaceUnplacedBySample();
    FoldSmallLines();
    std::vector<VerdictFix> out;
    for (auto& [key, g] : groups_) {
      VerdictFix& f = g.fix;
      // A sync also costs the host time after it that GPU work before it could have hidden.
      if (f.kind == FixKind::kHostSync || f.kind == FixKind::kHiddenRead) {
        TimeNs exposed = 0;
        for (int c : g.ops)
          if (auto e = exposure_.find(c); e != exposure_.end()) exposed += e->second;
        f.exposes = static_cast<TimeNs>(static_cast<double>(exposed) / per);
        g.time += exposed;
      }
      f.per_step = static_cast<TimeNs>(static_cast<double>(g.time) / per);
      f.count = f.kind == FixKind::kLaunchRate ? f.count / per : static_cast<double>(g.ops.size()) / per;
      f.bytes = static_cast<uint64_t>(static_cast<double>(f.bytes) / per);
      if (f.kind == FixKind::kLaunchRate) f.each = f.count > 0 ? static_cast<TimeNs>(static_cast<double>(f.per_step) / f.count) : 0;
      if (f.kind == FixKind::kCopies || f.kind == FixKind::kCopyWait) f.each = f.per_step;
      f.time_kind = LargestKind(g.by_kind);
      f.calls.assign(g.ops.begin(), g.ops.end());
      // The sync that exposed most of this host time, where one did.
      for (const auto& [call, time] : g.after_wait)
        if (2 * time >= g.time) f.exposed_by = call, f.exposed_site = SiteOfCall(call);
      f.at_step_start = 2 * g.at_step_start > g.time;
      if (f.per_step > 0 && static_cast<double>(f.per_step) >= kFixShareMin * static_cast<double>(step)) out.push_back(f);
    }
    std::stable_sort(out.begin(), out.end(), [](const VerdictFix& a, const VerdictFix& b) { return a.per_step > b.per_step; });
    return out;
  }

  // The kernels longest on the path, by name.
  std::vector<TopKernel> TopKernels(double per) const {
    std::vector<TopKernel> out;
    for (const auto& [name, k] : kernels_) out.push_back({name, static_cast<TimeNs>(static_cast<double>(k.time) / per),
                                                          static_cast<double>(k.ops.size()) / per, 1});
    std::stable_sort(out.begin(), out.end(), [](const TopKernel& a, const TopKernel& b) { return a.busy > b.busy; });
    if (out.size() > 3) out.resize(3);
    return out;
  }

  // The steps' begins, in order: host work that holds one is where a loop gets its next batch.
  void SetStepBegins(std::vector<TimeNs> begins) { step_begins_ = std::move(begins); }

 private:
  struct Group_ {
    VerdictFix fix;
    TimeNs time = 0, at_step_start = 0;
    std::set<int> ops;
    std::map<int, TimeNs> after_wait;
    std::array<TimeNs, kTimeKindCount> by_kind{};
    std::map<std::string, TimeNs> by_call;  // the time of each call (name) it holds
    // The time at each line of its place (a place is a function, its callers: a 38 MB copy at
    // line 27 and a 10 KB one at line 30 of one loop are one place; the fix names the costlier).
    std::map<int, TimeNs> by_line;
    std::string place;  // kind and place, without the line: the lines of one place fold together

    void Merge(const Group_& other) {
      time += other.time, at_step_start += other.at_step_start;
      ops.insert(other.ops.begin(), other.ops.end());
      for (const auto& [call, t] : other.after_wait) after_wait[call] += t;
      for (size_t k = 0; k < by_kind.size(); ++k) by_kind[k] += other.by_kind[k];
      for (const auto& [call, t] : other.by_call) by_call[call] += t;
      for (const auto& [line, t] : other.by_line) by_line[line] += t;
      fix.bytes += other.fix.bytes, fix.count += other.fix.count;
    }
  };
  struct KernelTime {
    TimeNs time = 0;
    std::set<int> ops;
  };

  static TimeKind LargestKind(const std::array<TimeNs, kTimeKindCount>& by_kind) {
    return static_cast<TimeKind>(std::max_element(by_kind.begin(), by_kind.end()) - by_kind.begin());
  }

  ProgramSite SiteOfCall(int call) const {
    if (call < 0 || t_.ops[call].graph_replay) return {};
    return WithoutStepRanges(SiteOf(index_, t_.scenario.ops[call].thread, t_.ops[call].submit));
  }

  // Calls of one cause at one place: building a CUDA graph (a capture's calls, its update) and
  // allocating (a malloc and its free) are one fix, named by its costliest call; other calls are
  // told apart by their name where no place is known.
  static bool SampledPlaceKind(FixKind kind) {
    return kind == FixKind::kHostSync || kind == FixKind::kPageableCopy || kind == FixKind::kHiddenRead ||
           kind == FixKind::kBlockingCall || kind == FixKind::kMallocMidRun;
  }
  static bool OneCauseWhateverTheCall(FixKind kind) { return kind == FixKind::kGraphBuild || kind == FixKind::kMallocMidRun; }

  VerdictFix& Group(FixKind kind, const std::string& key, const PathSegment& seg, const ProgramSite& site) {
    std::string by = OneCauseWhateverTheCall(kind) ? "" : key;
    std::string place = std::string(ToString(kind)) + "|" + (site.empty() ? by : PlaceKey(site));
    auto [it, fresh] = groups_.emplace(place + "|" + std::to_string(site.line), Group_{});
    Group_& g = it->second;
    if (fresh) {
      g.place = place;
      g.fix.kind = kind;
      g.fix.op = seg.op;
      g.fix.site = site;
      g.fix.call = key;
      g.fix.in_library = !site.via_file.empty();
    }
    TimeNs& by_call = g.by_call[key];
    by_call += seg.length();
    if (by_call > g.by_call[g.fix.call]) g.fix.call = key, g.fix.op = seg.op;
    TimeNs& at_line = g.by_line[site.line];
    at_line += seg.length();
    if (!site.empty() && at_line > g.by_line[g.fix.site.line]) g.fix.site = site;
    g.time += seg.length();
    g.by_kind[static_cast<int>(seg.kind)] += seg.length();
    if (seg.op >= 0) g.ops.insert(seg.op);
    if (seg.after_wait >= 0) g.after_wait[seg.after_wait] += seg.length();
    auto begin = std::lower_bound(step_begins_.begin(), step_begins_.end(), seg.from);
    if (begin != step_begins_.end() && *begin <= seg.to) g.at_step_start += seg.length();
    return g.fix;
  }

  void AddKernel(const PathSegment& seg) {
    std::string name = seg.op >= 0 ? DisplayName(t_.scenario, seg.op) : "";
    KernelTime& k = kernels_[name];
    k.time += seg.length();
    if (seg.op >= 0) k.ops.insert(seg.op);
    Group(FixKind::kKernels, "", seg, {}).call = TopName();
  }

  std::string TopName() const {
    auto top = std::max_element(kernels_.begin(), kernels_.end(), [](const auto& a, const auto& b) { return a.second.time < b.second.time; });
    return top == kernels_.end() ? "" : top->first;
  }

  void AddCall(const PathSegment& seg) {
    const int c = seg.op;
    const Op& op = t_.scenario.ops[c];
    std::string name = DisplayName(t_.scenario, c);
    FixKind kind = FixKind::kBlockingCall;
    switch (seg.kind) {
      case TimeKind::kSync:
        if (auto h = hidden_.find(c); h != hidden_.end()) {
          Group(FixKind::kHiddenRead, DisplayName(t_.scenario, h->second), seg, SiteOfCall(h->second));
          return;
        }
        kind = FixKind::kHostSync;
        break;
      case TimeKind::kPageableCopy: kind = FixKind::kPageableCopy; break;
      case TimeKind::kAllocation: case TimeKind::kFree: kind = FixKind::kMallocMidRun; break;
      case TimeKind::kBlockingLaunch: kind = IsGraphLaunch(op) ? FixKind::kGraphLaunch : FixKind::kBlockingCall; break;
      case TimeKind::kGraphBuild: kind = FixKind::kGraphBuild; break;
      default: break;
    }
    Group(kind, name, seg, SiteOfCall(c));
  }

  // The host's own work: each place the ranges say the thread was in for a tenth of the stretch
  // or more gets its share of it (a DataLoader's collation at the loop's line, its items'
  // augmentation in __getitem__); the rest goes to the line the thread came back to CUDA at
  // (the call that ended it, where its stack was read), which says where, not what.
  void AddHostWork(const PathSegment& seg) {
    PlaceTally tally(index_);
    tally.Add(seg.thread, seg.from, seg.to);
    TimeNs at = seg.from;
    for (const HostPlace& place : tally.Largest(0.1, 8)) {
      PathSegment part = seg;
      part.from = at;
      part.to = at = std::min(seg.to, at + place.time);
      ProgramSite site = WithoutStepRanges(place.site);
      site.line = place.line;
      site.most_line = place.line > 0;
      AddHostWorkAt(part, site, false);
    }
    if (at >= seg.to) return;
    PathSegment rest = seg;
    rest.from = at;
    ProgramSite site = seg.op >= 0 ? SiteOfCall(seg.op) : ProgramSite{};
    AddHostWorkAt(rest, site, !site.empty());
  }

  void AddHostWorkAt(const PathSegment& seg, const ProgramSite& site, bool came_back) {
    bool loading = seg.kind == TimeKind::kDataLoading || IsDataLoaderPlace(site);
    Group(loading ? FixKind::kDataLoading : FixKind::kHostWork, "", seg, site).came_back = came_back;
  }

  const Trace& t_;
  const RangeIndex& index_;
  std::map<int, int> hidden_;  // a call the host waited in for a small read -> the read
  std::map<std::string, Group_> groups_;
  std::map<std::string, KernelTime> kernels_;
  std::set<int> seen_copies_, seen_launches_;
  std::set<int> kernel_streams_;  // streams that run kernels
  std::vector<TimeNs> step_begins_;
  std::map<int, TimeNs> exposure_;  // per waiting call, over the walked steps
};

void AddStartupCosts(const Trace& t, Verdict& v) {
  const StepSplit& s = v.steps;
  bool inferred = false;
  if (int call = ContextCreationCall(t, &inferred, v.process); call >= 0) {
    v.startup.push_back({StartupCost::kContext, HostCallTime(t.ops[call]), 1, call, inferred});
  }
  StartupCost loads{StartupCost::kModuleLoads};
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].loaded_module && ProcessOfThread(t.scenario, t.scenario.ops[i].thread) == v.process)
      loads.time += HostCallTime(t.ops[i]), ++loads.count;
  if (loads.count) v.startup.push_back(loads);
  if (!s.found()) {
    RunBounds run = RunBoundsOf(t, v.process, StartupEnd(t, v.process));
    if (run.calls_end - run.end >= kOneOffShown) v.startup.push_back({StartupCost::kAfterGpuWork, run.calls_end - run.end, 0});
    return;
  }
  v.startup.push_back({StartupCost::kBeforeFirstStep, s.steps.front().begin - s.run_begin, 0});
  if (s.warmup > 0) {
    StartupCost warm{StartupCost::kWarmupSteps, 0, s.warmup};
    for (int k = 0; k < s.warmup; ++k) warm.time += s.steps[k].end - s.steps[k].begin - s.median;
    TimeNs to = s.steps[s.warmup - 1].end;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.ops[i].loaded_module && t.ops[i].submit >= s.steps.front().begin && t.ops[i].submit < to) warm.loads += HostCallTime(t.ops[i]);
    v.startup.push_back(warm);
  }
  if (s.run_end > s.steps.back().end) v.startup.push_back({StartupCost::kAfterLastStep, s.run_end - s.steps.back().end, 0});
}

Verdict VerdictOfProcess(const Trace& t, const Analysis& a, const RangeIndex& index, const ProcessAccount& acc) {
  Verdict v;
  v.process = acc.process;
  v.name = acc.name;
  v.steps = acc.steps;
  v.pace = acc.pace;
  v.by_category = acc.by_category;
  v.by_kind = acc.by_kind;
  v.step = acc.step;
  v.gpu_busy = acc.gpu_busy;
  v.copy_busy = acc.copy_busy;
  v.legacy_serialized = acc.legacy_serialized;
  v.walked = static_cast<int>(acc.walked.size());
  v.gpu_paced = acc.gpu_paced;
  v.sm_count = acc.sm_count;
  v.python = IsPythonProgram(t);
  v.connections = t.scenario.settings.max_connections;
  for (const Op& op : t.scenario.ops) v.graphs |= IsGraphLaunch(op);
  // The bound: the largest category of the program's own time (the recorder's left out), and
  // its largest kind.
  v.recorder = v.by_category[static_cast<int>(TimeCategory::kRecording)];
  std::array<TimeNs, kTimeCategoryCount> program = v.by_category;
  program[static_cast<int>(TimeCategory::kRecording)] = -1;
  v.bound = static_cast<TimeCategory>(std::max_element(program.begin(), program.end()) - program.begin());
  TimeNs best = -1;
  for (int k = 0; k < kTimeKindCount; ++k)
    if (CategoryOf(static_cast<TimeKind>(k)) == v.bound && v.by_kind[k] > best) best = v.by_kind[k], v.bound_kind = static_cast<TimeKind>(k);
  FixBuilder fixes(t, a, index);
  std::vector<TimeNs> begins;
  for (const ProgramStep& s : v.steps.steps) begins.push_back(s.begin);
  fixes.SetStepBegins(std::move(begins));
  for (const WalkedStep& w : acc.walked) fixes.AddStep(w);
  const double per = std::max(1, v.walked);
  v.fixes = fixes.Take(per, v.step);
  v.top_kernels = fixes.TopKernels(per);
  if (v.steps.found()) {
    double ops = 0;
    int steady = 0;
    for (const ProgramStep& s : v.steps.steps)
      if (s.steady) ops += s.gpu_ops, ++steady;
    v.launches = steady > 0 ? ops / steady : 0;
  }
  AddStartupCosts(t, v);
  return v;
}

// Races whose write side is known (a copy's or memset's destination): the findings' warnings.
std::vector<RaceLine> RacesOf(const Trace& t, const Analysis& a, const RangeIndex& index) {
  std::vector<RaceLine> out;
  std::map<std::string, int> seen;  // a pair of places -> its line
  for (size_t i = 0; i < a.findings.size(); ++i) {
    const Finding& f = a.findings[i];
    bool race = f.kind == FindingKind::kDataRace || f.kind == FindingKind::kAddressRace;
    if (!race || f.severity != Severity::kWarning || f.op < 0 || f.other < 0) continue;
    RaceLine r{f.op, f.other, {}, {}, static_cast<int>(i)};
    auto site = [&](int op) {
      int call = t.scenario.ops[op].graph >= 0 ? t.scenario.ops[op].graph : op;
      return WithoutStepRanges(SiteOf(index, t.scenario.ops[call].thread, t.ops[call].submit));
    };
    r.first_site = site(f.op);
    r.second_site = site(f.other);
    // A write into memory another stream read before: a new tensor filled where a dropped one
    // lay, typically. A foreach or fused-optimizer kernel updates tensors the program keeps
    // (parameters, optimizer state) in place: its writes are no freed block's reuse.
    const Op& later = t.scenario.ops[t.ops[f.other].submit >= t.ops[f.op].submit ? f.other : f.op];
    const Op& earlier = t.scenario.ops[&later == &t.scenario.ops[f.other] ? f.op : f.other];
    r.write_after_read = f.address != 0 && !IsTensorListKernel(later) && KnownToWriteAt(later, f.address) && !KnownToWriteAt(earlier, f.address);
    // One line per pair of places (a loop races the same two lines each step).
    std::string key = DisplayName(t.scenario, f.op) + '\n' + PlaceKey(r.first_site) + '\n' + DisplayName(t.scenario, f.other) +
                      '\n' + PlaceKey(r.second_site);
    auto [at, added] = seen.emplace(key, static_cast<int>(out.size()));
    if (added) out.push_back(r);
    CountRaceOccurrence(t, f.op, f.other, out[at->second]);
  }
  return out;
}

// Every collective's waits inside it, not only the path's: per (waiting process, process waited
// for), summed over the collectives the waiting process submitted in its steady steps, per step.
std::map<std::pair<int, int>, TimeNs> CollectiveWaits(const Trace& t, const Analysis& a, const ProgramAccount& account) {
  std::map<int, const ProcessAccount*> of;
  for (const ProcessAccount& p : account.processes) of[p.process] = &p;
  std::map<std::pair<int, int>, TimeNs> waits;
  for (const Finding& f : a.findings) {
    if (f.kind != FindingKind::kCollectiveWait || f.op < 0 || f.other < 0) continue;
    int waiter = ProcessOfThread(t.scenario, t.scenario.ops[f.op].thread);
    int late = ProcessOfThread(t.scenario, t.scenario.ops[f.other].thread);
    auto p = of.find(waiter);
    if (p == of.end() || p->second->steps.steady == 0) continue;
    TimeNs at = t.ops[f.op].submit;
    for (const ProgramStep& step : p->second->steps.steps)
      if (step.steady && at >= step.begin && at < step.end) waits[{waiter, late}] += f.amount / p->second->steps.steady;
  }
  return waits;
}

// The rank the others waited for inside collectives on their paths, at least 5 % of a step, and
// in all collectives 10 % of a step more than it waited for them: in a balanced job each rank
// arrives last at some collectives (its host was late, its GPU busier that step) and waits at
// others, so its waits on a path alone do not make it the slow one; and two ranks of the same
// work differ by a few % (a balanced 2-rank DDP job on an H200 pair: 6 %, net; one rank sleeping
// 8 ms a step: 37 %; a rank given 2x the batch: 45 %).
void FindStraggler(const Trace& t, const Analysis& analysis, const ProgramAccount& account, ProgramVerdict& pv) {
  std::map<int, TimeNs> waited_for;
  for (const ProcessAccount& p : account.processes) {
    std::map<int, TimeNs> mine;
    for (const WalkedStep& w : p.walked)
      for (const PathSegment& seg : w.path)
        if (seg.kind == TimeKind::kRankWait && seg.rank >= 0) mine[seg.rank] += seg.length();
    for (auto& [rank, time] : mine) {
      TimeNs per_step = time / std::max<TimeNs>(1, static_cast<TimeNs>(p.walked.size()));
      if (per_step * 20 >= p.step) waited_for[rank] = std::max(waited_for[rank], per_step);
    }
  }
  const std::map<std::pair<int, int>, TimeNs> all = CollectiveWaits(t, analysis, account);
  auto all_waits = [&](int waiter, int late) {
    auto it = all.find({waiter, late});
    return it == all.end() ? 0 : it->second;
  };
  std::erase_if(waited_for, [&](const auto& entry) {
    for (const ProcessAccount& p : account.processes)
      if (p.process != entry.first && (all_waits(p.process, entry.first) - all_waits(entry.first, p.process)) * 10 >= p.step)
        return false;
    return true;
  });
  for (const auto& [rank, wait] : waited_for)
    if (wait > pv.straggler_wait) pv.straggler = rank, pv.straggler_wait = wait;
  if (pv.straggler < 0) return;
  for (const Verdict& v : pv.processes)
    if (v.process == pv.straggler) {
      // What its own step's path was spent on most, other than waiting for others.
      TimeNs most = -1;
      for (int k = 0; k < kTimeKindCount; ++k)
        if (static_cast<TimeKind>(k) != TimeKind::kRankWait && v.by_kind[k] > most) most = v.by_kind[k], pv.straggler_doing = static_cast<TimeKind>(k);
    }
}

}  // namespace

const Verdict& ProgramVerdict::lead() const {
  return *std::max_element(processes.begin(), processes.end(), [](const Verdict& a, const Verdict& b) { return a.step < b.step; });
}
Verdict& ProgramVerdict::lead() {
  return *std::max_element(processes.begin(), processes.end(), [](const Verdict& a, const Verdict& b) { return a.step < b.step; });
}

ProgramVerdict VerdictOf(const Trace& trace, const Analysis& analysis, const ProgramAccount& account) {
  ProgramVerdict pv;
  RangeIndex index(trace);
  for (const ProcessAccount& p : account.processes) pv.processes.push_back(VerdictOfProcess(trace, analysis, index, p));
  pv.races = RacesOf(trace, analysis, index);
  if (pv.processes.size() > 1) FindStraggler(trace, analysis, account, pv);
  return pv;
}

const char* ToString(FixKind kind) {
  static const char* const kNames[kFixKindCount] = {
      "hidden_read", "host_sync",  "launch_rate", "data_loading", "host_work",     "malloc_mid_run",
      "pageable_copy", "blocking_call", "copy_wait", "other_device", "kernels",     "copies",
      "graph_launch", "communication", "hardware_queue", "graph_build", "gpu_latency", "module_load_wait"};
  return kNames[static_cast<int>(kind)];
}

const char* OtherCaseName(VerdictFix::OtherCase c) {
  switch (c) {
    case VerdictFix::kFasterGraphGap: return "graph_gap";
    case VerdictFix::kLoaderHandOver: return "loader";
    case VerdictFix::kNoOtherCase: break;
  }
  return "";
}

}  // namespace streamlab
