// After a real run: copies each checked buffer back and compares it, element by element,
// with what program order gives (engine/sim/buffer_contents.h).
#pragma once

#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace streamlab {

// `storage[i]` is buffer i's memory (null if not allocated now). One check per checked buffer
// that owns its memory.
std::vector<BufferCheck> ReadBackChecks(const Scenario& scenario, const std::vector<void*>& storage);

}  // namespace streamlab
