// Helpers shared by the tests: run a scenario on the simulator, find ops by name.
#pragma once

#include <string>

#include "engine/scenario/scenario.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace.h"
#include "engine/trace/trace_query.h"

namespace streamlab::testing {

inline Trace Simulate(const Scenario& s, DeviceProfile profile = {}) {
  return SimExecutor(std::move(profile)).Run(s, RunOptions{});
}

inline std::string SourcePath(const std::string& relative) {
  return std::string(STREAMLAB_SOURCE_DIR) + "/" + relative;
}

}  // namespace streamlab::testing
