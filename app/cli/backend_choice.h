// The CLI's executors in its own process: the simulator, the CUDA executor, and the lab as a
// PyTorch program (TorchExecutor), all behind the one Executor interface; and the CUDA
// per-process environment a scenario asks for.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include "app/cli/torch_backend.h"
#include "app/runner/run_on_backend.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/backend.h"
#include "engine/trace/executor.h"

namespace streamlab {

struct BackendChoice {
  std::unique_ptr<Executor> executor;
  std::string message;  // e.g. why auto fell back to the simulator
};

// Puts the scenario's per-process settings into the environment, which CUDA reads when it
// initialises; must run before any CUDA call in this process.
void ApplyProcessSettings(const RunSettings& settings);

// The --backend flag's value, one of `allowed`; InputError names them otherwise.
Backend BackendFlag(const std::string& name, std::initializer_list<Backend> allowed);

// The GPU executors of this process, for RunSpec::in_process: kCuda after ProbeCuda (with the
// scenario's settings applied first), kTorch as a PyTorch program run under `record`.
InProcessExecutors CliExecutors(TorchRunOptions torch);

// kSim, kCuda or kAuto in this process. profile_path: optional simulator profile JSON.
// Throws BackendError when kCuda cannot run this scenario here.
BackendChoice ChooseBackend(Backend backend, const Scenario& scenario, const std::string& profile_path);

}  // namespace streamlab
