// SimExecutor: runs a Scenario on the simulated GPU. The host thread is modelled here
// (API call costs, blocking calls, the legacy-default-stream and implicit-sync rules that
// are decided at submission time); the device side lives in SimGpu.
#pragma once

#include "engine/sim/device_profile.h"
#include "engine/trace/executor.h"

namespace streamlab {

class SimExecutor : public Executor {
 public:
  explicit SimExecutor(DeviceProfile profile = {}) : profile_(std::move(profile)) {}
  Backend Kind() const override { return Backend::kSim; }
  Trace Run(const Scenario& scenario, const RunOptions& options) override;

 private:
  DeviceProfile profile_;
};

// A recorded program's replay (engine/whatif/replay_scenario.h): the scenario keeps what was
// recorded (foreign kernels with their measured times, copies with `duration` = their measured
// GPU time, host work for the host's measured time), which the executors refuse to run as a
// lab. No buffer contents are checked, no per-block records kept; `keep_scenario`: the trace
// holds its scenario (to be saved or shown), or only the times (to be measured).
Trace SimulateRecorded(const DeviceProfile& profile, const Scenario& scenario, bool keep_scenario = true);

}  // namespace streamlab
