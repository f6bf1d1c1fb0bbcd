// The background run.
#include "app/gui/run_worker.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "app/cli/child_run.h"
#include "engine/scenario/scenario_json.h"
#include "engine/sim/sim_executor.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"

namespace streamlab {

RunWorker::~RunWorker() {
  cancel_ = true;
  Join();
}

void RunWorker::Join() {
  if (thread_.joinable()) thread_.join();
}

double RunWorker::ElapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void RunWorker::Start(RunRequest request) {
  if (busy_) return;
  Join();
  busy_ = true;
  cancel_ = false;
  started_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this, request = std::move(request)] {
    RunResult result;
    try {
      if (!request.open.empty()) {
        result.opened = true;
        result.trace = LoadTraceFile(request.open);
        result.analysis = Analyze(result.trace);
        result.ok = true;
        Finish(std::move(result));
        return;
      }
      if (!request.record.empty()) {
        ChildRunResult child = RecordInChild(cli_path_, request.record, 600, &cancel_, request.record_options);
        if (child.exit_code != 0 && child.exit_code != 4)
          throw std::runtime_error(child.error.empty() ? "the recording failed" : child.error);
        result.trace = std::move(child.trace);
        result.analysis = Analyze(result.trace);
        result.ok = !cancel_;
        if (cancel_) result.error = "cancelled";
        Finish(std::move(result));
        return;
      }
      if (request.scenario) {
        result.trace = RunScenario(*request.scenario, request);
        result.analysis = Analyze(result.trace);
        result.ok = !cancel_;
        if (cancel_) result.error = "cancelled";
        Finish(std::move(result));
        return;
      }
      const Lab& lab = FindLab(request.lab);
      LabArgs args = ResolveLabArgs(lab, request.variant, request.params);
      if (request.backend == "cuda" || request.backend == "torch") {
        std::vector<std::string> cli_args{lab.id, "--variant", args.variant, "--backend", request.backend};
        for (const auto& [name, value] : request.params)
          cli_args.insert(cli_args.end(), {"--param", name + "=" + std::to_string(value)});
        // A PyTorch run starts Python and imports torch first.
        ChildRunResult child = RunChild(cli_path_, cli_args, request.backend == "torch" ? 120 : 30, &cancel_);
        if (child.exit_code != 0) throw std::runtime_error(child.error.empty() ? "the run failed" : child.error);
        result.trace = std::move(child.trace);
      } else {
        result.trace = SimExecutor(ResolveProfile(request.profile)).Run(lab.build(args), RunOptions{});
        result.trace.lab = lab.id;
        result.trace.variant = args.variant;
        result.trace.params = args.params;
      }
      result.analysis = Analyze(result.trace);
      result.ok = !cancel_;
      if (cancel_) result.error = "cancelled";
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    Finish(std::move(result));
  });
}

void RunWorker::Finish(RunResult result) {
  result.seconds = ElapsedSeconds();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(result);
  }
  busy_ = false;
}

// A sandbox scenario: in-process on the simulator; on a GPU through a scenario file that
// the child `streamlab-cli run FILE --backend cuda` reads.
Trace RunWorker::RunScenario(const Scenario& scenario, const RunRequest& request) {
  if (request.backend != "cuda" && request.backend != "torch")
    return SimExecutor(ResolveProfile(request.profile)).Run(scenario, RunOptions{});
  std::string path = (std::filesystem::temp_directory_path() / ("streamlab-sandbox-" + std::to_string(getpid()) + ".json")).string();
  SaveJsonFile(ScenarioToJson(scenario), path);
  ChildRunResult child =
      RunChild(cli_path_, {path, "--backend", request.backend}, request.backend == "torch" ? 120 : 30, &cancel_);
  std::filesystem::remove(path);
  if (child.exit_code != 0) throw std::runtime_error(child.error.empty() ? "the run failed" : child.error);
  return std::move(child.trace);
}

std::optional<RunResult> RunWorker::TakeResult() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<RunResult> out = std::move(result_);
  result_.reset();
  return out;
}

std::string FindCliExecutable() {
  if (const char* env = std::getenv("STREAMLAB_CLI"); env && *env) return env;
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::filesystem::path self(std::string(buf, static_cast<size_t>(n)));
    for (auto candidate : {self.parent_path() / "streamlab-cli", self.parent_path().parent_path() / "cli" / "streamlab-cli"})
      if (std::filesystem::exists(candidate)) return candidate.string();
  }
  return "streamlab-cli";
}

}  // namespace streamlab
