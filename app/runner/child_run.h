// Runs `streamlab-cli run ...` in a child process and reads its trace back. GPU runs go
// through here so that a sticky CUDA error, a hang or a crash ends only the child, and
// each run gets the per-process CUDA settings its scenario asks for.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

struct ChildRunResult {
  int exit_code = -1;   // the child's exit code; -1 if it died from a signal
  std::string error;    // the child's stderr (trimmed) when it failed
  Trace trace;          // valid when exit_code == 0
};

// `args` are the arguments after `run` (lab, --variant, ...); --out and --quiet are added.
// Setting *cancel (when given) kills the child.
ChildRunResult RunChild(const std::string& self, std::vector<std::string> args,
                        double timeout_s, const std::atomic<bool>* cancel = nullptr);
// Runs `self record --out TMP -- program...` in a child and reads the recording back (also
// when the program failed: exit 4 still leaves what ran before the failure).
// `options`: more of record's options (--delay S --duration S), before the program.
ChildRunResult RecordInChild(const std::string& self, const std::vector<std::string>& program, double timeout_s,
                             const std::atomic<bool>* cancel = nullptr, const std::vector<std::string>& options = {});
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
