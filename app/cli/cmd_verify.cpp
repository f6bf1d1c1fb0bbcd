// `streamlab-cli verify [LAB...|--all]`: runs every variant of each lab and checks the
// lab's expectations on the trace. One line per check, then "N passed, N failed".
#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <iostream>
#include <memory>
#include <vector>

#include "app/cli/backend_choice.h"
#include "app/runner/child_run.h"
#include "app/cli/commands.h"
#include "app/cli/torch_runs_ahead.h"
#include "app/runner/run_on_backend.h"
#include "engine/util/errors.h"
#include "engine/scenario/scenario_json.h"
#include "engine/scenario/torch_program.h"
#include "engine/trace/trace_json.h"
#include "kernels/cuda_backend.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// A variant the PyTorch program cannot run as written (torch_program.h's unsupported).
struct NotExpressible : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs one lab variant: in this process on the simulator, in a child process on a GPU.
Trace RunVariant(const VerifyCommand& cmd, Backend backend, const Lab& lab, const std::string& variant) {
  RunSpec spec;
  spec.backend = backend;
  spec.profile = cmd.profile;
  spec.timeout_s = cmd.timeout_s;
  spec.cli = cmd.self;
  try {
    return RunOnBackend(ResolveRunTarget(lab.id, variant, {}), spec).trace;
  } catch (const InputError& e) {
    if (backend == Backend::kTorch) throw NotExpressible(e.what());
    throw;
  }
}

struct Tally {
  int passed = 0, failed = 0, skipped = 0, differ = 0;
};

// One line per claim of the lab's expectations on this run.
void CheckClaims(const Lab& lab, const std::string& variant, Backend backend, const Trace& trace, Tally& tally) {
  std::string label = lab.id + "/" + variant;
  LabArgs args = ResolveLabArgs(lab, variant, trace.params.empty() ? std::map<std::string, double>{} : trace.params);
  // In PyTorch, a claim may fail because PyTorch does it differently (the program says
  // how): such a claim is reported as a difference, not a failure.
  std::vector<std::string> differs;
  if (backend == Backend::kTorch) differs = ScenarioAsTorchProgram(lab.build(args)).differs;
  for (const std::string& d : differs) std::cout << "      " << label << " in PyTorch: " << d << "\n";
  // Where the lab says what PyTorch does instead, those are the claims checked.
  bool torch_claims = backend == Backend::kTorch && lab.torch_expectations && !lab.torch_expectations(args).empty();
  if (torch_claims) differs.clear();
  if (torch_claims) label += " (PyTorch)";
  for (const Expectation& e : ExpectationsFor(lab, args, backend)) {
    CheckResult r;
    try {
      r = e.check(trace);
    } catch (const std::exception& ex) {
      r = {false, ex.what()};
    }
    bool differs_here = !r.pass && !differs.empty();
    std::cout << (r.pass ? "PASS  " : differs_here ? "DIFF  " : "FAIL  ") << label << ": " << e.claim << " ("
              << r.measured << ")" << std::endl;
    (r.pass ? tally.passed : differs_here ? tally.differ : tally.failed)++;
  }
}

Trace RunTorchVariant(TorchRunsAhead& torch, size_t index) {
  try {
    return torch.Run(index);
  } catch (const InputError& e) {
    throw NotExpressible(e.what());
  }
}

}  // namespace

int CmdVerify(const VerifyCommand& cmd) {
  Backend backend = BackendFlag(cmd.backend, {Backend::kSim, Backend::kCuda, Backend::kAuto, Backend::kTorch});
  std::vector<const Lab*> labs;
  if (cmd.all) {
    for (const Lab& lab : AllLabs()) labs.push_back(&lab);
  } else {
    if (cmd.labs.empty()) throw InputError("name labs to verify, or pass --all");
    for (const std::string& id : cmd.labs) labs.push_back(&FindLab(id));
  }
  int gpus = 0;
  if (OnGpu(backend)) {
    CudaProbe probe = ProbeCuda();
    gpus = probe.device_count;
    if (!probe.usable) throw BackendError("no usable GPU: " + probe.reason);
    std::cout << "GPU: " << probe.device_name << " x" << probe.device_count << ", driver "
              << probe.driver << "\n";
  }
  if (!cmd.out_dir.empty()) std::filesystem::create_directories(cmd.out_dir);

  // Every variant to run, in order; a PyTorch run's program is started ahead of its turn.
  struct Job {
    const Lab* lab;
    std::string variant;
    RunTarget target;
  };
  std::vector<Job> jobs;
  for (const Lab* lab : labs)
    for (const std::string& variant : lab->variants) jobs.push_back({lab, variant, ResolveRunTarget(lab->id, variant, {})});
  std::unique_ptr<TorchRunsAhead> torch;
  if (backend == Backend::kTorch) {
    std::vector<const RunTarget*> targets;
    for (const Job& job : jobs) targets.push_back(DevicesFor(*job.lab, job.variant) > gpus ? nullptr : &job.target);
    torch = std::make_unique<TorchRunsAhead>(targets, TorchRunOptions{cmd.self, std::max(120.0, cmd.timeout_s), ""},
                                             static_cast<size_t>(cmd.torch_batch));
  }

  Tally tally;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const Lab* lab = jobs[j].lab;
    const std::string& variant = jobs[j].variant;
    std::string label = lab->id + "/" + variant;
    if (OnGpu(backend) && DevicesFor(*lab, variant) > gpus) {
      std::cout << "SKIP  " << label << ": needs " << DevicesFor(*lab, variant) << " GPUs; " << gpus << " here\n";
      ++tally.skipped;
      continue;
    }
    Trace trace;
    try {
      trace = torch ? RunTorchVariant(*torch, j) : RunVariant(cmd, backend, *lab, variant);
    } catch (const NotExpressible& e) {
      std::cout << "SKIP  " << label << ": " << e.what() << "\n";
      ++tally.skipped;
      continue;
    } catch (const std::exception& e) {
      std::cout << "FAIL  " << label << ": run failed: " << e.what() << "\n";
      ++tally.failed;
      continue;
    }
    if (!cmd.out_dir.empty())
      SaveJsonFile(TraceToJson(trace), cmd.out_dir + "/" + lab->id + "." + variant + ".json");
    CheckClaims(*lab, variant, backend, trace, tally);
  }
  std::cout << tally.passed << " passed, " << tally.failed << " failed";
  if (tally.differ) std::cout << ", " << tally.differ << " differ in PyTorch";
  if (tally.skipped) std::cout << ", " << tally.skipped << " skipped";
  std::cout << "\n";
  return tally.failed ? kExitFailed : kExitOk;
}

}  // namespace streamlab
