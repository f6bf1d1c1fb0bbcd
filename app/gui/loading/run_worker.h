// Runs a lab off the UI thread so the window never freezes: the simulator in-process, a
// real GPU through `streamlab-cli run` in a child process (a CUDA error or a hang ends the
// child, not the app), a user's program through `streamlab-cli record` in a child, a trace
// file read (a 250 000-op one takes seconds). The trace is analysed here as well. The UI
// polls for the result every frame.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/analysis/analyzer.h"
#include "engine/verdict/verdict.h"
#include "engine/trace/backend.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct RunRequest {
  std::string lab;
  std::string variant;
  std::map<std::string, double> params;
  Backend backend = Backend::kSim;  // never kAuto: the UI resolves it with the probe
  std::string profile;          // the simulator's profile (a shipped name or a file; empty: built-in)
  std::optional<Scenario> scenario;  // the sandbox: run this instead of a lab
  std::vector<std::string> record;   // "Record a program": this command, under `streamlab-cli record`
  std::vector<std::string> record_options;  // ... with these options (--delay S --duration S)
  std::string open;                  // --open: read this trace file (a recording, a torch.profiler trace)
};

// Where a run is, for its progress line: opening a file is read, then explained; a recording
// runs the program, then is explained. Cancel takes effect between stages.
enum class RunStage { kRunning, kReading, kExplaining };

struct RunResult {
  bool ok = false;
  std::string error;
  Trace trace;
  Analysis analysis;   // analysed here too, so a large trace never stalls a frame
  // A recorded program's verdict, its top fixes replayed on the simulator (whatif.h): seconds
  // for a long recording, so here too.
  std::optional<ProgramVerdict> verdict;
  double seconds = 0;  // from Start to the result
  bool opened = false;  // the result of an `open` request
  bool cancelled = false;
};

class RunWorker {
 public:
  explicit RunWorker(std::string cli_path) : cli_path_(std::move(cli_path)) {}
  ~RunWorker();
  RunWorker(const RunWorker&) = delete;
  RunWorker& operator=(const RunWorker&) = delete;

  void Start(RunRequest request);
  void Cancel() { cancel_ = true; }
  bool Busy() const { return busy_; }
  RunStage Stage() const { return stage_; }
  double ElapsedSeconds() const;
  // The finished run, once; empty while running or when nothing finished.
  std::optional<RunResult> TakeResult();

 private:
  void Join();
  void Finish(RunResult result);

  std::string cli_path_;
  std::thread thread_;
  std::atomic<bool> busy_{false};
  std::atomic<bool> cancel_{false};
  std::atomic<RunStage> stage_{RunStage::kRunning};
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::optional<RunResult> result_;
};

// streamlab-cli next to this executable (build/app/gui/../cli), or $STREAMLAB_CLI.
std::string FindCliExecutable();

}  // namespace streamlab
