// Running a lab or a scenario on a backend: the one path the CLI and the GUI share. The
// simulator runs here; a GPU run (CUDA or PyTorch) runs either in this process, through the
// executors the caller hands in (the CLI, which links CUDA), or in a child `streamlab-cli run`
// (the GUI, which never touches CUDA; and `verify`, so a sticky CUDA error or a crash ends one
// run only).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "app/runner/run_target.h"
#include "engine/trace/backend.h"
#include "engine/trace/executor.h"

namespace streamlab {

// An executor for a GPU backend (kCuda, kTorch) in this process; never null. Throws
// BackendError when the backend cannot run the scenario here (no GPU, too few, no CUDA build).
using InProcessExecutors = std::function<std::unique_ptr<Executor>(Backend backend, const Scenario& scenario)>;

struct RunSpec {
  Backend backend = Backend::kSim;  // kAuto: resolved in process, or by the child
  std::string profile;              // the simulator's device profile (a name or a file)
  double timeout_s = 10;            // the GPU watchdog (a PyTorch run gets at least 120 s)
  int repeat = 1;                   // GPU: measured runs, the median kept
  std::string cli;                  // streamlab-cli, for GPU runs in a child
  InProcessExecutors in_process;    // set: GPU runs here; empty: every run but the simulator's in a
                                    // child `streamlab-cli run`
  const std::atomic<bool>* cancel = nullptr;  // set: kills a child run
};

struct RunOutcome {
  Trace trace;          // labelled with the lab, variant and parameters
  std::string message;  // e.g. why kAuto ran on the simulator
};

// Throws InputError for a target the backend cannot run as written (a child's exit 2),
// BackendError when no backend is usable (exit 3), RunError when the run fails (exit 4).
RunOutcome RunOnBackend(const RunTarget& target, const RunSpec& spec);

}  // namespace streamlab
