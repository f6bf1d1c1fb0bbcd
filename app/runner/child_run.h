// Runs `streamlab-cli run ...` in a child process and reads its trace back. GPU runs go
// through here so that a sticky CUDA error, a hang or a crash ends only the child, and
// each run gets the per-process CUDA settings its scenario asks for.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

struct ChildRunResult {
  int exit_code = -1;   // the child's exit code; -1 if it died from a signal
  std::string error;    // the child's stderr (trimmed) when it failed
  Trace trace;          // valid when exit_code == 0
};

// Variables set in a child's environment on top of this process's.
using ChildEnv = std::vector<std::pair<std::string, std::string>>;

// A child started now and waited for later (`verify --backend torch` starts the next PyTorch
// run while this one runs). Dropped before it was waited for, it is killed.
struct StartedChild {
  pid_t pid = -1;          // -1 once waited for (or never started)
  std::string err_path;    // its stderr
  std::string trace_path;  // where it writes its trace; empty for a plain command
  StartedChild() = default;
  StartedChild(StartedChild&& other) noexcept;
  StartedChild& operator=(StartedChild&& other) noexcept;
  ~StartedChild();
  void Stop();           // kills it now, if it still runs
  bool Exited() const;   // it has ended (not reaped: WaitForChild still reads its status)
};

// Waits for a started child: killed on *cancel or past timeout_s (+30 s); its trace read when
// it exited with one of `trace_codes` (an empty list: any code).
ChildRunResult WaitForChild(StartedChild& child, double timeout_s, const std::atomic<bool>* cancel,
                            std::initializer_list<int> trace_codes);

// `args` are the arguments after `run` (lab, --variant, ...); --out and --quiet are added.
// Setting *cancel (when given) kills the child.
ChildRunResult RunChild(const std::string& self, std::vector<std::string> args,
                        double timeout_s, const std::atomic<bool>* cancel = nullptr);
// Runs `self record --out TMP -- program...` in a child and reads the recording back (also
// when the program failed: exit 4 still leaves what ran before the failure).
// `options`: more of record's options (--delay S --duration S), before the program.
ChildRunResult RecordInChild(const std::string& self, const std::vector<std::string>& program, double timeout_s,
                             const std::atomic<bool>* cancel = nullptr, const std::vector<std::string>& options = {});
// `self record ... -- program...` started with `env` added, to be waited for with WaitForChild.
StartedChild StartRecordInChild(const std::string& self, const std::vector<std::string>& program,
                                const std::vector<std::string>& options, const ChildEnv& env);
// A command started with `env` added (no trace), to be waited for with WaitForChild.
StartedChild StartCommandInChild(std::vector<std::string> args, const ChildEnv& env);
// Runs a command (a bare name is looked up on PATH), killed past the deadline: its exit
// code and stderr (no trace).
ChildRunResult RunCommandInChild(std::vector<std::string> args, double timeout_s);
// Runs `self probe` in a child: is a GPU usable, and if not, why. Never touches CUDA here.
struct GpuProbeResult {
  bool usable = false;
  std::string reason;
  std::string device;
  int count = 0;  // GPUs found
};
GpuProbeResult ProbeGpuInChild(const std::string& self);

}  // namespace streamlab
