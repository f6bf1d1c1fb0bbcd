// The background run.
#include "app/gui/loading/run_worker.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "app/runner/child_run.h"
#include "app/runner/run_on_backend.h"
#include "engine/report/verdict_text.h"
#include "engine/ingest/open_trace.h"
#include "engine/explain/explain_program.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// A run cancelled between stages: nothing of it is shown.
RunResult Cancelled(RunResult result) {
  result.ok = false;
  result.cancelled = true;
  result.error = "cancelled";
  result.trace = Trace{};
  return result;
}

}  // namespace

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
  stage_ = request.open.empty() ? RunStage::kRunning : RunStage::kReading;
  started_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this, request = std::move(request)] {
    RunResult result;
    try {
      if (!request.open.empty()) {
        result.opened = true;
        result.trace = LoadTraceFile(request.open);
        if (cancel_) return Finish(Cancelled(std::move(result)));
        // The explain pipeline, as `explain` runs it: analysis, account, verdict, replays.
        stage_ = RunStage::kExplaining;
        Explanation explained = ExplainProgram(result.trace, {kVerdictFixes});
        if (cancel_) return Finish(Cancelled(std::move(result)));
        result.analysis = std::move(explained.analysis);
        if (result.trace.scenario.recorded) result.verdict = std::move(explained.verdict);
        result.ok = true;
        Finish(std::move(result));
        return;
      }
      if (!request.record.empty()) {
        ChildRunResult child = RecordInChild(cli_path_, request.record, 600, &cancel_, request.record_options);
        // The program's own status is record's; what it ran is in the trace whatever that was.
        if (child.trace.ops.empty())
          throw std::runtime_error(child.error.empty() ? "the recording failed" : child.error);
        result.trace = std::move(child.trace);
        stage_ = RunStage::kExplaining;
        Explanation explained = ExplainProgram(result.trace, {kVerdictFixes});
        result.analysis = std::move(explained.analysis);
        if (result.trace.scenario.recorded) result.verdict = std::move(explained.verdict);
        result.ok = !cancel_;
        if (cancel_) result.error = "cancelled";
        Finish(std::move(result));
        return;
      }
      // A lab, or the sandbox's scenario: on the simulator here, on a GPU in a child
      // `streamlab-cli run` (the GUI never touches CUDA).
      RunTarget target;
      if (request.scenario) target.scenario = *request.scenario;
      else target = ResolveRunTarget(request.lab, request.variant, request.params);
      RunSpec spec;
      spec.backend = request.backend;
      spec.profile = request.profile;
      spec.cli = cli_path_;
      spec.cancel = &cancel_;
      result.trace = RunOnBackend(target, spec).trace;
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
