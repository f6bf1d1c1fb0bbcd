// The PyTorch backend: write the program, check for PyTorch and a GPU, record, map back.
#include "app/cli/torch_backend.h"

#include <algorithm>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "app/runner/child_run.h"
#include "engine/scenario/torch_program.h"
#include "engine/sim/buffer_contents.h"
#include "engine/ingest/torch_mapping.h"
#include "engine/util/errors.h"
#include "kernels/cuda_backend.h"

namespace streamlab {
namespace {

std::string Python() {
  const char* p = std::getenv("STREAMLAB_PYTHON");
  return p && *p ? p : "python3";
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw InputError(path + ": cannot write");
}

// A folder that lives as long as the run needs it.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(std::filesystem::path p) : path(std::move(p)) { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// Whether python3 has PyTorch with CUDA, asked once per interpreter: importing torch takes
// seconds, and `verify --all --backend torch` runs about 80 programs in one process.
ChildRunResult TorchCheck() {
  static std::map<std::string, ChildRunResult> answered;
  auto found = answered.find(Python());
  if (found != answered.end()) return found->second;
  ChildRunResult check = RunCommandInChild(
      {Python(), "-c", "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 3)"}, 120);
  if (check.exit_code == 0) answered[Python()] = check;  // a failure is asked again
  return check;
}

}  // namespace

Trace RunInTorch(const Scenario& scenario, const TorchRunOptions& options) {
  TorchProgram program = ScenarioAsTorchProgram(scenario);
  if (!options.save_program.empty()) Write(options.save_program, program.text);
  if (!program.unsupported.empty()) {
    std::string why;
    for (const std::string& u : program.unsupported) why += (why.empty() ? "" : "; ") + u;
    throw InputError("PyTorch cannot run this as written: " + why);
  }
  CudaProbe probe = ProbeCuda();
  if (!probe.usable) throw BackendError("no usable GPU: " + probe.reason);
  if (probe.device_count < scenario.device_count)
    throw BackendError("this scenario needs " + std::to_string(scenario.device_count) + " GPUs; " +
                       std::to_string(probe.device_count) + " found");
  ChildRunResult check = TorchCheck();
  if (check.exit_code != 0)
    throw BackendError(Python() + " has no PyTorch with CUDA" + (check.error.empty() ? "" : ": " + check.error) +
                       " (set STREAMLAB_PYTHON to another interpreter)");
  std::string path = (std::filesystem::temp_directory_path() /
                      ("streamlab-torch-" + std::to_string(getpid()) + ".py")).string();
  Write(path, program.text);
  // Where the program saves its checked buffers' bytes (the child inherits the variable).
  TempDir contents{std::filesystem::temp_directory_path() / ("streamlab-torch-" + std::to_string(getpid()))};
  setenv("STREAMLAB_CONTENTS_DIR", contents.path.c_str(), 1);
  // A scenario with collectives is a torchrun job: one process per GPU, recorded into one
  // trace (a lane group per rank, on the host's clock).
  std::vector<std::string> command{Python(), path};
  if (program.processes > 1)
    command = {Python(), "-m", "torch.distributed.run", "--standalone",
               "--nproc_per_node=" + std::to_string(program.processes), path};
  ChildRunResult run = RecordInChild(options.self, command, options.timeout_s);
  unsetenv("STREAMLAB_CONTENTS_DIR");
  std::remove(path.c_str());
  if (run.exit_code != 0)
    throw RunError("the PyTorch program failed" + (run.error.empty() ? std::string() : ": " + run.error));
  Trace trace = MapTorchRun(run.trace, scenario);
  trace.checks = SavedContentsChecks(scenario, contents.path.string(), trace.notes);
  for (const std::string& d : program.differs) trace.notes.push_back(Note("torch_differs", {{"what", d}}));
  return trace;
}

Trace TorchExecutor::Run(const Scenario& scenario, const RunOptions& run) {
  ValidateRunnable(scenario);
  TorchRunOptions options = options_;
  options.timeout_s = std::max(60.0, static_cast<double>(run.timeout) / 1e9);
  return RunInTorch(scenario, options);
}

}  // namespace streamlab
