// RunOnBackend: the simulator here; a GPU backend here through the caller's executors, or in a
// child `streamlab-cli run` whose trace is read back, its exit code turned into the same errors.
#include "app/runner/run_on_backend.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "app/runner/child_run.h"
#include "engine/scenario/scenario_json.h"
#include "engine/sim/device_profile.h"
#include "engine/sim/profile_ranges.h"
#include "engine/sim/sim_executor.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {

// streamlab-cli's exit codes for bad input and for no usable backend (app/cli/commands.h).
constexpr int kChildBadInput = 2, kChildNoBackend = 3;

// A scenario file for the child, removed when the run is over.
struct TempScenarioFile {
  std::string path;
  explicit TempScenarioFile(const Scenario& scenario)
      : path((std::filesystem::temp_directory_path() / ("streamlab-run-" + std::to_string(getpid()) + ".json")).string()) {
    SaveJsonFile(ScenarioToJson(scenario), path);
  }
  ~TempScenarioFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

Trace RunInChild(const RunTarget& target, const RunSpec& spec) {
  // A PyTorch run starts Python and imports torch first: give it longer.
  double timeout = spec.backend == Backend::kTorch ? std::max(120.0, spec.timeout_s) : spec.timeout_s;
  std::vector<std::string> args;
  std::unique_ptr<TempScenarioFile> file;
  if (target.lab) {
    args = {target.lab->id, "--variant", target.args.variant};
    for (const auto& [name, value] : target.args.params) args.insert(args.end(), {"--param", name + "=" + std::to_string(value)});
  } else {
    file = std::make_unique<TempScenarioFile>(target.scenario);
    args = {file->path};
  }
  args.insert(args.end(), {"--backend", std::string(BackendName(spec.backend)), "--timeout", std::to_string(timeout),
                           "--repeat", std::to_string(spec.repeat)});
  ChildRunResult child = RunChild(spec.cli, args, timeout + 30, spec.cancel);
  if (child.exit_code == kChildNoBackend) throw BackendError(child.error);
  if (child.exit_code == kChildBadInput) throw InputError(child.error);
  if (child.exit_code != 0) throw RunError(child.error.empty() ? "the run failed" : child.error);
  return std::move(child.trace);
}

RunOptions OptionsOf(const RunSpec& spec) {
  RunOptions options;
  options.timeout = static_cast<TimeNs>(spec.timeout_s * 1e9);
  options.repeat = spec.repeat;
  return options;
}

// The executor in this process: the simulator, or the caller's for a GPU backend; kAuto falls
// back to the simulator, saying why, when no GPU is usable.
std::unique_ptr<Executor> ExecutorHere(const RunTarget& target, const RunSpec& spec, std::string& message) {
  auto simulator = [&] { return std::make_unique<SimExecutor>(ResolveProfile(spec.profile)); };
  if (spec.backend == Backend::kSim) return simulator();
  try {
    return spec.in_process(spec.backend == Backend::kAuto ? Backend::kCuda : spec.backend, target.scenario);
  } catch (const BackendError& e) {
    if (spec.backend != Backend::kAuto) throw;
    message = std::string(e.what()) + ": running on the simulator";
    return simulator();
  }
}

}  // namespace

RunOutcome RunOnBackend(const RunTarget& target, const RunSpec& spec) {
  RunOutcome out;
  if (spec.backend != Backend::kSim && !spec.in_process)
    out.trace = RunInChild(target, spec);
  else
    out.trace = ExecutorHere(target, spec, out.message)->Run(target.scenario, OptionsOf(spec));
  if (spec.backend == Backend::kSim) {
    // A figure that varies between machine starts gives a range, and the run says so.
    if (auto note = RangeNote(ResolveProfile(spec.profile), target.scenario, out.trace)) out.trace.notes.push_back(*note);
  }
  LabelTrace(target, out.trace);
  return out;
}

}  // namespace streamlab
