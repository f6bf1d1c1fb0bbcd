// Times for records and waits, which have no GPU timestamp of their own: those inside a lab's
// CUDA graph, and those of a recorded program. A replayed lab graph has no timing events of
// its own (its kernels' edges come from their block records), so each marker is placed where
// the graph's own order puts it: a record when the work before it on its stream has ended, a
// wait when both that and the recorded work have.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

// Fills gpu/ready/start/end of every graph-node record, wait_event and wait_stream.
void FillGraphMarkerTimes(Trace& trace);

// A recording's records and waits (streamlab-cli record, torch.profiler): a record is reached
// when the work before it on its stream has ended (a graph launch's nodes included, whichever
// stream they ran on), a wait when that and the recorded work have. `windowed`: the trace
// covers a capture range, so a record on a stream idle since the range began says so.
void PlaceRecordedMarkers(Trace& trace, bool windowed);

}  // namespace streamlab
