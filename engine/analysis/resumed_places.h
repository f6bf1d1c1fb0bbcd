// Where a host thread came back to CUDA after a stretch of its own work, for traces whose ranges
// do not say where the host was in between (a recording without NVTX ranges): the program's
// line at the call that ended the stretch, where the trace has the call's Python stack (a
// recording reads it at a call made after a millisecond or more outside CUDA). That line comes
// after the host's work; it is not the work itself, and callers say so.
#pragma once

#include <map>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/program_sites.h"
#include "engine/analysis/thread_calls.h"
#include "engine/trace/trace.h"

namespace streamlab {

// The host's time within [from, to) in the GPU's idle gaps for `cause`, split at the thread's
// calls, each stretch counted at the program's line of the call that ended it, where that call
// has one. Largest first.
std::vector<HostPlace> ResumedPlaces(const Trace& trace, const Figures& fig, const RangeIndex& index, IdleCause cause,
                                     TimeNs from, TimeNs to);

// The same for `thread`'s time within [from, to), idle GPU or not (a host stretch on the
// critical path).
std::vector<HostPlace> ResumedPlacesOf(const Trace& trace, const ThreadCalls& calls, const RangeIndex& index, int thread,
                                       TimeNs from, TimeNs to);

// The stretch of `thread`'s own work (outside CUDA) that holds `at`, and where it came back.
struct Resumption {
  TimeNs from = 0, to = 0;  // the previous call's return, the next call's submission
  int call = -1;            // the call that ended the stretch (-1: none yet)
  ProgramSite site;         // its line in the program (empty: the trace has no stack for it)
};
Resumption ResumedAt(const Trace& trace, const ThreadCalls& calls, const RangeIndex& index, int thread, TimeNs at);

}  // namespace streamlab
