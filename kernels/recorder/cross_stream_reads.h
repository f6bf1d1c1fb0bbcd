// Where a kernel reads what a copy on another stream wrote: the Python line of such a launch
// is one side of a cross-stream race or of a wait that orders it, so its stack is read even
// though a launch does not hold the host (stack_policy.h reads launches only at a stream
// switch). The recorder keeps the last copies' and memsets' device destinations per stream
// and checks each launch's argument addresses (launch_memory.h) against them.
#pragma once

#include <cstdint>

#include "kernels/recorder/launch_addresses.h"

namespace streamlab::recorder {

// A copy or memset on `stream` wrote [dst, dst + bytes). Replaces any earlier destination it
// overlaps, so each buffer keeps its last writer's stream.
void NoteCopyDestination(uint64_t stream, uint64_t dst, uint64_t bytes);

// True when one of a launch's addresses on `stream` lies in a destination a copy on another
// stream wrote, the first few times for each such copy (kStacksPerCopy): enough for the first
// readers, which are where a race or a wait shows, at a bounded cost a step.
bool ReadsAnotherStreamsCopy(uint64_t stream, const LaunchAddresses& launch);

}  // namespace streamlab::recorder
