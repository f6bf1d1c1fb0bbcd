// Where in the program a host call was made (program_sites.h): the ranges around the call on its
// thread, found through a per-thread index of ranges by begin with each range's parent, so a
// lookup is a binary search and a walk up the nesting.
#include "engine/analysis/program_sites.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "engine/analysis/resumed_places.h"

namespace streamlab {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// torch.profiler names a library's frames by their path under site-packages (torch/nn/...) and
// Python's own modules by their path under the standard library (typing.py, contextlib.py).
bool LibraryPath(std::string_view file) {
  static constexpr std::string_view kRoots[] = {
      "torch/", "torchvision/", "torchaudio/", "triton/", "functorch/", "numpy/", "transformers/",
      "accelerate/", "apex/", "<", "collections/", "asyncio/", "concurrent/", "multiprocessing/",
      "importlib/", "json/", "logging/", "re/", "unittest/", "contextlib.py", "typing.py",
      "functools.py", "threading.py", "abc.py", "enum.py", "weakref.py", "warnings.py",
      "dataclasses.py", "inspect.py", "copy.py", "queue.py", "selectors.py", "runpy.py", "os.py",
      "posixpath.py", "genericpath.py", "random.py", "pickle.py", "tempfile.py", "timeit.py"};
  for (std::string_view root : kRoots)
    if (StartsWith(file, root)) return true;
  for (std::string_view part : {"site-packages/", "dist-packages/", "/lib/python"})
    if (file.find(part) != std::string_view::npos) return true;
  return false;
}

}  // namespace

namespace {

// "file.py:42 in step" (python_traceback.h's RecordedFrameName): a function's name has no space.
bool ParseRecordedFrame(const std::string& name, SourceFrame* out) {
  size_t in = name.rfind(" in ");
  if (in == std::string::npos || in + 4 >= name.size() || name.find(' ', in + 4) != std::string::npos) return false;
  size_t colon = name.rfind(':', in);
  if (colon == std::string::npos || colon == 0 || colon + 1 == in || in - colon > 10) return false;
  int line = 0;
  for (size_t i = colon + 1; i < in; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    line = line * 10 + (name[i] - '0');
  }
  if (out) *out = {name.substr(0, colon), line, name.substr(in + 4), true};
  return true;
}

}  // namespace

bool ParseSourceFrame(const std::string& name, SourceFrame* out) {
  size_t close = name.find("): ");
  if (close == std::string::npos) return ParseRecordedFrame(name, out);
  size_t open = name.rfind('(', close);
  if (open == std::string::npos || open == 0 || open + 1 == close || close - open > 10) return false;
  int line = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    line = line * 10 + (name[i] - '0');
  }
  if (out) *out = {name.substr(0, open), line, name.substr(close + 3), false};
  return true;
}

bool IsPythonRange(const std::string& name) {
  return StartsWith(name, "<built-in ") || StartsWith(name, "nn.Module: ") || ParseSourceFrame(name, nullptr);
}

bool IsLibraryFrame(const SourceFrame& frame) { return LibraryPath(frame.file); }

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

// torch.amp.GradScaler (torch/amp/grad_scaler.py; torch/cuda/amp/ before torch 2.3).
bool IsGradScalerOverflowRead(const ProgramSite& site) {
  bool in_scaler = EndsWith(site.via_file, "amp/grad_scaler.py") || EndsWith(site.inner_file, "amp/grad_scaler.py");
  return in_scaler && (site.inner_function == "_maybe_opt_step" || site.via_function == "_maybe_opt_step");
}

// The ops that size their result by a count read from the GPU (torch 2.11 on an H100: each
// makes a cudaMemcpyAsync of the count and a cudaStreamSynchronize). x[mask], masked_select and
// the one-argument torch.where reach aten::nonzero.
bool IsDataDependentShapeRead(const ProgramSite& site) {
  static constexpr std::string_view kOps[] = {"aten::nonzero", "aten::_unique2", "aten::unique_dim",
                                              "aten::unique_consecutive", "aten::unique_dim_consecutive",
                                              "aten::repeat_interleave"};
  for (const std::string& r : site.ranges)
    for (std::string_view op : kOps)
      if (r == op) return true;
  return false;
}

bool IsDataLoaderPlace(const ProgramSite& site) {
  constexpr std::string_view kLoader = "torch/utils/data/";
  auto in_loader = [&](const std::string& file) { return file.find(kLoader) != std::string::npos; };
  if (in_loader(site.via_file) || in_loader(site.caller_via_file)) return true;
  return std::any_of(site.ranges.begin(), site.ranges.end(),
                     [](const std::string& r) { return StartsWith(r, "enumerate(DataLoader)#"); });
}

RangeIndex::RangeIndex(const Trace& trace) : thread_process_(trace.scenario.thread_process) {
  for (const HostRange& r : trace.ranges) threads_[r.thread].by_begin.push_back(&r);
  for (auto& [thread, th] : threads_) {
    std::stable_sort(th.by_begin.begin(), th.by_begin.end(), [](const HostRange* a, const HostRange* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;
    });
    th.parent.assign(th.by_begin.size(), -1);
    std::vector<int> open;  // ranges still open at the current begin, outermost first
    for (size_t i = 0; i < th.by_begin.size(); ++i) {
      const HostRange* r = th.by_begin[i];
      while (!open.empty() && th.by_begin[open.back()]->end <= r->begin && th.by_begin[open.back()]->begin < r->begin)
        open.pop_back();
      th.parent[i] = open.empty() ? -1 : open.back();
      open.push_back(static_cast<int>(i));
    }
  }
}

std::vector<int> RangeIndex::ThreadsBeside(int thread) const {
  auto process = [&](int t) { return t >= 0 && t < static_cast<int>(thread_process_.size()) ? thread_process_[t] : 0; };
  std::vector<int> out;
  for (const auto& [other, th] : threads_)
    if (other != thread && process(other) == process(thread)) out.push_back(other);
  return out;
}

std::vector<const HostRange*> RangeIndex::Enclosing(int thread, TimeNs at) const {
  std::vector<const HostRange*> out;
  auto found = threads_.find(thread);
  if (found == threads_.end()) return out;
  const Thread& th = found->second;
  // The last range begun by `at`; every range around `at` is it or one it is nested in.
  auto after = std::upper_bound(th.by_begin.begin(), th.by_begin.end(), at,
                                [](TimeNs t, const HostRange* r) { return t < r->begin; });
  // A walk of at most kMaxNesting ranges: a Python stack is a few hundred frames at most, and a
  // malformed file nesting 100 000 ranges must not make every lookup walk them all.
  size_t walked = 0;
  for (int j = static_cast<int>(after - th.by_begin.begin()) - 1; j >= 0 && walked < kMaxNesting;
       j = th.parent[static_cast<size_t>(j)], ++walked)
    if (th.by_begin[static_cast<size_t>(j)]->begin <= at && at < th.by_begin[static_cast<size_t>(j)]->end)
      out.push_back(th.by_begin[static_cast<size_t>(j)]);
  return out;
}

std::vector<TimeNs> RangeIndex::Boundaries(int thread, TimeNs from, TimeNs to, size_t limit) const {
  std::vector<TimeNs> out{from, to};
  auto found = threads_.find(thread);
  if (found == threads_.end() || to <= from) return out;
  const Thread& th = found->second;
  for (const HostRange* r : Enclosing(thread, from))
    if (r->end < to) out.push_back(r->end);
  auto begun = std::upper_bound(th.by_begin.begin(), th.by_begin.end(), from,
                                [](TimeNs t, const HostRange* r) { return t < r->begin; });
  for (auto it = begun; it != th.by_begin.end() && (*it)->begin < to; ++it) {
    if (out.size() > limit) return {};
    out.push_back((*it)->begin);
    if ((*it)->end < to) out.push_back((*it)->end);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

ProgramSite SiteOnThread(const RangeIndex& index, int thread, TimeNs at);

// PyTorch's backward as the caller's stack shows it while the engine runs: torch.autograd's
// _engine_run_backward (2.x), or Variable._execution_engine.run_backward called from backward.
bool InBackward(const RangeIndex& index, int thread, TimeNs at) {
  for (const HostRange* r : index.Enclosing(thread, at)) {
    SourceFrame frame;
    if (!IsPythonRange(r->name) || !ParseSourceFrame(r->name, &frame)) continue;
    bool autograd = frame.file.find("torch/autograd/") != std::string::npos;
    if (autograd && (frame.function == "_engine_run_backward" || frame.function == "backward")) return true;
  }
  return false;
}

// The site of the backward that autograd's thread was working for at `at`: the one other thread
// of the process inside a backward then (none, or two at once: unknown).
ProgramSite BackwardCallerSite(const RangeIndex& index, int thread, TimeNs at) {
  int caller = -1;
  for (int other : index.ThreadsBeside(thread)) {
    if (!InBackward(index, other, at)) continue;
    if (caller >= 0) return {};
    caller = other;
  }
  if (caller < 0) return {};
  ProgramSite site = SiteOnThread(index, caller, at);
  if (site.file.empty()) return {};
  site.by_autograd = true;
  return site;
}

}  // namespace

ProgramSite SiteOf(const RangeIndex& index, int thread, TimeNs at) {
  ProgramSite site = SiteOnThread(index, thread, at);
  if (!site.file.empty()) return site;
  ProgramSite caller = BackwardCallerSite(index, thread, at);
  if (caller.file.empty()) return site;
  caller.ranges = site.ranges;  // the ops around the call, on its own thread
  return caller;
}

namespace {

ProgramSite SiteOnThread(const RangeIndex& index, int thread, TimeNs at) {
  ProgramSite site;
  std::vector<std::string> inside;  // innermost first
  int library_frames = 0, inner_at = 0;  // library frames seen (innermost first); the inner one's count
  for (const HostRange* r : index.Enclosing(thread, at)) {
    if (!IsPythonRange(r->name)) {
      if (site.file.empty()) inside.push_back(r->name);
      continue;
    }
    SourceFrame frame;
    if (!ParseSourceFrame(r->name, &frame)) continue;
    if (IsLibraryFrame(frame)) {
      // Library frames inside the program's own: the outermost is the call the program made;
      // the innermost with a name of its own (not a <genexpr> or <lambda>) is where it led.
      // Between the program's frame and its caller: the library that called the program back.
      if (!site.file.empty()) {
        site.caller_via_file = frame.file, site.caller_via_function = frame.function;
        continue;
      }
      ++library_frames;
      site.via_file = frame.file, site.via_function = frame.function;
      if (site.inner_file.empty() && !StartsWith(frame.function, "<"))
        site.inner_file = frame.file, site.inner_function = frame.function, inner_at = library_frames;
      continue;
    }
    if (site.file.empty()) {
      site.file = frame.file, site.line = frame.line, site.function = frame.function;
      site.exact_line = frame.exact_line;
      continue;
    }
    site.caller_file = frame.file, site.caller_line = frame.line, site.caller_function = frame.function;
    break;
  }
  // Library frames with no program frame around them (a thread of torch's own) are not a call
  // the program made; with no caller, nothing called the program back.
  if (site.file.empty()) site.via_file.clear(), site.via_function.clear();
  if (site.caller_file.empty()) site.caller_via_file.clear(), site.caller_via_function.clear();
  if (site.via_file.empty() || (site.inner_file == site.via_file && site.inner_function == site.via_function))
    site.inner_file.clear(), site.inner_function.clear();
  site.via_depth = site.inner_file.empty() ? 0 : library_frames - inner_at - 1;
  site.ranges.assign(inside.rbegin(), inside.rend());
  return site;
}

}  // namespace

namespace {

// A range around each step says nothing about where the host was, and would hold every place:
// the profiler's around each step of a schedule (ProfilerStep#12), and a program's own range
// named "step" (the examples', which `compare --per step` counts).
bool IsStepMarker(const std::string& name) {
  return StartsWith(name, "ProfilerStep#") || name == "step";
}

// The place the host was at `at`, coarse enough that a stretch of Python adds up: the
// program's frame and the library call it made; with no frame of the program around, the
// outermost range without its detail ("autograd::engine::evaluate_function" for each backward
// op's "autograd::engine::evaluate_function: AddmmBackward0").
ProgramSite PlaceOf(const RangeIndex& index, int thread, TimeNs at, int* line) {
  ProgramSite site = SiteOf(index, thread, at);
  *line = site.exact_line ? site.line : 0;  // torch.profiler's first line says nothing of where
  site.inner_file.clear(), site.inner_function.clear();
  site.via_depth = 0;
  // The caller says who called back into the program; "called from <module>" says nothing.
  site.line = site.caller_line = 0;
  site.exact_line = false;
  if (site.caller_via_file.empty() && site.caller_function == "<module>") site.caller_file.clear(), site.caller_function.clear();
  auto kept = std::find_if(site.ranges.begin(), site.ranges.end(), [](const std::string& r) { return !IsStepMarker(r); });
  std::string outermost = kept == site.ranges.end() ? "" : kept->substr(0, kept->find(": "));
  site.ranges.clear();
  if (site.file.empty() && !outermost.empty()) site.ranges.push_back(outermost);
  return site;
}

std::string KeyOf(const ProgramSite& s) {
  std::string key = s.file + '\n' + s.function + '\n' + s.caller_file + '\n' + s.caller_function + '\n' +
                    s.caller_via_file + '\n' + s.caller_via_function + '\n' + s.via_file + '\n' + s.via_function;
  for (const std::string& r : s.ranges) key += '\n' + r;
  return key;
}

}  // namespace

void PlaceTally::Add(int thread, TimeNs from, TimeNs to) {
  if (to <= from) return;
  total_ += to - from;
  // Between two boundaries of the ranges the place is one; a stretch crossing very many
  // (a Python loop's frames) is looked at in 1 024 even slices instead.
  constexpr size_t kLimit = 256, kSlices = 1024;
  std::vector<TimeNs> cuts = index_.Boundaries(thread, from, to, kLimit);
  if (cuts.empty())
    for (size_t i = 0; i <= kSlices; ++i)
      cuts.push_back(from + static_cast<TimeNs>(static_cast<double>(to - from) * static_cast<double>(i) / kSlices));
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    int line = 0;
    ProgramSite site = PlaceOf(index_, thread, cuts[i] + (cuts[i + 1] - cuts[i]) / 2, &line);
    if (site.empty()) continue;
    known_ += cuts[i + 1] - cuts[i];
    auto [it, fresh] = by_key_.emplace(KeyOf(site), places_.size());
    if (fresh) places_.push_back({site, 0}), by_line_.emplace_back();
    places_[it->second].time += cuts[i + 1] - cuts[i];
    by_line_[it->second][line] += cuts[i + 1] - cuts[i];
  }
}

std::vector<HostPlace> PlaceTally::Largest(double min_share, size_t most) const {
  std::vector<HostPlace> out;
  for (size_t k = 0; k < places_.size(); ++k) {
    if (static_cast<double>(places_[k].time) < min_share * static_cast<double>(total_)) continue;
    out.push_back(places_[k]);
    out.back().line = std::max_element(by_line_[k].begin(), by_line_[k].end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  }
  std::stable_sort(out.begin(), out.end(), [](const HostPlace& a, const HostPlace& b) { return a.time > b.time; });
  if (out.size() > most) out.resize(most);
  return out;
}

namespace {

// The GPU sat idle while the host did its own work, or launched op by op: where was the host
// thread that submitted the work that ended each gap, from the gap's start to that submission?
// (Launch-bound gaps in the optimizer and in the model's forward call for different remedies.)
void TallyIdleGaps(const Trace& trace, const Figures& fig, IdleCause cause, TimeNs from, TimeNs to, PlaceTally& tally) {
  for (const IdleGap& g : fig.idle_gaps) {
    if (g.cause != cause || g.next < 0 || g.next >= static_cast<int>(trace.ops.size())) continue;
    tally.Add(trace.scenario.ops[g.next].thread, std::max(g.from, from), std::min({g.to, trace.ops[g.next].submit, to}));
  }
}

void AttachIdlePlaces(const Trace& trace, const Figures& fig, const RangeIndex& index, std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    if (f.kind != FindingKind::kGpuIdle || (f.idle != IdleCause::kHostWork && f.idle != IdleCause::kLaunchBound)) continue;
    PlaceTally tally(index);
    TallyIdleGaps(trace, fig, f.idle, std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max(), tally);
    f.places = tally.Largest(0.1, 3);
    f.places_of = tally.total();
    f.places_known = tally.known();
    if (!f.places.empty() || f.idle != IdleCause::kHostWork) continue;
    f.resumed_at = ResumedPlaces(trace, fig, index, f.idle, std::numeric_limits<TimeNs>::min(),
                                 std::numeric_limits<TimeNs>::max());
    std::erase_if(f.resumed_at, [&](const HostPlace& p) { return p.time * 10 < f.places_of; });
    if (f.resumed_at.size() > 3) f.resumed_at.resize(3);
  }
}

// The host's stretches on the critical path that its text names: where the thread was most, or,
// where no range says, where it came back to CUDA after most of its time outside CUDA.
void AttachStretchPlaces(const Trace& trace, Figures& fig, const RangeIndex& index) {
  std::optional<ThreadCalls> calls;
  for (Figures::HostStretch& h : fig.critical_host) {
    if (fig.critical_span <= 0 || h.length * 10 < fig.critical_span) continue;
    if (h.before < 0 || h.before >= static_cast<int>(trace.ops.size())) continue;
    PlaceTally tally(index);
    TimeNs end = trace.ops[h.before].submit;
    tally.Add(h.thread, end - h.length, end);
    std::vector<HostPlace> largest = tally.Largest(0.1, 1);
    if (!largest.empty()) {
      h.place = largest.front().site;
      h.place_time = largest.front().time;
      continue;
    }
    if (!calls) calls.emplace(trace);  // built once, for the first stretch that needs it
    std::vector<HostPlace> back = ResumedPlacesOf(trace, *calls, index, h.thread, end - h.length, end);
    if (back.empty() || back.front().time * 10 < h.length) continue;
    h.came_back = back.front().site;
    h.came_back_time = back.front().time;
  }
}

}  // namespace

std::vector<HostPlace> IdlePlaces(const Trace& trace, const Figures& fig, const RangeIndex& index, IdleCause cause,
                                  TimeNs from, TimeNs to, TimeNs* looked_at) {
  PlaceTally tally(index);
  TallyIdleGaps(trace, fig, cause, from, to, tally);
  if (looked_at) *looked_at = tally.total();
  return tally.Largest(0.0, std::numeric_limits<size_t>::max());
}

std::string PlaceKey(const ProgramSite& place) { return KeyOf(place); }

void AttachProgramSites(const Trace& trace, Figures& fig, std::vector<Finding>& findings) {
  if (trace.ranges.empty()) return;
  RangeIndex index(trace);
  AttachIdlePlaces(trace, fig, index, findings);
  AttachStretchPlaces(trace, fig, index);
  for (Finding& f : findings) {
    int call = -1;
    switch (f.kind) {
      case FindingKind::kHostBlock:
      case FindingKind::kHiddenSync:
      case FindingKind::kPageableAsyncCopy:
      case FindingKind::kMallocMidRun:
      case FindingKind::kScopeTooWide: call = f.op; break;
      default: break;  // (a late submission: the finding about the call that held the host has it)
    }
    // A node replayed from a graph was not a call of its own.
    if (call < 0 || call >= static_cast<int>(trace.ops.size()) || trace.ops[call].graph_replay) continue;
    f.site = SiteOf(index, trace.scenario.ops[call].thread, trace.ops[call].submit);
  }
}

}  // namespace streamlab
