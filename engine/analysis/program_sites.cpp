// Where in the program a host call was made (program_sites.h): the ranges around the call on its
// thread, found through a per-thread index of ranges by begin with each range's parent, so a
// lookup is a binary search and a walk up the nesting.
#include "engine/analysis/program_sites.h"

#include <algorithm>
#include <cctype>
#include <string_view>

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

bool ParseSourceFrame(const std::string& name, SourceFrame* out) {
  size_t close = name.find("): ");
  if (close == std::string::npos) return false;
  size_t open = name.rfind('(', close);
  if (open == std::string::npos || open == 0 || open + 1 == close || close - open > 10) return false;
  int line = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    line = line * 10 + (name[i] - '0');
  }
  if (out) *out = {name.substr(0, open), line, name.substr(close + 3)};
  return true;
}

bool IsPythonRange(const std::string& name) {
  return StartsWith(name, "<built-in ") || StartsWith(name, "nn.Module: ") || ParseSourceFrame(name, nullptr);
}

bool IsLibraryFrame(const SourceFrame& frame) { return LibraryPath(frame.file); }

RangeIndex::RangeIndex(const Trace& trace) {
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

std::vector<const HostRange*> RangeIndex::Enclosing(int thread, TimeNs at) const {
  std::vector<const HostRange*> out;
  auto found = threads_.find(thread);
  if (found == threads_.end()) return out;
  const Thread& th = found->second;
  // The last range begun by `at`; every range around `at` is it or one it is nested in.
  auto after = std::upper_bound(th.by_begin.begin(), th.by_begin.end(), at,
                                [](TimeNs t, const HostRange* r) { return t < r->begin; });
  for (int j = static_cast<int>(after - th.by_begin.begin()) - 1; j >= 0; j = th.parent[static_cast<size_t>(j)])
    if (th.by_begin[static_cast<size_t>(j)]->begin <= at && at < th.by_begin[static_cast<size_t>(j)]->end)
      out.push_back(th.by_begin[static_cast<size_t>(j)]);
  return out;
}

ProgramSite SiteOf(const RangeIndex& index, int thread, TimeNs at) {
  ProgramSite site;
  std::vector<std::string> inside;  // innermost first
  for (const HostRange* r : index.Enclosing(thread, at)) {
    if (!IsPythonRange(r->name)) {
      if (site.file.empty()) inside.push_back(r->name);
      continue;
    }
    SourceFrame frame;
    if (!ParseSourceFrame(r->name, &frame) || IsLibraryFrame(frame)) continue;
    if (site.file.empty()) {
      site.file = frame.file, site.line = frame.line, site.function = frame.function;
      continue;
    }
    site.caller_file = frame.file, site.caller_line = frame.line, site.caller_function = frame.function;
    break;
  }
  site.ranges.assign(inside.rbegin(), inside.rend());
  return site;
}

void AttachProgramSites(const Trace& trace, std::vector<Finding>& findings) {
  if (trace.ranges.empty()) return;
  RangeIndex index(trace);
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
