// Where a host thread came back to CUDA (resumed_places.h): a thread's calls sorted by
// submission, so the call that ended a moment's stretch is a binary search away.
#include "engine/analysis/resumed_places.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace streamlab {

namespace {

// A call's line in the program, when the trace has its Python stack: a recording's stack gives
// the program's frame the call's own line; torch.profiler's frames do not (no exact line).
ProgramSite LineOf(const Trace& trace, const RangeIndex& index, int call) {
  ProgramSite site = SiteOf(index, trace.scenario.ops[call].thread, trace.ops[call].submit);
  if (site.file.empty() || !site.exact_line) return {};
  return site;
}

}  // namespace

namespace {

// Sums the stretches of one thread's time outside CUDA by the line each came back at.
class ResumedTally {
 public:
  ResumedTally(const Trace& trace, const ThreadCalls& calls, const RangeIndex& index)
      : trace_(trace), calls_(calls), index_(index) {}

  // `thread`'s time within [begin, end), split at its calls: each stretch from the end of a
  // call (or `begin`) to the next call's submission goes to that call's line, if it has one.
  void Add(int thread, TimeNs begin, TimeNs end) {
    if (end <= begin) return;
    const std::vector<int>& ops = calls_.Of(thread);
    size_t i = calls_.FirstAfter(thread, begin);
    // From the end of a call the window began in (the host was in CUDA until then).
    TimeNs since = i > 0 ? std::max(begin, trace_.ops[ops[i - 1]].ret) : begin;
    for (; i < ops.size() && trace_.ops[ops[i]].submit <= end; ++i) {
      const OpRecord& r = trace_.ops[ops[i]];
      TimeNs stretch = r.submit - since;
      since = std::max(since, r.ret);
      if (stretch <= 0) continue;
      ProgramSite site = LineOf(trace_, index_, ops[i]);
      if (site.empty()) continue;
      auto [it, fresh] = by_key_.emplace(PlaceKey(site) + '\n' + std::to_string(site.line), places_.size());
      if (fresh) places_.push_back({site, 0});
      places_[it->second].time += stretch;
    }
  }

  std::vector<HostPlace> Largest() && {
    std::stable_sort(places_.begin(), places_.end(), [](const HostPlace& a, const HostPlace& b) { return a.time > b.time; });
    return std::move(places_);
  }

 private:
  const Trace& trace_;
  const ThreadCalls& calls_;
  const RangeIndex& index_;
  std::map<std::string, size_t> by_key_;
  std::vector<HostPlace> places_;
};

}  // namespace

std::vector<HostPlace> ResumedPlaces(const Trace& trace, const Figures& fig, const RangeIndex& index, IdleCause cause,
                                     TimeNs from, TimeNs to) {
  ThreadCalls calls(trace);
  ResumedTally tally(trace, calls, index);
  for (const IdleGap& g : fig.idle_gaps) {
    if (g.cause != cause || g.next < 0 || g.next >= static_cast<int>(trace.ops.size())) continue;
    tally.Add(trace.scenario.ops[g.next].thread, std::max(g.from, from), std::min({g.to, trace.ops[g.next].submit, to}));
  }
  return std::move(tally).Largest();
}

std::vector<HostPlace> ResumedPlacesOf(const Trace& trace, const ThreadCalls& calls, const RangeIndex& index, int thread,
                                       TimeNs from, TimeNs to) {
  ResumedTally tally(trace, calls, index);
  tally.Add(thread, from, to);
  return std::move(tally).Largest();
}

Resumption ResumedAt(const Trace& trace, const ThreadCalls& calls, const RangeIndex& index, int thread, TimeNs at) {
  Resumption r;
  const std::vector<int>& ops = calls.Of(thread);
  size_t i = calls.FirstAfter(thread, at);
  if (i > 0 && trace.ops[ops[i - 1]].ret > at) return r;  // inside a call: not the host's own work
  r.from = i > 0 ? trace.ops[ops[i - 1]].ret : at;
  if (i == ops.size()) return r;
  r.call = ops[i];
  r.to = trace.ops[r.call].submit;
  r.site = LineOf(trace, index, r.call);
  return r;
}

}  // namespace streamlab
