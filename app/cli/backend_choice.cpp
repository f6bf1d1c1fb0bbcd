// Backend selection in the CLI's own process, and the CUDA per-process environment.
#include "app/cli/backend_choice.h"

#include <cstdlib>

#include "engine/sim/device_profile.h"
#include "engine/sim/sim_executor.h"
#include "engine/util/errors.h"
#include "kernels/cuda_backend.h"

namespace streamlab {
namespace {

// The CUDA executor, or BackendError saying why there is none.
std::unique_ptr<Executor> CudaExecutorFor(const Scenario& scenario) {
  ApplyProcessSettings(scenario.settings);
  CudaProbe probe = ProbeCuda();
  std::string why = probe.reason;
  if (probe.usable && probe.device_count < scenario.device_count) {
    why = "this scenario needs " + std::to_string(scenario.device_count) + " GPUs; " +
          std::to_string(probe.device_count) + " found";
    probe.usable = false;
  }
  if (!probe.usable) throw BackendError("no usable GPU (" + why + ")");
  return MakeCudaExecutor();
}

}  // namespace

void ApplyProcessSettings(const RunSettings& s) {
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(s.max_connections).c_str(), 1);
  setenv("CUDA_MODULE_LOADING", s.lazy_loading ? "LAZY" : "EAGER", 1);
  setenv("CUDA_LAUNCH_BLOCKING", s.launch_blocking ? "1" : "0", 1);
}

Backend BackendFlag(const std::string& name, std::initializer_list<Backend> allowed) {
  std::optional<Backend> backend = ParseBackend(name);
  for (Backend b : allowed)
    if (backend == b) return b;
  std::string list;
  size_t i = 0;
  for (Backend b : allowed) list += std::string(i++ == 0 ? "" : i == allowed.size() ? " or " : ", ") + std::string(BackendName(b));
  throw InputError("--backend must be " + list + " (got \"" + name + "\")");
}

InProcessExecutors CliExecutors(TorchRunOptions torch) {
  return [torch](Backend backend, const Scenario& scenario) -> std::unique_ptr<Executor> {
    if (backend == Backend::kTorch) return std::make_unique<TorchExecutor>(torch);
    return CudaExecutorFor(scenario);
  };
}

BackendChoice ChooseBackend(Backend backend, const Scenario& scenario, const std::string& profile_path) {
  DeviceProfile profile = ResolveProfile(profile_path);
  BackendChoice choice;
  if (backend != Backend::kSim) {
    try {
      choice.executor = CudaExecutorFor(scenario);
      return choice;
    } catch (const BackendError& e) {
      if (backend == Backend::kCuda) throw;
      choice.message = std::string(e.what()) + ": running on the simulator";
    }
  }
  choice.executor = std::make_unique<SimExecutor>(profile);
  return choice;
}

}  // namespace streamlab
