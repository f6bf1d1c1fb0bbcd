// Looking up ops in a trace by name, and the measures that lab expectations are made of.
#pragma once

#include <string>

#include "engine/trace/trace.h"

namespace streamlab {

// The record of the op with this name; throws RunError if there is none.
const OpRecord& OpNamed(const Trace& trace, const std::string& name);
// Overlap of two GPU spans as a fraction of the shorter one (0 = none, 1 = full).
double OverlapFraction(const OpRecord& a, const OpRecord& b);
// The time two ops could have run together: from the host's call of the later one to the end
// of the first to end, and no more than the shorter run. A GPU cannot start an op the host has
// not launched yet, and how fast the host launches (a Python launch took 40-125 us on H200
// hosts) is not what a claim that two streams run together is about.
TimeNs CouldOverlap(const OpRecord& a, const OpRecord& b);
// From the first GPU op's start to the last GPU op's end.
TimeNs GpuMakespan(const Trace& trace);
// A run's bounds: from its first host call (or GPU op, if earlier) to the end of its last GPU
// op; only process `process`'s ops when >= 0. A run without steps is judged over these (the
// account, the replays): what the host did before the GPU's work fed it, what it did after
// (checking results, freeing, exiting) is teardown, said apart. {0, 0} without GPU work.
// `not_before` (>= 0): begin no earlier than that, nor later than the first GPU op's start
// (the end of the CUDA context's creation: CUDA's start-up, said apart).
struct RunBounds {
  TimeNs begin = 0, end = 0;
  int last_gpu = -1;   // the GPU op that ends last
  TimeNs calls_end = 0;  // the return of the last host call (teardown: from `end` to here)
  TimeNs length() const { return end - begin; }
};
RunBounds RunBoundsOf(const Trace& trace, int process = -1, TimeNs not_before = -1);
// The same of a replay, whose trace may not hold its scenario: `ops` ran `scenario`.
RunBounds RunBoundsOf(const Scenario& scenario, const std::vector<OpRecord>& ops, int process = -1, TimeNs not_before = -1);
// The share of the time from the first kernel on any GPU to the last in which GPU `device`
// runs no kernel (a pipeline's bubble); 0 without kernels.
double DeviceIdleShare(const Trace& trace, int device);
// Time the host spent inside API calls, excluding host_work, up to (not including) op
// `until` (-1 = all ops).
TimeNs HostTimeInCalls(const Trace& trace, int until = -1);
// Time between *ready* (the stream reached the op) and *start* (its first block ran), when
// that exceeds what timing events blur anyway (a few us of slack plus clock error);
// else 0. A real gap means the op waited for SMs (or a copy engine), not for ordering.
TimeNs QueuedTime(const Trace& trace, const OpRecord& record);
// Which copy engine a copy uses on its device: 0 = H2D, 1 = D2H, 2 = D2D, 3 = peer; -1 for
// anything else. Copies wait only for copies of their own direction.
int CopyDirection(const Scenario& scenario, const Op& op);
// Copies have no clock inside them: their span comes from events, and a copy's *ready*
// event fires when its stream reaches it, not when the copy engine takes it. An engine
// moves one copy at a time per direction (measured on an H200: 16 MB H2D copies on four
// streams ended 313-330 us apart), so a copy cannot have started before the previous copy
// in its direction on its device ended. Moves each copy's start to that point.
void SerialiseCopyStarts(Trace& trace);
// Time a host call took (return - submit); 0 for a node replayed from a recorded graph.
TimeNs HostCallTime(const OpRecord& record);

}  // namespace streamlab
