// Backend selection and the CUDA per-process environment.
#include "app/cli/backend_choice.h"

#include <cstdlib>

#include "engine/sim/device_profile.h"
#include "engine/util/errors.h"
#include "engine/sim/sim_executor.h"
#include "kernels/cuda_backend.h"

namespace streamlab {

void ApplyProcessSettings(const RunSettings& s) {
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(s.max_connections).c_str(), 1);
  setenv("CUDA_MODULE_LOADING", s.lazy_loading ? "LAZY" : "EAGER", 1);
  setenv("CUDA_LAUNCH_BLOCKING", s.launch_blocking ? "1" : "0", 1);
}

BackendChoice ChooseBackend(const std::string& backend, const Scenario& scenario,
                            const std::string& profile_path) {
  if (backend != "sim" && backend != "cuda" && backend != "auto")
    throw InputError("--backend must be sim, cuda or auto (got \"" + backend + "\")");
  DeviceProfile profile = ResolveProfile(profile_path);
  BackendChoice choice;
  if (backend != "sim") {
    ApplyProcessSettings(scenario.settings);
    CudaProbe probe = ProbeCuda();
    std::string why = probe.reason;
    if (probe.usable && probe.device_count < scenario.device_count) {
      why = "this scenario needs " + std::to_string(scenario.device_count) + " GPUs; " +
            std::to_string(probe.device_count) + " found";
      probe.usable = false;
    }
    if (probe.usable) {
      choice.executor = MakeCudaExecutor();
      return choice;
    }
    if (backend == "cuda") throw BackendError("no usable GPU: " + why);
    choice.message = "no usable GPU (" + why + "): running on the simulator";
  }
  choice.executor = std::make_unique<SimExecutor>(profile);
  return choice;
}

}  // namespace streamlab
