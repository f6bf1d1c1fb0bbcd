// The lab catalogue: every lab of the course, in week and order.
#pragma once

#include <string>
#include <vector>

#include "engine/lab.h"

namespace streamlab {

const std::vector<Lab>& AllLabs();
// Throws InputError naming the known labs when `id` is unknown.
const Lab& FindLab(const std::string& id);

// One function per lab file.
Lab FifoVsStreamsLab();
Lab EventChainLab();
Lab LegacyDefaultStallLab();

}  // namespace streamlab
