// `streamlab-cli exercise LAB [--script FILE] [--param k=v]`: checks a lab's exercise - the
// lab's program edited by a script of sandbox edits (or with the parameters set) - on the
// simulator or a GPU, goal by goal, as the app's Check does. `--all --solutions DIR` checks
// every lab with DIR/<lab>.txt (tests/exercises holds the reference solutions), which is how
// the exercises' goals are confirmed on a real GPU.
#include <fstream>
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/runner/run_on_backend.h"
#include "engine/analysis/analyzer.h"
#include "engine/classroom/exercise.h"
#include "engine/util/errors.h"
#include "engine/util/assets.h"
#include "kernels/cuda_backend.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

std::vector<std::string> ReadScript(const std::string& path) {
  std::vector<std::string> lines;
  if (path.empty()) return lines;
  std::ifstream file(path);
  if (!file) throw InputError(path + ": cannot read the script");
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

// On the simulator in this process; on a GPU in a child process (its own CUDA settings,
// and a crash or hang ends only the child), through a scenario file.
Trace RunProgram(const ExerciseCommand& cmd, Backend backend, const Scenario& scenario) {
  RunTarget target;
  target.scenario = scenario;
  RunSpec spec;
  spec.backend = backend;
  spec.timeout_s = cmd.timeout_s;
  spec.cli = cmd.self;
  return RunOnBackend(target, spec).trace;
}

// Checks one lab's exercise and prints the report; true if every goal is met.
bool CheckOne(const ExerciseCommand& cmd, Backend backend, const Lab& lab, const std::vector<std::string>& script,
              const std::map<std::string, double>& params, const FindingTexts& texts, const std::string& lang) {
  std::optional<Exercise> exercise = LoadExercise(lab.id);
  if (!exercise) throw InputError("lab " + lab.id + " has no checked exercise");
  ExerciseProgram program = BuildExerciseProgram(lab, *exercise, script, params);
  Trace trace = RunProgram(cmd, backend, program.scenario);
  ExerciseResult result = CheckExercise(*exercise, trace, Analyze(trace), texts, lang, program.params);
  std::cout << (result.passed ? "PASS  " : "FAIL  ") << lab.id << " ["
            << (exercise->variant.empty() ? lab.variants.front() : exercise->variant) << ", "
            << (exercise->on_params ? "parameters" : "sandbox") << ", " << trace.backend << "]\n";
  for (const GoalResult& g : result.goals) {
    std::cout << "  [" << (g.met ? "met" : "not met") << "] " << g.goal << " (measured " << g.measured << ")\n";
    if (!g.reason.empty()) std::cout << "      why: " << g.reason << "\n";
  }
  return result.passed;
}

}  // namespace

int CmdExercise(const ExerciseCommand& cmd) {
  Backend backend = BackendFlag(cmd.backend, {Backend::kSim, Backend::kCuda, Backend::kAuto});
  if (cmd.all == !cmd.lab.empty()) throw InputError("name one lab, or pass --all with --solutions DIR");
  if (cmd.all && cmd.solutions.empty()) throw InputError("--all needs --solutions DIR (e.g. tests/exercises)");
  std::string lang = cmd.lang.empty() ? DefaultLanguage() : cmd.lang;
  if (lang != "en" && lang != "zh") throw InputError("--lang must be en or zh");
  FindingTexts texts = FindingTexts::Load(lang);
  std::map<std::string, double> params = ParseParams(cmd.params);
  if (!cmd.all) {
    const Lab& lab = FindLab(cmd.lab);
    return CheckOne(cmd, backend, lab, ReadScript(cmd.script), params, texts, lang) ? kExitOk : kExitFailed;
  }
  int gpus = 1 << 20;
  if (backend == Backend::kCuda) {
    CudaProbe probe = ProbeCuda();
    if (!probe.usable) throw BackendError("no usable GPU: " + probe.reason);
    gpus = probe.device_count;
  }
  int passed = 0, failed = 0, skipped = 0;
  for (const Lab& lab : AllLabs()) {
    if (lab.devices > gpus) {
      std::cout << "SKIP  " << lab.id << ": needs " << lab.devices << " GPUs; " << gpus << " here\n";
      ++skipped;
      continue;
    }
    try {
      bool ok = CheckOne(cmd, backend, lab, ReadScript(cmd.solutions + "/" + lab.id + ".txt"), params, texts, lang);
      (ok ? passed : failed)++;
    } catch (const std::exception& e) {
      std::cout << "FAIL  " << lab.id << ": " << e.what() << "\n";
      ++failed;
    }
  }
  std::cout << passed << " passed, " << failed << " failed";
  if (skipped) std::cout << ", " << skipped << " skipped";
  std::cout << "\n";
  return failed ? kExitFailed : kExitOk;
}

}  // namespace streamlab
