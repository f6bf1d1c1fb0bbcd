// The verdict's lines (verdict_text.h): a race first, what bounds the step, the steps, where the
// step's time went, the fixes with their cost and place and a remedy that fits the program's
// language and call, and the one-off start-up costs. Every figure is the account's, said with
// its scope: a step (the mean of the steady steps walked) or the whole run.
#include "engine/report/verdict_text.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/analysis/program_sites.h"
#include "engine/ingest/host_call_kinds.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

std::string Percent(TimeNs part, TimeNs whole) {
  return FormatPercent(whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0);
}

// Bytes with three significant digits (13.5 GB, 32.8 KB).
std::string Size(double bytes) {
  const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) bytes /= 1000, ++unit;
  char text[32];
  std::snprintf(text, sizeof(text), bytes >= 100 || unit == 0 ? "%.0f %s" : bytes >= 10 ? "%.1f %s" : "%.2f %s", bytes, kUnits[unit]);
  return text;
}

std::string Count(double n) {
  char text[32];
  std::snprintf(text, sizeof(text), n >= 10 || n == static_cast<int>(n) ? "%.0f" : "%.1f", n);
  return text;
}

std::string Unit(const FindingTexts& texts, const Verdict& v) { return texts.Get(v.found() ? "verdict.unit.step" : "verdict.unit.run"); }
std::string Per(const FindingTexts& texts, const Verdict& v) { return texts.Get(v.found() ? "verdict.per_step" : "verdict.per_run"); }

// A call's place as short as it can be said: "file.py:32" where the line is the call's own.
std::string ShortPlace(const FindingTexts& texts, const ProgramSite& site) {
  if (!site.file.empty() && site.exact_line) {
    std::string file = site.file.substr(site.file.find_last_of('/') + 1);
    std::string place = file + ":" + std::to_string(site.line);
    return site.by_autograd ? texts.Fill("verdict.place_autograd_short", {{"place", place}}) : place;
  }
  return site.empty() ? texts.Get("verdict.place_unknown_short") : texts.RenderPlace(site);
}

std::string StepsLine(const FindingTexts& texts, const Verdict& v) {
  const StepSplit& s = v.steps;
  if (!s.found()) return texts.Fill("verdict.steps.none", {{"span", FormatDuration(v.step)}});
  std::map<std::string, std::string> vars{{"steady", std::to_string(s.steady)},
                                          {"median", FormatDuration(s.median)},
                                          {"low", FormatDuration(s.low)},
                                          {"high", FormatDuration(s.high)},
                                          {"warmup", std::to_string(s.warmup)},
                                          {"period", std::to_string(s.period)},
                                          {"name", s.range_name}};
  std::string line = texts.Fill(s.source == StepSource::kRanges ? "verdict.steps.ranges" : "verdict.steps.repeating", vars);
  if (v.gpu_paced) line += " " + texts.Fill("verdict.steps.gpu_paced", {{"step", FormatDuration(v.pace.ends)}});
  return line;
}

std::string KernelsOf(const FindingTexts& texts, const Verdict& v) {
  std::string kernels;
  for (const TopKernel& k : v.top_kernels)
    kernels += (kernels.empty() ? "" : texts.Get("verdict.kernel.sep")) +
               texts.Fill("verdict.kernel", {{"name", k.name}, {"time", FormatDuration(k.busy)}, {"n", Count(k.launches)}});
  return kernels;
}

std::string BoundLine(const FindingTexts& texts, const Verdict& v) {
  std::string key = std::string("verdict.bound.") + ToString(v.bound);
  std::string variant = key + "." + ToString(v.bound_kind);
  if (texts.Has(variant)) key = variant;
  TimeNs launch_each = 0;
  double launches = 0;
  for (const VerdictFix& f : v.fixes)
    if (f.kind == FixKind::kLaunchRate) launch_each = f.each, launches = f.count;
  std::string line = texts.Fill(key, {{"share", Percent(v.by_category[static_cast<int>(v.bound)], v.step)},
                                      {"unit", Unit(texts, v)},
                                      {"per", Per(texts, v)},
                                      {"kernels", KernelsOf(texts, v)},
                                      {"launches", Count(launches)},
                                      {"each", FormatDuration(launch_each)},
                                      {"kind", KindName(texts, v.bound_kind)},
                                      {"sms", std::to_string(v.sm_count > 0 ? v.sm_count : 132)},
                                      {"connections", std::to_string(v.connections)}});
  if (v.bound == TimeCategory::kGpuCompute && v.bound_kind != TimeKind::kSmallGrid)
    line += " " + texts.Get(v.python ? "verdict.remedy.py.kernels" : "verdict.remedy.cpp.kernels");
  // A host-side bound with the GPU busy half the step or more: a faster host alone saves at most
  // the rest (marian's GradScaler loop: launching 52 % on the path, the GPU busy 73 %; halving
  // its batch on the GPU shortened the step by 24 %, not the half a GPU-bound step loses).
  bool host_side = v.bound == TimeCategory::kLaunch || v.bound == TimeCategory::kCudaCall || v.bound == TimeCategory::kHostWork;
  if (host_side && v.step > 0 && 2 * v.gpu_busy >= v.step)
    line += " " + texts.Fill("verdict.balanced", {{"busy", Percent(v.gpu_busy, v.step)},
                                                  {"unit", Unit(texts, v)},
                                                  {"headroom", Percent(v.step - v.gpu_busy, v.step)}});
  return line;
}

std::string StartupLine(const FindingTexts& texts, const Trace& t, const Verdict& v) {
  std::string list;
  for (const StartupCost& c : v.startup) {
    if (c.time <= 0) continue;
    std::string key;
    switch (c.kind) {
      case StartupCost::kContext: key = c.inferred ? "verdict.startup.context_inferred" : "verdict.startup.context"; break;
      case StartupCost::kModuleLoads: key = "verdict.startup.module_loads"; break;
      case StartupCost::kBeforeFirstStep: key = "verdict.startup.before"; break;
      case StartupCost::kWarmupSteps:
        key = c.simulated_save > 0 ? (c.loads > 0 ? "verdict.startup.warmup_simulated_loads" : "verdict.startup.warmup_simulated")
                                   : "verdict.startup.warmup";
        break;
      case StartupCost::kAfterLastStep: key = "verdict.startup.after"; break;
      case StartupCost::kAfterGpuWork: key = "verdict.startup.after_gpu"; break;
    }
    list += (list.empty() ? "" : texts.Get("verdict.items.sep")) +
            texts.Fill(key, {{"time", FormatDuration(c.time)},
                             {"n", std::to_string(c.count)},
                             {"saved", FormatDuration(std::min(c.simulated_save, c.time))},
                             {"loads", FormatDuration(c.loads)},
                             {"call", c.op >= 0 ? DisplayName(t.scenario, c.op) : ""}});
  }
  return list.empty() ? "" : texts.Fill("verdict.startup", {{"list", list}});
}

// What this run's own timestamps say of a race: the op called later began before the one called
// first ended (the result may already be wrong), or each time it began after, by timing alone.
std::string RaceTiming(const FindingTexts& texts, const RaceLine& r) {
  if (r.overlapped > 0)
    return " " + texts.Fill("verdict.race.overlapped", {{"n", std::to_string(r.overlapped)}, {"of", std::to_string(r.occurrences)}});
  if (r.closest >= 0)
    return " " + texts.Fill("verdict.race.latent", {{"of", std::to_string(r.occurrences)}, {"gap", FormatDuration(r.closest)}});
  return "";
}

// The remedy orders the two as the program called them: the op called later waits for the one
// called first, whichever of them writes (a read racing a later write needs it as much).
std::string RaceLine_(const FindingTexts& texts, const Trace& t, const RaceLine& r, bool python) {
  auto stream_of = [&](int op) {
    int s = t.scenario.ops[op].stream;
    return s >= 0 ? t.scenario.streams[s].name : std::string("?");
  };
  std::map<std::string, std::string> vars = {{"first", DisplayName(t.scenario, r.first)},
                                             {"first_place", ShortPlace(texts, r.first_site)},
                                             {"first_stream", stream_of(r.first)},
                                             {"second", DisplayName(t.scenario, r.second)},
                                             {"second_place", ShortPlace(texts, r.second_site)},
                                             {"second_stream", stream_of(r.second)}};
  bool second_known = !r.second_site.empty();
  vars["second_at"] = second_known ? texts.Fill("verdict.race.at", {{"place", vars["second_place"]}}) : "";
  std::string text = texts.Fill("verdict.race", vars) + RaceTiming(texts, r) + " " +
                     texts.Fill(python ? "verdict.remedy.py.race" : "verdict.remedy.cpp.race", vars);
  if (python && r.write_after_read) text += " " + texts.Get("verdict.remedy.py.race_reuse");
  return text;
}

// Several processes: each one's step and bound, and the straggler (or none).
std::string RanksLine(const FindingTexts& texts, const ProgramVerdict& pv) {
  std::string list;
  for (const Verdict& v : pv.processes)
    list += (list.empty() ? "" : texts.Get("verdict.items.sep")) + texts.Fill("verdict.rank.item", {{"name", v.name.empty() ? "#" + std::to_string(v.process) : v.name},
                                                                        {"step", FormatDuration(v.found() ? v.steps.median : v.step)},
                                                                        {"bound", CategoryName(texts, v.bound)}});
  std::string straggler;
  if (pv.straggler < 0) {
    straggler = texts.Get("verdict.straggler.none");
  } else {
    std::string name = "#" + std::to_string(pv.straggler);
    for (const Verdict& v : pv.processes)
      if (v.process == pv.straggler && !v.name.empty()) name = v.name;
    straggler = texts.Fill("verdict.straggler", {{"rank", name}, {"wait", FormatDuration(pv.straggler_wait)},
                                                 {"per", Per(texts, pv.lead())},
                                                 {"doing", KindName(texts, pv.straggler_doing)}});
  }
  return texts.Fill("verdict.ranks", {{"list", list}}) + " " + straggler;
}

// Whether every copy among `ops` that touches the host does so in pinned memory (advice to pin
// them would be beside the point; simpleStreams copies from cudaMallocHost already).
bool AllHostSidesPinned(const Scenario& s, const std::vector<int>& ops) {
  bool any = false;
  for (int i : ops) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kMemcpy) continue;
    for (int b : {op.src, op.dst}) {
      if (b < 0 || b >= static_cast<int>(s.buffers.size()) || s.buffers[b].kind == MemoryKind::kDevice) continue;
      if (s.buffers[b].kind != MemoryKind::kPinnedHost) return false;
      any = true;
    }
  }
  return any;
}

// Whether every call among `ops` pins or unpins host memory (cudaMallocHost, cudaFreeHost,
// cudaHostAlloc, cudaHostRegister ...): a loop that pins its staging buffers each frame allocates
// no device memory, and cudaMallocAsync is no remedy for it (heldout8's staging loop).
bool AllPinnedHostAllocations(const Scenario& s, const std::vector<int>& ops) {
  auto pins = [&](const Op& op) {
    if (op.kind == OpKind::kMallocHost) return true;
    if (op.kind == OpKind::kFree)
      return op.buffer >= 0 && op.buffer < static_cast<int>(s.buffers.size()) && s.buffers[op.buffer].kind == MemoryKind::kPinnedHost;
    return op.kind == OpKind::kApiCall && PinsHostMemory(op.name);
  };
  return !ops.empty() && std::all_of(ops.begin(), ops.end(), [&](int i) { return pins(s.ops[i]); });
}

}  // namespace

std::string CategoryName(const FindingTexts& texts, TimeCategory category) {
  return texts.Get(std::string("verdict.category.") + ToString(category));
}

std::string KindName(const FindingTexts& texts, TimeKind kind) { return texts.Get(std::string("verdict.kind.") + ToString(kind)); }

std::string RenderAccount(const FindingTexts& texts, const Verdict& v) {
  std::vector<int> order;
  for (int c = 0; c < kTimeCategoryCount; ++c)
    if (v.by_category[c] * 100 >= v.step && v.by_category[c] > 0) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v.by_category[a] > v.by_category[b]; });
  std::string list;
  for (int c : order)
    list += (list.empty() ? "" : texts.Get("verdict.list.sep")) + texts.Fill("verdict.account.item", {{"name", CategoryName(texts, static_cast<TimeCategory>(c))},
                                                                            {"share", Percent(v.by_category[c], v.step)}});
  std::string scope = v.found() ? texts.Fill("verdict.scope.steps", {{"n", std::to_string(v.walked)}, {"step", FormatDuration(v.step)}})
                                : texts.Fill("verdict.scope.run", {{"span", FormatDuration(v.step)}});
  std::string line = texts.Fill("verdict.account", {{"unit", Unit(texts, v)}, {"scope", scope}, {"list", list}});
  if (v.gpu_busy > 0) line += " " + texts.Fill("verdict.gpu_busy", {{"busy", Percent(v.gpu_busy, v.step)}});
  if (v.recorder * 100 >= v.step && v.recorder > 0)
    line += " " + texts.Fill("verdict.unrecorded", {{"unit", Unit(texts, v)}, {"estimate", FormatDuration(v.step - v.recorder)},
                                                    {"own", FormatDuration(v.recorder)}});
  return line;
}

// PYTORCH_NO_CUDA_MEMORY_CACHING=1 in the recorded process's own environment.
bool CachingAllocatorOff(const Scenario& s) {
  auto it = s.settings.env.find("PYTORCH_NO_CUDA_MEMORY_CACHING");
  return s.settings.known && it != s.settings.env.end() && it->second == "1";
}

// A run without steps has no loop: a text that speaks of one has a ".run" form there.
std::string ForRun(const FindingTexts& texts, const Verdict& v, const std::string& key) {
  return !v.found() && texts.Has(key + ".run") ? key + ".run" : key;
}

// Copies on the path one way while the other direction's engine also ran most of the step: the
// path followed one chain of copies, but the other is nearly as long, so the step is the link's
// both ways (heldout6's pinned pipeline: 268 MB each way, both engines ~88 % busy, the downloads'
// chain critical by 0.08 ms of 6 ms). The other way's copies still run one after another on
// their engine, so whatever this way loses, the step stays at least as long as they ran.
std::string BothWays(const FindingTexts& texts, const Verdict& v, const VerdictFix& f) {
  auto one_way = [](const VerdictFix& x) {
    return (x.kind == FixKind::kCopies || x.kind == FixKind::kCopyWait) && (x.time_kind == TimeKind::kH2D || x.time_kind == TimeKind::kD2H);
  };
  if (!one_way(f) || v.step <= 0) return "";
  // Said once, at the costliest such fix: it is one fact about the step, not about each fix.
  auto first = std::find_if(v.fixes.begin(), v.fixes.end(), one_way);
  if (first == v.fixes.end() || &*first != &f) return "";
  const int other = f.time_kind == TimeKind::kH2D ? 1 : 0;
  // Either way's copies alone still take as long as they ran: the step cannot shrink below that.
  if (3 * v.copy_busy[other] < 2 * v.step) return "";
  return " " + texts.Fill("verdict.copies.both_ways", {{"other", KindName(texts, other == 0 ? TimeKind::kH2D : TimeKind::kD2H)},
                                                       {"kind", KindName(texts, f.time_kind)},
                                                       {"share", Percent(v.copy_busy[other], v.step)},
                                                       {"save", FormatDuration(v.step - std::min(v.copy_busy[0], v.copy_busy[1]))}});
}

std::string RenderFix(const FindingTexts& texts, const Trace& trace, const Verdict& v, const VerdictFix& f) {
  std::string place;
  if (!f.site.empty()) {
    place = texts.Fill(f.came_back ? "verdict.place_back" : "verdict.place", {{"place", texts.RenderPlace(f.site)}});
    if (f.site_sampled > 0) place += texts.Fill("verdict.place_sampled", {{"share", FormatPercent(f.site_sampled)}});
  } else if (v.python && (f.kind == FixKind::kHostWork || f.kind == FixKind::kDataLoading || f.kind == FixKind::kHostSync ||
                        f.kind == FixKind::kPageableCopy || f.kind == FixKind::kBlockingCall || f.kind == FixKind::kMallocMidRun))
    place = texts.Get("verdict.place_unknown");
  std::string kind = ToString(f.kind);
  const bool pinned_host = f.kind == FixKind::kMallocMidRun && AllPinnedHostAllocations(trace.scenario, f.calls);
  if (pinned_host) kind += "_pinned";  // its text and its remedy: host memory, not the device's
  std::string rank = f.call;  // kOtherDevice: the process's name
  std::string text = texts.Fill(ForRun(texts, v, "verdict.fix." + kind), {{"cost", FormatDuration(f.per_step)},
                                                        {"per", Per(texts, v)},
                                                        {"share", Percent(f.per_step, v.step)},
                                                        {"count", Count(f.count)},
                                                        {"call", f.call},
                                                        {"place", place},
                                                        {"each", FormatDuration(f.each)},
                                                        {"launches", Count(f.count)},
                                                        {"rank", rank},
                                                        {"kind", KindName(texts, f.time_kind)},
                                                        {"copies", CategoryOf(f.time_kind) == TimeCategory::kGpuCopy ? KindName(texts, f.time_kind)
                                                                                                                     : texts.Get("verdict.copies.any")},
                                                        {"connections", std::to_string(v.connections)},
                                                        {"bytes", Size(static_cast<double>(f.bytes))},
                                                        // bytes per ns is GB/s
                                                        {"rate", f.each > 0 ? Count(static_cast<double>(f.bytes) / static_cast<double>(f.each)) : "?"}});
  text += BothWays(texts, v, f);
  if (f.exposes > 0)
    text += " " + texts.Fill("verdict.exposes", {{"own", FormatDuration(f.per_step - f.exposes)}, {"exposed", FormatDuration(f.exposes)}});
  if (f.exposed_by >= 0)
    text += " " + texts.Fill("verdict.exposed", {{"call", DisplayName(trace.scenario, f.exposed_by)},
                                                 {"place", f.exposed_site.empty() ? "" : " " + ShortPlace(texts, f.exposed_site)}});
  if (f.simulated_save >= 0) {
    std::string edit = texts.Get(ForRun(texts, v, "verdict.edit." + f.simulated_edit));
    std::string what = texts.Get(v.found() ? "verdict.saved.step" : "verdict.saved.run");
    if (f.simulated_save * 100 < f.simulated_step)
      text += " " + texts.Fill("verdict.would_save_none", {{"edit", edit}, {"what", what}});
    else
      text += " " + texts.Fill("verdict.would_save", {{"edit", edit}, {"what", what},
                                                      {"save", FormatDuration(f.simulated_save)},
                                                      {"share", Percent(f.simulated_save, f.simulated_step)}});
    // The other case the trace cannot rule out, where it saves at least 1 % of a step more.
    if (f.simulated_other_case != VerdictFix::kNoOtherCase && (f.simulated_other_save - f.simulated_save) * 100 >= f.simulated_step)
      text += " " + texts.Fill(std::string("verdict.would_save_other.") + OtherCaseName(f.simulated_other_case),
                               {{"save", FormatDuration(f.simulated_other_save)}, {"share", Percent(f.simulated_other_save, f.simulated_step)}});
  }
  std::string remedy = std::string("verdict.remedy.") + (v.python ? "py." : "cpp.") + kind;
  if (f.kind == FixKind::kLaunchRate && v.graphs) remedy += "_graphs";
  if (f.kind == FixKind::kHostWork && f.at_step_start) remedy += "_step_start";
  if (f.kind == FixKind::kBlockingCall && f.time_kind == TimeKind::kBlockingLaunch) remedy += "_launch";
  if (f.kind == FixKind::kKernels && f.time_kind == TimeKind::kSmallGrid) remedy += "_small_grid";
  // Kernels held in order by the legacy default stream for most of their time on the path: more
  // streams are not the answer, streams that do not wait for it are.
  if (f.kind == FixKind::kKernels && v.legacy_serialized * 2 >= f.per_step)
    remedy = std::string("verdict.remedy.") + (v.python ? "py." : "cpp.") + "kernels_legacy";
  if ((f.kind == FixKind::kCopies || f.kind == FixKind::kCopyWait) && AllHostSidesPinned(trace.scenario, f.calls)) remedy += "_pinned";
  // The program turned PyTorch's caching allocator off: every tensor is a cudaMalloc and a
  // cudaFree (which waits for the device), and the remedy is the setting, not the shapes.
  if (f.kind == FixKind::kMallocMidRun && !pinned_host && v.python && CachingAllocatorOff(trace.scenario))
    remedy = "verdict.remedy.py.malloc_mid_run_no_cache";
  // A read inside PyTorch with a known remedy says it (GradScaler's overflow check, a shape that
  // depends on the data), rather than "read it less often", which the program cannot.
  if (f.kind == FixKind::kHiddenRead && IsGradScalerOverflowRead(f.site)) return text + " " + texts.Get("advice.grad_scaler");
  if (f.kind == FixKind::kHiddenRead && IsDataDependentShapeRead(f.site)) return text + " " + texts.Get("advice.data_dependent_shape");
  return text + " " + texts.Get(ForRun(texts, v, remedy));
}

// Sentences and lists are joined with a blank, which Chinese does not put after its full-width
// marks ("。 让内核更快" reads as a gap): the blanks right after one go. English has none of them.
static std::string TightAfterFullWidth(std::string line) {
  static const std::string kMarks[] = {"\xE3\x80\x82", "\xEF\xBC\x8C", "\xEF\xBC\x9B", "\xEF\xBC\x9A",
                                       "\xEF\xBC\x81", "\xEF\xBC\x9F", "\xEF\xBC\x89"};  // 。，；：！？）
  for (const std::string& mark : kMarks)
    for (size_t at = line.find(mark + " "); at != std::string::npos; at = line.find(mark + " ", at))
      line.erase(at + mark.size(), 1);
  return line;
}

static std::vector<std::string> RenderVerdictLines(const FindingTexts& texts, const Trace& t, const ProgramVerdict& pv);

std::vector<std::string> RenderVerdict(const FindingTexts& texts, const Trace& t, const ProgramVerdict& pv) {
  std::vector<std::string> lines = RenderVerdictLines(texts, t, pv);
  for (std::string& line : lines) {
    size_t indent = line.find_first_not_of(' ');  // the indent of a line stays
    if (indent != std::string::npos) line = line.substr(0, indent) + TightAfterFullWidth(line.substr(indent));
  }
  return lines;
}

static std::vector<std::string> RenderVerdictLines(const FindingTexts& texts, const Trace& t, const ProgramVerdict& pv) {
  std::vector<std::string> lines;
  if (!pv.found() && pv.races.empty()) return lines;
  bool python = pv.found() ? pv.lead().python : IsPythonProgram(t);
  // Wrong results come before any speed advice.
  for (size_t i = 0; i < pv.races.size() && i < 2; ++i)
    lines.push_back((i == 0 ? texts.Get("verdict.title") + " " : std::string("  ")) + RaceLine_(texts, t, pv.races[i], python));
  if (!pv.found()) return lines;
  const Verdict& v = pv.lead();
  lines.push_back((lines.empty() ? texts.Get("verdict.title") + " " : std::string("  ")) + BoundLine(texts, v));
  if (pv.processes.size() > 1) lines.push_back("  " + RanksLine(texts, pv));
  lines.push_back("  " + StepsLine(texts, v));
  lines.push_back("  " + RenderAccount(texts, v));
  // The fixes before the one-off costs: a step's causes matter more than start-up's.
  std::string startup = StartupLine(texts, t, v);
  size_t room = kVerdictLines - lines.size() - 1;
  if (!v.fixes.empty()) lines.push_back("  " + texts.Get(v.found() ? "verdict.fixes" : "verdict.fixes.run"));
  for (size_t i = 0; i < v.fixes.size() && i < kVerdictFixes && i < room; ++i)
    lines.push_back("    " + std::to_string(i + 1) + ". " + RenderFix(texts, t, v, v.fixes[i]));
  if (!startup.empty() && lines.size() < kVerdictLines) lines.push_back("  " + startup);
  if (lines.size() > kVerdictLines) lines.resize(kVerdictLines);
  return lines;
}

const std::vector<std::string>& VerdictTextKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"verdict.title", "verdict.steps.none", "verdict.steps.ranges", "verdict.steps.repeating",
                               "verdict.steps.gpu_paced", "verdict.account", "verdict.account.item", "verdict.scope.steps",
                               "verdict.scope.run", "verdict.unit.step", "verdict.unit.run", "verdict.fixes.run", "verdict.fixes",
                               "verdict.place", "verdict.place_unknown", "verdict.place_unknown_short", "verdict.place_autograd_short", "verdict.place_back",
                               "verdict.startup", "verdict.startup.context", "verdict.startup.context_inferred",
                               "verdict.startup.module_loads", "verdict.startup.before", "verdict.startup.warmup",
                               "verdict.startup.warmup_simulated", "verdict.startup.warmup_simulated_loads", "verdict.startup.after",
                               "verdict.remedy.py.launch_rate_graphs", "verdict.remedy.cpp.launch_rate_graphs", "verdict.per_step",
                               "verdict.per_run", "verdict.remedy.py.host_work_step_start", "verdict.remedy.cpp.host_work_step_start",
                               "verdict.would_save", "verdict.would_save_none", "verdict.saved.step", "verdict.saved.run",
                               "verdict.would_save_other.graph_gap", "verdict.would_save_other.loader", "verdict.kernel",
                               "verdict.kernel.sep", "verdict.place_sampled", "verdict.copies.any", "verdict.list.sep", "verdict.items.sep", "verdict.exposes", "verdict.exposed", "verdict.race", "verdict.remedy.py.race",
                               "verdict.remedy.cpp.race", "verdict.race.at", "verdict.remedy.py.race_reuse", "verdict.ranks", "verdict.rank.item", "verdict.straggler",
                               "verdict.straggler.none", "verdict.bound.gpu_compute.small_grid", "verdict.bound.host_work.data_loading",
                               "verdict.bound.gpu_queued.hardware_queue", "verdict.remedy.py.blocking_call_launch",
                               "verdict.remedy.cpp.blocking_call_launch", "verdict.remedy.py.kernels_small_grid",
                               "verdict.remedy.cpp.kernels_small_grid", "verdict.remedy.py.copies_pinned",
                               "verdict.remedy.cpp.copies_pinned", "verdict.remedy.py.copy_wait_pinned",
                               "verdict.remedy.cpp.copy_wait_pinned", "verdict.gpu_busy", "verdict.balanced",
                               "verdict.race.overlapped", "verdict.race.latent", "verdict.startup.after_gpu", "verdict.remedy.py.kernels_legacy",
                               "verdict.remedy.cpp.kernels_legacy", "verdict.remedy.py.malloc_mid_run_no_cache", "verdict.copies.both_ways"};
    for (const char* edit : {"defer_read", "drop_sync", "pin_copy", "allocate_once", "graph_steps", "shorten_host_work", "connections",
                             "side_stream_copy"})
      k.push_back(std::string("verdict.edit.") + edit);
    // A run without a loop (ForRun).
    for (const char* run : {"verdict.fix.malloc_mid_run", "verdict.fix.graph_build", "verdict.remedy.py.host_work",
                            "verdict.remedy.cpp.host_work", "verdict.remedy.py.malloc_mid_run", "verdict.remedy.cpp.malloc_mid_run",
                            "verdict.remedy.py.blocking_call", "verdict.remedy.cpp.blocking_call", "verdict.remedy.py.module_load_wait",
                            "verdict.remedy.cpp.module_load_wait", "verdict.remedy.cpp.graph_build", "verdict.edit.shorten_host_work",
                            "verdict.edit.allocate_once"})
      k.push_back(std::string(run) + ".run");
    for (int c = 0; c < kTimeCategoryCount; ++c) {
      // (The recorder's own work is never the bound: it is not the program's.)
      if (static_cast<TimeCategory>(c) != TimeCategory::kRecording)
        k.push_back(std::string("verdict.bound.") + ToString(static_cast<TimeCategory>(c)));
      k.push_back(std::string("verdict.category.") + ToString(static_cast<TimeCategory>(c)));
    }
    k.push_back("verdict.unrecorded");
    for (int kind = 0; kind < kTimeKindCount; ++kind) k.push_back(std::string("verdict.kind.") + ToString(static_cast<TimeKind>(kind)));
    for (int f = 0; f < kFixKindCount; ++f) {
      std::string kind = ToString(static_cast<FixKind>(f));
      k.push_back("verdict.fix." + kind);
      k.push_back("verdict.remedy.py." + kind);
      k.push_back("verdict.remedy.cpp." + kind);
    }
    for (const char* pinned : {"verdict.fix.malloc_mid_run_pinned", "verdict.remedy.py.malloc_mid_run_pinned",
                               "verdict.remedy.cpp.malloc_mid_run_pinned"})
      k.push_back(pinned);
    return k;
  }();
  return keys;
}

}  // namespace streamlab
