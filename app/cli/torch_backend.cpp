// The PyTorch backend: write the program, check for PyTorch and a GPU, record, map back.
#include "app/cli/torch_backend.h"

#include <algorithm>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <system_error>
#include <thread>
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

PreparedTorchRun::PreparedTorchRun(PreparedTorchRun&& other) noexcept
    : scenario(std::move(other.scenario)),
      differs(std::move(other.differs)),
      timeout_s(other.timeout_s),
      program_path(std::exchange(other.program_path, {})),
      contents_dir(std::exchange(other.contents_dir, {})),
      gate_path(std::exchange(other.gate_path, {})),
      ready_path(std::exchange(other.ready_path, {})),
      child(std::move(other.child)) {}

PreparedTorchRun::~PreparedTorchRun() {
  child.Stop();
  std::error_code ignored;
  if (!program_path.empty()) std::filesystem::remove(program_path, ignored);
  if (!contents_dir.empty()) std::filesystem::remove_all(contents_dir, ignored);
  if (!gate_path.empty()) std::filesystem::remove(gate_path, ignored);
  if (!ready_path.empty()) std::filesystem::remove(ready_path, ignored);
}

PreparedTorchRun PrepareTorchRun(const Scenario& scenario, const TorchRunOptions& options, bool gated) {
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
  static int counter = 0;
  std::string stem = "streamlab-torch-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  PreparedTorchRun run;
  run.scenario = scenario;
  run.differs = program.differs;
  run.timeout_s = options.timeout_s;
  run.program_path = (std::filesystem::temp_directory_path() / (stem + ".py")).string();
  Write(run.program_path, program.text);
  // Where the program saves its checked buffers' bytes.
  run.contents_dir = (std::filesystem::temp_directory_path() / stem).string();
  std::filesystem::create_directories(run.contents_dir);
  ChildEnv env{{"STREAMLAB_CONTENTS_DIR", run.contents_dir}};
  // A torchrun job's processes touch CUDA as they start (init_process_group): never early.
  if (gated && program.processes == 1) {
    run.gate_path = (std::filesystem::temp_directory_path() / (stem + ".go")).string();
    run.ready_path = run.gate_path + ".ready";
    env.push_back({"STREAMLAB_START_GATE", run.gate_path});
    env.push_back({"STREAMLAB_GATE_OWNER", std::to_string(getpid())});
  }
  // A scenario with collectives is a torchrun job: one process per GPU, recorded into one
  // trace (a lane group per rank, on the host's clock).
  std::vector<std::string> command{Python(), run.program_path};
  if (program.processes > 1)
    command = {Python(), "-m", "torch.distributed.run", "--standalone",
               "--nproc_per_node=" + std::to_string(program.processes), run.program_path};
  run.child = StartRecordInChild(options.self, command, {}, env);
  return run;
}

void WaitUntilAtGate(const PreparedTorchRun& run, double timeout_s) {
  if (run.ready_path.empty()) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  while (!std::filesystem::exists(run.ready_path) && !run.child.Exited() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

Trace FinishTorchRun(PreparedTorchRun& run) {
  if (!run.gate_path.empty()) Write(run.gate_path, "go\n");
  ChildRunResult result = WaitForChild(run.child, run.timeout_s, nullptr, {});
  if (result.exit_code != 0)
    throw RunError("the PyTorch program failed" + (result.error.empty() ? std::string() : ": " + result.error));
  Trace trace = MapTorchRun(result.trace, run.scenario);
  trace.checks = SavedContentsChecks(run.scenario, run.contents_dir, trace.notes);
  for (const std::string& d : run.differs) trace.notes.push_back(Note("torch_differs", {{"what", d}}));
  return trace;
}

Trace RunInTorch(const Scenario& scenario, const TorchRunOptions& options) {
  PreparedTorchRun run = PrepareTorchRun(scenario, options, false);
  return FinishTorchRun(run);
}

Trace TorchExecutor::Run(const Scenario& scenario, const RunOptions& run) {
  ValidateRunnable(scenario);
  TorchRunOptions options = options_;
  options.timeout_s = std::max(60.0, static_cast<double>(run.timeout) / 1e9);
  return RunInTorch(scenario, options);
}

}  // namespace streamlab
