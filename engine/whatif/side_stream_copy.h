// The copy-wait fix as an edit: a copy to the device that the kernels after it on its stream
// waited for is issued on a side stream instead, where the program issued it, so it runs while
// the work queued before it on the kernels' stream still runs. The kernels' stream waits for the
// copy through an event right before the op that came after the copy (that op, usually the kernel
// that reads the copy, still starts only once it has landed).
//
// As the fix needs: copies that land in one buffer step after step get a second buffer, so a copy
// waits only for the kernels that read its buffer two copies before (an event recorded where the
// last copy's kernels began). Each added call (two for the join, two for the buffer's event)
// takes the program's usual call cost.
#pragma once

#include <vector>

#include "engine/whatif/replay_scenario.h"

namespace streamlab {

// Copies to the device among `calls` (recorded ops, not graph nodes).
std::vector<int> CopiesToTheDevice(const Trace& recorded, const std::vector<int>& calls);

// Rebuilds the replay's op list with each copy in `copies` on a side stream of its stream.
void CopyOnSideStreams(const std::vector<int>& copies, Replay& replay);

}  // namespace streamlab
