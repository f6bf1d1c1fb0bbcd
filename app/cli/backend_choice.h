// Choosing the executor for a run: the simulator, the GPU, or "auto" (GPU when one is
// usable, else the simulator, saying why).
#pragma once

#include <memory>
#include <string>

#include "engine/trace/executor.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

struct BackendChoice {
  std::unique_ptr<Executor> executor;
  std::string message;  // e.g. why auto fell back to the simulator
};

// Puts the scenario's per-process settings into the environment, which CUDA reads when it
// initialises; must run before any CUDA call in this process.
void ApplyProcessSettings(const RunSettings& settings);

// backend: "sim", "cuda" or "auto". profile_path: optional simulator profile JSON.
// Throws BackendError when "cuda" cannot run this scenario here, InputError on bad names.
BackendChoice ChooseBackend(const std::string& backend, const Scenario& scenario,
                            const std::string& profile_path);

}  // namespace streamlab
