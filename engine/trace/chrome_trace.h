// Chrome-trace JSON export (opens in Perfetto and chrome://tracing): one process for the
// host and one per device, one thread per stream, queued time as its own slice, and flow
// arrows from each event record (or wait_stream source) to the wait it released.
#pragma once

#include "engine/util/json_reader.h"
#include "engine/trace/trace.h"

namespace streamlab {

Json ChromeTraceJson(const Trace& trace);

}  // namespace streamlab
