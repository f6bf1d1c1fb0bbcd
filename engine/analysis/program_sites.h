// Where in the program a host call was made, from the ranges a trace holds around it on its
// thread: Python frames (a torch.profiler trace taken with with_stack=True), PyTorch ops and
// the program's own NVTX or record_function ranges. Nothing is guessed: a trace without such
// ranges gives no site, and the findings then say nothing about it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/trace/trace.h"

namespace streamlab {

// One frame of the program's Python, as torch.profiler names it ("file.py(42): step", with the
// line where it first saw the frame) or as a recording does ("file.py:42 in step", with the
// line the call was made on: exact_line).
struct SourceFrame {
  std::string file;
  int line = 0;
  std::string function;
  bool exact_line = false;
};

// A Python frame's range name parsed, or false for any other range (an op, an NVTX range).
bool ParseSourceFrame(const std::string& range_name, SourceFrame* out);
// A Python frame's range of any kind: a frame of a file, a built-in, an nn.Module.
bool IsPythonRange(const std::string& range_name);
// A frame of a library (torch, its relatives, Python's own modules), not the program's code.
bool IsLibraryFrame(const SourceFrame& frame);

// Places in PyTorch whose cost has a known remedy, which the findings then name.
// GradScaler.step reading back whether a gradient overflowed (_maybe_opt_step's .item()).
bool IsGradScalerOverflowRead(const ProgramSite& site);
// A read of how many elements a result will hold, which depends on the data (torch.nonzero and
// boolean-mask indexing, masked_select, unique, repeat_interleave): the ops around the call say.
bool IsDataDependentShapeRead(const ProgramSite& site);
// Getting a DataLoader's next batch (its __next__, its record_function range, or a Dataset's
// __getitem__ that it called).
bool IsDataLoaderPlace(const ProgramSite& site);

// The ranges of a trace, per thread, for finding those around a time.
class RangeIndex {
 public:
  explicit RangeIndex(const Trace& trace);
  // The ranges on `thread` that enclose `at`, innermost first (at most the kMaxNesting
  // innermost levels).
  std::vector<const HostRange*> Enclosing(int thread, TimeNs at) const;
  static constexpr size_t kMaxNesting = 1024;
  // `from`, `to` and the begins and ends of `thread`'s ranges between them, sorted; empty when
  // more than `limit` ranges begin between them.
  std::vector<TimeNs> Boundaries(int thread, TimeNs from, TimeNs to, size_t limit) const;
  // The other threads of `thread`'s process that hold ranges (a recording's threads are of one
  // process each; a trace without processes counts as one).
  std::vector<int> ThreadsBeside(int thread) const;

 private:
  struct Thread {
    std::vector<const HostRange*> by_begin;  // by begin, longer first at one begin
    std::vector<int> parent;                 // the innermost range around each, or -1
  };
  std::map<int, Thread> threads_;  // by thread: a trace file may name any thread number
  std::vector<int> thread_process_;  // the scenario's: a thread with no range has a process too
};

// Sums the time a thread spent at each place over stretches of its time (a place: the
// program's frame and the library call it made, coarse enough that a stretch of Python adds up).
class PlaceTally {
 public:
  explicit PlaceTally(const RangeIndex& index) : index_(index) {}
  void Add(int thread, TimeNs from, TimeNs to);
  // The places with at least `min_share` of the time, largest first, at most `most`.
  std::vector<HostPlace> Largest(double min_share, size_t most) const;
  TimeNs total() const { return total_; }
  TimeNs known() const { return known_; }

 private:
  const RangeIndex& index_;
  std::map<std::string, size_t> by_key_;
  std::vector<HostPlace> places_;
  std::vector<std::map<int, TimeNs>> by_line_;  // each place's time by its program frame's line
  TimeNs total_ = 0;
  TimeNs known_ = 0;
};

// The site of a call made at `at` on `thread`. A call on a thread with no Python frame of the
// program, made while exactly one other thread of its process waited inside PyTorch's backward
// (torch.autograd's _engine_run_backward), was made by autograd's own thread for that backward:
// its site is that call's (`by_autograd`), as the engine runs the backward of CUDA tensors on a
// thread of its own while the caller waits.
ProgramSite SiteOf(const RangeIndex& index, int thread, TimeNs at);

// The places the host was at while the GPU sat idle for `cause` (host's own work, launching op
// by op) within [from, to): from each such gap's start to the submission that ended it, on the
// thread that made it, as the idle findings count them. Every place with its time, largest
// first; `looked_at` gets the time looked at.
std::vector<HostPlace> IdlePlaces(const Trace& trace, const Figures& fig, const RangeIndex& index, IdleCause cause,
                                  TimeNs from, TimeNs to, TimeNs* looked_at);
// A place's identity, to find it again in another trace of the program.
std::string PlaceKey(const ProgramSite& place);

// Gives each finding about a host call its site (host blocks, hidden syncs, pageable copies,
// allocations mid-run, too-wide syncs); the finding about GPU time idle for the host's own
// work, the places the host was at in those gaps (fig.idle_gaps); and the host's stretches on
// the critical path, the place each was at most.
void AttachProgramSites(const Trace& trace, Figures& fig, std::vector<Finding>& findings);

}  // namespace streamlab
