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

}  // namespace streamlab
