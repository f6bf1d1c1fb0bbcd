// Rendering findings from templates: pick the template for the finding, fill its {vars}.
#include "engine/analysis/findings_text.h"

#include "engine/analysis/library_writes.h"
#include "engine/analysis/program_sites.h"
#include "engine/analysis/program_facts.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"
#include "engine/util/assets.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

std::string StreamName(const Scenario& s, int op) {
  return op >= 0 && s.ops[op].stream >= 0 ? s.streams[s.ops[op].stream].name : "-";
}

std::string Name(const Scenario& s, int op) { return op >= 0 ? DisplayName(s, op) : "-"; }

std::string NameList(const Scenario& s, const std::vector<int>& ops, const std::string& more) {
  std::string out;
  size_t shown = std::min<size_t>(ops.size(), 4);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + DisplayName(s, ops[i]);
  if (ops.size() > shown) {
    // `more` is "and {n} more" (en) or "等另外 {n} 个" (zh).
    std::string rest = more;
    size_t at = rest.find("{n}");
    if (at != std::string::npos) rest.replace(at, 3, std::to_string(ops.size() - shown));
    out += " " + rest;
  }
  return out.empty() ? "-" : out;
}

bool Pageable(const Scenario& s, const Op& op) {
  return s.buffers[op.src].kind == MemoryKind::kPageableHost ||
         s.buffers[op.dst].kind == MemoryKind::kPageableHost;
}

}  // namespace

bool WaitsRecordIsUnknown(const Trace& t, const Finding& f) {
  // A Kineto record whose stream could not be inferred sits on a stream with no work.
  return f.kind == FindingKind::kWaitCapturedNothing && t.backend == "kineto" && f.marker >= 0 && f.other < 0 &&
         t.scenario.ops[f.op].kind != OpKind::kWaitStream;
}

FindingTexts FindingTexts::Load(const std::string& lang) {
  std::string path = AssetsDir() + "/analyzer.json";
  Json json = ParseJson(ReadTextFile(path), path);
  if (!json.is_object() || !json.contains(lang) || !json[lang].is_object())
    throw InputError(path + ": no texts for language \"" + lang + "\" (en, zh)");
  FindingTexts texts;
  texts.lang_ = lang;
  for (const std::string& key : Keys()) {
    const Json& v = json[lang].value(key, Json());
    if (!v.is_string()) throw InputError(path + ": " + lang + "." + key + ": missing");
    texts.templates_[key] = v.get<std::string>();
  }
  // The other templates: the notes' ("note.<key>", and "note_process" for a note about one
  // process of a merged run), optional (a note without one is shown in English), and those of
  // the stages after the analysis (the verdict, the account), which check their own keys.
  bool any_note = false;
  for (auto it = json[lang].begin(); it != json[lang].end(); ++it) {
    if (texts.templates_.count(it.key())) continue;
    if (!it.value().is_string()) throw InputError(path + ": " + lang + "." + it.key() + ": expected a string");
    texts.templates_[it.key()] = it.value().get<std::string>();
    any_note |= it.key().rfind("note", 0) == 0;
  }
  if (any_note && !texts.templates_.count("note_process"))
    throw InputError(path + ": " + lang + ".note_process: missing (the notes' templates need it)");
  return texts;
}

const std::string& FindingTexts::Get(const std::string& key) const {
  if (native_program_)
    if (auto it = templates_.find(key + ".cpp"); it != templates_.end()) return it->second;
  return templates_.at(key);
}

void FindingTexts::ChooseLanguageOf(const Trace& trace) const {
  native_program_ = trace.scenario.recorded && !IsPythonProgram(trace);
}

std::string FindingTexts::Fill(const std::string& key, const std::map<std::string, std::string>& vars) const {
  return FillTemplate(Get(key), vars);
}

std::string FindingTexts::RenderNote(const TraceNote& note) const {
  auto it = note.key.empty() ? templates_.end() : templates_.find("note." + note.key);
  if (it == templates_.end()) return note.text;
  std::string text = FillTemplate(it->second, note.vars);
  return note.process.empty() ? text : Fill("note_process", {{"process", note.process}, {"note", text}});
}

// An imported trace may not say everything a finding rests on (which record a Kineto wait
// captured): every inference behind the finding is said, so no guess reads as a fact.
std::string FindingTexts::Render(const Trace& t, const Finding& f) const {
  ChooseLanguageOf(t);
  std::string text = RenderBody(t, f);
  if (!f.site.empty()) text += " " + RenderSite(f.site);
  // Said once, with the read itself (the sync inside it is a finding of its own).
  if (f.kind == FindingKind::kHiddenSync && IsGradScalerOverflowRead(f.site)) text += " " + Get("advice.grad_scaler");
  if (f.kind == FindingKind::kHiddenSync && IsDataDependentShapeRead(f.site)) text += " " + Get("advice.data_dependent_shape");
  if (!f.places.empty()) {
    text += " " + RenderPlaces(f);
  } else if (f.kind == FindingKind::kGpuIdle && f.idle == IdleCause::kHostWork && t.scenario.recorded) {
    // A program's trace that cannot say where its host was says so, and how to learn it.
    // Stacks read only at calls cover a sliver of the gaps: that is not knowing where the host was.
    text += " " + Get(f.places_known * 2 >= f.places_of && f.places_known > 0 ? "places.spread" : "places.unknown");
    if (!f.resumed_at.empty()) text += " " + RenderResumed(f);
  }
  if (f.kind == FindingKind::kDataRace || f.kind == FindingKind::kOverlap || f.kind == FindingKind::kWrongResult ||
      f.kind == FindingKind::kGpuIdle || f.kind == FindingKind::kAddressRace)
    return text;
  std::vector<int> ops{f.op, f.marker};
  ops.insert(ops.end(), f.because.begin(), f.because.end());
  std::vector<const std::string*> said;
  for (int op : ops) {
    if (op < 0 || op >= static_cast<int>(t.ops.size())) continue;
    const std::string& what = lang_ == "zh" && !t.ops[op].inferred_zh.empty() ? t.ops[op].inferred_zh : t.ops[op].inferred;
    if (what.empty() || std::find_if(said.begin(), said.end(), [&](const std::string* x) { return *x == what; }) != said.end())
      continue;
    said.push_back(&what);
    text += " " + Fill("inferred", {{"what", what}});
  }
  // "Nothing held it" is only as good as the trace: waits it logged without their stream
  // may have.
  bool says_nothing_held_it = f.kind == FindingKind::kStartDelay &&
                              (f.cause == Cause::kSmsBusy || f.cause == Cause::kUnexplained ||
                               f.cause == Cause::kCopyEngineBusy || f.cause == Cause::kHardwareQueue ||
                               f.cause == Cause::kModuleLoad);
  if (says_nothing_held_it && f.op >= 0 && f.op < static_cast<int>(t.ops.size())) {
    size_t unrecorded = 0;
    for (const OpRecord& r : t.ops)
      unrecorded += r.note == kUnrecordedWait && r.submit < t.ops[f.op].start ? 1 : 0;
    if (unrecorded > 0) text += " " + Fill("unrecorded_waits", {{"n", std::to_string(unrecorded)}});
  }
  return text;
}

std::string FindingTexts::RenderSite(const ProgramSite& site, bool within) const {
  return SiteWords(site, within ? "site.at_within" : "site.at", within ? "site.in_only_within" : "site.in_only") +
         Get("site.end");
}

std::string FindingTexts::RenderPlace(const ProgramSite& site) const {
  return SiteWords(site, "site.at_place", "site.in_only_place");
}

std::string FindingTexts::SiteWords(const ProgramSite& site, const char* at_key, const char* in_only_key) const {
  // No line from torch.profiler: it gives a frame the line where it first saw it (a function's
  // first line, or where profiling began), not the line that made the call. A recording's
  // Python stack gives the program's frame the call's own line.
  auto frame = [&](const std::string& file, const std::string& function) {
    return Fill("site.frame", {{"file", file}, {"function", function}});
  };
  auto program_frame = [&](const std::string& file, const std::string& function) {
    if (site.most_line && site.line > 0)
      return Fill("site.frame_most_line", {{"file", file}, {"function", function}, {"line", std::to_string(site.line)}});
    if (!site.exact_line || site.line <= 0) return frame(file, function);
    return Fill("site.frame_line", {{"file", file}, {"function", function}, {"line", std::to_string(site.line)}});
  };
  // Ops nested deep (aten::item > aten::_local_scalar_dense > ...) keep their two outermost and
  // the innermost: what the program called and what made the call.
  std::string ranges;
  for (size_t i = 0; i < site.ranges.size(); ++i) {
    if (site.ranges.size() > 3 && i == 2) {
      ranges += " > ...";
      i = site.ranges.size() - 1;
    }
    ranges += (i ? " > " : "") + site.ranges[i];
  }
  if (site.file.empty()) return Fill(in_only_key, {{"ranges", ranges}});
  std::string text = Fill(at_key, {{"frame", program_frame(site.file, site.function)}});
  if (!site.caller_file.empty())
    text += site.caller_via_file.empty()
                ? Fill("site.caller", {{"frame", frame(site.caller_file, site.caller_function)}})
                : Fill("site.caller_via", {{"frame", frame(site.caller_file, site.caller_function)},
                                           {"via", frame(site.caller_via_file, site.caller_via_function)}});
  if (!site.via_file.empty()) {
    // "step > _maybe_opt_step (torch/amp/grad_scaler.py)": the call the program made and the
    // library function it led to, the file said once when both are in it.
    std::string frames = frame(site.via_file, site.via_function);
    if (!site.inner_file.empty()) {
      std::string link = site.via_depth > 0 ? " > ... > " : " > ";
      frames = site.inner_file == site.via_file
                   ? frame(site.via_file, site.via_function + link + site.inner_function)
                   : frames + link + frame(site.inner_file, site.inner_function);
    }
    text += Fill("site.via", {{"frames", frames}});
  }
  if (site.by_autograd) text += Get("site.by_autograd");
  if (!ranges.empty()) text += Fill("site.in", {{"ranges", ranges}});
  return text;
}

std::string FindingTexts::RenderResumed(const Finding& f) const {
  std::string list;
  for (const HostPlace& p : f.resumed_at) {
    double share = static_cast<double>(p.time) / static_cast<double>(std::max<TimeNs>(f.places_of, 1));
    list += (list.empty() ? "" : Get("places.separator")) +
            Fill("places.item", {{"share", FormatPercent(share)}, {"place", SiteWords(p.site, "site.at_place", "site.in_only_place")}});
  }
  return Fill("places.resumed", {{"list", list}});
}

std::string FindingTexts::RenderPlaces(const Finding& f) const {
  if (f.places.empty() || f.places_of <= 0) return "";
  std::string list;
  for (const HostPlace& p : f.places) {
    double share = static_cast<double>(p.time) / static_cast<double>(f.places_of);
    list += (list.empty() ? "" : Get("places.separator")) +
            Fill("places.item", {{"share", FormatPercent(share)}, {"place", SiteWords(p.site, "site.at_place", "site.in_only_place")}});
  }
  std::string text = Fill("places", {{"list", list}});
  if (std::any_of(f.places.begin(), f.places.end(), [](const HostPlace& p) { return IsDataLoaderPlace(p.site); }))
    text += " " + Get("advice.dataloader");
  return text;
}

// [SECTION] each kind of finding's sentence ------------------------------------------------

std::string FindingTexts::RenderStartDelay(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  std::string key = std::string("delay.") + ToString(f.cause);
  if (f.cause == Cause::kLegacyBarrier)
    key = s.streams[s.ops[f.op].stream].kind == StreamKind::kLegacyDefault
              ? "delay.legacy_waits_blocking"
              : "delay.blocking_waits_legacy";
  if (f.cause == Cause::kModuleLoad && f.marker == f.op) key = "delay.module_load_self";
  if (f.cause == Cause::kHardwareQueue && f.marker >= 0) key = "delay.hardware_queue_collective";
  if (f.marker >= 0 && s.ops[f.marker].event >= 0) v["event"] = s.events[s.ops[f.marker].event].name;
  if (f.cause == Cause::kHostLate) {
    // A kernel's op is named by the kernel: the call that held the host was its launch
    // ("blocked in Fill and only then submitted Fill" read as if one op waited for itself).
    int call = f.because.front();
    bool launch = call >= 0 && s.ops[call].kind == OpKind::kKernel;
    bool same_name = Name(s, call) == Name(s, f.op);
    v["call"] = !launch ? Name(s, call) : Fill(same_name ? "call.launch_of_earlier" : "call.launch_of", {{"op", Name(s, call)}});
    v["blocked"] = FormatDuration(f.amount);
  }
  v["queued"] = FormatDuration(f.cause == Cause::kSmsBusy ? f.amount : QueuedTime(t, t.ops[f.op]));
  v["connections"] = std::to_string(s.settings.max_connections);
  // English needs the noun's number ("1 connection"); the Chinese text counts with 个.
  v["connections_en"] = v["connections"] + (s.settings.max_connections == 1 ? " connection" : " connections");
  // The streams that share the device's hardware queues: those of the op's own device.
  int device = s.ops[f.op].stream >= 0 ? s.streams[s.ops[f.op].stream].device : 0;
  v["nstreams"] = std::to_string(std::count_if(s.streams.begin(), s.streams.end(),
                                               [&](const StreamDesc& d) { return d.device == device; }));
  std::string text = Fill(key, v);
  if (f.cause == Cause::kHardwareQueue && !s.settings.known) text += " " + Fill("delay.connections_assumed", v);
  if (f.estimated) text += " " + Fill("sms_estimated", v);
  if (!f.also.empty()) text += " " + Fill("delay.also", {{"list", AlsoList(s, f)}});
  return text;
}

// The other causes that held an op, each cause and op once with how many times it came
// (an optimizer's 64 launches on one stream are one entry), the first few and a count.
std::string FindingTexts::AlsoList(const Scenario& s, const Finding& f) const {
  constexpr size_t kShown = 4;
  std::vector<std::pair<std::string, int>> entries;
  for (size_t i = 0; i < f.also.size(); ++i) {
    std::string entry = Get(std::string("cause.") + ToString(f.also_causes[i])) + ": " + DisplayName(s, f.also[i]);
    auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == entry; });
    if (same != entries.end()) ++same->second;
    else entries.push_back({entry, 1});
  }
  std::string list;
  for (size_t i = 0; i < entries.size() && i < kShown; ++i) {
    list += (i ? "; " : "") + entries[i].first;
    if (entries[i].second > 1) list += " " + Fill("times", {{"n", std::to_string(entries[i].second)}});
  }
  if (entries.size() > kShown) list += "; " + Fill("and_more", {{"n", std::to_string(entries.size() - kShown)}});
  return list;
}

std::string FindingTexts::RenderHostBlock(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  const Op& op = s.ops[f.op];
  std::string key = "host.other";
  switch (op.kind) {
    case OpKind::kSyncDevice: key = "host.sync_device"; break;
    case OpKind::kSyncStream: key = "host.sync_stream"; break;
    case OpKind::kSyncEvent: key = "host.sync_event"; break;
    case OpKind::kFree: key = "host.free"; break;
    case OpKind::kMallocHost: key = "host.malloc_host"; break;
    case OpKind::kMalloc: key = "host.malloc"; break;
    case OpKind::kMemcpy: key = Pageable(s, op) ? "host.memcpy_pageable" : "host.memcpy_sync"; break;
    case OpKind::kKernel:
      key = f.cause == Cause::kHostLate ? "host.kernel_lazy"
            : s.settings.launch_blocking ? "host.kernel_blocking" : "host.other";
      break;
    default: break;
  }
  if (f.because.empty() && key != "host.malloc" && key != "host.memcpy_pageable" &&
      key != "host.kernel_lazy")
    key = "host.other";
  // A recorded launch CUDA loaded a module in, with nothing running to wait for.
  if (key == "host.kernel_lazy" && f.because.empty()) key = "host.kernel_lazy_idle";
  // The first call that needed a context paid for creating it: say so, not that the call was slow.
  bool inferred = false;
  if (s.recorded && ContextCreationCall(t, &inferred) == f.op) key = inferred ? "host.context_inferred" : "host.context";
  v["blocked"] = FormatDuration(f.amount);
  std::vector<int> waited = f.because;
  waited.insert(waited.end(), f.also.begin(), f.also.end());
  v["list"] = NameList(s, waited, Get("more"));
  return Fill(key, v);
}

std::string FindingTexts::RenderWaitNothing(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  const Op& op = s.ops[f.op];
  if (op.kind == OpKind::kWaitStream) {
    v["via_stream"] = s.streams[op.other_stream].name;
    return Fill("wait_nothing.stream", v);
  }
  v["event"] = s.events[op.event].name;
  v["producer_stream"] = f.marker >= 0 ? StreamName(s, f.marker) : "-";
  if (WaitsRecordIsUnknown(t, f)) return Fill("wait_nothing.unknown", v);
  return Fill(f.marker < 0 ? "wait_nothing.event_never" : "wait_nothing.event", v);
}

std::string FindingTexts::RenderDataRace(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  const Op& a = s.ops[f.op];
  const Op& b = s.ops[f.other];
  // f.marker is the memory; name the buffers the two ops used (one may reuse the other's).
  auto touched = [&](const std::vector<int>& list) {
    for (int buffer : list)
      if (StorageOf(s, buffer) == f.marker) return buffer;
    return -1;
  };
  auto writes = [&](const Op& o) { return touched(BuffersWritten(o)) >= 0; };
  auto used = [&](const Op& o) {
    int w = touched(BuffersWritten(o));
    return w >= 0 ? w : touched(BuffersRead(o));
  };
  int ba = used(a), bb = used(b);
  v["buffer"] = s.buffers[ba].name;
  if (bb != ba) v["buffer"] += " / " + s.buffers[bb].name;
  v["op_access"] = Get(writes(a) ? "access.write" : "access.read");
  v["other_access"] = Get(writes(b) ? "access.write" : "access.read");
  std::string text = Fill("race", v);
  if (f.fraction > 0) text += " " + Fill("race.overlapped", v);
  return text;
}

std::string FindingTexts::RenderAddressRace(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  // How each op used the address: its strongest use (a copy may be handed it twice).
  auto use = [&](const Op& o) {
    AddressUse strongest = AddressUse::kArgument;
    bool any_known = false;
    bool handed = std::any_of(o.addresses.begin(), o.addresses.end(),
                              [&](const AddressPassed& a) { return a.at == f.address; });
    if (!handed) {
      // A copy or memset whose bytes cover the address (RacesInsideCopies).
      for (const AddressPassed& a : o.addresses)
        if (a.at < f.address && f.address < a.at + o.bytes)
          return Fill(a.use == AddressUse::kWrite ? "address_race.write_range" : "address_race.read_range",
                      {{"start", FormatAddress(a.at)}, {"bytes", FormatBytes(o.bytes)}});
    }
    std::vector<bool> library_writes = KnownKernelWrites(o);
    for (size_t k = 0; k < o.addresses.size(); ++k)
      if (o.addresses[k].at == f.address && library_writes[k]) return Get("address_race.kernel_write");
    for (const AddressPassed& a : o.addresses) {
      if (a.at != f.address) continue;
      if (a.use == AddressUse::kWrite) strongest = AddressUse::kWrite;
      else if (a.use == AddressUse::kRead && strongest != AddressUse::kWrite) strongest = AddressUse::kRead;
      any_known = any_known || a.use != AddressUse::kArgument;
    }
    return Get(std::string("address_race.") + ToString(any_known ? strongest : AddressUse::kArgument));
  };
  v["address"] = FormatAddress(f.address);
  v["op_access"] = use(s.ops[f.op]);
  v["other_access"] = use(s.ops[f.other]);
  // Two nodes of one graph replay: only an edge in the graph orders them, not the streams.
  int launch = s.ops[f.op].graph;
  bool one_graph = launch >= 0 && launch == s.ops[f.other].graph;
  if (one_graph) {
    const Op& l = s.ops[launch];
    v["launch"] = l.name;
    int on = l.other_stream >= 0 ? l.other_stream : l.stream;  // a recorded launch keeps its stream apart
    v["launch_stream"] = on >= 0 ? s.streams[on].name : "?";
  }
  std::string advice = f.severity == Severity::kWarning ? "writes" : "unknown";
  std::string text = Fill("address_race", v) + " " + Fill((one_graph ? "address_race.graph." : "address_race.") + advice, v);
  if (f.fraction > 0) {
    text += " " + Fill("race.overlapped", v);
  } else {
    // Which one ran first is what the race decided this time.
    bool other_first = t.ops[f.other].start < t.ops[f.op].start;
    text += " " + Fill("address_race.order", {{"first", other_first ? v["other"] : v["op"]},
                                               {"first_stream", other_first ? v["other_stream"] : v["stream"]}});
  }
  return text;
}

std::string FindingTexts::RenderGpuIdle(const Trace& t, const Finding& f, Vars& v) const {
  const Scenario& s = t.scenario;
  v["count"] = std::to_string(f.count);
  v["gaps"] = Fill(f.count == 1 ? "idle.gap" : "idle.gaps", {{"n", std::to_string(f.count)}});
  v["each"] = FormatDuration(f.each);
  v["op_time"] = FormatDuration(f.op_time);
  // Each example: the call (or op) behind the gap, or the op it came before, with the
  // length of the gap.
  std::string list;
  for (size_t i = 0; i < f.because.size(); ++i) {
    bool before = !IsStreamOp(s.ops[f.because[i]]) ? false : f.idle == IdleCause::kHostWork || f.idle == IdleCause::kLaunchBound ||
                                                                 f.idle == IdleCause::kTurnaround || f.idle == IdleCause::kUnknown;
    list += (i ? ", " : "") + Fill(before ? "idle.example_before" : "idle.example",
                                   {{"name", DisplayName(s, f.because[i])},
                                    {"idle", i < f.gap_lengths.size() ? FormatDuration(f.gap_lengths[i]) : "-"}});
  }
  v["list"] = list.empty() ? "-" : list;
  if (f.idle == IdleCause::kLaunchBound && f.next_to_graphs > 0) {
    v["n_graph"] = std::to_string(f.next_to_graphs);
    return Fill("idle.launch_bound.graphs", v);
  }
  return Fill(std::string("idle.") + ToString(f.idle), v);
}

std::string FindingTexts::RenderBody(const Trace& t, const Finding& f) const {
  const Scenario& s = t.scenario;
  const std::string more = Get("more");
  Vars v{
      {"op", Name(s, f.op)},
      {"stream", StreamName(s, f.op)},
      {"amount", FormatDuration(f.amount)},
      {"via", f.because.empty() ? "-" : Name(s, f.because.front())},
      {"via_stream", f.because.empty() ? "-" : StreamName(s, f.because.front())},
      {"list", NameList(s, f.because, more)},
      {"other", Name(s, f.other)},
      {"other_stream", StreamName(s, f.other)},
      {"fraction", FormatPercent(f.fraction)},
      {"n", std::to_string(f.because.size() + f.also.size())},
  };
  if (f.op >= 0) v["delay"] = FormatDuration(t.ops[f.op].start - t.ops[f.op].submit);
  switch (f.kind) {
    case FindingKind::kStartDelay:
      return RenderStartDelay(t, f, v);
    case FindingKind::kHostBlock:
      return RenderHostBlock(t, f, v);
    case FindingKind::kScopeTooWide:
      v["saved"] = FormatDuration(f.amount);
      v["stream"] = StreamName(s, f.because.front());
      v["last"] = Name(s, f.other);
      v["last_stream"] = StreamName(s, f.other);
      v["op"] = Name(s, f.op);
      return Fill("scope.too_wide", v);
    case FindingKind::kOverlap:
      return Fill("overlap", v);
    case FindingKind::kWaitCapturedNothing:
      return RenderWaitNothing(t, f, v);
    case FindingKind::kDataRace:
      return RenderDataRace(t, f, v);
    case FindingKind::kAddressRace:
      return RenderAddressRace(t, f, v);
    case FindingKind::kPageableAsyncCopy:
      v["blocked"] = FormatDuration(f.amount);
      return Fill("pageable", v);
    case FindingKind::kLegacyNextToBlocking:
      v["before"] = NameList(s, f.because, more);
      v["after"] = NameList(s, f.also, more);
      v["n_before"] = std::to_string(f.because.size());
      v["n_after"] = std::to_string(f.also.size());
      return Fill("legacy", v);
    case FindingKind::kGpuIdle:
      return RenderGpuIdle(t, f, v);
    case FindingKind::kMallocMidRun:
      v["blocked"] = FormatDuration(f.amount);
      v["n"] = std::to_string(f.count);
      return Fill("malloc_mid_run", v);
    case FindingKind::kHiddenSync:
      v["blocked"] = FormatDuration(f.amount);
      v["bytes"] = FormatBytes(s.ops[f.op].bytes);
      return Fill("hidden_sync", v);
    case FindingKind::kCollectiveWait:
      return Fill(f.because.empty() ? "collective_wait" : f.marker >= 0 ? "collective_wait.waiting" : "collective_wait.busy", v);
    case FindingKind::kWrongResult: {
      const BufferCheck& c = t.checks[f.marker];
      v["buffer"] = c.buffer;
      v["expected"] = c.expected;
      v["actual"] = c.actual;
      return Fill("wrong_result", v);
    }
  }
  return "";
}

std::string FindingTexts::RenderSummarised(const Trace& t) const {
  return Fill("summarised", {{"n", std::to_string(t.ops.size())}, {"max", std::to_string(Analysis::kMaxExplainedOps)}});
}

std::string FindingTexts::RenderFigures(const Trace& t, const Figures& fig) const {
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.2fx", fig.speedup);
  // The host's own stretches join the path where they are a tenth of the run or more: then
  // the host, not a GPU dependency, set the pace (a launch-bound or host-bound program).
  std::map<int, const Figures::HostStretch*> stretch_before;
  for (const Figures::HostStretch& h : fig.critical_host)
    if (fig.critical_span > 0 && h.length * 10 >= fig.critical_span) stretch_before[h.before] = &h;
  std::vector<Lane> lanes = stretch_before.empty() ? std::vector<Lane>{} : LanesOf(t.scenario);
  auto stretch_text = [&](int op) -> std::string {
    auto h = stretch_before.find(op);
    if (h == stretch_before.end()) return "";
    auto lane = [&](int thread) { return thread >= 0 && thread < static_cast<int>(lanes.size()) ? lanes[thread].name : "host"; };
    // After another thread's sync the link is inferred: the trace does not say that one
    // thread's call made another submit (autograd's thread after the main thread's).
    bool other = h->second->from_thread >= 0 && h->second->from_thread != h->second->thread;
    std::string place;
    if (!h->second->place.empty())
      place = Fill("critical_path.place",
                   {{"share", FormatPercent(static_cast<double>(h->second->place_time) / static_cast<double>(h->second->length))},
                    {"place", SiteWords(h->second->place, "site.at_place", "site.in_only_place")}});
    else if (!h->second->came_back.empty())  // no range says: where it came back to CUDA
      place = Fill("critical_path.came_back",
                   {{"share", FormatPercent(static_cast<double>(h->second->came_back_time) / static_cast<double>(h->second->length))},
                    {"place", SiteWords(h->second->came_back, "site.at_place", "site.in_only_place")}});
    return Fill(other ? "critical_path.host_other" : "critical_path.host",
                {{"thread", lane(h->second->thread)},
                 {"from", lane(h->second->from_thread)},
                 {"time", FormatDuration(h->second->length)},
                 {"share", FormatPercent(static_cast<double>(h->second->length) /
                                         static_cast<double>(fig.critical_span))},
                 {"place", place}});
  };
  // A long path (thousands of ops in a recorded program) is shown by its ends and a count:
  // one line of text must stay readable (and drawable: the GUI draws a text in one go), and
  // only the steps shown are named (the GUI renders this every frame).
  constexpr size_t kPathEnds = 6;
  const std::vector<int>& ops = fig.critical_path;
  const size_t total = ops.size() + stretch_before.size();
  const bool cut = total > 2 * kPathEnds + 1;
  std::vector<std::string> front, back;
  size_t ops_shown = 0;  // "... N more ops ...": ops only, not the host stretches left out
  for (size_t i = 0; i < ops.size() && (!cut || front.size() < kPathEnds); ++i) {
    if (std::string h = stretch_text(ops[i]); !h.empty()) front.push_back(h);
    if (!cut || front.size() < kPathEnds) front.push_back(DisplayName(t.scenario, ops[i])), ++ops_shown;
  }
  for (size_t i = ops.size(); cut && i-- > 0 && back.size() < kPathEnds;) {
    back.push_back(DisplayName(t.scenario, ops[i])), ++ops_shown;
    if (std::string h = stretch_text(ops[i]); !h.empty() && back.size() < kPathEnds) back.push_back(h);
  }
  std::reverse(back.begin(), back.end());
  if (cut) front.push_back(Fill("critical_path.more", {{"n", std::to_string(ops.size() - std::min(ops.size(), ops_shown))}}));
  front.insert(front.end(), back.begin(), back.end());
  std::string path;
  for (size_t i = 0; i < front.size(); ++i) path += (i ? " -> " : "") + front[i];
  std::string busy = fig.makespan > 0 ? FormatPercent(static_cast<double>(fig.gpu_busy) /
                                                      static_cast<double>(fig.makespan))
                                      : "-";
  // Below 1x the GPU idled more than its streams overlapped (a recorded program waiting on
  // its host): a "speed-up" under 1 would read as if concurrency had slowed it down.
  const char* key = fig.speedup < 1.0 ? "figures.mostly_idle" : "figures";
  return Fill(key, {{"makespan", FormatDuration(fig.makespan)},
                          {"serial", FormatDuration(fig.serial)},
                          {"speedup", speedup},
                          {"busy", busy},
                          {"host_blocked", FormatDuration(fig.host_blocked)}}) +
         "\n" + RenderIdle(fig) + "\n" + Fill("critical_path", {{"path", path.empty() ? "-" : path}});
}

std::string FindingTexts::RenderIdle(const Figures& fig) const {
  if (fig.device_time <= 0) return Fill("idle.none", {});
  auto share = [&](TimeNs part) {
    return FormatPercent(static_cast<double>(part) / static_cast<double>(fig.device_time));
  };
  if (fig.gpu_idle <= 0) return Fill("idle.none", {});
  std::vector<int> causes;
  // Causes under 0.5 % of the time are left to the findings (the line would say "0%").
  for (int c = 0; c < kIdleCauseCount; ++c)
    if (static_cast<double>(fig.idle_by_cause[c]) * 200 >= static_cast<double>(fig.device_time)) causes.push_back(c);
  std::stable_sort(causes.begin(), causes.end(), [&](int a, int b) { return fig.idle_by_cause[a] > fig.idle_by_cause[b]; });
  std::string split;
  for (int c : causes)
    split += (split.empty() ? "" : ", ") +
             Fill(std::string("idle.part.") + ToString(static_cast<IdleCause>(c)),
                  {{"share", share(fig.idle_by_cause[c])}, {"each", FormatDuration(fig.launch_interval)}});
  if (split.empty()) split = Fill("idle.part.small", {});
  // Idle, but less than rounds to 1 %: "0%: many short gaps" would contradict itself.
  bool tiny = static_cast<double>(fig.gpu_idle) * 200 < static_cast<double>(fig.device_time);
  return Fill("idle.summary", {{"share", tiny ? Fill("idle.share_tiny", {}) : share(fig.gpu_idle)}, {"split", split}});
}

}  // namespace streamlab
