// Times for the records and waits inside a CUDA graph. A replayed graph has no timing
// events of its own (its kernels' edges come from their block records), so each marker
// is placed where the graph's own order puts it: a record when the work before it on its
// stream has ended, a wait when both that and the recorded work have.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

// Fills gpu/ready/start/end of every graph-node record, wait_event and wait_stream.
void FillGraphMarkerTimes(Trace& trace);

}  // namespace streamlab
